//! Generated assembly parsing: `Instruction::parse`/`parse_at`. The mnemonic selects
//! the candidate opcodes through a `match`; each opcode is described by a constant
//! `OpcodeSpec` (modifiers, guard, operands, where their bits go; `forms.rs` writes
//! them), which the matcher of `isa-rt` (`isa_rt::asm`) reads a line against to build
//! the 128-bit word: the matcher and the forms the interpreting tier uses too.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::{lit, Gen};
use crate::asm::mnemonic;

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

    /// The opcode tables, `Instruction::parse`/`parse_at`, and the mnemonic dispatch.
    pub(super) fn parse_dispatch(&self) -> TokenStream {
        let model = self.model;
        let spec_ids: Vec<proc_macro2::Ident> = model
            .opcodes
            .iter()
            .map(|op| format_ident!("{}", super::forms::form_ident(op)))
            .collect();
        // Mnemonic → specs, multi-word mnemonics (`UIMAD.WIDE`) first.
        let mut groups: Vec<(String, Vec<usize>)> = Vec::new();
        for i in 0..model.opcodes.len() {
            let m = mnemonic(model, i);
            match groups.iter_mut().find(|(g, _)| *g == m) {
                Some((_, v)) => v.push(i),
                None => groups.push((m, vec![i])),
            }
        }
        // Sorted, as the interpreting tier offers them (suggestions one swap away come
        // in this order).
        let mut all_mnemonics: Vec<&str> = groups.iter().map(|(m, _)| m.as_str()).collect();
        all_mnemonics.sort_unstable();
        let mut multi_groups: Vec<&(String, Vec<usize>)> =
            groups.iter().filter(|(m, _)| m.contains('.')).collect();
        multi_groups.sort_by_key(|(m, _)| std::cmp::Reverse(m.matches('.').count()));
        let multi: Vec<_> = multi_groups
            .iter()
            .map(|(m, ops)| {
                let words: Vec<&str> = m.split('.').collect();
                let nw = lit(words.len() as u128, "usize");
                let idx: Vec<_> = (0..words.len()).map(|i| lit(i as u128, "usize")).collect();
                let ids = ops.iter().map(|&i| &spec_ids[i]);
                quote! {
                    if l.nparts >= #nw #( && l.parts[#idx].0 == #words )* {
                        break 'found (#nw, &[ #( &#ids ),* ]);
                    }
                }
            })
            .collect();
        let single: Vec<_> = groups
            .iter()
            .filter(|(m, _)| !m.contains('.'))
            .map(|(m, ops)| {
                let ids = ops.iter().map(|&i| &spec_ids[i]);
                quote! { #m => &[ #( &#ids ),* ], }
            })
            .collect();
        // Mnemonics of one part; with none (every mnemonic has a modifier), a first
        // part that no mnemonic of several parts took is unknown.
        let unknown = quote! {
            let (_, s, e) = l.parts[0];
            return Err(AsmError::new(s, e, AsmErrorKind::UnknownMnemonic(::isa_rt::suggest::nearest::<3>(l.parts[0].0, MNEMONICS.iter().copied()))));
        };
        let single_part = if single.is_empty() {
            unknown
        } else {
            quote! {
                let specs: &[&::isa_rt::asm::OpcodeSpec<'static>] = match l.parts[0].0 {
                    #( #single )*
                    _ => { #unknown }
                };
                (1, specs)
            }
        };
        quote! {
            /// Every mnemonic, for suggestions.
            const MNEMONICS: &[&str] = &[ #( #all_mnemonics ),* ];

            impl Instruction {
                /// Parses one line of assembly located at address 0 (no labels).
                #[allow(clippy::result_large_err)]
                pub fn parse(line: &str) -> Result<Instruction, AsmError> {
                    Instruction::parse_at(line, 0, &|_| None)
                }

                /// Parses one line of assembly located at `addr`; `labels` gives the
                /// address of each `` `(label) `` a branch target names.
                // `'found` is unused when no mnemonic has several parts.
                #[allow(clippy::result_large_err, unused_labels)]
                pub fn parse_at(line: &str, addr: u64, labels: &dyn Fn(&str) -> Option<u64>) -> Result<Instruction, AsmError> {
                    // Lexed where it stays: a line is 1.6 KB, and moving it copies it.
                    let mut lexed = ::isa_rt::lex::Line::new(line);
                    if let Err(e) = ::isa_rt::lex::lex_into(line, &mut lexed) {
                        return Err(e.into());
                    }
                    let l = &lexed;
                    let (m0, cands): (usize, &[&::isa_rt::asm::OpcodeSpec<'static>]) = 'found: {
                        #( #multi )*
                        #single_part
                    };
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
