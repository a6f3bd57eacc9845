//! Lints: inconsistencies that do not stop generation, reported as located warnings.
//!
//! Every lint is driven by the model; no opcode, type or value name is built in. Text
//! in a doc section is linted once, at the definition that owns it (an optype's
//! `__Syntax` is checked against all of its opcodes, not once per opcode).
//!
//! - **`__Syntax` against the encodings.** Each syntax line `NAME{.mod}.mod Ops…` (the
//!   `$sched $req $wsb` tail and `//` comments are ignored) must name the optype (an
//!   `_` in the optype's name is a `.` in the mnemonic: `UIMAD.WIDE`), and every
//!   further `.word` must be a modifier field of its opcodes or a value of one. A
//!   modifier written as required (`.itype`) must have no encoding default, since the
//!   default is never printed. The operands are counted (`{, upu}` is an optional
//!   operand, `{-}` an optional prefix): some opcode must accept that many, where an
//!   opcode takes its `Order` minus the guard predicate, and operands with a default
//!   may be left out. When the line spells out every operand of an opcode, a `{-}`,
//!   `{~}` or `{!}` prefix must have a sub-field to encode it (`.neg`, `.bitnot` or a
//!   `.neg` under `CvtINegX`, `.not`). Value lists `.name = {.A*, .B}` must list values
//!   of the type of the field `name`, and the `*` default must be the field's `= value`.
//! - **`__Examples` against the model.** Every example line (after `//` and `/*…*/`
//!   comments; blank lines and labels are skipped) must use a known mnemonic with
//!   modifier values of its opcodes, name only registers, enum values, operand words
//!   (`UPR`), numbers, constant memory (`c[…][…]`, `cmem[…][…]`), register ranges and
//!   indexed registers (`R[2:3]`, `UR[UR2+0x1]`) and label references (`` `(…) ``),
//!   have no empty operand (a stray comma), and have as many operands as some opcode
//!   accepts. An `__Examples` section without a fenced code block is reported.
//! - **`Bitwidth` against sibling opcodes.** When a strict majority (at least two) of
//!   an optype's opcodes give an operand the same bit width and a minority another,
//!   the minority's entry is reported.
//! - **Opcode name against its fixed fields.** An opcode named `…_SUFFIX` whose fixed
//!   field has a type with a value `SUFFIX` should fix that field to `SUFFIX`.

use std::collections::{BTreeMap, BTreeSet};

use super::{DefId, Model, Opcode, OperandKind, Role, TypeId};
use crate::diag::{Diagnostic, Diagnostics};
use crate::source::{SourceMap, Span};
use crate::syntax::ast::{CodeLine, DocKind, DocSection};

pub fn run(model: &Model, _sources: &SourceMap, diags: &mut Diagnostics) {
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
        Cx { model, families }
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
            .map(|(&(lo, hi), names)| format!("{} take {}", quoted_list(names.clone()), range_text(lo, hi)))
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
            self.op(i).fields.iter().any(|f| {
                f.role == Role::Modifier && self.model.ty(f.ty).enum_code(word).is_some()
            })
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
                        format!("`__Syntax` of `{owner}` uses the unknown mnemonic `{}`", head.text),
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
                diags.push(
                    Diagnostic::warning(
                        sub_span(line, head.start, comps.get(used.wrapping_sub(1)).map_or(head.end, |c| c.end)),
                        format!(
                            "`__Syntax` of `{owner}` describes `{}`, which is not one of its opcodes",
                            family.name
                        ),
                    ),
                );
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
                    d.with_note(format!("the opcodes of `{}` have no modifiers", family.name))
                } else {
                    d.with_note(format!("modifiers of `{}`: {}", family.name, quoted_list(names)))
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
                if op
                    .sub_fields(base)
                    .any(|s| op.fields[s].sub_name().is_some_and(|n| encodes_prefix(n, p)))
                {
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
            let Some(v) = item.strip_prefix('.') else { return };
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
        let valid = |v: &str| types.iter().any(|&t| self.model.ty(t).enum_code(v).is_some());
        let bad: Vec<_> = items.iter().filter(|it| !valid(it.0)).collect();
        let ty_names = quoted_list(types.iter().map(|&t| self.model.ty(t).name.as_str()));
        if let Some(first) = bad.first() {
            let names = quoted_list(bad.iter().map(|it| format!(".{}", it.0)).collect::<Vec<_>>().iter().map(String::as_str));
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
            diags.push(d);
        }
        // The `*` default against the encoding's `= default`.
        let stars: Vec<_> = items.iter().filter(|it| it.3).collect();
        if stars.len() > 1 {
            diags.push(
                Diagnostic::warning(
                    sub_span(line, stars[1].1 - 1, stars[1].2 + 1),
                    format!("`__Syntax` of `{owner}` marks several defaults for `.{name}`"),
                )
                .with_secondary(sub_span(line, stars[0].1 - 1, stars[0].2 + 1), "first default"),
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
        let matches = defaults.iter().any(|&(op, fi, d)| {
            self.model.ty(op.fields[fi].ty).enum_name(d) == Some(star.0)
        });
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

    /// Lints one example line; returns whether it held an instruction.
    fn example_line(
        &self,
        owner: &str,
        scope: &[usize],
        line: &CodeLine,
        diags: &mut Diagnostics,
    ) -> bool {
        // Blank out comments, everything after `;`, and non-ASCII text, keeping offsets.
        let mut buf: Vec<u8> = line.text.as_bytes().to_vec();
        let mut i = 0;
        let mut cut = buf.len();
        while i < buf.len() {
            if buf[i..].starts_with(b"//") || buf[i] == b';' {
                cut = i;
                break;
            }
            if buf[i..].starts_with(b"/*") {
                let end = line.text[i + 2..]
                    .find("*/")
                    .map_or(buf.len(), |p| i + 2 + p + 2);
                buf[i..end].fill(b' ');
                i = end;
                continue;
            }
            i += 1;
        }
        buf[cut..].fill(b' ');
        for c in buf.iter_mut() {
            if !c.is_ascii() {
                *c = b' ';
            }
        }
        let text = String::from_utf8(buf).unwrap_or_default();
        let b = text.as_bytes();
        let (start, end) = trim_range(b, 0, b.len());
        if start == end {
            return false;
        }
        let trimmed = &text[start..end];
        // Labels (`.L_x:`) and elisions (`...`).
        if trimmed.ends_with(':')
            && trimmed[..trimmed.len() - 1]
                .bytes()
                .all(|c| is_ident_byte(c) || c == b'.')
        {
            return false;
        }
        if trimmed.bytes().all(|c| c == b'.') {
            return false;
        }
        let mut i = start;
        // Guard `@P0`, `@!UP1`.
        if b[i] == b'@' {
            i += 1;
            if i < end && b[i] == b'!' {
                i += 1;
            }
            let s = i;
            while i < end && is_ident_byte(b[i]) {
                i += 1;
            }
            self.check_name(line, &text, s, i, end, diags);
            while i < end && b[i].is_ascii_whitespace() {
                i += 1;
            }
        }
        // Mnemonic.
        let ms = i;
        while i < end && (is_ident_byte(b[i]) || b[i] == b'.') {
            i += 1;
        }
        if ms == i || !(b[ms].is_ascii_alphabetic() || b[ms] == b'_') {
            return false;
        }
        let ops = self.example_mnemonic(owner, scope, line, &text[..i], ms, diags);
        // Names in the operands.
        self.example_names(line, &text, i, end, diags);
        // Operands.
        let segs = split_commas(b, i, end);
        let (f, t) = trim_range(b, i, end);
        let mut count = 0;
        let mut empty = false;
        if f < t {
            for (k, &(a, z)) in segs.iter().enumerate() {
                let (a, z) = trim_range(b, a, z);
                if a < z {
                    count += 1;
                    continue;
                }
                empty = true;
                // The stray comma: the one after (or, for the last operand, before) it.
                let comma = if k + 1 < segs.len() { segs[k].1 } else { segs[k].0 - 1 };
                diags.push(
                    Diagnostic::warning(
                        sub_span(line, comma, comma + 1),
                        "example has an empty operand (a stray comma)",
                    )
                    .with_label("nothing on one side of this comma"),
                );
            }
        }
        if let Some((family, ops)) = ops {
            if !empty && !ops.is_empty() && !self.accepts(&ops, count, count) {
                diags.push(
                    Diagnostic::warning(
                        sub_span(line, start, end),
                        format!(
                            "example has {}, but no `{family}` opcode takes that many",
                            plural(count, "operand", "operands")
                        ),
                    )
                    .with_note(self.ranges_note(&ops))
                    .with_note("an opcode takes its `Order` without the guard predicate; operands with a default may be left out"),
                );
            }
        }
        true
    }

    /// Checks an example's mnemonic; returns its family name and opcodes.
    fn example_mnemonic(
        &self,
        owner: &str,
        scope: &[usize],
        line: &CodeLine,
        text: &str,
        at: usize,
        diags: &mut Diagnostics,
    ) -> Option<(String, Vec<usize>)> {
        let mut parts = Vec::new();
        let mut s = at;
        for p in text[at..].split('.') {
            parts.push(Comp {
                text: p,
                start: s,
                end: s + p.len(),
                optional: false,
            });
            s += p.len() + 1;
        }
        let head = parts.remove(0);
        if parts.iter().any(|c| c.text.is_empty()) {
            diags.push(Diagnostic::warning(
                sub_span(line, at, text.len()),
                format!("malformed mnemonic `{}` in example", &text[at..]),
            ));
            return None;
        }
        let Some((family, used)) = self.family_of(head.text, &parts) else {
            let names = self.families.iter().map(|f| f.name.as_str());
            let mut d = Diagnostic::warning(
                sub_span(line, head.start, head.end),
                format!("example uses the unknown mnemonic `{}`", head.text),
            )
            .with_label("no optype of this name");
            if let Some(s) = crate::suggest::nearest(head.text, names) {
                d = d.with_note(format!("did you mean `{s}`?"));
            }
            diags.push(d);
            return None;
        };
        let mut ops: Vec<usize> = family
            .ops
            .iter()
            .copied()
            .filter(|i| scope.contains(i))
            .collect();
        if ops.is_empty() {
            diags.push(Diagnostic::warning(
                sub_span(line, head.start, head.end),
                format!(
                    "example of `{}` in the `__Examples` of `{owner}`, which is not one of its opcodes",
                    family.name
                ),
            ));
            ops = family.ops.clone();
        }
        for c in &parts[used..] {
            if self.is_modifier_value(&ops, c.text) {
                continue;
            }
            let mut values: Vec<&str> = Vec::new();
            for (o, f) in self.modifiers(&ops) {
                let ty = self.model.ty(self.op(o).fields[f].ty);
                for v in ty.enum_values().unwrap_or(&[]) {
                    if !values.contains(&v.name.as_str()) {
                        values.push(&v.name);
                    }
                }
            }
            let mut d = Diagnostic::warning(
                sub_span(line, c.start - 1, c.end),
                format!(
                    "example uses `.{}`, which is not a value of any modifier of `{}`",
                    c.text, family.name
                ),
            );
            if let Some(s) = crate::suggest::nearest(c.text, values.iter().copied()) {
                d = d.with_note(format!("did you mean `.{s}`?"));
            } else if values.is_empty() {
                d = d.with_note(format!("`{}` has no modifiers", family.name));
            }
            diags.push(d);
        }
        Some((family.name.clone(), ops))
    }

    /// Checks every name and number in the operands `from..to` of an example.
    fn example_names(
        &self,
        line: &CodeLine,
        text: &str,
        from: usize,
        to: usize,
        diags: &mut Diagnostics,
    ) {
        let b = text.as_bytes();
        let mut i = from;
        while i < to {
            let c = b[i];
            if c == b'`' && i + 1 < to && b[i + 1] == b'(' {
                i = closing(b, i + 1, to) + 1; // a label reference
            } else if c.is_ascii_alphabetic() || c == b'_' {
                let s = i;
                while i < to && is_ident_byte(b[i]) {
                    i += 1;
                }
                while i + 1 < to && b[i] == b'.' && is_ident_byte(b[i + 1]) {
                    i += 1;
                    while i < to && is_ident_byte(b[i]) {
                        i += 1;
                    }
                }
                self.check_name(line, text, s, i, to, diags);
            } else if c.is_ascii_digit() {
                let s = i;
                while i < to && is_ident_byte(b[i]) {
                    i += 1;
                }
                if crate::syntax::lexer::parse_int(&text[s..i]).is_none() {
                    diags.push(Diagnostic::warning(
                        sub_span(line, s, i),
                        format!("example has the malformed number `{}`", &text[s..i]),
                    ));
                }
            } else {
                i += 1;
            }
        }
    }

    /// Whether `name` is a register, an enum value or an operand word.
    fn known_value(&self, name: &str) -> bool {
        self.model.types.iter().any(|t| {
            t.enum_code(name).is_some() || t.reg_file().is_some_and(|r| r.code_of(name).is_some())
        }) || self.model.words.iter().any(|w| w.name == name)
    }

    fn is_enum_value(&self, name: &str) -> bool {
        self.model.types.iter().any(|t| t.enum_code(name).is_some())
    }

    /// Checks the name at `s..e` of an example line (`to` bounds the lookahead).
    fn check_name(
        &self,
        line: &CodeLine,
        text: &str,
        s: usize,
        e: usize,
        to: usize,
        diags: &mut Diagnostics,
    ) {
        let name = &text[s..e];
        if name.is_empty() {
            return;
        }
        let next = text[e..to].trim_start().as_bytes().first().copied();
        if next == Some(b'[') {
            // Constant memory `c[..][..]` or a register range / indexed register.
            let prefix = self
                .model
                .types
                .iter()
                .any(|t| t.reg_file().is_some_and(|r| r.prefix == name));
            if prefix || name == "c" || name == "cmem" {
                return;
            }
        }
        if self.known_value(name) {
            return;
        }
        // A register or value with value suffixes (`UR7.B1`).
        if let Some((base, rest)) = name.split_once('.') {
            if self.known_value(base) && rest.split('.').all(|v| self.is_enum_value(v)) {
                return;
            }
        }
        // Report the first dotted part that is unknown, or the whole name.
        let mut d = Diagnostic::warning(
            sub_span(line, s, e),
            format!("example names undefined value `{name}`"),
        )
        .with_label("not a register, value or operand word of the spec");
        let mut candidates: Vec<&str> = Vec::new();
        for t in &self.model.types {
            if let Some(vs) = t.enum_values() {
                candidates.extend(vs.iter().map(|v| v.name.as_str()));
            }
            if let Some(r) = t.reg_file() {
                candidates.extend(r.named.iter().map(|(n, _)| n.as_str()));
            }
        }
        let close: Vec<&str> = candidates
            .iter()
            .copied()
            .filter(|c| c.starts_with(name) && c.len() > name.len())
            .collect();
        if !close.is_empty() && close.len() <= 8 {
            d = d.with_note(format!("defined values starting so: {}", quoted_list(close)));
        } else if let Some(sug) = crate::suggest::nearest(name, candidates.iter().copied()) {
            d = d.with_note(format!("did you mean `{sug}`?"));
        }
        // An operand's name where a register belongs (`pu`).
        let field = self.model.opcodes.iter().find_map(|op| {
            op.fields
                .iter()
                .find(|f| f.name == name && f.role == Role::Operand)
        });
        if let Some(f) = field {
            let ty = self.model.ty(f.ty);
            let example = ty
                .reg_file()
                .and_then(|r| r.name_of(r.lo))
                .map_or(String::new(), |r| format!(", e.g. `{r}`"));
            d = d.with_note(format!(
                "`{name}` is the name of an operand field; write a `{}` value{example}",
                ty.name
            ));
        }
        diags.push(d);
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
            let mut widths: BTreeMap<(&str, TypeId), Vec<(&Opcode, String, Span)>> =
                BTreeMap::new();
            for op in &ops {
                for bw in &op.bitwidths {
                    let f = &op.fields[bw.field];
                    widths
                        .entry((f.name.as_str(), f.ty))
                        .or_default()
                        .push((op, render(self.model, op, &bw.expr), bw.span));
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
            let wrap = |x: &CExpr| match x {
                CExpr::Bin(..) => format!("({})", render(model, op, x)),
                _ => render(model, op, x),
            };
            format!("{} {} {}", wrap(a), o.symbol(), wrap(b))
        }
    }
}
