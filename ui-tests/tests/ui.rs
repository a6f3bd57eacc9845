//! What users of `isa::inst!`, `isa::code!`, `isa_macros::include_isa!` and the code
//! buffer see when they get it wrong: the compile error, with the spec's file and line
//! where there is one. (What they get right is `tests/pass.rs`.)

#[test]
fn compile_errors() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
