//! `isa disasm --hex`: what a bad word on the command line does to the others.

mod common;

use common::{isa, ok, write};

#[test]
fn a_bad_hex_word_is_reported_and_the_others_still_disassembled() {
    // NOP's word, from the assembler, so the test follows the spec.
    let asm =
        |line: &str| -> String { ok(&isa(&["asm", &write("one.s", line)])).trim().to_string() };
    let nop = asm("NOP\n");
    let exit = asm("EXIT\n");
    let o = isa(&["disasm", "--hex", &nop, "0x+5", &exit, "0x0x5"]);
    assert_eq!(o.status.code(), Some(2), "a bad argument is a usage error");
    let out = String::from_utf8(o.stdout).unwrap();
    let lines: Vec<&str> = out.lines().map(str::trim_end).collect();
    // Each word keeps the address of its place on the command line.
    assert_eq!(lines, ["/*0000*/  NOP ;", "/*0020*/  EXIT ;"]);
    let err = String::from_utf8(o.stderr).unwrap();
    assert_eq!(
        err,
        "isa disasm: word 2 (`0x+5`): not a 128-bit hex word\n\
         isa disasm: word 4 (`0x0x5`): not a 128-bit hex word\n"
    );
}
