//! Printing an instruction as assembly (see the rules in the module docs of `asm`), and
//! the codes of sub-fields the parser shares.

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

/// The code of a symbol sub-field when its symbol is absent.
pub(crate) fn unset_code(model: &Model, op: &Opcode, sub: usize) -> u128 {
    model
        .ty(op.fields[sub].ty)
        .symbol_codes()
        .map_or(0, |c| c.0)
}

/// Whether a `CvtINegX` negation prints as `~` (its `ext` modifier is `X`).
pub(crate) fn neg_is_tilde(
    model: &Model,
    op: &Opcode,
    ext: Option<usize>,
    values: &[u128],
) -> bool {
    ext.is_some_and(|e| model.ty(op.fields[e].ty).enum_name(values[e]) == Some("X"))
}

/// Registers an operand of this width spans (32 bits each).
pub(crate) fn reg_count(op: &Opcode, field: usize, values: &[u128]) -> u128 {
    match op.bitwidth(field) {
        None => 1,
        Some(b) => isa_rt::print::registers(b.expr.eval(&|f| values[f])) as u128,
    }
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
