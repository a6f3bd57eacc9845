//! A name index over the parsed files: where each type, value, definition, field and
//! operand word is declared, and every place it is used.
//!
//! It is built from the ASTs alone, so it works on a spec with errors (an editor shows
//! definitions and references while the author is in the middle of a change). Names
//! resolve the way the checker resolves them (`model::resolve`, `model::expr`): types,
//! definitions and words by name across all files; a field name inside a definition by
//! its inheritance (the root-most ancestor that declares it, so a re-declaration is a
//! use of the inherited field); a value by the type of the field it is assigned to or
//! compared with. A name the checker would reject resolves to nothing here.

use std::collections::HashMap;

use crate::source::{FileId, Span};
use crate::syntax::ast::{BinOp, Ident};
use crate::syntax::ast::{
    DefKind, Definition, Expr, FieldDecl, FieldInit, FlowItem, InfoEntry, Item, ListItem,
    RegFileItem, SpecFile,
};

/// Index into [`Index::symbols`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SymbolId(pub usize);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SymbolKind {
    /// A bit-field type, register file, immediate or constant-memory type.
    Type,
    /// A value of an enumeration, or a named register (`PT`) of a register file.
    Value,
    Def(DefKind),
    /// A field, as first declared by the root-most definition declaring it.
    Field,
    /// A fixed operand word (`UPR`).
    Word,
}

/// A named thing of the spec.
#[derive(Debug, Clone)]
pub struct Symbol {
    pub name: String,
    pub kind: SymbolKind,
    /// The name at its (first) declaration.
    pub decl: Span,
    /// For a value: its type. For a field: the definition declaring it.
    pub container: Option<SymbolId>,
    /// For a field: the type named in its declaration (when that type exists).
    pub ty: Option<SymbolId>,
    /// For a sub-field (`ura.neg`): the field its name starts with (`ura`), as the
    /// definition declaring the sub-field sees it.
    pub parent: Option<SymbolId>,
}

/// One place a symbol's name is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Occurrence {
    pub span: Span,
    pub symbol: SymbolId,
    /// A declaration (or a re-declaration of an inherited field), not a use.
    pub decl: bool,
}

/// The index of one spec (all its files).
#[derive(Debug, Clone, Default)]
pub struct Index {
    pub symbols: Vec<Symbol>,
    /// Sorted by file and start.
    occurrences: Vec<Occurrence>,
    /// Per symbol, indexes into `occurrences`.
    by_symbol: Vec<Vec<usize>>,
    types: HashMap<String, SymbolId>,
    defs: HashMap<String, SymbolId>,
    words: HashMap<String, SymbolId>,
    /// (type, value name) → value.
    values: HashMap<(SymbolId, String), SymbolId>,
}

impl Index {
    /// Indexes the parsed files of one spec.
    pub fn build(files: &[SpecFile]) -> Index {
        let mut b = Builder::default();
        b.declare(files);
        b.resolve_defs(files);
        b.flow_fields(files);
        b.correction_entries(files);
        b.finish()
    }

    pub fn symbol(&self, id: SymbolId) -> &Symbol {
        &self.symbols[id.0]
    }

    /// The occurrence at a byte offset (a cursor just after a name is on it).
    pub fn at(&self, file: FileId, offset: usize) -> Option<&Occurrence> {
        let offset = offset as u32;
        let i = self
            .occurrences
            .partition_point(|o| (o.span.file, o.span.start) <= (file, offset));
        // The candidates start at or before the offset; names do not nest, so the
        // nearest one is the only one that can contain it.
        let o = self.occurrences[..i].last()?;
        (o.span.file == file && o.span.end >= offset).then_some(o)
    }

    /// Every occurrence of a symbol, declarations included, in file order.
    pub fn occurrences_of(&self, id: SymbolId) -> impl Iterator<Item = &Occurrence> {
        self.by_symbol
            .get(id.0)
            .into_iter()
            .flatten()
            .map(|&i| &self.occurrences[i])
    }

    /// The sub-fields (`ura.neg`) whose name starts with field `field`.
    pub fn sub_fields_of(&self, field: SymbolId) -> impl Iterator<Item = SymbolId> + '_ {
        self.of_kind(|k| k == SymbolKind::Field)
            .filter(move |s| self.symbols[s.0].parent == Some(field))
    }

    pub fn type_named(&self, name: &str) -> Option<SymbolId> {
        self.types.get(name).copied()
    }

    pub fn def_named(&self, name: &str) -> Option<SymbolId> {
        self.defs.get(name).copied()
    }

    pub fn word_named(&self, name: &str) -> Option<SymbolId> {
        self.words.get(name).copied()
    }

    pub fn value_of(&self, ty: SymbolId, name: &str) -> Option<SymbolId> {
        self.values.get(&(ty, name.to_string())).copied()
    }

    /// Symbols of one kind, in declaration order.
    pub fn of_kind<'s>(
        &'s self,
        pred: impl Fn(SymbolKind) -> bool + 's,
    ) -> impl Iterator<Item = SymbolId> + 's {
        self.symbols
            .iter()
            .enumerate()
            .filter(move |(_, s)| pred(s.kind))
            .map(|(i, _)| SymbolId(i))
    }

    /// The values of a type, in declaration order.
    pub fn values_of(&self, ty: SymbolId) -> impl Iterator<Item = SymbolId> + '_ {
        self.of_kind(|k| k == SymbolKind::Value)
            .filter(move |v| self.symbols[v.0].container == Some(ty))
    }
}

/// The definitions of a spec with their parents resolved, for walking inheritance.
#[derive(Debug, Clone, Default)]
pub struct Defs<'a> {
    pub defs: Vec<&'a Definition>,
    pub by_name: HashMap<&'a str, usize>,
    pub parents: Vec<Vec<usize>>,
    pub children: Vec<Vec<usize>>,
    /// Per definition: its field declarations by name (the first of each).
    declared: Vec<HashMap<&'a str, usize>>,
}

/// Longest inheritance walk followed (the checker rejects chains deeper than 256; a
/// hostile file may hold far longer ones, which must not make the server hang).
const MAX_WALK: usize = 1024;

impl<'a> Defs<'a> {
    pub fn new(files: &'a [SpecFile]) -> Defs<'a> {
        let mut d = Defs::default();
        for item in files.iter().flat_map(|f| &f.items) {
            if let Item::Def(def) = item {
                d.by_name
                    .entry(def.name.name.as_str())
                    .or_insert(d.defs.len());
                d.defs.push(def);
            }
        }
        d.children = vec![Vec::new(); d.defs.len()];
        d.declared = d
            .defs
            .iter()
            .map(|def| {
                let mut m = HashMap::new();
                for (k, f) in def.encoding.iter().enumerate() {
                    m.entry(f.name.name.as_str()).or_insert(k);
                }
                m
            })
            .collect();
        for (i, def) in d.defs.iter().enumerate() {
            let ps: Vec<usize> = def
                .parents
                .iter()
                .filter_map(|p| d.by_name.get(p.name.as_str()).copied())
                .collect();
            for &p in &ps {
                d.children[p].push(i);
            }
            d.parents.push(ps);
        }
        d
    }

    /// Ancestors of `def`, root-most first, each once, ending with `def` itself: the
    /// checker's order (README §5.3). Cycles are cut where they close.
    pub fn linearize(&self, def: usize) -> Vec<usize> {
        // Sets sized by what is visited, not by the spec: this runs once per definition.
        let mut seen = std::collections::HashSet::new();
        let mut out = Vec::new();
        // Iterative post-order, so a hostile chain cannot overflow the stack.
        let mut stack = vec![(def, 0usize)];
        seen.insert(def);
        while let Some((d, k)) = stack.pop() {
            match self.parents[d].get(k) {
                Some(&p) if stack.len() < MAX_WALK => {
                    stack.push((d, k + 1));
                    if seen.insert(p) {
                        stack.push((p, 0));
                    }
                }
                _ => out.push(d),
            }
        }
        out
    }

    /// The declaration of field `name` in definition `def` itself.
    pub fn declaration(&self, def: usize, name: &str) -> Option<&'a FieldDecl> {
        let k = *self.declared[def].get(name)?;
        Some(&self.defs[def].encoding[k])
    }

    /// Descendants of `def` (not itself), nearest first.
    pub fn descendants(&self, def: usize) -> Vec<usize> {
        let mut seen = std::collections::HashSet::from([def]);
        let mut out = Vec::new();
        let mut k = 0;
        let mut queue = vec![def];
        while k < queue.len() {
            for &c in &self.children[queue[k]] {
                if seen.insert(c) {
                    out.push(c);
                    queue.push(c);
                }
            }
            k += 1;
        }
        out
    }

    /// The field declarations `def` has, own and inherited: for each name the nearest
    /// declaration, with the definition it comes from, root-most fields first. An
    /// override without a value keeps the inherited value (`init_from`).
    pub fn fields(&self, def: usize) -> Vec<InheritedField<'a>> {
        let mut out: Vec<InheritedField<'a>> = Vec::new();
        let mut at: HashMap<&str, usize> = HashMap::new();
        for d in self.linearize(def) {
            for f in &self.defs[d].encoding {
                match at.get(f.name.name.as_str()) {
                    None => {
                        at.insert(f.name.name.as_str(), out.len());
                        out.push(InheritedField {
                            decl: f,
                            from: d,
                            init_from: d,
                        });
                    }
                    Some(&i) => {
                        let init_from = if matches!(f.init, FieldInit::None) {
                            out[i].init_from
                        } else {
                            d
                        };
                        out[i] = InheritedField {
                            decl: f,
                            from: d,
                            init_from,
                        };
                    }
                }
            }
        }
        out
    }
}

/// A field as a definition sees it (see [`Defs::fields`]).
#[derive(Debug, Clone, Copy)]
pub struct InheritedField<'a> {
    pub decl: &'a FieldDecl,
    /// The definition whose declaration is nearest.
    pub from: usize,
    /// The definition whose `=`/`==` value applies.
    pub init_from: usize,
}

#[derive(Default)]
struct Builder {
    index: Index,
    occ: Vec<Occurrence>,
    /// Per definition (index into `Defs::defs`): its symbol.
    def_syms: Vec<SymbolId>,
    /// (declaring definition, field name) → field symbol.
    fields: HashMap<(usize, String), SymbolId>,
    /// Register-file prefix (`UR`) → the register file, for `UR[…]` composites.
    prefixes: HashMap<String, SymbolId>,
    /// (definition, field name) → what it resolves to there, once per pair.
    resolved: HashMap<(usize, String), Option<SymbolId>>,
}

impl Builder {
    fn add(&mut self, name: &str, kind: SymbolKind, decl: Span) -> SymbolId {
        let id = SymbolId(self.index.symbols.len());
        self.index.symbols.push(Symbol {
            name: name.to_string(),
            kind,
            decl,
            container: None,
            ty: None,
            parent: None,
        });
        self.occ.push(Occurrence {
            span: decl,
            symbol: id,
            decl: true,
        });
        id
    }

    fn use_at(&mut self, span: Span, symbol: SymbolId) {
        self.occ.push(Occurrence {
            span,
            symbol,
            decl: false,
        });
    }

    /// Types, their values, words and definitions: everything named across files.
    fn declare(&mut self, files: &[SpecFile]) {
        for item in files.iter().flat_map(|f| &f.items) {
            let name = match item {
                Item::BitFieldType(e) => &e.name,
                Item::RegFile(r) => &r.name,
                Item::Immediate(i) => &i.name,
                Item::ConstMem(c) => &c.name,
                _ => continue,
            };
            // A second definition of a name is reported by the checker; here it is
            // a use of the first, so "go to definition" leads to the one in force.
            let ty = match self.index.types.get(&name.name) {
                Some(&first) => {
                    self.occ.push(Occurrence {
                        span: name.span,
                        symbol: first,
                        decl: true,
                    });
                    continue;
                }
                None => {
                    let id = self.add(&name.name, SymbolKind::Type, name.span);
                    self.index.types.insert(name.name.clone(), id);
                    id
                }
            };
            let values: Vec<&Ident> = match item {
                Item::BitFieldType(e) => e.values.iter().map(|v| &v.name).collect(),
                Item::RegFile(r) => r
                    .items
                    .iter()
                    .filter_map(|i| match i {
                        RegFileItem::Named { name, .. } => Some(name),
                        RegFileItem::Range { prefix, .. } => {
                            self.prefixes.entry(prefix.name.clone()).or_insert(ty);
                            None
                        }
                    })
                    .collect(),
                _ => Vec::new(),
            };
            for v in values {
                let key = (ty, v.name.clone());
                if let Some(&first) = self.index.values.get(&key) {
                    self.use_at(v.span, first);
                    continue;
                }
                let id = self.add(&v.name, SymbolKind::Value, v.span);
                self.index.symbols[id.0].container = Some(ty);
                self.index.values.insert(key, id);
            }
        }
        for item in files.iter().flat_map(|f| &f.items) {
            match item {
                Item::OperandWord(w) => {
                    if !self.index.words.contains_key(&w.name.name) {
                        let id = self.add(&w.name.name, SymbolKind::Word, w.name.span);
                        self.index.words.insert(w.name.name.clone(), id);
                    }
                    if let Some(&t) = self.index.types.get(&w.reg_file.name) {
                        self.use_at(w.reg_file.span, t);
                    }
                }
                Item::Def(d) => {
                    let id = match self.index.defs.get(&d.name.name) {
                        Some(&first) => {
                            self.occ.push(Occurrence {
                                span: d.name.span,
                                symbol: first,
                                decl: true,
                            });
                            first
                        }
                        None => {
                            let id = self.add(&d.name.name, SymbolKind::Def(d.kind), d.name.span);
                            self.index.defs.insert(d.name.name.clone(), id);
                            id
                        }
                    };
                    self.def_syms.push(id);
                }
                _ => {}
            }
        }
        // Parents after every definition is known: a parent may be defined later; so
        // may the definitions and types the annotations name.
        for item in files.iter().flat_map(|f| &f.items) {
            match item {
                Item::Def(d) => {
                    for p in &d.parents {
                        if let Some(&ps) = self.index.defs.get(&p.name) {
                            self.use_at(p.span, ps);
                        }
                    }
                }
                Item::Registers(r) => {
                    if let Some(&t) = self.index.types.get(&r.ty.name) {
                        self.use_at(r.ty.span, t);
                    }
                }
                Item::Flow(f) => {
                    if let Some(&d) = self.index.defs.get(&f.def.name) {
                        self.use_at(f.def.span, d);
                    }
                }
                Item::Correction(c) => {
                    if let Some(&d) = self.index.defs.get(&c.def.name) {
                        self.use_at(c.def.span, d);
                    }
                }
                _ => {}
            }
        }
    }

    fn resolve_defs(&mut self, files: &[SpecFile]) {
        let defs = Defs::new(files);
        for (i, def) in defs.defs.iter().enumerate() {
            if def.encoding.is_empty() && def.operand_info.is_empty() && def.exceptions.is_empty() {
                continue; // nothing to resolve: spare the inheritance walk
            }
            let scope = Scope::new(&defs, i);
            for f in &def.encoding {
                self.field_decl(&defs, &scope, f);
            }
            for e in &def.operand_info {
                self.info_entry(&defs, &scope, e);
            }
            for ex in &def.exceptions {
                self.expr(&defs, &scope, &ex.cond);
            }
        }
    }

    /// The names an `__OperandInfo` entry uses, in `scope`.
    fn info_entry(&mut self, defs: &Defs, scope: &Scope, e: &InfoEntry) {
        match e {
            InfoEntry::InList(items, _)
            | InfoEntry::OutList(items, _)
            | InfoEntry::Order(items, _) => {
                for it in items {
                    match it {
                        ListItem::Name(id) => self.operand_name(defs, scope, id),
                        ListItem::Composite { head, args, .. } => {
                            if let Some(&t) = self.prefixes.get(&head.name) {
                                self.use_at(head.span, t);
                            }
                            for a in args {
                                self.field_use(defs, scope, a);
                            }
                        }
                    }
                }
            }
            InfoEntry::Bitwidth { operand, expr, .. } => {
                self.field_use(defs, scope, operand);
                self.expr(defs, scope, expr);
            }
            InfoEntry::AsmFormat { operand, args, .. } => {
                self.field_use(defs, scope, operand);
                for a in args {
                    self.expr(defs, scope, a);
                }
            }
        }
    }

    /// The names a `__DefCorrection`'s entries use, in the scope of its definition.
    fn correction_entries(&mut self, files: &[SpecFile]) {
        let any = files
            .iter()
            .flat_map(|f| &f.items)
            .any(|i| matches!(i, Item::Correction(_)));
        if !any {
            return; // spare the definitions' table
        }
        let defs = Defs::new(files);
        for item in files.iter().flat_map(|f| &f.items) {
            let Item::Correction(c) = item else { continue };
            let Some(&i) = defs.by_name.get(c.def.name.as_str()) else {
                continue;
            };
            let scope = Scope::new(&defs, i);
            for e in &c.entries {
                self.info_entry(&defs, &scope, e);
            }
        }
    }

    /// The fields a `__DefFlow` names, in the scope of the definition it annotates.
    fn flow_fields(&mut self, files: &[SpecFile]) {
        let defs = Defs::new(files);
        for item in files.iter().flat_map(|f| &f.items) {
            let Item::Flow(flow) = item else { continue };
            let Some(&i) = defs.by_name.get(flow.def.name.as_str()) else {
                continue;
            };
            let scope = Scope::new(&defs, i);
            for it in &flow.items {
                match it {
                    FlowItem::Target(id)
                    | FlowItem::Absolute(id, None)
                    | FlowItem::Immediate(id) => {
                        self.field_use(&defs, &scope, id);
                    }
                    FlowItem::Absolute(id, Some((g, _))) => {
                        self.field_use(&defs, &scope, id);
                        self.field_use(&defs, &scope, g);
                    }
                    FlowItem::Condition(ids) => {
                        for id in ids {
                            self.field_use(&defs, &scope, id);
                        }
                    }
                }
            }
        }
    }

    fn field_decl(&mut self, defs: &Defs, scope: &Scope, f: &FieldDecl) {
        let ty = self.index.types.get(&f.ty.name).copied();
        if let Some(t) = ty {
            self.use_at(f.ty.span, t);
        }
        if let Some(sym) = self.field_symbol(defs, scope, &f.name.name) {
            if self.index.symbols[sym.0].decl != f.name.span {
                // A re-declaration of an inherited field.
                self.occ.push(Occurrence {
                    span: f.name.span,
                    symbol: sym,
                    decl: true,
                });
            }
        }
        if let (FieldInit::Default(v) | FieldInit::Fixed(v), Some(t)) = (&f.init, ty) {
            if let Some(&val) = self.index.values.get(&(t, v.text.clone())) {
                self.use_at(v.span, val);
            }
        }
    }

    /// The symbol of field `name` as definition `scope.def` sees it, creating the
    /// symbol of its root-most declaration on first sight. A name declared by no
    /// ancestor may be declared by descendants (a group's `AsmFormat<offset>` needs
    /// the field in every opcode below it): the first of those is taken.
    fn field_symbol(&mut self, defs: &Defs, scope: &Scope, name: &str) -> Option<SymbolId> {
        let memo = (scope.def, name.to_string());
        if let Some(&s) = self.resolved.get(&memo) {
            return s;
        }
        let s = self.resolve_field(defs, scope, name);
        self.resolved.insert(memo, s);
        s
    }

    fn resolve_field(&mut self, defs: &Defs, scope: &Scope, name: &str) -> Option<SymbolId> {
        let declares = |d: usize| defs.declaration(d, name).is_some();
        let owner = scope.owner.get(name).copied().or_else(|| {
            let below = scope.below.get_or_init(|| defs.descendants(scope.def));
            below.iter().copied().find(|&d| declares(d)).map(|d| {
                defs.linearize(d)
                    .into_iter()
                    .find(|&a| declares(a))
                    .unwrap_or(d)
            })
        })?;
        let key = (owner, name.to_string());
        if let Some(&s) = self.fields.get(&key) {
            return Some(s);
        }
        let decl = defs.declaration(owner, name)?;
        let id = self.add(name, SymbolKind::Field, decl.name.span);
        self.index.symbols[id.0].container = Some(self.def_syms[owner]);
        self.index.symbols[id.0].ty = self.index.types.get(&decl.ty.name).copied();
        self.fields.insert(key, id);
        if let Some((field, _)) = name.split_once('.') {
            let parent = self.field_symbol(defs, &Scope::new(defs, owner), field);
            self.index.symbols[id.0].parent = parent;
        }
        Some(id)
    }

    fn field_use(&mut self, defs: &Defs, scope: &Scope, id: &Ident) -> Option<SymbolId> {
        let sym = self.field_symbol(defs, scope, &id.name)?;
        self.use_at(id.span, sym);
        Some(sym)
    }

    /// An `Order`/`InList`/`OutList` name: a field, else an operand word.
    fn operand_name(&mut self, defs: &Defs, scope: &Scope, id: &Ident) {
        if self.field_use(defs, scope, id).is_none() {
            if let Some(&w) = self.index.words.get(&id.name) {
                self.use_at(id.span, w);
            }
        }
    }

    /// Field names in an expression; a value name compared with an enumeration or
    /// register field resolves to that type's value.
    fn expr(&mut self, defs: &Defs, scope: &Scope, e: &Expr) {
        // Explicit stack: expressions may be deep (the parser allows 64 levels).
        let mut stack = vec![e];
        while let Some(e) = stack.pop() {
            match e {
                Expr::Name(id) => {
                    self.field_use(defs, scope, id);
                }
                Expr::Unary(_, inner, _) => stack.push(inner),
                Expr::Binary(op, a, b) => {
                    if matches!(op, BinOp::Eq | BinOp::Ne) {
                        self.comparison(defs, scope, a, b);
                        self.comparison(defs, scope, b, a);
                    }
                    for side in [a, b] {
                        if !matches!(**side, Expr::Name(_) | Expr::Str(..)) {
                            stack.push(side);
                        }
                    }
                    for side in [a, b] {
                        if let Expr::Name(id) = &**side {
                            self.field_use(defs, scope, id);
                        }
                    }
                }
                Expr::Int(_) | Expr::Str(..) => {}
            }
        }
    }

    /// `field == VALUE` (either order): the value side as a value of the field's type.
    fn comparison(&mut self, defs: &Defs, scope: &Scope, field: &Expr, value: &Expr) {
        let Expr::Name(f) = field else { return };
        let Some(fsym) = self.field_symbol(defs, scope, &f.name) else {
            return;
        };
        let (text, span) = match value {
            Expr::Name(v) => {
                if self.field_symbol(defs, scope, &v.name).is_some() {
                    return;
                }
                (v.name.clone(), v.span)
            }
            // The span of a string includes its quotes.
            Expr::Str(s, span) if span.end > span.start + 1 => (
                s.clone(),
                Span {
                    file: span.file,
                    start: span.start + 1,
                    end: span.end - 1,
                },
            ),
            _ => return,
        };
        let Some(ty) = self.index.symbols[fsym.0].ty else {
            return;
        };
        if let Some(&v) = self.index.values.get(&(ty, text)) {
            self.use_at(span, v);
        }
    }

    fn finish(mut self) -> Index {
        self.occ
            .sort_by_key(|o| (o.span.file, o.span.start, o.span.end));
        self.occ.dedup_by_key(|o| o.span);
        let mut by_symbol = vec![Vec::new(); self.index.symbols.len()];
        for (i, o) in self.occ.iter().enumerate() {
            by_symbol[o.symbol.0].push(i);
        }
        self.index.occurrences = self.occ;
        self.index.by_symbol = by_symbol;
        self.index
    }
}

/// The inheritance of one definition, computed once for all its names.
struct Scope {
    def: usize,
    /// Field name → the root-most definition declaring it, over the inheritance.
    owner: HashMap<String, usize>,
    /// Descendants, computed when a name is not declared above.
    below: std::cell::OnceCell<Vec<usize>>,
}

impl Scope {
    fn new(defs: &Defs, def: usize) -> Scope {
        let mut owner = HashMap::new();
        for d in defs.linearize(def) {
            for f in &defs.defs[d].encoding {
                owner.entry(f.name.name.clone()).or_insert(d);
            }
        }
        Scope {
            def,
            owner,
            below: std::cell::OnceCell::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::Diagnostics;
    use crate::source::SourceMap;

    fn index(files: &[(&str, &str)]) -> (SourceMap, Index) {
        let mut sources = SourceMap::new();
        for (n, t) in files {
            sources.add(*n, *t);
        }
        let mut diags = Diagnostics::default();
        let parsed: Vec<SpecFile> = sources
            .files()
            .map(|(id, _)| crate::syntax::parse_file(&sources, id, &mut diags))
            .collect();
        (sources, Index::build(&parsed))
    }

    /// The symbol under the first occurrence of `needle` after `after` in file `file`.
    fn sym_at(src: &SourceMap, ix: &Index, file: u32, after: &str, needle: &str) -> SymbolId {
        let text = &src.get(FileId(file)).text;
        let from = text.find(after).expect("anchor");
        let at = from + text[from..].find(needle).expect("needle");
        ix.at(FileId(file), at + 1).expect("an occurrence").symbol
    }

    const A: &str = "__DefBitFieldType Cond<2>\n    NoCond;\n    DIV;\n__DefRegFile Pred<3>\n    P 0..6;\n    PT = 7;\n__DefGroup ALL\n  __Encoding\n    field<0, 2> Cond cond = NoCond;\n    field<4, 3> Pred pg = PT;\n";
    const B: &str = "__DefOpcode X: [ALL]\n  __Encoding\n    field<8, 4> Cond cond = DIV;\n  __OperandInfo\n    Order<pg, cond>;\n  __Exception\n    EncodingError<K, \"分支𝄞\"> = (cond != \"DIV\") and (pg == PT);\n";

    #[test]
    fn names_resolve_across_files_and_inheritance() {
        let (src, ix) = index(&[("a.isa", A), ("b.isa", B)]);
        // The parent `ALL` in b.isa is the group of a.isa.
        let all = sym_at(&src, &ix, 1, "[", "ALL");
        assert_eq!(ix.symbol(all).kind, SymbolKind::Def(DefKind::Group));
        assert_eq!(ix.symbol(all).decl.file, FileId(0));
        // `cond` in Order, in the exception and its re-declaration are the field of ALL.
        let cond = sym_at(&src, &ix, 1, "Order", "cond");
        assert_eq!(ix.symbol(cond).kind, SymbolKind::Field);
        assert_eq!(src.text(ix.symbol(cond).decl), "cond");
        assert_eq!(ix.symbol(cond).decl.file, FileId(0));
        let uses: Vec<_> = ix.occurrences_of(cond).collect();
        assert_eq!(uses.len(), 4, "{uses:?}");
        assert_eq!(uses.iter().filter(|o| o.decl).count(), 2);
        // "DIV" in the string and `DIV` as a default are the value of Cond.
        let div = sym_at(&src, &ix, 1, "!=", "DIV");
        assert_eq!(ix.symbol(div).kind, SymbolKind::Value);
        assert_eq!(ix.occurrences_of(div).count(), 3);
        let o = ix.at(FileId(1), B.find("\"DIV\"").unwrap() + 1).unwrap();
        assert_eq!(src.text(o.span), "DIV");
        // `PT` compared with a register field is the named register.
        let pt = sym_at(&src, &ix, 1, "pg ==", "PT");
        assert_eq!(src.text(ix.symbol(pt).decl), "PT");
        // The type of a field declaration.
        let ty = sym_at(&src, &ix, 1, "field<8, 4>", "Cond");
        assert_eq!(ix.symbol(ty).kind, SymbolKind::Type);
        assert_eq!(ix.values_of(ty).count(), 2);
    }

    #[test]
    fn unknown_names_resolve_to_nothing_and_nothing_panics() {
        let (src, ix) = index(&[(
            "c.isa",
            "__DefOpcode Y: [NOPE, Y]\n  __Encoding\n    field<0, 2> Nope f == Q;\n  __OperandInfo\n    Order<g, C[f, h]>;\n",
        )]);
        let text = &src.get(FileId(0)).text;
        for name in ["NOPE", "Nope", "Q", "g", "h"] {
            let at = text.find(name).unwrap();
            assert!(ix.at(FileId(0), at + 1).is_none(), "{name}");
        }
        // `Y` as its own parent (a cycle) is still a reference to Y.
        let at = text.find(", Y]").unwrap() + 2;
        assert_eq!(ix.at(FileId(0), at).map(|o| o.decl), Some(false));
    }

    /// Hostile sizes stay fast: a 20,000-deep chain of definitions and a definition
    /// of 50,000 fields, each used in `Order`.
    #[test]
    fn long_chains_and_wide_definitions_index_in_linear_time() {
        let mut text = String::from("__DefGroup D0\n");
        for i in 1..20_000 {
            text.push_str(&format!("__DefGroup D{i}: [D{}]\n", i - 1));
        }
        text.push_str("__DefOpcode W: [D19999]\n  __Encoding\n");
        for i in 0..50_000 {
            text.push_str(&format!("    field<0, 1> T f{i};\n"));
        }
        text.push_str("  __OperandInfo\n    Order<");
        text.push_str(
            &(0..50_000)
                .map(|i| format!("f{i}"))
                .collect::<Vec<_>>()
                .join(", "),
        );
        text.push_str(", nope>;\n");
        let start = std::time::Instant::now();
        let (src, ix) = index(&[("h.isa", &text)]);
        assert!(
            start.elapsed() < std::time::Duration::from_secs(5),
            "{:?}",
            start.elapsed()
        );
        let t = &src.get(FileId(0)).text;
        let at = t.rfind("f49999").unwrap();
        let o = ix.at(FileId(0), at).unwrap();
        assert_eq!(ix.occurrences_of(o.symbol).count(), 2);
    }
}
