//! `inst!`: literal operands give a compile-time constant equal to what the assembler
//! produces; interpolated operands are assigned with their Rust types.

use isa::{inst, Instruction, Reg, ShflRir, ShflRri, UImm5};

const SHFL: ShflRri = inst!(@P0 SHFL.UP P1, R1, R0, R2, 0x0);

#[test]
fn literal_inst_is_a_constant_with_the_assembler_encoding() {
    const WORD: u128 = SHFL.encode();
    let parsed = Instruction::parse("@P0 SHFL.UP P1, R1, R0, R2, 0x0").unwrap();
    assert_eq!(WORD, parsed.encode());
    assert_eq!(Instruction::from(SHFL), parsed);
}

#[test]
fn interpolated_operands_take_their_values() {
    let rd = Reg::new(7).unwrap();
    let i = inst!(SHFL.UP P1, {rd}, R0, R2, 0x0);
    assert_eq!(i.rd, rd);
    assert_eq!(i.to_string(), "SHFL.UP P1, R7, R0, R2, 0x0");
    let lane = UImm5::new(3).unwrap();
    let j: ShflRir = inst!(SHFL.DOWN P1, R1, R0, {lane: UImm5}, R4);
    assert_eq!(j.vb, lane);
    assert_eq!(j.to_string(), "SHFL.DOWN P1, R1, R0, 0x3, R4");
}
