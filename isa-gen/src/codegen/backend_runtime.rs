// Support for compiler backends, emitted into the generated code (see
// `codegen::backend`): the types of `isa_rt::backend` and `isa_rt::info` under this
// crate's names, and `Instruction`'s backend methods, each a call into
// `isa_rt::backend` with the instruction's `OpcodeInfo` and word.

pub use ::isa_rt::backend::{RegError, TargetError};
pub use ::isa_rt::info::{Access, AddressInfo, Flow};

/// A register operand of an opcode, as static metadata.
pub type RegOperandInfo = ::isa_rt::info::RegOperandInfo<RegFile>;

/// A register operand of an instruction.
pub type RegOperand = ::isa_rt::backend::RegOperand<RegRef>;

impl ::isa_rt::backend::Register for RegRef {
    type File = RegFile;

    fn file(self) -> RegFile {
        RegRef::file(self)
    }

    fn code(self) -> u64 {
        RegRef::code(self)
    }

    fn from_code(file: RegFile, code: u64) -> Option<RegRef> {
        RegRef::from_code(file, code)
    }

    fn is_constant(self) -> bool {
        RegRef::is_constant(self)
    }

    fn offset(self, n: u8) -> Option<RegRef> {
        RegRef::offset(self, n)
    }
}

impl Instruction {
    /// What the instruction does to the program counter: its opcode's flow, except
    /// that an indirect branch, call or return through registers that read 0
    /// (`CALL.REL RZ, 0x100`) is a direct branch or call to its address operand (a
    /// return to a fixed address is a branch).
    pub fn flow(&self) -> Flow {
        ::isa_rt::backend::flow(self.opcode().info(), self.encode())
    }

    /// The address operand the flow goes to: its target, or the direct target of an
    /// indirect flow (index into [`Instruction::addresses`]).
    fn target_operand(&self) -> Option<u8> {
        ::isa_rt::backend::target_operand(self.opcode().info(), self.encode())
    }

    /// Whether the guard predicate may be false: it is not the always-true register,
    /// or it is negated. Writes of a guarded instruction are conditional.
    pub fn is_guarded(&self) -> bool {
        ::isa_rt::backend::is_guarded(self.opcode().info(), self.encode())
    }

    /// Whether the flow is conditional: the guard, or one of the fields the spec names
    /// as conditions (such as a second predicate or a `.DIV` modifier), is not at its
    /// default. A conditional branch also falls through.
    pub fn is_conditional(&self) -> bool {
        ::isa_rt::backend::is_conditional(self.opcode().info(), self.encode())
    }

    /// The operands that name code addresses (they take labels).
    pub fn addresses(&self) -> &'static [AddressInfo] {
        self.opcode().info().addresses
    }

    /// Whether address operand `k` is an absolute address in this instance (not one
    /// relative to the next instruction); `None` when there is no such operand.
    pub fn address_is_absolute(&self, k: usize) -> Option<bool> {
        ::isa_rt::backend::address_is_absolute(self.opcode().info(), self.encode(), k)
    }

    /// The address that address operand `k` names, for the instruction at `addr`.
    pub fn address(&self, k: usize, addr: u64) -> Option<u64> {
        ::isa_rt::backend::address(self.opcode().info(), self.encode(), k, addr)
    }

    /// Makes address operand `k` of the instruction at `addr` name `target`.
    pub fn set_address(&mut self, k: usize, addr: u64, target: u64) -> Result<(), TargetError> {
        let word = Instruction::relocate(self.encode(), addr, k, target)?;
        *self = Instruction::decode(word).map_err(|_| TargetError::OutOfRange)?;
        Ok(())
    }

    /// The address the instruction's flow goes to (a direct branch or call, or the
    /// convergence point of a `converge`), for the instruction at `addr`.
    pub fn branch_target(&self, addr: u64) -> Option<u64> {
        self.address(self.target_operand()? as usize, addr)
    }

    /// Makes the instruction at `addr` go to `target`.
    pub fn set_branch_target(&mut self, addr: u64, target: u64) -> Result<(), TargetError> {
        let k = self.target_operand().ok_or(TargetError::NoAddress)?;
        self.set_address(k as usize, addr, target)
    }

    /// Applies a relocation to an encoded word: address operand `k` of the instruction
    /// at `addr` is made to name `target`. The word must decode.
    pub fn relocate(word: u128, addr: u64, k: usize, target: u64) -> Result<u128, TargetError> {
        let insn = Instruction::decode(word).map_err(|_| TargetError::NoAddress)?;
        ::isa_rt::backend::relocate(insn.opcode().info(), word, addr, k, target)
    }

    /// The register operands as this instance uses them: every register operand of the
    /// opcode, `Order` first, with its register, the number of registers it covers and
    /// its access (writes are conditional under a guard that may be false).
    pub fn reg_operands(&self) -> impl core::iter::Iterator<Item = RegOperand> + '_ {
        ::isa_rt::backend::reg_operands(self.opcode().info(), self.encode(), |name| self.bitwidth(name))
    }

    /// Rewrites the registers of the instruction, as a register allocator does after
    /// assignment: `f` gets each register operand and returns the (first) register it
    /// should name. Operand words stand for fixed registers and must come back
    /// unchanged; a register of another file is an error. Nothing changes on error.
    pub fn map_regs(&mut self, f: impl core::ops::FnMut(&RegOperand) -> RegRef) -> Result<(), RegError> {
        let word = self.encode();
        let (out, changed) =
            ::isa_rt::backend::map_regs(self.opcode().info(), word, |name| self.bitwidth(name), f)?;
        if out != word {
            // Only register fields changed, each to a code of its register file.
            match Instruction::decode(out) {
                Ok(i) => *self = i,
                Err(_) => return Err(RegError::Undefined(changed)),
            }
        }
        Ok(())
    }
}
