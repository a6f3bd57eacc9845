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
    assert!(v["changes"]
        .as_array()
        .unwrap()
        .iter()
        .any(|c| c["kind"] == "type" && c["name"] == "BRACond"));
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
