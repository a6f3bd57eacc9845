//! Lints: inconsistencies that do not stop generation, reported as located warnings.
//!
//! Every lint is driven by the model; no opcode, type or value name is built in. Text
//! in a doc section is linted once, at the definition that owns it (an optype's
//! `__Syntax` is checked against all of its opcodes, not once per opcode).
//!
//! - **`__Syntax` against the encodings.** Each syntax line `NAME{.mod}.mod Ops…` (the
//!   `$sched $req $wsb` tail and `//` comments are ignored) must name an optype of the
//!   section's definition (an `_` in the optype's name is a `.` in the mnemonic:
//!   `UIMAD.WIDE`), and every further `.word` must be a modifier field of its opcodes
//!   or a value of one. A modifier written as required (`.itype`, not `{.itype}`)
//!   must have no encoding default, since a default value is never printed. The
//!   operands are counted (`{, upu}` and `{upu, }` are optional operands, `{-}` an
//!   optional prefix): some opcode must accept that many, where an opcode takes its
//!   `Order` minus the guard predicate and may leave out operands that have a default.
//!   When a line spells out every operand of an opcode, a `{-}`, `{~}` or `{!}` prefix
//!   must have a sub-field that encodes it (`.neg`; `.bitnot` or `.neg` for `~`;
//!   `.not`) in some opcode. A value list `.name = {.A*, .B}` must list values of the
//!   type of the field `name` (a modifier or sub-field), all of them, and its `*`
//!   default must be the field's `= value`.
//! - **`__Examples` against the assembler.** Example lines are read after removing `//`
//!   comments, a `/*0040*/` address prefix (the instruction's address, for branch
//!   targets) and labels, skipping lines left empty. Each line must assemble with
//!   [`crate::asm::Assembler::parse_line`] (a label reference stands for the next
//!   instruction) as one of the opcodes of the definition that owns the section;
//!   otherwise the warning is the assembler's message ("example does not assemble: …",
//!   with its notes) at the assembler's column, or says which opcode the line assembles
//!   as instead. An `__Examples` section without a fenced code block (or with only
//!   empty ones) is reported too. [`run`] returns how many lines assembled and how many
//!   were warned about.
//! - **`Bitwidth` against sibling opcodes.** When a strict majority (at least two) of
//!   the opcodes of an optype that give an operand (same name and type) a bit width
//!   agree, each opcode that says otherwise is reported; a tie (two against two) is no
//!   majority, and neither side is reported. Widths are compared as expressions over
//!   field and value names.
//! - **Text that names one opcode.** Each opcode at its defaults is printed and read
//!   back; reading it as another opcode of the mnemonic (the two print alike: their
//!   fixed bits differ and nothing they print does) is reported at the opcode, with the
//!   one it reads as.
//! - **Opcode name against its fixed fields.** An opcode named `OPTYPE_SUFFIX` (or
//!   `…_SUFFIX`) whose fixed field has a type with a value `SUFFIX` should fix that
//!   field to `SUFFIX`.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::diag::{Diagnostic, Diagnostics, Lint};
use crate::model::{DefId, Model, Opcode, OperandKind, Role, TypeId};
use crate::source::{SourceMap, Span};
use crate::syntax::ast::{CodeLine, DocKind, DocSection};

/// Runs every lint; returns how the `__Examples` lines fared.
pub fn run(model: &Model, _sources: &SourceMap, diags: &mut Diagnostics) -> ExampleStats {
    let cx = Cx::new(model);
    for (i, def) in model.defs.iter().enumerate() {
        let scope = cx.opcodes_under(DefId(i));
        if scope.is_empty() {
            continue;
        }
        for doc in &def.docs {
            match doc.kind {
                DocKind::Syntax => cx.syntax_section(&def.name, scope, doc, diags),
                DocKind::Examples => cx.examples_section(&def.name, scope, doc, diags),
                _ => {}
            }
        }
    }
    cx.sibling_bitwidths(diags);
    cx.fixed_suffixes(diags);
    cx.texts_read_back(diags);
    cx.stats.get()
}

/// An optype (or an opcode that has none) and the opcodes one mnemonic stands for.
struct Family {
    name: String,
    /// The name split at `_`: how it is written in a mnemonic (`UIMAD.WIDE`).
    parts: Vec<String>,
    ops: Vec<usize>,
}

struct Cx<'m> {
    model: &'m Model,
    families: Vec<Family>,
    /// Family by name, and the families by the first word of their name.
    family_named: HashMap<String, usize>,
    families_by_head: HashMap<String, Vec<usize>>,
    /// Per definition: the opcodes that are it or descend from it, in order.
    under: Vec<Vec<usize>>,
    asm: crate::asm::Assembler<'m>,
    stats: std::cell::Cell<ExampleStats>,
}

pub use crate::ExampleStats;

/// A `.word` of a mnemonic (the head has no dot), by byte offsets in its line.
#[derive(Debug, Clone)]
struct Comp<'t> {
    text: &'t str,
    start: usize,
    end: usize,
    optional: bool,
}

/// An operand of a syntax line: its text (with any prefix) and byte offsets.
#[derive(Debug, Clone)]
struct SynOperand<'t> {
    text: &'t str,
    start: usize,
    optional: bool,
}

/// A byte range of `line` as a span.
fn sub_span(line: &CodeLine, start: usize, end: usize) -> Span {
    Span {
        file: line.span.file,
        start: line.span.start + start as u32,
        end: line.span.start + end as u32,
    }
}

fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn range_text(lo: usize, hi: usize) -> String {
    if lo == hi {
        plural(lo, "operand", "operands")
    } else {
        format!("{lo} to {hi} operands")
    }
}

fn quoted_list<'a>(items: impl IntoIterator<Item = &'a str>) -> String {
    items
        .into_iter()
        .map(|s| format!("`{s}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Index of the bracket closing the one at `open`, or `to` when unbalanced.
/// An opcode's `Bitwidth` of one operand: the opcode, the width as text, the entry.
type WidthEntry<'a> = (&'a Opcode, String, Span);

impl<'m> Cx<'m> {
    fn new(model: &'m Model) -> Cx<'m> {
        // Indexes built once: a scan of every opcode per definition, or of every
        // family per mnemonic, made the lints quadratic in the spec.
        let mut families: Vec<Family> = Vec::new();
        let mut family_named: HashMap<String, usize> = HashMap::new();
        let mut under: Vec<Vec<usize>> = vec![Vec::new(); model.defs.len()];
        for (i, op) in model.opcodes.iter().enumerate() {
            let def = op.optype.unwrap_or(op.def);
            let name = &model.def(def).name;
            match family_named.get(name) {
                Some(&f) => families[f].ops.push(i),
                None => {
                    family_named.insert(name.clone(), families.len());
                    families.push(Family {
                        name: name.clone(),
                        parts: name.split('_').map(str::to_string).collect(),
                        ops: vec![i],
                    });
                }
            }
            under[op.def.0].push(i);
            for a in op.ancestors.iter().filter(|&&a| a != op.def) {
                under[a.0].push(i);
            }
        }
        let mut families_by_head: HashMap<String, Vec<usize>> = HashMap::new();
        for (k, f) in families.iter().enumerate() {
            families_by_head
                .entry(f.parts[0].clone())
                .or_default()
                .push(k);
        }
        Cx {
            model,
            families,
            family_named,
            families_by_head,
            under,
            asm: crate::asm::Assembler::new(model),
            stats: Default::default(),
        }
    }

    fn op(&self, i: usize) -> &'m Opcode {
        &self.model.opcodes[i]
    }

    /// Opcodes that are `def` or descend from it.
    fn opcodes_under(&self, def: DefId) -> &[usize] {
        &self.under[def.0]
    }

    /// The family a mnemonic names: the one matching the most leading words
    /// (`UIMAD.WIDE.U32` is `UIMAD_WIDE`, not `UIMAD`). Returns it and how many of
    /// `comps` its name used.
    fn family_of(&self, head: &str, comps: &[Comp]) -> Option<(&Family, usize)> {
        // Family names differ, so two families never use the same number of words of
        // one mnemonic: the maximum is unique.
        let exact = self.family_named.get(head);
        let by_head = self.families_by_head.get(head).into_iter().flatten();
        exact
            .into_iter()
            .chain(by_head.filter(|&k| Some(k) != exact))
            .map(|&k| &self.families[k])
            .filter_map(|f| {
                if f.name == head {
                    Some((f, 0))
                } else {
                    // A one-word name equal to `head` took the branch above.
                    let rest = &f.parts[1..];
                    (f.parts[0] == head
                        && comps.len() >= rest.len()
                        && rest
                            .iter()
                            .zip(comps)
                            .all(|(p, c)| !c.optional && p == c.text))
                    .then_some((f, rest.len()))
                }
            })
            .max_by_key(|&(_, used)| used)
    }

    /// `(min, max)` operands an opcode accepts: its `Order` without the guard; operands
    /// with a default may be left out.
    fn operand_range(&self, op: &Opcode) -> (usize, usize) {
        let items = &op.order[usize::from(op.guard(self.model).is_some())..];
        let omittable = items
            .iter()
            .filter(|o| matches!(o.kind, OperandKind::Field(f) if op.fields[f].default.is_some()))
            .count();
        (items.len() - omittable, items.len())
    }

    fn accepts(&self, ops: &[usize], lo: usize, hi: usize) -> bool {
        ops.iter().any(|&i| {
            let (a, b) = self.operand_range(self.op(i));
            a <= hi && lo <= b
        })
    }

    /// "`A` takes 2 operands, `B` 3 to 4 operands" for a message note.
    fn ranges_note(&self, ops: &[usize]) -> String {
        let mut by_range: BTreeMap<(usize, usize), Vec<&str>> = BTreeMap::new();
        for &i in ops {
            let op = self.op(i);
            by_range
                .entry(self.operand_range(op))
                .or_default()
                .push(&op.name);
        }
        by_range
            .iter()
            .map(|(&(lo, hi), names)| {
                let verb = if names.len() == 1 { "takes" } else { "take" };
                format!(
                    "{} {verb} {}",
                    quoted_list(names.clone()),
                    range_text(lo, hi)
                )
            })
            .collect::<Vec<_>>()
            .join("; ")
    }

    /// Modifier fields of `ops`, one per name (first occurrence).
    fn modifiers(&self, ops: &[usize]) -> Vec<(usize, usize)> {
        let mut seen = BTreeSet::new();
        let mut out = Vec::new();
        for &i in ops {
            for (fi, f) in self.op(i).fields.iter().enumerate() {
                if f.role == Role::Modifier && seen.insert(f.name.as_str()) {
                    out.push((i, fi));
                }
            }
        }
        out
    }

    fn is_modifier_value(&self, ops: &[usize], word: &str) -> bool {
        ops.iter().any(|&i| {
            self.op(i)
                .fields
                .iter()
                .any(|f| f.role == Role::Modifier && self.model.ty(f.ty).enum_code(word).is_some())
        })
    }

    fn is_modifier_name(&self, ops: &[usize], word: &str) -> bool {
        ops.iter().any(|&i| {
            self.op(i)
                .fields
                .iter()
                .any(|f| f.role == Role::Modifier && f.name == word)
        })
    }
}

mod consistency;
mod examples;
mod syntax;
#[cfg(test)]
mod tests;
