//! The matcher over a small hand-written instruction set: words built, forms chosen,
//! and errors ranked, placed and worded, without a generated crate.

// The helpers return what `assemble` returns (its error is large on purpose: it holds
// every candidate's expectations without allocating).
#![allow(clippy::result_large_err)]

extern crate std;
use std::string::{String, ToString};

use super::*;
use crate::expr::{BinOp, Op};
use crate::lex::lex;

const REG: Names<'static> = Names {
    named: &[("RZ", 255)],
    numbered: Some(("R", 0, 254)),
};
const PRED: Names<'static> = Names {
    named: &[("PT", 7)],
    numbered: Some(("P", 0, 6)),
};
const HALF: Names<'static> = Names {
    named: &[("H0", 0), ("H1", 1)],
    numbered: None,
};
const CMP: Names<'static> = Names {
    named: &[("EQ", 0), ("GT", 2), ("LT", 1)],
    numbered: None,
};
const FILES: &[RegFile<'static>] = &[
    RegFile {
        type_name: "Reg",
        prefix: "R",
        lo: 0,
        hi: 254,
        named: "RZ",
    },
    RegFile {
        type_name: "Pred",
        prefix: "P",
        lo: 0,
        hi: 6,
        named: "PT",
    },
];

/// Where the fields of this toy set are: 8 bits of opcode at 0, a modifier bit at 8,
/// registers at 16, 24 and 40, `-` of the second at 32, the third's half at 48, the
/// guard at 125 and its `!` at 124.
const OPC: At = At::new(0, 8);
const FTZ: At = At::new(8, 1);
const RD: At = At::new(16, 8);
const RA: At = At::new(24, 8);
const NEG_A: At = At::new(32, 1);
const RB: At = At::new(40, 8);
const HALF_B: At = At::new(48, 1);
const GUARD: At = At::new(125, 3);
const NOT: At = At::new(124, 1);

const fn reg(at: At, label: &'static str, subs: &'static [Sub<'static>]) -> OperandSpec<'static> {
    OperandSpec {
        subs,
        ..registers(at, label, Count::Fixed(1))
    }
}

/// A register operand at `at` spanning `count` registers.
const fn registers(at: At, label: &'static str, count: Count<'static>) -> OperandSpec<'static> {
    OperandSpec {
        kind: Kind::Reg {
            name: REG,
            prefix: "R",
            lo: 0,
            hi: 254,
            count,
        },
        at,
        subs: &[],
        label,
        expected: "a Reg",
        optional: false,
    }
}

const fn imm(
    at: At,
    label: &'static str,
    width: u8,
    signed: bool,
    addr: ImmAddr,
) -> OperandSpec<'static> {
    OperandSpec {
        kind: Kind::Imm {
            type_name: "SImm8",
            width,
            signed,
            addr,
            shift: 2,
        },
        at,
        subs: &[],
        label,
        expected: "a SImm8",
        optional: false,
    }
}

/// An enumeration operand at `RA`.
const fn enumeration(
    name: Names<'static>,
    type_name: &'static str,
    values: &'static [&'static str],
    label: &'static str,
    expected: &'static str,
) -> OperandSpec<'static> {
    OperandSpec {
        kind: Kind::Enum {
            name,
            type_name,
            values,
        },
        at: RA,
        subs: &[],
        label,
        expected,
        optional: false,
    }
}

/// `cmp`, a `Cmp` at `RA`.
const CMP_OPERAND: OperandSpec<'static> =
    enumeration(CMP, "Cmp", &["EQ", "LT", "GT"], "cmp", "a Cmp");

const GUARD_SPEC: GuardSpec<'static> = GuardSpec {
    at: GUARD,
    name: PRED,
    type_name: "Pred",
    not: Some(Sub {
        at: NOT,
        role: SubRole::Not,
        set: 1,
        unset: 0,
        default: 0,
    }),
};
const FTZ_MOD: ModSpec<'static> = ModSpec {
    at: FTZ,
    field: "ftz",
    values: &[("FTZ", 1)],
    required: false,
    values_text: "`.FTZ`",
};
const NEG: &[Sub<'static>] = &[Sub {
    at: NEG_A,
    role: SubRole::Neg(None),
    set: 1,
    unset: 0,
    default: 0,
}];
const HALVES: &[Sub<'static>] = &[Sub {
    at: HALF_B,
    role: SubRole::Suffix(HALF),
    set: 0,
    unset: 0,
    default: 0,
}];

/// The base word of opcode `code`: its code and the guard's default `PT`.
const fn base(code: u128) -> u128 {
    code | 7 << 125
}

/// `ADD rd, ra, rb`: guard, `.FTZ`, `-ra`, `rb.H1`.
const ADD_R: OpcodeSpec<'static> = OpcodeSpec {
    mnemonic: "ADD",
    fields: &["rd", "ra", "rb", "pg"],
    mods_text: ".FTZ",
    base: base(1),
    mods: &[FTZ_MOD],
    guard: Some(GUARD_SPEC),
    operands: &[
        reg(RD, "rd", &[]),
        reg(RA, "ra", NEG),
        reg(RB, "rb", HALVES),
    ],
    req_after: &[2, 1, 0],
    exceptions: &[],
    places: &[],
    files: FILES,
};

/// `ADD rd, ra, imm`: an 8-bit signed immediate at 40.
const ADD_I: OpcodeSpec<'static> = OpcodeSpec {
    mnemonic: "ADD",
    fields: &["rd", "ra", "imm", "pg"],
    mods_text: ".FTZ",
    base: base(2),
    mods: &[FTZ_MOD],
    guard: Some(GUARD_SPEC),
    operands: &[
        reg(RD, "rd", &[]),
        reg(RA, "ra", NEG),
        imm(RB, "imm", 8, true, ImmAddr::No),
    ],
    req_after: &[2, 1, 0],
    exceptions: &[],
    places: &[],
    files: FILES,
};

/// `SET rd, cmp`: an enumeration operand, a required modifier, no guard, and an
/// exception (`rd` may not be `R0`).
const SET: OpcodeSpec<'static> = OpcodeSpec {
    mnemonic: "SET",
    fields: &["rd", "cmp", "mode"],
    mods_text: ".U32 .S32",
    base: 3,
    mods: &[ModSpec {
        at: FTZ,
        field: "mode",
        values: &[("S32", 1), ("U32", 0)],
        required: true,
        values_text: "`.U32`, `.S32`",
    }],
    guard: None,
    operands: &[reg(RD, "rd", &[]), CMP_OPERAND],
    req_after: &[1, 0],
    exceptions: &[Exception {
        cond: &[Op::Field(0), Op::Int(0), Op::Bin(BinOp::Eq)],
        kind: "IllegalInstructionEncoding",
        message: "rd may not be R0",
    }],
    places: &[RD],
    files: FILES,
};

/// `BRA target`: a relative address in 4-byte units, 8 bits signed; a guard that
/// cannot be negated.
const BRA: OpcodeSpec<'static> = OpcodeSpec {
    mnemonic: "BRA",
    fields: &["target", "pg"],
    mods_text: "",
    base: base(4),
    mods: &[],
    guard: Some(GuardSpec {
        not: None,
        ..GUARD_SPEC
    }),
    operands: &[imm(RB, "target", 8, true, ImmAddr::Rel)],
    req_after: &[0],
    exceptions: &[],
    places: &[],
    files: FILES,
};

/// `LDC rd, c[bank][offset]` (a 2-bit bank over an 8-bit unsigned offset at 40), then
/// an optional predicate `pp` (default `PT`) and a register pair `rp`.
const LDC: OpcodeSpec<'static> = OpcodeSpec {
    mnemonic: "LDC",
    fields: &["rd", "mem", "pp", "rp"],
    mods_text: "",
    base: 5 | 7 << 56,
    mods: &[],
    guard: None,
    operands: &[
        reg(RD, "rd", &[]),
        OperandSpec {
            kind: Kind::CMem {
                bank_bits: 2,
                offset_bits: 8,
                signed: false,
            },
            at: At::new(40, 10),
            subs: &[],
            label: "mem",
            expected: "a constant-memory operand c[bank][offset]",
            optional: false,
        },
        OPT_P,
        registers(RA, "rp", Count::Fixed(2)),
    ],
    req_after: &[2, 1, 1, 0],
    exceptions: &[],
    places: &[],
    files: FILES,
};

/// The forms of each mnemonic, as a generated crate's dispatch hands them over.
fn forms(mnemonic: &str) -> &'static [&'static OpcodeSpec<'static>] {
    match mnemonic {
        "ADD" => &[&ADD_R, &ADD_I],
        "SET" => &[&SET],
        "BRA" => &[&BRA],
        "LDC" => &[&LDC],
        _ => &[],
    }
}

/// Assembles `line` at address `addr`; one label, `loop`, at 0x40.
fn asm_at(line: &str, addr: u64) -> Result<u128, AsmError<'static>> {
    let l = lex(line)?;
    let labels = |name: &str| (name == "loop").then_some(0x40);
    assemble(&l, 1, forms(l.parts[0].0), addr, &labels)
}

fn asm(line: &str) -> Result<u128, AsmError<'static>> {
    asm_at(line, 0)
}

/// The error of `line`: its span's text and its message.
fn error(line: &str) -> (String, String) {
    let e = asm(line).expect_err(line);
    let found = line.get(e.start..e.end).unwrap_or("?").to_string();
    (found, e.display(line).to_string())
}

fn word(fields: &[(At, u128)], base: u128) -> u128 {
    let mut w = base;
    for &(at, v) in fields {
        at.write(&mut w, v);
    }
    w
}

#[test]
fn forms_are_chosen_by_their_operands_and_every_written_part_is_placed() {
    assert_eq!(
        asm("ADD R1, R2, R3"),
        Ok(word(&[(RD, 1), (RA, 2), (RB, 3)], base(1)))
    );
    assert_eq!(
        asm("ADD R1, R2, -0x5"),
        Ok(word(&[(OPC, 2), (RD, 1), (RA, 2), (RB, 0xfb)], base(2))),
        "the immediate form"
    );
    // Guard, its negation, a modifier, a prefix and a suffix.
    assert_eq!(
        asm("@!P3 ADD.FTZ RZ, -R2, R3.H1"),
        Ok(word(
            &[
                (GUARD, 3),
                (NOT, 1),
                (FTZ, 1),
                (RD, 255),
                (RA, 2),
                (NEG_A, 1),
                (RB, 3),
                (HALF_B, 1)
            ],
            base(1)
        ))
    );
    // A signed immediate may be written as its bit pattern.
    assert_eq!(
        asm("ADD R1, R2, 0xff"),
        Ok(word(&[(OPC, 2), (RD, 1), (RA, 2), (RB, 0xff)], base(2)))
    );
    assert_eq!(
        asm("SET.S32 R1, GT"),
        Ok(word(&[(FTZ, 1), (RD, 1), (RA, 2)], 3))
    );
}

#[test]
fn addresses_are_relative_to_the_next_instruction_in_their_units() {
    // From 0x10, the next instruction is at 0x20: `loop` (0x40) is 8 units of 4 on.
    assert_eq!(
        asm_at("BRA `(loop)", 0x10),
        Ok(word(&[(OPC, 4), (RB, 8)], base(4)))
    );
    assert_eq!(
        asm_at("BRA 0x0", 0x10),
        Ok(word(&[(OPC, 4), (RB, 0xf8)], base(4))),
        "backwards"
    );
    let e = asm_at("BRA 0x22", 0x10).unwrap_err();
    assert!(matches!(
        e.kind,
        AsmErrorKind::Invalid {
            problem: Problem::Misaligned(0x22, 4, 0x20),
            ..
        }
    ));
    // 8 bits of 4-byte units reach 0x20 - 0x200 ..= 0x20 + 0x1fc.
    let e = asm_at("BRA 0x220", 0x10).unwrap_err();
    assert!(matches!(
        e.kind,
        AsmErrorKind::Invalid {
            problem: Problem::TargetRange(0x220, Some((-0x1e0, 0x21c))),
            ..
        }
    ));
    assert_eq!(
        error("BRA `(nowhere)"),
        (
            "`(nowhere)".to_string(),
            "`BRA` operand 1 (target): undefined label `nowhere`".to_string()
        )
    );
}

#[test]
fn constant_memory_optional_operands_and_register_ranges() {
    let w = |pp: u128, bank: u128, off: u128| {
        word(
            &[
                (RD, 1),
                (At::new(40, 10), bank << 8 | off),
                (At::new(56, 3), pp),
                (RA, 4),
            ],
            LDC.base,
        )
    };
    assert_eq!(
        asm("LDC R1, c[0x3][0x10], R[4:5]"),
        Ok(w(7, 3, 0x10)),
        "no `pp`"
    );
    assert_eq!(asm("LDC R1, c[0x1][0xff], P2, R[4:5]"), Ok(w(2, 1, 0xff)));
    let e = asm("LDC R1, c[0x4][0x0], R[4:5]").unwrap_err();
    assert!(matches!(
        e.kind,
        AsmErrorKind::Invalid {
            index: 2,
            problem: Problem::Bank(4, 2),
            ..
        }
    ));
    let e = asm("LDC R1, c[0x0][0x100], R[4:5]").unwrap_err();
    assert!(matches!(
        e.kind,
        AsmErrorKind::Invalid {
            problem: Problem::Offset(0x100, 0, 0xff),
            ..
        }
    ));
    // A pair written as one register, and a range of the wrong width.
    let e = asm("LDC R1, c[0x0][0x0], R4").unwrap_err();
    assert!(matches!(
        e.kind,
        AsmErrorKind::Invalid {
            index: 4,
            problem: Problem::NeedsRange(64, "R", 4),
            ..
        }
    ));
    let e = asm("LDC R1, c[0x0][0x0], R[4:6]").unwrap_err();
    assert!(matches!(
        e.kind,
        AsmErrorKind::Invalid {
            problem: Problem::RangeWidth("R", 4, 6, 64),
            ..
        }
    ));
    // With as many tokens as required operands, the optional `pp` is not tried: the
    // predicate is `rp`'s token, of the wrong kind.
    assert_eq!(
        error("LDC R1, c[0x0][0x0], P1"),
        (
            "P1".to_string(),
            "`LDC` operand 4 (rp): expected a Reg, found P1".to_string()
        )
    );
}

#[test]
fn the_most_specific_failure_of_all_forms_is_reported() {
    // `R3` fits no immediate and `0x100` no register: the immediate form got further
    // (its third operand is of the right kind, only its value is wrong).
    assert_eq!(
        error("ADD R1, R2, 0x100"),
        (
            "0x100".to_string(),
            "`ADD` operand 3 (imm): immediate 0x100 does not fit SImm8 (-0x80..=0x7f, or \
             its 8-bit pattern up to 0xff)"
                .to_string()
        )
    );
    // A kind that neither form takes: what both expected, merged.
    assert_eq!(
        error("ADD R1, R2, GT"),
        (
            "GT".to_string(),
            "`ADD` operand 3 (rb or imm): expected a Reg or a SImm8, found GT".to_string()
        )
    );
    assert_eq!(
        error("ADD R1, R2"),
        (
            String::new(),
            "`ADD` operand 3 (rb or imm) is missing: expected a Reg or a SImm8".to_string()
        )
    );
    let (found, message) = error("ADD R1, R2, R3, R4");
    assert_eq!(found, "R4");
    assert!(
        message.contains("`ADD`") && message.contains('3'),
        "{message}"
    );
    assert!(matches!(
        asm("ADD R1, R2, R3, R4").unwrap_err().kind,
        AsmErrorKind::TooMany(3, 4, false)
    ));
}

#[test]
fn modifiers_guards_and_exceptions_are_checked_where_they_are_written() {
    assert_eq!(
        error("ADD.FZT R1, R2, R3"),
        (
            ".FZT".to_string(),
            "unknown modifier `.FZT` for `ADD` (did you mean `.FTZ`?)".to_string()
        )
    );
    assert_eq!(
        error("ADD.FTZ.FTZ R1, R2, R3"),
        (
            ".FTZ".to_string(),
            "modifier `.FTZ` is given twice".to_string()
        )
    );
    let e = asm("ADD.FTZ.FTZ R1, R2, R3").unwrap_err();
    assert_eq!((e.start, e.end), (7, 11), "the second `.FTZ`");
    assert_eq!(
        error("SET.U32.S32 R1, GT").1,
        "`.S32` and `.U32` both set the `.mode` modifier of `SET`"
    );
    assert_eq!(
        error("SET R1, GT").1,
        "`SET` needs its `.mode` modifier: one of `.U32`, `.S32`"
    );
    assert_eq!(
        error("@P0 SET.U32 R1, GT").1,
        "`SET.U32` takes no guard predicate"
    );
    assert_eq!(
        error("@R1 ADD R1, R2, R3").1,
        "guard of `ADD`: expected a Pred, found `R1`"
    );
    assert_eq!(
        error("@!P1 BRA 0x0").1,
        "the guard of `BRA` cannot be negated"
    );
    let e = asm("SET.U32 R0, EQ").unwrap_err();
    assert_eq!(
        e.kind,
        AsmErrorKind::Exception("IllegalInstructionEncoding", "rd may not be R0")
    );
    assert_eq!((e.start, e.end), (0, 7), "the mnemonic and its modifiers");
    // A prefix an operand does not take.
    assert!(matches!(
        asm("SET.U32 R1, -GT").unwrap_err().kind,
        AsmErrorKind::Invalid {
            index: 2,
            problem: Problem::Prefix('-', false),
            ..
        }
    ));
    assert!(matches!(
        asm("ADD R1, R2, -R3").unwrap_err().kind,
        AsmErrorKind::Invalid {
            index: 3,
            problem: Problem::Prefix('-', false),
            ..
        }
    ));
    // A suffix that belongs to another operand names it.
    assert!(matches!(
        asm("ADD R1, R2.H1, R3").unwrap_err().kind,
        AsmErrorKind::Invalid {
            index: 2,
            problem: Problem::Suffix(false, _, _, 3, "rb"),
            ..
        }
    ));
}

const UREG: Names<'static> = Names {
    named: &[("URZ", 63)],
    numbered: Some(("UR", 0, 62)),
};
const MODE: At = At::new(8, 2);
const ADDR: At = At::new(40, 8);
const MEM: At = At::new(40, 10);

const fn form(
    mnemonic: &'static str,
    code: u128,
    mods: &'static [ModSpec<'static>],
    operands: &'static [OperandSpec<'static>],
) -> OpcodeSpec<'static> {
    OpcodeSpec {
        mnemonic,
        fields: &["rd", "ra", "rb"],
        mods_text: "",
        base: code,
        mods,
        guard: None,
        operands,
        req_after: &[4, 3, 2, 1, 0],
        exceptions: &[],
        places: &[],
        files: FILES,
    }
}

const fn addr_imm(mode: ImmAddr, signed: bool) -> OperandSpec<'static> {
    OperandSpec {
        kind: Kind::Imm {
            type_name: "UImm8",
            width: 8,
            signed,
            addr: mode,
            shift: 2,
        },
        at: ADDR,
        subs: &[],
        label: "addr",
        expected: "an address",
        optional: false,
    }
}

/// `.ABS`/`.REL` choose how `JMP`'s address reads.
const JMP_MODE: ModSpec<'static> = ModSpec {
    at: MODE,
    field: "mode",
    values: &[("ABS", 1), ("REL", 0)],
    required: false,
    values_text: "`.REL`, `.ABS`",
};
/// `.X` chooses `~` over `-` for `ADDX`'s second operand.
const X_MOD: ModSpec<'static> = ModSpec {
    at: FTZ,
    field: "x",
    values: &[("X", 1)],
    required: false,
    values_text: "`.X`",
};
const SUBS: &[Sub<'static>] = &[
    Sub {
        at: At::new(33, 1),
        role: SubRole::Not,
        set: 1,
        unset: 0,
        default: 0,
    },
    Sub {
        at: At::new(34, 1),
        role: SubRole::BitNot,
        set: 1,
        unset: 0,
        default: 0,
    },
];
const NEG_X: &[Sub<'static>] = &[Sub {
    at: NEG_A,
    role: SubRole::Neg(Some((FTZ, 1))),
    set: 1,
    unset: 0,
    default: 0,
}];

const MOVA: OpcodeSpec<'static> = form(
    "MOVA",
    6,
    &[],
    &[reg(RD, "rd", &[]), addr_imm(ImmAddr::Abs, false)],
);
const MOVS: OpcodeSpec<'static> = form(
    "MOVS",
    7,
    &[],
    &[reg(RD, "rd", &[]), addr_imm(ImmAddr::Scaled, true)],
);
const JMP: OpcodeSpec<'static> = form(
    "JMP",
    8,
    &[JMP_MODE],
    &[addr_imm(ImmAddr::Select { mode: MODE, abs: 1 }, true)],
);
const LDU: OpcodeSpec<'static> = form(
    "LDU",
    9,
    &[],
    &[
        reg(RD, "rd", &[]),
        OperandSpec {
            kind: Kind::CMemIdx {
                bank_bits: 2,
                offset_bits: 8,
                signed: true,
                reg: RA,
                reg_name: REG,
                reg_type: "Reg",
                zero: Some(255),
            },
            at: MEM,
            subs: &[],
            label: "mem",
            expected: "a constant-memory operand",
            optional: false,
        },
    ],
);
const LDV: OpcodeSpec<'static> = form(
    "LDV",
    10,
    &[],
    &[OperandSpec {
        kind: Kind::CMemIdx {
            bank_bits: 2,
            offset_bits: 8,
            signed: false,
            reg: RA,
            reg_name: REG,
            reg_type: "Reg",
            zero: None,
        },
        at: MEM,
        subs: &[],
        label: "mem",
        expected: "a constant-memory operand",
        optional: false,
    }],
);
const LDS: OpcodeSpec<'static> = form(
    "LDS",
    11,
    &[],
    &[
        reg(RD, "rd", &[]),
        OperandSpec {
            kind: Kind::RegIdx {
                prefix: "UR",
                reg_name: UREG,
                reg_type: "UReg",
                off: ADDR,
                off_width: 8,
                off_signed: true,
            },
            at: RA,
            subs: &[],
            label: "src",
            expected: "an indexed operand UR[URn+offset]",
            optional: false,
        },
    ],
);
const MOVW: OpcodeSpec<'static> = form(
    "MOVW",
    12,
    &[],
    &[
        reg(RD, "rd", &[]),
        OperandSpec {
            kind: Kind::Word("UPR"),
            at: At::new(0, 0),
            subs: &[],
            label: "upr",
            expected: "`UPR`",
            optional: false,
        },
    ],
);
const LOP: OpcodeSpec<'static> = form("LOP", 13, &[], &[reg(RD, "rd", &[]), reg(RA, "ra", SUBS)]);
const ADDX: OpcodeSpec<'static> = form(
    "ADDX",
    14,
    &[X_MOD],
    &[reg(RD, "rd", &[]), reg(RA, "ra", NEG_X)],
);

fn more_forms(mnemonic: &str) -> &'static [&'static OpcodeSpec<'static>] {
    match mnemonic {
        "MOVA" => &[&MOVA],
        "MOVS" => &[&MOVS],
        "JMP" => &[&JMP],
        "LDU" => &[&LDU],
        "LDV" => &[&LDV],
        "LDS" => &[&LDS],
        "MOVW" => &[&MOVW],
        "LOP" => &[&LOP],
        "ADDX" => &[&ADDX],
        m => forms(m),
    }
}

/// [`asm_at`] over every form of this file, at 0x10.
fn asm2(line: &str) -> Result<u128, AsmError<'static>> {
    let l = lex(line)?;
    let labels = |name: &str| (name == "loop").then_some(0x40);
    assemble(&l, 1, more_forms(l.parts[0].0), 0x10, &labels)
}

fn message(line: &str) -> String {
    let e = asm2(line).expect_err(line);
    e.display(line).to_string()
}

#[test]
fn absolute_scaled_and_chosen_addresses() {
    let w = |code: u128, v: u128| word(&[(RD, 1), (ADDR, v)], code);
    assert_eq!(asm2("MOVA R1, 0x10"), Ok(w(6, 4)));
    assert_eq!(
        asm2("MOVA R1, `(loop)"),
        Ok(w(6, 0x10)),
        "a label, absolute"
    );
    assert_eq!(asm2("MOVA R1, 0x3fc"), Ok(w(6, 0xff)));
    assert_eq!(
        message("MOVA R1, 0x11"),
        "`MOVA` operand 2 (addr): address 0x11 is not a multiple of 0x4"
    );
    assert_eq!(
        message("MOVA R1, 0x400"),
        "`MOVA` operand 2 (addr): address 0x400 is out of range (0x0..=0x3fc)"
    );
    assert_eq!(
        message("MOVA R1, -0x4"),
        "`MOVA` operand 2 (addr): address -0x4 is out of range (0x0..=0x3fc)"
    );
    assert_eq!(asm2("MOVS R1, -0x8"), Ok(w(7, 0xfe)), "scaled, signed");
    assert_eq!(
        message("MOVS R1, 0x200"),
        "`MOVS` operand 2 (addr): immediate 0x200 is out of range (-0x200..=0x1fc)"
    );
    assert_eq!(
        message("MOVS R1, 0x6"),
        "`MOVS` operand 2 (addr): immediate 0x6 is not a multiple of 0x4"
    );
    assert_eq!(
        message("MOVS R1, `(loop)"),
        "`MOVS` operand 2 (addr): a label is only allowed as a branch target"
    );
    assert_eq!(
        message("MOVS R1, -0x8.H1"),
        "`MOVS` operand 2 (addr): an immediate takes no `.H1` suffix"
    );
    assert_eq!(
        message("MOVS R1, !0x8"),
        "`MOVS` operand 2 (addr): an immediate takes no `!` prefix"
    );
    // The mode modifier, read before the operand, chooses: absolute, or relative to
    // the next instruction (0x20).
    let j = |mode: u128, v: u128| word(&[(MODE, mode), (ADDR, v)], 8);
    assert_eq!(asm2("JMP.ABS 0x40"), Ok(j(1, 0x10)));
    assert_eq!(asm2("JMP 0x40"), Ok(j(0, 0x8)));
    assert_eq!(
        asm2("JMP.REL `(loop+0x4)"),
        Ok(j(0, 0x9)),
        "a label and an addend"
    );
    assert_eq!(
        message("JMP 0x10000000000000000000000000000000"),
        "`JMP` operand 1 (addr): branch target 0x10000000000000000000000000000000 is out \
         of range (-0x1e0..=0x21c)"
    );
}

#[test]
fn indexed_operands_and_fixed_words() {
    let mem = |bank: u128, off: u128| bank << 8 | off;
    assert_eq!(
        asm2("LDU R1, c[0x1][R2+0x10]"),
        Ok(word(&[(RD, 1), (MEM, mem(1, 0x10)), (RA, 2)], 9))
    );
    assert_eq!(
        asm2("LDU R1, c[0x1][R2-0x4]"),
        Ok(word(&[(RD, 1), (MEM, mem(1, 0xfc)), (RA, 2)], 9)),
        "a signed offset"
    );
    assert_eq!(
        asm2("LDU R1, c[0x2][0x10]"),
        Ok(word(&[(RD, 1), (MEM, mem(2, 0x10)), (RA, 255)], 9)),
        "no register: its zero"
    );
    assert_eq!(
        message("LDU R1, c[0x1][P1+0x10]"),
        "`LDU` operand 2 (mem): expected a Reg in `c[…][…]`, found `P1`"
    );
    assert_eq!(
        message("LDU R1, c[0x1][R2+0x80]"),
        "`LDU` operand 2 (mem): offset 0x80 is outside -0x80..=0x7f"
    );
    assert_eq!(
        message("LDV c[0x1][0x10]"),
        "`LDV` operand 1 (mem): write the address register"
    );
    assert_eq!(
        message("LDV c[0x4][R1+0x10]"),
        "`LDV` operand 1 (mem): bank 0x4 does not fit in 2 bits"
    );
    assert_eq!(
        asm2("LDS R1, UR[UR2-0x4]"),
        Ok(word(&[(RD, 1), (RA, 2), (ADDR, 0xfc)], 11))
    );
    assert_eq!(asm2("LDS R1, UR[URZ]"), Ok(word(&[(RD, 1), (RA, 63)], 11)));
    assert_eq!(
        message("LDS R1, UR[R2+0x4]"),
        "`LDS` operand 2 (src): expected a UReg as the index, found `R2`"
    );
    assert_eq!(
        message("LDS R1, UR[UR2+0x80]"),
        "`LDS` operand 2 (src): index offset 0x80 does not fit (-0x80..=0x7f)"
    );
    assert_eq!(
        message("LDS R1, -UR[UR2]"),
        "`LDS` operand 2 (src): this operand does not take a `-` prefix"
    );
    assert_eq!(
        message("LDS R1, R[UR2]"),
        "`LDS` operand 2 (src): expected an indexed operand UR[URn+offset], found R[UR2]"
    );
    assert_eq!(asm2("MOVW R1, UPR"), Ok(word(&[(RD, 1)], 12)));
    assert_eq!(
        message("MOVW R1, -UPR"),
        "`MOVW` operand 2 (upr): expected `UPR`, found -UPR"
    );
    assert_eq!(
        message("MOVW R1, UPX"),
        "`MOVW` operand 2 (upr): expected `UPR`, found UPX"
    );
    // A range of another file is not this operand's.
    assert_eq!(
        message("LDC R1, c[0x0][0x0], P[4:5]"),
        "`LDC` operand 4 (rp): expected a Reg, found P[4:5]"
    );
}

#[test]
fn prefixes_set_exactly_the_sub_fields_written() {
    let not = At::new(33, 1);
    let bitnot = At::new(34, 1);
    assert_eq!(asm2("LOP R1, R2"), Ok(word(&[(RD, 1), (RA, 2)], 13)));
    assert_eq!(
        asm2("LOP R1, !R2"),
        Ok(word(&[(RD, 1), (RA, 2), (not, 1)], 13))
    );
    assert_eq!(
        asm2("LOP R1, ~R2"),
        Ok(word(&[(RD, 1), (RA, 2), (bitnot, 1)], 13))
    );
    assert_eq!(
        message("LOP R1, -R2"),
        "`LOP` operand 2 (ra): this operand does not take a `-` prefix"
    );
    // `.X` makes the negation `~`.
    assert_eq!(
        asm2("ADDX.X R1, ~R2"),
        Ok(word(&[(FTZ, 1), (RD, 1), (RA, 2), (NEG_A, 1)], 14))
    );
    assert_eq!(
        asm2("ADDX R1, -R2"),
        Ok(word(&[(RD, 1), (RA, 2), (NEG_A, 1)], 14))
    );
    assert_eq!(
        message("ADDX.X R1, -R2"),
        "`ADDX.X` operand 2 (ra): `-` is not allowed here (with `.X`, write `~` instead of `-`)"
    );
    assert_eq!(
        message("ADDX R1, ~R2"),
        "`ADDX` operand 2 (ra): `~` is not allowed here (without `.X`, write `-` instead of `~`)"
    );
    assert_eq!(
        message("ADDX R1, !R2"),
        "`ADDX` operand 2 (ra): this operand does not take a `!` prefix"
    );
}

#[test]
fn names_that_are_not_operands_get_hints() {
    assert_eq!(
        message("ADD R1, R2, R300"),
        "`ADD` operand 3 (rb or imm): expected a Reg or a SImm8, found R300 (`R300` does \
         not exist: `Reg` has R0..R254 and RZ)"
    );
    assert_eq!(
        message("ADD R1, R2, R01"),
        "`ADD` operand 3 (rb or imm): expected a Reg or a SImm8, found R01 (`R01` does \
         not exist: `Reg` has R0..R254 and RZ)"
    );
    assert_eq!(
        message("ADD R1, R2, P7.H1"),
        "`ADD` operand 3 (rb or imm): expected a Reg or a SImm8, found P7.H1 (`P7` does \
         not exist: `Pred` has P0..P6 and PT)"
    );
    assert_eq!(
        message("ADD R1, R2, rb"),
        "`ADD` operand 3 (rb or imm): expected a Reg or a SImm8, found rb (`rb` is the \
         operand's name in the spec; write a Reg instead)"
    );
    assert_eq!(
        message("SET.U32 R1, G"),
        "`SET.U32` operand 2 (cmp): expected a Cmp, found G (did you mean `GT`?)"
    );
    assert_eq!(
        message("SET.U32 R1, EX"),
        "`SET.U32` operand 2 (cmp): expected a Cmp, found EX (did you mean `EQ`?)"
    );
    assert_eq!(
        message("SET.U32 R1, QQQQQ"),
        "`SET.U32` operand 2 (cmp): expected a Cmp, found QQQQQ (`QQQQQ` is not a value \
         of `Cmp`)"
    );
    // Registers that exist get no hint; a name of a file that is not expected neither.
    assert_eq!(
        message("SET.U32 R1, R2"),
        "`SET.U32` operand 2 (cmp): expected a Cmp, found R2 (`R2` is not a value of `Cmp`)"
    );
    // Errors count columns in characters.
    let line = "ADD R1, R2, \u{3a9}";
    let e = asm2(line).unwrap_err();
    assert_eq!((e.start, e.column(line)), (12, 13));
    let line = "ADD \u{3a9}, R2, R3";
    let e = asm2(line).unwrap_err();
    assert_eq!(e.column(line), 5);
    // The lexer's errors, in its words.
    for line in ["ADD R1,, R2", "ADD R1, R[2:", ""] {
        let e = asm2(line).unwrap_err();
        let lexed = crate::lex::lex(line).unwrap_err();
        assert_eq!((e.start, e.end), (lexed.start, lexed.end), "{line}");
        let text = e.display(line).to_string();
        assert_eq!(text, lexed.display(line).to_string(), "{line}");
        assert!(!text.is_empty());
    }
    // Too many operands, where some are optional.
    assert_eq!(
        message("LDC R1, c[0x0][0x0], P1, R[4:5], R6"),
        "too many operands: `LDC` takes at most 4, found 5"
    );
}

const ROUND: ModSpec<'static> = ModSpec {
    at: At::new(10, 2),
    field: "rnd",
    values: &[("RM", 2), ("RN", 0), ("RP", 3), ("RZ", 1)],
    required: true,
    values_text: "`.RN`, `.RZ`, `.RM`, `.RP`",
};
const WIDTH: ModSpec<'static> = ModSpec {
    at: FTZ,
    field: "width",
    values: &[("F16", 1), ("F32", 0)],
    required: false,
    values_text: "`.F32`, `.F16`",
};
const ORDER: Names<'static> = Names {
    named: &[("GE", 0), ("GEU", 2), ("GT", 1), ("GTU", 3), ("GX", 4)],
    numbered: None,
};
const OPT_P: OperandSpec<'static> = OperandSpec {
    kind: Kind::Reg {
        name: PRED,
        prefix: "P",
        lo: 0,
        hi: 6,
        count: Count::Fixed(1),
    },
    at: At::new(56, 3),
    subs: &[],
    label: "pp",
    expected: "a Pred",
    optional: true,
};

/// `CVT.F16.RN rd`: a second, required modifier.
const CVT: OpcodeSpec<'static> = OpcodeSpec {
    mods_text: ".F16 .F32 .RM .RN .RP .RZ",
    ..form("CVT", 15, &[WIDTH, ROUND], &[reg(RD, "rd", &[])])
};
/// `TST rd{, pp}`: a last operand that may be left out; `MID rd{, pp}, rb`: one in
/// the middle.
const TST: OpcodeSpec<'static> = OpcodeSpec {
    base: 16 | 7 << 56,
    req_after: &[0, 0],
    ..form("TST", 16, &[], &[reg(RD, "rd", &[]), OPT_P])
};
const MID: OpcodeSpec<'static> = OpcodeSpec {
    base: 17 | 7 << 56,
    req_after: &[1, 1, 0],
    ..form(
        "MID",
        17,
        &[],
        &[reg(RD, "rd", &[]), OPT_P, reg(RB, "rb", &[])],
    )
};
/// `ORD rd, order`: an enumeration with values that share their starts.
const ORD: OpcodeSpec<'static> = form(
    "ORD",
    18,
    &[],
    &[
        reg(RD, "rd", &[]),
        enumeration(
            ORDER,
            "Order",
            &["GE", "GT", "GEU", "GTU", "GX"],
            "order",
            "an Order",
        ),
    ],
);
/// Two forms of `PAIR`, each with an immediate too wide in one place: the error the
/// furthest along wins. `PAIRM` knows `.M` and wants a register first; `PAIRN` does
/// not know `.M`.
const fn nibble(at: At, label: &'static str) -> OperandSpec<'static> {
    OperandSpec {
        kind: Kind::Imm {
            type_name: "UImm4",
            width: 4,
            signed: false,
            addr: ImmAddr::No,
            shift: 0,
        },
        at,
        subs: &[],
        label,
        expected: "a UImm4",
        optional: false,
    }
}
const PAIR_A: OpcodeSpec<'static> = form(
    "PAIR",
    19,
    &[],
    &[nibble(RA, "a"), imm(RB, "b", 8, true, ImmAddr::No)],
);
const PAIR_B: OpcodeSpec<'static> = form(
    "PAIR",
    20,
    &[],
    &[imm(RA, "a", 8, true, ImmAddr::No), nibble(RB, "b")],
);
const M_MOD: ModSpec<'static> = ModSpec {
    at: FTZ,
    field: "m",
    values: &[("M", 1)],
    required: false,
    values_text: "`.M`",
};
const PAIR_M: OpcodeSpec<'static> = form("PAIRM", 21, &[M_MOD], &[reg(RD, "rd", &[])]);
const PAIR_N: OpcodeSpec<'static> = form("PAIRM", 22, &[], &[reg(RD, "rd", &[])]);

fn third_forms(mnemonic: &str) -> &'static [&'static OpcodeSpec<'static>] {
    match mnemonic {
        "CVT" => &[&CVT],
        "TST" => &[&TST],
        "MID" => &[&MID],
        "ORD" => &[&ORD],
        "PAIR" => &[&PAIR_A, &PAIR_B],
        "PAIRM" => &[&PAIR_N, &PAIR_M],
        m => more_forms(m),
    }
}

fn asm3(line: &str) -> Result<u128, AsmError<'static>> {
    let l = lex(line)?;
    assemble(&l, 1, third_forms(l.parts[0].0), 0x10, &|_| None)
}

fn message3(line: &str) -> String {
    asm3(line).expect_err(line).display(line).to_string()
}

#[test]
fn every_modifier_field_is_its_own() {
    let round = At::new(10, 2);
    assert_eq!(
        asm3("CVT.F16.RZ R1"),
        Ok(word(&[(FTZ, 1), (round, 1), (RD, 1)], 15))
    );
    assert_eq!(asm3("CVT.RP R1"), Ok(word(&[(round, 3), (RD, 1)], 15)));
    assert_eq!(
        message3("CVT.F16 R1"),
        "`CVT.F16` needs its `.rnd` modifier: one of `.RN`, `.RZ`, `.RM`, `.RP`"
    );
    assert_eq!(
        message3("CVT.RN.RZ R1"),
        "`.RZ` and `.RN` both set the `.rnd` modifier of `CVT`"
    );
    assert_eq!(
        message3("CVT.RQ R1"),
        "unknown modifier `.RQ` for `CVT` (did you mean `.RM`, `.RN` or `.RP`?)"
    );
    assert_eq!(
        message3("CVT.XYZZY R1"),
        "unknown modifier `.XYZZY` for `CVT` (modifiers of `CVT`: .F16 .F32 .RM .RN .RP .RZ)"
    );
    assert_eq!(
        message3("BRA.XYZZY 0x0"),
        "unknown modifier `.XYZZY` for `BRA`"
    );
}

#[test]
fn optional_operands_are_tried_only_where_the_required_ones_leave_room() {
    let pp = At::new(56, 3);
    assert_eq!(asm3("TST R1"), Ok(word(&[(RD, 1), (pp, 7)], TST.base)));
    assert_eq!(asm3("TST R1, P2"), Ok(word(&[(RD, 1), (pp, 2)], TST.base)));
    // A last optional operand that does not read its token: that token is blamed,
    // also when more follow.
    assert_eq!(
        message3("TST R1, GT"),
        "`TST` operand 2 (pp): expected a Pred, found GT"
    );
    assert_eq!(
        message3("TST R1, GT, R3"),
        "`TST` operand 2 (pp): expected a Pred, found GT"
    );
    // In the middle, with no room, it is not tried: the predicate is `rb`'s.
    assert_eq!(asm3("MID R1, R2"), Ok(word(&[(RD, 1), (RB, 2)], MID.base)));
    assert_eq!(
        message3("MID R1, P2"),
        "`MID` operand 3 (rb): expected a Reg, found P2"
    );
    assert_eq!(
        asm3("MID R1, P2, R3"),
        Ok(word(&[(RD, 1), (pp, 2), (RB, 3)], MID.base))
    );
    // Neither the optional operand nor the next reads the token.
    assert_eq!(
        message3("LDC R1, c[0x0][0x0], GT, R[4:5]"),
        "`LDC` operand 3 or 4 (pp or rp): expected a Pred or a Reg, found GT"
    );
    // As many tokens as operands, one left over: the optional one skipped is blamed.
    assert_eq!(
        message3("LDC R1, c[0x0][0x0], R[4:5], P1"),
        "`LDC` operand 3 (pp): expected a Pred, found R[4:5]"
    );
}

#[test]
fn the_error_furthest_along_wins_and_an_operand_error_beats_a_modifier_error() {
    // `PAIR_A` fails at operand 1, `PAIR_B` at operand 2: operand 2's error.
    assert_eq!(
        message3("PAIR 0x10, 0x10"),
        "`PAIR` operand 2 (b): immediate 0x10 does not fit UImm4 (0x0..=0xf)"
    );
    // Both fail at operand 1: the first form's error.
    assert_eq!(
        message3("PAIR 0x100, 0x1"),
        "`PAIR` operand 1 (a): immediate 0x100 does not fit UImm4 (0x0..=0xf)"
    );
    // `PAIR_N` does not know `.M`; `PAIR_M` does and fails at its first operand, which
    // says more.
    assert_eq!(
        message3("PAIRM.M 0x1"),
        "`PAIRM.M` operand 1 (rd): expected a Reg, found 0x1"
    );
}

#[test]
fn values_and_registers_at_the_ends_of_their_ranges() {
    let b = |v: u128| Ok(word(&[(OPC, 4), (RB, v)], base(4)));
    assert_eq!(
        asm_at("BRA -0x1e0", 0x10),
        b(0x80),
        "the first reachable target"
    );
    assert_eq!(asm_at("BRA 0x21c", 0x10), b(0x7f), "the last");
    assert!(asm_at("BRA -0x1e4", 0x10).is_err());
    let a = |code: u128, v: u128| Ok(word(&[(RD, 1), (ADDR, v)], code));
    assert_eq!(asm2("MOVA R1, 0x0"), a(6, 0));
    assert_eq!(asm2("MOVS R1, -0x200"), a(7, 0x80));
    assert_eq!(asm2("MOVS R1, 0x1fc"), a(7, 0x7f));
    let i = |v: u128| Ok(word(&[(OPC, 2), (RD, 1), (RA, 2), (RB, v)], base(2)));
    assert_eq!(asm("ADD R1, R2, -0x80"), i(0x80));
    assert_eq!(asm("ADD R1, R2, 0x7f"), i(0x7f));
    assert!(asm("ADD R1, R2, -0x81").is_err());
    let s = |v: u128| Ok(word(&[(RD, 1), (RA, 2), (ADDR, v)], 11));
    assert_eq!(asm2("LDS R1, UR[UR2-0x80]"), s(0x80));
    assert_eq!(asm2("LDS R1, UR[UR2+0x7f]"), s(0x7f));
    let m = |off: u128| Ok(word(&[(RD, 1), (MEM, 1 << 8 | off), (RA, 2)], 9));
    assert_eq!(asm2("LDU R1, c[0x1][R2-0x80]"), m(0x80));
    assert_eq!(asm2("LDU R1, c[0x1][R2+0x7f]"), m(0x7f));
}

#[test]
fn hints_name_only_what_is_wrong() {
    // Existing registers of another file, and names that only start like a
    // register, get no hint.
    assert_eq!(
        message("ADD R1, R2, P0"),
        "`ADD` operand 3 (rb or imm): expected a Reg or a SImm8, found P0"
    );
    assert_eq!(
        message("ADD R1, R2, Rx"),
        "`ADD` operand 3 (rb or imm): expected a Reg or a SImm8, found Rx"
    );
    // Values that the name starts, at most four.
    assert_eq!(
        message3("ORD R1, G"),
        "`ORD` operand 2 (order): expected an Order, found G (did you mean `GE`, `GT`, \
         `GEU` or `GTU`?)"
    );
    assert_eq!(
        message3("ORD R1, GTX"),
        "`ORD` operand 2 (order): expected an Order, found GTX (did you mean `GT`, `GTU` \
         or `GX`?)"
    );
}

const Q_LONG: OpcodeSpec<'static> = form(
    "Q",
    23,
    &[],
    &[
        reg(RD, "rd", &[]),
        imm(RA, "a", 8, true, ImmAddr::No),
        reg(RB, "rb", &[]),
    ],
);
const Q_SHORT: OpcodeSpec<'static> = form("Q", 24, &[], &[reg(RD, "rd", &[]), nibble(RA, "a")]);
const W_NIBBLE: OpcodeSpec<'static> = form("W", 25, &[], &[nibble(RA, "a"), reg(RD, "rd", &[])]);
const W_BYTES: OpcodeSpec<'static> = form(
    "W",
    26,
    &[],
    &[
        imm(RA, "a", 8, true, ImmAddr::No),
        imm(RB, "b", 8, true, ImmAddr::No),
    ],
);
const V_THREE: OpcodeSpec<'static> = form(
    "V",
    27,
    &[],
    &[reg(RD, "rd", &[]), nibble(RA, "a"), reg(RB, "rb", &[])],
);
const V_TWO: OpcodeSpec<'static> = form(
    "V",
    28,
    &[],
    &[reg(RD, "rd", &[]), imm(RA, "a", 8, true, ImmAddr::No)],
);

fn ranked(line: &str) -> String {
    let l = lex(line).unwrap();
    let cands: &[&OpcodeSpec<'static>] = match l.parts[0].0 {
        "Q" => &[&Q_LONG, &Q_SHORT],
        "W" => &[&W_NIBBLE, &W_BYTES],
        _ => &[&V_THREE, &V_TWO],
    };
    let e = assemble(&l, 1, cands, 0, &|_| None).unwrap_err();
    e.display(line).to_string()
}

/// How far a form got counts before where its error is; a form that read every
/// token, one value wrong, beats one that ran out of tokens or had tokens left.
#[test]
fn reach_counts_before_the_place_of_the_error() {
    // `Q_SHORT` read both tokens (one value wrong); `Q_LONG` ran out at operand 3.
    assert_eq!(
        ranked("Q R1, 0x10"),
        "`Q` operand 2 (a): immediate 0x10 does not fit UImm4 (0x0..=0xf)"
    );
    // `W_NIBBLE` read both (its first value wrong); `W_BYTES` stopped at operand 2.
    assert_eq!(
        ranked("W 0x10, R2"),
        "`W` operand 1 (a): immediate 0x10 does not fit UImm4 (0x0..=0xf)"
    );
    // After a wrong value the walk goes on at the next token: `V_THREE` reads `R3`,
    // and beats `V_TWO`, which has a token left over.
    assert_eq!(
        ranked("V R1, 0x10, R3"),
        "`V` operand 2 (a): immediate 0x10 does not fit UImm4 (0x0..=0xf)"
    );
}

#[test]
fn unknown_mnemonics_say_what_is_near() {
    let near = AsmError::new(0, 3, AsmErrorKind::UnknownMnemonic(["ADD", "ADDX", ""]));
    assert_eq!(
        near.display("ADB R1").to_string(),
        "unknown mnemonic `ADB` (did you mean `ADD` or `ADDX`?)"
    );
    let none = AsmError::new(0, 5, AsmErrorKind::UnknownMnemonic(["", "", ""]));
    assert_eq!(
        none.display("QQQQQ R1").to_string(),
        "unknown mnemonic `QQQQQ`"
    );
}

const MOV_2: OpcodeSpec<'static> = form("MOV", 29, &[], &[reg(RD, "rd", &[]), reg(RA, "ra", &[])]);
const MOV_3: OpcodeSpec<'static> = OpcodeSpec {
    base: 30 | 7 << 56,
    req_after: &[1, 0, 0],
    ..form(
        "MOV",
        30,
        &[],
        &[reg(RD, "rd", &[]), reg(RA, "ra", &[]), OPT_P],
    )
};

/// Of two forms that both read a line, the first in the spec's order wins, whichever
/// pass finds it.
#[test]
fn the_first_form_that_matches_wins() {
    let l = lex("MOV R1, R2").unwrap();
    let both: &[&OpcodeSpec<'static>] = &[&MOV_2, &MOV_3];
    assert_eq!(
        assemble(&l, 1, both, 0, &|_| None),
        Ok(word(&[(RD, 1), (RA, 2)], 29))
    );
    let reversed: &[&OpcodeSpec<'static>] = &[&MOV_3, &MOV_2];
    assert_eq!(
        assemble(&l, 1, reversed, 0, &|_| None),
        Ok(word(&[(RD, 1), (RA, 2)], MOV_3.base))
    );
}

/// `MID`'s operands, as a form of `X`.
const X_SKIP: OpcodeSpec<'static> = OpcodeSpec {
    mnemonic: "X",
    ..MID
};
const X_ENUM: OpcodeSpec<'static> = form(
    "X",
    32,
    &[],
    &[
        reg(RD, "rd", &[]),
        CMP_OPERAND,
        imm(RB, "rc", 8, true, ImmAddr::No),
    ],
);

/// Two failures that tie in rank merge what they expected only when they are at the
/// same place, for the same operands: here they are at different tokens.
#[test]
fn failures_at_different_places_do_not_merge() {
    // `X_SKIP` leaves `pp` out at `GT` and fails at operand 3 on it; `X_ENUM` reads
    // `GT` and fails at operand 3 on `R3`. Equal reach, equal rank: the first form's
    // error, alone.
    let line = "X R1, GT, R3";
    let l = lex(line).unwrap();
    let e = assemble(&l, 1, &[&X_SKIP, &X_ENUM], 0, &|_| None).unwrap_err();
    assert_eq!(
        e.display(line).to_string(),
        "`X` operand 2 or 3 (pp or rb): expected a Pred or a Reg, found GT"
    );
}

/// `WIDE.W rd, ra`: `rd` spans as many registers as the width modifier at `MODE`
/// says, by a list of counts by code; `ra` by the expression `32 * (mode + 1)`.
const WIDE: OpcodeSpec<'static> = OpcodeSpec {
    fields: &["mode", "rd", "ra"],
    places: &[MODE, RD, RA],
    ..form(
        "WIDE",
        33,
        &[ModSpec {
            at: MODE,
            field: "mode",
            values: &[("32", 0), ("64", 1), ("96", 2), ("128", 3)],
            required: true,
            values_text: "`.32`, `.64`, `.96`, `.128`",
        }],
        &[
            registers(
                RD,
                "rd",
                Count::Lookup {
                    at: MODE,
                    counts: &[1, 2, 3],
                },
            ),
            registers(
                RA,
                "ra",
                Count::Bits(&[
                    Op::Int(32),
                    Op::Field(0),
                    Op::Int(1),
                    Op::Bin(BinOp::Add),
                    Op::Bin(BinOp::Mul),
                ]),
            ),
        ],
    )
};

fn wide(line: &str) -> Result<u128, String> {
    let l = lex(line).map_err(|e| e.display(line).to_string())?;
    assemble(&l, 1, &[&WIDE], 0, &|_| None).map_err(|e| e.display(line).to_string())
}

/// A register operand's width is read from the modifiers already in the word: by a
/// list of counts by code, or by an expression of the fields (`Bitwidth`); a code past
/// the list spans one register.
#[test]
fn register_counts_follow_the_modifiers() {
    let w = |mode: u128, rd: u128, ra: u128| word(&[(MODE, mode), (RD, rd), (RA, ra)], 33);
    assert_eq!(wide("WIDE.32 R4, R6"), Ok(w(0, 4, 6)));
    assert_eq!(wide("WIDE.64 R[4:5], R[6:7]"), Ok(w(1, 4, 6)));
    assert_eq!(wide("WIDE.96 R[4:6], R[6:8]"), Ok(w(2, 4, 6)));
    // Past the list of counts (code 3): one register; the expression says 4.
    assert_eq!(wide("WIDE.128 R4, R[6:9]"), Ok(w(3, 4, 6)));
    assert_eq!(
        wide("WIDE.64 R4, R[6:7]").unwrap_err(),
        "`WIDE.64` operand 1 (rd): a 64-bit operand: write the register range R[4:5]"
    );
    assert_eq!(
        wide("WIDE.64 R[4:5], R[6:8]").unwrap_err(),
        "`WIDE.64` operand 2 (ra): R[6:8] is 96 bits but the operand is 64 bits here"
    );
    assert_eq!(
        wide("WIDE.128 R[4:7], R[6:9]").unwrap_err(),
        "`WIDE.128` operand 1 (rd): R[4:7] is 128 bits but the operand is 32 bits here"
    );
}

/// `SPAN rd, ra, n`: `rd` spans `n` registers (`Bitwidth<rd> = n * 32`), `n` an
/// immediate written after it; `ra` one. So `rd`'s width is known only once `n` is
/// read.
const SPAN: OpcodeSpec<'static> = OpcodeSpec {
    fields: &["rd", "ra", "n"],
    places: &[RD, RA, RB],
    ..form(
        "SPAN",
        34,
        &[],
        &[
            registers(
                RD,
                "rd",
                Count::Bits(&[Op::Field(2), Op::Int(32), Op::Bin(BinOp::Mul)]),
            ),
            reg(RA, "ra", &[]),
            imm(RB, "n", 8, false, ImmAddr::No),
        ],
    )
};

/// `SPAN2 ra, rd, n`: as `SPAN`, the register it sizes second.
const SPAN2: OpcodeSpec<'static> = OpcodeSpec {
    fields: &["ra", "rd", "n"],
    places: &[RA, RD, RB],
    ..form(
        "SPAN2",
        35,
        &[],
        &[
            reg(RA, "ra", &[]),
            registers(
                RD,
                "rd",
                Count::Bits(&[Op::Field(2), Op::Int(32), Op::Bin(BinOp::Mul)]),
            ),
            imm(RB, "n", 8, false, ImmAddr::No),
        ],
    )
};

/// `WIDEN.W rd, n`: `rd` as wide as the modifier says (as `WIDE`'s), an immediate
/// after it.
const WIDEN: OpcodeSpec<'static> = OpcodeSpec {
    fields: &["mode", "rd", "n"],
    places: &[MODE, RD, RB],
    ..form(
        "WIDEN",
        37,
        &[ModSpec {
            at: MODE,
            field: "mode",
            values: &[("32", 0), ("64", 1)],
            required: true,
            values_text: "`.32`, `.64`",
        }],
        &[
            registers(
                RD,
                "rd",
                Count::Bits(&[
                    Op::Int(32),
                    Op::Field(0),
                    Op::Int(1),
                    Op::Bin(BinOp::Add),
                    Op::Bin(BinOp::Mul),
                ]),
            ),
            imm(RB, "n", 8, false, ImmAddr::No),
        ],
    )
};

/// `PAIRN rd, n`: `rd` a register pair whatever `n` says.
const PAIRN: OpcodeSpec<'static> = form(
    "PAIRN",
    36,
    &[],
    &[
        registers(RD, "rd", Count::Fixed(2)),
        imm(RB, "n", 8, false, ImmAddr::No),
    ],
);

fn span(line: &str) -> Result<u128, String> {
    let l = lex(line).map_err(|e| e.display(line).to_string())?;
    assemble(&l, 1, &[&SPAN], 0, &|_| None).map_err(|e| e.display(line).to_string())
}

/// A width that a later operand decides is checked on the whole line, as the printer
/// wrote it; an error in it is the operand's, even when a later operand is wrong too.
#[test]
fn a_width_a_later_operand_decides_is_checked_once_the_line_is_read() {
    let w = |rd: u128, ra: u128, n: u128| word(&[(RD, rd), (RA, ra), (RB, n)], 34);
    assert_eq!(span("SPAN R[4:6], R9, 0x3"), Ok(w(4, 9, 3)));
    assert_eq!(span("SPAN R4, R9, 0x1"), Ok(w(4, 9, 1)));
    assert_eq!(span("SPAN R4, R9, 0x0"), Ok(w(4, 9, 0)));
    // A constant register is one register whatever the width.
    assert_eq!(span("SPAN RZ, R9, 0x2"), Ok(w(255, 9, 2)));
    assert_eq!(
        span("SPAN R[4:5], R9, 0x3").unwrap_err(),
        "`SPAN` operand 1 (rd): R[4:5] is 64 bits but the operand is 96 bits here"
    );
    assert_eq!(
        span("SPAN R4, R9, 0x2").unwrap_err(),
        "`SPAN` operand 1 (rd): a 64-bit operand: write the register range R[4:5]"
    );
    // After a wrong value or kind elsewhere, the word is not the line's: that error
    // is the one said.
    assert_eq!(
        span("SPAN R[4:5], R[9:10], 0x3").unwrap_err(),
        "`SPAN` operand 2 (ra): R[9:10] is 64 bits but the operand is 32 bits here"
    );
    assert_eq!(
        span("SPAN R[4:5], R9, 0x300").unwrap_err(),
        "`SPAN` operand 3 (n): immediate 0x300 does not fit SImm8 (0x0..=0xff)"
    );
    assert_eq!(
        span("SPAN R[4:5], R300, 0x3").unwrap_err(),
        "`SPAN` operand 2 (ra): expected a Reg, found R300 (`R300` does not exist: `Reg` has R0..R254 and RZ)"
    );
    // The register it sizes second: checked all the same.
    let one = |spec: &'static OpcodeSpec<'static>, line: &str| {
        let l = lex(line).unwrap();
        assemble(&l, 1, &[spec], 0, &|_| None).map_err(|e| e.display(line).to_string())
    };
    assert_eq!(
        one(&SPAN2, "SPAN2 R9, R[4:6], 0x3"),
        Ok(word(&[(RA, 9), (RD, 4), (RB, 3)], 35))
    );
    assert_eq!(
        one(&SPAN2, "SPAN2 R9, R[4:5], 0x3").unwrap_err(),
        "`SPAN2` operand 2 (rd): R[4:5] is 64 bits but the operand is 96 bits here"
    );
    // A fixed width, or one of the modifiers, is checked as the operand is read: its
    // error comes before a later operand's.
    assert_eq!(
        one(&PAIRN, "PAIRN R4, 0x300").unwrap_err(),
        "`PAIRN` operand 1 (rd): a 64-bit operand: write the register range R[4:5]"
    );
    assert_eq!(
        one(&WIDEN, "WIDEN.64 R4, 0x300").unwrap_err(),
        "`WIDEN.64` operand 1 (rd): a 64-bit operand: write the register range R[4:5]"
    );
    assert_eq!(
        one(&WIDEN, "WIDEN.64 R[4:5], 0x30"),
        Ok(word(&[(MODE, 1), (RD, 4), (RB, 0x30)], 37))
    );
    // Which widths wait for the line: those reading a field an operand from this one
    // on writes, and no others.
    assert!(width_later(&SPAN, 0));
    assert!(!width_later(&SPAN, 1));
    assert!(!width_later(&SPAN, 2));
    assert!(!width_later(&WIDE, 0) && !width_later(&WIDE, 1));
    assert!(!width_later(&WIDEN, 0) && width_later(&SPAN2, 1));
    assert!(overlaps(At::new(4, 4), At::new(7, 2)));
    assert!(!overlaps(At::new(4, 4), At::new(8, 2)));
    assert!(!overlaps(At::new(200, 4), At::new(8, 2)));
}

/// The forms of `MOV`, and which of them read a line: its index among the candidates,
/// and for each operand token the operand it was read as (optional ones left out
/// counted).
#[test]
fn a_mapped_assembly_says_which_form_and_operands_read_the_line() {
    let mut map = [u8::MAX; crate::lex::MAX_OPERANDS];
    let l = lex("MOV R1, R2, P3").unwrap();
    let forms: &[&OpcodeSpec<'static>] = &[&MOV_2, &MOV_3];
    let (w, form) = assemble_mapped(&l, 1, forms, 0, &|_| None, &mut map).unwrap();
    assert_eq!(
        (w, form),
        (word(&[(RD, 1), (RA, 2), (OPT_P.at, 3)], MOV_3.base), 1)
    );
    assert_eq!(map[..3], [0, 1, 2]);
    // `MID rd{, pp}, rb` with `pp` left out: the second token is operand 2.
    let mut map = [u8::MAX; crate::lex::MAX_OPERANDS];
    let l = lex("MID R1, R3").unwrap();
    let (_, form) = assemble_mapped(&l, 1, &[&MID], 0, &|_| None, &mut map).unwrap();
    assert_eq!(form, 0);
    assert_eq!(map[..3], [0, 2, u8::MAX]);
    // A wrong value is read as its operand too (the map of a line that fails is not
    // the answer, but the walk goes on past it).
    let mut map = [u8::MAX; crate::lex::MAX_OPERANDS];
    let l = lex("MID R1, P1, R3").unwrap();
    assert!(assemble_mapped(&l, 1, &[&MID], 0, &|_| None, &mut map).is_ok());
    assert_eq!(map[..3], [0, 1, 2]);
}

/// An exception condition reads the fields of the word assembled through the form's
/// places: the first that holds is the error, its kind a note.
#[test]
fn exceptions_are_conditions_on_the_fields_assembled() {
    const TWO: OpcodeSpec<'static> = OpcodeSpec {
        exceptions: &[
            Exception {
                cond: &[Op::Field(1), Op::Int(7), Op::Bin(BinOp::Gt)],
                kind: "OOR_REG",
                message: "ra is past R7",
            },
            Exception {
                cond: &[Op::Field(0), Op::Field(1), Op::Bin(BinOp::Eq)],
                kind: "ILLEGAL",
                message: "rd is ra",
            },
        ],
        places: &[RD, RA],
        ..MOV_2
    };
    let asm = |line: &str| {
        let l = lex(line).unwrap();
        assemble(&l, 1, &[&TWO], 0, &|_| None).map_err(|e| {
            let notes: [String; 2] = [e.note(line, 0).to_string(), e.note(line, 1).to_string()];
            (e.message(line).to_string(), notes)
        })
    };
    assert_eq!(asm("MOV R1, R7"), Ok(word(&[(RD, 1), (RA, 7)], 29)));
    let (message, notes) = asm("MOV R9, R9").unwrap_err();
    assert_eq!(message, "`MOV`: ra is past R7", "the first that holds");
    assert_eq!(
        notes,
        ["the spec's OOR_REG exception".to_string(), String::new()]
    );
    let (message, notes) = asm("MOV R3, R3").unwrap_err();
    assert_eq!(message, "`MOV`: rd is ra");
    assert_eq!(notes[0], "the spec's ILLEGAL exception");
}

/// A message shows its notes in parentheses; apart, the message has none of them and
/// each note is itself alone, in order; a note past the last is empty.
#[test]
fn notes_are_given_apart_or_in_parentheses() {
    let line = "ADD R1, R2, R255";
    let e = asm(line).unwrap_err();
    let all = e.display(line).to_string();
    let message = e.message(line).to_string();
    let notes: std::vec::Vec<String> = (0..4).map(|n| e.note(line, n).to_string()).collect();
    assert_eq!(
        message,
        "`ADD` operand 3 (rb or imm): expected a Reg or a SImm8, found R255"
    );
    assert_eq!(
        notes,
        [
            "`R255` does not exist: `Reg` has R0..R254 and RZ",
            "",
            "",
            ""
        ]
    );
    assert_eq!(all, std::format!("{message} ({})", notes[0]));
    // Several notes: the name of an operand in the spec, among the values of an enum.
    let line = "SET.U32 R1, cmp";
    let e = asm(line).unwrap_err();
    let notes: std::vec::Vec<String> = (0..3).map(|n| e.note(line, n).to_string()).collect();
    assert_eq!(
        notes,
        [
            "`cmp` is the operand's name in the spec; write a Cmp instead",
            "`cmp` is not a value of `Cmp`",
            ""
        ]
    );
    assert_eq!(
        e.display(line).to_string(),
        std::format!("{} ({}) ({})", e.message(line), notes[0], notes[1])
    );
    // A message without notes is the whole of it.
    let line = "ADD R1, R2, R3, R4";
    let e = asm(line).unwrap_err();
    assert_eq!(e.message(line).to_string(), e.display(line).to_string());
    assert_eq!(e.note(line, 0).to_string(), "");
}

/// `Y rd{, pp}, rb, rc`: its fourth operand, an enumeration, at the fourth token.
const Y_ENUM: OpcodeSpec<'static> = OpcodeSpec {
    req_after: &[2, 2, 1, 0],
    ..form(
        "Y",
        34,
        &[],
        &[reg(RD, "rd", &[]), OPT_P, reg(RB, "rb", &[]), CMP_OPERAND],
    )
};
/// `Y rd, pq{, px}, imm, re`: its fourth operand, an immediate, at the third token
/// (`px` has no room to be read there, so it is left out without a word).
const Y_IMM: OpcodeSpec<'static> = OpcodeSpec {
    req_after: &[3, 2, 2, 1, 0],
    ..form(
        "Y",
        35,
        &[],
        &[
            reg(RD, "rd", &[]),
            OperandSpec {
                label: "pq",
                optional: false,
                ..OPT_P
            },
            OperandSpec {
                label: "px",
                ..OPT_P
            },
            imm(RB, "imm", 8, true, ImmAddr::No),
            reg(RA, "re", &[]),
        ],
    )
};

/// Two failures of the same rank, at the same operand number and of the same kind but
/// at different tokens, do not merge: what one form expected at `R2` is no answer for
/// the other's `R3`.
#[test]
fn failures_at_the_same_operand_but_different_tokens_do_not_merge() {
    let line = "Y R1, P1, R2, R3";
    let l = lex(line).unwrap();
    let e = assemble(&l, 1, &[&Y_ENUM, &Y_IMM], 0, &|_| None).unwrap_err();
    assert_eq!(&line[e.start..e.end], "R3");
    assert_eq!(
        e.message(line).to_string(),
        "`Y` operand 4 (cmp): expected a Cmp, found R3"
    );
    // Each alone fails where the other's error says.
    let e = assemble(&l, 1, &[&Y_IMM], 0, &|_| None).unwrap_err();
    assert_eq!(
        e.display(line).to_string(),
        "`Y` operand 4 (imm): expected a SImm8, found R2"
    );
}

/// A line's mnemonic is the longest run of its leading parts that names one; a line
/// whose parts name none is refused at its first part, with the nearest names.
#[test]
fn the_mnemonic_is_the_longest_run_of_parts_that_names_one() {
    // By first part, sorted by its length and then its bytes.
    let table: &[(&str, &[(&str, u8)])] = &[
        ("ADD", &[("ADD", 1), ("ADD.WIDE", 2), ("ADD.WIDE.X", 3)]),
        ("ADDX", &[("ADDX", 6)]),
        ("SHFL", &[("SHFL", 4)]),
        ("UIMAD", &[("UIMAD.WIDE", 5)]),
    ];
    let find = |line: &str| {
        let l = lex(line).unwrap();
        match forms_of(&l, table) {
            Ok((k, t)) => Ok((k, *t)),
            Err(e) => Err((
                line[e.start..e.end].to_string(),
                e.display(line).to_string(),
            )),
        }
    };
    assert_eq!(find("ADD R1"), Ok((1, 1)));
    assert_eq!(find("ADD.FTZ R1, R2"), Ok((1, 1)), "a modifier after it");
    assert_eq!(find("ADD.WIDE.U32 R1"), Ok((2, 2)));
    assert_eq!(find("@!P0 ADD.WIDE.X"), Ok((3, 3)), "after a guard");
    assert_eq!(find("ADDX.WIDE R1"), Ok((1, 6)));
    assert_eq!(
        find("UIMAD.WIDE.U32 R1"),
        Ok((2, 5)),
        "of several parts only"
    );
    assert_eq!(
        find("UIMAD.U32 R1"),
        Err(("UIMAD".to_string(), "unknown mnemonic `UIMAD`".to_string()))
    );
    assert_eq!(
        find("SHLF.UP R1"),
        Err((
            "SHLF".to_string(),
            "unknown mnemonic `SHLF` (did you mean `SHFL`?)".to_string()
        ))
    );
    assert_eq!(
        find("WIDE.ADD R1"),
        Err(("WIDE".to_string(), "unknown mnemonic `WIDE`".to_string())),
        "parts name a mnemonic from the first only"
    );
    let l = lex("ADD R1").unwrap();
    let none: &[(&str, &[(&str, u8)])] = &[];
    assert!(forms_of(&l, none).is_err(), "an empty table names nothing");
}
