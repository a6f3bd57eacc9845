//! Instruction dispatch: one arm per opcode of the spec.

use isa::{
    BasePcMode, BrClear, CMem, ExBool, Flosh, IExt, IType, Instruction, Leasx32, Lohi, MemdType,
    Movw, PModi, Reg, SignModi, UPred, UReg,
};

use crate::bru::{self, pmask, pv, rel_target, Ev};
use crate::machine::{EventKind, FaultKind};
use crate::sync;
use crate::udp::{self, sum32, term, term64};
use crate::warp::{lanes_of, Warp, INST_SIZE, LANES};

type R = Result<Ev, FaultKind>;

#[inline]
fn neg(s: SignModi) -> bool {
    s == SignModi::True
}

#[inline]
fn inv(s: SignModi) -> u32 {
    if s == SignModi::True {
        u32::MAX
    } else {
        0
    }
}

/// Uniform guard / predicate operand value.
#[inline]
fn up(w: &Warp, p: UPred, n: PModi) -> bool {
    w.upred(p) ^ (n == PModi::True)
}

/// Reads `size` bytes of constant memory at `c[bank][base + offset]`.
#[inline]
fn cmem(w: &Warp, c: CMem, base: u32, size: usize) -> Result<u128, FaultKind> {
    let addr = i64::from(base) + i64::from(c.offset());
    w.cmem
        .read(c.bank(), addr, size)
        .ok_or(FaultKind::CmemOutOfRange {
            bank: c.bank(),
            addr,
            size,
        })
}

#[inline]
fn cm32(w: &Warp, c: CMem) -> Result<u32, FaultKind> {
    cmem(w, c, 0, 4).map(|v| v as u32)
}

#[inline]
fn cm64(w: &Warp, c: CMem) -> Result<u64, FaultKind> {
    cmem(w, c, 0, 8).map(|v| v as u64)
}

/// The per-lane guard `pgv & ActiveMask`.
#[inline]
fn part(w: &Warp, pg: isa::Pred, n: PModi) -> u32 {
    pv(w, pg, n) & w.active_mask
}

#[inline]
fn bcast(v: u32) -> [u32; LANES] {
    [v; LANES]
}

/// Executes `insn` on `w`. The branch unit sets `active_pc` itself; every other
/// instruction goes on to the next one.
pub(crate) fn execute(w: &mut Warp, insn: &Instruction) -> R {
    use Instruction as I;
    let pc = w.active_pc;
    match insn {
        I::BraX(i) => bru::bra(
            w,
            pv(w, i.pg, i.pg_not) & pv(w, i.pp, i.pp_not),
            i.cond,
            None,
            i.offset.get(),
        ),
        I::BraU(i) => {
            let ur = w.ureg(i.ura) ^ inv(i.ura_bitnot);
            bru::bra(
                w,
                pv(w, i.pg, i.pg_not) & pv(w, i.pp, i.pp_not),
                i.cond,
                Some(ur),
                i.offset.get(),
            )
        }
        I::BrxR(i) => {
            let m = pmask(w, i.pg, i.pg_not, i.pp, i.pp_not);
            let base = rel_target(pc, i.offset.get());
            Ok(bru::indirect(w, m, |w, l| {
                base.wrapping_add(i64::from(w.reg(i.ra, l) as i32) as u64)
            }))
        }
        I::BrxU(i) => {
            let m = pmask(w, i.pg, i.pg_not, i.pp, i.pp_not);
            let t =
                rel_target(pc, i.offset.get()).wrapping_add(i64::from(w.ureg(i.ura) as i32) as u64);
            Ok(bru::indirect(w, m, |_, _| t))
        }
        I::BrxC(i) => {
            let m = pmask(w, i.pg, i.pg_not, i.pp, i.pp_not);
            let v = cm32(w, i.vb)?;
            let t = rel_target(pc, 0).wrapping_add(i64::from(v as i32) as u64);
            Ok(bru::indirect(w, m, |_, _| t))
        }
        // CALL and RET jump alike, to `Va` plus `offset*16` under `.ABS` and plus
        // `pc + 16 + offset*16` under `.REL` (bru.isa CALL); the C form has no offset:
        // `.ABS` goes to `Va`, `.REL` to `pc + 16 + Va`.
        I::CallR(i) => call_reg(
            w,
            pmask(w, i.pg, i.pg_not, i.pp, i.pp_not),
            i.ra,
            call_base(pc, i.offset.get(), i.mode),
        ),
        I::RetR(i) => call_reg(
            w,
            pmask(w, i.pg, i.pg_not, i.pp, i.pp_not),
            i.ra,
            call_base(pc, i.offset.get(), i.mode),
        ),
        I::CallU(i) => {
            let m = pmask(w, i.pg, i.pg_not, i.pp, i.pp_not);
            let t = call_base(pc, i.offset.get(), i.mode).wrapping_add(w.ureg64(i.ura));
            Ok(bru::indirect(w, m, |_, _| t))
        }
        I::RetU(i) => {
            let m = pmask(w, i.pg, i.pg_not, i.pp, i.pp_not);
            let t = call_base(pc, i.offset.get(), i.mode).wrapping_add(w.ureg64(i.ura));
            Ok(bru::indirect(w, m, |_, _| t))
        }
        I::CallC(i) => call_c(w, pmask(w, i.pg, i.pg_not, i.pp, i.pp_not), i.vb, i.mode),
        I::RetC(i) => call_c(w, pmask(w, i.pg, i.pg_not, i.pp, i.pp_not), i.vb, i.mode),
        I::LepcI(i) => Ok(bru::lepc(w, part(w, i.pg, i.pg_not), i.rd, i.offset.get())),
        I::ExitX(i) => bru::exit(w, pmask(w, i.pg, i.pg_not, i.pp, i.pp_not)),
        I::BsyncX(i) => bru::bsync(w, part(w, i.pg, i.pg_not), i.breg as usize),
        I::BssyI(i) => Ok(bru::bssy(w, part(w, i.pg, i.pg_not), i.breg as usize)),
        I::BreakX(i) => Ok(bru::break_(
            w,
            pmask(w, i.pg, i.pg_not, i.pp, i.pp_not),
            i.breg as usize,
        )),
        I::YieldX(i) => bru::yield_(w, pmask(w, i.pg, i.pg_not, i.pp, i.pp_not)),
        I::WarpsyncI(i) => bru::warpsync_uniform(
            w,
            pmask(w, i.pg, i.pg_not, i.pp, i.pp_not),
            i.membermask.get(),
        ),
        I::WarpsyncU(i) => {
            let m = w.ureg(i.urb) ^ inv(i.urb_bitnot);
            bru::warpsync_uniform(w, pmask(w, i.pg, i.pg_not, i.pp, i.pp_not), m)
        }
        I::WarpsyncC(i) => {
            let m = cm32(w, i.vb)? ^ inv(i.vb_bitnot);
            bru::warpsync_uniform(w, pmask(w, i.pg, i.pg_not, i.pp, i.pp_not), m)
        }
        I::WarpsyncR(i) => {
            let x = inv(i.rb_bitnot);
            bru::warpsync_lanes(w, pmask(w, i.pg, i.pg_not, i.pp, i.pp_not), |w, l| {
                w.reg(i.rb, l) ^ x
            })
        }
        I::NanosleepR(i) => bru::nanosleep(w, pmask(w, i.pg, i.pg_not, i.pp, i.pp_not), |w, l| {
            w.reg(i.rb, l)
        }),
        I::NanosleepU(i) => {
            let t = w.ureg(i.urb);
            bru::nanosleep(w, pmask(w, i.pg, i.pg_not, i.pp, i.pp_not), |_, _| t)
        }
        I::NanosleepI(i) => {
            let t = i.vb.get();
            bru::nanosleep(w, pmask(w, i.pg, i.pg_not, i.pp, i.pp_not), |_, _| t)
        }
        I::NanosleepC(i) => {
            let t = cm32(w, i.vb)?;
            bru::nanosleep(w, pmask(w, i.pg, i.pg_not, i.pp, i.pp_not), |_, _| t)
        }
        _ => {
            let ev = straight(w, insn)?;
            w.active_pc = pc.wrapping_add(INST_SIZE);
            Ok(ev)
        }
    }
}

/// What CALL/RET add `Va` to: `offset*16` under `.ABS`, `pc + 16 + offset*16` under
/// `.REL`.
fn call_base(pc: u64, offset: i64, mode: BasePcMode) -> u64 {
    match mode {
        BasePcMode::Abs => (offset as u64).wrapping_mul(INST_SIZE),
        BasePcMode::Rel => rel_target(pc, offset),
    }
}

fn call_reg(w: &mut Warp, m: u32, ra: Reg, base: u64) -> R {
    Ok(bru::indirect(w, m, |w, l| {
        base.wrapping_add(w.reg64(ra, l))
    }))
}

fn call_c(w: &mut Warp, m: u32, vb: CMem, mode: BasePcMode) -> R {
    let va = cm64(w, vb)?;
    let t = match mode {
        BasePcMode::Abs => va,
        BasePcMode::Rel => rel_target(w.active_pc, 0).wrapping_add(va),
    };
    Ok(bru::indirect(w, m, |_, _| t))
}

/// An event when some lane executes the instruction.
#[inline]
fn event(part: u32, kind: EventKind) -> Ev {
    if part == 0 {
        None
    } else {
        Some((kind, part))
    }
}

/// UIADD.
#[allow(clippy::too_many_arguments)]
#[inline]
fn uiadd(
    w: &mut Warp,
    urd: UReg,
    upu: UPred,
    a: u32,
    an: SignModi,
    b: u32,
    bn: SignModi,
    ext: IExt,
    upp: UPred,
    upp_not: PModi,
) {
    let x = ext == IExt::X;
    let cin = u64::from(x && up(w, upp, upp_not));
    let (r, c) = sum32(term(a, neg(an), x) + term(b, neg(bn), x) + cin);
    w.set_ureg(urd, r);
    w.set_upred(upu, c);
}

/// UIMAD (`.LO`/`.HI`, with or without `.X`).
#[allow(clippy::too_many_arguments)]
#[inline]
fn uimad(
    w: &mut Warp,
    urd: UReg,
    upu: UPred,
    a: u32,
    b: u32,
    c: u32,
    cn: SignModi,
    lohi: Lohi,
    ext: IExt,
    itype: IType,
    upp: UPred,
    upp_not: PModi,
) {
    let x = ext == IExt::X;
    let p = match lohi {
        Lohi::Lo => a.wrapping_mul(b),
        Lohi::Hi => udp::mul_hi(a, b, itype == IType::S32),
    };
    let cin = u64::from(x && up(w, upp, upp_not));
    let (r, carry) = sum32(u64::from(p) + term(c, neg(cn), x) + cin);
    w.set_ureg(urd, r);
    w.set_upred(upu, carry);
}

/// UIMAD.WIDE.
#[allow(clippy::too_many_arguments)]
#[inline]
fn uimad_wide(
    w: &mut Warp,
    urd: UReg,
    upu: UPred,
    a: u32,
    b: u32,
    c: u64,
    cn: SignModi,
    ext: IExt,
    itype: IType,
    upp: UPred,
    upp_not: PModi,
) {
    let x = ext == IExt::X;
    let p = udp::mul_wide(a, b, itype == IType::S32);
    let cin = u128::from(x && up(w, upp, upp_not));
    let s = u128::from(p) + term64(c, neg(cn), x) + cin;
    w.set_ureg64(urd, s as u64);
    w.set_upred(upu, s >> 64 != 0);
}

/// UIMUL.
#[inline]
fn uimul(w: &mut Warp, urd: UReg, a: u32, b: u32, bn: SignModi, lohi: Lohi, itype: IType) {
    let b = if neg(bn) { b.wrapping_neg() } else { b };
    let r = match lohi {
        Lohi::Lo => a.wrapping_mul(b),
        Lohi::Hi => udp::mul_hi(a, b, itype == IType::S32),
    };
    w.set_ureg(urd, r);
}

/// ULEA (\[D11\], \[D18\]).
#[allow(clippy::too_many_arguments)]
#[inline]
fn ulea(
    w: &mut Warp,
    urd: UReg,
    upu: UPred,
    a: u32,
    an: SignModi,
    b: u32,
    bn: SignModi,
    c: u32,
    sh: u8,
    lohi: Lohi,
    ext: IExt,
    sx32: Leasx32,
    upp: UPred,
    upp_not: PModi,
) {
    let x = ext == IExt::X;
    let t = udp::lea_term(
        a,
        c,
        neg(an),
        x,
        lohi == Lohi::Hi,
        sx32 == Leasx32::Sx32,
        sh,
    );
    let cin = u64::from(x && up(w, upp, upp_not));
    let (r, carry) = sum32(t + term(b, neg(bn), x) + cin);
    w.set_ureg(urd, r);
    w.set_upred(upu, carry);
}

#[inline]
fn uimnmx(w: &mut Warp, urd: UReg, a: u32, b: u32, itype: IType, min: bool) {
    let r = match (itype, min) {
        (IType::S32, true) => (a as i32).min(b as i32) as u32,
        (IType::S32, false) => (a as i32).max(b as i32) as u32,
        (IType::U32, true) => a.min(b),
        (IType::U32, false) => a.max(b),
    };
    w.set_ureg(urd, r);
}

/// UP2UR: the selected byte of URa, its bits chosen by SbMsk replaced by UP0..UP7.
/// \[D13\] the other bytes come from URa.
#[inline]
fn up2ur(w: &mut Warp, urd: UReg, a: u32, bsel: u8, mask: u32) {
    let sel = mask & 0xff;
    let sh = 8 * u32::from(bsel);
    let byte = a >> sh & 0xff;
    let new = ((sel & u32::from(w.upr())) | (!sel & byte)) & 0xff;
    w.set_ureg(urd, (a & !(0xff << sh)) | new << sh);
}

/// UR2UP. \[D13\] predicates whose SbMsk bit is clear keep their value.
#[inline]
fn ur2up(w: &mut Warp, a: u32, bsel: u8, mask: u32) {
    let sel = mask & 0xff;
    let byte = a >> (8 * u32::from(bsel)) & 0xff;
    for i in lanes_of(sel) {
        if let Some(p) = UPred::new(i as u8) {
            w.set_upred(p, byte >> i & 1 == 1);
        }
    }
}

#[allow(clippy::too_many_arguments)]
#[inline]
fn uisetp(w: &mut Warp, i: UisetpArgs, b: u32) {
    let p = up(w, i.upp, i.upp_not);
    let signed = i.itype == IType::S32;
    let t = if i.ext == IExt::X && i.a == b {
        up(w, i.upq, i.upq_not)
    } else {
        udp::compare(i.a, b, i.compop, signed)
    };
    w.set_upred(i.upu, udp::bool_op(t, p, i.boolop));
    w.set_upred(i.upv, udp::bool_op(!t, p, i.boolop));
}

struct UisetpArgs {
    a: u32,
    ext: IExt,
    itype: IType,
    compop: isa::CompOp,
    boolop: isa::BoolOp,
    upp: UPred,
    upp_not: PModi,
    upq: UPred,
    upq_not: PModi,
    upu: UPred,
    upv: UPred,
}

macro_rules! uisetp_args {
    ($w:expr, $i:expr) => {
        UisetpArgs {
            a: $w.ureg($i.ura),
            ext: $i.ext,
            itype: $i.itype,
            compop: $i.compop,
            boolop: $i.boolop,
            upp: $i.upp,
            upp_not: $i.upp_not,
            upq: $i.upq,
            upq_not: $i.upq_not,
            upu: $i.upu,
            upv: $i.upv,
        }
    };
}

#[allow(clippy::too_many_arguments)]
#[inline]
fn ulop3(
    w: &mut Warp,
    urd: UReg,
    upu: UPred,
    a: u32,
    b: u32,
    c: u32,
    lut: u8,
    ex: ExBool,
    upp: bool,
) {
    let r = udp::lop3(a, b, c, lut);
    w.set_ureg(urd, r);
    let nz = r != 0;
    w.set_upred(
        upu,
        if ex == ExBool::Pand {
            nz && upp
        } else {
            nz || upp
        },
    );
}

#[inline]
fn uflo(w: &mut Warp, urd: UReg, b: u32, itype: IType, sh: Flosh) {
    w.set_ureg(urd, udp::flo(b, itype == IType::S32, sh == Flosh::Sh));
}

/// UF2FP \[D15\]: `URd = {f16(URa), f16(SrcB)}` (URa in the high half).
#[inline]
fn uf2fp(w: &mut Warp, urd: UReg, a: u32, b: u32) {
    let r = u32::from(udp::f32_to_f16(a)) << 16 | u32::from(udp::f32_to_f16(b));
    w.set_ureg(urd, r);
}

#[inline]
fn ur_index(w: &Warp, urb: UReg, idx: isa::SImm7) -> Result<usize, FaultKind> {
    let i = i64::from(w.ureg(urb)) + i64::from(idx.get());
    if (0..=63).contains(&i) {
        Ok(i as usize)
    } else {
        Err(FaultKind::UrIndexOutOfRange(i))
    }
}

/// Every instruction that does not change the PC.
fn straight(w: &mut Warp, insn: &Instruction) -> R {
    use Instruction as I;
    // Uniform-datapath guard.
    macro_rules! ug {
        ($i:expr) => {
            if !up(w, $i.upg, $i.upg_not) {
                return Ok(None);
            }
        };
    }
    match insn {
        // ---- miscellaneous (misc.isa) ----
        I::S2rI(i) => {
            for l in lanes_of(part(w, i.pg, i.pg_not)) {
                let v = w.sreg(i.sreg, l);
                w.set_reg(i.rd, l, v);
            }
        }
        I::Cs2rI(i) => {
            for l in lanes_of(part(w, i.pg, i.pg_not)) {
                let v = w.sreg64(i.sreg, l);
                w.set_reg64(i.rd, l, v);
            }
        }
        I::S2urI(i) => {
            // A lane-dependent register reads as the first participating lane sees it.
            let p = part(w, i.pg, i.pg_not);
            if p != 0 {
                let v = w.sreg(i.sreg, p.trailing_zeros() as usize);
                w.set_ureg(i.urd, v);
            }
        }
        I::PmtrigI(i) => {
            return Ok(event(
                part(w, i.pg, i.pg_not),
                EventKind::PmTrig(i.vb.get()),
            ))
        }
        I::SetregRi(i) => {
            for l in lanes_of(part(w, i.pg, i.pg_not)) {
                let v = w.reg(i.ra, l);
                w.setreg(i.regaddr.get(), v);
            }
        }
        I::SetregRr(i) => {
            for l in lanes_of(part(w, i.pg, i.pg_not)) {
                let (a, v) = (w.reg(i.rb, l), w.reg(i.ra, l));
                w.setreg(a, v);
            }
        }
        I::SetregRu(i) => {
            let a = w.ureg(i.urb);
            for l in lanes_of(part(w, i.pg, i.pg_not)) {
                let v = w.reg(i.ra, l);
                w.setreg(a, v);
            }
        }
        I::GetregI(i) => {
            for l in lanes_of(part(w, i.pg, i.pg_not)) {
                let v = w.getreg(i.regaddr.get(), l);
                w.set_reg(i.rd, l, v);
            }
        }
        I::GetregR(i) => {
            for l in lanes_of(part(w, i.pg, i.pg_not)) {
                let v = w.getreg(w.reg(i.rb, l), l);
                w.set_reg(i.rd, l, v);
            }
        }
        I::GetregU(i) => {
            let a = w.ureg(i.urb);
            for l in lanes_of(part(w, i.pg, i.pg_not)) {
                let v = w.getreg(a, l);
                w.set_reg(i.rd, l, v);
            }
        }
        I::SwitchR(i) => {
            let p = part(w, i.pg, i.pg_not);
            let v = if p == 0 {
                0
            } else {
                w.reg(i.rb, p.trailing_zeros() as usize)
            };
            return Ok(event(p, EventKind::Switch(v)));
        }
        I::SwitchC(i) => {
            let p = part(w, i.pg, i.pg_not);
            let v = cm32(w, i.vb)?;
            return Ok(event(p, EventKind::Switch(v)));
        }
        I::SwitchI(i) => {
            return Ok(event(
                part(w, i.pg, i.pg_not),
                EventKind::Switch(i.hidx.get()),
            ))
        }
        I::NopX(_) | I::IbbarX(_) | I::DepbarI(_) => {}
        // ---- branch-unit instructions that do not branch ----
        I::BmovX(i) => {
            let p = part(w, i.pg, i.pg_not);
            let b = w.breg[i.breg as usize];
            for l in lanes_of(p) {
                w.set_reg(i.rd, l, b);
            }
            if i.clear == BrClear::Clear && p != 0 {
                w.breg[i.breg as usize] = 0;
            }
        }
        I::BmovR(i) => {
            let p = part(w, i.pg, i.pg_not);
            if p != 0 {
                w.breg[i.breg as usize] = w.reg(i.ra, p.trailing_zeros() as usize);
            }
        }
        I::RttX(i) => return Ok(event(part(w, i.pg, i.pg_not), EventKind::Rtt)),
        I::SyscallX(i) => return Ok(event(part(w, i.pg, i.pg_not), EventKind::Syscall)),
        I::TrapI(i) => {
            return Ok(event(
                part(w, i.pg, i.pg_not),
                EventKind::Trap(i.hidx.get()),
            ))
        }
        I::TrapR(i) => {
            let p = part(w, i.pg, i.pg_not);
            let v = if p == 0 {
                0
            } else {
                w.reg(i.rb, p.trailing_zeros() as usize)
            };
            return Ok(event(p, EventKind::Trap(v)));
        }
        I::TrapC(i) => {
            let p = part(w, i.pg, i.pg_not);
            let v = cm32(w, i.vb)?;
            return Ok(event(p, EventKind::Trap(v)));
        }
        // ---- warp collectives (sync.isa) ----
        I::ShflRrr(i) => {
            let (b, c) = (w.reg_lanes(i.rb), w.reg_lanes(i.rc));
            sync::shfl(w, part(w, i.pg, i.pg_not), i.mode, i.pu, i.rd, i.ra, &b, &c);
        }
        I::ShflRri(i) => {
            let b = w.reg_lanes(i.rb);
            sync::shfl(
                w,
                part(w, i.pg, i.pg_not),
                i.mode,
                i.pu,
                i.rd,
                i.ra,
                &b,
                &bcast(u32::from(i.vc.get())),
            );
        }
        I::ShflRir(i) => {
            let c = w.reg_lanes(i.rc);
            sync::shfl(
                w,
                part(w, i.pg, i.pg_not),
                i.mode,
                i.pu,
                i.rd,
                i.ra,
                &bcast(u32::from(i.vb.get())),
                &c,
            );
        }
        I::ShflRi(i) => sync::shfl(
            w,
            part(w, i.pg, i.pg_not),
            i.mode,
            i.pu,
            i.rd,
            i.ra,
            &bcast(u32::from(i.vb.get())),
            &bcast(u32::from(i.vc.get())),
        ),
        I::MovmR(i) => sync::movm(w, part(w, i.pg, i.pg_not), i.rd, i.ra),
        I::VoteX(i) => {
            let input = pv(w, i.pp, i.pp_not);
            sync::vote_r(w, part(w, i.pg, i.pg_not), i.voteop, input, i.rd, i.pu);
        }
        I::VoteuX(i) => {
            let input = pv(w, i.pp, i.pp_not);
            sync::vote_u(w, part(w, i.pg, i.pg_not), i.voteop, input, i.urd, i.upu);
        }
        I::ReduxR(i) => {
            let p = part(w, i.pg, i.pg_not);
            if p != 0 {
                let src = w.reg_lanes(i.ra);
                let r = sync::redux(i.reduxop, i.dtype, p, &src);
                w.set_reg_bcast(i.rd, p, r);
            }
        }
        I::ReduxuR(i) => {
            let p = part(w, i.pg, i.pg_not);
            if p != 0 {
                let src = w.reg_lanes(i.ra);
                let r = sync::redux(i.reduxop, i.dtype, p, &src);
                w.set_ureg(i.urd, r);
            }
        }
        I::MatchR(i) => sync::match_(
            w,
            part(w, i.pg, i.pg_not),
            i.matchop,
            i.dtype,
            i.rd,
            i.pu,
            i.ra,
        ),
        I::ElectX(i) => {
            let p = part(w, i.pg, i.pg_not);
            let leader = sync::elect_leader(p & pv(w, i.pp, i.pp_not));
            w.set_reg_bcast(i.rd, p, leader);
            elect_write(w, p, leader, i.pu);
        }
        I::ElectU(i) => {
            let p = part(w, i.pg, i.pg_not);
            let leader = sync::elect_leader(p & (w.ureg(i.urb) ^ inv(i.urb_bitnot)));
            w.set_reg_bcast(i.rd, p, leader);
            elect_write(w, p, leader, i.pu);
        }
        I::ElectuX(i) => {
            let p = part(w, i.pg, i.pg_not);
            let leader = sync::elect_leader(p & pv(w, i.pp, i.pp_not));
            if p != 0 {
                w.set_ureg(i.urd, leader);
            }
            elect_write(w, p, leader, i.pu);
        }
        I::ElectuU(i) => {
            let p = part(w, i.pg, i.pg_not);
            let leader = sync::elect_leader(p & (w.ureg(i.urb) ^ inv(i.urb_bitnot)));
            if p != 0 {
                w.set_ureg(i.urd, leader);
            }
            elect_write(w, p, leader, i.pu);
        }
        // ---- uniform datapath (udp.isa) ----
        I::UldcU(i) => {
            ug!(i);
            let size = match i.dtype {
                MemdType::U8 | MemdType::S8 => 1,
                MemdType::U16 | MemdType::S16 => 2,
                MemdType::V32 => 4,
                MemdType::V64 => 8,
                MemdType::V128 => 16,
            };
            let v = cmem(w, i.vb, w.ureg(i.ura), size)?;
            let n = i.urd.bits() as usize;
            match i.dtype {
                MemdType::U8 => w.set_ureg_n(n, v as u8 as u32),
                MemdType::S8 => w.set_ureg_n(n, v as u8 as i8 as i32 as u32),
                MemdType::U16 => w.set_ureg_n(n, v as u16 as u32),
                MemdType::S16 => w.set_ureg_n(n, v as u16 as i16 as i32 as u32),
                _ => {
                    // A register past UR62 is dropped by `set_ureg_n`.
                    for k in 0..size / 4 {
                        w.set_ureg_n(n + k, (v >> (32 * k)) as u32);
                    }
                }
            }
        }
        I::UiaddUu(i) => {
            ug!(i);
            let (a, b) = (w.ureg(i.ura), w.ureg(i.urb));
            uiadd(
                w, i.urd, i.upu, a, i.ura_neg, b, i.urb_neg, i.ext, i.upp, i.upp_not,
            );
        }
        I::UiaddUi(i) => {
            ug!(i);
            let a = w.ureg(i.ura);
            uiadd(
                w,
                i.urd,
                i.upu,
                a,
                i.ura_neg,
                i.vb.get() as u32,
                SignModi::False,
                i.ext,
                i.upp,
                i.upp_not,
            );
        }
        I::UiaddUc(i) => {
            ug!(i);
            let (a, b) = (w.ureg(i.ura), cm32(w, i.vb)?);
            uiadd(
                w, i.urd, i.upu, a, i.ura_neg, b, i.vb_neg, i.ext, i.upp, i.upp_not,
            );
        }
        I::UimadUuu(i) => {
            ug!(i);
            let (a, b, c) = (w.ureg(i.ura), w.ureg(i.urb), w.ureg(i.urc));
            uimad(
                w, i.urd, i.upu, a, b, c, i.urc_neg, i.lohi, i.ext, i.itype, i.upp, i.upp_not,
            );
        }
        I::UimadUui(i) => {
            ug!(i);
            let (a, b) = (w.ureg(i.ura), w.ureg(i.urb));
            uimad(
                w,
                i.urd,
                i.upu,
                a,
                b,
                i.vc.get() as u32,
                SignModi::False,
                i.lohi,
                i.ext,
                i.itype,
                i.upp,
                i.upp_not,
            );
        }
        I::UimadUiu(i) => {
            ug!(i);
            let (a, c) = (w.ureg(i.ura), w.ureg(i.urc));
            uimad(
                w,
                i.urd,
                i.upu,
                a,
                i.vb.get() as u32,
                c,
                i.urc_neg,
                i.lohi,
                i.ext,
                i.itype,
                i.upp,
                i.upp_not,
            );
        }
        I::UimadUuc(i) => {
            ug!(i);
            let (a, b, c) = (w.ureg(i.ura), w.ureg(i.urb), cm32(w, i.vc)?);
            uimad(
                w, i.urd, i.upu, a, b, c, i.vc_neg, i.lohi, i.ext, i.itype, i.upp, i.upp_not,
            );
        }
        I::UimadUcu(i) => {
            ug!(i);
            let (a, b, c) = (w.ureg(i.ura), cm32(w, i.vb)?, w.ureg(i.urc));
            uimad(
                w, i.urd, i.upu, a, b, c, i.urc_neg, i.lohi, i.ext, i.itype, i.upp, i.upp_not,
            );
        }
        I::UimadWideUuu(i) => {
            ug!(i);
            let (a, b, c) = (w.ureg(i.ura), w.ureg(i.urb), w.ureg64(i.urc));
            uimad_wide(
                w, i.urd, i.upu, a, b, c, i.urc_neg, i.ext, i.itype, i.upp, i.upp_not,
            );
        }
        I::UimadWideUiu(i) => {
            ug!(i);
            let (a, c) = (w.ureg(i.ura), w.ureg64(i.urc));
            uimad_wide(
                w,
                i.urd,
                i.upu,
                a,
                i.vb.get() as u32,
                c,
                i.urc_neg,
                i.ext,
                i.itype,
                i.upp,
                i.upp_not,
            );
        }
        I::UimadWideUuc(i) => {
            // [D12] executed as .WIDE: 64-bit SrcC and URd despite its Bitwidth of 32.
            ug!(i);
            let (a, b, c) = (w.ureg(i.ura), w.ureg(i.urb), cm64(w, i.vc)?);
            uimad_wide(
                w, i.urd, i.upu, a, b, c, i.vc_neg, i.ext, i.itype, i.upp, i.upp_not,
            );
        }
        I::UimadWideUcu(i) => {
            ug!(i);
            let (a, b, c) = (w.ureg(i.ura), cm32(w, i.vb)?, w.ureg64(i.urc));
            uimad_wide(
                w, i.urd, i.upu, a, b, c, i.urc_neg, i.ext, i.itype, i.upp, i.upp_not,
            );
        }
        I::UimulUu(i) => {
            ug!(i);
            let (a, b) = (w.ureg(i.ura), w.ureg(i.urb));
            uimul(w, i.urd, a, b, i.urb_neg, i.lohi, i.itype);
        }
        I::UimulUi(i) => {
            ug!(i);
            let a = w.ureg(i.ura);
            uimul(
                w,
                i.urd,
                a,
                i.vb.get() as u32,
                SignModi::False,
                i.lohi,
                i.itype,
            );
        }
        I::UimulUc(i) => {
            ug!(i);
            let (a, b) = (w.ureg(i.ura), cm32(w, i.vb)?);
            uimul(w, i.urd, a, b, i.vb_neg, i.lohi, i.itype);
        }
        I::UleaUuu(i) => {
            ug!(i);
            let (a, b, c) = (w.ureg(i.ura), w.ureg(i.urb), w.ureg(i.urc));
            ulea(
                w,
                i.urd,
                i.upu,
                a,
                i.ura_neg,
                b,
                i.urb_neg,
                c,
                i.shiftamt.get(),
                i.lohi,
                i.ext,
                i.sx32,
                i.upp,
                i.upp_not,
            );
        }
        I::UleaUiu(i) => {
            ug!(i);
            let (a, c) = (w.ureg(i.ura), w.ureg(i.urc));
            ulea(
                w,
                i.urd,
                i.upu,
                a,
                i.ura_neg,
                i.vb.get() as u32,
                SignModi::False,
                c,
                i.shiftamt.get(),
                i.lohi,
                i.ext,
                i.sx32,
                i.upp,
                i.upp_not,
            );
        }
        I::UleaUcu(i) => {
            ug!(i);
            let (a, b, c) = (w.ureg(i.ura), cm32(w, i.vb)?, w.ureg(i.urc));
            ulea(
                w,
                i.urd,
                i.upu,
                a,
                i.ura_neg,
                b,
                i.vb_neg,
                c,
                i.shiftamt.get(),
                i.lohi,
                i.ext,
                i.sx32,
                i.upp,
                i.upp_not,
            );
        }
        I::UiabsU(i) => {
            ug!(i);
            let v = (w.ureg(i.urb) as i32).wrapping_abs() as u32;
            w.set_ureg(i.urd, v);
        }
        I::UiabsI(i) => {
            ug!(i);
            w.set_ureg(i.urd, i.vb.get().wrapping_abs() as u32);
        }
        I::UiabsC(i) => {
            ug!(i);
            let v = (cm32(w, i.vb)? as i32).wrapping_abs() as u32;
            w.set_ureg(i.urd, v);
        }
        I::UimnmxUu(i) => {
            ug!(i);
            let (a, b, m) = (w.ureg(i.ura), w.ureg(i.urb), up(w, i.upp, i.upp_not));
            uimnmx(w, i.urd, a, b, i.itype, m);
        }
        I::UimnmxUi(i) => {
            ug!(i);
            let (a, m) = (w.ureg(i.ura), up(w, i.upp, i.upp_not));
            uimnmx(w, i.urd, a, i.vb.get() as u32, i.itype, m);
        }
        I::UimnmxUc(i) => {
            ug!(i);
            let (a, b, m) = (w.ureg(i.ura), cm32(w, i.vb)?, up(w, i.upp, i.upp_not));
            uimnmx(w, i.urd, a, b, i.itype, m);
        }
        I::Up2urUu(i) => {
            ug!(i);
            let (a, m) = (w.ureg(i.ura), w.ureg(i.urb));
            up2ur(w, i.urd, a, i.bsel.bits(), m);
        }
        I::Up2urUi(i) => {
            ug!(i);
            let a = w.ureg(i.ura);
            up2ur(w, i.urd, a, i.bsel.bits(), i.vb.get() as u32);
        }
        I::Up2urUc(i) => {
            ug!(i);
            let (a, m) = (w.ureg(i.ura), cm32(w, i.vb)?);
            up2ur(w, i.urd, a, i.bsel.bits(), m);
        }
        I::Ur2upUu(i) => {
            ug!(i);
            let (a, m) = (w.ureg(i.ura), w.ureg(i.urb));
            ur2up(w, a, i.ura_bsel.bits(), m);
        }
        I::Ur2upUi(i) => {
            ug!(i);
            let a = w.ureg(i.ura);
            ur2up(w, a, i.ura_bsel.bits(), i.vb.get() as u32);
        }
        I::Ur2upUc(i) => {
            ug!(i);
            let (a, m) = (w.ureg(i.ura), cm32(w, i.vb)?);
            ur2up(w, a, i.ura_bsel.bits(), m);
        }
        I::UisetpUu(i) => {
            ug!(i);
            let b = w.ureg(i.urb);
            uisetp(w, uisetp_args!(w, i), b);
        }
        I::UisetpUi(i) => {
            ug!(i);
            uisetp(w, uisetp_args!(w, i), i.vb.get() as u32);
        }
        I::UisetpUc(i) => {
            ug!(i);
            let b = cm32(w, i.vb)?;
            uisetp(w, uisetp_args!(w, i), b);
        }
        I::UselUu(i) => {
            ug!(i);
            let v = if up(w, i.upp, i.upp_not) {
                w.ureg(i.ura)
            } else {
                w.ureg(i.urb)
            };
            w.set_ureg(i.urd, v);
        }
        I::UselUi(i) => {
            ug!(i);
            let v = if up(w, i.upp, i.upp_not) {
                w.ureg(i.ura)
            } else {
                i.vb.get() as u32
            };
            w.set_ureg(i.urd, v);
        }
        I::UselUc(i) => {
            ug!(i);
            let b = cm32(w, i.vb)?;
            let v = if up(w, i.upp, i.upp_not) {
                w.ureg(i.ura)
            } else {
                b
            };
            w.set_ureg(i.urd, v);
        }
        I::Ulop3Uuu(i) => {
            ug!(i);
            let (a, b, c, p) = (
                w.ureg(i.ura),
                w.ureg(i.urb),
                w.ureg(i.urc),
                up(w, i.upp, i.upp_not),
            );
            ulop3(w, i.urd, i.upu, a, b, c, i.lut.get(), i.exbool, p);
        }
        I::Ulop3Uiu(i) => {
            ug!(i);
            let (a, c, p) = (w.ureg(i.ura), w.ureg(i.urc), up(w, i.upp, i.upp_not));
            ulop3(
                w,
                i.urd,
                i.upu,
                a,
                i.vb.get() as u32,
                c,
                i.lut.get(),
                i.exbool,
                p,
            );
        }
        I::Ulop3Ucu(i) => {
            ug!(i);
            let (a, b, c, p) = (
                w.ureg(i.ura),
                cm32(w, i.vb)?,
                w.ureg(i.urc),
                up(w, i.upp, i.upp_not),
            );
            ulop3(w, i.urd, i.upu, a, b, c, i.lut.get(), i.exbool, p);
        }
        I::Uplop3X(i) => {
            ug!(i);
            let a = u32::from(up(w, i.upa, i.upa_not));
            let b = u32::from(up(w, i.upb, i.upb_not));
            let c = u32::from(up(w, i.upc, i.upc_not));
            // The LUT's index: a, b, c are 0 or 1 (their bits never overlap).
            w.set_upred(i.upu, i.lut.get() >> (a * 4 + b * 2 + c) & 1 == 1);
        }
        I::UshfUuu(i) => {
            ug!(i);
            let (a, b, c) = (w.ureg(i.ura), w.ureg(i.urb), w.ureg(i.urc));
            w.set_ureg(
                i.urd,
                udp::shf(a, b, c, i.direction, i.lohi == Lohi::Hi, i.itype, i.cwmod),
            );
        }
        I::UshfUiu(i) => {
            ug!(i);
            let (a, c) = (w.ureg(i.ura), w.ureg(i.urc));
            w.set_ureg(
                i.urd,
                udp::shf(
                    a,
                    i.vb.get() as u32,
                    c,
                    i.direction,
                    i.lohi == Lohi::Hi,
                    i.itype,
                    i.cwmod,
                ),
            );
        }
        I::UshfUui(i) => {
            ug!(i);
            let (a, b) = (w.ureg(i.ura), w.ureg(i.urb));
            w.set_ureg(
                i.urd,
                udp::shf(
                    a,
                    b,
                    i.vc.get() as u32,
                    i.direction,
                    i.lohi == Lohi::Hi,
                    i.itype,
                    i.cwmod,
                ),
            );
        }
        I::UshfUuc(i) => {
            ug!(i);
            let (a, b, c) = (w.ureg(i.ura), w.ureg(i.urb), cm32(w, i.vc)?);
            w.set_ureg(
                i.urd,
                udp::shf(a, b, c, i.direction, i.lohi == Lohi::Hi, i.itype, i.cwmod),
            );
        }
        I::UshfUcu(i) => {
            ug!(i);
            let (a, b, c) = (w.ureg(i.ura), cm32(w, i.vb)?, w.ureg(i.urc));
            w.set_ureg(
                i.urd,
                udp::shf(a, b, c, i.direction, i.lohi == Lohi::Hi, i.itype, i.cwmod),
            );
        }
        I::UmovU(i) => {
            ug!(i);
            match i.width {
                Movw::V32 => {
                    let v = w.ureg(i.urb);
                    w.set_ureg(i.urd, v);
                }
                Movw::V64 => {
                    let v = w.ureg64(i.urb);
                    w.set_ureg64(i.urd, v);
                }
            }
        }
        I::UmovI(i) => {
            ug!(i);
            w.set_ureg(i.urd, i.vb.get() as u32);
        }
        I::UmovC(i) => {
            ug!(i);
            match i.width {
                Movw::V32 => {
                    let v = cm32(w, i.vb)?;
                    w.set_ureg(i.urd, v);
                }
                Movw::V64 => {
                    let v = cm64(w, i.vb)?;
                    w.set_ureg64(i.urd, v);
                }
            }
        }
        I::UprmtUuu(i) => {
            ug!(i);
            let (a, b, c) = (w.ureg(i.ura), w.ureg(i.urb), w.ureg(i.urc));
            w.set_ureg(i.urd, udp::prmt(a, b, c, i.mode));
        }
        I::UprmtUui(i) => {
            ug!(i);
            let (a, b) = (w.ureg(i.ura), w.ureg(i.urb));
            w.set_ureg(i.urd, udp::prmt(a, b, i.vc.get() as u32, i.mode));
        }
        I::UprmtUiu(i) => {
            ug!(i);
            let (a, c) = (w.ureg(i.ura), w.ureg(i.urc));
            w.set_ureg(i.urd, udp::prmt(a, i.vb.get() as u32, c, i.mode));
        }
        I::UprmtUuc(i) => {
            ug!(i);
            let (a, b, c) = (w.ureg(i.ura), w.ureg(i.urb), cm32(w, i.vc)?);
            w.set_ureg(i.urd, udp::prmt(a, b, c, i.mode));
        }
        I::UprmtUcu(i) => {
            ug!(i);
            let (a, b, c) = (w.ureg(i.ura), cm32(w, i.vb)?, w.ureg(i.urc));
            w.set_ureg(i.urd, udp::prmt(a, b, c, i.mode));
        }
        // [D16] population count (the spec's loop shifts `a` instead of SrcB).
        I::UpopcU(i) => {
            ug!(i);
            let v = (w.ureg(i.urb) ^ inv(i.urb_bitnot)).count_ones();
            w.set_ureg(i.urd, v);
        }
        I::UpopcI(i) => {
            ug!(i);
            w.set_ureg(i.urd, (i.vb.get() as u32).count_ones());
        }
        I::UpopcC(i) => {
            ug!(i);
            let v = (cm32(w, i.vb)? ^ inv(i.vb_bitnot)).count_ones();
            w.set_ureg(i.urd, v);
        }
        I::UfloU(i) => {
            ug!(i);
            let b = w.ureg(i.urb) ^ inv(i.urb_bitnot);
            uflo(w, i.urd, b, i.itype, i.sh);
        }
        I::UfloI(i) => {
            ug!(i);
            uflo(w, i.urd, i.vb.get() as u32, i.itype, i.sh);
        }
        I::UfloC(i) => {
            ug!(i);
            let b = cm32(w, i.vb)? ^ inv(i.vb_bitnot);
            uflo(w, i.urd, b, i.itype, i.sh);
        }
        // [D14] UBREV reverses the bit order (the spec says `~SrcB`).
        I::UbrevU(i) => {
            ug!(i);
            let v = w.ureg(i.urb).reverse_bits();
            w.set_ureg(i.urd, v);
        }
        I::UbrevI(i) => {
            ug!(i);
            w.set_ureg(i.urd, (i.vb.get() as u32).reverse_bits());
        }
        I::UbrevC(i) => {
            ug!(i);
            let v = cm32(w, i.vb)?.reverse_bits();
            w.set_ureg(i.urd, v);
        }
        I::UbmskUu(i) => {
            ug!(i);
            let (a, b) = (w.ureg(i.ura), w.ureg(i.urb));
            w.set_ureg(i.urd, udp::bmsk(a, b, i.cwmode));
        }
        I::UbmskUi(i) => {
            ug!(i);
            let a = w.ureg(i.ura);
            w.set_ureg(i.urd, udp::bmsk(a, i.vb.get() as u32, i.cwmode));
        }
        I::UbmskUc(i) => {
            ug!(i);
            let (a, b) = (w.ureg(i.ura), cm32(w, i.vb)?);
            w.set_ureg(i.urd, udp::bmsk(a, b, i.cwmode));
        }
        I::UsgxtUu(i) => {
            ug!(i);
            let (a, b) = (w.ureg(i.ura), w.ureg(i.urb));
            w.set_ureg(i.urd, udp::sgxt(a, b, i.itype == IType::S32, i.cwmode));
        }
        I::UsgxtUi(i) => {
            ug!(i);
            let a = w.ureg(i.ura);
            w.set_ureg(
                i.urd,
                udp::sgxt(a, i.vb.get() as u32, i.itype == IType::S32, i.cwmode),
            );
        }
        I::UsgxtUc(i) => {
            ug!(i);
            let (a, b) = (w.ureg(i.ura), cm32(w, i.vb)?);
            w.set_ureg(i.urd, udp::sgxt(a, b, i.itype == IType::S32, i.cwmode));
        }
        I::SetugprUiu(i) => {
            ug!(i);
            let n = ur_index(w, i.urb, i.uridx)?;
            let v = w.ureg(i.ura);
            w.set_ureg_n(n, v);
        }
        I::GetugprUi(i) => {
            ug!(i);
            let n = ur_index(w, i.urb, i.uridx)?;
            let v = w.ureg_n(n);
            w.set_ureg(i.urd, v);
        }
        I::Uf2fpUuu(i) => {
            ug!(i);
            let (a, b) = (w.ureg(i.ura), w.ureg(i.urb));
            uf2fp(w, i.urd, a, b);
        }
        I::Uf2fpUcu(i) => {
            ug!(i);
            let (a, b) = (w.ureg(i.ura), cm32(w, i.vb)?);
            uf2fp(w, i.urd, a, b);
        }
        // Handled by `execute`.
        I::BraU(_)
        | I::BraX(_)
        | I::BrxR(_)
        | I::BrxU(_)
        | I::BrxC(_)
        | I::CallR(_)
        | I::CallU(_)
        | I::CallC(_)
        | I::RetR(_)
        | I::RetU(_)
        | I::RetC(_)
        | I::LepcI(_)
        | I::ExitX(_)
        | I::BssyI(_)
        | I::BsyncX(_)
        | I::YieldX(_)
        | I::BreakX(_)
        | I::WarpsyncR(_)
        | I::WarpsyncU(_)
        | I::WarpsyncI(_)
        | I::WarpsyncC(_)
        | I::NanosleepR(_)
        | I::NanosleepU(_)
        | I::NanosleepI(_)
        | I::NanosleepC(_) => {}
    }
    Ok(None)
}

/// ELECT's `pu`: true for the leader only.
#[inline]
fn elect_write(w: &mut Warp, p: u32, leader: u32, pu: isa::Pred) {
    let lm = if leader < 32 { 1u32 << leader } else { 0 };
    w.set_pred_lanes(pu, p, lm);
}
