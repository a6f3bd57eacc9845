//! The toolchain never writes to the spec files it reads: every command that reads a
//! spec leaves the files byte-for-byte and timestamp-for-timestamp as they were, and an
//! output path that names one of the inputs (however it is spelled) is refused before
//! anything is written.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::SystemTime;

/// Runs `isa args` in `dir`.
fn isa(dir: &Path, args: &[&str]) -> Output {
    common::isa_command()
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run isa")
}

/// Every file under `dir` with its contents, modification time and permissions.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>, SystemTime, bool)> {
    let mut out: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let p = e.unwrap().path();
            let meta = std::fs::metadata(&p).unwrap();
            let bytes = std::fs::read(&p).unwrap();
            (
                p,
                bytes,
                meta.modified().unwrap(),
                meta.permissions().readonly(),
            )
        })
        .collect();
    out.sort();
    out
}

#[test]
fn no_command_writes_to_its_spec_files() {
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR")).join("spec-files-untouched");
    let _ = std::fs::remove_dir_all(&tmp);
    let spec = tmp.join("spec");
    std::fs::create_dir_all(&spec).unwrap();
    for f in isa_gen::spec_files(&[isa_spec::DIR]).unwrap() {
        let to = spec.join(f.file_name().unwrap());
        std::fs::copy(&f, &to).unwrap();
        let mut perm = std::fs::metadata(&to).unwrap().permissions();
        perm.set_readonly(true);
        std::fs::set_permissions(&to, perm).unwrap();
    }
    let before = snapshot(&spec);
    assert_eq!(before.len(), isa_spec::FILES.len());

    // Commands that read the spec and write elsewhere.
    for args in [
        &["check", "spec"][..],
        &["gen", "spec", "-o", "out.rs"],
        &[
            "gen",
            "spec/base.isa",
            "spec/bru.isa",
            "spec/misc.isa",
            "spec/sync.isa",
            "spec/udp.isa",
            "-o",
            "-",
        ],
        &["json", "spec", "-o", "out.json"],
        &["doc", "spec", "-o", "doc"],
    ] {
        let out = isa(&tmp, args);
        assert!(
            out.status.success(),
            "isa {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert!(tmp.join("out.rs").is_file() && tmp.join("out.json").is_file());

    // Outputs that name an input, spelled in several ways, are refused. (Read-only
    // permissions would not stop a process running as root: the refusal must.)
    for args in [
        &["gen", "spec", "-o", "spec/base.isa"][..],
        &["gen", "spec", "-o", "./spec/../spec/udp.isa"],
        &["gen", "spec/sync.isa", "-o", "spec/sync.isa"],
        &["json", "spec", "-o", "spec/bru.isa"],
    ] {
        let out = isa(&tmp, args);
        assert!(!out.status.success(), "isa {args:?} succeeded");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("refusing") || err.contains("spec file"),
            "isa {args:?}: {err}"
        );
    }

    // The library: load, check, generate.
    let checked = isa_gen::Spec::load(&[&spec]).unwrap().check();
    assert!(!checked.has_errors());
    assert!(checked.generate().is_some());

    assert!(before == snapshot(&spec), "a spec file changed");
}
