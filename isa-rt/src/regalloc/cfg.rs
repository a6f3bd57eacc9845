//! Basic blocks and the control-flow graph of a [`Function`].

use alloc::vec;
use alloc::vec::Vec;

use super::Function;

/// No block (an unreachable block's dominator).
const NONE: u32 = u32::MAX;

/// The blocks of a function: instructions `start[b]..start[b + 1]`.
#[derive(Clone, Debug)]
pub struct Cfg {
    /// First instruction of each block, then the number of instructions.
    pub start: Vec<u32>,
    /// The block of each instruction.
    pub block_of: Vec<u32>,
    /// Successors of each block.
    pub succs: Vec<Vec<u32>>,
    /// Predecessors of each block.
    pub preds: Vec<Vec<u32>>,
    /// The divergent regions: blocks lanes may run apart in after each divergent
    /// branch (see [`super`]).
    pub regions: Vec<Vec<u32>>,
    /// The divergent branch (an instruction) of each region.
    pub region_branch: Vec<u32>,
}

impl Cfg {
    /// The blocks of `f`: a block starts at the first instruction, at every target,
    /// and after every instruction that does not simply fall through.
    pub fn new(f: &Function) -> Cfg {
        let n = f.len();
        let mut leader = vec![false; n + 1];
        if n > 0 {
            leader[0] = true;
        }
        for i in 0..n {
            let inst = f.inst(i);
            // A convergence point starts a block too: it bounds divergent regions.
            for &t in f.targets(i).iter().chain(&inst.converges_at) {
                leader[t as usize] = true;
            }
            if !f.targets(i).is_empty() || !inst.falls_through || inst.divergent {
                leader[i + 1] = true;
            }
        }
        let mut start = Vec::new();
        let mut block_of = vec![0u32; n];
        for i in 0..n {
            if leader[i] {
                start.push(i as u32);
            }
            block_of[i] = (start.len() - 1) as u32;
        }
        let blocks = start.len();
        start.push(n as u32);
        let mut succs: Vec<Vec<u32>> = vec![Vec::new(); blocks];
        let mut preds: Vec<Vec<u32>> = vec![Vec::new(); blocks];
        for b in 0..blocks {
            let last = start[b + 1] as usize - 1;
            let mut s: Vec<u32> = f
                .targets(last)
                .iter()
                .map(|&t| block_of[t as usize])
                .collect();
            if f.inst(last).falls_through && last + 1 < n {
                s.push(block_of[last + 1]);
            }
            s.sort_unstable();
            s.dedup();
            for &t in &s {
                preds[t as usize].push(b as u32);
            }
            succs[b] = s;
        }
        let mut cfg = Cfg {
            start,
            block_of,
            succs,
            preds,
            regions: Vec::new(),
            region_branch: Vec::new(),
        };
        (cfg.regions, cfg.region_branch) = cfg.divergent_regions(f);
        cfg
    }

    /// Immediate dominators (Cooper, Harvey and Kennedy), `NONE` where unreachable, and
    /// the reverse post-order.
    fn dominators(&self) -> (Vec<u32>, Vec<u32>) {
        let blocks = self.len();
        let mut idom = vec![NONE; blocks];
        if blocks == 0 {
            return (idom, Vec::new());
        }
        // Post-order by an explicit stack.
        let mut order = Vec::with_capacity(blocks);
        let mut seen = vec![false; blocks];
        let mut stack: Vec<(u32, usize)> = vec![(0, 0)];
        seen[0] = true;
        while let Some(&mut (b, ref mut k)) = stack.last_mut() {
            if let Some(&s) = self.succs[b as usize].get(*k) {
                *k += 1;
                if !seen[s as usize] {
                    seen[s as usize] = true;
                    stack.push((s, 0));
                }
            } else {
                order.push(b);
                stack.pop();
            }
        }
        order.reverse();
        let mut rpo_index = vec![NONE; blocks];
        for (k, &b) in order.iter().enumerate() {
            rpo_index[b as usize] = k as u32;
        }
        idom[0] = 0;
        let mut changed = true;
        while changed {
            changed = false;
            for &b in &order[1..] {
                let mut new = NONE;
                for &p in &self.preds[b as usize] {
                    if idom[p as usize] == NONE {
                        continue;
                    }
                    new = if new == NONE {
                        p
                    } else {
                        let (mut x, mut y) = (p, new);
                        while x != y {
                            while rpo_index[x as usize] > rpo_index[y as usize] {
                                x = idom[x as usize];
                            }
                            while rpo_index[y as usize] > rpo_index[x as usize] {
                                y = idom[y as usize];
                            }
                        }
                        x
                    };
                }
                if new != idom[b as usize] {
                    idom[b as usize] = new;
                    changed = true;
                }
            }
        }
        (idom, order)
    }

    /// The divergent regions: for each divergent branch, the blocks reachable from it
    /// before the convergence point of a barrier set up on every path to it and not
    /// yet met (all reachable blocks when there is none).
    fn divergent_regions(&self, f: &Function) -> (Vec<Vec<u32>>, Vec<u32>) {
        let blocks = self.len();
        let (idom, order) = self.dominators();
        // The dominator tree's intervals, for "a dominates b" in O(1).
        let mut children: Vec<Vec<u32>> = vec![Vec::new(); blocks];
        for &b in order.iter().skip(1) {
            children[idom[b as usize] as usize].push(b);
        }
        let (mut pre, mut post) = (vec![0u32; blocks], vec![0u32; blocks]);
        let mut clock = 0u32;
        let mut stack: Vec<(u32, usize)> = Vec::new();
        if blocks > 0 {
            stack.push((0, 0));
            pre[0] = 0;
        }
        while let Some(&mut (b, ref mut k)) = stack.last_mut() {
            if let Some(&c) = children[b as usize].get(*k) {
                *k += 1;
                clock += 1;
                pre[c as usize] = clock;
                stack.push((c, 0));
            } else {
                post[b as usize] = clock;
                stack.pop();
            }
        }
        let dominates = |a: u32, b: u32| {
            pre[a as usize] <= pre[b as usize] && post[b as usize] <= post[a as usize]
        };
        // Barriers open at the end of each block: convergence blocks of the barriers set
        // up on every path, whose point does not dominate it yet.
        let mut open: Vec<Vec<u32>> = vec![Vec::new(); blocks];
        for &b in &order {
            let mut list: Vec<u32> = if b == 0 {
                Vec::new()
            } else {
                open[idom[b as usize] as usize].clone()
            };
            list.retain(|&c| !dominates(c, b));
            for i in self.start[b as usize]..self.start[b as usize + 1] {
                if let Some(t) = f.inst(i as usize).converges_at {
                    list.push(self.block_of[t as usize]);
                }
            }
            open[b as usize] = list;
        }
        let mut regions = Vec::new();
        let mut branches = Vec::new();
        let mut stamp = vec![NONE; blocks];
        let mut work: Vec<u32> = Vec::new();
        for &b in &order {
            let last = self.start[b as usize + 1] as usize - 1;
            if !f.inst(last).divergent {
                continue;
            }
            let id = regions.len() as u32;
            let stops = &open[b as usize];
            let mut region = Vec::new();
            work.extend(self.succs[b as usize].iter().filter(|s| !stops.contains(s)));
            while let Some(x) = work.pop() {
                if stamp[x as usize] == id {
                    continue;
                }
                stamp[x as usize] = id;
                region.push(x);
                work.extend(self.succs[x as usize].iter().filter(|s| !stops.contains(s)));
            }
            region.sort_unstable();
            regions.push(region);
            branches.push(last as u32);
        }
        (regions, branches)
    }

    /// How many blocks.
    pub fn len(&self) -> usize {
        self.succs.len()
    }
}
