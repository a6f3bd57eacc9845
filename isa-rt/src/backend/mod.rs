//! What compiler backends ask of an instruction beyond its encoding: its control flow,
//! its address operands, its register operands and their access, and a rewrite of its
//! registers. Every function reads an opcode's [`OpcodeInfo`] and the instruction's
//! 128-bit word, so one piece of code serves every opcode of every spec; a generated
//! crate's `Instruction` methods (`flow`, `reg_operands`, `map_regs`, …) call them with
//! its own tables. A change is made by patching the word; the caller decodes it again.

use crate::info::{Access, BitwidthInfo, Flow, OpcodeInfo, RegOperandInfo, INSTRUCTION_BYTES};

/// The register files of a spec (a generated crate's `RegFile`).
pub trait RegisterFile: Copy + Eq + Ord + core::fmt::Debug + core::hash::Hash + 'static {
    /// Every register file, in spec order.
    const ALL: &'static [Self];

    /// The spec's name of the file's type (`Reg`).
    fn name(self) -> &'static str;

    /// The codes of the file's numbered registers, first and last: the registers an
    /// allocator may give out. `None` for an enumeration of registers.
    fn numbered(self) -> Option<(u64, u64)>;

    /// Whether each lane has its own copy of the file; otherwise the warp shares one.
    fn per_lane(self) -> bool;
}

/// A register of a spec (a generated crate's `RegRef`): what the register operands
/// of [`reg_operands`] and the rewrite of [`map_regs`] need of it.
pub trait Register:
    Copy + Eq + core::fmt::Debug + core::fmt::Display + core::hash::Hash + 'static
{
    /// The spec's register files (a generated crate's `RegFile`).
    type File: RegisterFile;

    /// Its register file.
    fn file(self) -> Self::File;

    /// Its code (its encoding).
    fn code(self) -> u64;

    /// The register of `file` with code `code`, or `None` for an undefined code.
    fn from_code(file: Self::File, code: u64) -> Option<Self>;

    /// Whether it is a named constant register of its file (`RZ`, `PT`): it holds no
    /// state, reads give a constant and writes are dropped.
    fn is_constant(self) -> bool;

    /// The register `n` places after this one, or `None` past the numbered range or
    /// for a constant register.
    fn offset(self, n: u8) -> Option<Self>;
}

/// A register operand of an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RegOperand<R: Register> {
    /// The operand's static metadata.
    pub info: &'static RegOperandInfo<R::File>,
    /// Its (first) register. Named constant registers are included: see
    /// [`Register::is_constant`].
    pub reg: R,
    /// How many consecutive registers it covers in this instance.
    pub count: u16,
    /// The access in this instance: a write under a guard that may be false (not the
    /// always-true register, or negated) is conditional.
    pub access: Access,
}

impl<R: Register> RegOperand<R> {
    /// Every register the operand covers, first to last: a constant register (`RZ`,
    /// `PT`) covers only itself, a range stops at the end of the numbered registers,
    /// and an operand word (fixed registers, `UPR`) covers each code from its first
    /// that names a register. Liveness skips the constant ones
    /// ([`Register::is_constant`]): they hold no value.
    pub fn regs(&self) -> impl Iterator<Item = R> {
        let first = self.reg;
        let fixed = self.info.is_fixed();
        let constant = !fixed && first.is_constant();
        let count = if constant { 1 } else { self.count };
        (0..count).filter_map(move |k| {
            if constant {
                Some(first)
            } else if fixed {
                R::from_code(first.file(), first.code().checked_add(k.into())?)
            } else {
                first.offset(u8::try_from(k).ok()?)
            }
        })
    }
}

/// The register files of instruction type `I`.
pub type FileOf<I> = <<I as SpecInstruction>::Reg as Register>::File;

/// An instruction of a spec (a generated crate's `Instruction`): what the code buffer
/// ([`crate::buffer`]) needs of it. A generated crate implements the required methods
/// with its typed codec; the others are this module's functions over its
/// [`OpcodeInfo`] and word, as the generated crate's own methods of the same names
/// are.
///
/// # Panics
///
/// The functions of this module, and so the provided methods and the code buffer,
/// trust the tables `info` returns as a generator writes them: every field index
/// (in `conditions`, `addresses`, `regs`, `direct`, an address's `absolute_when`)
/// names a field of `fields`, and `guard_fields` is at most the length of
/// `conditions`. An index out of range panics.
pub trait SpecInstruction: Copy + Eq + core::fmt::Debug + core::hash::Hash + 'static {
    /// The spec's opcodes.
    type Opcode: Copy + Eq + core::fmt::Debug + core::fmt::Display + core::hash::Hash + 'static;
    /// The spec's registers.
    type Reg: Register;

    /// The opcode.
    fn opcode(&self) -> Self::Opcode;

    /// The opcode's metadata.
    fn info(&self) -> &'static OpcodeInfo<FileOf<Self>>;

    /// The 128-bit encoding.
    fn encode(&self) -> u128;

    /// The instruction `word` encodes, if it decodes.
    fn from_word(word: u128) -> Option<Self>;

    /// The width in bits of operand `operand`'s data in this instance, when the spec
    /// gives one ([`bitwidth`]).
    fn bitwidth(&self, operand: &str) -> Option<u32> {
        bitwidth(self.info(), self.encode(), operand)
    }

    /// What the instruction does to the program counter ([`flow`]).
    fn flow(&self) -> Flow {
        flow(self.info(), self.encode())
    }

    /// Whether the flow is conditional ([`is_conditional`]).
    fn is_conditional(&self) -> bool {
        is_conditional(self.info(), self.encode())
    }

    /// The address operand the flow goes to ([`target_operand`]).
    fn target_operand(&self) -> Option<u8> {
        target_operand(self.info(), self.encode())
    }

    /// The operands that name code addresses.
    fn addresses(&self) -> &'static [crate::info::AddressInfo] {
        self.info().addresses
    }

    /// Whether address operand `k` is absolute in this instance
    /// ([`address_is_absolute`]).
    fn address_is_absolute(&self, k: usize) -> Option<bool> {
        address_is_absolute(self.info(), self.encode(), k)
    }

    /// The address that address operand `k` names, for the instruction at `addr`
    /// ([`address`]).
    fn address(&self, k: usize, addr: u64) -> Option<u64> {
        address(self.info(), self.encode(), k, addr)
    }

    /// Makes address operand `k` of the instruction at `addr` name `target`
    /// ([`relocate`]).
    fn set_address(&mut self, k: usize, addr: u64, target: u64) -> Result<(), TargetError> {
        let word = relocate(self.info(), self.encode(), addr, k, target)?;
        *self = Self::from_word(word).ok_or(TargetError::OutOfRange)?;
        Ok(())
    }

    /// The register operands as this instance uses them ([`reg_operands`]).
    fn reg_operands(&self) -> impl Iterator<Item = RegOperand<Self::Reg>> {
        reg_operands(self.info(), self.encode())
    }

    /// Rewrites the registers of the instruction ([`map_regs`]); nothing changes on
    /// error.
    fn map_regs(
        &mut self,
        f: impl FnMut(&RegOperand<Self::Reg>) -> Self::Reg,
    ) -> Result<(), RegError> {
        let word = self.encode();
        let (out, changed) = map_regs(self.info(), word, f)?;
        if out != word {
            // Only register fields changed, each to a code of its register file.
            *self = Self::from_word(out).ok_or(RegError::Undefined(changed))?;
        }
        Ok(())
    }
}

/// An instruction of a spec that prints (a generated crate with its assembler): what
/// a code listing needs.
pub trait PrintInstruction: SpecInstruction {
    /// Writes the instruction at `addr` as assembly, as `o` says.
    fn write_asm_with(
        &self,
        w: &mut dyn core::fmt::Write,
        addr: u64,
        o: &crate::print::FormatOptions<'_>,
    ) -> core::fmt::Result;
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

impl core::error::Error for TargetError {}

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

impl core::fmt::Display for RegError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            RegError::WrongFile(o) => write!(f, "operand `{o}` takes a register of another file"),
            RegError::Fixed(o) => write!(f, "operand `{o}` stands for fixed registers"),
            RegError::Range(o) => {
                write!(
                    f,
                    "operand `{o}` covers several registers: the first leaves too few after it"
                )
            }
            RegError::Undefined(o) => {
                write!(
                    f,
                    "operand `{o}`: the new register makes an undefined instruction word"
                )
            }
        }
    }
}

/// What the instruction `word` of opcode `info` does to the program counter: its
/// opcode's flow, except that an indirect branch, call or return through registers
/// that read 0 (`CALL.REL RZ, 0x100`) is a direct branch or call to its address
/// operand (a return to a fixed address is a branch).
pub fn flow<F>(info: &OpcodeInfo<F>, word: u128) -> Flow {
    match (info.flow, direct_target(info, word)) {
        (Flow::IndirectCall, Some(_)) => Flow::Call,
        (Flow::IndirectBranch | Flow::Return, Some(_)) => Flow::Branch,
        (flow, _) => flow,
    }
}

/// The address operand an indirect flow goes to when every register it adds to it
/// reads 0 (index into [`OpcodeInfo::addresses`]).
pub fn direct_target<F>(info: &OpcodeInfo<F>, word: u128) -> Option<u8> {
    let (zeros, k) = info.direct?;
    zeros
        .iter()
        .all(|&(f, _)| {
            let code = info.fields[f as usize].get(word);
            zeros.iter().any(|&(g, z)| g == f && z == code)
        })
        .then_some(k)
}

/// The address operand the flow of `word` goes to (its target, or the direct target
/// of an indirect flow), as an index into [`OpcodeInfo::addresses`].
pub fn target_operand<F>(info: &OpcodeInfo<F>, word: u128) -> Option<u8> {
    info.target.or_else(|| direct_target(info, word))
}

/// Whether any of `fields` (indices into [`OpcodeInfo::fields`]) is not at its default.
fn any_off_default<F>(info: &OpcodeInfo<F>, fields: &[u8], word: u128) -> bool {
    fields.iter().any(|&k| {
        let f = &info.fields[k as usize];
        Some(f.get(word)) != f.default
    })
}

/// Whether the guard predicate may be false: it is not the always-true register, or
/// it is negated. Writes of a guarded instruction are conditional.
pub fn is_guarded<F>(info: &OpcodeInfo<F>, word: u128) -> bool {
    any_off_default(info, &info.conditions[..info.guard_fields as usize], word)
}

/// Whether the flow is conditional: the guard, or one of the fields the spec names as
/// conditions (such as a second predicate or a `.DIV` modifier), is not at its
/// default. A conditional branch also falls through.
pub fn is_conditional<F>(info: &OpcodeInfo<F>, word: u128) -> bool {
    any_off_default(info, info.conditions, word)
}

/// Whether address operand `k` is an absolute address in `word` (not one relative to
/// the next instruction); `None` when there is no such operand.
pub fn address_is_absolute<F>(info: &OpcodeInfo<F>, word: u128, k: usize) -> Option<bool> {
    Some(info.addresses.get(k)?.is_absolute_in(word, info.fields))
}

/// The address that address operand `k` of `word`, at `addr`, names.
pub fn address<F>(info: &OpcodeInfo<F>, word: u128, k: usize, addr: u64) -> Option<u64> {
    let a = info.addresses.get(k)?;
    let raw = info.fields[a.field as usize].get(word);
    let offset = offset_of(raw, a.shift.into(), a.width.into(), a.signed);
    Some(if a.is_absolute_in(word, info.fields) {
        offset
    } else {
        addr.wrapping_add(INSTRUCTION_BYTES).wrapping_add(offset)
    })
}

/// The offset in bytes that an address operand's `code` stands for: the code, of
/// `width` bits (two's complement when `signed`), in units of `1 << shift` bytes,
/// modulo 2^64.
pub fn offset_of(code: u128, shift: u32, width: u32, signed: bool) -> u64 {
    let negative = signed && width < 128 && width > 0 && (code >> (width - 1)) & 1 == 1;
    let v = if negative {
        code | (u128::MAX << width)
    } else {
        code
    };
    // A unit of 2^64 bytes or more: every offset is 0 modulo 2^64.
    (v as u64).checked_shl(shift).unwrap_or(0)
}

/// The code of an address operand of `width` bits (two's complement when `signed`),
/// in units of `1 << shift` bytes, that names `target` counting from `base` (the next
/// instruction's address, or 0 for an absolute address), or why there is none. The
/// distance is taken modulo 2^64, as a signed number. A unit of 2^64 bytes or more
/// is [`TargetError::Misaligned`]`(u64::MAX)` for any other distance than 0.
pub fn offset_code(
    base: u64,
    target: u64,
    shift: u32,
    width: u32,
    signed: bool,
) -> Result<u128, TargetError> {
    let delta = target.wrapping_sub(base) as i64 as i128;
    // A unit of 2^127 bytes or more: only a distance of 0 is a multiple of it.
    let Some(align) = 1i128.checked_shl(shift).filter(|a| a.is_positive()) else {
        return if delta == 0 {
            Ok(0)
        } else {
            Err(TargetError::Misaligned(u64::MAX))
        };
    };
    if delta.rem_euclid(align) != 0 {
        return Err(TargetError::Misaligned(
            u64::try_from(align).unwrap_or(u64::MAX),
        ));
    }
    let v = delta >> shift;
    // A field of no bits names only the distance 0.
    if width == 0 {
        return if v == 0 {
            Ok(0)
        } else {
            Err(TargetError::OutOfRange)
        };
    }
    // The field's range (a field of 126 bits or more holds any `i64` distance).
    let w = width.min(126);
    let (lo, hi) = if signed {
        (-(1i128 << (w - 1)), (1i128 << (w - 1)) - 1)
    } else {
        (0, (1i128 << w) - 1)
    };
    if v < lo || v > hi {
        return Err(TargetError::OutOfRange);
    }
    // A negative offset's two's complement, in the field's width.
    Ok((v as u128) & (u128::MAX >> (128 - width.clamp(1, 128))))
}

/// `word` with address operand `k` of the instruction at `addr` made to name
/// `target`.
pub fn relocate<F>(
    info: &OpcodeInfo<F>,
    word: u128,
    addr: u64,
    k: usize,
    target: u64,
) -> Result<u128, TargetError> {
    let a = info.addresses.get(k).ok_or(TargetError::NoAddress)?;
    let base = if a.is_absolute_in(word, info.fields) {
        0
    } else {
        addr.wrapping_add(INSTRUCTION_BYTES)
    };
    let code = offset_code(base, target, a.shift.into(), a.width.into(), a.signed)?;
    Ok(info.fields[a.field as usize].set(word, code))
}

/// Register operand `r` of `word` as the instance uses it (`None` when the code is
/// not a register of its file).
fn reg_operand<R: Register>(
    info: &OpcodeInfo<R::File>,
    r: &'static RegOperandInfo<R::File>,
    word: u128,
    guarded: bool,
) -> Option<RegOperand<R>> {
    let (reg, count) = match r.field {
        Some(k) => {
            let code = info.fields[k as usize].get(word);
            let count = if r.varies {
                field_bitwidth(info, word, k).map_or(1, |b| crate::info::registers(b.into()) as u16)
            } else {
                r.max_count
            };
            (R::from_code(r.file, code as u64)?, count)
        }
        None => (R::from_code(r.file, u64::from(r.fixed_first))?, r.max_count),
    };
    Some(RegOperand {
        info: r,
        reg,
        count,
        access: if guarded {
            r.access.guarded()
        } else {
            r.access
        },
    })
}

/// The register operands of `word` as the instance uses them: every register operand
/// of the opcode, `Order` first, with its register, the number of registers it covers
/// (from its `Bitwidth` in this instance, [`field_bitwidth`]) and its access (writes
/// are conditional under a guard that may be false).
pub fn reg_operands<R: Register>(
    info: &'static OpcodeInfo<R::File>,
    word: u128,
) -> impl Iterator<Item = RegOperand<R>> {
    let guarded = is_guarded(info, word);
    info.regs
        .iter()
        .filter_map(move |r| reg_operand(info, r, word, guarded))
}

/// Rewrites the registers of `word`, as a register allocator does after assignment:
/// `f` gets each register operand and returns the (first) register it should name.
/// Operand words stand for fixed registers and must come back unchanged; a register
/// of another file is an error. Returns the new word and the last operand changed
/// (for [`RegError::Undefined`] when the caller finds the word does not decode).
pub fn map_regs<R: Register>(
    info: &'static OpcodeInfo<R::File>,
    word: u128,
    mut f: impl FnMut(&RegOperand<R>) -> R,
) -> Result<(u128, &'static str), RegError> {
    let guarded = is_guarded(info, word);
    let mut out = word;
    let mut changed = "";
    for r in info.regs {
        let Some(op) = reg_operand::<R>(info, r, word, guarded) else {
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
        let last = u8::try_from(op.count - 1).ok();
        if !new.is_constant() && op.count > 1 && last.and_then(|n| new.offset(n)).is_none() {
            return Err(RegError::Range(r.name));
        }
        changed = r.name;
        out = info.fields[k as usize].set(out, u128::from(new.code()));
    }
    Ok((out, changed))
}

/// The data width in bits of the operand whose field is named `operand` (`ra`) in
/// `word`, when the spec gives one: its `Bitwidth` expression over the word's field
/// codes, clamped to `0..=u32::MAX`.
// This, `field_bitwidth`, `reads` and `writes` are not inlined: a generated crate
// calls each from a method of every opcode's struct, and one copy serves them all.
#[inline(never)]
pub fn bitwidth<F>(info: &OpcodeInfo<F>, word: u128, operand: &str) -> Option<u32> {
    let named = |b: &&BitwidthInfo| {
        info.fields
            .get(b.field as usize)
            .is_some_and(|f| f.name == operand)
    };
    Some(width_in(info, info.bitwidths.iter().find(named)?, word))
}

/// [`bitwidth`] of field `field` (an index into [`OpcodeInfo::fields`]).
#[inline(never)]
pub fn field_bitwidth<F>(info: &OpcodeInfo<F>, word: u128, field: u8) -> Option<u32> {
    let b = info.bitwidths.iter().find(|b| b.field == field)?;
    Some(width_in(info, b, word))
}

/// Width `b` in `word` (a field out of the table reads as 0).
fn width_in<F>(info: &OpcodeInfo<F>, b: &BitwidthInfo, word: u128) -> u32 {
    let code = |f: u16| info.fields.get(f as usize).map_or(0, |x| x.get(word));
    crate::expr::eval(b.expr, &code).clamp(0, u32::MAX.into()) as u32
}

/// The registers an instruction reads or writes ([`reads`], [`writes`]): every
/// register its register operands of that access cover in this instance
/// ([`RegOperand::regs`]), in the order of [`reg_operands`], named constant registers
/// left out (they hold no state). An iterator over at most `N` registers, without
/// allocation: a generated crate's `Regs` names the most any instruction of its spec
/// covers, and registers past `N` are dropped.
#[derive(Clone, Debug)]
pub struct Regs<R, const N: usize> {
    items: [Option<R>; N],
    len: usize,
    pos: usize,
}

impl<R: Register, const N: usize> Regs<R, N> {
    /// The registers of the operands of `word` whose access `of` accepts.
    #[inline]
    fn of(info: &'static OpcodeInfo<R::File>, word: u128, of: fn(Access) -> bool) -> Self {
        let mut regs = Regs {
            items: [None; N],
            len: 0,
            pos: 0,
        };
        regs.fill(info, word, of);
        regs
    }

    /// [`Regs::of`] into an empty list (built in its place, not copied out).
    #[inline(never)]
    fn fill(&mut self, info: &'static OpcodeInfo<R::File>, word: u128, of: fn(Access) -> bool) {
        // Whether an operand is read or written is its opcode's access: a guard that
        // may be false only makes a write conditional (so it is not asked).
        for r in info.regs.iter().filter(|r| of(r.access)) {
            let Some(op) = reg_operand::<R>(info, r, word, false) else {
                continue;
            };
            for reg in op.regs().filter(|x| !x.is_constant()) {
                if let Some(slot) = self.items.get_mut(self.len) {
                    *slot = Some(reg);
                    self.len += 1;
                }
            }
        }
    }
}

impl<R: Copy, const N: usize> Iterator for Regs<R, N> {
    type Item = R;

    fn next(&mut self) -> Option<R> {
        let r = *self.items.get(self.pos..self.len)?.first()?;
        self.pos += 1;
        r
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.len - self.pos;
        (n, Some(n))
    }
}

impl<R: Copy, const N: usize> ExactSizeIterator for Regs<R, N> {}

/// The registers `word` reads ([`Regs`]): its operands in `InList`, and any register
/// operand in neither list (liveness must not take it for dead).
#[inline(never)]
pub fn reads<R: Register, const N: usize>(
    info: &'static OpcodeInfo<R::File>,
    word: u128,
) -> Regs<R, N> {
    Regs::of(info, word, Access::reads)
}

/// The registers `word` may write ([`Regs`]): its operands in `OutList`, under a guard
/// or not.
#[inline(never)]
pub fn writes<R: Register, const N: usize>(
    info: &'static OpcodeInfo<R::File>,
    word: u128,
) -> Regs<R, N> {
    Regs::of(info, word, Access::writes)
}

#[cfg(test)]
mod tests;
