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

/// One located message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    pub message: String,
    pub span: Span,
    /// Text under the primary caret (may be empty).
    pub label: String,
    /// Further locations that explain the message (e.g. the other definition).
    pub secondary: Vec<(Span, String)>,
    pub notes: Vec<String>,
}

impl Diagnostic {
    pub fn error(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            message: message.into(),
            span,
            label: String::new(),
            secondary: Vec::new(),
            notes: Vec::new(),
        }
    }

    pub fn warning(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
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

    pub fn warning(&mut self, span: Span, message: impl Into<String>) {
        self.push(Diagnostic::warning(span, message));
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
        }
        s
    }
}

/// `file:line:col: severity: message`, the form editors and CI logs understand.
pub fn short(d: &Diagnostic, sources: &SourceMap) -> String {
    format!(
        "{}: {}: {}",
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
    CsDiagnostic::new(severity)
        .with_message(&d.message)
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
