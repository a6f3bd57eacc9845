//! `__Examples` lines against the assembler.

use super::*;

impl Cx<'_> {
    pub(super) fn examples_section(
        &self,
        owner: &str,
        scope: &[usize],
        doc: &DocSection,
        diags: &mut Diagnostics,
    ) {
        if doc.code_blocks.is_empty() {
            diags.push(
                Diagnostic::warning(Lint::Examples,
                    doc.span,
                    format!("`__Examples` of `{owner}` has no fenced code block"),
                )
                .with_label("only prose here")
                .with_note("examples are assembly lines inside ``` fences; this section holds no code to check"),
            );
            return;
        }
        let mut any = false;
        for line in doc.code_blocks.iter().flat_map(|b| &b.lines) {
            any |= self.example_line(owner, scope, line, diags);
        }
        if !any {
            diags.push(
                Diagnostic::warning(
                    Lint::Examples,
                    doc.span,
                    format!("`__Examples` of `{owner}` has no example lines"),
                )
                .with_label("its code blocks hold no instructions"),
            );
        }
    }

    /// Assembles one example line; a line that does not assemble gets a warning at the
    /// offending column. Returns whether the line held an instruction.
    fn example_line(
        &self,
        owner: &str,
        scope: &[usize],
        line: &CodeLine,
        diags: &mut Diagnostics,
    ) -> bool {
        let parts = match crate::asm::program::split_line(&line.text) {
            Ok(parts) => parts,
            Err(at) => {
                let mut stats = self.stats.get();
                stats.warned += 1;
                self.stats.set(stats);
                diags.push(
                    Diagnostic::warning(
                        Lint::Examples,
                        sub_span(line, at, at + 2),
                        "example has an unterminated `/*` address prefix",
                    )
                    .with_label("no `*/` after this"),
                );
                return true;
            }
        };
        // `/*0010*/`: the instruction's address (for branch targets).
        let addr = match parts.prefix {
            None => 0,
            Some((_, Ok(addr))) => addr,
            Some((at, Err(inner))) => {
                diags.push(
                    Diagnostic::warning(
                        Lint::Examples,
                        sub_span(line, at.start, at.end),
                        format!("example address prefix `/*{inner}*/` is not a hex address"),
                    )
                    .with_label("read as address 0"),
                );
                0
            }
        };
        let (start, insn) = parts.insn;
        if insn.is_empty() {
            return false;
        }
        // Examples are fragments: a label they reference stands for the next instruction.
        let labels = |_: &str| Some(addr + crate::asm::program::INST_SIZE);
        let mut stats = self.stats.get();
        match self.asm.parse_line(insn, addr, &labels) {
            Ok(d) => {
                if scope.contains(&d.opcode) {
                    stats.assembled += 1;
                } else {
                    stats.warned += 1;
                    diags.push(Diagnostic::warning(Lint::Examples,
                        sub_span(line, start, start + insn.len()),
                        format!(
                            "example of `{owner}` assembles as `{}`, which is not one of its opcodes",
                            self.model.opcodes[d.opcode].name
                        ),
                    ));
                }
            }
            Err(e) => {
                stats.warned += 1;
                let (a, z) = (start + e.span.start, start + e.span.end.max(e.span.start));
                let mut d = Diagnostic::warning(
                    Lint::Examples,
                    sub_span(line, a, z),
                    format!("example does not assemble: {}", e.message),
                )
                .with_label("here");
                for n in e.notes {
                    d = d.with_note(n);
                }
                diags.push(d);
            }
        }
        self.stats.set(stats);
        true
    }
}
