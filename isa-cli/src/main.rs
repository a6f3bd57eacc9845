//! `isa`: the command-line tool of the ISA toolchain.
//!
//! ```text
//! isa check PATH...            check spec files (directories: their *.isa files)
//! isa gen PATH... -o FILE      generate the Rust API for a spec
//! ```
//!
//! Exit codes: 0 success, 1 the input has errors, 2 usage or I/O error.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use codespan_reporting::term::termcolor::{ColorChoice, StandardStream};

const USAGE: &str = "\
isa: the ISA toolchain

USAGE:
    isa check PATH...           Check spec files and report every error and warning
    isa gen PATH... -o FILE     Generate the Rust API for a spec (`-o -` for stdout)
    isa help                    Show this message

PATH is a spec file or a directory (its *.isa files are used, in name order).

EXIT STATUS:
    0 success, 1 the spec has errors, 2 usage or I/O error";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(code) => code,
        Err(msg) => {
            eprintln!("isa: {msg}");
            ExitCode::from(2)
        }
    }
}

fn run(args: &[String]) -> Result<ExitCode, String> {
    let Some((cmd, rest)) = args.split_first() else {
        eprintln!("{USAGE}");
        return Ok(ExitCode::from(2));
    };
    match cmd.as_str() {
        "check" => check(rest),
        "gen" => gen(rest),
        "help" | "-h" | "--help" => {
            println!("{USAGE}");
            Ok(ExitCode::SUCCESS)
        }
        other => Err(format!(
            "unknown command `{other}`{}\n\n{USAGE}",
            isa_gen::suggest::nearest(other, ["check", "gen", "help"])
                .map(|s| format!(" (did you mean `{s}`?)"))
                .unwrap_or_default()
        )),
    }
}

/// Splits `PATH... [-o FILE]`.
fn paths_and_output(
    args: &[String],
    want_output: bool,
) -> Result<(Vec<PathBuf>, Option<String>), String> {
    let mut paths = Vec::new();
    let mut output = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-o" | "--output" if want_output => {
                output = Some(it.next().ok_or("`-o` needs a file name")?.clone());
            }
            s if s.starts_with('-') && s != "-" => return Err(format!("unknown option `{s}`")),
            s => paths.push(PathBuf::from(s)),
        }
    }
    if paths.is_empty() {
        return Err("no spec files given (try `isa check isa-spec`)".into());
    }
    Ok((paths, output))
}

fn load_and_check(paths: &[PathBuf]) -> Result<isa_gen::Checked, String> {
    let spec = isa_gen::Spec::load(paths).map_err(|e| e.to_string())?;
    let checked = spec.check();
    let choice = if std::io::stderr().is_terminal() {
        ColorChoice::Auto
    } else {
        ColorChoice::Never
    };
    let mut err = StandardStream::stderr(choice);
    checked.diagnostics.emit(&checked.sources, &mut err);
    Ok(checked)
}

fn summary(checked: &isa_gen::Checked) -> String {
    let d = &checked.diagnostics;
    let files = checked.sources.len();
    let counts = match &checked.model {
        Some(m) => {
            let s = m.summary();
            format!(
                "{} types, {} groups, {} optypes, {} opcodes",
                s.types, s.groups, s.optypes, s.opcodes
            )
        }
        None => "no model".to_string(),
    };
    let ex = checked.examples;
    let examples = if checked.model.is_some() {
        format!(
            "; examples: {} assemble, {} explained by warnings",
            ex.assembled, ex.warned
        )
    } else {
        String::new()
    };
    format!(
        "{files} file{}: {counts}{examples}; {} warning{}, {} error{}",
        if files == 1 { "" } else { "s" },
        d.warning_count(),
        if d.warning_count() == 1 { "" } else { "s" },
        d.error_count(),
        if d.error_count() == 1 { "" } else { "s" },
    )
}

fn check(args: &[String]) -> Result<ExitCode, String> {
    let (paths, _) = paths_and_output(args, false)?;
    let checked = load_and_check(&paths)?;
    println!("{}", summary(&checked));
    Ok(if checked.has_errors() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn gen(args: &[String]) -> Result<ExitCode, String> {
    let (paths, output) = paths_and_output(args, true)?;
    let output = output.ok_or("`isa gen` needs `-o FILE` (or `-o -` for stdout)")?;
    // Never overwrite an input.
    if output != "-" {
        let out = Path::new(&output);
        for input in isa_gen::spec_files(&paths).map_err(|e| e.to_string())? {
            if same_file(out, &input) {
                return Err(format!(
                    "refusing to overwrite the spec file {}",
                    input.display()
                ));
            }
        }
    }
    let checked = load_and_check(&paths)?;
    let Some(code) = checked.generate() else {
        eprintln!("{}", summary(&checked));
        return Ok(ExitCode::from(1));
    };
    if output == "-" {
        std::io::stdout()
            .write_all(code.as_bytes())
            .map_err(|e| e.to_string())?;
    } else {
        std::fs::write(&output, code).map_err(|e| format!("{output}: {e}"))?;
        eprintln!("{}; wrote {output}", summary(&checked));
    }
    Ok(ExitCode::SUCCESS)
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}
