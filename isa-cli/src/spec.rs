//! Loading and checking a spec, for every command that reads one, and showing what the
//! checker found.
//!
//! A command given no spec path uses the bundled spec (embedded in the binary by the
//! `isa-spec` crate), so `isa doc -o site` or `isa asm prog.s` work wherever they run.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use codespan_reporting::term::termcolor::{BufferedStandardStream, ColorChoice};
use isa_gen::diag::{Diagnostics, LintLevels};
use isa_gen::Checked;

/// Loads the spec at `paths` (files, or directories of `*.isa` files), or the bundled
/// spec when `paths` is empty.
pub fn load(paths: &[PathBuf]) -> Result<isa_gen::Spec, String> {
    if paths.is_empty() {
        let mut spec = isa_gen::Spec::default();
        for f in isa_spec::FILES {
            spec.sources.add(format!("isa-spec/{}", f.name), f.text);
        }
        return Ok(spec);
    }
    isa_gen::Spec::load(paths).map_err(|e| e.to_string())
}

/// Which diagnostics a command prints on stderr.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Show {
    /// Errors and warnings.
    All,
    /// Errors only: the summary line counts the warnings (`isa doc`, `isa json`,
    /// `isa gen`, `isa check --quiet`).
    Errors,
}

/// How diagnostics are written.
#[derive(Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Format {
    /// With the source line and a caret under the offending text.
    #[default]
    Human,
    /// One `file:line:col: warning[lint]: message` line each, as editors and CI read.
    Short,
}

/// A checked spec and how many warnings the lint levels removed.
pub struct Report {
    pub checked: Checked,
    pub allowed: usize,
}

/// Loads and checks a spec, applies the lint levels and prints the diagnostics `show`
/// asks for.
pub fn check(
    paths: &[PathBuf],
    levels: &LintLevels,
    show: Show,
    format: Format,
) -> Result<Report, String> {
    let mut checked = load(paths)?.check();
    let allowed = checked.diagnostics.apply_levels(levels);
    let shown = match show {
        Show::All => checked.diagnostics.clone(),
        Show::Errors => Diagnostics {
            items: checked.diagnostics.errors().cloned().collect(),
        },
    };
    match format {
        Format::Human => {
            let choice = if std::io::stderr().is_terminal() {
                ColorChoice::Auto
            } else {
                ColorChoice::Never
            };
            // Buffered: thousands of diagnostics are thousands of small writes otherwise.
            let mut err = BufferedStandardStream::stderr(choice);
            shown.emit(&checked.sources, &mut err);
            let _ = err.flush();
        }
        Format::Short => {
            let _ = std::io::stderr()
                .lock()
                .write_all(shown.render_short(&checked.sources).as_bytes());
        }
    }
    Ok(Report { checked, allowed })
}

impl Report {
    /// The one-line summary: `6 files: 45 types, …; 35 warnings (examples 21, …), 0 errors`.
    pub fn summary(&self) -> String {
        let checked = &self.checked;
        let d = &checked.diagnostics;
        let files = checked.sources.len();
        let counts = match &checked.model {
            Some(m) => {
                let s = m.summary();
                format!(
                    "{} types, {} groups, {} optypes, {} opcodes",
                    s.types, s.groups, s.optypes, s.opcodes
                )
            }
            None => "no model".to_string(),
        };
        let examples = if checked.model.is_some() {
            let ex = checked.examples;
            format!(
                "; examples: {} assemble, {} explained by warnings",
                ex.assembled, ex.warned
            )
        } else {
            String::new()
        };
        let by_lint = d.warnings_by_lint();
        let breakdown = if by_lint.is_empty() {
            String::new()
        } else {
            let parts: Vec<String> = by_lint.iter().map(|(l, n)| format!("{l} {n}")).collect();
            format!(" ({})", parts.join(", "))
        };
        let allowed = if self.allowed > 0 {
            format!(", {} allowed", self.allowed)
        } else {
            String::new()
        };
        format!(
            "{files} file{}: {counts}{examples}; {}{breakdown}{allowed}, {}",
            plural(files, ""),
            count(d.warning_count(), "warning"),
            count(d.error_count(), "error"),
        )
    }
}

fn plural(n: usize, one: &'static str) -> &'static str {
    if n == 1 {
        one
    } else {
        "s"
    }
}

fn count(n: usize, noun: &str) -> String {
    format!("{n} {noun}{}", plural(n, ""))
}

/// Refuses an output path that is one of the spec files (no command writes to what it
/// reads).
pub fn refuse_inputs(out: &Path, paths: &[PathBuf]) -> Result<(), String> {
    if paths.is_empty() {
        return Ok(());
    }
    for input in isa_gen::spec_files(paths).map_err(|e| e.to_string())? {
        if same_file(out, &input) {
            return Err(format!(
                "refusing to overwrite the spec file {}",
                input.display()
            ));
        }
    }
    Ok(())
}

/// Whether two paths name the same existing file.
pub fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}
