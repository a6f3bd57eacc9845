//! Giving values registers: greedy, in the order values start, over the live segments
//! each physical register already holds (LLVM's live-interval unions).
//!
//! A value of `w` units takes registers `r..r + w` when, for every unit `k`, no
//! segment of unit `k` overlaps what register `r + k` holds: fixed registers' own
//! liveness, and the values given it before. A register whose last segment ends
//! before the value starts is taken first (no look-up: as linear scan takes a free
//! register); a hole in a busy register only when none is free. Copies are given
//! their source's (or destination's) registers first, so most of them do nothing
//! afterwards.

use alloc::collections::BTreeMap;
use alloc::vec;
use alloc::vec::Vec;

use super::cfg::Cfg;
use super::live::Liveness;
use super::{AllocError, Allocation, Function, Loc, Use};

/// What one physical register holds in the function's points: segment start →
/// (end, holder).
type Held = BTreeMap<u32, (u32, Loc)>;

/// What every physical register holds.
struct Registers {
    /// Segments in the function's own points, by register.
    held: Vec<Held>,
    /// The end of the last such segment, by register.
    busy_until: Vec<u32>,
    /// Divergent regions: region `k` holds register `p` when bit `p` of
    /// `region_busy[k * words..]` is set; `region_holder` says by what.
    region_busy: Vec<u64>,
    region_holder: BTreeMap<(u32, u32), Loc>,
    words: usize,
    /// The first region point.
    region_points: u32,
}

impl Registers {
    fn region(&self, point: u32) -> usize {
        ((point - self.region_points) / 2) as usize
    }

    /// Whether register `p` can take a unit live in `segs` (sorted), for a value whose
    /// life starts at `start`; with `quick`, only if the register is free from then on.
    fn fits(&self, p: usize, segs: &[(u32, u32)], start: u32, quick: bool) -> bool {
        let split = segs.partition_point(|s| s.0 < self.region_points);
        let (own, regions) = segs.split_at(split);
        let free = self.busy_until[p] <= start;
        if quick && !free {
            return false;
        }
        let bit = |k: usize| self.region_busy[k * self.words + p / 64] >> (p % 64) & 1 == 1;
        (free || own.iter().all(|&s| !overlaps(&self.held[p], s)))
            && regions.iter().all(|s| !bit(self.region(s.0)))
    }

    /// Gives register `p` the segments `segs` of `holder`.
    fn take(&mut self, p: usize, segs: &[(u32, u32)], holder: Loc) {
        for &(a, b) in segs {
            if a >= self.region_points {
                let k = self.region(a);
                self.region_busy[k * self.words + p / 64] |= 1 << (p % 64);
                self.region_holder.insert((k as u32, p as u32), holder);
            } else {
                self.held[p].insert(a, (b, holder));
                self.busy_until[p] = self.busy_until[p].max(b);
            }
        }
    }

    /// What register `p` holds at `point`.
    fn at(&self, p: usize, point: u32) -> Option<Loc> {
        if point >= self.region_points {
            return self
                .region_holder
                .get(&(self.region(point) as u32, p as u32))
                .copied();
        }
        self.held[p]
            .range(..=point)
            .next_back()
            .filter(|(_, &(end, _))| end > point)
            .map(|(_, &(_, l))| l)
    }
}

/// Whether `held` has a segment overlapping `[a, b)`.
fn overlaps(held: &Held, (a, b): (u32, u32)) -> bool {
    held.range(..b)
        .next_back()
        .is_some_and(|(_, &(end, _))| end > a)
}

/// Assigns every value of `f`.
pub fn assign(f: &Function, cfg: &Cfg, live: &Liveness) -> Result<Allocation, AllocError> {
    let phys0 = live.pbase[0];
    let regs: usize = f.files.iter().map(|fl| usize::from(fl.count)).sum();
    let words = regs.div_ceil(64);
    let mut r = Registers {
        held: vec![Held::new(); regs],
        busy_until: vec![0; regs],
        region_busy: vec![0; cfg.regions.len() * words],
        region_holder: BTreeMap::new(),
        words,
        region_points: live.region_points,
    };
    for (file, fl) in f.files.iter().enumerate() {
        for reg in 0..fl.count {
            let u = live.pbase[file] + u32::from(reg);
            r.take(
                (u - phys0) as usize,
                live.of(u),
                Loc::Fixed {
                    file: file as u8,
                    reg,
                },
            );
        }
    }
    let reserved: Vec<Vec<bool>> = f
        .files
        .iter()
        .map(|fl| {
            let mut r = vec![false; fl.count as usize];
            for &x in &fl.reserved {
                if let Some(s) = r.get_mut(x as usize) {
                    *s = true;
                }
            }
            r
        })
        .collect();
    // Copies: each value's partners, to try their registers first.
    let mut partners: Vec<(u32, u32)> = Vec::new();
    for i in 0..f.len() {
        if !f.inst(i).copy {
            continue;
        }
        let ops = f.operands(i);
        let from = ops.iter().find(|o| o.usage == Use::READ);
        let to = ops.iter().find(|o| o.usage == Use::WRITE);
        if let (Some(from), Some(to)) = (from, to) {
            if let (Loc::Virtual { value: a, unit: 0 }, Loc::Virtual { value: b, unit: 0 }) =
                (from.loc, to.loc)
            {
                partners.push((a, b));
                partners.push((b, a));
            }
        }
    }
    partners.sort_unstable();

    // Values in the order their lives start.
    let first_point = |v: usize| -> u32 {
        (live.vbase[v]..live.vbase[v + 1])
            .filter_map(|u| live.of(u).first().map(|s| s.0))
            .min()
            .unwrap_or(u32::MAX)
    };
    let mut order: Vec<(u32, u32)> = (0..f.values.len())
        .map(|v| (first_point(v), v as u32))
        .collect();
    order.sort_unstable();
    const UNSET: u16 = u16::MAX;
    let mut first = vec![UNSET; f.values.len()];
    for &(start, v) in &order {
        let val = f.values[v as usize];
        let fl = &f.files[val.file as usize];
        let w = u16::from(val.width);
        let step = u16::from(fl.align.max(1).min(val.width).max(1));
        let units = live.vbase[v as usize]..live.vbase[v as usize + 1];
        let base = live.pbase[val.file as usize] - phys0;
        let fits = |reg: u16, r: &Registers, quick: bool| -> bool {
            !(!reg.is_multiple_of(step)
                || reg + w > fl.count
                || (reg..reg + w).any(|x| reserved[val.file as usize][x as usize]))
                && units.clone().enumerate().all(|(k, u)| {
                    r.fits(
                        (base + u32::from(reg) + k as u32) as usize,
                        live.of(u),
                        start,
                        quick,
                    )
                })
        };
        let lo = partners.partition_point(|&(a, _)| a < v);
        let hint = partners[lo..]
            .iter()
            .take_while(|&&(a, _)| a == v)
            .map(|&(_, b)| first[b as usize])
            .find(|&reg| reg != UNSET && fits(reg, &r, false));
        let candidates = || (0..fl.count.saturating_sub(w - 1)).step_by(step as usize);
        let choice = hint
            .or_else(|| candidates().find(|&reg| fits(reg, &r, true)))
            .or_else(|| candidates().find(|&reg| fits(reg, &r, false)));
        let Some(reg) = choice else {
            return Err(out_of_registers(f, cfg, live, &r, v));
        };
        first[v as usize] = reg;
        for (k, u) in units.clone().enumerate() {
            let holder = Loc::Virtual {
                value: v,
                unit: k as u8,
            };
            r.take(
                (base + u32::from(reg) + k as u32) as usize,
                live.of(u),
                holder,
            );
        }
    }
    // A value never used holds nothing; any register does.
    for r in &mut first {
        if *r == UNSET {
            *r = 0;
        }
    }
    Ok(Allocation { first })
}

/// The error for value `v`: at the start of one of its segments where its file is
/// fullest, what occupies the file.
fn out_of_registers(f: &Function, cfg: &Cfg, live: &Liveness, r: &Registers, v: u32) -> AllocError {
    let val = f.values[v as usize];
    let file = val.file as usize;
    let regs = live.pbase[file] - live.pbase[0]..live.pbase[file + 1] - live.pbase[0];
    let holders = |p: u32| -> Vec<(Loc, u16)> {
        regs.clone()
            .filter_map(|x| r.at(x as usize, p).map(|l| (l, (x - regs.start) as u16)))
            .collect()
    };
    // Where the file is fullest among the value's own points; a region's point (all
    // the values that may run apart there) when that is fuller.
    let points: Vec<u32> = (live.vbase[v as usize]..live.vbase[v as usize + 1])
        .flat_map(|u| live.of(u).iter().map(|s| s.0))
        .collect();
    let fullest = |region: bool| {
        points
            .iter()
            .copied()
            .filter(|&p| (p >= live.region_points) == region)
            .map(|p| (holders(p).len(), core::cmp::Reverse(p)))
            .max()
    };
    let own = fullest(false);
    let first_own = points
        .iter()
        .copied()
        .filter(|&p| p < live.region_points)
        .min()
        .unwrap_or(0);
    let (point, at) = match (own, fullest(true)) {
        (Some(o), Some(g)) if g.0 > o.0 => (g.1 .0, first_own),
        (Some(o), _) => (o.1 .0, o.1 .0),
        (None, Some(g)) => (g.1 .0, first_own),
        (None, None) => (0, 0),
    };
    let divergent = (point >= live.region_points).then(|| cfg.region_branch[r.region(point)]);
    AllocError::OutOfRegisters {
        inst: at / 2,
        file: val.file,
        value: v,
        width: val.width,
        live: holders(point),
        divergent,
    }
}
