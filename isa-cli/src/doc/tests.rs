//! The reference of the bundled spec, checked by reading the generated HTML and SVG
//! back: every opcode has a section with a diagram whose fields are exactly the
//! opcode's fields, drawn without overlaps, pieces adding up to each field's width, and
//! fields plus reserved bits tiling the 128-bit word; pages are balanced markup, every
//! internal link resolves, nothing is loaded from the network.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use isa_gen::model::Role;

use super::svg::{self, CELL, HEIGHT, ROW_BITS, WIDTH};
use super::{site, text, Site};

fn bundled() -> isa_gen::Checked {
    let checked = isa_gen::Spec::load(&[isa_spec::DIR])
        .expect("bundled spec loads")
        .check();
    assert!(!checked.has_errors(), "{}", checked.render_diagnostics());
    checked
}

/// A start or end tag of the markup.
#[derive(Debug, Clone)]
struct Tag {
    name: String,
    attrs: HashMap<String, String>,
    end: bool,
    self_closing: bool,
    /// Byte offset of `<`.
    at: usize,
}

fn unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// The tags of an HTML/SVG text (comments and the doctype skipped; the contents of
/// `<script>` and `<style>` are not markup).
fn tags(html: &str) -> Vec<Tag> {
    let mut out = Vec::new();
    let b = html.as_bytes();
    let mut i = 0;
    while let Some(off) = html[i..].find('<') {
        let at = i + off;
        if html[at..].starts_with("<!--") {
            i = at + html[at..].find("-->").expect("closed comment") + 3;
            continue;
        }
        if html[at..].starts_with("<!") {
            i = at + html[at..].find('>').unwrap() + 1;
            continue;
        }
        let end = b.get(at + 1) == Some(&b'/');
        let mut j = at + 1 + end as usize;
        let name_start = j;
        while j < b.len() && (b[j].is_ascii_alphanumeric()) {
            j += 1;
        }
        let name = html[name_start..j].to_ascii_lowercase();
        assert!(
            !name.is_empty(),
            "stray `<` at {at}: {}",
            &html[at..(at + 40).min(html.len())]
        );
        let mut attrs = HashMap::new();
        loop {
            while b[j].is_ascii_whitespace() {
                j += 1;
            }
            if b[j] == b'>' {
                j += 1;
                break;
            }
            if b[j] == b'/' && b[j + 1] == b'>' {
                j += 2;
                break;
            }
            let k0 = j;
            while !b[j].is_ascii_whitespace() && b[j] != b'=' && b[j] != b'>' && b[j] != b'/' {
                j += 1;
            }
            let key = html[k0..j].to_string();
            let mut val = String::new();
            if b[j] == b'=' {
                assert_eq!(b[j + 1], b'"', "unquoted attribute at {j}");
                let v0 = j + 2;
                let v1 = v0 + html[v0..].find('"').unwrap();
                val = unescape(&html[v0..v1]);
                j = v1 + 1;
            }
            attrs.insert(key, val);
        }
        let self_closing = html[..j].ends_with("/>");
        out.push(Tag {
            name: name.clone(),
            attrs,
            end,
            self_closing,
            at,
        });
        i = j;
        if !end && (name == "script" || name == "style") {
            let close = format!("</{name}>");
            i += html[i..].find(&close).expect("closed script/style");
        }
    }
    out
}

const VOID: &[&str] = &["meta", "input", "br", "hr", "img", "link", "wbr"];

/// Every element is closed, in order.
fn assert_balanced(file: &str, tags: &[Tag]) {
    let mut stack: Vec<&str> = Vec::new();
    for t in tags {
        if t.self_closing || (!t.end && VOID.contains(&t.name.as_str())) {
            continue;
        }
        if t.end {
            let open = stack.pop();
            assert_eq!(
                open,
                Some(t.name.as_str()),
                "{file}: `</{}>` at {} closes {open:?}",
                t.name,
                t.at
            );
        } else {
            stack.push(&t.name);
        }
    }
    assert!(stack.is_empty(), "{file}: unclosed {stack:?}");
}

fn render() -> (isa_gen::Checked, Site) {
    let checked = bundled();
    let site = site(&checked).expect("pages");
    (checked, site)
}

/// One drawn field or reserved run: name → (start, width, attrs, pieces (lo, hi, x, w)).
struct Drawn {
    attrs: HashMap<String, String>,
    pieces: Vec<(u32, u32, f64, f64, f64)>,
}

fn attr<T: std::str::FromStr>(t: &Tag, k: &str) -> T
where
    T::Err: std::fmt::Debug,
{
    t.attrs
        .get(k)
        .unwrap_or_else(|| panic!("<{}> without {k}", t.name))
        .parse()
        .unwrap()
}

/// Reads one `<svg class="enc">` back into its fields and reserved runs.
fn read_svg(tags: &[Tag]) -> (Vec<Drawn>, Vec<Drawn>) {
    let mut fields = Vec::new();
    let mut reserved = Vec::new();
    let mut cur: Option<(bool, Drawn)> = None;
    for t in tags {
        let class = t.attrs.get("class").map(String::as_str).unwrap_or("");
        if t.name == "g" && !t.end && (class.starts_with("fld") || class == "rsv") {
            cur = Some((
                class == "rsv",
                Drawn {
                    attrs: t.attrs.clone(),
                    pieces: Vec::new(),
                },
            ));
        } else if t.name == "g" && t.end {
            if let Some((rsv, d)) = cur.take() {
                if rsv {
                    reserved.push(d)
                } else {
                    fields.push(d)
                }
            }
        } else if t.name == "rect" && class == "seg" {
            let (_, d) = cur.as_mut().expect("a seg inside a field group");
            d.pieces.push((
                attr(t, "data-lo"),
                attr(t, "data-hi"),
                attr(t, "x"),
                attr(t, "width"),
                attr(t, "y"),
            ));
        }
    }
    (fields, reserved)
}

#[test]
fn every_opcode_has_a_diagram_with_exactly_its_fields() {
    let (checked, site) = render();
    let model = checked.model.as_ref().unwrap();
    let pages: HashMap<&str, &str> = site
        .pages
        .iter()
        .map(|p| (p.file.as_str(), p.html.as_str()))
        .collect();
    let mut seen = BTreeSet::new();
    for (i, op) in model.opcodes.iter().enumerate() {
        let page_name = format!(
            "{}.html",
            op.optype
                .map_or(op.name.as_str(), |d| model.def(d).name.as_str())
        );
        let html = pages
            .get(page_name.as_str())
            .unwrap_or_else(|| panic!("no page {page_name}"));
        let open = format!(r#"<section class="opcode" id="{}""#, op.name);
        let start = html
            .find(&open)
            .unwrap_or_else(|| panic!("{}: no section on {page_name}", op.name));
        assert_eq!(html.matches(&open).count(), 1, "{}: one section", op.name);
        let end = start + html[start..].find("</section>").unwrap();
        let section = &html[start..end];
        let s0 = section.find("<svg").expect("a diagram");
        let s1 = section.find("</svg>").unwrap() + 6;
        let svg_tags = tags(&section[s0..s1]);
        assert_balanced(&op.name, &svg_tags);
        let root = &svg_tags[0];
        assert_eq!(root.attrs["data-opcode"], op.name);
        assert_eq!(root.attrs["viewBox"], format!("0 0 {WIDTH} {HEIGHT}"));
        let (fields, reserved) = read_svg(&svg_tags);

        // Exactly the opcode's fields, each once, with its name, place, type, role, origin.
        let want: BTreeSet<(String, u32, u32, String, String, String)> = op
            .fields
            .iter()
            .map(|f| {
                (
                    f.name.clone(),
                    f.start,
                    f.width,
                    model.ty(f.ty).name.clone(),
                    text::role_name(f.role).to_string(),
                    model.def(f.origin).name.clone(),
                )
            })
            .collect();
        let got: Vec<(String, u32, u32, String, String, String)> = fields
            .iter()
            .map(|d| {
                let a = &d.attrs;
                (
                    a["data-name"].clone(),
                    a["data-start"].parse().unwrap(),
                    a["data-width"].parse().unwrap(),
                    a["data-type"].clone(),
                    a["data-role"].clone(),
                    a["data-origin"].clone(),
                )
            })
            .collect();
        assert_eq!(got.len(), op.fields.len(), "{}: field count", op.name);
        assert_eq!(
            got.iter().cloned().collect::<BTreeSet<_>>(),
            want,
            "{}",
            op.name
        );

        // Pieces: inside one row each, contiguous, adding up to the width, drawn where
        // the bits are, inside the drawing; fields and reserved runs tile 0..128.
        let mut owner: Vec<Option<String>> = vec![None; 128];
        for d in fields.iter().chain(&reserved) {
            let start: u32 = d.attrs["data-start"].parse().unwrap();
            let width: u32 = d.attrs["data-width"].parse().unwrap();
            let who = d
                .attrs
                .get("data-name")
                .cloned()
                .unwrap_or_else(|| "reserved".into());
            let mut total = 0;
            let mut bits = BTreeSet::new();
            for &(lo, hi, x, w, y) in &d.pieces {
                assert!(
                    lo <= hi && lo / ROW_BITS == hi / ROW_BITS,
                    "{}: {who} piece {lo}..{hi} crosses a row",
                    op.name
                );
                total += hi - lo + 1;
                bits.extend(lo..=hi);
                assert_eq!(x, svg::bit_x(hi) + 1.0, "{}: {who} x", op.name);
                assert_eq!(
                    w,
                    (hi - lo + 1) as f64 * CELL - 2.0,
                    "{}: {who} width",
                    op.name
                );
                assert!(
                    x >= 0.0 && x + w <= WIDTH && (0.0..=HEIGHT).contains(&y),
                    "{}: {who} outside",
                    op.name
                );
                let row = 3 - hi / ROW_BITS;
                assert!(
                    y >= row as f64 * HEIGHT / 4.0 && y < (row + 1) as f64 * HEIGHT / 4.0,
                    "{}: {who} row",
                    op.name
                );
            }
            assert_eq!(total, width, "{}: {who} pieces add up", op.name);
            assert_eq!(
                bits,
                (start..start + width).collect(),
                "{}: {who} bits",
                op.name
            );
            for b in start..start + width {
                let b = b as usize;
                assert!(
                    owner[b].is_none(),
                    "{}: bit {b} drawn for {:?} and {who}",
                    op.name,
                    owner[b]
                );
                owner[b] = Some(who.clone());
            }
        }
        assert!(
            owner.iter().all(Option::is_some),
            "{}: bits not drawn",
            op.name
        );
        let rsv_bits: u32 = reserved
            .iter()
            .map(|d| d.attrs["data-width"].parse::<u32>().unwrap())
            .sum();
        assert_eq!(rsv_bits, (!op.covered).count_ones(), "{}", op.name);

        // Fixed fields show their value bit by bit.
        let digits = svg_tags
            .iter()
            .filter(|t| t.attrs.get("class").is_some_and(|c| c == "bit"))
            .count();
        let fixed_bits: u32 = op
            .fields
            .iter()
            .filter(|f| matches!(f.role, Role::Fixed(_)))
            .map(|f| f.width)
            .sum();
        assert_eq!(digits as u32, fixed_bits, "{}", op.name);

        // Every label fits its box (checked on the layout the drawing used).
        let (_, labels) = svg::diagram(model, i, &op.name);
        for l in labels {
            assert!(
                l.fits(),
                "{}: label `{}` ({}px) overflows {}px",
                op.name,
                l.text,
                l.size,
                l.room
            );
        }

        // The field table lists the same fields.
        let rows: BTreeSet<String> = tags(section)
            .iter()
            .filter_map(|t| t.attrs.get("data-field").cloned())
            .collect();
        assert_eq!(
            rows,
            op.fields.iter().map(|f| f.name.clone()).collect(),
            "{}",
            op.name
        );
        seen.insert(op.name.clone());
    }
    assert_eq!(seen.len(), model.opcodes.len());
}

#[test]
fn pages_are_balanced_linked_and_offline() {
    let (checked, site) = render();
    let model = checked.model.as_ref().unwrap();
    let s = model.summary();
    assert_eq!(
        site.pages.len(),
        1 + s.optypes + s.groups + 2,
        "index, optypes, groups, types, opcode map"
    );
    let mut ids: HashMap<&str, BTreeSet<String>> = HashMap::new();
    let mut parsed = BTreeMap::new();
    for p in &site.pages {
        let t = tags(&p.html);
        assert_balanced(&p.file, &t);
        let mut set = BTreeSet::new();
        for tag in &t {
            if let Some(id) = tag.attrs.get("id") {
                assert!(set.insert(id.clone()), "{}: duplicate id {id}", p.file);
            }
        }
        // Nothing to fetch from the network: the only files a page loads are the
        // shared ones, by relative name; no inline style or script is repeated.
        for bad in ["@import", "url(http", "<img", "<iframe", "<style"] {
            assert!(!p.html.contains(bad), "{}: {bad}", p.file);
        }
        let loads: Vec<&str> = t
            .iter()
            .filter(|x| !x.end && (x.name == "script" || x.name == "link"))
            .map(|x| {
                let k = if x.name == "script" { "src" } else { "href" };
                x.attrs
                    .get(k)
                    .unwrap_or_else(|| panic!("{}: inline <{}>", p.file, x.name))
                    .as_str()
            })
            .collect();
        assert_eq!(
            loads,
            ["style.css", "search-index.js", "nav.js"],
            "{}",
            p.file
        );
        // Without JavaScript the sidebar still leads to the index.
        let side = &p.html[p.html.find("<nav class=\"side\"").unwrap()..];
        let side = &side[..side.find("</nav>").unwrap()];
        assert!(side.contains(r#"href="index.html""#), "{}", p.file);
        assert!(
            !side.contains("data-k"),
            "{}: the sidebar's list is copied",
            p.file
        );
        assert!(
            p.html
                .contains(&format!(r#"<body data-page="{}">"#, p.file)),
            "{}",
            p.file
        );
        ids.insert(&p.file, set);
        parsed.insert(p.file.as_str(), t);
    }
    let shared: BTreeMap<&str, &str> = site
        .shared
        .iter()
        .map(|f| (f.file.as_str(), f.html.as_str()))
        .collect();
    assert_eq!(
        shared.keys().copied().collect::<Vec<_>>(),
        ["nav.js", "search-index.js", "style.css"]
    );
    for (file, text) in &shared {
        for bad in ["fetch(", "XMLHttpRequest", "http://", "https://", "@import"] {
            assert!(!text.contains(bad), "{file}: {bad}");
        }
    }
    assert!(shared["nav.js"].contains("ISA_NAV") && shared["nav.js"].contains("data-js"));
    // Every entry of the sidebar links to a page.
    for (_, entries) in sidebar(&site) {
        for e in entries {
            assert!(ids.contains_key(e[0].as_str()), "sidebar link to {}", e[0]);
        }
    }
    for (file, t) in &parsed {
        for tag in t.iter().filter(|t| t.name == "a" && !t.end) {
            let href = tag
                .attrs
                .get("href")
                .unwrap_or_else(|| panic!("{file}: <a> without href at {}", tag.at));
            if href.starts_with("http://") || href.starts_with("https://") {
                continue; // links in the authors' prose
            }
            let (page, anchor) = href.split_once('#').unwrap_or((href, ""));
            let page = if page.is_empty() { file } else { page };
            let targets = ids
                .get(page)
                .unwrap_or_else(|| panic!("{file}: link to missing page {href}"));
            assert!(
                anchor.is_empty() || targets.contains(anchor),
                "{file}: link to missing anchor {href}"
            );
        }
    }
}

#[test]
fn examples_show_encodings_or_reasons_and_agree_with_the_generated_decoder() {
    let (checked, site) = render();
    let (mut ok, mut bad) = (0, 0);
    for p in &site.pages {
        let t = tags(&p.html);
        for (k, tag) in t.iter().enumerate() {
            if tag.name != "tr" || tag.end {
                continue;
            }
            match tag.attrs.get("class").map(String::as_str) {
                Some("ok") => {
                    ok += 1;
                    // The row's hex word decodes (generated tier) as the row's opcode.
                    let code_at = t[k..].iter().find(|x| x.name == "code").unwrap().at;
                    let rest = &p.html[code_at + 6..];
                    let hex = &rest[..rest.find('<').unwrap()];
                    let w = u128::from_str_radix(&hex[2..].replace('_', ""), 16).unwrap();
                    let i = isa::Instruction::decode(w).unwrap_or_else(|e| panic!("{hex}: {e:?}"));
                    assert_eq!(i.opcode().name(), tag.attrs["data-opcode"], "{}", p.file);
                }
                Some("bad") => {
                    bad += 1;
                    assert!(t[k..]
                        .iter()
                        .any(|x| x.attrs.get("class").is_some_and(|c| c == "warn")));
                }
                _ => {}
            }
        }
    }
    let ex = checked.examples;
    assert_eq!(
        ok + bad,
        ex.assembled + ex.warned,
        "every example line is shown once"
    );
    assert!(bad >= 1 && ok >= ex.assembled);
}

#[test]
fn cross_references_search_and_markdown() {
    let (checked, site) = render();
    let model = checked.model.as_ref().unwrap();
    let page = |f: &str| {
        site.pages
            .iter()
            .find(|p| p.file == f)
            .unwrap()
            .html
            .as_str()
    };
    // `[[BRX]]` in CALL's description links to BRX's page.
    assert!(page("CALL.html").contains(r#"<a href="BRX.html"><code>BRX</code></a>"#));
    // Group parents link to group pages.
    assert!(page("SHFL.html").contains(r#"<a href="group-SYNCOp.html">"#));
    // Tables in the authors' Markdown become tables; Chinese text is kept.
    assert!(page("SHFL.html").contains(">SrcB</th>"));
    assert!(page("SHFL.html").contains("在同一个warp的参与线程之间进行GPR值的交换"));
    // The index lists every optype for the filter, with its opcodes in the keys.
    let index = page("index.html");
    assert!(index.contains(r#"id="q2""#) && index.contains(r#"id="q""#));
    for (_, d) in model.optypes() {
        assert!(
            index.contains(&format!(r#"href="{}.html""#, d.name)),
            "{}",
            d.name
        );
    }
    let keys: Vec<String> = tags(index)
        .iter()
        .filter(|t| t.name == "li")
        .filter_map(|t| t.attrs.get("data-k").cloned())
        .collect();
    assert!(keys.iter().any(|k| k.contains("shfl_rrr")));
    // Conditional widths are written out per case.
    assert!(page("ULDC.html").contains("64 if dtype = 64; 128 if dtype = 128; 32 otherwise"));
}

/// The sidebar's entries as `search-index.js` assigns them: (heading, [[href, label,
/// note, keys]]).
fn sidebar(site: &Site) -> Vec<(String, Vec<Vec<String>>)> {
    let js = &site
        .shared
        .iter()
        .find(|f| f.file == "search-index.js")
        .expect("search-index.js")
        .html;
    let json = js
        .split_once("window.ISA_NAV = ")
        .expect("assigns window.ISA_NAV")
        .1
        .trim_end()
        .strip_suffix(';')
        .expect("one statement");
    serde_json::from_str(json).expect("the entries are JSON")
}

/// The synthetic spec of `benches/diff.sh spec opcodes N` (`benches/doc.sh` measures
/// `isa doc` of it): N optypes of a 16-bit `Optype`, one opcode each.
fn synthetic(n: usize) -> isa_gen::Checked {
    let mut s = String::from("__DefBitFieldType Optype<16>\n");
    for i in 0..n {
        s += &format!("    OP{i} = {};\n", i + 1);
    }
    s += "__DefRegFile Reg<8>\n    R 0..254;\n    RZ = 255;\n__DefRegFile Pred<3>\n    P 0..6;\n    PT = 7;\n__DefGroup ALL\n";
    for i in 0..n {
        s += &format!(
            "__DefOptype OP{i}: [ALL]\n  __Encoding\n    field<0, 16> Optype optype == OP{i};\n    field<16, 8> Reg rd;\n    field<125, 3> Pred pg = PT;\n__DefOpcode OP{i}_R: [OP{i}]\n  __Encoding\n    field<24, 8> Reg ra;\n  __OperandInfo\n    InList<ra>;\n    OutList<rd>;\n    Order<pg, rd, ra>;\n"
        );
    }
    let checked = isa_gen::Spec::from_texts([("synthetic.isa", s.as_str())]).check();
    assert!(!checked.has_errors(), "{}", checked.render_diagnostics());
    checked
}

/// The sidebar is one shared script listing every optype and opcode; pages carry none
/// of it, only their own content.
#[test]
fn the_sidebar_is_shared_and_lists_every_opcode() {
    let (checked, site) = render();
    let model = checked.model.as_ref().unwrap();
    let nav = sidebar(&site);
    let entries: Vec<&Vec<String>> = nav.iter().flat_map(|(_, e)| e).collect();
    let hrefs: BTreeSet<&str> = entries.iter().map(|e| e[0].as_str()).collect();
    for (_, d) in model.optypes() {
        assert!(
            hrefs.contains(format!("{}.html", d.name).as_str()),
            "{}",
            d.name
        );
    }
    for f in ["types.html", "opcode-map.html", "group-ALL.html"] {
        assert!(hrefs.contains(f), "{f}");
    }
    for o in &model.opcodes {
        let name = o.name.to_lowercase();
        assert!(
            entries.iter().any(|e| e[3].split(' ').any(|k| k == name)),
            "{}: not in the filter's keys",
            o.name
        );
    }
    // Headings: the spec files, then groups and types.
    let heads: Vec<&str> = nav.iter().map(|(h, _)| h.as_str()).collect();
    assert!(heads.ends_with(&["Groups", "Types"]), "{heads:?}");
    // A page does not repeat the list: SHFL's page has no link to BRA's, which its
    // own content does not mention.
    let shfl = &site
        .pages
        .iter()
        .find(|p| p.file == "SHFL.html")
        .unwrap()
        .html;
    assert!(!shfl.contains(r#"href="BRA.html""#));
    assert!(!shfl.contains("navsec"));
}

/// What a reference of N opcodes writes grows as N: a page's size does not depend on
/// the number of opcodes, and the index, types page, opcode map and search index grow
/// in proportion (before the sidebar was shared, every page carried a link to every
/// optype: 480 KB a page at 4,096 opcodes).
#[test]
fn the_size_of_the_reference_grows_linearly_with_the_spec() {
    let sizes = |n: usize| -> BTreeMap<String, usize> {
        let checked = synthetic(n);
        let site = site(&checked).expect("pages");
        let pages = site.pages.iter().chain(&site.shared);
        // Other optypes are not linked from an optype's page.
        let op1 = &site
            .pages
            .iter()
            .find(|p| p.file == "OP1.html")
            .unwrap()
            .html;
        assert!(!op1.contains("OP2.html") && !op1.contains("OP0.html"));
        assert_eq!(sidebar(&site)[0].1.len(), n, "every optype in the sidebar");
        pages.map(|p| (p.file.clone(), p.html.len())).collect()
    };
    let (small, big) = (sizes(32), sizes(256));
    let largest_page = |s: &BTreeMap<String, usize>| {
        s.iter()
            .filter(|(f, _)| f.starts_with("OP"))
            .map(|(_, &n)| n)
            .max()
            .unwrap()
    };
    // The same page in both: only the opcode's number may be longer.
    let (a, b) = (largest_page(&small), largest_page(&big));
    assert!(
        b <= a + 256,
        "an optype page: {a} bytes at 32 opcodes, {b} at 256"
    );
    assert!(b < 16_000, "an optype page is {b} bytes");
    // Files listing every optype: at most 8 times larger for 8 times the opcodes.
    for f in [
        "index.html",
        "types.html",
        "opcode-map.html",
        "group-ALL.html",
        "search-index.js",
    ] {
        let (a, b) = (small[f], big[f]);
        assert!(
            b <= 8 * a + 8 * 256,
            "{f}: {a} bytes at 32 opcodes, {b} at 256"
        );
    }
    let total = |s: &BTreeMap<String, usize>| s.values().sum::<usize>();
    let (a, b) = (total(&small), total(&big));
    assert!(
        b <= 8 * a,
        "the reference: {a} bytes at 32 opcodes, {b} at 256"
    );
}

#[test]
fn a_spec_with_errors_gives_no_pages() {
    let checked =
        isa_gen::Spec::from_texts([("bad.isa", "__DefGroup ALL\n__DefOpcode X : [NOPE]\n")])
            .check();
    assert!(checked.has_errors());
    assert!(site(&checked).is_none());
}
