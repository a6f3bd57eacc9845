//! Parsing one line of assembly against the model: the line is lexed and matched by
//! the engines of `isa-rt` (`isa_rt::lex`, `isa_rt::asm`), the ones the generated code
//! calls, against the forms of its mnemonic built from the model ([`super::forms`]).

use bumpalo::Bump;
use isa_rt::asm::OpcodeSpec;

use super::{AsmError, Assembler};
use crate::model::interp::Decoded;

/// The interpreting tier's error for the matcher's `e` on `line`: its place, its
/// message, and its notes apart (the matcher's words, as the generated tier says them).
fn located(e: &isa_rt::asm::AsmError<'_>, line: &str) -> AsmError {
    let mut err = AsmError::new(e.start..e.end, e.message(line).to_string());
    for n in 0..=u8::MAX {
        let note = e.note(line, n).to_string();
        if note.is_empty() {
            break;
        }
        err.notes.push(note);
    }
    err
}

/// Parses a line; also returns, for each written operand, the index of the operand
/// (in `Order` without the guard) it was read as.
pub(crate) fn parse_line(
    a: &Assembler,
    line: &str,
    addr: u64,
    labels: &dyn Fn(&str) -> Option<u64>,
) -> Result<(Decoded, Vec<usize>), AsmError> {
    let mut l = isa_rt::lex::Line::new(line);
    if let Err(e) = isa_rt::lex::lex_into(line, &mut l) {
        return Err(located(&e.into(), line));
    }
    let (m0, candidates) =
        isa_rt::asm::forms_of(&l, a.mnemonic_forms()).map_err(|e| located(&e, line))?;
    let bump = Bump::new();
    let forms = super::forms::Forms::new(&bump, a);
    let specs: Vec<OpcodeSpec<'_>> = candidates.iter().map(|&i| forms.opcode(i)).collect();
    let specs: Vec<&OpcodeSpec<'_>> = specs.iter().collect();
    let mut map = [0; isa_rt::lex::MAX_OPERANDS];
    match isa_rt::asm::assemble_mapped(&l, m0, &specs, addr, labels, &mut map) {
        Ok((word, c)) => {
            let d = a.model.decode_as(candidates[c], word).map_err(|_| {
                AsmError::new(
                    0..line.len(),
                    "internal error: the assembled word does not decode",
                )
            })?;
            let read_as = map[..l.nops].iter().map(|&k| usize::from(k)).collect();
            Ok((d, read_as))
        }
        Err(e) => Err(located(&e, line)),
    }
}
