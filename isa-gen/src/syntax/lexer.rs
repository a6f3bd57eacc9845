//! Token-level nom parsers shared by every statement of the DSL, and the error type
//! that turns a failed parse into "expected X, found Y" at an exact column.
//!
//! The DSL is line oriented: every statement ends on its own line, so each parser
//! here works on one line (`&str` without its terminator) and positions are recovered
//! from the slice address within the file text.

use nom::branch::alt;
use nom::bytes::complete::{tag, take_while, take_while1};
use nom::character::complete::{char, satisfy};
use nom::combinator::{eof, opt, recognize};
use nom::error::{ErrorKind, ParseError};
use nom::sequence::{pair, preceded};
use nom::IResult;

/// Parse error: where it happened and what would have been accepted there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PErr<'a> {
    pub at: &'a str,
    pub expected: String,
}

impl<'a> ParseError<&'a str> for PErr<'a> {
    fn from_error_kind(input: &'a str, _kind: ErrorKind) -> Self {
        PErr {
            at: input,
            expected: String::new(),
        }
    }

    fn append(_input: &'a str, _kind: ErrorKind, other: Self) -> Self {
        other
    }

    /// Of two alternatives, report the one that got further.
    fn or(self, other: Self) -> Self {
        if other.at.len() < self.at.len() || self.expected.is_empty() {
            other
        } else {
            self
        }
    }
}

pub type PResult<'a, O> = IResult<&'a str, O, PErr<'a>>;

/// Runs `p`; if it fails without saying what it wanted, says `what` at the position
/// where `p` started.
pub fn expect<'a, O>(
    what: &'static str,
    mut p: impl FnMut(&'a str) -> PResult<'a, O>,
) -> impl FnMut(&'a str) -> PResult<'a, O> {
    move |input| match p(input) {
        Err(nom::Err::Error(e)) | Err(nom::Err::Failure(e)) if e.expected.is_empty() => {
            Err(nom::Err::Error(PErr {
                at: input,
                expected: what.to_string(),
            }))
        }
        other => other,
    }
}

/// Like [`expect`], but a failure is final (no backtracking into alternatives).
pub fn must<'a, O>(
    what: &'static str,
    p: impl FnMut(&'a str) -> PResult<'a, O>,
) -> impl FnMut(&'a str) -> PResult<'a, O> {
    let mut p = expect(what, p);
    move |input| match p(input) {
        Err(nom::Err::Error(e)) => Err(nom::Err::Failure(e)),
        other => other,
    }
}

/// Spaces and tabs (and a stray `\r`).
pub fn ws(input: &str) -> PResult<'_, &str> {
    take_while(|c| c == ' ' || c == '\t' || c == '\r')(input)
}

/// `c`, after optional whitespace.
pub fn sym<'a>(c: &'static str) -> impl FnMut(&'a str) -> PResult<'a, &'a str> {
    preceded(ws, tag(c))
}

fn is_ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// `[A-Za-z_][A-Za-z0-9_]*`
pub fn ident(input: &str) -> PResult<'_, &str> {
    recognize(pair(satisfy(is_ident_start), take_while(is_ident_char)))(input)
}

/// `ident(.ident)*`: field names with sub-fields (`pg.not`).
pub fn dotted_ident(input: &str) -> PResult<'_, &str> {
    recognize(pair(ident, nom::multi::many0_count(pair(char('.'), ident))))(input)
}

/// A value name: letters, digits and `_` in parts joined by single dots, may start
/// with a digit (`32`, `SR_CTAID.X`, `NoCond`, `0x0`). A dot must have a part on both
/// sides: `T0.` or `A..B` could not be written in assembly (a `.` there starts a
/// suffix).
pub fn value_name(input: &str) -> PResult<'_, &str> {
    recognize(pair(
        take_while1(is_ident_char),
        nom::multi::many0_count(pair(char('.'), take_while1(is_ident_char))),
    ))(input)
}

/// Decimal or `0x` hexadecimal integer (underscores allowed), as u128.
pub fn int(input: &str) -> PResult<'_, u128> {
    let (rest, text) = alt((
        recognize(pair(
            alt((tag("0x"), tag("0X"))),
            take_while1(|c: char| c.is_ascii_hexdigit() || c == '_'),
        )),
        take_while1(|c: char| c.is_ascii_digit() || c == '_'),
    ))(input)?;
    // A number glued to letters (`12abc`) is not a number.
    if rest.starts_with(|c: char| is_ident_char(c)) {
        return Err(nom::Err::Error(PErr {
            at: input,
            expected: "a number".into(),
        }));
    }
    match parse_int(text) {
        Some(v) => Ok((rest, v)),
        None => Err(nom::Err::Failure(PErr {
            at: input,
            expected: "a number that fits in 128 bits".into(),
        })),
    }
}

/// Parses `0x…` or decimal text (with `_` separators) into a u128.
pub fn parse_int(text: &str) -> Option<u128> {
    match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => parse_digits(hex, 16),
        None => parse_digits(text, 10),
    }
}

/// Parses digits of `radix` with `_` separators (at least one digit) into a u128;
/// `None` for anything else, including the sign and `0x` that `from_str_radix` would
/// let through, and for values above `u128::MAX`. Every number a user types (spec
/// text, `.word`, address prefixes, command-line words, state files) is read by this.
pub fn parse_digits(text: &str, radix: u32) -> Option<u128> {
    let mut value: u128 = 0;
    let mut any = false;
    for c in text.chars() {
        if c == '_' {
            continue;
        }
        let d = c.to_digit(radix)?;
        value = value.checked_mul(radix as u128)?.checked_add(d as u128)?;
        any = true;
    }
    any.then_some(value)
}

/// A `"…"` string without escapes (the DSL has none). An unterminated string is
/// reported at the end of the line, where the closing quote is missing.
pub fn string(input: &str) -> PResult<'_, &str> {
    let (rest, _) = char('"')(input)?;
    match rest.find('"') {
        Some(i) => Ok((&rest[i + 1..], &rest[..i])),
        None => Err(nom::Err::Failure(PErr {
            at: &rest[rest.len()..],
            expected: "a closing `\"`".into(),
        })),
    }
}

/// Optional whitespace, an optional `// comment`, then the end of the line.
pub fn line_end(input: &str) -> PResult<'_, ()> {
    let (rest, _) = ws(input)?;
    let (rest, _) = opt(preceded(tag("//"), take_while(|_| true)))(rest)?;
    let (rest, _) = expect("end of line", eof)(rest)?;
    Ok((rest, ()))
}

/// Describes what starts at `at` for an error message: a token, or "end of line".
pub fn describe_found(at: &str) -> String {
    let at = at.trim_start_matches([' ', '\t', '\r']);
    let Some(first) = at.chars().next() else {
        return "end of line".to_string();
    };
    let token: String = if is_ident_char(first) {
        let mut chars = at.chars().take_while(|&c| is_ident_char(c) || c == '.');
        let mut t: String = chars.by_ref().take(40).collect();
        if chars.next().is_some() {
            t.push('…');
        }
        t
    } else {
        first.to_string()
    };
    if first.is_control() {
        format!("character U+{:04X}", first as u32)
    } else {
        format!("`{token}`")
    }
}

/// Length in bytes of what [`describe_found`] describes (at least one character,
/// zero at the end of the line).
pub fn found_len(at: &str) -> (usize, usize) {
    let skipped = at.len() - at.trim_start_matches([' ', '\t', '\r']).len();
    let at = &at[skipped..];
    let Some(first) = at.chars().next() else {
        return (skipped, 0);
    };
    let len = if is_ident_char(first) {
        at.char_indices()
            .find(|&(_, c)| !(is_ident_char(c) || c == '.'))
            .map(|(i, _)| i)
            .unwrap_or(at.len())
    } else {
        first.len_utf8()
    };
    (skipped, len)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_names_have_a_part_on_both_sides_of_each_dot() {
        assert_eq!(value_name("SR_CTAID.X = 1"), Ok((" = 1", "SR_CTAID.X")));
        assert_eq!(value_name("32;"), Ok((";", "32")));
        assert_eq!(value_name("T0. = 0"), Ok((". = 0", "T0")));
        assert_eq!(value_name("A..B"), Ok(("..B", "A")));
        assert!(value_name(".A").is_err());
    }

    #[test]
    fn numbers_are_digits_and_separators_only() {
        assert_eq!(parse_int("0x1_f"), Some(0x1f));
        assert_eq!(parse_int("0X1F"), Some(0x1f));
        assert_eq!(parse_int("1_000"), Some(1000));
        assert_eq!(parse_digits("ff", 16), Some(0xff));
        assert_eq!(
            parse_int("0xffffffffffffffffffffffffffffffff"),
            Some(u128::MAX)
        );
        // What `from_str_radix` or a repeated prefix strip would have let through.
        for bad in [
            "",
            "_",
            "0x",
            "0x_",
            "+1",
            "-1",
            "0x+1f",
            "0x-1",
            "0x0x10",
            "1f",
            "0x1g",
            " 1",
            "0x100000000000000000000000000000000",
        ] {
            assert_eq!(parse_int(bad), None, "{bad:?}");
        }
        assert_eq!(parse_digits("0x10", 16), None);
    }
}
