//! Which spec a macro assembles for, and its model, loaded once per compiler process.
//!
//! `inst!`/`code!` of a generated API name their spec in the forwarding macro the
//! generator emits: `bundled` (the spec embedded in `isa-spec`) or the absolute paths of
//! the spec files, as a `build.rs` or `include_isa!` saw them.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};
use std::time::SystemTime;

use isa_gen::asm::Assembler;
use isa_gen::model::Model;
use proc_macro2::TokenStream;
use syn::parse::{Parse, ParseStream};
use syn::{bracketed, LitStr, Token};

/// Where a spec comes from.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum SpecRef {
    Bundled,
    Files(Vec<PathBuf>),
}

/// `spec: bundled | ["a.isa", …], root: path;` in front of a forwarded macro's tokens.
pub struct Header {
    pub spec: SpecRef,
    pub root: syn::Path,
    pub rest: TokenStream,
}

mod kw {
    syn::custom_keyword!(spec);
    syn::custom_keyword!(root);
    syn::custom_keyword!(bundled);
}

impl Parse for Header {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        input.parse::<kw::spec>()?;
        input.parse::<Token![:]>()?;
        let spec = if input.peek(kw::bundled) {
            input.parse::<kw::bundled>()?;
            SpecRef::Bundled
        } else {
            let content;
            bracketed!(content in input);
            let files = content.parse_terminated(<LitStr as Parse>::parse, Token![,])?;
            SpecRef::Files(files.iter().map(|l| PathBuf::from(l.value())).collect())
        };
        input.parse::<Token![,]>()?;
        input.parse::<kw::root>()?;
        input.parse::<Token![:]>()?;
        let root = syn::Path::parse_mod_style(input)?;
        input.parse::<Token![;]>()?;
        Ok(Header {
            spec,
            root,
            rest: input.parse()?,
        })
    }
}

type Key = (SpecRef, Vec<Option<SystemTime>>);

/// The assembler of a spec, checked once per compiler process (per file versions).
pub fn assembler(spec: &SpecRef) -> Result<&'static Assembler<'static>, String> {
    static CACHE: OnceLock<Mutex<HashMap<Key, Result<&'static Assembler<'static>, String>>>> =
        OnceLock::new();
    let times = match spec {
        SpecRef::Bundled => Vec::new(),
        SpecRef::Files(files) => files
            .iter()
            .map(|f| std::fs::metadata(f).and_then(|m| m.modified()).ok())
            .collect(),
    };
    let key = (spec.clone(), times);
    let mut cache = CACHE
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    cache
        .entry(key)
        .or_insert_with(|| {
            let checked = match spec {
                SpecRef::Bundled => {
                    isa_gen::Spec::from_texts(isa_spec::FILES.iter().map(|f| (f.name, f.text)))
                        .check()
                }
                SpecRef::Files(files) => isa_gen::Spec::load(files)
                    .map_err(|e| e.to_string())?
                    .check(),
            };
            let rendered = checked.render_diagnostics();
            let model: &'static Model = Box::leak(Box::new(
                checked
                    .model
                    .ok_or_else(|| format!("the spec has errors:\n{rendered}"))?,
            ));
            Ok(&*Box::leak(Box::new(Assembler::new(model))))
        })
        .clone()
}
