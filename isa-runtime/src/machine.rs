//! Programs, the step loop, faults and events.

use std::fmt;

use isa::{DecodeError, Instruction, ValidationError};

use crate::livelock::Detector;
use crate::observe::{guard_lanes, Observer, Step, Unobserved};
use crate::warp::{Warp, Written, INST_SIZE};

/// A program: decoded once, at load time. A word that does not decode (or violates
/// one of the spec's `__Exception` conditions) is kept as such and faults only if it
/// is executed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    base: u64,
    slots: Vec<Slot>,
}

/// One instruction slot of a [`Program`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Slot {
    /// A valid instruction.
    Ok(Instruction),
    /// A word that does not decode.
    Undecodable(u128, DecodeError),
    /// A word that decodes but violates an `__Exception` condition of the spec.
    Invalid(Instruction, ValidationError),
}

impl Program {
    /// Decodes `words`, the first at address `base` (16-byte aligned).
    pub fn from_words(base: u64, words: &[u128]) -> Program {
        let slots = words
            .iter()
            .map(|&w| match Instruction::decode(w) {
                Ok(i) => match i.validate() {
                    Ok(()) => Slot::Ok(i),
                    Err(e) => Slot::Invalid(i, e),
                },
                Err(e) => Slot::Undecodable(w, e),
            })
            .collect();
        Program { base, slots }
    }

    /// A program of already decoded instructions, the first at `base`.
    pub fn from_instructions(base: u64, insns: &[Instruction]) -> Program {
        Program {
            base,
            slots: insns
                .iter()
                .map(|i| match i.validate() {
                    Ok(()) => Slot::Ok(*i),
                    Err(e) => Slot::Invalid(*i, e),
                })
                .collect(),
        }
    }

    /// Address of the first instruction.
    pub fn base(&self) -> u64 {
        self.base
    }

    /// One past the last instruction's address.
    pub fn end(&self) -> u64 {
        self.base
            .saturating_add((self.slots.len() as u64).saturating_mul(INST_SIZE))
    }

    /// Number of instructions.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// True when the program has no instruction.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// The slot at `pc`, if `pc` is an instruction address of the program.
    #[inline]
    pub fn get(&self, pc: u64) -> Option<&Slot> {
        let off = pc.wrapping_sub(self.base);
        if !off.is_multiple_of(INST_SIZE) {
            return None;
        }
        self.slots.get((off / INST_SIZE) as usize)
    }

    /// The assembly text of the instruction at `pc` (`.word 0x…` for a bad word).
    pub fn text_at(&self, pc: u64) -> Option<String> {
        self.get(pc).map(|s| match s {
            Slot::Ok(i) | Slot::Invalid(i, _) => i.display_at(pc).to_string(),
            Slot::Undecodable(w, _) => format!(".word {w:#034x}"),
        })
    }
}

/// Why execution stopped before every lane exited.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FaultKind {
    /// The step limit was reached.
    StepLimit(u64),
    /// The PC left the program (`pc` is where execution would have continued).
    OutsideProgram {
        /// The address.
        pc: u64,
    },
    /// The word at the PC does not decode.
    Undecodable(DecodeError),
    /// The instruction violates an `__Exception` condition of the spec.
    Invalid(ValidationError),
    /// GETUGPR/SETUGPR indexed a uniform register outside UR0..URZ.
    UrIndexOutOfRange(i64),
    /// A constant-memory access left its bank.
    CmemOutOfRange {
        /// Bank.
        bank: u8,
        /// Byte address.
        addr: i64,
        /// Bytes read.
        size: usize,
    },
    /// Lanes are alive but none can run.
    Deadlock {
        /// `ValidMask` at the time.
        valid: u32,
        /// `ActiveMask` at the time.
        active: u32,
    },
    /// The warp came back to a state it had been in (every register, predicate,
    /// mask, PC, B register and the timer alike) without reading the clock since: it
    /// would repeat the same steps forever. The spec's BSYNC can do this (see the
    /// crate docs). [`Fault::cycle`] lists what the cycle runs.
    Livelock {
        /// Steps in one turn of the cycle.
        period: u64,
        /// Whether the cycle runs more (address, lanes) pairs than
        /// [`Fault::cycle`] lists.
        more: bool,
        /// Valid lanes that never run in the cycle.
        starved: u32,
        /// Those of them in `YieldMask`.
        yielded: u32,
    },
    /// A lane executed WARPSYNC with a membermask that does not contain it.
    WarpsyncNotMember {
        /// The lane.
        lane: usize,
        /// Its membermask.
        mask: u32,
    },
    /// Two lanes released by one grouped `WARPSYNC R` name different membermasks.
    WarpsyncMaskMismatch {
        /// The lane whose group is released.
        lane: usize,
        /// Its membermask.
        mask: u32,
        /// A lane in that group.
        other: usize,
        /// Its (different) membermask.
        other_mask: u32,
    },
}

impl fmt::Display for FaultKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FaultKind::StepLimit(n) => write!(f, "step limit of {n} reached"),
            FaultKind::OutsideProgram { pc } => {
                write!(f, "jump outside the program (to {pc:#06x})")
            }
            FaultKind::Undecodable(e) => write!(f, "undecodable word: {e}"),
            FaultKind::Invalid(e) => write!(f, "invalid instruction: {e}"),
            FaultKind::UrIndexOutOfRange(i) => {
                write!(f, "dynamic UR index {i} out of range (UR0..UR63)")
            }
            FaultKind::CmemOutOfRange { bank, addr, size } => write!(
                f,
                "constant memory access c[{bank:#x}][{addr:#x}] ({size} bytes) outside the 64 KiB bank"
            ),
            FaultKind::Deadlock { valid, active } => write!(
                f,
                "deadlock: no lane can run (ValidMask {valid:#010x}, ActiveMask {active:#010x})"
            ),
            FaultKind::Livelock { period, .. } => {
                let s = if *period == 1 { "" } else { "s" };
                write!(
                    f,
                    "livelock: the warp returns to the same state every {period} step{s} and never finishes"
                )
            }
            FaultKind::WarpsyncNotMember { lane, mask } => write!(
                f,
                "WARPSYNC: lane {lane} is not in its own membermask {mask:#010x}"
            ),
            FaultKind::WarpsyncMaskMismatch {
                lane,
                mask,
                other,
                other_mask,
            } => write!(
                f,
                "WARPSYNC: lanes {lane} and {other} of one group name different membermasks ({mask:#010x} and {other_mask:#010x})"
            ),
        }
    }
}

/// How many (address, lanes) pairs of a livelock's cycle [`Fault::cycle`] lists.
pub const LIVELOCK_SHOWN: usize = 8;

/// One instruction of a livelock's cycle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CycleStep {
    /// Its address.
    pub pc: u64,
    /// Its assembly text.
    pub text: String,
    /// The lanes that ran it.
    pub lanes: u32,
}

/// A runtime fault: what happened, at which instruction.
///
/// (What only a livelock has, its cycle, is kept here rather than in [`FaultKind`]:
/// a kind without heap data keeps the result of every executed instruction plain to
/// move, which the step loop notices.)
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    /// Address of the instruction that faulted (for a jump outside the program: of
    /// the jump).
    pub pc: u64,
    /// Its assembly text, when there is an instruction at `pc`.
    pub instruction: Option<String>,
    /// What happened.
    pub kind: FaultKind,
    /// For a livelock, what its cycle runs, in order: each (address, lanes) pair
    /// once, at most [`LIVELOCK_SHOWN`] of them. Empty for other faults.
    pub cycle: Vec<CycleStep>,
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.instruction {
            Some(text) => write!(f, "pc {:#06x} `{text}`: {}", self.pc, self.kind)?,
            None => write!(f, "pc {:#06x}: {}", self.pc, self.kind)?,
        }
        if let FaultKind::Livelock {
            more,
            starved,
            yielded,
            ..
        } = self.kind
        {
            for (k, c) in self.cycle.iter().enumerate() {
                let sep = if k == 0 { "; the cycle runs " } else { ", " };
                write!(
                    f,
                    "{sep}{:#06x} `{}` (lanes {:#010x})",
                    c.pc, c.text, c.lanes
                )?;
            }
            if more {
                write!(f, ", …")?;
            }
            if starved != 0 {
                write!(f, "; lanes {starved:#010x} never run")?;
                if yielded == starved {
                    write!(f, " (they yielded)")?;
                } else if yielded != 0 {
                    write!(f, " ({yielded:#010x} of them yielded)")?;
                }
            }
        }
        Ok(())
    }
}

impl std::error::Error for Fault {}

/// Something a program reports to its host (the simulator records it and goes on).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventKind {
    /// `TRAP` with its handler index.
    Trap(u32),
    /// `RTT` (return from trap).
    Rtt,
    /// `SYSCALL`.
    Syscall,
    /// `PMTRIG` with its trigger mask.
    PmTrig(u16),
    /// `SWITCH` with its operand.
    Switch(u32),
    /// The whole warp slept (no lane could run) from cycle `from` until `until`.
    WarpSleep {
        /// Cycle the sleep began.
        from: u64,
        /// Cycle the sleep ended (the NANOSLEEP timer).
        until: u64,
    },
}

/// An [`EventKind`] with where and when it happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Event {
    /// Address of the instruction.
    pub pc: u64,
    /// Cycle counter when it executed.
    pub cycle: u64,
    /// Lanes that executed it (guard true).
    pub lanes: u32,
    /// What.
    pub kind: EventKind,
}

/// How a run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stop {
    /// Every valid lane exited.
    Exited,
    /// A fault.
    Fault(Fault),
}

/// A warp running a program.
#[derive(Clone, Debug)]
pub struct Machine {
    /// The warp's state.
    pub warp: Warp,
    /// The program.
    pub program: Program,
    /// Instructions executed.
    pub steps: u64,
    /// Events reported so far.
    pub events: Vec<Event>,
    /// Address of the last instruction executed.
    last_pc: Option<u64>,
}

impl Machine {
    /// A machine that starts `warp` at the program's first instruction.
    pub fn new(mut warp: Warp, program: Program) -> Machine {
        warp.active_pc = program.base();
        Machine {
            warp,
            program,
            steps: 0,
            events: Vec::new(),
            last_pc: None,
        }
    }

    /// Executes one instruction. `Ok(true)` when every valid lane has exited.
    #[inline]
    pub fn step(&mut self) -> Result<bool, Fault> {
        self.step_inner::<false, _>(&mut Unobserved)
    }

    /// [`Machine::step`], then tells `observer` what ran (not when it faults).
    pub fn step_observed<O: Observer + ?Sized>(&mut self, observer: &mut O) -> Result<bool, Fault> {
        self.step_inner::<true, O>(observer)
    }

    /// The step, with (`OBSERVE`) or without an observer: the unobserved instance
    /// computes nothing for one.
    #[inline(always)]
    pub(crate) fn step_inner<const OBSERVE: bool, O: Observer + ?Sized>(
        &mut self,
        observer: &mut O,
    ) -> Result<bool, Fault> {
        let w = &mut self.warp;
        if w.valid_mask == 0 {
            return Ok(true);
        }
        if let Some(t) = w.timer {
            if w.cycle >= t {
                w.sleep_mask = 0;
                w.timer = None;
            }
        }
        let pc = w.active_pc;
        let insn = match self.program.get(pc) {
            Some(Slot::Ok(i)) => i,
            Some(Slot::Undecodable(_, e)) => {
                return Err(self.fault_at(pc, FaultKind::Undecodable(*e)))
            }
            Some(Slot::Invalid(_, e)) => return Err(self.fault_at(pc, FaultKind::Invalid(*e))),
            None => {
                let kind = FaultKind::OutsideProgram { pc };
                return Err(match self.last_pc {
                    Some(last) => self.fault_at(last, kind),
                    None => Fault {
                        pc,
                        instruction: None,
                        kind,
                        cycle: Vec::new(),
                    },
                });
            }
        };
        if w.active_mask == 0 || w.active_mask & !w.valid_mask != 0 {
            let kind = FaultKind::Deadlock {
                valid: w.valid_mask,
                active: w.active_mask,
            };
            return Err(self.fault_at(self.last_pc.unwrap_or(pc), kind));
        }
        // What the observer is told about the state before the instruction; the
        // "written" sets are emptied so that they collect this step's writes.
        let (before, earlier) = if OBSERVE {
            let guard = guard_lanes(w, insn);
            let masks = [
                w.valid_mask,
                w.active_mask,
                w.yield_mask,
                w.sleep_mask,
                guard,
            ];
            (masks, w.take_written())
        } else {
            ([0; 5], Written::default())
        };
        let cycle = w.cycle;
        match crate::exec::execute(w, insn) {
            Ok(ev) => {
                if let Some((kind, lanes)) = ev {
                    self.events.push(Event {
                        pc,
                        cycle: w.cycle,
                        lanes,
                        kind,
                    });
                }
                w.cycle = w.cycle.wrapping_add(1);
                self.steps = self.steps.wrapping_add(1);
                self.last_pc = Some(pc);
                if OBSERVE {
                    let written = w.merge_written(earlier);
                    let [valid_mask, active_mask, yield_mask, sleep_mask, guard] = before;
                    let step = Step {
                        number: self.steps,
                        pc,
                        instruction: insn,
                        cycle,
                        valid_mask,
                        active_mask,
                        yield_mask,
                        sleep_mask,
                        guard,
                        event: if ev.is_some() {
                            self.events.last()
                        } else {
                            None
                        },
                        written,
                    };
                    observer.step(&step, &self.warp);
                }
                // Kept the shape of the plain step: the result is what the caller
                // tests, computed last.
                Ok(self.warp.valid_mask == 0)
            }
            Err(kind) => {
                if OBSERVE {
                    w.merge_written(earlier);
                }
                Err(self.fault_at(pc, kind))
            }
        }
    }

    pub(crate) fn fault_at(&self, pc: u64, kind: FaultKind) -> Fault {
        Fault {
            pc,
            instruction: self.program.text_at(pc),
            kind,
            cycle: Vec::new(),
        }
    }

    /// Runs until every valid lane has exited, a fault, or `max_steps` instructions in
    /// all (counting earlier steps). A run that comes back to a state it was in stops
    /// with a [`FaultKind::Livelock`] (see the crate docs).
    pub fn run(&mut self, max_steps: u64) -> Stop {
        self.run_inner::<false, _>(max_steps, &mut Unobserved)
    }

    /// [`Machine::run`], telling `observer` of every instruction executed.
    pub fn run_observed<O: Observer + ?Sized>(&mut self, max_steps: u64, observer: &mut O) -> Stop {
        self.run_inner::<true, O>(max_steps, observer)
    }

    fn run_inner<const OBSERVE: bool, O: Observer + ?Sized>(
        &mut self,
        max_steps: u64,
        observer: &mut O,
    ) -> Stop {
        if self.warp.valid_mask == 0 {
            return Stop::Exited;
        }
        let mut detector = Detector::new(self.steps);
        loop {
            // Steps between the detector's checks cost what they cost without it.
            let until = max_steps.min(detector.next_check());
            while self.steps < until {
                match self.step_inner::<OBSERVE, O>(observer) {
                    Ok(true) => return Stop::Exited,
                    Ok(false) => {}
                    Err(f) => return Stop::Fault(f),
                }
                if OBSERVE && observer.stop() {
                    return self.step_limit(self.steps);
                }
            }
            if self.steps >= max_steps {
                return self.step_limit(max_steps);
            }
            if detector.check(&self.warp, self.steps) {
                if let Some(stop) =
                    self.confirm_livelock::<OBSERVE, O>(&mut detector, max_steps, observer)
                {
                    return stop;
                }
            }
        }
    }

    pub(crate) fn step_limit(&self, max_steps: u64) -> Stop {
        let pc = self.warp.active_pc;
        Stop::Fault(self.fault_at(pc, FaultKind::StepLimit(max_steps)))
    }
}
