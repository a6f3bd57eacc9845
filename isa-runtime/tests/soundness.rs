//! The register facts of the `isa` crate held to the simulator: for every opcode, random
//! field values and random warp states, what an instruction actually reads and writes
//! is covered by what `Instruction::reg_operands()` declares, and every write it
//! declares unconditional happens in every lane that executes it.
//!
//! - **Writes** are what the simulator itself records ([`Changes`]: every register a
//!   step wrote, also with an unchanged value). Each must be declared written.
//! - **Reads** are measured by non-interference: the instruction runs from two states
//!   that agree on every register it declares read and differ in every other register
//!   (fresh random values). If it used an undeclared register, its effects differ: a
//!   written value, a mask, the next PC, a fault. Registers it declares written must
//!   then hold the same values in both runs in every lane that executed it
//!   (unconditional writes) or, for a conditional write, either the same values or
//!   each run's own old value.
//!
//! This is what a liveness analysis relies on: the value an instruction leaves depends
//! only on declared reads, it changes only declared writes, and an unconditional write
//! ends the old value's life in every lane.

mod common;

use std::collections::{BTreeMap, BTreeSet};

use common::simt::Rng;
use isa::backend::RegOperand;
use isa::{Instruction, Opcode, Pred, Reg, RegRef, UPred, UReg};
use isa_runtime::{Change, Changes, Machine, Observer, Program, Step, Warp};

const LANES: usize = 32;
/// Instances tried per opcode (each with its own random state pair).
const SAMPLES: usize = 96;

/// One register of the warp state (per-lane files are compared lane by lane).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Loc {
    R(u8),
    P(u8),
    Ur(u8),
    Up(u8),
    B(u8),
}

impl Loc {
    fn of(r: RegRef) -> Option<Loc> {
        if r.is_constant() {
            return None; // RZ, PT, …: no state
        }
        Some(match r {
            RegRef::Reg(x) => Loc::R(x.bits()),
            RegRef::UReg(x) => Loc::Ur(x.bits()),
            RegRef::Pred(x) => Loc::P(x.bits()),
            RegRef::UPred(x) => Loc::Up(x.bits()),
            RegRef::BReg(x) => Loc::B(x as u8),
        })
    }

    /// Every register of the state: the numbered registers of each file, as the
    /// generated API defines them.
    fn all() -> impl Iterator<Item = Loc> {
        (0..=u8::MAX)
            .filter_map(|n| Reg::new(n).map(|r| Loc::R(r.bits())))
            .chain((0..=u8::MAX).filter_map(|n| Pred::new(n).map(|r| Loc::P(r.bits()))))
            .chain((0..=u8::MAX).filter_map(|n| UReg::new(n).map(|r| Loc::Ur(r.bits()))))
            .chain((0..=u8::MAX).filter_map(|n| UPred::new(n).map(|r| Loc::Up(r.bits()))))
            .chain(isa::BReg::ALL.iter().map(|&b| Loc::B(b as u8)))
    }

    fn per_lane(self) -> bool {
        matches!(self, Loc::R(_) | Loc::P(_))
    }

    /// The value in `lane` (lane 0 for the warp-wide files).
    fn get(self, w: &Warp, lane: usize) -> u32 {
        match self {
            Loc::R(n) => w.reg(Reg::new(n).unwrap(), lane),
            Loc::P(n) => u32::from(w.pred(Pred::new(n).unwrap(), lane)),
            Loc::Ur(n) => w.ureg(UReg::new(n).unwrap()),
            Loc::Up(n) => u32::from(w.upred(UPred::new(n).unwrap())),
            Loc::B(n) => w.breg[n as usize],
        }
    }

    /// Sets every lane to fresh random values.
    fn randomize(self, w: &mut Warp, rng: &mut Rng) {
        match self {
            Loc::R(n) => {
                for lane in 0..LANES {
                    w.set_reg(Reg::new(n).unwrap(), lane, value(rng));
                }
            }
            Loc::P(n) => w.set_pred_lanes(Pred::new(n).unwrap(), u32::MAX, rng.u32()),
            Loc::Ur(n) => w.set_ureg(UReg::new(n).unwrap(), value(rng)),
            Loc::Up(n) => w.set_upred(UPred::new(n).unwrap(), rng.one_in(2)),
            Loc::B(n) => w.breg[n as usize] = rng.u32(),
        }
    }
}

/// A register value: full-width random, or small (shift counts, indices, constant-memory
/// offsets that stay inside a bank), or an edge value.
fn value(rng: &mut Rng) -> u32 {
    match rng.below(4) {
        0 | 1 => rng.u32(),
        2 => rng.u32() & 0xfc,
        _ => [0, 1, 31, 32, 0x7fff_ffff, 0x8000_0000, u32::MAX][rng.below(7) as usize],
    }
}

/// What an instance declares, by register.
#[derive(Default)]
struct Declared {
    reads: BTreeSet<Loc>,
    /// Written registers, with whether the write is unconditional.
    writes: BTreeMap<Loc, bool>,
}

fn declared(insn: &Instruction) -> Declared {
    let mut d = Declared::default();
    for op in insn.reg_operands() {
        let op: RegOperand = op;
        for r in op.regs().filter_map(Loc::of) {
            if op.access.reads() {
                d.reads.insert(r);
            }
            if op.access.writes() {
                let unconditional = !op.access.is_conditional();
                let e = d.writes.entry(r).or_insert(unconditional);
                *e |= unconditional;
            }
        }
    }
    d
}

/// A random instance of `op` that decodes and meets the spec's exceptions: random
/// field codes, each at its default one time in four.
fn instance(op: Opcode, rng: &mut Rng) -> Option<Instruction> {
    instance_biased(op, rng, 4)
}

/// [`instance`] with each field at its default one time in `default_one_in`, or else all
/// ones one time in two (an edge code: here the always-true predicate and the registers
/// that read 0).
fn instance_biased(op: Opcode, rng: &mut Rng, default_one_in: u64) -> Option<Instruction> {
    let info = op.info();
    for _ in 0..10_000 {
        let mut word = info.fixed_bits;
        for f in info.fields {
            let mask = u128::MAX >> (128 - f.width);
            if info.fixed_mask >> f.start & mask != 0 {
                continue;
            }
            let code = match f.default {
                Some(d) if rng.one_in(default_one_in) => d,
                _ if default_one_in < 4 && rng.one_in(2) => mask,
                _ => (u128::from(rng.next()) << 64 | u128::from(rng.next())) & mask,
            };
            word |= code << f.start;
        }
        if let Ok(i) = Instruction::decode(word) {
            if i.validate().is_ok() {
                return Some(i);
            }
        }
    }
    None
}

/// A random warp state: every register random; constant memory bank 0 and 1 random in
/// their first 4 KiB (other addresses read 0).
fn state(rng: &mut Rng, template: &Warp) -> Warp {
    let mut w = template.clone();
    w.valid_mask = if rng.one_in(2) {
        u32::MAX
    } else {
        rng.u32() | 1 << rng.below(32)
    };
    w.active_mask = if rng.one_in(2) {
        w.valid_mask
    } else {
        (w.valid_mask & rng.u32()) | 1 << w.valid_mask.trailing_zeros()
    };
    for l in Loc::all() {
        l.randomize(&mut w, rng);
    }
    w
}

/// The registers one step wrote, as the simulator records them.
struct Written(Changes, BTreeSet<Loc>, u32);

impl Observer for Written {
    fn step(&mut self, step: &Step<'_>, warp: &Warp) {
        self.2 = step.active_mask;
        for c in self.0.update(step, warp) {
            let loc = match *c {
                Change::Gpr(r) => Loc::R(r.bits()),
                Change::Pred(p) => Loc::P(p.bits()),
                Change::UReg(r) => Loc::Ur(r.bits()),
                Change::UPred(p) => Loc::Up(p.bits()),
                Change::BReg(b) => Loc::B(b as u8),
                _ => continue,
            };
            self.1.insert(loc);
        }
    }
}

/// One step of `insn` at 0x100 (a branch may leave the one-instruction program: the
/// step still completes) from `warp`: the state after it and what it wrote, or the fault.
fn run(insn: &Instruction, warp: &Warp) -> Result<(Warp, BTreeSet<Loc>, u32), String> {
    let mut m = Machine::new(warp.clone(), Program::from_instructions(0x100, &[*insn]));
    let mut seen = Written(Changes::new(&m.warp), BTreeSet::new(), 0);
    match m.step_observed(&mut seen) {
        Ok(_) => Ok((m.warp, seen.1, seen.2)),
        Err(f) => Err(f.kind.to_string()),
    }
}

/// The state that is not a register: it may depend only on declared reads.
fn rest(w: &Warp) -> impl PartialEq + std::fmt::Debug {
    (
        (w.valid_mask, w.active_mask, w.yield_mask, w.sleep_mask),
        (w.switch_mask, w.active_pc, w.rpc, w.cycle, w.timer),
        w.regspace.clone(),
        w.sreg_touched()
            .map(|s| (s, w.sreg(s, 0)))
            .collect::<Vec<_>>(),
    )
}

/// Checks one instance from one random state; `Ok(false)` when both runs faulted alike
/// (nothing to compare).
fn check(insn: &Instruction, rng: &mut Rng, template: &Warp) -> Result<bool, String> {
    let d = declared(insn);
    let a0 = state(rng, template);
    let mut b0 = a0.clone();
    for l in Loc::all().filter(|l| !d.reads.contains(l)) {
        l.randomize(&mut b0, rng);
    }
    let ((a1, wa, active), (b1, wb, _)) = match (run(insn, &a0), run(insn, &b0)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(fa), Err(fb)) if fa == fb => return Ok(false),
        (ra, rb) => {
            return Err(format!(
                "faults in one state only (an undeclared register decides): {:?} / {:?}",
                ra.err(),
                rb.err()
            ))
        }
    };
    for (which, written) in [("", &wa), (" (second state)", &wb)] {
        if let Some(l) = written.iter().find(|l| !d.writes.contains_key(l)) {
            return Err(format!("writes {l:?}{which}, which it does not declare"));
        }
    }
    if rest(&a1) != rest(&b1) {
        return Err(format!(
            "masks, PC or special registers depend on an undeclared register:\n  {:?}\n  {:?}",
            rest(&a1),
            rest(&b1)
        ));
    }
    compare_writes(&d, &a0, &b0, &a1, &b1, active)?;
    // Every declared unconditional write of a register it does not read happens: the
    // simulator records it (a read-write register may keep its value, which the
    // comparison above allows only as a function of declared reads; B registers are
    // recorded only when their value changes, and the comparison covers them too).
    if active != 0 {
        for (l, _) in d.writes.iter().filter(|(l, u)| **u && !d.reads.contains(l)) {
            if !wa.contains(l) && !matches!(l, Loc::B(_)) {
                return Err(format!(
                    "declares an unconditional write of {l:?} it does not do"
                ));
            }
        }
    }
    Ok(true)
}

/// Declared writes after the two runs: an unconditional one holds the same value in
/// both runs in every lane that ran; a conditional one holds the same value or each
/// run's old value.
fn compare_writes(
    d: &Declared,
    a0: &Warp,
    b0: &Warp,
    a1: &Warp,
    b1: &Warp,
    active: u32,
) -> Result<(), String> {
    for (&l, &unconditional) in &d.writes {
        let lanes: Vec<usize> = if l.per_lane() {
            (0..LANES).collect()
        } else {
            vec![0]
        };
        for lane in lanes {
            let ran = !l.per_lane() || active >> lane & 1 == 1;
            let (x0, y0, x1, y1) = (
                l.get(a0, lane),
                l.get(b0, lane),
                l.get(a1, lane),
                l.get(b1, lane),
            );
            let same = x1 == y1;
            let kept = x1 == x0 && y1 == y0;
            let ok = if !ran {
                kept
            } else if unconditional {
                same
            } else {
                same || kept
            };
            if !ok {
                return Err(format!(
                    "{l:?} lane {lane}: {x0:#x} -> {x1:#x} in one state, {y0:#x} -> {y1:#x} in the other \
                     ({} write; the value depends on an undeclared register{})",
                    if unconditional { "unconditional" } else { "conditional" },
                    if unconditional { ", or the write does not happen in this lane" } else { "" }
                ));
            }
        }
    }
    Ok(())
}

#[test]
fn what_each_instruction_reads_and_writes_is_declared() {
    let mut template = Warp::new(u32::MAX);
    let mut rng = Rng::new(0x5eed_50ed);
    for bank in 0..2 {
        for addr in (0..4096).step_by(4) {
            template.cmem.write_u32(bank, addr, value(&mut rng));
        }
    }
    let mut failures = Vec::new();
    let (mut checked, mut faulted) = (0usize, 0usize);
    for &op in Opcode::ALL {
        let mut rng = Rng::new(0x50ed ^ op as u64);
        let mut ran = 0;
        for _ in 0..SAMPLES {
            let insn = instance(op, &mut rng)
                .unwrap_or_else(|| panic!("no valid instance of {} found", op.name()));
            match check(&insn, &mut rng, &template) {
                Ok(true) => ran += 1,
                Ok(false) => faulted += 1,
                Err(e) => {
                    failures.push(format!("{}: `{insn}`: {e}", op.name()));
                    break;
                }
            }
        }
        checked += ran;
        // A fault in every sample would check nothing.
        if ran == 0 && !failures.iter().any(|f| f.starts_with(op.name())) {
            failures.push(format!("{}: no sample ran without a fault", op.name()));
        }
    }
    eprintln!(
        "{} opcodes, {checked} instances checked from random states, {faulted} faulted alike in both",
        Opcode::ALL.len()
    );
    assert!(
        failures.is_empty(),
        "{} unsound:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Where the flow facts name a target (a branch or call, also one through a register
/// that reads 0), an unconditional instance sends every lane there.
#[test]
fn a_branch_or_call_goes_to_its_branch_target() {
    use isa::backend::Flow;
    let template = Warp::new(u32::MAX);
    let mut checked = 0;
    let mut unchecked = Vec::new();
    for &op in Opcode::ALL {
        let mut rng = Rng::new(0xf10e ^ op as u64);
        let before = checked;
        let mut unconditional = false;
        for _ in 0..SAMPLES * 8 {
            let Some(insn) = instance_biased(op, &mut rng, 2) else {
                continue;
            };
            unconditional |= !insn.is_conditional();
            let pc = 0x100;
            let Some(target) = insn.branch_target(pc) else {
                continue;
            };
            if !matches!(insn.flow(), Flow::Branch | Flow::Call) || insn.is_conditional() {
                continue;
            }
            let mut w = state(&mut rng, &template);
            w.valid_mask = u32::MAX;
            w.active_mask = u32::MAX;
            let (after, _, _) =
                run(&insn, &w).unwrap_or_else(|e| panic!("{}: `{insn}`: {e}", op.name()));
            assert_eq!(
                after.active_pc,
                target,
                "{}: `{insn}` at {pc:#x} went to {:#x}, its branch_target is {target:#x}",
                op.name(),
                after.active_pc
            );
            checked += 1;
        }
        // Every opcode that can go to a known address did so at least once (BRA_U's
        // exceptions make every instance conditional).
        let info = op.info();
        let may_target =
            info.flow != Flow::Converge && (info.target.is_some() || info.direct.is_some());
        if may_target && unconditional && checked == before {
            unchecked.push(op.name());
        }
    }
    eprintln!("{checked} unconditional branches and calls went to their branch_target");
    assert!(
        unchecked.is_empty(),
        "no unconditional instance with a target: {unchecked:?}"
    );
}
