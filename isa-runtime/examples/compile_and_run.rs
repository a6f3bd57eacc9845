//! What a compiler backend does with the `isa` crate, end to end:
//!
//! 1. emit code with virtual registers into a `CodeBuffer`, with labels (a loop, a
//!    forward branch) and a call to a function outside the buffer (a relocation);
//! 2. compute liveness over the control-flow graph using only the generated metadata
//!    (`flow`, `branch_target`, `reg_operands` with their access kinds);
//! 3. assign physical registers by graph colouring, keeping the registers the calling
//!    convention fixes, and rewrite the instructions with `map_regs`;
//! 4. link the call against the callee's address and check that the words are exactly
//!    what the text assembler gives for the printed program;
//! 5. run it on the simulator.
//!
//! `cargo run -p isa-runtime --example compile_and_run`

use std::collections::{BTreeMap, BTreeSet};

use isa::backend::{Access, CodeBuffer, Flow};
use isa::{Instruction, Reg, RegRef};
use isa_runtime::{Machine, Program, Stop, Warp};

/// Virtual registers are numbered from here; lower ones are physical.
const FIRST_VIRTUAL: u8 = 100;

fn main() {
    // -- 1. emit ---------------------------------------------------------------------
    // The calling convention: the callee `sum_lanes` reads its argument in R10, writes
    // its result in R11, and returns to the address in R[8:9].
    let mut buf = CodeBuffer::new(0).expect("an aligned base");
    let sum_lanes = buf.symbol("sum_lanes").expect("a name `isa asm` reads");
    let v = |n: u8| Reg::new(FIRST_VIRTUAL + n).unwrap();
    let (lane, ballot, same, leader) = (v(0), v(1), v(2), v(4));
    isa::code!(buf;
            S2R R10, SR_LANEID;                // the argument
            S2R {lane}, SR_LANEID;
            LEPC R[8:9], (after);              // the return address
            CALL.REL RZ, {sum_lanes};          // a relocation
        after:
            VOTE.ANY {ballot}, P1, PT;         // every lane votes
        next:
            MATCH.ANY {same}, P2, {lane};      // `lane` stays live in the loop
            ELECT P0, {leader};                // one lane leaves per round
            @P0 EXIT;
            BRA (next);
    )
    .expect("the program is well formed");
    let mut code = buf.finish().expect("every label is bound");

    // -- 2. liveness -----------------------------------------------------------------
    let n = code.len();
    let base = code.base();
    let addr = |i: usize| base + isa::INSTRUCTION_BYTES * i as u64;
    let index_of = |a: u64| ((a - base) / isa::INSTRUCTION_BYTES) as usize;
    let succs: Vec<Vec<usize>> = (0..n)
        .map(|i| {
            let insn = &code.insts()[i];
            let mut s = Vec::new();
            if (insn.flow().falls_through() || insn.is_conditional()) && i + 1 < n {
                s.push(i + 1);
            }
            if insn.flow() == Flow::Branch {
                s.extend(insn.branch_target(addr(i)).map(index_of));
            }
            s
        })
        .collect();
    // Uses and definitions of virtual registers (a conditional write does not kill).
    let virtual_regs = |i: usize, read: bool| -> BTreeSet<u8> {
        code.insts()[i]
            .reg_operands()
            .filter(|o| {
                if read {
                    o.access.reads()
                } else {
                    o.access == Access::Write
                }
            })
            .flat_map(|o| o.regs())
            .filter_map(|r| match r {
                RegRef::Reg(r) if r.bits() >= FIRST_VIRTUAL && !r.is_constant() => Some(r.bits()),
                _ => None,
            })
            .collect()
    };
    let mut live_out: Vec<BTreeSet<u8>> = vec![BTreeSet::new(); n];
    let mut live_in: Vec<BTreeSet<u8>> = vec![BTreeSet::new(); n];
    loop {
        let mut changed = false;
        for i in (0..n).rev() {
            let out: BTreeSet<u8> = succs[i].iter().flat_map(|&s| live_in[s].clone()).collect();
            let mut inn = out.clone();
            for d in virtual_regs(i, false) {
                inn.remove(&d);
            }
            inn.extend(virtual_regs(i, true));
            if out != live_out[i] || inn != live_in[i] {
                changed = true;
                live_out[i] = out;
                live_in[i] = inn;
            }
        }
        if !changed {
            break;
        }
    }

    // -- 3. allocation ---------------------------------------------------------------
    // Interference: a register written at i interferes with everything live after i.
    let mut interferes: BTreeMap<u8, BTreeSet<u8>> = BTreeMap::new();
    for (insn, live) in code.insts().iter().zip(&live_out) {
        for code_reg in insn
            .reg_operands()
            .filter(|o| o.access.writes())
            .flat_map(|o| o.regs())
        {
            let RegRef::Reg(d) = code_reg else { continue };
            if d.bits() < FIRST_VIRTUAL || d.is_constant() {
                continue;
            }
            interferes.entry(d.bits()).or_default();
            for &l in live {
                if l != d.bits() {
                    interferes.entry(d.bits()).or_default().insert(l);
                    interferes.entry(l).or_default().insert(d.bits());
                }
            }
        }
    }
    // Physical registers the program names itself are taken (R8..R11 here).
    let fixed: BTreeSet<u8> = code
        .insts()
        .iter()
        .flat_map(|i| i.reg_operands().flat_map(|o| o.regs()).collect::<Vec<_>>())
        .filter_map(|r| match r {
            RegRef::Reg(r) if r.bits() < FIRST_VIRTUAL => Some(r.bits()),
            _ => None,
        })
        .collect();
    let mut assigned: BTreeMap<u8, u8> = BTreeMap::new();
    for (&vreg, others) in &interferes {
        let taken: BTreeSet<u8> = others
            .iter()
            .filter_map(|o| assigned.get(o).copied())
            .collect();
        let phys = (0..FIRST_VIRTUAL)
            .find(|p| !fixed.contains(p) && !taken.contains(p))
            .expect("enough registers");
        assigned.insert(vreg, phys);
    }
    println!("liveness and allocation: {assigned:?} (virtual → physical)");
    for insn in code.insts_mut() {
        insn.map_regs(|o| match o.reg {
            RegRef::Reg(r) if r.bits() >= FIRST_VIRTUAL && !r.is_constant() => {
                RegRef::Reg(Reg::new(assigned[&r.bits()]).unwrap())
            }
            other => other,
        })
        .expect("registers of the same file");
    }

    // -- 4. link, and compare with the text assembler --------------------------------
    // The callee sits after the program.
    let callee_at = addr(n);
    code.link(|s| (s == "sum_lanes").then_some(callee_at))
        .expect("the call reaches the callee");
    let mut text: Vec<String> = Vec::new();
    for (i, insn) in code.insts().iter().enumerate() {
        let line = insn.display_at(addr(i)).to_string();
        let again = Instruction::parse_at(&line, addr(i), &|_| None).expect("prints what parses");
        assert_eq!(
            again.encode(),
            insn.encode(),
            "`{line}` assembles to the same word"
        );
        text.push(format!("/*{:04x}*/  {line}", addr(i)));
    }
    let callee = ["REDUX.SUM R11, R10", "RET.REL R[8:9], 0x0"];
    let mut words: Vec<u128> = code.words().collect();
    for (k, line) in callee.iter().enumerate() {
        let at = callee_at + isa::INSTRUCTION_BYTES * k as u64;
        words.push(Instruction::parse_at(line, at, &|_| None).unwrap().encode());
        text.push(format!("/*{at:04x}*/  {line}"));
    }
    println!("{}", text.join("\n"));

    // -- 5. run ------------------------------------------------------------------------
    let mut m = Machine::new(
        Warp::new(u32::MAX),
        Program::from_words(code.base(), &words),
    );
    assert_eq!(m.run(10_000), Stop::Exited);
    let lane_reg = Reg::new(assigned[&lane.bits()]).unwrap();
    for l in 0..32 {
        assert_eq!(m.warp.reg(Reg::new(11).unwrap(), l), (0..32).sum::<u32>());
        assert_eq!(m.warp.reg(lane_reg, l), l as u32);
    }
    println!(
        "ran {} steps: R11 = {} in every lane, {lane_reg:?} = the lane number",
        m.steps,
        m.warp.reg(Reg::new(11).unwrap(), 0)
    );
}
