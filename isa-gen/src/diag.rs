//! Diagnostics: located errors and warnings, rendered with the source line and a caret.
//!
//! Every stage (parser, model resolution, validation, lints) pushes into one
//! [`Diagnostics`] list, so a run reports every problem it finds, not only the first.

use std::fmt;
use std::ops::Range;

use codespan_reporting::diagnostic::{Diagnostic as CsDiagnostic, Label, Severity as CsSeverity};
use codespan_reporting::files::{Error as FilesError, Files};
use codespan_reporting::term::{self, termcolor};

use crate::source::{FileId, Location, SourceMap, Span};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Warning,
    Error,
}

/// The named kind of a warning: what `isa check --allow NAME` / `--deny NAME` take.
/// Every warning has one; errors have none (they cannot be allowed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Lint {
    /// A field wider than its type (the extra bits are always zero).
    WideField,
    /// An opcode with no `__DefOptype` ancestor.
    NoOptype,
    /// An `InList`/`OutList` name that is not in `Order`.
    UnlistedOperand,
    /// A `__Syntax` line that contradicts the encodings.
    Syntax,
    /// An `__Examples` line that does not assemble (or a section without examples).
    Examples,
    /// A `Bitwidth` that disagrees with the majority of its sibling opcodes.
    Bitwidth,
    /// An opcode name whose suffix contradicts its fixed fields.
    OpcodeName,
    /// An enumeration read or written that is not declared `__DefRegisters`.
    EnumAccess,
    /// An opcode whose instructions print as another opcode's.
    SameText,
    /// An entry of the authors' text that our `__DefCorrection` replaces.
    Corrected,
    /// A sub-field of a field that is no operand: no assembly text shows it.
    UnprintedField,
}

impl Lint {
    /// Every lint, in the order `isa check --help` lists them.
    pub const ALL: [Lint; 11] = [
        Lint::WideField,
        Lint::NoOptype,
        Lint::UnlistedOperand,
        Lint::Syntax,
        Lint::Examples,
        Lint::Bitwidth,
        Lint::OpcodeName,
        Lint::EnumAccess,
        Lint::SameText,
        Lint::Corrected,
        Lint::UnprintedField,
    ];

    /// The name users write (`examples`, `opcode-name`).
    pub fn name(self) -> &'static str {
        match self {
            Lint::WideField => "wide-field",
            Lint::NoOptype => "no-optype",
            Lint::UnlistedOperand => "unlisted-operand",
            Lint::Syntax => "syntax",
            Lint::Examples => "examples",
            Lint::Bitwidth => "bitwidth",
            Lint::OpcodeName => "opcode-name",
            Lint::EnumAccess => "enum-access",
            Lint::SameText => "same-text",
            Lint::Corrected => "corrected",
            Lint::UnprintedField => "unprinted-field",
        }
    }

    /// One line saying what it reports.
    pub fn description(self) -> &'static str {
        match self {
            Lint::WideField => "a field wider than its type (the extra bits are always zero)",
            Lint::NoOptype => "an opcode with no `__DefOptype` ancestor",
            Lint::UnlistedOperand => "an `InList`/`OutList` name that is not in `Order`",
            Lint::Syntax => "a `__Syntax` line that contradicts the encodings",
            Lint::Examples => "an `__Examples` line that does not assemble as its definition",
            Lint::Bitwidth => "a `Bitwidth` that differs from most sibling opcodes",
            Lint::OpcodeName => "an opcode name whose suffix contradicts its fixed fields",
            Lint::EnumAccess => {
                "an enumeration read or written that is not declared `__DefRegisters`"
            }
            Lint::SameText => "an opcode that prints as another one (assembly cannot name it)",
            Lint::Corrected => {
                "an entry of the authors' text that contradicts it and our spec corrects"
            }
            Lint::UnprintedField => {
                "a sub-field of a field that is no operand (no assembly text shows it)"
            }
        }
    }

    /// The lint called `name`, if any.
    pub fn from_name(name: &str) -> Option<Lint> {
        Lint::ALL.into_iter().find(|l| l.name() == name)
    }
}

impl fmt::Display for Lint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Which lints to drop and which to make errors (`isa check -A NAME -D NAME`).
///
/// `warnings` stands for every lint. A lint named on its own beats `warnings`
/// (`-D warnings -A examples` denies all but `examples`, which is allowed); naming one
/// lint both allowed and denied is refused by [`LintLevels::new`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LintLevels {
    allow_all: bool,
    deny_all: bool,
    allow: Vec<Lint>,
    deny: Vec<Lint>,
}

/// What [`LintLevels`] does to one warning.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Allow,
    Warn,
    Deny,
}

impl LintLevels {
    /// Levels from the names given to `--allow` and `--deny`. An unknown name, or one
    /// lint both allowed and denied, is an error naming it.
    pub fn new<'a>(
        allow: impl IntoIterator<Item = &'a str>,
        deny: impl IntoIterator<Item = &'a str>,
    ) -> Result<LintLevels, String> {
        let mut levels = LintLevels::default();
        for (names, all, list) in [
            (
                allow.into_iter().collect::<Vec<_>>(),
                &mut levels.allow_all,
                &mut levels.allow,
            ),
            (
                deny.into_iter().collect(),
                &mut levels.deny_all,
                &mut levels.deny,
            ),
        ] {
            for name in names {
                if name == "warnings" {
                    *all = true;
                } else {
                    list.push(Lint::from_name(name).ok_or_else(|| unknown_lint(name))?);
                }
            }
        }
        if let Some(both) = levels.allow.iter().find(|l| levels.deny.contains(l)) {
            return Err(format!("lint `{both}` is both allowed and denied"));
        }
        if levels.allow_all && levels.deny_all {
            return Err("`warnings` is both allowed and denied".into());
        }
        Ok(levels)
    }

    /// The level of one lint.
    pub fn level(&self, lint: Lint) -> Level {
        if self.deny.contains(&lint) {
            Level::Deny
        } else if self.allow.contains(&lint) {
            Level::Allow
        } else if self.deny_all {
            Level::Deny
        } else if self.allow_all {
            Level::Allow
        } else {
            Level::Warn
        }
    }
}

/// "unknown lint `x` (did you mean `examples`?); the lints are …".
fn unknown_lint(name: &str) -> String {
    let names = Lint::ALL.map(Lint::name);
    let hint = crate::suggest::nearest(name, names)
        .map(|s| format!(" (did you mean `{s}`?)"))
        .unwrap_or_default();
    format!(
        "unknown lint `{name}`{hint}; the lints are `warnings` (all of them), {}",
        names.map(|n| format!("`{n}`")).join(", ")
    )
}

/// One located message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    /// The lint a warning belongs to (`None` for errors).
    pub lint: Option<Lint>,
    pub message: String,
    pub span: Span,
    /// Text under the primary caret (may be empty).
    pub label: String,
    /// Further locations that explain the message (e.g. the other definition).
    pub secondary: Vec<(Span, String)>,
    pub notes: Vec<String>,
    /// For an undefined name: its other uses, each as wrong as the first (one error
    /// for one missing definition; every use is shown, and an editor marks each).
    pub other_uses: Vec<Span>,
    /// Edits that would fix the problem, as the checker knows them (an editor's
    /// quick fixes).
    pub fixes: Vec<Fix>,
}

/// A fix the checker suggests: edits of the spec's text, applied together.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fix {
    /// What the fix does, as a command: "replace `Regx` with `Reg`".
    pub title: String,
    /// Non-overlapping replacements (an empty span inserts).
    pub edits: Vec<(Span, String)>,
}

impl Diagnostic {
    pub fn error(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            lint: None,
            message: message.into(),
            span,
            label: String::new(),
            secondary: Vec::new(),
            notes: Vec::new(),
            other_uses: Vec::new(),
            fixes: Vec::new(),
        }
    }

    pub fn warning(lint: Lint, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            lint: Some(lint),
            ..Diagnostic::error(span, message)
        }
    }

    pub fn with_label(mut self, label: impl Into<String>) -> Diagnostic {
        self.label = label.into();
        self
    }

    pub fn with_secondary(mut self, span: Span, label: impl Into<String>) -> Diagnostic {
        self.secondary.push((span, label.into()));
        self
    }

    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }

    /// "did you mean `s`?", with the fix that writes `s` at `span`.
    pub fn did_you_mean(mut self, span: Span, s: &str) -> Diagnostic {
        self.notes.push(format!("did you mean `{s}`?"));
        self.with_fix(format!("replace with `{s}`"), vec![(span, s.to_string())])
    }

    /// [`did_you_mean`](Self::did_you_mean) for the nearest of `candidates`, with a fix
    /// for each other candidate as near (an editor offers them all).
    pub fn did_you_mean_any<'a>(
        mut self,
        span: Span,
        word: &str,
        candidates: impl IntoIterator<Item = &'a str>,
    ) -> Diagnostic {
        let near = crate::suggest::nearest_n(word, candidates, 3);
        let best = near.first().map(|b| crate::suggest::distance(word, b));
        for (k, s) in near.iter().enumerate() {
            if k == 0 {
                self = self.did_you_mean(span, s);
            } else if Some(crate::suggest::distance(word, s)) == best {
                self = self.with_fix(format!("replace with `{s}`"), vec![(span, s.to_string())]);
            }
        }
        self
    }

    pub fn with_fix(mut self, title: impl Into<String>, edits: Vec<(Span, String)>) -> Diagnostic {
        self.fixes.push(Fix {
            title: title.into(),
            edits,
        });
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// All diagnostics of one run, in the order they were found.
#[derive(Debug, Clone, Default)]
pub struct Diagnostics {
    pub items: Vec<Diagnostic>,
}

impl Diagnostics {
    pub fn push(&mut self, d: Diagnostic) {
        self.items.push(d);
    }

    pub fn error(&mut self, span: Span, message: impl Into<String>) {
        self.push(Diagnostic::error(span, message));
    }

    pub fn warning(&mut self, lint: Lint, span: Span, message: impl Into<String>) {
        self.push(Diagnostic::warning(lint, span, message));
    }

    pub fn has_errors(&self) -> bool {
        self.items.iter().any(Diagnostic::is_error)
    }

    pub fn error_count(&self) -> usize {
        self.items.iter().filter(|d| d.is_error()).count()
    }

    pub fn warning_count(&self) -> usize {
        self.items.len() - self.error_count()
    }

    pub fn errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.items.iter().filter(|d| d.is_error())
    }

    pub fn warnings(&self) -> impl Iterator<Item = &Diagnostic> {
        self.items.iter().filter(|d| !d.is_error())
    }

    /// Applies lint levels: allowed warnings are removed, denied ones become errors
    /// (keeping their lint name). Returns how many warnings were allowed.
    pub fn apply_levels(&mut self, levels: &LintLevels) -> usize {
        let before = self.items.len();
        self.items
            .retain_mut(|d| match d.lint.map(|l| levels.level(l)) {
                Some(Level::Allow) if !d.is_error() => false,
                Some(Level::Deny) => {
                    d.severity = Severity::Error;
                    true
                }
                _ => true,
            });
        before - self.items.len()
    }

    /// How many warnings each lint gave, most first (ties by lint order).
    pub fn warnings_by_lint(&self) -> Vec<(Lint, usize)> {
        let mut counts: Vec<(Lint, usize)> = Lint::ALL
            .into_iter()
            .map(|l| {
                let n = self.warnings().filter(|d| d.lint == Some(l)).count();
                (l, n)
            })
            .filter(|&(_, n)| n > 0)
            .collect();
        counts.sort_by_key(|&(l, n)| (std::cmp::Reverse(n), l));
        counts
    }

    /// Sorts by file and position (stable, so equal positions keep discovery order).
    pub fn sort(&mut self) {
        self.items.sort_by_key(|d| (d.span.file, d.span.start));
    }

    /// Renders every diagnostic with source excerpts (no colours).
    pub fn render(&self, sources: &SourceMap) -> String {
        let mut out = termcolor::NoColor::new(Vec::new());
        self.emit(sources, &mut out);
        String::from_utf8_lossy(&out.into_inner()).into_owned()
    }

    /// Renders every diagnostic to a colour-capable writer (e.g. stderr).
    pub fn emit(&self, sources: &SourceMap, out: &mut dyn termcolor::WriteColor) {
        let config = term::Config::default();
        let files = Sources(sources);
        for d in &self.items {
            let _ = term::emit(out, &config, &files, &to_codespan(d));
        }
    }

    /// One line per diagnostic: `file:line:col: error: message`.
    pub fn render_short(&self, sources: &SourceMap) -> String {
        let mut s = String::new();
        for d in &self.items {
            s.push_str(&short(d, sources));
            s.push('\n');
            for &u in &d.other_uses {
                s.push_str(&format!(
                    "{}: note: {} (also used here)\n",
                    sources.location(u),
                    d.message
                ));
            }
        }
        s
    }
}

/// `file:line:col: severity: message` (`warning[lint]` for a warning), the form
/// editors and CI logs understand.
pub fn short(d: &Diagnostic, sources: &SourceMap) -> String {
    let lint = d.lint.map(|l| format!("[{l}]")).unwrap_or_default();
    format!(
        "{}: {}{lint}: {}",
        sources.location(d.span),
        d.severity,
        d.message
    )
}

impl Diagnostic {
    pub fn location(&self, sources: &SourceMap) -> Location {
        sources.location(self.span)
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Warning => "warning",
            Severity::Error => "error",
        })
    }
}

fn to_codespan(d: &Diagnostic) -> CsDiagnostic<FileId> {
    let severity = match d.severity {
        Severity::Warning => CsSeverity::Warning,
        Severity::Error => CsSeverity::Error,
    };
    let mut labels = vec![Label::primary(d.span.file, d.span.range()).with_message(&d.label)];
    for (span, text) in &d.secondary {
        labels.push(Label::secondary(span.file, span.range()).with_message(text));
    }
    for span in &d.other_uses {
        labels.push(Label::secondary(span.file, span.range()).with_message("also used here"));
    }
    let mut cs = CsDiagnostic::new(severity);
    if let Some(lint) = d.lint {
        cs = cs.with_code(lint.name());
    }
    cs.with_message(&d.message)
        .with_labels(labels)
        .with_notes(d.notes.clone())
}

/// Adapter so codespan-reporting can read our [`SourceMap`].
struct Sources<'a>(&'a SourceMap);

impl<'a> Files<'a> for Sources<'a> {
    type FileId = FileId;
    type Name = &'a str;
    type Source = &'a str;

    fn name(&'a self, id: FileId) -> Result<&'a str, FilesError> {
        Ok(&self.0.get(id).name)
    }

    fn source(&'a self, id: FileId) -> Result<&'a str, FilesError> {
        Ok(&self.0.get(id).text)
    }

    fn line_index(&'a self, id: FileId, byte_index: usize) -> Result<usize, FilesError> {
        Ok(self.0.get(id).line_col(byte_index).0 - 1)
    }

    fn line_range(&'a self, id: FileId, line_index: usize) -> Result<Range<usize>, FilesError> {
        let file = self.0.get(id);
        file.line_range(line_index).ok_or(FilesError::LineTooLarge {
            given: line_index,
            // Not `text.lines().count()`: codespan asks for the line after the last
            // one for every diagnostic near the end, which made rendering quadratic.
            max: file.line_count(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn levels(allow: &[&str], deny: &[&str]) -> Result<LintLevels, String> {
        LintLevels::new(allow.iter().copied(), deny.iter().copied())
    }

    #[test]
    fn every_lint_has_a_unique_name_that_reads_back() {
        for l in Lint::ALL {
            assert_eq!(Lint::from_name(l.name()), Some(l));
            assert!(!l.description().is_empty());
        }
        let mut names: Vec<_> = Lint::ALL.iter().map(|l| l.name()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), Lint::ALL.len());
        assert!(!names.contains(&"warnings"), "`warnings` means all lints");
    }

    #[test]
    fn a_named_lint_beats_warnings() {
        let l = levels(&["examples"], &["warnings"]).unwrap();
        assert_eq!(l.level(Lint::Examples), Level::Allow);
        assert_eq!(l.level(Lint::Syntax), Level::Deny);
        let l = levels(&["warnings"], &["bitwidth"]).unwrap();
        assert_eq!(l.level(Lint::Bitwidth), Level::Deny);
        assert_eq!(l.level(Lint::Examples), Level::Allow);
        assert_eq!(LintLevels::default().level(Lint::Syntax), Level::Warn);
    }

    #[test]
    fn unknown_and_contradictory_names_are_refused() {
        let e = levels(&["exampels"], &[]).unwrap_err();
        assert!(
            e.starts_with("unknown lint `exampels` (did you mean `examples`?)"),
            "{e}"
        );
        assert!(levels(&["syntax"], &["syntax"])
            .unwrap_err()
            .contains("both"));
        assert!(levels(&["warnings"], &["warnings"]).is_err());
    }

    #[test]
    fn levels_drop_allowed_warnings_and_turn_denied_ones_into_errors() {
        let span = Span::default();
        let mut d = Diagnostics::default();
        d.warning(Lint::Examples, span, "a");
        d.warning(Lint::Syntax, span, "b");
        d.warning(Lint::Syntax, span, "c");
        d.error(span, "d");
        let allowed = d.apply_levels(&levels(&["examples"], &["syntax"]).unwrap());
        assert_eq!(allowed, 1);
        assert_eq!(d.error_count(), 3);
        assert_eq!(d.warning_count(), 0);
        assert!(d
            .items
            .iter()
            .filter(|x| x.lint.is_some())
            .all(Diagnostic::is_error));
        let mut d = Diagnostics::default();
        d.warning(Lint::Syntax, span, "b");
        d.warning(Lint::Examples, span, "a");
        d.warning(Lint::Examples, span, "a2");
        assert_eq!(
            d.warnings_by_lint(),
            vec![(Lint::Examples, 2), (Lint::Syntax, 1)]
        );
    }
}
