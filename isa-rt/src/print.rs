//! Printing an instruction as assembly, from the [`Tables`] of its spec: the one
//! printer, for every spec, whether its tables are generated statics or built at run
//! time.
//!
//! The rules (docs/architecture.md, "What an instruction is"): the guard as `@P0` or
//! `@!P0`, left out at its default unless negated; the mnemonic; the modifiers as
//! `.VALUE` in printing order, left out at their defaults; the operands, with prefix
//! sub-fields (`!`, then `-` or `~`, then `~`) and suffix sub-fields (`.VALUE`, left out
//! at their defaults); registers spanning several as ranges (`R[2:3]`); an optional
//! operand at its default left out unless the next printed operand could be read as it.
//!
//! A line is built in a buffer on the stack and handed to the writer in one piece (in
//! pieces only when it is longer than the buffer), as iced-x86's fast formatter does.

use core::fmt::{self, Write};

use crate::num::{dec_len, hex_len, put_dec, put_hex};
use crate::table::{Addr, Count, FieldRow, OperandKind, Str, SubRole, Tables, TypeKind, PAD};

/// How an instruction is written. [`FormatOptions::DEFAULT`] is what `Display` writes:
/// hex numbers, addresses as numbers, defaults left out.
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

    /// An immediate: hex or decimal.
    fn number(&self, w: &mut Line<'_, impl Write + ?Sized>, v: i128) -> fmt::Result {
        if self.decimal {
            w.dec(v)
        } else {
            w.hex(v)
        }
    }

    /// An address: its name when there is one, else the number.
    fn address(&self, w: &mut Line<'_, impl Write + ?Sized>, a: i128) -> fmt::Result {
        match self.symbols.and_then(|f| f(a as u64)) {
            Some(name) => {
                w.lit(b"`(")?;
                w.write_str(name)?;
                w.push(b')')
            }
            None => self.number(w, a),
        }
    }
}

impl Default for FormatOptions<'_> {
    fn default() -> Self {
        FormatOptions::new()
    }
}

impl fmt::Debug for FormatOptions<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FormatOptions")
            .field("symbols", &self.symbols.is_some())
            .field("decimal", &self.decimal)
            .field("show_defaults", &self.show_defaults)
            .finish()
    }
}

/// Writes instruction `word` of opcode `opcode` (a row of `t.opcodes`), located at
/// `addr` (branch targets print as absolute addresses), the way `o` says. `word` must
/// be an instruction of that opcode (a word that decodes as it); an opcode out of the
/// table writes nothing.
pub fn write_asm<W: Write + ?Sized>(
    t: &Tables,
    opcode: usize,
    word: u128,
    addr: u64,
    o: &FormatOptions,
    w: &mut W,
) -> fmt::Result {
    let Some(op) = t.opcodes.get(opcode) else {
        return Ok(());
    };
    let p = Printer {
        t,
        fields: op.fields.of(t.fields),
        word,
        addr,
        o,
    };
    let mut line = Line {
        w,
        buf: [0; LINE + PAD],
        len: 0,
    };
    p.write(op, &mut line)?;
    line.flush()
}

/// One instruction being printed.
struct Printer<'p, 't, 'o> {
    t: &'p Tables<'t>,
    fields: &'p [FieldRow],
    word: u128,
    addr: u64,
    o: &'p FormatOptions<'o>,
}

/// A field that is not in the table: no bits, no default, no type.
const NO_FIELD: FieldRow = FieldRow {
    at: crate::table::At {
        start: 128,
        mask: 0,
    },
    ty: u32::MAX,
    default: None,
    names: crate::table::Run { at: 0, len: 0 },
};

impl<'t> Printer<'_, 't, '_> {
    #[inline]
    fn field(&self, f: u16) -> &FieldRow {
        self.fields.get(f as usize).unwrap_or(&NO_FIELD)
    }

    #[inline]
    fn code(&self, f: u16) -> u128 {
        self.field(f).at.get(self.word)
    }

    #[inline]
    fn at_default(&self, f: u16) -> bool {
        let r = self.field(f);
        r.default == Some(r.at.get(self.word))
    }

    #[inline]
    fn kind(&self, r: &FieldRow) -> Option<&'t TypeKind> {
        self.t.types.get(r.ty as usize).map(|t| &t.kind)
    }

    fn write(
        &self,
        op: &crate::table::OpcodeRow,
        w: &mut Line<'_, impl Write + ?Sized>,
    ) -> fmt::Result {
        let t = self.t;
        if let Some(g) = op.guard {
            let negated = g.not.is_some_and(|(s, set)| self.code(s) == set);
            if !self.at_default(g.field) || negated {
                w.push(b'@')?;
                if negated {
                    w.push(b'!')?;
                }
                self.value(w, self.field(g.field))?;
                w.push(b' ')?;
            }
        }
        w.text(t, op.mnemonic)?;
        for &m in op.mods.of(t.indices) {
            let r = self.field(m);
            let code = r.at.get(self.word);
            if self.o.show_defaults || r.default != Some(code) {
                w.push(b'.')?;
                self.name(w, r, code)?;
            }
        }

        // Which optional operands print, decided from the last operand back: one at its
        // defaults is left out unless the operand printed after it could be read as it
        // (and enough operands follow). Bit `i` of `shown`: the `i`-th optional operand
        // from the last (at most 128: each is a field of its own).
        let ops = op.operands.of(t.operands);
        let mut shown = 0u128;
        let mut optional = 0u32;
        if op.optional {
            let (mut after, mut next) = (0usize, usize::MAX);
            for (k, r) in ops.iter().enumerate().rev() {
                let show = match self.optional(r) {
                    None => true,
                    Some(f) => {
                        let show = !self.at_default(f)
                            || r.subs.of(t.subs).iter().any(|s| !self.at_default(s.field))
                            || (after > r.required_after as usize
                                && r.readers.of(t.indices).iter().any(|&j| j as usize == next));
                        if optional < 128 && show {
                            shown |= 1 << optional;
                        }
                        optional += 1;
                        show
                    }
                };
                if show {
                    after += 1;
                    next = k;
                }
            }
        }
        let mut sep = false;
        for r in ops {
            if op.optional && self.optional(r).is_some() {
                optional -= 1;
                if optional < 128 && shown >> optional & 1 == 0 {
                    continue;
                }
            }
            if sep {
                w.lit(b", ")?;
            } else {
                w.push(b' ')?;
            }
            sep = true;
            self.operand(w, r)?;
        }
        Ok(())
    }

    /// The field of an operand that may be left out (a field with a default).
    #[inline]
    fn optional(&self, r: &crate::table::OperandRow) -> Option<u16> {
        match r.kind {
            OperandKind::Field(f) if self.field(f).default.is_some() => Some(f),
            _ => None,
        }
    }

    /// The value of a field by name (see [`Printer::name`]).
    #[inline]
    fn value(&self, w: &mut Line<'_, impl Write + ?Sized>, r: &FieldRow) -> fmt::Result {
        self.name(w, r, r.at.get(self.word))
    }

    /// Code `code` of field `r`'s type by name: a register's or an enum value's (`0x…`
    /// for a register code without a name, `?` for an enum code without one).
    #[inline(always)]
    fn name(&self, w: &mut Line<'_, impl Write + ?Sized>, r: &FieldRow, code: u128) -> fmt::Result {
        // The type's dense names, which the field's row carries (most names are there:
        // this much is inline), then the rest.
        let dense = usize::try_from(code).ok();
        match dense.and_then(|c| r.names.of(self.t.names).get(c)) {
            Some(s) if s.len > 0 => w.text(self.t, *s),
            Some(_) => self.unnamed(w, r, code),
            None => self.past_dense(w, r, code),
        }
    }

    /// A code past the type's dense names: its sparse name, if it has one.
    #[inline(never)]
    fn past_dense(
        &self,
        w: &mut Line<'_, impl Write + ?Sized>,
        r: &FieldRow,
        code: u128,
    ) -> fmt::Result {
        match self.t.sparse_name(r.ty, code) {
            Some(s) => w.text(self.t, s),
            None => self.unnamed(w, r, code),
        }
    }

    /// A code without a name: a numbered register as `R12`, another register code in
    /// hex, anything else as `?`.
    #[inline(never)]
    fn unnamed(
        &self,
        w: &mut Line<'_, impl Write + ?Sized>,
        r: &FieldRow,
        code: u128,
    ) -> fmt::Result {
        match self.kind(r) {
            Some(&TypeKind::Reg { prefix, lo, hi }) if (lo..=hi).contains(&code) => {
                w.text(self.t, prefix)?;
                w.dec(code as i128)
            }
            Some(&TypeKind::Reg { .. }) => w.hex(code as i128),
            _ => w.push(b'?'),
        }
    }

    /// Field `r` as a number: sign-extended when its type is signed.
    fn number(&self, r: &FieldRow) -> i128 {
        let code = r.at.get(self.word);
        match self.kind(r) {
            Some(&TypeKind::Imm {
                signed: true,
                width,
            }) => sign_extend(code, width),
            _ => code as i128,
        }
    }

    fn operand(
        &self,
        w: &mut Line<'_, impl Write + ?Sized>,
        r: &crate::table::OperandRow,
    ) -> fmt::Result {
        let subs = r.subs.of(self.t.subs);
        // Prefixes, in the order of the rows (`!`, then `-`/`~`, then `~`: the order
        // `SubRole::rank` gives, which the tables keep).
        for s in subs {
            if s.role == SubRole::Suffix || self.code(s.field) != s.set {
                continue;
            }
            w.push(match s.role {
                SubRole::Not => b'!',
                SubRole::Neg { ext: Some((e, x)) } if self.code(e) == x => b'~',
                SubRole::Neg { .. } => b'-',
                SubRole::BitNot | SubRole::Suffix => b'~',
            })?;
        }
        match r.kind {
            OperandKind::Field(f) => {
                let fr = self.field(f);
                let code = fr.at.get(self.word);
                match self.kind(fr) {
                    Some(&TypeKind::Reg { prefix, lo, hi }) => {
                        let count = self.count(r.count);
                        if count > 1 && (lo..=hi).contains(&code) {
                            w.text(self.t, prefix)?;
                            w.push(b'[')?;
                            w.dec(code as i128)?;
                            w.push(b':')?;
                            w.dec((code as i128).saturating_add(count - 1))?;
                            w.push(b']')?;
                        } else {
                            self.name(w, fr, code)?;
                        }
                    }
                    Some(&TypeKind::Imm { .. }) => {
                        let v = self.number(fr);
                        let o = self.o;
                        let rel = |shift: u8| {
                            (self.addr as i128)
                                .wrapping_add(16)
                                .wrapping_add(v.wrapping_shl(shift as u32))
                        };
                        match r.addr {
                            Addr::None => o.number(w, v)?,
                            Addr::Number(s) => o.number(w, v.wrapping_shl(s as u32))?,
                            Addr::Absolute(s) => o.address(w, v.wrapping_shl(s as u32))?,
                            Addr::Relative(s) => o.address(w, rel(s))?,
                            Addr::Select { field, code, shift } => {
                                if self.code(field) == code {
                                    o.address(w, v.wrapping_shl(shift as u32))?
                                } else {
                                    o.address(w, rel(shift))?
                                }
                            }
                        }
                    }
                    Some(&TypeKind::CMem { .. }) => self.cmem(w, fr, None)?,
                    Some(&TypeKind::Enum) | None => self.name(w, fr, code)?,
                }
            }
            OperandKind::CMemIndexed { mem, reg } => {
                self.cmem(w, self.field(mem), Some(self.field(reg)))?
            }
            OperandKind::RegIndexed {
                prefix,
                reg,
                offset,
            } => {
                w.text(self.t, prefix)?;
                w.push(b'[')?;
                self.value(w, self.field(reg))?;
                signed_offset(w, self.number(self.field(offset)))?;
                w.push(b']')?;
            }
            OperandKind::Word(s) => w.text(self.t, s)?,
        }
        for s in subs {
            if s.role == SubRole::Suffix {
                let r = self.field(s.field);
                let code = r.at.get(self.word);
                if r.default != Some(code) {
                    w.push(b'.')?;
                    self.name(w, r, code)?;
                }
            }
        }
        Ok(())
    }

    /// `c[bank][offset]`, or `c[bank][reg±offset]` when `reg` holds a numbered register.
    fn cmem(
        &self,
        w: &mut Line<'_, impl Write + ?Sized>,
        f: &FieldRow,
        reg: Option<&FieldRow>,
    ) -> fmt::Result {
        let code = f.at.get(self.word);
        let (bits, signed) = match self.kind(f) {
            Some(&TypeKind::CMem {
                offset_bits,
                signed,
            }) => (offset_bits, signed),
            _ => (0, false),
        };
        let (bank, raw) = match 1u128.checked_shl(bits as u32) {
            Some(b) => (code >> bits, code & (b - 1)),
            None => (0, code),
        };
        let off = if signed {
            sign_extend(raw, bits)
        } else {
            raw as i128
        };
        w.lit(b"c[")?;
        w.hex(bank as i128)?;
        w.lit(b"][")?;
        match reg {
            Some(reg) if self.numbered(reg) => {
                self.value(w, reg)?;
                signed_offset(w, off)?;
            }
            _ => w.hex(off)?,
        }
        w.push(b']')
    }

    /// Whether register field `r` holds a numbered register (not a constant one).
    fn numbered(&self, r: &FieldRow) -> bool {
        match self.kind(r) {
            Some(&TypeKind::Reg { lo, hi, .. }) => (lo..=hi).contains(&r.at.get(self.word)),
            _ => false,
        }
    }

    /// How many registers an operand spans.
    #[inline]
    fn count(&self, c: Count) -> i128 {
        let bits = match c {
            Count::Fixed(n) => return n.max(1) as i128,
            Count::Lookup { field, counts } => {
                let code = self.code(field);
                let n = usize::try_from(code).ok();
                return match n.and_then(|c| counts.of(self.t.indices).get(c)) {
                    Some(&n) => n.max(1) as i128,
                    None => 1,
                };
            }
            Count::Bits(run) => crate::expr::eval(run.of(self.t.exprs), &|f| self.code(f)),
        };
        registers(bits) as i128
    }
}

/// How many 32-bit registers an operand of `bits` bits spans (at least 1; the width is
/// read as 1 to 1024 bits).
pub fn registers(bits: i128) -> u32 {
    (bits.clamp(1, 1024) as u32).div_ceil(32)
}

/// `+0x4`, `-0x4`, or nothing for 0.
fn signed_offset(w: &mut Line<'_, impl Write + ?Sized>, off: i128) -> fmt::Result {
    if off > 0 {
        w.push(b'+')?;
    }
    if off != 0 {
        w.hex(off)?;
    }
    Ok(())
}

/// The low `width` bits of `code`, two's complement.
fn sign_extend(code: u128, width: u8) -> i128 {
    if width == 0 || width >= 128 {
        return code as i128;
    }
    let shift = 128 - width as u32;
    ((code << shift) as i128) >> shift
}

/// The line buffer's size: most lines fit (longer ones are written in pieces).
const LINE: usize = 128;

/// A line being written: pieces gathered on the stack, handed on in one `write_str`
/// (in pieces only when it is longer than the buffer). Each piece first makes room for
/// itself ([`Line::room`]), then is written in place: texts of the tables as 16-byte
/// blocks (the tables' padding makes them readable, the buffer's slack writable),
/// numbers digit by digit.
struct Line<'w, W: Write + ?Sized> {
    w: &'w mut W,
    buf: [u8; LINE + PAD],
    len: usize,
}

impl<W: Write + ?Sized> Line<'_, W> {
    fn flush(&mut self) -> fmt::Result {
        // Checked: the tables' texts are ranges of one `str`, and a range that splits
        // a character (tables not built by this crate's builders) must not make a
        // `str` that is not one.
        let s = core::str::from_utf8(&self.buf[..self.len]).map_err(|_| fmt::Error)?;
        self.w.write_str(s)?;
        self.len = 0;
        Ok(())
    }

    /// Makes room for `n` more bytes: the line so far goes to the writer when they
    /// would pass the buffer's end. Whether `n` bytes fit an empty buffer is the
    /// caller's question.
    #[inline(always)]
    fn room(&mut self, n: usize) -> fmt::Result {
        if self.len + n > LINE {
            self.spill()?;
        }
        Ok(())
    }

    /// [`Line::flush`] where a line passes the buffer (rare: out of the hot path).
    #[cold]
    #[inline(never)]
    fn spill(&mut self) -> fmt::Result {
        self.flush()
    }

    /// A few ASCII bytes.
    #[inline(always)]
    fn lit<const N: usize>(&mut self, b: &[u8; N]) -> fmt::Result {
        self.room(N)?;
        let dst = self.buf.get_mut(self.len..self.len + N).ok_or(fmt::Error)?;
        dst.copy_from_slice(b);
        self.len += N;
        Ok(())
    }

    /// One ASCII byte.
    #[inline(always)]
    fn push(&mut self, b: u8) -> fmt::Result {
        self.room(1)?;
        self.buf[self.len] = b;
        self.len += 1;
        Ok(())
    }

    /// Text `s` of the tables, copied in 16-byte blocks (at least one).
    #[inline(always)]
    fn text(&mut self, t: &Tables, s: Str) -> fmt::Result {
        let (at, len) = (s.at as usize, s.len as usize);
        let src = t.text.as_bytes().get(at..).unwrap_or(&[]);
        if len > LINE {
            return self.long(src.get(..len));
        }
        self.room(len)?;
        // Whole blocks: `len` rounded up stays within the padding of the text and the
        // buffer's slack past `LINE`.
        let mut k = 0;
        loop {
            let block = src.get(k..k + PAD).ok_or(fmt::Error)?;
            let dst = self.buf.get_mut(self.len + k..self.len + k + PAD);
            dst.ok_or(fmt::Error)?.copy_from_slice(block);
            k += PAD;
            if k >= len {
                break;
            }
        }
        self.len += len;
        Ok(())
    }

    /// A text longer than the buffer: the line so far, then the text, to the writer.
    #[cold]
    #[inline(never)]
    fn long(&mut self, text: Option<&[u8]>) -> fmt::Result {
        let text = text.ok_or(fmt::Error)?;
        self.flush()?;
        self.w
            .write_str(core::str::from_utf8(text).map_err(|_| fmt::Error)?)
    }

    /// A number of `n` bytes, written in place by `put`.
    #[inline(always)]
    fn number(&mut self, n: usize, put: impl FnOnce(&mut [u8])) -> fmt::Result {
        self.room(n)?;
        put(&mut self.buf[self.len..][..n]);
        self.len += n;
        Ok(())
    }

    /// `v` in hex.
    #[inline]
    fn hex(&mut self, v: i128) -> fmt::Result {
        self.number(hex_len(v), |out| put_hex(out, v))
    }

    /// `v` in decimal.
    #[inline]
    fn dec(&mut self, v: i128) -> fmt::Result {
        self.number(dec_len(v), |out| put_dec(out, v))
    }
}

impl<W: Write + ?Sized> Write for Line<'_, W> {
    /// Text from outside the tables (a symbol's name), copied exactly.
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let b = s.as_bytes();
        if b.len() > LINE {
            self.flush()?;
            return self.w.write_str(s);
        }
        self.room(b.len())?;
        self.buf[self.len..][..b.len()].copy_from_slice(b);
        self.len += b.len();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    extern crate alloc;
    extern crate std;
    use alloc::string::String;
    use alloc::vec::Vec;

    use super::*;
    use crate::expr::{BinOp, Op};
    use crate::table::*;

    /// A two-opcode spec, its tables built by hand.
    struct Spec {
        text: String,
        names: Vec<Str>,
    }

    impl Spec {
        fn s(&mut self, t: &str) -> Str {
            let at = self.text.len() as u32;
            self.text.push_str(t);
            Str {
                at,
                len: t.len() as u32,
            }
        }
        /// A dense name list: `names[code]`.
        fn list(&mut self, names: &[&str]) -> Run {
            let at = self.names.len() as u32;
            for n in names {
                let s = self.s(n);
                self.names.push(s);
            }
            Run {
                at,
                len: names.len() as u32,
            }
        }
    }

    fn at(start: u8, width: u8) -> At {
        At::new(start, width)
    }

    fn field(start: u8, width: u8, ty: u32, default: Option<u128>) -> FieldRow {
        FieldRow {
            at: at(start, width),
            ty,
            default,
            names: Run::default(),
        }
    }

    fn print(word: u128, opcode: usize, addr: u64, o: &FormatOptions) -> String {
        let mut sp = Spec {
            text: String::new(),
            names: Vec::new(),
        };
        let iadd = sp.s("IADD");
        let sel = sp.s("SEL");
        let jmp = sp.s("JMP");
        let selx = sp.s("SELX");
        let ldc = sp.s("LDC");
        let r = sp.s("R");
        let ur = sp.s("UR");
        let upr = sp.s("UPR");
        let mut regs: Vec<String> = (0..255).map(|i| alloc::format!("R{i}")).collect();
        regs.push("RZ".into());
        let regs: Vec<&str> = regs.iter().map(String::as_str).collect();
        let reg_names = sp.list(&regs);
        let pred_names = sp.list(&["P0", "P1", "P2", "P3", "P4", "P5", "P6", "PT"]);
        let wide_names = sp.list(&["W32", "W64"]);
        let x_names = sp.list(&["NoX", "X"]);
        let bool_names = sp.list(&["False", "True"]);
        let cc_names = sp.list(&["A", "", "C"]);
        // Types: 0 Reg, 1 Pred, 2 SImm16, 3 Wide, 4 Ext, 5 Bool, 6 CMem (16-bit signed
        // offset), 7 UReg (wide: no dense names), 8 SImm8, 9 CC (code 1 unnamed).
        let types = [
            TypeRow {
                kind: TypeKind::Reg {
                    prefix: r,
                    lo: 0,
                    hi: 254,
                },
                dense: reg_names,
                named: Run::default(),
            },
            TypeRow {
                kind: TypeKind::Reg {
                    prefix: sp.s("P"),
                    lo: 0,
                    hi: 6,
                },
                dense: pred_names,
                named: Run::default(),
            },
            TypeRow {
                kind: TypeKind::Imm {
                    signed: true,
                    width: 16,
                },
                dense: Run::default(),
                named: Run::default(),
            },
            TypeRow {
                kind: TypeKind::Enum,
                dense: wide_names,
                named: Run::default(),
            },
            TypeRow {
                kind: TypeKind::Enum,
                dense: x_names,
                named: Run::default(),
            },
            TypeRow {
                kind: TypeKind::Enum,
                dense: bool_names,
                named: Run::default(),
            },
            TypeRow {
                kind: TypeKind::CMem {
                    offset_bits: 16,
                    signed: true,
                },
                dense: Run::default(),
                named: Run { at: 0, len: 0 },
            },
            TypeRow {
                kind: TypeKind::Reg {
                    prefix: ur,
                    lo: 0,
                    hi: 62,
                },
                dense: Run::default(),
                named: Run { at: 0, len: 1 },
            },
            TypeRow {
                kind: TypeKind::Imm {
                    signed: true,
                    width: 8,
                },
                dense: Run::default(),
                named: Run::default(),
            },
            TypeRow {
                kind: TypeKind::Enum,
                dense: cc_names,
                named: Run::default(),
            },
        ];
        let urz = sp.s("URZ");
        let named = [(63u128, urz)];
        // Each field row carries its type's dense names, as the builders make them.
        let field = |start: u8, width: u8, ty: u32, default: Option<u128>| FieldRow {
            names: types[ty as usize].dense,
            ..field(start, width, ty, default)
        };
        let fields = [
            // IADD
            field(12, 3, 1, Some(7)), // 0 pg
            field(15, 1, 5, Some(0)), // 1 pg.not
            field(16, 8, 0, None),    // 2 rd
            field(24, 8, 0, None),    // 3 ra
            field(32, 1, 5, Some(0)), // 4 ra.neg
            field(40, 16, 2, None),   // 5 imm
            field(56, 1, 3, Some(0)), // 6 wide
            field(60, 3, 1, Some(7)), // 7 pp
            field(64, 1, 4, Some(0)), // 8 ext
            field(65, 1, 4, Some(0)), // 9 rd.x (a suffix)
            field(66, 1, 5, Some(0)), // 10 pp.not
            field(67, 1, 5, Some(0)), // 11 ra.bitnot
            field(68, 2, 9, Some(0)), // 12 cc (a code without a name)
            // LDC
            field(16, 8, 0, None),  // 0 rd (LDC's fields from 13)
            field(24, 32, 6, None), // 1 c[..][..]
            field(56, 8, 0, None),  // 2 index register
            field(64, 7, 7, None),  // 3 ur (7 bits: codes past URZ unnamed)
            field(72, 8, 8, None),  // 4 offset
        ];
        let subs = [
            SubRow {
                field: 9,
                role: SubRole::Suffix,
                set: 1,
            },
            SubRow {
                field: 4,
                role: SubRole::Neg { ext: Some((8, 1)) },
                set: 1,
            },
            SubRow {
                field: 11,
                role: SubRole::BitNot,
                set: 1,
            },
            SubRow {
                field: 10,
                role: SubRole::Not,
                set: 1,
            },
        ];
        // rd spans 32 + (wide == 1) * 32 bits.
        let exprs = [
            Op::Int(32),
            Op::Field(6),
            Op::Int(1),
            Op::Bin(BinOp::Eq),
            Op::Int(32),
            Op::Bin(BinOp::Mul),
            Op::Bin(BinOp::Add),
        ];
        let operand = |kind, subs: Run, count, addr| OperandRow {
            kind,
            subs,
            count,
            addr,
            required_after: 0,
            readers: Run::default(),
        };
        let none = Run::default();
        let operands = [
            operand(
                OperandKind::Field(2),
                Run { at: 0, len: 1 },
                Count::Bits(Run { at: 0, len: 7 }),
                Addr::None,
            ),
            operand(
                OperandKind::Field(3),
                Run { at: 1, len: 2 },
                Count::Fixed(1),
                Addr::None,
            ),
            operand(
                OperandKind::Field(5),
                none,
                Count::Fixed(1),
                Addr::Relative(4),
            ),
            operand(
                OperandKind::Field(7),
                Run { at: 3, len: 1 },
                Count::Fixed(1),
                Addr::None,
            ),
            // LDC rd, c[bank][reg+off], UR[ur+off], UPR
            operand(OperandKind::Field(0), none, Count::Fixed(1), Addr::None),
            operand(
                OperandKind::CMemIndexed { mem: 1, reg: 2 },
                none,
                Count::Fixed(1),
                Addr::None,
            ),
            operand(
                OperandKind::RegIndexed {
                    prefix: ur,
                    reg: 3,
                    offset: 4,
                },
                none,
                Count::Fixed(1),
                Addr::None,
            ),
            operand(OperandKind::Word(upr), none, Count::Fixed(1), Addr::None),
            // SEL [pp], [pg], ra: pp could be read as pg (or as ra, which follows as
            // the one required operand: no reason to print pp).
            OperandRow {
                required_after: 1,
                readers: Run { at: 2, len: 2 },
                ..operand(
                    OperandKind::Field(7),
                    Run { at: 3, len: 1 },
                    Count::Fixed(1),
                    Addr::None,
                )
            },
            OperandRow {
                required_after: 1,
                ..operand(OperandKind::Field(0), none, Count::Fixed(1), Addr::None)
            },
            operand(OperandKind::Field(3), none, Count::Fixed(1), Addr::None),
            // JMP.cc target, absolute, number: the modes of an address.
            operand(
                OperandKind::Field(5),
                none,
                Count::Fixed(1),
                Addr::Select {
                    field: 6,
                    code: 1,
                    shift: 4,
                },
            ),
            operand(
                OperandKind::Field(5),
                none,
                Count::Fixed(1),
                Addr::Absolute(2),
            ),
            operand(
                OperandKind::Field(5),
                none,
                Count::Fixed(1),
                Addr::Number(0),
            ),
            // SELX [pp], [pg], ra: pp could be read as ra only.
            OperandRow {
                required_after: 1,
                readers: Run { at: 3, len: 1 },
                ..operand(OperandKind::Field(7), none, Count::Fixed(1), Addr::None)
            },
            OperandRow {
                required_after: 1,
                ..operand(OperandKind::Field(0), none, Count::Fixed(1), Addr::None)
            },
            operand(OperandKind::Field(3), none, Count::Fixed(1), Addr::None),
        ];
        let indices = [6u16, 8, 1, 2, 12];
        let opcodes = [
            OpcodeRow {
                mnemonic: iadd,
                fields: Run { at: 0, len: 13 },
                guard: Some(Guard {
                    field: 0,
                    not: Some((1, 1)),
                }),
                mods: Run { at: 0, len: 2 },
                operands: Run { at: 0, len: 4 },
                optional: true,
            },
            OpcodeRow {
                mnemonic: ldc,
                fields: Run { at: 13, len: 5 },
                guard: None,
                mods: Run::default(),
                operands: Run { at: 4, len: 4 },
                optional: false,
            },
            OpcodeRow {
                mnemonic: sel,
                fields: Run { at: 0, len: 13 },
                guard: None,
                mods: Run::default(),
                operands: Run { at: 8, len: 3 },
                optional: true,
            },
            OpcodeRow {
                mnemonic: selx,
                fields: Run { at: 0, len: 13 },
                guard: None,
                mods: Run::default(),
                operands: Run { at: 14, len: 3 },
                optional: true,
            },
            OpcodeRow {
                mnemonic: jmp,
                fields: Run { at: 0, len: 13 },
                guard: None,
                mods: Run { at: 4, len: 1 },
                operands: Run { at: 11, len: 3 },
                optional: false,
            },
        ];
        sp.text.push_str(PADDING);
        let t = Tables {
            text: &sp.text,
            opcodes: &opcodes,
            fields: &fields,
            types: &types,
            names: &sp.names,
            named: &named,
            operands: &operands,
            subs: &subs,
            indices: &indices,
            exprs: &exprs,
        };
        let mut out = String::new();
        write_asm(&t, opcode, word, addr, o, &mut out).unwrap();
        out
    }

    /// An IADD word: guard PT, the given registers and offset, everything else 0.
    fn iadd(rd: u128, ra: u128, imm: u128) -> u128 {
        7 << 12 | rd << 16 | ra << 24 | (imm & 0xffff) << 40 | 7 << 60
    }

    const D: FormatOptions<'static> = FormatOptions::DEFAULT;

    /// The padding that follows the tables' text.
    const PADDING: &str = "                ";

    #[test]
    fn defaults_are_left_out_and_the_rest_printed() {
        assert_eq!(print(iadd(2, 3, 1), 0, 0x100, &D), "IADD R2, R3, 0x120");
        // A negative branch offset, counted from the next instruction.
        assert_eq!(print(iadd(2, 3, 0xfffe), 0, 0x100, &D), "IADD R2, R3, 0xf0");
        // The guard, negated, and an optional predicate not at its default.
        let w = iadd(2, 3, 1) & !(7 << 12 | 7 << 60) | 1 << 15 | 2 << 60;
        assert_eq!(print(w, 0, 0, &D), "@!P0 IADD R2, R3, 0x20, P2");
        // A guard at its default but negated still prints.
        assert_eq!(
            print(iadd(2, 3, 1) | 1 << 15, 0, 0, &D),
            "@!PT IADD R2, R3, 0x20"
        );
    }

    #[test]
    fn an_operand_at_its_default_prints_when_the_next_could_be_read_as_it() {
        let sel = |pp: u128, pg: u128| print(pp << 60 | pg << 12 | 3 << 24, 2, 0, &D);
        assert_eq!(sel(7, 7), "SEL R3");
        assert_eq!(sel(1, 7), "SEL P1, R3");
        // `SEL P2, R3` would read P2 as pp: pp prints, though at its default.
        assert_eq!(sel(7, 2), "SEL PT, P2, R3");
        assert_eq!(sel(1, 2), "SEL P1, P2, R3");
        // Where pp could not be read as the operand that follows, it is left out.
        let selx = |pp: u128, pg: u128| print(pp << 60 | pg << 12 | 3 << 24, 3, 0, &D);
        assert_eq!(selx(7, 2), "SELX P2, R3");
        assert_eq!(selx(7, 7), "SELX R3");
    }

    /// A writer that counts the pieces it is handed.
    #[derive(Default)]
    struct Pieces {
        text: String,
        writes: usize,
    }

    impl Write for Pieces {
        fn write_str(&mut self, s: &str) -> fmt::Result {
            self.text.push_str(s);
            self.writes += 1;
            Ok(())
        }
    }

    /// Prints `MNEMONIC 0x12` with options `o`, where the mnemonic is the first `len`
    /// bytes of `text` and `0x12` an absolute address (which a symbol may name).
    fn one_address(text: &str, len: u32, o: &FormatOptions) -> Pieces {
        let t = Tables {
            text,
            opcodes: &[OpcodeRow {
                mnemonic: Str { at: 0, len },
                fields: Run { at: 0, len: 1 },
                guard: None,
                mods: Run::default(),
                operands: Run { at: 0, len: 1 },
                optional: false,
            }],
            fields: &[field(0, 16, 0, None)],
            types: &[TypeRow {
                kind: TypeKind::Imm {
                    signed: false,
                    width: 16,
                },
                dense: Run::default(),
                named: Run::default(),
            }],
            names: &[],
            named: &[],
            operands: &[OperandRow {
                kind: OperandKind::Field(0),
                subs: Run::default(),
                count: Count::Fixed(1),
                addr: Addr::Absolute(0),
                required_after: 0,
                readers: Run::default(),
            }],
            subs: &[],
            indices: &[],
            exprs: &[],
        };
        let mut w = Pieces::default();
        write_asm(&t, 0, 0x12, 0, o, &mut w).unwrap();
        w
    }

    #[test]
    fn a_line_is_handed_on_in_one_piece_unless_it_is_longer_than_the_buffer() {
        let text = alloc::format!("X{PADDING}");
        let w = one_address(&text, 1, &D);
        assert_eq!((w.text.as_str(), w.writes), ("X 0x12", 1));
        // Names of every length up to past the buffer: the same text, in one piece
        // while it fits.
        for n in [100, 120, 121, 122, 123, 124, 125, 126, 127, 200, 300] {
            let name: String = core::iter::repeat_n('n', n).collect();
            let sym = |a: u64| (a == 0x12).then_some(name.as_str());
            let o = FormatOptions {
                symbols: Some(&sym),
                ..D
            };
            let w = one_address(&text, 1, &o);
            assert_eq!(w.text, alloc::format!("X `({name})"));
            let len = w.text.len();
            assert_eq!(
                w.writes == 1,
                len <= 128,
                "{len} bytes in {} pieces",
                w.writes
            );
        }
    }

    #[test]
    fn texts_of_every_length_print_whole() {
        // Mnemonics of every length around the 16-byte blocks and past the buffer, in
        // a text where other text follows them (a block copy reads past a text's end).
        for n in (0..=40).chain([127, 128, 129, 200]) {
            let name: String = (0..n).map(|k| (b'A' + (k % 26) as u8) as char).collect();
            let text = alloc::format!("{name}ZZZZ{PADDING}");
            let w = one_address(&text, n, &D);
            assert_eq!(w.text, alloc::format!("{name} 0x12"), "{n} bytes");
            assert_eq!(
                w.writes == 1,
                n + 5 <= 128,
                "{n} bytes in {} pieces",
                w.writes
            );
        }
    }

    #[test]
    fn an_operand_at_its_default_prints_when_a_sub_field_is_not() {
        // pp at PT but negated.
        let w = 7 << 60 | 1 << 66 | 7 << 12 | 3 << 24;
        assert_eq!(print(w, 2, 0, &D), "SEL !PT, R3");
    }

    #[test]
    fn address_modes_and_unnamed_codes() {
        let jmp = |imm: u128, wide: u128, cc: u128, o: &FormatOptions| {
            print(imm << 40 | wide << 56 | cc << 68, 4, 0x100, o)
        };
        assert_eq!(jmp(1, 0, 0, &D), "JMP 0x120, 0x4, 0x1");
        // The mode field makes the target absolute.
        assert_eq!(jmp(1, 1, 2, &D), "JMP.C 0x10, 0x4, 0x1");
        // A number is never named; addresses are.
        let sym = |a: u64| match a {
            0x120 => Some("T"),
            0x4 => Some("A"),
            0x1 => Some("N"),
            _ => None,
        };
        let symbols = FormatOptions {
            symbols: Some(&sym),
            ..D
        };
        assert_eq!(jmp(1, 0, 0, &symbols), "JMP `(T), `(A), 0x1");
        // An enum code without a name.
        assert_eq!(jmp(1, 0, 1, &D), "JMP.? 0x120, 0x4, 0x1");
    }

    #[test]
    fn format_options_debug_shows_whether_there_are_symbols() {
        let sym = |_: u64| None;
        let o = FormatOptions {
            symbols: Some(&sym),
            decimal: true,
            ..D
        };
        assert_eq!(
            alloc::format!("{o:?}"),
            "FormatOptions { symbols: true, decimal: true, show_defaults: false }"
        );
    }

    #[test]
    fn widths_ranges_prefixes_and_suffixes() {
        // .W64 makes rd a pair; the constant register stays plain.
        assert_eq!(
            print(iadd(2, 3, 1) | 1 << 56, 0, 0, &D),
            "IADD.W64 R[2:3], R3, 0x20"
        );
        assert_eq!(
            print(iadd(255, 3, 1) | 1 << 56, 0, 0, &D),
            "IADD.W64 RZ, R3, 0x20"
        );
        // ra.neg is `-`, `~` under .X; rd's suffix sub-field prints after it.
        assert_eq!(
            print(iadd(2, 3, 1) | 1 << 32, 0, 0, &D),
            "IADD R2, -R3, 0x20"
        );
        assert_eq!(
            print(iadd(2, 3, 1) | 1 << 32 | 1 << 64 | 1 << 65, 0, 0, &D),
            "IADD.X R2.X, ~R3, 0x20"
        );
        // Prefixes in their order (`-` before `~`), a negated optional operand.
        assert_eq!(
            print(iadd(2, 3, 1) | 1 << 32 | 1 << 67, 0, 0, &D),
            "IADD R2, -~R3, 0x20"
        );
        let w = iadd(2, 3, 1) & !(7 << 60) | 2 << 60 | 1 << 66;
        assert_eq!(print(w, 0, 0, &D), "IADD R2, R3, 0x20, !P2");
    }

    #[test]
    fn options_decimal_defaults_and_symbols() {
        let w = iadd(2, 3, 1);
        let decimal = FormatOptions { decimal: true, ..D };
        assert_eq!(print(w, 0, 0, &decimal), "IADD R2, R3, 32");
        let defaults = FormatOptions {
            show_defaults: true,
            ..D
        };
        assert_eq!(print(w, 0, 0, &defaults), "IADD.W32.NoX R2, R3, 0x20");
        // A name longer than the line buffer goes through whole.
        let long: String = core::iter::repeat_n('x', 300).collect();
        let sym = |a: u64| (a == 0x20).then_some(long.as_str());
        let symbols = FormatOptions {
            symbols: Some(&sym),
            ..D
        };
        let text = print(w, 0, 0, &symbols);
        assert_eq!(text, alloc::format!("IADD R2, R3, `({long})"));
    }

    #[test]
    fn indexed_operands_and_words() {
        // LDC R1, c[0x3][R5-0x4], UR[UR2+0x7], UPR
        let off = (-4i16) as u16 as u128;
        let w = 1 << 16 | (3 << 16 | off) << 24 | 5 << 56 | 2 << 64 | 7 << 72;
        assert_eq!(
            print(w, 1, 0, &D),
            "LDC R1, c[0x3][R5-0x4], UR[UR2+0x7], UPR"
        );
        // RZ as the index register: the offset alone; URZ by its sparse name; a
        // negative register offset.
        let w = 1 << 16 | (3 << 16 | 0x10) << 24 | 255 << 56 | 63 << 64 | 0xf8 << 72;
        assert_eq!(print(w, 1, 0, &D), "LDC R1, c[0x3][0x10], UR[URZ-0x8], UPR");
        // No offset; a register code past the named ones, in hex.
        let w = 1 << 16 | 3 << 16 << 24 | 5 << 56 | 100 << 64;
        assert_eq!(print(w, 1, 0, &D), "LDC R1, c[0x3][R5], UR[0x64], UPR");
    }

    #[test]
    fn past_128_optional_operands_the_rest_print() {
        let row = OperandRow {
            kind: OperandKind::Field(0),
            subs: Run::default(),
            count: Count::Fixed(1),
            addr: Addr::None,
            required_after: 0,
            readers: Run::default(),
        };
        // The first two operands are a field not at its default, the others one at it.
        let first = OperandRow {
            kind: OperandKind::Field(1),
            ..row
        };
        let operands: Vec<OperandRow> = [first, first]
            .into_iter()
            .chain(core::iter::repeat_n(row, 128))
            .collect();
        let t = Tables {
            text: "XKL                ",
            opcodes: &[OpcodeRow {
                mnemonic: Str { at: 0, len: 1 },
                fields: Run { at: 0, len: 2 },
                guard: None,
                mods: Run::default(),
                operands: Run { at: 0, len: 130 },
                optional: true,
            }],
            fields: &[
                FieldRow {
                    names: Run { at: 0, len: 2 },
                    ..field(0, 1, 0, Some(0))
                },
                FieldRow {
                    names: Run { at: 0, len: 2 },
                    ..field(1, 1, 0, Some(0))
                },
            ],
            types: &[TypeRow {
                kind: TypeKind::Enum,
                dense: Run { at: 0, len: 2 },
                named: Run::default(),
            }],
            names: &[Str { at: 1, len: 1 }, Str { at: 2, len: 1 }],
            named: &[],
            operands: &operands,
            subs: &[],
            indices: &[],
            exprs: &[],
        };
        let mut out = String::new();
        write_asm(&t, 0, 0b10, 0, &D, &mut out).unwrap();
        // The first two print (not at their default, and past the 128 bits of the
        // decision); the others are at their default.
        assert_eq!(out, "X L, L");
    }

    #[test]
    fn tables_out_of_bounds_print_without_panicking() {
        let empty = Tables {
            text: "",
            opcodes: &[OpcodeRow {
                mnemonic: Str { at: 5, len: 9 },
                fields: Run { at: 3, len: 2 },
                guard: Some(Guard {
                    field: 9,
                    not: None,
                }),
                mods: Run { at: 100, len: 3 },
                operands: Run { at: 0, len: 1 },
                optional: true,
            }],
            fields: &[field(200, 8, 77, None)],
            types: &[],
            names: &[],
            named: &[],
            operands: &[OperandRow {
                kind: OperandKind::Field(40),
                subs: Run { at: 9, len: 9 },
                count: Count::Bits(Run { at: 0, len: 99 }),
                addr: Addr::None,
                required_after: 0,
                readers: Run { at: 1, len: 1 },
            }],
            subs: &[],
            indices: &[],
            exprs: &[],
        };
        // A signed immediate of no bits.
        let zero = Tables {
            types: &[TypeRow {
                kind: TypeKind::Imm {
                    signed: true,
                    width: 0,
                },
                dense: Run::default(),
                named: Run::default(),
            }],
            fields: &[field(0, 8, 0, None)],
            opcodes: &[OpcodeRow {
                mnemonic: Str { at: 0, len: 0 },
                fields: Run { at: 0, len: 1 },
                guard: None,
                ..empty.opcodes[0]
            }],
            text: PADDING,
            operands: &[OperandRow {
                kind: OperandKind::Field(0),
                count: Count::Fixed(1),
                subs: Run::default(),
                ..empty.operands[0]
            }],
            ..empty
        };
        let mut out = String::new();
        write_asm(&zero, 0, 0x85, 0, &D, &mut out).unwrap();
        assert_eq!(out, " 0x85");
        // Rows out of their tables' bounds: no panic, `?` for what has no name.
        let padded = Tables {
            opcodes: &[OpcodeRow {
                mnemonic: Str { at: 0, len: 0 },
                ..empty.opcodes[0]
            }],
            text: PADDING,
            ..empty
        };
        let mut out = String::new();
        write_asm(&padded, 0, u128::MAX, 0, &D, &mut out).unwrap();
        assert_eq!(out, "@?  ?");
        write_asm(&padded, 7, 0, 0, &D, &mut out).unwrap();
        assert_eq!(out, "@?  ?", "an opcode out of the table writes nothing");
        // A text out of the text, or text without its padding: an error, not a panic.
        for (text, at, len) in [("", 0, 0), ("MOV", 0, 3), (PADDING, 5, 9), (PADDING, 0, 17)] {
            let t = Tables {
                text,
                opcodes: &[OpcodeRow {
                    mnemonic: Str { at, len },
                    ..zero.opcodes[0]
                }],
                ..zero
            };
            let mut out = String::new();
            assert_eq!(write_asm(&t, 0, 0x85, 0, &D, &mut out), Err(fmt::Error));
        }
    }
}
