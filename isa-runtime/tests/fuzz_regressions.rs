//! The fuzzers' regression corpus for the simulator.
//!
//! Every input the `sim` fuzz target of `fuzz/` crashed on is kept in
//! `tests/regressions/sim/` and replayed here through the target's own oracle
//! (`fuzz/src/sim.rs`, included as a module), so the test fails exactly when the fuzz
//! target would.

use std::path::Path;

#[path = "../../fuzz/src/replay.rs"]
mod replay;
#[path = "../../fuzz/src/sim.rs"]
mod sim;

#[test]
fn replay_sim() {
    let n = replay::replay_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/regressions/sim"),
        sim::check,
    );
    assert!(n > 0);
}

/// The oracle itself runs: a handful of fixed inputs (all lanes, a few instructions)
/// go through without a panic.
#[test]
fn oracle_smoke() {
    for seed in 0u8..32 {
        let data: Vec<u8> = (0..256u32)
            .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
            .collect();
        sim::check(&data);
    }
}
