//! Consistency between opcodes: `Bitwidth` against siblings, names against fixed fields.

use std::collections::BTreeMap;

use super::*;

impl Cx<'_> {
    pub(super) fn sibling_bitwidths(&self, diags: &mut Diagnostics) {
        // The opcodes of each optype, in one pass (a scan of every opcode per optype
        // made this lint quadratic in the spec).
        let mut by_optype: std::collections::HashMap<DefId, Vec<&Opcode>> =
            std::collections::HashMap::new();
        for o in &self.model.opcodes {
            if let Some(t) = o.optype {
                by_optype.entry(t).or_default().push(o);
            }
        }
        for (ot, optype) in self.model.optypes() {
            let ops: &[&Opcode] = by_optype.get(&ot).map_or(&[], Vec::as_slice);
            if ops.len() < 3 {
                continue;
            }
            // (operand name, type) → (opcode, rendered width, span)
            let mut widths: BTreeMap<(&str, TypeId), Vec<WidthEntry>> = BTreeMap::new();
            for op in ops {
                for bw in &op.bitwidths {
                    let f = &op.fields[bw.field];
                    widths.entry((f.name.as_str(), f.ty)).or_default().push((
                        op,
                        render(self.model, op, &bw.expr),
                        bw.span,
                    ));
                }
            }
            for ((name, _), entries) in &widths {
                let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
                for (_, w, _) in entries {
                    *counts.entry(w.as_str()).or_default() += 1;
                }
                let Some((&major, &n)) = counts.iter().max_by_key(|(_, &n)| n) else {
                    continue;
                };
                if n < 2 || 2 * n <= entries.len() {
                    continue;
                }
                let majority: Vec<&(&Opcode, String, Span)> =
                    entries.iter().filter(|e| e.1 == major).collect();
                for (op, w, span) in entries.iter().filter(|e| e.1 != major) {
                    let mut d = Diagnostic::warning(Lint::Bitwidth,
                        *span,
                        format!(
                            "`Bitwidth<{name}>` of `{}` is {w}, but {n} of the {} `{}` opcodes that give it say {major}",
                            op.name,
                            entries.len(),
                            optype.name
                        ),
                    )
                    .with_label(format!("{w} here"));
                    for (mop, _, mspan) in majority.iter().take(3) {
                        d = d.with_secondary(*mspan, format!("{major} in `{}`", mop.name));
                    }
                    diags.push(d.with_note(format!(
                        "{} with {major}: {}",
                        plural(n, "opcode", "opcodes"),
                        quoted_list(majority.iter().map(|m| m.0.name.as_str()))
                    )));
                }
            }
        }
    }

    // -- Opcode name against its fixed fields ---------------------------------------

    /// Every opcode at its defaults prints and reads back as itself; one that reads
    /// back as another opcode cannot be written in assembly at all.
    pub(super) fn texts_read_back(&self, diags: &mut Diagnostics) {
        for (i, op) in self.model.opcodes.iter().enumerate() {
            let d = self.model.default_instruction(i);
            let text = self.asm.print(&d, 0);
            // A line the assembler refuses (an `__Exception` at the defaults) or reads
            // as this opcode is not this lint's business.
            let Ok(back) = self.asm.parse_line(&text, 0, &|_| None) else {
                continue;
            };
            if back.opcode == i {
                continue;
            }
            let other = &self.model.opcodes[back.opcode];
            diags.push(
                Diagnostic::warning(
                    Lint::SameText,
                    op.span,
                    format!(
                        "opcode `{}` prints as `{}` (`{text}` at its defaults), so assembly \
                         cannot name it",
                        op.name, other.name
                    ),
                )
                .with_label(format!("reads back as `{}`", other.name))
                .with_secondary(other.span, "the opcode it reads as")
                .with_note(
                    "give one of them a modifier, an operand or an operand order of its own, \
                     or its own mnemonic",
                ),
            );
        }
    }

    pub(super) fn fixed_suffixes(&self, diags: &mut Diagnostics) {
        for op in &self.model.opcodes {
            let suffix = op
                .optype
                .and_then(|ot| {
                    op.name
                        .strip_prefix(self.model.def(ot).name.as_str())
                        .and_then(|r| r.strip_prefix('_'))
                })
                .or_else(|| op.name.rsplit_once('_').map(|(_, s)| s));
            let Some(suffix) = suffix.filter(|s| !s.is_empty()) else {
                continue;
            };
            let candidates: Vec<&crate::model::Field> = op
                .fields
                .iter()
                .filter(|f| f.is_fixed() && self.model.ty(f.ty).enum_code(suffix).is_some())
                .collect();
            let named_ok = candidates.iter().any(|f| match f.role {
                Role::Fixed(c) => self.model.ty(f.ty).enum_name(c) == Some(suffix),
                _ => false,
            });
            if named_ok {
                continue;
            }
            for f in candidates {
                let Role::Fixed(code) = f.role else { continue };
                let ty = self.model.ty(f.ty);
                let actual = ty
                    .enum_name(code)
                    .map_or_else(|| format!("{code:#x}"), str::to_string);
                diags.push(
                    Diagnostic::warning(
                        Lint::OpcodeName,
                        f.span,
                        format!(
                            "opcode `{}` is named for `{} == {suffix}` but fixes `{} == {actual}`",
                            op.name, f.name, f.name
                        ),
                    )
                    .with_label(format!("`{actual}`, not `{suffix}`"))
                    .with_secondary(op.span, "opcode named here"),
                );
            }
        }
    }
}

/// A bit-width expression written with field and value names, so opcodes with
/// different field layouts compare equal when they say the same thing.
fn render(model: &Model, op: &Opcode, e: &crate::model::CExpr) -> String {
    use crate::model::CExpr;
    use crate::syntax::ast::BinOp;
    fn prec(e: &CExpr) -> u8 {
        match e {
            CExpr::Bin(o, ..) => match o {
                BinOp::Or => 1,
                BinOp::And => 2,
                BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => 3,
                BinOp::Add | BinOp::Sub => 4,
                BinOp::Mul => 5,
            },
            _ => 6,
        }
    }
    match e {
        CExpr::Int(v) => v.to_string(),
        CExpr::Field(f) => op.fields[*f].name.clone(),
        CExpr::Value(t, c) => match model.ty(*t).enum_name(*c) {
            Some(n) => format!("\"{n}\""),
            None => format!("{c:#x}"),
        },
        CExpr::Not(a) => format!("not ({})", render(model, op, a)),
        CExpr::Neg(a) => format!("-({})", render(model, op, a)),
        CExpr::Bin(o, a, b) => {
            let p = prec(e);
            // Left-associative: the right operand needs parentheses at equal precedence.
            let wrap = |x: &CExpr, right: bool| {
                let px = prec(x);
                if px < p || (right && px == p) {
                    format!("({})", render(model, op, x))
                } else {
                    render(model, op, x)
                }
            };
            format!("{} {} {}", wrap(a, false), o.symbol(), wrap(b, true))
        }
    }
}
