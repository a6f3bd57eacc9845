// Hand-written support for the generated printer, emitted verbatim into the generated
// code after `asm_runtime.rs` (see `codegen::asm_parse`) and compiled into isa-gen with
// it: the formatting options, and the choice of number writer (`isa_rt::num`). `no_std`,
// no allocation.

/// How [`Instruction::write_asm_with`] writes an instruction. [`FormatOptions::DEFAULT`]
/// is what `Display` writes: hex numbers, addresses as numbers, defaults left out.
#[derive(Clone, Copy)]
pub struct FormatOptions<'a> {
    /// Names addresses: an address operand whose address has a name prints as a label
    /// reference `` `(name) `` (what a disassembler does with a symbol table).
    pub symbols: Option<&'a dyn Fn(u64) -> Option<&'a str>>,
    /// Immediates in decimal (`-16`) instead of hex (`-0x10`).
    pub decimal: bool,
    /// Modifiers at their default value printed too.
    pub show_defaults: bool,
}

impl<'a> FormatOptions<'a> {
    /// Hex numbers, addresses as numbers, defaults left out.
    pub const DEFAULT: FormatOptions<'static> = FormatOptions::new();

    /// [`FormatOptions::DEFAULT`], for any lifetime.
    pub const fn new() -> FormatOptions<'a> {
        FormatOptions {
            symbols: None,
            decimal: false,
            show_defaults: false,
        }
    }
}

impl Default for FormatOptions<'_> {
    fn default() -> Self {
        FormatOptions::new()
    }
}

impl core::fmt::Debug for FormatOptions<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("FormatOptions")
            .field("symbols", &self.symbols.is_some())
            .field("decimal", &self.decimal)
            .field("show_defaults", &self.show_defaults)
            .finish()
    }
}

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
