//! The command line as a user meets it: help, version, completions, man pages, the lint
//! controls of `isa check`, and exit statuses.

mod common;

use common::{isa, repo, spec_dir, stderr, stdout, temp};

/// Each command's own help names its options and its exit status, and `isa help CMD`
/// prints the same text.
#[test]
fn every_command_has_its_own_help() {
    let commands: [(&str, &[&str]); 11] = [
        (
            "check",
            &["--quiet", "--allow", "--deny", "--format", "Exit status"],
        ),
        ("gen", &["--output", "Exit status"]),
        ("asm", &["--output", "--hex", "backtick", "Exit status"]),
        ("disasm", &["--hex", "--base", "--strict", "Exit status"]),
        (
            "run",
            &["--state", "--max-steps", "valid_mask", "Exit status"],
        ),
        ("doc", &["--output", "Exit status"]),
        ("json", &["--output", "Exit status"]),
        ("diff", &["--json", "OLD", "NEW", "Exit status"]),
        ("lsp", &["Language Server Protocol", "Exit status"]),
        ("completions", &["bash", "zsh", "fish"]),
        ("man", &["--output"]),
    ];
    for (cmd, words) in commands {
        let o = isa(&[cmd, "--help"]);
        assert_eq!(o.status.code(), Some(0), "isa {cmd} --help");
        let text = stdout(&o);
        assert!(text.contains(&format!("Usage: isa {cmd}")), "{text}");
        for w in words {
            assert!(text.contains(w), "isa {cmd} --help lacks {w}:\n{text}");
        }
        assert_eq!(stdout(&isa(&["help", cmd])), text, "isa help {cmd}");
    }
    // The lint names come from the one list the checker uses.
    let check = stdout(&isa(&["check", "--help"]));
    for lint in isa_gen::diag::Lint::ALL {
        assert!(check.contains(lint.name()), "{check}");
    }
}

#[test]
fn version_and_usage_errors() {
    let o = isa(&["--version"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(stdout(&o), format!("isa {}\n", env!("CARGO_PKG_VERSION")));
    // No command: the usage, exit 2.
    let o = isa(&[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("Usage: isa <COMMAND>"),
        "{}",
        stderr(&o)
    );
    // A misspelt command is a usage error with a suggestion.
    let o = isa(&["chek"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("check"), "{}", stderr(&o));
    // `isa run` keeps its contract: a bad option is bad input, exit 1.
    assert_eq!(isa(&["run", "--bogus", "x.s"]).status.code(), Some(1));
    assert_eq!(isa(&["asm", "--bogus", "x.s"]).status.code(), Some(2));
}

#[test]
fn completions_and_man_pages() {
    for (shell, marker) in [
        ("bash", "complete -F"),
        ("zsh", "#compdef isa"),
        ("fish", "complete -c isa"),
    ] {
        let o = isa(&["completions", shell]);
        assert_eq!(o.status.code(), Some(0), "{shell}");
        let script = stdout(&o);
        assert!(script.contains(marker), "{shell}: {script}");
        for cmd in ["check", "disasm", "run"] {
            assert!(script.contains(cmd), "{shell} completion lacks {cmd}");
        }
    }
    assert_eq!(isa(&["completions", "tcsh"]).status.code(), Some(2));

    let page = stdout(&isa(&["man"]));
    assert!(
        page.starts_with(".ie") || page.contains(".TH isa 1"),
        "{page}"
    );
    assert!(page.contains("check"), "{page}");
    let dir = temp("man");
    let o = isa(&["man", "-o", dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    for file in ["isa.1", "isa-check.1", "isa-run.1", "isa-disasm.1"] {
        let text = std::fs::read_to_string(dir.join(file)).unwrap();
        assert!(text.contains(".TH"), "{file}: {text}");
    }
}

/// `--quiet` prints the summary line alone (the bundled spec has warnings, no errors).
#[test]
fn check_quiet_prints_only_the_summary() {
    let o = isa(&["check", &spec_dir().display().to_string(), "--quiet"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(stderr(&o), "");
    let text = stdout(&o);
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(text.contains(" warnings (examples "), "{text}");
    assert!(text.ends_with(", 0 errors\n"), "{text}");
}

#[test]
fn check_allow_and_deny_lints() {
    let spec = spec_dir().display().to_string();
    // The default: warnings named by their lint.
    let o = isa(&["check", &spec, "--format", "short"]);
    assert_eq!(o.status.code(), Some(0));
    let all = stderr(&o);
    let examples = all.matches("warning[examples]").count();
    assert!(examples > 0, "{all}");
    assert_eq!(
        all.lines().count(),
        all.matches(": warning[").count(),
        "{all}"
    );

    // Allowing one lint removes exactly its warnings, and the summary says so.
    let o = isa(&["check", &spec, "--format", "short", "-A", "examples"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(!stderr(&o).contains("[examples]"), "{}", stderr(&o));
    assert_eq!(stderr(&o).lines().count(), all.lines().count() - examples);
    assert!(
        stdout(&o).contains(&format!(", {examples} allowed, 0 errors")),
        "{}",
        stdout(&o)
    );

    // Denying makes them errors: exit 1.
    let o = isa(&["check", &spec, "--format", "short", "-D", "examples"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stderr(&o).matches("error[examples]").count(), examples);
    assert!(
        stdout(&o).contains(&format!(", {examples} errors")),
        "{}",
        stdout(&o)
    );

    // `warnings` is every lint; a lint named on its own beats it.
    let o = isa(&[
        "check", &spec, "--format", "short", "-D", "warnings", "-A", "examples",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(!stderr(&o).contains("[examples]"));
    assert!(!stderr(&o).contains("warning["), "{}", stderr(&o));
    let o = isa(&["check", &spec, "-q", "-A", "warnings"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).contains("; 0 warnings, "), "{}", stdout(&o));

    // Unknown or contradictory names are usage errors.
    let o = isa(&["check", &spec, "-A", "exampels"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("did you mean `examples`?"),
        "{}",
        stderr(&o)
    );
    let o = isa(&["check", &spec, "-A", "syntax", "-D", "syntax"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("both allowed and denied"),
        "{}",
        stderr(&o)
    );
}

/// `isa doc`, `isa json` and `isa gen` print errors only; the summary counts warnings.
#[test]
fn doc_json_and_gen_print_no_lint_text() {
    let spec = spec_dir().display().to_string();
    let site = temp("site");
    let json = temp("isa.json");
    let rs = temp("isa.rs");
    for args in [
        vec!["doc", &spec, "-o", site.to_str().unwrap()],
        vec!["json", &spec, "-o", json.to_str().unwrap()],
        vec!["gen", &spec, "-o", rs.to_str().unwrap()],
    ] {
        let o = isa(&args);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
        let text = stderr(&o);
        assert_eq!(text.lines().count(), 1, "{args:?}: {text}");
        assert!(text.contains(" warnings ("), "{text}");
    }
    // Without a spec path, the bundled spec: the same document.
    let o = isa(&["json"]);
    assert_eq!(o.status.code(), Some(0));
    let bundled: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let from_dir: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(bundled["summary"], from_dir["summary"]);
    let names = |v: &serde_json::Value| -> Vec<String> {
        let types = v["types"].as_array().expect("types");
        types.iter().map(|t| t["name"].to_string()).collect()
    };
    assert_eq!(names(&bundled), names(&from_dir));
    // The bundled spec's files are named as in the repository.
    let files: Vec<&str> = bundled["files"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f.as_str())
        .collect();
    assert!(files.contains(&"isa-spec/base.isa"), "{files:?}");
    assert!(files.contains(&"isa-spec/corrections.isa"), "{files:?}");
}

/// A binary with words that do not decode: every word printed, warnings on stderr,
/// exit 0 (or 1 with --strict).
#[test]
fn disasm_of_bad_words_succeeds_and_loses_nothing() {
    let prog = temp("ok.s");
    std::fs::write(&prog, "NOP\nEXIT\n").unwrap();
    let bin = temp("ok.bin");
    let o = isa(&["asm", prog.to_str().unwrap(), "-o", bin.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let mut bytes = std::fs::read(&bin).unwrap();
    bytes.splice(16..16, [0xffu8; 16]);
    let bad = temp("bad.bin");
    std::fs::write(&bad, &bytes).unwrap();

    let o = isa(&["disasm", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    assert_eq!(text.lines().count(), 3, "{text}");
    assert!(
        text.contains("/*0010*/  .word 0xffffffffffffffffffffffffffffffff ;"),
        "{text}"
    );
    assert!(stderr(&o).starts_with("warning: "), "{}", stderr(&o));
    // What it printed assembles back to the same bytes.
    let back = temp("back.s");
    std::fs::write(&back, &text).unwrap();
    let again = temp("back.bin");
    let o = isa(&["asm", back.to_str().unwrap(), "-o", again.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(std::fs::read(&again).unwrap(), bytes);

    let o = isa(&["disasm", "--strict", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stdout(&o), text);
}

/// `BRA (.L_x)` (no backtick) says how a label reference is written.
#[test]
fn a_label_without_its_backtick_gets_a_hint() {
    let prog = temp("label.s");
    std::fs::write(&prog, ".L_x:\n  BRA (.L_x)\n").unwrap();
    let o = isa(&["asm", prog.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(
        e.contains("label.s:2:7: error: expected an operand, found `(.L_x)`"),
        "{e}"
    );
    assert!(
        e.contains("starts with a backtick, `` `(.L_name) ``"),
        "{e}"
    );
}

/// `--spec PATH` names a spec wherever a command takes one, as in `isa asm`: the same
/// output as the path given as an argument.
#[test]
fn spec_option_is_the_same_as_a_spec_argument() {
    let vec = repo("tests/specs/vec").display().to_string();
    for cmd in [&["check", "--quiet"][..], &["json"], &["gen", "-o", "-"]] {
        let by_arg = isa(&[cmd, &[vec.as_str()][..]].concat());
        let by_option = isa(&[cmd, &["--spec", vec.as_str()][..]].concat());
        assert_eq!(
            by_arg.status.code(),
            Some(0),
            "{cmd:?}: {}",
            stderr(&by_arg)
        );
        assert_eq!(stdout(&by_arg), stdout(&by_option), "{cmd:?}");
        assert_eq!(by_arg.status.code(), by_option.status.code(), "{cmd:?}");
    }
    // `check` and `gen` need a spec one way or the other.
    for cmd in ["check", "gen"] {
        let o = isa(&[cmd]);
        assert_eq!(o.status.code(), Some(2), "{cmd}");
        assert!(stderr(&o).contains("<SPEC>"), "{cmd}: {}", stderr(&o));
    }
}

/// A spec of types alone checks, but has no instruction API: `isa gen` says so and
/// fails instead of writing code that cannot compile.
#[test]
fn gen_of_a_spec_without_opcodes_says_so() {
    let base = spec_dir().join("base.isa").display().to_string();
    let o = isa(&["check", &base, "--quiet"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = isa(&["gen", &base, "-o", "-"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).is_empty());
    assert!(
        stderr(&o).contains("error: the spec defines no opcode (`__DefOpcode`)"),
        "{}",
        stderr(&o)
    );
}
