//! Oracle of the `asm` target: both assemblers on arbitrary text.
//!
//! The input is read as text (invalid UTF-8 replaced). Each of its lines is assembled at
//! its own address by the generated assembler (`Instruction::parse_at`) and by the
//! interpreting one (`Assembler::parse_line`), with `.L…` labels resolving to addresses
//! derived from their names and every other label undefined:
//!
//! - the two tiers agree: both accept with the same word, or both reject at the same
//!   column;
//! - whatever is accepted prints (both printers give the same text), and that text
//!   assembles again, in both tiers, to the same word;
//! - errors render without panicking.
//!
//! The whole input is then assembled as a program (`asm::program::assemble`, labels,
//! address prefixes) with each tier's line assembler: both succeed with the same words
//! or both fail on the same lines.

use std::sync::OnceLock;

use isa::Instruction;
use isa_gen::asm::program::{self, ProgramError};
use isa_gen::asm::{AsmError, Assembler};
use isa_gen::model::Model;

/// Lines checked one by one (the program check sees the whole input).
const MAX_LINES: usize = 64;

fn model() -> &'static Model {
    static MODEL: OnceLock<Model> = OnceLock::new();
    MODEL.get_or_init(|| {
        let checked = isa_gen::Spec::load(&[isa_spec::DIR])
            .expect("spec files are readable")
            .check();
        checked.model.expect("the bundled spec checks")
    })
}

fn assembler() -> &'static Assembler<'static> {
    static ASM: OnceLock<Assembler<'static>> = OnceLock::new();
    ASM.get_or_init(|| Assembler::new(model()))
}

/// `.L…` labels resolve to an address taken from their name (some of them far away,
/// some misaligned); other names are undefined.
fn label(name: &str) -> Option<u64> {
    if !name.starts_with(".L") {
        return None;
    }
    let h = name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    Some(match h % 4 {
        0 => (h >> 8) & 0xfff0,
        1 => (h >> 8) & 0xffff,
        2 => h >> 8,
        _ => 0,
    })
}

pub fn check(data: &[u8]) {
    let src = String::from_utf8_lossy(data);
    for (k, line) in src.lines().take(MAX_LINES).enumerate() {
        check_line(line, 0x1000 + 16 * k as u64);
    }
    check_program(&src);
}

/// Checks one line at `addr` (see the module docs).
pub fn check_line(line: &str, addr: u64) {
    let m = model();
    let asm = assembler();
    let interp = asm.parse_line(line, addr, &label);
    let generated = Instruction::parse_at(line, addr, &label);
    match (&interp, &generated) {
        (Ok(d), Ok(insn)) => {
            let word = m.encode(d);
            assert_eq!(
                insn.encode(),
                word,
                "{line:?} at {addr:#x}: the tiers differ"
            );
            reassemble(word, addr);
        }
        (Err(a), Err(b)) => {
            let _ = b.display(line).to_string();
            assert_eq!(
                a.column(line),
                b.column(line),
                "{line:?} at {addr:#x}: model says {a}, generated says {}",
                b.display(line)
            );
        }
        _ => panic!(
            "{line:?} at {addr:#x}: model {:?} vs generated {:?}",
            interp
                .as_ref()
                .map(|d| m.encode(d))
                .map_err(|e| e.to_string()),
            generated
                .as_ref()
                .map(|i| i.encode())
                .map_err(|e| e.display(line).to_string())
        ),
    }
}

/// An accepted word prints the same in both tiers and that text assembles back to it.
fn reassemble(word: u128, addr: u64) {
    let m = model();
    let asm = assembler();
    let insn = Instruction::decode(word).expect("an assembled word decodes");
    assert!(
        insn.validate().is_ok(),
        "{insn:?}: assembled despite an exception"
    );
    let d = m
        .decode(word)
        .expect("an assembled word decodes in the model");
    let text = insn.display_at(addr).to_string();
    assert_eq!(
        text,
        asm.print(&d, addr),
        "{word:#034x}: the printers differ"
    );
    let back = Instruction::parse_at(&text, addr, &|_| None)
        .unwrap_or_else(|e| panic!("printed `{text}` does not assemble: {}", e.display(&text)));
    assert_eq!(
        back.encode(),
        word,
        "printed `{text}` reads back as another word"
    );
    let back = asm
        .parse_line(&text, addr, &|_| None)
        .unwrap_or_else(|e| panic!("printed `{text}` does not assemble (model): {e}"));
    assert_eq!(
        m.encode(&back),
        word,
        "printed `{text}` reads back as another word (model)"
    );
}

type Assembled = Result<Vec<(u64, u128)>, Vec<ProgramError>>;

/// The whole text as a program, in both tiers.
fn check_program(src: &str) {
    let m = model();
    let asm = assembler();
    let interp: Assembled = program::assemble(src, 0, |l, a, labels| {
        asm.parse_line(l, a, labels).map(|d| m.encode(&d))
    });
    let generated: Assembled = program::assemble(src, 0, |l, a, labels| {
        Instruction::parse_at(l, a, labels)
            .map(|i| i.encode())
            .map_err(|e| AsmError::new(e.start..e.end, e.display(l).to_string()))
    });
    match (&interp, &generated) {
        (Ok(a), Ok(b)) => assert_eq!(a, b, "the tiers assemble the program differently"),
        (Err(a), Err(b)) => {
            let lines = |v: &[ProgramError]| v.iter().map(|e| e.line).collect::<Vec<_>>();
            assert_eq!(lines(a), lines(b), "the tiers reject different lines");
        }
        _ => panic!("program: model {interp:?} vs generated {generated:?}"),
    }
}
