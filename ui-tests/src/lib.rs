//! Nothing here: the tests are `tests/ui.rs`, which compiles the programs in
//! `tests/ui/` (each must fail with the message in its `.stderr` file) and in
//! `tests/pass/` (each must build and run) against `isa` and `isa-macros`.
