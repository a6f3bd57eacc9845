//! Generated assembly parsing: `Instruction::parse`/`parse_at`. The mnemonic selects
//! the candidate opcodes through a `match`; each opcode has a generated parser that
//! takes its modifiers, guard and operands in the same order, with the same rules and
//! the same messages as the interpreting parser (`crate::asm`), which is its oracle.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::{lit, lit_hex, uint_ty, Gen};
use crate::asm::{mnemonic, Assembler, SubKind};
use crate::model::{Field, Opcode, Operand, OperandKind, Role, TypeKind};

const RUNTIME: &str = include_str!("asm_runtime.rs");

impl Gen<'_> {
    /// The hand-written support code, emitted as is.
    pub(super) fn asm_runtime(&self) -> TokenStream {
        match RUNTIME.parse() {
            Ok(t) => t,
            Err(_) => quote! { compile_error!("isa-gen: asm_runtime.rs does not tokenize"); },
        }
    }

    /// `AsmReg` for every register file type.
    pub(super) fn asm_reg_impls(&self) -> TokenStream {
        let impls = self.model.types.iter().enumerate().filter_map(|(i, t)| {
            let rf = t.reg_file()?;
            let name = self.type_ident(crate::model::TypeId(i));
            let bits = uint_ty(t.width);
            let prefix = &rf.prefix;
            Some(quote! {
                impl AsmReg for #name {
                    const PREFIX: &'static str = #prefix;
                    fn numbered(n: u64) -> Option<#name> {
                        #bits::try_from(n).ok().and_then(#name::new)
                    }
                    fn constant(self) -> bool {
                        self.is_constant()
                    }
                }
            })
        });
        quote! { #( #impls )* }
    }

    fn parse_fn_ident(&self, op: &Opcode) -> syn::Ident {
        format_ident!("parse_{}", super::names::field_name(&op.name))
    }

    /// A value of field `f`'s type from an `i128` code expression.
    fn value_of_code(&self, f: &Field, code: TokenStream) -> TokenStream {
        let t = self.model.ty(f.ty);
        let tn = self.type_ident(f.ty);
        let bits = uint_ty(t.width);
        let mask = lit_hex(crate::model::mask(0, t.width), "u128");
        quote! { #tn::from_bits_masked(((#code) as u128 & #mask) as #bits) }
    }

    /// Statements parsing token `tok` as operand `o` into `Ok((values…))`, as a closure
    /// body. Returns (closure body, the field idents it yields, in order).
    fn operand_parser(
        &self,
        a: &Assembler,
        opcode: usize,
        o: &Operand,
    ) -> (TokenStream, Vec<usize>) {
        let model = self.model;
        let op = &model.opcodes[opcode];
        let oa = &a.ops[opcode];
        let local = |id: &syn::Ident| quote! { #id };
        match o.kind {
            OperandKind::Field(f) => {
                let field = &op.fields[f];
                let t = model.ty(field.ty);
                let tn = self.type_ident(field.ty);
                let subs: Vec<(usize, SubKind)> = oa.subs.get(&f).cloned().unwrap_or_default();
                let mut yields = vec![f];
                let value = match &t.kind {
                    TypeKind::RegFile(_) => {
                        let count = match op.bitwidth(f) {
                            None => quote! { 1u64 },
                            Some(b) => match b.expr.as_const() {
                                Some(v) => {
                                    let n =
                                        lit((v.clamp(1, 1024) as u128).div_ceil(32).max(1), "u64");
                                    quote! { #n }
                                }
                                None => {
                                    let e = self.int_expr_with(op, &b.expr, &local);
                                    quote! { ((#e).clamp(1, 1024) as u64).div_ceil(32) }
                                }
                            },
                        };
                        quote! { let v = reg_tok::<#tn>(tok, #count)?; }
                    }
                    TypeKind::Enum(_) => {
                        // Enum operands take no decorations.
                        return (
                            quote! {
                                let v = enum_tok::<#tn>(tok)?;
                                if let Some(c) = tok.prefix {
                                    return Err(Mis::Bad(Problem::Prefix(c)));
                                }
                                Ok(v)
                            },
                            yields,
                        );
                    }
                    TypeKind::Immediate { signed } => {
                        let w = t.width;
                        let (min, max) = if *signed {
                            (-(1i128 << (w - 1)), (1i128 << w) - 1)
                        } else {
                            (0, (1i128 << w) - 1)
                        };
                        let tname = &t.name;
                        let code = match a.ops[opcode].ishift.get(&f) {
                            Some(&shift) => {
                                let (lo, hi) = if *signed {
                                    (-(1i128 << (w - 1)), (1i128 << (w - 1)) - 1)
                                } else {
                                    (0, (1i128 << w) - 1)
                                };
                                let shift = lit(shift as u128, "u32");
                                let lo = syn::LitInt::new(
                                    &format!("{lo}i128"),
                                    proc_macro2::Span::call_site(),
                                );
                                let hi = syn::LitInt::new(
                                    &format!("{hi}i128"),
                                    proc_macro2::Span::call_site(),
                                );
                                quote! { target_tok(tok, addr, #shift, #lo, #hi, labels)? }
                            }
                            None => {
                                let min = syn::LitInt::new(
                                    &format!("{min}i128"),
                                    proc_macro2::Span::call_site(),
                                );
                                let max = syn::LitInt::new(
                                    &format!("{max}i128"),
                                    proc_macro2::Span::call_site(),
                                );
                                quote! { number_tok(tok, #tname, #min, #max)? }
                            }
                        };
                        let v = self.value_of_code(field, quote! { #code });
                        return (quote! { Ok(#v) }, yields);
                    }
                    TypeKind::ConstMem {
                        bank_bits,
                        offset_bits,
                    } => {
                        let code = cmem_code(*bank_bits, *offset_bits);
                        let v = self.value_of_code(field, quote! { code });
                        quote! {
                            let (bank, off) = cmem_tok(tok)?;
                            #code
                            let v = #v;
                        }
                    }
                };
                let (deco, sub_ids) = self.decorations(op, &subs);
                yields.extend(sub_ids.iter().copied());
                let ids: Vec<_> = std::iter::once(format_ident!("v"))
                    .chain(sub_ids.iter().map(|&s| self.field_ident(&op.fields[s])))
                    .collect();
                let result = if ids.len() == 1 {
                    quote! { Ok(v) }
                } else {
                    quote! { Ok(( #( #ids ),* )) }
                };
                (quote! { #value #deco #result }, yields)
            }
            OperandKind::CMemIndexed { mem, reg } => {
                let mf = &op.fields[mem];
                let TypeKind::ConstMem {
                    bank_bits,
                    offset_bits,
                } = model.ty(mf.ty).kind
                else {
                    return (quote! { Err(Mis::Kind) }, vec![]);
                };
                let rt = self.type_ident(op.fields[reg].ty);
                let zero = model
                    .ty(op.fields[reg].ty)
                    .reg_file()
                    .and_then(|r| r.named.first())
                    .map(|(n, _)| format_ident!("{}", n.to_uppercase()));
                let zero = match zero {
                    Some(z) => quote! { #rt::#z },
                    None => quote! { return Err(Mis::Bad(Problem::Index)) },
                };
                let code = cmem_code(bank_bits, offset_bits);
                let v = self.value_of_code(mf, quote! { code });
                let subs: Vec<(usize, SubKind)> = oa.subs.get(&mem).cloned().unwrap_or_default();
                let (deco, sub_ids) = self.decorations(op, &subs);
                let mut yields = vec![mem, reg];
                yields.extend(sub_ids.iter().copied());
                let ids: Vec<_> = [format_ident!("v"), format_ident!("r")]
                    .into_iter()
                    .chain(sub_ids.iter().map(|&s| self.field_ident(&op.fields[s])))
                    .collect();
                (
                    quote! {
                        let (bank, reg, off) = cmem_reg_tok(tok)?;
                        let r = match reg {
                            Some(name) => name.parse::<#rt>().map_err(|_| Mis::Bad(Problem::Index))?,
                            None => #zero,
                        };
                        #code
                        let v = #v;
                        #deco
                        Ok(( #( #ids ),* ))
                    },
                    yields,
                )
            }
            OperandKind::RegIndexed { file, reg, offset } => {
                let prefix = model
                    .ty(file)
                    .reg_file()
                    .map_or(String::new(), |r| r.prefix.clone());
                let rt = self.type_ident(op.fields[reg].ty);
                let of = &op.fields[offset];
                let w = model.ty(of.ty).width;
                let lo = syn::LitInt::new(
                    &format!("{}i128", -(1i128 << (w - 1))),
                    proc_macro2::Span::call_site(),
                );
                let hi = syn::LitInt::new(
                    &format!("{}i128", (1i128 << (w - 1)) - 1),
                    proc_macro2::Span::call_site(),
                );
                let v = self.value_of_code(of, quote! { off });
                (
                    quote! {
                        let (reg, off) = indexed_tok(tok, #prefix)?;
                        let r = reg.parse::<#rt>().map_err(|_| Mis::Bad(Problem::Index))?;
                        if !(#lo..=#hi).contains(&off) {
                            return Err(Mis::Bad(Problem::Index));
                        }
                        Ok((r, #v))
                    },
                    vec![reg, offset],
                )
            }
            OperandKind::Word(wd) => {
                let name = &model.words[wd.0].name;
                (
                    quote! {
                        match tok.core {
                            TokCore::Name(n) if n == #name && tok.prefix.is_none() => Ok(()),
                            _ => Err(Mis::Kind),
                        }
                    },
                    vec![],
                )
            }
        }
    }

    /// Statements setting the sub-fields of an operand from the token's prefix and
    /// suffix (written symbols only; suffix sub-fields start at their default).
    fn decorations(&self, op: &Opcode, subs: &[(usize, SubKind)]) -> (TokenStream, Vec<usize>) {
        let model = self.model;
        let mut init = Vec::new();
        let mut arms = Vec::new();
        let mut suffix = None;
        let mut ids = Vec::new();
        for &(s, kind) in subs {
            let f = &op.fields[s];
            let id = self.field_ident(f);
            ids.push(s);
            let t = model.ty(f.ty);
            let code = |name: &str, fallback: u128| t.enum_code(name).unwrap_or(fallback);
            match kind {
                SubKind::Suffix => {
                    let d = self.value_expr(f, f.default.unwrap_or(0));
                    let tn = self.type_ident(f.ty);
                    init.push(quote! { let mut #id = #d; });
                    suffix = Some(quote! {
                        if let Some(sfx) = tok.suffix {
                            #id = sfx.parse::<#tn>().map_err(|_| Mis::Bad(Problem::Suffix))?;
                        }
                    });
                }
                _ => {
                    let unset = self.value_expr(f, code("False", 0));
                    let set = self.value_expr(f, code("True", 1));
                    init.push(quote! { let mut #id = #unset; });
                    match kind {
                        SubKind::Not => arms.push(quote! { Some('!') => #id = #set, }),
                        SubKind::BitNot => arms.push(quote! { Some('~') => #id = #set, }),
                        SubKind::Neg { ext } => {
                            let (tilde, no_tilde) = match ext.and_then(|e| {
                                let ef = &op.fields[e];
                                model.ty(ef.ty).enum_code("X").map(|x| (ef, x))
                            }) {
                                Some((ef, x)) => {
                                    let eid = self.field_ident(ef);
                                    let xv = self.variant_path(ef.ty, x);
                                    (quote! { #eid == #xv }, quote! { #eid != #xv })
                                }
                                None => (quote! { false }, quote! { true }),
                            };
                            arms.push(quote! {
                                Some('-') if #no_tilde => #id = #set,
                                Some('~') if #tilde => #id = #set,
                                Some('-') => return Err(Mis::Bad(Problem::NegForm(true))),
                                Some('~') if !subs_bitnot => return Err(Mis::Bad(Problem::NegForm(false))),
                            });
                        }
                        SubKind::Suffix => {}
                    }
                }
            }
        }
        let has_bitnot = subs.iter().any(|(_, k)| *k == SubKind::BitNot);
        let bitnot_flag = if arms.iter().any(|a| a.to_string().contains("subs_bitnot")) {
            quote! { let subs_bitnot = #has_bitnot; }
        } else {
            quote! {}
        };
        let suffix = suffix.unwrap_or_else(|| {
            quote! {
                if tok.suffix.is_some() {
                    return Err(Mis::Bad(Problem::Suffix));
                }
            }
        });
        (
            quote! {
                #( #init )*
                #bitnot_flag
                match tok.prefix {
                    None => {}
                    #( #arms )*
                    Some(c) => return Err(Mis::Bad(Problem::Prefix(c))),
                }
                #suffix
            },
            ids,
        )
    }

    /// The generated parser of one opcode.
    pub(super) fn parse_fn(&self, a: &Assembler, opcode: usize) -> TokenStream {
        let model = self.model;
        let op = &model.opcodes[opcode];
        let oa = &a.ops[opcode];
        let name = self.struct_ident(op);
        let fname = self.parse_fn_ident(op);

        // Modifiers.
        let mnemonic_name = mnemonic(model, opcode);
        let mod_ids: Vec<_> = oa
            .modifiers
            .iter()
            .map(|&m| self.field_ident(&op.fields[m]))
            .collect();
        let mod_tys: Vec<_> = oa
            .modifiers
            .iter()
            .map(|&m| self.type_ident(op.fields[m].ty))
            .collect();
        let mod_names: Vec<_> = oa
            .modifiers
            .iter()
            .map(|&m| op.fields[m].name.clone())
            .collect();
        let mod_values: Vec<String> = oa
            .modifiers
            .iter()
            .flat_map(|&m| {
                model
                    .ty(op.fields[m].ty)
                    .enum_values()
                    .unwrap_or(&[])
                    .iter()
                    .map(|v| v.name.clone())
            })
            .collect();
        let finish_mods: Vec<_> = oa
            .modifiers
            .iter()
            .map(|&m| {
                let f = &op.fields[m];
                let id = self.field_ident(f);
                match f.default {
                    Some(d) => {
                        let v = self.value_expr(f, d);
                        quote! { let #id = #id.unwrap_or(#v); }
                    }
                    None => {
                        let vals: Vec<String> = model
                            .ty(f.ty)
                            .enum_values()
                            .unwrap_or(&[])
                            .iter()
                            .map(|v| format!(".{}", v.name))
                            .collect();
                        let vals = vals.join(", ");
                        let fname = &f.name;
                        quote! {
                            let Some(#id) = #id else {
                                let e = l.mnemonic_end();
                                return Err(Fail::new(1, AsmError::new(e, e, AsmErrorKind::MissingModifier(#fname, #vals))));
                            };
                        }
                    }
                }
            })
            .collect();
        let mods = if oa.modifiers.is_empty() {
            quote! {
                if let Some(&(_, s, e)) = l.parts[m0..l.nparts].first() {
                    return Err(Fail::new(1, AsmError::new(s - 1, e, AsmErrorKind::UnknownModifier(#mnemonic_name, ["", "", ""]))));
                }
            }
        } else {
            quote! {
            #( let mut #mod_ids: Option<#mod_tys> = None; )*
            for &(text, s, e) in &l.parts[m0..l.nparts] {
                // Errors point at the whole `.NAME`, dot included.
                let s = s - 1;
                #(
                    if let Ok(v) = text.parse::<#mod_tys>() {
                        if #mod_ids.replace(v).is_some() {
                            return Err(Fail::new(1, AsmError::new(s, e, AsmErrorKind::DuplicateModifier(#mod_names))));
                        }
                        continue;
                    }
                )*
                const VALUES: &[&str] = &[ #( #mod_values ),* ];
                return Err(Fail::new(1, AsmError::new(s, e, AsmErrorKind::UnknownModifier(#mnemonic_name, nearest::<3>(text, VALUES)))));
            }
            #( #finish_mods )*
            }
        };

        // Guard.
        let guard = match oa.guard {
            None => quote! {
                if let Some((_, _, s, e)) = l.guard {
                    return Err(Fail::new(2, AsmError::new(s, e, AsmErrorKind::NoGuard)));
                }
            },
            Some(g) => {
                let gf = &op.fields[g];
                let gid = self.field_ident(gf);
                let gt = self.type_ident(gf.ty);
                let gtn = &model.ty(gf.ty).name;
                let gdef = self.value_expr(gf, gf.default.unwrap_or(0));
                let not = oa
                    .subs
                    .get(&g)
                    .into_iter()
                    .flatten()
                    .find(|(_, k)| *k == SubKind::Not);
                match not {
                    Some(&(s, _)) => {
                        let nf = &op.fields[s];
                        let nid = self.field_ident(nf);
                        let t = model.ty(nf.ty);
                        let unset = self.value_expr(
                            nf,
                            nf.default.unwrap_or(t.enum_code("False").unwrap_or(0)),
                        );
                        let set = self.value_expr(nf, t.enum_code("True").unwrap_or(1));
                        quote! {
                            let (#gid, #nid) = match l.guard {
                                None => (#gdef, #unset),
                                Some((negated, name, s, e)) => {
                                    let Ok(r) = name.parse::<#gt>() else {
                                        return Err(Fail::new(2, AsmError::new(s, e, AsmErrorKind::Guard(#gtn))));
                                    };
                                    (r, if negated { #set } else { #unset })
                                }
                            };
                        }
                    }
                    None => quote! {
                        let #gid = match l.guard {
                            None => #gdef,
                            Some((negated, name, s, e)) => {
                                let Ok(r) = name.parse::<#gt>() else {
                                    return Err(Fail::new(2, AsmError::new(s, e, AsmErrorKind::Guard(#gtn))));
                                };
                                if negated {
                                    return Err(Fail::new(2, AsmError::new(s, e, AsmErrorKind::GuardNotNegatable)));
                                }
                                r
                            }
                        };
                    },
                }
            }
        };

        // Operands.
        let req_after = crate::asm::required_after_pub(a, opcode);
        let n = oa.operands.len();
        let mut stmts = Vec::new();
        // `skip` remembers an optional operand left out at the current token, for the
        // message of a later mismatch; only needed when an operand follows one.
        let any_optional = oa
            .operands
            .iter()
            .take(n.saturating_sub(1))
            .any(|o| matches!(o.kind, OperandKind::Field(f) if op.fields[f].default.is_some()));
        for (k, o) in oa.operands.iter().enumerate() {
            let (body, yields) = self.operand_parser(a, opcode, o);
            let ids: Vec<_> = yields
                .iter()
                .map(|&f| self.field_ident(&op.fields[f]))
                .collect();
            let pat = if ids.len() == 1 {
                quote! { #( #ids )* }
            } else {
                quote! { ( #( #ids ),* ) }
            };
            let parser = format_ident!("operand_{}", k);
            let index = lit((k + 1) as u128, "u8");
            let label = &oa.labels[k];
            let expected = crate::asm::expected_kind_pub(model, op, &o.kind);
            let rank = lit(10 + 2 * k as u128, "u32");
            let rank_bad = lit(11 + 2 * k as u128, "u32");
            let optional =
                matches!(o.kind, OperandKind::Field(f) if op.fields[f].default.is_some());
            let also = if any_optional {
                quote! { skip.filter(|s| s.0 == t).map(|s| (s.1, s.2)) }
            } else {
                quote! { None }
            };
            let skip_expected = if any_optional {
                quote! { skip.filter(|s| s.0 == t).map_or("", |s| s.3) }
            } else {
                quote! { "" }
            };
            let take = quote! {
                match #parser(tok) {
                    Ok(v) => v,
                    Err(Mis::Kind) => {
                        let also = #also;
                        let expected = match also {
                            Some(_) => [#skip_expected, #expected, "", ""],
                            None => [#expected, "", "", ""],
                        };
                        return Err(Fail::new(#rank, AsmError::new(tok.start, tok.end, AsmErrorKind::Operand { index: #index, label: #label, also, expected })));
                    }
                    Err(Mis::Bad(problem)) => {
                        return Err(Fail::new(#rank_bad, AsmError::new(tok.start, tok.end, AsmErrorKind::Invalid { index: #index, label: #label, problem })));
                    }
                }
            };
            stmts.push(quote! {
                let #parser = |tok: &Tok<'_>| -> Result<_, Mis> { #body };
            });
            if optional {
                let OperandKind::Field(f) = o.kind else {
                    unreachable!("optional operands are fields")
                };
                let mut defaults =
                    vec![self.value_expr(&op.fields[f], op.fields[f].default.unwrap_or(0))];
                for &y in &yields[1..] {
                    let yf = &op.fields[y];
                    let d = match (yf.default, yf.role) {
                        (Some(d), _) => d,
                        (None, Role::SubField(_)) => {
                            model.ty(yf.ty).enum_code("False").unwrap_or(0)
                        }
                        (None, _) => 0,
                    };
                    defaults.push(self.value_expr(yf, d));
                }
                let defaults = if defaults.len() == 1 {
                    quote! { #( #defaults )* }
                } else {
                    quote! { ( #( #defaults ),* ) }
                };
                let req = lit(req_after[k] as u128, "usize");
                let skip_arm = if k + 1 < n {
                    quote! {
                        Some(_) if l.nops - t > #req => {
                            skip = Some((t, #index, #label, #expected));
                            #defaults
                        }
                    }
                } else {
                    quote! {}
                };
                stmts.push(quote! {
                    let #pat = match l.op(t) {
                        Some(tok) if l.nops - t > #req && !matches!(#parser(tok), Err(Mis::Kind)) => {
                            let v = #take;
                            t += 1;
                            v
                        }
                        #skip_arm
                        _ => #defaults,
                    };
                });
            } else {
                let end_rank = rank.clone();
                stmts.push(quote! {
                    let Some(tok) = l.op(t) else {
                        let e = l.end();
                        return Err(Fail::new(#end_rank, AsmError::new(e, e, AsmErrorKind::Missing { index: #index, label: #label, expected: #expected })));
                    };
                    let #pat = #take;
                    t += 1;
                });
            }
        }
        let max = lit(n as u128, "u8");
        let too_many_rank = lit(10 + 2 * n as u128, "u32");
        let skip_decl = if any_optional {
            quote! { let mut skip: Option<(usize, u8, &'static str, &'static str)> = None; }
        } else {
            quote! {}
        };
        let fields: Vec<_> = op
            .value_fields()
            .map(|(_, f)| self.field_ident(f))
            .collect();
        let t_decl = if n == 0 {
            quote! { let t = 0usize; }
        } else {
            quote! { let mut t = 0usize; }
        };
        quote! {
            #[allow(unused_variables, clippy::result_large_err)]
            fn #fname(l: &Line<'_>, m0: usize, addr: u64, labels: &dyn Fn(&str) -> Option<u64>) -> Result<Instruction, Fail> {
                #mods
                #guard
                #skip_decl
                #t_decl
                #( #stmts )*
                if t < l.nops {
                    let tok = l.op(t).map_or((0, 0), |x| (x.start, x.end));
                    return Err(Fail::new(#too_many_rank, AsmError::new(tok.0, tok.1, AsmErrorKind::TooMany(#max))));
                }
                let i = #name { #( #fields ),* };
                if let Err(e) = i.validate() {
                    let s = l.parts[0].1;
                    return Err(Fail::new(1000, AsmError::new(s, l.mnemonic_end(), AsmErrorKind::Exception(e.kind, e.message))));
                }
                Ok(Instruction::#name(i))
            }
        }
    }

    /// `Instruction::parse`, `parse_at`, and the mnemonic dispatch.
    pub(super) fn parse_dispatch(&self, a: &Assembler) -> TokenStream {
        let model = self.model;
        let fns: Vec<_> = (0..model.opcodes.len())
            .map(|i| self.parse_fn(a, i))
            .collect();
        // Mnemonic → parser functions, multi-word mnemonics (`UIMAD.WIDE`) first.
        let mut groups: Vec<(String, Vec<usize>)> = Vec::new();
        for i in 0..model.opcodes.len() {
            let m = mnemonic(model, i);
            match groups.iter_mut().find(|(g, _)| *g == m) {
                Some((_, v)) => v.push(i),
                None => groups.push((m, vec![i])),
            }
        }
        let all_mnemonics: Vec<&str> = groups.iter().map(|(m, _)| m.as_str()).collect();
        let mut multi = Vec::new();
        let mut single = Vec::new();
        let mut multi_groups: Vec<&(String, Vec<usize>)> =
            groups.iter().filter(|(m, _)| m.contains('.')).collect();
        multi_groups.sort_by_key(|(m, _)| std::cmp::Reverse(m.matches('.').count()));
        for (m, ops) in multi_groups {
            let words: Vec<&str> = m.split('.').collect();
            let nw = lit(words.len() as u128, "usize");
            let idx: Vec<_> = (0..words.len()).map(|i| lit(i as u128, "usize")).collect();
            let fns: Vec<_> = ops
                .iter()
                .map(|&i| self.parse_fn_ident(&model.opcodes[i]))
                .collect();
            multi.push(quote! {
                if l.nparts >= #nw #( && l.parts[#idx].0 == #words )* {
                    break 'found (#nw, &[ #( #fns ),* ]);
                }
            });
        }
        for (m, ops) in groups.iter().filter(|(m, _)| !m.contains('.')) {
            let fns: Vec<_> = ops
                .iter()
                .map(|&i| self.parse_fn_ident(&model.opcodes[i]))
                .collect();
            single.push(quote! { #m => &[ #( #fns ),* ], });
        }
        quote! {
            type ParseFn = fn(&Line<'_>, usize, u64, &dyn Fn(&str) -> Option<u64>) -> Result<Instruction, Fail>;

            /// Every mnemonic, for suggestions.
            const MNEMONICS: &[&str] = &[ #( #all_mnemonics ),* ];

            #( #fns )*

            impl Instruction {
                /// Parses one line of assembly located at address 0 (no labels).
                #[allow(clippy::result_large_err)]
                pub fn parse(line: &str) -> Result<Instruction, AsmError> {
                    Instruction::parse_at(line, 0, &|_| None)
                }

                /// Parses one line of assembly located at `addr`; `labels` gives the
                /// address of each `` `(label) `` a branch target names.
                #[allow(clippy::result_large_err)]
                pub fn parse_at(line: &str, addr: u64, labels: &dyn Fn(&str) -> Option<u64>) -> Result<Instruction, AsmError> {
                    let l = lex(line)?;
                    let (m0, cands): (usize, &[ParseFn]) = 'found: {
                        #( #multi )*
                        let fns: &[ParseFn] = match l.parts[0].0 {
                            #( #single )*
                            other => {
                                let (_, s, e) = l.parts[0];
                                return Err(AsmError::new(s, e, AsmErrorKind::UnknownMnemonic(nearest::<3>(other, MNEMONICS))));
                            }
                        };
                        (1, fns)
                    };
                    let mut best: Option<Fail> = None;
                    for f in cands {
                        match f(&l, m0, addr, labels) {
                            Ok(i) => return Ok(i),
                            Err(e) => best = better(best, e),
                        }
                    }
                    match best {
                        Some(b) => Err(b.err),
                        None => Err(AsmError::new(0, 0, AsmErrorKind::Syntax("an instruction"))),
                    }
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

/// Statements computing `code` (the field encoding) from `bank` (u64) and `off` (i128),
/// returning `Mis::Bad(Problem::ConstMem)` when either does not fit.
fn cmem_code(bank_bits: u32, offset_bits: u32) -> TokenStream {
    let bmax = lit(crate::model::mask(0, bank_bits), "u64");
    let lo = syn::LitInt::new(
        &format!("{}i128", -(1i128 << (offset_bits - 1))),
        proc_macro2::Span::call_site(),
    );
    let hi = syn::LitInt::new(
        &format!("{}i128", (1i128 << (offset_bits - 1)) - 1),
        proc_macro2::Span::call_site(),
    );
    let ob = lit(offset_bits as u128, "u32");
    let omask = lit_hex(crate::model::mask(0, offset_bits), "i128");
    quote! {
        if bank > #bmax || !(#lo..=#hi).contains(&off) {
            return Err(Mis::Bad(Problem::ConstMem));
        }
        let code = (i128::from(bank) << #ob) | (off & #omask);
    }
}
