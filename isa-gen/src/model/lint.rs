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
//!   agree, each opcode that says otherwise is reported. Widths are compared as
//!   expressions over field and value names.
//! - **Opcode name against its fixed fields.** An opcode named `OPTYPE_SUFFIX` (or
//!   `…_SUFFIX`) whose fixed field has a type with a value `SUFFIX` should fix that
//!   field to `SUFFIX`.

use std::collections::{BTreeMap, BTreeSet};

use super::{DefId, Model, Opcode, OperandKind, Role, TypeId};
use crate::diag::{Diagnostic, Diagnostics};
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
                DocKind::Syntax => cx.syntax_section(&def.name, &scope, doc, diags),
                DocKind::Examples => cx.examples_section(&def.name, &scope, doc, diags),
                _ => {}
            }
        }
    }
    cx.sibling_bitwidths(diags);
    cx.fixed_suffixes(diags);
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
    asm: crate::asm::Assembler<'m>,
    stats: std::cell::Cell<ExampleStats>,
}

/// How the spec's `__Examples` lines fared: every line either assembles or has a warning.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ExampleStats {
    /// Lines the assembler accepts.
    pub assembled: usize,
    /// Lines reported by a located warning saying why they do not assemble.
    pub warned: usize,
}

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
fn closing(bytes: &[u8], open: usize, to: usize) -> usize {
    let mut depth = 0usize;
    for (i, &b) in bytes.iter().enumerate().take(to).skip(open) {
        match b {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i;
                }
            }
            _ => {}
        }
    }
    to
}

/// Splits `from..to` at commas outside brackets.
fn split_commas(bytes: &[u8], from: usize, to: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut start = from;
    for (i, &b) in bytes.iter().enumerate().take(to).skip(from) {
        match b {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            b',' if depth == 0 => {
                out.push((start, i));
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push((start, to));
    out
}

/// `from..to` without surrounding whitespace.
fn trim_range(bytes: &[u8], mut from: usize, mut to: usize) -> (usize, usize) {
    while from < to && bytes[from].is_ascii_whitespace() {
        from += 1;
    }
    while to > from && bytes[to - 1].is_ascii_whitespace() {
        to -= 1;
    }
    (from, to)
}

/// Parses a mnemonic at `at`: `HEAD(.word|{.word…})*`, ending at whitespace or the
/// end. Returns the head, the words, and where it ends.
fn parse_mnemonic(text: &str, at: usize) -> Option<(Comp<'_>, Vec<Comp<'_>>, usize)> {
    let b = text.as_bytes();
    let ident = |mut i: usize| {
        let s = i;
        while i < b.len() && is_ident_byte(b[i]) {
            i += 1;
        }
        (s, i)
    };
    let (hs, he) = ident(at);
    if hs == he || !(b[hs].is_ascii_alphabetic() || b[hs] == b'_') {
        return None;
    }
    let head = Comp {
        text: &text[hs..he],
        start: hs,
        end: he,
        optional: false,
    };
    let mut comps = Vec::new();
    let mut i = he;
    loop {
        if i < b.len() && b[i] == b'.' {
            let (s, e) = ident(i + 1);
            if s == e {
                return None;
            }
            comps.push(Comp {
                text: &text[s..e],
                start: s,
                end: e,
                optional: false,
            });
            i = e;
        } else if i + 1 < b.len() && b[i] == b'{' && b[i + 1] == b'.' {
            i += 1;
            while i < b.len() && b[i] == b'.' {
                let (s, e) = ident(i + 1);
                if s == e {
                    return None;
                }
                comps.push(Comp {
                    text: &text[s..e],
                    start: s,
                    end: e,
                    optional: true,
                });
                i = e;
            }
            if i >= b.len() || b[i] != b'}' {
                return None;
            }
            i += 1;
        } else {
            break;
        }
    }
    if i < b.len() && !b[i].is_ascii_whitespace() {
        return None;
    }
    Some((head, comps, i))
}

/// The operands of a syntax line between `from` and `to`. A brace group holding a
/// comma is optional (`URd{, upu}`, `{upu, }URd`); other brace groups are optional
/// parts of one operand (`{-}URa`, `UR[URa{+SImm7}]`).
fn syntax_operands(text: &str, from: usize, to: usize) -> Vec<SynOperand<'_>> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let (f, t) = trim_range(b, from, to);
    if f == t {
        return out;
    }
    for (a, z) in split_commas(b, from, to) {
        let mut items: Vec<SynOperand> = Vec::new();
        let mut main: Option<(usize, usize)> = None;
        let extend = |s: usize, e: usize, main: &mut Option<(usize, usize)>| {
            *main = Some(match *main {
                None => (s, e),
                Some((ms, _)) => (ms, e),
            });
        };
        let mut i = a;
        while i < z {
            if b[i] == b'{' {
                let close = closing(b, i, z);
                let inner = split_commas(b, i + 1, close);
                if inner.len() > 1 {
                    for (c, d) in inner {
                        let (c, d) = trim_range(b, c, d);
                        if c < d {
                            items.push(SynOperand {
                                text: &text[c..d],
                                start: c,
                                optional: true,
                            });
                        }
                    }
                } else {
                    extend(i, (close + 1).min(z), &mut main);
                }
                i = close + 1;
                continue;
            }
            if !b[i].is_ascii_whitespace() {
                extend(i, i + 1, &mut main);
            }
            i += 1;
        }
        if let Some((s, e)) = main {
            items.push(SynOperand {
                text: &text[s..e],
                start: s,
                optional: false,
            });
        }
        items.sort_by_key(|o| o.start);
        out.extend(items);
    }
    out
}

/// The prefix of a syntax operand (`{-}URa`, `-URa`): the character and its offset
/// within the operand text.
fn operand_prefix(text: &str) -> Option<(char, usize, &str)> {
    let b = text.as_bytes();
    for (i, &c) in b.iter().enumerate().take(2) {
        if matches!(c, b'-' | b'~' | b'!') {
            let braced = i == 1 && b[0] == b'{' && b.get(2) == Some(&b'}');
            if i == 0 || braced {
                let rest = &text[if braced { 3 } else { 1 }..];
                return Some((c as char, i, rest));
            }
        }
    }
    None
}

/// Whether a sub-field named `sub` can encode the prefix `p`.
fn encodes_prefix(sub: &str, p: char) -> bool {
    match sub {
        "not" => p == '!',
        "neg" => p == '-' || p == '~',
        "bitnot" => p == '~',
        _ => false,
    }
}

/// An opcode's `Bitwidth` of one operand: the opcode, the width as text, the entry.
type WidthEntry<'a> = (&'a Opcode, String, Span);

impl<'m> Cx<'m> {
    fn new(model: &'m Model) -> Cx<'m> {
        let mut families: Vec<Family> = Vec::new();
        for (i, op) in model.opcodes.iter().enumerate() {
            let def = op.optype.unwrap_or(op.def);
            let name = &model.def(def).name;
            match families.iter_mut().find(|f| f.name == *name) {
                Some(f) => f.ops.push(i),
                None => families.push(Family {
                    name: name.clone(),
                    parts: name.split('_').map(str::to_string).collect(),
                    ops: vec![i],
                }),
            }
        }
        Cx {
            model,
            families,
            asm: crate::asm::Assembler::new(model),
            stats: Default::default(),
        }
    }

    fn op(&self, i: usize) -> &'m Opcode {
        &self.model.opcodes[i]
    }

    /// Opcodes that are `def` or descend from it.
    fn opcodes_under(&self, def: DefId) -> Vec<usize> {
        (0..self.model.opcodes.len())
            .filter(|&i| {
                let op = self.op(i);
                op.def == def || op.ancestors.contains(&def)
            })
            .collect()
    }

    /// The family a mnemonic names: the one matching the most leading words
    /// (`UIMAD.WIDE.U32` is `UIMAD_WIDE`, not `UIMAD`). Returns it and how many of
    /// `comps` its name used.
    fn family_of(&self, head: &str, comps: &[Comp]) -> Option<(&Family, usize)> {
        let mut best: Option<(&Family, usize)> = None;
        for f in &self.families {
            let used = if f.name == head {
                Some(0)
            } else if f.parts[0] == head
                && f.parts.len() > 1
                && comps.len() >= f.parts.len() - 1
                && f.parts[1..]
                    .iter()
                    .zip(comps)
                    .all(|(p, c)| !c.optional && p == c.text)
            {
                Some(f.parts.len() - 1)
            } else {
                None
            };
            if let Some(u) = used {
                if best.is_none_or(|(_, b)| u > b) {
                    best = Some((f, u));
                }
            }
        }
        best
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

    // -- __Syntax -------------------------------------------------------------------

    fn syntax_section(
        &self,
        owner: &str,
        scope: &[usize],
        doc: &DocSection,
        diags: &mut Diagnostics,
    ) {
        // Modifiers written as required (reported once per section).
        let mut required_reported = BTreeSet::new();
        for line in doc.code_blocks.iter().flat_map(|b| &b.lines) {
            let text = line.text.as_str();
            let mut end = text.len();
            for stop in ["//", "$", ";"] {
                if let Some(p) = text.find(stop) {
                    end = end.min(p);
                }
            }
            let (start, end) = trim_range(text.as_bytes(), 0, end);
            if start == end {
                continue;
            }
            if text.as_bytes()[start] == b'.' {
                self.value_list(owner, scope, line, start, end, diags);
                continue;
            }
            let Some((head, comps, mn_end)) = parse_mnemonic(&text[..end], start) else {
                continue;
            };
            let Some((family, used)) = self.family_of(head.text, &comps) else {
                diags.push(
                    Diagnostic::warning(
                        sub_span(line, head.start, head.end),
                        format!(
                            "`__Syntax` of `{owner}` uses the unknown mnemonic `{}`",
                            head.text
                        ),
                    )
                    .with_label("no optype of this name"),
                );
                continue;
            };
            let ops: Vec<usize> = family
                .ops
                .iter()
                .copied()
                .filter(|i| scope.contains(i))
                .collect();
            if ops.is_empty() {
                diags.push(Diagnostic::warning(
                    sub_span(
                        line,
                        head.start,
                        comps.get(used.wrapping_sub(1)).map_or(head.end, |c| c.end),
                    ),
                    format!(
                        "`__Syntax` of `{owner}` describes `{}`, which is not one of its opcodes",
                        family.name
                    ),
                ));
                continue;
            }
            for c in &comps[used..] {
                if self.is_modifier_name(&ops, c.text) {
                    if !c.optional {
                        self.required_modifier(owner, &ops, line, c, &mut required_reported, diags);
                    }
                    continue;
                }
                if self.is_modifier_value(&ops, c.text) {
                    continue;
                }
                let mods = self.modifiers(&ops);
                let names: Vec<&str> = mods
                    .iter()
                    .map(|&(o, f)| self.op(o).fields[f].name.as_str())
                    .collect();
                let mut d = Diagnostic::warning(
                    sub_span(line, c.start - 1, c.end),
                    format!(
                        "`.{}` in the `__Syntax` of `{owner}` is neither a modifier of its opcodes nor a value of one",
                        c.text
                    ),
                );
                d = if names.is_empty() {
                    d.with_note(format!(
                        "the opcodes of `{}` have no modifiers",
                        family.name
                    ))
                } else {
                    d.with_note(format!(
                        "modifiers of `{}`: {}",
                        family.name,
                        quoted_list(names)
                    ))
                };
                diags.push(d);
            }
            self.syntax_operands(owner, &family.name, &ops, line, mn_end, end, diags);
        }
    }

    /// `.name` written as required in a mnemonic although the field has a default.
    fn required_modifier(
        &self,
        owner: &str,
        ops: &[usize],
        line: &CodeLine,
        c: &Comp,
        reported: &mut BTreeSet<String>,
        diags: &mut Diagnostics,
    ) {
        let with_default = ops.iter().find_map(|&i| {
            let op = self.op(i);
            op.fields
                .iter()
                .find(|f| f.role == Role::Modifier && f.name == c.text && f.default.is_some())
        });
        let Some(f) = with_default else { return };
        if !reported.insert(c.text.to_string()) {
            return;
        }
        let ty = self.model.ty(f.ty);
        let default = f.default.unwrap_or_default();
        let dname = ty
            .enum_name(default)
            .map_or_else(|| format!("{default:#x}"), str::to_string);
        diags.push(
            Diagnostic::warning(
                sub_span(line, c.start - 1, c.end),
                format!(
                    "`__Syntax` of `{owner}` writes `.{}` as required, but the encoding gives it the default `{dname}`",
                    c.text
                ),
            )
            .with_label(format!("write `{{.{}}}` if it may be left out", c.text))
            .with_secondary(f.span, "default declared here")
            .with_note("a modifier equal to its default is not printed, so the assembler must accept it left out"),
        );
    }

    /// Operand count and prefixes of one syntax line.
    #[allow(clippy::too_many_arguments)]
    fn syntax_operands(
        &self,
        owner: &str,
        family: &str,
        ops: &[usize],
        line: &CodeLine,
        from: usize,
        to: usize,
        diags: &mut Diagnostics,
    ) {
        let text = line.text.as_str();
        let operands = syntax_operands(text, from, to);
        let required = operands.iter().filter(|o| !o.optional).count();
        let total = operands.len();
        if !self.accepts(ops, required, total) {
            let (s, e) = match (operands.first(), operands.last()) {
                (Some(a), Some(z)) => (a.start, z.start + z.text.len()),
                _ => trim_range(text.as_bytes(), from, to),
            };
            let (s, e) = if s == e { (from, to.max(from)) } else { (s, e) };
            diags.push(
                Diagnostic::warning(
                    sub_span(line, s, e),
                    format!(
                        "`__Syntax` of `{owner}` shows {}, but no `{family}` opcode takes that many",
                        range_text(required, total)
                    ),
                )
                .with_note(self.ranges_note(ops))
                .with_note("an opcode takes its `Order` without the guard predicate; operands with a default may be left out"),
            );
            return;
        }
        // Prefixes, where the line spells out every operand of an opcode.
        for (k, o) in operands.iter().enumerate() {
            let Some((p, off, name)) = operand_prefix(o.text) else {
                continue;
            };
            let mut aligned = false;
            let mut supported = false;
            let mut fields: Vec<&str> = Vec::new();
            for &i in ops {
                let op = self.op(i);
                let skip = usize::from(op.guard(self.model).is_some());
                if op.order.len() - skip != total {
                    continue;
                }
                aligned = true;
                let base = match op.order[skip + k].kind {
                    OperandKind::Field(f) => Some(f),
                    OperandKind::CMemIndexed { mem, .. } => Some(mem),
                    OperandKind::RegIndexed { reg, .. } => Some(reg),
                    OperandKind::Word(_) => None,
                };
                let Some(base) = base else { continue };
                if !fields.contains(&op.fields[base].name.as_str()) {
                    fields.push(&op.fields[base].name);
                }
                if op.sub_fields(base).any(|s| {
                    op.fields[s]
                        .sub_name()
                        .is_some_and(|n| encodes_prefix(n, p))
                }) {
                    supported = true;
                }
            }
            if aligned && !supported {
                let at = o.start + off;
                let fields_text = if fields.is_empty() {
                    "that operand".to_string()
                } else {
                    quoted_list(fields.iter().copied())
                };
                diags.push(
                    Diagnostic::warning(
                        sub_span(line, at, at + 1),
                        format!(
                            "`__Syntax` of `{owner}` allows `{p}` before `{name}`, but no `{family}` opcode can encode it"
                        ),
                    )
                    .with_label(format!("no sub-field of {fields_text} encodes `{p}`"))
                    .with_note("`-` needs a `.neg` sub-field, `~` a `.bitnot` (or a `.neg` under `CvtINegX`), `!` a `.not`"),
                );
            }
        }
    }

    /// `.name = {.A*, .B}`: the values of the field `name`, `*` marking the default.
    fn value_list(
        &self,
        owner: &str,
        scope: &[usize],
        line: &CodeLine,
        start: usize,
        end: usize,
        diags: &mut Diagnostics,
    ) {
        let text = line.text.as_str();
        let b = text.as_bytes();
        // `.name`
        let ns = start + 1;
        let mut ne = ns;
        while ne < end && is_ident_byte(b[ne]) {
            ne += 1;
        }
        if ne == ns {
            return;
        }
        let name = &text[ns..ne];
        let rest = &text[ne..end];
        let Some(eq) = rest.find('=') else { return };
        if !rest[..eq].trim().is_empty() {
            return;
        }
        let after = ne + eq + 1;
        let Some(open) = text[after..end].find('{').map(|p| p + after) else {
            return;
        };
        if !text[after..open].trim().is_empty() {
            return;
        }
        let Some(close) = text[open..end].find('}').map(|p| p + open) else {
            return;
        };
        // Items: `.VALUE` with an optional `*`.
        let mut items: Vec<(&str, usize, usize, bool)> = Vec::new();
        for (a, z) in split_commas(b, open + 1, close) {
            let (a, z) = trim_range(b, a, z);
            if a == z {
                continue;
            }
            let item = &text[a..z];
            let Some(v) = item.strip_prefix('.') else {
                return;
            };
            let (v, star) = match v.strip_suffix('*') {
                Some(v) => (v.trim_end(), true),
                None => (v, false),
            };
            if v.is_empty() || !v.bytes().all(is_ident_byte) {
                return;
            }
            items.push((v, a + 1, a + 1 + v.len(), star));
        }
        // The fields this list describes: modifiers or sub-fields called `name`.
        let mut fields: Vec<(&Opcode, usize)> = Vec::new();
        for &i in scope {
            let op = self.op(i);
            for (fi, f) in op.fields.iter().enumerate() {
                let named = f.name == name || f.sub_name() == Some(name);
                if named && matches!(f.role, Role::Modifier | Role::SubField(_)) {
                    fields.push((op, fi));
                }
            }
        }
        if fields.is_empty() {
            diags.push(
                Diagnostic::warning(
                    sub_span(line, start, ne),
                    format!(
                        "`__Syntax` of `{owner}` lists values of `.{name}`, which is not a modifier of its opcodes"
                    ),
                )
                .with_note(format!(
                    "modifiers: {}",
                    quoted_list(
                        self.modifiers(scope)
                            .iter()
                            .map(|&(o, f)| self.op(o).fields[f].name.as_str())
                    )
                )),
            );
            return;
        }
        let mut types: Vec<TypeId> = Vec::new();
        for (op, fi) in &fields {
            if !types.contains(&op.fields[*fi].ty) {
                types.push(op.fields[*fi].ty);
            }
        }
        if types
            .iter()
            .all(|&t| self.model.ty(t).enum_values().is_none())
        {
            return; // values of a register or an immediate are not named
        }
        let valid = |v: &str| {
            types
                .iter()
                .any(|&t| self.model.ty(t).enum_code(v).is_some())
        };
        let bad: Vec<_> = items.iter().filter(|it| !valid(it.0)).collect();
        let ty_names = quoted_list(types.iter().map(|&t| self.model.ty(t).name.as_str()));
        if let Some(first) = bad.first() {
            let names = quoted_list(
                bad.iter()
                    .map(|it| format!(".{}", it.0))
                    .collect::<Vec<_>>()
                    .iter()
                    .map(String::as_str),
            );
            let mut d = Diagnostic::warning(
                sub_span(line, first.1 - 1, first.2),
                if bad.len() == 1 {
                    format!("{names} is not a value of {ty_names}, the type of `.{name}`")
                } else {
                    format!("{names} are not values of {ty_names}, the type of `.{name}`")
                },
            )
            .with_label("not a value of the field's type");
            for it in &bad[1..] {
                d = d.with_secondary(sub_span(line, it.1 - 1, it.2), "not a value either");
            }
            for &t in &types {
                let ty = self.model.ty(t);
                let values = ty.enum_values().unwrap_or(&[]);
                d = d.with_note(format!(
                    "values of `{}`: {}",
                    ty.name,
                    super::expr::list_values(values)
                ));
                for it in &bad {
                    if let Some(s) =
                        crate::suggest::nearest(it.0, values.iter().map(|v| v.name.as_str()))
                    {
                        d = d.with_note(format!("for `.{}`, did you mean `.{s}`?", it.0));
                    }
                }
            }
            let (op, fi) = fields[0];
            d = d.with_secondary(op.fields[fi].span, format!("`{name}` declared here"));
            let missing = self.unlisted(&types, &items);
            if !missing.is_empty() {
                d = d.with_note(format!("values not listed: {}", missing.join(", ")));
            }
            diags.push(d);
        } else {
            let missing = self.unlisted(&types, &items);
            if !missing.is_empty() {
                let (op, fi) = fields[0];
                diags.push(
                    Diagnostic::warning(
                        sub_span(line, start, close + 1),
                        format!(
                            "`__Syntax` of `{owner}` lists only some values of `.{name}`: {} {} missing",
                            missing.join(", "),
                            if missing.len() == 1 { "is" } else { "are" }
                        ),
                    )
                    .with_secondary(op.fields[fi].span, format!("`{name}` declared here")),
                );
            }
        }
        // The `*` default against the encoding's `= default`.
        let stars: Vec<_> = items.iter().filter(|it| it.3).collect();
        if stars.len() > 1 {
            diags.push(
                Diagnostic::warning(
                    sub_span(line, stars[1].1 - 1, stars[1].2 + 1),
                    format!("`__Syntax` of `{owner}` marks several defaults for `.{name}`"),
                )
                .with_secondary(
                    sub_span(line, stars[0].1 - 1, stars[0].2 + 1),
                    "first default",
                ),
            );
            return;
        }
        let Some(star) = stars.first() else { return };
        if !valid(star.0) {
            return; // already reported
        }
        let defaults: Vec<(&Opcode, usize, u128)> = fields
            .iter()
            .filter_map(|&(op, fi)| op.fields[fi].default.map(|d| (op, fi, d)))
            .collect();
        let star_span = sub_span(line, star.1 - 1, star.2 + 1);
        if defaults.is_empty() {
            let (op, fi) = fields[0];
            diags.push(
                Diagnostic::warning(
                    star_span,
                    format!(
                        "`__Syntax` of `{owner}` marks `.{}` as the default of `.{name}`, but the encoding gives `{name}` no default",
                        star.0
                    ),
                )
                .with_secondary(op.fields[fi].span, format!("`{name}` declared here without `= value`")),
            );
            return;
        }
        let matches = defaults
            .iter()
            .any(|&(op, fi, d)| self.model.ty(op.fields[fi].ty).enum_name(d) == Some(star.0));
        if !matches {
            let (op, fi, d) = defaults[0];
            let f = &op.fields[fi];
            let dname = self
                .model
                .ty(f.ty)
                .enum_name(d)
                .map_or_else(|| format!("{d:#x}"), str::to_string);
            diags.push(
                Diagnostic::warning(
                    star_span,
                    format!(
                        "`__Syntax` of `{owner}` marks `.{}` as the default of `.{name}`, but the encoding's default is `{dname}`",
                        star.0
                    ),
                )
                .with_secondary(f.span, format!("default `{dname}` declared here")),
            );
        }
    }

    /// Values of `types` (`.NAME`) that a value list does not mention.
    fn unlisted(&self, types: &[TypeId], items: &[(&str, usize, usize, bool)]) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for &t in types {
            for v in self.model.ty(t).enum_values().unwrap_or(&[]) {
                let listed = items.iter().any(|it| it.0 == v.name);
                let text = format!("`.{}`", v.name);
                if !listed && !out.contains(&text) {
                    out.push(text);
                }
            }
        }
        out
    }

    // -- __Examples -----------------------------------------------------------------

    fn examples_section(
        &self,
        owner: &str,
        scope: &[usize],
        doc: &DocSection,
        diags: &mut Diagnostics,
    ) {
        if doc.code_blocks.is_empty() {
            diags.push(
                Diagnostic::warning(
                    doc.span,
                    format!("`__Examples` of `{owner}` has no fenced code block"),
                )
                .with_label("only prose here")
                .with_note("examples are assembly lines inside ``` fences; this section holds no code to check"),
            );
            return;
        }
        let mut any = false;
        for line in doc.code_blocks.iter().flat_map(|b| &b.lines) {
            any |= self.example_line(owner, scope, line, diags);
        }
        if !any {
            diags.push(
                Diagnostic::warning(
                    doc.span,
                    format!("`__Examples` of `{owner}` has no example lines"),
                )
                .with_label("its code blocks hold no instructions"),
            );
        }
    }

    /// Assembles one example line; a line that does not assemble gets a warning at the
    /// offending column. Returns whether the line held an instruction.
    fn example_line(
        &self,
        owner: &str,
        scope: &[usize],
        line: &CodeLine,
        diags: &mut Diagnostics,
    ) -> bool {
        let parts = match crate::asm::program::split_line(&line.text) {
            Ok(parts) => parts,
            Err(at) => {
                let mut stats = self.stats.get();
                stats.warned += 1;
                self.stats.set(stats);
                diags.push(
                    Diagnostic::warning(
                        sub_span(line, at, at + 2),
                        "example has an unterminated `/*` address prefix",
                    )
                    .with_label("no `*/` after this"),
                );
                return true;
            }
        };
        // `/*0010*/`: the instruction's address (for branch targets).
        let addr = match parts.prefix {
            None => 0,
            Some((_, Ok(addr))) => addr,
            Some((at, Err(inner))) => {
                diags.push(
                    Diagnostic::warning(
                        sub_span(line, at.start, at.end),
                        format!("example address prefix `/*{inner}*/` is not a hex address"),
                    )
                    .with_label("read as address 0"),
                );
                0
            }
        };
        let (start, insn) = parts.insn;
        if insn.is_empty() {
            return false;
        }
        // Examples are fragments: a label they reference stands for the next instruction.
        let labels = |_: &str| Some(addr + crate::asm::program::INST_SIZE);
        let mut stats = self.stats.get();
        match self.asm.parse_line(insn, addr, &labels) {
            Ok(d) => {
                if scope.contains(&d.opcode) {
                    stats.assembled += 1;
                } else {
                    stats.warned += 1;
                    diags.push(Diagnostic::warning(
                        sub_span(line, start, start + insn.len()),
                        format!(
                            "example of `{owner}` assembles as `{}`, which is not one of its opcodes",
                            self.model.opcodes[d.opcode].name
                        ),
                    ));
                }
            }
            Err(e) => {
                stats.warned += 1;
                let (a, z) = (start + e.span.start, start + e.span.end.max(e.span.start));
                let mut d = Diagnostic::warning(
                    sub_span(line, a, z),
                    format!("example does not assemble: {}", e.message),
                )
                .with_label("here");
                for n in e.notes {
                    d = d.with_note(n);
                }
                diags.push(d);
            }
        }
        self.stats.set(stats);
        true
    }

    // -- Bitwidth against sibling opcodes -------------------------------------------

    fn sibling_bitwidths(&self, diags: &mut Diagnostics) {
        for (ot, optype) in self.model.optypes() {
            let ops: Vec<&Opcode> = self
                .model
                .opcodes
                .iter()
                .filter(|o| o.optype == Some(ot))
                .collect();
            if ops.len() < 3 {
                continue;
            }
            // (operand name, type) → (opcode, rendered width, span)
            let mut widths: BTreeMap<(&str, TypeId), Vec<WidthEntry>> = BTreeMap::new();
            for op in &ops {
                for bw in &op.bitwidths {
                    let f = &op.fields[bw.field];
                    widths.entry((f.name.as_str(), f.ty)).or_default().push((
                        op,
                        render(self.model, op, &bw.expr),
                        bw.span,
                    ));
                }
            }
            for ((name, _), entries) in &widths {
                let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
                for (_, w, _) in entries {
                    *counts.entry(w.as_str()).or_default() += 1;
                }
                let Some((&major, &n)) = counts.iter().max_by_key(|(_, &n)| n) else {
                    continue;
                };
                if n < 2 || 2 * n <= entries.len() {
                    continue;
                }
                let majority: Vec<&(&Opcode, String, Span)> =
                    entries.iter().filter(|e| e.1 == major).collect();
                for (op, w, span) in entries.iter().filter(|e| e.1 != major) {
                    let mut d = Diagnostic::warning(
                        *span,
                        format!(
                            "`Bitwidth<{name}>` of `{}` is {w}, but {n} of the {} `{}` opcodes that give it say {major}",
                            op.name,
                            entries.len(),
                            optype.name
                        ),
                    )
                    .with_label(format!("{w} here"));
                    for (mop, _, mspan) in majority.iter().take(3) {
                        d = d.with_secondary(*mspan, format!("{major} in `{}`", mop.name));
                    }
                    diags.push(d.with_note(format!(
                        "{} with {major}: {}",
                        plural(n, "opcode", "opcodes"),
                        quoted_list(majority.iter().map(|m| m.0.name.as_str()))
                    )));
                }
            }
        }
    }

    // -- Opcode name against its fixed fields ---------------------------------------

    fn fixed_suffixes(&self, diags: &mut Diagnostics) {
        for op in &self.model.opcodes {
            let suffix = op
                .optype
                .and_then(|ot| {
                    op.name
                        .strip_prefix(self.model.def(ot).name.as_str())
                        .and_then(|r| r.strip_prefix('_'))
                })
                .or_else(|| op.name.rsplit_once('_').map(|(_, s)| s));
            let Some(suffix) = suffix.filter(|s| !s.is_empty()) else {
                continue;
            };
            let candidates: Vec<&super::Field> = op
                .fields
                .iter()
                .filter(|f| f.is_fixed() && self.model.ty(f.ty).enum_code(suffix).is_some())
                .collect();
            let named_ok = candidates.iter().any(|f| match f.role {
                Role::Fixed(c) => self.model.ty(f.ty).enum_name(c) == Some(suffix),
                _ => false,
            });
            if named_ok {
                continue;
            }
            for f in candidates {
                let Role::Fixed(code) = f.role else { continue };
                let ty = self.model.ty(f.ty);
                let actual = ty
                    .enum_name(code)
                    .map_or_else(|| format!("{code:#x}"), str::to_string);
                diags.push(
                    Diagnostic::warning(
                        f.span,
                        format!(
                            "opcode `{}` is named for `{} == {suffix}` but fixes `{} == {actual}`",
                            op.name, f.name, f.name
                        ),
                    )
                    .with_label(format!("`{actual}`, not `{suffix}`"))
                    .with_secondary(op.span, "opcode named here"),
                );
            }
        }
    }
}

/// A bit-width expression written with field and value names, so opcodes with
/// different field layouts compare equal when they say the same thing.
fn render(model: &Model, op: &Opcode, e: &super::CExpr) -> String {
    use super::CExpr;
    use crate::syntax::ast::BinOp;
    fn prec(e: &CExpr) -> u8 {
        match e {
            CExpr::Bin(o, ..) => match o {
                BinOp::Or => 1,
                BinOp::And => 2,
                BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => 3,
                BinOp::Add | BinOp::Sub => 4,
                BinOp::Mul => 5,
            },
            _ => 6,
        }
    }
    match e {
        CExpr::Int(v) => v.to_string(),
        CExpr::Field(f) => op.fields[*f].name.clone(),
        CExpr::Value(t, c) => match model.ty(*t).enum_name(*c) {
            Some(n) => format!("\"{n}\""),
            None => format!("{c:#x}"),
        },
        CExpr::Not(a) => format!("not ({})", render(model, op, a)),
        CExpr::Neg(a) => format!("-({})", render(model, op, a)),
        CExpr::Bin(o, a, b) => {
            let p = prec(e);
            // Left-associative: the right operand needs parentheses at equal precedence.
            let wrap = |x: &CExpr, right: bool| {
                let px = prec(x);
                if px < p || (right && px == p) {
                    format!("({})", render(model, op, x))
                } else {
                    render(model, op, x)
                }
            };
            format!("{} {} {}", wrap(a, false), o.symbol(), wrap(b, true))
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::syntax::ast::DocKind;
    use crate::Checked;

    /// Types and the root group the test specs share.
    const BASE: &str = r#"__DefGroup ALL

__DefRegFile Reg<8>
    R 0..254;
    RZ = 255;

__DefRegFile Pred<3>
    P 0..6;
    PT = 7;

__DefOperandWord PR : Pred 0..6

__DefImmediate UImm16<16> unsigned

__DefConstMem CMem<22> bank<5> offset<17>

__DefBitFieldType Optype<8>
    ADD = 1;
    MOV = 2;

__DefBitFieldType SType<4>
    X = 0;
    R = 1;
    I = 2;
    C = 3;

__DefBitFieldType PModi<1>
    False = 0;
    True = 1;

__DefBitFieldType Half<1>
    LO = 0;
    HI = 1;

__DefBitFieldType Width<2>
    W32 = 0;
    W64 = 1;
    W128 = 2;

__DefGroup G : [ALL]
  __Encoding
    field<12, 3> Pred pg = PT;
    field<15, 1> PModi pg.not = False;
"#;

    /// A consistent spec; each test breaks one thing in it.
    const GOOD: &str = r#"__DefOptype ADD : [G]
  __Encoding
    field<0, 8> Optype optype == ADD;
    field<16, 8> Reg rd;
    field<24, 8> Reg ra;
    field<80, 1> Half half = LO;
    field<81, 2> Width width = W32;
    field<84, 1> PModi ra.neg = False;
  __Syntax
```asm
ADD{.half}{.width} Rd, {-}Ra, SrcB      $sched $req ;  // the only form

.half = {.LO*, .HI}
.width = {.W32*, .W64, .W128}
```
  __Examples
```asm
ADD R1, R2, R3;   // a comment
/*0010*/ @!P0 ADD.HI R1, -R2, 0x10 ;
.L_x_1:
ADD.W64 R[2:3], R4, c[0x0][0x10];
.L_x_2: ADD R1, R2, RZ;
```

__DefOpcode ADD_R : [ADD]
  __Encoding
    field<8, 4> SType stype == R;
    field<32, 8> Reg rb;
  __OperandInfo
    InList<pg, ra, rb>;
    OutList<rd>;
    Order<pg, rd, ra, rb>;
    Bitwidth<rd> = 32 + (width == "W64") * 32;

__DefOpcode ADD_I : [ADD]
  __Encoding
    field<8, 4> SType stype == I;
    field<32, 16> UImm16 vb;
  __OperandInfo
    InList<pg, ra>;
    OutList<rd>;
    Order<pg, rd, ra, vb>;
    Bitwidth<rd> = 32 + (width == "W64") * 32;

__DefOpcode ADD_C : [ADD]
  __Encoding
    field<8, 4> SType stype == C;
    field<32, 22> CMem vb;
  __OperandInfo
    InList<pg, ra>;
    OutList<rd>;
    Order<pg, rd, ra, vb>;
    Bitwidth<rd> = 32 + (width == "W64") * 32;

__DefOptype MOV : [G]
  __Encoding
    field<0, 8> Optype optype == MOV;
  __Syntax
```asm
MOV PR{, SrcB}      $sched $req ;
```
  __Examples
```asm
MOV PR, `(.L_x_1);
@P1 MOV PR;
```

__DefOpcode MOV_I : [MOV]
  __Encoding
    field<8, 4> SType stype == I;
    field<32, 16> UImm16 vb = 0x0;
  __OperandInfo
    InList<pg>;
    OutList<PR>;
    Order<pg, PR, vb>;
    AsmFormat<vb> = CvtIShift(vb, 4);
"#;

    fn check(text: &str) -> Checked {
        let c = crate::Spec::from_texts([("base.isa", BASE), ("t.isa", text)]).check();
        assert!(!c.has_errors(), "{}", c.render_diagnostics());
        c
    }

    /// `text` with the first `from` replaced by `to` (which must be there).
    fn edit(text: &str, from: &str, to: &str) -> String {
        assert!(text.contains(from), "`{from}` not in the test spec");
        text.replacen(from, to, 1)
    }

    /// `t.isa:LINE:COL` of `token` on the first line of `text` containing `line`.
    fn at(text: &str, line: &str, token: &str) -> String {
        let (i, l) = text
            .lines()
            .enumerate()
            .find(|(_, l)| l.contains(line))
            .unwrap_or_else(|| panic!("no line containing `{line}`"));
        let col = l.find(token).expect("token on the line");
        format!("t.isa:{}:{}", i + 1, l[..col].chars().count() + 1)
    }

    /// Asserts the warnings are exactly `expected` (location, part of the message).
    fn assert_warnings(c: &Checked, expected: &[(String, &str)]) {
        let got: Vec<(String, String)> = c
            .diagnostics
            .warnings()
            .map(|d| (d.location(&c.sources).to_string(), d.message.clone()))
            .collect();
        let ok = got.len() == expected.len()
            && expected
                .iter()
                .all(|(loc, msg)| got.iter().any(|(l, m)| l == loc && m.contains(msg)));
        assert!(
            ok,
            "expected {expected:#?}\ngot:\n{}",
            c.diagnostics.render_short(&c.sources)
        );
    }

    #[test]
    fn consistent_spec_has_no_warnings() {
        let c = check(GOOD);
        assert!(c.diagnostics.items.is_empty(), "{}", c.render_diagnostics());
    }

    #[test]
    fn syntax_word_that_is_no_modifier() {
        let t = edit(GOOD, "ADD{.half}{.width} Rd", "ADD{.half}.SAT{.width} Rd");
        assert_warnings(
            &check(&t),
            &[(
                at(&t, "ADD{.half}.SAT", ".SAT"),
                "`.SAT` in the `__Syntax` of `ADD` is neither a modifier",
            )],
        );
    }

    #[test]
    fn syntax_unknown_mnemonic() {
        let t = edit(GOOD, "ADD{.half}{.width} Rd", "ADDX{.half}{.width} Rd");
        assert_warnings(
            &check(&t),
            &[(at(&t, "ADDX{", "ADDX"), "unknown mnemonic `ADDX`")],
        );
    }

    #[test]
    fn syntax_operand_count() {
        let t = edit(GOOD, "Rd, {-}Ra, SrcB ", "Rd, {-}Ra ");
        assert_warnings(
            &check(&t),
            &[(
                at(&t, "Rd, {-}Ra ", "Rd"),
                "shows 2 operands, but no `ADD` opcode takes that many",
            )],
        );
        // Optional operands and omittable ones make ranges that only need to meet.
        let t = edit(GOOD, "MOV PR{, SrcB}", "MOV PR{, SrcB}{, SrcC}");
        assert_warnings(&check(&t), &[]);
        let t = edit(GOOD, "MOV PR{, SrcB}", "MOV PR, SrcB, SrcC");
        assert_warnings(
            &check(&t),
            &[(at(&t, "MOV PR, SrcB", "PR"), "shows 3 operands")],
        );
    }

    #[test]
    fn syntax_value_not_of_the_type() {
        let t = edit(GOOD, ".W64, .W128}", ".W64, .W256}");
        let c = check(&t);
        assert_warnings(
            &c,
            &[(
                at(&t, ".width = {", ".W256"),
                "`.W256` is not a value of `Width`, the type of `.width`",
            )],
        );
        let notes = &c.diagnostics.items[0].notes;
        assert!(
            notes.iter().any(|n| n.contains("W32, W64, W128")),
            "{notes:?}"
        );
        assert!(
            notes.iter().any(|n| n.contains("not listed: `.W128`")),
            "{notes:?}"
        );
    }

    #[test]
    fn syntax_default_differs_from_encoding() {
        let t = edit(GOOD, "{.LO*, .HI}", "{.LO, .HI*}");
        assert_warnings(
            &check(&t),
            &[(
                at(&t, ".half = {", ".HI*"),
                "marks `.HI` as the default of `.half`, but the encoding's default is `LO`",
            )],
        );
    }

    #[test]
    fn syntax_required_modifier_with_default() {
        let t = edit(GOOD, "ADD{.half}{.width} Rd", "ADD.half{.width} Rd");
        assert_warnings(
            &check(&t),
            &[(
                at(&t, "ADD.half", ".half"),
                "writes `.half` as required, but the encoding gives it the default `LO`",
            )],
        );
    }

    #[test]
    fn syntax_prefix_without_sub_field() {
        let t = edit(GOOD, "{-}Ra, SrcB ", "{-}Ra, {~}SrcB ");
        assert_warnings(
            &check(&t),
            &[(
                at(&t, "{~}SrcB", "~"),
                "allows `~` before `SrcB`, but no `ADD` opcode can encode it",
            )],
        );
    }

    #[test]
    fn syntax_incomplete_value_list() {
        let t = edit(GOOD, "{.W32*, .W64, .W128}", "{.W32*, .W64}");
        assert_warnings(
            &check(&t),
            &[(
                at(&t, ".width = {", ".width"),
                "lists only some values of `.width`: `.W128` is missing",
            )],
        );
    }

    #[test]
    fn example_undefined_value() {
        // A name that is no value of any operand's type.
        let t = edit(GOOD, "ADD R1, R2, R3;", "ADD R1, R2, SR_CLOCK;");
        assert_warnings(
            &check(&t),
            &[(
                at(&t, "ADD R1, R2, SR_CLOCK", "SR_CLOCK"),
                "example does not assemble: `ADD` operand 3 (SrcB): expected a Reg, a UImm16 or \
                 a constant-memory operand c[bank][offset], found SR_CLOCK",
            )],
        );
        // An operand's name instead of a register, with a hint.
        let t = edit(GOOD, "ADD R1, R2, R3;", "ADD rd, R2, R3;");
        let c = check(&t);
        assert_warnings(
            &c,
            &[(
                at(&t, "ADD rd,", "rd"),
                "example does not assemble: `ADD` operand 1 (Rd): expected a Reg, found rd",
            )],
        );
        assert_eq!(
            c.diagnostics.items[0].notes,
            ["`rd` is the operand's name in the spec; write a Reg instead"]
        );
    }

    #[test]
    fn examples_without_code_block() {
        let t = edit(
            GOOD,
            "  __Examples\n```asm\nMOV PR, `(.L_x_1);\n@P1 MOV PR;\n```\n",
            "  __Examples  \nMOV moves things.\n",
        );
        assert_warnings(
            &check(&t),
            &[(
                at(&t, "__Examples  ", "__Examples"),
                "`__Examples` of `MOV` has no fenced code block",
            )],
        );
    }

    #[test]
    fn example_stray_comma_and_operand_count() {
        // A trailing comma: at the comma.
        let t = edit(GOOD, "ADD R1, R2, R3;", "ADD R1, R2, R3,  ;");
        assert_warnings(
            &check(&t),
            &[(
                at(&t, "ADD R1, R2, R3,", ",  "),
                "example does not assemble: stray `,` at the end of the operands",
            )],
        );
        // An empty operand between two commas: at the second.
        let t = edit(GOOD, "ADD R1, R2, R3;", "ADD R1,, R2, R3;");
        assert_warnings(
            &check(&t),
            &[(
                at(&t, "ADD R1,,", ", "),
                "example does not assemble: empty operand: expected an operand before this `,`",
            )],
        );
        // Too few operands: at the end of the operands, naming the first one missing.
        let t = edit(GOOD, "ADD R1, R2, R3;", "ADD R1, R2;");
        assert_warnings(
            &check(&t),
            &[(
                at(&t, "ADD R1, R2;", ";"),
                "example does not assemble: `ADD` operand 3 (SrcB) is missing: expected a Reg, \
                 a UImm16 or a constant-memory operand c[bank][offset]",
            )],
        );
        // Too many: at the first operand too many.
        let t = edit(GOOD, "ADD R1, R2, R3;", "ADD R1, R2, R3, R4;");
        assert_warnings(
            &check(&t),
            &[(
                at(&t, "ADD R1, R2, R3, R4;", "R4"),
                "example does not assemble: too many operands: `ADD` takes 3, found 4",
            )],
        );
    }

    #[test]
    fn example_operand_kinds() {
        // A predicate where a register belongs.
        let t = edit(GOOD, "ADD R1, R2, R3;", "ADD R1, P2, R3;");
        assert_warnings(
            &check(&t),
            &[(
                at(&t, "ADD R1, P2", "P2"),
                "example does not assemble: `ADD` operand 2 (Ra): expected a Reg, found P2",
            )],
        );
        // A negation no sub-field encodes.
        let t = edit(GOOD, "ADD R1, R2, R3;", "ADD R1, R2, -R3;");
        assert_warnings(
            &check(&t),
            &[(
                at(&t, "ADD R1, R2, -R3", "-R3"),
                "example does not assemble: `ADD` operand 3 (SrcB): this operand does not take \
                 a `-` prefix",
            )],
        );
        // A register range wider than the operand's bit width.
        let t = edit(GOOD, "ADD R1, R2, R3;", "ADD R[0:1], R2, R3;");
        assert_warnings(
            &check(&t),
            &[(
                at(&t, "ADD R[0:1]", "R[0:1]"),
                "example does not assemble: `ADD` operand 1 (Rd): R[0:1] is 64 bits but the \
                 operand is 32 bits here",
            )],
        );
        // The width follows the modifiers: `.W64` makes `Rd` a range.
        let t = edit(GOOD, "ADD R1, R2, R3;", "ADD.W64 R1, R2, R3;");
        assert_warnings(
            &check(&t),
            &[(
                at(&t, "ADD.W64 R1", "R1"),
                "example does not assemble: `ADD.W64` operand 1 (Rd): a 64-bit operand: write \
                 the register range R[1:2]",
            )],
        );
    }

    #[test]
    fn example_mnemonic_checks() {
        // An unknown modifier: at the `.`, with the modifiers there are.
        let t = edit(GOOD, "ADD R1, R2, R3;", "ADD.SAT R1, R2, R3;");
        let c = check(&t);
        assert_warnings(
            &c,
            &[(
                at(&t, "ADD.SAT", ".SAT"),
                "example does not assemble: unknown modifier `.SAT` for `ADD`",
            )],
        );
        assert_eq!(
            c.diagnostics.items[0].notes,
            ["modifiers of `ADD`: .LO .HI .W32 .W64 .W128"]
        );
        let t = edit(GOOD, "ADD R1, R2, R3;", "ADD.HI.LO R1, R2, R3;");
        assert_warnings(
            &check(&t),
            &[(
                at(&t, "ADD.HI.LO", ".LO"),
                "example does not assemble: `.LO` and `.HI` both set the `.half` modifier of `ADD`",
            )],
        );
        let t = edit(GOOD, "ADD R1, R2, R3;", "SUB R1, R2, R3;");
        assert_warnings(
            &check(&t),
            &[(
                at(&t, "SUB R1", "SUB"),
                "example does not assemble: unknown mnemonic `SUB`",
            )],
        );
        let t = edit(GOOD, "ADD R1, R2, R3;", "DAD R1, R2, R3;");
        let c = check(&t);
        assert_warnings(&c, &[(at(&t, "DAD R1", "DAD"), "unknown mnemonic `DAD`")]);
        assert_eq!(c.diagnostics.items[0].notes, ["did you mean `ADD`?"]);
        // An instruction of another optype in `ADD`'s examples.
        let t = edit(GOOD, "ADD R1, R2, R3;", "MOV PR;");
        assert_warnings(
            &check(&t),
            &[(
                at(&t, "MOV PR;", "MOV"),
                "example of `ADD` assembles as `MOV_I`, which is not one of its opcodes",
            )],
        );
    }

    #[test]
    fn example_address_prefixes() {
        // A good prefix, with a label: no warning.
        let t = edit(GOOD, "ADD R1, R2, R3;", "/*0x0040*/ .L_x: ADD R1, R2, R3;");
        assert_warnings(&check(&t), &[]);
        // `/*/`: the `/*` and `*/` overlap, so the prefix is unterminated (it sliced
        // `[2..1]` and panicked `isa check`).
        let t = edit(GOOD, "ADD R1, R2, R3;", "/*/ ADD R1, R2, R3;");
        let c = check(&t);
        assert_warnings(
            &c,
            &[(
                at(&t, "/*/ ADD", "/*"),
                "example has an unterminated `/*` address prefix",
            )],
        );
        assert_eq!(c.examples.warned, 1);
        // Not a hex address: warned, and the line still assembles (at address 0), as
        // do the five other examples of the test spec.
        for bad in ["0x+40", "0x0x40", "zz"] {
            let t = edit(
                GOOD,
                "ADD R1, R2, R3;",
                &format!("/* {bad} */ ADD R1, R2, R3;"),
            );
            let c = check(&t);
            assert_warnings(
                &c,
                &[(
                    at(&t, "*/ ADD", "/*"),
                    &format!("example address prefix `/*{bad}*/` is not a hex address"),
                )],
            );
            assert_eq!((c.examples.assembled, c.examples.warned), (6, 0), "{bad}");
        }
    }

    #[test]
    fn bitwidth_against_siblings() {
        let t = edit(
            GOOD,
            "    Bitwidth<rd> = 32 + (width == \"W64\") * 32;\n\n__DefOpcode ADD_C",
            "    Bitwidth<rd> = 32;\n\n__DefOpcode ADD_C",
        );
        assert_warnings(
            &check(&t),
            &[(
                at(&t, "Bitwidth<rd> = 32;", "Bitwidth"),
                "`Bitwidth<rd>` of `ADD_I` is 32, but 2 of the 3 `ADD` opcodes that give it \
                 say 32 + (width == \"W64\") * 32",
            )],
        );
        // No majority: no Bitwidth warning. `ADD_R`'s `Rd` is now 64 bits without
        // `.W64`, so the examples that use `ADD_R` with a plain `R1` no longer assemble;
        // `ADD_R` is still reported (it fits every operand by kind), not `ADD_I`/`ADD_C`
        // (which reject `R3` as their `SrcB`).
        let t = edit(
            &t,
            "Bitwidth<rd> = 32 + (width",
            "Bitwidth<rd> = 64 + (width",
        );
        let range = "example does not assemble: `ADD` operand 1 (Rd): a 64-bit operand: write \
                     the register range R[1:2]";
        assert_warnings(
            &check(&t),
            &[
                (at(&t, "ADD R1, R2, R3;", "R1"), range),
                (at(&t, ".L_x_2: ADD R1, R2, RZ;", "R1"), range),
            ],
        );
    }

    #[test]
    fn fixed_field_against_opcode_name() {
        let t = edit(
            GOOD,
            "__DefOpcode ADD_R : [ADD]",
            "__DefOpcode ADD_X : [ADD]",
        );
        assert_warnings(
            &check(&t),
            &[(
                at(&t, "stype == R;", "field"),
                "opcode `ADD_X` is named for `stype == X` but fixes `stype == R`",
            )],
        );
    }

    /// The bundled spec: no errors, and the known inconsistencies of the ISA authors'
    /// files are reported where they are: every warning, exactly. Every `__Examples`
    /// line either assembles or is one of the "example does not assemble" warnings.
    #[test]
    fn bundled_spec() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../isa-spec");
        let c = crate::Spec::load(&[dir]).expect("bundled spec").check();
        assert!(!c.has_errors(), "{}", c.render_diagnostics());
        let got: Vec<(String, String)> = c
            .diagnostics
            .warnings()
            .map(|d| (d.location(&c.sources).to_string(), d.message.clone()))
            .collect();
        let sreg = "expected a SReg (SR_LANEID, SR_EQMASK, SR_LTMASK, SR_LEMASK, …)";
        let call = "operand 2 (ra or ura or vb): expected a Reg, a UReg or a constant-memory \
                    operand c[bank][offset]";
        let cmem = "constant memory is written `c[bank][offset]`, not `cmem[…]`";
        let cwmode = "`.CLAMP`, `.WRAP` are not values of `CWMode`";
        let examples: &[(&str, &str)] = &[
            (
                "bru.isa:536:11",
                "only plain labels are supported in `` `(…) ``, found `.Base - . - 0x10`",
            ),
            (
                "bru.isa:632:16",
                &format!("`CALL.ABS` {call}, found `(.Target)"),
            ),
            ("bru.isa:633:16", &format!("`CALL.ABS` {call}, found 0x0")),
            (
                "bru.isa:634:16",
                &format!("`CALL.REL` {call}, found `(.Label)"),
            ),
            (
                "bru.isa:639:23",
                "`CALL.ABS` operand 3 (offset) is missing: expected a SImm50",
            ),
            (
                "bru.isa:819:10",
                "expected a space between the mnemonic and its operands, found `,`",
            ),
            (
                "bru.isa:897:13",
                "`BSSY` operand 2 (syncpoint) is missing: expected a SImm32",
            ),
            (
                "bru.isa:898:14",
                "`BSSY` operand 2 (syncpoint) is missing: expected a SImm32",
            ),
            (
                "misc.isa:96:9",
                &format!("`S2R` operand 2 (SRa): {sreg}, found SR_CTAID"),
            ),
            (
                "misc.isa:141:14",
                &format!("`CS2R` operand 2 (SRa): {sreg}, found SR_CLOCK"),
            ),
            (
                "misc.isa:182:11",
                &format!("`S2UR` operand 2 (SRa): {sreg}, found SR_CTAID"),
            ),
            (
                "sync.isa:126:9",
                "`SHFL.UP` operand 1 (pu): expected a Pred, found pu",
            ),
            (
                "udp.isa:54:10",
                "`ULDC.128` operand 1 (URd): UR[0:3] is 128 bits but the operand is 32 bits here",
            ),
            ("udp.isa:281:44", "stray `,` at the end of the operands"),
            (
                "udp.isa:284:17",
                "`UIMAD` operand 2 or 3 (upu or URa): expected a UPred or a UReg, found P0",
            ),
            (
                "udp.isa:712:25",
                "`ULEA` operand 6 (UImm5Sca) is missing: expected a UImm5",
            ),
            ("udp.isa:714:26", cmem),
            ("udp.isa:715:26", cmem),
            (
                "udp.isa:717:21",
                "`ULEA` operand 3 (URa): expected a UReg, found UP0",
            ),
            (
                "udp.isa:718:42",
                "`ULEA.HI.X.SX32` operand 6 (UImm5Sca): expected a UImm5, found UP0",
            ),
        ];
        let others: &[(&str, &str)] = &[
            ("bru.isa:1500:5", "`SYSCALL_X` is named for `stype == X`"),
            (
                "sync.isa:455:3",
                "`__Examples` of `REDUXU` has no fenced code block",
            ),
            ("udp.isa:17:21", "`.S1`, `.U1` are not values of `MEMDType`"),
            (
                "udp.isa:384:11",
                "`__Syntax` of `UIMAD_WIDE` writes `.itype` as required",
            ),
            ("udp.isa:499:5", "`Bitwidth<urd>` of `UIMAD_WIDE_UUC` is 32"),
            (
                "udp.isa:774:13",
                "`__Syntax` of `UIABS` allows `-` before `SrcB`",
            ),
            (
                "udp.isa:844:22",
                "`__Syntax` of `UIMNMX` allows `-` before `URa`",
            ),
            (
                "udp.isa:844:30",
                "`__Syntax` of `UIMNMX` allows `-` before `SrcB`",
            ),
            (
                "udp.isa:1119:21",
                "`__Syntax` of `UISETP` writes `.itype` as required",
            ),
            (
                "udp.isa:1322:6",
                "`__Syntax` of `ULOP3` writes `.exbool` as required",
            ),
            ("udp.isa:1474:11", cwmode),
            (
                "udp.isa:2073:6",
                "`__Syntax` of `UBMSK` writes `.cwmode` as required",
            ),
            ("udp.isa:2075:12", cwmode),
            ("udp.isa:2186:12", cwmode),
            ("udp.isa:2284:9", "`__Syntax` of `SETUGPR` shows 1 operand"),
        ];
        let expected: Vec<(&str, String)> = examples
            .iter()
            .map(|(l, m)| (*l, format!("example does not assemble: {m}")))
            .chain(others.iter().map(|(l, m)| (*l, m.to_string())))
            .collect();
        for (loc, msg) in &expected {
            assert!(
                got.iter()
                    .any(|(l, m)| l.ends_with(&format!("/{loc}")) && m.contains(msg.as_str())),
                "missing warning {loc}: {msg}\n{}",
                c.diagnostics.render_short(&c.sources)
            );
        }
        assert_eq!(
            got.len(),
            expected.len(),
            "{}",
            c.diagnostics.render_short(&c.sources)
        );
        // Messages carry the assembler's notes.
        let s2r = c
            .diagnostics
            .warnings()
            .find(|d| {
                d.location(&c.sources)
                    .to_string()
                    .ends_with("/misc.isa:96:9")
            })
            .expect("S2R warning");
        assert_eq!(
            s2r.notes,
            ["did you mean `SR_CTAID.X`, `SR_CTAID.Y` or `SR_CTAID.Z`?"]
        );

        // Every example line assembled or was warned about, and the counts match the
        // example lines that hold an instruction (after comments, address prefixes and
        // labels), counted here independently of the lint.
        assert_eq!(
            c.examples,
            super::ExampleStats {
                assembled: 90,
                warned: 20
            }
        );
        assert_eq!(c.examples.warned, examples.len());
        let model = c.model.as_ref().expect("model");
        let mut lines = 0;
        for def in &model.defs {
            for doc in def.docs.iter().filter(|d| d.kind == DocKind::Examples) {
                for line in doc.code_blocks.iter().flat_map(|b| &b.lines) {
                    let mut t = line.text.split("//").next().unwrap_or("").trim();
                    if let Some(rest) = t.strip_prefix("/*") {
                        t = rest.split_once("*/").map_or("", |(_, r)| r).trim();
                    }
                    while let Some((label, rest)) = t.split_once(':') {
                        if label.is_empty() || label.contains(char::is_whitespace) {
                            break;
                        }
                        t = rest.trim();
                    }
                    if !t.trim_end_matches(';').trim().is_empty() {
                        lines += 1;
                    }
                }
            }
        }
        assert_eq!(c.examples.assembled + c.examples.warned, lines);
        // Our own file is consistent.
        assert!(
            !got.iter().any(|(l, _)| l.contains("base.isa")),
            "{}",
            c.diagnostics.render_short(&c.sources)
        );
    }
}
