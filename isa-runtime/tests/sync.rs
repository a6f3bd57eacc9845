//! Warp collectives and the miscellaneous group. SHFL is checked against a reference
//! written from the PTX definition (`ptx-shfl-reference.md`); other expected values
//! are worked out by hand.

// Lanes are numbers here: loops over `0..32` read like the spec.
#![allow(clippy::needless_range_loop)]

mod common;
use common::*;

use isa::{Instruction, Pred, ReduxOp, ReduxdType, Reg, ShflMode, ShflRi, ShflRrr};
use isa_runtime::{redux, EventKind, Machine, Program, Stop, Warp};
use proptest::prelude::*;

/// PTX `shfl.mode.b32 d|p, a, b, c` for a full warp, transcribed from the PTX text.
fn ptx_shfl(
    mode: ShflMode,
    a: &[u32; 32],
    b: &[u32; 32],
    c: &[u32; 32],
) -> ([u32; 32], [bool; 32]) {
    let mut d = [0u32; 32];
    let mut p = [false; 32];
    for lane in 0..32i64 {
        let l = lane as usize;
        let bval = i64::from(b[l] & 0x1f);
        let cval = i64::from(c[l] & 0x1f);
        let mask = i64::from((c[l] >> 8) & 0x1f);
        let max_lane = (lane & mask) | (cval & !mask);
        let min_lane = lane & mask;
        let (mut j, pval) = match mode {
            ShflMode::Up => (lane - bval, lane - bval >= max_lane),
            ShflMode::Down => (lane + bval, lane + bval <= max_lane),
            ShflMode::Bfly => (lane ^ bval, (lane ^ bval) <= max_lane),
            ShflMode::Idx => {
                let j = min_lane | (bval & !mask);
                (j, j <= max_lane)
            }
        };
        if !pval {
            j = lane;
        }
        d[l] = a[j as usize];
        p[l] = pval;
    }
    (d, p)
}

fn exec_one(insn: Instruction, setup: impl FnOnce(&mut Warp)) -> Warp {
    let exit: Instruction = "EXIT".parse().unwrap();
    let mut w = Warp::new(u32::MAX);
    setup(&mut w);
    let mut m = Machine::new(w, Program::from_instructions(0, &[insn, exit]));
    assert_eq!(m.run(10), Stop::Exited);
    m.warp
}

fn mode_strategy() -> impl Strategy<Value = ShflMode> {
    prop_oneof![
        Just(ShflMode::Idx),
        Just(ShflMode::Up),
        Just(ShflMode::Down),
        Just(ShflMode::Bfly)
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Register form: per-lane `a`, `b` and `c` (any 32-bit values).
    #[test]
    fn shfl_rrr_agrees_with_ptx(
        mode in mode_strategy(),
        a in prop::array::uniform32(any::<u32>()),
        b in prop::array::uniform32(any::<u32>()),
        c in prop::array::uniform32(any::<u32>()),
    ) {
        let insn = Instruction::ShflRrr(ShflRrr::new(p(1), r(4), r(0), r(1), r(2), mode));
        let w = exec_one(insn, |w| {
            for l in 0..32 {
                w.set_reg(r(0), l, a[l]);
                w.set_reg(r(1), l, b[l]);
                w.set_reg(r(2), l, c[l]);
            }
        });
        let (d, pv) = ptx_shfl(mode, &a, &b, &c);
        for l in 0..32 {
            prop_assert_eq!(w.reg(r(4), l), d[l], "lane {} d", l);
            prop_assert_eq!(w.pred(p(1), l), pv[l], "lane {} p", l);
        }
    }

    /// Immediate form: warp-uniform `b` (5 bits) and `c` (13 bits), the usual use.
    #[test]
    fn shfl_ri_agrees_with_ptx(
        mode in mode_strategy(),
        a in prop::array::uniform32(any::<u32>()),
        b in 0u8..32,
        c in 0u16..0x2000,
    ) {
        let insn = Instruction::ShflRi(ShflRi::new(
            p(2), r(5), r(0), isa::UImm5::new(b).unwrap(), isa::UImm13::new(c).unwrap(), mode,
        ));
        let w = exec_one(insn, |w| {
            for l in 0..32 {
                w.set_reg(r(0), l, a[l]);
            }
        });
        let (d, pv) = ptx_shfl(mode, &a, &[u32::from(b); 32], &[u32::from(c); 32]);
        for l in 0..32 {
            prop_assert_eq!(w.reg(r(5), l), d[l], "lane {} d", l);
            prop_assert_eq!(w.pred(p(2), l), pv[l], "lane {} p", l);
        }
    }
}

/// Runs one SHFL line on the current register state of `w` (the host does the adds
/// between shuffles: the ISA has no per-lane integer add).
fn shfl_step(w: Warp, line: &str) -> Warp {
    let insns = [
        line.parse::<Instruction>().unwrap(),
        "EXIT".parse().unwrap(),
    ];
    let mut w = w;
    w.valid_mask = u32::MAX;
    w.active_mask = u32::MAX;
    let mut m = Machine::new(w, Program::from_instructions(0, &insns));
    assert_eq!(m.run(10), Stop::Exited);
    m.warp
}

#[test]
fn shfl_warp_scan_and_butterfly_reduction() {
    // PTX's inclusive plus-scan: shfl.up by 1,2,4,8,16 with c = 0, add where p.
    let x: Vec<u32> = (0..32).map(|l| l * 3 + 1).collect();
    let mut w = Warp::new(u32::MAX);
    for l in 0..32 {
        w.set_reg(r(0), l, x[l]);
    }
    for off in [1, 2, 4, 8, 16] {
        w = shfl_step(w, &format!("SHFL.UP P0, R1, R0, {off:#x}, 0x0"));
        for l in 0..32 {
            if w.pred(p(0), l) {
                let v = w.reg(r(0), l) + w.reg(r(1), l);
                w.set_reg(r(0), l, v);
            }
        }
    }
    for l in 0..32 {
        assert_eq!(w.reg(r(0), l), x[..=l].iter().sum::<u32>(), "scan lane {l}");
    }
    // PTX's reverse scan: shfl.down with c = 0x1f.
    let mut w = Warp::new(u32::MAX);
    for l in 0..32 {
        w.set_reg(r(0), l, x[l]);
    }
    for off in [1, 2, 4, 8, 16] {
        w = shfl_step(w, &format!("SHFL.DOWN P0, R1, R0, {off:#x}, 0x1f"));
        for l in 0..32 {
            if w.pred(p(0), l) {
                let v = w.reg(r(0), l) + w.reg(r(1), l);
                w.set_reg(r(0), l, v);
            }
        }
    }
    for l in 0..32 {
        assert_eq!(
            w.reg(r(0), l),
            x[l..].iter().sum::<u32>(),
            "reverse scan lane {l}"
        );
    }
    // Butterfly reduction: every lane ends with the sum.
    let mut w = Warp::new(u32::MAX);
    for l in 0..32 {
        w.set_reg(r(0), l, x[l]);
    }
    for off in [16, 8, 4, 2, 1] {
        w = shfl_step(w, &format!("SHFL.BFLY PT, R1, R0, {off:#x}, 0x1f"));
        for l in 0..32 {
            let v = w.reg(r(0), l) + w.reg(r(1), l);
            w.set_reg(r(0), l, v);
        }
    }
    let total: u32 = x.iter().sum();
    assert_eq!(lanes(&w, 0), vec![total; 32]);
}

#[test]
fn shfl_segments_and_guard() {
    // c = 0x1807 (PTX: (32 - 8) << 8 | 8 - 1): segments of 8 lanes, clamp 7; IDX 2 → lane 2 of each
    // segment. Lanes with P3 false do not write.
    let w = run("@P3 SHFL.IDX P1, R1, R0, 0x2, 0x1807\nEXIT", |w| {
        for l in 0..32 {
            w.set_reg(r(0), l, 100 + l as u32);
            w.set_reg(r(1), l, 7);
        }
        w.set_pred_lanes(p(3), u32::MAX, 0x7fff_ffff);
    })
    .warp;
    for l in 0..31 {
        assert_eq!(w.reg(r(1), l), 100 + (l as u32 & !7) + 2, "lane {l}");
        assert!(w.pred(p(1), l));
    }
    assert_eq!(w.reg(r(1), 31), 7);
    assert!(!w.pred(p(1), 31));
}

#[test]
fn vote_and_voteu() {
    // Lanes 0..15 active; P0 true in lanes 0..3 and 20..23.
    let w = run(
        "VOTE.ANY R1, P1, P0\n\
         VOTE.ALL R2, P2, P0\n\
         VOTE.EQ R3, P3, !P4\n\
         VOTEU.ANY UR1, UP1, P0\n\
         VOTEU.ALL UR2, UP2, !P4\n\
         @P0 VOTEU.EQ UR3, UP3, P0\n\
         EXIT",
        |w| {
            w.valid_mask = 0xffff;
            w.active_mask = 0xffff;
            w.set_pred_lanes(p(0), u32::MAX, 0x00f0_000f);
        },
    )
    .warp;
    for l in 0..16 {
        assert_eq!(w.reg(r(1), l), 0x000f);
        assert_eq!(w.reg(r(3), l), 0xffff); // !P4 true everywhere
        assert!(w.pred(p(1), l) && !w.pred(p(2), l) && w.pred(p(3), l));
    }
    assert_eq!(w.reg(r(1), 16), 0); // inactive lane not written
    assert_eq!((w.ureg(ur(1)), w.upred(up(1))), (0x000f, true));
    assert_eq!((w.ureg(ur(2)), w.upred(up(2))), (0xffff, true));
    // Participants are lanes 0..3 (guard P0): all true → EQ.
    assert_eq!((w.ureg(ur(3)), w.upred(up(3))), (0x000f, true));
}

#[test]
fn redux_and_reduxu() {
    let w = run(
        "REDUX.SUM R1, R0\n\
         REDUX.AND R2, R0\n\
         REDUX.OR R3, R0\n\
         REDUX.XOR R4, R0\n\
         REDUX.S32.MAX R5, R0\n\
         REDUX.MAX R6, R0\n\
         REDUX.S32.MIN R7, R0\n\
         REDUX.MIN R8, R0\n\
         @P0 REDUXU.SUM UR1, R0\n\
         REDUXU.S32.MIN UR2, R0\n\
         EXIT",
        |w| {
            // Four active lanes: -2, 5, 7, 12; P0 true in lanes 1 and 2.
            w.valid_mask = 0xf;
            w.active_mask = 0xf;
            for (l, v) in [(-2i32) as u32, 5, 7, 12].into_iter().enumerate() {
                w.set_reg(r(0), l, v);
            }
            w.set_reg(r(0), 4, 1000); // not active
            w.set_pred_lanes(p(0), u32::MAX, 0b0110);
        },
    )
    .warp;
    let m2 = (-2i32) as u32;
    assert_eq!(w.reg(r(1), 0), 22);
    assert_eq!(w.reg(r(2), 3), m2 & 5 & 7 & 12);
    assert_eq!(w.reg(r(3), 1), m2 | 5 | 7 | 12);
    assert_eq!(w.reg(r(4), 2), m2 ^ 5 ^ 7 ^ 12);
    assert_eq!(w.reg(r(5), 0), 12);
    assert_eq!(w.reg(r(6), 0), m2);
    assert_eq!(w.reg(r(7), 0), m2);
    assert_eq!(w.reg(r(8), 0), 5);
    assert_eq!(w.reg(r(1), 4), 0); // inactive lane untouched
    assert_eq!(w.ureg(ur(1)), 12);
    assert_eq!(w.ureg(ur(2)), m2);
}

#[test]
fn the_exported_redux_orders_s32_values_by_sign() {
    let m2 = (-2i32) as u32;
    let mut row = [0u32; 32];
    row[..3].copy_from_slice(&[m2, 5, 7]);
    let part = 0b111;
    assert_eq!(redux(ReduxOp::Min, ReduxdType::S32, part, &row), m2);
    assert_eq!(redux(ReduxOp::Max, ReduxdType::S32, part, &row), 7);
    assert_eq!(redux(ReduxOp::Min, ReduxdType::U32, part, &row), 5);
    assert_eq!(redux(ReduxOp::Max, ReduxdType::U32, part, &row), m2);
    // Lanes outside `part` do not count; no lane at all gives the identity.
    assert_eq!(redux(ReduxOp::Min, ReduxdType::U32, 0b110, &row), 5);
    assert_eq!(redux(ReduxOp::And, ReduxdType::U32, 0, &row), u32::MAX);
    assert_eq!(redux(ReduxOp::Sum, ReduxdType::U32, 0, &row), 0);
}

#[test]
fn match_any_all_and_u64() {
    let w = run(
        "MATCH.ANY R1, P1, R0\n\
         MATCH.ALL R2, P2, R0\n\
         MATCH.ALL R3, P3, R5\n\
         MATCH.U64.ANY R4, P4, R[6:7]\n\
         EXIT",
        |w| {
            w.valid_mask = 0xff;
            w.active_mask = 0xff;
            for l in 0..8 {
                w.set_reg(r(0), l, (l % 3) as u32); // 0 1 2 0 1 2 0 1
                w.set_reg(r(5), l, 9);
                w.set_reg(r(6), l, 1); // low halves equal
                w.set_reg(r(7), l, (l / 4) as u32); // high halves split 0..3 / 4..7
            }
        },
    )
    .warp;
    let want = [0b0100_1001, 0b1001_0010, 0b0010_0100];
    for l in 0..8 {
        assert_eq!(w.reg(r(1), l), want[l % 3], "lane {l}");
        assert!(!w.pred(p(1), l));
        assert_eq!(w.reg(r(2), l), 0);
        assert!(!w.pred(p(2), l));
        assert_eq!(w.reg(r(3), l), 0xff);
        assert!(w.pred(p(3), l));
        assert_eq!(w.reg(r(4), l), if l < 4 { 0x0f } else { 0xf0 });
    }
}

#[test]
fn elect_and_electu() {
    let w = run(
        "ELECT P1, R1, PT\n\
         ELECT P2, R2, P0\n\
         ELECT P3, R3, UR1\n\
         ELECTU P4, UR2, PT\n\
         ELECTU P5, UR3, ~UR4\n\
         ELECT P6, R4, UR5\n\
         EXIT",
        |w| {
            w.valid_mask = 0xf0;
            w.active_mask = 0xf0;
            w.set_pred_lanes(p(0), u32::MAX, 0x40);
            urs(w, &[(1, 0xa0), (4, 0xffff_ff1f), (5, 0x0f)]);
        },
    )
    .warp;
    for l in 4..8 {
        assert_eq!(w.reg(r(1), l), 4);
        assert_eq!(w.pred(p(1), l), l == 4);
        assert_eq!(w.reg(r(2), l), 6);
        assert_eq!(w.pred(p(2), l), l == 6);
        assert_eq!(w.reg(r(3), l), 5);
        assert_eq!(w.pred(p(3), l), l == 5);
        assert_eq!(w.pred(p(4), l), l == 4);
        assert_eq!(w.pred(p(5), l), l == 5); // ~0xffffff1f = 0xe0
        assert_eq!(w.reg(r(4), l), 0xffff_ffff); // no member is active
        assert!(!w.pred(p(6), l));
    }
    assert_eq!(w.ureg(ur(2)), 4);
    assert_eq!(w.ureg(ur(3)), 5);
}

#[test]
fn movm_transposes_an_8x8_b16_matrix() {
    // Element (row, col) holds row*8 + col; lane l holds row l/4, columns 2(l%4), +1.
    let w = run("MOVM R1, R0\nEXIT", |w| {
        for l in 0..32u32 {
            let (row, col) = (l / 4, 2 * (l % 4));
            w.set_reg(
                r(0),
                l as usize,
                (row * 8 + col) | (row * 8 + col + 1) << 16,
            );
        }
    })
    .warp;
    for l in 0..32u32 {
        let (row, col) = (l / 4, 2 * (l % 4));
        // Transposed: element (row, col) of the result is (col, row) of the source.
        let want = (col * 8 + row) | ((col + 1) * 8 + row) << 16;
        assert_eq!(w.reg(r(1), l as usize), want, "lane {l}");
    }
}

#[test]
fn special_registers_s2r_cs2r_s2ur() {
    let w = run(
        "S2R R1, SR_LANEID\n\
         S2R R2, SR_EQMASK\n\
         S2R R3, SR_LTMASK\n\
         S2R R4, SR_LEMASK\n\
         S2R R5, SR_GTMASK\n\
         S2R R6, SR_GEMASK\n\
         S2R R7, SR_CTAID.X\n\
         CS2R R[8:9], SR_CLOCKLO\n\
         S2UR UR1, SR_CTAID.X\n\
         S2UR UR2, SR_LANEID\n\
         S2R R10, SRZ\n\
         EXIT",
        |w| {
            w.set_sreg(isa::SReg::SrCtaidX, 3);
            w.valid_mask = 0xffff_fff0;
            w.active_mask = 0xffff_fff0;
        },
    )
    .warp;
    for (l, eq, lt, le, gt, ge) in [
        (
            5usize,
            0x20u32,
            0x1fu32,
            0x3fu32,
            0xffff_ffc0u32,
            0xffff_ffe0u32,
        ),
        (31, 0x8000_0000, 0x7fff_ffff, 0xffff_ffff, 0, 0x8000_0000),
    ] {
        assert_eq!(w.reg(r(1), l), l as u32);
        assert_eq!(w.reg(r(2), l), eq);
        assert_eq!(w.reg(r(3), l), lt);
        assert_eq!(w.reg(r(4), l), le);
        assert_eq!(w.reg(r(5), l), gt);
        assert_eq!(w.reg(r(6), l), ge);
        assert_eq!(w.reg(r(7), l), 3);
        // CS2R is the 8th instruction: 7 cycles have passed.
        assert_eq!((w.reg(r(8), l), w.reg(r(9), l)), (7, 0));
    }
    assert_eq!(w.reg(r(1), 0), 0); // inactive lane untouched
    assert_eq!(w.ureg(ur(1)), 3);
    assert_eq!(w.ureg(ur(2)), 4); // first active lane
}

#[test]
fn getreg_setreg_address_space() {
    let w = run(
        "SETREG 0x1000, R0\n\
         SETREG R2, R0\n\
         SETREG UR1, R0\n\
         GETREG R3, 0x1000\n\
         GETREG R4, R2\n\
         GETREG R5, UR2\n\
         GETREG R6, 0x0\n\
         EXIT",
        |w| {
            for l in 0..32 {
                w.set_reg(r(0), l, 10 + l as u32);
                w.set_reg(r(2), l, 0x2000 + 4 * (l as u32 % 2));
            }
            // UR1 = address of SR_WARPID (code 6); UR2 = the same.
            urs(w, &[(1, 6), (2, 6)]);
        },
    )
    .warp;
    // Every lane wrote 0x1000: the highest lane wins.
    assert_eq!(w.getreg(0x1000, 0), 41);
    assert_eq!(lanes(&w, 3), vec![41; 32]);
    // 0x2000 written by even lanes (last 40), 0x2004 by odd lanes (last 41).
    assert_eq!(w.reg(r(4), 0), 40);
    assert_eq!(w.reg(r(4), 1), 41);
    assert_eq!(w.sreg(isa::SReg::SrWarpid, 0), 41);
    assert_eq!(w.reg(r(5), 9), 41);
    // Address 0 is SR_LANEID.
    assert_eq!(w.reg(r(6), 9), 9);
}

/// The special registers end at address 0xff: 0x100 is the first word of the
/// register store, so GETREG of 0x100 reads back what SETREG wrote there, not the
/// special register of code 0 (`SR_LANEID`) that its low byte names.
#[test]
fn getreg_of_address_0x100_reads_the_register_store() {
    let m = run(
        "SETREG 0x100, R0\n\
         GETREG R3, 0x100\n\
         GETREG R4, 0x0\n\
         EXIT",
        |w| {
            for l in 0..32 {
                w.set_reg(r(0), l, 0x500 + l as u32);
            }
        },
    );
    let w = &m.warp;
    // Every lane wrote 0x100: the highest lane's value (0x51f) is stored.
    assert_eq!(w.getreg(0x100, 7), 0x51f);
    assert_eq!(lanes(w, 3), vec![0x51f; 32]);
    // Address 0 still reads the lane id.
    assert_eq!(lanes(w, 4), (0..32).collect::<Vec<u32>>());
    // An address of the store never written reads 0.
    assert_eq!(w.getreg(0x200, 7), 0);
}

#[test]
fn events_and_no_ops() {
    let m = run(
        "NOP\n\
         DEPBAR 0x1, 0x2\n\
         IBBAR\n\
         @P0 TRAP 0x5\n\
         TRAP R0\n\
         RTT\n\
         SYSCALL\n\
         PMTRIG 0x3\n\
         SWITCH 0x9\n\
         @!PT TRAP 0x6\n\
         EXIT",
        |w| {
            w.set_pred_lanes(p(0), u32::MAX, 0xf0);
            for l in 0..32 {
                w.set_reg(r(0), l, 30 + l as u32);
            }
        },
    );
    let ev: Vec<(u64, u32, EventKind)> = m.events.iter().map(|e| (e.pc, e.lanes, e.kind)).collect();
    assert_eq!(
        ev,
        vec![
            (0x30, 0xf0, EventKind::Trap(5)),
            (0x40, u32::MAX, EventKind::Trap(30)),
            (0x50, u32::MAX, EventKind::Rtt),
            (0x60, u32::MAX, EventKind::Syscall),
            (0x70, u32::MAX, EventKind::PmTrig(3)),
            (0x80, u32::MAX, EventKind::Switch(9)),
        ]
    );
    assert_eq!(m.steps, 11);
}

#[test]
fn bmov_bssy_break() {
    let w = run(
        "@P0 BSSY B1, 0x100\n\
         BMOV R1, B1\n\
         @P1 BREAK B1\n\
         BMOV R2, B1\n\
         BMOV B2, R0\n\
         BMOV.CLEAR R3, B1\n\
         BMOV R4, B1\n\
         EXIT",
        |w| {
            w.set_pred_lanes(p(0), u32::MAX, 0x0000_ffff);
            w.set_pred_lanes(p(1), u32::MAX, 0x0000_00ff);
            for l in 0..32 {
                w.set_reg(r(0), l, 0x100 + l as u32);
            }
            w.set_pred_lanes(Pred::new(2).unwrap(), 0, 0);
        },
    )
    .warp;
    assert_eq!(w.reg(r(1), 0), 0xffff);
    assert_eq!(w.reg(r(2), 0), 0xff00);
    assert_eq!(w.breg[2], 0x100); // from the first active lane
    assert_eq!(w.reg(r(3), 31), 0xff00);
    assert_eq!(w.reg(r(4), 31), 0);
    assert_eq!(w.breg[1], 0);
    let _ = Reg::RZ;
}

/// `ELECT Pu, Rd, ~URb`: the candidates are the participating lanes whose bit of URb
/// is clear (`p & (URb ^ ~0)`), so a lane whose bit is set is passed over even when
/// it is the lowest participant.
#[test]
fn elect_with_a_negated_uniform_register_skips_the_lanes_it_names() {
    let w = run(
        "ELECT P1, R1, ~UR1\n\
         ELECT P2, R2, ~UR2\n\
         EXIT",
        |w| {
            w.valid_mask = 0xf0;
            w.active_mask = 0xf0;
            // ~0x10 & 0xf0 = 0xe0: lane 5. ~0xf0 & 0xf0 = 0: no leader.
            urs(w, &[(1, 0x10), (2, 0xffff_fff0)]);
        },
    )
    .warp;
    for l in 4..8 {
        assert_eq!(w.reg(r(1), l), 5, "lane {l}");
        assert_eq!(w.pred(p(1), l), l == 5, "lane {l}");
        assert_eq!(w.reg(r(2), l), u32::MAX, "lane {l}");
        assert!(!w.pred(p(2), l), "lane {l}");
    }
}
