//! When may an operand at its default be left out? When the parser would not read the
//! next printed operand as it. Both tiers (this interpreting printer and the generated
//! `Display`) decide with [`may_read_as`], a static property of two operands of one
//! opcode, so they print identically and parsing always gives the instruction back.

use crate::model::{Model, Opcode, Operand, OperandKind, TypeKind};

/// Could a token printed for operand `next` be read by the parser as operand `k`?
/// Over-approximates the parser's `kind_fits`, so leaving `k` out is always safe.
pub fn may_read_as(model: &Model, op: &Opcode, k: &Operand, next: &Operand) -> bool {
    let OperandKind::Field(kf) = k.kind else {
        // Only field operands have defaults, so only they are ever left out.
        return true;
    };
    let kt = model.ty(op.fields[kf].ty);
    let names_of = |o: &Operand| -> Option<Vec<String>> {
        // Every name an operand can print as, when it prints as a name.
        match o.kind {
            OperandKind::Field(f) => {
                let t = model.ty(op.fields[f].ty);
                match &t.kind {
                    TypeKind::RegFile(rf) => Some(
                        (rf.lo..=rf.hi)
                            .map(|n| format!("{}{}", rf.prefix, n))
                            .chain(rf.named.iter().map(|(n, _)| n.clone()))
                            .collect(),
                    ),
                    TypeKind::Enum(vs) => Some(vs.iter().map(|v| v.name.clone()).collect()),
                    _ => None,
                }
            }
            OperandKind::Word(w) => Some(vec![model.words[w.0].name.clone()]),
            _ => None,
        }
    };
    let shape = |o: &Operand| -> u8 {
        match o.kind {
            OperandKind::Field(f) => match model.ty(op.fields[f].ty).kind {
                TypeKind::Immediate { .. } => 1,
                TypeKind::ConstMem { .. } => 2,
                _ => 0,
            },
            OperandKind::CMemIndexed { .. } => 2,
            OperandKind::RegIndexed { .. } => 3,
            OperandKind::Word(_) => 0,
        }
    };
    match &kt.kind {
        TypeKind::Immediate { .. } => shape(next) == 1,
        TypeKind::ConstMem { .. } => shape(next) == 2,
        TypeKind::RegFile(rf) => match names_of(next) {
            Some(names) => names.iter().any(|n| rf.code_of(n).is_some()),
            // A register range `R[2:3]` of the same file also reads as a register.
            None => false,
        },
        TypeKind::Enum(_) => match names_of(next) {
            Some(names) => names.iter().any(|n| kt.enum_code(n).is_some()),
            None => false,
        },
    }
}
