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
#[cfg(feature = "alloc")]
pub use plan::plan;

#[cfg(feature = "alloc")]
mod plan;
use crate::table::{
    Addr, Count, FieldRow, OpcodeRow, OperandKind, OperandRow, Piece, Run, Str, Tables, TypeKind,
    PAD,
};

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

    /// Writes immediate `v` as these options say: hex (`-0x10`) or decimal (`-16`).
    /// For a caller that writes numbers beside an instruction (a listing's
    /// operands, say) the way the printer does; the printer makes the same choice
    /// into its line.
    pub fn write_number<W: Write + ?Sized>(&self, w: &mut W, v: i128) -> fmt::Result {
        self.number(&mut Writer(w), v)
    }

    /// Writes address `a` as these options say: `` `(name) `` when the symbols name
    /// it, else as [`FormatOptions::write_number`] does.
    pub fn write_address<W: Write + ?Sized>(&self, w: &mut W, a: i128) -> fmt::Result {
        self.address(&mut Writer(w), a)
    }

    /// An immediate: hex or decimal.
    #[inline]
    fn number(&self, w: &mut impl Sink, v: i128) -> fmt::Result {
        if self.decimal {
            w.dec(v)
        } else {
            w.hex(v)
        }
    }

    /// An address: its name when there is one, else the number.
    fn address(&self, w: &mut impl Sink, a: i128) -> fmt::Result {
        match self.symbols.and_then(|f| f(a as u64)) {
            Some(name) => {
                w.text("`(")?;
                w.text(name)?;
                w.text(")")
            }
            None => self.number(w, a),
        }
    }
}

/// Where [`FormatOptions`] writes numbers and names: the printer's line (digits written
/// in place) or any writer (through [`crate::num`]'s writers).
trait Sink {
    fn hex(&mut self, v: i128) -> fmt::Result;
    fn dec(&mut self, v: i128) -> fmt::Result;
    fn text(&mut self, s: &str) -> fmt::Result;
}

/// Any writer as a [`Sink`].
struct Writer<'w, W: Write + ?Sized>(&'w mut W);

impl<W: Write + ?Sized> Sink for Writer<'_, W> {
    fn hex(&mut self, v: i128) -> fmt::Result {
        crate::num::write_hex(self.0, v)
    }
    fn dec(&mut self, v: i128) -> fmt::Result {
        crate::num::write_dec(self.0, v)
    }
    fn text(&mut self, s: &str) -> fmt::Result {
        self.0.write_str(s)
    }
}

impl<W: Write + ?Sized> Sink for Line<'_, W> {
    #[inline]
    fn hex(&mut self, v: i128) -> fmt::Result {
        Line::hex(self, v)
    }
    #[inline]
    fn dec(&mut self, v: i128) -> fmt::Result {
        Line::dec(self, v)
    }
    fn text(&mut self, s: &str) -> fmt::Result {
        self.write_str(s)
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
    // Tables without plans (not built by `plan`) print as an error, not as a
    // mnemonic alone.
    let plan = t.plans.get(opcode).ok_or(fmt::Error)?;
    let (at, len) = (plan.at as usize, plan.len as usize);
    let plan = t.pieces.get(at..at + len).ok_or(fmt::Error)?;
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
        high: 0,
    };
    p.write(op, plan, &mut line)?;
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
        op: &OpcodeRow,
        plan: &[Piece],
        w: &mut Line<'_, impl Write + ?Sized>,
    ) -> fmt::Result {
        let word = self.word;
        let ops = op.operands.of(self.t.operands);
        let shown = if op.optional { self.shown(ops) } else { 0 };
        let mut sep = false;
        let mut i = 0;
        while let Some(p) = plan.get(i) {
            i += 1;
            match *p {
                Piece::Guard {
                    at,
                    default,
                    not,
                    field,
                    names,
                } => {
                    let negated = not.is_some_and(|(at, set)| at.read(word) == set);
                    let code = at.read(word);
                    if default != Some(code) || negated {
                        w.push(b'@')?;
                        if negated {
                            w.push(b'!')?;
                        }
                        self.named(w, names, field, code)?;
                        w.push(b' ')?;
                    }
                }
                Piece::Text(s) => w.text(self.t, s)?,
                Piece::Mod {
                    at,
                    default,
                    field,
                    names,
                }
                | Piece::Suffix {
                    at,
                    default,
                    field,
                    names,
                } => {
                    // Modifiers print at their defaults too when the options say so;
                    // suffix sub-fields do not.
                    let code = at.read(word);
                    let shown = self.o.show_defaults && matches!(p, Piece::Mod { .. });
                    if shown || default != Some(code) {
                        w.push(b'.')?;
                        self.named(w, names, field, code)?;
                    }
                }
                Piece::Sep { optional, len } => {
                    // Past 128 optional operands, the rest print.
                    if optional < 128 && shown >> optional & 1 == 0 {
                        i += len as usize;
                    } else if sep {
                        w.lit(b", ")?;
                    } else {
                        w.push(b' ')?;
                        sep = true;
                    }
                }
                Piece::Prefix { at, set, symbol } => {
                    if at.read(word) == set {
                        w.push(symbol)?;
                    }
                }
                Piece::NegExt { at, set, ext, x } => {
                    if at.read(word) == set {
                        w.push(if ext.read(word) == x { b'~' } else { b'-' })?;
                    }
                }
                Piece::Name { at, field, names } => self.named(w, names, field, at.read(word))?,
                Piece::Number { at, signed } => {
                    let code = at.read(word);
                    self.o.number(w, sign_extend(code, signed))?;
                }
                Piece::Operand { operand } => {
                    if let Some(r) = ops.get(operand as usize) {
                        self.operand(w, r)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// Which optional operands print, decided from the last operand back: one at its
    /// defaults is left out unless the operand printed after it could be read as it
    /// (and enough operands follow). Bit `i`: the `i`-th optional operand from the last
    /// (at most 128: each is a field of its own).
    #[inline(never)]
    fn shown(&self, ops: &[OperandRow]) -> u128 {
        let t = self.t;
        let mut shown = 0u128;
        let mut optional = 0u32;
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
        shown
    }

    /// Code `code` of a field whose type's dense names are `names` (a piece's):
    /// [`Printer::name`] with the names at hand and the field's row looked up only
    /// when they do not name the code.
    #[inline(always)]
    fn named(
        &self,
        w: &mut Line<'_, impl Write + ?Sized>,
        names: Run,
        field: u16,
        code: u128,
    ) -> fmt::Result {
        self.name_in(w, names, code, || self.field(field))
    }

    /// The field of an operand that may be left out (see [`optional`]).
    #[inline]
    fn optional(&self, r: &OperandRow) -> Option<u16> {
        optional(self.fields, r)
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
        self.name_in(w, r.names, code, || r)
    }

    /// [`Printer::name`]: the type's dense names `names` (which the field's row and its
    /// pieces carry: most names are there, so this much is inline), then the rest
    /// through the field's row.
    #[inline(always)]
    fn name_in<'r>(
        &'r self,
        w: &mut Line<'_, impl Write + ?Sized>,
        names: Run,
        code: u128,
        row: impl FnOnce() -> &'r FieldRow,
    ) -> fmt::Result {
        let dense = usize::try_from(code).ok();
        match dense.and_then(|c| names.of(self.t.names).get(c)) {
            Some(n) if n.str.len.wrapping_sub(1) < PAD as u32 => w.head(&n.head, n.str.len),
            Some(n) if n.str.len > 0 => w.text(self.t, n.str),
            Some(_) => self.unnamed(w, row(), code),
            None => self.past_dense(w, row(), code),
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

    /// An operand's body (its sub-fields are pieces of their own).
    fn operand(&self, w: &mut Line<'_, impl Write + ?Sized>, r: &OperandRow) -> fmt::Result {
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
                                .wrapping_add(crate::info::INSTRUCTION_BYTES.into())
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

/// The field of operand `r` when the operand may be left out: a field with a default
/// (among `fields`, an opcode's). The printer's omission pass and the planner ask this.
fn optional(fields: &[FieldRow], r: &OperandRow) -> Option<u16> {
    match r.kind {
        OperandKind::Field(f) if fields.get(f as usize).is_some_and(|r| r.default.is_some()) => {
            Some(f)
        }
        _ => None,
    }
}

/// How many registers an operand of `bits` bits spans ([`crate::info::registers`]).
pub use crate::info::registers;

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

/// The top bit of every byte of a block (see `Line::high`).
const ASCII_HIGH: u128 = u128::from_ne_bytes([0x80; PAD]);

/// A line being written: pieces gathered on the stack, handed on in one `write_str`
/// (in pieces only when it is longer than the buffer). Each piece first makes room for
/// itself ([`Line::room`]), then is written in place: texts of the tables as 16-byte
/// blocks (the tables' padding makes them readable, the buffer's slack writable),
/// numbers digit by digit.
struct Line<'w, W: Write + ?Sized> {
    w: &'w mut W,
    buf: [u8; LINE + PAD],
    len: usize,
    /// The bits of every block of table text copied into the line, OR-ed: when no
    /// byte of them has its top bit set, every byte of the line is ASCII (the other
    /// pieces are ASCII by construction), so the line is UTF-8 without a check.
    high: u128,
}

impl<W: Write + ?Sized> Line<'_, W> {
    fn flush(&mut self) -> fmt::Result {
        let line = self.buf.get(..self.len).ok_or(fmt::Error)?;
        let s = if self.high & ASCII_HIGH == 0 {
            debug_assert!(line.is_ascii());
            // SAFETY: every byte of the line is ASCII (see `Line::high`), and ASCII
            // is UTF-8.
            unsafe { core::str::from_utf8_unchecked(line) }
        } else {
            // Checked: the tables' texts are ranges of one `str`, and a range that
            // splits a character (tables not built by this crate's builders) must not
            // make a `str` that is not one.
            core::str::from_utf8(line).map_err(|_| fmt::Error)?
        };
        self.w.write_str(s)?;
        self.len = 0;
        self.high = 0;
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
        // (Literals: folded away.)
        if !b.is_ascii() {
            self.high = ASCII_HIGH;
        }
        Ok(())
    }

    /// One byte (ASCII: a symbol of a piece, which a hand-built table may get wrong).
    #[inline(always)]
    fn push(&mut self, b: u8) -> fmt::Result {
        self.room(1)?;
        self.buf[self.len] = b;
        self.len += 1;
        self.high |= (b & 0x80) as u128;
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
            let block: &[u8; PAD] = src
                .get(k..k + PAD)
                .and_then(|b| b.try_into().ok())
                .ok_or(fmt::Error)?;
            self.high |= u128::from_ne_bytes(*block);
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

    /// The first `len` bytes of `head` (a [`crate::table::Name`]'s, `len` at most
    /// [`PAD`]), copied as one block.
    #[inline(always)]
    fn head(&mut self, head: &[u8; PAD], len: u32) -> fmt::Result {
        // The block past `len` lands in the buffer's slack past `LINE`.
        self.room(len as usize)?;
        let dst: &mut [u8; PAD] = self
            .buf
            .get_mut(self.len..self.len + PAD)
            .and_then(|b| b.try_into().ok())
            .ok_or(fmt::Error)?;
        *dst = *head;
        self.high |= u128::from_ne_bytes(*head);
        self.len += len as usize;
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
        if !b.is_ascii() {
            self.high = ASCII_HIGH;
        }
        Ok(())
    }
}

#[cfg(all(test, feature = "alloc"))]
mod tests;
