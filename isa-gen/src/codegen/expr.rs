//! Spec expressions (exception conditions) as Rust expressions over an opcode's
//! fields.

use super::*;

impl Gen<'_> {
    fn is_bool(e: &CExpr) -> bool {
        matches!(
            e,
            CExpr::Not(_)
                | CExpr::Bin(
                    BinOp::Or
                        | BinOp::And
                        | BinOp::Eq
                        | BinOp::Ne
                        | BinOp::Lt
                        | BinOp::Le
                        | BinOp::Gt
                        | BinOp::Ge,
                    ..
                )
        )
    }

    /// A Rust `bool` expression over `self`'s fields.
    pub(super) fn bool_expr(&self, op: &Opcode, e: &CExpr) -> TokenStream {
        self.bool_expr_with(op, e, &|id| quote! { self.#id })
    }

    /// Like `bool_expr`, reading field `id` through `acc(id)`.
    fn bool_expr_with(
        &self,
        op: &Opcode,
        e: &CExpr,
        acc: &dyn Fn(&Ident) -> TokenStream,
    ) -> TokenStream {
        match e {
            CExpr::Not(x) => {
                let x = paren(self.bool_expr_with(op, x, acc));
                quote! { !#x }
            }
            CExpr::Bin(o @ (BinOp::And | BinOp::Or), a, b) => {
                let (a, b) = (
                    paren(self.bool_expr_with(op, a, acc)),
                    paren(self.bool_expr_with(op, b, acc)),
                );
                if *o == BinOp::And {
                    quote! { #a && #b }
                } else {
                    quote! { #a || #b }
                }
            }
            CExpr::Bin(o @ (BinOp::Eq | BinOp::Ne), a, b)
                if matches!(**a, CExpr::Field(_)) && matches!(**b, CExpr::Value(..))
                    || matches!(**b, CExpr::Field(_)) && matches!(**a, CExpr::Value(..)) =>
            {
                let (f, v) = match (&**a, &**b) {
                    (CExpr::Field(f), CExpr::Value(t, c))
                    | (CExpr::Value(t, c), CExpr::Field(f)) => (*f, self.variant_path(*t, *c)),
                    _ => unreachable!("matched above"),
                };
                let r = acc(&self.field_ident(&op.fields[f]));
                if *o == BinOp::Eq {
                    quote! { matches!(#r, #v) }
                } else {
                    quote! { !matches!(#r, #v) }
                }
            }
            CExpr::Bin(o, a, b) if Self::is_bool(e) => {
                let (a, b) = (
                    paren(self.int_expr_with(op, a, acc)),
                    paren(self.int_expr_with(op, b, acc)),
                );
                let o = match o {
                    BinOp::Eq => quote!(==),
                    BinOp::Ne => quote!(!=),
                    BinOp::Lt => quote!(<),
                    BinOp::Le => quote!(<=),
                    BinOp::Gt => quote!(>),
                    _ => quote!(>=),
                };
                quote! { #a #o #b }
            }
            other => {
                let x = paren(self.int_expr_with(op, other, acc));
                quote! { #x != 0i64 }
            }
        }
    }

    /// A Rust `i64` expression (booleans count 0/1), reading field `id` through
    /// `acc(id)`.
    pub(super) fn int_expr_with(
        &self,
        op: &Opcode,
        e: &CExpr,
        acc: &dyn Fn(&Ident) -> TokenStream,
    ) -> TokenStream {
        if Self::is_bool(e) {
            let b = self.bool_expr_with(op, e, acc);
            return quote! { if #b { 1i64 } else { 0i64 } };
        }
        match e {
            CExpr::Int(v) => {
                let v = lit_text(&format!(
                    "{}i64",
                    (*v).clamp(i64::MIN as i128, i64::MAX as i128)
                ));
                quote! { #v }
            }
            CExpr::Field(f) => {
                let r = acc(&self.field_ident(&op.fields[*f]));
                quote! { (#r.bits() as i64) }
            }
            CExpr::Value(_, c) => {
                let v = lit((*c).min(i64::MAX as u128), "i64");
                quote! { #v }
            }
            CExpr::Neg(x) => {
                let x = paren(self.int_expr_with(op, x, acc));
                quote! { #x.saturating_neg() }
            }
            CExpr::Bin(o, a, b) => {
                let (a, b) = (
                    paren(self.int_expr_with(op, a, acc)),
                    self.int_expr_with(op, b, acc),
                );
                match o {
                    BinOp::Add => quote! { #a.saturating_add(#b) },
                    BinOp::Sub => quote! { #a.saturating_sub(#b) },
                    _ => quote! { #a.saturating_mul(#b) },
                }
            }
            CExpr::Not(_) => unreachable!("boolean handled above"),
        }
    }
}
