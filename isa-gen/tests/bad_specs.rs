//! The bad-spec corpus: every `tests/bad-specs/NN-*.isa` file is the valid
//! `00-valid-baseline.isa` with exactly one fault. For each case the checker must
//! report an error at the exact line and column of the fault, with a message naming
//! it, and must not panic (neither while checking nor while rendering).
//!
//! To add a case: copy the baseline, break one thing, and add a row to [`CASES`]
//! (the test fails if a file in the directory has no row, or a row no file).

use std::collections::BTreeSet;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use isa_gen::{Checked, Spec};

const BASELINE: &str = "00-valid-baseline.isa";

/// `(file, line, column, message substring)`: an error must start exactly at
/// `line:column` (1-based, columns in characters) and its message contain the text.
#[rustfmt::skip]
const CASES: &[(&str, usize, usize, &str)] = &[
    ("01-unknown-type.isa", 39, 18, "unknown type `Regs`"),
    ("02-unknown-parent.isa", 36, 21, "unknown parent `ADDX`"),
    ("03-unknown-order-operand.isa", 43, 19, "unknown operand `rc` in `Order`"),
    ("04-unknown-inlist-name.isa", 41, 16, "unknown operand `rx` in `InList`"),
    ("05-unknown-bitwidth-target.isa", 44, 14, "unknown operand `re` in `Bitwidth`"),
    ("06-duplicate-type.isa", 21, 16, "type `DType` is defined twice"),
    ("07-duplicate-opcode.isa", 46, 13, "`ADD_R` is defined twice"),
    ("08-duplicate-enum-value-name.isa", 7, 5, "value `ADD` is listed twice in `Optype`"),
    ("09-duplicate-enum-code.isa", 6, 5, "`MOV` and `ADD` of `Optype` both have code 0x1"),
    ("10-inheritance-cycle.isa", 28, 25, "inheritance cycle: ALU → ARITH → ALU"),
    ("11-self-parent.isa", 26, 25, "inheritance cycle: ARITH → ARITH"),
    ("12-field-beyond-bit-127.isa", 49, 11, "ends at bit 135, beyond bit 127"),
    ("13-overlap-with-inherited-field.isa", 39, 5, "fields `rb` and `rd` of `ADD_R` overlap at bits 20..=23"),
    ("14-field-narrower-than-type.isa", 39, 15, "field `rb` is 4 bits wide but its type `Reg` needs 8"),
    ("15-default-not-in-enum.isa", 34, 32, "`U16` is not a value of `DType`"),
    ("16-fixed-not-in-enum.isa", 33, 34, "`SUB` is not a value of `Optype`"),
    ("17-immediate-default-too-wide.isa", 49, 32, "0x10000 does not fit in `UImm16` (16 bits, unsigned)"),
    ("18-enum-code-too-wide.isa", 14, 11, "code 0x2 of `U64` does not fit in the 1 bits of `DType`"),
    ("19-unknown-asmformat-converter.isa", 54, 22, "unknown AsmFormat converter `CvtIShft`"),
    ("20-ambiguous-opcodes.isa", 36, 13, "opcodes `ADD_R` and `ADD_I` can match the same word"),
    ("21-field-moved-in-child.isa", 40, 5, "field `dtype` is re-declared with a different position, width or type"),
    ("22-missing-angle-bracket.isa", 33, 16, "expected `>`, found `Optype`"),
    ("23-missing-semicolon-field.isa", 39, 24, "expected `;`, found end of line"),
    ("24-missing-semicolon-order.isa", 43, 22, "expected `;`, found end of line"),
    ("25-unterminated-fence.isa", 59, 1, "unterminated code fence"),
    ("26-truncated-file.isa", 49, 22, "expected a field name, found end of line"),
    ("27-empty-file.isa", 1, 1, "empty spec file"),
    ("28-binary-junk.isa", 1, 1, "expected a definition, found character U+0000"),
    ("29-section-outside-definition.isa", 4, 3, "section `__Encoding` outside a definition"),
    ("30-unknown-section.isa", 37, 3, "unknown section `__Encodng`"),
    ("31-opcode-without-fixed-field.isa", 63, 13, "opcode `NOP` has no fixed field"),
    ("32-opcode-without-order.isa", 46, 13, "opcode `ADD_I` has no `Order<…>`"),
    ("33-bitwidth-value-not-in-enum.isa", 44, 33, "`U128` is not a value of `DType`"),
    ("34-exception-unknown-field.isa", 56, 67, "`dtyp` is not a field of this opcode"),
    ("35-crlf-missing-semicolon.isa", 49, 33, "expected `;`, found end of line"),
    ("36-non-ascii-before-fault.isa", 56, 61, "`dtyp` is not a field of this opcode"),
    ("37-unterminated-string.isa", 56, 68, "expected a closing `\"`, found end of line"),
    ("38-field-declared-twice.isa", 40, 22, "field `rb` is declared twice in `ADD_R`"),
    ("39-number-too-large.isa", 39, 11, "expected a number that fits in 128 bits"),
    ("40-type-width-zero.isa", 8, 25, "type width 0 is out of range"),
    ("41-stray-text-at-top-level.isa", 22, 1, "expected a definition, found `ADD`"),
    ("42-invalid-utf8-in-name.isa", 39, 23, "expected `;`, found `\u{fffd}`"),
    ("43-header-missing-colon.isa", 31, 17, "expected `:` or end of line, found `[`"),
    ("44-field-outside-section.isa", 37, 5, "expected a section keyword, found `field`"),
    ("45-bad-register-file.isa", 18, 10, "code 0x100 of `RZ` does not fit in the 8 bits of `Reg`"),
    ("46-optype-exception-unknown-field.isa", 38, 60, "`dtpe` is not a field of this optype"),
    ("47-optype-bitwidth-unknown-field.isa", 38, 26, "`dtpe` is not a field of this optype"),
    ("48-register-file-sharing.isa", 16, 21, "`per-lane`, `per-warp` or end of line"),
];

/// Cases whose one fault is reported as more than one error (each of its lines is
/// wrong); every other case must report exactly one error, not a cascade.
const MULTI_ERROR: &[(&str, usize)] = &[("44-field-outside-section.isa", 2)];

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bad-specs")
}

/// Loads (through the file loader, so invalid UTF-8 is handled as in real use),
/// checks and renders one file; a panic anywhere is returned as an error.
fn check_file(path: &Path) -> Result<(Checked, String), String> {
    catch_unwind(AssertUnwindSafe(|| {
        let spec = Spec::load(&[path]).map_err(|e| format!("cannot load: {e}"))?;
        let checked = spec.check();
        let rendered = checked.render_diagnostics();
        Ok((checked, rendered))
    }))
    .unwrap_or_else(|payload| {
        let msg = payload
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        Err(format!("panicked: {msg}"))
    })
}

/// Every diagnostic's span must lie inside its file, on character boundaries.
fn span_problems(checked: &Checked) -> Vec<String> {
    let mut out = Vec::new();
    for d in &checked.diagnostics.items {
        let text = &checked.sources.get(d.span.file).text;
        let (s, e) = (d.span.start as usize, d.span.end as usize);
        if s > e || e > text.len() || !text.is_char_boundary(s) || !text.is_char_boundary(e) {
            out.push(format!(
                "span {s}..{e} of `{}` is not a valid range of a {}-byte file",
                d.message,
                text.len()
            ));
        }
    }
    out
}

fn short_list(checked: &Checked) -> String {
    checked.diagnostics.render_short(&checked.sources)
}

#[test]
fn baseline_is_valid() {
    let (checked, rendered) = check_file(&dir().join(BASELINE)).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        checked.diagnostics.items.is_empty(),
        "the baseline must check with no errors and no warnings:\n{rendered}"
    );
    assert!(checked.model.is_some());
}

#[test]
fn every_case_file_is_in_the_table() {
    let on_disk: BTreeSet<String> = std::fs::read_dir(dir())
        .expect("tests/bad-specs exists")
        .map(|e| e.expect("readable directory entry").file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .filter(|n| n != BASELINE)
        .collect();
    let in_table: BTreeSet<String> = CASES.iter().map(|c| c.0.to_string()).collect();
    assert_eq!(
        in_table.len(),
        CASES.len(),
        "a file is listed twice in CASES"
    );
    let untested: Vec<_> = on_disk.difference(&in_table).collect();
    let missing: Vec<_> = in_table.difference(&on_disk).collect();
    assert!(
        untested.is_empty() && missing.is_empty(),
        "files without a CASES row: {untested:?}; CASES rows without a file: {missing:?}"
    );
    assert_eq!(on_disk.len(), CASES.len());
}

#[test]
fn bad_specs_report_located_errors() {
    let mut failures = Vec::new();
    for &(file, line, column, needle) in CASES {
        let path = dir().join(file);
        let (checked, rendered) = match check_file(&path) {
            Ok(r) => r,
            Err(e) => {
                failures.push(format!("{file}: {e}"));
                continue;
            }
        };
        let mut problems = span_problems(&checked);
        if !checked.has_errors() {
            problems.push("no error reported".into());
        }
        if checked.model.is_some() {
            problems.push("a model was built despite the fault".into());
        }
        let expected_errors = MULTI_ERROR.iter().find(|m| m.0 == file).map_or(1, |m| m.1);
        let errors = checked.diagnostics.error_count();
        if errors != expected_errors {
            problems.push(format!(
                "{errors} errors, expected {expected_errors} (follow-on errors?)"
            ));
        }
        let hit = checked.diagnostics.errors().any(|d| {
            let loc = d.location(&checked.sources);
            loc.line == line && loc.column == column && d.message.contains(needle)
        });
        if !hit {
            problems.push(format!(
                "no error at {line}:{column} whose message contains {needle:?}"
            ));
        }
        if !problems.is_empty() {
            failures.push(format!(
                "{file}: {}\n--- reported:\n{}--- rendered:\n{rendered}",
                problems.join("; "),
                short_list(&checked)
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} bad-spec cases failed:\n\n{}",
        failures.len(),
        CASES.len(),
        failures.join("\n")
    );
}

/// `udp.isa` checked without `base.isa`: every type it uses is unknown. One error per
/// name, not one per use, and that error shows every use.
#[test]
fn an_unknown_type_is_one_error_however_often_it_is_used() {
    let udp = Path::new(env!("CARGO_MANIFEST_DIR")).join("../isa-spec/udp.isa");
    let (checked, rendered) = check_file(&udp).unwrap_or_else(|e| panic!("{e}"));
    let ureg: Vec<_> = checked
        .diagnostics
        .items
        .iter()
        .filter(|d| d.message == "unknown type `UReg`")
        .collect();
    assert_eq!(ureg.len(), 1, "{rendered}");
    let uses = std::fs::read_to_string(&udp)
        .unwrap()
        .matches("> UReg ")
        .count();
    assert!(uses > 50, "{uses}");
    assert_eq!(ureg[0].other_uses.len(), uses - 1);
    for u in &ureg[0].other_uses {
        assert_eq!(checked.sources.text(*u), "UReg");
    }
    let one = isa_gen::diag::Diagnostics {
        items: vec![ureg[0].clone()],
    }
    .render(&checked.sources);
    assert_eq!(one.matches("also used here").count(), uses - 1, "{one}");
    assert!(
        ureg[0].notes.contains(&format!(
            "used {} more times (one error for all of them)",
            uses - 1
        )),
        "{:?}",
        ureg[0].notes
    );
    let errors = checked
        .diagnostics
        .items
        .iter()
        .filter(|d| d.is_error())
        .count();
    assert!(errors < 40, "{errors} errors:\n{rendered}");
}
