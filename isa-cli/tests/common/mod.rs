//! Helpers shared by the integration tests: running the `isa` binary, reading what it
//! printed, finding the repository's files and writing the tests' own.

// Every test file compiles this module on its own (`mod common;`) and uses only some of
// it; without this, each would warn about the helpers it does not use.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;

/// The `isa` binary of this package, to be given arguments and run.
pub fn isa_command() -> Command {
    Command::new(env!("CARGO_BIN_EXE_isa"))
}

/// Runs `isa args`: its exit status and what it printed.
pub fn isa(args: &[&str]) -> Output {
    isa_command().args(args).output().expect("run isa")
}

/// What a run printed on stdout (invalid UTF-8 replaced).
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// What a run printed on stderr (invalid UTF-8 replaced).
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Stdout of a run that must succeed (exit status 0) and print UTF-8.
#[track_caller]
pub fn ok(o: &Output) -> String {
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(o), stderr(o));
    String::from_utf8(o.stdout.clone()).expect("stdout is UTF-8")
}

/// The JSON document a run printed on stdout.
#[track_caller]
pub fn json(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stdout)))
}

/// A path in the repository, from its root (`isa-spec`, `tests/specs/vec`).
pub fn repo(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(rel)
}

/// The bundled spec's directory.
pub fn spec_dir() -> PathBuf {
    repo("isa-spec")
}

/// This test binary's directory for the files it writes, `isa-<test>-test-<pid>` in the
/// system's temporary directory (created if missing).
pub fn dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!(
        "isa-{}-test-{}",
        env!("CARGO_CRATE_NAME"),
        std::process::id()
    ));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// File `name` in [`dir`].
pub fn temp(name: &str) -> PathBuf {
    dir().join(name)
}

/// File `name` in [`dir`], as an argument.
pub fn path(name: &str) -> String {
    temp(name).to_string_lossy().into_owned()
}

/// Writes `text` to file `name` in [`dir`]; its path as an argument.
pub fn write(name: &str, text: &str) -> String {
    let p = path(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// An empty directory `tag` in [`dir`] (whatever was there is removed).
pub fn fresh_dir(tag: &str) -> PathBuf {
    let d = temp(tag);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A copy of the bundled spec's `.isa` files in [`fresh_dir`] `tag`, with
/// `edit(file name, text)` applied to each.
pub fn spec_copy(tag: &str, edit: impl Fn(&str, String) -> String) -> PathBuf {
    let dir = fresh_dir(tag);
    for e in std::fs::read_dir(spec_dir()).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "isa") {
            let name = p.file_name().unwrap().to_str().unwrap().to_string();
            let text = std::fs::read_to_string(&p).unwrap();
            std::fs::write(dir.join(&name), edit(&name, text)).unwrap();
        }
    }
    dir
}
