//! The limits of the notation documented in `isa-spec/README.md` §5.8: each rule is an
//! error (or a reading) that says so, and the workaround the reference gives works.

use isa_gen::asm::Assembler;
use isa_gen::{Checked, Spec};

const BASELINE: &str = include_str!("bad-specs/00-valid-baseline.isa");

fn check(text: &str) -> Checked {
    Spec::from_texts([("t.isa", text)]).check()
}

/// The baseline with `ADD_R`'s encoding extended by `fields` (bits 41.. are free) and
/// `types` added.
fn with(types: &str, fields: &str, operand_info: &str) -> String {
    let text = format!("{BASELINE}\n{types}\n");
    let at = "    field<32, 8> Reg rb;\n";
    let text = text.replacen(at, &format!("{at}{fields}"), 1);
    let order = "    Order<rd, ra, rb>;\n";
    text.replacen(order, &format!("{order}{operand_info}"), 1)
}

fn errors(c: &Checked) -> Vec<(String, String)> {
    c.diagnostics
        .errors()
        .map(|d| (d.location(&c.sources).to_string(), d.message.clone()))
        .collect()
}

/// `(line, col)` of `token` on the first line containing `line`, as `t.isa:L:C`.
fn at(text: &str, line: &str, token: &str) -> String {
    let (i, l) = text
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains(line))
        .unwrap();
    format!("t.isa:{}:{}", i + 1, l.find(token).unwrap() + 1)
}

/// Parses `line` with the checked spec `c` and prints it back.
fn round_trip(c: &Checked, line: &str) -> String {
    let m = c.model.as_ref().expect("model");
    let a = Assembler::new(m);
    let d = a
        .parse_line(line, 0, &|_| None)
        .unwrap_or_else(|e| panic!("{line}: {e}"));
    let back = m.decode(m.encode(&d)).expect("decodes");
    a.print(&back, 0)
}

#[test]
fn a_hidden_field_must_be_an_enumeration() {
    let text = with(
        "__DefImmediate UImm1<1> unsigned",
        "    field<41, 1> UImm1 hint = 0;\n",
        "",
    );
    let c = check(&text);
    let e = errors(&c);
    assert_eq!(e.len(), 1, "{}", c.render_diagnostics());
    assert_eq!(e[0].0, at(&text, "UImm1 hint", "field"));
    assert_eq!(
        e[0].1,
        "`hint` is a modifier, written `.VALUE`, but its type `UImm1` is an immediate and has no value names"
    );
    // The workaround: an enumeration with a default, written only when set.
    let c = check(&with(
        "__DefBitFieldType Hint<1>\n    NOHINT;\n    HINT;",
        "    field<41, 1> Hint hint = NOHINT;\n",
        "",
    ));
    assert!(!c.has_errors(), "{}", c.render_diagnostics());
    assert_eq!(round_trip(&c, "ADD R1, R2, R3"), "ADD R1, R2, R3");
    assert_eq!(round_trip(&c, "ADD.HINT R1, R2, R3"), "ADD.HINT R1, R2, R3");
}

#[test]
fn cvtinegx_needs_a_value_named_x() {
    let neg = "__DefBitFieldType Bool<1>\n    False;\n    True;";
    let info = "    AsmFormat<rb.neg> = CvtINegX(rb.neg, carry);\n";
    let fields = "    field<41, 1> Bool rb.neg = False;\n    field<42, 1> Carry carry = NOC;\n";
    let text = with(
        &format!("{neg}\n__DefBitFieldType Carry<1>\n    NOC;\n    CARRY;"),
        fields,
        info,
    );
    let c = check(&text);
    let e = errors(&c);
    assert_eq!(e.len(), 1, "{}", c.render_diagnostics());
    assert_eq!(
        e[0].1,
        "`carry` must be a modifier whose type has a value `X`"
    );
    assert_eq!(e[0].0, at(&text, "CvtINegX", "carry"));
    // The workaround: call the value `X`; `~` then goes with `.X`, `-` without.
    let c = check(&with(
        &format!("{neg}\n__DefBitFieldType Carry<1>\n    NOC;\n    X;"),
        fields,
        info,
    ));
    assert!(!c.has_errors(), "{}", c.render_diagnostics());
    assert_eq!(round_trip(&c, "ADD R1, R2, -R3"), "ADD R1, R2, -R3");
    assert_eq!(round_trip(&c, "ADD.X R1, R2, ~R3"), "ADD.X R1, R2, ~R3");
}

#[test]
fn only_not_neg_and_bitnot_are_prefix_symbols() {
    let bool_ty = "__DefBitFieldType Bool<1>\n    False;\n    True;";
    // `rb.inv` is a `.VALUE` suffix of `rb`: `R3.True`.
    let c = check(&with(
        bool_ty,
        "    field<41, 1> Bool rb.inv = False;\n",
        "",
    ));
    assert!(!c.has_errors(), "{}", c.render_diagnostics());
    assert_eq!(round_trip(&c, "ADD R1, R2, R3.True"), "ADD R1, R2, R3.True");
    let m = c.model.as_ref().unwrap();
    let e = Assembler::new(m)
        .parse_line("ADD R1, R2, ~R3", 0, &|_| None)
        .unwrap_err();
    assert!(e.to_string().contains("`~`"), "{e}");
    // The workaround: name it after the symbol.
    let c = check(&with(
        bool_ty,
        "    field<41, 1> Bool rb.bitnot = False;\n",
        "",
    ));
    assert!(!c.has_errors(), "{}", c.render_diagnostics());
    assert_eq!(round_trip(&c, "ADD R1, R2, ~R3"), "ADD R1, R2, ~R3");
    // A plain `.neg` (no `.X` choosing its form) takes `-`; `~` is refused without
    // advice about a `.X` the spec does not have.
    let c = check(&with(
        bool_ty,
        "    field<41, 1> Bool rb.neg = False;\n",
        "",
    ));
    assert!(!c.has_errors(), "{}", c.render_diagnostics());
    assert_eq!(round_trip(&c, "ADD R1, R2, -R3"), "ADD R1, R2, -R3");
    let e = Assembler::new(c.model.as_ref().unwrap())
        .parse_line("ADD R1, R2, ~R3", 0, &|_| None)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("does not take a `~` prefix") && !e.contains(".X"),
        "{e}"
    );
}

/// Register files up to 64 bits wide: numbers past 32 bits read and print, in single
/// registers and in ranges; a range past 64 bits is an error that says so.
#[test]
fn wide_register_files_read_and_print_their_numbers() {
    let text = "\
__DefBitFieldType Op<8>
    A = 1;
__DefRegFile Q<48>
    Q 0..281474976710000;
    QZ = 281474976710655;
__DefOptype C
__Encoding
    field<120, 8> Op op == A;
__DefOpcode C_X : [C]
__Encoding
    field<8, 48> Q qd;
    field<64, 48> Q qa;
__OperandInfo
    Order<qd, qa>;
    InList<qa>;
    OutList<qd>;
    Bitwidth<qd> = 64;
";
    let c = check(text);
    assert!(!c.has_errors(), "{}", c.render_diagnostics());
    for line in [
        "C Q[4294967296:4294967297], Q4294967296",
        "C Q[281474976709999:281474976710000], QZ",
        "C Q[0:1], Q281474976710000",
    ] {
        assert_eq!(round_trip(&c, line), line);
    }
    let m = c.model.as_ref().unwrap();
    let e = Assembler::new(m)
        .parse_line("C Q[1:99999999999999999999999], Q0", 0, &|_| None)
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "register range `Q[1:99999999999999999999999]` has numbers past 64 bits"
    );
}

/// A file that starts with a UTF-8 byte-order mark (as some editors save) reads as
/// the same spec, and errors after it keep their lines and columns.
#[test]
fn a_byte_order_mark_is_not_part_of_the_spec() {
    let plain = check(BASELINE);
    let marked = check(&format!("\u{feff}{BASELINE}"));
    assert!(!marked.has_errors(), "{}", marked.render_diagnostics());
    assert_eq!(
        marked.model.as_ref().unwrap().opcodes.len(),
        plain.model.as_ref().unwrap().opcodes.len()
    );
    let bad = "\u{feff}__DefBitFieldType X<2>\n    A = 9;\n";
    let e = errors(&check(bad));
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(e[0].0.starts_with("t.isa:2:"), "{e:?}");
    assert!(!check("\u{feff}")
        .diagnostics
        .errors()
        .any(|d| d.message.contains('\u{feff}')));
}
