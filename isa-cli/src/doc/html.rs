//! HTML building blocks: escaping, the spec's Markdown through pulldown-cmark, the page
//! shell, and the files all pages share: the style sheet, the script and the sidebar's
//! entries (`search-index.js`). No network: every page works opened from disk.

use pulldown_cmark::{CodeBlockKind, CowStr, Event, HeadingLevel, Options, Parser, Tag, TagEnd};

/// Escapes text for HTML content and attribute values.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Resolves a name written in the prose to a URL: `link(name, true)` for an explicit
/// `[[NAME]]` reference, `link(name, false)` for inline code that happens to be a name
/// (the linker may decline those, e.g. links to the page itself).
pub type Linker<'a> = &'a dyn Fn(&str, bool) -> Option<String>;

/// Tabs to spaces (stops every 8 columns), so code keeps its alignment.
fn expand_tabs(line: &str) -> String {
    if !line.contains('\t') {
        return line.to_string();
    }
    let mut out = String::new();
    let mut col = 0;
    for c in line.chars() {
        if c == '\t' {
            let n = 8 - col % 8;
            out.extend(std::iter::repeat_n(' ', n));
            col += n;
        } else {
            out.push(c);
            col += 1;
        }
    }
    out
}

/// Prepares the authors' Markdown: tabs expanded; outside code fences `[[NAME]]`
/// becomes a link when NAME is known, and an indented line after a blank line loses its
/// indentation (the authors fence their code; an indented `TODO:` is prose, not code).
fn prepare(md: &str, link: Linker) -> String {
    let mut out = String::new();
    let mut in_fence = false;
    let mut prev_blank = true;
    for raw in md.lines() {
        let line = expand_tabs(raw);
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") {
            in_fence = !in_fence;
            prev_blank = false;
            out.push_str(&line);
            out.push('\n');
            continue;
        }
        if in_fence {
            out.push_str(&line);
            out.push('\n');
            continue;
        }
        let indent = line.len() - trimmed.len();
        let list_item = trimmed.starts_with("- ")
            || trimmed.starts_with("* ")
            || trimmed.starts_with("+ ")
            || trimmed
                .split_once(". ")
                .is_some_and(|(n, _)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
        let line = if prev_blank && indent >= 4 && !list_item {
            trimmed.to_string()
        } else {
            line.clone()
        };
        prev_blank = trimmed.is_empty();
        // [[NAME]] → [NAME](url)
        let mut rest = line.as_str();
        while let Some(a) = rest.find("[[") {
            let Some(len) = rest[a + 2..].find("]]") else {
                break;
            };
            let name = &rest[a + 2..a + 2 + len];
            out.push_str(&rest[..a]);
            match link(name.trim(), true) {
                Some(url) => out.push_str(&format!("[`{}`](isa:{url})", name.trim())),
                None => out.push_str(&rest[a..a + 2 + len + 2]),
            }
            rest = &rest[a + 2 + len + 2..];
        }
        out.push_str(rest);
        out.push('\n');
    }
    out
}

/// Renders the authors' Markdown (tables, fenced code, lists, emphasis) to HTML.
/// Headings move down `shift` levels so they nest under the page's own headings; raw
/// HTML in the text is shown as text; inline code naming a known definition links to
/// it. `block(k)` may replace the k-th fenced code block with HTML of its own (the
/// examples table); a block it declines is rendered as code.
pub fn markdown(
    md: &str,
    link: Linker,
    shift: u8,
    block: &mut dyn FnMut(usize) -> Option<String>,
) -> String {
    let text = prepare(md, link);
    let mut opts = Options::empty();
    opts.insert(Options::ENABLE_TABLES);
    opts.insert(Options::ENABLE_STRIKETHROUGH);
    let mut events: Vec<Event> = Vec::new();
    let mut fence = 0usize;
    let mut skipping = false;
    let mut dead_link = false;
    for ev in Parser::new_ext(&text, opts) {
        if skipping {
            if matches!(ev, Event::End(TagEnd::CodeBlock)) {
                skipping = false;
            }
            continue;
        }
        match ev {
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(ref lang))) => {
                let k = fence;
                fence += 1;
                if let Some(html) = block(k) {
                    events.push(Event::Html(CowStr::from(html)));
                    skipping = true;
                } else {
                    let _ = lang;
                    events.push(ev);
                }
            }
            Event::Start(Tag::Heading {
                level,
                id,
                classes,
                attrs,
            }) => events.push(Event::Start(Tag::Heading {
                level: shift_level(level, shift),
                id,
                classes,
                attrs,
            })),
            Event::End(TagEnd::Heading(level)) => {
                events.push(Event::End(TagEnd::Heading(shift_level(level, shift))))
            }
            Event::Html(h) | Event::InlineHtml(h) => events.push(Event::Text(h)),
            // Our own cross-references carry an `isa:` mark; web links stay; a relative
            // link of the authors' points outside the spec files (another document of
            // theirs), which the reference does not have: keep its text, say where it
            // pointed.
            Event::Start(Tag::Link {
                link_type,
                dest_url,
                title,
                id,
            }) => {
                if let Some(ours) = dest_url.strip_prefix("isa:") {
                    events.push(Event::Start(Tag::Link {
                        link_type,
                        dest_url: CowStr::from(ours.to_string()),
                        title,
                        id,
                    }));
                } else if dest_url.contains("://") || dest_url.starts_with("mailto:") {
                    events.push(Event::Start(Tag::Link {
                        link_type,
                        dest_url,
                        title,
                        id,
                    }));
                } else {
                    dead_link = true;
                    events.push(Event::Html(CowStr::from(format!(
                        r#"<span class="xref" title="{}">"#,
                        esc(&format!(
                            "links to {dest_url}, a document that is not part of the spec files"
                        ))
                    ))));
                }
            }
            Event::End(TagEnd::Link) if dead_link => {
                dead_link = false;
                events.push(Event::Html(CowStr::from("</span>")));
            }
            Event::Code(c) => match link(&c, false) {
                Some(url) => events.push(Event::Html(CowStr::from(format!(
                    r#"<a href="{}"><code>{}</code></a>"#,
                    esc(&url),
                    esc(&c)
                )))),
                None => events.push(Event::Code(c)),
            },
            ev => events.push(ev),
        }
    }
    let mut html = String::new();
    pulldown_cmark::html::push_html(&mut html, events.into_iter());
    html
}

/// The text of the first paragraph (no markup), shortened to about 140 characters:
/// the one-line summary of a definition in the index.
pub fn first_paragraph(md: &str) -> String {
    let mut out = String::new();
    let mut inside = false;
    for ev in Parser::new_ext(md, Options::ENABLE_TABLES) {
        match ev {
            Event::Start(Tag::Paragraph) => inside = true,
            Event::End(TagEnd::Paragraph) if !out.trim().is_empty() => break,
            Event::Text(t) | Event::Code(t) if inside => out.push_str(&t),
            Event::SoftBreak | Event::HardBreak if inside => out.push(' '),
            _ => {}
        }
    }
    let out = out.replace("[[", "").replace("]]", "");
    let out = out.trim();
    if out.chars().count() > 140 {
        out.chars().take(139).collect::<String>() + "…"
    } else {
        out.to_string()
    }
}

fn shift_level(l: HeadingLevel, shift: u8) -> HeadingLevel {
    let n = (l as u8 + shift).min(6);
    match n {
        1 => HeadingLevel::H1,
        2 => HeadingLevel::H2,
        3 => HeadingLevel::H3,
        4 => HeadingLevel::H4,
        5 => HeadingLevel::H5,
        _ => HeadingLevel::H6,
    }
}

/// One entry of the navigation list (in the shared search index) and of the index.
pub struct NavItem {
    pub href: String,
    pub label: String,
    /// A short note after the label (the opcode count).
    pub note: String,
    /// Lower-case words the filter matches against.
    pub keys: String,
    /// The heading it is listed under (the spec file).
    pub section: String,
}

/// The shared files every page links (relative names, beside the pages).
pub const STYLE_FILE: &str = "style.css";
pub const SCRIPT_FILE: &str = "nav.js";
pub const INDEX_FILE: &str = "search-index.js";

/// The sidebar as each page carries it: the link home, the filter box and links to the
/// index, types and opcode map. The list of optypes is not copied into every page (it
/// grows with the spec): `nav.js` builds it from `search-index.js` on load, and hides
/// the short list of links it replaces. Without JavaScript the sidebar is those links.
pub fn nav() -> &'static str {
    r#"<nav class="side" aria-label="Optypes"><div class="navhead"><a class="home" href="index.html">ISA reference</a><input id="q" type="search" placeholder="Filter (press /)" aria-label="Filter the list" autocomplete="off"><p id="qcount" class="count" aria-live="polite"></p></div><ul class="navlist navfallback"><li><a href="index.html">Index of optypes</a></li><li><a href="types.html">Types</a></li><li><a href="opcode-map.html">Opcode map</a></li></ul></nav>"#
}

/// `search-index.js`: the sidebar's entries, grouped under their headings, as a script
/// that assigns a global (read under `file://`, where a page may not fetch JSON):
/// `window.ISA_NAV = [[heading, [[href, label, note, keys], ...]], ...];`.
pub fn search_index(items: &[NavItem]) -> String {
    let q = |s: &str| serde_json::to_string(s).expect("a string serialises");
    let mut s = String::from(
        "// The ISA reference's sidebar and filter entries (written by `isa doc`; read by nav.js).\nwindow.ISA_NAV = [",
    );
    let mut section: Option<&str> = None;
    for it in items {
        if section != Some(it.section.as_str()) {
            if section.is_some() {
                s.push_str("\n]],");
            }
            s.push_str(&format!("\n[{}, [", q(&it.section)));
            section = Some(&it.section);
        } else {
            s.push(',');
        }
        s.push_str(&format!(
            "\n[{}, {}, {}, {}]",
            q(&it.href),
            q(&it.label),
            q(&it.note),
            q(&it.keys)
        ));
    }
    if section.is_some() {
        s.push_str("\n]]");
    }
    s.push_str("\n];\n");
    s
}

/// A whole page, `file` its own name (the sidebar marks it as the current page).
pub fn page(title: &str, file: &str, main: &str) -> String {
    format!(
        r#"<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="isa doc">
<title>{title} — ISA reference</title>
<link rel="stylesheet" href="{STYLE_FILE}">
</head>
<body data-page="{file}">
{nav}
<main>
{main}
</main>
<script src="{INDEX_FILE}"></script>
<script src="{SCRIPT_FILE}"></script>
</body>
</html>
"#,
        title = esc(title),
        file = esc(file),
        nav = nav(),
    )
}

pub const CSS: &str = r#"
:root{--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--bg:#fff;--side:#f6f8fa;--accent:#0b5cad;--warn:#9a6700;--warnbg:#fff8c5;--code:#f3f4f6}
*{box-sizing:border-box}
html{font-size:15px}
body{margin:0;color:var(--fg);background:var(--bg);font-family:system-ui,-apple-system,"Segoe UI","Noto Sans","Noto Sans CJK SC","WenQuanYi Micro Hei","PingFang SC","Microsoft YaHei",sans-serif;line-height:1.5;display:flex;min-height:100vh}
a{color:var(--accent);text-decoration:none}a:hover{text-decoration:underline}
code,pre,kbd{font-family:ui-monospace,"DejaVu Sans Mono",Menlo,Consolas,"Noto Sans Mono CJK SC",monospace;font-size:.92em}
code{background:var(--code);padding:.05em .3em;border-radius:4px}
pre{background:var(--code);padding:.7em 1em;border-radius:6px;overflow-x:auto;line-height:1.4}
pre code{background:none;padding:0}
nav.side{flex:0 0 15.5rem;background:var(--side);border-right:1px solid var(--line);padding:0 .9rem 1rem;position:sticky;top:0;height:100vh;overflow-y:auto}
.navhead{position:sticky;top:0;background:var(--side);padding:1rem 0 .3rem;z-index:1;border-bottom:1px solid var(--line)}
nav.side .home{display:block;font-weight:700;font-size:1.1rem;color:var(--fg);margin-bottom:.6rem}
#q{width:100%;padding:.45em .6em;border:1px solid var(--line);border-radius:6px;font:inherit}
.count{margin:.3em 0 0;color:var(--muted);font-size:.85em;min-height:1.2em}
.navsec{font-size:.75rem;text-transform:uppercase;letter-spacing:.06em;color:var(--muted);margin:.9rem 0 .2rem}
.navlist{list-style:none;margin:0;padding:0}
.navlist li{padding:.05rem 0}
.navlist a{font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-size:.9rem}
.navlist a[aria-current]{font-weight:700;color:var(--fg)}
.n{color:var(--muted);font-size:.8em}
[hidden]{display:none!important}
main{flex:1;min-width:0;max-width:70rem;padding:1.2rem 2.2rem 4rem}
h1{font-size:1.9rem;margin:.2rem 0 .3rem}
h1 .kind,h2 .kind{font-size:.55em;font-weight:400;color:var(--muted);margin-left:.5em;vertical-align:middle}
h2{font-size:1.35rem;border-bottom:1px solid var(--line);padding-bottom:.2rem;margin-top:2rem}
h3{font-size:1.1rem;margin:1.4rem 0 .4rem}
h4,h5,h6{font-size:1rem;margin:1.1rem 0 .3rem}
.crumbs{color:var(--muted);font-size:.9em}
.meta{color:var(--muted);margin:.2rem 0}
.toc{display:flex;flex-wrap:wrap;gap:.3rem .9rem;padding:.5rem .8rem;background:var(--side);border-radius:6px;font-size:.92em}
.toc b{color:var(--muted);font-weight:600}
section.opcode{border-top:3px solid var(--line);margin-top:2.5rem}
section.opcode>h2{border:none;margin-top:.8rem}
.spec{border-left:3px solid #e1e4e8;padding-left:1rem}
table{border-collapse:collapse;margin:.4rem 0 1rem;font-size:.93em;display:block;overflow-x:auto;max-width:100%}
th,td{border:1px solid var(--line);padding:.3em .6em;text-align:left;vertical-align:top}
th{background:var(--side);font-weight:600}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.vals code{margin:0 .15em .15em 0;display:inline-block}
.dflt{font-weight:700;outline:1px solid #8c959f}
.tag{display:inline-block;font-size:.78em;padding:0 .45em;border-radius:10px;border:1px solid var(--line);color:var(--muted);white-space:nowrap}
.tag.in{border-color:#1a7f37;color:#1a7f37}.tag.out{border-color:#cf222e;color:#cf222e}
figure.enc{margin:.6rem 0 1rem;overflow-x:auto}
svg.enc{width:100%;max-width:880px;min-width:660px;height:auto;display:block}
svg.enc text{font-family:"DejaVu Sans Mono",ui-monospace,Menlo,Consolas,monospace;text-anchor:middle;fill:#1f2328}
svg.enc .ruler text{font-size:8.5px;fill:#8c959f}
svg.enc .ruler text.edge{fill:#1f2328;font-weight:700}
svg.enc .seg{stroke:#57606a;stroke-width:1}
svg.enc .fld:hover .seg{stroke:#0b5cad;stroke-width:2.5}
svg.enc .fn{font-weight:700}
svg.enc .ft{fill:#424a53}
svg.enc .fr{fill:#59636e}
svg.enc .bit{font-size:11px;font-weight:700;fill:#0b3d91}
svg.enc .rsv .seg{stroke:#c4c8cf;stroke-dasharray:3 2}
svg.enc .rl{font-size:10px;fill:#8c959f;font-style:italic}
.legend{display:flex;flex-wrap:wrap;gap:.2rem 1rem;font-size:.88em;color:var(--muted);margin-top:.3rem}
.sw{display:inline-block;width:.95em;height:.95em;border:1px solid #57606a;border-radius:2px;vertical-align:-.12em;margin-right:.3em}
.sw.rsv{background:repeating-linear-gradient(45deg,#f3f4f6 0 2px,#c4c8cf 2px 4px)}
.ex td{font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-size:.9em}
.ex td.line{white-space:pre-wrap;word-break:break-word}
.ex td.word{white-space:nowrap}
.ex tr.prose td{color:var(--muted);border-left:none;border-right:none}
.warn,.ex td.warn{background:var(--warnbg);color:#3b2300;font-family:system-ui,sans-serif;font-size:.9em}
.warn::before{content:"⚠ ";color:var(--warn)}
.syntax{font-size:1rem}
.xref{border-bottom:1px dotted var(--muted);cursor:help}
.index-list{list-style:none;padding:0;display:grid;grid-template-columns:repeat(auto-fill,minmax(20rem,1fr));gap:.6rem}
.index-list li{border:1px solid var(--line);border-radius:6px;padding:.5rem .7rem}
.index-list .sum{color:var(--muted);font-size:.88em;margin:.15rem 0 0;overflow:hidden;display:-webkit-box;-webkit-line-clamp:2;-webkit-box-orient:vertical}
.index-list .ops{font-size:.82em;margin-top:.2rem}
.index-list .ops a{margin-right:.4em}
#q2{width:100%;max-width:32rem;padding:.55em .7em;font:inherit;font-size:1.05rem;border:1px solid var(--line);border-radius:6px}
html:not([data-js]) #q,html:not([data-js]) #q2{display:none}
.navfallback{margin-top:.8rem}
table.opmap{border-collapse:collapse;display:table;font-size:.8rem}
.opmap th,.opmap td{border:1px solid var(--line);padding:.15em .3em;min-width:4.2em;vertical-align:top}
.opmap th{position:sticky;top:0;white-space:nowrap}
.opmap th.row{position:static;text-align:right;font-family:ui-monospace,monospace}
.opmap td.free{background:repeating-linear-gradient(45deg,#fff 0 3px,#eef0f3 3px 6px);color:var(--muted);text-align:center}
.opmap td.used a{display:block;font-family:ui-monospace,monospace;white-space:nowrap}
.opmap td.shared{outline:2px solid #cf222e;outline-offset:-2px}
.opmap .x{display:block;color:var(--muted);font-size:.85em}
.opmap tr.gap th,.opmap tr.gap td{text-align:center;color:var(--muted);font-style:italic;background:var(--side)}
.opmap-files span{margin-right:1em}
@media (max-width:800px){body{display:block}nav.side{position:static;height:auto;max-height:40vh;border-right:none;border-bottom:1px solid var(--line)}main{padding:1rem}}
@media print{nav.side{display:none}}
"#;

/// `nav.js`: builds the sidebar's list from `window.ISA_NAV` (`search-index.js`),
/// marking the page named by `<body data-page>` as current, in place of the short list
/// of links the page carries. Then filters every `[data-k]` element by the words typed
/// in `#q` (and `#q2` on the index): all words must occur. `/` focuses the filter, Enter
/// opens the first match; the filter survives moving between pages (sessionStorage) and
/// `?q=words` in the URL sets it. Sets `data-js="ok"` on `<html>` when it ran (the
/// browser check looks for it).
pub const JS: &str = r#"
(function(){
  var data=window.ISA_NAV,side=document.querySelector('nav.side');
  var page=document.body.getAttribute('data-page')||'';
  if(side&&Array.isArray(data)){
    var frag=document.createDocumentFragment();
    data.forEach(function(sec){
      var h=document.createElement('h2');h.className='navsec';h.textContent=sec[0];
      var ul=document.createElement('ul');ul.className='navlist';
      sec[1].forEach(function(it){
        var li=document.createElement('li');li.setAttribute('data-k',it[3]);
        var a=document.createElement('a');a.setAttribute('href',it[0]);a.textContent=it[1];
        if(it[0]===page)a.setAttribute('aria-current','page');
        li.appendChild(a);
        if(it[2]){var n=document.createElement('span');n.className='n';n.textContent=it[2];li.appendChild(document.createTextNode(' '));li.appendChild(n);}
        ul.appendChild(li);
      });
      frag.appendChild(h);frag.appendChild(ul);
    });
    var fb=side.querySelector('.navfallback');if(fb)side.removeChild(fb);
    side.appendChild(frag);
  }
  var inputs=[document.getElementById('q'),document.getElementById('q2')].filter(Boolean);
  var items=Array.prototype.slice.call(document.querySelectorAll('[data-k]'));
  var count=document.getElementById('qcount');
  function apply(src){
    var t=src.value.trim().toLowerCase();
    inputs.forEach(function(i){if(i!==src)i.value=src.value;});
    var words=t.split(/\s+/).filter(Boolean);
    var shown=0;
    items.forEach(function(e){
      var k=e.getAttribute('data-k');
      var hit=words.every(function(w){return k.indexOf(w)>=0;});
      e.hidden=!hit; if(hit&&e.closest('nav'))shown++;
    });
    document.querySelectorAll('.navlist,.index-list').forEach(function(l){
      var any=l.querySelector('li:not([hidden])');
      l.hidden=!any;
      var h=l.previousElementSibling; if(h&&/^H/.test(h.tagName))h.hidden=!any;
    });
    if(count)count.textContent=words.length?(shown+(shown===1?' match':' matches')):'';
    try{sessionStorage.setItem('isa-filter',src.value);}catch(e){}
  }
  inputs.forEach(function(i){
    i.addEventListener('input',function(){apply(i);});
    i.addEventListener('keydown',function(ev){
      if(ev.key==='Enter'){var first=document.querySelector('main [data-k]:not([hidden]) a, nav [data-k]:not([hidden]) a');if(first)location.href=first.getAttribute('href');}
      if(ev.key==='Escape'){i.value='';apply(i);}
    });
  });
  document.addEventListener('keydown',function(ev){
    if(ev.key==='/'&&document.activeElement.tagName!=='INPUT'){ev.preventDefault();(inputs[inputs.length-1]||inputs[0]).focus();}
  });
  var saved=null;try{saved=sessionStorage.getItem('isa-filter');}catch(e){}
  var m=/[?&]q=([^&#]*)/.exec(location.search);
  if(m){try{saved=decodeURIComponent(m[1].replace(/\+/g,' '));}catch(e){saved=m[1];}}
  if(saved&&inputs.length){inputs[0].value=saved;apply(inputs[0]);}
  var nav=document.querySelector('nav.side'),cur=document.querySelector('.navlist a[aria-current]');
  if(nav&&cur&&nav.scrollHeight>nav.clientHeight)nav.scrollTop+=cur.getBoundingClientRect().top-nav.getBoundingClientRect().top-nav.clientHeight/2;
  document.documentElement.setAttribute('data-js','ok');
})();
"#;

#[cfg(test)]
mod tests {
    use super::*;

    fn link(n: &str, _: bool) -> Option<String> {
        (n == "BRX").then(|| "BRX.html".to_string())
    }

    #[test]
    fn markdown_tables_code_links_and_raw_html() {
        let md = "参考：[[BRX]] and [[NOPE]]\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```asm\nBRX R6;\n```\n\nuse `BRX` <b>x</b>\n\n### Head\n\n    TODO:\n";
        let html = markdown(md, &link, 1, &mut |_| None);
        assert!(
            html.contains(r#"<a href="BRX.html"><code>BRX</code></a>"#),
            "{html}"
        );
        assert!(html.contains("[[NOPE]]"), "{html}");
        assert!(
            html.contains("<table>") && html.contains("<td>2</td>"),
            "{html}"
        );
        assert!(
            html.contains(r#"<code class="language-asm">BRX R6;"#),
            "{html}"
        );
        assert!(html.contains("&lt;b&gt;x&lt;/b&gt;"), "{html}");
        assert!(html.contains("<h4>Head</h4>"), "{html}");
        assert!(html.contains("<p>TODO:</p>"), "{html}");
    }

    #[test]
    fn code_blocks_can_be_replaced() {
        let md = "x\n\n```\nA\n```\n\n```\nB\n```\n";
        let html = markdown(md, &link, 0, &mut |k| {
            (k == 1).then(|| "<p>second</p>".into())
        });
        assert!(html.contains("<code>A\n</code>") && html.contains("<p>second</p>"));
        assert!(!html.contains("B\n"), "{html}");
    }
}
