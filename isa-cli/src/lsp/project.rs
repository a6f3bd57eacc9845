//! Open documents, the specs they belong to, and the analysis of a spec.
//!
//! An `.isa` file is one file of the spec its directory makes, as `isa check DIR`
//! loads it: the other `*.isa` files of the directory are read from disk, open ones
//! are taken from the editor (unsaved text wins). Any other document (a file with
//! another extension, an `untitled:` buffer) is a spec of its own.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::rc::Rc;

use isa_gen::diag::Severity;
use isa_gen::index::Index;
use isa_gen::source::{FileId, Span};
use isa_gen::syntax::ast::SpecFile;
use isa_gen::Checked;
use lsp_types::{
    Diagnostic, DiagnosticRelatedInformation, DiagnosticSeverity, Location, Position, Range, Uri,
};

use super::pos;

/// A document the editor has open.
#[derive(Debug, Clone)]
pub struct Doc {
    pub uri: String,
    pub path: Option<PathBuf>,
    pub text: String,
    pub version: i32,
}

/// Which spec a document belongs to.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ProjectKey {
    /// The `.isa` files of a directory.
    Dir(PathBuf),
    /// One document on its own (by URI).
    Single(String),
}

impl ProjectKey {
    pub fn of(doc: &Doc) -> ProjectKey {
        match &doc.path {
            Some(p) if p.extension().is_some_and(|e| e == "isa") => match p.parent() {
                Some(dir) => ProjectKey::Dir(dir.to_path_buf()),
                None => ProjectKey::Single(doc.uri.clone()),
            },
            _ => ProjectKey::Single(doc.uri.clone()),
        }
    }
}

/// One checked spec with everything the requests need.
pub struct Analysis {
    pub checked: Checked,
    /// The files parsed again for the index and the outline (the checker does not keep
    /// its syntax trees); parsing the bundled spec takes a few milliseconds.
    pub parsed: Vec<SpecFile>,
    pub index: Index,
    /// Per file (by `FileId`): its URI and the byte offset of each line start.
    pub uris: Vec<String>,
    starts: Vec<Vec<usize>>,
    /// Problems that are not about a place in a file (an unreadable file).
    pub problems: Vec<String>,
}

impl Analysis {
    /// Checks the files `(uri, name, text)` in this order as one spec.
    pub fn new(files: Vec<(String, String, String)>, problems: Vec<String>) -> Analysis {
        let spec = isa_gen::Spec::from_texts(
            files
                .iter()
                .map(|(_, name, text)| (name.as_str(), text.as_str())),
        );
        let checked = spec.check();
        let mut scratch = isa_gen::diag::Diagnostics::default();
        let parsed: Vec<SpecFile> = checked
            .sources
            .files()
            .map(|(id, _)| isa_gen::syntax::parse_file(&checked.sources, id, &mut scratch))
            .collect();
        let index = Index::build(&parsed);
        let starts = checked
            .sources
            .files()
            .map(|(_, f)| pos::line_starts(&f.text))
            .collect();
        Analysis {
            checked,
            parsed,
            index,
            uris: files.into_iter().map(|(uri, _, _)| uri).collect(),
            starts,
            problems,
        }
    }

    pub fn file_of(&self, uri: &str) -> Option<FileId> {
        self.uris
            .iter()
            .position(|u| u == uri)
            .map(|i| FileId(i as u32))
    }

    pub fn text(&self, file: FileId) -> &str {
        &self.checked.sources.get(file).text
    }

    pub fn offset(&self, file: FileId, p: Position) -> usize {
        pos::offset(self.text(file), &self.starts[file.0 as usize], p)
    }

    pub fn range(&self, span: Span) -> Range {
        pos::range(
            self.text(span.file),
            &self.starts[span.file.0 as usize],
            span.range(),
        )
    }

    pub fn location(&self, span: Span) -> Option<Location> {
        let uri: Uri = self.uris.get(span.file.0 as usize)?.parse().ok()?;
        Some(Location::new(uri, self.range(span)))
    }

    /// The diagnostics of every file, by URI (files without any get an empty list, so
    /// the editor clears what it showed before).
    pub fn diagnostics(&self) -> BTreeMap<String, Vec<Diagnostic>> {
        let mut out: BTreeMap<String, Vec<Diagnostic>> =
            self.uris.iter().map(|u| (u.clone(), Vec::new())).collect();
        for d in &self.checked.diagnostics.items {
            let Some(uri) = self.uris.get(d.span.file.0 as usize) else {
                continue;
            };
            let mut message = d.message.clone();
            if !d.label.is_empty() {
                message.push_str(&format!(" ({})", d.label));
            }
            for n in &d.notes {
                message.push('\n');
                message.push_str(n);
            }
            let mut related: Vec<DiagnosticRelatedInformation> = d
                .secondary
                .iter()
                .filter_map(|(span, label)| {
                    Some(DiagnosticRelatedInformation {
                        location: self.location(*span)?,
                        message: if label.is_empty() {
                            "see here".into()
                        } else {
                            label.clone()
                        },
                    })
                })
                .collect();
            for &u in &d.other_uses {
                if let Some(location) = self.location(u) {
                    related.push(DiagnosticRelatedInformation {
                        location,
                        message: "also used here".into(),
                    });
                }
            }
            // Each other use of an undefined name is marked too, as a hint that
            // leads to the one error.
            let primary = self.location(d.span);
            for &u in &d.other_uses {
                let Some(u_uri) = self.uris.get(u.file.0 as usize) else {
                    continue;
                };
                out.entry(u_uri.clone()).or_default().push(Diagnostic {
                    range: self.range(u),
                    severity: Some(DiagnosticSeverity::HINT),
                    source: Some("isa".into()),
                    message: format!(
                        "{} (also used here; the error is at its first use)",
                        d.message
                    ),
                    related_information: primary.clone().map(|location| {
                        vec![DiagnosticRelatedInformation {
                            location,
                            message: "the error".into(),
                        }]
                    }),
                    ..Diagnostic::default()
                });
            }
            out.entry(uri.clone()).or_default().push(Diagnostic {
                range: self.range(d.span),
                severity: Some(match d.severity {
                    Severity::Error => DiagnosticSeverity::ERROR,
                    Severity::Warning => DiagnosticSeverity::WARNING,
                }),
                source: Some("isa".into()),
                // The lint's name: what `isa check -A NAME` takes.
                code: d
                    .lint
                    .map(|l| lsp_types::NumberOrString::String(l.name().into())),
                message,
                related_information: (!related.is_empty()).then_some(related),
                ..Diagnostic::default()
            });
        }
        out
    }
}

/// A spec the editor works on.
#[derive(Default)]
pub struct Project {
    pub analysis: Option<Rc<Analysis>>,
    /// The last analysis that had a model: hover still shows resolved encodings
    /// (looked up by name) while the author is in the middle of an edit.
    pub last_good: Option<Rc<Analysis>>,
    pub dirty: bool,
    /// URIs diagnostics were published for (to clear them when a file goes).
    pub published: BTreeSet<String>,
}

/// Reads the files of a project: the directory's `.isa` files, open documents
/// overriding what is on disk.
pub fn gather(key: &ProjectKey, docs: &HashMap<String, Doc>) -> Analysis {
    let mut problems = Vec::new();
    let mut files: BTreeMap<PathBuf, (String, String)> = BTreeMap::new();
    match key {
        ProjectKey::Single(uri) => {
            let (name, text) = docs
                .get(uri)
                .map(|d| (display_name(d), d.text.clone()))
                .unwrap_or_default();
            return Analysis::new(vec![(uri.clone(), name, text)], problems);
        }
        ProjectKey::Dir(dir) => {
            // A directory that cannot be listed still has its open documents.
            match isa_gen::spec_files(&[dir]) {
                Ok(paths) => {
                    for p in paths {
                        if let Some(text) = read(&p, &mut problems) {
                            files.insert(p.clone(), (pos::path_to_uri(&p), text));
                        }
                    }
                }
                Err(e) => problems.push(e.to_string()),
            }
            for d in docs.values() {
                if ProjectKey::of(d) == *key {
                    if let Some(p) = &d.path {
                        files.insert(p.clone(), (d.uri.clone(), d.text.clone()));
                    }
                }
            }
        }
    }
    let files = files
        .into_iter()
        .map(|(p, (uri, text))| (uri, p.display().to_string(), text))
        .collect();
    Analysis::new(files, problems)
}

fn display_name(d: &Doc) -> String {
    match &d.path {
        Some(p) => p.display().to_string(),
        None => d.uri.clone(),
    }
}

/// A spec file from disk, read as `isa check` reads it (size limit, invalid UTF-8
/// replaced and then reported by the parser).
fn read(path: &Path, problems: &mut Vec<String>) -> Option<String> {
    match isa_gen::Spec::load(&[path]) {
        Ok(spec) => spec.sources.files().next().map(|(_, f)| f.text.clone()),
        Err(e) => {
            problems.push(e.to_string());
            None
        }
    }
}
