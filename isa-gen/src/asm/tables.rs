//! The model as the tables of `isa_rt::table`: what the run-time printer (and, in
//! time, the other engines) reads about a spec. Built here once from the model and the
//! assembler's per-opcode facts, then each opcode's print plan compiled from those rows
//! (`TableBuf::plan`, the engine's); the interpreting tier prints through it, and
//! the generator writes the same rows into the generated crate as its `TABLES`
//! (`codegen/tables.rs`), through which the generated API prints.

use isa_rt::expr::Op;
use isa_rt::print::registers;
use isa_rt::table::{
    run, Addr, At, Count, FieldRow, Guard, OpcodeRow, OperandKind, OperandRow, Run, SubRole,
    SubRow, TableBuf, TypeKind, TypeRow,
};

use super::{forms, omit, print, Assembler, SubKind};
use crate::model::expr::CExpr;
use crate::model::{Address, Model, OperandKind as ModelOperand, TypeKind as ModelType};

/// Types at most this wide get a dense name list (by code); wider ones a sparse one.
pub const DENSE_NAME_BITS: u32 = 10;

/// A register count that depends on one field at most this wide is a table by code.
const LOOKUP_BITS: u32 = 8;

/// The tables of `a`'s model.
pub fn build(a: &Assembler) -> TableBuf {
    let model = a.model;
    let mut t = TableBuf::default();
    for ty in &model.types {
        let row = type_row(&mut t, ty);
        t.types.push(row);
    }
    for i in 0..model.opcodes.len() {
        let row = opcode_row(&mut t, a, i);
        t.opcodes.push(row);
    }
    t.plan();
    t
}

fn type_row(t: &mut TableBuf, ty: &crate::model::Type) -> TypeRow {
    let kind = match &ty.kind {
        ModelType::RegFile(rf) => TypeKind::Reg {
            prefix: t.str(&rf.prefix),
            lo: rf.lo,
            hi: rf.hi,
        },
        ModelType::Enum(_) => TypeKind::Enum,
        ModelType::Immediate { signed } => TypeKind::Imm {
            signed: *signed,
            width: ty.width.min(128) as u8,
        },
        ModelType::ConstMem {
            offset_bits,
            offset_signed,
            ..
        } => TypeKind::CMem {
            offset_bits: (*offset_bits).min(128) as u8,
            signed: *offset_signed,
        },
    };
    let name = |code: u128| -> Option<String> {
        match &ty.kind {
            ModelType::RegFile(rf) => rf.name_of(code),
            ModelType::Enum(_) => ty.enum_name(code).map(str::to_string),
            _ => None,
        }
    };
    let has_names = matches!(ty.kind, ModelType::RegFile(_) | ModelType::Enum(_));
    let (mut dense, mut named) = (Run::default(), Run::default());
    if has_names && ty.width <= DENSE_NAME_BITS {
        let at = t.names.len();
        // (Bounded by the width that chose this list, so that no change to that choice
        // can enumerate 2^64 codes.)
        for code in 0..1u128 << ty.width.min(DENSE_NAME_BITS) {
            let s = name(code).map_or_else(Default::default, |n| t.name(&n));
            t.names.push(s);
        }
        dense = run(at, t.names.len());
    } else if has_names {
        // The named codes only: numbered registers print as prefix and number.
        let mut list: Vec<(u128, String)> = match &ty.kind {
            ModelType::RegFile(rf) => rf.named.iter().map(|(n, c)| (*c, n.clone())).collect(),
            ModelType::Enum(vs) => vs.iter().map(|v| (v.code, v.name.clone())).collect(),
            _ => Vec::new(),
        };
        list.sort_by_key(|&(c, _)| c);
        // The first name of a code wins, as the model's lookups find it.
        list.dedup_by_key(|(c, _)| *c);
        let at = t.named.len();
        for (code, n) in list {
            let s = t.str(&n);
            t.named.push((code, s));
        }
        named = run(at, t.named.len());
    }
    TypeRow { kind, dense, named }
}

fn opcode_row(t: &mut TableBuf, a: &Assembler, i: usize) -> OpcodeRow {
    let model = a.model;
    let op = &model.opcodes[i];
    let oa = &a.ops[i];
    let f16 = |f: usize| f as u16;

    let at = t.fields.len();
    for f in &op.fields {
        let names = t.types[f.ty.0].dense;
        t.fields.push(FieldRow {
            at: At::new(f.start.min(127) as u8, f.width.min(128) as u8),
            ty: f.ty.0 as u32,
            default: f.default,
            names,
        });
    }
    let fields = run(at, t.fields.len());

    let subs_of = |f: usize| oa.subs.get(&f).map(Vec::as_slice).unwrap_or(&[]);
    let guard = oa.guard.map(|g| Guard {
        field: f16(g),
        not: subs_of(g)
            .iter()
            .find(|(_, k)| *k == SubKind::Not)
            .map(|&(s, _)| (f16(s), print::set_code(model, op, s))),
    });
    let mnemonic = t.str(&super::mnemonic(model, i));
    let mods = t.indices(oa.modifiers.iter().map(|&m| f16(m)));

    let required_after = forms::required_after(op, &oa.operands);
    let mut rows = Vec::with_capacity(oa.operands.len());
    for (k, o) in oa.operands.iter().enumerate() {
        let kind = match o.kind {
            ModelOperand::Field(f) => OperandKind::Field(f16(f)),
            ModelOperand::CMemIndexed { mem, reg } => OperandKind::CMemIndexed {
                mem: f16(mem),
                reg: f16(reg),
            },
            ModelOperand::RegIndexed { file, reg, offset } => OperandKind::RegIndexed {
                prefix: match model.ty(file).reg_file() {
                    Some(rf) => t.str(&rf.prefix),
                    None => Default::default(),
                },
                reg: f16(reg),
                offset: f16(offset),
            },
            ModelOperand::Word(w) => OperandKind::Word(t.str(&model.words[w.0].name)),
        };
        let main = o.kind.decorated();
        let sub_at = t.subs.len();
        let mut subs: Vec<(usize, SubKind)> = main.map(subs_of).unwrap_or(&[]).to_vec();
        subs.sort_by_key(|&(_, k)| role(k).rank());
        for (s, sk) in subs {
            let role = match sk {
                SubKind::Neg { ext } => SubRole::Neg {
                    ext: ext.and_then(|e| {
                        let x = model.ty(op.fields[e].ty).enum_code("X")?;
                        Some((f16(e), x))
                    }),
                },
                k => role(k),
            };
            t.subs.push(SubRow {
                field: f16(s),
                role,
                set: print::set_code(model, op, s),
            });
        }
        let subs = run(sub_at, t.subs.len());
        let (count, addr) = match o.kind {
            ModelOperand::Field(f) => (count(t, model, i, f), addr(model, i, f)),
            _ => (Count::Fixed(1), Addr::None),
        };
        // An optional operand at its default is left out unless the next printed one
        // could be read as it.
        let optional = matches!(o.kind, ModelOperand::Field(f) if op.fields[f].default.is_some());
        let readers = if optional {
            t.indices(
                (k + 1..oa.operands.len())
                    .filter(|&j| omit::may_read_as(model, op, o, &oa.operands[j]))
                    .map(f16),
            )
        } else {
            Run::default()
        };
        rows.push(OperandRow {
            kind,
            subs,
            count,
            addr,
            required_after: required_after[k].min(u16::MAX as usize) as u16,
            readers,
        });
    }
    let at = t.operands.len();
    t.operands.extend(rows);
    OpcodeRow {
        mnemonic,
        fields,
        guard,
        mods,
        operands: run(at, t.operands.len()),
        optional: oa
            .operands
            .iter()
            .any(|o| matches!(o.kind, ModelOperand::Field(f) if op.fields[f].default.is_some())),
    }
}

/// How a sub-field prints (a negation's `ext` aside).
fn role(k: SubKind) -> SubRole {
    match k {
        SubKind::Not => SubRole::Not,
        SubKind::BitNot => SubRole::BitNot,
        SubKind::Suffix => SubRole::Suffix,
        SubKind::Neg { .. } => SubRole::Neg { ext: None },
    }
}

/// How many registers field `f` of opcode `i` spans, as the engines read it.
fn count(t: &mut TableBuf, model: &Model, i: usize, f: usize) -> Count {
    match registers_of(model, &model.opcodes[i], f) {
        Registers::Fixed(n) => Count::Fixed(n),
        Registers::Lookup(g, counts) => Count::Lookup {
            field: g as u16,
            counts: t.indices(counts.into_iter().map(|n| n.min(u16::MAX as u32) as u16)),
        },
        Registers::Bits(ops) => {
            let at = t.exprs.len();
            t.exprs.extend(ops);
            Count::Bits(run(at, t.exprs.len()))
        }
    }
}

/// How many registers a register operand spans.
pub(crate) enum Registers {
    /// Always this many.
    Fixed(u32),
    /// By the code of one narrow field: the count of each of its codes.
    Lookup(usize, Vec<u32>),
    /// As its `Bitwidth` expression says.
    Bits(Vec<Op>),
}

/// How many registers field `f` of `op` spans: fixed (no `Bitwidth`, or one of no
/// field), a list by code (one that reads one field at most [`LOOKUP_BITS`] wide), or
/// its `Bitwidth` expression. (A field of no register file spans one.)
pub(crate) fn registers_of(model: &Model, op: &crate::model::Opcode, f: usize) -> Registers {
    if !matches!(model.ty(op.fields[f].ty).kind, ModelType::RegFile(_)) {
        return Registers::Fixed(1);
    }
    let Some(b) = op.bitwidth(f) else {
        return Registers::Fixed(1);
    };
    let mut ops = Vec::new();
    postfix(&b.expr, &mut ops);
    let mut read = Vec::new();
    b.expr.fields(&mut read);
    match read.as_slice() {
        [] => Registers::Fixed(registers(isa_rt::expr::eval(&ops, &|_| 0))),
        &[g] if op.fields[g].width <= LOOKUP_BITS => {
            let codes = 0..1u128 << op.fields[g].width.min(LOOKUP_BITS);
            let counts = codes.map(|c| registers(isa_rt::expr::eval(&ops, &|_| c)));
            Registers::Lookup(g, counts.collect())
        }
        _ => Registers::Bits(ops),
    }
}

/// How immediate field `f` of opcode `i` is written.
fn addr(model: &Model, i: usize, f: usize) -> Addr {
    let shift = |s: u32| s.min(127) as u8;
    match model.opcodes[i].address(f) {
        None => Addr::None,
        Some((s, Address::Relative)) => Addr::Relative(shift(s)),
        Some((s, Address::Absolute)) => Addr::Absolute(shift(s)),
        Some((s, Address::Number)) => Addr::Number(shift(s)),
        Some((s, Address::Select { field, code })) => Addr::Select {
            field: field as u16,
            code,
            shift: shift(s),
        },
    }
}

/// `e` in postfix order, appended to `out`.
pub fn postfix(e: &CExpr, out: &mut Vec<Op>) {
    match e {
        CExpr::Int(v) => out.push(Op::Int(*v)),
        CExpr::Field(f) => out.push(Op::Field(*f as u16)),
        CExpr::Value(_, c) => out.push(Op::Int((*c).min(i128::MAX as u128) as i128)),
        CExpr::Not(e) => {
            postfix(e, out);
            out.push(Op::Not);
        }
        CExpr::Neg(e) => {
            postfix(e, out);
            out.push(Op::Neg);
        }
        CExpr::Bin(op, a, b) => {
            postfix(a, out);
            postfix(b, out);
            out.push(Op::Bin(*op));
        }
    }
}

#[cfg(test)]
mod tests {
    use isa_rt::table::{Count, TypeKind};

    use crate::asm::Assembler;

    /// Named types on either side of the dense-name width, register counts that read
    /// fields on either side of the lookup width, and a constant count.
    const SPEC: &str = r#"__DefGroup ALL

__DefRegFile Reg<8>
    R 0..254;
    RZ = 255;

__DefRegFile Wide<11>
    W 0..2000;
    WZ = 2047;

__DefBitFieldType Big<11>
    A = 0;
    B = 2000;

__DefBitFieldType Size<9>
    S32 = 0;
    S64 = 300;

__DefBitFieldType Narrow<8>
    N32 = 0;
    N64 = 200;

__DefBitFieldType Optype<8>
    OP = 1;

__DefOptype OP : [ALL]
  __Encoding
    field<0, 8> Optype optype == OP;
    field<8, 11> Wide wd;
    field<20, 11> Big big = A;
    field<32, 9> Size size = S32;
    field<41, 8> Narrow narrow = N32;
    field<56, 8> Reg ra;
    field<64, 8> Reg rb;
    field<72, 8> Reg rc;

__DefOpcode OP_X : [OP]
  __OperandInfo
    InList<ra, rb, rc>;
    OutList<wd>;
    Order<wd, ra, rb, rc>;
    Bitwidth<ra> = 32 + (size == "S64") * 32;
    Bitwidth<rb> = 32 + (narrow == "N64") * 32;
    Bitwidth<rc> = 64;
"#;

    #[test]
    fn names_dense_up_to_the_width_sparse_past_it_and_counts_by_what_they_read() {
        let c = crate::Spec::from_texts([("t.isa", SPEC)]).check();
        assert!(!c.has_errors(), "{}", c.render_diagnostics());
        let model = c.model.expect("a model");
        let a = Assembler::new(&model);
        let t = a.tables();
        let ty = |name: &str| {
            let i = model.types.iter().position(|x| x.name == name).unwrap();
            (i as u32, &t.types[i])
        };
        // 8 bits: every code by index; 11 bits: the named codes only, sorted.
        let (reg, r) = ty("Reg");
        assert_eq!((r.dense.len, r.named.len), (256, 0));
        assert_eq!(t.name_of(reg, 7), Some("R7"));
        assert_eq!(t.name_of(reg, 255), Some("RZ"));
        let (wide, w) = ty("Wide");
        assert_eq!((w.dense.len, w.named.len), (0, 1));
        assert!(matches!(
            w.kind,
            TypeKind::Reg {
                lo: 0,
                hi: 2000,
                ..
            }
        ));
        assert_eq!(t.name_of(wide, 2047), Some("WZ"));
        assert_eq!(
            t.name_of(wide, 7),
            None,
            "numbered registers print by number"
        );
        let (big, b) = ty("Big");
        assert_eq!((b.dense.len, b.named.len), (0, 2));
        assert_eq!(t.name_of(big, 2000), Some("B"));
        assert_eq!(t.name_of(big, 1), None);
        let (_, imm) = ty("Optype");
        assert_eq!(imm.dense.len, 256);
        // ra reads a 9-bit field: an expression; rb an 8-bit one: a lookup by its
        // code; rc a constant.
        let ops = t.opcodes[0].operands.of(t.operands);
        assert!(
            matches!(ops[1].count, Count::Bits(r) if r.len == 7),
            "{:?}",
            ops[1].count
        );
        let Count::Lookup { field, counts } = ops[2].count else {
            panic!("{:?}", ops[2].count)
        };
        assert_eq!(model.opcodes[0].fields[field as usize].name, "narrow");
        let counts = counts.of(t.indices);
        assert_eq!(
            (counts.len(), counts[0], counts[200], counts[1]),
            (256, 1, 2, 1)
        );
        assert_eq!(ops[3].count, Count::Fixed(2));
        // And they print so.
        let d = model.decode(1 | 5 << 8 | 300 << 32 | 200 << 41 | 4 << 56 | 6 << 64 | 8 << 72);
        let d = d.expect("the word decodes");
        assert_eq!(a.print(&d, 0), "OP.S64.N64 W5, R[4:5], R[6:7], R[8:9]");
        let d = model.decode(1 | 2047 << 8 | 2000 << 20 | 4 << 56 | 6 << 64 | 8 << 72);
        assert_eq!(a.print(&d.unwrap(), 0), "OP.B WZ, R4, R6, R[8:9]");
    }
}
