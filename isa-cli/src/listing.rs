//! A listing: what `isa disasm` prints and `isa disasm --cfg` draws. Raw 16-byte
//! records, or an object's `.text` with its symbols as labels and its relocations as
//! the operands they patch, printed so that `isa asm` reads it back.

use std::collections::{BTreeMap, HashMap};

use isa_gen::asm::program::{self, INST_SIZE};
use isa_object::{escape_name, short_name, Binding, Object};

use crate::codec::Codec;

/// One instruction of a listing as shown ([`Listing::entry`]).
pub struct Entry {
    /// The instruction's text, or `.word 0x…` (its bytes).
    pub text: String,
    /// For a `.word`: the text the word decodes to, which does not give it back.
    pub decoded: Option<String>,
    /// What is wrong, when the word is given as `.word`.
    pub problem: Option<String>,
}

/// What `isa disasm` reads: 16-byte records from `base`, and, from an object, its
/// symbols and relocations.
pub struct Listing {
    pub base: u64,
    pub words: Vec<u128>,
    /// Trailing bytes that make no whole instruction.
    pub trailing: Vec<u8>,
    /// The object's symbols as printed (none for raw records).
    symbols: Vec<Shown>,
    /// Labels by address: indices into `symbols` (the first names the address in
    /// operands).
    pub names: BTreeMap<u64, Vec<usize>>,
    /// By instruction address: the relocation on it (at most one: `Object::check`).
    relocs: HashMap<u64, ListedReloc>,
}

/// A symbol's name, escaped: whole where it is defined, shortened where it repeats
/// (operands, relocation comments), so a listing stays proportional to its object.
struct Shown {
    full: String,
    short: String,
    binding: Binding,
}

struct ListedReloc {
    /// The address operand it patches.
    operand: usize,
    /// Index into `Listing::symbols`.
    symbol: usize,
    r_type: u32,
    addend: i64,
}

/// Whether the assembler reads `name` back as what it is: a label (`name:`), and an
/// operand of `.global`/`.extern` when it is exported or undefined. The assembler's
/// own layout pass decides, so this cannot drift from what it accepts.
fn assembler_reads(name: &str, binding: Binding) -> bool {
    let label = || {
        program::layout(&format!("{name}:"), 0)
            .is_ok_and(|l| l.label_order == [name] && l.lines.is_empty())
    };
    let directive = || {
        program::layout(&format!(".extern {name}"), 0).is_ok_and(|l| {
            l.lines.is_empty() && l.directives.len() == 1 && l.directives[0].name == name
        })
    };
    match binding {
        Binding::Local => label(),
        Binding::Global => label() && directive(),
        Binding::Undefined => directive(),
    }
}

impl Listing {
    /// Raw 16-byte little-endian records.
    pub fn raw(bytes: &[u8], base: u64) -> Listing {
        let whole = bytes.len() / INST_SIZE as usize * INST_SIZE as usize;
        Listing {
            base,
            words: bytes[..whole]
                .chunks_exact(INST_SIZE as usize)
                .map(|c| u128::from_le_bytes(c.try_into().expect("16-byte chunk")))
                .collect(),
            trailing: bytes[whole..].to_vec(),
            symbols: Vec::new(),
            names: BTreeMap::new(),
            relocs: HashMap::new(),
        }
    }

    /// An object's `.text`, symbols and relocations, laid out from `base` (addresses
    /// wrap at 2^64, as the code buffer's do). `isa_object::read` checked the object.
    pub fn object(obj: &Object, base: u64) -> Listing {
        let mut l = Listing::raw(&obj.text, base);
        for (i, s) in obj.symbols.iter().enumerate() {
            l.symbols.push(Shown {
                full: escape_name(&s.name).into_owned(),
                short: short_name(&s.name).into_owned(),
                binding: s.binding,
            });
            if s.binding != Binding::Undefined {
                l.names
                    .entry(base.wrapping_add(s.value))
                    .or_default()
                    .push(i);
            }
        }
        for r in &obj.relocs {
            let Some((_, k)) = isa::backend::RelocKind::from_elf_type(r.r_type) else {
                continue; // `isa_object::read` refuses unknown types
            };
            l.relocs.insert(
                base.wrapping_add(r.offset),
                ListedReloc {
                    operand: k as usize,
                    symbol: r.symbol,
                    r_type: r.r_type,
                    addend: r.addend,
                },
            );
        }
        l
    }

    /// The names of the labels at `addr`, as their definitions print them.
    pub fn labels_at(&self, addr: u64) -> impl Iterator<Item = &str> {
        self.names
            .get(&addr)
            .into_iter()
            .flatten()
            .map(|&i| self.symbols[i].full.as_str())
    }

    /// The name an operand naming `addr` prints (shortened when long).
    pub fn name_of(&self, addr: u64) -> Option<&str> {
        let &i = self.names.get(&addr)?.first()?;
        Some(self.symbols[i].short.as_str())
    }

    /// Instruction `k` as text: address operands that a symbol names print as label
    /// references, the operand a relocation patches as its symbol.
    pub fn print(&self, codec: &Codec, k: usize) -> Result<String, String> {
        let word = self.words[k];
        let addr = self.addr(k);
        let reloc = self.relocs.get(&addr);
        let at_reloc = reloc.and_then(|r| codec.address(word, addr, r.operand).map(|a| (a, r)));
        // The patched operand names its symbol with the addend, as `isa asm` reads it
        // back (`` `(f+0x20) ``).
        let reloc_text = at_reloc.map(|(_, r)| {
            let name = &self.symbols[r.symbol].short;
            match r.addend {
                0 => name.clone(),
                a if a < 0 => format!("{name}-{:#x}", a.unsigned_abs()),
                a => format!("{name}+{a:#x}"),
            }
        });
        // An absolute operand without a relocation names a fixed address: printed as a
        // label it would assemble into a relocation against it, which moves with the
        // object. Such an instruction names only its relocated operand's symbol.
        let fixed_absolute = codec.facts(word, addr).is_some_and(|f| {
            f.absolute
                .iter()
                .enumerate()
                .any(|(k, &abs)| abs && reloc.is_none_or(|r| r.operand != k))
        });
        let names = |a: u64| -> Option<&str> {
            match (at_reloc, &reloc_text) {
                (Some((ra, _)), Some(t)) if ra == a => Some(t.as_str()),
                _ if fixed_absolute => None,
                _ => self.name_of(a),
            }
        };
        let symbols =
            (!self.names.is_empty() || reloc.is_some()).then(|| crate::codec::symbols(&names));
        codec.print(word, addr, symbols)
    }

    /// Instruction `k` as the listing gives it (the listing and the `--cfg` graph both
    /// show this): its text, or `.word 0x…` when that text does not give the word back
    /// (see `Listing::reads_back`) or the word does not decode.
    pub fn entry(&self, codec: &Codec, k: usize) -> Entry {
        let word = || format!(".word {:#034x}", self.words[k]);
        match self.print(codec, k) {
            Ok(t) => match self.reads_back(codec, k, &t) {
                Ok(()) => Entry {
                    text: t,
                    decoded: None,
                    problem: None,
                },
                // The bytes as `.word`, so the listing gives them back; the text beside
                // them, since it is what the word decodes to.
                Err(e) => Entry {
                    text: word(),
                    decoded: Some(t),
                    problem: Some(e),
                },
            },
            Err(e) => Entry {
                text: word(),
                decoded: None,
                problem: Some(e),
            },
        }
    }

    /// Whether `text`, instruction `k` as printed, assembles back to its word. A field
    /// no text shows (`isa check`'s `unprinted-field`) or two opcodes that print alike
    /// would otherwise make the listing give back other bytes, and a word the spec's
    /// exceptions refuse would make it fail to assemble; such a word is listed as
    /// `.word`, its text in a comment. Names are not what is checked here (whether the
    /// assembler reads them is `assembler_reads`'s, once per symbol): with labels or
    /// relocations in the listing, the text read back is the one with addresses as
    /// numbers (a relocated operand then shows the value its word holds).
    fn reads_back(&self, codec: &Codec, k: usize, text: &str) -> Result<(), String> {
        let (word, addr) = (self.words[k], self.addr(k));
        let numbers;
        let text = if self.names.is_empty() && self.relocs.is_empty() {
            text
        } else {
            numbers = codec.print(word, addr, None)?;
            numbers.as_str()
        };
        match codec.assemble(text, addr, &|_| None) {
            Ok(w) if w == word => Ok(()),
            Ok(w) => Err(format!(
                "prints as `{text}`, which assembles to {w:#034x}, not to this word (a field no text shows, or opcodes that print alike: see `isa check`)"
            )),
            Err(e) => Err(format!(
                "prints as `{text}`, which does not assemble back: {}",
                e.message
            )),
        }
    }

    /// The address of instruction `k`.
    pub fn addr(&self, k: usize) -> u64 {
        self.base.wrapping_add(k as u64 * INST_SIZE)
    }

    /// The text of the listing, and the problems (what is wrong where) of words that
    /// do not decode, trailing bytes and names the listing cannot give back.
    pub fn text(&self, codec: &Codec) -> (String, Vec<String>) {
        let mut out = String::new();
        let mut problems = Vec::new();
        for s in &self.symbols {
            if s.full.len() > isa_object::SHOWN_NAME_BYTES {
                problems.push(format!(
                    "symbol `{}`: longer than {} bytes, so shortened where it is referenced (the listing does not assemble back)",
                    s.short,
                    isa_object::SHOWN_NAME_BYTES
                ));
            } else if !assembler_reads(&s.full, s.binding) {
                problems.push(format!(
                    "symbol `{}`: not a name the assembler reads (the listing does not assemble back)",
                    s.short
                ));
            }
        }
        for s in self.symbols.iter().filter(|s| s.binding == Binding::Global) {
            out.push_str(&format!(".global {}\n", s.full));
        }
        for s in self
            .symbols
            .iter()
            .filter(|s| s.binding == Binding::Undefined)
        {
            out.push_str(&format!(".extern {}\n", s.full));
        }
        for k in 0..self.words.len() {
            let addr = self.addr(k);
            for n in self.labels_at(addr) {
                out.push_str(&format!("{n}:\n"));
            }
            let e = self.entry(codec, k);
            out.push_str(&format!("/*{addr:04x}*/  {} ;", e.text));
            if let Some(t) = e.decoded {
                out.push_str(&format!("  // {t}"));
            }
            if let Some(e) = e.problem {
                problems.push(format!("offset {:#x}: {e}", k as u64 * INST_SIZE));
            }
            if let Some(r) = self.relocs.get(&addr) {
                let kind = isa_object::reloc_name(r.r_type);
                out.push_str(&format!("  // {kind} {}", self.symbols[r.symbol].short));
                // (`{:+#x}` would print a negative addend in two's complement.)
                if r.addend < 0 {
                    out.push_str(&format!("-{:#x}", r.addend.unsigned_abs()));
                } else if r.addend > 0 {
                    out.push_str(&format!("+{:#x}", r.addend));
                }
            }
            out.push('\n');
        }
        // Labels at the end of `.text` (the assembler reads a label on a line of its own).
        for n in self.labels_at(self.addr(self.words.len())) {
            out.push_str(&format!("{n}:\n"));
        }
        if !self.trailing.is_empty() {
            let whole = self.words.len() as u64 * INST_SIZE;
            let n = self.trailing.len();
            problems.push(format!(
                "offset {whole:#x}: {n} trailing byte{} (the file is not a whole number of 16-byte instructions)",
                if n == 1 { "" } else { "s" }
            ));
            let hex: Vec<String> = self.trailing.iter().map(|b| format!("{b:#04x}")).collect();
            out.push_str(&format!(
                "// trailing bytes at {:#06x}: {}\n",
                self.base.wrapping_add(whole),
                hex.join(" ")
            ));
        }
        (out, problems)
    }
}
