//! The generated assembly printer agrees with the interpreting one (isa-gen's model
//! tier) on random instructions of every opcode, at random addresses.

use isa::Instruction;
use isa_gen::asm::Assembler;
use isa_gen::model::interp::Decoded;
use isa_gen::model::{Model, Role, TypeKind};
use std::sync::OnceLock;

// `Verdict`, `model_verdict` and `generated_verdict!` (shared with
// `scripts/lint-specs.sh --decode`).
#[macro_use]
#[path = "common/verdict.rs"]
mod verdict;
use verdict::{model_verdict, Verdict};

fn model() -> &'static Model {
    static M: OnceLock<Model> = OnceLock::new();
    M.get_or_init(|| {
        isa_gen::Spec::load(&[isa_spec::DIR])
            .expect("spec loads")
            .check()
            .model
            .expect("spec checks")
    })
}

/// A small deterministic PRNG (xorshift64*), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

/// A random legal instruction of opcode `i`: every field holds a code its type defines.
fn random_instruction(m: &Model, i: usize, rng: &mut Rng) -> Decoded {
    let op = &m.opcodes[i];
    let values = op
        .fields
        .iter()
        .map(|f| match f.role {
            Role::Fixed(c) => c,
            _ => {
                let t = m.ty(f.ty);
                match &t.kind {
                    TypeKind::Enum(vs) => vs[rng.next() as usize % vs.len()].code,
                    _ => loop {
                        let c = (rng.next() as u128) & isa_gen::model::mask(0, f.width);
                        // Bias towards defaults and small values, where printing differs.
                        let c = match rng.next() % 4 {
                            0 => f.default.unwrap_or(c),
                            1 => c & 0x7,
                            _ => c,
                        };
                        if t.is_valid_code(c) {
                            break c;
                        }
                    },
                }
            }
        })
        .collect();
    Decoded { opcode: i, values }
}

#[test]
fn generated_printer_agrees_with_the_model_on_every_opcode() {
    let m = model();
    let asm = Assembler::new(m);
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for i in 0..m.opcodes.len() {
        for _ in 0..300 {
            let d = random_instruction(m, i, &mut rng);
            let word = m.encode(&d);
            let insn = Instruction::decode(word).expect("legal word decodes");
            let addr = (rng.next() % 0x10000) * 16;
            let expected = asm.print(&d, addr);
            assert_eq!(
                insn.display_at(addr).to_string(),
                expected,
                "{} at {addr:#x}",
                m.opcodes[i].name
            );
            if addr == 0 {
                assert_eq!(insn.to_string(), expected);
            }
            // The generated parser reads it back to the same instruction.
            match Instruction::parse_at(&expected, addr, &|_| None) {
                Ok(p) => assert_eq!(p, insn, "{expected}"),
                Err(e) => assert!(
                    insn.validate().is_err(),
                    "{expected}: {}",
                    e.display(&expected)
                ),
            }
            // And the text parses back to the same instruction (interpreting tier).
            let back = asm.parse_line(&expected, addr, &|_| None);
            if d.values.len() == back.as_ref().map_or(0, |b| b.values.len()) {
                assert_eq!(back.as_ref().ok(), Some(&d), "{expected}");
            } else if let Err(e) = back {
                // Only the spec's exception conditions may reject a printed instruction.
                assert!(insn.validate().is_err(), "{expected}: {e}");
            }
        }
    }
}

#[test]
fn printing_follows_the_documented_rules() {
    use isa::*;
    let shfl = ShflRri {
        pg: Pred::new(0).unwrap(),
        pg_not: PModi::True,
        rd: Reg::new(1).unwrap(),
        ra: Reg::new(0).unwrap(),
        mode: ShflMode::Up,
        pu: Pred::PT,
        rb: Reg::new(2).unwrap(),
        vc: UImm13::new(0x1f).unwrap(),
    };
    assert_eq!(shfl.to_string(), "@!P0 SHFL.UP PT, R1, R0, R2, 0x1f");
    let bra = BraX::new(SImm50::new(0xf).unwrap());
    // target = pc + 16 + offset * 16
    assert_eq!(
        Instruction::from(bra).display_at(0x10).to_string(),
        "BRA 0x110"
    );
    let uldc = UldcU {
        upg: UPred::UPT,
        upg_not: PModi::False,
        urd: UReg::new(1).unwrap(),
        vb: CMem::new(1, -1).unwrap(),
        dtype: MemdType::S8,
        ura: UReg::new(4).unwrap(),
    };
    assert_eq!(uldc.to_string(), "ULDC.S8 UR1, c[0x1][UR4-0x1]");
    let uldc0 = UldcU {
        ura: UReg::URZ,
        vb: CMem::new(0, 0x160).unwrap(),
        dtype: MemdType::V32,
        ..uldc
    };
    assert_eq!(uldc0.to_string(), "ULDC UR1, c[0x0][0x160]");
}

/// Every `__Examples` line of the spec, as written.
fn example_lines(m: &Model) -> Vec<String> {
    use isa_gen::syntax::ast::DocKind;
    let mut out = Vec::new();
    for d in &m.defs {
        for s in d.docs.iter().filter(|s| s.kind == DocKind::Examples) {
            for l in s.code_blocks.iter().flat_map(|b| &b.lines) {
                let t = isa_gen::asm::lex::strip_comment(&l.text).trim();
                if !t.is_empty() {
                    out.push(t.to_string());
                }
            }
        }
    }
    out
}

/// Both tiers accept the same lines, give the same instruction, and reject at the same
/// column with the same message.
fn assert_tiers_agree(asm: &Assembler, m: &Model, line: &str, addr: u64) {
    let labels = |l: &str| (l == ".L_x").then_some(0x100u64);
    let model = asm.parse_line(line, addr, &labels);
    let generated = Instruction::parse_at(line, addr, &labels);
    match (&model, &generated) {
        (Ok(d), Ok(i)) => assert_eq!(i.encode(), m.encode(d), "{line:?}"),
        (Err(a), Err(b)) => {
            assert_eq!(
                a.column(line),
                b.column(line),
                "{line:?}: model says {a}, generated says {}",
                b.display(line)
            );
            assert_eq!(a.to_string(), b.display(line).to_string(), "{line:?}");
        }
        _ => panic!(
            "{line:?}: model {:?} vs generated {:?}",
            model.map(|_| ()).map_err(|e| e.to_string()),
            generated
                .map(|_| ())
                .map_err(|e| e.display(line).to_string())
        ),
    }
}

#[test]
fn both_parsers_agree_on_every_spec_example() {
    let m = model();
    let asm = Assembler::new(m);
    let lines = example_lines(m);
    assert!(lines.len() >= 100, "{} example lines", lines.len());
    for l in &lines {
        assert_tiers_agree(&asm, m, l, 0x40);
    }
}

#[test]
fn both_parsers_agree_on_mutated_example_lines() {
    let m = model();
    let asm = Assembler::new(m);
    let lines = example_lines(m);
    let pieces = [
        "",
        " ",
        ",",
        ".",
        "!",
        "-",
        "~",
        "[",
        "]",
        "R1",
        "UR2",
        "P0",
        "UP1",
        "PT",
        "0x10",
        "-0x1",
        "c[0x1][0x10]",
        "R[2:3]",
        "`(.L_x)",
        ".X",
        ".U32",
        "@P0 ",
        "@!UP0 ",
        "B0",
    ];
    let mut rng = Rng(0x1234_5678_9abc_def1);
    for _ in 0..20_000 {
        let base = &lines[rng.next() as usize % lines.len()];
        let chars: Vec<char> = base.chars().collect();
        let at = rng.next() as usize % (chars.len() + 1);
        let len = (rng.next() % 4) as usize;
        let piece = pieces[rng.next() as usize % pieces.len()];
        let mut mutated: String = chars[..at].iter().collect();
        mutated.push_str(piece);
        mutated.extend(chars[(at + len).min(chars.len())..].iter());
        assert_tiers_agree(&asm, m, &mutated, 0x80);
    }
}

/// The bad-line corpus of the interpreting assembler (`isa-gen/tests/asm.rs`, table
/// `BAD`), read from that file so that both tiers are held to the same lines.
fn bad_corpus() -> Vec<(String, usize)> {
    let src = include_str!("../isa-gen/tests/asm.rs");
    let start = src.find("const BAD:").expect("the corpus table");
    let mut out = Vec::new();
    for l in src[start..].lines().skip(1) {
        let t = l.trim();
        if t.starts_with("];") {
            break;
        }
        let Some(rest) = t.strip_prefix("(\"") else {
            continue;
        };
        // The line is the first string literal (the corpus uses no escapes).
        let end = rest.find("\", ").expect("a string, then the column");
        let line = rest[..end].to_string();
        let col: usize = rest[end + 3..]
            .split(',')
            .next()
            .and_then(|c| c.trim().parse().ok())
            .expect("a column");
        out.push((line, col));
    }
    out
}

/// The generated tier rejects every line of the corpus at the same column, with the
/// same message as the interpreting tier (`isa asm` and `isa asm --spec` say the same).
#[test]
fn generated_parser_rejects_the_bad_corpus_at_the_same_columns() {
    let corpus = bad_corpus();
    assert!(corpus.len() >= 25, "{} bad lines", corpus.len());
    let labels = |l: &str| (l == ".L_x").then_some(0x100u64);
    let asm = Assembler::new(model());
    let mut differ = Vec::new();
    for (line, col) in &corpus {
        match Instruction::parse_at(line, 0, &labels) {
            Ok(i) => panic!("{line:?} assembled to {i}"),
            Err(e) => {
                assert_eq!(e.column(line), *col, "{line:?}: {}", e.display(line));
                let want = asm.parse_line(line, 0, &labels).unwrap_err().to_string();
                let got = e.display(line).to_string();
                if got != want {
                    differ.push(format!("{line:?}\n  model:     {want}\n  generated: {got}"));
                }
            }
        }
    }
    assert!(
        differ.is_empty(),
        "{} messages differ:\n{}",
        differ.len(),
        differ.join("\n")
    );
}

// -- Other specs ------------------------------------------------------------------------
//
// Our two specs besides the bundled one (`tests/specs/vec`, `tests/specs/split`), with
// their generated API made by `include_isa!` in this test binary: both tiers on every
// example line, on mutations of them and on random instructions of every opcode.

mod vec_isa {
    isa_macros::include_isa!("specs/vec/vec.isa");
}

mod split_isa {
    isa_macros::include_isa!("specs/split/split.isa");
}

// A spec for the decoder's less common paths (a decision tree over more than 16 fixed
// bits, fields with undefined codes checked on the exact path or in shared spans);
// compiled here to share this binary's build.
mod decode_isa {
    isa_macros::include_isa!("specs/decode/decode.isa");
}

#[test]
fn generated_decoders_agree_with_the_model_on_the_other_specs() {
    type Decoder = fn(u128) -> Verdict;
    let specs: [(&str, Decoder); 3] = [
        ("tests/specs/vec", generated_verdict!(vec_isa)),
        ("tests/specs/split", generated_verdict!(split_isa)),
        ("tests/specs/decode", generated_verdict!(decode_isa)),
    ];
    let mut rng = Rng(0x5eed_0dec_0de0_0001);
    for (dir, generated) in specs {
        let path = format!("{}/{dir}", env!("CARGO_MANIFEST_DIR"));
        let checked = isa_gen::Spec::load(&[path]).expect("spec loads").check();
        let m = checked.model.expect("model");
        let mut words = Vec::new();
        for i in 0..m.opcodes.len() {
            for _ in 0..64 {
                let w = m.encode(&random_instruction(&m, i, &mut rng));
                words.push(w);
                // Every single-bit change: other opcodes, reserved bits, bad codes.
                words.extend((0..128).map(|b| w ^ (1u128 << b)));
                // The opcode's fixed bits with anything elsewhere.
                let r = (u128::from(rng.next()) << 64) | u128::from(rng.next());
                let op = &m.opcodes[i];
                words.push(op.fixed_bits | (r & !op.fixed_mask));
                words.push(op.fixed_bits | (r & !op.fixed_mask & op.covered));
            }
        }
        words.extend((0..10_000).map(|_| (u128::from(rng.next()) << 64) | u128::from(rng.next())));
        let mut accepted = 0;
        for &w in &words {
            let v = generated(w);
            accepted += usize::from(matches!(v, Verdict::Ok(_)));
            assert_eq!(v, model_verdict(&m, w), "{dir}: {w:#034x}");
        }
        // Both outcomes: the words do test something (most are single-bit changes,
        // which few opcodes accept).
        assert!(
            accepted > words.len() / 20,
            "{dir}: {accepted} of {}",
            words.len()
        );
    }
}

/// `decode_batch` and `decode_iter` over whole slices (they read and prefetch ahead of
/// the word they decode): the same results as `Decoded::decode` word by word, at every
/// position of slices of many lengths, with an output slice shorter or longer than the
/// input (only the common part is written; the rest keeps what it held).
#[test]
fn batch_and_iterator_decode_whole_slices_like_single_words() {
    let m = model();
    let mut rng = Rng(0xba7c_4de0_0000_0001);
    let words: Vec<u128> = (0..3000)
        .map(|k| {
            if k % 3 == 2 {
                (u128::from(rng.next()) << 64) | u128::from(rng.next())
            } else {
                let i = (rng.next() % m.opcodes.len() as u64) as usize;
                m.encode(&random_instruction(m, i, &mut rng))
            }
        })
        .collect();
    let single: Vec<_> = words.iter().map(|&w| isa::Decoded::decode(w)).collect();
    let marker = isa::Decoded::decode(words[0]).ok();
    assert!(marker.is_some());
    for len in [0, 1, 3, 63, 64, 65, 257, 1000, 3000] {
        let input = &words[..len];
        for out_len in [len.saturating_sub(5), len, len + 70] {
            let mut out = vec![marker; out_len];
            let failed = isa::Decoded::decode_batch(input, &mut out);
            let n = len.min(out_len);
            for k in 0..n {
                assert_eq!(out[k], single[k].ok(), "len {len}, out {out_len}, at {k}");
            }
            assert!(
                out[n..].iter().all(|o| *o == marker),
                "len {len}, out {out_len}"
            );
            assert_eq!(
                failed,
                single[..n].iter().filter(|r| r.is_err()).count(),
                "len {len}, out {out_len}"
            );
        }
        let iterated: Vec<_> = isa::Decoded::decode_iter(input).collect();
        assert_eq!(iterated, single[..len], "len {len}");
        assert_eq!(isa::Decoded::decode_iter(input).len(), len);
    }
    // Both outcomes occur.
    assert!(single.iter().any(|r| r.is_ok()) && single.iter().any(|r| r.is_err()));
}

/// A line assembled: its word, or the error's column and message.
type Parsed = Result<u128, (usize, String)>;

/// One spec's generated tier, as plain functions: parse a line at an address, and print
/// a word at an address.
struct Generated {
    name: &'static str,
    parse: fn(&str, u64) -> Parsed,
    print: fn(u128, u64) -> Option<String>,
}

macro_rules! generated {
    ($name:literal, $m:ident) => {
        Generated {
            name: $name,
            parse: |line, addr| {
                let labels = |l: &str| (l == ".L_x").then_some(0x100u64);
                $m::Instruction::parse_at(line, addr, &labels)
                    .map(|i| i.encode())
                    .map_err(|e| (e.column(line), e.display(line).to_string()))
            },
            print: |word, addr| {
                $m::Instruction::decode(word)
                    .ok()
                    .map(|i| i.display_at(addr).to_string())
            },
        }
    };
}

fn other_specs() -> Vec<(Generated, Model)> {
    [
        (generated!("vec", vec_isa), "tests/specs/vec"),
        (generated!("split", split_isa), "tests/specs/split"),
    ]
    .into_iter()
    .map(|(g, dir)| {
        let path = format!("{}/{dir}", env!("CARGO_MANIFEST_DIR"));
        let checked = isa_gen::Spec::load(&[path]).expect("spec loads").check();
        assert!(!checked.has_errors(), "{}", checked.render_diagnostics());
        (g, checked.model.expect("model"))
    })
    .collect()
}

/// Both tiers accept the same line with the same word, or reject it at the same column
/// with the same message.
fn assert_tiers_agree_on(g: &Generated, asm: &Assembler, line: &str) {
    let labels = |l: &str| (l == ".L_x").then_some(0x100u64);
    let model = asm.parse_line(line, 0x40, &labels);
    match (&model, (g.parse)(line, 0x40)) {
        (Ok(d), Ok(w)) => assert_eq!(w, asm.model.encode(d), "{}: {line:?}", g.name),
        (Err(a), Err((col, msg))) => {
            assert_eq!(
                a.column(line),
                col,
                "{}: {line:?}: model says {a}, generated says {msg}",
                g.name
            );
            assert_eq!(a.to_string(), msg, "{}: {line:?}", g.name);
        }
        (m, gen) => panic!(
            "{}: {line:?}: model {:?} vs generated {gen:?}",
            g.name,
            m.as_ref().map(|_| ()).map_err(|e| e.to_string())
        ),
    }
}

#[test]
fn both_tiers_agree_on_the_other_specs() {
    let pieces = [
        "",
        " ",
        ",",
        ".",
        "!",
        "-",
        "~",
        "[",
        "]",
        "V1",
        "S2",
        "F0",
        "G3",
        "K1",
        "ACC2",
        "FLAGS",
        "0x10",
        "-0x1",
        "0xfffc",
        "c[0x1][0x10]",
        "c[0xf][0xfffc]",
        "V[2:3]",
        "`(.L_x)",
        ".X",
        ".64",
        ".EQ",
        "@F1 ",
        "@!F2 ",
        "LANE.Y",
    ];
    for (g, m) in other_specs() {
        let asm = Assembler::new(&m);
        let lines = example_lines(&m);
        assert!(
            lines.len() >= 15,
            "{}: {} example lines",
            g.name,
            lines.len()
        );
        for l in &lines {
            assert_tiers_agree_on(&g, &asm, l);
        }
        let mut rng = Rng(0x0dd_ba11_cafe_f00d);
        for _ in 0..5_000 {
            let base = &lines[rng.next() as usize % lines.len()];
            let chars: Vec<char> = base.chars().collect();
            let at = rng.next() as usize % (chars.len() + 1);
            let len = (rng.next() % 4) as usize;
            let mut mutated: String = chars[..at].iter().collect();
            mutated.push_str(pieces[rng.next() as usize % pieces.len()]);
            mutated.extend(chars[(at + len).min(chars.len())..].iter());
            assert_tiers_agree_on(&g, &asm, &mutated);
        }
        // Random instructions of every opcode print alike and read back.
        for i in 0..m.opcodes.len() {
            for _ in 0..200 {
                let d = random_instruction(&m, i, &mut rng);
                let word = m.encode(&d);
                let addr = (rng.next() % 0x10000) * 16;
                let text = asm.print(&d, addr);
                assert_eq!(
                    (g.print)(word, addr).as_deref(),
                    Some(text.as_str()),
                    "{}: {}",
                    g.name,
                    m.opcodes[i].name
                );
                assert_eq!((g.parse)(&text, addr), Ok(word), "{}: {text}", g.name);
            }
        }
    }
}

/// Constant-memory operands: `split` declares its offsets unsigned, `vec` leaves them
/// signed; both tiers take and refuse the same references with the same message.
#[test]
fn both_tiers_read_constant_memory_offsets_as_declared() {
    let specs = other_specs();
    let (vec, split) = (&specs[0], &specs[1]);
    let vec_asm = Assembler::new(&vec.1);
    let split_asm = Assembler::new(&split.1);
    for line in [
        "LDK G1, c[0xf][0xfffc]",
        "LDK G1, c[0xff][0xffff]",
        "LDX G1, c[0x1][G2+0xfffc]",
        "LDS G1, c[0x3][0x3ff]",
    ] {
        let w = (split.0.parse)(line, 0).unwrap_or_else(|e| panic!("{line}: {e:?}"));
        assert_eq!((split.0.print)(w, 0).as_deref(), Some(line));
        assert_tiers_agree_on(&split.0, &split_asm, line);
    }
    for (line, col, msg) in [
        ("LDK G1, c[0x1][-0x4]", 9, "`LDK` operand 2 (k): offset -0x4 is outside 0x0..=0xffff"),
        ("LDX G1, c[0x1][G2-0x4]", 9, "`LDX` operand 2 (C[k, ga]): offset -0x4 is outside 0x0..=0xffff"),
        // A register makes it another kind of operand: LDK takes none.
        ("LDK G1, c[0x1][G2+0x4]", 9, "`LDK` operand 2 (k): expected a constant-memory operand c[bank][offset], found c[0x1][G2+0x4]"),
        ("LDK G1, c[0x100][0x0]", 9, "`LDK` operand 2 (k): bank 0x100 does not fit in 8 bits"),
        ("LDS G1, c[0x1][0x400]", 9, "`LDS` operand 2 (k): offset 0x400 is outside 0x0..=0x3ff"),
    ] {
        assert_eq!((split.0.parse)(line, 0), Err((col, msg.to_string())), "{line}");
        assert_tiers_agree_on(&split.0, &split_asm, line);
    }
    // vec's `KMem` is signed: c[0xf][0xfffc] stays out, in both tiers, at the operand.
    let line = "VALU.MIN V1, V2, c[0xf][0xfffc]";
    assert_eq!(
        (vec.0.parse)(line, 0),
        Err((
            18,
            "`VALU.MIN` operand 3 (kb): offset 0xfffc is outside -0x8000..=0x7fff".to_string()
        ))
    );
    assert_tiers_agree_on(&vec.0, &vec_asm, line);
    // An index offset follows its immediate type too: vec's `Idx4` is unsigned.
    for line in [
        "VMOV V1, V[V2+0xc]",
        "VMOV V1, V[V2-0x1]",
        "VMOV V1, V[V2+0x10]",
    ] {
        assert_tiers_agree_on(&vec.0, &vec_asm, line);
    }
    assert_eq!(
        (vec.0.print)((vec.0.parse)("VMOV V1, V[V2+0xc]", 0).unwrap(), 0).as_deref(),
        Some("VMOV V1, V[V2+0xc]")
    );
    // The bundled spec's messages, generated and interpreted, are the same words too.
    let m = model();
    let asm = Assembler::new(m);
    for line in [
        "ULDC UR0, c[0x20][0x160]",
        "ULDC UR0, c[0x0][0x10000]",
        "ULDC UR0, c[0x0][-0x10001]",
    ] {
        let a = asm.parse_line(line, 0, &|_| None).unwrap_err();
        let b = Instruction::parse_at(line, 0, &|_| None).unwrap_err();
        assert_eq!(a.to_string(), b.display(line).to_string(), "{line}");
        assert_eq!(a.column(line), b.column(line), "{line}");
    }
}

/// A guard on an instruction that has none (vec's `CALLX`) is refused by both tiers with
/// the same message at the guard; the guard of one that has one reads in both.
#[test]
fn a_guard_where_the_opcode_has_none() {
    let (g, m) = other_specs().into_iter().next().expect("the vec spec");
    let asm = Assembler::new(&m);
    for line in ["@F1 CALLX 0x4000", "@!F1 CALLX 0x4000", "@FT CALLX 0x4000"] {
        assert_tiers_agree_on(&g, &asm, line);
        let e = asm.parse_line(line, 0x40, &|_| None).unwrap_err();
        assert_eq!(e.to_string(), "`CALLX` takes no guard predicate", "{line}");
        assert_eq!(e.column(line), 1, "{line}");
    }
    for line in ["@F1 RETX", "@!F2 RETX"] {
        assert_tiers_agree_on(&g, &asm, line);
        asm.parse_line(line, 0x40, &|_| None).expect(line);
    }
}

/// A guard without a `.not` sub-field (vec's `WAIT`): `@F1` writes the guard register's
/// code in both tiers, `@FT` (the default) is the line without a guard, and `@!` is
/// refused by both with the same message at the guard, never read as the line without
/// the `!`.
#[test]
fn a_guard_that_cannot_be_negated() {
    let (g, m) = other_specs().into_iter().next().expect("the vec spec");
    let asm = Assembler::new(&m);
    let wait_i = m.opcode_by_name("WAIT_I").expect("vec has WAIT_I");
    assert!(
        m.opcodes[wait_i].guard(&m).is_some(),
        "WAIT_I has a guard predicate"
    );
    // Major code 0x12 in bits 122..127, the count in bits 10..13, the guard (a `Flag`:
    // F0..F2, FT = 3) in bits 0..1; nothing else.
    let word = |guard: u128| (0x12u128 << 122) | (0x3 << 10) | guard;
    for (line, guard) in [
        ("WAIT 0x3", 3),
        ("@FT WAIT 0x3", 3),
        ("@F0 WAIT 0x3", 0),
        ("@F1 WAIT 0x3", 1),
        ("@F2 WAIT 0x3", 2),
    ] {
        assert_eq!((g.parse)(line, 0x40), Ok(word(guard)), "generated: {line}");
        let d = asm.parse_line(line, 0x40, &|_| None).expect(line);
        assert_eq!(d.opcode, wait_i, "{line}");
        assert_eq!(m.encode(&d), word(guard), "interpreted: {line}");
        assert_tiers_agree_on(&g, &asm, line);
    }
    // Printed back: the guard at its default is left out.
    assert_eq!((g.print)(word(1), 0).as_deref(), Some("@F1 WAIT 0x3"));
    assert_eq!((g.print)(word(3), 0).as_deref(), Some("WAIT 0x3"));
    // `@!`: refused at the guard (its column counts from 1, after any indentation).
    for (line, col) in [
        ("@!F1 WAIT 0x3", 1),
        ("@!FT WAIT 0x3", 1),
        ("@!F0 WAIT 0x3", 1),
        ("    @!F2 WAIT 0x3", 5),
    ] {
        let msg = "the guard of `WAIT` cannot be negated".to_string();
        assert_eq!(
            (g.parse)(line, 0x40),
            Err((col, msg.clone())),
            "generated: {line}"
        );
        let e = asm.parse_line(line, 0x40, &|_| None).unwrap_err();
        assert_eq!(e.to_string(), msg, "interpreted: {line}");
        assert_eq!(e.column(line), col, "interpreted: {line}");
        assert_tiers_agree_on(&g, &asm, line);
    }
    // A guard from outside the file is a different error, also at the guard.
    let line = "@!F3 WAIT 0x3";
    assert_eq!(
        (g.parse)(line, 0x40),
        Err((
            1,
            "guard of `WAIT`: expected a Flag, found `F3`".to_string()
        ))
    );
    assert_tiers_agree_on(&g, &asm, line);
}
