fn main() {
    let _ = isa::inst!(BRA.U UR4, 0x100);
}
