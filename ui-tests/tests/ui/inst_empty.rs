fn main() {
    let _ = isa::inst!();
}
