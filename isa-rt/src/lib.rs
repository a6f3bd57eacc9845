//! The run-time engines of the ISA toolchain, shared by every crate generated from a
//! spec (`gpu-isa` for the bundled one, any crate using `isa-gen` or `include_isa!`)
//! and by the tools that read any spec at run time (`isa --spec`, the linter, the
//! language server). What is here knows nothing of a particular spec; generated code
//! calls it by path (`::isa_rt::…`), as prost-generated code calls `prost`, so a
//! spec's names never collide with it.
//!
//! - [`info`]: the static metadata of opcodes (fields, operands, flow, address and
//!   register operands), the schema of a generated crate's `OpcodeInfo`;
//! - [`backend`]: what compiler backends ask of an instruction, from that metadata
//!   and its word: control flow, address operands, register operands, a register
//!   rewrite;
//! - `buffer` (feature `regalloc`): the code buffer, with labels, relocations, virtual
//!   registers and their allocation, and the listing of placed code;
//! - [`decode`]: the decoder's tests of a word against an opcode's tables;
//! - [`lex`]: one line of assembly into guard, mnemonic parts and operand tokens;
//! - `asm` (feature `asm`): the assembler's matcher, a lexed line against the forms of
//!   its mnemonic (the opcodes as constants of a generated crate, or built at run
//!   time from a spec), and its errors;
//! - [`num`]: numbers written as the printers write them;
//! - [`suggest`]: did-you-mean suggestions for misspelt names;
//! - [`table`]: the table schema, what the engines read about a spec;
//! - [`print`]: the printer of instructions, from the tables;
//! - [`expr`]: expressions of field codes (`Bitwidth` entries) in the tables;
//! - `regalloc` (feature `regalloc`): register allocation over register tuples, with
//!   its checker.
//!
//! `no_std`, no dependencies. The feature `alloc` (on by default) adds what allocates:
//! [`table::TableBuf`], tables built at run time, and the printer's planner; the
//! features `regalloc` (on by default, with `alloc`) and `asm` (on by default) add
//! `regalloc` and `buffer` (the code buffer allocates registers), and `asm`, the
//! matcher. A crate generated from a
//! spec works with the version of this crate its generator was released with: use the
//! same version of `isa-gen`/`isa-macros` and `isa-rt`.

#![no_std]
#![warn(missing_docs)]

#[cfg(feature = "alloc")]
extern crate alloc;

#[cfg(feature = "asm")]
pub mod asm;
pub mod backend;
#[cfg(feature = "regalloc")]
pub mod buffer;
pub mod decode;
pub mod expr;
pub mod info;
pub mod lex;
pub mod num;
pub mod print;
#[cfg(feature = "regalloc")]
pub mod regalloc;
pub mod suggest;
pub mod table;
#[cfg(test)]
mod testisa;
