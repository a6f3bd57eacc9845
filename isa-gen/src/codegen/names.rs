//! Rust names for spec names, and the check that they do not collide.
//!
//! - Types and opcode structs: UpperCamelCase via heck (`SHFLMode` → `ShflMode`,
//!   `SHFL_RRR` → `ShflRrr`).
//! - Enum values: dots become `_` before conversion (`SR_CTAID.X` → `SrCtaidX`); a name
//!   that starts with a digit gets a `V` prefix (`32` → `V32`).
//! - Struct fields: snake_case with dots → `_` (`pg.not` → `pg_not`).
//! - A result that is a Rust keyword gets a trailing `_` (`type` → `type_`, `Self` → `Self_`).
//!
//! Two spec names mapping to one Rust name (`Foo_Bar` and `FooBar`), or a spec name
//! mapping to a name the generator itself defines (`Instruction`, …), is an error.

use std::collections::HashMap;

use heck::{ToSnakeCase, ToUpperCamelCase};

use crate::diag::Diagnostic;
use crate::model::{Model, TypeKind};
use crate::source::Span;

/// Items the generated code defines itself; spec types and opcodes must not take them.
pub const RESERVED_TYPES: &[&str] = &[
    "Instruction",
    "Opcode",
    "DecodeError",
    "ValidationError",
    "ParseError",
    "OpcodeInfo",
    "OperandInfo",
    "OperandKind",
    "FieldInfo",
    "FieldRole",
    "Bitwidth",
    "RegRef",
    "RegFile",
    "Regs",
    "DisplayAt",
    "FormatOptions",
    "Option",
    "Result",
    "Some",
    "None",
    "Ok",
    "Err",
    "Default",
    // Prelude traits the generated code writes unqualified.
    "Fn",
    "From",
    "Iterator",
    "ExactSizeIterator",
    // The assembler's error type and its parts, `isa_rt::asm`'s, re-exported at the
    // root (the matcher's own items are named by path). `isa-gen/tests/hostile.rs`
    // checks that this list covers every type the generated code defines at its top or
    // names.
    "AsmError",
    "AsmErrorKind",
    "AsmErrorDisplay",
    "Expect",
    "NameHint",
    "Problem",
    // The decoder's typed layer: the validated word and its iterator.
    "Decoded",
    "DecodeIter",
];

/// Module names the generated code cannot give a unit: its own module, and crates it
/// names by path.
pub const RESERVED_MODULES: &[&str] = &["backend", "core", "alloc", "std", "isa_macros"];

const KEYWORDS: &[&str] = &[
    "as", "break", "const", "continue", "crate", "else", "enum", "extern", "false", "fn", "for",
    "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return",
    "self", "Self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use", "where",
    "while", "async", "await", "dyn", "abstract", "become", "box", "do", "final", "macro",
    "override", "priv", "typeof", "unsized", "virtual", "yield", "try", "gen", "union",
];

fn unkeyword(s: String) -> String {
    if KEYWORDS.contains(&s.as_str()) {
        s + "_"
    } else {
        s
    }
}

fn sanitize(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

/// Rust type name for a spec type or opcode name.
pub fn type_name(spec: &str) -> String {
    let mut s = sanitize(spec).to_upper_camel_case();
    if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, 'T');
    }
    unkeyword(s)
}

/// Rust variant name for an enum value.
pub fn variant_name(spec: &str) -> String {
    let mut s = sanitize(spec).to_upper_camel_case();
    if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, 'V');
    }
    unkeyword(s)
}

/// Rust field name for a spec field name.
pub fn field_name(spec: &str) -> String {
    let mut s = sanitize(spec).to_snake_case();
    if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, 'f');
    }
    unkeyword(s)
}

/// Reports every collision the generated code would have.
pub fn check(model: &Model) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    // One namespace for types and opcode structs.
    let mut seen: HashMap<String, (String, Span)> = HashMap::new();
    let items = model
        .types
        .iter()
        .map(|t| (t.name.as_str(), t.span))
        .chain(model.opcodes.iter().map(|o| (o.name.as_str(), o.span)));
    for (name, span) in items {
        let rust = type_name(name);
        if RESERVED_TYPES.contains(&rust.as_str()) {
            out.push(Diagnostic::error(
                span,
                format!("`{name}` would be generated as `{rust}`, a name the generated API defines itself"),
            ).with_note(format!("reserved names: {}", RESERVED_TYPES.join(", "))));
            continue;
        }
        if let Some((prev, pspan)) = seen.get(&rust) {
            out.push(
                Diagnostic::error(
                    span,
                    format!("`{name}` and `{prev}` both become the Rust name `{rust}`"),
                )
                .with_secondary(*pspan, format!("`{prev}` defined here"))
                .with_note("rename one of them"),
            );
            continue;
        }
        seen.insert(rust, (name.to_string(), span));
    }
    for t in &model.types {
        if let TypeKind::Enum(values) = &t.kind {
            let mut vs: HashMap<String, &str> = HashMap::new();
            for v in values {
                let rust = variant_name(&v.name);
                if let Some(prev) = vs.get(&rust) {
                    out.push(Diagnostic::error(
                        v.span,
                        format!(
                            "values `{}` and `{prev}` of `{}` both become the Rust variant `{rust}`",
                            v.name, t.name
                        ),
                    ));
                    continue;
                }
                vs.insert(rust, &v.name);
            }
        }
    }
    for op in &model.opcodes {
        let mut fs: HashMap<String, &str> = HashMap::new();
        for (_, f) in op.value_fields() {
            let rust = field_name(&f.name);
            if let Some(prev) = fs.get(&rust) {
                out.push(Diagnostic::error(
                    f.span,
                    format!(
                        "fields `{}` and `{prev}` of `{}` both become the Rust field `{rust}`",
                        f.name, op.name
                    ),
                ));
                continue;
            }
            fs.insert(rust, &f.name);
        }
    }
    out.extend(limits(model));
    out
}

/// Most operands the assemblers read on a line (the lexer's).
pub const MAX_OPERANDS: usize = isa_rt::lex::MAX_OPERANDS;
/// Most dot-separated parts (mnemonic words and modifiers) of a mnemonic the
/// assemblers read (the lexer's).
pub const MAX_MNEMONIC_PARTS: usize = isa_rt::lex::MAX_PARTS;

/// Opcodes the assemblers could print but not read back: more operands or modifiers
/// than the generated assembler's fixed-size line buffers hold, or a mnemonic that is
/// also another mnemonic followed by modifiers (`ADD.X` of optype `ADD_X`, and `ADD`
/// with a modifier value `X`).
fn limits(model: &Model) -> Vec<Diagnostic> {
    let asm = crate::asm::Assembler::new(model);
    let mut out = Vec::new();
    let mnemonics: Vec<String> = (0..model.opcodes.len())
        .map(|i| crate::asm::mnemonic(model, i))
        .collect();
    let mut by_mnemonic: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, m) in mnemonics.iter().enumerate() {
        by_mnemonic.entry(m.as_str()).or_default().push(i);
    }
    let mut reported = std::collections::HashSet::new();
    for (a, ma) in mnemonics.iter().enumerate() {
        // Every shorter mnemonic that `ma` starts with, word-wise.
        for (cut, _) in ma.match_indices('.') {
            let (mb, rest) = (&ma[..cut], &ma[cut + 1..]);
            for &b in by_mnemonic.get(mb).into_iter().flatten() {
                let op_b = &model.opcodes[b];
                let all_modifier_values = rest.split('.').all(|w| {
                    op_b.fields.iter().any(|f| {
                        f.role == crate::model::Role::Modifier
                            && model.ty(f.ty).enum_code(w).is_some()
                    })
                });
                if all_modifier_values && reported.insert((ma.as_str(), mb)) {
                    out.push(
                        Diagnostic::error(
                            model.opcodes[a].span,
                            format!(
                                "mnemonic `{ma}` of `{}` is also `{mb}` with the modifier `.{rest}` of `{}`: the assembler cannot tell them apart",
                                model.opcodes[a].name, op_b.name
                            ),
                        )
                        .with_secondary(op_b.span, format!("`{}` defined here", op_b.name)),
                    );
                }
            }
        }
    }
    for (i, op) in model.opcodes.iter().enumerate() {
        let operands = asm.operands(i).len();
        if operands > MAX_OPERANDS {
            out.push(Diagnostic::error(
                op.span,
                format!("opcode `{}` has {operands} operands; the assembler reads at most {MAX_OPERANDS}", op.name),
            ));
        }
        let words = crate::asm::mnemonic(model, i).split('.').count();
        let modifiers = op
            .fields
            .iter()
            .filter(|f| f.role == crate::model::Role::Modifier)
            .count();
        if words + modifiers > MAX_MNEMONIC_PARTS {
            out.push(Diagnostic::error(
                op.span,
                format!(
                    "opcode `{}` has {modifiers} modifiers after a {words}-word mnemonic; the assembler reads at most {MAX_MNEMONIC_PARTS} parts in all",
                    op.name
                ),
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions() {
        assert_eq!(type_name("SHFLMode"), "ShflMode");
        assert_eq!(type_name("SHFL_RRR"), "ShflRrr");
        assert_eq!(type_name("MEMDType"), "MemdType");
        assert_eq!(type_name("UIMAD_WIDE_UUU"), "UimadWideUuu");
        assert_eq!(variant_name("SR_CTAID.X"), "SrCtaidX");
        assert_eq!(variant_name("32"), "V32");
        assert_eq!(variant_name("NoCond"), "NoCond");
        assert_eq!(variant_name("Self"), "Self_");
        assert_eq!(field_name("pg.not"), "pg_not");
        assert_eq!(field_name("type"), "type_");
        assert_eq!(field_name("urb.bitnot"), "urb_bitnot");
    }
}
