//! Register operands and how instructions use them: what a register allocator and a
//! liveness analysis need.
//!
//! A register operand is an `Order` operand (or part of a composite one) whose type
//! names registers — a register file, or an enumeration declared `__DefRegisters` —
//! or an operand word such as `UPR` (which stands for a fixed range of registers), and
//! any register field or word the `InList`/`OutList` name outside `Order`. Its access
//! comes from those lists: read when in `InList`, written when in `OutList`, both when
//! in both (a tied operand: the same register is read and written). A register operand
//! in neither list is taken as read: liveness must not assume it dead. A register holds
//! 32 bits; an operand whose `Bitwidth` is larger covers consecutive registers.

use super::interp::Decoded;
use super::{ListRef, Model, Opcode, OperandKind, TypeId, TypeKind, WordId};

/// How an instruction uses a register operand: the run-time crate's
/// [`isa_rt::info::Access`], which the generated metadata states.
pub use isa_rt::info::Access;

/// Where a register operand's register comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RegSource {
    /// The register numbered by this field's code.
    Field(usize),
    /// The fixed registers an operand word stands for (`UPR`: `UP0`..`UP6`).
    Word(WordId),
    /// The register a register-indexed operand names (`UR[urb, uridx]` listed in
    /// `InList`/`OutList`): run time decides which, so it stands for every numbered
    /// register of `file`, and a write to it is never certain for any one of them.
    Indexed {
        file: TypeId,
        reg: usize,
        offset: usize,
    },
}

/// A register operand of an opcode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegOperand {
    /// The field or operand word's name (`rd`, `pg`, `UPR`).
    pub name: String,
    /// The register file or register enumeration.
    pub file: TypeId,
    pub source: RegSource,
    /// `Read`, `Write` or `ReadWrite`, from the In/Out lists.
    pub access: Access,
    /// Whether it is the guard predicate.
    pub guard: bool,
    /// Whether it is the register part of a composite operand (`C[vb, ura]`,
    /// `UR[urb, uridx]`): an address, not the data.
    pub index: bool,
}

/// One register operand of an instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RegUse {
    /// Index into [`Opcode::reg_operands`].
    pub operand: usize,
    pub file: TypeId,
    /// The first register's code.
    pub first: u128,
    /// How many consecutive registers it covers.
    pub count: u32,
    /// The access in this instance (`CondWrite` when the guard may be false).
    pub access: Access,
    /// A named constant register (`RZ`, `PT`): it holds no state.
    pub constant: bool,
}

impl Opcode {
    /// The register operands, `Order` first, then registers the In/Out lists name
    /// outside `Order`.
    pub fn reg_operands(&self, model: &Model) -> Vec<RegOperand> {
        let mut sources: Vec<(RegSource, bool)> = Vec::new();
        let mut add = |s: RegSource, index: bool| {
            if !sources.iter().any(|(x, _)| *x == s) {
                sources.push((s, index));
            }
        };
        for o in &self.order {
            match o.kind {
                OperandKind::Field(f) => add(RegSource::Field(f), false),
                OperandKind::CMemIndexed { reg, .. } | OperandKind::RegIndexed { reg, .. } => {
                    add(RegSource::Field(reg), true)
                }
                OperandKind::Word(w) => add(RegSource::Word(w), false),
            }
        }
        for r in self.in_list.iter().chain(&self.out_list) {
            match *r {
                ListRef::Field(f) => add(RegSource::Field(f), false),
                ListRef::Word(w) => add(RegSource::Word(w), false),
                ListRef::Indexed { file, reg, offset } => {
                    add(RegSource::Indexed { file, reg, offset }, false)
                }
            }
        }
        let guard = self.guard(model);
        sources
            .into_iter()
            .filter_map(|(source, index)| {
                let (name, file, listed) = match source {
                    RegSource::Field(f) => {
                        let field = &self.fields[f];
                        if !model.is_register_type(field.ty) {
                            return None;
                        }
                        (field.name.clone(), field.ty, ListRef::Field(f))
                    }
                    RegSource::Word(w) => {
                        let word = &model.words[w.0];
                        (word.name.clone(), word.reg_file, ListRef::Word(w))
                    }
                    RegSource::Indexed { file, reg, offset } => {
                        let prefix = model.ty(file).reg_file().map_or("", |r| r.prefix.as_str());
                        let name = format!(
                            "{prefix}[{}, {}]",
                            self.fields[reg].name, self.fields[offset].name
                        );
                        (name, file, ListRef::Indexed { file, reg, offset })
                    }
                };
                let read = self.in_list.contains(&listed);
                let write = self.out_list.contains(&listed);
                let dynamic = matches!(source, RegSource::Indexed { .. });
                let access = match (read, write) {
                    (_, false) => Access::Read,
                    (false, true) if dynamic => Access::CondWrite,
                    (true, true) if dynamic => Access::ReadCondWrite,
                    (false, true) => Access::Write,
                    (true, true) => Access::ReadWrite,
                };
                Some(RegOperand {
                    name,
                    file,
                    source,
                    access,
                    guard: matches!(source, RegSource::Field(f) if Some(f) == guard),
                    index,
                })
            })
            .collect()
    }
}

impl RegOperand {
    /// Most registers the operand covers in any instance (at most 65,535, what the
    /// generated metadata's `max_count` holds): a field's largest `Bitwidth` over 32
    /// bits, an operand word's registers, every numbered register of the file for a
    /// register-indexed one.
    pub fn max_count(&self, model: &Model, op: &Opcode) -> u32 {
        let n = match self.source {
            RegSource::Field(f) => u128::from(model.reg_count(op, f, None)),
            RegSource::Word(w) => {
                let w = &model.words[w.0];
                w.hi.saturating_sub(w.lo).saturating_add(1)
            }
            RegSource::Indexed { file, .. } => (model.ty(file).reg_file())
                .map_or(1, |r| r.hi.saturating_sub(r.lo).saturating_add(1)),
        };
        n.min(u128::from(u16::MAX)) as u32
    }
}

impl Model {
    /// How many registers a register field covers in instance `d` (or, with `None`,
    /// at most over every value of the modifiers its `Bitwidth` reads).
    pub fn reg_count(&self, op: &Opcode, field: usize, d: Option<&Decoded>) -> u32 {
        if self.ty(op.fields[field].ty).reg_file().is_none() {
            return 1; // a register enumeration names one register
        }
        let Some(b) = op.bitwidth(field) else {
            return 1;
        };
        match d {
            Some(d) => isa_rt::info::registers(b.expr.eval(&|f| d.values[f])),
            // A width that no enumeration bounds may be any.
            None => self
                .max_value(op, &b.expr)
                .map_or(isa_rt::info::MAX_REGISTERS, isa_rt::info::registers),
        }
    }

    /// The largest value of an expression over every code of the fields it reads,
    /// when each is an enumeration and there are at most 4096 combinations (the
    /// checker's bound); `None` otherwise.
    pub fn max_value(&self, op: &Opcode, e: &super::CExpr) -> Option<i128> {
        let mut used = Vec::new();
        e.fields(&mut used);
        used.sort();
        used.dedup();
        let domains: Vec<Vec<u128>> = used
            .iter()
            .map(|&f| {
                let vs = self.ty(op.fields[f].ty).enum_values()?;
                Some(vs.iter().map(|v| v.code).collect())
            })
            .collect::<Option<_>>()?;
        let combos = domains
            .iter()
            .try_fold(1usize, |a, d| a.checked_mul(d.len()));
        if combos.is_none_or(|n| n == 0 || n > 4096) {
            return None;
        }
        let mut best = i128::MIN;
        let mut idx = vec![0usize; domains.len()];
        loop {
            let v = e.eval(&|f| {
                let k = used.iter().position(|&u| u == f).unwrap_or(0);
                domains[k][idx[k]]
            });
            best = best.max(v);
            let mut k = 0;
            loop {
                if k == idx.len() {
                    return Some(best);
                }
                idx[k] += 1;
                if idx[k] < domains[k].len() {
                    break;
                }
                idx[k] = 0;
                k += 1;
            }
        }
    }

    /// The register operands of an instruction, as it uses them.
    pub fn reg_uses(&self, d: &Decoded) -> Vec<RegUse> {
        let op = &self.opcodes[d.opcode];
        let guarded = self.is_guarded(d);
        op.reg_operands(self)
            .iter()
            .enumerate()
            .map(|(k, r)| {
                let (first, count, constant) = match r.source {
                    RegSource::Field(f) => {
                        let code = d.values[f];
                        let constant = match &self.ty(r.file).kind {
                            TypeKind::RegFile(rf) => !(rf.lo..=rf.hi).contains(&code),
                            _ => false,
                        };
                        (code, self.reg_count(op, f, Some(d)), constant)
                    }
                    RegSource::Word(w) => {
                        let w = &self.words[w.0];
                        (w.lo, (w.hi - w.lo + 1) as u32, false)
                    }
                    RegSource::Indexed { file, .. } => {
                        let (lo, hi) = self.ty(file).reg_file().map_or((0, 0), |r| (r.lo, r.hi));
                        (lo, (hi - lo + 1) as u32, false)
                    }
                };
                RegUse {
                    operand: k,
                    file: r.file,
                    first,
                    count,
                    access: if guarded {
                        r.access.guarded()
                    } else {
                        r.access
                    },
                    constant,
                }
            })
            .collect()
    }

    /// Whether the instance has a guard predicate that may be false: not at its default
    /// (`PT`, not negated).
    pub fn is_guarded(&self, d: &Decoded) -> bool {
        let op = &self.opcodes[d.opcode];
        op.guard(self).is_some_and(|g| {
            op.fields[g].default != Some(d.values[g])
                || op
                    .sub_fields(g)
                    .any(|s| op.fields[s].default != Some(d.values[s]))
        })
    }
}
