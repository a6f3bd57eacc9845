//! `isa run --timeline FILE.svg`: a picture of the run's divergence. A row per lane,
//! a column per step, each cell coloured by what the lane was doing at that step
//! (executed, predicated off, valid but waiting, yielded, sleeping, exited); the PC and
//! instruction above each column (the whole line on hover), reconvergence points
//! marked. The steps wrap in bands of [`COLS`]; a long run keeps its first and last
//! [`KEEP`] steps.

use std::collections::VecDeque;
use std::fmt::Write as _;

use isa_runtime::{Machine, Observer, Step, Warp, LANES};

/// Steps per band.
pub const COLS: usize = 100;
/// Steps kept from each end of a long run.
pub const KEEP: usize = 2000;

const CELL_W: usize = 10;
const CELL_H: usize = 12;
const LEFT: usize = 44;
/// Room for the rotated instruction text above a band's cells.
const HEADER: usize = 150;
const BAND_H: usize = HEADER + LANES * CELL_H + 40;
const TOP: usize = 78;
const TEXT_CHARS: usize = 26;

/// What a lane did at a step: class, colour and legend label.
const STATUS: [(&str, &str); 6] = [
    ("#2e7d32", "executed"),
    ("#a5d6a7", "predicated off"),
    ("#e0e0e0", "valid, waiting"),
    ("#ffa726", "yielded"),
    ("#42a5f5", "sleeping"),
    ("#455a64", "exited"),
];

/// One step, as the picture needs it.
#[derive(Clone, Copy, Debug)]
struct Col {
    number: u64,
    pc: u64,
    valid: u32,
    active: u32,
    yielded: u32,
    sleeping: u32,
    guard: u32,
}

impl Col {
    /// The index in [`STATUS`] of lane `l`.
    fn status(&self, l: usize) -> usize {
        let bit = |m: u32| m >> l & 1 == 1;
        if !bit(self.valid) {
            5
        } else if bit(self.active) {
            if bit(self.guard) {
                0
            } else {
                1
            }
        } else if bit(self.sleeping) {
            4
        } else if bit(self.yielded) {
            3
        } else {
            2
        }
    }
}

/// Records a run for [`Timeline::svg`].
pub struct Timeline {
    texts: Vec<String>,
    base: u64,
    head: Vec<Col>,
    tail: VecDeque<Col>,
    steps: u64,
}

impl Timeline {
    /// A timeline of `m`'s run from its current state.
    pub fn new(m: &Machine) -> Timeline {
        let base = m.program.base();
        let texts = (0..m.program.len() as u64)
            .map(|k| m.program.text_at(base + 16 * k).unwrap_or_default())
            .collect();
        Timeline {
            texts,
            base,
            head: Vec::new(),
            tail: VecDeque::new(),
            steps: 0,
        }
    }

    fn text(&self, pc: u64) -> &str {
        let slot = (pc.wrapping_sub(self.base) / 16) as usize;
        self.texts.get(slot).map_or("", String::as_str)
    }

    /// The picture, titled `title`, with `summary` (how the run ended) under it. A run
    /// stopped by a livelock of `cycle` steps has its last `cycle` steps framed.
    pub fn svg(&self, title: &str, summary: &str, cycle: Option<u64>) -> String {
        let cycle_from = cycle.map(|n| (self.steps + 1).saturating_sub(n));
        // Bands: runs of consecutive steps, the head's and the tail's.
        let mut bands: Vec<&[Col]> = self.head.chunks(COLS).collect();
        let (a, b) = self.tail.as_slices();
        let tail: Vec<Col> = a.iter().chain(b).copied().collect();
        let skipped = self.steps - (self.head.len() + tail.len()) as u64;
        let head_bands = bands.len();
        bands.extend(tail.chunks(COLS));
        let width = LEFT + COLS * CELL_W + 24;
        let summary_lines = wrap(summary, (width - 16) / 6);
        let extra = 13 * (summary_lines.len().max(1) - 1);
        let gap = if skipped > 0 { 30 } else { 0 };
        let height = TOP + extra + bands.len() * BAND_H + gap;
        let mut o = String::new();
        let _ = write!(
            o,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
             viewBox=\"0 0 {width} {height}\" font-family=\"monospace\" font-size=\"10\">\n\
             <style>text{{fill:#212121}} .h{{font-size:9px}} .mark{{stroke:#c62828;stroke-width:2}} \
             .grid{{stroke:#ffffff;stroke-width:1}} \
             .cycle{{fill:none;stroke:#c62828;stroke-width:2;stroke-dasharray:4 2}} .lane rect:hover{{opacity:.7}}"
        );
        for (k, (colour, _)) in STATUS.iter().enumerate() {
            let _ = write!(o, " .s{k}{{fill:{colour}}}");
        }
        o.push_str("</style>\n<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n");
        let _ = writeln!(
            o,
            "<text x=\"8\" y=\"18\" font-size=\"14\" font-weight=\"bold\">{}</text>",
            esc(title)
        );
        for (k, line) in summary_lines.iter().enumerate() {
            let _ = writeln!(
                o,
                "<text x=\"8\" y=\"{}\">{}</text>",
                36 + 13 * k,
                esc(line)
            );
        }
        // Legend.
        let mut x = 8;
        for (k, (_, label)) in STATUS.iter().enumerate() {
            let _ = writeln!(
                o,
                "<rect x=\"{x}\" y=\"{}\" width=\"{CELL_W}\" height=\"{CELL_H}\" class=\"s{k}\"/>\
                 <text x=\"{}\" y=\"{}\">{label}</text>",
                48 + extra,
                x + CELL_W + 4,
                58 + extra
            );
            x += CELL_W + 12 + 7 * label.len();
        }
        let _ = writeln!(
            o,
            "<line x1=\"{x}\" y1=\"{}\" x2=\"{x}\" y2=\"{}\" class=\"mark\"/>\
             <text x=\"{}\" y=\"{}\">reconvergence</text>",
            47 + extra,
            61 + extra,
            x + 6,
            58 + extra
        );
        if cycle.is_some() {
            let x = x + 6 + 7 * "reconvergence".len() + 12;
            let _ = writeln!(
                o,
                "<rect x=\"{x}\" y=\"{}\" width=\"{CELL_W}\" height=\"{CELL_H}\" class=\"cycle\"/>\
                 <text x=\"{}\" y=\"{}\">livelock: repeats forever</text>",
                48 + extra,
                x + CELL_W + 4,
                58 + extra
            );
        }
        let mut y = TOP + extra;
        for (k, band) in bands.iter().enumerate() {
            if k == head_bands && skipped > 0 {
                let _ = writeln!(
                    o,
                    "<text x=\"{LEFT}\" y=\"{}\" font-style=\"italic\">… {skipped} steps not drawn …</text>",
                    y + 18
                );
                y += gap;
            }
            // The step after the band, to mark a reconvergence at its last column.
            let next = bands
                .get(k + 1)
                .and_then(|b| b.first())
                .filter(|n| band.last().is_some_and(|l| n.number == l.number + 1));
            self.band(&mut o, band, next, cycle_from, y);
            y += BAND_H;
        }
        o.push_str("</svg>\n");
        o
    }

    fn band(
        &self,
        o: &mut String,
        cols: &[Col],
        next: Option<&Col>,
        cycle_from: Option<u64>,
        y: usize,
    ) {
        let cells_y = y + HEADER;
        let _ = writeln!(o, "<g class=\"band\">");
        // Column heads: address and instruction, rotated; the whole line on hover.
        for (c, col) in cols.iter().enumerate() {
            let x = LEFT + c * CELL_W + CELL_W - 2;
            let text = self.text(col.pc);
            let short: String = if text.chars().count() > TEXT_CHARS {
                text.chars().take(TEXT_CHARS - 1).chain(['…']).collect()
            } else {
                text.to_string()
            };
            let _ = writeln!(
                o,
                "<g class=\"col\"><title>step {} · pc {:#06x} · {} · ActiveMask {:#010x}</title>\
                 <text class=\"h\" transform=\"translate({x},{}) rotate(-90)\">{:04x} {}</text></g>",
                col.number,
                col.pc,
                esc(text),
                col.active,
                cells_y - 4,
                col.pc,
                esc(&short)
            );
        }
        // A row per lane: a rectangle per run of one status.
        for l in 0..LANES {
            let ly = cells_y + l * CELL_H;
            let _ = write!(
                o,
                "<g class=\"lane\" data-lane=\"{l}\"><text x=\"{}\" y=\"{}\" text-anchor=\"end\">{l}</text>",
                LEFT - 4,
                ly + CELL_H - 2
            );
            let mut c = 0;
            while c < cols.len() {
                let s = cols[c].status(l);
                let start = c;
                while c < cols.len() && cols[c].status(l) == s {
                    c += 1;
                }
                let (first, last) = (cols[start].number, cols[c - 1].number);
                let steps = if first == last {
                    format!("step {first}")
                } else {
                    format!("steps {first}–{last}")
                };
                let _ = write!(
                    o,
                    "<rect x=\"{}\" y=\"{ly}\" width=\"{}\" height=\"{}\" class=\"s{s}\"><title>lane {l}: {}, {steps}</title></rect>",
                    LEFT + start * CELL_W,
                    (c - start) * CELL_W,
                    CELL_H - 1,
                    STATUS[s].1
                );
            }
            o.push_str("</g>\n");
        }
        // Grid every 10 steps, with the step number under the rows.
        let bottom = cells_y + LANES * CELL_H;
        for (c, col) in cols.iter().enumerate() {
            if col.number % 10 == 0 {
                let x = LEFT + (c + 1) * CELL_W;
                let _ = writeln!(
                    o,
                    "<line x1=\"{x}\" y1=\"{cells_y}\" x2=\"{x}\" y2=\"{bottom}\" class=\"grid\"/>\
                     <text x=\"{x}\" y=\"{}\" text-anchor=\"end\">{}</text>",
                    bottom + 14,
                    col.number
                );
            }
        }
        // Reconvergence: the next step runs more lanes, including this step's.
        for (c, col) in cols.iter().enumerate() {
            let Some(after) = cols.get(c + 1).or(next) else {
                continue;
            };
            let joined = after.active & !col.active;
            if joined != 0 && after.active & col.active == col.active {
                let x = LEFT + (c + 1) * CELL_W;
                let _ = writeln!(
                    o,
                    "<g class=\"reconverge\"><title>after step {}: lanes {joined:#010x} join lanes {:#010x}</title>\
                     <line x1=\"{x}\" y1=\"{}\" x2=\"{x}\" y2=\"{bottom}\" class=\"mark\"/>\
                     <path d=\"M{} {}h8l-4 6z\" fill=\"#c62828\"/></g>",
                    col.number,
                    col.active,
                    cells_y - 2,
                    x - 4,
                    cells_y - 9
                );
            }
        }
        // The livelock's cycle.
        if let Some(from) = cycle_from {
            if let Some(c0) = cols.iter().position(|c| c.number >= from) {
                let _ = writeln!(
                    o,
                    "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" class=\"cycle\">\
                     <title>livelock: steps from {from} on repeat forever</title></rect>",
                    LEFT + c0 * CELL_W,
                    cells_y - 1,
                    (cols.len() - c0) * CELL_W,
                    LANES * CELL_H + 1
                );
            }
        }
        o.push_str("</g>\n");
    }
}

impl Observer for Timeline {
    fn step(&mut self, s: &Step<'_>, _: &Warp) {
        let col = Col {
            number: s.number,
            pc: s.pc,
            valid: s.valid_mask,
            active: s.active_mask,
            yielded: s.yield_mask,
            sleeping: s.sleep_mask,
            guard: s.guard,
        };
        self.steps += 1;
        if self.head.len() < KEEP {
            self.head.push(col);
        } else {
            if self.tail.len() == KEEP {
                self.tail.pop_front();
            }
            self.tail.push_back(col);
        }
    }
}

/// `text` in lines of at most `width` characters, broken at spaces.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    lines.push(line);
    lines
}

/// Escapes text for XML.
fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&apos;"),
            c => o.push(c),
        }
    }
    o
}
