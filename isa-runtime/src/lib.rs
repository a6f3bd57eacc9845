//! Execution semantics of the ISA: the state of one warp.
//!
//! This crate holds the hand-written semantics; the instruction set itself comes from the
//! generated `isa` crate. [`Warp`] models the architectural state DESIGN.md describes:
//! 32 lanes with per-lane general-purpose registers and predicates, per-warp uniform
//! registers and predicates, B registers and the thread masks. Register accessors apply the
//! constant-register rules (`RZ`/`URZ` read 0, `PT`/`UPT` read true, writes to them are
//! dropped) so instruction semantics never special-case them.

use isa::{Pred, Reg, UPred, UReg};

/// Lanes per warp.
pub const LANES: usize = 32;

/// Architectural state of one warp.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Warp {
    /// `gpr[r][lane]` for R0..R254.
    gpr: Vec<[u32; LANES]>,
    /// Bit `lane` of `pred[p]` for P0..P6.
    pred: [u32; 7],
    /// UR0..UR62.
    ur: [u32; 63],
    /// Bit `p` for UP0..UP6.
    upred: u8,
    /// B0..B15.
    pub breg: [u32; 16],
    /// Lanes that have not exited.
    pub valid_mask: u32,
    /// Lanes executing at `active_pc`.
    pub active_mask: u32,
    /// Lanes in the YIELD state.
    pub yield_mask: u32,
    /// Lanes asleep (NANOSLEEP).
    pub sleep_mask: u32,
    /// Branch-selection helper mask of YIELD.
    pub switch_mask: u32,
    /// PC of the active lanes.
    pub active_pc: u64,
    /// Per-lane resume PC of inactive lanes.
    pub rpc: [u64; LANES],
}

impl Default for Warp {
    fn default() -> Self {
        Warp::new(u32::MAX)
    }
}

impl Warp {
    /// A warp whose lanes in `valid_mask` are alive and active at PC 0, every register 0.
    pub fn new(valid_mask: u32) -> Warp {
        Warp {
            gpr: vec![[0; LANES]; 255],
            pred: [0; 7],
            ur: [0; 63],
            upred: 0,
            breg: [0; 16],
            valid_mask,
            active_mask: valid_mask,
            yield_mask: 0,
            sleep_mask: 0,
            switch_mask: 0,
            active_pc: 0,
            rpc: [0; LANES],
        }
    }

    /// `R` in `lane` (`RZ` reads 0).
    pub fn reg(&self, r: Reg, lane: usize) -> u32 {
        self.gpr.get(r.bits() as usize).map_or(0, |v| v[lane])
    }

    /// Writes `R` in `lane` (a write to `RZ` is dropped).
    pub fn set_reg(&mut self, r: Reg, lane: usize, value: u32) {
        if let Some(v) = self.gpr.get_mut(r.bits() as usize) {
            v[lane] = value;
        }
    }

    /// Predicate `P` in `lane` (`PT` reads true).
    pub fn pred(&self, p: Pred, lane: usize) -> bool {
        self.pred
            .get(p.bits() as usize)
            .is_none_or(|m| m >> lane & 1 == 1)
    }

    /// Writes predicate `P` in `lane` (a write to `PT` is dropped).
    pub fn set_pred(&mut self, p: Pred, lane: usize, value: bool) {
        if let Some(m) = self.pred.get_mut(p.bits() as usize) {
            *m = (*m & !(1 << lane)) | (u32::from(value) << lane);
        }
    }

    /// Uniform register (`URZ` reads 0).
    pub fn ureg(&self, r: UReg) -> u32 {
        self.ur.get(r.bits() as usize).copied().unwrap_or(0)
    }

    /// Writes a uniform register (a write to `URZ` is dropped).
    pub fn set_ureg(&mut self, r: UReg, value: u32) {
        if let Some(v) = self.ur.get_mut(r.bits() as usize) {
            *v = value;
        }
    }

    /// Uniform predicate (`UPT` reads true).
    pub fn upred(&self, p: UPred) -> bool {
        let i = p.bits();
        i >= 7 || self.upred >> i & 1 == 1
    }

    /// Writes a uniform predicate (a write to `UPT` is dropped).
    pub fn set_upred(&mut self, p: UPred, value: bool) {
        let i = p.bits();
        if i < 7 {
            self.upred = (self.upred & !(1 << i)) | (u8::from(value) << i);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
