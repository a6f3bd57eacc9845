//! `isa json [SPEC...] [-o FILE]`: the resolved model as JSON, for tools that want the
//! spec without parsing the DSL. The format is documented in `docs/json-schema.md`
//! and described by the JSON Schema `json/isa.schema.json` (beside this file, so the
//! package ships it); [`SCHEMA_VERSION`] is in every document and changes whenever a
//! change could break a reader.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use isa_gen::asm::Assembler;
use isa_gen::model::{AsmFormat, CExpr, Model, Opcode, OperandKind, Role, Type, TypeKind};
use isa_gen::source::{SourceMap, Span};
use isa_gen::syntax::ast::{BinOp, DocKind, DocSection};
use isa_gen::Checked;
use serde_json::{json, Map, Value};

use crate::doc::examples::{self, Outcome};
use crate::doc::text;

/// Version of the JSON format: 1 is the format of `docs/json-schema.md`.
pub const SCHEMA_VERSION: u64 = 3;

/// The JSON Schema of the output (json/isa.schema.json).
#[cfg(test)]
pub const SCHEMA: &str = include_str!("json/isa.schema.json");

/// `isa json [SPEC...] [-o FILE]`.
pub fn run(paths: &[PathBuf], output: Option<&Path>) -> Result<ExitCode, String> {
    let report = crate::spec::check(
        paths,
        &Default::default(),
        crate::spec::Show::Errors,
        Default::default(),
    )?;
    let Some(doc) = document(&report.checked) else {
        errln!("{}", report.summary());
        return Ok(ExitCode::from(1));
    };
    let mut text = serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())?;
    text.push('\n');
    match output {
        Some(out) if out != Path::new("-") => {
            crate::spec::refuse_inputs(out, paths)?;
            std::fs::write(out, text).map_err(|e| format!("{}: {e}", out.display()))?;
            errln!("{}; wrote {}", report.summary(), out.display());
        }
        _ => std::io::stdout()
            .write_all(text.as_bytes())
            .map_err(|e| e.to_string())?,
    }
    Ok(ExitCode::SUCCESS)
}

/// The whole document, or None when the spec has errors (no model).
pub fn document(checked: &Checked) -> Option<Value> {
    let model = checked.model.as_ref()?;
    let cx = Cx {
        model,
        sources: &checked.sources,
        asm: Assembler::new(model),
        checked,
    };
    let s = model.summary();
    Some(json!({
        "schema_version": SCHEMA_VERSION,
        "generator": { "name": "isa", "version": env!("CARGO_PKG_VERSION") },
        "files": checked.sources.files().map(|(_, f)| json!(f.name)).collect::<Vec<_>>(),
        "summary": {
            "types": s.types,
            "groups": s.groups,
            "optypes": s.optypes,
            "opcodes": s.opcodes,
            "examples_assembled": checked.examples.assembled,
            "examples_explained": checked.examples.warned,
        },
        "types": model.types.iter().map(|t| cx.ty(t)).collect::<Vec<_>>(),
        "operand_words": model.words.iter().map(|w| json!({
            "name": w.name,
            "reg_file": model.ty(w.reg_file).name,
            "lo": num(w.lo),
            "hi": num(w.hi),
            "span": cx.span(w.span),
        })).collect::<Vec<_>>(),
        "definitions": model.defs.iter().map(|d| json!({
            "name": d.name,
            "kind": d.kind.noun(),
            "parents": d.parents.iter().map(|p| json!(model.def(*p).name)).collect::<Vec<_>>(),
            "span": cx.span(d.span),
            "docs": d.docs.iter().map(|s| cx.doc(s)).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "opcodes": (0..model.opcodes.len()).map(|i| cx.opcode(i)).collect::<Vec<_>>(),
        "diagnostics": checked.diagnostics.items.iter().map(|d| json!({
            "severity": if d.is_error() { "error" } else { "warning" },
            "message": d.message,
            "label": d.label,
            "notes": d.notes,
            "span": cx.span(d.span),
        })).collect::<Vec<_>>(),
    }))
}

struct Cx<'a> {
    model: &'a Model,
    sources: &'a SourceMap,
    asm: Assembler<'a>,
    checked: &'a Checked,
}

/// A code: every type is at most 64 bits wide, so every code fits a u64.
fn num(v: u128) -> Value {
    json!(u64::try_from(v).expect("codes fit in 64 bits (types are at most 64 bits wide)"))
}

fn hex128(v: u128) -> Value {
    json!(format!("{v:#034x}"))
}

fn kind_key(k: DocKind) -> &'static str {
    match k {
        DocKind::Syntax => "syntax",
        DocKind::Description => "description",
        DocKind::OperandInfo => "operands",
        DocKind::ModifierInfo => "modifiers",
        DocKind::Semantics => "semantics",
        DocKind::Examples => "examples",
    }
}

fn op_name(o: BinOp) -> &'static str {
    o.symbol()
}

impl Cx<'_> {
    fn span(&self, s: Span) -> Value {
        let loc = self.sources.location(s);
        json!({
            "file": loc.file,
            "line": loc.line,
            "column": loc.column,
            "start": s.start,
            "end": s.end,
        })
    }

    fn ty(&self, t: &Type) -> Value {
        let mut m = Map::new();
        m.insert("name".into(), json!(t.name));
        m.insert("kind".into(), json!(text::type_kind_name(t)));
        m.insert("width".into(), json!(t.width));
        match &t.kind {
            TypeKind::Enum(vs) => {
                m.insert(
                    "values".into(),
                    vs.iter()
                        .map(|v| json!({"name": v.name, "code": num(v.code), "span": self.span(v.span)}))
                        .collect(),
                );
            }
            TypeKind::RegFile(r) => {
                m.insert("prefix".into(), json!(r.prefix));
                m.insert("lo".into(), num(r.lo));
                m.insert("hi".into(), num(r.hi));
                m.insert("per_lane".into(), json!(r.per_lane));
                m.insert(
                    "named".into(),
                    r.named
                        .iter()
                        .map(|(n, c)| json!({"name": n, "code": num(*c)}))
                        .collect(),
                );
            }
            TypeKind::Immediate { signed } => {
                m.insert("signed".into(), json!(signed));
            }
            TypeKind::ConstMem {
                bank_bits,
                offset_bits,
                offset_signed,
            } => {
                m.insert("bank_bits".into(), json!(bank_bits));
                m.insert("offset_bits".into(), json!(offset_bits));
                m.insert("offset_signed".into(), json!(offset_signed));
            }
        }
        m.insert("span".into(), self.span(t.span));
        Value::Object(m)
    }

    fn value(&self, t: &Type, code: u128) -> Value {
        json!({"code": num(code), "text": text::value_text(t, code)})
    }

    fn doc(&self, d: &DocSection) -> Value {
        let examples = examples::section(self.model, &self.asm, &self.checked.diagnostics, d);
        let blocks: Vec<Value> = d
            .code_blocks
            .iter()
            .map(|b| {
                let lines: Vec<Value> = b
                    .lines
                    .iter()
                    .map(|l| {
                        let mut m = Map::new();
                        m.insert("text".into(), json!(l.text));
                        m.insert("span".into(), self.span(l.span));
                        if d.kind == DocKind::Examples {
                            let ex = examples
                                .iter()
                                .find(|e| std::ptr::eq(e.line, l))
                                .map(|e| &e.outcome);
                            m.insert("assembly".into(), self.outcome(ex));
                        }
                        Value::Object(m)
                    })
                    .collect();
                json!({"lang": b.lang, "lines": lines, "span": self.span(b.span)})
            })
            .collect();
        json!({
            "kind": kind_key(d.kind),
            "title": d.kind.title(),
            "text": d.text,
            "span": self.span(d.span),
            "code_blocks": blocks,
        })
    }

    fn outcome(&self, o: Option<&Outcome>) -> Value {
        match o {
            None | Some(Outcome::NoInstruction) => Value::Null,
            Some(Outcome::Assembled {
                addr,
                opcode,
                word,
                warnings,
            }) => json!({
                "status": "assembled",
                "address": addr,
                "opcode": self.model.opcodes[*opcode].name,
                "word": hex128(*word),
                "warnings": warnings,
            }),
            Some(Outcome::Rejected { reasons }) => json!({
                "status": "rejected",
                "reasons": reasons,
            }),
        }
    }

    fn expr(&self, op: &Opcode, e: &CExpr) -> Value {
        match e {
            CExpr::Int(v) => {
                json!({"op": "int", "value": i64::try_from(*v).unwrap_or(if *v < 0 { i64::MIN } else { i64::MAX })})
            }
            CExpr::Field(f) => json!({"op": "field", "field": op.fields[*f].name}),
            CExpr::Value(t, c) => {
                let ty = self.model.ty(*t);
                json!({"op": "value", "type": ty.name, "code": num(*c), "name": text::value_text(ty, *c)})
            }
            CExpr::Not(a) => json!({"op": "not", "arg": self.expr(op, a)}),
            CExpr::Neg(a) => json!({"op": "neg", "arg": self.expr(op, a)}),
            CExpr::Bin(o, a, b) => {
                json!({"op": op_name(*o), "lhs": self.expr(op, a), "rhs": self.expr(op, b)})
            }
        }
    }

    fn opcode(&self, i: usize) -> Value {
        let model = self.model;
        let op = &model.opcodes[i];
        let guard = op.guard(model);
        let fields: Vec<Value> = op
            .fields
            .iter()
            .map(|f| {
                let t = model.ty(f.ty);
                let mut m = Map::new();
                m.insert("name".into(), json!(f.name));
                m.insert("start".into(), json!(f.start));
                m.insert("width".into(), json!(f.width));
                m.insert("type".into(), json!(t.name));
                m.insert("role".into(), json!(text::role_name(f.role)));
                m.insert(
                    "fixed".into(),
                    match f.role {
                        Role::Fixed(c) => self.value(t, c),
                        _ => Value::Null,
                    },
                );
                m.insert(
                    "default".into(),
                    f.default.map_or(Value::Null, |c| self.value(t, c)),
                );
                m.insert(
                    "attached_to".into(),
                    match f.role {
                        Role::SubField(b) => json!(op.fields[b].name),
                        _ => Value::Null,
                    },
                );
                m.insert("origin".into(), json!(model.def(f.origin).name));
                m.insert("span".into(), self.span(f.span));
                Value::Object(m)
            })
            .collect();
        let operands: Vec<Value> = op
            .order
            .iter()
            .enumerate()
            .map(|(pos, o)| {
                let (inp, out) = text::operand_in_out(op, o);
                let mut m = Map::new();
                m.insert("position".into(), json!(pos));
                let kind = match o.kind {
                    OperandKind::Field(_) => "field",
                    OperandKind::CMemIndexed { .. } => "cmem_indexed",
                    OperandKind::RegIndexed { .. } => "reg_indexed",
                    OperandKind::Word(_) => "word",
                };
                m.insert("kind".into(), json!(kind));
                m.insert("text".into(), json!(text::operand_text(model, op, o)));
                m.insert(
                    "fields".into(),
                    text::operand_fields(o)
                        .iter()
                        .map(|&f| json!(op.fields[f].name))
                        .collect(),
                );
                m.insert(
                    "guard".into(),
                    json!(matches!(o.kind, OperandKind::Field(f) if Some(f) == guard)),
                );
                m.insert("in".into(), json!(inp));
                m.insert("out".into(), json!(out));
                m.insert("optional".into(), json!(text::operand_optional(op, o)));
                let bw = match o.kind {
                    OperandKind::Field(f) => op.bitwidth(f),
                    OperandKind::CMemIndexed { mem, .. } => op.bitwidth(mem),
                    OperandKind::RegIndexed { reg, .. } => op.bitwidth(reg),
                    OperandKind::Word(_) => None,
                };
                m.insert(
                    "bitwidth".into(),
                    bw.map_or(Value::Null, |b| json!(text::expr_text(model, op, &b.expr))),
                );
                m.insert("span".into(), self.span(o.span));
                Value::Object(m)
            })
            .collect();
        let list = |l: &[isa_gen::model::ListRef]| -> Vec<Value> {
            l.iter()
                .map(|r| json!(text::list_ref_text(model, op, r)))
                .collect()
        };
        let bitwidths: Vec<Value> = op
            .bitwidths
            .iter()
            .map(|b| {
                let cases = text::width_cases(model, op, &b.expr).map_or(Value::Null, |cs| {
                    cs.iter()
                        .map(|c| {
                            let when: Map<String, Value> = c
                                .when
                                .iter()
                                .map(|(f, v)| (op.fields[*f].name.clone(), json!(v)))
                                .collect();
                            json!({"when": when, "width": i64::try_from(c.width).unwrap_or(i64::MAX)})
                        })
                        .collect()
                });
                json!({
                    "operand": op.fields[b.field].name,
                    "text": text::expr_text(model, op, &b.expr),
                    "expr": self.expr(op, &b.expr),
                    "cases": cases,
                    "span": self.span(b.span),
                })
            })
            .collect();
        let asm_formats: Vec<Value> = op
            .asm_formats
            .iter()
            .map(|a| match *a {
                AsmFormat::IShift { field, shift } => json!({
                    "converter": "CvtIShift",
                    "field": op.fields[field].name,
                    "shift": shift,
                }),
                AsmFormat::INegX { neg, ext } => json!({
                    "converter": "CvtINegX",
                    "field": op.fields[neg].name,
                    "ext": op.fields[ext].name,
                }),
            })
            .collect();
        let exceptions: Vec<Value> = op
            .exceptions
            .iter()
            .map(|x| {
                json!({
                    "kind": x.kind,
                    "message": x.message,
                    "condition": text::expr_text(model, op, &x.cond),
                    "expr": self.expr(op, &x.cond),
                    "span": self.span(x.span),
                })
            })
            .collect();
        let docs: Vec<Value> = model
            .opcode_docs(op)
            .into_iter()
            .map(|d| {
                let owner = model
                    .defs
                    .iter()
                    .find(|def| def.docs.iter().any(|s| std::ptr::eq(s, d)))
                    .map(|def| def.name.as_str())
                    .unwrap_or(op.name.as_str());
                json!({"kind": kind_key(d.kind), "definition": owner})
            })
            .collect();
        json!({
            "name": op.name,
            "mnemonic": isa_gen::asm::mnemonic(model, i),
            "syntax": text::syntax_template(model, &self.asm, i, &isa_gen::asm::mnemonic(model, i)),
            "optype": op.optype.map_or(Value::Null, |d| json!(model.def(d).name)),
            "ancestors": op.ancestors.iter().map(|d| json!(model.def(*d).name)).collect::<Vec<_>>(),
            "fixed_mask": hex128(op.fixed_mask),
            "fixed_bits": hex128(op.fixed_bits),
            "covered": hex128(op.covered),
            "fields": fields,
            "operands": operands,
            "in_list": list(&op.in_list),
            "out_list": list(&op.out_list),
            "bitwidths": bitwidths,
            "asm_formats": asm_formats,
            "exceptions": exceptions,
            "docs": docs,
            "span": self.span(op.span),
        })
    }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod validate;
