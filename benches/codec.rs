//! Throughput of the generated API, in instructions (or lines) per second: the rows
//! of `benches/README.md`. The instruction streams come from `benches/common` (random
//! defined field values from the spec model, fixed seed: every run measures the same
//! words).
//!
//! * `decode/*` (2^20 words): `Decoded::decode` on a plausible kernel mix (`mixed`),
//!   the same grouped by opcode (`mixed_sorted`, a diagnostic: every branch
//!   predicted), every opcode equally likely (`every_opcode`); `batch_mixed`:
//!   `Decoded::decode_batch`; `typed_mixed`: `Instruction::decode` (the typed enum);
//!   `typed_mixed_4096`: the short stream of earlier measurements;
//! * `encode/*`: `Instruction::encode` on the decoded streams, and
//!   `UiaddUu::encode` on one struct type;
//! * `facts/reads_writes_mixed`: `Instruction::reads` and `writes` on the decoded mix
//!   (what a liveness pass asks of each instruction);
//! * `stream/*`: summing and copying the same 2^20 words (what memory allows);
//! * `asm/*`: disassembly (decode + print to a reused `String`, 2^20 words), and the
//!   assembler on lines of the mixed stream (one line at a time, and as a program
//!   with labels through `isa_gen::asm::program`);
//! * `decode_subset/*`: `Instruction::decode` beside a decoder written by hand for 7
//!   opcodes (see [`hand`]), checked to agree exactly first;
//! * `buffer/*`: a program of 2^20 instructions with labels built through `CodeBuffer`.
//!
//! The same rows beside iced-x86, in one process: `benches/peer`.
//!
//! Run with `cargo bench --bench codec` (see `benches/README.md`).

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use isa::{DecodeError, Decoded, Instruction, Opcode, UiaddUu};
mod common;
use common::*;
use isa_gen::model::Model;

/// Words per stream of the peer comparison's rows.
const WORDS: usize = 1 << 20;

/// Words per short stream.
const STREAM_LEN: usize = 4096;

/// Lines of the assembler's input.
const LINES: usize = 1 << 16;

/// Words per long stream: too many for the branch predictor to learn the sequence
/// (see `benches/README.md`), as when decoding a large binary once.
const LONG_LEN: usize = 1 << 18;

/// The opcodes the hand-written decoder knows.
const SUBSET: &[&str] = &[
    "UIADD_UU", "UIADD_UI", "SHFL_RRR", "BRA_X", "EXIT_X", "ULDC_U", "S2R_I",
];

/// Only the opcodes of [`SUBSET`], equally likely, every field random.
fn subset_stream(model: &Model, len: usize, rng: &mut Rng) -> Vec<u128> {
    let ops = opcodes_where(model, |o| SUBSET.contains(&o.name.as_str()));
    assert_eq!(ops.len(), SUBSET.len());
    (0..len)
        .map(|_| random_word(model, ops[rng.below(ops.len())], 0, rng))
        .collect()
}

/// A decoder for the opcodes of [`SUBSET`], written the way one would by hand from
/// the spec: one match on the 12 opcode bits, the two 64-bit halves, shifts and masks,
/// the reserved-bit check, and validation only where a field type has undefined codes.
mod hand {
    use isa::*;

    /// Bits `start..start + width`.
    const fn span(start: u32, width: u32) -> u128 {
        ((1u128 << width) - 1) << start
    }

    // The bits each opcode's fields cover (the spec's `field<start, width>` lines).
    const OPCODE: u128 = span(0, 12);
    const GUARD: u128 = span(12, 4);
    const UIADD: u128 = OPCODE
        | GUARD
        | span(16, 6)
        | span(24, 6)
        | span(72, 1)
        | span(76, 1)
        | span(98, 4)
        | span(106, 3);
    pub const UIADD_UU: u128 = UIADD | span(32, 6) | span(97, 1);
    pub const UIADD_UI: u128 = UIADD | span(32, 32);
    pub const SHFL_RRR: u128 = OPCODE
        | GUARD
        | span(16, 8)
        | span(24, 8)
        | span(32, 8)
        | span(64, 8)
        | span(80, 2)
        | span(106, 3);
    pub const BRA_X: u128 = OPCODE | GUARD | span(32, 50) | span(82, 2) | span(98, 4);
    pub const EXIT_X: u128 = OPCODE | GUARD | span(98, 4);
    pub const ULDC_U: u128 =
        OPCODE | GUARD | span(16, 6) | span(24, 6) | span(32, 22) | span(80, 3);
    pub const S2R_I: u128 = OPCODE | GUARD | span(16, 8) | span(32, 8);

    // Every code of these widths is defined, so the conversions cannot fail.
    fn pred(x: u64) -> Pred {
        Pred::from_bits(x as u8 & 7).expect("3-bit Pred")
    }
    fn upred(x: u64) -> UPred {
        UPred::from_bits(x as u8 & 7).expect("3-bit UPred")
    }
    fn reg(x: u64) -> Reg {
        Reg::from_bits(x as u8).expect("8-bit Reg")
    }
    fn ureg(x: u64) -> UReg {
        UReg::from_bits(x as u8 & 0x3f).expect("6-bit UReg")
    }
    fn not(x: u64) -> PModi {
        if x & 1 == 0 {
            PModi::False
        } else {
            PModi::True
        }
    }
    fn neg(x: u64) -> SignModi {
        if x & 1 == 0 {
            SignModi::False
        } else {
            SignModi::True
        }
    }

    fn iext(x: u64) -> IExt {
        if x & 1 == 0 {
            IExt::NoX
        } else {
            IExt::X
        }
    }

    fn reserved(word: u128, covered: u128, opcode: Opcode) -> Result<(), DecodeError> {
        match word & !covered {
            0 => Ok(()),
            bits => Err(DecodeError::ReservedBits { opcode, bits }),
        }
    }

    pub fn decode(word: u128) -> Result<Instruction, DecodeError> {
        let lo = word as u64;
        let hi = (word >> 64) as u64;
        Ok(match lo & 0xfff {
            0x481 => {
                reserved(word, UIADD_UU, Opcode::UiaddUu)?;
                Instruction::UiaddUu(UiaddUu {
                    upg: upred(lo >> 12),
                    upg_not: not(lo >> 15),
                    urd: ureg(lo >> 16),
                    ura: ureg(lo >> 24),
                    ura_neg: neg(hi >> 8),
                    ext: iext(hi >> 12),
                    upp: upred(hi >> 34),
                    upp_not: not(hi >> 37),
                    upu: upred(hi >> 42),
                    urb: ureg(lo >> 32),
                    urb_neg: neg(hi >> 33),
                })
            }
            0x581 => {
                reserved(word, UIADD_UI, Opcode::UiaddUi)?;
                Instruction::UiaddUi(UiaddUi {
                    upg: upred(lo >> 12),
                    upg_not: not(lo >> 15),
                    urd: ureg(lo >> 16),
                    ura: ureg(lo >> 24),
                    ura_neg: neg(hi >> 8),
                    ext: iext(hi >> 12),
                    upp: upred(hi >> 34),
                    upp_not: not(hi >> 37),
                    upu: upred(hi >> 42),
                    vb: SImm32::from_bits_masked((lo >> 32) as u32),
                })
            }
            0x801 => {
                reserved(word, SHFL_RRR, Opcode::ShflRrr)?;
                Instruction::ShflRrr(ShflRrr {
                    pg: pred(lo >> 12),
                    pg_not: not(lo >> 15),
                    rd: reg(lo >> 16),
                    ra: reg(lo >> 24),
                    mode: match hi >> 16 & 3 {
                        0 => ShflMode::Idx,
                        1 => ShflMode::Up,
                        2 => ShflMode::Down,
                        _ => ShflMode::Bfly,
                    },
                    pu: pred(hi >> 42),
                    rb: reg(lo >> 32),
                    rc: reg(hi),
                })
            }
            0x040 => {
                reserved(word, BRA_X, Opcode::BraX)?;
                Instruction::BraX(BraX {
                    pg: pred(lo >> 12),
                    pg_not: not(lo >> 15),
                    offset: SImm50::from_bits_masked(lo >> 32 | hi << 32),
                    cond: match hi >> 18 & 3 {
                        0 => BraCond::NoCond,
                        1 => BraCond::U,
                        2 => BraCond::Div,
                        _ => BraCond::Conv,
                    },
                    pp: pred(hi >> 34),
                    pp_not: not(hi >> 37),
                })
            }
            0x045 => {
                reserved(word, EXIT_X, Opcode::ExitX)?;
                Instruction::ExitX(ExitX {
                    pg: pred(lo >> 12),
                    pg_not: not(lo >> 15),
                    pp: pred(hi >> 34),
                    pp_not: not(hi >> 37),
                })
            }
            0x180 => {
                reserved(word, ULDC_U, Opcode::UldcU)?;
                let code = (hi >> 16) as u8 & 7;
                // MEMDType defines codes 0..=6.
                let Some(dtype) = MemdType::from_bits(code) else {
                    return Err(DecodeError::InvalidField {
                        opcode: Opcode::UldcU,
                        field: "dtype",
                        value: code.into(),
                    });
                };
                Instruction::UldcU(UldcU {
                    upg: upred(lo >> 12),
                    upg_not: not(lo >> 15),
                    urd: ureg(lo >> 16),
                    vb: CMem::from_bits_masked((lo >> 32) as u32),
                    dtype,
                    ura: ureg(lo >> 24),
                })
            }
            0x220 => {
                reserved(word, S2R_I, Opcode::S2rI)?;
                let code = (lo >> 32) as u8;
                // SReg defines codes 0..=42 and 255.
                let Some(sreg) = SReg::from_bits(code) else {
                    return Err(DecodeError::InvalidField {
                        opcode: Opcode::S2rI,
                        field: "sreg",
                        value: code.into(),
                    });
                };
                Instruction::S2rI(S2rI {
                    pg: pred(lo >> 12),
                    pg_not: not(lo >> 15),
                    rd: reg(lo >> 16),
                    sreg,
                })
            }
            _ => return Err(DecodeError::UnknownOpcode { word }),
        })
    }
}

/// The hand-written dispatch (one match on the 12 opcode bits) over the generated
/// per-opcode `decode_fields`: a diagnostic that prices the out-of-line
/// `decode_fields` calls and the re-wrapping of their result.
fn hand_match_generated_fields(word: u128) -> Result<Instruction, DecodeError> {
    use isa::*;
    match word as u64 & 0xfff {
        0x481 => UiaddUu::decode_fields(word).map(Instruction::UiaddUu),
        0x581 => UiaddUi::decode_fields(word).map(Instruction::UiaddUi),
        0x801 => ShflRrr::decode_fields(word).map(Instruction::ShflRrr),
        0x040 => BraX::decode_fields(word).map(Instruction::BraX),
        0x045 => ExitX::decode_fields(word).map(Instruction::ExitX),
        0x180 => UldcU::decode_fields(word).map(Instruction::UldcU),
        0x220 => S2rI::decode_fields(word).map(Instruction::S2rI),
        _ => Err(DecodeError::UnknownOpcode { word }),
    }
}

/// The hand-written decoder must accept and reject exactly what the generated one
/// does (same `Ok` values, same errors) on its opcodes, and know no other opcode.
fn check_hand_decoder(subset: &[u128], rng: &mut Rng) {
    assert_eq!(hand::UIADD_UU, isa::UiaddUu::FIELD_MASK);
    assert_eq!(hand::UIADD_UI, isa::UiaddUi::FIELD_MASK);
    assert_eq!(hand::SHFL_RRR, isa::ShflRrr::FIELD_MASK);
    assert_eq!(hand::BRA_X, isa::BraX::FIELD_MASK);
    assert_eq!(hand::EXIT_X, isa::ExitX::FIELD_MASK);
    assert_eq!(hand::ULDC_U, isa::UldcU::FIELD_MASK);
    assert_eq!(hand::S2R_I, isa::S2rI::FIELD_MASK);
    let known: Vec<u128> = Opcode::ALL
        .iter()
        .filter(|o| SUBSET.contains(&o.name()))
        .map(|o| o.info().fixed_bits)
        .collect();
    let outcomes = std::cell::Cell::new((0usize, 0usize));
    let check = |w: u128| {
        let generated = Instruction::decode(w);
        let (ok, err) = outcomes.get();
        outcomes.set(if generated.is_ok() {
            (ok + 1, err)
        } else {
            (ok, err + 1)
        });
        let expected = if known.contains(&(w & 0xfff)) {
            generated
        } else {
            Err(DecodeError::UnknownOpcode { word: w })
        };
        assert_eq!(hand::decode(w), expected, "word {w:#034x}");
    };
    for &w in subset {
        check(w);
        // Every single-bit flip: each reserved bit, each field bit, the opcode bits.
        for bit in 0..128 {
            check(w ^ (1u128 << bit));
        }
        // Random values in every field at once (the opcode bits kept).
        let fields = Instruction::decode(w).unwrap().opcode().info().field_mask & !0xfff;
        for _ in 0..8 {
            check(w ^ (rng.bits(128) & fields));
        }
        // Every code of bits 32..40 (`sreg` of S2R) and 80..83 (`dtype` of ULDC).
        for code in 0..256u128 {
            check((w & !(0xffu128 << 32)) | code << 32);
            check((w & !(0x7u128 << 80)) | (code & 7) << 80);
        }
    }
    let (accepted, rejected) = outcomes.get();
    assert!(
        accepted > 0 && rejected > 0,
        "the checked words hit both outcomes"
    );
}

fn decode_all(words: &[u128], decode: impl Fn(u128) -> Result<Instruction, DecodeError>) -> u64 {
    let mut ok = 0u64;
    let mut sum = 0u64;
    for &w in words {
        let r = decode(w);
        // The whole result is observable (no field extraction can be optimized
        // away), without copying it out of the slot the decoder wrote it to.
        black_box(&r);
        if let Ok(i) = &r {
            ok += 1;
            sum += i.opcode() as u64;
        }
    }
    ok << 32 | sum
}

/// `Decoded::decode` over `words`: the count of words that decode, and the sum of
/// their opcodes (so nothing is optimized away).
fn decode_words(words: &[u128]) -> u64 {
    let mut ok = 0u64;
    let mut sum = 0u64;
    for &w in words {
        if let Ok(d) = Decoded::decode(w) {
            ok += 1;
            sum += d.opcode() as u64;
        }
    }
    ok << 32 | sum
}

fn decoded(words: &[u128]) -> Vec<Instruction> {
    words
        .iter()
        .map(|&w| Instruction::decode(w).expect("streams hold valid words"))
        .collect()
}

fn encode_all(instrs: &[Instruction]) -> u128 {
    instrs.iter().fold(0, |acc, i| acc ^ i.encode())
}

fn benches(c: &mut Criterion) {
    let model = load_model();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mixed = mixed_stream(&model, STREAM_LEN, &mut rng);
    let uniform = uniform_stream(&model, STREAM_LEN, &mut rng);
    let subset = subset_stream(&model, STREAM_LEN, &mut rng);
    let subset_long = subset_stream(&model, LONG_LEN, &mut rng);
    check_hand_decoder(&subset, &mut rng);
    for words in [&mixed, &uniform, &subset, &subset_long] {
        assert_eq!(
            decode_all(words, Instruction::decode) >> 32,
            words.len() as u64
        );
    }
    assert!(subset_long
        .iter()
        .all(|&w| hand::decode(w) == Instruction::decode(w)));
    let subset_sorted = sorted(&subset);
    let short = Throughput::Elements(STREAM_LEN as u64);
    let long = Throughput::Elements(LONG_LEN as u64);

    // The rows of the peer comparison (benches/peer), on streams of 2^20 words: too
    // long for the branch predictor to learn, as when a large binary is decoded once.
    let big = mixed_stream(&model, WORDS, &mut rng);
    let big_sorted = sorted(&big);
    let big_uniform = uniform_stream(&model, WORDS, &mut rng);
    let words_tp = Throughput::Elements(WORDS as u64);
    let mut g = c.benchmark_group("decode");
    g.throughput(words_tp.clone());
    g.sample_size(20);
    for (name, words) in [
        ("mixed", &big),
        ("mixed_sorted", &big_sorted),
        ("every_opcode", &big_uniform),
    ] {
        assert!(words.iter().all(|&w| Decoded::decode(w).is_ok()));
        g.bench_function(name, |b| b.iter(|| decode_words(black_box(words))));
    }
    let mut out = vec![None; WORDS];
    g.bench_function("batch_mixed", |b| {
        b.iter(|| {
            let bad = Decoded::decode_batch(black_box(&big), &mut out);
            black_box(&out);
            bad
        })
    });
    g.bench_function("iter_mixed", |b| {
        b.iter(|| {
            Decoded::decode_iter(black_box(&big))
                .flatten()
                .fold(0u64, |a, d| a + d.opcode() as u64)
        })
    });
    g.bench_function("typed_mixed", |b| {
        b.iter(|| decode_all(black_box(&big), Instruction::decode))
    });
    // The short stream of earlier measurements, replayed until the predictor knows it.
    g.throughput(short.clone());
    g.bench_function("typed_mixed_4096", |b| {
        b.iter(|| decode_all(black_box(&mixed), Instruction::decode))
    });
    g.finish();

    let big_instrs = decoded(&big);
    let sorted_instrs = decoded(&big_sorted);
    let uniform_instrs = decoded(&big_uniform);
    for (instrs, words) in [(&big_instrs, &big), (&uniform_instrs, &big_uniform)] {
        assert!(instrs
            .iter()
            .zip(words.iter())
            .all(|(i, &w)| i.encode() == w));
    }
    let uiadd: Vec<UiaddUu> = (0..STREAM_LEN)
        .map(|_| {
            let w = random_word(&model, Opcode::UiaddUu as usize, 0, &mut rng);
            UiaddUu::decode_fields(w).expect("valid UIADD_UU")
        })
        .collect();

    let mut g = c.benchmark_group("encode");
    g.throughput(words_tp.clone());
    g.sample_size(20);
    for (name, instrs) in [
        ("instruction_mixed", &big_instrs),
        ("instruction_every_opcode", &uniform_instrs),
        ("instruction_mixed_sorted", &sorted_instrs),
    ] {
        g.bench_function(name, |b| b.iter(|| encode_all(black_box(instrs))));
    }
    g.throughput(short.clone());
    g.bench_function("struct_uiadd_uu", |b| {
        b.iter(|| {
            black_box(&uiadd)
                .iter()
                .fold(0u128, |acc, i| acc ^ i.encode())
        })
    });
    g.finish();

    // The operand facts a liveness pass asks of every instruction, from the metadata.
    let mut g = c.benchmark_group("facts");
    g.throughput(short.clone());
    let facts = &big_instrs[..STREAM_LEN];
    g.bench_function("reads_writes_mixed", |b| {
        b.iter(|| {
            black_box(facts).iter().fold(0usize, |acc, i| {
                acc + i.reads().map(|r| r.file() as usize).sum::<usize>()
                    + i.writes().map(|r| r.file() as usize + 1).sum::<usize>()
            })
        })
    });
    g.finish();

    // What the machine can do with the same bytes at all.
    let mut g = c.benchmark_group("stream");
    g.throughput(words_tp);
    g.sample_size(20);
    g.bench_function("sum", |b| {
        b.iter(|| {
            black_box(&big)
                .iter()
                .fold(0u128, |a, &w| a.wrapping_add(w))
        })
    });
    let mut copy = vec![0u128; WORDS];
    g.bench_function("memcpy", |b| {
        b.iter(|| {
            copy.copy_from_slice(black_box(&big));
            black_box(&copy);
        })
    });
    g.finish();

    type Decoder = fn(u128) -> Result<Instruction, DecodeError>;
    let generated: Decoder = Instruction::decode;
    let hand_written: Decoder = hand::decode;
    let mut g = c.benchmark_group("decode_subset");
    g.throughput(short.clone());
    for (name, words, decode) in [
        ("generated", &subset, generated),
        ("hand_written", &subset, hand_written),
        ("generated_sorted", &subset_sorted, generated),
        ("hand_written_sorted", &subset_sorted, hand_written),
        (
            "hand_match_generated_fields_sorted",
            &subset_sorted,
            hand_match_generated_fields,
        ),
    ] {
        g.bench_function(name, |b| b.iter(|| decode_all(black_box(words), decode)));
    }
    g.throughput(long);
    for (name, decode) in [
        ("generated_long", generated),
        ("hand_written_long", hand_written),
    ] {
        g.bench_function(name, |b| {
            b.iter(|| decode_all(black_box(&subset_long), decode))
        });
    }
    g.finish();
}

/// Disassembly (decode + print) and assembly (parse a line) of the mixed stream.
fn asm_benches(c: &mut Criterion) {
    let model = load_model();
    let mut rng = Rng(0x5eed_a5a5_0000_0001);
    // Instructions that break the spec's `__Exception` conditions decode but do not
    // assemble, so they are left out of this stream.
    let words: Vec<u128> = mixed_stream(&model, LINES * 2, &mut rng)
        .into_iter()
        .filter(|&w| Instruction::decode(w).is_ok_and(|i| i.validate().is_ok()))
        .take(LINES)
        .collect();
    let lines: Vec<String> = words
        .iter()
        .enumerate()
        .map(|(k, &w)| {
            let i = Instruction::decode(w).expect("valid words decode");
            i.display_at(16 * k as u64).to_string()
        })
        .collect();
    // Every line assembles back to its word.
    for (k, (line, &w)) in lines.iter().zip(&words).enumerate() {
        let i = Instruction::parse_at(line, 16 * k as u64, &|_| None).expect("printed lines parse");
        assert_eq!(i.encode(), w, "{line}");
    }
    let mut g = c.benchmark_group("asm");
    g.sample_size(20);
    // Disassembly of the 2^20-word mixed stream, as the peer comparison runs it.
    let big = mixed_stream(&model, WORDS, &mut rng);
    g.throughput(Throughput::Elements(WORDS as u64));
    g.bench_function("disassemble_mixed", |b| {
        let mut buf = String::with_capacity(128);
        b.iter(|| {
            let mut total = 0usize;
            for (k, &w) in black_box(&big).iter().enumerate() {
                buf.clear();
                if let Ok(d) = Decoded::decode(w) {
                    let _ = d.write_asm(&mut buf, 16 * k as u64);
                }
                total += buf.len();
            }
            total
        })
    });
    g.throughput(Throughput::Elements(words.len() as u64));
    g.bench_function("assemble_mixed", |b| {
        b.iter(|| {
            let mut acc = 0u128;
            for (k, line) in black_box(&lines).iter().enumerate() {
                if let Ok(i) = Instruction::parse_at(line, 16 * k as u64, &|_| None) {
                    acc ^= i.encode();
                }
            }
            acc
        })
    });
    // A whole program through the two-pass program assembler (labels, columns), as
    // `isa asm` runs it: the stream, and the stream with every other line broken (the
    // error path must stay linear in the number of lines: each error's column is
    // counted on its own line).
    let program: String = lines.iter().map(|l| format!("{l} ;\n")).collect();
    let broken: String = lines
        .iter()
        .enumerate()
        .map(|(k, l)| {
            if k % 2 == 1 {
                format!("{l}, R1 ;\n")
            } else {
                format!("{l} ;\n")
            }
        })
        .collect();
    let assemble_program = |src: &str| {
        isa_gen::asm::program::assemble(src, 0, |text, addr, labels| {
            Instruction::parse_at(text, addr, labels)
                .map(|i| i.encode())
                .map_err(|e| {
                    isa_gen::asm::AsmError::new(e.start..e.end, e.display(text).to_string())
                })
        })
    };
    assert_eq!(assemble_program(&program).map(|v| v.len()), Ok(words.len()));
    assert_eq!(
        assemble_program(&broken).map_err(|e| e.len()),
        Err(words.len() / 2)
    );
    g.bench_function("assemble_program", |b| {
        b.iter(|| assemble_program(black_box(&program)))
    });
    g.bench_function("assemble_program_half_bad", |b| {
        b.iter(|| assemble_program(black_box(&broken)))
    });
    g.finish();
}

/// A program of 2^20 instructions built through `CodeBuffer`: the `mixed` stream with
/// every 8th instruction a `BRA` to one of the labels bound every 64 instructions
/// (forward and backward), resolved by `finish`, then encoded; beside plain encoding of
/// the same instructions into a vector.
fn buffer_benches(c: &mut Criterion) {
    use isa::backend::CodeBuffer;
    const N: usize = 1 << 20;
    let model = load_model();
    let mut rng = Rng(0x5bd1_e995_1234_5678);
    let body = decoded(&mixed_stream(&model, N, &mut rng));
    let bra: Instruction = Instruction::parse("BRA 0x0").expect("BRA parses");
    let n_labels = N / 64;
    let targets: Vec<usize> = (0..N / 8).map(|_| rng.below(n_labels)).collect();
    let build = |body: &[Instruction]| {
        let mut buf = CodeBuffer::new(0).expect("an aligned base");
        let labels: Vec<_> = (0..n_labels).map(|_| buf.new_label()).collect();
        for (k, insn) in body.iter().enumerate() {
            if k % 64 == 0 {
                buf.bind(labels[k / 64]).expect("bound once");
            }
            if k % 8 == 7 {
                buf.push_to(bra, labels[targets[k / 8]])
                    .expect("BRA takes a target");
            } else {
                buf.push(*insn);
            }
        }
        let code = buf.finish().expect("every target fits");
        code.words().fold(0u128, |acc, w| acc ^ w)
    };
    let plain: Vec<Instruction> = body
        .iter()
        .enumerate()
        .map(|(k, i)| if k % 8 == 7 { bra } else { *i })
        .collect();
    let mut g = c.benchmark_group("buffer");
    g.throughput(Throughput::Elements(N as u64));
    g.sample_size(10);
    g.bench_function("build_labels_encode_1m", |b| {
        b.iter(|| build(black_box(&body)))
    });
    g.bench_function("encode_1m", |b| {
        b.iter(|| {
            let words: Vec<u128> = black_box(&plain).iter().map(Instruction::encode).collect();
            words.iter().fold(0u128, |acc, w| acc ^ w)
        })
    });
    g.finish();
}

criterion_group!(codec, benches, asm_benches, buffer_benches);
criterion_main!(codec);
