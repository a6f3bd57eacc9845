//! CALL/RET `.ABS` in an object linked away from 0: the offset is an absolute address
//! (`Va + offset*16`), so the linked program runs the same at any base.

mod common;

use common::{isa, ok, temp};

/// The spec's own calling pattern (bru.isa CALL): LEPC loads the return address and the
/// callee's address (pc-relative, so right at any base), `CALL.ABS R[6:7], 0x0` goes to
/// the callee, `RET.ABS R[8:9], 0x0` comes back.
const PROGRAM: &str = "\
.global main
main:
    LEPC R[8:9], `(.L_ret)
    LEPC R[6:7], `(.L_func)
    CALL.ABS R[6:7], 0x0
.L_ret:
    UMOV UR2, 0x7
    EXIT
.L_func:
    UMOV UR1, 0x5
    RET.ABS R[8:9], 0x0
";

/// A call straight to a label with `.ABS` (through RZ, which reads 0): its operand is
/// the label's address, which depends on where the object is placed, so the object
/// carries an absolute relocation against the label.
const DIRECT: &str = "\
.global main
main:
    LEPC R[8:9], `(.L_ret)
    CALL.ABS RZ, `(.L_func)
.L_ret:
    UMOV UR2, 0x7
    EXIT
.L_func:
    UMOV UR1, 0x5
    RET.ABS R[8:9], 0x0
";

#[test]
fn abs_call_and_return_run_at_every_base() {
    linked_runs(PROGRAM, "abs", 7);
    linked_runs(DIRECT, "direct", 6);
    // The direct call's object relocates its operand against the label.
    let obj = temp("direct.o");
    let text = ok(&isa(&["disasm", obj.to_str().unwrap()]));
    assert!(
        text.contains("CALL.ABS RZ, `(.L_func) ;  // R_ISA_ADDR_ABS .L_func"),
        "{text}"
    );
    // The fixed absolute address 0x0 prints as a number, not as the label `main` that
    // happens to be there (which would assemble into a relocation that moves).
    assert!(text.contains("RET.ABS R[8:9], 0x0 ;"), "{text}");
    // So the listing assembles back to the same object.
    let again = temp("direct-again.s");
    std::fs::write(&again, &text).unwrap();
    let again_obj = temp("direct-again.o");
    ok(&isa(&[
        "asm",
        again.to_str().unwrap(),
        "-o",
        again_obj.to_str().unwrap(),
    ]));
    assert_eq!(
        std::fs::read(&again_obj).unwrap(),
        std::fs::read(&obj).unwrap()
    );
}

fn linked_runs(source: &str, name: &str, steps: u64) {
    let src = temp(&format!("{name}.s"));
    std::fs::write(&src, source).unwrap();
    let obj = temp(&format!("{name}.o"));
    ok(&isa(&[
        "asm",
        src.to_str().unwrap(),
        "-o",
        obj.to_str().unwrap(),
    ]));
    for base in ["0x0", "0x200", "0x10000"] {
        let bin = temp(&format!("{name}-{base}.bin"));
        ok(&isa(&[
            "link",
            obj.to_str().unwrap(),
            "--base",
            base,
            "-o",
            bin.to_str().unwrap(),
        ]));
        // The linked words, disassembled at their base, run on the simulator.
        let listing = ok(&isa(&["disasm", bin.to_str().unwrap(), "--base", base]));
        assert!(
            listing.contains("RET.ABS R[8:9], 0x0"),
            "the absolute offset prints as written, at any base:\n{listing}"
        );
        let program = temp(&format!("{name}-{base}.s"));
        std::fs::write(&program, &listing).unwrap();
        let state = ok(&isa(&["run", program.to_str().unwrap()]));
        let v: serde_json::Value = serde_json::from_str(&state).unwrap();
        assert_eq!(v["exited"], true, "base {base}: {state}");
        assert_eq!(v["ur"]["UR1"], 5, "base {base}: the callee ran: {state}");
        assert_eq!(v["ur"]["UR2"], 7, "base {base}: it came back: {state}");
        assert_eq!(v["steps"], steps, "base {base}: {state}");
    }
}
