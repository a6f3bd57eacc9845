//! Livelock detection: runs that come back to a state stop with a livelock fault that
//! names the cycle; runs that only look alike (the clock differs) and runs that end
//! are not touched. Expected states are traced by hand from bru.isa (see the comments).

mod common;
use common::*;

use isa_runtime::{CycleStep, FaultKind, Machine, Stop};

/// The livelock of the spec's BSYNC. Lanes A = 0..15 and C = 16..23 sync at .L_x
/// (B0), C and D = 24..31 at .L_d (B1, or a WARPSYNC of every lane). C yields before
/// either. A's BSYNC then misses only C, which yielded, and should let A go (the yield
/// release of the BRU description); the pseudocode switches to a non-yielded lane
/// outside B0 first: D. D's sync point misses only C too and switches back to A. C
/// never runs again. (Without the YIELD the program ends: C would reach .L_x.)
fn yielded_lanes_program(second_sync: &str) -> Machine {
    let src = format!(
        "        @!P1 BSSY B0, `(.L_x)       // 0x00: B0 = A | C
                 @P2 BSSY B1, `(.L_d)        // 0x10: B1 = C | D
                 @P1 BRA `(.L_d)             // 0x20: D waits at .L_d (RPC 0x90)
                 @P0 BRA `(.L_c)             // 0x30: C waits at .L_c (RPC 0x50)
                 BRA `(.L_x)                 // 0x40: A
        .L_c:    YIELD                       // 0x50: C yields to A (RPC 0x60)
                 BRA `(.L_x)                 // 0x60
        .L_x:    BSYNC B0                    // 0x70
                 EXIT                        // 0x80
        .L_d:    {second_sync}               // 0x90
                 EXIT                        // 0xa0"
    );
    start(&src, |w| {
        w.set_pred_lanes(p(0), u32::MAX, C);
        w.set_pred_lanes(p(1), u32::MAX, D);
        w.set_pred_lanes(p(2), u32::MAX, C | D);
    })
}

const A: u32 = 0x0000_ffff;
const C: u32 = 0x00ff_0000;
const D: u32 = 0xff00_0000;

/// Unwraps a livelock fault.
#[track_caller]
fn livelock(stop: Stop) -> (u64, u64, Vec<CycleStep>, bool, u32, u32) {
    match stop {
        Stop::Fault(f) => match f.kind {
            FaultKind::Livelock {
                period,
                more,
                starved,
                yielded,
            } => (f.pc, period, f.cycle, more, starved, yielded),
            k => panic!("not a livelock: {k}"),
        },
        s => panic!("{s:?}"),
    }
}

fn step(pc: u64, text: &str, lanes: u32) -> CycleStep {
    CycleStep {
        pc,
        text: text.to_string(),
        lanes,
    }
}

#[test]
fn two_bsyncs_waiting_on_yielded_lanes_are_a_livelock() {
    // Steps 1..5: BSSY, BSSY, the two partial BRAs, A's BRA. 6: A's BSYNC B0 misses
    // C (B0 = C now) and switches to it. 7: C's YIELD goes back to A (the lowest
    // other lane). 8: A's BSYNC B0 misses only C, which yielded: no candidate in B0,
    // so it switches to D (`mask_ny_nb`). 9: D's BSYNC B1 misses only C (B1 = C now)
    // and switches to A the same way. From then on steps 8 and 9 repeat.
    let mut m = yielded_lanes_program("BSYNC B1");
    let stop = m.run(1_000_000);
    let msg = match &stop {
        Stop::Fault(f) => f.to_string(),
        s => panic!("{s:?}"),
    };
    let (pc, period, cycle, more, starved, yielded) = livelock(stop);
    assert_eq!(period, 2);
    assert_eq!(
        cycle,
        vec![step(0x90, "BSYNC B1", D), step(0x70, "BSYNC B0", A)]
    );
    assert!(!more);
    assert_eq!((starved, yielded), (C, C));
    // Stopped where the cycle starts over, in the state the cycle returns to.
    assert_eq!(pc, 0x90);
    let w = &m.warp;
    assert_eq!((w.active_pc, w.active_mask, w.yield_mask), (0x90, D, C));
    assert_eq!((w.breg[0], w.breg[1]), (C, C));
    assert_eq!((w.rpc[0], w.rpc[16], w.rpc[24]), (0x70, 0x60, 0x90));
    // Found early: the cycle begins after step 9; the first check (step 16) keeps
    // the state, the second (step 32) finds it again, two more steps confirm it.
    assert_eq!(m.steps, 34);
    assert_eq!(
        msg,
        "pc 0x0090 `BSYNC B1`: livelock: the warp returns to the same state every 2 steps \
         and never finishes; the cycle runs 0x0090 `BSYNC B1` (lanes 0xff000000), \
         0x0070 `BSYNC B0` (lanes 0x0000ffff); lanes 0x00ff0000 never run (they yielded)"
    );
}

#[test]
fn a_bsync_and_a_warpsync_waiting_on_yielded_lanes_are_a_livelock() {
    // As above until step 8 (A's BSYNC B0 switches to D); D's WARPSYNC 0xffffffff
    // misses A and C, C yielded: it switches to A. Steps 9 and 10 repeat steps 7
    // and 8 (the WARPSYNC leaves B1 alone).
    let mut m = yielded_lanes_program("WARPSYNC 0xffffffff");
    let (pc, period, cycle, _, starved, yielded) = livelock(m.run(1_000_000));
    assert_eq!(period, 2);
    assert_eq!(
        cycle,
        vec![
            step(0x90, "WARPSYNC 0xffffffff", D),
            step(0x70, "BSYNC B0", A)
        ]
    );
    assert_eq!((pc, starved, yielded), (0x90, C, C));
    assert!(m.steps <= 34, "{} steps", m.steps);
}

#[test]
fn a_branch_to_itself_is_a_livelock_of_one_step() {
    let mut m = start("NOP\n.L: BRA `(.L)", |_| {});
    let (pc, period, cycle, more, starved, yielded) = livelock(m.run(1000));
    assert_eq!((pc, period), (0x10, 1));
    assert_eq!(cycle, vec![step(0x10, "BRA 0x10", u32::MAX)]);
    assert_eq!((more, starved, yielded), (false, 0, 0));
    // Checks at 16 (kept) and 32 (found), confirmed one step later.
    assert_eq!(m.steps, 33);
}

/// Lanes that never run because they wait at a branch target, not because they
/// yielded, are starved but not yielded.
#[test]
fn lanes_left_waiting_at_a_branch_are_starved_not_yielded() {
    // 1 BRA: B waits at .L_b (RPC 0x20), A goes on. 2, 3, …: A's BRA to itself.
    let mut m = start(
        "        @P0 BRA `(.L_b)     // 0x00
        .L_a:    BRA `(.L_a)         // 0x10
        .L_b:    EXIT                // 0x20",
        |w| w.set_pred_lanes(p(0), u32::MAX, 0xffff_0000),
    );
    let stop = m.run(1000);
    let msg = match &stop {
        Stop::Fault(f) => f.to_string(),
        s => panic!("{s:?}"),
    };
    let (pc, period, cycle, more, starved, yielded) = livelock(stop);
    assert_eq!((pc, period), (0x10, 1));
    assert_eq!(cycle, vec![step(0x10, "BRA 0x10", 0x0000_ffff)]);
    assert_eq!((more, starved, yielded), (false, 0xffff_0000, 0));
    assert_eq!(m.warp.yield_mask, 0);
    assert!(
        msg.ends_with("lanes 0xffff0000 never run"),
        "no lane yielded: {msg}"
    );
}

#[test]
fn a_loop_that_counts_runs_to_the_step_limit() {
    // UR1 grows every turn: no state comes back (within 2^32 turns).
    let mut m = start(".L: UIADD UR1, UR1, 0x1\nBRA `(.L)", |_| {});
    match m.run(100_000) {
        Stop::Fault(f) => assert_eq!(f.kind, FaultKind::StepLimit(100_000)),
        s => panic!("{s:?}"),
    }
    assert_eq!((m.steps, m.warp.ureg(ur(1))), (100_000, 50_000));
}

#[test]
fn a_counter_that_wraps_is_found_after_its_period() {
    // UR1 counts modulo 256 (ULOP3 with LUT 0xc0 is `a & b`): the loop has 3
    // instructions, so the state comes back every 3 * 256 steps.
    let src = ".L: UIADD UR1, UR1, 0x1
                   ULOP3.POR UR1, UR1, 0xff, URZ, 0xc0, !UPT
                   BRA `(.L)";
    let mut m = start(src, |_| {});
    let (pc, period, cycle, more, ..) = livelock(m.run(1_000_000));
    assert_eq!(period, 768);
    assert!(pc < 0x30 && pc % 0x10 == 0, "{pc:#x}");
    assert_eq!(cycle.len(), 3);
    assert!(!more);
    // Checks at 16, 32 | 64, 96 | 160, 224, 288, 352 | 480, 608, … (the checkpoint
    // moves at each `|`, the distance doubles): the checkpoint of step 352 is met
    // again 768 steps later, and confirmed 768 steps after that.
    assert_eq!(m.steps, 352 + 768 + 768);
}

#[test]
fn a_cycle_longer_than_the_trail_lists_what_its_first_4096_steps_ran() {
    // Confirming a candidate records the (address, lanes) pairs of at most 4,096
    // steps; a longer cycle is listed from those and says there is more. Here a
    // turn is 6 steps (5 NOPs first): UR1 counts modulo 1024, and the turn that
    // wraps it to 0 ends at .L_wrap instead of .L_turn, so the state comes back every
    // 6 * 1024 = 6144 steps and .L_wrap runs once in them.
    let src = "
NOPS5
        .L:      UIADD UR1, UR1, 0x1                             // 0x50
                 ULOP3 UR1, UR1, 0x3ff, URZ, 0xc0, !UPT          // 0x60: mod 1024
                 UISETP.NE.AND.U32 UP0, UR1, 0x0, UPT            // 0x70
                 USEL UR2, URZ, 0x10, UP0                        // 0x80: UP0 ? 0 : 0x10
                 BRX UR2, `(.L_turn)                             // 0x90
        .L_turn: BRA `(.L)                                       // 0xa0
        .L_wrap: BRA `(.L)                                       // 0xb0";
    // Turn t (from 0) starts after step 5 + 6t with UR1 = 454 + t; turn 1593 wraps
    // (454 + 1593 + 1 = 2048), its .L_wrap is step 5 + 6 * 1593 + 6 = 9569.
    let mut m = start(&src.replace("NOPS5", &nops(5)), |w| urs(w, &[(1, 454)]));
    let (pc, period, cycle, more, starved, yielded) = livelock(m.run(100_000));
    assert_eq!(period, 6144);
    // Checks at 16, 32 | 64, 96 | 160 … 352 | 480 … 1376 | 1632 … 5472 | 5984, …
    // (the checkpoint moves at each `|`): the checkpoint of step 5472 is met again
    // 12 checks (6144 steps) later, at step 11616, and confirmed 6144 steps after
    // that. The steps recorded are 11617 ..= 15712, which are 5473 ..= 9568 of the
    // cycle: .L_wrap (9569) is the first not recorded.
    assert_eq!(m.steps, 11616 + 6144);
    assert_eq!(pc, 0x60);
    let all = u32::MAX;
    assert_eq!(
        cycle,
        vec![
            step(0x60, "ULOP3 UR1, UR1, 0x3ff, URZ, 0xc0, !UPT", all),
            step(0x70, "UISETP.NE.AND.U32 UP0, UR1, 0x0, UPT", all),
            step(0x80, "USEL UR2, URZ, 0x10, UP0", all),
            step(0x90, "BRX UR2, 0xa0", all),
            step(0xa0, "BRA 0x50", all),
            step(0x50, "UIADD UR1, UR1, 0x1", all),
        ]
    );
    assert_eq!((more, starved, yielded), (true, 0, 0));
}

/// A turn of 16 steps that reads the clock (`S2UR`) and leaves once it reads at least
/// `limit`, then spins at `.L_end` (0x100): the state is the same at every turn's
/// start (UR1 = 0, UP0 false, UR2 = -0x100).
fn clock_wait(limit: u32) -> String {
    let src = "
        .L_wait: S2UR UR1, SR_CLOCKLO
                 UISETP.GE.U32.AND UP0, UPT, UR1, LIMIT, UPT
                 USEL UR2, URZ, 0xffffff00, UP0                 // UP0 ? 0 : -0x100
                 UMOV UR1, 0x0
NOPS11
                 BRX UR2, `(.L_end)                             // .L_end + UR2
        .L_end:  BRA `(.L_end)";
    src.replace("LIMIT", &format!("{limit:#x}"))
        .replace("NOPS11", &nops(11))
}

#[test]
fn a_loop_waiting_for_the_clock_is_not_a_livelock() {
    // A turn of 16 steps: the state is the same at every turn's start (UR1 = 0, UP0
    // false, UR2 = -0x100), which the checks (16 steps apart at first) see, but the
    // loop reads the clock: the S2UR of turn k runs at cycle 16k, so turn 313 (cycle
    // 5008) leaves. Then the warp spins at .L_end: that is a livelock.
    let mut m = start(&clock_wait(5000), |_| {});
    let (pc, period, ..) = livelock(m.run(1_000_000));
    assert_eq!((pc, period), (0x100, 1));
    assert!(m.steps > 314 * 16, "{} steps", m.steps);
    assert!(m.warp.upred(up(0)));
    // The same through GETREG of the clock's address, given in a register.
    let src = "
        .L_wait: GETREG R1, R2                                  // the clock
                 REDUXU.S32.MAX UR1, R1
                 UISETP.GE.U32.AND UP0, UPT, UR1, 0x1388, UPT
                 VOTE.ANY R1, P6, PT                            // R1 = 0xffffffff
                 USEL UR2, URZ, 0xffffff00, UP0
                 UMOV UR1, 0x0
NOPS9
                 BRX UR2, `(.L_end)
        .L_end:  EXIT";
    let clock = u32::from(isa::SReg::SrClocklo.bits());
    let mut m = start(&src.replace("NOPS9", &nops(9)), |w| {
        for l in 0..32 {
            w.set_reg(r(2), l, clock);
        }
    });
    assert_eq!(m.run(1_000_000), Stop::Exited);
    // Turn k reads cycle 16k; turn 313 leaves, then EXIT.
    assert_eq!(m.steps, 314 * 16 + 1);
}

/// A candidate that fails because the loop reads the clock starts detection over with
/// twice the distance between checks, so the livelock after the loop is found at an
/// exact step.
#[test]
fn a_candidate_that_reads_the_clock_doubles_the_distance_between_checks() {
    // The loop above with a short wait: turn k (16 steps from step 16k) reads cycle
    // 16k, and turn 7 (cycle 112 >= 100) leaves; from step 128 the warp spins at
    // .L_end. Checks: 16 keeps the state of a turn's start, 32 finds it again, a
    // candidate whose first step reads the clock: detection starts over from step
    // 32 with the distance doubled (32), so 64 is a candidate again (distance 64),
    // then 128, where the warp has left: the checkpoint moves to step 128 and the
    // distance doubles as usual (128). The check of step 256 finds the spin, one
    // step confirms it.
    let mut m = start(&clock_wait(100), |_| {});
    let (pc, period, cycle, ..) = livelock(m.run(1_000_000));
    assert_eq!((pc, period), (0x100, 1));
    assert_eq!(cycle, vec![step(0x100, "BRA 0x100", u32::MAX)]);
    assert_eq!(m.steps, 257);
    assert!(m.warp.upred(up(0)));
}

/// `n` lines of NOP.
fn nops(n: usize) -> String {
    vec!["NOP"; n].join("\n")
}

#[test]
fn a_warp_that_only_sleeps_in_a_loop_is_a_livelock() {
    // NANOSLEEP of the whole warp: the clock jumps to the timer, the timer stops;
    // the state after each turn is the same.
    let mut m = start(".L: NANOSLEEP 0x10\nBRA `(.L)", |_| {});
    let (pc, period, ..) = livelock(m.run(1_000_000));
    assert_eq!((pc, period), (0, 2));
    // The state after step 2 is the initial one: found at the check of step 32.
    assert_eq!((m.steps, m.events.len()), (34, 17));
}

/// Every instruction that reads a clock register, for every clock register: a loop that
/// reads it and then puts every register back is not a livelock (the value read is
/// new each turn), so it runs to the step limit; the same loop reading a register that
/// is no clock repeats its state and is a livelock. Each reader of each clock register
/// is named by the detector's table of clock reads: leaving one out fails here.
#[test]
fn every_clock_read_keeps_a_loop_from_being_a_livelock() {
    use isa::SReg;
    let clocks = [
        SReg::SrClocklo,
        SReg::SrClockhi,
        SReg::SrGlobaltimelo,
        SReg::SrGlobaltimehi,
    ];
    // (reader, its read of `sr` with the address in R2 / UR2, the lines that undo it)
    type Reader = (&'static str, fn(&str) -> String, &'static str);
    let readers: [Reader; 6] = [
        ("S2R", |sr| format!("S2R R1, {sr}"), "S2R R1, SR_LANEID"),
        (
            "CS2R",
            |sr| format!("CS2R R[4:5], {sr}"),
            "S2R R4, SR_LANEID\nS2R R5, SR_LANEID",
        ),
        ("S2UR", |sr| format!("S2UR UR1, {sr}"), "UMOV UR1, 0x0"),
        (
            "GETREG.I",
            |sr| format!("GETREG R1, {sr}"),
            "S2R R1, SR_LANEID",
        ),
        ("GETREG.R", |_| "GETREG R1, R2".into(), "S2R R1, SR_LANEID"),
        ("GETREG.U", |_| "GETREG R1, UR2".into(), "S2R R1, SR_LANEID"),
    ];
    let run_loop = |name: &str, read: &str, undo: &str, addr: u32| {
        let src = format!(".L_top:\n{read}\n{undo}\nBRA `(.L_top)");
        let mut m = start(&src, |w| {
            for l in 0..32 {
                w.set_reg(r(2), l, addr);
            }
            urs(w, &[(2, addr)]);
        });
        let stop = m.run(5_000);
        (format!("{name}: `{read}`"), stop)
    };
    for (name, read, undo) in readers {
        for sr in clocks {
            // GETREG.I takes the address as a number.
            let addr = u32::from(sr.bits());
            let text = if name == "GETREG.I" {
                read(&format!("{addr:#x}"))
            } else {
                read(sr.name())
            };
            let (what, stop) = run_loop(name, &text, undo, addr);
            assert!(
                matches!(&stop, Stop::Fault(f) if f.kind == FaultKind::StepLimit(5_000)),
                "{what}: {stop:?}"
            );
        }
        // The same loop reading the lane id instead: a livelock.
        let lane = u32::from(SReg::SrLaneid.bits());
        let text = if name == "GETREG.I" {
            read(&format!("{lane:#x}"))
        } else {
            read("SR_LANEID")
        };
        let (what, stop) = run_loop(name, &text, undo, lane);
        assert!(
            matches!(&stop, Stop::Fault(f) if matches!(f.kind, FaultKind::Livelock { .. })),
            "{what}: {stop:?}"
        );
    }
}
