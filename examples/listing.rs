//! A disassembly listing as a tool built on the `isa` crate makes one: code built with
//! `isa::code!`, then decoded word by word, printed with label names for branch
//! targets (`FormatOptions::symbols`), each line annotated with the instruction's flow
//! and the registers it reads and writes.
//!
//! `cargo run --example listing`

use std::collections::BTreeMap;

use isa::backend::CodeBuffer;
use isa::{FormatOptions, Instruction};

fn main() {
    let mut buf = CodeBuffer::new(0x1000).expect("an aligned base");
    isa::code!(buf;
            S2R R1, SR_LANEID;
            BSSY B0, (join);
            @P0 BRA (skip);
            VOTE.ANY R5, P5, PT;
        skip:
            BSYNC B0;
        join:
            @!P1 EXIT;
            BRA (skip);
    )
    .expect("well formed");
    let code = buf.finish().expect("labels bound");
    let bytes = code.to_bytes();

    // A symbol table, as an object file would give one.
    let names: BTreeMap<u64, String> = [(0x1040, "skip"), (0x1050, "join")]
        .into_iter()
        .map(|(a, n)| (a, n.to_string()))
        .collect();
    let lookup = |a: u64| names.get(&a).map(String::as_str);
    let options = FormatOptions {
        symbols: Some(&lookup),
        ..FormatOptions::new()
    };

    let mut lines = Vec::new();
    for (k, record) in bytes
        .chunks_exact(isa::INSTRUCTION_BYTES as usize)
        .enumerate()
    {
        let addr = code.addr_of(k);
        let word = u128::from_le_bytes(record.try_into().unwrap());
        let insn = Instruction::decode(word).expect("the buffer's words decode");
        if let Some(name) = names.get(&addr) {
            lines.push(format!("{name}:"));
        }
        let reads: Vec<String> = insn.reads().map(|r| r.to_string()).collect();
        let writes: Vec<String> = insn.writes().map(|r| r.to_string()).collect();
        let cond = if insn.is_conditional() {
            " (conditional)"
        } else {
            ""
        };
        lines.push(format!(
            "  /*{addr:04x}*/ {:<28} // {}{cond}; reads [{}], writes [{}]",
            insn.display_with(addr, options).to_string(),
            insn.flow(),
            reads.join(" "),
            writes.join(" ")
        ));
    }
    let listing = lines.join("\n");
    println!("{listing}");
    assert!(listing.contains("@P0 BRA `(skip)"), "{listing}");
    assert!(listing.contains("BSSY B0, `(join)"), "{listing}");
    assert!(listing.contains("// exit (conditional)"), "{listing}");
}
