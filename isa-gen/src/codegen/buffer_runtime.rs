// Hand-written code buffer with labels and relocations, emitted verbatim into the
// generated code (see `codegen::backend`). It needs `alloc` (the rest of the generated
// API does not allocate). Spec-independent: it places instructions, patches address
// operands through `Instruction::set_address` and records what it cannot resolve.

extern crate alloc;

/// A position in a [`CodeBuffer`], created unbound and bound once.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Label(u32);

impl Label {
    /// The label's number in its buffer (0, 1, …, in creation order).
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

/// A symbol outside the buffer (another function, a kernel, …), resolved when the
/// code is linked or loaded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Symbol(u32);

impl Symbol {
    /// The symbol's number in its buffer's [`Code::symbols`].
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

/// Where an address operand points.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// A label of the same buffer (bound before or after).
    Label(Label),
    /// A symbol outside the buffer, plus an addend: becomes a [`Reloc`].
    Symbol(Symbol, i64),
    /// A known address.
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
        let kind = if (t - 1) % 2 == 1 {
            RelocKind::Absolute
        } else {
            RelocKind::Relative
        };
        Some((kind, k))
    }
}

/// A reference to a symbol outside the buffer, to be resolved at link or load time:
/// address operand `operand` of the instruction at byte `offset` gets `S + addend`.
/// Until then the operand holds code 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Reloc {
    /// Byte offset of the instruction from the start of the code.
    pub offset: u64,
    /// Which address operand of the instruction (index into [`Instruction::addresses`]).
    pub operand: u8,
    /// How the operand's value is computed from the symbol's address.
    pub kind: RelocKind,
    /// The symbol (its name: [`Code::symbols`]).
    pub symbol: Symbol,
    /// Added to the symbol's address (`Target::Symbol`'s second field).
    pub addend: i64,
}

/// What went wrong placing code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BufferError {
    /// A label was bound a second time.
    BoundTwice(Label),
    /// A label some instruction refers to was never bound.
    Unbound {
        /// The label.
        label: Label,
        /// Address of the (first) instruction referring to it.
        at: u64,
    },
    /// The instruction has no address operand that takes a target (or, for
    /// [`CodeBuffer::push_to`], more than one and no flow target to choose).
    NoAddress(Opcode),
    /// A target does not fit the instruction's operand.
    Target {
        /// Address of the instruction.
        at: u64,
        /// Why.
        error: TargetError,
    },
}

impl core::error::Error for BufferError {}

impl core::fmt::Display for BufferError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            BufferError::BoundTwice(l) => write!(f, "label {} is bound twice", l.0),
            BufferError::Unbound { label, at } => {
                write!(f, "label {} is never bound (used at {at:#x})", label.0)
            }
            BufferError::NoAddress(op) => {
                write!(f, "`{op}` has no single address operand to take a target")
            }
            BufferError::Target { at, error } => write!(f, "instruction at {at:#x}: {error}"),
        }
    }
}

/// A reference to a label, resolved by [`CodeBuffer::finish`].
#[derive(Clone, Copy, Debug)]
struct LabelUse {
    at: u32,
    operand: u8,
    label: Label,
}

/// Unbound label.
const UNBOUND: u32 = u32::MAX;

/// Builds a sequence of instructions with labels (forward and backward) and references
/// to outside symbols, the way a compiler backend emits code:
///
/// ```ignore
/// let mut buf = CodeBuffer::new(0);
/// let top = buf.new_label();
/// buf.bind(top)?;
/// buf.push(some_instruction);
/// buf.push_to(some_branch, top)?;           // its target operand names `top`
/// let code = buf.finish()?;                  // offsets patched, relocations listed
/// ```
#[derive(Clone, Debug, Default)]
pub struct CodeBuffer {
    base: u64,
    insts: alloc::vec::Vec<Instruction>,
    labels: alloc::vec::Vec<u32>,
    uses: alloc::vec::Vec<LabelUse>,
    relocs: alloc::vec::Vec<Reloc>,
    symbols: alloc::vec::Vec<alloc::string::String>,
}

impl CodeBuffer {
    /// An empty buffer whose first instruction will be at address `base`.
    pub fn new(base: u64) -> CodeBuffer {
        CodeBuffer {
            base,
            ..CodeBuffer::default()
        }
    }

    /// Number of instructions so far.
    pub fn len(&self) -> usize {
        self.insts.len()
    }

    /// Whether no instruction was pushed.
    pub fn is_empty(&self) -> bool {
        self.insts.is_empty()
    }

    /// The address the next instruction will have.
    pub fn here(&self) -> u64 {
        self.addr_of(self.insts.len())
    }

    fn addr_of(&self, index: usize) -> u64 {
        self.base.wrapping_add(16 * index as u64)
    }

    /// A new, unbound label.
    pub fn new_label(&mut self) -> Label {
        self.labels.push(UNBOUND);
        Label(self.labels.len() as u32 - 1)
    }

    /// Binds `label` to the address of the next instruction pushed.
    pub fn bind(&mut self, label: Label) -> Result<(), BufferError> {
        match self.labels.get_mut(label.index()) {
            Some(slot) if *slot == UNBOUND => {
                *slot = self.insts.len() as u32;
                Ok(())
            }
            _ => Err(BufferError::BoundTwice(label)),
        }
    }

    /// The address a label is bound to, if it is.
    pub fn label_addr(&self, label: Label) -> Option<u64> {
        match self.labels.get(label.index()) {
            Some(&i) if i != UNBOUND => Some(self.addr_of(i as usize)),
            _ => None,
        }
    }

    /// The symbol named `name` (the same symbol for the same name).
    pub fn symbol(&mut self, name: &str) -> Symbol {
        match self.symbols.iter().position(|s| s == name) {
            Some(i) => Symbol(i as u32),
            None => {
                self.symbols.push(alloc::string::String::from(name));
                Symbol(self.symbols.len() as u32 - 1)
            }
        }
    }

    /// Appends an instruction; returns its address.
    pub fn push(&mut self, insn: impl core::convert::Into<Instruction>) -> u64 {
        let at = self.here();
        self.insts.push(insn.into());
        at
    }

    /// Appends an instruction whose target operand names `target`: the operand its flow
    /// goes to (a branch, call or convergence point), else its only address operand
    /// (`LEPC`, `BRX`, …). Returns its address.
    pub fn push_to(
        &mut self,
        insn: impl core::convert::Into<Instruction>,
        target: impl core::convert::Into<Target>,
    ) -> Result<u64, BufferError> {
        let insn = insn.into();
        let info = insn.opcode().info();
        let k = match (info.target, info.addresses.len()) {
            (Some(k), _) => k as usize,
            (None, 1) => 0,
            _ => return Err(BufferError::NoAddress(insn.opcode())),
        };
        self.push_with(insn, k, target)
    }

    /// Appends an instruction whose address operand `k` (index into
    /// [`Instruction::addresses`]) names `target`. Returns its address.
    pub fn push_with(
        &mut self,
        insn: impl core::convert::Into<Instruction>,
        k: usize,
        target: impl core::convert::Into<Target>,
    ) -> Result<u64, BufferError> {
        let mut insn = insn.into();
        let info = insn.opcode().info();
        let Some(a) = info.addresses.get(k) else {
            return Err(BufferError::NoAddress(insn.opcode()));
        };
        let at = self.here();
        match target.into() {
            Target::Address(t) => insn
                .set_address(k, at, t)
                .map_err(|error| BufferError::Target { at, error })?,
            Target::Label(label) => {
                if label.index() >= self.labels.len() {
                    return Err(BufferError::Unbound { label, at });
                }
                self.uses.push(LabelUse {
                    at: self.insts.len() as u32,
                    operand: k as u8,
                    label,
                });
            }
            Target::Symbol(symbol, addend) => {
                // The operand holds code 0 until the relocation is applied.
                let f = &info.fields[a.field as usize];
                if let Ok(i) = Instruction::decode(with_field(insn.encode(), f, 0)) {
                    insn = i;
                }
                self.relocs.push(Reloc {
                    offset: at - self.base,
                    operand: k as u8,
                    kind: if a.is_absolute_in(insn.encode(), info.fields) {
                        RelocKind::Absolute
                    } else {
                        RelocKind::Relative
                    },
                    symbol,
                    addend,
                });
            }
        }
        self.insts.push(insn);
        Ok(at)
    }

    /// Resolves every label reference and returns the code. Fails on the first label
    /// never bound (with the address that used it) or target that does not fit.
    pub fn finish(mut self) -> Result<Code, BufferError> {
        for u in &self.uses {
            let at = self.addr_of(u.at as usize);
            let target = self.label_addr(u.label).ok_or(BufferError::Unbound {
                label: u.label,
                at,
            })?;
            self.insts[u.at as usize]
                .set_address(u.operand as usize, at, target)
                .map_err(|error| BufferError::Target { at, error })?;
        }
        let labels = (0..self.labels.len())
            .map(|i| self.label_addr(Label(i as u32)))
            .collect();
        Ok(Code {
            base: self.base,
            insts: self.insts,
            labels,
            relocs: self.relocs,
            symbols: self.symbols,
        })
    }
}

/// Placed code: instructions with every label resolved, and the relocations that
/// refer to symbols outside it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Code {
    /// Address of the first instruction.
    pub base: u64,
    /// The instructions, 16 bytes apart.
    pub insts: alloc::vec::Vec<Instruction>,
    /// The address of each label, by [`Label::index`] (`None` if never bound).
    pub labels: alloc::vec::Vec<Option<u64>>,
    /// References to outside symbols, in instruction order.
    pub relocs: alloc::vec::Vec<Reloc>,
    /// The names of the symbols, by [`Symbol::index`].
    pub symbols: alloc::vec::Vec<alloc::string::String>,
}

/// What went wrong linking code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LinkError {
    /// A symbol the resolver does not know.
    Undefined(alloc::string::String),
    /// A relocation's target does not fit its operand.
    Target {
        /// Address of the instruction.
        at: u64,
        /// Why.
        error: TargetError,
    },
}

impl core::error::Error for LinkError {}

impl core::fmt::Display for LinkError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            LinkError::Undefined(s) => write!(f, "undefined symbol `{s}`"),
            LinkError::Target { at, error } => write!(f, "instruction at {at:#x}: {error}"),
        }
    }
}

impl Code {
    /// The encoded words.
    pub fn words(&self) -> impl core::iter::Iterator<Item = u128> + '_ {
        self.insts.iter().map(Instruction::encode)
    }

    /// The code as 16-byte little-endian records.
    pub fn to_bytes(&self) -> alloc::vec::Vec<u8> {
        self.words().flat_map(u128::to_le_bytes).collect()
    }

    /// The address of a label.
    pub fn label_addr(&self, label: Label) -> Option<u64> {
        self.labels.get(label.index()).copied().flatten()
    }

    /// Applies every relocation with the symbol addresses `resolve` gives (a small
    /// linker, for tests and loaders); the relocations are consumed. Nothing changes
    /// on error.
    pub fn link(&mut self, mut resolve: impl core::ops::FnMut(&str) -> Option<u64>) -> Result<(), LinkError> {
        let mut insts = self.insts.clone();
        for r in &self.relocs {
            let name = &self.symbols[r.symbol.index()];
            let s = resolve(name).ok_or_else(|| LinkError::Undefined(name.clone()))?;
            let at = self.base.wrapping_add(r.offset);
            let i = (r.offset / 16) as usize;
            insts[i]
                .set_address(r.operand as usize, at, s.wrapping_add(r.addend as u64))
                .map_err(|error| LinkError::Target { at, error })?;
        }
        self.insts = insts;
        self.relocs.clear();
        Ok(())
    }
}
