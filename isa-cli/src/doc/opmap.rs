//! The "Opcode map" page: the space of the head fields, drawn as a grid whose cells
//! show the opcode owning each head value, free cells left visible.
//!
//! The head is derived from the model, not assumed: the bit ranges opcodes fix,
//! ranked by how many opcodes fix them (the wider first among equals). The most fixed
//! range gives the rows; the next one that does not overlap it (at most 6 bits wide)
//! gives the columns, so a head split over two ranges (`op_lo`, `op_hi`) is drawn as
//! one grid. With a single head
//! range, its low 4 bits are the columns, as opcode tables are usually drawn. An
//! opcode owns every cell its fixed bits agree with (one that fixes only part of the
//! head owns several); bits it fixes beyond the two axes are written in its cell.
//! Runs of rows without any opcode are folded into one "free" row.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

use isa_gen::model::{mask, Model, Role, TypeId};

use super::html::{self, esc};
use super::Cx;

/// Rows of at most this many bits are listed value by value (then folded).
const MAX_ROW_BITS: u32 = 12;
/// Columns of at most this many bits.
const MAX_COL_BITS: u32 = 6;

/// One axis of the grid: a bit range, named by the field that fixes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Axis {
    pub name: String,
    pub start: u32,
    pub width: u32,
    /// The type of the naming field, for value names (`BRA` for 0x40).
    pub ty: Option<TypeId>,
}

impl Axis {
    fn mask(&self) -> u128 {
        mask(self.start, self.width)
    }

    fn bits(&self) -> String {
        super::text::bits(self.start, self.width)
    }
}

/// The grid's axes (columns may be absent).
pub fn axes(model: &Model) -> Option<(Axis, Option<Axis>)> {
    // (start, width) → (opcodes fixing exactly that range, a field naming it, its
    // type when every such field has the same one: `stype` of SType and of USType
    // share bits, and a code names a different value in each).
    type Seen = (usize, String, Option<TypeId>);
    let mut ranges: BTreeMap<(u32, u32), Seen> = BTreeMap::new();
    for op in &model.opcodes {
        for f in op.fields.iter().filter(|f| f.is_fixed()) {
            let e = ranges
                .entry((f.start, f.width))
                .or_insert((0, f.name.clone(), Some(f.ty)));
            e.0 += 1;
            if e.2 != Some(f.ty) {
                e.2 = None;
            }
        }
    }
    let mut ranked: Vec<((u32, u32), Seen)> = ranges.into_iter().collect();
    // Fixed by more opcodes first; between ranges every opcode fixes, the wider one
    // (a major opcode byte, not a 4-bit form: the narrow one fits the columns).
    ranked.sort_by_key(|((start, width), (n, _, _))| {
        (std::cmp::Reverse(*n), std::cmp::Reverse(*width), *start)
    });
    let ((start, width), (_, name, ty)) = ranked.first()?.clone();
    let rows = Axis {
        name,
        start,
        width,
        ty,
    };
    let cols = ranked.iter().skip(1).find_map(|((s, w), (_, n, t))| {
        let a = Axis {
            name: n.clone(),
            start: *s,
            width: *w,
            ty: *t,
        };
        (*w <= MAX_COL_BITS && a.mask() & rows.mask() == 0).then_some(a)
    });
    if cols.is_none() && rows.width > 4 && rows.width <= MAX_ROW_BITS {
        // One head range: high bits down, low 4 bits across.
        let lo = Axis {
            name: format!("{} (low 4 bits)", rows.name),
            start: rows.start,
            width: 4,
            ty: None,
        };
        let hi = Axis {
            name: format!("{} (high {} bits)", rows.name, rows.width - 4),
            start: rows.start + 4,
            width: rows.width - 4,
            ty: None,
        };
        return Some((hi, Some(lo)));
    }
    Some((rows, cols))
}

/// The opcodes owning each cell, found without scanning every opcode for every cell
/// (a map of thousands of opcodes has thousands of cells): an opcode fixing the whole
/// head owns one cell, looked up by its head bits; the few fixing part of it are tested
/// at each cell.
struct Owners<'m> {
    model: &'m Model,
    head: u128,
    /// Head bits → the opcodes fixing all of the head with those bits, in order.
    whole: HashMap<u128, Vec<usize>>,
    /// Opcodes fixing part of the head, in order.
    partial: Vec<usize>,
    rows: Axis,
    cols: Option<Axis>,
}

impl<'m> Owners<'m> {
    fn new(model: &'m Model, rows: &Axis, cols: Option<&Axis>) -> Owners<'m> {
        let head = rows.mask() | cols.map_or(0, Axis::mask);
        let mut whole: HashMap<u128, Vec<usize>> = HashMap::new();
        let mut partial = Vec::new();
        for (i, o) in model.opcodes.iter().enumerate() {
            if o.fixed_mask & head == head {
                whole.entry(o.fixed_bits & head).or_default().push(i);
            } else {
                partial.push(i);
            }
        }
        Owners {
            model,
            head,
            whole,
            partial,
            rows: rows.clone(),
            cols: cols.cloned(),
        }
    }

    /// The opcodes owning the cell where the row bits hold `r` and the column bits `c`,
    /// in order.
    fn at(&self, r: u128, c: u128) -> Vec<usize> {
        let cv = self.cols.as_ref().map_or(0, |a| c << a.start);
        let value = (r << self.rows.start) | cv;
        let mut out: Vec<usize> = self.whole.get(&value).cloned().unwrap_or_default();
        let before = out.len();
        out.extend(self.partial.iter().copied().filter(|&i| {
            let o = &self.model.opcodes[i];
            let m = o.fixed_mask & self.head;
            o.fixed_bits & m == value & m
        }));
        if before > 0 && out.len() > before {
            out.sort_unstable();
        }
        out
    }
}

/// The opcodes owning the cell where the row bits hold `r` and the column bits `c`.
#[cfg(test)]
fn owners(model: &Model, rows: &Axis, cols: Option<&Axis>, r: u128, c: u128) -> Vec<usize> {
    Owners::new(model, rows, cols).at(r, c)
}

/// An axis value as the map labels it, `0x40 BRA` (the name when the axis has an
/// enumeration type), from a table of the names (not a search of the values per cell).
fn labeller<'m>(model: &'m Model, axis: &Axis) -> impl Fn(u128) -> String + 'm {
    let names: HashMap<u128, &'m str> = axis
        .ty
        .and_then(|t| model.ty(t).enum_values())
        .map(|vs| {
            let mut m = HashMap::new();
            for v in vs {
                m.entry(v.code).or_insert(v.name.as_str());
            }
            m
        })
        .unwrap_or_default();
    move |v| match names.get(&v) {
        Some(n) => format!("{v:#x} {n}"),
        None => format!("{v:#x}"),
    }
}

/// What an opcode fixes beyond the axes: `field == VALUE` for each such fixed field.
fn beyond(model: &Model, i: usize, head: u128) -> String {
    let op = &model.opcodes[i];
    op.fields
        .iter()
        .filter_map(|f| match f.role {
            Role::Fixed(c) if f.mask() & !head != 0 => Some(format!(
                "{} == {}",
                f.name,
                super::text::value_text(model.ty(f.ty), c)
            )),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join(", ")
}

impl Cx<'_> {
    pub(super) fn opcode_map_page(&self) -> String {
        let model = self.model;
        let mut m = String::from(r#"<header id="top"><h1>Opcode map</h1></header>"#);
        let Some((rows, cols)) = axes(model) else {
            m.push_str("<p>No opcode fixes any bits: there is no head to draw.</p>");
            return html::page("Opcode map", "opcode-map.html", &m);
        };
        let head = rows.mask() | cols.as_ref().map_or(0, Axis::mask);
        let _ = write!(
            m,
            "<p class=\"meta\">The head is the bits opcodes fix most: rows are <code>{}</code> (bits {}){}. Each cell shows the opcodes whose fixed bits agree with it; hatched cells are free; a cell outlined in red is shared by opcodes told apart by further fixed bits (shown under their names).</p>",
            esc(&rows.name),
            rows.bits(),
            cols.as_ref()
                .map(|c| format!(", columns <code>{}</code> (bits {})", esc(&c.name), c.bits()))
                .unwrap_or_default()
        );
        // Colours by spec file: which unit crowds which range.
        let mut files: Vec<String> = Vec::new();
        let file_of = |i: usize| -> String {
            let span = model.opcodes[i].span;
            self.file_of(span)
        };
        for i in 0..model.opcodes.len() {
            let f = file_of(i);
            if !files.contains(&f) {
                files.push(f);
            }
        }
        const COLOURS: [&str; 8] = [
            "#ddf4ff", "#dafbe1", "#fff8c5", "#ffebe9", "#fbefff", "#ffeff7", "#e6f5ef", "#fdf2e9",
        ];
        let colour =
            |f: &str| COLOURS[files.iter().position(|x| x == f).unwrap_or(0) % COLOURS.len()];
        m.push_str("<p class=\"opmap-files\">");
        for f in &files {
            let _ = write!(
                m,
                "<span><span class=\"sw\" style=\"background:{}\"></span>{}</span>",
                colour(f),
                esc(f)
            );
        }
        m.push_str("</p>");

        let col_values: Vec<u128> = match &cols {
            Some(c) => (0..1u128 << c.width).collect(),
            None => vec![0],
        };
        let row_values = row_values(model, &rows);
        let owners = Owners::new(model, &rows, cols.as_ref());
        let row_label = labeller(model, &rows);
        let col_label = cols.as_ref().map(|c| labeller(model, c));
        let _ = write!(
            m,
            "<div style=\"overflow-x:auto\"><table class=\"opmap\" data-rows=\"{}\" data-cols=\"{}\"><thead><tr><th>{}</th>",
            esc(&rows.name),
            esc(cols.as_ref().map_or("", |c| c.name.as_str())),
            esc(&rows.name)
        );
        for &c in &col_values {
            let label = col_label.as_ref().map_or("opcode".into(), |l| l(c));
            let _ = write!(m, "<th>{}</th>", esc(&label));
        }
        m.push_str("</tr></thead><tbody>");
        let mut used_cells = 0usize;
        let mut free_cells = 0u128;
        let mut k = 0;
        while k < row_values.len() {
            let r = row_values[k];
            let cells: Vec<Vec<usize>> = col_values.iter().map(|&c| owners.at(r, c)).collect();
            if cells.iter().all(Vec::is_empty) {
                // Fold the run of free rows.
                let mut end = k;
                while end + 1 < row_values.len()
                    && row_values[end + 1] == row_values[end] + 1
                    && col_values
                        .iter()
                        .all(|&c| owners.at(row_values[end + 1], c).is_empty())
                {
                    end += 1;
                }
                let n = (row_values[end] - r + 1) * col_values.len() as u128;
                free_cells += n;
                let label = if end == k {
                    row_label(r)
                } else {
                    format!("{r:#x}–{:#x}", row_values[end])
                };
                let _ = write!(
                    m,
                    "<tr class=\"gap\"><th class=\"row\">{}</th><td class=\"free\" colspan=\"{}\">free ({n} cell{})</td></tr>",
                    esc(&label),
                    col_values.len(),
                    if n == 1 { "" } else { "s" }
                );
                k = end + 1;
                continue;
            }
            let _ = write!(m, "<tr><th class=\"row\">{}</th>", esc(&row_label(r)));
            for (j, cell) in cells.iter().enumerate() {
                let title = match &cols {
                    Some(c) => format!(
                        "{} = {}, {} = {}",
                        rows.name,
                        row_label(r),
                        c.name,
                        col_label
                            .as_ref()
                            .map_or(String::new(), |l| l(col_values[j]))
                    ),
                    None => format!("{} = {}", rows.name, row_label(r)),
                };
                if cell.is_empty() {
                    free_cells += 1;
                    let _ = write!(m, "<td class=\"free\" title=\"{}\">·</td>", esc(&title));
                    continue;
                }
                used_cells += 1;
                let names: Vec<&str> = cell
                    .iter()
                    .map(|&i| model.opcodes[i].name.as_str())
                    .collect();
                let _ = write!(
                    m,
                    "<td class=\"used{}\" title=\"{}\" data-opcodes=\"{}\" style=\"background:{}\">",
                    if cell.len() > 1 { " shared" } else { "" },
                    esc(&title),
                    esc(&names.join(" ")),
                    colour(&file_of(cell[0]))
                );
                for &i in cell {
                    let name = &model.opcodes[i].name;
                    let href = self.urls.get(name).cloned().unwrap_or_default();
                    let _ = write!(m, "<a href=\"{}\">{}</a>", esc(&href), esc(name));
                    let x = beyond(model, i, head);
                    if !x.is_empty() {
                        let _ = write!(m, "<span class=\"x\">{}</span>", esc(&x));
                    }
                }
                m.push_str("</td>");
            }
            m.push_str("</tr>");
            k += 1;
        }
        m.push_str("</tbody></table></div>");
        let _ = write!(
            m,
            "<p class=\"meta\" id=\"opmap-summary\">{} opcodes · {used_cells} cells used · {free_cells} free</p>",
            model.opcodes.len()
        );
        html::page("Opcode map", "opcode-map.html", &m)
    }
}

/// The row values to draw: every value when the row range is narrow; otherwise the
/// values opcodes fix there, with one value either side of each (so the free space
/// between them shows).
fn row_values(model: &Model, rows: &Axis) -> Vec<u128> {
    if rows.width <= MAX_ROW_BITS {
        return (0..1u128 << rows.width).collect();
    }
    let top = if rows.width >= 128 {
        u128::MAX
    } else {
        (1u128 << rows.width) - 1
    };
    let mut v: Vec<u128> = model
        .opcodes
        .iter()
        .filter(|o| o.fixed_mask & rows.mask() == rows.mask())
        .map(|o| (o.fixed_bits & rows.mask()) >> rows.start)
        .flat_map(|x| [x.saturating_sub(1), x, x.saturating_add(1).min(top)])
        .collect();
    v.sort_unstable();
    v.dedup();
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(text: &str) -> Model {
        let c = isa_gen::Spec::from_texts([("t.isa", text)]).check();
        assert!(!c.has_errors(), "{}", c.render_diagnostics());
        c.model.unwrap()
    }

    #[test]
    fn the_bundled_head_is_optype_by_stype_and_every_opcode_has_a_cell() {
        let c = isa_gen::Spec::load(&[isa_spec::DIR]).unwrap().check();
        let m = c.model.as_ref().unwrap();
        let (rows, cols) = axes(m).unwrap();
        assert_eq!(
            (rows.name.as_str(), rows.start, rows.width),
            ("optype", 0, 8)
        );
        let cols = cols.unwrap();
        assert_eq!(
            (cols.name.as_str(), cols.start, cols.width),
            ("stype", 8, 4)
        );
        // SType and USType both live there: codes are shown, not one type's names.
        assert!(rows.ty.is_some() && cols.ty.is_none());
        for i in 0..m.opcodes.len() {
            let o = &m.opcodes[i];
            let r = (o.fixed_bits & rows.mask()) >> rows.start;
            let c = (o.fixed_bits & cols.mask()) >> cols.start;
            assert!(
                owners(m, &rows, Some(&cols), r, c).contains(&i),
                "{}",
                o.name
            );
        }
    }

    /// A head split over two ranges, named by the spec's own fields.
    #[test]
    fn a_split_head_is_drawn_as_one_grid() {
        let m = model(
            "__DefBitFieldType N<4>\n    A = 1;\n    B = 2;\n__DefGroup G\n  __Encoding\n    field<0, 4> N lo;\n    field<20, 4> N hi;\n  __OperandInfo\n    Order<>;\n__DefOpcode P: [G]\n  __Encoding\n    field<0, 4> N lo == A;\n    field<20, 4> N hi == B;\n__DefOpcode Q: [G]\n  __Encoding\n    field<0, 4> N lo == B;\n    field<20, 4> N hi == B;\n",
        );
        let (rows, cols) = axes(&m).unwrap();
        let cols = cols.unwrap();
        assert_eq!((rows.name.as_str(), cols.name.as_str()), ("lo", "hi"));
        assert_eq!(owners(&m, &rows, Some(&cols), 1, 2), [0]);
        assert_eq!(owners(&m, &rows, Some(&cols), 2, 2), [1]);
        assert!(owners(&m, &rows, Some(&cols), 1, 1).is_empty());
    }

    /// Two ranges every opcode fixes: the wider one (a major opcode) gives the rows,
    /// the narrow one (a form) the columns, wherever their bits are.
    #[test]
    fn among_equally_fixed_ranges_the_wider_gives_the_rows() {
        let m = model(
            "__DefBitFieldType Op<8>\n    A = 1;\n    B = 2;\n__DefBitFieldType F<4>\n    X = 0;\n    Y = 1;\n__DefGroup G\n  __Encoding\n    field<120, 8> Op op;\n    field<0, 4> F form;\n  __OperandInfo\n    Order<>;\n__DefOpcode P: [G]\n  __Encoding\n    field<120, 8> Op op == A;\n    field<0, 4> F form == X;\n__DefOpcode Q: [G]\n  __Encoding\n    field<120, 8> Op op == B;\n    field<0, 4> F form == Y;\n",
        );
        let (rows, cols) = axes(&m).unwrap();
        let cols = cols.unwrap();
        assert_eq!((rows.name.as_str(), cols.name.as_str()), ("op", "form"));
        assert_eq!(owners(&m, &rows, Some(&cols), 1, 0), [0]);
        assert_eq!(owners(&m, &rows, Some(&cols), 2, 1), [1]);
    }

    /// The owners looked up by head bits are those a scan of every opcode finds, in
    /// the same order, in every cell of the bundled map.
    #[test]
    fn owners_by_lookup_are_owners_by_scan() {
        let c = isa_gen::Spec::load(&[isa_spec::DIR]).unwrap().check();
        let m = c.model.as_ref().unwrap();
        let (rows, cols) = axes(m).unwrap();
        let cols = cols.unwrap();
        let index = Owners::new(m, &rows, Some(&cols));
        let head = rows.mask() | cols.mask();
        for r in 0..1u128 << rows.width {
            for c in 0..1u128 << cols.width {
                let value = (r << rows.start) | (c << cols.start);
                let scan: Vec<usize> = (0..m.opcodes.len())
                    .filter(|&i| {
                        let o = &m.opcodes[i];
                        let k = o.fixed_mask & head;
                        o.fixed_bits & k == value & k
                    })
                    .collect();
                assert_eq!(index.at(r, c), scan, "row {r:#x}, column {c:#x}");
            }
        }
    }

    /// One head range: high bits by low nibble.
    #[test]
    fn a_single_head_range_is_split_by_nibble() {
        let m = model(
            "__DefBitFieldType N<8>\n    A = 0x12;\n__DefGroup G\n  __OperandInfo\n    Order<>;\n__DefOpcode P: [G]\n  __Encoding\n    field<0, 8> N op == A;\n",
        );
        let (rows, cols) = axes(&m).unwrap();
        let cols = cols.unwrap();
        assert_eq!(
            (rows.start, rows.width, cols.start, cols.width),
            (4, 4, 0, 4)
        );
        assert_eq!(owners(&m, &rows, Some(&cols), 1, 2), [0]);
    }
}
