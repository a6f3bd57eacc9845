fn main() {
    let mut buf = isa::backend::CodeBuffer::new(0);
    let _ = isa::code!(buf;
        top:
            NOP;
            BRA (nowhere);
    );
}
