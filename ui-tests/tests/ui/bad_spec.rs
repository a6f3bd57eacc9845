mod bad {
    isa_macros::include_isa!("../specs/bad");
}

fn main() {}
