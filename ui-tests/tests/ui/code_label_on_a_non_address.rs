fn main() {
    let mut buf = isa::backend::CodeBuffer::default();
    let _ = isa::code!(buf;
        top:
            S2R R1, (top);
    );
}
