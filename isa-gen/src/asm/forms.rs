//! The model's opcodes as the one matcher reads them: each opcode an
//! [`isa_rt::asm::OpcodeSpec`] (its modifiers, guard and operands, where their bits go,
//! how names read as codes), put together into an arena from parts worked out once per
//! model ([`Prepared`]). The interpreting tier builds the forms of a line's mnemonic and
//! hands them to `isa_rt::asm`; the generator builds every opcode's and writes them
//! into the generated crate as constants (`codegen/forms.rs`), which its
//! `Instruction::parse` hands to the same matcher.

use bumpalo::Bump;
use isa_rt::asm::{
    At, Count, Exception, GuardSpec, ImmAddr, Kind, ModSpec, Names, OpcodeSpec, OperandSpec,
    RegFile, Sub, SubRole,
};

use super::tables::{registers_of, Registers};
use super::{expected_kind, mnemonic, Assembler, OpcodeAsm, SubKind};
use crate::model::{Address, Model, Opcode, OperandKind, Role, Type, TypeId, TypeKind};

/// A field's place.
fn at(start: u32, width: u32) -> At {
    At::new(start.min(127) as u8, width.min(128) as u8)
}

/// A code as the matcher holds it: a type is at most 64 bits wide
/// (`model::resolve::MAX_TYPE_WIDTH`), so every code of a checked model fits.
fn code(c: u128) -> u64 {
    c as u64
}

/// How the values of `ty` (a register file or an enumeration) read by name: its names
/// sorted as `isa_rt::table::by_name` searches them (the first of a name kept), and
/// its numbered registers; `None` for a type without names.
fn name_list(ty: &Type) -> Option<NameList<'_>> {
    let (mut named, numbered): (Vec<(&str, u64)>, _) = match &ty.kind {
        TypeKind::RegFile(rf) => (
            rf.named
                .iter()
                .map(|(n, c)| (n.as_str(), code(*c)))
                .collect(),
            Some((rf.prefix.as_str(), code(rf.lo), code(rf.hi))),
        ),
        TypeKind::Enum(vs) => (
            vs.iter().map(|v| (v.name.as_str(), code(v.code))).collect(),
            None,
        ),
        _ => return None,
    };
    named.sort_by(|a, b| a.0.cmp(b.0));
    named.dedup_by(|a, b| a.0 == b.0);
    Some(NameList { named, numbered })
}

/// The names of a type, as [`Names`] borrows them.
struct NameList<'m> {
    named: Vec<(&'m str, u64)>,
    numbered: Option<(&'m str, u64, u64)>,
}

impl NameList<'_> {
    fn names(&self) -> Names<'_> {
        Names {
            named: &self.named,
            numbered: self.numbered,
        }
    }
}

/// A register file, as [`RegFile`] borrows it.
struct FileText<'m> {
    type_name: &'m str,
    prefix: &'m str,
    lo: u64,
    hi: u64,
    /// Its named registers, `RZ, PT`.
    named: String,
}

/// How many registers an operand spans, as [`Count`] borrows it.
enum Counted {
    Fixed(u64),
    Bits(Vec<isa_rt::expr::Op>),
    Lookup(At, Vec<u8>),
}

/// What an opcode's form reads that is worked out from the model rather than read in
/// it: its texts, its base word, its counts and conditions as expressions.
struct OpcodeText<'m> {
    mnemonic: String,
    /// The word every parse starts from: fixed bits and defaults, symbol sub-fields
    /// without a default unset.
    base: u128,
    fields: Vec<&'m str>,
    places: Vec<At>,
    /// Every modifier value, `.A .B`.
    mods_text: String,
    /// Per modifier field (in printing order): its values, and `.A, .B`.
    mods: Vec<(Vec<(&'m str, u64)>, String)>,
    /// Per operand: what it takes (`a Reg`), and how many registers it spans.
    operands: Vec<(String, Counted)>,
    req_after: Vec<u8>,
    /// The `__Exception` conditions.
    exceptions: Vec<Vec<isa_rt::expr::Op>>,
}

/// The parts of a model's forms that hold no reference to each other, worked out once
/// per model (`Assembler::new`): a line's forms are put together from them by
/// [`Forms`], into an arena, since the forms borrow each other and so cannot be kept
/// beside what they borrow.
pub(crate) struct Prepared<'m> {
    /// Per type.
    names: Vec<Option<NameList<'m>>>,
    /// Per type: its values' names, in the spec's order.
    values: Vec<Vec<&'m str>>,
    files: Vec<FileText<'m>>,
    /// Per opcode.
    opcodes: Vec<OpcodeText<'m>>,
}

impl<'m> Prepared<'m> {
    /// The parts of the forms of `model`, whose per-opcode facts are `ops`.
    pub(crate) fn new(model: &'m Model, ops: &[OpcodeAsm]) -> Prepared<'m> {
        let files = model
            .types
            .iter()
            .filter_map(|t| {
                let rf = t.reg_file()?;
                let named: Vec<&str> = rf.named.iter().map(|(n, _)| n.as_str()).collect();
                Some(FileText {
                    type_name: &t.name,
                    prefix: &rf.prefix,
                    lo: code(rf.lo),
                    hi: code(rf.hi),
                    named: named.join(", "),
                })
            })
            .collect();
        let values = model
            .types
            .iter()
            .map(|t| {
                let vs = t.enum_values().unwrap_or(&[]);
                vs.iter().map(|v| v.name.as_str()).collect()
            })
            .collect();
        Prepared {
            names: model.types.iter().map(name_list).collect(),
            values,
            files,
            opcodes: (0..model.opcodes.len())
                .map(|i| opcode_text(model, ops, i))
                .collect(),
        }
    }
}

fn opcode_text<'m>(model: &'m Model, ops: &[OpcodeAsm], opcode: usize) -> OpcodeText<'m> {
    let op = &model.opcodes[opcode];
    let oa = &ops[opcode];
    let mut d = model.default_instruction(opcode);
    for (i, f) in op.fields.iter().enumerate() {
        if matches!(f.role, Role::SubField(_)) && f.default.is_none() {
            d.values[i] = model.ty(f.ty).symbol_codes().map_or(0, |c| c.0);
        }
    }
    let mods = oa
        .modifiers
        .iter()
        .map(|&m| {
            let vs = model.ty(op.fields[m].ty).enum_values().unwrap_or(&[]);
            let values = vs.iter().map(|v| (v.name.as_str(), code(v.code))).collect();
            let text: Vec<String> = vs.iter().map(|v| format!(".{}", v.name)).collect();
            (values, text.join(", "))
        })
        .collect();
    let mods_text: Vec<String> = oa
        .modifiers
        .iter()
        .flat_map(|&m| model.ty(op.fields[m].ty).enum_values().unwrap_or(&[]))
        .map(|v| format!(".{}", v.name))
        .collect();
    let operands: Vec<(String, Counted)> = oa
        .operands
        .iter()
        .map(|o| {
            let count = match o.kind {
                OperandKind::Field(f) => match registers_of(model, op, f) {
                    Registers::Fixed(n) => Counted::Fixed(u64::from(n)),
                    Registers::Lookup(g, counts) => {
                        let g = &op.fields[g];
                        let counts = counts.into_iter().map(|n| n.min(255) as u8).collect();
                        Counted::Lookup(at(g.start, g.width), counts)
                    }
                    Registers::Bits(ops) => Counted::Bits(ops),
                },
                _ => Counted::Fixed(1),
            };
            (expected_kind(model, op, &o.kind), count)
        })
        .collect();
    let reads_fields = !op.exceptions.is_empty()
        || operands
            .iter()
            .any(|(_, c): &(String, Counted)| matches!(c, Counted::Bits(_)));
    OpcodeText {
        mnemonic: mnemonic(model, opcode),
        base: model.encode(&d),
        fields: op.fields.iter().map(|f| f.name.as_str()).collect(),
        // Read only by expressions: an opcode without any has none.
        places: if reads_fields {
            op.fields.iter().map(|f| at(f.start, f.width)).collect()
        } else {
            Vec::new()
        },
        mods_text: mods_text.join(" "),
        mods,
        operands,
        req_after: required_after(op, &oa.operands)
            .into_iter()
            .map(|r| r.min(u8::MAX as usize) as u8)
            .collect(),
        exceptions: op.exceptions.iter().map(|x| postfix(&x.cond)).collect(),
    }
}

/// `e` as the matcher's postfix expression.
fn postfix(e: &crate::model::expr::CExpr) -> Vec<isa_rt::expr::Op> {
    let mut ops = Vec::new();
    super::tables::postfix(e, &mut ops);
    ops
}

/// For each of `operands` of `op` (`Order` without the guard), how many required
/// operands follow it.
pub(crate) fn required_after(op: &Opcode, operands: &[crate::model::Operand]) -> Vec<usize> {
    let required: Vec<bool> = operands.iter().map(|o| !is_optional(op, o)).collect();
    (0..required.len())
        .map(|k| required[k + 1..].iter().filter(|r| **r).count())
        .collect()
}

/// Whether an operand may be left out: a field with a default.
pub(crate) fn is_optional(op: &Opcode, o: &crate::model::Operand) -> bool {
    matches!(o.kind, OperandKind::Field(f) if op.fields[f].default.is_some())
}

/// Puts together the forms of one spec's opcodes, into one arena.
pub(crate) struct Forms<'b> {
    bump: &'b Bump,
    model: &'b Model,
    ops: &'b [OpcodeAsm],
    p: &'b Prepared<'b>,
    /// The spec's register files, shared by every form.
    files: &'b [RegFile<'b>],
}

impl<'b> Forms<'b> {
    pub(crate) fn new(bump: &'b Bump, a: &'b Assembler<'b>) -> Forms<'b> {
        let p = &a.forms;
        let files: Vec<RegFile<'b>> = p
            .files
            .iter()
            .map(|f| RegFile {
                type_name: f.type_name,
                prefix: f.prefix,
                lo: f.lo,
                hi: f.hi,
                named: &f.named,
            })
            .collect();
        Forms {
            bump,
            model: a.model,
            ops: &a.ops,
            p,
            files: bump.alloc_slice_copy(&files),
        }
    }

    /// How the values of type `ty` read by name (no names for a type without them).
    pub(crate) fn names(&self, ty: TypeId) -> Names<'b> {
        match &self.p.names[ty.0] {
            Some(n) => n.names(),
            None => Names {
                named: &[],
                numbered: None,
            },
        }
    }

    fn sub(&self, op: &Opcode, sub: usize, kind: SubKind) -> Sub<'b> {
        let model = self.model;
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
        let Some(subs) = field.and_then(|f| self.ops[opcode].subs.get(&f)) else {
            return &[];
        };
        self.bump
            .alloc_slice_fill_iter(subs.iter().map(|&(s, k)| self.sub(op, s, k)))
    }

    /// What operand `k` of opcode `opcode` is, its main field and the field whose
    /// sub-fields it has; `None` for an operand the matcher cannot read (a
    /// constant-memory operand whose field is of no constant-memory type).
    #[allow(clippy::type_complexity)]
    fn kind(&self, opcode: usize, k: usize) -> Option<(Kind<'b>, Option<usize>, Option<usize>)> {
        let model = self.model;
        let op = &model.opcodes[opcode];
        let o = &self.ops[opcode].operands[k];
        Some(match o.kind {
            OperandKind::Field(f) => {
                let field = &op.fields[f];
                let t = model.ty(field.ty);
                let kind = match &t.kind {
                    TypeKind::RegFile(rf) => Kind::Reg {
                        name: self.names(field.ty),
                        prefix: &rf.prefix,
                        lo: code(rf.lo),
                        hi: code(rf.hi),
                        count: match &self.p.opcodes[opcode].operands[k].1 {
                            Counted::Fixed(n) => Count::Fixed(*n),
                            Counted::Bits(ops) => Count::Bits(ops),
                            Counted::Lookup(at, counts) => Count::Lookup { at: *at, counts },
                        },
                    },
                    TypeKind::Enum(_) => Kind::Enum {
                        name: self.names(field.ty),
                        type_name: &t.name,
                        values: &self.p.values[field.ty.0],
                    },
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
                            type_name: &t.name,
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
                    reg_type: &model.ty(rf.ty).name,
                    zero,
                };
                (kind, Some(mem), Some(mem))
            }
            OperandKind::RegIndexed { file, reg, offset } => {
                let prefix = model.ty(file).reg_file().map_or("", |r| r.prefix.as_str());
                let of = &op.fields[offset];
                let ot = model.ty(of.ty);
                let kind = Kind::RegIdx {
                    prefix,
                    reg_name: self.names(op.fields[reg].ty),
                    reg_type: &model.ty(op.fields[reg].ty).name,
                    off: at(of.start, of.width),
                    off_width: ot.width.min(128) as u8,
                    off_signed: matches!(ot.kind, TypeKind::Immediate { signed: true }),
                };
                (kind, Some(reg), None)
            }
            OperandKind::Word(w) => (Kind::Word(&model.words[w.0].name), None, None),
        })
    }

    /// The form of opcode `opcode`.
    pub(crate) fn opcode(&self, opcode: usize) -> OpcodeSpec<'b> {
        let model = self.model;
        let op = &model.opcodes[opcode];
        let oa = &self.ops[opcode];
        let text = &self.p.opcodes[opcode];
        let bump = self.bump;
        let mods = oa
            .modifiers
            .iter()
            .zip(&text.mods)
            .map(|(&m, (values, vt))| {
                let f = &op.fields[m];
                ModSpec {
                    at: at(f.start, f.width),
                    field: &f.name,
                    values,
                    required: f.default.is_none(),
                    values_text: vt,
                }
            });
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
                type_name: &model.ty(f.ty).name,
                not,
            }
        });
        let operands: Vec<OperandSpec<'b>> = (0..oa.operands.len())
            .filter_map(|k| {
                let (kind, main, decorated) = self.kind(opcode, k)?;
                Some(OperandSpec {
                    kind,
                    at: main.map_or(at(0, 0), |m| at(op.fields[m].start, op.fields[m].width)),
                    subs: self.subs(op, opcode, decorated),
                    label: &oa.labels[k],
                    expected: &text.operands[k].0,
                    optional: is_optional(op, &oa.operands[k]),
                })
            })
            .collect();
        let exceptions = op
            .exceptions
            .iter()
            .zip(&text.exceptions)
            .map(|(x, cond)| Exception {
                cond,
                kind: &x.kind,
                message: &x.message,
            });
        OpcodeSpec {
            mnemonic: &text.mnemonic,
            fields: &text.fields,
            places: &text.places,
            mods_text: &text.mods_text,
            base: text.base,
            mods: bump.alloc_slice_fill_iter(mods),
            guard,
            operands: bump.alloc_slice_copy(&operands),
            req_after: &text.req_after,
            exceptions: bump.alloc_slice_fill_iter(exceptions),
            files: self.files,
        }
    }
}
