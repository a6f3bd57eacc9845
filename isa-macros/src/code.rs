//! `code!`: several instructions with local labels, checked at compile time, pushed into
//! a `CodeBuffer` (the way `dynasm!` fills its assembler).
//!
//! ```ignore
//! code!(buf;
//!     top:
//!         S2R R1, SR_LANEID;
//!         @P0 BRA (done);           // a local label: `(name)`
//!         CALL.REL RZ, {callee};    // any `impl Into<Target>`: a Label, Symbol, Address
//!         BRA (top);
//!     done:
//!         EXIT;
//! )?;
//! ```
//!
//! Instructions end with `;`; `name:` binds a local label to the next instruction. Each
//! instruction is assembled at address 0 by the same search as `inst!`; the address
//! operand that names a label, an interpolated target or a literal address is handed
//! to `CodeBuffer::push_with`, which places it where the buffer puts the instruction.
//! The macro evaluates to `Result<(), BufferError>`.

use std::collections::BTreeSet;

use isa_gen::asm::Assembler;
use isa_gen::model::{Model, OperandKind, TypeKind};
use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{format_ident, quote, quote_spanned};

use crate::inst::{assemble, assignments, constant};
use crate::line::{self, err, HoleKind};

/// Where a label reference's placeholder points (aligned for any address operand).
const LABEL_PLACEHOLDER: u64 = 0x100;

/// One statement: labels bound before it, and its instruction's tokens (may be empty).
struct Statement {
    labels: Vec<syn::Ident>,
    tokens: TokenStream,
}

fn statements(tokens: Vec<TokenTree>) -> syn::Result<Vec<Statement>> {
    let mut out = Vec::new();
    for part in tokens.split(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == ';')) {
        let mut i = 0;
        let mut labels = Vec::new();
        // `name:` (a single colon: `::` would be a path).
        while let (Some(TokenTree::Ident(id)), Some(TokenTree::Punct(p))) =
            (part.get(i), part.get(i + 1))
        {
            let colon = p.as_char() == ':'
                && !matches!(part.get(i + 2), Some(TokenTree::Punct(q)) if q.as_char() == ':')
                && p.spacing() == proc_macro2::Spacing::Alone;
            if !colon {
                break;
            }
            labels.push(id.clone());
            i += 2;
        }
        out.push(Statement {
            labels,
            tokens: part[i..].iter().cloned().collect(),
        });
    }
    Ok(out)
}

/// `code!(buf; …)` for the spec and generated API `root`.
pub fn code(asm: &Assembler, root: &syn::Path, input: TokenStream) -> syn::Result<TokenStream> {
    let model: &Model = asm.model;
    let toks: Vec<TokenTree> = input.into_iter().collect();
    let Some(semi) = toks
        .iter()
        .position(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == ';'))
    else {
        return Err(err(
            Span::call_site(),
            "expected `code!(buffer; instructions…)`: a `CodeBuffer`, then `;`",
        ));
    };
    let buf_expr: TokenStream = toks[..semi].iter().cloned().collect();
    if buf_expr.is_empty() {
        return Err(err(
            Span::call_site(),
            "expected the `CodeBuffer` before the first `;`",
        ));
    }
    let stmts = statements(toks[semi + 1..].to_vec())?;
    let buf = syn::Ident::new("__isa_buf", Span::mixed_site());
    let inst = syn::Ident::new("inst", Span::mixed_site());

    // Every label of the block, created up front so references may come before it.
    let mut defined: Vec<syn::Ident> = Vec::new();
    let mut seen = BTreeSet::new();
    for s in &stmts {
        for l in &s.labels {
            if !seen.insert(l.to_string()) {
                return Err(err(
                    l.span(),
                    format!("label `{l}` is defined twice in this block"),
                ));
            }
            defined.push(l.clone());
        }
    }
    let mut body = Vec::new();
    for s in &stmts {
        for l in &s.labels {
            body.push(quote! { #buf.bind(#l)?; });
        }
        if s.tokens.is_empty() {
            continue;
        }
        let line = line::parse(s.tokens.clone(), true)?;
        for r in &line.labels {
            if !seen.contains(&r.name.to_string()) {
                return Err(err(
                    r.name.span(),
                    format!("no label `{}` in this block", r.name),
                ));
            }
        }
        let a = assemble(asm, &line, &|_| Some(LABEL_PLACEHOLDER))?;
        let op = &model.opcodes[a.decoded.opcode];
        let addresses = op.address_operands();
        let operands = asm.operands(a.decoded.opcode);
        let field_of = |written: usize| match a.read_as.get(written).map(|&o| operands[o].kind) {
            Some(OperandKind::Field(f)) => Some(f),
            _ => None,
        };
        // The target of the instruction's address operand: a local label, an
        // interpolated value, or the literal address written.
        let mut target: Option<(usize, TokenStream, Span)> = None;
        let mut holes_done = vec![false; line.holes.len()];
        for r in &line.labels {
            let f = field_of(r.operand);
            let Some(k) = addresses.iter().position(|&(x, _)| Some(x) == f) else {
                return Err(err(
                    r.name.span(),
                    "a label can only name an address operand (a branch target)",
                ));
            };
            let name = &r.name;
            if target.is_some() {
                return Err(err(r.name.span(), "one label or target per instruction"));
            }
            target = Some((k, quote! { #name }, r.name.span()));
        }
        for (h, (hole, &f)) in line.holes.iter().zip(&a.fields).enumerate() {
            let HoleKind::Operand(_) = hole.kind else {
                continue;
            };
            if let Some(k) = addresses.iter().position(|&(x, _)| x == f) {
                if target.is_some() {
                    return Err(err(hole.span, "one label or target per instruction"));
                }
                let e = &hole.expr;
                target = Some((k, quote! { #e }, hole.span));
                holes_done[h] = true;
            }
        }
        if target.is_none() {
            // A literal address: where it points from address 0 is what it names, and the
            // buffer makes it point there from where it places the instruction.
            if let Some(&(f, _)) = addresses.first() {
                if let Some(v) = model.address_value(&a.decoded, f, 0) {
                    target = Some((
                        0,
                        quote! { #root::backend::Target::Address(#v) },
                        Span::call_site(),
                    ));
                }
            }
        }
        let word = model.encode(&a.decoded);
        let (ty, build) = constant(model, root, a.decoded.opcode, word);
        // A register hole may hold a virtual register (`Hole`); the others are assigned.
        let vregs = syn::Ident::new("vregs", Span::mixed_site());
        let mut slots = 0usize;
        let sets: Vec<TokenStream> = assignments(model, &line, &a, &inst)
            .into_iter()
            .zip(line.holes.iter().zip(&a.fields))
            .zip(&holes_done)
            .filter(|(_, done)| !**done)
            .map(|((s, (h, &f)), _)| {
                let field = &op.fields[f];
                if !matches!(model.ty(field.ty).kind, TypeKind::RegFile(_)) {
                    return s;
                }
                let slot = slots;
                slots += 1;
                let fid = format_ident!("{}", isa_gen::codegen::names::field_name(&field.name));
                let name = &field.name;
                let e = &h.expr;
                quote_spanned! {h.span=>
                    if let ::core::option::Option::Some(v) = #root::backend::Hole::fill(#e, &mut #inst.#fid) {
                        #vregs[#slot] = ::core::option::Option::Some((#name, v));
                    }
                }
            })
            .collect();
        let push = match target {
            Some((k, t, _)) => quote! { #buf.push_with(#inst, #k, #t)? },
            None => quote! { #buf.push(#inst) },
        };
        body.push(if slots > 0 {
            quote! {{
                #[allow(unused_mut)]
                let mut #inst: #ty = const { #build };
                let mut #vregs: [::core::option::Option<(&'static str, #root::backend::VReg)>; #slots] = [::core::option::Option::None; #slots];
                #( #sets )*
                // Every binding is checked before the push: a line that fails leaves
                // the buffer as it was.
                let here = #buf.here();
                let whole: #root::Instruction = #inst.into();
                for (name, v) in #vregs.into_iter().flatten() {
                    #buf.bindable(&whole, here, name, v)?;
                }
                let #inst = whole;
                let at = #push;
                for (name, v) in #vregs.into_iter().flatten() {
                    #buf.set_virtual(at, name, v)?;
                }
            }}
        } else {
            quote! {{
                #[allow(unused_mut)]
                let mut #inst: #ty = const { #build };
                #( #sets )*
                #push;
            }}
        });
    }
    Ok(quote! {{
        let #buf: &mut #root::backend::CodeBuffer = (#buf_expr).__code_buffer();
        (|| -> ::core::result::Result<(), #root::backend::BufferError> {
            #( let #defined = #buf.new_label(); )*
            #( #body )*
            ::core::result::Result::Ok(())
        })()
    }})
}
