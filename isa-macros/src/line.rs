//! Turning the tokens of one instruction back into an assembly line, remembering which
//! token each byte came from (so errors point at the token), where the interpolated
//! Rust values go (`@{p}`, `.{m}`, `{x}`, `{x: Type}`) and, in the block form, which
//! operands name local labels (`(name)`: a backtick is no Rust token).

use std::ops::Range;

use proc_macro2::{Delimiter, Span, TokenStream, TokenTree};

/// Where an interpolated value goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HoleKind {
    /// The guard predicate: `@{p}` or `@!{p}`.
    Guard,
    /// A modifier: `.{m}`.
    Modifier,
    /// The written operand with this index.
    Operand(usize),
}

/// An interpolated Rust value.
pub struct Hole {
    pub expr: syn::Expr,
    pub ty: Option<syn::Type>,
    pub span: Span,
    pub kind: HoleKind,
    /// Byte range of its marker in [`Line::text`].
    pub range: Range<usize>,
}

/// A local label named as an operand: `(name)` in the block form.
pub struct LabelRef {
    pub name: syn::Ident,
    /// The written operand's index.
    pub operand: usize,
}

/// The line being rebuilt from tokens.
#[derive(Default)]
pub struct Line {
    pub text: String,
    pieces: Vec<(Range<usize>, Span)>,
    pub holes: Vec<Hole>,
    pub labels: Vec<LabelRef>,
}

/// Stands for a hole in [`Line::text`] until a placeholder is chosen.
pub const MARK: &str = "\u{0}";

pub fn err(span: Span, msg: impl std::fmt::Display) -> syn::Error {
    syn::Error::new(span, msg)
}

impl Line {
    fn push(&mut self, s: &str, span: Span) {
        let start = self.text.len();
        self.text.push_str(s);
        self.pieces.push((start..self.text.len(), span));
    }

    fn hole(&mut self, g: &proc_macro2::Group, kind: HoleKind) -> syn::Result<()> {
        let (expr, ty) = syn::parse::Parser::parse2(
            |input: syn::parse::ParseStream| {
                let expr: syn::Expr = input.parse()?;
                let ty = if input.peek(syn::Token![:]) {
                    input.parse::<syn::Token![:]>()?;
                    Some(input.parse::<syn::Type>()?)
                } else {
                    None
                };
                Ok((expr, ty))
            },
            g.stream(),
        )?;
        let start = self.text.len();
        self.push(MARK, g.span());
        self.holes.push(Hole {
            expr,
            ty,
            span: g.span(),
            kind,
            range: start..self.text.len(),
        });
        Ok(())
    }

    /// The span of the token an error at bytes `range` is about: the token holding its
    /// start, except that `.NAME` points at `NAME` (the last token at the end of line).
    pub fn span_for(&self, range: Range<usize>) -> Span {
        let at = |b: usize| self.pieces.iter().position(|(r, _)| r.contains(&b));
        let k = match at(range.start) {
            Some(k) if &self.text[self.pieces[k].0.clone()] == "." && k + 1 < self.pieces.len() => {
                Some(k + 1)
            }
            other => other,
        };
        k.map(|k| self.pieces[k].1)
            .or_else(|| {
                self.pieces
                    .iter()
                    .rev()
                    .find(|(r, _)| r.start <= range.start)
                    .map(|p| p.1)
            })
            .unwrap_or_else(Span::call_site)
    }

    /// Writes the tokens of one operand without spaces (`-UR2`, `c[0x1][UR4-0x1]`).
    fn operand(&mut self, tokens: &[TokenTree], index: usize, labels: bool) -> syn::Result<()> {
        for t in tokens {
            match t {
                TokenTree::Ident(i) => self.push(&i.to_string(), i.span()),
                TokenTree::Literal(l) => self.push(&l.to_string(), l.span()),
                TokenTree::Punct(p) => self.push(&p.as_char().to_string(), p.span()),
                TokenTree::Group(g) => match g.delimiter() {
                    Delimiter::Bracket => {
                        self.push("[", g.span_open());
                        let inner: Vec<TokenTree> = g.stream().into_iter().collect();
                        self.operand(&inner, index, labels)?;
                        self.push("]", g.span_close());
                    }
                    Delimiter::Brace => self.hole(g, HoleKind::Operand(index))?,
                    Delimiter::Parenthesis if labels => {
                        let name: syn::Ident = syn::parse2(g.stream()).map_err(|_| {
                            err(g.span(), "a label reference is written `(name)`, with the name of a label of this block")
                        })?;
                        self.push(&format!("`({name})"), g.span());
                        self.labels.push(LabelRef {
                            name,
                            operand: index,
                        });
                    }
                    _ => {
                        return Err(err(
                            g.span(),
                            "unexpected parentheses: operands are written as in assembly (a label reference needs the block form, `code!`)",
                        ))
                    }
                },
            }
        }
        Ok(())
    }
}

fn is_punct(t: Option<&TokenTree>, c: char) -> bool {
    matches!(t, Some(TokenTree::Punct(p)) if p.as_char() == c)
}

/// Rebuilds the assembly line of one instruction: guard, mnemonic and modifiers,
/// operands. `labels`: whether `(name)` label references are allowed (block form).
pub fn parse(input: TokenStream, labels: bool) -> syn::Result<Line> {
    let toks: Vec<TokenTree> = input.into_iter().collect();
    let mut line = Line::default();
    let mut i = 0;
    if toks.is_empty() {
        return Err(err(
            Span::call_site(),
            "expected an instruction, e.g. `inst!(@P0 SHFL.UP P1, R1, R0, 0x1, 0x0)`",
        ));
    }
    // Guard.
    if is_punct(toks.first(), '@') {
        line.push("@", toks[0].span());
        i = 1;
        if is_punct(toks.get(i), '!') {
            line.push("!", toks[i].span());
            i += 1;
        }
        match toks.get(i) {
            Some(TokenTree::Ident(p)) => line.push(&p.to_string(), p.span()),
            Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Brace => {
                line.hole(g, HoleKind::Guard)?
            }
            Some(t) => return Err(err(t.span(), "expected a predicate register after `@`")),
            None => {
                return Err(err(
                    toks[i - 1].span(),
                    "expected a predicate register after `@`",
                ))
            }
        }
        i += 1;
        line.text.push(' ');
    }
    // Mnemonic and modifiers.
    match toks.get(i) {
        Some(TokenTree::Ident(m)) => line.push(&m.to_string(), m.span()),
        Some(t) => return Err(err(t.span(), "expected a mnemonic")),
        None => return Err(err(toks[i - 1].span(), "expected a mnemonic")),
    }
    i += 1;
    while is_punct(toks.get(i), '.') {
        line.push(".", toks[i].span());
        i += 1;
        match toks.get(i) {
            Some(TokenTree::Ident(m)) => line.push(&m.to_string(), m.span()),
            Some(TokenTree::Literal(m)) => line.push(&m.to_string(), m.span()),
            Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Brace => {
                line.hole(g, HoleKind::Modifier)?
            }
            Some(t) => return Err(err(t.span(), "expected a modifier after `.`")),
            None => return Err(err(toks[i - 1].span(), "expected a modifier after `.`")),
        }
        i += 1;
    }
    // Operands, split at commas.
    let rest = &toks[i..];
    if !rest.is_empty() {
        line.text.push(' ');
        let mut operand: Vec<TokenTree> = Vec::new();
        let mut index = 0;
        let comma = TokenTree::Punct(proc_macro2::Punct::new(',', proc_macro2::Spacing::Alone));
        for t in rest.iter().chain(std::iter::once(&comma)) {
            if is_punct(Some(t), ',') {
                if index > 0 {
                    line.text.push_str(", ");
                }
                line.operand(&operand, index, labels)?;
                operand.clear();
                index += 1;
            } else {
                operand.push(t.clone());
            }
        }
    }
    Ok(line)
}
