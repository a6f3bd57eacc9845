//! The architectural state of one warp.

use std::collections::BTreeMap;

use isa::{Pred, Reg, SReg, UPred, UReg};

/// Lanes per warp.
pub const LANES: usize = 32;
/// Bytes per instruction.
pub const INST_SIZE: u64 = 16;
/// Number of constant-memory banks (`CMem` has a 5-bit bank number).
pub const CMEM_BANKS: usize = 32;
/// Bytes per constant-memory bank (64 KiB).
pub const CMEM_BANK_SIZE: usize = 0x1_0000;
/// Simulated cycles per nanosecond (NANOSLEEP, `SR_GLOBALTIME*`): the spec's target
/// clock is about 1 GHz.
pub const CYCLES_PER_NS: u64 = 1;

/// Iterates the set bits of a mask, lowest first.
#[inline]
pub fn lanes_of(mut mask: u32) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if mask == 0 {
            None
        } else {
            let l = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            Some(l)
        }
    })
}

/// Constant memory: 32 banks of 64 KiB, read-only to programs, zero until set.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConstMem {
    banks: Vec<Option<Box<[u8]>>>,
}

impl ConstMem {
    /// Reads `size` (≤ 16) bytes little-endian at `addr` of `bank`, or `None` when the
    /// access leaves the bank.
    pub fn read(&self, bank: u8, addr: i64, size: usize) -> Option<u128> {
        let bank = bank as usize;
        if bank >= CMEM_BANKS || addr < 0 || addr as u64 + size as u64 > CMEM_BANK_SIZE as u64 {
            return None;
        }
        let Some(Some(data)) = self.banks.get(bank) else {
            return Some(0);
        };
        let a = addr as usize;
        let mut v = 0u128;
        for (k, b) in data[a..a + size].iter().enumerate() {
            v |= u128::from(*b) << (8 * k);
        }
        Some(v)
    }

    /// Writes a 32-bit word little-endian at `addr` of `bank` (the state file's way in).
    /// Returns `false` when the word does not fit in the bank.
    pub fn write_u32(&mut self, bank: u8, addr: u32, value: u32) -> bool {
        let bank = bank as usize;
        if bank >= CMEM_BANKS || addr as usize + 4 > CMEM_BANK_SIZE {
            return false;
        }
        // All banks at the first write (a no-op after it).
        self.banks.resize(CMEM_BANKS, None);
        let data = self.banks[bank].get_or_insert_with(|| vec![0u8; CMEM_BANK_SIZE].into());
        data[addr as usize..addr as usize + 4].copy_from_slice(&value.to_le_bytes());
        true
    }

    /// Every non-zero aligned 32-bit word, as `(bank, address, value)`.
    pub fn words(&self) -> Vec<(u8, u32, u32)> {
        let mut out = Vec::new();
        for (b, data) in self.banks.iter().enumerate() {
            let Some(data) = data else { continue };
            for (k, w) in data.chunks_exact(4).enumerate() {
                let v = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
                if v != 0 {
                    out.push((b as u8, 4 * k as u32, v));
                }
            }
        }
        out
    }
}

/// Whether a special register is computed by the simulator (read-only) rather than
/// stored.
pub fn sreg_is_computed(s: SReg) -> bool {
    matches!(
        s,
        SReg::SrLaneid
            | SReg::SrEqmask
            | SReg::SrLtmask
            | SReg::SrLemask
            | SReg::SrGtmask
            | SReg::SrGemask
            | SReg::SrClocklo
            | SReg::SrClockhi
            | SReg::SrGlobaltimelo
            | SReg::SrGlobaltimehi
            | SReg::Srz
    )
}

/// Which registers, predicates, uniform registers and predicates and special
/// registers were written: since the warp was made (what a report lists), or by one
/// step (what an observer is told).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Written {
    pub(crate) gpr: [u64; 4],
    pub(crate) pred: u8,
    pub(crate) ur: u64,
    pub(crate) upred: u8,
    pub(crate) sreg: [u64; 4],
}

/// Architectural state of one warp.
///
/// Register accessors apply the constant-register rules (`RZ`/`URZ` read 0, `PT`/`UPT`
/// read true, writes to them are dropped), so instruction semantics never
/// special-case them. Registers that were written are remembered (see
/// [`Warp::gpr_touched`]) so a report can list them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Warp {
    /// `gpr[r][lane]` for R0..R254.
    pub(crate) gpr: Box<[[u32; LANES]; 255]>,
    /// Bit `r` set: R`r` was written (or set by the caller).
    pub(crate) gpr_touched: [u64; 4],
    /// Bit `lane` of `pred[p]` for P0..P6.
    pub(crate) pred: [u32; 7],
    pub(crate) pred_touched: u8,
    /// UR0..UR62.
    pub(crate) ur: [u32; 63],
    pub(crate) ur_touched: u64,
    /// Bit `p` for UP0..UP6.
    pub(crate) upred: u8,
    pub(crate) upred_touched: u8,
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
    /// Branch-selection helper mask of YIELD/NANOSLEEP.
    pub switch_mask: u32,
    /// PC of the active lanes.
    pub active_pc: u64,
    /// Per-lane resume PC of inactive lanes.
    pub rpc: [u64; LANES],
    /// Constant memory.
    pub cmem: ConstMem,
    /// Stored (warp-uniform) special registers, by `SReg` code.
    pub(crate) sreg: [u32; 256],
    /// Codes of stored special registers that were set or written.
    pub(crate) sreg_touched: [u64; 4],
    /// The GETREG/SETREG address space beyond the special registers (addresses
    /// ≥ 0x100); unwritten addresses read 0.
    pub regspace: BTreeMap<u32, u32>,
    /// Simulated cycle counter (one per executed instruction; sleeping advances it).
    pub cycle: u64,
    /// Cycle at which the NANOSLEEP timer clears `sleep_mask`, if running.
    pub timer: Option<u64>,
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
            gpr: Box::new([[0; LANES]; 255]),
            gpr_touched: [0; 4],
            pred: [0; 7],
            pred_touched: 0,
            ur: [0; 63],
            ur_touched: 0,
            upred: 0,
            upred_touched: 0,
            breg: [0; 16],
            valid_mask,
            active_mask: valid_mask,
            yield_mask: 0,
            sleep_mask: 0,
            switch_mask: 0,
            active_pc: 0,
            rpc: [0; LANES],
            cmem: ConstMem::default(),
            sreg: [0; 256],
            sreg_touched: [0; 4],
            regspace: BTreeMap::new(),
            cycle: 0,
            timer: None,
        }
    }

    /// `R` in `lane` (`RZ` reads 0).
    #[inline]
    pub fn reg(&self, r: Reg, lane: usize) -> u32 {
        self.reg_n(r.bits() as usize, lane)
    }

    /// Register number `n` (255 and above read 0) in `lane`.
    #[inline]
    pub fn reg_n(&self, n: usize, lane: usize) -> u32 {
        match self.gpr.get(n) {
            Some(v) => v[lane],
            None => 0,
        }
    }

    /// All 32 lanes of `R` (`RZ` reads zeros).
    #[inline]
    pub fn reg_lanes(&self, r: Reg) -> [u32; LANES] {
        match self.gpr.get(r.bits() as usize) {
            Some(v) => *v,
            None => [0; LANES],
        }
    }

    /// 64-bit value of the pair `R[r:r+1]` in `lane` (registers past R254 read 0).
    #[inline]
    pub fn reg64(&self, r: Reg, lane: usize) -> u64 {
        let n = r.bits() as usize;
        u64::from(self.reg_n(n, lane)) | u64::from(self.reg_n(n + 1, lane)) << 32
    }

    /// Writes `R` in `lane` (a write to `RZ` is dropped).
    #[inline]
    pub fn set_reg(&mut self, r: Reg, lane: usize, value: u32) {
        self.set_reg_n(r.bits() as usize, lane, value);
    }

    /// Writes register number `n` in `lane` (255 and above are dropped).
    #[inline]
    pub fn set_reg_n(&mut self, n: usize, lane: usize, value: u32) {
        if let Some(v) = self.gpr.get_mut(n) {
            v[lane] = value;
            self.gpr_touched[n / 64] |= 1 << (n % 64);
        }
    }

    /// Writes `R` in the lanes of `mask` from the same lanes of `values`.
    #[inline]
    pub fn set_reg_masked(&mut self, r: Reg, mask: u32, values: &[u32; LANES]) {
        let n = r.bits() as usize;
        if let Some(row) = self.gpr.get_mut(n) {
            for (l, (d, v)) in row.iter_mut().zip(values).enumerate() {
                if mask >> l & 1 == 1 {
                    *d = *v;
                }
            }
            self.gpr_touched[n / 64] |= 1 << (n % 64);
        }
    }

    /// Writes `value` to `R` in the lanes of `mask`.
    #[inline]
    pub fn set_reg_bcast(&mut self, r: Reg, mask: u32, value: u32) {
        self.set_reg_masked(r, mask, &[value; LANES]);
    }

    /// Writes the pair `R[r:r+1]` in `lane`.
    #[inline]
    pub fn set_reg64(&mut self, r: Reg, lane: usize, value: u64) {
        let n = r.bits() as usize;
        self.set_reg_n(n, lane, value as u32);
        if n < 255 {
            self.set_reg_n(n + 1, lane, (value >> 32) as u32);
        }
    }

    /// Predicate `P` in `lane` (`PT` reads true).
    #[inline]
    pub fn pred(&self, p: Pred, lane: usize) -> bool {
        self.pred_mask(p) >> lane & 1 == 1
    }

    /// Predicate `P` of every lane as a mask (`PT` reads all ones).
    #[inline]
    pub fn pred_mask(&self, p: Pred) -> u32 {
        match self.pred.get(p.bits() as usize) {
            Some(m) => *m,
            None => u32::MAX,
        }
    }

    /// Writes predicate `P` in `lane` (a write to `PT` is dropped).
    #[inline]
    pub fn set_pred(&mut self, p: Pred, lane: usize, value: bool) {
        self.set_pred_lanes(p, 1 << lane, if value { u32::MAX } else { 0 });
    }

    /// Writes predicate `P` in the lanes of `lanes` from the same bits of `values`.
    #[inline]
    pub fn set_pred_lanes(&mut self, p: Pred, lanes: u32, values: u32) {
        let i = p.bits() as usize;
        if let Some(m) = self.pred.get_mut(i) {
            *m = (*m & !lanes) | (values & lanes);
            self.pred_touched |= 1 << i;
        }
    }

    /// Uniform register (`URZ` reads 0).
    #[inline]
    pub fn ureg(&self, r: UReg) -> u32 {
        self.ureg_n(r.bits() as usize)
    }

    /// Uniform register number `n` (63 and above read 0).
    #[inline]
    pub fn ureg_n(&self, n: usize) -> u32 {
        self.ur.get(n).copied().unwrap_or(0)
    }

    /// 64-bit value of `UR[r:r+1]`.
    #[inline]
    pub fn ureg64(&self, r: UReg) -> u64 {
        let n = r.bits() as usize;
        u64::from(self.ureg_n(n)) | u64::from(self.ureg_n(n + 1)) << 32
    }

    /// Writes a uniform register (a write to `URZ` is dropped).
    #[inline]
    pub fn set_ureg(&mut self, r: UReg, value: u32) {
        self.set_ureg_n(r.bits() as usize, value);
    }

    /// Writes uniform register number `n` (63 and above are dropped).
    #[inline]
    pub fn set_ureg_n(&mut self, n: usize, value: u32) {
        if let Some(v) = self.ur.get_mut(n) {
            *v = value;
            self.ur_touched |= 1 << n;
        }
    }

    /// Writes `UR[r:r+1]` (of `URZ`, nothing; the half past `UR62` is dropped).
    #[inline]
    pub fn set_ureg64(&mut self, r: UReg, value: u64) {
        let n = r.bits() as usize;
        self.set_ureg_n(n, value as u32);
        self.set_ureg_n(n + 1, (value >> 32) as u32);
    }

    /// Uniform predicate (`UPT` reads true).
    #[inline]
    pub fn upred(&self, p: UPred) -> bool {
        let i = p.bits();
        i >= 7 || self.upred >> i & 1 == 1
    }

    /// Writes a uniform predicate (a write to `UPT` is dropped).
    #[inline]
    pub fn set_upred(&mut self, p: UPred, value: bool) {
        let i = p.bits();
        if i < 7 {
            if value {
                self.upred |= 1 << i;
            } else {
                self.upred &= !(1 << i);
            }
            self.upred_touched |= 1 << i;
        }
    }

    /// UP0..UP6 packed (bit `i` = UP`i`), with bit 7 = `UPT` (true).
    #[inline]
    pub fn upr(&self) -> u8 {
        self.upred | 0x80
    }

    /// Registers R`n` that were written or set, in order.
    pub fn gpr_touched(&self) -> impl Iterator<Item = usize> + '_ {
        (0..255).filter(|n| self.gpr_touched[n / 64] >> (n % 64) & 1 == 1)
    }

    /// Predicates P`n` that were written or set.
    pub fn pred_touched(&self) -> impl Iterator<Item = usize> + '_ {
        (0..7).filter(|n| self.pred_touched >> n & 1 == 1)
    }

    /// Uniform registers UR`n` that were written or set.
    pub fn ureg_touched(&self) -> impl Iterator<Item = usize> + '_ {
        (0..63).filter(|n| self.ur_touched >> n & 1 == 1)
    }

    /// Uniform predicates UP`n` that were written or set.
    pub fn upred_touched(&self) -> impl Iterator<Item = usize> + '_ {
        (0..7).filter(|n| self.upred_touched >> n & 1 == 1)
    }

    /// Stored special registers that were set or written.
    pub fn sreg_touched(&self) -> impl Iterator<Item = SReg> + '_ {
        SReg::ALL
            .iter()
            .copied()
            .filter(|s| self.sreg_touched[s.bits() as usize / 64] >> (s.bits() % 64) & 1 == 1)
    }

    /// Sets a special register. Computed ones (lane id, lane masks, clocks, `SRZ`) are
    /// not stored: the write is dropped and `false` returned.
    pub fn set_sreg(&mut self, s: SReg, value: u32) -> bool {
        if sreg_is_computed(s) {
            return false;
        }
        let i = s.bits() as usize;
        self.sreg[i] = value;
        self.sreg_touched[i / 64] |= 1 << (i % 64);
        true
    }

    /// The value of a special register as `lane` reads it.
    pub fn sreg(&self, s: SReg, lane: usize) -> u32 {
        let bit = 1u32 << lane;
        let time_ns = self.cycle / CYCLES_PER_NS;
        match s {
            SReg::SrLaneid => lane as u32,
            SReg::SrEqmask => bit,
            SReg::SrLtmask => bit - 1,
            SReg::SrLemask => bit | (bit - 1),
            SReg::SrGtmask => !(bit | (bit - 1)),
            SReg::SrGemask => !(bit - 1),
            SReg::SrClocklo => self.cycle as u32,
            SReg::SrClockhi => (self.cycle >> 32) as u32,
            SReg::SrGlobaltimelo => time_ns as u32,
            SReg::SrGlobaltimehi => (time_ns >> 32) as u32,
            SReg::Srz => 0,
            _ => self.sreg[s.bits() as usize],
        }
    }

    /// The 64-bit value CS2R reads: `SR_CLOCKLO`/`SR_GLOBALTIMELO` with their `HI`
    /// halves, `SR_PMn` with `SR_PM_HIn`, any other register zero-extended.
    pub fn sreg64(&self, s: SReg, lane: usize) -> u64 {
        let hi = match s {
            SReg::SrClocklo => Some(SReg::SrClockhi),
            SReg::SrGlobaltimelo => Some(SReg::SrGlobaltimehi),
            _ => {
                let pm0 = SReg::SrPm0.bits();
                let b = s.bits();
                if (pm0..pm0 + 8).contains(&b) {
                    SReg::from_bits(b + 8)
                } else {
                    None
                }
            }
        };
        u64::from(self.sreg(s, lane)) | hi.map_or(0, |h| u64::from(self.sreg(h, lane)) << 32)
    }

    /// GETREG: address `addr` of the register address space. Addresses below 0x100
    /// are the special registers by `SReg` code (undefined codes read 0); the rest is
    /// a store of 32-bit registers that read 0 until written.
    pub fn getreg(&self, addr: u32, lane: usize) -> u32 {
        if addr < 0x100 {
            SReg::from_bits(addr as u8).map_or(0, |s| self.sreg(s, lane))
        } else {
            self.regspace.get(&addr).copied().unwrap_or(0)
        }
    }

    /// SETREG: writes address `addr` (writes to computed or undefined special
    /// registers are dropped).
    pub fn setreg(&mut self, addr: u32, value: u32) {
        if addr < 0x100 {
            if let Some(s) = SReg::from_bits(addr as u8) {
                self.set_sreg(s, value);
            }
        } else {
            self.regspace.insert(addr, value);
        }
    }

    /// Clears the "written" sets and returns them, so that the next step's writes can
    /// be told apart; [`Warp::merge_written`] puts them back.
    pub(crate) fn take_written(&mut self) -> Written {
        let w = self.written();
        self.gpr_touched = [0; 4];
        self.pred_touched = 0;
        self.ur_touched = 0;
        self.upred_touched = 0;
        self.sreg_touched = [0; 4];
        w
    }

    /// Adds `earlier` back to the "written" sets; returns what was written since
    /// [`Warp::take_written`].
    pub(crate) fn merge_written(&mut self, earlier: Written) -> Written {
        let now = self.written();
        for k in 0..4 {
            self.gpr_touched[k] |= earlier.gpr[k];
            self.sreg_touched[k] |= earlier.sreg[k];
        }
        self.pred_touched |= earlier.pred;
        self.ur_touched |= earlier.ur;
        self.upred_touched |= earlier.upred;
        now
    }

    fn written(&self) -> Written {
        Written {
            gpr: self.gpr_touched,
            pred: self.pred_touched,
            ur: self.ur_touched,
            upred: self.upred_touched,
            sreg: self.sreg_touched,
        }
    }

    /// True when every valid lane has exited.
    pub fn exited(&self) -> bool {
        self.valid_mask == 0
    }
}
