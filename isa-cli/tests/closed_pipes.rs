//! A reader that goes away (`isa check isa-spec 2>&1 | head -1`) must not make the tool
//! panic: what cannot be written is dropped and the exit status is the command's own.

mod common;

use std::process::Stdio;

use common::{isa_command, spec_dir, temp};

/// A pipe whose reading end is already closed: every write to it fails (EPIPE).
fn closed_pipe() -> Stdio {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    writer.into()
}

/// Runs `isa args` with stdout and/or stderr closed; returns the exit code and stderr
/// (when it is open).
fn run(args: &[&str], close_stdout: bool, close_stderr: bool) -> (Option<i32>, String) {
    let mut cmd = isa_command();
    cmd.args(args);
    cmd.stdout(if close_stdout {
        closed_pipe()
    } else {
        Stdio::null()
    });
    cmd.stderr(if close_stderr {
        closed_pipe()
    } else {
        Stdio::piped()
    });
    let o = cmd.output().unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn check_with_closed_outputs_keeps_its_exit_status() {
    let spec = spec_dir();
    let spec = spec.to_str().unwrap();
    // The bundled spec has warnings (stderr) and a summary (stdout).
    assert_eq!(run(&["check", spec], true, true).0, Some(0));
    assert_eq!(run(&["check", spec], false, true).0, Some(0));
    let (code, err) = run(&["check", spec], true, false);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("warning[examples]:"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn disasm_warnings_to_a_closed_stderr() {
    // A word no opcode matches: disassembled as `.word` with a warning (exit 0, or 1
    // with --strict).
    assert_eq!(run(&["disasm", "--hex", "0x1"], false, true).0, Some(0));
    assert_eq!(
        run(&["disasm", "--strict", "--hex", "0x1"], false, true).0,
        Some(1)
    );
    assert_eq!(
        run(&["disasm", "--hex", "0x1", "zz"], false, true).0,
        Some(2)
    );
}

#[test]
fn a_closed_stdout_is_an_error_for_commands_whose_output_is_the_product() {
    // `isa json`, `isa gen -o -`: the reader missed the output, so the command fails
    // (exit 2) and says why, rather than panicking.
    let spec = spec_dir();
    let spec = spec.to_str().unwrap();
    for args in [&["json", spec][..], &["gen", spec, "-o", "-"]] {
        let (code, err) = run(args, true, false);
        assert_eq!(code, Some(2), "isa {args:?}: {err}");
        assert!(err.contains("Broken pipe"), "isa {args:?}: {err}");
    }
    // `isa run` reports its errors with exit 1 (2 is a runtime fault).
    let prog = temp("exit.s");
    std::fs::write(&prog, "EXIT\n").unwrap();
    let (code, err) = run(&["run", prog.to_str().unwrap()], true, false);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("isa run: Broken pipe"), "{err}");
    // With a trace and a timeline: they are written, then the same error.
    let trace = prog.with_extension("jsonl");
    let svg = prog.with_extension("svg");
    let (code, err) = run(
        &[
            "run",
            prog.to_str().unwrap(),
            "--trace",
            trace.to_str().unwrap(),
            "--timeline",
            svg.to_str().unwrap(),
        ],
        true,
        false,
    );
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("isa run: Broken pipe"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    let t = std::fs::read_to_string(&trace).unwrap();
    assert_eq!(t.lines().count(), 2, "{t}");
    assert!(std::fs::read_to_string(&svg).unwrap().starts_with("<svg"));
}
