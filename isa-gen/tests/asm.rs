//! The interpreting assembler and printer (`isa_gen::asm`) against the bundled spec:
//!
//! - round trips: for every opcode, random legal instructions at random addresses print
//!   and parse back to the same fields and the same word;
//! - a corpus of bad lines, each rejected at an exact column with a message naming the
//!   fault;
//! - whole programs: labels, address prefixes, located errors;
//! - robustness: mutated example lines and arbitrary text never panic, errors point
//!   inside the line, and whatever parses prints and parses back the same.

use std::cell::Cell;
use std::sync::OnceLock;
use std::time::Instant;

use isa_gen::asm::program::{assemble, ProgramError};
use isa_gen::asm::Assembler;
use isa_gen::model::interp::Decoded;
use isa_gen::model::{Model, Role, TypeKind};
use isa_gen::syntax::ast::DocKind;
use isa_gen::Checked;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};

fn checked() -> &'static Checked {
    static C: OnceLock<Checked> = OnceLock::new();
    C.get_or_init(|| {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../isa-spec");
        let c = isa_gen::Spec::load(&[dir]).expect("bundled spec").check();
        assert!(!c.has_errors(), "{}", c.render_diagnostics());
        c
    })
}

fn model() -> &'static Model {
    checked().model.as_ref().expect("model")
}

fn asm() -> Assembler<'static> {
    Assembler::new(model())
}

fn no_labels(_: &str) -> Option<u64> {
    None
}

// -- Round trips ------------------------------------------------------------------------

/// Random legal codes for every field of an opcode: fixed fields their value, enums a
/// defined code, register files a valid register, immediates and constant-memory
/// operands any value of their width. Defaults, the ends of register files and small or
/// extreme immediates come up more often than uniformly, since printing treats them
/// specially (omitted operands, register ranges, negative numbers).
fn instruction(m: &Model, opcode: usize) -> Vec<BoxedStrategy<u128>> {
    m.opcodes[opcode]
        .fields
        .iter()
        .map(|f| {
            let t = m.ty(f.ty);
            if let Role::Fixed(c) = f.role {
                return Just(c).boxed();
            }
            let any_code = match &t.kind {
                TypeKind::Enum(vs) => {
                    proptest::sample::select(vs.iter().map(|v| v.code).collect::<Vec<_>>()).boxed()
                }
                TypeKind::RegFile(r) => {
                    let named: Vec<u128> = r.named.iter().map(|(_, c)| *c).collect();
                    let mut edges = vec![r.lo, r.lo + 1, r.hi.saturating_sub(1), r.hi];
                    edges.extend(&named);
                    edges.retain(|c| r.is_valid(*c));
                    let all: Vec<u128> = (r.lo..=r.hi).chain(named).collect();
                    prop_oneof![
                        3 => proptest::sample::select(all),
                        1 => proptest::sample::select(edges),
                    ]
                    .boxed()
                }
                TypeKind::Immediate { .. } | TypeKind::ConstMem { .. } => {
                    let mask = isa_gen::model::mask(0, t.width);
                    let edges = vec![0, 1, mask, mask >> 1, (mask >> 1) + 1];
                    prop_oneof![
                        2 => any::<u128>().prop_map(move |v| v & mask),
                        1 => (0u128..8).prop_map(move |v| v & mask),
                        1 => proptest::sample::select(edges),
                    ]
                    .boxed()
                }
            };
            match f.default {
                Some(d) => prop_oneof![1 => Just(d), 2 => any_code].boxed(),
                None => any_code,
            }
        })
        .collect()
}

/// How the cases of the round trip went.
#[derive(Default)]
struct Tally {
    round_trips: Cell<usize>,
    rejected_by_exception: Cell<usize>,
}

fn round_trip(
    a: &Assembler,
    opcode: usize,
    values: Vec<u128>,
    addr: u64,
    tally: &Tally,
) -> Result<(), TestCaseError> {
    let m = a.model;
    let op = &m.opcodes[opcode];
    for (i, f) in op.fields.iter().enumerate() {
        prop_assert!(
            m.ty(f.ty).is_valid_code(values[i]),
            "generator made an invalid code"
        );
    }
    let d = Decoded { opcode, values };
    let word = m.encode(&d);
    let decoded = m.decode(word);
    prop_assert_eq!(decoded.as_ref(), Ok(&d), "model decode of {:#034x}", word);
    let text = a.print(&d, addr);
    let raised: Vec<&str> = op
        .exceptions
        .iter()
        .filter(|e| e.cond.eval(&|f| d.values[f]) != 0)
        .map(|e| e.message.as_str())
        .collect();
    match a.parse_line(&text, addr, &no_labels) {
        Ok(back) => {
            prop_assert!(
                raised.is_empty(),
                "`{}` ({}) raises {:?} but assembles",
                text,
                op.name,
                raised
            );
            prop_assert_eq!(
                &back,
                &d,
                "`{}` at {:#x}: printed from {} but parses as {}",
                text,
                addr,
                op.name,
                m.opcodes[back.opcode].name
            );
            prop_assert_eq!(m.encode(&back), word, "`{}`: word differs", text);
            tally.round_trips.set(tally.round_trips.get() + 1);
        }
        Err(e) => {
            prop_assert!(
                !raised.is_empty(),
                "`{}` ({} at {:#x}) does not parse back: col {}: {}",
                text,
                op.name,
                addr,
                e.column(&text),
                e
            );
            prop_assert!(
                raised.iter().any(|r| e.message.contains(r)),
                "`{}` raises {:?}, but the parser says: {}",
                text,
                raised,
                e
            );
            // At the mnemonic, like every exception.
            let mnemonic = match text.strip_prefix('@') {
                Some(_) => text.find(' ').map_or(0, |i| i + 1),
                None => 0,
            };
            prop_assert_eq!(e.column(&text), mnemonic + 1);
            tally
                .rejected_by_exception
                .set(tally.rejected_by_exception.get() + 1);
        }
    }
    Ok(())
}

/// Every opcode, explicitly: ~200 random instructions each at random 16-byte-aligned
/// addresses print and parse back to the identical fields and word.
#[test]
fn print_parse_round_trip_every_opcode() {
    let m = model();
    let a = asm();
    let start = Instant::now();
    let tally = Tally::default();
    for opcode in 0..m.opcodes.len() {
        let mut runner = TestRunner::new(Config {
            cases: 200,
            failure_persistence: None,
            ..Config::default()
        });
        let strategy = (instruction(m, opcode), any::<u64>().prop_map(|a| a & !0xf));
        let result = runner.run(&strategy, |(values, addr)| {
            round_trip(&a, opcode, values, addr, &tally)
        });
        if let Err(e) = result {
            panic!("{}: {e}", m.opcodes[opcode].name);
        }
    }
    let (ok, rejected) = (tally.round_trips.get(), tally.rejected_by_exception.get());
    eprintln!(
        "round trip: {} opcodes, {ok} round trips, {rejected} rejected by `__Exception`, in {:?}",
        m.opcodes.len(),
        start.elapsed()
    );
    assert_eq!(ok + rejected, 200 * m.opcodes.len());
    // BRA_U (`cond` not DIV/CONV) and UMOV_I raise exceptions on some of their codes.
    assert!(rejected > 0, "no case exercised an `__Exception`");
}

/// Exception conditions are exercised, not only present: `BRA_U` without `.DIV`/`.CONV`
/// prints, and the parser rejects the print with the spec's message.
#[test]
fn exception_instructions_are_rejected_with_the_spec_message() {
    let m = model();
    let a = asm();
    let opcode = m.opcode_by_name("BRA_U").expect("BRA_U");
    let mut d = m.default_instruction(opcode);
    let cond = m.opcodes[opcode].field("cond").expect("cond");
    let no_cond = m
        .ty(m.opcodes[opcode].fields[cond].ty)
        .enum_code("NoCond")
        .unwrap();
    d.values[cond] = no_cond;
    let text = a.print(&d, 0);
    assert_eq!(text, "BRA UR0, 0x10");
    let e = a.parse_line(&text, 0, &no_labels).unwrap_err();
    assert_eq!(e.message, "`BRA`: BRA_U should be used with .DIV/.CONV.");
    assert_eq!(e.column(&text), 1);
}

// -- Bad lines ------------------------------------------------------------------------

/// `(line, column, message)`: `parse_line(line, 0, labels)` must fail at exactly this
/// 1-based column (in characters), and the error (message, then notes in parentheses)
/// must contain the text. The only label defined is `.L_x` (at 0x100).
#[rustfmt::skip]
const BAD: &[(&str, usize, &str)] = &[
    // Mnemonic and modifiers.
    ("SHLF.UP P1, R1, R0, R2, R3", 1, "unknown mnemonic `SHLF` (did you mean `SHFL`?)"),
    ("SHFLX P1, R1, R0, R2, R3", 1, "unknown mnemonic `SHFLX` (did you mean `SHFL`?)"),
    ("FROB R1", 1, "unknown mnemonic `FROB`"),
    ("SHFL.UPP P1, R1, R0, R2, R3", 5, "unknown modifier `.UPP` for `SHFL` (did you mean `.UP`?)"),
    ("EXIT.NOW", 5, "unknown modifier `.NOW` for `EXIT`"),
    ("SHFL.UP.UP P1, R1, R0, R2, R3", 8, "modifier `.UP` is given twice"),
    ("SHFL.UP.DOWN P1, R1, R0, R2, R3", 8, "`.DOWN` and `.UP` both set the `.mode` modifier of `SHFL`"),
    ("SHFL P1, R1, R0, R2, R3", 5, "`SHFL` needs its `.mode` modifier: one of .IDX, .UP, .DOWN, .BFLY"),
    ("EXIT, P2", 5, "expected a space between the mnemonic and its operands, found `,`"),
    ("SHFL. P1", 6, "expected a modifier after `.`, found a space"),
    // Operand kinds and counts.
    ("SHFL.UP P1, UR1, R0, R2, R3", 13, "`SHFL.UP` operand 2 (Rd): expected a Reg, found UR1"),
    ("SHFL.UP P1, R1, R0, UR3, R2", 21, "`SHFL.UP` operand 4 (SrcB): expected a Reg or a UImm5, found UR3"),
    ("SHFL.UP pu, R1, R0, R2, R3", 9, "`SHFL.UP` operand 1 (pu): expected a Pred, found pu (`pu` is the operand's name in the spec; write a Pred instead)"),
    ("S2R R1, SR_LANEI", 9, "found SR_LANEI (did you mean `SR_LANEID`?)"),
    ("UIMAD UR0, P0, UR2, UR3, UR4", 12, "`UIMAD` operand 2 or 3 (upu or URa): expected a UPred or a UReg, found P0"),
    ("UIMAD UR0, P0, UR2, UR3", 12, "`UIMAD` operand 3 (URa): expected a UReg, found P0"),
    ("SHFL.UP P1, R1, R0", 19, "`SHFL.UP` operand 4 (SrcB) is missing: expected a Reg or a UImm5"),
    ("SHFL.UP P1, R1, R0, R2, R3, R4", 29, "too many operands: `SHFL.UP` takes 5, found 6"),
    ("NOP R1", 5, "too many operands: `NOP` takes 0, found 1"),
    // Immediates and branch targets.
    ("SHFL.UP P1, R1, R0, 0x20, R3", 21, "`SHFL.UP` operand 4 (SrcB): immediate 0x20 does not fit UImm5 (0x0..=0x1f)"),
    ("UIADD UR0, UR1, 0x100000000", 17, "`UIADD` operand 4 (SrcB): immediate 0x100000000 does not fit SImm32 (-0x80000000..=0x7fffffff, or its 32-bit pattern up to 0xffffffff)"),
    ("UIADD UR0, UR1, -0x80000001", 17, "immediate -0x80000001 does not fit SImm32 (-0x80000000..=0x7fffffff"),
    ("UIADD UR0, UR1, !0x5", 17, "`UIADD` operand 4 (SrcB): an immediate takes no `!` prefix"),
    ("UIADD UR0, UR1, 0x1g", 17, "`0x1g` is not a number"),
    ("BRA 0x1000000000000000000000000000000000", 5, "number `0x1000000000000000000000000000000000` is too large"),
    ("BRA 0x118", 5, "`BRA` operand 2 (offset): branch target 0x118 is not a multiple of 0x10 bytes from the next instruction (0x10)"),
    ("BRA 0x7ffffffffffffffffffff0", 5, "branch target 0x7ffffffffffffffffffff0 is out of range (-0x1ffffffffffff0..=0x20000000000000)"),
    ("BRA -0x7fffffffffffffffffffffffffffffff", 5, "branch target -0x7fffffffffffffffffffffffffffffff is out of range"),
    ("BRA `(.L_nowhere)", 5, "`BRA` operand 2 (offset): undefined label `.L_nowhere`"),
    ("BRA `(.L_x", 5, "unterminated label reference: missing `)`"),
    ("BRA `(.L_x * 0x10)", 7, "expected a label, or a symbol and an addend (`sym+0x20`) in `` `(…) ``, found `.L_x * 0x10`"),
    ("BRA `(.L_x + -0x10)", 7, "expected a label, or a symbol and an addend (`sym+0x20`) in `` `(…) ``, found `.L_x + -0x10`"),
    ("BRA `(.L_x + 0x8000000000000000)", 7, "expected a label, or a symbol and an addend (`sym+0x20`) in `` `(…) ``, found `.L_x + 0x8000000000000000`"),
    ("BRA `(.L_x + 0x18)", 5, "`BRA` operand 2 (offset): branch target 0x118 is not a multiple of 0x10 bytes from the next instruction (0x10)"),
    ("SHFL.UP P1, R1, R0, `(.L_x), R3", 21, "`SHFL.UP` operand 4 (SrcB): a label is only allowed as a branch target"),
    // The spec's `__Exception`: BRA_U needs `.DIV` or `.CONV`.
    ("BRA UR4, 0x100", 1, "`BRA`: BRA_U should be used with .DIV/.CONV. (the spec's IllegalBitFieldValue exception)"),
    ("@P0 BRA.U UR4, 0x100", 5, "`BRA.U`: BRA_U should be used with .DIV/.CONV."),
    // Guards.
    ("@UP0 SHFL.UP P1, R1, R0, R2, R3", 1, "guard of `SHFL.UP`: expected a Pred, found `UP0`"),
    ("@!UP0 EXIT", 1, "guard of `EXIT`: expected a Pred, found `UP0`"),
    ("@P0 UIADD UR0, UR1, UR2", 1, "guard of `UIADD`: expected a UPred, found `P0`"),
    ("@! P0 EXIT", 3, "expected a predicate register after `@!`, found a space"),
    ("@!!P0 EXIT", 3, "expected a predicate register after `@!`, found `!`"),
    ("@P0", 4, "expected a mnemonic, found end of line"),
    // Prefixes and suffixes.
    ("SHFL.UP P1, !R1, R0, R2, R3", 13, "`SHFL.UP` operand 2 (Rd): this operand does not take a `!` prefix"),
    ("SHFL.UP P1, R1, !", 18, "expected an operand after `!`, found end of line"),
    ("UIADD.X UR0, UP0, -UR2, UR4", 19, "`UIADD.X` operand 3 (URa): `-` is not allowed here (with `.X`, write `~` instead of `-`)"),
    ("UIADD UR0, UR1, ~UR2", 17, "`UIADD` operand 4 (SrcB): `~` is not allowed here (without `.X`, write `-` instead of `~`)"),
    ("UR2UP UPR, UR7, 0xFF.B1", 17, "`UR2UP` operand 3 (SbMsk): an immediate takes no `.B1` suffix (`.B1` goes with operand 2 (URa.bsel))"),
    ("UR2UP UPR, UR7.B9, 0xFF", 12, "`UR2UP` operand 2 (URa.bsel): this operand does not take a `.B9` suffix"),
    ("UP2UR UR7.B1, UPR, UR0, 0xFF", 7, "`UP2UR` operand 1 (URd): this operand does not take a `.B1` suffix"),
    // Registers.
    ("MATCH.U64.ALL R0, P0, R2", 23, "`MATCH.U64.ALL` operand 3 (Ra): a 64-bit operand: write the register range R[2:3]"),
    ("MATCH.ANY R0, P0, R[2:3]", 19, "`MATCH.ANY` operand 3 (Ra): R[2:3] is 64 bits but the operand is 32 bits here"),
    ("UMOV.64 UR[0:1], UR[255:256]", 18, "`UMOV.64` operand 2 (SrcA): UR255 does not exist"),
    ("MATCH.ANY R0, P0, R[3:2]", 19, "register range `R[3:2]` is empty or negative"),
    ("SHFL.UP P1, R255, R0, R2, R3", 13, "expected a Reg, found R255 (`R255` does not exist: `Reg` has R0..R254 and RZ)"),
    ("UIADD UR63, UR1, UR2", 7, "`UIADD` operand 1 (URd): expected a UReg, found UR63 (`UR63` does not exist: `UReg` has UR0..UR62 and URZ)"),
    ("GETUGPR UR1, UR[UR2+0x100]", 14, "`GETUGPR` operand 2 (UR[URa+SImm7]): index offset 0x100 does not fit (-0x40..=0x3f)"),
    ("GETUGPR UR1, UR[R2]", 14, "expected a UReg as the index, found `R2`"),
    // An indexed register is printed bare: a symbol written on it would be dropped.
    ("GETUGPR UR1, -UR[UR2+0x3f]", 14, "`GETUGPR` operand 2 (UR[URa+SImm7]): this operand does not take a `-` prefix"),
    ("GETUGPR UR1, UR[UR2+0x3f].B1", 14, "`GETUGPR` operand 2 (UR[URa+SImm7]): this operand does not take a `.B1` suffix"),
    // Constant memory.
    ("ULDC UR0, cmem[0x0][0x160]", 11, "constant memory is written `c[bank][offset]`, not `cmem[…]`"),
    ("ULDC UR0, c[0x0][", 18, "expected a register or an offset, found end of line"),
    ("ULDC UR0, c[0x0][0x160", 23, "expected `]`, found end of line"),
    ("ULDC UR0, c[0x0]", 17, "expected `[` for the offset of `c[…]`, found end of line"),
    ("ULDC UR0, c[][0x160]", 13, "expected a bank number, found `]`"),
    ("ULDC UR0, c[0x20][0x160]", 11, "`ULDC` operand 2 (c[UImm][URa+SImm]): bank 0x20 does not fit in 5 bits"),
    ("ULDC UR0, c[0x0][0x10000]", 11, "`ULDC` operand 2 (c[UImm][URa+SImm]): offset 0x10000 is outside -0x10000..=0xffff"),
    ("ULDC UR0, c[0x0][UR99+0x5]", 11, "expected a UReg in `c[…][…]`, found `UR99`"),
    ("ULDC UR0, c[0x0][UR4 0x5]", 22, "expected `+`, `-` or `]`, found `0`"),
    ("ULDC UR0, c[0x0][UR4+]", 22, "expected an offset, found `]`"),
    // Punctuation and garbage.
    ("SHFL.UP P1, R1 R0, R2, R3", 16, "expected `,` between operands, found `R`"),
    ("SHFL.UP P1, R1, R0, R2, R3,", 27, "stray `,` at the end of the operands"),
    ("SHFL.UP P1, R1, R0, R2, R3, // comment", 27, "stray `,` at the end of the operands"),
    ("SHFL.UP P1, R1, , R0, R2, R3", 17, "empty operand: expected an operand before this `,`"),
    ("SHFL.UP , R1", 9, "empty operand: expected an operand before this `,`"),
    ("SHFL.UP P1, R1, R0, R2#, R3", 23, "expected `,` between operands, found `#`"),
    ("SHFL.UP P1, R1, R0, R2, Ré", 26, "expected `,` between operands, found `é`"),
    ("é", 1, "expected a mnemonic, found `é`"),
    // Nothing to assemble: `parse_line` wants one instruction, so these are errors
    // (`program::assemble` skips such lines before calling it).
    ("", 1, "expected an instruction, found an empty line"),
    ("   ", 4, "expected an instruction, found an empty line"),
    ("  // just a comment", 3, "expected an instruction, found only a comment"),
    (";", 1, "expected an instruction, found an empty statement"),
];

#[test]
fn bad_lines_are_rejected_at_the_right_column() {
    let a = asm();
    let labels = |l: &str| (l == ".L_x").then_some(0x100);
    let mut failures = Vec::new();
    for &(line, column, message) in BAD {
        match a.parse_line(line, 0, &labels) {
            Ok(d) => failures.push(format!(
                "`{line}` assembles as {}: `{}`",
                a.model.opcodes[d.opcode].name,
                a.print(&d, 0)
            )),
            Err(e) => {
                let got = (e.column(line), e.to_string());
                if got.0 != column || !got.1.contains(message) {
                    failures.push(format!(
                        "`{line}`\n    expected {column}: {message}\n    got      {}: {}",
                        got.0, got.1
                    ));
                }
                // Spans stay inside the line and on character boundaries.
                assert!(
                    e.span.start <= e.span.end && e.span.end <= line.len(),
                    "{line}"
                );
                assert!(line.is_char_boundary(e.span.start), "{line}");
            }
        }
    }
    assert!(BAD.len() >= 30);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Lines close to the bad ones that must assemble (so the corpus tests the fault, not
/// the surrounding text), each printed back as written.
#[test]
fn near_misses_assemble() {
    let a = asm();
    let labels = |l: &str| (l == ".L_x").then_some(0x100);
    for (line, printed) in [
        ("SHFL.UP P1, R1, R0, R2, R3", "SHFL.UP P1, R1, R0, R2, R3"),
        (
            "SHFL.UP P1, R1, R0, 0x1f, R3",
            "SHFL.UP P1, R1, R0, 0x1f, R3",
        ),
        (
            "@!P0 SHFL.UP P1, R1, R0, R2, R3 ; // c",
            "@!P0 SHFL.UP P1, R1, R0, R2, R3",
        ),
        ("UIADD UR0, UR1, 0xffffffff", "UIADD UR0, UR1, -0x1"),
        ("UIADD UR0, UR1, -0x80000000", "UIADD UR0, UR1, -0x80000000"),
        ("UIADD.X UR0, UP0, ~UR2, UR4", "UIADD.X UR0, UP0, ~UR2, UR4"),
        ("UIADD UR0, UR1, -UR2", "UIADD UR0, UR1, -UR2"),
        ("BRA 0x110", "BRA 0x110"),
        ("BRA `(.L_x)", "BRA 0x100"),
        // A symbol and an addend, as listings write a relocation.
        ("BRA `(.L_x+0x20)", "BRA 0x120"),
        ("BRA `( .L_x - 16 )", "BRA 0xf0"),
        ("BRA.DIV UR4, 0x100", "BRA.DIV UR4, 0x100"),
        (
            "MATCH.U64.ALL R0, P0, R[2:3]",
            "MATCH.U64.ALL R0, P0, R[2:3]",
        ),
        ("MATCH.ANY R0, P0, R2", "MATCH.ANY R0, P0, R2"),
        ("UMOV.64 UR[0:1], UR[62:63]", "UMOV.64 UR[0:1], UR[62:63]"),
        ("ULDC UR0, c[0x1f][-0x10000]", "ULDC UR0, c[0x1f][-0x10000]"),
        (
            "ULDC UR0, c[0x0][UR4+0xffff]",
            "ULDC UR0, c[0x0][UR4+0xffff]",
        ),
        ("GETUGPR UR1, UR[UR2-0x40]", "GETUGPR UR1, UR[UR2-0x40]"),
        ("UR2UP UPR, UR7.B1, 0xFF", "UR2UP UPR, UR7.B1, 0xff"),
        ("@PT EXIT", "EXIT"),
        ("@!PT EXIT", "@!PT EXIT"),
    ] {
        let d = a
            .parse_line(line, 0, &labels)
            .unwrap_or_else(|e| panic!("`{line}`: col {}: {e}", e.column(line)));
        assert_eq!(a.print(&d, 0), printed, "{line}");
    }
}

// -- Programs -----------------------------------------------------------------------

fn assemble_with(
    a: &Assembler,
    src: &str,
    base: u64,
) -> Result<Vec<(u64, Decoded)>, Vec<ProgramError>> {
    assemble(src, base, |line, addr, labels| {
        a.parse_line(line, addr, labels)
    })
}

/// The encoded branch offset of a `BRA` (the `offset` field, sign-extended).
fn bra_offset(m: &Model, d: &Decoded) -> i128 {
    let op = &m.opcodes[d.opcode];
    let f = op.field("offset").expect("offset");
    let w = op.fields[f].width;
    ((d.values[f] << (128 - w)) as i128) >> (128 - w)
}

#[test]
fn program_labels_resolve_forward_and_backward() {
    let a = asm();
    let m = a.model;
    let src = "\
// a loop that branches back, and forward out of it
/*0000*/ .L_top:
/*0000*/        NOP ;
/*0010*/   @P0  BRA `(.L_end) ;   // forward
/*0020*/        BRA `(.L_top) ;   // backward
/*0030*/        BRA `(.L_self) ;
.L_end:
/*0040*/ .L_self: EXIT ;
";
    let out = assemble_with(&a, src, 0).unwrap_or_else(|e| panic!("{e:?}"));
    let addrs: Vec<u64> = out.iter().map(|(addr, _)| *addr).collect();
    assert_eq!(addrs, [0x0, 0x10, 0x20, 0x30, 0x40]);
    // offset = (target - (pc + 16)) / 16
    assert_eq!(bra_offset(m, &out[1].1), (0x40 - (0x10 + 16)) / 16);
    assert_eq!(bra_offset(m, &out[2].1), (0x00 - (0x20 + 16)) / 16);
    assert_eq!(bra_offset(m, &out[2].1), -3);
    assert_eq!(bra_offset(m, &out[3].1), 0);
    let printed: Vec<String> = out.iter().map(|(addr, d)| a.print(d, *addr)).collect();
    assert_eq!(
        printed,
        ["NOP", "@P0 BRA 0x40", "BRA 0x0", "BRA 0x40", "EXIT"]
    );
    // The same program at another base: the same words (branches are relative).
    let moved = src.replace("/*00", "/*10");
    let out2 = assemble_with(&a, &moved, 0x1000).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(out2[0].0, 0x1000);
    for ((_, d1), (_, d2)) in out.iter().zip(&out2) {
        assert_eq!(m.encode(d1), m.encode(d2));
    }
    // A branch to itself encodes -1.
    let out = assemble_with(&a, ".L_spin: BRA `(.L_spin)", 0x20).unwrap();
    assert_eq!(bra_offset(m, &out[0].1), -1);
}

#[test]
fn program_errors_carry_line_and_column() {
    let a = asm();
    // Every bad line is reported, each at its own line and column.
    let src = "\
NOP
\t.L_a: SHFL.UPP P1, R1, R0, R2, R3   // tab, label, then a bad modifier
/*0020*/ BRA `(.L_missing)
BRA 0x118 ;
";
    let errs = assemble_with(&a, src, 0).unwrap_err();
    let got: Vec<(usize, usize, &str)> = errs
        .iter()
        .map(|e| (e.line, e.column, e.message.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            (
                2,
                12,
                "unknown modifier `.UPP` for `SHFL` (did you mean `.UP`?)"
            ),
            (
                3,
                14,
                "`BRA` operand 2 (offset): undefined label `.L_missing`"
            ),
            (
                4,
                5,
                "`BRA` operand 2 (offset): branch target 0x118 is not a multiple of 0x10 \
                 bytes from the next instruction (0x40)"
            ),
        ]
    );
}

#[test]
fn program_address_prefixes_are_checked() {
    let a = asm();
    assert!(assemble_with(&a, "/*0000*/ NOP\n/*0010*/ EXIT\n", 0).is_ok());
    let errs = assemble_with(&a, "/*0000*/ NOP\n  /*0020*/ EXIT\n", 0).unwrap_err();
    assert_eq!(errs.len(), 1);
    assert_eq!((errs[0].line, errs[0].column), (2, 3));
    assert_eq!(
        errs[0].message,
        "address prefix 0x0020 does not match this instruction's address 0x0010"
    );
    let errs = assemble_with(&a, "/*00g0*/ NOP\n", 0).unwrap_err();
    assert_eq!((errs[0].line, errs[0].column), (1, 1));
    assert_eq!(errs[0].message, "`/*00g0*/` is not a hex address");
    let errs = assemble_with(&a, "NOP\n/*0010 EXIT\n", 0).unwrap_err();
    assert_eq!((errs[0].line, errs[0].column), (2, 1));
    assert_eq!(errs[0].message, "unterminated `/*` address prefix");
    // Prefixes count from the base address.
    assert!(assemble_with(&a, "/*0100*/ NOP\n/*0110*/ NOP\n", 0x100).is_ok());
}

#[test]
fn program_duplicate_labels_are_errors() {
    let a = asm();
    let errs = assemble_with(&a, ".L_a: NOP\n  .L_b: NOP\n  .L_a: EXIT\n", 0).unwrap_err();
    assert_eq!(errs.len(), 1);
    assert_eq!((errs[0].line, errs[0].column), (3, 3));
    assert_eq!(errs[0].message, "label `.L_a` is defined twice");
}

#[test]
fn program_blank_and_comment_lines_take_no_address() {
    let a = asm();
    let src = "\n// only a comment\n   \nNOP ;\n;\n.L: // label alone\nEXIT\n";
    let out = assemble_with(&a, src, 0).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(out.iter().map(|x| x.0).collect::<Vec<_>>(), [0x0, 0x10]);
}

// -- Robustness -----------------------------------------------------------------------

/// The spec's example lines (comments and `;` stripped), as material for mutation.
fn example_lines(m: &Model) -> Vec<String> {
    let mut out = Vec::new();
    for d in &m.defs {
        for s in d.docs.iter().filter(|s| s.kind == DocKind::Examples) {
            for l in s.code_blocks.iter().flat_map(|b| &b.lines) {
                let t = isa_gen::asm::lex::strip_comment(&l.text).trim();
                if !t.is_empty() {
                    out.push(t.to_string());
                }
            }
        }
    }
    out
}

/// Whatever the text, `parse_line` returns (no panic), its error span lies in the line
/// on character boundaries, and what it accepts prints as text that parses back to the
/// same instruction.
fn check_any_line(a: &Assembler, line: &str, addr: u64) -> Result<(), TestCaseError> {
    let labels = |l: &str| (l == ".L_x").then_some(0x100);
    match a.parse_line(line, addr, &labels) {
        Ok(d) => {
            let text = a.print(&d, addr);
            let back = a.parse_line(&text, addr, &no_labels);
            prop_assert_eq!(
                back.as_ref().ok(),
                Some(&d),
                "`{}` printed as `{}`",
                line,
                text
            );
        }
        Err(e) => {
            prop_assert!(
                e.span.start <= e.span.end && e.span.end <= line.len(),
                "{:?}",
                line
            );
            prop_assert!(line.is_char_boundary(e.span.start), "{:?}", line);
            prop_assert!(line.is_char_boundary(e.span.end), "{:?}", line);
            prop_assert!(!e.message.is_empty());
        }
    }
    Ok(())
}

#[test]
fn mutated_example_lines_never_panic() {
    let a = asm();
    let lines = example_lines(a.model);
    let pieces: Vec<&str> = vec![
        "",
        " ",
        ",",
        ".",
        "!",
        "-",
        "~",
        "[",
        "]",
        ":",
        "`(",
        ")",
        "R1",
        "UR2",
        "P0",
        "UP1",
        "PT",
        "URZ",
        "0x10",
        "-0x1",
        "0xffffffffffffffffffffffff",
        "c[0x1][0x10]",
        "c[",
        "R[2:3]",
        "UR[0:1]",
        "UR[UR2+0x1]",
        "`(.L_x)",
        "`(.L_y)",
        ".X",
        ".U32",
        ".B1",
        "@P0 ",
        "@!UP0 ",
        "B0",
        "é",
        "\t",
        "//",
        ";",
    ];
    let strategy = (
        proptest::sample::select(lines),
        proptest::collection::vec(
            (
                any::<prop::sample::Index>(),
                0usize..4,
                proptest::sample::select(pieces),
            ),
            1..4,
        ),
        any::<u64>().prop_map(|a| a & !0xf),
    );
    let mut runner = TestRunner::new(Config {
        cases: 3000,
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(&strategy, |(base, edits, addr)| {
            let mut chars: Vec<char> = base.chars().collect();
            for (at, len, piece) in edits {
                let at = at.index(chars.len() + 1);
                let end = (at + len).min(chars.len());
                chars.splice(at..end, piece.chars());
            }
            let line: String = chars.into_iter().collect();
            check_any_line(&a, &line, addr)
        })
        .unwrap();
}

#[test]
fn arbitrary_text_never_panics() {
    let a = asm();
    let mut runner = TestRunner::new(Config {
        cases: 3000,
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(
            &("[ -~é\t]{0,48}", any::<u64>().prop_map(|a| a & !0xf)),
            |(line, addr)| check_any_line(&a, &line, addr),
        )
        .unwrap();
}

/// Symbol directives' errors point at the name, past any spaces and tabs after the
/// directive, or at the end of the line when there is none.
#[test]
fn directive_errors_point_at_the_name() {
    let at = |text: &str| {
        let e = isa_gen::asm::program::layout(text, 0).unwrap_err();
        (e[0].line, e[0].column, e[0].message.clone())
    };
    assert_eq!(
        at("EXIT\n.global \t  9x\n"),
        (
            2,
            12,
            "`.global` takes one symbol name, found `9x`".to_string()
        )
    );
    assert_eq!(
        at(".extern   a b\n"),
        (
            1,
            11,
            "`.extern` takes one symbol name, found `a b`".to_string()
        )
    );
    assert_eq!(
        at(".globl\n"),
        (1, 7, "`.globl` needs a symbol name".to_string())
    );
    // A good directive's place is its name's too (the CLI's errors about it use it).
    let l = isa_gen::asm::program::layout("EXIT\n  .global \t kernel\n", 0).unwrap();
    let d = &l.directives[0];
    assert_eq!((d.name, d.line, d.column), ("kernel", 2, 13));
}

// -- Forms of one mnemonic --------------------------------------------------------------

/// Two optypes whose opcodes are forms of one mnemonic. `MOVA`'s one `__Syntax` line
/// names its second operand `Ra`, which only `MOVA_R` calls it (`MOVA_U`'s is `URa`).
/// `MOVB_P` wants a register pair where `MOVB_U` wants one register, and their third
/// operands are of different files.
const FORMS_SPEC: &str = r#"
__DefGroup ALL
__DefRegFile Reg<4>
    R 0..14;
    RZ = 15;
__DefRegFile UReg<4>
    UR 0..14;
    URZ = 15;
__DefConstMem KMem<20> bank<4> offset<16>
__DefBitFieldType Op<4>
    MOVA = 1;
    MOVB = 2;
    NEG2 = 3;
    LDK = 4;
    MODS = 5;
    OPT = 6;
    TWO = 7;
    SUF = 8;
    BNOT = 9;
    IMM2 = 10;
    IMM3 = 11;
    PAIR = 12;
__DefBitFieldType Form<2>
    R = 0;
    U = 1;
    T = 2;
__DefBitFieldType Inv<2>
    OFF = 2;
    ON = 3;
__DefBitFieldType Half<1>
    H0 = 0;
    H1 = 1;
__DefBitFieldType Neg<1>
    False = 0;
    True = 1;
__DefBitFieldType Ext<1>
    NoX = 0;
    X = 1;
__DefImmediate U4<4> unsigned
__DefRegFile Pred<2>
    P 0..2;
    PT = 3;
__DefBitFieldType MW<1>
    W0;
    W;
__DefBitFieldType MA<1>
    A0;
    A1;
__DefBitFieldType MB<1>
    B0;
    B1;
__DefBitFieldType MC<1>
    C0;
    C1;
__DefGroup BASE : [ALL]
  __Encoding
    field<120, 4> Op op;
__DefOptype MOVA : [BASE]
  __Encoding
    field<120, 4> Op op == MOVA;
    field<0, 4> Reg Rd;
  __Syntax
```asm
MOVA Rd, Ra
```
__DefOpcode MOVA_R : [MOVA]
  __Encoding
    field<44, 2> Form form == R;
    field<4, 4> Reg Ra;
    field<9, 1> MW w = W0;
  __OperandInfo
    InList<Ra>;
    OutList<Rd>;
    Order<Rd, Ra>;
__DefOpcode MOVA_U : [MOVA]
  __Encoding
    field<44, 2> Form form == U;
    field<4, 4> UReg URa;
  __OperandInfo
    InList<URa>;
    OutList<Rd>;
    Order<Rd, URa>;
__DefOptype MOVB : [BASE]
  __Encoding
    field<120, 4> Op op == MOVB;
    field<0, 4> Reg Rd;
__DefOpcode MOVB_P : [MOVB]
  __Encoding
    field<44, 2> Form form == R;
    field<4, 4> Reg Ra;
    field<12, 4> Reg Rb;
  __OperandInfo
    InList<Ra, Rb>;
    OutList<Rd>;
    Order<Rd, Ra, Rb>;
    Bitwidth<Ra> = 64;
__DefOpcode MOVB_2 : [MOVB]
  __Encoding
    field<44, 2> Form form == T;
    field<4, 4> Reg Ra;
  __OperandInfo
    InList<Ra>;
    OutList<Rd>;
    Order<Rd, Ra>;
    Bitwidth<Ra> = 64;
__DefOpcode MOVB_U : [MOVB]
  __Encoding
    field<44, 2> Form form == U;
    field<4, 4> Reg Ra;
    field<12, 4> UReg URb;
  __OperandInfo
    InList<Ra, URb>;
    OutList<Rd>;
    Order<Rd, Ra, URb>;
__DefOpcode NEG2 : [BASE]
  __Encoding
    field<120, 4> Op op == NEG2;
    field<0, 4> Reg Rd;
    field<4, 4> Reg Ra;
    field<8, 1> Neg Ra.neg = False;
    field<12, 4> Reg Rb;
    field<16, 1> Neg Rb.neg = False;
    field<17, 1> Ext ext = NoX;
  __OperandInfo
    InList<Ra, Rb>;
    OutList<Rd>;
    Order<Rd, Ra, Rb>;
    AsmFormat<Ra.neg> = CvtINegX(Ra.neg, ext);
__DefOptype LDK : [BASE]
  __Encoding
    field<120, 4> Op op == LDK;
    field<0, 4> Reg Rd;
    field<4, 4> Reg Ra;
    field<12, 4> Reg Rb;
    field<20, 20> KMem kb;
    field<46, 1> Half kb.sel = H0;
  __Syntax
```asm
.LDK  Rx, Ry, Rz    // a line of modifiers, not a form
LDK Rdst, c[Bank, Ra + Off], Rsrc
```
__DefOpcode LDK_K : [LDK]
  __OperandInfo
    InList<Ra, Rb, kb>;
    OutList<Rd>;
    Order<Rd, C[kb, Ra], Rb>;
__DefOptype MODS : [BASE]
  __Encoding
    field<120, 4> Op op == MODS;
    field<0, 4> Reg Rd;
    field<4, 1> MA ma = A0;
    field<5, 1> MB mb = B0;
    field<6, 1> MC mc = C0;
  __Syntax
```asm
MODS.ma.mc Rd
MODS.mb.mc Rd
```
__DefOpcode OPT : [BASE]
  __Encoding
    field<120, 4> Op op == OPT;
    field<0, 4> U4 ia = 0;
    field<4, 4> Reg Rd;
  __OperandInfo
    OutList<Rd>;
    Order<ia, Rd>;
__DefOptype TWO : [BASE]
  __Encoding
    field<120, 4> Op op == TWO;
    field<0, 4> Reg Rd;
__DefOpcode TWO_I : [TWO]
  __Encoding
    field<44, 2> Form form == R;
    field<4, 4> U4 ia = 0;
    field<12, 4> Reg Rb;
  __OperandInfo
    InList<Rb>;
    OutList<Rd>;
    Order<Rd, ia, Rb>;
__DefOpcode TWO_P : [TWO]
  __Encoding
    field<44, 2> Form form == U;
    field<4, 2> Pred Pp;
    field<12, 4> Reg Rz;
  __OperandInfo
    InList<Pp, Rz>;
    OutList<Rd>;
    Order<Rd, Pp, Rz>;
__DefOpcode SUF : [BASE]
  __Encoding
    field<120, 4> Op op == SUF;
    field<0, 4> Reg Rd;
    field<4, 4> Reg Ra;
    field<8, 1> Half Ra.sel = H1;
  __OperandInfo
    InList<Ra>;
    OutList<Rd>;
    Order<Rd, Ra>;
__DefOpcode BNOT : [BASE]
  __Encoding
    field<120, 4> Op op == BNOT;
    field<0, 4> Reg Rd;
    field<4, 4> Reg Ra;
    field<8, 2> Inv Ra.bitnot = OFF;
  __OperandInfo
    InList<Ra>;
    OutList<Rd>;
    Order<Rd, Ra>;
__DefOpcode IMM2 : [BASE]
  __Encoding
    field<120, 4> Op op == IMM2;
    field<0, 4> Reg Rd;
    field<4, 4> U4 ia = 0;
    field<8, 4> U4 ib;
  __OperandInfo
    OutList<Rd>;
    Order<Rd, ia, ib>;
__DefOpcode IMM3 : [BASE]
  __Encoding
    field<120, 4> Op op == IMM3;
    field<0, 4> Reg Rd;
    field<4, 4> U4 ia = 0;
    field<8, 4> U4 ib = 0;
  __OperandInfo
    OutList<Rd>;
    Order<Rd, ia, ib>;
__DefOptype PAIR : [BASE]
  __Encoding
    field<120, 4> Op op == PAIR;
    field<0, 4> Reg Rd;
    field<4, 4> Reg Ra;
__DefOpcode PAIR_W : [PAIR]
  __Encoding
    field<44, 2> Form form == R;
  __OperandInfo
    InList<Ra>;
    OutList<Rd>;
    Order<Rd, Ra>;
    Bitwidth<Rd> = 64;
__DefOpcode PAIR_N : [PAIR]
  __Encoding
    field<44, 2> Form form == U;
    field<8, 4> Reg Rb;
  __OperandInfo
    InList<Ra, Rb>;
    OutList<Rd>;
    Order<Rd, Ra, Rb>;
__DefOpcode MODS_R : [MODS]
  __OperandInfo
    OutList<Rd>;
    Order<Rd>;
"#;

fn forms_model() -> &'static Model {
    static M: OnceLock<Model> = OnceLock::new();
    M.get_or_init(|| {
        let c = isa_gen::Spec::from_texts([("forms.isa", FORMS_SPEC)]).check();
        assert!(!c.has_errors(), "{}", c.render_diagnostics());
        c.model.expect("model")
    })
}

fn forms_error(line: &str) -> String {
    match Assembler::new(forms_model()).parse_line(line, 0, &no_labels) {
        Ok(_) => panic!("`{line}` assembles"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn an_operand_is_named_as_the_shared_syntax_line_names_it() {
    // The line the forms share says `Ra`, for the `UReg` form too: one name, not the
    // `Order` name of each form.
    assert_eq!(
        forms_error("MOVA R1"),
        "`MOVA` operand 2 (Ra) is missing: expected a Reg or a UReg"
    );
    assert_eq!(
        forms_error("MOVA R1, P0"),
        "`MOVA` operand 2 (Ra): expected a Reg or a UReg, found P0"
    );
}

#[test]
fn at_equal_reach_the_form_without_a_wrong_value_reports() {
    // Both forms read two operands by kind and stop at `P0`; `MOVB_P` has also found a
    // wrong value (`R3` where it wants a pair) before. The form that met no wrong value
    // is the likelier intent, whichever operand the other's error is at.
    assert_eq!(
        forms_error("MOVB R1, R3, P0"),
        "`MOVB` operand 3 (URb): expected a UReg, found P0"
    );
    assert_eq!(
        forms_error("MOVB R1, R[2:3], P0"),
        "`MOVB` operand 3 (Rb): expected a Reg, found P0"
    );
    // An operand error, even at the first operand, outranks a modifier that another
    // form does not have (`.W` is `MOVA_R`'s only).
    assert_eq!(
        forms_error("MOVA.W P0, R1"),
        "`MOVA.W` operand 1 (Rd): expected a Reg, found P0"
    );
    // A wrong value at the first operand, in the form that reads furthest.
    assert_eq!(
        forms_error("MOVB R[2:3], R3, R4"),
        "`MOVB` operand 1 (Rd): R[2:3] is 64 bits but the operand is 32 bits here"
    );
    // A form that takes the whole line, with a wrong value, outranks one that misses
    // an operand after it (`MOVB_2` against `MOVB_U`'s missing `URb`).
    assert_eq!(
        forms_error("MOVB R1, R3"),
        "`MOVB` operand 2 (Ra): a 64-bit operand: write the register range R[3:4]"
    );
    // Reach first, then the operand: the form that takes the whole line with a wrong
    // first operand outranks one that stops two operands later.
    assert_eq!(
        forms_error("PAIR R1, R2"),
        "`PAIR` operand 1 (Rd): a 64-bit operand: write the register range R[1:2]"
    );
    // With a wrong value and no form reaching further, the wrong value is reported.
    assert_eq!(
        forms_error("MOVB R1, R3, R4"),
        "`MOVB` operand 2 (Ra): a 64-bit operand: write the register range R[3:4]"
    );
}

/// A register-indexed operand prints its offset with its sign, and none at zero.
#[test]
fn register_indexed_offsets_print_with_their_sign() {
    let a = asm();
    for line in [
        "GETUGPR UR1, UR[UR2+0x1]",
        "GETUGPR UR1, UR[UR2-0x40]",
        "GETUGPR UR1, UR[UR2]",
        "SETUGPR UR[UR3-0x1], UR1",
    ] {
        let d = a.parse_line(line, 0, &no_labels).unwrap();
        assert_eq!(a.print(&d, 0), line);
    }
}

/// `print_with` writes what each option says (the generated tier's `display_with` is
/// held to the same text by the root crate's `tests/format.rs`), and every text parses
/// back to the instruction.
#[test]
fn print_options_write_what_they_say() {
    use isa_gen::asm::FormatOptions;
    let a = asm();
    let symbol = |x: u64| (x == 0x110).then_some(".L_x");
    let plain = FormatOptions::default();
    let decimal = FormatOptions {
        decimal: true,
        ..plain
    };
    let defaults = FormatOptions {
        show_defaults: true,
        ..plain
    };
    let symbols = FormatOptions {
        symbols: Some(&symbol),
        ..plain
    };
    #[rustfmt::skip]
    let cases: &[(&str, [&str; 4])] = &[
        // (line, [plain, decimal, defaults shown, symbols])
        ("BRA 0x110", ["BRA 0x110", "BRA 272", "BRA.NoCond 0x110", "BRA `(.L_x)"]),
        ("BRA 0x120", ["BRA 0x120", "BRA 288", "BRA.NoCond 0x120", "BRA 0x120"]),
        ("LEPC R[4:5], 0x80", ["LEPC R[4:5], 0x80", "LEPC R[4:5], 128", "LEPC R[4:5], 0x80", "LEPC R[4:5], 0x80"]),
        ("BMOV R5, B11", ["BMOV R5, B11", "BMOV R5, B11", "BMOV.NoClear R5, B11", "BMOV R5, B11"]),
        ("WARPSYNC 0xffffffff", ["WARPSYNC 0xffffffff", "WARPSYNC 4294967295", "WARPSYNC 0xffffffff", "WARPSYNC 0xffffffff"]),
    ];
    let labels = |l: &str| (l == ".L_x").then_some(0x110);
    for (line, want) in cases {
        let d = a.parse_line(line, 0, &no_labels).unwrap();
        for (opts, want) in [plain, decimal, defaults, symbols].iter().zip(want) {
            let text = a.print_with(&d, 0, opts);
            assert_eq!(&text, want, "`{line}`");
            let back = a.parse_line(&text, 0, &labels).unwrap();
            assert_eq!(back, d, "`{text}` parses back");
        }
        assert_eq!(a.print(&d, 0), want[0]);
    }
}

/// A syntax line names the operands even when one holds a comma inside its brackets;
/// a line starting with `.` is not a form.
#[test]
fn operand_names_come_from_a_syntax_line_with_bracketed_commas() {
    assert_eq!(
        forms_error("LDK R1, c[0x1][R2+0x4], P0"),
        "`LDK` operand 3 (Rsrc): expected a Reg, found P0"
    );
    assert_eq!(
        forms_error("LDK P1, c[0x1][R2+0x4], R3"),
        "`LDK` operand 1 (Rdst): expected a Reg, found P1"
    );
}

/// Modifiers print in the order the syntax lines give, merged: `.ma.mc` and `.mb.mc`
/// put `mb` before `mc`, after `ma`.
#[test]
fn modifiers_print_in_the_order_of_the_syntax_lines() {
    let a = Assembler::new(forms_model());
    for (line, printed) in [
        ("MODS.C1.B1.A1 R1", "MODS.A1.B1.C1 R1"),
        ("MODS.C1.B1 R1", "MODS.B1.C1 R1"),
        ("MODS.B1.A1 R1", "MODS.A1.B1 R1"),
        ("MODS.A0.B0.C0 R1", "MODS R1"),
    ] {
        let d = a.parse_line(line, 0, &no_labels).unwrap();
        assert_eq!(a.print(&d, 0), printed);
    }
}

/// Forms failing equally far merge what they expected only when they failed at the
/// same operands on the same token: `TWO_I` (an optional `ia` skipped) and `TWO_P` stop
/// at the same reach, at other operands or on other tokens.
#[test]
fn equal_failures_merge_only_at_the_same_operands_and_token() {
    // `TWO_P` fails at operand 3 alone, on the second `P0`.
    assert_eq!(
        forms_error("TWO R1, P0, P0"),
        "`TWO` operand 2 or 3 (ia or Rb): expected a U4 or a Reg, found P0"
    );
    // `TWO_P` misses operand 3; `TWO_I` found `P0` there.
    assert_eq!(
        forms_error("TWO R1, P0"),
        "`TWO` operand 3 (Rb): expected a Reg, found P0"
    );
}

/// Tokens left over when the line has no more tokens than the form has operands: not
/// too many, but an optional operand that did not take the token meant for it (here
/// merged with `TWO_P`, which failed at the same operand on the same token).
#[test]
fn a_skipped_optional_operand_is_blamed_when_the_count_fits() {
    assert_eq!(
        forms_error("TWO R1, R2, R3"),
        "`TWO` operand 2 (ia or Pp): expected a U4 or a Pred, found R2"
    );
    // More tokens than operands, where the last optional operand did not take its
    // token: that operand is blamed (`ib`, left out at `R2` after `ia`).
    assert_eq!(
        forms_error("IMM3 R1, R2, R3, R4"),
        "`IMM3` operand 3 (ib): expected a U4, found R2"
    );
    // More tokens than operands: too many.
    assert_eq!(
        forms_error("TWO R1, R2, R3, R4"),
        "too many operands: `TWO` takes at most 3, found 4"
    );
}

/// A suffix sub-field not written takes its default (`.H1` here), which then prints
/// as nothing; another value prints.
#[test]
fn an_unwritten_suffix_takes_its_default() {
    let a = Assembler::new(forms_model());
    let op = forms_model()
        .opcodes
        .iter()
        .position(|o| o.name == "SUF")
        .unwrap();
    let sel = forms_model().opcodes[op]
        .fields
        .iter()
        .position(|f| f.name == "Ra.sel")
        .unwrap();
    for (line, code, printed) in [
        ("SUF R1, R2", 1, "SUF R1, R2"),
        ("SUF R1, R2.H1", 1, "SUF R1, R2"),
        ("SUF R1, R2.H0", 0, "SUF R1, R2.H0"),
    ] {
        let d = a.parse_line(line, 0, &no_labels).unwrap();
        assert_eq!(d.values[sel], code, "`{line}`");
        assert_eq!(a.print(&d, 0), printed);
    }
}

/// A suffix on an operand that takes none names the operand it belongs to, if any.
#[test]
fn a_misplaced_suffix_names_its_operand() {
    assert_eq!(
        forms_error("SUF R1.H0, R2"),
        "`SUF` operand 1 (Rd): this operand does not take a `.H0` suffix (`.H0` goes with operand 2 (Ra))"
    );
    assert_eq!(
        forms_error("SUF R1.W, R2"),
        "`SUF` operand 1 (Rd): this operand does not take a `.W` suffix"
    );
    // The suffix of a constant-memory operand belongs to it.
    assert_eq!(
        forms_error("LDK R1.H1, c[0x1][R2+0x4], R3"),
        "`LDK` operand 1 (Rdst): this operand does not take a `.H1` suffix (`.H1` goes with operand 2 (c[Bank, Ra + Off]))"
    );
    let a = Assembler::new(forms_model());
    let d = a
        .parse_line("LDK R1, c[0x1][R2+0x4].H1, R3", 0, &no_labels)
        .unwrap();
    assert_eq!(a.print(&d, 0), "LDK R1, c[0x1][R2+0x4].H1, R3");
    assert_eq!(
        forms_error("OPT 0x1.H0, R2"),
        "`OPT` operand 1 (ia): an immediate takes no `.H0` suffix"
    );
}

/// A symbol sub-field whose two codes are 2 and 3: `~` written sets 3, not written 2.
#[test]
fn a_symbol_sub_field_takes_its_type_s_codes() {
    let a = Assembler::new(forms_model());
    for (line, code) in [("BNOT R1, R2", 2), ("BNOT R1, ~R2", 3)] {
        let d = a.parse_line(line, 0, &no_labels).unwrap();
        let op = &forms_model().opcodes[d.opcode];
        let k = op
            .fields
            .iter()
            .position(|f| f.name == "Ra.bitnot")
            .unwrap();
        assert_eq!(d.values[k], code, "`{line}`");
        assert_eq!(a.print(&d, 0), line);
    }
}

/// An operand at its default is left out unless the parser would then read the next
/// printed operand as it: not when the tokens left are all needed by required
/// operands (`IMM2`'s `ib`), but when an optional one follows (`IMM3`).
#[test]
fn a_default_operand_is_left_out_unless_the_next_would_be_read_as_it() {
    let a = Assembler::new(forms_model());
    for (line, printed) in [
        ("IMM2 R1, 0x0, 0x5", "IMM2 R1, 0x5"),
        ("IMM2 R1, 0x3, 0x5", "IMM2 R1, 0x3, 0x5"),
        ("IMM3 R1, 0x0, 0x5", "IMM3 R1, 0x0, 0x5"),
        ("IMM3 R1, 0x0, 0x0", "IMM3 R1"),
        ("IMM3 R1, 0x3, 0x0", "IMM3 R1, 0x3"),
    ] {
        let d = a.parse_line(line, 0, &no_labels).unwrap();
        assert_eq!(a.print(&d, 0), printed, "`{line}`");
        assert_eq!(a.parse_line(printed, 0, &no_labels).unwrap(), d);
    }
}

/// "too many operands" says "at most" when some operand may be left out, whichever.
#[test]
fn too_many_operands_says_at_most_when_some_are_optional() {
    assert_eq!(
        forms_error("OPT 0x1, R1, R2"),
        "too many operands: `OPT` takes at most 2, found 3"
    );
    assert_eq!(
        forms_error("MOVA R1, R2, R3"),
        "too many operands: `MOVA` takes 2, found 3"
    );
}

/// `CvtINegX(Ra.neg, ext)` makes `Ra`'s `-` a `~` under `.X`; `Rb.neg`, with no
/// converter, stays `-` whatever `ext` is.
#[test]
fn a_converter_applies_to_its_own_sub_field_only() {
    let a = Assembler::new(forms_model());
    for (line, ra, rb) in [
        ("NEG2.X R1, ~R2, -R3", 1, 1),
        ("NEG2.X R1, R2, -R3", 0, 1),
        ("NEG2 R1, -R2, -R3", 1, 1),
    ] {
        let d = a.parse_line(line, 0, &no_labels).unwrap();
        let op = &forms_model().opcodes[d.opcode];
        let value = |name: &str| d.values[op.fields.iter().position(|f| f.name == name).unwrap()];
        assert_eq!((value("Ra.neg"), value("Rb.neg")), (ra, rb), "`{line}`");
        assert_eq!(a.print(&d, 0), line);
    }
    assert_eq!(
        forms_error("NEG2.X R1, R2, ~R3"),
        "`NEG2.X` operand 3 (Rb): this operand does not take a `~` prefix"
    );
}

/// A name that is not a value: the values it begins (up to four), else the nearest;
/// no other note (it is no numbered register of any file).
#[test]
fn a_wrong_value_name_gets_the_values_it_begins_or_the_nearest() {
    let a = asm();
    let error = |line: &str| a.parse_line(line, 0, &no_labels).unwrap_err().to_string();
    let expected =
        "`S2R` operand 2 (SRa): expected a SReg (SR_LANEID, SR_EQMASK, SR_LTMASK, SR_LEMASK, …)";
    assert_eq!(
        error("S2R R1, SR_C"),
        format!("{expected}, found SR_C (did you mean `SR_CTAID.X`, `SR_CTAID.Y`, `SR_CTAID.Z` or `SR_CLOCKLO`?)")
    );
    assert_eq!(
        error("S2R R1, SR_CLOCK"),
        format!("{expected}, found SR_CLOCK (did you mean `SR_CLOCKLO` or `SR_CLOCKHI`?)")
    );
    assert_eq!(
        error("S2R R1, SR_GLOBALTIMEX"),
        format!("{expected}, found SR_GLOBALTIMEX (did you mean `SR_GLOBALTIMEHI` or `SR_GLOBALTIMELO`?)")
    );
}

/// A label is an address: it is accepted where the spec's `__DefFlow` makes an
/// immediate a branch target (relative or absolute), refused on an immediate it names
/// as no address (vec's scaled `SLD_S` displacement).
#[test]
fn labels_only_where_the_flow_facts_make_an_address() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/specs/vec");
    let c = isa_gen::Spec::load(&[dir]).expect("vec spec").check();
    assert!(!c.has_errors(), "{}", c.render_diagnostics());
    let m = c.model.as_ref().unwrap();
    let a = Assembler::new(m);
    let labels = |l: &str| (l == ".L_x").then_some(0x100);
    for line in ["JMP `(.L_x)", "CALLX `(.L_x)"] {
        let d = a.parse_line(line, 0, &labels).unwrap();
        assert_eq!(a.print(&d, 0), line.replace("`(.L_x)", "0x100"));
    }
    let e = a.parse_line("SLD S1, S2, `(.L_x)", 0, &labels).unwrap_err();
    assert_eq!(
        e.to_string(),
        "`SLD` operand 3 (disp): a label is only allowed as a branch target"
    );
    // Scaled immediates, addresses and branch targets: the multiple, then the range.
    #[rustfmt::skip]
    let bad = [
        ("SLD S1, S2, 0x6", "`SLD` operand 3 (disp): immediate 0x6 is not a multiple of 0x4"),
        ("SLD S1, S2, 0x800", "`SLD` operand 3 (disp): immediate 0x800 is out of range (-0x800..=0x7fc)"),
        ("SLD S1, S2, -0x804", "`SLD` operand 3 (disp): immediate -0x804 is out of range (-0x800..=0x7fc)"),
        ("CALLX 0x3", "`CALLX` operand 1 (dest): address 0x3 is not a multiple of 0x10"),
        ("CALLX 0x1000000", "`CALLX` operand 1 (dest): address 0x1000000 is out of range (0x0..=0xfffff0)"),
        ("JMP 0x3", "`JMP` operand 1 (target): branch target 0x3 is not a multiple of 0x10 bytes from the next instruction (0x10)"),
        ("JMP 0x10000000000", "`JMP` operand 1 (target): branch target 0x10000000000 is out of range (-0x7fffff0..=0x8000000)"),
    ];
    for (line, message) in bad {
        let e = a.parse_line(line, 0, &labels).unwrap_err();
        assert_eq!(e.to_string(), message);
    }
    // An operand word is its name, exactly, with no prefix.
    #[rustfmt::skip]
    let words = [
        ("ACCMAC !FLAGS, ACC3, V1", "`ACCMAC` operand 1 (acc or FLAGS): expected a AccReg or `FLAGS`, found !FLAGS"),
        ("ACCMAC FLAG, ACC3, V1", "`ACCMAC` operand 1 (acc or FLAGS): expected a AccReg or `FLAGS`, found FLAG"),
    ];
    for (line, message) in words {
        let e = a.parse_line(line, 0, &labels).unwrap_err();
        assert_eq!(e.to_string(), message);
    }
    for line in [
        "SLD S1, S2, -0x800",
        "SLD S1, S2, 0x7fc",
        "CALLX 0xfffff0",
        "ACCMAC FLAGS, ACC3, V1",
    ] {
        let d = a.parse_line(line, 0, &labels).unwrap();
        assert_eq!(a.print(&d, 0), line);
    }
}

/// `Assembler::mnemonics` lists every opcode's mnemonic once, sorted (what a completion
/// offers), and each of them reads a line of that mnemonic: none is unknown.
#[test]
fn the_mnemonics_are_every_opcodes_once_and_sorted() {
    let a = asm();
    let m = a.mnemonics();
    assert!(m.windows(2).all(|w| w[0] < w[1]), "sorted, no repeats");
    let all: std::collections::BTreeSet<String> = (0..model().opcodes.len())
        .map(|i| isa_gen::asm::mnemonic(model(), i))
        .collect();
    assert_eq!(m, all.iter().map(String::as_str).collect::<Vec<_>>());
    for name in m {
        if let Err(e) = a.parse_line(name, 0, &no_labels) {
            assert!(
                !e.message.starts_with("unknown mnemonic"),
                "{name}: {}",
                e.message
            );
        }
    }
}
