// Hand-written assembly listing of placed code, emitted verbatim into the `backend`
// module when the generated API has both the code buffer and the printer (see
// `codegen::backend`). Spec-independent.

/// The ELF name of a relocation (`R_ISA_ADDR_REL`, `R_ISA_ADDR_ABS#1` for address
/// operand 1), as `isa disasm` shows it.
fn write_reloc_name<W: core::fmt::Write>(w: &mut W, r: &Reloc) -> core::fmt::Result {
    w.write_str(r.kind.elf_name())?;
    if r.operand != 0 {
        write!(w, "#{}", r.operand)?;
    }
    Ok(())
}

impl Code {
    /// Writes the code as a listing `isa asm` reads back (with `-o FILE.o` when it has
    /// relocations): an `.extern` line per symbol, then an instruction a line with its
    /// address as a `/*…*/` prefix. `o.symbols` names addresses: a named address gets
    /// a label line (`name:`) and address operands pointing at it print the name. An
    /// operand a relocation still patches prints its symbol (`` `(name) ``, not the
    /// address its placeholder code 0 means), with the relocation in a comment, as
    /// `isa disasm` prints an object file.
    pub fn write_asm_with<W: core::fmt::Write>(&self, w: &mut W, o: &FormatOptions) -> core::fmt::Result {
        for s in &self.symbols {
            writeln!(w, ".extern {s}")?;
        }
        let mut next = 0;
        for (k, insn) in self.insts.iter().enumerate() {
            let addr = self.base.wrapping_add(16 * k as u64);
            if let Some(name) = o.symbols.and_then(|f| f(addr)) {
                writeln!(w, "{name}:")?;
            }
            // This instruction's relocations (they are in instruction order).
            let offset = 16 * k as u64;
            while self.relocs.get(next).is_some_and(|r| r.offset < offset) {
                next += 1;
            }
            let first = next;
            while self.relocs.get(next).is_some_and(|r| r.offset == offset) {
                next += 1;
            }
            let relocs = &self.relocs[first..next];
            // An operand a relocation patches names its symbol at the address its
            // placeholder code means.
            let names = |a: u64| -> Option<&str> {
                relocs
                    .iter()
                    .find(|r| insn.address(r.operand as usize, addr) == Some(a))
                    .and_then(|r| self.symbols.get(r.symbol.index()))
                    .map(|s| s.as_str())
                    .or_else(|| o.symbols.and_then(|f| f(a)))
            };
            let opts = FormatOptions {
                symbols: Some(&names),
                ..*o
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
                if r.addend < 0 {
                    write!(w, "-{:#x}", r.addend.unsigned_abs())?;
                } else if r.addend > 0 {
                    write!(w, "+{:#x}", r.addend)?;
                }
            }
            w.write_char('\n')?;
        }
        Ok(())
    }

    /// [`Code::write_asm_with`] with no names but the symbols', into a `String`.
    pub fn listing(&self) -> alloc::string::String {
        let mut s = alloc::string::String::new();
        // Writing into a `String` cannot fail.
        let _ = self.write_asm_with(&mut s, &FormatOptions::DEFAULT);
        s
    }
}
