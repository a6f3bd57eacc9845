//! Formatter options: addresses printed through a symbol table, decimal numbers,
//! default modifiers shown. Both tiers print the same text for every option (one
//! printer, `isa_rt::print`, over the generated `TABLES` or the tables built at run
//! time, which are the same rows), and what they print reads back to the same word.

mod common;

use std::collections::HashMap;

use common::{legal, model, Rng};
use isa::{FormatOptions, Instruction};
use isa_gen::asm::Assembler;

/// The generated crate's `TABLES` are the rows the interpreting tier builds from the
/// model: one builder, written out by the generator.
#[test]
fn generated_tables_are_the_rows_built_from_the_model() {
    let asm = Assembler::new(model());
    let built = asm.tables();
    assert_eq!(isa::TABLES.opcodes, built.opcodes);
    assert_eq!(isa::TABLES.fields, built.fields);
    assert_eq!(isa::TABLES.types, built.types);
    assert_eq!(isa::TABLES.names, built.names);
    assert_eq!(isa::TABLES.named, built.named);
    assert_eq!(isa::TABLES.operands, built.operands);
    assert_eq!(isa::TABLES.subs, built.subs);
    assert_eq!(isa::TABLES.indices, built.indices);
    assert_eq!(isa::TABLES.exprs, built.exprs);
    assert_eq!(isa::TABLES.plans, built.plans);
    assert_eq!(isa::TABLES.pieces, built.pieces);
    assert_eq!(isa::TABLES.text, built.text);
    assert!(!built.pieces.is_empty() && built.opcodes.len() == model().opcodes.len());
}

/// Every opcode, random instructions: each combination of options prints identically
/// in both tiers and assembles back to the word.
#[test]
fn options_agree_between_tiers_and_read_back() {
    let m = model();
    let asm = Assembler::new(m);
    let mut rng = Rng(0xf0a7_0001);
    // Names for a few addresses around where the instructions sit.
    let names: HashMap<u64, String> = (0..64u64)
        .map(|k| (0x1000 + 16 * k, format!(".L_{k}")))
        .collect();
    let by_name: HashMap<&str, u64> = names.iter().map(|(a, n)| (n.as_str(), *a)).collect();
    let sym = |a: u64| names.get(&a).map(String::as_str);
    for i in 0..m.opcodes.len() {
        for _ in 0..200 {
            let mut d = legal(m, i, &mut rng);
            let addr = 0x1000 + 16 * (rng.next() % 64);
            // Point the flow's target (when there is one) at a named address.
            if m.opcodes[i].flow.target.is_some() {
                let t = 0x1000 + 16 * (rng.next() % 64);
                let _ = m.set_branch_target(&mut d, addr, t);
            }
            let insn = Instruction::decode(m.encode(&d)).unwrap();
            if insn.validate().is_err() {
                continue; // the assembler refuses what the spec's exceptions forbid
            }
            for (decimal, show_defaults, symbols) in [
                (false, false, false),
                (true, false, false),
                (false, true, false),
                (false, false, true),
                (true, true, true),
            ] {
                let mut g = FormatOptions::new();
                if symbols {
                    g.symbols = Some(&sym);
                }
                g.decimal = decimal;
                g.show_defaults = show_defaults;
                let text = insn.display_with(addr, g).to_string();
                assert_eq!(text, asm.print_with(&d, addr, &g), "{}", m.opcodes[i].name);
                let labels = |l: &str| by_name.get(l).copied();
                let back = Instruction::parse_at(&text, addr, &labels)
                    .unwrap_or_else(|e| panic!("`{text}`: {}", e.display(&text)));
                assert_eq!(back.encode(), insn.encode(), "`{text}` at {addr:#x}");
            }
        }
    }
}

#[test]
fn options_by_hand() {
    let bra: Instruction = "@P0 BRA.DIV 0x100".parse().unwrap();
    let names = |a: u64| (a == 0x100).then_some(".L_loop");
    let o = FormatOptions {
        symbols: Some(&names),
        ..FormatOptions::new()
    };
    assert_eq!(bra.display_with(0, o).to_string(), "@P0 BRA.DIV `(.L_loop)");
    // No name for the address: the number.
    let other = |a: u64| (a == 0x200).then_some(".L_other");
    let o = FormatOptions {
        symbols: Some(&other),
        ..FormatOptions::new()
    };
    assert_eq!(bra.display_with(0, o).to_string(), "@P0 BRA.DIV 0x100");
    let dec = FormatOptions {
        decimal: true,
        ..FormatOptions::new()
    };
    assert_eq!(bra.display_with(0, dec).to_string(), "@P0 BRA.DIV 256");
    let nop: Instruction = "UIADD UR1, UR2, -0x10".parse().unwrap();
    assert_eq!(nop.display_with(0, dec).to_string(), "UIADD UR1, UR2, -16");
    let all = FormatOptions {
        show_defaults: true,
        ..FormatOptions::new()
    };
    let x: Instruction = "BRA 0x100".parse().unwrap();
    assert_eq!(x.display_with(0, all).to_string(), "BRA.NoCond 0x100");
}
