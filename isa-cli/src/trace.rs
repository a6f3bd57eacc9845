//! `isa run --trace FILE`: the run as JSON Lines, one object per executed instruction
//! in execution order, events and the end of the run on lines of their own. The
//! format is documented in docs/state-format.md ("Trace").
//!
//! ```text
//! {"step": 1, "pc": "0x0000", "cycle": 0, "active_mask": "0xffffffff", "text": "S2R R1, SR_LANEID", "writes": {"gpr": {"R1": [0, 1, …]}}}
//! {"step": 7, "event": {"pc": "0x0060", "cycle": 6, "lanes": "0x0000ffff", "kind": "TRAP", "value": 1}}
//! {"exited": true, "steps": 12, "cycles": 12, "pc": "0x00b0"}
//! ```
//!
//! `writes` holds what the instruction changed, keyed and valued as in the state
//! file, so replaying the writes of every line over the initial state gives the final
//! state.

use std::fmt::Write as _;
use std::io::{self, Write};

use isa_runtime::{Change, Changes, Machine, Observer, Step, Warp, LANES};

use crate::state_json::{event_json, gpr_json, hex32, pc_json, pred_json, q, sreg_json};

/// Writes the trace of a run to `out`; the first write error stops the writing and
/// is kept for [`Trace::finish`].
pub struct Trace<W: Write> {
    out: W,
    changes: Changes,
    /// The disassembly of each slot of the program.
    texts: Vec<String>,
    base: u64,
    line: String,
    error: Option<io::Error>,
}

impl<W: Write> Trace<W> {
    /// A trace of `m`'s run from its current state.
    pub fn new(out: W, m: &Machine) -> Trace<W> {
        let base = m.program.base();
        let texts = (0..m.program.len() as u64)
            .map(|k| m.program.text_at(base + 16 * k).unwrap_or_default())
            .collect();
        Trace {
            out,
            changes: Changes::new(&m.warp),
            texts,
            base,
            line: String::new(),
            error: None,
        }
    }

    fn emit(&mut self) {
        if self.error.is_none() {
            self.line.push('\n');
            if let Err(e) = self.out.write_all(self.line.as_bytes()) {
                self.error = Some(e);
            }
        }
        self.line.clear();
    }

    /// Writes the last line (the state file's `exited`, `steps`, `cycles`, `pc` and
    /// `fault`) and flushes.
    pub fn finish(mut self, m: &Machine, fault: Option<&str>) -> io::Result<()> {
        let _ = write!(
            self.line,
            "{{\"exited\": {}, \"steps\": {}, \"cycles\": {}, \"pc\": {}",
            m.warp.exited(),
            m.steps,
            m.warp.cycle,
            pc_json(m.warp.active_pc)
        );
        if let Some(f) = fault {
            let _ = write!(self.line, ", \"fault\": {}", q(f));
        }
        self.line.push('}');
        self.emit();
        match self.error.take() {
            Some(e) => Err(e),
            None => self.out.flush(),
        }
    }
}

/// The trace's line of one step (without its newline) appended to `line`: `text` is
/// the instruction's disassembly, `changes` what [`Changes::update`] says it wrote,
/// `w` the warp after it.
pub fn step_record(line: &mut String, s: &Step<'_>, text: &str, changes: &[Change], w: &Warp) {
    let _ = write!(
        line,
        "{{\"step\": {}, \"pc\": {}, \"cycle\": {}, \"active_mask\": {}, \"text\": {}",
        s.number,
        pc_json(s.pc),
        s.cycle,
        hex32(s.active_mask),
        q(text)
    );
    writes(line, changes, w);
    line.push('}');
}

/// `"writes": {…}` of one step: the state file's sections, then masks and RPC.
fn writes(line: &mut String, changes: &[Change], w: &Warp) {
    // (section, key, value); Changes lists each section's entries together.
    let items: Vec<(Option<&str>, String, String)> = changes
        .iter()
        .map(|c| match *c {
            Change::Gpr(r) => (Some("gpr"), r.to_string(), gpr_json(w, r.bits() as usize)),
            Change::Pred(p) => (Some("pred"), p.to_string(), pred_json(w, p)),
            Change::UReg(r) => (Some("ur"), r.to_string(), w.ureg(r).to_string()),
            Change::UPred(p) => (Some("upred"), p.to_string(), w.upred(p).to_string()),
            Change::BReg(b) => (Some("breg"), b.to_string(), w.breg[b as usize].to_string()),
            Change::SReg(s) => (Some("sreg"), s.name().to_string(), sreg_json(w, s)),
            Change::RegSpace(a) => (
                Some("sreg"),
                format!("{a:#x}"),
                w.regspace.get(&a).copied().unwrap_or(0).to_string(),
            ),
            Change::ValidMask => (None, "valid_mask".into(), hex32(w.valid_mask)),
            Change::ActiveMask => (None, "active_mask".into(), hex32(w.active_mask)),
            Change::YieldMask => (None, "yield_mask".into(), hex32(w.yield_mask)),
            Change::SleepMask => (None, "sleep_mask".into(), hex32(w.sleep_mask)),
            Change::SwitchMask => (None, "switch_mask".into(), hex32(w.switch_mask)),
            Change::Rpc(_) => {
                let pcs: Vec<String> = (0..LANES).map(|l| pc_json(w.rpc[l])).collect();
                (None, "rpc".into(), format!("[{}]", pcs.join(", ")))
            }
        })
        .collect();
    line.push_str(", \"writes\": {");
    let mut i = 0;
    while i < items.len() {
        if i > 0 {
            line.push_str(", ");
        }
        match items[i].0 {
            Some(section) => {
                let _ = write!(line, "\"{section}\": {{");
                let start = i;
                while i < items.len() && items[i].0 == Some(section) {
                    let sep = if i > start { ", " } else { "" };
                    let _ = write!(line, "{sep}{}: {}", q(&items[i].1), items[i].2);
                    i += 1;
                }
                line.push('}');
            }
            None => {
                let _ = write!(line, "\"{}\": {}", items[i].1, items[i].2);
                i += 1;
            }
        }
    }
    line.push('}');
}

impl<W: Write> Observer for Trace<W> {
    fn step(&mut self, s: &Step<'_>, w: &Warp) {
        if self.error.is_some() {
            return;
        }
        let slot = (s.pc.wrapping_sub(self.base) / 16) as usize;
        let text = self.texts.get(slot).map_or("", String::as_str);
        let changes = self.changes.update(s, w);
        step_record(&mut self.line, s, text, changes, w);
        self.emit();
        if let Some(e) = s.event {
            let _ = write!(
                self.line,
                "{{\"step\": {}, \"event\": {}}}",
                s.number,
                event_json(e)
            );
            self.emit();
        }
    }
}
