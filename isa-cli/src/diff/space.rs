//! The codes a field can hold in a word that decodes, as a set the verdict can reason
//! about without listing 2⁵⁰ immediates: a union of code ranges, optionally narrowed
//! by a bit pattern (the bits a NEW opcode fixes inside an OLD field).

use std::rc::Rc;

use isa_gen::model::{Field, Model, Role, TypeKind};

/// Most codes a domain is listed in full for; wider ones (immediates, constant memory)
/// are reasoned about by ranges and probed at their boundaries.
pub const LISTED: u128 = 1 << 16;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dom {
    /// Inclusive ranges, sorted, disjoint; shared by the domains narrowed from one
    /// (an enumeration with holes has a range a value: copying them per narrowing,
    /// and scanning them per look-up, made a 100,000-value one quadratic).
    ranges: Rc<[(u128, u128)]>,
    /// Codes must also satisfy `code & mask == value`.
    mask: u128,
    value: u128,
}

impl Dom {
    /// The codes field `f` holds in words that decode (a fixed field: its one code).
    pub fn of(model: &Model, f: &Field) -> Dom {
        // Every code listed here fits the field: the checker refuses a field narrower
        // than its type and a fixed code wider than its field.
        let t = model.ty(f.ty);
        let mut ranges: Vec<(u128, u128)> = match (&f.role, &t.kind) {
            (Role::Fixed(c), _) => vec![(*c, *c)],
            (_, TypeKind::Enum(vs)) => vs.iter().map(|v| (v.code, v.code)).collect(),
            (_, TypeKind::RegFile(r)) => {
                let mut v = vec![(r.lo, r.hi)];
                v.extend(r.named.iter().map(|(_, c)| (*c, *c)));
                v
            }
            (_, TypeKind::Immediate { .. } | TypeKind::ConstMem { .. }) => {
                vec![(
                    0,
                    if t.width >= 128 {
                        u128::MAX
                    } else {
                        (1u128 << t.width) - 1
                    },
                )]
            }
        };
        ranges.sort_unstable();
        let mut merged: Vec<(u128, u128)> = Vec::new();
        for r in ranges {
            match merged.last_mut() {
                Some(last) if r.0 <= last.1.saturating_add(1) => last.1 = last.1.max(r.1),
                _ => merged.push(r),
            }
        }
        Dom {
            ranges: merged.into(),
            mask: 0,
            value: 0,
        }
    }

    /// The codes that also have `value` on the bits of `mask`.
    pub fn narrowed(&self, mask: u128, value: u128) -> Dom {
        let value = value & mask;
        if self.value & mask & self.mask != value & self.mask {
            return Dom {
                ranges: Rc::new([]),
                mask: 0,
                value: 0,
            };
        }
        Dom {
            ranges: self.ranges.clone(),
            mask: self.mask | mask,
            value: self.value | value,
        }
    }

    /// The index of the first range that ends at `lo` or above.
    fn range_from(&self, lo: u128) -> usize {
        self.ranges.partition_point(|&(_, b)| b < lo)
    }

    /// The smallest member that is at least `lo`, and the index of its range (from
    /// the range at `from` on: the ranges before it hold no member at least `lo`).
    fn first_at(&self, lo: u128, from: usize) -> Option<(u128, usize)> {
        self.ranges[from..]
            .iter()
            .enumerate()
            .find_map(|(i, &(a, b))| {
                let x = min_at_least(a.max(lo), self.mask, self.value)?;
                (x <= b && a.max(lo) <= b).then_some((x, from + i))
            })
    }

    /// The smallest member that is at least `lo`.
    pub fn first_from(&self, lo: u128) -> Option<u128> {
        self.first_at(lo, self.range_from(lo)).map(|(x, _)| x)
    }

    pub fn first(&self) -> Option<u128> {
        self.first_from(0)
    }

    pub fn is_empty(&self) -> bool {
        self.first().is_none()
    }

    pub fn contains(&self, x: u128) -> bool {
        x & self.mask == self.value
            && self
                .ranges
                .get(self.range_from(x))
                .is_some_and(|&(a, _)| a <= x)
    }

    /// Whether some member has `value` on the bits of `mask`.
    pub fn meets(&self, mask: u128, value: u128) -> bool {
        !self.narrowed(mask, value).is_empty()
    }

    /// An upper bound of the number of members.
    pub fn size_bound(&self) -> u128 {
        self.ranges.iter().fold(0u128, |n, &(a, b)| {
            n.saturating_add(b - a).saturating_add(1)
        })
    }

    /// Every member, when there are at most `limit` candidates to look at.
    pub fn list(&self, limit: u128) -> Option<Vec<u128>> {
        if self.size_bound() > limit {
            return None;
        }
        let mut out = Vec::new();
        // Within a range (the ranges are disjoint) a code is a member by the pattern.
        for &(a, b) in self.ranges.iter() {
            let mut x = a;
            loop {
                if x & self.mask == self.value {
                    out.push(x);
                }
                if x == b {
                    break;
                }
                x += 1;
            }
        }
        Some(out)
    }

    /// Members worth printing when the domain is too wide to list: both ends of each
    /// range, their neighbours, and each power of two and the value below it (where
    /// sign, width and shift rules change what is printed).
    pub fn probes(&self) -> Vec<u128> {
        let mut want = Vec::new();
        for &(a, b) in self.ranges.iter() {
            want.extend([a, a.saturating_add(1), b, b.saturating_sub(1)]);
        }
        // The powers up to the last range's end: the same for every range (each
        // range's own powers, up to its end, are among them), so listed once.
        let top = self.ranges.last().map_or(0, |r| r.1);
        for k in 0..128u32 {
            let p = 1u128 << k;
            if p > top {
                break;
            }
            want.extend([p, p - 1, p | (p >> 1)]);
        }
        // `first_from` of each, in one pass over the ranges: taken in increasing
        // order, a range without a member at least one want has none at least the
        // next, so the search resumes where the last one ended.
        want.sort_unstable();
        want.dedup();
        let mut out: Vec<u128> = Vec::new();
        let mut from = 0;
        for x in want {
            let Some((m, i)) = self.first_at(x, from.max(self.range_from(x))) else {
                break; // no member at least x, so none at least any later want
            };
            from = i;
            out.push(m);
        }
        out.dedup();
        out
    }
}

/// The smallest `x >= lo` with `x & mask == value` (`value` within `mask`).
pub fn min_at_least(lo: u128, mask: u128, value: u128) -> Option<u128> {
    if lo & mask == value {
        return Some(lo);
    }
    // x > lo: x agrees with lo above some bit i where x has 1 and lo has 0; below i
    // it is as small as the pattern allows. The lowest such i gives the smallest x.
    for i in 0..128u32 {
        let bit = 1u128 << i;
        if lo & bit != 0 || (mask & bit != 0 && value & bit == 0) {
            continue;
        }
        let high = if i == 127 { 0 } else { u128::MAX << (i + 1) };
        if lo & mask & high != value & high {
            continue;
        }
        return Some((lo & high) | bit | (value & (bit - 1)));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn min_at_least_matches_a_scan() {
        for lo in 0u128..64 {
            for mask in 0u128..16 {
                for value in 0u128..16 {
                    let value = value & mask;
                    let want = (lo..256).find(|x| x & mask == value);
                    assert_eq!(min_at_least(lo, mask, value), want, "{lo} {mask} {value}");
                }
            }
        }
        assert_eq!(min_at_least(u128::MAX, 1, 0), None);
    }

    /// Probes are the first member at least each point worth printing (the ends of the
    /// ranges and their neighbours, each power of two, the value below it and the power
    /// with the next bit set), found by a scan of the members; on ranges with holes
    /// and patterns that leave whole runs of ranges without a member.
    #[test]
    fn probes_are_the_first_member_at_least_each_point() {
        for (ranges, step) in [
            ((0..64u128).map(|k| (2 * k, 2 * k)).collect::<Vec<_>>(), 2),
            ((0..20u128).map(|k| (8 * k, 8 * k + 2)).collect(), 8),
        ] {
            for mask in 0u128..32 {
                for value in (0u128..32).filter(|v| v & !mask == 0) {
                    let d = Dom {
                        ranges: ranges.clone().into(),
                        mask,
                        value,
                    };
                    let members = d.list(u128::MAX).unwrap();
                    let top = ranges.last().unwrap().1;
                    let mut points: Vec<u128> = ranges
                        .iter()
                        .flat_map(|&(a, b)| [a, a.saturating_add(1), b, b.saturating_sub(1)])
                        .collect();
                    points.extend(
                        (0..128)
                            .map(|k| 1u128 << k)
                            .take_while(|&p| p <= top)
                            .flat_map(|p| [p, p - 1, p | (p >> 1)]),
                    );
                    let mut want: Vec<u128> = points
                        .iter()
                        .filter_map(|&x| members.iter().copied().find(|&m| m >= x))
                        .collect();
                    want.sort_unstable();
                    want.dedup();
                    assert_eq!(
                        d.probes(),
                        want,
                        "step {step} mask {mask:#b} value {value:#b}"
                    );
                }
            }
        }
    }

    #[test]
    fn narrowed_domains() {
        let d = Dom {
            ranges: vec![(3, 9), (20, 20)].into(),
            mask: 0,
            value: 0,
        };
        assert_eq!(d.list(100).unwrap(), [3, 4, 5, 6, 7, 8, 9, 20]);
        let odd = d.narrowed(1, 1);
        assert_eq!(odd.list(100).unwrap(), [3, 5, 7, 9]);
        assert!(odd.meets(0b110, 0b110) && !odd.meets(0b10000, 0b10000));
        assert!(odd.narrowed(1, 0).is_empty());
        // A member of the ranges off the pattern, and one on the pattern off the ranges.
        assert!(odd.contains(5) && !odd.contains(4) && !odd.contains(21));
        // Narrowing again by the same bits keeps them (and adds nothing).
        assert_eq!(odd.narrowed(1, 1), odd);
        assert_eq!(odd.narrowed(0b11, 0b11).list(100).unwrap(), [3, 7]);
        assert_eq!(d.narrowed(0b10000, 0b10000).first(), Some(20));
        let wide = Dom {
            ranges: vec![(0, (1 << 50) - 1)].into(),
            mask: 0,
            value: 0,
        };
        assert!(wide.list(LISTED).is_none());
        let p = wide.probes();
        assert!(p.contains(&0) && p.contains(&((1 << 50) - 1)) && p.contains(&(1 << 49)));
        // Each power of two, the value below it, and the power with the next bit set
        // (a sign or shift boundary one bit down).
        assert!(p.contains(&((1 << 20) - 1)) && p.contains(&(3 << 48)) && p.contains(&3));
    }
}
