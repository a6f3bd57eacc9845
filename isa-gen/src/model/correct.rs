//! `__DefCorrection`: where the authors' files contradict themselves, our side of the
//! spec states the one answer, and every part of the toolchain reads it.
//!
//! A correction names a definition and gives `__OperandInfo` entries; each replaces the
//! entry of the same kind that the definition itself gives (the same list, or the
//! `Bitwidth`/`AsmFormat` of the same operand) before the model is resolved, so the
//! operand facts, the assembler, the printer, the docs and the generated code all see
//! the corrected entry, and it is checked like any other. The authors' entry is
//! reported by the `corrected` lint, pointing at the correction.

use std::borrow::Cow;

use crate::diag::{Diagnostic, Diagnostics, Lint};
use crate::syntax::ast::{InfoEntry, Item, SpecFile};

/// What an entry replaces: its kind and, for `Bitwidth`/`AsmFormat`, its operand.
fn key(e: &InfoEntry) -> (&'static str, &str) {
    match e {
        InfoEntry::InList(..) => ("InList", ""),
        InfoEntry::OutList(..) => ("OutList", ""),
        InfoEntry::Order(..) => ("Order", ""),
        InfoEntry::Bitwidth { operand, .. } => ("Bitwidth", operand.name.as_str()),
        InfoEntry::AsmFormat { operand, .. } => ("AsmFormat", operand.name.as_str()),
    }
}

fn entry_span(e: &InfoEntry) -> crate::source::Span {
    match e {
        InfoEntry::InList(_, s) | InfoEntry::OutList(_, s) | InfoEntry::Order(_, s) => *s,
        InfoEntry::Bitwidth { span, .. } | InfoEntry::AsmFormat { span, .. } => *span,
    }
}

fn describe((kind, operand): (&str, &str)) -> String {
    if operand.is_empty() {
        format!("`{kind}<…>`")
    } else {
        format!("`{kind}<{operand}>`")
    }
}

/// The files with every correction applied (borrowed unchanged when there is none).
/// Unknown definitions, entries the definition does not give, and an entry corrected
/// twice are errors; each applied correction is a `corrected` warning at the authors'
/// entry.
pub(crate) fn apply<'a>(files: &'a [SpecFile], diags: &mut Diagnostics) -> Cow<'a, [SpecFile]> {
    let corrections: Vec<_> = files
        .iter()
        .flat_map(|f| &f.items)
        .filter_map(|i| match i {
            Item::Correction(c) => Some(c),
            _ => None,
        })
        .collect();
    if corrections.is_empty() {
        return Cow::Borrowed(files);
    }
    let mut out = files.to_vec();
    // Where each definition is: (file, item), by name (the first of a name twice
    // defined: the resolver reports the second).
    let mut defs = std::collections::HashMap::new();
    for (fi, f) in files.iter().enumerate() {
        for (ii, item) in f.items.iter().enumerate() {
            if let Item::Def(d) = item {
                defs.entry(d.name.name.as_str()).or_insert((fi, ii));
            }
        }
    }
    let mut applied: std::collections::HashMap<(&str, (&str, &str)), crate::source::Span> =
        std::collections::HashMap::new();
    for c in corrections {
        let Some(&(fi, ii)) = defs.get(c.def.name.as_str()) else {
            let mut d = Diagnostic::error(
                c.def.span,
                format!("unknown group, optype or opcode `{}`", c.def.name),
            );
            if let Some(s) = crate::suggest::nearest(&c.def.name, defs.keys().copied()) {
                d = d.did_you_mean(c.def.span, s);
            }
            diags.push(d);
            continue;
        };
        if c.entries.is_empty() {
            diags.push(Diagnostic::error(
                c.span,
                format!(
                    "`__DefCorrection {}` corrects nothing: give the entries it replaces",
                    c.def.name
                ),
            ));
        }
        for e in &c.entries {
            let k = key(e);
            if let Some(&first) = applied.get(&(c.def.name.as_str(), k)) {
                diags.push(
                    Diagnostic::error(
                        entry_span(e),
                        format!("{} of `{}` is corrected twice", describe(k), c.def.name),
                    )
                    .with_secondary(first, "first corrected here"),
                );
                continue;
            }
            let Item::Def(def) = &mut out[fi].items[ii] else {
                unreachable!("indexed as a definition above")
            };
            let Some(pos) = def.operand_info.iter().position(|x| key(x) == k) else {
                diags.push(
                    Diagnostic::error(
                        entry_span(e),
                        format!(
                            "`{}` gives no {} of its own: a correction replaces an entry the definition has",
                            c.def.name,
                            describe(k)
                        ),
                    )
                    .with_secondary(def.name.span, "the definition"),
                );
                continue;
            };
            applied.insert((c.def.name.as_str(), k), entry_span(e));
            diags.push(
                Diagnostic::warning(
                    Lint::Corrected,
                    entry_span(&def.operand_info[pos]),
                    format!(
                        "{} of `{}` contradicts the spec's own text; our spec corrects it",
                        describe(k),
                        c.def.name
                    ),
                )
                .with_secondary(entry_span(e), "the entry every tool uses instead"),
            );
            def.operand_info[pos] = e.clone();
        }
    }
    Cow::Owned(out)
}
