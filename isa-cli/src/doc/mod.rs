//! `isa doc [SPEC...] -o DIR`: the ISA reference as static HTML.
//!
//! One page per optype (its spec text, then every opcode with an encoding diagram,
//! assembly form, operand, modifier, field and exception tables), a page per group,
//! a page of types, and an index with a filter box. Pages share three files written
//! once beside them: the style sheet, the script, and the sidebar's entries
//! (`search-index.js`), so a page's size does not grow with the spec (the sidebar lists
//! every optype: copied into each page, the reference grew as the square of the spec).
//! Everything works opened from disk (`file://`); a page read without JavaScript keeps
//! its content and links to the index.
//!
//! Nothing here is retyped from the spec: every fact comes from the checked model, the
//! prose from the authors' Markdown (rendered by pulldown-cmark), the example encodings
//! from the interpreting assembler.

pub mod examples;
pub mod html;
pub mod opmap;
pub mod svg;
pub mod text;

#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use isa_gen::asm::Assembler;
use isa_gen::model::{DefId, DefKind, Model, Opcode, OperandKind, Role, TypeKind};
use isa_gen::syntax::ast::{DocKind, DocSection};
use isa_gen::Checked;

use examples::{Example, Outcome};
use html::{esc, NavItem};

/// `isa doc [SPEC...] -o DIR`.
pub fn run(paths: &[PathBuf], dir: &Path) -> Result<ExitCode, String> {
    if dir.exists() && !dir.is_dir() {
        return Err(format!("{}: not a directory", dir.display()));
    }
    let report = crate::spec::check(
        paths,
        &Default::default(),
        crate::spec::Show::Errors,
        Default::default(),
    )?;
    let Some(site) = site(&report.checked) else {
        errln!("{}", report.summary());
        return Ok(ExitCode::from(1));
    };
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for p in site.shared.iter().chain(&site.pages) {
        let path = dir.join(&p.file);
        std::fs::write(&path, &p.html).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    errln!(
        "{}; wrote {} pages to {}",
        report.summary(),
        site.pages.len(),
        dir.join("index.html").display()
    );
    Ok(ExitCode::SUCCESS)
}

/// A generated page.
pub struct Page {
    pub file: String,
    pub html: String,
}

/// Every page of the reference, and the files they share.
pub struct Site {
    /// The HTML pages.
    pub pages: Vec<Page>,
    /// The style sheet, the script and the search index every page links.
    pub shared: Vec<Page>,
}

/// Builds the reference, or None when the spec has errors.
pub fn site(checked: &Checked) -> Option<Site> {
    let model = checked.model.as_ref()?;
    let cx = Cx::new(checked, model);
    let mut pages = Vec::new();
    pages.push(Page {
        file: "index.html".into(),
        html: cx.index_page(),
    });
    for key in &cx.page_keys {
        pages.push(Page {
            file: format!("{}.html", key.name(model)),
            html: cx.definition_page(*key),
        });
    }
    for (i, d) in model.defs.iter().enumerate() {
        if d.kind == DefKind::Group {
            pages.push(Page {
                file: group_file(&d.name),
                html: cx.group_page(DefId(i)),
            });
        }
    }
    pages.push(Page {
        file: "types.html".into(),
        html: cx.types_page(),
    });
    pages.push(Page {
        file: "opcode-map.html".into(),
        html: cx.opcode_map_page(),
    });
    let shared = vec![
        Page {
            file: html::STYLE_FILE.into(),
            html: html::CSS.trim_start().into(),
        },
        Page {
            file: html::SCRIPT_FILE.into(),
            html: html::JS.trim_start().into(),
        },
        Page {
            file: html::INDEX_FILE.into(),
            html: html::search_index(&cx.nav),
        },
    ];
    Some(Site { pages, shared })
}

fn group_file(name: &str) -> String {
    format!("group-{name}.html")
}

/// What a definition page is about: an optype, or an opcode without one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PageKey {
    Optype(DefId),
    Orphan(usize),
}

impl PageKey {
    fn name<'m>(&self, model: &'m Model) -> &'m str {
        match *self {
            PageKey::Optype(d) => &model.def(d).name,
            PageKey::Orphan(i) => &model.opcodes[i].name,
        }
    }
}

struct Cx<'a> {
    checked: &'a Checked,
    model: &'a Model,
    asm: Assembler<'a>,
    /// Definition pages in source order.
    page_keys: Vec<PageKey>,
    /// Name → URL for links (`BRX.html`, `BRX.html#BRX_R`, `group-BRU.html`,
    /// `types.html#type-Reg`).
    urls: HashMap<String, String>,
    /// Page file of each opcode.
    opcode_page: Vec<String>,
    /// The opcodes of each optype, in order.
    optype_ops: HashMap<DefId, Vec<usize>>,
    /// The names of the groups.
    groups: HashSet<String>,
    nav: Vec<NavItem>,
    /// Examples written anywhere that assemble as each opcode: (owner, line, word).
    examples_of: Vec<Vec<(String, String, u128)>>,
}

impl<'a> Cx<'a> {
    fn new(checked: &'a Checked, model: &'a Model) -> Cx<'a> {
        let asm = Assembler::new(model);
        // The opcode of each opcode definition, the opcodes of each optype (in order).
        let mut opcode_of_def: HashMap<DefId, usize> = HashMap::new();
        let mut optype_ops: HashMap<DefId, Vec<usize>> = HashMap::new();
        for (k, o) in model.opcodes.iter().enumerate() {
            opcode_of_def.entry(o.def).or_insert(k);
            if let Some(d) = o.optype {
                optype_ops.entry(d).or_default().push(k);
            }
        }
        let mut page_keys = Vec::new();
        for (i, d) in model.defs.iter().enumerate() {
            match d.kind {
                DefKind::Optype => page_keys.push(PageKey::Optype(DefId(i))),
                DefKind::Opcode => {
                    if let Some(&k) = opcode_of_def.get(&DefId(i)) {
                        if model.opcodes[k].optype.is_none() {
                            page_keys.push(PageKey::Orphan(k));
                        }
                    }
                }
                DefKind::Group => {}
            }
        }
        let groups = model
            .defs
            .iter()
            .filter(|d| d.kind == DefKind::Group)
            .map(|d| d.name.clone())
            .collect();
        let opcode_page: Vec<String> = model
            .opcodes
            .iter()
            .map(|o| match o.optype {
                Some(d) => format!("{}.html", model.def(d).name),
                None => format!("{}.html", o.name),
            })
            .collect();
        let mut urls = HashMap::new();
        for t in &model.types {
            urls.insert(t.name.clone(), format!("types.html#type-{}", t.name));
        }
        for w in &model.words {
            urls.insert(w.name.clone(), format!("types.html#word-{}", w.name));
        }
        for d in &model.defs {
            match d.kind {
                DefKind::Group => {
                    urls.insert(d.name.clone(), group_file(&d.name));
                }
                DefKind::Optype => {
                    urls.insert(d.name.clone(), format!("{}.html", d.name));
                }
                DefKind::Opcode => {}
            }
        }
        for (i, o) in model.opcodes.iter().enumerate() {
            urls.insert(o.name.clone(), format!("{}#{}", opcode_page[i], o.name));
        }
        let mut cx = Cx {
            checked,
            model,
            asm,
            page_keys,
            urls,
            opcode_page,
            optype_ops,
            groups,
            nav: Vec::new(),
            examples_of: vec![Vec::new(); model.opcodes.len()],
        };
        cx.nav = cx.nav_items();
        for d in &model.defs {
            for s in &d.docs {
                for ex in examples::section(model, &cx.asm, &checked.diagnostics, s) {
                    if let Outcome::Assembled { opcode, word, .. } = ex.outcome {
                        // A line given again (a definition repeating its parent's
                        // examples) is listed once, where it is first written.
                        let line = ex.line.text.trim().to_string();
                        let list = &mut cx.examples_of[opcode];
                        if !list.iter().any(|(_, l, w)| *l == line && *w == word) {
                            list.push((d.name.clone(), line, word));
                        }
                    }
                }
            }
        }
        cx
    }

    /// The opcodes a page shows.
    fn opcodes_of(&self, key: PageKey) -> Vec<usize> {
        match key {
            PageKey::Optype(d) => self.optype_ops.get(&d).cloned().unwrap_or_default(),
            PageKey::Orphan(i) => vec![i],
        }
    }

    fn key_def(&self, key: PageKey) -> DefId {
        match key {
            PageKey::Optype(d) => d,
            PageKey::Orphan(i) => self.model.opcodes[i].def,
        }
    }

    fn file_of(&self, span: isa_gen::source::Span) -> String {
        let name = &self.checked.sources.get(span.file).name;
        Path::new(name)
            .file_name()
            .map_or(name.clone(), |f| f.to_string_lossy().into_owned())
    }

    fn location(&self, span: isa_gen::source::Span) -> String {
        self.checked.sources.location(span).to_string()
    }

    /// A one-line summary of a definition: the first line of prose of its description.
    fn summary(&self, def: DefId) -> String {
        let d = self.model.def(def);
        let Some(desc) = d.docs.iter().find(|s| s.kind == DocKind::Description) else {
            return String::new();
        };
        html::first_paragraph(&desc.text)
    }

    fn nav_items(&self) -> Vec<NavItem> {
        let model = self.model;
        let mut items = Vec::new();
        for key in &self.page_keys {
            let def = self.key_def(*key);
            let d = model.def(def);
            let ops = self.opcodes_of(*key);
            let mut keys = vec![
                d.name.to_lowercase(),
                d.name.replace('_', ".").to_lowercase(),
            ];
            for &i in &ops {
                let o = &model.opcodes[i];
                keys.push(o.name.to_lowercase());
                for a in &o.ancestors {
                    let n = model.def(*a).name.to_lowercase();
                    if !keys.contains(&n) {
                        keys.push(n);
                    }
                }
            }
            keys.push(self.file_of(d.span).to_lowercase());
            keys.push(self.summary(def).to_lowercase());
            items.push(NavItem {
                href: format!("{}.html", key.name(model)),
                label: d.name.clone(),
                note: format!("{}", ops.len()),
                keys: keys.join(" "),
                section: self.file_of(d.span),
            });
        }
        for d in model.defs.iter().filter(|d| d.kind == DefKind::Group) {
            items.push(NavItem {
                href: group_file(&d.name),
                label: d.name.clone(),
                note: "group".into(),
                keys: format!("{} group {}", d.name.to_lowercase(), self.file_of(d.span)),
                section: "Groups".into(),
            });
        }
        items.push(NavItem {
            href: "types.html".into(),
            label: "Types".into(),
            note: format!("{}", model.types.len()),
            keys: "types enum register immediate".into(),
            section: "Types".into(),
        });
        items.push(NavItem {
            href: "opcode-map.html".into(),
            label: "Opcode map".into(),
            note: String::new(),
            keys: "opcode map head free".into(),
            section: "Types".into(),
        });
        items
    }

    /// A link to a named item, or the name in code when it has no page.
    fn link(&self, name: &str) -> String {
        match self.urls.get(name) {
            Some(u) => format!(r#"<a href="{}"><code>{}</code></a>"#, esc(u), esc(name)),
            None => format!("<code>{}</code>", esc(name)),
        }
    }

    /// The linker for prose on page `page`: explicit references always link (to an
    /// anchor when on the same page); inline code links only to other pages, and never
    /// to the root-most groups (`ALL` is also a VOTE mode).
    fn linker(&self, page: &str) -> impl Fn(&str, bool) -> Option<String> + '_ {
        let page = page.to_string();
        move |name: &str, explicit: bool| {
            let url = self.urls.get(name)?;
            let (file, _) = url.split_once('#').unwrap_or((url.as_str(), ""));
            if explicit {
                return Some(if file == page {
                    url.strip_prefix(file)
                        .filter(|a| !a.is_empty())?
                        .to_string()
                } else {
                    url.clone()
                });
            }
            (file != page && !self.groups.contains(name)).then(|| url.clone())
        }
    }

    // -- Markdown sections -----------------------------------------------------------

    /// A spec section: its Markdown, with the code blocks of `__Examples` replaced by
    /// tables of the lines and their encodings.
    fn doc_section(&self, doc: &DocSection, page: &str, heading: u8) -> String {
        let link = self.linker(page);
        let exs = examples::section(self.model, &self.asm, &self.checked.diagnostics, doc);
        let mut done = vec![false; doc.code_blocks.len()];
        let mut block = |k: usize| -> Option<String> {
            if doc.kind != DocKind::Examples || k >= doc.code_blocks.len() {
                return None;
            }
            done[k] = true;
            Some(self.examples_table(&doc.code_blocks[k], &exs, page))
        };
        let shift = heading.saturating_sub(1);
        let mut s = format!(
            r#"<h{heading} id="{}">{}</h{heading}><div class="spec">"#,
            section_id(doc.kind),
            esc(doc.kind.title())
        );
        s.push_str(&html::markdown(&doc.text, &link, shift, &mut block));
        for (k, b) in doc.code_blocks.iter().enumerate() {
            if doc.kind == DocKind::Examples && !done[k] {
                s.push_str(&self.examples_table(b, &exs, page));
            }
        }
        if doc.kind == DocKind::Examples && doc.code_blocks.is_empty() {
            s.push_str(r#"<p class="warn">This section holds no fenced code block, so there is nothing to assemble.</p>"#);
        }
        s.push_str("</div>");
        s
    }

    fn examples_table(
        &self,
        block: &isa_gen::syntax::ast::CodeBlock,
        exs: &[Example],
        page: &str,
    ) -> String {
        let mut s = String::from(
            r#"<table class="ex"><thead><tr><th>Example line</th><th>Encoding (hex)</th><th>Opcode</th></tr></thead><tbody>"#,
        );
        for line in &block.lines {
            if line.text.trim().is_empty() {
                continue;
            }
            let outcome = exs
                .iter()
                .find(|e| std::ptr::eq(e.line, line))
                .map(|e| &e.outcome)
                .unwrap_or(&Outcome::NoInstruction);
            let text = esc(line.text.trim_end());
            match outcome {
                Outcome::NoInstruction => {
                    let _ = write!(
                        s,
                        r#"<tr class="prose"><td class="line" colspan="3">{text}</td></tr>"#
                    );
                }
                Outcome::Assembled {
                    opcode,
                    word,
                    warnings,
                    ..
                } => {
                    let name = &self.model.opcodes[*opcode].name;
                    let href = if self.opcode_page[*opcode] == page {
                        format!("#{name}")
                    } else {
                        format!("{}#{name}", self.opcode_page[*opcode])
                    };
                    let _ = write!(
                        s,
                        r#"<tr class="ok" data-opcode="{n}"><td class="line">{text}</td><td class="word"><code>{}</code></td><td><a href="{}"><code>{n}</code></a></td></tr>"#,
                        examples::word_hex(*word),
                        esc(&href),
                        n = esc(name),
                    );
                    for w in warnings {
                        let _ = write!(
                            s,
                            r#"<tr class="note"><td class="warn" colspan="3">{}</td></tr>"#,
                            esc(w)
                        );
                    }
                }
                Outcome::Rejected { reasons } => {
                    let _ = write!(
                        s,
                        r#"<tr class="bad"><td class="line">{text}</td><td class="warn" colspan="2">{}</td></tr>"#,
                        reasons
                            .iter()
                            .map(|r| esc(r))
                            .collect::<Vec<_>>()
                            .join("<br>")
                    );
                }
            }
        }
        s.push_str("</tbody></table>");
        s
    }

    // -- Pages -----------------------------------------------------------------------

    fn crumbs(&self, def: DefId) -> String {
        let d = self.model.def(def);
        let mut s = String::from(r#"<p class="crumbs"><a href="index.html">Index</a>"#);
        if d.parents.is_empty() {
            s.push_str(" · root");
        } else {
            s.push_str(" · parents: ");
            let ps: Vec<String> = d
                .parents
                .iter()
                .map(|p| self.link(&self.model.def(*p).name))
                .collect();
            s.push_str(&ps.join(", "));
        }
        let _ = write!(
            s,
            " · <span title=\"where it is defined\">{}</span></p>",
            esc(&self.location(d.span))
        );
        s
    }

    fn definition_page(&self, key: PageKey) -> String {
        let model = self.model;
        let def = self.key_def(key);
        let d = model.def(def);
        let file = format!("{}.html", key.name(model));
        let ops = self.opcodes_of(key);
        let mnemonic = ops
            .first()
            .map(|&i| isa_gen::asm::mnemonic(model, i))
            .unwrap_or_else(|| d.name.replace('_', "."));
        let mut m = String::new();
        let _ = write!(
            m,
            r#"<header id="top">{}<h1><code>{}</code><span class="kind">{}{}</span></h1></header>"#,
            self.crumbs(def),
            esc(&d.name),
            d.kind.noun(),
            if mnemonic != d.name {
                format!(" · mnemonic <code>{}</code>", esc(&mnemonic))
            } else {
                String::new()
            }
        );
        // On this page.
        let mut docs: Vec<&DocSection> = d.docs.iter().collect();
        docs.sort_by_key(|s| s.kind);
        m.push_str(r#"<nav class="toc" aria-label="On this page"><b>On this page:</b>"#);
        for s in &docs {
            if s.kind <= DocKind::ModifierInfo {
                let _ = write!(
                    m,
                    r##"<a href="#{}">{}</a>"##,
                    section_id(s.kind),
                    s.kind.title()
                );
            }
        }
        for &i in &ops {
            let n = &model.opcodes[i].name;
            let _ = write!(m, r##"<a href="#{n}"><code>{n}</code></a>"##, n = esc(n));
        }
        for s in &docs {
            if s.kind > DocKind::ModifierInfo {
                let _ = write!(
                    m,
                    r##"<a href="#{}">{}</a>"##,
                    section_id(s.kind),
                    s.kind.title()
                );
            }
        }
        m.push_str("</nav>");
        if matches!(key, PageKey::Orphan(_)) {
            m.push_str(r#"<p class="warn">This opcode has no <code>__DefOptype</code> ancestor (the checker warns about it), so it has a page of its own.</p>"#);
        }
        // Spec sections before the encodings.
        for s in docs.iter().filter(|s| s.kind <= DocKind::ModifierInfo) {
            m.push_str(&self.doc_section(s, &file, 2));
        }
        for &i in &ops {
            m.push_str(&self.opcode_section(i, &file, matches!(key, PageKey::Optype(_))));
        }
        for s in docs.iter().filter(|s| s.kind > DocKind::ModifierInfo) {
            m.push_str(&self.doc_section(s, &file, 2));
        }
        html::page(&d.name, &file, &m)
    }

    fn opcode_section(&self, i: usize, page: &str, under_optype: bool) -> String {
        let model = self.model;
        let op = &model.opcodes[i];
        let d = model.def(op.def);
        let mut s = String::new();
        let _ = write!(
            s,
            r#"<section class="opcode" id="{n}" data-opcode="{n}"><h2><code>{n}</code><span class="kind">opcode</span></h2>"#,
            n = esc(&op.name)
        );
        let parents: Vec<String> = d
            .parents
            .iter()
            .map(|p| self.link(&model.def(*p).name))
            .collect();
        let fixed: Vec<String> = op
            .fields
            .iter()
            .filter_map(|f| match f.role {
                Role::Fixed(c) => Some(format!(
                    "<code>{} == {}</code>",
                    esc(&f.name),
                    esc(&text::value_text(model.ty(f.ty), c))
                )),
                _ => None,
            })
            .collect();
        let _ = write!(
            s,
            r#"<p class="meta">Parents: {} · identified by {} · {}</p>"#,
            parents.join(", "),
            fixed.join(", "),
            esc(&self.location(op.span))
        );
        let ancestors: Vec<String> = op
            .ancestors
            .iter()
            .map(|a| self.link(&model.def(*a).name))
            .collect();
        let _ = write!(
            s,
            r#"<p class="meta">Inherits from (nearest first): {}</p>"#,
            ancestors.join(" → ")
        );

        // Encoding.
        let (diagram, _) = svg::diagram(model, i, &op.name);
        s.push_str(r#"<h3>Encoding</h3><figure class="enc">"#);
        s.push_str(&diagram.svg);
        s.push_str(r#"<figcaption class="legend"><span>Declared in:</span>"#);
        for (def, fill) in &diagram.legend {
            let name = &model.def(*def).name;
            let what = if *def == op.def {
                "this opcode".to_string()
            } else {
                format!("{} (inherited)", model.def(*def).kind.noun())
            };
            let _ = write!(
                s,
                r#"<span><span class="sw" style="background:{fill}"></span>{} {what}</span>"#,
                self.link(name)
            );
        }
        let reserved = (!op.covered).count_ones();
        let _ = write!(
            s,
            r#"<span><span class="sw rsv"></span>reserved ({reserved} bits, must be zero)</span><span>fixed fields show their bits in blue</span></figcaption></figure>"#
        );

        // Assembly form.
        let mnemonic = isa_gen::asm::mnemonic(model, i);
        // The guard's own field name (the spec's, not a fixed one), when it has one.
        let guard = op
            .guard(model)
            .map(|g| {
                format!(
                    ", <code>@{}</code> is the guard predicate",
                    esc(&op.fields[g].name)
                )
            })
            .unwrap_or_default();
        let _ = write!(
            s,
            r#"<h3>Assembly</h3><pre class="syntax"><code>{}</code></pre><p class="meta">From the encoding: <code>{{…}}</code> may be left out (default){guard}, modifiers print as <code>.VALUE</code>.</p>"#,
            esc(&text::syntax_template(model, &self.asm, i, &mnemonic))
        );

        s.push_str(&self.operand_table(op));
        s.push_str(&self.modifier_table(op));
        s.push_str(&self.field_table(op));
        s.push_str(&self.exception_table(op));

        // The opcode's own spec text (the optype's is on the page already).
        let own: Vec<&DocSection> = if under_optype {
            d.docs.iter().collect()
        } else {
            Vec::new()
        };
        for doc in own {
            s.push_str(&self.doc_section(doc, page, 3).replacen(
                &format!(r#"id="{}""#, section_id(doc.kind)),
                &format!(r#"id="{}-{}""#, esc(&op.name), section_id(doc.kind)),
                1,
            ));
        }

        let exs = &self.examples_of[i];
        if !exs.is_empty() {
            s.push_str(r#"<h3>Examples that assemble as this opcode</h3><table class="ex"><thead><tr><th>Line</th><th>Encoding (hex)</th><th>Written in</th></tr></thead><tbody>"#);
            for (owner, line, word) in exs {
                let _ = write!(
                    s,
                    r#"<tr><td class="line">{}</td><td class="word"><code>{}</code></td><td>{}</td></tr>"#,
                    esc(line),
                    examples::word_hex(*word),
                    self.link(owner)
                );
            }
            s.push_str("</tbody></table>");
        }
        s.push_str("</section>");
        s
    }

    fn type_cell(&self, ty: isa_gen::model::TypeId) -> String {
        let t = self.model.ty(ty);
        format!(
            r#"{} <span class="n">{}</span>"#,
            self.link(&t.name),
            esc(&kind_short(t))
        )
    }

    fn operand_table(&self, op: &Opcode) -> String {
        let model = self.model;
        if op.order.is_empty() {
            return "<h3>Operands</h3><p>None.</p>".into();
        }
        let guard = op.guard(model);
        let mut s = String::from(
            r#"<h3>Operands</h3><table class="ops"><thead><tr><th title="position in Order">#</th><th>Operand</th><th>Fields (bits)</th><th>Use</th><th>Type</th><th>Bitwidth</th><th>Default</th></tr></thead><tbody>"#,
        );
        for (pos, o) in op.order.iter().enumerate() {
            let (inp, out) = text::operand_in_out(op, o);
            let mut use_ = String::new();
            if inp {
                use_.push_str(r#"<span class="tag in">in</span> "#);
            }
            if out {
                use_.push_str(r#"<span class="tag out">out</span>"#);
            }
            let is_guard = matches!(o.kind, OperandKind::Field(f) if Some(f) == guard);
            if is_guard {
                use_.push_str(r#" <span class="tag">guard</span>"#);
            }
            let fs = text::operand_fields(o);
            let mut fields: Vec<String> = Vec::new();
            for &f in &fs {
                let fd = &op.fields[f];
                fields.push(format!(
                    "<code>{}</code> <span class=\"n\">{}</span>",
                    esc(&fd.name),
                    bits(fd.start, fd.width)
                ));
                for k in op.sub_fields(f) {
                    let sf = &op.fields[k];
                    fields.push(format!(
                        "<code>{}</code> <span class=\"n\">{} · written <code>{}</code></span>",
                        esc(&sf.name),
                        bits(sf.start, sf.width),
                        esc(&text::sub_field_marker(op, sf))
                    ));
                }
            }
            let ty = match o.kind {
                OperandKind::Field(f) => self.type_cell(op.fields[f].ty),
                OperandKind::CMemIndexed { mem, reg } => format!(
                    "{} + {}",
                    self.type_cell(op.fields[mem].ty),
                    self.type_cell(op.fields[reg].ty)
                ),
                OperandKind::RegIndexed { file, offset, .. } => format!(
                    "{} + {}",
                    self.type_cell(file),
                    self.type_cell(op.fields[offset].ty)
                ),
                OperandKind::Word(w) => format!(
                    "{} <span class=\"n\">word for {}</span>",
                    self.link(&model.words[w.0].name),
                    esc(&model.ty(model.words[w.0].reg_file).name)
                ),
            };
            let mut shown = esc(&text::operand_text(model, op, o));
            for a in &op.asm_formats {
                match *a {
                    isa_gen::model::AsmFormat::IShift { field, shift } if fs.contains(&field) => {
                        let _ = write!(
                            shown,
                            "<br><span class=\"n\">branch target, written as the address pc + 16 + ({} &lt;&lt; {shift})</span>",
                            esc(&op.fields[field].name)
                        );
                    }
                    isa_gen::model::AsmFormat::INegX { neg, ext }
                        if fs.iter().any(|&f| op.fields[neg].role == Role::SubField(f)) =>
                    {
                        let _ = write!(
                            shown,
                            "<br><span class=\"n\"><code>{}</code> written <code>-</code>, or <code>~</code> when <code>{}</code> is X</span>",
                            esc(&op.fields[neg].name),
                            esc(&op.fields[ext].name)
                        );
                    }
                    _ => {}
                }
            }
            let width = fs
                .iter()
                .find_map(|&f| op.bitwidth(f))
                .map(|b| {
                    let summary = text::width_summary(model, op, &b.expr);
                    let txt = text::expr_text(model, op, &b.expr);
                    if summary == txt {
                        format!("<code>{}</code>", esc(&txt))
                    } else if b.expr.as_const().is_some() {
                        esc(&summary)
                    } else {
                        format!(
                            "{}<br><span class=\"n\"><code>{}</code></span>",
                            esc(&summary),
                            esc(&txt)
                        )
                    }
                })
                .unwrap_or_else(|| "—".into());
            let default: Vec<String> = fs
                .iter()
                .filter_map(|&f| {
                    let fd = &op.fields[f];
                    fd.default.map(|c| {
                        format!(
                            "<code>{}</code>",
                            esc(&text::value_text(model.ty(fd.ty), c))
                        )
                    })
                })
                .collect();
            let _ = write!(
                s,
                r#"<tr><td class="num">{pos}</td><td><code>{shown}</code></td><td>{}</td><td>{use_}</td><td>{ty}</td><td>{width}</td><td>{}</td></tr>"#,
                fields.join("<br>"),
                if default.is_empty() {
                    "required".to_string()
                } else {
                    default.join(", ")
                }
            );
        }
        s.push_str("</tbody></table>");
        s
    }

    fn modifier_table(&self, op: &Opcode) -> String {
        let model = self.model;
        let mods: Vec<_> = op
            .fields
            .iter()
            .filter(|f| f.role == Role::Modifier)
            .collect();
        if mods.is_empty() {
            return String::new();
        }
        let mut s = String::from(
            r#"<h3>Modifiers</h3><table class="mods"><thead><tr><th>Modifier</th><th>Bits</th><th>Type</th><th>Values (code)</th><th>Default</th></tr></thead><tbody>"#,
        );
        for f in mods {
            let t = model.ty(f.ty);
            let values = match t.enum_values() {
                Some(vs) => vs
                    .iter()
                    .map(|v| {
                        format!(
                            r#"<code{}>.{}</code>&nbsp;<span class="n">{}</span>"#,
                            if f.default == Some(v.code) {
                                r#" class="dflt" title="default""#
                            } else {
                                ""
                            },
                            esc(&v.name),
                            v.code
                        )
                    })
                    .collect::<Vec<_>>()
                    .join(" "),
                None => esc(&kind_short(t)),
            };
            let _ = write!(
                s,
                r#"<tr><td><code>.{}</code></td><td class="num">{}</td><td>{}</td><td class="vals">{values}</td><td>{}</td></tr>"#,
                esc(&f.name),
                bits(f.start, f.width),
                self.link(&t.name),
                match f.default {
                    Some(c) => format!(
                        "<code>{}</code> (not printed)",
                        esc(&text::value_text(t, c))
                    ),
                    None => "required".into(),
                }
            );
        }
        s.push_str("</tbody></table>");
        s
    }

    fn field_table(&self, op: &Opcode) -> String {
        let model = self.model;
        let mut idx: Vec<usize> = (0..op.fields.len()).collect();
        idx.sort_by_key(|&k| std::cmp::Reverse(op.fields[k].start));
        let mut s = String::from(
            r#"<h3>Fields</h3><table class="fields"><thead><tr><th>Bits</th><th>Width</th><th>Field</th><th>Type</th><th>Role</th><th>Value</th><th>Declared in</th></tr></thead><tbody>"#,
        );
        for k in idx {
            let f = &op.fields[k];
            let t = model.ty(f.ty);
            let value = match f.role {
                Role::Fixed(c) => format!(
                    "<code>== {}</code> <span class=\"n\">({c:#b})</span>",
                    esc(&text::value_text(t, c))
                ),
                _ => match f.default {
                    Some(c) => format!("<code>= {}</code>", esc(&text::value_text(t, c))),
                    None => String::new(),
                },
            };
            let role = match f.role {
                Role::SubField(b) => {
                    format!("sub-field of <code>{}</code>", esc(&op.fields[b].name))
                }
                r => text::role_name(r).to_string(),
            };
            let _ = write!(
                s,
                r#"<tr data-field="{n}"><td class="num">{}</td><td class="num">{}</td><td><code>{n}</code></td><td>{}</td><td>{role}</td><td>{value}</td><td>{}</td></tr>"#,
                bits(f.start, f.width),
                f.width,
                self.type_cell(f.ty),
                if f.origin == op.def {
                    "this opcode".to_string()
                } else {
                    self.link(&model.def(f.origin).name)
                },
                n = esc(&f.name),
            );
        }
        s.push_str("</tbody></table>");
        s
    }

    fn exception_table(&self, op: &Opcode) -> String {
        if op.exceptions.is_empty() {
            return String::new();
        }
        let mut s = String::from(
            r#"<h3>Exceptions</h3><p class="meta">Field combinations the spec declares illegal; the assembler rejects them, <code>validate()</code> reports them.</p><table><thead><tr><th>Kind</th><th>Message</th><th>When</th></tr></thead><tbody>"#,
        );
        for x in &op.exceptions {
            let _ = write!(
                s,
                "<tr><td><code>{}</code></td><td>{}</td><td><code>{}</code></td></tr>",
                esc(&x.kind),
                esc(&x.message),
                esc(&text::expr_text(self.model, op, &x.cond))
            );
        }
        s.push_str("</tbody></table>");
        s
    }

    fn group_page(&self, g: DefId) -> String {
        let model = self.model;
        let d = model.def(g);
        let file = group_file(&d.name);
        let mut m = String::new();
        let _ = write!(
            m,
            r#"<header id="top">{}<h1><code>{}</code><span class="kind">group</span></h1></header>"#,
            self.crumbs(g),
            esc(&d.name)
        );
        // Children.
        let children: Vec<String> = model
            .defs
            .iter()
            .filter(|c| c.parents.contains(&g))
            .map(|c| {
                format!(
                    "{} <span class=\"n\">{}</span>",
                    self.link(&c.name),
                    c.kind.noun()
                )
            })
            .collect();
        if !children.is_empty() {
            let _ = write!(m, r#"<p>Children: {}</p>"#, children.join(", "));
        }
        // Fields it declares (as its opcodes see them).
        let below: Vec<usize> = (0..model.opcodes.len())
            .filter(|&i| model.opcodes[i].ancestors.contains(&g))
            .collect();
        let mut fields: BTreeMap<(std::cmp::Reverse<u32>, String), String> = BTreeMap::new();
        for &i in &below {
            let op = &model.opcodes[i];
            for f in op.fields.iter().filter(|f| f.origin == g) {
                let t = model.ty(f.ty);
                let init = match f.role {
                    Role::Fixed(c) => format!("== {}", text::value_text(t, c)),
                    _ => f
                        .default
                        .map(|c| format!("= {}", text::value_text(t, c)))
                        .unwrap_or_default(),
                };
                fields
                    .entry((std::cmp::Reverse(f.start), f.name.clone()))
                    .or_insert_with(|| {
                        format!(
                            r#"<tr><td class="num">{}</td><td><code>{}</code></td><td>{}</td><td><code>{}</code></td></tr>"#,
                            bits(f.start, f.width),
                            esc(&f.name),
                            self.type_cell(f.ty),
                            esc(&init)
                        )
                    });
            }
        }
        if !fields.is_empty() {
            m.push_str(r#"<h2>Fields it declares</h2><p class="meta">Inherited by every opcode below it (an opcode may re-declare a field to change its default).</p><table><thead><tr><th>Bits</th><th>Field</th><th>Type</th><th>Value</th></tr></thead><tbody>"#);
            for row in fields.values() {
                m.push_str(row);
            }
            m.push_str("</tbody></table>");
        }
        let mut docs: Vec<&DocSection> = d.docs.iter().collect();
        docs.sort_by_key(|s| s.kind);
        for s in docs {
            m.push_str(&self.doc_section(s, &file, 2));
        }
        if !below.is_empty() {
            let _ = write!(m, "<h2>Opcodes below it ({})</h2><p>", below.len());
            let links: Vec<String> = below
                .iter()
                .map(|&i| self.link(&model.opcodes[i].name))
                .collect();
            m.push_str(&links.join(" "));
            m.push_str("</p>");
        }
        html::page(&d.name, &file, &m)
    }

    fn types_page(&self) -> String {
        let model = self.model;
        // Where each type is used: optype (or opcode) names.
        let mut used: Vec<Vec<&str>> = vec![Vec::new(); model.types.len()];
        let mut seen: HashSet<(usize, &str)> = HashSet::new();
        for op in &model.opcodes {
            let owner = op.optype.map_or(op.name.as_str(), |d| &model.def(d).name);
            for f in &op.fields {
                if seen.insert((f.ty.0, owner)) {
                    used[f.ty.0].push(owner);
                }
            }
        }
        let mut m = String::from(
            r#"<header id="top"><p class="crumbs"><a href="index.html">Index</a></p><h1>Types</h1></header><p>Every type the fields use: bit-field enumerations (only the listed codes are defined), register files, immediates and constant-memory operands.</p><nav class="toc" aria-label="Types">"#,
        );
        for t in &model.types {
            let _ = write!(
                m,
                r##"<a href="#type-{n}"><code>{n}</code></a>"##,
                n = esc(&t.name)
            );
        }
        m.push_str("</nav>");
        for (k, t) in model.types.iter().enumerate() {
            let _ = write!(
                m,
                r#"<section class="type" id="type-{n}" data-k="{lk}"><h2><code>{n}</code><span class="kind">{} · {} bit{}</span></h2><p class="meta">{}</p>"#,
                esc(t.kind_noun()),
                t.width,
                if t.width == 1 { "" } else { "s" },
                esc(&self.location(t.span)),
                n = esc(&t.name),
                lk = esc(&t.name.to_lowercase()),
            );
            match &t.kind {
                TypeKind::Enum(vs) => {
                    m.push_str("<table><thead><tr><th>Value</th><th>Code</th></tr></thead><tbody>");
                    for v in vs {
                        let _ = write!(
                            m,
                            r#"<tr><td><code>{}</code></td><td class="num">{} <span class="n">({:#x})</span></td></tr>"#,
                            esc(&v.name),
                            v.code,
                            v.code
                        );
                    }
                    m.push_str("</tbody></table>");
                }
                TypeKind::RegFile(r) => {
                    let _ = write!(
                        m,
                        "<p>Registers <code>{p}{}</code> … <code>{p}{}</code> (code = number)",
                        r.lo,
                        r.hi,
                        p = esc(&r.prefix)
                    );
                    for (n, c) in &r.named {
                        let _ = write!(m, ", <code>{}</code> = {c}", esc(n));
                    }
                    m.push_str(". Named registers are constants: reads give a constant, writes are dropped.</p>");
                    for w in model.words.iter().filter(|w| w.reg_file.0 == k) {
                        let _ = write!(
                            m,
                            r#"<p id="word-{n}">Operand word <code>{n}</code> stands for <code>{p}{}</code> … <code>{p}{}</code>; it is written in assembly and encodes nothing.</p>"#,
                            w.lo,
                            w.hi,
                            n = esc(&w.name),
                            p = esc(&r.prefix)
                        );
                    }
                }
                TypeKind::Immediate { signed } => {
                    let _ = write!(
                        m,
                        "<p>{} immediate, every code valid{}.</p>",
                        if *signed {
                            "Signed (two's complement)"
                        } else {
                            "Unsigned"
                        },
                        if *signed {
                            "; printed with a sign (<code>-0x1</code>)"
                        } else {
                            ""
                        }
                    );
                }
                TypeKind::ConstMem {
                    bank_bits,
                    offset_bits,
                    offset_signed,
                } => {
                    let sign = if *offset_signed { "signed" } else { "unsigned" };
                    let _ = write!(
                        m,
                        "<p>Constant-memory reference <code>c[bank][offset]</code>: offset in the low {offset_bits} bits (a {sign} byte offset), bank in the {bank_bits} bits above.</p>"
                    );
                }
            }
            if !used[k].is_empty() {
                let links: Vec<String> = used[k].iter().map(|n| self.link(n)).collect();
                let _ = write!(m, "<p class=\"meta\">Used by: {}</p>", links.join(" "));
            }
            m.push_str("</section>");
        }
        html::page("Types", "types.html", &m)
    }

    fn index_page(&self) -> String {
        let model = self.model;
        let s = model.summary();
        let ex = self.checked.examples;
        let mut m = String::new();
        let _ = write!(
            m,
            r#"<header id="top"><h1>ISA reference</h1><p class="meta">{} files · {} types · {} groups · {} optypes · {} opcodes · examples: {} assemble, {} explained by warnings</p></header>"#,
            self.checked.sources.len(),
            s.types,
            s.groups,
            s.optypes,
            s.opcodes,
            ex.assembled,
            ex.warned
        );
        m.push_str(r#"<p><input id="q2" type="search" placeholder="Search optypes, opcodes, groups, text…" aria-label="Search the index" autocomplete="off"></p>"#);
        let files: Vec<String> = self
            .checked
            .sources
            .files()
            .map(|(_, f)| f.name.clone())
            .collect();
        let _ = write!(
            m,
            "<p class=\"meta\">Generated by <code>isa doc</code> from {}. Each optype page shows its spec text and, per opcode, the encoding, assembly form and operand tables. See also <a href=\"types.html\">all types</a>.</p>",
            files.iter().map(|f| format!("<code>{}</code>", esc(f))).collect::<Vec<_>>().join(", ")
        );
        let mut section: Option<&str> = None;
        for (k, key) in self.page_keys.iter().enumerate() {
            let item = &self.nav[k];
            if section != Some(item.section.as_str()) {
                if section.is_some() {
                    m.push_str("</ul>");
                }
                let _ = write!(
                    m,
                    r#"<h2>{}</h2><ul class="index-list">"#,
                    esc(&item.section)
                );
                section = Some(&item.section);
            }
            let def = self.key_def(*key);
            let ops = self.opcodes_of(*key);
            let mnemonic = ops
                .first()
                .map(|&i| isa_gen::asm::mnemonic(model, i))
                .unwrap_or_default();
            let op_links: Vec<String> = ops
                .iter()
                .map(|&i| {
                    format!(
                        r#"<a href="{}">{}</a>"#,
                        esc(&self.urls[&model.opcodes[i].name]),
                        esc(&model.opcodes[i].name)
                    )
                })
                .collect();
            let _ = write!(
                m,
                r#"<li data-k="{}"><a href="{}"><code><b>{}</b></code></a>{} <span class="n">{} opcode{}</span><p class="sum">{}</p><div class="ops">{}</div></li>"#,
                esc(&item.keys),
                esc(&item.href),
                esc(&model.def(def).name),
                if mnemonic != model.def(def).name && !mnemonic.is_empty() {
                    format!(" <code>{}</code>", esc(&mnemonic))
                } else {
                    String::new()
                },
                ops.len(),
                if ops.len() == 1 { "" } else { "s" },
                esc(&self.summary(def)),
                op_links.join(" ")
            );
        }
        if section.is_some() {
            m.push_str("</ul>");
        }
        m.push_str(r#"<h2>Groups</h2><ul class="index-list">"#);
        for d in model.defs.iter().filter(|d| d.kind == DefKind::Group) {
            let _ = write!(
                m,
                r#"<li data-k="{} group"><a href="{}"><code><b>{}</b></code></a> <span class="n">group · {}</span></li>"#,
                esc(&d.name.to_lowercase()),
                esc(&group_file(&d.name)),
                esc(&d.name),
                esc(&self.location(d.span))
            );
        }
        m.push_str("</ul>");
        let warnings: Vec<_> = self.checked.diagnostics.warnings().collect();
        if !warnings.is_empty() {
            let _ = write!(
                m,
                "<h2>Checker warnings</h2><details><summary>{} warnings about the spec files (what <code>isa check</code> reports)</summary><ul>",
                warnings.len()
            );
            for w in warnings {
                let _ = write!(
                    m,
                    "<li><code>{}</code>: {}</li>",
                    esc(&self.location(w.span)),
                    esc(&w.message)
                );
            }
            m.push_str("</ul></details>");
        }
        html::page("Index", "index.html", &m)
    }
}

fn section_id(k: DocKind) -> &'static str {
    match k {
        DocKind::Syntax => "syntax",
        DocKind::Description => "description",
        DocKind::OperandInfo => "operands",
        DocKind::ModifierInfo => "modifiers",
        DocKind::Semantics => "semantics",
        DocKind::Examples => "examples",
    }
}

/// `23:16`, or `5` for one bit.
fn bits(start: u32, width: u32) -> String {
    if width == 1 {
        format!("{start}")
    } else {
        format!("{}:{start}", start + width - 1)
    }
}

/// `register file R0–R254, RZ`, `unsigned 13-bit immediate`, `enum, 4 values`.
fn kind_short(t: &isa_gen::model::Type) -> String {
    match &t.kind {
        TypeKind::Enum(vs) => format!(
            "enum, {} value{}",
            vs.len(),
            if vs.len() == 1 { "" } else { "s" }
        ),
        TypeKind::RegFile(r) => {
            let mut s = format!("register {}{}–{}{}", r.prefix, r.lo, r.prefix, r.hi);
            for (n, _) in &r.named {
                s.push_str(&format!(", {n}"));
            }
            s
        }
        TypeKind::Immediate { signed } => format!(
            "{} {}-bit immediate",
            if *signed { "signed" } else { "unsigned" },
            t.width
        ),
        TypeKind::ConstMem { .. } => "constant memory c[bank][offset]".into(),
    }
}
