//! Edits the server proposes: renaming a name across every file of the spec, and the
//! quick fixes the checker attaches to its diagnostics.
//!
//! A rename edits every occurrence the name index knows (declarations, re-declarations
//! of inherited fields, uses in parents, operand lists, expressions, annotations, and a
//! field's sub-fields `ura.neg`), then checks the renamed spec: a name that would
//! collide with another is refused with the checker's own words, so a rename never
//! turns a clean spec into a broken one.

use std::collections::{BTreeMap, HashMap};

use isa_gen::diag::Fix;
use isa_gen::index::{Defs, SymbolId, SymbolKind};
use isa_gen::source::{FileId, Span};
use lsp_types::{CodeAction, CodeActionKind, Diagnostic, Range, TextEdit, Uri, WorkspaceEdit};

use super::project::Analysis;

/// What can be renamed at a position: the range of the name (or of the part of a
/// sub-field's name under the cursor) and the text it holds.
pub fn prepare(a: &Analysis, file: FileId, offset: usize) -> Result<(Range, String), String> {
    let t = target(a, file, offset)?;
    let o = a
        .index
        .at(file, offset)
        .ok_or("no name the spec defines is here")?;
    let at = t.part(a, o.span, o.symbol);
    Ok((a.range(at), t.old))
}

/// The edits of renaming what is at (`file`, `offset`) to `new`, by URI, or why not.
pub fn rename(
    a: &Analysis,
    file: FileId,
    offset: usize,
    new: &str,
) -> Result<WorkspaceEdit, String> {
    let t = target(a, file, offset)?;
    if new == t.old {
        return Ok(WorkspaceEdit::default());
    }
    valid_name(a, &t, new)?;
    let edits = edits(a, &t, new);
    recheck(a, &edits)?;
    Ok(workspace_edit(a, &edits))
}

/// Edits by span as the protocol's edits by URI.
// `changes` is lsp_types' `HashMap<Uri, _>`; a `Uri` only caches its parse inside.
#[allow(clippy::mutable_key_type)]
fn workspace_edit(a: &Analysis, edits: &[(Span, String)]) -> WorkspaceEdit {
    let mut changes: HashMap<Uri, Vec<TextEdit>> = HashMap::new();
    for (span, text) in edits {
        if let Some(loc) = a.location(*span) {
            changes.entry(loc.uri).or_default().push(TextEdit {
                range: loc.range,
                new_text: text.clone(),
            });
        }
    }
    WorkspaceEdit {
        changes: Some(changes),
        ..WorkspaceEdit::default()
    }
}

/// The symbol a rename changes, and which part of its name.
struct Target {
    sym: SymbolId,
    /// The text renamed: the whole name, or one part of a sub-field's name.
    old: String,
    part: Part,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    /// The whole name.
    Whole,
    /// The part after the dot of a sub-field (`neg` of `ura.neg`).
    Suffix,
}

impl Target {
    /// The span of the renamed part within an occurrence `span` of `sym`.
    fn part(&self, a: &Analysis, span: Span, sym: SymbolId) -> Span {
        let name = &a.index.symbol(sym).name;
        match (self.part, name.split_once('.')) {
            (Part::Suffix, Some((field, _))) => Span {
                start: span.start + field.len() as u32 + 1,
                ..span
            },
            (Part::Whole, Some((field, _))) if sym != self.sym => Span {
                end: span.start + field.len() as u32,
                ..span
            },
            _ => span,
        }
    }
}

fn target(a: &Analysis, file: FileId, offset: usize) -> Result<Target, String> {
    let Some(o) = a.index.at(file, offset) else {
        return Err("no name the spec defines is here".into());
    };
    let s = a.index.symbol(o.symbol);
    if s.kind == SymbolKind::Field {
        if let Some((field, sub)) = s.name.split_once('.') {
            // The part under the cursor: the field the name starts with, or the
            // sub-field's own part.
            let in_field = offset <= o.span.start as usize + field.len();
            return match (in_field, s.parent) {
                (true, Some(parent)) => Ok(Target {
                    sym: parent,
                    old: field.to_string(),
                    part: Part::Whole,
                }),
                (true, None) => Err(format!("`{field}` is not a field here")),
                (false, _) => Ok(Target {
                    sym: o.symbol,
                    old: sub.to_string(),
                    part: Part::Suffix,
                }),
            };
        }
    }
    Ok(Target {
        sym: o.symbol,
        old: s.name.clone(),
        part: Part::Whole,
    })
}

/// Every edit of the rename, in no particular order.
fn edits(a: &Analysis, t: &Target, new: &str) -> Vec<(Span, String)> {
    let mut syms = vec![t.sym];
    if t.part == Part::Whole {
        syms.extend(a.index.sub_fields_of(t.sym));
    }
    let mut out = Vec::new();
    for &sym in &syms {
        for o in a.index.occurrences_of(sym) {
            out.push((t.part(a, o.span, sym), new.to_string()));
        }
    }
    out.extend(assembly_text_edits(a, t, new));
    out.sort_by_key(|(s, _)| (s.file, s.start));
    out.dedup_by_key(|(s, _)| *s);
    out
}

/// Names the spec defines are also written in assembly text, in the code blocks
/// (`__Syntax`, `__Examples`, …) of definitions: a value of an enumeration or a
/// modifier as `.NAME`; a named register (`PT`), an operand word (`UPR`) or an optype's
/// mnemonic as a bare word. Those are renamed too, in the definitions that can write
/// them, so the lints that compare that text with the encoding stay quiet.
fn assembly_text_edits(a: &Analysis, t: &Target, new: &str) -> Vec<(Span, String)> {
    let s = a.index.symbol(t.sym);
    if t.part != Part::Whole {
        return Vec::new();
    }
    let defs = Defs::new(&a.parsed);
    let with_kin = |d: usize| {
        let mut v = defs.linearize(d);
        v.extend(defs.descendants(d));
        v
    };
    let (scope, dotted): (Vec<usize>, bool) = match s.kind {
        SymbolKind::Value => {
            let Some(ty) = s.container.map(|c| a.index.symbol(c).name.as_str()) else {
                return Vec::new();
            };
            // The definitions with a field of the type, and those above them (an
            // optype's `__Syntax` describes the fields its opcodes declare).
            let mut v: Vec<usize> = (0..defs.defs.len())
                .filter(|&d| defs.fields(d).iter().any(|f| f.decl.ty.name == ty))
                .flat_map(|d| defs.linearize(d))
                .collect();
            v.sort_unstable();
            v.dedup();
            (v, !is_register_file(a, ty))
        }
        SymbolKind::Field => {
            let owner = s.container.map(|c| a.index.symbol(c).name.as_str());
            match owner.and_then(|o| defs.by_name.get(o)) {
                Some(&d) => (with_kin(d), true),
                None => return Vec::new(),
            }
        }
        SymbolKind::Def(_) => match defs.by_name.get(s.name.as_str()) {
            Some(&d) => (
                std::iter::once(d).chain(defs.descendants(d)).collect(),
                false,
            ),
            None => return Vec::new(),
        },
        SymbolKind::Word => ((0..defs.defs.len()).collect(), false),
        SymbolKind::Type => return Vec::new(),
    };
    let mut out = Vec::new();
    for d in scope {
        let lines = defs.defs[d]
            .docs
            .iter()
            .flat_map(|doc| &doc.code_blocks)
            .flat_map(|b| &b.lines);
        for line in lines {
            for k in tokens(&line.text, &t.old, dotted) {
                let start = line.span.start as usize + k;
                let span = Span::new(line.span.file, start, start + t.old.len());
                out.push((span, new.to_string()));
            }
        }
    }
    out
}

/// Whether `ty` names a register file (its named registers are written bare).
fn is_register_file(a: &Analysis, ty: &str) -> bool {
    a.parsed
        .iter()
        .flat_map(|f| &f.items)
        .any(|i| matches!(i, isa_gen::syntax::ast::Item::RegFile(r) if r.name.name == ty))
}

/// Byte offsets of `name` as a whole token of `line`: written `.name` if `dotted`
/// (not the digits after a number's dot), else bare (not after a dot).
fn tokens(line: &str, name: &str, dotted: bool) -> Vec<usize> {
    let b = line.as_bytes();
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    line.match_indices(name)
        .map(|(k, _)| k)
        .filter(|&k| {
            let before = k.checked_sub(1).map(|i| b[i]);
            let lead = match before {
                Some(b'.') => dotted && !(k >= 2 && b[k - 2].is_ascii_digit()),
                Some(c) => !dotted && !ident(c),
                None => !dotted,
            };
            lead && !b.get(k + name.len()).is_some_and(|&c| ident(c))
        })
        .collect()
}

/// Longest name a rename accepts.
const MAX_NAME: usize = 1024;

/// The new name is a name of the right form, and no other name of its kind in its
/// scope has it.
fn valid_name(a: &Analysis, t: &Target, new: &str) -> Result<(), String> {
    let s = a.index.symbol(t.sym);
    if new.len() > MAX_NAME {
        return Err(format!(
            "a name of {} bytes (at most {MAX_NAME})",
            new.len()
        ));
    }
    // These sub-fields give an operand's prefix its meaning (`!P0`, `-URa`, `~Rb`).
    const MEANING: [&str; 3] = ["not", "neg", "bitnot"];
    if t.part == Part::Suffix && (MEANING.contains(&t.old.as_str()) || MEANING.contains(&new)) {
        return Err(format!(
            "`.{}` gives an operand's prefix its meaning in assembly (`.not` is `!`, `.neg` `-`, `.bitnot` `~`): renaming it changes the syntax",
            if MEANING.contains(&new) { new } else { t.old.as_str() }
        ));
    }
    let ident = new.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && new.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    // Values may be numbers (`.64`).
    let value = !new.is_empty() && new.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    let (form_ok, what) = match s.kind {
        SymbolKind::Value => (value, "a value"),
        SymbolKind::Type => (ident, "a type"),
        SymbolKind::Def(k) => (ident, k.noun()),
        SymbolKind::Field => (ident, "a field"),
        SymbolKind::Word => (ident, "an operand word"),
    };
    if !form_ok {
        return Err(format!("`{new}` is not a valid name for {what}"));
    }
    let taken = match s.kind {
        SymbolKind::Type => a.index.type_named(new).map(|_| "a type"),
        SymbolKind::Def(_) => a.index.def_named(new).map(|_| "a definition"),
        SymbolKind::Word => a.index.word_named(new).map(|_| "an operand word"),
        SymbolKind::Value => s
            .container
            .and_then(|ty| a.index.value_of(ty, new))
            .map(|_| "a value of the same type"),
        SymbolKind::Field if t.part == Part::Suffix => {
            let field = s.name.split_once('.').map_or("", |(f, _)| f);
            field_taken(a, t.sym, &format!("{field}.{new}"))
        }
        SymbolKind::Field => field_taken(a, t.sym, new)
            .or_else(|| a.index.word_named(new).map(|_| "an operand word")),
    };
    match taken {
        Some(what) => Err(format!("`{new}` is already the name of {what}")),
        None => Ok(()),
    }
}

/// Whether a definition that sees field `sym` (its declaring definition and those
/// below it) sees another field called `name`.
fn field_taken(a: &Analysis, sym: SymbolId, name: &str) -> Option<&'static str> {
    let owner = a.index.symbol(sym).container?;
    let defs = Defs::new(&a.parsed);
    let &d = defs.by_name.get(a.index.symbol(owner).name.as_str())?;
    std::iter::once(d)
        .chain(defs.descendants(d))
        .any(|d| defs.fields(d).iter().any(|f| f.decl.name.name == name))
        .then_some("a field of a definition that has this one")
}

/// Checks the spec with the edits applied: refused if it has more errors or more
/// warnings than the spec had (a collision the name checks above do not foresee, e.g.
/// a value renamed to the name of a field it is compared beside, or text the rename
/// cannot reach, such as a sibling's own field of the same name).
fn recheck(a: &Analysis, edits: &[(Span, String)]) -> Result<(), String> {
    let texts = apply(a, edits.iter().map(|(s, t)| (*s, t.as_str())));
    let checked = isa_gen::Spec::from_texts(
        a.checked
            .sources
            .files()
            .zip(&texts)
            .map(|((_, f), t)| (f.name.as_str(), t.as_str())),
    )
    .check();
    let (old, new) = (&a.checked.diagnostics, &checked.diagnostics);
    for (worse, what, errors) in [
        (
            new.error_count() > old.error_count(),
            "would not check",
            true,
        ),
        (
            new.warning_count() > old.warning_count(),
            "would warn",
            false,
        ),
    ] {
        if !worse {
            continue;
        }
        let first = new
            .items
            .iter()
            .filter(|d| d.is_error() == errors)
            .find(|d| !old.items.iter().any(|e| e.message == d.message));
        return Err(match first {
            Some(d) => format!(
                "the renamed spec {what}: {}: {}",
                checked.sources.location(d.span),
                d.message
            ),
            None => format!("the renamed spec {what}"),
        });
    }
    Ok(())
}

/// The text of every file with `edits` applied (non-overlapping spans).
fn apply<'e>(a: &Analysis, edits: impl IntoIterator<Item = (Span, &'e str)>) -> Vec<String> {
    let mut by_file: BTreeMap<u32, Vec<(Span, &str)>> = BTreeMap::new();
    for (s, t) in edits {
        by_file.entry(s.file.0).or_default().push((s, t));
    }
    a.checked
        .sources
        .files()
        .map(|(id, f)| {
            let mut text = f.text.clone();
            if let Some(list) = by_file.get_mut(&id.0) {
                list.sort_by_key(|(s, _)| std::cmp::Reverse(s.start));
                for (s, t) in list.iter() {
                    text.replace_range(s.range(), t);
                }
            }
            text
        })
        .collect()
}

/// The quick fixes for the diagnostics of `file` that touch `range` (byte offsets):
/// each fix the checker attached, on the error and on the other uses it stands for.
pub fn code_actions(a: &Analysis, file: FileId, range: (usize, usize)) -> Vec<CodeAction> {
    let touches =
        |s: Span| s.file == file && (s.start as usize) <= range.1 && range.0 <= s.end as usize;
    // The published diagnostics, to link each action to its own; built only when a
    // fix applies (editors ask for actions at every move of the cursor).
    let mut all = None;
    let uri = a.uris.get(file.0 as usize);
    let mut out = Vec::new();
    for d in &a.checked.diagnostics.items {
        if d.fixes.is_empty() {
            continue;
        }
        let Some(at) = std::iter::once(d.span)
            .chain(d.other_uses.iter().copied())
            .find(|&s| touches(s))
        else {
            continue;
        };
        // The published diagnostic at that place, so the editor links the two.
        let all = all.get_or_insert_with(|| a.diagnostics());
        let shown: Vec<Diagnostic> = uri
            .and_then(|u| all.get(u))
            .into_iter()
            .flatten()
            .filter(|x| x.range == a.range(at) && x.message.starts_with(&d.message))
            .cloned()
            .collect();
        for f in &d.fixes {
            out.push(action(a, f, shown.clone(), d.fixes.len() == 1));
        }
    }
    out
}

fn action(a: &Analysis, f: &Fix, diagnostics: Vec<Diagnostic>, preferred: bool) -> CodeAction {
    CodeAction {
        title: f.title.clone(),
        kind: Some(CodeActionKind::QUICKFIX),
        diagnostics: (!diagnostics.is_empty()).then_some(diagnostics),
        edit: Some(workspace_edit(a, &f.edits)),
        is_preferred: Some(preferred),
        ..CodeAction::default()
    }
}
