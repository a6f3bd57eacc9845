//! AST → [`Model`]: name resolution, inheritance, classification and validation.
//!
//! Inheritance rules (also documented in `isa-spec/README.md`):
//! - A definition inherits every field, `__OperandInfo` entry and exception of its
//!   parents; `ALL` is the root group.
//! - A field reached through several paths from the same declaration (a diamond such as
//!   `NANOSLEEP : [BRU, BRU_P]` with `BRU_P : [BRU]`) is one field.
//! - A definition may re-declare an inherited field with the same position, width and
//!   type; its `= default` / `== fixed` value then replaces the inherited one. A
//!   re-declaration that changes position, width or type is an error, and so are two
//!   unrelated parents declaring the same name differently.
//! - `InList`, `OutList` and `Order` come from the nearest definition that has them;
//!   `Bitwidth` and `AsmFormat` entries are per operand, nearest first; exceptions
//!   accumulate from every ancestor.

use std::collections::{HashMap, HashSet};

use super::expr::{self, ExprType};
use super::*;
use crate::diag::{Diagnostic, Diagnostics, Lint};
use crate::syntax::ast::{self, FieldInit, InfoEntry, Item, ListItem, SpecFile};

mod defs;
mod opcode;
mod operands;
mod types;

/// Widest type the generator supports (types map to `u8`..`u64`/`i64`).
pub const MAX_TYPE_WIDTH: u128 = 64;
/// Deepest inheritance chain accepted (guards against pathological specs).
pub const MAX_DEPTH: usize = 256;
/// Most fields an opcode can have: one bit each, none overlapping.
pub const MAX_FIELDS: usize = u128::BITS as usize;

/// Builds and validates the model. Returns `None` when there are errors (all of them
/// are in `diags`).
pub fn build(files: &[SpecFile], diags: &mut Diagnostics) -> Option<Model> {
    let corrected = super::correct::apply(files, diags);
    let files: &[SpecFile] = &corrected;
    let mut r = Resolver {
        model: Model {
            types: Vec::new(),
            words: Vec::new(),
            defs: Vec::new(),
            opcodes: Vec::new(),
            reg_enums: Vec::new(),
        },
        diags: Diagnostics::default(),
        type_index: HashMap::new(),
        def_index: HashMap::new(),
        word_index: HashMap::new(),
        def_ast: Vec::new(),
        def_fields: Vec::new(),
        incomplete: Vec::new(),
        broken_types: HashSet::new(),
        broken_words: HashSet::new(),
        unknown_names: HashMap::new(),
        field_errors: HashSet::new(),
    };
    r.types(files);
    r.words(files);
    r.defs(files);
    r.opcodes();
    super::annotate::run(
        &mut r.model,
        files,
        &r.def_index,
        &r.type_index,
        &mut r.diags,
    );
    if !r.diags.has_errors() {
        r.check_ambiguity();
    }
    // Errors in a group's entries would otherwise repeat for each opcode using it.
    let mut seen = HashSet::new();
    for d in r.diags.items {
        if seen.insert((d.span, d.message.clone())) {
            diags.push(d);
        }
    }
    if diags.has_errors() {
        None
    } else {
        Some(r.model)
    }
}

/// A field as declared by one definition, with its type and value resolved.
#[derive(Debug, Clone)]
struct DeclField {
    name: String,
    start: u32,
    width: u32,
    ty: TypeId,
    init: Init,
    span: Span,
    origin: DefId,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Init {
    None,
    Default(u128),
    Fixed(u128),
}

struct Resolver<'a> {
    model: Model,
    diags: Diagnostics,
    type_index: HashMap<String, TypeId>,
    def_index: HashMap<String, DefId>,
    word_index: HashMap<String, WordId>,
    def_ast: Vec<&'a ast::Definition>,
    /// Per definition: its own fields that resolved.
    def_fields: Vec<Vec<DeclField>>,
    /// Per definition: something of it failed (a line did not parse, a parent or a
    /// field did not resolve; the error is reported). Opcodes descending from it skip
    /// the checks that would only report consequences, such as unknown operands.
    incomplete: Vec<bool>,
    /// Types whose definition is in error: references to them report nothing more.
    broken_types: HashSet<String>,
    /// Operand words whose definition is in error: their uses report nothing more.
    broken_words: HashSet<String>,
    /// Undefined names reported so far: the index of their error and how many
    /// further uses it stands for (one error per name, not one per use: a spec file
    /// checked without the file that defines its types would otherwise get hundreds;
    /// each use is still shown, as part of that error).
    unknown_names: HashMap<(UnknownKind, String), (usize, usize)>,
    /// Errors about a field's declaration found while checking an opcode: reported
    /// once, not again for every opcode that inherits the field (by place and message;
    /// by place and lint name for a warning whose message names the opcode's reason).
    field_errors: HashSet<(Span, String)>,
}

/// What an undefined name was used as (a type and a parent of the same name are two
/// different mistakes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum UnknownKind {
    Type,
    Parent,
}

fn fits(value: u128, width: u128) -> bool {
    width >= 128 || value >> width == 0
}

/// Selects one kind of list (`Order`, `InList`, `OutList`) from an info entry.
type PickList = for<'e> fn(&'e InfoEntry) -> Option<(&'e Vec<ListItem>, Span)>;

/// "a group", "an optype", "an opcode".
fn article(kind: DefKind) -> &'static str {
    match kind {
        DefKind::Group => "a",
        DefKind::Optype | DefKind::Opcode => "an",
    }
}

impl<'a> Resolver<'a> {
    fn err(&mut self, span: Span, msg: impl Into<String>) {
        self.diags.error(span, msg);
    }

    /// Says which opcode a field's error was found in, when the field is declared by an
    /// ancestor: the `Order` of that opcode decides the field's role.
    fn in_opcode(&self, d: Diagnostic, opcode: &str, order: Option<Span>, f: &Field) -> Diagnostic {
        if self.model.defs[f.origin.0].name == opcode {
            return d;
        }
        let d = d.with_note(format!(
            "found in opcode `{opcode}`, whose `Order` does not list `{}` (it inherits the field from `{}`)",
            f.name, self.model.defs[f.origin.0].name
        ));
        match order {
            Some(span) => d.with_secondary(span, format!("the `Order` of `{opcode}`")),
            None => d,
        }
    }

    /// Reports an error about a field declaration once, however many opcodes have it.
    fn field_error(&mut self, d: Diagnostic) {
        if self.field_errors.insert((d.span, d.message.clone())) {
            self.diags.push(d);
        }
    }
}

/// A bit pattern such as `bits[11:0] = 0b0000_0001_0001` (only the fixed bits).
pub fn pattern(mask: u128, bits: u128) -> String {
    if mask == 0 {
        return "(none)".into();
    }
    let hi = 127 - mask.leading_zeros();
    let lo = mask.trailing_zeros();
    let mut s = format!("bits[{hi}:{lo}] = ");
    for b in (lo..=hi).rev() {
        s.push(if mask >> b & 1 == 0 {
            'x'
        } else if bits >> b & 1 == 1 {
            '1'
        } else {
            '0'
        });
        if b != lo && (b - lo).is_multiple_of(4) {
            s.push('_');
        }
    }
    s
}
