//! Registers read and written: `RegRef`, and `Regs`, the list `isa_rt::backend`
//! fills from the metadata's register operands (`reads`/`writes`).

use super::*;
use crate::model::Access;

impl Gen<'_> {
    /// Most registers one instruction of the spec reads, or writes (at least 1): the
    /// capacity of `Regs`, from the register operands the metadata states.
    fn max_regs(&self) -> usize {
        let m = self.model;
        let most = |op: &Opcode, of: fn(Access) -> bool| -> usize {
            op.reg_operands(m)
                .iter()
                .filter(|r| of(r.access))
                .map(|r| r.max_count(m, op) as usize)
                .sum()
        };
        m.opcodes
            .iter()
            .map(|op| most(op, Access::reads).max(most(op, Access::writes)))
            .max()
            .unwrap_or(0)
            .max(1)
    }

    pub(super) fn reg_ref(&self) -> TokenStream {
        let tys = self.reg_ref_types();
        let variants: Vec<_> = tys.iter().map(|t| self.type_ident(*t)).collect();
        let docs: Vec<_> = tys
            .iter()
            .map(|t| format!(" A `{}`.", self.model.ty(*t).name))
            .collect();
        let cap = self.max_regs();
        let cap_l = lit(cap as u128, "usize");
        quote! {
            /// A register (or register-like operand) an instruction reads or writes.
            ///
            /// Named constant registers are never listed: they hold no state.
            /// An operand wider than 32 bits lists each register it spans. Ordered by
            /// register file, then code (so it keys a `BTreeSet` or a sorted live set).
            #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
            pub enum RegRef {
                #( #[doc = #docs] #variants(#variants), )*
            }

            /// The registers an instruction reads or writes, in the order of its
            /// register operands: an iterator, without allocation, over at most as
            /// many as any instruction of the spec covers.
            pub type Regs = ::isa_rt::backend::Regs<RegRef, #cap_l>;
        }
    }
}
