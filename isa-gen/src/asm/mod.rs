//! Assembly text, by interpretation of the model (the slow tier).
//!
//! [`Assembler`] parses one line of SASS-like assembly into a [`Decoded`] instruction and
//! prints one back, for any spec, straight from the [`Model`]. The generated code does the
//! same for one spec, with the same engines: one matcher, `isa_rt::asm`, over the same
//! forms (`forms`: built here per line, written out as the generated crate's constants),
//! and one printer, `isa_rt::print`, over the same rows ([`tables`]; the generated crate
//! holds them as its `TABLES`). What holds them to the spec is that every printed line
//! reads back to its word, and the expected text and messages of the tests
//! (`tests/asm.rs`). [`program`] handles whole programs (labels, `/*0040*/` address
//! prefixes).
//!
//! The printing rules (docs/architecture.md, "What an instruction is"):
//! - the guard predicate (the first `Order` operand) prints as `@P0`/`@!UP1` and is left
//!   out when it is at its default (`PT`, not negated);
//! - the mnemonic is the optype name with `_` written `.` (`UIMAD_WIDE` → `UIMAD.WIDE`);
//! - modifiers print as `.VALUE` in `__Syntax` order, left out when equal to their default;
//! - operands follow `Order`; sub-fields named `not`, `neg` and `bitnot` print as `!`, `-`
//!   and `~` prefixes (`CvtINegX` turns `-` into `~` when its `ext` modifier is `X`), other
//!   sub-fields as `.VALUE` suffixes (left out at their default);
//! - a register whose Bitwidth is over 32 prints as a range (`R[2:3]`); constant registers
//!   (`RZ`, `URZ`) print plain. A range names registers by number, as the encoding does,
//!   so it may run past the last numbered register (`R[254:255]` is a 64-bit operand at
//!   `R254`); only its first register must exist;
//! - immediates print in hex (`-0x1` for negative signed ones); a `CvtIShift` operand is a
//!   branch target, printed as the absolute address `pc + 16 + (value << n)`;
//! - `c[0x0][0x160]`, `c[0x1][UR4-0x1]` (the register left out when it is the constant
//!   zero register), `UR[UR2+0x1]`, fixed words (`UPR`), enum values by name;
//! - an operand with a default is left out when it is at its default, unless the operand
//!   printed after it could be read as it (so parsing gives the same instruction back).
//!
//! Parsing accepts exactly what printing produces, plus what SASS writers write: optional
//! operands and defaults omitted, modifiers in any order, `;` and `//` comments, labels
//! (`` `(.L_x) ``) in branch-target operands, signed immediates written as their bit
//! pattern (`0xffffffff` for `-1`).

mod forms;
pub mod lex;
pub mod omit;
mod parse;
mod print;
pub mod program;
pub mod tables;

pub use isa_rt::print::FormatOptions;

pub(crate) use forms::Forms;

use std::collections::HashMap;
use std::fmt;
use std::ops::Range;

use crate::model::interp::Decoded;
use crate::model::{AsmFormat, Model, OperandKind, Role, TypeKind};
use crate::syntax::ast::DocKind;

/// An assembly error: a byte range of the line and what is wrong there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AsmError {
    pub span: Range<usize>,
    pub message: String,
    pub notes: Vec<String>,
}

impl AsmError {
    pub fn new(span: Range<usize>, message: impl Into<String>) -> AsmError {
        AsmError {
            span,
            message: message.into(),
            notes: Vec::new(),
        }
    }

    /// 1-based column of the error in its line (in characters).
    pub fn column(&self, line: &str) -> usize {
        line.get(..self.span.start.min(line.len()))
            .map_or(1, |s| s.chars().count() + 1)
    }
}

impl fmt::Display for AsmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        for n in &self.notes {
            write!(f, " ({n})")?;
        }
        Ok(())
    }
}

/// How a sub-field prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SubKind {
    /// `!` prefix (`.not`).
    Not,
    /// `-` prefix (`.neg`), `~` under `CvtINegX` when `ext` is `X`.
    Neg { ext: Option<usize> },
    /// `~` prefix (`.bitnot`).
    BitNot,
    /// `.VALUE` suffix.
    Suffix,
}

/// Per-opcode facts the assembler needs, computed once.
#[derive(Debug, Clone)]
pub(crate) struct OpcodeAsm {
    /// Index of the guard field, if any.
    pub guard: Option<usize>,
    /// `Order` without the guard.
    pub operands: Vec<crate::model::Operand>,
    /// A label per operand for messages (`SrcB`), from `__Syntax` when it lines up.
    pub labels: Vec<String>,
    /// Modifier fields in printing order.
    pub modifiers: Vec<usize>,
    /// Sub-fields of each field: (sub-field index, kind).
    pub subs: HashMap<usize, Vec<(usize, SubKind)>>,
}

/// Mnemonics that share their first part, each with its opcodes (in spec order).
type Mnemonics = Vec<(String, Vec<usize>)>;

/// The interpreting assembler and printer for one model.
pub struct Assembler<'m> {
    pub model: &'m Model,
    /// The mnemonics by their first part (`UIMAD` of `UIMAD.WIDE`), as
    /// `isa_rt::asm::forms_of` searches them: sorted by the first part's length, then
    /// its bytes; each mnemonic with its opcodes in spec order.
    mnemonics: Vec<(String, Mnemonics)>,
    pub(crate) ops: Vec<OpcodeAsm>,
    /// The model as the engines' tables (`isa_rt::table`).
    tables: Box<isa_rt::table::TableBuf>,
    /// What the matcher's forms of the opcodes are put together from.
    forms: forms::Prepared<'m>,
}

impl<'m> Assembler<'m> {
    pub fn new(model: &'m Model) -> Assembler<'m> {
        let mut by_name: HashMap<String, Vec<usize>> = HashMap::new();
        for i in 0..model.opcodes.len() {
            by_name.entry(mnemonic(model, i)).or_default().push(i);
        }
        let mut by_first: HashMap<String, Mnemonics> = HashMap::new();
        for (m, ops) in by_name {
            let first = m.split('.').next().unwrap_or_default().to_string();
            by_first.entry(first).or_default().push((m, ops));
        }
        let mut mnemonics: Vec<_> = by_first.into_iter().collect();
        mnemonics.sort_unstable_by(|(a, _), (b, _)| a.len().cmp(&b.len()).then_with(|| a.cmp(b)));
        for (_, ms) in &mut mnemonics {
            ms.sort_unstable();
        }
        let ops: Vec<OpcodeAsm> = (0..model.opcodes.len())
            .map(|i| opcode_asm(model, i))
            .collect();
        let forms = forms::Prepared::new(model, &ops);
        let mut a = Assembler {
            model,
            mnemonics,
            ops,
            tables: Default::default(),
            forms,
        };
        a.tables = Box::new(tables::build(&a));
        a
    }

    /// Every mnemonic, sorted.
    pub fn mnemonics(&self) -> Vec<&str> {
        let mut v: Vec<&str> = self
            .mnemonics
            .iter()
            .flat_map(|(_, ms)| ms.iter().map(|(m, _)| m.as_str()))
            .collect();
        v.sort_unstable();
        v
    }

    /// The mnemonics by their first part, each with its opcodes (in spec order), as
    /// `isa_rt::asm::forms_of` reads them.
    pub(crate) fn mnemonic_forms(&self) -> &[(String, Mnemonics)] {
        &self.mnemonics
    }

    /// Parses one instruction line at address `addr`. `labels` resolves `` `(label) ``
    /// references to absolute addresses. A line without an instruction (empty, only a
    /// comment or `;`) is an error; [`program::assemble`] skips such lines itself.
    ///
    /// When several opcodes share the mnemonic, the error is that of the opcode the
    /// line fits best: the one whose operands match by kind furthest along the line,
    /// reporting its first problem; kind mismatches of several opcodes at the same
    /// operand are merged ("expected a Reg or a UImm5").
    pub fn parse_line(
        &self,
        line: &str,
        addr: u64,
        labels: &dyn Fn(&str) -> Option<u64>,
    ) -> Result<Decoded, AsmError> {
        parse::parse_line(self, line, addr, labels).map(|(d, _)| d)
    }

    /// Like [`Assembler::parse_line`], also returning for each written operand the
    /// operand it was read as: an index into [`Assembler::operands`] of the opcode.
    pub fn parse_line_mapped(
        &self,
        line: &str,
        addr: u64,
        labels: &dyn Fn(&str) -> Option<u64>,
    ) -> Result<(Decoded, Vec<usize>), AsmError> {
        parse::parse_line(self, line, addr, labels)
    }

    /// The model as the engines' tables (what the generated code holds as statics).
    pub fn tables(&self) -> isa_rt::table::Tables<'_> {
        self.tables.tables()
    }

    /// The operands of an opcode as assembly writes them: `Order` without the guard.
    pub fn operands(&self, opcode: usize) -> &[crate::model::Operand] {
        &self.ops[opcode].operands
    }

    /// Prints an instruction located at `addr`.
    pub fn print(&self, d: &Decoded, addr: u64) -> String {
        print::print(self, d, addr, &FormatOptions::DEFAULT)
    }

    /// Prints an instruction located at `addr` the way `opts` says (addresses through
    /// a symbol table, decimal numbers, defaults shown).
    pub fn print_with(&self, d: &Decoded, addr: u64, opts: &FormatOptions) -> String {
        print::print(self, d, addr, opts)
    }
}

/// The assembly mnemonic of opcode `i`: its optype's name with `_` written `.`.
pub fn mnemonic(model: &Model, i: usize) -> String {
    let op = &model.opcodes[i];
    let name = op
        .optype
        .map(|d| model.def(d).name.as_str())
        .unwrap_or(op.name.as_str());
    name.replace('_', ".")
}

fn sub_kind(model: &Model, op: &crate::model::Opcode, sub: usize) -> SubKind {
    let f = &op.fields[sub];
    match f.sub_name() {
        Some("not") => SubKind::Not,
        Some("neg") => {
            let ext = op.asm_formats.iter().find_map(|a| match *a {
                AsmFormat::INegX { neg, ext } if neg == sub => Some(ext),
                _ => None,
            });
            SubKind::Neg { ext }
        }
        Some("bitnot") => SubKind::BitNot,
        _ => {
            let _ = model;
            SubKind::Suffix
        }
    }
}

fn opcode_asm(model: &Model, i: usize) -> OpcodeAsm {
    let op = &model.opcodes[i];
    let guard = op.guard(model);
    let operands: Vec<_> = op.asm_operands(model).cloned().collect();
    let mut subs: HashMap<usize, Vec<(usize, SubKind)>> = HashMap::new();
    for (k, f) in op.fields.iter().enumerate() {
        if let Role::SubField(base) = f.role {
            subs.entry(base)
                .or_default()
                .push((k, sub_kind(model, op, k)));
        }
    }
    let syntax_lines = syntax_lines(model, op);
    let labels = operand_labels(model, op, &operands, &syntax_lines);
    let modifiers = modifier_order(model, op, &syntax_lines);
    OpcodeAsm {
        guard,
        operands,
        labels,
        modifiers,
        subs,
    }
}

/// Code lines of the opcode's `__Syntax` (its own, else its optype's).
fn syntax_lines(model: &Model, op: &crate::model::Opcode) -> Vec<String> {
    model
        .opcode_docs(op)
        .into_iter()
        .filter(|d| d.kind == DocKind::Syntax)
        .flat_map(|d| d.code_blocks.iter().flat_map(|b| b.lines.iter()))
        .map(|l| {
            let t = l.text.trim();
            let t = t.split("//").next().unwrap_or("");
            t.split('$')
                .next()
                .unwrap_or("")
                .trim()
                .trim_end_matches(';')
                .to_string()
        })
        .filter(|t| !t.is_empty() && !t.starts_with('.'))
        .collect()
}

/// Operand labels from a `__Syntax` line with as many operands as the opcode has.
fn operand_labels(
    model: &Model,
    op: &crate::model::Opcode,
    operands: &[crate::model::Operand],
    lines: &[String],
) -> Vec<String> {
    // As written in `Order`.
    let order: Vec<String> = operands
        .iter()
        .map(|o| match o.kind {
            OperandKind::Field(f) => op.fields[f].name.clone(),
            OperandKind::CMemIndexed { mem, reg } => {
                format!("C[{}, {}]", op.fields[mem].name, op.fields[reg].name)
            }
            OperandKind::RegIndexed { file, reg, offset } => format!(
                "{}[{}, {}]",
                model.ty(file).reg_file().map_or("", |r| r.prefix.as_str()),
                op.fields[reg].name,
                op.fields[offset].name
            ),
            OperandKind::Word(w) => model.words[w.0].name.clone(),
        })
        .collect();
    // The names of the `__Syntax` lines with as many operands. The lines are the
    // optype's and do not say which opcode they describe. Where they disagree and one
    // of them names a field some opcode of the optype has there (`gb` in one line,
    // `imm` in another: one line per form), the opcode's own `Order` name is taken;
    // where they disagree otherwise (`SrcA` and `URa` for `.32` and `.64`), the first
    // line's.
    let forms: Vec<Vec<String>> = lines
        .iter()
        .filter_map(|line| {
            let (_, rest) = line.split_once(char::is_whitespace)?;
            let names: Vec<String> = split_top_level(rest)
                .into_iter()
                .map(|s| {
                    s.chars()
                        .filter(|c| !matches!(c, '{' | '}' | '!' | '-' | '~'))
                        .collect::<String>()
                        .trim()
                        .to_string()
                })
                .filter(|s| !s.is_empty())
                .collect();
            (names.len() == operands.len()).then_some(names)
        })
        .collect();
    let Some(first) = forms.first() else {
        return order;
    };
    // Operand `k` as the assembler counts them (the guard left out).
    fn field_at<'m>(model: &Model, o: &'m crate::model::Opcode, k: usize) -> Option<&'m str> {
        match o.asm_operands(model).nth(k).map(|x| &x.kind) {
            Some(OperandKind::Field(f)) => Some(o.fields[*f].name.as_str()),
            _ => None,
        }
    }
    (0..operands.len())
        .map(|k| {
            let per_form = forms.iter().any(|f| {
                f[k] != first[k]
                    && model.opcodes.iter().any(|o| {
                        o.optype.is_some()
                            && o.optype == op.optype
                            && field_at(model, o, k) == Some(f[k].as_str())
                    })
            });
            if per_form {
                order[k].clone()
            } else {
                first[k].clone()
            }
        })
        .collect()
}

/// Splits at commas that are not inside brackets.
fn split_top_level(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        match c {
            '[' | '(' => depth += 1,
            ']' | ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

/// Modifier fields in the order the `__Syntax` lines write them (merged across lines),
/// then any others in field order.
fn modifier_order(model: &Model, op: &crate::model::Opcode, lines: &[String]) -> Vec<usize> {
    let mods: Vec<usize> = op
        .fields
        .iter()
        .enumerate()
        .filter(|(_, f)| f.role == Role::Modifier)
        .map(|(i, _)| i)
        .collect();
    let mut order: Vec<usize> = Vec::new();
    for line in lines {
        let head = line.split_whitespace().next().unwrap_or("");
        let seq: Vec<usize> = head
            .split(['.', '{', '}'])
            .filter(|w| !w.is_empty())
            .filter_map(|w| {
                let w = w.trim_end_matches('*');
                mods.iter().copied().find(|&m| {
                    op.fields[m].name == w || model.ty(op.fields[m].ty).enum_code(w).is_some()
                })
            })
            .collect();
        for (k, &m) in seq.iter().enumerate() {
            if order.contains(&m) {
                continue;
            }
            match seq[k + 1..]
                .iter()
                .find_map(|n| order.iter().position(|o| o == n))
            {
                Some(pos) => order.insert(pos, m),
                None => order.push(m),
            }
        }
    }
    for m in mods {
        if !order.contains(&m) {
            order.push(m);
        }
    }
    order
}

/// A description of what an operand accepts, for messages ("a Reg", "a UImm5").
pub(crate) fn expected_kind(model: &Model, op: &crate::model::Opcode, o: &OperandKind) -> String {
    match *o {
        OperandKind::Field(f) => {
            let t = model.ty(op.fields[f].ty);
            match &t.kind {
                TypeKind::RegFile(_) => format!("a {}", t.name),
                TypeKind::Immediate { .. } => format!("a {}", t.name),
                TypeKind::ConstMem { .. } => "a constant-memory operand c[bank][offset]".into(),
                TypeKind::Enum(vs) => {
                    let names: Vec<&str> = vs.iter().take(4).map(|v| v.name.as_str()).collect();
                    format!(
                        "a {} ({}{})",
                        t.name,
                        names.join(", "),
                        if vs.len() > 4 { ", …" } else { "" }
                    )
                }
            }
        }
        OperandKind::CMemIndexed { reg, .. } => format!(
            "a constant-memory operand c[bank][{}+offset]",
            model
                .ty(op.fields[reg].ty)
                .reg_file()
                .map_or("REG".to_string(), |r| r.prefix.clone())
        ),
        OperandKind::RegIndexed { file, .. } => {
            let p = model
                .ty(file)
                .reg_file()
                .map_or("", |r| r.prefix.as_str())
                .to_string();
            format!("an indexed register {p}[{p}n+offset]")
        }
        OperandKind::Word(w) => format!("`{}`", model.words[w.0].name),
    }
}

/// Sign-extends the low `width` bits of `code`.
pub(crate) fn sign_extend(code: u128, width: u32) -> i128 {
    if width == 0 || width >= 128 {
        return code as i128;
    }
    let shift = 128 - width;
    ((code << shift) as i128) >> shift
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sign_extension_of_every_width() {
        assert_eq!(sign_extend(0x7f, 8), 127);
        assert_eq!(sign_extend(0x80, 8), -128);
        assert_eq!(
            sign_extend(0x1ff, 8),
            -1,
            "bits above the width are ignored"
        );
        assert_eq!(sign_extend(1, 1), -1);
        assert_eq!(sign_extend(u128::MAX, 128), -1);
        assert_eq!(sign_extend(5, 0), 5, "no bits: the code as it is");
    }
}
