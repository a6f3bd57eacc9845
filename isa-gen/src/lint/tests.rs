use crate::syntax::ast::DocKind;
use crate::Checked;

/// Types and the root group the test specs share.
const BASE: &str = r#"__DefGroup ALL

__DefRegFile Reg<8>
    R 0..254;
    RZ = 255;

__DefRegFile Pred<3>
    P 0..6;
    PT = 7;

__DefOperandWord PR : Pred 0..6

__DefImmediate UImm16<16> unsigned

__DefConstMem CMem<22> bank<5> offset<17>

__DefBitFieldType Optype<8>
    ADD = 1;
    MOV = 2;

__DefBitFieldType SType<4>
    X = 0;
    R = 1;
    I = 2;
    C = 3;

__DefBitFieldType PModi<1>
    False = 0;
    True = 1;

__DefBitFieldType Half<1>
    LO = 0;
    HI = 1;

__DefBitFieldType Width<2>
    W32 = 0;
    W64 = 1;
    W128 = 2;

__DefGroup G : [ALL]
  __Encoding
    field<12, 3> Pred pg = PT;
    field<15, 1> PModi pg.not = False;
"#;

/// A consistent spec; each test breaks one thing in it.
const GOOD: &str = r#"__DefOptype ADD : [G]
  __Encoding
    field<0, 8> Optype optype == ADD;
    field<16, 8> Reg rd;
    field<24, 8> Reg ra;
    field<80, 1> Half half = LO;
    field<81, 2> Width width = W32;
    field<84, 1> PModi ra.neg = False;
  __Syntax
```asm
ADD{.half}{.width} Rd, {-}Ra, SrcB      $sched $req ;  // the only form

.half = {.LO*, .HI}
.width = {.W32*, .W64, .W128}
```
  __Examples
```asm
ADD R1, R2, R3;   // a comment
/*0010*/ @!P0 ADD.HI R1, -R2, 0x10 ;
.L_x_1:
ADD.W64 R[2:3], R4, c[0x0][0x10];
.L_x_2: ADD R1, R2, RZ;
```

__DefOpcode ADD_R : [ADD]
  __Encoding
    field<8, 4> SType stype == R;
    field<32, 8> Reg rb;
  __OperandInfo
    InList<pg, ra, rb>;
    OutList<rd>;
    Order<pg, rd, ra, rb>;
    Bitwidth<rd> = 32 + (width == "W64") * 32;

__DefOpcode ADD_I : [ADD]
  __Encoding
    field<8, 4> SType stype == I;
    field<32, 16> UImm16 vb;
  __OperandInfo
    InList<pg, ra>;
    OutList<rd>;
    Order<pg, rd, ra, vb>;
    Bitwidth<rd> = 32 + (width == "W64") * 32;

__DefOpcode ADD_C : [ADD]
  __Encoding
    field<8, 4> SType stype == C;
    field<32, 22> CMem vb;
  __OperandInfo
    InList<pg, ra>;
    OutList<rd>;
    Order<pg, rd, ra, vb>;
    Bitwidth<rd> = 32 + (width == "W64") * 32;

__DefOptype MOV : [G]
  __Encoding
    field<0, 8> Optype optype == MOV;
  __Syntax
```asm
MOV PR{, SrcB}      $sched $req ;
```
  __Examples
```asm
MOV PR, `(.L_x_1);
@P1 MOV PR;
```

__DefOpcode MOV_I : [MOV]
  __Encoding
    field<8, 4> SType stype == I;
    field<32, 16> UImm16 vb = 0x0;
  __OperandInfo
    InList<pg>;
    OutList<PR>;
    Order<pg, PR, vb>;
    AsmFormat<vb> = CvtIShift(vb, 4);
"#;

fn check(text: &str) -> Checked {
    let c = crate::Spec::from_texts([("base.isa", BASE), ("t.isa", text)]).check();
    assert!(!c.has_errors(), "{}", c.render_diagnostics());
    c
}

/// `text` with the first `from` replaced by `to` (which must be there).
fn edit(text: &str, from: &str, to: &str) -> String {
    assert!(text.contains(from), "`{from}` not in the test spec");
    text.replacen(from, to, 1)
}

/// `t.isa:LINE:COL` of `token` on the first line of `text` containing `line`.
fn at(text: &str, line: &str, token: &str) -> String {
    let (i, l) = text
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains(line))
        .unwrap_or_else(|| panic!("no line containing `{line}`"));
    let col = l.find(token).expect("token on the line");
    format!("t.isa:{}:{}", i + 1, l[..col].chars().count() + 1)
}

/// Asserts the warnings are exactly `expected` (location, part of the message).
fn assert_warnings(c: &Checked, expected: &[(String, &str)]) {
    let got: Vec<(String, String)> = c
        .diagnostics
        .warnings()
        .map(|d| (d.location(&c.sources).to_string(), d.message.clone()))
        .collect();
    let ok = got.len() == expected.len()
        && expected
            .iter()
            .all(|(loc, msg)| got.iter().any(|(l, m)| l == loc && m.contains(msg)));
    assert!(
        ok,
        "expected {expected:#?}\ngot:\n{}",
        c.diagnostics.render_short(&c.sources)
    );
}

#[test]
fn consistent_spec_has_no_warnings() {
    let c = check(GOOD);
    assert!(c.diagnostics.items.is_empty(), "{}", c.render_diagnostics());
}

#[test]
fn syntax_word_that_is_no_modifier() {
    let t = edit(GOOD, "ADD{.half}{.width} Rd", "ADD{.half}.SAT{.width} Rd");
    assert_warnings(
        &check(&t),
        &[(
            at(&t, "ADD{.half}.SAT", ".SAT"),
            "`.SAT` in the `__Syntax` of `ADD` is neither a modifier",
        )],
    );
    // The note lists the modifiers there are.
    let text = check(&t).render_diagnostics();
    assert!(
        text.contains("= modifiers of `ADD`: `half`, `width`"),
        "{text}"
    );
    // Values listed for a field that is no modifier: the same list.
    let t = edit(GOOD, ".half = {.LO*, .HI}", ".rd = {.LO*, .HI}");
    let text = check(&t).render_diagnostics();
    assert!(
        text.contains("lists values of `.rd`, which is not a modifier of its opcodes"),
        "{text}"
    );
    assert!(text.contains("= modifiers: `half`, `width`"), "{text}");
}

#[test]
fn syntax_unknown_mnemonic() {
    let t = edit(GOOD, "ADD{.half}{.width} Rd", "ADDX{.half}{.width} Rd");
    assert_warnings(
        &check(&t),
        &[(at(&t, "ADDX{", "ADDX"), "unknown mnemonic `ADDX`")],
    );
    // A word that starts with a digit is no mnemonic: such a line is not read as one.
    let t = edit(
        GOOD,
        "ADD{.half}{.width} Rd",
        "2D Rd, Ra\nADD{.half}{.width} Rd",
    );
    assert_warnings(&check(&t), &[]);
    // Nor is one cut short by the end of the line after a `{`.
    let t = edit(GOOD, "ADD{.half}{.width} Rd", "ADD{\nADD{.half}{.width} Rd");
    assert_warnings(&check(&t), &[]);
}

/// An optype named `MOV_W` is written `MOV.W`: every word of its name, and nothing
/// after them (the words of the name are all the mnemonic has).
#[test]
fn syntax_mnemonic_that_is_exactly_a_family_name() {
    let t = GOOD
        .replace("__DefOptype MOV : [G]", "__DefOptype MOV_W : [G]")
        .replace("__DefOpcode MOV_I : [MOV]", "__DefOpcode MOV_W_I : [MOV_W]")
        .replace("MOV PR", "MOV.W PR");
    assert!(
        t.matches("MOV.W PR").count() == 3,
        "the edit reached the syntax and examples"
    );
    assert_warnings(&check(&t), &[]);
    // One word short of the name is no mnemonic of it.
    let short = t.replacen("MOV.W PR{, SrcB}", "MOV PR{, SrcB}", 1);
    assert_warnings(
        &check(&short),
        &[(at(&short, "MOV PR{", "MOV"), "unknown mnemonic `MOV`")],
    );
}

#[test]
fn syntax_operand_count() {
    let t = edit(GOOD, "Rd, {-}Ra, SrcB ", "Rd, {-}Ra ");
    let c = check(&t);
    assert_warnings(
        &c,
        &[(
            at(&t, "Rd, {-}Ra ", "Rd"),
            "shows 2 operands, but no `ADD` opcode takes that many",
        )],
    );
    // The warning covers the operands, not the spaces before `$sched`.
    let d = c.diagnostics.warnings().next().expect("the warning");
    assert_eq!(c.sources.text(d.span), "Rd, {-}Ra");
    // With no operands at all it points at the end of the mnemonic, not at the
    // spaces after it.
    let t = edit(GOOD, "Rd, {-}Ra, SrcB ", "");
    let c = check(&t);
    assert_warnings(
        &c,
        &[(
            at(&t, "ADD{.half}{.width}   ", "   "),
            "shows 0 operands, but no `ADD` opcode takes that many",
        )],
    );
    let d = c.diagnostics.warnings().next().expect("the warning");
    assert_eq!(c.sources.text(d.span), "");
    // Optional operands and omittable ones make ranges that only need to meet.
    let t = edit(GOOD, "MOV PR{, SrcB}", "MOV PR{, SrcB}{, SrcC}");
    assert_warnings(&check(&t), &[]);
    let t = edit(GOOD, "MOV PR{, SrcB}", "MOV PR, SrcB, SrcC");
    assert_warnings(
        &check(&t),
        &[(at(&t, "MOV PR, SrcB", "PR"), "shows 3 operands")],
    );
}

#[test]
fn syntax_value_not_of_the_type() {
    let t = edit(GOOD, ".W64, .W128}", ".W64, .W256}");
    let c = check(&t);
    assert_warnings(
        &c,
        &[(
            at(&t, ".width = {", ".W256"),
            "`.W256` is not a value of `Width`, the type of `.width`",
        )],
    );
    let notes = &c.diagnostics.items[0].notes;
    assert!(
        notes.iter().any(|n| n.contains("W32, W64, W128")),
        "{notes:?}"
    );
    assert!(
        notes.iter().any(|n| n.contains("not listed: `.W128`")),
        "{notes:?}"
    );
}

#[test]
fn syntax_default_differs_from_encoding() {
    let t = edit(GOOD, "{.LO*, .HI}", "{.LO, .HI*}");
    assert_warnings(
        &check(&t),
        &[(
            at(&t, ".half = {", ".HI*"),
            "marks `.HI` as the default of `.half`, but the encoding's default is `LO`",
        )],
    );
}

#[test]
fn syntax_required_modifier_with_default() {
    let t = edit(GOOD, "ADD{.half}{.width} Rd", "ADD.half{.width} Rd");
    assert_warnings(
        &check(&t),
        &[(
            at(&t, "ADD.half", ".half"),
            "writes `.half` as required, but the encoding gives it the default `LO`",
        )],
    );
}

#[test]
fn syntax_prefix_without_sub_field() {
    let t = edit(GOOD, "{-}Ra, SrcB ", "{-}Ra, {~}SrcB ");
    assert_warnings(
        &check(&t),
        &[(
            at(&t, "{~}SrcB", "~"),
            "allows `~` before `SrcB`, but no `ADD` opcode can encode it",
        )],
    );
}

#[test]
fn syntax_incomplete_value_list() {
    let t = edit(GOOD, "{.W32*, .W64, .W128}", "{.W32*, .W64}");
    assert_warnings(
        &check(&t),
        &[(
            at(&t, ".width = {", ".width"),
            "lists only some values of `.width`: `.W128` is missing",
        )],
    );
}

/// Each kind of bad example is counted as warned, and its warning covers exactly the
/// text at fault: an unterminated address prefix its `/*`, an instruction of another
/// optype the whole instruction, an operand that does not assemble that operand.
#[test]
fn example_warnings_cover_the_text_at_fault() {
    let t = edit(GOOD, "ADD R1, R2, R3;", "ADD R1, R2, SR_CLOCK;");
    let t = edit(&t, "/*0010*/ @!P0", "/*0010 @!P0");
    let t = edit(&t, "ADD.W64 R[2:3], R4, c[0x0][0x10];", "MOV PR;");
    let c = check(&t);
    assert_eq!((c.examples.assembled, c.examples.warned), (3, 3));
    let mut got: Vec<(String, &str)> = c
        .diagnostics
        .warnings()
        .map(|d| (d.message.clone(), c.sources.text(d.span)))
        .collect();
    got.sort();
    assert_eq!(
        got,
        [
            (
                "example does not assemble: `ADD` operand 3 (SrcB): expected a Reg, a UImm16 \
                 or a constant-memory operand c[bank][offset], found SR_CLOCK"
                    .to_string(),
                "SR_CLOCK"
            ),
            (
                "example has an unterminated `/*` address prefix".to_string(),
                "/*"
            ),
            (
                "example of `ADD` assembles as `MOV_I`, which is not one of its opcodes"
                    .to_string(),
                "MOV PR"
            ),
        ]
    );
}

#[test]
fn example_undefined_value() {
    // A name that is no value of any operand's type.
    let t = edit(GOOD, "ADD R1, R2, R3;", "ADD R1, R2, SR_CLOCK;");
    assert_warnings(
        &check(&t),
        &[(
            at(&t, "ADD R1, R2, SR_CLOCK", "SR_CLOCK"),
            "example does not assemble: `ADD` operand 3 (SrcB): expected a Reg, a UImm16 or \
                 a constant-memory operand c[bank][offset], found SR_CLOCK",
        )],
    );
    // An operand's name instead of a register, with a hint.
    let t = edit(GOOD, "ADD R1, R2, R3;", "ADD rd, R2, R3;");
    let c = check(&t);
    assert_warnings(
        &c,
        &[(
            at(&t, "ADD rd,", "rd"),
            "example does not assemble: `ADD` operand 1 (Rd): expected a Reg, found rd",
        )],
    );
    assert_eq!(
        c.diagnostics.items[0].notes,
        ["`rd` is the operand's name in the spec; write a Reg instead"]
    );
}

#[test]
fn examples_without_code_block() {
    let t = edit(
        GOOD,
        "  __Examples\n```asm\nMOV PR, `(.L_x_1);\n@P1 MOV PR;\n```\n",
        "  __Examples  \nMOV moves things.\n",
    );
    assert_warnings(
        &check(&t),
        &[(
            at(&t, "__Examples  ", "__Examples"),
            "`__Examples` of `MOV` has no fenced code block",
        )],
    );
}

#[test]
fn example_stray_comma_and_operand_count() {
    // A trailing comma: at the comma.
    let t = edit(GOOD, "ADD R1, R2, R3;", "ADD R1, R2, R3,  ;");
    assert_warnings(
        &check(&t),
        &[(
            at(&t, "ADD R1, R2, R3,", ",  "),
            "example does not assemble: stray `,` at the end of the operands",
        )],
    );
    // An empty operand between two commas: at the second.
    let t = edit(GOOD, "ADD R1, R2, R3;", "ADD R1,, R2, R3;");
    assert_warnings(
        &check(&t),
        &[(
            at(&t, "ADD R1,,", ", "),
            "example does not assemble: empty operand: expected an operand before this `,`",
        )],
    );
    // Too few operands: at the end of the operands, naming the first one missing.
    let t = edit(GOOD, "ADD R1, R2, R3;", "ADD R1, R2;");
    assert_warnings(
        &check(&t),
        &[(
            at(&t, "ADD R1, R2;", ";"),
            "example does not assemble: `ADD` operand 3 (SrcB) is missing: expected a Reg, \
                 a UImm16 or a constant-memory operand c[bank][offset]",
        )],
    );
    // Too many: at the first operand too many.
    let t = edit(GOOD, "ADD R1, R2, R3;", "ADD R1, R2, R3, R4;");
    assert_warnings(
        &check(&t),
        &[(
            at(&t, "ADD R1, R2, R3, R4;", "R4"),
            "example does not assemble: too many operands: `ADD` takes 3, found 4",
        )],
    );
}

#[test]
fn example_operand_kinds() {
    // A predicate where a register belongs.
    let t = edit(GOOD, "ADD R1, R2, R3;", "ADD R1, P2, R3;");
    assert_warnings(
        &check(&t),
        &[(
            at(&t, "ADD R1, P2", "P2"),
            "example does not assemble: `ADD` operand 2 (Ra): expected a Reg, found P2",
        )],
    );
    // A negation no sub-field encodes.
    let t = edit(GOOD, "ADD R1, R2, R3;", "ADD R1, R2, -R3;");
    assert_warnings(
        &check(&t),
        &[(
            at(&t, "ADD R1, R2, -R3", "-R3"),
            "example does not assemble: `ADD` operand 3 (SrcB): this operand does not take \
                 a `-` prefix",
        )],
    );
    // A register range wider than the operand's bit width.
    let t = edit(GOOD, "ADD R1, R2, R3;", "ADD R[0:1], R2, R3;");
    assert_warnings(
        &check(&t),
        &[(
            at(&t, "ADD R[0:1]", "R[0:1]"),
            "example does not assemble: `ADD` operand 1 (Rd): R[0:1] is 64 bits but the \
                 operand is 32 bits here",
        )],
    );
    // The width follows the modifiers: `.W64` makes `Rd` a range.
    let t = edit(GOOD, "ADD R1, R2, R3;", "ADD.W64 R1, R2, R3;");
    assert_warnings(
        &check(&t),
        &[(
            at(&t, "ADD.W64 R1", "R1"),
            "example does not assemble: `ADD.W64` operand 1 (Rd): a 64-bit operand: write \
                 the register range R[1:2]",
        )],
    );
}

#[test]
fn example_mnemonic_checks() {
    // An unknown modifier: at the `.`, with the modifiers there are.
    let t = edit(GOOD, "ADD R1, R2, R3;", "ADD.SAT R1, R2, R3;");
    let c = check(&t);
    assert_warnings(
        &c,
        &[(
            at(&t, "ADD.SAT", ".SAT"),
            "example does not assemble: unknown modifier `.SAT` for `ADD`",
        )],
    );
    assert_eq!(
        c.diagnostics.items[0].notes,
        ["modifiers of `ADD`: .LO .HI .W32 .W64 .W128"]
    );
    let t = edit(GOOD, "ADD R1, R2, R3;", "ADD.HI.LO R1, R2, R3;");
    assert_warnings(
        &check(&t),
        &[(
            at(&t, "ADD.HI.LO", ".LO"),
            "example does not assemble: `.LO` and `.HI` both set the `.half` modifier of `ADD`",
        )],
    );
    let t = edit(GOOD, "ADD R1, R2, R3;", "SUB R1, R2, R3;");
    assert_warnings(
        &check(&t),
        &[(
            at(&t, "SUB R1", "SUB"),
            "example does not assemble: unknown mnemonic `SUB`",
        )],
    );
    let t = edit(GOOD, "ADD R1, R2, R3;", "DAD R1, R2, R3;");
    let c = check(&t);
    assert_warnings(&c, &[(at(&t, "DAD R1", "DAD"), "unknown mnemonic `DAD`")]);
    assert_eq!(c.diagnostics.items[0].notes, ["did you mean `ADD`?"]);
    // An instruction of another optype in `ADD`'s examples.
    let t = edit(GOOD, "ADD R1, R2, R3;", "MOV PR;");
    assert_warnings(
        &check(&t),
        &[(
            at(&t, "MOV PR;", "MOV"),
            "example of `ADD` assembles as `MOV_I`, which is not one of its opcodes",
        )],
    );
}

#[test]
fn example_address_prefixes() {
    // A good prefix, with a label: no warning.
    let t = edit(GOOD, "ADD R1, R2, R3;", "/*0x0040*/ .L_x: ADD R1, R2, R3;");
    assert_warnings(&check(&t), &[]);
    // `/*/`: the `/*` and `*/` overlap, so the prefix is unterminated (it sliced
    // `[2..1]` and panicked `isa check`).
    let t = edit(GOOD, "ADD R1, R2, R3;", "/*/ ADD R1, R2, R3;");
    let c = check(&t);
    assert_warnings(
        &c,
        &[(
            at(&t, "/*/ ADD", "/*"),
            "example has an unterminated `/*` address prefix",
        )],
    );
    assert_eq!(c.examples.warned, 1);
    // Not a hex address: warned, and the line still assembles (at address 0), as
    // do the five other examples of the test spec.
    for bad in ["0x+40", "0x0x40", "zz"] {
        let t = edit(
            GOOD,
            "ADD R1, R2, R3;",
            &format!("/* {bad} */ ADD R1, R2, R3;"),
        );
        let c = check(&t);
        assert_warnings(
            &c,
            &[(
                at(&t, "*/ ADD", "/*"),
                &format!("example address prefix `/*{bad}*/` is not a hex address"),
            )],
        );
        assert_eq!((c.examples.assembled, c.examples.warned), (6, 0), "{bad}");
    }
}

#[test]
fn bitwidth_against_siblings() {
    let t = edit(
        GOOD,
        "    Bitwidth<rd> = 32 + (width == \"W64\") * 32;\n\n__DefOpcode ADD_C",
        "    Bitwidth<rd> = 32;\n\n__DefOpcode ADD_C",
    );
    assert_warnings(
        &check(&t),
        &[(
            at(&t, "Bitwidth<rd> = 32;", "Bitwidth"),
            "`Bitwidth<rd>` of `ADD_I` is 32, but 2 of the 3 `ADD` opcodes that give it \
                 say 32 + (width == \"W64\") * 32",
        )],
    );
    // No majority: no Bitwidth warning. `ADD_R`'s `Rd` is now 64 bits without
    // `.W64`, so the examples that use `ADD_R` with a plain `R1` no longer assemble;
    // `ADD_R` is still reported (it fits every operand by kind), not `ADD_I`/`ADD_C`
    // (which reject `R3` as their `SrcB`).
    let t = edit(
        &t,
        "Bitwidth<rd> = 32 + (width",
        "Bitwidth<rd> = 64 + (width",
    );
    let range = "example does not assemble: `ADD` operand 1 (Rd): a 64-bit operand: write \
                     the register range R[1:2]";
    assert_warnings(
        &check(&t),
        &[
            (at(&t, "ADD R1, R2, R3;", "R1"), range),
            (at(&t, ".L_x_2: ADD R1, R2, RZ;", "R1"), range),
        ],
    );
}

/// The tie rule: a width needs a strict majority, so two opcodes against two is no
/// majority and neither pair is reported. A fourth `ADD` opcode (`ADD_X`) joins
/// `ADD_I` in saying 32 while `ADD_R` and `ADD_C` keep `32 + (width == "W64") * 32`;
/// moving `ADD_X` to the other side (three against one) reports `ADD_I` alone.
/// Four of six siblings agree: a majority, though not by two (`2 * 4 > 6`); the two
/// that differ are reported, each with the majority's entries beside it, and a sum of
/// three terms is written without parentheses (left to right needs none).
#[test]
fn bitwidth_majority_of_six_and_how_it_is_shown() {
    let expr = "32 + (width == \"W64\") * 32";
    let odd = "32 + (width == \"W64\") * 16 + (width == \"W128\") * 32";
    let add_x = |name: &str, k: &str, width: &str| {
        format!(
            "__DefOpcode {name} : [ADD]\n  __Encoding\n    field<8, 4> SType stype == X;\n    \
             field<90, 2> K k == {k};\n  __OperandInfo\n    InList<pg, ra>;\n    OutList<rd>;\n    \
             Order<pg, rd, ra>;\n    Bitwidth<rd> = {width};\n\n"
        )
    };
    let extra = format!(
        "__DefBitFieldType K<2>\n    K0 = 0;\n    K1 = 1;\n    K2 = 2;\n\n{}{}{}__DefOptype MOV",
        add_x("ADD_X0", "K0", expr),
        add_x("ADD_X1", "K1", odd),
        add_x("ADD_X2", "K2", "64"),
    );
    let t = edit(GOOD, "__DefOptype MOV", &extra);
    let c = check(&t);
    let said = format!("but 4 of the 6 `ADD` opcodes that give it say {expr}");
    assert_warnings(
        &c,
        &[
            // (`k` is fixed, so nothing in the text tells `ADD_X1` from `ADD_X0`.)
            (
                at(&t, "__DefOpcode ADD_X1", "ADD_X1"),
                "opcode `ADD_X1` prints as `ADD_X0`",
            ),
            (
                at(&t, &format!("Bitwidth<rd> = {odd};"), "Bitwidth"),
                &format!("`Bitwidth<rd>` of `ADD_X1` is {odd}, {said}"),
            ),
            (
                at(&t, "Bitwidth<rd> = 64;", "Bitwidth"),
                &format!("`Bitwidth<rd>` of `ADD_X2` is 64, {said}"),
            ),
        ],
    );
    for d in c
        .diagnostics
        .warnings()
        .filter(|d| d.lint == Some(crate::diag::Lint::Bitwidth))
    {
        let beside: Vec<&str> = d.secondary.iter().map(|(_, l)| l.as_str()).collect();
        assert_eq!(
            beside,
            [
                format!("{expr} in `ADD_R`"),
                format!("{expr} in `ADD_I`"),
                format!("{expr} in `ADD_C`"),
            ],
            "{}",
            d.message
        );
    }
}

#[test]
fn bitwidth_tie_between_siblings_reports_neither_side() {
    let expr = "32 + (width == \"W64\") * 32";
    let add_x = |width: &str| {
        format!(
            "__DefOpcode ADD_X : [ADD]\n  __Encoding\n    field<8, 4> SType stype == X;\n  \
             __OperandInfo\n    InList<pg, ra>;\n    OutList<rd>;\n    Order<pg, rd, ra>;\n    \
             Bitwidth<rd> = {width};\n\n__DefOptype MOV"
        )
    };
    let two_32 = edit(
        GOOD,
        &format!("    Bitwidth<rd> = {expr};\n\n__DefOpcode ADD_C"),
        "    Bitwidth<rd> = 32;\n\n__DefOpcode ADD_C",
    );
    // 2 against 2: no warning at all (and the spec is otherwise clean).
    let tie = edit(&two_32, "__DefOptype MOV", &add_x("32"));
    let c = check(&tie);
    // Four opcodes of `ADD` give `rd` a width: the vote is 2 against 2.
    let m = c.model.as_ref().expect("model");
    for name in ["ADD_R", "ADD_I", "ADD_C", "ADD_X"] {
        let op = &m.opcodes[m.opcode_by_name(name).expect(name)];
        assert_eq!(op.bitwidths.len(), 1, "{name}");
    }
    assert_warnings(&c, &[]);
    // 3 against 1: the same four opcodes, and now the one that differs is reported.
    let three = edit(&two_32, "__DefOptype MOV", &add_x(expr));
    assert_warnings(
        &check(&three),
        &[(
            at(&three, "Bitwidth<rd> = 32;", "Bitwidth"),
            "`Bitwidth<rd>` of `ADD_I` is 32, but 3 of the 4 `ADD` opcodes that give it \
                 say 32 + (width == \"W64\") * 32",
        )],
    );
}

/// The test spec with a file of corrections beside it (errors allowed).
fn check_corrected(text: &str, fix: &str) -> Checked {
    crate::Spec::from_texts([("base.isa", BASE), ("t.isa", text), ("fix.isa", fix)]).check()
}

/// `ADD_R`'s Bitwidth forgets `.W128` (as ULDC's does): a correction gives the one
/// answer, which the assembler, the register facts and the linter all read.
#[test]
fn correction_replaces_the_authors_entry() {
    let fix = "// the authors forgot .W128\n__DefCorrection ADD_R\n    \
               Bitwidth<rd> = 32 + (width == \"W64\") * 32 + (width == \"W128\") * 96;\n";
    let c = check_corrected(GOOD, fix);
    assert!(!c.has_errors(), "{}", c.render_diagnostics());
    // The corrected entry is checked like the authors' own: its siblings still forget
    // `.W128`, which the sibling lint says (at the correction).
    assert_warnings(
        &c,
        &[
            (
                at(GOOD, "Bitwidth<rd> = 32 + (width", "Bitwidth"),
                "`Bitwidth<rd>` of `ADD_R` contradicts the spec's own text; our spec corrects it",
            ),
            (
                "fix.isa:3:5".to_string(),
                "but 2 of the 3 `ADD` opcodes that give it say 32 + (width == \"W64\") * 32",
            ),
        ],
    );
    let d = c
        .diagnostics
        .items
        .iter()
        .find(|d| d.lint == Some(crate::diag::Lint::Corrected))
        .expect("the corrected lint");
    assert_eq!(
        c.sources.location(d.secondary[0].0).to_string(),
        "fix.isa:3:5",
        "the correction is shown beside the authors' entry"
    );
    let model = c.model.as_ref().expect("model");
    let asm = crate::asm::Assembler::new(model);
    let no_labels = |_: &str| None;
    let wide = asm
        .parse_line("ADD.W128 R[4:7], R1, R2", 0, &no_labels)
        .expect("the corrected width is the assembler's");
    let uses = model.reg_uses(&wide);
    assert_eq!((uses[1].first, uses[1].count), (4, 4), "{uses:?}");
    let e = asm
        .parse_line("ADD.W128 R4, R1, R2", 0, &no_labels)
        .unwrap_err();
    assert!(e.message.contains("R[4:7]"), "{}", e.message);
    // The other forms keep the authors' entry.
    let c_form = asm
        .parse_line("ADD.W128 R4, R1, 0x1", 0, &no_labels)
        .expect("ADD_I");
    assert_eq!(model.reg_uses(&c_form)[1].count, 1);
}

/// Each way a correction can be wrong is an error at the correction.
#[test]
fn correction_errors() {
    let cases: &[(&str, &str)] = &[
        (
            "__DefCorrection ADD_Q\n    OutList<rd>;\n",
            "unknown group, optype or opcode `ADD_Q`",
        ),
        (
            "__DefCorrection ADD\n    OutList<rd>;\n",
            "`ADD` gives no `OutList<…>` of its own: a correction replaces an entry the definition has",
        ),
        (
            "__DefCorrection ADD_R\n    Bitwidth<ra> = 64;\n",
            "`ADD_R` gives no `Bitwidth<ra>` of its own",
        ),
        (
            "__DefCorrection ADD_R\n    OutList<rd>;\n__DefCorrection ADD_R\n    OutList<rd, ra>;\n",
            "`OutList<…>` of `ADD_R` is corrected twice",
        ),
        ("__DefCorrection ADD_R\n", "`__DefCorrection ADD_R` corrects nothing"),
        // The corrected entry is checked like the authors' own.
        ("__DefCorrection ADD_R\n    OutList<rdx>;\n", "unknown operand `rdx` in `OutList`"),
        // Only a register-indexed operand of `Order` may be listed as a composite.
        (
            "__DefCorrection ADD_R\n    InList<pg, ra, R[ra, rb]>;\n",
            "a composite operand in a list must be a register-indexed operand of `Order`",
        ),
    ];
    for (fix, needle) in cases {
        let c = check_corrected(GOOD, fix);
        assert!(
            c.diagnostics.errors().any(|d| d.message.contains(needle)
                && d.location(&c.sources).to_string().starts_with("fix.isa:")),
            "`{fix}`: expected an error in fix.isa containing `{needle}`, got:\n{}",
            c.diagnostics.render_short(&c.sources)
        );
    }
    let c = check_corrected(GOOD, "__DefCorrection ADD_Rr\n    OutList<rd>;\n");
    let d = c.diagnostics.errors().next().expect("an error");
    assert!(
        d.notes.iter().any(|n| n.contains("did you mean `ADD_R`?")),
        "{:?}",
        d.notes
    );
}

/// A register-indexed operand listed in `OutList` stands for every register of its file,
/// written maybe (which one is decided at run time): no single register's value ends.
#[test]
fn indexed_register_in_a_list() {
    let t = format!(
        "{GOOD}\n__DefOptype SET : [G]\n  __Encoding\n    field<0, 8> Optype optype == MOV;\n\
         __DefOpcode SET_R : [SET]\n  __Encoding\n    field<8, 4> SType stype == C;\n    \
         field<16, 8> Reg ra;\n    field<24, 16> UImm16 idx;\n    field<40, 8> Reg rb;\n  \
         __OperandInfo\n    InList<pg, ra, rb>;\n    OutList<>;\n    Order<pg, R[ra, idx], rb>;\n"
    );
    let c = check_corrected(&t, "__DefCorrection SET_R\n    OutList<R[ra, idx]>;\n");
    assert!(!c.has_errors(), "{}", c.render_diagnostics());
    let model = c.model.as_ref().expect("model");
    let asm = crate::asm::Assembler::new(model);
    let d = asm
        .parse_line("SET R[R2+0x4], R7", 0, &|_| None)
        .expect("SET");
    let uses = model.reg_uses(&d);
    let dynamic = uses
        .iter()
        .find(|u| u.count > 1)
        .unwrap_or_else(|| panic!("no use covers the file: {uses:?}"));
    assert_eq!((dynamic.first, dynamic.count), (0, 255));
    assert_eq!(dynamic.access, crate::model::Access::CondWrite);
    let ops = model.opcodes[d.opcode].reg_operands(model);
    assert!(ops.iter().any(|o| o.name == "R[ra, idx]"), "{ops:?}");
}

#[test]
fn fixed_field_against_opcode_name() {
    let t = edit(
        GOOD,
        "__DefOpcode ADD_R : [ADD]",
        "__DefOpcode ADD_X : [ADD]",
    );
    assert_warnings(
        &check(&t),
        &[(
            at(&t, "stype == R;", "field"),
            "opcode `ADD_X` is named for `stype == X` but fixes `stype == R`",
        )],
    );
}

/// Two opcodes of one mnemonic that print alike: the one the assembler does not pick
/// cannot be written in assembly.
#[test]
fn opcode_that_prints_as_another() {
    // ADD_C with a register operand where ADD_R has one: `ADD R0, R0, R0` is ADD_R.
    let t = edit(
        GOOD,
        "    field<32, 22> CMem vb;",
        "    field<32, 8> Reg vb;",
    );
    let c = check(&t);
    let same: Vec<String> = c
        .diagnostics
        .warnings()
        .filter(|d| d.lint == Some(crate::diag::Lint::SameText))
        .map(|d| format!("{}: {}", d.location(&c.sources), d.message))
        .collect();
    assert_eq!(
        same,
        [format!(
            "{}: opcode `ADD_C` prints as `ADD_R` (`ADD R0, R0, R0` at its defaults), so \
             assembly cannot name it",
            at(&t, "__DefOpcode ADD_C", "ADD_C")
        )]
    );
    // GOOD itself has none (`consistent_spec_has_no_warnings`), and the bundled
    // spec none either (`bundled_spec`).
}

/// The bundled spec: no errors, and the known inconsistencies of the ISA authors'
/// files are reported where they are: every warning, exactly. Every `__Examples`
/// line either assembles or is one of the "example does not assemble" warnings.
#[test]
fn bundled_spec() {
    let c = crate::Spec::load(&[isa_spec::DIR])
        .expect("bundled spec")
        .check();
    assert!(!c.has_errors(), "{}", c.render_diagnostics());
    let got: Vec<(String, String)> = c
        .diagnostics
        .warnings()
        .map(|d| (d.location(&c.sources).to_string(), d.message.clone()))
        .collect();
    let sreg = "expected a SReg (SR_LANEID, SR_EQMASK, SR_LTMASK, SR_LEMASK, …)";
    let call = "operand 2 (ra or ura or vb): expected a Reg, a UReg or a constant-memory \
                    operand c[bank][offset]";
    let cmem = "constant memory is written `c[bank][offset]`, not `cmem[…]`";
    let cwmode = "`.CLAMP`, `.WRAP` are not values of `CWMode`";
    let examples: &[(&str, &str)] = &[
        (
            "bru.isa:536:11",
            "expected a label, or a symbol and an addend (`sym+0x20`) in `` `(…) ``, found `.Base - . - 0x10`",
        ),
        (
            "bru.isa:632:16",
            &format!("`CALL.ABS` {call}, found `(.Target)"),
        ),
        ("bru.isa:633:16", &format!("`CALL.ABS` {call}, found 0x0")),
        (
            "bru.isa:634:16",
            &format!("`CALL.REL` {call}, found `(.Label)"),
        ),
        (
            "bru.isa:639:23",
            "`CALL.ABS` operand 3 (offset) is missing: expected a SImm50",
        ),
        (
            "bru.isa:819:10",
            "expected a space between the mnemonic and its operands, found `,`",
        ),
        (
            "bru.isa:897:13",
            "`BSSY` operand 2 (syncpoint) is missing: expected a SImm32",
        ),
        (
            "bru.isa:898:14",
            "`BSSY` operand 2 (syncpoint) is missing: expected a SImm32",
        ),
        (
            "misc.isa:96:9",
            &format!("`S2R` operand 2 (SRa): {sreg}, found SR_CTAID"),
        ),
        (
            "misc.isa:141:14",
            &format!("`CS2R` operand 2 (SRa): {sreg}, found SR_CLOCK"),
        ),
        (
            "misc.isa:182:11",
            &format!("`S2UR` operand 2 (SRa): {sreg}, found SR_CTAID"),
        ),
        (
            "sync.isa:126:9",
            "`SHFL.UP` operand 1 (pu): expected a Pred, found pu",
        ),
        ("udp.isa:281:44", "stray `,` at the end of the operands"),
        (
            "udp.isa:284:17",
            "`UIMAD` operand 2 or 3 (upu or URa): expected a UPred or a UReg, found P0",
        ),
        (
            "udp.isa:712:25",
            "`ULEA` operand 6 (UImm5Sca) is missing: expected a UImm5",
        ),
        ("udp.isa:714:26", cmem),
        ("udp.isa:715:26", cmem),
        (
            "udp.isa:717:21",
            "`ULEA` operand 3 (URa): expected a UReg, found UP0",
        ),
        (
            "udp.isa:718:42",
            "`ULEA.HI.X.SX32` operand 6 (UImm5Sca): expected a UImm5, found UP0",
        ),
    ];
    let others: &[(&str, &str)] = &[
        ("bru.isa:1500:5", "`SYSCALL_X` is named for `stype == X`"),
        (
            "sync.isa:455:3",
            "`__Examples` of `REDUXU` has no fenced code block",
        ),
        ("udp.isa:17:21", "`.S1`, `.U1` are not values of `MEMDType`"),
        (
            "udp.isa:384:11",
            "`__Syntax` of `UIMAD_WIDE` writes `.itype` as required",
        ),
        // Entries corrections.isa replaces (the widths the simulator shows: ULDC.128,
        // UIMAD.WIDE with a constant, UR2UP's kept predicates, the UR a SETUGPR/GETUGPR
        // index names).
        ("udp.isa:66:5", "`Bitwidth<urd>` of `ULDC_U` contradicts"),
        ("udp.isa:67:5", "`Bitwidth<vb>` of `ULDC_U` contradicts"),
        (
            "udp.isa:498:5",
            "`Bitwidth<vc>` of `UIMAD_WIDE_UUC` contradicts",
        ),
        (
            "udp.isa:499:5",
            "`Bitwidth<urd>` of `UIMAD_WIDE_UUC` contradicts",
        ),
        ("udp.isa:1072:5", "`InList<…>` of `UR2UP_UU` contradicts"),
        ("udp.isa:1083:5", "`InList<…>` of `UR2UP_UI` contradicts"),
        ("udp.isa:1094:5", "`InList<…>` of `UR2UP_UC` contradicts"),
        (
            "udp.isa:2318:5",
            "`OutList<…>` of `SETUGPR_UIU` contradicts",
        ),
        ("udp.isa:2363:5", "`InList<…>` of `GETUGPR_UI` contradicts"),
        (
            "udp.isa:774:13",
            "`__Syntax` of `UIABS` allows `-` before `SrcB`",
        ),
        (
            "udp.isa:844:22",
            "`__Syntax` of `UIMNMX` allows `-` before `URa`",
        ),
        (
            "udp.isa:844:30",
            "`__Syntax` of `UIMNMX` allows `-` before `SrcB`",
        ),
        (
            "udp.isa:1119:21",
            "`__Syntax` of `UISETP` writes `.itype` as required",
        ),
        (
            "udp.isa:1322:6",
            "`__Syntax` of `ULOP3` writes `.exbool` as required",
        ),
        ("udp.isa:1474:11", cwmode),
        (
            "udp.isa:2073:6",
            "`__Syntax` of `UBMSK` writes `.cwmode` as required",
        ),
        ("udp.isa:2075:12", cwmode),
        ("udp.isa:2186:12", cwmode),
        ("udp.isa:2284:9", "`__Syntax` of `SETUGPR` shows 1 operand"),
    ];
    let expected: Vec<(&str, String)> = examples
        .iter()
        .map(|(l, m)| (*l, format!("example does not assemble: {m}")))
        .chain(others.iter().map(|(l, m)| (*l, m.to_string())))
        .collect();
    for (loc, msg) in &expected {
        assert!(
            got.iter()
                .any(|(l, m)| l.ends_with(&format!("/{loc}")) && m.contains(msg.as_str())),
            "missing warning {loc}: {msg}\n{}",
            c.diagnostics.render_short(&c.sources)
        );
    }
    assert_eq!(
        got.len(),
        expected.len(),
        "{}",
        c.diagnostics.render_short(&c.sources)
    );
    // Messages carry the assembler's notes.
    let s2r = c
        .diagnostics
        .warnings()
        .find(|d| {
            d.location(&c.sources)
                .to_string()
                .ends_with("/misc.isa:96:9")
        })
        .expect("S2R warning");
    assert_eq!(
        s2r.notes,
        ["did you mean `SR_CTAID.X`, `SR_CTAID.Y` or `SR_CTAID.Z`?"]
    );

    // Every example line assembled or was warned about, and the counts match the
    // example lines that hold an instruction (after comments, address prefixes and
    // labels), counted here independently of the lint.
    assert_eq!(
        c.examples,
        super::ExampleStats {
            assembled: 91,
            warned: 19
        }
    );
    assert_eq!(c.examples.warned, examples.len());
    let model = c.model.as_ref().expect("model");
    let mut lines = 0;
    for def in &model.defs {
        for doc in def.docs.iter().filter(|d| d.kind == DocKind::Examples) {
            for line in doc.code_blocks.iter().flat_map(|b| &b.lines) {
                let mut t = line.text.split("//").next().unwrap_or("").trim();
                if let Some(rest) = t.strip_prefix("/*") {
                    t = rest.split_once("*/").map_or("", |(_, r)| r).trim();
                }
                while let Some((label, rest)) = t.split_once(':') {
                    if label.is_empty() || label.contains(char::is_whitespace) {
                        break;
                    }
                    t = rest.trim();
                }
                if !t.trim_end_matches(';').trim().is_empty() {
                    lines += 1;
                }
            }
        }
    }
    assert_eq!(c.examples.assembled + c.examples.warned, lines);
    // Our own file is consistent.
    assert!(
        !got.iter().any(|(l, _)| l.contains("base.isa")),
        "{}",
        c.diagnostics.render_short(&c.sources)
    );
}

/// What the syntax warnings say beyond their message: the operand counts each opcode
/// takes, and which fields lack the sub-field a prefix needs.
#[test]
fn syntax_notes_and_labels_name_the_opcodes_and_fields() {
    let t = edit(GOOD, "Rd, {-}Ra, SrcB ", "Rd, {-}Ra ");
    let text = check(&t).render_diagnostics();
    assert!(
        text.contains("= `ADD_R`, `ADD_I`, `ADD_C` take 3 operands"),
        "{text}"
    );
    let t = edit(GOOD, "MOV PR{, SrcB}", "MOV PR, SrcB, SrcC");
    let text = check(&t).render_diagnostics();
    assert!(text.contains("= `MOV_I` takes 1 to 2 operands"), "{text}");
    // Two opcodes with the operand in `vb`, one in `rb`: each field named once.
    let t = edit(GOOD, "{-}Ra, SrcB ", "{-}Ra, {~}SrcB ");
    let text = check(&t).render_diagnostics();
    assert!(
        text.contains("no sub-field of `rb`, `vb` encodes `~`"),
        "{text}"
    );
}

/// A prefix on an operand inside an optional group (braces within braces) is read as
/// that operand's, and checked like any other.
#[test]
fn syntax_prefix_inside_an_optional_group() {
    let t = edit(GOOD, "MOV PR{, SrcB}", "MOV PR{, {~}SrcB}");
    assert_warnings(
        &check(&t),
        &[(
            at(&t, "{~}SrcB}", "~"),
            "allows `~` before `SrcB`, but no `MOV` opcode can encode it",
        )],
    );
    let text = check(&t).render_diagnostics();
    assert!(text.contains("no sub-field of `vb` encodes `~`"), "{text}");
}

#[test]
fn syntax_several_defaults() {
    let t = edit(GOOD, "{.LO*, .HI}", "{.LO*, .HI*}");
    assert_warnings(
        &check(&t),
        &[(
            at(&t, ".half = {", ".HI*"),
            "marks several defaults for `.half`",
        )],
    );
    // The first default is shown too, `.LO*` whole.
    let c = check(&t);
    let d = c.diagnostics.warnings().next().unwrap();
    let (span, label) = &d.secondary[0];
    let start = t.find(".LO*, .HI*").unwrap();
    assert_eq!(
        (&t[span.start as usize..span.end as usize], label.as_str()),
        (".LO*", "first default")
    );
    assert_eq!(span.start as usize, start);
}

/// Mnemonics cut short at the end of a syntax line are read to the end, not past it.
#[test]
fn syntax_lines_that_end_inside_the_mnemonic() {
    let line_of = |t: &str, text: &str| t.lines().position(|l| l == text).unwrap() + 1;
    let t = edit(GOOD, "MOV PR{, SrcB}      $sched $req ;", "MOV");
    assert_warnings(
        &check(&t),
        &[(
            format!("t.isa:{}:4", line_of(&t, "MOV")),
            "shows 0 operands, but no `MOV` opcode takes that many",
        )],
    );
    // An unclosed optional modifier at the end: the line is not read as a mnemonic
    // (and so not checked), without reading past it.
    let t = edit(GOOD, "MOV PR{, SrcB}      $sched $req ;", "MOV{.half");
    assert_warnings(&check(&t), &[]);
}

/// The text of the primary span of the `k`-th warning.
fn warning_text(c: &Checked, k: usize) -> String {
    let d = c.diagnostics.warnings().nth(k).expect("the warning");
    c.sources.text(d.span).to_string()
}

/// The operand-count warning spans the operands as written: a brace group ending the
/// last operand included, a trailing comma left out.
#[test]
fn syntax_operand_count_span_ends_with_the_last_operand() {
    let t = edit(GOOD, "Rd, {-}Ra, SrcB ", "Rd, {-}Ra{.X}, ");
    let c = check(&t);
    assert_warnings(&c, &[(at(&t, "Rd, {-}Ra{", "Rd"), "shows 2 operands")]);
    assert_eq!(warning_text(&c, 0), "Rd, {-}Ra{.X}");
}

/// Prefixes are read braced (`{!}Ra`) or bare (`!Ra`) at the start of an operand only,
/// and each is checked against the sub-fields that can encode it.
#[test]
fn syntax_prefixes_braced_bare_and_not_prefixes() {
    let msg = "allows `!` before `Ra`, but no `ADD` opcode can encode it";
    for written in ["{!}Ra", "!Ra"] {
        let t = edit(GOOD, "Rd, {-}Ra, SrcB ", &format!("Rd, {written}, SrcB "));
        let c = check(&t);
        assert_warnings(&c, &[(at(&t, written, "!"), msg)]);
        assert_eq!(warning_text(&c, 0), "!", "`{written}`");
    }
    // Not a prefix: after the first character, or braced with more than the symbol.
    for written in ["x!Ra", "{!Ra}"] {
        let t = edit(GOOD, "Rd, {-}Ra, SrcB ", &format!("Rd, {written}, SrcB "));
        assert_warnings(&check(&t), &[]);
    }
    // A bare prefix keeps the rest of the operand as its name, even when its third
    // character closes a brace.
    let t = edit(GOOD, "Rd, {-}Ra, SrcB ", "Rd, !R}, SrcB ");
    assert_warnings(
        &check(&t),
        &[(at(&t, "!R}", "!"), "allows `!` before `R}`")],
    );
    // `.neg` encodes `~` as well as `-` (`CvtINegX`).
    let t = edit(GOOD, "Rd, {-}Ra, SrcB ", "Rd, {~}Ra, SrcB ");
    assert_warnings(&check(&t), &[]);
}

/// Value lists that are not lists of values are left alone; the warnings on lists
/// point at the values at fault, whole.
#[test]
fn syntax_value_lists_spans_and_malformed_lists() {
    // A modifier's name alone on the last line, and a list with an item that is not
    // a value name: nothing to say.
    let t = edit(
        GOOD,
        ".width = {.W32*, .W64, .W128}\n",
        ".width = {.W32*, .W64, .W128}\n.half\n",
    );
    assert_warnings(&check(&t), &[]);
    let t = edit(GOOD, "{.LO*, .HI}", "{.LO*, .H-I}");
    assert_warnings(&check(&t), &[]);
    // An operand's name is not a modifier's.
    let t = edit(GOOD, ".half = {.LO*, .HI}", ".rd = {.LO*, .HI}");
    assert_warnings(
        &check(&t),
        &[(
            at(&t, ".rd = {", ".rd"),
            "lists values of `.rd`, which is not a modifier",
        )],
    );
    // Two values not of the type: the second is shown too, whole.
    let t = edit(GOOD, "{.LO*, .HI}", "{.LO*, .XX, .YY}");
    let c = check(&t);
    assert_warnings(
        &c,
        &[(at(&t, ".half = {", ".XX"), "are not values of `Half`")],
    );
    assert_eq!(warning_text(&c, 0), ".XX");
    let d = c.diagnostics.warnings().next().unwrap();
    let (span, label) = &d.secondary[0];
    assert_eq!(
        (c.sources.text(*span), label.as_str()),
        (".YY", "not a value either")
    );
    // A list missing values spans the whole list.
    let t = edit(GOOD, "{.W32*, .W64, .W128}", "{.W32*, .W64}");
    let c = check(&t);
    assert_warnings(
        &c,
        &[(
            at(&t, ".width = {", ".width"),
            "lists only some values of `.width`",
        )],
    );
    assert_eq!(warning_text(&c, 0), ".width = {.W32*, .W64}");
    // The default marks, whole.
    let t = edit(GOOD, "{.LO*, .HI}", "{.LO*, .HI*}");
    assert_eq!(warning_text(&check(&t), 0), ".HI*");
    let t = edit(GOOD, "{.LO*, .HI}", "{.LO, .HI*}");
    assert_eq!(warning_text(&check(&t), 0), ".HI*");
}

/// `t.isa` of `c` with the one fix of its one diagnostic applied.
fn with_fix(c: &Checked) -> String {
    assert_eq!(c.diagnostics.items.len(), 1, "{}", c.render_diagnostics());
    let d = &c.diagnostics.items[0];
    assert_eq!(d.fixes.len(), 1, "{d:?}");
    let mut edits = d.fixes[0].edits.clone();
    edits.sort_by_key(|(s, _)| std::cmp::Reverse(s.start));
    let file = edits[0].0.file;
    let mut text = c.sources.get(file).text.clone();
    assert_eq!(c.sources.get(file).name, "t.isa");
    for (s, t) in edits {
        assert_eq!(s.file, file);
        text.replace_range(s.range(), &t);
    }
    text
}

/// The fixes the syntax lint attaches, each applied: the spec checks without warnings.
#[test]
fn syntax_fixes_remove_their_warning() {
    for (from, to, title) in [
        // A value misspelt: replaced by the nearest value of the type.
        (".W64, .W128}", ".W46, .W128}", "replace `.W46` with `.W64`"),
        // A modifier with a default written as required: braced.
        (
            "ADD{.half}{.width} Rd",
            "ADD.half{.width} Rd",
            "write `{.half}`",
        ),
        // A value list missing values: they are appended.
        ("{.W32*, .W64, .W128}", "{.W32*}", "list `.W64`, `.W128`"),
    ] {
        let t = edit(GOOD, from, to);
        let c = check(&t);
        assert_eq!(c.diagnostics.items[0].fixes[0].title, title, "{to}");
        let fixed = with_fix(&c);
        assert_eq!(fixed, GOOD, "{to}");
    }
}

#[test]
fn an_inherited_unprinted_sub_field_is_warned_about_once() {
    // `half.q` is inherited by three opcodes; its base `half` is a modifier in two and
    // fixed in `ADD_C`: two reasons, one place, one warning (the first opcode's).
    let t = edit(
        GOOD,
        "    field<84, 1> PModi ra.neg = False;\n",
        "    field<84, 1> PModi ra.neg = False;\n    field<85, 1> PModi half.q = False;\n",
    );
    let t = edit(
        &t,
        "    field<8, 4> SType stype == C;\n",
        "    field<8, 4> SType stype == C;\n    field<80, 1> Half half == LO;\n",
    );
    let c = check(&t);
    assert_warnings(
        &c,
        &[(
            at(&t, "half.q", "field"),
            "`half.q` is a sub-field of `half`, a modifier: no assembly text shows it",
        )],
    );
}

#[test]
fn sub_fields_of_fields_that_are_no_operand_are_unprinted() {
    // A modifier's sub-field, inherited by three opcodes (one warning), a fixed
    // field's, and a fixed one (it identifies the opcode: no warning); the operand's
    // `ra.neg` prints as `-`. `SET_R`'s `R[ra, idx]` writes both fields bare.
    let t = edit(
        GOOD,
        "    field<84, 1> PModi ra.neg = False;\n",
        "    field<84, 1> PModi ra.neg = False;\n    field<85, 1> PModi half.q = False;\n    field<87, 1> PModi optype.k == False;\n",
    );
    let t = edit(
        &t,
        "    field<8, 4> SType stype == R;\n",
        "    field<8, 4> SType stype == R;\n    field<86, 1> PModi stype.x = False;\n",
    );
    let t = format!(
        "{t}\n__DefOptype SET : [G]\n  __Encoding\n    field<0, 8> Optype optype == MOV;\n\
         __DefOpcode SET_R : [SET]\n  __Encoding\n    field<8, 4> SType stype == R;\n    \
         field<16, 8> Reg ra;\n    field<24, 16> UImm16 idx;\n    field<40, 8> Reg rb;\n    \
         field<48, 1> PModi ra.neg = False;\n    field<49, 1> PModi rb.neg = False;\n  \
         __OperandInfo\n    InList<pg, ra, rb>;\n    OutList<>;\n    Order<pg, R[ra, idx], rb>;\n"
    );
    let c = check(&t);
    let at_set = |token: &str| {
        let (i, _) = t
            .lines()
            .enumerate()
            .filter(|(_, l)| l.contains(token))
            .last()
            .expect("the line");
        format!("t.isa:{}:5", i + 1)
    };
    assert_warnings(
        &c,
        &[
            (
                at(&t, "half.q", "field"),
                "`half.q` is a sub-field of `half`, a modifier: no assembly text shows it",
            ),
            (
                at(&t, "stype.x", "field"),
                "`stype.x` is a sub-field of `stype`, a fixed field: no assembly text shows it",
            ),
            (
                at_set("ra.neg"),
                "`ra.neg` is a sub-field of `ra`, written bare in its operand: no assembly text shows it",
            ),
        ],
    );
    assert!(c
        .diagnostics
        .warnings()
        .all(|d| d.lint == Some(crate::diag::Lint::UnprintedField)));
}
