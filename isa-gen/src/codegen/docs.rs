//! The spec's Markdown prose, adapted so rustdoc renders it as the authors meant.
//!
//! The text is kept verbatim except for three mechanical changes that stop rustdoc
//! from misreading it: bare ``` fences become ```text (rustdoc would compile them as
//! Rust doctests), an indented line after a blank line loses its indentation (it would
//! otherwise be an indented code block, also compiled), and `[[NAME]]` cross-references
//! become links to the generated items.

use crate::model::{DefKind, Model};
use crate::syntax::ast::DocSection;

use super::names;

/// Rustdoc lines for one section, under a `# Title` heading.
pub fn section_lines(model: &Model, section: &DocSection, out: &mut Vec<String>) {
    out.push(String::new());
    out.push(format!("# {}", section.kind.title()));
    out.push(String::new());
    out.extend(markdown_lines(model, &section.text));
}

/// The first sentence of a definition's `__Description` (its first paragraph up to
/// the first `.`, `。`, `!` or `?` that ends a sentence), on one line; `None` without
/// a description. Cross-references become links, as in the full text.
pub fn first_sentence(model: &Model, def: &crate::model::Def) -> Option<String> {
    let d = def
        .docs
        .iter()
        .find(|d| d.kind == crate::syntax::ast::DocKind::Description)?;
    first_sentence_of(model, &d.text)
}

/// [`first_sentence`] of a text.
pub fn first_sentence_of(model: &Model, text: &str) -> Option<String> {
    let mut para = String::new();
    for line in text.lines() {
        let t = line.trim();
        let list_item = t.starts_with("- ") || t.starts_with("* ") || t.starts_with("+ ");
        if t.is_empty()
            || t.starts_with("```")
            || t.starts_with('|')
            || t.starts_with('#')
            || (list_item && !para.is_empty())
        {
            if para.is_empty() {
                continue;
            }
            break;
        }
        if !para.is_empty() {
            para.push(' ');
        }
        para.push_str(t);
    }
    let mut end = para.len();
    let mut chars = para.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let next = chars.peek().map(|&(_, n)| n);
        let ends = match c {
            '。' | '！' | '？' => true,
            '.' | '!' | '?' => next.is_none_or(char::is_whitespace),
            _ => false,
        };
        if ends {
            end = i + c.len_utf8();
            break;
        }
    }
    let s = para[..end].trim();
    (!s.is_empty()).then(|| cross_refs(model, s))
}

/// Adapts verbatim Markdown for rustdoc (see the module docs).
pub fn markdown_lines(model: &Model, text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_fence = false;
    let mut prev_blank = true;
    for raw in text.lines() {
        let expanded = expand_tabs(raw);
        let line = expanded.trim_end();
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") {
            if !in_fence {
                let lang = trimmed.trim_start_matches('`').trim();
                let indent = &line[..line.len() - trimmed.len()];
                if lang.is_empty() || lang == "rust" {
                    out.push(format!("{indent}```text"));
                } else {
                    out.push(line.to_string());
                }
            } else {
                out.push(line.to_string());
            }
            in_fence = !in_fence;
            prev_blank = false;
            continue;
        }
        if in_fence {
            out.push(line.to_string());
            continue;
        }
        let indent = line.len() - trimmed.len();
        let is_list_item = trimmed.starts_with("- ")
            || trimmed.starts_with("* ")
            || trimmed.starts_with("+ ")
            || trimmed
                .split_once(". ")
                .is_some_and(|(n, _)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
        let line = if prev_blank && indent >= 4 && !is_list_item {
            trimmed.to_string()
        } else {
            line.to_string()
        };
        prev_blank = trimmed.is_empty();
        out.push(cross_refs(model, &line));
    }
    if in_fence {
        out.push("```".to_string());
    }
    out
}

/// `[[NAME]]` → a link to what NAME generates.
fn cross_refs(model: &Model, line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(start) = rest.find("[[") {
        let Some(len) = rest[start + 2..].find("]]") else {
            break;
        };
        let name = &rest[start + 2..start + 2 + len];
        out.push_str(&rest[..start]);
        out.push_str(&link(model, name));
        rest = &rest[start + 2 + len + 2..];
    }
    out.push_str(rest);
    out
}

fn link(model: &Model, name: &str) -> String {
    if model.opcode_by_name(name).is_some() || model.type_by_name(name).is_some() {
        return format!("[`{name}`]({})", names::type_name(name));
    }
    let is_optype = model
        .defs
        .iter()
        .any(|d| d.kind == DefKind::Optype && d.name == name);
    if is_optype {
        let ops: Vec<String> = model
            .opcodes
            .iter()
            .filter(|o| o.optype.is_some_and(|d| model.def(d).name == name))
            .map(|o| format!("[`{}`]({})", o.name, names::type_name(&o.name)))
            .collect();
        if !ops.is_empty() {
            return format!("`{name}` ({})", ops.join(", "));
        }
    }
    format!("`{name}`")
}

/// Tabs to spaces (tab stops every 8 columns), so code blocks keep their alignment.
fn expand_tabs(line: &str) -> String {
    if !line.contains('\t') {
        return line.to_string();
    }
    let mut out = String::with_capacity(line.len() + 16);
    let mut col = 0;
    for c in line.chars() {
        if c == '\t' {
            let n = 8 - col % 8;
            out.extend(std::iter::repeat_n(' ', n));
            col += n;
        } else {
            out.push(c);
            col += 1;
        }
    }
    out
}
