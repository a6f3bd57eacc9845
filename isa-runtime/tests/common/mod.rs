//! Test helpers: a two-pass assembler with labels and runners.
#![allow(dead_code)]

pub mod simt;

use std::collections::HashMap;

use isa::{Instruction, Pred, Reg, UPred, UReg};
use isa_runtime::{Machine, Program, Stop, Warp};

/// Assembles `src` (one instruction per line, `//` comments, `.L_x:` labels) at 0.
pub fn asm(src: &str) -> Vec<Instruction> {
    let mut labels = HashMap::new();
    let mut lines = Vec::new();
    let mut addr = 0u64;
    for raw in src.lines() {
        let mut t = raw.split("//").next().unwrap().trim();
        loop {
            match t.split_once(':') {
                Some((l, rest))
                    if l.starts_with('.')
                        && !l.contains(|c: char| c.is_whitespace() || c == '[') =>
                {
                    labels.insert(l.to_string(), addr);
                    t = rest.trim();
                }
                _ => break,
            }
        }
        let t = t.trim_end_matches(';').trim();
        if !t.is_empty() {
            lines.push((t.to_string(), addr));
            addr += 16;
        }
    }
    lines
        .iter()
        .map(|(t, a)| {
            Instruction::parse_at(t, *a, &|n| labels.get(n).copied())
                .unwrap_or_else(|e| panic!("`{t}`: {}", e.display(t)))
        })
        .collect()
}

/// Runs `src` on a warp prepared by `setup`; panics unless it exits.
pub fn run(src: &str, setup: impl FnOnce(&mut Warp)) -> Machine {
    let mut m = start(src, setup);
    match m.run(100_000) {
        Stop::Exited => m,
        Stop::Fault(f) => panic!("fault: {f}\n{:#?}", masks(&m.warp)),
    }
}

/// A machine ready to run `src`.
pub fn start(src: &str, setup: impl FnOnce(&mut Warp)) -> Machine {
    let mut w = Warp::new(u32::MAX);
    setup(&mut w);
    Machine::new(w, Program::from_instructions(0, &asm(src)))
}

pub fn masks(w: &Warp) -> (u32, u32, u32, u32, u32, u64) {
    (
        w.valid_mask,
        w.active_mask,
        w.yield_mask,
        w.sleep_mask,
        w.switch_mask,
        w.active_pc,
    )
}

pub fn r(n: u8) -> Reg {
    Reg::new(n).unwrap()
}
pub fn ur(n: u8) -> UReg {
    UReg::new(n).unwrap()
}
pub fn p(n: u8) -> Pred {
    Pred::new(n).unwrap()
}
pub fn up(n: u8) -> UPred {
    UPred::new(n).unwrap()
}

/// Sets uniform registers: `[(n, value)]`.
pub fn urs(w: &mut Warp, vals: &[(u8, u32)]) {
    for &(n, v) in vals {
        w.set_ureg(ur(n), v);
    }
}

/// R`n` in every lane.
pub fn lanes(w: &Warp, n: u8) -> Vec<u32> {
    (0..32).map(|l| w.reg(r(n), l)).collect()
}

/// Runs uniform code (then EXIT) with the given URs and returns the warp.
pub fn uniform(src: &str, vals: &[(u8, u32)]) -> Warp {
    let prog = format!("{src}\nEXIT\n");
    run(&prog, |w| urs(w, vals)).warp
}
