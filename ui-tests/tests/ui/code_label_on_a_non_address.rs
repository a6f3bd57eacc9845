fn main() {
    let mut buf = isa::backend::CodeBuffer::new(0);
    let _ = isa::code!(buf;
        top:
            S2R R1, (top);
    );
}
