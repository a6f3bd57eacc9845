//! `scripts/lint-specs.sh --decode`: each spec's generated decoder against the model,
//! word by word. The script writes `specs.rs` beside this file: `SPECS`, each spec's file
//! and its generated decoder as a function giving its verdict.

use isa_gen::model::interp::{DecodeFailure, Decoded};
use isa_gen::model::{Model, Role, TypeKind};

/// What a decoder said of a word, comparable across the tiers: the opcode's index, or
/// the reason (with the opcode, and the bits or the field's name and value).
#[derive(Debug, PartialEq)]
enum Verdict {
    Ok(usize),
    NoOpcode,
    Reserved(usize, u128),
    Invalid(usize, String, u128),
}

/// The generated decoder of module `$m`, as a verdict, after checking that
/// `Decoded::decode`, `Instruction::decode` and `decode_batch` agree and that an
/// accepted word encodes back to itself.
macro_rules! generated {
    ($m:ident) => {
        |w: u128| -> Verdict {
            use lint_specs::$m as g;
            let d = g::Decoded::decode(w);
            let i = g::Instruction::decode(w);
            let mut batch = [None];
            g::Decoded::decode_batch(&[w], &mut batch);
            assert_eq!(batch[0], d.ok(), "{w:#x}");
            match (d, i) {
                (Ok(d), Ok(i)) => {
                    assert_eq!(d.instruction(), i, "{w:#x}");
                    assert_eq!(i.encode(), w, "{w:#x}");
                    Verdict::Ok(d.opcode() as usize)
                }
                (Err(e), Err(f)) => {
                    assert_eq!(e, f, "{w:#x}");
                    match e {
                        g::DecodeError::UnknownOpcode { .. } => Verdict::NoOpcode,
                        g::DecodeError::ReservedBits { opcode, bits } => {
                            Verdict::Reserved(opcode as usize, bits)
                        }
                        g::DecodeError::InvalidField {
                            opcode,
                            field,
                            value,
                        } => Verdict::Invalid(opcode as usize, field.to_string(), value),
                    }
                }
                (d, i) => panic!("{w:#x}: Decoded {d:?} but Instruction {i:?}"),
            }
        }
    };
}

include!(concat!(env!("CARGO_MANIFEST_DIR"), "/specs.rs"));

fn model_verdict(m: &Model, w: u128) -> Verdict {
    match m.decode(w) {
        Ok(d) => Verdict::Ok(d.opcode),
        Err(DecodeFailure::NoOpcode) => Verdict::NoOpcode,
        Err(DecodeFailure::ReservedBits { opcode, bits }) => Verdict::Reserved(opcode, bits),
        Err(DecodeFailure::InvalidField {
            opcode,
            field,
            value,
        }) => Verdict::Invalid(opcode, m.opcodes[opcode].fields[field].name.clone(), value),
    }
}

/// xorshift64*: failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn word(&mut self) -> u128 {
        (u128::from(self.next()) << 64) | u128::from(self.next())
    }
}

/// A word of opcode `i` whose fields hold defined codes where a few tries find one.
fn legal_word(m: &Model, i: usize, rng: &mut Rng) -> u128 {
    let op = &m.opcodes[i];
    let values = op
        .fields
        .iter()
        .map(|f| match f.role {
            Role::Fixed(c) => c,
            _ => {
                let t = m.ty(f.ty);
                let top = isa_gen::model::mask(0, f.width);
                if let TypeKind::Enum(vs) = &t.kind {
                    if !vs.is_empty() {
                        return vs[rng.next() as usize % vs.len()].code & top;
                    }
                }
                (0..64)
                    .map(|k| (u128::from(rng.next()) & top) >> (k % 8 * 4))
                    .find(|&c| t.is_valid_code(c))
                    .unwrap_or(0)
            }
        })
        .collect();
    m.encode(&Decoded { opcode: i, values })
}

fn main() {
    let mut failed = 0;
    for &(path, generated) in SPECS {
        let model = isa_gen::Spec::load(&[path])
            .ok()
            .and_then(|s| s.check().model);
        let Some(m) = model else {
            eprintln!("{path}: does not load");
            failed += 1;
            continue;
        };
        let mut rng = Rng(0x5eed_0dec_0de0_0002);
        let mut words = Vec::new();
        for (i, op) in m.opcodes.iter().enumerate() {
            for _ in 0..32 {
                let w = legal_word(&m, i, &mut rng);
                words.push(w);
                words.extend((0..128).map(|b| w ^ (1u128 << b)));
                let r = rng.word();
                words.push(op.fixed_bits | (r & !op.fixed_mask));
                words.push(op.fixed_bits | (r & !op.fixed_mask & op.covered));
            }
        }
        words.extend((0..10_000).map(|_| rng.word()));
        let mut accepted = 0;
        let mut bad = 0;
        for &w in &words {
            let (got, want) = (generated(w), model_verdict(&m, w));
            accepted += usize::from(matches!(want, Verdict::Ok(_)));
            if got != want {
                if bad < 3 {
                    eprintln!("{path}: {w:#034x}: generated {got:?}, model {want:?}");
                }
                bad += 1;
            }
        }
        println!(
            "{path}: {} words ({accepted} instructions), {bad} disagreements",
            words.len()
        );
        failed += usize::from(bad > 0);
    }
    if failed > 0 {
        eprintln!("lint-specs.sh: {failed} specs' decoders disagree with the model");
        std::process::exit(1);
    }
}
