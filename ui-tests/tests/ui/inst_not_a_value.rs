fn main() {
    let _ = isa::inst!(S2R R1, SR_CLOCK);
}
