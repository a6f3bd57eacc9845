// Hand-written support for the generated printer, emitted verbatim into the generated
// code after `asm_runtime.rs` (see `codegen::asm_parse`) and compiled into isa-gen with
// it: the formatting options and the number writers. `no_std`, no allocation.

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
        write_dec(w, v)
    } else {
        write_hex(w, v)
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

/// Writes a signed value in hex (`0x1f`, `-0x1`), without the formatting machinery
/// (printing is on the disassembler's hot path).
pub(crate) fn write_hex<W: core::fmt::Write>(w: &mut W, v: i128) -> core::fmt::Result {
    let mut buf = [0u8; 36];
    let u = v.unsigned_abs();
    // Digits from the lowest, 64 bits at a time (immediates rarely need more).
    let (mut lo, mut hi) = (u as u64, (u >> 64) as u64);
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b"0123456789abcdef"[(lo & 15) as usize];
        lo >>= 4;
        if lo == 0 {
            if hi == 0 {
                break;
            }
            // Under a high half, the low one is 16 digits, zeros included.
            if i == buf.len() - 16 {
                (lo, hi) = (hi, 0);
            }
        }
    }
    i -= 2;
    buf[i] = b'0';
    buf[i + 1] = b'x';
    if v < 0 {
        i -= 1;
        buf[i] = b'-';
    }
    w.write_str(ascii(&buf[i..]))
}

/// Writes a signed value in decimal, as [`write_hex`] does in hex.
// Unused when nothing prints a register range or a decimal immediate.
#[allow(dead_code)]
pub(crate) fn write_dec<W: core::fmt::Write>(w: &mut W, v: i128) -> core::fmt::Result {
    let mut buf = [0u8; 40];
    let mut i = buf.len();
    let mut u = v.unsigned_abs();
    loop {
        i -= 1;
        buf[i] = b'0' + (u % 10) as u8;
        u /= 10;
        if u == 0 {
            break;
        }
    }
    if v < 0 {
        i -= 1;
        buf[i] = b'-';
    }
    w.write_str(ascii(&buf[i..]))
}

/// Digits and signs as text. Checking a few bytes as UTF-8 cost more than the rest of
/// writing the number.
fn ascii(digits: &[u8]) -> &str {
    debug_assert!(digits.is_ascii());
    // SAFETY: the callers write only ASCII digits, `x` and `-` into `digits`, and ASCII
    // is UTF-8.
    unsafe { core::str::from_utf8_unchecked(digits) }
}
