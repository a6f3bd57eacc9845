//! Watching a run step by step: [`Machine::run_observed`](crate::Machine::run_observed)
//! and [`Machine::step_observed`](crate::Machine::step_observed) call an [`Observer`]
//! after every instruction, with what ran ([`Step`]) and the warp after it, so a
//! testbench can compare the state with an RTL model's at every step, or write a
//! trace. [`Changes`] tells which state each step changed.
//!
//! ```
//! use isa_runtime::{Change, Changes, Machine, Observer, Program, Step, Stop, Warp};
//! use isa::Instruction;
//!
//! struct Log(Changes, Vec<(u64, Vec<Change>)>);
//! impl Observer for Log {
//!     fn step(&mut self, step: &Step<'_>, warp: &Warp) {
//!         let changed = self.0.update(warp).to_vec();
//!         self.1.push((step.pc, changed));
//!     }
//! }
//!
//! let insns: Vec<Instruction> =
//!     ["UMOV UR1, 0x5", "EXIT"].iter().map(|l| l.parse().unwrap()).collect();
//! let mut m = Machine::new(Warp::new(u32::MAX), Program::from_instructions(0, &insns));
//! let mut log = Log(Changes::new(&m.warp), Vec::new());
//! assert_eq!(m.run_observed(100, &mut log), Stop::Exited);
//! let ur1 = isa::UReg::new(1).unwrap();
//! assert_eq!(log.1[0], (0x0, vec![Change::UReg(ur1)]));
//! assert_eq!(log.1[1], (0x10, vec![Change::ValidMask, Change::ActiveMask]));
//! ```
//!
//! Without an observer ([`Machine::run`](crate::Machine::run),
//! [`Machine::step`](crate::Machine::step)) none of this is computed: the observed
//! and the plain step are one function instantiated twice.

use isa::{BReg, FieldRole, Instruction, OperandKind, Pred, Reg, SReg, UPred, UReg};

use crate::machine::Event;
use crate::snapshot::Snapshot;
use crate::warp::Warp;

/// One executed instruction, as an [`Observer`] is told of it.
#[derive(Clone, Copy, Debug)]
pub struct Step<'a> {
    /// Its number in the run, from 1 ([`Machine::steps`](crate::Machine::steps) after it).
    pub number: u64,
    /// Its address.
    pub pc: u64,
    /// The instruction.
    pub instruction: &'a Instruction,
    /// The cycle counter when it began.
    pub cycle: u64,
    /// `ValidMask` when it began.
    pub valid_mask: u32,
    /// `ActiveMask` when it began: the lanes that executed it.
    pub active_mask: u32,
    /// `YieldMask` when it began.
    pub yield_mask: u32,
    /// `SleepMask` when it began.
    pub sleep_mask: u32,
    /// The active lanes whose guard predicate was true (all of them or none for a
    /// uniform guard `@UPn`); the other active lanes were predicated off.
    pub guard: u32,
    /// The event it reported, if any.
    pub event: Option<&'a Event>,
}

/// Watches a run; see the module docs.
pub trait Observer {
    /// Called after every executed instruction with the warp as it left it. Not called
    /// for an instruction that faults (the state is then unchanged).
    fn step(&mut self, step: &Step<'_>, warp: &Warp);
}

impl<O: Observer + ?Sized> Observer for &mut O {
    fn step(&mut self, step: &Step<'_>, warp: &Warp) {
        (**self).step(step, warp);
    }
}

/// Both observers, in order.
impl<A: Observer, B: Observer> Observer for (A, B) {
    fn step(&mut self, step: &Step<'_>, warp: &Warp) {
        self.0.step(step, warp);
        self.1.step(step, warp);
    }
}

/// The observer of the unobserved run; never called.
pub(crate) struct Unobserved;

impl Observer for Unobserved {
    #[inline(always)]
    fn step(&mut self, _: &Step<'_>, _: &Warp) {}
}

/// A piece of architectural state whose value changed; the new value is the warp's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Change {
    /// A general register (some lanes of it).
    Gpr(Reg),
    /// A predicate (some lanes of it).
    Pred(Pred),
    /// A uniform register.
    UReg(UReg),
    /// A uniform predicate.
    UPred(UPred),
    /// A convergence barrier register.
    BReg(BReg),
    /// A stored special register (SETREG).
    SReg(SReg),
    /// An address of the GETREG/SETREG register store (≥ 0x100).
    RegSpace(u32),
    /// `ValidMask`.
    ValidMask,
    /// `ActiveMask`.
    ActiveMask,
    /// `YieldMask`.
    YieldMask,
    /// `SleepMask`.
    SleepMask,
    /// `SwitchMask`.
    SwitchMask,
    /// The resume PC of these lanes.
    Rpc(u32),
}

/// Which state each step changed: keeps a copy of the warp's state and compares.
///
/// The list is in the state file's order: registers, predicates, uniform registers,
/// uniform predicates, B registers, special registers, the register store, the
/// masks, RPC. `ActivePC`, the cycle counter and the NANOSLEEP timer are not listed
/// (the next step's [`Step::pc`] and [`Step::cycle`] tell them). A write that stores
/// the value a register already had is no change.
#[derive(Clone, Debug)]
pub struct Changes {
    copy: Snapshot,
    list: Vec<Change>,
}

impl Changes {
    /// Starts from `warp`'s state (before the first step).
    pub fn new(warp: &Warp) -> Changes {
        Changes {
            copy: Snapshot::of(warp),
            list: Vec::new(),
        }
    }

    /// What changed in `warp` since the last call (or [`Changes::new`]).
    pub fn update(&mut self, warp: &Warp) -> &[Change] {
        self.list.clear();
        self.copy.diff(warp, &mut self.list);
        &self.list
    }
}

/// The active lanes of `warp` whose guard predicate (`@Pn`, `@!Pn`, `@UPn`) of `insn`
/// is true: `ActiveMask` for `@PT` or an instruction without a guard.
pub fn guard_lanes(warp: &Warp, insn: &Instruction) -> u32 {
    let info = insn.opcode().info();
    let Some(guard) = info.order.first() else {
        return warp.active_mask;
    };
    let word = insn.encode();
    let field = |name: &str| {
        info.fields.iter().find(|f| f.name == name).map(|f| {
            let mask = if f.width >= 128 {
                u128::MAX
            } else {
                (1u128 << f.width) - 1
            };
            (word >> f.start) & mask
        })
    };
    let Some(&name) = guard.fields.first() else {
        return warp.active_mask;
    };
    let Some(bits) = field(name) else {
        return warp.active_mask;
    };
    // The guard's one sub-field is its negation (`pg.not`).
    let negated = info
        .fields
        .iter()
        .find(|f| f.role == FieldRole::SubField(name))
        .and_then(|f| field(f.name))
        .is_some_and(|v| v == 1);
    match guard.kind {
        OperandKind::Register("Pred") => match Pred::from_bits(bits as u8) {
            Some(p) => {
                let value = warp.pred_mask(p);
                (if negated { !value } else { value }) & warp.active_mask
            }
            None => warp.active_mask,
        },
        OperandKind::Register("UPred") => match UPred::from_bits(bits as u8) {
            Some(p) if warp.upred(p) != negated => warp.active_mask,
            Some(_) => 0,
            None => warp.active_mask,
        },
        _ => warp.active_mask,
    }
}
