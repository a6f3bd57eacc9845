//! `isa lsp`: a Language Server Protocol server for the DSL, over stdio.
//!
//! Messages are `lsp_server::Message`s with `lsp_types` parameters and results. The
//! transport is our own loop around them rather than `lsp_server::Connection::stdio`:
//! that reader thread stops at the first payload that is not JSON-RPC, and a server
//! must answer such a message with an error and keep going. A frame is read whole
//! (never more than its `Content-Length` says; a length over [`MAX_FRAME`] is skipped
//! unread), so one bad message cannot desynchronise the stream.
//!
//! One thread reads frames; the main thread handles them in arrival order. After each
//! burst of messages (everything already queued), the specs whose text changed are
//! checked again and their diagnostics published: typing fast costs one check per
//! burst, not one per keystroke. A request about a changed spec checks it first, so
//! answers always describe the text the editor has.

mod complete;
mod edit;
mod hints;
mod hover;
mod nav;
pub mod pos;
mod project;

use std::collections::HashMap;
use std::io::{BufRead, Read, Write};
use std::process::ExitCode;
use std::rc::Rc;
use std::sync::mpsc;

use lsp_server::{ErrorCode, Message, Notification, Request, Response};
use lsp_types::{
    CodeActionKind, CodeActionOptions, CodeActionParams, CodeActionProviderCapability,
    CompletionOptions, DidChangeTextDocumentParams, DidCloseTextDocumentParams,
    DidOpenTextDocumentParams, DocumentSymbolParams, DocumentSymbolResponse, GotoDefinitionParams,
    GotoDefinitionResponse, Hover, HoverContents, HoverParams, HoverProviderCapability,
    InitializeResult, InlayHintParams, MarkupContent, MarkupKind, OneOf, PositionEncodingKind,
    PrepareRenameResponse, PublishDiagnosticsParams, ReferenceParams, RenameOptions, RenameParams,
    ServerCapabilities, ServerInfo, TextDocumentPositionParams, TextDocumentSyncCapability,
    TextDocumentSyncKind, Uri,
};
use serde_json::{json, Value};

use project::{Doc, Project, ProjectKey};

/// Largest message accepted (a 64 MiB spec file, escaped as JSON, fits).
pub const MAX_FRAME: u64 = 256 << 20;

/// What the reader thread hands over.
enum Incoming {
    Message(Message),
    /// A frame that is not a JSON-RPC message: the error to answer with.
    Bad {
        id: Value,
        code: ErrorCode,
        message: String,
    },
}

/// Runs the server on stdin/stdout until `exit` (status 0 after `shutdown`, else 1,
/// as the protocol says) or until stdin closes.
pub fn serve_stdio() -> ExitCode {
    let (tx, rx) = mpsc::channel();
    let reader = std::thread::Builder::new()
        .name("isa-lsp-reader".into())
        .spawn(move || {
            let stdin = std::io::stdin();
            let mut input = stdin.lock();
            while let Ok(Some(frame)) = read_frame(&mut input) {
                if tx.send(frame).is_err() {
                    break;
                }
            }
        });
    if reader.is_err() {
        return ExitCode::from(2);
    }
    let mut server = Server::new(std::io::stdout());
    ExitCode::from(server.run(&rx))
}

/// Reads one frame. `Ok(None)` at the end of the input (also in the middle of a
/// frame: there is nothing left to answer).
fn read_frame(input: &mut impl BufRead) -> std::io::Result<Option<Incoming>> {
    let mut length: Option<u64> = None;
    let mut bad_header = None;
    let mut any = false;
    loop {
        let mut line = Vec::new();
        let n = input.by_ref().take(64 << 10).read_until(b'\n', &mut line)?;
        if n == 0 {
            return Ok(None);
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches(['\r', '\n']);
        if text.is_empty() {
            if any {
                break;
            }
            continue; // blank lines between frames
        }
        any = true;
        match text.split_once(':') {
            Some((k, v)) if k.trim().eq_ignore_ascii_case("content-length") => {
                match v.trim().parse::<u64>() {
                    Ok(n) => length = Some(n),
                    Err(_) => bad_header = Some(format!("bad Content-Length `{}`", v.trim())),
                }
            }
            Some(_) => {} // Content-Type and others
            None => bad_header = Some(format!("malformed header line `{text}`")),
        }
    }
    let bad = |message: String| {
        Ok(Some(Incoming::Bad {
            id: Value::Null,
            code: ErrorCode::ParseError,
            message,
        }))
    };
    if let Some(m) = bad_header {
        return bad(m);
    }
    let Some(length) = length else {
        return bad("a header without Content-Length".into());
    };
    if length > MAX_FRAME {
        let skipped = std::io::copy(&mut input.by_ref().take(length), &mut std::io::sink())?;
        if skipped < length {
            return Ok(None);
        }
        return bad(format!("a message of {length} bytes (at most {MAX_FRAME})"));
    }
    let mut body = Vec::new();
    input.by_ref().take(length).read_to_end(&mut body)?;
    if (body.len() as u64) < length {
        return Ok(None);
    }
    let value: Value = match serde_json::from_slice(&body) {
        Ok(v) => v,
        Err(e) => return bad(format!("not JSON: {e}")),
    };
    let id = match value.get("id") {
        Some(id @ (Value::Number(_) | Value::String(_))) => id.clone(),
        _ => Value::Null,
    };
    Ok(Some(match serde_json::from_value::<Message>(value) {
        Ok(m) => Incoming::Message(m),
        Err(e) => Incoming::Bad {
            id,
            code: ErrorCode::InvalidRequest,
            message: format!("not a JSON-RPC request, response or notification: {e}"),
        },
    }))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Uninitialized,
    Running,
    ShutDown,
}

struct Server<W: Write> {
    out: W,
    phase: Phase,
    docs: HashMap<String, Doc>,
    projects: HashMap<ProjectKey, Project>,
    /// The output is gone (the editor closed the pipe): nothing more can be said.
    broken: bool,
    /// The client can be asked to watch `*.isa` files (`initialize` said so).
    watch_files: bool,
    /// Id of the next request the server sends.
    next_id: i32,
}

/// An error answer: code and message.
type Failure = (ErrorCode, String);

impl<W: Write> Server<W> {
    fn new(out: W) -> Server<W> {
        Server {
            out,
            phase: Phase::Uninitialized,
            docs: HashMap::new(),
            projects: HashMap::new(),
            broken: false,
            watch_files: false,
            next_id: 1,
        }
    }

    /// Handles messages until `exit`; returns the exit status.
    fn run(&mut self, rx: &mpsc::Receiver<Incoming>) -> u8 {
        loop {
            let Ok(first) = rx.recv() else {
                // stdin closed without `exit`.
                return if self.phase == Phase::ShutDown { 0 } else { 1 };
            };
            let mut batch = vec![first];
            batch.extend(rx.try_iter());
            for m in batch {
                if let Some(status) = self.handle(m) {
                    return status;
                }
            }
            self.publish_dirty();
            if self.broken {
                return 1;
            }
        }
    }

    fn send(&mut self, m: Message) {
        if m.write(&mut self.out).is_err() {
            self.broken = true;
        }
    }

    fn send_raw(&mut self, v: &Value) {
        let text = v.to_string();
        let r = write!(self.out, "Content-Length: {}\r\n\r\n{text}", text.len())
            .and_then(|_| self.out.flush());
        if r.is_err() {
            self.broken = true;
        }
    }

    fn notify(&mut self, method: &str, params: impl serde::Serialize) {
        self.send(Notification::new(method.into(), params).into());
    }

    /// One message; `Some(status)` ends the server.
    fn handle(&mut self, m: Incoming) -> Option<u8> {
        match m {
            Incoming::Bad { id, code, message } => {
                self.send_raw(&json!({
                    "jsonrpc": "2.0",
                    "id": id,
                    "error": {"code": code as i32, "message": message},
                }));
                None
            }
            Incoming::Message(Message::Request(r)) => {
                self.request(r);
                None
            }
            Incoming::Message(Message::Notification(n)) => self.notification(n),
            // The only request we send (registering file watchers) needs no answer:
            // a client that refuses it still gets `didSave`.
            Incoming::Message(Message::Response(_)) => None,
        }
    }

    fn request(&mut self, r: Request) {
        let id = r.id.clone();
        let result = match (self.phase, r.method.as_str()) {
            (Phase::Uninitialized, "initialize") => {
                self.phase = Phase::Running;
                self.watch_files = r.params["capabilities"]["workspace"]["didChangeWatchedFiles"]
                    ["dynamicRegistration"]
                    == json!(true);
                Ok(initialize_result())
            }
            (Phase::Uninitialized, _) => Err((
                ErrorCode::ServerNotInitialized,
                "the server has not been initialized".into(),
            )),
            (_, "initialize") => Err((
                ErrorCode::InvalidRequest,
                "`initialize` was already received".into(),
            )),
            (Phase::ShutDown, _) => Err((
                ErrorCode::InvalidRequest,
                "the server is shutting down".into(),
            )),
            (Phase::Running, "shutdown") => {
                self.phase = Phase::ShutDown;
                Ok(Value::Null)
            }
            (Phase::Running, method) => {
                // A defect in a handler answers this request with an error; the
                // server keeps serving the others.
                let method = method.to_string();
                let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    self.feature(&method, r.params)
                }));
                r.unwrap_or_else(|_| {
                    Err((
                        ErrorCode::InternalError,
                        format!("internal error while answering `{method}`"),
                    ))
                })
            }
        };
        let resp = match result {
            Ok(v) => Response {
                id,
                response_result: Ok(v),
            },
            Err((code, msg)) => Response::new_err(id, code as i32, msg),
        };
        self.send(resp.into());
    }

    fn feature(&mut self, method: &str, params: Value) -> Result<Value, Failure> {
        fn parse<P: serde::de::DeserializeOwned>(v: Value) -> Result<P, Failure> {
            serde_json::from_value(v).map_err(|e| (ErrorCode::InvalidParams, e.to_string()))
        }
        let ok = |v: Result<Value, serde_json::Error>| {
            v.map_err(|e| (ErrorCode::InternalError, e.to_string()))
        };
        match method {
            "textDocument/hover" => {
                let p: HoverParams = parse(params)?;
                let Some((a, last, at)) = self.at(&p.text_document_position_params) else {
                    return Ok(Value::Null);
                };
                let Some(o) = a.index.at(at.0, at.1) else {
                    return Ok(Value::Null);
                };
                let text = hover::hover(&a, last.as_deref(), o.symbol);
                ok(serde_json::to_value(Hover {
                    contents: HoverContents::Markup(MarkupContent {
                        kind: MarkupKind::Markdown,
                        value: text,
                    }),
                    range: Some(a.range(o.span)),
                }))
            }
            "textDocument/definition" => {
                let p: GotoDefinitionParams = parse(params)?;
                let Some((a, _, at)) = self.at(&p.text_document_position_params) else {
                    return Ok(Value::Null);
                };
                let loc = a
                    .index
                    .at(at.0, at.1)
                    .and_then(|o| nav::definition(&a, o.symbol));
                ok(serde_json::to_value(
                    loc.map(GotoDefinitionResponse::Scalar),
                ))
            }
            "textDocument/references" => {
                let p: ReferenceParams = parse(params)?;
                let Some((a, _, at)) = self.at(&p.text_document_position) else {
                    return Ok(Value::Null);
                };
                let locs = a
                    .index
                    .at(at.0, at.1)
                    .map(|o| nav::references(&a, o.symbol, p.context.include_declaration));
                ok(serde_json::to_value(locs))
            }
            "textDocument/documentSymbol" => {
                let p: DocumentSymbolParams = parse(params)?;
                let uri = p.text_document.uri.as_str().to_string();
                let Some(a) = self.analysis_for(&uri) else {
                    return Ok(Value::Null);
                };
                let Some(file) = a.0.file_of(&uri) else {
                    return Ok(Value::Null);
                };
                ok(serde_json::to_value(DocumentSymbolResponse::Nested(
                    nav::outline(&a.0, file),
                )))
            }
            "textDocument/completion" => {
                let p: lsp_types::CompletionParams = parse(params)?;
                let Some((a, _, at)) = self.at(&p.text_document_position) else {
                    return Ok(Value::Null);
                };
                ok(serde_json::to_value(complete::complete(&a, at.0, at.1)))
            }
            "textDocument/prepareRename" => {
                let p: TextDocumentPositionParams = parse(params)?;
                let Some((a, _, at)) = self.at(&p) else {
                    return Ok(Value::Null);
                };
                match edit::prepare(&a, at.0, at.1) {
                    Ok((range, placeholder)) => ok(serde_json::to_value(
                        PrepareRenameResponse::RangeWithPlaceholder { range, placeholder },
                    )),
                    Err(why) => Err((ErrorCode::RequestFailed, why)),
                }
            }
            "textDocument/rename" => {
                let p: RenameParams = parse(params)?;
                let Some((a, _, at)) = self.at(&p.text_document_position) else {
                    return Ok(Value::Null);
                };
                match edit::rename(&a, at.0, at.1, &p.new_name) {
                    Ok(e) => ok(serde_json::to_value(e)),
                    Err(why) => Err((ErrorCode::RequestFailed, why)),
                }
            }
            "textDocument/codeAction" => {
                let p: CodeActionParams = parse(params)?;
                let Some((a, file, range)) = self.span_of(&p.text_document.uri, p.range) else {
                    return Ok(Value::Null);
                };
                ok(serde_json::to_value(edit::code_actions(&a, file, range)))
            }
            "textDocument/inlayHint" => {
                let p: InlayHintParams = parse(params)?;
                let Some((a, file, range)) = self.span_of(&p.text_document.uri, p.range) else {
                    return Ok(Value::Null);
                };
                ok(serde_json::to_value(hints::hints(&a, file, range)))
            }
            _ => Err((
                ErrorCode::MethodNotFound,
                format!("`{method}` is not supported"),
            )),
        }
    }

    /// The analysis, file and byte range of a range in an open document.
    fn span_of(
        &mut self,
        uri: &Uri,
        range: lsp_types::Range,
    ) -> Option<(
        Rc<project::Analysis>,
        isa_gen::source::FileId,
        (usize, usize),
    )> {
        let (a, _) = self.analysis_for(uri.as_str())?;
        let file = a.file_of(uri.as_str())?;
        let r = (a.offset(file, range.start), a.offset(file, range.end));
        Some((a, file, r))
    }

    /// Asks the client to tell the server about `*.isa` files changed on disk (a
    /// checkout, a generator, another editor), so unopened files are read again.
    fn register_watchers(&mut self) {
        if !self.watch_files {
            return;
        }
        let id = self.next_id;
        self.next_id += 1;
        self.send(
            Request::new(
                id.into(),
                "client/registerCapability".into(),
                json!({"registrations": [{
                    "id": "isa-watch",
                    "method": "workspace/didChangeWatchedFiles",
                    "registerOptions": {"watchers": [{"globPattern": "**/*.isa"}]},
                }]}),
            )
            .into(),
        );
    }

    /// The analysis, last good analysis and (file, byte offset) of a position.
    #[allow(clippy::type_complexity)]
    fn at(
        &mut self,
        p: &TextDocumentPositionParams,
    ) -> Option<(
        Rc<project::Analysis>,
        Option<Rc<project::Analysis>>,
        (isa_gen::source::FileId, usize),
    )> {
        let uri = p.text_document.uri.as_str().to_string();
        let (a, last) = self.analysis_for(&uri)?;
        let file = a.file_of(&uri)?;
        let offset = a.offset(file, p.position);
        Some((a, last, (file, offset)))
    }

    /// The up-to-date analysis of the spec an open document belongs to.
    fn analysis_for(
        &mut self,
        uri: &str,
    ) -> Option<(Rc<project::Analysis>, Option<Rc<project::Analysis>>)> {
        let key = ProjectKey::of(self.docs.get(uri)?);
        if self.projects.get(&key).is_some_and(|p| p.dirty) {
            self.refresh(&key);
        }
        let p = self.projects.get(&key)?;
        Some((p.analysis.clone()?, p.last_good.clone()))
    }

    fn notification(&mut self, n: Notification) -> Option<u8> {
        if n.method == "exit" {
            return Some(if self.phase == Phase::ShutDown { 0 } else { 1 });
        }
        if self.phase != Phase::Running {
            return None;
        }
        match n.method.as_str() {
            "textDocument/didOpen" => {
                let Ok(p) = serde_json::from_value::<DidOpenTextDocumentParams>(n.params) else {
                    return None;
                };
                let uri = p.text_document.uri.as_str().to_string();
                let doc = Doc {
                    path: pos::uri_to_path(&uri),
                    uri: uri.clone(),
                    text: p.text_document.text,
                    version: p.text_document.version,
                };
                self.touch(ProjectKey::of(&doc));
                self.docs.insert(uri, doc);
            }
            "textDocument/didChange" => {
                let Ok(p) = serde_json::from_value::<DidChangeTextDocumentParams>(n.params) else {
                    return None;
                };
                let uri = p.text_document.uri.as_str().to_string();
                let doc = self.docs.get_mut(&uri)?;
                for c in p.content_changes {
                    match c.range {
                        Some(r) => {
                            let starts = pos::line_starts(&doc.text);
                            let a = pos::offset(&doc.text, &starts, r.start);
                            let b = pos::offset(&doc.text, &starts, r.end).max(a);
                            doc.text.replace_range(a..b, &c.text);
                        }
                        None => doc.text = c.text,
                    }
                }
                doc.version = p.text_document.version;
                let key = ProjectKey::of(doc);
                self.touch(key);
            }
            "textDocument/didClose" => {
                let Ok(p) = serde_json::from_value::<DidCloseTextDocumentParams>(n.params) else {
                    return None;
                };
                let uri = p.text_document.uri.as_str().to_string();
                if let Some(doc) = self.docs.remove(&uri) {
                    let key = ProjectKey::of(&doc);
                    if self.docs.values().any(|d| ProjectKey::of(d) == key) {
                        self.touch(key);
                    } else if let Some(p) = self.projects.remove(&key) {
                        // Nothing of this spec is open any more: clear what it showed.
                        for uri in p.published {
                            self.publish(&uri, Vec::new(), None);
                        }
                    }
                }
            }
            // Saving changes files the spec reads from disk.
            "textDocument/didSave" | "workspace/didChangeWatchedFiles" => {
                let keys: Vec<ProjectKey> = self.projects.keys().cloned().collect();
                for k in keys {
                    self.touch(k);
                }
            }
            "initialized" => self.register_watchers(),
            _ => {} // `$/cancelRequest`, `$/setTrace`, …
        }
        None
    }

    fn touch(&mut self, key: ProjectKey) {
        self.projects.entry(key).or_default().dirty = true;
    }

    /// Checks a spec again.
    fn refresh(&mut self, key: &ProjectKey) {
        let a = Rc::new(project::gather(key, &self.docs));
        let p = self.projects.entry(key.clone()).or_default();
        if a.checked.model.is_some() {
            p.last_good = Some(a.clone());
        }
        p.analysis = Some(a);
        p.dirty = false;
        self.publish_project(key);
    }

    fn publish_dirty(&mut self) {
        let dirty: Vec<ProjectKey> = self
            .projects
            .iter()
            .filter(|(_, p)| p.dirty)
            .map(|(k, _)| k.clone())
            .collect();
        for k in dirty {
            self.refresh(&k);
        }
    }

    fn publish_project(&mut self, key: &ProjectKey) {
        let Some(p) = self.projects.get(key) else {
            return;
        };
        let Some(a) = p.analysis.clone() else { return };
        let before = p.published.clone();
        let diags = a.diagnostics();
        for uri in before.iter().filter(|u| !diags.contains_key(*u)) {
            self.publish(uri, Vec::new(), None);
        }
        for (uri, list) in &diags {
            // Publishing nothing for a file that never had anything is noise.
            if list.is_empty() && !before.contains(uri) {
                continue;
            }
            let version = self.docs.get(uri).map(|d| d.version);
            self.publish(uri, list.clone(), version);
        }
        let published = diags
            .into_iter()
            .filter(|(_, l)| !l.is_empty())
            .map(|(u, _)| u)
            .collect();
        if let Some(p) = self.projects.get_mut(key) {
            p.published = published;
        }
        for problem in &a.problems {
            self.notify(
                "window/logMessage",
                json!({"type": 2, "message": format!("isa lsp: {problem}")}),
            );
        }
    }

    fn publish(
        &mut self,
        uri: &str,
        diagnostics: Vec<lsp_types::Diagnostic>,
        version: Option<i32>,
    ) {
        let Ok(uri) = uri.parse::<Uri>() else { return };
        self.notify(
            "textDocument/publishDiagnostics",
            PublishDiagnosticsParams {
                uri,
                diagnostics,
                version,
            },
        );
    }
}

fn initialize_result() -> Value {
    let caps = ServerCapabilities {
        position_encoding: Some(PositionEncodingKind::UTF16),
        text_document_sync: Some(TextDocumentSyncCapability::Kind(
            TextDocumentSyncKind::INCREMENTAL,
        )),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        definition_provider: Some(OneOf::Left(true)),
        references_provider: Some(OneOf::Left(true)),
        document_symbol_provider: Some(OneOf::Left(true)),
        rename_provider: Some(OneOf::Right(RenameOptions {
            prepare_provider: Some(true),
            work_done_progress_options: Default::default(),
        })),
        code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
            code_action_kinds: Some(vec![CodeActionKind::QUICKFIX]),
            ..CodeActionOptions::default()
        })),
        inlay_hint_provider: Some(OneOf::Left(true)),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(vec![
                "_".into(),
                "<".into(),
                "[".into(),
                "=".into(),
                "\"".into(),
            ]),
            ..CompletionOptions::default()
        }),
        ..ServerCapabilities::default()
    };
    serde_json::to_value(InitializeResult {
        capabilities: caps,
        server_info: Some(ServerInfo {
            name: "isa lsp".into(),
            version: Some(env!("CARGO_PKG_VERSION").into()),
        }),
    })
    .unwrap_or(Value::Null)
}

#[cfg(test)]
mod tests;
