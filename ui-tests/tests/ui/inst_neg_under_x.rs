fn main() {
    let _ = isa::inst!(UIADD.X UR0, UP0, -UR2, UR4);
}
