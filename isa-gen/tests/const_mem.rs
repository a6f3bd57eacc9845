//! Constant-memory offsets are signed or unsigned as `__DefConstMem` declares them
//! (`offset<16> unsigned`); without a word they are signed, as the bundled `CMem` is.
//! The parser, the model and the interpreting assembler and printer follow the
//! declaration (the generated tier is held to the same lines in `tests/asm.rs`).

use isa_gen::asm::Assembler;
use isa_gen::model::{Model, TypeKind};
use isa_gen::{Checked, Spec};

fn check(text: &str) -> Checked {
    Spec::from_texts([("t.isa", text)]).check()
}

fn load(dir: &str) -> Model {
    let path = format!("{}/../{dir}", env!("CARGO_MANIFEST_DIR"));
    let c = Spec::load(&[path]).expect("spec loads").check();
    assert!(!c.has_errors(), "{}", c.render_diagnostics());
    c.model.expect("model")
}

/// One constant-memory type and an opcode reading it plainly and one through a
/// register (`C[k, ga]`).
fn spec(decl: &str) -> String {
    format!(
        "__DefGroup ALL
__DefRegFile GReg<4>
    G 0..14;
    GZ = 15;
{decl}
__DefBitFieldType Op<2>
    LD = 1;
    LDX = 2;
__DefOptype LD : [ALL]
  __Encoding
    field<0, 2> Op op == LD;
    field<4, 4> GReg gd;
    field<8, 20> K k;
  __OperandInfo
    Order<gd, k>;
__DefOpcode LD_K : [LD]
__DefOptype LDX : [ALL]
  __Encoding
    field<0, 2> Op op == LDX;
    field<4, 4> GReg gd;
    field<8, 20> K k;
    field<28, 4> GReg ga;
  __OperandInfo
    Order<gd, C[k, ga]>;
__DefOpcode LDX_K : [LDX]
"
    )
}

fn model_of(decl: &str) -> Model {
    let c = check(&spec(decl));
    assert!(!c.has_errors(), "{}", c.render_diagnostics());
    c.model.expect("model")
}

fn offset_signed(m: &Model) -> bool {
    match m.types.iter().find(|t| t.name == "K").map(|t| &t.kind) {
        Some(TypeKind::ConstMem { offset_signed, .. }) => *offset_signed,
        other => panic!("K is {other:?}"),
    }
}

#[test]
fn the_offset_is_signed_unless_declared_unsigned() {
    assert!(offset_signed(&model_of(
        "__DefConstMem K<20> bank<4> offset<16>"
    )));
    assert!(offset_signed(&model_of(
        "__DefConstMem K<20> bank<4> offset<16> signed"
    )));
    assert!(!offset_signed(&model_of(
        "__DefConstMem K<20> bank<4> offset<16> unsigned // a comment"
    )));
    // The bundled spec's `CMem` says neither: signed, as before.
    let bundled = load("isa-spec");
    let cmem = bundled.types.iter().find(|t| t.name == "CMem").unwrap();
    assert_eq!(cmem.cmem_offset_range(), Some((-0x10000, 0xffff)));
}

#[test]
fn a_word_other_than_signed_or_unsigned_is_a_syntax_error_at_it() {
    for (decl, col, found) in [
        (
            "__DefConstMem K<20> bank<4> offset<16> unsign",
            40,
            "`unsign`",
        ),
        ("__DefConstMem K<20> bank<4> offset<16>  <", 41, "`<`"),
    ] {
        // The first error; the type is dropped, so its uses are errors too.
        let c = check(&spec(decl));
        let e = c.diagnostics.errors().next().expect("an error");
        assert_eq!(e.location(&c.sources).to_string(), format!("t.isa:5:{col}"));
        assert_eq!(
            e.message,
            format!("expected `signed`, `unsigned` or end of line, found {found}")
        );
    }
    let c = check(&spec(
        "__DefConstMem K<20> bank<4> offset<16> unsigned signed",
    ));
    let e = c.diagnostics.errors().next().expect("an error");
    assert_eq!(e.location(&c.sources).to_string(), "t.isa:5:49");
    assert_eq!(e.message, "expected end of line, found `signed`");
}

#[test]
fn unsigned_offsets_take_the_whole_range_and_print_back() {
    let m = model_of("__DefConstMem K<20> bank<4> offset<16> unsigned");
    let a = Assembler::new(&m);
    for (line, word_k) in [
        ("LD G1, c[0xf][0xfffc]", 0xf_fffc),
        ("LD G1, c[0x0][0x0]", 0),
        ("LD G1, c[0x1][0xffff]", 0x1_ffff),
        ("LDX G1, c[0x2][G3+0xfffc]", 0x2_fffc),
        ("LDX G1, c[0x2][0x8000]", 0x2_8000),
    ] {
        let d = a
            .parse_line(line, 0, &|_| None)
            .unwrap_or_else(|e| panic!("{line}: {e}"));
        let op = &m.opcodes[d.opcode];
        assert_eq!(d.values[op.field("k").unwrap()], word_k, "{line}");
        assert_eq!(a.print(&d, 0), line);
        // The decoded word prints the same (no sign on the way back).
        let back = m.decode(m.encode(&d)).unwrap();
        assert_eq!(a.print(&back, 0), line);
    }
    for (line, col, msg) in [
        (
            "LD G1, c[0x1][-0x4]",
            8,
            "`LD` operand 2 (k): offset -0x4 is outside 0x0..=0xffff",
        ),
        (
            "LD G1, c[0x1][0x10000]",
            8,
            "`LD` operand 2 (k): offset 0x10000 is outside 0x0..=0xffff",
        ),
        (
            "LDX G1, c[0x1][G3-0x4]",
            9,
            "`LDX` operand 2 (C[k, ga]): offset -0x4 is outside 0x0..=0xffff",
        ),
        (
            "LD G1, c[0x10][0x0]",
            8,
            "`LD` operand 2 (k): bank 0x10 does not fit in 4 bits",
        ),
    ] {
        let e = a.parse_line(line, 0, &|_| None).unwrap_err();
        assert_eq!(
            (e.column(line), e.to_string()),
            (col, msg.to_string()),
            "{line}"
        );
    }
}

#[test]
fn signed_offsets_keep_rejecting_what_does_not_fit() {
    let m = model_of("__DefConstMem K<20> bank<4> offset<16>");
    let a = Assembler::new(&m);
    let line = "LD G1, c[0xf][0xfffc]";
    let e = a.parse_line(line, 0, &|_| None).unwrap_err();
    assert_eq!(e.column(line), 8);
    assert_eq!(
        e.to_string(),
        "`LD` operand 2 (k): offset 0xfffc is outside -0x8000..=0x7fff"
    );
    // Negative offsets print with a sign and read back.
    for line in ["LD G1, c[0xf][-0x4]", "LDX G1, c[0x2][G3-0x8000]"] {
        let d = a.parse_line(line, 0, &|_| None).unwrap();
        assert_eq!(a.print(&m.decode(m.encode(&d)).unwrap(), 0), line);
    }
}

/// Our two specs of the repository: `split` declares its offsets unsigned, `vec`
/// says nothing (signed).
#[test]
fn the_test_specs_read_c_0xf_0xfffc_as_declared() {
    let split = load("tests/specs/split");
    let a = Assembler::new(&split);
    let d = a
        .parse_line("LDK G1, c[0xf][0xfffc]", 0, &|_| None)
        .unwrap();
    assert_eq!(a.print(&d, 0), "LDK G1, c[0xf][0xfffc]");
    let vec = load("tests/specs/vec");
    let a = Assembler::new(&vec);
    let line = "VALU.MIN V1, V2, c[0xf][0xfffc]";
    let e = a.parse_line(line, 0, &|_| None).unwrap_err();
    assert_eq!(e.column(line), 18);
    assert!(
        e.to_string()
            .ends_with("offset 0xfffc is outside -0x8000..=0x7fff"),
        "{e}"
    );
}

/// The offset of an indexed register (`V[vb, vidx]`) follows its immediate type the
/// same way: vec's `Idx4` is unsigned, so `V[V2+0xc]` is register V14, and it printed
/// as `V[V2-0x4]` (sign-extended) before, which read back as nothing.
#[test]
fn an_unsigned_index_offset_is_never_negative() {
    let vec = load("tests/specs/vec");
    let a = Assembler::new(&vec);
    for line in ["VMOV V1, V[V2+0xc]", "VMOV V1, V[V2+0xf]", "VMOV V1, V[V2]"] {
        let d = a
            .parse_line(line, 0, &|_| None)
            .unwrap_or_else(|e| panic!("{line}: {e}"));
        assert_eq!(a.print(&vec.decode(vec.encode(&d)).unwrap(), 0), line);
    }
    for (line, msg) in [
        (
            "VMOV V1, V[V2-0x1]",
            "index offset -0x1 does not fit (0x0..=0xf)",
        ),
        (
            "VMOV V1, V[V2+0x10]",
            "index offset 0x10 does not fit (0x0..=0xf)",
        ),
    ] {
        let e = a.parse_line(line, 0, &|_| None).unwrap_err();
        assert_eq!(e.column(line), 10, "{line}");
        // The operand is named as `Order` writes it (without a `__Syntax` line).
        assert_eq!(
            e.to_string(),
            format!("`VMOV` operand 2 (V[vb, vidx]): {msg}")
        );
    }
}
