//! # isa: the typed API of the GPU instruction set
//!
//! Everything here is generated at build time by `isa-gen` from the ISA description
//! files in `isa-spec/`: an enum per bit-field type, newtypes for registers, immediates
//! and constant-memory references, a struct per opcode with `const fn encode`, the
//! [`Opcode`] and [`Instruction`] enums with an exact [`Instruction::decode`], operand
//! metadata ([`Opcode::info`]) and the registers each instruction reads and writes.
//!
//! ```
//! use isa::{Instruction, Pred, Reg, ShflMode, ShflRrr};
//!
//! let shfl = ShflRrr::new(
//!     Pred::new(1).unwrap(),
//!     Reg::new(1).unwrap(),
//!     Reg::new(0).unwrap(),
//!     Reg::new(2).unwrap(),
//!     Reg::new(3).unwrap(),
//!     ShflMode::Up,
//! );
//! let word = shfl.encode();
//! assert_eq!(Instruction::decode(word), Ok(Instruction::ShflRrr(shfl)));
//! ```
//!
//! The crate is `no_std`. Cargo features choose what is generated (all on by default):
//!
//! | feature | what it adds |
//! | --- | --- |
//! | `asm` | the text printer and assembler: `write_asm`, `Display`, `Instruction::parse` |
//! | `metadata` | operand metadata (`Opcode::info`, `reads`/`writes`, bit widths, `RegRef`) and the `backend` module (control flow, register operands, `CodeBuffer`) |
//! | `docs` | the spec's prose (descriptions, semantics, examples) as rustdoc |
//! | `inst` | `inst!` and `code!`, assembly checked at compile time (needs `metadata`; the one dependency, the `isa-macros` proc-macro) |
//!
//! Without them (`default-features = false`) the crate is the types, the opcode
//! structs with `encode`, and the decoder ([`Instruction::decode`], [`Decoded`]), with no
//! dependencies.
#![no_std]

// Lets `isa_macros::inst!`'s `::isa::` paths work inside this crate too.
extern crate self as isa;

/// The generated API; everything is re-exported at the crate root.
///
/// The spec's prose is kept verbatim as documentation, so rustdoc's link and HTML
/// checks, which it was not written for, are relaxed here.
#[allow(
    rustdoc::broken_intra_doc_links,
    rustdoc::invalid_html_tags,
    rustdoc::bare_urls,
    rustdoc::invalid_rust_codeblocks
)]
mod generated {
    include!(concat!(env!("OUT_DIR"), "/isa.rs"));
}

pub use generated::*;

/// The README's Rust examples, compiled and run by `cargo test --doc` (the README
/// stays the repository's front page; the crate docs above are the API's). They use
/// the assembler and `code!`, so they are tested with those features.
#[cfg(all(doctest, feature = "asm", feature = "inst"))]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
