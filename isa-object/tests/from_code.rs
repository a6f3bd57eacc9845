//! Objects from a `CodeBuffer`'s code link, at any base, to the words of the code
//! itself placed there (`Code::rebase`), absolute label references included.

use isa::backend::CodeBuffer;
use isa::Instruction;
use isa_object::{LabelName, Object};

fn insn(t: &str) -> Instruction {
    t.parse().unwrap()
}

#[test]
fn absolute_label_references_move_with_the_object() {
    let mut buf = CodeBuffer::new(0).unwrap();
    let entry = buf.new_label();
    let func = buf.named_label(".L_func").unwrap();
    let back = buf.new_label();
    buf.bind(entry).unwrap();
    // Relative (BRA) and absolute (CALL.ABS) references to labels.
    buf.push_to(insn("@P0 BRA 0x0"), back).unwrap();
    buf.push_to(insn("CALL.ABS RZ, 0x0"), func).unwrap();
    buf.bind(back).unwrap();
    buf.push(insn("EXIT"));
    buf.bind(func).unwrap();
    buf.push(insn("RET.ABS R[8:9], 0x0"));
    let code = buf.finish().unwrap();
    let obj = Object::from_code(&code, &[LabelName::global(entry, "kernel")]).unwrap();
    // One relocation: the absolute call, against `.L_func`; the branch is relative.
    assert_eq!(obj.relocs.len(), 1, "{:?}", obj.relocs);
    assert_eq!(obj.relocs[0].offset, 0x10);
    assert_eq!(obj.symbols[obj.relocs[0].symbol].name, ".L_func");
    let bytes = isa_object::write(&obj).unwrap();
    let read = isa_object::read(&bytes).unwrap();
    assert_eq!(read, obj);
    for base in [0u64, 0x400, 0x12_3450] {
        let mut placed = code.clone();
        placed.rebase(base).unwrap();
        let linked = read.link(base, |_| None).unwrap();
        assert_eq!(linked, placed.words().collect::<Vec<_>>(), "base {base:#x}");
        let call = Instruction::decode(linked[1]).unwrap();
        assert_eq!(call.branch_target(base + 0x10), Some(base + 0x30));
    }
    // An absolute reference to a label without a name has no symbol to relocate to.
    let mut buf = CodeBuffer::new(0).unwrap();
    let anon = buf.new_label();
    buf.push_to(insn("CALL.ABS RZ, 0x0"), anon).unwrap();
    buf.bind(anon).unwrap();
    buf.push(insn("EXIT"));
    let e = Object::from_code(&buf.finish().unwrap(), &[]).unwrap_err();
    assert!(e.to_string().contains("give it a name"), "{e}");
}

/// Relocations name the outside symbol they were made against, whichever of several it
/// is, after the object's own symbols (locals first, then globals, then undefined).
#[test]
fn relocations_name_their_own_outside_symbol() {
    let mut buf = CodeBuffer::new(0).unwrap();
    let entry = buf.new_label();
    let local = buf.named_label(".L_loop").unwrap();
    let first = buf.symbol("first").unwrap();
    let second = buf.symbol("second").unwrap();
    let third = buf.symbol("third").unwrap();
    buf.bind(entry).unwrap();
    buf.bind(local).unwrap();
    buf.push_to(insn("CALL.ABS RZ, 0x0"), third).unwrap();
    buf.push_to(insn("@P0 BRA 0x0"), second).unwrap();
    buf.push_to(insn("CALL.ABS RZ, 0x0"), first).unwrap();
    buf.push(insn("EXIT"));
    let code = buf.finish().unwrap();
    let obj = Object::from_code(&code, &[LabelName::global(entry, "kernel")]).unwrap();
    let named: Vec<(u64, &str)> = obj
        .relocs
        .iter()
        .map(|r| (r.offset, obj.symbols[r.symbol].name.as_str()))
        .collect();
    assert_eq!(named, [(0x0, "third"), (0x10, "second"), (0x20, "first")]);
    let read = isa_object::read(&isa_object::write(&obj).unwrap()).unwrap();
    assert_eq!(read, obj);
    // Linked, each call goes where its own symbol is.
    let at = |name: &str| match name {
        "first" => Some(0x1000),
        "second" => Some(0x2000),
        "third" => Some(0x3000),
        _ => None,
    };
    let linked = read.link(0, at).unwrap();
    let target = |k: usize| {
        Instruction::decode(linked[k])
            .unwrap()
            .branch_target(16 * k as u64)
    };
    assert_eq!(
        [target(0), target(1), target(2)],
        [Some(0x3000), Some(0x2000), Some(0x1000)]
    );
}
