//! Oracle of the `decode` target: the generated decoder on arbitrary words, against
//! the model's interpreting decoder (the oracle tier).
//!
//! The input is cut into 16-byte little-endian words (the last one zero-padded). For
//! each word, and again for the word with the bits its matched opcode does not cover
//! cleared (so that field validity, not reserved bits, decides), the check is:
//!
//! - the generated `Instruction::decode` and `Model::decode` agree on acceptance, the
//!   opcode and the failure reason (`UnknownOpcode` / `ReservedBits` with the same bits /
//!   `InvalidField` with the same field and value), and `decode_fields` agrees;
//! - an accepted word re-encodes bit-exactly in both tiers;
//! - printing never panics, both tiers print the same text at the same address, and
//!   both assemblers read that text back to the same word, unless a spec
//!   `__Exception` holds for the instruction (the assembler rejects those);
//! - every other view of an instruction (`Debug`, metadata, `reads`/`writes`,
//!   `bitwidth`, `validate`) and the error's `Display` do not panic.

use std::sync::OnceLock;

use isa::{DecodeError, Instruction};
use isa_gen::asm::Assembler;
use isa_gen::model::interp::DecodeFailure;
use isa_gen::model::Model;

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

/// Checks every word of the input.
pub fn check(data: &[u8]) {
    let m = model();
    for chunk in data.chunks(16) {
        let mut bytes = [0u8; 16];
        bytes[..chunk.len()].copy_from_slice(chunk);
        let word = u128::from_le_bytes(bytes);
        check_word(word);
        if let Some(i) = m.match_opcode(word) {
            check_word(word & m.opcodes[i].covered);
        }
    }
}

/// Checks one word (see the module docs).
pub fn check_word(word: u128) {
    let m = model();
    let generated = Instruction::decode(word);
    let oracle = m.decode(word);
    match (&generated, &oracle) {
        (Ok(insn), Ok(d)) => {
            assert_eq!(
                insn.opcode().name(),
                m.opcodes[d.opcode].name,
                "{word:#034x}"
            );
            assert_eq!(insn.encode(), word, "{word:#034x}: generated re-encoding");
            assert_eq!(m.encode(d), word, "{word:#034x}: model re-encoding");
            check_text(word, insn, d);
        }
        (Err(DecodeError::UnknownOpcode { word: w }), Err(DecodeFailure::NoOpcode)) => {
            assert_eq!(*w, word);
        }
        (
            Err(DecodeError::ReservedBits { opcode, bits }),
            Err(DecodeFailure::ReservedBits { opcode: o, bits: b }),
        ) => {
            assert_eq!(opcode.name(), m.opcodes[*o].name, "{word:#034x}");
            assert_eq!(bits, b, "{word:#034x}");
        }
        (
            Err(DecodeError::InvalidField {
                opcode,
                field,
                value,
            }),
            Err(DecodeFailure::InvalidField {
                opcode: o,
                field: f,
                value: v,
            }),
        ) => {
            assert_eq!(opcode.name(), m.opcodes[*o].name, "{word:#034x}");
            assert_eq!(*field, m.opcodes[*o].fields[*f].name, "{word:#034x}");
            assert_eq!(value, v, "{word:#034x}");
        }
        _ => panic!("{word:#034x}: generated decoder says {generated:?}, model says {oracle:?}"),
    }
    if let Err(e) = &generated {
        let _ = e.to_string();
    }
    if let Some(i) = m.match_opcode(word) {
        let opcode: isa::Opcode = m.opcodes[i]
            .name
            .parse()
            .expect("every model opcode has a generated one");
        let info = opcode.info();
        assert_eq!(word & info.fixed_mask, info.fixed_bits);
        let _ = format!("{opcode} {opcode:?}");
    }
}

/// Printing and re-assembling an accepted word, in both tiers.
fn check_text(word: u128, insn: &Instruction, d: &isa_gen::model::interp::Decoded) {
    let m = model();
    let asm = assembler();
    let _ = format!("{insn:?} {insn}");
    let _ = insn.reads().count() + insn.writes().count();
    for f in insn.opcode().info().fields {
        let _ = insn.bitwidth(f.name);
    }
    let invalid = insn.validate().is_err();
    // Two addresses: 0, and one taken from the word so branch targets move around.
    for addr in [0, (((word >> 96) as u64) & 0xffff_fff0) << 4] {
        let text = insn.display_at(addr).to_string();
        assert_eq!(
            text,
            asm.print(d, addr),
            "{word:#034x} at {addr:#x}: the two printers differ"
        );
        match Instruction::parse_at(&text, addr, &|_| None) {
            Ok(back) => assert_eq!(back.encode(), word, "`{text}` at {addr:#x} (generated)"),
            Err(e) => assert!(
                invalid,
                "`{text}` at {addr:#x} does not assemble (generated): {}",
                e.display(&text)
            ),
        }
        match asm.parse_line(&text, addr, &|_| None) {
            Ok(back) => assert_eq!(m.encode(&back), word, "`{text}` at {addr:#x} (model)"),
            Err(e) => assert!(
                invalid,
                "`{text}` at {addr:#x} does not assemble (model): {e}"
            ),
        }
    }
}
