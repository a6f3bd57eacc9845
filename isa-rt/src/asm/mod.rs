//! The assembler's matcher: reads a lexed line ([`crate::lex::Line`]) against the
//! forms of its mnemonic and builds the 128-bit word, or says what is wrong
//! ([`AsmError`]). It knows nothing of a particular spec: each opcode is described by
//! an [`OpcodeSpec`] (its modifiers, guard and operands, where their bits go, how names
//! read as codes), which a generated crate holds as constants and a tool that reads a
//! spec at run time builds (`isa-gen`'s `Assembler`, into an arena); both call
//! [`assemble`]. `no_std`, no allocation: errors hold byte spans, numbers and text of
//! the specs (`'t`).

mod error;
#[cfg(test)]
mod tests;

pub use error::{AsmError, AsmErrorDisplay, AsmErrorKind, Expect, NameHint, Problem};

pub use crate::table::{At, Names};

/// How an immediate operand is read (`__DefFlow` of the spec).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImmAddr {
    /// A plain number.
    No,
    /// An address relative to the next instruction (accepts a label).
    Rel,
    /// An absolute address (accepts a label).
    Abs,
    /// A number written scaled: `x << shift`.
    Scaled,
    /// `Abs` when the modifier at `mode` holds `abs`, `Rel` otherwise (BasePCMode's
    /// `.ABS`/`.REL`): the modifiers are read before the operands.
    Select {
        /// The mode modifier's place.
        mode: At,
        /// Its code that makes the address absolute.
        abs: u128,
    },
}

/// How many 32-bit registers a register operand spans.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Count<'t> {
    /// Always this many.
    Fixed(u64),
    /// As many as its width in bits, the spec's `Bitwidth` expression of the opcode's
    /// fields ([`crate::expr`]; field `k` is at [`OpcodeSpec::places`]`[k]`), which the
    /// modifiers already in the word decide.
    Bits(&'t [crate::expr::Op]),
    /// By the code of the one field at `at` its width reads: the counts by code (a
    /// `Bits` expression of one narrow field, worked out for each of its codes; a code
    /// past the list spans one register).
    Lookup {
        /// The field's place.
        at: At,
        /// The counts, by code.
        counts: &'t [u8],
    },
}

/// How a sub-field is written.
#[derive(Clone, Copy, Debug)]
pub enum SubRole<'t> {
    /// `!`.
    Not,
    /// `-`, or `~` when the `ext` field (its place and the `X` code) holds the `X` code.
    Neg(Option<(At, u64)>),
    /// `~`.
    BitNot,
    /// `.VALUE`: the value's name, read by these names.
    Suffix(Names<'t>),
}

/// A sub-field of an operand (`ra.neg`, `ra.H1`).
#[derive(Clone, Copy, Debug)]
pub struct Sub<'t> {
    /// Its place in the word.
    pub at: At,
    /// How it is written.
    pub role: SubRole<'t>,
    /// The code with the symbol written; the default is in the base word.
    pub set: u64,
    /// The code without it.
    pub unset: u64,
    /// The default code (a suffix left out).
    pub default: u64,
}

/// What an operand is.
#[derive(Clone, Copy, Debug)]
pub enum Kind<'t> {
    /// A register: numbered `prefix lo..=hi`, or named (read by `name`).
    Reg {
        /// Its name as its code.
        name: Names<'t>,
        /// The file's prefix (`R`).
        prefix: &'t str,
        /// The first numbered register.
        lo: u64,
        /// The last numbered register.
        hi: u64,
        /// How many registers it spans (more than one: written as a range `R[4:5]`).
        count: Count<'t>,
    },
    /// A value of an enumeration, by name.
    Enum {
        /// Its name as its code.
        name: Names<'t>,
        /// For hints: the type's name.
        type_name: &'t str,
        /// For hints: its values.
        values: &'t [&'t str],
    },
    /// A number, or a label for an address.
    Imm {
        /// The type's name (for messages).
        type_name: &'t str,
        /// Its width in bits.
        width: u8,
        /// Two's complement.
        signed: bool,
        /// A `CvtIShift` operand: how it is read, counted in `1 << shift` bytes.
        addr: ImmAddr,
        /// The scale of an address.
        shift: u8,
    },
    /// `c[bank][offset]`.
    CMem {
        /// The bank's width.
        bank_bits: u8,
        /// The offset's width.
        offset_bits: u8,
        /// The offset is signed (two's complement) or unsigned.
        signed: bool,
    },
    /// `c[bank][REG+offset]`.
    CMemIdx {
        /// The bank's width.
        bank_bits: u8,
        /// The offset's width.
        offset_bits: u8,
        /// The offset is two's complement.
        signed: bool,
        /// The address register's place.
        reg: At,
        /// The address register's name as its code.
        reg_name: Names<'t>,
        /// The address register's type name.
        reg_type: &'t str,
        /// The register's code when none is written, if it has one.
        zero: Option<u64>,
    },
    /// `PREFIX[REG+offset]`.
    RegIdx {
        /// The file's prefix (`UR`).
        prefix: &'t str,
        /// The index register's name as its code.
        reg_name: Names<'t>,
        /// The index register's type name.
        reg_type: &'t str,
        /// The offset's place.
        off: At,
        /// The offset's width.
        off_width: u8,
        /// The offset is two's complement.
        off_signed: bool,
    },
    /// A fixed word (`UPR`).
    Word(&'t str),
}

/// An operand of an opcode.
#[derive(Clone, Copy, Debug)]
pub struct OperandSpec<'t> {
    /// What it is.
    pub kind: Kind<'t>,
    /// The main field (the constant-memory field of `C[…]`, the register of `PREFIX[…]`).
    pub at: At,
    /// Its sub-fields.
    pub subs: &'t [Sub<'t>],
    /// The spec's name for it (messages).
    pub label: &'t str,
    /// What it takes (`a Reg`, messages).
    pub expected: &'t str,
    /// It may be left out (its field has a default).
    pub optional: bool,
}

/// A modifier field of an opcode.
#[derive(Clone, Copy, Debug)]
pub struct ModSpec<'t> {
    /// Its place.
    pub at: At,
    /// Its field's name in the spec.
    pub field: &'t str,
    /// Its values: name and code.
    pub values: &'t [(&'t str, u64)],
    /// It has no default, so it must be written.
    pub required: bool,
    /// `.A, .B` for messages.
    pub values_text: &'t str,
}

/// The guard predicate of an opcode.
#[derive(Clone, Copy, Debug)]
pub struct GuardSpec<'t> {
    /// Its place.
    pub at: At,
    /// Its name as its code.
    pub name: Names<'t>,
    /// Its type's name (messages).
    pub type_name: &'t str,
    /// Its `.not` sub-field, when it can be negated.
    pub not: Option<Sub<'t>>,
}

/// A condition of the spec's `__Exception`s: the word assembled is refused when it
/// holds.
#[derive(Clone, Copy, Debug)]
pub struct Exception<'t> {
    /// The condition, an expression of the opcode's fields (as [`Count::Bits`]).
    pub cond: &'t [crate::expr::Op],
    /// Its kind (`ILLEGAL_INSTR_ENCODING`).
    pub kind: &'t str,
    /// Its message.
    pub message: &'t str,
}

/// One opcode, as the matcher reads a line against it.
#[derive(Clone, Copy, Debug)]
pub struct OpcodeSpec<'t> {
    /// How assembly names it (`UIMAD.WIDE`).
    pub mnemonic: &'t str,
    /// The opcode's field names (for "`pu` is the operand's name in the spec").
    pub fields: &'t [&'t str],
    /// Where each field is, by its number: what [`Count::Bits`] and
    /// [`Exception::cond`] read (empty when the opcode has neither).
    pub places: &'t [At],
    /// Every modifier value, `.A .B` (for an unknown modifier with none near).
    pub mods_text: &'t str,
    /// Fixed bits and every default.
    pub base: u128,
    /// Its modifier fields.
    pub mods: &'t [ModSpec<'t>],
    /// Its guard, when it has one.
    pub guard: Option<GuardSpec<'t>>,
    /// Its operands, in `Order`.
    pub operands: &'t [OperandSpec<'t>],
    /// For each operand, how many required operands follow it.
    pub req_after: &'t [u8],
    /// The spec's `__Exception` conditions, checked in turn on the word assembled.
    pub exceptions: &'t [Exception<'t>],
    /// The spec's register files (for "`R255` does not exist" hints).
    pub files: &'t [RegFile<'t>],
}

impl OpcodeSpec<'_> {
    /// The value of expression `ops` of this opcode's fields in `word`.
    fn eval(&self, ops: &[crate::expr::Op], word: u128) -> i128 {
        crate::expr::eval(ops, &|k| {
            self.places.get(usize::from(k)).map_or(0, |at| at.get(word))
        })
    }

    /// How many registers an operand counted by `count` spans in `word`.
    #[inline]
    fn registers(&self, count: Count<'_>, word: u128) -> u64 {
        match count {
            Count::Fixed(n) => n,
            Count::Bits(ops) => u64::from(crate::print::registers(self.eval(ops, word))),
            Count::Lookup { at, counts } => {
                let code = usize::try_from(at.get(word)).unwrap_or(usize::MAX);
                counts.get(code).map_or(1, |&n| u64::from(n))
            }
        }
    }
}

/// A register file of the spec, for hints about a name written like one of its
/// registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegFile<'t> {
    /// The type's name.
    pub type_name: &'t str,
    /// The prefix of its numbered registers (`R`).
    pub prefix: &'t str,
    /// The first numbered register.
    pub lo: u64,
    /// The last numbered register.
    pub hi: u64,
    /// Its named registers, `RZ, PT` (empty when none).
    pub named: &'t str,
}

/// A failed attempt at one candidate opcode: how far it got and the error.
#[derive(Clone, Copy, Debug)]
struct Fail<'t> {
    rank: u32,
    err: AsmError<'t>,
}

/// How far an operand walk got (`reach`) and where its error is (`at`): the more of the
/// line a candidate fits, the more specific its error; at equal reach, the error
/// further along (a wrong value is always before the reach).
const fn operand_rank(reach: usize, at: usize) -> u32 {
    10 + 1000 * reach as u32 + at as u32
}

/// Keeps the most specific failure; merges what several candidates expected at the
/// same operand ("expected a Reg or a UImm5").
fn better<'t>(best: Option<Fail<'t>>, new: Fail<'t>) -> Option<Fail<'t>> {
    let Some(mut b) = best else {
        return Some(new);
    };
    if new.rank > b.rank {
        return Some(new);
    }
    if new.rank == b.rank {
        // Failures merge only at the same operand numbers, both missing (at the line's
        // end) or both not (at a token): the same start is the same place, since two
        // tokens of a line that start together are one.
        let same_place = b.err.start == new.err.start;
        if let (AsmErrorKind::Expect(x), AsmErrorKind::Expect(y)) = (&mut b.err.kind, new.err.kind)
        {
            if same_place && x.index == y.index && x.missing == y.missing {
                for l in y.labels.iter().filter(|l| !l.is_empty()) {
                    if !x.labels.contains(l) {
                        if let Some(slot) = x.labels.iter_mut().find(|s| s.is_empty()) {
                            *slot = l;
                        }
                    }
                }
                for k in y.kinds.iter().filter(|k| !k.is_empty()) {
                    if !x.kinds.contains(k) {
                        if let Some(slot) = x.kinds.iter_mut().find(|s| s.is_empty()) {
                            *slot = k;
                        }
                    }
                }
            }
        }
    }
    Some(b)
}

/// The outcome of reading a token as an operand.
enum Read<'t> {
    Ok,
    /// Read, but its width, which a later operand decides, is checked on the whole
    /// line (see [`width_later`]).
    Later,
    /// Not this kind of operand.
    Kind,
    Bad(Problem<'t>),
}

/// Signed or unsigned range of a `width`-bit immediate.
pub(crate) fn bounds(width: u8, signed: bool) -> (i128, i128) {
    let w = u32::from(width).clamp(1, 127);
    if signed {
        let hi = (1i128 << (w - 1)) - 1;
        (-hi - 1, hi)
    } else {
        (0, (1i128 << w) - 1)
    }
}

/// The encoding of `c[bank][off]` with a `bank_bits`-bit bank and an `offset_bits`-bit
/// signed or unsigned offset.
fn cmem(
    bank: u64,
    off: i128,
    bank_bits: u8,
    offset_bits: u8,
    signed: bool,
) -> Result<u128, Problem<'static>> {
    if bank >> bank_bits != 0 {
        return Err(Problem::Bank(bank, bank_bits));
    }
    let (lo, hi) = bounds(offset_bits, signed);
    if off < lo || off > hi {
        return Err(Problem::Offset(off, lo, hi));
    }
    Ok((u128::from(bank) << offset_bits) | (off as u128 & ((1u128 << offset_bits) - 1)))
}

/// Sets the sub-fields of an operand from the token's prefix and suffix: a written
/// operand carries exactly the symbols written.
#[inline(always)]
fn decorate<'t>(subs: &[Sub<'_>], tok: &crate::lex::Tok, w: &mut u128) -> Result<(), Problem<'t>> {
    for s in subs {
        let v = if matches!(s.role, SubRole::Suffix(_)) {
            s.default
        } else {
            s.unset
        };
        s.at.write(w, u128::from(v));
    }
    if let Some(p) = tok.prefix {
        let word = *w;
        let tilde =
            |ext: Option<(At, u64)>| ext.is_some_and(|(at, x)| at.read(word) == u128::from(x));
        let hit = subs.iter().find(|s| match (p, s.role) {
            ('!', SubRole::Not) | ('~', SubRole::BitNot) => true,
            ('-', SubRole::Neg(ext)) => !tilde(ext),
            ('~', SubRole::Neg(ext)) => tilde(ext),
            _ => false,
        });
        match hit {
            Some(s) => s.at.write(w, u128::from(s.set)),
            None => {
                // The `-`/`~` advice is for a negation whose form an extension field
                // (`.X`) chooses; a plain `.neg` takes `-` only.
                let ext_neg = subs.iter().any(|s| matches!(s.role, SubRole::Neg(Some(_))));
                return Err(match (p, ext_neg) {
                    ('-', true) => Problem::NegForm(true),
                    ('~', true) => Problem::NegForm(false),
                    _ => Problem::Prefix(p, false),
                });
            }
        }
    }
    if let Some(sfx) = tok.suffix {
        let hit = subs.iter().find_map(|s| match s.role {
            SubRole::Suffix(name) => name.code(sfx).map(|v| (s.at, v)),
            _ => None,
        });
        match hit {
            Some((at, v)) => at.write(w, u128::from(v)),
            None => return Err(suffix_problem(false, tok, sfx)),
        }
    }
    Ok(())
}

/// A `.SUFFIX` the operand does not take; which operand does is filled in by the caller.
fn suffix_problem<'t>(imm: bool, tok: &crate::lex::Tok, sfx: &str) -> Problem<'t> {
    // The suffix ends the token.
    Problem::Suffix(imm, tok.end - sfx.len(), tok.end, 0, "")
}

/// Where `part` (a slice of `line`) is in it.
fn offset_in(line: &str, part: &str) -> (usize, usize) {
    let start = (part.as_ptr() as usize).wrapping_sub(line.as_ptr() as usize);
    if start <= line.len() && line.len() - start >= part.len() {
        (start, start + part.len())
    } else {
        (0, 0)
    }
}

/// Whether register token `tok` (its first register `code`) fits an operand of `n`
/// registers of a file whose numbered registers are `lo..=hi`: a numbered register
/// written alone only for one register, a range of exactly `n`.
#[inline]
fn width_fits(n: u64, lo: u64, hi: u64, code: u64, tok: &crate::lex::Tok) -> bool {
    match tok.core {
        crate::lex::TokCore::Name(_) => n <= 1 || !(lo..=hi).contains(&code),
        crate::lex::TokCore::Range(_, first, last) => (last - first).checked_add(1) == Some(n),
        _ => true,
    }
}

/// Why register token `tok` (its first register `code`) does not fit an operand of
/// `n` registers ([`width_fits`] said it does not): a numbered register written alone
/// where a range goes, or a range of another length.
#[cold]
fn width_problem<'t>(n: u64, prefix: &'t str, code: u64, tok: &crate::lex::Tok) -> Problem<'t> {
    match tok.core {
        crate::lex::TokCore::Range(_, first, last) => {
            Problem::RangeWidth(prefix, first, last, (n * 32) as u32)
        }
        _ => Problem::NeedsRange((n * 32) as u32, prefix, code),
    }
}

/// Whether operand `k`'s width (a register operand's count) reads a field that it or
/// a later operand writes (`Bitwidth<rd> = n * 32` with `n` after `rd`): then it is
/// known, and checked, only once the whole line is read. A width of the modifiers (the
/// usual case) is checked as the operand is read.
fn width_later(spec: &OpcodeSpec<'_>, k: usize) -> bool {
    let Some(&Kind::Reg { count, .. }) = spec.operands.get(k).map(|o| &o.kind) else {
        return false;
    };
    let written_from_k = |at: At| {
        spec.operands
            .iter()
            .skip(k)
            .any(|o| overlaps(o.at, at) || o.subs.iter().any(|s| overlaps(s.at, at)))
    };
    match count {
        Count::Fixed(_) => false,
        Count::Lookup { at, .. } => written_from_k(at),
        Count::Bits(ops) => ops.iter().any(|op| match *op {
            crate::expr::Op::Field(f) => spec
                .places
                .get(usize::from(f))
                .is_some_and(|&at| written_from_k(at)),
            _ => false,
        }),
    }
}

/// Whether two places share a bit.
fn overlaps(a: At, b: At) -> bool {
    let bits = |p: At| p.mask.checked_shl(u32::from(p.start)).unwrap_or(0);
    bits(a) & bits(b) != 0
}

/// Reads `tok` (of `line`) as operand `o`, the `k`-th, writing its bits into `w`.
#[allow(clippy::too_many_arguments)]
fn read<'t>(
    spec: &OpcodeSpec<'t>,
    o: &OperandSpec<'t>,
    tok: &crate::lex::Tok,
    line: &str,
    w: &mut u128,
    addr: u64,
    labels: &dyn Fn(&str) -> Option<u64>,
    k: usize,
) -> Read<'t> {
    let outcome = read_token(spec, o, tok, line, w, addr, labels, k);
    // `assemble` passes over the forms `fits` rules out, so it must never rule out a
    // token this reads (checked wherever a debug build assembles).
    debug_assert!(matches!(outcome, Read::Kind) || fits(o, tok));
    outcome
}

#[allow(clippy::too_many_arguments)]
fn read_token<'t>(
    spec: &OpcodeSpec<'t>,
    o: &OperandSpec<'t>,
    tok: &crate::lex::Tok,
    line: &str,
    w: &mut u128,
    addr: u64,
    labels: &dyn Fn(&str) -> Option<u64>,
    k: usize,
) -> Read<'t> {
    let mut later = false;
    let placed = match o.kind {
        Kind::Reg {
            name,
            prefix,
            lo,
            hi,
            count,
        } => {
            let code = match tok.core {
                crate::lex::TokCore::Name(text) => {
                    // The register before a `.SUFFIX` (a byte scan: names are short).
                    let base = match text.bytes().position(|b| b == b'.') {
                        Some(dot) => &text[..dot],
                        None => text,
                    };
                    let Some(code) = name.code(base) else {
                        return Read::Kind;
                    };
                    code
                }
                crate::lex::TokCore::Range(file, first, _) if file == prefix => {
                    // Only the first register must exist: an operand at the last register
                    // prints as e.g. `UR[62:63]` and must read back.
                    if !(lo..=hi).contains(&first) {
                        return Read::Bad(Problem::NoSuchRegister(prefix, first));
                    }
                    first
                }
                _ => return Read::Kind,
            };
            later = !matches!(count, Count::Fixed(_)) && width_later(spec, k);
            if !later {
                let n = spec.registers(count, *w);
                if !width_fits(n, lo, hi, code, tok) {
                    return Read::Bad(width_problem(n, prefix, code, tok));
                }
            }
            o.at.write(w, u128::from(code));
            true
        }
        Kind::Enum { name, .. } => {
            let crate::lex::TokCore::Name(text) = tok.core else {
                return Read::Kind;
            };
            let Some(code) = name.code(text) else {
                return Read::Kind;
            };
            if let Some(c) = tok.prefix {
                return Read::Bad(Problem::Prefix(c, false));
            }
            o.at.write(w, u128::from(code));
            false
        }
        Kind::Imm {
            type_name,
            width,
            signed,
            addr: mode,
            shift,
        } => {
            let mode = match mode {
                ImmAddr::Select { mode: m, abs } if m.read(*w) == abs => ImmAddr::Abs,
                ImmAddr::Select { .. } => ImmAddr::Rel,
                m => m,
            };
            let v = match tok.core {
                crate::lex::TokCore::Number(v) => v,
                crate::lex::TokCore::Label(l, addend)
                    if matches!(mode, ImmAddr::Rel | ImmAddr::Abs) =>
                {
                    match labels(l) {
                        Some(t) => i128::from(t) + addend,
                        None => {
                            let (s, e) = offset_in(line, l);
                            return Read::Bad(Problem::UndefinedLabel(s, e));
                        }
                    }
                }
                crate::lex::TokCore::Label(..) => return Read::Bad(Problem::LabelNotAllowed),
                _ => return Read::Kind,
            };
            if let Some(p) = tok.prefix {
                return Read::Bad(Problem::Prefix(p, true));
            }
            if let Some(sfx) = tok.suffix {
                return Read::Bad(suffix_problem(true, tok, sfx));
            }
            let (lo, hi) = bounds(width, signed);
            let value = match mode {
                ImmAddr::Rel => {
                    let next = i128::from(addr) + 16;
                    let Some(rel) = v.checked_sub(next) else {
                        return Read::Bad(Problem::TargetRange(v, None));
                    };
                    if rel & ((1i128 << shift) - 1) != 0 {
                        return Read::Bad(Problem::Misaligned(v, 1 << shift, next));
                    }
                    let off = rel >> shift;
                    if off < lo || off > hi {
                        // Both ends are reachable targets, so `<<` cannot overflow.
                        let reach = (
                            next.saturating_add(lo.saturating_mul(1 << shift)),
                            next.saturating_add(hi.saturating_mul(1 << shift)),
                        );
                        return Read::Bad(Problem::TargetRange(v, Some(reach)));
                    }
                    off
                }
                ImmAddr::Abs | ImmAddr::Scaled => {
                    let abs = mode == ImmAddr::Abs;
                    if v & ((1i128 << shift) - 1) != 0 {
                        return Read::Bad(Problem::NotMultiple(abs, v, 1 << shift));
                    }
                    let off = v >> shift;
                    if off < lo || off > hi {
                        return Read::Bad(Problem::ScaledRange(
                            abs,
                            v,
                            lo.saturating_mul(1 << shift),
                            hi.saturating_mul(1 << shift),
                        ));
                    }
                    off
                }
                // (`Select` is `Abs` or `Rel` by now.)
                ImmAddr::No | ImmAddr::Select { .. } => {
                    // A signed immediate may also be written as its bit pattern.
                    let pattern_hi = bounds(width, false).1;
                    if v < lo || v > pattern_hi {
                        return Read::Bad(Problem::Range(
                            type_name,
                            v,
                            lo,
                            hi,
                            signed.then_some(width),
                        ));
                    }
                    v
                }
            };
            o.at.write(w, value as u128);
            false
        }
        Kind::CMem {
            bank_bits,
            offset_bits,
            signed,
        } => {
            match tok.core {
                crate::lex::TokCore::ConstMem(bank, None, off) => {
                    match cmem(bank, off, bank_bits, offset_bits, signed) {
                        Ok(c) => o.at.write(w, c),
                        Err(p) => return Read::Bad(p),
                    }
                }
                // `c[bank][reg+offset]` is another kind of operand (`C[mem, reg]`): an
                // opcode of the same mnemonic that takes it is the one meant.
                _ => return Read::Kind,
            }
            true
        }
        Kind::CMemIdx {
            bank_bits,
            offset_bits,
            signed,
            reg,
            reg_name,
            reg_type,
            zero,
        } => {
            let crate::lex::TokCore::ConstMem(bank, r, off) = tok.core else {
                return Read::Kind;
            };
            let code = match (r, zero) {
                (Some(name), _) => match reg_name.code(name) {
                    Some(c) => c,
                    None => {
                        let (s, e) = offset_in(line, name);
                        return Read::Bad(Problem::IndexReg(reg_type, true, s, e));
                    }
                },
                (None, Some(z)) => z,
                (None, None) => return Read::Bad(Problem::NoIndexReg),
            };
            match cmem(bank, off, bank_bits, offset_bits, signed) {
                Ok(c) => {
                    o.at.write(w, c);
                    reg.write(w, u128::from(code));
                }
                Err(p) => return Read::Bad(p),
            }
            true
        }
        Kind::RegIdx {
            prefix,
            reg_name,
            reg_type,
            off,
            off_width,
            off_signed,
        } => {
            let crate::lex::TokCore::Indexed(file, r, offset) = tok.core else {
                return Read::Kind;
            };
            if file != prefix {
                return Read::Kind;
            }
            // Printed bare: a written symbol would be dropped.
            if let Some(p) = tok.prefix {
                return Read::Bad(Problem::Prefix(p, false));
            }
            if let Some(sfx) = tok.suffix {
                return Read::Bad(suffix_problem(false, tok, sfx));
            }
            let Some(code) = reg_name.code(r) else {
                let (s, e) = offset_in(line, r);
                return Read::Bad(Problem::IndexReg(reg_type, false, s, e));
            };
            let (lo, hi) = bounds(off_width, off_signed);
            if offset < lo || offset > hi {
                return Read::Bad(Problem::IndexOffset(offset, lo, hi));
            }
            o.at.write(w, u128::from(code));
            off.write(w, offset as u128 & ((1u128 << off_width) - 1));
            false
        }
        Kind::Word(word) => {
            return match tok.core {
                crate::lex::TokCore::Name(n) if n == word && tok.prefix.is_none() => Read::Ok,
                _ => Read::Kind,
            }
        }
    };
    if placed {
        if let Err(p) = decorate(o.subs, tok, w) {
            return Read::Bad(p);
        }
    }
    if later {
        Read::Later
    } else {
        Read::Ok
    }
}

/// Reads a line against one opcode; the word on success.
#[allow(clippy::result_large_err)]
fn attempt<'t>(
    spec: &OpcodeSpec<'t>,
    l: &crate::lex::Line,
    m0: usize,
    addr: u64,
    labels: &dyn Fn(&str) -> Option<u64>,
    map: &mut OperandMap,
) -> Result<u128, Fail<'t>> {
    let mut w = spec.base;
    // Modifiers.
    let mut given: u64 = 0;
    let hit = |text: &str| {
        spec.mods.iter().enumerate().find_map(|(k, m)| {
            m.values
                .iter()
                .find(|(n, _)| *n == text)
                .map(|&(_, v)| (k, v))
        })
    };
    let parts = &l.parts[m0..l.nparts];
    for (i, &(text, s, e)) in parts.iter().enumerate() {
        // Errors point at the whole `.NAME`, dot included.
        match hit(text) {
            Some((k, _)) if given & (1 << k) != 0 => {
                // The part that gave it first (looked for on this error path only).
                let first = parts[..i]
                    .iter()
                    .find(|p| hit(p.0).is_some_and(|(j, _)| j == k));
                let (es, ee) = first.map_or((s, e), |p| (p.1, p.2));
                let kind =
                    AsmErrorKind::DuplicateModifier(spec.mnemonic, spec.mods[k].field, es, ee);
                return Err(Fail {
                    rank: 1,
                    err: AsmError::new(s - 1, e, kind),
                });
            }
            Some((k, v)) => {
                spec.mods[k].at.write(&mut w, u128::from(v));
                given |= 1 << k;
            }
            None => {
                let all = spec
                    .mods
                    .iter()
                    .flat_map(|m| m.values.iter().map(|&(n, _)| n));
                let kind = AsmErrorKind::UnknownModifier(
                    spec.mnemonic,
                    crate::suggest::nearest::<3>(text, all),
                    spec.mods_text,
                );
                return Err(Fail {
                    rank: 1,
                    err: AsmError::new(s - 1, e, kind),
                });
            }
        }
    }
    for (k, m) in spec.mods.iter().enumerate() {
        if m.required && given & (1 << k) == 0 {
            let e = l.mnemonic_end();
            let kind = AsmErrorKind::MissingModifier(m.field, m.values_text);
            return Err(Fail {
                rank: 1,
                err: AsmError::new(e, e, kind),
            });
        }
    }
    // Guard.
    if let Some((negated, name, s, e)) = l.guard {
        let Some(g) = spec.guard else {
            return Err(Fail {
                rank: 2,
                err: AsmError::new(s, e, AsmErrorKind::NoGuard),
            });
        };
        let Some(code) = g.name.code(name) else {
            return Err(Fail {
                rank: 2,
                err: AsmError::new(s, e, AsmErrorKind::Guard(g.type_name)),
            });
        };
        g.at.write(&mut w, u128::from(code));
        if negated {
            match g.not {
                Some(n) => n.at.write(&mut w, u128::from(n.set)),
                None => {
                    return Err(Fail {
                        rank: 2,
                        err: AsmError::new(s, e, AsmErrorKind::GuardNotNegatable),
                    })
                }
            }
        }
    }
    // Operands. After a wrong value the walk goes on checking kinds only, so that the
    // rank says how well the whole line fits this opcode; the first error is reported.
    let n = l.nops;
    let mut t = 0;
    let mut first_bad: Option<(usize, AsmError<'t>)> = None;
    // An optional operand left out at a token: (token, operand).
    let mut skipped: Option<(usize, usize)> = None;
    // The first optional operand skipped with room to spare: (token, operand).
    let mut first_skip: Option<(usize, usize)> = None;
    // A name gets hints (a register past its file's end, the spec's name of the
    // operand, a misspelt value); it runs to the end of the token.
    let name_hint = |o: &OperandSpec<'t>, tok: &crate::lex::Tok| match tok.core {
        crate::lex::TokCore::Name(name) => Some(NameHint {
            start: tok.end - name.len(),
            end: tok.end,
            fields: spec.fields,
            files: spec.files,
            expected: o.expected,
            values: match o.kind {
                Kind::Enum {
                    type_name, values, ..
                } => Some((type_name, values)),
                _ => None,
            },
        }),
        _ => None,
    };
    let fail =
        |reach: usize, err: AsmError<'t>, first_bad: Option<(usize, AsmError<'t>)>| match first_bad
        {
            Some((at, err)) => Fail {
                rank: operand_rank(reach, at),
                err,
            },
            None => Fail {
                rank: operand_rank(reach, reach),
                err,
            },
        };
    // The tokens read as register operands whose width a later operand decides,
    // without that check (see `width_later`), a bit each; `map` says which operand.
    const _: () = assert!(crate::lex::MAX_OPERANDS <= 32);
    let mut later: u32 = 0;
    for (k, o) in spec.operands.iter().enumerate() {
        let Some(tok) = l.op(t) else {
            if o.optional {
                continue;
            }
            let e = l.end();
            let x = Expect {
                index: [k as u8 + 1, 0],
                labels: [o.label, "", "", "", "", "", "", ""],
                kinds: [o.expected, "", "", "", "", "", "", ""],
                missing: true,
                hint: None,
            };
            return Err(fail(
                k,
                AsmError::new(e, e, AsmErrorKind::Expect(x)),
                first_bad,
            ));
        };
        let outcome = if o.optional {
            // Read into a copy: an operand of another kind is left out, the word as it
            // was; otherwise the copy is the word this read makes (reads are
            // deterministic), so the operand is read once.
            let room = n - t > usize::from(spec.req_after[k]);
            if !room {
                continue;
            }
            let mut scratch = w;
            match read(spec, o, tok, l.text, &mut scratch, addr, labels, k) {
                Read::Kind => {
                    skipped = Some((t, k));
                    first_skip.get_or_insert((t, k));
                    continue;
                }
                outcome => {
                    w = scratch;
                    outcome
                }
            }
        } else {
            read(spec, o, tok, l.text, &mut w, addr, labels, k)
        };
        match outcome {
            Read::Ok => {
                map[t] = k as u8;
                t += 1;
            }
            Read::Later => {
                later |= 1 << t;
                map[t] = k as u8;
                t += 1;
            }
            Read::Kind => {
                let hint = name_hint(o, tok);
                let x = match skipped.filter(|&(at, _)| at == t) {
                    Some((_, j)) => {
                        let p = &spec.operands[j];
                        Expect {
                            index: [j as u8 + 1, k as u8 + 1],
                            labels: [p.label, o.label, "", "", "", "", "", ""],
                            kinds: [p.expected, o.expected, "", "", "", "", "", ""],
                            missing: false,
                            hint,
                        }
                    }
                    None => Expect {
                        index: [k as u8 + 1, 0],
                        labels: [o.label, "", "", "", "", "", "", ""],
                        kinds: [o.expected, "", "", "", "", "", "", ""],
                        missing: false,
                        hint,
                    },
                };
                return Err(fail(
                    k,
                    AsmError::new(tok.start, tok.end, AsmErrorKind::Expect(x)),
                    first_bad,
                ));
            }
            Read::Bad(mut problem) => {
                // Which operand takes a suffix this one does not.
                if let Problem::Suffix(_, s, e, owner, label) = &mut problem {
                    let sfx = l.text.get(*s..*e).unwrap_or("");
                    let takes = |o: &OperandSpec<'t>| {
                        o.subs.iter().any(
                            |sub| matches!(sub.role, SubRole::Suffix(name) if name.code(sfx).is_some()),
                        )
                    };
                    if let Some(j) = spec.operands.iter().position(takes) {
                        *owner = j as u8 + 1;
                        *label = spec.operands[j].label;
                    }
                }
                if first_bad.is_none() {
                    let kind = AsmErrorKind::Invalid {
                        index: k as u8 + 1,
                        label: o.label,
                        problem,
                    };
                    first_bad = Some((k, AsmError::new(tok.start, tok.end, kind)));
                }
                map[t] = k as u8;
                t += 1;
            }
        }
    }
    // The widths a later operand decided, on the word as read: a wrong one is a bad
    // value of its operand, as if found when it was read. (After a bad value the word
    // is not the line's, so its widths are not either: that error is the one said.)
    if first_bad.is_some() {
        later = 0;
    }
    while later != 0 {
        let at = later.trailing_zeros() as usize;
        later &= later - 1;
        let k = usize::from(map[at]);
        let (Some(o), Some(tok)) = (spec.operands.get(k), l.op(at)) else {
            continue;
        };
        let Kind::Reg {
            prefix,
            lo,
            hi,
            count,
            ..
        } = o.kind
        else {
            continue;
        };
        let code = o.at.get(w) as u64;
        let n = spec.registers(count, w);
        if width_fits(n, lo, hi, code, tok) {
            continue;
        }
        let problem = width_problem(n, prefix, code, tok);
        let kind = AsmErrorKind::Invalid {
            index: k as u8 + 1,
            label: o.label,
            problem,
        };
        first_bad = Some((k, AsmError::new(tok.start, tok.end, kind)));
        break;
    }
    let max = spec.operands.len();
    if let Some(tok) = l.op(t) {
        // Tokens left over are not always one too many. The token the last optional
        // operand did not take is of the wrong kind for that operand; and when there
        // are no more tokens than operands, every operand was given, so the first
        // optional one skipped did not take the token meant for it.
        let blame = skipped
            .filter(|&(at, _)| at == t)
            .or(first_skip.filter(|_| n <= max));
        if let Some((at, j)) = blame {
            let tok = l.op(at).unwrap_or(tok);
            let p = &spec.operands[j];
            let x = Expect {
                index: [j as u8 + 1, 0],
                labels: [p.label, "", "", "", "", "", "", ""],
                kinds: [p.expected, "", "", "", "", "", "", ""],
                missing: false,
                hint: name_hint(p, tok),
            };
            return Err(fail(
                j,
                AsmError::new(tok.start, tok.end, AsmErrorKind::Expect(x)),
                first_bad,
            ));
        }
        return Err(fail(
            max,
            AsmError::new(
                tok.start,
                tok.end,
                AsmErrorKind::TooMany(max as u8, n as u8, spec.operands.iter().any(|o| o.optional)),
            ),
            first_bad,
        ));
    }
    if let Some((at, err)) = first_bad {
        return Err(Fail {
            rank: operand_rank(max + 1, at),
            err,
        });
    }
    if let Some(x) = spec.exceptions.iter().find(|x| spec.eval(x.cond, w) != 0) {
        let err = AsmError::new(
            l.parts[0].1,
            l.mnemonic_end(),
            AsmErrorKind::Exception(x.kind, x.message),
        );
        return Err(Fail {
            rank: u32::MAX,
            err,
        });
    }
    Ok(w)
}

/// Whether operand `o` may read token `t`: false for a class of token it never reads
/// (a number where a register goes, another register file's range, …), as `read`
/// asserts in debug builds.
fn fits(o: &OperandSpec<'_>, t: &crate::lex::Tok) -> bool {
    use crate::lex::TokCore as T;
    match (&o.kind, &t.core) {
        (Kind::Reg { prefix, .. }, T::Range(file, ..)) => file == prefix,
        (Kind::Reg { .. } | Kind::Enum { .. }, T::Name(_)) => true,
        (Kind::Word(word), T::Name(n)) => n == word,
        (Kind::Imm { .. }, T::Number(_) | T::Label(..)) => true,
        (Kind::CMem { .. }, T::ConstMem(_, None, _)) => true,
        (Kind::CMemIdx { .. }, T::ConstMem(..)) => true,
        (Kind::RegIdx { prefix, .. }, T::Indexed(file, ..)) => file == prefix,
        _ => false,
    }
}

/// Whether `spec` may match the line: false only when it cannot, every operand being
/// required and the tokens not one each of the classes they read.
fn may_match(spec: &OpcodeSpec<'_>, l: &crate::lex::Line) -> bool {
    if spec.operands.iter().any(|o| o.optional) {
        return true;
    }
    spec.operands.len() == l.nops
        && spec
            .operands
            .iter()
            .enumerate()
            .all(|(k, o)| l.op(k).is_some_and(|t| fits(o, t)))
}

/// A spec's mnemonics by their first part, as a generated crate holds them for
/// [`forms_of`]: `(first part, [(mnemonic, its forms)])`.
pub type Mnemonics<'t> = [(&'t str, &'t [(&'t str, &'t [&'t OpcodeSpec<'t>])])];

/// The forms of a line's mnemonic in `table`, a spec's mnemonics by their first part:
/// `(first part, mnemonics)` sorted by the first part's length, then its bytes (so that
/// the search mostly compares lengths), each with its `(mnemonic, forms)`, as a
/// generated crate holds them and a tool builds them. The line's mnemonic is the
/// longest run of its leading parts that names one (`UIMAD.WIDE` of `UIMAD.WIDE.U32`):
/// how many parts it takes, and its forms. A line whose parts name none gets the error
/// of an unknown mnemonic, at its first part, with the nearest names of the table.
#[allow(clippy::result_large_err)]
pub fn forms_of<'a, K, R, N, T>(
    l: &crate::lex::Line,
    table: &'a [(K, R)],
) -> Result<(usize, &'a T), AsmError<'a>>
where
    K: AsRef<str>,
    R: AsRef<[(N, T)]> + 'a,
    N: AsRef<str> + 'a,
{
    let (first, s, e) = l.parts[0];
    let p = first.as_bytes();
    let at = table.binary_search_by(|(k, _)| {
        let k = k.as_ref().as_bytes();
        k.len().cmp(&p.len()).then_with(|| bytes_cmp(k, p))
    });
    if let Ok(i) = at {
        // Most first parts name one mnemonic, themselves: it is the answer.
        if let [(n, forms)] = table[i].1.as_ref() {
            if n.as_ref().len() == p.len() {
                return Ok((1, forms));
            }
        }
        // The mnemonic and modifiers as written: the parts are contiguous, one `.`
        // apart. A mnemonic is spelt when it is this text, or the start of it up to a
        // `.`; the longest spelt wins.
        let text = l.text.as_bytes();
        let written = text
            .get(l.parts[0].1..l.parts[l.nparts.max(1) - 1].2)
            .unwrap_or(&[]);
        let mut found: Option<(&[u8], &T)> = None;
        for (n, forms) in table[i].1.as_ref() {
            let n = n.as_ref().as_bytes();
            let spelt = written
                .get(..n.len())
                .is_some_and(|w| bytes_cmp(w, n).is_eq())
                && written.get(n.len()).is_none_or(|&c| c == b'.')
                && found.is_none_or(|(m, _)| n.len() > m.len());
            if spelt {
                found = Some((n, forms));
            }
        }
        if let Some((n, forms)) = found {
            // The parts it takes: its dots, one a part.
            return Ok((1 + n.iter().filter(|&&c| c == b'.').count(), forms));
        }
    }
    let names = table
        .iter()
        .flat_map(|(_, ms)| ms.as_ref().iter().map(|(n, _)| n.as_ref()));
    let near = crate::suggest::nearest::<3>(first, names);
    Err(AsmError::new(s, e, AsmErrorKind::UnknownMnemonic(near)))
}

/// `a.cmp(b)` for names of a few bytes: a loop the compiler keeps inline, where the
/// slices' `cmp` calls `memcmp` (most of the lookup's time).
#[inline(always)]
fn bytes_cmp(a: &[u8], b: &[u8]) -> core::cmp::Ordering {
    for (x, y) in a.iter().zip(b) {
        if x != y {
            return x.cmp(y);
        }
    }
    a.len().cmp(&b.len())
}

/// For each operand token of a line, the operand (its index in
/// [`OpcodeSpec::operands`]) it was read as.
pub type OperandMap = [u8; crate::lex::MAX_OPERANDS];

/// Assembles a lexed line against the candidate opcodes of its mnemonic: the word of
/// the first that matches, or the most specific error.
#[allow(clippy::result_large_err)]
pub fn assemble<'t>(
    l: &crate::lex::Line,
    m0: usize,
    cands: &[&OpcodeSpec<'t>],
    addr: u64,
    labels: &dyn Fn(&str) -> Option<u64>,
) -> Result<u128, AsmError<'t>> {
    let mut map = [0; crate::lex::MAX_OPERANDS];
    assemble_mapped(l, m0, cands, addr, labels, &mut map).map(|(w, _)| w)
}

/// [`assemble`], also saying which candidate matched (its index in `cands`) and, in
/// `map`, which of its operands each operand token was read as.
#[allow(clippy::result_large_err)]
pub fn assemble_mapped<'t>(
    l: &crate::lex::Line,
    m0: usize,
    cands: &[&OpcodeSpec<'t>],
    addr: u64,
    labels: &dyn Fn(&str) -> Option<u64>,
    map: &mut OperandMap,
) -> Result<(u128, usize), AsmError<'t>> {
    // The forms that cannot match are passed over while looking for the one that
    // does: the first that matches is the same, found without reading the others.
    // When none matches, every form is tried in order for the most specific error.
    if cands.len() > 1 {
        for (i, spec) in cands.iter().enumerate().filter(|(_, s)| may_match(s, l)) {
            if let Ok(w) = attempt(spec, l, m0, addr, labels, map) {
                return Ok((w, i));
            }
        }
    }
    let mut best: Option<Fail> = None;
    for (i, spec) in cands.iter().enumerate() {
        match attempt(spec, l, m0, addr, labels, map) {
            Ok(w) => return Ok((w, i)),
            Err(f) => best = better(best, f),
        }
    }
    Err(best.map_or(AsmError::new(0, 0, AsmErrorKind::Empty), |b| b.err))
}
