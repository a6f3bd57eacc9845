//! Warp collectives (sync.isa): SHFL, MOVM, VOTE, VOTEU, REDUX, REDUXU, MATCH, ELECT,
//! ELECTU. The participants are the active lanes whose guard predicate is true;
//! only they write per-lane results, and a uniform result is written when at least
//! one lane takes part.

use isa::{MatchOp, MatchdType, Pred, ReduxOp, ReduxdType, Reg, ShflMode, UPred, UReg, VoteOp};

use crate::warp::{lanes_of, Warp, LANES};

/// The PTX `shfl` source lane and predicate for one lane: `(j, pval)`.
#[inline]
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
    if p {
        (j as u32, true)
    } else {
        (lane as u32, false)
    }
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
    let mut out = [0u32; LANES];
    let mut pmask = 0u32;
    for l in lanes_of(part) {
        let (j, p) = shfl_lane(mode, l as u32, b[l], c[l]);
        out[l] = src[j as usize];
        pmask |= u32::from(p) << l;
    }
    for l in lanes_of(part) {
        w.set_reg(rd, l, out[l]);
    }
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
    for l in lanes_of(part) {
        let row = l / 4;
        let col = 2 * (l % 4);
        out[l] = elem(col, row) | elem(col + 1, row) << 16;
    }
    for l in lanes_of(part) {
        w.set_reg(rd, l, out[l]);
    }
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

/// REDUX over the participants' values.
pub fn redux(op: ReduxOp, ty: ReduxdType, values: impl Iterator<Item = u32>) -> u32 {
    let signed = ty == ReduxdType::S32;
    let mut acc: Option<u32> = None;
    for v in values {
        acc = Some(match acc {
            None => v,
            Some(a) => match op {
                ReduxOp::And => a & v,
                ReduxOp::Or => a | v,
                ReduxOp::Xor => a ^ v,
                ReduxOp::Sum => a.wrapping_add(v),
                ReduxOp::Max if signed => (a as i32).max(v as i32) as u32,
                ReduxOp::Max => a.max(v),
                ReduxOp::Min if signed => (a as i32).min(v as i32) as u32,
                ReduxOp::Min => a.min(v),
            },
        });
    }
    acc.unwrap_or(0)
}

/// VOTE Rd, pu, {!}pp.
pub(crate) fn vote_r(w: &mut Warp, part: u32, op: VoteOp, input: u32, rd: Reg, pu: Pred) {
    let ballot = input & part;
    let r = vote(op, part, ballot);
    for l in lanes_of(part) {
        w.set_reg(rd, l, ballot);
    }
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
    for l in lanes_of(part) {
        v[l] = match ty {
            MatchdType::U32 => u64::from(w.reg(ra, l)),
            MatchdType::U64 => w.reg64(ra, l),
        };
    }
    match op {
        MatchOp::Any => {
            let mut out = [0u32; LANES];
            for l in lanes_of(part) {
                out[l] = lanes_of(part)
                    .filter(|&o| v[o] == v[l])
                    .fold(0, |m, o| m | 1 << o);
            }
            for l in lanes_of(part) {
                w.set_reg(rd, l, out[l]);
            }
            // "初始化输出 Rd = 0, pu = false": .ANY leaves pu false.
            w.set_pred_lanes(pu, part, 0);
        }
        MatchOp::All => {
            let first = part.trailing_zeros() as usize;
            let all = lanes_of(part).all(|l| v[l] == v[first]);
            for l in lanes_of(part) {
                w.set_reg(rd, l, if all { part } else { 0 });
            }
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
