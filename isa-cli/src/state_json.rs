//! The state file's values as JSON text, shared by `isa run`'s final state (run.rs)
//! and the writes and events of its trace (trace.rs): strings, masks, addresses,
//! per-lane registers and predicates, special registers and events, each spelled as
//! docs/state-format.md gives it.

use isa::{Pred, SReg};
use isa_runtime::{Event, EventKind, Warp, LANES};

/// `s` as a JSON string (quoted and escaped).
pub fn q(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"?\"".into())
}

/// A mask: `"0x0000ffff"`.
pub fn hex32(v: u32) -> String {
    format!("\"{v:#010x}\"")
}

/// An address: `"0x0040"`.
pub fn pc_json(pc: u64) -> String {
    format!("\"{pc:#06x}\"")
}

/// R`n` of every lane: `[0, 1, …]`.
pub fn gpr_json(w: &Warp, n: usize) -> String {
    let vals: Vec<String> = (0..LANES).map(|l| w.reg_n(n, l).to_string()).collect();
    format!("[{}]", vals.join(", "))
}

/// A predicate of every lane: `[true, false, …]`.
pub fn pred_json(w: &Warp, p: Pred) -> String {
    let vals: Vec<String> = (0..LANES).map(|l| w.pred(p, l).to_string()).collect();
    format!("[{}]", vals.join(", "))
}

/// The value of a stored special register.
pub fn sreg_json(w: &Warp, s: SReg) -> String {
    w.sreg(s, 0).to_string()
}

/// An event: `{"pc": …, "cycle": …, "lanes": …, "kind": …}`.
pub fn event_json(e: &Event) -> String {
    let (kind, value) = match e.kind {
        EventKind::Trap(v) => ("TRAP", format!(", \"value\": {v}")),
        EventKind::Rtt => ("RTT", String::new()),
        EventKind::Syscall => ("SYSCALL", String::new()),
        EventKind::PmTrig(v) => ("PMTRIG", format!(", \"value\": {v}")),
        EventKind::Switch(v) => ("SWITCH", format!(", \"value\": {v}")),
        EventKind::WarpSleep { from, until } => {
            ("SLEEP", format!(", \"from\": {from}, \"until\": {until}"))
        }
    };
    format!(
        "{{\"pc\": {}, \"cycle\": {}, \"lanes\": {}, \"kind\": \"{kind}\"{value}}}",
        pc_json(e.pc),
        e.cycle,
        hex32(e.lanes)
    )
}
