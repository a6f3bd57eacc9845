//! Lexing one line of assembly into guard, mnemonic parts and operand tokens, each with
//! its byte span in the line, so errors can point at the exact column.
//!
//! There is one lexer for both tiers: `isa_rt::lex`, which the generated code calls
//! too. This module adapts its tokens and errors, so the interpreting and the generated
//! assembler tokenize (and reject malformed text) identically.

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
    /// `` `(label) ``, or `` `(symbol+addend) `` (the addend may be negative).
    Label(&'a str, i128),
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
    isa_rt::lex::code_of(line)
}

/// Lexes one instruction line (without address prefix or label; comments allowed).
pub fn lex_line(line: &str) -> Result<LineToks<'_>, LexError> {
    let l = isa_rt::lex::lex(line).map_err(|e| LexError {
        span: e.start..e.end,
        message: e.display(line).to_string(),
    })?;
    let code = isa_rt::lex::code_of(line);
    Ok(LineToks {
        guard: l.guard.map(|(negated, name, start, end)| GuardTok {
            negated,
            name,
            span: start..end,
        }),
        parts: l.parts[..l.nparts]
            .iter()
            .map(|&(text, start, end)| Part {
                text,
                span: start..end,
            })
            .collect(),
        operands: l.ops[..l.nops]
            .iter()
            .flatten()
            .map(|t| OperandTok {
                prefix: t.prefix,
                core: match t.core {
                    isa_rt::lex::TokCore::Name(n) => Core::Name(n),
                    isa_rt::lex::TokCore::Number(v) => Core::Number(v),
                    isa_rt::lex::TokCore::Range(file, lo, hi) => Core::Range {
                        file,
                        lo: u128::from(lo),
                        hi: u128::from(hi),
                    },
                    isa_rt::lex::TokCore::Indexed(file, reg, offset) => {
                        Core::Indexed { file, reg, offset }
                    }
                    isa_rt::lex::TokCore::ConstMem(bank, reg, offset) => Core::ConstMem {
                        bank: u128::from(bank),
                        reg,
                        offset,
                    },
                    isa_rt::lex::TokCore::Label(l, addend) => Core::Label(l, addend),
                },
                suffix: t.suffix,
                text: &code[t.start..t.end],
                span: t.start..t.end,
            })
            .collect(),
    })
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
        assert_eq!(l.operands[0].core, Core::Label(".L_x_5", 0));
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
