//! The ELF side: one writer and one reader, both with the `object` crate.

use std::collections::HashMap;

use object::elf;
use object::read::elf::{ElfFile64, FileHeader as _, Rela as _, SectionHeader as _, Sym as _};
use object::write::elf::{FileHeader, Rel, SectionHeader, Sym, Writer};
use object::{Endianness, LittleEndian as LE, Object as _, ObjectSection as _};

use crate::{Binding, Error, ObjReloc, ObjSymbol, Object, INST};

/// `e_machine` of our objects: not a registered machine (those stop well below 1024),
/// so tools show it as unknown rather than mistaking it for another ISA. `0x4953` is
/// "IS" in ASCII.
pub const EM_ISA: u16 = 0x4953;

/// Whether the bytes start like an ELF file.
pub fn is_elf(bytes: &[u8]) -> bool {
    bytes.starts_with(&elf::ELFMAG)
}

/// Writes an ELF64 relocatable object: `.text`, `.symtab` (local labels first, then
/// global labels and undefined symbols), `.rela.text`, `.strtab`, `.shstrtab`. The
/// object is [checked](Object::check) first: nothing is written that [`read`] refuses.
pub fn write(obj: &Object) -> Result<Vec<u8>, Error> {
    obj.check()?;
    let err = |e: object::write::Error| Error::new(e.to_string());
    let mut buf = Vec::new();
    let mut w = Writer::new(Endianness::Little, true, &mut buf);
    // Local symbols must come before the others in the symbol table.
    let mut order: Vec<usize> = (0..obj.symbols.len()).collect();
    order.sort_by_key(|&i| obj.symbols[i].binding != Binding::Local);
    let num_local = 1 + obj
        .symbols
        .iter()
        .filter(|s| s.binding == Binding::Local)
        .count() as u32;

    // Phase 1: reserve.
    w.reserve_file_header();
    let text_name = w.add_section_name(b".text");
    let rela_name = w.add_section_name(b".rela.text");
    let text_index = w.reserve_section_index();
    let text_offset = w.reserve(obj.text.len() as u64, INST);
    let names: Vec<_> = order
        .iter()
        .map(|&i| w.add_string(obj.symbols[i].name.as_bytes()))
        .collect();
    w.reserve_null_symbol_index();
    let mut sym_index = vec![0u32; obj.symbols.len()];
    for &i in &order {
        // The section only matters past SHN_LORESERVE (an extended index table);
        // `.text` is section 1.
        sym_index[i] = w.reserve_symbol_index(None).0;
    }
    let symtab_index = w.reserve_symtab_section_index();
    w.reserve_symtab();
    w.reserve_section_index(); // .rela.text
    let rela_offset = w.reserve_relocations(obj.relocs.len(), true);
    w.reserve_strtab_section_index();
    w.reserve_strtab().map_err(err)?;
    w.reserve_shstrtab_section_index();
    w.reserve_shstrtab().map_err(err)?;
    w.reserve_section_headers();

    // Phase 2: write, in the same order.
    w.write_file_header(&FileHeader {
        os_abi: elf::ELFOSABI_NONE,
        abi_version: 0,
        e_type: elf::ET_REL,
        e_machine: elf::Machine(EM_ISA),
        e_entry: 0,
        e_flags: elf::FileFlags(0),
    })
    .map_err(err)?;
    w.write_align(INST);
    w.write(&obj.text);
    w.write_null_symbol();
    for (k, &i) in order.iter().enumerate() {
        let s = &obj.symbols[i];
        let (bind, section, shndx) = match s.binding {
            Binding::Local => (elf::STB_LOCAL, Some(text_index.0), elf::SymbolSection(0)),
            Binding::Global => (elf::STB_GLOBAL, Some(text_index.0), elf::SymbolSection(0)),
            Binding::Undefined => (elf::STB_GLOBAL, None, elf::SHN_UNDEF),
        };
        w.write_symbol(&Sym {
            section,
            st_name: w.string_offset(Some(names[k])),
            st_info: elf::SymbolInfo::new(bind, elf::STT_NOTYPE),
            st_other: elf::STV_DEFAULT.into(),
            st_shndx: shndx,
            st_value: s.value,
            st_size: 0,
        });
    }
    w.write_align_relocation();
    for r in &obj.relocs {
        w.write_relocation(
            true,
            &Rel {
                r_offset: r.offset,
                r_sym: sym_index[r.symbol],
                r_type: elf::RelocationType(r.r_type),
                r_addend: r.addend,
            },
        );
    }
    w.write_strtab();
    w.write_shstrtab();
    w.write_null_section_header();
    w.write_section_header(&SectionHeader {
        sh_name: w.section_name_offset(Some(text_name)),
        sh_type: elf::SHT_PROGBITS,
        sh_flags: elf::SHF_ALLOC | elf::SHF_EXECINSTR,
        sh_addr: 0,
        sh_offset: text_offset,
        sh_size: obj.text.len() as u64,
        sh_link: 0,
        sh_info: 0,
        sh_addralign: INST,
        sh_entsize: 0,
    });
    w.write_symtab_section_header(num_local);
    w.write_relocation_section_header(
        rela_name,
        text_index,
        symtab_index,
        rela_offset,
        obj.relocs.len(),
        true,
    );
    w.write_strtab_section_header();
    w.write_shstrtab_section_header();
    Ok(buf)
}

/// Reads an object [`write()`] made (or any ELF64 little-endian relocatable object for
/// this ISA with a `.text`), and [checks](Object::check) it. Every offset, size and
/// index is checked before it is used, and the names of all symbols together may not
/// exceed four times the file's size (a string table can give many symbols one long
/// name), so memory stays proportional to the input. The error says what is wrong
/// and where.
pub fn read(bytes: &[u8]) -> Result<Object, Error> {
    let file = ElfFile64::<LE>::parse(bytes)
        .map_err(|e| Error::new(format!("not an ELF64 little-endian object: {e}")))?;
    let header = file.elf_header();
    let machine = header.e_machine(LE).0;
    if machine != EM_ISA {
        return Err(Error::new(format!(
            "an object for another machine (e_machine {machine:#x}; this ISA's is {EM_ISA:#x})"
        )));
    }
    if header.e_type(LE) != elf::ET_REL {
        return Err(Error::new(
            "not a relocatable object (e_type is not ET_REL)",
        ));
    }
    // One code section: a second one (another `.text`, any executable section) would
    // be left out of every listing and link, silently.
    let code: Vec<_> = file
        .sections()
        .filter(|s| s.name() == Ok(".text") || s.kind() == object::SectionKind::Text)
        .collect();
    if code.len() > 1 {
        let names: Vec<String> = code
            .iter()
            .map(|s| format!("`{}`", crate::escape_name(s.name().unwrap_or("?"))))
            .collect();
        return Err(Error::new(format!(
            "the object has {} code sections ({}): one `.text` is read, and a second would be lost",
            code.len(),
            names.join(", ")
        )));
    }
    let text = file
        .section_by_name(".text")
        .ok_or_else(|| Error::new("the object has no `.text` section"))?;
    let data = text
        .data()
        .map_err(|e| Error::new(format!("`.text`: {e}")))?
        .to_vec();
    let text_index = text.index();

    let table = file.elf_symbol_table();
    let name_budget = 4 * bytes.len();
    let mut name_bytes = 0usize;
    let mut symbols = Vec::new();
    let mut by_index = HashMap::new();
    for (i, s) in table.symbols().iter().enumerate() {
        let name = s
            .name(LE, table.strings())
            .map_err(|e| Error::new(format!("symbol {i}: {e}")))?;
        if name.is_empty() {
            continue; // the null symbol, section and file symbols
        }
        let binding = if s.is_undefined(LE) {
            Binding::Undefined
        } else if table
            .symbol_section(LE, s, object::SymbolIndex(i))
            .ok()
            .flatten()
            != Some(text_index)
        {
            continue; // a symbol of another section: not ours to show
        } else if s.is_local() {
            Binding::Local
        } else {
            Binding::Global
        };
        name_bytes = name_bytes.saturating_add(name.len());
        if name_bytes > name_budget {
            return Err(Error::new(format!(
                "symbol {i}: the symbol names add up to more than four times the file's {} bytes",
                bytes.len()
            )));
        }
        let name = std::str::from_utf8(name)
            .map_err(|_| Error::new(format!("symbol {i}: its name is not UTF-8")))?;
        let value = if binding == Binding::Undefined {
            0
        } else {
            s.st_value(LE)
        };
        by_index.insert(i, symbols.len());
        symbols.push(ObjSymbol {
            name: name.to_string(),
            binding,
            value,
        });
    }

    // Relocation sections of `.text`, read here rather than through `relocations()`,
    // which passes over a section it cannot read: nothing may be dropped unsaid.
    let mut relocs = Vec::new();
    for (k, section) in file.elf_section_table().iter().enumerate() {
        let kind = section.sh_type(LE);
        let of_text = section.sh_info(LE) as usize == text_index.0;
        if !of_text || !matches!(kind, elf::SHT_RELA | elf::SHT_REL | elf::SHT_CREL) {
            continue;
        }
        if kind != elf::SHT_RELA {
            return Err(Error::new(format!(
                "section {k}: relocations of `.text` without addends (only SHT_RELA is read)"
            )));
        }
        let (entries, link) = section
            .rela(LE, bytes)
            .map_err(|e| Error::new(format!("section {k}: {e}")))?
            .expect("an SHT_RELA section");
        if link != table.section() {
            return Err(Error::new(format!(
                "section {k}: relocations against another symbol table than `.symtab`"
            )));
        }
        for r in entries {
            let i = relocs.len();
            let offset = r.r_offset(LE);
            // At most one per instruction (`Object::check`): bounds what many
            // relocation sections sharing one table could make of a small file.
            if i as u64 >= data.len() as u64 / INST {
                return Err(Error::new(format!(
                    "relocation {i} (at {offset:#x}): more relocations than instructions in `.text`"
                )));
            }
            let sym = r.r_sym(LE, false) as usize;
            let symbol = *by_index.get(&sym).ok_or_else(|| {
                Error::new(format!(
                    "relocation {i} (at {offset:#x}): symbol {sym} is no label of `.text` or undefined symbol"
                ))
            })?;
            relocs.push(ObjReloc {
                offset,
                r_type: r.r_type(LE, false).0,
                symbol,
                addend: r.r_addend(LE),
            });
        }
    }
    let obj = Object {
        text: data,
        symbols,
        relocs,
    };
    obj.check()?;
    Ok(obj)
}
