//! Oracle of the `spec_bytes`, `spec_text` and `spec_gen` targets: the spec parser,
//! checker, linter, interpreting tier and code generator on hostile input.
//!
//! Whatever the input, checking must not panic or hang, and rendering the diagnostics
//! must not panic. When the spec checks (a model and no errors), the model must hold
//! what the rest of the toolchain relies on, for every opcode:
//!
//! - its default instruction encodes to a word that only this opcode matches, that
//!   decodes back to the same fields (unless a field's type has no defined code at all)
//!   and re-encodes bit-exactly;
//! - the interpreting printer prints it, and the interpreting assembler reads the text
//!   back to the same word, or rejects it only because a spec `__Exception` holds;
//! - (`spec_gen` only, as generating is a hundred times slower than checking) the code
//!   generator produces code that parses as Rust (it never falls back to its
//!   `compile_error!`).

use isa_gen::asm::Assembler;
use isa_gen::model::interp::DecodeFailure;
use isa_gen::model::{Model, TypeKind};
use isa_gen::source::SourceMap;
use isa_gen::{Checked, Spec};

/// At most this many opcodes of a fuzzed spec get the per-opcode checks (a spec with
/// thousands of opcodes is still checked and generated, just not opcode by opcode).
const MAX_OPCODES: usize = 64;

/// `spec_bytes`: the input is one whole spec file, as raw bytes.
pub fn check_bytes(data: &[u8]) {
    exercise(alone(data).check(), false);
}

/// `spec_gen`: as `spec_bytes`, and a spec that checks is also generated.
pub fn check_gen(data: &[u8]) {
    exercise(alone(data).check(), true);
}

fn alone(data: &[u8]) -> Spec {
    let mut sources = SourceMap::new();
    sources.add_bytes("fuzz.isa".into(), None, data.to_vec());
    Spec { sources }
}

/// `spec_text`: the input is a second spec file next to the bundled `base.isa`, so
/// mutated definitions of the authors' files resolve against the real base types.
pub fn check_text(data: &[u8]) {
    let base = isa_spec::FILES
        .iter()
        .find(|f| f.name == "base.isa")
        .expect("isa-spec has base.isa");
    let mut sources = SourceMap::new();
    sources.add(base.name, base.text);
    sources.add_bytes("fuzz.isa".into(), None, data.to_vec());
    exercise(Spec { sources }.check(), false);
}

fn exercise(checked: Checked, generate: bool) {
    let rendered = checked.render_diagnostics();
    let Some(model) = &checked.model else {
        assert!(checked.has_errors(), "no model but no error either");
        assert!(!rendered.is_empty());
        return;
    };
    assert!(!checked.has_errors(), "a model despite errors:\n{rendered}");
    check_model(model);
    if !generate {
        return;
    }
    let code = checked
        .generate()
        .expect("a checked spec with a model generates");
    assert!(
        !code.contains("isa-gen produced unparsable code"),
        "generated code does not parse:\n{code}"
    );
}

fn check_model(model: &Model) {
    let asm = Assembler::new(model);
    let _ = asm.mnemonics();
    for i in 0..model.opcodes.len().min(MAX_OPCODES) {
        let op = &model.opcodes[i];
        let d = model.default_instruction(i);
        let word = model.encode(&d);
        assert_eq!(
            model.match_opcode(word),
            Some(i),
            "{}: its default word {word:#x} matches another opcode",
            op.name
        );
        let decoded = match model.decode(word) {
            Ok(decoded) => decoded,
            Err(DecodeFailure::InvalidField { field, .. })
                if has_no_code(model, op.fields[field].ty) =>
            {
                continue
            }
            Err(e) => panic!("{}: default word {word:#x} does not decode: {e:?}", op.name),
        };
        assert_eq!(decoded, d, "{}: default word decodes differently", op.name);
        assert_eq!(model.encode(&decoded), word);
        for addr in [0u64, 0x100] {
            let text = asm.print(&decoded, addr);
            match asm.parse_line(&text, addr, &|_| None) {
                Ok(back) => assert_eq!(
                    model.encode(&back),
                    word,
                    "{}: `{text}` reads back as another word",
                    op.name
                ),
                Err(e) => assert!(
                    op.exceptions
                        .iter()
                        .any(|x| x.cond.eval(&|k| decoded.values[k]) != 0),
                    "{}: printed `{text}` does not read back: {e}",
                    op.name
                ),
            }
        }
    }
}

/// Whether a type has no defined code at all (an enum without values, a register
/// file whose codes are all out of its width), so no word can hold a valid field of it.
fn has_no_code(model: &Model, ty: isa_gen::model::TypeId) -> bool {
    let t = model.ty(ty);
    match &t.kind {
        TypeKind::Enum(vs) => vs.is_empty(),
        TypeKind::RegFile(_) => (0..=u128::from(u8::MAX)).all(|c| !t.is_valid_code(c)),
        _ => false,
    }
}
