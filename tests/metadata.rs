//! Spot checks of the generated metadata and value types against the spec text, plus
//! whole-table consistency checks (every opcode's fields, masks and names).

use std::collections::HashSet;
use std::str::FromStr;
use std::sync::OnceLock;

use isa::{
    BReg, Bitwidth, BmovX, BraCond, BraU, CMem, Cs2rI, FieldRole, Instruction, MatchOp, MatchR,
    MatchdType, MemdType, Opcode, OperandKind, PModi, Pred, Reg, RegRef, SImm32, SImm50, SImm7,
    SReg, UPred, UReg, UldcU, Up2urUu,
};
use isa_gen::model::{ListRef, Model, OperandKind as ModelKind, Role, TypeKind};

fn model() -> &'static Model {
    static MODEL: OnceLock<Model> = OnceLock::new();
    MODEL.get_or_init(|| {
        let checked = isa_gen::Spec::load(&[isa_spec::DIR])
            .expect("spec files are readable")
            .check();
        assert!(
            !checked.has_errors(),
            "spec has errors:\n{}",
            checked.render_diagnostics()
        );
        checked.model.expect("a spec without errors has a model")
    })
}

fn names(ops: &[isa::OperandInfo]) -> Vec<&'static str> {
    ops.iter().map(|o| o.name).collect()
}

fn operand(ops: &[isa::OperandInfo], name: &str) -> isa::OperandInfo {
    *ops.iter()
        .find(|o| o.name == name)
        .unwrap_or_else(|| panic!("no operand {name} in {:?}", names(ops)))
}

fn r(n: u8) -> Reg {
    Reg::new(n).unwrap()
}

// ---------------------------------------------------------------------------------
// Operand lists
// ---------------------------------------------------------------------------------

#[test]
fn shfl_rrr_order() {
    // sync.isa: `Order<pg, pu, rd, ra, rb, rc>;`
    let info = Opcode::ShflRrr.info();
    assert_eq!(info.name, "SHFL_RRR");
    assert_eq!(info.optype, "SHFL");
    assert_eq!(names(info.order), ["pg", "pu", "rd", "ra", "rb", "rc"]);
    assert_eq!(names(info.in_list), ["pg", "ra", "rb", "rc"]);
    assert_eq!(names(info.out_list), ["rd", "pu"]);
    assert_eq!(info.order[0].kind, OperandKind::Register("Pred"));
    assert!(info.order[0].optional, "pg has a default (PT)");
    assert!(!operand(info.order, "rd").optional);
    assert_eq!(operand(info.order, "rb").bitwidth, Bitwidth::Fixed(32));
    assert_eq!(Opcode::ShflRrr.order(), info.order);
}

#[test]
fn bmov_x_breg_is_read_and_written() {
    // bru.isa: `InList<pg, breg>; OutList<rd, breg>;`
    let info = Opcode::BmovX.info();
    let outs = names(info.out_list);
    assert!(outs.contains(&"breg") && outs.contains(&"rd"), "{outs:?}");
    assert!(names(info.in_list).contains(&"breg"));
    // `BReg` is declared `__DefRegisters` (isa-spec/backend.isa): its values are registers.
    assert_eq!(
        operand(info.in_list, "breg").kind,
        OperandKind::Register("BReg")
    );

    let bmov = BmovX {
        pg: Pred::PT,
        pg_not: PModi::False,
        rd: r(5),
        breg: BReg::B11,
        clear: isa::BrClear::NoClear,
    };
    let writes: Vec<RegRef> = bmov.writes().collect();
    assert_eq!(writes.len(), 2, "{writes:?}");
    assert!(writes.contains(&RegRef::Reg(r(5))));
    assert!(writes.contains(&RegRef::BReg(BReg::B11)));
    let reads: Vec<RegRef> = bmov.reads().collect();
    assert_eq!(reads, [RegRef::BReg(BReg::B11)], "PT is not listed");
    // Through the enum as well.
    let insn = Instruction::from(bmov);
    assert!(insn.writes().eq(bmov.writes()));
}

#[test]
fn match_r_ra_bitwidth_depends_on_dtype() {
    // sync.isa: `Bitwidth<ra> = 32 + (dtype=="U64")*32;`
    let mut m = MatchR::new(r(1), Pred::new(0).unwrap(), r(4), MatchOp::Any);
    assert_eq!(m.dtype, MatchdType::U32);
    assert_eq!(m.ra_bitwidth(), 32);
    assert_eq!(m.bitwidth("ra"), Some(32));
    assert_eq!(m.reads().collect::<Vec<_>>(), [RegRef::Reg(r(4))]);

    m.dtype = MatchdType::U64;
    assert_eq!(m.ra_bitwidth(), 64);
    assert_eq!(m.bitwidth("ra"), Some(64));
    assert_eq!(Instruction::from(m).bitwidth("ra"), Some(64));
    assert_eq!(m.bitwidth("rd"), Some(32));
    assert_eq!(m.bitwidth("pu"), None, "the spec gives pu no Bitwidth");
    assert_eq!(
        m.reads().collect::<Vec<_>>(),
        [RegRef::Reg(r(4)), RegRef::Reg(r(5))],
        "a 64-bit ra spans R4 and R5"
    );

    let ra = operand(Opcode::MatchR.order(), "ra");
    assert!(
        matches!(ra.bitwidth, Bitwidth::Depends(e) if e.contains("dtype") && e.contains("U64")),
        "{:?}",
        ra.bitwidth
    );
    assert_eq!(
        operand(Opcode::MatchR.order(), "rd").bitwidth,
        Bitwidth::Fixed(32)
    );
}

#[test]
fn uldc_u_has_the_composite_constant_memory_operand() {
    // udp.isa: `Order<upg, urd, C[vb, ura]>;`
    let info = Opcode::UldcU.info();
    assert_eq!(names(info.order), ["upg", "urd", "C[vb, ura]"]);
    let c = operand(info.order, "C[vb, ura]");
    assert_eq!(c.kind, OperandKind::ConstMemIndexed);
    assert_eq!(c.fields, ["vb", "ura"]);
    assert_eq!(info.order[0].kind, OperandKind::Register("UPred"));

    let mut uldc = UldcU::new(UReg::new(4).unwrap(), CMem::new(0, 8).unwrap(), UReg::URZ);
    assert_eq!(uldc.bitwidth("urd"), Some(32));
    uldc.dtype = MemdType::V64;
    assert_eq!(uldc.bitwidth("urd"), Some(64));
    assert_eq!(
        uldc.writes().collect::<Vec<_>>(),
        [
            RegRef::UReg(UReg::new(4).unwrap()),
            RegRef::UReg(UReg::new(5).unwrap())
        ]
    );
    assert_eq!(uldc.reads().count(), 0, "UPT and URZ are constants");
}

#[test]
fn up2ur_uu_reads_every_uniform_predicate() {
    // udp.isa: `InList<upg, ura, UPR, urb>; Order<upg, urd, UPR, ura, urb>;`
    let info = Opcode::Up2urUu.info();
    assert!(names(info.order).contains(&"UPR"));
    assert_eq!(operand(info.order, "UPR").kind, OperandKind::Word);
    assert!(operand(info.order, "UPR").fields.is_empty());
    assert!(names(info.in_list).contains(&"UPR"));

    let up2ur = Up2urUu::new(
        UReg::new(1).unwrap(),
        UReg::new(2).unwrap(),
        UReg::new(3).unwrap(),
    );
    let reads: Vec<RegRef> = up2ur.reads().collect();
    for n in 0..=6 {
        assert!(
            reads.contains(&RegRef::UPred(UPred::new(n).unwrap())),
            "UP{n} missing from {reads:?}"
        );
    }
    assert!(!reads.contains(&RegRef::UPred(UPred::UPT)));
    assert!(reads.contains(&RegRef::UReg(UReg::new(2).unwrap())));
    assert!(reads.contains(&RegRef::UReg(UReg::new(3).unwrap())));
    assert_eq!(reads.len(), 9);
}

#[test]
fn cs2r_i_writes_a_register_pair() {
    // misc.isa: `Bitwidth<rd> = 64;`
    assert_eq!(
        operand(Opcode::Cs2rI.out_list(), "rd").bitwidth,
        Bitwidth::Fixed(64)
    );
    let cs2r = Cs2rI::new(r(4), SReg::SrClocklo);
    assert_eq!(cs2r.rd_bitwidth(), 64);
    assert_eq!(
        cs2r.writes().collect::<Vec<_>>(),
        [RegRef::Reg(r(4)), RegRef::Reg(r(5))]
    );
    let to_rz = Cs2rI::new(Reg::RZ, SReg::SrClocklo);
    assert_eq!(to_rz.writes().count(), 0, "writes to RZ are dropped");
    let guarded = Cs2rI {
        pg: Pred::new(2).unwrap(),
        ..cs2r
    };
    assert_eq!(
        guarded.reads().collect::<Vec<_>>(),
        [RegRef::Pred(Pred::new(2).unwrap())]
    );
}

#[test]
fn bra_u_requires_div_or_conv() {
    // bru.isa: EncodingError<IllegalBitFieldValue, "BRA_U should be used with .DIV/.CONV.">
    // The checked constructor takes `cond` (the condition reads it) and refuses a bad one.
    let err = BraU::new(
        UReg::new(1).unwrap(),
        SImm50::new(0x10).unwrap(),
        BraCond::U,
    )
    .unwrap_err();
    assert_eq!(err.message, "BRA_U should be used with .DIV/.CONV.");
    let mut bra = BraU::new(
        UReg::new(1).unwrap(),
        SImm50::new(0x10).unwrap(),
        BraCond::Div,
    )
    .unwrap();
    for cond in [BraCond::NoCond, BraCond::U] {
        bra.cond = cond;
        let err = bra.validate().unwrap_err();
        assert_eq!(err.opcode, Opcode::BraU);
        assert_eq!(err.kind, "IllegalBitFieldValue");
        assert_eq!(err.message, "BRA_U should be used with .DIV/.CONV.");
        assert_eq!(Instruction::from(bra).validate(), Err(err));
    }
    for cond in [BraCond::Div, BraCond::Conv] {
        bra.cond = cond;
        assert_eq!(bra.validate(), Ok(()));
        assert_eq!(Instruction::from(bra).validate(), Ok(()));
    }
}

// ---------------------------------------------------------------------------------
// Whole tables
// ---------------------------------------------------------------------------------

#[test]
fn opcode_count() {
    assert_eq!(Opcode::ALL.len(), 135);
    assert_eq!(model().opcodes.len(), 135);
}

#[test]
fn fields_tile_the_field_mask() {
    for &op in Opcode::ALL {
        let info = op.info();
        let mut union = 0u128;
        let mut fixed = 0u128;
        let mut fixed_bits = 0u128;
        for f in info.fields {
            assert!(
                f.width > 0 && f.start + f.width <= 128,
                "{op}.{}: bits {}..{}",
                f.name,
                f.start,
                f.start + f.width
            );
            let mask = isa_gen::model::mask(f.start, f.width);
            assert_eq!(union & mask, 0, "{op}.{} overlaps another field", f.name);
            union |= mask;
            if let FieldRole::Fixed(code) = f.role {
                assert_eq!(code >> f.width, 0, "{op}.{}: fixed code too wide", f.name);
                fixed |= mask;
                fixed_bits |= code << f.start;
            }
        }
        assert_eq!(union, info.field_mask, "{op}: fields vs field_mask");
        assert_eq!(
            info.fixed_mask & !info.field_mask,
            0,
            "{op}: fixed_mask ⊄ field_mask"
        );
        assert_eq!(fixed, info.fixed_mask, "{op}: fixed fields vs fixed_mask");
        assert_eq!(
            fixed_bits, info.fixed_bits,
            "{op}: fixed codes vs fixed_bits"
        );
        assert_eq!(info.fixed_bits & !info.fixed_mask, 0);
        let names: HashSet<_> = info.fields.iter().map(|f| f.name).collect();
        assert_eq!(names.len(), info.fields.len(), "{op}: duplicate field name");
        // Every operand is encoded by fields of the opcode (words by none).
        for o in info.order.iter().chain(info.in_list).chain(info.out_list) {
            for f in o.fields {
                assert!(
                    names.contains(f),
                    "{op}: operand {} uses unknown field {f}",
                    o.name
                );
            }
        }
    }
}

#[test]
fn no_two_opcodes_share_fixed_bits() {
    let all = Opcode::ALL;
    for (k, a) in all.iter().enumerate() {
        for b in &all[k + 1..] {
            let (a, b) = (a.info(), b.info());
            let common = a.fixed_mask & b.fixed_mask;
            assert_ne!(
                a.fixed_bits & common,
                b.fixed_bits & common,
                "{} and {} can match the same word",
                a.name,
                b.name
            );
        }
    }
}

#[test]
fn generated_metadata_matches_the_model() {
    let m = model();
    for op in &m.opcodes {
        let g: Opcode = op.name.parse().unwrap();
        let info = g.info();
        assert_eq!(info.name, op.name);
        assert_eq!(info.fixed_mask, op.fixed_mask, "{}", op.name);
        assert_eq!(info.fixed_bits, op.fixed_bits, "{}", op.name);
        assert_eq!(info.field_mask, op.covered, "{}", op.name);
        if let Some(ot) = op.optype {
            assert_eq!(info.optype, m.def(ot).name);
        }
        assert_eq!(info.fields.len(), op.fields.len(), "{}", op.name);
        for (gf, mf) in info.fields.iter().zip(&op.fields) {
            assert_eq!(gf.name, mf.name, "{}", op.name);
            assert_eq!(
                (gf.start, gf.width),
                (mf.start, mf.width),
                "{}.{}",
                op.name,
                mf.name
            );
            assert_eq!(gf.type_name, m.ty(mf.ty).name, "{}.{}", op.name, mf.name);
            assert_eq!(gf.default, mf.default, "{}.{}", op.name, mf.name);
            let same_role = match (gf.role, mf.role) {
                (FieldRole::Fixed(a), Role::Fixed(b)) => a == b,
                (FieldRole::Operand, Role::Operand) => true,
                (FieldRole::Modifier, Role::Modifier) => true,
                (FieldRole::SubField(parent), Role::SubField(p)) => parent == op.fields[p].name,
                _ => false,
            };
            assert!(
                same_role,
                "{}.{}: {:?} vs {:?}",
                op.name, mf.name, gf.role, mf.role
            );
        }
        let order: Vec<_> = op
            .order
            .iter()
            .map(|o| expected_operand(m, op, o.kind))
            .collect();
        let list = |r: &ListRef| match *r {
            ListRef::Field(f) => expected_operand(m, op, ModelKind::Field(f)),
            ListRef::Word(w) => expected_operand(m, op, ModelKind::Word(w)),
            ListRef::Indexed { file, reg, offset } => {
                expected_operand(m, op, ModelKind::RegIndexed { file, reg, offset })
            }
        };
        let in_list: Vec<_> = op.in_list.iter().map(list).collect();
        let out_list: Vec<_> = op.out_list.iter().map(list).collect();
        for (what, generated, expected) in [
            ("Order", info.order, order),
            ("InList", info.in_list, in_list),
            ("OutList", info.out_list, out_list),
        ] {
            assert_eq!(generated.len(), expected.len(), "{} {what}", op.name);
            for (g, e) in generated.iter().zip(expected) {
                let at = format!("{} {what} {}", op.name, g.name);
                assert_eq!(g.fields, e.fields, "{at}");
                if let [only] = e.fields.as_slice() {
                    assert_eq!(g.name, only, "{at}");
                }
                let kind_ok = match (g.kind, &e.kind) {
                    (OperandKind::Register(a), Expected::Register(b))
                    | (OperandKind::Immediate(a), Expected::Immediate(b))
                    | (OperandKind::Enum(a), Expected::Enum(b))
                    | (OperandKind::RegisterIndexed(a), Expected::RegisterIndexed(b)) => a == b,
                    (OperandKind::ConstMem, Expected::ConstMem)
                    | (OperandKind::ConstMemIndexed, Expected::ConstMemIndexed)
                    | (OperandKind::Word, Expected::Word) => true,
                    _ => false,
                };
                assert!(kind_ok, "{at}: {:?} vs {:?}", g.kind, e.kind);
                match (g.bitwidth, e.bitwidth) {
                    (_, None) => {}
                    (Bitwidth::Depends(_), Some(ExpectedWidth::Depends)) => {}
                    (Bitwidth::Fixed(a), Some(ExpectedWidth::Fixed(b))) if a == b => {}
                    (Bitwidth::Unspecified, Some(ExpectedWidth::Unspecified)) => {}
                    (g, e) => panic!("{at}: bitwidth {g:?}, model says {e:?}"),
                }
                assert_eq!(g.optional, e.optional, "{at}");
            }
        }
    }
}

/// What the model says about an operand.
struct ExpectedOperand {
    fields: Vec<String>,
    kind: Expected,
    /// Only for single-field operands.
    bitwidth: Option<ExpectedWidth>,
    optional: bool,
}

#[derive(Debug)]
enum Expected {
    Register(String),
    Immediate(String),
    Enum(String),
    RegisterIndexed(String),
    ConstMem,
    ConstMemIndexed,
    Word,
}

#[derive(Debug)]
enum ExpectedWidth {
    Fixed(u32),
    Depends,
    Unspecified,
}

fn expected_operand(m: &Model, op: &isa_gen::model::Opcode, kind: ModelKind) -> ExpectedOperand {
    let name = |f: usize| op.fields[f].name.clone();
    match kind {
        ModelKind::Field(f) => {
            let field = &op.fields[f];
            let ty = m.ty(field.ty);
            let kind = match ty.kind {
                // Register files and enumerations declared `__DefRegisters` (`BReg`).
                _ if m.is_register_type(field.ty) => Expected::Register(ty.name.clone()),
                TypeKind::RegFile(_) => unreachable!("register files are register types"),
                TypeKind::Immediate { .. } => Expected::Immediate(ty.name.clone()),
                TypeKind::ConstMem { .. } => Expected::ConstMem,
                TypeKind::Enum(_) => Expected::Enum(ty.name.clone()),
            };
            let bitwidth = match op.bitwidth(f) {
                None => ExpectedWidth::Unspecified,
                Some(b) => match b.expr.as_const() {
                    Some(v) => ExpectedWidth::Fixed(v as u32),
                    None => ExpectedWidth::Depends,
                },
            };
            ExpectedOperand {
                fields: vec![name(f)],
                kind,
                bitwidth: Some(bitwidth),
                optional: field.default.is_some(),
            }
        }
        ModelKind::CMemIndexed { mem, reg } => ExpectedOperand {
            fields: vec![name(mem), name(reg)],
            kind: Expected::ConstMemIndexed,
            bitwidth: None,
            optional: false,
        },
        ModelKind::RegIndexed { file, reg, offset } => ExpectedOperand {
            fields: vec![name(reg), name(offset)],
            kind: Expected::RegisterIndexed(m.ty(file).name.clone()),
            bitwidth: None,
            optional: false,
        },
        ModelKind::Word(_) => ExpectedOperand {
            fields: vec![],
            kind: Expected::Word,
            bitwidth: None,
            optional: false,
        },
    }
}

#[test]
fn opcode_display_from_str_round_trip() {
    let mut seen = HashSet::new();
    for &op in Opcode::ALL {
        let name = op.to_string();
        assert_eq!(name, op.name());
        assert_eq!(name, op.info().name);
        assert_eq!(Opcode::from_str(&name), Ok(op));
        assert!(seen.insert(name), "duplicate opcode name");
    }
    assert_eq!(Opcode::from_str("SHFL_RRR"), Ok(Opcode::ShflRrr));
    assert!(Opcode::from_str("shfl_rrr").is_err());
    assert!(Opcode::from_str("SHFL").is_err());
    assert!(Opcode::from_str("").is_err());
}

// ---------------------------------------------------------------------------------
// Value types
// ---------------------------------------------------------------------------------

/// Display/FromStr round trip of every value of enum types, and agreement with the
/// model's names and codes.
macro_rules! check_enums {
    ($($ty:ident = $spec:literal),* $(,)?) => {$({
        let t = model().ty(model().type_by_name($spec).unwrap());
        let values = t.enum_values().unwrap();
        assert_eq!($ty::ALL.len(), values.len(), $spec);
        for (&v, mv) in $ty::ALL.iter().zip(values) {
            assert_eq!(v.name(), mv.name, $spec);
            assert_eq!(v.bits() as u128, mv.code, $spec);
            assert_eq!(v.to_string(), mv.name);
            assert_eq!($ty::from_str(&mv.name), Ok(v));
            assert_eq!($ty::from_bits(v.bits()), Some(v));
        }
        for code in 0..(1u32 << t.width.min(8)) {
            assert_eq!(
                $ty::from_bits(code as _).is_some(),
                t.is_valid_code(code as u128),
                "{} code {code:#x}", $spec
            );
        }
        let err = $ty::from_str("NOT_A_VALUE").unwrap_err();
        assert_eq!(err.type_name, $spec);
    })*};
}

#[test]
fn enum_display_from_str_round_trip() {
    use isa::{
        BSel, BasePcMode, BoolOp, BrClear, CompOp, CwMode, ExBool, Flosh, IExt, IType, Leasx32,
        Lohi, Movw, Optype, PrmtMode, ReduxOp, ReduxdType, SType, ShfDir, ShfdType, ShflMode,
        SignModi, UsType, VoteOp,
    };
    check_enums!(
        SReg = "SReg",
        MemdType = "MEMDType",
        Optype = "Optype",
        SType = "SType",
        UsType = "USType",
        PModi = "PModi",
        SignModi = "SignModi",
        BSel = "BSel",
        IExt = "IExt",
        IType = "IType",
        Lohi = "LOHI",
        Movw = "MOVW",
        CompOp = "CompOp",
        BoolOp = "BoolOp",
        ExBool = "EXBool",
        ShfdType = "SHFDType",
        CwMode = "CWMode",
        ShfDir = "SHFDir",
        Leasx32 = "LEASX32",
        Flosh = "FLOSH",
        PrmtMode = "PRMTMode",
        BraCond = "BRACond",
        BasePcMode = "BasePCMode",
        BReg = "BReg",
        BrClear = "BRClear",
        ShflMode = "SHFLMode",
        VoteOp = "VOTEOp",
        MatchOp = "MATCHOp",
        MatchdType = "MATCHDType",
        ReduxOp = "REDUXOp",
        ReduxdType = "REDUXDType",
    );
}

#[test]
fn enum_spot_checks() {
    assert_eq!(SReg::from_str("SR_CTAID.X"), Ok(SReg::SrCtaidX));
    assert_eq!(SReg::SrCtaidX.to_string(), "SR_CTAID.X");
    assert_eq!(SReg::from_str("SRZ").map(SReg::bits), Ok(0xff));
    assert!(
        SReg::from_str("SR_CLOCK").is_err(),
        "SR_CLOCK is commented out in misc.isa"
    );
    assert_eq!(MemdType::from_str("32"), Ok(MemdType::V32));
    assert_eq!(MemdType::V32.to_string(), "32");
    assert_eq!(MemdType::from_str("128"), Ok(MemdType::V128));
    assert!(MemdType::from_str("V32").is_err());
    assert!(MemdType::from_str(".32").is_err());
}

#[test]
fn register_parsing_and_printing() {
    assert_eq!(Reg::from_str("R5"), Ok(r(5)));
    assert_eq!(Reg::from_str("R0"), Ok(r(0)));
    assert_eq!(Reg::from_str("R254"), Ok(r(254)));
    assert_eq!(Reg::from_str("RZ"), Ok(Reg::RZ));
    for bad in [
        "R255", "R05", "R00", "UR5", "R", "", "r5", "R-1", "R+5", " R5", "R5 ", "RZ0",
    ] {
        assert!(Reg::from_str(bad).is_err(), "{bad:?} accepted");
    }
    assert_eq!(Reg::from_str("R255").unwrap_err().type_name, "Reg");
    for code in 0..=255u8 {
        let reg = Reg::from_bits(code).unwrap();
        assert_eq!(Reg::from_str(&reg.to_string()), Ok(reg));
        assert_eq!(reg.is_constant(), code == 255);
    }
    assert_eq!(Reg::new(255), None, "RZ is not a numbered register");
    assert_eq!(r(254).offset(1), None);
    assert_eq!(Reg::RZ.offset(0), None);
    assert_eq!(r(3).offset(1), Some(r(4)));

    assert_eq!(UReg::from_str("UR62").map(UReg::bits), Ok(62));
    assert_eq!(UReg::from_str("URZ"), Ok(UReg::URZ));
    assert!(UReg::from_str("UR63").is_err());
    assert!(UReg::from_str("R5").is_err());
    assert_eq!(UReg::from_bits(64), None);
    assert_eq!(Pred::from_str("PT"), Ok(Pred::PT));
    assert_eq!(
        Pred::from_str("P6").map(|p| p.to_string()),
        Ok("P6".to_string())
    );
    assert!(Pred::from_str("P7").is_err());
    assert_eq!(Pred::from_bits(8), None);
    assert_eq!(UPred::UPT.to_string(), "UPT");
}

#[test]
fn immediate_bounds() {
    assert_eq!(SImm32::MIN, i32::MIN);
    assert_eq!(SImm32::MAX, i32::MAX);
    assert_eq!(SImm32::new(i32::MIN).map(SImm32::get), Some(i32::MIN));
    assert_eq!(SImm32::new(-1).map(SImm32::bits), Some(0xffff_ffff));
    assert_eq!(
        SImm32::from_bits(0x8000_0000).map(SImm32::get),
        Some(i32::MIN)
    );
    assert_eq!(
        SImm32::from_bits(0x7fff_ffff).map(SImm32::get),
        Some(i32::MAX)
    );
    assert_eq!(SImm32::new(-16).unwrap().to_string(), "-0x10");
    assert_eq!(SImm32::new(16).unwrap().to_string(), "0x10");

    assert_eq!((SImm7::MIN, SImm7::MAX), (-64, 63));
    assert!(SImm7::new(64).is_none() && SImm7::new(-65).is_none());
    assert_eq!(SImm7::from_bits(0x40).map(SImm7::get), Some(-64));
    assert_eq!(SImm7::from_bits(0x80), None);
    assert_eq!(SImm7::from_bits_masked(0xff).get(), -1);

    assert_eq!((SImm50::MIN, SImm50::MAX), (-(1 << 49), (1 << 49) - 1));
    assert!(SImm50::new(1 << 49).is_none());
    assert!(SImm50::new(-(1 << 49) - 1).is_none());
    assert_eq!(SImm50::from_bits(1 << 50), None);
    assert_eq!(SImm50::from_bits((1 << 50) - 1).map(SImm50::get), Some(-1));
    assert_eq!(SImm50::new(-1).map(SImm50::bits), Some((1 << 50) - 1));

    assert_eq!(isa::UImm13::new(0x1fff).map(isa::UImm13::get), Some(0x1fff));
    assert!(isa::UImm13::new(0x2000).is_none());
    assert!(isa::UImm5::new(32).is_none());
}

#[test]
fn constant_memory_operands() {
    let c = CMem::new(0x3, 0x180).unwrap();
    assert_eq!(c.to_string(), "c[0x3][0x180]");
    assert_eq!((c.bank(), c.offset()), (0x3, 0x180));
    assert_eq!(c.bits(), 0x3 << 17 | 0x180);
    assert_eq!(CMem::from_bits(c.bits()), Some(c));

    let neg = CMem::new(0x1, -0x1).unwrap();
    assert_eq!(neg.to_string(), "c[0x1][-0x1]");
    assert_eq!(neg.offset(), -1);
    assert_eq!(neg.bits(), 1 << 17 | 0x1ffff);
    assert_eq!(CMem::from_bits(neg.bits()).map(CMem::offset), Some(-1));

    assert_eq!(
        CMem::new(31, CMem::OFFSET_MAX).map(|c| c.offset()),
        Some(65535)
    );
    assert_eq!(
        CMem::new(0, CMem::OFFSET_MIN).map(|c| c.offset()),
        Some(-65536)
    );
    assert!(CMem::new(32, 0).is_none());
    assert!(CMem::new(0, 65536).is_none());
    assert!(CMem::new(0, -65537).is_none());
    assert_eq!(CMem::from_bits(1 << 22), None);
    assert_eq!(CMem::new(0, -0x10).unwrap().to_string(), "c[0x0][-0x10]");
}
