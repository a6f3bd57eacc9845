//! `isa`: the command-line tool of the ISA toolchain.
//!
//! `isa help` lists the commands, `isa help CMD` (or `isa CMD --help`) tells each one's
//! options, examples and exit status. The argument parsing is clap's (derive API); the
//! work of each command lives in its module.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, CommandFactory, Parser, Subcommand};

use isa_cli::{asm, codec, diff, doc, errln, json, lsp, num, outln, run, spec};
use isa_gen::diag::{Lint, LintLevels};
use spec::{Format, Show};

/// The ISA toolchain: check a spec, generate its Rust API, assemble, disassemble, run
/// programs on the simulator, and write the ISA reference.
#[derive(Parser)]
#[command(
    name = "isa",
    version,
    propagate_version = true,
    arg_required_else_help = true,
    after_help = "\
SPEC is a spec file or a directory (its *.isa files, in name order); commands that take
it optionally use the bundled spec when none is given. `isa help COMMAND` tells each
command's options, examples and exit status."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    Check(CheckArgs),
    Gen(GenArgs),
    Asm(AsmArgs),
    Disasm(DisasmArgs),
    Link(LinkArgs),
    Run(run::RunArgs),
    Doc(DocArgs),
    Json(JsonArgs),
    Diff(DiffArgs),
    Lsp(LspArgs),
    Completions(CompletionsArgs),
    Man(ManArgs),
}

/// Check spec files and report every error and warning
#[derive(Args)]
#[command(after_help = CHECK_HELP.as_str())]
struct CheckArgs {
    /// Spec files or directories (a directory stands for its *.isa files)
    #[arg(required_unless_present = "spec", value_name = "SPEC")]
    paths: Vec<PathBuf>,
    /// A spec file or directory, as the commands that read programs take it (the same
    /// as a SPEC argument; repeatable)
    #[arg(long, value_name = "PATH")]
    spec: Vec<PathBuf>,
    /// Print only errors and the summary line (warnings are still counted)
    #[arg(short, long)]
    quiet: bool,
    /// Do not report LINT (`warnings`: every lint); repeatable
    #[arg(short = 'A', long = "allow", value_name = "LINT")]
    allow: Vec<String>,
    /// Make LINT an error (`warnings`: every lint); repeatable
    #[arg(short = 'D', long = "deny", value_name = "LINT")]
    deny: Vec<String>,
    /// How diagnostics are written
    #[arg(long, value_enum, default_value_t)]
    format: Format,
}

static CHECK_HELP: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    let mut s = String::from("Lints (warnings, by the name -A/-D take):\n");
    for l in Lint::ALL {
        s.push_str(&format!("  {:<18}{}\n", l.name(), l.description()));
    }
    s.push_str(
        "\nExamples:
  isa check isa-spec                    every error and warning, then a summary line
  isa check isa-spec --quiet            errors and the summary line only
  isa check isa-spec -D warnings        fail on any warning
  isa check isa-spec -A examples        leave out the __Examples warnings

Exit status: 0 no errors (warnings allowed), 1 the spec has errors (or denied warnings),
2 usage or I/O error.",
    );
    s
});

/// Generate the Rust API of a spec
#[derive(Args)]
#[command(after_help = "\
Prints only errors; the summary line counts the warnings (`isa check` shows them).

Examples:
  isa gen isa-spec -o src/isa.rs
  isa gen my-spec/ -o -                 to stdout

Exit status: 0 written, 1 the spec has errors, 2 usage or I/O error.")]
struct GenArgs {
    /// Spec files or directories
    #[arg(required_unless_present = "spec", value_name = "SPEC")]
    paths: Vec<PathBuf>,
    /// The same as a SPEC argument (repeatable)
    #[arg(long, value_name = "PATH")]
    spec: Vec<PathBuf>,
    /// Where to write the Rust source (`-` for stdout)
    #[arg(short, long, value_name = "FILE")]
    output: String,
}

/// Assemble a program into 128-bit instruction words or an object file
#[derive(Args)]
#[command(after_help = PROGRAM_HELP)]
struct AsmArgs {
    /// The program (assembly text)
    #[arg(value_name = "FILE.s")]
    input: PathBuf,
    /// Write 16-byte little-endian records to FILE, or an ELF relocatable object when
    /// FILE ends in `.o`, instead of hex words on stdout
    #[arg(short, long, value_name = "FILE", conflicts_with = "hex")]
    output: Option<PathBuf>,
    /// Print one hex word per line on stdout (the default without -o)
    #[arg(long)]
    hex: bool,
    /// The spec to assemble for (a file or directory; repeatable; default: the bundled
    /// spec)
    #[arg(long, value_name = "PATH")]
    spec: Vec<PathBuf>,
}

const PROGRAM_HELP: &str = "\
Programs: one instruction per line, `//` comments, labels `name:`, optional `/*0040*/`
address prefixes, and `.word 0x…` raw words. A branch target is an absolute address
(`BRA 0x110`) or a label reference: a backtick, then the label in parentheses
(`BRA `(.L_loop)`); without the backtick, `(.L_loop)` is not a label reference.
`.global NAME` exports a label from an object file; `.extern NAME` declares a symbol
defined elsewhere, which an address operand may name: the object records a relocation
(docs/object-format.md).

Examples:
  isa asm prog.s                        hex words on stdout
  isa asm prog.s -o prog.bin            16-byte little-endian records
  isa asm prog.s -o prog.o              an ELF relocatable object
  isa asm prog.s --spec my-spec/        for another spec

Exit status: 0 assembled, 1 the program has errors (each as file:line:col: error: …),
2 usage or I/O error (or a --spec with errors).";

/// Disassemble 16-byte records, an object file, or hex words
#[derive(Args)]
#[command(after_help = "\
A word that does not decode is printed as `.word 0x…` with a warning on stderr, so the
output assembles back to the same bytes; that is not a failure unless --strict is given.
So is a word whose text would not assemble back to it (a field no text shows, two
opcodes that print alike, a value the spec's exceptions refuse), with the text in a
comment.
An object file (recognised by its ELF header) is shown with its symbols as labels,
branch targets as label references where a symbol names them, `.global`/`.extern`
lines, and each relocation beside its instruction. Names are printed escaped (`\n`,
`\u{1b}`), and cut to 1,024 bytes where they repeat; a name the assembler cannot read
back is a warning too. Input files are read up to 64 MiB.

Examples:
  isa disasm prog.bin
  isa disasm prog.o
  isa disasm prog.bin --base 0x400      addresses start at 0x400
  isa disasm prog.o --cfg | dot -Tsvg > cfg.svg
  isa disasm --hex 0x000000000000000000000000000fff40

Exit status: 0 disassembled (bad words are warnings), 1 with --strict: a word did not
decode or a name cannot be read back, 2 usage or I/O error (including a --hex argument
that is not a hex word, and a malformed object file: the error says what and where).")]
struct DisasmArgs {
    /// 16-byte little-endian instruction records, or an object file from `isa asm`
    #[arg(value_name = "FILE", required_unless_present = "hex")]
    input: Option<PathBuf>,
    /// Disassemble these 128-bit words (hex, `0x` optional) instead of a file
    #[arg(long, value_name = "WORD", num_args = 1.., conflicts_with = "input")]
    hex: Vec<String>,
    /// Address of the first instruction (16-byte aligned)
    #[arg(long, value_name = "ADDR", default_value = "0", value_parser = parse_base)]
    base: u64,
    /// Exit 1 when a word does not decode (it is still printed as `.word`)
    #[arg(long)]
    strict: bool,
    /// Print the control-flow graph (basic blocks and their edges) as Graphviz DOT
    #[arg(long)]
    cfg: bool,
    /// The spec to disassemble with (a file or directory; repeatable; default: the
    /// bundled spec)
    #[arg(long, value_name = "PATH")]
    spec: Vec<PathBuf>,
}

/// Link an object file: resolve its relocations with given symbol addresses
#[derive(Args)]
#[command(after_help = "\
Each relocation of the object gets its symbol's address: `--symbol NAME=ADDR` for an
external symbol, the object's own address (from --base) for one of its labels. The
result is what `isa asm` gives for the program with those addresses written in.

Examples:
  isa link prog.o --symbol reduce_step=0x8000 -o prog.bin
  isa link prog.o --base 0x1000 --symbol f=0x2000      hex words on stdout

Exit status: 0 linked, 1 an undefined symbol or a target that does not fit, 2 usage
or I/O error.")]
struct LinkArgs {
    /// The object file (from `isa asm … -o FILE.o`)
    #[arg(value_name = "FILE.o")]
    input: PathBuf,
    /// The address of an external symbol; repeatable
    #[arg(long = "symbol", value_name = "NAME=ADDR", value_parser = parse_symbol)]
    symbols: Vec<(String, u64)>,
    /// The address the code is loaded at (16-byte aligned)
    #[arg(long, value_name = "ADDR", default_value = "0", value_parser = parse_base)]
    base: u64,
    /// Write 16-byte little-endian records to FILE instead of hex words on stdout
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// The spec of the instructions (default: the bundled spec)
    #[arg(long, value_name = "PATH")]
    spec: Vec<PathBuf>,
}

fn parse_symbol(s: &str) -> Result<(String, u64), String> {
    let (name, addr) = s
        .split_once('=')
        .ok_or("expected NAME=ADDR, such as reduce_step=0x8000")?;
    let addr = num::int(addr).ok_or_else(|| format!("`{addr}` is not an address"))?;
    Ok((name.to_string(), addr))
}

fn parse_base(s: &str) -> Result<u64, String> {
    let v: u64 = num::int(s).ok_or("not an address (decimal or 0x… hex)")?;
    if !v.is_multiple_of(16) {
        return Err("instructions are 16-byte aligned".into());
    }
    Ok(v)
}

/// Write the ISA reference as static HTML pages
#[derive(Args)]
#[command(after_help = "\
Pages: an index with a filter box, a page per optype, per group, and one of types.
Prints only errors; the summary line counts the warnings (`isa check` shows them).

Examples:
  isa doc -o site                       the bundled spec
  isa doc my-spec/ -o site

Exit status: 0 written, 1 the spec has errors, 2 usage or I/O error.")]
struct DocArgs {
    /// Spec files or directories (default: the bundled spec)
    #[arg(value_name = "SPEC")]
    paths: Vec<PathBuf>,
    /// The same as a SPEC argument (repeatable)
    #[arg(long, value_name = "PATH")]
    spec: Vec<PathBuf>,
    /// The directory to write the pages to (created if missing)
    #[arg(short, long, value_name = "DIR")]
    output: PathBuf,
}

/// Print the resolved model as JSON (format: docs/json-schema.md)
#[derive(Args)]
#[command(after_help = "\
Prints only errors; the summary line counts the warnings (`isa check` shows them).

Examples:
  isa json > isa.json                   the bundled spec
  isa json my-spec/ -o my-spec.json

Exit status: 0 written, 1 the spec has errors, 2 usage or I/O error.")]
struct JsonArgs {
    /// Spec files or directories (default: the bundled spec)
    #[arg(value_name = "SPEC")]
    paths: Vec<PathBuf>,
    /// The same as a SPEC argument (repeatable)
    #[arg(long, value_name = "PATH")]
    spec: Vec<PathBuf>,
    /// Write to FILE instead of stdout
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
}

/// Compare two revisions of a spec: what changed in the encodings, and whether old
/// words still decode to the same instructions
#[derive(Args)]
#[command(after_help = "\
The verdict is decided from the layouts, not by sampling words: compatible when every
word that decodes under OLD decodes under NEW to the same instruction text. New opcodes
in unused heads and new enumeration values are compatible additions; each break names
the opcode and fields, with an example word. An opcode whose identifying fixed fields
changed (a renumbered optype) is one break saying it moved, never an addition.

Examples:
  isa diff old-spec/ isa-spec/
  isa diff old-spec/ isa-spec/ --json > changes.json

Exit status: 0 compatible, 1 incompatible, 2 usage or I/O error (or a spec with errors).")]
struct DiffArgs {
    /// The old spec (a file or a directory)
    #[arg(value_name = "OLD")]
    old: PathBuf,
    /// The new spec (a file or a directory)
    #[arg(value_name = "NEW")]
    new: PathBuf,
    /// Print the report as JSON
    #[arg(long)]
    json: bool,
}

/// Run the language server for spec files (LSP over stdin/stdout)
#[derive(Args)]
#[command(after_help = "\
Started by an editor, not by hand: it speaks the Language Server Protocol on stdin and
stdout. Opening a .isa file loads the other .isa files of its directory as one spec.
Diagnostics as you type, hover, go to definition, find references, document symbols and
completion. Editor setup: README.md, \"Editing specs\".

Exit status: 0 after `shutdown` and `exit`, 1 on `exit` without `shutdown`.")]
struct LspArgs {}

/// Print a shell completion script
#[derive(Args)]
#[command(after_help = "\
Examples:
  isa completions bash > ~/.local/share/bash-completion/completions/isa
  isa completions zsh > ~/.zfunc/_isa
  isa completions fish > ~/.config/fish/completions/isa.fish")]
struct CompletionsArgs {
    /// The shell
    shell: clap_complete::Shell,
}

/// Write the man pages (isa.1 and one per command)
#[derive(Args)]
#[command(after_help = "\
Examples:
  isa man | man -l -                    read isa(1) now
  isa man -o /usr/local/share/man/man1  install every page")]
struct ManArgs {
    /// Write isa.1 and isa-COMMAND.1 into DIR instead of isa.1 to stdout
    #[arg(short, long, value_name = "DIR")]
    output: Option<PathBuf>,
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            // `isa run`'s contract: bad input, a bad option included, is exit 1.
            let is_run = std::env::args().nth(1).as_deref() == Some("run");
            return ExitCode::from(match e.exit_code() {
                0 => 0,
                _ if is_run => 1,
                _ => 2,
            });
        }
    };
    let result = match cli.command {
        Command::Check(a) => check(a),
        Command::Gen(a) => gen(a),
        Command::Asm(a) => codec::Codec::load(&a.spec)
            .and_then(|c| asm::asm_command(&c, &a.input, a.output.as_deref())),
        Command::Disasm(a) => codec::Codec::load(&a.spec).and_then(|c| {
            asm::disasm_command(&c, a.input.as_deref(), &a.hex, a.base, a.strict, a.cfg)
        }),
        Command::Link(a) => codec::Codec::load(&a.spec)
            .and_then(|c| asm::link_command(&c, &a.input, &a.symbols, a.base, a.output.as_deref())),
        Command::Run(a) => return run::run(&a),
        Command::Doc(a) => doc::run(&specs(a.paths, a.spec), &a.output),
        Command::Json(a) => json::run(&specs(a.paths, a.spec), a.output.as_deref()),
        Command::Diff(a) => diff::run(
            std::slice::from_ref(&a.old),
            std::slice::from_ref(&a.new),
            a.json,
        ),
        Command::Lsp(LspArgs {}) => return lsp::serve_stdio(),
        Command::Completions(a) => completions(a.shell),
        Command::Man(a) => man(a.output),
    };
    match result {
        Ok(code) => code,
        Err(msg) => {
            errln!("isa: {msg}");
            ExitCode::from(2)
        }
    }
}

/// The spec paths given as arguments and with `--spec`, in that order.
fn specs(mut paths: Vec<PathBuf>, spec: Vec<PathBuf>) -> Vec<PathBuf> {
    paths.extend(spec);
    paths
}

fn check(a: CheckArgs) -> Result<ExitCode, String> {
    let levels = LintLevels::new(
        a.allow.iter().map(String::as_str),
        a.deny.iter().map(String::as_str),
    )?;
    let show = if a.quiet { Show::Errors } else { Show::All };
    let report = spec::check(&specs(a.paths, a.spec), &levels, show, a.format)?;
    outln!("{}", report.summary());
    Ok(if report.checked.has_errors() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn gen(mut a: GenArgs) -> Result<ExitCode, String> {
    a.paths = specs(a.paths, std::mem::take(&mut a.spec));
    let to_stdout = a.output == "-";
    if !to_stdout {
        spec::refuse_inputs(std::path::Path::new(&a.output), &a.paths)?;
    }
    let report = spec::check(
        &a.paths,
        &LintLevels::default(),
        Show::Errors,
        Format::Human,
    )?;
    let Some(code) = report.checked.generate() else {
        errln!("{}", report.summary());
        return Ok(ExitCode::from(1));
    };
    if report
        .checked
        .model
        .as_ref()
        .is_some_and(|m| m.opcodes.is_empty())
    {
        errln!("error: {}", isa_gen::codegen::NO_OPCODES);
        errln!("{}", report.summary());
        return Ok(ExitCode::from(1));
    }
    if to_stdout {
        std::io::stdout()
            .write_all(code.as_bytes())
            .map_err(|e| e.to_string())?;
    } else {
        std::fs::write(&a.output, code).map_err(|e| format!("{}: {e}", a.output))?;
        errln!("{}; wrote {}", report.summary(), a.output);
    }
    Ok(ExitCode::SUCCESS)
}

fn completions(shell: clap_complete::Shell) -> Result<ExitCode, String> {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "isa", &mut out);
    std::io::stdout()
        .write_all(&out)
        .map_err(|e| e.to_string())?;
    Ok(ExitCode::SUCCESS)
}

fn man(dir: Option<PathBuf>) -> Result<ExitCode, String> {
    let cmd = Cli::command();
    let Some(dir) = dir else {
        let mut out = Vec::new();
        clap_mangen::Man::new(cmd)
            .render(&mut out)
            .map_err(|e| e.to_string())?;
        std::io::stdout()
            .write_all(&out)
            .map_err(|e| e.to_string())?;
        return Ok(ExitCode::SUCCESS);
    };
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    clap_mangen::generate_to(cmd, &dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    errln!("wrote the man pages to {}", dir.display());
    Ok(ExitCode::SUCCESS)
}
