fn main() {
    let x = 0u8;
    let _ = isa::inst!(SHFL.UP P1, {x: Foo}, R0, R2, 0x0);
}
