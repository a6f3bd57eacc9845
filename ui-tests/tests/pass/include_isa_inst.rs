// An API made by `include_isa!` in a module has its own `inst!` and `code!`, for its spec.
mod tiny {
    isa_macros::include_isa!("../specs/tiny", at = crate::tiny);
}

const LOAD: tiny::LdiI = tiny::inst!(LDI A1, 0x2a);

fn main() {
    assert_eq!(LOAD.to_string(), "LDI A1, 0x2a");
    let b = tiny::Acc::new(3).unwrap();
    let add = tiny::inst!(ADD A0, {b});
    assert_eq!(add.b, b);
    let word = tiny::Instruction::parse("ADD A0, A3").unwrap().encode();
    assert_eq!(add.encode(), word);
}
