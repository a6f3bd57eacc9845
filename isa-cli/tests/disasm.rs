//! `isa disasm --hex`: what a bad word on the command line does to the others.

mod common;

use common::{isa, ok, write};

#[test]
fn a_bad_hex_word_is_reported_and_the_others_still_disassembled() {
    // NOP's word, from the assembler, so the test follows the spec.
    let asm =
        |line: &str| -> String { ok(&isa(&["asm", &write("one.s", line)])).trim().to_string() };
    let nop = asm("NOP\n");
    let exit = asm("EXIT\n");
    let o = isa(&["disasm", "--hex", &nop, "0x+5", &exit, "0x0x5"]);
    assert_eq!(o.status.code(), Some(2), "a bad argument is a usage error");
    let out = String::from_utf8(o.stdout).unwrap();
    let lines: Vec<&str> = out.lines().map(str::trim_end).collect();
    // Each word keeps the address of its place on the command line.
    assert_eq!(lines, ["/*0000*/  NOP ;", "/*0020*/  EXIT ;"]);
    let err = String::from_utf8(o.stderr).unwrap();
    assert_eq!(
        err,
        "isa disasm: word 2 (`0x+5`): not a 128-bit hex word\n\
         isa disasm: word 4 (`0x0x5`): not a 128-bit hex word\n"
    );
}

/// A spec whose opcode has sub-fields that no text shows: of a modifier (`m.q`) and of
/// a fixed field (`op.q`); `isa check` warns about both (`unprinted-field`).
const UNPRINTED: &str = "\
__DefBitFieldType Op<8>
    A = 1;
__DefBitFieldType M<2>
    X;
    Y;
__DefBitFieldType Bit<1>
    Zero;
    One;
__DefRegFile Reg<8>
    R 0..254;
    RZ = 255;
__DefGroup ALL
__DefOptype A: [ALL]
  __Encoding
    field<0, 8> Op op == A;
    field<8, 2> M m = X;
    field<16, 8> Reg rd;
    field<48, 1> Bit op.q = Zero;
    field<49, 1> Bit m.q = Zero;
  __OperandInfo
    Order<rd>;
__DefOpcode A_R: [A]
";

#[test]
fn a_word_whose_text_gives_back_another_word_is_listed_as_word() {
    let spec = write("unprinted.isa", UNPRINTED);
    let check = isa(&["check", &spec]);
    assert_eq!(check.status.code(), Some(0), "warnings only");
    assert_eq!(
        common::stderr(&check)
            .matches("warning[unprinted-field]")
            .count(),
        2
    );
    // `A R5`, then the same with `op.q` set, then with `m.q` set.
    let plain = "0x00000000000000000000000000050001";
    let words = [
        plain,
        "0x00000000000000000001000000050001",
        "0x00000000000000000002000000050001",
    ];
    let mut args = vec!["disasm", "--spec", &spec, "--hex"];
    args.extend(words);
    let o = isa(&args);
    let out = ok(&o);
    let lines: Vec<&str> = out.lines().map(str::trim_end).collect();
    assert_eq!(
        lines,
        [
            "/*0000*/  A R5 ;",
            "/*0010*/  .word 0x00000000000000000001000000050001 ;  // A R5",
            "/*0020*/  .word 0x00000000000000000002000000050001 ;  // A R5",
        ]
    );
    let err = common::stderr(&o);
    for (k, w) in words.iter().enumerate().skip(1) {
        assert!(
            err.contains(&format!(
                "warning: word {} ({w}): prints as `A R5`, which assembles to {plain}, not to this word",
                k + 1
            )),
            "{err}"
        );
    }
    // The control-flow graph shows each word as the listing does.
    let mut cfg = args.clone();
    cfg.insert(1, "--cfg");
    let dot = ok(&isa(&cfg));
    for line in &lines {
        let (addr, text) = line.split_once("  ").unwrap();
        let node = format!(
            "{addr} {}",
            text.trim_end_matches(" ;").replace(" ;  //", "  //")
        );
        assert!(dot.contains(&node), "`{node}` in:\n{dot}");
    }
    assert!(!dot.contains("/*0010*/ A R5"), "{dot}");
    // The listing assembles back to the same words, and `--strict` fails on them.
    let listing = write("unprinted.s", &out);
    let back = ok(&isa(&["asm", "--spec", &spec, &listing, "--hex"]));
    let back: Vec<&str> = back.split_whitespace().collect();
    assert_eq!(back, words);
    args.insert(1, "--strict");
    assert_eq!(isa(&args).status.code(), Some(1));
}

#[test]
fn a_word_the_spec_s_exceptions_refuse_is_listed_as_word_with_its_text() {
    // `A.Y` decodes, but the spec's exception refuses it in assembly.
    let spec = write(
        "refused.isa",
        &UNPRINTED
            .replace("    field<48, 1> Bit op.q = Zero;\n    field<49, 1> Bit m.q = Zero;\n", "")
            .replace(
                "    Order<rd>;\n",
                "    Order<rd>;\n  __Exception\n    EncodingError<IllegalBitFieldValue, \"no Y\"> = (m == \"Y\");\n",
            ),
    );
    assert!(ok(&isa(&["check", &spec])).contains("0 warnings, 0 errors"));
    let y = "0x00000000000000000000000000050101";
    let o = isa(&["disasm", "--spec", &spec, "--hex", y]);
    assert_eq!(
        ok(&o).trim_end(),
        format!("/*0000*/  .word {y} ;  // A.Y R5")
    );
    assert!(
        common::stderr(&o).contains(&format!(
            "warning: word 1 ({y}): prints as `A.Y R5`, which does not assemble back: `A.Y`: no Y"
        )),
        "{}",
        common::stderr(&o)
    );
}
