//! `scripts/lint-specs.sh --decode`: each spec's generated decoder against the model,
//! word by word. The script puts this file beside copies of `tests/common/mod.rs` and
//! `tests/common/verdict.rs` (the same helpers the workspace's tests use) and writes
//! `specs.rs`: `SPECS`, each spec's file and its generated decoder as a function giving
//! its verdict (a [`Decoder`]). `.ci/run` compiles, clippies and runs it on one spec.

// common.rs allows its own dead code (each user takes part of it).
#[path = "common.rs"]
mod common;
#[macro_use]
#[path = "verdict.rs"]
mod verdict;

use common::{legal, Rng};
use lint_specs::*;
use verdict::{model_verdict, Verdict};

/// A spec's generated decoder, as the verdict it gives a word.
type Decoder = fn(u128) -> Verdict;

include!(concat!(env!("CARGO_MANIFEST_DIR"), "/specs.rs"));

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
                let w = m.encode(&legal(&m, i, &mut rng));
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
