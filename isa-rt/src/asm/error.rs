//! The error a line of assembly gets, and its message: the words every assembler of
//! the toolchain says (`isa-gen/src/asm/` renders its own; `isa-gen/tests/asm.rs`
//! compares them). No allocation: errors hold byte spans, numbers and text of the
//! spec's tables (`'t`).

use core::fmt::{self, Write};

use super::RegFile;

/// Why a line of assembly was rejected, and where (`start..end`, bytes of the line).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AsmError<'t> {
    /// First byte of the offending text in the line.
    pub start: usize,
    /// One past its last byte (equal to `start` at the end of the line).
    pub end: usize,
    /// What is wrong.
    pub kind: AsmErrorKind<'t>,
}

/// What is wrong with a line of assembly.
// `Expect` is the large one (what every candidate opcode expected, without allocating);
// an error is made once per rejected line, so its size costs nothing that matters.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AsmErrorKind<'t> {
    /// Malformed text: what was expected (the message adds what was found).
    Syntax(&'static str),
    /// Malformed text: a complete message; `{}` stands for the offending text.
    Msg(&'static str),
    /// A line with no instruction (empty, only a comment, or only `;`).
    Empty,
    /// The mnemonic names no instruction; the nearest valid ones.
    UnknownMnemonic([&'t str; 3]),
    /// A modifier the instruction does not have: the mnemonic, the nearest valid ones,
    /// and all of them (`.A .B`, said when none is near).
    UnknownModifier(&'t str, [&'t str; 3], &'t str),
    /// A modifier whose field an earlier one set: the mnemonic, the field's spec name,
    /// and where the earlier modifier is in the line (`start..end`, without its dot).
    DuplicateModifier(&'t str, &'t str, usize, usize),
    /// A required modifier left out: its field and its values.
    MissingModifier(&'t str, &'t str),
    /// A guard predicate on an instruction that has none.
    NoGuard,
    /// A guard from the wrong register file: the expected file.
    Guard(&'t str),
    /// `@!` on a guard that cannot be negated.
    GuardNotNegatable,
    /// An operand of the wrong kind, or missing.
    Expect(Expect<'t>),
    /// An operand of the right kind with a bad value.
    Invalid {
        /// 1-based index among the operands.
        index: u8,
        /// The spec's name for it.
        label: &'t str,
        /// What is wrong.
        problem: Problem<'t>,
    },
    /// More operands than the instruction takes: how many it takes, how many were
    /// written, whether some of them may be left out ("at most").
    TooMany(u8, u8, bool),
    /// The spec's `__Exception` condition holds: its kind and message.
    Exception(&'t str, &'t str),
}

/// "`MNEMONIC` operand 4 (its label): expected a KIND or a KIND, found TEXT", or "… is
/// missing".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Expect<'t> {
    /// 1-based operand numbers (a second one when an optional operand was left out).
    pub index: [u8; 2],
    /// The spec's names for the operand (several when candidate opcodes differ).
    pub labels: [&'t str; 8],
    /// What would have been accepted.
    pub kinds: [&'t str; 8],
    /// The operand is missing (rather than of the wrong kind).
    pub missing: bool,
    /// What the spec says about a name written there, for the message's hints.
    pub hint: Option<NameHint<'t>>,
}

/// A name written where an operand of another kind was expected, and what the spec
/// knows of it: it may be a register past the end of its file, the spec's own name of
/// the operand, or a misspelt value of the expected enumeration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NameHint<'t> {
    /// Where the name is in the line (`start..end`, without a prefix symbol).
    pub(crate) start: usize,
    pub(crate) end: usize,
    /// The field names of the opcode.
    pub(crate) fields: &'t [&'t str],
    /// The spec's register files.
    pub(crate) files: &'t [RegFile<'t>],
    /// What the operand takes (`a Pred`).
    pub(crate) expected: &'t str,
    /// The operand's enumeration, when it is one: its name and values.
    pub(crate) values: Option<(&'t str, &'t [&'t str])>,
}

/// What is wrong with an operand of the right kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Problem<'t> {
    /// An immediate outside `min..=max` of the named type: the value, and for a signed
    /// one, its width (its bit pattern is accepted too).
    Range(&'t str, i128, i128, i128, Option<u8>),
    /// A branch target not a multiple of `align` bytes from the next instruction: the
    /// target, the alignment, the next instruction's address.
    Misaligned(i128, u64, i128),
    /// A branch target too far away, and the targets in reach (when there are any).
    TargetRange(i128, Option<(i128, i128)>),
    /// An absolute address (true) or a scaled immediate (false) that is not a multiple
    /// of its scale.
    NotMultiple(bool, i128, u64),
    /// An absolute address (true) or a scaled immediate (false) outside `min..=max`.
    ScaledRange(bool, i128, i128, i128),
    /// A label never defined: where its name is in the line.
    UndefinedLabel(usize, usize),
    /// A label where only a number is allowed.
    LabelNotAllowed,
    /// A `!`, `-` or `~` the operand does not take (true: an immediate).
    Prefix(char, bool),
    /// `-` where the `.X` form wants `~` (true), or `~` where `-` is right (false).
    NegForm(bool),
    /// A `.SUFFIX` the operand does not take: whether it is an immediate, where the
    /// suffix is in the line (without its dot), and the operand that takes it (its
    /// 1-based index and label; index 0 when none does).
    Suffix(bool, usize, usize, u8, &'t str),
    /// A register range of the wrong size: the file's prefix, the first and last
    /// register written, and the bits the operand has.
    RangeWidth(&'t str, u64, u64, u32),
    /// A single register where a range is needed: the bits expected, the file's
    /// prefix and the register's number.
    NeedsRange(u32, &'t str, u64),
    /// A register that does not exist: the file's prefix and the number.
    NoSuchRegister(&'t str, u64),
    /// A constant-memory bank that does not fit: the bank, its width in bits.
    Bank(u64, u8),
    /// A constant-memory offset outside `min..=max`: the offset, min, max.
    Offset(i128, i128, i128),
    /// An index register not of its file: the file's type name, whether in a
    /// constant-memory operand (`c[…][…]`), and where the name is in the line.
    IndexReg(&'t str, bool, usize, usize),
    /// A `c[…][…]` without the address register its operand has no constant for.
    NoIndexReg,
    /// An index offset outside `min..=max`: the offset, min, max.
    IndexOffset(i128, i128, i128),
}

impl<'t> AsmError<'t> {
    /// An error of `kind` at `start..end` of the line.
    pub const fn new(start: usize, end: usize, kind: AsmErrorKind<'t>) -> AsmError<'t> {
        AsmError { start, end, kind }
    }

    /// The message, quoting the offending text from `line`, with its notes in
    /// parentheses after it.
    pub fn display<'a>(&'a self, line: &'a str) -> AsmErrorDisplay<'a, 't> {
        AsmErrorDisplay {
            err: self,
            line,
            part: Part::All,
        }
    }

    /// The message alone, without its notes (for a renderer that shows notes apart).
    pub fn message<'a>(&'a self, line: &'a str) -> AsmErrorDisplay<'a, 't> {
        AsmErrorDisplay {
            err: self,
            line,
            part: Part::Message,
        }
    }

    /// Note `n` of the message (a hint: "did you mean `SHFL`?"); empty when the message
    /// has fewer notes.
    pub fn note<'a>(&'a self, line: &'a str, n: u8) -> AsmErrorDisplay<'a, 't> {
        AsmErrorDisplay {
            err: self,
            line,
            part: Part::Note(n),
        }
    }

    /// 1-based column (in characters) of the error in `line`.
    pub fn column(&self, line: &str) -> usize {
        line.get(..self.start).map_or(1, |s| s.chars().count() + 1)
    }
}

impl From<crate::lex::LexError> for AsmError<'_> {
    fn from(e: crate::lex::LexError) -> Self {
        let kind = match e.kind {
            crate::lex::LexErrorKind::Syntax(what) => AsmErrorKind::Syntax(what),
            crate::lex::LexErrorKind::Msg(template) => AsmErrorKind::Msg(template),
            crate::lex::LexErrorKind::Empty => AsmErrorKind::Empty,
        };
        AsmError::new(e.start, e.end, kind)
    }
}

/// An [`AsmError`] with its line, for printing: the whole message, the message
/// without its notes, or one note.
#[derive(Clone, Copy, Debug)]
pub struct AsmErrorDisplay<'a, 't> {
    err: &'a AsmError<'t>,
    line: &'a str,
    part: Part,
}

/// What of a message is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Part {
    /// The message, each note after it in parentheses.
    All,
    /// The message without its notes.
    Message,
    /// Only note `n` (from 0).
    Note(u8),
}

/// Where a message is written: passes on the text of the part asked for, and drops
/// the rest, so that the message is composed in one place whatever part is shown.
struct Out<'a, 'b> {
    f: &'a mut fmt::Formatter<'b>,
    part: Part,
    /// Notes begun so far.
    notes: u8,
    /// Whether the text written now is a note's.
    in_note: bool,
}

impl Out<'_, '_> {
    /// The text that follows is a note.
    fn begin_note(&mut self) -> fmt::Result {
        self.notes += 1;
        self.in_note = true;
        if self.part == Part::All {
            self.f.write_str(" (")?;
        }
        Ok(())
    }

    /// The note begun ends.
    fn end_note(&mut self) -> fmt::Result {
        self.in_note = false;
        if self.part == Part::All {
            self.f.write_str(")")?;
        }
        Ok(())
    }
}

impl Write for Out<'_, '_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let shown = match self.part {
            Part::All => true,
            Part::Message => !self.in_note,
            Part::Note(n) => self.in_note && self.notes == n + 1,
        };
        if shown {
            self.f.write_str(s)?;
        }
        Ok(())
    }
}

impl AsmErrorDisplay<'_, '_> {
    fn lex_error(&self, kind: crate::lex::LexErrorKind, o: &mut Out<'_, '_>) -> fmt::Result {
        let e = crate::lex::LexError {
            start: self.err.start,
            end: self.err.end,
            kind,
        };
        write!(o, "{}", e.display(self.line))
    }
}

fn write_list(f: &mut Out<'_, '_>, items: &[&str], quote: bool) -> fmt::Result {
    let items: &[&str] = {
        let n = items.iter().take_while(|s| !s.is_empty()).count();
        &items[..n]
    };
    for (i, s) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(if i + 1 == items.len() { " or " } else { ", " })?;
        }
        if quote {
            write!(f, "`{s}`")?;
        } else {
            f.write_str(s)?;
        }
    }
    Ok(())
}

impl fmt::Display for AsmErrorDisplay<'_, '_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = Out {
            f,
            part: self.part,
            notes: 0,
            in_note: false,
        };
        self.write(&mut out)
    }
}

impl AsmErrorDisplay<'_, '_> {
    fn write(&self, f: &mut Out<'_, '_>) -> fmt::Result {
        let e = self.err;
        let found = self.line.get(e.start..e.end).unwrap_or("");
        let mnemonic = mnemonic_text(self.line);
        match e.kind {
            // The lexer's own errors, in its words.
            AsmErrorKind::Syntax(what) => self.lex_error(crate::lex::LexErrorKind::Syntax(what), f),
            AsmErrorKind::Msg(template) => {
                self.lex_error(crate::lex::LexErrorKind::Msg(template), f)
            }
            AsmErrorKind::Empty => self.lex_error(crate::lex::LexErrorKind::Empty, f),
            AsmErrorKind::UnknownMnemonic(near) => {
                write!(f, "unknown mnemonic `{found}`")?;
                if !near[0].is_empty() {
                    f.begin_note()?;
                    f.write_str("did you mean ")?;
                    write_list(f, &near, true)?;
                    f.write_str("?")?;
                    f.end_note()?;
                }
                Ok(())
            }
            AsmErrorKind::UnknownModifier(name, near, all) => {
                write!(f, "unknown modifier `{found}` for `{name}`")?;
                if !near[0].is_empty() {
                    f.begin_note()?;
                    f.write_str("did you mean ")?;
                    for (i, n) in near.iter().filter(|n| !n.is_empty()).enumerate() {
                        if i > 0 {
                            let last = near.get(i + 1).is_none_or(|n| n.is_empty());
                            f.write_str(if last { " or " } else { ", " })?;
                        }
                        write!(f, "`.{n}`")?;
                    }
                    f.write_str("?")?;
                    f.end_note()?;
                } else if !all.is_empty() {
                    f.begin_note()?;
                    write!(f, "modifiers of `{name}`: {all}")?;
                    f.end_note()?;
                }
                Ok(())
            }
            AsmErrorKind::DuplicateModifier(name, field, s, e) => {
                let earlier = self.line.get(s..e).unwrap_or("");
                if found.strip_prefix('.') == Some(earlier) {
                    write!(f, "modifier `{found}` is given twice")
                } else {
                    write!(
                        f,
                        "`{found}` and `.{earlier}` both set the `.{field}` modifier of `{name}`"
                    )
                }
            }
            AsmErrorKind::MissingModifier(field, values) => {
                write!(
                    f,
                    "`{mnemonic}` needs its `.{field}` modifier: one of {values}"
                )
            }
            AsmErrorKind::NoGuard => write!(f, "`{mnemonic}` takes no guard predicate"),
            AsmErrorKind::Guard(file) => {
                write!(
                    f,
                    "guard of `{mnemonic}`: expected a {file}, found `{}`",
                    found.trim_start_matches(['@', '!'])
                )
            }
            AsmErrorKind::GuardNotNegatable => {
                write!(f, "the guard of `{mnemonic}` cannot be negated")
            }
            AsmErrorKind::Expect(x) => {
                write!(f, "`{mnemonic}` operand {}", x.index[0])?;
                if x.index[1] != 0 {
                    write!(f, " or {}", x.index[1])?;
                }
                f.write_str(" (")?;
                for (i, l) in x.labels.iter().filter(|l| !l.is_empty()).enumerate() {
                    if i > 0 {
                        f.write_str(" or ")?;
                    }
                    f.write_str(l)?;
                }
                f.write_str(if x.missing {
                    ") is missing: expected "
                } else {
                    "): expected "
                })?;
                write_list(f, &x.kinds, false)?;
                if x.missing {
                    return Ok(());
                }
                write!(f, ", found {found}")?;
                match x.hint {
                    Some(h) => write_hints(f, self.line, &h),
                    None => Ok(()),
                }
            }
            AsmErrorKind::Invalid {
                index,
                label,
                problem,
            } => {
                write!(f, "`{mnemonic}` operand {index} ({label}): ")?;
                match problem {
                    Problem::Range(ty, v, min, max, signed) => {
                        f.write_str("immediate ")?;
                        crate::num::write_hex(f, v)?;
                        write!(f, " does not fit {ty} (")?;
                        crate::num::write_hex(f, min)?;
                        f.write_str("..=")?;
                        crate::num::write_hex(f, max)?;
                        if let Some(w) = signed {
                            write!(f, ", or its {w}-bit pattern up to ")?;
                            crate::num::write_hex(f, super::bounds(w, false).1)?;
                        }
                        f.write_str(")")
                    }
                    Problem::Misaligned(target, align, next) => {
                        f.write_str("branch target ")?;
                        crate::num::write_hex(f, target)?;
                        write!(
                            f,
                            " is not a multiple of {align:#x} bytes from the next instruction ("
                        )?;
                        crate::num::write_hex(f, next)?;
                        f.write_str(")")
                    }
                    Problem::TargetRange(target, reach) => {
                        f.write_str("branch target ")?;
                        crate::num::write_hex(f, target)?;
                        f.write_str(" is out of range")?;
                        if let Some((min, max)) = reach {
                            f.write_str(" (")?;
                            crate::num::write_hex(f, min)?;
                            f.write_str("..=")?;
                            crate::num::write_hex(f, max)?;
                            f.write_str(")")?;
                        }
                        Ok(())
                    }
                    Problem::NotMultiple(abs, v, align) => {
                        f.write_str(if abs { "address " } else { "immediate " })?;
                        crate::num::write_hex(f, v)?;
                        write!(f, " is not a multiple of {align:#x}")
                    }
                    Problem::ScaledRange(abs, v, min, max) => {
                        f.write_str(if abs { "address " } else { "immediate " })?;
                        crate::num::write_hex(f, v)?;
                        f.write_str(" is out of range (")?;
                        crate::num::write_hex(f, min)?;
                        f.write_str("..=")?;
                        crate::num::write_hex(f, max)?;
                        f.write_str(")")
                    }
                    Problem::UndefinedLabel(s, e) => {
                        write!(f, "undefined label `{}`", self.line.get(s..e).unwrap_or(""))
                    }
                    Problem::LabelNotAllowed => {
                        f.write_str("a label is only allowed as a branch target")
                    }
                    Problem::Prefix(c, true) => write!(f, "an immediate takes no `{c}` prefix"),
                    Problem::Prefix(c, false) => {
                        write!(f, "this operand does not take a `{c}` prefix")
                    }
                    Problem::NegForm(true) => {
                        f.write_str("`-` is not allowed here (with `.X`, write `~` instead of `-`)")
                    }
                    Problem::NegForm(false) => f.write_str(
                        "`~` is not allowed here (without `.X`, write `-` instead of `~`)",
                    ),
                    Problem::Suffix(imm, s, e, owner, owner_label) => {
                        let sfx = self.line.get(s..e).unwrap_or("");
                        f.write_str(if imm {
                            "an immediate takes no"
                        } else {
                            "this operand does not take a"
                        })?;
                        write!(f, " `.{sfx}` suffix")?;
                        if owner != 0 {
                            write!(f, " (`.{sfx}` goes with operand {owner} ({owner_label}))")?;
                        }
                        Ok(())
                    }
                    Problem::RangeWidth(prefix, first, last, want) => write!(
                        f,
                        "{prefix}[{first}:{last}] is {} bits but the operand is {want} bits here",
                        (last - first + 1) * 32
                    ),
                    Problem::NeedsRange(bits, prefix, n) => write!(
                        f,
                        "a {bits}-bit operand: write the register range {prefix}[{n}:{}]",
                        n + u64::from(bits).div_ceil(32) - 1
                    ),
                    Problem::NoSuchRegister(prefix, n) => write!(f, "{prefix}{n} does not exist"),
                    Problem::Bank(bank, bits) => {
                        write!(f, "bank {bank:#x} does not fit in {bits} bits")
                    }
                    Problem::Offset(off, min, max) => {
                        f.write_str("offset ")?;
                        crate::num::write_hex(f, off)?;
                        f.write_str(" is outside ")?;
                        crate::num::write_hex(f, min)?;
                        f.write_str("..=")?;
                        crate::num::write_hex(f, max)
                    }
                    Problem::IndexReg(ty, cmem, s, e) => {
                        let name = self.line.get(s..e).unwrap_or("");
                        if cmem {
                            write!(f, "expected a {ty} in `c[…][…]`, found `{name}`")
                        } else {
                            write!(f, "expected a {ty} as the index, found `{name}`")
                        }
                    }
                    Problem::NoIndexReg => f.write_str("write the address register"),
                    Problem::IndexOffset(off, min, max) => {
                        f.write_str("index offset ")?;
                        crate::num::write_hex(f, off)?;
                        f.write_str(" does not fit (")?;
                        crate::num::write_hex(f, min)?;
                        f.write_str("..=")?;
                        crate::num::write_hex(f, max)?;
                        f.write_str(")")
                    }
                }
            }
            AsmErrorKind::TooMany(max, n, at_most) => write!(
                f,
                "too many operands: `{mnemonic}` takes {}{max}, found {n}",
                if at_most { "at most " } else { "" }
            ),
            AsmErrorKind::Exception(kind, message) => {
                write!(f, "`{mnemonic}`: {message}")?;
                f.begin_note()?;
                write!(f, "the spec's {kind} exception")?;
                f.end_note()
            }
        }
    }
}

/// The hints after "found NAME" (each in parentheses), as the interpreting assembler
/// gives them: a numbered register past the end of its file, the spec's own name of the
/// operand, values of the expected enumeration that the name starts or nearly is.
fn write_hints(f: &mut Out<'_, '_>, line: &str, h: &NameHint<'_>) -> fmt::Result {
    let name = line.get(h.start..h.end).unwrap_or("");
    let base = name.split_once('.').map_or(name, |(b, _)| b);
    for &RegFile {
        type_name: ty,
        prefix,
        lo,
        hi,
        named,
    } in h.files
    {
        let Some(n) = base.strip_prefix(prefix) else {
            continue;
        };
        if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        // Written like a register of this file but none of it (`R255`, `R01`).
        let exists = (n.len() == 1 || !n.starts_with('0'))
            && n.parse::<u64>().is_ok_and(|v| (lo..=hi).contains(&v));
        if !exists {
            f.begin_note()?;
            write!(
                f,
                "`{base}` does not exist: `{ty}` has {prefix}{lo}..{prefix}{hi}"
            )?;
            if !named.is_empty() {
                write!(f, " and {named}")?;
            }
            f.end_note()?;
        }
    }
    if h.fields.contains(&name) {
        f.begin_note()?;
        write!(
            f,
            "`{name}` is the operand's name in the spec; write {} instead",
            h.expected
        )?;
        f.end_note()?;
    }
    if let Some((ty, values)) = h.values {
        let mut starts = [""; 4];
        let mut n = 0;
        for v in values
            .iter()
            .filter(|v| v.starts_with(name) && v.len() > name.len())
        {
            if n < starts.len() {
                starts[n] = v;
                n += 1;
            }
        }
        let near: [&str; 4] = if n > 0 {
            starts
        } else {
            let [a, b, c] = crate::suggest::nearest::<3>(name, values.iter().copied());
            [a, b, c, ""]
        };
        f.begin_note()?;
        if near[0].is_empty() {
            write!(f, "`{name}` is not a value of `{ty}`")?;
        } else {
            f.write_str("did you mean ")?;
            write_list(f, &near, true)?;
            f.write_str("?")?;
        }
        f.end_note()?;
    }
    Ok(())
}

/// The mnemonic with its modifiers as written, for messages.
fn mnemonic_text(line: &str) -> &str {
    let t = line.trim_start();
    let t = match t.strip_prefix('@') {
        Some(r) => r
            .trim_start_matches('!')
            .trim_start_matches(|c: char| c.is_ascii_alphanumeric() || c == '_')
            .trim_start(),
        None => t,
    };
    let end = t
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
        .unwrap_or(t.len());
    &t[..end]
}
