//! Printing an instruction as assembly (see the rules in the module docs of `asm`), and
//! the code a written symbol sets in its sub-field.

use isa_rt::print::FormatOptions;

use super::Assembler;
use crate::model::interp::Decoded;
use crate::model::{Model, Opcode};

/// The code of a symbol sub-field when its symbol is written (see
/// [`crate::model::Type::symbol_codes`]).
pub(crate) fn set_code(model: &Model, op: &Opcode, sub: usize) -> u128 {
    model
        .ty(op.fields[sub].ty)
        .symbol_codes()
        .map_or(1, |c| c.1)
}

/// Prints `d`, located at `addr`, with the one printer (`isa_rt::print`) over the
/// model's tables.
pub(crate) fn print(a: &Assembler, d: &Decoded, addr: u64, opts: &FormatOptions) -> String {
    let mut out = String::new();
    let word = a.model.encode(d);
    // Writing to a `String` cannot fail.
    let _ = isa_rt::print::write_asm(&a.tables.tables(), d.opcode, word, addr, opts, &mut out);
    out
}
