//! `isa run`: exit codes, the JSON state in and out, and error messages.

mod common;

use common::{dir, isa, json, stderr, write};

/// Runs `isa args`, checks its exit code, and returns what it wrote to stderr.
#[track_caller]
fn failing(args: &[&str], code: i32) -> String {
    let o = isa(args);
    assert_eq!(o.status.code(), Some(code), "isa {args:?}");
    stderr(&o)
}

const IF_ELSE: &str = "\
// divergent if/else, reconverging at BSYNC
        S2R R1, SR_LANEID
        BSSY B0, `(.L_join)
        @P0 BRA `(.L_else)
        VOTE.ANY R5, P5, PT
        BRA `(.L_join)
.L_else:
/*0050*/ VOTE.ANY R6, P6, PT
.L_join:
        BSYNC B0
        UIADD UR4, UR4, c[0x0][0x164]
        S2UR UR5, SR_CTAID.X
        EXIT
";

#[test]
fn runs_a_program_and_prints_the_state() {
    let prog = write("ifelse.s", IF_ELSE);
    let state = write(
        "ifelse.json",
        r#"{
          "valid_mask": "0xffffffff",
          "gpr": {"R0": 7, "R2": [0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,-1]},
          "pred": {"P0": [true,true,true,true,true,true,true,true,true,true,true,true,true,true,true,true,
                          false,false,false,false,false,false,false,false,false,false,false,false,false,false,false,false]},
          "ur": {"UR4": 16},
          "sreg": {"SR_CTAID.X": 3},
          "cmem": {"0": {"0x160": 5, "0x164": 6}}
        }"#,
    );
    let o = isa(&["run", &prog, "--state", &state]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v = json(&o);
    assert_eq!(v["exited"], true);
    assert_eq!(v["steps"], 11);
    assert_eq!(v["pc"], "0x0090");
    assert_eq!(v["active_mask"], "0x00000000");
    // Given registers are listed, broadcast to 32 lanes; written ones too.
    assert_eq!(v["gpr"]["R0"], serde_json::json!(vec![7; 32]));
    assert_eq!(v["gpr"]["R2"][31], 0xffff_ffffu32);
    let lanes: Vec<u64> = (0..32).collect();
    assert_eq!(v["gpr"]["R1"], serde_json::json!(lanes));
    let r5: Vec<u64> = (0..32)
        .map(|l| if l < 16 { 0 } else { 0xffff_0000 })
        .collect();
    let r6: Vec<u64> = (0..32).map(|l| if l < 16 { 0xffff } else { 0 }).collect();
    assert_eq!(v["gpr"]["R5"], serde_json::json!(r5));
    assert_eq!(v["gpr"]["R6"], serde_json::json!(r6));
    assert!(
        v["gpr"].get("R3").is_none(),
        "untouched registers are not listed"
    );
    assert_eq!(v["pred"]["P5"].as_array().unwrap().len(), 32);
    assert_eq!(v["pred"]["P0"][0], true);
    assert_eq!(v["pred"]["P0"][16], false);
    assert_eq!(v["ur"]["UR4"], 22);
    assert_eq!(v["ur"]["UR5"], 3);
    assert_eq!(v["sreg"]["SR_CTAID.X"], 3);
    assert_eq!(v["cmem"]["0"]["0x164"], 6);
    assert_eq!(v["breg"]["B0"], serde_json::Value::Null);

    // The output is a valid state file (its valid_mask is 0 now, so nothing runs
    // and the state comes back unchanged).
    let again = write("again.json", &String::from_utf8_lossy(&o.stdout));
    let o2 = isa(&["run", &prog, "--state", &again]);
    assert_eq!(o2.status.code(), Some(0), "{}", stderr(&o2));
    let v2 = json(&o2);
    assert_eq!(
        (v2["steps"].clone(), v2["ur"]["UR4"].clone()),
        (0.into(), 22.into())
    );
    assert_eq!(v2["gpr"], v["gpr"]);
    assert_eq!(v2["pred"], v["pred"]);
}

#[test]
fn without_a_state_file_every_lane_runs_from_zero() {
    let prog = write("plain.s", "S2R R1, SR_LANEID\nREDUX.SUM R2, R1\nEXIT\n");
    let o = isa(&["run", &prog]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v = json(&o);
    assert_eq!(v["gpr"]["R2"][0], 496);
    assert_eq!(v["valid_mask"], "0x00000000");
    assert_eq!(v["events"], serde_json::json!([]));
}

#[test]
fn events_are_reported() {
    let prog = write("ev.s", "@P0 TRAP 0x7\nEXIT\n");
    let state = write("ev.json", r#"{"pred": {"P0": true}, "valid_mask": 255}"#);
    let o = isa(&["run", &prog, "--state", &state]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v = json(&o);
    assert_eq!(v["events"][0]["kind"], "TRAP");
    assert_eq!(v["events"][0]["value"], 7);
    assert_eq!(v["events"][0]["lanes"], "0x000000ff");
}

#[test]
fn bad_programs_exit_1_with_file_line_col() {
    let prog = write(
        "bad.s",
        "NOP\n  FOO R1, R2\n  SHFL.UP P1, R1, R0, UR3, R2\n",
    );
    let o = isa(&["run", &prog]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(
        e.contains("bad.s:2:3: error: unknown mnemonic `FOO`"),
        "{e}"
    );
    assert!(e.contains("bad.s:3:23: error:"), "{e}");
    assert!(e.contains("SrcB"), "{e}");
    assert!(o.stdout.is_empty());
}

#[test]
fn malformed_state_files_exit_1_with_json_paths() {
    let prog = write("ok.s", "EXIT\n");
    let cases = [
        (
            "s1.json",
            "{\n  \"gpr\": {\"R1\": [1, 2, 3]}\n}",
            "s1.json:2:",
            "$.gpr.R1: expected 32 values (one per lane), found 3",
        ),
        (
            "s2.json",
            "{\"gpr\": {\"R1\": [1, 2, \"x\"]}}",
            "s2.json:1:",
            "$.gpr.R1[2]: expected an integer or a \"0x…\" string, found \"x\"",
        ),
        (
            "s2b.json",
            "{\"gpr\": {\"R1\": [1, 2, \"0x+5\"]}}",
            "s2b.json:1:",
            "$.gpr.R1[2]: expected an integer or a \"0x…\" string, found \"0x+5\"",
        ),
        (
            "s3.json",
            "{\"ur\": {\"UR4\": 4294967296}}",
            "s3.json:1:",
            "$.ur.UR4: 0x100000000 does not fit in 32 bits",
        ),
        (
            "s4.json",
            "{\"pred\": {\"P9\": true}}",
            "s4.json:1:",
            "$.pred.P9: \"P9\" is not a predicate P0..P6",
        ),
        (
            "s5.json",
            "{\"gprs\": {}}",
            "s5.json:1:",
            "unknown key \"gprs\"",
        ),
        (
            "s6.json",
            "{\"cmem\": {\"0\": {\"0x2\": 1}}}",
            "s6.json:1:",
            "$.cmem[\"0\"][\"0x2\"]: \"0x2\" is not a 4-byte-aligned address",
        ),
        (
            "s7.json",
            "{\"sreg\": {\"SR_LANEID\": 1}}",
            "s7.json:1:",
            "$.sreg.SR_LANEID: SR_LANEID is computed by the simulator",
        ),
        (
            "s8.json",
            "{\"valid_mask\": 1,}",
            "s8.json:1:",
            "trailing comma",
        ),
        (
            "s9.json",
            "{\"upred\": {\"UP0\": 2}}",
            "s9.json:1:",
            "$.upred.UP0: expected true or false, found 2",
        ),
        (
            "s10.json",
            "[1]",
            "s10.json:1:",
            "$: expected an object, found an array",
        ),
    ];
    for (name, text, at, msg) in cases {
        let state = write(name, text);
        let o = isa(&["run", &prog, "--state", &state]);
        assert_eq!(o.status.code(), Some(1), "{name}");
        let e = stderr(&o);
        assert!(e.contains(at) && e.contains(msg), "{name}: {e}");
        // `file:line:col: message`: a line and a column follow the file name.
        let rest = &e[e.find(at).unwrap() + at.len()..];
        let col: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
        assert!(
            !col.is_empty() && rest[col.len()..].starts_with(": "),
            "{name}: {e}"
        );
    }
}

#[test]
fn runtime_faults_exit_2_and_still_print_the_state() {
    let prog = write("jump.s", "UMOV UR1, 0x5\nBRA 0x1000\n");
    let o = isa(&["run", &prog]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains(
            "jump.s:2: runtime fault: pc 0x0010 `BRA 0x1000`: jump outside the program (to 0x1000)"
        ),
        "{e}"
    );
    let v = json(&o);
    assert_eq!(v["exited"], false);
    assert_eq!(v["ur"]["UR1"], 5);
    assert_eq!(v["pc"], "0x1000");
    assert!(v["fault"].as_str().unwrap().contains("jump outside"));

    // A loop that counts (a branch to itself would be a livelock: tests/trace.rs).
    let prog = write("spin.s", ".L_top: UIADD UR1, UR1, 0x1\nBRA `(.L_top)\n");
    let o = isa(&["run", &prog, "--max-steps", "25"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("step limit of 25 reached"),
        "{}",
        stderr(&o)
    );
    assert_eq!(json(&o)["steps"], 25);

    let prog = write("ugpr.s", "GETUGPR UR1, UR[UR2+0x3f]\nEXIT\n");
    let state = write("ugpr.json", r#"{"ur": {"UR2": "0x10"}}"#);
    let e = failing(&["run", &prog, "--state", &state], 2);
    assert!(
        e.contains("pc 0x0000 `GETUGPR UR1, UR[UR2+0x3f]`: dynamic UR index 79 out of range"),
        "{e}"
    );
}

#[test]
fn usage_errors_exit_1() {
    let o = isa(&["run"]);
    assert_eq!(o.status.code(), Some(1));
    let o = isa(&["run", "/nonexistent/x.s"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("/nonexistent/x.s"));
    let prog = write("n.s", "EXIT\n");
    let o = isa(&["run", &prog, "--max-steps", "many"]);
    assert_eq!(o.status.code(), Some(1));
    let o = isa(&["run", &write("empty.s", "// nothing\n")]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("no instruction"));
}

#[test]
fn files_that_are_not_utf8_are_errors_at_line_and_column() {
    let prog = dir().join("latin1.s");
    // `é` in Latin-1: harmless in a comment, an error in an instruction.
    std::fs::write(&prog, b"// caf\xe9\nNOP\n  S2R R1, SR_LANE\xc9D\nEXIT\n").unwrap();
    let e = failing(&["run", prog.to_str().unwrap()], 1);
    assert!(
        e.contains("latin1.s:3:18: error: not UTF-8 text (byte 0xc9)"),
        "{e}"
    );
    assert_eq!(e.lines().count(), 1, "{e}");

    let ok = write("ok8.s", "EXIT\n");
    let state = dir().join("latin1.json");
    std::fs::write(&state, b"{\n  \"gpr\": {\"R1\": \"\xff\"}\n}").unwrap();
    let e = failing(&["run", &ok, "--state", state.to_str().unwrap()], 1);
    assert!(
        e.contains("latin1.json:2:18: not UTF-8 text (byte 0xff)"),
        "{e}"
    );
}
