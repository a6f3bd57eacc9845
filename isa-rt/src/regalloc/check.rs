//! The checker: proves an allocation right without trusting the allocator's analyses.
//!
//! It runs the function symbolically over the physical registers, as regalloc2's
//! checker does: each register holds "what it held on entry", one value's unit, or
//! "it depends on the path" (a conflict). Every read must find the unit its operand
//! names: a fixed register its own value, a virtual unit that unit (or the entry
//! contents, where the value is not yet defined on any path). A guarded write keeps
//! the old contents in some lanes, so it needs them to be the value's already.
//! Control flow meets at blocks: a register agrees or becomes a conflict.
//!
//! What it cannot see: the ordering of the warp's writes to shared files across
//! divergent paths (it follows one lane); the simulator comparison covers that.

use alloc::vec;
use alloc::vec::Vec;
use core::fmt;

use super::cfg::Cfg;
use super::{Allocation, Function, Loc};

/// The register holds what it held on entry.
const ENTRY: u32 = u32::MAX;
/// Paths disagree on what the register holds.
const CONFLICT: u32 = u32::MAX - 1;

/// A read that does not find its value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckError {
    /// The instruction.
    pub inst: u32,
    /// The operand's unit that was read.
    pub expected: Loc,
    /// The physical register, as (file, register).
    pub reg: (u8, u16),
    /// What the register holds there: `None` when paths disagree.
    pub found: Option<Loc>,
}

impl fmt::Display for CheckError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "instruction {}: reads {:?} from register {} of file {}, which holds {:?}",
            self.inst, self.expected, self.reg.1, self.reg.0, self.found
        )
    }
}

impl core::error::Error for CheckError {}

/// Checks `a` against `f`.
pub fn check(f: &Function, a: &Allocation) -> Result<(), CheckError> {
    if a.first.len() != f.values.len() {
        return Err(CheckError {
            inst: 0,
            expected: Loc::Virtual {
                value: a.first.len() as u32,
                unit: 0,
            },
            reg: (0, 0),
            found: None,
        });
    }
    let cfg = Cfg::new(f);
    // Units: every value's, then every file's registers; `next` is the first register's
    // unit, and physical register `p` (across the files) is unit `next + p`.
    let (vbase, pbase) = super::unit_bases(f);
    let next = pbase[0];
    let regs: usize = f.files.iter().map(|fl| usize::from(fl.count)).sum();
    let unit_of = |loc: Loc, k: u8| -> u32 {
        match loc {
            Loc::Virtual { value, unit } => vbase[value as usize] + u32::from(unit + k),
            Loc::Fixed { file, reg } => pbase[file as usize] + u32::from(reg) + u32::from(k),
        }
    };
    let loc_of = |u: u32| -> Option<Loc> {
        if u >= ENTRY - 1 {
            return None;
        }
        if u >= next {
            let file = pbase.partition_point(|&b| b <= u) - 1;
            return Some(Loc::Fixed {
                file: file as u8,
                reg: (u - pbase[file]) as u16,
            });
        }
        let v = vbase.partition_point(|&b| b <= u) - 1;
        Some(Loc::Virtual {
            value: v as u32,
            unit: (u - vbase[v]) as u8,
        })
    };
    let phys = |loc: Loc, k: u8| -> Option<(usize, (u8, u16))> {
        let (file, reg) = a.resolve(f, loc);
        let reg = reg.checked_add(u16::from(k))?;
        let fl = f.files.get(file as usize)?;
        (reg < fl.count).then(|| {
            (
                (pbase[file as usize] - next + u32::from(reg)) as usize,
                (file, reg),
            )
        })
    };

    let blocks = cfg.len();
    let mut input: Vec<Option<Vec<u32>>> = vec![None; blocks];
    // The blocks to (re)visit; `queued` keeps one entry per block (the entry block may
    // be visited twice, which changes nothing).
    let mut work: Vec<u32> = Vec::new();
    if blocks > 0 {
        input[0] = Some(vec![ENTRY; regs]);
        work.push(0);
    }
    let mut queued = vec![false; blocks];
    while let Some(b) = work.pop() {
        queued[b as usize] = false;
        let Some(mut state) = input[b as usize].clone() else {
            continue;
        };
        for i in cfg.start[b as usize]..cfg.start[b as usize + 1] {
            let ops = f.operands(i as usize);
            for op in ops.iter().filter(|o| o.usage.read || o.usage.conditional) {
                for k in 0..op.count {
                    let want = unit_of(op.loc, k);
                    let bad = |found: u32, reg| CheckError {
                        inst: i,
                        expected: loc_of(want).unwrap_or(op.loc),
                        reg,
                        found: loc_of(found),
                    };
                    let Some((p, reg)) = phys(op.loc, k) else {
                        return Err(bad(CONFLICT, (0, 0)));
                    };
                    let has = state[p];
                    if has != want && has != ENTRY {
                        return Err(bad(has, reg));
                    }
                }
            }
            for op in ops.iter().filter(|o| o.usage.write) {
                for k in 0..op.count {
                    let want = unit_of(op.loc, k);
                    let Some((p, _)) = phys(op.loc, k) else {
                        continue;
                    };
                    state[p] = if !op.usage.conditional || state[p] == want || state[p] == ENTRY {
                        want
                    } else {
                        CONFLICT
                    };
                }
            }
        }
        for &s in &cfg.succs[b as usize] {
            let changed = match &mut input[s as usize] {
                slot @ None => {
                    *slot = Some(state.clone());
                    true
                }
                Some(old) => {
                    let mut changed = false;
                    for (o, &n) in old.iter_mut().zip(&state) {
                        let m = if *o == n || n == ENTRY {
                            *o
                        } else if *o == ENTRY {
                            n
                        } else {
                            CONFLICT
                        };
                        if m != *o {
                            *o = m;
                            changed = true;
                        }
                    }
                    changed
                }
            };
            if changed && !queued[s as usize] {
                queued[s as usize] = true;
                work.push(s);
            }
        }
    }
    Ok(())
}
