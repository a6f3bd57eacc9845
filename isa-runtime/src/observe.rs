//! Watching a run step by step: [`Machine::run_observed`](crate::Machine::run_observed)
//! and [`Machine::step_observed`](crate::Machine::step_observed) call an [`Observer`]
//! after every instruction, with what ran ([`Step`]) and the warp after it, so a
//! testbench can compare the state with an RTL model's at every step, or write a
//! trace. [`Changes`] tells which state each step wrote or changed.
//!
//! ```
//! use isa_runtime::{Change, Changes, Machine, Observer, Program, Step, Stop, Warp};
//! use isa::Instruction;
//!
//! struct Log(Changes, Vec<(u64, Vec<Change>)>);
//! impl Observer for Log {
//!     fn step(&mut self, step: &Step<'_>, warp: &Warp) {
//!         let changed = self.0.update(step, warp).to_vec();
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

use std::collections::BTreeMap;

use isa::{BReg, FieldRole, Instruction, OperandKind, Pred, Reg, SReg, UPred, UReg};

use crate::machine::Event;
use crate::warp::{Warp, Written, LANES};

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
    /// What it wrote ([`Changes`] lists it).
    pub(crate) written: Written,
}

/// Watches a run; see the module docs.
pub trait Observer {
    /// Called after every executed instruction with the warp as it left it. Not called
    /// for an instruction that faults (the state is then unchanged).
    fn step(&mut self, step: &Step<'_>, warp: &Warp);

    /// Asked after every step of [`Machine::run_observed`](crate::Machine::run_observed):
    /// `true` ends the run there, as a step limit would ([`FaultKind::StepLimit`](crate::FaultKind::StepLimit)
    /// at the steps run so far), with the state the last step left. A testbench that
    /// found a mismatch stops the run this way.
    fn stop(&self) -> bool {
        false
    }
}

impl<O: Observer + ?Sized> Observer for &mut O {
    fn step(&mut self, step: &Step<'_>, warp: &Warp) {
        (**self).step(step, warp);
    }

    fn stop(&self) -> bool {
        (**self).stop()
    }
}

/// Both observers, in order.
impl<A: Observer, B: Observer> Observer for (A, B) {
    fn step(&mut self, step: &Step<'_>, warp: &Warp) {
        self.0.step(step, warp);
        self.1.step(step, warp);
    }

    fn stop(&self) -> bool {
        self.0.stop() || self.1.stop()
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

/// What each step wrote or changed, for a trace or a step-by-step comparison.
///
/// Listed are the registers, predicates, uniform registers and predicates and special
/// registers the instruction wrote (as a register file's write port would: also when
/// the value stays the same), and the B registers, register-store addresses, masks
/// and resume PCs whose value changed, in the state file's order: registers,
/// predicates, uniform registers, uniform predicates, B registers, special registers,
/// the register store, the masks, RPC. `ActivePC`, the cycle counter and the
/// NANOSLEEP timer are not listed (the next step's [`Step::pc`] and [`Step::cycle`]
/// tell them).
#[derive(Clone, Debug)]
pub struct Changes {
    breg: [u32; 16],
    masks: [u32; 5],
    rpc: [u64; LANES],
    regspace: BTreeMap<u32, u32>,
    list: Vec<Change>,
}

fn masks(w: &Warp) -> [u32; 5] {
    [
        w.valid_mask,
        w.active_mask,
        w.yield_mask,
        w.sleep_mask,
        w.switch_mask,
    ]
}

/// Each `1` bit of `bits` (64 per word), as a number.
fn bit_numbers(bits: &[u64]) -> impl Iterator<Item = usize> + '_ {
    bits.iter().enumerate().flat_map(|(k, &word)| {
        (0..64)
            .filter(move |b| word >> b & 1 == 1)
            .map(move |b| 64 * k + b)
    })
}

impl Changes {
    /// Starts from `warp`'s state (before the first step).
    pub fn new(warp: &Warp) -> Changes {
        Changes {
            breg: warp.breg,
            masks: masks(warp),
            rpc: warp.rpc,
            regspace: warp.regspace.clone(),
            list: Vec::new(),
        }
    }

    /// What `step` wrote or changed; `warp` is the state after it, as the observer
    /// was given it. Steps must be given in order.
    pub fn update(&mut self, step: &Step<'_>, warp: &Warp) -> &[Change] {
        let out = &mut self.list;
        out.clear();
        let wr = &step.written;
        out.extend(bit_numbers(&wr.gpr).filter_map(|n| Reg::new(n as u8).map(Change::Gpr)));
        out.extend(
            bit_numbers(&[u64::from(wr.pred)]).filter_map(|n| Pred::new(n as u8).map(Change::Pred)),
        );
        out.extend(bit_numbers(&[wr.ur]).filter_map(|n| UReg::new(n as u8).map(Change::UReg)));
        out.extend(
            bit_numbers(&[u64::from(wr.upred)])
                .filter_map(|n| UPred::new(n as u8).map(Change::UPred)),
        );
        for (b, (old, new)) in self.breg.iter_mut().zip(&warp.breg).enumerate() {
            if old != new {
                *old = *new;
                out.push(Change::BReg(BReg::ALL[b]));
            }
        }
        out.extend(
            bit_numbers(&wr.sreg).filter_map(|n| SReg::from_bits(n as u8).map(Change::SReg)),
        );
        if self.regspace != warp.regspace {
            for (a, v) in &warp.regspace {
                if self.regspace.get(a) != Some(v) {
                    out.push(Change::RegSpace(*a));
                }
            }
            self.regspace.clone_from(&warp.regspace);
        }
        let now = masks(warp);
        let kinds = [
            Change::ValidMask,
            Change::ActiveMask,
            Change::YieldMask,
            Change::SleepMask,
            Change::SwitchMask,
        ];
        // The NANOSLEEP timer clears `SleepMask` as the step begins (`step.sleep_mask`
        // is after it): a step that puts lanes back to sleep ends where the last one
        // did, yet changed the mask, and is reported too.
        let timer_fired = step.sleep_mask != self.masks[3];
        for ((old, new), kind) in self.masks.iter_mut().zip(now).zip(kinds) {
            if *old != new || (kind == Change::SleepMask && timer_fired) {
                *old = new;
                out.push(kind);
            }
        }
        let mut lanes = 0u32;
        for (l, (old, new)) in self.rpc.iter_mut().zip(&warp.rpc).enumerate() {
            if old != new {
                *old = *new;
                lanes |= 1 << l;
            }
        }
        if lanes != 0 {
            out.push(Change::Rpc(lanes));
        }
        out
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
