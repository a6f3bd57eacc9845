//! ELF64 relocatable objects of the GPU ISA: what `isa asm -o FILE.o` writes and
//! `isa disasm` / `isa link` read, here for any Rust program. The format is documented
//! in `docs/object-format.md` of the repository.
//!
//! - [`Object::from_code`] turns an [`isa::backend::Code`] (a `CodeBuffer`'s output)
//!   into an object, with names for its labels; [`write()`] makes the file's bytes.
//! - [`read`] reads a file back, and checks every offset, size and index in it: a
//!   malformed or hostile file is an [`Error`] saying where and what, never a panic.
//! - [`Object::link`] applies the relocations (the words `Code::link` gives).
//!
//! ```
//! use isa::backend::CodeBuffer;
//! use isa::Instruction;
//! use isa_object::{LabelName, Object};
//!
//! let mut buf = CodeBuffer::new(0).unwrap();
//! let entry = buf.new_label();
//! let step = buf.symbol("reduce_step").unwrap();
//! buf.bind(entry).unwrap();
//! buf.push_to("CALL.REL RZ, 0x0".parse::<Instruction>().unwrap(), step).unwrap();
//! buf.push("EXIT".parse::<Instruction>().unwrap());
//! let code = buf.finish().unwrap();
//!
//! let obj = Object::from_code(&code, &[LabelName::global(entry, "kernel")]).unwrap();
//! let bytes = isa_object::write(&obj).unwrap();
//! let back = isa_object::read(&bytes).unwrap();
//! assert_eq!(back, obj);
//! let words = back.link(0, |name| (name == "reduce_step").then_some(0x9000)).unwrap();
//! let mut linked = code.clone();
//! linked.link(|_| Some(0x9000)).unwrap();
//! assert_eq!(words, linked.words().collect::<Vec<_>>());
//! ```

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;

mod code;
mod elf;

pub use code::{LabelName, LinkError};
pub use elf::{is_elf, read, write, EM_ISA};

/// Bytes per instruction, and the alignment of `.text`.
pub const INST: u64 = 16;

/// Longest name (in bytes, after escaping) shown in full where a name is repeated: in
/// operands, relocation comments and error messages. A longer one is cut there (it is
/// still shown whole where it is defined), so what a tool prints stays proportional
/// to its input however long the names of a hostile object are.
pub const SHOWN_NAME_BYTES: usize = 1024;

/// How a symbol is bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Binding {
    /// A label of this object, visible only in it.
    Local,
    /// A label of this object that `.global` exports.
    Global,
    /// A symbol defined elsewhere (`.extern`).
    Undefined,
}

/// A symbol of an object: a label of `.text` or an undefined symbol.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjSymbol {
    /// Its name: not empty and without NUL (ELF names end at the first NUL).
    pub name: String,
    pub binding: Binding,
    /// Offset in `.text`, at an instruction (0 for undefined symbols).
    pub value: u64,
}

/// A relocation of `.text`.
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

/// What is wrong with an object (or with what was asked of it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error(String);

impl Error {
    pub(crate) fn new(message: impl Into<String>) -> Error {
        Error(message.into())
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

/// The name of a relocation type: `R_ISA_ADDR_REL` on the first address operand,
/// `R_ISA_ADDR_REL#1` on the second, …
pub fn reloc_name(r_type: u32) -> String {
    match isa::backend::RelocKind::from_elf_type(r_type) {
        None => format!("R_ISA_{r_type}"),
        Some((kind, 0)) => kind.elf_name().to_string(),
        Some((kind, k)) => format!("{}#{k}", kind.elf_name()),
    }
}

/// A name as it can be printed: every character outside printable ASCII, and `\`, as
/// a Rust escape (`\n`, `\u{1b}`), so no name can move a terminal's cursor, change its
/// colours or split a line of a listing.
pub fn escape_name(name: &str) -> Cow<'_, str> {
    if name
        .bytes()
        .all(|b| (b' '..=b'~').contains(&b) && b != b'\\')
    {
        return Cow::Borrowed(name);
    }
    let mut out = String::with_capacity(name.len() + 8);
    for c in name.chars() {
        if c.is_ascii_graphic() && c != '\\' || c == ' ' {
            out.push(c);
        } else {
            out.extend(c.escape_default());
        }
    }
    Cow::Owned(out)
}

/// [`escape_name`], cut to [`SHOWN_NAME_BYTES`] with its length after it
/// (`abc…[1048576 bytes]`): for the places where a name repeats.
pub fn short_name(name: &str) -> Cow<'_, str> {
    let escaped = escape_name(name);
    if escaped.len() <= SHOWN_NAME_BYTES {
        return escaped;
    }
    // An escaped name is ASCII, so any byte index is a character boundary.
    debug_assert!(escaped.is_ascii());
    Cow::Owned(format!(
        "{}…[{} bytes]",
        &escaped[..SHOWN_NAME_BYTES],
        name.len()
    ))
}

impl Object {
    /// Checks what [`read`] and [`write()`] rely on: names not empty and without NUL,
    /// labels at instructions of `.text`, relocations of a known type on an instruction
    /// of `.text`, at most one per instruction, naming a symbol of the object.
    pub fn check(&self) -> Result<(), Error> {
        let len = self.text.len() as u64;
        // Two symbols of one name: which one a reference or `--symbol` means is unclear,
        // and a listing of them would not assemble back.
        let mut names: HashMap<&str, usize> = HashMap::with_capacity(self.symbols.len());
        for (i, s) in self.symbols.iter().enumerate() {
            if let Some(first) = names.insert(s.name.as_str(), i) {
                return Err(Error::new(format!(
                    "symbols {first} and {i} are both named `{}`",
                    short_name(&s.name)
                )));
            }
        }
        for (i, s) in self.symbols.iter().enumerate() {
            let name = short_name(&s.name);
            if s.name.is_empty() {
                return Err(Error::new(format!("symbol {i} has no name")));
            }
            if s.name.contains('\0') {
                return Err(Error::new(format!(
                    "symbol `{name}`: a name cannot hold NUL"
                )));
            }
            if s.binding != Binding::Undefined && (s.value > len || !s.value.is_multiple_of(INST)) {
                return Err(Error::new(format!(
                    "symbol `{name}` at {:#x} is not at an instruction of `.text` ({len:#x} bytes)",
                    s.value
                )));
            }
        }
        // Which relocation patches each instruction: a second one is refused, as the
        // writers make at most one per instruction and a listing can show only one.
        let mut at: HashMap<u64, usize> = HashMap::with_capacity(self.relocs.len());
        for (i, r) in self.relocs.iter().enumerate() {
            let what = format!("relocation {i} (at {:#x})", r.offset);
            let sym = self
                .symbols
                .get(r.symbol)
                .ok_or_else(|| Error::new(format!("{what}: no symbol {}", r.symbol)))?;
            let inside = r.offset.checked_add(INST).is_some_and(|end| end <= len);
            if !r.offset.is_multiple_of(INST) || !inside {
                return Err(Error::new(format!(
                    "{what} (`{}`): not at an instruction of `.text` ({len:#x} bytes)",
                    short_name(&sym.name)
                )));
            }
            if isa::backend::RelocKind::from_elf_type(r.r_type).is_none() {
                return Err(Error::new(format!("{what}: unknown type {}", r.r_type)));
            }
            if let Some(first) = at.insert(r.offset, i) {
                return Err(Error::new(format!(
                    "relocations {first} and {i} both patch the instruction at {:#x}: at most one relocation per instruction",
                    r.offset
                )));
            }
        }
        Ok(())
    }

    /// The words of `.text` (a trailing part of a word is left out).
    pub fn words(&self) -> impl Iterator<Item = u128> + '_ {
        self.text
            .chunks_exact(INST as usize)
            .map(|c| u128::from_le_bytes(c.try_into().expect("a 16-byte chunk")))
    }
}

#[cfg(test)]
mod tests;
