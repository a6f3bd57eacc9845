//! `isa asm`, `isa disasm` and `isa link`: programs to 128-bit words (raw records, hex,
//! or an ELF relocatable object) and back, for the bundled spec or any other
//! (`--spec`, through [`Codec`]).

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Write as _;
use std::path::Path;
use std::process::ExitCode;

use isa_gen::asm::program::{self, DirectiveKind, INST_SIZE};
use isa_object::{short_name, Binding, ObjReloc, ObjSymbol, Object};

use crate::codec::Codec;
use crate::listing::Listing;
use crate::text::{Located, TextFile};

/// A relocation found while assembling: address operand `operand` of the instruction
/// at `addr` names the symbol `symbol` plus `addend` (`` `(sym+0x20) ``): an external
/// symbol, or a label of the program named by an operand that is absolute in this
/// instance (`CALL.ABS RZ, `(.L_f)`: its value depends on where the object is placed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExternRef {
    pub addr: u64,
    pub operand: usize,
    pub absolute: bool,
    pub symbol: String,
    pub addend: i64,
}

/// An assembled program file.
#[derive(Debug, Clone, Default)]
pub struct Program {
    /// Address of the first instruction.
    pub base: u64,
    /// Each instruction's address and word.
    pub words: Vec<(u64, u128)>,
    /// Labels in definition order, with their addresses.
    pub labels: Vec<(String, u64)>,
    /// Labels declared `.global`.
    pub globals: HashSet<String>,
    /// Symbols declared `.extern`, in order.
    pub externs: Vec<String>,
    /// References to external symbols and absolute references to labels (their
    /// operand holds code 0).
    pub refs: Vec<ExternRef>,
}

impl Program {
    /// The program as an object: `.text`, a symbol per label and `.extern`, and a
    /// relocation per external reference.
    pub fn object(&self) -> Object {
        let text = self
            .words
            .iter()
            .flat_map(|(_, w)| w.to_le_bytes())
            .collect();
        let mut symbols: Vec<ObjSymbol> = self
            .labels
            .iter()
            .map(|(name, addr)| ObjSymbol {
                name: name.clone(),
                binding: if self.globals.contains(name) {
                    Binding::Global
                } else {
                    Binding::Local
                },
                value: addr.wrapping_sub(self.base),
            })
            .collect();
        let mut index: HashMap<String, usize> = self
            .labels
            .iter()
            .enumerate()
            .map(|(i, (name, _))| (name.clone(), i))
            .collect();
        for name in &self.externs {
            index.insert(name.clone(), symbols.len());
            symbols.push(ObjSymbol {
                name: name.clone(),
                binding: Binding::Undefined,
                value: 0,
            });
        }
        let relocs = self
            .refs
            .iter()
            .map(|r| {
                let kind = if r.absolute {
                    isa::backend::RelocKind::Absolute
                } else {
                    isa::backend::RelocKind::Relative
                };
                ObjReloc {
                    offset: r.addr.wrapping_sub(self.base),
                    r_type: kind.elf_type(r.operand as u8),
                    symbol: index[&r.symbol],
                    addend: r.addend,
                }
            })
            .collect();
        Object {
            text,
            symbols,
            relocs,
        }
    }
}

fn located(name: &str, line: usize, column: usize, message: &str) -> String {
    format!("{name}:{line}:{column}: error: {message}")
}

/// Assembles a program file, laid out from address 0 (or its first `/*…*/` prefix).
/// References to `.extern` symbols are kept when `objects` (the output is an object
/// file) and are errors otherwise. Errors are `file:line:col: error: message`, in line
/// order: every invalid UTF-8 sequence outside a comment, and what the assembler finds
/// on the other lines.
pub fn assemble_file(
    codec: &Codec,
    name: &str,
    file: &TextFile,
    objects: bool,
) -> Result<Program, Vec<String>> {
    assemble(codec, file, objects).map_err(|errors| {
        errors
            .into_iter()
            .map(|(line, column, message)| located(name, line, column, &message))
            .collect()
    })
}

/// [`assemble_file`] with each error as its line, column (1-based, in characters) and
/// message, in that order.
pub fn assemble(codec: &Codec, file: &TextFile, objects: bool) -> Result<Program, Vec<Located>> {
    let src = &file.text;
    let mut errors = file.invalid_utf8_in_code();
    let bad_lines: HashSet<usize> = errors.iter().map(|e| e.0).collect();
    let layout = program::layout(src, 0).unwrap_or_default();
    let labels: HashSet<&str> = layout.labels.keys().copied().collect();
    // In declaration order, and hashed: a scan per name made 50,000 of them take
    // seconds.
    let mut externs: Vec<String> = Vec::new();
    let mut declared: HashSet<&str> = HashSet::new();
    let mut globals = HashSet::new();
    for d in &layout.directives {
        match d.kind {
            DirectiveKind::Extern if labels.contains(d.name) => errors.push((
                d.line,
                d.column,
                format!(
                    "`{}` is a label of this program, so it cannot be `.extern`",
                    d.name
                ),
            )),
            DirectiveKind::Extern => {
                if declared.insert(d.name) {
                    externs.push(d.name.to_string());
                }
            }
            DirectiveKind::Global if !labels.contains(d.name) => errors.push((
                d.line,
                d.column,
                format!("`.global {}` names no label of this program", d.name),
            )),
            DirectiveKind::Global => {
                globals.insert(d.name.to_string());
            }
        }
    }
    // External references: the operand first gets a placeholder, and which operand
    // took it is found by assembling the line again with another.
    let used: RefCell<Vec<(u64, String)>> = RefCell::default();
    let other = |sym: &str, addr: u64| {
        declared.contains(sym).then(|| {
            used.borrow_mut().push((addr, sym.to_string()));
            addr.wrapping_add(INST_SIZE)
        })
    };
    // Labels the instructions name: an absolute operand naming one needs a relocation
    // in an object (its value changes with the object's place).
    let label_uses: RefCell<Vec<(u64, String)>> = RefCell::default();
    let assembled = program::assemble_with(src, 0, &other, |text, addr, labels| {
        let noted = |n: &str| {
            let v = labels(n);
            if objects && layout.labels.contains_key(n) {
                label_uses.borrow_mut().push((addr, n.to_string()));
            }
            v
        };
        codec.assemble(text, addr, &noted)
    });
    let mut words = match assembled {
        Ok(w) if errors.is_empty() => w,
        Ok(_) => Vec::new(),
        Err(errs) => {
            errors.extend(
                errs.into_iter()
                    .filter(|e| !bad_lines.contains(&e.line))
                    .map(|e| (e.line, e.column, e.message)),
            );
            Vec::new()
        }
    };
    let mut refs = Vec::new();
    let texts: HashMap<u64, (usize, &str)> =
        layout.lines.iter().map(|l| (l.3, (l.0, l.2))).collect();
    if errors.is_empty() {
        let mut by_addr: BTreeMap<u64, Vec<String>> = BTreeMap::new();
        for (addr, sym) in used.into_inner() {
            let v = by_addr.entry(addr).or_default();
            if !v.contains(&sym) {
                v.push(sym);
            }
        }
        for (addr, syms) in by_addr {
            let (line, text) = texts[&addr];
            let col = |sym: &str| {
                text.find(&format!("`({sym}"))
                    .map_or(1, |i| text[..i].chars().count() + 1)
            };
            if !objects {
                for s in &syms {
                    errors.push((line, col(s), format!(
                        "`{s}` is an external symbol: only an object file (-o FILE.o) can keep a reference to it"
                    )));
                }
                continue;
            }
            if syms.len() > 1 {
                errors.push((
                    line,
                    col(&syms[1]),
                    "one external symbol per instruction".into(),
                ));
                continue;
            }
            let sym = &syms[0];
            let Some(slot) = slot_of(&words, addr) else {
                errors.push((
                    line,
                    col(sym),
                    "internal: the instruction was not assembled".into(),
                ));
                continue;
            };
            let placeholder = addr.wrapping_add(INST_SIZE);
            match symbol_operand(
                codec,
                text,
                addr,
                sym,
                placeholder,
                &layout.labels,
                words[slot].1,
            ) {
                Ok((k, absolute, word, addend)) => {
                    words[slot].1 = word;
                    refs.push(ExternRef {
                        addr,
                        operand: k,
                        absolute,
                        symbol: sym.clone(),
                        addend,
                    });
                }
                Err(message) => errors.push((line, col(sym), message)),
            }
        }
    }
    if errors.is_empty() && objects {
        let mut uses = label_uses.into_inner();
        uses.sort();
        uses.dedup();
        for (addr, label) in uses {
            let (line, text) = texts[&addr];
            let Some(slot) = slot_of(&words, addr) else {
                continue;
            };
            let at = layout.labels[label.as_str()];
            let word = words[slot].1;
            match symbol_operand(codec, text, addr, &label, at, &layout.labels, word) {
                Ok((k, true, word, addend)) => {
                    words[slot].1 = word;
                    refs.push(ExternRef {
                        addr,
                        operand: k,
                        absolute: true,
                        symbol: label,
                        addend,
                    });
                }
                Ok(_) => {} // relative: the same wherever the object is placed
                Err(message) => errors.push((line, 1, message)),
            }
        }
        refs.sort_by_key(|r| (r.addr, r.operand));
    }
    if !errors.is_empty() {
        errors.sort_by_key(|e| (e.0, e.1));
        return Err(errors);
    }
    let base = words.first().map_or(0, |w| w.0);
    let mut labels: Vec<(String, u64)> = layout
        .label_order
        .iter()
        .map(|l| (l.to_string(), layout.labels[l]))
        .collect();
    labels.sort_by_key(|l| l.1);
    Ok(Program {
        base,
        words,
        labels,
        globals,
        externs,
        refs,
    })
}

/// The index in `words` of the instruction at `addr`: instructions lie 16 bytes apart
/// from the first (addresses wrap at 2^64).
fn slot_of(words: &[(u64, u128)], addr: u64) -> Option<usize> {
    let first = words.first()?.0;
    let slot = (addr.wrapping_sub(first) / INST_SIZE) as usize;
    words.get(slot).is_some_and(|w| w.0 == addr).then_some(slot)
}

/// Which address operand of the instruction at `addr` (assembled as `first`, with
/// `sym` at `placeholder`) names the symbol `sym`, whether it is absolute, the word
/// with that operand at code 0, and the addend written after the symbol (what the
/// operand points to beyond the placeholder).
fn symbol_operand(
    codec: &Codec,
    text: &str,
    addr: u64,
    sym: &str,
    placeholder: u64,
    labels: &HashMap<&str, u64>,
    first: u128,
) -> Result<(usize, bool, u128, i64), String> {
    // The symbol moved by one instruction: the operand naming it changes.
    let moved = placeholder.wrapping_add(INST_SIZE);
    let second = codec
        .assemble(text, addr, &|n| {
            if n == sym {
                Some(moved)
            } else {
                labels.get(n).copied()
            }
        })
        .map_err(|e| e.to_string())?;
    let facts = codec
        .facts(first, addr)
        .ok_or("the instruction does not decode")?;
    let k = (0..facts.absolute.len())
        .find(|&k| codec.address(first, addr, k) != codec.address(second, addr, k))
        .ok_or_else(|| format!("`{sym}` is not the target of an address operand"))?;
    let absolute = facts.absolute[k];
    let addend = codec
        .address(first, addr, k)
        .map_or(0, |a| a.wrapping_sub(placeholder) as i64);
    let zero = if absolute {
        0
    } else {
        addr.wrapping_add(INST_SIZE)
    };
    let word = codec.relocate(first, addr, k, zero)?;
    Ok((k, absolute, word, addend))
}

/// `isa asm FILE.s [-o FILE | --hex]`: hex words on stdout, 16-byte records, or an ELF
/// object when the output name ends in `.o`.
pub fn asm_command(codec: &Codec, input: &Path, output: Option<&Path>) -> Result<ExitCode, String> {
    let name = input.display().to_string();
    let file = TextFile::read(&name)?;
    let to_object = output.is_some_and(|o| o.extension().is_some_and(|e| e == "o"));
    let program = match assemble_file(codec, &name, &file, to_object) {
        Ok(p) => p,
        Err(errors) => {
            for e in errors {
                errln!("{e}");
            }
            return Ok(ExitCode::from(1));
        }
    };
    match output {
        Some(out) => {
            if crate::spec::same_file(out, input) {
                return Err(format!("refusing to overwrite the input {name}"));
            }
            let bytes = if to_object {
                isa_object::write(&program.object()).map_err(|e| e.to_string())?
            } else {
                program
                    .words
                    .iter()
                    .flat_map(|(_, w)| w.to_le_bytes())
                    .collect()
            };
            std::fs::write(out, bytes).map_err(|e| format!("{}: {e}", out.display()))?;
        }
        None => {
            let mut s = String::new();
            for (_, w) in &program.words {
                s.push_str(&format!("{w:#034x}\n"));
            }
            std::io::stdout()
                .write_all(s.as_bytes())
                .map_err(|e| e.to_string())?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Reads what `isa disasm`/`isa link` take: an object (by its ELF magic) or raw records.
pub fn read_input(path: &Path, base: u64) -> Result<(Listing, Option<Object>), String> {
    let bytes = crate::text::read_input_file(path)?;
    listing(&bytes, base).map_err(|e| format!("{}: {e}", path.display()))
}

/// The listing of an object file's bytes, or of raw 16-byte records (laid out from
/// `base`), with the object when it is one.
pub fn listing(bytes: &[u8], base: u64) -> Result<(Listing, Option<Object>), String> {
    if isa_object::is_elf(bytes) {
        let obj = isa_object::read(bytes).map_err(|e| e.to_string())?;
        Ok((Listing::object(&obj, base), Some(obj)))
    } else {
        Ok((Listing::raw(bytes, base), None))
    }
}

/// `isa disasm FILE | --hex WORD...`: a word that does not decode is a warning (it is
/// printed as `.word`, nothing is lost) and fails the command only when `strict`.
pub fn disasm_command(
    codec: &Codec,
    input: Option<&Path>,
    hex_words: &[String],
    base: u64,
    strict: bool,
    cfg: bool,
) -> Result<ExitCode, String> {
    let mut bad_words = Vec::new();
    let (listing, prefix) = match input {
        None => {
            let mut words = Vec::new();
            for (k, w) in hex_words.iter().enumerate() {
                // A bad word is reported and left out (its address stays taken: it is
                // shown as a zero word's `.word`); the others are still disassembled.
                match crate::num::hex_digits::<u128>(w) {
                    Some(word) => words.push(Some(word)),
                    None => {
                        bad_words.push(format!("word {} (`{w}`): not a 128-bit hex word", k + 1));
                        words.push(None);
                    }
                }
            }
            let mut l = Listing::raw(&[], base);
            l.words = words.iter().map(|w| w.unwrap_or(0)).collect();
            let skip: Vec<bool> = words.iter().map(Option::is_none).collect();
            (l, Some(skip))
        }
        Some(path) => {
            let (l, _) = read_input(path, base)?;
            (l, None)
        }
    };
    if cfg {
        let dot = crate::cfg::dot(codec, &listing);
        std::io::stdout()
            .write_all(dot.as_bytes())
            .map_err(|e| e.to_string())?;
        return Ok(if bad_words.is_empty() {
            ExitCode::SUCCESS
        } else {
            for b in &bad_words {
                errln!("isa disasm: {b}");
            }
            ExitCode::from(2)
        });
    }
    let (text, problems) = listing.text(codec);
    let text = match &prefix {
        // `--hex`: drop the lines of words that were not hex.
        Some(skip) => text
            .lines()
            .zip(skip.iter().chain(std::iter::repeat(&false)))
            .filter(|(_, s)| !**s)
            .map(|(l, _)| format!("{l}\n"))
            .collect(),
        None => text,
    };
    std::io::stdout()
        .write_all(text.as_bytes())
        .map_err(|e| e.to_string())?;
    let problems: Vec<String> = match (input, &prefix) {
        (Some(path), _) => problems
            .into_iter()
            .map(|p| format!("{}: {p}", path.display()))
            .collect(),
        (None, Some(skip)) => problems
            .into_iter()
            .filter_map(|p| {
                // "offset 0x20: …" → "word 3 (0x…): …", skipping words that were bad.
                let off = p.strip_prefix("offset 0x")?.split(':').next()?;
                let k = usize::from_str_radix(off, 16).ok()? / INST_SIZE as usize;
                if skip.get(k).copied().unwrap_or(false) {
                    return None;
                }
                let msg = p.split_once(": ").map_or(p.as_str(), |x| x.1);
                Some(format!("word {} ({}): {msg}", k + 1, hex_words[k]))
            })
            .collect(),
        (None, None) => problems,
    };
    for p in &problems {
        errln!("warning: {p}");
    }
    for b in &bad_words {
        errln!("isa disasm: {b}");
    }
    Ok(if !bad_words.is_empty() {
        ExitCode::from(2)
    } else if strict && !problems.is_empty() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// `isa link FILE.o --symbol NAME=ADDR… [--base ADDR] [-o FILE | --hex]`: applies the
/// object's relocations with the given symbol addresses.
pub fn link_command(
    codec: &Codec,
    input: &Path,
    symbols: &[(String, u64)],
    base: u64,
    output: Option<&Path>,
) -> Result<ExitCode, String> {
    let (_, obj) = read_input(input, base)?;
    let obj = obj.ok_or_else(|| format!("{}: not an object file", input.display()))?;
    let given: HashMap<&str, u64> = symbols.iter().map(|(n, a)| (n.as_str(), *a)).collect();
    let linked = obj.link_with(
        base,
        |name| given.get(name).copied(),
        |word, addr, k, target| codec.relocate(word, addr, k, target),
    );
    let words = match linked {
        Ok(words) => words,
        Err(errors) => {
            let no_operand = isa::backend::TargetError::NoAddress.to_string();
            for e in &errors {
                // An object of another spec read with the bundled one: its relocated
                // instructions are other instructions here.
                let hint = match e {
                    isa_object::LinkError::Undefined(name) => {
                        let name = short_name(name);
                        format!(" (give its address with --symbol {name}=ADDR)")
                    }
                    isa_object::LinkError::Relocation { message, .. }
                        if *message == no_operand && matches!(codec, Codec::Bundled) =>
                    {
                        " (read with the bundled spec: an object of another spec needs --spec)"
                            .to_string()
                    }
                    _ => String::new(),
                };
                errln!("{}: error: {e}{hint}", input.display());
            }
            return Ok(ExitCode::from(1));
        }
    };
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    match output {
        Some(out) => {
            std::fs::write(out, bytes).map_err(|e| format!("{}: {e}", out.display()))?;
        }
        None => {
            let mut s = String::new();
            for w in &words {
                s.push_str(&format!("{w:#034x}\n"));
            }
            std::io::stdout()
                .write_all(s.as_bytes())
                .map_err(|e| e.to_string())?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Assembles one line with the bundled spec (tests).
#[cfg(test)]
pub fn assemble_line(
    text: &str,
    addr: u64,
    labels: &dyn Fn(&str) -> Option<u64>,
) -> Result<u128, isa_gen::asm::AsmError> {
    Codec::Bundled.assemble(text, addr, labels)
}

#[cfg(test)]
mod tests;
