//! The simulator from Python: `Machine`, `Step`, `RunResult`. The state a machine
//! starts from, and the one it reports, are the state file of `isa run` (read and
//! written by `isa_cli::run`); a step is the line `isa run --trace` writes for it.

use isa::{BReg, Pred, Reg, UPred, UReg};
use isa_cli::asm::Program as AsmProgram;
use isa_cli::codec::Codec;
use isa_cli::text::TextFile;
use isa_gen::asm::program;
use isa_runtime::{Changes, Fault as SimFault, FaultKind, Observer, Program, Stop, Warp, LANES};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString};

use crate::spec::{asm_error, bundled, Instruction};
use crate::{error, Fault, IsaError, StateError};

/// What `isa run` runs by default at most.
const DEFAULT_MAX_STEPS: u64 = isa_cli::run::DEFAULT_MAX_STEPS;

fn json<'py>(py: Python<'py>) -> PyResult<Bound<'py, PyModule>> {
    py.import("json")
}

/// The program a `Machine` runs: assembly text, a `Program`, 16-byte records or a
/// sequence of words. With the addresses of the text's lines, for faults.
fn load_program(
    py: Python<'_>,
    program: &Bound<'_, PyAny>,
    base: Option<u64>,
) -> PyResult<(Program, Vec<(u64, usize)>)> {
    let words: Vec<(u64, u128)>;
    let mut lines = Vec::new();
    let placed =
        program.is_instance_of::<PyString>() || program.cast::<crate::spec::Program>().is_ok();
    if placed && base.is_some() {
        return Err(IsaError::new_err(
            "`base` lays out words or records; assembly text (and a Program) is placed by its own `/*addr*/` prefix",
        ));
    }
    let base = crate::spec::aligned(base.unwrap_or(0))?;
    if let Ok(text) = program.cast::<PyString>() {
        let text: String = text.extract()?;
        let text = text.as_str();
        let file = TextFile::from_bytes(text.as_bytes());
        let p: AsmProgram = py
            .detach(|| isa_cli::asm::assemble(&Codec::Bundled, &file, false))
            .map_err(|errors| asm_error(py, errors))?;
        lines = program::layout(text, 0)
            .map(|l| l.lines.iter().map(|x| (x.3, x.0)).collect())
            .unwrap_or_default();
        words = p.words;
    } else if let Ok(p) = program.cast::<crate::spec::Program>() {
        let p = p.get();
        if !p.spec.is_bundled() {
            return Err(IsaError::new_err(
                "the simulator runs the bundled spec: assemble the program with it",
            ));
        }
        words = p.inner.words.clone();
    } else {
        let raw: Vec<u128> = if let Ok(b) = program.cast::<PyBytes>() {
            let b = b.as_bytes();
            if !b.len().is_multiple_of(16) {
                return Err(IsaError::new_err(format!(
                    "{} bytes is not a whole number of 16-byte records",
                    b.len()
                )));
            }
            b.chunks_exact(16)
                .map(|c| u128::from_le_bytes(c.try_into().expect("16 bytes")))
                .collect()
        } else {
            program.extract().map_err(|_| {
                IsaError::new_err(
                    "a program is assembly text, a gpuisa.Program, bytes of 16-byte records or a sequence of ints",
                )
            })?
        };
        words = raw
            .iter()
            .enumerate()
            .map(|(k, &w)| (base.wrapping_add(16 * k as u64), w))
            .collect();
    }
    let Some(&(first, _)) = words.first() else {
        return Err(IsaError::new_err("the program has no instruction"));
    };
    let words: Vec<u128> = words.iter().map(|&(_, w)| w).collect();
    Ok((Program::from_words(first, &words), lines))
}

/// Loads `state` (a dict with the state file's keys, or its JSON text) into `warp`.
fn load_state(py: Python<'_>, state: &Bound<'_, PyAny>, warp: &mut Warp) -> PyResult<u16> {
    let (text, is_text) = match state.cast::<PyString>() {
        Ok(s) => (s.extract::<String>()?, true),
        Err(_) => {
            if !state.is_instance_of::<PyDict>() {
                return Err(StateError::new_err(
                    "a state is a dict (the state file's keys) or its JSON text",
                ));
            }
            let dumped = json(py)?.call_method1("dumps", (state,)).map_err(|e| {
                error::<StateError>(py, format!("the state is not JSON data: {e}"), &[])
            })?;
            (dumped.extract::<String>()?, false)
        }
    };
    isa_cli::run::load_state(&text, warp).map_err(|e| {
        // `line:col: $.path: message`; the line and column mean nothing for a dict.
        let mut parts = e.splitn(3, ':');
        let (_, _, rest) = (parts.next(), parts.next(), parts.next().unwrap_or(&e));
        let rest = rest.trim_start();
        let path = rest
            .strip_prefix('$')
            .and_then(|r| r.split_once(": "))
            .map(|(p, _)| format!("${p}"));
        let message = if is_text { e.clone() } else { rest.to_string() };
        error::<StateError>(
            py,
            message,
            &[("path", path.into_pyobject(py).unwrap().into_any())],
        )
    })
}

/// A fault as `isa run` words it, without the file name: `line: runtime fault: …`.
fn fault_text(f: &SimFault, lines: &[(u64, usize)]) -> String {
    match lines.iter().find(|(a, _)| *a == f.pc) {
        Some((_, l)) => format!("{l}: runtime fault: {f}"),
        None => format!("runtime fault: {f}"),
    }
}

/// A fault as the `Fault` exception: `kind` (`StepLimit`, `Livelock`, …), `pc`,
/// `line` of the program text and `message`.
fn fault_error(py: Python<'_>, f: &SimFault, lines: &[(u64, usize)]) -> PyErr {
    let line = lines.iter().find(|(a, _)| *a == f.pc).map(|&(_, l)| l);
    error::<Fault>(
        py,
        f.to_string(),
        &[
            (
                "kind",
                fault_kind(&f.kind).into_pyobject(py).unwrap().into_any(),
            ),
            ("pc", f.pc.into_pyobject(py).unwrap().into_any()),
            ("line", line.into_pyobject(py).unwrap().into_any()),
        ],
    )
}

/// The variant's name (`StepLimit`, `Livelock`, …).
fn fault_kind(k: &FaultKind) -> String {
    let d = format!("{k:?}");
    d.split(|c: char| !c.is_alphanumeric())
        .next()
        .unwrap_or_default()
        .to_string()
}

/// One executed instruction, as `isa run --trace` writes it.
#[pyclass(frozen, name = "Step", module = "gpuisa")]
pub struct Step {
    /// Its number in the run, from 1.
    #[pyo3(get)]
    number: u64,
    /// Its address.
    #[pyo3(get)]
    pc: u64,
    /// The cycle counter when it began.
    #[pyo3(get)]
    cycle: u64,
    /// The lanes that executed it.
    #[pyo3(get)]
    active_mask: u32,
    /// The valid lanes when it began.
    #[pyo3(get)]
    valid_mask: u32,
    /// The executing lanes whose guard predicate held.
    #[pyo3(get)]
    guard: u32,
    /// Its disassembly.
    #[pyo3(get)]
    text: String,
    word: u128,
    /// The trace line (JSON).
    record: String,
    /// The event line, when it reported one.
    event: Option<String>,
}

#[pymethods]
impl Step {
    /// The instruction.
    #[getter]
    fn instruction(&self, py: Python<'_>) -> PyResult<Instruction> {
        Instruction::new(py, &bundled(), self.word, self.pc)
    }

    /// The trace line of the step, as a dict (`step`, `pc`, `cycle`, `active_mask`,
    /// `text`, `writes`), exactly as `isa run --trace` writes it.
    #[getter]
    fn record<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json(py)?.call_method1("loads", (&self.record,))
    }

    /// What it wrote or changed, keyed and valued as in the state file (`gpr`,
    /// `pred`, `ur`, `upred`, `breg`, `sreg`, the masks, `rpc`).
    #[getter]
    fn writes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.record(py)?.get_item("writes")
    }

    /// The event it reported (`TRAP`, `SLEEP`, …) as a dict, or None.
    #[getter]
    fn event<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.event
            .as_ref()
            .map(|e| json(py)?.call_method1("loads", (e,)))
            .transpose()
    }

    fn __repr__(&self) -> String {
        format!(
            "<gpuisa.Step {} pc={:#06x} lanes={:#010x}: {}>",
            self.number, self.pc, self.active_mask, self.text
        )
    }
}

/// Builds the `Step` of each executed instruction.
struct Recorder<'a> {
    changes: Changes,
    /// The disassembly of each slot of the program (as `isa run --trace` prints it).
    texts: &'a [String],
    base: u64,
    steps: Vec<Step>,
}

impl Recorder<'_> {
    fn record(&mut self, s: &isa_runtime::Step<'_>, w: &Warp) -> Step {
        let slot = (s.pc.wrapping_sub(self.base) / 16) as usize;
        let text = self.texts.get(slot).cloned().unwrap_or_default();
        let changes = self.changes.update(s, w);
        let mut record = String::new();
        isa_cli::trace::step_record(&mut record, s, &text, changes, w);
        Step {
            number: s.number,
            pc: s.pc,
            cycle: s.cycle,
            active_mask: s.active_mask,
            valid_mask: s.valid_mask,
            guard: s.guard,
            text,
            word: s.instruction.encode(),
            record,
            event: s.event.map(isa_cli::state_json::event_json),
        }
    }
}

impl Observer for Recorder<'_> {
    fn step(&mut self, s: &isa_runtime::Step<'_>, w: &Warp) {
        let step = self.record(s, w);
        self.steps.push(step);
    }
}

/// Calls a Python observer with each step; its first exception stops the run.
struct PyObserver<'py, 'a> {
    py: Python<'py>,
    callback: Bound<'py, PyAny>,
    recorder: Recorder<'a>,
    error: Option<PyErr>,
}

impl Observer for PyObserver<'_, '_> {
    fn step(&mut self, s: &isa_runtime::Step<'_>, w: &Warp) {
        if self.error.is_some() {
            return;
        }
        let step = self.recorder.record(s, w);
        let res = Bound::new(self.py, step).and_then(|st| self.callback.call1((st,)));
        if let Err(e) = res {
            self.error = Some(e);
        }
    }

    fn stop(&self) -> bool {
        self.error.is_some()
    }
}

/// How a run ended.
#[pyclass(frozen, get_all, name = "RunResult", module = "gpuisa")]
pub struct RunResult {
    /// Every valid lane exited.
    exited: bool,
    /// The steps run in all (earlier runs of the machine included).
    steps: u64,
    /// The fault that stopped the run (a `gpuisa.Fault`, not raised), or None.
    fault: Option<Py<PyAny>>,
}

#[pymethods]
impl RunResult {
    fn __bool__(&self) -> bool {
        self.exited
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        match &self.fault {
            None => format!("<gpuisa.RunResult exited after {} steps>", self.steps),
            Some(f) => format!(
                "<gpuisa.RunResult fault after {} steps: {}>",
                self.steps,
                f.bind(py).str().map(|s| s.to_string()).unwrap_or_default()
            ),
        }
    }
}

fn reg(n: u32) -> PyResult<Reg> {
    u8::try_from(n)
        .ok()
        .and_then(Reg::new)
        .ok_or_else(|| IsaError::new_err(format!("R{n}: no such register (R0..R254)")))
}

fn pred(n: u32) -> PyResult<Pred> {
    u8::try_from(n)
        .ok()
        .and_then(Pred::new)
        .ok_or_else(|| IsaError::new_err(format!("P{n}: no such predicate (P0..P6)")))
}

fn ureg(n: u32) -> PyResult<UReg> {
    u8::try_from(n)
        .ok()
        .and_then(UReg::new)
        .ok_or_else(|| IsaError::new_err(format!("UR{n}: no such uniform register (UR0..UR62)")))
}

fn upred(n: u32) -> PyResult<UPred> {
    u8::try_from(n)
        .ok()
        .and_then(UPred::new)
        .ok_or_else(|| IsaError::new_err(format!("UP{n}: no such uniform predicate (UP0..UP6)")))
}

fn lane(l: usize) -> PyResult<usize> {
    if l < LANES {
        Ok(l)
    } else {
        Err(IsaError::new_err(format!(
            "lane {l}: lanes are 0..{}",
            LANES - 1
        )))
    }
}

/// A value per lane: one value for every lane, or a sequence of 32.
fn per_lane<T: Copy + for<'a, 'py> FromPyObject<'a, 'py>>(
    v: &Bound<'_, PyAny>,
) -> PyResult<[T; LANES]> {
    if let Ok(x) = v.extract::<T>() {
        return Ok([x; LANES]);
    }
    let xs: Vec<T> = v
        .extract()
        .map_err(|_| {
            IsaError::new_err(format!(
                "expected one value for every lane or a sequence of {LANES}, each a 32-bit unsigned integer (or a bool for a predicate)"
            ))
        })?;
    xs.try_into().map_err(|xs: Vec<T>| {
        IsaError::new_err(format!("{} values: one per lane is {LANES}", xs.len()))
    })
}

/// A warp of 32 lanes running a program of the bundled spec on the simulator.
///
/// `Machine(program, state=None, *, base=None)`: `program` is assembly text (as
/// `isa run` reads it, placed by its `/*addr*/` prefix or at 0), a `Program`, `bytes`
/// of 16-byte little-endian records or a sequence of words (laid out from `base`, 0
/// by default, 16-byte aligned). `state` is the initial state: a dict with the keys of
/// an `isa run --state` file (`gpr`, `pred`, `ur`, `upred`, `breg`, `sreg`, `cmem`,
/// `valid_mask`), or that JSON text. Then `step()`, `run()`, `state()` and the
/// register accessors.
#[pyclass(name = "Machine", module = "gpuisa")]
pub struct Machine {
    m: isa_runtime::Machine,
    /// The B registers the initial state set (the final state lists them).
    given_breg: u16,
    /// (address, line) of each instruction of a program given as text.
    lines: Vec<(u64, usize)>,
    /// What the steps so far changed (for `step()`'s records).
    changes: Option<Changes>,
    /// The disassembly of each slot of the program, for the steps' records.
    texts: Vec<String>,
    /// The fault the last run or step stopped with, as `isa run` words it (without
    /// the file name): `state()` reports it.
    fault: Option<String>,
}

#[pymethods]
impl Machine {
    /// A warp of 32 lanes about to run `program` from its first instruction: assembly
    /// text (as `isa run` reads it), a `Program`, bytes of 16-byte records or a
    /// sequence of words (laid out from `base`). `state` is the initial state: a dict
    /// with the keys of `isa run --state` files, or that JSON text.
    #[new]
    #[pyo3(signature = (program, state = None, *, base = None))]
    fn new(
        py: Python<'_>,
        program: &Bound<'_, PyAny>,
        state: Option<&Bound<'_, PyAny>>,
        base: Option<u64>,
    ) -> PyResult<Machine> {
        let (prog, lines) = load_program(py, program, base)?;
        let mut warp = Warp::new(u32::MAX);
        let given_breg = match state {
            Some(s) if !s.is_none() => load_state(py, s, &mut warp)?,
            _ => 0,
        };
        let base = prog.base();
        let texts = (0..prog.len() as u64)
            .map(|k| prog.text_at(base + 16 * k).unwrap_or_default())
            .collect();
        Ok(Machine {
            m: isa_runtime::Machine::new(warp, prog),
            given_breg,
            lines,
            changes: None,
            texts,
            fault: None,
        })
    }

    /// Runs one instruction and returns its `Step`, or None when every valid lane has
    /// exited. Raises `Fault` on a runtime fault (the state is the one before it).
    /// Livelocks are found by `run()`, which watches the whole run.
    fn step(&mut self, py: Python<'_>) -> PyResult<Option<Step>> {
        let changes = self
            .changes
            .take()
            .unwrap_or_else(|| Changes::new(&self.m.warp));
        let mut rec = Recorder {
            changes,
            texts: &self.texts,
            base: self.m.program.base(),
            steps: Vec::new(),
        };
        let res = self.m.step_observed(&mut rec);
        self.changes = Some(rec.changes);
        match res {
            Ok(_) => {
                self.fault = None;
                Ok(rec.steps.pop())
            }
            Err(f) => {
                self.fault = Some(fault_text(&f, &self.lines));
                Err(fault_error(py, &f, &self.lines))
            }
        }
    }

    /// Runs until every valid lane has exited, a fault, or `max_steps` instructions in
    /// all, as `isa run` does (livelocks included). `observer`, when given, is called
    /// with each `Step`; an exception it raises stops the run and is raised here. The
    /// machine is running meanwhile: its methods raise `RuntimeError` inside the
    /// observer (what the step wrote is in `step.writes`; a `step()` loop reads any
    /// state between steps). Without an observer the GIL is released while it runs.
    #[pyo3(signature = (max_steps = DEFAULT_MAX_STEPS, observer = None))]
    fn run(
        &mut self,
        py: Python<'_>,
        max_steps: u64,
        observer: Option<Bound<'_, PyAny>>,
    ) -> PyResult<RunResult> {
        let stop = match observer {
            None => {
                let m = &mut self.m;
                py.detach(|| m.run(max_steps))
            }
            Some(callback) => {
                let changes = self
                    .changes
                    .take()
                    .unwrap_or_else(|| Changes::new(&self.m.warp));
                let mut obs = PyObserver {
                    py,
                    callback,
                    recorder: Recorder {
                        changes,
                        texts: &self.texts,
                        base: self.m.program.base(),
                        steps: Vec::new(),
                    },
                    error: None,
                };
                let stop = self.m.run_observed(max_steps, &mut obs);
                self.changes = Some(obs.recorder.changes);
                if let Some(e) = obs.error {
                    return Err(e);
                }
                stop
            }
        };
        // A later `step()` starts its change tracking from the state now.
        if self.changes.is_some() {
            self.changes = Some(Changes::new(&self.m.warp));
        }
        self.fault = match &stop {
            Stop::Exited => None,
            Stop::Fault(f) => Some(fault_text(f, &self.lines)),
        };
        let fault = match &stop {
            Stop::Exited => None,
            Stop::Fault(f) => Some(fault_error(py, f, &self.lines).into_value(py).into_any()),
        };
        Ok(RunResult {
            exited: matches!(stop, Stop::Exited),
            steps: self.m.steps,
            fault,
        })
    }

    /// The state, as `isa run` prints it (the state file's keys plus `exited`,
    /// `steps`, `cycles`, `pc`, the masks and `events`, and `fault` after a run or step
    /// that faulted: `LINE: runtime fault: …`, `isa run`'s text without the file name),
    /// as a dict.
    fn state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let text = isa_cli::run::render(&self.m, self.given_breg, self.fault.as_deref());
        json(py)?.call_method1("loads", (text,))
    }

    /// Whether every valid lane has exited.
    #[getter]
    fn exited(&self) -> bool {
        self.m.warp.exited()
    }

    /// The instructions run so far.
    #[getter]
    fn steps(&self) -> u64 {
        self.m.steps
    }

    /// The address the active lanes run next.
    #[getter]
    fn pc(&self) -> u64 {
        self.m.warp.active_pc
    }

    /// The cycle counter.
    #[getter]
    fn cycles(&self) -> u64 {
        self.m.warp.cycle
    }

    /// `ValidMask`: the lanes alive (not exited).
    #[getter]
    fn valid_mask(&self) -> u32 {
        self.m.warp.valid_mask
    }

    #[setter]
    fn set_valid_mask(&mut self, v: u32) {
        self.m.warp.valid_mask = v;
    }

    /// `ActiveMask`: the lanes that run the next instruction.
    #[getter]
    fn active_mask(&self) -> u32 {
        self.m.warp.active_mask
    }

    #[setter]
    fn set_active_mask(&mut self, v: u32) {
        self.m.warp.active_mask = v;
    }

    /// `YieldMask`: the lanes that yielded.
    #[getter]
    fn yield_mask(&self) -> u32 {
        self.m.warp.yield_mask
    }

    #[setter]
    fn set_yield_mask(&mut self, v: u32) {
        self.m.warp.yield_mask = v;
    }

    /// `SleepMask`: the lanes asleep (NANOSLEEP).
    #[getter]
    fn sleep_mask(&self) -> u32 {
        self.m.warp.sleep_mask
    }

    #[setter]
    fn set_sleep_mask(&mut self, v: u32) {
        self.m.warp.sleep_mask = v;
    }

    /// `SwitchMask`.
    #[getter]
    fn switch_mask(&self) -> u32 {
        self.m.warp.switch_mask
    }

    #[setter]
    fn set_switch_mask(&mut self, v: u32) {
        self.m.warp.switch_mask = v;
    }

    /// R`n` of one lane, or of every lane (a list of 32) when `lane` is None.
    #[pyo3(signature = (n, lane = None))]
    fn reg<'py>(
        &self,
        py: Python<'py>,
        n: u32,
        lane: Option<usize>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let r = reg(n)?;
        match lane {
            Some(l) => Ok(self
                .m
                .warp
                .reg(r, self::lane(l)?)
                .into_pyobject(py)?
                .into_any()),
            None => Ok(PyList::new(py, self.m.warp.reg_lanes(r))?.into_any()),
        }
    }

    /// Sets R`n`: `value` is one value for every lane (or for `lane`), or 32 values.
    #[pyo3(signature = (n, value, lane = None))]
    fn set_reg(&mut self, n: u32, value: &Bound<'_, PyAny>, lane: Option<usize>) -> PyResult<()> {
        let r = reg(n)?;
        match lane {
            Some(l) => {
                let l = self::lane(l)?;
                self.m.warp.set_reg(r, l, value.extract()?);
            }
            None => {
                let vs: [u32; LANES] = per_lane(value)?;
                self.m.warp.set_reg_masked(r, u32::MAX, &vs);
            }
        }
        Ok(())
    }

    /// P`n` of one lane, or of every lane (a list of 32 bools).
    #[pyo3(signature = (n, lane = None))]
    fn pred<'py>(
        &self,
        py: Python<'py>,
        n: u32,
        lane: Option<usize>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let p = pred(n)?;
        match lane {
            Some(l) => Ok(self
                .m
                .warp
                .pred(p, self::lane(l)?)
                .into_pyobject(py)?
                .to_owned()
                .into_any()),
            None => {
                let v: Vec<bool> = (0..LANES).map(|l| self.m.warp.pred(p, l)).collect();
                Ok(PyList::new(py, v)?.into_any())
            }
        }
    }

    /// Sets P`n`: one bool for every lane (or for `lane`), or 32 of them.
    #[pyo3(signature = (n, value, lane = None))]
    fn set_pred(&mut self, n: u32, value: &Bound<'_, PyAny>, lane: Option<usize>) -> PyResult<()> {
        let p = pred(n)?;
        match lane {
            Some(l) => {
                let l = self::lane(l)?;
                self.m.warp.set_pred(p, l, value.extract()?);
            }
            None => {
                let vs: [bool; LANES] = per_lane(value)?;
                let bits = vs
                    .iter()
                    .enumerate()
                    .fold(0u32, |m, (l, &b)| m | (u32::from(b) << l));
                self.m.warp.set_pred_lanes(p, u32::MAX, bits);
            }
        }
        Ok(())
    }

    /// Uniform register UR`n`.
    fn ureg(&self, n: u32) -> PyResult<u32> {
        Ok(self.m.warp.ureg(ureg(n)?))
    }

    /// Sets uniform register UR`n`.
    fn set_ureg(&mut self, n: u32, value: u32) -> PyResult<()> {
        self.m.warp.set_ureg(ureg(n)?, value);
        Ok(())
    }

    /// Uniform predicate UP`n`.
    fn upred(&self, n: u32) -> PyResult<bool> {
        Ok(self.m.warp.upred(upred(n)?))
    }

    /// Sets uniform predicate UP`n`.
    fn set_upred(&mut self, n: u32, value: bool) -> PyResult<()> {
        self.m.warp.set_upred(upred(n)?, value);
        Ok(())
    }

    /// Convergence barrier register B`n`.
    fn breg(&self, n: usize) -> PyResult<u32> {
        BReg::ALL
            .get(n)
            .map(|&b| self.m.warp.breg[b as usize])
            .ok_or_else(|| IsaError::new_err(format!("B{n}: no such register (B0..B15)")))
    }

    /// Sets convergence barrier register B`n` (the final state then lists it).
    fn set_breg(&mut self, n: usize, value: u32) -> PyResult<()> {
        let b = *BReg::ALL
            .get(n)
            .ok_or_else(|| IsaError::new_err(format!("B{n}: no such register (B0..B15)")))?;
        self.m.warp.breg[b as usize] = value;
        self.given_breg |= 1 << n;
        Ok(())
    }

    /// The 32-bit word of constant bank `bank` at byte address `addr` (4-aligned).
    fn cmem(&self, bank: u8, addr: u32) -> PyResult<u32> {
        if !addr.is_multiple_of(4) {
            return Err(IsaError::new_err(format!("{addr:#x}: not 4-byte aligned")));
        }
        self.m
            .warp
            .cmem
            .read(bank, i64::from(addr), 4)
            .map(|v| v as u32)
            .ok_or_else(|| IsaError::new_err(format!("c[{bank:#x}][{addr:#x}]: outside the bank")))
    }

    /// Sets the 32-bit word of constant bank `bank` at byte address `addr` (4-aligned).
    fn set_cmem(&mut self, bank: u8, addr: u32, value: u32) -> PyResult<()> {
        if !addr.is_multiple_of(4) {
            return Err(IsaError::new_err(format!("{addr:#x}: not 4-byte aligned")));
        }
        if self.m.warp.cmem.write_u32(bank, addr, value) {
            Ok(())
        } else {
            Err(IsaError::new_err(format!(
                "c[{bank:#x}][{addr:#x}]: outside the bank"
            )))
        }
    }

    fn __repr__(&self) -> String {
        format!(
            "<gpuisa.Machine pc={:#06x} steps={} valid={:#010x} active={:#010x}{}>",
            self.m.warp.active_pc,
            self.m.steps,
            self.m.warp.valid_mask,
            self.m.warp.active_mask,
            if self.m.warp.exited() { " exited" } else { "" }
        )
    }
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Machine>()?;
    m.add_class::<Step>()?;
    m.add_class::<RunResult>()?;
    m.add("DEFAULT_MAX_STEPS", DEFAULT_MAX_STEPS)?;
    Ok(())
}
