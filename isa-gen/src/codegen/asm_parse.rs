//! Generated assembly parsing: `Instruction::parse`/`parse_at`. The mnemonic selects
//! the candidate opcodes in a table sorted by mnemonic (`MNEMONIC_FORMS`, searched by
//! `isa_rt::asm::forms_of`); each opcode is described by a constant `OpcodeSpec`
//! (modifiers, guard, operands, where their bits go; `forms.rs` writes them and the
//! table), which the matcher of `isa-rt` (`isa_rt::asm`) reads a line against to build
//! the 128-bit word: the lookup, the matcher and the forms the interpreting tier uses
//! too.

use proc_macro2::TokenStream;
use quote::quote;

use super::Gen;

impl Gen<'_> {
    /// The error types and the printer's options, which are the run-time crate's
    /// (the matcher and the printer there read them), under the crate's own names.
    pub(super) fn asm_exports(&self) -> TokenStream {
        quote! {
            /// How [`Instruction::write_asm_with`] writes an instruction; see
            /// [`FormatOptions::DEFAULT`].
            pub use ::isa_rt::print::FormatOptions;
            /// Why a line of assembly was rejected, and where (its words are the
            /// spec's, held by the forms: `'static`).
            pub type AsmError = ::isa_rt::asm::AsmError<'static>;
            /// An [`AsmError`] with its line, for printing.
            pub type AsmErrorDisplay<'a> = ::isa_rt::asm::AsmErrorDisplay<'a, 'static>;
            /// What is wrong with a line of assembly.
            pub type AsmErrorKind = ::isa_rt::asm::AsmErrorKind<'static>;
            /// An operand of the wrong kind, or missing.
            pub type Expect = ::isa_rt::asm::Expect<'static>;
            /// What the spec knows of a name written where another kind of operand goes.
            pub type NameHint = ::isa_rt::asm::NameHint<'static>;
            /// What is wrong with an operand of the right kind.
            pub type Problem = ::isa_rt::asm::Problem<'static>;
        }
    }

    /// `Instruction::parse`/`parse_at`: the line's mnemonic looked up in the forms by
    /// mnemonic (`MNEMONIC_FORMS`, written with the forms), its forms handed to the
    /// matcher.
    pub(super) fn parse_dispatch(&self) -> TokenStream {
        quote! {
            impl Instruction {
                /// Parses one line of assembly located at address 0 (no labels).
                #[allow(clippy::result_large_err)]
                pub fn parse(line: &str) -> Result<Instruction, AsmError> {
                    Instruction::parse_at(line, 0, &|_| None)
                }

                /// Parses one line of assembly located at `addr`; `labels` gives the
                /// address of each `` `(label) `` a branch target names.
                #[allow(clippy::result_large_err)]
                pub fn parse_at(line: &str, addr: u64, labels: &dyn Fn(&str) -> Option<u64>) -> Result<Instruction, AsmError> {
                    // Lexed where it stays: a line is 1.6 KB, and moving it copies it.
                    let mut lexed = ::isa_rt::lex::Line::new(line);
                    if let Err(e) = ::isa_rt::lex::lex_into(line, &mut lexed) {
                        return Err(e.into());
                    }
                    let l = &lexed;
                    let (m0, cands) = ::isa_rt::asm::forms_of(l, MNEMONIC_FORMS)?;
                    let word = ::isa_rt::asm::assemble(l, m0, cands, addr, labels)?;
                    Instruction::decode(word).map_err(|_| {
                        AsmError::new(0, line.len(), AsmErrorKind::Msg("internal error: the assembled word does not decode"))
                    })
                }
            }

            impl core::str::FromStr for Instruction {
                type Err = AsmError;
                #[allow(clippy::result_large_err)]
                fn from_str(s: &str) -> Result<Instruction, AsmError> {
                    Instruction::parse(s)
                }
            }
        }
    }
}
