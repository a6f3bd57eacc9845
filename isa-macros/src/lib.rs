//! Proc-macros of the ISA toolchain.
//!
//! [`include_isa!`] generates the whole typed API of a spec written in the ISA DSL, in
//! any crate, without a `build.rs`: useful for ISA variants and for trying a changed spec.
//!
//! ```ignore
//! mod my_isa {
//!     isa_macros::include_isa!("../specs/my-variant"); // relative to this file
//! }
//! let w = my_isa::Instruction::decode(0x801).unwrap_err();
//! ```

mod inst;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};
use std::time::SystemTime;

use proc_macro::TokenStream;
use quote::quote;
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{LitStr, Token};

struct Paths(Vec<LitStr>);

impl Parse for Paths {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let list = Punctuated::<LitStr, Token![,]>::parse_terminated(input)?;
        if list.is_empty() {
            return Err(input.error(
                "expected the path of a spec file or directory, e.g. `include_isa!(\"isa-spec\")`",
            ));
        }
        Ok(Paths(list.into_iter().collect()))
    }
}

/// One instruction in assembly syntax, checked against the bundled spec at compile time
/// and built as the opcode's struct (`isa::ShflRri` for `SHFL.UP P1, R1, R0, R2, 0x0`).
///
/// ```ignore
/// use isa::inst;
/// const SHFL: isa::ShflRri = inst!(@P0 SHFL.UP P1, R1, R0, R2, 0x0);
/// let rd = isa::Reg::new(4).unwrap();
/// let i = inst!(UIADD UR0, UR1, 0x1);              // literal operands: a constant
/// let j = inst!(SHFL.UP P1, {rd}, R0, R2, 0x0);     // `rd` must be an `isa::Reg`
/// let k = inst!(SHFL.UP P1, R1, R0, {lane: UImm5}, 0x0); // choose the immediate form
/// ```
///
/// Unknown mnemonics or modifiers (with the nearest valid spellings), operand counts
/// and kinds, immediate ranges, branch target alignment and the spec's `__Exception`
/// conditions are compile errors at the offending token. The instruction is assembled
/// at address 0, so a branch target is an absolute address from 0. An interpolated
/// operand `{expr}` takes the first operand kind the spec accepts at its place; write
/// `{expr: Type}` to choose another.
#[proc_macro]
pub fn inst(input: TokenStream) -> TokenStream {
    match inst::inst(input.into()) {
        Ok(t) => t.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

/// Generated code per set of spec files, keyed by their paths and modification times:
/// a compiler process checks and generates each spec once, however often it is included.
type Cache = Mutex<HashMap<Vec<(PathBuf, Option<SystemTime>)>, Result<String, String>>>;

fn cache() -> &'static Cache {
    static CACHE: OnceLock<Cache> = OnceLock::new();
    CACHE.get_or_init(Default::default)
}

/// Generates the typed API (types, opcode structs, `Opcode`, `Instruction`, …) for the
/// spec at the given paths. Like `include_str!`, a relative path is resolved from the
/// directory of the source file that invokes the macro. A directory stands for its
/// `*.isa` files. Spec errors become compile errors that show each diagnostic with its
/// file (as written in the invocation), line and column.
#[proc_macro]
pub fn include_isa(input: TokenStream) -> TokenStream {
    let paths = syn::parse_macro_input!(input as Paths);
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
                return error(lit.span(), &msg);
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
    let result = {
        let mut cache = cache().lock().unwrap_or_else(|p| p.into_inner());
        cache.entry(key).or_insert_with(|| generate(&files)).clone()
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

fn generate(files: &[(PathBuf, String)]) -> Result<String, String> {
    let mut spec = isa_gen::Spec::default();
    for (f, shown) in files {
        let bytes = std::fs::read(f).map_err(|e| format!("{shown}: {e}"))?;
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
    checked
        .generate()
        .ok_or_else(|| "the spec produced no code".to_string())
}

fn error(span: proc_macro2::Span, msg: &str) -> TokenStream {
    syn::Error::new(span, msg).to_compile_error().into()
}
