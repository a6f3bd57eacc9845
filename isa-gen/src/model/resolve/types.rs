//! Types, register files and operand words: the names every definition refers to.

use super::*;

impl<'a> Resolver<'a> {
    pub(super) fn types(&mut self, files: &'a [SpecFile]) {
        for item in files.iter().flat_map(|f| &f.items) {
            let (name, width) = match item {
                Item::BitFieldType(e) => (&e.name, e.width),
                Item::RegFile(r) => (&r.name, r.width),
                Item::Immediate(i) => (&i.name, i.width),
                Item::ConstMem(c) => (&c.name, c.width),
                _ => continue,
            };
            if let Some(prev) = self.type_index.get(&name.name) {
                let prev_span = self.model.types[prev.0].span;
                self.diags.push(
                    Diagnostic::error(name.span, format!("type `{}` is defined twice", name.name))
                        .with_label("second definition")
                        .with_secondary(prev_span, "first defined here"),
                );
                continue;
            }
            if width.value == 0 || width.value > MAX_TYPE_WIDTH {
                self.broken_types.insert(name.name.clone());
                self.err(
                    width.span,
                    format!(
                        "type width {} is out of range (1 to {MAX_TYPE_WIDTH} bits)",
                        width.value
                    ),
                );
                continue;
            }
            let w = width.value as u32;
            let kind = match item {
                Item::BitFieldType(e) => TypeKind::Enum(self.enum_values(e)),
                Item::RegFile(rf) => match self.reg_file(rf) {
                    Some(r) => TypeKind::RegFile(r),
                    None => {
                        self.broken_types.insert(name.name.clone());
                        continue;
                    }
                },
                Item::Immediate(i) => TypeKind::Immediate { signed: i.signed },
                Item::ConstMem(c) => {
                    if c.bank_bits.value == 0
                        || c.offset_bits.value == 0
                        || c.bank_bits.value + c.offset_bits.value != width.value
                    {
                        self.broken_types.insert(name.name.clone());
                        self.err(
                            c.bank_bits.span.to(c.offset_bits.span),
                            format!(
                                "bank and offset widths ({} + {}) must be non-zero and add up \
                                 to the type width {}",
                                c.bank_bits.value, c.offset_bits.value, width.value
                            ),
                        );
                        continue;
                    }
                    TypeKind::ConstMem {
                        bank_bits: c.bank_bits.value as u32,
                        offset_bits: c.offset_bits.value as u32,
                        offset_signed: c.offset_signed,
                    }
                }
                _ => unreachable!("filtered above"),
            };
            let id = TypeId(self.model.types.len());
            self.type_index.insert(name.name.clone(), id);
            self.model
                .types
                .push(Type::new(name.name.clone(), w, kind, name.span));
        }
    }

    pub(super) fn enum_values(&mut self, e: &ast::EnumDef) -> Vec<EnumValue> {
        let mut out: Vec<EnumValue> = Vec::new();
        // Indexes into `out` by name and by code: linear in the number of values
        // (a search of `out` per value made a big enum quadratic).
        let mut by_name: HashMap<&str, usize> = HashMap::new();
        let mut by_code: HashMap<u128, usize> = HashMap::new();
        let mut next: u128 = 0;
        for v in &e.values {
            let code = v.code.map(|c| c.value).unwrap_or(next);
            next = code.saturating_add(1);
            if let Some(&prev) = by_name.get(v.name.name.as_str()) {
                let ps = out[prev].span;
                self.diags.push(
                    Diagnostic::error(
                        v.name.span,
                        format!(
                            "value `{}` is listed twice in `{}`",
                            v.name.name, e.name.name
                        ),
                    )
                    .with_secondary(ps, "first listed here"),
                );
                continue;
            }
            if !fits(code, e.width.value) {
                let span = v.code.map(|c| c.span).unwrap_or(v.name.span);
                self.diags.push(
                    Diagnostic::error(
                        span,
                        format!(
                            "code {code:#x} of `{}` does not fit in the {} bits of `{}`",
                            v.name.name, e.width.value, e.name.name
                        ),
                    )
                    .with_note(format!(
                        "a {}-bit type holds codes 0 to {:#x}",
                        e.width.value,
                        crate::model::mask(0, e.width.value as u32)
                    )),
                );
            } else if let Some(&prev) = by_code.get(&code) {
                let (pn, ps) = (out[prev].name.clone(), out[prev].span);
                self.diags.push(
                    Diagnostic::error(
                        v.name.span,
                        format!(
                            "`{}` and `{pn}` of `{}` both have code {code:#x}",
                            v.name.name, e.name.name
                        ),
                    )
                    .with_secondary(ps, "code first used here"),
                );
            }
            // Kept even when its code is wrong, so that uses of the value report nothing
            // more (the error already stops the model from being built).
            by_name.insert(&v.name.name, out.len());
            by_code.entry(code).or_insert(out.len());
            out.push(EnumValue {
                name: v.name.name.clone(),
                code,
                span: v.name.span,
            });
        }
        if out.is_empty() && e.values.is_empty() {
            self.err(
                e.name.span,
                format!("bit-field type `{}` has no values", e.name.name),
            );
        }
        out
    }

    pub(super) fn reg_file(&mut self, rf: &ast::RegFileDef) -> Option<RegFile> {
        let w = rf.width.value;
        let mut range: Option<(String, u128, u128, Span)> = None;
        // Each constant register with the span of its name and of its code.
        let mut named: Vec<(String, u128, Span, Span)> = Vec::new();
        let mut reads_values: Vec<(u128, u128)> = Vec::new();
        let mut ok = true;
        for item in &rf.items {
            match item {
                ast::RegFileItem::Range { prefix, lo, hi } => {
                    if let Some((_, _, _, first)) = range {
                        self.diags.push(
                            Diagnostic::error(
                                prefix.span,
                                "a register file has one numbered range (`PREFIX lo..hi;`)",
                            )
                            .with_secondary(first, "the first range"),
                        );
                        ok = false;
                    } else if lo.value > hi.value || !fits(hi.value, w) {
                        self.err(
                            lo.span.to(hi.span),
                            format!(
                                "register range {}..{} must be ascending and fit in {w} bits",
                                lo.value, hi.value
                            ),
                        );
                        ok = false;
                    } else {
                        range = Some((
                            prefix.name.clone(),
                            lo.value,
                            hi.value,
                            prefix.span.to(hi.span),
                        ));
                    }
                }
                ast::RegFileItem::Named { name, code, reads } => {
                    if let Some(v) = reads {
                        if !fits(v.value, 32) {
                            self.err(
                                v.span,
                                format!(
                                    "`{}` reads {:#x}, wider than a register's 32 bits",
                                    name.name, v.value
                                ),
                            );
                            ok = false;
                        } else {
                            reads_values.push((code.value, v.value));
                        }
                    }
                    if !fits(code.value, w) {
                        self.err(
                            code.span,
                            format!(
                                "code {:#x} of `{}` does not fit in the {w} bits of `{}`",
                                code.value, name.name, rf.name.name
                            ),
                        );
                        ok = false;
                    } else if let Some((n, c, first, first_code)) = named
                        .iter()
                        .find(|(n, c, _, _)| *n == name.name || *c == code.value)
                    {
                        let d = if *n == name.name {
                            Diagnostic::error(
                                name.span,
                                format!("constant register `{n}` is defined twice"),
                            )
                            .with_secondary(*first, "first defined here")
                        } else {
                            Diagnostic::error(
                                code.span,
                                format!(
                                    "`{}` has the code {c}, which `{n}` already has",
                                    name.name
                                ),
                            )
                            .with_secondary(*first_code, format!("the code of `{n}`"))
                        };
                        self.diags.push(d);
                        ok = false;
                    } else {
                        named.push((name.name.clone(), code.value, name.span, code.span));
                    }
                }
            }
        }
        let Some((prefix, lo, hi, range_span)) = range else {
            if ok {
                self.err(
                    rf.name.span,
                    format!(
                        "register file `{}` needs a numbered range such as `R 0..254;`",
                        rf.name.name
                    ),
                );
            }
            return None;
        };
        let numbered = RegFile {
            prefix: prefix.clone(),
            lo,
            hi,
            named: Vec::new(),
            reads: Vec::new(),
            per_lane: false,
        };
        for (n, c, name_span, code_span) in &named {
            if (lo..=hi).contains(c) {
                self.diags.push(
                    Diagnostic::error(
                        *code_span,
                        format!("constant register `{n}` reuses the code {c} of `{prefix}{c}`"),
                    )
                    .with_secondary(
                        range_span,
                        format!("the numbered registers {prefix}{lo}..{prefix}{hi}"),
                    ),
                );
                ok = false;
            } else if let Some(k) = numbered.code_of(n) {
                // `R0 = 255;` next to `R 0..254;`: the text `R0` would name two registers.
                self.diags.push(
                    Diagnostic::error(
                        *name_span,
                        format!("constant register `{n}` is written like numbered register {k}"),
                    )
                    .with_secondary(
                        range_span,
                        format!("the numbered registers {prefix}{lo}..{prefix}{hi}"),
                    ),
                );
                ok = false;
            }
        }
        let named: Vec<(String, u128)> = named.into_iter().map(|(n, c, _, _)| (n, c)).collect();
        ok.then_some(RegFile {
            prefix,
            lo,
            hi,
            named,
            reads: reads_values,
            per_lane: rf.per_lane.is_some_and(|(p, _)| p),
        })
    }

    pub(super) fn words(&mut self, files: &'a [SpecFile]) {
        for item in files.iter().flat_map(|f| &f.items) {
            let Item::OperandWord(w) = item else { continue };
            if self.word_index.contains_key(&w.name.name) {
                self.err(
                    w.name.span,
                    format!("operand word `{}` is defined twice", w.name.name),
                );
                continue;
            }
            let Some(&ty) = self.type_index.get(&w.reg_file.name) else {
                self.unknown_type(&w.reg_file);
                self.broken_words.insert(w.name.name.clone());
                continue;
            };
            let Some(rf) = self.model.types[ty.0].reg_file() else {
                self.err(
                    w.reg_file.span,
                    format!("`{}` is not a register file", w.reg_file.name),
                );
                self.broken_words.insert(w.name.name.clone());
                continue;
            };
            if w.lo.value > w.hi.value || w.lo.value < rf.lo || w.hi.value > rf.hi {
                self.err(
                    w.lo.span.to(w.hi.span),
                    format!(
                        "range {}..{} is not within {}{}..{}{}",
                        w.lo.value, w.hi.value, rf.prefix, rf.lo, rf.prefix, rf.hi
                    ),
                );
                self.broken_words.insert(w.name.name.clone());
                continue;
            }
            let id = WordId(self.model.words.len());
            self.word_index.insert(w.name.name.clone(), id);
            self.model.words.push(OperandWord {
                name: w.name.name.clone(),
                reg_file: ty,
                lo: w.lo.value,
                hi: w.hi.value,
                span: w.name.span,
            });
        }
    }

    pub(super) fn unknown_type(&mut self, name: &ast::Ident) {
        if self.broken_types.contains(&name.name) {
            return; // its definition is in error, reported there
        }
        if self.also_used(UnknownKind::Type, name) {
            return;
        }
        let mut d = Diagnostic::error(name.span, format!("unknown type `{}`", name.name))
            .with_label("not defined in any spec file");
        let names = self.model.types.iter().map(|t| t.name.as_str());
        d = d.did_you_mean_any(name.span, &name.name, names);
        self.first_use(UnknownKind::Type, name, d);
    }

    /// A further use of a name already reported as undefined: added to that error
    /// (every use shown, one error for one missing definition). False for a first use.
    pub(super) fn also_used(&mut self, kind: UnknownKind, name: &ast::Ident) -> bool {
        let Some((at, more)) = self.unknown_names.get_mut(&(kind, name.name.clone())) else {
            return false;
        };
        *more += 1;
        let d = &mut self.diags.items[*at];
        d.other_uses.push(name.span);
        // The same fix applies at every use.
        for f in &mut d.fixes {
            if let Some((_, text)) = f.edits.first() {
                let text = text.clone();
                f.edits.push((name.span, text));
            }
        }
        let note = match *more {
            1 => "used once more (one error for both uses)".to_string(),
            n => format!("used {n} more times (one error for all of them)"),
        };
        // The count is the last note from the second use on.
        match d.notes.last_mut() {
            Some(last) if *more > 1 => *last = note,
            _ => d.notes.push(note),
        }
        true
    }

    /// Reports the first use of an undefined name.
    pub(super) fn first_use(&mut self, kind: UnknownKind, name: &ast::Ident, d: Diagnostic) {
        self.unknown_names
            .insert((kind, name.name.clone()), (self.diags.items.len(), 0));
        self.diags.push(d);
    }
}
