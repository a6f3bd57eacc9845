//! Comparing a generated decoder with the model, word by word: what each said of a
//! word, as a `Verdict`. Used by `tests/asm.rs` (on the other specs) and by
//! `scripts/lint-specs.sh --decode` (on specs the fuzzer found), each with the generated
//! modules in scope by name.

use isa_gen::model::Model;

/// What a decoder said of a word, comparable across the tiers: the opcode's spec name,
/// or the reason (with the opcode, and the bits or the field's name and value).
#[derive(Debug, PartialEq)]
pub enum Verdict {
    Ok(String),
    NoOpcode,
    Reserved(String, u128),
    Invalid(String, String, u128),
}

/// What the model (`isa_gen`'s interpreting decoder) says of `w`.
pub fn model_verdict(m: &Model, w: u128) -> Verdict {
    use isa_gen::model::interp::DecodeFailure;
    match m.decode(w) {
        Ok(d) => Verdict::Ok(m.opcodes[d.opcode].name.clone()),
        Err(DecodeFailure::NoOpcode) => Verdict::NoOpcode,
        Err(DecodeFailure::ReservedBits { opcode, bits }) => {
            Verdict::Reserved(m.opcodes[opcode].name.clone(), bits)
        }
        Err(DecodeFailure::InvalidField {
            opcode,
            field,
            value,
        }) => Verdict::Invalid(
            m.opcodes[opcode].name.clone(),
            m.opcodes[opcode].fields[field].name.clone(),
            value,
        ),
    }
}

/// The generated decoder of a spec, as a function giving its verdict (after checking
/// that `Decoded::decode`, `Instruction::decode` and `decode_batch` agree, and that an
/// accepted word encodes back to itself).
macro_rules! generated_verdict {
    ($m:ident) => {
        |w: u128| -> Verdict {
            let d = $m::Decoded::decode(w);
            let i = $m::Instruction::decode(w);
            let mut batch = [None];
            $m::Decoded::decode_batch(&[w], &mut batch);
            assert_eq!(batch[0], d.ok(), "{w:#x}");
            match (d, i) {
                (Ok(d), Ok(i)) => {
                    assert_eq!(d.instruction(), i, "{w:#x}");
                    assert_eq!(i.encode(), w, "{w:#x}");
                    assert_eq!(d.word(), w, "{w:#x}");
                    Verdict::Ok(d.opcode().name().to_string())
                }
                (Err(e), Err(f)) => {
                    assert_eq!(e, f, "{w:#x}");
                    match e {
                        $m::DecodeError::UnknownOpcode { word } => {
                            assert_eq!(word, w);
                            Verdict::NoOpcode
                        }
                        $m::DecodeError::ReservedBits { opcode, bits } => {
                            Verdict::Reserved(opcode.name().to_string(), bits)
                        }
                        $m::DecodeError::InvalidField {
                            opcode,
                            field,
                            value,
                        } => Verdict::Invalid(opcode.name().to_string(), field.to_string(), value),
                    }
                }
                (d, i) => panic!("{w:#x}: Decoded {d:?} but Instruction {i:?}"),
            }
        }
    };
}
