fn main() {
    let _ = isa::inst!(MATCH.U64.ALL R0, P0, R2);
}
