//! The table schema: what the engines read about a spec, as plain data.
//!
//! One schema serves both ways a spec reaches the engines: the build script of a
//! generated crate emits a [`Tables`] as a `static` (every slice `'static`), and a tool
//! that reads a spec at run time builds the same rows into a [`TableBuf`] (feature
//! `alloc`) and borrows a [`Tables`] from it. Rows refer to each other by index, never
//! by reference, so that both are the same types; text lives in one string ([`Str`]
//! is a range of it).
//!
//! Field numbers ([`FieldRow`] indices) count within an opcode's own run of fields,
//! in the spec's field order.

/// A field's place in the word: the bits of `mask` from bit `start` (built by
/// [`At::new`] from the field's start and width).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct At {
    /// The lowest bit (a field that starts at or past 128 reads as 0).
    pub start: u8,
    /// The field's bits, from bit 0: its width is the number of ones.
    pub mask: u128,
}

impl At {
    /// `width` bits from bit `start` (a width of 128 is the whole word).
    pub const fn new(start: u8, width: u8) -> At {
        At {
            start,
            mask: match 1u128.checked_shl(width as u32) {
                Some(bit) => bit - 1,
                None => u128::MAX,
            },
        }
    }

    /// The field's code in `word` (0 for a field that starts past the word).
    #[inline]
    pub const fn get(self, word: u128) -> u128 {
        match word.checked_shr(self.start as u32) {
            Some(v) => v & self.mask,
            None => 0,
        }
    }

    /// The same place, starting below bit 128: a field past the word becomes one
    /// with no bits at bit 0.
    pub const fn inside(self) -> At {
        if self.start >= 128 {
            At { start: 0, mask: 0 }
        } else {
            self
        }
    }

    /// [`At::get`] without its test of the start, for a place made by [`At::inside`]
    /// (the printer's plans): a start past the word reads from `start % 128`.
    #[inline(always)]
    pub const fn read(self, word: u128) -> u128 {
        (word >> (self.start & 127)) & self.mask
    }

    /// Sets the field in `word` to the low bits of `code` (the assembler's matcher),
    /// the other bits unchanged; like [`At::read`], for a place that starts below bit
    /// 128 (one past it writes at `start % 128`).
    #[inline]
    pub fn write(self, word: &mut u128, code: u128) {
        let start = self.start & 127;
        // Two shifts of a `u128` by a variable amount, not three (a dozen
        // instructions each): the bits where the word and the code differ, flipped.
        let bits = self.mask << start;
        *word ^= (*word ^ (code << start)) & bits;
    }
}

/// How many bytes of padding follow the last text of [`Tables::text`]: the printer
/// copies texts in blocks of this size, so a block that starts inside the text must
/// be readable in full. Text without its padding prints as an error.
pub const PAD: usize = 16;

/// A range of [`Tables::text`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Str {
    /// The first byte.
    pub at: u32,
    /// Its length in bytes.
    pub len: u32,
}

/// A name of a dense list ([`Tables::names`]): its text, and the first [`PAD`] bytes of
/// it inline (zero past its end), so that the printer copies a name of up to [`PAD`]
/// bytes (almost every name) in one block, without reaching into [`Tables::text`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Name {
    /// The text's first [`PAD`] bytes, then zeros.
    pub head: [u8; PAD],
    /// The whole text (empty: no name).
    pub str: Str,
}

impl Name {
    /// The name whose text is `str` and whose first bytes are `head` (at most [`PAD`]
    /// of them are kept).
    pub const fn new(head: &[u8], str: Str) -> Name {
        let mut out = [0; PAD];
        let mut k = 0;
        while k < head.len() && k < PAD {
            out[k] = head[k];
            k += 1;
        }
        Name { head: out, str }
    }

    /// The name whose text is `s`, a range of `text` (the head holds the bytes of the
    /// range that are in `text`).
    pub fn of(text: &str, s: Str) -> Name {
        let bytes = text.as_bytes().get(s.at as usize..).unwrap_or(&[]);
        Name::new(&bytes[..(s.len as usize).min(bytes.len())], s)
    }
}

/// A run of rows of one of the tables (which one, the field holding it says).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Run {
    /// The first row.
    pub at: u32,
    /// How many rows.
    pub len: u32,
}

impl Run {
    /// The rows of `table` in this run (empty when the run is out of its bounds).
    #[inline]
    pub fn of<T>(self, table: &[T]) -> &[T] {
        let (at, len) = (self.at as usize, self.len as usize);
        table.get(at..at + len).unwrap_or(&[])
    }
}

/// Every table of one spec.
#[derive(Clone, Copy, Debug)]
pub struct Tables<'t> {
    /// All text ([`Str`]s are ranges of it), followed by [`PAD`] bytes that no [`Str`]
    /// covers.
    pub text: &'t str,
    /// One row per opcode, in the spec's order.
    pub opcodes: &'t [OpcodeRow],
    /// The fields of every opcode (each opcode a [`Run`]).
    pub fields: &'t [FieldRow],
    /// One row per type of the spec.
    pub types: &'t [TypeRow],
    /// Dense name lists of types, indexed by code (an empty name: none).
    pub names: &'t [Name],
    /// Sparse name lists of types: `(code, name)`, sorted by code.
    pub named: &'t [(u128, Str)],
    /// The operands of every opcode, in `Order` (the guard left out).
    pub operands: &'t [OperandRow],
    /// The sub-fields of operands.
    pub subs: &'t [SubRow],
    /// Lists of small numbers: modifier fields, the operands an operand may be read as.
    pub indices: &'t [u16],
    /// Expressions, in postfix order (see [`crate::expr`]).
    pub exprs: &'t [crate::expr::Op],
    /// How each opcode prints, a run of [`Tables::pieces`] by opcode: the rows above
    /// compiled by [`crate::print::plan`] (an opcode without one prints as an error).
    pub plans: &'t [Run],
    /// The pieces of every opcode's plan.
    pub pieces: &'t [Piece],
}

impl<'t> Tables<'t> {
    /// The text of `s` (empty when out of bounds).
    #[inline]
    pub fn str(&self, s: Str) -> &'t str {
        let (at, len) = (s.at as usize, s.len as usize);
        self.text.get(at..at + len).unwrap_or("")
    }

    /// The name of `code` in type `ty` among its sparse names ([`TypeRow::named`]).
    pub fn sparse_name(&self, ty: u32, code: u128) -> Option<Str> {
        let named = self.types.get(ty as usize)?.named.of(self.named);
        let i = named.binary_search_by_key(&code, |&(c, _)| c).ok()?;
        Some(named[i].1)
    }

    /// The name of `code` in type `ty`, when the type names it.
    pub fn name_of(&self, ty: u32, code: u128) -> Option<&'t str> {
        let t = self.types.get(ty as usize)?;
        match usize::try_from(code)
            .ok()
            .and_then(|c| t.dense.of(self.names).get(c))
        {
            Some(n) => (n.str.len > 0).then(|| self.str(n.str)),
            None => self.sparse_name(ty, code).map(|s| self.str(s)),
        }
    }
}

/// The value named `name` in `sorted`, `(name, value)` pairs sorted by name: how a
/// generated `FromStr` finds a value (a binary search, where a `match` on strings
/// would compile to code that grows with every name and slows the build).
pub fn by_name<T: Copy>(sorted: &[(&str, T)], name: &str) -> Option<T> {
    let i = sorted.binary_search_by(|&(n, _)| n.cmp(name)).ok()?;
    Some(sorted[i].1)
}

/// How the names of a type read as codes: its named values, and for a register file
/// its numbered registers. The one reader of a type's names in a generated crate: a
/// type's `FromStr` and the assembler's matcher (`asm`) both call [`Names::code`]
/// (modifiers the matcher reads among its opcode's values, and mnemonics through the
/// generated dispatch).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Names<'t> {
    /// The named values, `(name, code)` sorted by name (see [`by_name`]).
    pub named: &'t [(&'t str, u64)],
    /// A register file's numbered registers: the prefix, the first and last number.
    pub numbered: Option<(&'t str, u64, u64)>,
}

impl Names<'_> {
    /// The code `name` stands for: a named value's, else a numbered register's.
    #[inline]
    pub fn code(&self, name: &str) -> Option<u64> {
        // A register file names a few registers (`RZ`, `PT`): a byte loop over them
        // is cheaper than the search's calls to `memcmp` (a quarter of a line's
        // reading in the assembler).
        let named = if self.named.len() <= SHORT_LIST {
            self.named
                .iter()
                .find(|(n, _)| same(n, name))
                .map(|&(_, c)| c)
        } else {
            by_name(self.named, name)
        };
        if named.is_some() {
            return named;
        }
        let (prefix, lo, hi) = self.numbered?;
        register_number(name, prefix).filter(|n| (lo..=hi).contains(n))
    }
}

/// The longest list of names [`Names::code`] reads in turn rather than by search.
const SHORT_LIST: usize = 8;

/// `a == b`, in a loop the compiler keeps inline (names are a few bytes).
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).all(|(x, y)| x == y)
}

/// A type of a spec whose values have names (a register file, an enumeration). A
/// generated crate implements it for each such type; its `FromStr` and its assembler
/// read the names through it. (A trait's constant, so that no name a spec gives a
/// register or a value can collide with it.)
pub trait Named {
    /// How its names read as codes.
    const NAMES: Names<'static>;
}

/// The number `n` of a register written `{prefix}{n}`: decimal digits without a
/// leading zero (`R0`, `R12`, not `R012`, `R+1` or `R`), at most `u64::MAX`.
pub fn register_number(name: &str, prefix: &str) -> Option<u64> {
    let (name, prefix) = (name.as_bytes(), prefix.as_bytes());
    // Index loops: the slice helpers (`strip_prefix`, `split_at`, `zip`) cost more
    // than the two or three bytes they read.
    if name.len() <= prefix.len() {
        return None;
    }
    let mut i = 0;
    while i < prefix.len() {
        if name[i] != prefix[i] {
            return None;
        }
        i += 1;
    }
    if name[i] == b'0' && name.len() > i + 1 {
        return None;
    }
    let mut n: u64 = 0;
    while i < name.len() {
        let d = name[i].wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        n = n.checked_mul(10)?.checked_add(u64::from(d))?;
        i += 1;
    }
    Some(n)
}

/// One opcode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpcodeRow {
    /// How assembly names it (`UIMAD.WIDE`).
    pub mnemonic: Str,
    /// Its fields, rows of [`Tables::fields`].
    pub fields: Run,
    /// The guard predicate, when it has one.
    pub guard: Option<Guard>,
    /// Its modifier fields in printing order, a run of [`Tables::indices`].
    pub mods: Run,
    /// Its operands, rows of [`Tables::operands`].
    pub operands: Run,
    /// Whether any operand may be left out (a field operand with a default).
    pub optional: bool,
}

/// A guard predicate (`@P0`, `@!P0`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Guard {
    /// The predicate's field.
    pub field: u16,
    /// Its `.not` sub-field and the code that writes `!`, when it can be negated.
    pub not: Option<(u16, u128)>,
}

/// A field of an opcode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FieldRow {
    /// Where it is.
    pub at: At,
    /// Its type, a row of [`Tables::types`].
    pub ty: u32,
    /// Its default code, when it has one (an operand at its default may be left out).
    pub default: Option<u128>,
    /// Its type's dense names ([`TypeRow::dense`]), here too so that printing a name
    /// is one lookup (the printer reads them here, and the type's sparse names).
    pub names: Run,
}

/// What a type is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TypeKind {
    /// Registers `prefix lo..=hi` by number, and named ones (the type's names).
    Reg {
        /// `R` of `R0`.
        prefix: Str,
        /// The first numbered register.
        lo: u128,
        /// The last numbered register.
        hi: u128,
    },
    /// Named values.
    Enum,
    /// A number of `width` bits.
    Imm {
        /// Two's complement.
        signed: bool,
        /// Its width in bits.
        width: u8,
    },
    /// A constant-memory reference `c[bank][offset]`: the offset in the low bits.
    CMem {
        /// The offset's width.
        offset_bits: u8,
        /// The offset is two's complement.
        signed: bool,
    },
}

/// A type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TypeRow {
    /// What it is.
    pub kind: TypeKind,
    /// Names by code, a run of [`Tables::names`] (for types of up to a few bits).
    pub dense: Run,
    /// Names of other codes, a run of [`Tables::named`].
    pub named: Run,
}

/// What an operand is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OperandKind {
    /// One field.
    Field(u16),
    /// `c[bank][reg+offset]`: a constant-memory field indexed by a register.
    CMemIndexed {
        /// The constant-memory field.
        mem: u16,
        /// The register field.
        reg: u16,
    },
    /// `PREFIX[reg+offset]`.
    RegIndexed {
        /// The register file's prefix (`UR`).
        prefix: Str,
        /// The register field.
        reg: u16,
        /// The offset field.
        offset: u16,
    },
    /// A fixed word (`UPR`).
    Word(Str),
}

/// How many 32-bit registers a register operand spans.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Count {
    /// Always this many.
    Fixed(u32),
    /// Its width in bits is this expression of the fields, a run of [`Tables::exprs`].
    Bits(Run),
    /// By the code of one field: the counts by code, a run of [`Tables::indices`] (a
    /// `Bits` expression that reads one narrow field, evaluated for each of its codes).
    Lookup {
        /// The field.
        field: u16,
        /// Its counts.
        counts: Run,
    },
}

/// How an immediate operand is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Addr {
    /// A number.
    None,
    /// A branch target: `pc + 16 + (value << shift)`.
    Relative(u8),
    /// An absolute address `value << shift`.
    Absolute(u8),
    /// A number `value << shift`.
    Number(u8),
    /// `Absolute` when field `field` holds `code`, else `Relative`.
    Select {
        /// The mode field.
        field: u16,
        /// The code that makes the address absolute.
        code: u128,
        /// The scale.
        shift: u8,
    },
}

/// An operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OperandRow {
    /// What it is.
    pub kind: OperandKind,
    /// Its sub-fields, rows of [`Tables::subs`], in printing order: the prefixes by
    /// [`SubRole::rank`], then the suffixes.
    pub subs: Run,
    /// For a register: how many it spans.
    pub count: Count,
    /// For an immediate: how it is written.
    pub addr: Addr,
    /// How many operands after this one are required.
    pub required_after: u16,
    /// The later operands (positions) this one's text could be read as when it is left
    /// out, a run of [`Tables::indices`]: an optional operand at its default is left
    /// out unless the next printed operand is one of them.
    pub readers: Run,
}

/// How a sub-field is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SubRole {
    /// `!` before the operand.
    Not,
    /// `-` before the operand, `~` when field `ext` holds the code `x` (`CvtINegX`).
    Neg {
        /// `(field, code)` of the `ext` modifier, when there is one.
        ext: Option<(u16, u128)>,
    },
    /// `~` before the operand.
    BitNot,
    /// `.VALUE` after the operand, left out at its default.
    Suffix,
}

impl SubRole {
    /// Where the sub-field prints: prefixes `!` (0), then `-`/`~` (1), then `~` (2),
    /// then suffixes (3); the sub-fields of an operand are in this order in the tables.
    pub fn rank(self) -> u8 {
        match self {
            SubRole::Not => 0,
            SubRole::Neg { .. } => 1,
            SubRole::BitNot => 2,
            SubRole::Suffix => 3,
        }
    }
}

/// A sub-field of an operand (`ra.neg`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SubRow {
    /// The field.
    pub field: u16,
    /// How it is written.
    pub role: SubRole,
    /// The code that writes the symbol (prefixes).
    pub set: u128,
}

/// One step of printing an opcode: a piece of its line, with what printing it reads
/// carried inline (a field's place, its default, its names) so that the common pieces
/// read one row. Built by [`crate::print::plan`] from the other rows; a field's place
/// in a piece always starts below bit 128 (see [`At::read`]).
// An explicit tag: the printer's dispatch reads one byte, where a tag folded into the
// `u128`s' niches took a dozen instructions to decode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Piece {
    /// The guard `@P0 ` / `@!P0 `, left out at its default unless negated.
    Guard {
        /// Its field's place.
        at: At,
        /// Its default code.
        default: Option<u128>,
        /// Its `.not` sub-field's place and the code that writes `!`.
        not: Option<(At, u128)>,
        /// Its field (for names past the dense ones).
        field: u16,
        /// Its type's dense names.
        names: Run,
    },
    /// A text of the tables (the mnemonic).
    Text(Str),
    /// A modifier `.NAME`, left out at its default unless defaults are shown.
    Mod {
        /// Its field's place.
        at: At,
        /// Its default code.
        default: Option<u128>,
        /// Its field (for names past the dense ones).
        field: u16,
        /// Its type's dense names.
        names: Run,
    },
    /// The start of an operand: `' '` before the first, `", "` before the others.
    Sep {
        /// Whether the operand may be left out: its place among the optional operands
        /// counted from the last, or `u16::MAX` when it is required.
        optional: u16,
        /// How many pieces after this one are the operand's (skipped with it).
        len: u16,
    },
    /// A prefix sub-field: `symbol` when its field holds `set`.
    Prefix {
        /// Its field's place.
        at: At,
        /// The code that writes the symbol.
        set: u128,
        /// `!`, `-` or `~`.
        symbol: u8,
    },
    /// A negation with an `ext` modifier (`CvtINegX`): `~` when `ext` holds `x`, else
    /// `-`, when its field holds `set`.
    NegExt {
        /// Its field's place.
        at: At,
        /// The code that writes the symbol.
        set: u128,
        /// The `ext` field's place.
        ext: At,
        /// The code of `ext` that writes `~`.
        x: u128,
    },
    /// A suffix sub-field `.NAME`, left out at its default.
    Suffix {
        /// Its field's place.
        at: At,
        /// Its default code.
        default: Option<u128>,
        /// Its field (for names past the dense ones).
        field: u16,
        /// Its type's dense names.
        names: Run,
    },
    /// An operand that is one field written by name (a register of one, or an enum
    /// value).
    Name {
        /// Its field's place.
        at: At,
        /// Its field (for names past the dense ones).
        field: u16,
        /// Its type's dense names.
        names: Run,
    },
    /// An operand that is one immediate written as a number.
    Number {
        /// Its field's place.
        at: At,
        /// Its width when it is two's complement, else 0.
        signed: u8,
    },
    /// Any other operand (its sub-fields aside), written through its row.
    Operand {
        /// Its position among the opcode's operands.
        operand: u16,
    },
}

/// Owned tables, built at run time from a spec read by a tool; [`TableBuf::tables`]
/// borrows the [`Tables`] the engines read.
#[cfg(feature = "alloc")]
#[derive(Clone, Debug)]
pub struct TableBuf {
    /// See [`Tables::text`]: it ends with its padding, which [`TableBuf::str`] keeps.
    pub text: alloc::string::String,
    /// See [`Tables::opcodes`].
    pub opcodes: alloc::vec::Vec<OpcodeRow>,
    /// See [`Tables::fields`].
    pub fields: alloc::vec::Vec<FieldRow>,
    /// See [`Tables::types`].
    pub types: alloc::vec::Vec<TypeRow>,
    /// See [`Tables::names`].
    pub names: alloc::vec::Vec<Name>,
    /// See [`Tables::named`].
    pub named: alloc::vec::Vec<(u128, Str)>,
    /// See [`Tables::operands`].
    pub operands: alloc::vec::Vec<OperandRow>,
    /// See [`Tables::subs`].
    pub subs: alloc::vec::Vec<SubRow>,
    /// See [`Tables::indices`].
    pub indices: alloc::vec::Vec<u16>,
    /// See [`Tables::exprs`].
    pub exprs: alloc::vec::Vec<crate::expr::Op>,
    /// See [`Tables::plans`]: filled by [`TableBuf::plan`].
    pub plans: alloc::vec::Vec<Run>,
    /// See [`Tables::pieces`].
    pub pieces: alloc::vec::Vec<Piece>,
    /// The texts added so far (each is added once).
    seen: alloc::collections::BTreeMap<alloc::string::String, Str>,
}

#[cfg(feature = "alloc")]
impl Default for TableBuf {
    fn default() -> TableBuf {
        TableBuf {
            text: core::iter::repeat_n(' ', PAD).collect(),
            opcodes: Default::default(),
            fields: Default::default(),
            types: Default::default(),
            names: Default::default(),
            named: Default::default(),
            operands: Default::default(),
            subs: Default::default(),
            indices: Default::default(),
            exprs: Default::default(),
            plans: Default::default(),
            pieces: Default::default(),
            seen: Default::default(),
        }
    }
}

#[cfg(feature = "alloc")]
impl TableBuf {
    /// The tables, borrowed.
    pub fn tables(&self) -> Tables<'_> {
        Tables {
            text: &self.text,
            opcodes: &self.opcodes,
            fields: &self.fields,
            types: &self.types,
            names: &self.names,
            named: &self.named,
            operands: &self.operands,
            subs: &self.subs,
            indices: &self.indices,
            exprs: &self.exprs,
            plans: &self.plans,
            pieces: &self.pieces,
        }
    }

    /// Compiles every opcode's plan from the other rows (see [`crate::print::plan`]):
    /// the last step of building tables, after every opcode's rows.
    pub fn plan(&mut self) {
        let (plans, pieces) = crate::print::plan(&self.tables());
        self.plans = plans;
        self.pieces = pieces;
    }

    /// Adds `s` to the text (once: the same text again gets the same range).
    pub fn str(&mut self, s: &str) -> Str {
        if let Some(&r) = self.seen.get(s) {
            return r;
        }
        // Before the padding, which moves to the end again.
        let at = self.text.len().saturating_sub(PAD);
        self.text.truncate(at);
        let r = Str {
            at: at as u32,
            len: s.len() as u32,
        };
        self.text.push_str(s);
        self.text.extend(core::iter::repeat_n(' ', PAD));
        self.seen.insert(s.into(), r);
        r
    }

    /// Adds `s` to the text as a [`Name`] of a dense list (the empty text: no name).
    pub fn name(&mut self, s: &str) -> Name {
        if s.is_empty() {
            return Name::default();
        }
        let str = self.str(s);
        Name::of(&self.text, str)
    }

    /// Adds `items` to `indices`.
    pub fn indices(&mut self, items: impl IntoIterator<Item = u16>) -> Run {
        let at = self.indices.len();
        self.indices.extend(items);
        run(at, self.indices.len())
    }
}

/// The run `at..end`.
#[cfg(feature = "alloc")]
pub fn run(at: usize, end: usize) -> Run {
    Run {
        at: at as u32,
        len: (end - at) as u32,
    }
}

#[cfg(all(test, feature = "alloc"))]
mod tests {
    use super::*;

    #[test]
    fn table_buf_adds_each_text_once_and_borrows_what_it_holds() {
        let mut t = TableBuf::default();
        let a = t.str("R");
        let b = t.str("UR");
        assert_eq!((a, b), (Str { at: 0, len: 1 }, Str { at: 1, len: 2 }));
        assert_eq!(t.str("UR"), b, "the same text, the same range");
        let first = t.indices([3, 4]);
        let second = t.indices([5]);
        assert_eq!(first, Run { at: 0, len: 2 });
        assert_eq!(second, Run { at: 2, len: 1 });
        let v = t.tables();
        assert_eq!((v.str(a), v.str(b)), ("R", "UR"));
        assert_eq!(first.of(v.indices), &[3, 4]);
        assert_eq!(second.of(v.indices), &[5]);
        assert_eq!(run(4, 9), Run { at: 4, len: 5 });
    }

    #[test]
    fn names_dense_then_sparse() {
        let mut t = TableBuf::default();
        let (r0, rz, p) = (t.name("R0"), t.str("RZ"), t.str("R"));
        assert_eq!(r0.head, *b"R0\0\0\0\0\0\0\0\0\0\0\0\0\0\0");
        assert_eq!(Name::new(b"R0", r0.str), r0, "a generated crate's way");
        let long = t.name("ABCDEFGHIJKLMNOPQRS");
        assert_eq!(&long.head, b"ABCDEFGHIJKLMNOP", "the first 16 bytes");
        assert_eq!(Name::new(b"ABCDEFGHIJKLMNOPQRS", long.str), long);
        let none = t.name("");
        assert_eq!(none, Name::default(), "the empty text: no name");
        t.names.extend([r0, none]);
        t.named.push((255, rz));
        t.types.push(TypeRow {
            kind: TypeKind::Reg {
                prefix: p,
                lo: 0,
                hi: 254,
            },
            dense: Run { at: 0, len: 2 },
            named: Run { at: 0, len: 1 },
        });
        let v = t.tables();
        assert_eq!(v.name_of(0, 0), Some("R0"));
        assert_eq!(v.name_of(0, 1), None, "an empty dense name is none");
        assert_eq!(v.name_of(0, 255), Some("RZ"));
        assert_eq!(v.name_of(0, 7), None);
        assert_eq!(v.name_of(1, 0), None, "no such type");
    }

    #[test]
    fn by_name_finds_each_name_of_a_sorted_table_and_nothing_else() {
        let t = [
            ("A", 1),
            ("B.X", 2),
            ("B_X", 3),
            ("R1", 4),
            ("R10", 5),
            ("RZ", 6),
        ];
        for (n, v) in t {
            assert_eq!(by_name(&t, n), Some(v), "{n}");
        }
        for n in ["", "a", "B", "R", "R0", "R100", "RZZ", "Z"] {
            assert_eq!(by_name(&t, n), None, "{n}");
        }
        assert_eq!(by_name::<u8>(&[], "A"), None);
    }

    #[test]
    fn same_compares_length_and_every_byte() {
        assert!(same("", ""));
        assert!(same("RZ", "RZ"));
        assert!(!same("RZ", "RY"));
        assert!(!same("RZ", "QZ"));
        assert!(!same("RZ", "RZ0"));
        assert!(!same("RZ0", "RZ"));
    }

    #[test]
    fn register_numbers_are_decimal_without_leading_zeros() {
        for (name, n) in [("R0", 0), ("R7", 7), ("R12", 12), ("UR255", 255)] {
            let prefix = if name.starts_with('U') { "UR" } else { "R" };
            assert_eq!(register_number(name, prefix), Some(n), "{name}");
        }
        let max = "R18446744073709551615";
        assert_eq!(register_number(max, "R"), Some(u64::MAX));
        for name in [
            "R",
            "R01",
            "R00",
            "R+1",
            "R-1",
            "R1a",
            "R 1",
            "r1",
            "UR1",
            "R18446744073709551616",
            "R99999999999999999999",
            "R/",
            "R:",
        ] {
            assert_eq!(register_number(name, "R"), None, "{name}");
        }
    }

    #[test]
    fn names_read_named_values_first_then_numbered_registers_in_range() {
        let file = Names {
            named: &[("R5", 200), ("RZ", 255)],
            numbered: Some(("R", 2, 254)),
        };
        assert_eq!(file.code("RZ"), Some(255));
        assert_eq!(file.code("R5"), Some(200), "a name before a number");
        assert_eq!(file.code("R2"), Some(2));
        assert_eq!(file.code("R254"), Some(254));
        for name in ["R1", "R255", "R", "Rz", "P0", ""] {
            assert_eq!(file.code(name), None, "{name}");
        }
        let values = Names {
            named: &[("AND", 0), ("OR", 1), ("XOR", 2)],
            numbered: None,
        };
        assert_eq!(values.code("XOR"), Some(2));
        assert_eq!(values.code("AN"), None);
        assert_eq!(values.code("ANDX"), None);
        assert_eq!(values.code("R1"), None, "no numbered registers");
        // Past a few names, a search: the same answers.
        let many: [(&str, u64); 12] = [
            ("A", 0),
            ("B", 1),
            ("C", 2),
            ("D", 3),
            ("E", 4),
            ("F", 5),
            ("G", 6),
            ("H", 7),
            ("I", 8),
            ("J", 9),
            ("K", 10),
            ("L", 11),
        ];
        for k in [SHORT_LIST, many.len()] {
            let names = Names {
                named: &many[..k],
                numbered: None,
            };
            for (i, &(n, c)) in many.iter().enumerate() {
                assert_eq!(names.code(n), (i < k).then_some(c), "{n} of {k}");
            }
            assert_eq!(names.code("AB"), None);
            assert_eq!(names.code(""), None);
        }
    }

    #[test]
    fn sub_roles_rank_in_printing_order() {
        let ranks = [
            SubRole::Not,
            SubRole::Neg { ext: None },
            SubRole::BitNot,
            SubRole::Suffix,
        ]
        .map(SubRole::rank);
        assert_eq!(ranks, [0, 1, 2, 3]);
    }

    #[test]
    fn a_field_written_changes_its_bits_alone_and_reads_back() {
        let w: u128 = 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210;
        for (start, width) in [(0, 8), (60, 8), (64, 16), (120, 8), (0, 128), (5, 1)] {
            let at = At::new(start, width);
            let mut x = w;
            // More bits than the field holds: only the field's are written.
            at.write(&mut x, u128::MAX - 5);
            assert_eq!(at.read(x), (u128::MAX - 5) & at.mask, "{start}:{width}");
            let outside = !(at.mask << start);
            assert_eq!(
                x & outside,
                w & outside,
                "{start}:{width}: the rest unchanged"
            );
            at.write(&mut x, at.read(w));
            assert_eq!(x, w, "{start}:{width}: written back");
        }
        // A place past the word writes (and reads) at `start % 128`, without a panic.
        let mut x = 0;
        At::new(130, 4).write(&mut x, 0xf);
        assert_eq!(x, 0xf << 2);
    }

    #[test]
    fn fields_read_from_either_half_or_across() {
        let w: u128 = 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210;
        let at = At::new;
        assert_eq!(at(0, 8).get(w), 0x10);
        assert_eq!(at(60, 8).get(w), 0xff);
        assert_eq!(at(64, 16).get(w), 0xcdef);
        assert_eq!(at(0, 64).get(w), 0xfedc_ba98_7654_3210);
        assert_eq!(at(64, 64).get(w), 0x0123_4567_89ab_cdef);
        assert_eq!(at(0, 128).get(w), w);
        assert_eq!(at(120, 8).get(w), 0x01);
        assert_eq!(at(4, 0).get(w), 0);
        assert_eq!(at(200, 8).get(w), 0, "past the word");
        assert_eq!(at(100, 60).get(w), w >> 100);
    }
}
