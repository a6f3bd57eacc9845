//! Reading the inputs of `isa asm`, `isa disasm`, `isa link` and `isa run` (programs,
//! state files, objects), each at most `isa_gen::MAX_FILE_BYTES` long.
//!
//! A byte that is not UTF-8 is an error at its line and column, not a bare I/O error
//! for the whole file, and the rest of the file is still read: every other problem is
//! reported in the same run. In a program's `//` comment it is harmless (the comment is
//! ignored anyway), so there it is accepted.

/// Reads a file a command takes as input (a program, a state file, an object): at most
/// [`isa_gen::MAX_FILE_BYTES`], as for spec files, so `/dev/zero` or a huge file is an
/// error naming the file and the limit, not an exhausted memory.
pub fn read_input_file(path: &std::path::Path) -> Result<Vec<u8>, String> {
    isa_gen::read_limited(path, isa_gen::MAX_FILE_BYTES, "an input file")
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// A text file; invalid UTF-8 replaced by U+FFFD and remembered.
pub struct TextFile {
    pub text: String,
    invalid: Vec<Invalid>,
}

/// One invalid UTF-8 sequence.
struct Invalid {
    /// 1-based line.
    line: usize,
    /// 1-based column, in characters (as the assembler counts them).
    column: usize,
    /// Byte offset of its U+FFFD in the line of `text`.
    at: usize,
    bytes: Vec<u8>,
}

/// A located error: (line, column, message).
pub type Located = (usize, usize, String);

impl TextFile {
    pub fn read(path: &str) -> Result<TextFile, String> {
        Ok(TextFile::from_bytes(&read_input_file(path.as_ref())?))
    }

    pub fn from_bytes(bytes: &[u8]) -> TextFile {
        let mut text = String::with_capacity(bytes.len());
        let mut invalid = Vec::new();
        let (mut line, mut column, mut line_start) = (1, 1, 0);
        for chunk in bytes.utf8_chunks() {
            for (i, c) in chunk.valid().char_indices() {
                if c == '\n' {
                    line += 1;
                    column = 1;
                    line_start = text.len() + i + 1;
                } else {
                    column += 1;
                }
            }
            text.push_str(chunk.valid());
            if !chunk.invalid().is_empty() {
                invalid.push(Invalid {
                    line,
                    column,
                    at: text.len() - line_start,
                    bytes: chunk.invalid().to_vec(),
                });
                text.push(char::REPLACEMENT_CHARACTER);
                column += 1;
            }
        }
        TextFile { text, invalid }
    }

    /// Every invalid UTF-8 sequence, wherever it is.
    pub fn invalid_utf8(&self) -> Vec<Located> {
        self.invalid.iter().map(message).collect()
    }

    /// The invalid UTF-8 sequences outside `//` comments.
    pub fn invalid_utf8_in_code(&self) -> Vec<Located> {
        let lines: Vec<&str> = self.text.split('\n').collect();
        self.invalid
            .iter()
            .filter(|b| {
                let line = lines.get(b.line - 1).copied().unwrap_or("");
                line.find("//").is_none_or(|comment| b.at < comment)
            })
            .map(message)
            .collect()
    }
}

fn message(b: &Invalid) -> Located {
    let hex: Vec<String> = b.bytes.iter().map(|x| format!("{x:#04x}")).collect();
    (
        b.line,
        b.column,
        format!("not UTF-8 text (byte {})", hex.join(" ")),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_bytes_are_located_in_characters() {
        let f = TextFile::from_bytes(b"NOP\n  \xc3\xa9X\xff ;\nEXIT // \xfe\xfe\n");
        assert_eq!(
            f.text,
            "NOP\n  \u{e9}X\u{fffd} ;\nEXIT // \u{fffd}\u{fffd}\n"
        );
        assert_eq!(
            f.invalid_utf8(),
            vec![
                (2, 5, "not UTF-8 text (byte 0xff)".to_string()),
                (3, 9, "not UTF-8 text (byte 0xfe)".to_string()),
                (3, 10, "not UTF-8 text (byte 0xfe)".to_string()),
            ]
        );
        // The comment's bytes do not matter to a program.
        assert_eq!(f.invalid_utf8_in_code(), f.invalid_utf8()[..1].to_vec());
    }

    #[test]
    fn a_truncated_sequence_is_one_error() {
        let f = TextFile::from_bytes(b"\xe4\xb8");
        assert_eq!(
            f.invalid_utf8(),
            vec![(1, 1, "not UTF-8 text (byte 0xe4 0xb8)".to_string())]
        );
    }
}
