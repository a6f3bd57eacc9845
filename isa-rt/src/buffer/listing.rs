//! The listing of placed code: assembly that `isa asm` reads back, for a spec whose
//! instructions print ([`PrintInstruction`]).

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write;

#[cfg(doc)]
use super::CodeBuffer;
use super::{Code, Reloc, INSTRUCTION_BYTES};
use crate::backend::{PrintInstruction, SpecInstruction};
use crate::print::FormatOptions;

/// The ELF name of a relocation (`R_ISA_ADDR_REL`, `R_ISA_ADDR_ABS#1` for address
/// operand 1), as `isa disasm` shows it.
fn write_reloc_name<W: Write>(w: &mut W, r: &Reloc) -> core::fmt::Result {
    w.write_str(r.kind.elf_name())?;
    if r.operand != 0 {
        write!(w, "#{}", r.operand)?;
    }
    Ok(())
}

/// An addend as a listing writes it after its symbol: `+0x20`, `-0x10`, nothing for 0.
pub(super) fn write_addend<W: Write>(w: &mut W, addend: i64) -> core::fmt::Result {
    // (`{:+#x}` would print a negative addend in two's complement.)
    match addend {
        0 => Ok(()),
        a if a.is_negative() => write!(w, "-{:#x}", a.unsigned_abs()),
        a => write!(w, "+{a:#x}"),
    }
}

/// The label lines of instruction `i`: the name `given` for its address, then the
/// names of the labels bound there (`named` is sorted by instruction).
fn write_label_lines<W: Write>(
    w: &mut W,
    named: &[(usize, &str)],
    i: usize,
    given: Option<&str>,
) -> core::fmt::Result {
    if let Some(n) = given {
        writeln!(w, "{n}:")?;
    }
    let first = named.partition_point(|n| n.0 < i);
    for &(_, n) in named[first..].iter().take_while(|n| n.0 == i) {
        if Some(n) != given {
            writeln!(w, "{n}:")?;
        }
    }
    Ok(())
}

impl<I: PrintInstruction> Code<I> {
    /// Writes the code as a listing `isa asm` reads back (with `-o FILE.o` when it has
    /// relocations): an `.extern` line per symbol, then an instruction a line with its
    /// address as a `/*…*/` prefix. Named labels ([`CodeBuffer::named_label`]) get a
    /// label line, and address operands pointing at them print the name; `o.symbols`
    /// names more addresses the same way (before the labels' names). An operand a
    /// relocation still patches prints its symbol and addend (`` `(name+0x20) ``, not
    /// the address its placeholder code 0 means), with the relocation in a comment, as
    /// `isa disasm` prints an object file.
    pub fn write_asm_with<W: Write>(&self, w: &mut W, o: &FormatOptions<'_>) -> core::fmt::Result {
        for s in &self.symbols {
            writeln!(w, ".extern {s}")?;
        }
        // Named labels by the instruction they are bound to, in creation order there.
        let mut named: Vec<(usize, &str)> = self
            .labels
            .iter()
            .filter_map(|l| Some((l.at?, l.name.as_deref()?)))
            .collect();
        named.sort_by_key(|n| n.0);
        let label_at = |a: u64| -> Option<&str> {
            let off = a.wrapping_sub(self.base);
            if !off.is_multiple_of(INSTRUCTION_BYTES) {
                return None;
            }
            let i = usize::try_from(off / INSTRUCTION_BYTES).ok()?;
            let p = named.partition_point(|n| n.0 < i);
            named.get(p).filter(|n| n.0 == i).map(|n| n.1)
        };
        let mut next = 0;
        for (k, insn) in self.insts.iter().enumerate() {
            let addr = self.addr_of(k);
            write_label_lines(w, &named, k, o.symbols.and_then(|f| f(addr)))?;
            // This instruction's relocations: they are in instruction order, each at
            // the offset of an instruction of the code.
            let offset = INSTRUCTION_BYTES.wrapping_mul(k as u64);
            let first = next;
            while self.relocs.get(next).is_some_and(|r| r.offset == offset) {
                next += 1;
            }
            let relocs = &self.relocs[first..next];
            // An operand a relocation patches names its symbol and addend at the
            // address its placeholder code means.
            let texts: Vec<(u64, String)> = relocs
                .iter()
                .filter_map(|r| {
                    let a = insn.address(r.operand as usize, addr)?;
                    let mut t = self.symbols.get(r.symbol.index())?.clone();
                    write_addend(&mut t, r.addend).ok()?;
                    Some((a, t))
                })
                .collect();
            let names = |a: u64| -> Option<&str> {
                texts
                    .iter()
                    .find(|t| t.0 == a)
                    .map(|t| t.1.as_str())
                    .or_else(|| o.symbols.and_then(|f| f(a)))
                    .or_else(|| label_at(a))
            };
            let opts = FormatOptions {
                symbols: Some(&names),
                decimal: o.decimal,
                show_defaults: o.show_defaults,
            };
            write!(w, "/*{addr:04x}*/  ")?;
            insn.write_asm_with(w, addr, &opts)?;
            w.write_str(" ;")?;
            for (n, r) in relocs.iter().enumerate() {
                w.write_str(if n == 0 { "  // " } else { ", " })?;
                write_reloc_name(w, r)?;
                if let Some(s) = self.symbols.get(r.symbol.index()) {
                    write!(w, " {s}")?;
                }
                write_addend(w, r.addend)?;
            }
            w.write_char('\n')?;
        }
        // Labels bound after the last instruction.
        let end = self.insts.len();
        write_label_lines(w, &named, end, o.symbols.and_then(|f| f(self.addr_of(end))))
    }

    /// [`Code::write_asm_with`] with no names but the labels' and symbols', into a
    /// `String`.
    pub fn listing(&self) -> String {
        // Through `fmt::Formatter`, as `Display` writes: one writer type for every
        // listing.
        struct Listing<'c, I: SpecInstruction>(&'c Code<I>);
        impl<I: PrintInstruction> core::fmt::Display for Listing<'_, I> {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                self.0.write_asm_with(f, &FormatOptions::DEFAULT)
            }
        }
        alloc::format!("{}", Listing(self))
    }
}
