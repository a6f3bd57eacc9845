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
        unknown_types: HashMap::new(),
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
    /// Unknown type names reported so far: the index of their error and how many
    /// further uses it stands for (one error per name, not one per use: a spec file
    /// checked without the file that defines its types would otherwise get hundreds).
    unknown_types: HashMap<String, (usize, usize)>,
    /// Errors about a field's declaration found while checking an opcode: reported
    /// once, not again for every opcode that inherits the field.
    field_errors: HashSet<(Span, String)>,
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

    // -- types --------------------------------------------------------------------

    fn types(&mut self, files: &'a [SpecFile]) {
        for item in files.iter().flat_map(|f| &f.items) {
            let (name, width) = match item {
                Item::BitFieldType(e) => (&e.name, e.width),
                Item::RegFile(r) => (&r.name, r.width),
                Item::Immediate(i) => (&i.name, i.width),
                Item::ConstMem(c) => (&c.name, c.width),
                _ => continue,
            };
            if let Some(prev) = self.type_index.get(&name.name) {
                let prev_span = self.model.types[prev.0].span;
                self.diags.push(
                    Diagnostic::error(name.span, format!("type `{}` is defined twice", name.name))
                        .with_label("second definition")
                        .with_secondary(prev_span, "first defined here"),
                );
                continue;
            }
            if width.value == 0 || width.value > MAX_TYPE_WIDTH {
                self.broken_types.insert(name.name.clone());
                self.err(
                    width.span,
                    format!(
                        "type width {} is out of range (1 to {MAX_TYPE_WIDTH} bits)",
                        width.value
                    ),
                );
                continue;
            }
            let w = width.value as u32;
            let kind = match item {
                Item::BitFieldType(e) => TypeKind::Enum(self.enum_values(e)),
                Item::RegFile(rf) => match self.reg_file(rf) {
                    Some(r) => TypeKind::RegFile(r),
                    None => {
                        self.broken_types.insert(name.name.clone());
                        continue;
                    }
                },
                Item::Immediate(i) => TypeKind::Immediate { signed: i.signed },
                Item::ConstMem(c) => {
                    if c.bank_bits.value == 0
                        || c.offset_bits.value == 0
                        || c.bank_bits.value + c.offset_bits.value != width.value
                    {
                        self.broken_types.insert(name.name.clone());
                        self.err(
                            c.bank_bits.span.to(c.offset_bits.span),
                            format!(
                                "bank and offset widths ({} + {}) must be non-zero and add up \
                                 to the type width {}",
                                c.bank_bits.value, c.offset_bits.value, width.value
                            ),
                        );
                        continue;
                    }
                    TypeKind::ConstMem {
                        bank_bits: c.bank_bits.value as u32,
                        offset_bits: c.offset_bits.value as u32,
                        offset_signed: c.offset_signed,
                    }
                }
                _ => unreachable!("filtered above"),
            };
            let id = TypeId(self.model.types.len());
            self.type_index.insert(name.name.clone(), id);
            self.model.types.push(Type {
                name: name.name.clone(),
                width: w,
                kind,
                span: name.span,
            });
        }
    }

    fn enum_values(&mut self, e: &ast::EnumDef) -> Vec<EnumValue> {
        let mut out: Vec<EnumValue> = Vec::new();
        // Indexes into `out` by name and by code: linear in the number of values
        // (a search of `out` per value made a big enum quadratic).
        let mut by_name: HashMap<&str, usize> = HashMap::new();
        let mut by_code: HashMap<u128, usize> = HashMap::new();
        let mut next: u128 = 0;
        for v in &e.values {
            let code = v.code.map(|c| c.value).unwrap_or(next);
            next = code.saturating_add(1);
            if let Some(&prev) = by_name.get(v.name.name.as_str()) {
                let ps = out[prev].span;
                self.diags.push(
                    Diagnostic::error(
                        v.name.span,
                        format!(
                            "value `{}` is listed twice in `{}`",
                            v.name.name, e.name.name
                        ),
                    )
                    .with_secondary(ps, "first listed here"),
                );
                continue;
            }
            if !fits(code, e.width.value) {
                let span = v.code.map(|c| c.span).unwrap_or(v.name.span);
                self.diags.push(
                    Diagnostic::error(
                        span,
                        format!(
                            "code {code:#x} of `{}` does not fit in the {} bits of `{}`",
                            v.name.name, e.width.value, e.name.name
                        ),
                    )
                    .with_note(format!(
                        "a {}-bit type holds codes 0 to {:#x}",
                        e.width.value,
                        crate::model::mask(0, e.width.value as u32)
                    )),
                );
            } else if let Some(&prev) = by_code.get(&code) {
                let (pn, ps) = (out[prev].name.clone(), out[prev].span);
                self.diags.push(
                    Diagnostic::error(
                        v.name.span,
                        format!(
                            "`{}` and `{pn}` of `{}` both have code {code:#x}",
                            v.name.name, e.name.name
                        ),
                    )
                    .with_secondary(ps, "code first used here"),
                );
            }
            // Kept even when its code is wrong, so that uses of the value report nothing
            // more (the error already stops the model from being built).
            by_name.insert(&v.name.name, out.len());
            by_code.entry(code).or_insert(out.len());
            out.push(EnumValue {
                name: v.name.name.clone(),
                code,
                span: v.name.span,
            });
        }
        if out.is_empty() && e.values.is_empty() {
            self.err(
                e.name.span,
                format!("bit-field type `{}` has no values", e.name.name),
            );
        }
        out
    }

    fn reg_file(&mut self, rf: &ast::RegFileDef) -> Option<RegFile> {
        let w = rf.width.value;
        let mut range: Option<(String, u128, u128, Span)> = None;
        // Each constant register with the span of its name and of its code.
        let mut named: Vec<(String, u128, Span, Span)> = Vec::new();
        let mut reads_values: Vec<(u128, u128)> = Vec::new();
        let mut ok = true;
        for item in &rf.items {
            match item {
                ast::RegFileItem::Range { prefix, lo, hi } => {
                    if let Some((_, _, _, first)) = range {
                        self.diags.push(
                            Diagnostic::error(
                                prefix.span,
                                "a register file has one numbered range (`PREFIX lo..hi;`)",
                            )
                            .with_secondary(first, "the first range"),
                        );
                        ok = false;
                    } else if lo.value > hi.value || !fits(hi.value, w) {
                        self.err(
                            lo.span.to(hi.span),
                            format!(
                                "register range {}..{} must be ascending and fit in {w} bits",
                                lo.value, hi.value
                            ),
                        );
                        ok = false;
                    } else {
                        range = Some((
                            prefix.name.clone(),
                            lo.value,
                            hi.value,
                            prefix.span.to(hi.span),
                        ));
                    }
                }
                ast::RegFileItem::Named { name, code, reads } => {
                    if let Some(v) = reads {
                        if !fits(v.value, 32) {
                            self.err(
                                v.span,
                                format!(
                                    "`{}` reads {:#x}, wider than a register's 32 bits",
                                    name.name, v.value
                                ),
                            );
                            ok = false;
                        } else {
                            reads_values.push((code.value, v.value));
                        }
                    }
                    if !fits(code.value, w) {
                        self.err(
                            code.span,
                            format!(
                                "code {:#x} of `{}` does not fit in the {w} bits of `{}`",
                                code.value, name.name, rf.name.name
                            ),
                        );
                        ok = false;
                    } else if let Some((n, c, first, first_code)) = named
                        .iter()
                        .find(|(n, c, _, _)| *n == name.name || *c == code.value)
                    {
                        let d = if *n == name.name {
                            Diagnostic::error(
                                name.span,
                                format!("constant register `{n}` is defined twice"),
                            )
                            .with_secondary(*first, "first defined here")
                        } else {
                            Diagnostic::error(
                                code.span,
                                format!(
                                    "`{}` has the code {c}, which `{n}` already has",
                                    name.name
                                ),
                            )
                            .with_secondary(*first_code, format!("the code of `{n}`"))
                        };
                        self.diags.push(d);
                        ok = false;
                    } else {
                        named.push((name.name.clone(), code.value, name.span, code.span));
                    }
                }
            }
        }
        let Some((prefix, lo, hi, range_span)) = range else {
            if ok {
                self.err(
                    rf.name.span,
                    format!(
                        "register file `{}` needs a numbered range such as `R 0..254;`",
                        rf.name.name
                    ),
                );
            }
            return None;
        };
        let numbered = RegFile {
            prefix: prefix.clone(),
            lo,
            hi,
            named: Vec::new(),
            reads: Vec::new(),
        };
        for (n, c, name_span, code_span) in &named {
            if (lo..=hi).contains(c) {
                self.diags.push(
                    Diagnostic::error(
                        *code_span,
                        format!("constant register `{n}` reuses the code {c} of `{prefix}{c}`"),
                    )
                    .with_secondary(
                        range_span,
                        format!("the numbered registers {prefix}{lo}..{prefix}{hi}"),
                    ),
                );
                ok = false;
            } else if let Some(k) = numbered.code_of(n) {
                // `R0 = 255;` next to `R 0..254;`: the text `R0` would name two registers.
                self.diags.push(
                    Diagnostic::error(
                        *name_span,
                        format!("constant register `{n}` is written like numbered register {k}"),
                    )
                    .with_secondary(
                        range_span,
                        format!("the numbered registers {prefix}{lo}..{prefix}{hi}"),
                    ),
                );
                ok = false;
            }
        }
        let named: Vec<(String, u128)> = named.into_iter().map(|(n, c, _, _)| (n, c)).collect();
        ok.then_some(RegFile {
            prefix,
            lo,
            hi,
            named,
            reads: reads_values,
        })
    }

    fn words(&mut self, files: &'a [SpecFile]) {
        for item in files.iter().flat_map(|f| &f.items) {
            let Item::OperandWord(w) = item else { continue };
            if self.word_index.contains_key(&w.name.name) {
                self.err(
                    w.name.span,
                    format!("operand word `{}` is defined twice", w.name.name),
                );
                continue;
            }
            let Some(&ty) = self.type_index.get(&w.reg_file.name) else {
                self.unknown_type(&w.reg_file);
                self.broken_words.insert(w.name.name.clone());
                continue;
            };
            let Some(rf) = self.model.types[ty.0].reg_file() else {
                self.err(
                    w.reg_file.span,
                    format!("`{}` is not a register file", w.reg_file.name),
                );
                self.broken_words.insert(w.name.name.clone());
                continue;
            };
            if w.lo.value > w.hi.value || w.lo.value < rf.lo || w.hi.value > rf.hi {
                self.err(
                    w.lo.span.to(w.hi.span),
                    format!(
                        "range {}..{} is not within {}{}..{}{}",
                        w.lo.value, w.hi.value, rf.prefix, rf.lo, rf.prefix, rf.hi
                    ),
                );
                self.broken_words.insert(w.name.name.clone());
                continue;
            }
            let id = WordId(self.model.words.len());
            self.word_index.insert(w.name.name.clone(), id);
            self.model.words.push(OperandWord {
                name: w.name.name.clone(),
                reg_file: ty,
                lo: w.lo.value,
                hi: w.hi.value,
                span: w.name.span,
            });
        }
    }

    fn unknown_type(&mut self, name: &ast::Ident) {
        if self.broken_types.contains(&name.name) {
            return; // its definition is in error, reported there
        }
        if let Some((at, more)) = self.unknown_types.get_mut(&name.name) {
            *more += 1;
            let d = &mut self.diags.items[*at];
            if *more <= 3 {
                d.secondary.push((name.span, "also used here".into()));
            }
            let note = match *more {
                1 => "used once more (one error for both uses)".to_string(),
                n => format!("used {n} more times (one error for all of them)"),
            };
            // The count is the last note from the second use on.
            match d.notes.last_mut() {
                Some(last) if *more > 1 => *last = note,
                _ => d.notes.push(note),
            }
            return;
        }
        let mut d = Diagnostic::error(name.span, format!("unknown type `{}`", name.name))
            .with_label("not defined in any spec file");
        let names: Vec<&str> = self.model.types.iter().map(|t| t.name.as_str()).collect();
        if let Some(s) = crate::suggest::nearest(&name.name, names.iter().copied()) {
            d = d.with_note(format!("did you mean `{s}`?"));
        }
        self.unknown_types
            .insert(name.name.clone(), (self.diags.items.len(), 0));
        self.diags.push(d);
    }

    /// Reports an error about a field declaration once, however many opcodes have it.
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

    fn field_error(&mut self, d: Diagnostic) {
        if self.field_errors.insert((d.span, d.message.clone())) {
            self.diags.push(d);
        }
    }

    // -- definitions ----------------------------------------------------------------

    fn defs(&mut self, files: &'a [SpecFile]) {
        for item in files.iter().flat_map(|f| &f.items) {
            let Item::Def(d) = item else { continue };
            if let Some(prev) = self.def_index.get(&d.name.name) {
                let p = &self.model.defs[prev.0];
                let (pk, ps) = (p.kind, p.span);
                self.diags.push(
                    Diagnostic::error(d.name.span, format!("`{}` is defined twice", d.name.name))
                        .with_label(format!("this {}", d.kind.noun()))
                        .with_secondary(
                            ps,
                            format!("first defined here as {} {}", article(pk), pk.noun()),
                        ),
                );
                continue;
            }
            let id = DefId(self.model.defs.len());
            self.def_index.insert(d.name.name.clone(), id);
            self.model.defs.push(Def {
                kind: d.kind,
                name: d.name.name.clone(),
                parents: Vec::new(),
                span: d.name.span,
                docs: d.docs.clone(),
            });
            self.def_ast.push(d);
            self.incomplete.push(d.incomplete);
        }
        // Parents.
        for i in 0..self.def_ast.len() {
            let d = self.def_ast[i];
            let mut parents = Vec::new();
            for p in &d.parents {
                match self.def_index.get(&p.name) {
                    Some(&pid) if self.model.defs[pid.0].kind == DefKind::Opcode => {
                        self.incomplete[i] = true;
                        self.err(
                            p.span,
                            format!(
                                "`{}` is an opcode; only groups and optypes can be parents",
                                p.name
                            ),
                        );
                    }
                    Some(&pid) => {
                        if parents.contains(&pid) {
                            self.err(p.span, format!("parent `{}` is listed twice", p.name));
                        } else {
                            parents.push(pid);
                        }
                    }
                    None => {
                        self.incomplete[i] = true;
                        let mut diag =
                            Diagnostic::error(p.span, format!("unknown parent `{}`", p.name));
                        let names = self
                            .model
                            .defs
                            .iter()
                            .filter(|d| d.kind != DefKind::Opcode)
                            .map(|d| d.name.as_str());
                        if let Some(s) = crate::suggest::nearest(&p.name, names) {
                            diag = diag.with_note(format!("did you mean `{s}`?"));
                        }
                        self.diags.push(diag);
                    }
                }
            }
            self.model.defs[i].parents = parents;
        }
        self.break_cycles();
        // Own fields of each definition.
        for i in 0..self.def_ast.len() {
            let fields = self.decl_fields(DefId(i));
            self.def_fields.push(fields);
        }
    }

    /// Reports inheritance cycles and removes the edge that closes each, so later
    /// stages can walk ancestors safely; likewise chains deeper than [`MAX_DEPTH`].
    fn break_cycles(&mut self) {
        #[derive(Clone, Copy, PartialEq)]
        enum Mark {
            New,
            Active,
            Done,
        }
        let n = self.model.defs.len();
        let mut mark = vec![Mark::New; n];
        // Length of the longest inheritance chain from each done definition to a root
        // (a root has level 1).
        let mut level = vec![0usize; n];
        for root in 0..n {
            if mark[root] != Mark::New {
                continue;
            }
            // Iterative DFS: (def, next parent index).
            let mut stack: Vec<(usize, usize)> = vec![(root, 0)];
            mark[root] = Mark::Active;
            while let Some(&(d, k)) = stack.last() {
                let top = stack.len() - 1;
                if k < self.model.defs[d].parents.len() {
                    let p = self.model.defs[d].parents[k].0;
                    stack[top].1 += 1;
                    match mark[p] {
                        Mark::New => {
                            mark[p] = Mark::Active;
                            stack.push((p, 0));
                        }
                        Mark::Active => {
                            let pos = stack.iter().position(|(x, _)| *x == p).unwrap_or(0);
                            let mut names: Vec<&str> = stack[pos..]
                                .iter()
                                .map(|(x, _)| self.model.defs[*x].name.as_str())
                                .collect();
                            names.push(&self.model.defs[p].name);
                            let msg = format!("inheritance cycle: {}", names.join(" → "));
                            let ast_parent = self.def_ast[d]
                                .parents
                                .iter()
                                .find(|i| i.name == self.model.defs[p].name)
                                .map(|i| i.span)
                                .unwrap_or(self.model.defs[d].span);
                            self.diags.push(
                                Diagnostic::error(ast_parent, msg).with_label("closes the cycle"),
                            );
                            self.model.defs[d].parents.retain(|x| x.0 != p);
                            self.incomplete[d] = true;
                            stack[top].1 -= 1;
                        }
                        Mark::Done => {}
                    }
                } else {
                    // Every parent is done: `d`'s depth is one more than its deepest
                    // parent's. Checked here, not on the DFS stack, so the result does
                    // not depend on the order of the definitions.
                    let deepest = |this: &Self, level: &[usize]| {
                        this.model.defs[d]
                            .parents
                            .iter()
                            .map(|p| level[p.0])
                            .max()
                            .unwrap_or(0)
                    };
                    if deepest(self, &level) >= MAX_DEPTH {
                        let span = self.model.defs[d].span;
                        self.err(span, format!("inheritance deeper than {MAX_DEPTH} levels"));
                        self.model.defs[d]
                            .parents
                            .retain(|p| level[p.0] < MAX_DEPTH);
                        self.incomplete[d] = true;
                    }
                    level[d] = 1 + deepest(self, &level);
                    mark[d] = Mark::Done;
                    stack.pop();
                }
            }
        }
    }

    fn decl_fields(&mut self, def: DefId) -> Vec<DeclField> {
        let d = self.def_ast[def.0];
        let mut out: Vec<DeclField> = Vec::new();
        // `out` by name (a search per field made a huge definition quadratic).
        let mut index: HashMap<&str, usize> = HashMap::new();
        for f in &d.encoding {
            if let Some(&prev) = index.get(f.name.name.as_str()) {
                let ps = out[prev].span;
                self.diags.push(
                    Diagnostic::error(
                        f.name.span,
                        format!(
                            "field `{}` is declared twice in `{}`",
                            f.name.name, d.name.name
                        ),
                    )
                    .with_secondary(ps, "first declared here"),
                );
                continue;
            }
            match self.decl_field(def, f) {
                Some(field) => {
                    index.insert(&f.name.name, out.len());
                    out.push(field);
                }
                None => self.incomplete[def.0] = true,
            }
        }
        out
    }

    /// Resolves one field declaration of `def`; `None` when it is in error (reported).
    fn decl_field(&mut self, def: DefId, f: &ast::FieldDecl) -> Option<DeclField> {
        let Some(&ty) = self.type_index.get(&f.ty.name) else {
            self.unknown_type(&f.ty);
            return None;
        };
        let (start, width) = (f.start.value, f.width.value);
        if width == 0 {
            self.err(f.width.span, format!("field `{}` has width 0", f.name.name));
            return None;
        }
        if start.saturating_add(width) > 128 {
            self.diags.push(
                Diagnostic::error(
                    f.start.span.to(f.width.span),
                    format!(
                        "field `{}` ends at bit {}, beyond bit 127",
                        f.name.name,
                        start.saturating_add(width) - 1
                    ),
                )
                .with_note("instructions are 128 bits: fields must lie within bits 0..=127"),
            );
            return None;
        }
        let t = &self.model.types[ty.0];
        if (width as u32) < t.width {
            self.diags.push(
                Diagnostic::error(
                    f.width.span,
                    format!(
                        "field `{}` is {width} bits wide but its type `{}` needs {}",
                        f.name.name, t.name, t.width
                    ),
                )
                .with_secondary(
                    t.span,
                    format!("`{}` is declared {} bits wide here", t.name, t.width),
                ),
            );
            return None;
        }
        if (width as u32) > t.width {
            self.diags.push(Diagnostic::warning(Lint::WideField,
                f.width.span,
                format!(
                    "field `{}` is {width} bits wide but its type `{}` has {}; the top bits are always zero",
                    f.name.name, t.name, t.width
                ),
            ));
        }
        let init = match &f.init {
            FieldInit::None => Init::None,
            FieldInit::Default(v) => Init::Default(self.value_code(ty, v)?),
            FieldInit::Fixed(v) => Init::Fixed(self.value_code(ty, v)?),
        };
        Some(DeclField {
            name: f.name.name.clone(),
            start: start as u32,
            width: width as u32,
            ty,
            init,
            span: f.span,
            origin: def,
        })
    }

    /// The code of a default/fixed value written as text, for a field of type `ty`.
    fn value_code(&mut self, ty: TypeId, v: &ast::ValueRef) -> Option<u128> {
        let t = &self.model.types[ty.0];
        let text = v.text.as_str();
        let res: Result<u128, String> = match &t.kind {
            TypeKind::Enum(values) => match t.enum_code(text) {
                Some(c) => Ok(c),
                None => {
                    let mut msg = format!("`{text}` is not a value of `{}`", t.name);
                    if let Some(s) =
                        crate::suggest::nearest(text, values.iter().map(|v| v.name.as_str()))
                    {
                        msg.push_str(&format!(" (did you mean `{s}`?)"));
                    }
                    Err(msg)
                }
            },
            TypeKind::RegFile(rf) => rf.code_of(text).ok_or_else(|| {
                format!(
                    "`{text}` is not a register of `{}` ({}{}..{}{}{})",
                    t.name,
                    rf.prefix,
                    rf.lo,
                    rf.prefix,
                    rf.hi,
                    rf.named
                        .iter()
                        .map(|(n, _)| format!(", {n}"))
                        .collect::<String>()
                )
            }),
            TypeKind::Immediate { signed } => match crate::syntax::lexer::parse_int(text) {
                Some(n)
                    if (!signed && fits(n, t.width as u128))
                        || (*signed && fits(n, t.width as u128 - 1)) =>
                {
                    Ok(n)
                }
                Some(n) => Err(format!(
                    "{n:#x} does not fit in `{}` ({} bits, {})",
                    t.name,
                    t.width,
                    if *signed { "signed" } else { "unsigned" }
                )),
                None => Err(format!(
                    "`{text}` is not a number (type `{}` is an immediate)",
                    t.name
                )),
            },
            TypeKind::ConstMem { .. } => match crate::syntax::lexer::parse_int(text) {
                Some(n) if fits(n, t.width as u128) => Ok(n),
                _ => Err(format!(
                    "`{text}` is not a {}-bit constant-memory reference",
                    t.width
                )),
            },
        };
        match res {
            Ok(c) => Some(c),
            Err(msg) => {
                let ts = t.span;
                self.diags
                    .push(Diagnostic::error(v.span, msg).with_secondary(ts, "type defined here"));
                None
            }
        }
    }

    // -- opcodes ------------------------------------------------------------------

    /// Ancestors of `def`, root-most first, each once, ending with `def` itself.
    fn linearize(&self, def: DefId) -> Vec<DefId> {
        fn visit(model: &Model, d: DefId, seen: &mut Vec<bool>, out: &mut Vec<DefId>) {
            if seen[d.0] {
                return;
            }
            seen[d.0] = true;
            for &p in &model.defs[d.0].parents {
                visit(model, p, seen, out);
            }
            out.push(d);
        }
        let mut seen = vec![false; self.model.defs.len()];
        let mut out = Vec::new();
        visit(&self.model, def, &mut seen, &mut out);
        out
    }

    fn is_ancestor(&self, anc: DefId, of: DefId) -> bool {
        self.linearize(of).contains(&anc)
    }

    fn opcodes(&mut self) {
        for i in 0..self.model.defs.len() {
            if self.model.defs[i].kind == DefKind::Opcode {
                if let Some(op) = self.opcode(DefId(i)) {
                    self.model.opcodes.push(op);
                }
            }
        }
    }

    fn opcode(&mut self, def: DefId) -> Option<Opcode> {
        let lin = self.linearize(def);
        let errors_before = self.diags.error_count();

        // Fields, root-most first.
        let mut decls: Vec<DeclField> = Vec::new();
        let mut index: HashMap<String, usize> = HashMap::new();
        for &d in &lin {
            for f in self.def_fields[d.0].clone() {
                match index.get(&f.name).copied() {
                    None => {
                        index.insert(f.name.clone(), decls.len());
                        decls.push(f);
                    }
                    Some(i) => {
                        let p = &decls[i];
                        if p.span == f.span {
                            continue; // same declaration through a diamond
                        }
                        let same_shape = p.start == f.start && p.width == f.width && p.ty == f.ty;
                        let related = self.is_ancestor(p.origin, f.origin);
                        if same_shape && related {
                            // An override: the nearer declaration's value wins.
                            let init = if f.init == Init::None { p.init } else { f.init };
                            decls[i] = DeclField { init, ..f };
                        } else if same_shape && p.init == f.init {
                            // Two parents agree exactly: one field.
                        } else {
                            let what = if same_shape {
                                "with a different value"
                            } else {
                                "with a different position, width or type"
                            };
                            let ps = p.span;
                            let pn = self.model.defs[p.origin.0].name.clone();
                            self.diags.push(
                                Diagnostic::error(
                                    f.span,
                                    format!("field `{}` is re-declared {what}", f.name),
                                )
                                .with_secondary(ps, format!("inherited from `{pn}`")),
                            );
                        }
                    }
                }
            }
        }
        // Fields, parents or entries of an ancestor are missing because of a reported
        // error: the checks below would mostly report its consequences.
        if lin.iter().any(|d| self.incomplete[d.0]) {
            return None;
        }
        // Every field takes at least one bit and fields may not overlap, so more than
        // 128 cannot be right; the per-field checks below (overlaps, operands) compare
        // fields pairwise and need this bound.
        if decls.len() > MAX_FIELDS {
            let name = &self.model.defs[def.0].name;
            let d = Diagnostic::error(
                self.model.defs[def.0].span,
                format!(
                    "opcode `{name}` has {} fields, but a 128-bit word has room for at most {MAX_FIELDS}",
                    decls.len()
                ),
            )
            .with_note("fields may not overlap, and each takes at least one bit");
            self.diags.push(d);
            return None;
        }

        let mut fields: Vec<Field> = decls
            .iter()
            .map(|d| Field {
                name: d.name.clone(),
                start: d.start,
                width: d.width,
                ty: d.ty,
                role: match d.init {
                    Init::Fixed(c) => Role::Fixed(c),
                    _ => Role::Modifier,
                },
                default: match d.init {
                    Init::Default(c) => Some(c),
                    _ => None,
                },
                origin: d.origin,
                span: d.span,
            })
            .collect();

        // Entries of __OperandInfo, nearest first.
        let nearest: Vec<DefId> = lin.iter().rev().copied().collect();
        let entries: Vec<(DefId, &'a InfoEntry)> = nearest
            .iter()
            .flat_map(|&d| self.def_ast[d.0].operand_info.iter().map(move |e| (d, e)))
            .collect();
        // One Order/InList/OutList per definition.
        for &d in &nearest {
            let mut seen: Vec<(&str, Span)> = Vec::new();
            for e in &self.def_ast[d.0].operand_info {
                let (kw, span) = match e {
                    InfoEntry::Order(_, s) => ("Order", *s),
                    InfoEntry::InList(_, s) => ("InList", *s),
                    InfoEntry::OutList(_, s) => ("OutList", *s),
                    _ => continue,
                };
                if let Some((_, first)) = seen.iter().find(|(k, _)| *k == kw) {
                    let first = *first;
                    self.diags.push(
                        Diagnostic::error(span, format!("second `{kw}<…>` in one definition"))
                            .with_secondary(first, "first given here"),
                    );
                } else {
                    seen.push((kw, span));
                }
            }
        }
        let pick_list = |want: PickList| entries.iter().find_map(|(_, e)| want(e));
        let order_ast = pick_list(|e| match e {
            InfoEntry::Order(l, s) => Some((l, *s)),
            _ => None,
        });
        let in_ast = pick_list(|e| match e {
            InfoEntry::InList(l, s) => Some((l, *s)),
            _ => None,
        });
        let out_ast = pick_list(|e| match e {
            InfoEntry::OutList(l, s) => Some((l, *s)),
            _ => None,
        });

        let def_span = self.model.defs[def.0].span;
        let name = self.model.defs[def.0].name.clone();

        // Order → operands.
        let errors_before_order = self.diags.error_count();
        let mut order = Vec::new();
        match order_ast {
            None => {
                self.err(
                    def_span,
                    format!("opcode `{name}` has no `Order<…>` (in itself or an ancestor)"),
                );
            }
            Some((items, _)) => {
                // Fields already in `Order`, with the item that put them there.
                let mut placed: Vec<(usize, Span)> = Vec::new();
                for item in items {
                    let Some(op) = self.operand(&mut fields, item) else {
                        continue;
                    };
                    // Written twice, a field could be given two different values, and
                    // a printed instruction would not say which one it holds.
                    let again = placed
                        .iter()
                        .find(|&&(p, _)| op.kind.fields().any(|f| f == p));
                    if let Some(&(f, first)) = again {
                        let d = Diagnostic::error(
                            op.span,
                            format!("`{}` is in `Order` twice", fields[f].name),
                        )
                        .with_secondary(first, "first here")
                        .with_note("an operand is written once; remove one of them");
                        self.field_error(d);
                        continue;
                    }
                    placed.extend(op.kind.fields().map(|f| (f, op.span)));
                    order.push(op);
                }
            }
        }
        // Sub-fields attach to their base field.
        for i in 0..fields.len() {
            if let Some((base, _)) = fields[i].name.split_once('.') {
                match fields.iter().position(|f| f.name == base) {
                    // A fixed sub-field keeps its fixed role: it identifies the opcode.
                    Some(_) if fields[i].is_fixed() => {}
                    Some(b) => fields[i].role = Role::SubField(b),
                    None => {
                        let (span, n) = (fields[i].span, fields[i].name.clone());
                        self.err(
                            span,
                            format!("sub-field `{n}` has no field `{base}` to attach to"),
                        );
                    }
                }
            }
        }
        // A symbol sub-field is written or not: its type must say which code is which.
        for f in &fields {
            if !matches!(f.role, Role::SubField(_))
                || !matches!(f.sub_name(), Some("not" | "neg" | "bitnot"))
            {
                continue;
            }
            let t = &self.model.types[f.ty.0];
            if t.symbol_codes().is_none() {
                let symbol = match f.sub_name() {
                    Some("not") => "!",
                    Some("neg") => "-",
                    _ => "~",
                };
                let d = Diagnostic::error(
                    f.span,
                    format!(
                        "`{}` prints as `{symbol}` or nothing, but its type `{}` does not say which code means which",
                        f.name, t.name
                    ),
                )
                .with_secondary(t.span, "the type")
                .with_note("give the type the values `False` and `True`, or exactly two values (the lower code is the one without the symbol)");
                self.field_error(d);
            }
        }
        // Modifiers and `.VALUE` sub-fields are written by value name, which only
        // bit-field types have. (Skipped when `Order` is missing or broken: the
        // fields it should have named would all look like modifiers.)
        let order_ok = order_ast.is_some() && self.diags.error_count() == errors_before_order;
        for f in fields.iter().filter(|_| order_ok) {
            let written_as_value = match f.role {
                Role::Modifier => true,
                Role::SubField(_) => !matches!(f.sub_name(), Some("not" | "neg" | "bitnot")),
                _ => false,
            };
            if !written_as_value {
                continue;
            }
            let what = if f.role == Role::Modifier {
                "a modifier"
            } else {
                "a `.VALUE` sub-field"
            };
            let t = &self.model.types[f.ty.0];
            let Some(values) = t.enum_values() else {
                let noun = t.kind_noun();
                let article = if noun.starts_with(['a', 'e', 'i', 'o', 'u']) {
                    "an"
                } else {
                    "a"
                };
                let d = Diagnostic::error(
                    f.span,
                    format!(
                        "`{}` is {what}, written `.VALUE`, but its type `{}` is {article} {noun} and has no value names",
                        f.name, t.name
                    ),
                )
                .with_note("only `__DefBitFieldType` types can be modifiers; list the field in `Order` to make it an operand");
                let d = self.in_opcode(
                    d,
                    &self.model.defs[def.0].name.clone(),
                    order_ast.map(|o| o.1),
                    f,
                );
                self.field_error(d);
                continue;
            };
            // `.A.B` reads as two modifiers, so a dotted value name cannot be written
            // as one (operands, such as `SR_CTAID.X`, may have them).
            if let Some(v) = values.iter().find(|v| v.name.contains('.')) {
                let d = Diagnostic::error(
                    f.span,
                    format!(
                        "`{}` is {what}, written `.VALUE`, but its type `{}` has the value `{}`: `.{}` would read as {} modifiers",
                        f.name,
                        t.name,
                        v.name,
                        v.name,
                        v.name.split('.').count()
                    ),
                )
                .with_secondary(v.span, "value declared here")
                .with_note("rename the value without `.`, or list the field in `Order` to make it an operand");
                let d = self.in_opcode(
                    d,
                    &self.model.defs[def.0].name.clone(),
                    order_ast.map(|o| o.1),
                    f,
                );
                self.field_error(d);
            }
        }
        // An operand is written as its value's bare name, and a token that starts with
        // a digit reads as a number (modifiers, written `.32`, may have such names).
        for f in fields.iter().filter(|f| f.role == Role::Operand) {
            let t = &self.model.types[f.ty.0];
            let Some(values) = t.enum_values() else {
                continue;
            };
            if let Some(v) = values
                .iter()
                .find(|v| v.name.starts_with(|c: char| c.is_ascii_digit()))
            {
                let d = Diagnostic::error(
                    f.span,
                    format!(
                        "`{}` is an operand, written as its value's name, but its type `{}` has the value `{}`, which reads as a number",
                        f.name, t.name, v.name
                    ),
                )
                .with_secondary(v.span, "value declared here")
                .with_note("start the value's name with a letter, or make the field a modifier (leave it out of `Order`)");
                self.field_error(d);
            }
        }
        // Two modifiers sharing a value name: `.VALUE` would not say which it sets, so
        // printed instructions could not be read back.
        let modifiers: Vec<&Field> = fields.iter().filter(|f| f.role == Role::Modifier).collect();
        for (k, a) in modifiers.iter().enumerate().filter(|_| order_ok) {
            for b in &modifiers[k + 1..] {
                let (ta, tb) = (&self.model.types[a.ty.0], &self.model.types[b.ty.0]);
                let (Some(va), Some(vb)) = (ta.enum_values(), tb.enum_values()) else {
                    continue;
                };
                let names_b: HashSet<&str> = vb.iter().map(|v| v.name.as_str()).collect();
                if let Some(v) = va.iter().find(|x| names_b.contains(x.name.as_str())) {
                    let d = Diagnostic::error(
                        b.span,
                        format!(
                            "modifiers `{}` and `{}` both have a value `{}`: `.{}` would not say which one it sets",
                            a.name, b.name, v.name, v.name
                        ),
                    )
                    .with_secondary(a.span, format!("`{}` declared here", a.name))
                    .with_note("rename the value in one of the types, or make one field an operand");
                    self.field_error(d);
                }
            }
        }
        let mut in_list = Vec::new();
        let mut out_list = Vec::new();
        for (ast_list, out, ctx) in [
            (in_ast, &mut in_list, "InList"),
            (out_ast, &mut out_list, "OutList"),
        ] {
            if let Some((items, _)) = ast_list {
                for item in items {
                    if let Some(r) = self.list_ref(&fields, &order, item, ctx, order_ast.is_some())
                    {
                        out.push(r);
                    }
                }
            }
        }

        // Bitwidth and AsmFormat: per target, nearest first.
        let mut bitwidths: Vec<Bitwidth> = Vec::new();
        let mut asm_formats: Vec<AsmFormat> = Vec::new();
        let mut seen_targets: HashMap<(bool, String), (DefId, Span)> = HashMap::new();
        for &(d, e) in &entries {
            match e {
                InfoEntry::Bitwidth {
                    operand,
                    expr,
                    span,
                } => {
                    if let Some((pd, ps)) = seen_targets.get(&(true, operand.name.clone())) {
                        if *pd == d {
                            let ps = *ps;
                            self.diags.push(
                                Diagnostic::error(
                                    *span,
                                    format!("second `Bitwidth<{}>`", operand.name),
                                )
                                .with_secondary(ps, "first given here"),
                            );
                        }
                        continue;
                    }
                    seen_targets.insert((true, operand.name.clone()), (d, *span));
                    // Without `Order` (reported) no field is an operand yet.
                    let fi = if order_ast.is_some() {
                        self.operand_field(&fields, operand, "Bitwidth")
                    } else {
                        self.operand_field_any(&fields, operand, "Bitwidth")
                    };
                    let Some(fi) = fi else {
                        continue;
                    };
                    match expr::resolve(&self.model, &fields, expr) {
                        Ok((c, ExprType::Int | ExprType::Bool)) => {
                            self.check_bitwidth_range(&fields, &c, *span, &operand.name);
                            bitwidths.push(Bitwidth {
                                field: fi,
                                expr: c,
                                span: *span,
                            });
                        }
                        Ok((_, ExprType::Enum(_))) => {
                            self.err(expr.span(), "a bit width must be a number");
                        }
                        Err(diag) => self.diags.push(diag),
                    }
                }
                InfoEntry::AsmFormat {
                    operand,
                    converter,
                    args,
                    span,
                } => {
                    if let Some((pd, ps)) = seen_targets.get(&(false, operand.name.clone())) {
                        if *pd == d {
                            let ps = *ps;
                            self.diags.push(
                                Diagnostic::error(
                                    *span,
                                    format!("second `AsmFormat<{}>`", operand.name),
                                )
                                .with_secondary(ps, "first given here"),
                            );
                        }
                        continue;
                    }
                    seen_targets.insert((false, operand.name.clone()), (d, *span));
                    if let Some(a) = self.asm_format(&fields, operand, converter, args) {
                        asm_formats.push(a);
                    }
                }
                _ => {}
            }
        }

        // Exceptions from every ancestor.
        let mut exceptions = Vec::new();
        for &d in &nearest {
            for ex in &self.def_ast[d.0].exceptions {
                match expr::resolve(&self.model, &fields, &ex.cond) {
                    Ok((c, ExprType::Bool)) => exceptions.push(Exception {
                        kind: ex.kind.name.clone(),
                        message: ex.message.clone(),
                        cond: c,
                        span: ex.span,
                    }),
                    Ok(_) => self.err(ex.cond.span(), "an exception condition must be a comparison or a combination of comparisons"),
                    Err(diag) => self.diags.push(diag),
                }
            }
        }

        // Encoding masks and overlaps.
        let mut fixed_mask = 0u128;
        let mut fixed_bits = 0u128;
        let mut covered = 0u128;
        for (i, f) in fields.iter().enumerate() {
            let m = f.mask();
            if covered & m != 0 {
                if let Some(other) = fields[..i].iter().find(|o| o.mask() & m != 0) {
                    let overlap = other.mask() & m;
                    let lo = overlap.trailing_zeros();
                    let hi = 127 - overlap.leading_zeros();
                    self.diags.push(
                        Diagnostic::error(
                            f.span,
                            format!(
                                "fields `{}` and `{}` of `{name}` overlap at bits {lo}..={hi}",
                                f.name, other.name
                            ),
                        )
                        .with_secondary(other.span, format!("`{}` declared here", other.name)),
                    );
                }
            }
            covered |= m;
            if let Role::Fixed(c) = f.role {
                fixed_mask |= m;
                fixed_bits |= c << f.start;
            }
        }
        if fixed_mask == 0 {
            self.err(
                def_span,
                format!("opcode `{name}` has no fixed field (`… == Value;`), so no word can identify it"),
            );
        }

        let optype = lin
            .iter()
            .rev()
            .find(|d| self.model.defs[d.0].kind == DefKind::Optype)
            .copied();
        if optype.is_none() {
            self.diags.push(Diagnostic::warning(
                Lint::NoOptype,
                def_span,
                format!("opcode `{name}` has no `__DefOptype` among its ancestors"),
            ));
        }

        if self.diags.error_count() > errors_before {
            return None;
        }
        Some(Opcode {
            name,
            def,
            optype,
            ancestors: nearest[1..].to_vec(),
            fields,
            order,
            in_list,
            out_list,
            bitwidths,
            asm_formats,
            exceptions,
            fixed_mask,
            fixed_bits,
            covered,
            flow: Flow::default(),
            span: def_span,
        })
    }

    /// Resolves an `Order` item and marks its fields as operands.
    fn operand(&mut self, fields: &mut [Field], item: &ListItem) -> Option<Operand> {
        let span = item.span();
        let kind = match item {
            ListItem::Name(id) => {
                if let Some(f) = fields.iter().position(|f| f.name == id.name) {
                    if fields[f].is_fixed() {
                        self.err(
                            id.span,
                            format!("fixed field `{}` cannot be an operand", id.name),
                        );
                        return None;
                    }
                    fields[f].role = Role::Operand;
                    OperandKind::Field(f)
                } else if let Some(&w) = self.word_index.get(&id.name) {
                    OperandKind::Word(w)
                } else {
                    self.unknown_operand(fields, id, "Order");
                    return None;
                }
            }
            ListItem::Composite { head, args, .. } => {
                if args.len() != 2 {
                    self.err(
                        span,
                        format!("`{}[…]` takes two names, found {}", head.name, args.len()),
                    );
                    return None;
                }
                let a = self.operand_field_any(fields, &args[0], "Order")?;
                let b = self.operand_field_any(fields, &args[1], "Order")?;
                let ta = &self.model.types[fields[a].ty.0];
                let tb = &self.model.types[fields[b].ty.0];
                if head.name == "C" {
                    if !matches!(ta.kind, TypeKind::ConstMem { .. }) || tb.reg_file().is_none() {
                        self.err(
                            span,
                            format!(
                                "`C[mem, reg]` needs a constant-memory field and a register field; `{}` is a `{}` and `{}` a `{}`",
                                args[0].name, ta.name, args[1].name, tb.name
                            ),
                        );
                        return None;
                    }
                    fields[a].role = Role::Operand;
                    fields[b].role = Role::Operand;
                    OperandKind::CMemIndexed { mem: a, reg: b }
                } else {
                    let file = self
                        .model
                        .types
                        .iter()
                        .position(|t| t.reg_file().is_some_and(|r| r.prefix == head.name));
                    let Some(file) = file else {
                        self.err(
                            head.span,
                            format!(
                                "unknown composite operand `{}[…]`: expected `C[…]` or a register-file prefix",
                                head.name
                            ),
                        );
                        return None;
                    };
                    if ta.reg_file().is_none() || !matches!(tb.kind, TypeKind::Immediate { .. }) {
                        self.err(
                            span,
                            format!(
                                "`{}[reg, offset]` needs a register field and an immediate field",
                                head.name
                            ),
                        );
                        return None;
                    }
                    fields[a].role = Role::Operand;
                    fields[b].role = Role::Operand;
                    OperandKind::RegIndexed {
                        file: TypeId(file),
                        reg: a,
                        offset: b,
                    }
                }
            }
        };
        Some(Operand { kind, span })
    }

    fn unknown_operand(&mut self, fields: &[Field], id: &ast::Ident, ctx: &str) {
        if self.broken_words.contains(&id.name) {
            return; // its definition is in error, reported there
        }
        let mut d = Diagnostic::error(id.span, format!("unknown operand `{}` in `{ctx}`", id.name))
            .with_label("no field or operand word of this name");
        let names: Vec<&str> = fields
            .iter()
            .map(|f| f.name.as_str())
            .chain(self.model.words.iter().map(|w| w.name.as_str()))
            .collect();
        if let Some(s) = crate::suggest::nearest(&id.name, names.iter().copied()) {
            d = d.with_note(format!("did you mean `{s}`?"));
        }
        self.diags.push(d);
    }

    fn operand_field_any(&mut self, fields: &[Field], id: &ast::Ident, ctx: &str) -> Option<usize> {
        let f = fields.iter().position(|f| f.name == id.name);
        if f.is_none() {
            self.unknown_operand(fields, id, ctx);
        }
        f
    }

    /// A field named in `Bitwidth<…>`/`AsmFormat<…>`: must exist and be an operand.
    fn operand_field(&mut self, fields: &[Field], id: &ast::Ident, ctx: &str) -> Option<usize> {
        let f = self.operand_field_any(fields, id, ctx)?;
        if fields[f].role != Role::Operand {
            self.err(
                id.span,
                format!(
                    "`{ctx}<{}>` names a field that is not an operand (not in `Order`)",
                    id.name
                ),
            );
            return None;
        }
        Some(f)
    }

    /// An `InList`/`OutList` item (`ctx` names the list). Fields not in `Order` are
    /// reported only when there is an `Order` (its absence is reported already).
    fn list_ref(
        &mut self,
        fields: &[Field],
        order: &[Operand],
        item: &ListItem,
        ctx: &str,
        has_order: bool,
    ) -> Option<ListRef> {
        match item {
            ListItem::Name(id) => {
                if let Some(f) = fields.iter().position(|f| f.name == id.name) {
                    if has_order && fields[f].role != Role::Operand {
                        self.diags.push(Diagnostic::warning(
                            Lint::UnlistedOperand,
                            id.span,
                            format!(
                                "`{}` is listed as read or written but is not in `Order`",
                                id.name
                            ),
                        ));
                    }
                    Some(ListRef::Field(f))
                } else if let Some(&w) = self.word_index.get(&id.name) {
                    Some(ListRef::Word(w))
                } else {
                    self.unknown_operand(fields, id, ctx);
                    None
                }
            }
            // The register a register-indexed operand of `Order` names (`UR[urb, uridx]`
            // in `OutList`: the instruction writes the register `urb + uridx`, which
            // only its run decides).
            ListItem::Composite { head, args, span } => {
                let indexed = order.iter().find_map(|o| match o.kind {
                    OperandKind::RegIndexed { file, reg, offset }
                        if self.model.types[file.0]
                            .reg_file()
                            .is_some_and(|r| r.prefix == head.name)
                            && args.len() == 2
                            && fields[reg].name == args[0].name
                            && fields[offset].name == args[1].name =>
                    {
                        Some(ListRef::Indexed { file, reg, offset })
                    }
                    _ => None,
                });
                if indexed.is_none() {
                    self.err(
                        *span,
                        "a composite operand in a list must be a register-indexed operand of `Order` (`UR[reg, offset]`); list other operands' fields by name",
                    );
                }
                indexed
            }
        }
    }

    fn asm_format(
        &mut self,
        fields: &[Field],
        operand: &ast::Ident,
        converter: &ast::Ident,
        args: &[ast::Expr],
    ) -> Option<AsmFormat> {
        let target = self.operand_field_any(fields, operand, "AsmFormat")?;
        let field_arg = |i: usize| -> Option<&ast::Ident> {
            match args.get(i) {
                Some(ast::Expr::Name(id)) => Some(id),
                _ => None,
            }
        };
        match converter.name.as_str() {
            "CvtIShift" => {
                let (Some(f), Some(ast::Expr::Int(n))) = (field_arg(0), args.get(1)) else {
                    self.err(
                        converter.span,
                        "`CvtIShift` takes a field and a shift: `CvtIShift(offset, 4)`",
                    );
                    return None;
                };
                if args.len() != 2 || f.name != operand.name {
                    self.err(
                        converter.span,
                        format!(
                            "`CvtIShift` must shift the operand it formats: `CvtIShift({}, n)`",
                            operand.name
                        ),
                    );
                    return None;
                }
                if n.value == 0 || n.value >= 64 {
                    self.err(n.span, "the shift must be between 1 and 63");
                    return None;
                }
                if !matches!(
                    self.model.types[fields[target].ty.0].kind,
                    TypeKind::Immediate { .. }
                ) {
                    self.err(operand.span, "`CvtIShift` applies to immediate fields");
                    return None;
                }
                Some(AsmFormat::IShift {
                    field: target,
                    shift: n.value as u32,
                })
            }
            "CvtINegX" => {
                let (Some(neg), Some(ext)) = (field_arg(0), field_arg(1)) else {
                    self.err(converter.span, "`CvtINegX` takes the negate sub-field and the extension modifier: `CvtINegX(ura.neg, ext)`");
                    return None;
                };
                if args.len() != 2 || neg.name != operand.name {
                    self.err(converter.span, format!("`CvtINegX` must take the sub-field it formats first: `CvtINegX({}, ext)`", operand.name));
                    return None;
                }
                let ext_f = self.operand_field_any(fields, ext, "AsmFormat")?;
                let et = &self.model.types[fields[ext_f].ty.0];
                if et.enum_code("X").is_none() {
                    self.err(
                        ext.span,
                        format!(
                            "`{}` must be a modifier whose type has a value `X`",
                            ext.name
                        ),
                    );
                    return None;
                }
                if !fields[target].name.contains('.') {
                    self.err(
                        operand.span,
                        "`CvtINegX` formats a sub-field such as `ura.neg`",
                    );
                    return None;
                }
                Some(AsmFormat::INegX {
                    neg: target,
                    ext: ext_f,
                })
            }
            other => {
                let mut d = Diagnostic::error(
                    converter.span,
                    format!("unknown AsmFormat converter `{other}`"),
                )
                .with_note("known converters: `CvtIShift(field, n)`, `CvtINegX(neg, ext)`");
                if let Some(s) = crate::suggest::nearest(other, ["CvtIShift", "CvtINegX"]) {
                    d = d.with_note(format!("did you mean `{s}`?"));
                }
                self.diags.push(d);
                None
            }
        }
    }

    /// Evaluates a bit width for every combination of the enum fields it reads (when
    /// that is small) and checks each result is between 1 and 128.
    fn check_bitwidth_range(&mut self, fields: &[Field], e: &CExpr, span: Span, name: &str) {
        let mut used = Vec::new();
        e.fields(&mut used);
        let mut domains: Vec<Vec<u128>> = Vec::new();
        for &f in &used {
            match self.model.types[fields[f].ty.0].enum_values() {
                Some(vs) => domains.push(vs.iter().map(|v| v.code).collect()),
                None => return, // not enumerable: checked by the generated code's type
            }
        }
        let combos: usize = domains.iter().map(|d| d.len().max(1)).product();
        if combos > 4096 {
            return;
        }
        let mut idx = vec![0usize; domains.len()];
        loop {
            let value = |f: usize| {
                let k = used.iter().position(|&u| u == f).unwrap_or(0);
                domains[k].get(idx[k]).copied().unwrap_or(0)
            };
            let v = e.eval(&value);
            if !(1..=128).contains(&v) {
                self.err(
                    span,
                    format!("`Bitwidth<{name}>` evaluates to {v}, outside 1..=128"),
                );
                return;
            }
            // Next combination.
            let mut k = 0;
            loop {
                if k == idx.len() {
                    return;
                }
                idx[k] += 1;
                if idx[k] < domains[k].len() {
                    break;
                }
                idx[k] = 0;
                k += 1;
            }
        }
    }

    /// Reports pairs of opcodes some word could match both of.
    fn check_ambiguity(&mut self) {
        let ops = &self.model.opcodes;
        let mut found = Vec::new();
        for (i, a) in ops.iter().enumerate() {
            for b in &ops[i + 1..] {
                let common = a.fixed_mask & b.fixed_mask;
                if (a.fixed_bits ^ b.fixed_bits) & common != 0 {
                    continue;
                }
                // The fixed patterns agree wherever both fix bits, so some word carries
                // both patterns. Decoding dispatches on fixed bits alone, so that is an
                // ambiguity even when one of the two would then reject the word.
                found.push((
                    a.name.clone(),
                    a.span,
                    a.fixed_mask,
                    a.fixed_bits,
                    b.name.clone(),
                    b.span,
                    b.fixed_mask,
                    b.fixed_bits,
                ));
            }
        }
        for (an, asp, am, ab, bn, bsp, bm, bb) in found {
            self.diags.push(
                Diagnostic::error(
                    asp,
                    format!("opcodes `{an}` and `{bn}` can match the same word"),
                )
                .with_secondary(bsp, format!("`{bn}` defined here"))
                .with_note(format!("`{an}` fixed bits: {}", pattern(am, ab)))
                .with_note(format!("`{bn}` fixed bits: {}", pattern(bm, bb)))
                .with_note("give them different fixed values in a field both fix"),
            );
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
