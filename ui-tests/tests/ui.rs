//! What users of `isa::inst!`, `isa::code!` and `isa_macros::include_isa!` see when
//! they get it wrong (the compile error, with the spec's file and line where there is
//! one), and that what they get right builds and runs.

#[test]
fn compile_errors() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
    t.pass("tests/pass/*.rs");
}
