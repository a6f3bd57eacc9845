//! The generated assembly printer agrees with the interpreting one (isa-gen's model
//! tier) on random instructions of every opcode, at random addresses.

use isa::Instruction;
use isa_gen::asm::Assembler;
use isa_gen::model::interp::Decoded;
use isa_gen::model::{Model, Role, TypeKind};
use std::sync::OnceLock;

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
/// column.
fn assert_tiers_agree(asm: &Assembler, m: &Model, line: &str, addr: u64) {
    let labels = |l: &str| (l == ".L_x").then_some(0x100u64);
    let model = asm.parse_line(line, addr, &labels);
    let generated = Instruction::parse_at(line, addr, &labels);
    match (&model, &generated) {
        (Ok(d), Ok(i)) => assert_eq!(i.encode(), m.encode(d), "{line:?}"),
        (Err(a), Err(b)) => assert_eq!(
            a.column(line),
            b.column(line),
            "{line:?}: model says {a}, generated says {}",
            b.display(line)
        ),
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

#[test]
fn generated_parser_rejects_the_bad_corpus_at_the_same_columns() {
    let corpus = bad_corpus();
    assert!(corpus.len() >= 25, "{} bad lines", corpus.len());
    let labels = |l: &str| (l == ".L_x").then_some(0x100u64);
    for (line, col) in &corpus {
        match Instruction::parse_at(line, 0, &labels) {
            Ok(i) => panic!("{line:?} assembled to {i}"),
            Err(e) => assert_eq!(e.column(line), *col, "{line:?}: {}", e.display(line)),
        }
    }
}
