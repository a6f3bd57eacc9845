//! The compatibility verdict: does every word that decodes under OLD decode under NEW
//! to the same instruction text?
//!
//! It is decided per OLD opcode A from the layouts, not by sampling words:
//!
//! 1. **Dispatch.** The words of A are a product set: each field ranges over the codes
//!    of its type (a fixed field over its one code), every other bit is zero. A NEW
//!    opcode can take some of them only if its fixed bits can agree with that set,
//!    which is decided field by field ([`Dom::meets`]). The bits such NEW opcodes fix
//!    inside A's variable fields split A's words into cases (at most 2¹² of them);
//!    each case goes to exactly one NEW opcode, the first whose fixed bits match, or
//!    to none (a break).
//! 2. **Fields.** Where A and its NEW opcode B print from identical layouts (fields,
//!    types, operands, converters, `__Syntax`), every word prints alike. Otherwise
//!    A's fields are grouped by what the two printers read together (a field of B
//!    spanning two fields of A joins them; an operand with its sub-fields, its `ext`
//!    field and the fields its `Bitwidth` reads), and each group's values are tried
//!    in full (up to 2¹⁶ combinations), the other fields at their defaults: a
//!    printer's text is its guard, mnemonic, modifiers and operands, each printed
//!    from one group. Groups too wide to list (immediates) are probed where printing
//!    changes (both ends, powers of two: sign, width and shift boundaries).
//! 3. **Omission.** An operand at its default may be left out depending on the
//!    operands after it, and modifiers print in `__Syntax` order: each combination of
//!    groups at and off their defaults is tried (up to 2¹⁰), and one word with every
//!    group off its default.
//!
//! Every break is reported with a word that shows it, decoded under both specs.
//!
//! An OLD opcode *moved* when NEW has an opcode of its name that none of its words can
//! decode as, the fixed fields that identify it having changed (a renumbered optype):
//! its breaks are one that says so and where its words go now, and its namesake is no
//! addition.

use std::collections::{BTreeMap, HashMap, HashSet};

use isa_gen::asm::Assembler;
use isa_gen::model::interp::{DecodeFailure, Decoded};
use isa_gen::model::{AsmFormat, Field, Model, Opcode, OperandKind, Role, TypeId, TypeKind};
use isa_gen::syntax::ast::DocKind;

use super::changes::fixed_field;
use super::names::{by_name, Names};
use super::space::{Dom, LISTED};
use crate::doc::text::bits;

/// A word that decodes under OLD but not to the same text under NEW.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Break {
    pub opcode: String,
    /// The NEW opcode the word goes to (None: no NEW opcode takes it).
    pub new_opcode: Option<String>,
    /// The OLD fields whose values show the break (empty: any word of the opcode).
    pub fields: Vec<String>,
    pub why: String,
    pub word: u128,
    pub old_text: String,
    /// The NEW text, or why the word does not decode under NEW.
    pub new_text: String,
    /// Set when the opcode moved: NEW has an opcode of its name that none of its words
    /// can decode as, since the fixed fields that identify it changed.
    pub moved: Option<Moved>,
}

/// How a moved opcode was identified and is now: its fixed fields that differ, each
/// `optype == BRA (0x40)`, `x not fixed`, with `at bits 7:0` where it moved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Moved {
    pub from: String,
    pub to: String,
}

/// The verdict for every OLD opcode, and the NEW opcodes no OLD word reaches.
pub struct Verdict {
    pub breaks: Vec<Break>,
    /// NEW opcodes whose words decode as nothing under OLD and whose name is not an OLD
    /// opcode's (that one moved): compatible additions.
    pub fresh: Vec<usize>,
}

/// What became of the words of an OLD opcode.
struct Fate {
    /// The NEW opcodes that can take some of them, in NEW's order.
    cands: Vec<usize>,
    /// Its breaks, one a case of its words at most: the NEW opcode the case goes to
    /// (None: no opcode), the case's base values, the break.
    broken: Vec<(Option<usize>, Vec<u128>, Break)>,
    /// How many cases there were (None: too many split bits to list them).
    cases: Option<usize>,
}

const MAX_SPLIT_BITS: u32 = 12;

pub fn verdict(on: &Names, nn: &Names) -> Verdict {
    let (old, new) = (on.model, nn.model);
    let (old_types, new_types) = type_prints(old, new);
    let cx = Cx {
        old,
        new,
        on,
        nn,
        old_asm: Assembler::new(old),
        new_asm: Assembler::new(new),
        old_prints: (0..old.opcodes.len())
            .map(|a| fingerprint(old, a, &old_types))
            .collect(),
        new_prints: (0..new.opcodes.len())
            .map(|b| fingerprint(new, b, &new_types))
            .collect(),
        old_types,
        new_types,
        dispatch: Dispatch::new(old, new),
    };
    let mut breaks = Vec::new();
    let mut reached = vec![false; new.opcodes.len()];
    for a in 0..old.opcodes.len() {
        let fate = cx.opcode(a);
        for &b in &fate.cands {
            reached[b] = true;
        }
        match cx.moved_to(a, &fate) {
            Some(b) if !fate.broken.is_empty() => breaks.push(cx.moved(a, b, fate)),
            _ => breaks.extend(fate.broken.into_iter().map(|(_, _, br)| br)),
        }
    }
    let fresh = (0..new.opcodes.len())
        .filter(|&b| !reached[b] && on.opcode(&new.opcodes[b].name).is_none())
        .collect();
    Verdict { breaks, fresh }
}

struct Cx<'m> {
    old: &'m Model,
    new: &'m Model,
    on: &'m Names<'m>,
    nn: &'m Names<'m>,
    old_asm: Assembler<'m>,
    new_asm: Assembler<'m>,
    old_prints: Vec<String>,
    new_prints: Vec<String>,
    /// Each type's print (how it prints its codes) as a number, equal across the two
    /// models for equal prints: comparing them is not comparing every value again.
    old_types: Vec<usize>,
    new_types: Vec<usize>,
    dispatch: Dispatch,
}

impl Cx<'_> {
    fn opcode(&self, a: usize) -> Fate {
        let op = &self.old.opcodes[a];
        let mut fate = Fate {
            cands: Vec::new(),
            broken: Vec::new(),
            cases: Some(0),
        };
        let doms: Vec<Dom> = op.fields.iter().map(|f| Dom::of(self.old, f)).collect();
        if doms.iter().any(Dom::is_empty) {
            return fate; // no word decodes as A (a type without codes that fit)
        }
        let takes = |b: &Opcode, doms: &[Dom]| -> bool {
            if b.fixed_mask & !op.covered & b.fixed_bits != 0 {
                return false; // A's words are zero there
            }
            op.fields.iter().zip(doms).all(|(f, d)| {
                let m = (b.fixed_mask & f.mask()) >> f.start;
                d.meets(m, (b.fixed_bits & f.mask()) >> f.start)
            })
        };
        fate.cands = self
            .dispatch
            .agreeing(op)
            .into_iter()
            .filter(|&b| takes(&self.new.opcodes[b], &doms))
            .collect();
        let cands = &fate.cands;
        // Bits of A's variable fields that some candidate fixes: they split A's words.
        let variable: u128 = op
            .fields
            .iter()
            .zip(&doms)
            .filter(|(_, d)| d.list(2).is_none_or(|l| l.len() > 1))
            .map(|(f, _)| f.mask())
            .sum(); // fields do not overlap: the sum is their union
        let split = cands.iter().fold(0u128, |m, &b| {
            m | (self.new.opcodes[b].fixed_mask & variable)
        });
        if split.count_ones() > MAX_SPLIT_BITS {
            let base = base_values(op, &doms);
            let br = self.example(
                a,
                &base,
                Vec::new(),
                format!(
                    "its words are split among NEW opcodes by {} bits (at most {MAX_SPLIT_BITS} are analysed)",
                    split.count_ones()
                ),
            );
            fate.broken.push((None, base, br));
            fate.cases = None;
            return fate;
        }
        // The candidates by the split bits they fix and how: a case's target is among
        // those whose split bits agree with the case's (any other fixes a split bit
        // otherwise, so `takes` refuses it), found without a test of every candidate
        // per case (4,096 cases times as many candidates).
        let mut by_split: Vec<(u128, HashMap<u128, Vec<usize>>)> = Vec::new();
        let mut split_group: HashMap<u128, usize> = HashMap::new();
        for &b in cands {
            let nb = &self.new.opcodes[b];
            let m = nb.fixed_mask & split;
            let g = *split_group.entry(m).or_insert_with(|| {
                by_split.push((m, HashMap::new()));
                by_split.len() - 1
            });
            by_split[g].1.entry(nb.fixed_bits & m).or_default().push(b);
        }
        let mut cases = 0;
        let bits: Vec<u32> = (0..128).filter(|i| split >> i & 1 == 1).collect();
        for case in 0u32..(1 << bits.len()) {
            let want: u128 = bits
                .iter()
                .enumerate()
                .filter(|(k, _)| case >> k & 1 == 1)
                .map(|(_, &i)| 1u128 << i)
                .sum(); // distinct bits: the sum is their union
            let narrowed: Vec<Dom> = op
                .fields
                .iter()
                .zip(&doms)
                .map(|(f, d)| {
                    d.narrowed((split & f.mask()) >> f.start, (want & f.mask()) >> f.start)
                })
                .collect();
            if narrowed.iter().any(Dom::is_empty) {
                continue;
            }
            cases += 1;
            let base = base_values(op, &narrowed);
            let mut agree: Vec<usize> = by_split
                .iter()
                .filter_map(|(m, by)| by.get(&(want & m)))
                .flatten()
                .copied()
                .collect();
            agree.sort_unstable(); // NEW's order: dispatch takes the first that matches
            let target = agree
                .into_iter()
                .find(|&b| takes(&self.new.opcodes[b], &narrowed));
            match target {
                None => {
                    let why = if split == 0 {
                        "no NEW opcode decodes its words".to_string()
                    } else {
                        "no NEW opcode decodes some of its words".to_string()
                    };
                    let fields = fields_in(op, split);
                    let br = self.example(a, &base, fields, why);
                    fate.broken.push((None, base, br));
                }
                Some(b) => {
                    if let Some(br) = self.compare(a, b, &narrowed, &base) {
                        fate.broken.push((Some(b), base, br));
                    }
                }
            }
        }
        fate.cases = Some(cases);
        fate
    }

    /// The NEW opcode of A's name when A moved: its fixed bits differ and none of A's
    /// words can decode as it.
    fn moved_to(&self, a: usize, fate: &Fate) -> Option<usize> {
        let op = &self.old.opcodes[a];
        let b = self.nn.opcode(&op.name)?;
        let nb = &self.new.opcodes[b];
        let other_bits = (op.fixed_mask, op.fixed_bits) != (nb.fixed_mask, nb.fixed_bits);
        (other_bits && fate.cands.binary_search(&b).is_err()).then_some(b)
    }

    /// A moved opcode's breaks as one, saying where its words go now. The example is
    /// the first breaking case's base word when it breaks (the opcode's plainest
    /// words, decoded where they now go), else that case's own example.
    fn moved(&self, a: usize, b: usize, fate: Fate) -> Break {
        let (fields, from, to) = self.identity_change(a, b);
        let whole = fate.cases == Some(fate.broken.len());
        let some = if whole { "" } else { "some of " };
        let mut goes: Vec<Option<usize>> = Vec::new();
        let mut seen = HashSet::new();
        for (t, _, _) in &fate.broken {
            if seen.insert(*t) {
                goes.push(*t);
            }
        }
        let named: Vec<String> = goes
            .iter()
            .flatten()
            .map(|&c| format!("`{}`", self.new.opcodes[c].name))
            .collect();
        let (target, base, first) = fate.broken.into_iter().next().expect("a break");
        let tail = if fate.cases.is_none() {
            first.why.clone()
        } else if named.is_empty() {
            format!("no NEW opcode decodes {some}its OLD words")
        } else {
            format!(
                "{some}its OLD words decode as {}{}",
                named.join(", "),
                if seen.contains(&None) {
                    " or not at all"
                } else {
                    ""
                }
            )
        };
        let every: Vec<usize> = (0..base.len()).collect();
        let shown = target
            .and_then(|t| self.check(a, t, &base, &every, &base))
            .unwrap_or(first);
        Break {
            fields,
            why: format!("moved from {from} to {to}; {tail}"),
            moved: Some(Moved { from, to }),
            ..shown
        }
    }

    /// The fixed fields that tell OLD `a` and NEW `b` (of one name) apart, and how
    /// each side fixes them (see [`Moved`]).
    fn identity_change(&self, a: usize, b: usize) -> (Vec<String>, String, String) {
        let (x, y) = (&self.old.opcodes[a], &self.new.opcodes[b]);
        let (fx, fy) = (
            by_name(&x.fields, |f| &f.name),
            by_name(&y.fields, |f| &f.name),
        );
        let names = x.fields.iter().chain(&y.fields).map(|f| f.name.as_str());
        let mut seen = HashSet::new();
        let (mut fields, mut from, mut to) = (Vec::new(), Vec::new(), Vec::new());
        for n in names.filter(|n| seen.insert(*n)) {
            let (f, g) = (
                fx.get(n).copied().filter(|f| f.is_fixed()),
                fy.get(n).copied().filter(|g| g.is_fixed()),
            );
            let (f, g) = match (f, g) {
                (None, None) => continue,
                (Some(f), Some(g)) if (f.start, f.width, f.role) == (g.start, g.width, g.role) => {
                    continue
                }
                fg => fg,
            };
            // Where both fix it at other bits, each side says where.
            let moved_bits =
                matches!((f, g), (Some(f), Some(g)) if (f.start, f.width) != (g.start, g.width));
            let side = |m: &Names, f: Option<&Field>| match f {
                None => format!("{n} not fixed"),
                Some(f) => {
                    let t = fixed_field(m, f, true).unwrap_or_default();
                    if moved_bits {
                        format!("{t} at bits {}", bits(f.start, f.width))
                    } else {
                        t
                    }
                }
            };
            fields.push(n.to_string());
            from.push(side(self.on, f));
            to.push(side(self.nn, g));
        }
        (fields, from.join(", "), to.join(", "))
    }

    /// A's words (within `doms`) against NEW opcode `b`, which takes all of them.
    fn compare(&self, a: usize, b: usize, doms: &[Dom], base: &[u128]) -> Option<Break> {
        let op = &self.old.opcodes[a];
        let nb = &self.new.opcodes[b];
        // Bits a word of A may set that B does not cover: reserved under NEW.
        for (k, f) in op.fields.iter().enumerate() {
            let outside = (f.mask() & !nb.covered) >> f.start;
            for i in 0..f.width {
                if outside >> i & 1 == 1 && doms[k].meets(1 << i, 1 << i) {
                    let mut v = base.to_vec();
                    v[k] = doms[k].narrowed(1 << i, 1 << i).first()?;
                    return Some(self.example(
                        a,
                        &v,
                        vec![f.name.clone()],
                        format!("bit {} is reserved in NEW `{}`", f.start + i, nb.name),
                    ));
                }
            }
        }
        if self.old_prints[a] == self.new_prints[b] {
            return None;
        }
        let groups = groups(self.old, op, self.new, nb);
        let every: Vec<usize> = (0..op.fields.len()).collect();
        if let Some(br) = self.check(a, b, base, &every, base) {
            return Some(br);
        }
        // Every combination of each group, the others at their defaults.
        let mut off_default: Vec<Vec<u128>> = Vec::new();
        // An enumeration's codes are written out in the spec: listing them all is
        // linear in its size, however many there are (a value renamed in the middle
        // of 100,000 is seen; boundary probes would miss it).
        let listed = |k: usize| {
            let limit = if self.old.ty(op.fields[k].ty).enum_values().is_some() {
                u128::MAX
            } else {
                LISTED
            };
            doms[k].list(limit)
        };
        for g in &groups {
            let lists: Vec<Vec<u128>> = g
                .iter()
                .map(|&k| listed(k).unwrap_or_else(|| doms[k].probes()))
                .collect();
            let total = lists
                .iter()
                .fold(1u128, |n, l| n.saturating_mul(l.len() as u128));
            // Listing is exact; a group with more combinations than that is probed
            // (boundaries), and each of its enumerations listed alone.
            let lists = if total > LISTED {
                for (j, &k) in g.iter().enumerate() {
                    if self.old.ty(op.fields[k].ty).enum_values().is_none() {
                        continue;
                    }
                    let mut v = base.to_vec();
                    for &c in &lists[j] {
                        v[k] = c;
                        if let Some(br) = self.check(a, b, &v, g, base) {
                            return Some(br);
                        }
                    }
                }
                g.iter().map(|&k| doms[k].probes()).collect()
            } else {
                lists
            };
            let mut v = base.to_vec();
            let mut idx = vec![0usize; g.len()];
            'combos: loop {
                for (j, &k) in g.iter().enumerate() {
                    v[k] = lists[j][idx[j]];
                }
                if let Some(br) = self.check(a, b, &v, g, base) {
                    return Some(br);
                }
                for j in 0..g.len() {
                    idx[j] += 1;
                    if idx[j] < lists[j].len() {
                        continue 'combos;
                    }
                    idx[j] = 0;
                }
                break;
            }
            // Off its default: each field at its first value off its base (where it
            // has one), so that every unit of the group prints off its default (the
            // first combination off the base can leave a modifier of the group at it).
            off_default.push(
                g.iter()
                    .zip(&lists)
                    .map(|(&k, l)| l.iter().copied().find(|&c| c != base[k]).unwrap_or(base[k]))
                    .collect(),
            );
        }
        // Modifier order: every group off its default at once. This word and the ones
        // above are enough. A printed word is its units' texts in an order; a unit's
        // text depends on its own fields only; a default operand is left out or not by
        // the next printed operand alone (`omit::may_read_as`); modifier tokens are
        // unique across fields (the checker's rule). So two units printed in another
        // order stay so when a third is printed too, and a difference in omission
        // already shows with only the following operand off its default: no mix of
        // groups at and off their defaults shows a break these words do not.
        let mut all = base.to_vec();
        for (g, off) in groups.iter().zip(&off_default) {
            for (j, &k) in g.iter().enumerate() {
                all[k] = off[j];
            }
        }
        self.check(a, b, &all, &every, base)
    }

    /// One word of A (field codes `v`, the fields `shown` varied from `base`): a
    /// break when NEW decodes it otherwise.
    fn check(
        &self,
        a: usize,
        b: usize,
        v: &[u128],
        shown: &[usize],
        base: &[u128],
    ) -> Option<Break> {
        let d = Decoded {
            opcode: a,
            values: v.to_vec(),
        };
        let word = self.old.encode(&d);
        // The case gave every such word `b`'s fixed bits, and no other NEW opcode can
        // match a word `b` matches (the checker's rule): NEW's dispatch is `b`, without
        // the scan of every NEW opcode a word that made thousands of opcodes quadratic.
        let why = match self.new.decode_as(b, word) {
            Ok(n) => {
                if self.old_asm.print(&d, 0) == self.new_asm.print(&n, 0) {
                    return None;
                }
                "it prints differently"
            }
            Err(_) => "it decodes otherwise",
        };
        Some(self.example(a, v, self.blame(a, b, shown, v, base), why.into()))
    }

    /// The fields a break is put down to: those of `shown` off their base values;
    /// at the base values, those whose layout, type, role or default differ in B.
    fn blame(&self, a: usize, b: usize, shown: &[usize], v: &[u128], base: &[u128]) -> Vec<String> {
        let op = &self.old.opcodes[a];
        let off: Vec<usize> = shown.iter().copied().filter(|&k| v[k] != base[k]).collect();
        let picked = if off.is_empty() {
            let nb = &self.new.opcodes[b];
            shown
                .iter()
                .copied()
                .filter(|&k| {
                    let f = &op.fields[k];
                    !f.is_fixed()
                        && !nb.fields.iter().any(|g| {
                            g.start == f.start
                                && g.width == f.width
                                && g.default == f.default
                                && std::mem::discriminant(&g.role)
                                    == std::mem::discriminant(&f.role)
                                && self.new_types[g.ty.0] == self.old_types[f.ty.0]
                        })
                })
                .collect()
        } else {
            off
        };
        picked.iter().map(|&k| op.fields[k].name.clone()).collect()
    }

    /// A break shown by the word of A with field codes `v`, decoded under both specs.
    fn example(&self, a: usize, v: &[u128], fields: Vec<String>, why: String) -> Break {
        let d = Decoded {
            opcode: a,
            values: v.to_vec(),
        };
        let word = self.old.encode(&d);
        let old_text = self.old_asm.print(&d, 0);
        let (new_opcode, new_text) = match self.dispatch.decode(self.new, word) {
            Ok(n) => (
                Some(self.new.opcodes[n.opcode].name.clone()),
                self.new_asm.print(&n, 0),
            ),
            Err(e) => {
                let (op, text) = failure(self.new, &e);
                (op, text)
            }
        };
        Break {
            opcode: self.old.opcodes[a].name.clone(),
            new_opcode,
            fields,
            why,
            word,
            old_text,
            new_text,
            moved: None,
        }
    }
}

/// NEW's opcodes by their fixed bits, to find those that can take an OLD opcode's words
/// without testing every pair (quadratic: 4,096 opcodes against themselves were 16
/// million tests).
struct Dispatch {
    /// NEW opcodes grouped by fixed mask, in order of first appearance.
    groups: Vec<(u128, Vec<usize>)>,
    /// For a group and the bits of its mask that an OLD opcode fixes: the group's
    /// opcodes by their fixed bits there.
    by_known: HashMap<(usize, u128), HashMap<u128, Vec<usize>>>,
    /// Per group: its first opcode (in NEW's order) of each fixed bits, to decode a
    /// word as `Model::decode` does without its scan of every NEW opcode.
    exact: Vec<HashMap<u128, usize>>,
}

impl Dispatch {
    fn new(old: &Model, new: &Model) -> Dispatch {
        let mut groups: Vec<(u128, Vec<usize>)> = Vec::new();
        let mut group_of: HashMap<u128, usize> = HashMap::new();
        for (b, op) in new.opcodes.iter().enumerate() {
            let g = *group_of.entry(op.fixed_mask).or_insert_with(|| {
                groups.push((op.fixed_mask, Vec::new()));
                groups.len() - 1
            });
            groups[g].1.push(b);
        }
        // Specs have a few fixed masks, so a few maps serve every OLD opcode; each
        // OLD mask once (not each OLD opcode times each group).
        let mut old_masks: Vec<u128> = old.opcodes.iter().map(|a| a.fixed_mask).collect();
        old_masks.sort_unstable();
        old_masks.dedup();
        let mut by_known: HashMap<(usize, u128), HashMap<u128, Vec<usize>>> = HashMap::new();
        for a_mask in old_masks {
            for (g, (mask, ops)) in groups.iter().enumerate() {
                let known = mask & a_mask;
                by_known.entry((g, known)).or_insert_with(|| {
                    let mut m: HashMap<u128, Vec<usize>> = HashMap::new();
                    for &b in ops {
                        m.entry(new.opcodes[b].fixed_bits & known)
                            .or_default()
                            .push(b);
                    }
                    m
                });
            }
        }
        let exact = groups
            .iter()
            .map(|(_, ops)| {
                let mut m = HashMap::with_capacity(ops.len());
                for &b in ops {
                    m.entry(new.opcodes[b].fixed_bits).or_insert(b);
                }
                m
            })
            .collect();
        Dispatch {
            groups,
            by_known,
            exact,
        }
    }

    /// `new.decode(word)`: the first NEW opcode whose fixed bits match, found by one
    /// look-up a fixed mask.
    fn decode(&self, new: &Model, word: u128) -> Result<Decoded, DecodeFailure> {
        let b = self
            .groups
            .iter()
            .zip(&self.exact)
            .filter_map(|((mask, _), m)| m.get(&(word & mask)).copied())
            .min()
            .ok_or(DecodeFailure::NoOpcode)?;
        new.decode_as(b, word)
    }

    /// The NEW opcodes whose fixed bits agree with `a`'s where both fix, in NEW's order
    /// (the order dispatch tries them in): every NEW opcode that can take a word of `a`,
    /// since `a`'s words hold its fixed bits.
    fn agreeing(&self, a: &Opcode) -> Vec<usize> {
        let mut out = Vec::new();
        for (g, (mask, _)) in self.groups.iter().enumerate() {
            let known = mask & a.fixed_mask;
            if let Some(ops) = self.by_known.get(&(g, known)) {
                out.extend(ops.get(&(a.fixed_bits & known)).into_iter().flatten());
            }
        }
        out.sort_unstable();
        out
    }
}

/// Why a word does not decode, in words.
fn failure(m: &Model, e: &DecodeFailure) -> (Option<String>, String) {
    match *e {
        DecodeFailure::NoOpcode => (None, "does not decode: no opcode matches".into()),
        DecodeFailure::ReservedBits { opcode, bits } => (
            Some(m.opcodes[opcode].name.clone()),
            format!(
                "does not decode: reserved bits {bits:#x} of `{}` are set",
                m.opcodes[opcode].name
            ),
        ),
        DecodeFailure::InvalidField {
            opcode,
            field,
            value,
        } => {
            let op = &m.opcodes[opcode];
            (
                Some(op.name.clone()),
                format!(
                    "does not decode: {value:#x} is not a `{}` (field `{}` of `{}`)",
                    m.ty(op.fields[field].ty).name,
                    op.fields[field].name,
                    op.name
                ),
            )
        }
    }
}

/// Field codes to start from: each field's default when it is a member, else its
/// first member.
fn base_values(op: &Opcode, doms: &[Dom]) -> Vec<u128> {
    op.fields
        .iter()
        .zip(doms)
        .map(|(f, d)| match f.default {
            Some(c) if d.contains(c) => c,
            _ => d.first().unwrap_or(0),
        })
        .collect()
}

fn fields_in(op: &Opcode, bits: u128) -> Vec<String> {
    op.fields
        .iter()
        .filter(|f| f.mask() & bits != 0)
        .map(|f| f.name.clone())
        .collect()
}

/// What printing an opcode depends on, apart from the field codes: equal fingerprints
/// print every word alike. `types` are the model's type prints ([`type_prints`]).
fn fingerprint(m: &Model, i: usize, types: &[usize]) -> String {
    let op = &m.opcodes[i];
    let mut s = isa_gen::asm::mnemonic(m, i);
    for f in &op.fields {
        // A fixed field never prints: its code is all that matters.
        let ty = match f.role {
            Role::Fixed(_) => String::new(),
            _ => types[f.ty.0].to_string(),
        };
        s.push_str(&format!(
            "|{}@{}+{}:{ty}:{:?}:{:?}",
            f.name, f.start, f.width, f.role, f.default
        ));
    }
    for o in &op.order {
        let kind = match o.kind {
            OperandKind::RegIndexed { file, reg, offset } => {
                format!("ri({},{reg},{offset})", types[file.0])
            }
            OperandKind::Word(w) => format!("w({})", m.words[w.0].name),
            k => format!("{k:?}"),
        };
        s.push_str(&format!("|o:{kind}"));
    }
    s.push_str(&format!("|{:?}", op.asm_formats));
    for b in &op.bitwidths {
        s.push_str(&format!("|bw{}:{:?}", b.field, b.expr));
    }
    for d in m.opcode_docs(op) {
        if d.kind == DocKind::Syntax {
            for l in d.code_blocks.iter().flat_map(|b| &b.lines) {
                s.push_str(&format!("|syn:{}", l.text.trim()));
            }
        }
    }
    s
}

/// Each type of OLD and of NEW numbered by how it prints its codes ([`type_print`]):
/// equal numbers for equal prints, across the two models.
fn type_prints(old: &Model, new: &Model) -> (Vec<usize>, Vec<usize>) {
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut number = |m: &Model| -> Vec<usize> {
        (0..m.types.len())
            .map(|t| {
                let n = seen.len();
                *seen.entry(type_print(m, TypeId(t))).or_insert(n)
            })
            .collect()
    };
    let old_types = number(old);
    (old_types, number(new))
}

/// How a type prints its codes.
fn type_print(m: &Model, t: TypeId) -> String {
    let t = m.ty(t);
    match &t.kind {
        TypeKind::Enum(vs) => {
            let v: Vec<String> = vs
                .iter()
                .map(|v| format!("{}={}", v.name, v.code))
                .collect();
            format!("enum{}[{}]", t.width, v.join(","))
        }
        TypeKind::RegFile(r) => format!(
            "reg{}[{}{}..{}{:?}]",
            t.width, r.prefix, r.lo, r.hi, r.named
        ),
        TypeKind::Immediate { signed } => format!("imm{}{signed}", t.width),
        TypeKind::ConstMem {
            bank_bits,
            offset_bits,
            offset_signed,
        } => format!("cmem{bank_bits}/{offset_bits}{offset_signed}"),
    }
}

/// A's fields grouped by what the two printers read together (see the module docs).
fn groups(old: &Model, a: &Opcode, new: &Model, b: &Opcode) -> Vec<Vec<usize>> {
    let n = a.fields.len();
    let mut parent: Vec<usize> = (0..n).collect();
    fn root(p: &mut [usize], mut i: usize) -> usize {
        while p[i] != i {
            p[i] = p[p[i]];
            i = p[i];
        }
        i
    }
    let join = |set: &[usize], p: &mut Vec<usize>| {
        for w in set.windows(2) {
            let (x, y) = (root(p, w[0]), root(p, w[1]));
            p[x] = y;
        }
    };
    // A's fields overlapping the bits of a set of B's fields.
    let overlap =
        |mask: u128| -> Vec<usize> { (0..n).filter(|&k| a.fields[k].mask() & mask != 0).collect() };
    for unit in print_units(old, a) {
        join(&unit, &mut parent);
    }
    for unit in print_units(new, b) {
        let mask = unit.iter().fold(0u128, |m, &k| m | b.fields[k].mask());
        join(&overlap(mask), &mut parent);
    }
    for f in &b.fields {
        join(&overlap(f.mask()), &mut parent);
    }
    let mut by_root: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for k in 0..n {
        if a.fields[k].is_fixed() {
            continue;
        }
        let r = root(&mut parent, k);
        by_root.entry(r).or_default().push(k);
    }
    by_root.into_values().collect()
}

/// The sets of fields a printer prints from together: the guard with its sub-fields,
/// each modifier, each operand with its sub-fields, `CvtINegX` ext field and the
/// fields its `Bitwidth` reads. A field in none needs no unit: a unit of one field of
/// A joins nothing, and `groups` joins each field of B by its own bits anyway.
fn print_units(m: &Model, op: &Opcode) -> Vec<Vec<usize>> {
    let mut units: Vec<Vec<usize>> = Vec::new();
    let with_subs = |f: usize| -> Vec<usize> {
        let mut v = vec![f];
        for s in op.sub_fields(f) {
            v.push(s);
            for a in &op.asm_formats {
                if let AsmFormat::INegX { neg, ext } = *a {
                    if neg == s {
                        v.push(ext);
                    }
                }
            }
        }
        if let Some(bw) = op.bitwidth(f) {
            bw.expr.fields(&mut v);
        }
        v
    };
    if let Some(g) = op.guard(m) {
        units.push(with_subs(g));
    }
    for o in &op.order {
        let mut u = Vec::new();
        for f in o.kind.fields() {
            u.extend(with_subs(f));
        }
        if !u.is_empty() {
            units.push(u);
        }
    }
    for (k, f) in op.fields.iter().enumerate() {
        if f.role == Role::Modifier {
            units.push(with_subs(k));
        }
    }
    units
}
