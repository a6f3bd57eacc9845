//! Every command on our specs besides the bundled one (`tests/specs/vec`,
//! `tests/specs/split`, `tests/specs/regs`): the `isa` binary checks them clean, generates code that
//! parses, assembles and disassembles every example line and every opcode bit-exactly
//! (and as the interpreting tier of `isa-gen` does), writes objects that link, writes
//! the HTML reference and the JSON, finds no change against itself, and rejects broken
//! copies at the broken line and column. The generated tier of both specs is tested
//! against the interpreting one in `tests/asm.rs`; their generated code is linted in
//! `isa-gen/tests/hostile.rs`.

mod common;

use std::collections::BTreeSet;
use std::path::Path;

use isa_gen::asm::Assembler;
use isa_gen::model::Model;
use isa_gen::syntax::ast::DocKind;

use common::{fresh_dir, isa, ok, repo, stderr, stdout};

/// (name, spec file): the directory holds this one file.
const SPECS: [(&str, &str); 3] = [
    ("vec", "tests/specs/vec/vec.isa"),
    ("split", "tests/specs/split/split.isa"),
    ("regs", "tests/specs/regs/regs.isa"),
];

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn model(file: &Path) -> Model {
    let c = isa_gen::Spec::load(&[file]).expect("loads").check();
    assert!(!c.has_errors(), "{}", c.render_diagnostics());
    c.model.expect("model")
}

/// The spec's `__Examples` lines, as written (comments dropped).
fn example_lines(m: &Model) -> Vec<String> {
    let mut out = Vec::new();
    for d in &m.defs {
        for sec in d.docs.iter().filter(|s| s.kind == DocKind::Examples) {
            for l in sec.code_blocks.iter().flat_map(|b| &b.lines) {
                let t = isa_gen::asm::lex::strip_comment(&l.text).trim();
                if !t.is_empty() {
                    out.push(t.to_string());
                }
            }
        }
    }
    out
}

/// Hex words as `isa asm` prints them, one per line.
fn words(hex: &str) -> Vec<u128> {
    hex.lines()
        .map(|l| u128::from_str_radix(l.trim().trim_start_matches("0x"), 16).expect(l))
        .collect()
}

/// 16-byte little-endian records.
fn records(bytes: &[u8]) -> Vec<u128> {
    assert_eq!(bytes.len() % 16, 0);
    bytes
        .chunks(16)
        .map(|c| u128::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

#[test]
fn check_is_clean_and_gen_writes_code_that_parses() {
    let dir = fresh_dir("gen");
    for (name, rel) in SPECS {
        let file = repo(rel);
        let out = ok(&isa(&["check", s(&file)]));
        assert!(out.contains("; 0 warnings, 0 errors"), "{name}: {out}");
        let rs = dir.join(format!("{name}.rs"));
        ok(&isa(&["gen", s(&file), "-o", s(&rs)]));
        let code = std::fs::read_to_string(&rs).unwrap();
        let file = syn::parse_file(&code).unwrap_or_else(|e| panic!("{name}: {e}"));
        // One struct per opcode, named as the API names them (at the top or in the
        // module of its unit).
        let m = model(&repo(rel));
        fn structs_in(items: &[syn::Item], out: &mut BTreeSet<String>) {
            for i in items {
                match i {
                    syn::Item::Struct(s) => {
                        out.insert(s.ident.to_string());
                    }
                    syn::Item::Mod(m) => {
                        if let Some((_, items)) = &m.content {
                            structs_in(items, out);
                        }
                    }
                    _ => {}
                }
            }
        }
        let mut structs = BTreeSet::new();
        structs_in(&file.items, &mut structs);
        for op in &m.opcodes {
            let rust = heck_camel(&op.name);
            assert!(structs.contains(&rust), "{name}: no struct {rust}");
        }
    }
}

/// `VALU_VV` → `ValuVv`, as the generated API names opcode structs.
fn heck_camel(name: &str) -> String {
    name.split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next().map_or(String::new(), |f| {
                f.to_uppercase()
                    .chain(c.flat_map(char::to_lowercase))
                    .collect()
            })
        })
        .collect()
}

/// Every example line: assembled as one program by `isa asm --spec`, the words those
/// of the interpreting tier, disassembled by `isa disasm --spec` and assembled again to
/// the same bytes.
#[test]
fn every_example_line_assembles_and_disassembles_bit_exactly() {
    let dir = fresh_dir("examples");
    for (name, rel) in SPECS {
        let file = repo(rel);
        let m = model(&file);
        let asm = Assembler::new(&m);
        let lines = example_lines(&m);
        assert!(lines.len() >= 15, "{name}: {} example lines", lines.len());
        let src = dir.join(format!("{name}.s"));
        std::fs::write(&src, lines.join("\n") + "\n").unwrap();
        let hex = words(&ok(&isa(&["asm", s(&src), "--spec", s(&file)])));
        assert_eq!(hex.len(), lines.len(), "{name}");
        for (k, (line, w)) in lines.iter().zip(&hex).enumerate() {
            let d = asm
                .parse_line(line, 16 * k as u64, &|_| None)
                .unwrap_or_else(|e| panic!("{name}: {line}: {e}"));
            assert_eq!(m.encode(&d), *w, "{name}: {line}");
        }
        let bin = dir.join(format!("{name}.bin"));
        ok(&isa(&["asm", s(&src), "-o", s(&bin), "--spec", s(&file)]));
        assert_eq!(records(&std::fs::read(&bin).unwrap()), hex, "{name}");
        let text = ok(&isa(&["disasm", s(&bin), "--spec", s(&file), "--strict"]));
        assert_eq!(text.lines().count(), lines.len(), "{name}: {text}");
        let again = dir.join(format!("{name}-again.s"));
        std::fs::write(&again, &text).unwrap();
        let hex2 = words(&ok(&isa(&["asm", s(&again), "--spec", s(&file)])));
        assert_eq!(hex2, hex, "{name}: {text}");
    }
}

/// Every opcode at its defaults and at its codes' ends: `isa disasm --spec --hex`
/// prints it and `isa asm --spec` gives the word back.
#[test]
fn every_opcode_round_trips_through_the_commands() {
    let dir = fresh_dir("opcodes");
    for (name, rel) in SPECS {
        let file = repo(rel);
        let m = model(&file);
        let mut ws: Vec<u128> = Vec::new();
        for i in 0..m.opcodes.len() {
            let d = m.default_instruction(i);
            ws.push(m.encode(&d));
            // Each non-fixed field at its largest valid code.
            let mut hi = d.clone();
            for (f, field) in m.opcodes[i].fields.iter().enumerate() {
                if field.is_fixed() {
                    continue;
                }
                let t = m.ty(field.ty);
                if let Some(c) = (0..=isa_gen::model::mask(0, t.width).min(0xffff))
                    .rev()
                    .find(|&c| t.is_valid_code(c))
                {
                    hi.values[f] = c;
                }
            }
            let w = m.encode(&hi);
            assert_eq!(
                m.decode(w).as_ref(),
                Ok(&hi),
                "{name}: {}",
                m.opcodes[i].name
            );
            ws.push(w);
        }
        let args: Vec<String> = ws.iter().map(|w| format!("{w:#x}")).collect();
        let mut cmd: Vec<&str> = vec!["disasm", "--spec", s(&file), "--strict", "--hex"];
        cmd.extend(args.iter().map(String::as_str));
        let text = ok(&isa(&cmd));
        assert_eq!(text.lines().count(), ws.len(), "{name}: {text}");
        let src = dir.join(format!("{name}.s"));
        std::fs::write(&src, &text).unwrap();
        let out = isa(&["asm", s(&src), "--spec", s(&file)]);
        // A word whose values break an `__Exception` prints but does not assemble;
        // neither spec has exceptions.
        assert_eq!(words(&ok(&out)), ws, "{name}: {text}");
    }
}

/// Objects: a program calling and jumping to an external symbol, linked, gives the
/// words of the same program with the address written in.
#[test]
fn objects_link_for_another_spec() {
    let dir = fresh_dir("objects");
    for (name, rel, with_label, with_address) in [
        (
            "vec",
            "tests/specs/vec/vec.isa",
            ".extern f\ntop:\n  VALU.ADD V1, V2, V3\n  JMP `(f)\n  CALLX `(f)\n  JMP `(top)\n  HALT\n",
            "  VALU.ADD V1, V2, V3\n  JMP 0x4000\n  CALLX 0x4000\n  JMP 0x0\n  HALT\n",
        ),
        (
            "split",
            "tests/specs/split/split.isa",
            ".extern f\ntop:\n  LDK G1, c[0xf][0xfffc]\n  BR.EQ `(f)\n  BR `(top)\n  STOP\n",
            "  LDK G1, c[0xf][0xfffc]\n  BR.EQ 0x4000\n  BR 0x0\n  STOP\n",
        ),
    ] {
        let file = repo(rel);
        let src = dir.join(format!("{name}.s"));
        std::fs::write(&src, with_label).unwrap();
        let obj = dir.join(format!("{name}.o"));
        ok(&isa(&["asm", s(&src), "-o", s(&obj), "--spec", s(&file)]));
        assert_eq!(&std::fs::read(&obj).unwrap()[..4], b"\x7fELF");
        let listing = ok(&isa(&["disasm", s(&obj), "--spec", s(&file)]));
        assert!(listing.contains(".extern f"), "{name}: {listing}");
        assert!(listing.contains("`(f)"), "{name}: {listing}");
        assert!(listing.contains("`(top)"), "{name}: {listing}");
        let linked = words(&ok(&isa(&[
            "link",
            s(&obj),
            "--symbol",
            "f=0x4000",
            "--spec",
            s(&file),
        ])));
        let plain = dir.join(format!("{name}-plain.s"));
        std::fs::write(&plain, with_address).unwrap();
        let want = words(&ok(&isa(&["asm", s(&plain), "--spec", s(&file)])));
        assert_eq!(linked, want, "{name}");
        // Without the symbol, linking fails (exit 1) and says which.
        let o = isa(&["link", s(&obj), "--spec", s(&file)]);
        assert_eq!(o.status.code(), Some(1), "{name}");
        assert!(stderr(&o).contains('f'), "{name}: {}", stderr(&o));
    }
}

#[test]
fn doc_json_and_diff() {
    let dir = fresh_dir("doc");
    for (name, rel) in SPECS {
        let file = repo(rel);
        let m = model(&file);
        // The HTML reference: an index, and every opcode somewhere in the pages.
        let site = dir.join(name);
        ok(&isa(&["doc", s(&file), "-o", s(&site)]));
        assert!(site.join("index.html").is_file(), "{name}");
        let mut html = String::new();
        for e in std::fs::read_dir(&site).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "html") {
                html.push_str(&std::fs::read_to_string(&p).unwrap());
            }
        }
        for op in &m.opcodes {
            assert!(
                html.contains(&op.name),
                "{name}: {} not in the pages",
                op.name
            );
        }
        // The legend names this spec's guard (vec: `fg`; split has none), never the
        // bundled spec's `pg`.
        assert!(!html.contains("<code>@pg</code>"), "{name}");
        let guards: BTreeSet<&str> = m
            .opcodes
            .iter()
            .filter_map(|op| op.guard(&m).map(|g| op.fields[g].name.as_str()))
            .collect();
        for g in &guards {
            assert!(
                html.contains(&format!("<code>@{g}</code> is the guard predicate")),
                "{name}: {g}"
            );
        }
        if guards.is_empty() {
            assert!(!html.contains("is the guard predicate"), "{name}");
        }
        // JSON: valid, every opcode by name, the offsets' signedness.
        let json: serde_json::Value =
            serde_json::from_str(&ok(&isa(&["json", s(&file)]))).expect("valid JSON");
        let names: BTreeSet<&str> = json["opcodes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o["name"].as_str().unwrap())
            .collect();
        let want: BTreeSet<&str> = m.opcodes.iter().map(|o| o.name.as_str()).collect();
        assert_eq!(names, want, "{name}");
        let signed: Vec<(String, bool)> = json["types"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| t["kind"] == "constmem")
            .map(|t| {
                (
                    t["name"].as_str().unwrap().to_string(),
                    t["offset_signed"].as_bool().unwrap(),
                )
            })
            .collect();
        let expect: &[(&str, bool)] = match name {
            "vec" => &[("KMem", true)],
            "regs" => &[],
            _ => &[("UK", false), ("SmallK", false), ("WideK", false)],
        };
        let expect: Vec<(String, bool)> = expect.iter().map(|(n, b)| (n.to_string(), *b)).collect();
        assert_eq!(signed, expect, "{name}");
        // The spec against itself: compatible, nothing changed.
        let out = ok(&isa(&["diff", s(&file), s(&file), "--json"]));
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["compatible"], true, "{name}: {out}");
        for k in ["breaks", "added_opcodes", "added_values", "changes"] {
            assert_eq!(v[k], serde_json::json!([]), "{name}: {k}: {out}");
        }
    }
    // Making split's unsigned offsets signed changes how their words print: a break.
    let text = std::fs::read_to_string(repo("tests/specs/split/split.isa")).unwrap();
    let signed = dir.join("split-signed.isa");
    std::fs::write(
        &signed,
        text.replacen(
            "UK<24> bank<8> offset<16> unsigned",
            "UK<24> bank<8> offset<16>",
            1,
        ),
    )
    .unwrap();
    let o = isa(&["diff", s(&repo("tests/specs/split/split.isa")), s(&signed)]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let out = stdout(&o);
    assert!(
        out.contains("type UK: constant memory bank<8> offset<16> unsigned → constant memory bank<8> offset<16> signed"),
        "{out}"
    );
    assert!(out.contains("OLD: LDK G0, c[0x0][0x8000]"), "{out}");
    assert!(out.contains("NEW: LDK G0, c[0x0][-0x8000]"), "{out}");
}

/// A broken copy of a spec: `isa check --format short` exits 1 and reports the fault
/// at `file:line:col` of `token` on the edited line.
fn assert_rejected_at(name: &str, rel: &str, from: &str, to: &str, token: &str, message: &str) {
    assert_rejected_on(name, rel, from, to, to, token, message);
}

/// The same, at `token` on the first line of the broken copy that holds `line`.
fn assert_rejected_on(
    name: &str,
    rel: &str,
    from: &str,
    to: &str,
    line: &str,
    token: &str,
    message: &str,
) {
    let text = std::fs::read_to_string(repo(rel)).unwrap();
    assert!(text.contains(from), "{name}: `{from}` not in the spec");
    let broken = text.replacen(from, to, 1);
    let dir = fresh_dir(&format!("broken-{name}-{}", token.len()));
    let file = dir.join(format!("{name}.isa"));
    std::fs::write(&file, &broken).unwrap();
    // Where the fault is: its line, and the token's column on it (characters).
    let at = broken.find(line).unwrap();
    let line_start = broken[..at].rfind('\n').map_or(0, |i| i + 1);
    let line_end = broken[at..].find('\n').map_or(broken.len(), |i| at + i);
    let line_text = &broken[line_start..line_end];
    let col = line_text.find(token).expect("token on the edited line");
    let line_no = broken[..line_start].matches('\n').count() + 1;
    let want = format!(
        "{}:{line_no}:{}: error: {message}",
        file.display(),
        line_text[..col].chars().count() + 1
    );
    let o = isa(&["check", "--format", "short", s(&file)]);
    assert_eq!(o.status.code(), Some(1), "{name}: {from} → {to}");
    let err = stderr(&o);
    // The message may go on with a suggestion (`(did you mean …?)`).
    assert!(
        err.lines().any(|l| l.starts_with(&want)),
        "{name}: {from} → {to}\nwant {want}\ngot:\n{err}"
    );
}

#[test]
fn broken_copies_are_rejected_at_the_broken_line_and_column() {
    let vec = "tests/specs/vec/vec.isa";
    assert_rejected_at(
        "vec",
        vec,
        "    field<20, 6> VReg vb;\n  __OperandInfo\n    InList<fg, va, vb>;",
        "    field<20, 6> VRg vb;\n  __OperandInfo\n    InList<fg, va, vb>;",
        "VRg",
        "unknown type `VRg`",
    );
    assert_rejected_at(
        "vec",
        vec,
        "    Order<fg, vd, va, vb>;\n    Bitwidth<vd> = 32 + (w == \"64\") * 32;\n    Bitwidth<va>",
        "    Order<fg, vd, va, vc>;\n    Bitwidth<vd> = 32 + (w == \"64\") * 32;\n    Bitwidth<va>",
        "vc",
        "unknown operand `vc` in `Order`",
    );
    assert_rejected_at(
        "vec",
        vec,
        "    field<43, 2> Width w = 32;",
        "    field<43, 2> Width w = 48;",
        "48",
        "`48` is not a value of `Width`",
    );
    // VMOV_L takes VMOV_V's minor code: the two can match the same word. The error
    // is at the first of the pair (the other is its second label).
    assert_rejected_on(
        "vec",
        vec,
        "__DefOpcode VMOV_L : [VMOV]\n  __Encoding\n    field<60, 4> Minor minor == VI;",
        "__DefOpcode VMOV_L : [VMOV]\n  __Encoding\n    field<60, 4> Minor minor == VV;",
        "__DefOpcode VMOV_V",
        "VMOV_V",
        "opcodes `VMOV_V` and `VMOV_L` can match the same word",
    );
    let split = "tests/specs/split/split.isa";
    assert_rejected_at(
        "split",
        split,
        "__DefConstMem UK<24> bank<8> offset<16> unsigned",
        "__DefConstMem UK<24> bank<8> offset<16> unsinged",
        "unsinged",
        "expected `signed`, `unsigned` or end of line, found `unsinged`",
    );
    assert_rejected_at(
        "split",
        split,
        "    field<3, 3> Cond cond = AL;",
        "    field<3, 3> Cond cond = GE;",
        "GE",
        "`GE` is not a value of `Cond`",
    );
    assert_rejected_at(
        "split",
        split,
        "    Order<ka, kb>;",
        "    Order<ka, kc>;",
        "kc",
        "unknown operand `kc` in `Order`",
    );
    // A code of `Form` given twice: `X` takes `S`'s code; the error is at the second.
    assert_rejected_on(
        "split",
        split,
        "    X = 3;\n    S = 4;",
        "    X = 4;\n    S = 4;",
        "    S = 4;",
        "S",
        "`S` and `X` of `Form` both have code 0x4",
    );
}

/// A mnemonic the bundled spec also has is read by the given spec only: vec's `NOP` is
/// vec's word, and the bundled `EXIT` is unknown to vec and split.
#[test]
fn the_bundled_spec_does_not_leak_into_another() {
    let dir = fresh_dir("leak");
    let vec = repo("tests/specs/vec/vec.isa");
    let split = repo("tests/specs/split/split.isa");
    let nop = dir.join("nop.s");
    std::fs::write(&nop, "NOP\n").unwrap();
    let bundled = words(&ok(&isa(&["asm", s(&nop)])));
    let m = model(&vec);
    let vec_nop = m.encode(&m.default_instruction(m.opcode_by_name("NOP_X").unwrap()));
    assert_eq!(
        words(&ok(&isa(&["asm", s(&nop), "--spec", s(&vec)]))),
        [vec_nop]
    );
    assert_ne!(bundled, [vec_nop]);
    // The bundled NOP word is no vec instruction.
    let o = isa(&[
        "disasm",
        "--spec",
        s(&vec),
        "--hex",
        &format!("{:#x}", bundled[0]),
    ]);
    assert!(!stdout(&o).contains("NOP"), "{}", stdout(&o));
    let exit = dir.join("exit.s");
    std::fs::write(&exit, "NOP\nEXIT\n").unwrap();
    for spec in [&vec, &split] {
        let o = isa(&["asm", s(&exit), "--spec", s(spec)]);
        assert_eq!(o.status.code(), Some(1));
        let err = stderr(&o);
        assert!(
            err.contains(&format!(
                "{}:2:1: error: unknown mnemonic `EXIT`",
                exit.display()
            )),
            "{err}"
        );
    }
    // split has no NOP either.
    let o = isa(&["asm", s(&nop), "--spec", s(&split)]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains(":1:1: error: unknown mnemonic `NOP`"),
        "{}",
        stderr(&o)
    );
}

/// vec's `WAIT` has a guard without a `.not`: `isa asm --spec` writes `@F1 WAIT 0x3`
/// with the guard's code and refuses `@!F1 WAIT 0x3` at its line and column, writing no
/// word for it (it is not read as `@F1 WAIT 0x3`).
#[test]
fn a_guard_without_not_is_refused_by_isa_asm() {
    let dir = fresh_dir("guard");
    let vec = repo("tests/specs/vec/vec.isa");
    let good = dir.join("good.s");
    std::fs::write(&good, "WAIT 0x3\n@F1 WAIT 0x3\n").unwrap();
    let major = 0x12u128 << 122;
    assert_eq!(
        words(&ok(&isa(&["asm", s(&good), "--spec", s(&vec)]))),
        [major | 0x3 << 10 | 3, major | 0x3 << 10 | 1]
    );
    let bad = dir.join("bad.s");
    std::fs::write(&bad, "WAIT 0x3\n  @!F1 WAIT 0x3\n").unwrap();
    let o = isa(&["asm", s(&bad), "--spec", s(&vec)]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(stdout(&o).is_empty(), "{}", stdout(&o));
    assert!(
        stderr(&o).contains("bad.s:2:3: error: the guard of `WAIT` cannot be negated"),
        "{}",
        stderr(&o)
    );
}

/// `isa asm` (the generated tier) and `isa asm --spec isa-spec` (the interpreting one)
/// report the same errors for the same program, word for word: the bad-line corpus of
/// `isa-gen/tests/asm.rs`, one line each.
#[test]
fn both_tiers_report_the_same_errors() {
    let src = include_str!("../../isa-gen/tests/asm.rs");
    let start = src.find("const BAD:").expect("the corpus table");
    let mut lines = vec![".L_x:".to_string()];
    for l in src[start..].lines().skip(1) {
        let t = l.trim();
        if t.starts_with("];") {
            break;
        }
        if let Some(rest) = t.strip_prefix("(\"") {
            lines.push(rest[..rest.find("\", ").expect("a string")].to_string());
        }
    }
    assert!(lines.len() > 50, "{} lines", lines.len());
    let dir = fresh_dir("tiers");
    let prog = dir.join("bad.s");
    std::fs::write(&prog, lines.join("\n") + "\n").unwrap();
    let generated = isa(&["asm", s(&prog)]);
    let bundled = repo("isa-spec");
    let interpreted = isa(&["asm", s(&prog), "--spec", s(&bundled)]);
    assert_eq!(generated.status.code(), Some(1));
    assert_eq!(interpreted.status.code(), Some(1));
    let (g, i) = (stderr(&generated), stderr(&interpreted));
    assert!(g.lines().count() > 50, "{g}");
    for (a, b) in g.lines().zip(i.lines()) {
        assert_eq!(a, b);
    }
    assert_eq!(g, i);
}
