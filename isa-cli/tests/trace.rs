//! `isa run --trace` and `--timeline`, and livelock detection seen from the command
//! line: the trace's lines for a program traced by hand, the replay property on random
//! programs, the picture's structure, and the errors.

mod common;

// The random SIMT programs and the label-aware assembler of isa-runtime's tests.
#[path = "../../isa-runtime/tests/common/mod.rs"]
mod runtime_common;

use proptest::prelude::*;
use serde_json::{Map, Value};

use common::{isa, json, path, repo, stderr, write};

fn lines(file: &str) -> Vec<Value> {
    std::fs::read_to_string(file)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// A state file's `pred` entry: P`n` true in `lanes`.
fn pred(n: u8, lanes: u32) -> String {
    let v: Vec<String> = (0..32).map(|l| (lanes >> l & 1 == 1).to_string()).collect();
    format!("\"P{n}\": [{}]", v.join(", "))
}

/// Lanes 0..15 wait at BSYNC B0, lanes 24..31 at BSYNC B1, and lanes 16..23, which
/// both wait for, yielded: the two BSYNCs switch to each other forever
/// (isa-runtime/tests/livelock.rs traces it).
const LIVELOCK: &str = "\
        @!P1 BSSY B0, `(.L_x)
        @P2 BSSY B1, `(.L_d)
        @P1 BRA `(.L_d)
        @P0 BRA `(.L_c)
        BRA `(.L_x)
.L_c:   YIELD
        BRA `(.L_x)
.L_x:   BSYNC B0
        EXIT
.L_d:   BSYNC B1
        EXIT
";

#[test]
fn a_livelock_stops_at_once_with_exit_2() {
    let prog = write("livelock.s", LIVELOCK);
    let state = write(
        "livelock.json",
        &format!(
            "{{\"pred\": {{{}, {}, {}}}}}",
            pred(0, 0x00ff_0000),
            pred(1, 0xff00_0000),
            pred(2, 0xffff_0000)
        ),
    );
    let o = isa(&["run", &prog, "--state", &state, "--max-steps", "1000000"]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains("livelock.s:10: runtime fault: pc 0x0090 `BSYNC B1`: livelock: the warp returns to the same state every 2 steps"),
        "{e}"
    );
    assert!(
        e.contains("lanes 0x00ff0000 never run (they yielded)"),
        "{e}"
    );
    let v = json(&o);
    assert_eq!(v["steps"], 34, "far fewer than the limit");
    assert!(v["fault"].as_str().unwrap().contains("livelock"));
}

/// An if/else with an event: lanes 16..31 (P0 false) take the then part, lanes 0..15
/// the else part, where lanes 0..7 (P1) trap.
const IF_TRAP: &str = "\
        S2R R1, SR_LANEID
        BSSY B0, `(.L_join)
        @P0 BRA `(.L_else)
        UMOV UR1, 0x7
        BRA `(.L_join)
.L_else:
        @P1 TRAP 0x2
.L_join:
        BSYNC B0
        EXIT
";

#[test]
fn the_trace_of_a_program_traced_by_hand() {
    let prog = write("if_trap.s", IF_TRAP);
    let state = write(
        "if_trap.json",
        &format!(
            "{{\"pred\": {{{}, {}}}}}",
            pred(0, 0x0000_ffff),
            pred(1, 0x0000_00ff)
        ),
    );
    let trace = path("if_trap.jsonl");
    let o = isa(&["run", &prog, "--state", &state, "--trace", &trace]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = std::fs::read_to_string(&trace).unwrap();
    let l: Vec<&str> = text.lines().collect();
    let rpc = |a: &str, b: &str| {
        let v: Vec<String> = (0..32)
            .map(|k| format!("\"{}\"", if k < 16 { a } else { b }))
            .collect();
        format!("[{}]", v.join(", "))
    };
    let lanes: Vec<String> = (0..32).map(|k: u32| k.to_string()).collect();
    let expected = [
        format!("{{\"step\": 1, \"pc\": \"0x0000\", \"cycle\": 0, \"active_mask\": \"0xffffffff\", \"text\": \"S2R R1, SR_LANEID\", \"writes\": {{\"gpr\": {{\"R1\": [{}]}}}}}}", lanes.join(", ")),
        "{\"step\": 2, \"pc\": \"0x0010\", \"cycle\": 1, \"active_mask\": \"0xffffffff\", \"text\": \"BSSY B0, 0x60\", \"writes\": {\"breg\": {\"B0\": 4294967295}}}".to_string(),
        // The partial branch: lanes 0..15 wait at the else part.
        format!("{{\"step\": 3, \"pc\": \"0x0020\", \"cycle\": 2, \"active_mask\": \"0xffffffff\", \"text\": \"@P0 BRA 0x50\", \"writes\": {{\"active_mask\": \"0xffff0000\", \"rpc\": {}}}}}", rpc("0x0050", "0x0000")),
        "{\"step\": 4, \"pc\": \"0x0030\", \"cycle\": 3, \"active_mask\": \"0xffff0000\", \"text\": \"UMOV UR1, 0x7\", \"writes\": {\"ur\": {\"UR1\": 7}}}".to_string(),
        "{\"step\": 5, \"pc\": \"0x0040\", \"cycle\": 4, \"active_mask\": \"0xffff0000\", \"text\": \"BRA 0x60\", \"writes\": {}}".to_string(),
        // BSYNC misses lanes 0..15: B0 keeps them, the then lanes wait here.
        format!("{{\"step\": 6, \"pc\": \"0x0060\", \"cycle\": 5, \"active_mask\": \"0xffff0000\", \"text\": \"BSYNC B0\", \"writes\": {{\"breg\": {{\"B0\": 65535}}, \"active_mask\": \"0x0000ffff\", \"rpc\": {}}}}}", rpc("0x0050", "0x0060")),
        "{\"step\": 7, \"pc\": \"0x0050\", \"cycle\": 6, \"active_mask\": \"0x0000ffff\", \"text\": \"@P1 TRAP 0x2\", \"writes\": {}}".to_string(),
        "{\"step\": 7, \"event\": {\"pc\": \"0x0050\", \"cycle\": 6, \"lanes\": \"0x000000ff\", \"kind\": \"TRAP\", \"value\": 2}}".to_string(),
        "{\"step\": 8, \"pc\": \"0x0060\", \"cycle\": 7, \"active_mask\": \"0x0000ffff\", \"text\": \"BSYNC B0\", \"writes\": {\"breg\": {\"B0\": 0}, \"active_mask\": \"0xffffffff\"}}".to_string(),
        "{\"step\": 9, \"pc\": \"0x0070\", \"cycle\": 8, \"active_mask\": \"0xffffffff\", \"text\": \"EXIT\", \"writes\": {\"valid_mask\": \"0x00000000\", \"active_mask\": \"0x00000000\"}}".to_string(),
        "{\"exited\": true, \"steps\": 9, \"cycles\": 9, \"pc\": \"0x0070\"}".to_string(),
    ];
    assert_eq!(l.len(), expected.len(), "{text}");
    for (k, (got, want)) in l.iter().zip(&expected).enumerate() {
        assert_eq!(got, want, "line {}", k + 1);
    }
}

/// Replays a trace over the initial state (`isa run --max-steps 0` prints it) the way
/// docs/state-format.md says, checking each line on the way; returns the state.
fn replay(initial: &Value, trace: &[Value], src: &str) -> Value {
    let insns = runtime_common::asm(src);
    let mut state = initial.clone();
    // `--max-steps 0` stopped it with a fault; the run's own end is the trace's.
    state.as_object_mut().unwrap().remove("fault");
    let mut step = 0u64;
    let (last, body) = trace.split_last().expect("an end line");
    for line in body {
        let o = line.as_object().unwrap();
        if let Some(ev) = o.get("event") {
            assert_eq!(o["step"], step, "an event after its instruction: {line}");
            state["events"].as_array_mut().unwrap().push(ev.clone());
            continue;
        }
        step += 1;
        assert_eq!(o["step"], step, "{line}");
        let pc =
            u64::from_str_radix(o["pc"].as_str().unwrap().trim_start_matches("0x"), 16).unwrap();
        assert!(pc % 16 == 0 && pc / 16 < insns.len() as u64, "{line}");
        let text = insns[(pc / 16) as usize].display_at(pc).to_string();
        assert_eq!(o["text"], text.as_str(), "{line}");
        assert_eq!(o["active_mask"], state["active_mask"], "{line}");
        for (k, v) in o["writes"].as_object().unwrap() {
            match k.as_str() {
                "gpr" | "pred" | "ur" | "upred" | "breg" | "sreg" => {
                    let section = state[k.as_str()].as_object_mut().unwrap();
                    for (name, value) in v.as_object().unwrap() {
                        section.insert(name.clone(), value.clone());
                    }
                }
                "rpc" => assert_eq!(v.as_array().unwrap().len(), 32),
                _ => state[k.as_str()] = v.clone(),
            }
        }
    }
    for (k, v) in last.as_object().expect("the end line") {
        state[k.as_str()] = v.clone();
    }
    assert_eq!(last["steps"], step, "one line per step");
    // The state file lists a B register when it is given or not zero.
    let given: Map<String, Value> = initial["breg"].as_object().unwrap().clone();
    state["breg"]
        .as_object_mut()
        .unwrap()
        .retain(|b, v| given.contains_key(b) || *v != 0);
    state
}

fn replay_matches(seed: u64) -> Result<(), String> {
    let p = runtime_common::simt::simt(seed);
    let prog = write(&format!("simt-{seed}.s"), &p.text);
    let state = write(&format!("simt-{seed}.json"), &p.state_json());
    let trace = path(&format!("simt-{seed}.jsonl"));
    let initial = json(&isa(&["run", &prog, "--state", &state, "--max-steps", "0"]));
    let o = isa(&[
        "run",
        &prog,
        "--state",
        &state,
        "--max-steps",
        "20000",
        "--trace",
        &trace,
    ]);
    if !matches!(o.status.code(), Some(0 | 2)) {
        return Err(stderr(&o));
    }
    let fin = json(&o);
    let replayed = replay(&initial, &lines(&trace), &p.text);
    for f in [prog, state, trace] {
        let _ = std::fs::remove_file(f);
    }
    if replayed == fin {
        Ok(())
    } else {
        Err(format!(
            "replayed:\n{replayed:#}\nfinal:\n{fin:#}\nprogram:\n{}",
            p.text
        ))
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// On random SIMT programs: a line per step, the program's PCs and disassembly,
    /// and replaying the writes from the initial state gives the final state.
    #[test]
    fn replaying_a_trace_gives_the_final_state(seed in any::<u64>()) {
        let r = replay_matches(seed);
        prop_assert!(r.is_ok(), "seed {seed}: {}", r.unwrap_err());
    }
}

#[test]
fn replaying_the_trace_of_the_example_gives_its_final_state() {
    let prog = repo("docs/examples/divergence.s");
    let prog = prog.to_str().unwrap();
    let src = std::fs::read_to_string(prog).unwrap();
    let trace = path("divergence.jsonl");
    let initial = json(&isa(&["run", prog, "--max-steps", "0"]));
    let o = isa(&["run", prog, "--trace", &trace]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let t = lines(&trace);
    assert_eq!(replay(&initial, &t, &src), json(&o));
    // It shows what the picture is for: sleeping, yielding, exiting.
    let events = t.iter().filter(|l| l.get("event").is_some()).count();
    assert!(events > 0);
    let writes = |key: &str| t.iter().filter(|l| l["writes"].get(key).is_some()).count();
    assert!(writes("yield_mask") > 0 && writes("sleep_mask") > 0 && writes("valid_mask") > 0);
}

#[test]
fn output_files_that_cannot_be_written_are_errors() {
    let prog = write("exit.s", "EXIT\n");
    for opt in ["--trace", "--timeline"] {
        let what = &opt[2..];
        let o = isa(&["run", &prog, opt, "/nonexistent/dir/out"]);
        assert_eq!(o.status.code(), Some(1), "{opt}");
        let e = stderr(&o);
        assert!(
            e.contains(&format!("/nonexistent/dir/out: cannot write the {what}: ")),
            "{e}"
        );
        assert!(o.stdout.is_empty(), "nothing runs");
        assert!(!e.contains("panicked"), "{e}");
        // A device that takes no data: the writes fail.
        if std::path::Path::new("/dev/full").exists() {
            let o = isa(&["run", &prog, opt, "/dev/full"]);
            assert_eq!(o.status.code(), Some(1), "{opt}");
            let e = stderr(&o);
            assert!(
                e.contains(&format!("/dev/full: cannot write the {what}: ")),
                "{e}"
            );
            assert!(!e.contains("panicked"), "{e}");
        }
    }
}

/// The timeline's cells: `(step, class)` of each lane's rectangles, per band.
struct Picture {
    bands: usize,
    /// `[lane][step - 1]`: the status class of each cell.
    cells: Vec<Vec<String>>,
    /// The column heads' hover texts, by step.
    heads: Vec<String>,
    /// Steps after which a reconvergence is marked.
    reconverge: Vec<u64>,
}

fn picture(svg: &str) -> Picture {
    let doc = roxmltree::Document::parse(svg).unwrap_or_else(|e| panic!("not XML: {e}"));
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "svg");
    let class = |n: &roxmltree::Node, c: &str| n.attribute("class") == Some(c);
    let bands: Vec<_> = root.descendants().filter(|n| class(n, "band")).collect();
    let mut cells = vec![Vec::new(); 32];
    let mut heads = Vec::new();
    let mut reconverge = Vec::new();
    for band in &bands {
        let rows: Vec<_> = band.children().filter(|n| class(n, "lane")).collect();
        assert_eq!(rows.len(), 32, "a row per lane");
        for (l, row) in rows.iter().enumerate() {
            assert_eq!(row.attribute("data-lane"), Some(l.to_string().as_str()));
            for rect in row.children().filter(|n| n.has_tag_name("rect")) {
                let w: usize = rect.attribute("width").unwrap().parse().unwrap();
                let c = rect.attribute("class").unwrap().to_string();
                cells[l].extend(std::iter::repeat_n(c, w / 10));
            }
        }
        for head in band.children().filter(|n| class(n, "col")) {
            let title = head.children().find(|n| n.has_tag_name("title")).unwrap();
            heads.push(title.text().unwrap().to_string());
        }
        for mark in band.children().filter(|n| class(n, "reconverge")) {
            let title = mark.children().find(|n| n.has_tag_name("title")).unwrap();
            let t = title.text().unwrap();
            let step = t["after step ".len()..].split(':').next().unwrap();
            reconverge.push(step.parse().unwrap());
        }
    }
    Picture {
        bands: bands.len(),
        cells,
        heads,
        reconverge,
    }
}

#[test]
fn the_timeline_of_a_program_traced_by_hand() {
    let prog = write("if_trap_tl.s", IF_TRAP);
    let state = write(
        "if_trap_tl.json",
        &format!(
            "{{\"valid_mask\": \"0x7fffffff\", \"pred\": {{{}, {}}}}}",
            pred(0, 0x0000_ffff),
            pred(1, 0x0000_00ff)
        ),
    );
    let svg = path("if_trap.svg");
    let o = isa(&["run", &prog, "--state", &state, "--timeline", &svg]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let p = picture(&std::fs::read_to_string(&svg).unwrap());
    assert_eq!(p.bands, 1);
    assert_eq!(p.heads.len(), 9);
    assert_eq!(
        p.heads[6],
        "step 7 · pc 0x0050 · @P1 TRAP 0x2 · ActiveMask 0x0000ffff"
    );
    // s0 executed, s1 predicated off, s2 waiting, s5 exited (lane 31 is not valid).
    let row = |l: usize| p.cells[l].join(" ");
    // Lane 0: everything but the then part (steps 4-6) and the BSYNC that switched.
    assert_eq!(row(0), "s0 s0 s0 s2 s2 s2 s0 s0 s0");
    // Lane 8: as lane 0, but predicated off at the TRAP (P1 false).
    assert_eq!(row(8), "s0 s0 s0 s2 s2 s2 s1 s0 s0");
    // Lane 16: P0 false, so predicated off at the BRA; waits at BSYNC from step 7.
    assert_eq!(row(16), "s0 s0 s1 s0 s0 s0 s2 s2 s0");
    assert_eq!(row(31), "s5 s5 s5 s5 s5 s5 s5 s5 s5");
    // The second BSYNC (step 8) joins the two halves.
    assert_eq!(p.reconverge, vec![8]);
}

#[test]
fn the_timeline_of_the_example_wraps_and_shows_every_state() {
    let prog = repo("docs/examples/divergence.s");
    let svg = path("divergence.svg");
    let o = isa(&["run", prog.to_str().unwrap(), "--timeline", &svg]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let steps = json(&o)["steps"].as_u64().unwrap();
    assert!(steps >= 200, "{steps} steps");
    let p = picture(&std::fs::read_to_string(&svg).unwrap());
    assert_eq!(p.bands as u64, steps.div_ceil(100));
    assert_eq!(p.heads.len() as u64, steps);
    for row in &p.cells {
        assert_eq!(row.len() as u64, steps);
    }
    for s in ["s0", "s1", "s2", "s3", "s4", "s5"] {
        assert!(
            p.cells.iter().any(|r| r.iter().any(|c| c == s)),
            "no {s} cell"
        );
    }
    assert!(p.reconverge.len() >= 2, "{:?}", p.reconverge);
}

#[test]
fn a_long_run_keeps_its_first_and_last_steps() {
    // 4 steps a turn, UR1 counting to 0x1000, then EXIT: 16,385 steps.
    let prog = write(
        "long.s",
        "
.L_top: UIADD UR1, UR1, 0x1
        UISETP.GE.U32.AND UP0, UPT, UR1, 0x1000, UPT
        USEL UR2, URZ, 0xffffffc0, UP0
        BRX UR2, `(.L_end)
.L_end: EXIT
",
    );
    let svg = path("long.svg");
    let o = isa(&["run", &prog, "--timeline", &svg]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(json(&o)["steps"], 4 * 0x1000 + 1);
    let text = std::fs::read_to_string(&svg).unwrap();
    let p = picture(&text);
    assert_eq!(p.heads.len(), 4000);
    assert!(p.heads[0].starts_with("step 1 "));
    assert!(p.heads[1999].starts_with("step 2000 "));
    assert!(p.heads[2000].starts_with(&format!("step {} ", 4 * 0x1000 + 1 - 1999)));
    assert!(p.heads[3999].starts_with(&format!("step {} ", 4 * 0x1000 + 1)));
    assert!(text.contains(&format!("… {} steps not drawn …", 4 * 0x1000 + 1 - 4000)));
}

#[test]
fn a_livelock_is_framed_in_the_timeline() {
    let prog = write("livelock_tl.s", LIVELOCK);
    let state = write(
        "livelock_tl.json",
        &format!(
            "{{\"pred\": {{{}, {}, {}}}}}",
            pred(0, 0x00ff_0000),
            pred(1, 0xff00_0000),
            pred(2, 0xffff_0000)
        ),
    );
    let svg = path("livelock.svg");
    let o = isa(&["run", &prog, "--state", &state, "--timeline", &svg]);
    assert_eq!(o.status.code(), Some(2));
    let text = std::fs::read_to_string(&svg).unwrap();
    let doc = roxmltree::Document::parse(&text).unwrap();
    let frames: Vec<_> = doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("cycle") && n.has_children())
        .collect();
    assert_eq!(frames.len(), 1);
    // The last two of 34 steps.
    assert_eq!(frames[0].attribute("width"), Some("20"));
    let p = picture(&text);
    // Lanes 16..23 yielded at step 7 and stay yielded (s3).
    assert!(
        p.cells[16][7..].iter().all(|c| c == "s3"),
        "{:?}",
        p.cells[16]
    );
}
