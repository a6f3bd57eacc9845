//! Objects from a `CodeBuffer`'s code, and linking them.

use std::collections::HashSet;
use std::fmt;

use isa::backend::{Code, Label};

use crate::{short_name, Binding, Error, ObjReloc, ObjSymbol, Object, INST};

/// A name for a label of a [`Code`]: the symbol the label becomes in an object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LabelName<'a> {
    pub label: Label,
    pub name: &'a str,
    /// Exported (`.global`): visible to other objects; otherwise local to this one.
    pub global: bool,
}

impl<'a> LabelName<'a> {
    /// A label visible only in its object.
    pub fn local(label: Label, name: &'a str) -> LabelName<'a> {
        LabelName {
            label,
            name,
            global: false,
        }
    }

    /// A label other objects can refer to.
    pub fn global(label: Label, name: &'a str) -> LabelName<'a> {
        LabelName {
            label,
            name,
            global: true,
        }
    }
}

impl Object {
    /// The object of placed code: `.text` is `code`'s words (relocated operands at
    /// code 0), a symbol per label of `labels` and per other label named in the buffer
    /// (a local one; local symbols first, otherwise in the order given; labels without
    /// a name are not symbols), an undefined symbol per [`Code::symbols`] entry, and a relocation per
    /// [`Code::relocs`] entry, with its addend. A name given twice (two labels, or a
    /// label and an outside symbol), a label never bound, and what
    /// [`Object::check`] refuses are errors.
    pub fn from_code(code: &Code, labels: &[LabelName<'_>]) -> Result<Object, Error> {
        let mut seen = HashSet::new();
        let mut symbols = Vec::with_capacity(labels.len() + code.symbols().len());
        for l in labels {
            let addr = code.label_addr(l.label).ok_or_else(|| {
                Error::new(format!(
                    "label {} (`{}`) is not bound",
                    l.label.index(),
                    short_name(l.name)
                ))
            })?;
            let value = addr.checked_sub(code.base()).ok_or_else(|| {
                Error::new(format!(
                    "label `{}` lies before the code",
                    short_name(l.name)
                ))
            })?;
            symbols.push(ObjSymbol {
                name: l.name.to_string(),
                binding: if l.global {
                    Binding::Global
                } else {
                    Binding::Local
                },
                value,
            });
        }
        // Labels named in the buffer (`CodeBuffer::named_label`) and not given above
        // are local symbols of that name.
        for (label, addr) in code.labels() {
            let Some(name) = code.label_name(label) else {
                continue;
            };
            if labels.iter().any(|l| l.label == label) {
                continue;
            }
            let value = addr.checked_sub(code.base()).ok_or_else(|| {
                Error::new(format!("label `{}` lies before the code", short_name(name)))
            })?;
            symbols.push(ObjSymbol {
                name: name.to_string(),
                binding: Binding::Local,
                value,
            });
        }
        // Locals first, as the symbol table has them: what `read` gives back is equal.
        symbols.sort_by_key(|s| s.binding != Binding::Local);
        let first_extern = symbols.len();
        symbols.extend(code.symbols().iter().map(|name| ObjSymbol {
            name: name.clone(),
            binding: Binding::Undefined,
            value: 0,
        }));
        for s in &symbols {
            if !seen.insert(s.name.as_str()) {
                return Err(Error::new(format!(
                    "`{}` names two symbols",
                    short_name(&s.name)
                )));
            }
        }
        let mut relocs = Vec::with_capacity(code.relocs().len());
        for (i, r) in code.relocs().iter().enumerate() {
            if r.symbol.index() >= code.symbols().len() {
                return Err(Error::new(format!(
                    "relocation {i} (at {:#x}): no symbol {}",
                    r.offset,
                    r.symbol.index()
                )));
            }
            relocs.push(ObjReloc {
                offset: r.offset,
                r_type: r.kind.elf_type(r.operand),
                symbol: first_extern + r.symbol.index(),
                addend: r.addend,
            });
        }
        // An absolute operand naming a label holds an address that moves with the
        // object: it becomes a relocation against the label's symbol (the operand at
        // code 0, as for an outside symbol).
        let mut words: Vec<u128> = code.words().collect();
        for (at, k, label) in code.label_refs() {
            let insn = &code.insts()[at];
            if insn.address_is_absolute(usize::from(k)) != Some(true) {
                continue; // relative: the same wherever the object is placed
            }
            let addr = code.addr_of(at);
            let name = labels
                .iter()
                .find(|l| l.label == label)
                .map(|l| l.name)
                .or_else(|| code.label_name(label))
                .ok_or_else(|| {
                    Error::new(format!(
                        "label {} is named by an absolute operand (the instruction at {addr:#x}): an object needs a symbol for it, so give it a name",
                        label.index()
                    ))
                })?;
            let symbol = symbols
                .iter()
                .position(|s| s.name == name)
                .ok_or_else(|| Error::new(format!("label `{}` is not bound", short_name(name))))?;
            let target = insn.address(usize::from(k), addr).unwrap_or(0);
            let label_at = code.label_addr(label).unwrap_or(target);
            words[at] = isa::Instruction::relocate(words[at], addr, usize::from(k), 0)
                .map_err(|e| Error::new(format!("the instruction at {addr:#x}: {e}")))?;
            relocs.push(ObjReloc {
                offset: addr.wrapping_sub(code.base()),
                r_type: isa::backend::RelocKind::Absolute.elf_type(k),
                symbol,
                addend: target.wrapping_sub(label_at) as i64,
            });
        }
        relocs.sort_by_key(|r| r.offset);
        let obj = Object {
            text: words.iter().flat_map(|w| w.to_le_bytes()).collect(),
            symbols,
            relocs,
        };
        obj.check()?;
        Ok(obj)
    }

    /// Links the object at `base` for the bundled spec: [`Object::link_with`] with
    /// `isa::Instruction::relocate`.
    pub fn link(
        &self,
        base: u64,
        resolve: impl FnMut(&str) -> Option<u64>,
    ) -> Result<Vec<u128>, Vec<LinkError>> {
        self.link_with(base, resolve, |word, addr, k, target| {
            isa::Instruction::relocate(word, addr, k, target).map_err(|e| e.to_string())
        })
    }

    /// Applies every relocation to the words of `.text` laid out from `base`: an
    /// undefined symbol gets the address `resolve` gives for it, a label its offset
    /// plus `base`; `relocate(word, addr, k, target)` makes address operand `k` of the
    /// word at `addr` name `target` (the spec's encoding: `isa::Instruction::relocate`
    /// for the bundled one). Every error is returned (an undefined symbol once, however
    /// many relocations name it); on error no words are.
    pub fn link_with(
        &self,
        base: u64,
        mut resolve: impl FnMut(&str) -> Option<u64>,
        mut relocate: impl FnMut(u128, u64, usize, u64) -> Result<u128, String>,
    ) -> Result<Vec<u128>, Vec<LinkError>> {
        if let Err(e) = self.check() {
            return Err(vec![LinkError::Invalid(e)]);
        }
        if !(self.text.len() as u64).is_multiple_of(INST) {
            let e = Error::new(format!(
                "`.text` ({:#x} bytes) is not a whole number of 16-byte instructions",
                self.text.len()
            ));
            return Err(vec![LinkError::Invalid(e)]);
        }
        let mut words: Vec<u128> = self.words().collect();
        let mut errors = Vec::new();
        let mut undefined = HashSet::new();
        for (index, r) in self.relocs.iter().enumerate() {
            let sym = &self.symbols[r.symbol];
            let s = match sym.binding {
                Binding::Undefined => match resolve(&sym.name) {
                    Some(a) => a,
                    None => {
                        if undefined.insert(r.symbol) {
                            errors.push(LinkError::Undefined(sym.name.clone()));
                        }
                        continue;
                    }
                },
                _ => base.wrapping_add(sym.value),
            };
            let (_, k) = isa::backend::RelocKind::from_elf_type(r.r_type)
                .expect("Object::check accepts known types only");
            // `check` put the offset inside `.text`, at a word.
            let i = (r.offset / INST) as usize;
            let addr = base.wrapping_add(r.offset);
            match relocate(words[i], addr, k as usize, s.wrapping_add(r.addend as u64)) {
                Ok(w) => words[i] = w,
                Err(message) => errors.push(LinkError::Relocation {
                    index,
                    offset: r.offset,
                    symbol: sym.name.clone(),
                    message,
                }),
            }
        }
        if errors.is_empty() {
            Ok(words)
        } else {
            Err(errors)
        }
    }
}

/// Why an object does not link.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinkError {
    /// The object is not one that can be linked (see [`Object::check`]).
    Invalid(Error),
    /// An undefined symbol the resolver does not know.
    Undefined(String),
    /// A relocation's target does not fit its operand, or the word has no such
    /// operand.
    Relocation {
        /// Index into [`Object::relocs`].
        index: usize,
        /// Offset of the instruction in `.text`.
        offset: u64,
        /// The symbol's name.
        symbol: String,
        /// What `relocate` said.
        message: String,
    },
}

impl fmt::Display for LinkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LinkError::Invalid(e) => e.fmt(f),
            LinkError::Undefined(name) => write!(f, "undefined symbol `{}`", short_name(name)),
            LinkError::Relocation {
                offset,
                symbol,
                message,
                ..
            } => write!(
                f,
                "relocation at {offset:#x} (`{}`): {message}",
                short_name(symbol)
            ),
        }
    }
}

impl std::error::Error for LinkError {}
