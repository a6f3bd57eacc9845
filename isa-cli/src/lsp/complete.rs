//! Completion: section keywords, type names, group/optype names, value names, field
//! names, chosen by what the line holds before the cursor. The editor filters the
//! list by the word being typed, so every candidate of the context is returned.

use isa_gen::index::{Defs, SymbolKind as Sk};
use isa_gen::model::DefKind;
use isa_gen::source::FileId;
use isa_gen::syntax::ast::Item;
use lsp_types::{CompletionItem, CompletionItemKind};

use super::project::Analysis;

/// Every header keyword of the DSL (`isa-spec/README.md` §3, §4), with what it opens.
/// A test checks that the parser knows each of them.
pub const KEYWORDS: &[(&str, &str)] = &[
    (
        "__DefBitFieldType",
        "an enumeration: `__DefBitFieldType Name<width>`",
    ),
    (
        "__DefRegFile",
        "a register file: `__DefRegFile Name<width>`",
    ),
    (
        "__DefImmediate",
        "an immediate: `__DefImmediate Name<width> signed|unsigned`",
    ),
    (
        "__DefConstMem",
        "constant memory: `__DefConstMem Name<w> bank<b> offset<o> [signed|unsigned]`",
    ),
    (
        "__DefOperandWord",
        "a fixed operand word: `__DefOperandWord NAME : RegFile lo..hi`",
    ),
    (
        "__DefRegisters",
        "an enumeration whose values name registers: `__DefRegisters Name`",
    ),
    (
        "__DefFlow",
        "control flow of a definition's opcodes: `__DefFlow Name : kind`, then `target f;`, `condition f, g;`, `absolute f;`, `immediate f;`",
    ),
    ("__DefGroup", "a group: `__DefGroup Name: [Parents]`"),
    ("__DefOptype", "an optype: `__DefOptype Name: [Parents]`"),
    ("__DefOpcode", "an opcode: `__DefOpcode Name: [Parents]`"),
    (
        "__Encoding",
        "fields: `field<start, width> Type name [= default | == fixed];`",
    ),
    (
        "__OperandInfo",
        "`Order<…>`, `InList<…>`, `OutList<…>`, `Bitwidth<…>`, `AsmFormat<…>`",
    ),
    (
        "__Exception",
        "`EncodingError<Kind, \"message\"> = condition;`",
    ),
    ("__Syntax", "assembly syntax (text)"),
    ("__Description", "description (Markdown)"),
    ("__ModifierInfo", "modifiers (Markdown)"),
    ("__Semantics", "semantics (Markdown)"),
    ("__Examples", "examples (a fenced block of assembly)"),
];

pub fn complete(a: &Analysis, file: FileId, offset: usize) -> Vec<CompletionItem> {
    let text = a.text(file);
    let offset = floor_boundary(text, offset);
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let prefix = &text[line_start..offset];
    let (before, _word) = split_word(prefix);
    let trimmed = before.trim_start();

    // `__Wor|` at the start of a line.
    if trimmed.is_empty() && prefix.trim_start().starts_with('_') {
        return keywords();
    }
    let section = section_at(text, line_start);
    // A definition header: parents after `: [`.
    if trimmed.starts_with("__Def") {
        if trimmed.starts_with("__DefOperandWord") && trimmed.contains(':') {
            return types(a, |k| k == "register file");
        }
        if trimmed.starts_with("__DefRegisters") {
            return types(a, |k| k == "bit-field type");
        }
        if trimmed.starts_with("__DefFlow") && !trimmed.contains(':') {
            return defs(a, |_| true);
        }
        if trimmed.contains('[') {
            return defs(a, |k| k != DefKind::Opcode);
        }
        return Vec::new();
    }
    match section.as_deref() {
        Some("__Encoding") if trimmed.starts_with("field") => {
            let Some(close) = trimmed.find('>') else {
                return Vec::new();
            };
            let after: Vec<&str> = trimmed[close + 1..]
                .split(|c: char| c.is_whitespace() || c == '=')
                .filter(|w| !w.is_empty())
                .collect();
            if trimmed[close + 1..].contains('=') {
                // `field<…> Type name = |`: the values of Type.
                return after.first().map_or_else(Vec::new, |t| values(a, t));
            }
            if after.is_empty() {
                return types(a, |_| true);
            }
            Vec::new()
        }
        Some("__Exception" | "__OperandInfo") => {
            let scope = fields_in_scope(a, file, offset);
            // `field == |` or `field != "|`: the values of the field's type.
            let b = before.trim_end().trim_end_matches('"').trim_end();
            if let Some(lhs) = b.strip_suffix("==").or_else(|| b.strip_suffix("!=")) {
                let (_, name) = split_word(lhs.trim_end());
                if let Some((_, ty)) = scope.iter().find(|(n, _)| n == name) {
                    return values(a, ty);
                }
            }
            let mut items: Vec<CompletionItem> = scope
                .into_iter()
                .map(|(n, ty)| item(&n, CompletionItemKind::FIELD, &ty))
                .collect();
            if section.as_deref() == Some("__OperandInfo") {
                for w in a.index.of_kind(|k| k == Sk::Word) {
                    let name = &a.index.symbol(w).name;
                    items.push(item(name, CompletionItemKind::CONSTANT, "operand word"));
                }
            }
            items
        }
        _ if trimmed.is_empty() => keywords(),
        _ => Vec::new(),
    }
}

fn item(label: &str, kind: CompletionItemKind, detail: &str) -> CompletionItem {
    CompletionItem {
        label: label.to_string(),
        kind: Some(kind),
        detail: (!detail.is_empty()).then(|| detail.to_string()),
        ..CompletionItem::default()
    }
}

fn keywords() -> Vec<CompletionItem> {
    KEYWORDS
        .iter()
        .map(|(k, what)| item(k, CompletionItemKind::KEYWORD, what))
        .collect()
}

fn types(a: &Analysis, want: impl Fn(&str) -> bool) -> Vec<CompletionItem> {
    let model_kind = |name: &str| {
        a.checked
            .model
            .as_ref()
            .and_then(|m| m.type_by_name(name).map(|t| m.ty(t).kind_noun()))
    };
    a.index
        .of_kind(|k| k == Sk::Type)
        .filter_map(|t| {
            let name = &a.index.symbol(t).name;
            let kind = model_kind(name).unwrap_or("type");
            (kind == "type" || want(kind)).then(|| item(name, CompletionItemKind::CLASS, kind))
        })
        .collect()
}

fn defs(a: &Analysis, want: impl Fn(DefKind) -> bool) -> Vec<CompletionItem> {
    a.index
        .of_kind(|k| matches!(k, Sk::Def(d) if want(d)))
        .map(|d| {
            let s = a.index.symbol(d);
            let noun = match s.kind {
                Sk::Def(k) => k.noun(),
                _ => "",
            };
            item(&s.name, CompletionItemKind::MODULE, noun)
        })
        .collect()
}

fn values(a: &Analysis, ty: &str) -> Vec<CompletionItem> {
    let Some(t) = a.index.type_named(ty) else {
        return Vec::new();
    };
    a.index
        .values_of(t)
        .map(|v| item(&a.index.symbol(v).name, CompletionItemKind::ENUM_MEMBER, ty))
        .collect()
}

/// (name, type) of the fields the definition around `offset` declares or inherits.
fn fields_in_scope(a: &Analysis, file: FileId, offset: usize) -> Vec<(String, String)> {
    let Some(parsed) = a.parsed.get(file.0 as usize) else {
        return Vec::new();
    };
    let Some(name) = parsed
        .items
        .iter()
        .filter_map(|i| match i {
            Item::Def(d) if d.span.start as usize <= offset => Some(&d.name.name),
            _ => None,
        })
        .next_back()
    else {
        return Vec::new();
    };
    let defs = Defs::new(&a.parsed);
    let Some(&d) = defs.by_name.get(name.as_str()) else {
        return Vec::new();
    };
    defs.fields(d)
        .into_iter()
        .map(|f| (f.decl.name.name.clone(), f.decl.ty.name.clone()))
        .collect()
}

/// The header keyword (`__Encoding`, `__DefOpcode`, …) of the nearest header line
/// above `line_start`.
fn section_at(text: &str, line_start: usize) -> Option<String> {
    text[..line_start].lines().rev().find_map(|l| {
        let t = l.trim_start().strip_prefix("__")?;
        let word: String = t
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        (!word.is_empty()).then(|| format!("__{word}"))
    })
}

/// Splits a trailing name (`[A-Za-z0-9_.]*`) off `s`.
fn split_word(s: &str) -> (&str, &str) {
    let at = s
        .char_indices()
        .rev()
        .take_while(|(_, c)| c.is_ascii_alphanumeric() || *c == '_' || *c == '.')
        .last()
        .map_or(s.len(), |(i, _)| i);
    s.split_at(at)
}

fn floor_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_parser_knows_every_keyword() {
        for (k, _) in KEYWORDS {
            // A header the parser does not know is an error naming it ("unknown
            // section"/"expected a definition"); a known one is at most incomplete.
            let text = if k.starts_with("__Def") {
                format!("{k} X\n")
            } else {
                format!("__DefGroup G\n  {k}\n")
            };
            let checked = isa_gen::Spec::from_texts([("k.isa", text.as_str())]).check();
            let msgs = checked.render_diagnostics();
            assert!(
                !msgs.contains("unknown section") && !msgs.contains("expected a definition"),
                "{k}: {msgs}"
            );
        }
        let checked = isa_gen::Spec::from_texts([("k.isa", "__DefGroup G\n  __Nope\n")]).check();
        assert!(checked.render_diagnostics().contains("unknown section"));
    }

    #[test]
    fn words_split_at_names() {
        assert_eq!(split_word("a == SR_CTAID.X"), ("a == ", "SR_CTAID.X"));
        assert_eq!(split_word("分支 x"), ("分支 ", "x"));
        assert_eq!(split_word(""), ("", ""));
    }
}
