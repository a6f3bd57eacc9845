//! Inlay hints: facts the text leaves implicit, shown where they apply.
//!
//! - the bits a field occupies, after `field<start, width>`;
//! - the value a field re-declared without `=`/`==` inherits, and where from;
//! - an opcode's fixed values (`optype == ULDC`) inherited from its optype and groups,
//!   after its header.
//!
//! They come from the syntax trees and the inheritance the name index walks, so they
//! stay while the spec has errors.

use isa_gen::index::Defs;
use isa_gen::source::{FileId, Span};
use isa_gen::syntax::ast::{DefKind, FieldInit};
use lsp_types::{InlayHint, InlayHintKind, InlayHintLabel, InlayHintTooltip};

use super::project::Analysis;

/// The hints of `file` whose place lies within the byte range `range`.
pub fn hints(a: &Analysis, file: FileId, range: (usize, usize)) -> Vec<InlayHint> {
    let Some(parsed) = a.parsed.get(file.0 as usize) else {
        return Vec::new();
    };
    let within = |at: u32| (range.0..=range.1).contains(&(at as usize));
    let defs = Defs::new(&a.parsed);
    let mut out = Vec::new();
    for def in parsed.items.iter().filter_map(|i| match i {
        isa_gen::syntax::ast::Item::Def(d) => Some(d),
        _ => None,
    }) {
        if !within(def.span.start) && !within(def.span.end) {
            // A definition's fields follow its header: look at them only if the
            // range reaches past the header.
            let last = def.encoding.last().map_or(def.span.end, |f| f.span.end);
            if last < range.0 as u32 || def.span.start > range.1 as u32 {
                continue;
            }
        }
        // The definition as the index sees it (the first of a name).
        let me = defs
            .by_name
            .get(def.name.name.as_str())
            .copied()
            .filter(|&i| std::ptr::eq(defs.defs[i], def));
        for f in &def.encoding {
            if within(f.width.span.end) {
                let (lo, w) = (f.start.value, f.width.value);
                let label = match w {
                    0 => "no bits".to_string(),
                    1 => format!("bit {lo}"),
                    _ => format!("bits {lo}–{}", lo.saturating_add(w - 1)),
                };
                out.push(hint(a, after_char(a, f.width.span, '>'), label, None, true));
            }
            let Some(me) = me else { continue };
            if matches!(f.init, FieldInit::None) && within(f.name.span.end) {
                if let Some((text, from)) = inherited_init(&defs, me, &f.name.name) {
                    let tooltip = format!("inherited from `{from}`");
                    out.push(hint(a, f.name.span, text, Some(tooltip), false));
                }
            }
        }
        if let (Some(me), DefKind::Opcode) = (me, def.kind) {
            if within(def.span.start) || within(def.span.end) {
                let fixed: Vec<String> = defs
                    .fields(me)
                    .iter()
                    .filter(|f| f.init_from != me)
                    .filter_map(|f| {
                        match &defs.defs[f.init_from]
                            .encoding
                            .iter()
                            .find(|d| d.name.name == f.decl.name.name)?
                            .init
                        {
                            FieldInit::Fixed(v) => {
                                Some(format!("{} == {}", f.decl.name.name, v.text))
                            }
                            _ => None,
                        }
                    })
                    .collect();
                if !fixed.is_empty() {
                    // After the parents' `]` (before any comment), else after the name.
                    let at = match def.parents.last() {
                        Some(p) => after_char(a, p.span, ']'),
                        None => def.name.span,
                    };
                    out.push(hint(
                        a,
                        at,
                        fixed.join(", "),
                        Some("fixed values inherited from its optype and groups".into()),
                        false,
                    ));
                }
            }
        }
    }
    out
}

/// ` = value` (or ` == value`) and the definition it comes from, for a field `name`
/// of definition `def` declared there without a value.
fn inherited_init(defs: &Defs, def: usize, name: &str) -> Option<(String, String)> {
    let f = defs
        .fields(def)
        .into_iter()
        .find(|f| f.decl.name.name == name)?;
    if f.init_from == def {
        return None;
    }
    let from = defs.defs[f.init_from];
    let decl = from.encoding.iter().find(|d| d.name.name == name)?;
    let text = match &decl.init {
        FieldInit::Default(v) => format!("= {}", v.text),
        FieldInit::Fixed(v) => format!("== {}", v.text),
        FieldInit::None => return None,
    };
    Some((text, from.name.name.clone()))
}

/// Just past the `close` that follows `span` after blanks (else the end of `span`):
/// the `>` of `field<start, width>`, the `]` of a header's parents.
fn after_char(a: &Analysis, span: Span, close: char) -> Span {
    let text = a.text(span.file);
    let rest = &text[span.end as usize..];
    let gap = rest.find(close).filter(|&k| rest[..k].trim().is_empty());
    let end = span.end + gap.map_or(0, |k| k as u32 + 1);
    Span {
        start: end,
        end,
        ..span
    }
}

/// A hint at the end of `span`.
fn hint(
    a: &Analysis,
    span: Span,
    label: String,
    tooltip: Option<String>,
    pad_right: bool,
) -> InlayHint {
    InlayHint {
        position: a.range(span).end,
        label: InlayHintLabel::String(label),
        kind: Some(InlayHintKind::TYPE),
        text_edits: None,
        tooltip: tooltip.map(InlayHintTooltip::String),
        padding_left: Some(true),
        padding_right: Some(pad_right),
        data: None,
    }
}
