//! The fuzzers' regression corpus for the spec parser and checker.
//!
//! Every input a fuzz target of `fuzz/` crashed on is kept in
//! `tests/regressions/TARGET/` and replayed here through the target's own oracle
//! (`fuzz/src/spec.rs`, included as a module), so the test fails exactly when the fuzz
//! target would. The tests below the replays state what each input broke, with the
//! diagnostic the checker now gives.
//!
//! To add a case: put the input (minimised with `-minimize_crash=1` where that keeps
//! the same failure) in the directory of the target that found it, under a name saying
//! what it exercises.

use isa_gen::source::SourceMap;
use std::path::Path;

#[path = "../../fuzz/src/replay.rs"]
mod replay;
#[path = "../../fuzz/src/spec.rs"]
mod spec;
use replay::{replay_dir, run_oracle};

/// Runs `check` on every file of `tests/regressions/<target>/`; a failure names the
/// file. Returns how many there were.
fn replay(target: &str, check: fn(&[u8])) -> usize {
    replay_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/regressions")
            .join(target),
        check,
    )
}

#[test]
fn replay_spec_bytes() {
    assert!(replay("spec_bytes", spec::check_bytes) > 0);
}

/// Our own test specs (`tests/specs/*/`) are seeds of the spec targets: each must hold
/// the targets' soundness rules (every opcode's default word decodes, prints and reads
/// back as itself), or fuzzing stops at its first input.
#[test]
fn our_test_specs_are_sound_fuzz_seeds() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/specs");
    let mut n = 0;
    for dir in std::fs::read_dir(&root).unwrap() {
        let dir = dir.unwrap().path();
        for f in std::fs::read_dir(&dir).unwrap() {
            let f = f.unwrap().path();
            if f.extension().is_some_and(|e| e == "isa") {
                run_oracle(&f, spec::check_gen);
                n += 1;
            }
        }
    }
    assert!(n >= 3, "{n} specs");
}

#[test]
fn replay_spec_text() {
    assert!(replay("spec_text", spec::check_text) > 0);
}

#[test]
fn replay_spec_gen() {
    assert!(replay("spec_gen", spec::check_gen) > 0);
}

/// The input of `tests/regressions/<target>/<name>` checked as that target checks it
/// (raw bytes: an input need not be UTF-8).
fn checked(target: &str, name: &str) -> isa_gen::Checked {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/regressions")
        .join(target)
        .join(name);
    let bytes = std::fs::read(path).unwrap();
    let mut sources = SourceMap::new();
    if target == "spec_text" {
        let base = isa_spec::FILES
            .iter()
            .find(|f| f.name == "base.isa")
            .unwrap();
        sources.add(base.name, base.text);
    }
    sources.add_bytes(name.into(), None, bytes);
    isa_gen::Spec { sources }.check()
}

#[track_caller]
fn assert_error(c: &isa_gen::Checked, needle: &str) {
    assert!(
        c.diagnostics.errors().any(|d| d.message.contains(needle)),
        "no error containing {needle:?}:\n{}",
        c.render_diagnostics()
    );
}

/// Exactly these errors (one containing each needle), however the input is spread.
#[track_caller]
fn assert_only_errors(c: &isa_gen::Checked, needles: &[&str]) {
    for needle in needles {
        assert_error(c, needle);
    }
    assert_eq!(
        c.diagnostics.errors().count(),
        needles.len(),
        "{}",
        c.render_diagnostics()
    );
}

/// spec_text: a register field outside `Order` was a modifier, printed `.?` (and the
/// generated printer called `.name()` on a register: code that did not compile).
#[test]
fn register_outside_order_is_not_a_modifier() {
    let c = checked("spec_text", "register-operand-left-out-of-order.isa");
    assert_error(
        &c,
        "`r` is a modifier, written `.VALUE`, but its type `Reg` is a register file",
    );
}

/// spec_bytes: `R 0..4; R0 = 5;` – the constant register `R0` is written like numbered
/// register 0, so `R0` printed for one read back as the other.
#[test]
fn constant_register_named_like_a_numbered_one() {
    let c = checked(
        "spec_bytes",
        "constant-register-named-like-a-numbered-one.isa",
    );
    assert_error(
        &c,
        "constant register `R0` is written like numbered register 0",
    );
}

/// spec_gen: the same with an inherited register field in a self-contained spec.
#[test]
fn inherited_register_outside_order_is_not_a_modifier() {
    let c = checked("spec_gen", "register-modifier.isa");
    assert_error(
        &c,
        "`a` is a modifier, written `.VALUE`, but its type `Reg`",
    );
}

/// spec_text: two modifiers of one opcode with a value `S32` each; `.S32` was printed
/// for one and read back as the other.
#[test]
fn modifiers_sharing_a_value_name() {
    let c = checked("spec_text", "modifiers-sharing-a-value-name.isa");
    assert_error(
        &c,
        "modifiers `dtype` and `op` both have a value `S32`: `.S32` would not say which one it sets",
    );
}

/// spec_bytes: a value `AD.neg0x01` of a modifier's type printed as `.AD.neg0x01`,
/// which reads back as two modifiers `.AD` and `.neg0x01`. (Operand types may have
/// dotted values: `SR_CTAID.X`.) One error, though two opcodes inherit the field.
#[test]
fn modifier_value_with_a_dot() {
    let c = checked("spec_bytes", "modifier-value-with-a-dot.isa");
    assert_only_errors(
        &c,
        &["its type `Optype` has the value `AD.neg0x01`: `.AD.neg0x01` would read as 2 modifiers"],
    );
}

/// spec_bytes: `Order<rd, ra, rd, ra, imm>` – a field written twice could be given two
/// values; the printed `ADD R0, R0` read back as another opcode's word.
#[test]
fn operand_twice_in_order() {
    let c = checked("spec_bytes", "operand-twice-in-order.isa");
    assert_only_errors(
        &c,
        &["`rd` is in `Order` twice", "`ra` is in `Order` twice"],
    );
}

/// spec_text: an operand type with the value `127SR_LANEID`; `S2R R0, 127SR_LANEID` was
/// printed and read back as the number 127 followed by junk.
#[test]
fn operand_value_starting_with_digits() {
    let c = checked("spec_text", "operand-value-starting-with-digits.isa");
    assert_error(
        &c,
        "`sreg` is an operand, written as its value's name, but its type `SReg` has the value `127SR_LANEID`, which reads as a number",
    );
}

/// spec_text: `Bitwidth<ura> = 33` makes `ura` a register pair and a mangled sub-field
/// name gives it a `.VALUE` suffix, so `UIADD_UI` printed `UR[0:1].False`, which the
/// assembler did not read: it lexed no suffix after a bracketed operand. Now it does,
/// and the printed line reads back.
#[test]
fn register_range_with_a_suffix() {
    let c = checked("spec_text", "register-range-with-a-suffix.isa");
    let model = c.model.as_ref().expect("the spec checks");
    let asm = isa_gen::asm::Assembler::new(model);
    let none = |_: &str| None;
    let d = asm
        .parse_line("UIADD UR0, UR[0:1].False, 0x0", 0, &none)
        .unwrap_or_else(|e| panic!("{}", e.message));
    assert_eq!(model.opcodes[d.opcode].name, "UIADD_UI");
    let again = asm
        .parse_line("UIADD UR0, UR[0:1].True, 0x0", 0, &none)
        .unwrap();
    assert_ne!(
        model.encode(&d),
        model.encode(&again),
        "the suffix is encoded"
    );
}
