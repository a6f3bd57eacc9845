//! Warp collectives (sync.isa): SHFL, MOVM, VOTE, VOTEU, REDUX, REDUXU, MATCH, ELECT,
//! ELECTU. The participants are the active lanes whose guard predicate is true;
//! only they write per-lane results, and a uniform result is written when at least
//! one lane takes part.

use isa::{MatchOp, MatchdType, Pred, ReduxOp, ReduxdType, Reg, ShflMode, UPred, UReg, VoteOp};

use crate::warp::{Warp, LANES};

/// The PTX `shfl` source lane and predicate for one lane: `(j, pval)`; `j` is the lane
/// itself when `pval` is false. The one statement of SHFL's lane rule: the simulator's
/// SHFL calls it for every lane (inlined, with `mode` constant, so the loop vectorises).
#[inline(always)]
pub fn shfl_lane(mode: ShflMode, lane: u32, b: u32, c: u32) -> (u32, bool) {
    let bval = (b & 0x1f) as i32;
    let cval = (c & 0x1f) as i32;
    let segmask = ((c >> 8) & 0x1f) as i32;
    let lane = lane as i32;
    let max_lane = (lane & segmask) | (cval & !segmask);
    let min_lane = lane & segmask;
    let (j, p) = match mode {
        ShflMode::Up => {
            let j = lane - bval;
            (j, j >= max_lane)
        }
        ShflMode::Down => {
            let j = lane + bval;
            (j, j <= max_lane)
        }
        ShflMode::Bfly => {
            let j = lane ^ bval;
            (j, j <= max_lane)
        }
        ShflMode::Idx => {
            let j = min_lane | (bval & !segmask);
            (j, j <= max_lane)
        }
    };
    // Branch-free, so that the caller's loop over lanes vectorises.
    ((if p { j } else { lane }) as u32, p)
}

/// SHFL. `b`/`c` are the per-lane SrcB/SrcC values. A source lane that is inactive or
/// predicated off gives the value its register holds (PTX leaves it undefined).
#[allow(clippy::too_many_arguments)]
#[inline]
pub(crate) fn shfl(
    w: &mut Warp,
    part: u32,
    mode: ShflMode,
    pu: Pred,
    rd: Reg,
    ra: Reg,
    b: &[u32; LANES],
    c: &[u32; LANES],
) {
    let src = w.reg_lanes(ra);
    // Source lane and predicate of every lane (branch-free, so it vectorises), then
    // the gather.
    let mut jj = [0u32; LANES];
    let mut ok = [0u32; LANES];
    macro_rules! each {
        ($mode:expr) => {
            for l in 0..LANES {
                let (j, p) = shfl_lane($mode, l as u32, b[l], c[l]);
                jj[l] = j & 31;
                ok[l] = u32::from(p);
            }
        };
    }
    match mode {
        ShflMode::Idx => each!(ShflMode::Idx),
        ShflMode::Up => each!(ShflMode::Up),
        ShflMode::Down => each!(ShflMode::Down),
        ShflMode::Bfly => each!(ShflMode::Bfly),
    }
    let mut out = [0u32; LANES];
    let mut pmask = 0u32;
    for l in 0..LANES {
        out[l] = src[(jj[l] & 31) as usize];
        pmask |= ok[l] << l;
    }
    w.set_reg_masked(rd, part, &out);
    w.set_pred_lanes(pu, part, pmask);
}

/// MOVM: PTX `movmatrix.sync.aligned.m8n8.trans.b16`. Lane `l` holds row `l / 4`,
/// columns `2 * (l % 4)` and `+1` of an 8×8 matrix of 16-bit elements (low half
/// first); the result holds the same place of the transposed matrix.
pub(crate) fn movm(w: &mut Warp, part: u32, rd: Reg, ra: Reg) {
    let src = w.reg_lanes(ra);
    let elem =
        |row: usize, col: usize| -> u32 { src[row * 4 + col / 2] >> (16 * (col % 2)) & 0xffff };
    let mut out = [0u32; LANES];
    for (l, o) in out.iter_mut().enumerate() {
        let row = l / 4;
        let col = 2 * (l % 4);
        *o = elem(col, row) | elem(col + 1, row) << 16;
    }
    w.set_reg_masked(rd, part, &out);
}

/// The VOTE result over `ballot` (participants whose input is true) of `part`.
#[inline]
pub fn vote(op: VoteOp, part: u32, ballot: u32) -> bool {
    match op {
        VoteOp::Any => ballot != 0,
        VoteOp::All => ballot == part,
        VoteOp::Eq => ballot == 0 || ballot == part,
    }
}

/// REDUX over the lanes of `part` of a register row, as the instruction computes it
/// (branch-free per lane: a lane outside `part` contributes the operation's identity,
/// so an empty `part` gives the identity). A testbench's reference for the
/// instruction: the simulator's own computation, not a copy of it.
pub fn redux(op: ReduxOp, ty: ReduxdType, part: u32, src: &[u32; LANES]) -> u32 {
    let signed = ty == ReduxdType::S32;
    let on = |l: usize| part >> l & 1 == 1;
    let mut acc: u32;
    match op {
        ReduxOp::And => {
            acc = u32::MAX;
            for (l, v) in src.iter().enumerate() {
                acc &= if on(l) { *v } else { u32::MAX };
            }
        }
        ReduxOp::Or | ReduxOp::Xor | ReduxOp::Sum => {
            acc = 0;
            for (l, v) in src.iter().enumerate() {
                let x = if on(l) { *v } else { 0 };
                acc = match op {
                    ReduxOp::Or => acc | x,
                    ReduxOp::Xor => acc ^ x,
                    _ => acc.wrapping_add(x),
                };
            }
        }
        ReduxOp::Max | ReduxOp::Min => {
            // Bias signed values so one unsigned comparison does both.
            let bias = if signed { 0x8000_0000 } else { 0 };
            let max = op == ReduxOp::Max;
            let id = if max { 0 } else { u32::MAX };
            acc = id;
            if max {
                for (l, v) in src.iter().enumerate() {
                    acc = acc.max(if on(l) { *v ^ bias } else { id });
                }
            } else {
                for (l, v) in src.iter().enumerate() {
                    acc = acc.min(if on(l) { *v ^ bias } else { id });
                }
            }
            acc ^= bias;
        }
    }
    acc
}

/// VOTE Rd, pu, {!}pp.
pub(crate) fn vote_r(w: &mut Warp, part: u32, op: VoteOp, input: u32, rd: Reg, pu: Pred) {
    let ballot = input & part;
    let r = vote(op, part, ballot);
    w.set_reg_bcast(rd, part, ballot);
    w.set_pred_lanes(pu, part, if r { u32::MAX } else { 0 });
}

/// VOTEU URd, upu, {!}pp.
pub(crate) fn vote_u(w: &mut Warp, part: u32, op: VoteOp, input: u32, urd: UReg, upu: UPred) {
    if part == 0 {
        return;
    }
    let ballot = input & part;
    w.set_ureg(urd, ballot);
    w.set_upred(upu, vote(op, part, ballot));
}

/// MATCH.
pub(crate) fn match_(
    w: &mut Warp,
    part: u32,
    op: MatchOp,
    ty: MatchdType,
    rd: Reg,
    pu: Pred,
    ra: Reg,
) {
    let mut v = [0u64; LANES];
    match ty {
        MatchdType::U32 => {
            for (d, x) in v.iter_mut().zip(w.reg_lanes(ra)) {
                *d = u64::from(x);
            }
        }
        MatchdType::U64 => {
            let hi = (ra.bits().checked_add(1).and_then(Reg::new))
                .map_or([0; LANES], |h| w.reg_lanes(h));
            for ((d, x), h) in v.iter_mut().zip(w.reg_lanes(ra)).zip(hi) {
                *d = u64::from(x) | u64::from(h) << 32;
            }
        }
    }
    match op {
        MatchOp::Any => {
            // Group the participants by value: each group is found once.
            let mut out = [0u32; LANES];
            let mut left = part;
            while left != 0 {
                let key = v[left.trailing_zeros() as usize & 31];
                let mut eq = [0u32; LANES];
                for (e, x) in eq.iter_mut().zip(v.iter()) {
                    *e = u32::from(*x == key);
                }
                let mut group = 0u32;
                for (o, e) in eq.iter().enumerate() {
                    group |= e << o;
                }
                group &= part;
                for (o, d) in out.iter_mut().enumerate() {
                    if group >> o & 1 == 1 {
                        *d = group;
                    }
                }
                left &= !group;
            }
            w.set_reg_masked(rd, part, &out);
            // "初始化输出 Rd = 0, pu = false": .ANY leaves pu false.
            w.set_pred_lanes(pu, part, 0);
        }
        MatchOp::All => {
            let first = v[part.trailing_zeros() as usize & 31];
            let mut same = 0u32;
            for (l, x) in v.iter().enumerate() {
                same |= u32::from(*x == first) << l;
            }
            let all = part & !same == 0;
            w.set_reg_bcast(rd, part, if all { part } else { 0 });
            w.set_pred_lanes(pu, part, if all { u32::MAX } else { 0 });
        }
    }
}

/// The ELECT leader among `candidates`: its lane number, `0xFFFFFFFF` when none.
#[inline]
pub fn elect_leader(candidates: u32) -> u32 {
    if candidates == 0 {
        u32::MAX
    } else {
        candidates.trailing_zeros()
    }
}
