//! Round trips of the generated codec, checked against the spec's model.
//!
//! The interpreting tier of `isa-gen` (`Model::decode`/`Model::encode`) is the oracle:
//! the generated decoder must accept exactly the words the model accepts, give the same
//! opcode and field codes, and reject every other word for the same reason (opcode,
//! then reserved bits, then the first invalid field in field order).
//!
//! Every opcode is tested explicitly (a loop over `model.opcodes`, each with its own
//! proptest runner), so no opcode depends on random selection to be covered.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

use isa::{
    BmovX, BraCond, BraU, CMem, Cs2rI, DecodeError, Instruction, MatchR, MatchdType, MemdType,
    Opcode, PModi, Pred, ReduxOp, ReduxR, ReduxdType, RegRef, SImm50, SReg, ShflMode, ShflRrr,
    SignModi, UPred, UReg, UldcU, Up2urUu,
};
use isa_gen::model::interp::{DecodeFailure, Decoded};
use isa_gen::model::{Access, Model, RegSource, Role, TypeKind};
use proptest::prelude::*;
use proptest::sample::select;
use proptest::test_runner::{Config, TestCaseError, TestRunner};

// ---------------------------------------------------------------------------------
// Shared helpers
// ---------------------------------------------------------------------------------

/// The checked model of isa-spec/, loaded once per test binary.
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

/// The generated opcode with the model opcode's spec name.
fn gen_opcode(m: &Model, i: usize) -> Opcode {
    let name = &m.opcodes[i].name;
    name.parse()
        .unwrap_or_else(|_| panic!("no generated Opcode for spec opcode {name}"))
}

/// A proptest runner with `cases` cases and no regression files (the runners are
/// driven by hand, so there is no source file to put them next to).
fn runner(cases: u32) -> TestRunner {
    TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    })
}

/// Runs `test` on `strategy` with a runner of `cases` cases; a failure names the opcode.
fn run_for_opcode<S: Strategy>(
    what: &str,
    opcode: &str,
    cases: u32,
    strategy: &S,
    test: impl Fn(S::Value) -> Result<(), TestCaseError>,
) where
    S::Value: std::fmt::Debug,
{
    if let Err(e) = runner(cases).run(strategy, test) {
        panic!("{what}: opcode {opcode}: {e}");
    }
}

macro_rules! define_per_opcode {
    ($($v:ident)*) => {
        /// `decode_fields` of the concrete struct of `op`, wrapped in an `Instruction`.
        fn decode_fields_for(op: Opcode, word: u128) -> Result<Instruction, DecodeError> {
            match op {
                $(Opcode::$v => isa::$v::decode_fields(word).map(Instruction::$v),)*
            }
        }

        /// The concrete struct's constants and methods agree with the enum-level ones.
        fn check_concrete(insn: &Instruction) {
            match insn {
                $(Instruction::$v(i) => {
                    assert_eq!(isa::$v::OPCODE, Opcode::$v);
                    let info = Opcode::$v.info();
                    assert_eq!(isa::$v::FIXED_MASK, info.fixed_mask);
                    assert_eq!(isa::$v::FIXED_BITS, info.fixed_bits);
                    assert_eq!(isa::$v::FIELD_MASK, info.field_mask);
                    assert_eq!(i.encode(), insn.encode());
                    assert!(i.reads().eq(insn.reads()));
                    assert!(i.writes().eq(insn.writes()));
                    assert_eq!(i.validate(), insn.validate());
                    assert_eq!(Instruction::from(*i), *insn);
                })*
            }
        }

        /// Every opcode `for_each_opcode!` lists, in order.
        const LISTED_OPCODES: &[Opcode] = &[$(Opcode::$v),*];
    };
}
isa::for_each_opcode!(define_per_opcode);

/// Values of every field of opcode `i` (fixed ones at their code) that the model calls
/// legal: enums take a defined code, register files a valid register, immediates and
/// constant-memory operands any value of their width (biased towards the edges).
fn legal_values(m: &Model, i: usize) -> Vec<BoxedStrategy<u128>> {
    m.opcodes[i]
        .fields
        .iter()
        .map(|f| {
            if let Role::Fixed(code) = f.role {
                return Just(code).boxed();
            }
            let ty = m.ty(f.ty);
            match &ty.kind {
                TypeKind::Enum(values) => {
                    select(values.iter().map(|v| v.code).collect::<Vec<_>>()).boxed()
                }
                TypeKind::RegFile(rf) => {
                    let named: Vec<u128> = rf.named.iter().map(|(_, c)| *c).collect();
                    if named.is_empty() {
                        (rf.lo..=rf.hi).boxed()
                    } else {
                        prop_oneof![3 => rf.lo..=rf.hi, 1 => select(named)].boxed()
                    }
                }
                TypeKind::Immediate { .. } | TypeKind::ConstMem { .. } => {
                    let width = f.width.min(ty.width);
                    let mask = isa_gen::model::mask(0, width);
                    let mut edges = vec![0, 1, mask, mask >> 1];
                    if width > 1 {
                        edges.push(1 << (width - 1));
                    }
                    prop_oneof![
                        3 => any::<u128>().prop_map(move |v| v & mask),
                        1 => select(edges),
                    ]
                    .boxed()
                }
            }
        })
        .collect()
}

/// A legal word of opcode `i` (as field values and the word).
fn legal_word(m: &'static Model, i: usize) -> impl Strategy<Value = (Vec<u128>, u128)> {
    legal_values(m, i).prop_map(move |values| {
        let word = m.encode(&Decoded {
            opcode: i,
            values: values.clone(),
        });
        (values, word)
    })
}

/// The registers the register operands of opcode `i` with access `of` cover
/// (`InList` for reads, with any operand in neither list; `OutList` for writes), in
/// the model's order of register operands, computed from the model: constant
/// registers are left out, a register operand of Bitwidth `b` spans `ceil(b / 32)`
/// consecutive numbered registers (at least one), a fixed word such as `UPR` stands
/// for its whole register range, an indexed one for every numbered register of its
/// file, and an enum operand such as `BReg` is listed as is.
fn expected_regs(
    m: &Model,
    i: usize,
    values: &[u128],
    of: fn(Access) -> bool,
) -> Vec<(String, u128)> {
    let op = &m.opcodes[i];
    let mut out = Vec::new();
    for r in op.reg_operands(m).iter().filter(|r| of(r.access)) {
        match r.source {
            RegSource::Word(w) => {
                let w = &m.words[w.0];
                let ty = m.ty(w.reg_file);
                let rf = ty.reg_file().expect("operand words name a register file");
                for n in w.lo..=w.hi {
                    if (rf.lo..=rf.hi).contains(&n) {
                        out.push((ty.name.clone(), n));
                    }
                }
            }
            // Any register of the file: which one, only the run knows.
            RegSource::Indexed { file, .. } => {
                let ty = m.ty(file);
                let rf = ty
                    .reg_file()
                    .expect("an indexed operand names a register file");
                for n in rf.lo..=rf.hi {
                    out.push((ty.name.clone(), n));
                }
            }
            RegSource::Field(f) => {
                let ty = m.ty(op.fields[f].ty);
                match &ty.kind {
                    TypeKind::RegFile(rf) => {
                        let code = values[f];
                        if !(rf.lo..=rf.hi).contains(&code) {
                            continue; // a constant register: no state
                        }
                        let bits = op.bitwidth(f).map_or(32, |b| b.expr.eval(&|k| values[k]));
                        let count = (bits.max(1) as u128).div_ceil(32);
                        for k in 0..count {
                            if code + k > rf.hi {
                                break;
                            }
                            out.push((ty.name.clone(), code + k));
                        }
                    }
                    TypeKind::Enum(_) => out.push((ty.name.clone(), values[f])),
                    TypeKind::Immediate { .. } | TypeKind::ConstMem { .. } => {}
                }
            }
        }
    }
    out
}

/// A generated register reference as (spec type name, code).
fn reg_ref(r: RegRef) -> (String, u128) {
    let (ty, code) = match r {
        RegRef::Reg(r) => ("Reg", r.bits() as u128),
        RegRef::UReg(r) => ("UReg", r.bits() as u128),
        RegRef::Pred(r) => ("Pred", r.bits() as u128),
        RegRef::UPred(r) => ("UPred", r.bits() as u128),
        RegRef::BReg(r) => ("BReg", r.bits() as u128),
    };
    (ty.to_string(), code)
}

/// Checks a legal word of opcode `i` with field codes `values` against every view of it.
fn check_legal_word(m: &Model, i: usize, values: &[u128], word: u128) -> Result<(), TestCaseError> {
    let op = &m.opcodes[i];
    for (f, v) in op.fields.iter().zip(values) {
        prop_assert!(
            m.ty(f.ty).is_valid_code(*v),
            "generator bug: {} = {v:#x}",
            f.name
        );
    }
    // The oracle accepts it with exactly these fields.
    prop_assert_eq!(
        m.decode(word),
        Ok(Decoded {
            opcode: i,
            values: values.to_vec()
        })
    );

    let insn = match Instruction::decode(word) {
        Ok(insn) => insn,
        Err(e) => return Err(TestCaseError::fail(format!("{word:#034x} rejected: {e:?}"))),
    };
    prop_assert_eq!(insn.opcode().name(), op.name.as_str());
    prop_assert_eq!(insn.opcode(), gen_opcode(m, i));
    prop_assert_eq!(insn.encode(), word);
    prop_assert_eq!(decode_fields_for(insn.opcode(), word), Ok(insn));
    check_concrete(&insn);

    // Registers read and written follow the register operands' access (the In/Out
    // lists), Bitwidth and constant registers.
    prop_assert_eq!(insn.reads().len(), insn.reads().count());
    prop_assert_eq!(insn.writes().len(), insn.writes().count());
    let reads: Vec<_> = insn.reads().map(reg_ref).collect();
    let writes: Vec<_> = insn.writes().map(reg_ref).collect();
    prop_assert_eq!(reads, expected_regs(m, i, values, Access::reads), "reads");
    prop_assert_eq!(
        writes,
        expected_regs(m, i, values, Access::writes),
        "writes"
    );
    // And they are the registers of the register operands the soundness test holds to
    // the simulator (`isa-runtime/tests/soundness.rs`), constants left out.
    let of = |f: fn(Access) -> bool| -> Vec<_> {
        insn.reg_operands()
            .filter(|o| f(o.access))
            .flat_map(|o| o.regs())
            .filter(|r| !r.is_constant())
            .collect()
    };
    prop_assert!(insn.reads().eq(of(Access::reads)), "reads: reg_operands");
    prop_assert!(insn.writes().eq(of(Access::writes)), "writes: reg_operands");

    // Bitwidth: the spec expression evaluated on the fields; none for other names.
    for (k, f) in op.fields.iter().enumerate() {
        let expected = op
            .bitwidth(k)
            .map(|b| b.expr.eval(&|j| values[j]).clamp(0, u32::MAX as i128) as u32);
        prop_assert_eq!(insn.bitwidth(&f.name), expected, "bitwidth({})", f.name);
    }
    prop_assert_eq!(insn.bitwidth("no_such_operand"), None);

    // validate(): the first `__Exception` condition that holds.
    let failed = op
        .exceptions
        .iter()
        .find(|e| e.cond.eval(&|j| values[j]) != 0);
    match (insn.validate(), failed) {
        (Ok(()), None) => {}
        (Err(e), Some(x)) => {
            prop_assert_eq!(e.opcode, insn.opcode());
            prop_assert_eq!(e.kind, x.kind.as_str());
            prop_assert_eq!(e.message, x.message.as_str());
        }
        (got, want) => {
            return Err(TestCaseError::fail(format!(
                "validate() = {got:?}, the model's exceptions say {:?}",
                want.map(|x| &x.message)
            )))
        }
    }
    Ok(())
}

/// The generated decoder and the model agree on `word`: acceptance, opcode, fields
/// (through the re-encoding) and the failure reason. Accepted words re-encode to
/// themselves, and `decode_fields` of the matched opcode gives the same answer.
fn check_agreement(m: &Model, word: u128) -> Result<Outcome, TestCaseError> {
    let generated = Instruction::decode(word);
    let oracle = m.decode(word);
    let outcome = match (&generated, &oracle) {
        (Ok(insn), Ok(d)) => {
            prop_assert_eq!(insn.opcode().name(), m.opcodes[d.opcode].name.as_str());
            prop_assert_eq!(insn.encode(), word);
            prop_assert_eq!(m.encode(d), word);
            Outcome::Accepted
        }
        (Err(DecodeError::UnknownOpcode { word: w }), Err(DecodeFailure::NoOpcode)) => {
            prop_assert_eq!(*w, word);
            Outcome::UnknownOpcode
        }
        (
            Err(DecodeError::ReservedBits { opcode, bits }),
            Err(DecodeFailure::ReservedBits { opcode: o, bits: b }),
        ) => {
            prop_assert_eq!(opcode.name(), m.opcodes[*o].name.as_str());
            prop_assert_eq!(*bits, *b);
            Outcome::ReservedBits
        }
        (
            Err(DecodeError::InvalidField {
                opcode,
                field,
                value,
            }),
            Err(DecodeFailure::InvalidField {
                opcode: o,
                field: f,
                value: v,
            }),
        ) => {
            prop_assert_eq!(opcode.name(), m.opcodes[*o].name.as_str());
            prop_assert_eq!(*field, m.opcodes[*o].fields[*f].name.as_str());
            prop_assert_eq!(*value, *v);
            Outcome::InvalidField
        }
        _ => {
            return Err(TestCaseError::fail(format!(
                "{word:#034x}: generated decoder says {generated:?}, model says {oracle:?}"
            )))
        }
    };
    if let Some(i) = m.match_opcode(word) {
        prop_assert_eq!(decode_fields_for(gen_opcode(m, i), word), generated);
    }
    Ok(outcome)
}

/// What happened to a word (both decoders agreeing).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Outcome {
    Accepted,
    UnknownOpcode,
    ReservedBits,
    InvalidField,
}

/// Counts outcomes so a test can show it exercised every path.
#[derive(Default)]
struct Tally([AtomicUsize; 4]);

impl Tally {
    fn add(&self, o: Outcome) -> Outcome {
        self.0[o as usize].fetch_add(1, Ordering::Relaxed);
        o
    }

    fn assert_saw(&self, what: &str, outcomes: &[Outcome]) {
        for &o in outcomes {
            let n = self.0[o as usize].load(Ordering::Relaxed);
            assert!(n > 0, "{what}: no word ended as {o:?}");
        }
    }
}

/// A word with the bits at these positions flipped.
fn flip(word: u128, bits: &[u32]) -> u128 {
    bits.iter().fold(word, |w, b| w ^ (1u128 << b))
}

// ---------------------------------------------------------------------------------
// Every opcode: legal words round trip
// ---------------------------------------------------------------------------------

#[test]
fn opcode_list_matches_the_model() {
    let m = model();
    assert_eq!(Opcode::ALL.len(), m.opcodes.len());
    assert_eq!(
        LISTED_OPCODES,
        Opcode::ALL,
        "for_each_opcode! lists every opcode in order"
    );
    for (i, op) in m.opcodes.iter().enumerate() {
        assert_eq!(gen_opcode(m, i).name(), op.name);
    }
}

#[test]
fn every_opcode_random_legal_fields_round_trip() {
    let m = model();
    for i in 0..m.opcodes.len() {
        run_for_opcode(
            "legal round trip",
            &m.opcodes[i].name,
            256,
            &legal_word(m, i),
            |(values, word)| check_legal_word(m, i, &values, word),
        );
    }
}

#[test]
fn every_opcode_default_instruction_decodes_to_it() {
    let m = model();
    for (i, op) in m.opcodes.iter().enumerate() {
        let d = m.default_instruction(i);
        let word = m.encode(&d);
        assert_eq!(word & op.fixed_mask, op.fixed_bits, "{}", op.name);
        let insn = Instruction::decode(word)
            .unwrap_or_else(|e| panic!("{}: default word {word:#034x}: {e}", op.name));
        assert_eq!(insn.opcode().name(), op.name);
        assert_eq!(insn.encode(), word);
        check_legal_word(m, i, &d.values, word).unwrap_or_else(|e| panic!("{}: {e}", op.name));

        // The fixed bits alone (every other bit zero) select this opcode: they decode to
        // it, or fail on one of its fields, never on another opcode or reserved bits.
        match Instruction::decode(op.fixed_bits) {
            Ok(insn) => assert_eq!(insn.opcode().name(), op.name),
            Err(DecodeError::InvalidField { opcode, .. }) => assert_eq!(opcode.name(), op.name),
            Err(e) => panic!("{}: fixed bits alone: {e}", op.name),
        }
        check_agreement(m, op.fixed_bits).unwrap_or_else(|e| panic!("{}: {e}", op.name));
    }
}

// ---------------------------------------------------------------------------------
// Arbitrary words: never panic, agree with the model
// ---------------------------------------------------------------------------------

proptest! {
    #![proptest_config(Config { cases: 4096, ..Config::default() })]

    #[test]
    fn uniform_random_words_agree_with_the_model(word in any::<u128>()) {
        check_agreement(model(), word)?;
    }

    /// Random words whose low bits are some opcode's fixed bits: these get past opcode
    /// matching, so they exercise the reserved-bit and field checks.
    #[test]
    fn random_words_with_valid_fixed_bits_agree_with_the_model(
        rest in any::<u128>(),
        pick in any::<prop::sample::Index>(),
    ) {
        let m = model();
        let op = &m.opcodes[pick.index(m.opcodes.len())];
        let word = (rest & !op.fixed_mask) | op.fixed_bits;
        prop_assert_ne!(check_agreement(m, word)?, Outcome::UnknownOpcode);
    }
}

#[test]
fn every_opcode_near_valid_words_agree_with_the_model() {
    let m = model();
    let tally = Tally::default();
    for i in 0..m.opcodes.len() {
        let op = &m.opcodes[i];
        // 1-3 flips anywhere in the word.
        run_for_opcode(
            "near-valid (any bit)",
            &op.name,
            128,
            &(legal_word(m, i), prop::collection::vec(0u32..128, 1..=3)),
            |((_, word), flips)| {
                check_agreement(m, flip(word, &flips))
                    .map(|o| tally.add(o))
                    .map(drop)
            },
        );
        // 1-3 flips inside the opcode's fields: exercises invalid field codes.
        let covered: Vec<u32> = (0..128).filter(|b| op.covered >> b & 1 == 1).collect();
        run_for_opcode(
            "near-valid (field bits)",
            &op.name,
            128,
            &(
                legal_word(m, i),
                prop::collection::vec(select(covered), 1..=3),
            ),
            |((_, word), flips)| {
                check_agreement(m, flip(word, &flips))
                    .map(|o| tally.add(o))
                    .map(drop)
            },
        );
    }
    tally.assert_saw(
        "near-valid words",
        &[
            Outcome::Accepted,
            Outcome::UnknownOpcode,
            Outcome::ReservedBits,
            Outcome::InvalidField,
        ],
    );
}

// ---------------------------------------------------------------------------------
// Exact errors
// ---------------------------------------------------------------------------------

#[test]
fn all_zero_word_is_unknown_opcode() {
    assert_eq!(
        Instruction::decode(0),
        Err(DecodeError::UnknownOpcode { word: 0 })
    );
    assert_eq!(model().decode(0), Err(DecodeFailure::NoOpcode));
}

#[test]
fn optype_with_an_undefined_stype_is_unknown_opcode() {
    // SHFL (optype 0x01) exists only as RRR/RRI/RIR/RI; stype X (0) is none of them.
    let word = ShflRrr::FIXED_BITS & 0xff;
    assert_eq!(word, 0x01);
    assert_eq!(
        Instruction::decode(word),
        Err(DecodeError::UnknownOpcode { word })
    );
    assert_eq!(
        check_agreement(model(), word).unwrap(),
        Outcome::UnknownOpcode
    );
}

#[test]
fn shfl_with_a_reserved_bit_is_reserved_bits() {
    let shfl = ShflRrr::new(
        Pred::new(1).unwrap(),
        isa::Reg::new(1).unwrap(),
        isa::Reg::new(0).unwrap(),
        isa::Reg::new(2).unwrap(),
        isa::Reg::new(3).unwrap(),
        ShflMode::Up,
    );
    assert_eq!(
        ShflRrr::FIELD_MASK >> 127,
        0,
        "bit 127 is reserved in SHFL_RRR"
    );
    let word = shfl.encode() | 1 << 127;
    assert_eq!(
        Instruction::decode(word),
        Err(DecodeError::ReservedBits {
            opcode: Opcode::ShflRrr,
            bits: 1 << 127
        })
    );
    assert_eq!(
        ShflRrr::decode_fields(word),
        Err(DecodeError::ReservedBits {
            opcode: Opcode::ShflRrr,
            bits: 1 << 127
        })
    );
}

#[test]
fn every_reserved_bit_of_every_opcode_is_reported_exactly() {
    let m = model();
    for (i, op) in m.opcodes.iter().enumerate() {
        let base = m.encode(&m.default_instruction(i));
        let g = gen_opcode(m, i);
        for b in (0..128).filter(|b| op.covered >> b & 1 == 0) {
            let word = base | 1 << b;
            assert_eq!(
                Instruction::decode(word),
                Err(DecodeError::ReservedBits {
                    opcode: g,
                    bits: 1 << b
                }),
                "{} bit {b}",
                op.name
            );
        }
    }
}

/// Replaces the bits of field `name` of a word of opcode `opcode` with `code`.
fn set_field(m: &Model, opcode: &str, word: u128, name: &str, code: u128) -> u128 {
    let op = &m.opcodes[m.opcode_by_name(opcode).unwrap()];
    let f = &op.fields[op.field(name).unwrap()];
    (word & !f.mask()) | (code << f.start & f.mask())
}

#[test]
fn undefined_enum_codes_are_invalid_field() {
    let m = model();
    let redux = ReduxR::new(
        isa::Reg::new(0).unwrap(),
        isa::Reg::new(1).unwrap(),
        ReduxOp::Sum,
    )
    .encode();
    // REDUXOp is 3 bits wide with 6 values: 6 and 7 are undefined.
    assert_eq!(ReduxOp::ALL.len(), 6);
    for code in [6, 7] {
        let word = set_field(m, "REDUX_R", redux, "reduxop", code);
        assert_eq!(
            Instruction::decode(word),
            Err(DecodeError::InvalidField {
                opcode: Opcode::ReduxR,
                field: "reduxop",
                value: code
            })
        );
    }
    // REDUXDType is 2 bits wide with 2 values.
    let word = set_field(m, "REDUX_R", redux, "dtype", 3);
    assert_eq!(
        Instruction::decode(word),
        Err(DecodeError::InvalidField {
            opcode: Opcode::ReduxR,
            field: "dtype",
            value: 3
        })
    );
    // Two bad fields: the first in field order (reduxop is declared before dtype).
    let word = set_field(m, "REDUX_R", word, "reduxop", 7);
    assert_eq!(
        Instruction::decode(word),
        Err(DecodeError::InvalidField {
            opcode: Opcode::ReduxR,
            field: "reduxop",
            value: 7
        })
    );
    // A bad field and a reserved bit: reserved bits win.
    let reserved = (0..128).find(|b| ReduxR::FIELD_MASK >> b & 1 == 0).unwrap();
    assert!(matches!(
        Instruction::decode(word | 1 << reserved),
        Err(DecodeError::ReservedBits { opcode: Opcode::ReduxR, bits }) if bits == 1 << reserved
    ));

    // SReg: 0x80 is not a special register.
    assert_eq!(SReg::from_bits(0x80), None);
    let cs2r = Cs2rI::new(isa::Reg::new(4).unwrap(), SReg::SrCtaidX).encode();
    let word = set_field(m, "CS2R_I", cs2r, "sreg", 0x80);
    assert_eq!(
        Instruction::decode(word),
        Err(DecodeError::InvalidField {
            opcode: Opcode::Cs2rI,
            field: "sreg",
            value: 0x80
        })
    );
}

#[test]
fn every_undefined_code_of_every_field_is_invalid_field() {
    let m = model();
    let mut checked = 0;
    for (i, op) in m.opcodes.iter().enumerate() {
        let base = m.encode(&m.default_instruction(i));
        let g = gen_opcode(m, i);
        for (_, f) in op.value_fields() {
            let ty = m.ty(f.ty);
            for code in 0..(1u128 << f.width.min(12)) {
                if ty.is_valid_code(code) {
                    continue;
                }
                let word = (base & !f.mask()) | code << f.start;
                match Instruction::decode(word) {
                    Err(DecodeError::InvalidField {
                        opcode,
                        field,
                        value,
                    }) if opcode == g && field == f.name && value == code => {}
                    other => panic!("{}.{} = {code:#x}: {other:?}", op.name, f.name),
                }
                checked += 1;
            }
        }
    }
    assert!(
        checked > 0,
        "the spec has undefined codes (REDUXOp, SReg, ...)"
    );
}

// ---------------------------------------------------------------------------------
// Typed API round trips
// ---------------------------------------------------------------------------------

/// The code of field `name` in `word`, as the model reads it.
fn model_field(word: u128, opcode: &str, name: &str) -> u128 {
    let m = model();
    let d = m.decode(word).expect("model accepts the word");
    let op = &m.opcodes[d.opcode];
    assert_eq!(op.name, opcode);
    d.values[op
        .field(name)
        .unwrap_or_else(|| panic!("{opcode} has no field {name}"))]
}

fn typed_round_trip(insn: impl Into<Instruction> + Copy + std::fmt::Debug) -> u128 {
    let insn: Instruction = insn.into();
    let word = insn.encode();
    assert_eq!(Instruction::decode(word), Ok(insn));
    assert_eq!(check_agreement(model(), word).unwrap(), Outcome::Accepted);
    word
}

#[test]
fn typed_shfl_round_trip() {
    let mut shfl = ShflRrr::new(
        Pred::new(1).unwrap(),
        isa::Reg::new(1).unwrap(),
        isa::Reg::new(0).unwrap(),
        isa::Reg::new(2).unwrap(),
        isa::Reg::new(3).unwrap(),
        ShflMode::Up,
    );
    assert_eq!(shfl.pg, Pred::PT, "the guard defaults to PT");
    assert_eq!(shfl.pg_not, PModi::False);
    let word = typed_round_trip(shfl);
    assert_eq!(model_field(word, "SHFL_RRR", "pu"), 1);
    assert_eq!(model_field(word, "SHFL_RRR", "rd"), 1);
    assert_eq!(model_field(word, "SHFL_RRR", "ra"), 0);
    assert_eq!(model_field(word, "SHFL_RRR", "rb"), 2);
    assert_eq!(model_field(word, "SHFL_RRR", "rc"), 3);
    assert_eq!(
        model_field(word, "SHFL_RRR", "mode"),
        ShflMode::Up.bits() as u128
    );
    assert_eq!(model_field(word, "SHFL_RRR", "pg"), 7);

    shfl.pg = Pred::new(3).unwrap();
    shfl.pg_not = PModi::True;
    shfl.rc = isa::Reg::RZ;
    shfl.mode = ShflMode::Bfly;
    let word = typed_round_trip(shfl);
    assert_eq!(model_field(word, "SHFL_RRR", "pg"), 3);
    assert_eq!(model_field(word, "SHFL_RRR", "pg.not"), 1);
    assert_eq!(model_field(word, "SHFL_RRR", "rc"), 255);
    assert_eq!(
        model_field(word, "SHFL_RRR", "mode"),
        ShflMode::Bfly.bits() as u128
    );
}

#[test]
fn typed_match_redux_round_trip() {
    let mut mat = MatchR::new(
        isa::Reg::new(7).unwrap(),
        Pred::new(2).unwrap(),
        isa::Reg::new(10).unwrap(),
        isa::MatchOp::All,
    );
    assert_eq!(mat.dtype, MatchdType::U32);
    mat.dtype = MatchdType::U64;
    let word = typed_round_trip(mat);
    assert_eq!(
        model_field(word, "MATCH_R", "dtype"),
        MatchdType::U64.bits() as u128
    );
    assert_eq!(model_field(word, "MATCH_R", "ra"), 10);

    let mut redux = ReduxR::new(isa::Reg::new(254).unwrap(), isa::Reg::RZ, ReduxOp::Max);
    redux.dtype = ReduxdType::S32;
    let word = typed_round_trip(redux);
    assert_eq!(model_field(word, "REDUX_R", "rd"), 254);
    assert_eq!(
        model_field(word, "REDUX_R", "reduxop"),
        ReduxOp::Max.bits() as u128
    );
}

#[test]
fn typed_bra_round_trip() {
    let mut bra = BraU::new(
        UReg::new(4).unwrap(),
        SImm50::new(-3).unwrap(),
        BraCond::Div,
    )
    .unwrap();
    bra.pp = Pred::new(5).unwrap();
    bra.pp_not = PModi::True;
    bra.ura_bitnot = SignModi::True;
    let word = typed_round_trip(bra);
    // The offset is two's complement in its 50 bits.
    assert_eq!(model_field(word, "BRA_U", "offset"), (1u128 << 50) - 3);
    assert_eq!(model_field(word, "BRA_U", "pp"), 5);
    assert_eq!(model_field(word, "BRA_U", "ura.bitnot"), 1);
    let Ok(Instruction::BraU(back)) = Instruction::decode(word) else {
        panic!("BRA_U decodes to BraU")
    };
    assert_eq!(back.offset.get(), -3);

    bra.offset = SImm50::new(SImm50::MIN).unwrap();
    typed_round_trip(bra);
    bra.offset = SImm50::new(SImm50::MAX).unwrap();
    typed_round_trip(bra);
}

#[test]
fn typed_uniform_round_trip() {
    let mut uldc = UldcU::new(
        UReg::new(5).unwrap(),
        CMem::new(0x3, -0x10).unwrap(),
        UReg::new(2).unwrap(),
    );
    assert_eq!(uldc.dtype, MemdType::V32, "ULDC defaults to .32");
    uldc.dtype = MemdType::V64;
    uldc.upg = UPred::new(6).unwrap();
    let word = typed_round_trip(uldc);
    assert_eq!(model_field(word, "ULDC_U", "vb"), uldc.vb.bits() as u128);
    assert_eq!(
        model_field(word, "ULDC_U", "dtype"),
        MemdType::V64.bits() as u128
    );
    let Ok(Instruction::UldcU(back)) = Instruction::decode(word) else {
        panic!("ULDC_U decodes to UldcU")
    };
    assert_eq!((back.vb.bank(), back.vb.offset()), (0x3, -0x10));

    let mut up2ur = Up2urUu::new(UReg::URZ, UReg::new(62).unwrap(), UReg::new(0).unwrap());
    up2ur.bsel = isa::BSel::B3;
    typed_round_trip(up2ur);

    let mut bmov = BmovX::new(isa::Reg::new(6).unwrap(), isa::BReg::B15);
    bmov.clear = isa::BrClear::Clear;
    let word = typed_round_trip(bmov);
    assert_eq!(model_field(word, "BMOV_X", "breg"), 15);
    assert_eq!(model_field(word, "BMOV_X", "clear"), 1);

    typed_round_trip(Cs2rI::new(isa::Reg::new(4).unwrap(), SReg::SrClocklo));
}
