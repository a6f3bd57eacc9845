//! Livelock detection: a run that comes back to a state it was in repeats the same
//! steps forever, so [`Machine::run`] stops it with [`FaultKind::Livelock`] instead of
//! running to the step limit.
//!
//! The check must cost nothing per step and must never be wrong:
//!
//! * **When.** The state is compared only every so many steps ([`Detector`]): the run
//!   loop runs up to the next check exactly as it runs up to the step limit. The
//!   sampled states follow Brent's cycle detection: a checkpoint is kept and compared
//!   at each check; after 1, 2, 4, … checks it moves to the current state, and the
//!   distance between checks doubles with it (16 steps at first, 4,096 at most), so a
//!   short run hardly checks and a long one checks rarely. A cycle of `λ` steps
//!   entered after `μ` is found once the checkpoint lies in it and a check falls a
//!   multiple of `λ` steps later: within a few thousand steps for the short cycles of
//!   a livelock.
//! * **Exactly.** A check compares the whole state ([`Snapshot::same_as`]), the
//!   cheap parts first. Equal states prove a cycle only if the cycle counter, which is
//!   not part of the state, did not matter: a program that reads the clock (`S2R`,
//!   `CS2R`, `S2UR`, `GETREG` of `SR_CLOCK*`/`SR_GLOBALTIME*`) can pass through the same
//!   state and still leave a loop when enough time has passed. So a match is only a
//!   candidate: the run goes on one step at a time until it reaches the checkpoint's
//!   state again, recording what it runs; if it gets there without an instruction that
//!   reads the clock, the steps in between repeat forever (each one did exactly what it
//!   did the turn before), and that is the livelock reported, with its exact period.
//!   If an instruction reads the clock, or the state does not come back within the
//!   distance of the match, detection starts over from the current state.

use isa::{Instruction, SReg};

use crate::machine::{CycleStep, Fault, FaultKind, Machine, Slot, Stop, LIVELOCK_SHOWN};
use crate::observe::Observer;
use crate::snapshot::Snapshot;
use crate::warp::{lanes_of, Warp};

/// Steps before the first check.
const FIRST_INTERVAL: u64 = 16;
/// Most steps between two checks.
const MAX_INTERVAL: u64 = 4096;
/// Most (pc, lanes) pairs recorded while confirming a cycle.
const TRAIL: usize = 4096;

/// Brent's cycle detection on states sampled every `interval` steps.
pub(crate) struct Detector {
    checkpoint: Option<Box<Snapshot>>,
    checkpoint_step: u64,
    next_check: u64,
    interval: u64,
    /// Checks since the checkpoint moved, and how many it stays for.
    checks: u64,
    power: u64,
}

impl Detector {
    /// A detector for a run at step `now`. Nothing is copied until the first check.
    pub(crate) fn new(now: u64) -> Detector {
        Detector {
            checkpoint: None,
            checkpoint_step: now,
            next_check: now.saturating_add(FIRST_INTERVAL),
            interval: FIRST_INTERVAL,
            checks: 0,
            power: 1,
        }
    }

    /// The step at which [`Detector::check`] wants to be called.
    #[inline]
    pub(crate) fn next_check(&self) -> u64 {
        self.next_check
    }

    /// At step `now`: whether the warp is in the checkpoint's state (a candidate).
    pub(crate) fn check(&mut self, w: &Warp, now: u64) -> bool {
        let Some(cp) = &mut self.checkpoint else {
            self.checkpoint = Some(Box::new(Snapshot::of(w)));
            self.checkpoint_step = now;
            self.next_check = now.saturating_add(self.interval);
            return false;
        };
        if cp.same_as(w) {
            return true;
        }
        self.checks += 1;
        if self.checks == self.power {
            cp.capture(w);
            self.checkpoint_step = now;
            self.checks = 0;
            self.power = self.power.saturating_mul(2);
            self.interval = (self.interval * 2).min(MAX_INTERVAL);
        }
        self.next_check = now.saturating_add(self.interval);
        false
    }

    /// Starts over from the warp's state at step `now`, checking half as often (a
    /// loop that reads the clock would otherwise be a candidate at every check).
    fn restart(&mut self, w: &Warp, now: u64) {
        self.interval = (self.interval * 2).min(MAX_INTERVAL);
        if let Some(cp) = &mut self.checkpoint {
            cp.capture(w);
        }
        self.checkpoint_step = now;
        self.checks = 0;
        self.power = 1;
        self.next_check = now.saturating_add(self.interval);
    }
}

/// A special register whose value is the cycle counter.
fn is_clock(s: SReg) -> bool {
    matches!(
        s,
        SReg::SrClocklo | SReg::SrClockhi | SReg::SrGlobaltimelo | SReg::SrGlobaltimehi
    )
}

/// A GETREG address that reads the cycle counter.
fn reads_clock_at(addr: u32) -> bool {
    u8::try_from(addr)
        .ok()
        .and_then(SReg::from_bits)
        .is_some_and(is_clock)
}

/// Whether `insn`, about to run on `w`, may read the cycle counter (for a register
/// address, any active lane's).
pub(crate) fn reads_clock(w: &Warp, insn: &Instruction) -> bool {
    use Instruction as I;
    match insn {
        I::S2rI(i) => is_clock(i.sreg),
        I::Cs2rI(i) => is_clock(i.sreg),
        I::S2urI(i) => is_clock(i.sreg),
        I::GetregI(i) => reads_clock_at(i.regaddr.get()),
        I::GetregR(i) => lanes_of(w.active_mask).any(|l| reads_clock_at(w.reg(i.rb, l))),
        I::GetregU(i) => reads_clock_at(w.ureg(i.urb)),
        _ => false,
    }
}

impl Machine {
    /// After a candidate: steps on until the warp is back in the checkpoint's state
    /// (a livelock: `Some` fault) or the candidate fails (`None`, detection starts
    /// over). The run's own ends (exit, fault, step limit) end this too.
    pub(crate) fn confirm_livelock<const OBSERVE: bool, O: Observer + ?Sized>(
        &mut self,
        detector: &mut Detector,
        max_steps: u64,
        observer: &mut O,
    ) -> Option<Stop> {
        let start = self.steps;
        // If the match is real, the period divides this distance.
        let bound = start - detector.checkpoint_step;
        let mut trail: Vec<(u64, u32)> = Vec::new();
        let mut ran = 0u32;
        loop {
            if self.steps >= max_steps {
                return Some(self.step_limit(max_steps));
            }
            let w = &self.warp;
            let clock = match self.program.get(w.active_pc) {
                Some(Slot::Ok(i)) => reads_clock(w, i),
                _ => false,
            };
            if clock || self.steps - start >= bound {
                detector.restart(&self.warp, self.steps);
                return None;
            }
            if trail.len() < TRAIL {
                trail.push((w.active_pc, w.active_mask));
            }
            ran |= w.active_mask;
            match self.step_inner::<OBSERVE, O>(observer) {
                Ok(true) => return Some(Stop::Exited),
                Ok(false) => {}
                Err(f) => return Some(Stop::Fault(f)),
            }
            if OBSERVE && observer.stop() {
                return Some(self.step_limit(self.steps));
            }
            let back = detector
                .checkpoint
                .as_ref()
                .is_some_and(|cp| cp.same_as(&self.warp));
            if back {
                return Some(Stop::Fault(self.livelock(self.steps - start, &trail, ran)));
            }
        }
    }

    fn livelock(&self, period: u64, trail: &[(u64, u32)], ran: u32) -> Fault {
        let mut pairs: Vec<(u64, u32)> = Vec::new();
        let mut more = trail.len() as u64 != period;
        for &p in trail {
            if !pairs.contains(&p) {
                if pairs.len() == LIVELOCK_SHOWN {
                    more = true;
                    break;
                }
                pairs.push(p);
            }
        }
        let cycle = pairs
            .into_iter()
            .map(|(pc, lanes)| CycleStep {
                pc,
                text: self.program.text_at(pc).unwrap_or_default(),
                lanes,
            })
            .collect();
        let w = &self.warp;
        let starved = w.valid_mask & !ran;
        let kind = FaultKind::Livelock {
            period,
            more,
            starved,
            yielded: starved & w.yield_mask,
        };
        Fault {
            cycle,
            ..self.fault_at(w.active_pc, kind)
        }
    }
}
