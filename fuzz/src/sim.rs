//! Oracle of the `sim` target: the warp simulator on random programs of valid
//! instructions (with some arbitrary words mixed in) from random state, bounded by a
//! step limit.
//!
//! The input is a byte stream read by [`Bytes`] (reads past the end give zeros): the
//! initial state (valid mask, registers, predicates, uniform registers, B registers,
//! constant memory, special registers), the program's base address, then the
//! instructions. Each instruction is an opcode chosen from the input with its fields
//! filled from the input (immediates often small, so branches stay in the program);
//! a field holding an undefined code is repaired (its default, else other bits from
//! the input) until the word decodes. One in eight slots is an arbitrary word instead.
//!
//! Running must not panic or hang; it stops within the step limit; a finished run
//! has no valid lane left; printing every slot of the program does not panic. Run
//! again with an observer ([`Replay`]), it stops the same way, and what the observer
//! is told of each step, replayed over a copy of the initial state, gives the state
//! after that step.

use isa::{DecodeError, FieldRole, Instruction, Opcode, Pred, Reg, SReg, UPred, UReg};
use isa_runtime::{lanes_of, Change, Changes, Machine, Observer, Program, Step, Stop, Warp};

/// Steps per run.
pub const MAX_STEPS: u64 = 512;

/// Instructions per program at most.
const MAX_PROGRAM: usize = 24;

/// Reads the input as a stream of numbers; past its end every read gives 0.
pub struct Bytes<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Bytes<'a> {
    pub fn new(data: &'a [u8]) -> Bytes<'a> {
        Bytes { data, pos: 0 }
    }

    pub fn u8(&mut self) -> u8 {
        let b = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        b
    }

    pub fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.u8(), self.u8()])
    }

    pub fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.u8(), self.u8(), self.u8(), self.u8()])
    }

    pub fn u128(&mut self) -> u128 {
        let mut b = [0u8; 16];
        for x in &mut b {
            *x = self.u8();
        }
        u128::from_le_bytes(b)
    }
}

fn field_mask(start: u32, width: u32) -> u128 {
    if width >= 128 {
        u128::MAX
    } else {
        ((1u128 << width) - 1) << start
    }
}

/// The initial warp state.
fn warp(r: &mut Bytes) -> Warp {
    let valid = match r.u32() {
        0 => u32::MAX,
        v => v,
    };
    let mut w = Warp::new(valid);
    for _ in 0..r.u8() % 24 {
        match r.u8() % 7 {
            0 => {
                let reg = Reg::from_bits(r.u8()).unwrap_or(Reg::RZ);
                let lane = usize::from(r.u8() % 32);
                w.set_reg(reg, lane, r.u32());
            }
            1 => {
                let p = Pred::from_bits(r.u8() & 7).unwrap_or(Pred::PT);
                let (lane, v) = (usize::from(r.u8() % 32), r.u8() & 1 == 1);
                w.set_pred(p, lane, v);
            }
            2 => {
                let u = UReg::from_bits(r.u8() & 63).unwrap_or(UReg::URZ);
                w.set_ureg(u, r.u32());
            }
            3 => {
                let p = UPred::from_bits(r.u8() & 7).unwrap_or(UPred::UPT);
                w.set_upred(p, r.u8() & 1 == 1);
            }
            4 => {
                let (bank, addr) = (r.u8() % 34, r.u32() % 0x1_0004);
                w.cmem.write_u32(bank, addr, r.u32());
            }
            5 => {
                let s = SReg::ALL[usize::from(r.u8()) % SReg::ALL.len()];
                w.set_sreg(s, r.u32());
            }
            _ => {
                let b = usize::from(r.u8() % 16);
                w.breg[b] = r.u32();
            }
        }
    }
    w
}

/// One instruction word: usually a valid instruction, sometimes any word.
fn instruction(r: &mut Bytes) -> u128 {
    let mode = r.u8();
    if mode % 8 == 7 {
        return r.u128();
    }
    let op = Opcode::ALL[usize::from(r.u16()) % Opcode::ALL.len()];
    let info = op.info();
    let mut word = info.fixed_bits | (r.u128() & info.field_mask & !info.fixed_mask);
    let small = mode & 1 == 0;
    let set = |word: u128, start: u32, width: u32, v: u128| {
        let m = field_mask(start, width);
        (word & !m) | ((v << start) & m)
    };
    for f in info.fields {
        if matches!(f.role, FieldRole::Fixed(_)) {
            continue;
        }
        let imm = f.type_name.starts_with("SImm") || f.type_name.starts_with("UImm");
        if small && imm {
            // -8..=7: short branches, small shifts and indices.
            let v = i128::from(r.u8() as i8 >> 4) as u128;
            word = set(word, f.start, f.width, v);
        }
    }
    for attempt in 0..16 {
        match Instruction::decode(word) {
            Err(DecodeError::InvalidField { field, .. }) => {
                let Some(f) = info.fields.iter().find(|f| f.name == field) else {
                    break;
                };
                let v = match (attempt, f.default) {
                    (0, Some(d)) => d,
                    _ => r.u128(),
                };
                word = set(word, f.start, f.width, v);
            }
            _ => break,
        }
    }
    word
}

/// The machine an input describes: its initial state and program.
pub fn machine(data: &[u8]) -> Machine {
    let mut r = Bytes::new(data);
    let warp = warp(&mut r);
    let base = u64::from(r.u16()) * 16;
    let n = 1 + usize::from(r.u8()) % MAX_PROGRAM;
    let words: Vec<u128> = (0..n).map(|_| instruction(&mut r)).collect();
    Machine::new(warp, Program::from_words(base, &words))
}

pub fn check(data: &[u8]) {
    let mut m = machine(data);
    let base = m.program.base();
    for k in 0..m.program.len() as u64 {
        let _ = m.program.text_at(base + 16 * k);
    }
    let start = m.clone();
    let stop = m.run(MAX_STEPS);
    match &stop {
        Stop::Exited => assert_eq!(m.warp.valid_mask, 0, "exited with valid lanes"),
        Stop::Fault(f) => {
            let _ = format!("{f:?} {}", f.kind);
        }
    }
    assert!(m.steps <= MAX_STEPS, "{} steps", m.steps);
    same_when_observed(start, &m, &stop, MAX_STEPS);
    // Stepping a stopped machine again is harmless.
    let _ = m.step();
}

/// Runs `start` observed by a [`Replay`]: it ends as the unobserved run `plain` did
/// (`stop`), and the replay checked every step.
pub fn same_when_observed(mut start: Machine, plain: &Machine, stop: &Stop, max_steps: u64) {
    let mut replay = Replay::new(&start);
    let observed = start.run_observed(max_steps, &mut replay);
    assert_eq!(&observed, stop, "an observer changed how the run ends");
    assert_eq!(start.steps, plain.steps);
    assert_eq!(start.warp, plain.warp);
    assert_eq!(start.events, plain.events);
    assert_eq!(replay.steps, start.steps, "a step was not observed");
}

/// An observer that rebuilds the state from what it is told: a copy of the initial
/// warp to which each step's [`Changes`] are applied (values read from the warp the
/// observer is given). After each step the copy must equal the warp (with `ActivePC`,
/// the cycle counter and the timer, which [`Changes`] leaves out, copied over): every
/// change was reported. A reported B register, mask or RPC must have changed, and the
/// masks [`Step`] reports must be the copy's before the step.
pub struct Replay {
    copy: Warp,
    changes: Changes,
    base: u64,
    end: u64,
    /// Steps observed.
    pub steps: u64,
}

impl Replay {
    pub fn new(m: &Machine) -> Replay {
        Replay {
            copy: m.warp.clone(),
            changes: Changes::new(&m.warp),
            base: m.program.base(),
            end: m.program.end(),
            steps: m.steps,
        }
    }
}

impl Observer for Replay {
    fn step(&mut self, s: &Step<'_>, w: &Warp) {
        let c = &mut self.copy;
        assert_eq!(s.number, self.steps + 1, "steps out of order");
        self.steps = s.number;
        assert!(
            (self.base..self.end).contains(&s.pc) && (s.pc - self.base).is_multiple_of(16),
            "pc {:#x} is not an instruction of the program",
            s.pc
        );
        // The timer fires when the step begins (Machine::step): the change is
        // reported with the step.
        let sleep_before = c.sleep_mask;
        if c.timer.is_some_and(|t| c.cycle >= t) {
            c.sleep_mask = 0;
        }
        assert_eq!(
            (
                s.valid_mask,
                s.active_mask,
                s.yield_mask,
                s.sleep_mask,
                s.cycle
            ),
            (
                c.valid_mask,
                c.active_mask,
                c.yield_mask,
                c.sleep_mask,
                c.cycle
            ),
            "step {}: the masks before it",
            s.number
        );
        assert_eq!(
            s.guard & !s.active_mask,
            0,
            "guard lanes outside ActiveMask"
        );
        for change in self.changes.update(s, w) {
            match *change {
                Change::Gpr(r) => c.set_reg_masked(r, u32::MAX, &w.reg_lanes(r)),
                Change::Pred(p) => c.set_pred_lanes(p, u32::MAX, w.pred_mask(p)),
                Change::UReg(r) => c.set_ureg(r, w.ureg(r)),
                Change::UPred(p) => c.set_upred(p, w.upred(p)),
                Change::SReg(sr) => assert!(c.set_sreg(sr, w.sreg(sr, 0)), "{sr:?} is not stored"),
                Change::RegSpace(a) => {
                    assert_ne!(c.regspace.get(&a), w.regspace.get(&a));
                    c.setreg(a, w.getreg(a, 0));
                }
                Change::BReg(b) => {
                    let b = b as usize;
                    assert_ne!(c.breg[b], w.breg[b]);
                    c.breg[b] = w.breg[b];
                }
                Change::ValidMask => {
                    assert_ne!(c.valid_mask, w.valid_mask);
                    c.valid_mask = w.valid_mask;
                }
                Change::ActiveMask => {
                    assert_ne!(c.active_mask, w.active_mask);
                    c.active_mask = w.active_mask;
                }
                Change::YieldMask => {
                    assert_ne!(c.yield_mask, w.yield_mask);
                    c.yield_mask = w.yield_mask;
                }
                Change::SleepMask => {
                    // Changed since the last step, or since the timer cleared it.
                    assert!(sleep_before != w.sleep_mask || s.sleep_mask != w.sleep_mask);
                    c.sleep_mask = w.sleep_mask;
                }
                Change::SwitchMask => {
                    assert_ne!(c.switch_mask, w.switch_mask);
                    c.switch_mask = w.switch_mask;
                }
                Change::Rpc(lanes) => {
                    for l in lanes_of(lanes) {
                        assert_ne!(c.rpc[l], w.rpc[l]);
                        c.rpc[l] = w.rpc[l];
                    }
                }
            }
        }
        c.active_pc = w.active_pc;
        c.cycle = w.cycle;
        c.timer = w.timer;
        assert!(*c == *w, "step {}: the replayed state differs", s.number);
    }
}
