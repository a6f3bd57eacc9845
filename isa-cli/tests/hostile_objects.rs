//! Objects as untrusted input: hand-made hostile objects through `isa disasm`,
//! `isa disasm --cfg` and `isa link`. Each gets an error that says what and where, or
//! output proportional to the object, never a panic or an exhausted memory.

mod common;

use std::path::PathBuf;

use isa::backend::{CodeBuffer, Target};
use isa::Instruction;
use isa_object::{LabelName, Object};

use common::{isa, stderr};

/// File `name` in one directory under the target directory, overwritten by each run
/// (not `common::dir`, one per process in the system's temporary directory: some of
/// these objects are megabytes).
fn path(name: &str) -> String {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("hostile-objects");
    std::fs::create_dir_all(&d).unwrap();
    d.join(name).to_string_lossy().into_owned()
}

fn save(name: &str, bytes: &[u8]) -> String {
    let p = path(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

fn insn(text: &str) -> Instruction {
    text.parse().unwrap()
}

/// An object of `isa asm`: two calls to `f` (relocations 0 and 1, at 0x10 and 0x20).
fn two_calls() -> Vec<u8> {
    let src = save(
        "two.s",
        b".extern f\nS2R R1, SR_LANEID\nCALL.REL RZ, `(f)\nCALL.REL RZ, `(f)\nEXIT\n",
    );
    let obj = path("two.o");
    let o = isa(&["asm", &src, "-o", &obj]);
    assert!(o.status.success(), "{}", stderr(&o));
    std::fs::read(obj).unwrap()
}

/// The file offset of `.rela.text`'s first entry.
fn rela_at(bytes: &[u8]) -> usize {
    use object::{Object as _, ObjectSection as _};
    let file = object::File::parse(bytes).unwrap();
    let s = file.section_by_name(".rela.text").unwrap();
    s.file_range().unwrap().0 as usize
}

/// `disasm`, `disasm --cfg` and `link` all refuse the object with exit 2 and `want`.
#[track_caller]
fn refused_everywhere(file: &str, want: &str) {
    for args in [
        vec!["disasm", file],
        vec!["disasm", "--cfg", file],
        vec!["link", file, "--symbol", "f=0x8000"],
    ] {
        let o = isa(&args);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {e}");
        assert!(e.contains(file) && e.contains(want), "{args:?}: {e}");
        assert!(o.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn relocation_offsets_outside_text_or_between_instructions() {
    let good = two_calls();
    let rela = rela_at(&good);
    // r_offset near 2^64: `offset + 16` wrapped, so link indexed out of bounds and
    // disasm dropped the relocation.
    for (offset, shown) in [
        (u64::MAX - 15, "relocation 1 (at 0xfffffffffffffff0) (`f`): not at an instruction of `.text` (0x40 bytes)"),
        (0x40, "relocation 1 (at 0x40) (`f`): not at an instruction"),
        (0x18, "relocation 1 (at 0x18) (`f`): not at an instruction"),
    ] {
        let mut bytes = good.clone();
        bytes[rela + 24..rela + 32].copy_from_slice(&offset.to_le_bytes());
        refused_everywhere(&save("offset.o", &bytes), shown);
    }
}

#[test]
fn two_relocations_on_one_instruction() {
    let mut bytes = two_calls();
    let rela = rela_at(&bytes);
    // Relocation 1 moved onto relocation 0's instruction: link applied both, disasm
    // showed one.
    bytes[rela + 24..rela + 32].copy_from_slice(&0x10u64.to_le_bytes());
    refused_everywhere(
        &save("dup.o", &bytes),
        "relocations 0 and 1 both patch the instruction at 0x10",
    );
}

/// One 1 MB external name, 1,000 calls to it: disasm printed the name 2,000 times
/// (2 GB), `--cfg` and `link` ran out of memory. Now the name is printed once in full
/// and shortened where it repeats.
#[test]
fn a_huge_name_referenced_many_times() {
    let name = "n".repeat(1 << 20);
    let mut buf = CodeBuffer::new(0).unwrap();
    let sym = buf.symbol(&name).unwrap();
    for _ in 0..1000 {
        buf.push_to(insn("CALL.REL RZ, 0x0"), sym).unwrap();
    }
    buf.push(insn("EXIT"));
    let code = buf.finish().unwrap();
    let bytes = isa_object::write(&Object::from_code(&code, &[]).unwrap()).unwrap();
    let file = save("huge-name.o", &bytes);
    let limit = 4 * bytes.len();

    let o = isa(&["disasm", &file]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = String::from_utf8(o.stdout.clone()).unwrap();
    assert!(out.len() < limit, "{} bytes", out.len());
    assert_eq!(out.lines().count(), 1 + 1001);
    assert_eq!(out.lines().next().unwrap(), format!(".extern {name}"));
    let short = format!("{}…[1048576 bytes]", &name[..isa_object::SHOWN_NAME_BYTES]);
    assert_eq!(
        out.lines().nth(1).unwrap(),
        format!("/*0000*/  CALL.REL RZ, `({short}) ;  // R_ISA_ADDR_REL {short}")
    );
    let e = stderr(&o);
    assert!(e.len() < 4096, "{e}");
    assert!(
        e.contains("longer than 1024 bytes, so shortened where it is referenced"),
        "{e}"
    );
    assert_eq!(isa(&["disasm", "--strict", &file]).status.code(), Some(1));

    let o = isa(&["disasm", "--cfg", &file]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(o.stdout.len() < limit, "{} bytes", o.stdout.len());

    // Undefined: one error for the symbol, not one per relocation.
    let o = isa(&["link", &file]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert_eq!(e.lines().count(), 1, "{}", &e[..200]);
    assert!(e.len() < 4096, "{} bytes", e.len());
    assert!(e.contains(&format!(
        "undefined symbol `{short}` (give its address with --symbol {short}=ADDR)"
    )));
    // Resolved (in Rust: the name is too long for a command-line argument).
    let obj = isa_object::read(&bytes).unwrap();
    let mut linked = code.clone();
    linked.link(|_| Some(0x8000)).unwrap();
    assert_eq!(
        obj.link(0, |n| (n == name).then_some(0x8000)).unwrap(),
        linked.words().collect::<Vec<_>>()
    );
}

/// Many symbols sharing one long name in `.strtab` would multiply it in memory and in
/// the listing (2,000 symbols of 1 MB each from a 1 MB file): the reader refuses names
/// adding up to more than four times the file.
#[test]
fn one_long_name_shared_by_many_symbols() {
    use object::read::elf::{ElfFile64, SectionHeader as _, Sym as _};
    use object::LittleEndian as LE;
    let mut buf = CodeBuffer::new(0).unwrap();
    buf.symbol(&"n".repeat(1 << 20)).unwrap();
    for i in 0..2000 {
        buf.symbol(&format!("s{i}")).unwrap();
    }
    buf.push(insn("EXIT"));
    let code = buf.finish().unwrap();
    let mut bytes = isa_object::write(&Object::from_code(&code, &[]).unwrap()).unwrap();
    let (symtab, long_name) = {
        let file = ElfFile64::<LE>::parse(&*bytes).unwrap();
        let table = file.elf_symbol_table();
        let header = file.elf_section_table().section(table.section()).unwrap();
        (
            header.sh_offset(LE) as usize,
            table.symbols()[1].st_name(LE),
        )
    };
    // Every symbol's st_name (the first field of an Elf64_Sym) points at the long name.
    for i in 2..=2001 {
        let at = symtab + 24 * i;
        bytes[at..at + 4].copy_from_slice(&long_name.to_le_bytes());
    }
    let file = save("shared-name.o", &bytes);
    let want = format!(
        "the symbol names add up to more than four times the file's {} bytes",
        bytes.len()
    );
    refused_everywhere(&file, &want);
}

/// A terminal escape sequence in a name reached the terminal, and a newline in a label
/// split the listing's line: names are printed escaped, and one the assembler cannot
/// read back is a warning (an error with `--strict`).
#[test]
fn names_with_escapes_and_newlines() {
    let evil = "evil\x1b]0;pwned\x07\x1b[2J";
    let mut buf = CodeBuffer::new(0).unwrap();
    let (top, done) = (buf.new_label(), buf.new_label());
    // The buffer refuses names the assembler cannot read back; a hostile object has
    // them anyway: the name is put into the object afterwards.
    let sym = buf.symbol("evil").unwrap();
    buf.bind(top).unwrap();
    buf.push_to(insn("@P0 BRA 0x0"), done).unwrap();
    buf.push_with(insn("CALL.REL RZ, 0x0"), 0, Target::Symbol(sym, 0x10))
        .unwrap();
    buf.bind(done).unwrap();
    buf.push(insn("EXIT"));
    let code = buf.finish().unwrap();
    let labels = [
        LabelName::global(top, "kernel"),
        LabelName::local(done, "a\nEXIT"),
    ];
    let mut obj = Object::from_code(&code, &labels).unwrap();
    for s in &mut obj.symbols {
        if s.name == "evil" {
            s.name = evil.to_string();
        }
    }
    let bytes = isa_object::write(&obj).unwrap();
    let file = save("names.o", &bytes);

    let o = isa(&["disasm", &file]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = String::from_utf8(o.stdout.clone()).unwrap();
    let esc = "evil\\u{1b}]0;pwned\\u{7}\\u{1b}[2J";
    assert_eq!(
        out,
        format!(
            "\
.global kernel
.extern {esc}
kernel:
/*0000*/  @P0 BRA `(a\\nEXIT) ;
/*0010*/  CALL.REL RZ, `({esc}+0x10) ;  // R_ISA_ADDR_REL {esc}+0x10
a\\nEXIT:
/*0020*/  EXIT ;
"
        )
    );
    let e = stderr(&o);
    assert!(!e.contains('\x1b'), "{e}");
    assert!(
        e.contains(&format!(
            "symbol `{esc}`: not a name the assembler reads (the listing does not assemble back)"
        )),
        "{e}"
    );
    assert!(
        e.contains("symbol `a\\nEXIT`: not a name the assembler reads"),
        "{e}"
    );
    assert_eq!(e.lines().count(), 2, "{e}");
    assert_eq!(isa(&["disasm", "--strict", &file]).status.code(), Some(1));

    let o = isa(&["disasm", "--cfg", &file]);
    assert_eq!(o.status.code(), Some(0));
    assert!(!o.stdout.contains(&0x1b), "an escape reached the graph");

    let o = isa(&["link", &file]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(!e.contains('\x1b'), "{e}");
    assert!(e.contains(&format!("undefined symbol `{esc}`")), "{e}");
}

/// 50,000 `.extern` declarations and references: a scan per name made this quadratic
/// (6.5 s in a release build; 25 s for 100,000). The time is not asserted here; what
/// the object holds is.
#[test]
fn fifty_thousand_externs() {
    let n = 50_000;
    let mut src = String::new();
    for i in 0..n {
        src.push_str(&format!(".extern s{i}\n"));
    }
    for i in (0..n).rev() {
        src.push_str(&format!("CALL.REL RZ, `(s{i})\n"));
    }
    let obj = path("externs.o");
    let start = std::time::Instant::now();
    let o = isa(&["asm", &save("externs.s", src.as_bytes()), "-o", &obj]);
    eprintln!("isa asm of {n} externs: {:?}", start.elapsed());
    assert!(o.status.success(), "{}", stderr(&o));
    let obj = isa_object::read(&std::fs::read(&obj).unwrap()).unwrap();
    assert_eq!(obj.symbols.len(), n);
    assert_eq!(obj.relocs.len(), n);
    for (k, r) in obj.relocs.iter().enumerate() {
        assert_eq!(r.offset, 16 * k as u64);
        assert_eq!(obj.symbols[r.symbol].name, format!("s{}", n - 1 - k));
    }
    let words = obj.link(0, |s| Some(0x10_0000 + 16 * s[1..].parse::<u64>().unwrap()));
    assert_eq!(words.unwrap().len(), n);
}

/// Every command that reads a file reads at most 64 MiB of it: `/dev/zero` is an
/// error naming the file and the limit (it was read until memory ran out).
#[test]
fn endless_inputs() {
    if !std::path::Path::new("/dev/zero").exists() {
        return;
    }
    let prog = save("exit.s", b"EXIT\n");
    for (args, code) in [
        (vec!["disasm", "/dev/zero"], 2),
        (vec!["disasm", "--cfg", "/dev/zero"], 2),
        (vec!["link", "/dev/zero"], 2),
        (vec!["asm", "/dev/zero"], 2),
        (vec!["run", "/dev/zero"], 1),
        (vec!["run", &prog, "--state", "/dev/zero"], 1),
    ] {
        let o = isa(&args);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(code), "{args:?}: {e}");
        assert!(
            e.contains("/dev/zero: larger than 64 MiB, the most an input file may be"),
            "{args:?}: {e}"
        );
    }
}
