//! ELF64 little-endian relocatable objects, written and read with the `object` crate:
//! what `isa asm -o FILE.o` writes and `isa disasm FILE.o` / `isa link` read. The
//! format is documented in `docs/object-format.md`.

use object::elf;
use object::read::elf::{ElfFile64, FileHeader as _};
use object::write::elf::{FileHeader, Rel, SectionHeader, Sym, Writer};
use object::{Endianness, LittleEndian, Object as _, ObjectSection as _, ObjectSymbol as _};

/// `e_machine` of our objects: not a registered machine (those stop well below 1024),
/// so tools show it as unknown rather than mistaking it for another ISA. `0x4953` is
/// "IS" in ASCII.
pub const EM_ISA: u16 = 0x4953;

/// Bytes per instruction, and the alignment of `.text`.
const INST: u64 = 16;

/// How a symbol is bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Binding {
    /// A label of this object, visible only in it.
    Local,
    /// A label of this object that `.global` exports.
    Global,
    /// A symbol defined elsewhere (`.extern`).
    Undefined,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjSymbol {
    pub name: String,
    pub binding: Binding,
    /// Offset in `.text` (0 for undefined symbols).
    pub value: u64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjReloc {
    /// Offset of the instruction in `.text`.
    pub offset: u64,
    /// `R_ISA_ADDR_REL`/`R_ISA_ADDR_ABS` of an address operand (see
    /// `isa::backend::RelocKind::elf_type`).
    pub r_type: u32,
    /// Index into [`Object::symbols`].
    pub symbol: usize,
    pub addend: i64,
}

/// The contents of one object.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Object {
    /// `.text`: 16-byte little-endian instruction records.
    pub text: Vec<u8>,
    pub symbols: Vec<ObjSymbol>,
    pub relocs: Vec<ObjReloc>,
}

/// Whether the bytes start like an ELF file.
pub fn is_elf(bytes: &[u8]) -> bool {
    bytes.starts_with(&elf::ELFMAG)
}

/// The name of a relocation type: `R_ISA_ADDR_REL` on the first address operand,
/// `R_ISA_ADDR_REL#1` on the second, …
pub fn reloc_name(r_type: u32) -> String {
    match isa::backend::RelocKind::from_elf_type(r_type) {
        None => format!("R_ISA_{r_type}"),
        Some((kind, k)) => {
            let base = kind.elf_name();
            if k == 0 {
                base.to_string()
            } else {
                format!("{base}#{k}")
            }
        }
    }
}

/// Writes an ELF64 relocatable object: `.text`, `.symtab` (local labels first, then
/// global labels and undefined symbols), `.rela.text`, `.strtab`, `.shstrtab`.
pub fn write(obj: &Object) -> Result<Vec<u8>, String> {
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
        let section = (obj.symbols[i].binding != Binding::Undefined).then_some(text_index);
        sym_index[i] = w.reserve_symbol_index(section).0;
    }
    let symtab_index = w.reserve_symtab_section_index();
    w.reserve_symtab();
    let rela_index = w.reserve_section_index();
    let rela_offset = w.reserve_relocations(obj.relocs.len(), true);
    w.reserve_strtab_section_index();
    w.reserve_strtab().map_err(|e| e.to_string())?;
    w.reserve_shstrtab_section_index();
    w.reserve_shstrtab().map_err(|e| e.to_string())?;
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
    .map_err(|e| e.to_string())?;
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
    let _ = rela_index;
    Ok(buf)
}

/// Reads an object `write` made (or any ELF64 little-endian relocatable object for
/// this ISA with a `.text`). The error says what is wrong.
pub fn read(bytes: &[u8]) -> Result<Object, String> {
    let file = ElfFile64::<LittleEndian>::parse(bytes)
        .map_err(|e| format!("not an ELF64 little-endian object: {e}"))?;
    let header = file.elf_header();
    let machine = header.e_machine(LittleEndian).0;
    if machine != EM_ISA {
        return Err(format!(
            "an object for another machine (e_machine {machine:#x}; this ISA's is {EM_ISA:#x})"
        ));
    }
    if header.e_type(LittleEndian) != elf::ET_REL {
        return Err("not a relocatable object (e_type is not ET_REL)".into());
    }
    let text = file
        .section_by_name(".text")
        .ok_or("the object has no `.text` section")?;
    let data = text.data().map_err(|e| format!("`.text`: {e}"))?.to_vec();
    let text_index = text.index();
    let mut symbols = Vec::new();
    let mut by_index = std::collections::HashMap::new();
    for s in file.symbols() {
        let name = s
            .name()
            .map_err(|e| format!("symbol {}: {e}", s.index().0))?;
        if name.is_empty() {
            continue; // section and file symbols
        }
        let binding = if s.is_undefined() {
            Binding::Undefined
        } else if s.section_index() != Some(text_index) {
            continue; // a symbol of another section: not ours to show
        } else if s.is_global() {
            Binding::Global
        } else {
            Binding::Local
        };
        let value = if binding == Binding::Undefined {
            0
        } else {
            s.address()
        };
        if binding != Binding::Undefined && value > data.len() as u64 {
            return Err(format!(
                "symbol `{name}` at {value:#x} lies outside `.text` ({:#x} bytes)",
                data.len()
            ));
        }
        by_index.insert(s.index().0, symbols.len());
        symbols.push(ObjSymbol {
            name: name.to_string(),
            binding,
            value,
        });
    }
    let mut relocs = Vec::new();
    for (offset, r) in text.relocations() {
        let object::RelocationFlags::Elf { r_type } = r.flags() else {
            return Err(format!("relocation at {offset:#x}: not an ELF relocation"));
        };
        let object::RelocationTarget::Symbol(sym) = r.target() else {
            return Err(format!(
                "relocation at {offset:#x}: its target is not a symbol"
            ));
        };
        let symbol = *by_index.get(&sym.0).ok_or_else(|| {
            format!(
                "relocation at {offset:#x}: symbol {} is not a symbol of `.text`",
                sym.0
            )
        })?;
        if offset % INST != 0 || offset + INST > data.len() as u64 {
            return Err(format!(
                "relocation at {offset:#x}: not at an instruction of `.text` ({:#x} bytes)",
                data.len()
            ));
        }
        let r_type = r_type.0;
        if isa::backend::RelocKind::from_elf_type(r_type).is_none() {
            return Err(format!("relocation at {offset:#x}: unknown type {r_type}"));
        }
        relocs.push(ObjReloc {
            offset,
            r_type,
            symbol,
            addend: r.addend(),
        });
    }
    Ok(Object {
        text: data,
        symbols,
        relocs,
    })
}
