//! Random SIMT programs as assembly text: nested if/else reconverging at BSYNC, uniform
//! loops, partial EXIT, YIELD and NANOSLEEP in divergent code, WARPSYNC, BREAK, BMOV,
//! SETREG, events and collectives, from a random initial state (valid lanes,
//! predicates, registers). Made from a seed, so a failing case can be printed and rerun.
//!
//! Many of these programs end in a fault (a deadlock, a WARPSYNC whose lanes wait at a
//! BSYNC, a livelock): that is the simulator's business, not the generator's.

/// xorshift64*: small and good enough to pick program shapes.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9e37_79b9_7f4a_7c15 | 1)
    }

    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// True one time in `n`.
    pub fn one_in(&mut self, n: u64) -> bool {
        self.below(n) == 0
    }

    pub fn u32(&mut self) -> u32 {
        self.next() as u32
    }
}

/// A program and the state it starts from.
pub struct Simt {
    /// Assembly text (labels `.L_n`, one instruction a line, the first at 0).
    pub text: String,
    /// `ValidMask` (and `ActiveMask`) at the start.
    pub valid_mask: u32,
    /// `(n, lanes)`: predicate P`n` is true in `lanes`.
    pub preds: Vec<(u8, u32)>,
    /// `(n, value of each lane)` of general registers.
    pub gprs: Vec<(u8, [u32; 32])>,
    /// `(n, value)` of uniform registers.
    pub urs: Vec<(u8, u32)>,
}

impl Simt {
    /// The initial state as a state file of `isa run`.
    pub fn state_json(&self) -> String {
        let mut parts = vec![format!("\"valid_mask\": {}", self.valid_mask)];
        let preds: Vec<String> = self
            .preds
            .iter()
            .map(|(n, m)| {
                let lanes: Vec<String> = (0..32).map(|l| (m >> l & 1 == 1).to_string()).collect();
                format!("\"P{n}\": [{}]", lanes.join(", "))
            })
            .collect();
        parts.push(format!("\"pred\": {{{}}}", preds.join(", ")));
        let gprs: Vec<String> = self
            .gprs
            .iter()
            .map(|(n, v)| {
                let lanes: Vec<String> = v.iter().map(u32::to_string).collect();
                format!("\"R{n}\": [{}]", lanes.join(", "))
            })
            .collect();
        parts.push(format!("\"gpr\": {{{}}}", gprs.join(", ")));
        let urs: Vec<String> = self
            .urs
            .iter()
            .map(|(n, v)| format!("\"UR{n}\": {v}"))
            .collect();
        parts.push(format!("\"ur\": {{{}}}", urs.join(", ")));
        format!("{{{}}}\n", parts.join(", "))
    }
}

struct Gen {
    rng: Rng,
    lines: Vec<String>,
    /// Instructions emitted so far (the next one's address is 16 times this).
    count: u64,
    labels: u32,
    /// Statements left to emit.
    budget: u32,
}

/// Registers the programs use: R0..R7 per lane, UR1..UR7 uniform, P0..P5.
const R: u64 = 8;
const UR: u64 = 7;
const P: u64 = 6;

impl Gen {
    fn insn(&mut self, text: String) {
        self.lines.push(format!("        {text}"));
        self.count += 1;
    }

    fn label(&mut self) -> String {
        self.labels += 1;
        format!(".L_{}", self.labels)
    }

    fn place(&mut self, label: &str) {
        self.lines.push(format!("{label}:"));
    }

    fn reg(&mut self) -> String {
        format!("R{}", self.rng.below(R))
    }

    fn ureg(&mut self) -> String {
        format!("UR{}", 1 + self.rng.below(UR))
    }

    fn pred(&mut self) -> String {
        format!("P{}", self.rng.below(P))
    }

    /// `@P`, `@!P` or nothing.
    fn guard(&mut self) -> String {
        match self.rng.below(4) {
            0 => format!("@{} ", self.pred()),
            1 => format!("@!{} ", self.pred()),
            _ => String::new(),
        }
    }

    /// An instruction that does not branch.
    fn simple(&mut self, divergent: bool) {
        let g = self.guard();
        let text = match self.rng.below(if divergent { 22 } else { 18 }) {
            0 => format!(
                "UIADD {}, {}, 0x{:x}",
                self.ureg(),
                self.ureg(),
                self.rng.below(16)
            ),
            1 => format!("UMOV {}, 0x{:x}", self.ureg(), self.rng.u32()),
            2 => format!("{g}S2R {}, SR_LANEID", self.reg()),
            3 => format!(
                "{g}VOTE.ANY {}, {}, {}",
                self.reg(),
                self.pred(),
                self.pred()
            ),
            4 => format!("{g}REDUX.SUM {}, {}", self.reg(), self.reg()),
            5 => format!(
                "{g}SHFL.BFLY PT, {}, {}, 0x{:x}, 0x1f",
                self.reg(),
                self.reg(),
                1 << self.rng.below(5)
            ),
            6 => format!(
                "{g}SHFL.UP {}, {}, {}, 0x{:x}, 0x0",
                self.pred(),
                self.reg(),
                self.reg(),
                self.rng.below(32)
            ),
            7 => format!(
                "{g}SHFL.DOWN {}, {}, {}, 0x{:x}, 0x1f",
                self.pred(),
                self.reg(),
                self.reg(),
                self.rng.below(32)
            ),
            8 => format!("{g}ELECT {}, {}, PT", self.pred(), self.reg()),
            9 => format!(
                "{g}MATCH.ANY {}, {}, {}",
                self.reg(),
                self.pred(),
                self.reg()
            ),
            10 => format!(
                "{g}VOTEU.ANY {}, UP{}, {}",
                self.ureg(),
                self.rng.below(6),
                self.pred()
            ),
            11 => format!(
                "UISETP.GE.U32.AND UP{}, UPT, {}, {}, UPT",
                self.rng.below(6),
                self.ureg(),
                self.ureg()
            ),
            12 => format!(
                "{g}SETREG 0x{:x}, {}",
                0x1000 + 4 * self.rng.below(4),
                self.reg()
            ),
            13 => format!(
                "{g}GETREG {}, 0x{:x}",
                self.reg(),
                0x1000 + 4 * self.rng.below(4)
            ),
            14 => format!("{g}BMOV {}, B{}", self.reg(), self.rng.below(4)),
            15 => match self.rng.below(3) {
                0 => format!("{g}TRAP 0x{:x}", self.rng.below(8)),
                1 => format!("{g}PMTRIG 0x{:x}", self.rng.below(8)),
                _ => format!("{g}SETREG 0x6, {}", self.reg()), // SR_WARPID
            },
            16 => format!("{g}REDUXU.S32.MAX {}, {}", self.ureg(), self.reg()),
            17 => "NOP".to_string(),
            // Only where lanes may wait elsewhere.
            18 => format!("{g}YIELD"),
            19 => format!("{g}NANOSLEEP 0x{:x}", self.rng.below(40)),
            20 => format!("@{} EXIT", self.pred()),
            _ => match self.rng.below(3) {
                0 => "WARPSYNC 0xffffffff".to_string(),
                1 => format!("{g}BREAK B{}", self.rng.below(4)),
                _ => format!("{g}BMOV B{}, {}", 4 + self.rng.below(4), self.reg()),
            },
        };
        self.insn(text);
    }

    /// A sequence of statements at nesting `depth`.
    fn block(&mut self, depth: u32, divergent: bool) {
        let n = 1 + self.rng.below(4);
        for _ in 0..n {
            if self.budget == 0 {
                return;
            }
            self.budget -= 1;
            match self.rng.below(if depth < 3 { 6 } else { 2 }) {
                0 | 1 => self.simple(divergent),
                2 | 3 => self.if_else(depth),
                4 => self.uniform_loop(depth, divergent),
                _ => {
                    // A predicate fresh from the lanes' numbers, for the next branches.
                    let (p, r) = (self.pred(), self.reg());
                    let d = self.rng.below(32);
                    self.insn(format!("S2R {r}, SR_LANEID"));
                    self.insn(format!("SHFL.UP {p}, R9, {r}, 0x{d:x}, 0x0"));
                }
            }
        }
    }

    /// BSSY; a guarded BRA to the else part (or to the join); BSYNC.
    fn if_else(&mut self, depth: u32) {
        let b = format!("B{depth}");
        let (other, join) = (self.label(), self.label());
        let has_else = self.rng.below(3) != 0;
        let p = self.pred();
        let not = if self.rng.one_in(2) { "!" } else { "" };
        self.insn(format!("BSSY {b}, `({join})"));
        let target = if has_else { &other } else { &join };
        self.insn(format!("@{not}{p} BRA `({target})"));
        self.block(depth + 1, true);
        if has_else {
            self.insn(format!("BRA `({join})"));
            self.place(&other);
            self.block(depth + 1, true);
        }
        self.place(&join);
        self.insn(format!("BSYNC {b}"));
    }

    /// `n` turns of a block on a uniform counter (UISETP, then USEL and BRX back).
    fn uniform_loop(&mut self, depth: u32, divergent: bool) {
        let (counter, offset) = (40 + depth, 50 + depth);
        let turns = 1 + self.rng.below(4);
        self.insn(format!("UMOV UR{counter}, 0x0"));
        let start = self.count;
        let top = self.label();
        self.place(&top);
        self.block(depth + 1, divergent);
        self.insn(format!("UIADD UR{counter}, UR{counter}, 0x1"));
        self.insn(format!(
            "UISETP.GE.U32.AND UP6, UPT, UR{counter}, 0x{turns:x}, UPT"
        ));
        // The BRX is the next instruction; its base is the one after it.
        let back = (16 * start).wrapping_sub(16 * (self.count + 2)) as u32;
        let after = self.label();
        self.insn(format!("USEL UR{offset}, URZ, 0x{back:x}, UP6"));
        self.insn(format!("BRX UR{offset}, `({after})"));
        self.place(&after);
    }
}

/// The program and initial state of `seed`.
pub fn simt(seed: u64) -> Simt {
    let mut g = Gen {
        rng: Rng::new(seed),
        lines: Vec::new(),
        count: 0,
        labels: 0,
        budget: 24,
    };
    let valid_mask = match g.rng.below(4) {
        0 => g.rng.u32() | 1,
        _ => u32::MAX,
    };
    let preds = (0..P as u8)
        .map(|n| {
            let m = match g.rng.below(4) {
                0 => 0x0000_ffff,
                1 => 0x5555_5555,
                _ => g.rng.u32(),
            };
            (n, m)
        })
        .collect();
    let gprs = (0..3)
        .map(|n| {
            let mut v = [0u32; 32];
            for x in &mut v {
                *x = g.rng.u32() % 64;
            }
            (n, v)
        })
        .collect();
    let urs = vec![(1, g.rng.u32()), (2, g.rng.u32() % 8)];
    g.block(0, false);
    g.insn("EXIT".to_string());
    Simt {
        text: g.lines.join("\n") + "\n",
        valid_mask,
        preds,
        gprs,
        urs,
    }
}
