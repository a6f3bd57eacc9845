//! Compiling an opcode's rows into the pieces the printer runs (see [`Piece`]).

use alloc::vec::Vec;

use super::NO_FIELD;
use crate::table::{Addr, Count, OperandKind, OperandRow, Piece, Run, SubRole, Tables, TypeKind};

/// Compiles the plan of every opcode of `t` (what [`Tables::plans`] and
/// [`Tables::pieces`] hold): the pieces of its line in printing order, the guard, the
/// mnemonic, the modifiers, then each operand (its start, its prefixes in the order of
/// its sub-fields' rows, its body, its suffixes). The rules of printing are here and in
/// the printer; the rows say only what an opcode has.
pub fn plan(t: &Tables) -> (Vec<Run>, Vec<Piece>) {
    let mut plans = Vec::with_capacity(t.opcodes.len());
    let mut pieces = Vec::new();
    for op in t.opcodes {
        let at = pieces.len();
        let fields = op.fields.of(t.fields);
        let field = |f: u16| fields.get(f as usize).unwrap_or(&NO_FIELD);
        let place = |f: u16| field(f).at.inside();
        if let Some(g) = op.guard {
            let r = field(g.field);
            pieces.push(Piece::Guard {
                at: r.at.inside(),
                default: r.default,
                not: g.not.map(|(f, set)| (place(f), set)),
                field: g.field,
                names: r.names,
            });
        }
        pieces.push(Piece::Text(op.mnemonic));
        for &m in op.mods.of(t.indices) {
            let r = field(m);
            pieces.push(Piece::Mod {
                at: r.at.inside(),
                default: r.default,
                field: m,
                names: r.names,
            });
        }
        let ops = op.operands.of(t.operands);
        let is_optional = |r: &OperandRow| super::optional(fields, r).is_some();
        let mut optional = ops.iter().filter(|r| is_optional(r)).count();
        for (k, r) in ops.iter().enumerate() {
            let start = pieces.len();
            pieces.push(Piece::Sep {
                // Past 128 optional operands print anyway, as required ones do.
                optional: if is_optional(r) {
                    optional -= 1;
                    optional.min(u16::MAX as usize) as u16
                } else {
                    u16::MAX
                },
                len: 0,
            });
            let subs = r.subs.of(t.subs);
            // Prefixes in the order of the rows (`!`, then `-`/`~`, then `~`: the
            // order `SubRole::rank` gives, which the tables keep).
            for s in subs {
                let (at, set) = (place(s.field), s.set);
                pieces.push(match s.role {
                    SubRole::Suffix => continue,
                    SubRole::Not => Piece::Prefix {
                        at,
                        set,
                        symbol: b'!',
                    },
                    SubRole::Neg { ext: Some((e, x)) } => Piece::NegExt {
                        at,
                        set,
                        ext: place(e),
                        x,
                    },
                    SubRole::Neg { ext: None } => Piece::Prefix {
                        at,
                        set,
                        symbol: b'-',
                    },
                    SubRole::BitNot => Piece::Prefix {
                        at,
                        set,
                        symbol: b'~',
                    },
                });
            }
            let kind = |f: u16| t.types.get(field(f).ty as usize).map(|t| t.kind);
            pieces.push(match r.kind {
                OperandKind::Field(f) => match kind(f) {
                    Some(TypeKind::Reg { .. }) if matches!(r.count, Count::Fixed(n) if n <= 1) => {
                        Piece::Name {
                            at: place(f),
                            field: f,
                            names: field(f).names,
                        }
                    }
                    Some(TypeKind::Enum) | None => Piece::Name {
                        at: place(f),
                        field: f,
                        names: field(f).names,
                    },
                    Some(TypeKind::Imm { signed, width }) if r.addr == Addr::None => {
                        Piece::Number {
                            at: place(f),
                            signed: if signed { width } else { 0 },
                        }
                    }
                    _ => Piece::Operand {
                        operand: k.min(u16::MAX as usize) as u16,
                    },
                },
                _ => Piece::Operand {
                    operand: k.min(u16::MAX as usize) as u16,
                },
            });
            for s in subs.iter().filter(|s| s.role == SubRole::Suffix) {
                let r = field(s.field);
                pieces.push(Piece::Suffix {
                    at: r.at.inside(),
                    default: r.default,
                    field: s.field,
                    names: r.names,
                });
            }
            let n = (pieces.len() - start - 1).min(u16::MAX as usize) as u16;
            if let Some(Piece::Sep { len, .. }) = pieces.get_mut(start) {
                *len = n;
            }
        }
        plans.push(Run {
            at: at as u32,
            len: (pieces.len() - at) as u32,
        });
    }
    (plans, pieces)
}
