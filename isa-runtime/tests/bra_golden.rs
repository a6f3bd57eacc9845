//! The spec's Python golden model for BRA conditions (`getGoldenBranchCondition` in
//! the `BRA` description of bru.isa), ported line by line over boolean arrays, and
//! compared with the simulator executing BRA on random masks and predicates.

// Lanes are numbers here: loops over `0..32` read like the spec.
#![allow(clippy::needless_range_loop)]

mod common;
use common::*;

use isa::{BraCond, Instruction};
use isa_runtime::{Machine, Program, Warp};
use proptest::prelude::*;

type Arr = [bool; 32];

fn arr(m: u32) -> Arr {
    std::array::from_fn(|i| m >> i & 1 == 1)
}

fn array2mask(a: &Arr) -> u32 {
    a.iter()
        .enumerate()
        .fold(0, |m, (i, &b)| m | u32::from(b) << i)
}

fn and(a: &Arr, b: &Arr) -> Arr {
    std::array::from_fn(|i| a[i] && b[i])
}

fn xor(a: &Arr, b: &Arr) -> Arr {
    std::array::from_fn(|i| a[i] ^ b[i])
}

fn not(a: &Arr) -> Arr {
    std::array::from_fn(|i| !a[i])
}

fn np_any(a: &Arr) -> bool {
    a.iter().any(|&b| b)
}

/// `np.all(x[mask])`: all of `x` where `mask` (true when `mask` is empty).
fn all_where(x: &Arr, mask: &Arr) -> bool {
    (0..32).filter(|&i| mask[i]).all(|i| x[i])
}

/// The golden model. `bra_modi` is `""`, `".U"`, `".DIV"` or `".CONV"`.
fn golden(
    activemask_array: &Arr,
    validmask_array: &Arr,
    pg_array: &Arr,
    bra_modi: &str,
    ur_maskarray: Option<&Arr>,
) -> Arr {
    let pgv = and(pg_array, activemask_array);
    match ur_maskarray {
        None => {
            let is_div = np_any(&xor(&pgv, validmask_array));
            match bra_modi {
                "" => pgv,
                ".U" => {
                    let mut branch_mask_array = [false; 32];
                    let v = all_where(&pgv, activemask_array);
                    for i in 0..32 {
                        if activemask_array[i] {
                            branch_mask_array[i] = v;
                        }
                    }
                    branch_mask_array
                }
                ".DIV" => {
                    if is_div {
                        pgv
                    } else {
                        [false; 32]
                    }
                }
                ".CONV" => {
                    if is_div {
                        [false; 32]
                    } else {
                        pgv
                    }
                }
                _ => panic!("Invalid branch modi"),
            }
        }
        Some(ur_maskarray) => {
            let is_div = if np_any(&and(&xor(validmask_array, activemask_array), ur_maskarray)) {
                true
            } else {
                // pv = pgv[activemask_array]
                let all_true = all_where(&pgv, activemask_array);
                let all_false = all_where(&not(&pgv), activemask_array);
                if !(all_true || all_false) {
                    np_any(&and(&and(activemask_array, &not(pg_array)), ur_maskarray))
                } else {
                    false
                }
            };
            let mut branch_mask_array = [false; 32];
            let v = match bra_modi {
                ".DIV" => np_any(&pgv) && is_div,
                ".CONV" => np_any(&pgv) && !is_div,
                _ => panic!("Invalid branch modi"),
            };
            for i in 0..32 {
                if activemask_array[i] {
                    branch_mask_array[i] = v;
                }
            }
            branch_mask_array
        }
    }
}

fn modi(c: BraCond) -> &'static str {
    match c {
        BraCond::NoCond => "",
        BraCond::U => ".U",
        BraCond::Div => ".DIV",
        BraCond::Conv => ".CONV",
    }
}

/// Executes one BRA at 0x40 (target 0x400) and checks the state the golden branch
/// mask implies: no lane jumps → next instruction; all active lanes jump → target;
/// some → fall-through first, the jumping lanes wait at the target (RPC).
#[allow(clippy::too_many_arguments)]
fn check(
    line: &str,
    valid: u32,
    active: u32,
    p0: u32,
    p1: u32,
    ur4: u32,
    cond: BraCond,
    with_ur: bool,
) {
    check_with(
        line,
        valid,
        active,
        p0,
        p1,
        ur4,
        with_ur.then_some(ur4),
        cond,
    );
}

/// [`check`] with UR4 = `ur4` and the golden model's UR mask `ur_mask` (`None`: the
/// form without a UR operand).
#[allow(clippy::too_many_arguments)]
fn check_with(
    line: &str,
    valid: u32,
    active: u32,
    p0: u32,
    p1: u32,
    ur4: u32,
    ur_mask: Option<u32>,
    cond: BraCond,
) {
    let pg = p0 & !p1; // the lines are written `@P0 BRA !P1, …`
    let ur_arr = ur_mask.map(arr);
    let want = array2mask(&golden(
        &arr(active),
        &arr(valid),
        &arr(pg),
        modi(cond),
        ur_arr.as_ref(),
    ));
    let mut insns = vec!["NOP".parse::<Instruction>().unwrap(); 4];
    insns.push(Instruction::parse_at(line, 0x40, &|_| None).unwrap());
    let mut w = Warp::new(valid);
    w.active_mask = active;
    w.active_pc = 0x40;
    w.rpc = [0x1230; 32];
    w.set_pred_lanes(p(0), u32::MAX, p0);
    w.set_pred_lanes(p(1), u32::MAX, p1);
    w.set_ureg(ur(4), ur4);
    let mut m = Machine::new(w, Program::from_instructions(0, &insns));
    m.warp.active_pc = 0x40;
    m.step().unwrap();
    let w = &m.warp;
    let ctx = format!(
        "{line}: v={valid:#x} a={active:#x} p0={p0:#x} p1={p1:#x} ur={ur4:#x} want={want:#x}"
    );
    if want == 0 {
        assert_eq!((w.active_pc, w.active_mask), (0x50, active), "{ctx}");
    } else if want == active {
        assert_eq!((w.active_pc, w.active_mask), (0x400, active), "{ctx}");
    } else {
        assert_eq!(
            (w.active_pc, w.active_mask),
            (0x50, active & !want),
            "{ctx}"
        );
    }
    for l in 0..32 {
        let rpc = if want != active && want >> l & 1 == 1 {
            0x400
        } else {
            0x1230
        };
        assert_eq!(w.rpc[l], rpc, "{ctx}: RPC of lane {l}");
    }
}

fn cond_strategy() -> impl Strategy<Value = BraCond> {
    prop_oneof![
        Just(BraCond::NoCond),
        Just(BraCond::U),
        Just(BraCond::Div),
        Just(BraCond::Conv)
    ]
}

/// Masks biased towards the interesting cases (full, empty, equal to each other).
fn mask() -> impl Strategy<Value = u32> {
    prop_oneof![any::<u32>(), Just(u32::MAX), Just(0u32), Just(0xffffu32)]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn bra_matches_the_golden_model(
        valid in mask(),
        active_bits in mask(),
        p0 in mask(),
        p1 in mask(),
        cond in cond_strategy(),
        full_active in any::<bool>(),
    ) {
        let valid = if valid == 0 { 0x8000_0001 } else { valid };
        let active = if full_active || valid & active_bits == 0 { valid } else { valid & active_bits };
        let line = format!("@P0 BRA{} !P1, 0x400", modi(cond));
        check(&line, valid, active, p0, p1, 0, cond, false);
    }

    #[test]
    fn bra_ur_form_matches_the_golden_model(
        valid in mask(),
        active_bits in mask(),
        p0 in mask(),
        p1 in mask(),
        ur4 in mask(),
        div in any::<bool>(),
        full_active in any::<bool>(),
        negated in any::<bool>(),
    ) {
        let valid = if valid == 0 { 0x8000_0001 } else { valid };
        let active = if full_active || valid & active_bits == 0 { valid } else { valid & active_bits };
        let cond = if div { BraCond::Div } else { BraCond::Conv };
        // `~UR4`: the golden model is given the complemented mask.
        let (ur, mask) = if negated { ("~UR4", !ur4) } else { ("UR4", ur4) };
        let line = format!("@P0 BRA{} !P1, {ur}, 0x400", modi(cond));
        check_with(&line, valid, active, p0, p1, ur4, Some(mask), cond);
    }
}

#[test]
fn bra_ur_bitnot_and_spec_examples() {
    // `BRA.DIV ~URZ, …`: every lane is in the UR mask.
    let v = 0xffff_ffff;
    let a = 0x0000_ffff;
    check(
        "@P0 BRA.DIV !P1, ~URZ, 0x400",
        v,
        a,
        u32::MAX,
        0,
        0,
        BraCond::Div,
        false,
    );
}

/// `BRA.DIV ~URa` complements the register: the UR mask is the lanes whose bit is
/// clear. All 32 lanes valid and active, lanes 0..15 with the guard: `is_div` is
/// whether an active lane without the guard (16..31) is in the UR mask.
#[test]
fn bra_negated_ur_names_the_lanes_whose_bit_is_clear() {
    let a = 0x0000_ffff;
    let b = 0xffff_0000;
    // (UR4, whether the whole warp jumps): ~UR4 = 0 and ~UR4 = A leave lanes 16..31
    // out of the mask (not divergent: no jump); ~UR4 = B names them (jump).
    for (ur4, jumps) in [(u32::MAX, false), (b, false), (a, true), (0, true)] {
        let insns = [
            Instruction::parse_at("@P0 BRA.DIV ~UR4, 0x400", 0, &|_| None).unwrap(),
            "EXIT".parse::<Instruction>().unwrap(),
        ];
        let mut w = Warp::new(u32::MAX);
        w.set_pred_lanes(p(0), u32::MAX, a);
        w.set_ureg(ur(4), ur4);
        let mut m = Machine::new(w, Program::from_instructions(0, &insns));
        m.step().unwrap();
        let pc = if jumps { 0x400 } else { 0x10 };
        assert_eq!(
            (m.warp.active_pc, m.warp.active_mask),
            (pc, u32::MAX),
            "UR4 = {ur4:#x}"
        );
    }
}
