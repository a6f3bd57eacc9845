// Hand-written support for the generated printer, emitted verbatim into the generated
// code after `asm_runtime.rs` (see `codegen::asm_parse`): the formatting options (the
// run-time crate's, which the interpreting tier's printer reads too), and the choice of
// number writer (`isa_rt::num`). `no_std`, no allocation.

/// How [`Instruction::write_asm_with`] writes an instruction; see
/// [`FormatOptions::DEFAULT`].
pub use ::isa_rt::print::FormatOptions;

/// An immediate as `o` says: hex or decimal.
// Unused when no opcode has an immediate operand.
#[allow(dead_code)]
fn write_num<W: core::fmt::Write>(w: &mut W, v: i128, o: &FormatOptions) -> core::fmt::Result {
    if o.decimal {
        ::isa_rt::num::write_dec(w, v)
    } else {
        ::isa_rt::num::write_hex(w, v)
    }
}

/// An address: its name when `o` has one for it, else the number.
// Unused when no opcode has an address operand.
#[allow(dead_code)]
fn write_addr<W: core::fmt::Write>(w: &mut W, a: i128, o: &FormatOptions) -> core::fmt::Result {
    match o.symbols.and_then(|f| f(a as u64)) {
        Some(name) => {
            w.write_str("`(")?;
            w.write_str(name)?;
            w.write_char(')')
        }
        None => write_num(w, a, o),
    }
}
