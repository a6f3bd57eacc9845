//! The abstract syntax tree of an ISA description file, as written (nothing resolved).
//! Every node keeps the [`Span`] of the text it was parsed from.

use crate::source::{FileId, Span};

/// A name as written, with its span. Field names may be dotted (`pg.not`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

/// An integer literal (decimal or `0x` hex), with its span.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Int {
    pub value: u128,
    pub span: Span,
}

/// A value token on the right of `=`/`==` in an encoding line: an enum value name
/// (`NoCond`, `PT`, `32`) or a number (`0x0`). Kept as text; the model decides.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValueRef {
    pub text: String,
    pub span: Span,
}

/// One parsed file.
#[derive(Debug, Clone, Default)]
pub struct SpecFile {
    pub file: FileId,
    pub items: Vec<Item>,
}

#[derive(Debug, Clone)]
pub enum Item {
    /// `__DefBitFieldType Name<width>` and its values.
    BitFieldType(EnumDef),
    /// `__DefRegFile Name<width>` (extension): a register file.
    RegFile(RegFileDef),
    /// `__DefImmediate Name<width> signed|unsigned;` (extension).
    Immediate(ImmediateDef),
    /// `__DefConstMem Name<width> bank<b> offset<o> [signed|unsigned]` (extension).
    ConstMem(ConstMemDef),
    /// `__DefOperandWord NAME : RegFile lo..hi;` (extension).
    OperandWord(OperandWordDef),
    /// `__DefRegisters Name` (extension): an enumeration whose values name registers.
    Registers(RegistersDef),
    /// `__DefFlow Name : kind` (extension): control flow and address operands.
    Flow(FlowDef),
    /// `__DefCorrection Name` (extension): operand-info entries that replace the
    /// authors' entries of the same kind in definition `Name`.
    Correction(CorrectionDef),
    /// `__DefGroup`, `__DefOptype`, `__DefOpcode`.
    Def(Definition),
}

#[derive(Debug, Clone)]
pub struct EnumDef {
    pub name: Ident,
    pub width: Int,
    pub values: Vec<EnumValueDef>,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub struct EnumValueDef {
    pub name: Ident,
    pub code: Option<Int>,
}

#[derive(Debug, Clone)]
pub struct RegFileDef {
    pub name: Ident,
    pub width: Int,
    /// ` per-lane` (`true`) or ` per-warp` (`false`) after the width, with its span.
    pub per_lane: Option<(bool, Span)>,
    pub items: Vec<RegFileItem>,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub enum RegFileItem {
    /// `R 0..254;`: registers `R0`..`R254`, encoded as their index.
    Range { prefix: Ident, lo: Int, hi: Int },
    /// `RZ = 255;`: a named constant register (reads a constant, writes are dropped);
    /// `RZ = 255 reads 0;` also says which value it reads.
    Named {
        name: Ident,
        code: Int,
        reads: Option<Int>,
    },
}

#[derive(Debug, Clone)]
pub struct ImmediateDef {
    pub name: Ident,
    pub width: Int,
    pub signed: bool,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub struct ConstMemDef {
    pub name: Ident,
    pub width: Int,
    pub bank_bits: Int,
    pub offset_bits: Int,
    /// The offset is a signed byte offset (`signed`, the default) or an unsigned one
    /// (`unsigned`).
    pub offset_signed: bool,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub struct OperandWordDef {
    pub name: Ident,
    pub reg_file: Ident,
    pub lo: Int,
    pub hi: Int,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub struct RegistersDef {
    pub ty: Ident,
    pub span: Span,
}

/// `__DefFlow NAME : kind` and its item lines.
#[derive(Debug, Clone)]
pub struct FlowDef {
    /// The group, optype or opcode it applies to (and every opcode below it).
    pub def: Ident,
    pub kind: Ident,
    pub items: Vec<FlowItem>,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub enum FlowItem {
    /// `target FIELD;`: the address operand the flow goes to.
    Target(Ident),
    /// `condition F, G;`: fields whose non-default value makes the flow conditional.
    Condition(Vec<Ident>),
    /// `absolute FIELD;`: an address operand that is not pc-relative;
    /// `absolute FIELD when G == V;`: absolute in the instances whose field `G` holds
    /// `V`, relative in the others.
    Absolute(Ident, Option<(Ident, ValueRef)>),
    /// `immediate FIELD;`: a `CvtIShift` operand that is a plain number, no address.
    Immediate(Ident),
}

/// `__DefCorrection NAME` and its entry lines: each replaces the entry of the same kind
/// (the same list, or `Bitwidth`/`AsmFormat` of the same operand) that definition
/// `NAME` itself gives.
#[derive(Debug, Clone)]
pub struct CorrectionDef {
    pub def: Ident,
    pub entries: Vec<InfoEntry>,
    pub span: Span,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DefKind {
    Group,
    Optype,
    Opcode,
}

impl DefKind {
    pub fn keyword(self) -> &'static str {
        match self {
            DefKind::Group => "__DefGroup",
            DefKind::Optype => "__DefOptype",
            DefKind::Opcode => "__DefOpcode",
        }
    }

    pub fn noun(self) -> &'static str {
        match self {
            DefKind::Group => "group",
            DefKind::Optype => "optype",
            DefKind::Opcode => "opcode",
        }
    }
}

/// A group, optype or opcode definition with its sections.
#[derive(Debug, Clone)]
pub struct Definition {
    pub kind: DefKind,
    pub name: Ident,
    pub parents: Vec<Ident>,
    /// The header line.
    pub span: Span,
    pub encoding: Vec<FieldDecl>,
    pub operand_info: Vec<InfoEntry>,
    pub exceptions: Vec<ExceptionDecl>,
    /// Free-text sections in source order (including prose found in `__OperandInfo`).
    pub docs: Vec<DocSection>,
    /// A line of the definition failed to parse (the error is reported), so fields,
    /// entries or parents may be missing. Checks that would only report consequences
    /// of the missing parts are skipped for it and its descendants.
    pub incomplete: bool,
}

/// `field<start, width> Type name;`, `... name = Value;` or `... name == Value;`.
#[derive(Debug, Clone)]
pub struct FieldDecl {
    pub start: Int,
    pub width: Int,
    pub ty: Ident,
    pub name: Ident,
    pub init: FieldInit,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub enum FieldInit {
    /// Must be given (an operand or a modifier without default).
    None,
    /// `= Value`: the default.
    Default(ValueRef),
    /// `== Value`: fixed, identifies the opcode.
    Fixed(ValueRef),
}

/// An entry of `__OperandInfo`.
#[derive(Debug, Clone)]
pub enum InfoEntry {
    InList(Vec<ListItem>, Span),
    OutList(Vec<ListItem>, Span),
    Order(Vec<ListItem>, Span),
    Bitwidth {
        operand: Ident,
        expr: Expr,
        span: Span,
    },
    AsmFormat {
        operand: Ident,
        converter: Ident,
        args: Vec<Expr>,
        span: Span,
    },
}

/// An item of `InList`/`OutList`/`Order`.
#[derive(Debug, Clone)]
pub enum ListItem {
    /// A field name or a fixed word (`UPR`).
    Name(Ident),
    /// `C[vb, ura]`, `UR[urb, uridx]`.
    Composite {
        head: Ident,
        args: Vec<Ident>,
        span: Span,
    },
}

impl ListItem {
    pub fn span(&self) -> Span {
        match self {
            ListItem::Name(i) => i.span,
            ListItem::Composite { span, .. } => *span,
        }
    }
}

/// `EncodingError<Kind, "message"> = condition;`
#[derive(Debug, Clone)]
pub struct ExceptionDecl {
    pub kind: Ident,
    pub message: String,
    pub cond: Expr,
    pub span: Span,
}

/// Expressions of `Bitwidth` and `__Exception` conditions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expr {
    Int(Int),
    Str(String, Span),
    /// A field reference (`dtype`, `ura.neg`) or a bare value name.
    Name(Ident),
    Unary(UnOp, Box<Expr>, Span),
    Binary(BinOp, Box<Expr>, Box<Expr>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UnOp {
    Not,
    Neg,
}

/// The binary operators of expressions: the run-time crate's, which define what each
/// computes and how it is written.
pub use isa_rt::expr::BinOp;

impl Expr {
    pub fn span(&self) -> Span {
        match self {
            Expr::Int(i) => i.span,
            Expr::Str(_, s) => *s,
            Expr::Name(i) => i.span,
            Expr::Unary(_, _, s) => *s,
            Expr::Binary(_, a, b) => a.span().to(b.span()),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DocKind {
    Syntax,
    Description,
    OperandInfo,
    ModifierInfo,
    Semantics,
    Examples,
}

impl DocKind {
    pub fn title(self) -> &'static str {
        match self {
            DocKind::Syntax => "Syntax",
            DocKind::Description => "Description",
            DocKind::OperandInfo => "Operands",
            DocKind::ModifierInfo => "Modifiers",
            DocKind::Semantics => "Semantics",
            DocKind::Examples => "Examples",
        }
    }
}

/// A free-text (Markdown) section, kept verbatim.
#[derive(Debug, Clone)]
pub struct DocSection {
    pub kind: DocKind,
    /// The section's lines, verbatim (CR stripped), without trailing blank lines.
    pub text: String,
    /// The section keyword.
    pub span: Span,
    /// Fenced code blocks inside the section.
    pub code_blocks: Vec<CodeBlock>,
}

#[derive(Debug, Clone)]
pub struct CodeBlock {
    pub lang: String,
    pub lines: Vec<CodeLine>,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub struct CodeLine {
    pub text: String,
    pub span: Span,
}
