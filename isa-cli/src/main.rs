//! `isa`: the command-line tool of the ISA toolchain.
//!
//! ```text
//! isa check PATH...                     check spec files (directories: their *.isa files)
//! isa gen PATH... -o FILE               generate the Rust API for a spec
//! isa asm FILE.s [-o FILE.bin | --hex]  assemble a program
//! isa disasm FILE.bin [--base ADDR]     disassemble 16-byte little-endian records
//! isa disasm --hex WORD...              disassemble words given in hex
//! isa doc [SPEC...] -o DIR              write the HTML reference
//! isa json [SPEC...] [-o FILE]          print the resolved model as JSON
//! isa run PROGRAM.s [--state S.json]    run one warp on the simulator (JSON state out)
//! ```
//!
//! Exit codes: 0 success, 1 the input has errors, 2 usage or I/O error.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use codespan_reporting::term::termcolor::{BufferedStandardStream, ColorChoice};

// `println!` and `eprintln!` panic when the reader has gone (`isa check … 2>&1 | head`:
// Rust ignores SIGPIPE, so the write fails with a broken pipe). Messages are written
// with these instead, which drop what cannot be written and keep the exit status.
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}
macro_rules! errln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

mod asm;
mod diff;
mod doc;
mod json;
mod lsp;
mod num;
mod run;
mod text;

const USAGE: &str = "\
isa: the ISA toolchain

USAGE:
    isa check PATH...           Check spec files and report every error and warning
    isa gen PATH... -o FILE     Generate the Rust API for a spec (`-o -` for stdout)
    isa asm FILE.s [-o FILE.bin | --hex]
                                Assemble a program (default: hex words on stdout)
    isa disasm FILE.bin [--base ADDR]
                                Disassemble 16-byte little-endian instruction records
    isa disasm --hex WORD...    Disassemble 128-bit words given in hex
    isa doc [SPEC...] -o DIR    Write the ISA reference as HTML pages (SPEC: default isa-spec)
    isa json [SPEC...] [-o FILE]
                                Print the resolved model as JSON (docs/json-schema.md)
    isa run PROGRAM.s [--state STATE.json] [--max-steps N]
                                Run one warp on the simulator; print the final state as
                                JSON (exit 0 exited, 1 bad input, 2 runtime fault)
    isa help                    Show this message

PATH is a spec file or a directory (its *.isa files are used, in name order).
Programs: one instruction per line, `//` comments, labels `.L_name:`, references
`(.L_name)` in branch targets, optional `/*0040*/` address prefixes, `.word 0x…`.

EXIT STATUS:
    0 success, 1 the spec has errors, 2 usage or I/O error";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(code) => code,
        Err(msg) => {
            errln!("isa: {msg}");
            ExitCode::from(2)
        }
    }
}

fn run(args: &[String]) -> Result<ExitCode, String> {
    let Some((cmd, rest)) = args.split_first() else {
        errln!("{USAGE}");
        return Ok(ExitCode::from(2));
    };
    // `isa CMD --help` as well as `isa help`.
    if rest.iter().any(|a| a == "-h" || a == "--help") {
        outln!("{USAGE}");
        return Ok(ExitCode::SUCCESS);
    }
    match cmd.as_str() {
        "check" => check(rest),
        "gen" => gen(rest),
        "asm" => asm_cmd(rest),
        "disasm" => disasm_cmd(rest),
        "doc" => doc::run(rest),
        "json" => json::run(rest),
        "run" => Ok(run::run(rest)),
        "lsp" => Ok(lsp::serve_stdio()),
        "diff" => diff::cli(rest),
        "help" | "-h" | "--help" => {
            outln!("{USAGE}");
            Ok(ExitCode::SUCCESS)
        }
        other => Err(format!(
            "unknown command `{other}`{}\n\n{USAGE}",
            isa_gen::suggest::nearest(
                other,
                ["check", "gen", "asm", "disasm", "doc", "json", "run", "help"]
            )
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
    // Buffered: thousands of diagnostics are thousands of small writes otherwise.
    let mut err = BufferedStandardStream::stderr(choice);
    checked.diagnostics.emit(&checked.sources, &mut err);
    let _ = err.flush();
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
    outln!("{}", summary(&checked));
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
        errln!("{}", summary(&checked));
        return Ok(ExitCode::from(1));
    };
    if output == "-" {
        std::io::stdout()
            .write_all(code.as_bytes())
            .map_err(|e| e.to_string())?;
    } else {
        std::fs::write(&output, code).map_err(|e| format!("{output}: {e}"))?;
        errln!("{}; wrote {output}", summary(&checked));
    }
    Ok(ExitCode::SUCCESS)
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

fn asm_cmd(args: &[String]) -> Result<ExitCode, String> {
    let mut input = None;
    let mut output = None;
    let mut hex = false;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-o" | "--output" => output = Some(it.next().ok_or("`-o` needs a file name")?.clone()),
            "--hex" => hex = true,
            s if s.starts_with('-') => return Err(format!("unknown option `{s}`")),
            s if input.is_none() => input = Some(s.to_string()),
            s => return Err(format!("unexpected argument `{s}` (one program at a time)")),
        }
    }
    let input = input.ok_or("`isa asm` needs a program file")?;
    if hex && output.is_some() {
        return Err("give either `-o FILE` or `--hex`, not both".into());
    }
    let file = text::TextFile::read(&input)?;
    let words: Vec<u128> = match asm::assemble_file(&input, &file) {
        Ok(w) => w.into_iter().map(|(_, w)| w).collect(),
        Err(errors) => {
            for e in errors {
                errln!("{e}");
            }
            return Ok(ExitCode::from(1));
        }
    };
    match output {
        Some(out) => {
            if same_file(Path::new(&out), Path::new(&input)) {
                return Err(format!("refusing to overwrite the input {input}"));
            }
            asm::write_binary(Path::new(&out), &words).map_err(|e| format!("{out}: {e}"))?;
        }
        None => {
            let mut s = String::new();
            for w in &words {
                s.push_str(&format!("{w:#034x}\n"));
            }
            std::io::stdout()
                .write_all(s.as_bytes())
                .map_err(|e| e.to_string())?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn disasm_cmd(args: &[String]) -> Result<ExitCode, String> {
    let mut base = 0u64;
    let mut hex_words: Option<Vec<String>> = None;
    let mut input = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--base" => {
                let v = it.next().ok_or("`--base` needs an address")?;
                base = num::int(v).ok_or(format!("`--base {v}`: not an address"))?;
                if !base.is_multiple_of(16) {
                    return Err(format!("`--base {v}`: instructions are 16-byte aligned"));
                }
            }
            "--hex" => hex_words = Some(it.by_ref().cloned().collect()),
            s if s.starts_with('-') => return Err(format!("unknown option `{s}`")),
            s if input.is_none() => input = Some(s.to_string()),
            s => return Err(format!("unexpected argument `{s}`")),
        }
    }
    let mut bad_words = Vec::new();
    let (text, problems) = match (hex_words, input) {
        (Some(words), None) => {
            if words.is_empty() {
                return Err("`--hex` needs at least one word".into());
            }
            let mut text = String::new();
            let mut problems = Vec::new();
            for (k, w) in words.iter().enumerate() {
                // A bad word is reported and skipped (its address stays taken); the
                // others are still disassembled.
                let Some(word) = num::hex_digits::<u128>(w) else {
                    bad_words.push(format!("word {} (`{w}`): not a 128-bit hex word", k + 1));
                    continue;
                };
                let addr = base + 16 * k as u64;
                let (line, problem) = asm::disasm_line(word, addr);
                text.push_str(&line);
                text.push('\n');
                if let Some(p) = problem {
                    problems.push(format!("word {} ({w}): {p}", k + 1));
                }
            }
            (text, problems)
        }
        (None, Some(path)) => {
            let bytes = std::fs::read(&path).map_err(|e| format!("{path}: {e}"))?;
            let (text, problems) = asm::disassemble(&bytes, base);
            (
                text,
                problems
                    .into_iter()
                    .map(|p| format!("{path}: {p}"))
                    .collect(),
            )
        }
        (Some(_), Some(_)) => return Err("give a file or `--hex WORD...`, not both".into()),
        (None, None) => return Err("`isa disasm` needs a file or `--hex WORD...`".into()),
    };
    std::io::stdout()
        .write_all(text.as_bytes())
        .map_err(|e| e.to_string())?;
    for p in &problems {
        errln!("warning: {p}");
    }
    for b in &bad_words {
        errln!("isa disasm: {b}");
    }
    Ok(if !bad_words.is_empty() {
        ExitCode::from(2)
    } else if problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
