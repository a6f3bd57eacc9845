//! Registers read and written: `RegRef`, and the code listing an instance's registers
//! from its `InList`/`OutList` at the widths its fields choose.

use super::*;

impl Gen<'_> {
    fn max_regs(&self) -> usize {
        let mut max = 1;
        for op in &self.model.opcodes {
            for list in [&op.in_list, &op.out_list] {
                let n: usize = list.iter().map(|r| self.list_ref_capacity(op, r)).sum();
                max = max.max(n);
            }
        }
        max
    }

    fn list_ref_capacity(&self, op: &Opcode, r: &ListRef) -> usize {
        match r {
            ListRef::Word(w) => {
                let w = &self.model.words[w.0];
                (w.hi - w.lo + 1) as usize
            }
            ListRef::Indexed { file, .. } => self
                .model
                .ty(*file)
                .reg_file()
                .map_or(0, |r| (r.hi - r.lo + 1) as usize),
            ListRef::Field(f) => {
                let field = &op.fields[*f];
                match &self.model.ty(field.ty).kind {
                    TypeKind::RegFile(_) => self.max_reg_count(op, *f),
                    TypeKind::Enum(_) => 1,
                    _ => 0,
                }
            }
        }
    }

    /// Most registers an operand can span: its largest bit width / 32, at least 1.
    fn max_reg_count(&self, op: &Opcode, f: usize) -> usize {
        self.model.reg_count(op, f, None) as usize
    }

    pub(super) fn reg_ref(&self) -> TokenStream {
        let tys = self.reg_ref_types();
        let variants: Vec<_> = tys.iter().map(|t| self.type_ident(*t)).collect();
        let docs: Vec<_> = tys
            .iter()
            .map(|t| format!(" A `{}`.", self.model.ty(*t).name))
            .collect();
        let cap = self.max_regs();
        let cap_l = lit(cap as u128, "usize");
        quote! {
            /// A register (or register-like operand) an instruction reads or writes.
            ///
            /// Named constant registers are never listed: they hold no state.
            /// An operand wider than 32 bits lists each register it spans. Ordered by
            /// register file, then code (so it keys a `BTreeSet` or a sorted live set).
            #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
            pub enum RegRef {
                #( #[doc = #docs] #variants(#variants), )*
            }

            /// Iterator over the registers an instruction reads or writes (no allocation).
            #[derive(Clone, Debug)]
            pub struct Regs {
                items: [Option<RegRef>; #cap_l],
                len: u8,
                pos: u8,
            }

            impl Regs {
                const fn new() -> Regs {
                    Regs { items: [None; #cap_l], len: 0, pos: 0 }
                }

                // Unused when no opcode reads or writes a register.
                #[allow(dead_code)]
                fn push(&mut self, r: RegRef) {
                    if (self.len as usize) < self.items.len() {
                        self.items[self.len as usize] = Some(r);
                        self.len += 1;
                    }
                }
            }

            impl Iterator for Regs {
                type Item = RegRef;
                fn next(&mut self) -> Option<RegRef> {
                    if self.pos < self.len {
                        self.pos += 1;
                        self.items[self.pos as usize - 1]
                    } else {
                        None
                    }
                }

                fn size_hint(&self) -> (usize, Option<usize>) {
                    let n = (self.len - self.pos) as usize;
                    (n, Some(n))
                }
            }

            impl ExactSizeIterator for Regs {}
        }
    }

    /// A method `name(&self, regs: &mut Regs)` (of visibility `vis`) that pushes the
    /// registers of a list onto `regs`. `Instruction::reads`/`writes` call it in each
    /// arm on one `Regs` of their own: an arm that built and returned a `Regs` of its own
    /// gave the dispatch one stack object per opcode, which made LLVM's SROA quadratic
    /// in the spec (7 of the 1,024-opcode crate's 13 s of optimisation).
    pub(super) fn push_regs(
        &self,
        op: &Opcode,
        list: &[ListRef],
        name: &proc_macro2::Ident,
        vis: &TokenStream,
    ) -> TokenStream {
        let m = self.model;
        let tys = self.reg_ref_types();
        let mut stmts = Vec::new();
        for r in list {
            match r {
                ListRef::Word(w) => {
                    let w = &m.words[w.0];
                    let tn = self.type_ident(w.reg_file);
                    let bits = uint_ty(m.ty(w.reg_file).width).to_string();
                    for n in w.lo..=w.hi {
                        let n = lit(n, &bits);
                        stmts.push(quote! {
                            if let Some(r) = #tn::new(#n) { regs.push(RegRef::#tn(r)); }
                        });
                    }
                }
                // Any register of the file: run time picks one.
                ListRef::Indexed { file, .. } => {
                    let Some(rf) = m.ty(*file).reg_file() else {
                        continue;
                    };
                    let tn = self.type_ident(*file);
                    let bits = uint_ty(m.ty(*file).width).to_string();
                    let (lo, hi) = (lit(rf.lo, &bits), lit(rf.hi, &bits));
                    stmts.push(quote! {
                        for n in #lo..=#hi {
                            if let Some(r) = #tn::new(n) { regs.push(RegRef::#tn(r)); }
                        }
                    });
                }
                ListRef::Field(fi) => {
                    let f = &op.fields[*fi];
                    if !tys.contains(&f.ty) {
                        continue;
                    }
                    let tn = self.type_ident(f.ty);
                    let id = self.field_ident(f);
                    match &m.ty(f.ty).kind {
                        TypeKind::Enum(_) => {
                            stmts.push(quote! { regs.push(RegRef::#tn(self.#id)); });
                        }
                        TypeKind::RegFile(_) => {
                            let bits = uint_ty(m.ty(f.ty).width);
                            let single = match op.bitwidth(*fi) {
                                None => true,
                                Some(b) => b.expr.as_const().is_some_and(|v| v <= 32),
                            };
                            if single {
                                stmts.push(quote! {
                                    if !self.#id.is_constant() { regs.push(RegRef::#tn(self.#id)); }
                                });
                                continue;
                            }
                            let count = match op.bitwidth(*fi) {
                                None => quote! { 1 },
                                Some(b) => match b.expr.as_const() {
                                    Some(v) => {
                                        let n = lit(
                                            ((v.max(1) as u128).div_ceil(32)).max(1),
                                            &bits.to_string(),
                                        );
                                        quote! { #n }
                                    }
                                    None => {
                                        let e = self.int_expr(op, &b.expr);
                                        quote! { ((#e).max(1) as u32).div_ceil(32) as #bits }
                                    }
                                },
                            };
                            stmts.push(quote! {
                                if !self.#id.is_constant() {
                                    let mut k: #bits = 0;
                                    while k < #count {
                                        match self.#id.offset(k) {
                                            Some(r) => regs.push(RegRef::#tn(r)),
                                            None => break,
                                        }
                                        k += 1;
                                    }
                                }
                            });
                        }
                        _ => {}
                    }
                }
            }
        }
        if stmts.is_empty() {
            quote! {
                #[inline]
                #vis fn #name(&self, _: &mut Regs) {}
            }
        } else {
            quote! {
                #[inline]
                #vis fn #name(&self, regs: &mut Regs) {
                    #( #stmts )*
                }
            }
        }
    }
}
