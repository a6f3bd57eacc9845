//! The fieldless `Opcode` enum and its static metadata (operands, lists, bit widths).

use super::*;

/// The lists of the metadata that opcodes share (fields, operands, register operands,
/// bit widths): each distinct list is written once, as a `static` of its own, and
/// every opcode with that list refers to it. Opcodes of one shape (`rd, ra, rb`) have
/// equal lists; written once, rustc builds and checks each once (at 1,024 opcodes of
/// the synthetic spec, 7 % of the build's memory).
#[derive(Default)]
pub(super) struct SharedRows {
    /// The `static` items, in the order first met.
    items: Vec<TokenStream>,
    /// The reference to the item of each list written so far, by kind and rows.
    seen: std::collections::HashMap<String, TokenStream>,
}

impl SharedRows {
    /// A reference to the list of `rows` (of type `ty`, `kind` naming the pool): a new
    /// `static INFO_{kind}_{n}` the first time, the same one after.
    pub(super) fn share(
        &mut self,
        kind: &str,
        ty: TokenStream,
        rows: &[TokenStream],
    ) -> TokenStream {
        if rows.is_empty() {
            return quote! { &[] };
        }
        let body = quote! { #( #rows ),* };
        let key = format!("{kind} {body}");
        if let Some(r) = self.seen.get(&key) {
            return r.clone();
        }
        let name = format_ident!("INFO_{}_{}", kind, self.items.len());
        let n = lit(rows.len() as u128, "usize");
        self.items
            .push(quote! { static #name: [#ty; #n] = [ #body ]; });
        let r = quote! { &#name };
        self.seen.insert(key, r.clone());
        r
    }
}

impl Gen<'_> {
    fn operand_info(&self, op: &Opcode, kind: &OperandKind, span_text: &str) -> TokenStream {
        let m = self.model;
        let (k, fields, bw, optional) = match kind {
            OperandKind::Field(f) => {
                let field = &op.fields[*f];
                let t = m.ty(field.ty);
                let tn = &t.name;
                let k = match &t.kind {
                    _ if m.is_register_type(field.ty) => quote! { OperandKind::Register(#tn) },
                    TypeKind::RegFile(_) => unreachable!("a register type"),
                    TypeKind::Immediate { .. } => quote! { OperandKind::Immediate(#tn) },
                    TypeKind::ConstMem { .. } => quote! { OperandKind::ConstMem },
                    TypeKind::Enum(_) => quote! { OperandKind::Enum(#tn) },
                };
                (
                    k,
                    vec![field.name.clone()],
                    self.bitwidth_info(op, *f),
                    field.default.is_some(),
                )
            }
            OperandKind::CMemIndexed { mem, reg } => (
                quote! { OperandKind::ConstMemIndexed },
                vec![op.fields[*mem].name.clone(), op.fields[*reg].name.clone()],
                self.bitwidth_info(op, *mem),
                false,
            ),
            OperandKind::RegIndexed { file, reg, offset } => {
                let tn = &m.ty(*file).name;
                (
                    quote! { OperandKind::RegisterIndexed(#tn) },
                    vec![
                        op.fields[*reg].name.clone(),
                        op.fields[*offset].name.clone(),
                    ],
                    quote! { Bitwidth::Unspecified },
                    false,
                )
            }
            OperandKind::Word(_) => (
                quote! { OperandKind::Word },
                vec![],
                quote! { Bitwidth::Unspecified },
                false,
            ),
        };
        quote! {
            OperandInfo::new(#span_text, #k, &[ #( #fields ),* ], #bw, #optional)
        }
    }

    fn bitwidth_info(&self, op: &Opcode, f: usize) -> TokenStream {
        match op.bitwidth(f) {
            None => quote! { Bitwidth::Unspecified },
            Some(b) => match b.expr.as_const() {
                Some(v) => {
                    let v = lit(v.clamp(0, u32::MAX as i128) as u128, "u32");
                    quote! { Bitwidth::Fixed(#v) }
                }
                None => {
                    let text = self.sources.text(b.span);
                    let expr = text
                        .split_once('=')
                        .map(|(_, e)| e)
                        .unwrap_or(text)
                        .trim()
                        .trim_end_matches(';')
                        .trim();
                    quote! { Bitwidth::Depends(#expr) }
                }
            },
        }
    }

    fn list_info(&self, op: &Opcode, list: &[ListRef]) -> Vec<TokenStream> {
        list.iter()
            .map(|r| match r {
                ListRef::Field(f) => {
                    self.operand_info(op, &OperandKind::Field(*f), &op.fields[*f].name)
                }
                ListRef::Word(w) => {
                    let name = &self.model.words[w.0].name;
                    self.operand_info(op, &OperandKind::Word(*w), name)
                }
                &ListRef::Indexed { file, reg, offset } => {
                    let prefix = self
                        .model
                        .ty(file)
                        .reg_file()
                        .map_or("", |r| r.prefix.as_str());
                    let text = format!(
                        "{prefix}[{}, {}]",
                        op.fields[reg].name, op.fields[offset].name
                    );
                    self.operand_info(op, &OperandKind::RegIndexed { file, reg, offset }, &text)
                }
            })
            .collect()
    }

    pub(super) fn opcode_enum(&self) -> TokenStream {
        let m = self.model;
        let variants: Vec<_> = m.opcodes.iter().map(|o| self.struct_ident(o)).collect();
        let spec_names: Vec<_> = m.opcodes.iter().map(|o| o.name.as_str()).collect();
        let vdocs = self.variant_docs();
        let mut shared = SharedRows::default();
        let infos: Vec<_> = if self.options.skip_metadata {
            Vec::new()
        } else {
            m.opcodes
                .iter()
                .map(|op| {
                    let name = &op.name;
                    let optype = op.optype.map(|d| m.def(d).name.as_str()).unwrap_or("");
                    let fixed_mask = lit_hex(op.fixed_mask, "u128");
                    let fixed_bits = lit_hex(op.fixed_bits, "u128");
                    let field_mask = lit_hex(op.covered, "u128");
                    let fields: Vec<_> = op
                        .fields
                        .iter()
                        .map(|f| {
                            let n = &f.name;
                            let start = lit(f.start as u128, "u32");
                            let width = lit(f.width as u128, "u32");
                            let tn = &m.ty(f.ty).name;
                            let role = match f.role {
                                Role::Fixed(c) => {
                                    let c = lit_hex(c, "u128");
                                    quote! { FieldRole::Fixed(#c) }
                                }
                                Role::Operand => quote! { FieldRole::Operand },
                                Role::Modifier => quote! { FieldRole::Modifier },
                                Role::SubField(b) => {
                                    let b = &op.fields[b].name;
                                    quote! { FieldRole::SubField(#b) }
                                }
                            };
                            let default = match f.default {
                                Some(d) => {
                                    let d = lit_hex(d, "u128");
                                    quote! { Some(#d) }
                                }
                                None => quote! { None },
                            };
                            quote! { FieldInfo::new(#n, #start, #width, #tn, #role, #default) }
                        })
                        .collect();
                    let order: Vec<_> = op
                        .order
                        .iter()
                        .map(|o| self.operand_info(op, &o.kind, self.sources.text(o.span)))
                        .collect();
                    let ins = self.list_info(op, &op.in_list);
                    let outs = self.list_info(op, &op.out_list);
                    let fields = shared.share("FIELDS", quote! { FieldInfo }, &fields);
                    let [order, ins, outs] = [order, ins, outs]
                        .map(|l| shared.share("OPERANDS", quote! { OperandInfo }, &l));
                    let backend = self.backend_info(op, &mut shared);
                    quote! {
                        OpcodeInfo {
                            name: #name,
                            optype: #optype,
                            fixed_mask: #fixed_mask,
                            fixed_bits: #fixed_bits,
                            field_mask: #field_mask,
                            fields: #fields,
                            order: #order,
                            in_list: #ins,
                            out_list: #outs,
                            #backend
                        }
                    }
                })
                .collect()
        };
        let shared = shared.items;
        let count = lit(m.opcodes.len() as u128, "usize");
        let repr = self.opcode_repr();
        let metadata = (!self.options.skip_metadata).then(|| {
            quote! {
                static OPCODE_INFO: [OpcodeInfo; #count] = [ #( #infos ),* ];
                #( #shared )*

                impl Opcode {
                    /// Static metadata: fields, operands, In/Out lists.
                    // Not inlined: every opcode's struct calls it, and inlined, each
                    // codegen unit took in the whole table for ThinLTO to fold.
                    #[inline(never)]
                    pub fn info(self) -> &'static OpcodeInfo {
                        &OPCODE_INFO[self as usize]
                    }

                    /// Operands in assembly order (the spec's `Order`).
                    pub fn order(self) -> &'static [OperandInfo] {
                        self.info().order
                    }

                    /// Operands read (the spec's `InList`).
                    pub fn in_list(self) -> &'static [OperandInfo] {
                        self.info().in_list
                    }

                    /// Operands written (the spec's `OutList`).
                    pub fn out_list(self) -> &'static [OperandInfo] {
                        self.info().out_list
                    }
                }
            }
        });
        let from_str = super::from_str_by_name(
            spec_names
                .iter()
                .zip(&variants)
                .map(|(n, v)| (n.to_string(), quote! { Opcode::#v })),
            quote! { ParseError { type_name: "Opcode" } },
        );
        quote! {
            /// Every opcode of the spec (fieldless; see [`Instruction`] for the values).
            #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
            #[repr(#repr)]
            pub enum Opcode {
                #( #[doc = #vdocs] #variants, )*
            }

            #metadata

            impl Opcode {
                /// Every opcode, in spec order.
                pub const ALL: &'static [Opcode] = &[ #( Opcode::#variants ),* ];

                /// The opcode's name in the spec.
                pub const fn name(self) -> &'static str {
                    match self {
                        #( Opcode::#variants => #spec_names, )*
                    }
                }
            }

            impl core::fmt::Display for Opcode {
                fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                    f.write_str(self.name())
                }
            }

            impl core::str::FromStr for Opcode {
                type Err = ParseError;
                fn from_str(s: &str) -> Result<Opcode, ParseError> {
                    #from_str
                }
            }
        }
    }
}
