// Hand-written support for the generated assembler, emitted verbatim into the
// generated code (see `codegen::asm_parse`). It knows nothing of any particular spec:
// the lexer, the token types, the error type and the helpers the per-opcode parsers
// call. `no_std`, no allocation: tokens borrow the line, errors hold byte spans and
// static strings.

/// Most operands a line may have.
const MAX_OPERANDS: usize = 16;
/// Most mnemonic parts (name and modifiers) a line may have.
const MAX_PARTS: usize = 16;

/// Why a line of assembly was rejected, and where (`start..end`, bytes of the line).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AsmError {
    /// First byte of the offending text in the line.
    pub start: usize,
    /// One past its last byte (equal to `start` at the end of the line).
    pub end: usize,
    /// What is wrong.
    pub kind: AsmErrorKind,
}

/// What is wrong with a line of assembly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AsmErrorKind {
    /// Malformed text: what was expected (the message adds what was found).
    Syntax(&'static str),
    /// Malformed text: a complete message; `{}` stands for the offending text.
    Msg(&'static str),
    /// A line with no instruction (empty, only a comment, or only `;`).
    Empty,
    /// The mnemonic names no instruction; the nearest valid ones.
    UnknownMnemonic([&'static str; 3]),
    /// A modifier the instruction does not have: the mnemonic, the nearest valid ones.
    UnknownModifier(&'static str, [&'static str; 3]),
    /// A modifier given twice (the field's spec name).
    DuplicateModifier(&'static str),
    /// A required modifier left out: its field and its values.
    MissingModifier(&'static str, &'static str),
    /// A guard predicate on an instruction that has none.
    NoGuard,
    /// A guard from the wrong register file: the expected file.
    Guard(&'static str),
    /// `@!` on a guard that cannot be negated.
    GuardNotNegatable,
    /// An operand of the wrong kind.
    Operand {
        /// 1-based index among the operands (the guard excluded).
        index: u8,
        /// The spec's name for it (`SrcB`).
        label: &'static str,
        /// An optional operand just before it that the token did not fit either.
        also: Option<(u8, &'static str)>,
        /// What would have been accepted (`a Reg`, `a UImm5`).
        expected: [&'static str; 4],
    },
    /// An operand of the right kind with a bad value.
    Invalid {
        /// 1-based index among the operands.
        index: u8,
        /// The spec's name for it.
        label: &'static str,
        /// What is wrong.
        problem: Problem,
    },
    /// A required operand left out.
    Missing {
        /// 1-based index among the operands.
        index: u8,
        /// The spec's name for it.
        label: &'static str,
        /// What it takes.
        expected: &'static str,
    },
    /// More operands than the instruction takes (at most this many).
    TooMany(u8),
    /// The spec's `__Exception` condition holds: its kind and message.
    Exception(&'static str, &'static str),
}

/// What is wrong with an operand of the right kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Problem {
    /// An immediate outside `min..=max` of the named type.
    Range(&'static str, i128, i128),
    /// A branch target not a multiple of `align` bytes from the next instruction.
    Misaligned(i128, u64),
    /// A branch target too far away.
    TargetRange(i128),
    /// A label never defined.
    UndefinedLabel,
    /// A label where only a number is allowed.
    LabelNotAllowed,
    /// A `!`, `-` or `~` the operand does not take.
    Prefix(char),
    /// `-` where the `.X` form wants `~` (true), or `~` where `-` is right (false).
    NegForm(bool),
    /// A `.SUFFIX` the operand does not take.
    Suffix,
    /// A register range of the wrong size: bits written, bits expected.
    RangeWidth(u32, u32),
    /// A single register where a range is needed: the bits expected.
    NeedsRange(u32),
    /// A register that does not exist.
    NoSuchRegister,
    /// A constant-memory bank or offset that does not fit.
    ConstMem,
    /// An index register of the wrong file, or an offset that does not fit.
    Index,
}

impl AsmError {
    const fn new(start: usize, end: usize, kind: AsmErrorKind) -> AsmError {
        AsmError { start, end, kind }
    }

    /// The message, quoting the offending text from `line`.
    pub fn display<'a>(&'a self, line: &'a str) -> AsmErrorDisplay<'a> {
        AsmErrorDisplay { err: self, line }
    }

    /// 1-based column (in characters) of the error in `line`.
    pub fn column(&self, line: &str) -> usize {
        line.get(..self.start).map_or(1, |s| s.chars().count() + 1)
    }
}

/// An [`AsmError`] with its line, for printing.
#[derive(Clone, Copy, Debug)]
pub struct AsmErrorDisplay<'a> {
    err: &'a AsmError,
    line: &'a str,
}

fn write_list(f: &mut core::fmt::Formatter<'_>, items: &[&str], quote: bool) -> core::fmt::Result {
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

impl core::fmt::Display for AsmErrorDisplay<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let e = self.err;
        let found = self.line.get(e.start..e.end).unwrap_or("");
        let mnemonic = mnemonic_text(self.line);
        match e.kind {
            AsmErrorKind::Syntax(what) => {
                write!(f, "expected {what}, found {}", Found(self.line, e))
            }
            AsmErrorKind::Msg(template) => match template.split_once("{}") {
                Some((a, b)) => write!(f, "{a}{found}{b}"),
                None => f.write_str(template),
            },
            AsmErrorKind::Empty => {
                let t = self.line.trim();
                f.write_str(if t.is_empty() {
                    "expected an instruction, found an empty line"
                } else if t.starts_with("//") {
                    "expected an instruction, found only a comment"
                } else {
                    "expected an instruction, found an empty statement"
                })
            }
            AsmErrorKind::UnknownMnemonic(near) => {
                write!(f, "unknown mnemonic `{found}`")?;
                if !near[0].is_empty() {
                    f.write_str(" (did you mean ")?;
                    write_list(f, &near, true)?;
                    f.write_str("?)")?;
                }
                Ok(())
            }
            AsmErrorKind::UnknownModifier(name, near) => {
                write!(f, "unknown modifier `{found}` for `{name}`")?;
                if !near[0].is_empty() {
                    f.write_str(" (did you mean ")?;
                    write_list(f, &near, true)?;
                    f.write_str("?)")?;
                }
                Ok(())
            }
            AsmErrorKind::DuplicateModifier(field) => {
                write!(
                    f,
                    "`{found}` sets the `.{field}` modifier of `{mnemonic}` a second time"
                )
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
            AsmErrorKind::Operand {
                index,
                label,
                also,
                expected,
            } => {
                match also {
                    Some((i, l)) => write!(
                        f,
                        "`{mnemonic}` operand {i} or {index} ({l} or {label}): expected "
                    )?,
                    None => write!(f, "`{mnemonic}` operand {index} ({label}): expected ")?,
                }
                write_list(f, &expected, false)?;
                write!(f, ", found {found}")
            }
            AsmErrorKind::Invalid {
                index,
                label,
                problem,
            } => {
                write!(f, "`{mnemonic}` operand {index} ({label}): ")?;
                match problem {
                    Problem::Range(ty, min, max) => {
                        f.write_str("immediate ")?;
                        f.write_str(found)?;
                        write!(f, " does not fit {ty} (")?;
                        write_hex(f, min)?;
                        f.write_str("..=")?;
                        write_hex(f, max)?;
                        f.write_str(")")
                    }
                    Problem::Misaligned(target, align) => {
                        f.write_str("branch target ")?;
                        write_hex(f, target)?;
                        write!(
                            f,
                            " is not a multiple of {align:#x} bytes from the next instruction"
                        )
                    }
                    Problem::TargetRange(target) => {
                        f.write_str("branch target ")?;
                        write_hex(f, target)?;
                        f.write_str(" is out of range")
                    }
                    Problem::UndefinedLabel => write!(f, "undefined label in `{found}`"),
                    Problem::LabelNotAllowed => {
                        f.write_str("a label is only allowed as a branch target")
                    }
                    Problem::Prefix(c) => write!(f, "this operand does not take a `{c}` prefix"),
                    Problem::NegForm(true) => {
                        f.write_str("`-` is not allowed here (with `.X`, write `~` instead of `-`)")
                    }
                    Problem::NegForm(false) => f.write_str(
                        "`~` is not allowed here (without `.X`, write `-` instead of `~`)",
                    ),
                    Problem::Suffix => write!(f, "`{found}` takes no such suffix"),
                    Problem::RangeWidth(bits, want) => {
                        write!(
                            f,
                            "{found} is {bits} bits but the operand is {want} bits here"
                        )
                    }
                    Problem::NeedsRange(bits) => {
                        write!(
                            f,
                            "a {bits}-bit operand: write a register range such as R[2:3]"
                        )
                    }
                    Problem::NoSuchRegister => write!(f, "{found} does not exist"),
                    Problem::ConstMem => write!(f, "{found}: bank or offset out of range"),
                    Problem::Index => write!(f, "{found}: bad index register or offset"),
                }
            }
            AsmErrorKind::Missing {
                index,
                label,
                expected,
            } => {
                write!(
                    f,
                    "`{mnemonic}` operand {index} ({label}) is missing: expected {expected}"
                )
            }
            AsmErrorKind::TooMany(max) => {
                write!(f, "too many operands: `{mnemonic}` takes at most {max}")
            }
            AsmErrorKind::Exception(kind, message) => {
                write!(f, "`{mnemonic}`: {message} (the spec's {kind} exception)")
            }
        }
    }
}

/// What an error's span holds, for "found …": quoted text, a space, or end of line.
struct Found<'a>(&'a str, &'a AsmError);

impl core::fmt::Display for Found<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let text = self.0.get(self.1.start..self.1.end).unwrap_or("");
        match text {
            "" => f.write_str("end of line"),
            " " => f.write_str("a space"),
            "\t" => f.write_str("a tab"),
            t => write!(f, "`{t}`"),
        }
    }
}

/// Writes a signed value in hex (`0x1f`, `-0x1`).
fn write_hex<W: core::fmt::Write>(w: &mut W, v: i128) -> core::fmt::Result {
    if v < 0 {
        write!(w, "-{:#x}", v.unsigned_abs())
    } else {
        write!(w, "{v:#x}")
    }
}

/// The mnemonic with its modifiers as written (`SHFL.UP`), for messages.
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

/// The core of an operand token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TokCore<'a> {
    Name(&'a str),
    Number(i128),
    Range(&'a str, u64, u64),
    Indexed(&'a str, &'a str, i128),
    ConstMem(u64, Option<&'a str>, i128),
    Label(&'a str),
}

/// An operand as written: prefix symbol, core, optional `.SUFFIX`, byte span.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Tok<'a> {
    pub(crate) prefix: Option<char>,
    pub(crate) core: TokCore<'a>,
    pub(crate) suffix: Option<&'a str>,
    pub(crate) start: usize,
    pub(crate) end: usize,
}

/// A lexed line: guard, mnemonic parts, operands.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Line<'a> {
    /// (negated, register name, start, end).
    pub(crate) guard: Option<(bool, &'a str, usize, usize)>,
    pub(crate) parts: [(&'a str, usize, usize); MAX_PARTS],
    pub(crate) nparts: usize,
    pub(crate) ops: [Option<Tok<'a>>; MAX_OPERANDS],
    pub(crate) nops: usize,
}

impl<'a> Line<'a> {
    fn op(&self, i: usize) -> Option<&Tok<'a>> {
        if i < self.nops {
            self.ops[i].as_ref()
        } else {
            None
        }
    }

    /// Byte offset where the mnemonic ends (for "missing modifier").
    fn mnemonic_end(&self) -> usize {
        if self.nparts == 0 {
            0
        } else {
            self.parts[self.nparts - 1].2
        }
    }

    /// Where the line's code ends (for "missing operand").
    fn end(&self) -> usize {
        match self.op(self.nops.wrapping_sub(1)) {
            Some(t) => t.end,
            None => self.mnemonic_end(),
        }
    }
}

pub(crate) fn parse_number(text: &str) -> Option<i128> {
    let (neg, t) = match text.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let v = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        if h.is_empty() || !h.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        i128::from_str_radix(h, 16).ok()?
    } else {
        if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        t.parse::<i128>().ok()?
    };
    Some(if neg { -v } else { v })
}

struct Cur<'a> {
    s: &'a str,
    pos: usize,
}

impl<'a> Cur<'a> {
    fn peek(&self) -> Option<u8> {
        self.s.as_bytes().get(self.pos).copied()
    }
    fn rest(&self) -> &'a str {
        &self.s[self.pos..]
    }
    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\r')) {
            self.pos += 1;
        }
    }
    fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    fn take(&mut self, f: impl Fn(u8) -> bool) -> &'a str {
        let start = self.pos;
        while self.peek().is_some_and(&f) {
            self.pos += 1;
        }
        &self.s[start..self.pos]
    }
    /// The span of what starts here: one character (or nothing at the end).
    fn here(&self) -> (usize, usize) {
        let len = self.rest().chars().next().map_or(0, char::len_utf8);
        (self.pos, self.pos + len)
    }
    /// "expected {what}, found …" about what starts here.
    fn err(&self, what: &'static str) -> AsmError {
        let (a, b) = self.here();
        AsmError::new(a, b, AsmErrorKind::Syntax(what))
    }
    /// "expected {what}, found …" about the text taken since `start` (or what follows).
    fn err_from(&self, start: usize, what: &'static str) -> AsmError {
        if self.pos > start {
            AsmError::new(start, self.pos, AsmErrorKind::Syntax(what))
        } else {
            self.err(what)
        }
    }
}

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The code part of a line: up to a `//` comment, without a trailing `;`.
pub(crate) fn code_of(line: &str) -> &str {
    let code = match line.find("//") {
        Some(i) => &line[..i],
        None => line,
    };
    let code = code.trim_end();
    code.strip_suffix(';').unwrap_or(code).trim_end()
}

// Errors are 128 bytes so they can name what was expected without allocating; they are
// only built on the error path.
#[allow(clippy::result_large_err)]
pub(crate) fn lex(line: &str) -> Result<Line<'_>, AsmError> {
    let mut c = Cur {
        s: code_of(line),
        pos: 0,
    };
    let mut l = Line {
        guard: None,
        parts: [("", 0, 0); MAX_PARTS],
        nparts: 0,
        ops: [None; MAX_OPERANDS],
        nops: 0,
    };
    c.skip_ws();
    if c.peek().is_none() {
        let at = line.len() - line.trim_start().len();
        return Err(AsmError::new(at, at, AsmErrorKind::Empty));
    }
    if c.eat(b'@') {
        let start = c.pos - 1;
        let negated = c.eat(b'!');
        let name = c.take(is_word);
        if name.is_empty() {
            return Err(c.err(if negated {
                "a predicate register after `@!`"
            } else {
                "a predicate register after `@`"
            }));
        }
        l.guard = Some((negated, name, start, c.pos));
        c.skip_ws();
    }
    let start = c.pos;
    let name = c.take(is_word);
    if name.is_empty() {
        return Err(c.err("a mnemonic"));
    }
    l.parts[0] = (name, start, c.pos);
    l.nparts = 1;
    while c.eat(b'.') {
        let start = c.pos;
        let part = c.take(is_word);
        if part.is_empty() {
            return Err(c.err("a modifier after `.`"));
        }
        if l.nparts == MAX_PARTS {
            return Err(AsmError::new(
                start,
                c.pos,
                AsmErrorKind::Msg("too many modifiers: `{}` is one more than 15"),
            ));
        }
        l.parts[l.nparts] = (part, start, c.pos);
        l.nparts += 1;
    }
    c.skip_ws();
    if c.peek().is_none() {
        return Ok(l);
    }
    if c.pos == l.parts[l.nparts - 1].2 {
        return Err(c.err("a space between the mnemonic and its operands"));
    }
    // The `,` before the current operand.
    let mut comma: Option<usize> = None;
    loop {
        c.skip_ws();
        match (c.peek(), comma) {
            (None, Some(at)) => {
                return Err(AsmError::new(
                    at,
                    at + 1,
                    AsmErrorKind::Msg("stray `,` at the end of the operands"),
                ));
            }
            (Some(b','), _) => {
                let (a, b) = c.here();
                return Err(AsmError::new(
                    a,
                    b,
                    AsmErrorKind::Msg("empty operand: expected an operand before this `,`"),
                ));
            }
            _ => {}
        }
        if l.nops == MAX_OPERANDS {
            let (a, _) = c.here();
            return Err(AsmError::new(
                a,
                c.s.len(),
                AsmErrorKind::Msg("too many operands: at most 16 are read"),
            ));
        }
        l.ops[l.nops] = Some(operand(&mut c)?);
        l.nops += 1;
        c.skip_ws();
        if c.peek().is_none() {
            return Ok(l);
        }
        comma = Some(c.pos);
        if !c.eat(b',') {
            return Err(c.err("`,` between operands"));
        }
    }
}

#[allow(clippy::result_large_err)]
fn operand<'a>(c: &mut Cur<'a>) -> Result<Tok<'a>, AsmError> {
    let start = c.pos;
    let rest = c.rest().as_bytes();
    let prefix = match rest.first() {
        Some(b'!') => Some('!'),
        Some(b'~') => Some('~'),
        // `-` before a number is the number's sign; before anything else, a negation.
        Some(b'-') if !rest.get(1).is_some_and(u8::is_ascii_digit) => Some('-'),
        _ => None,
    };
    if prefix.is_some() {
        c.pos += 1;
        c.skip_ws();
    }
    let core_start = c.pos;
    let mut suffix = None;
    let core = match c.peek() {
        None | Some(b',') => {
            return Err(c.err(match prefix {
                Some('!') => "an operand after `!`",
                Some('~') => "an operand after `~`",
                Some(_) => "an operand after `-`",
                None => "an operand",
            }));
        }
        Some(b'`') => {
            c.pos += 1;
            if !c.eat(b'(') {
                return Err(c.err("`(` after `` ` `` in a label reference"));
            }
            let inner = c.pos;
            // An unclosed reference is reported at its opening `` `( ``.
            let Some(close) = c.rest().find(')') else {
                return Err(AsmError::new(
                    core_start,
                    inner,
                    AsmErrorKind::Msg("unterminated label reference: missing `)`"),
                ));
            };
            let label = c.rest()[..close].trim();
            c.pos += close + 1;
            let ok =
                !label.is_empty() && label.bytes().all(|b| is_word(b) || b == b'.' || b == b'$');
            if !ok {
                let lead = c.s[inner..].len() - c.s[inner..].trim_start().len();
                let (a, b) = (inner + lead, inner + lead + label.len());
                return Err(AsmError::new(
                    a,
                    b,
                    AsmErrorKind::Msg("only plain labels are supported in `` `(…) ``, found `{}`"),
                ));
            }
            TokCore::Label(label)
        }
        Some(b) if b.is_ascii_digit() || b == b'-' || b == b'+' => {
            let text = c.take(|b| is_word(b) || b == b'-' || b == b'+');
            let core = match parse_number(text) {
                Some(v) => TokCore::Number(v),
                None => {
                    let digits = text.trim_start_matches(['-', '+']);
                    let too_large = match digits.strip_prefix("0x") {
                        Some(h) => !h.is_empty() && h.bytes().all(|b| b.is_ascii_hexdigit()),
                        None => digits.bytes().all(|b| b.is_ascii_digit()),
                    };
                    let msg = if too_large {
                        "number `{}` is too large"
                    } else {
                        "`{}` is not a number"
                    };
                    return Err(AsmError::new(core_start, c.pos, AsmErrorKind::Msg(msg)));
                }
            };
            // A `.B1`-style suffix is not valid on a number, but is lexed so that the
            // parser can say which operand it belongs to.
            if c.rest().starts_with('.')
                && c.rest()[1..].starts_with(|ch: char| ch.is_ascii_alphanumeric())
            {
                c.pos += 1;
                suffix = Some(c.take(is_word));
            }
            core
        }
        Some(b) if b.is_ascii_alphabetic() || b == b'_' => {
            let name = c.take(is_word);
            if c.peek() == Some(b'[') && name != "c" && name.eq_ignore_ascii_case("cmem") {
                return Err(AsmError::new(
                    core_start,
                    c.pos,
                    AsmErrorKind::Msg("constant memory is written `c[bank][offset]`, not `{}[…]`"),
                ));
            }
            if c.peek() == Some(b'[') {
                c.pos += 1;
                if name == "c" {
                    c.skip_ws();
                    let bs = c.pos;
                    let bank = c.take(|b| b.is_ascii_alphanumeric());
                    let bank = match parse_number(bank) {
                        Some(v) if (0..=i128::from(u32::MAX)).contains(&v) => v as u64,
                        _ => return Err(c.err_from(bs, "a bank number")),
                    };
                    c.skip_ws();
                    if !c.eat(b']') {
                        return Err(c.err("`]`"));
                    }
                    if !c.eat(b'[') {
                        return Err(c.err("`[` for the offset of `c[…]`"));
                    }
                    let (reg, off) = reg_offset(c)?;
                    TokCore::ConstMem(bank, reg, off)
                } else {
                    c.skip_ws();
                    if c.peek().is_some_and(|b| b.is_ascii_digit()) {
                        let lo = c.take(|b| b.is_ascii_alphanumeric());
                        c.skip_ws();
                        if !c.eat(b':') {
                            return Err(c.err("`:` in a register range"));
                        }
                        c.skip_ws();
                        let hi = c.take(|b| b.is_ascii_alphanumeric());
                        c.skip_ws();
                        if !c.eat(b']') {
                            return Err(c.err("`]`"));
                        }
                        match (parse_number(lo), parse_number(hi)) {
                            (Some(lo), Some(hi)) if 0 <= lo && lo <= hi && hi < 1 << 32 => {
                                TokCore::Range(name, lo as u64, hi as u64)
                            }
                            (Some(_), Some(_)) => {
                                return Err(AsmError::new(
                                    core_start,
                                    c.pos,
                                    AsmErrorKind::Msg("register range `{}` is empty or negative"),
                                ));
                            }
                            _ => {
                                return Err(AsmError::new(core_start, c.pos, AsmErrorKind::Msg("a register range is `R[lo:hi]` with decimal numbers, found `{}`")));
                            }
                        }
                    } else {
                        let (reg, off) = reg_offset(c)?;
                        match reg {
                            Some(r) => TokCore::Indexed(name, r, off),
                            None => {
                                return Err(AsmError::new(
                                    core_start,
                                    c.pos,
                                    AsmErrorKind::Msg("`{}` needs a register inside the brackets"),
                                ));
                            }
                        }
                    }
                }
            } else {
                // Dotted names: value names like `SR_CTAID.X`, or `UR7.B1` (a register and
                // a sub-field suffix); the operand's parser decides which.
                let mut end = c.pos;
                let bytes = c.s.as_bytes();
                while bytes.get(end) == Some(&b'.')
                    && bytes.get(end + 1).is_some_and(|&b| is_word(b))
                {
                    end += 1;
                    while bytes.get(end).is_some_and(|&b| is_word(b)) {
                        end += 1;
                    }
                }
                let full = &c.s[core_start..end];
                c.pos = end;
                if let Some((_, s)) = full.split_once('.') {
                    suffix = Some(s);
                }
                TokCore::Name(full)
            }
        }
        Some(_) => return Err(c.err("an operand")),
    };
    Ok(Tok {
        prefix,
        core,
        suffix,
        start,
        end: c.pos,
    })
}

/// `REG]`, `REG+off]`, `REG-off]`, `off]`, `-off]`.
#[allow(clippy::result_large_err)]
fn reg_offset<'a>(c: &mut Cur<'a>) -> Result<(Option<&'a str>, i128), AsmError> {
    c.skip_ws();
    let mut reg = None;
    if c.peek().is_some_and(|b| b.is_ascii_alphabetic()) {
        reg = Some(c.take(is_word));
        c.skip_ws();
    }
    let mut off = 0i128;
    match c.peek() {
        Some(b']') => {}
        Some(s @ (b'+' | b'-')) => {
            c.pos += 1;
            c.skip_ws();
            let os = c.pos;
            let t = c.take(|b| b.is_ascii_alphanumeric());
            let v = parse_number(t).ok_or_else(|| c.err_from(os, "an offset"))?;
            off = if s == b'-' { -v } else { v };
        }
        Some(b) if b.is_ascii_digit() && reg.is_none() => {
            let os = c.pos;
            let t = c.take(|b| b.is_ascii_alphanumeric());
            off = parse_number(t).ok_or_else(|| c.err_from(os, "an offset"))?;
        }
        _ if reg.is_none() => return Err(c.err("a register or an offset")),
        _ => return Err(c.err("`+`, `-` or `]`")),
    }
    c.skip_ws();
    if !c.eat(b']') {
        return Err(c.err("`]`"));
    }
    Ok((reg, off))
}

/// How a token failed to be an operand: wrong kind (try elsewhere) or bad value.
#[derive(Clone, Copy, Debug)]
enum Mis {
    Kind,
    Bad(Problem),
}

/// A register file type of the generated API, as the assembler needs it.
trait AsmReg: Copy + core::str::FromStr {
    const PREFIX: &'static str;
    fn numbered(n: u64) -> Option<Self>;
    fn constant(self) -> bool;
}

/// A register operand spanning `count` 32-bit registers (a range when over one).
fn reg_tok<R: AsmReg>(tok: &Tok, count: u64) -> Result<R, Mis> {
    match tok.core {
        TokCore::Name(n) => {
            let base = n.split_once('.').map_or(n, |(b, _)| b);
            let r: R = base.parse().map_err(|_| Mis::Kind)?;
            if count > 1 && !r.constant() {
                return Err(Mis::Bad(Problem::NeedsRange((count * 32) as u32)));
            }
            Ok(r)
        }
        TokCore::Range(file, lo, hi) if file == R::PREFIX => {
            // Only the first register must exist: an operand that starts at the last
            // numbered register prints as e.g. `UR[62:63]`, and must read back.
            let r = R::numbered(lo).ok_or(Mis::Bad(Problem::NoSuchRegister))?;
            if hi - lo + 1 != count {
                return Err(Mis::Bad(Problem::RangeWidth(
                    ((hi - lo + 1) * 32) as u32,
                    (count * 32) as u32,
                )));
            }
            Ok(r)
        }
        _ => Err(Mis::Kind),
    }
}

/// A value name of an enum type.
fn enum_tok<E: core::str::FromStr>(tok: &Tok) -> Result<E, Mis> {
    match tok.core {
        TokCore::Name(n) => n.parse().map_err(|_| Mis::Kind),
        _ => Err(Mis::Kind),
    }
}

/// A plain number within `min..=max` (of the named type).
fn number_tok(tok: &Tok, name: &'static str, min: i128, max: i128) -> Result<i128, Mis> {
    match tok.core {
        TokCore::Number(v) => {
            if tok.prefix.is_some() || tok.suffix.is_some() {
                return Err(Mis::Bad(Problem::Prefix(tok.prefix.unwrap_or('.'))));
            }
            if v < min || v > max {
                return Err(Mis::Bad(Problem::Range(name, min, max)));
            }
            Ok(v)
        }
        TokCore::Label(_) => Err(Mis::Bad(Problem::LabelNotAllowed)),
        _ => Err(Mis::Kind),
    }
}

/// A branch target (absolute address or label) as an offset counted in `1 << shift`
/// bytes from the next instruction, within `min..=max`.
fn target_tok(
    tok: &Tok,
    addr: u64,
    shift: u32,
    min: i128,
    max: i128,
    labels: &dyn Fn(&str) -> Option<u64>,
) -> Result<i128, Mis> {
    let target = match tok.core {
        TokCore::Number(v) => v,
        TokCore::Label(l) => labels(l).ok_or(Mis::Bad(Problem::UndefinedLabel))? as i128,
        _ => return Err(Mis::Kind),
    };
    if tok.prefix.is_some() || tok.suffix.is_some() {
        return Err(Mis::Bad(Problem::Prefix(tok.prefix.unwrap_or('.'))));
    }
    let rel = target - (addr as i128 + 16);
    if rel & ((1i128 << shift) - 1) != 0 {
        return Err(Mis::Bad(Problem::Misaligned(target, 1 << shift)));
    }
    let off = rel >> shift;
    if off < min || off > max {
        return Err(Mis::Bad(Problem::TargetRange(target)));
    }
    Ok(off)
}

/// `c[bank][offset]` (no register) as (bank, offset).
fn cmem_tok(tok: &Tok) -> Result<(u64, i128), Mis> {
    match tok.core {
        TokCore::ConstMem(bank, None, off) => Ok((bank, off)),
        TokCore::ConstMem(_, Some(_), _) => Err(Mis::Bad(Problem::ConstMem)),
        _ => Err(Mis::Kind),
    }
}

/// `c[bank][REG+offset]` as (bank, register or `None` for the zero register, offset).
fn cmem_reg_tok<'a>(tok: &Tok<'a>) -> Result<(u64, Option<&'a str>, i128), Mis> {
    match tok.core {
        TokCore::ConstMem(bank, reg, off) => Ok((bank, reg, off)),
        _ => Err(Mis::Kind),
    }
}

/// `FILE[REG+offset]` as (register name, offset).
fn indexed_tok<'a>(tok: &Tok<'a>, file: &str) -> Result<(&'a str, i128), Mis> {
    match tok.core {
        TokCore::Indexed(f, reg, off) if f == file => Ok((reg, off)),
        _ => Err(Mis::Kind),
    }
}

/// The nearest names by edit distance (at most a third of the word, at least 1).
fn nearest<const N: usize>(word: &str, candidates: &[&'static str]) -> [&'static str; N] {
    fn distance(a: &str, b: &str) -> usize {
        let b = b.as_bytes();
        if b.len() > 64 {
            return usize::MAX;
        }
        let mut prev = [0usize; 65];
        let mut cur = [0usize; 65];
        for (j, p) in prev.iter_mut().enumerate().take(b.len() + 1) {
            *p = j;
        }
        for (i, ca) in a.bytes().enumerate() {
            cur[0] = i + 1;
            for (j, &cb) in b.iter().enumerate() {
                let sub = prev[j] + usize::from(!ca.eq_ignore_ascii_case(&cb));
                cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
            }
            prev = cur;
        }
        prev[b.len()]
    }
    let limit = (word.len() / 3).max(1);
    let mut best: [(usize, &'static str); N] = [(usize::MAX, ""); N];
    for &c in candidates {
        let d = distance(word, c);
        if d > limit {
            continue;
        }
        // Insert keeping `best` sorted by (distance, name).
        let mut k = N;
        while k > 0 && (d, c) < best[k - 1] {
            k -= 1;
        }
        if k < N && !best.iter().any(|&(_, b)| b == c) {
            let mut j = N - 1;
            while j > k {
                best[j] = best[j - 1];
                j -= 1;
            }
            best[k] = (d, c);
        }
    }
    let mut out = [""; N];
    for (o, (_, b)) in out.iter_mut().zip(best) {
        *o = b;
    }
    out
}

/// A failed attempt at one candidate opcode: how far it got and the error.
#[derive(Clone, Copy, Debug)]
struct Fail {
    rank: u32,
    err: AsmError,
}

impl Fail {
    const fn new(rank: u32, err: AsmError) -> Fail {
        Fail { rank, err }
    }
}

/// Keeps the most specific failure; merges the expectations of kind mismatches at the
/// same operand ("expected a Reg or a UImm5").
fn better(best: Option<Fail>, new: Fail) -> Option<Fail> {
    let Some(mut b) = best else {
        return Some(new);
    };
    if new.rank > b.rank {
        return Some(new);
    }
    if new.rank == b.rank {
        if let (
            AsmErrorKind::Operand {
                index: i1,
                also: None,
                expected: ref mut e1,
                ..
            },
            AsmErrorKind::Operand {
                index: i2,
                also: None,
                expected: e2,
                ..
            },
        ) = (&mut b.err.kind, new.err.kind)
        {
            if *i1 == i2 && b.err.start == new.err.start {
                for e in e2.iter().filter(|e| !e.is_empty()) {
                    if !e1.contains(e) {
                        if let Some(slot) = e1.iter_mut().find(|s| s.is_empty()) {
                            *slot = e;
                        }
                    }
                }
            }
        }
    }
    Some(b)
}
