//! Go to definition, find references and the document outline.

use isa_gen::index::SymbolId;
use isa_gen::model::DefKind;
use isa_gen::source::{FileId, Span};
use isa_gen::syntax::ast::{Item, SpecFile};
use lsp_types::{DocumentSymbol, Location, SymbolKind};

use super::project::Analysis;

pub fn definition(a: &Analysis, sym: SymbolId) -> Option<Location> {
    a.location(a.index.symbol(sym).decl)
}

pub fn references(a: &Analysis, sym: SymbolId, include_decl: bool) -> Vec<Location> {
    a.index
        .occurrences_of(sym)
        .filter(|o| include_decl || !o.decl)
        .filter_map(|o| a.location(o.span))
        .collect()
}

/// The outline of one file: every `__Def…` item, with the fields of a definition and
/// the values of an enumeration as children. An item's range runs from its header to
/// the last non-blank line before the next item.
pub fn outline(a: &Analysis, file: FileId) -> Vec<DocumentSymbol> {
    let Some(parsed) = a.parsed.get(file.0 as usize) else {
        return Vec::new();
    };
    let text = a.text(file);
    let starts: Vec<u32> = parsed.items.iter().map(|i| item_span(i).start).collect();
    let mut out = Vec::new();
    for (k, item) in parsed.items.iter().enumerate() {
        let head = item_span(item);
        let next = starts.get(k + 1).map_or(text.len(), |&s| s as usize);
        let end = head
            .end
            .max(trimmed_end(text, head.end as usize, next) as u32);
        let full = Span { end, ..head };
        let (name, kind, detail, children) = describe(a, item, parsed);
        #[allow(deprecated)] // `deprecated` is a required field of the struct
        out.push(DocumentSymbol {
            name: name.name.clone(),
            detail,
            kind,
            tags: None,
            deprecated: None,
            range: a.range(full),
            selection_range: a.range(name.span),
            children: (!children.is_empty()).then_some(children),
        });
    }
    out
}

fn item_span(item: &Item) -> Span {
    match item {
        Item::BitFieldType(e) => e.span,
        Item::RegFile(r) => r.span,
        Item::Immediate(i) => i.span,
        Item::ConstMem(c) => c.span,
        Item::OperandWord(w) => w.span,
        Item::Registers(r) => r.span,
        Item::Flow(f) => f.span,
        Item::Correction(c) => c.span,
        Item::Def(d) => d.span,
    }
}

/// The end of the last line before `next` that holds more than blanks and comments.
fn trimmed_end(text: &str, from: usize, next: usize) -> usize {
    let next = next.min(text.len()).max(from);
    let mut end = from;
    let mut at = from;
    for line in text[from..next].split_inclusive('\n') {
        let t = line.trim();
        if !t.is_empty() && !t.starts_with("//") {
            end = at + line.trim_end().len();
        }
        at += line.len();
    }
    end
}

type Described<'a> = (
    &'a isa_gen::syntax::ast::Ident,
    SymbolKind,
    Option<String>,
    Vec<DocumentSymbol>,
);

#[allow(deprecated)] // `DocumentSymbol::deprecated` must be written out
fn describe<'a>(a: &Analysis, item: &'a Item, _file: &SpecFile) -> Described<'a> {
    let leaf =
        |name: &isa_gen::syntax::ast::Ident, kind, detail: String, span: Span| DocumentSymbol {
            name: name.name.clone(),
            detail: Some(detail),
            kind,
            tags: None,
            deprecated: None,
            range: a.range(span),
            selection_range: a.range(name.span),
            children: None,
        };
    match item {
        Item::BitFieldType(e) => {
            let mut code = 0u128;
            let values = e
                .values
                .iter()
                .map(|v| {
                    code = v.code.map_or(code, |c| c.value);
                    let s = leaf(
                        &v.name,
                        SymbolKind::ENUM_MEMBER,
                        format!("{code:#x}"),
                        v.code.map_or(v.name.span, |c| v.name.span.to(c.span)),
                    );
                    code = code.wrapping_add(1);
                    s
                })
                .collect();
            (
                &e.name,
                SymbolKind::ENUM,
                Some(format!("<{}>", e.width.value)),
                values,
            )
        }
        Item::RegFile(r) => (
            &r.name,
            SymbolKind::ENUM,
            Some(format!("register file <{}>", r.width.value)),
            Vec::new(),
        ),
        Item::Immediate(i) => (
            &i.name,
            SymbolKind::NUMBER,
            Some(format!(
                "{} <{}>",
                if i.signed { "signed" } else { "unsigned" },
                i.width.value
            )),
            Vec::new(),
        ),
        Item::ConstMem(c) => (
            &c.name,
            SymbolKind::STRUCT,
            Some(format!(
                "bank<{}> offset<{}>",
                c.bank_bits.value, c.offset_bits.value
            )),
            Vec::new(),
        ),
        Item::OperandWord(w) => (
            &w.name,
            SymbolKind::CONSTANT,
            Some(format!(
                ": {} {}..{}",
                w.reg_file.name, w.lo.value, w.hi.value
            )),
            Vec::new(),
        ),
        Item::Registers(r) => (
            &r.ty,
            SymbolKind::ENUM,
            Some("registers".to_string()),
            Vec::new(),
        ),
        Item::Flow(f) => (
            &f.def,
            SymbolKind::EVENT,
            Some(format!("flow: {}", f.kind.name)),
            Vec::new(),
        ),
        Item::Correction(c) => (
            &c.def,
            SymbolKind::EVENT,
            Some(format!(
                "correction: {} entr{}",
                c.entries.len(),
                if c.entries.len() == 1 { "y" } else { "ies" }
            )),
            Vec::new(),
        ),
        Item::Def(d) => {
            let fields = d
                .encoding
                .iter()
                .map(|f| {
                    leaf(
                        &f.name,
                        SymbolKind::FIELD,
                        format!("<{}, {}> {}", f.start.value, f.width.value, f.ty.name),
                        f.span,
                    )
                })
                .collect();
            let kind = match d.kind {
                DefKind::Group => SymbolKind::NAMESPACE,
                DefKind::Optype => SymbolKind::CLASS,
                DefKind::Opcode => SymbolKind::METHOD,
            };
            let parents: Vec<&str> = d.parents.iter().map(|p| p.name.as_str()).collect();
            let detail = if parents.is_empty() {
                d.kind.noun().to_string()
            } else {
                format!("{} : [{}]", d.kind.noun(), parents.join(", "))
            };
            (&d.name, kind, Some(detail), fields)
        }
    }
}
