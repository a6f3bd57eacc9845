//! Basic blocks and the control-flow graph of a [`Function`].

use alloc::vec;
use alloc::vec::Vec;

use super::Function;

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
    /// Blocks that lanes may reach apart: those reachable from a divergent branch.
    /// There a group of lanes runs on (to its end) while the others wait, so values
    /// of files the warp shares are kept apart throughout (see [`super`]).
    pub divergent: Vec<bool>,
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
            for &t in f.targets(i) {
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
        // Everything reachable from a divergent branch, in one sweep.
        let mut divergent = vec![false; blocks];
        let mut work: Vec<u32> = Vec::new();
        for b in 0..blocks {
            let last = start[b + 1] as usize - 1;
            if f.inst(last).divergent {
                work.extend(&succs[b]);
            }
        }
        while let Some(b) = work.pop() {
            if !core::mem::replace(&mut divergent[b as usize], true) {
                work.extend(&succs[b as usize]);
            }
        }
        Cfg {
            start,
            block_of,
            succs,
            preds,
            divergent,
        }
    }

    /// How many blocks.
    pub fn len(&self) -> usize {
        self.succs.len()
    }

    /// Whether there are no blocks.
    pub fn is_empty(&self) -> bool {
        self.succs.is_empty()
    }
}
