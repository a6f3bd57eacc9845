//! Positions and file URIs as the protocol writes them.
//!
//! LSP positions count UTF-16 code units within a line. The spec files hold Chinese
//! prose (one unit per character, three bytes in UTF-8) and may hold characters outside
//! the Basic Multilingual Plane (two units, four bytes), so neither a byte nor a `char`
//! column is right after them. Everything here clamps: a position past the end of a
//! line or of the file, or inside a surrogate pair, is moved to the nearest boundary
//! rather than rejected, since editors send such positions while text is changing.

use std::path::{Path, PathBuf};

use lsp_types::{Position, Range};

/// The byte offset of each line start (0, then after every `\n`).
pub fn line_starts(text: &str) -> Vec<usize> {
    let mut v = vec![0];
    v.extend(text.match_indices('\n').map(|(i, _)| i + 1));
    v
}

/// The protocol position of a byte offset (clamped to the text and to a char boundary).
pub fn position(text: &str, starts: &[usize], offset: usize) -> Position {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let line = starts.partition_point(|&s| s <= offset).saturating_sub(1);
    let start = starts.get(line).copied().unwrap_or(0);
    let col = text[start..offset].encode_utf16().count();
    Position::new(line as u32, col as u32)
}

pub fn range(text: &str, starts: &[usize], span: std::ops::Range<usize>) -> Range {
    Range::new(
        position(text, starts, span.start),
        position(text, starts, span.end),
    )
}

/// The byte offset of a protocol position. A column past the end of its line is the
/// end of the line (before its terminator); a line past the end is the end of the text.
pub fn offset(text: &str, starts: &[usize], pos: Position) -> usize {
    let Some(&start) = starts.get(pos.line as usize) else {
        return text.len();
    };
    let end = starts
        .get(pos.line as usize + 1)
        .copied()
        .unwrap_or(text.len());
    let line = text[start..end].trim_end_matches(['\n', '\r']);
    let mut units = 0u32;
    for (i, c) in line.char_indices() {
        units += c.len_utf16() as u32;
        // The character ends past the position: the position is at its start, or
        // inside its surrogate pair, which lands before it.
        if units > pos.character {
            return start + i;
        }
    }
    start + line.len()
}

/// The path of a `file:` URI (`file:///a/b%20c.isa`, `file://localhost/a`); None for
/// any other scheme (`untitled:`) or a malformed escape.
pub fn uri_to_path(uri: &str) -> Option<PathBuf> {
    let rest = uri.strip_prefix("file://")?;
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    if !rest.starts_with('/') {
        return None;
    }
    let rest = rest.split(['?', '#']).next().unwrap_or(rest);
    let bytes = percent_decode(rest)?;
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStringExt;
        Some(PathBuf::from(std::ffi::OsString::from_vec(bytes)))
    }
    #[cfg(not(unix))]
    {
        // `file:///C:/x` on Windows.
        let s = String::from_utf8(bytes).ok()?;
        let s = s
            .strip_prefix('/')
            .filter(|s| s.get(1..2) == Some(":"))
            .unwrap_or(&s);
        Some(PathBuf::from(s))
    }
}

fn percent_decode(s: &str) -> Option<Vec<u8>> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    Some(out)
}

/// The `file:` URI of an absolute path, every byte but the unreserved ones and `/`
/// percent-encoded (so Chinese file names and spaces survive).
pub fn path_to_uri(path: &Path) -> String {
    #[cfg(unix)]
    let bytes = {
        use std::os::unix::ffi::OsStrExt;
        path.as_os_str().as_bytes().to_vec()
    };
    #[cfg(not(unix))]
    let bytes = {
        let s = path.to_string_lossy().replace('\\', "/");
        if s.starts_with('/') {
            s.into_bytes()
        } else {
            format!("/{s}").into_bytes()
        }
    };
    let mut s = String::from("file://");
    for b in bytes {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            s.push(b as char);
        } else {
            s.push_str(&format!("%{b:02X}"));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_columns_after_chinese_and_astral_characters() {
        let text = "ab\n分支𝄞 cond\r\nx";
        let starts = line_starts(text);
        let cond = text.find("cond").unwrap();
        // 分 支 (one unit each), 𝄞 (two units), a space: `cond` is at column 5.
        assert_eq!(position(text, &starts, cond), Position::new(1, 5));
        assert_eq!(offset(text, &starts, Position::new(1, 5)), cond);
        // Inside the surrogate pair of 𝄞: the start of 𝄞.
        let clef = text.find('𝄞').unwrap();
        assert_eq!(offset(text, &starts, Position::new(1, 3)), clef);
        // Inside a UTF-8 sequence: the start of the character.
        assert_eq!(position(text, &starts, clef + 1), Position::new(1, 2));
        // Past the end of a line (before CR LF), past the last line.
        assert_eq!(
            offset(text, &starts, Position::new(1, 99)),
            text.find('\r').unwrap()
        );
        assert_eq!(offset(text, &starts, Position::new(9, 0)), text.len());
        assert_eq!(position(text, &starts, 999), Position::new(2, 1));
    }

    #[test]
    fn file_uris_round_trip() {
        let p = Path::new("/tmp/规格 a/b#1.isa");
        let uri = path_to_uri(p);
        assert!(uri.starts_with("file:///tmp/%E8%A7%84"), "{uri}");
        assert!(uri.parse::<lsp_types::Uri>().is_ok(), "{uri}");
        assert_eq!(uri_to_path(&uri).as_deref(), Some(p));
        assert_eq!(
            uri_to_path("file://localhost/x/y.isa").as_deref(),
            Some(Path::new("/x/y.isa"))
        );
        assert_eq!(uri_to_path("untitled:Untitled-1"), None);
        assert_eq!(uri_to_path("file:///bad%zz"), None);
        // A query or fragment is not part of the path; a host other than localhost,
        // and an escape cut short, give no path.
        assert_eq!(
            uri_to_path("file:///a/b%2Fc.isa?x=1#L2").as_deref(),
            Some(Path::new("/a/b/c.isa"))
        );
        assert_eq!(uri_to_path("file://server/a.isa"), None);
        assert_eq!(uri_to_path("file:///a%4"), None);
        assert_eq!(uri_to_path("file:///a%"), None);
        // Unreserved bytes stay, every other one is escaped in upper-case hex.
        assert_eq!(
            path_to_uri(Path::new("/a-b_c.d~e/100%?")),
            "file:///a-b_c.d~e/100%25%3F"
        );
    }

    /// Every position of every line, against the definition: a column counts the
    /// UTF-16 units of the characters before it; a column inside a character or past
    /// the line's end is clamped to the character's start or the line's end.
    #[test]
    fn every_position_maps_to_the_offset_the_definition_gives() {
        let text = "x分𝄞y\r\n\n𝄞\r\n末";
        let starts = line_starts(text);
        assert_eq!(starts, [0, 11, 12, 18]);
        for (line, &start) in starts.iter().enumerate() {
            let end = starts.get(line + 1).copied().unwrap_or(text.len());
            let body = text[start..end].trim_end_matches(['\n', '\r']);
            // (column, byte offset) of each character start, then the line's end.
            let mut cols = vec![];
            let mut col = 0;
            for (i, c) in body.char_indices() {
                cols.push((col, start + i));
                col += c.len_utf16() as u32;
            }
            cols.push((col, start + body.len()));
            for character in 0..col + 3 {
                let want = cols
                    .iter()
                    .rev()
                    .find(|&&(c, _)| c <= character)
                    .map(|&(_, o)| o)
                    .unwrap();
                let pos = Position::new(line as u32, character);
                assert_eq!(offset(text, &starts, pos), want, "{pos:?}");
            }
            for &(c, o) in &cols {
                assert_eq!(position(text, &starts, o), Position::new(line as u32, c));
            }
        }
        // Every byte offset lands on the position of the character it is in.
        for o in 0..=text.len() + 2 {
            let p = position(text, &starts, o);
            let back = offset(text, &starts, p);
            assert!(back <= o.min(text.len()), "{o} -> {p:?} -> {back}");
            assert!(text.is_char_boundary(back));
        }
        assert_eq!(
            range(text, &starts, 1..11),
            Range::new(Position::new(0, 1), Position::new(1, 0))
        );
    }
}
