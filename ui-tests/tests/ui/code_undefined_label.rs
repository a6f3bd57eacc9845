fn main() {
    let mut buf = isa::backend::CodeBuffer::default();
    let _ = isa::code!(buf;
        top:
            NOP;
            BRA (nowhere);
    );
}
