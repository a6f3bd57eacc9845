mod missing {
    isa_macros::include_isa!("../specs/does-not-exist.isa");
}

fn main() {}
