//! Stage 2: the validated semantic model.
//!
//! [`resolve`] turns the ASTs of all files into one [`Model`]: types with their codes,
//! definitions with inheritance resolved, and for each opcode its complete field list
//! with every field classified (fixed, operand, modifier, sub-field), its operands in
//! `Order`, In/Out lists, bit-width expressions, assembly converters and exception
//! conditions, all type-checked. The lints (`crate::lint`, a later stage: they use the
//! assembler) add warnings for inconsistencies that do not stop generation. [`interp`] encodes and decodes words by interpreting the model (the
//! slow tier, used by tools and as the oracle for the generated code).

pub mod access;
mod annotate;
mod correct;
pub mod expr;
pub mod flow;
pub mod interp;
pub mod resolve;

use crate::source::Span;
use crate::syntax::ast::DocSection;
pub use access::{Access, RegOperand, RegSource, RegUse};
pub use expr::{CExpr, ExprType};
pub use flow::{Address, Flow, FlowKind, TargetError};

/// Index into [`Model::types`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TypeId(pub usize);

/// Index into [`Model::defs`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DefId(pub usize);

/// Index into [`Model::words`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct WordId(pub usize);

/// The whole resolved specification.
#[derive(Debug, Clone)]
pub struct Model {
    pub types: Vec<Type>,
    pub words: Vec<OperandWord>,
    /// Groups, optypes and opcodes, in source order.
    pub defs: Vec<Def>,
    /// Resolved opcodes, in source order.
    pub opcodes: Vec<Opcode>,
    /// Enumerations whose values name registers (`__DefRegisters`).
    pub reg_enums: Vec<TypeId>,
}

#[derive(Debug, Clone)]
pub struct Type {
    pub name: String,
    pub width: u32,
    pub kind: TypeKind,
    pub span: Span,
    /// An enumeration's values by name and by code, built on first look-up: a scan
    /// per look-up made a spec with a long enumeration (every optype code) quadratic.
    pub(crate) index: std::sync::OnceLock<ValueIndex>,
}

/// Look-ups of an enumeration's values (the checker refuses a name or a code listed
/// twice, so both are one-to-one; the first is kept if not).
#[derive(Debug, Clone, Default)]
pub(crate) struct ValueIndex {
    /// How many values there were when it was built: a model changed since (its
    /// fields are public) is scanned instead.
    len: usize,
    by_name: std::collections::HashMap<String, usize>,
    by_code: std::collections::HashMap<u128, usize>,
}

/// Enumerations this short are scanned: cheaper than hashing.
const SCANNED: usize = 16;

#[derive(Debug, Clone)]
pub enum TypeKind {
    /// `__DefBitFieldType`: named codes; unlisted codes are undefined.
    Enum(Vec<EnumValue>),
    /// `__DefRegFile`: numbered registers plus named constant registers.
    RegFile(RegFile),
    /// `__DefImmediate`.
    Immediate { signed: bool },
    /// `__DefConstMem`: `c[bank][offset]`; offset in the low bits, bank above it. The
    /// offset is a two's complement byte offset when `offset_signed` (the default),
    /// else an unsigned one.
    ConstMem {
        bank_bits: u32,
        offset_bits: u32,
        offset_signed: bool,
    },
}

#[derive(Debug, Clone)]
pub struct EnumValue {
    pub name: String,
    pub code: u128,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub struct RegFile {
    /// Printed prefix of numbered registers (`R` for `R0`..`R254`).
    pub prefix: String,
    /// Numbered registers `lo..=hi`, encoded as their number.
    pub lo: u128,
    pub hi: u128,
    /// Named constant registers (`RZ = 255`): reads give a constant, writes are dropped.
    pub named: Vec<(String, u128)>,
    /// `(code, value)`: the value a named constant register reads, where the spec says
    /// (`RZ = 255 reads 0;`).
    pub reads: Vec<(u128, u128)>,
    /// Each lane has its own copy (`per-lane`); otherwise the warp shares one
    /// (`per-warp`, and the reading when the spec says neither: a register allocator
    /// must then keep values apart across divergent code, the safe side).
    pub per_lane: bool,
}

impl RegFile {
    /// Whether `code` names a constant register that reads 0 (`RZ`): an address
    /// computed from it is known without running the program.
    pub fn reads_zero(&self, code: u128) -> bool {
        self.reads.contains(&(code, 0))
    }

    pub fn is_valid(&self, code: u128) -> bool {
        (self.lo..=self.hi).contains(&code) || self.named.iter().any(|(_, c)| *c == code)
    }

    /// The code of a register written as text (`R5`, `RZ`).
    pub fn code_of(&self, text: &str) -> Option<u128> {
        if let Some((_, c)) = self.named.iter().find(|(n, _)| n == text) {
            return Some(*c);
        }
        let n = text.strip_prefix(self.prefix.as_str())?;
        if n.is_empty()
            || !n.bytes().all(|b| b.is_ascii_digit())
            || (n.len() > 1 && n.starts_with('0'))
        {
            return None;
        }
        let n: u128 = n.parse().ok()?;
        (self.lo..=self.hi).contains(&n).then_some(n)
    }

    pub fn name_of(&self, code: u128) -> Option<String> {
        if let Some((n, _)) = self.named.iter().find(|(_, c)| *c == code) {
            return Some(n.clone());
        }
        (self.lo..=self.hi)
            .contains(&code)
            .then(|| format!("{}{}", self.prefix, code))
    }
}

impl Type {
    pub fn new(name: String, width: u32, kind: TypeKind, span: Span) -> Type {
        Type {
            name,
            width,
            kind,
            span,
            index: std::sync::OnceLock::new(),
        }
    }

    /// The value index of a long enumeration (`None` for a short one or another kind).
    fn value_index(&self) -> Option<(&[EnumValue], &ValueIndex)> {
        let values = self.enum_values()?;
        if values.len() <= SCANNED {
            return None;
        }
        let index = self.index.get_or_init(|| {
            let mut ix = ValueIndex {
                len: values.len(),
                ..ValueIndex::default()
            };
            for (k, v) in values.iter().enumerate() {
                ix.by_name.entry(v.name.clone()).or_insert(k);
                ix.by_code.entry(v.code).or_insert(k);
            }
            ix
        });
        (index.len == values.len()).then_some((values, index))
    }

    pub fn enum_values(&self) -> Option<&[EnumValue]> {
        match &self.kind {
            TypeKind::Enum(v) => Some(v),
            _ => None,
        }
    }

    pub fn reg_file(&self) -> Option<&RegFile> {
        match &self.kind {
            TypeKind::RegFile(r) => Some(r),
            _ => None,
        }
    }

    /// Whether `code` (the raw bits of a field of this type) is a defined value.
    pub fn is_valid_code(&self, code: u128) -> bool {
        if self.width < 128 && code >> self.width != 0 {
            return false;
        }
        match &self.kind {
            TypeKind::Enum(vs) => match self.value_index() {
                Some((_, ix)) => ix.by_code.contains_key(&code),
                None => vs.iter().any(|v| v.code == code),
            },
            TypeKind::RegFile(r) => r.is_valid(code),
            TypeKind::Immediate { .. } | TypeKind::ConstMem { .. } => true,
        }
    }

    pub fn enum_code(&self, name: &str) -> Option<u128> {
        if let Some((values, ix)) = self.value_index() {
            return ix
                .by_name
                .get(name)
                .map(|&k| &values[k])
                .filter(|v| v.name == name)
                .map(|v| v.code);
        }
        self.enum_values()?
            .iter()
            .find(|v| v.name == name)
            .map(|v| v.code)
    }

    pub fn enum_name(&self, code: u128) -> Option<&str> {
        if let Some((values, ix)) = self.value_index() {
            return ix
                .by_code
                .get(&code)
                .map(|&k| &values[k])
                .filter(|v| v.code == code)
                .map(|v| v.name.as_str());
        }
        self.enum_values()?
            .iter()
            .find(|v| v.code == code)
            .map(|v| v.name.as_str())
    }

    /// The codes of a symbol sub-field of this type (`.not` printed `!`, `.neg` `-`,
    /// `.bitnot` `~`): without the symbol, and with it. `False`/`True` when the type has
    /// those values; else the lower and the higher of exactly two values; 0/1 for an
    /// immediate. `None` when the type cannot say (the checker reports it).
    pub fn symbol_codes(&self) -> Option<(u128, u128)> {
        match &self.kind {
            TypeKind::Enum(vs) => match (self.enum_code("False"), self.enum_code("True")) {
                (Some(f), Some(t)) => Some((f, t)),
                _ => match vs.as_slice() {
                    [a, b] => Some((a.code.min(b.code), a.code.max(b.code))),
                    _ => None,
                },
            },
            TypeKind::Immediate { .. } => Some((0, 1)),
            TypeKind::RegFile(_) | TypeKind::ConstMem { .. } => None,
        }
    }

    /// The smallest and largest offset of a constant-memory type: `-2^(o-1)..=2^(o-1)-1`
    /// for a signed `o`-bit offset, `0..=2^o-1` for an unsigned one.
    pub fn cmem_offset_range(&self) -> Option<(i128, i128)> {
        let TypeKind::ConstMem {
            offset_bits,
            offset_signed,
            ..
        } = self.kind
        else {
            return None;
        };
        // A type is at most 64 bits wide, so the offset is at most 63.
        let o = offset_bits.clamp(1, 127);
        Some(if offset_signed {
            (-(1i128 << (o - 1)), (1i128 << (o - 1)) - 1)
        } else {
            (0, (1i128 << o) - 1)
        })
    }

    /// The bank and offset a constant-memory code holds (the offset sign-extended when
    /// it is signed).
    pub fn cmem_parts(&self, code: u128) -> Option<(u128, i128)> {
        let TypeKind::ConstMem {
            offset_bits,
            offset_signed,
            ..
        } = self.kind
        else {
            return None;
        };
        let raw = code & mask(0, offset_bits);
        let offset = if offset_signed && offset_bits < 128 && raw >> (offset_bits - 1) & 1 == 1 {
            raw as i128 - (1i128 << offset_bits)
        } else {
            raw as i128
        };
        Some((code >> offset_bits, offset))
    }

    /// The code of `c[bank][offset]` for a constant-memory type, or what does not fit.
    pub fn cmem_code(&self, bank: u128, offset: i128) -> Result<u128, CMemMisfit> {
        let (
            TypeKind::ConstMem {
                bank_bits,
                offset_bits,
                ..
            },
            Some((lo, hi)),
        ) = (&self.kind, self.cmem_offset_range())
        else {
            return Err(CMemMisfit::NotConstMem);
        };
        if bank >> bank_bits != 0 {
            return Err(CMemMisfit::Bank(*bank_bits));
        }
        if offset < lo || offset > hi {
            return Err(CMemMisfit::Offset(lo, hi));
        }
        Ok((bank << offset_bits) | (offset as u128 & mask(0, *offset_bits)))
    }

    pub fn kind_noun(&self) -> &'static str {
        match self.kind {
            TypeKind::Enum(_) => "bit-field type",
            TypeKind::RegFile(_) => "register file",
            TypeKind::Immediate { .. } => "immediate",
            TypeKind::ConstMem { .. } => "constant-memory operand",
        }
    }
}

/// Why `c[bank][offset]` has no code in a constant-memory type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CMemMisfit {
    /// The bank does not fit in this many bits.
    Bank(u32),
    /// The offset is outside `min..=max`.
    Offset(i128, i128),
    /// The type is no constant-memory type.
    NotConstMem,
}

/// `__DefOperandWord UPR : UPred 0..6`: a fixed word in `Order` that encodes nothing
/// and stands for a range of registers (all uniform predicates for `UPR`).
#[derive(Debug, Clone)]
pub struct OperandWord {
    pub name: String,
    pub reg_file: TypeId,
    pub lo: u128,
    pub hi: u128,
    pub span: Span,
}

pub use crate::syntax::ast::DefKind;

/// A group, optype or opcode definition as declared (before inheritance).
#[derive(Debug, Clone)]
pub struct Def {
    pub kind: DefKind,
    pub name: String,
    pub parents: Vec<DefId>,
    pub span: Span,
    pub docs: Vec<DocSection>,
}

/// The role a field plays in its opcode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// `== Value`: identifies the opcode; the code it must hold.
    Fixed(u128),
    /// Appears in `Order` (directly or inside a composite operand).
    Operand,
    /// Neither fixed, nor an operand, nor a sub-field: printed as `.VALUE`.
    Modifier,
    /// A dotted field (`pg.not`) attached to the field at this index.
    SubField(usize),
}

/// One field of a resolved opcode.
#[derive(Debug, Clone)]
pub struct Field {
    /// As written, dotted for sub-fields (`pg.not`).
    pub name: String,
    pub start: u32,
    pub width: u32,
    pub ty: TypeId,
    pub role: Role,
    /// The code of the `= Value` default, if any.
    pub default: Option<u128>,
    /// The definition that declared it (for inherited fields, the ancestor).
    pub origin: DefId,
    pub span: Span,
}

impl Field {
    pub fn mask(&self) -> u128 {
        mask(self.start, self.width)
    }

    pub fn is_fixed(&self) -> bool {
        matches!(self.role, Role::Fixed(_))
    }

    /// The sub-field's own part of the name (`not` of `pg.not`).
    pub fn sub_name(&self) -> Option<&str> {
        self.name.split_once('.').map(|(_, s)| s)
    }
}

/// Bits `start..start+width` set.
pub fn mask(start: u32, width: u32) -> u128 {
    if width == 0 {
        return 0;
    }
    let m = if width >= 128 {
        u128::MAX
    } else {
        (1u128 << width) - 1
    };
    m << start
}

impl OperandKind {
    /// The fields the operand is written from: one, the two of a composite, or none.
    pub fn fields(self) -> impl Iterator<Item = usize> {
        let (first, second) = match self {
            OperandKind::Field(f) => (Some(f), None),
            OperandKind::CMemIndexed { mem, reg } => (Some(mem), Some(reg)),
            OperandKind::RegIndexed { reg, offset, .. } => (Some(reg), Some(offset)),
            OperandKind::Word(_) => (None, None),
        };
        first.into_iter().chain(second)
    }

    /// The field whose sub-fields the operand's text shows (`-R1`, `!P0`, `R1.B1`):
    /// the single field, or the constant memory of `C[mem, reg]`. A composite's other
    /// fields, and `UR[reg, offset]`'s, are written bare.
    pub fn decorated(self) -> Option<usize> {
        match self {
            OperandKind::Field(f) => Some(f),
            OperandKind::CMemIndexed { mem, .. } => Some(mem),
            OperandKind::RegIndexed { .. } | OperandKind::Word(_) => None,
        }
    }
}

/// An operand of an opcode: an item of `Order`.
#[derive(Debug, Clone)]
pub struct Operand {
    pub kind: OperandKind,
    pub span: Span,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OperandKind {
    /// A single field.
    Field(usize),
    /// `C[mem, reg]`: constant memory addressed by a register plus the offset of `mem`.
    CMemIndexed { mem: usize, reg: usize },
    /// `UR[reg, offset]`: the register of `file` whose number is `reg + offset`.
    RegIndexed {
        file: TypeId,
        reg: usize,
        offset: usize,
    },
    /// A fixed word such as `UPR`: printed, encodes nothing.
    Word(WordId),
}

/// An item of `InList`/`OutList`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListRef {
    Field(usize),
    Word(WordId),
    /// The register a register-indexed operand names (`UR[reg, offset]`): the one
    /// numbered `reg`'s value plus `offset`, any of `file` as far as the static facts go.
    Indexed {
        file: TypeId,
        reg: usize,
        offset: usize,
    },
}

/// `AsmFormat<field> = Converter(args)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AsmFormat {
    /// `CvtIShift(field, n)`: printed value is `field << n` (branch offsets).
    IShift { field: usize, shift: u32 },
    /// `CvtINegX(neg, ext)`: the `neg` sub-field prints `-` normally and `~` when the
    /// `ext` modifier has the value `X`.
    INegX { neg: usize, ext: usize },
}

impl AsmFormat {
    pub fn target(&self) -> usize {
        match *self {
            AsmFormat::IShift { field, .. } => field,
            AsmFormat::INegX { neg, .. } => neg,
        }
    }
}

/// `Bitwidth<field> = expr`.
#[derive(Debug, Clone)]
pub struct Bitwidth {
    pub field: usize,
    pub expr: CExpr,
    pub span: Span,
}

/// `EncodingError<Kind, "message"> = condition`.
#[derive(Debug, Clone)]
pub struct Exception {
    pub kind: String,
    pub message: String,
    pub cond: CExpr,
    pub span: Span,
}

/// A fully resolved opcode.
#[derive(Debug, Clone)]
pub struct Opcode {
    pub name: String,
    pub def: DefId,
    /// The optype it belongs to (its nearest `__DefOptype` ancestor).
    pub optype: Option<DefId>,
    /// Every ancestor, nearest first, each once.
    pub ancestors: Vec<DefId>,
    /// All fields, inherited ones first (root-most ancestor first), each once.
    pub fields: Vec<Field>,
    pub order: Vec<Operand>,
    pub in_list: Vec<ListRef>,
    pub out_list: Vec<ListRef>,
    pub bitwidths: Vec<Bitwidth>,
    pub asm_formats: Vec<AsmFormat>,
    pub exceptions: Vec<Exception>,
    /// Union of the fixed fields' bits, and the value they must hold.
    pub fixed_mask: u128,
    pub fixed_bits: u128,
    /// Union of all fields' bits; any other bit of an instruction must be zero.
    pub covered: u128,
    /// Control flow and address operands (`__DefFlow`; falls through without one).
    pub flow: Flow,
    pub span: Span,
}

impl Opcode {
    pub fn field(&self, name: &str) -> Option<usize> {
        self.fields.iter().position(|f| f.name == name)
    }

    /// Fields an instruction carries (everything but the fixed ones).
    pub fn value_fields(&self) -> impl Iterator<Item = (usize, &Field)> {
        self.fields
            .iter()
            .enumerate()
            .filter(|(_, f)| !f.is_fixed())
    }

    /// The guard predicate: the first `Order` item, when it is a register field with a
    /// default (the always-true register it is left out at). A first register operand
    /// without a default is an ordinary operand: an ISA without predication writes its
    /// destination first.
    pub fn guard(&self, model: &Model) -> Option<usize> {
        match self.order.first()?.kind {
            OperandKind::Field(f)
                if model.types[self.fields[f].ty.0].reg_file().is_some()
                    && self.fields[f].default.is_some() =>
            {
                Some(f)
            }
            _ => None,
        }
    }

    /// The operands assembly writes after the mnemonic: `Order` without the guard.
    pub fn asm_operands<'a>(&'a self, model: &Model) -> impl Iterator<Item = &'a Operand> {
        let guard = self.guard(model);
        self.order
            .iter()
            .filter(move |o| !matches!(o.kind, OperandKind::Field(f) if Some(f) == guard))
    }

    pub fn bitwidth(&self, field: usize) -> Option<&Bitwidth> {
        self.bitwidths.iter().find(|b| b.field == field)
    }

    /// Fields that are operands, in `Order` (composite operands contribute each field).
    pub fn operand_fields(&self) -> Vec<usize> {
        self.order.iter().flat_map(|op| op.kind.fields()).collect()
    }

    /// Sub-fields attached to `field`.
    pub fn sub_fields(&self, field: usize) -> impl Iterator<Item = usize> + '_ {
        self.fields
            .iter()
            .enumerate()
            .filter(move |(_, f)| f.role == Role::SubField(field))
            .map(|(i, _)| i)
    }
}

impl Model {
    pub fn type_by_name(&self, name: &str) -> Option<TypeId> {
        self.types.iter().position(|t| t.name == name).map(TypeId)
    }

    pub fn ty(&self, id: TypeId) -> &Type {
        &self.types[id.0]
    }

    /// Whether values of the type name registers: a register file, or an enumeration
    /// declared with `__DefRegisters` (`BReg`).
    pub fn is_register_type(&self, id: TypeId) -> bool {
        self.ty(id).reg_file().is_some() || self.reg_enums.contains(&id)
    }

    pub fn def(&self, id: DefId) -> &Def {
        &self.defs[id.0]
    }

    pub fn opcode_by_name(&self, name: &str) -> Option<usize> {
        self.opcodes.iter().position(|o| o.name == name)
    }

    /// Optypes in source order.
    pub fn optypes(&self) -> impl Iterator<Item = (DefId, &Def)> {
        self.defs
            .iter()
            .enumerate()
            .filter(|(_, d)| d.kind == DefKind::Optype)
            .map(|(i, d)| (DefId(i), d))
    }

    /// Counts for the one-line summary of `isa check`.
    pub fn summary(&self) -> Summary {
        Summary {
            types: self.types.len(),
            groups: self
                .defs
                .iter()
                .filter(|d| d.kind == DefKind::Group)
                .count(),
            optypes: self.optypes().count(),
            opcodes: self.opcodes.len(),
        }
    }

    /// The doc sections of an opcode: its own, then its optype's (each kind once,
    /// nearest definition first).
    pub fn opcode_docs(&self, op: &Opcode) -> Vec<&DocSection> {
        let mut out: Vec<&DocSection> = self.def(op.def).docs.iter().collect();
        if let Some(ot) = op.optype {
            for d in &self.def(ot).docs {
                if !out.iter().any(|o| o.kind == d.kind) {
                    out.push(d);
                }
            }
        }
        out.sort_by_key(|d| d.kind);
        out
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Summary {
    pub types: usize,
    pub groups: usize,
    pub optypes: usize,
    pub opcodes: usize,
}
