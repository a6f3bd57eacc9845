//! The library behind the `isa` command: each command's work, in its module (the
//! binary, `main.rs`, parses the arguments). It is also what the Python package
//! (`isa-py`) binds, so that the program assembler, the state file and the run's
//! trace have one implementation. Its API follows the commands, not semver: other
//! Rust code should use the `isa`, `isa-gen` and `isa-runtime` crates.

// `println!` and `eprintln!` panic when the reader has gone (`isa check … 2>&1 | head`:
// Rust ignores SIGPIPE, so the write fails with a broken pipe). Messages are written
// with these instead, which drop what cannot be written and keep the exit status.
#[doc(hidden)]
#[macro_export]
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}
#[doc(hidden)]
#[macro_export]
macro_rules! errln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

pub mod asm;
pub mod cfg;
pub mod codec;
pub mod diff;
pub mod doc;
pub mod json;
pub mod listing;
pub mod lsp;
pub mod num;
pub mod run;
pub mod spec;
pub mod state_json;
pub mod text;
pub mod timeline;
pub mod trace;
