//! `inst!`: one instruction in assembly syntax, checked against the spec when the
//! macro expands, built as a constant of the opcode's struct.
//!
//! The tokens are turned back into an assembly line ([`crate::line`]) and assembled by
//! the model-driven assembler of isa-gen. Each interpolated value gets a placeholder of
//! some operand kind; every combination of placeholders is tried, so the opcode form is
//! the one the written operands select (`UIADD {acc}, {acc}, 0x1` is the immediate
//! form, whatever `{acc}` is). When two forms accept the line, the value that decides
//! between them must say its type (`{val: UReg}`). On success the macro emits the
//! encoded word, decoded by the generated `decode_fields` in a `const`, then assigns
//! each interpolated value to its field, so rustc checks its type at the expression.

use std::collections::BTreeMap;
use std::ops::Range;

use isa_gen::asm::Assembler;
use isa_gen::model::interp::Decoded;
use isa_gen::model::{Model, OperandKind, Role, TypeId, TypeKind};
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};

use crate::line::{self, err, HoleKind, Line};

/// Most placeholder combinations tried for one instruction.
const MAX_COMBINATIONS: usize = 50_000;

/// A placeholder for a hole: its text and the type it stands for.
#[derive(Clone)]
struct Candidate {
    text: String,
    ty: TypeId,
}

/// The line assembled, with the field each hole went to.
pub struct Assembled {
    pub decoded: Decoded,
    /// For each written operand, the `Order` operand (without the guard) it was read as.
    pub read_as: Vec<usize>,
    /// For each hole, the field it sets.
    pub fields: Vec<usize>,
}

/// The name of a type as Rust code names it.
fn rust_name(model: &Model, t: TypeId) -> String {
    isa_gen::codegen::names::type_name(&model.ty(t).name)
}

/// Placeholder texts of a type: a register (single, pair, quad), a number, constant
/// memory, or a value name.
fn texts(model: &Model, t: TypeId) -> Vec<String> {
    match &model.ty(t).kind {
        TypeKind::RegFile(rf) => vec![
            format!("{}{}", rf.prefix, rf.lo),
            format!("{}[{}:{}]", rf.prefix, rf.lo, rf.lo + 1),
            format!("{}[{}:{}]", rf.prefix, rf.lo, rf.lo + 3),
        ],
        TypeKind::Immediate { .. } => vec!["0x0".into()],
        TypeKind::ConstMem { .. } => vec!["c[0x0][0x0]".into()],
        TypeKind::Enum(vs) => vs.first().map(|v| vec![v.name.clone()]).unwrap_or_default(),
    }
}

/// The opcodes a line's mnemonic may stand for: those whose mnemonic starts with the
/// line's first word.
fn opcodes_of(model: &Model, text: &str) -> Vec<usize> {
    let mut words = text.split_whitespace();
    let mut head = words.next().unwrap_or("");
    if head.starts_with('@') {
        head = words.next().unwrap_or("");
    }
    let first = head.split('.').next().unwrap_or("");
    (0..model.opcodes.len())
        .filter(|&i| isa_gen::asm::mnemonic(model, i).split('.').next() == Some(first))
        .collect()
}

/// The types a hole may stand for, by where it is and what its annotation says.
fn candidates(
    model: &Model,
    text: &str,
    kind: HoleKind,
    ty: Option<&syn::Type>,
) -> Result<Vec<Candidate>, String> {
    let ops = opcodes_of(model, text);
    let mut types: Vec<TypeId> = Vec::new();
    let mut add = |t: TypeId| {
        if !types.contains(&t) {
            types.push(t);
        }
    };
    match kind {
        HoleKind::Guard => {
            for &i in &ops {
                let op = &model.opcodes[i];
                if let Some(g) = op.guard(model) {
                    add(op.fields[g].ty);
                }
            }
        }
        HoleKind::Modifier => {
            for &i in &ops {
                for f in &model.opcodes[i].fields {
                    if f.role == Role::Modifier {
                        add(f.ty);
                    }
                }
            }
        }
        HoleKind::Operand(_) => {
            // Registers first, then numbers, constant memory and value names.
            let mut all: Vec<TypeId> = Vec::new();
            for &i in &ops {
                let op = &model.opcodes[i];
                for f in op.operand_fields() {
                    let t = op.fields[f].ty;
                    if !all.contains(&t) {
                        all.push(t);
                    }
                }
            }
            let rank = |t: &TypeId| match model.ty(*t).kind {
                TypeKind::RegFile(_) => 0,
                TypeKind::Immediate { .. } => 1,
                TypeKind::ConstMem { .. } => 2,
                TypeKind::Enum(_) => 3,
            };
            all.sort_by_key(rank);
            for t in all {
                add(t);
            }
        }
    }
    if let Some(ty) = ty {
        let name = match ty {
            syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
            _ => None,
        };
        let Some(name) = name else {
            return Err("write the type by name, e.g. `{rd: Reg}`".into());
        };
        let known: Vec<String> = types.iter().map(|&t| rust_name(model, t)).collect();
        types.retain(|&t| rust_name(model, t) == name);
        if types.is_empty() {
            return Err(
                if model
                    .types
                    .iter()
                    .any(|t| isa_gen::codegen::names::type_name(&t.name) == name)
                {
                    format!(
                        "a `{name}` does not go here; this place takes {}",
                        list(&known)
                    )
                } else {
                    format!(
                        "`{name}` is not a type of this ISA; this place takes {}",
                        list(&known)
                    )
                },
            );
        }
    }
    Ok(types
        .into_iter()
        .flat_map(|t| {
            texts(model, t)
                .into_iter()
                .map(move |text| Candidate { text, ty: t })
        })
        .collect())
}

fn list(names: &[String]) -> String {
    match names {
        [] => "nothing".into(),
        [one] => format!("a `{one}`"),
        _ => {
            let quoted: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
            format!("one of {}", quoted.join(", "))
        }
    }
}

/// For each hole: its marker's range in the token line, its placeholder's in the text.
type Moved = Vec<(Range<usize>, Range<usize>)>;

/// Fills the holes of `line` with the chosen placeholders; returns the text and where
/// each placeholder went.
fn fill(line: &Line, choice: &[&Candidate]) -> (String, Moved) {
    let mut out = String::new();
    let mut ranges = Vec::new();
    let mut last = 0;
    for (h, c) in line.holes.iter().zip(choice) {
        out.push_str(&line.text[last..h.range.start]);
        let start = out.len();
        out.push_str(&c.text);
        ranges.push((h.range.clone(), start..out.len()));
        last = h.range.end;
    }
    out.push_str(&line.text[last..]);
    (out, ranges)
}

/// The field hole `k` of an assembled line went to.
fn hole_field(
    asm: &Assembler,
    line: &Line,
    k: usize,
    d: &Decoded,
    read_as: &[usize],
    ty: TypeId,
) -> Result<usize, String> {
    let model = asm.model;
    let op = &model.opcodes[d.opcode];
    match line.holes[k].kind {
        HoleKind::Guard => op.guard(model).ok_or_else(|| "the instruction has no guard".into()),
        HoleKind::Modifier => op
            .fields
            .iter()
            .position(|f| f.role == Role::Modifier && f.ty == ty)
            .ok_or_else(|| "no modifier of that type".into()),
        HoleKind::Operand(w) => match read_as.get(w).map(|&o| asm.operands(d.opcode)[o].kind) {
            Some(OperandKind::Field(f)) => Ok(f),
            _ => Err("only an operand of a single field can be interpolated (write composite operands out, e.g. `c[0x0][UR4+0x10]`)".into()),
        },
    }
}

/// Assembles a line with holes at address 0, trying every combination of placeholders;
/// `labels` resolves label references (block form).
pub fn assemble(
    asm: &Assembler,
    line: &Line,
    labels: &dyn Fn(&str) -> Option<u64>,
) -> syn::Result<Assembled> {
    let model = asm.model;
    let mut choices: Vec<Vec<Candidate>> = Vec::new();
    for h in &line.holes {
        let c = candidates(model, &line.text, h.kind, h.ty.as_ref()).map_err(|e| err(h.span, e))?;
        if c.is_empty() {
            return Err(err(
                h.span,
                "nothing of this instruction can be interpolated here",
            ));
        }
        choices.push(c);
    }
    let total = choices
        .iter()
        .try_fold(1usize, |a, c| a.checked_mul(c.len()))
        .filter(|&n| n <= MAX_COMBINATIONS);
    let Some(total) = total else {
        return Err(err(
            line.holes[0].span,
            "too many interpolated values without a type to try every combination: write their types, e.g. `{x: Reg}`",
        ));
    };
    // Each accepted combination, by what it means: opcode and the holes' fields and types.
    type Meaning = (usize, Vec<(usize, TypeId)>);
    let mut accepted: BTreeMap<Meaning, (Decoded, Vec<usize>)> = BTreeMap::new();
    // The error that got furthest into the line, to report when nothing is accepted.
    let mut best: Option<(usize, isa_gen::asm::AsmError, Moved)> = None;
    for n in 0..total {
        let mut rest = n;
        let choice: Vec<&Candidate> = choices
            .iter()
            .map(|c| {
                let pick = &c[rest % c.len()];
                rest /= c.len();
                pick
            })
            .collect();
        let (text, ranges) = fill(line, &choice);
        match asm.parse_line_mapped(&text, 0, labels) {
            Ok((d, read_as)) => {
                let mut fields = Vec::new();
                for (k, c) in choice.iter().enumerate() {
                    let f = hole_field(asm, line, k, &d, &read_as, c.ty)
                        .map_err(|e| err(line.holes[k].span, e))?;
                    fields.push((f, c.ty));
                }
                accepted.entry((d.opcode, fields)).or_insert((d, read_as));
            }
            Err(e) => {
                if best.as_ref().is_none_or(|b| e.span.start > b.0) {
                    best = Some((e.span.start, e, ranges));
                }
            }
        }
    }
    let mut meanings = accepted.into_iter();
    let Some(((opcode, fields), (decoded, read_as))) = meanings.next() else {
        let (_, e, ranges) = best.expect("at least one combination was tried");
        // Map byte offsets of the filled line back to the token line.
        let shift = |at: usize| -> usize {
            let mut delta: isize = 0;
            for (orig, new) in &ranges {
                if at >= new.end {
                    delta += orig.len() as isize - new.len() as isize;
                } else if at >= new.start {
                    return orig.start;
                }
            }
            (at as isize + delta).max(0) as usize
        };
        let mut msg = e.message.clone();
        for n in &e.notes {
            msg.push_str(&format!(" ({n})"));
        }
        return Err(err(
            line.span_for(shift(e.span.start)..shift(e.span.end)),
            msg,
        ));
    };
    if let Some(((other, other_fields), _)) = meanings.next() {
        // The first hole whose meaning differs decides.
        let k = (0..fields.len())
            .find(|&k| fields[k] != other_fields[k])
            .unwrap_or(0);
        let (a, b) = (fields[k].1, other_fields[k].1);
        let msg = if a != b {
            format!(
                "ambiguous: this value could be a `{}` ({}) or a `{}` ({}); write its type, e.g. `{{x: {}}}`",
                rust_name(model, a),
                model.opcodes[opcode].name,
                rust_name(model, b),
                model.opcodes[other].name,
                rust_name(model, a)
            )
        } else {
            format!(
                "ambiguous: the line could be `{}` or `{}`; write the operands that tell them apart",
                model.opcodes[opcode].name, model.opcodes[other].name
            )
        };
        return Err(err(line.holes[k].span, msg));
    }
    Ok(Assembled {
        decoded,
        read_as,
        fields: fields.into_iter().map(|(f, _)| f).collect(),
    })
}

/// The constant of the opcode's struct holding `word`, and the struct's path.
pub fn constant(
    model: &Model,
    root: &syn::Path,
    opcode: usize,
    word: u128,
) -> (TokenStream, TokenStream) {
    let ty = format_ident!(
        "{}",
        isa_gen::codegen::names::type_name(&model.opcodes[opcode].name)
    );
    let word_lit = syn::LitInt::new(&format!("{word:#x}u128"), Span::call_site());
    let ty = quote! { #root::#ty };
    let build = quote! {
        match #ty::decode_fields(#word_lit) {
            ::core::result::Result::Ok(i) => i,
            ::core::result::Result::Err(_) => panic!("inst!: the assembled word does not decode"),
        }
    };
    (ty, build)
}

/// The assignments of the holes' values to their fields of `inst`.
pub fn assignments(
    model: &Model,
    line: &Line,
    a: &Assembled,
    inst: &syn::Ident,
) -> Vec<TokenStream> {
    let op = &model.opcodes[a.decoded.opcode];
    line.holes
        .iter()
        .zip(&a.fields)
        .map(|(h, &f)| {
            let fid = format_ident!(
                "{}",
                isa_gen::codegen::names::field_name(&op.fields[f].name)
            );
            let expr = &h.expr;
            quote_spanned! {h.span=> #inst.#fid = #expr; }
        })
        .collect()
}

/// `inst!(…)` for the spec and generated API `root`.
pub fn inst(asm: &Assembler, root: &syn::Path, input: TokenStream) -> syn::Result<TokenStream> {
    let model = asm.model;
    let line = line::parse(input, false)?;
    let a = assemble(asm, &line, &|_| None)?;
    let word = model.encode(&a.decoded);
    let (ty, build) = constant(model, root, a.decoded.opcode, word);
    if line.holes.is_empty() {
        return Ok(quote! {{
            const INST: #ty = #build;
            INST
        }});
    }
    let inst = syn::Ident::new("inst", Span::mixed_site());
    let sets = assignments(model, &line, &a, &inst);
    Ok(quote! {{
        let mut #inst: #ty = const { #build };
        #( #sets )*
        #inst
    }})
}
