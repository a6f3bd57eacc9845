//! A small instruction set for the crate's tests of the backend and the code buffer:
//! two register files (`R0`..`R254` with `RZ`; `P0`..`P5`, the named `P6`, `PT`), a
//! guarded branch `BRA` with a `.ABS` mode, an indirect call `CALL`, return `RET` and
//! branch `BRX` through a register that may read 0, `EXIT`, the convergence barrier
//! `BSSY`, `ADD` with register operands of every access (one whose count varies, an
//! operand word of fixed registers), and the copy `MOV`.
//! An instruction ([`Insn`]) is an opcode and a word; the opcode is kept in bits 120
//! up, outside every field.

use crate::backend::*;
use crate::expr::{BinOp, Op};
use crate::info::{
    Access, AddressInfo, Bitwidth, BitwidthInfo, FieldInfo, FieldRole, Flow, OpcodeInfo,
    OperandInfo, OperandKind, RegOperandInfo,
};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum File {
    /// `R0`..`R254`, `RZ` = 255.
    R,
    /// `P0`..`P5`, the named `P6` (not constant, not numbered), `PT` = 7.
    P,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Reg {
    R(u8),
    P(u8),
}

impl RegisterFile for File {
    const ALL: &'static [File] = &[File::R, File::P];

    fn name(self) -> &'static str {
        match self {
            File::R => "Reg",
            File::P => "Pred",
        }
    }

    fn numbered(self) -> Option<(u64, u64)> {
        Some(match self {
            File::R => (0, 254),
            File::P => (0, 5),
        })
    }

    fn per_lane(self) -> bool {
        self == File::R
    }
}

impl core::fmt::Display for Reg {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Reg::R(c) => write!(f, "R{c}"),
            Reg::P(c) => write!(f, "P{c}"),
        }
    }
}

impl Register for Reg {
    type File = File;

    fn file(self) -> File {
        match self {
            Reg::R(_) => File::R,
            Reg::P(_) => File::P,
        }
    }

    fn code(self) -> u64 {
        match self {
            Reg::R(c) | Reg::P(c) => u64::from(c),
        }
    }

    fn from_code(file: File, code: u64) -> Option<Reg> {
        match file {
            File::R => u8::try_from(code).ok().map(Reg::R),
            // Code 8 and above are undefined.
            File::P => (code < 8).then_some(Reg::P(code as u8)),
        }
    }

    fn is_constant(self) -> bool {
        matches!(self, Reg::R(255) | Reg::P(7))
    }

    fn offset(self, n: u8) -> Option<Reg> {
        match self {
            Reg::R(c) if c < 255 => c.checked_add(n).filter(|&x| x < 255).map(Reg::R),
            Reg::P(c) if c < 6 => c.checked_add(n).filter(|&x| x < 6).map(Reg::P),
            _ => None,
        }
    }
}

pub const fn field(name: &'static str, start: u32, width: u32, default: Option<u128>) -> FieldInfo {
    FieldInfo::new(name, start, width, "T", FieldRole::Operand, default)
}

/// The guard `pg` (P, default `PT`) and its `.not` (default 0): fields 0 and 1 of
/// every opcode.
pub const PG: FieldInfo = field("pg", 12, 3, Some(7));
pub const PG_NOT: FieldInfo = field("pg.not", 15, 1, Some(0));

pub const fn info(
    flow: Flow,
    fields: &'static [FieldInfo],
    conditions: &'static [u8],
    addresses: &'static [AddressInfo],
    target: Option<u8>,
    direct: Option<(&'static [(u8, u128)], u8)>,
    regs: &'static [RegOperandInfo<File>],
) -> OpcodeInfo<File> {
    OpcodeInfo {
        name: "OP",
        optype: "OP",
        fixed_mask: 0xfff,
        fixed_bits: 0,
        field_mask: 0,
        fields,
        order: &[],
        in_list: &[],
        out_list: &[],
        flow,
        conditions,
        guard_fields: 2,
        addresses,
        target,
        direct,
        regs,
        bitwidths: &[],
    }
}

/// A signed 24-bit offset in units of 4 bytes at field 2, relative to the next
/// instruction: `BRA`'s (which a modifier makes absolute) and `BSSY`'s.
pub const OFF24: AddressInfo = AddressInfo {
    operand: "off",
    field: 2,
    shift: 2,
    width: 24,
    signed: true,
    absolute: false,
    absolute_when: None,
};

/// `BRA`: a signed 24-bit offset in units of 4 bytes, absolute when `mode` (field 3)
/// holds 1; a second predicate `cond` (field 4, default 0) is a condition too.
pub static BRA: OpcodeInfo<File> = info(
    Flow::Branch,
    &[
        PG,
        PG_NOT,
        field("off", 32, 24, None),
        field("mode", 60, 1, Some(0)),
        field("cond", 61, 2, Some(0)),
    ],
    &[0, 1, 4],
    &[AddressInfo {
        absolute_when: Some((3, 1)),
        ..OFF24
    }],
    Some(0),
    None,
    &[],
);

/// An unsigned 16-bit absolute address operand at bit 64 (field 3).
pub const ABS16: AddressInfo = AddressInfo {
    operand: "addr",
    field: 3,
    shift: 0,
    width: 16,
    signed: false,
    absolute: true,
    absolute_when: None,
};

/// The fields of an indirect flow to `ra + addr`, where `ra` (field 2) reads 0 as `RZ`.
static RA_FIELDS: [FieldInfo; 4] = [
    PG,
    PG_NOT,
    field("ra", 24, 8, None),
    field("addr", 64, 16, None),
];

/// An indirect flow to `ra + addr`.
const fn through_ra(flow: Flow) -> OpcodeInfo<File> {
    info(
        flow,
        &RA_FIELDS,
        &[0, 1],
        &[ABS16],
        None,
        Some((&[(2, 255)], 0)),
        &[],
    )
}

/// `CALL`: a call through `ra`.
pub static CALL: OpcodeInfo<File> = through_ra(Flow::IndirectCall);

/// `RET`: a return through `ra`.
pub static RET: OpcodeInfo<File> = through_ra(Flow::Return);

/// `BRX`: an indirect branch through `ra` (a jump table's entry).
pub static BRX: OpcodeInfo<File> = through_ra(Flow::IndirectBranch);

/// `EXIT`: ends the lanes.
pub static EXIT: OpcodeInfo<File> = info(Flow::Exit, &[PG, PG_NOT], &[0, 1], &[], None, None, &[]);

/// `BSSY`: sets up a convergence barrier whose point is a signed 24-bit offset in
/// units of 4 bytes (field 2), as `BRA`'s.
pub static BSSY: OpcodeInfo<File> = info(
    Flow::Converge,
    &[PG, PG_NOT, field("off", 32, 24, None)],
    &[0, 1],
    &[OFF24],
    Some(0),
    None,
    &[],
);

pub const fn reg(
    name: &'static str,
    file: File,
    access: Access,
    field: Option<u8>,
    fixed_first: u16,
    max_count: u16,
    varies: bool,
) -> RegOperandInfo<File> {
    RegOperandInfo {
        name,
        file,
        access,
        guard: false,
        index: false,
        field,
        fixed_first,
        max_count,
        varies,
    }
}

/// `ADD rd, ra, rb`: `rd` (field 2) written, `ra` (field 3) read and written, `rb`
/// (field 4) read with a count the instance's bit width decides (64 bits, 32 when
/// `narrow`, field 6, holds 1; `Bitwidth<rb> = 64 - narrow * 32`), `pq` (field 5, a
/// predicate) written, and the word `UPR` for `P2`..`P4`, read. `rd` is 64 bits wide.
pub static ADD: OpcodeInfo<File> = OpcodeInfo {
    bitwidths: &[
        BitwidthInfo {
            field: 2,
            expr: &[Op::Int(64)],
        },
        BitwidthInfo {
            field: 4,
            expr: &[
                Op::Int(64),
                Op::Field(6),
                Op::Int(32),
                Op::Bin(BinOp::Mul),
                Op::Bin(BinOp::Sub),
            ],
        },
    ],
    ..info(
        Flow::Next,
        &[
            PG,
            PG_NOT,
            field("rd", 16, 8, None),
            field("ra", 24, 8, None),
            field("rb", 32, 8, None),
            field("pq", 40, 4, None),
            field("narrow", 48, 1, Some(0)),
        ],
        &[0, 1],
        &[],
        None,
        None,
        &[
            reg("pg", File::P, Access::Read, Some(0), 0, 1, false),
            reg("rd", File::R, Access::Write, Some(2), 0, 2, false),
            reg("ra", File::R, Access::ReadWrite, Some(3), 0, 1, false),
            reg("rb", File::R, Access::Read, Some(4), 0, 4, true),
            reg("pq", File::P, Access::Write, Some(5), 0, 1, false),
            reg("UPR", File::P, Access::Read, None, 2, 3, false),
        ],
    )
};

/// The word with each `(field, code)` of `info` set, the other fields at their
/// defaults (or 0).
pub fn word(info: &OpcodeInfo<File>, codes: &[(usize, u128)]) -> u128 {
    let mut w = 0;
    for f in info.fields {
        w = f.set(w, f.default.unwrap_or(0));
    }
    for &(k, c) in codes {
        w = info.fields[k].set(w, c);
    }
    w
}

/// An instruction of the test set: one of its opcodes and a word. A word decodes when
/// its `pq` field (ADD's field 5) holds no code above 7 and, for `BRA`, its `cond`
/// field is not 3.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Insn {
    pub op: u8,
    pub word: u128,
}

pub const OPS: [&OpcodeInfo<File>; 13] = [
    &BRA, &CALL, &RET, &ADD, &MOV, &MOVI, &MOVP, &MOVW, &CMP, &MOVR, &BRX, &EXIT, &BSSY,
];

/// The opcodes' names, by `Insn::op`.
pub const NAMES: [&str; 13] = [
    "BRA", "CALL", "RET", "ADD", "MOV", "MOVI", "MOVP", "MOVW", "CMP", "MOVR", "BRX", "EXIT",
    "BSSY",
];

const fn operand(name: &'static str) -> OperandInfo {
    OperandInfo::new(
        name,
        OperandKind::Register("Reg"),
        &[],
        Bitwidth::Unspecified,
        false,
    )
}

/// The fields of the copies and `CMP`: `rd` (field 2) and `ra` (field 3).
static TWO_FIELDS: [FieldInfo; 4] = [
    PG,
    PG_NOT,
    field("rd", 16, 8, None),
    field("ra", 24, 8, None),
];

/// An opcode over `TWO_FIELDS` with these operands and register operands.
const fn two(
    order: &'static [OperandInfo],
    regs: &'static [RegOperandInfo<File>],
) -> OpcodeInfo<File> {
    OpcodeInfo {
        order,
        regs,
        ..info(Flow::Next, &TWO_FIELDS, &[0, 1], &[], None, None, &[])
    }
}

const GUARD: RegOperandInfo<File> = RegOperandInfo {
    guard: true,
    ..reg("pg", File::P, Access::Read, Some(0), 0, 1, false)
};
const RA: RegOperandInfo<File> = reg("ra", File::R, Access::Read, Some(3), 0, 1, false);
static ORDER3: [OperandInfo; 3] = [operand("pg"), operand("rd"), operand("ra")];
static ORDER4: [OperandInfo; 4] = [operand("pg"), operand("rd"), operand("ra"), operand("imm")];
static MOV_REGS: [RegOperandInfo<File>; 3] = [
    GUARD,
    reg("rd", File::R, Access::Write, Some(2), 0, 1, false),
    RA,
];
static MOVP_REGS: [RegOperandInfo<File>; 3] = [
    GUARD,
    reg("rd", File::P, Access::Write, Some(2), 0, 1, false),
    RA,
];
static MOVW_REGS: [RegOperandInfo<File>; 3] = [
    GUARD,
    reg("rd", File::R, Access::Write, Some(2), 0, 2, false),
    RA,
];
static MOVR_REGS: [RegOperandInfo<File>; 3] = [
    GUARD,
    RA,
    reg("rd", File::R, Access::Write, Some(2), 0, 1, false),
];
static CMP_REGS: [RegOperandInfo<File>; 3] = [
    GUARD,
    reg("rd", File::R, Access::Read, Some(2), 0, 1, false),
    RA,
];

/// `MOV rd, ra`: a copy of `ra` (field 3) into `rd` (field 2).
pub static MOV: OpcodeInfo<File> = two(&ORDER3, &MOV_REGS);
/// `MOVI rd, ra, imm`: as `MOV`, with one more operand (no copy).
pub static MOVI: OpcodeInfo<File> = two(&ORDER4, &MOV_REGS);
/// `MOVP pd, ra`: into a predicate (no copy: two files).
pub static MOVP: OpcodeInfo<File> = two(&ORDER3, &MOVP_REGS);
/// `MOVW rd, ra`: a pair from one register (no copy: two widths).
pub static MOVW: OpcodeInfo<File> = two(&ORDER3, &MOVW_REGS);
/// `CMP rd, ra`: reads both (no copy).
pub static CMP: OpcodeInfo<File> = two(&ORDER3, &CMP_REGS);
/// `MOVR rd, ra`: `MOV` with its register operands listed read first.
pub static MOVR: OpcodeInfo<File> = two(&ORDER3, &MOVR_REGS);

impl SpecInstruction for Insn {
    type Opcode = u8;
    type Reg = Reg;

    fn opcode(&self) -> u8 {
        self.op
    }

    fn info(&self) -> &'static OpcodeInfo<File> {
        OPS[usize::from(self.op).min(OPS.len() - 1)]
    }

    fn encode(&self) -> u128 {
        self.word
    }

    fn from_word(word: u128) -> Option<Insn> {
        // The opcode is kept in bits 120 up, outside every field (see `insn`).
        let op = (word >> 120) as u8;
        let bad = match op {
            0 => BRA.fields[4].get(word) == 3,
            3 => ADD.fields[5].get(word) > 7,
            _ => false,
        };
        (!bad).then_some(Insn { op, word })
    }
}

/// An instruction of opcode `op` (index into `OPS`) with `codes` set; the opcode is
/// kept in bits 120 up, outside every field.
pub fn insn(op: u8, codes: &[(usize, u128)]) -> Insn {
    Insn {
        op,
        word: word(OPS[op as usize], codes) | u128::from(op) << 120,
    }
}

/// Prints `NAME`, then each address operand as the name `o.symbols` gives its address,
/// or the address.
impl PrintInstruction for Insn {
    fn write_asm_with(
        &self,
        w: &mut dyn core::fmt::Write,
        addr: u64,
        o: &crate::print::FormatOptions<'_>,
    ) -> core::fmt::Result {
        w.write_str(NAMES[usize::from(self.op).min(NAMES.len() - 1)])?;
        for k in 0..self.addresses().len() {
            let a = self.address(k, addr).unwrap_or(0);
            match o.symbols.and_then(|f| f(a)) {
                Some(name) => write!(w, " `({name})")?,
                None => write!(w, " {a:#x}")?,
            }
        }
        Ok(())
    }
}
