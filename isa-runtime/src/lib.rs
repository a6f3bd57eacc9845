//! Execution semantics of the ISA: a functional simulator of one warp (32 lanes) for
//! every opcode of the spec.
//!
//! The instruction set itself comes from the generated `isa` crate; this crate holds
//! the hand-written semantics. [`Warp`] is the architectural state of
//! `docs/architecture.md` (GPRs, predicates, uniform registers and predicates, B registers, the
//! five thread masks, `ActivePC` and per-lane RPC, constant memory, special registers,
//! the GETREG/SETREG address space, a cycle counter and the NANOSLEEP timer).
//! [`Program`] decodes a program once; [`Machine`] runs it:
//!
//! ```
//! use isa_runtime::{Machine, Program, Stop, Warp};
//! use isa::Instruction;
//!
//! let text = ["S2R R1, SR_LANEID", "REDUX.SUM R2, R1", "EXIT"];
//! let insns: Vec<Instruction> = text.iter().map(|l| l.parse().unwrap()).collect();
//! let mut m = Machine::new(Warp::new(u32::MAX), Program::from_instructions(0, &insns));
//! assert_eq!(m.run(1000), Stop::Exited);
//! assert_eq!(m.warp.reg(isa::Reg::new(2).unwrap(), 7), (0..32).sum::<u32>());
//! ```
//!
//! # Execution model
//!
//! * One step executes the instruction at `ActivePC` for the lanes of `ActiveMask`
//!   and costs one cycle. A run ends when `ValidMask` is empty.
//! * Per-lane instructions act on the *participants*: active lanes whose guard
//!   predicate is true. Uniform-datapath instructions are guarded by their uniform
//!   predicate and act once per warp.
//! * A collective reading a lane that is inactive or predicated off gets the value
//!   its register holds (the spec and PTX leave it undefined; the hardware data below
//!   does not compare it).
//! * A uniform result of a per-lane instruction (VOTEU, REDUXU, ELECTU, S2UR) is
//!   written when at least one lane takes part. S2UR of a lane-dependent special
//!   register (`SR_LANEID`, the lane masks) reads it as the first participant sees it.
//! * Branch targets: every `CvtIShift` operand names the address `pc + 16 +
//!   offset*16` (docs/decisions.md).
//! * Constant memory: 32 banks of 64 KiB, little-endian, zero until set; any
//!   alignment is accepted; an access outside a bank is a fault.
//! * Special registers: `SR_LANEID` and the lane masks are computed; `SR_CLOCKLO/HI`
//!   read the cycle counter, `SR_GLOBALTIMELO/HI` the same in nanoseconds
//!   ([`CYCLES_PER_NS`] = 1); the others are stored per warp (settable by the caller
//!   or SETREG). CS2R reads 64 bits: a `LO` register with its `HI` half, `SR_PMn`
//!   with `SR_PM_HIn`, anything else zero-extended.
//! * GETREG/SETREG: addresses below 0x100 are the special registers by `SReg` code
//!   (writes to computed or undefined ones are dropped); every other 32-bit address
//!   is a register of a per-warp store that reads 0 until written. Lanes write in
//!   increasing lane order (the highest lane wins).
//! * RTT, TRAP, SYSCALL, PMTRIG and SWITCH are reported as [`Event`]s (with the
//!   lanes that executed them and their operand, from the lowest such lane for a
//!   register operand) and execution goes on with the next instruction. DEPBAR,
//!   IBBAR and NOP do nothing (there is no memory system to wait for).
//! * NANOSLEEP: one timer per warp; a request sets it to `now + t` or keeps an
//!   earlier deadline. When it fires, `SleepMask` is cleared. When no lane can run
//!   but sleeping ones (`warpSleep()`), the clock jumps to the deadline and a
//!   [`EventKind::WarpSleep`] is reported.
//! * Faults ([`FaultKind`]): step limit, a PC outside the program, an undecodable
//!   word, an instruction violating one of the spec's `__Exception` conditions, a
//!   dynamic UR index outside UR0..URZ, a constant-memory access outside its bank, a
//!   deadlock (lanes alive but none can run), the two WARPSYNC program errors
//!   below, and a livelock (below). The state is left as it was before the faulting
//!   instruction.
//! * Livelock: [`Machine::run`] stops a run that comes back to a state it was in
//!   (every register, predicate, mask, PC, B register, stored special register and
//!   the NANOSLEEP timer alike; not the step and cycle counters) without having read
//!   the clock since: it would repeat the same steps forever. The fault names the
//!   cycle's instructions and lanes and the lanes that never run. The check costs
//!   nothing per step (the state is compared every 16 to 4,096 steps, by Brent's
//!   cycle detection) and is exact (a match is confirmed by running one more turn);
//!   `livelock.rs` explains it. [`Machine::step`] does not check.
//! * Observing: [`Machine::run_observed`] and [`Machine::step_observed`] call an
//!   [`Observer`] after every instruction with what ran ([`Step`]: address,
//!   instruction, cycle, the masks before it, the lanes whose guard was true, the
//!   event) and the warp after it; [`Changes`] tells what each step wrote or changed.
//!   Without an observer nothing of this is computed.
//!
//! # The spec's BSYNC can livelock
//!
//! The BRU description exempts lanes that yielded from a BSYNC ("让步放行：只针对
//! `BSYNC`。`BSYNC`在bmask中线程运行`YIELD`后可以豁免该同步点，也即其他非`YIELD`线程
//! 不必等待`YIELD`线程到达同步点就继续执行后续指令。": yield release, BSYNC only: once
//! lanes of `bmask` have run YIELD they are exempted from the sync point, that is, the
//! other, non-yielded lanes need not wait for the yielded ones to arrive and go on with
//! the next instructions). Its `__Semantics` release only when no non-yielded lane is
//! left anywhere: a BSYNC whose missing lanes have all yielded first switches to
//! *other* non-yielded lanes (`mask_ny_nb`, "先切换到不需同步的非Yield线程"). When those
//! lanes wait at a second sync point (another BSYNC, or a `WARPSYNC 0xffffffff`) that
//! does the same, the two hand control back and forth forever and the yielded lanes
//! never run again (`tests/livelock.rs` traces one). The simulator follows the
//! pseudocode and reports the livelock: this is the spec's behaviour, not a
//! simulator bug; releasing a BSYNC whose missing lanes have all yielded, as the
//! description says, would avoid it.
//!
//! # Choices where the spec is silent
//!
//! * **MOVM** has no `__Semantics`: it is PTX `movmatrix.sync.aligned.m8n8.trans.b16`
//!   (lane `l` holds row `l/4`, columns `2(l%4)`, `+1` of an 8×8 b16 matrix; the
//!   result is the transpose). The H200 agrees on all 256 comparisons.
//! * **ELECT/ELECTU** have no `__Semantics`: as PTX `elect.sync`, the leader is the
//!   lowest participant in the member mask (`URb`, or lanes whose `pp` is true);
//!   `Rd`/`URd` = its lane number (`0xFFFFFFFF` when there is none), `pu` is true in
//!   the leader only. The H200 agrees on all 671 comparisons (candidates from `PT`
//!   and from `URb` = the member mask; PTX has no other candidate set).
//! * **MATCH.ANY** writes `pu = false` (the semantics initialise `pu = false` and only
//!   `.ALL` sets it).
//! * **UIADD without `.X`** writes its carry-out to `upu` (the syntax has no `upu`
//!   there, but the operand exists and defaults to `UPT`). The carry-in `upp` is used
//!   only with `.X`. The same holds for UIMAD and ULEA: `.LO`/`.HI` picks the half,
//!   `.X` adds `upp`; the negate sub-field is `-` (two's complement) without `.X` and
//!   `~` with it, as `CvtINegX` prints it. The H200 agrees on every carry compared,
//!   with and without `.X` (see \[D8\]).
//! * **UPRMT** modes are those of PTX `prmt` (`.f4e`, `.b4e`, `.rc8`, `.ecl`, `.ecr`,
//!   `.rc16`; the default mode uses the four selector nibbles, bit 3 replicating the
//!   sign); the spec only refers to `[[PRMT]]`. The H200 agrees on all 1,216
//!   comparisons (every mode, `prmt.b32`).
//! * **BRX, CALL, RET** read `Vb`/`Va` as a signed 32-bit (BRX) or 64-bit (CALL/RET)
//!   offset; BRX sign-extends it (the spec's own example sign-extends the table entry).
//! * **WARPSYNC** asserts that each executing lane is in its membermask (a fault if
//!   not), and for the grouped `R` form the spec's TODO "lanes of one group must give
//!   the same mask" is checked when a group is released (a fault if not).
//!
//! # Deviations from the `__Semantics` pseudocode
//!
//! Where the pseudocode is wrong on its face, the simulator does what the hardware
//! designer evidently meant. Each entry quotes the spec line it departs from; the
//! code carries the tag.
//!
//! *Hardware* says what an NVIDIA H200 computed for the deviations that the data set
//! in `isa-runtime/tests/data/hardware/` exercises (the warp collectives and the
//! integer uniform-datapath opcodes, run through the PTX instruction each corresponds
//! to); `tests/hardware.rs` holds the simulator to it on every `cargo test`, 38,411
//! comparisons in all, every one of which agrees.
//!
//! * **\[D1\] BRU sleep test and WARPSYNC sync test** (bru.isa, `switchPCByMask`
//!   helpers, EXIT, YIELD, NANOSLEEP, WARPSYNC): `if( (cmask & SleepMask) ^ SleepMask
//!   ==0 )` parses as `(cmask & SleepMask) ^ (SleepMask == 0)` and even read as
//!   intended it tests `SleepMask ⊆ cmask`; the comment says "every candidate is
//!   asleep", so the test is `cmask != 0 && (cmask & ~SleepMask) == 0`. Likewise
//!   WARPSYNC's `if ( (arrivemask & mmask) ^ mmask == 0)` is `(arrivemask & mmask) ==
//!   mmask`.
//!   *Hardware:* not covered by the hardware data (no PTX instruction exposes the
//!   convergence barriers or the warp's masks).
//! * **\[D2\] BRX partial jump** (bru.isa BRX): `ActiveMask = ~b_jump;` would make
//!   inactive and exited lanes active: it is `ActiveMask &= ~b_jump`. In the all-jump
//!   case `RPC[TargetPC!=ActivePC] = TargetPC[...]` is restricted to active lanes
//!   (inactive lanes keep their resume PC).
//!   *Hardware:* not covered by the hardware data (no PTX instruction exposes the
//!   convergence barriers or the warp's masks).
//! * **\[D3\] Target of LEPC** (bru.isa LEPC: `rd[mask2array(pmask)] = ActivePC;`):
//!   the offset field is a `CvtIShift` operand, which this toolchain reads and writes
//!   as the address `pc + 16 + offset*16` (docs/decisions.md), and LEPC loads that
//!   address (`LEPC R[4:5], 0x80` loads 0x80). With the offset left out (0) LEPC
//!   therefore loads the address of the *next* instruction, not `ActivePC`. CALL/RET
//!   follow their semantics as written: `Va + offset*16` under `.ABS`, `pc + 16 + Va +
//!   offset*16` under `.REL` (`isa-spec/backend.isa` reads the offset the same way,
//!   per instance, so `CALL.ABS R[8:9], 0x100` adds 0x100 wherever it is placed).
//!   *Hardware:* not covered by the hardware data (no PTX instruction exposes the
//!   convergence barriers or the warp's masks).
//! * **\[D4\] BSYNC consumes its B register** (bru.isa BSYNC: `bmask = bmask & ( bmask
//!   ^ ActiveMask);` on a local copy): the B register "marks the lanes that have not
//!   yet reached the sync point" (BRU description) and BSSY only ORs lanes in, so
//!   BSYNC clears every arrived lane (`bmask & ~arrivemask`, not just `ActiveMask`)
//!   and writes the result back (its `OutList` has `breg`); a released B register is
//!   0 and can be reused.
//!   *Hardware:* not covered by the hardware data (no PTX instruction exposes the
//!   convergence barriers or the warp's masks).
//! * **\[D5\] YIELD/NANOSLEEP resume point** (bru.isa YIELD: `ActivePC = RPC[lid];`
//!   with no RPC saved for the yielding lanes): the lanes that switch away get `RPC =
//!   ActivePC + INST_SIZE`, so they resume after the YIELD instead of at a stale RPC.
//!   *Hardware:* not covered by the hardware data (no PTX instruction exposes the
//!   convergence barriers or the warp's masks).
//! * **\[D6\] NANOSLEEP sets `SleepMask`** (bru.isa NANOSLEEP: `YieldMask |=
//!   ActiveMask;`, copied from YIELD): the description says "`NANOSLEEP`会设置
//!   `SleepMask`"; the sleeping lanes go into `SleepMask`, not `YieldMask`.
//!   *Hardware:* not covered by the hardware data (no PTX instruction exposes the
//!   convergence barriers or the warp's masks).
//! * **\[D7\] Grouped WARPSYNC R** (bru.isa WARPSYNC: `warp_syncmask = ValidMask &
//!   array2mask(thd_syncmask==0);` and `cmask = array_or(mmask) ^ arrivemask;`): only
//!   lanes that arrived have a membermask, so only they can form a released group,
//!   and the candidates are the members that have not arrived (`& ~arrivemask`; the
//!   XOR would add arrived lanes outside every membermask). `lid = ffs(sync_mask)`
//!   is read as `ffs(warp_syncmask)`.
//!   *Hardware:* not covered by the hardware data (no PTX instruction exposes the
//!   convergence barriers or the warp's masks).
//! * **\[D8\] Carry out** (udp.isa UIADD.X, UIMAD, UIMAD.WIDE, ULEA: `upu = … >
//!   4294967296` and `> (1<<64)`): the carry is `sum >= 2^32` (`>= 2^64`).
//!   *Hardware:* agrees. All 3,840 carries compared agree (UIADD 896, UIMAD 1,536,
//!   UIMAD.WIDE 768, ULEA 640), five of them from a sum of exactly 2^32 (UIADD 1, UIMAD
//!   2, ULEA 2), where the spec's `>` would give no carry; no sum is exactly 2^64.
//! * **\[D9\] USHF shift count** (udp.isa USHF: `n = (.cwmod == .CLAMP) ? min(n_ub, ) :
//!   min(b, n_ub) : mod(b, n_ub);`): `n = CLAMP ? min(b, n_ub) : b mod n_ub`. A right
//!   shift of a signed type fills with bit 63 of `{SrcC, URa}`. *Hardware:* agrees on
//!   all 3,072 USHF comparisons (every direction, half, `.C`/`.W` and type, counts
//!   of 32 and more, 64 and more, and up to `0xFFFFFFFF`).
//! * **\[D10\] UFLO** (udp.isa UFLO: `if (.type == .S32) SrcB = ~SrcB;` and `URd = 31 -
//!   URd` for `.SH`): `.S32` inverts only negative inputs (the most significant bit
//!   that differs from the sign, as PTX `bfind.s32`; inverting every input would
//!   find the highest 0 of positive numbers), and "not found" stays `0xFFFFFFFF`
//!   with `.SH` too (the spec's own example `UFLO.U32.SH UR1, URZ; // UR1 =
//!   0xFFFFFFFF`; the formula would give 32). The description's `|SrcB|` is not used.
//!   *Hardware:* agrees on all 768 UFLO comparisons (PTX `bfind`, `.shiftamt`).
//! * **\[D11\] ULEA precedence** (udp.isa ULEA: `addr = t & 0xFFFFFFFF + SrcB;`): `+`
//!   binds tighter than `&` in C; the sum is `(t & 0xFFFFFFFF) + SrcB (+ upp)`.
//!   *Hardware:* agrees on all 2,368 ULEA comparisons (every mode, with \[D18\]).
//! * **\[D12\] UIMAD.WIDE with constant SrcC** (udp.isa UIMAD_WIDE_UUC: `Bitwidth<vc> =
//!   32; Bitwidth<urd> = 32;`): contradicts `.WIDE` and its three siblings; it is
//!   executed with a 64-bit `SrcC` from constant memory and a 64-bit `URd`, which is
//!   what `isa-spec/corrections.isa` states for every tool (the operand facts, the
//!   assembler's `UR[30:31]`), so this is no longer a deviation from the spec the
//!   toolchain reads. *Hardware:* agrees on the 576 comparisons of that form
//!   (192 cases: both words and the carry of the 64-bit `madc` sum).
//! * **\[D13\] UP2UR/UR2UP** (udp.isa UP2UR assigns only `URd[8*k+7:8*k]`; UR2UP: `upr
//!   = b_select & URa[...]` after packing `upr` from the predicates): `URd` is not an
//!   input, so UP2UR takes its other bytes from `URa` (as P2R); UR2UP writes only the
//!   predicates selected by `SbMsk` (the packing of `upr` is otherwise dead, and
//!   clearing unselected predicates would make the mask pointless), so `UPR` is read
//!   as well as written (`isa-spec/corrections.isa` lists it in UR2UP's `InList`).
//!   `UP7` is `UPT`: it reads 1 and writes are dropped. *Hardware:* not covered by the hardware data
//!   (PTX has no uniform predicate file).
//! * **\[D14\] UBREV** (udp.isa UBREV: `URd = ~SrcB;`): the opcode is bit-reverse
//!   (`BREV`); it reverses the bit order. *Hardware:* agrees on all 96 comparisons
//!   (`brev.b32`).
//! * **\[D15\] UF2FP** (udp.isa UF2FP: `TODO:`): as F2FP.F16.F32.PACK_AB, `URd =
//!   {f16(URa), f16(SrcB)}` (`URa` in the high half), IEEE round to nearest even,
//!   every NaN (either sign, quiet or signalling, any payload) becomes the canonical
//!   NaN `0x7FFF`, f32 subnormals flush to ±0. `URc` has no role without a modifier
//!   that would give it one; it is read and ignored. *Hardware:* agrees on all 1,280
//!   comparisons (`cvt.rn.f16x2.f32`, which ptxas compiles to F2FP.F16.F32.PACK_AB):
//!   the rounding of every non-NaN input, and `0x7FFF` for all 197 NaN inputs. The
//!   simulator used to keep a NaN's sign and payload (`sign | 0x7E00 | man >> 13`),
//!   which disagreed with the GPU on 171 comparisons.
//! * **\[D16\] UPOPC** (udp.isa UPOPC: `a >>= 1;` in a loop over `SrcB`): the loop never
//!   ends; the result is the population count of `SrcB`. *Hardware:* agrees on all
//!   192 comparisons (`popc.b32`, of `SrcB` and `~SrcB`).
//! * **\[D17\] ULDC.128** (udp.isa ULDC: `Bitwidth<urd> = 32 + (dtype=="64")*32;`,
//!   which is 32 for `.128`): the load is 128 bits, as the dtype says; it fills four
//!   consecutive uniform registers from `URd`. `isa-spec/corrections.isa` gives the
//!   `Bitwidth` that says so (`+ (dtype=="128")*96`), so the operand facts and the
//!   assembler agree (`ULDC.128 UR[20:23], …`). *Hardware:* not
//!   covered by the hardware data.
//! * **\[D18\] ULEA with a negated `URa`** (udp.isa ULEA.LO: `t = URa << UImm5Sca; addr
//!   = t & 0xFFFFFFFF + SrcB; … upu = addr > 4294967296`, `URa` negated first): so
//!   read, the carry comes from the truncated `(-a) << n` plus `SrcB`, and the spec's
//!   own example pair `ULEA UR0, UP0, -UR2, UR3, UR4; ULEA.HI.X.SX32 UR1, ~UR2, UR3,
//!   UR5, UP0; // 联合完成UR[0:1]=-UR2<<UR3 + UR[4:5]` ("together compute `UR[0:1] =
//!   -UR2 << UR3 + UR[4:5]`") gets a high word one too small whenever the low `32 - n`
//!   bits of `a` are zero (`a = 0`: `0xFFFFFFFF_00000000` instead of 0). As 64 bits,
//!   `-a << n` is `(~sext(a) << n) + (1 << n)`; the high instruction adds the first
//!   term, so the second must reach it through the low instruction's carry. The
//!   negated `.LO` therefore adds `(~a << n) & 0xFFFFFFFF`, `1 << n` and `SrcB` as one
//!   sum (at most 33 bits) and its carry-out is that sum's, as `-x` is `~x + 1` inside
//!   UIADD's and UIMAD's sums (`udp::term`); its result word is unchanged. The other
//!   negated operands that feed a carry already work so (UIADD's `-a`/`-b`, UIMAD's and
//!   UIMAD.WIDE's `-SrcC`, ULEA's `-SrcB`); `~` (the `.X` forms) adds no `+1`.
//!   *Hardware:* agrees. All 320 comparisons of the pair (160 cases; the GPU computes
//!   `(-sext(a) << n) + {c, b}` with `neg.s64`, `shl.b64`, `add.s64`) agree; under the
//!   literal reading 60 high words were one too small. ptxas itself compiles the 64-bit
//!   `b - ((long long)a << 5)` to the same `-`/`~` pair (`IADD3 R8, P0, R2, -R6, RZ`;
//!   `IADD3.X R9, R3, ~R7, RZ, P0, !PT`).
//!
//! Other opcodes follow their pseudocode as written (BRA with the spec's golden
//! model, BMOV, BSSY, BREAK, EXIT, BSYNC's yield release, SHFL as PTX `shfl`, UBMSK,
//! USGXT, UISETP with `.X`, ULOP3/UPLOP3, VOTE, REDUX, GETUGPR/SETUGPR).

mod bru;
mod exec;
mod livelock;
mod machine;
pub mod observe;
mod snapshot;
mod sync;
pub mod udp;
mod warp;

pub use bru::bra_branch_mask;
pub use machine::{
    CycleStep, Event, EventKind, Fault, FaultKind, Machine, Program, Slot, Stop, LIVELOCK_SHOWN,
};
pub use observe::{guard_lanes, Change, Changes, Observer, Step};
pub use sync::{elect_leader, redux, shfl_lane, vote};
pub use warp::{
    lanes_of, sreg_is_computed, ConstMem, Warp, CMEM_BANKS, CMEM_BANK_SIZE, CYCLES_PER_NS,
    INST_SIZE, LANES,
};

#[cfg(test)]
mod tests {
    use super::*;
    use isa::{Pred, Reg, UPred, UReg};

    #[test]
    fn constant_registers_read_constants_and_drop_writes() {
        let mut w = Warp::default();
        w.set_reg(Reg::RZ, 3, 42);
        assert_eq!(w.reg(Reg::RZ, 3), 0);
        w.set_pred(Pred::PT, 0, false);
        assert!(w.pred(Pred::PT, 0));
        w.set_ureg(UReg::URZ, 7);
        assert_eq!(w.ureg(UReg::URZ), 0);
        w.set_upred(UPred::UPT, false);
        assert!(w.upred(UPred::UPT));
    }

    #[test]
    fn registers_are_per_lane_and_uniforms_per_warp() {
        let mut w = Warp::new(0xffff);
        let r5 = Reg::new(5).unwrap();
        w.set_reg(r5, 1, 7);
        assert_eq!((w.reg(r5, 0), w.reg(r5, 1)), (0, 7));
        let p2 = Pred::new(2).unwrap();
        w.set_pred(p2, 31, true);
        assert!(w.pred(p2, 31) && !w.pred(p2, 30));
        let up6 = UPred::new(6).unwrap();
        w.set_upred(up6, true);
        assert!(w.upred(up6) && !w.upred(UPred::new(5).unwrap()));
        assert_eq!(w.active_mask, 0xffff);
    }
}
