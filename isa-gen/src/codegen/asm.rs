//! Generated assembly printing: `write_asm`/`Display` per opcode struct and on
//! `Instruction`. The decisions (guard, modifier order, prefixes, suffixes, ranges,
//! which defaults to leave out) come from the same [`Assembler`] facts the interpreting
//! printer uses, so both tiers print identically.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::{lit, uint_ty, Gen};
use crate::asm::{omit, Assembler, SubKind};
use crate::model::{Address, Opcode, Operand, OperandKind, TypeKind};

impl Gen<'_> {
    /// Writes register field `f` (one string write when its file has a name table).
    fn write_reg(&self, op: &Opcode, f: usize) -> TokenStream {
        let field = &op.fields[f];
        let id = self.field_ident(field);
        if self.model.ty(field.ty).width <= super::types::NAME_TABLE_MAX_BITS {
            quote! { w.write_str(self.#id.name())?; }
        } else {
            quote! { write!(w, "{}", self.#id)?; }
        }
    }

    /// `self.f != <default>` for a field with a default (`true` without one).
    fn not_default_expr(&self, op: &Opcode, f: usize) -> TokenStream {
        let field = &op.fields[f];
        let id = self.field_ident(field);
        match field.default {
            Some(d) => {
                let v = self.value_expr(field, d);
                quote! { self.#id != #v }
            }
            None => quote! { true },
        }
    }

    /// `self.sub == <set value>` for a symbol sub-field.
    fn is_set_expr(&self, op: &Opcode, sub: usize) -> TokenStream {
        let model = self.model;
        let f = &op.fields[sub];
        let id = self.field_ident(f);
        let code = model.ty(f.ty).symbol_codes().map_or(1, |c| c.1);
        if model.ty(f.ty).enum_values().is_some() {
            let v = self.variant_path(f.ty, code);
            quote! { self.#id == #v }
        } else {
            let c = lit(code, &uint_ty(model.ty(f.ty).width).to_string());
            quote! { self.#id.bits() == #c }
        }
    }

    fn prefix_stmts(&self, a: &Assembler, opcode: usize, f: usize) -> TokenStream {
        let op = &self.model.opcodes[opcode];
        let subs = a.ops[opcode].subs.get(&f).cloned().unwrap_or_default();
        let mut out = Vec::new();
        for want in 0..3 {
            for &(sub, kind) in &subs {
                let set = self.is_set_expr(op, sub);
                match (want, kind) {
                    (0, SubKind::Not) => out.push(quote! { if #set { w.write_char('!')?; } }),
                    (1, SubKind::Neg { ext }) => {
                        let ch = match ext {
                            Some(e) => {
                                let ef = &op.fields[e];
                                let eid = self.field_ident(ef);
                                match self.model.ty(ef.ty).enum_code("X") {
                                    Some(x) => {
                                        let xv = self.variant_path(ef.ty, x);
                                        quote! { if self.#eid == #xv { '~' } else { '-' } }
                                    }
                                    None => quote! { '-' },
                                }
                            }
                            None => quote! { '-' },
                        };
                        out.push(quote! { if #set { w.write_char(#ch)?; } });
                    }
                    (2, SubKind::BitNot) => out.push(quote! { if #set { w.write_char('~')?; } }),
                    _ => {}
                }
            }
        }
        quote! { #( #out )* }
    }

    fn suffix_stmts(&self, a: &Assembler, opcode: usize, f: usize) -> TokenStream {
        let op = &self.model.opcodes[opcode];
        let subs = a.ops[opcode].subs.get(&f).cloned().unwrap_or_default();
        let mut out = Vec::new();
        for (sub, kind) in subs {
            if kind != SubKind::Suffix {
                continue;
            }
            let id = self.field_ident(&op.fields[sub]);
            let not_default = self.not_default_expr(op, sub);
            out.push(quote! {
                if #not_default {
                    w.write_char('.')?;
                    w.write_str(self.#id.name())?;
                }
            });
        }
        quote! { #( #out )* }
    }

    /// Number of 32-bit registers a register operand spans (an expression).
    fn reg_count_expr(&self, op: &Opcode, f: usize) -> TokenStream {
        match op.bitwidth(f) {
            None => quote! { 1u64 },
            Some(b) => match b.expr.as_const() {
                Some(v) => {
                    let n = lit((v.clamp(1, 1024) as u128).div_ceil(32).max(1), "u64");
                    quote! { #n }
                }
                None => {
                    let e = self.int_expr(op, &b.expr);
                    quote! { ((#e).clamp(1, 1024) as u64).div_ceil(32) }
                }
            },
        }
    }

    fn operand_stmts(&self, a: &Assembler, opcode: usize, o: &Operand) -> TokenStream {
        let model = self.model;
        let op = &model.opcodes[opcode];
        match o.kind {
            OperandKind::Field(f) => {
                let field = &op.fields[f];
                let id = self.field_ident(field);
                let t = model.ty(field.ty);
                let pre = self.prefix_stmts(a, opcode, f);
                let suf = self.suffix_stmts(a, opcode, f);
                let core = match &t.kind {
                    TypeKind::RegFile(rf) => {
                        let count = self.reg_count_expr(op, f);
                        let range_open = format!("{}[", rf.prefix);
                        let single = op
                            .bitwidth(f)
                            .is_none_or(|b| b.expr.as_const().is_some_and(|v| v <= 32));
                        let plain = if t.width <= super::types::NAME_TABLE_MAX_BITS {
                            quote! { w.write_str(self.#id.name())?; }
                        } else {
                            quote! { write!(w, "{}", self.#id)?; }
                        };
                        if single {
                            plain
                        } else {
                            quote! {
                                let count = #count;
                                if count > 1 && !self.#id.is_constant() {
                                    let n = self.#id.bits() as u64;
                                    w.write_str(#range_open)?;
                                    ::isa_rt::num::write_dec(w, n as i128)?;
                                    w.write_char(':')?;
                                    ::isa_rt::num::write_dec(w, (n + count - 1) as i128)?;
                                    w.write_char(']')?;
                                } else {
                                    #plain
                                }
                            }
                        }
                    }
                    TypeKind::Immediate { .. } => match a.model.opcodes[opcode].address(f) {
                        Some((shift, Address::Relative)) => {
                            let shift = lit(shift as u128, "u32");
                            quote! { o.write_address(w, addr as i128 + 16 + ((self.#id.get() as i128) << #shift))?; }
                        }
                        // The instance's mode field decides.
                        Some((shift, Address::Select { field, code })) => {
                            let shift = lit(shift as u128, "u32");
                            let g = self.field_ident(&op.fields[field]);
                            let code = lit(code, "u128");
                            quote! {
                                let base = if self.#g.bits() as u128 == #code { 0 } else { addr as i128 + 16 };
                                o.write_address(w, base + ((self.#id.get() as i128) << #shift))?;
                            }
                        }
                        Some((shift, Address::Absolute)) => {
                            let shift = lit(shift as u128, "u32");
                            quote! { o.write_address(w, (self.#id.get() as i128) << #shift)?; }
                        }
                        Some((shift, Address::Number)) => {
                            let shift = lit(shift as u128, "u32");
                            quote! { o.write_number(w, (self.#id.get() as i128) << #shift)?; }
                        }
                        None => quote! { o.write_number(w, self.#id.get() as i128)?; },
                    },
                    TypeKind::ConstMem { .. } => quote! {
                        w.write_str("c[")?;
                        ::isa_rt::num::write_hex(w, self.#id.bank() as i128)?;
                        w.write_str("][")?;
                        ::isa_rt::num::write_hex(w, self.#id.offset() as i128)?;
                        w.write_char(']')?;
                    },
                    TypeKind::Enum(_) => quote! { w.write_str(self.#id.name())?; },
                };
                quote! { #pre #core #suf }
            }
            OperandKind::CMemIndexed { mem, reg } => {
                let mid = self.field_ident(&op.fields[mem]);
                let pre = self.prefix_stmts(a, opcode, mem);
                let suf = self.suffix_stmts(a, opcode, mem);
                let rid = self.field_ident(&op.fields[reg]);
                let reg_text = self.write_reg(op, reg);
                quote! {
                    #pre
                    w.write_str("c[")?;
                    ::isa_rt::num::write_hex(w, self.#mid.bank() as i128)?;
                    w.write_str("][")?;
                    let off = self.#mid.offset() as i128;
                    if self.#rid.is_constant() {
                        ::isa_rt::num::write_hex(w, off)?;
                    } else {
                        #reg_text
                        if off < 0 {
                            ::isa_rt::num::write_hex(w, off)?;
                        } else if off > 0 {
                            w.write_char('+')?;
                            ::isa_rt::num::write_hex(w, off)?;
                        }
                    }
                    w.write_char(']')?;
                    #suf
                }
            }
            OperandKind::RegIndexed { file, reg, offset } => {
                let prefix = model
                    .ty(file)
                    .reg_file()
                    .map_or(String::new(), |r| r.prefix.clone());
                let open = format!("{prefix}[");
                let reg_text = self.write_reg(op, reg);
                let oid = self.field_ident(&op.fields[offset]);
                quote! {
                    w.write_str(#open)?;
                    #reg_text
                    let off = self.#oid.get() as i128;
                    if off < 0 {
                        ::isa_rt::num::write_hex(w, off)?;
                    } else if off > 0 {
                        w.write_char('+')?;
                            ::isa_rt::num::write_hex(w, off)?;
                    }
                    w.write_char(']')?;
                }
            }
            OperandKind::Word(wd) => {
                let name = &model.words[wd.0].name;
                quote! { w.write_str(#name)?; }
            }
        }
    }

    /// `write_asm` for one opcode struct.
    pub(super) fn write_asm_fn(&self, a: &Assembler, opcode: usize) -> TokenStream {
        let model = self.model;
        let op = &model.opcodes[opcode];
        let oa = &a.ops[opcode];
        let mnemonic = crate::asm::mnemonic(model, opcode);

        let guard = match oa.guard {
            None => quote! {},
            Some(g) => {
                let guard_text = self.write_reg(op, g);
                let not_default = self.not_default_expr(op, g);
                let not = oa
                    .subs
                    .get(&g)
                    .into_iter()
                    .flatten()
                    .find(|(_, k)| *k == SubKind::Not);
                let neg = match not {
                    Some(&(s, _)) => self.is_set_expr(op, s),
                    None => quote! { false },
                };
                quote! {
                    let negated = #neg;
                    if #not_default || negated {
                        w.write_char('@')?;
                        if negated {
                            w.write_char('!')?;
                        }
                        #guard_text
                        w.write_char(' ')?;
                    }
                }
            }
        };

        let mods: Vec<_> = oa
            .modifiers
            .iter()
            .map(|&m| {
                let id = self.field_ident(&op.fields[m]);
                let not_default = self.not_default_expr(op, m);
                let write = quote! {
                    w.write_char('.')?;
                    w.write_str(self.#id.name())?;
                };
                if op.fields[m].default.is_none() {
                    write
                } else {
                    quote! { if #not_default || o.show_defaults { #write } }
                }
            })
            .collect();

        // Which operands to print, decided from the last one back. `after_k`/`next_k`:
        // how many operands from k on are printed, and the first of them.
        let req_after = crate::asm::required_after_pub(a, opcode);
        let n = oa.operands.len();
        let optional: Vec<Option<usize>> = oa
            .operands
            .iter()
            .map(|o| match o.kind {
                OperandKind::Field(f) if op.fields[f].default.is_some() => Some(f),
                _ => None,
            })
            .collect();
        // Operands the printed operand after an optional one could be read as.
        let readers: Vec<Vec<usize>> = (0..n)
            .map(|k| match optional[k] {
                Some(_) => (k + 1..n)
                    .filter(|&j| omit::may_read_as(model, op, &oa.operands[k], &oa.operands[j]))
                    .collect(),
                None => Vec::new(),
            })
            .collect();
        // Which `after_m`/`next_m` are read: by an optional operand m-1 that has readers,
        // or to compute the state before them.
        let mut need_after = vec![false; n + 1];
        let mut need_next = vec![false; n + 1];
        for m in 1..=n {
            let direct = !readers[m - 1].is_empty();
            need_after[m] = direct || need_after[m - 1];
            need_next[m] = direct || (need_next[m - 1] && optional[m - 1].is_some());
        }
        let after = |m: usize| format_ident!("after_{}", m);
        let next = |m: usize| format_ident!("next_{}", m);
        let show = |m: usize| format_ident!("show_{}", m);
        let mut stmts = Vec::new();
        if need_after[n] {
            let an = after(n);
            stmts.push(quote! { let #an = 0usize; });
        }
        if need_next[n] {
            let nn = next(n);
            stmts.push(quote! { let #nn = usize::MAX; });
        }
        for k in (0..n).rev() {
            let (ak1, nk1, ak, nk, sk) = (after(k + 1), next(k + 1), after(k), next(k), show(k));
            let kl = lit(k as u128, "usize");
            if let Some(f) = optional[k] {
                let mut conds = vec![self.not_default_expr(op, f)];
                for &(sub, _) in oa.subs.get(&f).into_iter().flatten() {
                    conds.push(self.not_default_expr(op, sub));
                }
                // Runs of consecutive operands as ranges (`4..=6`, not `4 | 5 | 6`).
                let mut runs: Vec<(usize, usize)> = Vec::new();
                let mut sorted = readers[k].clone();
                sorted.sort_unstable();
                for j in sorted {
                    match runs.last_mut() {
                        Some((_, hi)) if *hi + 1 == j => *hi = j,
                        _ => runs.push((j, j)),
                    }
                }
                let readers: Vec<_> = runs
                    .iter()
                    .map(|&(lo, hi)| {
                        let (a, b) = (lit(lo as u128, "usize"), lit(hi as u128, "usize"));
                        if lo == hi {
                            quote! { #a }
                        } else {
                            quote! { #a..=#b }
                        }
                    })
                    .collect();
                let req = lit(req_after[k] as u128, "usize");
                if !readers.is_empty() {
                    conds.push(quote! { (#ak1 > #req && matches!(#nk1, #( #readers )|*)) });
                }
                stmts.push(quote! { let #sk = #( #conds )||*; });
                if need_after[k] {
                    stmts.push(quote! { let #ak = #ak1 + usize::from(#sk); });
                }
                if need_next[k] {
                    stmts.push(quote! { let #nk = if #sk { #kl } else { #nk1 }; });
                }
            } else {
                if need_after[k] {
                    stmts.push(quote! { let #ak = #ak1 + 1; });
                }
                if need_next[k] {
                    stmts.push(quote! { let #nk = #kl; });
                }
            }
        }
        let writes: Vec<_> = (0..n)
            .map(|k| {
                let body = self.operand_stmts(a, opcode, &oa.operands[k]);
                let sep = if (0..k).any(|j| optional[j].is_none()) {
                    quote! { w.write_str(", ")?; }
                } else if k == 0 {
                    quote! { w.write_char(' ')?; }
                } else {
                    let shown: Vec<_> = (0..k).map(show).collect();
                    quote! { w.write_str(if #( #shown )||* { ", " } else { " " })?; }
                };
                match optional[k] {
                    Some(_) => {
                        let sk = show(k);
                        quote! { if #sk { #sep #body } }
                    }
                    None => quote! { #sep #body },
                }
            })
            .collect();
        let operands = quote! { #( #stmts )* #( #writes )* };
        let op = &a.model.opcodes[opcode];
        let relative = (0..op.fields.len()).any(|f| {
            matches!(
                op.address(f),
                Some((_, Address::Relative | Address::Select { .. }))
            )
        });
        let addr = if !relative {
            format_ident!("_addr")
        } else {
            format_ident!("addr")
        };
        // The options are read by modifiers and immediate operands only.
        let uses_opts = oa.modifiers.iter().any(|&m| op.fields[m].default.is_some())
            || oa.operands.iter().any(|o| {
                matches!(o.kind, OperandKind::Field(f)
                    if matches!(model.ty(op.fields[f].ty).kind, TypeKind::Immediate { .. }))
            });
        let o = if uses_opts {
            format_ident!("o")
        } else {
            format_ident!("_o")
        };
        quote! {
            /// Writes the instruction as assembly, located at `addr` (branch targets print
            /// as absolute addresses).
            #[inline]
            pub fn write_asm<W: core::fmt::Write>(&self, w: &mut W, addr: u64) -> core::fmt::Result {
                self.write_asm_with(w, addr, &FormatOptions::DEFAULT)
            }

            /// Writes the instruction as assembly, located at `addr`, the way `o` says
            /// (addresses through a symbol table, decimal numbers, defaults shown).
            pub fn write_asm_with<W: core::fmt::Write>(&self, w: &mut W, #addr: u64, #o: &FormatOptions) -> core::fmt::Result {
                #guard
                w.write_str(#mnemonic)?;
                #( #mods )*
                #operands
                Ok(())
            }
        }
    }
}
