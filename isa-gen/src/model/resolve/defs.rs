//! Definitions (groups, optypes, opcodes): their parents, their declared fields and
//! the values those fields are given.

use super::*;

impl<'a> Resolver<'a> {
    pub(super) fn defs(&mut self, files: &'a [SpecFile]) {
        for item in files.iter().flat_map(|f| &f.items) {
            let Item::Def(d) = item else { continue };
            if let Some(prev) = self.def_index.get(&d.name.name) {
                let p = &self.model.defs[prev.0];
                let (pk, ps) = (p.kind, p.span);
                self.diags.push(
                    Diagnostic::error(d.name.span, format!("`{}` is defined twice", d.name.name))
                        .with_label(format!("this {}", d.kind.noun()))
                        .with_secondary(
                            ps,
                            format!("first defined here as {} {}", article(pk), pk.noun()),
                        ),
                );
                continue;
            }
            let id = DefId(self.model.defs.len());
            self.def_index.insert(d.name.name.clone(), id);
            self.model.defs.push(Def {
                kind: d.kind,
                name: d.name.name.clone(),
                parents: Vec::new(),
                span: d.name.span,
                docs: d.docs.clone(),
            });
            self.def_ast.push(d);
            self.incomplete.push(d.incomplete);
        }
        // Parents.
        for i in 0..self.def_ast.len() {
            let d = self.def_ast[i];
            let mut parents = Vec::new();
            for p in &d.parents {
                match self.def_index.get(&p.name) {
                    Some(&pid) if self.model.defs[pid.0].kind == DefKind::Opcode => {
                        self.incomplete[i] = true;
                        self.err(
                            p.span,
                            format!(
                                "`{}` is an opcode; only groups and optypes can be parents",
                                p.name
                            ),
                        );
                    }
                    Some(&pid) => {
                        if parents.contains(&pid) {
                            self.err(p.span, format!("parent `{}` is listed twice", p.name));
                        } else {
                            parents.push(pid);
                        }
                    }
                    None => {
                        self.incomplete[i] = true;
                        if self.also_used(UnknownKind::Parent, p) {
                            continue;
                        }
                        let mut diag =
                            Diagnostic::error(p.span, format!("unknown parent `{}`", p.name))
                                .with_label("no group or optype of this name");
                        let names = self
                            .model
                            .defs
                            .iter()
                            .filter(|d| d.kind != DefKind::Opcode)
                            .map(|d| d.name.as_str());
                        diag = diag.did_you_mean_any(p.span, &p.name, names);
                        self.first_use(UnknownKind::Parent, p, diag);
                    }
                }
            }
            self.model.defs[i].parents = parents;
        }
        self.break_cycles();
        // Own fields of each definition.
        for i in 0..self.def_ast.len() {
            let fields = self.decl_fields(DefId(i));
            self.def_fields.push(fields);
        }
    }

    /// Reports inheritance cycles and removes the edge that closes each, so later
    /// stages can walk ancestors safely; likewise chains deeper than [`MAX_DEPTH`].
    fn break_cycles(&mut self) {
        #[derive(Clone, Copy, PartialEq)]
        enum Mark {
            New,
            Active,
            Done,
        }
        let n = self.model.defs.len();
        let mut mark = vec![Mark::New; n];
        // Length of the longest inheritance chain from each done definition to a root
        // (a root has level 1).
        let mut level = vec![0usize; n];
        for root in 0..n {
            if mark[root] != Mark::New {
                continue;
            }
            // Iterative DFS: (def, next parent index).
            let mut stack: Vec<(usize, usize)> = vec![(root, 0)];
            mark[root] = Mark::Active;
            while let Some(&(d, k)) = stack.last() {
                let top = stack.len() - 1;
                if k < self.model.defs[d].parents.len() {
                    let p = self.model.defs[d].parents[k].0;
                    stack[top].1 += 1;
                    match mark[p] {
                        Mark::New => {
                            mark[p] = Mark::Active;
                            stack.push((p, 0));
                        }
                        Mark::Active => {
                            let pos = stack.iter().position(|(x, _)| *x == p).unwrap_or(0);
                            let mut names: Vec<&str> = stack[pos..]
                                .iter()
                                .map(|(x, _)| self.model.defs[*x].name.as_str())
                                .collect();
                            names.push(&self.model.defs[p].name);
                            let msg = format!("inheritance cycle: {}", names.join(" → "));
                            let ast_parent = self.def_ast[d]
                                .parents
                                .iter()
                                .find(|i| i.name == self.model.defs[p].name)
                                .map(|i| i.span)
                                .unwrap_or(self.model.defs[d].span);
                            self.diags.push(
                                Diagnostic::error(ast_parent, msg).with_label("closes the cycle"),
                            );
                            self.model.defs[d].parents.retain(|x| x.0 != p);
                            self.incomplete[d] = true;
                            stack[top].1 -= 1;
                        }
                        Mark::Done => {}
                    }
                } else {
                    // Every parent is done: `d`'s depth is one more than its deepest
                    // parent's. Checked here, not on the DFS stack, so the result does
                    // not depend on the order of the definitions.
                    let deepest = |this: &Self, level: &[usize]| {
                        this.model.defs[d]
                            .parents
                            .iter()
                            .map(|p| level[p.0])
                            .max()
                            .unwrap_or(0)
                    };
                    if deepest(self, &level) >= MAX_DEPTH {
                        let span = self.model.defs[d].span;
                        self.err(span, format!("inheritance deeper than {MAX_DEPTH} levels"));
                        self.model.defs[d]
                            .parents
                            .retain(|p| level[p.0] < MAX_DEPTH);
                        self.incomplete[d] = true;
                    }
                    level[d] = 1 + deepest(self, &level);
                    mark[d] = Mark::Done;
                    stack.pop();
                }
            }
        }
    }

    fn decl_fields(&mut self, def: DefId) -> Vec<DeclField> {
        let d = self.def_ast[def.0];
        let mut out: Vec<DeclField> = Vec::new();
        // `out` by name (a search per field made a huge definition quadratic).
        let mut index: HashMap<&str, usize> = HashMap::new();
        for f in &d.encoding {
            if let Some(&prev) = index.get(f.name.name.as_str()) {
                let ps = out[prev].span;
                self.diags.push(
                    Diagnostic::error(
                        f.name.span,
                        format!(
                            "field `{}` is declared twice in `{}`",
                            f.name.name, d.name.name
                        ),
                    )
                    .with_secondary(ps, "first declared here"),
                );
                continue;
            }
            match self.decl_field(def, f) {
                Some(field) => {
                    index.insert(&f.name.name, out.len());
                    out.push(field);
                }
                None => self.incomplete[def.0] = true,
            }
        }
        out
    }

    /// Resolves one field declaration of `def`; `None` when it is in error (reported).
    fn decl_field(&mut self, def: DefId, f: &ast::FieldDecl) -> Option<DeclField> {
        let Some(&ty) = self.type_index.get(&f.ty.name) else {
            self.unknown_type(&f.ty);
            return None;
        };
        let (start, width) = (f.start.value, f.width.value);
        if width == 0 {
            self.err(f.width.span, format!("field `{}` has width 0", f.name.name));
            return None;
        }
        if start.saturating_add(width) > 128 {
            self.diags.push(
                Diagnostic::error(
                    f.start.span.to(f.width.span),
                    format!(
                        "field `{}` ends at bit {}, beyond bit 127",
                        f.name.name,
                        start.saturating_add(width) - 1
                    ),
                )
                .with_note("instructions are 128 bits: fields must lie within bits 0..=127"),
            );
            return None;
        }
        let t = &self.model.types[ty.0];
        if (width as u32) < t.width {
            self.diags.push(
                Diagnostic::error(
                    f.width.span,
                    format!(
                        "field `{}` is {width} bits wide but its type `{}` needs {}",
                        f.name.name, t.name, t.width
                    ),
                )
                .with_secondary(
                    t.span,
                    format!("`{}` is declared {} bits wide here", t.name, t.width),
                ),
            );
            return None;
        }
        if (width as u32) > t.width {
            self.diags.push(Diagnostic::warning(Lint::WideField,
                f.width.span,
                format!(
                    "field `{}` is {width} bits wide but its type `{}` has {}; the top bits are always zero",
                    f.name.name, t.name, t.width
                ),
            ));
        }
        let init = match &f.init {
            FieldInit::None => Init::None,
            FieldInit::Default(v) => Init::Default(self.value_code(ty, v)?),
            FieldInit::Fixed(v) => Init::Fixed(self.value_code(ty, v)?),
        };
        Some(DeclField {
            name: f.name.name.clone(),
            start: start as u32,
            width: width as u32,
            ty,
            init,
            span: f.span,
            origin: def,
        })
    }

    /// The code of a default/fixed value written as text, for a field of type `ty`.
    fn value_code(&mut self, ty: TypeId, v: &ast::ValueRef) -> Option<u128> {
        let t = &self.model.types[ty.0];
        let text = v.text.as_str();
        let mut suggestion = None;
        let res: Result<u128, String> = match &t.kind {
            TypeKind::Enum(values) => match t.enum_code(text) {
                Some(c) => Ok(c),
                None => {
                    let mut msg = format!("`{text}` is not a value of `{}`", t.name);
                    if let Some(s) =
                        crate::suggest::nearest(text, values.iter().map(|v| v.name.as_str()))
                    {
                        msg.push_str(&format!(" (did you mean `{s}`?)"));
                        suggestion = Some(s.to_string());
                    }
                    Err(msg)
                }
            },
            TypeKind::RegFile(rf) => rf.code_of(text).ok_or_else(|| {
                format!(
                    "`{text}` is not a register of `{}` ({}{}..{}{}{})",
                    t.name,
                    rf.prefix,
                    rf.lo,
                    rf.prefix,
                    rf.hi,
                    rf.named
                        .iter()
                        .map(|(n, _)| format!(", {n}"))
                        .collect::<String>()
                )
            }),
            TypeKind::Immediate { signed } => match crate::syntax::lexer::parse_int(text) {
                Some(n)
                    if (!signed && fits(n, t.width as u128))
                        || (*signed && fits(n, t.width as u128 - 1)) =>
                {
                    Ok(n)
                }
                Some(n) => Err(format!(
                    "{n:#x} does not fit in `{}` ({} bits, {})",
                    t.name,
                    t.width,
                    if *signed { "signed" } else { "unsigned" }
                )),
                None => Err(format!(
                    "`{text}` is not a number (type `{}` is an immediate)",
                    t.name
                )),
            },
            TypeKind::ConstMem { .. } => match crate::syntax::lexer::parse_int(text) {
                Some(n) if fits(n, t.width as u128) => Ok(n),
                _ => Err(format!(
                    "`{text}` is not a {}-bit constant-memory reference",
                    t.width
                )),
            },
        };
        match res {
            Ok(c) => Some(c),
            Err(msg) => {
                let ts = t.span;
                let mut d = Diagnostic::error(v.span, msg).with_secondary(ts, "type defined here");
                if let Some(s) = suggestion {
                    // The span of a quoted value holds its quotes: keep them.
                    let quoted = v.span.end - v.span.start != text.len() as u32;
                    let fix = if quoted {
                        format!("\"{s}\"")
                    } else {
                        s.clone()
                    };
                    d = d.with_fix(format!("replace with `{s}`"), vec![(v.span, fix)]);
                }
                self.diags.push(d);
                None
            }
        }
    }

    /// Ancestors of `def`, root-most first, each once, ending with `def` itself.
    pub(super) fn linearize(&self, def: DefId) -> Vec<DefId> {
        fn visit(model: &Model, d: DefId, seen: &mut Vec<bool>, out: &mut Vec<DefId>) {
            if seen[d.0] {
                return;
            }
            seen[d.0] = true;
            for &p in &model.defs[d.0].parents {
                visit(model, p, seen, out);
            }
            out.push(d);
        }
        let mut seen = vec![false; self.model.defs.len()];
        let mut out = Vec::new();
        visit(&self.model, def, &mut seen, &mut out);
        out
    }

    pub(super) fn is_ancestor(&self, anc: DefId, of: DefId) -> bool {
        self.linearize(of).contains(&anc)
    }
}
