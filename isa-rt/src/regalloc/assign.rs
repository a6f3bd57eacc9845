//! Giving values registers: greedy, in the order values start, over the live segments
//! each physical register already holds (LLVM's live-interval unions).
//!
//! A value of `w` units takes registers `r..r + w` when, for every unit `k`, no
//! segment of unit `k` overlaps what register `r + k` holds: fixed registers' own
//! liveness, and the values given it before. Copies are given their source's (or
//! destination's) registers first, so most of them do nothing afterwards.

use alloc::collections::BTreeMap;
use alloc::vec;
use alloc::vec::Vec;

use super::cfg::Cfg;
use super::live::Liveness;
use super::{AllocError, Allocation, Function, Loc};

/// What one physical register holds: segment start → (end, holder).
type Held = BTreeMap<u32, (u32, Loc)>;

/// Whether `held` has a segment overlapping `[a, b)`.
fn overlaps(held: &Held, (a, b): (u32, u32)) -> bool {
    held.range(..b)
        .next_back()
        .is_some_and(|(_, &(end, _))| end > a)
}

/// What `held` holds at point `p`.
fn at(held: &Held, p: u32) -> Option<Loc> {
    held.range(..=p)
        .next_back()
        .filter(|(_, &(end, _))| end > p)
        .map(|(_, &(_, l))| l)
}

/// Assigns every value of `f`.
pub fn assign(f: &Function, _cfg: &Cfg, live: &Liveness) -> Result<Allocation, AllocError> {
    let phys0 = live.pbase[0];
    let mut held: Vec<Held> = vec![Held::new(); (live.pbase[f.files.len()] - phys0) as usize];
    // The end of the last segment each register holds: a value whose life starts
    // there or later fits it without looking at its segments.
    let mut busy_until: Vec<u32> = vec![0; held.len()];
    for (file, fl) in f.files.iter().enumerate() {
        for reg in 0..fl.count {
            let u = live.pbase[file] + u32::from(reg);
            let p = (u - phys0) as usize;
            for &(a, b) in live.of(u) {
                held[p].insert(
                    a,
                    (
                        b,
                        Loc::Fixed {
                            file: file as u8,
                            reg,
                        },
                    ),
                );
            }
            busy_until[p] = live.of(u).last().map_or(0, |s| s.1);
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
        let from = ops.iter().find(|o| o.usage.read && !o.usage.write);
        let to = ops.iter().find(|o| o.usage.write);
        if let (
            Some(&super::Operand {
                loc: Loc::Virtual { value: a, unit: 0 },
                ..
            }),
            Some(&super::Operand {
                loc: Loc::Virtual { value: b, unit: 0 },
                ..
            }),
        ) = (from, to)
        {
            partners.push((a, b));
            partners.push((b, a));
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
        let fits = |r: u16, held: &[Held], busy_until: &[u32]| -> bool {
            if !r.is_multiple_of(step)
                || r + w > fl.count
                || (r..r + w).any(|x| reserved[val.file as usize][x as usize])
            {
                return false;
            }
            units.clone().enumerate().all(|(k, u)| {
                let p = (live.pbase[val.file as usize] + u32::from(r) + k as u32 - phys0) as usize;
                busy_until[p] <= start || live.of(u).iter().all(|&s| !overlaps(&held[p], s))
            })
        };
        let lo = partners.partition_point(|&(a, _)| a < v);
        let hint = partners[lo..]
            .iter()
            .take_while(|&&(a, _)| a == v)
            .map(|&(_, b)| first[b as usize])
            .find(|&r| r != UNSET && fits(r, &held, &busy_until));
        let choice = hint.or_else(|| {
            (0..fl.count.saturating_sub(w - 1))
                .step_by(step as usize)
                .find(|&r| fits(r, &held, &busy_until))
        });
        let Some(r) = choice else {
            return Err(out_of_registers(f, live, &held, v));
        };
        first[v as usize] = r;
        for (k, u) in units.clone().enumerate() {
            let p = (live.pbase[val.file as usize] + u32::from(r) + k as u32 - phys0) as usize;
            for &(a, b) in live.of(u) {
                let holder = Loc::Virtual {
                    value: v,
                    unit: k as u8,
                };
                held[p].insert(a, (b, holder));
                busy_until[p] = busy_until[p].max(b);
            }
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
fn out_of_registers(f: &Function, live: &Liveness, held: &[Held], v: u32) -> AllocError {
    let val = f.values[v as usize];
    let file = val.file as usize;
    let regs = live.pbase[file] - live.pbase[0]..live.pbase[file + 1] - live.pbase[0];
    let holders = |p: u32| -> Vec<(Loc, u16)> {
        regs.clone()
            .filter_map(|r| at(&held[r as usize], p).map(|l| (l, (r - regs.start) as u16)))
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
        (Some(o), Some(r)) if r.0 > o.0 => (r.1 .0, first_own),
        (Some(o), _) => (o.1 .0, o.1 .0),
        (None, Some(r)) => (r.1 .0, first_own),
        (None, None) => (0, 0),
    };
    AllocError::OutOfRegisters {
        inst: at / 2,
        file: val.file,
        value: v,
        width: val.width,
        live: holders(point),
    }
}
