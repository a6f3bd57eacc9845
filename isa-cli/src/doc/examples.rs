//! The spec's `__Examples` lines, assembled by the interpreting assembler exactly as
//! `isa check` assembles them (isa-gen's `lint::example_line`): comments, an address
//! prefix `/*0010*/` and labels are stripped, a label the line references stands for
//! the next instruction. A line that does not assemble is explained by the warnings
//! `isa check` reported inside it.

use isa_gen::asm::program::INST_SIZE;
use isa_gen::asm::Assembler;
use isa_gen::diag::Diagnostics;
use isa_gen::model::Model;
use isa_gen::syntax::ast::{CodeLine, DocKind, DocSection};

/// What became of one line of an `__Examples` code block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Blank, a comment, or only labels: nothing to assemble.
    NoInstruction,
    /// Assembled. `warnings` are the checker's remarks on the line (e.g. it assembles
    /// as an opcode of another optype).
    Assembled {
        addr: u64,
        opcode: usize,
        word: u128,
        warnings: Vec<String>,
    },
    /// Does not assemble; the checker's explanation (message and notes).
    Rejected { reasons: Vec<String> },
}

/// One example line and its outcome.
#[derive(Debug, Clone)]
pub struct Example<'a> {
    pub line: &'a CodeLine,
    pub outcome: Outcome,
}

/// The instruction part of an example line and its address: `(text, addr)`, or None
/// when the line holds no instruction. Mirrors isa-gen's `lint::example_line`.
pub fn instruction_of(text: &str) -> Option<(&str, u64)> {
    let code = isa_gen::asm::lex::strip_comment(text);
    let mut pos = code.len() - code.trim_start().len();
    let mut addr = 0u64;
    if code[pos..].starts_with("/*") {
        if let Some(close) = code[pos..].find("*/") {
            let inner = code[pos + 2..pos + close].trim();
            addr = u64::from_str_radix(inner.trim_start_matches("0x"), 16).unwrap_or(0);
            pos += close + 2;
        }
    }
    loop {
        let rest = code[pos..].trim_start();
        pos = code.len() - rest.len();
        let n = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '$'))
            .unwrap_or(rest.len());
        if n > 0 && rest[n..].starts_with(':') {
            pos += n + 1;
        } else {
            break;
        }
    }
    let insn = code[pos..].trim();
    (!insn.is_empty()).then_some((insn, addr))
}

/// The warnings `isa check` reported inside `line`, as text (message, then notes).
fn warnings_in(diags: &Diagnostics, line: &CodeLine) -> Vec<String> {
    diags
        .warnings()
        .filter(|d| {
            d.span.file == line.span.file
                && d.span.start >= line.span.start
                && d.span.end <= line.span.end
        })
        .map(|d| {
            let mut s = d.message.clone();
            for n in &d.notes {
                s.push_str(&format!(" ({n})"));
            }
            s
        })
        .collect()
}

/// Assembles every line of an `__Examples` section (other sections give nothing).
pub fn section<'a>(
    model: &Model,
    asm: &Assembler,
    diags: &Diagnostics,
    doc: &'a DocSection,
) -> Vec<Example<'a>> {
    if doc.kind != DocKind::Examples {
        return Vec::new();
    }
    doc.code_blocks
        .iter()
        .flat_map(|b| &b.lines)
        .map(|line| Example {
            line,
            outcome: assemble(model, asm, diags, line),
        })
        .collect()
}

fn assemble(model: &Model, asm: &Assembler, diags: &Diagnostics, line: &CodeLine) -> Outcome {
    let Some((insn, addr)) = instruction_of(&line.text) else {
        return Outcome::NoInstruction;
    };
    let labels = |_: &str| Some(addr + INST_SIZE);
    let warnings = warnings_in(diags, line);
    match asm.parse_line(insn, addr, &labels) {
        Ok(d) => Outcome::Assembled {
            addr,
            opcode: d.opcode,
            word: model.encode(&d),
            warnings,
        },
        Err(e) => Outcome::Rejected {
            // `isa check` reports every rejected line; fall back on the assembler's own
            // message should a spec reach here without its lints.
            reasons: if warnings.is_empty() {
                vec![format!("does not assemble: {e}")]
            } else {
                warnings
            },
        },
    }
}

/// A 128-bit word as `0x` and four groups of eight hex digits.
pub fn word_hex(w: u128) -> String {
    let h = format!("{w:032x}");
    format!("0x{}_{}_{}_{}", &h[..8], &h[8..16], &h[16..24], &h[24..])
}
