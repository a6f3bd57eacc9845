//! Simulator throughput in warp instructions per second (criterion `Throughput::Elements`).
//!
//! * `uniform`: a loop of 15 uniform-datapath instructions and a uniform `BRA` back
//!   (goal ≥ 50 M warp instructions/s on one core).
//! * `collectives`: a loop of 32-lane collectives (SHFL in every mode and operand form,
//!   VOTE, VOTEU, REDUX, REDUXU, MATCH.ALL, MATCH.ANY, ELECT) and a `BRA` back, all 32
//!   lanes active (goal ≥ 20 M/s).
//! * `divergent`: an if/else with BSSY/BSYNC in a uniform loop (the SIMT bookkeeping).
//!
//! Run: `cargo bench -p isa-runtime --bench sim -- --warm-up-time 1 --measurement-time 3`

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use isa::Instruction;
use isa_runtime::{Machine, Program, Warp};

const UNIFORM: &str = "
    UIADD UR1, UR1, 0x1
    UIADD.X UR2, UP0, UR2, UR1
    UIMAD UR3, UR1, UR2, UR3
    UIMAD.WIDE.U32 UR[4:5], UR1, 0x3, UR[4:5]
    ULOP3.POR UR6, UR1, UR2, UR3, 0x96, !UPT
    USHF.L.U32 UR7, UR1, 0x3, URZ
    UISETP.LT.U32.AND UP1, UPT, UR1, UR2, UPT
    USEL UR8, UR1, UR2, UP1
    UPRMT UR9, UR1, UR2, 0x5410
    UFLO.U32 UR10, UR3
    ULEA UR11, UR1, UR2, URZ, 0x2
    UPOPC UR12, UR6
    UMOV UR13, 0x114514
    UIMNMX UR14, UR1, UR2, UP1
    UBMSK UR15, UR1, 0x4
    BRA 0x0
";

const COLLECTIVES: &str = "
    SHFL.BFLY PT, R1, R0, 0x1, 0x1f
    SHFL.UP P1, R2, R0, 0x2, 0x0
    SHFL.DOWN P2, R3, R0, 0x4, 0x1f
    SHFL.IDX P3, R4, R0, R5, R6
    VOTE.ANY R7, P4, P1
    VOTEU.ALL UR1, UP1, P2
    REDUX.SUM R8, R0
    REDUXU.S32.MAX UR2, R0
    MATCH.ALL R9, P5, R10
    MATCH.ANY R11, P6, R12
    ELECT P0, R13, PT
    BRA 0x0
";

const DIVERGENT: &str = "
    BSSY B0, 0x50
    @P0 BRA 0x40
    UIADD UR1, UR1, 0x1
    BRA 0x50
    UIADD UR2, UR2, 0x1
    BSYNC B0
    BRA 0x0
";

fn machine(src: &str) -> Machine {
    let insns: Vec<Instruction> = src
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .enumerate()
        .map(|(k, l)| Instruction::parse_at(l, 16 * k as u64, &|_| None).unwrap())
        .collect();
    let mut w = Warp::new(u32::MAX);
    for l in 0..32 {
        w.set_reg(isa::Reg::new(0).unwrap(), l, l as u32 * 7);
        w.set_reg(isa::Reg::new(5).unwrap(), l, 31 - l as u32);
        w.set_reg(isa::Reg::new(6).unwrap(), l, 0x1f);
        w.set_reg(isa::Reg::new(10).unwrap(), l, 3);
        w.set_reg(isa::Reg::new(12).unwrap(), l, l as u32 % 4);
    }
    w.set_pred_lanes(isa::Pred::new(0).unwrap(), u32::MAX, 0x5555_5555);
    Machine::new(w, Program::from_instructions(0, &insns))
}

fn bench_loop(c: &mut Criterion, name: &str, src: &str) {
    const STEPS: u64 = 100_000;
    let mut g = c.benchmark_group("sim");
    g.throughput(Throughput::Elements(STEPS));
    let mut m = machine(src);
    g.bench_function(name, |b| {
        b.iter(|| {
            for _ in 0..STEPS {
                if m.step().is_err() {
                    panic!("fault");
                }
            }
        })
    });
    g.finish();
}

fn benches(c: &mut Criterion) {
    bench_loop(c, "uniform", UNIFORM);
    bench_loop(c, "collectives", COLLECTIVES);
    bench_loop(c, "divergent", DIVERGENT);
}

criterion_group!(sim, benches);
criterion_main!(sim);
