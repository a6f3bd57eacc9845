fn main() {
    let _ = isa::inst!(BRA (top));
}
