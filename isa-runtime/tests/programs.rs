//! Whole programs exercising the SIMT model. `VOTE.ANY Rn, Px, PT` records in each
//! lane the mask of lanes running with it, so the divergence is visible in the
//! registers. Every expected value comes from tracing the bru.isa pseudocode by hand
//! (the traces are in the comments).

// Lanes are numbers here: loops over `0..32` read like the spec.
#![allow(clippy::needless_range_loop)]

mod common;
use common::*;

use isa_runtime::{EventKind, FaultKind, Machine, Program, Stop, Warp};

/// R`n` of the lanes in `mask` equals `v`, and is 0 elsewhere.
fn assert_reg(w: &Warp, n: u8, mask: u32, v: u32) {
    for l in 0..32 {
        let want = if mask >> l & 1 == 1 { v } else { 0 };
        assert_eq!(w.reg(r(n), l), want, "R{n} lane {l}");
    }
}

#[test]
fn if_else_reconverges_at_bsync() {
    let m = run(
        "        S2R R1, SR_LANEID
                 BSSY B0, `(.L_join)
                 @P0 BRA `(.L_else)
                 VOTE.ANY R5, P5, PT        // then: lanes 16..31
                 BRA `(.L_join)
        .L_else: VOTE.ANY R6, P6, PT        // else: lanes 0..15
        .L_join: BSYNC B0
                 VOTE.ANY R7, P4, PT        // everyone again
                 EXIT",
        |w| w.set_pred_lanes(p(0), u32::MAX, 0x0000_ffff),
    );
    let w = &m.warp;
    assert_reg(w, 5, 0xffff_0000, 0xffff_0000);
    assert_reg(w, 6, 0x0000_ffff, 0x0000_ffff);
    assert_reg(w, 7, u32::MAX, u32::MAX);
    assert_eq!(w.breg[0], 0, "BSYNC consumed B0");
    // S2R BSSY BRA VOTE BRA BSYNC(switch) VOTE BSYNC(sync) VOTE EXIT.
    assert_eq!(m.steps, 10);
    assert_eq!((w.valid_mask, w.active_mask), (0, 0));
}

#[test]
fn if_else_states_step_by_step() {
    let mut m = start(
        "        BSSY B0, `(.L_join)
                 @P0 BRA `(.L_else)
                 BRA `(.L_join)
        .L_else: NOP
        .L_join: BSYNC B0
                 EXIT",
        |w| w.set_pred_lanes(p(0), u32::MAX, 0x0000_00ff),
    );
    m.step().unwrap(); // BSSY
    assert_eq!(m.warp.breg[0], u32::MAX);
    m.step().unwrap(); // @P0 BRA: lanes 0..7 wait at .L_else, the others fall through
    assert_eq!((m.warp.active_pc, m.warp.active_mask), (0x20, 0xffff_ff00));
    assert_eq!(m.warp.rpc[0], 0x30);
    m.step().unwrap(); // BRA .L_join (all active lanes)
    assert_eq!(m.warp.active_pc, 0x40);
    m.step().unwrap(); // BSYNC: lanes 0..7 missing → switch to them, B0 = their mask
    assert_eq!((m.warp.active_pc, m.warp.active_mask), (0x30, 0xff));
    assert_eq!(m.warp.breg[0], 0xff);
    assert_eq!(m.warp.rpc[8], 0x40);
    m.step().unwrap(); // NOP
    m.step().unwrap(); // BSYNC: everyone arrived
    assert_eq!((m.warp.active_pc, m.warp.active_mask), (0x50, u32::MAX));
    assert_eq!(m.warp.breg[0], 0);
    assert!(m.step().unwrap()); // EXIT
}

#[test]
fn nested_divergence() {
    let m = run(
        "          BSSY B0, `(.L_j0)
                   @P0 BRA `(.L_else0)        // 0..15 jump
                   BSSY B1, `(.L_j1)
                   @P1 BRA `(.L_else1)        // 24..31 jump
                   VOTE.ANY R1, P5, PT        // 16..23
                   BRA `(.L_j1)
        .L_else1:  VOTE.ANY R2, P5, PT        // 24..31
        .L_j1:     BSYNC B1
                   VOTE.ANY R3, P5, PT        // 16..31
                   BRA `(.L_j0)
        .L_else0:  VOTE.ANY R4, P5, PT        // 0..15
        .L_j0:     BSYNC B0
                   VOTE.ANY R5, P5, PT        // all
                   EXIT",
        |w| {
            w.set_pred_lanes(p(0), u32::MAX, 0x0000_ffff);
            w.set_pred_lanes(p(1), u32::MAX, 0xff00_0000);
        },
    );
    let w = &m.warp;
    assert_reg(w, 1, 0x00ff_0000, 0x00ff_0000);
    assert_reg(w, 2, 0xff00_0000, 0xff00_0000);
    assert_reg(w, 3, 0xffff_0000, 0xffff_0000);
    assert_reg(w, 4, 0x0000_ffff, 0x0000_ffff);
    assert_reg(w, 5, u32::MAX, u32::MAX);
    assert_eq!((w.breg[0], w.breg[1]), (0, 0));
    assert_eq!(m.steps, 16);
}

#[test]
fn uniform_loop_with_bra_u() {
    // UR0 counts 1..5, UR2 sums it. The per-lane loop predicate is made from the
    // uniform one: ELECT finds a leader only if UR5 has a lane, VOTE.ANY spreads it.
    let m = run(
        "        UMOV UR6, 0xffffffff
        .L_top:  UIADD UR0, UR0, 0x1
                 UIADD UR2, UR2, UR0
                 UISETP.LT.U32.AND UP0, UPT, UR0, 0x5, UPT
                 USEL UR5, UR6, URZ, UP0
                 ELECT P0, R9, UR5
                 VOTE.ANY R9, P1, P0
                 @P1 BRA.U `(.L_top)
                 EXIT",
        |_| {},
    );
    let w = &m.warp;
    assert_eq!((w.ureg(ur(0)), w.ureg(ur(2))), (5, 15));
    assert_eq!(m.steps, 1 + 5 * 7 + 1);
}

#[test]
fn bra_u_jumps_only_when_every_active_lane_agrees() {
    let src = "        @P2 BRA.U `(.L_skip)
                        VOTE.ANY R3, P3, PT
               .L_skip: EXIT";
    // Lanes disagree: nobody jumps and the warp does not diverge.
    let w = run(src, |w| w.set_pred_lanes(p(2), u32::MAX, 0xffff)).warp;
    assert_reg(&w, 3, u32::MAX, u32::MAX);
    // Everyone agrees: the warp jumps.
    let w = run(src, |w| w.set_pred_lanes(p(2), u32::MAX, u32::MAX)).warp;
    assert_reg(&w, 3, 0, 0);
}

#[test]
fn partial_exit() {
    let mut m = start(
        "@P0 EXIT
         VOTE.ANY R1, P1, PT
         EXIT",
        |w| w.set_pred_lanes(p(0), u32::MAX, 0x0f0f_0f0f),
    );
    m.step().unwrap();
    assert_eq!(
        (m.warp.valid_mask, m.warp.active_mask, m.warp.active_pc),
        (0xf0f0_f0f0, 0xf0f0_f0f0, 0x10)
    );
    assert_eq!(m.run(100), Stop::Exited);
    assert_reg(&m.warp, 1, 0xf0f0_f0f0, 0xf0f0_f0f0);
}

#[test]
fn exit_of_one_branch_switches_to_the_other() {
    let mut m = start(
        "       @P0 BRA `(.L_b)     // 0..15 jump
                EXIT                // 16..31 exit: switch to 0..15
        .L_b:   VOTE.ANY R1, P1, PT
                EXIT",
        |w| w.set_pred_lanes(p(0), u32::MAX, 0x0000_ffff),
    );
    m.step().unwrap();
    m.step().unwrap();
    assert_eq!(
        (m.warp.valid_mask, m.warp.active_mask, m.warp.active_pc),
        (0xffff, 0xffff, 0x20)
    );
    assert_eq!(m.run(100), Stop::Exited);
    assert_reg(&m.warp, 1, 0xffff, 0xffff);
}

#[test]
fn warpsync_after_divergence() {
    let m = run(
        "       @P0 BRA `(.L_b)            // 8..23 jump
        .L_s:   WARPSYNC 0xffffffff        // the others wait here
                VOTE.ANY R1, P1, PT        // all
                EXIT
        .L_b:   VOTE.ANY R2, P1, PT        // 8..23
                BRA `(.L_s)",
        |w| w.set_pred_lanes(p(0), u32::MAX, 0x00ff_ff00),
    );
    assert_reg(&m.warp, 1, u32::MAX, u32::MAX);
    assert_reg(&m.warp, 2, 0x00ff_ff00, 0x00ff_ff00);
    // BRA WARPSYNC(switch) VOTE BRA WARPSYNC(sync) VOTE EXIT.
    assert_eq!(m.steps, 7);
}

#[test]
fn grouped_warpsync_releases_each_group() {
    // R3 = 0x0000ffff in lanes 0..15, 0xffff0000 in 16..31: two groups of 16.
    let m = run(
        "       @P0 BRA `(.L_b)            // 8..23 jump
        .L_s:   WARPSYNC R3
                VOTE.ANY R1, P1, PT        // one group at a time
                EXIT
        .L_b:   VOTE.ANY R2, P1, PT
                BRA `(.L_s)",
        |w| {
            w.set_pred_lanes(p(0), u32::MAX, 0x00ff_ff00);
            for l in 0..32 {
                w.set_reg(r(3), l, if l < 16 { 0x0000_ffff } else { 0xffff_0000 });
            }
        },
    );
    let w = &m.warp;
    for l in 0..32 {
        let group = if l < 16 { 0x0000_ffff } else { 0xffff_0000 };
        assert_eq!(w.reg(r(1), l), group, "lane {l}");
    }
    assert_reg(w, 2, 0x00ff_ff00, 0x00ff_ff00);
    // BRA WS(switch) VOTE BRA WS(release 0..15) VOTE EXIT WS(release 16..31) VOTE EXIT.
    assert_eq!(m.steps, 10);
}

#[test]
fn warpsync_program_errors_fault() {
    // A lane outside the membermask executes WARPSYNC.
    let mut m = start("WARPSYNC 0xffff\nEXIT", |_| {});
    match m.run(10) {
        Stop::Fault(f) => {
            assert_eq!(
                f.kind,
                FaultKind::WarpsyncNotMember {
                    lane: 16,
                    mask: 0xffff
                }
            );
            assert_eq!(f.pc, 0);
        }
        s => panic!("{s:?}"),
    }
    // Lanes of one released group disagree about the group.
    let mut m = start("WARPSYNC R3\nEXIT", |w| {
        for l in 0..32 {
            w.set_reg(r(3), l, if l == 0 { 0x3 } else { 0x7 });
        }
        w.valid_mask = 0x7;
        w.active_mask = 0x7;
    });
    match m.run(10) {
        Stop::Fault(f) => assert_eq!(
            f.kind,
            FaultKind::WarpsyncMaskMismatch {
                lane: 0,
                mask: 0x3,
                other: 1,
                other_mask: 0x7
            }
        ),
        s => panic!("{s:?}"),
    }
}

#[test]
fn yield_lets_the_other_branch_pass_bsync() {
    let mut m = start(
        "       BSSY B0, `(.L_join)
                @P0 BRA `(.L_b)           // B = 16..31 jump, A = 0..15 go on
                YIELD                     // A yields to B
                VOTE.ANY R1, P1, PT       // A, after B has exited
                BRA `(.L_join)
        .L_b:   VOTE.ANY R2, P1, PT       // B
                BRA `(.L_join)
        .L_join: BSYNC B0                 // B is released without the yielding A
                VOTE.ANY R3, P1, PT
                EXIT",
        |w| w.set_pred_lanes(p(0), u32::MAX, 0xffff_0000),
    );
    for _ in 0..3 {
        m.step().unwrap();
    }
    // After YIELD: B runs at .L_b, A is yielding and will resume after the YIELD.
    let w = &m.warp;
    assert_eq!((w.active_pc, w.active_mask), (0x50, 0xffff_0000));
    assert_eq!((w.yield_mask, w.switch_mask), (0x0000_ffff, 0x0000_ffff));
    assert_eq!(w.rpc[0], 0x30);
    assert_eq!(m.run(100), Stop::Exited);
    let w = &m.warp;
    assert_reg(w, 1, 0x0000_ffff, 0x0000_ffff);
    assert_reg(w, 2, 0xffff_0000, 0xffff_0000);
    // Each half passed the BSYNC on its own.
    for l in 0..32 {
        assert_eq!(
            w.reg(r(3), l),
            if l < 16 { 0x0000_ffff } else { 0xffff_0000 }
        );
    }
    assert_eq!(w.yield_mask, 0, "the final BSYNC cleared A's yield state");
    assert_eq!(m.steps, 13);
}

#[test]
fn two_yielding_branches_take_turns() {
    // When every lane YIELD could switch to has yielded too, it picks among those
    // lanes (`mask_y`), not among all yielded lanes: the lanes running the YIELD
    // (A, the lowest) yielded before but are no candidates.
    let mut m = start(
        "       @P0 BRA `(.L_b)           // 0x00: B = 16..31 jump, A = 0..15 go on
                YIELD                     // 0x10: A yields to B
                YIELD                     // 0x20: A, again: B yielded too
                EXIT                      // 0x30: A
        .L_b:   YIELD                     // 0x40: B yields to A, which yielded
                EXIT                      // 0x50: B",
        |w| w.set_pred_lanes(p(0), u32::MAX, 0xffff_0000),
    );
    for _ in 0..3 {
        m.step().unwrap();
    }
    // 1 BRA: B waits at 0x40. 2 YIELD: A yields (RPC 0x20), B runs; SwitchMask = A.
    // 3 YIELD: B's only candidates (A) yielded: B yields (RPC 0x50), A runs.
    let w = &m.warp;
    assert_eq!(masks(w), (u32::MAX, 0xffff, u32::MAX, 0, 0xffff_0000, 0x20));
    // 4 YIELD: A's only candidates (B) yielded: A yields (RPC 0x30), B runs at 0x50.
    m.step().unwrap();
    let w = &m.warp;
    assert_eq!(masks(w), (u32::MAX, 0xffff_0000, u32::MAX, 0, 0xffff, 0x50));
    let rpc: [u64; 32] = std::array::from_fn(|l| if l < 16 { 0x30 } else { 0x50 });
    assert_eq!(w.rpc, rpc);
    // 5 EXIT: B leaves, A (yielded, the only lanes left) resumes at 0x30. 6 EXIT.
    assert_eq!(m.run(100), Stop::Exited);
    assert_eq!((m.steps, m.warp.yield_mask), (6, u32::MAX));
}

#[test]
fn warpsync_switches_to_a_member_that_yielded() {
    // WARPSYNC's missing members all yielded: it switches to them (`mask_m_y`), not
    // to the lowest yielded lane, which is an arrived one (A) and would only make the
    // WARPSYNC wait on itself.
    let mut m = start(
        "        @P0 BRA `(.L_b)          // 0x00: B = 16..31 jump, A = 0..15 go on
                 YIELD                    // 0x10: A yields to B
        .L_s:    WARPSYNC 0xffffffff      // 0x20
                 VOTE.ANY R1, P1, PT      // 0x30: everyone
                 EXIT                     // 0x40
        .L_b:    YIELD                    // 0x50: B yields to A, which yielded
                 BRA `(.L_s)              // 0x60",
        |w| w.set_pred_lanes(p(0), u32::MAX, 0xffff_0000),
    );
    for _ in 0..3 {
        m.step().unwrap();
    }
    // 1 BRA: B waits at 0x50. 2 YIELD: A yields (RPC 0x20), B runs. 3 YIELD: B
    // yields (RPC 0x60), A runs at 0x20.
    assert_eq!((m.warp.active_pc, m.warp.active_mask), (0x20, 0xffff));
    assert_eq!(m.warp.yield_mask, u32::MAX);
    // 4 WARPSYNC: A arrived, B has not and yielded: A waits (RPC 0x20), B runs.
    m.step().unwrap();
    let w = &m.warp;
    assert_eq!(
        masks(w),
        (u32::MAX, 0xffff_0000, u32::MAX, 0, 0xffff_0000, 0x60)
    );
    assert_eq!((w.rpc[0], w.rpc[16]), (0x20, 0x60));
    // 5 BRA. 6 WARPSYNC: every member arrived, all go on. 7 VOTE. 8 EXIT.
    assert_eq!(m.run(100), Stop::Exited);
    assert_reg(&m.warp, 1, u32::MAX, u32::MAX);
    assert_eq!(m.steps, 8);
}

#[test]
fn nanosleep_switches_away_and_the_warp_sleeps_when_nothing_else_can_run() {
    let m = run(
        "       BSSY B0, `(.L_join)
                @P0 BRA `(.L_b)              // B = 16..31 jump, A = 0..15 go on
                NANOSLEEP 0x64               // A sleeps 100 ns (cycle 2 → 102)
                CS2R R[4:5], SR_CLOCKLO      // A, after waking
                BRA `(.L_join)
        .L_b:   CS2R R[6:7], SR_CLOCKLO      // B (cycle 3)
                BRA `(.L_join)
        .L_join: BSYNC B0                    // B: A asleep → B goes on alone
                VOTE.ANY R3, P1, PT
                EXIT                         // B exits; only A is left: sleep until 102",
        |w| w.set_pred_lanes(p(0), u32::MAX, 0xffff_0000),
    );
    let w = &m.warp;
    assert_reg(w, 6, 0xffff_0000, 3);
    assert_reg(w, 4, 0x0000_ffff, 103);
    for l in 0..32 {
        assert_eq!(
            w.reg(r(3), l),
            if l < 16 { 0x0000_ffff } else { 0xffff_0000 }
        );
    }
    assert_eq!(
        m.events.iter().map(|e| (e.pc, e.kind)).collect::<Vec<_>>(),
        vec![(
            0x90,
            EventKind::WarpSleep {
                from: 7,
                until: 102
            }
        )]
    );
    assert_eq!((w.sleep_mask, w.yield_mask), (0, 0));
    assert_eq!(m.steps, 13);
    assert_eq!(w.cycle, 108);
}

#[test]
fn nanosleep_of_the_whole_warp_and_the_shortest_request() {
    let w = run("NANOSLEEP 0x50\nCS2R R[0:1], SR_CLOCKLO\nEXIT", |_| {}).warp;
    assert_reg(&w, 0, u32::MAX, 81); // slept until cycle 80, CS2R at 81
    let w = run("NANOSLEEP R2\nCS2R R[0:1], SR_CLOCKLO\nEXIT", |w| {
        for l in 0..32 {
            w.set_reg(r(2), l, 200 + l as u32);
        }
    })
    .warp;
    assert_reg(&w, 0, u32::MAX, 201); // one timer: the shortest request (200)
}

#[test]
fn bmov_saves_and_restores_a_b_register_around_a_region() {
    let m = run(
        "       BSSY B0, `(.L_join)
                BMOV R7, B0
                BMOV.CLEAR R8, B0
                BMOV B0, R7
                @P0 BRA `(.L_join)
                NOP
        .L_join: BSYNC B0
                VOTE.ANY R1, P1, PT
                EXIT",
        |w| w.set_pred_lanes(p(0), u32::MAX, 0xff),
    );
    assert_reg(&m.warp, 7, u32::MAX, u32::MAX);
    assert_reg(&m.warp, 1, u32::MAX, u32::MAX);
    assert_eq!(m.warp.breg[0], 0);
}

#[test]
fn brx_call_ret_and_lepc() {
    // BRX through a table in R0: each lane jumps to base + R0 (the next instruction
    // is the base here, offset 0).
    let m = run(
        "       BSSY B0, `(.L_join)
                BRX R0, `(.L_t0)           // target = .L_t0 + R0
        .L_t0:  VOTE.ANY R1, P1, PT
                BRA `(.L_join)
        .L_t1:  VOTE.ANY R2, P1, PT
                BRA `(.L_join)
        .L_join: BSYNC B0
                LEPC R[10:11], `(.L_ret)   // R[10:11] = .L_ret
                CALL.ABS R[12:13], 0x0     // R[12:13] = .L_fn: goes to .L_fn
        .L_ret: VOTE.ANY R3, P1, PT
                EXIT
        .L_fn:  VOTE.ANY R4, P1, PT
                RET.REL R[10:11], 0x0      // back to .L_ret (absolute address + 0)
                NOP",
        |w| {
            for l in 0..32 {
                // Lanes 0..9 take .L_t1 (0x40 - 0x20 = 0x20 bytes on), the rest .L_t0.
                w.set_reg(r(0), l, if l < 10 { 0x20 } else { 0 });
                w.set_reg(r(12), l, 0xb0);
            }
        },
    );
    let w = &m.warp;
    assert_reg(w, 1, 0xffff_fc00, 0xffff_fc00);
    assert_reg(w, 2, 0x3ff, 0x3ff);
    assert_reg(w, 10, u32::MAX, 0x90);
    assert_reg(w, 4, u32::MAX, u32::MAX);
    assert_reg(w, 3, u32::MAX, u32::MAX);
}

#[test]
fn runtime_faults() {
    // Jump outside the program: blamed on the jump.
    let mut m = start("NOP\nBRA 0x1000", |_| {});
    match m.run(10) {
        Stop::Fault(f) => {
            assert_eq!(f.pc, 0x10);
            assert_eq!(f.kind, FaultKind::OutsideProgram { pc: 0x1000 });
            assert_eq!(
                f.to_string(),
                "pc 0x0010 `BRA 0x1000`: jump outside the program (to 0x1000)"
            );
        }
        s => panic!("{s:?}"),
    }
    // Step limit (a loop whose state never comes back: a branch to itself would be
    // a livelock, tests/livelock.rs).
    let mut m = start(".L: UIADD UR1, UR1, 0x1\nBRA `(.L)", |_| {});
    match m.run(50) {
        Stop::Fault(f) => {
            assert_eq!(f.kind, FaultKind::StepLimit(50));
            assert_eq!(m.steps, 50);
        }
        s => panic!("{s:?}"),
    }
    // An undecodable word faults only when executed; the state is what it was.
    let nop = asm("UMOV UR1, 0x5\nEXIT");
    let words = [nop[0].encode(), 0u128, nop[1].encode()];
    let mut m = Machine::new(Warp::default(), Program::from_words(0, &words));
    match m.run(10) {
        Stop::Fault(f) => {
            assert_eq!(f.pc, 0x10);
            assert!(matches!(f.kind, FaultKind::Undecodable(_)));
            assert!(
                f.to_string()
                    .contains(".word 0x00000000000000000000000000000000"),
                "{f}"
            );
        }
        s => panic!("{s:?}"),
    }
    assert_eq!((m.warp.ureg(ur(1)), m.steps), (5, 1));
    // A word violating an __Exception condition (BRA URa without .DIV/.CONV).
    let mut i = asm("BRA.DIV UR4, 0x100")[0];
    if let isa::Instruction::BraU(b) = &mut i {
        b.cond = isa::BraCond::U;
    }
    let mut m = Machine::new(Warp::default(), Program::from_words(0, &[i.encode()]));
    assert!(matches!(m.run(10), Stop::Fault(f) if matches!(f.kind, FaultKind::Invalid(_))));
    // Constant memory outside the bank.
    let mut m = start("ULDC UR1, c[0x0][UR2+0x0]\nEXIT", |w| {
        urs(w, &[(2, 0xfffe)])
    });
    assert!(
        matches!(m.run(10), Stop::Fault(f) if matches!(f.kind, FaultKind::CmemOutOfRange { .. }))
    );
    // Deadlock: lanes alive, none active.
    let mut m = start("EXIT", |w| w.active_mask = 0);
    assert!(matches!(m.run(10), Stop::Fault(f) if matches!(f.kind, FaultKind::Deadlock { .. })));
}

#[test]
fn call_and_brx_through_uniform_registers_and_constant_memory() {
    let m = run(
        "       CALL.ABS UR[4:5], 0x0          // UR[4:5] = 0x30: absolute 0x30 + 0
                UMOV UR3, 0x3
                EXIT
                CALL.ABS c[0x0][0x0]           // .ABS C form: to Va = 0x50
                EXIT
                CALL.REL c[0x0][0x8]           // .REL C form: 0x60 + Va (0x20) = 0x80
                EXIT
                EXIT
                BRX c[0x0][0x10]               // 0x90 + sext(-0x80) = 0x10",
        |w| {
            urs(w, &[(4, 0x30), (5, 0)]);
            w.cmem.write_u32(0, 0x0, 0x50);
            w.cmem.write_u32(0, 0x8, 0x20);
            w.cmem.write_u32(0, 0x10, (-0x80i32) as u32);
        },
    );
    assert_eq!(m.warp.ureg(ur(3)), 3);
    assert_eq!(m.steps, 6);
}

/// BSYNC releasing lanes while others still owe the barrier clears the yield bits of
/// the lanes that ran it (`pmask`), and only those (bru.isa: `YieldMask = YieldMask ^
/// (YieldMask & pmask)`): lanes 0..7 already wait at the BSYNC (their RPC is it),
/// lanes 8..15 arrive, lanes 16..31 owe it but yielded (or sleep). Traced by hand:
/// `arrivemask` = 0..15, no candidate to switch to, so the BSYNC lets 0..15 through.
#[test]
fn bsync_release_clears_the_yield_bits_of_the_lanes_that_ran_it() {
    let (a, b, c) = (0x0000_00ffu32, 0x0000_ff00u32, 0xffff_0000u32);
    for (yielded, sleeping, yield_after) in [
        // Every lane that owes the barrier yielded: release, YieldMask keeps them.
        (c, 0, c),
        // Every one sleeps instead: the release of an all-sleeping candidate set.
        (0, c, 0),
        // Lanes 0..7 (waiting) had yielded too: only the arriving lanes' bits clear.
        (c | a, 0, c | a),
    ] {
        let insns = ["BSYNC B0", "EXIT"].map(|t| t.parse::<isa::Instruction>().unwrap());
        let mut w = Warp::new(u32::MAX);
        w.breg[0] = u32::MAX;
        w.active_mask = b;
        w.active_pc = 0;
        w.yield_mask = yielded;
        w.sleep_mask = sleeping;
        for l in 0..32 {
            w.rpc[l] = if a >> l & 1 == 1 { 0 } else { 0x40 };
        }
        if sleeping != 0 {
            w.timer = Some(1_000);
        }
        let mut m = Machine::new(w, Program::from_instructions(0, &insns));
        m.step().unwrap();
        let w = &m.warp;
        let case = format!("yielded {yielded:#x}, sleeping {sleeping:#x}");
        assert_eq!(w.active_mask, a | b, "{case}");
        assert_eq!(w.active_pc, 0x10, "{case}");
        assert_eq!(w.yield_mask, yield_after, "{case}");
    }
}

/// EXIT switching to lanes that all yielded picks among the lanes still alive
/// (`mask_y = cmask & YieldMask`), not among every yielded lane: the yield bits of
/// lanes that exited stay set (EXIT does not clear them), and here those are the
/// lowest lanes.
#[test]
fn exit_switches_to_a_yielded_lane_that_is_still_alive() {
    let mut m = start(
        "       @P0 BRA `(.L_b)           // 0x00: B = 16..31 jump, A = 0..15 go on
                YIELD                     // 0x10: A yields to B
                EXIT                      // 0x20: A
        .L_b:   YIELD                     // 0x30: B yields to A, which yielded
                EXIT                      // 0x40: B",
        |w| w.set_pred_lanes(p(0), u32::MAX, 0xffff_0000),
    );
    // 1 BRA: B waits at 0x30. 2 YIELD: A yields (RPC 0x20), B runs. 3 YIELD: B's
    // only candidates (A) yielded: B yields (RPC 0x40), A runs at 0x20.
    for _ in 0..3 {
        m.step().unwrap();
    }
    assert_eq!((m.warp.active_pc, m.warp.active_mask), (0x20, 0xffff));
    assert_eq!(m.warp.yield_mask, u32::MAX);
    // 4 EXIT: A leaves; the only lanes left (B) all yielded: B resumes at 0x40
    // (lane 0, yielded but gone, is no candidate).
    m.step().unwrap();
    let w = &m.warp;
    assert_eq!(
        (w.valid_mask, w.active_mask, w.active_pc),
        (0xffff_0000, 0xffff_0000, 0x40)
    );
    // 5 EXIT: B leaves.
    assert_eq!(m.run(100), Stop::Exited);
    assert_eq!((m.steps, m.warp.yield_mask), (5, u32::MAX));
}

/// YIELD drops the lanes running it from a stale `SwitchMask` (`SwitchMask &=
/// others`) before choosing: a WARPSYNC switched back to A while `SwitchMask` still
/// named A, and a BSYNC cleared A's yield bit, so A is a non-yielded lane of the old
/// `SwitchMask`; keeping it would make A's YIELD "switch" to itself (to its own
/// resume address, with no lane there).
#[test]
fn yield_does_not_switch_to_its_own_lanes_left_in_the_switch_mask() {
    let (a, b) = (0x0000_ffffu32, 0xffff_0000u32);
    let mut m = start(
        "       @P0 BRA `(.L_s)           // 0x00: B = 16..31 jump, A = 0..15 go on
                YIELD                     // 0x10: A yields to B
                BSSY B1, `(.L_j)          // 0x20: A, switched back to by B's WARPSYNC
        .L_j:   BSYNC B1                  // 0x30: A alone: released, yield bit cleared
                YIELD                     // 0x40: A yields to B
                NOP                       // 0x50
        .L_s:   WARPSYNC 0xffffffff       // 0x60
                VOTE.ANY R1, P1, PT       // 0x70: everyone
                EXIT                      // 0x80",
        |w| w.set_pred_lanes(p(0), u32::MAX, b),
    );
    // 1 BRA: B waits at 0x60. 2 YIELD: SwitchMask 0 → B, B runs; A yielded (RPC
    // 0x20); SwitchMask = ~B = A. 3 WARPSYNC: A missing and yielded: switch to A.
    for _ in 0..3 {
        m.step().unwrap();
    }
    assert_eq!(masks(&m.warp), (u32::MAX, a, a, 0, a, 0x20));
    // 4 BSSY: B1 = A. 5 BSYNC: every lane of B1 arrived: A goes on, YieldMask
    // loses A.
    m.step().unwrap();
    m.step().unwrap();
    assert_eq!(masks(&m.warp), (u32::MAX, a, 0, 0, a, 0x40));
    // 6 YIELD: others = B; SwitchMask = A & B = 0 → B; B (not yielded) runs at
    // 0x60, A yields with RPC 0x50; SwitchMask = (B & ~B) = 0 → A.
    m.step().unwrap();
    let w = &m.warp;
    assert_eq!(masks(w), (u32::MAX, b, a, 0, a, 0x60));
    assert_eq!((w.rpc[0], w.rpc[16]), (0x50, 0x60));
    // 7 WARPSYNC: A missing, yielded: switch to A at 0x50. 8 NOP. 9 WARPSYNC: all
    // arrived. 10 VOTE. 11 EXIT.
    assert_eq!(m.run(100), Stop::Exited);
    assert_reg(&m.warp, 1, u32::MAX, u32::MAX);
    assert_eq!(m.steps, 11);
}

/// BSYNC's release when every candidate it could switch to sleeps clears the yield
/// bits of the lanes that ran it (`pmask`) and keeps every other yield bit: lanes
/// 0..7 already wait at the BSYNC and yielded, lanes 8..15 arrive and yielded, lanes
/// 16..31 owe the barrier, have not yielded and sleep. `arrivemask` = 0..15; the
/// candidates (16..31) all sleep: 0..15 go on, YieldMask = 0..7.
#[test]
fn bsync_release_past_sleeping_lanes_clears_only_the_runners_yield_bits() {
    let (a, b, c) = (0x0000_00ffu32, 0x0000_ff00u32, 0xffff_0000u32);
    let insns = ["BSYNC B0", "EXIT"].map(|t| t.parse::<isa::Instruction>().unwrap());
    let mut w = Warp::new(u32::MAX);
    w.breg[0] = u32::MAX;
    w.active_mask = b;
    w.active_pc = 0;
    w.yield_mask = a | b;
    w.sleep_mask = c;
    w.timer = Some(1_000);
    for l in 0..32 {
        w.rpc[l] = if a >> l & 1 == 1 { 0 } else { 0x40 };
    }
    let mut m = Machine::new(w, Program::from_instructions(0, &insns));
    m.step().unwrap();
    let w = &m.warp;
    assert_eq!((w.active_mask, w.active_pc), (a | b, 0x10));
    assert_eq!((w.yield_mask, w.sleep_mask), (a, c));
    assert_eq!(w.breg[0], c);
}

/// BSYNC switches to one group of the lanes that still owe the barrier at a time: the
/// lowest missing lane and only the lanes waiting at the same address
/// (`switchPCByMask`: `ActiveMask = cmask & (RPC == RPC[lid])`), not every missing
/// lane at once. Lanes 0..7 wait at .L_a, 8..15 at .L_b, 16..31 arrive first.
#[test]
fn bsync_switches_to_one_waiting_address_at_a_time() {
    let m = run(
        "        BSSY B0, `(.L_join)       // 0x00
                 @P0 BRA `(.L_a)           // 0x10: 0..7 wait at .L_a
                 @P1 BRA `(.L_b)           // 0x20: 8..15 wait at .L_b
                 VOTE.ANY R3, P5, PT       // 0x30: 16..31
                 BRA `(.L_join)            // 0x40
        .L_a:    VOTE.ANY R1, P5, PT       // 0x50: 0..7
                 BRA `(.L_join)            // 0x60
        .L_b:    VOTE.ANY R2, P5, PT       // 0x70: 8..15
        .L_join: BSYNC B0                  // 0x80
                 VOTE.ANY R4, P5, PT       // 0x90: everyone
                 EXIT                      // 0xa0",
        |w| {
            w.set_pred_lanes(p(0), u32::MAX, 0x0000_00ff);
            w.set_pred_lanes(p(1), u32::MAX, 0x0000_ff00);
        },
    );
    // 1 BSSY. 2, 3 BRA, BRA. 4 VOTE. 5 BRA. 6 BSYNC: 0..15 missing, lane 0 waits at
    // 0x50: switch to 0..7 only. 7 VOTE. 8 BRA. 9 BSYNC: 8..15 missing: switch to
    // them at 0x70. 10 VOTE. 11 BSYNC: all arrived. 12 VOTE. 13 EXIT.
    let w = &m.warp;
    assert_reg(w, 1, 0x0000_00ff, 0x0000_00ff);
    assert_reg(w, 2, 0x0000_ff00, 0x0000_ff00);
    assert_reg(w, 3, 0xffff_0000, 0xffff_0000);
    assert_reg(w, 4, u32::MAX, u32::MAX);
    assert_eq!(w.breg[0], 0);
    assert_eq!(m.steps, 13);
}

/// YIELD when every valid lane is active has no one to yield to: it just goes on
/// (`ValidMask ^ ActiveMask == 0`), whether all 32 lanes are valid or only those left
/// after a partial EXIT; no yield bit is set.
#[test]
fn yield_of_the_whole_warp_goes_on() {
    let m = run(
        "YIELD
         VOTE.ANY R1, P1, PT
         EXIT",
        |_| {},
    );
    assert_reg(&m.warp, 1, u32::MAX, u32::MAX);
    assert_eq!((m.steps, m.warp.yield_mask), (3, 0));
    // 1 @P0 EXIT: lanes 0..15 leave, 16..31 (every valid lane) go on. 2 YIELD: goes
    // on. 3 VOTE. 4 EXIT.
    let mut m = start(
        "@P0 EXIT
         YIELD
         VOTE.ANY R1, P1, PT
         EXIT",
        |w| w.set_pred_lanes(p(0), u32::MAX, 0x0000_ffff),
    );
    m.step().unwrap();
    m.step().unwrap();
    assert_eq!(masks(&m.warp), (0xffff_0000, 0xffff_0000, 0, 0, 0, 0x20));
    assert_eq!(m.run(100), Stop::Exited);
    assert_reg(&m.warp, 1, 0xffff_0000, 0xffff_0000);
    assert_eq!(m.steps, 4);
}

/// Grouped WARPSYNC (`WARPSYNC Rb`) whose missing members all yielded switches to
/// them (`mask_y = cmask & YieldMask`), not to the lowest yielded lane, which is an
/// arrived one (A) and would only make the WARPSYNC wait on itself forever.
#[test]
fn grouped_warpsync_switches_to_a_member_that_yielded() {
    let mut m = start(
        "        @P0 BRA `(.L_b)          // 0x00: B = 16..31 jump, A = 0..15 go on
                 YIELD                    // 0x10: A yields to B
        .L_s:    WARPSYNC R3              // 0x20: R3 = all lanes
                 VOTE.ANY R1, P1, PT      // 0x30: everyone
                 EXIT                     // 0x40
        .L_b:    YIELD                    // 0x50: B yields to A, which yielded
                 BRA `(.L_s)              // 0x60",
        |w| {
            w.set_pred_lanes(p(0), u32::MAX, 0xffff_0000);
            for l in 0..32 {
                w.set_reg(r(3), l, u32::MAX);
            }
        },
    );
    // 1 BRA: B waits at 0x50. 2 YIELD: A yields (RPC 0x20), B runs. 3 YIELD: B
    // yields (RPC 0x60), A runs at 0x20.
    for _ in 0..3 {
        m.step().unwrap();
    }
    assert_eq!((m.warp.active_pc, m.warp.active_mask), (0x20, 0xffff));
    assert_eq!(m.warp.yield_mask, u32::MAX);
    // 4 WARPSYNC: A arrived, its group also wants B, which has not arrived and
    // yielded: A waits (RPC 0x20), B runs at 0x60.
    m.step().unwrap();
    let w = &m.warp;
    assert_eq!((w.active_pc, w.active_mask), (0x60, 0xffff_0000));
    assert_eq!((w.rpc[0], w.rpc[16]), (0x20, 0x60));
    // 5 BRA. 6 WARPSYNC: every member arrived, all go on. 7 VOTE. 8 EXIT.
    assert_eq!(m.run(100), Stop::Exited);
    assert_reg(&m.warp, 1, u32::MAX, u32::MAX);
    assert_eq!(m.steps, 8);
}
