//! Source files and byte spans.
//!
//! Every AST node carries a [`Span`]: the file it came from and a byte range in that
//! file. Line and column numbers are computed on demand from a per-file line index, so
//! spans stay small (12 bytes) and cheap to copy.

use std::fmt;
use std::path::{Path, PathBuf};

/// Index of a file in a [`SourceMap`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct FileId(pub u32);

/// A byte range `start..end` in one source file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Span {
    pub file: FileId,
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(file: FileId, start: usize, end: usize) -> Span {
        Span {
            file,
            start: start as u32,
            end: end as u32,
        }
    }

    /// The smallest span covering both `self` and `other` (same file assumed).
    pub fn to(self, other: Span) -> Span {
        Span {
            file: self.file,
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }

    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }
}

/// One loaded source file.
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// The name shown in diagnostics (the path as given by the user).
    pub name: String,
    pub path: Option<PathBuf>,
    pub text: String,
    line_starts: Vec<usize>,
}

impl SourceFile {
    fn new(name: String, path: Option<PathBuf>, text: String) -> SourceFile {
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        SourceFile {
            name,
            path,
            text,
            line_starts,
        }
    }

    /// 1-based line and column (in characters) of a byte offset.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let line = match self.line_starts.binary_search(&offset) {
            Ok(l) => l,
            Err(l) => l - 1,
        };
        let start = self.line_starts[line];
        let col = self.text[start..offset].chars().count() + 1;
        (line + 1, col)
    }

    /// Byte range of the 0-based line `index`, including its terminator.
    pub fn line_range(&self, index: usize) -> Option<std::ops::Range<usize>> {
        let start = *self.line_starts.get(index)?;
        let end = self
            .line_starts
            .get(index + 1)
            .copied()
            .unwrap_or(self.text.len());
        Some(start..end)
    }

    /// Number of lines (a final line without a terminator counts; so does the empty
    /// line after a final terminator).
    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }

    /// The text of the 1-based line `line`, without its line terminator.
    pub fn line_text(&self, line: usize) -> &str {
        let start = self.line_starts[line - 1];
        let end = self
            .line_starts
            .get(line)
            .copied()
            .unwrap_or(self.text.len());
        self.text[start..end].trim_end_matches(['\n', '\r'])
    }
}

/// All source files of one run.
#[derive(Debug, Clone, Default)]
pub struct SourceMap {
    files: Vec<SourceFile>,
}

/// A resolved source location, for messages like `bru.isa:12:5`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    pub file: String,
    pub line: usize,
    pub column: usize,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

impl SourceMap {
    pub fn new() -> SourceMap {
        SourceMap::default()
    }

    /// Adds a file from memory. `name` is what diagnostics call it.
    pub fn add(&mut self, name: impl Into<String>, text: impl Into<String>) -> FileId {
        self.push(SourceFile::new(name.into(), None, text.into()))
    }

    /// Adds a file read from disk. Invalid UTF-8 is replaced (and later reported by the
    /// parser as unexpected characters) so that nothing is silently dropped.
    pub fn add_path(&mut self, path: &Path, bytes: Vec<u8>) -> FileId {
        self.add_bytes(path.display().to_string(), Some(path), bytes)
    }

    /// Adds file contents under a display name of the caller's choice (e.g. a path
    /// relative to a project directory).
    pub fn add_bytes(&mut self, name: String, path: Option<&Path>, bytes: Vec<u8>) -> FileId {
        let text = match String::from_utf8(bytes) {
            Ok(s) => s,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        };
        self.push(SourceFile::new(name, path.map(Path::to_path_buf), text))
    }

    fn push(&mut self, file: SourceFile) -> FileId {
        self.files.push(file);
        FileId(self.files.len() as u32 - 1)
    }

    pub fn get(&self, id: FileId) -> &SourceFile {
        &self.files[id.0 as usize]
    }

    pub fn files(&self) -> impl Iterator<Item = (FileId, &SourceFile)> {
        self.files
            .iter()
            .enumerate()
            .map(|(i, f)| (FileId(i as u32), f))
    }

    pub fn len(&self) -> usize {
        self.files.len()
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    pub fn location(&self, span: Span) -> Location {
        let file = self.get(span.file);
        let (line, column) = file.line_col(span.start as usize);
        Location {
            file: file.name.clone(),
            line,
            column,
        }
    }

    /// The source text a span covers.
    pub fn text(&self, span: Span) -> &str {
        &self.get(span.file).text[span.range()]
    }
}
