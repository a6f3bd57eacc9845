//! Register allocation over register tuples, for any spec.
//!
//! A [`Function`] is instructions over register operands, each naming a virtual value
//! (some consecutive units of a value of one file: a single register, a pair, a quad)
//! or fixed physical registers, with its access (read, written, written only under a
//! guard), plus the control flow (falls through, branch targets, divergent). The
//! generated crate's `CodeBuffer::allocate` builds one from the spec's operand facts;
//! nothing here knows a particular spec.
//!
//! - `cfg`: basic blocks, successors and predecessors, and the part of the function
//!   divergent lanes may run apart;
//! - `live`: liveness per register unit (a pair is two units, as LLVM's register
//!   units), in which a guarded write does not end a value's life;
//! - `assign`: gives each value consecutive physical registers that no unit of an
//!   interfering value or fixed register occupies; no spilling (the ISA has no store
//!   to spill to): when the registers run out, the error names the instruction and
//!   what is live there;
//! - [`check`]: verifies an allocation symbolically, as regalloc2's checker does:
//!   every read finds, in the physical registers, the value the virtual one held.
//!
//! Program points: instruction `i` reads at point `2i` and writes at `2i + 1`, so a
//! value last read by an instruction may share a register with one it writes (every
//! operand is read before any is written).
//!
//! Divergence: after a divergent branch one group of lanes runs ahead (to a point
//! where the lanes meet again, or to its end) before the others resume, so the
//! per-lane control-flow graph no longer orders the warp's writes to the files it
//! shares (`per-warp`). Every value of such a file live anywhere in a divergent region
//! (the blocks reachable from the branch before the convergence point of a barrier
//! set up before it, or all reachable blocks without one) is kept apart from every
//! other such value of the region: each region is one more program point, past the
//! function's, where they all are live.

mod assign;
mod cfg;
pub mod check;
mod live;
#[cfg(test)]
mod tests;

use alloc::vec::Vec;
use core::fmt;

/// Most instructions of a function: program points (two per instruction, then two per
/// divergent region, at most one region per instruction) stay below 2^31.
pub const MAX_INSTRUCTIONS: usize = 1 << 29;

/// Whether a function of `n` instructions is past [`MAX_INSTRUCTIONS`]. (Alone, so
/// that mutation testing can leave it out: a test would need 2^29 instructions.)
fn too_long(n: usize) -> bool {
    n > MAX_INSTRUCTIONS
}

/// A register file the allocator gives registers of.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct File {
    /// Numbered registers `0..count` (unit `k` is the file's `k`-th numbered register).
    pub count: u16,
    /// The first register of a value of `n > 1` units is a multiple of
    /// `min(n, align)`; 1 when the spec states no alignment.
    pub align: u8,
    /// Whether each lane has its own copy; otherwise the warp shares one.
    pub per_lane: bool,
    /// Registers never given out (an ABI's reserved registers); fixed operands may
    /// still name them.
    pub reserved: Vec<u16>,
}

/// Where an operand's registers are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Loc {
    /// Units `unit..` of a virtual value.
    Virtual {
        /// The value ([`Function::value`]).
        value: u32,
        /// Its first unit this operand covers.
        unit: u8,
    },
    /// Fixed physical registers of a file, from its `reg`-th numbered register.
    Fixed {
        /// The file (index into [`Function::files`]).
        file: u8,
        /// The first register.
        reg: u16,
    },
}

/// How an operand uses its registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Use {
    /// The old value is read.
    pub read: bool,
    /// A value is written.
    pub write: bool,
    /// The write happens only when a guard holds: the old value may live on.
    pub conditional: bool,
}

impl Use {
    /// Read only.
    pub const READ: Use = Use {
        read: true,
        write: false,
        conditional: false,
    };
    /// Written: the old value's life ends.
    pub const WRITE: Use = Use {
        read: false,
        write: true,
        conditional: false,
    };
    /// Read and written (a tied operand).
    pub const READ_WRITE: Use = Use {
        read: true,
        write: true,
        conditional: false,
    };
    /// Written only when a guard holds.
    pub const COND_WRITE: Use = Use {
        read: false,
        write: true,
        conditional: true,
    };
}

/// A register operand: `count` consecutive units from `loc`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Operand {
    /// The first unit.
    pub loc: Loc,
    /// How many units.
    pub count: u8,
    /// How they are used.
    pub usage: Use,
}

/// A virtual value: `width` units of one file, given consecutive registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Value {
    /// Its file (index into [`Function::files`]).
    pub file: u8,
    /// How many units (registers).
    pub width: u8,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Inst {
    /// End of the instruction's operands in `ops`.
    pub ops_end: u32,
    /// End of its targets in `targets`.
    pub targets_end: u32,
    pub falls_through: bool,
    pub divergent: bool,
    /// The instruction where the lanes active here meet again (`BSSY`'s point).
    pub converges_at: Option<u32>,
    /// A copy from its one read operand to its one written one: the allocator tries
    /// to give both the same registers, and the copy then does nothing.
    pub copy: bool,
}

/// The control flow out of an instruction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Flow<'a> {
    /// Execution may go on at the next instruction.
    pub falls_through: bool,
    /// Instructions it may go to (indices).
    pub targets: &'a [u32],
    /// Lanes may part: some go on, others go elsewhere (a branch on a per-lane
    /// condition, an indirect branch).
    pub divergent: bool,
    /// The lanes active here meet again at this instruction (a convergence barrier
    /// set up here and waited on there, as `BSSY` and its `BSYNC`): lanes that part
    /// after this point run apart only until they reach it.
    pub converges_at: Option<u32>,
}

/// A function to allocate: files, virtual values, and instructions in layout order.
#[derive(Clone, Debug, Default)]
pub struct Function {
    files: Vec<File>,
    values: Vec<Value>,
    insts: Vec<Inst>,
    ops: Vec<Operand>,
    targets: Vec<u32>,
}

impl Function {
    /// An empty function over `files`.
    pub fn new(files: Vec<File>) -> Function {
        Function {
            files,
            ..Function::default()
        }
    }

    /// The register files.
    pub fn files(&self) -> &[File] {
        &self.files
    }

    /// A new virtual value of `width` units of `file`.
    pub fn value(&mut self, file: u8, width: u8) -> u32 {
        self.values.push(Value { file, width });
        (self.values.len() - 1) as u32
    }

    /// The virtual values.
    pub fn values(&self) -> &[Value] {
        &self.values
    }

    /// Appends an instruction; returns its index.
    pub fn push(&mut self, ops: &[Operand], flow: Flow<'_>) -> u32 {
        self.ops.extend_from_slice(ops);
        self.targets.extend_from_slice(flow.targets);
        self.insts.push(Inst {
            ops_end: self.ops.len() as u32,
            targets_end: self.targets.len() as u32,
            falls_through: flow.falls_through,
            divergent: flow.divergent,
            converges_at: flow.converges_at,
            copy: false,
        });
        (self.insts.len() - 1) as u32
    }

    /// Marks instruction `i` a copy of its one read operand into its one written one.
    pub fn mark_copy(&mut self, i: u32) {
        if let Some(inst) = self.insts.get_mut(i as usize) {
            inst.copy = true;
        }
    }

    /// How many instructions.
    pub fn len(&self) -> usize {
        self.insts.len()
    }

    /// Whether there are no instructions.
    pub fn is_empty(&self) -> bool {
        self.insts.is_empty()
    }

    /// The operands of instruction `i`.
    pub fn operands(&self, i: usize) -> &[Operand] {
        let start = if i == 0 {
            0
        } else {
            self.insts[i - 1].ops_end as usize
        };
        &self.ops[start..self.insts[i].ops_end as usize]
    }

    /// The targets of instruction `i`.
    pub fn targets(&self, i: usize) -> &[u32] {
        let start = if i == 0 {
            0
        } else {
            self.insts[i - 1].targets_end as usize
        };
        &self.targets[start..self.insts[i].targets_end as usize]
    }

    pub(crate) fn inst(&self, i: usize) -> Inst {
        self.insts[i]
    }

    /// Checks that every index is in range; the analyses may then index freely.
    fn validate(&self) -> Result<(), AllocError> {
        let bad = |inst: usize, what: &'static str| AllocError::Invalid {
            inst: inst as u32,
            what,
        };
        if too_long(self.insts.len()) {
            return Err(bad(0, "too many instructions"));
        }
        for v in &self.values {
            match self.files.get(v.file as usize) {
                Some(f) if v.width >= 1 && u16::from(v.width) <= f.count => {}
                _ => {
                    return Err(AllocError::Invalid {
                        inst: u32::MAX,
                        what: "a value of no file, of width 0, or wider than its file",
                    })
                }
            }
        }
        for i in 0..self.insts.len() {
            if self
                .targets(i)
                .iter()
                .any(|&t| t as usize >= self.insts.len())
            {
                return Err(bad(i, "a branch target past the last instruction"));
            }
            for op in self.operands(i) {
                if op.count == 0 {
                    return Err(bad(i, "an operand of no registers"));
                }
                match op.loc {
                    Loc::Virtual { value, unit } => {
                        let Some(v) = self.values.get(value as usize) else {
                            return Err(bad(i, "an operand names no value of the function"));
                        };
                        if u16::from(unit) + u16::from(op.count) > u16::from(v.width) {
                            return Err(bad(i, "an operand covers units past its value's width"));
                        }
                    }
                    Loc::Fixed { file, reg } => {
                        let Some(f) = self.files.get(file as usize) else {
                            return Err(bad(i, "an operand names no file of the function"));
                        };
                        if u32::from(reg) + u32::from(op.count) > u32::from(f.count) {
                            return Err(bad(i, "fixed registers past the file's last"));
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// Allocates: the first physical register of every value, or why not.
    pub fn allocate(&self) -> Result<Allocation, AllocError> {
        self.validate()?;
        let cfg = cfg::Cfg::new(self);
        let live = live::Liveness::new(self, &cfg);
        assign::assign(self, &cfg, &live)
    }
}

/// The numbering of register units the analyses and the checker share: every value's
/// units, value by value, then every file's registers. Returns the first unit of each
/// value and of each file, each list ending with the next free number.
pub(crate) fn unit_bases(f: &Function) -> (Vec<u32>, Vec<u32>) {
    // The first unit of each block of `sizes` units laid end to end from `start`, and
    // the number after the last.
    fn bases(start: u32, sizes: impl Iterator<Item = u32>) -> Vec<u32> {
        let mut out = alloc::vec![start];
        let mut next = start;
        for size in sizes {
            next += size;
            out.push(next);
        }
        out
    }
    let vbase = bases(0, f.values.iter().map(|v| u32::from(v.width)));
    let pbase = bases(
        vbase[f.values.len()],
        f.files.iter().map(|fl| u32::from(fl.count)),
    );
    (vbase, pbase)
}

/// The registers given: the first register of each value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Allocation {
    /// First register of each value (index into its file's numbered registers).
    pub first: Vec<u16>,
}

impl Allocation {
    /// The physical location of `loc`: fixed registers stay, a virtual one becomes
    /// its value's register plus the unit.
    pub fn resolve(&self, f: &Function, loc: Loc) -> (u8, u16) {
        match loc {
            Loc::Fixed { file, reg } => (file, reg),
            Loc::Virtual { value, unit } => (
                f.values[value as usize].file,
                self.first[value as usize] + u16::from(unit),
            ),
        }
    }

    /// Whether instruction `i`, marked a copy, copies a value onto itself.
    pub fn is_identity(&self, f: &Function, i: usize) -> bool {
        if !f.insts[i].copy {
            return false;
        }
        let ops = f.operands(i);
        let (mut from, mut to) = (None, None);
        for op in ops {
            let at = (self.resolve(f, op.loc), op.count);
            if op.usage.write {
                to = to.or(Some(at));
            } else if op.usage.read {
                from = from.or(Some(at));
            }
        }
        from.is_some() && from == to
    }
}

/// Why a function cannot be allocated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AllocError {
    /// The registers of a file ran out: at instruction `inst`, `value` (of `width`
    /// units) finds no free registers; `live` is what occupies the file there.
    OutOfRegisters {
        /// The instruction.
        inst: u32,
        /// The file.
        file: u8,
        /// The value that found no registers.
        value: u32,
        /// Its width in units.
        width: u8,
        /// What is live in the file there, with the registers each holds.
        live: Vec<(Loc, u16)>,
        /// When what fills the file are the values that may run apart after a
        /// divergent branch (this instruction), rather than those live at `inst`.
        divergent: Option<u32>,
    },
    /// The function is malformed.
    Invalid {
        /// The instruction (`u32::MAX` for a value).
        inst: u32,
        /// What is wrong.
        what: &'static str,
    },
}

impl fmt::Display for AllocError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AllocError::OutOfRegisters {
                inst,
                file,
                value,
                width,
                live,
                divergent,
            } => {
                write!(
                    f,
                    "instruction {inst}: no {width} free consecutive registers of file {file} for value %{value}; "
                )?;
                match divergent {
                    Some(b) => write!(
                        f,
                        "held by the values that may run apart after the divergent branch at {b}:"
                    )?,
                    None => f.write_str("live there:")?,
                }
                for (loc, reg) in live {
                    match loc {
                        Loc::Virtual { value, unit } => write!(f, " %{value}.{unit} in {reg}")?,
                        Loc::Fixed { .. } => write!(f, " fixed {reg}")?,
                    }
                }
                Ok(())
            }
            AllocError::Invalid { inst, what } => write!(f, "instruction {inst}: {what}"),
        }
    }
}

impl core::error::Error for AllocError {}
