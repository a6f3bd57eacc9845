fn main() {
    let _ = isa::inst!(SHFL.UPP P1, R1, R0, R2, 0x0);
}
