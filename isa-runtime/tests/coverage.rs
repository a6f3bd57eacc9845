//! Paths random programs do not reach: the sleep paths of EXIT, YIELD, BSYNC and
//! WARPSYNC (`SleepMask` not empty), NANOSLEEP's forms, guard and shared timer, LEPC,
//! BMOV into a B register and `.CLEAR`, the constant-memory forms of WARPSYNC and the
//! faults of every constant-memory form, guarded RET, guarded ELECT, and every fault
//! path. Each expectation is traced by hand from the bru.isa pseudocode (with the
//! deviations of the crate docs); the traces are in the comments. A = lanes 0..15,
//! B = lanes 16..31.

// Lanes are numbers here: loops over `0..32` read like the spec.
#![allow(clippy::needless_range_loop)]

mod common;
use common::*;

use isa_runtime::{Event, EventKind, FaultKind, Machine, Program, Stop, Warp};

const A: u32 = 0x0000_ffff;
const B: u32 = 0xffff_0000;

/// R`n` of the lanes in `mask` equals `v`, and `other` elsewhere.
#[track_caller]
fn assert_reg(w: &Warp, n: u8, mask: u32, v: u32, other: u32) {
    for l in 0..32 {
        let want = if mask >> l & 1 == 1 { v } else { other };
        assert_eq!(w.reg(r(n), l), want, "R{n} lane {l}");
    }
}

fn sleeps(m: &Machine) -> Vec<(u64, u32, u64, u64)> {
    m.events
        .iter()
        .map(|e: &Event| match e.kind {
            EventKind::WarpSleep { from, until } => (e.pc, e.lanes, from, until),
            k => panic!("{k:?}"),
        })
        .collect()
}

fn b_waits(w: &mut Warp) {
    w.set_pred_lanes(p(0), u32::MAX, B);
}

#[track_caller]
fn fault(m: &mut Machine) -> isa_runtime::Fault {
    match m.run(1000) {
        Stop::Fault(f) => f,
        s => panic!("{s:?}"),
    }
}

#[test]
fn exit_puts_the_warp_to_sleep_when_only_sleeping_lanes_are_left() {
    // 1 (cycle 0) BRA: B waits at .L_b, A goes on. 2 (c1) NANOSLEEP: A sleeps until
    // 1 + 100 = 101, B runs. 3 (c2) EXIT: B leaves; every lane left sleeps, so the
    // warp sleeps from 2 to 101 and A resumes. 4 (c102) CS2R reads 102. 5 EXIT.
    let m = run(
        "        @P0 BRA `(.L_b)
                 NANOSLEEP 0x64
                 CS2R R[2:3], SR_CLOCKLO
                 EXIT
        .L_b:    EXIT",
        b_waits,
    );
    assert_eq!(sleeps(&m), vec![(0x40, A, 2, 101)]);
    assert_reg(&m.warp, 2, A, 102, 0);
    assert_eq!((m.steps, m.warp.cycle), (5, 104));
}

#[test]
fn yield_puts_the_warp_to_sleep_when_every_other_lane_sleeps() {
    // 1 BRA: B waits. 2 (c1) NANOSLEEP: A sleeps until 51, B runs. 3 (c2) YIELD: the
    // only other lanes (A) sleep: B yields (RPC 0x50), the warp sleeps from 2 to 51,
    // A resumes. 4 (c52) CS2R: A reads 52. 5 (c53) EXIT: A leaves, only the yielded B
    // is left (it is picked though yielded). 6 (c54) CS2R: B reads 54. 7 EXIT.
    let m = run(
        "        @P0 BRA `(.L_b)
                 NANOSLEEP 0x32
                 CS2R R[2:3], SR_CLOCKLO
                 EXIT
        .L_b:    YIELD
                 CS2R R[4:5], SR_CLOCKLO
                 EXIT",
        b_waits,
    );
    assert_eq!(sleeps(&m), vec![(0x40, A, 2, 51)]);
    assert_reg(&m.warp, 2, A, 52, 0);
    assert_reg(&m.warp, 4, B, 54, 0);
    // EXIT does not clear YieldMask.
    assert_eq!(m.warp.yield_mask, B);
    assert_eq!((m.steps, m.warp.cycle), (7, 56));
}

#[test]
fn bsync_releases_its_lanes_when_every_missing_lane_sleeps() {
    let mut m = start(
        "        BSSY B0, `(.L_join)
                 @P0 BRA `(.L_join)          // B waits at the join, A goes on
                 NANOSLEEP 0x64              // A sleeps until 2 + 100, B runs
                 VOTE.ANY R1, P1, PT         // A, awake
        .L_join: BSYNC B0
                 VOTE.ANY R2, P1, PT
                 EXIT",
        b_waits,
    );
    for _ in 0..4 {
        m.step().unwrap();
    }
    // Step 4, B's BSYNC: B0 = A (A has not arrived); the candidates (A) all sleep,
    // so B is released alone and YieldMask loses the released lanes (none yielded).
    let w = &m.warp;
    assert_eq!((w.active_pc, w.active_mask, w.breg[0]), (0x50, B, A));
    assert_eq!((w.sleep_mask, w.timer), (A, Some(102)));
    // 5 (c4) VOTE: B. 6 (c5) EXIT: only A is left, asleep: the warp sleeps from 5 to
    // 102, A resumes at 0x30. 7 (c103) VOTE: A. 8 (c104) BSYNC: B0 = 0, release.
    // 9 VOTE: A. 10 EXIT.
    assert_eq!(m.run(100), Stop::Exited);
    let w = &m.warp;
    assert_eq!(sleeps(&m), vec![(0x60, A, 5, 102)]);
    assert_reg(w, 1, A, A, 0);
    assert_reg(w, 2, A, A, B);
    assert_eq!(w.breg[0], 0);
    assert_eq!((m.steps, w.cycle), (10, 107));
}

#[test]
fn bsync_release_for_sleeping_missing_lanes_keeps_every_resume_pc() {
    // bru.isa BSYNC saves `RPC[ActiveMask] = ActivePC` only on the way to a switch;
    // the release for sleeping candidates returns before it. A resumed at .L_a (RPC
    // 0x40) and reaches the BSYNC from there, so an RPC written by the release would
    // show (0x50).
    let mut m = start(
        "        BSSY B0, `(.L_join)         // 0x00
                 @P0 BRA `(.L_a)             // 0x10: A waits at .L_a, B goes on
                 NANOSLEEP 0x3e8             // 0x20: B sleeps until 2 + 1000, A runs
                 EXIT                        // 0x30: B, awake
        .L_a:    NOP                         // 0x40: A
        .L_join: BSYNC B0                    // 0x50: A; B owes B0 but sleeps
                 EXIT                        // 0x60: A",
        |w| w.set_pred_lanes(p(0), u32::MAX, A),
    );
    for _ in 0..5 {
        m.step().unwrap();
    }
    // Step 5, A's BSYNC: B0 = B (B has not arrived), every candidate (B) sleeps: A
    // is released alone and no RPC changes: A's is still 0x40, B's 0x30 (NANOSLEEP
    // [D5]).
    let w = &m.warp;
    assert_eq!(masks(w), (u32::MAX, A, 0, B, B, 0x60));
    assert_eq!((w.breg[0], w.timer), (B, Some(1002)));
    let rpc: [u64; 32] = std::array::from_fn(|l| if l < 16 { 0x40 } else { 0x30 });
    assert_eq!(w.rpc, rpc);
    // 6 (c5) EXIT: A leaves; only B is left, asleep: the warp sleeps from 5 to 1002,
    // B resumes at 0x30. 7 (c1003) EXIT.
    assert_eq!(m.run(100), Stop::Exited);
    assert_eq!(sleeps(&m), vec![(0x60, B, 5, 1002)]);
    assert_eq!((m.steps, m.warp.cycle), (7, 1004));
}

#[test]
fn warpsync_puts_the_warp_to_sleep_when_its_missing_members_sleep() {
    // 1 BRA: B waits at .L_b. 2 (c1) NANOSLEEP: A sleeps until 21, B runs. 3 (c2) NOP.
    // 4 (c3) WARPSYNC: A has not arrived and sleeps: B waits (RPC 0x40), the warp
    // sleeps from 3 to 21, A resumes at 0x20. 5 (c22) BRA. 6 (c23) WARPSYNC: every
    // member arrived, all lanes go on. 7 (c24) CS2R: 24 in every lane. 8 EXIT.
    let m = run(
        "        @P0 BRA `(.L_b)
                 NANOSLEEP 0x14
                 BRA `(.L_sync)
        .L_b:    NOP
        .L_sync: WARPSYNC 0xffffffff
                 CS2R R[2:3], SR_CLOCKLO
                 EXIT",
        b_waits,
    );
    assert_eq!(sleeps(&m), vec![(0x40, A, 3, 21)]);
    assert_reg(&m.warp, 2, u32::MAX, 24, 0);
    assert_eq!((m.steps, m.warp.cycle), (8, 26));
}

#[test]
fn nanosleep_has_one_timer_that_keeps_the_earlier_deadline() {
    // 1 BRA: B waits. 2 (c1) NANOSLEEP 100: A sleeps, timer 101, B runs. 3 (c2)
    // NANOSLEEP 512: B asks for 514, the timer keeps 101; nothing can run: the warp
    // sleeps from 2 to 101 and both halves wake. 4 (c102) CS2R: A. 5 (c103) EXIT: A
    // leaves. 6 (c104) CS2R: B reads 104, not 514. 7 EXIT.
    let m = run(
        "        @P0 BRA `(.L_b)
                 NANOSLEEP 0x64
                 CS2R R[2:3], SR_CLOCKLO
                 EXIT
        .L_b:    NANOSLEEP 0x200
                 CS2R R[4:5], SR_CLOCKLO
                 EXIT",
        b_waits,
    );
    assert_eq!(sleeps(&m), vec![(0x40, A, 2, 101)]);
    assert_reg(&m.warp, 2, A, 102, 0);
    assert_reg(&m.warp, 4, B, 104, 0);
    assert_eq!((m.steps, m.warp.sleep_mask, m.warp.timer), (7, 0, None));
}

#[test]
fn nanosleep_from_a_uniform_register_constant_memory_and_behind_a_guard() {
    // The whole warp sleeps for UR1 = 30 cycles: CS2R runs at 31.
    let w = run("NANOSLEEP UR1\nCS2R R[2:3], SR_CLOCKLO\nEXIT", |w| {
        urs(w, &[(1, 30)])
    })
    .warp;
    assert_reg(&w, 2, u32::MAX, 31, 0);
    // 40 cycles from c[0x3][0x10].
    let w = run(
        "NANOSLEEP c[0x3][0x10]\nCS2R R[2:3], SR_CLOCKLO\nEXIT",
        |w| {
            w.cmem.write_u32(3, 0x10, 40);
        },
    )
    .warp;
    assert_reg(&w, 2, u32::MAX, 41, 0);
    // @P0 with P0 = A: 1 (c0) B goes on first, A waits at the NANOSLEEP (no timer yet).
    // 2 (c1) CS2R: B reads 1. 3 (c2) EXIT: B leaves, A runs. 4 (c3) NANOSLEEP: the
    // whole warp (A) sleeps from 3 to 19. 5 (c20) CS2R: A reads 20. 6 EXIT.
    let m = run("@P0 NANOSLEEP 0x10\nCS2R R[2:3], SR_CLOCKLO\nEXIT", |w| {
        w.set_pred_lanes(p(0), u32::MAX, A)
    });
    assert_eq!(sleeps(&m), vec![(0x0, A, 3, 19)]);
    assert_reg(&m.warp, 2, A, 20, 1);
    assert_eq!(m.steps, 6);
}

#[test]
fn lepc_loads_the_address_it_names_into_a_register_pair() {
    // [D3] the operand names an address; without one, the next instruction's.
    let w = run("@P0 LEPC R[2:3], 0x40\nLEPC R[4:5]\nEXIT", |w| {
        w.set_pred_lanes(p(0), u32::MAX, 0x0000_00f0);
        for l in 0..32 {
            w.set_reg(r(2), l, 7);
            w.set_reg(r(3), l, 9);
            w.set_reg(r(5), l, 9);
        }
    })
    .warp;
    assert_reg(&w, 2, 0xf0, 0x40, 7);
    assert_reg(&w, 3, 0xf0, 0, 9);
    assert_reg(&w, 4, u32::MAX, 0x20, 0);
    assert_reg(&w, 5, u32::MAX, 0, 0);
}

#[test]
fn bmov_into_a_b_register_and_clear() {
    let w = run(
        "@P0 BMOV B3, R0          // from lane 4, the first with the guard true
         @P1 BMOV B4, R0          // no lane: B4 keeps 5
         @P1 BMOV.CLEAR R6, B5    // no lane: neither R6 nor B5 change
         @P0 BMOV.CLEAR R7, B5    // lanes 4..7 read 0x55, B5 is cleared
         BMOV R8, B5
         EXIT",
        |w| {
            w.set_pred_lanes(p(0), u32::MAX, 0xf0);
            w.breg[4] = 5;
            w.breg[5] = 0x55;
            for l in 0..32 {
                w.set_reg(r(0), l, 0x100 + l as u32);
                w.set_reg(r(6), l, 0xaa);
                w.set_reg(r(7), l, 0xbb);
                w.set_reg(r(8), l, 0xcc);
            }
        },
    )
    .warp;
    assert_eq!((w.breg[3], w.breg[4], w.breg[5]), (0x104, 5, 0));
    assert_reg(&w, 6, 0, 0, 0xaa);
    assert_reg(&w, 7, 0xf0, 0x55, 0xbb);
    assert_reg(&w, 8, u32::MAX, 0, 0);
}

#[test]
fn warpsync_takes_its_membermask_from_constant_memory() {
    // 1 BRA: B waits at .L_b. 2 WARPSYNC c (0x0000ffff): A are all its members, A goes
    // on alone. 3 VOTE: A. 4 EXIT: B runs. 5 WARPSYNC ~c (0xffff0000): B goes on.
    // 6 VOTE: B. 7 EXIT.
    let m = run(
        "        @P0 BRA `(.L_b)
                 WARPSYNC c[0x2][0x100]
                 VOTE.ANY R1, P1, PT
                 EXIT
        .L_b:    WARPSYNC ~c[0x2][0x100]
                 VOTE.ANY R2, P1, PT
                 EXIT",
        |w| {
            b_waits(w);
            w.cmem.write_u32(2, 0x100, A);
        },
    );
    assert_reg(&m.warp, 1, A, A, 0);
    assert_reg(&m.warp, 2, B, B, 0);
    assert_eq!(m.steps, 7);
}

/// `WARPSYNC ~c[..]` complements the constant-memory word: with c = B the members
/// are A only, so A, all arrived, goes on without waiting for B.
#[test]
fn warpsync_with_a_negated_constant_membermask_syncs_only_the_complement() {
    // 1 BRA: B waits at .L_b (RPC 0x40), A goes on. 2 WARPSYNC ~c = ~B = A: every
    // member arrived, A goes on alone to 0x20. 3 VOTE: A. 4 EXIT: B runs. 5 VOTE: B.
    // 6 EXIT.
    let src = "        @P0 BRA `(.L_b)
                 WARPSYNC ~c[0x2][0x100]
                 VOTE.ANY R1, P1, PT
                 EXIT
        .L_b:    VOTE.ANY R2, P1, PT
                 EXIT";
    let setup = |w: &mut Warp| {
        b_waits(w);
        w.cmem.write_u32(2, 0x100, B);
    };
    let mut m = start(src, setup);
    m.step().unwrap();
    m.step().unwrap();
    let w = &m.warp;
    assert_eq!((w.active_pc, w.active_mask), (0x20, A));
    assert_eq!(w.rpc[16], 0x40, "B still waits at .L_b");
    assert_eq!(m.run(100), Stop::Exited);
    assert_reg(&m.warp, 1, A, A, 0);
    assert_reg(&m.warp, 2, B, B, 0);
    assert_eq!(m.steps, 6);
}

/// `WARPSYNC ~Rb` complements each lane's register: lanes 0..15 hold B (their
/// membermask is A), lanes 16..31 hold A (membermask B), so the warp splits into the
/// two groups and each goes on alone.
#[test]
fn warpsync_with_a_negated_register_membermask_syncs_each_complement_group() {
    // 1 WARPSYNC ~R3: all arrived, both groups synced; the lowest (A) goes on to 0x10,
    // B waits at 0x00. 2 VOTE: A. 3 EXIT: B runs at 0x00. 4 WARPSYNC ~R3: B synced,
    // goes on. 5 VOTE: B. 6 EXIT.
    let src = "        WARPSYNC ~R3
                 VOTE.ANY R1, P1, PT
                 EXIT";
    let setup = |w: &mut Warp| {
        for l in 0..32 {
            w.set_reg(r(3), l, if l < 16 { B } else { A });
        }
    };
    let mut m = start(src, setup);
    m.step().unwrap();
    let w = &m.warp;
    assert_eq!((w.active_pc, w.active_mask), (0x10, A));
    assert_eq!(w.rpc[16], 0x00, "B waits at the WARPSYNC");
    assert_eq!(m.run(100), Stop::Exited);
    assert_reg(&m.warp, 1, A, A, B);
    assert_eq!(m.steps, 6);
}

#[test]
fn a_guarded_ret_sends_each_lane_to_its_own_address() {
    // 1 @P0 RET: A jumps to R[2:3] (0x30 for lanes 0..7, 0x50 for 8..15), B falls
    // through first. 2 VOTE: B. 3 EXIT: B leaves; lane 0's RPC (0x30) is picked with
    // the lanes sharing it. 4 VOTE: 0..7. 5 EXIT: lanes 8..15 at 0x50. 6 VOTE. 7 EXIT.
    let m = run(
        "@P0 RET.ABS R[2:3], 0x0
         VOTE.ANY R4, P1, PT
         EXIT
         VOTE.ANY R5, P1, PT
         EXIT
         VOTE.ANY R6, P1, PT
         EXIT",
        |w| {
            w.set_pred_lanes(p(0), u32::MAX, A);
            for l in 0..32 {
                w.set_reg(r(2), l, if l < 8 { 0x30 } else { 0x50 });
            }
        },
    );
    let w = &m.warp;
    assert_reg(w, 4, B, B, 0);
    assert_reg(w, 5, 0xff, 0xff, 0);
    assert_reg(w, 6, 0xff00, 0xff00, 0);
    assert_eq!(m.steps, 7);
}

#[test]
fn a_guarded_elect_leaves_the_other_lanes_alone() {
    // Participants: active lanes 4..11 (P0); the leader is lane 4. Lanes outside keep
    // their R1 and P2.
    let w = run("@P0 ELECT P2, R1, PT\n@P0 ELECT P3, R2, UR1\nEXIT", |w| {
        w.set_pred_lanes(p(0), u32::MAX, 0x0ff0);
        w.set_pred_lanes(p(2), u32::MAX, 0xffff_0000);
        urs(w, &[(1, 0x0000_f00f)]);
        for l in 0..32 {
            w.set_reg(r(1), l, 0xee);
        }
    })
    .warp;
    assert_reg(&w, 1, 0x0ff0, 4, 0xee);
    assert_eq!(w.pred_mask(p(2)), 0xffff_0000 | 1 << 4);
    // Members UR1 = lanes 0..3 and 12..15: none takes part, no leader.
    assert_reg(&w, 2, 0x0ff0, 0xffff_ffff, 0);
    assert_eq!(w.pred_mask(p(3)), 0);
}

#[test]
fn constant_memory_outside_the_bank_faults_in_every_form() {
    // (instruction, bank, address, bytes read)
    let cases = [
        ("BRX c[0x0][0xfffe]", 0, 0xfffe, 4),
        ("CALL.ABS c[0x0][0xfffc]", 0, 0xfffc, 8),
        ("RET.REL c[0x1][0xfff9]", 1, 0xfff9, 8),
        ("WARPSYNC c[0x1f][0xfffd]", 31, 0xfffd, 4),
        ("NANOSLEEP c[0x0][0xffff]", 0, 0xffff, 4),
        ("ULDC.64 UR[4:5], c[0x3][0xfffa]", 3, 0xfffa, 8),
    ];
    for (insn, bank, addr, size) in cases {
        let mut m = start(&format!("UMOV UR1, 0x5\n{insn}\nEXIT"), |_| {});
        let f = fault(&mut m);
        assert_eq!(
            f.kind,
            FaultKind::CmemOutOfRange { bank, addr, size },
            "{insn}"
        );
        assert_eq!((f.pc, f.instruction.as_deref()), (0x10, Some(insn)));
        // The state is what it was before the instruction.
        let w = &m.warp;
        assert_eq!(
            (m.steps, w.active_pc, w.active_mask, w.cycle),
            (1, 0x10, u32::MAX, 1)
        );
        assert_eq!(w.ureg(ur(1)), 5);
    }
}

/// The last bytes of a bank are in it: every constant-memory read that ends exactly
/// at the bank's end (64 KiB) reads the words there (the faults above begin a byte or
/// more further on).
#[test]
fn constant_memory_up_to_the_banks_last_byte_reads_in_every_width() {
    let w = run(
        "ULDC UR1, c[0x1f][0xfffc]
         ULDC.64 UR[2:3], c[0x3][0xfff8]
         ULDC.U8 UR4, c[0x0][0xffff]
         EXIT",
        |w| {
            w.cmem.write_u32(31, 0xfffc, 0xcafe_f00d);
            w.cmem.write_u32(3, 0xfff8, 0x1111_2222);
            w.cmem.write_u32(3, 0xfffc, 0x3333_4444);
            w.cmem.write_u32(0, 0xfffc, 0xab00_0000);
        },
    )
    .warp;
    assert_eq!(w.ureg(ur(1)), 0xcafe_f00d);
    assert_eq!((w.ureg(ur(2)), w.ureg(ur(3))), (0x1111_2222, 0x3333_4444));
    assert_eq!(w.ureg(ur(4)), 0xab);
}

/// LEPC writes all 64 bits of the address: a program above 4 GiB finds the high word
/// of its address in the pair's second register.
#[test]
fn lepc_above_4_gib_loads_the_high_word_into_the_second_register() {
    let base = 0x0000_0001_2345_6780u64;
    let mut w = Warp::new(u32::MAX);
    w.active_pc = base;
    let prog = Program::from_instructions(base, &asm("LEPC R[4:5]\nEXIT"));
    let mut m = Machine::new(w, prog);
    assert_eq!(m.run(10), Stop::Exited);
    // The next instruction's address: base + 0x10.
    assert_reg(&m.warp, 4, u32::MAX, 0x2345_6790, 0);
    assert_reg(&m.warp, 5, u32::MAX, 0x1, 0);
}

#[test]
fn a_program_of_no_word_is_empty() {
    let empty = Program::from_words(0x100, &[]);
    assert!(empty.is_empty());
    assert_eq!((empty.len(), empty.base(), empty.end()), (0, 0x100, 0x100));
    assert_eq!(empty.get(0x100), None);
    let one = Program::from_words(
        0x100,
        &["EXIT".parse::<isa::Instruction>().unwrap().encode()],
    );
    assert!(!one.is_empty());
    assert_eq!((one.len(), one.base(), one.end()), (1, 0x100, 0x110));
}

#[test]
fn every_other_fault() {
    // A program with no instruction: outside it from the start, with no instruction
    // to blame.
    let mut m = Machine::new(Warp::default(), Program::from_words(0x100, &[]));
    let f = fault(&mut m);
    assert_eq!((f.pc, f.instruction.as_deref(), m.steps), (0x100, None, 0));
    assert_eq!(f.kind, FaultKind::OutsideProgram { pc: 0x100 });
    assert_eq!(
        f.to_string(),
        "pc 0x0100: jump outside the program (to 0x0100)"
    );
    // Falling off the end: blamed on the last instruction.
    let mut m = start("UMOV UR1, 0x5\nNOP", |_| {});
    let f = fault(&mut m);
    assert_eq!(
        (f.pc, f.kind, m.steps),
        (0x10, FaultKind::OutsideProgram { pc: 0x20 }, 2)
    );
    // WARPSYNC from a uniform register whose mask leaves out lanes that execute it.
    let mut m = start("WARPSYNC UR1\nEXIT", |w| urs(w, &[(1, 0xffff_fffe)]));
    let f = fault(&mut m);
    assert_eq!(
        f.kind,
        FaultKind::WarpsyncNotMember {
            lane: 0,
            mask: 0xffff_fffe
        }
    );
    // Grouped WARPSYNC R: lane 5's own mask does not hold it.
    let mut m = start("WARPSYNC R1\nEXIT", |w| {
        for l in 0..32 {
            w.set_reg(r(1), l, if l == 5 { 0x1 } else { u32::MAX });
        }
    });
    let f = fault(&mut m);
    assert_eq!(f.kind, FaultKind::WarpsyncNotMember { lane: 5, mask: 0x1 });
    assert_eq!(m.steps, 0);
    // SETUGPR below UR0 (UR2 = 1, offset -3) and far above (UR2 is an unsigned
    // index: 0xfffffffd + 1).
    let mut m = start("SETUGPR UR[UR2-0x3], UR0\nEXIT", |w| urs(w, &[(2, 1)]));
    assert_eq!(fault(&mut m).kind, FaultKind::UrIndexOutOfRange(-2));
    let mut m = start("SETUGPR UR[UR2+0x1], UR0\nEXIT", |w| {
        urs(w, &[(2, 0xffff_fffd)])
    });
    assert_eq!(
        fault(&mut m).kind,
        FaultKind::UrIndexOutOfRange(0xffff_fffe)
    );
    // ActiveMask holding a lane that exited (a state no program reaches).
    let mut m = start("NOP\nEXIT", |w| {
        w.valid_mask = 0xff;
        w.active_mask = 0x1ff;
    });
    let f = fault(&mut m);
    assert_eq!(
        (f.pc, &f.kind),
        (
            0,
            &FaultKind::Deadlock {
                valid: 0xff,
                active: 0x1ff
            }
        )
    );
    assert_eq!(
        f.to_string(),
        "pc 0x0000 `NOP`: deadlock: no lane can run (ValidMask 0x000000ff, ActiveMask 0x000001ff)"
    );
}
