//! The static metadata of a spec's opcodes, as a generated crate states it: each
//! opcode's fields, operands, control flow, address operands and register operands
//! ([`OpcodeInfo`]). The schema is the same for every spec; only the register files
//! (the type parameter `F`, a generated crate's `RegFile`) are the spec's. A generated
//! crate fills one `OpcodeInfo` per opcode and re-exports these types under its own
//! names, and [`crate::backend`] reads them. The generator's model uses [`Flow`] and
//! [`Access`] too, so that what `__DefFlow` and the In/Out lists say has one set of
//! names everywhere.

/// Bytes per instruction: a 128-bit word, stored little-endian. Addresses of
/// consecutive instructions differ by this, and relative address operands count from
/// the address of the next instruction.
pub const INSTRUCTION_BYTES: u64 = 16;

/// The role of a field in its opcode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FieldRole {
    /// Identifies the opcode; always holds this code.
    Fixed(u128),
    /// An operand (an item of `Order`, or part of one).
    Operand,
    /// A modifier, printed as `.VALUE` after the mnemonic.
    Modifier,
    /// A sub-field (`pg.not`) of the named field.
    SubField(&'static str),
}

/// One field of an opcode's encoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FieldInfo {
    /// Spec name (`pg.not` for sub-fields).
    pub name: &'static str,
    /// First bit.
    pub start: u32,
    /// Width in bits (1 to 128 in a spec's tables; [`FieldInfo::get`] and
    /// [`FieldInfo::set`] read 0 and 128 or more as no bits and all of them).
    pub width: u32,
    /// Spec name of the field's type.
    pub type_name: &'static str,
    /// Role.
    pub role: FieldRole,
    /// The code of the spec's default, if it gives one.
    pub default: Option<u128>,
}

impl FieldInfo {
    /// A field (the generated tables build every field with it).
    pub const fn new(
        name: &'static str,
        start: u32,
        width: u32,
        type_name: &'static str,
        role: FieldRole,
        default: Option<u128>,
    ) -> FieldInfo {
        FieldInfo {
            name,
            start,
            width,
            type_name,
            role,
            default,
        }
    }

    /// The field's bits from bit 0: none for a width of 0, all for 128 or more.
    const fn mask(&self) -> u128 {
        // (A width of 0 shifts by 128: no bits.)
        match u128::MAX.checked_shr(128u32.saturating_sub(self.width)) {
            Some(m) => m,
            None => 0,
        }
    }

    /// The field's raw bits in `word` (0 for a field that starts past the word).
    pub const fn get(&self, word: u128) -> u128 {
        match word.checked_shr(self.start) {
            Some(v) => v & self.mask(),
            None => 0,
        }
    }

    /// `word` with the field set to the low bits of `code` (unchanged for a field that
    /// starts past the word; the bits of a field that runs past it are dropped there).
    pub const fn set(&self, word: u128, code: u128) -> u128 {
        let (Some(mask), Some(code)) = (
            self.mask().checked_shl(self.start),
            code.checked_shl(self.start),
        ) else {
            return word;
        };
        // The bits where the word and the code differ, flipped.
        word ^ ((word ^ code) & mask)
    }
}

/// What kind of value an operand is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OperandKind {
    /// A register of the named register file (or register enumeration).
    Register(&'static str),
    /// An immediate of the named type.
    Immediate(&'static str),
    /// A constant-memory reference `c[bank][offset]`.
    ConstMem,
    /// Constant memory addressed by a register: `c[bank][reg+offset]`.
    ConstMemIndexed,
    /// A register chosen by another register plus an offset: `PREFIX[reg+offset]`.
    RegisterIndexed(&'static str),
    /// A value of the named bit-field type.
    Enum(&'static str),
    /// A fixed word such as `UPR`: printed, encodes nothing; the registers it stands
    /// for are in [`OpcodeInfo::regs`].
    Word,
}

/// How many 32-bit registers an operand whose data is `bits` bits wide spans: at
/// least 1, and the width is read as 1 to 1024 bits (at most 32 registers). The one
/// answer for the printer, the matcher, the backend's register operands and the
/// generator's most registers an operand covers.
pub const fn registers(bits: i128) -> u32 {
    let bits = if bits < 1 {
        1
    } else if bits > 1024 {
        1024
    } else {
        bits as u32
    };
    bits.div_ceil(32)
}

/// The most registers [`registers`] gives for any width.
pub const MAX_REGISTERS: u32 = registers(i128::MAX);

/// Width of an operand's data.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Bitwidth {
    /// Always this many bits.
    Fixed(u32),
    /// Depends on modifiers (the spec's expression, as written);
    /// [`crate::backend::bitwidth`] evaluates it for an instance (from
    /// [`OpcodeInfo::bitwidths`]).
    Depends(&'static str),
    /// The spec gives none.
    Unspecified,
}

/// An operand (an item of `Order`, `InList` or `OutList`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct OperandInfo {
    /// Spec name (`ra`, `C[vb, ura]`, `UPR`).
    pub name: &'static str,
    /// Kind of value.
    pub kind: OperandKind,
    /// The fields that encode it.
    pub fields: &'static [&'static str],
    /// Data width.
    pub bitwidth: Bitwidth,
    /// Whether the spec gives it a default (so assembly may omit it).
    pub optional: bool,
}

impl OperandInfo {
    /// An operand (the generated tables build every operand with it).
    pub const fn new(
        name: &'static str,
        kind: OperandKind,
        fields: &'static [&'static str],
        bitwidth: Bitwidth,
        optional: bool,
    ) -> OperandInfo {
        OperandInfo {
            name,
            kind,
            fields,
            bitwidth,
            optional,
        }
    }
}

/// Static metadata of an opcode; `F` is the spec's register files (a generated
/// crate's `RegFile`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct OpcodeInfo<F: 'static> {
    /// The opcode's name in the spec.
    pub name: &'static str,
    /// The name of its optype in the spec: the assembly mnemonic (`_` written `.`).
    pub optype: &'static str,
    /// Bits that identify the opcode.
    pub fixed_mask: u128,
    /// Value of the fixed bits.
    pub fixed_bits: u128,
    /// Bits covered by any field; all others must be zero.
    pub field_mask: u128,
    /// Every field, inherited ones first.
    pub fields: &'static [FieldInfo],
    /// Operands in assembly order; the first is the guard predicate.
    pub order: &'static [OperandInfo],
    /// Operands read.
    pub in_list: &'static [OperandInfo],
    /// Operands written.
    pub out_list: &'static [OperandInfo],
    /// What the instruction does to the program counter.
    pub flow: Flow,
    /// Fields whose value other than their default makes the flow conditional
    /// (indices into `fields`): the guard predicate and its sub-fields first
    /// (`guard_fields` of them), then the spec's conditions.
    pub conditions: &'static [u8],
    /// How many of `conditions` belong to the guard predicate.
    pub guard_fields: u8,
    /// The operands that name code addresses.
    pub addresses: &'static [AddressInfo],
    /// The address operand the flow goes to (index into `addresses`).
    pub target: Option<u8>,
    /// For an indirect flow that adds registers to an address operand: `(field,
    /// code)` pairs naming, for each such register field, a register that reads 0,
    /// and the address operand (index into `addresses`). An instance whose every such
    /// field holds one is a direct branch or call to that operand's address
    /// (`CALL.REL RZ, 0x100`; see [`crate::backend::flow`]).
    pub direct: Option<(&'static [(u8, u128)], u8)>,
    /// The register operands: `Order` first, then registers the In/Out lists name
    /// outside it.
    pub regs: &'static [RegOperandInfo<F>],
    /// The data widths the spec gives (`Bitwidth<ra> = …`), one per field, in spec
    /// order: what [`crate::backend::bitwidth`] evaluates for an instance.
    pub bitwidths: &'static [BitwidthInfo],
}

/// The data width of one field's operand (the spec's `Bitwidth<field> = expr;`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BitwidthInfo {
    /// The field (index into [`OpcodeInfo::fields`]).
    pub field: u8,
    /// The width in bits: an expression of the opcode's field codes
    /// ([`crate::expr`]), a single [`crate::expr::Op::Int`] when it is fixed.
    pub expr: &'static [crate::expr::Op],
}

/// What an instruction does to the program counter (the spec's `__DefFlow`; an opcode
/// without one falls through).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Flow {
    /// Falls through to the next instruction.
    #[default]
    Next,
    /// Goes to the address its target operand names (when its conditions hold).
    Branch,
    /// Goes to an address computed at run time (a register, a jump table).
    IndirectBranch,
    /// Calls the address its target operand names; execution resumes after it.
    Call,
    /// Calls an address computed at run time; execution resumes after it.
    IndirectCall,
    /// Returns to an address computed at run time.
    Return,
    /// Ends the lanes that execute it.
    Exit,
    /// Declares the convergence point its target operand names (`BSSY`); falls
    /// through.
    Converge,
    /// Waits at a convergence barrier until the lanes it names arrive (`BSYNC`,
    /// `WARPSYNC`); falls through.
    Barrier,
    /// May switch to other lanes before falling through (`YIELD`, `NANOSLEEP`).
    Yield,
    /// Raises a trap or system call; falls through when it returns.
    Trap,
    /// Returns from a trap handler.
    TrapReturn,
}

impl Flow {
    /// Every kind, in declaration order.
    pub const ALL: [Flow; 12] = [
        Flow::Next,
        Flow::Branch,
        Flow::IndirectBranch,
        Flow::Call,
        Flow::IndirectCall,
        Flow::Return,
        Flow::Exit,
        Flow::Converge,
        Flow::Barrier,
        Flow::Yield,
        Flow::Trap,
        Flow::TrapReturn,
    ];

    /// The spec's name for the kind, as `__DefFlow` takes it (`indirect-branch`).
    pub const fn name(self) -> &'static str {
        match self {
            Flow::Next => "next",
            Flow::Branch => "branch",
            Flow::IndirectBranch => "indirect-branch",
            Flow::Call => "call",
            Flow::IndirectCall => "indirect-call",
            Flow::Return => "return",
            Flow::Exit => "exit",
            Flow::Converge => "converge",
            Flow::Barrier => "barrier",
            Flow::Yield => "yield",
            Flow::Trap => "trap",
            Flow::TrapReturn => "trap-return",
        }
    }

    /// The kind `__DefFlow` names `name`.
    pub fn from_name(name: &str) -> Option<Flow> {
        Flow::ALL.into_iter().find(|k| k.name() == name)
    }

    /// Whether execution goes on at the next instruction when the flow's conditions
    /// hold. Branches, returns and exits end a basic block; a conditional one (see
    /// [`crate::backend::is_conditional`]) also falls through when they do not hold.
    pub const fn falls_through(self) -> bool {
        !matches!(
            self,
            Flow::Branch | Flow::IndirectBranch | Flow::Return | Flow::Exit | Flow::TrapReturn
        )
    }

    /// Whether the instruction goes to its target operand: a direct branch or call, or
    /// the convergence point of a `converge` (so the opcode needs one).
    pub const fn has_target(self) -> bool {
        matches!(self, Flow::Branch | Flow::Call | Flow::Converge)
    }
}

impl core::fmt::Display for Flow {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

/// How an instruction uses a register operand (the spec's `InList`/`OutList`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Access {
    /// Read only.
    Read,
    /// Written only.
    Write,
    /// Read and written: a tied operand (the same register is used and defined).
    ReadWrite,
    /// Written only when the guard predicate holds.
    CondWrite,
    /// Read, and written only when the guard predicate holds.
    ReadCondWrite,
}

impl Access {
    /// Whether the register's value is used.
    pub const fn reads(self) -> bool {
        matches!(
            self,
            Access::Read | Access::ReadWrite | Access::ReadCondWrite
        )
    }

    /// Whether the register may be written.
    pub const fn writes(self) -> bool {
        !matches!(self, Access::Read)
    }

    /// Whether a write may not happen (the old value may live on).
    pub const fn is_conditional(self) -> bool {
        matches!(self, Access::CondWrite | Access::ReadCondWrite)
    }

    /// The access of an instance whose guard may be false: writes become conditional.
    pub const fn guarded(self) -> Access {
        match self {
            Access::Write => Access::CondWrite,
            Access::ReadWrite => Access::ReadCondWrite,
            other => other,
        }
    }

    /// How messages name it (`read-write`).
    pub const fn name(self) -> &'static str {
        match self {
            Access::Read => "read",
            Access::Write => "write",
            Access::ReadWrite => "read-write",
            Access::CondWrite => "conditional write",
            Access::ReadCondWrite => "read, conditional write",
        }
    }
}

/// An operand that names a code address: a `CvtIShift` operand that is not declared
/// a plain number. It accepts a label in assembly and in a code buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AddressInfo {
    /// Spec name of the operand's field.
    pub operand: &'static str,
    /// Index of the field in [`OpcodeInfo::fields`].
    pub field: u8,
    /// The field counts units of `1 << shift` bytes.
    pub shift: u8,
    /// Width of the field's type in bits.
    pub width: u8,
    /// Whether the type is signed (two's complement).
    pub signed: bool,
    /// An absolute address in every instance; otherwise relative to the next
    /// instruction (`pc + 16 + (value << shift)`) unless `absolute_when` says.
    pub absolute: bool,
    /// Absolute in the instances whose field `.0` (index into
    /// [`OpcodeInfo::fields`]) holds code `.1` (a `.ABS` modifier), relative in the
    /// others: see [`AddressInfo::is_absolute_in`].
    pub absolute_when: Option<(u8, u128)>,
}

impl AddressInfo {
    /// Whether the operand is absolute in the instruction encoded as `word`, whose
    /// opcode's fields are `fields`.
    pub const fn is_absolute_in(&self, word: u128, fields: &[FieldInfo]) -> bool {
        match self.absolute_when {
            Some((f, code)) => fields[f as usize].get(word) == code,
            None => self.absolute,
        }
    }
}

/// A register operand of an opcode, as static metadata; `F` is the spec's register
/// files.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RegOperandInfo<F> {
    /// Spec name: the field (`rd`, `pg`) or operand word (`UPR`).
    pub name: &'static str,
    /// The register file (or register enumeration) it names registers of.
    pub file: F,
    /// Read, write or both, from the spec's In/Out lists (an operand in neither list is
    /// taken as read). Writes of a guarded instance are conditional; see
    /// [`crate::backend::RegOperand::access`].
    pub access: Access,
    /// The guard predicate.
    pub guard: bool,
    /// The register part of a composite operand: constant memory addressed by a
    /// register, or a register indexed by a register (`PREFIX[reg+offset]`).
    pub index: bool,
    /// The field holding the register's code (index into [`OpcodeInfo::fields`]);
    /// `None` for an operand word, which stands for fixed registers.
    pub field: Option<u8>,
    /// For an operand word: the code of its first register.
    pub fixed_first: u16,
    /// Most consecutive registers it covers (2 for a 64-bit pair, 4 for a quad; an
    /// operand word's registers; every numbered register of its file, up to 65,535,
    /// for a register that run time picks by index).
    pub max_count: u16,
    /// Whether the count depends on modifiers (the spec's `Bitwidth` expression).
    pub varies: bool,
}

impl<F> RegOperandInfo<F> {
    /// Whether the operand stands for fixed registers (an operand word such as `UPR`):
    /// an allocator cannot choose them.
    pub const fn is_fixed(&self) -> bool {
        self.field.is_none()
    }

    /// Whether the same register is read and written (a tied operand).
    pub const fn is_tied(&self) -> bool {
        matches!(self.access, Access::ReadWrite)
    }
}
