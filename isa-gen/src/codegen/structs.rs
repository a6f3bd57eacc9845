//! A struct per opcode: typed fields, `const fn new`/`encode`, decoding, docs.

use super::*;

impl Gen<'_> {
    fn field_doc(&self, op: &Opcode, f: &Field) -> String {
        let m = self.model;
        let t = m.ty(f.ty);
        let mut s = if f.width == 1 {
            format!("`{}`: `{}`, bit {}", f.name, t.name, f.start)
        } else {
            format!(
                "`{}`: `{}`, bits [{}:{}]",
                f.name,
                t.name,
                f.start + f.width - 1,
                f.start
            )
        };
        match f.role {
            Role::Operand => {
                if op.guard(m) == op.fields.iter().position(|x| x.name == f.name) {
                    s.push_str(", guard predicate");
                } else {
                    s.push_str(", operand");
                }
            }
            Role::Modifier => s.push_str(", modifier"),
            Role::SubField(b) => s.push_str(&format!(", sub-field of `{}`", op.fields[b].name)),
            Role::Fixed(_) => {}
        }
        if let Some(d) = f.default {
            let shown = match &t.kind {
                TypeKind::Enum(_) => t.enum_name(d).unwrap_or("?").to_string(),
                TypeKind::RegFile(rf) => rf.name_of(d).unwrap_or_default(),
                _ => format!("{d:#x}"),
            };
            s.push_str(&format!("; default `{shown}`"));
        }
        if f.origin != op.def {
            s.push_str(&format!(" (from `{}`)", m.def(f.origin).name));
        }
        s.push('.');
        s
    }

    /// The assembly form of an opcode, from the model: the mnemonic and the `Order`
    /// operands as the spec names them, those with a default in braces; the guard
    /// predicate left out.
    fn asm_form(&self, op: &Opcode) -> String {
        let m = self.model;
        let mnemonic = op
            .optype
            .map(|d| m.def(d).name.replace('_', "."))
            .unwrap_or_else(|| op.name.clone());
        let operands: Vec<String> = op
            .asm_operands(m)
            .map(|o| {
                let text = self.sources.text(o.span).to_string();
                match o.kind {
                    OperandKind::Field(f) if op.fields[f].default.is_some() => {
                        format!("{{{text}}}")
                    }
                    _ => text,
                }
            })
            .collect();
        if operands.is_empty() {
            mnemonic
        } else {
            format!("{mnemonic} {}", operands.join(", "))
        }
    }

    fn struct_docs(&self, op: &Opcode) -> Vec<String> {
        let m = self.model;
        let loc = self.sources.location(op.span);
        let optype = op.optype.map(|d| m.def(d).name.as_str()).unwrap_or("-");
        // The summary: the assembly form and what the instruction does.
        let said = op
            .optype
            .into_iter()
            .chain(std::iter::once(op.def))
            .filter_map(|d| docs::first_sentence(m, m.def(d)))
            .next_back();
        let form = self.asm_form(op);
        let mut lines = vec![
            match said {
                Some(s) => format!("`{form}`: {s}"),
                None => format!("`{form}`."),
            },
            String::new(),
            format!(
                "Opcode `{}` of optype `{optype}`, defined at `{loc}`.",
                op.name
            ),
            String::new(),
            format!(
                "Fixed bits: `{}`.",
                crate::model::resolve::pattern(op.fixed_mask, op.fixed_bits)
            ),
        ];
        let order: Vec<String> = op
            .order
            .iter()
            .map(|o| format!("`{}`", self.sources.text(o.span)))
            .collect();
        lines.push(format!("Operands (`Order`): {}.", order.join(", ")));
        if !self.options.skip_docs {
            for d in m.opcode_docs(op) {
                docs::section_lines(m, d, &mut lines);
            }
        }
        lines
    }

    /// `nested`: the struct is in a unit's module (the decoder at the top reads it).
    pub(super) fn opcode_struct(&self, op: &Opcode, nested: bool) -> TokenStream {
        let m = self.model;
        let name = self.struct_ident(op);
        let variant = name.clone();
        let doc = doc_attrs(&self.struct_docs(op));
        let vf: Vec<(usize, &Field)> = op.value_fields().collect();
        let fids: Vec<_> = vf.iter().map(|(_, f)| self.field_ident(f)).collect();
        let ftys: Vec<_> = vf.iter().map(|(_, f)| self.type_ident(f.ty)).collect();
        let fdocs: Vec<_> = vf
            .iter()
            .map(|(_, f)| doc_lit(&format!(" {}", self.field_doc(op, f))))
            .collect();
        let fixed_mask = lit_hex(op.fixed_mask, "u128");
        let fixed_bits = lit_hex(op.fixed_bits, "u128");
        let field_mask = lit_hex(op.covered, "u128");

        // encode
        let enc_terms: Vec<_> = vf
            .iter()
            .map(|(_, f)| {
                let id = self.field_ident(f);
                let start = lit(f.start as u128, "u32");
                if f.start == 0 {
                    quote! { (self.#id.bits() as u128) }
                } else {
                    quote! { ((self.#id.bits() as u128) << #start) }
                }
            })
            .collect();

        // decode: the fields of a word the decoder has checked
        let dec_stmts: Vec<_> = vf
            .iter()
            .map(|(_, f)| {
                let id = self.field_ident(f);
                let t = m.ty(f.ty);
                let tn = self.type_ident(f.ty);
                let bits = uint_ty(t.width);
                let start = lit(f.start as u128, "u32");
                let fmask = lit_hex(crate::model::mask(0, f.width), "u128");
                // `word__`, not `word`: no field can be named so (names are snake
                // case), while a field `word` would shadow the parameter.
                let raw = if f.start == 0 {
                    quote! { (word__ & #fmask) }
                } else {
                    quote! { ((word__ >> #start) & #fmask) }
                };
                match &t.kind {
                    TypeKind::Immediate { .. } | TypeKind::ConstMem { .. } => {
                        quote! { let #id = #tn::from_bits_masked(#raw as #bits); }
                    }
                    _ => {
                        // The code is defined (the decoder checked it); the other arm
                        // is never taken but keeps this free of panics.
                        let any = self.value_expr(f, self.any_code(f));
                        quote! {
                            let #id = match #tn::from_bits(#raw as #bits) { Some(v) => v, None => #any };
                        }
                    }
                }
            })
            .collect();

        let (word_binding, word_param) = if dec_stmts.is_empty() {
            (quote! {}, format_ident!("_word"))
        } else {
            (quote! { let word__ = word; }, format_ident!("word"))
        };

        // constructor: required operands (Order), then required modifiers; defaults else
        let mut required: Vec<usize> = Vec::new();
        for fi in op.operand_fields() {
            if op.fields[fi].default.is_none() && !required.contains(&fi) {
                required.push(fi);
            }
        }
        for (fi, f) in &vf {
            if f.default.is_none() && !required.contains(fi) {
                required.push(*fi);
            }
        }
        // Fields an `__Exception` condition reads are chosen by the caller too: their
        // defaults may be exactly what the condition forbids (`BRA_U` with `cond`).
        for ex in &op.exceptions {
            let mut used = Vec::new();
            ex.cond.fields(&mut used);
            for f in used {
                if !op.fields[f].is_fixed() && !required.contains(&f) {
                    required.push(f);
                }
            }
        }
        let req_ids: Vec<_> = required
            .iter()
            .map(|&i| self.field_ident(&op.fields[i]))
            .collect();
        let req_tys: Vec<_> = required
            .iter()
            .map(|&i| self.type_ident(op.fields[i].ty))
            .collect();
        let init: Vec<_> = vf
            .iter()
            .map(|(i, f)| {
                let id = self.field_ident(f);
                if required.contains(i) {
                    quote! { #id }
                } else {
                    let v = self.value_expr(f, f.default.unwrap_or(0));
                    quote! { #id: #v }
                }
            })
            .collect();
        let new_doc = if required.is_empty() {
            " The instruction with every field at its spec default.".to_string()
        } else {
            let names: Vec<String> = required
                .iter()
                .map(|&i| format!("`{}`", op.fields[i].name))
                .collect();
            format!(
                " Builds the instruction from its required fields ({}); every other field takes its spec default.",
                names.join(", ")
            )
        };
        let checked = !op.exceptions.is_empty();
        let new_doc = if checked {
            format!(
                "{new_doc} Fails with the spec's `__Exception` when the result would violate it."
            )
        } else {
            new_doc
        };
        let new_fn = if checked {
            quote! {
                #[doc = #new_doc]
                #[allow(clippy::too_many_arguments)]
                pub const fn new(#( #req_ids: #req_tys ),*) -> Result<#name, ValidationError> {
                    let i = #name { #( #init ),* };
                    match i.validate() {
                        Ok(()) => Ok(i),
                        Err(e) => Err(e),
                    }
                }
            }
        } else {
            quote! {
                #[doc = #new_doc]
                #[allow(clippy::too_many_arguments)]
                pub const fn new(#( #req_ids: #req_tys ),*) -> #name {
                    #name { #( #init ),* }
                }
            }
        };
        let default_impl = if required.is_empty() && !checked {
            quote! {
                impl Default for #name {
                    fn default() -> #name {
                        #name::new()
                    }
                }
            }
        } else {
            quote! {}
        };

        // Bit widths: a fixed one is a constant; the others, and the lookup by name,
        // are `isa_rt::backend`'s evaluation of the opcode's `bitwidths`.
        let bw_methods: Vec<_> = op
            .bitwidths
            .iter()
            .map(|b| {
                let f = &op.fields[b.field];
                let id = format_ident!("{}_bitwidth", names::field_name(&f.name));
                let body = match b.expr.as_const() {
                    Some(v) => {
                        let v = lit(v.clamp(0, u32::MAX as i128) as u128, "u32");
                        quote! { #v }
                    }
                    None => {
                        let k = lit(b.field as u128, "u8");
                        quote! {
                            ::isa_rt::backend::field_bitwidth(Self::OPCODE.info(), self.encode(), #k)
                                .unwrap_or(0)
                        }
                    }
                };
                let d = format!(
                    " Data width of `{}` in bits: `{}`.",
                    f.name,
                    self.sources.text(b.span).trim_end_matches(';')
                );
                quote! {
                    #[doc = #d]
                    pub fn #id(&self) -> u32 { #body }
                }
            })
            .collect();

        // validate
        let checks: Vec<_> = op
            .exceptions
            .iter()
            .map(|ex| {
                let cond = self.bool_expr(op, &ex.cond);
                let kind = &ex.kind;
                let msg = &ex.message;
                quote! {
                    if #cond {
                        return Err(ValidationError { opcode: Opcode::#variant, kind: #kind, message: #msg });
                    }
                }
            })
            .collect();
        let validate_doc = if checks.is_empty() {
            " Checks the spec's `__Exception` conditions (this opcode has none).".to_string()
        } else {
            " Checks the spec's `__Exception` conditions.".to_string()
        };

        let from_valid_vis = if nested {
            quote! { pub(super) }
        } else {
            quote! {}
        };
        let metadata = (!self.options.skip_metadata).then(|| {
            quote! {
                impl #name {
                    #( #bw_methods )*

                    /// Data width in bits of the operand with this spec name, if the spec gives one.
                    pub fn bitwidth(&self, operand: &str) -> Option<u32> {
                        ::isa_rt::backend::bitwidth(Self::OPCODE.info(), self.encode(), operand)
                    }

                    /// Registers read: every register operand in `InList` (and any in
                    /// neither list), at the widths this instance's fields choose;
                    /// constant registers omitted.
                    pub fn reads(&self) -> Regs {
                        ::isa_rt::backend::reads(Self::OPCODE.info(), self.encode())
                    }

                    /// Registers written (`OutList`), at the widths this instance's
                    /// fields choose; constant registers omitted.
                    pub fn writes(&self) -> Regs {
                        ::isa_rt::backend::writes(Self::OPCODE.info(), self.encode())
                    }
                }
            }
        });
        let asm = (!self.options.skip_asm).then(|| {
            quote! {
                impl #name {
                    /// Writes the instruction as assembly, located at `addr` (branch
                    /// targets print as absolute addresses).
                    #[inline]
                    pub fn write_asm<W: core::fmt::Write>(&self, w: &mut W, addr: u64) -> core::fmt::Result {
                        self.write_asm_with(w, addr, &FormatOptions::DEFAULT)
                    }

                    /// Writes the instruction as assembly, located at `addr`, the way
                    /// `o` says (addresses through a symbol table, decimal numbers,
                    /// defaults shown).
                    #[inline]
                    pub fn write_asm_with<W: core::fmt::Write>(&self, w: &mut W, addr: u64, o: &FormatOptions) -> core::fmt::Result {
                        ::isa_rt::print::write_asm(&TABLES, Self::OPCODE as usize, self.encode(), addr, o, w)
                    }
                }

                /// Prints the instruction as assembly located at address 0.
                impl core::fmt::Display for #name {
                    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                        self.write_asm(f, 0)
                    }
                }
            }
        });

        quote! {
            #doc
            #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
            pub struct #name {
                #( #[doc = #fdocs] pub #fids: #ftys, )*
            }

            impl #name {
                /// The opcode.
                pub const OPCODE: Opcode = Opcode::#variant;
                /// Bits that identify the opcode.
                pub const FIXED_MASK: u128 = #fixed_mask;
                /// Value of those bits.
                pub const FIXED_BITS: u128 = #fixed_bits;
                /// Bits covered by any field; all others are zero.
                pub const FIELD_MASK: u128 = #field_mask;

                #new_fn

                /// The 128-bit encoding.
                pub const fn encode(&self) -> u128 {
                    Self::FIXED_BITS #( | #enc_terms )*
                }

                /// Decodes the fields of a word whose fixed bits are this opcode's
                /// (as [`Instruction::decode`] established).
                #[inline]
                pub const fn decode_fields(word: u128) -> Result<#name, DecodeError> {
                    match check_fields(word, Opcode::#variant) {
                        Ok(()) => Ok(Self::from_valid_word(word)),
                        Err(e) => Err(e),
                    }
                }

                /// The instruction, when `d` is one of this opcode: the typed view of a
                /// decoded word.
                #[inline]
                pub const fn from_decoded(d: &Decoded) -> Option<#name> {
                    if d.opcode() as usize == Opcode::#variant as usize {
                        Some(Self::from_valid_word(d.word()))
                    } else {
                        None
                    }
                }

                /// The fields of a word the decoder accepted as this opcode.
                #[inline]
                #from_valid_vis const fn from_valid_word(#word_param: u128) -> #name {
                    #word_binding
                    #( #dec_stmts )*
                    #name { #( #fids ),* }
                }

                #[doc = #validate_doc]
                pub const fn validate(&self) -> Result<(), ValidationError> {
                    #( #checks )*
                    Ok(())
                }
            }

            #metadata
            #asm

            #default_impl

            impl From<#name> for Instruction {
                fn from(i: #name) -> Instruction {
                    Instruction::#variant(i)
                }
            }
        }
    }
}
