//! Lexing one line of assembly into guard, mnemonic parts and operand tokens, each with
//! its byte span in the line, so errors can point at the exact column.

use std::ops::Range;

/// An error at a byte range of the line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LexError {
    pub span: Range<usize>,
    pub message: String,
}

/// `@P0` / `@!UP1`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GuardTok<'a> {
    pub negated: bool,
    pub name: &'a str,
    pub span: Range<usize>,
}

/// One part of the mnemonic: the name (`SHFL`) or a modifier (`UP` of `.UP`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part<'a> {
    pub text: &'a str,
    pub span: Range<usize>,
}

/// The core of an operand, after its prefix symbol.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Core<'a> {
    /// A name: register, value name, fixed word (`R5`, `SR_CTAID.X`, `UPR`, `UR7.B1`).
    Name(&'a str),
    /// A number, sign included.
    Number(i128),
    /// `NAME[lo:hi]`: a register range.
    Range { file: &'a str, lo: u128, hi: u128 },
    /// `NAME[REG]`, `NAME[REG+off]`, `NAME[REG-off]`: an indexed register.
    Indexed {
        file: &'a str,
        reg: &'a str,
        offset: i128,
    },
    /// `c[bank][offset]`, `c[bank][REG]`, `c[bank][REG+off]`.
    ConstMem {
        bank: u128,
        reg: Option<&'a str>,
        offset: i128,
    },
    /// `` `(label) ``.
    Label(&'a str),
}

/// An operand as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OperandTok<'a> {
    /// `!`, `-` or `~` before the operand.
    pub prefix: Option<char>,
    pub core: Core<'a>,
    /// `.B1` after a register (a sub-field value), if any.
    pub suffix: Option<&'a str>,
    pub text: &'a str,
    pub span: Range<usize>,
}

/// A lexed line.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LineToks<'a> {
    pub guard: Option<GuardTok<'a>>,
    /// Mnemonic name first, then modifiers.
    pub parts: Vec<Part<'a>>,
    pub operands: Vec<OperandTok<'a>>,
}

/// Strips a `//` comment (and trailing whitespace and `;`).
pub fn strip_comment(line: &str) -> &str {
    let code = match line.find("//") {
        Some(i) => &line[..i],
        None => line,
    };
    let code = code.trim_end();
    code.strip_suffix(';').unwrap_or(code).trim_end()
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '.'
}

struct Cur<'a> {
    s: &'a str,
    pos: usize,
}

impl<'a> Cur<'a> {
    fn rest(&self) -> &'a str {
        &self.s[self.pos..]
    }
    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }
    fn skip_ws(&mut self) {
        while let Some(c) = self.peek() {
            if c == ' ' || c == '\t' || c == '\r' {
                self.pos += 1;
            } else {
                break;
            }
        }
    }
    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.pos += c.len_utf8();
            true
        } else {
            false
        }
    }
    fn take_while(&mut self, f: impl Fn(char) -> bool) -> &'a str {
        let start = self.pos;
        while let Some(c) = self.peek() {
            if f(c) {
                self.pos += c.len_utf8();
            } else {
                break;
            }
        }
        &self.s[start..self.pos]
    }
    fn err(&self, msg: impl Into<String>) -> LexError {
        let len = self.peek().map_or(0, char::len_utf8);
        LexError {
            span: self.pos..self.pos + len,
            message: msg.into(),
        }
    }
    fn found(&self) -> String {
        match self.peek() {
            None => "end of line".into(),
            Some(c) => format!("`{c}`"),
        }
    }
}

/// Parses an integer literal (`0x1f`, `31`, `-0x1`); `None` if not a number.
pub fn parse_number(text: &str) -> Option<i128> {
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

/// Lexes one instruction line (without address prefix or label; comments allowed).
pub fn lex_line(line: &str) -> Result<LineToks<'_>, LexError> {
    let code_len = strip_comment(line).len();
    let mut c = Cur {
        s: &line[..code_len],
        pos: 0,
    };
    let mut out = LineToks::default();
    c.skip_ws();
    if c.eat('@') {
        let start = c.pos - 1;
        let negated = c.eat('!');
        let name = c.take_while(|ch| ch.is_ascii_alphanumeric() || ch == '_');
        if name.is_empty() {
            return Err(c.err(format!(
                "expected a predicate register after `@`, found {}",
                c.found()
            )));
        }
        out.guard = Some(GuardTok {
            negated,
            name,
            span: start..c.pos,
        });
        c.skip_ws();
    }
    // Mnemonic and modifiers.
    let start = c.pos;
    let name = c.take_while(|ch| ch.is_ascii_alphanumeric() || ch == '_');
    if name.is_empty() {
        return Err(c.err(format!("expected a mnemonic, found {}", c.found())));
    }
    out.parts.push(Part {
        text: name,
        span: start..c.pos,
    });
    while c.eat('.') {
        let start = c.pos;
        let m = c.take_while(|ch| ch.is_ascii_alphanumeric() || ch == '_');
        if m.is_empty() {
            return Err(c.err(format!(
                "expected a modifier after `.`, found {}",
                c.found()
            )));
        }
        out.parts.push(Part {
            text: m,
            span: start..c.pos,
        });
    }
    // Operands.
    c.skip_ws();
    if c.peek().is_none() {
        return Ok(out);
    }
    if let Some(ch) = c.peek() {
        if !(ch == ' ' || ch == '\t')
            && out.operands.is_empty()
            && c.pos == out.parts.last().map_or(0, |p| p.span.end)
        {
            return Err(c.err(format!(
                "expected a space between the mnemonic and its operands, found {}",
                c.found()
            )));
        }
    }
    loop {
        c.skip_ws();
        out.operands.push(operand(&mut c)?);
        c.skip_ws();
        if c.peek().is_none() {
            break;
        }
        if !c.eat(',') {
            return Err(c.err(format!(
                "expected `,` between operands, found {}",
                c.found()
            )));
        }
    }
    Ok(out)
}

fn operand<'a>(c: &mut Cur<'a>) -> Result<OperandTok<'a>, LexError> {
    let start = c.pos;
    let prefix = match c.peek() {
        Some(p @ ('!' | '~')) => {
            c.pos += 1;
            Some(p)
        }
        // `-` before a number is the number's sign; before anything else, a negation.
        Some('-') if !c.rest()[1..].starts_with(|ch: char| ch.is_ascii_digit()) => {
            c.pos += 1;
            Some('-')
        }
        _ => None,
    };
    c.skip_ws();
    let core_start = c.pos;
    let mut suffix = None;
    let core = match c.peek() {
        None | Some(',') => {
            return Err(c.err(format!("expected an operand, found {}", c.found())));
        }
        Some('`') => {
            c.pos += 1;
            if !c.eat('(') {
                return Err(c.err("expected `(` after `` ` `` in a label reference"));
            }
            let inner_start = c.pos;
            let close = c
                .rest()
                .find(')')
                .ok_or_else(|| c.err("unterminated label reference: missing `)`"))?;
            let label = c.rest()[..close].trim();
            c.pos += close + 1;
            let ok = !label.is_empty() && label.chars().all(|ch| is_name_char(ch) || ch == '$');
            if !ok {
                return Err(LexError {
                    span: inner_start..inner_start + close,
                    message: format!(
                        "only plain labels are supported in `` `(…) ``, found `{label}`"
                    ),
                });
            }
            Core::Label(label)
        }
        Some(ch) if ch.is_ascii_digit() || ch == '-' || ch == '+' => {
            let text = c
                .take_while(|ch| ch.is_ascii_alphanumeric() || ch == '-' || ch == '+' || ch == '_');
            match parse_number(text) {
                Some(v) => Core::Number(v),
                None => {
                    return Err(LexError {
                        span: core_start..c.pos,
                        message: format!("`{text}` is not a number"),
                    })
                }
            }
        }
        Some(ch) if ch.is_ascii_alphabetic() || ch == '_' => {
            let name = c.take_while(|ch| ch.is_ascii_alphanumeric() || ch == '_');
            if c.peek() == Some('[') && name != "c" && name.eq_ignore_ascii_case("cmem") {
                return Err(LexError {
                    span: core_start..c.pos,
                    message: format!(
                        "constant memory is written `c[bank][offset]`, not `{name}[…]`"
                    ),
                });
            }
            if c.peek() == Some('[') {
                c.pos += 1;
                if name == "c" {
                    let bank = bracket_number(c)?;
                    if !c.eat('[') {
                        return Err(c.err(format!(
                            "expected `[` for the offset of `c[…]`, found {}",
                            c.found()
                        )));
                    }
                    let (reg, offset) = bracket_reg_offset(c)?;
                    Core::ConstMem { bank, reg, offset }
                } else {
                    c.skip_ws();
                    if c.peek().is_some_and(|ch| ch.is_ascii_digit()) {
                        let lo = c.take_while(|ch| ch.is_ascii_alphanumeric());
                        c.skip_ws();
                        if !c.eat(':') {
                            return Err(c.err(format!(
                                "expected `:` in a register range, found {}",
                                c.found()
                            )));
                        }
                        c.skip_ws();
                        let hi = c.take_while(|ch| ch.is_ascii_alphanumeric());
                        c.skip_ws();
                        if !c.eat(']') {
                            return Err(c.err(format!("expected `]`, found {}", c.found())));
                        }
                        let (Some(lo), Some(hi)) = (parse_number(lo), parse_number(hi)) else {
                            return Err(LexError {
                                span: core_start..c.pos,
                                message: "a register range is `R[lo:hi]` with decimal numbers"
                                    .into(),
                            });
                        };
                        if lo < 0 || hi < lo {
                            return Err(LexError {
                                span: core_start..c.pos,
                                message: format!("register range [{lo}:{hi}] is empty or negative"),
                            });
                        }
                        Core::Range {
                            file: name,
                            lo: lo as u128,
                            hi: hi as u128,
                        }
                    } else {
                        let (reg, offset) = bracket_reg_offset(c)?;
                        let Some(reg) = reg else {
                            return Err(LexError {
                                span: core_start..c.pos,
                                message: format!(
                                    "`{name}[…]` needs a register inside the brackets"
                                ),
                            });
                        };
                        Core::Indexed {
                            file: name,
                            reg,
                            offset,
                        }
                    }
                }
            } else {
                // Dotted names: value names like `SR_CTAID.X`, or a register with a
                // sub-field suffix like `UR7.B1`; the parser decides which.
                let mut end = c.pos;
                while c.s[end..].starts_with('.') {
                    let more = c.s[end + 1..]
                        .find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_'))
                        .unwrap_or(c.s.len() - end - 1);
                    if more == 0 {
                        break;
                    }
                    end += 1 + more;
                }
                let full = &c.s[core_start..end];
                c.pos = end;
                if let Some((_, s)) = full.split_once('.') {
                    suffix = Some(s);
                }
                Core::Name(full)
            }
        }
        Some(_) => {
            return Err(c.err(format!("expected an operand, found {}", c.found())));
        }
    };
    Ok(OperandTok {
        prefix,
        core,
        suffix,
        text: &c.s[start..c.pos],
        span: start..c.pos,
    })
}

fn bracket_number(c: &mut Cur<'_>) -> Result<u128, LexError> {
    c.skip_ws();
    let start = c.pos;
    let t = c.take_while(|ch| ch.is_ascii_alphanumeric());
    let v = parse_number(t)
        .filter(|v| *v >= 0)
        .ok_or_else(|| LexError {
            span: start..c.pos.max(start + 1).min(c.s.len()),
            message: format!("expected a bank number, found `{t}`"),
        })?;
    c.skip_ws();
    if !c.eat(']') {
        return Err(c.err(format!("expected `]`, found {}", c.found())));
    }
    Ok(v as u128)
}

/// `REG]`, `REG+off]`, `REG-off]`, `off]`, `-off]`.
fn bracket_reg_offset<'a>(c: &mut Cur<'a>) -> Result<(Option<&'a str>, i128), LexError> {
    c.skip_ws();
    let mut reg = None;
    if c.peek().is_some_and(|ch| ch.is_ascii_alphabetic()) {
        reg = Some(c.take_while(|ch| ch.is_ascii_alphanumeric() || ch == '_'));
        c.skip_ws();
    }
    let mut offset = 0i128;
    let sign_needed = reg.is_some();
    match c.peek() {
        Some(']') => {}
        Some(s @ ('+' | '-')) => {
            c.pos += 1;
            c.skip_ws();
            let start = c.pos;
            let t = c.take_while(|ch| ch.is_ascii_alphanumeric());
            let v = parse_number(t).ok_or_else(|| LexError {
                span: start..c.pos.max(start + 1).min(c.s.len()),
                message: format!("expected an offset, found `{t}`"),
            })?;
            offset = if s == '-' { -v } else { v };
        }
        Some(ch) if ch.is_ascii_digit() && !sign_needed => {
            let start = c.pos;
            let t = c.take_while(|ch| ch.is_ascii_alphanumeric());
            offset = parse_number(t).ok_or_else(|| LexError {
                span: start..c.pos,
                message: format!("expected an offset, found `{t}`"),
            })?;
        }
        _ => return Err(c.err(format!("expected `+`, `-` or `]`, found {}", c.found()))),
    }
    c.skip_ws();
    if !c.eat(']') {
        return Err(c.err(format!("expected `]`, found {}", c.found())));
    }
    Ok((reg, offset))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexes_guard_mnemonic_and_operands() {
        let l = lex_line("@!P1 BRA.U !P2, 0x7e0 ; // c").unwrap();
        let g = l.guard.unwrap();
        assert!(g.negated);
        assert_eq!(g.name, "P1");
        assert_eq!(
            l.parts.iter().map(|p| p.text).collect::<Vec<_>>(),
            ["BRA", "U"]
        );
        assert_eq!(l.operands.len(), 2);
        assert_eq!(l.operands[0].prefix, Some('!'));
        assert_eq!(l.operands[0].core, Core::Name("P2"));
        assert_eq!(l.operands[1].core, Core::Number(0x7e0));
        assert_eq!(l.operands[1].span, 16..21);
    }

    #[test]
    fn lexes_memory_ranges_labels_and_negatives() {
        let l = lex_line("ULDC.S8 UR1, c[0x1][UR4-0x1]").unwrap();
        assert_eq!(
            l.operands[1].core,
            Core::ConstMem {
                bank: 1,
                reg: Some("UR4"),
                offset: -1
            }
        );
        let l = lex_line("UIADD UR0, UR1, -0x114514").unwrap();
        assert_eq!(
            (l.operands[2].prefix, &l.operands[2].core),
            (None, &Core::Number(-0x114514))
        );
        let l = lex_line("UIADD UR0, UR1, -UR2").unwrap();
        assert_eq!(l.operands[2].prefix, Some('-'));
        let l = lex_line("MATCH.U64.ALL R0, P0, R[2:3]").unwrap();
        assert_eq!(
            l.operands[2].core,
            Core::Range {
                file: "R",
                lo: 2,
                hi: 3
            }
        );
        let l = lex_line("GETUGPR UR1, UR[UR2+0x1]").unwrap();
        assert_eq!(
            l.operands[1].core,
            Core::Indexed {
                file: "UR",
                reg: "UR2",
                offset: 1
            }
        );
        let l = lex_line("BRA `(.L_x_5)").unwrap();
        assert_eq!(l.operands[0].core, Core::Label(".L_x_5"));
        let l = lex_line("UR2UP UPR, UR7.B1, 0xFF").unwrap();
        assert_eq!(l.operands[1].suffix, Some("B1"));
        let l = lex_line("S2R R2, SR_CTAID.X").unwrap();
        assert_eq!(l.operands[1].core, Core::Name("SR_CTAID.X"));
    }

    #[test]
    fn reports_columns() {
        let e = lex_line("SHFL.UP P1 R1").unwrap_err();
        assert_eq!(e.span.start, 11);
        let e = lex_line("ULDC UR0, c[0x0][0x160").unwrap_err();
        assert!(e.message.contains("`]`"), "{}", e.message);
    }
}
