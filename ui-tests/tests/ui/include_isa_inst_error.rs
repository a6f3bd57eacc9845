mod tiny {
    isa_macros::include_isa!("../specs/tiny", at = crate::tiny);
}

fn main() {
    // Checked against the included spec: it has no register A7.
    let _ = tiny::inst!(ADD A0, A7);
}
