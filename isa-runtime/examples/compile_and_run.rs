//! What a compiler backend does with the `isa` crate, end to end:
//!
//! 1. emit a kernel over virtual registers into a `CodeBuffer` with `code!`: a loop, a
//!    divergent if/else, a call to a function of the same buffer, and 64-bit uniform
//!    values (`ULDC.64`, `UIMAD.WIDE` write register pairs; a half is read alone);
//! 2. allocate registers (`CodeBuffer::allocate_checked`: liveness on register units,
//!    the calling convention's fixed registers, the checker);
//! 3. finish it, check that the words are what the text assembler gives for the
//!    printed program, and run it on the simulator;
//! 4. build the same kernel again with an identity assignment (every virtual register
//!    its own registers) and check that both end with the same results.
//!
//! `cargo run -p isa-runtime --example compile_and_run`

use isa::backend::{Abi, CodeBuffer, VReg};
use isa::{Instruction, Reg, RegFile, RegRef, UReg};
use isa_runtime::{Machine, Program, Stop, Warp};

/// The registers the kernel leaves its results in (fixed: the caller reads them).
const RESULT_LANE: u8 = 20;
const RESULT_SUM: u8 = 11;
const RESULT_ACC: u8 = 40;

/// Builds the kernel; `how` gives its virtual registers physical ones.
fn build(how: impl FnOnce(&mut CodeBuffer, &Abi)) -> (Vec<u128>, Vec<String>) {
    let mut buf = CodeBuffer::new(0).expect("an aligned base");
    let mut vreg = |file, width| buf.vreg(file, width).expect("the file has registers");
    let (lane, ballot, leader) = (
        vreg(RegFile::Reg, 1),
        vreg(RegFile::Reg, 1),
        vreg(RegFile::Reg, 1),
    );
    let (elected, any) = (vreg(RegFile::Pred, 1), vreg(RegFile::Pred, 1));
    let base = vreg(RegFile::UReg, 2); // a 64-bit pair from constant memory
    let (k, i, acc) = (
        vreg(RegFile::UReg, 1),
        vreg(RegFile::UReg, 1),
        vreg(RegFile::UReg, 1),
    );
    let wide = vreg(RegFile::UReg, 2); // i * k + base, 64 bits
    let low: VReg = wide.part(0, 1).expect("a pair has a low half");
    // The calling convention of `sum_lanes`: the argument in R10, the result in R11,
    // the return address in R[8:9].
    let abi = Abi {
        call_reads: vec![reg(8), reg(9), reg(10)],
        call_clobbers: vec![reg(11)],
        ..Abi::default()
    };
    isa::code!(buf;
            S2R {lane}, SR_LANEID;
            ULDC.64 {base}, c[0x0][0x160];
            UMOV {k}, 0x10;
            UMOV {i}, 0x1;
            UMOV {acc}, 0x0;
        // A divergent if/else: one lane is elected; the lanes meet again at `join`.
            BSSY B0, (join);
            ELECT {elected}, {leader};
            @{elected} BRA (then);
            VOTE.ANY {ballot}, {any}, PT;
            BRA (join);
        then:
            S2R {ballot}, SR_LANEID;
        join:
            BSYNC B0;
        // A loop: acc += low(i * k + base) each round; one lane leaves per round.
            BSSY B1, (out);
        top:
            UIMAD.WIDE {wide}, {i}, {k: UReg}, {base: UReg};
            UIADD {acc}, {acc}, {low: UReg};
            UIADD {i}, {i}, 0x1;
            ELECT {elected}, {leader};
            @{elected} BRA (out);
            BRA (top);
        out:
            BSYNC B1;
        // A call: the argument is the lane number.
            S2R R10, SR_LANEID;
            LEPC R[8:9], (after);
            CALL.REL RZ, (sum_lanes);
        after:
            MATCH.ANY {ballot}, {any}, {lane};
            S2R R20, SR_LANEID;
            UMOV UR40, {acc: UReg};
            EXIT;
        sum_lanes:
            REDUX.SUM R11, R10;
            RET.REL R[8:9], 0x0;
    )
    .expect("the kernel is well formed");
    how(&mut buf, &abi);
    let code = buf
        .finish()
        .expect("every label is bound, every register physical");
    let mut text = Vec::new();
    for (n, insn) in code.insts().iter().enumerate() {
        let at = code.addr_of(n);
        let line = insn.display_at(at).to_string();
        let again = Instruction::parse_at(&line, at, &|_| None).expect("prints what parses");
        assert_eq!(
            again.encode(),
            insn.encode(),
            "`{line}` assembles to the same word"
        );
        text.push(format!("/*{at:04x}*/  {line}"));
    }
    (code.words().collect(), text)
}

fn reg(n: u8) -> RegRef {
    RegRef::Reg(Reg::new(n).expect("a numbered register"))
}

/// Runs the words; returns the results every lane holds.
fn run(words: &[u128]) -> (Vec<u32>, Vec<u32>, u32, u64) {
    let mut warp = Warp::new(u32::MAX);
    warp.cmem.write_u32(0, 0x160, 5);
    warp.cmem.write_u32(0, 0x164, 1);
    let mut m = Machine::new(warp, Program::from_words(0, words));
    assert_eq!(m.run(100_000), Stop::Exited);
    let r = |n: u8| {
        (0..32)
            .map(|l| m.warp.reg(Reg::new(n).unwrap(), l))
            .collect::<Vec<_>>()
    };
    (
        r(RESULT_LANE),
        r(RESULT_SUM),
        m.warp.ureg(UReg::new(RESULT_ACC).unwrap()),
        m.steps,
    )
}

fn main() {
    // Allocated: the registers are chosen, copies dropped, the result checked.
    let (words, text) = build(|buf, abi| {
        let a = buf
            .allocate_checked(abi)
            .expect("the kernel fits the registers");
        println!("allocated ({} copies removed)", a.removed_copies);
    });
    println!("{}", text.join("\n"));
    // Identity: every virtual register its own registers, counted up per file from
    // registers the kernel does not name.
    let (identity, _) = build(|buf, _| {
        let mut next = [
            (RegFile::Reg, 24u64),
            (RegFile::Pred, 1),
            (RegFile::UReg, 8),
            (RegFile::UPred, 1),
        ];
        buf.assign(|v| {
            let slot = next
                .iter_mut()
                .find(|s| s.0 == v.file())
                .expect("a file of the kernel");
            let r = RegRef::from_code(v.file(), slot.1).expect("registers left");
            slot.1 += u64::from(v.width());
            r
        })
        .expect("identity registers fit");
    });
    let got = run(&words);
    let want = run(&identity);
    assert_eq!(
        (&got.0, &got.1, got.2),
        (&want.0, &want.1, want.2),
        "allocated and identity agree"
    );
    assert_eq!(
        got.0,
        (0..32).collect::<Vec<u32>>(),
        "R20 holds the lane number"
    );
    assert!(
        got.1.iter().all(|&s| s == (0..32).sum::<u32>()),
        "R11 holds the sum of lanes"
    );
    // 32 rounds (a lane leaves each): acc = sum of low(16 i + 5 + 2^32), i = 1..=32.
    assert_eq!(got.2, (1..=32).map(|i| 16 * i + 5).sum::<u32>());
    println!(
        "ran {} steps (identity: {}): R20 = lane, R11 = {}, UR40 = {}",
        got.3, want.3, got.1[0], got.2
    );
}
