//! `isa diff OLD NEW` on the bundled spec and edited copies of it.

mod common;

use std::path::Path;

use common::{isa, isa_command, spec_copy, spec_dir, stderr, stdout};

/// Runs `isa diff args`: the exit code, stdout and stderr.
fn diff(args: &[&Path]) -> (Option<i32>, String, String) {
    let o = isa_command().arg("diff").args(args).output().unwrap();
    (o.status.code(), stdout(&o), stderr(&o))
}

fn replace_in(
    file: &'static str,
    from: &'static str,
    to: &'static str,
) -> impl Fn(&str, String) -> String {
    move |name, text| {
        if name == file {
            assert!(text.contains(from), "{from}");
            text.replacen(from, to, 1)
        } else {
            text
        }
    }
}

#[test]
fn the_bundled_spec_against_itself_is_compatible() {
    let (code, out, err) = diff(&[&spec_dir(), &spec_dir()]);
    assert_eq!(code, Some(0), "{out}{err}");
    // The verdict names both specs as they were given.
    let dir = spec_dir().display().to_string();
    assert_eq!(
        out.lines().next(),
        Some(
            format!("compatible: every word that decodes under {dir} decodes under {dir} to the same text")
                .as_str()
        ),
        "{out}"
    );
    // A spec path may be a file: base.isa alone has no opcodes, so none decodes.
    let (code, out, err) = diff(&[&spec_dir(), &spec_dir().join("base.isa")]);
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(
        out.contains("SHFL_RRR: no NEW opcode decodes its words"),
        "{out}"
    );
}

#[test]
fn a_new_opcode_in_a_free_head_is_a_compatible_addition() {
    let dir = spec_copy("add", |name, text| {
        match name {
        "base.isa" => text.replacen("    SHFL = 0x01;", "    SHFL = 0x01;\n    NEWOP = 0x0a;", 1),
        "misc.isa" => {
            text + "\n__DefOptype NEWOP: [ALL]\n  __Encoding\n    field< 0,  8> Optype optype == NEWOP;\n    field<12,  3> Pred pg = PT;\n    field<15,  1> PModi pg.not = False;\n  __OperandInfo\n    InList<pg>;\n    OutList<>;\n    Order<pg>;\n\n__DefOpcode NEWOP_X: [NEWOP]\n  __Encoding\n    field< 8,  4> SType stype == X;\n"
        }
        _ => text,
    }
    });
    let (code, out, err) = diff(&[&spec_dir(), &dir]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains("compatible additions:"), "{out}");
    assert!(
        out.contains("opcode NEWOP_X (optype == NEWOP, stype == X)"),
        "{out}"
    );
    assert!(out.contains("value Optype.NEWOP = 0xa"), "{out}");
    // The other direction removes it: its words no longer decode.
    let (code, out, _) = diff(&[&dir, &spec_dir()]);
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("NEWOP_X: no NEW opcode decodes its words"),
        "{out}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_moved_field_is_incompatible_and_names_the_opcodes() {
    let dir = spec_copy(
        "move",
        replace_in(
            "bru.isa",
            "field<82, 2> BRACond cond = NoCond;",
            "field<86, 2> BRACond cond = NoCond;",
        ),
    );
    let (code, out, err) = diff(&[&spec_dir(), &dir]);
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(out.contains("BRA_U (field `cond`)"), "{out}");
    assert!(
        out.contains("field `cond` moved from bits 83:82 to 87:86"),
        "{out}"
    );
    // The example word really decodes under OLD and not under NEW.
    let word = out
        .lines()
        .find_map(|l| l.trim().strip_prefix("word 0x"))
        .unwrap();
    let o = isa(&["disasm", "--hex", word]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("BRA.U"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_changed_enum_code_is_incompatible_and_names_the_type() {
    let dir = spec_copy(
        "renumber",
        replace_in("bru.isa", "    DIV;\n    CONV;", "    CONV;\n    DIV;"),
    );
    let (code, out, err) = diff(&[&spec_dir(), &dir]);
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(
        out.contains("type BRACond: value `DIV` renumbered 0x2 → 0x3"),
        "{out}"
    );
    assert!(
        out.contains("OLD: BRA.DIV") && out.contains("NEW: BRA.CONV"),
        "{out}"
    );

    // The same for tools.
    let o = isa_command()
        .args(["diff", "--json"])
        .arg(spec_dir())
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["compatible"], false);
    let breaks = v["breaks"].as_array().unwrap();
    assert!(breaks
        .iter()
        .all(|b| b["fields"] == serde_json::json!(["cond"])));
    assert!(breaks.iter().any(|b| b["opcode"] == "BRA_U"));
    assert!(breaks.iter().all(|b| b["moved"].is_null()));
    assert!(v["changes"]
        .as_array()
        .unwrap()
        .iter()
        .any(|c| c["kind"] == "type" && c["name"] == "BRACond"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A renumbered optype (`BRA = 0x40` → `0x3f`): `BRA_U` and `BRA_X` moved. Each is said
/// once, as a move with an OLD word that NEW no longer decodes, and neither is listed as
/// an addition (both exist in OLD).
#[test]
fn a_renumbered_optype_is_reported_as_moved_opcodes() {
    let dir = spec_copy(
        "bra3f",
        replace_in("base.isa", "    BRA = 0x40;", "    BRA = 0x3f;"),
    );
    let (code, out, err) = diff(&[&spec_dir(), &dir]);
    assert_eq!(code, Some(1), "{out}{err}");
    assert_eq!(
        out,
        format!(
            "\
incompatible: words of 2 opcodes decode differently under {}

breaks:
  BRA_U (field `optype`): moved from optype == BRA (0x40) to optype == BRA (0x3f); no NEW opcode decodes its OLD words
    word 0x0000001c000000000000000000007440
    OLD: BRA UR0, 0x10
    NEW: does not decode: no opcode matches
  BRA_X (field `optype`): moved from optype == BRA (0x40) to optype == BRA (0x3f); no NEW opcode decodes its OLD words
    word 0x0000001c000000000000000000007040
    OLD: BRA 0x10
    NEW: does not decode: no opcode matches

changes:
  type Optype: value `BRA` renumbered 0x40 → 0x3f
  opcode BRA_U: field `optype` fixed to BRA, whose code changed
  opcode BRA_X: field `optype` fixed to BRA, whose code changed
",
            dir.display()
        )
    );
    // The example words are what the report says under each spec.
    let word = "0x0000001c000000000000000000007440";
    let o = isa(&["disasm", "--strict", "--hex", word]);
    assert!(stdout(&o).contains("BRA UR0, 0x10"), "{}", stdout(&o));
    let o = isa(&[
        "disasm",
        "--strict",
        "--spec",
        dir.to_str().unwrap(),
        "--hex",
        word,
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));

    // Back again: the same moves, the codes the other way round.
    let (code, out, _) = diff(&[&dir, &spec_dir()]);
    assert_eq!(code, Some(1));
    assert!(
        out.contains("  BRA_X (field `optype`): moved from optype == BRA (0x3f) to optype == BRA (0x40); no NEW opcode decodes its OLD words\n"),
        "{out}"
    );
    assert!(!out.contains("compatible additions"), "{out}");

    // For tools: each break says how the opcode was identified and is now.
    let o = isa_command()
        .args(["diff", "--json"])
        .arg(spec_dir())
        .arg(&dir)
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let moved: Vec<_> = v["breaks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| (b["opcode"].clone(), b["moved"].clone()))
        .collect();
    let m = serde_json::json!({"from": "optype == BRA (0x40)", "to": "optype == BRA (0x3f)"});
    assert_eq!(
        moved,
        [
            (serde_json::json!("BRA_U"), m.clone()),
            (serde_json::json!("BRA_X"), m)
        ]
    );
    assert_eq!(v["added_opcodes"], serde_json::json!([]));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn usage_and_input_errors_exit_2() {
    let missing = Path::new("/nonexistent/spec");
    assert_eq!(diff(&[&spec_dir()]).0, Some(2));
    assert_eq!(diff(&[&spec_dir(), missing]).0, Some(2));
    let broken = spec_copy(
        "broken",
        replace_in("base.isa", "__DefRegFile Reg<8>", "__DefRegFile Reg<0>"),
    );
    let (code, _, err) = diff(&[&spec_dir(), &broken]);
    assert_eq!(code, Some(2));
    assert!(err.contains("NEW") && err.contains("has errors"), "{err}");
    let _ = std::fs::remove_dir_all(&broken);
}
