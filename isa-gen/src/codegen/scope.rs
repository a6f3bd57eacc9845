//! Which names a unit module imports from the root, and which the root re-exports.
//!
//! A unit module (`pub mod udp { … }`) once imported the root with `use super::*`, and
//! the root re-exported every unit with `pub use udp::*`. Globs both ways make rustc's
//! name resolution quadratic in the number of units: every unit's glob receives every
//! name of the root, which holds every other unit's structs. A spec of one optype per
//! unit made of that more than half of a 2,048-opcode crate's peak memory (4.7 GB
//! against 2.6 GB with explicit imports). So both directions name what they carry: a
//! unit imports the root names its own tokens use (in code, or as a word of its docs,
//! where intra-doc links name them), and the root re-exports each unit's structs by
//! name.

use std::collections::BTreeSet;

use proc_macro2::{Delimiter, TokenStream, TokenTree};

/// The names the items at the top of `ts` define (functions, types, constants, statics,
/// traits, modules, and the names `use` items bring in); nothing inside their bodies.
pub(super) fn item_names(ts: &TokenStream, out: &mut BTreeSet<String>) {
    let tokens: Vec<TokenTree> = ts.clone().into_iter().collect();
    // Whether the tokens so far belong to an item's head (attributes, visibility,
    // qualifiers) before its name: an item ends at a `;` or a `{ … }` of its own level,
    // so nothing after an item's name (generic `const N`, a `fn` type) is read as one.
    let mut head = true;
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i] {
            TokenTree::Punct(p) if p.as_char() == ';' => head = true,
            TokenTree::Group(g) if g.delimiter() == Delimiter::Brace => head = true,
            TokenTree::Ident(kw) if head => match kw.to_string().as_str() {
                "fn" | "struct" | "enum" | "static" | "type" | "trait" | "union" | "mod"
                | "const" | "crate" => {
                    let mut at = i + 1;
                    if matches!(&tokens.get(at), Some(TokenTree::Ident(m)) if m == "mut") {
                        at += 1;
                    }
                    // `const fn f` names `f` at the `fn`; `const _` names nothing.
                    if let Some(TokenTree::Ident(name)) = tokens.get(at) {
                        let name = name.to_string();
                        if name != "fn" && name != "unsafe" {
                            if name != "_" {
                                out.insert(name);
                            }
                            head = false;
                            i = at;
                        }
                    }
                }
                "use" => {
                    let end = tokens[i..]
                        .iter()
                        .position(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == ';'))
                        .map_or(tokens.len(), |n| i + n);
                    use_names(&tokens[i + 1..end], out);
                    i = end;
                    continue;
                }
                "impl" | "macro_rules" => head = false,
                _ => {}
            },
            _ => {}
        }
        i += 1;
    }
}

/// The names a `use` tree brings in: each path's last segment, or its `as` name.
fn use_names(tree: &[TokenTree], out: &mut BTreeSet<String>) {
    // Split at the commas of this level (a group `{a, b as c}` recurses).
    for part in tree.split(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == ',')) {
        match part.last() {
            Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Brace => {
                let inner: Vec<TokenTree> = g.stream().into_iter().collect();
                use_names(&inner, out);
            }
            Some(TokenTree::Ident(name)) => {
                let name = name.to_string();
                if name != "_" && name != "self" {
                    out.insert(name);
                }
            }
            _ => {}
        }
    }
}

/// Every identifier in `ts`, at any depth, and every identifier-like word of its
/// string literals (doc comments link to items by name).
pub(super) fn used_words(ts: &TokenStream, out: &mut BTreeSet<String>) {
    for t in ts.clone() {
        match t {
            TokenTree::Ident(id) => {
                out.insert(id.to_string());
            }
            TokenTree::Group(g) => used_words(&g.stream(), out),
            TokenTree::Literal(l) => {
                let text = l.to_string();
                if text.starts_with('"') || text.starts_with('r') {
                    for w in text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
                        if !w.is_empty() {
                            out.insert(w.to_string());
                        }
                    }
                }
            }
            TokenTree::Punct(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    fn names(ts: TokenStream) -> Vec<String> {
        let mut out = BTreeSet::new();
        item_names(&ts, &mut out);
        out.into_iter().collect()
    }

    #[test]
    fn item_names_are_the_top_level_definitions() {
        let ts = quote! {
            #[derive(Clone)]
            pub struct Reg(u8);
            pub enum Pred { P0 }
            pub(crate) const fn check(w: u128) -> bool { fn inner() {} true }
            fn count_n<const N: u64>(_: u128) -> u64 { N }
            pub const unsafe fn raw() {}
            extern crate alloc;
            const _: () = ();
            const LIMIT: usize = 3;
            static mut COUNT: u32 = 0;
            static TABLE: [fn(u8) -> u8; 0] = [];
            pub type Word = u128;
            pub trait Encode {}
            pub union Bits { a: u32 }
            pub mod backend { pub struct Hidden; }
            impl Reg { pub fn bits(&self) -> u8 { self.0 } }
            pub use ::isa_rt::print::FormatOptions;
            use core::fmt::{self, Write as _, Display as Show};
            macro_rules! m { () => {} }
        };
        assert_eq!(
            names(ts),
            [
                "Bits",
                "COUNT",
                "Encode",
                "FormatOptions",
                "LIMIT",
                "Pred",
                "Reg",
                "Show",
                "TABLE",
                "Word",
                "alloc",
                "backend",
                "check",
                "count_n",
                "raw",
            ]
        );
    }

    /// The bundled spec's units import the root by name and are re-exported by name:
    /// no glob either way (the shape whose name resolution is linear in the spec).
    #[test]
    fn units_and_root_name_what_they_share() {
        let checked =
            crate::Spec::from_texts(isa_spec::FILES.iter().map(|f| (f.name, f.text))).check();
        let text = checked.generate().expect("the bundled spec generates");
        let units: Vec<&str> = text
            .lines()
            .filter_map(|l| l.strip_prefix("pub mod ")?.strip_suffix(" {"))
            .filter(|m| *m != "backend")
            .collect();
        assert!(units.len() >= 5, "{units:?}");
        for u in &units {
            let body = &text[text.find(&format!("pub mod {u} {{")).unwrap()..];
            let head: String = body.lines().take(4).collect();
            assert!(head.contains("use super::{"), "{u}: {head}");
            assert!(!text.contains(&format!("pub use {u}::*")), "{u}");
            assert!(text.contains(&format!("pub use {u}::{{")), "{u}");
        }
        // Only the backend imports the root whole: one module, whatever the spec's size.
        let globs = text.matches("use super::*;").count();
        assert_eq!(globs, 1, "only `backend` imports the root whole");
    }

    #[test]
    fn used_words_reach_into_bodies_and_doc_text() {
        let ts = quote! {
            #[doc = "See [`BRA_U`](BraU)."]
            pub struct X { a: Reg }
            impl X { fn f(&self) -> Option<Pred> { check_fields(r"raw_word") } }
        };
        let mut out = BTreeSet::new();
        used_words(&ts, &mut out);
        for w in [
            "BraU",
            "BRA_U",
            "Reg",
            "Pred",
            "check_fields",
            "raw_word",
            "X",
        ] {
            assert!(out.contains(w), "{w} in {out:?}");
        }
        assert!(!out.contains("See ["), "words only");
    }
}
