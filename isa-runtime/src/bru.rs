//! The branch unit and its SIMT model (bru.isa): BRA, BRX, CALL/RET, LEPC, EXIT,
//! BMOV, BSSY, BSYNC, YIELD, BREAK, WARPSYNC, NANOSLEEP.
//!
//! Every function here leaves `active_pc` at the next instruction to run. The
//! numbered comments `[Dn]` refer to the deviations listed in the crate docs.

use isa::{BraCond, PModi, Pred};

use crate::machine::{EventKind, FaultKind};
use crate::warp::{lanes_of, Warp, CYCLES_PER_NS, INST_SIZE, LANES};

pub(crate) type Ev = Option<(EventKind, u32)>;

/// All ones when the sub-field says "negate".
#[inline]
pub(crate) fn not_mask(n: PModi) -> u32 {
    if n == PModi::True {
        u32::MAX
    } else {
        0
    }
}

/// `pgv` over all lanes (not yet restricted to `ActiveMask`).
#[inline]
pub(crate) fn pv(w: &Warp, p: Pred, n: PModi) -> u32 {
    w.pred_mask(p) ^ not_mask(n)
}

/// `pmask = array2mask(pgv & ppv & ActiveMask)`.
#[inline]
pub(crate) fn pmask(w: &Warp, pg: Pred, pg_not: PModi, pp: Pred, pp_not: PModi) -> u32 {
    pv(w, pg, pg_not) & pv(w, pp, pp_not) & w.active_mask
}

/// Lanes whose RPC equals `pc`.
#[inline]
fn rpc_eq(w: &Warp, pc: u64) -> u32 {
    let mut m = 0;
    for (l, r) in w.rpc.iter().enumerate() {
        m |= u32::from(*r == pc) << l;
    }
    m
}

/// `arrivemask = ActiveMask | (ValidMask & array2mask(RPC == ActivePC))`.
#[inline]
fn arrive_mask(w: &Warp) -> u32 {
    w.active_mask | (w.valid_mask & rpc_eq(w, w.active_pc))
}

#[inline]
fn set_rpc(w: &mut Warp, mask: u32, pc: u64) {
    for l in lanes_of(mask) {
        w.rpc[l] = pc;
    }
}

#[inline]
fn next(w: &mut Warp) {
    w.active_pc = w.active_pc.wrapping_add(INST_SIZE);
}

fn deadlock(w: &Warp) -> FaultKind {
    FaultKind::Deadlock {
        valid: w.valid_mask,
        active: w.active_mask,
    }
}

/// `switchPCByMask(cmask)`: run the lowest lane of `cmask` and every lane of `cmask`
/// at the same RPC.
fn switch_pc_by_mask(w: &mut Warp, cmask: u32) -> Result<(), FaultKind> {
    if cmask == 0 {
        return Err(deadlock(w));
    }
    let lid = cmask.trailing_zeros() as usize;
    let target = w.rpc[lid];
    w.active_mask = cmask & rpc_eq(w, target);
    w.active_pc = target;
    Ok(())
}

/// The candidate check shared by every switching instruction. \[D1\] The spec's
/// `(cmask & SleepMask) ^ SleepMask == 0` is read as "every candidate is asleep":
/// `cmask != 0 && cmask & ~SleepMask == 0`. Returns `(do_sleep, cmask)`.
#[inline]
fn sleep_check(w: &Warp, cmask: u32) -> (bool, u32) {
    if cmask != 0 && cmask & !w.sleep_mask == 0 {
        (true, cmask)
    } else {
        (false, cmask & !w.sleep_mask)
    }
}

/// `warpSleep()`: the warp is not scheduled until the timer clears `SleepMask`; with
/// one warp that means the clock jumps to the timer.
fn warp_sleep(w: &mut Warp) -> Ev {
    let from = w.cycle;
    let until = w.timer.take().unwrap_or(from).max(from);
    w.cycle = until;
    w.sleep_mask = 0;
    Some((EventKind::WarpSleep { from, until }, w.active_mask))
}

/// The jump of BRA/BRX/CALL/RET: lanes of `b_jump` (a subset of `ActiveMask`) go to
/// `target(lane)`, the others fall through; a partial jump runs the fall-through
/// first (BRX `__Semantics`).
#[inline]
fn jump(w: &mut Warp, b_jump: u32, target: impl Fn(&Warp, usize) -> u64) {
    let active = w.active_mask;
    if b_jump == 0 {
        next(w);
    } else if b_jump == active {
        let lid = active.trailing_zeros() as usize;
        let pc = target(w, lid);
        let mut stay = 0;
        for l in lanes_of(active) {
            let t = target(w, l);
            if t == pc {
                stay |= 1 << l;
            } else {
                // [D2] only active lanes get a new RPC.
                w.rpc[l] = t;
            }
        }
        w.active_pc = pc;
        w.active_mask = stay;
    } else {
        for l in lanes_of(b_jump) {
            w.rpc[l] = target(w, l);
        }
        next(w);
        // [D2] `ActiveMask = ~b_jump` would wake inactive and exited lanes.
        w.active_mask = active & !b_jump;
    }
}

/// `pc + 16 + offset * 16`: the address a `CvtIShift` operand names (docs/decisions.md).
#[inline]
pub(crate) fn rel_target(pc: u64, offset: i64) -> u64 {
    pc.wrapping_add(INST_SIZE)
        .wrapping_add((offset as u64).wrapping_mul(INST_SIZE))
}

/// The branch mask of BRA, exactly the spec's golden model
/// (`getGoldenBranchCondition`). `pg` is `{!}Pg & {!}Pp` over all lanes; `ur` the
/// UR-operand mask of the `BRA URa` form.
pub fn bra_branch_mask(
    active: u32,
    valid: u32,
    pg: u32,
    cond: BraCond,
    ur: Option<u32>,
) -> Option<u32> {
    let pgv = pg & active;
    match ur {
        None => {
            let is_div = pgv ^ valid != 0;
            Some(match cond {
                BraCond::NoCond => pgv,
                BraCond::U => {
                    if pgv & active == active {
                        active
                    } else {
                        0
                    }
                }
                BraCond::Div => {
                    if is_div {
                        pgv
                    } else {
                        0
                    }
                }
                BraCond::Conv => {
                    if is_div {
                        0
                    } else {
                        pgv
                    }
                }
            })
        }
        Some(ur) => {
            let is_div = if (valid ^ active) & ur != 0 {
                true
            } else if pgv != 0 {
                // The model: `!(pgv & active == active || pgv & active == 0)`; where
                // every active lane is in `pg` (`pgv == active`), `active & !pg` is 0
                // and the answer `false` either way, so only `pgv != 0` is tested.
                active & !pg & ur != 0
            } else {
                false
            };
            match cond {
                BraCond::Div => Some(if pgv != 0 && is_div { active } else { 0 }),
                BraCond::Conv => Some(if pgv != 0 && !is_div { active } else { 0 }),
                // The golden model raises an exception; `validate()` rejects these
                // words at load time, so this is unreachable from a program.
                BraCond::NoCond | BraCond::U => None,
            }
        }
    }
}

/// BRA (both forms).
pub(crate) fn bra(
    w: &mut Warp,
    pg: u32,
    cond: BraCond,
    ur: Option<u32>,
    offset: i64,
) -> Result<Ev, FaultKind> {
    let target = rel_target(w.active_pc, offset);
    // `None` (BRA URa without .DIV/.CONV) cannot come from a program: `validate()`
    // rejects it at load time. Treat it as not taken.
    let bm = bra_branch_mask(w.active_mask, w.valid_mask, pg, cond, ur).unwrap_or(0);
    jump(w, bm, |_, _| target);
    Ok(None)
}

/// BRX/CALL/RET: `b_jump = ActiveMask & pgv & ppv`, per-lane targets.
pub(crate) fn indirect(w: &mut Warp, b_jump: u32, target: impl Fn(&Warp, usize) -> u64) -> Ev {
    jump(w, b_jump, target);
    None
}

/// LEPC: `rd[pmask] = target` (64 bits). \[D3\]
pub(crate) fn lepc(w: &mut Warp, pmask: u32, rd: isa::Reg, offset: i64) -> Ev {
    let v = rel_target(w.active_pc, offset);
    for l in lanes_of(pmask) {
        w.set_reg64(rd, l, v);
    }
    next(w);
    None
}

/// EXIT.
pub(crate) fn exit(w: &mut Warp, pmask: u32) -> Result<Ev, FaultKind> {
    let active = w.active_mask;
    let mask_np = active & !pmask;
    if mask_np != 0 {
        w.valid_mask &= !pmask;
        w.active_mask = mask_np;
        next(w);
        return Ok(None);
    }
    w.valid_mask &= !active;
    if w.valid_mask == 0 {
        // warpExit()
        w.active_mask = 0;
        return Ok(None);
    }
    let (do_sleep, cmask) = sleep_check(w, w.valid_mask);
    let mask_ny = cmask & !w.yield_mask;
    let mask_y = cmask & w.yield_mask;
    let pick = if mask_ny != 0 { mask_ny } else { mask_y };
    if pick == 0 {
        return Err(deadlock(w));
    }
    let lid = pick.trailing_zeros() as usize;
    let target = w.rpc[lid];
    w.active_pc = target;
    w.active_mask = rpc_eq(w, target) & w.valid_mask;
    Ok(if do_sleep { warp_sleep(w) } else { None })
}

/// BSYNC.
pub(crate) fn bsync(w: &mut Warp, pmask: u32, breg: usize) -> Result<Ev, FaultKind> {
    let active = w.active_mask;
    let arrive = arrive_mask(w);
    let mask_np = active & !pmask;
    if mask_np != 0 {
        set_rpc(w, pmask, w.active_pc);
        w.active_mask = mask_np;
        next(w);
        return Ok(None);
    }
    // [D4] lanes that arrived are cleared from the B register, and the result is
    // written back (the spec clears only `ActiveMask` from a local copy).
    let bmask = w.breg[breg] & w.valid_mask & !arrive;
    w.breg[breg] = bmask;
    if bmask == 0 {
        w.active_mask = arrive;
        next(w);
        w.yield_mask &= !w.active_mask;
        return Ok(None);
    }
    let cmask = w.valid_mask & !arrive & !w.yield_mask;
    if cmask != 0 && cmask & !w.sleep_mask == 0 {
        // Every candidate sleeps: yield-release.
        w.active_mask = arrive;
        next(w);
        w.yield_mask &= !pmask;
        return Ok(None);
    }
    let cmask = cmask & !w.sleep_mask;
    let mask_ny_b = cmask & bmask;
    let mask_ny_nb = cmask & !bmask;
    set_rpc(w, active, w.active_pc);
    if mask_ny_b != 0 {
        switch_pc_by_mask(w, mask_ny_b)?;
    } else if mask_ny_nb != 0 {
        switch_pc_by_mask(w, mask_ny_nb)?;
    } else {
        w.active_mask = arrive;
        next(w);
        w.yield_mask &= !pmask;
    }
    Ok(None)
}

/// The switch shared by YIELD and NANOSLEEP when every active lane takes part.
fn yield_switch(w: &mut Warp, sleeping: bool) -> Result<Ev, FaultKind> {
    let active = w.active_mask;
    let others = w.valid_mask ^ active;
    w.switch_mask &= others;
    if w.switch_mask == 0 {
        w.switch_mask = others;
    }
    let (do_sleep, cmask) = sleep_check(w, w.switch_mask);
    let mask_ny = cmask & !w.yield_mask;
    let mask_y = cmask & w.yield_mask;
    let pick = if mask_ny != 0 { mask_ny } else { mask_y };
    if pick == 0 {
        return Err(deadlock(w));
    }
    let lid = pick.trailing_zeros() as usize;
    if sleeping {
        // [D6] NANOSLEEP puts its lanes to sleep (the spec's copy of YIELD sets
        // `YieldMask` instead).
        w.sleep_mask |= active;
    } else {
        w.yield_mask |= active;
    }
    // [D5] the lanes that switch away resume after this instruction.
    set_rpc(w, active, w.active_pc.wrapping_add(INST_SIZE));
    let target = w.rpc[lid];
    w.active_pc = target;
    w.active_mask = rpc_eq(w, target) & others;
    w.switch_mask &= w.valid_mask ^ w.active_mask;
    if w.switch_mask == 0 {
        w.switch_mask = w.valid_mask ^ w.active_mask;
    }
    Ok(if do_sleep { warp_sleep(w) } else { None })
}

/// The guard split of BSYNC/WARPSYNC/YIELD/NANOSLEEP: when some active lanes have
/// the guard false they go on, and the others wait at this instruction.
#[inline]
fn guard_split(w: &mut Warp, pmask: u32) -> bool {
    let mask_np = w.active_mask & !pmask;
    if mask_np != 0 {
        set_rpc(w, pmask, w.active_pc);
        w.active_mask = mask_np;
        next(w);
        true
    } else {
        false
    }
}

/// YIELD.
pub(crate) fn yield_(w: &mut Warp, pmask: u32) -> Result<Ev, FaultKind> {
    if guard_split(w, pmask) {
        return Ok(None);
    }
    if w.valid_mask ^ w.active_mask == 0 {
        next(w);
        return Ok(None);
    }
    yield_switch(w, false)
}

/// NANOSLEEP; `ns[lane]` is the requested time of each lane.
pub(crate) fn nanosleep(
    w: &mut Warp,
    pmask: u32,
    ns: impl Fn(&Warp, usize) -> u32,
) -> Result<Ev, FaultKind> {
    if guard_split(w, pmask) {
        return Ok(None);
    }
    // setTimer: one timer, the shortest request wins.
    let t = lanes_of(pmask).map(|l| ns(w, l)).min().unwrap_or(0);
    let deadline = w.cycle.saturating_add(u64::from(t) * CYCLES_PER_NS);
    w.timer = Some(w.timer.map_or(deadline, |d| d.min(deadline)));
    if w.valid_mask ^ w.active_mask == 0 {
        // The model's `SleepMask |= ActiveMask` here is cleared again by warpSleep
        // before anything reads it.
        next(w);
        return Ok(warp_sleep(w));
    }
    yield_switch(w, true)
}

/// WARPSYNC with one membermask for every lane (`I`, `U`, `C` forms).
pub(crate) fn warpsync_uniform(w: &mut Warp, pmask: u32, mmask: u32) -> Result<Ev, FaultKind> {
    let mmask = mmask & w.valid_mask;
    let arrive = arrive_mask(w);
    if guard_split(w, pmask) {
        return Ok(None);
    }
    if let Some(lane) = lanes_of(w.active_mask & !mmask).next() {
        return Err(FaultKind::WarpsyncNotMember { lane, mask: mmask });
    }
    // [D1] `(arrivemask & mmask) ^ mmask == 0` read as "every member arrived".
    if arrive & mmask == mmask {
        w.active_mask = mmask;
        next(w);
        return Ok(None);
    }
    let (do_sleep, cmask) = sleep_check(w, w.valid_mask & !arrive & mmask);
    let mask_m_ny = cmask & !w.yield_mask;
    let mask_m_y = cmask & w.yield_mask;
    set_rpc(w, w.active_mask, w.active_pc);
    switch_pc_by_mask(w, if mask_m_ny != 0 { mask_m_ny } else { mask_m_y })?;
    Ok(if do_sleep { warp_sleep(w) } else { None })
}

/// WARPSYNC with a per-lane membermask (`R` form, grouped synchronisation).
pub(crate) fn warpsync_lanes(
    w: &mut Warp,
    pmask: u32,
    mmask_of: impl Fn(&Warp, usize) -> u32,
) -> Result<Ev, FaultKind> {
    let arrive = arrive_mask(w);
    if guard_split(w, pmask) {
        return Ok(None);
    }
    let valid = w.valid_mask;
    let mut mm = [0u32; LANES];
    for l in lanes_of(arrive) {
        mm[l] = mmask_of(w, l) & valid;
    }
    for l in lanes_of(w.active_mask) {
        if mm[l] >> l & 1 == 0 {
            return Err(FaultKind::WarpsyncNotMember {
                lane: l,
                mask: mm[l],
            });
        }
    }
    // [D7] only lanes that arrived have a membermask; a group is released when its
    // members have all arrived.
    let mut synced = 0u32;
    for l in lanes_of(arrive) {
        if mm[l] & !arrive == 0 {
            synced |= 1 << l;
        }
    }
    if synced != 0 {
        let lid = synced.trailing_zeros() as usize;
        let amask = mm[lid];
        if let Some(other) = lanes_of(amask).find(|&o| mm[o] != amask) {
            return Err(FaultKind::WarpsyncMaskMismatch {
                lane: lid,
                mask: amask,
                other,
                other_mask: mm[other],
            });
        }
        let active = w.active_mask;
        set_rpc(w, active & !amask, w.active_pc);
        next(w);
        w.active_mask = amask;
        return Ok(None);
    }
    // [D7] `array_or(mmask) ^ arrivemask` meant the members that have not arrived.
    let mut wanted = 0u32;
    for l in lanes_of(arrive) {
        wanted |= mm[l];
    }
    let (do_sleep, cmask) = sleep_check(w, wanted & !arrive & valid);
    let mask_ny = cmask & !w.yield_mask;
    let mask_y = cmask & w.yield_mask;
    let pick = if mask_ny != 0 { mask_ny } else { mask_y };
    if pick == 0 {
        return Err(deadlock(w));
    }
    let lid = pick.trailing_zeros() as usize;
    set_rpc(w, w.active_mask, w.active_pc);
    let target = w.rpc[lid];
    w.active_pc = target;
    w.active_mask = rpc_eq(w, target) & valid;
    Ok(if do_sleep { warp_sleep(w) } else { None })
}

/// BSSY: `breg |= pmask`.
pub(crate) fn bssy(w: &mut Warp, pmask: u32, breg: usize) -> Ev {
    w.breg[breg] |= pmask;
    next(w);
    None
}

/// BREAK: `breg &= ~pmask`.
pub(crate) fn break_(w: &mut Warp, pmask: u32, breg: usize) -> Ev {
    w.breg[breg] &= !pmask;
    next(w);
    None
}
