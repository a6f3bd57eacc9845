fn main() {
    let _ = isa::inst!(UIADD UR0, UR1, 0x100000000);
}
