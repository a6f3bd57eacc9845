//! The code buffer: a sequence of instructions with labels, references to outside
//! symbols (relocations) and virtual registers, the way a compiler backend emits code,
//! for any spec (`I`, a generated crate's `Instruction`; the generated crate names
//! `CodeBuffer<Instruction>` and the other types under its own names). It places
//! instructions, patches address operands through [`SpecInstruction::set_address`]
//! and records what it cannot resolve; its virtual registers ([`VReg`]) get physical
//! ones from [`crate::regalloc`]; [`Code::write_asm_with`] lists placed code.
//!
//! Misuse is a typed error, never a panic: labels and symbols carry their buffer's
//! identity, names are checked when given, the base is checked when set, and `Code`
//! is made only here (its fields are private), so `link` and `rebase` find the
//! instructions its relocations and label uses name.

mod listing;
mod vreg;

use alloc::string::String;
use alloc::vec::Vec;

use crate::backend::{SpecInstruction, TargetError};
pub use crate::info::INSTRUCTION_BYTES;
use vreg::Virtuals;
pub use vreg::{Abi, AllocError, Allocated, Hole, VReg, VRegOf};

/// Identities of buffers: each new buffer takes the next (they repeat after 2^32
/// buffers). Atomic, so buffers made on different threads never share one.
static NEXT_BUFFER: core::sync::atomic::AtomicU32 = core::sync::atomic::AtomicU32::new(0);

fn next_buffer() -> u32 {
    NEXT_BUFFER.fetch_add(1, core::sync::atomic::Ordering::Relaxed)
}

/// A buffer a clone was made from, and how many labels and symbols it had then: those
/// are the clone's too, and only those.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Ancestor {
    id: u32,
    labels: u32,
    symbols: u32,
    vregs: u32,
}

/// Whose labels and symbols a buffer (and its code) takes: its own, and its
/// ancestors' made before the clone, oldest ancestor first.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Identity {
    id: u32,
    ancestors: Vec<Ancestor>,
}

impl Identity {
    fn new() -> Identity {
        Identity {
            id: next_buffer(),
            ancestors: Vec::new(),
        }
    }

    /// Whether item `index` of buffer `buffer` is one of the `count` items this
    /// identity has; `of` reads an ancestor's count of such items.
    fn owns(&self, buffer: u32, index: u32, count: usize, of: fn(&Ancestor) -> u32) -> bool {
        (index as usize) < count
            && (buffer == self.id
                || self
                    .ancestors
                    .iter()
                    .any(|a| a.id == buffer && index < of(a)))
    }

    /// The buffer that made item `index`: the oldest that had it, else this one.
    fn maker(&self, index: u32, of: fn(&Ancestor) -> u32) -> u32 {
        self.ancestors
            .iter()
            .find(|a| index < of(a))
            .map_or(self.id, |a| a.id)
    }

    fn owns_label(&self, l: Label, count: usize) -> bool {
        self.owns(l.buffer, l.index, count, |a| a.labels)
    }

    fn owns_symbol(&self, s: Symbol, count: usize) -> bool {
        self.owns(s.buffer, s.index, count, |a| a.symbols)
    }

    fn label(&self, index: u32) -> Label {
        Label {
            buffer: self.maker(index, |a| a.labels),
            index,
        }
    }

    fn symbol(&self, index: u32) -> Symbol {
        Symbol {
            buffer: self.maker(index, |a| a.symbols),
            index,
        }
    }
}

/// A position in a [`CodeBuffer`], created unbound and bound once. It belongs to the
/// buffer that made it, to its code, and to clones made after it: any other buffer
/// refuses it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Label {
    buffer: u32,
    index: u32,
}

impl Label {
    /// The label's number in its buffer (0, 1, …, in creation order).
    pub const fn index(self) -> usize {
        self.index as usize
    }
}

/// A symbol outside the buffer (another function, a kernel, …), resolved when the
/// code is linked or loaded. Like a [`Label`], it belongs to the buffer that made it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Symbol {
    buffer: u32,
    index: u32,
}

impl Symbol {
    /// The symbol's number in its buffer's [`Code::symbols`].
    pub const fn index(self) -> usize {
        self.index as usize
    }
}

/// Where an address operand points.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// A label of the same buffer (bound before or after).
    Label(Label),
    /// A symbol outside the buffer, plus an addend: becomes a [`Reloc`].
    Symbol(Symbol, i64),
    /// A known address (it stays that address when the code moves).
    Address(u64),
}

impl From<Label> for Target {
    fn from(l: Label) -> Target {
        Target::Label(l)
    }
}

impl From<Symbol> for Target {
    fn from(s: Symbol) -> Target {
        Target::Symbol(s, 0)
    }
}

/// How a relocation computes its value: the kind of the address operand it patches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RelocKind {
    /// `S + A - (P + 16)`, counted in the operand's units: an address relative to the
    /// next instruction (`R_ISA_ADDR_REL` in object files).
    Relative,
    /// `S + A`, counted in the operand's units (`R_ISA_ADDR_ABS`).
    Absolute,
}

impl RelocKind {
    /// The ELF name of this kind (`R_ISA_ADDR_REL`, `R_ISA_ADDR_ABS`); a relocation on
    /// address operand `k > 0` is shown with `#k` after it.
    pub const fn elf_name(self) -> &'static str {
        match self {
            RelocKind::Relative => "R_ISA_ADDR_REL",
            RelocKind::Absolute => "R_ISA_ADDR_ABS",
        }
    }

    /// The ELF relocation type of this kind on the instruction's address operand
    /// `operand`: `1 + 2 * operand` for [`RelocKind::Relative`], one more for
    /// [`RelocKind::Absolute`] (docs/object-format.md).
    pub const fn elf_type(self, operand: u8) -> u32 {
        1 + 2 * operand as u32 + matches!(self, RelocKind::Absolute) as u32
    }

    /// The kind and address operand of an ELF relocation type (0 is `R_ISA_NONE`).
    pub const fn from_elf_type(t: u32) -> Option<(RelocKind, u8)> {
        if t == 0 || t > 1 + 2 * 255 + 1 {
            return None;
        }
        let k = ((t - 1) / 2) as u8;
        let kind = if t.is_multiple_of(2) {
            RelocKind::Absolute
        } else {
            RelocKind::Relative
        };
        Some((kind, k))
    }
}

/// The relocation kind for address operand `k` of `insn` (its mode in this instance:
/// CALL.ABS is absolute, CALL.REL relative).
fn reloc_kind<I: SpecInstruction>(insn: &I, k: usize) -> RelocKind {
    match insn.address_is_absolute(k) {
        Some(true) => RelocKind::Absolute,
        _ => RelocKind::Relative,
    }
}

/// A reference to a symbol outside the buffer, to be resolved at link or load time:
/// address operand `operand` of the instruction at byte `offset` gets `S + addend`.
/// Until then the operand holds code 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Reloc {
    /// Byte offset of the instruction from the start of the code.
    pub offset: u64,
    /// Which address operand of the instruction (index into [`SpecInstruction::addresses`]).
    pub operand: u8,
    /// How the operand's value is computed from the symbol's address.
    pub kind: RelocKind,
    /// The symbol (its name: [`Code::symbol_name`]).
    pub symbol: Symbol,
    /// Added to the symbol's address (`Target::Symbol`'s second field).
    pub addend: i64,
}

/// What went wrong placing code. Labels are named by their name when they have one
/// ([`CodeBuffer::named_label`]), else by their number.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum BufferError<I: SpecInstruction> {
    /// The base address is not a multiple of [`INSTRUCTION_BYTES`].
    MisalignedBase(u64),
    /// The instruction at `at` still names a virtual register: allocate first
    /// ([`CodeBuffer::allocate`]).
    Virtual {
        /// Address of the instruction.
        at: u64,
        /// The virtual register.
        vreg: VRegOf<I>,
    },
    /// A virtual register does not fit where `code!` put it.
    Alloc(AllocError<I>),
    /// The code would run past the end of the 64-bit address space.
    Overflow {
        /// The base address.
        base: u64,
        /// The number of instructions.
        len: usize,
    },
    /// A label of another buffer (a clone's own labels included).
    ForeignLabel(Label),
    /// A symbol of another buffer (a clone's own symbols included).
    ForeignSymbol(Symbol),
    /// A label was bound a second time.
    BoundTwice {
        /// The label.
        label: Label,
        /// Its name, if it has one.
        name: Option<String>,
        /// The address it is bound to.
        at: u64,
    },
    /// A label some instruction refers to was never bound.
    Unbound {
        /// The label.
        label: Label,
        /// Its name, if it has one.
        name: Option<String>,
        /// Address of the (first) instruction referring to it.
        at: u64,
    },
    /// A label or symbol name `isa asm` would not read back: empty, a character
    /// other than ASCII letters, digits, `_`, `.` and `$`, or a leading digit.
    InvalidName(String),
    /// A label or symbol name the buffer already gives to a label (or, for a label,
    /// to a symbol): a listing would define it twice.
    NameTaken(String),
    /// The instruction has no address operand that takes a target (or, for
    /// [`CodeBuffer::push_to`], more than one and no flow target to choose).
    NoAddress(I::Opcode),
    /// A target does not fit the instruction's operand.
    Target {
        /// Address of the instruction.
        at: u64,
        /// Why.
        error: TargetError,
    },
}

impl<I: SpecInstruction> core::error::Error for BufferError<I> {}

impl<I: SpecInstruction> From<AllocError<I>> for BufferError<I> {
    fn from(e: AllocError<I>) -> BufferError<I> {
        BufferError::Alloc(e)
    }
}

/// `label `name`` or `label #3`.
fn write_label(
    f: &mut core::fmt::Formatter<'_>,
    label: Label,
    name: &Option<String>,
) -> core::fmt::Result {
    match name {
        Some(n) => write!(f, "label `{n}`"),
        None => write!(f, "label #{}", label.index),
    }
}

impl<I: SpecInstruction> core::fmt::Display for BufferError<I> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            BufferError::MisalignedBase(b) => write!(
                f,
                "base address {b:#x} is not a multiple of {INSTRUCTION_BYTES}"
            ),
            BufferError::Virtual { at, vreg } => write!(
                f,
                "instruction at {at:#x} still names virtual register {vreg}: allocate registers before finishing"
            ),
            BufferError::Alloc(e) => core::fmt::Display::fmt(e, f),
            BufferError::Overflow { base, len } => write!(
                f,
                "{len} instructions from {base:#x} run past the end of the address space"
            ),
            BufferError::ForeignLabel(l) => {
                write!(f, "label #{} belongs to another buffer", l.index)
            }
            BufferError::ForeignSymbol(s) => {
                write!(f, "symbol #{} belongs to another buffer", s.index)
            }
            BufferError::BoundTwice { label, name, at } => {
                write_label(f, *label, name)?;
                write!(f, " is bound twice (first to {at:#x})")
            }
            BufferError::Unbound { label, name, at } => {
                write_label(f, *label, name)?;
                write!(f, " is never bound (used at {at:#x})")
            }
            BufferError::InvalidName(n) => write!(
                f,
                "`{n}` is no label name: use ASCII letters, digits, `_`, `.`, `$`, not first a digit"
            ),
            BufferError::NameTaken(n) => write!(f, "the name `{n}` is taken by a label"),
            BufferError::NoAddress(op) => {
                write!(f, "`{op}` has no single address operand to take a target")
            }
            BufferError::Target { at, error } => write!(f, "instruction at {at:#x}: {error}"),
        }
    }
}

/// A label's slot: the index of the instruction it is bound to, and its name.
#[derive(Clone, Debug, PartialEq, Eq)]
struct LabelSlot {
    at: Option<usize>,
    name: Option<String>,
}

/// What an address operand placed in the buffer points to. Kept in the code, so the
/// operand is resolved again when the code moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Dest {
    Label(u32),
    Address(u64),
}

/// Address operand `operand` of instruction `at` points to `dest`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Use {
    at: usize,
    operand: u8,
    dest: Dest,
}

/// Whether `name` reads back as a label or symbol name in `isa asm`: the rule of
/// `.extern` names (`asm::program`), the strictest; the lexer is not always emitted
/// beside the buffer, so the rule is written here.
fn is_asm_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'$'))
}

/// The address of instruction `index` of code at `base`.
fn addr_at(base: u64, index: usize) -> u64 {
    base.wrapping_add(INSTRUCTION_BYTES.wrapping_mul(index as u64))
}

/// Checks that `len` instructions fit at `base`: aligned, and ending at most at 2^64.
fn check_base<I: SpecInstruction>(base: u64, len: usize) -> Result<(), BufferError<I>> {
    if !base.is_multiple_of(INSTRUCTION_BYTES) {
        return Err(BufferError::MisalignedBase(base));
    }
    let end = u128::from(base) + u128::from(INSTRUCTION_BYTES) * len as u128;
    if end > 1u128 << 64 {
        return Err(BufferError::Overflow { base, len });
    }
    Ok(())
}

/// Resolves every use for code of `identity` at `base`, into `insts`.
fn resolve_uses<I: SpecInstruction>(
    identity: &Identity,
    base: u64,
    insts: &mut [I],
    labels: &[LabelSlot],
    uses: &[Use],
) -> Result<(), BufferError<I>> {
    for u in uses {
        let at = addr_at(base, u.at);
        let target = match u.dest {
            Dest::Address(t) => t,
            Dest::Label(l) => match labels.get(l as usize) {
                Some(LabelSlot { at: Some(i), .. }) => addr_at(base, *i),
                slot => {
                    return Err(BufferError::Unbound {
                        label: identity.label(l),
                        name: slot.and_then(|s| s.name.clone()),
                        at,
                    })
                }
            },
        };
        let error = TargetError::NoAddress;
        insts
            .get_mut(u.at)
            .ok_or(BufferError::Target { at, error })?
            .set_address(u.operand as usize, at, target)
            .map_err(|error| BufferError::Target { at, error })?;
    }
    Ok(())
}

/// Builds a sequence of instructions with labels (forward and backward) and references
/// to outside symbols, the way a compiler backend emits code:
///
/// ```ignore
/// let mut buf = CodeBuffer::new(0)?;
/// let top = buf.named_label("top")?;
/// buf.bind(top)?;
/// buf.push(some_instruction);
/// buf.push_to(some_branch, top)?;           // its target operand names `top`
/// let code = buf.finish()?;                  // offsets patched, relocations listed
/// ```
///
/// A clone is a buffer of its own that also takes the labels and symbols made before
/// it; the labels either makes afterwards are foreign to the other.
#[derive(Debug)]
pub struct CodeBuffer<I: SpecInstruction> {
    identity: Identity,
    base: u64,
    insts: Vec<I>,
    labels: Vec<LabelSlot>,
    uses: Vec<Use>,
    relocs: Vec<Reloc>,
    symbols: Vec<String>,
    /// Every name given (a label's or a symbol's), with the symbol's index for a
    /// symbol: a lookup per name instead of a scan (tens of thousands of symbols).
    names: alloc::collections::BTreeMap<String, Option<u32>>,
    /// Virtual registers and the operands that name them.
    virt: Virtuals<I>,
}

impl<I: SpecInstruction> Default for CodeBuffer<I> {
    /// An empty buffer at address 0.
    fn default() -> CodeBuffer<I> {
        CodeBuffer {
            identity: Identity::new(),
            base: 0,
            insts: Vec::new(),
            labels: Vec::new(),
            uses: Vec::new(),
            relocs: Vec::new(),
            symbols: Vec::new(),
            names: alloc::collections::BTreeMap::new(),
            virt: Virtuals::default(),
        }
    }
}

impl<I: SpecInstruction> Clone for CodeBuffer<I> {
    fn clone(&self) -> CodeBuffer<I> {
        let mut ancestors = self.identity.ancestors.clone();
        ancestors.push(Ancestor {
            id: self.identity.id,
            labels: self.labels.len() as u32,
            symbols: self.symbols.len() as u32,
            vregs: self.virt.values.len() as u32,
        });
        CodeBuffer {
            identity: Identity {
                id: next_buffer(),
                ancestors,
            },
            base: self.base,
            insts: self.insts.clone(),
            labels: self.labels.clone(),
            uses: self.uses.clone(),
            relocs: self.relocs.clone(),
            symbols: self.symbols.clone(),
            names: self.names.clone(),
            virt: self.virt.clone(),
        }
    }
}

impl<I: SpecInstruction> CodeBuffer<I> {
    /// An empty buffer whose first instruction will be at address `base`, a multiple of
    /// [`INSTRUCTION_BYTES`] ([`BufferError::MisalignedBase`] otherwise).
    pub fn new(base: u64) -> Result<CodeBuffer<I>, BufferError<I>> {
        check_base(base, 0)?;
        Ok(CodeBuffer {
            base,
            ..CodeBuffer::default()
        })
    }

    /// The address of the first instruction.
    pub fn base(&self) -> u64 {
        self.base
    }

    /// Number of instructions so far.
    pub fn len(&self) -> usize {
        self.insts.len()
    }

    /// Whether no instruction was pushed.
    pub fn is_empty(&self) -> bool {
        self.insts.is_empty()
    }

    /// The buffer itself, for `code!`: a method call reborrows a `&mut CodeBuffer`
    /// (a function's parameter) and borrows a `CodeBuffer` alike, so the macro takes
    /// either without the caller writing `*buf` or declaring the parameter `mut`.
    #[doc(hidden)]
    pub fn __code_buffer(&mut self) -> &mut CodeBuffer<I> {
        self
    }

    /// The address the next instruction will have.
    pub fn here(&self) -> u64 {
        addr_at(self.base, self.insts.len())
    }

    fn add_label(&mut self, name: Option<String>) -> Label {
        self.labels.push(LabelSlot { at: None, name });
        Label {
            buffer: self.identity.id,
            index: self.labels.len() as u32 - 1,
        }
    }

    /// A new, unbound label without a name (errors give its number).
    pub fn new_label(&mut self) -> Label {
        self.add_label(None)
    }

    /// A new, unbound label named `name`: errors name it, and listings print it as a
    /// label line and a label reference. The name must read back in `isa asm`
    /// ([`BufferError::InvalidName`]) and be no other label's or symbol's
    /// ([`BufferError::NameTaken`]).
    pub fn named_label(&mut self, name: &str) -> Result<Label, BufferError<I>> {
        if !is_asm_name(name) {
            return Err(BufferError::InvalidName(name.into()));
        }
        if self.names.contains_key(name) {
            return Err(BufferError::NameTaken(name.into()));
        }
        self.names.insert(name.into(), None);
        Ok(self.add_label(Some(name.into())))
    }

    /// The slot of one of this buffer's labels.
    fn slot(&self, label: Label) -> Result<&LabelSlot, BufferError<I>> {
        match self.labels.get(label.index()) {
            Some(s) if self.identity.owns_label(label, self.labels.len()) => Ok(s),
            _ => Err(BufferError::ForeignLabel(label)),
        }
    }

    /// Binds `label` to the address of the next instruction pushed.
    pub fn bind(&mut self, label: Label) -> Result<(), BufferError<I>> {
        let here = self.insts.len();
        let slot = self.slot(label)?;
        if let Some(i) = slot.at {
            return Err(BufferError::BoundTwice {
                label,
                name: slot.name.clone(),
                at: addr_at(self.base, i),
            });
        }
        self.labels[label.index()].at = Some(here);
        Ok(())
    }

    /// The address a label is bound to, if it is one of this buffer's and is bound.
    pub fn label_addr(&self, label: Label) -> Option<u64> {
        let i = self.slot(label).ok()?.at?;
        Some(addr_at(self.base, i))
    }

    /// The name of one of this buffer's labels, if it has one.
    pub fn label_name(&self, label: Label) -> Option<&str> {
        self.slot(label).ok()?.name.as_deref()
    }

    /// The symbol named `name` (the same symbol for the same name). The name must read
    /// back in `isa asm` and be no label's.
    pub fn symbol(&mut self, name: &str) -> Result<Symbol, BufferError<I>> {
        match self.names.get(name) {
            Some(Some(i)) => return Ok(self.identity.symbol(*i)),
            Some(None) => return Err(BufferError::NameTaken(name.into())),
            None => {}
        }
        if !is_asm_name(name) {
            return Err(BufferError::InvalidName(name.into()));
        }
        self.names
            .insert(name.into(), Some(self.symbols.len() as u32));
        self.symbols.push(name.into());
        Ok(Symbol {
            buffer: self.identity.id,
            index: self.symbols.len() as u32 - 1,
        })
    }

    /// Appends an instruction as it is (a relative address operand keeps its offset
    /// wherever the code goes); returns its address.
    pub fn push(&mut self, insn: impl Into<I>) -> u64 {
        let at = self.here();
        self.insts.push(insn.into());
        at
    }

    /// Appends an instruction whose target operand names `target`: the operand its flow
    /// goes to (a branch, call or convergence point), else its only address operand
    /// (`LEPC`, `BRX`, …). Returns its address.
    pub fn push_to(
        &mut self,
        insn: impl Into<I>,
        target: impl core::convert::Into<Target>,
    ) -> Result<u64, BufferError<I>> {
        let insn = insn.into();
        let info = insn.info();
        let k = match (info.target, info.addresses.len()) {
            (Some(k), _) => k as usize,
            (None, 1) => 0,
            _ => return Err(BufferError::NoAddress(insn.opcode())),
        };
        self.push_with(insn, k, target)
    }

    /// Appends an instruction whose address operand `k` (index into
    /// [`SpecInstruction::addresses`]) names `target`. Returns its address.
    pub fn push_with(
        &mut self,
        insn: impl Into<I>,
        k: usize,
        target: impl core::convert::Into<Target>,
    ) -> Result<u64, BufferError<I>> {
        let mut insn = insn.into();
        let info = insn.info();
        let (Some(a), Ok(operand)) = (info.addresses.get(k), u8::try_from(k)) else {
            return Err(BufferError::NoAddress(insn.opcode()));
        };
        let at = self.here();
        let index = self.insts.len();
        match target.into() {
            Target::Address(t) => {
                // Checked now, so the error points at this push; `finish` sets it again
                // for wherever the code is placed.
                insn.set_address(k, at, t)
                    .map_err(|error| BufferError::Target { at, error })?;
                self.uses.push(Use {
                    at: index,
                    operand,
                    dest: Dest::Address(t),
                });
            }
            Target::Label(label) => {
                self.slot(label)?;
                self.uses.push(Use {
                    at: index,
                    operand,
                    dest: Dest::Label(label.index),
                });
            }
            Target::Symbol(symbol, addend) => {
                if !self.identity.owns_symbol(symbol, self.symbols.len()) {
                    return Err(BufferError::ForeignSymbol(symbol));
                }
                // The operand holds code 0 until the relocation is applied.
                let f = &info.fields[a.field as usize];
                if let Some(i) = I::from_word(f.set(insn.encode(), 0)) {
                    insn = i;
                }
                self.relocs.push(Reloc {
                    offset: INSTRUCTION_BYTES.wrapping_mul(index as u64),
                    operand,
                    kind: reloc_kind(&insn, k),
                    symbol,
                    addend,
                });
            }
        }
        self.insts.push(insn);
        Ok(at)
    }

    /// Resolves every label reference and returns the code at the buffer's base.
    /// Fails on the first label never bound (with the address that used it) or target
    /// that does not fit.
    pub fn finish(self) -> Result<Code<I>, BufferError<I>> {
        let base = self.base;
        self.finish_at(base)
    }

    /// [`CodeBuffer::finish`] with the code placed at `base` instead of the buffer's
    /// own (as if the buffer had been made there): label references and known
    /// addresses are resolved for `base`.
    pub fn finish_at(mut self, base: u64) -> Result<Code<I>, BufferError<I>> {
        if let Some(&(i, _, vreg)) = self.virt.uses.iter().min_by_key(|u| u.0) {
            return Err(BufferError::Virtual {
                at: addr_at(self.base, i),
                vreg,
            });
        }
        check_base(base, self.insts.len())?;
        resolve_uses(
            &self.identity,
            base,
            &mut self.insts,
            &self.labels,
            &self.uses,
        )?;
        Ok(Code {
            identity: self.identity,
            base,
            insts: self.insts,
            labels: self.labels,
            uses: self.uses,
            relocs: self.relocs,
            symbols: self.symbols,
        })
    }
}

/// Placed code: instructions with every label resolved, and the relocations that
/// refer to symbols outside it. Made by [`CodeBuffer::finish`]; its parts are read
/// through accessors, so what its relocations and label uses name is always there.
/// Two codes are equal when they are the same build (the same buffer) with the same
/// contents.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Code<I: SpecInstruction> {
    identity: Identity,
    base: u64,
    insts: Vec<I>,
    labels: Vec<LabelSlot>,
    uses: Vec<Use>,
    relocs: Vec<Reloc>,
    symbols: Vec<String>,
}

/// What went wrong linking code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LinkError {
    /// A symbol the resolver does not know.
    Undefined(String),
    /// A relocation's target does not fit its operand.
    Target {
        /// Address of the instruction.
        at: u64,
        /// The symbol the relocation names.
        symbol: String,
        /// Why.
        error: TargetError,
    },
}

impl core::error::Error for LinkError {}

impl core::fmt::Display for LinkError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            LinkError::Undefined(s) => write!(f, "undefined symbol `{s}`"),
            LinkError::Target { at, symbol, error } => {
                write!(
                    f,
                    "instruction at {at:#x}, relocation to `{symbol}`: {error}"
                )
            }
        }
    }
}

impl<I: SpecInstruction> Code<I> {
    /// The address of the first instruction.
    pub fn base(&self) -> u64 {
        self.base
    }

    /// Number of instructions.
    pub fn len(&self) -> usize {
        self.insts.len()
    }

    /// Whether the code has no instruction.
    pub fn is_empty(&self) -> bool {
        self.insts.is_empty()
    }

    /// The address of instruction `index` (`INSTRUCTION_BYTES` apart from `base`).
    pub fn addr_of(&self, index: usize) -> u64 {
        addr_at(self.base, index)
    }

    /// The instructions.
    pub fn insts(&self) -> &[I] {
        &self.insts
    }

    /// The instructions, to rewrite in place (registers after allocation, say). Their
    /// number is fixed; an instruction that loses an address operand a relocation or
    /// label names makes [`Code::link`] or [`Code::rebase`] fail, not panic.
    pub fn insts_mut(&mut self) -> &mut [I] {
        &mut self.insts
    }

    /// The encoded words.
    pub fn words(&self) -> impl Iterator<Item = u128> + '_ {
        self.insts.iter().map(I::encode)
    }

    /// The code as `INSTRUCTION_BYTES`-byte little-endian records.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.words().flat_map(u128::to_le_bytes).collect()
    }

    /// References to outside symbols not yet linked, in instruction order.
    pub fn relocs(&self) -> &[Reloc] {
        &self.relocs
    }

    /// The names of the symbols, by [`Symbol::index`].
    pub fn symbols(&self) -> &[String] {
        &self.symbols
    }

    /// The name of one of this code's symbols.
    pub fn symbol_name(&self, symbol: Symbol) -> Option<&str> {
        if !self.identity.owns_symbol(symbol, self.symbols.len()) {
            return None;
        }
        self.symbols.get(symbol.index()).map(|s| s.as_str())
    }

    fn slot(&self, label: Label) -> Option<&LabelSlot> {
        self.labels
            .get(label.index())
            .filter(|_| self.identity.owns_label(label, self.labels.len()))
    }

    /// The address of a label of this code (`None` for another buffer's label or one
    /// never bound).
    pub fn label_addr(&self, label: Label) -> Option<u64> {
        Some(self.addr_of(self.slot(label)?.at?))
    }

    /// The name of a label of this code, if it has one.
    pub fn label_name(&self, label: Label) -> Option<&str> {
        self.slot(label)?.name.as_deref()
    }

    /// Every bound label of this code with its address, in creation order.
    pub fn labels(&self) -> impl Iterator<Item = (Label, u64)> + '_ {
        self.labels
            .iter()
            .enumerate()
            .filter_map(|(i, s)| Some((self.identity.label(i as u32), self.addr_of(s.at?))))
    }

    /// The label references of the code: (instruction index, address operand, label)
    /// for each operand that names a label of this code, in instruction order. An
    /// object needs a relocation for those that are absolute in their instance
    /// ([`SpecInstruction::address_is_absolute`]): their value moves with the code.
    pub fn label_refs(&self) -> impl Iterator<Item = (usize, u8, Label)> + '_ {
        self.uses.iter().filter_map(|u| match u.dest {
            Dest::Label(l) => Some((u.at, u.operand, self.identity.label(l))),
            Dest::Address(_) => None,
        })
    }

    /// Applies every relocation with the symbol addresses `resolve` gives (a small
    /// linker, for tests and loaders); the relocations are consumed, and their
    /// targets stay fixed addresses if the code is rebased. Nothing changes on error.
    pub fn link(
        &mut self,
        mut resolve: impl core::ops::FnMut(&str) -> Option<u64>,
    ) -> Result<(), LinkError> {
        let mut insts = self.insts.clone();
        let mut uses = self.uses.clone();
        for r in &self.relocs {
            // Every relocation names a symbol and an instruction of this code (the
            // buffer made both), so the fallbacks below are never taken.
            let name = self
                .symbols
                .get(r.symbol.index())
                .map_or("", |s| s.as_str());
            let s = resolve(name).ok_or_else(|| LinkError::Undefined(name.into()))?;
            let at = self.base.wrapping_add(r.offset);
            let target = s.wrapping_add(r.addend as u64);
            let index = (r.offset / INSTRUCTION_BYTES) as usize;
            let error = |error| LinkError::Target {
                at,
                symbol: name.into(),
                error,
            };
            insts
                .get_mut(index)
                .ok_or(error(TargetError::NoAddress))?
                .set_address(r.operand as usize, at, target)
                .map_err(error)?;
            uses.push(Use {
                at: index,
                operand: r.operand,
                dest: Dest::Address(target),
            });
        }
        self.insts = insts;
        self.uses = uses;
        self.relocs.clear();
        Ok(())
    }

    /// Moves the code to `base` (the way an assembler emits at a chosen address):
    /// every label reference and known address is resolved again, relative operands
    /// to a known address or a linked symbol included; relocations keep their offsets.
    /// Nothing changes on error.
    pub fn rebase(&mut self, base: u64) -> Result<(), BufferError<I>> {
        check_base(base, self.insts.len())?;
        let mut insts = self.insts.clone();
        resolve_uses(&self.identity, base, &mut insts, &self.labels, &self.uses)?;
        self.insts = insts;
        self.base = base;
        Ok(())
    }
}

#[cfg(test)]
mod tests;
