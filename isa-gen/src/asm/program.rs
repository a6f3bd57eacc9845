//! Whole programs: one instruction per line, `//` comments, labels `.L_name:`,
//! `` `(.L_name) `` references (`` `(sym+0x20) `` with an addend), optional `/*0040*/` address prefixes, and the symbol
//! directives `.global NAME` (the label is visible outside the object) and `.extern
//! NAME` (a symbol defined elsewhere, resolved when linking).
//!
//! Every instruction is 16 bytes, so label addresses are known from a first pass over
//! the text alone; the second pass assembles each line with those labels. The line
//! assembler is a parameter, so the interpreting tier and the generated code share this.

use std::collections::HashMap;
use std::ops::Range;

use super::AsmError;

/// Bytes per instruction (the model's).
pub use crate::model::flow::INST_SIZE;

/// An error on one line of a program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProgramError {
    /// 1-based line number.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    pub message: String,
}

/// The instruction lines of a program with their addresses and labels.
#[derive(Debug, Clone, Default)]
pub struct Layout<'a> {
    /// (1-based line number, byte offset of the instruction text in the line, text, address).
    pub lines: Vec<(usize, usize, &'a str, u64)>,
    pub labels: HashMap<&'a str, u64>,
    /// Labels in the order they are defined (for symbol tables).
    pub label_order: Vec<&'a str>,
    /// `.global NAME` and `.extern NAME` lines, in order.
    pub directives: Vec<Directive<'a>>,
}

/// What a symbol directive declares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DirectiveKind {
    /// `.global NAME`: the label `NAME` is visible outside the object.
    Global,
    /// `.extern NAME`: `NAME` is defined elsewhere; references to it become
    /// relocations.
    Extern,
}

/// A `.global`/`.extern` line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Directive<'a> {
    pub kind: DirectiveKind,
    pub name: &'a str,
    /// 1-based line and column of the name.
    pub line: usize,
    pub column: usize,
}

/// Whether a character can be part of a label or symbol name.
fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '$'
}

/// A directive read from a line: its kind, the offset of its name, and the name; or
/// the offset and message of what is wrong with it.
type DirectiveText<'a> = Result<(DirectiveKind, usize, &'a str), (usize, String)>;

/// Reads `.global NAME` / `.extern NAME` (`.globl` too); `None` when the text is no
/// symbol directive.
fn directive(text: &str) -> Option<DirectiveText<'_>> {
    let (word, kind) = [
        (".global", DirectiveKind::Global),
        (".globl", DirectiveKind::Global),
        (".extern", DirectiveKind::Extern),
    ]
    .into_iter()
    .find(|(w, _)| {
        text.strip_prefix(w)
            .is_some_and(|r| r.is_empty() || r.starts_with([' ', '\t']))
    })?;
    let rest = &text[word.len()..];
    let at = word.len() + (rest.len() - rest.trim_start().len());
    let name = rest.trim();
    let ok = !name.is_empty()
        && name.chars().all(is_name_char)
        && !name.starts_with(|c: char| c.is_ascii_digit());
    Some(if ok {
        Ok((kind, at, name))
    } else if name.is_empty() {
        Err((text.len(), format!("`{word}` needs a symbol name")))
    } else {
        Err((
            at,
            format!("`{word}` takes one symbol name, found `{name}`"),
        ))
    })
}

fn err(line: usize, text: &str, at: usize, message: String) -> ProgramError {
    ProgramError {
        line,
        column: text.get(..at).map_or(1, |s| s.chars().count() + 1),
        message,
    }
}

/// First pass: strips comments, address prefixes and labels; assigns addresses from
/// `base`, or from the first instruction's `/*…*/` prefix when it has one.
pub fn layout(src: &str, base: u64) -> Result<Layout<'_>, Vec<ProgramError>> {
    let (out, errors) = layout_all(src, base);
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

/// One line of assembly split into its parts: `/*0040*/ .L_a: INSN ; // comment`.
/// Offsets are bytes into the line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineParts<'a> {
    /// The `/*…*/` address prefix: where it is, and its address or, when it is not
    /// a hex address, the text between the delimiters.
    pub prefix: Option<(Range<usize>, Result<u64, &'a str>)>,
    /// The labels defined on the line (`name:`, several allowed), with their offsets.
    pub labels: Vec<(usize, &'a str)>,
    /// The instruction's offset and text (no comment, no `;`); empty when there is none.
    pub insn: (usize, &'a str),
}

/// Splits one line (programs and the spec's `__Examples` alike). The error is the
/// offset of a `/*` without its `*/`.
pub fn split_line(line: &str) -> Result<LineParts<'_>, usize> {
    let code = super::lex::strip_comment(line);
    // Byte scans (spaces, tabs and name characters are ASCII, so each stop is on a
    // character's boundary).
    let bytes = code.as_bytes();
    let skip_ws = |mut p: usize| {
        while matches!(bytes.get(p), Some(b' ' | b'\t')) {
            p += 1;
        }
        p
    };
    let mut pos = skip_ws(0);
    let mut prefix = None;
    if code[pos..].starts_with("/*") {
        // The `*/` after the `/*` (in `/*/` the two overlap).
        let close = code[pos + 2..].find("*/").ok_or(pos)? + 2;
        let inner = code[pos + 2..pos + close].trim();
        let digits = inner.strip_prefix("0x").unwrap_or(inner);
        let addr = crate::syntax::lexer::parse_digits(digits, 16)
            .and_then(|v| u64::try_from(v).ok())
            .ok_or(inner);
        prefix = Some((pos..pos + close + 2, addr));
        pos = skip_ws(pos + close + 2);
    }
    let mut labels = Vec::new();
    loop {
        let rest = &code[pos..];
        let name_len = rest
            .bytes()
            .position(|b| !is_name_char(char::from(b)))
            .unwrap_or(rest.len());
        if name_len == 0 || !rest[name_len..].starts_with(':') {
            break;
        }
        labels.push((pos, &rest[..name_len]));
        pos = skip_ws(pos + name_len + 1);
    }
    Ok(LineParts {
        prefix,
        labels,
        insn: (pos, &code[pos..]),
    })
}

/// The lines of `src` as [`str::lines`] gives them (split at `\n`, a `\r` before it
/// dropped, no empty line after a last `\n`), each end found eight bytes at a time:
/// `lines` calls `memchr`, whose set-up costs more than a 40-byte line's scan.
fn lines(src: &str) -> impl Iterator<Item = &str> {
    let bytes = src.as_bytes();
    let mut start = 0;
    std::iter::from_fn(move || {
        if start >= bytes.len() {
            return None;
        }
        let end = isa_rt::lex::find_byte(bytes, start, b'\n').unwrap_or(bytes.len());
        // (`start` and `end` are at a `\n` or the ends: character boundaries.)
        let line = &src[start..end];
        start = end + 1;
        Some(if end < bytes.len() {
            line.strip_suffix('\r').unwrap_or(line)
        } else {
            line
        })
    })
}

/// The layout as far as it can be made, and the errors found on the way (a line with
/// a bad label or address prefix keeps its instruction, so it is still assembled).
fn layout_all(src: &str, base: u64) -> (Layout<'_>, Vec<ProgramError>) {
    let mut out = Layout::default();
    let mut errors = Vec::new();
    let mut addr = base;
    // The last instruction took the last address of the 64-bit space: nothing more fits.
    let mut past_end = false;
    for (i, raw) in lines(src).enumerate() {
        let lineno = i + 1;
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        // A UTF-8 byte-order mark (some editors write one) is no part of the program.
        let line = if i == 0 {
            line.strip_prefix('\u{feff}').unwrap_or(line)
        } else {
            line
        };
        let parts = match split_line(line) {
            Ok(parts) => parts,
            Err(at) => {
                let message = "unterminated `/*` address prefix".into();
                errors.push(err(lineno, line, at, message));
                continue;
            }
        };
        match parts.prefix {
            None => {}
            Some((_, Ok(v))) if v == addr => {}
            // The first instruction's prefix sets where the program starts, so a
            // disassembly made with `--base` assembles back unchanged.
            Some((_, Ok(v))) if out.lines.is_empty() && v % INST_SIZE == 0 => {
                for a in out.labels.values_mut() {
                    *a = v;
                }
                addr = v;
            }
            Some((at, Ok(v))) => errors.push(err(
                lineno,
                line,
                at.start,
                format!(
                    "address prefix {v:#06x} does not match this instruction's address {addr:#06x}"
                ),
            )),
            Some((at, Err(inner))) => errors.push(err(
                lineno,
                line,
                at.start,
                format!("`/*{inner}*/` is not a hex address"),
            )),
        }
        for (at, name) in parts.labels {
            if past_end {
                let message =
                    format!("label `{name}` lies past the end of the 64-bit address space");
                errors.push(err(lineno, line, at, message));
                continue;
            }
            if out.labels.insert(name, addr).is_some() {
                let message = format!("label `{name}` is defined twice");
                errors.push(err(lineno, line, at, message));
            } else {
                out.label_order.push(name);
            }
        }
        let (at, text) = parts.insn;
        if text.is_empty() {
            continue;
        }
        match directive(text) {
            Some(Ok((kind, off, name))) => {
                out.directives.push(Directive {
                    kind,
                    name,
                    line: lineno,
                    column: line[..at + off].chars().count() + 1,
                });
                continue;
            }
            Some(Err((off, message))) => {
                errors.push(err(lineno, line, at + off, message));
                continue;
            }
            None => {}
        }
        if past_end {
            let message = "the instruction lies past the end of the 64-bit address space".into();
            errors.push(err(lineno, line, at, message));
            continue;
        }
        out.lines.push((lineno, at, text, addr));
        match addr.checked_add(INST_SIZE) {
            Some(next) => addr = next,
            None => past_end = true,
        }
    }
    (out, errors)
}

/// Assembles a program with `line_asm(text, addr, labels)` for each instruction.
/// Errors of both passes are reported together, in line order.
pub fn assemble<T>(
    src: &str,
    base: u64,
    line_asm: impl FnMut(&str, u64, &dyn Fn(&str) -> Option<u64>) -> Result<T, AsmError>,
) -> Result<Vec<(u64, T)>, Vec<ProgramError>> {
    assemble_with(src, base, &|_, _| None, line_asm)
}

/// [`assemble`], with `other(name, addr)` giving the address of a name that is no
/// label of the program, referenced by the instruction at `addr` (an external symbol's
/// placeholder, say).
pub fn assemble_with<T>(
    src: &str,
    base: u64,
    other: &dyn Fn(&str, u64) -> Option<u64>,
    mut line_asm: impl FnMut(&str, u64, &dyn Fn(&str) -> Option<u64>) -> Result<T, AsmError>,
) -> Result<Vec<(u64, T)>, Vec<ProgramError>> {
    let (layout, mut errors) = layout_all(src, base);
    let mut out = Vec::new();
    for &(lineno, offset, text, addr) in &layout.lines {
        let labels = |name: &str| {
            layout
                .labels
                .get(name)
                .copied()
                .or_else(|| other(name, addr))
        };
        match line_asm(text, addr, &labels) {
            Ok(t) => out.push((addr, t)),
            Err(e) => {
                // `text` lies in `src`, `offset` bytes into its line: the column is
                // counted on that line alone (not by finding the line again, which
                // made a file of bad lines quadratic).
                let text_at = text.as_ptr() as usize - src.as_ptr() as usize;
                let at = text_at + e.span.start.min(text.len());
                errors.push(ProgramError {
                    line: lineno,
                    column: src
                        .get(text_at - offset..at)
                        .map_or(1, |s| s.chars().count() + 1),
                    message: e.to_string(),
                });
            }
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        errors.sort_by_key(|e| (e.line, e.column));
        Err(errors)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_byte_order_mark_starts_no_line() {
        let words = |src: &str| {
            super::assemble(src, 0, |text, _, _| {
                Ok::<_, super::AsmError>(text.to_string())
            })
        };
        assert_eq!(
            words("\u{feff}NOP ;\nEXIT ;\n").unwrap(),
            words("NOP ;\nEXIT ;\n").unwrap()
        );
    }

    use super::*;

    #[test]
    fn layout_assigns_addresses_labels_and_prefixes() {
        let src =
            "// header\n.L_a:\n  /*0000*/ NOP ;\n/*0010*/ .L_b: BRA `(.L_a) // back\n\nEXIT;\n";
        let l = layout(src, 0).unwrap();
        assert_eq!(l.labels[".L_a"], 0);
        assert_eq!(l.labels[".L_b"], 0x10);
        let texts: Vec<_> = l.lines.iter().map(|x| (x.0, x.2, x.3)).collect();
        assert_eq!(
            texts,
            [(3, "NOP", 0), (4, "BRA `(.L_a)", 0x10), (6, "EXIT", 0x20)]
        );
    }

    /// Code at the top of the address space: the last instruction fits, one more (or a
    /// label after it) is an error at its line, not an overflow.
    #[test]
    fn layout_stops_at_the_end_of_the_address_space() {
        let l = layout(
            "/*fffffffffffffff0*/ NOP
",
            0,
        )
        .unwrap();
        assert_eq!(l.lines[0].3, 0xffff_ffff_ffff_fff0);
        let e = layout(
            "/*ffffffffffffffe0*/ NOP
NOP
NOP
.L_end:
",
            0,
        )
        .unwrap_err();
        let got: Vec<_> = e.iter().map(|e| (e.line, e.message.as_str())).collect();
        assert_eq!(
            got,
            [
                (
                    3,
                    "the instruction lies past the end of the 64-bit address space"
                ),
                (
                    4,
                    "label `.L_end` lies past the end of the 64-bit address space"
                ),
            ]
        );
    }

    #[test]
    fn layout_rejects_wrong_prefix_and_duplicate_labels() {
        let e = layout("NOP\n/*0020*/ NOP\n.L:\n.L: NOP\n", 0).unwrap_err();
        assert_eq!(e.len(), 2);
        assert_eq!((e[0].line, e[0].column), (2, 1));
        assert!(e[0].message.contains("does not match"));
        assert_eq!((e[1].line, e[1].column), (4, 1));
    }

    #[test]
    fn lines_are_those_of_str_lines() {
        for src in [
            "",
            "a",
            "a\n",
            "a\n\n",
            "\n",
            "\n\n",
            "\r\n",
            "a\r",
            "a\r\r\n",
            "a\r\nb\rc\n\rd",
            "NOP\nBRA `(.L_x)\n.L_x: EXIT ; // done\n",
            "é\nü\r\n\u{feff}x",
            "a very long line of assembly, longer than a word or two\nand another one",
        ] {
            let ours: Vec<&str> = lines(src).collect();
            let std: Vec<&str> = src.lines().collect();
            assert_eq!(ours, std, "{src:?}");
        }
    }

    #[test]
    fn split_line_parts_and_offsets() {
        let p = split_line("  /* 0x40 */ .L_a: .L_b:\tNOP ; // c").unwrap();
        assert_eq!(p.prefix, Some((2..12, Ok(0x40))));
        assert_eq!(p.labels, [(13, ".L_a"), (19, ".L_b")]);
        assert_eq!(p.insn, (25, "NOP"));
        let p = split_line("// only a comment").unwrap();
        assert_eq!((p.prefix, p.labels.len(), p.insn), (None, 0, (0, "")));
        assert_eq!(split_line("x /*/").unwrap().insn, (0, "x /*/"));
        assert_eq!(split_line(" /*/ NOP"), Err(1));
        // Only hex digits (and `_`) make an address.
        for bad in [
            "0x+40",
            "+40",
            "0x0x40",
            "-0",
            "",
            "0x1_0000_0000_0000_0000",
        ] {
            let line = format!("/*{bad}*/ NOP");
            assert_eq!(
                split_line(&line).unwrap().prefix.unwrap().1,
                Err(bad),
                "{bad}"
            );
        }
    }

    #[test]
    fn overlapping_prefix_delimiters_are_unterminated() {
        // Found by the `asm` fuzz target: `/*/` sliced `line[4..3]`.
        let e = layout("  /*/ NOP\n", 0).unwrap_err();
        assert!(e[0].message.contains("unterminated"), "{}", e[0].message);
        let l = layout("/**/ NOP\n", 0);
        assert!(l.is_err());
    }

    /// A line assembler that knows `NOP`, `BRA label` and nothing else.
    fn tiny(text: &str, _: u64, labels: &dyn Fn(&str) -> Option<u64>) -> Result<u64, AsmError> {
        match text.split_once(' ') {
            None if text == "NOP" => Ok(0),
            Some(("BRA", l)) => {
                labels(l).ok_or_else(|| AsmError::new(4..text.len(), "no such label"))
            }
            // At the end of the text, so a column counts the characters before it.
            _ => Err(AsmError::new(text.len()..text.len(), "unknown")),
        }
    }

    #[test]
    fn errors_of_both_passes_come_together_in_line_order() {
        let src = "NOP
.L_a:
.L_a:
  BRA .L_b
/*0010*/ NOP
  é FOO
";
        let e = assemble(src, 0, tiny).unwrap_err();
        let got: Vec<_> = e
            .iter()
            .map(|e| (e.line, e.column, e.message.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                (3, 1, "label `.L_a` is defined twice"),
                (4, 7, "no such label"),
                (
                    5,
                    1,
                    "address prefix 0x0010 does not match this instruction's address 0x0020"
                ),
                // Columns count characters: `é` is two bytes.
                (6, 8, "unknown"),
            ]
        );
    }

    #[test]
    fn first_prefix_sets_the_start_address() {
        let l = layout(".L0:\n/*0100*/ NOP\n/*0110*/ NOP\n", 0).unwrap();
        assert_eq!(l.labels[".L0"], 0x100);
        assert_eq!(
            l.lines.iter().map(|x| x.3).collect::<Vec<_>>(),
            [0x100, 0x110]
        );
    }
}
