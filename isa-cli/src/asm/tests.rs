use super::*;

/// Assembles a source held in memory with the bundled spec; see [`assemble_file`].
fn assemble(name: &str, src: &str) -> Result<Vec<u128>, Vec<String>> {
    assemble_file(
        &Codec::Bundled,
        name,
        &TextFile::from_bytes(src.as_bytes()),
        false,
    )
    .map(|p| p.words.into_iter().map(|(_, w)| w).collect())
}

/// Disassembles raw records with the bundled spec.
fn disassemble(bytes: &[u8], base: u64) -> (String, Vec<String>) {
    Listing::raw(bytes, base).text(&Codec::Bundled)
}

#[test]
fn program_round_trips_through_binary() {
    let src = ".L_top:\n  S2R R1, SR_LANEID ;\n  @P0 BRA `(.L_top)\n  EXIT ;\n";
    let words = assemble("t.s", src).unwrap();
    assert_eq!(words.len(), 3);
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let (text, problems) = disassemble(&bytes, 0);
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(
        text,
        "/*0000*/  S2R R1, SR_LANEID ;\n/*0010*/  @P0 BRA 0x0 ;\n/*0020*/  EXIT ;\n"
    );
    // The disassembly assembles back to the same words.
    assert_eq!(assemble("t.s", &text).unwrap(), words);
}

#[test]
fn bad_words_and_trailing_bytes_are_reported_and_kept() {
    let mut bytes = vec![0u8; 16];
    bytes.extend([1, 2, 3]);
    let (text, problems) = disassemble(&bytes, 0x100);
    assert_eq!(problems.len(), 2);
    assert!(
        problems[0].starts_with("offset 0x0: no opcode matches"),
        "{}",
        problems[0]
    );
    assert!(
        problems[1].starts_with("offset 0x10: 3 trailing bytes"),
        "{}",
        problems[1]
    );
    assert!(text.starts_with("/*0100*/  .word 0x00000000000000000000000000000000 ;"));
    // The `.word` line assembles back to the same word.
    assert_eq!(
        assemble("t.s", text.lines().next().unwrap()).unwrap(),
        vec![0]
    );
}

#[test]
fn invalid_utf8_is_an_error_where_it_is_and_other_lines_are_still_checked() {
    let file = TextFile::from_bytes(b"NOP // caf\xe9\nEX\xffIT ;\nBOGUS R1 ;\nEXIT ;\n");
    let errs = assemble_file(&Codec::Bundled, "p.s", &file, false).unwrap_err();
    assert_eq!(errs.len(), 2, "{errs:?}");
    assert_eq!(errs[0], "p.s:2:3: error: not UTF-8 text (byte 0xff)");
    assert!(errs[1].starts_with("p.s:3:1: error: "), "{}", errs[1]);
    // Invalid bytes in a comment are harmless.
    let file = TextFile::from_bytes(b"NOP // caf\xe9\nEXIT ;\n");
    assert_eq!(
        assemble_file(&Codec::Bundled, "p.s", &file, false)
            .unwrap()
            .words
            .len(),
        2
    );
}

#[test]
fn errors_name_file_line_and_column() {
    let errs = assemble("p.s", "NOP\n  SHFL.UP P1, R1, R0, UR3, R2\n").unwrap_err();
    assert_eq!(errs.len(), 1);
    assert!(
        errs[0].starts_with(
            "p.s:2:23: error: `SHFL.UP` operand 4 (SrcB): expected a Reg or a UImm5, found UR3"
        ),
        "{}",
        errs[0]
    );
}

#[test]
fn word_takes_one_hex_number_and_nothing_else() {
    let none = |_: &str| None;
    assert_eq!(assemble_line(".word 0x1_f", 0, &none).unwrap(), 0x1f);
    for bad in ["0x+1f", "0x0x1f", "0x", "1f", "-0x1", "0x1 0x2"] {
        let e = assemble_line(&format!(".word {bad}"), 0, &none).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("`.word` takes one hex number such as 0x1f, found `{bad}`"),
        );
    }
}
