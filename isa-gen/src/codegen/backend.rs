//! What compiler backends need, generated per spec: the register files as one
//! `RegFile` enum with `RegRef` conversions, and each opcode's flow, address operands,
//! condition fields and register operands as static tables. The code that reads the
//! tables is `isa_rt::backend`'s, and the code buffer is `isa_rt::buffer`'s: the
//! generated crate implements their traits for its `Instruction`, `RegRef` and
//! `RegFile`, names their types under its own names, and keeps `Instruction`'s
//! backend methods as one-line calls of the trait's.

use proc_macro2::TokenStream;
use quote::quote;

use super::{lit, uint_ty, Gen};
use crate::model::{Access, Address, Opcode, RegSource, TypeId, TypeKind};

impl Gen<'_> {
    /// Types whose values are registers: register files and `__DefRegisters`
    /// enumerations, in definition order.
    pub(super) fn reg_ref_types(&self) -> Vec<TypeId> {
        (0..self.model.types.len())
            .map(TypeId)
            .filter(|&t| self.model.is_register_type(t))
            .collect()
    }

    /// The `backend` module (`isa-rt`'s backend and code buffer under this crate's
    /// names), the traits' impls, `RegFile`, and `RegRef`'s conversions.
    pub(super) fn backend(&self) -> TokenStream {
        // The listing prints instructions: only with the printer.
        let print = (!self.options.skip_asm).then(|| {
            quote! {
                impl ::isa_rt::backend::PrintInstruction for Instruction {
                    fn write_asm_with(&self, mut w: &mut dyn core::fmt::Write, addr: u64, o: &FormatOptions<'_>) -> core::fmt::Result {
                        Instruction::write_asm_with(self, &mut w, addr, o)
                    }
                }
            }
        });
        let tys = self.reg_ref_types();
        let variants: Vec<_> = tys.iter().map(|&t| self.type_ident(t)).collect();
        let names: Vec<_> = tys.iter().map(|&t| self.model.ty(t).name.clone()).collect();
        let docs: Vec<_> = tys
            .iter()
            .map(|&t| {
                let ty = self.model.ty(t);
                match &ty.kind {
                    TypeKind::RegFile(rf) => format!(
                        " `{}`: registers `{}{}`..`{}{}`{}.",
                        ty.name,
                        rf.prefix,
                        rf.lo,
                        rf.prefix,
                        rf.hi,
                        if rf.named.is_empty() {
                            String::new()
                        } else {
                            let n: Vec<String> =
                                rf.named.iter().map(|(n, _)| format!("`{n}`")).collect();
                            format!(" and {}", n.join(", "))
                        }
                    ),
                    _ => format!(" `{}`: an enumeration of registers.", ty.name),
                }
            })
            .collect();
        let from_code: Vec<_> = tys
            .iter()
            .map(|&t| {
                let v = self.type_ident(t);
                let bits = uint_ty(self.model.ty(t).width);
                if bits == "u64" {
                    quote! { RegFile::#v => #v::from_bits(code).map(RegRef::#v), }
                } else {
                    quote! {
                        RegFile::#v => match #bits::try_from(code) {
                            Ok(c) => #v::from_bits(c).map(RegRef::#v),
                            Err(_) => None,
                        },
                    }
                }
            })
            .collect();
        // Codes are stored in the narrowest unsigned type (at most `u64`).
        let code_arms: Vec<_> = tys
            .iter()
            .map(|&t| {
                let v = self.type_ident(t);
                if uint_ty(self.model.ty(t).width) == "u64" {
                    quote! { RegRef::#v(r) => r.bits(), }
                } else {
                    quote! { RegRef::#v(r) => r.bits() as u64, }
                }
            })
            .collect();
        let constant: Vec<_> = tys
            .iter()
            .map(|&t| {
                let v = self.type_ident(t);
                match self.model.ty(t).kind {
                    TypeKind::RegFile(_) => quote! { RegRef::#v(r) => r.is_constant(), },
                    _ => quote! { RegRef::#v(_) => false, },
                }
            })
            .collect();
        // A virtual register stands in `code!` wherever a register of a file goes (the
        // spec's types by path: a spec type may share a name with the backend's).
        let holes: Vec<_> = tys
            .iter()
            .filter(|&&t| matches!(self.model.ty(t).kind, TypeKind::RegFile(_)))
            .map(|&t| {
                let v = self.type_ident(t);
                quote! {
                    impl Hole<super::#v, RegFile> for VReg {
                        fn fill(self, _: &mut super::#v) -> Option<VReg> {
                            Some(self)
                        }
                    }
                }
            })
            .collect();
        // The numbered registers and sharing of each file (an allocator's registers).
        let numbered: Vec<_> = tys
            .iter()
            .map(|&t| {
                let v = self.type_ident(t);
                match &self.model.ty(t).kind {
                    TypeKind::RegFile(rf) => {
                        let (lo, hi) = (rf.lo as u64, rf.hi as u64);
                        quote! { RegFile::#v => Some((#lo, #hi)), }
                    }
                    _ => quote! { RegFile::#v => None, },
                }
            })
            .collect();
        let per_lane: Vec<_> = tys
            .iter()
            .map(|&t| {
                let v = self.type_ident(t);
                let p = matches!(&self.model.ty(t).kind, TypeKind::RegFile(rf) if rf.per_lane);
                quote! { RegFile::#v => #p, }
            })
            .collect();
        // A register file wider than the name tables has no `&'static str` names (its
        // registers are written by `Display`), so `RegRef::name` exists only when
        // every file has them.
        let named = tys.iter().all(|&t| {
            !matches!(self.model.ty(t).kind, TypeKind::RegFile(_))
                || self.model.ty(t).width <= super::types::NAME_TABLE_MAX_BITS
        });
        let name_fn = named.then(|| {
            quote! {
                /// The register's name, as assembly writes it.
                pub const fn name(self) -> &'static str {
                    match self {
                        #( RegRef::#variants(r) => r.name(), )*
                    }
                }
            }
        });
        let offset: Vec<_> = tys
            .iter()
            .map(|&t| {
                let v = self.type_ident(t);
                match self.model.ty(t).kind {
                    TypeKind::RegFile(_) => {
                        // The file's own `offset` counts in its storage type.
                        let bits = uint_ty(self.model.ty(t).width);
                        let n = if bits == "u8" { quote! { n } } else { quote! { n as #bits } };
                        quote! {
                        RegRef::#v(r) => match r.offset(#n) { Some(x) => Some(RegRef::#v(x)), None => None },
                        }
                    }
                    _ => quote! { RegRef::#v(r) => if n == 0 { Some(RegRef::#v(r)) } else { None }, },
                }
            })
            .collect();
        quote! {
            /// What compiler backends need beyond encoding: control flow, address
            /// operands, register operands and their access, a register rewrite, and a
            /// code buffer with labels and relocations. Spec-independent; it reads the
            /// tables of [`OpcodeInfo`] (`flow`, `addresses`, `regs`, `conditions`).
            pub mod backend {
                use super::*;

                pub use ::isa_rt::backend::{RegError, TargetError};
                pub use ::isa_rt::buffer::{Hole, Label, LinkError, Reloc, RelocKind, Symbol, Target};
                pub use ::isa_rt::info::{Access, AddressInfo, Flow};

                /// A register operand of an opcode, as static metadata.
                pub type RegOperandInfo = ::isa_rt::info::RegOperandInfo<RegFile>;
                /// A register operand of an instruction.
                pub type RegOperand = ::isa_rt::backend::RegOperand<RegRef>;
                /// Builds a sequence of instructions with labels, references to outside
                /// symbols and virtual registers (`isa_rt::buffer::CodeBuffer`).
                pub type CodeBuffer = ::isa_rt::buffer::CodeBuffer<Instruction>;
                /// Placed code: instructions with every label resolved, and the
                /// relocations that refer to symbols outside it.
                pub type Code = ::isa_rt::buffer::Code<Instruction>;
                /// What went wrong placing code.
                pub type BufferError = ::isa_rt::buffer::BufferError<Instruction>;
                /// A virtual register of a [`CodeBuffer`].
                pub type VReg = ::isa_rt::buffer::VReg<RegFile>;
                /// Why virtual registers cannot be used or allocated.
                pub type AllocError = ::isa_rt::buffer::AllocError<Instruction>;
                /// What allocation must respect beyond the instructions: the calling
                /// convention.
                pub type Abi = ::isa_rt::buffer::Abi<RegRef>;
                /// The registers [`CodeBuffer::allocate`] gave.
                pub type Allocated = ::isa_rt::buffer::Allocated<RegRef>;

                #( #holes )*
            }

            impl ::isa_rt::backend::RegisterFile for RegFile {
                const ALL: &'static [RegFile] = RegFile::ALL;

                fn name(self) -> &'static str {
                    RegFile::name(self)
                }

                fn numbered(self) -> Option<(u64, u64)> {
                    RegFile::numbered(self)
                }

                fn per_lane(self) -> bool {
                    RegFile::per_lane(self)
                }
            }

            impl ::isa_rt::backend::Register for RegRef {
                type File = RegFile;

                fn file(self) -> RegFile {
                    RegRef::file(self)
                }

                fn code(self) -> u64 {
                    RegRef::code(self)
                }

                fn from_code(file: RegFile, code: u64) -> Option<RegRef> {
                    RegRef::from_code(file, code)
                }

                fn is_constant(self) -> bool {
                    RegRef::is_constant(self)
                }

                fn offset(self, n: u8) -> Option<RegRef> {
                    RegRef::offset(self, n)
                }
            }

            impl ::isa_rt::backend::SpecInstruction for Instruction {
                type Opcode = Opcode;
                type Reg = RegRef;

                fn opcode(&self) -> Opcode {
                    Instruction::opcode(self)
                }

                fn info(&self) -> &'static OpcodeInfo {
                    Instruction::opcode(self).info()
                }

                fn encode(&self) -> u128 {
                    Instruction::encode(self)
                }

                fn from_word(word: u128) -> Option<Instruction> {
                    Instruction::decode(word).ok()
                }
            }

            #print

            impl Instruction {
                /// What the instruction does to the program counter: its opcode's flow,
                /// except that an indirect branch, call or return through registers that
                /// read 0 (`CALL.REL RZ, 0x100`) is a direct branch or call to its address
                /// operand (a return to a fixed address is a branch).
                pub fn flow(&self) -> backend::Flow {
                    ::isa_rt::backend::SpecInstruction::flow(self)
                }

                /// Whether the guard predicate may be false: it is not the always-true
                /// register, or it is negated. Writes of a guarded instruction are
                /// conditional.
                pub fn is_guarded(&self) -> bool {
                    ::isa_rt::backend::is_guarded(self.opcode().info(), self.encode())
                }

                /// Whether the flow is conditional: the guard, or one of the fields the
                /// spec names as conditions (such as a second predicate or a `.DIV`
                /// modifier), is not at its default. A conditional branch also falls
                /// through.
                pub fn is_conditional(&self) -> bool {
                    ::isa_rt::backend::SpecInstruction::is_conditional(self)
                }

                /// The operands that name code addresses (they take labels).
                pub fn addresses(&self) -> &'static [backend::AddressInfo] {
                    self.opcode().info().addresses
                }

                /// Whether address operand `k` is an absolute address in this instance
                /// (not one relative to the next instruction); `None` when there is no
                /// such operand.
                pub fn address_is_absolute(&self, k: usize) -> Option<bool> {
                    ::isa_rt::backend::SpecInstruction::address_is_absolute(self, k)
                }

                /// The address that address operand `k` names, for the instruction at
                /// `addr`.
                pub fn address(&self, k: usize, addr: u64) -> Option<u64> {
                    ::isa_rt::backend::SpecInstruction::address(self, k, addr)
                }

                /// Makes address operand `k` of the instruction at `addr` name `target`.
                pub fn set_address(&mut self, k: usize, addr: u64, target: u64) -> Result<(), backend::TargetError> {
                    ::isa_rt::backend::SpecInstruction::set_address(self, k, addr, target)
                }

                /// The address the instruction's flow goes to (a direct branch or call,
                /// or the convergence point of a `converge`), for the instruction at
                /// `addr`.
                pub fn branch_target(&self, addr: u64) -> Option<u64> {
                    let k = ::isa_rt::backend::SpecInstruction::target_operand(self)?;
                    self.address(k as usize, addr)
                }

                /// Makes the instruction at `addr` go to `target`.
                pub fn set_branch_target(&mut self, addr: u64, target: u64) -> Result<(), backend::TargetError> {
                    let k = ::isa_rt::backend::SpecInstruction::target_operand(self)
                        .ok_or(backend::TargetError::NoAddress)?;
                    self.set_address(k as usize, addr, target)
                }

                /// Applies a relocation to an encoded word: address operand `k` of the
                /// instruction at `addr` is made to name `target`. The word must decode.
                pub fn relocate(word: u128, addr: u64, k: usize, target: u64) -> Result<u128, backend::TargetError> {
                    let insn = Instruction::decode(word).map_err(|_| backend::TargetError::NoAddress)?;
                    ::isa_rt::backend::relocate(insn.opcode().info(), word, addr, k, target)
                }

                /// The register operands as this instance uses them: every register
                /// operand of the opcode, `Order` first, with its register, the number of
                /// registers it covers and its access (writes are conditional under a
                /// guard that may be false).
                pub fn reg_operands(&self) -> impl core::iter::Iterator<Item = backend::RegOperand> + '_ {
                    ::isa_rt::backend::SpecInstruction::reg_operands(self)
                }

                /// Rewrites the registers of the instruction, as a register allocator
                /// does after assignment: `f` gets each register operand and returns the
                /// (first) register it should name. Operand words stand for fixed
                /// registers and must come back unchanged; a register of another file is
                /// an error. Nothing changes on error.
                pub fn map_regs(&mut self, f: impl core::ops::FnMut(&backend::RegOperand) -> RegRef) -> Result<(), backend::RegError> {
                    ::isa_rt::backend::SpecInstruction::map_regs(self, f)
                }
            }

            /// A register file: the files of the spec, and its enumerations of registers.
            #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
            pub enum RegFile {
                #( #[doc = #docs] #variants, )*
            }

            impl RegFile {
                /// Every register file, in spec order.
                pub const ALL: &'static [RegFile] = &[ #( RegFile::#variants ),* ];

                /// The spec's name of the file's type (`Reg`).
                pub const fn name(self) -> &'static str {
                    match self {
                        #( RegFile::#variants => #names, )*
                    }
                }

                /// The codes of the file's numbered registers, first and last (`R0`..`R254`:
                /// `(0, 254)`): the registers an allocator may give out. `None` for an
                /// enumeration of registers, whose registers are only named.
                pub const fn numbered(self) -> Option<(u64, u64)> {
                    match self {
                        #( #numbered )*
                    }
                }

                /// Whether each lane has its own copy of the file (the spec's `per-lane`);
                /// otherwise the warp shares one.
                pub const fn per_lane(self) -> bool {
                    match self {
                        #( #per_lane )*
                    }
                }
            }

            impl RegRef {
                /// The register file.
                pub const fn file(self) -> RegFile {
                    match self {
                        #( RegRef::#variants(_) => RegFile::#variants, )*
                    }
                }

                /// The register's code (its encoding).
                pub const fn code(self) -> u64 {
                    match self {
                        #( #code_arms )*
                    }
                }

                /// The register of `file` with this code, or `None` for an undefined code.
                pub fn from_code(file: RegFile, code: u64) -> Option<RegRef> {
                    match file {
                        #( #from_code )*
                    }
                }

                #name_fn

                /// Whether this is a named constant register of its file: it holds no
                /// state, reads give a constant and writes are dropped.
                pub const fn is_constant(self) -> bool {
                    match self {
                        #( #constant )*
                    }
                }

                /// The register `n` places after this one (for multi-register operands),
                /// or `None` past the numbered range or for a constant register.
                pub const fn offset(self, n: u8) -> Option<RegRef> {
                    match self {
                        #( #offset )*
                    }
                }
            }

            impl core::fmt::Display for RegRef {
                fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                    match self {
                        #( RegRef::#variants(r) => core::fmt::Display::fmt(r, f), )*
                    }
                }
            }
        }
    }

    /// The backend members of an opcode's `OpcodeInfo`.
    pub(super) fn backend_info(
        &self,
        op: &Opcode,
        shared: &mut super::metadata::SharedRows,
    ) -> TokenStream {
        let m = self.model;
        let flow = proc_macro2::Ident::new(
            &heck::ToUpperCamelCase::to_upper_camel_case(op.flow.kind.name()),
            proc_macro2::Span::call_site(),
        );
        // The guard and its sub-fields first, then the condition fields and theirs.
        let mut conditions: Vec<usize> = Vec::new();
        let with_subs = |f: usize, out: &mut Vec<usize>| {
            for x in std::iter::once(f).chain(op.sub_fields(f)) {
                if !out.contains(&x) {
                    out.push(x);
                }
            }
        };
        if let Some(g) = op.guard(m) {
            with_subs(g, &mut conditions);
        }
        let guard_fields = conditions.len();
        for &c in &op.flow.conditions {
            with_subs(c, &mut conditions);
        }
        let conditions = conditions.iter().map(|&f| lit(f as u128, "u8"));
        let guard_fields = lit(guard_fields as u128, "u8");

        let mut addresses = Vec::new();
        let mut target = quote! { None };
        let mut direct = quote! { None };
        for (f, mode) in op.address_operands() {
            let Some((shift, _)) = op.address(f) else {
                continue;
            };
            if op.flow.target == Some(f) {
                let k = lit(addresses.len() as u128, "u8");
                target = quote! { Some(#k) };
            }
            if let Some((regs, t)) = &op.flow.direct {
                if *t == f {
                    let k = lit(addresses.len() as u128, "u8");
                    let pairs = regs.iter().flat_map(|&r| {
                        let zeros = m.ty(op.fields[r].ty).reg_file().map_or(Vec::new(), |rf| {
                            rf.reads.iter().filter(|x| x.1 == 0).map(|x| x.0).collect()
                        });
                        zeros.into_iter().map(move |c| {
                            let (r, c) = (lit(r as u128, "u8"), lit(c, "u128"));
                            quote! { (#r, #c) }
                        })
                    });
                    direct = quote! { Some((&[ #( #pairs ),* ], #k)) };
                }
            }
            let field = &op.fields[f];
            let ty = m.ty(field.ty);
            let name = &field.name;
            let fl = lit(f as u128, "u8");
            let shift = lit(shift as u128, "u8");
            let width = lit(ty.width.min(field.width) as u128, "u8");
            let signed = matches!(ty.kind, TypeKind::Immediate { signed: true });
            let absolute = mode == Address::Absolute;
            let absolute_when = match mode {
                Address::Select { field, code } => {
                    let (g, c) = (lit(field as u128, "u8"), lit(code, "u128"));
                    quote! { Some((#g, #c)) }
                }
                _ => quote! { None },
            };
            addresses.push(quote! {
                backend::AddressInfo { operand: #name, field: #fl, shift: #shift, width: #width, signed: #signed, absolute: #absolute, absolute_when: #absolute_when }
            });
        }

        let regs: Vec<_> = op
            .reg_operands(m)
            .iter()
            .map(|r| {
                let name = &r.name;
                let file = self.type_ident(r.file);
                let access = match r.access {
                    Access::Read => quote! { backend::Access::Read },
                    Access::Write => quote! { backend::Access::Write },
                    Access::ReadWrite => quote! { backend::Access::ReadWrite },
                    Access::CondWrite => quote! { backend::Access::CondWrite },
                    Access::ReadCondWrite => quote! { backend::Access::ReadCondWrite },
                };
                let guard = r.guard;
                let index = r.index;
                let count = r.max_count(m, op);
                let (field, first, varies) = match r.source {
                    RegSource::Field(f) => {
                        let fl = lit(f as u128, "u8");
                        let varies = op.bitwidth(f).is_some_and(|b| b.expr.as_const().is_none())
                            && m.ty(r.file).reg_file().is_some();
                        (quote! { Some(#fl) }, 0u128, varies)
                    }
                    RegSource::Word(w) => (quote! { None }, m.words[w.0].lo, false),
                    // Every numbered register of the file: fixed, as far as an
                    // allocator is concerned.
                    RegSource::Indexed { file, .. } => {
                        let lo = m.ty(file).reg_file().map_or(0, |r| r.lo);
                        (quote! { None }, lo, false)
                    }
                };
                let first = lit(first, "u16");
                let count = lit(count as u128, "u16");
                quote! {
                    backend::RegOperandInfo {
                        name: #name, file: RegFile::#file, access: #access, guard: #guard,
                        index: #index, field: #field, fixed_first: #first, max_count: #count,
                        varies: #varies,
                    }
                }
            })
            .collect();
        let bitwidths: Vec<_> = op
            .bitwidths
            .iter()
            .map(|b| {
                let field = lit(b.field as u128, "u8");
                let expr = expr_tokens(&b.expr);
                quote! { ::isa_rt::info::BitwidthInfo { field: #field, expr: &[ #expr ] } }
            })
            .collect();
        let regs = shared.share("REGS", quote! { backend::RegOperandInfo }, &regs);
        let bitwidths = shared.share(
            "WIDTHS",
            quote! { ::isa_rt::info::BitwidthInfo },
            &bitwidths,
        );
        quote! {
            flow: backend::Flow::#flow,
            conditions: &[ #( #conditions ),* ],
            guard_fields: #guard_fields,
            addresses: &[ #( #addresses ),* ],
            target: #target,
            direct: #direct,
            regs: #regs,
            bitwidths: #bitwidths,
        }
    }
}

/// Expression `e` as the steps of `isa_rt::expr` (comma-separated), the one postfix
/// form the tables and the forms write too.
fn expr_tokens(e: &crate::model::CExpr) -> TokenStream {
    let mut ops = Vec::new();
    crate::asm::tables::postfix(e, &mut ops);
    let mut s = String::new();
    for o in &ops {
        super::tables::op_in(&mut s, o, "::isa_rt::expr");
        s.push(',');
    }
    // The steps are paths and integer literals: they always parse.
    s.parse().unwrap_or_default()
}
