//! Nothing here: the tests are `tests/ui.rs`, which compiles the programs in
//! `tests/ui/` against `isa` and `isa-macros` (each must fail with the message in its
//! `.stderr` file), and `tests/pass.rs`, what compiles and runs.
