//! # isa-gen: from ISA description files to a typed Rust API
//!
//! The pipeline has one module per stage:
//!
//! 1. [`syntax`]: a nom parser turns each `.isa` file into an AST with source spans;
//! 2. [`model`]: names are resolved, inheritance flattened, every field classified and
//!    everything validated into a [`model::Model`];
//! 3. [`asm`]: the interpreting assembler and printer over the model;
//! 4. `lint` (feature `lints`, on by default): located warnings for inconsistencies
//!    that do not stop generation (it assembles the spec's `__Examples`, so it comes
//!    after [`asm`]);
//! 5. [`codegen`]: the model becomes Rust source (tokens built with quote, laid out by
//!    `codegen::render`).
//!
//! [`diag`] collects errors and warnings from every stage and renders them with the
//! source line and a caret. [`model::interp`] can encode and decode instructions of any
//! spec straight from the model, without generated code.
//!
//! Typical use from a `build.rs`:
//!
//! ```no_run
//! let spec = isa_gen::Spec::load(&["isa-spec"]).expect("readable spec files");
//! let checked = spec.check();
//! if checked.has_errors() {
//!     panic!("{}", checked.render_diagnostics());
//! }
//! let code = checked.generate().expect("checked spec generates");
//! std::fs::write("out.rs", code).unwrap();
//! ```

pub mod asm;
pub mod codegen;
pub mod diag;
#[cfg(feature = "lints")]
pub mod index;
#[cfg(feature = "lints")]
pub mod lint;
pub mod model;
pub mod source;
pub mod suggest;
pub mod syntax;

use std::io;
use std::path::{Path, PathBuf};

use diag::Diagnostics;
use model::Model;
use source::SourceMap;

/// A set of spec files loaded into memory.
#[derive(Debug, Clone, Default)]
pub struct Spec {
    pub sources: SourceMap,
}

/// The result of checking a spec: the model (when there are no errors) and every
/// diagnostic found.
#[derive(Debug, Clone)]
pub struct Checked {
    pub sources: SourceMap,
    pub model: Option<Model>,
    pub diagnostics: Diagnostics,
    /// How the `__Examples` lines fared (when there is a model and the lints ran).
    pub examples: ExampleStats,
}

/// How the spec's `__Examples` lines fared: every line either assembles or has a warning
/// (the `lint` module, feature `lints`; zero without it).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ExampleStats {
    /// Lines the assembler accepts.
    pub assembled: usize,
    /// Lines reported by a located warning saying why they do not assemble.
    pub warned: usize,
}

impl Spec {
    /// Loads spec files. A directory contributes its `*.isa` files (sorted by name, not
    /// recursive); a file is loaded whatever its extension.
    pub fn load<P: AsRef<Path>>(paths: &[P]) -> io::Result<Spec> {
        let mut sources = SourceMap::new();
        for path in spec_files(paths)? {
            let bytes = read_limited(&path, MAX_FILE_BYTES, "a spec file")
                .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
            sources.add_path(&path, bytes);
        }
        Ok(Spec { sources })
    }

    /// A spec from in-memory `(name, text)` pairs.
    pub fn from_texts<'a>(files: impl IntoIterator<Item = (&'a str, &'a str)>) -> Spec {
        let mut sources = SourceMap::new();
        for (name, text) in files {
            sources.add(name, text);
        }
        Spec { sources }
    }

    /// Parses, resolves, validates and (with the feature `lints`, on by default) lints.
    pub fn check(self) -> Checked {
        let mut diagnostics = Diagnostics::default();
        let files: Vec<_> = self
            .sources
            .files()
            .map(|(id, _)| syntax::parse_file(&self.sources, id, &mut diagnostics))
            .collect();
        let mut model = model::resolve::build(&files, &mut diagnostics);
        let mut examples = ExampleStats::default();
        if let Some(m) = &model {
            let clashes = codegen::names::check(m);
            if clashes.is_empty() {
                examples = run_lints(m, &self.sources, &mut diagnostics);
            } else {
                diagnostics.items.extend(clashes);
                model = None;
            }
        }
        diagnostics.sort();
        Checked {
            sources: self.sources,
            model,
            diagnostics,
            examples,
        }
    }
}

/// The lints (feature `lints`). They only warn, so a build without them fails on the
/// same errors.
fn run_lints(m: &Model, sources: &SourceMap, diagnostics: &mut Diagnostics) -> ExampleStats {
    #[cfg(feature = "lints")]
    return lint::run(m, sources, diagnostics);
    #[cfg(not(feature = "lints"))]
    {
        let _ = (m, sources, diagnostics);
        ExampleStats::default()
    }
}

/// Largest spec file [`Spec::load`] reads (the bundled spec is 150 KiB in all), and
/// largest input file of the `isa` command. A larger file, or an endless one such as
/// `/dev/zero`, is an error rather than a hang or an out-of-memory abort.
pub const MAX_FILE_BYTES: u64 = 64 << 20;

/// Reads at most `limit` bytes of a file; more is an error that says `what` (such as
/// "a spec file") may be no larger.
pub fn read_limited(path: &Path, limit: u64, what: &str) -> io::Result<Vec<u8>> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("larger than {} MiB, the most {what} may be", limit >> 20),
        ));
    }
    Ok(bytes)
}

/// The files a list of paths stands for: directories expand to their `*.isa` files.
pub fn spec_files<P: AsRef<Path>>(paths: &[P]) -> io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for p in paths {
        let p = p.as_ref();
        if p.is_dir() {
            let mut entries: Vec<PathBuf> = std::fs::read_dir(p)
                .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", p.display())))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|e| e.extension().is_some_and(|x| x == "isa") && e.is_file())
                .collect();
            entries.sort();
            if entries.is_empty() {
                return Err(io::Error::new(
                    io::ErrorKind::NotFound,
                    format!("{}: no .isa files in this directory", p.display()),
                ));
            }
            out.extend(entries);
        } else {
            out.push(p.to_path_buf());
        }
    }
    Ok(out)
}

impl Checked {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.has_errors()
    }

    /// All diagnostics rendered with source excerpts.
    pub fn render_diagnostics(&self) -> String {
        self.diagnostics.render(&self.sources)
    }

    /// Generates the Rust API (None when the spec has errors).
    pub fn generate(&self) -> Option<String> {
        let model = self.model.as_ref()?;
        Some(codegen::generate(
            model,
            &self.sources,
            &codegen::Options::default(),
        ))
    }
}
