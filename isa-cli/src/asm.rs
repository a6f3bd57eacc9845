//! `isa asm` and `isa disasm`: programs to 128-bit words and back, with the generated
//! (fast) assembler and printer.

use std::io::Write as _;
use std::path::Path;
use std::process::ExitCode;

use isa::Instruction;
use isa_gen::asm::program::{self, INST_SIZE};
use isa_gen::asm::AsmError;

use crate::text::TextFile;

/// `isa asm FILE.s [-o FILE | --hex]`.
pub fn asm_command(input: &Path, output: Option<&Path>) -> Result<ExitCode, String> {
    let name = input.display().to_string();
    let file = TextFile::read(&name)?;
    let words: Vec<u128> = match assemble_file(&name, &file) {
        Ok(w) => w.into_iter().map(|(_, w)| w).collect(),
        Err(errors) => {
            for e in errors {
                errln!("{e}");
            }
            return Ok(ExitCode::from(1));
        }
    };
    match output {
        Some(out) => {
            if crate::spec::same_file(out, input) {
                return Err(format!("refusing to overwrite the input {name}"));
            }
            write_binary(out, &words).map_err(|e| format!("{}: {e}", out.display()))?;
        }
        None => {
            let mut s = String::new();
            for w in &words {
                s.push_str(&format!("{w:#034x}\n"));
            }
            std::io::stdout()
                .write_all(s.as_bytes())
                .map_err(|e| e.to_string())?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `isa disasm FILE | --hex WORD...`: a word that does not decode is a warning (it is
/// printed as `.word`, nothing is lost) and fails the command only when `strict`.
pub fn disasm_command(
    input: Option<&Path>,
    hex_words: &[String],
    base: u64,
    strict: bool,
) -> Result<ExitCode, String> {
    let mut bad_words = Vec::new();
    let (text, problems) = match input {
        None => {
            let mut text = String::new();
            let mut problems = Vec::new();
            for (k, w) in hex_words.iter().enumerate() {
                // A bad word is reported and skipped (its address stays taken); the
                // others are still disassembled.
                let Some(word) = crate::num::hex_digits::<u128>(w) else {
                    bad_words.push(format!("word {} (`{w}`): not a 128-bit hex word", k + 1));
                    continue;
                };
                let addr = base + 16 * k as u64;
                let (line, problem) = disasm_line(word, addr);
                text.push_str(&line);
                text.push('\n');
                if let Some(p) = problem {
                    problems.push(format!("word {} ({w}): {p}", k + 1));
                }
            }
            (text, problems)
        }
        Some(path) => {
            let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
            let (text, problems) = disassemble(&bytes, base);
            (
                text,
                problems
                    .into_iter()
                    .map(|p| format!("{}: {p}", path.display()))
                    .collect(),
            )
        }
    };
    std::io::stdout()
        .write_all(text.as_bytes())
        .map_err(|e| e.to_string())?;
    for p in &problems {
        errln!("warning: {p}");
    }
    for b in &bad_words {
        errln!("isa disasm: {b}");
    }
    Ok(if !bad_words.is_empty() {
        ExitCode::from(2)
    } else if strict && !problems.is_empty() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Assembles one line: an instruction, or a raw `.word 0x…` (what the disassembler
/// prints for a word that does not decode, so nothing is lost either way).
pub fn assemble_line(
    text: &str,
    addr: u64,
    labels: &dyn Fn(&str) -> Option<u64>,
) -> Result<u128, AsmError> {
    if let Some(rest) = text.strip_prefix(".word") {
        let digits = rest.trim();
        return match crate::num::hex::<u128>(digits) {
            Some(w) => Ok(w),
            None => Err(AsmError::new(
                5..text.len().max(5),
                format!("`.word` takes one hex number such as 0x1f, found `{digits}`"),
            )),
        };
    }
    Instruction::parse_at(text, addr, labels)
        .map(|i| i.encode())
        .map_err(|e| AsmError::new(e.start..e.end, e.display(text).to_string()))
}

/// Assembles a program file, laid out from address 0 (or its first `/*…*/` prefix).
/// Errors as `file:line:col: error: message`, in line order: every invalid UTF-8
/// sequence outside a comment, and what the assembler finds on the other lines.
pub fn assemble_file(name: &str, file: &TextFile) -> Result<Vec<(u64, u128)>, Vec<String>> {
    let mut errors = file.invalid_utf8_in_code();
    let bad_lines: Vec<usize> = errors.iter().map(|e| e.0).collect();
    match program::assemble(&file.text, 0, assemble_line) {
        Ok(words) if errors.is_empty() => return Ok(words),
        Ok(_) => {}
        Err(errs) => errors.extend(
            errs.into_iter()
                .filter(|e| !bad_lines.contains(&e.line))
                .map(|e| (e.line, e.column, e.message)),
        ),
    }
    errors.sort_by_key(|e| (e.0, e.1));
    Err(errors
        .into_iter()
        .map(|(line, column, message)| format!("{name}:{line}:{column}: error: {message}"))
        .collect())
}

/// Assembles a source held in memory; see [`assemble_file`].
#[cfg(test)]
fn assemble(name: &str, src: &str) -> Result<Vec<u128>, Vec<String>> {
    assemble_file(name, &TextFile::from_bytes(src.as_bytes()))
        .map(|v| v.into_iter().map(|(_, w)| w).collect())
}

/// One disassembly line: `/*0010*/  @P0 BRA 0x800 ;`, or `.word` for a bad word.
pub fn disasm_line(word: u128, addr: u64) -> (String, Option<String>) {
    match Instruction::decode(word) {
        Ok(i) => (format!("/*{addr:04x}*/  {} ;", i.display_at(addr)), None),
        Err(e) => (
            format!("/*{addr:04x}*/  .word {word:#034x} ;"),
            Some(e.to_string()),
        ),
    }
}

/// Disassembles little-endian 16-byte records. Returns the text and the problems
/// (offset: message), if any.
pub fn disassemble(bytes: &[u8], base: u64) -> (String, Vec<String>) {
    let mut out = String::new();
    let mut problems = Vec::new();
    let whole = bytes.len() / INST_SIZE as usize * INST_SIZE as usize;
    for (k, rec) in bytes[..whole].chunks_exact(INST_SIZE as usize).enumerate() {
        let word = u128::from_le_bytes(rec.try_into().expect("16-byte chunk"));
        let offset = k as u64 * INST_SIZE;
        let (line, problem) = disasm_line(word, base + offset);
        out.push_str(&line);
        out.push('\n');
        if let Some(p) = problem {
            problems.push(format!("offset {offset:#x}: {p}"));
        }
    }
    if whole != bytes.len() {
        let rest = &bytes[whole..];
        problems.push(format!(
            "offset {whole:#x}: {} trailing byte{} (the file is not a whole number of 16-byte instructions)",
            rest.len(),
            if rest.len() == 1 { "" } else { "s" }
        ));
        let hex: Vec<String> = rest.iter().map(|b| format!("{b:#04x}")).collect();
        out.push_str(&format!(
            "// trailing bytes at {:#06x}: {}\n",
            base + whole as u64,
            hex.join(" ")
        ));
    }
    (out, problems)
}

pub fn write_binary(path: &Path, words: &[u128]) -> std::io::Result<()> {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(path, bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn program_round_trips_through_binary() {
        let src = ".L_top:\n  S2R R1, SR_LANEID ;\n  @P0 BRA `(.L_top)\n  EXIT ;\n";
        let words = assemble("t.s", src).unwrap();
        assert_eq!(words.len(), 3);
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let (text, problems) = disassemble(&bytes, 0);
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(
            text,
            "/*0000*/  S2R R1, SR_LANEID ;\n/*0010*/  @P0 BRA 0x0 ;\n/*0020*/  EXIT ;\n"
        );
        // The disassembly assembles back to the same words.
        assert_eq!(assemble("t.s", &text).unwrap(), words);
    }

    #[test]
    fn bad_words_and_trailing_bytes_are_reported_and_kept() {
        let mut bytes = vec![0u8; 16];
        bytes.extend([1, 2, 3]);
        let (text, problems) = disassemble(&bytes, 0x100);
        assert_eq!(problems.len(), 2);
        assert!(
            problems[0].starts_with("offset 0x0: no opcode matches"),
            "{}",
            problems[0]
        );
        assert!(
            problems[1].starts_with("offset 0x10: 3 trailing bytes"),
            "{}",
            problems[1]
        );
        assert!(text.starts_with("/*0100*/  .word 0x00000000000000000000000000000000 ;"));
        // The `.word` line assembles back to the same word.
        assert_eq!(
            assemble("t.s", text.lines().next().unwrap()).unwrap(),
            vec![0]
        );
    }

    #[test]
    fn invalid_utf8_is_an_error_where_it_is_and_other_lines_are_still_checked() {
        let file = TextFile::from_bytes(b"NOP // caf\xe9\nEX\xffIT ;\nBOGUS R1 ;\nEXIT ;\n");
        let errs = assemble_file("p.s", &file).unwrap_err();
        assert_eq!(errs.len(), 2, "{errs:?}");
        assert_eq!(errs[0], "p.s:2:3: error: not UTF-8 text (byte 0xff)");
        assert!(errs[1].starts_with("p.s:3:1: error: "), "{}", errs[1]);
        // Invalid bytes in a comment are harmless.
        let file = TextFile::from_bytes(b"NOP // caf\xe9\nEXIT ;\n");
        assert_eq!(assemble_file("p.s", &file).unwrap().len(), 2);
    }

    #[test]
    fn errors_name_file_line_and_column() {
        let errs = assemble("p.s", "NOP\n  SHFL.UP P1, R1, R0, UR3, R2\n").unwrap_err();
        assert_eq!(errs.len(), 1);
        assert!(
            errs[0].starts_with(
                "p.s:2:23: error: `SHFL.UP` operand 4 (SrcB): expected a Reg or a UImm5, found UR3"
            ),
            "{}",
            errs[0]
        );
    }

    #[test]
    fn word_takes_one_hex_number_and_nothing_else() {
        let none = |_: &str| None;
        assert_eq!(assemble_line(".word 0x1_f", 0, &none).unwrap(), 0x1f);
        for bad in ["0x+1f", "0x0x1f", "0x", "1f", "-0x1", "0x1 0x2"] {
            let e = assemble_line(&format!(".word {bad}"), 0, &none).unwrap_err();
            assert_eq!(
                e.to_string(),
                format!("`.word` takes one hex number such as 0x1f, found `{bad}`"),
            );
        }
    }
}
