//! `isa diff OLD NEW`: what a revision of the spec did to the encodings, and whether
//! it is compatible: every word that decodes under OLD decodes under NEW to the same
//! instruction text. Exit 0 compatible, 1 incompatible, 2 usage or I/O error (or a
//! spec with errors, which has no encodings to compare).

mod changes;
mod names;
mod space;
mod verdict;

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use isa_gen::model::Model;
use serde_json::{json, Value};

pub use changes::Change;
pub use verdict::Break;

/// Compares two specs (each given as `isa check` takes it) and prints the report.
pub fn run(old: &[PathBuf], new: &[PathBuf], json: bool) -> Result<ExitCode, String> {
    let a = load(old, "OLD")?;
    let b = load(new, "NEW")?;
    let report = Report::new(
        a.model.as_ref().expect("checked"),
        b.model.as_ref().expect("checked"),
    );
    let text = if json {
        let mut s = serde_json::to_string_pretty(&report.json()).map_err(|e| e.to_string())?;
        s.push('\n');
        s
    } else {
        report.text(&label(old), &label(new))
    };
    use std::io::Write as _;
    std::io::stdout()
        .write_all(text.as_bytes())
        .map_err(|e| format!("writing the report: {e}"))?;
    Ok(if report.compatible() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn label(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

fn load(paths: &[PathBuf], which: &str) -> Result<isa_gen::Checked, String> {
    let spec = isa_gen::Spec::load(paths).map_err(|e| format!("{which}: {e}"))?;
    let checked = spec.check();
    if checked.model.is_none() {
        errln!("{}", checked.render_diagnostics());
        return Err(format!(
            "{which} ({}) has errors ({}); fix them first (`isa check`)",
            label(paths),
            checked.diagnostics.error_count()
        ));
    }
    Ok(checked)
}

/// Everything `isa diff` says.
pub struct Report {
    pub breaks: Vec<Break>,
    pub changes: Vec<Change>,
    /// NEW opcodes no OLD word decodes as (name, how it is identified).
    pub added_opcodes: Vec<(String, String)>,
    /// Enumeration values NEW adds (type, value, code).
    pub added_values: Vec<(String, String, u128)>,
}

impl Report {
    pub fn new(old: &Model, new: &Model) -> Report {
        let (on, nn) = (names::Names::new(old), names::Names::new(new));
        let v = verdict::verdict(&on, &nn);
        let added_opcodes = v
            .fresh
            .iter()
            .map(|&b| {
                let op = &new.opcodes[b];
                (op.name.clone(), changes::fixed_text(&nn, op))
            })
            .collect();
        let mut added_values = Vec::new();
        for t in &new.types {
            let (Some(vs), Some(old_t)) = (t.enum_values(), on.type_id(&t.name)) else {
                continue;
            };
            // An OLD type of another kind has no values: every value is new.
            let had = on.values(old_t);
            for v in vs {
                if !had.by_name.contains_key(v.name.as_str()) && !had.by_code.contains_key(&v.code)
                {
                    added_values.push((t.name.clone(), v.name.clone(), v.code));
                }
            }
        }
        Report {
            breaks: v.breaks,
            changes: changes::changes(&on, &nn),
            added_opcodes,
            added_values,
        }
    }

    pub fn compatible(&self) -> bool {
        self.breaks.is_empty()
    }

    pub fn text(&self, old: &str, new: &str) -> String {
        let mut s = String::new();
        if self.compatible() {
            let _ = writeln!(
                s,
                "compatible: every word that decodes under {old} decodes under {new} to the same text"
            );
        } else {
            let n = {
                let mut v: Vec<&str> = self.breaks.iter().map(|b| b.opcode.as_str()).collect();
                v.dedup();
                v.len()
            };
            let _ = writeln!(
                s,
                "incompatible: words of {n} opcode{} decode differently under {new}",
                if n == 1 { "" } else { "s" }
            );
            s.push_str("\nbreaks:\n");
            for b in &self.breaks {
                let fields = if b.fields.is_empty() {
                    String::new()
                } else {
                    format!(
                        " (field{} {})",
                        if b.fields.len() == 1 { "" } else { "s" },
                        b.fields
                            .iter()
                            .map(|f| format!("`{f}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                };
                let _ = writeln!(
                    s,
                    "  {}{fields}: {}\n    word {:#034x}\n    OLD: {}\n    NEW: {}",
                    b.opcode, b.why, b.word, b.old_text, b.new_text
                );
            }
        }
        if !self.added_opcodes.is_empty() || !self.added_values.is_empty() {
            s.push_str("\ncompatible additions:\n");
            for (name, how) in &self.added_opcodes {
                let _ = writeln!(s, "  opcode {name} ({how})");
            }
            for (t, v, c) in &self.added_values {
                let _ = writeln!(s, "  value {t}.{v} = {c:#x}");
            }
        }
        if !self.changes.is_empty() {
            s.push_str("\nchanges:\n");
            for c in &self.changes {
                let _ = writeln!(s, "  {} {}: {}", c.kind, c.name, c.what);
            }
        }
        s
    }

    /// The report for tools (documented in README, "isa diff").
    pub fn json(&self) -> Value {
        json!({
            "compatible": self.compatible(),
            "breaks": self.breaks.iter().map(|b| json!({
                "opcode": b.opcode,
                "new_opcode": b.new_opcode,
                "fields": b.fields,
                "why": b.why,
                "word": format!("{:#034x}", b.word),
                "old_text": b.old_text,
                "new_text": b.new_text,
                "moved": b.moved.as_ref().map(|m| json!({"from": m.from, "to": m.to})),
            })).collect::<Vec<_>>(),
            "added_opcodes": self.added_opcodes.iter().map(|(n, how)| json!({
                "opcode": n, "identified_by": how,
            })).collect::<Vec<_>>(),
            "added_values": self.added_values.iter().map(|(t, v, c)| json!({
                "type": t, "value": v, "code": *c as u64,
            })).collect::<Vec<_>>(),
            "changes": self.changes.iter().map(|c| json!({
                "kind": c.kind, "name": c.name, "what": c.what,
            })).collect::<Vec<_>>(),
        })
    }
}

#[cfg(test)]
mod tests;
