fn main() {
    let _ = isa::inst!(SHLF.UP P1, R1, R0, R2, 0x0);
}
