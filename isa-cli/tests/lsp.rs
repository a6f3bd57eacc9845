//! `isa lsp` driven as an editor drives it: JSON-RPC frames over the spawned binary's
//! stdin and stdout, on a copy of the bundled spec in a temporary directory.

mod common;

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{json, Value};

use common::{isa_command, spec_copy};

const TIMEOUT: Duration = Duration::from_secs(120);

fn uri(p: &Path) -> String {
    // The test directories hold only ASCII names.
    format!("file://{}", p.display())
}

struct Client {
    child: Child,
    stdin: ChildStdin,
    rx: mpsc::Receiver<Value>,
    next_id: i64,
    /// Notifications received while waiting for responses.
    notes: Vec<Value>,
}

impl Client {
    fn start() -> Client {
        let mut child = isa_command()
            .arg("lsp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || loop {
            let mut len = None;
            loop {
                let mut line = String::new();
                if out.read_line(&mut line).unwrap_or(0) == 0 {
                    return;
                }
                let line = line.trim_end();
                if line.is_empty() {
                    break;
                }
                let (k, v) = line.split_once(": ").expect("a header");
                assert_eq!(k, "Content-Length", "{line}");
                len = Some(v.parse::<usize>().unwrap());
            }
            let mut body = vec![0; len.expect("Content-Length")];
            out.read_exact(&mut body).unwrap();
            if tx.send(serde_json::from_slice(&body).unwrap()).is_err() {
                return;
            }
        });
        Client {
            child,
            stdin,
            rx,
            next_id: 1,
            notes: Vec::new(),
        }
    }

    fn send_raw(&mut self, body: &str) {
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
        self.stdin.flush().unwrap();
    }

    fn send(&mut self, v: Value) {
        self.send_raw(&v.to_string());
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    fn recv(&mut self) -> Value {
        self.rx.recv_timeout(TIMEOUT).expect("the server answers")
    }

    /// Sends a request and waits for its response (keeping notifications).
    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let m = self.recv();
            if m.get("id") == Some(&json!(id)) {
                return m;
            }
            assert!(m.get("method").is_some(), "an unexpected response: {m}");
            self.notes.push(m);
        }
    }

    /// The latest diagnostics published for `uri` among the notifications so far.
    fn diagnostics(&self, uri: &str) -> Option<Vec<Value>> {
        self.notes
            .iter()
            .rev()
            .filter(|n| n["method"] == "textDocument/publishDiagnostics")
            .find(|n| n["params"]["uri"] == uri)
            .map(|n| n["params"]["diagnostics"].as_array().unwrap().clone())
    }

    fn open(&mut self, path: &Path, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri(path), "languageId": "isa", "version": 1, "text": text}}),
        );
    }

    /// Waits until everything the server published for the messages sent so far has
    /// arrived: a request about a changed spec is answered after its diagnostics.
    fn sync(&mut self, path: &Path) {
        let r = self.request(
            "textDocument/documentSymbol",
            json!({"textDocument": {"uri": uri(path)}}),
        );
        assert!(r.get("result").is_some(), "{r}");
    }

    fn initialize(&mut self) -> Value {
        let r = self.request(
            "initialize",
            json!({"processId": null, "rootUri": null, "capabilities": {}}),
        );
        self.notify("initialized", json!({}));
        r
    }

    /// A server with `path` opened (its text as on disk) and checked; the text.
    fn opened(path: &Path) -> (Client, String) {
        let text = std::fs::read_to_string(path).unwrap();
        let mut c = Client::start();
        c.initialize();
        c.open(path, &text);
        c.sync(path);
        (c, text)
    }

    /// `shutdown`, `exit`, and the exit status.
    fn finish(mut self) -> Option<i32> {
        let r = self.request("shutdown", Value::Null);
        assert_eq!(r["result"], Value::Null, "{r}");
        self.notify("exit", Value::Null);
        drop(self.stdin);
        let start = std::time::Instant::now();
        loop {
            if let Some(s) = self.child.try_wait().unwrap() {
                return s.code();
            }
            assert!(start.elapsed() < TIMEOUT, "the server did not exit");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// The (line, UTF-16 column) of the `nth` occurrence of `needle` in `text`.
fn pos_of(text: &str, needle: &str, nth: usize) -> (u32, u32) {
    let at = text
        .match_indices(needle)
        .nth(nth)
        .unwrap_or_else(|| panic!("{needle} #{nth}"))
        .0;
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line = text[..at].matches('\n').count() as u32;
    (line, text[line_start..at].encode_utf16().count() as u32)
}

fn at(path: &Path, (line, character): (u32, u32)) -> Value {
    json!({"textDocument": {"uri": uri(path)}, "position": {"line": line, "character": character + 1}})
}

#[test]
fn an_editor_session_on_the_bundled_spec() {
    let dir = spec_copy("session", |_, text| text);
    let bru = dir.join("bru.isa");
    let text = std::fs::read_to_string(&bru).unwrap();
    let mut c = Client::start();

    // Capabilities.
    let init = c.initialize();
    let caps = &init["result"]["capabilities"];
    for cap in [
        "hoverProvider",
        "definitionProvider",
        "referencesProvider",
        "documentSymbolProvider",
    ] {
        assert_eq!(caps[cap], json!(true), "{cap}: {init}");
    }
    assert!(caps["completionProvider"].is_object(), "{init}");
    assert_eq!(caps["positionEncoding"], "utf-16");

    c.open(&bru, &text);
    c.sync(&bru);

    // Hover on an opcode name: every field with its bits, from the checked model.
    let checked = isa_gen::Spec::load(&[&dir]).unwrap().check();
    let model = checked.model.as_ref().expect("the bundled spec checks");
    let op = &model.opcodes[model.opcode_by_name("BRA_U").unwrap()];
    let h = c.request("textDocument/hover", at(&bru, pos_of(&text, "BRA_U", 0)));
    let hover = h["result"]["contents"]["value"]
        .as_str()
        .unwrap()
        .to_string();
    for f in &op.fields {
        let bits = if f.width == 1 {
            format!("{}", f.start)
        } else {
            format!("{}:{}", f.start + f.width - 1, f.start)
        };
        assert!(
            hover.contains(&format!("| {bits} | `{}` |", f.name)),
            "{bits} {}: {hover}",
            f.name
        );
    }
    assert!(hover.contains("BRA"), "{hover}");

    // Definition of a parent defined in another file: `ALL` in `__DefGroup BRU: [ALL]`.
    let base = std::fs::read_to_string(dir.join("base.isa")).unwrap();
    let d = c.request(
        "textDocument/definition",
        at(&bru, pos_of(&text, "[ALL]", 0)),
    );
    let loc = &d["result"];
    assert_eq!(loc["uri"], uri(&dir.join("base.isa")), "{d}");
    let line = loc["range"]["start"]["line"].as_u64().unwrap() as usize;
    assert!(
        base.lines()
            .nth(line)
            .unwrap()
            .starts_with("__DefGroup ALL"),
        "{d}"
    );

    // References to a register file: in every file that uses it.
    let r = c.request(
        "textDocument/references",
        json!({"textDocument": {"uri": uri(&bru)},
               "position": {"line": pos_of(&text, "Pred pg", 0).0, "character": pos_of(&text, "Pred pg", 0).1 + 1},
               "context": {"includeDeclaration": true}}),
    );
    let files: BTreeSet<String> = r["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            l["uri"]
                .as_str()
                .unwrap()
                .rsplit('/')
                .next()
                .unwrap()
                .to_string()
        })
        .collect();
    assert!(
        files.contains("base.isa") && files.contains("bru.isa") && files.len() >= 3,
        "{files:?}"
    );

    // The outline lists every `__Def…` of the file, in order.
    let s = c.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": uri(&bru)}}),
    );
    let names: Vec<&str> = s["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    let want: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("__Def"))
        .map(|l| {
            l.split_whitespace()
                .nth(1)
                .unwrap()
                .trim_end_matches(':')
                .split('<')
                .next()
                .unwrap()
        })
        .collect();
    assert_eq!(names, want);

    // An unknown name after Chinese text and a character outside the BMP.
    let old = r#"EncodingError<IllegalBitFieldValue, "BRA_U should be used with .DIV/.CONV."> = (cond!="DIV")"#;
    let new = r#"EncodingError<IllegalBitFieldValue, "分支条件𝄞只能是DIV或CONV"> = (condd!="DIV")"#;
    assert!(text.contains(old));
    let (line, col) = pos_of(&text, old, 0);
    let end_col = col + old.encode_utf16().count() as u32;
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri(&bru), "version": 2},
               "contentChanges": [{"range": {"start": {"line": line, "character": col},
                                             "end": {"line": line, "character": end_col}},
                                   "text": new}]}),
    );
    c.sync(&bru);
    let edited = text.replacen(old, new, 1);
    let (l, start) = pos_of(&edited, "condd", 0);
    let diags = c.diagnostics(&uri(&bru)).unwrap();
    let bad: Vec<&Value> = diags
        .iter()
        .filter(|d| d["message"].as_str().unwrap().contains("condd"))
        .collect();
    assert_eq!(bad.len(), 1, "{diags:?}");
    assert_eq!(
        bad[0]["range"],
        json!({"start": {"line": l, "character": start}, "end": {"line": l, "character": start + 5}}),
    );
    assert_eq!(bad[0]["severity"], 1);

    // Hover while the spec has errors: the last model that checked, said so.
    let h = c.request("textDocument/hover", at(&bru, pos_of(&edited, "BRA_U", 0)));
    let hover = h["result"]["contents"]["value"].as_str().unwrap();
    assert!(
        hover.contains("| 11:8 | `stype` |") && hover.contains("last version"),
        "{hover}"
    );

    // A second definition of a type: the first one as related information.
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri(&bru), "version": 3},
               "contentChanges": [{"text": format!("{text}\n__DefBitFieldType IExt<1>\n    A;\n")}]}),
    );
    c.sync(&bru);
    let diags = c.diagnostics(&uri(&bru)).unwrap();
    let dup = diags
        .iter()
        .find(|d| d["message"].as_str().unwrap().contains("defined twice"))
        .unwrap_or_else(|| panic!("{diags:?}"));
    let rel = &dup["relatedInformation"][0]["location"];
    assert_eq!(rel["uri"], uri(&dir.join("base.isa")), "{dup}");
    let line = rel["range"]["start"]["line"].as_u64().unwrap() as usize;
    assert!(base.lines().nth(line).unwrap().contains("IExt"), "{dup}");
    // The error of the previous version is gone (the whole text was replaced).
    assert!(!diags
        .iter()
        .any(|d| d["message"].as_str().unwrap().contains("condd")));

    // Completion: types after `field<…>`, values after `=`, keywords after `__`.
    let labels = |c: &mut Client, line: &str| -> Vec<String> {
        let full = format!("{text}\n__DefOpcode ZZ: [BRU]\n  __Encoding\n{line}");
        c.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri(&bru), "version": 4},
                   "contentChanges": [{"text": full.clone()}]}),
        );
        let last = full.lines().count() as u32 - 1;
        let col = line.encode_utf16().count() as u32;
        let r = c.request(
            "textDocument/completion",
            json!({"textDocument": {"uri": uri(&bru)}, "position": {"line": last, "character": col}}),
        );
        r["result"]
            .as_array()
            .unwrap_or_else(|| panic!("{r}"))
            .iter()
            .map(|i| i["label"].as_str().unwrap().to_string())
            .collect()
    };
    let types = labels(&mut c, "    field<90, 2> BR");
    assert!(types.contains(&"BRACond".to_string()) && types.contains(&"Reg".to_string()));
    let values = labels(&mut c, "    field<90, 2> BRACond zz = ");
    assert_eq!(values, ["NoCond", "U", "DIV", "CONV"]);
    let keywords = labels(&mut c, "  __Ex");
    assert!(keywords.contains(&"__Exception".to_string()));

    // A malformed message is answered with an error; the server goes on.
    c.send_raw("{this is not json");
    let e = c.recv();
    assert_eq!(e["error"]["code"], -32700, "{e}");
    assert_eq!(e["id"], Value::Null);
    let r = c.request("textDocument/hover", json!({"textDocument": 5}));
    assert_eq!(r["error"]["code"], -32602, "{r}");
    let r = c.request("no/such/method", json!({}));
    assert_eq!(r["error"]["code"], -32601, "{r}");

    assert_eq!(c.finish(), Some(0));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every error and warning `isa check DIR` reports, at the same line, in the file it
/// belongs to; a file of the directory that is not open is checked from disk.
#[test]
fn diagnostics_are_those_of_isa_check() {
    let dir = spec_copy("check", |_, text| text);
    // Break udp.isa on disk (not open): an unknown type.
    let udp = dir.join("udp.isa");
    let t = std::fs::read_to_string(&udp).unwrap();
    std::fs::write(&udp, t.replacen("UReg", "UReggg", 1)).unwrap();
    let checked = isa_gen::Spec::load(&[&dir]).unwrap().check();
    assert!(checked.has_errors());
    let mut want = BTreeSet::new();
    for d in &checked.diagnostics.items {
        let loc = checked.sources.location(d.span);
        let file = loc.file.rsplit('/').next().unwrap().to_string();
        want.insert((file, loc.line as u64 - 1, d.message.clone()));
    }

    let mut c = Client::start();
    c.initialize();
    let base = dir.join("base.isa");
    c.open(&base, &std::fs::read_to_string(&base).unwrap());
    c.sync(&base);
    let mut got = BTreeSet::new();
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        for d in c.diagnostics(&uri(&p)).unwrap_or_default() {
            let msg = d["message"].as_str().unwrap();
            let first = msg.lines().next().unwrap();
            let first = first.split(" (").next().unwrap();
            let full = want
                .iter()
                .find(|(_, _, m)| m.starts_with(first))
                .map_or(first.to_string(), |w| w.2.clone());
            got.insert((
                p.file_name().unwrap().to_string_lossy().into_owned(),
                d["range"]["start"]["line"].as_u64().unwrap(),
                full,
            ));
        }
    }
    assert_eq!(got, want);
    assert!(want
        .iter()
        .any(|(f, _, m)| f == "udp.isa" && m.contains("UReggg")));

    // Closing the last open file clears what was shown.
    c.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": uri(&base)}}),
    );
    let r = c.request("shutdown", Value::Null);
    assert_eq!(r["result"], Value::Null);
    assert_eq!(c.diagnostics(&uri(&udp)), Some(Vec::new()));
    c.notify("exit", Value::Null);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `exit` without `shutdown` is status 1; requests before `initialize` are refused.
#[test]
fn protocol_order() {
    let mut c = Client::start();
    let r = c.request("textDocument/hover", json!({}));
    assert_eq!(r["error"]["code"], -32002, "{r}");
    c.initialize();
    c.notify("exit", Value::Null);
    drop(c.stdin);
    let status = c.child.wait().unwrap();
    assert_eq!(status.code(), Some(1));
}

/// The bar's case as an editor meets it: a file opened with the bad name already in it
/// (after Chinese text and a character outside the BMP, on the same line).
#[test]
fn opening_a_file_with_an_unknown_name_after_chinese_text() {
    let dir = spec_copy("open", |_, text| text);
    let bru = dir.join("bru.isa");
    let text = std::fs::read_to_string(&bru).unwrap().replacen(
        r#""BRA_U should be used with .DIV/.CONV."> = (cond!="DIV")"#,
        r#""分支条件𝄞只能是DIV或CONV"> = (conb!="DIV")"#,
        1,
    );
    std::fs::write(&bru, &text).unwrap();
    let mut c = Client::start();
    c.initialize();
    c.open(&bru, &text);
    c.sync(&bru);
    let (line, start) = pos_of(&text, "conb", 0);
    // 𝄞 is two UTF-16 units: a char count would put the name one column left.
    assert_eq!(
        start as usize,
        text.lines()
            .nth(line as usize)
            .unwrap()
            .find("conb")
            .map(|b| {
                text.lines().nth(line as usize).unwrap()[..b]
                    .chars()
                    .count()
                    + 1
            })
            .unwrap()
    );
    let diags = c.diagnostics(&uri(&bru)).unwrap();
    let d: Vec<&Value> = diags
        .iter()
        .filter(|d| d["message"].as_str().unwrap().contains("`conb`"))
        .collect();
    assert_eq!(d.len(), 1, "{diags:?}");
    assert_eq!(
        d[0]["range"],
        json!({"start": {"line": line, "character": start}, "end": {"line": line, "character": start + 4}})
    );
    assert_eq!(c.finish(), Some(0));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Applies a `WorkspaceEdit` (`changes` by URI) to the files on disk, as an editor
/// applies it to its buffers.
fn apply_edit(edit: &Value) {
    let changes = edit["changes"].as_object().expect("changes by URI");
    for (u, edits) in changes {
        let path = u.strip_prefix("file://").expect("a file URI");
        let mut text = std::fs::read_to_string(path).unwrap();
        let mut edits: Vec<(usize, usize, String)> = edits
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                let off = |p: &Value| {
                    offset(
                        &text,
                        p["line"].as_u64().unwrap() as usize,
                        p["character"].as_u64().unwrap() as usize,
                    )
                };
                (
                    off(&e["range"]["start"]),
                    off(&e["range"]["end"]),
                    e["newText"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        edits.sort_by_key(|e| std::cmp::Reverse(e.0));
        for w in edits.windows(2) {
            assert!(w[1].1 <= w[0].0, "overlapping edits in {u}: {edits:?}");
        }
        for (a, b, t) in edits {
            text.replace_range(a..b, &t);
        }
        std::fs::write(path, text).unwrap();
    }
}

/// The byte offset of (line, UTF-16 column).
fn offset(text: &str, line: usize, character: usize) -> usize {
    let start: usize = text.split_inclusive('\n').take(line).map(str::len).sum();
    let mut units = 0;
    for (k, ch) in text[start..].char_indices() {
        if units >= character || ch == '\n' {
            return start + k;
        }
        units += ch.len_utf16();
    }
    text.len()
}

/// Errors of `isa check` on a directory, as `file:line: message` lines.
fn check_errors(dir: &Path) -> Vec<String> {
    let checked = isa_gen::Spec::load(&[dir]).unwrap().check();
    checked
        .diagnostics
        .errors()
        .map(|d| format!("{}: {}", checked.sources.location(d.span), d.message))
        .collect()
}

/// Renaming a type used in four files, from its use in another: every use changes and
/// the spec checks clean after; a name that collides is refused, with the reason.
#[test]
fn rename_a_type_across_files() {
    let dir = spec_copy("rename-type", |_, text| text);
    let sync = dir.join("sync.isa");
    let (mut c, text) = Client::opened(&sync);
    let here = pos_of(&text, "> Reg ", 0);
    let place = (here.0, here.1 + 2);
    let p = c.request("textDocument/prepareRename", at(&sync, place));
    assert_eq!(p["result"]["placeholder"], "Reg", "{p}");
    assert_eq!(
        p["result"]["range"]["start"],
        json!({"line": place.0, "character": place.1}),
        "{p}"
    );

    // Collisions: another type's name, and a name that is not one.
    for (new, why) in [
        ("UReg", "already the name of a type"),
        ("9x", "not a valid name"),
    ] {
        let mut q = at(&sync, place);
        q["newName"] = json!(new);
        let r = c.request("textDocument/rename", q);
        let msg = r["error"]["message"].as_str().unwrap_or_default();
        assert!(msg.contains(why), "{new}: {r}");
    }

    let mut q = at(&sync, place);
    q["newName"] = json!("Regx");
    let r = c.request("textDocument/rename", q);
    let edit = &r["result"];
    let files: BTreeSet<&str> = edit["changes"]
        .as_object()
        .unwrap()
        .keys()
        .map(|k| k.rsplit('/').next().unwrap())
        .collect();
    assert_eq!(
        files,
        BTreeSet::from(["base.isa", "bru.isa", "misc.isa", "sync.isa"]),
        "{r}"
    );
    apply_edit(edit);
    assert_eq!(check_errors(&dir), Vec::<String>::new());
    // The declaration and every use carry the new name; no use of the old is left.
    let checked = isa_gen::Spec::load(&[&dir]).unwrap().check();
    let model = checked.model.unwrap();
    assert!(model.type_by_name("Regx").is_some());
    assert!(model.type_by_name("Reg").is_none());
    let uses: usize = edit["changes"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_array().unwrap().len())
        .sum();
    let fields_of_type = model
        .opcodes
        .iter()
        .flat_map(|o| &o.fields)
        .filter(|f| model.ty(f.ty).name == "Regx")
        .count();
    assert!(uses >= 4 && fields_of_type > 0, "{uses} {fields_of_type}");
    assert_eq!(c.finish(), Some(0));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Renaming a field renames its uses in operand lists and expressions, its
/// re-declarations, and the sub-fields named after it (`ura.neg`); the part after the
/// dot, here one that gives a prefix its meaning, is not renamed.
#[test]
fn rename_a_field_and_its_sub_fields() {
    let dir = spec_copy("rename-field", |_, text| text);
    let udp = dir.join("udp.isa");
    let (mut c, text) = Client::opened(&udp);
    // `ura` of UIADD, renamed at its sub-field `ura.neg`'s first part.
    let sub = pos_of(&text, "SignModi ura.neg", 0);
    let on_field = (sub.0, sub.1 + "SignModi ".len() as u32);
    let p = c.request("textDocument/prepareRename", at(&udp, on_field));
    assert_eq!(p["result"]["placeholder"], "ura", "{p}");
    let mut q = at(&udp, on_field);
    q["newName"] = json!("usrc");
    let r = c.request("textDocument/rename", q);
    apply_edit(&r["result"]);
    assert_eq!(check_errors(&dir), Vec::<String>::new());
    let after = std::fs::read_to_string(&udp).unwrap();
    assert!(after.contains("SignModi usrc.neg"), "{after}");
    // ULDC_U declares a field `ura` of its own: not the same field, not renamed.
    let uldc = &after[after.find("__DefOpcode ULDC_U").unwrap()..];
    let uldc = &uldc[..uldc.find("\n__Def").unwrap()];
    assert!(
        uldc.contains("UReg ura;") && uldc.contains("InList<upg, ura>"),
        "{uldc}"
    );
    let checked = isa_gen::Spec::load(&[&dir]).unwrap().check();
    let model = checked.model.unwrap();
    let op = &model.opcodes[model.opcode_by_name("UIADD_UC").unwrap()];
    assert!(op.fields.iter().any(|f| f.name == "usrc.neg"));
    assert!(!op.fields.iter().any(|f| f.name.starts_with("ura")));

    // The part after the dot: only that sub-field.
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri(&udp), "version": 2}, "contentChanges": [{"text": after}]}),
    );
    let sub = pos_of(&after, "SignModi usrc.neg", 0);
    let on_suffix = (sub.0, sub.1 + "SignModi usrc.".len() as u32);
    let p = c.request("textDocument/prepareRename", at(&udp, on_suffix));
    assert_eq!(p["result"]["placeholder"], "neg", "{p}");
    // `.neg` gives `-URa` its meaning: renaming it would change the syntax.
    let mut q = at(&udp, on_suffix);
    q["newName"] = json!("negate");
    let r = c.request("textDocument/rename", q);
    let msg = r["error"]["message"].as_str().unwrap_or_default();
    assert!(msg.contains("changes the syntax"), "{r}");
    assert_eq!(c.finish(), Some(0));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A type renamed at its definition (the author's edit, not the server's rename): every
/// use in every file is marked, open or not; one error, the other uses hints that lead
/// to it and its related information.
#[test]
fn every_use_of_an_undefined_name_is_marked() {
    let dir = spec_copy("every-use", |_, text| text);
    let base = dir.join("base.isa");
    let text = std::fs::read_to_string(&base).unwrap().replacen(
        "__DefRegFile Reg<",
        "__DefRegFile Regx<",
        1,
    );
    std::fs::write(&base, &text).unwrap();
    let errors = check_errors(&dir);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].contains("unknown type `Reg`"), "{errors:?}");
    let checked = isa_gen::Spec::load(&[&dir]).unwrap().check();
    let d = checked.diagnostics.errors().next().unwrap();
    // Every use, counted in the files themselves (`> Reg ` in a field declaration,
    // `: Reg ` in an operand word).
    let mut uses = std::collections::BTreeMap::new();
    for f in ["bru.isa", "misc.isa", "sync.isa"] {
        let t = std::fs::read_to_string(dir.join(f)).unwrap();
        uses.insert(
            f.to_string(),
            t.matches("> Reg ").count() + t.matches(": Reg ").count(),
        );
    }
    let total: usize = uses.values().sum();
    assert_eq!(d.other_uses.len() + 1, total, "{uses:?}");
    // `isa check` shows each of them.
    let short = checked.diagnostics.render_short(&checked.sources);
    assert_eq!(
        short.lines().filter(|l| l.contains("`Reg`")).count(),
        total,
        "{short}"
    );

    let mut c = Client::start();
    c.initialize();
    c.open(&base, &text);
    c.sync(&base);
    let mut marked = std::collections::BTreeMap::new();
    for f in ["bru.isa", "misc.isa", "sync.isa"] {
        let diags = c.diagnostics(&uri(&dir.join(f))).unwrap_or_default();
        let n = diags
            .iter()
            .filter(|d| {
                d["message"]
                    .as_str()
                    .unwrap()
                    .contains("unknown type `Reg`")
            })
            .count();
        marked.insert(f.to_string(), n);
        for d in &diags {
            if d["severity"] == 4 {
                let rel = &d["relatedInformation"][0];
                assert_eq!(rel["message"], "the error", "{d}");
            }
        }
    }
    assert_eq!(marked, uses);
    assert_eq!(c.finish(), Some(0));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Quick fixes from the checker's suggestions, each applied and the spec checked again:
/// a misspelt type (every use fixed at once), a value not in the enumeration, an
/// unknown parent, a code fence closed with two backticks.
#[test]
fn quick_fixes_remove_their_diagnostic() {
    // (file, text, its misspelling, how many occurrences are misspelt)
    let cases: [(&str, &str, &str, usize); 4] = [
        ("udp.isa", "UReg urd;", "URgeg urd;", usize::MAX),
        ("udp.isa", "PModi upg.not=False;", "PModi upg.not=Flase;", 1),
        (
            "udp.isa",
            "__DefOptype ULDC : [UDP]",
            "__DefOptype ULDC : [UPD]",
            1,
        ),
        ("udp.isa", ".64, .128}\n```\n", ".64, .128}\n``\n", 1),
    ];
    for (k, (file, from, to, n)) in cases.iter().enumerate() {
        let dir = spec_copy(&format!("fix-{k}"), |_, text| text);
        let path = dir.join(file);
        let orig = std::fs::read_to_string(&path).unwrap();
        assert!(orig.contains(from), "{from}");
        let text = orig.replacen(from, to, *n);
        std::fs::write(&path, &text).unwrap();
        assert_eq!(check_errors(&dir).len(), 1, "{to}");
        let mut c = Client::start();
        c.initialize();
        c.open(&path, &text);
        c.sync(&path);
        // The editor asks for the actions at the error it shows.
        let shown = c.diagnostics(&uri(&path)).unwrap_or_default();
        let error = shown
            .iter()
            .find(|d| d["severity"] == 1)
            .unwrap_or_else(|| panic!("{to}: {shown:?}"));
        let r = c.request(
            "textDocument/codeAction",
            json!({
                "textDocument": {"uri": uri(&path)},
                "range": error["range"],
                "context": {"diagnostics": [error]},
            }),
        );
        let actions = r["result"]
            .as_array()
            .unwrap_or_else(|| panic!("{to}: {r}"));
        assert!(!actions.is_empty(), "{to}: {r}");
        assert_eq!(actions[0]["kind"], "quickfix", "{r}");
        apply_edit(&actions[0]["edit"]);
        assert_eq!(check_errors(&dir), Vec::<String>::new(), "{to}: {r}");
        // The editor's buffer, changed the same way, shows no diagnostic there.
        let fixed = std::fs::read_to_string(&path).unwrap();
        c.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri(&path), "version": 2}, "contentChanges": [{"text": fixed}]}),
        );
        c.sync(&path);
        let left: Vec<Value> = c
            .diagnostics(&uri(&path))
            .unwrap_or_default()
            .into_iter()
            .filter(|d| d["severity"] == 1)
            .collect();
        assert!(left.is_empty(), "{to}: {left:?}");
        assert_eq!(c.finish(), Some(0));
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// Inlay hints on field lines: the bits; on a re-declared field, the inherited default;
/// after an opcode's header, its inherited fixed values.
#[test]
fn inlay_hints_on_fields_and_opcodes() {
    let dir = spec_copy("hints", |_, text| text);
    let udp = dir.join("udp.isa");
    let (mut c, text) = Client::opened(&udp);
    let lines = text.lines().count() as u32;
    let r = c.request(
        "textDocument/inlayHint",
        json!({"textDocument": {"uri": uri(&udp)}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": lines, "character": 0}}}),
    );
    let hints = r["result"].as_array().unwrap();
    let on_line = |l: u32| -> Vec<String> {
        hints
            .iter()
            .filter(|h| h["position"]["line"] == l)
            .map(|h| h["label"].as_str().unwrap().to_string())
            .collect()
    };
    // `field<16, 6> UReg urd;` of ULDC: bits 16–21, after the `>`.
    let (l, col) = pos_of(&text, "field<16, 6> UReg urd;", 0);
    assert_eq!(on_line(l), vec!["bits 16–21".to_string()]);
    let h = hints.iter().find(|h| h["position"]["line"] == l).unwrap();
    assert_eq!(
        h["position"]["character"],
        col + "field<16, 6>".len() as u32
    );
    let (l, _) = pos_of(&text, "field<15,  1> PModi upg.not=False;", 0);
    assert_eq!(on_line(l), vec!["bit 15".to_string()]);
    // ULDC_U's header: the fixed value its optype gives.
    let (l, _) = pos_of(&text, "__DefOpcode ULDC_U", 0);
    assert!(
        on_line(l).iter().any(|h| h.contains("optype == ULDC")),
        "{:?}",
        on_line(l)
    );
    // Every field declaration line has its bits.
    let field_lines = text
        .lines()
        .filter(|t| t.trim_start().starts_with("field<"))
        .count();
    let bit_hints = hints
        .iter()
        .filter(|h| h["label"].as_str().unwrap().starts_with("bit"))
        .count();
    assert_eq!(bit_hints, field_lines);
    // A range covering one line gives that line's hints only.
    let r = c.request(
        "textDocument/inlayHint",
        json!({"textDocument": {"uri": uri(&udp)}, "range": {"start": {"line": l + 3, "character": 0}, "end": {"line": l + 3, "character": 80}}}),
    );
    for h in r["result"].as_array().unwrap() {
        assert_eq!(h["position"]["line"], l + 3, "{r}");
    }
    assert_eq!(c.finish(), Some(0));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The server asks to watch `**/*.isa` when the client can register watchers, and a
/// file changed on disk (not open) updates the diagnostics without an edit.
#[test]
fn files_changed_on_disk_are_read_again() {
    let dir = spec_copy("watched", |_, text| text);
    let base = dir.join("base.isa");
    let misc = dir.join("misc.isa");
    let mut c = Client::start();
    let r = c.request(
        "initialize",
        json!({"processId": null, "rootUri": null, "capabilities": {"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": true}}}}),
    );
    assert!(r.get("result").is_some());
    c.notify("initialized", json!({}));
    c.open(&base, &std::fs::read_to_string(&base).unwrap());
    c.sync(&base);
    let reg = c
        .notes
        .iter()
        .find(|n| n["method"] == "client/registerCapability")
        .cloned()
        .expect("a registration request");
    let watcher = &reg["params"]["registrations"][0];
    assert_eq!(watcher["method"], "workspace/didChangeWatchedFiles");
    assert_eq!(
        watcher["registerOptions"]["watchers"][0]["globPattern"],
        "**/*.isa"
    );
    c.send(json!({"jsonrpc": "2.0", "id": reg["id"], "result": null}));
    let errors = |c: &Client| {
        c.diagnostics(&uri(&misc))
            .unwrap_or_default()
            .into_iter()
            .filter(|d| d["severity"] == 1)
            .collect::<Vec<_>>()
    };
    assert!(errors(&c).is_empty());

    // A checkout changes misc.isa on disk.
    let t = std::fs::read_to_string(&misc).unwrap();
    std::fs::write(&misc, t.replacen("Reg ", "Rgg ", 1)).unwrap();
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri(&misc), "type": 2}]}),
    );
    c.sync(&base);
    let d = errors(&c);
    assert!(
        d.iter()
            .any(|d| d["message"].as_str().unwrap().contains("`Rgg`")),
        "{d:?}"
    );
    // And back.
    std::fs::write(&misc, &t).unwrap();
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri(&misc), "type": 2}]}),
    );
    c.sync(&base);
    assert!(errors(&c).is_empty());

    // Without the capability, no registration is asked for.
    let mut plain = Client::start();
    plain.initialize();
    plain.open(&base, &std::fs::read_to_string(&base).unwrap());
    plain.sync(&base);
    assert!(!plain
        .notes
        .iter()
        .any(|n| n["method"] == "client/registerCapability"));
    assert_eq!(plain.finish(), Some(0));
    assert_eq!(c.finish(), Some(0));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Renaming a value renames it where assembly text writes it too (`.128` in a
/// `__Syntax` list and `ULDC.128` in an example), from its use in another file: the
/// spec checks with no more warnings than before. Prose is left as written.
#[test]
fn rename_a_value_written_in_assembly_text() {
    let dir = spec_copy("rename-value", |_, text| text);
    let corrections = dir.join("corrections.isa");
    let text = std::fs::read_to_string(&corrections).unwrap();
    let udp_before = std::fs::read_to_string(dir.join("udp.isa")).unwrap();
    let warnings = |dir: &Path| {
        let c = isa_gen::Spec::load(&[dir]).unwrap().check();
        assert!(!c.has_errors(), "{}", c.render_diagnostics());
        c.diagnostics.warning_count()
    };
    let before = warnings(&dir);
    let mut c = Client::start();
    c.initialize();
    c.open(&corrections, &text);
    c.sync(&corrections);
    let (line, col) = pos_of(&text, "dtype==\"128\"", 0);
    let place = (line, col + "dtype==\"".len() as u32);
    let p = c.request("textDocument/prepareRename", at(&corrections, place));
    assert_eq!(p["result"]["placeholder"], "128", "{p}");
    let mut q = at(&corrections, place);
    q["newName"] = json!("B128");
    let r = c.request("textDocument/rename", q);
    apply_edit(&r["result"]);
    assert_eq!(warnings(&dir), before);
    let after = std::fs::read_to_string(dir.join("udp.isa")).unwrap();
    assert!(
        after.contains(".64, .B128}") && after.contains("ULDC.B128 UR[0:3]"),
        "{after}"
    );
    // Prose, and a number's digits after a dot, are not the value.
    assert!(after.contains(".64或.128（"), "{after}");
    assert_eq!(
        after.matches("128").count(),
        udp_before.matches("128").count()
    );
    assert_eq!(c.finish(), Some(0));
    let _ = std::fs::remove_dir_all(&dir);
}

/// (file, text before the name, the name, the new name, the outcome).
type RenameCase<'a> = (&'a str, &'a str, &'a str, &'a str, Result<(), &'a str>);

/// Renames one request each, from the name's declaration: (file, text before the
/// name, the name, the new name). `Ok(())` is renamed, the spec checked with no new
/// error or warning; `Err(part)`, refused with `part` in the reason.
fn rename_cases(tag: &str, cases: &[RenameCase]) {
    for (k, (file, before, name, new, want)) in cases.iter().enumerate() {
        let dir = spec_copy(&format!("{tag}-{k}"), |_, text| text);
        let path = dir.join(file);
        let base = isa_gen::Spec::load(&[&dir]).unwrap().check();

        let (mut c, text) = Client::opened(&path);
        let at_name = text
            .find(&format!("{before}{name}"))
            .unwrap_or_else(|| panic!("{before}{name}"))
            + before.len();
        let line = text[..at_name].matches('\n').count() as u32;
        let line_start = text[..at_name].rfind('\n').map_or(0, |i| i + 1);
        let place = (
            line,
            text[line_start..at_name].encode_utf16().count() as u32,
        );
        let mut q = at(&path, place);
        q["newName"] = json!(new);
        let r = c.request("textDocument/rename", q);
        match want {
            Ok(()) => {
                assert!(r["result"].is_object(), "{name} → {new}: {r}");
                apply_edit(&r["result"]);
                let after = isa_gen::Spec::load(&[&dir]).unwrap().check();
                assert!(
                    !after.has_errors(),
                    "{name} → {new}: {}",
                    after.render_diagnostics()
                );
                assert_eq!(
                    after.diagnostics.warning_count(),
                    base.diagnostics.warning_count(),
                    "{name} → {new}: {}",
                    after.diagnostics.render_short(&after.sources)
                );
            }
            Err(part) => {
                let msg = r["error"]["message"].as_str().unwrap_or_default();
                assert!(msg.contains(part), "{name} → {new}: {r}");
            }
        }
        assert_eq!(c.finish(), Some(0));
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// Names written in assembly text are renamed there too: a value of an enumeration
/// whose fields only the opcodes declare (`UMOV.64`), an operand word (`UPR`), a named
/// register (`PT`), an optype's mnemonic (`SHFL`).
#[test]
fn renames_reach_assembly_text() {
    rename_cases(
        "rename-asm",
        &[
            ("base.isa", "    32 = 0;\n    ", "64", "W64", Ok(())),
            ("base.isa", "__DefOperandWord ", "UPR", "UPALL", Ok(())),
            ("sync.isa", "Pred pg = ", "PT", "PTRUE", Ok(())),
            ("sync.isa", "__DefOptype ", "SHFL", "SHUFFLE", Ok(())),
        ],
    );
}

/// Renames that would change what assembly means, or leave the spec disagreeing with
/// itself, are refused with the reason.
#[test]
fn renames_that_change_meaning_are_refused() {
    rename_cases(
        "rename-refused",
        &[
            // The sub-field that makes `!` mean something, and one renamed to it.
            (
                "sync.isa",
                "PModi pg.",
                "not",
                "inv",
                Err("changes the syntax"),
            ),
            (
                "udp.isa",
                "SignModi ura.",
                "neg",
                "not",
                Err("changes the syntax"),
            ),
            // A name of 2 KB.
            (
                "sync.isa",
                "__DefOptype ",
                "SHFL",
                &"S".repeat(2048),
                Err("at most 1024"),
            ),
        ],
    );
}

/// A code fence left open is reported where it opens, not at a later fence it pairs
/// with; its fix closes it before the next section.
#[test]
fn an_open_fence_is_reported_where_it_opens() {
    let dir = spec_copy("open-fence", |name, text| {
        if name == "sync.isa" {
            text.replacen(
                ".mode = {.IDX, .UP, .DOWN, .BFLY}\n```\n",
                ".mode = {.IDX, .UP, .DOWN, .BFLY}\n",
                1,
            )
        } else {
            text
        }
    });
    let errors = check_errors(&dir);
    assert_eq!(errors.len(), 1, "{errors:?}");
    let sync = std::fs::read_to_string(dir.join("sync.isa")).unwrap();
    let open = pos_of(&sync, "```asm", 0).0 + 1;
    assert!(
        errors[0].contains(&format!("sync.isa:{open}:"))
            && errors[0].contains("unterminated code fence"),
        "{errors:?}"
    );
    let checked = isa_gen::Spec::load(&[&dir]).unwrap().check();
    let d = checked.diagnostics.errors().next().unwrap();
    let (span, text) = &d.fixes[0].edits[0];
    let mut fixed = sync.clone();
    fixed.replace_range(span.range(), text);
    std::fs::write(dir.join("sync.isa"), fixed).unwrap();
    assert_eq!(check_errors(&dir), Vec::<String>::new());
    let _ = std::fs::remove_dir_all(&dir);
}

/// An undefined type as near to two types offers both (here the one just defined).
#[test]
fn every_equally_near_name_is_offered() {
    let dir = spec_copy("tied", |name, text| {
        if name == "base.isa" {
            text.replacen("__DefRegFile Reg<", "__DefRegFile Regx<", 1)
        } else {
            text
        }
    });
    let checked = isa_gen::Spec::load(&[&dir]).unwrap().check();
    let d = checked.diagnostics.errors().next().unwrap();
    let titles: Vec<&str> = d.fixes.iter().map(|f| f.title.as_str()).collect();
    assert!(titles.contains(&"replace with `Regx`"), "{titles:?}");
    assert!(titles.contains(&"replace with `BReg`"), "{titles:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
