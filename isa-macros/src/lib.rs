//! Proc-macros of the ISA toolchain.
//!
//! [`include_isa!`] generates the whole typed API of a spec written in the ISA DSL, in
//! any crate, without a `build.rs`: useful for ISA variants and for trying a changed
//! spec. The generated API comes with its own `inst!` and `code!` (checked against
//! that spec, expanding to paths of that API).
//!
//! ```
//! mod my_isa {
//!     // A spec file or directory, relative to this source file. `at` says where the
//!     // API lives, so its `inst!` can name its types (the crate root by default).
//!     isa_macros::include_isa!("../../isa-spec", at = crate::my_isa);
//! }
//!
//! fn main() {
//!     // A word no opcode matches does not decode.
//!     assert!(my_isa::Instruction::decode(0).is_err());
//!     let nop: my_isa::NopX = my_isa::inst!(NOP);
//!     assert_eq!(my_isa::Instruction::decode(nop.encode()), Ok(nop.into()));
//! }
//! ```
//!
//! [`inst!`] and [`code!`] here assemble for the bundled spec into the `isa` crate; the
//! `isa` crate re-exports its own (`isa::inst!`, `isa::code!`).

mod code;
mod inst;
mod line;
mod spec;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};
use std::time::SystemTime;

use proc_macro::TokenStream;
use quote::quote;
use syn::parse::{Parse, ParseStream};
use syn::{LitStr, Token};

/// `include_isa!("path", …, at = crate::module)`.
struct Include {
    paths: Vec<LitStr>,
    at: Option<syn::Path>,
}

mod kw {
    syn::custom_keyword!(at);
}

impl Parse for Include {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let mut paths = Vec::new();
        let mut at = None;
        while !input.is_empty() {
            if input.peek(kw::at) {
                input.parse::<kw::at>()?;
                input.parse::<Token![=]>()?;
                at = Some(syn::Path::parse_mod_style(input)?);
            } else {
                paths.push(input.parse::<LitStr>()?);
            }
            if input.is_empty() {
                break;
            }
            input.parse::<Token![,]>()?;
        }
        if paths.is_empty() {
            return Err(input.error(
                "expected the path of a spec file or directory, e.g. `include_isa!(\"isa-spec\")`",
            ));
        }
        Ok(Include { paths, at })
    }
}

fn bundled_root() -> syn::Path {
    syn::parse_quote!(::isa)
}

/// One instruction in assembly syntax, checked against the bundled spec at compile time
/// and built as the opcode's struct (`isa::ShflRri` for `SHFL.UP P1, R1, R0, R2, 0x0`).
/// The `isa` crate re-exports it as `isa::inst!`; an API made by `include_isa!` or a
/// `build.rs` has its own, for its spec.
///
/// ```ignore
/// use isa::inst;
/// const SHFL: isa::ShflRri = inst!(@P0 SHFL.UP P1, R1, R0, R2, 0x0);
/// let rd = isa::Reg::new(4).unwrap();
/// let i = inst!(UIADD UR0, UR1, 0x1);              // literal operands: a constant
/// let j = inst!(SHFL.UP P1, {rd}, R0, R2, 0x0);     // `rd` must be an `isa::Reg`
/// let k = inst!(SHFL.UP P1, R1, R0, {lane: UImm5}, 0x0); // say which kind when both fit
/// let g = inst!(@!{p} BRA.{cond} 0x100);           // a guard and a modifier
/// ```
///
/// Unknown mnemonics or modifiers (with the nearest valid spellings), operand counts
/// and kinds, immediate ranges, branch target alignment and the spec's `__Exception`
/// conditions are compile errors at the offending token. The instruction is assembled
/// at address 0, so a branch target is an absolute address from 0 (`code!` places
/// instructions and resolves labels). An interpolated value `{expr}` may stand for an
/// operand, the guard (`@{p}`, `@!{p}`) or a modifier (`.{m}`); the opcode form is the
/// one that accepts the line, and when several do, the value must say its type:
/// `{expr: Type}`.
#[proc_macro]
pub fn inst(input: TokenStream) -> TokenStream {
    forward(
        spec::SpecRef::Bundled,
        bundled_root(),
        input.into(),
        inst::inst,
    )
}

/// Several instructions with local labels, pushed into an `isa::backend::CodeBuffer`;
/// evaluates to `Result<(), BufferError>`. See the `code!` of a generated API.
///
/// ```ignore
/// isa_macros::code!(buf;
///     top:
///         S2R R1, SR_LANEID;
///         @P0 BRA (done);
///         CALL.REL RZ, {callee};
///         BRA (top);
///     done:
///         EXIT;
/// )?;
/// ```
#[proc_macro]
pub fn code(input: TokenStream) -> TokenStream {
    forward(
        spec::SpecRef::Bundled,
        bundled_root(),
        input.into(),
        code::code,
    )
}

/// `inst!` of a generated API: `inst_for!(spec: …, root: path; INSTRUCTION)`.
#[doc(hidden)]
#[proc_macro]
pub fn inst_for(input: TokenStream) -> TokenStream {
    match syn::parse::<spec::Header>(input) {
        Ok(h) => forward(h.spec, h.root, h.rest, inst::inst),
        Err(e) => e.to_compile_error().into(),
    }
}

/// `code!` of a generated API: `code_for!(spec: …, root: path; BUFFER; …)`.
#[doc(hidden)]
#[proc_macro]
pub fn code_for(input: TokenStream) -> TokenStream {
    match syn::parse::<spec::Header>(input) {
        Ok(h) => forward(h.spec, h.root, h.rest, code::code),
        Err(e) => e.to_compile_error().into(),
    }
}

type Expand = fn(
    &isa_gen::asm::Assembler,
    &syn::Path,
    proc_macro2::TokenStream,
) -> syn::Result<proc_macro2::TokenStream>;

fn forward(
    spec: spec::SpecRef,
    root: syn::Path,
    input: proc_macro2::TokenStream,
    expand: Expand,
) -> TokenStream {
    let asm = match spec::assembler(&spec) {
        Ok(a) => a,
        Err(e) => return error(proc_macro2::Span::call_site(), &e),
    };
    match expand(asm, &root, input) {
        Ok(t) => t.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

/// `msg` about the spec path `written`, saying where a relative one is read from.
fn with_path_note(mut msg: String, written: &str) -> String {
    if Path::new(written).is_relative() {
        msg.push_str(
            "; a relative path is read from the directory of the source file that invokes \
             `include_isa!`, as `include_str!` reads it",
        );
    }
    msg
}

/// Generated code per set of spec files, keyed by their paths and modification times:
/// a compiler process checks and generates each spec once, however often it is included.
type Cache = Mutex<HashMap<(Vec<(PathBuf, Option<SystemTime>)>, String), Result<String, String>>>;

fn cache() -> &'static Cache {
    static CACHE: OnceLock<Cache> = OnceLock::new();
    CACHE.get_or_init(Default::default)
}

/// Generates the typed API (types, opcode structs, `Opcode`, `Instruction`, …) for the
/// spec at the given paths, with its `inst!` and `code!`. Like `include_str!`, a
/// relative path is resolved from the directory of the source file that invokes the
/// macro. A directory stands for its `*.isa` files. Spec errors become compile errors
/// that show each diagnostic with its file (as written in the invocation), line and
/// column.
///
/// `at = crate::path::to::module` says where the API is (the module the macro is
/// invoked in), so that its `inst!`/`code!` can name its types; without it, the crate
/// root. The macros are `pub(crate)`: `module::inst!(…)` anywhere in the crate. The
/// crate must depend on `isa-macros` under that name (`isa_macros`).
#[proc_macro]
pub fn include_isa(input: TokenStream) -> TokenStream {
    let include = syn::parse_macro_input!(input as Include);
    let paths = (include.paths,);
    let span = paths.0[0].span();
    let dir = proc_macro::Span::call_site()
        .local_file()
        .and_then(|f| f.parent().map(Path::to_path_buf))
        .or_else(|| std::env::var("CARGO_MANIFEST_DIR").ok().map(PathBuf::from))
        .unwrap_or_default();
    // `local_file` is relative to the compiler's working directory; `include_bytes!`
    // below needs paths that do not depend on the invoking file.
    let dir = std::env::current_dir()
        .map(|cwd| cwd.join(&dir))
        .unwrap_or(dir);
    // (path on disk, name shown in diagnostics)
    let mut files: Vec<(PathBuf, String)> = Vec::new();
    for lit in &paths.0 {
        let written = lit.value();
        let full = dir.join(&written);
        match isa_gen::spec_files(&[&full]) {
            Ok(list) => files.extend(list.into_iter().map(|f| {
                let shown = match f.strip_prefix(&full) {
                    Ok(rest) if !rest.as_os_str().is_empty() => {
                        Path::new(&written).join(rest).display().to_string()
                    }
                    _ => written.clone(),
                };
                (f, shown)
            })),
            Err(e) => {
                let msg = e.to_string().replace(&full.display().to_string(), &written);
                return error(lit.span(), &with_path_note(msg, &written));
            }
        }
    }
    let key: Vec<_> = files
        .iter()
        .map(|(f, _)| {
            (
                f.clone(),
                std::fs::metadata(f).and_then(|m| m.modified()).ok(),
            )
        })
        .collect();
    let at = include
        .at
        .as_ref()
        .map(|p| quote!(#p).to_string().replace(' ', ""))
        .unwrap_or_else(|| "crate".into());
    let result = {
        let mut cache = cache().lock().unwrap_or_else(|p| p.into_inner());
        cache
            .entry((key, at.clone()))
            .or_insert_with(|| generate(&files, &at))
            .clone()
    };
    match result {
        Ok(code) => {
            let body: proc_macro2::TokenStream = match code.parse() {
                Ok(t) => t,
                Err(e) => return error(span, &format!("generated code does not tokenize: {e}")),
            };
            // Make cargo rebuild when a spec file changes.
            let deps = files.iter().map(|(f, _)| f.display().to_string());
            quote! {
                #( const _: &[u8] = include_bytes!(#deps); )*
                #body
            }
            .into()
        }
        Err(msg) => error(span, &msg),
    }
}

fn generate(files: &[(PathBuf, String)], at: &str) -> Result<String, String> {
    let mut spec = isa_gen::Spec::default();
    for (f, shown) in files {
        let bytes = std::fs::read(f).map_err(|e| with_path_note(format!("{shown}: {e}"), shown))?;
        spec.sources.add_bytes(shown.clone(), Some(f), bytes);
    }
    let checked = spec.check();
    if checked.has_errors() {
        let d = &checked.diagnostics;
        return Err(format!(
            "the spec has {} error{}:\n{}",
            d.error_count(),
            if d.error_count() == 1 { "" } else { "s" },
            checked.render_diagnostics()
        ));
    }
    let model = checked
        .model
        .as_ref()
        .ok_or_else(|| "the spec produced no code".to_string())?;
    let options = isa_gen::codegen::Options {
        macros: Some(isa_gen::codegen::Macros {
            spec: files.iter().map(|(f, _)| f.clone()).collect(),
            root: at.to_string(),
            export: false,
        }),
        ..Default::default()
    };
    Ok(isa_gen::codegen::generate(
        model,
        &checked.sources,
        &options,
    ))
}

fn error(span: proc_macro2::Span, msg: &str) -> TokenStream {
    syn::Error::new(span, msg).to_compile_error().into()
}
