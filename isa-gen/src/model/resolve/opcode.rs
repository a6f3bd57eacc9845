//! Opcodes: fields inherited and merged, operands, lists, exceptions and encoding,
//! then the check that no word matches two opcodes.

use super::*;

impl<'a> Resolver<'a> {
    pub(super) fn opcodes(&mut self) {
        for i in 0..self.model.defs.len() {
            if self.model.defs[i].kind == DefKind::Opcode {
                if let Some(op) = self.opcode(DefId(i)) {
                    self.model.opcodes.push(op);
                }
            }
        }
    }

    fn opcode(&mut self, def: DefId) -> Option<Opcode> {
        let lin = self.linearize(def);
        let errors_before = self.diags.error_count();

        // Fields, root-most first.
        let mut decls: Vec<DeclField> = Vec::new();
        let mut index: HashMap<String, usize> = HashMap::new();
        for &d in &lin {
            for f in self.def_fields[d.0].clone() {
                match index.get(&f.name).copied() {
                    None => {
                        index.insert(f.name.clone(), decls.len());
                        decls.push(f);
                    }
                    Some(i) => {
                        let p = &decls[i];
                        if p.span == f.span {
                            continue; // same declaration through a diamond
                        }
                        let same_shape = p.start == f.start && p.width == f.width && p.ty == f.ty;
                        let related = self.is_ancestor(p.origin, f.origin);
                        if same_shape && related {
                            // An override: the nearer declaration's value wins.
                            let init = if f.init == Init::None { p.init } else { f.init };
                            decls[i] = DeclField { init, ..f };
                        } else if same_shape && p.init == f.init {
                            // Two parents agree exactly: one field.
                        } else {
                            let what = if same_shape {
                                "with a different value"
                            } else {
                                "with a different position, width or type"
                            };
                            let ps = p.span;
                            let pn = self.model.defs[p.origin.0].name.clone();
                            self.diags.push(
                                Diagnostic::error(
                                    f.span,
                                    format!("field `{}` is re-declared {what}", f.name),
                                )
                                .with_secondary(ps, format!("inherited from `{pn}`")),
                            );
                        }
                    }
                }
            }
        }
        // Fields, parents or entries of an ancestor are missing because of a reported
        // error: the checks below would mostly report its consequences.
        if lin.iter().any(|d| self.incomplete[d.0]) {
            return None;
        }
        // Every field takes at least one bit and fields may not overlap, so more than
        // 128 cannot be right; the per-field checks below (overlaps, operands) compare
        // fields pairwise and need this bound.
        if decls.len() > MAX_FIELDS {
            let name = &self.model.defs[def.0].name;
            let d = Diagnostic::error(
                self.model.defs[def.0].span,
                format!(
                    "opcode `{name}` has {} fields, but a 128-bit word has room for at most {MAX_FIELDS}",
                    decls.len()
                ),
            )
            .with_note("fields may not overlap, and each takes at least one bit");
            self.diags.push(d);
            return None;
        }

        let mut fields: Vec<Field> = decls
            .iter()
            .map(|d| Field {
                name: d.name.clone(),
                start: d.start,
                width: d.width,
                ty: d.ty,
                role: match d.init {
                    Init::Fixed(c) => Role::Fixed(c),
                    _ => Role::Modifier,
                },
                default: match d.init {
                    Init::Default(c) => Some(c),
                    _ => None,
                },
                origin: d.origin,
                span: d.span,
            })
            .collect();

        // Entries of __OperandInfo, nearest first.
        let nearest: Vec<DefId> = lin.iter().rev().copied().collect();
        let entries: Vec<(DefId, &'a InfoEntry)> = nearest
            .iter()
            .flat_map(|&d| self.def_ast[d.0].operand_info.iter().map(move |e| (d, e)))
            .collect();
        // One Order/InList/OutList per definition.
        for &d in &nearest {
            let mut seen: Vec<(&str, Span)> = Vec::new();
            for e in &self.def_ast[d.0].operand_info {
                let (kw, span) = match e {
                    InfoEntry::Order(_, s) => ("Order", *s),
                    InfoEntry::InList(_, s) => ("InList", *s),
                    InfoEntry::OutList(_, s) => ("OutList", *s),
                    _ => continue,
                };
                if let Some((_, first)) = seen.iter().find(|(k, _)| *k == kw) {
                    let first = *first;
                    self.diags.push(
                        Diagnostic::error(span, format!("second `{kw}<…>` in one definition"))
                            .with_secondary(first, "first given here"),
                    );
                } else {
                    seen.push((kw, span));
                }
            }
        }
        let pick_list = |want: PickList| entries.iter().find_map(|(_, e)| want(e));
        let order_ast = pick_list(|e| match e {
            InfoEntry::Order(l, s) => Some((l, *s)),
            _ => None,
        });
        let in_ast = pick_list(|e| match e {
            InfoEntry::InList(l, s) => Some((l, *s)),
            _ => None,
        });
        let out_ast = pick_list(|e| match e {
            InfoEntry::OutList(l, s) => Some((l, *s)),
            _ => None,
        });

        let def_span = self.model.defs[def.0].span;
        let name = self.model.defs[def.0].name.clone();

        // Order → operands.
        let errors_before_order = self.diags.error_count();
        let mut order = Vec::new();
        match order_ast {
            None => {
                self.err(
                    def_span,
                    format!("opcode `{name}` has no `Order<…>` (in itself or an ancestor)"),
                );
            }
            Some((items, _)) => {
                // Fields already in `Order`, with the item that put them there.
                let mut placed: Vec<(usize, Span)> = Vec::new();
                for item in items {
                    let Some(op) = self.operand(&mut fields, item) else {
                        continue;
                    };
                    // Written twice, a field could be given two different values, and
                    // a printed instruction would not say which one it holds.
                    let again = placed
                        .iter()
                        .find(|&&(p, _)| op.kind.fields().any(|f| f == p));
                    if let Some(&(f, first)) = again {
                        let d = Diagnostic::error(
                            op.span,
                            format!("`{}` is in `Order` twice", fields[f].name),
                        )
                        .with_secondary(first, "first here")
                        .with_note("an operand is written once; remove one of them");
                        self.field_error(d);
                        continue;
                    }
                    placed.extend(op.kind.fields().map(|f| (f, op.span)));
                    order.push(op);
                }
            }
        }
        // Sub-fields attach to their base field.
        for i in 0..fields.len() {
            if let Some((base, _)) = fields[i].name.split_once('.') {
                match fields.iter().position(|f| f.name == base) {
                    // A fixed sub-field keeps its fixed role: it identifies the opcode.
                    Some(_) if fields[i].is_fixed() => {}
                    Some(b) => fields[i].role = Role::SubField(b),
                    None => {
                        let (span, n) = (fields[i].span, fields[i].name.clone());
                        self.err(
                            span,
                            format!("sub-field `{n}` has no field `{base}` to attach to"),
                        );
                    }
                }
            }
        }
        // A symbol sub-field is written or not: its type must say which code is which.
        for f in &fields {
            if !matches!(f.role, Role::SubField(_))
                || !matches!(f.sub_name(), Some("not" | "neg" | "bitnot"))
            {
                continue;
            }
            let t = &self.model.types[f.ty.0];
            if t.symbol_codes().is_none() {
                let symbol = match f.sub_name() {
                    Some("not") => "!",
                    Some("neg") => "-",
                    _ => "~",
                };
                let d = Diagnostic::error(
                    f.span,
                    format!(
                        "`{}` prints as `{symbol}` or nothing, but its type `{}` does not say which code means which",
                        f.name, t.name
                    ),
                )
                .with_secondary(t.span, "the type")
                .with_note("give the type the values `False` and `True`, or exactly two values (the lower code is the one without the symbol)");
                self.field_error(d);
            }
        }
        // (Skipped when `Order` is missing or broken: the fields it should have named
        // would all look like modifiers.)
        let order_ok = order_ast.is_some() && self.diags.error_count() == errors_before_order;
        // A sub-field is written with its operand (a prefix, a `.VALUE` suffix). One of
        // a field that is no operand (a modifier, a fixed field) or that a composite
        // operand writes bare has no text: words that differ only in it print alike,
        // and their text cannot give them back.
        for f in fields.iter().filter(|_| order_ok) {
            let Role::SubField(b) = f.role else { continue };
            if order.iter().any(|o| o.kind.decorated() == Some(b)) {
                continue;
            }
            // One warning a sub-field, however many opcodes inherit it: their reasons
            // may differ (its base fixed in one, a modifier in another); the first
            // opcode's is given.
            if !self.field_errors.insert((f.span, "unprinted-field".into())) {
                continue;
            }
            let base = &fields[b];
            let what = if base.is_fixed() {
                "a fixed field"
            } else if order.iter().any(|o| o.kind.fields().any(|k| k == b)) {
                "written bare in its operand"
            } else {
                "a modifier"
            };
            let d = Diagnostic::warning(
                Lint::UnprintedField,
                f.span,
                format!(
                    "`{}` is a sub-field of `{}`, {what}: no assembly text shows it",
                    f.name, base.name
                ),
            )
            .with_secondary(base.span, format!("`{}` declared here", base.name))
            .with_note("words that differ only in it print alike, so their text cannot give them back; attach it to an operand, or fix its value with `==`");
            self.diags.push(d);
        }
        // Modifiers and `.VALUE` sub-fields are written by value name, which only
        // bit-field types have.
        for f in fields.iter().filter(|_| order_ok) {
            let written_as_value = match f.role {
                Role::Modifier => true,
                Role::SubField(_) => !matches!(f.sub_name(), Some("not" | "neg" | "bitnot")),
                _ => false,
            };
            if !written_as_value {
                continue;
            }
            let what = if f.role == Role::Modifier {
                "a modifier"
            } else {
                "a `.VALUE` sub-field"
            };
            let t = &self.model.types[f.ty.0];
            let Some(values) = t.enum_values() else {
                let noun = t.kind_noun();
                let article = if noun.starts_with(['a', 'e', 'i', 'o', 'u']) {
                    "an"
                } else {
                    "a"
                };
                let d = Diagnostic::error(
                    f.span,
                    format!(
                        "`{}` is {what}, written `.VALUE`, but its type `{}` is {article} {noun} and has no value names",
                        f.name, t.name
                    ),
                )
                .with_note("only `__DefBitFieldType` types can be modifiers; list the field in `Order` to make it an operand");
                let d = self.in_opcode(
                    d,
                    &self.model.defs[def.0].name.clone(),
                    order_ast.map(|o| o.1),
                    f,
                );
                self.field_error(d);
                continue;
            };
            // `.A.B` reads as two modifiers, so a dotted value name cannot be written
            // as one (operands, such as `SR_CTAID.X`, may have them).
            if let Some(v) = values.iter().find(|v| v.name.contains('.')) {
                let d = Diagnostic::error(
                    f.span,
                    format!(
                        "`{}` is {what}, written `.VALUE`, but its type `{}` has the value `{}`: `.{}` would read as {} modifiers",
                        f.name,
                        t.name,
                        v.name,
                        v.name,
                        v.name.split('.').count()
                    ),
                )
                .with_secondary(v.span, "value declared here")
                .with_note("rename the value without `.`, or list the field in `Order` to make it an operand");
                let d = self.in_opcode(
                    d,
                    &self.model.defs[def.0].name.clone(),
                    order_ast.map(|o| o.1),
                    f,
                );
                self.field_error(d);
            }
        }
        // An operand is written as its value's bare name, and a token that starts with
        // a digit reads as a number (modifiers, written `.32`, may have such names).
        for f in fields.iter().filter(|f| f.role == Role::Operand) {
            let t = &self.model.types[f.ty.0];
            let Some(values) = t.enum_values() else {
                continue;
            };
            if let Some(v) = values
                .iter()
                .find(|v| v.name.starts_with(|c: char| c.is_ascii_digit()))
            {
                let d = Diagnostic::error(
                    f.span,
                    format!(
                        "`{}` is an operand, written as its value's name, but its type `{}` has the value `{}`, which reads as a number",
                        f.name, t.name, v.name
                    ),
                )
                .with_secondary(v.span, "value declared here")
                .with_note("start the value's name with a letter, or make the field a modifier (leave it out of `Order`)");
                self.field_error(d);
            }
        }
        // Two modifiers sharing a value name: `.VALUE` would not say which it sets, so
        // printed instructions could not be read back.
        let modifiers: Vec<&Field> = fields.iter().filter(|f| f.role == Role::Modifier).collect();
        for (k, a) in modifiers.iter().enumerate().filter(|_| order_ok) {
            for b in &modifiers[k + 1..] {
                let (ta, tb) = (&self.model.types[a.ty.0], &self.model.types[b.ty.0]);
                let (Some(va), Some(vb)) = (ta.enum_values(), tb.enum_values()) else {
                    continue;
                };
                let names_b: HashSet<&str> = vb.iter().map(|v| v.name.as_str()).collect();
                if let Some(v) = va.iter().find(|x| names_b.contains(x.name.as_str())) {
                    let d = Diagnostic::error(
                        b.span,
                        format!(
                            "modifiers `{}` and `{}` both have a value `{}`: `.{}` would not say which one it sets",
                            a.name, b.name, v.name, v.name
                        ),
                    )
                    .with_secondary(a.span, format!("`{}` declared here", a.name))
                    .with_note("rename the value in one of the types, or make one field an operand");
                    self.field_error(d);
                }
            }
        }
        let mut in_list = Vec::new();
        let mut out_list = Vec::new();
        for (ast_list, out, ctx) in [
            (in_ast, &mut in_list, "InList"),
            (out_ast, &mut out_list, "OutList"),
        ] {
            if let Some((items, _)) = ast_list {
                for item in items {
                    if let Some(r) = self.list_ref(&fields, &order, item, ctx, order_ast.is_some())
                    {
                        out.push(r);
                    }
                }
            }
        }

        // Bitwidth and AsmFormat: per target, nearest first.
        let mut bitwidths: Vec<Bitwidth> = Vec::new();
        let mut asm_formats: Vec<AsmFormat> = Vec::new();
        let mut seen_targets: HashMap<(bool, String), (DefId, Span)> = HashMap::new();
        for &(d, e) in &entries {
            match e {
                InfoEntry::Bitwidth {
                    operand,
                    expr,
                    span,
                } => {
                    if let Some((pd, ps)) = seen_targets.get(&(true, operand.name.clone())) {
                        if *pd == d {
                            let ps = *ps;
                            self.diags.push(
                                Diagnostic::error(
                                    *span,
                                    format!("second `Bitwidth<{}>`", operand.name),
                                )
                                .with_secondary(ps, "first given here"),
                            );
                        }
                        continue;
                    }
                    seen_targets.insert((true, operand.name.clone()), (d, *span));
                    // Without `Order` (reported) no field is an operand yet.
                    let fi = if order_ast.is_some() {
                        self.operand_field(&fields, operand, "Bitwidth")
                    } else {
                        self.operand_field_any(&fields, operand, "Bitwidth")
                    };
                    let Some(fi) = fi else {
                        continue;
                    };
                    let scope = expr::Scope {
                        model: &self.model,
                        fields: &fields,
                        owner: self.model.defs[d.0].kind,
                    };
                    match expr::resolve(&scope, expr) {
                        Ok((c, ExprType::Int | ExprType::Bool)) => {
                            self.check_bitwidth_range(&fields, &c, *span, &operand.name);
                            bitwidths.push(Bitwidth {
                                field: fi,
                                expr: c,
                                span: *span,
                            });
                        }
                        Ok((_, ExprType::Enum(_))) => {
                            self.err(expr.span(), "a bit width must be a number");
                        }
                        Err(diag) => self.diags.push(diag),
                    }
                }
                InfoEntry::AsmFormat {
                    operand,
                    converter,
                    args,
                    span,
                } => {
                    if let Some((pd, ps)) = seen_targets.get(&(false, operand.name.clone())) {
                        if *pd == d {
                            let ps = *ps;
                            self.diags.push(
                                Diagnostic::error(
                                    *span,
                                    format!("second `AsmFormat<{}>`", operand.name),
                                )
                                .with_secondary(ps, "first given here"),
                            );
                        }
                        continue;
                    }
                    seen_targets.insert((false, operand.name.clone()), (d, *span));
                    if let Some(a) = self.asm_format(&fields, operand, converter, args) {
                        asm_formats.push(a);
                    }
                }
                _ => {}
            }
        }

        // Exceptions from every ancestor.
        let mut exceptions = Vec::new();
        for &d in &nearest {
            for ex in &self.def_ast[d.0].exceptions {
                let scope = expr::Scope {
                    model: &self.model,
                    fields: &fields,
                    owner: self.model.defs[d.0].kind,
                };
                match expr::resolve(&scope, &ex.cond) {
                    Ok((c, ExprType::Bool)) => exceptions.push(Exception {
                        kind: ex.kind.name.clone(),
                        message: ex.message.clone(),
                        cond: c,
                        span: ex.span,
                    }),
                    Ok(_) => self.err(ex.cond.span(), "an exception condition must be a comparison or a combination of comparisons"),
                    Err(diag) => self.diags.push(diag),
                }
            }
        }

        // Encoding masks and overlaps.
        let mut fixed_mask = 0u128;
        let mut fixed_bits = 0u128;
        let mut covered = 0u128;
        for (i, f) in fields.iter().enumerate() {
            let m = f.mask();
            if covered & m != 0 {
                if let Some(other) = fields[..i].iter().find(|o| o.mask() & m != 0) {
                    let overlap = other.mask() & m;
                    let lo = overlap.trailing_zeros();
                    let hi = 127 - overlap.leading_zeros();
                    self.diags.push(
                        Diagnostic::error(
                            f.span,
                            format!(
                                "fields `{}` and `{}` of `{name}` overlap at bits {lo}..={hi}",
                                f.name, other.name
                            ),
                        )
                        .with_secondary(other.span, format!("`{}` declared here", other.name)),
                    );
                }
            }
            covered |= m;
            if let Role::Fixed(c) = f.role {
                fixed_mask |= m;
                fixed_bits |= c << f.start;
            }
        }
        if fixed_mask == 0 {
            self.err(
                def_span,
                format!("opcode `{name}` has no fixed field (`… == Value;`), so no word can identify it"),
            );
        }

        let optype = lin
            .iter()
            .rev()
            .find(|d| self.model.defs[d.0].kind == DefKind::Optype)
            .copied();
        if optype.is_none() {
            self.diags.push(Diagnostic::warning(
                Lint::NoOptype,
                def_span,
                format!("opcode `{name}` has no `__DefOptype` among its ancestors"),
            ));
        }

        if self.diags.error_count() > errors_before {
            return None;
        }
        Some(Opcode {
            name,
            def,
            optype,
            ancestors: nearest[1..].to_vec(),
            fields,
            order,
            in_list,
            out_list,
            bitwidths,
            asm_formats,
            exceptions,
            fixed_mask,
            fixed_bits,
            covered,
            flow: Flow::default(),
            span: def_span,
        })
    }

    /// Reports pairs of opcodes some word could match both of.
    pub(super) fn check_ambiguity(&mut self) {
        let ops = &self.model.opcodes;
        // Two opcodes clash when their fixed patterns agree wherever both fix bits:
        // some word carries both patterns. Decoding dispatches on fixed bits alone, so
        // that is an ambiguity even when one of the two would then reject the word.
        // Compared mask by mask (the opcodes of a mask indexed by their bits under the
        // bits both masks fix), not pair by pair: a spec has a few masks and thousands
        // of opcodes, and every pair made the check quadratic.
        let mut masks: Vec<u128> = Vec::new();
        let mut by_mask: HashMap<u128, Vec<usize>> = HashMap::new();
        for (i, o) in ops.iter().enumerate() {
            let list = by_mask.entry(o.fixed_mask).or_insert_with(|| {
                masks.push(o.fixed_mask);
                Vec::new()
            });
            list.push(i);
        }
        let mut pairs: Vec<(usize, usize)> = Vec::new();
        for (x, &ma) in masks.iter().enumerate() {
            for &mb in &masks[x..] {
                let common = ma & mb;
                let mut under: HashMap<u128, Vec<usize>> = HashMap::new();
                for &j in &by_mask[&mb] {
                    under.entry(ops[j].fixed_bits & common).or_default().push(j);
                }
                for &i in &by_mask[&ma] {
                    for &j in under
                        .get(&(ops[i].fixed_bits & common))
                        .into_iter()
                        .flatten()
                    {
                        if ma != mb || i < j {
                            pairs.push((i.min(j), i.max(j)));
                        }
                    }
                }
            }
        }
        pairs.sort_unstable();
        let mut found = Vec::new();
        for (i, j) in pairs {
            let (a, b) = (&ops[i], &ops[j]);
            {
                found.push((
                    a.name.clone(),
                    a.span,
                    a.fixed_mask,
                    a.fixed_bits,
                    b.name.clone(),
                    b.span,
                    b.fixed_mask,
                    b.fixed_bits,
                ));
            }
        }
        for (an, asp, am, ab, bn, bsp, bm, bb) in found {
            self.diags.push(
                Diagnostic::error(
                    asp,
                    format!("opcodes `{an}` and `{bn}` can match the same word"),
                )
                .with_secondary(bsp, format!("`{bn}` defined here"))
                .with_note(format!("`{an}` fixed bits: {}", pattern(am, ab)))
                .with_note(format!("`{bn}` fixed bits: {}", pattern(bm, bb)))
                .with_note("give them different fixed values in a field both fix"),
            );
        }
    }
}
