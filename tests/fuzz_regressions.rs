//! The fuzzers' regression corpus for the generated decoder and both assemblers.
//!
//! Every input the `decode` and `asm` fuzz targets of `fuzz/` crashed on is kept in
//! `tests/regressions/TARGET/` and replayed here through the target's own oracle
//! (`fuzz/src/decode.rs`, `fuzz/src/asm.rs`, included as modules), so the test fails
//! exactly when the fuzz target would. (The spec targets' corpus is replayed by
//! `isa-gen/tests/regressions.rs`, the simulator's by
//! `isa-runtime/tests/fuzz_regressions.rs`.)

use std::path::Path;

#[path = "../fuzz/src/asm.rs"]
mod asm;
#[path = "../fuzz/src/decode.rs"]
mod decode;
#[path = "../fuzz/src/replay.rs"]
mod replay;

/// Runs `check` on every file of `tests/regressions/<target>/`; a failure names the
/// file. Returns how many there were.
fn replay(target: &str, check: fn(&[u8])) -> usize {
    replay::replay_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/regressions")
            .join(target),
        check,
    )
}

#[test]
fn replay_decode() {
    assert!(replay("decode", decode::check) > 0);
}

#[test]
fn replay_asm() {
    assert!(replay("asm", asm::check) > 0);
}

/// asm: `/*/` opens an address prefix whose `*/` overlaps the `/*`; the program layout
/// sliced `line[4..3]` and panicked.
#[test]
fn overlapping_address_prefix_delimiters() {
    let errors = isa_gen::asm::program::layout("/*/\n", 0).unwrap_err();
    assert!(
        errors[0].message.contains("unterminated `/*`"),
        "{errors:?}"
    );
}
