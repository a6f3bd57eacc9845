// Hand-written support for compiler backends, emitted verbatim into the generated code
// (see `codegen::backend`). It knows nothing of any particular spec: it reads the
// per-opcode tables the generator emits (`OpcodeInfo::flow`, `addresses`, `regs`,
// `conditions`) and changes an instruction by patching its encoded word and decoding
// it again, so one piece of code serves every opcode.

/// What an instruction does to the program counter (the spec's `__DefFlow`; an opcode
/// without one falls through).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Flow {
    /// Falls through to the next instruction.
    Next,
    /// Goes to the address its target operand names ([`Instruction::branch_target`]).
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
    /// Declares the convergence point its target operand names; falls through.
    Converge,
    /// Waits at a convergence barrier until the lanes it names arrive; falls through.
    Barrier,
    /// May switch to other lanes before falling through.
    Yield,
    /// Raises a trap or system call; falls through when it returns.
    Trap,
    /// Returns from a trap handler.
    TrapReturn,
}

impl Flow {
    /// The spec's name for the kind (`indirect-branch`).
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

    /// Whether execution goes on at the next instruction when the flow's conditions
    /// hold. Branches, returns and exits end a basic block; a conditional one (see
    /// [`Instruction::is_conditional`]) also falls through when they do not hold.
    pub const fn falls_through(self) -> bool {
        !matches!(
            self,
            Flow::Branch | Flow::IndirectBranch | Flow::Return | Flow::Exit | Flow::TrapReturn
        )
    }

    /// Whether the instruction goes to its target operand: a direct branch or call, or
    /// the convergence point of a `converge`.
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
        matches!(self, Access::Read | Access::ReadWrite | Access::ReadCondWrite)
    }

    /// Whether the register may be written.
    pub const fn writes(self) -> bool {
        !matches!(self, Access::Read)
    }

    /// Whether a write may not happen (the old value may live on).
    pub const fn is_conditional(self) -> bool {
        matches!(self, Access::CondWrite | Access::ReadCondWrite)
    }

    const fn guarded(self) -> Access {
        match self {
            Access::Write => Access::CondWrite,
            Access::ReadWrite => Access::ReadCondWrite,
            other => other,
        }
    }
}

/// An operand that names a code address: a `CvtIShift` operand that is not declared
/// a plain number. It accepts a label in assembly and in a [`CodeBuffer`].
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
    /// others: see [`Instruction::address_is_absolute`].
    pub absolute_when: Option<(u8, u128)>,
}

impl AddressInfo {
    /// Whether the operand is absolute in the instruction encoded as `word`.
    const fn is_absolute_in(&self, word: u128, fields: &[FieldInfo]) -> bool {
        match self.absolute_when {
            Some((f, code)) => field_bits(word, &fields[f as usize]) == code,
            None => self.absolute,
        }
    }
}

/// A register operand of an opcode, as static metadata.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RegOperandInfo {
    /// Spec name: the field (`rd`, `pg`) or operand word (`UPR`).
    pub name: &'static str,
    /// The register file (or register enumeration) it names registers of.
    pub file: RegFile,
    /// Read, write or both, from the spec's In/Out lists (an operand in neither list is
    /// taken as read). Writes of a guarded instance are conditional; see
    /// [`RegOperand::access`].
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
    /// Most consecutive registers it covers (2 for a 64-bit pair, 4 for a quad).
    pub max_count: u8,
    /// Whether the count depends on modifiers (the spec's `Bitwidth` expression).
    pub varies: bool,
}

impl RegOperandInfo {
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

/// A register operand of an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RegOperand {
    /// The operand's static metadata.
    pub info: &'static RegOperandInfo,
    /// Its (first) register. Named constant registers are included: see
    /// [`RegRef::is_constant`].
    pub reg: RegRef,
    /// How many consecutive registers it covers in this instance.
    pub count: u8,
    /// The access in this instance: a write under a guard that may be false (not the
    /// always-true register, or negated) is conditional.
    pub access: Access,
}

impl RegOperand {
    /// Every register the operand covers, first to last: a constant register (`RZ`,
    /// `PT`) covers only itself, and a range stops at the end of the numbered
    /// registers. Liveness skips the constant ones ([`RegRef::is_constant`]): they
    /// hold no value.
    pub fn regs(&self) -> impl core::iter::Iterator<Item = RegRef> {
        let first = self.reg;
        let constant = first.is_constant();
        let count = if constant { 1 } else { self.count };
        (0..count).filter_map(move |k| if constant { Some(first) } else { first.offset(k) })
    }
}

/// Why an address operand cannot name a target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TargetError {
    /// The instruction has no such address operand.
    NoAddress,
    /// The target is not a multiple of this many bytes from what the field counts from.
    Misaligned(u64),
    /// The target does not fit the field.
    OutOfRange,
}

impl core::fmt::Display for TargetError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            TargetError::NoAddress => f.write_str("the instruction has no such address operand"),
            TargetError::Misaligned(a) => {
                write!(f, "the target is not a multiple of {a:#x} bytes away")
            }
            TargetError::OutOfRange => f.write_str("the target does not fit the operand"),
        }
    }
}

/// Why registers cannot be rewritten.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RegError {
    /// A register of another file was given for this operand.
    WrongFile(&'static str),
    /// An operand word's fixed registers were changed.
    Fixed(&'static str),
    /// The operand covers several registers and the given first one leaves too few
    /// numbered registers after it (`R254` for a 64-bit pair would run into `RZ`).
    Range(&'static str),
    /// The new registers make a word the spec does not define (the register field's
    /// type leaves that code undefined).
    Undefined(&'static str),
}

impl core::error::Error for RegError {}

impl core::error::Error for TargetError {}

impl core::fmt::Display for RegError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            RegError::WrongFile(o) => write!(f, "operand `{o}` takes a register of another file"),
            RegError::Fixed(o) => write!(f, "operand `{o}` stands for fixed registers"),
            RegError::Range(o) => {
                write!(f, "operand `{o}` covers several registers: the first leaves too few after it")
            }
            RegError::Undefined(o) => {
                write!(f, "operand `{o}`: the new register makes an undefined instruction word")
            }
        }
    }
}

/// The raw bits of a field in a word.
const fn field_bits(word: u128, f: &FieldInfo) -> u128 {
    (word >> f.start) & (u128::MAX >> (128 - f.width))
}

/// `word` with a field set to `code`.
const fn with_field(word: u128, f: &FieldInfo, code: u128) -> u128 {
    let mask = (u128::MAX >> (128 - f.width)) << f.start;
    (word & !mask) | ((code << f.start) & mask)
}

impl Instruction {
    /// What the instruction does to the program counter: its opcode's flow, except
    /// that an indirect branch, call or return through registers that read 0
    /// (`CALL.REL RZ, 0x100`) is a direct branch or call to its address operand (a
    /// return to a fixed address is a branch).
    pub fn flow(&self) -> Flow {
        let info = self.opcode().info();
        match (info.flow, self.direct_target()) {
            (Flow::IndirectCall, Some(_)) => Flow::Call,
            (Flow::IndirectBranch | Flow::Return, Some(_)) => Flow::Branch,
            (flow, _) => flow,
        }
    }

    /// The address operand an indirect flow goes to when every register it adds to
    /// it reads 0 (index into [`Instruction::addresses`]).
    fn direct_target(&self) -> Option<u8> {
        let info = self.opcode().info();
        let (zeros, k) = info.direct?;
        let w = self.encode();
        zeros
            .iter()
            .all(|&(f, _)| {
                let code = field_bits(w, &info.fields[f as usize]);
                zeros.iter().any(|&(g, z)| g == f && z == code)
            })
            .then_some(k)
    }

    /// Whether the guard predicate may be false: it is not the always-true register,
    /// or it is negated. Writes of a guarded instruction are conditional.
    pub fn is_guarded(&self) -> bool {
        let info = self.opcode().info();
        let w = self.encode();
        info.conditions[..info.guard_fields as usize]
            .iter()
            .any(|&k| Some(field_bits(w, &info.fields[k as usize])) != info.fields[k as usize].default)
    }

    /// Whether the flow is conditional: the guard, or one of the fields the spec names
    /// as conditions (such as a second predicate or a `.DIV` modifier), is not at its
    /// default. A conditional branch also falls through.
    pub fn is_conditional(&self) -> bool {
        let info = self.opcode().info();
        let w = self.encode();
        info.conditions
            .iter()
            .any(|&k| Some(field_bits(w, &info.fields[k as usize])) != info.fields[k as usize].default)
    }

    /// The operands that name code addresses (they take labels).
    pub fn addresses(&self) -> &'static [AddressInfo] {
        self.opcode().info().addresses
    }

    /// Whether address operand `k` is an absolute address in this instance (not one
    /// relative to the next instruction); `None` when there is no such operand.
    pub fn address_is_absolute(&self, k: usize) -> Option<bool> {
        let info = self.opcode().info();
        Some(info.addresses.get(k)?.is_absolute_in(self.encode(), info.fields))
    }

    /// The address that address operand `k` names, for the instruction at `addr`.
    pub fn address(&self, k: usize, addr: u64) -> Option<u64> {
        let a = self.addresses().get(k)?;
        let info = self.opcode().info();
        let f = &info.fields[a.field as usize];
        let raw = field_bits(self.encode(), f);
        let v = if a.signed && a.width < 128 && (raw >> (a.width - 1)) & 1 == 1 {
            (raw | (u128::MAX << a.width)) as i128
        } else {
            raw as i128
        };
        let offset = (v as u64).wrapping_shl(u32::from(a.shift));
        Some(if a.is_absolute_in(self.encode(), info.fields) {
            offset
        } else {
            addr.wrapping_add(16).wrapping_add(offset)
        })
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
        let k = self.opcode().info().target.or_else(|| self.direct_target())?;
        self.address(k as usize, addr)
    }

    /// Makes the instruction at `addr` go to `target`.
    pub fn set_branch_target(&mut self, addr: u64, target: u64) -> Result<(), TargetError> {
        let k = self
            .opcode()
            .info()
            .target
            .or_else(|| self.direct_target())
            .ok_or(TargetError::NoAddress)?;
        self.set_address(k as usize, addr, target)
    }

    /// Applies a relocation to an encoded word: address operand `k` of the instruction
    /// at `addr` is made to name `target`. The word must decode.
    pub fn relocate(word: u128, addr: u64, k: usize, target: u64) -> Result<u128, TargetError> {
        let insn = Instruction::decode(word).map_err(|_| TargetError::NoAddress)?;
        let info = insn.opcode().info();
        let a = info.addresses.get(k).ok_or(TargetError::NoAddress)?;
        let base = if a.is_absolute_in(word, info.fields) {
            0
        } else {
            addr.wrapping_add(16)
        };
        let delta = target.wrapping_sub(base) as i64 as i128;
        let align = 1i128 << a.shift;
        if delta.rem_euclid(align) != 0 {
            return Err(TargetError::Misaligned(align as u64));
        }
        let v = delta >> a.shift;
        let w = u32::from(a.width);
        let fits = if a.signed {
            let lim = 1i128 << (w - 1);
            -lim <= v && v < lim
        } else {
            v >= 0 && (w >= 127 || v < (1i128 << w))
        };
        if !fits {
            return Err(TargetError::OutOfRange);
        }
        let code = (v as u128) & (u128::MAX >> (128 - w));
        Ok(with_field(word, &info.fields[a.field as usize], code))
    }

    /// The register operands as this instance uses them: every register operand of the
    /// opcode, `Order` first, with its register, the number of registers it covers and
    /// its access (writes are conditional under a guard that may be false).
    pub fn reg_operands(&self) -> impl core::iter::Iterator<Item = RegOperand> + '_ {
        let info = self.opcode().info();
        let word = self.encode();
        let guarded = self.is_guarded();
        info.regs.iter().filter_map(move |r| self.reg_operand(r, word, guarded))
    }

    fn reg_operand(&self, r: &'static RegOperandInfo, word: u128, guarded: bool) -> Option<RegOperand> {
        let info = self.opcode().info();
        let (reg, count) = match r.field {
            Some(k) => {
                let code = field_bits(word, &info.fields[k as usize]);
                let count = if r.varies {
                    self.bitwidth(r.name).map_or(1, |b| b.div_ceil(32).clamp(1, 255) as u8)
                } else {
                    r.max_count
                };
                (RegRef::from_code(r.file, code as u64)?, count)
            }
            None => (RegRef::from_code(r.file, u64::from(r.fixed_first))?, r.max_count),
        };
        Some(RegOperand {
            info: r,
            reg,
            count,
            access: if guarded { r.access.guarded() } else { r.access },
        })
    }

    /// Rewrites the registers of the instruction, as a register allocator does after
    /// assignment: `f` gets each register operand and returns the (first) register it
    /// should name. Operand words stand for fixed registers and must come back
    /// unchanged; a register of another file is an error. Nothing changes on error.
    pub fn map_regs(&mut self, mut f: impl core::ops::FnMut(&RegOperand) -> RegRef) -> Result<(), RegError> {
        let info = self.opcode().info();
        let word = self.encode();
        let guarded = self.is_guarded();
        let mut out = word;
        let mut changed = "";
        for r in info.regs {
            let Some(op) = self.reg_operand(r, word, guarded) else {
                continue;
            };
            let new = f(&op);
            if new == op.reg {
                continue;
            }
            if new.file() != r.file {
                return Err(RegError::WrongFile(r.name));
            }
            let Some(k) = r.field else {
                return Err(RegError::Fixed(r.name));
            };
            if !new.is_constant() && op.count > 1 && new.offset(op.count - 1).is_none() {
                return Err(RegError::Range(r.name));
            }
            changed = r.name;
            out = with_field(out, &info.fields[k as usize], u128::from(new.code()));
        }
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
