//! How the regression tests replay saved inputs through an oracle: every file of a
//! directory, in name order, a failure re-raised naming the file. Included with
//! `#[path]` by each regression test, beside the oracle it replays (std only).

use std::path::Path;

/// Runs `check` on every file of `dir`; returns how many there were. A missing or
/// empty directory fails: a replay without inputs would check nothing and pass.
pub fn replay_dir(dir: &Path, check: fn(&[u8])) -> usize {
    let entries = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: no regression corpus ({e})", dir.display()));
    let mut files: Vec<_> = entries.map(|e| e.unwrap().path()).collect();
    files.sort();
    assert!(
        !files.is_empty(),
        "{}: the regression corpus is empty: a replay without inputs checks nothing",
        dir.display()
    );
    for f in &files {
        run_oracle(f, check);
    }
    files.len()
}

/// Runs `check` on the file at `f`; a failure is re-raised naming the file.
pub fn run_oracle(f: &Path, check: fn(&[u8])) {
    let data = std::fs::read(f).unwrap();
    if let Err(panic) = std::panic::catch_unwind(|| check(&data)) {
        let msg = panic
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| panic.downcast_ref::<&str>().copied())
            .unwrap_or("(no message)");
        panic!("{}: {msg}", f.display());
    }
}
