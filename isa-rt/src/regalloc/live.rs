//! Liveness per register unit, as segments of program points.
//!
//! Units are numbered: first every virtual value's units (value by value), then every
//! file's physical registers. Liveness is found unit by unit from the uses that no
//! earlier write in their block covers, walking predecessors until a block writes the
//! unit unconditionally: the work is proportional to the liveness found, not to
//! blocks times units. A guarded write does not end a life: it reads the old value
//! too (the lanes whose guard is false keep it).

use alloc::vec;
use alloc::vec::Vec;

use super::cfg::Cfg;
use super::{Function, Loc, Operand};

/// Where no segment ends (a unit not live in the current scan).
const NONE: u32 = u32::MAX;

/// The live segments of every unit.
#[derive(Clone, Debug)]
pub struct Liveness {
    /// First unit of each virtual value.
    pub vbase: Vec<u32>,
    /// First unit of each file's physical registers.
    pub pbase: Vec<u32>,
    /// Segments of unit `u`: `segs[at[u]..at[u + 1]]`, sorted, disjoint, as half-open
    /// ranges of program points.
    pub at: Vec<u32>,
    /// The segments.
    pub segs: Vec<(u32, u32)>,
    /// The first of the points standing for divergent regions (region `k` is point
    /// `region_points + 2k`, past the function's own): a unit of a shared file live
    /// anywhere in a region has a segment at its point too, so all such units
    /// interfere.
    pub region_points: u32,
}

impl Liveness {
    /// The liveness of every unit of `f`.
    pub fn new(f: &Function, cfg: &Cfg) -> Liveness {
        let (vbase, pbase) = super::unit_bases(f);
        let units = pbase[f.files.len()] as usize;
        let first_unit = |op: &Operand| -> u32 {
            match op.loc {
                Loc::Virtual { value, unit } => vbase[value as usize] + u32::from(unit),
                Loc::Fixed { file, reg } => pbase[file as usize] + u32::from(reg),
            }
        };
        let blocks = cfg.len();

        // 1. Per block: uses no earlier write of the block covers, and full writes.
        let mut killed_in = vec![u32::MAX; units];
        let mut exposed: Vec<(u32, u32)> = Vec::new();
        let mut kills: Vec<Vec<u32>> = vec![Vec::new(); blocks];
        for (b, kill) in kills.iter_mut().enumerate() {
            for i in cfg.start[b] as usize..cfg.start[b + 1] as usize {
                let ops = f.operands(i);
                for op in ops.iter().filter(|o| o.usage.read || o.usage.conditional) {
                    let u0 = first_unit(op);
                    for u in u0..u0 + u32::from(op.count) {
                        if killed_in[u as usize] != b as u32 {
                            exposed.push((u, b as u32));
                        }
                    }
                }
                for op in ops.iter().filter(|o| o.usage.write && !o.usage.conditional) {
                    let u0 = first_unit(op);
                    for u in u0..u0 + u32::from(op.count) {
                        if killed_in[u as usize] != b as u32 {
                            killed_in[u as usize] = b as u32;
                            kill.push(u);
                        }
                    }
                }
            }
            kill.sort_unstable();
        }
        drop(killed_in);
        exposed.sort_unstable();
        exposed.dedup();

        // 2. Live-out sets, unit by unit, up the predecessors.
        let mut live_out: Vec<Vec<u32>> = vec![Vec::new(); blocks];
        let mut in_stamp = vec![u32::MAX; blocks];
        let mut out_stamp = vec![u32::MAX; blocks];
        let mut work: Vec<u32> = Vec::new();
        for &(u, b) in &exposed {
            if in_stamp[b as usize] == u {
                continue;
            }
            in_stamp[b as usize] = u;
            work.push(b);
            while let Some(b) = work.pop() {
                for &p in &cfg.preds[b as usize] {
                    let p = p as usize;
                    if out_stamp[p] != u {
                        out_stamp[p] = u;
                        live_out[p].push(u);
                    }
                    if in_stamp[p] != u && kills[p].binary_search(&u).is_err() {
                        in_stamp[p] = u;
                        work.push(p as u32);
                    }
                }
            }
        }
        drop(kills);

        // 3. Segments, block by block, from the end up.
        let mut end = vec![NONE; units];
        let mut active: Vec<u32> = Vec::new();
        let mut raw: Vec<(u32, u32, u32)> = Vec::new();
        for (b, out) in live_out.iter().enumerate() {
            let (s, e) = (cfg.start[b], cfg.start[b + 1]);
            for &u in out {
                end[u as usize] = 2 * e;
                active.push(u);
            }
            for i in (s..e).rev() {
                let ops = f.operands(i as usize);
                for op in ops.iter().filter(|o| o.usage.write) {
                    let u0 = first_unit(op);
                    for u in u0..u0 + u32::from(op.count) {
                        let slot = &mut end[u as usize];
                        if op.usage.conditional {
                            if *slot == NONE {
                                *slot = 2 * i + 2;
                                active.push(u);
                            }
                        } else if *slot != NONE {
                            raw.push((u, 2 * i + 1, *slot));
                            *slot = NONE;
                        } else {
                            raw.push((u, 2 * i + 1, 2 * i + 2));
                        }
                    }
                }
                for op in ops.iter().filter(|o| o.usage.read || o.usage.conditional) {
                    let u0 = first_unit(op);
                    for u in u0..u0 + u32::from(op.count) {
                        if end[u as usize] == NONE {
                            end[u as usize] = 2 * i + 1;
                            active.push(u);
                        }
                    }
                }
            }
            for u in active.drain(..) {
                let slot = &mut end[u as usize];
                if *slot != NONE {
                    raw.push((u, 2 * s, *slot));
                    *slot = NONE;
                }
            }
        }
        drop(live_out);

        // 4. Divergent regions: units of shared files live in one meet at its point.
        let n = f.len() as u32;
        let region_points = 2 * n + 2;
        if !cfg.regions.is_empty() {
            // The regions of each block.
            let mut of_block: Vec<(u32, u32)> = cfg
                .regions
                .iter()
                .enumerate()
                .flat_map(|(k, r)| r.iter().map(move |&b| (b, k as u32)))
                .collect();
            of_block.sort_unstable();
            let mut first = vec![0u32; blocks + 1];
            for &(b, _) in &of_block {
                first[b as usize + 1] += 1;
            }
            for b in 0..blocks {
                first[b + 1] += first[b];
            }
            let shared = |u: u32| -> bool {
                let file = if u >= pbase[0] {
                    pbase.partition_point(|&p| p <= u) - 1
                } else {
                    f.values[vbase.partition_point(|&b| b <= u) - 1].file as usize
                };
                !f.files[file].per_lane
            };
            let mut extra: Vec<(u32, u32, u32)> = Vec::new();
            for &(u, a, b) in &raw {
                if a >= region_points || !shared(u) {
                    continue;
                }
                let (lo, hi) = (a / 2, (b.saturating_sub(1) / 2).min(n - 1));
                for blk in cfg.block_of[lo as usize]..=cfg.block_of[hi as usize] {
                    for &(_, k) in
                        &of_block[first[blk as usize] as usize..first[blk as usize + 1] as usize]
                    {
                        let p = region_points + 2 * k;
                        extra.push((u, p, p + 1));
                    }
                }
            }
            raw.extend(extra);
        }

        // 5. Sorted, merged, by unit.
        raw.sort_unstable();
        let mut at = vec![0u32; units + 1];
        let mut segs: Vec<(u32, u32)> = Vec::with_capacity(raw.len());
        let mut cur = 0usize;
        for (u, a, b) in raw {
            while cur < u as usize {
                cur += 1;
                at[cur] = segs.len() as u32;
            }
            let same_unit = segs.len() as u32 > at[cur];
            match segs.last_mut() {
                Some(last) if same_unit && a <= last.1 => {
                    last.1 = last.1.max(b);
                }
                _ => segs.push((a, b)),
            }
        }
        while cur < units {
            cur += 1;
            at[cur] = segs.len() as u32;
        }
        Liveness {
            vbase,
            pbase,
            at,
            segs,
            region_points,
        }
    }

    /// The segments of unit `u`.
    pub fn of(&self, u: u32) -> &[(u32, u32)] {
        &self.segs[self.at[u as usize] as usize..self.at[u as usize + 1] as usize]
    }
}
