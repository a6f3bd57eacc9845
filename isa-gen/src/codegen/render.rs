//! Token stream → source text, laid out for reading: an item, statement, field or
//! match arm per line, blocks indented, doc attributes as `///` comments.
//!
//! Not a formatter (rustfmt's layout rules are not reproduced, long expressions stay
//! on one line): rustc needs no layout, and the generated file is written on every
//! build, so this keeps generation to one pass over the tokens instead of parsing
//! them back into a syntax tree to pretty-print it (which took four fifths of the
//! generator's time). Tokens are separated exactly as Rust lexes them back: a joint
//! punctuation character is never split from the next one.

use proc_macro2::{Delimiter, Spacing, TokenStream, TokenTree};

/// Renders `tokens` as source text.
pub(crate) fn render(tokens: TokenStream) -> String {
    let mut r = Renderer {
        out: String::with_capacity(1 << 20),
        indent: 0,
        line_start: true,
        prev: Prev::Open,
        generics: 0,
        generic_word: false,
        item_keyword: false,
    };
    r.stream(tokens.into_iter().collect(), true);
    if !r.out.ends_with('\n') {
        r.out.push('\n');
    }
    r.out
}

struct Renderer {
    out: String,
    indent: usize,
    /// Nothing written on the current line yet.
    line_start: bool,
    /// The last token, for the space before the next one.
    prev: Prev,
    /// Open `<` of generic arguments on this line.
    generics: usize,
    /// The last word can take generic arguments: a type-like name (capitalised, or a
    /// primitive) or the name an item keyword (`fn`, `struct`, …) introduced.
    generic_word: bool,
    /// The last word was an item keyword.
    item_keyword: bool,
}

#[derive(Clone, Copy, PartialEq)]
enum Prev {
    /// Start of a line or of a group.
    Open,
    Word,
    /// A keyword a parenthesis is not called on (`if (…)`, `as (…)`).
    Keyword,
    /// A punctuation character: joint with the next, and whether it binds the next
    /// token with no space (`.`, `#`, a unary `&`/`!`/`-`/`*`, the end of `::`, a
    /// generic `<`).
    Punct {
        joint: bool,
        tight: bool,
    },
    Close,
}

const PRIMITIVES: &[&str] = &[
    "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize", "impl",
];

/// The two-character operators (`..=`, `<<=` and `>>=` are chains of them).
const OPERATORS: &[[char; 2]] = &[
    [':', ':'],
    ['-', '>'],
    ['=', '>'],
    ['=', '='],
    ['!', '='],
    ['<', '='],
    ['>', '='],
    ['&', '&'],
    ['|', '|'],
    ['+', '='],
    ['-', '='],
    ['*', '='],
    ['/', '='],
    ['%', '='],
    ['^', '='],
    ['&', '='],
    ['|', '='],
    ['<', '<'],
    ['>', '>'],
    ['.', '.'],
    ['.', '='],
];

fn is_operator(a: char, b: char) -> bool {
    OPERATORS.contains(&[a, b])
}

const KEYWORDS: &[&str] = &[
    "as", "else", "for", "if", "in", "let", "match", "move", "mut", "return", "use", "where",
    "while",
];

impl Renderer {
    fn newline(&mut self) {
        if !self.line_start {
            self.out.push('\n');
            self.line_start = true;
        }
        self.prev = Prev::Open;
        self.generics = 0;
    }

    /// Writes one token's text after a space when `space`.
    fn word(&mut self, text: &str, space: bool) {
        self.start(space);
        self.out.push_str(text);
    }

    /// The indentation of a new line, or the space before a token.
    fn start(&mut self, space: bool) {
        if self.line_start {
            for _ in 0..self.indent {
                self.out.push_str("    ");
            }
            self.line_start = false;
        } else if space {
            self.out.push(' ');
        }
    }

    /// The space between the last token and one that is not punctuation.
    fn space(&self) -> bool {
        !matches!(
            self.prev,
            Prev::Open | Prev::Punct { joint: true, .. } | Prev::Punct { tight: true, .. }
        )
    }

    /// `block`: the stream is a sequence of items or statements (a file or a `{}`
    /// body), so `;` and, at this level, `,` end a line.
    fn stream(&mut self, tokens: Vec<TokenTree>, block: bool) {
        let mut it = tokens.into_iter().peekable();
        let mut colon_joint = false;
        while let Some(tt) = it.next() {
            match tt {
                TokenTree::Punct(p) if p.as_char() == '#' && p.spacing() == Spacing::Alone => {
                    // An attribute on its own line; `#[doc = "…"]` as a `///` line.
                    if let Some(TokenTree::Group(g)) = it.peek() {
                        if g.delimiter() == Delimiter::Bracket {
                            // Take the group out of the stream first: its tokens then have
                            // one owner and are moved, not copied.
                            let Some(TokenTree::Group(g)) = it.next() else {
                                continue;
                            };
                            let inner = owned(g);
                            self.newline();
                            match doc_text(&inner) {
                                Some(text) => {
                                    self.word("///", false);
                                    self.out.push_str(&text);
                                }
                                None => {
                                    self.word("#", false);
                                    self.prev = Prev::Punct {
                                        joint: true,
                                        tight: true,
                                    };
                                    self.group(Delimiter::Bracket, inner);
                                }
                            }
                            self.newline();
                            continue;
                        }
                    }
                    self.word("#", self.space());
                    self.prev = Prev::Punct {
                        joint: false,
                        tight: true,
                    };
                }
                TokenTree::Punct(p) => {
                    let c = p.as_char();
                    // Joint only where the two characters make one operator (`&&`, `::`,
                    // `->`, …) or a lifetime (`'a`): the lexer also joins `<&`, `>;`, `>,`.
                    let joint = p.spacing() == Spacing::Joint
                        && match it.peek() {
                            Some(TokenTree::Punct(n)) => is_operator(c, n.as_char()),
                            Some(TokenTree::Ident(_)) => c == '\'',
                            _ => false,
                        };
                    let after_operand = matches!(self.prev, Prev::Word | Prev::Close);
                    let path_end = matches!(self.prev, Prev::Punct { tight: true, .. })
                        && colon_joint_done(&self.out);
                    // Not `<=` or `<<` (a lifetime's `'` may follow joint: `<'a>`).
                    let operator = joint
                        && matches!(it.peek(), Some(TokenTree::Punct(n)) if matches!(n.as_char(), '=' | '<'));
                    let generic_open = c == '<'
                        && !operator
                        && ((self.prev == Prev::Word && self.generic_word) || path_end);
                    // (Not `>=`; a `>>` in generic arguments closes two of them.)
                    let generic_close = c == '>'
                        && self.generics > 0
                        && !(joint
                            && matches!(it.peek(), Some(TokenTree::Punct(n)) if n.as_char() == '='));
                    // `name!(…)`: a macro call's `!` binds both ways.
                    let bang = c == '!'
                        && self.prev == Prev::Word
                        && matches!(it.peek(), Some(TokenTree::Group(_)));
                    let space = match c {
                        // `use ::x`, `as ::x`: a path from the root after a keyword;
                        // `e: ::x::T`, `= ::x::f()`: after other punctuation too (a
                        // type's `:` would make `:::`), but not after an opening or a
                        // prefix (`(::x`, `&::x`) or inside a path (`a::b`).
                        ':' if joint
                            && matches!(
                                self.prev,
                                Prev::Keyword
                                    | Prev::Punct {
                                        joint: false,
                                        tight: false
                                    }
                            ) =>
                        {
                            true
                        }
                        ',' | ';' | '.' | '?' | ':' => false,
                        _ if generic_open || generic_close || bang => false,
                        _ => self.space(),
                    } && !matches!(self.prev, Prev::Punct { joint: true, .. });
                    let mut buf = [0u8; 4];
                    self.word(c.encode_utf8(&mut buf), space);
                    if generic_open {
                        self.generics += 1;
                    } else if generic_close {
                        self.generics -= 1;
                    }
                    // (The second `&` of `&&` is no unary `&`.)
                    let unary = matches!(c, '&' | '!' | '-' | '*')
                        && !after_operand
                        && !joint
                        && !matches!(self.prev, Prev::Punct { joint: true, .. });
                    let ends_path = c == ':' && colon_joint;
                    colon_joint = c == ':' && joint;
                    self.prev = if generic_close {
                        Prev::Close
                    } else {
                        Prev::Punct {
                            joint,
                            tight: c == '.' || unary || ends_path || generic_open || bang,
                        }
                    };
                    if block && (c == ';' || (c == ',' && self.generics == 0)) {
                        self.newline();
                    }
                }
                TokenTree::Ident(i) => {
                    let text = i.to_string();
                    self.word(&text, self.space());
                    self.generic_word = self.item_keyword
                        || text.starts_with(|c: char| c.is_ascii_uppercase())
                        || PRIMITIVES.contains(&text.as_str());
                    self.item_keyword = matches!(
                        text.as_str(),
                        "fn" | "struct" | "enum" | "impl" | "type" | "trait"
                    );
                    self.prev = if KEYWORDS.contains(&text.as_str()) {
                        Prev::Keyword
                    } else {
                        Prev::Word
                    };
                    colon_joint = false;
                }
                TokenTree::Literal(l) => {
                    self.word(&l.to_string(), self.space());
                    self.prev = Prev::Word;
                    colon_joint = false;
                }
                TokenTree::Group(g) => {
                    colon_joint = false;
                    let brace = g.delimiter() == Delimiter::Brace;
                    let delimiter = g.delimiter();
                    self.group(delimiter, owned(g));
                    // A `{}` body ends an item or a statement, unless more of the same
                    // expression follows (`else`, `;`, `,`, `.`, `?`).
                    if block && brace {
                        let continues = match it.peek() {
                            Some(TokenTree::Punct(p)) => {
                                matches!(p.as_char(), ';' | ',' | '.' | '?' | '=')
                            }
                            Some(TokenTree::Ident(i)) => i == "else",
                            _ => false,
                        };
                        if !continues {
                            self.newline();
                        }
                    }
                }
            }
        }
    }

    fn group(&mut self, delimiter: Delimiter, inner: Vec<TokenTree>) {
        match delimiter {
            Delimiter::Brace => {
                // `use a::{b, c}`: tight after a path separator.
                let space = !matches!(self.prev, Prev::Open) && !colon_joint_done(&self.out);
                self.word("{", space);
                if inner.is_empty() {
                    self.word("}", false);
                } else if short(&inner) {
                    // `S { a, b }`, `{ x }`: on the line.
                    self.prev = Prev::Word;
                    self.stream(inner, false);
                    self.word("}", true);
                } else {
                    self.newline();
                    self.indent += 1;
                    self.stream(inner, true);
                    self.indent -= 1;
                    self.newline();
                    self.word("}", false);
                }
            }
            Delimiter::Parenthesis | Delimiter::Bracket => {
                let (open, close) = if delimiter == Delimiter::Parenthesis {
                    ("(", ")")
                } else {
                    ("[", "]")
                };
                // A call, an index or a macro's arguments follow directly.
                let attached = matches!(self.prev, Prev::Word | Prev::Close)
                    || matches!(
                        self.prev,
                        Prev::Punct { joint: true, .. } | Prev::Punct { tight: true, .. }
                    );
                let space = !attached && !matches!(self.prev, Prev::Open);
                self.word(open, space);
                let generics = std::mem::take(&mut self.generics);
                self.prev = Prev::Open;
                self.stream(inner, false);
                self.generics = generics;
                self.word(close, false);
            }
            Delimiter::None => self.stream(inner, false),
        }
        self.prev = Prev::Close;
    }
}

/// The tokens of a group that is no longer needed: its stream has one owner once the
/// group is gone, so iterating it moves the tokens instead of copying each one.
fn owned(g: proc_macro2::Group) -> Vec<TokenTree> {
    let stream = g.stream();
    drop(g);
    stream.into_iter().collect()
}

/// A brace group kept on one line: a few tokens, no statement, attribute or nested
/// block.
fn short(inner: &[TokenTree]) -> bool {
    let mut n = 0;
    for tt in inner {
        n += 1;
        match tt {
            TokenTree::Punct(p) if matches!(p.as_char(), ';' | '#') => return false,
            TokenTree::Group(g) if g.delimiter() == Delimiter::Brace => return false,
            _ if n > 12 => return false,
            _ => {}
        }
    }
    true
}

/// Whether the text ends with `::` (the last token closed a path separator).
fn colon_joint_done(out: &str) -> bool {
    out.ends_with("::")
}

/// The text of `doc = "…"` (an attribute's contents), unescaped; `None` for any other
/// attribute, or text that a `///` line cannot carry (a line break).
fn doc_text(inner: &[TokenTree]) -> Option<String> {
    let mut it = inner.iter();
    match (it.next(), it.next(), it.next(), it.next()) {
        (
            Some(TokenTree::Ident(i)),
            Some(TokenTree::Punct(p)),
            Some(TokenTree::Literal(l)),
            None,
        ) if i == "doc" && p.as_char() == '=' => {
            let text = unescape(&l.to_string())?;
            // A tab in prose is four spaces in a doc comment (clippy's
            // `tabs_in_doc_comments`); a code block keeps its alignment.
            (!text.contains(['\n', '\r'])).then(|| text.replace('\t', "    "))
        }
        _ => None,
    }
}

/// The value of a string literal token as `proc_macro2` writes one (`"…"` with the
/// escapes of `str::escape_debug`); `None` for anything else.
fn unescape(lit: &str) -> Option<String> {
    if let Some(raw) = lit.strip_prefix('r') {
        let hashes = raw.len() - raw.trim_start_matches('#').len();
        let body = raw[hashes..].strip_prefix('"')?;
        let body = body.strip_suffix(&raw[..hashes])?.strip_suffix('"')?;
        return Some(body.to_string());
    }
    let body = lit.strip_prefix('"')?.strip_suffix('"')?;
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next()? {
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            '0' => out.push('\0'),
            '\\' => out.push('\\'),
            '\'' => out.push('\''),
            '"' => out.push('"'),
            'u' => {
                let rest = chars.as_str().strip_prefix('{')?;
                let end = rest.find('}')?;
                let c = char::from_u32(u32::from_str_radix(&rest[..end], 16).ok()?)?;
                out.push(c);
                chars = rest[end + 1..].chars();
            }
            _ => return None,
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    #[test]
    fn items_statements_and_docs_on_their_own_lines() {
        let t = quote! {
            #[doc = " A \"thing\"\u{e9}."]
            #[derive(Clone, Copy)]
            pub struct A { pub x: u8, y: Option<u8> }
            impl A {
                pub const fn f(&self, w: &mut W) -> Result<(), E> {
                    let v = self.x.max(1) as u64;
                    if v > 2 { return Err(E::X { v }); } else { w.g(-1, a::b::<u8>()); }
                    match v { 0 => Ok(()), _ => Ok(()) }
                }
            }
            static T: [u8; 3] = [1u8, 2u8, 3u8];
        };
        let text = render(t);
        assert_eq!(
            text,
            "/// A \"thing\"\u{e9}.\n#[derive(Clone, Copy)]\npub struct A { pub x: u8, y: Option<u8> }\n\
             impl A {\n    pub const fn f(&self, w: &mut W) -> Result<(), E> {\n        \
             let v = self.x.max(1) as u64;\n        if v > 2 {\n            return Err(E::X { v });\n        \
             } else {\n            w.g(-1, a::b::<u8>());\n        }\n        \
             match v { 0 => Ok(()), _ => Ok(()) }\n    }\n}\nstatic T: [u8; 3] = [1u8, 2u8, 3u8];\n"
        );
    }

    /// A path from the crate root after a type's colon or a keyword keeps its space
    /// (`e: ::x::T`; `e:::x` does not parse); a path inside a path does not get one.
    #[test]
    fn root_paths_after_a_colon() {
        let t = quote! {
            use ::x::y;
            use super::{A, B};
            fn f(e: ::x::T, g: a::b::C) -> ::x::U { let v = ::x::v(e, &::x::W); v }
        };
        assert_eq!(
            render(t),
            "use ::x::y;\nuse super::{ A, B };\nfn f(e: ::x::T, g: a::b::C) -> ::x::U {\n    let v = ::x::v(e, &::x::W);\n    v\n}\n"
        );
    }

    /// Punctuation the lexer joins without making one operator is spaced as on its own.
    #[test]
    fn joint_punctuation_that_is_no_operator() {
        let t = quote! {
            type Item = Result<Decoded, E>;
            fn f<'a>(w: Option<&u128>, v: Vec<Vec<u8>>, s: &'a str) -> bool { a >= b && c >> 2 == 0 }
        };
        assert_eq!(
            render(t),
            "type Item = Result<Decoded, E>;\n\
             fn f<'a>(w: Option<&u128>, v: Vec<Vec<u8>>, s: &'a str) -> bool {\n    a >= b && c >> 2 == 0\n}\n"
        );
    }

    /// The laid-out text lexes back to the same tokens, for the whole API of the
    /// bundled spec.
    #[test]
    fn rendered_text_lexes_back_to_the_tokens() {
        let checked =
            crate::Spec::from_texts(isa_spec::FILES.iter().map(|f| (f.name, f.text))).check();
        let model = checked.model.as_ref().expect("the bundled spec checks");
        let options = super::super::Options {
            export_macros: true,
            macros: Some(super::super::Macros::default()),
            ..Default::default()
        };
        let tokens = super::super::Gen {
            model,
            sources: &checked.sources,
            options: &options,
            asm: crate::asm::Assembler::new(model),
        }
        .file();
        let text = render(tokens.clone());
        let back: TokenStream = text.parse().expect("the rendered text lexes");
        let (mut a, mut b) = (Vec::new(), Vec::new());
        flatten(tokens, &mut a);
        flatten(back, &mut b);
        assert_eq!(a.len(), b.len());
        for (k, (x, y)) in a.iter().zip(&b).enumerate() {
            assert_eq!(
                x,
                y,
                "at {:?}",
                &a[k.saturating_sub(8)..(k + 8).min(a.len())]
            );
        }
    }

    /// The tokens as comparable text: string literals by value (a doc comment may come
    /// back as a plain string where it was raw), punctuation with its spacing where the
    /// next token is punctuation too (where spacing changes the meaning).
    fn flatten(tokens: TokenStream, out: &mut Vec<String>) {
        let v: Vec<TokenTree> = tokens.into_iter().collect();
        for (k, tt) in v.iter().enumerate() {
            match tt {
                TokenTree::Group(g) => {
                    out.push(format!("open {:?}", g.delimiter()));
                    flatten(g.stream(), out);
                    out.push("close".into());
                }
                TokenTree::Punct(p) => {
                    // Spacing matters where the two characters make one operator (`>`
                    // then `,` do not; rustc splits a `>>` that closes generics).
                    let joint = matches!(v.get(k + 1), Some(TokenTree::Punct(n))
                            if is_operator(p.as_char(), n.as_char()) && (p.as_char(), n.as_char()) != ('>', '>'))
                        && p.spacing() == Spacing::Joint;
                    out.push(format!("punct {} {joint}", p.as_char()));
                }
                TokenTree::Literal(l) => {
                    let t = l.to_string();
                    out.push(unescape(&t).map_or(t, |v| format!("str {v:?}")));
                }
                TokenTree::Ident(i) => out.push(i.to_string()),
            }
        }
    }
}
