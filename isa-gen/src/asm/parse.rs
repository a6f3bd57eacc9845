//! Parsing one line of assembly against the model.

use super::lex::{lex_line, Core, OperandTok, Part};
use super::print::{neg_is_tilde, reg_count, set_code, unset_code};
use super::{expected_kind, hex, AsmError, Assembler, SubKind};
use crate::model::interp::Decoded;
use crate::model::{Address, CMemMisfit, Model, Opcode, Operand, OperandKind, Role, TypeKind};

/// Why one candidate opcode rejected the line.
struct Fail {
    /// How far it got: higher is more specific (see [`operand_rank`]).
    rank: u32,
    err: AsmError,
    /// Set when the failure is a kind mismatch or a missing operand, so the expectations
    /// of several candidates can be merged ("expected a Reg or a UImm5").
    expect: Option<Expect>,
}

/// "`SHFL.UP` operand 4 (SrcB): expected a Reg, found UR3" (or "… is missing: …").
struct Expect {
    /// "`SHFL.UP` operand 4" (or "operand 2 or 3" when optional operands were skipped).
    what: String,
    /// The operands' names (`SrcB`).
    labels: Vec<String>,
    kinds: Vec<String>,
    /// The token found; `None` when the operand is missing.
    found: Option<String>,
}

impl Expect {
    fn message(&self) -> String {
        let labels: Vec<&str> = self.labels.iter().map(String::as_str).collect();
        let kinds: Vec<&str> = self.kinds.iter().map(String::as_str).collect();
        let what = format!("{} ({})", self.what, labels.join(" or "));
        match &self.found {
            Some(f) => format!("{what}: expected {}, found {f}", join_or(&kinds)),
            None => format!("{what} is missing: expected {}", join_or(&kinds)),
        }
    }

    /// Adds the labels and kinds of another candidate's failure at the same operand.
    fn merge(&mut self, other: &Expect) {
        for (mine, theirs) in [
            (&mut self.labels, &other.labels),
            (&mut self.kinds, &other.kinds),
        ] {
            for x in theirs {
                if !mine.contains(x) {
                    mine.push(x.clone());
                }
            }
        }
    }
}

/// The rank of a failure in the operands. A candidate whose operands are the right kind
/// further along the line is the one the writer most likely meant, even when it failed
/// earlier on a value (`R1` where its Bitwidth wants `R[1:2]`): `reach` is how many
/// operands fit by kind (one more than all of them when the whole line did), `at` the
/// operand the reported error is at. At equal reach, the error further along wins: a
/// wrong kind at `reach` over a wrong value before it (a wrong value is always before
/// the reach, since the walk goes on past it).
fn operand_rank(reach: usize, at: usize) -> u32 {
    10 + 1000 * reach as u32 + at as u32
}

/// The failure of a candidate whose operand walk stopped at operand `reach` with `err`
/// (a wrong kind, a missing operand, or one too many); when an earlier operand had a
/// wrong value, that first error is the one reported.
fn operand_fail(
    reach: usize,
    err: AsmError,
    expect: Option<Expect>,
    first_invalid: Option<(usize, AsmError)>,
) -> Fail {
    match first_invalid {
        Some((at, err)) => Fail {
            rank: operand_rank(reach, at),
            err,
            expect: None,
        },
        None => Fail {
            rank: operand_rank(reach, reach),
            err,
            expect,
        },
    }
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

/// Parses a line; also returns, for each written operand, the index of the operand
/// (in `Order` without the guard) it was read as.
pub(crate) fn parse_line(
    a: &Assembler,
    line: &str,
    addr: u64,
    labels: &dyn Fn(&str) -> Option<u64>,
) -> Result<(Decoded, Vec<usize>), AsmError> {
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
        let near = nearest(p.text, a.mnemonics().into_iter());
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
            Ok(r) => return Ok(r),
            Err(f) => fails.push(f),
        }
    }
    Err(best_failure(fails))
}

fn quoted(items: &[&str]) -> String {
    let q: Vec<String> = items.iter().map(|s| format!("`{s}`")).collect();
    match q.len() {
        0 => String::new(),
        1 => q[0].clone(),
        n => format!("{} or {}", q[..n - 1].join(", "), q[n - 1]),
    }
}

/// Up to three candidates near `word`: by edit distance, else one swap of adjacent
/// letters away (`SHLF` → `SHFL`). The generated assembler's function, so that both
/// tiers suggest the same names.
fn nearest<'c>(word: &str, candidates: impl Iterator<Item = &'c str> + Clone) -> Vec<&'c str> {
    let near: [&str; 3] = isa_rt::suggest::nearest(word, candidates);
    near.into_iter().filter(|n| !n.is_empty()).collect()
}

/// The most specific failure; kind mismatches (or missing operands) at the same operand
/// are merged ("expected a Reg or a UImm5").
fn best_failure(mut fails: Vec<Fail>) -> AsmError {
    let top = fails.iter().map(|f| f.rank).max().unwrap_or(0);
    fails.retain(|f| f.rank == top);
    let mut first = fails.remove(0);
    if let Some(exp) = &mut first.expect {
        for e in fails.iter().filter_map(|f| f.expect.as_ref()) {
            if e.what == exp.what && e.found == exp.found {
                exp.merge(e);
            }
        }
        first.err.message = exp.message();
    }
    first.err
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
    // A numbered register past the end of its file (`R255`, `UR63`).
    let base = name.split_once('.').map_or(name, |(b, _)| b);
    for t in &model.types {
        let Some(rf) = t.reg_file() else { continue };
        let number = base.strip_prefix(rf.prefix.as_str());
        if number.is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
            && rf.code_of(base).is_none()
        {
            let named: Vec<&str> = rf.named.iter().map(|(n, _)| n.as_str()).collect();
            out.push(format!(
                "`{base}` does not exist: `{}` has {}{}..{}{}{}",
                t.name,
                rf.prefix,
                rf.lo,
                rf.prefix,
                rf.hi,
                if named.is_empty() {
                    String::new()
                } else {
                    format!(" and {}", named.join(", "))
                }
            ));
        }
    }
    if op.fields.iter().any(|f| f.name == name) {
        out.push(format!(
            "`{name}` is the operand's name in the spec; write {} instead",
            super::expected_kind(model, op, o)
        ));
    }
    if let OperandKind::Field(f) = *o {
        if let Some(values) = model.ty(op.fields[f].ty).enum_values() {
            // (`name` is no value of the type, or the token would have fitted.)
            let starts: Vec<&str> = values
                .iter()
                .map(|v| v.name.as_str())
                .filter(|v| v.starts_with(name))
                .take(4)
                .collect();
            let near = if starts.is_empty() {
                nearest(name, values.iter().map(|v| v.name.as_str()))
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

// A failure is built once per rejected candidate, never on the success path, so its
// size does not matter.
#[allow(clippy::too_many_arguments, clippy::result_large_err)]
fn attempt(
    a: &Assembler,
    opcode: usize,
    toks: &super::lex::LineToks,
    mods: &[Part],
    mnemonic: &str,
    addr: u64,
    labels: &dyn Fn(&str) -> Option<u64>,
) -> Result<(Decoded, Vec<usize>), Fail> {
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
    // Modifier fields given so far, with the part that gave each.
    let mut given: Vec<(usize, &str)> = Vec::new();
    for part in mods {
        // Errors point at the whole `.NAME`, dot included.
        let span = part.span.start.saturating_sub(1)..part.span.end;
        let hit = oa
            .modifiers
            .iter()
            .copied()
            .find(|&m| model.ty(op.fields[m].ty).enum_code(part.text).is_some());
        match hit {
            Some(m) if given.iter().any(|g| g.0 == m) => {
                let earlier = given.iter().find(|g| g.0 == m).map_or("", |g| g.1);
                let name = super::mnemonic(model, opcode);
                let message = if earlier == part.text {
                    format!("modifier `.{}` is given twice", part.text)
                } else {
                    format!(
                        "`.{}` and `.{earlier}` both set the `.{}` modifier of `{name}`",
                        part.text, op.fields[m].name
                    )
                };
                return Err(Fail {
                    rank: 1,
                    err: AsmError::new(span, message),
                    expect: None,
                });
            }
            Some(m) => {
                d.values[m] = model.ty(op.fields[m].ty).enum_code(part.text).unwrap_or(0);
                given.push((m, part.text));
            }
            None => {
                let values: Vec<&str> = oa
                    .modifiers
                    .iter()
                    .flat_map(|&m| model.ty(op.fields[m].ty).enum_values().unwrap_or(&[]))
                    .map(|v| v.name.as_str())
                    .collect();
                let mut err = AsmError::new(
                    span,
                    format!(
                        "unknown modifier `.{}` for `{}`",
                        part.text,
                        super::mnemonic(model, opcode)
                    ),
                );
                let near = nearest(part.text, values.iter().copied());
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
                    expect: None,
                });
            }
        }
    }
    for &m in &oa.modifiers {
        let f = &op.fields[m];
        if f.default.is_none() && !given.iter().any(|g| g.0 == m) {
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
                expect: None,
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
                expect: None,
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
                expect: None,
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
                        expect: None,
                    })
                }
            }
        }
    }

    // Operands. After a wrong value the walk goes on checking kinds only, so that the
    // rank says how well the whole line fits this opcode; the first error is reported.
    let req_after = required_after(a, opcode);
    let n = toks.operands.len();
    let mut t = 0;
    // The operand each token was read as.
    let mut read_as: Vec<usize> = Vec::with_capacity(n);
    let mut first_invalid: Option<(usize, AsmError)> = None;
    // Optional operands skipped at the current token, for the mismatch message.
    let mut skipped: Vec<usize> = Vec::new();
    let mut skipped_at = usize::MAX;
    // The first optional operand skipped with room to spare, and the token it was at.
    let mut first_skip: Option<(usize, usize)> = None;
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
            let expect = Expect {
                what: format!("`{mnemonic}` operand {}", k + 1),
                labels: vec![label.clone()],
                kinds: vec![expected_kind(model, op, &o.kind)],
                found: None,
            };
            let err = AsmError::new(end..end, expect.message());
            return Err(operand_fail(k, err, Some(expect), first_invalid));
        }
        let tok = &toks.operands[t];
        if is_optional(op, o) {
            let room = n - t > req_after[k];
            if !room || !kind_fits(a, opcode, o, tok, &d.values) {
                if room {
                    skipped.push(k);
                    first_skip.get_or_insert((k, t));
                }
                continue;
            }
        }
        match assign(a, opcode, o, tok, &mut d.values, addr, labels) {
            Assign::Ok => {
                read_as.push(k);
                t += 1;
            }
            Assign::Mismatch => {
                let mut ks = skipped.clone();
                ks.push(k);
                let nums: Vec<String> = ks.iter().map(|j| (j + 1).to_string()).collect();
                let labels: Vec<&str> = ks.iter().map(|&j| oa.labels[j].as_str()).collect();
                let expect = Expect {
                    what: format!("`{mnemonic}` operand {}", nums.join(" or ")),
                    labels: labels.iter().map(|l| l.to_string()).collect(),
                    kinds: ks
                        .iter()
                        .map(|&j| expected_kind(model, op, &oa.operands[j].kind))
                        .collect(),
                    found: Some(found_text(tok)),
                };
                let mut err = AsmError::new(tok.span.clone(), expect.message());
                err.notes.extend(hints(model, op, &o.kind, tok));
                return Err(operand_fail(k, err, Some(expect), first_invalid));
            }
            Assign::Invalid(msg) => {
                if first_invalid.is_none() {
                    let err = AsmError::new(tok.span.clone(), format!("{what}: {msg}"));
                    first_invalid = Some((k, err));
                }
                read_as.push(k);
                t += 1;
            }
        }
    }
    let max = oa.operands.len();
    // Tokens left over are not always one too many. The token the last optional
    // operand(s) did not take is of the wrong kind for that operand; and when there are
    // no more tokens than operands, every operand was given, so the first optional one
    // skipped did not take the token meant for it.
    let blame = if t >= n {
        None
    } else if let Some(&j) = skipped.last().filter(|_| skipped_at == t) {
        Some((j, t))
    } else if n <= max {
        first_skip
    } else {
        None
    };
    if let Some((j, at)) = blame {
        let tok = &toks.operands[at];
        let o = &oa.operands[j];
        let expect = Expect {
            what: format!("`{mnemonic}` operand {}", j + 1),
            labels: vec![oa.labels[j].clone()],
            kinds: vec![expected_kind(model, op, &o.kind)],
            found: Some(found_text(tok)),
        };
        let mut err = AsmError::new(tok.span.clone(), expect.message());
        err.notes.extend(hints(model, op, &o.kind, tok));
        return Err(operand_fail(j, err, Some(expect), first_invalid));
    }
    if t < n {
        let err = AsmError::new(
            toks.operands[t].span.clone(),
            format!(
                "too many operands: `{mnemonic}` takes {}{max}, found {n}",
                if oa.operands.iter().any(|o| is_optional(op, o)) {
                    "at most "
                } else {
                    ""
                }
            ),
        );
        return Err(operand_fail(max, err, None, first_invalid));
    }
    if let Some((at, err)) = first_invalid {
        // Every operand fits by kind: this is the opcode meant, with a wrong value.
        return Err(Fail {
            rank: operand_rank(max + 1, at),
            err,
            expect: None,
        });
    }

    // The spec's exception conditions.
    for ex in &op.exceptions {
        if ex.cond.eval(&|f| d.values[f]) != 0 {
            return Err(Fail {
                rank: u32::MAX,
                err: AsmError::new(
                    mnemonic_span.clone(),
                    format!("`{mnemonic}`: {}", ex.message),
                )
                .with_note(format!("the spec's {} exception", ex.kind)),
                expect: None,
            });
        }
    }
    Ok((d, read_as))
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
    a: &Assembler,
    opcode: usize,
    subs: &[(usize, SubKind)],
    tok: &OperandTok,
    values: &mut [u128],
) -> Result<(), String> {
    let model = a.model;
    let op = &model.opcodes[opcode];
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
                    // Only where an extension field (`.X`) chooses the form.
                    ('-', SubKind::Neg { ext: Some(_) }) => {
                        Some("with `.X`, write `~` instead of `-`")
                    }
                    ('~', SubKind::Neg { ext: Some(_) }) => {
                        Some("without `.X`, write `-` instead of `~`")
                    }
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
        match suffix_sub(model, op, subs, sfx) {
            Some((s, code)) => values[s] = code,
            None => {
                return Err(format!(
                    "this operand does not take a `.{sfx}` suffix{}",
                    suffix_owner(a, opcode, sfx)
                ))
            }
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
                            // The range names registers by number, as the encoding does:
                            // only its first register must exist (`R[254:255]` is how a
                            // 64-bit operand at R254 prints).
                            if !(rf.lo..=rf.hi).contains(lo) {
                                return Assign::Invalid(format!(
                                    "{}{} does not exist",
                                    rf.prefix, lo
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
                    // The modifiers are read: an address mode they choose is known.
                    let address = op.address_at(f, values);
                    let v = match (&tok.core, address) {
                        (Core::Number(v), _) => *v,
                        (Core::Label(l, addend), Some((_, mode))) if mode.is_address() => {
                            match labels(l) {
                                Some(t) => t as i128 + addend,
                                None => return Assign::Invalid(format!("undefined label `{l}`")),
                            }
                        }
                        (Core::Label(..), _) => {
                            return Assign::Invalid(
                                "a label is only allowed as a branch target".into(),
                            )
                        }
                        _ => return Assign::Mismatch,
                    };
                    if let Some(p) = tok.prefix {
                        return Assign::Invalid(format!("an immediate takes no `{p}` prefix"));
                    }
                    if let Some(sfx) = tok.suffix {
                        return Assign::Invalid(format!(
                            "an immediate takes no `.{sfx}` suffix{}",
                            suffix_owner(a, opcode, sfx)
                        ));
                    }
                    let w = t.width;
                    let (lo, hi) = bounds(w, *signed);
                    let value = match address {
                        // (`address_at` resolves `Select` to one of the others.)
                        Some((shift, Address::Relative | Address::Select { .. })) => {
                            let next = addr as i128 + 16;
                            let Some(rel) = v.checked_sub(next) else {
                                return Assign::Invalid(format!(
                                    "branch target {} is out of range",
                                    hex(v)
                                ));
                            };
                            if rel & ((1i128 << shift) - 1) != 0 {
                                return Assign::Invalid(format!(
                                    "branch target {} is not a multiple of {:#x} bytes from the next instruction ({})",
                                    hex(v),
                                    1u64 << shift,
                                    hex(addr as i128 + 16)
                                ));
                            }
                            let off = rel >> shift;
                            if off < lo || off > hi {
                                // Both ends are reachable targets, so `<<` cannot overflow.
                                return Assign::Invalid(format!(
                                    "branch target {} is out of range ({}..={})",
                                    hex(v),
                                    hex(next.saturating_add(lo.saturating_mul(1 << shift))),
                                    hex(next.saturating_add(hi.saturating_mul(1 << shift)))
                                ));
                            }
                            off
                        }
                        Some((shift, mode @ (Address::Absolute | Address::Number))) => {
                            let what = if mode == Address::Absolute {
                                "address"
                            } else {
                                "immediate"
                            };
                            if v & ((1i128 << shift) - 1) != 0 {
                                return Assign::Invalid(format!(
                                    "{what} {} is not a multiple of {:#x}",
                                    hex(v),
                                    1u64 << shift
                                ));
                            }
                            let off = v >> shift;
                            if off < lo || off > hi {
                                return Assign::Invalid(format!(
                                    "{what} {} is out of range ({}..={})",
                                    hex(v),
                                    hex(lo.saturating_mul(1 << shift)),
                                    hex(hi.saturating_mul(1 << shift))
                                ));
                            }
                            off
                        }
                        None => {
                            // A signed immediate may also be written as its bit pattern
                            // (`0xffffffff` for -1).
                            let pattern_hi = bounds(w, false).1;
                            if v < lo || v > pattern_hi {
                                let pattern = if *signed {
                                    format!(", or its {w}-bit pattern up to {}", hex(pattern_hi))
                                } else {
                                    String::new()
                                };
                                return Assign::Invalid(format!(
                                    "immediate {} does not fit {} ({}..={}{pattern})",
                                    hex(v),
                                    t.name,
                                    hex(lo),
                                    hex(hi),
                                ));
                            }
                            v
                        }
                    };
                    values[f] = (value as u128) & crate::model::mask(0, w);
                    return Assign::Ok;
                }
                TypeKind::ConstMem { .. } => match &tok.core {
                    Core::ConstMem {
                        bank,
                        reg: None,
                        offset,
                    } => match cmem_code(t, *bank, *offset) {
                        Ok(c) => {
                            values[f] = c;
                            Ok(())
                        }
                        Err(e) => return Assign::Invalid(e),
                    },
                    // `c[bank][reg+offset]` is another kind of operand (`C[mem, reg]`):
                    // an opcode of the same mnemonic that takes it is the one meant.
                    _ => return Assign::Mismatch,
                },
                TypeKind::Enum(_) => match &tok.core {
                    Core::Name(n) => match t.enum_code(n) {
                        Some(c) => {
                            if tok.prefix.is_some() {
                                return Assign::Invalid(format!(
                                    "this operand does not take a `{}` prefix",
                                    tok.prefix.unwrap_or('!')
                                ));
                            }
                            values[f] = c;
                            return Assign::Ok;
                        }
                        None => return Assign::Mismatch,
                    },
                    _ => return Assign::Mismatch,
                },
            };
            match r.and_then(|()| apply_decorations(a, opcode, subs, tok, values)) {
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
            let mem_ty = model.ty(op.fields[mem].ty);
            if !matches!(mem_ty.kind, TypeKind::ConstMem { .. }) {
                return Assign::Mismatch;
            }
            let Some(rf) = model.ty(op.fields[reg].ty).reg_file() else {
                return Assign::Mismatch;
            };
            let code = match r {
                Some(name) => match rf.code_of(name) {
                    Some(c) => c,
                    None => {
                        return Assign::Invalid(format!(
                            "expected a {} in `c[…][…]`, found `{name}`",
                            model.ty(op.fields[reg].ty).name
                        ))
                    }
                },
                None => match rf.named.first() {
                    Some((_, c)) => *c,
                    None => return Assign::Invalid("write the address register".into()),
                },
            };
            match cmem_code(mem_ty, *bank, *offset) {
                Ok(c) => {
                    values[mem] = c;
                    values[reg] = code;
                }
                Err(e) => return Assign::Invalid(e),
            }
            let subs = oa.subs.get(&mem).unwrap_or(&no_subs);
            match apply_decorations(a, opcode, subs, tok, values) {
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
            // Printed bare: a written symbol would be dropped.
            if let Some(p) = tok.prefix {
                return Assign::Invalid(format!("this operand does not take a `{p}` prefix"));
            }
            if let Some(sfx) = tok.suffix {
                return Assign::Invalid(format!(
                    "this operand does not take a `.{sfx}` suffix{}",
                    suffix_owner(a, opcode, sfx)
                ));
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
            // The offset's immediate type says whether it may be negative.
            let t = model.ty(op.fields[offset].ty);
            let w = t.width;
            let (lo, hi) = bounds(w, matches!(t.kind, TypeKind::Immediate { signed: true }));
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

/// The values of a `width`-bit immediate, without overflow for any width up to 128.
fn bounds(width: u32, signed: bool) -> (i128, i128) {
    let w = width.clamp(1, 128);
    if signed {
        let hi = i128::MAX >> (128 - w);
        (-hi - 1, hi)
    } else {
        (0, i128::MAX >> 127u32.saturating_sub(w))
    }
}

/// The suffix sub-field among `subs` that `.sfx` sets, and the code it sets.
fn suffix_sub(
    model: &Model,
    op: &Opcode,
    subs: &[(usize, SubKind)],
    sfx: &str,
) -> Option<(usize, u128)> {
    subs.iter().find_map(|&(s, k)| match k {
        SubKind::Suffix => Some((s, model.ty(op.fields[s].ty).enum_code(sfx)?)),
        _ => None,
    })
}

/// " (`.B1` goes with operand 2 (URa))": which operand a misplaced suffix belongs to.
fn suffix_owner(a: &Assembler, opcode: usize, sfx: &str) -> String {
    let model = a.model;
    let op = &model.opcodes[opcode];
    let oa = &a.ops[opcode];
    let takes = |f: usize| {
        oa.subs
            .get(&f)
            .is_some_and(|subs| suffix_sub(model, op, subs, sfx).is_some())
    };
    oa.operands
        .iter()
        .position(|o| match o.kind {
            OperandKind::Field(f) => takes(f),
            OperandKind::CMemIndexed { mem, .. } => takes(mem),
            _ => false,
        })
        .map_or(String::new(), |k| {
            format!(" (`.{sfx}` goes with operand {} ({}))", k + 1, oa.labels[k])
        })
}

/// The code of `c[bank][offset]` in constant-memory type `t`, or why it has none.
fn cmem_code(t: &crate::model::Type, bank: u128, offset: i128) -> Result<u128, String> {
    t.cmem_code(bank, offset).map_err(|e| match e {
        CMemMisfit::Bank(bits) => format!("bank {bank:#x} does not fit in {bits} bits"),
        CMemMisfit::Offset(lo, hi) => format!(
            "offset {} is outside {}..={}",
            hex(offset),
            hex(lo),
            hex(hi)
        ),
        CMemMisfit::NotConstMem => format!("`{}` is no constant-memory type", t.name),
    })
}
