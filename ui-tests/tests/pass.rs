//! What users get right compiles and runs: plain tests, kept beside the compile-fail
//! ones of `tests/ui.rs` (trybuild then only checks, and does not build, its scratch
//! project).

/// An API made by `include_isa!` in a module has its own `inst!` and `code!`, for its
/// spec.
mod tiny {
    isa_macros::include_isa!("specs/tiny", at = crate::tiny);
}

/// `inst!` with literal operands is a constant expression.
const SHFL: isa::ShflRri = isa::inst!(@P0 SHFL.UP P1, R1, R0, R2, 0x0);
const WORD: u128 = SHFL.encode();
static PROGRAM: [u128; 3] = [
    isa::inst!(S2R R1, SR_LANEID).encode(),
    isa::inst!(UIADD UR0, UR0, 0x1).encode(),
    isa::inst!(EXIT).encode(),
];

#[test]
fn inst_is_a_constant_expression() {
    assert_eq!(
        isa::Instruction::decode(WORD),
        Ok(isa::Instruction::ShflRri(SHFL))
    );
    assert_eq!(
        PROGRAM.map(|w| isa::Instruction::decode(w).unwrap().to_string()),
        ["S2R R1, SR_LANEID", "UIADD UR0, UR0, 0x1", "EXIT"]
    );
}

const LOAD: tiny::LdiI = tiny::inst!(LDI A1, 0x2a);

#[test]
fn include_isa_gives_its_api_an_inst() {
    assert_eq!(LOAD.to_string(), "LDI A1, 0x2a");
    let b = tiny::Acc::new(3).unwrap();
    let add = tiny::inst!(ADD A0, {b});
    assert_eq!(add.b, b);
    let word = tiny::Instruction::parse("ADD A0, A3").unwrap().encode();
    assert_eq!(add.encode(), word);
}
