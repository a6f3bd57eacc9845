//! What a revision did, item by item, matched by name: opcodes added and removed,
//! fields moved, resized, retyped, fixed values and defaults changed, enum codes
//! added, removed and renumbered, register files, immediates and words changed.
//! This is the description; the verdict (`verdict.rs`) says which of it matters.

use std::collections::BTreeMap;

use isa_gen::model::{Field, Model, Opcode, Role, Type, TypeId, TypeKind};

use super::names::{by_name, Names};
use crate::doc::text::bits;

/// One change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// `opcode`, `type` or `word`.
    pub kind: &'static str,
    pub name: String,
    pub what: String,
}

fn change(kind: &'static str, name: &str, what: String) -> Change {
    Change {
        kind,
        name: name.to_string(),
        what,
    }
}

pub fn changes(on: &Names, nn: &Names) -> Vec<Change> {
    let (old, new) = (on.model, nn.model);
    let mut out = Vec::new();
    types(on, nn, &mut out);
    let olds: BTreeMap<&str, usize> = old
        .opcodes
        .iter()
        .enumerate()
        .map(|(i, o)| (o.name.as_str(), i))
        .collect();
    let news: BTreeMap<&str, usize> = new
        .opcodes
        .iter()
        .enumerate()
        .map(|(i, o)| (o.name.as_str(), i))
        .collect();
    for (name, &i) in &olds {
        match news.get(name) {
            None => out.push(change("opcode", name, "removed".into())),
            Some(&j) => opcode(on, i, nn, j, &mut out),
        }
    }
    for (name, &j) in &news {
        if !olds.contains_key(name) {
            let op = &new.opcodes[j];
            out.push(change(
                "opcode",
                name,
                format!("added, identified by {}", fixed_text(nn, op)),
            ));
        }
    }
    for w in &old.words {
        match nn.words.get(w.name.as_str()) {
            None => out.push(change("word", &w.name, "removed".into())),
            Some(n) => {
                let (a, b) = (word_text(old, w), word_text(new, n));
                if a != b {
                    out.push(change("word", &w.name, format!("{a} → {b}")));
                }
            }
        }
    }
    for n in &new.words {
        if !on.words.contains_key(n.name.as_str()) {
            out.push(change(
                "word",
                &n.name,
                format!("added: {}", word_text(new, n)),
            ));
        }
    }
    out
}

fn word_text(m: &Model, w: &isa_gen::model::OperandWord) -> String {
    format!("{} {}..{}", m.ty(w.reg_file).name, w.lo, w.hi)
}

/// `optype == BRA, stype == U`.
pub fn fixed_text(m: &Names, op: &Opcode) -> String {
    let v: Vec<String> = op
        .fields
        .iter()
        .filter_map(|f| fixed_field(m, f, false))
        .collect();
    if v.is_empty() {
        "no fixed field".into()
    } else {
        v.join(", ")
    }
}

/// `optype == BRA` for a fixed field; with `code`, `optype == BRA (0x40)` (unless the
/// value is written as its code already).
pub fn fixed_field(m: &Names, f: &Field, code: bool) -> Option<String> {
    let Role::Fixed(c) = f.role else {
        return None;
    };
    let v = m.value_text(f.ty, c);
    Some(if code && v != format!("{c:#x}") {
        format!("{} == {v} ({c:#x})", f.name)
    } else {
        format!("{} == {v}", f.name)
    })
}

fn opcode(on: &Names, i: usize, nn: &Names, j: usize, out: &mut Vec<Change>) {
    let (old, new) = (on.model, nn.model);
    let (a, b) = (&old.opcodes[i], &new.opcodes[j]);
    let name = a.name.as_str();
    let (ma, mb) = (
        isa_gen::asm::mnemonic(old, i),
        isa_gen::asm::mnemonic(new, j),
    );
    if ma != mb {
        out.push(change("opcode", name, format!("mnemonic {ma} → {mb}")));
    }
    let (fa, fb) = (
        by_name(&a.fields, |f| &f.name),
        by_name(&b.fields, |g| &g.name),
    );
    for f in &a.fields {
        let Some(g) = fb.get(f.name.as_str()) else {
            out.push(change(
                "opcode",
                name,
                format!("field `{}` removed", f.name),
            ));
            continue;
        };
        field(on, f, nn, g, name, out);
    }
    for g in &b.fields {
        if !fa.contains_key(g.name.as_str()) {
            out.push(change(
                "opcode",
                name,
                format!(
                    "field `{}` added at bits {} ({})",
                    g.name,
                    bits(g.start, g.width),
                    new.ty(g.ty).name
                ),
            ));
        }
    }
    let (oa, ob) = (operands(old, a), operands(new, b));
    if oa != ob {
        out.push(change("opcode", name, format!("operands `{oa}` → `{ob}`")));
    }
}

fn operands(m: &Model, op: &Opcode) -> String {
    op.order
        .iter()
        .map(|o| crate::doc::text::operand_text(m, op, o))
        .collect::<Vec<_>>()
        .join(", ")
}

fn field(on: &Names, f: &Field, nn: &Names, g: &Field, op: &str, out: &mut Vec<Change>) {
    let (old, new) = (on.model, nn.model);
    let n = &f.name;
    if f.start != g.start && f.width == g.width {
        out.push(change(
            "opcode",
            op,
            format!(
                "field `{n}` moved from bits {} to {}",
                bits(f.start, f.width),
                bits(g.start, g.width)
            ),
        ));
    } else if f.width != g.width {
        out.push(change(
            "opcode",
            op,
            format!(
                "field `{n}` resized from bits {} to {}",
                bits(f.start, f.width),
                bits(g.start, g.width)
            ),
        ));
    }
    let (ta, tb) = (old.ty(f.ty), new.ty(g.ty));
    if ta.name != tb.name {
        out.push(change(
            "opcode",
            op,
            format!("field `{n}` retyped from `{}` to `{}`", ta.name, tb.name),
        ));
    }
    let role = |r: Role| match r {
        Role::Fixed(_) => "fixed",
        Role::Operand => "operand",
        Role::Modifier => "modifier",
        Role::SubField(_) => "sub-field",
    };
    match (f.role, g.role) {
        (Role::Fixed(x), Role::Fixed(y)) => {
            let (x, y) = (on.value_text(f.ty, x), nn.value_text(g.ty, y));
            if x != y {
                out.push(change(
                    "opcode",
                    op,
                    format!("field `{n}` fixed value {x} → {y}"),
                ));
            } else if on.enum_code(f.ty, &x) != nn.enum_code(g.ty, &y) {
                out.push(change(
                    "opcode",
                    op,
                    format!("field `{n}` fixed to {x}, whose code changed",),
                ));
            }
        }
        (x, y) if role(x) != role(y) => out.push(change(
            "opcode",
            op,
            format!("field `{n}` was {}, is {}", role(x), role(y)),
        )),
        _ => {}
    }
    let (da, db) = (
        f.default.map(|c| on.value_text(f.ty, c)),
        g.default.map(|c| nn.value_text(g.ty, c)),
    );
    if da != db {
        let show = |d: Option<String>| d.unwrap_or_else(|| "none".into());
        out.push(change(
            "opcode",
            op,
            format!("field `{n}` default {} → {}", show(da), show(db)),
        ));
    }
}

fn types(on: &Names, nn: &Names, out: &mut Vec<Change>) {
    let (old, new) = (on.model, nn.model);
    for (i, t) in old.types.iter().enumerate() {
        let Some(j) = nn.type_id(&t.name) else {
            out.push(change("type", &t.name, "removed".into()));
            continue;
        };
        let u = new.ty(j);
        if t.width != u.width {
            out.push(change(
                "type",
                &t.name,
                format!("width {} → {}", t.width, u.width),
            ));
        }
        match (&t.kind, &u.kind) {
            (TypeKind::Enum(a), TypeKind::Enum(b)) => {
                let (na, nb) = (&on.values(TypeId(i)).by_name, &nn.values(j).by_name);
                for v in a {
                    match nb.get(v.name.as_str()) {
                        None => out.push(change(
                            "type",
                            &t.name,
                            format!("value `{}` ({:#x}) removed", v.name, v.code),
                        )),
                        Some(w) if w.code != v.code => out.push(change(
                            "type",
                            &t.name,
                            format!(
                                "value `{}` renumbered {:#x} → {:#x}",
                                v.name, v.code, w.code
                            ),
                        )),
                        Some(_) => {}
                    }
                }
                for w in b {
                    if !na.contains_key(w.name.as_str()) {
                        out.push(change(
                            "type",
                            &t.name,
                            format!("value `{}` ({:#x}) added", w.name, w.code),
                        ));
                    }
                }
            }
            (TypeKind::RegFile(a), TypeKind::RegFile(b)) => {
                let text = |r: &isa_gen::model::RegFile| {
                    let mut s = format!("{p}{}..{p}{}", r.lo, r.hi, p = r.prefix);
                    for (n, c) in &r.named {
                        s.push_str(&format!(", {n} = {c:#x}"));
                    }
                    s
                };
                if text(a) != text(b) {
                    out.push(change(
                        "type",
                        &t.name,
                        format!("register file {} → {}", text(a), text(b)),
                    ));
                }
            }
            (a, b) => {
                let (x, y) = (kind_text(t, a), kind_text(u, b));
                if x != y {
                    out.push(change("type", &t.name, format!("{x} → {y}")));
                }
            }
        }
    }
    for u in &new.types {
        if on.type_id(&u.name).is_none() {
            out.push(change(
                "type",
                &u.name,
                format!("added ({}, {} bits)", u.kind_noun(), u.width),
            ));
        }
    }
}

fn kind_text(t: &Type, k: &TypeKind) -> String {
    match k {
        TypeKind::Enum(_) => "enumeration".into(),
        TypeKind::RegFile(_) => "register file".into(),
        TypeKind::Immediate { signed } => format!(
            "{} {}-bit immediate",
            if *signed { "signed" } else { "unsigned" },
            t.width
        ),
        TypeKind::ConstMem {
            bank_bits,
            offset_bits,
            offset_signed,
        } => format!(
            "constant memory bank<{bank_bits}> offset<{offset_bits}> {}",
            if *offset_signed { "signed" } else { "unsigned" }
        ),
    }
}
