//! `inst!` with literal operands is a constant expression.
const SHFL: isa::ShflRri = isa::inst!(@P0 SHFL.UP P1, R1, R0, R2, 0x0);
const WORD: u128 = SHFL.encode();
static PROGRAM: [u128; 3] = [
    isa::inst!(S2R R1, SR_LANEID).encode(),
    isa::inst!(UIADD UR0, UR0, 0x1).encode(),
    isa::inst!(EXIT).encode(),
];

fn main() {
    assert_eq!(isa::Instruction::decode(WORD), Ok(isa::Instruction::ShflRri(SHFL)));
    assert_eq!(PROGRAM.len(), 3);
}
