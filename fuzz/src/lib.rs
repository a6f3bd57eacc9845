//! The oracles of the fuzz targets, one module per target family.
//!
//! Each `check` function takes one fuzz input and panics on a bug (a panic anywhere in
//! the toolchain, or a broken property). The fuzz targets in `fuzz_targets/` only call
//! them. The workspace's regression tests include the same files with `#[path]` and
//! replay every saved crash input through them, so a fixed bug stays fixed under the
//! exact oracle that found it:
//!
//! | module | fuzz targets | regression test |
//! | --- | --- | --- |
//! | [`spec`] | `spec_bytes`, `spec_text`, `spec_gen` | `isa-gen/tests/regressions.rs` |
//! | [`decode`] | `decode` | `tests/fuzz_regressions.rs` |
//! | [`asm`] | `asm` | `tests/fuzz_regressions.rs` |
//! | [`sim`] | `sim` | `isa-runtime/tests/fuzz_regressions.rs` |
//! | [`object`] | `object` | `isa-object/tests/fuzz_regressions.rs` |
//! | [`regalloc`] | `regalloc` | `isa-runtime/tests/regalloc.rs` (a property test over random inputs) |
//!
//! `replay.rs` (not a module here) is how those tests run an oracle over a directory
//! of saved inputs; each includes it beside the oracle.
//!
//! The modules use only the crates the including test crates have (`spec`: isa-gen and
//! isa-spec; `decode`/`asm`: isa, isa-gen, isa-spec; `sim`: isa and isa-runtime; `object`: isa-object).

pub mod asm;
pub mod decode;
pub mod object;
pub mod regalloc;
pub mod sim;
pub mod spec;
