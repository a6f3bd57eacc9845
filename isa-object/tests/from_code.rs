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
