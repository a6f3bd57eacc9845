//! `include_isa!` generates a working API from the bundled spec. Its compile errors
//! (a bad spec shows the spec's file, line and message) are tested with `inst!`'s in
//! `ui-tests/`.

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
