//! The pytest suite (`tests/*.py`) on the module this build made, so that `cargo test`
//! runs every test: the extension module cargo built (`libgpuisa.so`) is imported under
//! its Python name from a directory of its own, with pytest from a virtual environment
//! kept in the target directory (made, and pytest installed from PyPI, on the first
//! run). `.ci/run` also builds and installs the module with maturin, as the README says.
//! `$ISA_PYTHON` names the interpreter (default `python3`).

use std::path::{Path, PathBuf};
use std::process::Command;

fn run(cmd: &mut Command) {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed ({}):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The extension module cargo built for this test's profile.
fn module(profile: &Path) -> PathBuf {
    let name = if cfg!(target_os = "macos") {
        "libgpuisa.dylib"
    } else if cfg!(windows) {
        "gpuisa.dll"
    } else {
        "libgpuisa.so"
    };
    [profile.join(name), profile.join("deps").join(name)]
        .into_iter()
        .find(|p| p.exists())
        .unwrap_or_else(|| panic!("{name} not found in {}", profile.display()))
}

#[test]
fn the_pytest_suite_passes() {
    let exe = std::env::current_exe().expect("the test's path");
    // target/<profile>/deps/pytest-…
    let profile = exe
        .parent()
        .and_then(Path::parent)
        .expect("the target directory")
        .to_path_buf();
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    // `cargo test` does not build a cdylib, and the tests compare with the `isa`
    // command: both are built (or found up to date) here, so that the suite never
    // runs a stale module or compares with a stale command.
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    // The profile whose directory this test runs from (`debug` is `dev`'s).
    let name = profile
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("debug");
    let profile_arg = format!("--profile={}", if name == "debug" { "dev" } else { name });
    for args in [["-p", "isa-py", "--lib"], ["-p", "isa-cli", "--bin=isa"]] {
        run(Command::new(&cargo)
            .args(["build", "--quiet", &profile_arg])
            .args(args)
            .current_dir(manifest));
    }
    let site = profile.join("gpuisa-py");
    std::fs::create_dir_all(&site).expect("a directory for the module");
    let target_name = if cfg!(windows) {
        "gpuisa.pyd"
    } else {
        "gpuisa.abi3.so"
    };
    std::fs::copy(module(&profile), site.join(target_name)).expect("copy the module");
    std::fs::copy(manifest.join("gpuisa.pyi"), site.join("gpuisa.pyi")).expect("copy the stubs");

    let venv = profile.join("gpuisa-venv");
    let python = venv.join(if cfg!(windows) {
        "Scripts/python.exe"
    } else {
        "bin/python"
    });
    if !python.exists() {
        let host = std::env::var("ISA_PYTHON").unwrap_or_else(|_| "python3".into());
        run(Command::new(host).arg("-m").arg("venv").arg(&venv));
    }
    let has_pytest = Command::new(&python)
        .args(["-c", "import pytest"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_pytest {
        run(Command::new(&python).args(["-m", "pip", "install", "--quiet", "pytest"]));
    }
    let mut pytest = Command::new(&python);
    pytest
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"])
        .current_dir(manifest)
        .env("PYTHONPATH", &site)
        .env("PYTHONDONTWRITEBYTECODE", "1");
    let isa = profile.join(if cfg!(windows) { "isa.exe" } else { "isa" });
    pytest.env("ISA_BIN", isa);
    run(&mut pytest);
}
