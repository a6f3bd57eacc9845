//! The register facts (`reads`, `writes`, `reg_operands`, `bitwidth`) of a spec with
//! the less common cases (`tests/specs/regs/regs.isa`): a file of 1,000 numbered
//! registers, a register the run picks by index from it, a register operand that
//! neither list names, and a width an immediate decides. The bundled spec's facts are
//! checked against the model on every opcode in `roundtrip.rs`, and against the
//! simulator in `isa-runtime/tests/soundness.rs`.

mod regs_isa {
    isa_macros::include_isa!("specs/regs/regs.isa");
}

use isa::backend::Access;
use regs_isa::*;

fn w(n: u16) -> WReg {
    WReg::new(n).unwrap()
}

fn codes(regs: Regs) -> Vec<u16> {
    regs.map(|RegRef::WReg(r)| r.bits()).collect()
}

#[test]
fn a_register_picked_by_index_stands_for_every_register_of_its_file() {
    let i = GetW::new(w(7), w(2), SImm7::new(3).unwrap());
    // `wb` itself, then every one of W0..W999: which one, only the run knows.
    let reads = codes(i.reads());
    assert_eq!(reads.len(), 1 + 1000);
    assert_eq!(reads[0], 2);
    assert_eq!(&reads[1..], (0..1000).collect::<Vec<u16>>());
    assert_eq!(codes(i.writes()), [7]);
    let insn = Instruction::from(i);
    assert!(insn.reads().eq(i.reads()));
    let indexed = insn
        .reg_operands()
        .find(|o| o.info.name == "W[wb, widx]")
        .expect("the indexed register is a register operand");
    assert_eq!(indexed.count, 1000);
    assert_eq!(indexed.info.max_count, 1000);
    assert!(indexed.info.is_fixed());
    assert_eq!(indexed.regs().count(), 1000);
}

#[test]
fn a_register_operand_in_neither_list_is_read() {
    let i = OddW::new(w(1), w(5));
    assert_eq!(codes(i.reads()), [5]);
    assert_eq!(codes(i.writes()), [1]);
    let wa = Instruction::from(i)
        .reg_operands()
        .find(|o| o.info.name == "wa")
        .unwrap();
    assert_eq!(wa.access, Access::Read);
    // A constant register holds nothing to read.
    assert_eq!(OddW::new(w(1), WReg::WZ).reads().count(), 0);
}

#[test]
fn a_width_an_immediate_decides_spans_up_to_32_registers() {
    let span = |first: u16, n: u8| SpanW::new(w(first), w(900), UImm6::new(n).unwrap());
    // `Bitwidth<wd> = n * 32`.
    assert_eq!(span(10, 3).bitwidth("wd"), Some(96));
    assert_eq!(span(10, 3).wd_bitwidth(), 96);
    assert_eq!(codes(span(10, 3).writes()), [10, 11, 12]);
    // No bits reads as one register; a width past 1,024 bits as 32 registers, all
    // of them listed (the list holds the most any instruction of the spec covers).
    assert_eq!(span(10, 0).bitwidth("wd"), Some(0));
    assert_eq!(codes(span(10, 0).writes()), [10]);
    assert_eq!(span(10, 63).bitwidth("wd"), Some(63 * 32));
    assert_eq!(codes(span(10, 63).writes()), (10..42).collect::<Vec<u16>>());
    // A range stops at the last numbered register.
    assert_eq!(
        codes(span(990, 63).writes()),
        (990..1000).collect::<Vec<u16>>()
    );
    let insn = Instruction::from(span(10, 63));
    let wd = insn.reg_operands().find(|o| o.info.name == "wd").unwrap();
    assert_eq!((wd.count, wd.info.max_count), (32, 32));
    assert_eq!(insn.bitwidth("wd"), Some(63 * 32));
    assert_eq!(insn.bitwidth("wa"), None);
}

#[test]
fn a_width_a_later_operand_decides_reads_back_as_printed() {
    for line in [
        "SPAN W[4:6], W900, 0x3",
        "SPAN W10, W1, 0x1",
        "SPAN W[990:1021], W5, 0x3f",
        "GET W999, W[W0-0x40]",
        "ODD WZ, W999",
    ] {
        let i = Instruction::parse(line).unwrap_or_else(|e| panic!("{line}: {}", e.display(line)));
        assert_eq!(i.to_string(), line);
    }
    let line = "SPAN W[4:5], W900, 0x3";
    let e = Instruction::parse(line).unwrap_err();
    assert_eq!(
        e.display(line).to_string(),
        "`SPAN` operand 1 (wd): W[4:5] is 64 bits but the operand is 96 bits here"
    );
}
