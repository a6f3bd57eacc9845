//! The codec and the assembler from Python: `Spec`, `Instruction`, `Operand`, `Program`,
//! and the module-level functions that use the bundled spec.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use isa_cli::codec::Codec;
use isa_cli::text::{Located, TextFile};
use isa_gen::model::interp::Decoded;
use isa_gen::model::{Model, Role, TypeId, TypeKind};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};

use crate::{error, AsmError, DecodeError, IsaError, SpecError};

/// A spec as the bindings use it: the codec the `isa` command uses for it, and its
/// model (the facts an `Instruction` reports).
pub(crate) struct SpecData {
    pub codec: Codec,
    pub model: &'static Model,
    /// Where it came from: `bundled`, or the paths it was loaded from.
    pub origin: String,
}

impl SpecData {
    pub fn is_bundled(&self) -> bool {
        matches!(self.codec, Codec::Bundled)
    }
}

/// The bundled spec, read once per process.
pub(crate) fn bundled() -> Arc<SpecData> {
    static BUNDLED: OnceLock<Arc<SpecData>> = OnceLock::new();
    BUNDLED
        .get_or_init(|| {
            let checked =
                isa_gen::Spec::from_texts(isa_spec::FILES.iter().map(|f| (f.name, f.text))).check();
            // The crate was generated from these files at build time: they check.
            let model = checked
                .model
                .expect("the bundled spec checks (it was generated from)");
            Arc::new(SpecData {
                codec: Codec::Bundled,
                model: Box::leak(Box::new(model)),
                origin: "bundled".into(),
            })
        })
        .clone()
}

/// An `AsmError` for located errors (at least one).
pub(crate) fn asm_error(py: Python<'_>, errors: Vec<Located>) -> PyErr {
    let (line, column, message) = errors.first().cloned().unwrap_or((1, 1, String::new()));
    let text = errors
        .iter()
        .map(|(l, c, m)| format!("{l}:{c}: {m}"))
        .collect::<Vec<_>>()
        .join("\n");
    let list = PyList::new(py, errors).map(Bound::into_any);
    let mut attrs = vec![
        ("line", line.into_pyobject(py).unwrap().into_any()),
        ("column", column.into_pyobject(py).unwrap().into_any()),
    ];
    if let Ok(list) = list {
        attrs.push(("errors", list));
    }
    let err = error::<AsmError>(py, text, &attrs);
    let _ = err.value(py).setattr("message", message);
    err
}

fn decode_error(
    py: Python<'_>,
    message: String,
    word: Option<u128>,
    offset: Option<usize>,
) -> PyErr {
    error::<DecodeError>(
        py,
        message,
        &[
            ("word", word.into_pyobject(py).unwrap().into_any()),
            ("offset", offset.into_pyobject(py).unwrap().into_any()),
        ],
    )
}

/// `address`, when it is where an instruction can be: 16-byte aligned.
pub(crate) fn aligned(address: u64) -> PyResult<u64> {
    if address.is_multiple_of(16) {
        Ok(address)
    } else {
        Err(IsaError::new_err(format!(
            "{address:#x}: instructions are 16-byte aligned"
        )))
    }
}

/// The records of `data`: 16-byte little-endian words, or a sequence of ints.
fn records(data: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    if let Ok(b) = data.cast::<PyBytes>() {
        return Ok(b.as_bytes().to_vec());
    }
    if let Ok(b) = data.cast::<pyo3::types::PyByteArray>() {
        return Ok(b.to_vec());
    }
    if data.is_instance_of::<pyo3::types::PyMemoryView>() {
        let b = data.py().get_type::<PyBytes>().call1((data,))?;
        return Ok(b.cast::<PyBytes>()?.as_bytes().to_vec());
    }
    let words: Vec<u128> = data.extract().map_err(|_| {
        IsaError::new_err("expected bytes (16-byte little-endian records) or a sequence of ints")
    })?;
    Ok(words.iter().flat_map(|w| w.to_le_bytes()).collect())
}

/// An instruction set: the bundled one (`Spec.bundled()`, which the module-level
/// functions use), or one read from spec files (`Spec.load(path)`).
#[pyclass(frozen, name = "Spec", module = "gpuisa")]
pub struct Spec {
    pub(crate) data: Arc<SpecData>,
}

#[pymethods]
impl Spec {
    /// The bundled spec (the generated codec: fast).
    #[staticmethod]
    fn bundled() -> Spec {
        Spec { data: bundled() }
    }

    /// The spec in a file or directory (its `*.isa` files), or a list of them, as
    /// `isa check` reads it; interpreted from its model. Raises `SpecError` when it
    /// cannot be read or has errors (the message lists them).
    #[staticmethod]
    fn load(py: Python<'_>, paths: &Bound<'_, PyAny>) -> PyResult<Spec> {
        let paths: Vec<PathBuf> = match paths.extract::<PathBuf>() {
            Ok(p) => vec![p],
            Err(_) => paths.extract().map_err(|_| {
                SpecError::new_err("expected a path (str or os.PathLike) or a list of them")
            })?,
        };
        if paths.is_empty() {
            return Err(SpecError::new_err("no spec path given"));
        }
        let origin = paths
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", ");
        let codec = py.detach(|| Codec::load(&paths)).map_err(|e| {
            // An I/O error names its path already; the spec's errors name their files.
            let msg = if e.starts_with(&origin) {
                e
            } else {
                format!("{origin}: {e}")
            };
            error::<SpecError>(py, msg, &[])
        })?;
        let Codec::Spec(a) = &codec else {
            return Err(SpecError::new_err("no spec path given"));
        };
        let model = a.model;
        Ok(Spec {
            data: Arc::new(SpecData {
                codec,
                model,
                origin,
            }),
        })
    }

    /// `"bundled"`, or the paths the spec was loaded from.
    #[getter]
    fn origin(&self) -> &str {
        &self.data.origin
    }

    /// The opcode names, in spec order.
    #[getter]
    fn opcodes(&self) -> Vec<String> {
        self.data
            .model
            .opcodes
            .iter()
            .map(|o| o.name.clone())
            .collect()
    }

    /// The instruction `word` holds, at `address` (which branch targets are relative
    /// to). Raises `DecodeError` with the reason when it does not decode.
    #[pyo3(signature = (word, address = 0))]
    fn decode(&self, py: Python<'_>, word: u128, address: u64) -> PyResult<Instruction> {
        Instruction::new(py, &self.data, word, aligned(address)?)
    }

    /// Every 16-byte little-endian record of `data` (`bytes`, `bytearray` or
    /// `memoryview`), the first at `address`, as a
    /// sequence of `Instruction`s (made as they are read). A record that does not
    /// decode raises `DecodeError` (with its `offset`), or is `None` when `strict` is
    /// false. The records are checked without the GIL.
    #[pyo3(signature = (data, address = 0, strict = true))]
    fn decode_bytes(
        &self,
        py: Python<'_>,
        data: &Bound<'_, PyAny>,
        address: u64,
        strict: bool,
    ) -> PyResult<Instructions> {
        let address = aligned(address)?;
        let owned;
        let bytes: &[u8] = match data.cast::<PyBytes>() {
            Ok(b) => b.as_bytes(),
            Err(_)
                if data.is_instance_of::<pyo3::types::PyByteArray>()
                    || data.is_instance_of::<pyo3::types::PyMemoryView>() =>
            {
                owned = records(data)?;
                &owned
            }
            Err(_) => {
                return Err(pyo3::exceptions::PyTypeError::new_err(
                    "expected bytes, bytearray or memoryview of 16-byte records",
                ))
            }
        };
        if !bytes.len().is_multiple_of(16) {
            return Err(decode_error(
                py,
                format!(
                    "{} bytes is not a whole number of 16-byte records",
                    bytes.len()
                ),
                None,
                Some(bytes.len() / 16 * 16),
            ));
        }
        let codec = &self.data.codec;
        let (words, valid, first_bad) = py.detach(|| {
            let mut words = Vec::with_capacity(bytes.len() / 16);
            let mut valid = Vec::with_capacity(bytes.len() / 16);
            let mut first_bad = None;
            for (k, c) in bytes.chunks_exact(16).enumerate() {
                let w = u128::from_le_bytes(c.try_into().expect("16 bytes"));
                let ok = match codec.validate(w) {
                    Ok(()) => true,
                    Err(e) => {
                        first_bad.get_or_insert((k, w, e));
                        if strict {
                            break;
                        }
                        false
                    }
                };
                words.push(w);
                valid.push(ok);
            }
            (words, valid, first_bad)
        });
        if let (true, Some((k, word, e))) = (strict, first_bad) {
            return Err(decode_error(
                py,
                format!("record {k} (offset {:#x}): {e}", 16 * k),
                Some(word),
                Some(16 * k),
            ));
        }
        Ok(Instructions {
            spec: self.data.clone(),
            words,
            valid,
            address,
        })
    }

    /// The word of one instruction line (`.word 0x…` gives a raw word) at `address`.
    /// Raises `AsmError` with the line, column and message.
    #[pyo3(signature = (text, address = 0))]
    fn encode(&self, py: Python<'_>, text: &str, address: u64) -> PyResult<u128> {
        self.data
            .codec
            .assemble(text, address, &|_| None)
            .map_err(|e| {
                let start = e.span.start.min(text.len());
                let column = text.get(..start).map_or(1, |s| s.chars().count() + 1);
                asm_error(py, vec![(1, column, e.message)])
            })
    }

    /// A whole program, as `isa asm` assembles it (labels, `/*addr*/` prefixes,
    /// `.global`, `.extern`). `object=True` keeps references to `.extern` symbols as
    /// relocations (`Program.to_object()` writes the ELF object); otherwise they are
    /// errors. Raises `AsmError` listing every error.
    #[pyo3(signature = (text, object = false))]
    fn assemble(&self, py: Python<'_>, text: &str, object: bool) -> PyResult<Program> {
        let file = TextFile::from_bytes(text.as_bytes());
        let codec = &self.data.codec;
        let res = py.detach(|| isa_cli::asm::assemble(codec, &file, object));
        match res {
            Ok(program) => Ok(Program {
                spec: self.data.clone(),
                inner: program,
            }),
            Err(errors) => Err(asm_error(py, errors)),
        }
    }

    /// The listing `isa disasm` prints for `data`: an ELF object (by its magic),
    /// 16-byte little-endian records, or a sequence of words, laid out from `address`.
    /// A word that does not decode, or whose text would not assemble back to it, is
    /// printed as `.word`; with `strict` it raises `DecodeError` instead, listing
    /// every problem.
    #[pyo3(signature = (data, address = 0, strict = false))]
    fn disassemble(
        &self,
        py: Python<'_>,
        data: &Bound<'_, PyAny>,
        address: u64,
        strict: bool,
    ) -> PyResult<String> {
        let bytes = records(data)?;
        let address = aligned(address)?;
        let (listing, _) = isa_cli::asm::listing(&bytes, address).map_err(|e| {
            decode_error(
                py,
                format!("not an object file we can read: {e}"),
                None,
                None,
            )
        })?;
        let (text, problems) = py.detach(|| listing.text(&self.data.codec));
        if strict && !problems.is_empty() {
            return Err(decode_error(py, problems.join("\n"), None, None));
        }
        Ok(text)
    }

    fn __repr__(&self) -> String {
        format!(
            "<gpuisa.Spec {} ({} opcodes)>",
            self.data.origin,
            self.data.model.opcodes.len()
        )
    }
}

/// The instructions of a buffer of records (`decode_bytes`): a sequence whose items
/// are made when read (`None` for a record that does not decode).
#[pyclass(frozen, sequence, name = "Instructions", module = "gpuisa")]
pub struct Instructions {
    spec: Arc<SpecData>,
    words: Vec<u128>,
    valid: Vec<bool>,
    address: u64,
}

impl Instructions {
    /// Item `k` (negative counts from the end).
    fn index(&self, k: isize) -> PyResult<Option<Instruction>> {
        let n = self.words.len() as isize;
        let at = if k < 0 { k + n } else { k };
        if !(0..n).contains(&at) {
            return Err(pyo3::exceptions::PyIndexError::new_err(format!(
                "index {k} out of range for {n} records"
            )));
        }
        Ok(self.item(at as usize))
    }

    fn item(&self, k: usize) -> Option<Instruction> {
        self.valid[k].then(|| Instruction {
            spec: self.spec.clone(),
            word: self.words[k],
            address: self.address.wrapping_add(16 * k as u64),
        })
    }
}

#[pymethods]
impl Instructions {
    fn __len__(&self) -> usize {
        self.words.len()
    }

    /// An item, or a list of them for a slice.
    fn __getitem__<'py>(
        &self,
        py: Python<'py>,
        k: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        if let Ok(slice) = k.cast::<pyo3::types::PySlice>() {
            let ix = slice.indices(self.words.len() as isize)?;
            let mut items = Vec::with_capacity(ix.slicelength);
            let mut at = ix.start;
            for _ in 0..ix.slicelength {
                items.push(self.item(at as usize));
                at += ix.step;
            }
            return Ok(PyList::new(py, items)?.into_any());
        }
        let k: isize = k.extract()?;
        Ok(self.index(k)?.into_pyobject(py)?.into_any())
    }

    fn __iter__(slf: Bound<'_, Self>) -> InstructionIter {
        InstructionIter {
            of: slf.unbind(),
            next: 0,
        }
    }

    /// Every record's word (also the ones that do not decode).
    #[getter]
    fn words(&self) -> Vec<u128> {
        self.words.clone()
    }

    fn __repr__(&self) -> String {
        let bad = self.valid.iter().filter(|v| !**v).count();
        format!(
            "<gpuisa.Instructions {} records at {:#x}, {bad} undecodable>",
            self.words.len(),
            self.address
        )
    }
}

/// Iterates over `Instructions`.
#[pyclass(name = "InstructionIter", module = "gpuisa")]
pub struct InstructionIter {
    of: Py<Instructions>,
    next: usize,
}

#[pymethods]
impl InstructionIter {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&mut self, py: Python<'_>) -> Option<Option<Instruction>> {
        let of = self.of.bind(py).get();
        if self.next >= of.words.len() {
            return None;
        }
        self.next += 1;
        Some(of.item(self.next - 1))
    }
}

/// One decoded instruction: its word and address, with the facts the spec states.
#[pyclass(frozen, name = "Instruction", module = "gpuisa")]
pub struct Instruction {
    spec: Arc<SpecData>,
    word: u128,
    address: u64,
}

impl Instruction {
    pub(crate) fn new(
        py: Python<'_>,
        spec: &Arc<SpecData>,
        word: u128,
        address: u64,
    ) -> PyResult<Instruction> {
        spec.codec
            .validate(word)
            .map_err(|e| decode_error(py, e, Some(word), None))?;
        Ok(Instruction {
            spec: spec.clone(),
            word,
            address,
        })
    }

    fn decoded(&self) -> PyResult<Decoded> {
        self.spec
            .model
            .decode(self.word)
            .map_err(|e| DecodeError::new_err(format!("{e:?}")))
    }

    fn text(&self) -> String {
        self.spec
            .codec
            .print(self.word, self.address, None)
            .unwrap_or_else(|e| format!(".word {:#034x} // {e}", self.word))
    }
}

/// The name of register `code` of register file (or register enumeration) `ty`.
fn reg_name(m: &Model, ty: TypeId, code: u128) -> String {
    match &m.ty(ty).kind {
        TypeKind::RegFile(r) => r
            .named
            .iter()
            .find(|(_, c)| *c == code)
            .map_or_else(|| format!("{}{code}", r.prefix), |(n, _)| n.clone()),
        TypeKind::Enum(vs) => vs
            .iter()
            .find(|v| v.code == code)
            .map_or_else(|| code.to_string(), |v| v.name.clone()),
        _ => code.to_string(),
    }
}

#[pymethods]
impl Instruction {
    /// The 128-bit word.
    #[getter]
    fn word(&self) -> u128 {
        self.word
    }

    /// Its address.
    #[getter]
    fn address(&self) -> u64 {
        self.address
    }

    /// The spec's opcode name (`BRA_U`).
    #[getter]
    fn opcode(&self) -> PyResult<String> {
        let d = self.decoded()?;
        Ok(self.spec.model.opcodes[d.opcode].name.clone())
    }

    /// The assembly mnemonic (`BRA`): the opcode's optype, as the assembler reads it.
    #[getter]
    fn mnemonic(&self) -> PyResult<String> {
        let d = self.decoded()?;
        Ok(isa_gen::asm::mnemonic(self.spec.model, d.opcode))
    }

    /// Every field by name (sub-fields dotted: `pg.not`): an enumeration's value name,
    /// a register's name, an immediate's value (negative when the type is signed).
    #[getter]
    fn fields<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = self.decoded()?;
        let m = self.spec.model;
        let op = &m.opcodes[d.opcode];
        let out = PyDict::new(py);
        for (f, &code) in op.fields.iter().zip(&d.values) {
            match &m.ty(f.ty).kind {
                TypeKind::Enum(_) | TypeKind::RegFile(_) => {
                    out.set_item(&f.name, reg_name(m, f.ty, code))?
                }
                _ if matches!(f.role, Role::Fixed(_)) => out.set_item(&f.name, code)?,
                _ => out.set_item(&f.name, m.signed_value(f, code))?,
            }
        }
        Ok(out)
    }

    /// Every field's code (the bits it holds), by name.
    #[getter]
    fn codes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = self.decoded()?;
        let op = &self.spec.model.opcodes[d.opcode];
        let out = PyDict::new(py);
        for (f, &code) in op.fields.iter().zip(&d.values) {
            out.set_item(&f.name, code)?;
        }
        Ok(out)
    }

    /// The register operands, as the instruction uses them (see `Operand`).
    #[getter]
    fn operands(&self) -> PyResult<Vec<Operand>> {
        let d = self.decoded()?;
        let m = self.spec.model;
        let regs = m.opcodes[d.opcode].reg_operands(m);
        Ok(m.reg_uses(&d)
            .into_iter()
            .map(|u| {
                let r = &regs[u.operand];
                Operand {
                    name: r.name.clone(),
                    file: m.ty(u.file).name.clone(),
                    registers: (0..u128::from(u.count))
                        .map(|k| reg_name(m, u.file, u.first + k))
                        .collect(),
                    access: u.access.name().to_string(),
                    reads: u.access.reads(),
                    writes: u.access.writes(),
                    guard: r.guard,
                    index: r.index,
                    constant: u.constant,
                }
            })
            .collect())
    }

    /// Its control flow: `none` (falls through), `branch`, `call`, `return`, `exit`, …
    #[getter]
    fn flow(&self) -> Option<&'static str> {
        self.spec
            .codec
            .facts(self.word, self.address)
            .map(|f| f.flow.name())
    }

    /// Whether its flow is conditional (it may also fall through).
    #[getter]
    fn conditional(&self) -> bool {
        self.spec
            .codec
            .facts(self.word, self.address)
            .is_some_and(|f| f.conditional)
    }

    /// The address its flow goes to, when the word says (None for an indirect jump).
    #[getter]
    fn target(&self) -> Option<u64> {
        self.spec
            .codec
            .facts(self.word, self.address)
            .and_then(|f| f.target)
    }

    fn __str__(&self) -> String {
        self.text()
    }

    fn __repr__(&self) -> String {
        format!(
            "<gpuisa.Instruction {:#06x}: {}>",
            self.address,
            self.text()
        )
    }

    fn __int__(&self) -> u128 {
        self.word
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<Instruction>().is_ok_and(|o| {
            let o = o.get();
            o.word == self.word && o.address == self.address && Arc::ptr_eq(&o.spec, &self.spec)
        })
    }

    fn __hash__(&self) -> u64 {
        (self.word as u64) ^ ((self.word >> 64) as u64).rotate_left(17) ^ self.address
    }
}

/// A register operand of an instruction.
#[pyclass(frozen, get_all, name = "Operand", module = "gpuisa")]
pub struct Operand {
    /// The field or operand word it comes from (`rd`, `pg`, `UPR`).
    name: String,
    /// Its register file or register enumeration (`Reg`, `UReg`, `Pred`).
    file: String,
    /// The registers it covers, first to last (`["R8", "R9"]` for a pair).
    registers: Vec<String>,
    /// `read`, `write`, `read-write` (tied: the same register), `conditional write` or
    /// `read, conditional write` (written only where the guard predicate holds).
    access: String,
    /// Whether the instruction reads it.
    reads: bool,
    /// Whether the instruction may write it.
    writes: bool,
    /// Whether it is the guard predicate.
    guard: bool,
    /// Whether it is the register part of an address operand (`C[vb][ura]`).
    index: bool,
    /// A named constant register (`RZ`, `PT`): it holds no state.
    constant: bool,
}

#[pymethods]
impl Operand {
    fn __repr__(&self) -> String {
        format!(
            "<gpuisa.Operand {} {} {}>",
            self.name,
            self.access,
            self.registers.join(":")
        )
    }
}

/// An assembled program: its words laid out from `base`, labels, and the symbols and
/// relocations an object file keeps.
#[pyclass(frozen, name = "Program", module = "gpuisa")]
pub struct Program {
    pub(crate) spec: Arc<SpecData>,
    pub(crate) inner: isa_cli::asm::Program,
}

#[pymethods]
impl Program {
    /// The address of the first instruction.
    #[getter]
    fn base(&self) -> u64 {
        self.inner.base
    }

    /// Each instruction's word, in address order.
    #[getter]
    fn words(&self) -> Vec<u128> {
        self.inner.words.iter().map(|&(_, w)| w).collect()
    }

    /// Each instruction's address.
    #[getter]
    fn addresses(&self) -> Vec<u64> {
        self.inner.words.iter().map(|&(a, _)| a).collect()
    }

    /// Labels and their addresses.
    #[getter]
    fn labels<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (name, addr) in &self.inner.labels {
            d.set_item(name, addr)?;
        }
        Ok(d)
    }

    /// The labels declared `.global`, sorted.
    #[getter]
    fn globals(&self) -> Vec<String> {
        let mut g: Vec<String> = self.inner.globals.iter().cloned().collect();
        g.sort();
        g
    }

    /// The symbols declared `.extern`, in order.
    #[getter]
    fn externs(&self) -> Vec<String> {
        self.inner.externs.clone()
    }

    /// What an object file relocates: dicts of `address`, `operand` (which address
    /// operand), `absolute`, `symbol`, `addend`.
    #[getter]
    fn relocations<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        self.inner
            .refs
            .iter()
            .map(|r| {
                let d = PyDict::new(py);
                d.set_item("address", r.addr)?;
                d.set_item("operand", r.operand)?;
                d.set_item("absolute", r.absolute)?;
                d.set_item("symbol", &r.symbol)?;
                d.set_item("addend", r.addend)?;
                Ok(d)
            })
            .collect()
    }

    /// The instructions, decoded.
    fn instructions(&self, py: Python<'_>) -> PyResult<Vec<Instruction>> {
        self.inner
            .words
            .iter()
            .map(|&(a, w)| Instruction::new(py, &self.spec, w, a))
            .collect()
    }

    /// The words as 16-byte little-endian records (what `isa asm -o FILE` writes).
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        let bytes: Vec<u8> = self
            .inner
            .words
            .iter()
            .flat_map(|(_, w)| w.to_le_bytes())
            .collect();
        PyBytes::new(py, &bytes)
    }

    /// The program as an ELF relocatable object (what `isa asm -o FILE.o` writes).
    fn to_object<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let bytes = isa_object::write(&self.inner.object())
            .map_err(|e| IsaError::new_err(e.to_string()))?;
        Ok(PyBytes::new(py, &bytes))
    }

    fn __len__(&self) -> usize {
        self.inner.words.len()
    }

    fn __repr__(&self) -> String {
        format!(
            "<gpuisa.Program {} instructions at {:#x}, {} labels>",
            self.inner.words.len(),
            self.inner.base,
            self.inner.labels.len()
        )
    }
}

/// `Spec.bundled().decode(word, address)`.
#[pyfunction]
#[pyo3(signature = (word, address = 0))]
fn decode(py: Python<'_>, word: u128, address: u64) -> PyResult<Instruction> {
    Spec::bundled().decode(py, word, address)
}

/// `Spec.bundled().decode_bytes(data, address, strict)`.
#[pyfunction]
#[pyo3(signature = (data, address = 0, strict = true))]
fn decode_bytes(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    address: u64,
    strict: bool,
) -> PyResult<Instructions> {
    Spec::bundled().decode_bytes(py, data, address, strict)
}

/// `Spec.bundled().encode(text, address)`.
#[pyfunction]
#[pyo3(signature = (text, address = 0))]
fn encode(py: Python<'_>, text: &str, address: u64) -> PyResult<u128> {
    Spec::bundled().encode(py, text, address)
}

/// `Spec.bundled().assemble(text, object)`.
#[pyfunction]
#[pyo3(signature = (text, object = false))]
fn assemble(py: Python<'_>, text: &str, object: bool) -> PyResult<Program> {
    Spec::bundled().assemble(py, text, object)
}

/// `Spec.bundled().disassemble(data, address, strict)`.
#[pyfunction]
#[pyo3(signature = (data, address = 0, strict = false))]
fn disassemble(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    address: u64,
    strict: bool,
) -> PyResult<String> {
    Spec::bundled().disassemble(py, data, address, strict)
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Spec>()?;
    m.add_class::<Instruction>()?;
    m.add_class::<Instructions>()?;
    m.add_class::<Operand>()?;
    m.add_class::<Program>()?;
    m.add_function(wrap_pyfunction!(decode, m)?)?;
    m.add_function(wrap_pyfunction!(decode_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(encode, m)?)?;
    m.add_function(wrap_pyfunction!(assemble, m)?)?;
    m.add_function(wrap_pyfunction!(disassemble, m)?)?;
    Ok(())
}
