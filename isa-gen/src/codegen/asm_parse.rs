//! Generated assembly parsing: `Instruction::parse`/`parse_at`. The mnemonic selects
//! the candidate opcodes through a `match`; each opcode is described by a static
//! `OpcodeSpec` table (modifiers, guard, operands, where their bits go), which the
//! matcher of `isa-rt` (`isa_rt::asm`) reads a line against to build the 128-bit word.
//! The rules are those of the interpreting parser (`crate::asm`), its test oracle.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::{lit, lit_hex, Gen};
use crate::asm::{mnemonic, Assembler, SubKind};
use crate::model::{Address, Opcode, OperandKind, Role, TypeId, TypeKind};

/// A field's place for the matcher: its start and its mask, worked out here.
fn at(start: u32, width: u32) -> TokenStream {
    let s = lit(start.min(127) as u128, "u8");
    let mask = 1u128.checked_shl(width).map_or(u128::MAX, |b| b - 1);
    let m = lit_hex(mask, "u128");
    quote! { ::isa_rt::asm::At { start: #s, mask: #m } }
}

impl Gen<'_> {
    /// The error types and the printer's options, which are the run-time crate's
    /// (the matcher and the printer there read them), under the crate's own names.
    pub(super) fn asm_exports(&self) -> TokenStream {
        quote! {
            /// How [`Instruction::write_asm_with`] writes an instruction; see
            /// [`FormatOptions::DEFAULT`].
            pub use ::isa_rt::print::FormatOptions;
            pub use ::isa_rt::asm::{AsmError, AsmErrorDisplay, AsmErrorKind, Expect, NameHint, Problem};
        }
    }

    /// How the values of type `ty` (a register file or an enumeration) read by name:
    /// the `Named` constant its `FromStr` reads too.
    fn name_fn(&self, ty: TypeId) -> TokenStream {
        let tn = self.type_ident(ty);
        quote! { <#tn as ::isa_rt::table::Named>::NAMES }
    }

    fn sub_spec(&self, op: &Opcode, sub: usize, kind: SubKind) -> TokenStream {
        let model = self.model;
        let f = &op.fields[sub];
        let t = model.ty(f.ty);
        let a = at(f.start, f.width);
        let role = match kind {
            SubKind::Not => quote! { ::isa_rt::asm::SubRole::Not },
            SubKind::BitNot => quote! { ::isa_rt::asm::SubRole::BitNot },
            SubKind::Neg { ext } => match ext.and_then(|e| {
                let ef = &op.fields[e];
                model.ty(ef.ty).enum_code("X").map(|x| (ef, x))
            }) {
                Some((ef, x)) => {
                    let ea = at(ef.start, ef.width);
                    let x = lit(x, "u64");
                    quote! { ::isa_rt::asm::SubRole::Neg(Some((#ea, #x))) }
                }
                None => quote! { ::isa_rt::asm::SubRole::Neg(None) },
            },
            SubKind::Suffix => {
                let nf = self.name_fn(f.ty);
                quote! { ::isa_rt::asm::SubRole::Suffix(#nf) }
            }
        };
        let (unset, set) = t.symbol_codes().unwrap_or((0, 1));
        let set = lit(set, "u64");
        let unset = lit(unset, "u64");
        let default = lit(f.default.unwrap_or(0), "u64");
        quote! { ::isa_rt::asm::Sub { at: #a, role: #role, set: #set, unset: #unset, default: #default } }
    }

    /// The `OpcodeSpec` of one opcode, with the functions it points to.
    fn opcode_spec(&self, a: &Assembler, opcode: usize) -> (TokenStream, proc_macro2::Ident) {
        let model = self.model;
        let op = &model.opcodes[opcode];
        let oa = &a.ops[opcode];
        let spec = format_ident!("SPEC_{}", super::names::field_name(&op.name).to_uppercase());
        let mnemonic = mnemonic(model, opcode);
        let mut items = Vec::new();

        // The word every parse starts from: fixed bits and defaults; symbol sub-fields
        // without a default start unset.
        let mut d = model.default_instruction(opcode);
        for (i, f) in op.fields.iter().enumerate() {
            if matches!(f.role, Role::SubField(_)) && f.default.is_none() {
                d.values[i] = model.ty(f.ty).symbol_codes().map_or(0, |c| c.0);
            }
        }
        let base = lit_hex(model.encode(&d), "u128");

        let mods: Vec<_> = oa
            .modifiers
            .iter()
            .map(|&m| {
                let f = &op.fields[m];
                let a = at(f.start, f.width);
                let name = &f.name;
                let vs = model.ty(f.ty).enum_values().unwrap_or(&[]);
                let vnames = vs.iter().map(|v| v.name.as_str());
                let vcodes = vs.iter().map(|v| lit(v.code, "u64"));
                let required = f.default.is_none();
                let text: Vec<String> = vs.iter().map(|v| format!(".{}", v.name)).collect();
                let text = text.join(", ");
                quote! {
                    ::isa_rt::asm::ModSpec { at: #a, field: #name, values: &[ #( (#vnames, #vcodes) ),* ], required: #required, values_text: #text }
                }
            })
            .collect();

        let guard = match oa.guard {
            None => quote! { None },
            Some(g) => {
                let f = &op.fields[g];
                let a = at(f.start, f.width);
                let nf = self.name_fn(f.ty);
                let tn = &model.ty(f.ty).name;
                let not = oa
                    .subs
                    .get(&g)
                    .into_iter()
                    .flatten()
                    .find(|(_, k)| *k == SubKind::Not);
                let not = match not {
                    Some(&(s, k)) => {
                        let sub = self.sub_spec(op, s, k);
                        quote! { Some(#sub) }
                    }
                    None => quote! { None },
                };
                quote! { Some(::isa_rt::asm::GuardSpec { at: #a, name: #nf, type_name: #tn, not: #not }) }
            }
        };

        let mut operands = Vec::new();
        for (k, o) in oa.operands.iter().enumerate() {
            let label = &oa.labels[k];
            let expected = crate::asm::expected_kind_pub(model, op, &o.kind);
            let (kind, main, subs_of, optional) = match o.kind {
                OperandKind::Field(f) => {
                    let field = &op.fields[f];
                    let t = model.ty(field.ty);
                    let kind = match &t.kind {
                        TypeKind::RegFile(rf) => {
                            let nf = self.name_fn(field.ty);
                            let prefix = &rf.prefix;
                            let (lo, hi) = (lit(rf.lo, "u64"), lit(rf.hi, "u64"));
                            let count = match op.bitwidth(f) {
                                None => quote! { ::isa_rt::asm::count_n::<1> },
                                // An expression that reads no field (`32`, `(1) * 64`)
                                // is a constant.
                                Some(b)
                                    if {
                                        let mut used = Vec::new();
                                        b.expr.fields(&mut used);
                                        used.is_empty()
                                    } =>
                                {
                                    let v = b.expr.eval(&|_| 0);
                                    let n = lit((v.clamp(1, 1024) as u128).div_ceil(32), "");
                                    quote! { ::isa_rt::asm::count_n::<#n> }
                                }
                                Some(b) => {
                                    let cf = format_ident!(
                                        "count_{}_{}",
                                        super::names::field_name(&op.name),
                                        k
                                    );
                                    let mut used = Vec::new();
                                    b.expr.fields(&mut used);
                                    let lets: Vec<_> = used
                                        .iter()
                                        .map(|&u| {
                                            let uf = &op.fields[u];
                                            let id = self.field_ident(uf);
                                            let tn = self.type_ident(uf.ty);
                                            let bits = super::uint_ty(model.ty(uf.ty).width);
                                            let a = at(uf.start, uf.width);
                                            quote! {
                                                let Some(#id) = #tn::from_bits(#a.get(w__) as #bits) else {
                                                    return 1;
                                                };
                                            }
                                        })
                                        .collect();
                                    let e = self.int_expr_with(op, &b.expr, &|id| quote! { #id });
                                    items.push(quote! {
                                        // `w__`: no field can be named so.
                                        fn #cf(w__: u128) -> u64 {
                                            #( #lets )*
                                            ((#e).clamp(1, 1024) as u64).div_ceil(32)
                                        }
                                    });
                                    quote! { #cf }
                                }
                            };
                            quote! { ::isa_rt::asm::Kind::Reg { name: #nf, prefix: #prefix, lo: #lo, hi: #hi, count: #count } }
                        }
                        TypeKind::Enum(vs) => {
                            let nf = self.name_fn(field.ty);
                            let tn = &t.name;
                            let names = vs.iter().map(|v| v.name.as_str());
                            quote! { ::isa_rt::asm::Kind::Enum { name: #nf, type_name: #tn, values: &[ #( #names ),* ] } }
                        }
                        TypeKind::Immediate { signed } => {
                            let tn = &t.name;
                            let w = lit(t.width as u128, "u8");
                            let op = &a.model.opcodes[opcode];
                            let (mode, shift) = match op.address(f) {
                                Some((s, Address::Relative)) => {
                                    (quote! { ::isa_rt::asm::ImmAddr::Rel }, s)
                                }
                                Some((s, Address::Absolute)) => {
                                    (quote! { ::isa_rt::asm::ImmAddr::Abs }, s)
                                }
                                Some((s, Address::Number)) => {
                                    (quote! { ::isa_rt::asm::ImmAddr::Scaled }, s)
                                }
                                Some((s, Address::Select { field, code })) => {
                                    let g = &op.fields[field];
                                    let at = at(g.start, g.width);
                                    let code = lit(code, "u128");
                                    (
                                        quote! { ::isa_rt::asm::ImmAddr::Select { mode: #at, abs: #code } },
                                        s,
                                    )
                                }
                                None => (quote! { ::isa_rt::asm::ImmAddr::No }, 0),
                            };
                            let shift = lit(shift as u128, "u8");
                            quote! { ::isa_rt::asm::Kind::Imm { type_name: #tn, width: #w, signed: #signed, addr: #mode, shift: #shift } }
                        }
                        TypeKind::ConstMem {
                            bank_bits,
                            offset_bits,
                            offset_signed,
                        } => {
                            let (b, o) = (
                                lit(*bank_bits as u128, "u8"),
                                lit(*offset_bits as u128, "u8"),
                            );
                            quote! { ::isa_rt::asm::Kind::CMem { bank_bits: #b, offset_bits: #o, signed: #offset_signed } }
                        }
                    };
                    (kind, f, f, field.default.is_some())
                }
                OperandKind::CMemIndexed { mem, reg } => {
                    let TypeKind::ConstMem {
                        bank_bits,
                        offset_bits,
                        offset_signed,
                    } = model.ty(op.fields[mem].ty).kind
                    else {
                        continue;
                    };
                    let rf = &op.fields[reg];
                    let ra = at(rf.start, rf.width);
                    let nf = self.name_fn(rf.ty);
                    let zero = match model.ty(rf.ty).reg_file().and_then(|r| r.named.first()) {
                        Some((_, c)) => {
                            let c = lit(*c, "u64");
                            quote! { Some(#c) }
                        }
                        None => quote! { None },
                    };
                    let (b, o) = (lit(bank_bits as u128, "u8"), lit(offset_bits as u128, "u8"));
                    let rt = &model.ty(rf.ty).name;
                    (
                        quote! { ::isa_rt::asm::Kind::CMemIdx { bank_bits: #b, offset_bits: #o, signed: #offset_signed, reg: #ra, reg_name: #nf, reg_type: #rt, zero: #zero } },
                        mem,
                        mem,
                        false,
                    )
                }
                OperandKind::RegIndexed { file, reg, offset } => {
                    let prefix = model
                        .ty(file)
                        .reg_file()
                        .map_or(String::new(), |r| r.prefix.clone());
                    let nf = self.name_fn(op.fields[reg].ty);
                    let of = &op.fields[offset];
                    let oa_ = at(of.start, of.width);
                    let ot = model.ty(of.ty);
                    let ow = lit(ot.width as u128, "u8");
                    let os = matches!(ot.kind, TypeKind::Immediate { signed: true });
                    let rt = &model.ty(op.fields[reg].ty).name;
                    (
                        quote! { ::isa_rt::asm::Kind::RegIdx { prefix: #prefix, reg_name: #nf, reg_type: #rt, off: #oa_, off_width: #ow, off_signed: #os } },
                        reg,
                        usize::MAX,
                        false,
                    )
                }
                OperandKind::Word(wd) => {
                    let name = &model.words[wd.0].name;
                    (
                        quote! { ::isa_rt::asm::Kind::Word(#name) },
                        usize::MAX,
                        usize::MAX,
                        false,
                    )
                }
            };
            let main_at = if main == usize::MAX {
                at(0, 0)
            } else {
                at(op.fields[main].start, op.fields[main].width)
            };
            let subs: Vec<_> = if subs_of == usize::MAX {
                Vec::new()
            } else {
                oa.subs
                    .get(&subs_of)
                    .into_iter()
                    .flatten()
                    .map(|&(s, k)| self.sub_spec(op, s, k))
                    .collect()
            };
            operands.push(quote! {
                ::isa_rt::asm::OperandSpec { kind: #kind, at: #main_at, subs: &[ #( #subs ),* ], label: #label, expected: #expected, optional: #optional }
            });
        }
        let req_after = crate::asm::required_after_pub(a, opcode)
            .into_iter()
            .map(|r| lit(r as u128, "u8"));

        let check = if op.exceptions.is_empty() {
            quote! { ::isa_rt::asm::check_none }
        } else {
            let cf = format_ident!("check_{}", super::names::field_name(&op.name));
            let st = self.struct_ident(op);
            items.push(quote! {
                fn #cf(w: u128) -> Result<(), (&'static str, &'static str)> {
                    match #st::decode_fields(w) {
                        Ok(i) => i.validate().map_err(|e| (e.kind, e.message)),
                        Err(_) => Err(("internal", "the assembled word does not decode")),
                    }
                }
            });
            quote! { #cf }
        };

        let field_names = op.fields.iter().map(|f| f.name.as_str());
        let mods_text: Vec<String> = oa
            .modifiers
            .iter()
            .flat_map(|&m| model.ty(op.fields[m].ty).enum_values().unwrap_or(&[]))
            .map(|v| format!(".{}", v.name))
            .collect();
        let mods_text = mods_text.join(" ");
        items.push(quote! {
            const #spec: ::isa_rt::asm::OpcodeSpec = ::isa_rt::asm::OpcodeSpec {
                mnemonic: #mnemonic,
                fields: &[ #( #field_names ),* ],
                mods_text: #mods_text,
                base: #base,
                mods: &[ #( #mods ),* ],
                guard: #guard,
                operands: &[ #( #operands ),* ],
                req_after: &[ #( #req_after ),* ],
                check: #check,
                files: ASM_REG_FILES,
            };
        });
        (quote! { #( #items )* }, spec)
    }

    /// The opcode tables, `Instruction::parse`/`parse_at`, and the mnemonic dispatch.
    pub(super) fn parse_dispatch(&self, a: &Assembler) -> TokenStream {
        let model = self.model;
        let mut specs = Vec::new();
        let mut spec_ids = Vec::new();
        for i in 0..model.opcodes.len() {
            let (items, id) = self.opcode_spec(a, i);
            specs.push(items);
            spec_ids.push(id);
        }
        // Mnemonic → specs, multi-word mnemonics (`UIMAD.WIDE`) first.
        let mut groups: Vec<(String, Vec<usize>)> = Vec::new();
        for i in 0..model.opcodes.len() {
            let m = mnemonic(model, i);
            match groups.iter_mut().find(|(g, _)| *g == m) {
                Some((_, v)) => v.push(i),
                None => groups.push((m, vec![i])),
            }
        }
        // Sorted, as the interpreting tier offers them (suggestions one swap away come
        // in this order).
        let mut all_mnemonics: Vec<&str> = groups.iter().map(|(m, _)| m.as_str()).collect();
        all_mnemonics.sort_unstable();
        // Register files in the spec's order, for "`R255` does not exist" hints.
        let reg_files = model.types.iter().filter_map(|t| {
            let rf = t.reg_file()?;
            let named: Vec<&str> = rf.named.iter().map(|(n, _)| n.as_str()).collect();
            let (name, prefix, named) = (&t.name, &rf.prefix, named.join(", "));
            let (lo, hi) = (lit(rf.lo, "u64"), lit(rf.hi, "u64"));
            Some(quote! {
                ::isa_rt::asm::RegFile { type_name: #name, prefix: #prefix, lo: #lo, hi: #hi, named: #named }
            })
        });
        let mut multi_groups: Vec<&(String, Vec<usize>)> =
            groups.iter().filter(|(m, _)| m.contains('.')).collect();
        multi_groups.sort_by_key(|(m, _)| std::cmp::Reverse(m.matches('.').count()));
        let multi: Vec<_> = multi_groups
            .iter()
            .map(|(m, ops)| {
                let words: Vec<&str> = m.split('.').collect();
                let nw = lit(words.len() as u128, "usize");
                let idx: Vec<_> = (0..words.len()).map(|i| lit(i as u128, "usize")).collect();
                let ids = ops.iter().map(|&i| &spec_ids[i]);
                quote! {
                    if l.nparts >= #nw #( && l.parts[#idx].0 == #words )* {
                        break 'found (#nw, &[ #( &#ids ),* ]);
                    }
                }
            })
            .collect();
        let single: Vec<_> = groups
            .iter()
            .filter(|(m, _)| !m.contains('.'))
            .map(|(m, ops)| {
                let ids = ops.iter().map(|&i| &spec_ids[i]);
                quote! { #m => &[ #( &#ids ),* ], }
            })
            .collect();
        // Mnemonics of one part; with none (every mnemonic has a modifier), a first
        // part that no mnemonic of several parts took is unknown.
        let unknown = quote! {
            let (_, s, e) = l.parts[0];
            return Err(AsmError::new(s, e, AsmErrorKind::UnknownMnemonic(::isa_rt::suggest::nearest::<3>(l.parts[0].0, MNEMONICS.iter().copied()))));
        };
        let single_part = if single.is_empty() {
            unknown
        } else {
            quote! {
                let specs: &[&::isa_rt::asm::OpcodeSpec] = match l.parts[0].0 {
                    #( #single )*
                    _ => { #unknown }
                };
                (1, specs)
            }
        };
        quote! {
            #( #specs )*

            /// Every mnemonic, for suggestions.
            const MNEMONICS: &[&str] = &[ #( #all_mnemonics ),* ];

            /// Register files: type, prefix, numbered range, constant registers.
            const ASM_REG_FILES: &[::isa_rt::asm::RegFile] = &[ #( #reg_files ),* ];

            impl Instruction {
                /// Parses one line of assembly located at address 0 (no labels).
                #[allow(clippy::result_large_err)]
                pub fn parse(line: &str) -> Result<Instruction, AsmError> {
                    Instruction::parse_at(line, 0, &|_| None)
                }

                /// Parses one line of assembly located at `addr`; `labels` gives the
                /// address of each `` `(label) `` a branch target names.
                // `'found` is unused when no mnemonic has several parts.
                #[allow(clippy::result_large_err, unused_labels)]
                pub fn parse_at(line: &str, addr: u64, labels: &dyn Fn(&str) -> Option<u64>) -> Result<Instruction, AsmError> {
                    // Lexed where it stays: a line is 1.6 KB, and moving it copies it.
                    let mut lexed = ::isa_rt::lex::Line::new(line);
                    if let Err(e) = ::isa_rt::lex::lex_into(line, &mut lexed) {
                        return Err(e.into());
                    }
                    let l = &lexed;
                    let (m0, cands): (usize, &[&::isa_rt::asm::OpcodeSpec]) = 'found: {
                        #( #multi )*
                        #single_part
                    };
                    let word = ::isa_rt::asm::assemble(l, m0, cands, addr, labels)?;
                    Instruction::decode(word).map_err(|_| {
                        AsmError::new(0, line.len(), AsmErrorKind::Msg("internal error: the assembled word does not decode"))
                    })
                }
            }

            impl core::str::FromStr for Instruction {
                type Err = AsmError;
                #[allow(clippy::result_large_err)]
                fn from_str(s: &str) -> Result<Instruction, AsmError> {
                    Instruction::parse(s)
                }
            }
        }
    }
}
