fn main() {
    let val = isa::UReg::new(1).unwrap();
    // SrcB of UIADD may be a UReg, an immediate or constant memory: say which.
    let _ = isa::inst!(UIADD UR1, UR2, {val});
}
