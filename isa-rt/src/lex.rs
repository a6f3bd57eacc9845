//! Lexing one line of assembly: guard, mnemonic parts and operand tokens, each with its
//! byte span in the line, so errors point at the exact column. Every assembler of the
//! toolchain reads lines with this lexer (the generated crates' and the one `isa` runs
//! for any spec), so all of them tokenize, and reject malformed text, alike. No
//! allocation: tokens borrow the line.

use core::fmt;

/// Most operands a line may have.
pub const MAX_OPERANDS: usize = 12;
/// Most mnemonic parts (name and modifiers) a line may have.
pub const MAX_PARTS: usize = 8;

/// Malformed text, and where (`start..end`, bytes of the line).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LexError {
    /// First byte of the offending text in the line.
    pub start: usize,
    /// One past its last byte (equal to `start` at the end of the line).
    pub end: usize,
    /// What is wrong.
    pub kind: LexErrorKind,
}

/// What is wrong with the text of a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LexErrorKind {
    /// What was expected (the message adds what was found).
    Syntax(&'static str),
    /// A complete message; `{}` stands for the offending text.
    Msg(&'static str),
    /// A line with no instruction (empty, only a comment, or only `;`).
    Empty,
}

impl LexError {
    const fn new(start: usize, end: usize, kind: LexErrorKind) -> LexError {
        LexError { start, end, kind }
    }

    /// The message, quoting the offending text from `line` (the line lexed).
    pub fn display(self, line: &str) -> LexErrorDisplay<'_> {
        LexErrorDisplay { err: self, line }
    }
}

/// A [`LexError`] with its line, for printing.
#[derive(Clone, Copy, Debug)]
pub struct LexErrorDisplay<'a> {
    err: LexError,
    line: &'a str,
}

impl fmt::Display for LexErrorDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let e = self.err;
        let found = self.line.get(e.start..e.end).unwrap_or("");
        match e.kind {
            LexErrorKind::Syntax(what) => {
                f.write_str("expected ")?;
                f.write_str(what)?;
                f.write_str(", found ")?;
                match found {
                    "" => f.write_str("end of line"),
                    " " => f.write_str("a space"),
                    "\t" => f.write_str("a tab"),
                    t => write!(f, "`{t}`"),
                }
            }
            LexErrorKind::Msg(template) => match template.split_once("{}") {
                Some((a, b)) => write!(f, "{a}{found}{b}"),
                None => f.write_str(template),
            },
            LexErrorKind::Empty => {
                let t = self.line.trim();
                f.write_str(if t.is_empty() {
                    "expected an instruction, found an empty line"
                } else if t.starts_with("//") {
                    "expected an instruction, found only a comment"
                } else {
                    "expected an instruction, found an empty statement"
                })
            }
        }
    }
}

/// The core of an operand token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokCore<'a> {
    /// A name: register, value name, fixed word (`R5`, `SR_CTAID.X`, `UPR`).
    Name(&'a str),
    /// A number, sign included.
    Number(i128),
    /// `NAME[lo:hi]`: a register range (the file's prefix, the first and last number).
    Range(&'a str, u64, u64),
    /// `NAME[REG]`, `NAME[REG+off]`: an indexed register (the file's prefix, the index
    /// register, the offset).
    Indexed(&'a str, &'a str, i128),
    /// `c[bank][offset]`, `c[bank][REG+off]`: constant memory (bank, register, offset).
    ConstMem(u64, Option<&'a str>, i128),
    /// `` `(name) ``, `` `(name+0x20) ``, `` `(name-16) ``: a label or symbol and an
    /// addend.
    Label(&'a str, i128),
}

/// An operand as written: prefix symbol, core, optional `.SUFFIX`, byte span.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tok<'a> {
    /// `!`, `-` or `~` before the operand.
    pub prefix: Option<char>,
    /// What the operand is.
    pub core: TokCore<'a>,
    /// `.B1` after a register (a sub-field value), without the dot.
    pub suffix: Option<&'a str>,
    /// First byte of the operand in the line.
    pub start: usize,
    /// One past its last byte.
    pub end: usize,
}

/// A lexed line: guard, mnemonic parts, operands.
#[derive(Clone, Copy, Debug)]
pub struct Line<'a> {
    /// The whole line.
    pub text: &'a str,
    /// (negated, register name, start, end).
    pub guard: Option<(bool, &'a str, usize, usize)>,
    /// The mnemonic's name, then its modifiers: (text, start, end); the first
    /// `nparts` are set.
    pub parts: [(&'a str, usize, usize); MAX_PARTS],
    /// How many of `parts` are set (at least 1).
    pub nparts: usize,
    /// The operands; the first `nops` are set.
    pub ops: [Option<Tok<'a>>; MAX_OPERANDS],
    /// How many of `ops` are set.
    pub nops: usize,
}

impl<'a> Line<'a> {
    /// A line of `text` with no parts and no operands yet (see [`lex_into`]).
    pub const fn new(text: &'a str) -> Line<'a> {
        Line {
            text,
            guard: None,
            parts: [("", 0, 0); MAX_PARTS],
            nparts: 0,
            ops: [None; MAX_OPERANDS],
            nops: 0,
        }
    }

    /// Operand `i`, if the line has it.
    pub fn op(&self, i: usize) -> Option<&Tok<'a>> {
        if i < self.nops {
            self.ops[i].as_ref()
        } else {
            None
        }
    }

    /// Byte offset where the mnemonic ends (for "missing modifier").
    pub fn mnemonic_end(&self) -> usize {
        if self.nparts == 0 {
            0
        } else {
            self.parts[self.nparts - 1].2
        }
    }

    /// Where the line's code ends (for "missing operand").
    pub fn end(&self) -> usize {
        match self.op(self.nops.wrapping_sub(1)) {
            Some(t) => t.end,
            None => self.mnemonic_end(),
        }
    }
}

/// A number as assembly writes it: decimal or `0x` hex, with an optional sign; `None`
/// for anything else or a value past `i128`.
pub fn parse_number(text: &str) -> Option<i128> {
    let b = text.as_bytes();
    let (neg, rest) = match b {
        [b'-', rest @ ..] => (true, rest),
        [b'+', rest @ ..] => (false, rest),
        _ => (false, b),
    };
    let (radix, digits) = match rest {
        [b'0', b'x' | b'X', hex @ ..] => (16, hex),
        _ => (10, rest),
    };
    if digits.is_empty() {
        return None;
    }
    // One pass, each digit checked and added (`from_str_radix` after a scan of the
    // digits read them twice, behind calls; numbers are a quarter of the tokens).
    let mut v: i128 = 0;
    for &d in digits {
        let x = match d {
            b'0'..=b'9' => d - b'0',
            b'a'..=b'f' if radix == 16 => d - b'a' + 10,
            b'A'..=b'F' if radix == 16 => d - b'A' + 10,
            _ => return None,
        };
        v = v.checked_mul(radix)?.checked_add(i128::from(x))?;
    }
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
    /// The bytes from here that `f` accepts; every `f` accepts ASCII bytes alone, so
    /// both ends are character boundaries.
    #[inline]
    fn take(&mut self, f: impl Fn(u8) -> bool) -> &'a str {
        let b = self.s.as_bytes();
        let start = self.pos;
        let mut end = start;
        while end < b.len() && f(b[end]) {
            end += 1;
        }
        self.pos = end;
        self.s.get(start..end).unwrap_or("")
    }
    /// The span of what starts here: one character (or nothing at the end).
    fn here(&self) -> (usize, usize) {
        let len = self.rest().chars().next().map_or(0, char::len_utf8);
        (self.pos, self.pos + len)
    }
    /// "expected {what}, found …" about what starts here.
    fn err(&self, what: &'static str) -> LexError {
        let (a, b) = self.here();
        LexError::new(a, b, LexErrorKind::Syntax(what))
    }
    /// "expected {what}, found …" about the text taken since `start` (or what follows).
    fn err_from(&self, start: usize, what: &'static str) -> LexError {
        if self.pos > start {
            LexError::new(start, self.pos, LexErrorKind::Syntax(what))
        } else {
            self.err(what)
        }
    }
}

/// Whether `b` may be in a name: ASCII letters, digits and `_` (one load from a table,
/// where the ranges take half a dozen tests; names are most of a line).
#[inline]
fn is_word(b: u8) -> bool {
    WORD[usize::from(b)]
}

const WORD: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        t[b] = c.is_ascii_alphanumeric() || c == b'_';
        b += 1;
    }
    t
};

/// The code part of a line: up to a `//` comment, without a trailing `;`.
pub fn code_of(line: &str) -> &str {
    let end = comment_start(line.as_bytes()).unwrap_or(line.len());
    // (`end` is at a `/`, or the end: a character boundary.)
    let code = trim_end(&line[..end]);
    trim_end(code.strip_suffix(';').unwrap_or(code))
}

/// [`str::trim_end`], with ASCII whitespace taken off byte by byte (the trim decodes
/// characters backwards); a non-ASCII last character goes through `trim_end` itself.
fn trim_end(s: &str) -> &str {
    let b = s.as_bytes();
    let mut end = b.len();
    while end > 0 && matches!(b[end - 1], b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c) {
        end -= 1;
    }
    // (`end` follows an ASCII byte, or is 0: a character boundary.)
    let s = &s[..end];
    if end > 0 && !b[end - 1].is_ascii() {
        s.trim_end()
    } else {
        s
    }
}

/// Where the first `//` starts.
fn comment_start(b: &[u8]) -> Option<usize> {
    let mut i = 0;
    loop {
        i = find_byte(b, i, b'/')?;
        if b.get(i + 1) == Some(&b'/') {
            return Some(i);
        }
        i += 1;
    }
}

/// The first `needle` in `bytes` at or after `from`: eight bytes at a time, then the
/// few left one by one. For the short texts of assembly (lines of 40 bytes or so,
/// every one of which an assembler scans for its end and its comment), where
/// `memchr`'s set-up costs more than the scan.
pub fn find_byte(bytes: &[u8], from: usize, needle: u8) -> Option<usize> {
    const ONES: u64 = u64::from_le_bytes([1; 8]);
    const HIGH: u64 = ONES << 7;
    let pattern = ONES * u64::from(needle);
    let mut i = from;
    while let Some(chunk) = bytes.get(i..i.saturating_add(8)) {
        let mut word = [0; 8];
        word.copy_from_slice(chunk);
        // A byte of `x` is zero where the chunk holds `needle`. `(x - ONES) & !x &
        // HIGH` sets the top bit of each such byte (and maybe of bytes after one,
        // through the borrow, never before): its lowest bit is the first match.
        let x = u64::from_le_bytes(word) ^ pattern;
        let found = x.wrapping_sub(ONES) & !x & HIGH;
        if found != 0 {
            return Some(i + (found.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    let rest = bytes.get(i..)?;
    rest.iter().position(|&b| b == needle).map(|k| i + k)
}

/// Lexes one instruction line (a `//` comment and a trailing `;` allowed; no address
/// prefix or label). At most [`MAX_PARTS`] mnemonic parts and [`MAX_OPERANDS`]
/// operands are read.
pub fn lex(line: &str) -> Result<Line<'_>, LexError> {
    let mut l = Line::new(line);
    lex_into(line, &mut l).map(|()| l)
}

/// [`lex`] into `l`, which holds the line on success (and something of it on an
/// error). For a caller that keeps the line where it is: a [`Line`] is 1.6 KB, and
/// returning one copies it.
pub fn lex_into<'a>(line: &'a str, l: &mut Line<'a>) -> Result<(), LexError> {
    let mut c = Cur {
        s: code_of(line),
        pos: 0,
    };
    l.text = line;
    l.guard = None;
    l.nparts = 0;
    l.nops = 0;
    c.skip_ws();
    if c.peek().is_none() {
        let at = line.len() - line.trim_start().len();
        return Err(LexError::new(at, at, LexErrorKind::Empty));
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
            return Err(LexError::new(
                start,
                c.pos,
                LexErrorKind::Msg("too many modifiers: `{}` is one more than 7"),
            ));
        }
        l.parts[l.nparts] = (part, start, c.pos);
        l.nparts += 1;
    }
    c.skip_ws();
    if c.peek().is_none() {
        return Ok(());
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
                return Err(LexError::new(
                    at,
                    at + 1,
                    LexErrorKind::Msg("stray `,` at the end of the operands"),
                ));
            }
            (Some(b','), _) => {
                let (a, b) = c.here();
                return Err(LexError::new(
                    a,
                    b,
                    LexErrorKind::Msg("empty operand: expected an operand before this `,`"),
                ));
            }
            _ => {}
        }
        if l.nops == MAX_OPERANDS {
            let (a, _) = c.here();
            return Err(LexError::new(
                a,
                c.s.len(),
                LexErrorKind::Msg("too many operands: at most 12 are read"),
            ));
        }
        l.ops[l.nops] = Some(operand(&mut c)?);
        l.nops += 1;
        c.skip_ws();
        if c.peek().is_none() {
            return Ok(());
        }
        comma = Some(c.pos);
        if !c.eat(b',') {
            return Err(c.err("`,` between operands"));
        }
    }
}

fn operand<'a>(c: &mut Cur<'a>) -> Result<Tok<'a>, LexError> {
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
                return Err(LexError::new(
                    core_start,
                    inner,
                    LexErrorKind::Msg("unterminated label reference: missing `)`"),
                ));
            };
            let text = c.rest()[..close].trim();
            c.pos += close + 1;
            // A name, then optionally `+` or `-` and a number (a relocation's addend).
            let split = text.find(['+', '-']).unwrap_or(text.len());
            let label = text[..split].trim_end();
            let addend = match text.as_bytes().get(split) {
                None => Some(0),
                Some(&sign) => {
                    let digits = text[split + 1..].trim_start();
                    // At most 64 bits, as a relocation holds it (and no sum overflows).
                    let v = if digits.starts_with(['+', '-']) {
                        None
                    } else {
                        parse_number(digits)
                    };
                    v.map(|v| if sign == b'-' { -v } else { v })
                        .filter(|v| i64::try_from(*v).is_ok())
                }
            };
            let ok =
                !label.is_empty() && label.bytes().all(|b| is_word(b) || b == b'.' || b == b'$');
            let Some(addend) = addend.filter(|_| ok) else {
                let lead = c.s[inner..].len() - c.s[inner..].trim_start().len();
                let (a, b) = (inner + lead, inner + lead + text.len());
                return Err(LexError::new(
                    a,
                    b,
                    LexErrorKind::Msg(
                        "expected a label, or a symbol and an addend (`sym+0x20`) in `` `(…) ``, found `{}`",
                    ),
                ));
            };
            TokCore::Label(label, addend)
        }
        // `(.L_x)` without its backtick: say how a label reference is written.
        Some(b'(') => {
            let end = c.rest().find(')').map_or(c.s.len(), |i| c.pos + i + 1);
            return Err(LexError::new(
                core_start,
                end,
                LexErrorKind::Msg(
                    "expected an operand, found `{}`: a label reference starts with a backtick, `` `(.L_name) ``",
                ),
            ));
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
                    return Err(LexError::new(core_start, c.pos, LexErrorKind::Msg(msg)));
                }
            };
            core
        }
        Some(b) if b.is_ascii_alphabetic() || b == b'_' => {
            let name = c.take(is_word);
            if c.peek() == Some(b'[') && name != "c" && name.eq_ignore_ascii_case("cmem") {
                return Err(LexError::new(
                    core_start,
                    c.pos,
                    LexErrorKind::Msg("constant memory is written `c[bank][offset]`, not `{}[…]`"),
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
                            (Some(lo), Some(hi))
                                if 0 <= lo && lo <= hi && hi <= u64::MAX as i128 =>
                            {
                                TokCore::Range(name, lo as u64, hi as u64)
                            }
                            (Some(lo), Some(hi)) if 0 <= lo && lo <= hi => {
                                return Err(LexError::new(
                                    core_start,
                                    c.pos,
                                    LexErrorKind::Msg(
                                        "register range `{}` has numbers past 64 bits",
                                    ),
                                ));
                            }
                            (Some(_), Some(_)) => {
                                return Err(LexError::new(
                                    core_start,
                                    c.pos,
                                    LexErrorKind::Msg("register range `{}` is empty or negative"),
                                ));
                            }
                            _ => {
                                return Err(LexError::new(core_start, c.pos, LexErrorKind::Msg("a register range is `R[lo:hi]` with decimal numbers, found `{}`")));
                            }
                        }
                    } else {
                        let (reg, off) = reg_offset(c)?;
                        match reg {
                            Some(r) => TokCore::Indexed(name, r, off),
                            None => {
                                return Err(LexError::new(
                                    core_start,
                                    c.pos,
                                    LexErrorKind::Msg("`{}` needs a register inside the brackets"),
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
                // What follows the first dot is the suffix.
                let mut first_dot = None;
                while bytes.get(end) == Some(&b'.')
                    && bytes.get(end + 1).is_some_and(|&b| is_word(b))
                {
                    first_dot.get_or_insert(end);
                    end += 1;
                    while bytes.get(end).is_some_and(|&b| is_word(b)) {
                        end += 1;
                    }
                }
                let full = &c.s[core_start..end];
                c.pos = end;
                if let Some(dot) = first_dot {
                    suffix = Some(&c.s[dot + 1..end]);
                }
                TokCore::Name(full)
            }
        }
        Some(_) => return Err(c.err("an operand")),
    };
    // A `.B1`-style suffix after a number, a label or a bracketed operand (a dotted name
    // holds its own): lexed here so that the parser takes it (`UR[0:1].H1`, as the
    // printer writes a sub-field of a register range) or says which operand it belongs to.
    if !matches!(core, TokCore::Name(_))
        && c.rest().starts_with('.')
        && c.rest()[1..].starts_with(|ch: char| ch.is_ascii_alphanumeric())
    {
        c.pos += 1;
        suffix = Some(c.take(is_word));
    }
    Ok(Tok {
        prefix,
        core,
        suffix,
        start,
        end: c.pos,
    })
}

/// `REG]`, `REG+off]`, `REG-off]`, `off]`, `-off]`.
fn reg_offset<'a>(c: &mut Cur<'a>) -> Result<(Option<&'a str>, i128), LexError> {
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

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::string::ToString;

    fn message(line: &str) -> (usize, usize, std::string::String) {
        let e = lex(line).unwrap_err();
        (e.start, e.end, e.display(line).to_string())
    }

    /// What was found is quoted, or named when it is whitespace or nothing.
    #[test]
    fn errors_say_what_was_found_and_where() {
        assert_eq!(
            message("NOP R1,"),
            (6, 7, "stray `,` at the end of the operands".into())
        );
        assert_eq!(
            message("NOP.\tR1"),
            (4, 5, "expected a modifier after `.`, found a tab".into())
        );
        assert_eq!(
            message("@"),
            (
                1,
                1,
                "expected a predicate register after `@`, found end of line".into()
            )
        );
        assert_eq!(
            message("@P0 . X"),
            (4, 5, "expected a mnemonic, found `.`".into())
        );
        assert_eq!(
            message("NOP R1 R2"),
            (7, 8, "expected `,` between operands, found `R`".into())
        );
        assert_eq!(
            message("LD R1, R[2:x]"),
            (
                7,
                13,
                "a register range is `R[lo:hi]` with decimal numbers, found `R[2:x]`".into()
            )
        );
    }

    /// A line without an instruction says which kind of nothing it holds.
    #[test]
    fn an_unclosed_bracket_is_found_at_the_end() {
        assert_eq!(
            message("LD R1, R[2:"),
            (11, 11, "expected `]`, found end of line".into())
        );
    }

    #[test]
    fn empty_lines_are_told_apart() {
        for (line, what) in [
            ("", "an empty line"),
            ("   ", "an empty line"),
            ("  // note", "only a comment"),
            (" ;", "an empty statement"),
        ] {
            let e = lex(line).unwrap_err();
            assert_eq!(e.kind, LexErrorKind::Empty);
            assert_eq!(
                e.display(line).to_string(),
                std::format!("expected an instruction, found {what}")
            );
        }
    }

    #[test]
    fn tokens_and_spans() {
        let l = lex("@!P1 BRA.U !P2, `(f+0x10) ; // c").unwrap();
        assert_eq!(l.guard, Some((true, "P1", 0, 4)));
        assert_eq!(&l.parts[..l.nparts], &[("BRA", 5, 8), ("U", 9, 10)]);
        assert_eq!(l.nops, 2);
        let a = l.op(0).unwrap();
        assert_eq!(
            (a.prefix, a.core, a.start, a.end),
            (Some('!'), TokCore::Name("P2"), 11, 14)
        );
        assert_eq!(l.op(1).unwrap().core, TokCore::Label("f", 0x10));
        assert!(l.op(2).is_none());
        assert_eq!(l.mnemonic_end(), 10);
        assert_eq!(l.end(), 25);
        assert_eq!(code_of("X R1 ; // c"), "X R1");
        // Single slashes are code; the first `//` starts the comment, wherever the
        // slashes before it stand.
        for (line, code) in [
            ("", ""),
            ("/", "/"),
            ("//", ""),
            ("a/", "a/"),
            ("a/b//c", "a/b"),
            ("a / / b ;", "a / / b"),
            ("/a//", "/a"),
            ("a///b", "a"),
            ("/*0010*/ X ; // c // d", "/*0010*/ X"),
            ("é/ü//ö", "é/ü"),
        ] {
            assert_eq!(code_of(line), code, "{line:?}");
        }
        // Trimmed as `str::trim_end` trims, whitespace beyond ASCII too.
        for t in [
            "",
            " ",
            "a",
            "a \t\r\n\x0b\x0c",
            " a ",
            "a\u{3000}",
            "a\u{85} \u{3000} ",
            "é",
            "é ",
            "a\u{3000}b ",
        ] {
            assert_eq!(trim_end(t), t.trim_end(), "{t:?}");
        }
        assert_eq!(code_of("X R1 \u{3000}; \u{a0}// c"), "X R1");
        // `find_byte` against the plain scan: one or two needles at every place, every
        // start, the other bytes of all kinds (a top bit set, the needle's neighbour,
        // zero: the word test's borrow).
        let needle = b'/';
        for len in 0..40 {
            for at in 0..len {
                for gap in [0, 1, 3, 9] {
                    for other in [b'a', 0x80, 0xff, b'.', 0] {
                        let mut line = std::vec![other; len];
                        line[at] = needle;
                        if gap > 0 && at + gap < len {
                            line[at + gap] = needle;
                        }
                        for from in 0..=len + 1 {
                            let plain = line
                                .get(from..)
                                .and_then(|rest| rest.iter().position(|&b| b == needle))
                                .map(|p| p + from);
                            assert_eq!(
                                find_byte(&line, from, needle),
                                plain,
                                "{len} {at} {gap} {other} {from}"
                            );
                        }
                    }
                }
            }
        }
        assert_eq!(find_byte(b"abc", 9, b'a'), None, "a start past the end");
        // Against the plain scan, for a `//` or a lone `/` at every place of lines
        // long enough to be read by words (and a `/` ending one word, a `/` starting
        // the next).
        let plain = |b: &[u8]| b.windows(2).position(|w| w == b"//");
        for len in 0..40 {
            for at in 0..len {
                for mark in ["//", "/", "/x/", "///", "/abcdefghijk//"] {
                    let mut line: std::vec::Vec<u8> =
                        (0..len).map(|k| b'a' + (k % 26) as u8).collect();
                    for (k, &m) in mark.as_bytes().iter().enumerate() {
                        if at + k < len {
                            line[at + k] = m;
                        }
                    }
                    assert_eq!(comment_start(&line), plain(&line), "{len} {at} {mark}");
                }
            }
        }
        assert_eq!(parse_number("-0x10"), Some(-16));
        // As the standard parsers read them (signs, `0x`/`0X`, digits of each radix,
        // the limits of `i128`).
        let reference = |text: &str| -> Option<i128> {
            let (neg, t) = match text.strip_prefix('-') {
                Some(r) => (true, r),
                None => (false, text.strip_prefix('+').unwrap_or(text)),
            };
            let v = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
                Some(h) if !h.is_empty() && h.bytes().all(|b| b.is_ascii_hexdigit()) => {
                    i128::from_str_radix(h, 16).ok()?
                }
                Some(_) => return None,
                None if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) => t.parse().ok()?,
                None => return None,
            };
            Some(if neg { -v } else { v })
        };
        for text in [
            "0",
            "7",
            "+7",
            "-7",
            "007",
            "10",
            "99",
            "0x0",
            "0x1f",
            "0X1F",
            "0xAbC",
            "-0xff",
            "+0x10",
            "0x",
            "0X",
            "-",
            "+",
            "",
            "-+5",
            "+-5",
            "--5",
            "0x-5",
            "0x+5",
            "1f",
            "0xg",
            "9a",
            "0b101",
            "0o7",
            "1_000",
            " 1",
            "1 ",
            "x10",
            "0xx1",
            "170141183460469231731687303715884105727",
            "170141183460469231731687303715884105728",
            "-170141183460469231731687303715884105727",
            "-170141183460469231731687303715884105728",
            "0x7fffffffffffffffffffffffffffffff",
            "0x80000000000000000000000000000000",
            "0xffffffffffffffffffffffffffffffffff",
            "18446744073709551616",
            "0x10000000000000000",
            "١٢",
        ] {
            assert_eq!(parse_number(text), reference(text), "{text:?}");
        }
        assert_eq!(parse_number("0x"), None);
        assert_eq!(parse_number("+7"), Some(7));
    }

    #[test]
    fn a_dotted_name_keeps_its_text_and_its_suffix_is_what_follows_the_first_dot() {
        let l = lex("X R1.B1, SR_CTAID.X.Y, PT, UR[0:1].H1").unwrap();
        let got: std::vec::Vec<_> = (0..l.nops)
            .map(|i| {
                let t = l.op(i).unwrap();
                (t.core, t.suffix)
            })
            .collect();
        assert_eq!(
            got,
            [
                (TokCore::Name("R1.B1"), Some("B1")),
                (TokCore::Name("SR_CTAID.X.Y"), Some("X.Y")),
                (TokCore::Name("PT"), None),
                (TokCore::Range("UR", 0, 1), Some("H1")),
            ]
        );
    }

    #[test]
    fn lexing_into_a_used_line_reads_only_the_new_one() {
        let mut l = Line::new("");
        lex_into("@!P1 A.B.C R1, -R2, 0x3", &mut l).unwrap();
        assert_eq!((l.nparts, l.nops), (3, 3));
        lex_into("NOP", &mut l).unwrap();
        let fresh = lex("NOP").unwrap();
        assert_eq!((l.text, l.guard, l.nparts, l.nops), ("NOP", None, 1, 0));
        assert_eq!(l.parts[0], fresh.parts[0]);
        assert!(l.op(0).is_none());
        assert_eq!(
            lex_into("", &mut l),
            Err(LexError::new(0, 0, LexErrorKind::Empty))
        );
    }

    #[test]
    fn name_bytes_are_ascii_letters_digits_and_underscores() {
        for b in 0..=255u8 {
            let word = b.is_ascii_alphanumeric() || b == b'_';
            assert_eq!(is_word(b), word, "{b:#x}");
        }
    }

    #[test]
    fn limits_are_errors() {
        let ops = ["R1"; MAX_OPERANDS + 1].join(", ");
        let line = std::format!("NOP {ops}");
        let e = lex(&line).unwrap_err();
        assert_eq!(
            e.display(&line).to_string(),
            "too many operands: at most 12 are read"
        );
        let mods = ".A".repeat(MAX_PARTS);
        let line = std::format!("NOP{mods}");
        let e = lex(&line).unwrap_err();
        assert_eq!(
            e.display(&line).to_string(),
            "too many modifiers: `A` is one more than 7"
        );
    }
}
