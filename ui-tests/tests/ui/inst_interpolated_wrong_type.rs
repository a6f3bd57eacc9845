fn main() {
    let r = isa::UReg::new(1).unwrap();
    let _ = isa::inst!(SHFL.UP P1, {r}, R0, R2, 0x0);
}
