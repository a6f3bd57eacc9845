//! `include_isa!` generates a working API from the bundled spec, and a bad spec is a
//! compile error that shows the spec's file, line and message.

mod bundled {
    isa_macros::include_isa!("../../isa-spec");
}

#[test]
fn bundled_spec_round_trips() {
    use bundled::*;
    let i = ShflRrr::new(
        Pred::new(1).unwrap(),
        Reg::new(1).unwrap(),
        Reg::new(0).unwrap(),
        Reg::new(2).unwrap(),
        Reg::new(3).unwrap(),
        ShflMode::Up,
    );
    let w = i.encode();
    assert_eq!(Instruction::decode(w), Ok(Instruction::ShflRrr(i)));
    assert_eq!(Opcode::ALL.len(), 135);
}

#[test]
fn compile_errors() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
    t.pass("tests/pass/*.rs");
}
