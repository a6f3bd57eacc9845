//! The fuzzer's regression corpus for the object reader and linker: every input of
//! `tests/regressions/object/` (crashes of the `object` target of `fuzz/`, and the
//! hand-made hostile objects of issue 22) replayed through the target's own oracle
//! (`fuzz/src/object.rs`, included as a module), so the test fails exactly when the
//! fuzz target would.

use std::path::Path;

#[path = "../../fuzz/src/object.rs"]
mod object;
#[path = "../../fuzz/src/replay.rs"]
mod replay;

#[test]
fn replay_object() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/regressions/object");
    assert!(replay::replay_dir(&dir, object::check) > 0);
}
