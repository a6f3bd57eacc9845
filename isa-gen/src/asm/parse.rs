//! Parsing one line of assembly against the model.

use super::lex::{lex_line, Core, OperandTok, Part};
use super::print::{neg_is_tilde, reg_count, set_code, unset_code};
use super::{expected_kind, hex, AsmError, Assembler, SubKind};
use crate::model::interp::Decoded;
use crate::model::{Model, Opcode, Operand, OperandKind, Role, TypeKind};
use crate::suggest;

/// Why one candidate opcode rejected the line.
struct Fail {
    /// How far it got: higher is more specific.
    rank: u32,
    err: AsmError,
    /// Operand index and expectation, when the failure is a kind mismatch (so the
    /// expectations of several candidates can be merged).
    mismatch: Option<(usize, String)>,
}

/// Outcome of trying a token on an operand.
enum Assign {
    Ok,
    /// The token is not this kind of operand.
    Mismatch,
    /// Right kind, wrong value: the message says what is wrong.
    Invalid(String),
}

/// For each operand index, how many required operands follow it.
pub(crate) fn required_after(a: &Assembler, opcode: usize) -> Vec<usize> {
    let ops = &a.ops[opcode].operands;
    let op = &a.model.opcodes[opcode];
    let required: Vec<bool> = ops.iter().map(|o| !is_optional(op, o)).collect();
    (0..ops.len())
        .map(|k| required[k + 1..].iter().filter(|r| **r).count())
        .collect()
}

fn is_optional(op: &Opcode, o: &Operand) -> bool {
    matches!(o.kind, OperandKind::Field(f) if op.fields[f].default.is_some())
}

/// Whether `tok` is the kind of operand `o` (even if its value were invalid).
pub(crate) fn kind_fits(
    a: &Assembler,
    opcode: usize,
    o: &Operand,
    tok: &OperandTok,
    values: &[u128],
) -> bool {
    let mut scratch = values.to_vec();
    !matches!(
        assign(a, opcode, o, tok, &mut scratch, 0, &|_| None),
        Assign::Mismatch
    )
}

pub(crate) fn parse_line(
    a: &Assembler,
    line: &str,
    addr: u64,
    labels: &dyn Fn(&str) -> Option<u64>,
) -> Result<Decoded, AsmError> {
    let toks = lex_line(line).map_err(|e| AsmError::new(e.span, e.message))?;
    // Longest dotted prefix that is a mnemonic (`UIMAD.WIDE.U32` → `UIMAD.WIDE`).
    let mut found = None;
    for k in (1..=toks.parts.len()).rev() {
        let name: Vec<&str> = toks.parts[..k].iter().map(|p| p.text).collect();
        if let Some(ops) = a.opcodes_of(&name.join(".")) {
            found = Some((k, ops));
            break;
        }
    }
    let Some((k, candidates)) = found else {
        let p = &toks.parts[0];
        let mut e = AsmError::new(p.span.clone(), format!("unknown mnemonic `{}`", p.text));
        let near = suggest::nearest_n(p.text, a.mnemonics(), 3);
        if !near.is_empty() {
            e.notes.push(format!("did you mean {}?", quoted(&near)));
        }
        return Err(e);
    };
    let mnemonic_text =
        &line[toks.parts[0].span.start..toks.parts.last().map_or(0, |p| p.span.end)];
    let mods = &toks.parts[k..];
    let mut fails: Vec<Fail> = Vec::new();
    for &opcode in candidates {
        match attempt(a, opcode, &toks, mods, mnemonic_text, addr, labels) {
            Ok(d) => return Ok(d),
            Err(f) => fails.push(f),
        }
    }
    Err(best_failure(fails, mnemonic_text))
}

fn quoted(items: &[&str]) -> String {
    let q: Vec<String> = items.iter().map(|s| format!("`{s}`")).collect();
    match q.len() {
        0 => String::new(),
        1 => q[0].clone(),
        n => format!("{} or {}", q[..n - 1].join(", "), q[n - 1]),
    }
}

/// The most specific failure; kind mismatches at the same operand are merged
/// ("expected a Reg or a UImm5").
fn best_failure(mut fails: Vec<Fail>, mnemonic: &str) -> AsmError {
    let top = fails.iter().map(|f| f.rank).max().unwrap_or(0);
    fails.retain(|f| f.rank == top);
    let first = fails.remove(0);
    let Some((idx, exp)) = first.mismatch.clone() else {
        return first.err;
    };
    let mut expected = vec![exp];
    for f in &fails {
        if let Some((i, e)) = &f.mismatch {
            if *i == idx && !expected.contains(e) {
                expected.push(e.clone());
            }
        }
    }
    let mut err = first.err;
    if expected.len() > 1 {
        // Rebuild the message with every alternative.
        if let Some(pos) = err.message.find(": expected ") {
            let head = err.message[..pos].to_string();
            let found = err
                .message
                .rsplit_once(", found ")
                .map(|(_, f)| f.to_string())
                .unwrap_or_default();
            let alts: Vec<&str> = expected.iter().map(String::as_str).collect();
            err.message = format!("{head}: expected {}, found {found}", join_or(&alts));
        }
    }
    let _ = mnemonic;
    err
}

fn join_or(items: &[&str]) -> String {
    match items.len() {
        0 => String::new(),
        1 => items[0].to_string(),
        n => format!("{} or {}", items[..n - 1].join(", "), items[n - 1]),
    }
}

/// Hints for a token that is not the kind of operand expected.
fn hints(model: &Model, op: &Opcode, o: &OperandKind, tok: &OperandTok) -> Vec<String> {
    let Core::Name(name) = tok.core else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if op.fields.iter().any(|f| f.name == name) {
        out.push(format!(
            "`{name}` is the operand's name in the spec; write {} instead",
            super::expected_kind(model, op, o)
        ));
    }
    if let OperandKind::Field(f) = *o {
        if let Some(values) = model.ty(op.fields[f].ty).enum_values() {
            let starts: Vec<&str> = values
                .iter()
                .map(|v| v.name.as_str())
                .filter(|v| v.starts_with(name) && v.len() > name.len())
                .take(4)
                .collect();
            let near = if starts.is_empty() {
                suggest::nearest_n(name, values.iter().map(|v| v.name.as_str()), 3)
            } else {
                starts
            };
            if !near.is_empty() {
                out.push(format!("did you mean {}?", quoted(&near)));
            } else {
                out.push(format!(
                    "`{name}` is not a value of `{}`",
                    model.ty(op.fields[f].ty).name
                ));
            }
        }
    }
    out
}

fn found_text(tok: &OperandTok) -> String {
    tok.text.to_string()
}

#[allow(clippy::too_many_arguments)]
fn attempt(
    a: &Assembler,
    opcode: usize,
    toks: &super::lex::LineToks,
    mods: &[Part],
    mnemonic: &str,
    addr: u64,
    labels: &dyn Fn(&str) -> Option<u64>,
) -> Result<Decoded, Fail> {
    let model = a.model;
    let op = &model.opcodes[opcode];
    let oa = &a.ops[opcode];
    let mut d = model.default_instruction(opcode);
    // Symbol sub-fields without a default start unset.
    for (i, f) in op.fields.iter().enumerate() {
        if let Role::SubField(_) = f.role {
            if f.default.is_none() {
                d.values[i] = unset_code(model, op, i);
            }
        }
    }
    let mnemonic_span = toks.parts[0].span.start..toks.parts.last().map_or(0, |p| p.span.end);

    // Modifiers.
    let mut given: Vec<usize> = Vec::new();
    for part in mods {
        let hit = oa
            .modifiers
            .iter()
            .copied()
            .find(|&m| model.ty(op.fields[m].ty).enum_code(part.text).is_some());
        match hit {
            Some(m) if given.contains(&m) => {
                return Err(Fail {
                    rank: 1,
                    err: AsmError::new(
                        part.span.clone(),
                        format!(
                            "modifier `.{}` of `{mnemonic}` is given twice",
                            op.fields[m].name
                        ),
                    ),
                    mismatch: None,
                })
            }
            Some(m) => {
                d.values[m] = model.ty(op.fields[m].ty).enum_code(part.text).unwrap_or(0);
                given.push(m);
            }
            None => {
                let values: Vec<&str> = oa
                    .modifiers
                    .iter()
                    .flat_map(|&m| model.ty(op.fields[m].ty).enum_values().unwrap_or(&[]))
                    .map(|v| v.name.as_str())
                    .collect();
                let mut err = AsmError::new(
                    part.span.clone(),
                    format!(
                        "unknown modifier `.{}` for `{}`",
                        part.text,
                        super::mnemonic(model, opcode)
                    ),
                );
                let near = suggest::nearest_n(part.text, values.iter().copied(), 3);
                if !near.is_empty() {
                    let near: Vec<String> = near.iter().map(|n| format!(".{n}")).collect();
                    let near: Vec<&str> = near.iter().map(String::as_str).collect();
                    err.notes.push(format!("did you mean {}?", quoted(&near)));
                } else if !values.is_empty() {
                    let all: Vec<String> = values.iter().map(|v| format!(".{v}")).collect();
                    err.notes.push(format!(
                        "modifiers of `{}`: {}",
                        super::mnemonic(model, opcode),
                        all.join(" ")
                    ));
                }
                return Err(Fail {
                    rank: 1,
                    err,
                    mismatch: None,
                });
            }
        }
    }
    for &m in &oa.modifiers {
        let f = &op.fields[m];
        if f.default.is_none() && !given.contains(&m) {
            let vals: Vec<String> = model
                .ty(f.ty)
                .enum_values()
                .unwrap_or(&[])
                .iter()
                .map(|v| format!(".{}", v.name))
                .collect();
            return Err(Fail {
                rank: 1,
                err: AsmError::new(
                    mnemonic_span.end..mnemonic_span.end,
                    format!(
                        "`{mnemonic}` needs its `.{}` modifier: one of {}",
                        f.name,
                        vals.join(", ")
                    ),
                ),
                mismatch: None,
            });
        }
    }

    // Guard.
    if let Some(g) = &toks.guard {
        let Some(gf) = oa.guard else {
            return Err(Fail {
                rank: 2,
                err: AsmError::new(
                    g.span.clone(),
                    format!("`{mnemonic}` takes no guard predicate"),
                ),
                mismatch: None,
            });
        };
        let t = model.ty(op.fields[gf].ty);
        let code = t.reg_file().and_then(|r| r.code_of(g.name));
        let Some(code) = code else {
            return Err(Fail {
                rank: 2,
                err: AsmError::new(
                    g.span.clone(),
                    format!(
                        "guard of `{mnemonic}`: expected a {}, found `{}`",
                        t.name, g.name
                    ),
                ),
                mismatch: None,
            });
        };
        d.values[gf] = code;
        if g.negated {
            let not = oa
                .subs
                .get(&gf)
                .into_iter()
                .flatten()
                .find(|(_, k)| *k == SubKind::Not);
            match not {
                Some(&(s, _)) => d.values[s] = set_code(model, op, s),
                None => {
                    return Err(Fail {
                        rank: 2,
                        err: AsmError::new(
                            g.span.clone(),
                            format!("the guard of `{mnemonic}` cannot be negated"),
                        ),
                        mismatch: None,
                    })
                }
            }
        }
    }

    // Operands.
    let req_after = required_after(a, opcode);
    let n = toks.operands.len();
    let mut t = 0;
    // Optional operands skipped at the current token, for the mismatch message.
    let mut skipped: Vec<usize> = Vec::new();
    let mut skipped_at = usize::MAX;
    for (k, o) in oa.operands.iter().enumerate() {
        if skipped_at != t {
            skipped.clear();
            skipped_at = t;
        }
        let label = &oa.labels[k];
        let what = format!("`{mnemonic}` operand {} ({label})", k + 1);
        if t >= n {
            if is_optional(op, o) {
                continue;
            }
            let end = line_end(toks);
            return Err(Fail {
                rank: 10 + 2 * k as u32,
                err: AsmError::new(
                    end..end,
                    format!(
                        "{what} is missing: expected {}",
                        expected_kind(model, op, &o.kind)
                    ),
                ),
                mismatch: None,
            });
        }
        let tok = &toks.operands[t];
        if is_optional(op, o) {
            let room = n - t > req_after[k];
            if !room || !kind_fits(a, opcode, o, tok, &d.values) {
                if room {
                    skipped.push(k);
                }
                continue;
            }
        }
        match assign(a, opcode, o, tok, &mut d.values, addr, labels) {
            Assign::Ok => t += 1,
            Assign::Mismatch => {
                let exp = expected_kind(model, op, &o.kind);
                let mut ks = skipped.clone();
                ks.push(k);
                let nums: Vec<String> = ks.iter().map(|j| (j + 1).to_string()).collect();
                let labels: Vec<&str> = ks.iter().map(|&j| oa.labels[j].as_str()).collect();
                let exps: Vec<String> = ks
                    .iter()
                    .map(|&j| expected_kind(model, op, &oa.operands[j].kind))
                    .collect();
                let exps: Vec<&str> = exps.iter().map(String::as_str).collect();
                let what = format!(
                    "`{mnemonic}` operand {} ({})",
                    nums.join(" or "),
                    labels.join(" or ")
                );
                let mut err = AsmError::new(
                    tok.span.clone(),
                    format!(
                        "{what}: expected {}, found {}",
                        join_or(&exps),
                        found_text(tok)
                    ),
                );
                err.notes.extend(hints(model, op, &o.kind, tok));
                return Err(Fail {
                    rank: 10 + 2 * k as u32,
                    err,
                    mismatch: (ks.len() == 1).then_some((k, exp)),
                });
            }
            Assign::Invalid(msg) => {
                return Err(Fail {
                    rank: 11 + 2 * k as u32,
                    err: AsmError::new(tok.span.clone(), format!("{what}: {msg}")),
                    mismatch: None,
                })
            }
        }
    }
    if t < n {
        let max = oa.operands.len();
        return Err(Fail {
            rank: 10 + 2 * max as u32,
            err: AsmError::new(
                toks.operands[t].span.clone(),
                format!(
                    "too many operands: `{mnemonic}` takes {}{max}",
                    if req_after.first().is_some_and(|&r| r + 1 < max) {
                        "at most "
                    } else {
                        ""
                    }
                ),
            ),
            mismatch: None,
        });
    }

    // The spec's exception conditions.
    for ex in &op.exceptions {
        if ex.cond.eval(&|f| d.values[f]) != 0 {
            return Err(Fail {
                rank: 1000,
                err: AsmError::new(
                    mnemonic_span.clone(),
                    format!("`{mnemonic}`: {}", ex.message),
                )
                .with_note(format!("the spec's {} exception", ex.kind)),
                mismatch: None,
            });
        }
    }
    Ok(d)
}

impl AsmError {
    fn with_note(mut self, n: String) -> AsmError {
        self.notes.push(n);
        self
    }
}

fn line_end(toks: &super::lex::LineToks) -> usize {
    toks.operands
        .last()
        .map(|o| o.span.end)
        .or_else(|| toks.parts.last().map(|p| p.span.end))
        .unwrap_or(0)
}

/// Applies prefix symbols and suffixes to the sub-fields of field `f`. A written operand
/// carries exactly the symbols written: a sub-field's default (such as `!` in the `!UPT`
/// default of `upp`) only applies when the whole operand is left out.
fn apply_decorations(
    model: &Model,
    op: &Opcode,
    subs: &[(usize, SubKind)],
    tok: &OperandTok,
    values: &mut [u128],
) -> Result<(), String> {
    for &(s, k) in subs {
        values[s] = match k {
            SubKind::Suffix => op.fields[s].default.unwrap_or(values[s]),
            _ => unset_code(model, op, s),
        };
    }
    if let Some(p) = tok.prefix {
        let target = subs.iter().find(|&&(s, k)| match (p, k) {
            ('!', SubKind::Not) => true,
            ('-', SubKind::Neg { ext }) => !neg_is_tilde(model, op, ext, values),
            ('~', SubKind::Neg { ext }) => neg_is_tilde(model, op, ext, values),
            ('~', SubKind::BitNot) => true,
            _ => {
                let _ = s;
                false
            }
        });
        match target {
            Some(&(s, _)) => values[s] = set_code(model, op, s),
            None => {
                let alt = subs.iter().find_map(|&(_, k)| match (p, k) {
                    ('-', SubKind::Neg { .. }) => Some("with `.X`, write `~` instead of `-`"),
                    ('~', SubKind::Neg { .. }) => Some("without `.X`, write `-` instead of `~`"),
                    _ => None,
                });
                return Err(match alt {
                    Some(hint) => format!("`{p}` is not allowed here ({hint})"),
                    None => format!("this operand does not take a `{p}` prefix"),
                });
            }
        }
    }
    if let Some(sfx) = tok.suffix {
        let target = subs.iter().find(|&&(s, k)| {
            k == SubKind::Suffix && model.ty(op.fields[s].ty).enum_code(sfx).is_some()
        });
        match target {
            Some(&(s, _)) => values[s] = model.ty(op.fields[s].ty).enum_code(sfx).unwrap_or(0),
            None => return Err(format!("this operand does not take a `.{sfx}` suffix")),
        }
    }
    Ok(())
}

/// Tries `tok` as operand `o`, writing the field codes into `values`.
fn assign(
    a: &Assembler,
    opcode: usize,
    o: &Operand,
    tok: &OperandTok,
    values: &mut [u128],
    addr: u64,
    labels: &dyn Fn(&str) -> Option<u64>,
) -> Assign {
    let model = a.model;
    let op = &model.opcodes[opcode];
    let oa = &a.ops[opcode];
    let no_subs = Vec::new();
    match o.kind {
        OperandKind::Field(f) => {
            let subs = oa.subs.get(&f).unwrap_or(&no_subs);
            let t = model.ty(op.fields[f].ty);
            let r = match &t.kind {
                TypeKind::RegFile(rf) => {
                    let count = reg_count(op, f, values);
                    match &tok.core {
                        Core::Name(n) => {
                            let base = n.split_once('.').map_or(*n, |(b, _)| b);
                            let Some(code) = rf.code_of(base) else {
                                return Assign::Mismatch;
                            };
                            if count > 1 && (rf.lo..=rf.hi).contains(&code) {
                                return Assign::Invalid(format!(
                                    "a {}-bit operand: write the register range {}[{}:{}]",
                                    count * 32,
                                    rf.prefix,
                                    code,
                                    code + count - 1
                                ));
                            }
                            values[f] = code;
                            Ok(())
                        }
                        Core::Range { file, lo, hi } if *file == rf.prefix => {
                            if *hi > rf.hi {
                                return Assign::Invalid(format!(
                                    "{}{} does not exist",
                                    rf.prefix, hi
                                ));
                            }
                            if hi - lo + 1 != count {
                                return Assign::Invalid(format!(
                                    "{}[{lo}:{hi}] is {} bits but the operand is {} bits here",
                                    rf.prefix,
                                    (hi - lo + 1) * 32,
                                    count * 32
                                ));
                            }
                            values[f] = *lo;
                            Ok(())
                        }
                        _ => return Assign::Mismatch,
                    }
                }
                TypeKind::Immediate { signed } => {
                    let (v, is_target) = match (&tok.core, oa.ishift.get(&f)) {
                        (Core::Number(v), s) => (*v, s.is_some()),
                        (Core::Label(l), Some(_)) => match labels(l) {
                            Some(t) => (t as i128, true),
                            None => return Assign::Invalid(format!("undefined label `{l}`")),
                        },
                        (Core::Label(_), None) => {
                            return Assign::Invalid(
                                "a label is only allowed as a branch target".into(),
                            )
                        }
                        _ => return Assign::Mismatch,
                    };
                    if tok.prefix.is_some() || tok.suffix.is_some() {
                        return Assign::Invalid("an immediate takes no prefix or suffix".into());
                    }
                    let w = t.width;
                    let value = if is_target {
                        let shift = oa.ishift[&f];
                        let rel = v - (addr as i128 + 16);
                        if rel & ((1i128 << shift) - 1) != 0 {
                            return Assign::Invalid(format!(
                                "branch target {} is not a multiple of {:#x} bytes from the next instruction ({})",
                                hex(v),
                                1u64 << shift,
                                hex(addr as i128 + 16)
                            ));
                        }
                        let off = rel >> shift;
                        let (lo, hi) = if *signed {
                            (-(1i128 << (w - 1)), (1i128 << (w - 1)) - 1)
                        } else {
                            (0, (1i128 << w) - 1)
                        };
                        if off < lo || off > hi {
                            return Assign::Invalid(format!(
                                "branch target {} is out of range",
                                hex(v)
                            ));
                        }
                        off
                    } else {
                        let (lo, hi) = if *signed {
                            (-(1i128 << (w - 1)), (1i128 << w) - 1)
                        } else {
                            (0, (1i128 << w) - 1)
                        };
                        if v < lo || v > hi {
                            let shown_lo = if *signed {
                                hex(-(1i128 << (w - 1)))
                            } else {
                                "0x0".into()
                            };
                            return Assign::Invalid(format!(
                                "immediate {} does not fit {} ({}..={})",
                                hex(v),
                                t.name,
                                shown_lo,
                                hex(if *signed { (1i128 << (w - 1)) - 1 } else { hi })
                            ));
                        }
                        v
                    };
                    values[f] = (value as u128) & crate::model::mask(0, w);
                    return Assign::Ok;
                }
                TypeKind::ConstMem {
                    bank_bits,
                    offset_bits,
                } => match &tok.core {
                    Core::ConstMem {
                        bank,
                        reg: None,
                        offset,
                    } => match cmem_code(*bank, *offset, *bank_bits, *offset_bits) {
                        Ok(c) => {
                            values[f] = c;
                            Ok(())
                        }
                        Err(e) => return Assign::Invalid(e),
                    },
                    Core::ConstMem { reg: Some(_), .. } => {
                        return Assign::Invalid(
                            "this constant-memory operand takes no register".into(),
                        )
                    }
                    _ => return Assign::Mismatch,
                },
                TypeKind::Enum(_) => match &tok.core {
                    Core::Name(n) => match t.enum_code(n) {
                        Some(c) => {
                            if tok.prefix.is_some() {
                                return Assign::Invalid("this operand takes no prefix".into());
                            }
                            values[f] = c;
                            return Assign::Ok;
                        }
                        None => return Assign::Mismatch,
                    },
                    _ => return Assign::Mismatch,
                },
            };
            match r.and_then(|()| apply_decorations(model, op, subs, tok, values)) {
                Ok(()) => Assign::Ok,
                Err(e) => Assign::Invalid(e),
            }
        }
        OperandKind::CMemIndexed { mem, reg } => {
            let Core::ConstMem {
                bank,
                reg: r,
                offset,
            } = &tok.core
            else {
                return Assign::Mismatch;
            };
            let TypeKind::ConstMem {
                bank_bits,
                offset_bits,
            } = model.ty(op.fields[mem].ty).kind
            else {
                return Assign::Mismatch;
            };
            let Some(rf) = model.ty(op.fields[reg].ty).reg_file() else {
                return Assign::Mismatch;
            };
            let code = match r {
                Some(name) => match rf.code_of(name) {
                    Some(c) => c,
                    None => {
                        return Assign::Invalid(format!(
                            "expected a {} register in `c[…][…]`, found `{name}`",
                            model.ty(op.fields[reg].ty).name
                        ))
                    }
                },
                None => match rf.named.first() {
                    Some((_, c)) => *c,
                    None => return Assign::Invalid("write the address register".into()),
                },
            };
            match cmem_code(*bank, *offset, bank_bits, offset_bits) {
                Ok(c) => {
                    values[mem] = c;
                    values[reg] = code;
                }
                Err(e) => return Assign::Invalid(e),
            }
            let subs = oa.subs.get(&mem).unwrap_or(&no_subs);
            match apply_decorations(model, op, subs, tok, values) {
                Ok(()) => Assign::Ok,
                Err(e) => Assign::Invalid(e),
            }
        }
        OperandKind::RegIndexed { file, reg, offset } => {
            let Core::Indexed {
                file: f,
                reg: r,
                offset: off,
            } = &tok.core
            else {
                return Assign::Mismatch;
            };
            let Some(rf) = model.ty(file).reg_file() else {
                return Assign::Mismatch;
            };
            if *f != rf.prefix {
                return Assign::Mismatch;
            }
            let Some(code) = model
                .ty(op.fields[reg].ty)
                .reg_file()
                .and_then(|x| x.code_of(r))
            else {
                return Assign::Invalid(format!(
                    "expected a {} as the index, found `{r}`",
                    model.ty(op.fields[reg].ty).name
                ));
            };
            let w = model.ty(op.fields[offset].ty).width;
            let (lo, hi) = (-(1i128 << (w - 1)), (1i128 << (w - 1)) - 1);
            if *off < lo || *off > hi {
                return Assign::Invalid(format!(
                    "index offset {} does not fit ({}..={})",
                    hex(*off),
                    hex(lo),
                    hex(hi)
                ));
            }
            values[reg] = code;
            values[offset] = (*off as u128) & crate::model::mask(0, w);
            Assign::Ok
        }
        OperandKind::Word(w) => match &tok.core {
            Core::Name(n) if *n == model.words[w.0].name && tok.prefix.is_none() => Assign::Ok,
            _ => Assign::Mismatch,
        },
    }
}

fn cmem_code(bank: u128, offset: i128, bank_bits: u32, offset_bits: u32) -> Result<u128, String> {
    if bank >> bank_bits != 0 {
        return Err(format!("bank {bank:#x} does not fit in {bank_bits} bits"));
    }
    let (lo, hi) = (
        -(1i128 << (offset_bits - 1)),
        (1i128 << (offset_bits - 1)) - 1,
    );
    if offset < lo || offset > hi {
        return Err(format!(
            "offset {} is outside {}..={}",
            hex(offset),
            hex(lo),
            hex(hi)
        ));
    }
    Ok((bank << offset_bits) | ((offset as u128) & crate::model::mask(0, offset_bits)))
}
