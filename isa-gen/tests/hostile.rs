//! Limits on hostile specs: whatever a spec file holds, checking gives a clear error or
//! a model whose generated code compiles; never a panic, a hang or a stack overflow.
//!
//! Every case runs on a thread with a 2 MiB stack (the default for spawned threads,
//! smaller than the 8 MiB a `build.rs` main thread gets) and a deadline, so a stack
//! overflow aborts the test binary and a hang fails the case instead of blocking it.
//!
//! The hostile-but-valid specs are generated ([`valid_cases`]) and
//! `generated_code_of_hostile_specs_compiles` writes their code, one module each, into
//! a scratch crate and runs `cargo check` on it (with `-D warnings`).

use std::sync::mpsc;
use std::time::{Duration, Instant};

use isa_gen::codegen::{self, Options};
use isa_gen::{Checked, Spec};

/// Generous: the slowest case takes a few seconds in a debug build.
const DEADLINE: Duration = Duration::from_secs(120);

/// Checks `text` (one file) on a 2 MiB-stack thread; panics if that takes longer than
/// [`DEADLINE`]. Rendering the diagnostics is part of the check.
fn check(text: String) -> Checked {
    let (tx, rx) = mpsc::channel();
    let worker = std::thread::Builder::new()
        .name("hostile-check".into())
        .stack_size(2 << 20)
        .spawn(move || {
            let checked = Spec::from_texts([("hostile.isa", text.as_str())]).check();
            let rendered = checked.render_diagnostics();
            let _ = tx.send((checked, rendered));
        })
        .expect("spawn");
    match rx.recv_timeout(DEADLINE) {
        Ok((checked, _rendered)) => {
            worker.join().expect("checker thread");
            checked
        }
        Err(mpsc::RecvTimeoutError::Disconnected) => match worker.join() {
            Err(panic) => std::panic::resume_unwind(panic),
            Ok(()) => unreachable!("the thread sends before it ends"),
        },
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("no answer within {DEADLINE:?}: a hang"),
    }
}

/// The spec has an error whose message contains `needle`.
#[track_caller]
fn assert_error(checked: &Checked, needle: &str) {
    assert!(
        checked.has_errors(),
        "expected an error containing {needle:?}, the spec checks"
    );
    assert!(checked.model.is_none());
    assert!(
        checked
            .diagnostics
            .items
            .iter()
            .any(|d| d.is_error() && d.message.contains(needle)),
        "no error containing {needle:?}; got:\n{}",
        checked.render_diagnostics()
    );
}

/// The spec checks and generates code that parses; returns the code (without the
/// exported macro, so several can share a crate).
#[track_caller]
fn assert_generates(checked: &Checked) -> String {
    assert!(
        !checked.has_errors(),
        "expected the spec to check:\n{}",
        checked.render_diagnostics()
    );
    let model = checked.model.as_ref().expect("a model");
    let code = codegen::generate(model, &checked.sources, &Options::default());
    assert!(
        !code.contains("isa-gen produced unparsable code"),
        "generated code does not parse: {}",
        &code[..code.len().min(2000)]
    );
    code
}

// ---------------------------------------------------------------------------------
// Spec builders
// ---------------------------------------------------------------------------------

/// Types every builder below uses: an 8-bit `Optype`, a register file, an immediate.
const TYPES: &str = "\
__DefBitFieldType Optype<8>
    ADD = 0x01;
    MOV = 0x02;

__DefRegFile Reg<8>
    R 0..254;
    RZ = 255;

__DefRegFile Pred<3>
    P 0..6;
    PT = 7;

__DefImmediate UImm16<16> unsigned

__DefGroup ALL
";

/// An optype `ADD` under `parents` with one opcode `ADD_R`, plus `extra` text before it.
fn add_spec(parents: &str, extra: &str) -> String {
    format!(
        "{TYPES}{extra}
__DefOptype ADD : [{parents}]
  __Encoding
    field<0, 8> Optype optype == ADD;
    field<8, 8> Reg rd;
    field<125, 3> Pred pg = PT;

__DefOpcode ADD_R : [ADD]
  __Encoding
    field<16, 8> Reg ra;
  __OperandInfo
    InList<ra>;
    OutList<rd>;
    Order<pg, rd, ra>;
"
    )
}

// ---------------------------------------------------------------------------------
// A huge spec file
// ---------------------------------------------------------------------------------

/// `n` optypes (codes of a 16-bit `Optype`), each with an example and one opcode.
fn many_opcodes(n: usize) -> String {
    let mut s = String::from("__DefBitFieldType Optype<16>\n");
    for i in 0..n {
        s.push_str(&format!("    OP{i} = {};\n", i + 1));
    }
    s.push_str("__DefRegFile Reg<8>\n    R 0..254;\n    RZ = 255;\n");
    s.push_str("__DefRegFile Pred<3>\n    P 0..6;\n    PT = 7;\n__DefGroup ALL\n");
    for i in 0..n {
        s.push_str(&format!(
            "__DefOptype OP{i} : [ALL]\n  __Encoding\n    field<0, 16> Optype optype == OP{i};\n    \
             field<16, 8> Reg rd;\n    field<125, 3> Pred pg = PT;\n  __Description\nOptype number {i}: `rd = f(ra)`.\n  \
             __Examples\n```\nOP{i} R1, R2 ;\n```\n__DefOpcode OP{i}_R : [OP{i}]\n  __Encoding\n    \
             field<24, 8> Reg ra;\n  __OperandInfo\n    InList<ra>;\n    OutList<rd>;\n    \
             Order<pg, rd, ra>;\n"
        ));
    }
    s
}

#[test]
fn huge_spec_file_with_thousands_of_opcodes() {
    let text = many_opcodes(4000);
    assert!(text.len() > 1 << 20, "{} bytes", text.len());
    assert!(text.len() < 2 << 20, "{} bytes", text.len());
    let start = Instant::now();
    let checked = check(text);
    assert!(
        !checked.has_errors(),
        "{}",
        &checked.render_diagnostics()[..2000.min(checked.render_diagnostics().len())]
    );
    let m = checked.model.as_ref().unwrap();
    assert_eq!(m.opcodes.len(), 4000);
    // The examples are assembled by the lints.
    #[cfg(feature = "lints")]
    assert_eq!(
        checked.examples.assembled,
        4000,
        "{:?}",
        checked.diagnostics.items.first()
    );
    eprintln!(
        "4000 opcodes: checked and rendered in {:.1?}",
        start.elapsed()
    );
}

#[test]
fn huge_spec_file_generates() {
    let checked = check(many_opcodes(500));
    let start = Instant::now();
    let code = assert_generates(&checked);
    eprintln!(
        "500 opcodes: {} bytes of code in {:.1?}",
        code.len(),
        start.elapsed()
    );
}

#[test]
fn huge_prose_and_huge_lines() {
    // 16 MiB of documentation.
    let prose = "这是一段很长的说明文字, with `code` and [[ADD]] references.\n".repeat(220_000);
    let checked = check(add_spec(
        "ALL",
        &format!("__DefGroup DOCS : [ALL]\n  __Description\n{prose}"),
    ));
    assert!(!checked.has_errors(), "{}", checked.render_diagnostics());

    // A 1 MiB identifier, a 1 MiB number and a 1 MiB line of junk.
    let long = "X".repeat(1 << 20);
    let checked = check(add_spec(
        "ALL",
        &format!("__DefBitFieldType {long}<4>\n    A;\n"),
    ));
    assert!(!checked.has_errors(), "{}", checked.render_diagnostics());
    assert_error(
        &check(format!(
            "__DefBitFieldType T<{}>\n    A;\n",
            "9".repeat(1 << 20)
        )),
        "expected a number that fits in 128 bits",
    );
    assert_error(
        &check(format!("{TYPES}{}\n", "(".repeat(1 << 20))),
        "expected a section keyword, found `(`",
    );
}

#[test]
fn files_too_big_to_be_specs() {
    // A (sparse) 65 MiB file, and an endless one: a clear error, no exhausted memory.
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("hostile-huge");
    std::fs::create_dir_all(&dir).unwrap();
    let big = dir.join("big.isa");
    std::fs::File::create(&big)
        .unwrap()
        .set_len(isa_gen::MAX_FILE_BYTES + 1)
        .unwrap();
    let mut paths = vec![big];
    if std::path::Path::new("/dev/zero").exists() {
        paths.push("/dev/zero".into());
    }
    for p in paths {
        let start = Instant::now();
        let err = Spec::load(&[&p]).expect_err("too big");
        assert!(err.to_string().contains("larger than 64 MiB"), "{err}");
        assert!(start.elapsed() < DEADLINE);
    }
}

// ---------------------------------------------------------------------------------
// Deep nesting
// ---------------------------------------------------------------------------------

/// A chain of `depth` groups `G0 : [ALL]`, `G1 : [G0]`, … with `ADD` below the last.
fn group_chain(depth: usize) -> String {
    let mut extra = String::from("__DefGroup G0 : [ALL]\n");
    for i in 1..depth {
        extra.push_str(&format!("__DefGroup G{i} : [G{}]\n", i - 1));
    }
    add_spec(&format!("G{}", depth - 1), &extra)
}

#[test]
fn deeply_nested_groups() {
    // Within the documented limit of 256 levels: fine.
    let checked = check(group_chain(250));
    assert!(!checked.has_errors(), "{}", checked.render_diagnostics());
    assert_eq!(
        checked.model.as_ref().unwrap().opcodes[0].ancestors.len(),
        252
    );
    // Beyond it: a clear error, also for absurd depths (no stack overflow).
    for depth in [300, 100_000] {
        assert_error(&check(group_chain(depth)), "deeper than 256");
    }
}

/// A Bitwidth expression of `depth` nested parentheses / prefix operators.
fn nested_expr(depth: usize, open: &str, close: &str) -> String {
    add_spec("ALL", "").replace(
        "    Order<pg, rd, ra>;\n",
        &format!(
            "    Order<pg, rd, ra>;\n    Bitwidth<rd> = {}32{};\n",
            open.repeat(depth),
            close.repeat(depth)
        ),
    )
}

#[test]
fn deeply_nested_expressions() {
    // Shallow ones are fine.
    for (open, close) in [("(", ")"), ("-", ""), ("!", ""), ("not ", "")] {
        let checked = check(nested_expr(4, open, close));
        if open == "!" || open == "not " {
            // The expression is a width: negating it is a type error, not a parse one.
            assert_error(&checked, "`not` needs a condition");
        } else {
            assert!(!checked.has_errors(), "{}", checked.render_diagnostics());
        }
    }
    let checked = check(nested_expr(40, "(", ")"));
    assert!(!checked.has_errors(), "{}", checked.render_diagnostics());
    // Past 64 levels: an error, however deep (no stack overflow in the parser).
    for depth in [65, 1000, 200_000] {
        for (open, close) in [("(", ")"), ("-", ""), ("!", ""), ("not ", "")] {
            assert_error(&check(nested_expr(depth, open, close)), "nested at most");
        }
    }
}

#[test]
fn long_flat_expressions() {
    // 100,000 terms in one left-associative chain: the tree is as deep as it is long.
    for op in [" + ", " * ", " - ", " or ", " and ", " == "] {
        let chain = vec!["1"; 100_000].join(op);
        let text = add_spec("ALL", "").replace(
            "    Order<pg, rd, ra>;\n",
            &format!("    Order<pg, rd, ra>;\n    Bitwidth<rd> = {chain};\n"),
        );
        // Each operator of a chain is a level: refused at the parser's depth limit.
        assert_error(&check(text), "nested at most 64 deep");
    }
    let chain = vec!["(dtype == U64)"; 50_000].join(" or ");
    let text = add_spec("ALL", "").replace(
        "    Order<pg, rd, ra>;\n",
        &format!("    Order<pg, rd, ra>;\n  __Exception\n    EncodingError<IllegalBitFieldValue, \"x\"> = {chain};\n"),
    );
    assert_error(&check(text), "nested at most 64 deep");
}

// ---------------------------------------------------------------------------------
// Many parents, diamonds, cycles
// ---------------------------------------------------------------------------------

#[test]
fn a_thousand_parents() {
    let mut extra = String::new();
    let mut parents = Vec::new();
    for i in 0..1000 {
        extra.push_str(&format!(
            "__DefGroup P{i} : [ALL]\n  __Description\nParent {i}.\n"
        ));
        parents.push(format!("P{i}"));
    }
    let checked = check(add_spec(&parents.join(", "), &extra));
    assert!(!checked.has_errors(), "{}", checked.render_diagnostics());
    assert_eq!(
        checked.model.as_ref().unwrap().opcodes[0].ancestors.len(),
        1002
    );

    // A thousand parents that all declare the same field: one field.
    let mut extra = String::new();
    for i in 0..1000 {
        extra.push_str(&format!(
            "__DefGroup P{i} : [ALL]\n  __Encoding\n    field<100, 8> Optype imm = ADD;\n"
        ));
    }
    let checked = check(add_spec(&parents.join(", "), &extra));
    // Identical declarations from unrelated parents merge (README §5.3).
    assert!(!checked.has_errors(), "{}", checked.render_diagnostics());
    let op = &checked.model.as_ref().unwrap().opcodes[0];
    assert_eq!(op.fields.iter().filter(|f| f.name == "imm").count(), 1);

    // The same parent a thousand times: an error per repetition, no blow-up.
    let same = vec!["ALL"; 1000].join(", ");
    assert_error(&check(add_spec(&same, "")), "twice");
}

#[test]
fn diamond_ladder_does_not_explode() {
    // 64 layers of two groups, each inheriting from both groups of the layer above:
    // 2^64 inheritance paths, 130 ancestors. Every eighth layer declares a field.
    let mut extra = String::from("__DefGroup L0a : [ALL]\n__DefGroup L0b : [ALL]\n");
    for i in 1..64 {
        for side in ["a", "b"] {
            extra.push_str(&format!(
                "__DefGroup L{i}{side} : [L{p}a, L{p}b]\n",
                p = i - 1
            ));
            if side == "a" && i % 8 == 0 {
                extra.push_str(&format!(
                    "  __Encoding\n    field<{}, 8> Optype f{i} == ADD;\n",
                    32 + i
                ));
            }
        }
    }
    let checked = check(add_spec("L63a, L63b", &extra));
    assert!(!checked.has_errors(), "{}", checked.render_diagnostics());
    let op = &checked.model.as_ref().unwrap().opcodes[0];
    assert_eq!(op.ancestors.len(), 130);
    assert_eq!(op.fields.len(), 4 + 7);
}

#[test]
fn inheritance_cycles() {
    // Two groups.
    let extra = "__DefGroup A : [B]\n__DefGroup B : [A]\n";
    assert_error(&check(add_spec("A", extra)), "inheritance cycle");
    // 200 groups in one cycle, with the opcode below it; and a cycle nothing inherits
    // from.
    let cycle = |n: usize| {
        let mut extra = format!("__DefGroup C0 : [C{}]\n", n - 1);
        for i in 1..n {
            extra.push_str(&format!("__DefGroup C{i} : [C{}]\n", i - 1));
        }
        extra
    };
    assert_error(&check(add_spec("C100", &cycle(200))), "inheritance cycle");
    assert_error(&check(add_spec("ALL", &cycle(200))), "inheritance cycle");
    // A cycle longer than the depth limit is cut where it gets too deep.
    assert_error(
        &check(add_spec("C500", &cycle(1000))),
        "inheritance deeper than 256",
    );
    // The optype in its own ancestry through an opcode-free diamond.
    let extra = "__DefGroup D1 : [ALL, ADD]\n__DefGroup D2 : [D1]\n";
    assert_error(&check(add_spec("D1, D2", extra)), "inheritance cycle");
    // An optype inheriting from its own opcode.
    assert_error(
        &check(add_spec("ADD_R", "")),
        "`ADD_R` is an opcode; only groups and optypes can be parents",
    );
}

// ---------------------------------------------------------------------------------
// Big enums
// ---------------------------------------------------------------------------------

/// A 14-bit enum with `n` values, used as a modifier of `ADD_R`.
fn big_enum(n: usize, width: u32) -> String {
    let mut extra = format!("__DefBitFieldType Big<{width}>\n");
    for i in 0..n {
        extra.push_str(&format!("    V{i}_X;\n"));
    }
    add_spec("ALL", &extra).replace(
        "    field<16, 8> Reg ra;\n",
        &format!("    field<16, 8> Reg ra;\n    field<32, {width}> Big big = V0_X;\n"),
    )
}

#[test]
fn ten_thousand_value_enum() {
    let start = Instant::now();
    let checked = check(big_enum(10_000, 14));
    let code = assert_generates(&checked);
    eprintln!(
        "10,000-value enum: checked and generated in {:.1?}",
        start.elapsed()
    );
    assert!(code.contains("V9999X"));
    // Too many values for the width: one clear error, not 10,000 lines of them.
    let checked = check(big_enum(10_000, 8));
    assert_error(&checked, "does not fit");
}

#[test]
fn a_definition_with_a_hundred_thousand_fields() {
    // Name lookups, merging and overlap checks per field made this quadratic (80,000
    // fields took 45 s in a release build). An opcode cannot have more than 128 fields.
    let mut fields = String::new();
    for i in 0..100_000 {
        fields.push_str(&format!("    field<{}, 8> Reg f{i};\n", 24 + i % 96));
    }
    let text = add_spec("ALL", "").replace(
        "    field<16, 8> Reg ra;\n",
        &format!("    field<16, 8> Reg ra;\n{fields}"),
    );
    let checked = check(text);
    assert_error(
        &checked,
        "opcode `ADD_R` has 100004 fields, but a 128-bit word has room for at most 128",
    );
    assert_eq!(checked.diagnostics.errors().count(), 1);
}

#[test]
fn enum_values_are_checked_in_linear_time() {
    // 200,000 values: a search of the earlier values per value (names and codes) is
    // 2·10^10 comparisons, far past the deadline; with indexes it takes a moment.
    let start = Instant::now();
    let checked = check(big_enum(200_000, 18));
    assert!(!checked.has_errors(), "{}", checked.render_diagnostics());
    // Every value repeating one code: 199,999 errors, each found and rendered.
    let text = big_enum(200_000, 18)
        .replace("_X;\n", "_X = 3;\n")
        .replace("big = V0_X = 3;", "big = V0_X;");
    let checked = check(text);
    let errors: Vec<_> = checked.diagnostics.errors().collect();
    assert_eq!(errors.len(), 199_999, "{}", errors[0].message);
    assert!(errors
        .iter()
        .all(|d| d.message.contains("both have code 0x3")));
    eprintln!("200,000-value enums: {:.1?}", start.elapsed());
}

// ---------------------------------------------------------------------------------
// Names
// ---------------------------------------------------------------------------------

#[test]
fn names_colliding_after_case_conversion() {
    // Types.
    let extra = "__DefBitFieldType Foo_Bar<1>\n    A;\n__DefBitFieldType FooBar<1>\n    A;\n";
    assert_error(
        &check(add_spec("ALL", extra)),
        "both become the Rust name `FooBar`",
    );
    // Opcodes (and an opcode against a type).
    let text = add_spec("ALL", "")
        + "__DefOpcode AddR : [ALL]\n  __Encoding\n    field<0, 8> Optype optype == MOV;\n  \
           __OperandInfo\n    Order<>;\n";
    assert_error(&check(text), "both become the Rust name `AddR`");
    let extra = "__DefBitFieldType ADD_R<1>\n    A;\n";
    assert_error(
        &check(add_spec("ALL", extra).replace("ADD_R<1>", "AddR<1>")),
        "`AddR`",
    );
    // Enum values: `A_B`/`a_b`, `32`/`V32`, dotted/underscored (`A_B`/`AB` do not
    // collide: `AB` becomes `Ab`).
    for (a, b) in [
        ("A_B", "a_b"),
        ("32", "V32"),
        ("X.Y", "X_Y"),
        ("fooBar", "FOO_BAR"),
        ("Self", "self_"),
    ] {
        let extra = format!("__DefBitFieldType E<2>\n    {a};\n    {b};\n");
        assert_error(
            &check(add_spec("ALL", &extra)),
            "both become the Rust variant",
        );
    }
    // Fields: `pg.not`/`pg_not`, `Foo`/`foo`, `type`/`type_` (keyword escaping).
    for (a, b) in [("ra.not", "ra_not"), ("Foo", "foo"), ("type", "type_")] {
        // A two-valued type, which a `.not` sub-field needs.
        let bit = "__DefBitFieldType Bit<1>\n    False;\n    True;\n";
        let text = add_spec("ALL", bit).replace(
            "    field<16, 8> Reg ra;\n",
            &format!(
                "    field<16, 8> Reg ra;\n    field<40, 1> Bit {a};\n    field<48, 1> Bit {b};\n"
            ),
        );
        let operands: Vec<&str> = [a, b].into_iter().filter(|n| !n.contains('.')).collect();
        let text = text.replace(
            "Order<pg, rd, ra>",
            &format!("Order<pg, rd, ra, {}>", operands.join(", ")),
        );
        assert_error(&check(text), "both become the Rust field");
    }
    // Names the generated API defines itself.
    for reserved in ["Instruction", "Opcode", "DecodeError", "Option", "Result"] {
        let extra = format!("__DefBitFieldType {reserved}<1>\n    A;\n");
        assert_error(
            &check(add_spec("ALL", &extra)),
            "a name the generated API defines itself",
        );
    }
}

/// Rust keywords (and names close to them) as type, value, field and opcode names:
/// each is escaped (`type` → `Type`, `Self` → `Self_`, `fn` → `fn_`) and the code
/// compiles (see `generated_code_of_hostile_specs_compiles`).
const TYPE_NAMES: &[&str] = &[
    "type", "Self", "super", "crate", "match", "async", "dyn", "struct", "impl", "abstract", "try",
    "gen", "union", "r",
];
const VALUE_NAMES: &[&str] = &[
    "type", "fn", "Self", "super", "crate", "match", "async", "dyn", "true", "false", "None",
    "Some", "Ok", "Err", "r", "_", "0",
];
const FIELD_NAMES: &[&str] = &[
    "type", "fn", "self", "super", "crate", "match", "async", "dyn", "true", "None", "r", "_",
    "encode", "new", "bits", "core", "std",
];
const OPCODE_NAMES: &[&str] = &["where", "loop", "box", "static", "SUB", "READ", "FAIL"];

fn keyword_spec() -> String {
    let mut s = String::from(TYPES);
    s.push_str("__DefBitFieldType Sel<5>\n");
    for i in 0..32 {
        s.push_str(&format!("    S{i};\n"));
    }
    for (i, t) in TYPE_NAMES.iter().enumerate() {
        s.push_str(&format!("__DefBitFieldType {t}<5>\n"));
        for (j, v) in VALUE_NAMES.iter().enumerate() {
            s.push_str(&format!("    {v} = {};\n", (i + j) % 32));
        }
    }
    // One opcode per keyword field (an opcode may have at most seven modifiers), and
    // opcodes named like keywords.
    let fields = FIELD_NAMES
        .iter()
        .map(|f| (format!("KW{f}"), format!("type {f} = Self")));
    let opcodes = OPCODE_NAMES
        .iter()
        .map(|o| (o.to_string(), "Self self = crate".to_string()));
    for (i, (name, field)) in fields.chain(opcodes).enumerate() {
        s.push_str(&format!(
            "__DefOptype OPT{i} : [ALL]\n  __Encoding\n    field<0, 8> Optype optype == MOV;\n    \
             field<120, 5> Sel sel == S{i};\n    field<125, 3> Pred pg = PT;\n    \
             field<8, 8> Reg rd;\n    field<16, 5> {field};\n  __OperandInfo\n    \
             Order<pg, rd>;\n__DefOpcode {name} : [OPT{i}]\n"
        ));
    }
    s
}

#[test]
fn rust_keywords_as_names() {
    let code = assert_generates(&check(keyword_spec()));
    for escaped in [
        "pub enum Type",
        "pub enum Self_",
        "Type::Self_",
        "pub fn_:",
        "pub self_:",
        "Where",
        "pub struct Sub {",
        "pub struct Read {",
    ] {
        assert!(
            code.contains(escaped),
            "no `{escaped}` in the generated code"
        );
    }
}

#[test]
fn more_operands_or_modifiers_than_the_assembler_reads() {
    // The lexer reads at most 12 operands and 8 mnemonic parts; the interpreting
    // matcher has no such limit, so the two tiers would disagree on what such an
    // opcode prints.
    assert_eq!(codegen::names::MAX_OPERANDS, 12);
    assert_eq!(codegen::names::MAX_MNEMONIC_PARTS, 8);
    let operands = |n: usize| {
        let fields: String = (0..n)
            .map(|i| format!("    field<{}, 8> Reg r{i};\n", 24 + 8 * i))
            .collect();
        let names: Vec<String> = (0..n).map(|i| format!("r{i}")).collect();
        add_spec("ALL", "")
            .replace(
                "    field<16, 8> Reg ra;\n",
                &format!("    field<16, 8> Reg ra;\n{fields}"),
            )
            .replace(
                "Order<pg, rd, ra>",
                &format!("Order<pg, rd, ra, {}>", names.join(", ")),
            )
    };
    assert!(!check(operands(10)).has_errors()); // 12 operands
    assert_error(
        &check(operands(11)),
        "has 13 operands; the assembler reads at most 12",
    );
    let modifiers = |n: usize| {
        let mut extra = String::new();
        let mut fields = String::new();
        for i in 0..n {
            extra.push_str(&format!(
                "__DefBitFieldType M{i}<1>\n    A{i};\n    B{i};\n"
            ));
            fields.push_str(&format!("    field<{}, 1> M{i} m{i} = A{i};\n", 40 + i));
        }
        add_spec("ALL", &extra).replace(
            "    field<16, 8> Reg ra;\n",
            &format!("    field<16, 8> Reg ra;\n{fields}"),
        )
    };
    assert!(!check(modifiers(7)).has_errors()); // `ADD` + 7
    assert_error(
        &check(modifiers(8)),
        "has 8 modifiers after a 1-word mnemonic",
    );
}

#[test]
fn mnemonic_that_is_another_mnemonic_with_a_modifier() {
    // `ADD` with its modifier `.X` prints `ADD.X R1, R2`, which reads back as optype
    // `ADD_X`: an error, not a silent change of instruction.
    let extra = "__DefBitFieldType Ext<1>\n    NoX;\n    X;\n";
    let text = add_spec("ALL", extra).replace(
        "    field<16, 8> Reg ra;\n",
        "    field<16, 8> Reg ra;\n    field<40, 1> Ext ext = NoX;\n",
    )
        + "__DefOptype ADD_X : [ALL]\n  __Encoding\n    field<0, 8> Optype optype == MOV;\n  \
         __OperandInfo\n    Order<>;\n__DefOpcode ADD_X_I : [ADD_X]\n";
    assert_error(
        &check(text.clone()),
        "mnemonic `ADD.X` of `ADD_X_I` is also `ADD` with the modifier `.X` of `ADD_R`",
    );
    // Without the modifier value there is nothing to confuse.
    assert!(!check(text.replace("    X;\n", "    Y;\n")).has_errors());
}

#[test]
fn constant_register_spelled_like_a_numbered_one() {
    let text = add_spec("ALL", "").replace("    RZ = 255;\n", "    R0 = 255;\n");
    assert_error(
        &check(text),
        "constant register `R0` is written like numbered register 0",
    );
    // `R255` is no numbered register of `R 0..254`: fine.
    let text = add_spec("ALL", "").replace("    RZ = 255;\n", "    R255 = 255;\n");
    assert!(!check(text).has_errors());
}

#[test]
fn modifiers_without_value_names() {
    // A field outside `Order` is a modifier, printed `.VALUE`: an immediate, a register
    // or a `.VALUE` sub-field of one has no value names. (The generated printer called
    // `.name()` on them and did not compile.)
    for decl in [
        "    field<48, 16> UImm16 idx = 0;\n",
        "    field<48, 8> Reg rx = R1;\n",
        "    field<48, 16> UImm16 ra.sel = 0;\n",
    ] {
        let text = add_spec("ALL", "").replace(
            "    field<16, 8> Reg ra;\n",
            &format!("    field<16, 8> Reg ra;\n{decl}"),
        );
        assert_error(&check(text), "written `.VALUE`, but its type");
    }
    // The symbol sub-fields (`.not`, `.neg`, `.bitnot`) may be of any type, as wide as
    // the type needs.
    let text = add_spec("ALL", "").replace(
        "    field<16, 8> Reg ra;\n",
        "    field<16, 8> Reg ra;\n    field<48, 16> UImm16 ra.neg = 0;\n",
    );
    let checked = check(text);
    assert!(!checked.has_errors(), "{}", checked.render_diagnostics());
    // Narrower than its type, it is refused like any field.
    let text = add_spec("ALL", "").replace(
        "    field<16, 8> Reg ra;\n",
        "    field<16, 8> Reg ra;\n    field<48, 1> UImm16 ra.neg = 0;\n",
    );
    assert_error(
        &check(text),
        "field `ra.neg` is 1 bits wide but its type `UImm16` needs 16",
    );
}

// ---------------------------------------------------------------------------------
// Hostile but valid: generated code compiles
// ---------------------------------------------------------------------------------

/// Small specs that check and must generate code that compiles: (module name, spec).
const WIDE_REGISTERS: &str = "\
__DefBitFieldType Op<8>
    A = 1;
    B = 2;
    C = 3;
    D = 4;
    E = 5;
__DefBitFieldType Big<40>
    SMALL = 1;
    LARGE = 1099511627775;
__DefRegFile H<9>
    H 0..510;
__DefRegFile F8<8>
    F 0..255;
__DefRegFile F16<16>
    G 0..65535;
__DefRegFile F32<32>
    K 0..4294967295;
__DefRegFile W<16>
    W 0..65000;
    WZ = 65535;
__DefRegFile Q<40>
    Q 0..100000;
    QZ = 1099511627775;
__DefOptype A
__Encoding
    field<120, 8> Op op == A;
__DefOpcode A_X : [A]
__Encoding
    field<8, 9> H hd;
__OperandInfo
    Order<hd>;
    OutList<hd>;
__DefOptype B
__Encoding
    field<120, 8> Op op == B;
__DefOpcode B_X : [B]
__Encoding
    field<8, 16> W wd;
    field<24, 16> W wa;
__OperandInfo
    Order<wd, wa>;
    InList<wa>;
    OutList<wd>;
    Bitwidth<wd> = 64;
__DefOptype C
__Encoding
    field<120, 8> Op op == C;
__DefOpcode C_X : [C]
__Encoding
    field<8, 40> Q qd;
__OperandInfo
    Order<qd>;
    InList<qd>;
__DefOptype D
__Encoding
    field<120, 8> Op op == D;
__DefOpcode D_X : [D]
__Encoding
    field<8, 8> F8 fa;
    field<16, 16> F16 fb;
    field<32, 32> F32 fc;
__OperandInfo
    Order<fa, fb, fc>;
    InList<fa, fb, fc>;
__DefOptype E
__Encoding
    field<120, 8> Op op == E;
__DefOpcode E_X : [E]
__Encoding
    field<8, 40> Big bv;
__OperandInfo
    Order<bv>;
";

const DOTTED_MNEMONICS: &str = "\
__DefBitFieldType Op<8>
    A = 1;
__DefRegFile R<8>
    R 0..254;
    RZ = 255;
__DefOptype LD_G
__Encoding
    field<120, 8> Op op == A;
__Description
Loads\ta register (a tab in the prose).
__DefOpcode LD_G_R : [LD_G]
__Encoding
    field<8, 8> R rd;
__OperandInfo
    Order<rd>;
    OutList<rd>;
";

/// More than 256 opcodes (so `Opcode` is two bytes wide), told apart by a table, each
/// with a field whose codes have gaps.
fn u16_opcodes_spec(n: usize) -> String {
    let mut s = String::from("__DefBitFieldType Op<9>\n");
    for i in 0..n {
        s.push_str(&format!("    OP{i} = {i};\n"));
    }
    s.push_str(
        "__DefBitFieldType Mode<3>\n    MA = 0;\n    MB = 1;\n    MD = 3;\n\
         __DefRegFile Reg<8>\n    R 0..254;\n    RZ = 255;\n__DefGroup ALL\n",
    );
    for i in 0..n {
        s.push_str(&format!(
            "__DefOptype OP{i} : [ALL]\n  __Encoding\n    field<0, 9> Op op == OP{i};\n    \
             field<16, 8> Reg rd;\n    field<32, 3> Mode mode = MA;\n\
             __DefOpcode OP{i}_R : [OP{i}]\n  __OperandInfo\n    InList<>;\n    OutList<rd>;\n    \
             Order<rd, mode>;\n"
        ));
    }
    s
}

fn valid_cases() -> Vec<(&'static str, String)> {
    vec![
        ("baseline", add_spec("ALL", "")),
        ("keywords", keyword_spec()),
        ("big_enum", big_enum(10_000, 14)),
        ("deep_groups", group_chain(250)),
        ("many_parents", {
            let mut extra = String::new();
            let mut parents = Vec::new();
            for i in 0..1000 {
                extra.push_str(&format!("__DefGroup P{i} : [ALL]\n"));
                parents.push(format!("P{i}"));
            }
            add_spec(&parents.join(", "), &extra)
        }),
        ("edges", edges_spec()),
        // `Opcode` two bytes wide: `Decoded` (packed) must not take references to it.
        ("u16_opcodes", u16_opcodes_spec(300)),
        ("prelude_names", prelude_spec()),
        ("local_names", local_names_spec()),
        // Register files wider than a byte (9, 16 and 40 bits, with and without a
        // constant register): their registers' storage and names; and files whose
        // numbered registers fill their storage (8, 16 and 32 bits: no bound to check);
        // an enumeration stored in a `u64` (40 bits), read by name.
        ("wide_registers", WIDE_REGISTERS.to_string()),
        // Every mnemonic has a modifier: the assembler has no one-part mnemonic.
        ("dotted_mnemonics", DOTTED_MNEMONICS.to_string()),
        // Our second spec: another head layout, a register file without a constant
        // register, absolute and scaled `CvtIShift` operands, a `.not` set as 3.
        (
            "vec",
            std::fs::read_to_string(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../tests/specs/vec/vec.isa"
            ))
            .unwrap(),
        ),
        // The decoder's less common paths: a decision tree instead of a table, wide
        // and scattered fields with undefined codes.
        (
            "decode",
            std::fs::read_to_string(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../tests/specs/decode/decode.isa"
            ))
            .unwrap(),
        ),
        // The other: the opcode split between the lowest and highest bits, no guard,
        // unsigned constant-memory offsets whose types fill their storage (`bank<8>`,
        // a 32-bit reference, a 12-bit reference as wide as its offset's storage).
        (
            "split",
            std::fs::read_to_string(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../tests/specs/split/split.isa"
            ))
            .unwrap(),
        ),
    ]
}

/// Names the generated functions use for their own parameters and locals (`word`, `w`,
/// `bits`, `regs`, `show_0`, …) as field names, in operands, modifiers, `Bitwidth`
/// expressions and exception conditions: a generated local must never shadow a field
/// binding or the other way round.
fn local_names_spec() -> String {
    const NAMES: &[&str] = &[
        "w", "word", "width", "regs", "f", "i", "negated", "operand", "bits", "s", "n", "show_0",
        "show_1", "next_0", "next_1", "after_0", "after_1", "b", "k", "count", "v", "value",
        "start", "off", "t", "line", "err", "addr", "labels", "l", "c", "x", "e", "d", "m", "r",
        "out", "insn", "opcode", "op", "code", "name", "text", "pc", "tok", "cur", "p", "a", "lo",
        "hi", "mask", "fixed", "sub", "subs", "kind", "base", "pos", "len", "items", "at", "spec",
        "cands", "m0", "best", "fail", "read", "set", "unset",
    ];
    let mut s = String::from(TYPES);
    s.push_str("__DefBitFieldType Sel<5>\n");
    for i in 0..32 {
        s.push_str(&format!("    S{i};\n"));
    }
    let mut sel = 0;
    // Operands: ten per opcode, each opcode's Bitwidth and exception reading them.
    for chunk in NAMES.chunks(10) {
        let fields: String = chunk
            .iter()
            .enumerate()
            .map(|(k, n)| format!("    field<{}, 8> Reg {n};\n", 8 + 8 * k))
            .collect();
        let (a, b, c) = (chunk[0], chunk[1 % chunk.len()], chunk[2 % chunk.len()]);
        s.push_str(&format!(
            "__DefOptype L{sel} : [ALL]\n  __Encoding\n    field<0, 8> Optype optype == MOV;\n    \
             field<120, 5> Sel sel == S{sel};\n    field<125, 3> Pred pg = PT;\n{fields}  \
             __OperandInfo\n    Order<pg, {}>;\n    Bitwidth<{a}> = 32 + ({b} == 3) * 32 + {c} * 0;\n  \
             __Exception\n    EncodingError<IllegalBitFieldValue, \"x\"> = {b} == 7 and {c} != 1;\n\
             __DefOpcode L{sel}_X : [L{sel}]\n",
            chunk.join(", ")
        ));
        sel += 1;
    }
    // Modifiers: seven per opcode, each of its own type.
    for chunk in NAMES.chunks(7) {
        let mut fields = String::new();
        for (k, n) in chunk.iter().enumerate() {
            let t = format!("T{sel}_{k}");
            s.push_str(&format!("__DefBitFieldType {t}<1>\n    {t}A;\n    {t}B;\n"));
            fields.push_str(&format!("    field<{}, 1> {t} {n} = {t}A;\n", 8 + k));
        }
        let (a, b) = (chunk[0], chunk[1 % chunk.len()]);
        s.push_str(&format!(
            "__DefOptype M{sel} : [ALL]\n  __Encoding\n    field<0, 8> Optype optype == MOV;\n    \
             field<120, 5> Sel sel == S{sel};\n    field<125, 3> Pred pg = PT;\n    \
             field<16, 8> Reg rd;\n{fields}  __OperandInfo\n    Order<pg, rd>;\n    \
             Bitwidth<rd> = 32 + ({a} == T{sel}_0B) * 32;\n  __Exception\n    \
             EncodingError<IllegalBitFieldValue, \"y\"> = {b} == T{sel}_1B;\n\
             __DefOpcode M{sel}_X : [M{sel}]\n"
        ));
        sel += 1;
    }
    assert!(sel <= 32);
    s
}

/// Extremes of the DSL in one spec: a 64-bit signed immediate in the top bits shifted
/// by 63 as a branch target, saturating `Bitwidth` arithmetic, an expression at the
/// nesting limit, a message and docs full of characters that mean something in Rust
/// (`{}`, `"#`, `*/`, a ```rust fence), composites, sub-fields, an operand word.
fn edges_spec() -> String {
    let deep = format!("{}1{}", "(".repeat(60), ")".repeat(60));
    format!(
        "{TYPES}
__DefImmediate SImm64<64> signed
__DefImmediate UImm5<5> unsigned
__DefConstMem CM<22> bank<5> offset<17>
__DefBitFieldType Ext<1>
    NoX;
    X;
__DefBitFieldType Flag<1>
    False;
    True;
__DefRegFile UReg<5>
    UR 0..30;
    URZ = 31;
__DefOperandWord PR : Pred 0..6
__DefOptype MOV : [ALL]
  __Encoding
    field<0, 8> Optype optype == MOV;
    field<56, 3> Pred pg = PT;
    field<8, 8> Reg rd;
    field<16, 8> Reg ra;
    field<24, 1> Flag ra.neg = False;
    field<25, 1> Ext ext = NoX;
    field<26, 22> CM vc = 0;
    field<48, 5> UImm5 idx = 0;
    field<59, 5> UReg ub;
    field<64, 64> SImm64 target;
  __OperandInfo
    InList<ra, vc, ub, PR>;
    OutList<rd, PR>;
    Order<pg, rd, ra, C[vc, ub], target, idx, PR>;
    Bitwidth<rd> = 32 + (ext == X) * 32 + idx * 170141183460469231731687303715884105727 * 4;
    Bitwidth<ra> = {deep} * 32;
    AsmFormat<target> = CvtIShift(target, 63);
    AsmFormat<ra.neg> = CvtINegX(ra.neg, ext);
  __Exception
    EncodingError<IllegalBitFieldValue, \"a {{}} b {{0}} }}{{ \\ ' ` #[x] */ /* r# \\n\"> = ext == X and idx > 3;
  __Description
Docs with `{{}}`, \"#, */ and a Rust fence that must not become a doctest:
```rust
compile_error!(\"a doctest ran\");
```
    indented after a blank line: not a code block either
\t\ttabs, ```
__DefOpcode MOV_X : [MOV]
  __Encoding
    field<53, 1> Flag pad == False;
"
    )
}

/// Prelude and common `std` names the generated code does not write: accepted as
/// type and opcode names.
fn prelude_spec() -> String {
    let names = [
        "Copy",
        "Send",
        "Sized",
        "Sync",
        "Unpin",
        "Drop",
        "FnMut",
        "FnOnce",
        "Box",
        "ToOwned",
        "Clone",
        "PartialEq",
        "PartialOrd",
        "Eq",
        "Ord",
        "AsRef",
        "AsMut",
        "Into",
        "Extend",
        "IntoIterator",
        "DoubleEndedIterator",
        "String",
        "ToString",
        "Vec",
        "TryFrom",
        "TryInto",
        "FromIterator",
        "Debug",
        "Display",
        "Hash",
        "Hasher",
        "Formatter",
        "FromStr",
        "Write",
        "Ordering",
        "PhantomData",
        "Range",
        "Add",
        "Sub",
        "Not",
        "Core",
        "Std",
        // Names of the lexer's types, which live in `isa-rt` and are named by path.
        "Line",
        "Tok",
        "TokCore",
        "Cur",
        "Found",
        "LexError",
        // Names of the assembler's matcher, which lives in `isa-rt` and is named by path.
        "Kind",
        "At",
        "Read",
        "Fail",
        "OpcodeSpec",
        "ModSpec",
        "GuardSpec",
        "ImmAddr",
        "NameFn",
        "CountFn",
    ];
    // Every type is generated, used or not; the first is also an operand.
    let mut extra = String::new();
    for n in names {
        extra.push_str(&format!("__DefBitFieldType {n}<1>\n    A;\n    B;\n"));
    }
    add_spec("ALL", &extra)
        .replace(
            "    field<16, 8> Reg ra;\n",
            "    field<16, 8> Reg ra;\n    field<40, 1> Copy cp = A;\n",
        )
        .replace("Order<pg, rd, ra>", "Order<pg, rd, ra, cp>")
}

#[test]
fn generated_code_of_hostile_specs_compiles() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("hostile-specs");
    let src = dir.join("src");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"hostile-specs\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n\
             [dependencies]\nisa-rt = {{ path = {:?} }}\n\n[workspace]\n",
            concat!(env!("CARGO_MANIFEST_DIR"), "/../isa-rt")
        ),
    )
    .unwrap();
    let mut lib = String::from("#![no_std]\n#![allow(rustdoc::all)]\n");
    // A spec whose code is an earlier one's but for where things are defined (deep
    // groups and a thousand parents resolve to the baseline's API) is compiled once.
    let mut compiled: Vec<(&str, String)> = Vec::new();
    for (name, text) in valid_cases() {
        let code = assert_generates(&check(text));
        let shape = without_locations(&code);
        if let Some((same, _)) = compiled.iter().find(|(_, c)| *c == shape) {
            eprintln!("{name}: the code of {same}, but for locations");
            continue;
        }
        compiled.push((name, shape));
        std::fs::write(src.join(format!("{name}.rs")), code).unwrap();
        lib.push_str(&format!(
            "pub mod {name} {{\n    include!(\"{name}.rs\");\n}}\n"
        ));
    }
    std::fs::write(src.join("lib.rs"), lib).unwrap();
    let start = Instant::now();
    // Clippy with its default lints, warnings denied: the generated code of every valid
    // spec is as clean as the bundled one's.
    let out = std::process::Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args([
            "clippy",
            "--quiet",
            "--offline",
            "--lib",
            "--",
            "-D",
            "warnings",
        ])
        .current_dir(&dir)
        .env("CARGO_TARGET_DIR", dir.join("target"))
        .output()
        .expect("run cargo");
    eprintln!(
        "cargo clippy of the generated code: {:.1?}",
        start.elapsed()
    );
    assert!(
        out.status.success(),
        "generated code does not pass clippy:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `code` with every `hostile.isa:LINE:COL` (where the docs say an item is defined)
/// made `hostile.isa:_`.
fn without_locations(code: &str) -> String {
    const FILE: &str = "hostile.isa:";
    let mut out = String::with_capacity(code.len());
    let mut rest = code;
    while let Some(at) = rest.find(FILE) {
        out.push_str(&rest[..at + FILE.len()]);
        out.push('_');
        rest = rest[at + FILE.len()..].trim_start_matches(|c: char| c.is_ascii_digit() || c == ':');
    }
    out.push_str(rest);
    out
}

#[test]
fn locations_are_all_that_without_locations_hides() {
    assert_eq!(
        without_locations("/// at `hostile.isa:23:13`.\nfn f() {}"),
        without_locations("/// at `hostile.isa:1023:7`.\nfn f() {}")
    );
    assert_ne!(
        without_locations("/// at `hostile.isa:23:13`.\nfn f() {}"),
        without_locations("/// at `hostile.isa:23:13`.\nfn g() {}")
    );
    assert_eq!(
        without_locations("a hostile.isa:1:2 b hostile.isa:3:4"),
        "a hostile.isa:_ b hostile.isa:_"
    );
}

// ---------------------------------------------------------------------------------
// Names the generated code takes for itself
// ---------------------------------------------------------------------------------

/// Names of the Rust prelude (2021) that generated code could mean when it writes them
/// unqualified.
const PRELUDE: &[&str] = &[
    "Copy",
    "Send",
    "Sized",
    "Sync",
    "Unpin",
    "Drop",
    "Fn",
    "FnMut",
    "FnOnce",
    "Box",
    "ToOwned",
    "Clone",
    "PartialEq",
    "PartialOrd",
    "Eq",
    "Ord",
    "AsRef",
    "AsMut",
    "Into",
    "From",
    "Default",
    "Iterator",
    "Extend",
    "IntoIterator",
    "DoubleEndedIterator",
    "ExactSizeIterator",
    "Option",
    "Some",
    "None",
    "Result",
    "Ok",
    "Err",
    "String",
    "ToString",
    "Vec",
    "TryFrom",
    "TryInto",
    "FromIterator",
];

/// Every identifier of `tokens`, except inside `#[derive(…)]` (derive macros live in
/// the macro namespace and expand to absolute paths) and after `::` (a segment of a
/// qualified path such as `core::ops::FnMut` cannot be shadowed by a spec name).
fn idents(tokens: proc_macro2::TokenStream, out: &mut std::collections::BTreeSet<String>) {
    use proc_macro2::TokenTree;
    let mut skip_group = false;
    let mut colons = 0;
    for tt in tokens {
        match tt {
            TokenTree::Ident(i) => {
                skip_group = i == "derive";
                if colons < 2 {
                    out.insert(i.to_string());
                }
                colons = 0;
            }
            TokenTree::Group(g) => {
                if !std::mem::take(&mut skip_group) {
                    idents(g.stream(), out);
                }
                colons = 0;
            }
            TokenTree::Punct(p) => {
                skip_group = false;
                colons = if p.as_char() == ':' { colons + 1 } else { 0 };
            }
            TokenTree::Literal(_) => {
                skip_group = false;
                colons = 0;
            }
        }
    }
}

#[test]
fn names_the_generated_code_uses_are_reserved() {
    let checked = check(add_spec("ALL", ""));
    let code = assert_generates(&checked);
    let model = checked.model.as_ref().unwrap();
    let from_spec: std::collections::BTreeSet<String> = model
        .types
        .iter()
        .map(|t| codegen::names::type_name(&t.name))
        .chain(
            model
                .opcodes
                .iter()
                .map(|o| codegen::names::type_name(&o.name)),
        )
        .collect();
    let file = syn::parse_file(&code).expect("generated code parses");
    // Types (and traits) the generated code defines at top level.
    let mut own = Vec::new();
    for item in &file.items {
        let ident = match item {
            syn::Item::Struct(s) => &s.ident,
            syn::Item::Enum(e) => &e.ident,
            syn::Item::Type(t) => &t.ident,
            syn::Item::Trait(t) => &t.ident,
            syn::Item::Union(u) => &u.ident,
            _ => continue,
        };
        if !from_spec.contains(&ident.to_string()) {
            own.push(ident.to_string());
        }
    }
    assert!(own.len() > 10, "{own:?}");
    // Prelude names the generated code writes.
    let mut used = std::collections::BTreeSet::new();
    idents(code.parse().expect("tokenizes"), &mut used);
    let prelude: Vec<String> = PRELUDE
        .iter()
        .filter(|p| used.contains(**p))
        .map(|p| p.to_string())
        .collect();
    let mut unreserved = Vec::new();
    for name in own.iter().chain(&prelude) {
        // As a type, and as an opcode (`SUB` → `Sub`).
        let as_type = check(add_spec(
            "ALL",
            &format!("__DefBitFieldType {name}<1>\n    A;\n"),
        ));
        let as_opcode = check(add_spec("ALL", "").replace("ADD_R", name));
        for c in [as_type, as_opcode] {
            let clear = c.diagnostics.items.iter().any(|d| {
                d.is_error()
                    && d.message
                        .contains("a name the generated API defines itself")
            });
            if !clear {
                unreserved.push(name.clone());
            }
        }
    }
    unreserved.dedup();
    assert!(
        unreserved.is_empty(),
        "spec names that would clash with names of the generated code but are not \
         rejected (add them to isa_gen::codegen::names::RESERVED_TYPES): {unreserved:?}"
    );
}
