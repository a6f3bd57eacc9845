//! Object files and control flow on the command line: `isa asm -o FILE.o`, what binutils
//! make of it, `isa disasm FILE.o`, `isa link`, and `isa disasm --cfg`.

mod common;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Output};

use common::{isa, ok, path, repo, spec_dir, write};

const PROGRAM: &str = "\
// A loop calling a function defined elsewhere.
.global kernel
.extern reduce_step
kernel:
        S2R R1, SR_LANEID
.L_top:
        @P0 BRA `(.L_done)
        CALL.REL RZ, `(reduce_step)
        BRA `(.L_top)
.L_done:
        EXIT
";

/// Runs a binutils tool; `None` when it is not installed (CI installs binutils and sets
/// `ISA_REQUIRE_BINUTILS=1`, which makes a missing tool a failure).
fn binutils(tool: &str, args: &[&str]) -> Option<Output> {
    match Command::new(tool).args(args).output() {
        Ok(o) => Some(o),
        Err(_) if std::env::var_os("ISA_REQUIRE_BINUTILS").is_none() => {
            eprintln!("{tool} is not installed: binutils checks skipped");
            None
        }
        Err(e) => panic!("{tool}: {e} (ISA_REQUIRE_BINUTILS is set)"),
    }
}

/// `readelf -a -W` of a relocatable object of ours (`None` without binutils): read
/// without a complaint on stderr.
fn readelf_all(obj: &str) -> Option<String> {
    let o = binutils("readelf", &["-a", "-W", obj])?;
    let out = ok(&o);
    assert!(
        o.stderr.is_empty(),
        "readelf: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(out.contains("REL (Relocatable file)"), "{out}");
    Some(out)
}

/// Whether readelf's symbol table lists `name` with `what` (a binding or `UND`).
fn has_symbol(readelf: &str, what: &str, name: &str) -> bool {
    readelf
        .lines()
        .any(|l| l.contains(what) && l.ends_with(&format!(" {name}")))
}

#[test]
fn object_round_trip_through_binutils_and_disasm() {
    let src = write("prog.s", PROGRAM);
    let obj = path("prog.o");
    ok(&isa(&["asm", &src, "-o", &obj]));
    let bytes = std::fs::read(&obj).unwrap();
    assert!(bytes.starts_with(b"\x7fELF\x02\x01"), "ELF64 little-endian");

    if let Some(out) = readelf_all(&obj) {
        assert!(out.contains("<unknown>: 0x4953"), "{out}");
        for sym in [".L_top", ".L_done", "kernel", "reduce_step"] {
            assert!(out.contains(sym), "readelf lacks {sym}: {out}");
        }
        let rela = out
            .lines()
            .find(|l| l.starts_with("0000000000000020"))
            .unwrap_or_else(|| panic!("no relocation at 0x20: {out}"));
        assert!(rela.contains("reduce_step + 0"), "{rela}");
        // The exported label is GLOBAL, the extern GLOBAL and undefined.
        assert!(has_symbol(&out, "GLOBAL", "kernel"));
        assert!(has_symbol(&out, "UND", "reduce_step"));
        assert!(has_symbol(&out, "LOCAL", ".L_top"));
    }
    if let Some(o) = binutils("objdump", &["-h", "-t", "-r", &obj]) {
        let out = ok(&o);
        assert!(
            o.stderr.is_empty(),
            "objdump: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(out.contains(".text         00000050"), "{out}");
        assert!(
            out.contains("0000000000000020 UNKNOWN           reduce_step"),
            "{out}"
        );
        assert!(out.contains("*UND*\t0000000000000000 reduce_step"), "{out}");
    }

    // `isa disasm` shows labels, label references, directives and the relocation; what
    // it prints assembles back to the same object.
    let text = ok(&isa(&["disasm", &obj]));
    assert_eq!(
        text,
        "\
.global kernel
.extern reduce_step
kernel:
/*0000*/  S2R R1, SR_LANEID ;
.L_top:
/*0010*/  @P0 BRA `(.L_done) ;
/*0020*/  CALL.REL RZ, `(reduce_step) ;  // R_ISA_ADDR_REL reduce_step
/*0030*/  BRA `(.L_top) ;
.L_done:
/*0040*/  EXIT ;
"
    );
    let again = path("again.o");
    ok(&isa(&["asm", &write("again.s", &text), "-o", &again]));
    assert_eq!(std::fs::read(&again).unwrap(), bytes);
}

#[test]
fn linking_gives_the_words_of_the_resolved_program() {
    let obj = path("link.o");
    ok(&isa(&["asm", &write("link.s", PROGRAM), "-o", &obj]));
    let linked = path("linked.bin");
    ok(&isa(&[
        "link",
        &obj,
        "--symbol",
        "reduce_step=0x8000",
        "-o",
        &linked,
    ]));
    let resolved = PROGRAM
        .replace("`(reduce_step)", "0x8000")
        .replace(".extern reduce_step\n", "");
    let expected = path("resolved.bin");
    ok(&isa(&[
        "asm",
        &write("resolved.s", &resolved),
        "-o",
        &expected,
    ]));
    assert_eq!(
        std::fs::read(&linked).unwrap(),
        std::fs::read(&expected).unwrap()
    );
    // At another base, the relative call still reaches the symbol.
    let hex = ok(&isa(&[
        "link",
        &obj,
        "--base",
        "0x1000",
        "--symbol",
        "reduce_step=0x8000",
    ]));
    let words: Vec<&str> = hex.lines().collect();
    let call = ok(&isa(&["disasm", "--base", "0x1020", "--hex", words[2]]));
    assert_eq!(call, "/*1020*/  CALL.REL RZ, 0x8000 ;\n");
    // An undefined symbol is an error that says how to give it.
    let o = isa(&["link", &obj]);
    assert_eq!(o.status.code(), Some(1));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains(
            "undefined symbol `reduce_step` (give its address with --symbol reduce_step=ADDR)"
        ),
        "{e}"
    );
    // A target that does not fit (misaligned) is an error naming the relocation.
    let o = isa(&["link", &obj, "--symbol", "reduce_step=0x8004"]);
    assert_eq!(o.status.code(), Some(1));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("relocation at 0x20 (`reduce_step`)"), "{e}");
}

#[test]
fn symbol_directive_errors() {
    let cases = [
        (".extern f\nCALL.REL RZ, `(f)\n", "2:14: error: `f` is an external symbol: only an object file (-o FILE.o) can keep a reference to it", false),
        (".global nowhere\nEXIT\n", "1:9: error: `.global nowhere` names no label of this program", true),
        ("f:\n.extern f\nEXIT\n", "2:9: error: `f` is a label of this program, so it cannot be `.extern`", true),
        (".extern\nEXIT\n", "1:8: error: `.extern` needs a symbol name", true),
        (".global a b\na: EXIT\n", "1:9: error: `.global` takes one symbol name, found `a b`", true),
        (".extern f\nS2R R1, `(f)\n", "2:9: error:", true),
    ];
    for (src, want, object) in cases {
        let s = write("d.s", src);
        let out = path("d.o");
        let args: Vec<&str> = if object {
            vec!["asm", &s, "-o", &out]
        } else {
            vec!["asm", &s]
        };
        let o = isa(&args);
        assert_eq!(o.status.code(), Some(1), "{src}");
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(e.contains(&format!("d.s:{want}")), "{src}: {e}");
    }
}

/// Every damaged version of a good object is an error that names the file (or reads
/// as an object), never a panic.
#[test]
fn damaged_objects_are_errors() {
    let obj = path("good.o");
    ok(&isa(&["asm", &write("good.s", PROGRAM), "-o", &obj]));
    let bytes = std::fs::read(&obj).unwrap();
    let bad = path("bad.o");
    let check = |data: &[u8], what: &str| {
        std::fs::write(&bad, data).unwrap();
        let o = isa(&["disasm", &bad]);
        let code = o.status.code();
        assert!(
            code == Some(0) || code == Some(2),
            "{what}: exit {code:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        if code == Some(2) {
            let e = String::from_utf8_lossy(&o.stderr);
            assert!(e.contains("bad.o"), "{what}: {e}");
        }
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    for n in (4..bytes.len()).step_by(7) {
        check(&bytes[..n], &format!("cut at {n}"));
    }
    let mut m = bytes.clone();
    m[18] = 0x3e; // e_machine: x86-64
    m[19] = 0;
    assert!(check(&m, "machine").contains("an object for another machine (e_machine 0x3e"));
    let mut t = bytes.clone();
    t[16] = 2; // e_type: ET_EXEC
    assert!(check(&t, "type").contains("not a relocatable object"));
    // Every single-byte change in the headers and tables.
    for i in 16..bytes.len() {
        if (0x40..0x90).contains(&i) {
            continue; // `.text`: any bytes are words
        }
        let mut x = bytes.clone();
        x[i] ^= 0xff;
        check(&x, &format!("byte {i}"));
    }
}

/// Edges of a `--cfg` graph: (from, to, label).
fn edges(dot: &str) -> BTreeSet<(String, String, String)> {
    dot.lines()
        .filter_map(|l| {
            let (from, rest) = l.trim().split_once(" -> ")?;
            let (to, attrs) = rest.split_once(' ')?;
            let label = attrs.split('"').nth(1)?;
            Some((from.into(), to.into(), label.into()))
        })
        .collect()
}

/// If/else with a convergence barrier, a loop, and a jump table: the graph a hand
/// reading of the program gives.
#[test]
fn cfg_of_if_else_loop_and_jump_table() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/cfg.s")
        .to_string_lossy()
        .into_owned();
    let bin = path("cfg.bin");
    ok(&isa(&["asm", &src, "-o", &bin]));
    let dot = ok(&isa(&["disasm", "--cfg", &bin]));
    assert!(dot.starts_with("digraph cfg {"), "{dot}");
    // Blocks: b0 = S2R..@P0 BRA, b1 = then, b2 = else, b3 = join, b4 = loop, b5 = BRX,
    // b6/b7 = the table's two branches, b8 = case 0, b9 = @P2 EXIT, b10 = EXIT.
    let want: BTreeSet<(String, String, String)> = [
        ("b0", "b1", "fallthrough"),
        ("b0", "b2", "taken"),
        ("b0", "b3", "converge"),
        ("b1", "b3", "taken"),
        ("b2", "b3", "fallthrough"),
        ("b3", "b4", "fallthrough"),
        ("b4", "b4", "taken"),
        ("b4", "b5", "fallthrough"),
        ("b5", "indirect", "indirect"),
        ("b6", "b8", "taken"),
        ("b7", "b9", "taken"),
        ("b9", "b10", "fallthrough"),
    ]
    .into_iter()
    .map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()))
    .collect();
    assert_eq!(edges(&dot), want, "{dot}");
    assert_eq!(
        dot.matches(" [label=\"/*").count() + dot.matches(" [label=\".L_").count(),
        11
    );
    // The same program as an object names its blocks by label.
    let obj = path("cfg.o");
    ok(&isa(&["asm", &src, "-o", &obj]));
    let dot_o = ok(&isa(&["disasm", "--cfg", &obj]));
    assert_eq!(edges(&dot_o), want);
    assert!(dot_o.contains("b4 [label=\".L_loop:\\l/*0070*/ UIADD UR4, UR4, 0x1\\l/*0080*/ @P1 BRA `(.L_loop)\\l\"];"), "{dot_o}");
}

/// `--spec` takes another spec through the interpreting tier; the bundled spec given
/// by path behaves exactly like the built-in one.
#[test]
fn spec_option_uses_the_model() {
    let spec = spec_dir();
    let spec = spec.to_str().unwrap();
    let src = write("spec.s", PROGRAM);
    let a = path("a.o");
    let b = path("b.o");
    ok(&isa(&["asm", &src, "-o", &a]));
    ok(&isa(&["asm", &src, "-o", &b, "--spec", spec]));
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    assert_eq!(
        ok(&isa(&["disasm", &a])),
        ok(&isa(&["disasm", &a, "--spec", spec]))
    );
    assert_eq!(
        ok(&isa(&["disasm", "--cfg", &a])),
        ok(&isa(&["disasm", "--cfg", &a, "--spec", spec]))
    );
    // Another spec's object linked without its spec: the error says so.
    let vec = repo("tests/specs/vec");
    let vec = vec.to_str().unwrap();
    let vj = path("vj.o");
    let vsrc = write("vj.s", ".extern far\nJMP `(far)\nHALT\n");
    ok(&isa(&["asm", &vsrc, "-o", &vj, "--spec", vec]));
    ok(&isa(&["link", &vj, "--symbol", "far=0x100", "--spec", vec]));
    let o = isa(&["link", &vj, "--symbol", "far=0x100"]);
    assert_eq!(o.status.code(), Some(1));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("an object of another spec needs --spec"), "{e}");
    // A spec with errors is a usage error that shows them.
    let broken = write(
        "broken.isa",
        "__DefGroup ALL\n  __Encoding\n    field<0, 8> Nope x;\n",
    );
    let o = isa(&["asm", &src, "--spec", &broken]);
    assert_eq!(o.status.code(), Some(2));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains("the spec has errors") && e.contains("unknown type `Nope`"),
        "{e}"
    );
}

/// What a backend builds with `CodeBuffer`, listed by `Code::write_asm_with`, is a
/// program `isa asm -o` reads: the object's words are the unlinked code's, and
/// `isa disasm` of the object prints the listing back.
#[test]
fn a_code_listing_assembles_to_the_same_object() {
    use isa::backend::CodeBuffer;
    use isa::{FormatOptions, Instruction};
    let mut buf = CodeBuffer::new(0).unwrap();
    let (top, done) = (buf.new_label(), buf.new_label());
    let step = buf.symbol("reduce_step").unwrap();
    buf.bind(top).unwrap();
    buf.push("S2R R1, SR_LANEID".parse::<Instruction>().unwrap());
    buf.push_to("@P0 BRA 0x0".parse::<Instruction>().unwrap(), done)
        .unwrap();
    buf.push_to("CALL.REL RZ, 0x0".parse::<Instruction>().unwrap(), step)
        .unwrap();
    buf.push_to("@!P1 BRA 0x0".parse::<Instruction>().unwrap(), top)
        .unwrap();
    buf.bind(done).unwrap();
    buf.push("EXIT".parse::<Instruction>().unwrap());
    let code = buf.finish().unwrap();
    let names = |a: u64| {
        if Some(a) == code.label_addr(top) {
            Some("top")
        } else if Some(a) == code.label_addr(done) {
            Some("done")
        } else {
            None
        }
    };
    let mut listing = String::new();
    code.write_asm_with(
        &mut listing,
        &FormatOptions {
            symbols: Some(&names),
            ..FormatOptions::new()
        },
    )
    .unwrap();
    let obj = path("listing.o");
    ok(&isa(&["asm", &write("listing.s", &listing), "-o", &obj]));
    let bytes = ok(&isa(&["disasm", &obj]));
    assert_eq!(bytes, listing);
    // The object's .text is the unlinked code, word for word.
    let raw = path("listing.bin");
    ok(&isa(&[
        "asm",
        &write(
            "listing_resolved.s",
            &listing
                .replace("`(reduce_step)", "0x30")
                .replace(".extern reduce_step\n", ""),
        ),
        "-o",
        &raw,
    ]));
    assert_eq!(std::fs::read(&raw).unwrap(), code.to_bytes());
}

/// A relocation's addend survives listing → object → link: `Code::listing` writes
/// `` `(f+0x20) `` / `` `(f-0x10) ``, `isa asm -o` (either tier) keeps the addends in the
/// object, and `isa link` at the code's base gives the words `Code::link` gives.
#[test]
fn a_code_listing_keeps_relocation_addends_through_link() {
    use isa::backend::{CodeBuffer, Target};
    use isa::Instruction;
    let insn = |t: &str| t.parse::<Instruction>().unwrap();
    let mut buf = CodeBuffer::new(0x100).unwrap();
    let f = buf.symbol("f").unwrap();
    let top = buf.named_label("top").unwrap();
    buf.bind(top).unwrap();
    buf.push_to(insn("CALL.REL RZ, 0x0"), Target::Symbol(f, 0x20))
        .unwrap();
    buf.push_to(insn("@P0 BRA 0x0"), top).unwrap();
    buf.push_to(insn("BRA 0x0"), Target::Symbol(f, -0x10))
        .unwrap();
    let code = buf.finish().unwrap();
    let mut linked = code.clone();
    linked.link(|s| (s == "f").then_some(0x9000)).unwrap();
    let expected: String = linked.words().map(|w| format!("{w:#034x}\n")).collect();
    let listing = write("addends.s", &code.listing());
    let spec = spec_dir();
    for tier in [&[][..], &["--spec", spec.to_str().unwrap()][..]] {
        let obj = path("addends.o");
        ok(&isa(&[&["asm", &listing, "-o", &obj][..], tier].concat()));
        let hex = ok(&isa(&[
            "link", &obj, "--base", "0x100", "--symbol", "f=0x9000",
        ]));
        assert_eq!(hex, expected, "{tier:?}");
    }
}

/// A relocation with an addend (another tool's object: `isa asm` writes none) is
/// listed with it, a negative one as `-0x…`.
#[test]
fn relocation_addends_are_listed_signed() {
    use object::{Object as _, ObjectSection as _};
    let obj = path("addend.o");
    ok(&isa(&["asm", &write("addend.s", PROGRAM), "-o", &obj]));
    let mut bytes = std::fs::read(&obj).unwrap();
    let rela = {
        let file = object::File::parse(&*bytes).unwrap();
        let s = file.section_by_name(".rela.text").unwrap();
        s.file_range().unwrap().0 as usize
    };
    for (addend, shown) in [(-0x10i64, "reduce_step-0x10"), (0x20, "reduce_step+0x20")] {
        // Elf64_Rela: r_offset, r_info, r_addend.
        bytes[rela + 16..rela + 24].copy_from_slice(&addend.to_le_bytes());
        let patched = path("addend_patched.o");
        std::fs::write(&patched, &bytes).unwrap();
        let text = ok(&isa(&["disasm", &patched]));
        let call = text.lines().find(|l| l.contains("CALL")).unwrap();
        assert!(
            call.ends_with(&format!("// R_ISA_ADDR_REL {shown}")),
            "{call}"
        );
    }
}

/// The relocations of `readelf -r -W`: (offset, type number, symbol + addend). The type
/// is the low 32 bits of `r_info`, the number readelf prints (it cannot name ours).
fn readelf_relocs(obj: &str) -> Option<Vec<(u64, u32, String)>> {
    let o = binutils("readelf", &["-r", "-W", obj])?;
    let out = ok(&o);
    assert!(
        o.stderr.is_empty(),
        "readelf: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    Some(
        out.lines()
            .filter_map(|l| {
                let f: Vec<&str> = l.split_whitespace().collect();
                let offset = u64::from_str_radix(f.first()?, 16).ok()?;
                let info = u64::from_str_radix(f.get(1)?, 16).ok()?;
                let sym = l
                    .split_once(" + ")
                    .map(|(a, b)| format!("{} + {b}", a.split_whitespace().last().unwrap()))?;
                Some((offset, info as u32, sym))
            })
            .collect(),
    )
}

/// What the documented table of `docs/object-format.md` gives a relocation kind on
/// address operand 0: its `r_type` column, `1 + 2k` or `2 + 2k`, at `k = 0`.
fn documented_type(name: &str) -> u32 {
    let doc = include_str!("../../docs/object-format.md");
    let row = doc
        .lines()
        .find(|l| l.starts_with("| `") && l.contains(&format!("`{name}`")))
        .unwrap_or_else(|| panic!("no row for {name}"));
    let formula = row.split('`').nth(1).unwrap();
    let (base, k) = formula.split_once(" + ").unwrap();
    assert_eq!(k, "2k", "{row}");
    base.parse().unwrap()
}

/// The relocation type numbers the writer uses are the documented ones, as binutils
/// read them: a relative and an absolute address operand (the `vec` test spec has
/// both), so swapping the two numbers in the code fails here.
#[test]
fn relocation_type_numbers_are_the_documented_ones() {
    let vec = repo("tests/specs/vec");
    let vec = vec.to_str().unwrap();
    let src = write("types.s", ".extern far\nJMP `(far)\nCALLX `(far)\nHALT\n");
    let obj = path("types.o");
    ok(&isa(&["asm", &src, "-o", &obj, "--spec", vec]));
    let (rel, abs) = (
        documented_type("R_ISA_ADDR_REL"),
        documented_type("R_ISA_ADDR_ABS"),
    );
    assert_eq!((rel, abs), (1, 2));
    if let Some(relocs) = readelf_relocs(&obj) {
        assert_eq!(
            relocs,
            [
                (0x0, rel, "far + 0".to_string()),
                (0x10, abs, "far + 0".to_string())
            ]
        );
    }
    // And as `isa disasm` names them.
    let text = ok(&isa(&["disasm", &obj, "--spec", vec]));
    assert!(
        text.contains("JMP `(far) ;  // R_ISA_ADDR_REL far\n"),
        "{text}"
    );
    assert!(
        text.contains("CALLX `(far) ;  // R_ISA_ADDR_ABS far\n"),
        "{text}"
    );
}

/// An object written from Rust (`isa_object`, from a `CodeBuffer`'s code with a
/// relocation with an addend) is what binutils read without a warning, shows the
/// relocation with its addend, reads back equal, and `isa link` gives the words of
/// `Code::link`.
#[test]
fn an_object_written_from_rust() {
    use isa::backend::{CodeBuffer, Target};
    use isa::Instruction;
    use isa_object::{LabelName, Object};
    let insn = |t: &str| t.parse::<Instruction>().unwrap();
    let mut buf = CodeBuffer::new(0).unwrap();
    let (top, done) = (buf.new_label(), buf.new_label());
    let step = buf.symbol("reduce_step").unwrap();
    buf.bind(top).unwrap();
    buf.push(insn("S2R R1, SR_LANEID"));
    buf.push_to(insn("@P0 BRA 0x0"), done).unwrap();
    buf.push_to(insn("CALL.REL RZ, 0x0"), Target::Symbol(step, 0x20))
        .unwrap();
    buf.push_to(insn("BRA 0x0"), top).unwrap();
    buf.bind(done).unwrap();
    buf.push(insn("EXIT"));
    let code = buf.finish().unwrap();
    let labels = [
        LabelName::global(top, "kernel"),
        LabelName::local(done, ".L_done"),
    ];
    let obj = Object::from_code(&code, &labels).unwrap();
    let bytes = isa_object::write(&obj).unwrap();
    let file = path("rust.o");
    std::fs::write(&file, &bytes).unwrap();

    if let Some(out) = readelf_all(&file) {
        assert!(has_symbol(&out, "GLOBAL", "kernel"));
        assert!(has_symbol(&out, "LOCAL", ".L_done"));
        assert!(has_symbol(&out, "UND", "reduce_step"));
    }
    if let Some(relocs) = readelf_relocs(&file) {
        let rel = documented_type("R_ISA_ADDR_REL");
        assert_eq!(relocs, [(0x20, rel, "reduce_step + 20".to_string())]);
    }
    if let Some(o) = binutils("objdump", &["-r", "-t", &file]) {
        let out = ok(&o);
        assert!(
            o.stderr.is_empty(),
            "objdump: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(
            out.contains("0000000000000020 UNKNOWN           reduce_step+0x0000000000000020"),
            "{out}"
        );
        assert!(out.contains("*UND*\t0000000000000000 reduce_step"), "{out}");
    }
    assert_eq!(isa_object::read(&bytes).unwrap(), obj);

    let text = ok(&isa(&["disasm", &file]));
    assert!(
        text.contains(
            "/*0020*/  CALL.REL RZ, `(reduce_step+0x20) ;  // R_ISA_ADDR_REL reduce_step+0x20\n"
        ),
        "{text}"
    );
    let mut linked = code.clone();
    linked.link(|_| Some(0x8000)).unwrap();
    let want: String = linked.words().map(|w| format!("{w:#034x}\n")).collect();
    let hex = ok(&isa(&["link", &file, "--symbol", "reduce_step=0x8000"]));
    assert_eq!(hex, want);
    // The listing goes back through `isa asm -o` to the same object, and links alike:
    // Code → object → disasm → asm → link is Code::link, addend included.
    let again = path("rust-again.o");
    ok(&isa(&["asm", &write("rust-again.s", &text), "-o", &again]));
    assert_eq!(
        isa_object::read(&std::fs::read(&again).unwrap()).unwrap(),
        obj
    );
    let hex = ok(&isa(&["link", &again, "--symbol", "reduce_step=0x8000"]));
    assert_eq!(hex, want);
    let call = hex.lines().nth(2).unwrap();
    assert_eq!(
        ok(&isa(&["disasm", "--base", "0x20", "--hex", call])),
        "/*0020*/  CALL.REL RZ, 0x8020 ;\n"
    );
}

/// A label at the end of `.text` (after the last instruction) is listed, and the
/// listing assembles back to the same object.
#[test]
fn a_label_at_the_end_is_listed() {
    let src = write("end.s", ".global end\nBRA `(end)\nend:\n");
    let obj = path("end.o");
    ok(&isa(&["asm", &src, "-o", &obj]));
    let text = ok(&isa(&["disasm", &obj]));
    assert_eq!(text, ".global end\n/*0000*/  BRA `(end) ;\nend:\n");
    let again = path("end-again.o");
    ok(&isa(&["asm", &write("end-again.s", &text), "-o", &again]));
    assert_eq!(std::fs::read(&again).unwrap(), std::fs::read(&obj).unwrap());
}
