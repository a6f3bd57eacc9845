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
