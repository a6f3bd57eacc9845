//! Messages that leave the reader hunting are bugs: each error here must point at the
//! offending text, say which thing it means, and show where the other side is.

use isa_gen::{Checked, Spec};

const BASELINE: &str = include_str!("bad-specs/00-valid-baseline.isa");

fn check(text: &str) -> Checked {
    Spec::from_texts([("t.isa", text)]).check()
}

/// `text` with the first `from` replaced by `to` (which must be there).
fn edit(from: &str, to: &str) -> String {
    assert!(BASELINE.contains(from), "`{from}` not in the baseline");
    BASELINE.replacen(from, to, 1)
}

/// The only error: its location, message and rendering (with labels and notes).
fn only_error(c: &Checked) -> (String, String, String) {
    let errors: Vec<_> = c.diagnostics.errors().collect();
    assert_eq!(errors.len(), 1, "{}", c.render_diagnostics());
    let d = errors[0];
    (
        d.location(&c.sources).to_string(),
        d.message.clone(),
        c.render_diagnostics(),
    )
}

/// 1-based `line:col` of `token` on the first line containing `line`.
fn at(text: &str, line: &str, token: &str) -> String {
    let (i, l) = text
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains(line))
        .unwrap_or_else(|| panic!("no line with `{line}`"));
    let col = l.find(token).expect("token on the line");
    format!("t.isa:{}:{}", i + 1, l[..col].chars().count() + 1)
}

#[test]
fn constant_register_inside_the_range_is_reported_at_its_code() {
    let text = edit("    RZ = 255;", "    SP = 60;");
    let (loc, msg, rendered) = only_error(&check(&text));
    assert_eq!(loc, at(&text, "SP = 60", "60"));
    assert_eq!(msg, "constant register `SP` reuses the code 60 of `R60`");
    assert!(
        rendered.contains("the numbered registers R0..R254"),
        "{rendered}"
    );
}

#[test]
fn constant_register_spelled_like_a_numbered_one_is_reported_at_its_name() {
    let text = edit("    RZ = 255;", "    R0 = 255;");
    let (loc, msg, rendered) = only_error(&check(&text));
    assert_eq!(loc, at(&text, "R0 = 255", "R0"));
    assert_eq!(
        msg,
        "constant register `R0` is written like numbered register 0"
    );
    assert!(
        rendered.contains("the numbered registers R0..R254"),
        "{rendered}"
    );
}

#[test]
fn repeated_constant_register_says_which_and_where_the_first_is() {
    let text = edit("    RZ = 255;", "    RZ = 255;\n    SZ = 255;");
    let (loc, msg, rendered) = only_error(&check(&text));
    assert_eq!(loc, at(&text, "SZ = 255", "255"));
    assert_eq!(msg, "`SZ` has the code 255, which `RZ` already has");
    assert!(rendered.contains("the code of `RZ`"), "{rendered}");
    let text = edit("    RZ = 255;", "    RZ = 255;\n    RZ = 254;");
    let text = text.replace("R 0..254;", "R 0..253;");
    let (loc, msg, rendered) = only_error(&check(&text));
    assert_eq!(loc, at(&text, "RZ = 254", "RZ"));
    assert_eq!(msg, "constant register `RZ` is defined twice");
    assert!(rendered.contains("first defined here"), "{rendered}");
}

#[test]
fn an_operand_word_out_of_range_is_one_error() {
    let text = edit(
        "__DefImmediate UImm16<16> unsigned",
        "__DefImmediate UImm16<16> unsigned\n__DefOperandWord ALLR : Reg 0..300",
    )
    .replace("InList<ra, rb>;", "InList<ra, rb, ALLR>;");
    let (loc, msg, _) = only_error(&check(&text));
    assert_eq!(loc, at(&text, "ALLR : Reg", "0..300"));
    assert_eq!(msg, "range 0..300 is not within R0..R254");
}

#[test]
fn a_modifier_error_at_a_groups_field_names_the_opcode() {
    // ADD_I's `Order` leaves out `rd`, declared by the group ARITH: there it is a
    // modifier, which a register cannot be.
    let text = edit("Order<rd, ra, imm>;", "Order<ra, imm>;")
        .replace("OutList<rd>;\n    Order<ra", "OutList<>;\n    Order<ra");
    let (loc, msg, rendered) = only_error(&check(&text));
    assert_eq!(loc, at(&text, "Reg rd;", "field"));
    assert!(msg.starts_with("`rd` is a modifier"), "{msg}");
    assert!(
        rendered.contains("found in opcode `ADD_I`, whose `Order` does not list `rd` (it inherits the field from `ARITH`)"),
        "{rendered}"
    );
    assert!(rendered.contains("the `Order` of `ADD_I`"), "{rendered}");
}

/// The `__Syntax` lines of an optype are one per form and do not say which opcode
/// each is: an error about an operand names it as its own opcode does (`imm` of
/// `ADD_I`), not by the first line's name at that place (`rb`).
#[test]
fn operand_names_in_assembler_errors_follow_the_form() {
    let text = edit(
        "    field<40, 1> DType dtype = U32;\n",
        "    field<40, 1> DType dtype = U32;\n  __Syntax\n```\nADD rd, ra, rb\nADD rd, ra, imm\n```\n",
    );
    let c = check(&text);
    assert!(!c.has_errors(), "{}", c.render_diagnostics());
    let a = isa_gen::asm::Assembler::new(c.model.as_ref().unwrap());
    let e = a
        .parse_line("ADD R1, R2, 0x40001", 0, &|_| None)
        .unwrap_err();
    assert!(e.to_string().starts_with("`ADD` operand 3 (imm): "), "{e}");
    let e = a.parse_line("ADD R1, R2, P0", 0, &|_| None).unwrap_err();
    assert!(
        e.to_string().starts_with("`ADD` operand 3 (rb or imm): "),
        "{e}"
    );
    // Where the lines agree, their name is kept.
    let e = a.parse_line("ADD P0, R2, R3", 0, &|_| None).unwrap_err();
    assert!(e.to_string().starts_with("`ADD` operand 1 (rd): "), "{e}");
}
