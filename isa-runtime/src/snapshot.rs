//! A copy of a warp's architectural state, kept to tell whether the warp came back to
//! a state it was in (livelock detection).
//!
//! The state is everything that decides what the warp does next: registers,
//! predicates, uniform registers and predicates, B registers, the five thread masks,
//! `ActivePC`, the per-lane RPC, the stored special registers, the GETREG/SETREG
//! store and the NANOSLEEP timer. The cycle counter is not part of it (the timer is
//! kept as the cycles it has left), nor are the step count, the events and the
//! "register was written" bookkeeping. Constant memory is read-only to programs.

use std::collections::BTreeMap;

use crate::warp::{Warp, LANES};

/// See the module docs.
#[derive(Clone, Debug)]
pub(crate) struct Snapshot {
    gpr: Box<[[u32; LANES]; 255]>,
    /// Rows of `gpr` that were ever written; the others are zero in both copies.
    gpr_touched: [u64; 4],
    pred: [u32; 7],
    ur: [u32; 63],
    upred: u8,
    breg: [u32; 16],
    valid_mask: u32,
    active_mask: u32,
    yield_mask: u32,
    sleep_mask: u32,
    switch_mask: u32,
    active_pc: u64,
    rpc: [u64; LANES],
    sreg: [u32; 256],
    regspace: BTreeMap<u32, u32>,
    /// Cycles until the timer fires (the deadline is absolute, the counter is not state).
    timer_left: Option<u64>,
}

fn timer_left(w: &Warp) -> Option<u64> {
    w.timer.map(|t| t.saturating_sub(w.cycle))
}

/// The rows set in either bitset, in increasing order.
fn rows(a: &[u64; 4], b: &[u64; 4]) -> impl Iterator<Item = usize> {
    let both = [a[0] | b[0], a[1] | b[1], a[2] | b[2], a[3] | b[3]];
    (0..4).flat_map(move |k| {
        let mut bits = both[k];
        std::iter::from_fn(move || {
            (bits != 0).then(|| {
                let n = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                64 * k + n
            })
        })
    })
}

impl Snapshot {
    /// A copy of `w`'s state.
    pub(crate) fn of(w: &Warp) -> Snapshot {
        Snapshot {
            gpr: w.gpr.clone(),
            gpr_touched: w.gpr_touched,
            pred: w.pred,
            ur: w.ur,
            upred: w.upred,
            breg: w.breg,
            valid_mask: w.valid_mask,
            active_mask: w.active_mask,
            yield_mask: w.yield_mask,
            sleep_mask: w.sleep_mask,
            switch_mask: w.switch_mask,
            active_pc: w.active_pc,
            rpc: w.rpc,
            sreg: w.sreg,
            regspace: w.regspace.clone(),
            timer_left: timer_left(w),
        }
    }

    /// Replaces the copy by `w`'s state (reusing the register buffer).
    pub(crate) fn capture(&mut self, w: &Warp) {
        for n in rows(&self.gpr_touched, &w.gpr_touched) {
            self.gpr[n] = w.gpr[n];
        }
        self.gpr_touched = w.gpr_touched;
        self.pred = w.pred;
        self.ur = w.ur;
        self.upred = w.upred;
        self.breg = w.breg;
        self.valid_mask = w.valid_mask;
        self.active_mask = w.active_mask;
        self.yield_mask = w.yield_mask;
        self.sleep_mask = w.sleep_mask;
        self.switch_mask = w.switch_mask;
        self.active_pc = w.active_pc;
        self.rpc = w.rpc;
        self.sreg = w.sreg;
        self.regspace.clone_from(&w.regspace);
        self.timer_left = timer_left(w);
    }

    /// Whether `w` is in the copied state. The cheap, most often different parts are
    /// compared first.
    pub(crate) fn same_as(&self, w: &Warp) -> bool {
        self.active_pc == w.active_pc
            && self.active_mask == w.active_mask
            && self.valid_mask == w.valid_mask
            && self.yield_mask == w.yield_mask
            && self.sleep_mask == w.sleep_mask
            && self.switch_mask == w.switch_mask
            && self.timer_left == timer_left(w)
            && self.upred == w.upred
            && self.breg == w.breg
            && self.pred == w.pred
            && self.ur == w.ur
            && self.rpc == w.rpc
            && rows(&self.gpr_touched, &w.gpr_touched).all(|n| self.gpr[n] == w.gpr[n])
            && self.sreg == w.sreg
            && self.regspace == w.regspace
    }
}
