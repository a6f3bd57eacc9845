fn main() {
    let _ = isa::inst!(S2R R255, SR_LANEID);
}
