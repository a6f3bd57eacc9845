//! One spec's instructions, as the commands that read and write them see them: the
//! generated code for the bundled spec (fast), or the model interpreted for any other
//! (`--spec PATH`), with the same behaviour and messages.

use std::path::PathBuf;

use isa::Instruction;
use isa_gen::asm::{AsmError, Assembler, FormatOptions};
use isa_gen::model::interp::Decoded;
use isa_gen::model::{Address, FlowKind, Model};

/// A name lookup as [`Codec::print`] takes it (a closure borrowing a table).
pub fn symbols<'s, F: Fn(u64) -> Option<&'s str>>(f: &'s F) -> &'s dyn Fn(u64) -> Option<&'s str> {
    f
}

/// The instruction set a command works with.
pub enum Codec {
    /// The bundled spec, through the generated `isa` crate.
    Bundled,
    /// Another spec, through its model.
    Spec(Assembler<'static>),
}

/// What the control-flow graph and the object tools need to know of one instruction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Facts {
    pub flow: FlowKind,
    /// Its flow is conditional (it may also fall through).
    pub conditional: bool,
    /// The address its flow goes to, when it has one.
    pub target: Option<u64>,
    /// Each address operand: whether it is absolute.
    pub absolute: Vec<bool>,
}

impl Codec {
    /// The bundled spec when `paths` is empty; else the spec at `paths`, which must
    /// check (its errors are the error).
    pub fn load(paths: &[PathBuf]) -> Result<Codec, String> {
        if paths.is_empty() {
            return Ok(Codec::Bundled);
        }
        let checked = isa_gen::Spec::load(paths)
            .map_err(|e| e.to_string())?
            .check();
        let Some(model) = checked.model.clone() else {
            let errors = isa_gen::diag::Diagnostics {
                items: checked.diagnostics.errors().cloned().collect(),
            };
            return Err(format!(
                "the spec has errors:\n{}",
                errors.render(&checked.sources).trim_end()
            ));
        };
        // One model per process: the assembler borrows it for the rest of the run.
        let model: &'static Model = Box::leak(Box::new(model));
        Ok(Codec::Spec(Assembler::new(model)))
    }

    /// Assembles one instruction line (`.word 0x…` gives the raw word).
    pub fn assemble(
        &self,
        text: &str,
        addr: u64,
        labels: &dyn Fn(&str) -> Option<u64>,
    ) -> Result<u128, AsmError> {
        if let Some(rest) = text.strip_prefix(".word") {
            let digits = rest.trim();
            return crate::num::hex::<u128>(digits).ok_or_else(|| {
                AsmError::new(
                    5..text.len().max(5),
                    format!("`.word` takes one hex number such as 0x1f, found `{digits}`"),
                )
            });
        }
        match self {
            Codec::Bundled => Instruction::parse_at(text, addr, labels)
                .map(|i| i.encode())
                .map_err(|e| AsmError::new(e.start..e.end, e.display(text).to_string())),
            Codec::Spec(a) => a.parse_line(text, addr, labels).map(|d| a.model.encode(&d)),
        }
    }

    /// Whether a word decodes, or why not (the message [`Codec::print`] gives).
    pub fn validate(&self, word: u128) -> Result<(), String> {
        match self {
            // The fast decoder: the same words and errors as `Instruction::decode`.
            Codec::Bundled => isa::Decoded::decode(word)
                .map(|_| ())
                .map_err(|e| e.to_string()),
            Codec::Spec(a) => self.decoded(a, word).map(|_| ()),
        }
    }

    /// The instruction a word holds, printed at `addr` (addresses through `symbols`
    /// when given), or why it does not decode.
    pub fn print<'s>(
        &self,
        word: u128,
        addr: u64,
        symbols: Option<&'s dyn Fn(u64) -> Option<&'s str>>,
    ) -> Result<String, String> {
        match self {
            Codec::Bundled => {
                let i = Instruction::decode(word).map_err(|e| e.to_string())?;
                let mut o = FormatOptions::new();
                o.symbols = symbols;
                Ok(i.display_with(addr, o).to_string())
            }
            Codec::Spec(a) => {
                let d = self.decoded(a, word)?;
                let mut o = FormatOptions::new();
                o.symbols = symbols;
                Ok(a.print_with(&d, addr, &o))
            }
        }
    }

    fn decoded(&self, a: &Assembler, word: u128) -> Result<Decoded, String> {
        a.model.decode(word).map_err(|e| {
            let m = a.model;
            match e {
                isa_gen::model::interp::DecodeFailure::NoOpcode => {
                    format!("no opcode matches {word:#034x}")
                }
                isa_gen::model::interp::DecodeFailure::ReservedBits { opcode, bits } => {
                    format!("{}: reserved bits set ({bits:#x})", m.opcodes[opcode].name)
                }
                isa_gen::model::interp::DecodeFailure::InvalidField {
                    opcode,
                    field,
                    value,
                } => format!(
                    "{}: field `{}` holds undefined code {value:#x}",
                    m.opcodes[opcode].name, m.opcodes[opcode].fields[field].name
                ),
            }
        })
    }

    /// Flow facts of the instruction a word holds at `addr` (`None` if it does not
    /// decode).
    pub fn facts(&self, word: u128, addr: u64) -> Option<Facts> {
        match self {
            Codec::Bundled => {
                let i = Instruction::decode(word).ok()?;
                let flow = FlowKind::from_name(i.flow().name())?;
                Some(Facts {
                    flow,
                    conditional: i.is_conditional(),
                    target: i.branch_target(addr),
                    absolute: (0..i.addresses().len())
                        .map(|k| i.address_is_absolute(k) == Some(true))
                        .collect(),
                })
            }
            Codec::Spec(a) => {
                let m = a.model;
                let d = m.decode(word).ok()?;
                let op = &m.opcodes[d.opcode];
                Some(Facts {
                    flow: m.flow_kind(&d),
                    conditional: m.is_conditional(&d),
                    target: m.branch_target(&d, addr),
                    absolute: op
                        .address_operands()
                        .iter()
                        .map(|&(_, mode)| mode.at(&d.values) == Address::Absolute)
                        .collect(),
                })
            }
        }
    }

    /// The value of address operand `k` of the instruction at `addr`.
    pub fn address(&self, word: u128, addr: u64, k: usize) -> Option<u64> {
        match self {
            Codec::Bundled => Instruction::decode(word).ok()?.address(k, addr),
            Codec::Spec(a) => {
                let m = a.model;
                let d = m.decode(word).ok()?;
                let (f, _) = *m.opcodes[d.opcode].address_operands().get(k)?;
                m.address_value(&d, f, addr)
            }
        }
    }

    /// Makes address operand `k` of the instruction at `addr` name `target`.
    pub fn relocate(&self, word: u128, addr: u64, k: usize, target: u64) -> Result<u128, String> {
        match self {
            Codec::Bundled => {
                Instruction::relocate(word, addr, k, target).map_err(|e| e.to_string())
            }
            Codec::Spec(a) => {
                let m = a.model;
                let mut d = self.decoded(a, word)?;
                let (f, _) = *m.opcodes[d.opcode]
                    .address_operands()
                    .get(k)
                    .ok_or("the instruction has no such address operand")?;
                d.values[f] = m
                    .address_code(&d, f, addr, target)
                    .map_err(|e| e.to_string())?;
                Ok(m.encode(&d))
            }
        }
    }
}
