fn main() {
    let _ = isa::inst!(BRA 0x118);
}
