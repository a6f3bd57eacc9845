//! The `Instruction` enum over every opcode struct, and the decoder's tree.

use super::*;

impl Gen<'_> {
    /// The integer `Opcode` is represented by.
    pub(super) fn opcode_repr(&self) -> proc_macro2::Ident {
        if self.model.opcodes.len() <= 256 {
            format_ident!("u8")
        } else {
            format_ident!("u16")
        }
    }

    pub(super) fn instruction(&self) -> TokenStream {
        let m = self.model;
        let variants: Vec<_> = m.opcodes.iter().map(|o| self.struct_ident(o)).collect();
        let vdocs = self.variant_docs();
        let decoder = self.decoder();
        let core = quote! {
            #decoder

            impl Decoded {
                /// The typed instruction.
                pub const fn instruction(&self) -> Instruction {
                    let word = self.word();
                    match self.opcode {
                        #( Opcode::#variants => Instruction::#variants(#variants::from_valid_word(word)), )*
                    }
                }
            }

            /// Any instruction of the spec.
            #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
            pub enum Instruction {
                #( #[doc = #vdocs] #variants(#variants), )*
            }

            impl Instruction {
                /// The opcode.
                pub const fn opcode(&self) -> Opcode {
                    match self {
                        #( Instruction::#variants(_) => Opcode::#variants, )*
                    }
                }

                /// The 128-bit encoding.
                pub const fn encode(&self) -> u128 {
                    match self {
                        #( Instruction::#variants(i) => i.encode(), )*
                    }
                }

                /// Decodes a word exactly: the opcode is chosen by its fixed bits, every
                /// field must hold a defined code and bits outside the opcode's fields must be
                /// zero, so `decode(w)?.encode() == w` for every accepted word.
                #[inline]
                pub const fn decode(word: u128) -> Result<Instruction, DecodeError> {
                    match Decoded::decode(word) {
                        Ok(d) => Ok(d.instruction()),
                        Err(e) => Err(e),
                    }
                }

                /// Checks the spec's `__Exception` conditions.
                pub fn validate(&self) -> Result<(), ValidationError> {
                    match self {
                        #( Instruction::#variants(i) => i.validate(), )*
                    }
                }

            }
        };
        let metadata = (!self.options.skip_metadata).then(|| {
            quote! {
                impl Instruction {
                    /// Registers read: every register operand in `InList` (and any in
                    /// neither list), at the widths this instance's fields choose;
                    /// constant registers omitted.
                    pub fn reads(&self) -> Regs {
                        ::isa_rt::backend::reads(self.opcode().info(), self.encode())
                    }

                    /// Registers written (`OutList`), at the widths this instance's
                    /// fields choose; constant registers omitted.
                    pub fn writes(&self) -> Regs {
                        ::isa_rt::backend::writes(self.opcode().info(), self.encode())
                    }

                    /// Data width in bits of the operand with this spec name, if the spec gives one.
                    pub fn bitwidth(&self, operand: &str) -> Option<u32> {
                        ::isa_rt::backend::bitwidth(self.opcode().info(), self.encode(), operand)
                    }

                }
            }
        });
        let asm = (!self.options.skip_asm).then(|| quote! {
            impl Instruction {
                /// Writes the instruction as assembly, located at `addr` (branch targets
                /// print as absolute addresses).
                #[inline]
                pub fn write_asm<W: core::fmt::Write>(&self, w: &mut W, addr: u64) -> core::fmt::Result {
                    self.write_asm_with(w, addr, &FormatOptions::DEFAULT)
                }

                /// Writes the instruction as assembly, located at `addr`, the way `o` says
                /// (addresses through a symbol table, decimal numbers, defaults shown):
                /// its word, printed by `isa_rt::print` from [`TABLES`].
                pub fn write_asm_with<W: core::fmt::Write>(&self, w: &mut W, addr: u64, o: &FormatOptions) -> core::fmt::Result {
                    ::isa_rt::print::write_asm(&TABLES, self.opcode() as usize, self.encode(), addr, o, w)
                }

                /// The instruction as assembly located at `addr`, for `format!`/`write!`.
                pub fn display_at(&self, addr: u64) -> DisplayAt<'_, 'static> {
                    DisplayAt { insn: self, addr, options: FormatOptions::DEFAULT }
                }

                /// The instruction as assembly located at `addr`, written the way `o` says.
                pub fn display_with<'i, 'o>(&'i self, addr: u64, o: FormatOptions<'o>) -> DisplayAt<'i, 'o> {
                    DisplayAt { insn: self, addr, options: o }
                }
            }

            impl Decoded {
                /// Writes the instruction as assembly, located at `addr` (branch targets
                /// print as absolute addresses), as [`Instruction::write_asm`] does.
                #[inline]
                pub fn write_asm<W: core::fmt::Write>(&self, w: &mut W, addr: u64) -> core::fmt::Result {
                    self.write_asm_with(w, addr, &FormatOptions::DEFAULT)
                }

                /// Writes the instruction as assembly, located at `addr`, the way `o` says.
                pub fn write_asm_with<W: core::fmt::Write>(&self, w: &mut W, addr: u64, o: &FormatOptions) -> core::fmt::Result {
                    ::isa_rt::print::write_asm(&TABLES, self.opcode as usize, self.word(), addr, o, w)
                }
            }

            /// Prints the instruction as assembly located at address 0.
            impl core::fmt::Display for Decoded {
                fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                    self.write_asm(f, 0)
                }
            }

            /// Prints the instruction as assembly located at address 0.
            impl core::fmt::Display for Instruction {
                fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                    self.write_asm(f, 0)
                }
            }

            /// An instruction printed as located at an address; see [`Instruction::display_at`].
            #[derive(Clone, Copy, Debug)]
            pub struct DisplayAt<'i, 'o> {
                insn: &'i Instruction,
                addr: u64,
                options: FormatOptions<'o>,
            }

            impl core::fmt::Display for DisplayAt<'_, '_> {
                fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                    self.insn.write_asm_with(f, self.addr, &self.options)
                }
            }
        });
        quote! { #core #metadata #asm }
    }

    /// A decision tree over the fixed fields, giving the opcode index + 1 (0: none): at
    /// each node, switch on a fixed field that every remaining candidate fixes; leaves
    /// check the candidate's whole fixed pattern.
    pub(super) fn decode_tree(&self, cands: &[usize], tested: u128, depth: usize) -> TokenStream {
        let m = self.model;
        let unknown = quote! { 0usize };
        match cands {
            [] => return unknown,
            [one] => {
                let op = &m.opcodes[*one];
                let decode = lit(*one as u128 + 1, "usize");
                let decode = quote! { #decode };
                let rest = op.fixed_mask & !tested;
                if rest == 0 {
                    return decode;
                }
                let mask = lit_hex(rest, "u128");
                let bits = lit_hex(op.fixed_bits & rest, "u128");
                return quote! {
                    if word & #mask == #bits { #decode } else { #unknown }
                };
            }
            _ => {}
        }
        // Candidate switch fields: fixed fields shared by all candidates, not yet tested.
        let mut best: Option<(u32, u32, usize)> = None;
        if depth < 16 {
            for f in m.opcodes[cands[0]].fields.iter().filter(|f| f.is_fixed()) {
                let fm = f.mask();
                if fm & tested != 0 || fm.count_ones() > 16 {
                    continue;
                }
                if !cands.iter().all(|&c| m.opcodes[c].fixed_mask & fm == fm) {
                    continue;
                }
                let mut values: Vec<u128> = cands
                    .iter()
                    .map(|&c| (m.opcodes[c].fixed_bits & fm) >> f.start)
                    .collect();
                values.sort();
                values.dedup();
                if values.len() > 1 && best.is_none_or(|(_, _, n)| values.len() > n) {
                    best = Some((f.start, f.width, values.len()));
                }
            }
        }
        let Some((start, width, _)) = best else {
            // No shared field splits them: test each full pattern in turn (the checker
            // guarantees at most one matches).
            let arms: Vec<_> = cands
                .iter()
                .map(|&c| {
                    let op = &m.opcodes[c];
                    let k = lit(c as u128 + 1, "usize");
                    let mask = lit_hex(op.fixed_mask, "u128");
                    let bits = lit_hex(op.fixed_bits, "u128");
                    quote! {
                        if word & #mask == #bits {
                            return #k;
                        }
                    }
                })
                .collect();
            return quote! { #( #arms )* #unknown };
        };
        let fm = crate::model::mask(start, width);
        let key_ty = uint_ty(width);
        let mut groups: Vec<(u128, Vec<usize>)> = Vec::new();
        for &c in cands {
            let v = (m.opcodes[c].fixed_bits & fm) >> start;
            match groups.iter_mut().find(|(g, _)| *g == v) {
                Some((_, list)) => list.push(c),
                None => groups.push((v, vec![c])),
            }
        }
        groups.sort_by_key(|(v, _)| *v);
        let arms: Vec<_> = groups
            .iter()
            .map(|(v, list)| {
                let v = lit_hex(*v, &key_ty.to_string());
                // One candidate left: its remaining fixed bits are the arm's guard (an
                // `if` inside the arm is what clippy's `collapsible_match` refuses).
                if let [one] = list[..] {
                    let op = &m.opcodes[one];
                    let k = lit(one as u128 + 1, "usize");
                    let rest = op.fixed_mask & !(tested | fm);
                    if rest != 0 {
                        let mask = lit_hex(rest, "u128");
                        let bits = lit_hex(op.fixed_bits & rest, "u128");
                        return quote! { #v if word & #mask == #bits => #k, };
                    }
                }
                let sub = self.decode_tree(list, tested | fm, depth + 1);
                quote! { #v => { #sub } }
            })
            .collect();
        let start_l = lit(start as u128, "u32");
        let wmask = lit_hex(crate::model::mask(0, width), "u128");
        let key = if start == 0 {
            quote! { (word & #wmask) as #key_ty }
        } else {
            quote! { ((word >> #start_l) & #wmask) as #key_ty }
        };
        quote! {
            match #key {
                #( #arms )*
                _ => #unknown,
            }
        }
    }
}
