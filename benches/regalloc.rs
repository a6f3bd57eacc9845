//! Register allocation time for functions of 1,000, 10,000 and 100,000 instructions
//! over virtual registers (`CodeBuffer::allocate`: the function built from the
//! operand facts, liveness, assignment, the rewrite), and the checker on the same
//! (`allocate_checked`). The rows of `benches/README.md`.
//!
//! A function is a kernel-like mix, the same for a fixed size: uniform arithmetic
//! over single registers and pairs (`UIADD`, `UIMAD.WIDE`, `ULDC.64`, copies) with a
//! window of about 24 values live at once, per-lane values (`S2R`, `MATCH.ANY`,
//! `REDUX.SUM`), and every 40 instructions a divergent if/else that meets again at a
//! `BSYNC`; every 400 a loop. About one instruction in three makes a value.
//!
//! Run with `cargo bench --bench regalloc` (see `benches/README.md`).

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use isa::backend::{Abi, CodeBuffer, Label, VReg};
use isa::{Instruction, RegFile};

/// A fixed pseudo-random sequence.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

struct Gen {
    buf: CodeBuffer,
    rng: Rng,
    u: Vec<VReg>,
    pairs: Vec<VReg>,
    r: Vec<VReg>,
    p: VReg,
}

impl Gen {
    fn push(&mut self, text: &str, target: Option<Label>, vregs: &[(&str, VReg)]) {
        let at = self.buf.here();
        let insn = Instruction::parse_at(text, at, &|_| Some(at)).expect("a line of the spec");
        let at = match target {
            Some(l) => self.buf.push_to(insn, l).expect("a label of this buffer"),
            None => self.buf.push(insn),
        };
        for &(name, v) in vregs {
            self.buf
                .set_virtual(at, name, v)
                .expect("the operand takes it");
        }
    }

    /// One of the recent values (the window keeps pressure bounded).
    fn recent(&mut self, pairs: bool) -> VReg {
        let list = if pairs { &self.pairs } else { &self.u };
        let n = list.len().min(if pairs { 6 } else { 16 });
        list[list.len() - 1 - self.rng.below(n)]
    }

    fn value(&mut self, file: RegFile, width: u8) -> VReg {
        self.buf.vreg(file, width).expect("a file with registers")
    }

    fn straight(&mut self) {
        match self.rng.below(8) {
            0 | 1 => {
                let (a, b) = (self.recent(false), self.recent(false));
                let d = self.value(RegFile::UReg, 1);
                self.push(
                    "UIADD UR1, UR2, UR3",
                    None,
                    &[("urd", d), ("ura", a), ("urb", b)],
                );
                self.u.push(d);
            }
            2 => {
                let (a, b, c) = (self.recent(false), self.recent(false), self.recent(true));
                let d = self.value(RegFile::UReg, 2);
                self.push(
                    "UIMAD.WIDE UR[0:1], UR2, UR3, UR[4:5]",
                    None,
                    &[("urd", d), ("ura", a), ("urb", b), ("urc", c)],
                );
                self.pairs.push(d);
            }
            3 => {
                let d = self.value(RegFile::UReg, 2);
                self.push("ULDC.64 UR[2:3], c[0x0][0x160]", None, &[("urd", d)]);
                self.pairs.push(d);
            }
            4 => {
                let a = self.recent(false);
                let d = self.value(RegFile::UReg, 1);
                self.push("UMOV UR1, UR2", None, &[("urd", d), ("urb", a)]);
                let at = self.buf.here() - 16;
                self.buf.mark_copy(at).expect("the copy just pushed");
                self.u.push(d);
            }
            5 => {
                let d = self.value(RegFile::Reg, 1);
                self.push("S2R R1, SR_LANEID", None, &[("rd", d)]);
                self.r.push(d);
            }
            6 => {
                let a = self.r[self.r.len() - 1 - self.rng.below(self.r.len().min(8))];
                let d = self.value(RegFile::Reg, 1);
                let p = self.p;
                self.push(
                    "MATCH.ANY R1, P1, R2",
                    None,
                    &[("rd", d), ("pu", p), ("ra", a)],
                );
                self.r.push(d);
            }
            _ => {
                let a = self.r[self.r.len() - 1 - self.rng.below(self.r.len().min(8))];
                let d = self.value(RegFile::Reg, 1);
                self.push("REDUX.SUM R1, R2", None, &[("rd", d), ("ra", a)]);
                self.r.push(d);
            }
        }
    }

    fn forget(&mut self, (u, pairs, r): (usize, usize, usize)) {
        self.u.truncate(u);
        self.pairs.truncate(pairs);
        self.r.truncate(r);
    }

    fn diamond(&mut self, depth: u8) {
        let (then, join) = (self.buf.new_label(), self.buf.new_label());
        let (p, r) = (self.p, self.value(RegFile::Reg, 1));
        self.push(&format!("BSSY B{depth}, 0x0"), Some(join), &[]);
        self.push("ELECT P1, R1", None, &[("pu", p), ("rd", r)]);
        self.push("@P1 BRA 0x0", Some(then), &[("pg", p)]);
        // Each side reads only what was defined before it; after the join, what
        // either side defined is not defined on every path.
        let before = (self.u.len(), self.pairs.len(), self.r.len());
        for _ in 0..12 {
            self.straight();
        }
        self.forget(before);
        self.push("BRA 0x0", Some(join), &[]);
        self.buf.bind(then).expect("a new label");
        for _ in 0..12 {
            self.straight();
        }
        self.forget(before);
        self.buf.bind(join).expect("a new label");
        self.push(&format!("BSYNC B{depth}"), None, &[]);
    }
}

/// A function of about `n` instructions.
fn function(n: usize) -> CodeBuffer {
    let mut buf = CodeBuffer::new(0).expect("an aligned base");
    let p = buf.vreg(RegFile::Pred, 1).expect("predicates");
    let mut g = Gen {
        buf,
        rng: Rng(0x2545_f491_4f6c_dd1d),
        u: Vec::new(),
        pairs: Vec::new(),
        r: Vec::new(),
        p,
    };
    for _ in 0..4 {
        let d = g.value(RegFile::UReg, 1);
        g.push("UMOV UR1, 0x3", None, &[("urd", d)]);
        g.u.push(d);
    }
    let d = g.value(RegFile::UReg, 2);
    g.push("ULDC.64 UR[2:3], c[0x0][0x160]", None, &[("urd", d)]);
    g.pairs.push(d);
    let d = g.value(RegFile::Reg, 1);
    g.push("S2R R1, SR_LANEID", None, &[("rd", d)]);
    g.r.push(d);
    while g.buf.len() < n {
        let i = g.buf.len();
        if i % 400 == 399 {
            // A loop around a diamond: one lane leaves per round.
            let (top, out) = (g.buf.new_label(), g.buf.new_label());
            g.push("BSSY B1, 0x0", Some(out), &[]);
            g.buf.bind(top).expect("a new label");
            g.diamond(2);
            let (p, r) = (g.p, g.value(RegFile::Reg, 1));
            g.push("ELECT P1, R1", None, &[("pu", p), ("rd", r)]);
            g.push("@P1 BRA 0x0", Some(out), &[("pg", p)]);
            g.push("BRA 0x0", Some(top), &[]);
            g.buf.bind(out).expect("a new label");
            g.push("BSYNC B1", None, &[]);
        } else if i % 40 == 39 {
            g.diamond(0);
        } else {
            g.straight();
        }
    }
    let (a, b) = (g.recent(false), g.recent(true));
    g.push("UMOV UR60, UR2", None, &[("urb", a)]);
    g.push("UMOV.64 UR[58:59], UR[4:5]", None, &[("urb", b)]);
    g.push("EXIT", None, &[]);
    g.buf
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("regalloc");
    group.sample_size(10);
    for n in [1_000usize, 10_000, 100_000] {
        let f = function(n);
        // It fits, and the checker accepts it.
        f.clone()
            .allocate_checked(&Abi::default())
            .expect("the function fits");
        group.throughput(Throughput::Elements(f.len() as u64));
        group.bench_function(format!("allocate/{n}"), |b| {
            b.iter_batched(
                || f.clone(),
                |mut f| black_box(f.allocate(&Abi::default()).expect("fits")),
                BatchSize::LargeInput,
            )
        });
        group.bench_function(format!("allocate_checked/{n}"), |b| {
            b.iter_batched(
                || f.clone(),
                |mut f| black_box(f.allocate_checked(&Abi::default()).expect("fits")),
                BatchSize::LargeInput,
            )
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
