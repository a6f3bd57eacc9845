//! `isa disasm --hex`: what a bad word on the command line does to the others.

use std::process::Command;

#[test]
fn a_bad_hex_word_is_reported_and_the_others_still_disassembled() {
    // NOP's word, from the assembler, so the test follows the spec.
    let asm = |line: &str| -> String {
        let dir = std::env::temp_dir().join(format!("isa-disasm-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("one.s");
        std::fs::write(&p, line).unwrap();
        let o = Command::new(env!("CARGO_BIN_EXE_isa"))
            .args(["asm", p.to_str().unwrap()])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8(o.stdout).unwrap().trim().to_string()
    };
    let nop = asm("NOP\n");
    let exit = asm("EXIT\n");
    let o = Command::new(env!("CARGO_BIN_EXE_isa"))
        .args(["disasm", "--hex", &nop, "0x+5", &exit, "0x0x5"])
        .output()
        .unwrap();
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
