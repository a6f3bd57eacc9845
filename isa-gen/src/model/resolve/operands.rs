//! The `Order`, `InList`/`OutList`, `Bitwidth` and `AsmFormat` entries of an opcode,
//! resolved against its fields.

use super::*;

impl<'a> Resolver<'a> {
    /// Resolves an `Order` item and marks its fields as operands.
    pub(super) fn operand(&mut self, fields: &mut [Field], item: &ListItem) -> Option<Operand> {
        let span = item.span();
        let kind = match item {
            ListItem::Name(id) => {
                if let Some(f) = fields.iter().position(|f| f.name == id.name) {
                    if fields[f].is_fixed() {
                        self.err(
                            id.span,
                            format!("fixed field `{}` cannot be an operand", id.name),
                        );
                        return None;
                    }
                    fields[f].role = Role::Operand;
                    OperandKind::Field(f)
                } else if let Some(&w) = self.word_index.get(&id.name) {
                    OperandKind::Word(w)
                } else {
                    self.unknown_operand(fields, id, "Order");
                    return None;
                }
            }
            ListItem::Composite { head, args, .. } => {
                if args.len() != 2 {
                    self.err(
                        span,
                        format!("`{}[…]` takes two names, found {}", head.name, args.len()),
                    );
                    return None;
                }
                let a = self.operand_field_any(fields, &args[0], "Order")?;
                let b = self.operand_field_any(fields, &args[1], "Order")?;
                let ta = &self.model.types[fields[a].ty.0];
                let tb = &self.model.types[fields[b].ty.0];
                if head.name == "C" {
                    if !matches!(ta.kind, TypeKind::ConstMem { .. }) || tb.reg_file().is_none() {
                        self.err(
                            span,
                            format!(
                                "`C[mem, reg]` needs a constant-memory field and a register field; `{}` is a `{}` and `{}` a `{}`",
                                args[0].name, ta.name, args[1].name, tb.name
                            ),
                        );
                        return None;
                    }
                    fields[a].role = Role::Operand;
                    fields[b].role = Role::Operand;
                    OperandKind::CMemIndexed { mem: a, reg: b }
                } else {
                    let file = self
                        .model
                        .types
                        .iter()
                        .position(|t| t.reg_file().is_some_and(|r| r.prefix == head.name));
                    let Some(file) = file else {
                        self.err(
                            head.span,
                            format!(
                                "unknown composite operand `{}[…]`: expected `C[…]` or a register-file prefix",
                                head.name
                            ),
                        );
                        return None;
                    };
                    if ta.reg_file().is_none() || !matches!(tb.kind, TypeKind::Immediate { .. }) {
                        self.err(
                            span,
                            format!(
                                "`{}[reg, offset]` needs a register field and an immediate field",
                                head.name
                            ),
                        );
                        return None;
                    }
                    fields[a].role = Role::Operand;
                    fields[b].role = Role::Operand;
                    OperandKind::RegIndexed {
                        file: TypeId(file),
                        reg: a,
                        offset: b,
                    }
                }
            }
        };
        Some(Operand { kind, span })
    }

    fn unknown_operand(&mut self, fields: &[Field], id: &ast::Ident, ctx: &str) {
        if self.broken_words.contains(&id.name) {
            return; // its definition is in error, reported there
        }
        let mut d = Diagnostic::error(id.span, format!("unknown operand `{}` in `{ctx}`", id.name))
            .with_label("no field or operand word of this name");
        let names: Vec<&str> = fields
            .iter()
            .map(|f| f.name.as_str())
            .chain(self.model.words.iter().map(|w| w.name.as_str()))
            .collect();
        if let Some(s) = crate::suggest::nearest(&id.name, names.iter().copied()) {
            d = d.did_you_mean(id.span, s);
        }
        self.diags.push(d);
    }

    pub(super) fn operand_field_any(
        &mut self,
        fields: &[Field],
        id: &ast::Ident,
        ctx: &str,
    ) -> Option<usize> {
        let f = fields.iter().position(|f| f.name == id.name);
        if f.is_none() {
            self.unknown_operand(fields, id, ctx);
        }
        f
    }

    /// A field named in `Bitwidth<…>`/`AsmFormat<…>`: must exist and be an operand.
    pub(super) fn operand_field(
        &mut self,
        fields: &[Field],
        id: &ast::Ident,
        ctx: &str,
    ) -> Option<usize> {
        let f = self.operand_field_any(fields, id, ctx)?;
        if fields[f].role != Role::Operand {
            self.err(
                id.span,
                format!(
                    "`{ctx}<{}>` names a field that is not an operand (not in `Order`)",
                    id.name
                ),
            );
            return None;
        }
        Some(f)
    }

    /// An `InList`/`OutList` item (`ctx` names the list). Fields not in `Order` are
    /// reported only when there is an `Order` (its absence is reported already).
    pub(super) fn list_ref(
        &mut self,
        fields: &[Field],
        order: &[Operand],
        item: &ListItem,
        ctx: &str,
        has_order: bool,
    ) -> Option<ListRef> {
        match item {
            ListItem::Name(id) => {
                if let Some(f) = fields.iter().position(|f| f.name == id.name) {
                    if has_order && fields[f].role != Role::Operand {
                        self.diags.push(Diagnostic::warning(
                            Lint::UnlistedOperand,
                            id.span,
                            format!(
                                "`{}` is listed as read or written but is not in `Order`",
                                id.name
                            ),
                        ));
                    }
                    Some(ListRef::Field(f))
                } else if let Some(&w) = self.word_index.get(&id.name) {
                    Some(ListRef::Word(w))
                } else {
                    self.unknown_operand(fields, id, ctx);
                    None
                }
            }
            // The register a register-indexed operand of `Order` names (`UR[urb, uridx]`
            // in `OutList`: the instruction writes the register `urb + uridx`, which
            // only its run decides).
            ListItem::Composite { head, args, span } => {
                let indexed = order.iter().find_map(|o| match o.kind {
                    OperandKind::RegIndexed { file, reg, offset }
                        if self.model.types[file.0]
                            .reg_file()
                            .is_some_and(|r| r.prefix == head.name)
                            && args.len() == 2
                            && fields[reg].name == args[0].name
                            && fields[offset].name == args[1].name =>
                    {
                        Some(ListRef::Indexed { file, reg, offset })
                    }
                    _ => None,
                });
                if indexed.is_none() {
                    self.err(
                        *span,
                        "a composite operand in a list must be a register-indexed operand of `Order` (`UR[reg, offset]`); list other operands' fields by name",
                    );
                }
                indexed
            }
        }
    }

    pub(super) fn asm_format(
        &mut self,
        fields: &[Field],
        operand: &ast::Ident,
        converter: &ast::Ident,
        args: &[ast::Expr],
    ) -> Option<AsmFormat> {
        let target = self.operand_field_any(fields, operand, "AsmFormat")?;
        let field_arg = |i: usize| -> Option<&ast::Ident> {
            match args.get(i) {
                Some(ast::Expr::Name(id)) => Some(id),
                _ => None,
            }
        };
        match converter.name.as_str() {
            "CvtIShift" => {
                let (Some(f), Some(ast::Expr::Int(n))) = (field_arg(0), args.get(1)) else {
                    self.err(
                        converter.span,
                        "`CvtIShift` takes a field and a shift: `CvtIShift(offset, 4)`",
                    );
                    return None;
                };
                if args.len() != 2 || f.name != operand.name {
                    self.err(
                        converter.span,
                        format!(
                            "`CvtIShift` must shift the operand it formats: `CvtIShift({}, n)`",
                            operand.name
                        ),
                    );
                    return None;
                }
                if n.value == 0 || n.value >= 64 {
                    self.err(n.span, "the shift must be between 1 and 63");
                    return None;
                }
                if !matches!(
                    self.model.types[fields[target].ty.0].kind,
                    TypeKind::Immediate { .. }
                ) {
                    self.err(operand.span, "`CvtIShift` applies to immediate fields");
                    return None;
                }
                Some(AsmFormat::IShift {
                    field: target,
                    shift: n.value as u32,
                })
            }
            "CvtINegX" => {
                let (Some(neg), Some(ext)) = (field_arg(0), field_arg(1)) else {
                    self.err(converter.span, "`CvtINegX` takes the negate sub-field and the extension modifier: `CvtINegX(ura.neg, ext)`");
                    return None;
                };
                if args.len() != 2 || neg.name != operand.name {
                    self.err(converter.span, format!("`CvtINegX` must take the sub-field it formats first: `CvtINegX({}, ext)`", operand.name));
                    return None;
                }
                let ext_f = self.operand_field_any(fields, ext, "AsmFormat")?;
                let et = &self.model.types[fields[ext_f].ty.0];
                if et.enum_code("X").is_none() {
                    self.err(
                        ext.span,
                        format!(
                            "`{}` must be a modifier whose type has a value `X`",
                            ext.name
                        ),
                    );
                    return None;
                }
                if !fields[target].name.contains('.') {
                    self.err(
                        operand.span,
                        "`CvtINegX` formats a sub-field such as `ura.neg`",
                    );
                    return None;
                }
                Some(AsmFormat::INegX {
                    neg: target,
                    ext: ext_f,
                })
            }
            other => {
                let mut d = Diagnostic::error(
                    converter.span,
                    format!("unknown AsmFormat converter `{other}`"),
                )
                .with_note("known converters: `CvtIShift(field, n)`, `CvtINegX(neg, ext)`");
                if let Some(s) = crate::suggest::nearest(other, ["CvtIShift", "CvtINegX"]) {
                    d = d.did_you_mean(converter.span, s);
                }
                self.diags.push(d);
                None
            }
        }
    }

    /// Evaluates a bit width for every combination of the enum fields it reads (when
    /// that is small) and checks each result is between 1 and 128.
    pub(super) fn check_bitwidth_range(
        &mut self,
        fields: &[Field],
        e: &CExpr,
        span: Span,
        name: &str,
    ) {
        let mut used = Vec::new();
        e.fields(&mut used);
        let mut domains: Vec<Vec<u128>> = Vec::new();
        for &f in &used {
            match self.model.types[fields[f].ty.0].enum_values() {
                Some(vs) => domains.push(vs.iter().map(|v| v.code).collect()),
                None => return, // not enumerable: checked by the generated code's type
            }
        }
        let combos: usize = domains.iter().map(|d| d.len().max(1)).product();
        if combos > 4096 {
            return;
        }
        let mut idx = vec![0usize; domains.len()];
        loop {
            let value = |f: usize| {
                let k = used.iter().position(|&u| u == f).unwrap_or(0);
                domains[k].get(idx[k]).copied().unwrap_or(0)
            };
            let v = e.eval(&value);
            if !(1..=128).contains(&v) {
                self.err(
                    span,
                    format!("`Bitwidth<{name}>` evaluates to {v}, outside 1..=128"),
                );
                return;
            }
            // Next combination.
            let mut k = 0;
            loop {
                if k == idx.len() {
                    return;
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
}
