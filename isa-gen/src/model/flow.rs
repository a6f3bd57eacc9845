//! Control flow and address operands: what an instruction does to the program counter
//! and how the operands that name code addresses are read.
//!
//! The authors' files do not state these facts in machine-readable form; our side of
//! the spec does, with `__DefFlow` (see `isa-spec/README.md`, "Extensions"). An opcode
//! without one falls through (`next`), and each of its `CvtIShift` operands is an
//! address relative to the next instruction, the reading every earlier version of the
//! toolchain gave them.

use super::interp::Decoded;
use super::{AsmFormat, Model, Opcode, Span};

/// What an instruction does to the program counter, for every instance of an opcode:
/// the run-time crate's [`isa_rt::info::Flow`], which the generated metadata states.
pub use isa_rt::info::Flow as FlowKind;

/// How a `CvtIShift` operand is read, for every instance of its opcode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Address {
    /// An address relative to the next instruction: printed `pc + 16 + (x << n)`.
    Relative,
    /// An absolute address `x << n` (`absolute` in `__DefFlow`).
    Absolute,
    /// No address: a number printed as `x << n` (`immediate` in `__DefFlow`).
    Number,
    /// Absolute when `field` holds `code`, relative otherwise (`absolute F when G ==
    /// V;`: BasePCMode's `.ABS`/`.REL`): each instance says which.
    Select { field: usize, code: u128 },
}

impl Address {
    /// The mode of an instance whose field codes are `values`.
    pub fn at(self, values: &[u128]) -> Address {
        match self {
            Address::Select { field, code } => {
                if values.get(field) == Some(&code) {
                    Address::Absolute
                } else {
                    Address::Relative
                }
            }
            a => a,
        }
    }

    /// Whether it names a code address (it takes a label) in some instance.
    pub fn is_address(self) -> bool {
        self != Address::Number
    }
}

/// The resolved `__DefFlow` of an opcode.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Flow {
    pub kind: FlowKind,
    /// The address operand (a field) the flow goes to.
    pub target: Option<usize>,
    /// Fields whose value other than the default makes the flow conditional (the
    /// guard predicate always does).
    pub conditions: Vec<usize>,
    /// `CvtIShift` fields that are not relative addresses, and how they are read.
    pub addresses: Vec<(usize, Address)>,
    /// For an indirect kind: the register fields it adds to its address operand
    /// `direct.1`. An instance whose every one of them names a register that reads 0
    /// (`CALL.REL RZ, 0x100`) goes to that operand's address, as a direct branch or
    /// call ([`Model::flow_kind`]).
    pub direct: Option<(Vec<usize>, usize)>,
    /// The `__DefFlow` line that gave it (none for the default).
    pub span: Option<Span>,
}

impl Opcode {
    /// How the `CvtIShift` operand `field` is read: its shift and address mode, or
    /// `None` when the field has no `CvtIShift`.
    pub fn address(&self, field: usize) -> Option<(u32, Address)> {
        let shift = self.asm_formats.iter().find_map(|a| match *a {
            AsmFormat::IShift { field: f, shift } if f == field => Some(shift),
            _ => None,
        })?;
        let mode = self
            .flow
            .addresses
            .iter()
            .find(|(f, _)| *f == field)
            .map_or(Address::Relative, |&(_, a)| a);
        Some((shift, mode))
    }

    /// [`Opcode::address`] of an instance whose field codes are `values`: its mode is
    /// `Relative`, `Absolute` or `Number`, never `Select`.
    pub fn address_at(&self, field: usize, values: &[u128]) -> Option<(u32, Address)> {
        self.address(field)
            .map(|(shift, mode)| (shift, mode.at(values)))
    }

    /// The address operands (the `CvtIShift` fields that are not plain
    /// numbers), in field order, each with its mode (which [`Address::at`] resolves for
    /// an instance): what the generated `OpcodeInfo::addresses` lists, and what a
    /// relocation's operand index counts.
    pub fn address_operands(&self) -> Vec<(usize, Address)> {
        (0..self.fields.len())
            .filter_map(|f| {
                let (_, mode) = self.address(f)?;
                mode.is_address().then_some((f, mode))
            })
            .collect()
    }
}

/// Why a target cannot be set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TargetError {
    /// The instruction has no target operand.
    NoTarget,
    /// The target is not a multiple of `align` bytes away from what the field counts from.
    Misaligned { align: u64 },
    /// The encoded value does not fit the field.
    OutOfRange,
}

impl std::fmt::Display for TargetError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TargetError::NoTarget => f.write_str("the instruction has no target operand"),
            TargetError::Misaligned { align } => {
                write!(f, "the target is not a multiple of {align} bytes away")
            }
            TargetError::OutOfRange => f.write_str("the target does not fit its field"),
        }
    }
}

/// Size of an instruction in bytes: addresses relative to "the next instruction" count
/// from `pc + INST_SIZE` (the run-time crate's `INSTRUCTION_BYTES`, which the generated
/// code states).
pub const INST_SIZE: u64 = isa_rt::info::INSTRUCTION_BYTES;

impl Model {
    /// The address an address operand names for an instruction at `addr`, or `None`
    /// when `field` is no address operand.
    pub fn address_value(&self, d: &Decoded, field: usize, addr: u64) -> Option<u64> {
        let op = &self.opcodes[d.opcode];
        let (shift, mode) = op.address(field)?;
        let f = &op.fields[field];
        let (width, signed) = self.offset_type(f);
        let offset = isa_rt::backend::offset_of(d.values[field], shift, width, signed);
        match mode.at(&d.values) {
            Address::Relative => Some(addr.wrapping_add(INST_SIZE).wrapping_add(offset)),
            Address::Absolute => Some(offset),
            Address::Number | Address::Select { .. } => None,
        }
    }

    /// A field's code as a number: sign-extended for signed immediates.
    pub fn signed_value(&self, f: &super::Field, code: u128) -> i128 {
        match self.ty(f.ty).kind {
            super::TypeKind::Immediate { signed: true } => {
                crate::asm::sign_extend(code, self.ty(f.ty).width)
            }
            _ => code as i128,
        }
    }

    /// The code that makes address operand `field` of `d` (at `addr`) name `target`.
    pub fn address_code(
        &self,
        d: &Decoded,
        field: usize,
        addr: u64,
        target: u64,
    ) -> Result<u128, TargetError> {
        let op = &self.opcodes[d.opcode];
        let (shift, mode) = op.address(field).ok_or(TargetError::NoTarget)?;
        let base = match mode.at(&d.values) {
            Address::Relative => addr.wrapping_add(INST_SIZE),
            Address::Absolute => 0,
            Address::Number | Address::Select { .. } => return Err(TargetError::NoTarget),
        };
        let f = &op.fields[field];
        let (width, signed) = self.offset_type(f);
        isa_rt::backend::offset_code(base, target, shift, width, signed).map_err(|e| match e {
            isa_rt::backend::TargetError::Misaligned(align) => TargetError::Misaligned { align },
            _ => TargetError::OutOfRange,
        })
    }

    /// How an address operand's field reads as a number: the bits it holds (its type's
    /// width, or the field's where the field is narrower, as the generated tables say)
    /// and their sign.
    fn offset_type(&self, f: &super::Field) -> (u32, bool) {
        let t = self.ty(f.ty);
        (
            t.width.min(f.width),
            matches!(t.kind, super::TypeKind::Immediate { signed: true }),
        )
    }

    /// Whether an instance's flow is conditional: its guard or one of its condition
    /// fields (or a sub-field of one) holds something other than its default.
    pub fn is_conditional(&self, d: &Decoded) -> bool {
        let op = &self.opcodes[d.opcode];
        let at_default = |f: usize| {
            op.fields[f].default == Some(d.values[f])
                && op
                    .sub_fields(f)
                    .all(|s| op.fields[s].default == Some(d.values[s]))
        };
        self.is_guarded(d) || op.flow.conditions.iter().any(|&c| !at_default(c))
    }

    /// Whether an instance of an indirect flow goes to a known address: every
    /// register it adds to its address operand reads 0 (`CALL.REL RZ, 0x100`).
    fn direct_target(&self, d: &Decoded) -> Option<usize> {
        let op = &self.opcodes[d.opcode];
        let (regs, target) = op.flow.direct.as_ref()?;
        regs.iter()
            .all(|&f| {
                self.ty(op.fields[f].ty)
                    .reg_file()
                    .is_some_and(|r| r.reads_zero(d.values[f]))
            })
            .then_some(*target)
    }

    /// What an instance does to the program counter: its opcode's flow, except that an
    /// indirect branch, call or return through registers that read 0 is a direct
    /// branch or call (a return to a fixed address is a branch).
    pub fn flow_kind(&self, d: &Decoded) -> FlowKind {
        let kind = self.opcodes[d.opcode].flow.kind;
        if self.direct_target(d).is_none() {
            return kind;
        }
        match kind {
            FlowKind::IndirectCall => FlowKind::Call,
            FlowKind::IndirectBranch | FlowKind::Return => FlowKind::Branch,
            k => k,
        }
    }

    /// The address the flow of `d` (at `addr`) names: its target operand's value (also
    /// for an indirect flow through registers that read 0).
    pub fn branch_target(&self, d: &Decoded, addr: u64) -> Option<u64> {
        let t = self.opcodes[d.opcode]
            .flow
            .target
            .or_else(|| self.direct_target(d))?;
        self.address_value(d, t, addr)
    }

    /// Makes the target operand of `d` (at `addr`) name `target`.
    pub fn set_branch_target(
        &self,
        d: &mut Decoded,
        addr: u64,
        target: u64,
    ) -> Result<(), TargetError> {
        let t = self.opcodes[d.opcode]
            .flow
            .target
            .or_else(|| self.direct_target(d))
            .ok_or(TargetError::NoTarget)?;
        let code = self.address_code(d, t, addr, target)?;
        d.values[t] = code;
        Ok(())
    }
}
