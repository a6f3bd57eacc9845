//! Hover text (Markdown) for the symbol under the cursor.
//!
//! Resolved facts (an opcode's fields after inheritance, codes of values) come from
//! the checked model; while the spec has errors, from the last model that checked,
//! looked up by name and marked as such. What the model does not hold (the fields a
//! group or optype declares or inherits) comes from the syntax trees.

use std::fmt::Write as _;

use isa_gen::asm::Assembler;
use isa_gen::index::{Defs, SymbolId, SymbolKind};
use isa_gen::model::{DefKind, Model, Role, TypeKind};
use isa_gen::syntax::ast::{FieldInit, Item};

use super::project::Analysis;
use crate::doc::text::{bits, role_name, syntax_template, value_text};

/// The model to describe resolved facts with, and whether it is the current one.
fn model<'a>(now: &'a Analysis, last_good: Option<&'a Analysis>) -> Option<(&'a Model, bool)> {
    match (
        &now.checked.model,
        last_good.and_then(|a| a.checked.model.as_ref()),
    ) {
        (Some(m), _) => Some((m, true)),
        (None, Some(m)) => Some((m, false)),
        (None, None) => None,
    }
}

const STALE: &str =
    "\n\n*The spec has errors: resolved facts are from its last version that checked.*";

pub fn hover(now: &Analysis, last_good: Option<&Analysis>, sym: SymbolId) -> String {
    let s = now.index.symbol(sym);
    let m = model(now, last_good);
    let mut out = match s.kind {
        SymbolKind::Def(DefKind::Opcode) => {
            match m.and_then(|(m, _)| Some((m, m.opcode_by_name(&s.name)?))) {
                Some((model, i)) => opcode(model, i),
                None => declared(now, &s.name),
            }
        }
        SymbolKind::Def(_) => {
            let mut t = declared(now, &s.name);
            if let Some((model, _)) = m {
                t.push_str(&opcodes_below(model, &s.name));
            }
            t
        }
        SymbolKind::Type => match m.and_then(|(m, _)| Some((m, m.type_by_name(&s.name)?))) {
            Some((model, t)) => type_text(model, t.0),
            None => format!("**type `{}`**", s.name),
        },
        SymbolKind::Value => value(now, m.map(|(m, _)| m), sym),
        SymbolKind::Field => field(now, sym),
        SymbolKind::Word => {
            match m.and_then(|(m, _)| m.words.iter().find(|w| w.name == s.name).map(|w| (m, w))) {
                Some((model, w)) => {
                    let rf = model.ty(w.reg_file);
                    let prefix = rf.reg_file().map_or("", |r| r.prefix.as_str());
                    format!(
                    "**operand word `{}`**\n\nstands for registers `{prefix}{}`..`{prefix}{}` of `{}`; printed as written, encodes nothing",
                    w.name, w.lo, w.hi, rf.name
                )
                }
                None => format!("**operand word `{}`**", s.name),
            }
        }
    };
    if matches!(m, Some((_, false)))
        && !matches!(s.kind, SymbolKind::Field | SymbolKind::Def(DefKind::Group))
    {
        out.push_str(STALE);
    }
    out
}

/// An opcode: header, assembly form, and every field with bits, type, role, value and
/// the definition it comes from, in bit order.
fn opcode(model: &Model, i: usize) -> String {
    let op = &model.opcodes[i];
    let asm = Assembler::new(model);
    let mnemonic = isa_gen::asm::mnemonic(model, i);
    let mut s = format!("**opcode `{}`**", op.name);
    let parents: Vec<&str> = model
        .def(op.def)
        .parents
        .iter()
        .map(|p| model.def(*p).name.as_str())
        .collect();
    if !parents.is_empty() {
        let _ = write!(s, " : [{}]", parents.join(", "));
    }
    if let Some(ot) = op.optype {
        let _ = write!(s, " — optype `{}`", model.def(ot).name);
    }
    let _ = write!(
        s,
        "\n\n```\n{}\n```\n\n| bits | field | type | role | value | from |\n|---|---|---|---|---|---|\n",
        syntax_template(model, &asm, i, &mnemonic)
    );
    let mut order: Vec<usize> = (0..op.fields.len()).collect();
    order.sort_by_key(|&k| std::cmp::Reverse(op.fields[k].start));
    for k in order {
        let f = &op.fields[k];
        let t = model.ty(f.ty);
        let value = match f.role {
            Role::Fixed(c) => format!("== {} ({c:#x})", value_text(t, c)),
            _ => f
                .default
                .map(|d| format!("= {}", value_text(t, d)))
                .unwrap_or_default(),
        };
        let from = &model.def(f.origin).name;
        let _ = writeln!(
            s,
            "| {} | `{}` | {} | {} | {} | {} |",
            bits(f.start, f.width),
            f.name,
            t.name,
            role_name(f.role),
            value,
            if *from == op.name { "own" } else { from }
        );
    }
    let _ = write!(
        s,
        "\nfixed bits: mask `{:#034x}`, value `{:#034x}`",
        op.fixed_mask, op.fixed_bits
    );
    s
}

/// A group, optype or opcode as declared: parents, then the fields it declares or
/// inherits (nearest declaration first wins), from the syntax trees.
fn declared(now: &Analysis, name: &str) -> String {
    let defs = Defs::new(&now.parsed);
    let Some(&d) = defs.by_name.get(name) else {
        return format!("`{name}`");
    };
    let def = defs.defs[d];
    let mut s = format!("**{} `{}`**", def.kind.noun(), name);
    if !def.parents.is_empty() {
        let ps: Vec<&str> = def.parents.iter().map(|p| p.name.as_str()).collect();
        let _ = write!(s, " : [{}]", ps.join(", "));
    }
    let mut fields = defs.fields(d);
    if fields.is_empty() {
        s.push_str("\n\ndeclares and inherits no fields");
        return s;
    }
    fields.sort_by_key(|f| std::cmp::Reverse(f.decl.start.value));
    s.push_str("\n\n| bits | field | type | value | from |\n|---|---|---|---|---|\n");
    for f in fields {
        let init_decl = defs.defs[f.init_from]
            .encoding
            .iter()
            .find(|x| x.name.name == f.decl.name.name)
            .unwrap_or(f.decl);
        let value = match &init_decl.init {
            FieldInit::None => String::new(),
            FieldInit::Default(v) => format!("= {}", v.text),
            FieldInit::Fixed(v) => format!("== {}", v.text),
        };
        let from = &defs.defs[f.from].name.name;
        let _ = writeln!(
            s,
            "| {} | `{}` | {} | {} | {} |",
            bits(f.decl.start.value as u32, f.decl.width.value as u32),
            f.decl.name.name,
            f.decl.ty.name,
            value,
            if from == name { "own" } else { from }
        );
    }
    s
}

/// The opcodes descending from a group or optype, with their assembly forms.
fn opcodes_below(model: &Model, name: &str) -> String {
    let Some(d) = model.defs.iter().position(|d| d.name == name) else {
        return String::new();
    };
    let below: Vec<usize> = (0..model.opcodes.len())
        .filter(|&i| model.opcodes[i].ancestors.iter().any(|a| a.0 == d))
        .collect();
    if below.is_empty() {
        return String::new();
    }
    let asm = Assembler::new(model);
    let mut s = format!("\n\n{} opcode(s) below it:\n\n```\n", below.len());
    const SHOWN: usize = 24;
    for &i in below.iter().take(SHOWN) {
        let mnemonic = isa_gen::asm::mnemonic(model, i);
        let _ = writeln!(
            s,
            "{:<12} {}",
            model.opcodes[i].name,
            syntax_template(model, &asm, i, &mnemonic)
        );
    }
    s.push_str("```");
    if below.len() > SHOWN {
        let _ = write!(s, "\n… and {} more", below.len() - SHOWN);
    }
    s
}

/// A type: kind, width, and its values with their codes.
fn type_text(model: &Model, t: usize) -> String {
    let t = &model.types[t];
    let mut s = format!("**{} `{}`** ({} bits)", t.kind_noun(), t.name, t.width);
    match &t.kind {
        TypeKind::Enum(vs) => {
            s.push_str("\n\n| value | code |\n|---|---|\n");
            const SHOWN: usize = 64;
            for v in vs.iter().take(SHOWN) {
                let _ = writeln!(s, "| `{}` | {:#x} |", v.name, v.code);
            }
            if vs.len() > SHOWN {
                let _ = writeln!(s, "| … | {} more |", vs.len() - SHOWN);
            }
        }
        TypeKind::RegFile(r) => {
            let _ = write!(
                s,
                "\n\nregisters `{p}{}`..`{p}{}` (code = number)",
                r.lo,
                r.hi,
                p = r.prefix
            );
            for (n, c) in &r.named {
                let _ = write!(s, "; `{n}` = {c:#x}");
            }
        }
        TypeKind::Immediate { signed } => {
            let _ = write!(
                s,
                "\n\n{} immediate, every code valid",
                if *signed {
                    "signed (two's complement)"
                } else {
                    "unsigned"
                }
            );
        }
        TypeKind::ConstMem {
            bank_bits,
            offset_bits,
            offset_signed,
        } => {
            let _ = write!(
                s,
                "\n\n`c[bank][offset]`: bank in the high {bank_bits} bits, {} byte offset in the low {offset_bits}",
                if *offset_signed { "signed" } else { "unsigned" }
            );
        }
    }
    s
}

fn value(now: &Analysis, model: Option<&Model>, sym: SymbolId) -> String {
    let s = now.index.symbol(sym);
    let ty = s.container.map(|t| now.index.symbol(t).name.as_str());
    let mut out = format!("**value `{}`**", s.name);
    if let Some(ty) = ty {
        let _ = write!(out, " of `{ty}`");
        let code = model.and_then(|m| {
            let t = m.ty(m.type_by_name(ty)?);
            t.enum_code(&s.name)
                .or_else(|| t.reg_file().and_then(|r| r.code_of(&s.name)))
        });
        if let Some(c) = code {
            let _ = write!(out, " = {c:#x}");
        }
    }
    out
}

/// A field: its declaration (bits, type, value) and the definition declaring it.
fn field(now: &Analysis, sym: SymbolId) -> String {
    let s = now.index.symbol(sym);
    let owner = s.container.map(|d| now.index.symbol(d).name.clone());
    let decl = now
        .parsed
        .iter()
        .flat_map(|f| &f.items)
        .find_map(|it| match it {
            Item::Def(d) => d.encoding.iter().find(|f| f.name.span == s.decl),
            _ => None,
        });
    let mut out = format!("**field `{}`**", s.name);
    if let Some(f) = decl {
        let _ = write!(
            out,
            ": bits {} (`field<{}, {}>`), type `{}`",
            bits(f.start.value as u32, f.width.value as u32),
            f.start.value,
            f.width.value,
            f.ty.name
        );
        match &f.init {
            FieldInit::None => {}
            FieldInit::Default(v) => {
                let _ = write!(out, ", default `{}`", v.text);
            }
            FieldInit::Fixed(v) => {
                let _ = write!(out, ", fixed `== {}`", v.text);
            }
        }
    }
    if let Some(o) = owner {
        let _ = write!(out, "\n\ndeclared by `{o}`");
    }
    out
}
