use super::*;

fn sample() -> Object {
    let exit = "EXIT".parse::<isa::Instruction>().unwrap().encode();
    Object {
        text: [exit, exit].iter().flat_map(|w| w.to_le_bytes()).collect(),
        symbols: vec![
            ObjSymbol {
                name: "f".into(),
                binding: Binding::Global,
                value: 0x10,
            },
            ObjSymbol {
                name: "g".into(),
                binding: Binding::Undefined,
                value: 0,
            },
        ],
        relocs: vec![],
    }
}

#[test]
fn names_are_escaped_and_shortened() {
    assert_eq!(escape_name("kernel.L_1$x"), "kernel.L_1$x");
    assert_eq!(escape_name("a\x1b[2Jb\nc\\"), "a\\u{1b}[2Jb\\nc\\\\");
    assert_eq!(escape_name("é\u{202e}"), "\\u{e9}\\u{202e}");
    // A backslash alone is escaped too (it would start an escape a reader undoes), and
    // the quotes `char::escape_default` would escape stay as they are.
    assert_eq!(escape_name("\\"), "\\\\");
    assert_eq!(escape_name("a'\"b\n"), "a'\"b\\n");
    // Cut at the limit even where the name had a multi-byte character there (its
    // escape is cut instead).
    let wide = format!("{}é{}", "x".repeat(SHOWN_NAME_BYTES - 1), "y".repeat(100));
    let s = short_name(&wide);
    assert_eq!(
        s,
        format!(
            "{}\\…[{} bytes]",
            "x".repeat(SHOWN_NAME_BYTES - 1),
            wide.len()
        )
    );
    let long = "x".repeat(5000);
    let s = short_name(&long);
    assert!(s.starts_with(&"x".repeat(SHOWN_NAME_BYTES)));
    assert!(s.ends_with("…[5000 bytes]"), "{s}");
    assert_eq!(short_name("f"), "f");
}

#[test]
fn check_refuses_what_no_reader_could_trust() {
    let refused = |edit: &dyn Fn(&mut Object), want: &str| {
        let mut o = sample();
        edit(&mut o);
        let e = o.check().expect_err(want).to_string();
        assert!(e.contains(want), "{e}");
        assert_eq!(write(&o).expect_err("not written").to_string(), e);
    };
    let reloc = |offset| ObjReloc {
        offset,
        r_type: 1,
        symbol: 1,
        addend: 0,
    };
    refused(&|o| o.symbols[0].name.clear(), "symbol 0 has no name");
    refused(&|o| o.symbols[0].name.push('\0'), "cannot hold NUL");
    refused(
        &|o| o.symbols[0].value = 8,
        "`f` at 0x8 is not at an instruction",
    );
    refused(
        &|o| o.symbols[0].value = 0x30,
        "`f` at 0x30 is not at an instruction",
    );
    refused(
        &|o| o.relocs.push(reloc(u64::MAX - 15)),
        "relocation 0 (at 0xfffffffffffffff0) (`g`): not at an instruction of `.text` (0x20 bytes)",
    );
    refused(&|o| o.relocs.push(reloc(0x18)), "not at an instruction");
    refused(&|o| o.relocs.push(reloc(0x20)), "not at an instruction");
    refused(
        &|o| {
            o.relocs.push(ObjReloc {
                r_type: 0,
                ..reloc(0)
            })
        },
        "relocation 0 (at 0x0): unknown type 0",
    );
    refused(
        &|o| {
            o.relocs.push(ObjReloc {
                symbol: 2,
                ..reloc(0)
            })
        },
        "relocation 0 (at 0x0): no symbol 2",
    );
    refused(
        &|o| o.relocs.extend([reloc(0x10), reloc(0), reloc(0x10)]),
        "relocations 0 and 2 both patch the instruction at 0x10",
    );
    refused(
        &|o| {
            o.symbols.push(ObjSymbol {
                name: "f".into(),
                binding: Binding::Local,
                value: 0,
            })
        },
        "symbols 0 and 2 are both named `f`",
    );
    // A label at the end of `.text` is fine.
    let mut o = sample();
    o.symbols[0].value = 0x20;
    o.check().unwrap();
}

#[test]
fn written_objects_read_back_equal() {
    let mut o = sample();
    o.relocs.push(ObjReloc {
        offset: 0x10,
        r_type: 2,
        symbol: 1,
        addend: -0x40,
    });
    o.symbols.push(ObjSymbol {
        name: "local".into(),
        binding: Binding::Local,
        value: 0,
    });
    let bytes = write(&o).unwrap();
    assert!(is_elf(&bytes));
    let back = read(&bytes).unwrap();
    // The reader lists symbols in table order: locals first.
    assert_eq!(back.symbols[0], o.symbols[2]);
    assert_eq!(back.symbols[1..], o.symbols[..2]);
    assert_eq!(back.relocs[0].symbol, 2);
    assert_eq!(back.relocs[0].addend, -0x40);
    assert_eq!(write(&back).unwrap(), bytes);
}

#[test]
fn reloc_names() {
    assert_eq!(reloc_name(1), "R_ISA_ADDR_REL");
    assert_eq!(reloc_name(2), "R_ISA_ADDR_ABS");
    assert_eq!(reloc_name(3), "R_ISA_ADDR_REL#1");
    assert_eq!(reloc_name(0), "R_ISA_0");
}

/// Relocation entries beyond one per instruction are refused as they are read (many
/// relocation sections can share one table: memory would grow with their product).
#[test]
fn more_relocations_than_instructions() {
    use object::read::elf::{ElfFile64, SectionHeader as _};
    use object::LittleEndian as LE;
    let mut o = sample();
    for offset in [0, 0x10] {
        o.relocs.push(ObjReloc {
            offset,
            r_type: 1,
            symbol: 1,
            addend: 0,
        });
    }
    let mut bytes = write(&o).unwrap();
    let sh_size_at = {
        let file = ElfFile64::<LE>::parse(&*bytes).unwrap();
        let shoff = file.elf_header().e_shoff.get(LE) as usize;
        let (k, rela) = file
            .elf_section_table()
            .iter()
            .enumerate()
            .find(|(_, s)| s.sh_type(LE) == object::elf::SHT_RELA)
            .unwrap();
        assert_eq!(rela.sh_size(LE), 48);
        shoff + 64 * k + 32 // Elf64_Shdr.sh_size
    };
    bytes[sh_size_at..sh_size_at + 8].copy_from_slice(&72u64.to_le_bytes());
    let e = read(&bytes).unwrap_err().to_string();
    assert!(
        e.starts_with("relocation 2 (at ")
            && e.ends_with("more relocations than instructions in `.text`"),
        "{e}"
    );
}

/// A second code section would be left out of every listing and link: refused.
#[test]
fn a_second_code_section_is_refused() {
    use object::read::elf::ElfFile64;
    use object::LittleEndian as LE;
    let mut bytes = write(&sample()).unwrap();
    // Make `.rela.text` an executable SHT_PROGBITS (1) section (sh_type at +4, sh_flags at +8
    // of its Elf64_Shdr).
    let (shoff, index) = {
        let file = ElfFile64::<LE>::parse(&*bytes).unwrap();
        let table = file.elf_section_table();
        let index = table
            .iter()
            .position(|h| table.section_name(LE, h) == Ok(&b".rela.text"[..]))
            .unwrap();
        (file.elf_header().e_shoff.get(LE) as usize, index)
    };
    let at = shoff + 64 * index;
    bytes[at + 4..at + 8].copy_from_slice(&1u32.to_le_bytes());
    let flags: u64 = 0x2 | 0x4; // SHF_ALLOC | SHF_EXECINSTR
    bytes[at + 8..at + 16].copy_from_slice(&flags.to_le_bytes());
    let e = read(&bytes).unwrap_err().to_string();
    assert!(
        e.contains("the object has 2 code sections (`.text`, `.rela.text`)"),
        "{e}"
    );
}

/// The ELF rule binutils and every linker rely on, read from the bytes themselves:
/// `.symtab`'s `sh_info` is one past the last local symbol, and every symbol before it
/// is local, every one from it on is not.
#[test]
fn symtab_info_counts_the_local_symbols() {
    let mut o = sample();
    for name in [".L_a", ".L_b", ".L_c"] {
        o.symbols.push(ObjSymbol {
            name: name.into(),
            binding: Binding::Local,
            value: 0,
        });
    }
    let bytes = write(&o).unwrap();
    let u16_at = |at: usize| u16::from_le_bytes(bytes[at..at + 2].try_into().unwrap());
    let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
    let u64_at = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap());
    let (shoff, shentsize, shnum) = (u64_at(0x28) as usize, u16_at(0x3a), u16_at(0x3c));
    let symtab = (0..usize::from(shnum))
        .map(|k| shoff + k * usize::from(shentsize))
        .find(|&h| u32_at(h + 4) == 2) // SHT_SYMTAB
        .expect("a .symtab");
    let (offset, size, info) = (
        u64_at(symtab + 0x18) as usize,
        u64_at(symtab + 0x20) as usize,
        u32_at(symtab + 0x2c),
    );
    // The null symbol and the three locals.
    assert_eq!(info, 4);
    let binds: Vec<u8> = (0..size / 24)
        .map(|k| bytes[offset + 24 * k + 4] >> 4)
        .collect();
    assert_eq!(binds, [0, 0, 0, 0, 1, 1], "STB_LOCAL = 0, STB_GLOBAL = 1");
    // `.text` (section 1) is SHT_PROGBITS, allocated and executable (SHF_ALLOC |
    // SHF_EXECINSTR = 6: `AX` in readelf).
    let text = shoff + usize::from(shentsize);
    assert_eq!((u32_at(text + 4), u64_at(text + 8)), (1, 6));
    // Defined symbols are in `.text`, the undefined one in none.
    let shndx: Vec<u16> = (0..size / 24)
        .map(|k| u16_at(offset + 24 * k + 6))
        .collect();
    assert_eq!(shndx, [0, 1, 1, 1, 1, 0]);
}

/// Names may add up to more than the file (`.strtab` shares a name's tail with the names
/// it ends in), up to four times its size: such an object reads back whole.
#[test]
fn names_sharing_their_tails_read_back() {
    let mut o = sample();
    for k in 1..=200 {
        o.symbols.push(ObjSymbol {
            name: "a".repeat(k),
            binding: Binding::Local,
            value: 0,
        });
    }
    let bytes = write(&o).unwrap();
    let names: usize = o.symbols.iter().map(|s| s.name.len()).sum();
    assert!(
        names > 2 * bytes.len() && names < 4 * bytes.len(),
        "{names} bytes of names in a file of {}",
        bytes.len()
    );
    let mut read_back = read(&bytes).unwrap();
    read_back.symbols.sort_by_key(|s| s.name.clone());
    o.symbols.sort_by_key(|s| s.name.clone());
    assert_eq!(read_back, o);
}

/// The names may add up to exactly four times the file, not a byte more: a search for
/// an object right at the limit (names `a`, `aa`, … sharing one string, and `EXIT`s to
/// set the file's size), then one more name byte past it.
#[test]
fn names_at_four_times_the_file_are_the_limit() {
    let exit = "EXIT".parse::<isa::Instruction>().unwrap().encode();
    let object = |m: usize, exits: usize| Object {
        text: std::iter::repeat_n(exit, exits)
            .flat_map(|w| w.to_le_bytes())
            .collect(),
        symbols: (1..=m)
            .map(|k| ObjSymbol {
                name: "a".repeat(k),
                binding: Binding::Local,
                value: 0,
            })
            .collect(),
        relocs: vec![],
    };
    let names = |o: &Object| o.symbols.iter().map(|s| s.name.len()).sum::<usize>();
    // An object whose names are `over` bytes more than four times its size.
    let find = |over: usize| {
        (100..2000)
            .find_map(|m| {
                let base = object(m, 1);
                let gap = names(&base).checked_sub(4 * write(&base).unwrap().len() + over)?;
                let o = object(m, 1 + gap / 64);
                (gap % 64 == 0 && names(&o) == 4 * write(&o).unwrap().len() + over).then_some(o)
            })
            .unwrap_or_else(|| panic!("no object {over} bytes past the limit"))
    };
    read(&write(&find(0)).unwrap()).expect("at the limit");
    let e = read(&write(&find(1)).unwrap()).expect_err("a byte past the limit");
    assert!(
        e.to_string()
            .contains("the symbol names add up to more than four times the file's"),
        "{e}"
    );
}
