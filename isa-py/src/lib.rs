//! `gpuisa`: the toolchain from Python (PyO3). A thin layer: every operation is the
//! Rust code the `isa` command runs (`isa_cli`'s assembler, state file and trace, the
//! generated codec for the bundled spec, the model for any other), so what Python
//! sees is what `isa asm`, `isa disasm` and `isa run` print.
//!
//! - `spec`: `Spec` (bundled or loaded from files), `Instruction`, `Operand`,
//!   `Program`, and the module-level codec functions on the bundled spec.
//! - `sim`: `Machine` (the simulator), `Step` (what an observer is told) and
//!   `RunResult`.
//!
//! Errors are Python exceptions deriving from `gpuisa.IsaError` (a `ValueError`), with
//! the location as attributes; a runtime fault is `gpuisa.Fault` (a `RuntimeError`).
//! A Rust panic reaches Python as PyO3's `PanicException`, never an abort.

use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;

mod sim;
mod spec;

create_exception!(
    gpuisa,
    IsaError,
    PyValueError,
    "Base of the toolchain's errors on bad input."
);
create_exception!(
    gpuisa,
    DecodeError,
    IsaError,
    "A word (or record) that does not decode; `word` and `offset` say which."
);
create_exception!(
    gpuisa,
    AsmError,
    IsaError,
    "Assembly text that does not assemble: `line`, `column` (1-based) and `message` of the \
     first error, `errors` every one as (line, column, message)."
);
create_exception!(
    gpuisa,
    SpecError,
    IsaError,
    "A spec that cannot be read or has errors (the message lists them)."
);
create_exception!(
    gpuisa,
    StateError,
    IsaError,
    "A state (dict or JSON text) the simulator cannot load: `path` is the JSON path."
);
create_exception!(
    gpuisa,
    Fault,
    PyRuntimeError,
    "A runtime fault of the simulator: `kind`, `pc`, `line` (of the program text, or None) \
     and `message`; the machine keeps the state it reached."
);

/// An exception of type `T` with `message` and the given attributes set.
fn error<T: pyo3::PyTypeInfo>(
    py: Python<'_>,
    message: String,
    attrs: &[(&str, Bound<'_, PyAny>)],
) -> PyErr {
    let err = PyErr::from_type(py.get_type::<T>(), (message.clone(),));
    let value = err.value(py);
    let _ = value.setattr("message", message);
    for (k, v) in attrs {
        let _ = value.setattr(*k, v);
    }
    err
}

/// The toolchain of the GPU ISA: encode, decode, assemble, disassemble (the bundled
/// spec, or any spec loaded with `Spec.load`) and simulate (the bundled spec).
#[pymodule]
fn gpuisa(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("IsaError", py.get_type::<IsaError>())?;
    m.add("DecodeError", py.get_type::<DecodeError>())?;
    m.add("AsmError", py.get_type::<AsmError>())?;
    m.add("SpecError", py.get_type::<SpecError>())?;
    m.add("StateError", py.get_type::<StateError>())?;
    m.add("Fault", py.get_type::<Fault>())?;
    spec::register(m)?;
    sim::register(m)?;
    Ok(())
}
