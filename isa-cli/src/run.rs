//! `isa run PROGRAM.s [--state STATE.json] [--max-steps N] [--trace FILE] [--timeline
//! FILE.svg]`: assemble a program, run one warp on the simulator (isa-runtime) and print
//! the final state as JSON; optionally write the run's trace (trace.rs) and picture
//! (timeline.rs).
//!
//! The program starts at its first instruction: address 0, or the address its first
//! `/*…*/` prefix gives (as `isa asm` lays it out).
//!
//! Exit status: 0 every valid lane exited; 1 bad input (the program does not
//! assemble, the state file is malformed, a file cannot be read or written, a bad
//! option); 2 a runtime fault (the state reached is still printed).
//!
//! The state file (every key optional; numbers are JSON integers or `"0x…"` strings;
//! a scalar for a per-lane register means "this value in every lane"):
//!
//! ```json
//! { "valid_mask": 4294967295,
//!   "gpr": {"R0": [0, 1, 2, …32 values], "R5": 7},
//!   "pred": {"P0": [true, false, …], "P1": true},
//!   "ur": {"UR4": 16}, "upred": {"UP0": true}, "breg": {"B0": 0},
//!   "sreg": {"SR_CTAID.X": 3, "0x1000": 5},
//!   "cmem": {"0": {"0x160": 5, "0x164": 6}} }
//! ```
//!
//! `sreg` keys are special-register names, or `"0x…"` addresses of the GETREG/SETREG
//! register space (≥ 0x100). `cmem` maps a bank to 4-byte-aligned byte addresses of
//! 32-bit words. The output has the same schema and adds `exited`, `steps`, `pc`,
//! `active_mask` (and `yield_mask`, `sleep_mask`, `switch_mask`, `cycles`, `events`,
//! `fault`); keys that only the output has are accepted and ignored in a state file,
//! so an output can be run again. A malformed state file is reported as
//! `file:line:col: $.json.path: message`.

use std::collections::BTreeSet;
use std::fmt::{self, Write as _};
use std::fs::File;
use std::io::{BufWriter, Write as _};
use std::path::PathBuf;
use std::process::ExitCode;

use isa::{Pred, Reg, SReg, UPred, UReg};
use isa_gen::asm::program;
use isa_runtime::{FaultKind, Machine, Program, Stop, Warp, CMEM_BANK_SIZE, LANES};
use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};

use crate::asm;
use crate::num;
use crate::state_json::{event_json, gpr_json, hex32, pc_json, pred_json, q, sreg_json};
use crate::text::TextFile;
use crate::timeline::Timeline;
use crate::trace::Trace;

/// Default `--max-steps`.
pub const DEFAULT_MAX_STEPS: u64 = 10_000_000;

/// Run a program on the simulator: one warp of 32 lanes; the final state as JSON
#[derive(clap::Args)]
#[command(after_help = RUN_HELP)]
pub struct RunArgs {
    /// The program (assembly text, as `isa asm` reads it)
    #[arg(value_name = "PROGRAM.s")]
    pub program: PathBuf,
    /// The initial state (JSON; see below)
    #[arg(long, value_name = "STATE.json")]
    pub state: Option<PathBuf>,
    /// Stop with a fault after this many instructions
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_STEPS, value_parser = parse_steps)]
    pub max_steps: u64,
    /// Write every executed instruction to FILE as JSON Lines (see below)
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
    /// Draw the run to FILE.svg: a row per lane, a column per step
    #[arg(long, value_name = "FILE.svg")]
    pub timeline: Option<PathBuf>,
}

fn parse_steps(s: &str) -> Result<u64, String> {
    num::int(s).ok_or_else(|| "not a number of steps".to_string())
}

const RUN_HELP: &str = "\
The program runs from its first instruction (address 0, or its first /*…*/ prefix) until
every valid lane has exited. The state file and the output share one schema (every key
optional; numbers as JSON integers or \"0x…\" strings; a scalar for a per-lane register
means that value in every lane):

  { \"valid_mask\": 4294967295,
    \"gpr\": {\"R0\": [0, 1, 2, …32 values], \"R5\": 7},
    \"pred\": {\"P0\": [true, false, …], \"P1\": true},
    \"ur\": {\"UR4\": 16}, \"upred\": {\"UP0\": true}, \"breg\": {\"B0\": 0},
    \"sreg\": {\"SR_CTAID.X\": 3, \"0x1000\": 5},
    \"cmem\": {\"0\": {\"0x160\": 5, \"0x164\": 6}} }

The output adds exited, steps, pc, active_mask, yield_mask, sleep_mask, switch_mask,
cycles, events and fault. The whole format: docs/state-format.md.

--trace writes a JSON object per executed instruction, one a line: step, pc, cycle,
active_mask (the lanes that executed it), text (as the disassembler prints it) and writes
(the state it wrote or changed, keyed and valued as in the state file, plus rpc); events and the
end of the run (exited, steps, cycles, pc, fault) have lines of their own:

  {\"step\": 1, \"pc\": \"0x0000\", \"cycle\": 0, \"active_mask\": \"0xffffffff\",
   \"text\": \"S2R R1, SR_LANEID\", \"writes\": {\"gpr\": {\"R1\": [0, 1, 2, …]}}}

--timeline draws each lane's state at each step (executed, predicated off, waiting,
yielded, sleeping, exited) with the instructions on top and reconvergence marked; it
wraps every 100 steps and keeps the first and last 2000 steps of a longer run.

A run that comes back to a state it was in (registers, masks, PCs, B registers, timer)
would repeat forever: it stops with a livelock fault that names the cycle's instructions.

Examples:
  isa run prog.s
  isa run prog.s --state in.json --max-steps 100000 > out.json
  isa run prog.s --trace run.jsonl --timeline run.svg

Exit status: 0 every valid lane exited, 1 bad input (the program does not assemble, a
malformed state file as file:line:col: $.json.path: message, a bad option, a trace or
timeline file that cannot be written), 2 a runtime fault (step limit, jump outside the
program, deadlock, livelock, …; the state reached is still printed).";

/// Runs the command; errors are printed here.
pub fn run(args: &RunArgs) -> ExitCode {
    match run_inner(args) {
        Ok(code) => code,
        Err(msg) => {
            errln!("{msg}");
            ExitCode::from(1)
        }
    }
}

fn run_inner(args: &RunArgs) -> Result<ExitCode, String> {
    let path = args.program.display().to_string();
    let state_path = args.state.as_ref().map(|p| p.display().to_string());
    let max_steps = args.max_steps;
    let file = TextFile::read(&path)?;
    let src = &file.text;

    // Assemble (the same assembler as `isa asm`).
    let assembled = asm::assemble_file(&crate::codec::Codec::Bundled, &path, &file, false)
        .map_err(|errs| errs.join("\n"))?;
    let Some(&(base, _)) = assembled.words.first() else {
        return Err(format!("{path}: the program has no instruction"));
    };
    let words: Vec<u128> = assembled.words.iter().map(|&(_, w)| w).collect();
    let lines: Vec<(u64, usize)> = program::layout(src, 0)
        .map(|l| l.lines.iter().map(|x| (x.3, x.0)).collect())
        .unwrap_or_default();

    // The initial state.
    let mut warp = Warp::new(u32::MAX);
    let mut given_breg = 0u16;
    if let Some(sp) = &state_path {
        let file = TextFile::read(sp)?;
        if let Some((line, column, msg)) = file.invalid_utf8().into_iter().next() {
            return Err(format!("{sp}:{line}:{column}: {msg}"));
        }
        given_breg = load_state(&file.text, &mut warp).map_err(|e| format!("{sp}:{e}"))?;
    }

    let mut m = Machine::new(warp, Program::from_words(base, &words));
    // The output files are created before the run, so a path that cannot be written
    // is found at once.
    let create = |p: &PathBuf, what: &str| {
        File::create(p).map_err(|e| format!("{}: cannot write the {what}: {e}", p.display()))
    };
    let mut trace = match &args.trace {
        Some(p) => Some(Trace::new(BufWriter::new(create(p, "trace")?), &m)),
        None => None,
    };
    let timeline_file = match &args.timeline {
        Some(p) => Some(create(p, "timeline")?),
        None => None,
    };
    let mut timeline = timeline_file.as_ref().map(|_| Timeline::new(&m));
    let stop = match (&mut trace, &mut timeline) {
        (None, None) => m.run(max_steps),
        (Some(t), None) => m.run_observed(max_steps, t),
        (None, Some(tl)) => m.run_observed(max_steps, tl),
        (Some(t), Some(tl)) => m.run_observed(max_steps, &mut (t, tl)),
    };
    let fault = match &stop {
        Stop::Exited => None,
        Stop::Fault(f) => {
            let line = lines
                .iter()
                .find(|(a, _)| *a == f.pc)
                .map(|(_, l)| format!("{l}:"))
                .unwrap_or_default();
            Some(format!("{path}:{line} runtime fault: {f}"))
        }
    };
    if let (Some(t), Some(p)) = (trace, &args.trace) {
        t.finish(&m, fault.as_deref())
            .map_err(|e| format!("{}: cannot write the trace: {e}", p.display()))?;
    }
    if let (Some(tl), Some(mut f), Some(p)) = (timeline, timeline_file, &args.timeline) {
        let (summary, cycle) = match &stop {
            Stop::Exited => (format!("{} steps; every lane exited", m.steps), None),
            Stop::Fault(f) => (
                format!("{} steps; runtime fault: {f}", m.steps),
                match f.kind {
                    FaultKind::Livelock { period, .. } => Some(period),
                    _ => None,
                },
            ),
        };
        f.write_all(tl.svg(&path, &summary, cycle).as_bytes())
            .and_then(|()| f.flush())
            .map_err(|e| format!("{}: cannot write the timeline: {e}", p.display()))?;
    }
    std::io::stdout()
        .write_all(render(&m, given_breg, fault.as_deref()).as_bytes())
        .map_err(|e| format!("isa run: {e}"))?;
    match fault {
        None => Ok(ExitCode::SUCCESS),
        Some(msg) => {
            errln!("{msg}");
            Ok(ExitCode::from(2))
        }
    }
}

// ---------------------------------------------------------------------------------
// State file
// ---------------------------------------------------------------------------------

/// A semantic error found while reading the state; serde_json adds the position.
fn bad<E: de::Error>(path: &str, msg: impl fmt::Display) -> E {
    E::custom(format!("{path}: {msg}"))
}

/// Loads a state file into `warp`. Returns the B registers it set. The error is
/// `line:col: message`.
pub fn load_state(text: &str, warp: &mut Warp) -> Result<u16, String> {
    let mut st = Loaded {
        warp,
        given_breg: 0,
        valid: None,
    };
    let mut de = serde_json::Deserializer::from_str(text);
    let res = TopSeed(&mut st)
        .deserialize(&mut de)
        .and_then(|()| de.end());
    match res {
        Ok(()) => {
            if let Some(v) = st.valid {
                st.warp.valid_mask = v;
                st.warp.active_mask = v;
            }
            Ok(st.given_breg)
        }
        Err(e) => {
            let full = e.to_string();
            let msg = match full.rfind(" at line ") {
                Some(i) if e.line() != 0 => &full[..i],
                _ => &full,
            };
            Err(format!("{}:{}: {msg}", e.line().max(1), e.column().max(1)))
        }
    }
}

struct Loaded<'a> {
    warp: &'a mut Warp,
    given_breg: u16,
    valid: Option<u32>,
}

/// Keys that only the output has: accepted and ignored.
const OUTPUT_ONLY: &[&str] = &[
    "exited",
    "steps",
    "pc",
    "active_mask",
    "yield_mask",
    "sleep_mask",
    "switch_mask",
    "cycles",
    "events",
    "fault",
];

struct TopSeed<'a, 'b>(&'a mut Loaded<'b>);

impl<'de> DeserializeSeed<'de> for TopSeed<'_, '_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

/// Reports any JSON value of the wrong kind with its path.
macro_rules! wrong_kinds {
    ($path:expr, $what:expr) => {
        fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
            Err(bad($path(&self), format!("expected {}, found {v}", $what)))
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
            Err(bad($path(&self), format!("expected {}, found {v}", $what)))
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Err(bad($path(&self), format!("expected {}, found null", $what)))
        }
    };
}

fn top_path<T>(_: &T) -> &'static str {
    "$"
}

impl<'de> Visitor<'de> for TopSeed<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }
    wrong_kinds!(top_path, "an object");
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<(), E> {
        Err(bad("$", format!("expected an object, found {v}")))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<(), E> {
        Err(bad("$", format!("expected an object, found {v}")))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        Err(bad("$", format!("expected an object, found {v:?}")))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<(), A::Error> {
        Err(bad("$", "expected an object, found an array"))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let st = self.0;
        while let Some(key) = map.next_key::<String>()? {
            let path = format!("$.{key}");
            match key.as_str() {
                "valid_mask" => {
                    st.valid = Some(map.next_value_seed(Num { path, bits: 32 })? as u32);
                }
                "gpr" | "pred" | "ur" | "upred" | "breg" | "sreg" => {
                    map.next_value_seed(RegMap {
                        st: &mut *st,
                        kind: key.clone(),
                        path,
                    })?;
                }
                "cmem" => map.next_value_seed(Cmem {
                    st: &mut *st,
                    path,
                    bank: None,
                })?,
                k if OUTPUT_ONLY.contains(&k) => {
                    map.next_value::<de::IgnoredAny>()?;
                }
                k => {
                    return Err(bad(
                        "$",
                        format!(
                            "unknown key {k:?} (expected valid_mask, gpr, pred, ur, upred, breg, sreg or cmem)"
                        ),
                    ))
                }
            }
        }
        Ok(())
    }
}

/// A JSON object key path segment: `.name` or `["name"]`.
fn key_path(base: &str, key: &str) -> String {
    let ident = key.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if ident {
        format!("{base}.{key}")
    } else {
        format!("{base}[{key:?}]")
    }
}

/// An unsigned number of `bits` bits (negative integers down to `-2^(bits-1)` wrap).
struct Num {
    path: String,
    bits: u32,
}

impl Num {
    fn check<E: de::Error>(&self, v: u64) -> Result<u64, E> {
        if self.bits < 64 && v >> self.bits != 0 {
            Err(bad(
                &self.path,
                format!("{v:#x} does not fit in {} bits", self.bits),
            ))
        } else {
            Ok(v)
        }
    }
}

fn num_path(n: &Num) -> &str {
    &n.path
}

impl<'de> DeserializeSeed<'de> for Num {
    type Value = u64;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<u64, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Num {
    type Value = u64;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an integer or a \"0x…\" string")
    }
    wrong_kinds!(num_path, "an integer or a \"0x…\" string");
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<u64, E> {
        self.check(v)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<u64, E> {
        if v >= 0 {
            return self.check(v as u64);
        }
        if self.bits < 64 && v < -(1i64 << (self.bits - 1)) {
            return Err(bad(
                &self.path,
                format!("{v} does not fit in {} bits", self.bits),
            ));
        }
        let mask = if self.bits >= 64 {
            u64::MAX
        } else {
            (1u64 << self.bits) - 1
        };
        Ok(v as u64 & mask)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<u64, E> {
        match num::hex::<u64>(v) {
            Some(n) => self.check(n),
            None => Err(bad(
                &self.path,
                format!("expected an integer or a \"0x…\" string, found {v:?}"),
            )),
        }
    }
    fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<u64, A::Error> {
        Err(bad(
            &self.path,
            "expected an integer or a \"0x…\" string, found an array",
        ))
    }
    fn visit_map<A: MapAccess<'de>>(self, _: A) -> Result<u64, A::Error> {
        Err(bad(
            &self.path,
            "expected an integer or a \"0x…\" string, found an object",
        ))
    }
}

/// A predicate value: `true`/`false` (or 0/1).
struct Bool {
    path: String,
}

fn bool_path(b: &Bool) -> &str {
    &b.path
}

impl<'de> DeserializeSeed<'de> for Bool {
    type Value = bool;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Bool {
    type Value = bool;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("true or false")
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<bool, E> {
        Ok(v)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<bool, E> {
        match v {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(bad(
                &self.path,
                format!("expected true or false, found {v}"),
            )),
        }
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<bool, E> {
        Err(bad(
            &self.path,
            format!("expected true or false, found {v}"),
        ))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<bool, E> {
        Err(bad(
            bool_path(&self),
            format!("expected true or false, found {v}"),
        ))
    }
    fn visit_unit<E: de::Error>(self) -> Result<bool, E> {
        Err(bad(&self.path, "expected true or false, found null"))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<bool, E> {
        Err(bad(
            &self.path,
            format!("expected true or false, found {v:?}"),
        ))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<bool, A::Error> {
        Err(bad(&self.path, "expected true or false, found an array"))
    }
    fn visit_map<A: MapAccess<'de>>(self, _: A) -> Result<bool, A::Error> {
        Err(bad(&self.path, "expected true or false, found an object"))
    }
}

/// A per-lane value: a scalar (every lane) or an array of exactly 32.
enum Lanes {
    Num(String),
    Bool(String),
}

/// Per-lane values, as u32s (predicates: 0/1).
type LaneValues = [u32; LANES];

impl<'de> DeserializeSeed<'de> for Lanes {
    type Value = LaneValues;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<LaneValues, D::Error> {
        d.deserialize_any(self)
    }
}

impl Lanes {
    fn path(&self) -> &str {
        match self {
            Lanes::Num(p) | Lanes::Bool(p) => p,
        }
    }
    fn what(&self) -> &'static str {
        match self {
            Lanes::Num(_) => "an integer, a \"0x…\" string or an array of 32 of them",
            Lanes::Bool(_) => "true, false or an array of 32 of them",
        }
    }
    fn scalar<E: de::Error>(
        self,
        f: impl FnOnce(Num) -> Result<u64, E>,
        g: impl FnOnce(Bool) -> Result<bool, E>,
    ) -> Result<LaneValues, E> {
        match self {
            Lanes::Num(path) => Ok([f(Num { path, bits: 32 })? as u32; LANES]),
            Lanes::Bool(path) => Ok([u32::from(g(Bool { path })?); LANES]),
        }
    }
}

impl<'de> Visitor<'de> for Lanes {
    type Value = LaneValues;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.what())
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<LaneValues, E> {
        self.scalar(|n| n.visit_bool(v), |b| b.visit_bool(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<LaneValues, E> {
        self.scalar(|n| n.visit_u64(v), |b| b.visit_u64(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<LaneValues, E> {
        self.scalar(|n| n.visit_i64(v), |b| b.visit_i64(v))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<LaneValues, E> {
        Err(bad(
            self.path(),
            format!("expected {}, found {v}", self.what()),
        ))
    }
    fn visit_unit<E: de::Error>(self) -> Result<LaneValues, E> {
        Err(bad(
            self.path(),
            format!("expected {}, found null", self.what()),
        ))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<LaneValues, E> {
        self.scalar(|n| n.visit_str(v), |b| b.visit_str(v))
    }
    fn visit_map<A: MapAccess<'de>>(self, _: A) -> Result<LaneValues, A::Error> {
        Err(bad(
            self.path(),
            format!("expected {}, found an object", self.what()),
        ))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<LaneValues, A::Error> {
        let mut out = [0u32; LANES];
        let mut n = 0;
        loop {
            let p = format!("{}[{n}]", self.path());
            let v = match &self {
                Lanes::Num(_) => seq
                    .next_element_seed(Num { path: p, bits: 32 })?
                    .map(|v| v as u32),
                Lanes::Bool(_) => seq.next_element_seed(Bool { path: p })?.map(u32::from),
            };
            let Some(v) = v else { break };
            if n == LANES {
                return Err(bad(
                    self.path(),
                    format!("expected {LANES} values (one per lane), found more"),
                ));
            }
            out[n] = v;
            n += 1;
        }
        if n != LANES {
            return Err(bad(
                self.path(),
                format!("expected {LANES} values (one per lane), found {n}"),
            ));
        }
        Ok(out)
    }
}

/// `{"R0": …}` and friends: register name → value.
struct RegMap<'a, 'b> {
    st: &'a mut Loaded<'b>,
    kind: String,
    path: String,
}

impl<'de> DeserializeSeed<'de> for RegMap<'_, '_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

fn regmap_path<'x>(r: &'x RegMap<'_, '_>) -> &'x str {
    &r.path
}

fn not_an_object<E: de::Error>(path: &str, found: impl fmt::Display) -> E {
    bad(path, format!("expected an object, found {found}"))
}

impl<'de> Visitor<'de> for RegMap<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object")
    }
    wrong_kinds!(regmap_path, "an object");
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<(), E> {
        Err(not_an_object(&self.path, v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<(), E> {
        Err(not_an_object(&self.path, v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        Err(not_an_object(&self.path, format!("{v:?}")))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<(), A::Error> {
        Err(not_an_object(&self.path, "an array"))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let w = &mut *self.st.warp;
        while let Some(key) = map.next_key::<String>()? {
            let path = key_path(&self.path, &key);
            match self.kind.as_str() {
                "gpr" => {
                    let r = key
                        .parse::<Reg>()
                        .ok()
                        .filter(|r| !r.is_constant())
                        .ok_or_else(|| {
                            bad::<A::Error>(&path, format!("{key:?} is not a register R0..R254"))
                        })?;
                    let v = map.next_value_seed(Lanes::Num(path))?;
                    for (l, x) in v.iter().enumerate() {
                        w.set_reg(r, l, *x);
                    }
                }
                "pred" => {
                    let p = key
                        .parse::<Pred>()
                        .ok()
                        .filter(|p| !p.is_constant())
                        .ok_or_else(|| {
                            bad::<A::Error>(&path, format!("{key:?} is not a predicate P0..P6"))
                        })?;
                    let v = map.next_value_seed(Lanes::Bool(path))?;
                    let mask = v
                        .iter()
                        .enumerate()
                        .fold(0u32, |m, (l, x)| m | (x & 1) << l);
                    w.set_pred_lanes(p, u32::MAX, mask);
                }
                "ur" => {
                    let r = key
                        .parse::<UReg>()
                        .ok()
                        .filter(|r| !r.is_constant())
                        .ok_or_else(|| {
                            bad::<A::Error>(
                                &path,
                                format!("{key:?} is not a uniform register UR0..UR62"),
                            )
                        })?;
                    let v = map.next_value_seed(Num { path, bits: 32 })?;
                    w.set_ureg(r, v as u32);
                }
                "upred" => {
                    let p = key
                        .parse::<UPred>()
                        .ok()
                        .filter(|p| !p.is_constant())
                        .ok_or_else(|| {
                            bad::<A::Error>(
                                &path,
                                format!("{key:?} is not a uniform predicate UP0..UP6"),
                            )
                        })?;
                    let v = map.next_value_seed(Bool { path })?;
                    w.set_upred(p, v);
                }
                "breg" => {
                    let b = key
                        .strip_prefix('B')
                        .and_then(|n| n.parse::<usize>().ok())
                        .filter(|&n| n < 16 && key == format!("B{n}"))
                        .ok_or_else(|| {
                            bad::<A::Error>(&path, format!("{key:?} is not a B register B0..B15"))
                        })?;
                    let v = map.next_value_seed(Num { path, bits: 32 })?;
                    w.breg[b] = v as u32;
                    self.st.given_breg |= 1 << b;
                }
                _ => {
                    // sreg: a name, or an address of the register space.
                    if let Some(addr) = num::hex::<u32>(&key) {
                        if addr < 0x100 {
                            return Err(bad(
                                &path,
                                format!("address {addr:#x} is a special register: give it by name"),
                            ));
                        }
                        let v = map.next_value_seed(Num { path, bits: 32 })?;
                        w.setreg(addr, v as u32);
                        continue;
                    }
                    let s = key.parse::<SReg>().map_err(|_| {
                        bad::<A::Error>(&path, format!("{key:?} is not a special register name or a \"0x…\" register address"))
                    })?;
                    let v = map.next_value_seed(Num {
                        path: path.clone(),
                        bits: 32,
                    })?;
                    if !w.set_sreg(s, v as u32) {
                        return Err(bad(
                            &path,
                            format!("{key} is computed by the simulator and cannot be set"),
                        ));
                    }
                }
            }
        }
        Ok(())
    }
}

/// `"cmem": {"bank": {"addr": value}}`.
struct Cmem<'a, 'b> {
    st: &'a mut Loaded<'b>,
    path: String,
    bank: Option<u8>,
}

impl<'de> DeserializeSeed<'de> for Cmem<'_, '_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

fn cmem_path<'x>(c: &'x Cmem<'_, '_>) -> &'x str {
    &c.path
}

impl<'de> Visitor<'de> for Cmem<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object")
    }
    wrong_kinds!(cmem_path, "an object");
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<(), E> {
        Err(not_an_object(&self.path, v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<(), E> {
        Err(not_an_object(&self.path, v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        Err(not_an_object(&self.path, format!("{v:?}")))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<(), A::Error> {
        Err(not_an_object(&self.path, "an array"))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            let path = key_path(&self.path, &key);
            let n = num::int::<u64>(&key);
            match self.bank {
                None => {
                    let bank = n.filter(|&b| b < 32).ok_or_else(|| {
                        bad::<A::Error>(&path, format!("{key:?} is not a constant bank 0..31"))
                    })?;
                    map.next_value_seed(Cmem {
                        st: &mut *self.st,
                        path,
                        bank: Some(bank as u8),
                    })?;
                }
                Some(bank) => {
                    let addr = n
                        .filter(|&a| a % 4 == 0 && a + 4 <= CMEM_BANK_SIZE as u64)
                        .ok_or_else(|| {
                            bad::<A::Error>(
                                &path,
                                format!("{key:?} is not a 4-byte-aligned address below {CMEM_BANK_SIZE:#x}"),
                            )
                        })?;
                    let v = map.next_value_seed(Num { path, bits: 32 })?;
                    self.st.warp.cmem.write_u32(bank, addr as u32, v as u32);
                }
            }
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------------
// Output
// ---------------------------------------------------------------------------------

/// The final state as JSON (the state-file schema plus the run's results).
pub fn render(m: &Machine, given_breg: u16, fault: Option<&str>) -> String {
    let w = &m.warp;
    let mut o = String::new();
    let _ = writeln!(o, "{{");
    let _ = writeln!(o, "  \"exited\": {},", w.exited());
    let _ = writeln!(o, "  \"steps\": {},", m.steps);
    let _ = writeln!(o, "  \"cycles\": {},", w.cycle);
    let _ = writeln!(o, "  \"pc\": {},", pc_json(w.active_pc));
    let _ = writeln!(o, "  \"valid_mask\": {},", hex32(w.valid_mask));
    let _ = writeln!(o, "  \"active_mask\": {},", hex32(w.active_mask));
    let _ = writeln!(o, "  \"yield_mask\": {},", hex32(w.yield_mask));
    let _ = writeln!(o, "  \"sleep_mask\": {},", hex32(w.sleep_mask));
    let _ = writeln!(o, "  \"switch_mask\": {},", hex32(w.switch_mask));
    let section = |o: &mut String, name: &str, entries: Vec<(String, String)>| {
        if entries.is_empty() {
            let _ = writeln!(o, "  \"{name}\": {{}},");
            return;
        }
        let _ = writeln!(o, "  \"{name}\": {{");
        let n = entries.len();
        for (k, (key, val)) in entries.into_iter().enumerate() {
            let _ = writeln!(
                o,
                "    {}: {val}{}",
                q(&key),
                if k + 1 < n { "," } else { "" }
            );
        }
        let _ = writeln!(o, "  }},");
    };
    let gpr = w
        .gpr_touched()
        .map(|n| (format!("R{n}"), gpr_json(w, n)))
        .collect();
    section(&mut o, "gpr", gpr);
    let pred = w
        .pred_touched()
        .map(|n| {
            let p = Pred::new(n as u8).expect("P0..P6");
            (format!("P{n}"), pred_json(w, p))
        })
        .collect();
    section(&mut o, "pred", pred);
    let ur = w
        .ureg_touched()
        .map(|n| (format!("UR{n}"), w.ureg_n(n).to_string()))
        .collect();
    section(&mut o, "ur", ur);
    let upred = w
        .upred_touched()
        .map(|n| {
            let p = UPred::new(n as u8).expect("UP0..UP6");
            (format!("UP{n}"), w.upred(p).to_string())
        })
        .collect();
    section(&mut o, "upred", upred);
    let breg = (0..16)
        .filter(|&b| w.breg[b] != 0 || given_breg >> b & 1 == 1)
        .map(|b| (format!("B{b}"), w.breg[b].to_string()))
        .collect();
    section(&mut o, "breg", breg);
    let mut sreg: Vec<(String, String)> = w
        .sreg_touched()
        .map(|s| (s.name().to_string(), sreg_json(w, s)))
        .collect();
    sreg.extend(
        w.regspace
            .iter()
            .map(|(a, v)| (format!("{a:#x}"), v.to_string())),
    );
    section(&mut o, "sreg", sreg);
    // cmem: bank → address → word.
    let words = w.cmem.words();
    let banks: BTreeSet<u8> = words.iter().map(|x| x.0).collect();
    let cmem = banks
        .iter()
        .map(|&b| {
            let inner: Vec<String> = words
                .iter()
                .filter(|x| x.0 == b)
                .map(|&(_, a, v)| format!("\"{a:#x}\": {v}"))
                .collect();
            (b.to_string(), format!("{{{}}}", inner.join(", ")))
        })
        .collect();
    section(&mut o, "cmem", cmem);
    let events: Vec<String> = m
        .events
        .iter()
        .map(|e| format!("    {}", event_json(e)))
        .collect();
    if events.is_empty() {
        let _ = write!(o, "  \"events\": []");
    } else {
        let _ = write!(o, "  \"events\": [\n{}\n  ]", events.join(",\n"));
    }
    match fault {
        Some(f) => {
            let _ = write!(o, ",\n  \"fault\": {}\n}}\n", q(f));
        }
        None => {
            let _ = write!(o, "\n}}\n");
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A state file using every key.
    const FULL: &str = r#"{
  "valid_mask": "0x0000ffff",
  "gpr": {"R0": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
                 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, -1],
          "R5": "0x7", "R254": 4294967295},
  "pred": {"P0": [true, false, true, false, true, false, true, false,
                  true, false, true, false, true, false, true, false,
                  true, false, true, false, true, false, true, false,
                  true, false, true, false, true, false, true, false], "P6": true},
  "ur": {"UR4": 16, "UR62": "0xffffffff"}, "upred": {"UP0": true},
  "breg": {"B0": 0, "B15": 3},
  "sreg": {"SR_CTAID.X": 3, "0x1000": 5},
  "cmem": {"0": {"0x160": 5, "0x164": 6}, "3": {"0x0": 1}},
  "exited": false, "events": []
}"#;

    /// Loads `text`: Ok, or an error located inside the text. Never a panic.
    fn load_checked(text: &str, what: &str) -> Result<(Warp, u16), String> {
        let mut warp = Warp::new(u32::MAX);
        let res =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| load_state(text, &mut warp)))
                .unwrap_or_else(|_| panic!("load_state panicked on {what}:\n{text}"));
        match res {
            Ok(breg) => Ok((warp, breg)),
            Err(e) => {
                let mut parts = e.splitn(3, ':');
                let line: usize = parts.next().and_then(|x| x.parse().ok()).unwrap_or(0);
                let col: usize = parts.next().and_then(|x| x.parse().ok()).unwrap_or(0);
                let lines = text.split('\n').count();
                assert!(
                    (1..=lines).contains(&line) && col >= 1,
                    "{what}: error not located in the file: {e}\n{text}"
                );
                Err(e)
            }
        }
    }

    #[test]
    fn the_full_state_loads() {
        let (w, breg) = load_checked(FULL, "the full state").unwrap();
        assert_eq!(w.valid_mask, 0xffff);
        assert_eq!(w.reg_n(0, 31), u32::MAX);
        assert_eq!(w.reg_n(254, 3), u32::MAX);
        assert_eq!(w.ureg_n(62), u32::MAX);
        assert_eq!(breg, 1 | 1 << 15);
        assert_eq!(w.breg[15], 3);
    }

    /// Every byte of a valid state file deleted, or replaced by one of a few
    /// characters that matter to JSON: each result loads, or fails with an error
    /// at a line and column of the file; none panics. A state that loads is printed
    /// and read back to the same state.
    #[test]
    fn every_one_byte_edit_of_a_state_file_is_loaded_or_located() {
        let replacements = [
            "", "\"", "{", "}", "[", "]", ",", ":", "-", "0", "9", "x", " ", "é",
        ];
        let (mut loaded, mut failed) = (0, 0);
        for (i, _) in FULL.char_indices() {
            let next = FULL[i..].chars().next().map_or(1, char::len_utf8);
            for r in replacements {
                let text = format!("{}{r}{}", &FULL[..i], &FULL[i + next..]);
                let what = format!("byte {i} replaced by {r:?}");
                match load_checked(&text, &what) {
                    Ok((warp, breg)) => {
                        loaded += 1;
                        let m = Machine::new(warp, Program::from_words(0, &[]));
                        let out = render(&m, breg, None);
                        let (again, breg2) = load_checked(&out, &format!("output of {what}"))
                            .unwrap_or_else(|e| panic!("{what}: output does not load: {e}"));
                        let m2 = Machine::new(again, Program::from_words(0, &[]));
                        assert_eq!(render(&m2, breg2, None), out, "{what}");
                    }
                    Err(_) => failed += 1,
                }
            }
        }
        // Both outcomes are exercised (e.g. a digit changed loads, a brace removed fails).
        assert!(
            loaded > 500 && failed > 2000,
            "{loaded} loaded, {failed} failed"
        );
    }
}
