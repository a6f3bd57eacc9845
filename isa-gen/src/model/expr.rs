//! Type-checked expressions of `Bitwidth` entries and `__Exception` conditions.
//!
//! Source expressions compare fields with value names (`dtype=="U64"`, `cond!="DIV"`)
//! and do integer arithmetic on the results (`32 + (dtype=="U64")*32`). Resolution
//! binds every name to a field of the opcode, turns value names into codes of the
//! field's type, and checks types: comparisons give booleans, booleans count as 0/1
//! in arithmetic, `and`/`or`/`not` take booleans.

// A `Diagnostic` is large (its fixes and labels); these results are `Err` once per
// mistake in a spec, a cold path, where boxing would only add noise.
#![allow(clippy::result_large_err)]

use super::{Field, Model, TypeId, TypeKind};
use crate::diag::Diagnostic;
use crate::syntax::ast::{BinOp, DefKind, Expr, UnOp};

/// A resolved expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CExpr {
    Int(i128),
    /// The raw code of the field at this index.
    Field(usize),
    /// A value of an enum type (`U64` of `MATCHDType`), as its code.
    Value(TypeId, u128),
    Not(Box<CExpr>),
    Neg(Box<CExpr>),
    Bin(BinOp, Box<CExpr>, Box<CExpr>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExprType {
    Int,
    Bool,
    /// A field or value of an enum type: only comparable for (in)equality.
    Enum(TypeId),
}

impl CExpr {
    /// Evaluates with `value(field)` giving each field's code. Booleans are 0/1.
    /// Arithmetic saturates, so no input can overflow.
    pub fn eval(&self, value: &dyn Fn(usize) -> u128) -> i128 {
        match self {
            CExpr::Int(v) => *v,
            CExpr::Field(f) => value(*f).min(i128::MAX as u128) as i128,
            CExpr::Value(_, c) => (*c).min(i128::MAX as u128) as i128,
            CExpr::Not(e) => (e.eval(value) == 0) as i128,
            CExpr::Neg(e) => e.eval(value).saturating_neg(),
            CExpr::Bin(op, a, b) => op.apply(a.eval(value), b.eval(value)),
        }
    }

    /// Indices of the fields the expression reads.
    pub fn fields(&self, out: &mut Vec<usize>) {
        match self {
            CExpr::Field(f) => {
                if !out.contains(f) {
                    out.push(*f)
                }
            }
            CExpr::Not(e) | CExpr::Neg(e) => e.fields(out),
            CExpr::Bin(_, a, b) => {
                a.fields(out);
                b.fields(out);
            }
            CExpr::Int(_) | CExpr::Value(..) => {}
        }
    }

    pub fn as_const(&self) -> Option<i128> {
        match self {
            CExpr::Int(v) => Some(*v),
            _ => None,
        }
    }
}

/// Where an expression is resolved: the fields of one opcode, and the kind of
/// definition the expression is written in (an optype's `Bitwidth` is checked against
/// each of its opcodes, but its errors speak of the optype).
pub struct Scope<'a> {
    pub model: &'a Model,
    pub fields: &'a [Field],
    pub owner: DefKind,
}

/// What a name resolved to before its context is known.
enum Operand {
    Typed(CExpr, ExprType),
    /// A string or a name that is not a field: a value name awaiting a comparison.
    ValueName(String, crate::source::Span),
}

/// Resolves `e` against the fields of one opcode.
pub fn resolve(sc: &Scope, e: &Expr) -> Result<(CExpr, ExprType), Diagnostic> {
    match operand(sc, e)? {
        Operand::Typed(c, t) => Ok((c, t)),
        Operand::ValueName(name, span) => {
            let mut d = Diagnostic::error(
                span,
                format!("`{name}` is not a field of this {}", sc.owner.noun()),
            )
            .with_note("compare a field with a value, e.g. `dtype == \"U64\"`");
            if let Some(s) =
                crate::suggest::nearest(&name, sc.fields.iter().map(|f| f.name.as_str()))
            {
                d = d.did_you_mean(span, s);
            }
            Err(d)
        }
    }
}

fn operand(sc: &Scope, e: &Expr) -> Result<Operand, Diagnostic> {
    Ok(match e {
        Expr::Int(i) => {
            Operand::Typed(
                CExpr::Int(i128::try_from(i.value).map_err(|_| {
                    Diagnostic::error(i.span, "integer too large for an expression")
                })?),
                ExprType::Int,
            )
        }
        Expr::Str(s, span) => Operand::ValueName(s.clone(), *span),
        Expr::Name(id) => match sc.fields.iter().position(|f| f.name == id.name) {
            Some(f) => {
                let ty = sc.fields[f].ty;
                let t = match sc.model.ty(ty).kind {
                    TypeKind::Enum(_) => ExprType::Enum(ty),
                    _ => ExprType::Int,
                };
                Operand::Typed(CExpr::Field(f), t)
            }
            None => Operand::ValueName(id.name.clone(), id.span),
        },
        Expr::Unary(op, inner, span) => {
            let (c, t) = resolve(sc, inner)?;
            match (op, t) {
                (UnOp::Not, ExprType::Bool) => {
                    Operand::Typed(CExpr::Not(Box::new(c)), ExprType::Bool)
                }
                (UnOp::Neg, ExprType::Int | ExprType::Bool) => {
                    Operand::Typed(CExpr::Neg(Box::new(c)), ExprType::Int)
                }
                (UnOp::Not, _) => return Err(Diagnostic::error(*span, "`not` needs a condition")),
                (UnOp::Neg, _) => return Err(Diagnostic::error(*span, "`-` needs a number")),
            }
        }
        Expr::Binary(op, a, b) => {
            let span = e.span();
            match op {
                BinOp::Eq | BinOp::Ne => {
                    let a = operand(sc, a)?;
                    let b = operand(sc, b)?;
                    let (ca, cb) = compare_pair(sc, a, b, span)?;
                    Operand::Typed(CExpr::Bin(*op, Box::new(ca), Box::new(cb)), ExprType::Bool)
                }
                BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
                    let ca = numeric(sc, a)?;
                    let cb = numeric(sc, b)?;
                    Operand::Typed(CExpr::Bin(*op, Box::new(ca), Box::new(cb)), ExprType::Bool)
                }
                BinOp::Add | BinOp::Sub | BinOp::Mul => {
                    let ca = numeric(sc, a)?;
                    let cb = numeric(sc, b)?;
                    Operand::Typed(CExpr::Bin(*op, Box::new(ca), Box::new(cb)), ExprType::Int)
                }
                BinOp::And | BinOp::Or => {
                    let ca = boolean(sc, a)?;
                    let cb = boolean(sc, b)?;
                    Operand::Typed(CExpr::Bin(*op, Box::new(ca), Box::new(cb)), ExprType::Bool)
                }
            }
        }
    })
}

/// An integer or a boolean (counted as 0/1).
fn numeric(sc: &Scope, e: &Expr) -> Result<CExpr, Diagnostic> {
    let (c, t) = resolve(sc, e)?;
    match t {
        ExprType::Int | ExprType::Bool => Ok(c),
        ExprType::Enum(ty) => Err(Diagnostic::error(
            e.span(),
            format!(
                "a `{}` value is not a number; compare it, e.g. `(field == \"VALUE\")`",
                sc.model.ty(ty).name
            ),
        )),
    }
}

fn boolean(sc: &Scope, e: &Expr) -> Result<CExpr, Diagnostic> {
    let (c, t) = resolve(sc, e)?;
    match t {
        ExprType::Bool => Ok(c),
        _ => Err(Diagnostic::error(
            e.span(),
            "`and`/`or` need conditions (comparisons) on both sides",
        )),
    }
}

fn compare_pair(
    sc: &Scope,
    a: Operand,
    b: Operand,
    span: crate::source::Span,
) -> Result<(CExpr, CExpr), Diagnostic> {
    match (a, b) {
        (Operand::Typed(ca, ta), Operand::Typed(cb, tb)) => match (ta, tb) {
            (ExprType::Enum(x), ExprType::Enum(y)) if x != y => Err(Diagnostic::error(
                span,
                format!(
                    "cannot compare a `{}` with a `{}`",
                    sc.model.ty(x).name,
                    sc.model.ty(y).name
                ),
            )),
            (ExprType::Enum(_), ExprType::Int | ExprType::Bool)
            | (ExprType::Int | ExprType::Bool, ExprType::Enum(_)) => Err(Diagnostic::error(
                span,
                "compare a bit-field value with a value name, not a number",
            )),
            _ => Ok((ca, cb)),
        },
        (Operand::Typed(c, t), Operand::ValueName(name, vspan))
        | (Operand::ValueName(name, vspan), Operand::Typed(c, t)) => {
            let v = value_of(sc, &c, t, &name, vspan)?;
            Ok((c, v))
        }
        (Operand::ValueName(name, s), Operand::ValueName(..)) => Err(Diagnostic::error(
            s,
            format!("`{name}` is not a field of this {}", sc.owner.noun()),
        )),
    }
}

/// The code of value `name` for a comparison with the typed side `c`.
fn value_of(
    sc: &Scope,
    c: &CExpr,
    t: ExprType,
    name: &str,
    span: crate::source::Span,
) -> Result<CExpr, Diagnostic> {
    match t {
        ExprType::Enum(ty) => {
            let tdef = sc.model.ty(ty);
            match tdef.enum_code(name) {
                Some(code) => Ok(CExpr::Value(ty, code)),
                None => Err(Diagnostic::error(
                    span,
                    format!("`{name}` is not a value of `{}`", tdef.name),
                )
                .with_note(format!(
                    "values of `{}`: {}",
                    tdef.name,
                    list_values(tdef.enum_values().unwrap_or(&[]))
                ))),
            }
        }
        _ => {
            // A register field compared with a register name (`pp == PT`) or a number.
            if let CExpr::Field(f) = c {
                if let Some(rf) = sc
                    .fields
                    .get(*f)
                    .and_then(|fd| sc.model.ty(fd.ty).reg_file())
                {
                    if let Some(code) = rf.code_of(name) {
                        return Ok(CExpr::Int(code as i128));
                    }
                }
                if let Some(code) = crate::syntax::lexer::parse_int(name) {
                    return Ok(CExpr::Int(code as i128));
                }
            }
            Err(Diagnostic::error(
                span,
                format!("`{name}` cannot be compared with a number"),
            ))
        }
    }
}

pub(crate) fn list_values(values: &[super::EnumValue]) -> String {
    let mut s = values
        .iter()
        .take(24)
        .map(|v| v.name.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    if values.len() > 24 {
        s.push_str(&format!(", … ({} in all)", values.len()));
    }
    s
}
