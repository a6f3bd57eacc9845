//! `inst!`: one instruction in assembly syntax, checked against the bundled spec when
//! the macro expands, built as a constant of the opcode's struct.
//!
//! The tokens are turned back into an assembly line (remembering which token each byte
//! came from), assembled by the model-driven assembler of isa-gen, and on success the
//! macro emits the encoded word decoded by the generated `decode_fields` in a `const`,
//! so a literal-only `inst!` costs nothing at run time. An interpolated operand
//! `{expr}` (or `{expr: Type}`) is assembled with a placeholder of that operand's kind
//! and then assigned to the struct field, so rustc checks its type at the expression.

use std::ops::Range;
use std::sync::OnceLock;

use isa_gen::asm::Assembler;
use isa_gen::model::{Model, OperandKind, TypeKind};
use proc_macro2::{Delimiter, Span, TokenStream, TokenTree};
use quote::{format_ident, quote, quote_spanned};

/// The bundled spec's model and assembler, built once per compiler process.
fn assembler() -> Result<&'static Assembler<'static>, String> {
    static MODEL: OnceLock<Result<Model, String>> = OnceLock::new();
    static ASM: OnceLock<Assembler<'static>> = OnceLock::new();
    let model = MODEL.get_or_init(|| {
        let files = isa_spec::FILES.iter().map(|f| (f.name, f.text));
        let checked = isa_gen::Spec::from_texts(files).check();
        let rendered = checked.render_diagnostics();
        checked
            .model
            .ok_or_else(|| format!("the bundled spec has errors:\n{rendered}"))
    });
    match model {
        Ok(m) => Ok(ASM.get_or_init(|| Assembler::new(m))),
        Err(e) => Err(e.clone()),
    }
}

/// A placeholder's byte range in the token line and in the filled line.
type Moved = (Range<usize>, Range<usize>);

/// An interpolated operand: `{expr}` or `{expr: Type}`.
struct Interp {
    expr: syn::Expr,
    ty: Option<syn::Type>,
    span: Span,
    /// Index of the written operand it stands for.
    operand: usize,
    /// Byte range of its placeholder in the line.
    range: Range<usize>,
}

/// The line being rebuilt from tokens, with the span of every byte range.
#[derive(Default)]
struct Line {
    text: String,
    pieces: Vec<(Range<usize>, Span)>,
}

impl Line {
    fn push(&mut self, s: &str, span: Span) {
        let start = self.text.len();
        self.text.push_str(s);
        self.pieces.push((start..self.text.len(), span));
    }

    /// The span of the token an error at bytes `range` is about: the token holding its
    /// start, except that `.NAME` points at `NAME` (the last token at the end of line).
    fn span_for(&self, range: Range<usize>) -> Span {
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
}

fn err(span: Span, msg: impl std::fmt::Display) -> syn::Error {
    syn::Error::new(span, msg)
}

/// Writes the tokens of one operand without spaces (`-UR2`, `c[0x1][UR4-0x1]`).
fn operand_text(
    tokens: &[TokenTree],
    line: &mut Line,
    interps: &mut Vec<Interp>,
    index: usize,
) -> syn::Result<()> {
    for t in tokens {
        match t {
            TokenTree::Ident(i) => line.push(&i.to_string(), i.span()),
            TokenTree::Literal(l) => line.push(&l.to_string(), l.span()),
            TokenTree::Punct(p) => line.push(&p.as_char().to_string(), p.span()),
            TokenTree::Group(g) => match g.delimiter() {
                Delimiter::Bracket => {
                    line.push("[", g.span_open());
                    let inner: Vec<TokenTree> = g.stream().into_iter().collect();
                    operand_text(&inner, line, interps, index)?;
                    line.push("]", g.span_close());
                }
                Delimiter::Brace => {
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
                    let start = line.text.len();
                    // The placeholder is chosen later; reserve its place.
                    line.push("\u{0}", g.span());
                    interps.push(Interp {
                        expr,
                        ty,
                        span: g.span(),
                        operand: index,
                        range: start..line.text.len(),
                    });
                }
                _ => {
                    return Err(err(
                        g.span(),
                        "unexpected parentheses: operands are written as in assembly",
                    ))
                }
            },
        }
    }
    Ok(())
}

/// Rebuilds the assembly line: guard, mnemonic and modifiers, operands.
fn line_of(input: TokenStream) -> syn::Result<(Line, Vec<Interp>)> {
    let toks: Vec<TokenTree> = input.into_iter().collect();
    let mut line = Line::default();
    let mut interps = Vec::new();
    let mut i = 0;
    let punct =
        |t: Option<&TokenTree>, c: char| matches!(t, Some(TokenTree::Punct(p)) if p.as_char() == c);
    if toks.is_empty() {
        return Err(err(
            Span::call_site(),
            "expected an instruction, e.g. `inst!(@P0 SHFL.UP P1, R1, R0, 0x1, 0x0)`",
        ));
    }
    // Guard.
    if punct(toks.first(), '@') {
        line.push("@", toks[0].span());
        i = 1;
        if punct(toks.get(i), '!') {
            line.push("!", toks[i].span());
            i += 1;
        }
        match toks.get(i) {
            Some(TokenTree::Ident(p)) => line.push(&p.to_string(), p.span()),
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
    while punct(toks.get(i), '.') {
        line.push(".", toks[i].span());
        i += 1;
        match toks.get(i) {
            Some(TokenTree::Ident(m)) => line.push(&m.to_string(), m.span()),
            Some(TokenTree::Literal(m)) => line.push(&m.to_string(), m.span()),
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
        for t in rest
            .iter()
            .chain(std::iter::once(&TokenTree::Punct(proc_macro2::Punct::new(
                ',',
                proc_macro2::Spacing::Alone,
            ))))
        {
            if matches!(t, TokenTree::Punct(p) if p.as_char() == ',') {
                if index > 0 {
                    line.text.push_str(", ");
                }
                operand_text(&operand, &mut line, &mut interps, index)?;
                operand.clear();
                index += 1;
            } else {
                operand.push(t.clone());
            }
        }
    }
    Ok((line, interps))
}

/// Placeholder texts to try for an interpolated operand: one per operand kind, or the
/// kind of the ascribed type.
fn placeholders(model: &Model, ty: Option<&syn::Type>) -> Result<Vec<String>, String> {
    let rep = |t: &isa_gen::model::Type| -> Vec<String> {
        match &t.kind {
            TypeKind::RegFile(rf) => vec![
                format!("{}{}", rf.prefix, rf.lo),
                format!("{}[{}:{}]", rf.prefix, rf.lo, rf.lo + 1),
                format!("{}[{}:{}]", rf.prefix, rf.lo, rf.lo + 3),
            ],
            TypeKind::Immediate { .. } => vec!["0x0".into()],
            TypeKind::ConstMem { .. } => vec!["c[0x0][0x0]".into()],
            TypeKind::Enum(vs) => vs.first().map(|v| vec![v.name.clone()]).unwrap_or_default(),
        }
    };
    if let Some(ty) = ty {
        let name = match ty {
            syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
            _ => None,
        };
        let Some(name) = name else {
            return Err("write the operand's type by name, e.g. `{rd: Reg}`".into());
        };
        return match model
            .types
            .iter()
            .find(|t| isa_gen::codegen::names::type_name(&t.name) == name)
        {
            Some(t) => Ok(rep(t)),
            None => Err(format!("`{name}` is not an operand type of this ISA")),
        };
    }
    // Untyped: registers, then immediates, constant memory, enum operands.
    let mut out = Vec::new();
    for t in model.types.iter().filter(|t| t.reg_file().is_some()) {
        out.extend(rep(t));
    }
    out.push("0x0".into());
    out.push("c[0x0][0x0]".into());
    let mut enums: Vec<&isa_gen::model::Type> = Vec::new();
    for op in &model.opcodes {
        for &f in &op.operand_fields() {
            let t = model.ty(op.fields[f].ty);
            if t.enum_values().is_some() && !enums.iter().any(|e| e.name == t.name) {
                enums.push(t);
            }
        }
    }
    for t in enums {
        out.extend(rep(t));
    }
    Ok(out)
}

pub fn inst(input: TokenStream) -> syn::Result<TokenStream> {
    let asm = assembler().map_err(|e| err(Span::call_site(), e))?;
    let model = asm.model;
    let (mut line, mut interps) = line_of(input)?;
    // Choose placeholders one interpolation at a time, left to right.
    let mut choices: Vec<Vec<String>> = Vec::new();
    for it in &interps {
        choices.push(placeholders(model, it.ty.as_ref()).map_err(|e| err(it.span, e))?);
    }
    let mut chosen: Vec<usize> = vec![0; interps.len()];
    let fill = |line: &Line,
                interps: &[Interp],
                chosen: &[usize],
                choices: &[Vec<String>]|
     -> (String, Vec<Moved>) {
        // The line with placeholders, and the placeholders' new ranges.
        let mut out = String::new();
        let mut ranges = Vec::new();
        let mut last = 0;
        for (k, it) in interps.iter().enumerate() {
            out.push_str(&line.text[last..it.range.start]);
            let start = out.len();
            out.push_str(&choices[k][chosen[k]]);
            ranges.push((it.range.clone(), start..out.len()));
            last = it.range.end;
        }
        out.push_str(&line.text[last..]);
        (out, ranges)
    };
    for k in 0..interps.len() {
        let ok = (0..choices[k].len()).find(|&c| {
            chosen[k] = c;
            let (text, _) = fill(&line, &interps, &chosen, &choices);
            asm.parse_line(&text, 0, &|_| None).is_ok()
        });
        chosen[k] = ok.unwrap_or(0);
    }
    let (text, ranges) = fill(&line, &interps, &chosen, &choices);
    // Map byte offsets of the filled line back to token spans.
    let shift = |at: usize| -> usize {
        let mut delta: isize = 0;
        for (orig, new) in &ranges {
            if at >= new.end {
                delta += orig.len() as isize - new.len() as isize;
            } else if at >= new.start {
                return orig.start;
            }
        }
        (at as isize + delta).max(0) as usize
    };
    let (decoded, read_as) = asm.parse_line_mapped(&text, 0, &|_| None).map_err(|e| {
        let mut msg = e.message.clone();
        for n in &e.notes {
            msg.push_str(&format!(" ({n})"));
        }
        err(line.span_for(shift(e.span.start)..shift(e.span.end)), msg)
    })?;
    line.text = text;
    let op = &model.opcodes[decoded.opcode];
    let word = model.encode(&decoded);
    let ty = format_ident!("{}", isa_gen::codegen::names::type_name(&op.name));
    let word_lit = syn::LitInt::new(&format!("{word:#x}u128"), Span::call_site());
    let build = quote! {
        match ::isa::#ty::decode_fields(#word_lit) {
            ::core::result::Result::Ok(i) => i,
            ::core::result::Result::Err(_) => panic!("inst!: the assembled word does not decode"),
        }
    };
    if interps.is_empty() {
        return Ok(quote! {{
            const INST: ::isa::#ty = #build;
            INST
        }});
    }
    let mut sets = Vec::new();
    for it in interps.drain(..) {
        let k = read_as.get(it.operand).copied();
        let operands = asm.operands(decoded.opcode);
        let field = match k.map(|k| operands[k].kind) {
            Some(OperandKind::Field(f)) => f,
            _ => return Err(err(it.span, "only an operand of a single field can be interpolated (write composite operands out, e.g. `c[0x0][UR4+0x10]`)")),
        };
        let fid = format_ident!(
            "{}",
            isa_gen::codegen::names::field_name(&op.fields[field].name)
        );
        let expr = &it.expr;
        let span = it.span;
        sets.push(quote_spanned! {span=> inst.#fid = #expr; });
    }
    Ok(quote! {{
        let mut inst: ::isa::#ty = const { #build };
        #( #sets )*
        inst
    }})
}
