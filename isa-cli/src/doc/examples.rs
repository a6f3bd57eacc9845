//! The spec's `__Examples` lines, assembled by the interpreting assembler exactly as
//! `isa check` assembles them (isa-gen's `lint::example_line`): comments, an address
//! prefix `/*0010*/` and labels are stripped, a label the line references stands for
//! the next instruction. A line that does not assemble is explained by the warnings
//! `isa check` reported inside it.

use isa_gen::asm::program::{split_line, INST_SIZE};
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
    // `isa check` warned about every rejected line; its own message stands in should a
    // spec reach here without its lints.
    let warnings = warnings_in(diags, line);
    let rejected = |fallback: String| Outcome::Rejected {
        reasons: if warnings.is_empty() {
            vec![fallback]
        } else {
            warnings.clone()
        },
    };
    // Split as `isa check` splits it; a bad address prefix (warned) reads as address 0.
    let parts = match split_line(&line.text) {
        Ok(parts) => parts,
        Err(_) => return rejected("has an unterminated `/*` address prefix".into()),
    };
    let addr = match parts.prefix {
        Some((_, Ok(addr))) => addr,
        _ => 0,
    };
    let (_, insn) = parts.insn;
    if insn.is_empty() {
        return Outcome::NoInstruction;
    }
    let labels = |_: &str| Some(addr + INST_SIZE);
    match asm.parse_line(insn, addr, &labels) {
        Ok(d) => Outcome::Assembled {
            addr,
            opcode: d.opcode,
            word: model.encode(&d),
            warnings,
        },
        Err(e) => rejected(format!("does not assemble: {e}")),
    }
}

/// A 128-bit word as `0x` and four groups of eight hex digits.
pub fn word_hex(w: u128) -> String {
    let h = format!("{w:032x}");
    format!("0x{}_{}_{}_{}", &h[..8], &h[8..16], &h[16..24], &h[24..])
}
