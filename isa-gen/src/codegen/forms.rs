//! The matcher's forms as constants of the generated crate: each opcode's
//! `isa_rt::asm::OpcodeSpec`, as the interpreting tier builds it
//! ([`crate::asm::Forms`], one builder), written out as Rust so that the generated
//! `Instruction::parse` hands the same forms to the same matcher. Written as text, one
//! form a line, after the rendered tokens, as the tables are (`tables.rs`).

use std::collections::HashMap;
use std::fmt::Write;

use bumpalo::Bump;
use isa_rt::asm::{
    At, Count, Exception, GuardSpec, ImmAddr, Kind, ModSpec, Names, OpcodeSpec, OperandSpec,
    RegFile, Sub, SubRole,
};

use super::Gen;

/// The constant holding opcode `op`'s form.
pub(super) fn form_ident(op: &crate::model::Opcode) -> String {
    format!("SPEC_{}", super::names::field_name(&op.name).to_uppercase())
}

/// The items `const ASM_REG_FILES`, `static MNEMONIC_FORMS` and `const SPEC_…` of
/// every opcode.
pub(super) fn forms_text(g: &Gen) -> String {
    let model = g.model;
    let bump = Bump::new();
    let forms = crate::asm::Forms::new(&bump, &g.asm);
    // A type's names are its `Named::NAMES` (what its `FromStr` reads too).
    let mut types = HashMap::new();
    for (i, t) in model.types.iter().enumerate() {
        if matches!(
            t.kind,
            crate::model::TypeKind::RegFile(_) | crate::model::TypeKind::Enum(_)
        ) {
            let ty = crate::model::TypeId(i);
            let path = format!("<{} as ::isa_rt::table::Named>::NAMES", g.type_ident(ty));
            types.entry(key(forms.names(ty))).or_insert(path);
        }
    }
    let w = Writer { types };
    let mut s = String::new();
    s.push_str("/// Register files: type, prefix, numbered range, constant registers.\n");
    s.push_str("const ASM_REG_FILES: &[::isa_rt::asm::RegFile<'static>] = &[");
    // Every form holds the spec's register files (a spec that generates has an opcode).
    for (k, f) in forms.opcode(0).files.iter().enumerate() {
        if k > 0 {
            s.push_str(", ");
        }
        w.reg_file(&mut s, f);
    }
    s.push_str("];\n");
    // The forms by mnemonic, by its first part, as `isa_rt::asm::forms_of` reads them.
    s.push_str("/// The forms of each mnemonic, by the mnemonic's first part.\n");
    s.push_str("static MNEMONIC_FORMS: &::isa_rt::asm::Mnemonics<'static> = &[\n");
    for (first, mnemonics) in g.asm.mnemonic_forms() {
        let _ = write!(s, "({first:?}, &[");
        for (j, (m, opcodes)) in mnemonics.iter().enumerate() {
            if j > 0 {
                s.push_str(", ");
            }
            let _ = write!(s, "({m:?}, &[");
            for (k, &i) in opcodes.iter().enumerate() {
                if k > 0 {
                    s.push_str(", ");
                }
                let _ = write!(s, "&{}", form_ident(&model.opcodes[i]));
            }
            s.push_str("])");
        }
        s.push_str("]),\n");
    }
    s.push_str("];\n");
    for (i, op) in model.opcodes.iter().enumerate() {
        let form = forms.opcode(i);
        let _ = write!(
            s,
            "const {}: ::isa_rt::asm::OpcodeSpec<'static> = ",
            form_ident(op)
        );
        w.opcode(&mut s, &form);
        s.push_str(";\n");
    }
    s
}

/// What a list of names is, for finding the type it is of.
fn key(n: Names<'_>) -> String {
    format!("{n:?}")
}

struct Writer {
    /// The `Named::NAMES` of the types, by [`key`].
    types: HashMap<String, String>,
}

impl Writer {
    fn names(&self, s: &mut String, n: Names<'_>) {
        if let Some(path) = self.types.get(&key(n)) {
            s.push_str(path);
            return;
        }
        s.push_str("::isa_rt::table::Names { named: &[");
        for (k, (name, c)) in n.named.iter().enumerate() {
            if k > 0 {
                s.push_str(", ");
            }
            let _ = write!(s, "({name:?}, {c})");
        }
        s.push_str("], numbered: ");
        match n.numbered {
            Some((p, lo, hi)) => {
                let _ = write!(s, "Some(({p:?}, {lo}, {hi}))");
            }
            None => s.push_str("None"),
        }
        s.push_str(" }");
    }

    fn reg_file(&self, s: &mut String, f: &RegFile<'_>) {
        let _ = write!(
            s,
            "::isa_rt::asm::RegFile {{ type_name: {:?}, prefix: {:?}, lo: {}, hi: {}, named: {:?} }}",
            f.type_name, f.prefix, f.lo, f.hi, f.named
        );
    }

    fn opcode(&self, s: &mut String, f: &OpcodeSpec<'_>) {
        let _ = write!(
            s,
            "::isa_rt::asm::OpcodeSpec {{ mnemonic: {:?}, fields: &{:?}, places: &[",
            f.mnemonic, f.fields
        );
        list(s, f.places, |s, &a| at(s, a));
        let _ = write!(
            s,
            "], mods_text: {:?}, base: {:#x}, mods: &[",
            f.mods_text, f.base
        );
        list(s, f.mods, |s, m| self.modifier(s, m));
        s.push_str("], guard: ");
        match &f.guard {
            Some(g) => {
                s.push_str("Some(");
                self.guard(s, g);
                s.push(')');
            }
            None => s.push_str("None"),
        }
        s.push_str(", operands: &[");
        list(s, f.operands, |s, o| self.operand(s, o));
        let _ = write!(s, "], req_after: &{:?}, exceptions: &[", f.req_after);
        list(s, f.exceptions, exception);
        s.push_str("], files: ASM_REG_FILES }");
    }

    fn modifier(&self, s: &mut String, m: &ModSpec<'_>) {
        s.push_str("::isa_rt::asm::ModSpec { at: ");
        at(s, m.at);
        let _ = write!(
            s,
            ", field: {:?}, values: &{:?}, required: {}, values_text: {:?} }}",
            m.field, m.values, m.required, m.values_text
        );
    }

    fn guard(&self, s: &mut String, g: &GuardSpec<'_>) {
        s.push_str("::isa_rt::asm::GuardSpec { at: ");
        at(s, g.at);
        s.push_str(", name: ");
        self.names(s, g.name);
        let _ = write!(s, ", type_name: {:?}, not: ", g.type_name);
        match &g.not {
            Some(n) => {
                s.push_str("Some(");
                self.sub(s, n);
                s.push(')');
            }
            None => s.push_str("None"),
        }
        s.push_str(" }");
    }

    fn sub(&self, s: &mut String, b: &Sub<'_>) {
        s.push_str("::isa_rt::asm::Sub { at: ");
        at(s, b.at);
        s.push_str(", role: ");
        match b.role {
            SubRole::Not => s.push_str("::isa_rt::asm::SubRole::Not"),
            SubRole::BitNot => s.push_str("::isa_rt::asm::SubRole::BitNot"),
            SubRole::Neg(None) => s.push_str("::isa_rt::asm::SubRole::Neg(None)"),
            SubRole::Neg(Some((a, x))) => {
                s.push_str("::isa_rt::asm::SubRole::Neg(Some((");
                at(s, a);
                let _ = write!(s, ", {x})))");
            }
            SubRole::Suffix(n) => {
                s.push_str("::isa_rt::asm::SubRole::Suffix(");
                self.names(s, n);
                s.push(')');
            }
        }
        let _ = write!(
            s,
            ", set: {}, unset: {}, default: {} }}",
            b.set, b.unset, b.default
        );
    }

    fn operand(&self, s: &mut String, o: &OperandSpec<'_>) {
        s.push_str("::isa_rt::asm::OperandSpec { kind: ");
        self.kind(s, &o.kind);
        s.push_str(", at: ");
        at(s, o.at);
        s.push_str(", subs: &[");
        list(s, o.subs, |s, b| self.sub(s, b));
        let _ = write!(
            s,
            "], label: {:?}, expected: {:?}, optional: {} }}",
            o.label, o.expected, o.optional
        );
    }

    fn kind(&self, s: &mut String, k: &Kind<'_>) {
        match *k {
            Kind::Reg {
                name,
                prefix,
                lo,
                hi,
                count,
            } => {
                s.push_str("::isa_rt::asm::Kind::Reg { name: ");
                self.names(s, name);
                let _ = write!(s, ", prefix: {prefix:?}, lo: {lo}, hi: {hi}, count: ");
                match count {
                    Count::Fixed(n) => {
                        let _ = write!(s, "::isa_rt::asm::Count::Fixed({n})");
                    }
                    Count::Bits(ops) => {
                        s.push_str("::isa_rt::asm::Count::Bits(&[");
                        list(s, ops, op);
                        s.push_str("])");
                    }
                    Count::Lookup { at: a, counts } => {
                        s.push_str("::isa_rt::asm::Count::Lookup { at: ");
                        at(s, a);
                        let _ = write!(s, ", counts: &{counts:?} }}");
                    }
                }
                s.push_str(" }");
            }
            Kind::Enum {
                name,
                type_name,
                values,
            } => {
                s.push_str("::isa_rt::asm::Kind::Enum { name: ");
                self.names(s, name);
                let _ = write!(s, ", type_name: {type_name:?}, values: &{values:?} }}");
            }
            Kind::Imm {
                type_name,
                width,
                signed,
                addr,
                shift,
            } => {
                let _ = write!(
                    s,
                    "::isa_rt::asm::Kind::Imm {{ type_name: {type_name:?}, width: {width}, signed: {signed}, addr: "
                );
                match addr {
                    ImmAddr::No => s.push_str("::isa_rt::asm::ImmAddr::No"),
                    ImmAddr::Rel => s.push_str("::isa_rt::asm::ImmAddr::Rel"),
                    ImmAddr::Abs => s.push_str("::isa_rt::asm::ImmAddr::Abs"),
                    ImmAddr::Scaled => s.push_str("::isa_rt::asm::ImmAddr::Scaled"),
                    ImmAddr::Select { mode, abs } => {
                        s.push_str("::isa_rt::asm::ImmAddr::Select { mode: ");
                        at(s, mode);
                        let _ = write!(s, ", abs: {abs:#x} }}");
                    }
                }
                let _ = write!(s, ", shift: {shift} }}");
            }
            Kind::CMem {
                bank_bits,
                offset_bits,
                signed,
            } => {
                let _ = write!(
                    s,
                    "::isa_rt::asm::Kind::CMem {{ bank_bits: {bank_bits}, offset_bits: {offset_bits}, signed: {signed} }}"
                );
            }
            Kind::CMemIdx {
                bank_bits,
                offset_bits,
                signed,
                reg,
                reg_name,
                reg_type,
                zero,
            } => {
                let _ = write!(
                    s,
                    "::isa_rt::asm::Kind::CMemIdx {{ bank_bits: {bank_bits}, offset_bits: {offset_bits}, signed: {signed}, reg: "
                );
                at(s, reg);
                s.push_str(", reg_name: ");
                self.names(s, reg_name);
                let _ = write!(s, ", reg_type: {reg_type:?}, zero: {zero:?} }}");
            }
            Kind::RegIdx {
                prefix,
                reg_name,
                reg_type,
                off,
                off_width,
                off_signed,
            } => {
                let _ = write!(
                    s,
                    "::isa_rt::asm::Kind::RegIdx {{ prefix: {prefix:?}, reg_name: "
                );
                self.names(s, reg_name);
                let _ = write!(s, ", reg_type: {reg_type:?}, off: ");
                at(s, off);
                let _ = write!(s, ", off_width: {off_width}, off_signed: {off_signed} }}");
            }
            Kind::Word(w) => {
                let _ = write!(s, "::isa_rt::asm::Kind::Word({w:?})");
            }
        }
    }
}

fn exception(s: &mut String, x: &Exception<'_>) {
    s.push_str("::isa_rt::asm::Exception { cond: &[");
    list(s, x.cond, op);
    let _ = write!(s, "], kind: {:?}, message: {:?} }}", x.kind, x.message);
}

fn op(s: &mut String, o: &isa_rt::expr::Op) {
    super::tables::op_in(s, o, "::isa_rt::expr");
}

fn at(s: &mut String, a: At) {
    let _ = write!(
        s,
        "::isa_rt::table::At {{ start: {}, mask: {:#x} }}",
        a.start, a.mask
    );
}

/// The items of `rows`, comma-separated.
fn list<T>(s: &mut String, rows: &[T], row: impl Fn(&mut String, &T)) {
    for (k, r) in rows.iter().enumerate() {
        if k > 0 {
            s.push_str(", ");
        }
        row(s, r);
    }
}
