//! The simulator's cost per instruction for the collective and uniform opcodes: each
//! a loop of 15 copies and a branch back, stepped 100 000 times, best of 30 (a quick
//! table; `benches/sim.rs` has the criterion figures).
//!
//! `cargo bench -p isa-runtime --bench opcost`

use isa::Instruction;
use isa_runtime::{Machine, Program, Warp};
use std::time::Instant;
fn main() {
    let ops = [
        "SHFL.BFLY PT, R1, R0, 0x1, 0x1f",
        "SHFL.UP P1, R2, R0, 0x2, 0x0",
        "SHFL.IDX P3, R4, R0, R5, R6",
        "VOTE.ANY R7, P4, P1",
        "VOTEU.ALL UR1, UP1, P2",
        "REDUX.SUM R8, R0",
        "REDUXU.S32.MAX UR2, R0",
        "MATCH.ALL R9, P5, R10",
        "MATCH.ANY R11, P6, R12",
        "ELECT P0, R13, PT",
        "UIADD UR1, UR1, 0x1",
        "NOP",
    ];
    for op in ops {
        let insns: Vec<Instruction> = (0..15)
            .map(|_| op.parse().unwrap())
            .chain(["BRA 0x0".parse().unwrap()])
            .collect();
        let insns: Vec<Instruction> = insns
            .iter()
            .enumerate()
            .map(|(k, i)| {
                if k == 15 {
                    Instruction::parse_at("BRA 0x0", 0xf0, &|_| None).unwrap()
                } else {
                    *i
                }
            })
            .collect();
        let mut w = Warp::new(u32::MAX);
        for l in 0..32 {
            w.set_reg(isa::Reg::new(12).unwrap(), l, l as u32 % 4);
            w.set_reg(isa::Reg::new(0).unwrap(), l, l as u32 * 7);
        }
        let mut m = Machine::new(w, Program::from_instructions(0, &insns));
        let n = 100_000;
        let mut best = f64::MAX;
        for _ in 0..30 {
            let t = Instant::now();
            for _ in 0..n {
                m.step().unwrap();
            }
            best = best.min(t.elapsed().as_secs_f64());
        }
        println!("{op:40} {:6.1} ns/insn (best of 30)", best * 1e9 / n as f64);
    }
}
