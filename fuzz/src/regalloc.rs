//! Oracle of the `regalloc` target: the register allocator on random programs over
//! virtual registers, under its checker and against the simulator.
//!
//! The input chooses a structured program (read by [`Input`]; past its end every
//! read gives 0): straight-line uniform and per-lane code over single registers and
//! pairs (`UIADD`, `UIMAD.WIDE`, `ULDC.64`, copies, halves of pairs, guarded writes),
//! divergent if/else and loops (one lane leaves per round) that meet again at
//! `BSYNC`, and calls to a function of the same buffer under a calling convention.
//! Every value a later instruction reads is defined on every path before, so the
//! program's results do not depend on registers' initial contents. At the end every
//! value still defined is copied to fixed result registers.
//!
//! The program is built twice. Once allocated ([`CodeBuffer::allocate_checked`]: the
//! checker must accept every allocation); once with an identity assignment (every
//! virtual register its own registers). When the identity assignment fits the
//! registers, the allocation must succeed, and both programs must run on the
//! simulator to the same results. When allocation fails, the error must be
//! `OutOfRegisters` naming what is live where it failed.

use isa::backend::{Abi, AllocError, CodeBuffer, Label, Target, VReg};
use isa::{Instruction, Reg, RegFile, RegRef, UReg};
use isa_runtime::{Machine, Program, Stop, Warp};

/// Result registers: uniform values are copied to `UR44..`, per-lane ones to `R200..`.
const UR_OUT: u64 = 44;
const R_OUT: u64 = 200;
/// Registers the identity assignment starts from (past the calling convention's).
const R_FIRST: u64 = 12;
/// Steps per run.
const MAX_STEPS: u64 = 200_000;

/// What one input did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Allocated, checked, and (identity fitting) run to the same results.
    Allocated {
        /// The identity assignment fitted, so the two programs were compared.
        compared: bool,
    },
    /// The registers ran out, with the error a user gets.
    OutOfRegisters,
}

/// The input, read as small numbers.
pub struct Input<'a> {
    data: &'a [u8],
    at: usize,
}

impl Input<'_> {
    fn byte(&mut self) -> u8 {
        let b = self.data.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        b
    }

    /// A number below `n` (`n > 0`).
    fn below(&mut self, n: usize) -> usize {
        self.byte() as usize % n
    }

    fn done(&self) -> bool {
        self.at >= self.data.len()
    }
}

/// The values defined on every path so far, by kind.
#[derive(Clone, Default)]
struct Defined {
    u: Vec<VReg>,
    pairs: Vec<VReg>,
    r: Vec<VReg>,
    up: Vec<VReg>,
    /// Predicates written only to be read at once (any will do).
    p: Vec<VReg>,
}

struct Builder<'a, 'b> {
    input: &'b mut Input<'a>,
    buf: CodeBuffer,
    insts: usize,
    max_insts: usize,
    /// The local function, if a call was made.
    callee: Option<Label>,
    /// Values made so far, per file: Reg, Pred, UReg, UPred.
    made: [usize; 4],
    /// How many times [`CAP`] this program may make (more than the registers: the
    /// allocation may fail).
    pressure: usize,
}

/// Most values of each file a program makes (Reg, Pred, UReg, UPred): past them,
/// destinations are old values, so that the identity assignment fits most programs.
const CAP: [usize; 4] = [60, 5, 36, 5];

fn file_slot(file: RegFile) -> usize {
    match file {
        RegFile::Reg => 0,
        RegFile::Pred => 1,
        RegFile::UReg => 2,
        _ => 3,
    }
}

impl Builder<'_, '_> {
    fn vreg(&mut self, file: RegFile, width: u8) -> VReg {
        self.made[file_slot(file)] += usize::from(width);
        self.buf.vreg(file, width).expect("the file has registers")
    }

    /// Pushes `text` (physical placeholders) and binds operands to virtual registers.
    fn push(&mut self, text: &str, target: Option<Label>, vregs: &[(&str, VReg)]) -> u64 {
        let at = self.buf.here();
        let insn = Instruction::parse_at(text, at, &|_| Some(at))
            .unwrap_or_else(|e| panic!("`{text}`: {e:?}"));
        let at = match target {
            Some(l) => self.buf.push_to(insn, l).expect("a label of this buffer"),
            None => self.buf.push(insn),
        };
        for &(name, v) in vregs {
            self.buf
                .set_virtual(at, name, v)
                .unwrap_or_else(|e| panic!("`{text}` {name}: {e}"));
        }
        self.insts += 1;
        at
    }

    fn pick(&mut self, from: &[VReg]) -> Option<VReg> {
        (!from.is_empty()).then(|| from[self.input.below(from.len())])
    }

    /// A new value, or (one time in three, or past the file's cap) an old one
    /// written again.
    fn dest(&mut self, file: RegFile, width: u8, old: &[VReg]) -> VReg {
        let full = self.made[file_slot(file)] >= CAP[file_slot(file)] * self.pressure;
        if !old.is_empty() && (full || self.input.below(3) == 0) {
            self.pick(old).expect("not empty")
        } else {
            self.vreg(file, width)
        }
    }

    fn block(&mut self, d: &mut Defined, depth: u8) {
        let n = 1 + self.input.below(8);
        for _ in 0..n {
            if self.insts >= self.max_insts || self.input.done() {
                return;
            }
            self.statement(d, depth);
        }
    }

    fn add(list: &mut Vec<VReg>, v: VReg) {
        if !list.contains(&v) {
            list.push(v);
        }
    }

    fn statement(&mut self, d: &mut Defined, depth: u8) {
        match self.input.below(16) {
            0 => {
                let v = self.dest(RegFile::UReg, 1, &d.u.clone());
                let imm = self.input.byte();
                self.push(&format!("UMOV UR1, {imm:#x}"), None, &[("urd", v)]);
                Self::add(&mut d.u, v);
            }
            1 | 2 => {
                let (Some(a), Some(b)) = (self.pick(&d.u), self.pick(&d.u)) else {
                    return self.statement_fallback(d);
                };
                let v = self.dest(RegFile::UReg, 1, &d.u.clone());
                self.push(
                    "UIADD UR1, UR2, UR3",
                    None,
                    &[("urd", v), ("ura", a), ("urb", b)],
                );
                Self::add(&mut d.u, v);
            }
            3 => {
                let (Some(a), Some(b), Some(c)) =
                    (self.pick(&d.u), self.pick(&d.u), self.pick(&d.pairs))
                else {
                    return self.statement_fallback(d);
                };
                let v = self.dest(RegFile::UReg, 2, &d.pairs.clone());
                self.push(
                    "UIMAD.WIDE UR[0:1], UR2, UR3, UR[4:5]",
                    None,
                    &[("urd", v), ("ura", a), ("urb", b), ("urc", c)],
                );
                Self::add(&mut d.pairs, v);
            }
            4 => {
                let v = self.dest(RegFile::UReg, 2, &d.pairs.clone());
                let off = 0x160 + 8 * self.input.below(4);
                self.push(
                    &format!("ULDC.64 UR[2:3], c[0x0][{off:#x}]"),
                    None,
                    &[("urd", v)],
                );
                Self::add(&mut d.pairs, v);
            }
            5 => {
                // A copy of a pair or of a single register: the allocator may drop it.
                let pair = self.input.below(2) == 0;
                let (from, text, w) = if pair {
                    (self.pick(&d.pairs), "UMOV.64 UR[2:3], UR[4:5]", 2)
                } else {
                    (self.pick(&d.u), "UMOV UR1, UR2", 1)
                };
                let Some(from) = from else {
                    return self.statement_fallback(d);
                };
                let old = if pair { d.pairs.clone() } else { d.u.clone() };
                let v = self.dest(RegFile::UReg, w, &old);
                let at = self.push(text, None, &[("urd", v), ("urb", from)]);
                self.buf
                    .mark_copy(at)
                    .expect("an instruction of the buffer");
                Self::add(if pair { &mut d.pairs } else { &mut d.u }, v);
            }
            6 => {
                // A half of a pair, read alone.
                let (Some(p), Some(b)) = (self.pick(&d.pairs), self.pick(&d.u)) else {
                    return self.statement_fallback(d);
                };
                let half = p
                    .part(self.input.below(2) as u8, 1)
                    .expect("a pair has halves");
                let v = self.dest(RegFile::UReg, 1, &d.u.clone());
                self.push(
                    "UIADD UR1, UR2, UR3",
                    None,
                    &[("urd", v), ("ura", half), ("urb", b)],
                );
                Self::add(&mut d.u, v);
            }
            7 => {
                let (Some(a), Some(b)) = (self.pick(&d.u), self.pick(&d.u)) else {
                    return self.statement_fallback(d);
                };
                let v = self.dest(RegFile::UPred, 1, &d.up.clone());
                self.push(
                    "UISETP.LT.U32.AND UP1, UPT, UR2, UR3, UPT",
                    None,
                    &[("upu", v), ("ura", a), ("urb", b)],
                );
                Self::add(&mut d.up, v);
            }
            8 => {
                // A guarded write: the old value lives on where the guard is false.
                let (Some(g), Some(v), Some(a), Some(b)) = (
                    self.pick(&d.up),
                    self.pick(&d.u),
                    self.pick(&d.u),
                    self.pick(&d.u),
                ) else {
                    return self.statement_fallback(d);
                };
                self.push(
                    "@UP1 UIADD UR1, UR2, UR3",
                    None,
                    &[("upg", g), ("urd", v), ("ura", a), ("urb", b)],
                );
            }
            9 => {
                let v = self.dest(RegFile::Reg, 1, &d.r.clone());
                self.push("S2R R1, SR_LANEID", None, &[("rd", v)]);
                Self::add(&mut d.r, v);
            }
            10 => {
                let Some(a) = self.pick(&d.r) else {
                    return self.statement_fallback(d);
                };
                let v = self.dest(RegFile::Reg, 1, &d.r.clone());
                let p = self.pred(d);
                self.push(
                    "MATCH.ANY R1, P1, R2",
                    None,
                    &[("rd", v), ("pu", p), ("ra", a)],
                );
                Self::add(&mut d.r, v);
            }
            11 => {
                let Some(a) = self.pick(&d.r) else {
                    return self.statement_fallback(d);
                };
                let v = self.dest(RegFile::Reg, 1, &d.r.clone());
                self.push("REDUX.SUM R1, R2", None, &[("rd", v), ("ra", a)]);
                Self::add(&mut d.r, v);
            }
            12 | 13 if depth < 3 => self.if_else(d, depth),
            14 if depth < 2 => self.looped(d, depth),
            15 if depth == 0 => self.call(),
            _ => self.statement_fallback(d),
        }
    }

    /// A predicate to write and read at once.
    fn pred(&mut self, d: &mut Defined) -> VReg {
        let p = self.dest(RegFile::Pred, 1, &d.p.clone());
        Self::add(&mut d.p, p);
        p
    }

    /// When a statement has nothing to read: define a value.
    fn statement_fallback(&mut self, d: &mut Defined) {
        let v = self.dest(RegFile::UReg, 1, &d.u.clone());
        self.push("UMOV UR1, 0x7", None, &[("urd", v)]);
        Self::add(&mut d.u, v);
        if d.pairs.is_empty() {
            let p = self.vreg(RegFile::UReg, 2);
            self.push("ULDC.64 UR[2:3], c[0x0][0x168]", None, &[("urd", p)]);
            d.pairs.push(p);
        }
    }

    /// One lane is elected and goes one way, the others the other; both meet again.
    fn if_else(&mut self, d: &mut Defined, depth: u8) {
        let (then, join) = (self.buf.new_label(), self.buf.new_label());
        let p = self.pred(d);
        let r = self.dest(RegFile::Reg, 1, &d.r.clone());
        self.push(&format!("BSSY B{depth}, 0x0"), Some(join), &[]);
        self.push("ELECT P1, R1", None, &[("pu", p), ("rd", r)]);
        self.push("@P1 BRA 0x0", Some(then), &[("pg", p)]);
        let mut other = d.clone();
        self.block(&mut other, depth + 1);
        self.push("BRA 0x0", Some(join), &[]);
        self.buf.bind(then).expect("a new label");
        let mut one = d.clone();
        self.block(&mut one, depth + 1);
        self.buf.bind(join).expect("a new label");
        self.push(&format!("BSYNC B{depth}"), None, &[]);
    }

    /// A loop of 32 rounds: one lane leaves each; the lanes meet again after it.
    fn looped(&mut self, d: &mut Defined, depth: u8) {
        let (top, out) = (self.buf.new_label(), self.buf.new_label());
        self.push(&format!("BSSY B{depth}, 0x0"), Some(out), &[]);
        self.buf.bind(top).expect("a new label");
        let mut body = d.clone();
        self.block(&mut body, depth + 1);
        let p = self.pred(&mut body);
        let r = self.dest(RegFile::Reg, 1, &body.r.clone());
        self.push("ELECT P1, R1", None, &[("pu", p), ("rd", r)]);
        self.push("@P1 BRA 0x0", Some(out), &[("pg", p)]);
        self.push("BRA 0x0", Some(top), &[]);
        self.buf.bind(out).expect("a new label");
        self.push(&format!("BSYNC B{depth}"), None, &[]);
    }

    /// A call to the local function: argument in R10, return address in R[8:9].
    fn call(&mut self) {
        let callee = match self.callee {
            Some(l) => l,
            None => {
                let l = self.buf.new_label();
                self.callee = Some(l);
                l
            }
        };
        let after = self.buf.new_label();
        self.push("S2R R10, SR_LANEID", None, &[]);
        self.push("LEPC R[8:9], 0x0", Some(after), &[]);
        self.push("CALL.REL RZ, 0x0", Some(callee), &[]);
        self.buf.bind(after).expect("a new label");
    }
}

/// The calling convention of the local function.
fn abi() -> Abi {
    let r = |n: u64| RegRef::from_code(RegFile::Reg, n).expect("a register");
    Abi {
        call_reads: vec![r(8), r(9), r(10)],
        call_clobbers: vec![r(11)],
        ..Abi::default()
    }
}

/// Builds the program the input describes; `assign` gives the registers.
fn build(
    data: &[u8],
    assign: impl FnOnce(&mut CodeBuffer) -> Result<(), AllocError>,
) -> Result<Vec<u128>, AllocError> {
    let mut input = Input { data, at: 0 };
    let max_insts = 16 + input.below(200);
    // One program in eight may make three times as many values.
    let pressure = if input.below(8) == 0 { 3 } else { 1 };
    let mut b = Builder {
        input: &mut input,
        buf: CodeBuffer::new(0).expect("an aligned base"),
        insts: 0,
        max_insts,
        callee: None,
        made: [0; 4],
        pressure,
    };
    let mut d = Defined::default();
    b.statement_fallback(&mut d);
    // Under pressure, values near (or past) the uniform file's 63 registers at once.
    if pressure > 1 {
        for _ in 0..50 + b.input.below(20) {
            let v = b.vreg(RegFile::UReg, 1);
            b.push("UMOV UR1, 0x3", None, &[("urd", v)]);
            d.u.push(v);
        }
    }
    while b.insts < b.max_insts && !b.input.done() {
        b.block(&mut d, 0);
    }
    // Under pressure every value is read at the end, so they all live until then.
    if b.pressure > 1 {
        let acc = b.vreg(RegFile::UReg, 1);
        b.push("UMOV UR1, 0x0", None, &[("urd", acc)]);
        let halves: Vec<VReg> = d.pairs.iter().filter_map(|p| p.part(1, 1)).collect();
        for v in d.u.iter().chain(&halves).copied().collect::<Vec<_>>() {
            b.push(
                "UIADD UR1, UR2, UR3",
                None,
                &[("urd", acc), ("ura", acc), ("urb", v)],
            );
        }
        d.u.insert(0, acc);
    }
    // Results: every value defined on every path, to fixed registers.
    let mut ur = UR_OUT;
    for v in d.u.iter().chain(&d.pairs).copied().collect::<Vec<_>>() {
        let w = u64::from(v.width());
        if ur + w > 63 {
            break;
        }
        let text = if w == 2 {
            format!("UMOV.64 UR[{ur}:{}], UR[4:5]", ur + 1)
        } else {
            format!("UMOV UR{ur}, UR2")
        };
        b.push(&text, None, &[("urb", v)]);
        ur += w;
    }
    for (k, &v) in d.r.iter().take(40).enumerate() {
        b.push(
            &format!("REDUX.SUM R{}, R2", R_OUT + k as u64),
            None,
            &[("ra", v)],
        );
    }
    b.push("EXIT", None, &[]);
    if let Some(callee) = b.callee {
        b.buf.bind(callee).expect("a new label");
        b.push("REDUX.SUM R11, R10", None, &[]);
        // The return adds address 0 to R[8:9] wherever the code moves.
        let at = b.buf.here();
        let ret = Instruction::parse_at("RET.REL R[8:9], 0x0", at, &|_| None).expect("a return");
        b.buf
            .push_with(ret, 0, Target::Address(0))
            .expect("address 0 is in reach");
    }
    let mut buf = b.buf;
    assign(&mut buf)?;
    let code = buf.finish().expect("labels bound, registers physical");
    Ok(code.words().collect())
}

/// The results a program leaves, or how it stopped.
fn run(words: &[u128]) -> Results {
    let mut warp = Warp::new(u32::MAX);
    for (k, v) in [5u32, 1, 0x10, 0xffff_fff0, 3, 0, 0x8000_0000, 7]
        .iter()
        .enumerate()
    {
        warp.cmem.write_u32(0, 0x160 + 4 * k as u32, *v);
    }
    let mut m = Machine::new(warp, Program::from_words(0, words));
    match m.run(MAX_STEPS) {
        Stop::Exited => {}
        other => return Err(other),
    }
    let ur = (UR_OUT..63)
        .map(|n| m.warp.ureg(UReg::new(n as u8).expect("a register")))
        .collect();
    let r = (R_OUT..R_OUT + 40)
        .map(|n| m.warp.reg_lanes(Reg::new(n as u8).expect("a register")))
        .collect();
    Ok((ur, r))
}

/// The identity assignment: every value its own registers, counted up per file from
/// the first register the program does not fix; `Err` when they run out.
fn identity(buf: &mut CodeBuffer) -> Result<(), AllocError> {
    let mut next = [
        (RegFile::Reg, R_FIRST, R_OUT),
        (RegFile::Pred, 0, 7),
        (RegFile::UReg, 0, UR_OUT),
        (RegFile::UPred, 0, 7),
    ];
    let mut overflow = None;
    buf.assign(|v| {
        let slot = next
            .iter_mut()
            .find(|s| s.0 == v.file())
            .expect("a file the programs use");
        let code = slot.1;
        slot.1 += u64::from(v.width());
        if slot.1 > slot.2 {
            overflow = Some(v);
        }
        RegRef::from_code(v.file(), code.min(slot.2 - u64::from(v.width()))).expect("a register")
    })?;
    match overflow {
        Some(v) => Err(AllocError::Width(v.file(), v.width())),
        None => Ok(()),
    }
}

/// The program as text, one instruction a line.
fn listing(words: &[u128]) -> String {
    let mut out = String::new();
    for (k, &w) in words.iter().enumerate() {
        let at = 16 * k as u64;
        let text = Instruction::decode(w)
            .map_or_else(|e| format!("{e:?}"), |i| i.display_at(at).to_string());
        out.push_str(&format!("/*{at:04x}*/ {text}\n"));
    }
    out
}

type Results = Result<(Vec<u32>, Vec<[u32; 32]>), Stop>;

/// Where two runs' results first differ.
fn first_difference(got: &Results, want: &Results) -> String {
    match (got, want) {
        (Ok((gu, gr)), Ok((wu, wr))) => {
            if let Some(k) = (0..gu.len()).find(|&k| gu[k] != wu[k]) {
                return format!("UR{}: {:#x} against {:#x}", UR_OUT + k as u64, gu[k], wu[k]);
            }
            let k = (0..gr.len()).find(|&k| gr[k] != wr[k]).unwrap_or(0);
            format!("R{}: {:?} against {:?}", R_OUT + k as u64, gr[k], wr[k])
        }
        (Err(g), Ok(_)) => format!("allocated: {g:?}"),
        (Ok(_), Err(w)) => format!("identity: {w:?}"),
        (Err(g), Err(w)) => format!("{g:?} against {w:?}"),
    }
}

/// Runs the oracle on one input.
pub fn check(data: &[u8]) -> Outcome {
    let allocated = build(data, |buf| buf.allocate_checked(&abi()).map(|_| ()));
    let reference = build(data, identity);
    match allocated {
        Ok(words) => {
            let Ok(reference) = reference else {
                return Outcome::Allocated { compared: false };
            };
            let got = run(&words);
            let want = run(&reference);
            let show = || {
                format!(
                    "allocated:\n{}\nidentity:\n{}",
                    listing(&words),
                    listing(&reference)
                )
            };
            assert!(
                want.is_ok(),
                "the identity-assigned program runs to its end: {want:?}\n{}",
                show()
            );
            assert!(
                got == want,
                "allocated and identity-assigned programs end alike: {:?}\n{}",
                first_difference(&got, &want),
                show()
            );
            Outcome::Allocated { compared: true }
        }
        Err(AllocError::OutOfRegisters {
            at, value, live, ..
        }) => {
            assert!(
                reference.is_err(),
                "allocation failed where the identity assignment fits: at {at:#x}, {value}"
            );
            assert!(!live.is_empty(), "the error names what is live at {at:#x}");
            Outcome::OutOfRegisters
        }
        Err(e) => panic!("allocation failed unexpectedly: {e}"),
    }
}
