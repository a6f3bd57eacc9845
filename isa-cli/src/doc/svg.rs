//! The encoding diagram of one opcode: the 128-bit word drawn as four rows of 32 bits,
//! most significant bit first (top left is bit 127, bottom right bit 0), as architecture
//! manuals draw it.
//!
//! Every bit has its number above it (field edges in bold). Each field is a box over its
//! bits with its name, type and bit range; a fixed field shows its value and the bit of
//! each cell; a field that crosses a row is drawn in pieces, each labelled. The fill says
//! which definition declared the field (the opcode itself, its optype or a group above:
//! see [`Diagram::legend`]). Bits no field covers are hatched and labelled reserved.
//!
//! The markup carries the layout as data for tools and tests: each field is a
//! `<g class="fld" data-name data-start data-width data-type data-role data-origin>`
//! holding one `<rect class="seg" data-lo data-hi>` per piece; each reserved run is a
//! `<g class="rsv" data-start data-width>` with its pieces likewise.

use std::fmt::Write as _;

use isa_gen::model::{DefId, Model, Role};

use super::html::esc;
use super::text;

/// Bits per row, rows per word.
pub const ROW_BITS: u32 = 32;
pub const ROWS: u32 = 4;
/// Width of one bit cell.
pub const CELL: f64 = 27.0;
/// Left/right margin.
pub const MARGIN: f64 = 8.0;
/// Height of the bit-number ruler, the field boxes and the gap below a row.
const RULER: f64 = 15.0;
const BOX_H: f64 = 64.0;
const GAP: f64 = 12.0;
const ROW_H: f64 = RULER + BOX_H + GAP;
/// Width of the drawing.
pub const WIDTH: f64 = 2.0 * MARGIN + ROW_BITS as f64 * CELL;
pub const HEIGHT: f64 = ROWS as f64 * ROW_H;
/// Average advance of a monospace glyph, in ems (DejaVu Sans Mono: 0.602).
const MONO_EM: f64 = 0.61;

/// Fills by origin: the opcode's own fields first, then its ancestors root-most first.
pub const PALETTE: [&str; 9] = [
    "#fde68a", "#bfdbfe", "#bbf7d0", "#fbcfe8", "#ddd6fe", "#fed7aa", "#a5f3fc", "#d9f99d",
    "#e5e7eb",
];

/// A drawn diagram.
pub struct Diagram {
    pub svg: String,
    /// (definition, fill) for every definition that declared one of the fields: the
    /// opcode first if it declares any, then ancestors root-most first.
    pub legend: Vec<(DefId, &'static str)>,
}

/// A run of bits inside one row: `lo..=hi`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Piece {
    pub lo: u32,
    pub hi: u32,
    pub row: u32,
    pub x: f64,
    pub w: f64,
    pub y: f64,
}

/// Splits bits `start..start+width` into per-row pieces, most significant first.
pub fn pieces(start: u32, width: u32) -> Vec<Piece> {
    let mut out = Vec::new();
    if width == 0 {
        return out;
    }
    let mut hi = start + width - 1;
    loop {
        let row_lo = hi / ROW_BITS * ROW_BITS;
        let lo = row_lo.max(start);
        let row = ROWS - 1 - hi / ROW_BITS;
        out.push(Piece {
            lo,
            hi,
            row,
            x: bit_x(hi),
            w: (hi - lo + 1) as f64 * CELL,
            y: row as f64 * ROW_H + RULER,
        });
        if lo == start {
            break;
        }
        hi = lo - 1;
    }
    out
}

/// Left edge of a bit's cell.
pub fn bit_x(bit: u32) -> f64 {
    MARGIN + (ROW_BITS - 1 - bit % ROW_BITS) as f64 * CELL
}

/// Width of `s` in a monospace font of `size` px.
fn text_w(s: &str, size: f64) -> f64 {
    s.chars()
        .map(|c| if (c as u32) < 0x2e80 { 1.0 } else { 2.0 })
        .sum::<f64>()
        * size
        * MONO_EM
}

/// `s` shortened with `…` to fit `room` px at `size`.
fn fit(s: &str, size: f64, room: f64) -> String {
    if text_w(s, size) <= room {
        return s.to_string();
    }
    let mut out = String::new();
    for c in s.chars() {
        out.push(c);
        if text_w(&out, size) + size * MONO_EM > room {
            out.pop();
            break;
        }
    }
    out.push('…');
    out
}

/// A label drawn in the diagram, with the room it was given (checked by the tests).
#[derive(Debug, Clone)]
#[cfg_attr(not(test), allow(dead_code))]
pub struct Label {
    pub text: String,
    pub size: f64,
    pub room: f64,
}

#[cfg_attr(not(test), allow(dead_code))]
impl Label {
    pub fn fits(&self) -> bool {
        text_w(&self.text, self.size) <= self.room + 0.01
    }
}

/// Draws the encoding of opcode `index`. `id` makes the SVG's internal ids unique in
/// the page. Also returns every label with its room, for the tests.
pub fn diagram(model: &Model, index: usize, id: &str) -> (Diagram, Vec<Label>) {
    let op = &model.opcodes[index];
    let mut labels = Vec::new();
    // Fill per origin.
    let mut legend: Vec<(DefId, &'static str)> = Vec::new();
    let mut origins: Vec<DefId> = Vec::new();
    if op.fields.iter().any(|f| f.origin == op.def) {
        origins.push(op.def);
    }
    for a in op.ancestors.iter().rev() {
        if op.fields.iter().any(|f| f.origin == *a) {
            origins.push(*a);
        }
    }
    for f in &op.fields {
        if !origins.contains(&f.origin) {
            origins.push(f.origin);
        }
    }
    for (k, d) in origins.iter().enumerate() {
        legend.push((*d, PALETTE[k.min(PALETTE.len() - 1)]));
    }
    let fill_of = |d: DefId| {
        legend
            .iter()
            .find(|(x, _)| *x == d)
            .map_or(PALETTE[PALETTE.len() - 1], |(_, c)| *c)
    };

    let mut s = String::new();
    let _ = write!(
        s,
        r##"<svg class="enc" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" height="{HEIGHT}" role="img" aria-labelledby="t-{id}" data-opcode="{name}"><title id="t-{id}">Encoding of {name}: 128 bits, bit 127 top left, bit 0 bottom right</title><defs><pattern id="h-{id}" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#f3f4f6"/><line x1="0" y1="0" x2="0" y2="6" stroke="#c4c8cf" stroke-width="2"/></pattern></defs>"##,
        name = esc(&op.name)
    );

    // Bit-number rulers: every bit, field edges in bold.
    let mut edges = [false; 128];
    for f in &op.fields {
        edges[f.start as usize] = true;
        edges[(f.start + f.width - 1).min(127) as usize] = true;
    }
    s.push_str(r#"<g class="ruler">"#);
    for bit in 0..128u32 {
        let row = ROWS - 1 - bit / ROW_BITS;
        let x = bit_x(bit) + CELL / 2.0;
        let y = row as f64 * ROW_H + RULER - 4.0;
        let _ = write!(
            s,
            r#"<text x="{x}" y="{y}"{}>{bit}</text>"#,
            if edges[bit as usize] {
                r#" class="edge""#
            } else {
                ""
            }
        );
    }
    s.push_str("</g>");

    // Reserved runs.
    let covered = op.covered;
    let mut bit = 0u32;
    while bit < 128 {
        if covered >> bit & 1 == 1 {
            bit += 1;
            continue;
        }
        let start = bit;
        while bit < 128 && covered >> bit & 1 == 0 {
            bit += 1;
        }
        let width = bit - start;
        let _ = write!(
            s,
            r#"<g class="rsv" data-start="{start}" data-width="{width}"><title>reserved: bits {}..{start} ({width} bit{}), must be zero</title>"#,
            start + width - 1,
            if width == 1 { "" } else { "s" }
        );
        for p in pieces(start, width) {
            let _ = write!(
                s,
                r#"<rect class="seg" data-lo="{}" data-hi="{}" x="{}" y="{}" width="{}" height="{BOX_H}" fill="url(#h-{id})"/>"#,
                p.lo,
                p.hi,
                p.x + 1.0,
                p.y,
                p.w - 2.0
            );
            if p.w >= 3.0 * CELL {
                let l = Label {
                    text: fit("reserved", 10.0, p.w - 6.0),
                    size: 10.0,
                    room: p.w - 6.0,
                };
                let _ = write!(
                    s,
                    r#"<text class="rl" x="{}" y="{}">{}</text>"#,
                    p.x + p.w / 2.0,
                    p.y + BOX_H / 2.0 + 4.0,
                    esc(&l.text)
                );
                labels.push(l);
            }
        }
        s.push_str("</g>");
    }

    // Fields.
    for f in &op.fields {
        let t = model.ty(f.ty);
        let origin = model.def(f.origin);
        let role = text::role_name(f.role);
        let fixed = match f.role {
            Role::Fixed(c) => Some(c),
            _ => None,
        };
        let value = fixed.map(|c| text::value_text(t, c));
        let hi = f.start + f.width - 1;
        let range = if f.width == 1 {
            format!("{}", f.start)
        } else {
            format!("{hi}:{}", f.start)
        };
        let mut tip = format!(
            "{} — {} {}, bits {range} ({} bit{}), {role}",
            f.name,
            t.kind_noun(),
            t.name,
            f.width,
            if f.width == 1 { "" } else { "s" }
        );
        if let Some(v) = &value {
            tip.push_str(&format!(" == {v}"));
        }
        if let Some(d) = f.default {
            tip.push_str(&format!(", default {}", text::value_text(t, d)));
        }
        if f.origin != op.def {
            tip.push_str(&format!(", inherited from {}", origin.name));
        }
        let _ = write!(
            s,
            r#"<g class="fld {role}" data-name="{}" data-start="{}" data-width="{}" data-type="{}" data-role="{role}" data-origin="{}"><title>{}</title>"#,
            esc(&f.name),
            f.start,
            f.width,
            esc(&t.name),
            esc(&origin.name),
            esc(&tip)
        );
        let parts = pieces(f.start, f.width);
        let n_parts = parts.len();
        for (k, p) in parts.into_iter().enumerate() {
            let _ = write!(
                s,
                r#"<rect class="seg" data-lo="{}" data-hi="{}" x="{}" y="{}" width="{}" height="{BOX_H}" rx="3" fill="{}"/>"#,
                p.lo,
                p.hi,
                p.x + 1.0,
                p.y,
                p.w - 2.0,
                fill_of(f.origin)
            );
            let cx = p.x + p.w / 2.0;
            let room = p.w - 6.0;
            // Bits of a fixed field, one digit per cell, at the bottom of the box.
            let digits_h = if let Some(c) = fixed {
                for b in p.lo..=p.hi {
                    let d = (c >> (b - f.start)) & 1;
                    let _ = write!(
                        s,
                        r#"<text class="bit" x="{}" y="{}">{d}</text>"#,
                        bit_x(b) + CELL / 2.0,
                        p.y + BOX_H - 6.0
                    );
                }
                16.0
            } else {
                0.0
            };
            let name = if n_parts > 1 {
                if k == 0 {
                    format!("{} ▸", f.name)
                } else {
                    format!("▸ {}", f.name)
                }
            } else {
                f.name.clone()
            };
            let seg_range = if n_parts > 1 {
                if p.lo == p.hi {
                    format!("{} (of {range})", p.lo)
                } else {
                    format!("{}:{} (of {range})", p.hi, p.lo)
                }
            } else {
                range.clone()
            };
            let second = match &value {
                Some(v) => format!("{} == {v}", t.name),
                None => t.name.clone(),
            };
            let second_short = match &value {
                Some(v) => format!("== {v}"),
                None => t.name.clone(),
            };
            // Horizontal when the name fits at a readable size, else vertical.
            let name_size = [12.0, 11.0, 10.0]
                .into_iter()
                .find(|&sz| text_w(&name, sz) <= room);
            if let Some(nsz) = name_size {
                let mut lines: Vec<(String, f64, &str)> = vec![(name, nsz, "fn")];
                let tsz = 10.0;
                if text_w(&second, tsz) <= room {
                    lines.push((second, tsz, "ft"));
                } else if text_w(&second_short, tsz) <= room {
                    lines.push((second_short, tsz, "ft"));
                } else {
                    lines.push((fit(&second_short, 9.0, room), 9.0, "ft"));
                }
                if fixed.is_none() {
                    let rsz = 9.0;
                    if text_w(&seg_range, rsz) <= room {
                        lines.push((seg_range, rsz, "fr"));
                    } else if text_w(&range, rsz) <= room {
                        lines.push((range.clone(), rsz, "fr"));
                    }
                }
                let avail = BOX_H - digits_h;
                let total: f64 = lines.iter().map(|(_, sz, _)| sz + 3.0).sum();
                let mut y = p.y + (avail - total) / 2.0;
                for (txt, sz, class) in lines {
                    y += sz + 3.0;
                    let _ = write!(
                        s,
                        r#"<text class="{class}" x="{cx}" y="{}" font-size="{sz}">{}</text>"#,
                        y - 3.0,
                        esc(&txt)
                    );
                    labels.push(Label {
                        text: txt,
                        size: sz,
                        room,
                    });
                }
            } else {
                // Vertical: the name, and the type when a second line fits across.
                let along = BOX_H - digits_h - 8.0;
                let nsz = [11.0, 10.0, 9.0, 8.0]
                    .into_iter()
                    .find(|&sz| text_w(&name, sz) <= along)
                    .unwrap_or(8.0);
                let name = fit(&name, nsz, along);
                let tsz = 8.5;
                let two = p.w >= nsz + tsz + 6.0 && text_w(&second_short, tsz) <= along;
                let mid_y = p.y + (BOX_H - digits_h) / 2.0;
                let mut cols: Vec<(String, f64, &str)> = vec![(name, nsz, "fn")];
                if two {
                    cols.push((second_short, tsz, "ft"));
                }
                let total: f64 = cols.iter().map(|(_, sz, _)| sz + 1.0).sum();
                let mut x = cx - total / 2.0;
                for (txt, sz, class) in cols {
                    x += sz + 1.0;
                    let bx = x - sz * 0.2;
                    let _ = write!(
                        s,
                        r#"<text class="{class}" x="{bx}" y="{mid_y}" font-size="{sz}" transform="rotate(-90 {bx} {mid_y})">{}</text>"#,
                        esc(&txt)
                    );
                    labels.push(Label {
                        text: txt,
                        size: sz,
                        room: along,
                    });
                }
            }
        }
        s.push_str("</g>");
    }
    s.push_str("</svg>");
    (Diagram { svg: s, legend }, labels)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_split_at_rows_msb_first() {
        let p = pieces(32, 50);
        assert_eq!(p.len(), 2);
        assert_eq!((p[0].lo, p[0].hi, p[0].row), (64, 81, 1));
        assert_eq!((p[1].lo, p[1].hi, p[1].row), (32, 63, 2));
        assert_eq!(p[1].w, 32.0 * CELL);
        assert_eq!(p[1].x, MARGIN);
        let p = pieces(0, 8);
        assert_eq!((p[0].lo, p[0].hi, p[0].row), (0, 7, 3));
        assert_eq!(p[0].x, MARGIN + 24.0 * CELL);
        let p = pieces(127, 1);
        assert_eq!((p[0].row, p[0].x), (0, MARGIN));
    }

    #[test]
    fn fit_shortens_with_an_ellipsis() {
        assert_eq!(fit("abc", 10.0, 100.0), "abc");
        let f = fit("a_very_long_field_name", 10.0, 40.0);
        assert!(f.ends_with('…') && text_w(&f, 10.0) <= 40.0, "{f}");
    }
}
