//! The generated API beside iced-x86 in one process: the rows of `benches/README.md`
//! ("Peer comparison"), each timed once per round, rounds interleaved (so both sides
//! see the same machine load), medians reported.
//!
//! The x86 side works on real code: the `.text` section of this benchmark's own
//! executable (a release build of Rust: iced-x86, the generated API, std). Our side
//! works on the spec streams of `benches/common` (2^20 words: a plausible kernel mix,
//! the same grouped by opcode, and every opcode equally likely).
//!
//! `cargo bench --manifest-path benches/peer/Cargo.toml` (`ISA_PEER_ROUNDS`, default
//! 15, sets the number of rounds).

use std::hint::black_box;
use std::time::Instant;

#[path = "../common/mod.rs"]
mod common;
use common::*;

use iced_x86::{Decoder, DecoderOptions, Encoder, FastFormatter};
use isa::{Decoded, Instruction};

const WORDS: usize = 1 << 20;

/// One row: a name, the items one run handles, and the run.
struct Row<'a> {
    name: &'static str,
    items: usize,
    run: Box<dyn FnMut() -> u64 + 'a>,
    samples: Vec<f64>,
}

impl<'a> Row<'a> {
    fn new(name: &'static str, items: usize, run: impl FnMut() -> u64 + 'a) -> Row<'a> {
        Row {
            name,
            items,
            run: Box::new(run),
            samples: Vec::new(),
        }
    }

    /// Millions of items per second, at the median time.
    fn rate(&self) -> f64 {
        let mut s = self.samples.clone();
        s.sort_by(f64::total_cmp);
        self.items as f64 / s[s.len() / 2] / 1e6
    }
}

/// The `.text` section of this executable and its address.
fn x86_text() -> (Vec<u8>, u64) {
    use object::{Object, ObjectSection};
    let exe = std::env::current_exe().expect("the benchmark knows its executable");
    let data = std::fs::read(&exe).expect("the executable is readable");
    let file = object::File::parse(&*data).expect("the executable is an object file");
    let text = file.section_by_name(".text").expect("it has a .text section");
    (
        text.data().expect(".text has data").to_vec(),
        text.address(),
    )
}

fn main() {
    // `cargo bench` passes `--bench`; nothing else is understood.
    let rounds: usize = std::env::var("ISA_PEER_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(15);

    // -- our streams
    let model = load_model();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mixed = mixed_stream(&model, WORDS, &mut rng);
    let uniform = uniform_stream(&model, WORDS, &mut rng);
    let mixed_sorted = sorted(&mixed);
    let instrs: Vec<Instruction> = mixed
        .iter()
        .map(|&w| Instruction::decode(w).expect("the streams hold instructions"))
        .collect();
    // Lines for the assembler: the mixed stream printed (leaving out instructions that
    // break an `__Exception` condition: they decode but do not assemble), with a label
    // every 64 lines.
    let printable: Vec<&Instruction> = instrs.iter().filter(|i| i.validate().is_ok()).collect();
    let mut program = String::new();
    for (k, i) in printable.iter().enumerate() {
        if k % 64 == 0 {
            program.push_str(&format!(".L_{k}:\n"));
        }
        program.push_str(&format!("{} ;\n", i.display_at(16 * k as u64)));
    }
    let assemble = |src: &str| {
        isa_gen::asm::program::assemble(src, 0, |text, addr, labels| {
            Instruction::parse_at(text, addr, labels)
                .map(|i| i.encode())
                .map_err(|e| isa_gen::asm::AsmError::new(e.start..e.end, e.display(text).to_string()))
        })
    };
    assert_eq!(
        assemble(&program).map(|v| v.len()).ok(),
        Some(printable.len()),
        "the program assembles"
    );

    // -- x86
    let (text, ip) = x86_text();
    let x86: Vec<iced_x86::Instruction> = Decoder::with_ip(64, &text, ip, DecoderOptions::NONE)
        .into_iter()
        .collect();
    let x86_encodable: Vec<iced_x86::Instruction> = x86
        .iter()
        .filter(|i| !i.is_invalid())
        .copied()
        .collect();

    let mut out = vec![None; WORDS];
    let mut rows = vec![
        Row::new("decode mixed: Decoded::decode", WORDS, || {
            let mut acc = 0u64;
            for &w in black_box(&mixed) {
                if let Ok(d) = Decoded::decode(w) {
                    acc += d.opcode() as u64;
                }
            }
            acc
        }),
        Row::new("decode mixed: decode_batch", WORDS, || {
            let bad = Decoded::decode_batch(black_box(&mixed), &mut out);
            black_box(&out);
            bad as u64
        }),
        Row::new("decode mixed: Instruction::decode (typed)", WORDS, || {
            let mut acc = 0u64;
            for &w in black_box(&mixed) {
                let r = Instruction::decode(w);
                black_box(&r);
                acc += r.is_ok() as u64;
            }
            acc
        }),
        Row::new("decode sorted by opcode: Decoded::decode", WORDS, || {
            let mut acc = 0u64;
            for &w in black_box(&mixed_sorted) {
                if let Ok(d) = Decoded::decode(w) {
                    acc += d.opcode() as u64;
                }
            }
            acc
        }),
        Row::new("decode every opcode: Decoded::decode", WORDS, || {
            let mut acc = 0u64;
            for &w in black_box(&uniform) {
                if let Ok(d) = Decoded::decode(w) {
                    acc += d.opcode() as u64;
                }
            }
            acc
        }),
        Row::new("iced-x86 decode (.text)", x86.len(), || {
            let mut d = Decoder::with_ip(64, black_box(&text), ip, DecoderOptions::NONE);
            let mut i = iced_x86::Instruction::default();
            let mut acc = 0u64;
            while d.can_decode() {
                d.decode_out(&mut i);
                acc += i.code() as u64;
            }
            acc
        }),
        Row::new("encode mixed: Instruction::encode", WORDS, || {
            black_box(&instrs).iter().fold(0u128, |a, i| a ^ i.encode()) as u64
        }),
        Row::new("iced-x86 Encoder (.text)", x86_encodable.len(), || {
            let mut e = Encoder::new(64);
            let mut n = 0u64;
            for i in black_box(&x86_encodable) {
                n += e.encode(i, i.ip()).unwrap_or(0) as u64;
            }
            black_box(e.take_buffer()).len() as u64 + n
        }),
        Row::new("disassemble mixed: decode + print", WORDS, || {
            let mut s = String::with_capacity(128);
            let mut total = 0u64;
            for (k, &w) in black_box(&mixed).iter().enumerate() {
                s.clear();
                if let Ok(d) = Decoded::decode(w) {
                    let _ = d.write_asm(&mut s, 16 * k as u64);
                }
                total += s.len() as u64;
            }
            total
        }),
        Row::new("iced-x86 decode + FastFormatter (.text)", x86.len(), || {
            let mut d = Decoder::with_ip(64, black_box(&text), ip, DecoderOptions::NONE);
            let mut f = FastFormatter::new();
            let mut i = iced_x86::Instruction::default();
            let mut s = String::with_capacity(128);
            let mut total = 0u64;
            while d.can_decode() {
                d.decode_out(&mut i);
                s.clear();
                f.format(&i, &mut s);
                total += s.len() as u64;
            }
            total
        }),
        Row::new("assemble: program text with labels", printable.len(), || {
            assemble(black_box(&program)).map_or(0, |v| v.len() as u64)
        }),
        Row::new("stream limit: sum of the words", WORDS, || {
            black_box(&mixed).iter().fold(0u128, |a, &w| a.wrapping_add(w)) as u64
        }),
    ];

    for _ in 0..rounds {
        for r in rows.iter_mut() {
            let t = Instant::now();
            black_box((r.run)());
            r.samples.push(t.elapsed().as_secs_f64());
        }
    }

    let rate = |name: &str| rows.iter().find(|r| r.name == name).map(Row::rate).unwrap_or(f64::NAN);
    println!("{rounds} rounds, medians; M items/s (instructions, lines for the assembler)\n");
    println!("| row | M/s |");
    println!("| --- | ---: |");
    for r in &rows {
        println!("| {} | {:.1} |", r.name, r.rate());
    }
    let iced = rate("iced-x86 decode (.text)");
    println!("\n| goal | figure | ratio | bar |");
    println!("| --- | --- | ---: | ---: |");
    let ratio = |what: &str, a: f64, b: f64, bar: &str| {
        println!("| {what} | {a:.1} / {b:.1} | {:.2} | {bar} |", a / b);
    };
    ratio("decode, single word vs iced-x86", rate("decode mixed: Decoded::decode"), iced, ">= 3");
    ratio("decode, batch vs iced-x86", rate("decode mixed: decode_batch"), iced, ">= 6");
    ratio("typed decode vs iced-x86", rate("decode mixed: Instruction::decode (typed)"), iced, "");
    ratio(
        "every opcode / mixed",
        rate("decode every opcode: Decoded::decode"),
        rate("decode mixed: Decoded::decode"),
        ">= 0.83 (within 1.2x)",
    );
    ratio(
        "disassemble vs iced-x86 FastFormatter",
        rate("disassemble mixed: decode + print"),
        rate("iced-x86 decode + FastFormatter (.text)"),
        ">= 2",
    );
    ratio("encode vs iced-x86 Encoder", rate("encode mixed: Instruction::encode"), rate("iced-x86 Encoder (.text)"), "");
    println!(
        "| assemble, M lines/s | {:.2} | | >= 5 |",
        rate("assemble: program text with labels")
    );
    println!("\nx86 .text: {} bytes, {} instructions", text.len(), x86.len());
}
