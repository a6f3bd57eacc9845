//! Printing an instruction as assembly (see the rules in the module docs of `asm`).

use std::cmp::Ordering;

use super::{hex, parse, sign_extend, Assembler, SubKind};
use crate::model::interp::Decoded;
use crate::model::{Address, Model, Opcode, Operand, OperandKind, Type, TypeKind};

/// The code of a symbol sub-field when its symbol is written (see
/// [`crate::model::Type::symbol_codes`]).
pub(crate) fn set_code(model: &Model, op: &Opcode, sub: usize) -> u128 {
    model
        .ty(op.fields[sub].ty)
        .symbol_codes()
        .map_or(1, |c| c.1)
}

/// The code of a symbol sub-field when its symbol is absent.
pub(crate) fn unset_code(model: &Model, op: &Opcode, sub: usize) -> u128 {
    model
        .ty(op.fields[sub].ty)
        .symbol_codes()
        .map_or(0, |c| c.0)
}

/// Whether a `CvtINegX` negation prints as `~` (its `ext` modifier is `X`).
pub(crate) fn neg_is_tilde(
    model: &Model,
    op: &Opcode,
    ext: Option<usize>,
    values: &[u128],
) -> bool {
    ext.is_some_and(|e| model.ty(op.fields[e].ty).enum_name(values[e]) == Some("X"))
}

/// Registers an operand of this width spans (32 bits each).
pub(crate) fn reg_count(op: &Opcode, field: usize, values: &[u128]) -> u128 {
    match op.bitwidth(field) {
        None => 1,
        Some(b) => {
            let bw = b.expr.eval(&|f| values[f]).clamp(1, 1024) as u128;
            bw.div_ceil(32).max(1)
        }
    }
}

/// How [`Assembler::print_with`] writes an instruction. The default is what
/// [`Assembler::print`] writes: hex numbers, addresses as numbers, defaults left out.
#[derive(Clone, Copy, Default)]
pub struct PrintOptions<'a> {
    /// Names addresses: an address operand whose address has a name prints as a label
    /// reference `` `(name) `` (what a disassembler does with a symbol table).
    pub symbols: Option<&'a dyn Fn(u64) -> Option<String>>,
    /// Immediates in decimal (`-16`) instead of hex (`-0x10`).
    pub decimal: bool,
    /// Modifiers at their default value printed too.
    pub show_defaults: bool,
}

impl PrintOptions<'_> {
    fn number(&self, v: i128) -> String {
        if self.decimal {
            v.to_string()
        } else {
            hex(v)
        }
    }

    fn address(&self, a: i128) -> String {
        match self.symbols.and_then(|f| f(a as u64)) {
            Some(name) => format!("`({name})"),
            None => self.number(a),
        }
    }
}

pub(crate) fn print(a: &Assembler, d: &Decoded, addr: u64, opts: &PrintOptions) -> String {
    let model = a.model;
    let op = &model.opcodes[d.opcode];
    let oa = &a.ops[d.opcode];
    let v = &d.values;
    let mut out = String::new();

    // Guard.
    if let Some(g) = oa.guard {
        let negated = oa
            .subs
            .get(&g)
            .into_iter()
            .flatten()
            .find(|(_, k)| *k == SubKind::Not);
        let neg_set = negated.is_some_and(|&(s, _)| v[s] == set_code(model, op, s));
        // Left out at its default (`PT`) unless negated.
        if op.fields[g].default != Some(v[g]) || neg_set {
            out.push('@');
            if neg_set {
                out.push('!');
            }
            out.push_str(&reg_name(model, op, g, v[g]));
            out.push(' ');
        }
    }

    // Mnemonic and modifiers.
    out.push_str(&super::mnemonic(model, d.opcode));
    for &m in &oa.modifiers {
        let f = &op.fields[m];
        if f.default != Some(v[m]) || opts.show_defaults {
            out.push('.');
            out.push_str(model.ty(f.ty).enum_name(v[m]).unwrap_or("?"));
        }
    }

    // Operands, deciding omissions from the last one back.
    let texts: Vec<String> = oa
        .operands
        .iter()
        .map(|o| operand_text(a, d, o, addr, opts))
        .collect();
    let required_after = parse::required_after(a, d.opcode);
    let mut printed: Vec<bool> = vec![true; texts.len()];
    for k in (0..texts.len()).rev() {
        if !at_default(a, d, &oa.operands[k]) {
            continue;
        }
        let after: Vec<usize> = (k + 1..texts.len()).filter(|&j| printed[j]).collect();
        let would_take = match after.first() {
            None => false,
            Some(&next) => {
                after.len() > required_after[k]
                    && super::omit::may_read_as(model, op, &oa.operands[k], &oa.operands[next])
            }
        };
        if !would_take {
            printed[k] = false;
        }
    }
    let shown: Vec<&str> = texts
        .iter()
        .zip(&printed)
        .filter(|(_, p)| **p)
        .map(|(t, _)| t.as_str())
        .collect();
    if !shown.is_empty() {
        out.push(' ');
        out.push_str(&shown.join(", "));
    }
    out
}

/// Whether an operand (and its sub-fields) holds its defaults, so it may be left out.
pub(crate) fn at_default(a: &Assembler, d: &Decoded, o: &Operand) -> bool {
    let op = &a.model.opcodes[d.opcode];
    let OperandKind::Field(f) = o.kind else {
        return false;
    };
    let is_default = |i: usize| op.fields[i].default == Some(d.values[i]);
    is_default(f)
        && a.ops[d.opcode]
            .subs
            .get(&f)
            .into_iter()
            .flatten()
            .all(|&(s, _)| is_default(s))
}

fn reg_name(model: &Model, op: &Opcode, f: usize, code: u128) -> String {
    model
        .ty(op.fields[f].ty)
        .reg_file()
        .and_then(|r| r.name_of(code))
        .unwrap_or_else(|| format!("{code:#x}"))
}

fn prefixes(a: &Assembler, d: &Decoded, f: usize) -> String {
    let model = a.model;
    let op = &model.opcodes[d.opcode];
    let mut s = String::new();
    let subs = a.ops[d.opcode].subs.get(&f);
    for want in [0, 1, 2] {
        for &(sub, kind) in subs.into_iter().flatten() {
            let set = d.values[sub] == set_code(model, op, sub);
            if !set {
                continue;
            }
            match (want, kind) {
                (0, SubKind::Not) => s.push('!'),
                (1, SubKind::Neg { ext }) => s.push(if neg_is_tilde(model, op, ext, &d.values) {
                    '~'
                } else {
                    '-'
                }),
                (2, SubKind::BitNot) => s.push('~'),
                _ => {}
            }
        }
    }
    s
}

fn suffixes(a: &Assembler, d: &Decoded, f: usize) -> String {
    let model = a.model;
    let op = &model.opcodes[d.opcode];
    let mut s = String::new();
    for &(sub, kind) in a.ops[d.opcode].subs.get(&f).into_iter().flatten() {
        if kind == SubKind::Suffix && op.fields[sub].default != Some(d.values[sub]) {
            s.push('.');
            s.push_str(
                model
                    .ty(op.fields[sub].ty)
                    .enum_name(d.values[sub])
                    .unwrap_or("?"),
            );
        }
    }
    s
}

fn operand_text(a: &Assembler, d: &Decoded, o: &Operand, addr: u64, opts: &PrintOptions) -> String {
    let model = a.model;
    let op = &model.opcodes[d.opcode];
    let v = &d.values;
    match o.kind {
        OperandKind::Field(f) => {
            let t = model.ty(op.fields[f].ty);
            let core = match &t.kind {
                TypeKind::RegFile(rf) => {
                    let count = reg_count(op, f, v);
                    if count > 1 && (rf.lo..=rf.hi).contains(&v[f]) {
                        format!("{}[{}:{}]", rf.prefix, v[f], v[f] + count - 1)
                    } else {
                        reg_name(model, op, f, v[f])
                    }
                }
                TypeKind::Immediate { signed } => {
                    let value = if *signed {
                        sign_extend(v[f], t.width)
                    } else {
                        v[f] as i128
                    };
                    match op.address_at(f, v) {
                        // (`address_at` resolves `Select` to one of the others.)
                        Some((shift, Address::Relative | Address::Select { .. })) => {
                            opts.address(addr as i128 + 16 + (value << shift))
                        }
                        Some((shift, Address::Absolute)) => opts.address(value << shift),
                        Some((shift, Address::Number)) => opts.number(value << shift),
                        None => opts.number(value),
                    }
                }
                TypeKind::ConstMem { .. } => cmem_text(t, v[f], None),
                TypeKind::Enum(_) => t.enum_name(v[f]).unwrap_or("?").to_string(),
            };
            format!("{}{}{}", prefixes(a, d, f), core, suffixes(a, d, f))
        }
        OperandKind::CMemIndexed { mem, reg } => {
            let mem_ty = model.ty(op.fields[mem].ty);
            let rf = model.ty(op.fields[reg].ty).reg_file();
            let is_zero = rf.is_some_and(|r| !(r.lo..=r.hi).contains(&v[reg]));
            let reg_text = (!is_zero).then(|| reg_name(model, op, reg, v[reg]));
            format!(
                "{}{}{}",
                prefixes(a, d, mem),
                cmem_text(mem_ty, v[mem], reg_text),
                suffixes(a, d, mem)
            )
        }
        OperandKind::RegIndexed { file, reg, offset } => {
            let prefix = model.ty(file).reg_file().map_or("", |r| r.prefix.as_str());
            let t = model.ty(op.fields[offset].ty);
            let off = match t.kind {
                TypeKind::Immediate { signed: true } => sign_extend(v[offset], t.width),
                _ => v[offset] as i128,
            };
            let base = reg_name(model, op, reg, v[reg]);
            match off.cmp(&0) {
                Ordering::Equal => format!("{prefix}[{base}]"),
                Ordering::Less => format!("{prefix}[{base}-{:#x}]", off.unsigned_abs()),
                Ordering::Greater => format!("{prefix}[{base}+{off:#x}]"),
            }
        }
        OperandKind::Word(w) => model.words[w.0].name.clone(),
    }
}

/// `c[bank][offset]` or `c[bank][reg±offset]` for code `code` of constant-memory type `t`.
fn cmem_text(t: &Type, code: u128, reg: Option<String>) -> String {
    let Some((bank, off)) = t.cmem_parts(code) else {
        return String::new();
    };
    match (reg, off.cmp(&0)) {
        (None, _) => format!("c[{bank:#x}][{}]", hex(off)),
        (Some(r), Ordering::Equal) => format!("c[{bank:#x}][{r}]"),
        (Some(r), Ordering::Less) => format!("c[{bank:#x}][{r}-{:#x}]", off.unsigned_abs()),
        (Some(r), Ordering::Greater) => format!("c[{bank:#x}][{r}+{off:#x}]"),
    }
}
