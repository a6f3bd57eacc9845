//! Virtual registers in a [`CodeBuffer`], and their allocation: the buffer's
//! instructions become a [`crate::regalloc::Function`] through the operand facts
//! (`reg_operands`, `flow`, the address operands' labels), and the registers given
//! are written back with `map_regs`.

use alloc::string::String;
use alloc::vec::Vec;

use super::{addr_at, BufferError, CodeBuffer, Dest, Label, INSTRUCTION_BYTES};
use crate::backend::{FileOf, RegError, RegOperand, Register, RegisterFile, SpecInstruction};
use crate::info::{Access, Flow};
use crate::regalloc as ra;

/// A virtual register: a value of `width` consecutive registers of one file (a single
/// register, a pair, a quad), made by [`CodeBuffer::vreg`] and given physical registers
/// by [`CodeBuffer::allocate`]. A reference may cover part of the value
/// ([`VReg::part`]: the low half of a pair). It stands wherever a register of its file
/// goes: in `code!` (`{v}`), or bound to an operand with [`CodeBuffer::set_virtual`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct VReg<F> {
    pub(super) buffer: u32,
    pub(super) value: u32,
    file: F,
    width: u8,
    first: u8,
    count: u8,
}

impl<F: Copy> VReg<F> {
    /// The register file.
    pub const fn file(self) -> F {
        self.file
    }

    /// The number of the value in its buffer.
    pub const fn index(self) -> u32 {
        self.value
    }

    /// How many registers the whole value has.
    pub const fn width(self) -> u8 {
        self.width
    }

    /// The first of the value's registers this reference covers.
    pub const fn first(self) -> u8 {
        self.first
    }

    /// How many registers this reference covers.
    pub const fn count(self) -> u8 {
        self.count
    }

    /// Registers `first..first + count` of the value (`part(0, 1)`: the low half of a
    /// pair); `None` past its width.
    pub const fn part(self, first: u8, count: u8) -> Option<VReg<F>> {
        if count == 0 || first as u16 + count as u16 > self.width as u16 {
            return None;
        }
        Some(VReg {
            first,
            count,
            ..self
        })
    }

    /// The whole value.
    pub const fn whole(self) -> VReg<F> {
        VReg {
            first: 0,
            count: self.width,
            ..self
        }
    }
}

impl<F: RegisterFile> core::fmt::Display for VReg<F> {
    /// `%UReg3`, a part as `%UReg3[0:1]`.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "%{}{}", self.file.name(), self.value)?;
        if self.count != self.width {
            write!(f, "[{}:{}]", self.first, self.first + self.count - 1)?;
        }
        Ok(())
    }
}

/// The virtual registers of instruction type `I`'s spec.
pub type VRegOf<I> = VReg<FileOf<I>>;

/// What `code!` puts in an instruction's field: a value of the field's type, or (for a
/// register field) a [`VReg`] of the spec's files `F`, which the buffer records
/// instead (a generated crate implements `Hole<T, F>` for `VReg<F>` and each register
/// type `T`).
pub trait Hole<T, F> {
    /// Puts `self` in `slot`, or returns the virtual register that stands there.
    fn fill(self, slot: &mut T) -> Option<VReg<F>>;
}

impl<T, F> Hole<T, F> for T {
    fn fill(self, slot: &mut T) -> Option<VReg<F>> {
        *slot = self;
        None
    }
}

/// What allocation must respect beyond the instructions: the calling convention.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Abi<R> {
    /// Registers never given to a value (a stack pointer, registers the caller keeps);
    /// instructions may still name them.
    pub reserved: Vec<R>,
    /// Registers a call may change: no value lives in them across a call.
    pub call_clobbers: Vec<R>,
    /// Registers a call reads (its arguments): what is written to them before stays.
    pub call_reads: Vec<R>,
    /// Registers read when the function returns (its results).
    pub return_reads: Vec<R>,
    /// Registers read when lanes exit (a kernel's results: the ISA has no store, so
    /// what a kernel leaves is in registers). Without them, a register written and
    /// never read again is free for a value after the write.
    pub exit_reads: Vec<R>,
}

impl<R> Default for Abi<R> {
    /// No register reserved, clobbered or read.
    fn default() -> Abi<R> {
        Abi {
            reserved: Vec::new(),
            call_clobbers: Vec::new(),
            call_reads: Vec::new(),
            return_reads: Vec::new(),
            exit_reads: Vec::new(),
        }
    }
}

/// Why virtual registers cannot be used or allocated.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum AllocError<I: SpecInstruction> {
    /// The file has no numbered registers to give (an enumeration of registers).
    NotAllocatable(FileOf<I>),
    /// A width of 0 or more registers than the file has.
    Width(FileOf<I>, u8),
    /// A virtual register of another buffer, or of an allocation already done.
    Foreign(VRegOf<I>),
    /// No instruction of the buffer is at this address.
    NoInstruction(u64),
    /// The instruction at `at` has no register operand `operand` that takes a
    /// register of its own (an operand word stands for fixed registers).
    NoOperand {
        /// Address of the instruction.
        at: u64,
        /// The operand's name.
        operand: String,
        /// The operands that take one (spec names).
        takes: Vec<&'static str>,
    },
    /// The instruction at this address is not a copy of one register operand into
    /// another ([`CodeBuffer::mark_copy`]).
    NotACopy(u64),
    /// [`CodeBuffer::assign`] gave a virtual register a register of another file, a
    /// constant one, or one with too few registers after it.
    Assigned {
        /// The virtual register.
        vreg: VRegOf<I>,
        /// What it was given.
        reg: I::Reg,
    },
    /// The operand takes registers of another file, or another number of them.
    Mismatch {
        /// Address of the instruction.
        at: u64,
        /// The operand.
        operand: &'static str,
        /// What it takes: file and number of registers.
        takes: (FileOf<I>, u16),
        /// The virtual register given.
        given: VRegOf<I>,
    },
    /// The registers of a file ran out: at the instruction at `at`, `value` finds no
    /// free consecutive registers; `live` is what holds the file's registers there.
    OutOfRegisters {
        /// Address of the instruction.
        at: u64,
        /// The value.
        value: VRegOf<I>,
        /// What is live there: a virtual register (`Some`) or a fixed one, and the
        /// register it holds.
        live: Vec<(Option<VRegOf<I>>, I::Reg)>,
        /// When what fills the file is rather the values that may run apart after a
        /// divergent branch (the branch's address): a file the warp shares keeps them
        /// all apart.
        divergent: Option<u64>,
    },
    /// Writing the registers given made an instruction the spec does not define.
    Rewrite {
        /// Address of the instruction.
        at: u64,
        /// Why.
        error: RegError,
    },
    /// The checker found a read of the wrong value ([`CodeBuffer::allocate_checked`]):
    /// a defect of the allocator, reported rather than encoded.
    Check(String),
}

impl<I: SpecInstruction> core::error::Error for AllocError<I> {}

impl<I: SpecInstruction> core::fmt::Display for AllocError<I> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            AllocError::NotAllocatable(file) => {
                write!(f, "`{}` has no numbered registers to allocate", file.name())
            }
            AllocError::Width(file, w) => {
                write!(f, "no value of {w} registers fits `{}`", file.name())
            }
            AllocError::Foreign(v) => write!(
                f,
                "{v} belongs to another buffer, or to an allocation already done"
            ),
            AllocError::NoInstruction(at) => write!(f, "no instruction at {at:#x}"),
            AllocError::NoOperand { at, operand, takes } => {
                write!(
                    f,
                    "instruction at {at:#x}: no register operand `{operand}` takes a register of its own; "
                )?;
                if takes.is_empty() {
                    f.write_str("none does")
                } else {
                    f.write_str("these do:")?;
                    for t in takes {
                        write!(f, " `{t}`")?;
                    }
                    Ok(())
                }
            }
            AllocError::NotACopy(at) => write!(
                f,
                "instruction at {at:#x} is no copy of one register operand into another"
            ),
            AllocError::Assigned { vreg, reg } => write!(
                f,
                "{vreg} was given {reg}: it needs {} numbered `{}` register(s) from there",
                vreg.width(),
                vreg.file().name()
            ),
            AllocError::Mismatch {
                at,
                operand,
                takes,
                given,
            } => write!(
                f,
                "instruction at {at:#x}: operand `{operand}` takes {} `{}` register(s), not {given} ({} of `{}`)",
                takes.1,
                takes.0.name(),
                given.count(),
                given.file().name()
            ),
            AllocError::OutOfRegisters {
                at,
                value,
                live,
                divergent,
            } => {
                write!(
                    f,
                    "instruction at {at:#x}: no {} free consecutive `{}` registers for {value}; ",
                    value.width(),
                    value.file().name()
                )?;
                match divergent {
                    Some(b) => write!(
                        f,
                        "held by the values that may run apart after the divergent branch at {b:#x}:"
                    )?,
                    None => f.write_str("live there:")?,
                }
                for (k, (v, r)) in live.iter().enumerate() {
                    let sep = if k == 0 { " " } else { ", " };
                    match v {
                        Some(v) => write!(f, "{sep}{v} in {r}")?,
                        None => write!(f, "{sep}{r} (fixed)")?,
                    }
                }
                Ok(())
            }
            AllocError::Rewrite { at, error } => write!(f, "instruction at {at:#x}: {error}"),
            AllocError::Check(m) => write!(f, "the allocation does not check: {m}"),
        }
    }
}

/// The registers [`CodeBuffer::allocate`] gave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Allocated<R> {
    buffer: u32,
    first: Vec<Option<R>>,
    /// Copies removed because they became copies of a register onto itself.
    pub removed_copies: usize,
}

impl<R: Register> Allocated<R> {
    /// The first physical register of the part `v` covers.
    pub fn reg(&self, v: VReg<R::File>) -> Option<R> {
        if v.buffer != self.buffer {
            return None;
        }
        self.first
            .get(v.value as usize)
            .copied()
            .flatten()?
            .offset(v.first)
    }
}

/// The virtual registers of a buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Virtuals<I: SpecInstruction> {
    /// File and width of each value; values before `retired` were allocated.
    pub(super) values: Vec<(FileOf<I>, u8)>,
    retired: u32,
    /// Operand `reg` (index into `OpcodeInfo::regs`) of instruction `at` is `vreg`.
    pub(super) uses: Vec<(usize, u8, VRegOf<I>)>,
    /// Instructions that copy their read register operand to their written one.
    copies: Vec<usize>,
    /// Where an indirect branch may go (labels), when known.
    indirect: Vec<(usize, Vec<u32>)>,
}

impl<I: SpecInstruction> Default for Virtuals<I> {
    fn default() -> Virtuals<I> {
        Virtuals {
            values: Vec::new(),
            retired: 0,
            uses: Vec::new(),
            copies: Vec::new(),
            indirect: Vec::new(),
        }
    }
}

/// The numbered registers of `file` (first and last code) as the allocator counts them.
fn numbered<F: RegisterFile>(file: F) -> Option<(u64, u16)> {
    let (lo, hi) = file.numbered()?;
    let count = u16::try_from(hi.checked_sub(lo)?.checked_add(1)?).ok()?;
    Some((lo, count))
}

impl<I: SpecInstruction> CodeBuffer<I> {
    /// A new virtual register of `width` consecutive registers of `file`.
    pub fn vreg(&mut self, file: FileOf<I>, width: u8) -> Result<VRegOf<I>, AllocError<I>> {
        let (_, count) = numbered(file).ok_or(AllocError::NotAllocatable(file))?;
        if width == 0 || u16::from(width) > count {
            return Err(AllocError::Width(file, width));
        }
        self.virt.values.push((file, width));
        Ok(VReg {
            buffer: self.identity.id,
            value: (self.virt.values.len() - 1) as u32,
            file,
            width,
            first: 0,
            count: width,
        })
    }

    fn owns_vreg(&self, v: VRegOf<I>) -> bool {
        v.value >= self.virt.retired
            && self
                .identity
                .owns(v.buffer, v.value, self.virt.values.len(), |a| a.vregs)
            && self.virt.values[v.value as usize] == (v.file, v.width)
    }

    /// The index of the instruction at `at`.
    fn index_at(&self, at: u64) -> Option<usize> {
        let off = at.checked_sub(self.base)?;
        let i = usize::try_from(off / INSTRUCTION_BYTES).ok()?;
        (off % INSTRUCTION_BYTES == 0 && i < self.insts.len()).then_some(i)
    }

    /// Makes register operand `operand` (its spec name: `rd`, `ura`) of the instruction
    /// at address `at` (as [`CodeBuffer::push`] returned it) the virtual register `v`.
    /// The operand must take registers of `v`'s file, as many as `v` covers.
    pub fn set_virtual(
        &mut self,
        at: u64,
        operand: &str,
        v: VRegOf<I>,
    ) -> Result<(), AllocError<I>> {
        let i = self.index_at(at).ok_or(AllocError::NoInstruction(at))?;
        let k = self.bindable(&self.insts[i], at, operand, v)?;
        // A later binding of the same operand replaces this one (`bound`).
        self.virt.uses.push((i, k, v));
        Ok(())
    }

    /// Whether `v` may stand for operand `operand` of `insn` (to be) at `at`: the
    /// operand's index in `OpcodeInfo::regs`. `code!` asks before it pushes, so a
    /// failed line leaves the buffer as it was.
    #[doc(hidden)]
    pub fn bindable(
        &self,
        insn: &I,
        at: u64,
        operand: &str,
        v: VRegOf<I>,
    ) -> Result<u8, AllocError<I>> {
        if !self.owns_vreg(v) {
            return Err(AllocError::Foreign(v));
        }
        let info = insn.info();
        let no_operand = || AllocError::NoOperand {
            at,
            operand: operand.into(),
            takes: info
                .regs
                .iter()
                .filter(|r| !r.is_fixed())
                .map(|r| r.name)
                .collect(),
        };
        let k = info
            .regs
            .iter()
            .position(|r| r.name == operand && !r.is_fixed())
            .ok_or_else(no_operand)?;
        let op = insn
            .reg_operands()
            .find(|o| core::ptr::eq(o.info, &info.regs[k]))
            .ok_or_else(no_operand)?;
        if op.reg.file() != v.file || op.count != u16::from(v.count) {
            return Err(AllocError::Mismatch {
                at,
                operand: info.regs[k].name,
                takes: (op.reg.file(), op.count),
                given: v,
            });
        }
        Ok(k as u8)
    }

    /// Marks the instruction at `at` a copy of its one read register operand into its
    /// one written one (`UMOV UR1, UR2`, `UMOV.64`): allocation gives both the same
    /// registers where it can, and then removes the copy. The allocator trusts the
    /// mark: an instruction of two register operands that computes something (an
    /// absolute value, a bit reversal) must not be marked. One with other operands (an
    /// immediate, a carry out) is refused.
    pub fn mark_copy(&mut self, at: u64) -> Result<(), AllocError<I>> {
        let i = self.index_at(at).ok_or(AllocError::NoInstruction(at))?;
        let insn = self.insts[i];
        let info = insn.info();
        let guards = info.regs.iter().filter(|r| r.guard).count();
        let ops: Vec<RegOperand<I::Reg>> = insn.reg_operands().filter(|o| !o.info.guard).collect();
        let not_a_copy = Err(AllocError::NotACopy(at));
        // Two register operands, one read and one written (perhaps under a guard).
        let (from, to) = match ops.as_slice() {
            [a, b] => match (a.access, b.access) {
                (Access::Read, Access::Write | Access::CondWrite) => (a, b),
                (Access::Write | Access::CondWrite, Access::Read) => (b, a),
                _ => return not_a_copy,
            },
            _ => return not_a_copy,
        };
        // No other operand, and the same registers on both sides.
        if info.order.len() != guards + 2
            || from.reg.file() != to.reg.file()
            || from.count != to.count
        {
            return not_a_copy;
        }
        self.virt.copies.push(i);
        Ok(())
    }

    /// Says where the indirect branch at `at` may go (a `BRX` through a jump table):
    /// without it, allocation takes every bound label as a possible target.
    pub fn set_targets(&mut self, at: u64, targets: &[Label]) -> Result<(), BufferError<I>> {
        let i = self
            .index_at(at)
            .ok_or(BufferError::Alloc(AllocError::NoInstruction(at)))?;
        let mut ls = Vec::with_capacity(targets.len());
        for &l in targets {
            self.slot(l)?;
            ls.push(l.index);
        }
        self.virt.indirect.push((i, ls));
        Ok(())
    }

    /// The bindings by instruction and operand, the last made for each operand.
    fn bound(&self) -> Vec<(usize, u8, VRegOf<I>)> {
        let mut all: Vec<(usize, u8, core::cmp::Reverse<usize>, VRegOf<I>)> = self
            .virt
            .uses
            .iter()
            .enumerate()
            .map(|(n, &(i, k, v))| (i, k, core::cmp::Reverse(n), v))
            .collect();
        all.sort_unstable_by_key(|x| (x.0, x.1, x.2));
        all.dedup_by_key(|x| (x.0, x.1));
        all.into_iter().map(|(i, k, _, v)| (i, k, v)).collect()
    }

    /// Whether some instruction still names a virtual register.
    pub fn has_virtual(&self) -> bool {
        !self.virt.uses.is_empty()
    }

    /// Gives every virtual register the physical registers `f` returns for it (the
    /// first of its value; `f` is asked once per value named): for a backend with an
    /// allocator of its own, or an identity assignment to compare against. Nothing
    /// changes on error.
    pub fn assign(
        &mut self,
        mut f: impl core::ops::FnMut(VRegOf<I>) -> I::Reg,
    ) -> Result<Allocated<I::Reg>, AllocError<I>> {
        let mut first: Vec<Option<I::Reg>> = Vec::with_capacity(self.virt.values.len());
        let mut named = alloc::vec![false; self.virt.values.len()];
        for &(_, _, v) in &self.virt.uses {
            named[v.value as usize] = true;
        }
        for (k, &(file, width)) in self.virt.values.iter().enumerate() {
            let v = VReg {
                buffer: self.identity.id,
                value: k as u32,
                file,
                width,
                first: 0,
                count: width,
            };
            // (Values already allocated are retired: no operand names them.)
            if !named[k] {
                first.push(None);
                continue;
            }
            let reg = f(v);
            let fits = reg.file() == file && !reg.is_constant() && reg.offset(width - 1).is_some();
            if !fits {
                return Err(AllocError::Assigned { vreg: v, reg });
            }
            first.push(Some(reg));
        }
        self.rewrite(first, false)
    }

    /// Writes the registers given into the instructions, drops the copies that became
    /// identities, and retires the virtual registers.
    fn rewrite(
        &mut self,
        first: Vec<Option<I::Reg>>,
        drop_copies: bool,
    ) -> Result<Allocated<I::Reg>, AllocError<I>> {
        let mut insts = self.insts.clone();
        let by_inst = self.bound();
        let mut k = 0;
        while k < by_inst.len() {
            let i = by_inst[k].0;
            let end = k + by_inst[k..].iter().take_while(|u| u.0 == i).count();
            let group = &by_inst[k..end];
            let info = insts[i].info();
            let at = addr_at(self.base, i);
            let mut bad = None;
            let r = insts[i].map_regs(|op| {
                let Some(&(_, _, v)) = group
                    .iter()
                    .find(|u| core::ptr::eq(op.info, &info.regs[u.1 as usize]))
                else {
                    return op.reg;
                };
                // (Registers of the value's file: `assign` checks it, and the
                // allocator gives no other.)
                match first[v.value as usize].and_then(|r| r.offset(v.first)) {
                    Some(r) => r,
                    None => {
                        bad = Some(v);
                        op.reg
                    }
                }
            });
            if let Some(v) = bad {
                return Err(AllocError::Mismatch {
                    at,
                    operand: "",
                    takes: (v.file, v.count.into()),
                    given: v,
                });
            }
            r.map_err(|error| AllocError::Rewrite { at, error })?;
            k = end;
        }
        // Copies onto themselves: every register read is the one written.
        let mut removed = Vec::new();
        if drop_copies {
            for &i in &self.virt.copies {
                let ops: Vec<RegOperand<I::Reg>> = insts[i].reg_operands().collect();
                // Constant registers (the guard `PT`, a carry out to `UPT`) hold nothing.
                let ops: Vec<&RegOperand<I::Reg>> =
                    ops.iter().filter(|o| !o.reg.is_constant()).collect();
                let from = ops.iter().find(|o| o.access == Access::Read);
                let to = ops.iter().find(|o| o.access == Access::Write);
                let uses_other = ops.len() != 2;
                if let (Some(a), Some(b), false) = (from, to, uses_other) {
                    if a.reg == b.reg && a.count == b.count {
                        removed.push(i);
                    }
                }
            }
            removed.sort_unstable();
            removed.dedup();
        }
        self.insts = insts;
        // An address operand pushed as a raw offset (`push`) keeps its offset: removing
        // an instruction between it and what it points to would change its meaning, so
        // then every copy stays (it does nothing).
        if !removed.is_empty() && !self.raw_offsets() {
            self.remove(&removed);
        } else {
            removed.clear();
        }
        self.virt.retired = self.virt.values.len() as u32;
        self.virt.uses.clear();
        self.virt.copies.clear();
        self.virt.indirect.clear();
        Ok(Allocated {
            buffer: self.identity.id,
            first,
            removed_copies: removed.len(),
        })
    }

    /// Whether some relative address operand is neither a label's nor an address's
    /// nor a relocation's: an offset the buffer does not know the target of.
    fn raw_offsets(&self) -> bool {
        let mut tracked: Vec<(usize, u8)> = self.uses.iter().map(|u| (u.at, u.operand)).collect();
        tracked.extend(
            self.relocs
                .iter()
                .map(|r| ((r.offset / INSTRUCTION_BYTES) as usize, r.operand)),
        );
        tracked.sort_unstable();
        self.insts.iter().enumerate().any(|(i, insn)| {
            (0..insn.addresses().len()).any(|k| {
                insn.address_is_absolute(k) == Some(false)
                    && tracked.binary_search(&(i, k as u8)).is_err()
            })
        })
    }

    /// Removes instructions `gone` (sorted): later instructions, the labels bound to
    /// them and the references from them move up.
    fn remove(&mut self, gone: &[usize]) {
        let new_index = |i: usize| i - gone.partition_point(|&g| g < i);
        let mut k = 0;
        let mut i = 0;
        self.insts.retain(|_| {
            let keep = gone.get(k) != Some(&i);
            if !keep {
                k += 1;
            }
            i += 1;
            keep
        });
        for l in &mut self.labels {
            if let Some(at) = l.at.as_mut() {
                *at = new_index(*at);
            }
        }
        for u in &mut self.uses {
            u.at = new_index(u.at);
        }
        for r in &mut self.relocs {
            let i = (r.offset / INSTRUCTION_BYTES) as usize;
            r.offset = INSTRUCTION_BYTES * new_index(i) as u64;
        }
    }

    /// Gives every virtual register physical registers, honouring the registers the
    /// instructions and `abi` fix, tied and guarded operands and register tuples, and
    /// rewrites the instructions; copies that became identities are removed. Fails,
    /// changing nothing, when a file's registers run out (the ISA has no store to
    /// spill to), naming the instruction and what is live there.
    pub fn allocate(&mut self, abi: &Abi<I::Reg>) -> Result<Allocated<I::Reg>, AllocError<I>> {
        self.allocate_inner(abi, false)
    }

    /// [`CodeBuffer::allocate`], then the checker: every read of the allocated code
    /// finds the value its virtual register held, on every path
    /// (`isa_rt::regalloc::check`). For tests and fuzzing; costs about as much again.
    pub fn allocate_checked(
        &mut self,
        abi: &Abi<I::Reg>,
    ) -> Result<Allocated<I::Reg>, AllocError<I>> {
        self.allocate_inner(abi, true)
    }

    fn allocate_inner(
        &mut self,
        abi: &Abi<I::Reg>,
        check: bool,
    ) -> Result<Allocated<I::Reg>, AllocError<I>> {
        // The files the allocator knows: those with numbered registers.
        let files: Vec<(FileOf<I>, u64, u16)> = <FileOf<I> as RegisterFile>::ALL
            .iter()
            .filter_map(|&f| numbered(f).map(|(lo, n)| (f, lo, n)))
            .collect();
        let file_index = |f: FileOf<I>| files.iter().position(|x| x.0 == f).map(|k| k as u8);
        // A fixed register as (file, first numbered register); `None` for a constant one
        // or one outside the numbered range.
        let fixed = |r: I::Reg| -> Option<(u8, u16)> {
            let k = file_index(r.file())?;
            let (_, lo, n) = files[k as usize];
            let reg = r.code().checked_sub(lo)?;
            (!r.is_constant() && reg < u64::from(n)).then_some((k, reg as u16))
        };
        let mut func = ra::Function::new(
            files
                .iter()
                .map(|&(f, _, _)| ra::File {
                    count: numbered(f).map_or(0, |x| x.1),
                    align: 1,
                    per_lane: f.per_lane(),
                    reserved: abi
                        .reserved
                        .iter()
                        .filter(|r| r.file() == f)
                        .filter_map(|&r| fixed(r).map(|x| x.1))
                        .collect(),
                })
                .collect(),
        );
        for &(file, width) in &self.virt.values {
            func.value(file_index(file).unwrap_or(0), width);
        }
        let uses = self.bound();
        // Where calls to labels of this buffer return: a return goes back to each.
        let n = self.insts.len();
        let label_at = |l: u32| {
            self.labels
                .get(l as usize)
                .and_then(|s| s.at)
                .filter(|&i| i < n)
        };
        // The label each address operand names, by instruction and operand.
        let mut dests: Vec<(usize, u8, u32)> = self
            .uses
            .iter()
            .filter_map(|u| match u.dest {
                Dest::Label(l) => Some((u.at, u.operand, l)),
                Dest::Address(_) => None,
            })
            .collect();
        dests.sort_unstable();
        let target_of = |i: usize, k: Option<u8>| -> Option<usize> {
            let k = k?;
            let at = dests.partition_point(|d| (d.0, d.1) < (i, k));
            dests
                .get(at)
                .filter(|d| (d.0, d.1) == (i, k))
                .and_then(|d| label_at(d.2))
        };
        let mut copies = self.virt.copies.clone();
        copies.sort_unstable();
        let mut return_points: Vec<u32> = Vec::new();
        for (i, insn) in self.insts.iter().enumerate() {
            let k = insn.target_operand();
            if insn.flow() == Flow::Call && target_of(i, k).is_some() && i + 1 < n {
                return_points.push(i as u32 + 1);
            }
        }
        let every_label: Vec<u32> = (0..self.labels.len() as u32)
            .filter_map(|l| label_at(l).map(|i| i as u32))
            .collect();
        let mut ops: Vec<ra::Operand> = Vec::new();
        let mut targets: Vec<u32> = Vec::new();
        let mut u = 0;
        for (i, insn) in self.insts.iter().enumerate() {
            ops.clear();
            targets.clear();
            let info = insn.info();
            let guarded = insn.is_conditional();
            for op in insn.reg_operands() {
                let k = info
                    .regs
                    .iter()
                    .position(|r| core::ptr::eq(r, op.info))
                    .unwrap_or(0);
                while u < uses.len() && (uses[u].0, uses[u].1 as usize) < (i, k) {
                    u += 1;
                }
                let usage = ra::Use {
                    read: op.access.reads(),
                    write: op.access.writes(),
                    conditional: op.access.is_conditional(),
                };
                let loc = match uses.get(u) {
                    Some(&(j, r, v)) if j == i && r as usize == k => {
                        if !self.owns_vreg(v) {
                            return Err(AllocError::Foreign(v));
                        }
                        ra::Loc::Virtual {
                            value: v.value,
                            unit: v.first,
                        }
                    }
                    _ => match fixed(op.reg) {
                        Some((file, reg)) => ra::Loc::Fixed { file, reg },
                        None => continue,
                    },
                };
                // (The allocator counts at most 255 units an operand: a virtual
                // register is at most 32, and a fixed operand wider than that, a
                // register picked by index from a larger file, is cut there.)
                let count = match loc {
                    ra::Loc::Virtual { .. } => u8::try_from(op.count).unwrap_or(u8::MAX),
                    ra::Loc::Fixed { file, reg } => {
                        op.regs()
                            .filter(|r| fixed(*r).is_some())
                            .count()
                            .min(usize::from(files[file as usize].2 - reg))
                            .min(usize::from(u8::MAX)) as u8
                    }
                };
                if count > 0 {
                    ops.push(ra::Operand { loc, count, usage });
                }
            }
            let flow = insn.flow();
            let mut extra = |list: &[I::Reg], usage: ra::Use| {
                for &r in list {
                    if let Some((file, reg)) = fixed(r) {
                        ops.push(ra::Operand {
                            loc: ra::Loc::Fixed { file, reg },
                            count: 1,
                            usage,
                        });
                    }
                }
            };
            match flow {
                Flow::Call | Flow::IndirectCall => {
                    extra(&abi.call_reads, ra::Use::READ);
                    extra(
                        &abi.call_clobbers,
                        if guarded {
                            ra::Use::COND_WRITE
                        } else {
                            ra::Use::WRITE
                        },
                    );
                }
                Flow::Return => extra(&abi.return_reads, ra::Use::READ),
                Flow::Exit => extra(&abi.exit_reads, ra::Use::READ),
                _ => {}
            }
            let mut divergent = guarded;
            match flow {
                Flow::Branch => {
                    targets.extend(target_of(i, insn.target_operand()).map(|t| t as u32))
                }
                Flow::Call => targets.extend(target_of(i, insn.target_operand()).map(|t| t as u32)),
                Flow::IndirectBranch => {
                    divergent = true;
                    match self.virt.indirect.iter().rev().find(|x| x.0 == i) {
                        Some((_, ls)) => {
                            targets.extend(ls.iter().filter_map(|&l| label_at(l)).map(|t| t as u32))
                        }
                        None => targets.extend(&every_label),
                    }
                }
                Flow::Return => targets.extend(&return_points),
                _ => {}
            }
            let falls_through = flow.falls_through() || guarded;
            if !matches!(
                flow,
                Flow::Branch
                    | Flow::IndirectBranch
                    | Flow::Call
                    | Flow::IndirectCall
                    | Flow::Return
            ) {
                divergent = false;
            }
            // A convergence barrier set up here: the lanes meet at its point.
            let converges_at = match flow {
                Flow::Converge => target_of(i, info.target).map(|t| t as u32),
                _ => None,
            };
            let j = func.push(
                &ops,
                ra::Flow {
                    falls_through,
                    targets: &targets,
                    divergent,
                    converges_at,
                },
            );
            if copies.binary_search(&i).is_ok() {
                func.mark_copy(j);
            }
        }
        let a = func.allocate().map_err(|e| match e {
            ra::AllocError::OutOfRegisters {
                inst,
                value,
                live,
                divergent,
                ..
            } => {
                let vreg = |value: u32, unit: u8| {
                    let (file, width) = self.virt.values[value as usize];
                    VReg {
                        buffer: self.identity.id,
                        value,
                        file,
                        width,
                        first: unit,
                        count: 1,
                    }
                };
                let file_of = |f: u8| files[f as usize];
                let v = vreg(value, 0).whole();
                let (_, lo, _) = file_of(file_index(v.file).unwrap_or(0));
                AllocError::OutOfRegisters {
                    at: addr_at(self.base, inst as usize),
                    divergent: divergent.map(|b| addr_at(self.base, b as usize)),
                    value: v,
                    live: live
                        .into_iter()
                        .filter_map(|(loc, reg)| {
                            let r = I::Reg::from_code(v.file, lo + u64::from(reg))?;
                            Some(match loc {
                                ra::Loc::Virtual { value, unit } => (Some(vreg(value, unit)), r),
                                ra::Loc::Fixed { .. } => (None, r),
                            })
                        })
                        .collect(),
                }
            }
            ra::AllocError::Invalid { inst, what } => {
                AllocError::Check(alloc::format!("instruction {inst}: {what}"))
            }
        })?;
        if check {
            ra::check::check(&func, &a).map_err(|e| AllocError::Check(alloc::format!("{e}")))?;
        }
        // Only the values this allocation placed have registers to report.
        let mut named = alloc::vec![false; self.virt.values.len()];
        for &(_, _, v) in &uses {
            named[v.value as usize] = true;
        }
        let first = self
            .virt
            .values
            .iter()
            .zip(&a.first)
            .zip(named)
            .map(|((&(file, _), &r), named)| {
                let (_, lo, _) = files[file_index(file).unwrap_or(0) as usize];
                named
                    .then(|| I::Reg::from_code(file, lo + u64::from(r)))
                    .flatten()
            })
            .collect();
        self.rewrite(first, true)
    }
}
