//! The verdict on small specs, one kind of revision each (the bundled spec and the
//! command line are tested in `isa-cli/tests/diff.rs`).

use super::verdict::Moved;
use super::*;

/// A small spec; `edit` rewrites its text.
fn spec(edit: impl Fn(String) -> String) -> Model {
    let base = "\
__DefBitFieldType Op<8>
    A = 1;
    B = 2;
__DefBitFieldType M<2>
    X;
    Y;
    Z;
__DefRegFile Reg<8>
    R 0..254;
    RZ = 255;
__DefImmediate U8<8> unsigned
__DefGroup ALL
__DefOptype A: [ALL]
  __Encoding
    field<0, 8> Op op == A;
    field<8, 2> M m = X;
    field<16, 8> Reg rd;
    field<24, 8> U8 imm = 0;
  __OperandInfo
    Order<imm, rd>;
__DefOpcode A_R: [A]
"
    .to_string();
    let text = edit(base);
    let checked = isa_gen::Spec::from_texts([("t.isa", text.as_str())]).check();
    assert!(
        !checked.has_errors(),
        "{}\n{text}",
        checked.render_diagnostics()
    );
    checked.model.unwrap()
}

fn report(edit: impl Fn(String) -> String) -> Report {
    Report::new(&spec(|s| s), &spec(edit))
}

#[test]
fn a_spec_against_itself_is_compatible_and_unchanged() {
    let r = report(|s| s);
    assert!(r.compatible() && r.changes.is_empty() && r.added_opcodes.is_empty());
}

#[test]
fn a_moved_field_breaks_with_a_word_that_shows_it() {
    let r = report(|s| s.replace("field<16, 8> Reg rd;", "field<40, 8> Reg rd;"));
    assert!(!r.compatible());
    let b = &r.breaks[0];
    assert_eq!(b.opcode, "A_R");
    assert!(b.fields.contains(&"rd".to_string()), "{b:?}");
    // The word sets a bit of `rd` that NEW reserves.
    assert_ne!(b.word & (0xff << 16), 0, "{b:?}");
    assert!(b.new_text.contains("reserved"), "{b:?}");
    assert!(r
        .changes
        .iter()
        .any(|c| c.name == "A_R" && c.what.contains("moved from bits 23:16 to 47:40")));
}

#[test]
fn a_renumbered_value_breaks_and_names_the_type() {
    let r = report(|s| s.replace("    X;\n    Y;\n    Z;", "    X;\n    Z;\n    Y;"));
    assert!(!r.compatible());
    let b = &r.breaks[0];
    assert_eq!(b.fields, ["m"]);
    assert_ne!(b.old_text, b.new_text);
    assert!(r
        .changes
        .iter()
        .any(|c| c.kind == "type" && c.name == "M" && c.what.contains("renumbered")));
}

#[test]
fn a_changed_default_changes_the_text() {
    let r = report(|s| s.replace("M m = X;", "M m = Y;"));
    let b = &r.breaks[0];
    assert_eq!(
        (b.old_text.as_str(), b.new_text.as_str()),
        ("A R0", "A.X R0")
    );
    assert_eq!(b.fields, ["m"]);
}

#[test]
fn additions_in_free_space_are_compatible() {
    let r = report(|s| {
        s.replace("    Z;", "    Z;\n    W;")
            + "__DefOptype B: [ALL]\n  __Encoding\n    field<0, 8> Op op == B;\n  __OperandInfo\n    Order<>;\n__DefOpcode B_X: [B]\n"
    });
    assert!(r.compatible(), "{:?}", r.breaks);
    assert_eq!(
        r.added_opcodes,
        [("B_X".to_string(), "op == B".to_string())]
    );
    assert_eq!(r.added_values, [("M".to_string(), "W".to_string(), 3)]);
}

#[test]
fn a_widened_field_whose_new_bits_old_words_leave_zero_is_compatible() {
    let r = report(|s| {
        s.replace(
            "__DefImmediate U8<8> unsigned",
            "__DefImmediate U8<8> unsigned\n__DefImmediate U16<16> unsigned",
        )
        .replace("field<24, 8> U8 imm = 0;", "field<24, 16> U16 imm = 0;")
    });
    assert!(r.compatible(), "{:?}", r.breaks);
    assert!(r.changes.iter().any(|c| c.what.contains("resized")));
}

#[test]
fn words_split_between_new_opcodes_are_followed_to_each() {
    // NEW fixes `m`: words with m = X go to A_R (same text), m = Y to A_Y (which
    // no longer prints `.Y`), m = Z to no opcode.
    let r = report(|s| {
        s.replace("__DefOpcode A_R: [A]\n", "__DefOpcode A_R: [A]\n  __Encoding\n    field<8, 2> M m == X;\n__DefOpcode A_Y: [A]\n  __Encoding\n    field<8, 2> M m == Y;\n")
    });
    let seen: Vec<(Option<&str>, &str)> = r
        .breaks
        .iter()
        .map(|b| (b.new_opcode.as_deref(), b.old_text.as_str()))
        .collect();
    assert_eq!(
        seen,
        [(Some("A_Y"), "A.Y R0"), (None, "A.Z R0")],
        "{:?}",
        r.breaks
    );
    // NEW's `A_R` fixes more than OLD's but still takes some of its words: no move.
    assert!(r.breaks.iter().all(|b| b.moved.is_none()));
    // The words no NEW opcode takes are named by the field that tells them apart.
    assert_eq!(r.breaks[1].fields, ["m"]);
    assert_eq!(r.breaks[1].why, "no NEW opcode decodes some of its words");
}

/// Two modifiers that change places print differently only when both are off their
/// defaults: the verdict finds the word with both set.
#[test]
fn modifiers_that_swap_places_break_when_both_are_set() {
    let two = |s: String| {
        s.replace(
            "__DefRegFile Reg<8>",
            "__DefBitFieldType N<2>\n    P;\n    Q;\n__DefRegFile Reg<8>",
        )
    };
    let old = spec(|s| {
        two(s).replace(
            "    field<8, 2> M m = X;\n",
            "    field<8, 2> M m = X;\n    field<10, 2> N n = P;\n",
        )
    });
    let new = spec(|s| {
        two(s).replace(
            "    field<8, 2> M m = X;\n",
            "    field<10, 2> N n = P;\n    field<8, 2> M m = X;\n",
        )
    });
    let r = Report::new(&old, &new);
    assert!(!r.compatible());
    let b = &r.breaks[0];
    assert_eq!(
        (b.old_text.as_str(), b.new_text.as_str()),
        ("A.Y.Q 0x1, R1", "A.Q.Y 0x1, R1"),
        "{:?}",
        r.breaks
    );
}

/// An opcode whose operands change order is reported as such.
#[test]
fn reordered_operands_are_a_change() {
    let r = report(|s| s.replace("Order<imm, rd>;", "Order<rd, imm>;"));
    assert!(
        r.changes
            .iter()
            .any(|c| c.name == "A_R" && c.what == "operands `imm, rd` → `rd, imm`"),
        "{:?}",
        r.changes
    );
}

/// A moved field: the first break names the first bit OLD's words set that NEW reserves.
#[test]
fn a_moved_field_names_the_reserved_bit() {
    let r = report(|s| s.replace("field<16, 8> Reg rd;", "field<40, 8> Reg rd;"));
    assert_eq!(r.breaks[0].why, "bit 16 is reserved in NEW `A_R`");
}

/// An operand whose sub-field prints with it (`-` of `.neg`): a NEW that drops the
/// sub-field breaks on the words that set it, found through the operand's print unit.
#[test]
fn a_dropped_sub_field_breaks_on_words_that_set_it() {
    let with_neg = |s: String| {
        s.replace(
            "__DefBitFieldType M<2>",
            "__DefBitFieldType PModi<1>\n    False = 0;\n    True = 1;\n__DefBitFieldType M<2>",
        )
    };
    let old = spec(|s| {
        with_neg(s).replace(
            "    field<16, 8> Reg rd;\n",
            "    field<16, 8> Reg rd;\n    field<50, 1> PModi rd.neg = False;\n",
        )
    });
    let new = spec(with_neg);
    let r = Report::new(&old, &new);
    assert!(!r.compatible());
    assert!(
        r.breaks
            .iter()
            .any(|b| b.old_text.contains("-R") && b.fields.contains(&"rd.neg".to_string())),
        "{:?}",
        r.breaks
    );
}

/// An opcode whose words NEW splits among opcodes by more bits than are analysed one
/// combination at a time is a break that says so (not thousands of guesses).
#[test]
fn words_split_by_too_many_bits_are_one_break_that_says_so() {
    let big = |width: u32| {
        move |s: String| {
            s.replace(
                "__DefRegFile Reg<8>",
                "__DefImmediate U16<16> unsigned\n__DefImmediate U3<3> unsigned\n__DefBitFieldType S13<13>\n    K0 = 0;\n    K1 = 1;\n__DefRegFile Reg<8>",
            )
            .replace(
                "    field<24, 8> U8 imm = 0;\n",
                &format!(
                    "    field<24, 8> U8 imm = 0;\n    field<32, {width}> U{width} big = 0;\n"
                ),
            )
            .replace("Order<imm, rd>;", "Order<imm, rd, big>;")
        }
    };
    // NEW keeps 3 bits of `big`; its other 13 (35..47) tell A_R from A_S.
    let new = spec(|s| {
        big(3)(s).replace(
            "__DefOpcode A_R: [A]\n",
            "__DefOpcode A_R: [A]\n  __Encoding\n    field<35, 13> S13 s == K0;\n__DefOpcode A_S: [A]\n  __Encoding\n    field<35, 13> S13 s == K1;\n",
        )
    });
    let r = Report::new(&spec(big(16)), &new);
    let seen: Vec<(&str, &str)> = r
        .breaks
        .iter()
        .map(|b| (b.opcode.as_str(), b.why.as_str()))
        .collect();
    assert_eq!(
        seen,
        [(
            "A_R",
            "its words are split among NEW opcodes by 13 bits (at most 12 are analysed)"
        )]
    );
}

/// The base spec with an operand `ra`, its `.neg` and an extension modifier `carry`
/// (values `NoX`, `Y`, `X`), printed by `CvtINegX(ra.neg, carry)` when `converter`.
fn converter(converter: bool) -> impl Fn(String) -> String {
    move |s: String| {
        let s = s
            .replace("    X;\n    Y;\n    Z;\n", "    MX;\n    MY;\n    MZ;\n")
            .replace("M m = X", "M m = MX")
            .replace(
                "__DefBitFieldType M<2>",
                "__DefBitFieldType PModi<1>\n    False = 0;\n    True = 1;\n__DefBitFieldType Ext<2>\n    NoX = 0;\n    Y = 1;\n    X = 2;\n__DefBitFieldType M<2>",
            )
            .replace(
                "    field<16, 8> Reg rd;\n",
                "    field<16, 8> Reg rd;\n    field<32, 8> Reg ra;\n    field<50, 1> PModi ra.neg = False;\n    field<52, 2> Ext carry = NoX;\n",
            )
            .replace("Order<imm, rd>;", "Order<imm, rd, ra>;");
        if converter {
            s.replace(
                "Order<imm, rd, ra>;",
                "Order<imm, rd, ra>;\n    AsmFormat<ra.neg> = CvtINegX(ra.neg, carry);",
            )
        } else {
            s
        }
    }
}

/// `CvtINegX(va.neg, carry)`: the `-` of `va` is `~` when `carry` is `X`. A NEW in which
/// `.neg` is a plain `-` breaks only on the words with `va.neg` set *and* `carry` at
/// `X`, which is not `carry`'s first value off its default: the verdict must try the
/// operand, its sub-field and the extension modifier together (one print unit).
#[test]
fn a_converter_s_fields_are_tried_together() {
    let r = Report::new(&spec(converter(true)), &spec(converter(false)));
    assert!(!r.compatible(), "{:?}", r.breaks);
    let b = &r.breaks[0];
    assert!(
        b.old_text.contains("~R") && b.new_text.contains("-R"),
        "{:?}",
        r.breaks
    );
}

/// A print unit of several fields with more combinations than are listed (a register,
/// a sub-field and a 70,000-value extension printed by one converter) is probed at its
/// boundaries, and each enumeration in it listed alone: a value renamed in the middle
/// of the extension is a break.
#[test]
fn an_enumeration_in_a_wide_print_unit_is_listed_alone() {
    let values: String = (3..70_000).map(|k| format!("    V{k};\n")).collect();
    let with = |rename: bool| {
        let values = if rename {
            values.replace("    V40000;\n", "    W40000;\n")
        } else {
            values.clone()
        };
        move |s: String| {
            s.replace("    X;\n    Y;\n    Z;\n", "    MX;\n    MY;\n    MZ;\n")
                .replace("M m = X", "M m = MX")
                .replace(
                "__DefBitFieldType M<2>",
                &format!("__DefBitFieldType PModi<1>\n    False = 0;\n    True = 1;\n__DefBitFieldType Ext<17>\n    NoX = 0;\n    Y = 1;\n    X = 2;\n{values}__DefBitFieldType M<2>"),
            )
            .replace(
                "    field<16, 8> Reg rd;\n",
                "    field<16, 8> Reg rd;\n    field<32, 8> Reg ra;\n    field<50, 1> PModi ra.neg = False;\n    field<52, 17> Ext carry = NoX;\n",
            )
            .replace(
                "Order<imm, rd>;",
                "Order<imm, rd, ra>;\n    AsmFormat<ra.neg> = CvtINegX(ra.neg, carry);",
            )
        }
    };
    let r = Report::new(&spec(with(false)), &spec(with(true)));
    assert_eq!(r.breaks.len(), 1, "{:?}", r.breaks);
    assert!(r.breaks[0].old_text.contains("V40000"), "{:?}", r.breaks);
}

/// A renumbered optype code (`A = 1` → `A = 3`): the opcode's words decode as nothing
/// and NEW's `A_R` is not something an OLD word reaches, but it is no addition: one
/// break says the opcode moved, and nothing else is listed but the changes.
#[test]
fn a_renumbered_optype_is_one_move_not_an_addition() {
    let r = report(|s| s.replace("    A = 1;", "    A = 3;"));
    assert_eq!(
        r.text("old", "new"),
        "\
incompatible: words of 1 opcode decode differently under new

breaks:
  A_R (field `op`): moved from op == A (0x1) to op == A (0x3); no NEW opcode decodes its OLD words
    word 0x00000000000000000000000000000001
    OLD: A R0
    NEW: does not decode: no opcode matches

changes:
  type Op: value `A` renumbered 0x1 → 0x3
  opcode A_R: field `op` fixed to A, whose code changed
"
    );
    assert_eq!(
        r.breaks[0].moved,
        Some(Moved {
            from: "op == A (0x1)".into(),
            to: "op == A (0x3)".into()
        })
    );
    let j = r.json();
    assert_eq!(
        j["breaks"][0]["moved"],
        serde_json::json!({"from": "op == A (0x1)", "to": "op == A (0x3)"})
    );
    assert_eq!(j["added_opcodes"], serde_json::json!([]));
}

/// An optype of two opcodes renumbered (as `BRA = 0x40` → `0x3f` moves `BRA_U` and
/// `BRA_X`): each opcode is listed once, as a moved break, in the text and in the
/// JSON, and neither is a compatible addition (their NEW namesakes are no new opcodes).
#[test]
fn each_opcode_of_a_renumbered_optype_is_listed_once_as_moved() {
    let two = |s: String| {
        s.replace(
            "__DefOpcode A_R: [A]\n",
            "__DefOpcode A_R: [A]\n  __Encoding\n    field<32, 2> M k == X;\n\
             __DefOpcode A_S: [A]\n  __Encoding\n    field<32, 2> M k == Y;\n\
             \x20 __OperandInfo\n    Order<rd, imm>;\n",
        )
    };
    let r = Report::new(
        &spec(two),
        &spec(|s| two(s).replace("    A = 1;", "    A = 3;")),
    );
    let text = r.text("old", "new");
    for op in ["A_R", "A_S"] {
        let heads: Vec<&str> = text
            .lines()
            .filter(|l| l.split_whitespace().any(|w| w == op))
            .collect();
        assert_eq!(
            heads,
            [format!(
                "  {op} (field `op`): moved from op == A (0x1) to op == A (0x3); no NEW opcode decodes its OLD words"
            )],
            "{text}"
        );
    }
    assert!(!text.contains("compatible additions"), "{text}");
    assert!(r.added_opcodes.is_empty(), "{:?}", r.added_opcodes);
    let j = r.json();
    let breaks: Vec<(String, String)> = j["breaks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| (b["opcode"].to_string(), b["moved"].to_string()))
        .collect();
    let moved = r#"{"from":"op == A (0x1)","to":"op == A (0x3)"}"#.to_string();
    assert_eq!(
        breaks,
        [
            ("\"A_R\"".to_string(), moved.clone()),
            ("\"A_S\"".to_string(), moved)
        ]
    );
    assert_eq!(j["added_opcodes"], serde_json::json!([]));
}

/// `A` and `B` trade codes: each opcode's OLD words decode as the other, which each
/// move names, with the plainest word of the opcode as the example.
#[test]
fn optypes_that_trade_codes_move_onto_each_other() {
    let with_b = |s: String| {
        s + "__DefOptype B: [ALL]\n  __Encoding\n    field<0, 8> Op op == B;\n    field<8, 2> M m = X;\n    field<16, 8> Reg rd;\n    field<24, 8> U8 imm = 0;\n  __OperandInfo\n    Order<imm, rd>;\n__DefOpcode B_R: [B]\n"
    };
    let r = Report::new(
        &spec(with_b),
        &spec(|s| with_b(s).replace("    A = 1;\n    B = 2;", "    A = 2;\n    B = 1;")),
    );
    let seen: Vec<(&str, &str, &str, &str)> = r
        .breaks
        .iter()
        .map(|b| {
            (
                b.opcode.as_str(),
                b.why.as_str(),
                b.old_text.as_str(),
                b.new_text.as_str(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            (
                "A_R",
                "moved from op == A (0x1) to op == A (0x2); its OLD words decode as `B_R`",
                "A R0",
                "B R0"
            ),
            (
                "B_R",
                "moved from op == B (0x2) to op == B (0x1); its OLD words decode as `A_R`",
                "B R0",
                "A R0"
            )
        ]
    );
    assert!(r.added_opcodes.is_empty());
}

/// Moves that are not renumberings: a fixed field newly declared where OLD's words are
/// zero, and a fixed field at other bits.
#[test]
fn newly_fixed_and_relocated_fixed_fields_are_moves() {
    let r = report(|s| {
        s.replace(
            "__DefRegFile Reg<8>",
            "__DefBitFieldType Bit<1>\n    Zero;\n    One;\n__DefRegFile Reg<8>",
        )
        .replace(
            "__DefOpcode A_R: [A]\n",
            "__DefOpcode A_R: [A]\n  __Encoding\n    field<60, 1> Bit x == One;\n",
        )
    });
    let b = &r.breaks[..];
    assert_eq!(b.len(), 1, "{b:?}");
    assert_eq!(b[0].fields, ["x"]);
    assert_eq!(
        b[0].why,
        "moved from x not fixed to x == One (0x1); no NEW opcode decodes its OLD words"
    );
    assert!(r.added_opcodes.is_empty());

    let r = report(|s| s.replace("field<0, 8> Op op == A;", "field<40, 8> Op op == A;"));
    assert_eq!(
        r.breaks.iter().map(|b| b.why.as_str()).collect::<Vec<_>>(),
        ["moved from op == A (0x1) at bits 7:0 to op == A (0x1) at bits 47:40; no NEW opcode decodes its OLD words"]
    );
}

/// A move some of whose OLD words still print alike (under another opcode of the same
/// mnemonic) says "some of"; one whose words go to another opcode and to none says both.
#[test]
fn a_move_says_where_each_part_of_the_words_goes() {
    // NEW: `A` is 3; `A_Q` (mnemonic `A`) takes the old code 1 with m == X.
    let q = |fix: &'static str| {
        move |s: String| {
            s.replace("    A = 1;", "    A1 = 1;\n    A = 3;").replace(
                "__DefOpcode A_R: [A]\n",
                &format!("__DefOpcode A_R: [A]\n__DefOpcode A_Q: [A]\n  __Encoding\n    field<0, 8> Op op == A1;\n    field<8, 2> M m == {fix};\n"),
            )
        }
    };
    let r = report(q("X"));
    assert_eq!(
        r.breaks.iter().map(|b| b.why.as_str()).collect::<Vec<_>>(),
        ["moved from op == A (0x1) to op == A (0x3); no NEW opcode decodes some of its OLD words"]
    );
    // With m == Y, `A_Q` prints those words without their `.Y`: a break too.
    let r = report(q("Y"));
    assert_eq!(
        r.breaks.iter().map(|b| b.why.as_str()).collect::<Vec<_>>(),
        ["moved from op == A (0x1) to op == A (0x3); its OLD words decode as `A_Q` or not at all"]
    );
}

/// An opcode renamed in place (`A_R` → `A_S`, the same bits) whose old name now names
/// an opcode of another optype: its OLD words still print alike under NEW, so nothing
/// broke and nothing is reported as moved.
#[test]
fn a_name_reused_elsewhere_is_no_move_when_the_words_still_print_alike() {
    let r = report(|s| {
        s.replace(
            "__DefOpcode A_R: [A]\n",
            "__DefOpcode A_S: [A]\n__DefOptype B: [ALL]\n  __Encoding\n    \
             field<0, 8> Op op == B;\n    field<16, 8> Reg rd;\n  __OperandInfo\n    \
             Order<rd>;\n__DefOpcode A_R: [B]\n",
        )
    });
    assert!(r.breaks.is_empty(), "{:?}", r.breaks);
    assert!(r.compatible());
}

#[test]
fn added_values_alone_are_listed_as_compatible_additions() {
    let r = report(|s| s.replace("    Z;", "    Z;\n    W;"));
    assert!(r.added_opcodes.is_empty());
    let text = r.text("OLD", "NEW");
    assert!(
        text.contains("\ncompatible additions:\n  value M.W = 0x3\n"),
        "{text}"
    );
}

#[test]
fn operand_words_added_removed_and_changed_are_changes() {
    let with = |w: &'static str| move |s: String| s + w;
    let r = report(with("__DefOperandWord LOW : Reg 0..7\n"));
    let c: Vec<_> = r.changes.iter().filter(|c| c.kind == "word").collect();
    assert_eq!(c.len(), 1, "{:?}", r.changes);
    assert_eq!(
        (c[0].name.as_str(), c[0].what.as_str()),
        ("LOW", "added: Reg 0..7")
    );
    let old = spec(with("__DefOperandWord LOW : Reg 0..7\n"));
    let new = spec(with("__DefOperandWord LOW : Reg 0..3\n"));
    let r = Report::new(&old, &new);
    assert!(
        r.changes
            .iter()
            .any(|c| c.kind == "word" && c.what == "Reg 0..7 → Reg 0..3"),
        "{:?}",
        r.changes
    );
    let r = Report::new(&old, &spec(|s| s));
    assert!(r
        .changes
        .iter()
        .any(|c| c.kind == "word" && c.name == "LOW" && c.what == "removed"));
}

#[test]
fn a_field_that_changes_role_is_a_change() {
    let r = report(|s| s.replace("M m = X;", "M m == X;"));
    assert!(
        r.changes
            .iter()
            .any(|c| c.name == "A_R" && c.what == "field `m` was modifier, is fixed"),
        "{:?}",
        r.changes
    );
}

#[test]
fn a_field_s_domain_is_exactly_its_codes() {
    let m = spec(|s| {
        s.replace("    X;\n    Y;\n    Z;", "    X = 0;\n    Z = 3;")
            .replace("R 0..254;", "R 0..9;")
    });
    let field = |name: &str| m.opcodes[0].fields.iter().find(|f| f.name == name).unwrap();
    let d = space::Dom::of(&m, field("m"));
    assert_eq!(d.list(space::LISTED).unwrap(), [0, 3]);
    let d = space::Dom::of(&m, field("rd"));
    let want: Vec<u128> = (0..=9).chain([255]).collect();
    assert_eq!(d.list(space::LISTED).unwrap(), want);
    assert!(d.contains(9) && !d.contains(10) && d.contains(255));
    // Fields of up to 16 bits are listed in full; wider ones are probed.
    let m = spec(|s| {
        s.replace(
            "__DefImmediate U8<8> unsigned",
            "__DefImmediate U8<8> unsigned\n__DefImmediate U16<16> unsigned\n__DefImmediate U17<17> unsigned",
        )
        .replace("field<24, 8> U8 imm = 0;", "field<24, 16> U16 imm = 0;\n    field<40, 17> U17 wide = 0;")
        .replace("Order<imm, rd>", "Order<imm, rd, wide>")
    });
    let f = |name: &str| m.opcodes[0].fields.iter().find(|f| f.name == name).unwrap();
    assert_eq!(
        space::Dom::of(&m, f("imm"))
            .list(space::LISTED)
            .map(|v| v.len()),
        Some(1 << 16)
    );
    assert!(space::Dom::of(&m, f("wide")).list(space::LISTED).is_none());
}

/// A narrowed field: the break names the first of its bits OLD's words set that NEW
/// reserves, with a word that sets that bit (and no higher one).
#[test]
fn a_narrowed_field_names_its_first_reserved_bit_with_a_word_setting_it() {
    let r = report(|s| {
        s.replace(
            "__DefImmediate U8<8> unsigned",
            "__DefImmediate U8<8> unsigned\n__DefImmediate U4<4> unsigned",
        )
        .replace("field<24, 8> U8 imm = 0;", "field<24, 4> U4 imm = 0;")
    });
    let b = &r.breaks[0];
    assert_eq!(b.why, "bit 28 is reserved in NEW `A_R`");
    assert_eq!(b.word >> 24 & 0xff, 0x10, "{:#x}", b.word);
}

/// A field whose type has no code 0: every word sets some of its bits, and a spec
/// against itself is still compatible (a candidate is tested against the codes the
/// field holds, not against zero).
#[test]
fn a_field_without_code_zero_is_compatible_with_itself() {
    let no_zero = |s: String| {
        s.replace(
            "    X;\n    Y;\n    Z;",
            "    X = 1;\n    Y = 2;\n    Z = 3;",
        )
    };
    let m = spec(no_zero);
    let r = Report::new(&m, &m);
    assert!(r.compatible(), "{:?}", r.breaks);
}

/// A value renamed in the middle of a long enumeration: the field's codes are listed
/// in full (not probed at boundaries), so the break is found.
#[test]
fn a_value_renamed_inside_a_long_enumeration_breaks() {
    let values: String = (0..40).map(|k| format!("    V{k};\n")).collect();
    let long = |rename: bool| {
        let values = values.clone();
        move |s: String| {
            let v = if rename {
                values.replace("    V10;\n", "    W10;\n")
            } else {
                values.clone()
            };
            s.replace(
                "__DefRegFile Reg<8>",
                &format!("__DefBitFieldType L<6>\n{v}__DefRegFile Reg<8>"),
            )
            .replace(
                "field<24, 8> U8 imm = 0;",
                "field<24, 8> U8 imm = 0;\n    field<32, 6> L l = V0;",
            )
        }
    };
    let r = Report::new(&spec(long(false)), &spec(long(true)));
    let seen: Vec<&str> = r.breaks.iter().map(|b| b.old_text.as_str()).collect();
    assert_eq!(seen, ["A.V10 R0"], "{:?}", r.breaks);
}

/// An enumeration of more codes than a field's domain is listed for (2^16) is still
/// listed in full: its values are written out in the spec. A value renamed in its
/// middle is a break (boundary probes would call the revision compatible).
#[test]
fn a_value_renamed_in_the_middle_of_70000_breaks() {
    let values: String = (0..70_000).map(|k| format!("    V{k};\n")).collect();
    let long = |rename: bool| {
        let values = values.clone();
        move |s: String| {
            let v = if rename {
                values.replace("    V35001;\n", "    W35001;\n")
            } else {
                values.clone()
            };
            s.replace(
                "__DefRegFile Reg<8>",
                &format!("__DefBitFieldType L<17>\n{v}__DefRegFile Reg<8>"),
            )
            .replace(
                "field<24, 8> U8 imm = 0;",
                "field<24, 8> U8 imm = 0;\n    field<32, 17> L l = V0;",
            )
        }
    };
    let r = Report::new(&spec(long(false)), &spec(long(true)));
    let seen: Vec<&str> = r.breaks.iter().map(|b| b.old_text.as_str()).collect();
    assert_eq!(seen, ["A.V35001 R0"], "{:?}", r.breaks);
}

/// Words split by exactly as many bits as are analysed are analysed (one more is one
/// break that says so: `words_split_by_too_many_bits_are_one_break_that_says_so`).
#[test]
fn words_split_by_the_most_bits_analysed_are_followed() {
    let with = |width: u32| {
        move |s: String| {
            s.replace(
                "__DefRegFile Reg<8>",
                "__DefImmediate U16<16> unsigned\n__DefImmediate U4<4> unsigned\n__DefBitFieldType S12<12>\n    K0 = 0;\n    K1 = 1;\n__DefRegFile Reg<8>",
            )
            .replace(
                "    field<24, 8> U8 imm = 0;\n",
                &format!("    field<24, 8> U8 imm = 0;\n    field<32, {width}> U{width} big = 0;\n"),
            )
            .replace("Order<imm, rd>;", "Order<imm, rd, big>;")
        }
    };
    let new = spec(|s| {
        with(4)(s).replace(
            "__DefOpcode A_R: [A]\n",
            "__DefOpcode A_R: [A]\n  __Encoding\n    field<36, 12> S12 s == K0;\n__DefOpcode A_S: [A]\n  __Encoding\n    field<36, 12> S12 s == K1;\n",
        )
    });
    let r = Report::new(&spec(with(16)), &new);
    assert!(!r.breaks.is_empty());
    assert!(
        r.breaks.iter().all(|b| !b.why.contains("at most")),
        "{:?}",
        r.breaks
    );
    assert!(r
        .breaks
        .iter()
        .any(|b| b.why == "no NEW opcode decodes some of its words"));
}

/// A bit NEW stops covering that none of OLD's codes set is no break, and the other
/// changes to the opcode are still found (here: a changed default).
#[test]
fn an_uncovered_bit_no_code_sets_does_not_hide_other_breaks() {
    let two = |s: String| s.replace("    X;\n    Y;\n    Z;", "    X;\n    Y;");
    let old = spec(two);
    let new = spec(|s| {
        two(s)
            .replace(
                "__DefRegFile Reg<8>",
                "__DefBitFieldType M1<1>\n    X;\n    Y;\n__DefRegFile Reg<8>",
            )
            .replace("field<8, 2> M m = X;", "field<8, 1> M1 m = Y;")
    });
    let r = Report::new(&old, &new);
    assert!(!r.breaks.is_empty(), "{:?}", r.changes);
    assert!(
        r.breaks.iter().all(|b| !b.why.contains("reserved")),
        "{:?}",
        r.breaks
    );
    assert_eq!(r.breaks[0].fields, ["m"], "{:?}", r.breaks);
}

/// NEW splits `A_R`'s words by a field of two codes (`b`): `b == Zero` stays `A_R`,
/// `b == One` goes to `A_S`, which decodes them but no longer prints `.One`. The words
/// are followed to each opcode: the break is a word that prints differently under
/// `A_S`, not one that `A_R` fails to decode.
#[test]
fn words_split_by_a_field_of_two_codes_are_followed_to_each() {
    let bit = |s: String| {
        s.replace(
            "__DefRegFile Reg<8>",
            "__DefBitFieldType Bit<1>\n    Zero;\n    One;\n__DefRegFile Reg<8>",
        )
        .replace(
            "    field<8, 2> M m = X;\n",
            "    field<8, 2> M m = X;\n    field<12, 1> Bit b = Zero;\n",
        )
    };
    let new = spec(|s| {
        bit(s).replace(
            "__DefOpcode A_R: [A]\n",
            "__DefOpcode A_R: [A]\n  __Encoding\n    field<12, 1> Bit b == Zero;\n\
             __DefOpcode A_S: [A]\n  __Encoding\n    field<12, 1> Bit b == One;\n",
        )
    });
    let r = Report::new(&spec(bit), &new);
    let seen: Vec<(Option<&str>, &str, &str, &str)> = r
        .breaks
        .iter()
        .map(|b| {
            (
                b.new_opcode.as_deref(),
                b.why.as_str(),
                b.old_text.as_str(),
                b.new_text.as_str(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [(Some("A_S"), "it prints differently", "A.One R0", "A R0")],
        "{:?}",
        r.breaks
    );
    assert_eq!(r.breaks[0].fields, ["b"]);
}

/// A print unit of exactly 2^16 combinations (a register and the 8-bit immediate its
/// NEW `Bitwidth` reads) is listed in full, not probed at its boundaries: NEW prints
/// `rd` as a pair of registers only when `imm` is 10, which no boundary probe holds.
#[test]
fn a_print_unit_of_exactly_the_listed_combinations_is_listed_in_full() {
    let new = spec(|s| {
        s.replace(
            "Order<imm, rd>;",
            "Order<imm, rd>;\n    Bitwidth<rd> = 32 + 32 * (imm == 10);",
        )
    });
    let r = Report::new(&spec(|s| s), &new);
    assert!(!r.compatible());
    let seen: Vec<(&str, &str)> = r
        .breaks
        .iter()
        .map(|b| (b.old_text.as_str(), b.new_text.as_str()))
        .collect();
    assert_eq!(seen, [("A 0xa, R0", "A 0xa, R[0:1]")], "{:?}", r.breaks);
}

/// `CvtINegX(ra.neg, carry)` added in NEW: `-R` becomes `~R` only on the words with
/// `ra.neg` set *and* `carry` at `X`. OLD prints the operand and the modifier apart;
/// NEW's printer reads them together, and that alone makes them one group to try.
#[test]
fn a_new_converter_s_fields_are_tried_together() {
    let r = Report::new(&spec(converter(false)), &spec(converter(true)));
    assert!(!r.compatible(), "{:?}", r.breaks);
    let b = &r.breaks[0];
    assert!(
        b.old_text.contains("-R") && b.old_text.contains(".X") && b.new_text.contains("~R"),
        "{:?}",
        r.breaks
    );
}

/// Two specs that differ only in their `__Syntax` order of the modifiers print alike
/// but for that order: the words with both modifiers set break.
#[test]
fn a_syntax_that_reorders_modifiers_breaks() {
    let with = |syntax: &'static str| {
        move |s: String| {
            s.replace(
                "__DefRegFile Reg<8>",
                "__DefBitFieldType N<2>\n    P;\n    Q;\n__DefRegFile Reg<8>",
            )
            .replace(
                "    field<8, 2> M m = X;\n",
                "    field<8, 2> M m = X;\n    field<10, 2> N n = P;\n",
            )
            .replace(
                "    Order<imm, rd>;\n",
                &format!("    Order<imm, rd>;\n  __Syntax\n```asm\n{syntax} imm, Rd ;\n```\n"),
            )
        }
    };
    let r = Report::new(&spec(with("A.m.n")), &spec(with("A.n.m")));
    assert!(!r.compatible());
    let b = &r.breaks[0];
    assert_eq!(
        (b.old_text.as_str(), b.new_text.as_str()),
        ("A.Y.Q 0x1, R1", "A.Q.Y 0x1, R1"),
        "{:?}",
        r.breaks
    );
}

/// A modifier that prints in a group with other fields (`carry`, the extension of
/// `CvtINegX(ra.neg, carry)`) and another modifier (`m`) change places: the words with
/// both set print them in the other order, a break even though each group's own words
/// print alike.
#[test]
fn a_modifier_in_a_wider_group_that_changes_places_breaks() {
    let with = |carry_first: bool| {
        move |s: String| {
            let s = converter(true)(s);
            let carry = "    field<52, 2> Ext carry = NoX;\n";
            if carry_first {
                s.replacen(carry, "", 1).replace(
                    "    field<8, 2> M m",
                    &format!("{carry}    field<8, 2> M m"),
                )
            } else {
                s
            }
        }
    };
    let r = Report::new(&spec(with(false)), &spec(with(true)));
    assert!(!r.compatible(), "{:?}", r.breaks);
    let b = &r.breaks[0];
    assert!(
        b.old_text.starts_with("A.MY.Y ") && b.new_text.starts_with("A.Y.MY "),
        "{:?}",
        r.breaks
    );
}

/// Sub-fields of a fixed field never print; each is a group of its own. NEW's
/// `Bitwidth` of `rd` reads one of them (`op.r`, 256 codes), which makes a print unit
/// of exactly 2^16 combinations, listed in full: `rd` prints as a pair when it is `R10`
/// (no boundary probe) and `op.r` is `V0`. The other sub-field (`op.q`) is not added to
/// that unit, which would make it too wide to list.
#[test]
fn sub_fields_of_a_fixed_field_are_not_tried_together() {
    let values: String = (0..256).map(|k| format!("    V{k};\n")).collect();
    let with = |bitwidth: bool| {
        let values = values.clone();
        move |s: String| {
            let s = s
                .replace(
                    "__DefRegFile Reg<8>",
                    &format!("__DefBitFieldType Sel<8>\n{values}__DefBitFieldType Bit<1>\n    Zero;\n    One;\n__DefRegFile Reg<8>"),
                )
                .replace(
                    "    field<24, 8> U8 imm = 0;\n",
                    "    field<24, 8> U8 imm = 0;\n    field<40, 8> Sel op.r = V0;\n    field<48, 1> Bit op.q = Zero;\n",
                );
            if bitwidth {
                s.replace(
                    "Order<imm, rd>;",
                    "Order<imm, rd>;\n    Bitwidth<rd> = 32 + 32 * (rd == 10 and op.r == \"V0\");",
                )
            } else {
                s
            }
        }
    };
    let r = Report::new(&spec(with(false)), &spec(with(true)));
    let seen: Vec<(&str, &str)> = r
        .breaks
        .iter()
        .map(|b| (b.old_text.as_str(), b.new_text.as_str()))
        .collect();
    assert_eq!(seen, [("A R10", "A R[10:11]")], "{:?}", r.breaks);
}
