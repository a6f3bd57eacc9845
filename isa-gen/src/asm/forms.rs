//! The model's opcodes as the one matcher reads them: each opcode an
//! [`isa_rt::asm::OpcodeSpec`] (its modifiers, guard and operands, where their bits go,
//! how names read as codes), built into an arena. The interpreting tier builds the
//! forms of a line's mnemonic and hands them to `isa_rt::asm`; the generator builds
//! every opcode's and writes them into the generated crate as constants
//! (`codegen/asm_parse.rs`), which its `Instruction::parse` hands to the same matcher.

use bumpalo::Bump;
use isa_rt::asm::{
    At, Count, Exception, GuardSpec, ImmAddr, Kind, ModSpec, Names, OpcodeSpec, OperandSpec,
    RegFile, Sub, SubRole,
};

use super::{expected_kind, mnemonic, Assembler, SubKind};
use crate::model::{Address, Model, Opcode, OperandKind, Role, Type, TypeId, TypeKind};

/// A field's place.
fn at(start: u32, width: u32) -> At {
    At::new(start.min(127) as u8, width.min(128) as u8)
}

/// A code as the matcher holds it (codes of names and sub-fields are small; a wider
/// one keeps its low 64 bits).
fn code(c: u128) -> u64 {
    c as u64
}

/// How the values of `ty` (a register file or an enumeration) read by name, in `bump`;
/// `None` for a type without names.
pub(crate) fn names<'b>(bump: &'b Bump, ty: &Type) -> Option<Names<'b>> {
    let (list, numbered): (Vec<(&str, u128)>, _) = match &ty.kind {
        TypeKind::RegFile(rf) => (
            rf.named.iter().map(|(n, c)| (n.as_str(), *c)).collect(),
            Some((&*bump.alloc_str(&rf.prefix), code(rf.lo), code(rf.hi))),
        ),
        TypeKind::Enum(vs) => (vs.iter().map(|v| (v.name.as_str(), v.code)).collect(), None),
        _ => return None,
    };
    let mut named: Vec<(&'b str, u64)> = list
        .into_iter()
        .map(|(n, c)| (&*bump.alloc_str(n), code(c)))
        .collect();
    // Sorted as `isa_rt::table::by_name` searches (the first of a name kept).
    named.sort_by(|a, b| a.0.cmp(b.0));
    named.dedup_by(|a, b| a.0 == b.0);
    Some(Names {
        named: bump.alloc_slice_copy(&named),
        numbered,
    })
}

/// For each operand of opcode `opcode` (`Order` without the guard), how many required
/// operands follow it.
pub(crate) fn required_after(a: &Assembler, opcode: usize) -> Vec<usize> {
    let op = &a.model.opcodes[opcode];
    let required: Vec<bool> = a.ops[opcode]
        .operands
        .iter()
        .map(|o| !is_optional(op, o))
        .collect();
    (0..required.len())
        .map(|k| required[k + 1..].iter().filter(|r| **r).count())
        .collect()
}

/// Whether an operand may be left out: a field with a default.
pub(crate) fn is_optional(op: &Opcode, o: &crate::model::Operand) -> bool {
    matches!(o.kind, OperandKind::Field(f) if op.fields[f].default.is_some())
}

/// The spec's register files, in its order (for "`R255` does not exist" hints).
pub(crate) fn reg_files<'b>(bump: &'b Bump, model: &Model) -> &'b [RegFile<'b>] {
    let files: Vec<RegFile<'b>> = model
        .types
        .iter()
        .filter_map(|t| {
            let rf = t.reg_file()?;
            let named: Vec<&str> = rf.named.iter().map(|(n, _)| n.as_str()).collect();
            Some(RegFile {
                type_name: bump.alloc_str(&t.name),
                prefix: bump.alloc_str(&rf.prefix),
                lo: code(rf.lo),
                hi: code(rf.hi),
                named: bump.alloc_str(&named.join(", ")),
            })
        })
        .collect();
    bump.alloc_slice_copy(&files)
}

/// Builds the forms of one spec into one arena.
pub(crate) struct Forms<'b, 'a> {
    bump: &'b Bump,
    a: &'a Assembler<'a>,
    /// The spec's register files, shared by every form.
    files: &'b [RegFile<'b>],
}

impl<'b, 'a> Forms<'b, 'a> {
    pub(crate) fn new(bump: &'b Bump, a: &'a Assembler<'a>) -> Forms<'b, 'a> {
        Forms {
            bump,
            a,
            files: reg_files(bump, a.model),
        }
    }

    fn str(&self, s: &str) -> &'b str {
        self.bump.alloc_str(s)
    }

    fn names(&self, ty: TypeId) -> Names<'b> {
        names(self.bump, self.a.model.ty(ty)).unwrap_or(Names {
            named: &[],
            numbered: None,
        })
    }

    /// `e` as the matcher's postfix expression.
    fn expr(&self, e: &crate::model::expr::CExpr) -> &'b [isa_rt::expr::Op] {
        let mut ops = Vec::new();
        super::tables::postfix(e, &mut ops);
        self.bump.alloc_slice_copy(&ops)
    }

    fn sub(&self, op: &Opcode, sub: usize, kind: SubKind) -> Sub<'b> {
        let model = self.a.model;
        let f = &op.fields[sub];
        let role = match kind {
            SubKind::Not => SubRole::Not,
            SubKind::BitNot => SubRole::BitNot,
            SubKind::Neg { ext } => SubRole::Neg(ext.and_then(|e| {
                let ef = &op.fields[e];
                let x = model.ty(ef.ty).enum_code("X")?;
                Some((at(ef.start, ef.width), code(x)))
            })),
            SubKind::Suffix => SubRole::Suffix(self.names(f.ty)),
        };
        let (unset, set) = model.ty(f.ty).symbol_codes().unwrap_or((0, 1));
        Sub {
            at: at(f.start, f.width),
            role,
            set: code(set),
            unset: code(unset),
            default: code(f.default.unwrap_or(0)),
        }
    }

    fn subs(&self, op: &Opcode, opcode: usize, field: Option<usize>) -> &'b [Sub<'b>] {
        let subs: Vec<Sub<'b>> = field
            .and_then(|f| self.a.ops[opcode].subs.get(&f))
            .into_iter()
            .flatten()
            .map(|&(s, k)| self.sub(op, s, k))
            .collect();
        self.bump.alloc_slice_copy(&subs)
    }

    /// What operand `o` of opcode `opcode` is, its main field and the field whose
    /// sub-fields it has; `None` for an operand the matcher cannot read (a
    /// constant-memory operand whose field is of no constant-memory type).
    #[allow(clippy::type_complexity)]
    fn kind(
        &self,
        opcode: usize,
        o: &crate::model::Operand,
    ) -> Option<(Kind<'b>, Option<usize>, Option<usize>)> {
        let model = self.a.model;
        let op = &model.opcodes[opcode];
        Some(match o.kind {
            OperandKind::Field(f) => {
                let field = &op.fields[f];
                let t = model.ty(field.ty);
                let kind = match &t.kind {
                    TypeKind::RegFile(rf) => Kind::Reg {
                        name: self.names(field.ty),
                        prefix: self.str(&rf.prefix),
                        lo: code(rf.lo),
                        hi: code(rf.hi),
                        count: match op.bitwidth(f) {
                            None => Count::Fixed(1),
                            Some(b) => {
                                let mut read = Vec::new();
                                b.expr.fields(&mut read);
                                if read.is_empty() {
                                    // An expression of no field (`32`, `(1) * 64`).
                                    let bits = b.expr.eval(&|_| 0);
                                    Count::Fixed(u64::from(isa_rt::print::registers(bits)))
                                } else {
                                    Count::Bits(self.expr(&b.expr))
                                }
                            }
                        },
                    },
                    TypeKind::Enum(vs) => {
                        let values: Vec<&'b str> = vs.iter().map(|v| self.str(&v.name)).collect();
                        Kind::Enum {
                            name: self.names(field.ty),
                            type_name: self.str(&t.name),
                            values: self.bump.alloc_slice_copy(&values),
                        }
                    }
                    TypeKind::Immediate { signed } => {
                        let (addr, shift) = match op.address(f) {
                            Some((s, Address::Relative)) => (ImmAddr::Rel, s),
                            Some((s, Address::Absolute)) => (ImmAddr::Abs, s),
                            Some((s, Address::Number)) => (ImmAddr::Scaled, s),
                            Some((s, Address::Select { field, code })) => {
                                let g = &op.fields[field];
                                let mode = at(g.start, g.width);
                                (ImmAddr::Select { mode, abs: code }, s)
                            }
                            None => (ImmAddr::No, 0),
                        };
                        Kind::Imm {
                            type_name: self.str(&t.name),
                            width: t.width.min(128) as u8,
                            signed: *signed,
                            addr,
                            shift: shift.min(127) as u8,
                        }
                    }
                    TypeKind::ConstMem {
                        bank_bits,
                        offset_bits,
                        offset_signed,
                    } => Kind::CMem {
                        bank_bits: (*bank_bits).min(128) as u8,
                        offset_bits: (*offset_bits).min(128) as u8,
                        signed: *offset_signed,
                    },
                };
                (kind, Some(f), Some(f))
            }
            OperandKind::CMemIndexed { mem, reg } => {
                let TypeKind::ConstMem {
                    bank_bits,
                    offset_bits,
                    offset_signed,
                } = model.ty(op.fields[mem].ty).kind
                else {
                    return None;
                };
                let rf = &op.fields[reg];
                let zero = model
                    .ty(rf.ty)
                    .reg_file()
                    .and_then(|r| r.named.first())
                    .map(|&(_, c)| code(c));
                let kind = Kind::CMemIdx {
                    bank_bits: bank_bits.min(128) as u8,
                    offset_bits: offset_bits.min(128) as u8,
                    signed: offset_signed,
                    reg: at(rf.start, rf.width),
                    reg_name: self.names(rf.ty),
                    reg_type: self.str(&model.ty(rf.ty).name),
                    zero,
                };
                (kind, Some(mem), Some(mem))
            }
            OperandKind::RegIndexed { file, reg, offset } => {
                let prefix = model.ty(file).reg_file().map_or("", |r| r.prefix.as_str());
                let of = &op.fields[offset];
                let ot = model.ty(of.ty);
                let kind = Kind::RegIdx {
                    prefix: self.str(prefix),
                    reg_name: self.names(op.fields[reg].ty),
                    reg_type: self.str(&model.ty(op.fields[reg].ty).name),
                    off: at(of.start, of.width),
                    off_width: ot.width.min(128) as u8,
                    off_signed: matches!(ot.kind, TypeKind::Immediate { signed: true }),
                };
                (kind, Some(reg), None)
            }
            OperandKind::Word(w) => (Kind::Word(self.str(&model.words[w.0].name)), None, None),
        })
    }

    /// The form of opcode `opcode`.
    pub(crate) fn opcode(&self, opcode: usize) -> OpcodeSpec<'b> {
        let model = self.a.model;
        let op = &model.opcodes[opcode];
        let oa = &self.a.ops[opcode];
        let bump = self.bump;

        // The word every parse starts from: fixed bits and defaults; symbol sub-fields
        // without a default start unset.
        let mut d = model.default_instruction(opcode);
        for (i, f) in op.fields.iter().enumerate() {
            if matches!(f.role, Role::SubField(_)) && f.default.is_none() {
                d.values[i] = model.ty(f.ty).symbol_codes().map_or(0, |c| c.0);
            }
        }

        let mods: Vec<ModSpec<'b>> = oa
            .modifiers
            .iter()
            .map(|&m| {
                let f = &op.fields[m];
                let vs = model.ty(f.ty).enum_values().unwrap_or(&[]);
                let values: Vec<(&'b str, u64)> = vs
                    .iter()
                    .map(|v| (self.str(&v.name), code(v.code)))
                    .collect();
                let text: Vec<String> = vs.iter().map(|v| format!(".{}", v.name)).collect();
                ModSpec {
                    at: at(f.start, f.width),
                    field: self.str(&f.name),
                    values: bump.alloc_slice_copy(&values),
                    required: f.default.is_none(),
                    values_text: self.str(&text.join(", ")),
                }
            })
            .collect();
        let mods_text: Vec<String> = oa
            .modifiers
            .iter()
            .flat_map(|&m| model.ty(op.fields[m].ty).enum_values().unwrap_or(&[]))
            .map(|v| format!(".{}", v.name))
            .collect();

        let guard = oa.guard.map(|g| {
            let f = &op.fields[g];
            let not = oa
                .subs
                .get(&g)
                .into_iter()
                .flatten()
                .find(|(_, k)| *k == SubKind::Not)
                .map(|&(s, k)| self.sub(op, s, k));
            GuardSpec {
                at: at(f.start, f.width),
                name: self.names(f.ty),
                type_name: self.str(&model.ty(f.ty).name),
                not,
            }
        });

        let mut operands = Vec::with_capacity(oa.operands.len());
        for (k, o) in oa.operands.iter().enumerate() {
            let Some((kind, main, decorated)) = self.kind(opcode, o) else {
                continue;
            };
            operands.push(OperandSpec {
                kind,
                at: main.map_or(at(0, 0), |m| at(op.fields[m].start, op.fields[m].width)),
                subs: self.subs(op, opcode, decorated),
                label: self.str(&oa.labels[k]),
                expected: self.str(&expected_kind(model, op, &o.kind)),
                optional: is_optional(op, o),
            });
        }
        let req_after: Vec<u8> = required_after(self.a, opcode)
            .into_iter()
            .map(|r| r.min(u8::MAX as usize) as u8)
            .collect();
        let exceptions: Vec<Exception<'b>> = op
            .exceptions
            .iter()
            .map(|x| Exception {
                cond: self.expr(&x.cond),
                kind: self.str(&x.kind),
                message: self.str(&x.message),
            })
            .collect();
        let fields: Vec<&'b str> = op.fields.iter().map(|f| self.str(&f.name)).collect();
        let places: Vec<At> = op.fields.iter().map(|f| at(f.start, f.width)).collect();
        OpcodeSpec {
            mnemonic: self.str(&mnemonic(model, opcode)),
            fields: bump.alloc_slice_copy(&fields),
            places: bump.alloc_slice_copy(&places),
            mods_text: self.str(&mods_text.join(" ")),
            base: model.encode(&d),
            mods: bump.alloc_slice_copy(&mods),
            guard,
            operands: bump.alloc_slice_copy(&operands),
            req_after: bump.alloc_slice_copy(&req_after),
            exceptions: bump.alloc_slice_copy(&exceptions),
            files: self.files,
        }
    }
}
