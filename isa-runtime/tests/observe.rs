//! The observer (`Machine::run_observed`) and what it is told: on random programs, an
//! observed run ends as the unobserved one, and replaying each step's `Changes` over a
//! copy of the initial state gives the state after every step (the `Replay` observer
//! of the fuzz oracle, `fuzz/src/sim.rs`, included as a module).

mod common;
use common::simt::simt;
use common::*;

use proptest::prelude::*;

#[path = "../../fuzz/src/sim.rs"]
#[allow(dead_code)]
mod sim;

/// The machine of a random SIMT program.
fn simt_machine(seed: u64) -> (isa_runtime::Machine, String) {
    let p = simt(seed);
    let m = start(&p.text, |w| {
        w.valid_mask = p.valid_mask;
        w.active_mask = p.valid_mask;
        for &(n, lanes) in &p.preds {
            w.set_pred_lanes(common::p(n), u32::MAX, lanes);
        }
        for (n, v) in &p.gprs {
            w.set_reg_masked(r(*n), u32::MAX, v);
        }
        urs(w, &p.urs);
    });
    (m, p.text)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Random SIMT programs (nested divergence, loops, YIELD, NANOSLEEP, EXIT, …).
    #[test]
    fn replaying_the_changes_of_simt_programs_gives_every_state(seed in any::<u64>()) {
        let (m, text) = simt_machine(seed);
        let mut plain = m.clone();
        let stop = plain.run(20_000);
        let r = std::panic::catch_unwind(|| sim::same_when_observed(m, &plain, &stop, 20_000));
        prop_assert!(r.is_ok(), "seed {seed}:\n{text}");
    }

    /// Random instruction words of every opcode (the fuzz target's programs).
    #[test]
    fn replaying_the_changes_of_random_words_gives_every_state(
        data in proptest::collection::vec(any::<u8>(), 0..700)
    ) {
        let m = sim::machine(&data);
        let mut plain = m.clone();
        let stop = plain.run(sim::MAX_STEPS);
        sim::same_when_observed(m, &plain, &stop, sim::MAX_STEPS);
    }
}

/// The SIMT programs get somewhere: many run long, diverge and reconverge, and their
/// ends vary (a property over programs that all fault at once would prove little).
#[test]
fn the_simt_programs_are_varied() {
    let (mut exited, mut faults, mut livelocks, mut long) = (0, 0, 0, 0);
    for seed in 0..300 {
        let (mut m, _) = simt_machine(seed);
        match m.run(20_000) {
            isa_runtime::Stop::Exited => exited += 1,
            isa_runtime::Stop::Fault(f) => match f.kind {
                isa_runtime::FaultKind::Livelock { .. } => livelocks += 1,
                _ => faults += 1,
            },
        }
        if m.steps >= 50 {
            long += 1;
        }
    }
    println!("{exited} exited, {faults} faults, {livelocks} livelocks, {long} of 50+ steps");
    assert!(
        exited >= 100 && faults + livelocks >= 30 && long >= 100,
        "{exited} exited, {faults} faults, {livelocks} livelocks, {long} long"
    );
}

/// Stops the run once it has seen `at` steps.
struct StopAt {
    at: u64,
    seen: u64,
}

impl isa_runtime::Observer for StopAt {
    fn step(&mut self, _: &isa_runtime::Step<'_>, _: &isa_runtime::Warp) {
        self.seen += 1;
    }

    fn stop(&self) -> bool {
        self.seen >= self.at
    }
}

/// An observer that asks to stop ends the run right after that step, as a step limit
/// there would: the same state, in the main loop and while a livelock is confirmed.
#[test]
fn an_observer_that_stops_ends_the_run_as_a_step_limit_there() {
    use isa_runtime::{FaultKind, Stop};
    // A loop that counts (no livelock: it ends), and one that comes back to its state
    // (a livelock, confirmed over the steps after the detector's check).
    for text in [
        "UIADD UR1, UR1, 0x1 ;\nUISETP.GE.U32.AND UP0, UPT, UR1, 0x40, UPT ;\nUSEL UR2, URZ, 0xffffffc0, UP0 ;\nBRX UR2, 0x40 ;\nEXIT ;",
        "NOP ;\nBRA 0x0 ;",
    ] {
        let m = start(text, |_| {});
        let mut whole = m.clone();
        let total = match whole.run(10_000) {
            Stop::Exited => whole.steps,
            Stop::Fault(f) => {
                assert!(matches!(f.kind, FaultKind::Livelock { .. }), "{f}");
                whole.steps
            }
        };
        assert!(total > 20, "{text}: {total} steps");
        for at in 1..total {
            let mut observed = m.clone();
            let mut limited = m.clone();
            let stop = observed.run_observed(10_000, &mut StopAt { at, seen: 0 });
            let Stop::Fault(f) = stop else {
                panic!("{text}: stopped at {at}: exited");
            };
            assert_eq!(f.kind, FaultKind::StepLimit(at), "{text}: stopped at {at}");
            assert_eq!(observed.steps, at);
            let _ = limited.run(at);
            assert_eq!(observed.warp.active_pc, limited.warp.active_pc, "{text} {at}");
            assert_eq!(observed.warp.ureg_n(1), limited.warp.ureg_n(1), "{text} {at}");
        }
        // Either observer of a pair stops the run, and a `&mut` observer forwards it.
        let never = || StopAt {
            at: u64::MAX,
            seen: 0,
        };
        for (first, second) in [(5, u64::MAX), (u64::MAX, 7), (9, 4)] {
            let mut pair = (StopAt { at: first, seen: 0 }, StopAt { at: second, seen: 0 });
            let mut observed = m.clone();
            let _ = observed.run_observed(10_000, &mut pair);
            assert_eq!(observed.steps, first.min(second), "{text}: pair {first} {second}");
        }
        let mut inner = StopAt { at: 6, seen: 0 };
        let mut by_ref: &mut StopAt = &mut inner;
        let mut observed = m.clone();
        let _ = observed.run_observed(10_000, &mut by_ref);
        assert_eq!(observed.steps, 6);
        let mut observed = m.clone();
        let _ = observed.run_observed(40, &mut (never(), never()));
        assert_eq!(observed.steps, 40.min(total));
    }
}
