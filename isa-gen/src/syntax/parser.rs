//! The parser: ISA description text → [`SpecFile`] AST.
//!
//! The files are line oriented. A small driver walks the lines and tracks where it is
//! (top level, a type body, a definition's section, inside a ``` fence); nom parses
//! each statement line (`field<…>`, `Order<…>`, expressions, headers). A bad line is
//! reported as a located error and skipped, so one run reports every syntax error and
//! keeps every valid definition.

use nom::branch::alt;
use nom::bytes::complete::tag;
use nom::character::complete::char;
use nom::combinator::{map, opt};
use nom::multi::{separated_list0, separated_list1};
use nom::sequence::preceded;

use super::ast::*;
use super::lexer::*;
use crate::diag::{Diagnostic, Diagnostics};
use crate::source::{FileId, SourceMap, Span};

/// Parses one file of `sources`. Errors go to `diags`; the returned AST holds every
/// item that parsed.
pub fn parse_file(sources: &SourceMap, file: FileId, diags: &mut Diagnostics) -> SpecFile {
    let text = sources.get(file).text.as_str();
    let mut p = Parser {
        c: Ctx { file, base: text },
        lines: split_lines(text),
        pos: 0,
        diags,
    };
    if without_bom(text).trim().is_empty() {
        p.diags.push(
            Diagnostic::error(Span::new(file, 0, 0), "empty spec file")
                .with_note("a spec file holds at least one `__Def…` definition"),
        );
    }
    let items = p.run();
    SpecFile { file, items }
}

fn without_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

#[derive(Clone, Copy)]
struct Line<'a> {
    /// Without the line terminator.
    text: &'a str,
}

fn split_lines(text: &str) -> Vec<Line<'_>> {
    // A UTF-8 byte-order mark (some editors write one) is no part of the text; the
    // lines stay slices of `text`, so spans keep their offsets.
    without_bom(text)
        .split('\n')
        .map(|l| Line {
            text: l.strip_suffix('\r').unwrap_or(l),
        })
        .collect()
}

/// Converts slices of the file text into spans and AST leaves.
#[derive(Clone, Copy)]
struct Ctx<'a> {
    file: FileId,
    base: &'a str,
}

impl<'a> Ctx<'a> {
    fn offset(&self, s: &str) -> usize {
        s.as_ptr() as usize - self.base.as_ptr() as usize
    }

    fn span(&self, s: &str) -> Span {
        let start = self.offset(s);
        Span::new(self.file, start, start + s.len())
    }

    /// Span from the start of `from` to the start of `rest` (what a parser consumed).
    fn consumed(&self, from: &str, rest: &str) -> Span {
        Span::new(self.file, self.offset(from), self.offset(rest))
    }

    fn ident(&self, s: &str) -> Ident {
        Ident {
            name: s.to_string(),
            span: self.span(s),
        }
    }
}

/// What a header line `__Xxx` names.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Header {
    BitFieldType,
    RegFile,
    Immediate,
    ConstMem,
    OperandWord,
    Registers,
    Flow,
    Correction,
    Def(DefKind),
    Section(SectionKind),
    Unknown,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum SectionKind {
    Encoding,
    OperandInfo,
    Exception,
    Doc(DocKind),
}

const SECTION_NAMES: &str = "`__Encoding`, `__OperandInfo`, `__Exception`, `__Syntax`, \
                             `__Description`, `__ModifierInfo`, `__Semantics` or `__Examples`";

/// If the line starts (after indentation) with `__Word`, returns the word and its kind.
fn header_of(line: &str) -> Option<(&str, Header)> {
    let t = line.trim_start();
    let rest = t.strip_prefix("__")?;
    let (_, word) = ident(rest).ok()?;
    let h = match word {
        "DefBitFieldType" => Header::BitFieldType,
        "DefRegFile" => Header::RegFile,
        "DefImmediate" => Header::Immediate,
        "DefConstMem" => Header::ConstMem,
        "DefOperandWord" => Header::OperandWord,
        "DefRegisters" => Header::Registers,
        "DefFlow" => Header::Flow,
        "DefCorrection" => Header::Correction,
        "DefGroup" => Header::Def(DefKind::Group),
        "DefOptype" => Header::Def(DefKind::Optype),
        "DefOpcode" => Header::Def(DefKind::Opcode),
        "Encoding" => Header::Section(SectionKind::Encoding),
        "OperandInfo" => Header::Section(SectionKind::OperandInfo),
        "Exception" => Header::Section(SectionKind::Exception),
        "Syntax" => Header::Section(SectionKind::Doc(DocKind::Syntax)),
        "Description" => Header::Section(SectionKind::Doc(DocKind::Description)),
        "ModifierInfo" => Header::Section(SectionKind::Doc(DocKind::ModifierInfo)),
        "Semantics" => Header::Section(SectionKind::Doc(DocKind::Semantics)),
        "Examples" => Header::Section(SectionKind::Doc(DocKind::Examples)),
        _ => Header::Unknown,
    };
    Some((&t[..word.len() + 2], h))
}

fn is_definition_header(h: Header) -> bool {
    !matches!(h, Header::Section(_) | Header::Unknown)
}

fn is_blank_or_comment(line: &str) -> bool {
    let t = line.trim();
    t.is_empty() || t.starts_with("//")
}

fn is_fence(line: &str) -> bool {
    line.trim_start().starts_with("```")
}

struct Parser<'a, 'd> {
    c: Ctx<'a>,
    lines: Vec<Line<'a>>,
    pos: usize,
    diags: &'d mut Diagnostics,
}

impl<'a> Parser<'a, '_> {
    fn run(&mut self) -> Vec<Item> {
        let mut items = Vec::new();
        while self.pos < self.lines.len() {
            let line = self.lines[self.pos].text;
            if is_blank_or_comment(line) {
                self.pos += 1;
                continue;
            }
            match header_of(line) {
                Some((word, h)) if is_definition_header(h) => {
                    self.pos += 1;
                    if let Some(item) = self.definition(line, word, h) {
                        items.push(item);
                    }
                }
                Some((word, Header::Section(_))) => {
                    self.error_at(
                        word,
                        format!("section `{word}` outside a definition"),
                        "sections belong to a `__DefGroup`, `__DefOptype` or `__DefOpcode`",
                    );
                    self.pos += 1;
                    self.skip_to_definition();
                }
                _ => {
                    let t = line.trim_start();
                    let (skip, len) = found_len(t);
                    let tok = &t[skip..skip + len.max(1).min(t.len() - skip)];
                    self.error_at(
                        tok,
                        format!("expected a definition, found {}", describe_found(t)),
                        "definitions start with `__DefBitFieldType`, `__DefGroup`, \
                         `__DefOptype` or `__DefOpcode`",
                    );
                    self.pos += 1;
                    self.skip_to_definition();
                }
            }
        }
        items
    }

    /// After an error at top level: skips to the next definition header.
    fn skip_to_definition(&mut self) {
        while self.pos < self.lines.len() {
            if let Some((_, h)) = header_of(self.lines[self.pos].text) {
                if is_definition_header(h) {
                    return;
                }
            }
            self.pos += 1;
        }
    }

    fn error_at(&mut self, at: &str, message: String, note: &str) {
        let mut d = Diagnostic::error(self.c.span(at), message);
        if !note.is_empty() {
            d = d.with_note(note);
        }
        self.diags.push(d);
    }

    /// A fence opened at `open` and never closed; `code` is what followed it. The fix:
    /// a closing line written with too few backticks gets them; else a closing line
    /// goes after the last line of code.
    fn unterminated_fence(&mut self, open: &str, code: &[CodeLine]) {
        let short = code.iter().find(|l| {
            let t = l.text.trim();
            !t.is_empty() && t.len() < 3 && t.bytes().all(|b| b == b'`')
        });
        let fix = match short {
            Some(l) => {
                let lead = l.span.start as usize + l.text.len() - l.text.trim_start().len();
                let at = Span::new(l.span.file, lead, lead + l.text.trim().len());
                ("write the closing fence with three backticks", at, "```")
            }
            None => {
                let last = code.iter().rev().find(|l| !l.text.trim().is_empty());
                let end = last.map_or(self.c.span(open).end, |l| l.span.end) as usize;
                let at = Span::new(self.c.file, end, end);
                ("close the fence after the code", at, "\n```")
            }
        };
        let d = Diagnostic::error(self.c.span(open.trim()), "unterminated code fence")
            .with_note("close it with a line holding only ```")
            .with_fix(fix.0, vec![(fix.1, fix.2.to_string())]);
        self.diags.push(d);
    }

    /// Reports a nom error as "expected X, found Y" at its exact position.
    fn report(&mut self, e: PErr<'a>, what: &str) {
        let (skip, len) = found_len(e.at);
        let start = self.c.offset(e.at) + skip;
        let span = Span::new(self.c.file, start, start + len);
        let expected = if e.expected.is_empty() {
            "valid syntax".to_string()
        } else {
            e.expected
        };
        let found = describe_found(e.at);
        self.diags.push(
            Diagnostic::error(span, format!("expected {expected}, found {found}"))
                .with_label(format!("in {what}")),
        );
    }

    /// Parses a whole line with `p` followed by end of line.
    fn statement<O>(
        &mut self,
        line: &'a str,
        what: &str,
        mut p: impl FnMut(&'a str) -> PResult<'a, O>,
    ) -> Option<O> {
        let input = line.trim_start();
        let r = p(input).and_then(|(rest, o)| line_end(rest).map(|(rest, _)| (rest, o)));
        match r {
            Ok((_, o)) => Some(o),
            Err(nom::Err::Error(e)) | Err(nom::Err::Failure(e)) => {
                self.report(e, what);
                None
            }
            Err(nom::Err::Incomplete(_)) => None,
        }
    }

    fn definition(&mut self, line: &'a str, word: &'a str, h: Header) -> Option<Item> {
        let c = self.c;
        match h {
            Header::BitFieldType => {
                let (name, width) =
                    self.statement(line, "a type header", |i| name_width(c, word, i))?;
                let start_span = c.span(line.trim());
                let values = self.enum_body();
                Some(Item::BitFieldType(EnumDef {
                    name,
                    width,
                    values,
                    span: start_span,
                }))
            }
            Header::RegFile => {
                // A bad sharing word is reported, and the file read as if it had none,
                // so its body and uses raise no errors of their own.
                let mut bad = None;
                let ((name, width), per_lane) =
                    self.statement(line, "a register file header", |i| {
                        let (i, nw) = name_width(c, word, i)?;
                        match sharing(c, i) {
                            Ok((i, s)) => Ok((i, (nw, s))),
                            Err(nom::Err::Failure(e) | nom::Err::Error(e)) => {
                                bad = Some(e);
                                Ok((&i[i.len()..], (nw, None)))
                            }
                            Err(e) => Err(e),
                        }
                    })?;
                if let Some(e) = bad {
                    self.report(e, "a register file header");
                }
                let span = c.span(line.trim());
                let items = self.regfile_body();
                Some(Item::RegFile(RegFileDef {
                    name,
                    width,
                    per_lane,
                    items,
                    span,
                }))
            }
            Header::Immediate => {
                let span = c.span(line.trim());
                let ((name, width), signed) =
                    self.statement(line, "an immediate definition", |i| {
                        let (i, nw) = name_width(c, word, i)?;
                        let (i, s) = must(
                            "`signed` or `unsigned`",
                            preceded(ws, alt((tag("signed"), tag("unsigned")))),
                        )(i)?;
                        Ok((i, (nw, s == "signed")))
                    })?;
                self.expect_no_body("an immediate definition");
                Some(Item::Immediate(ImmediateDef {
                    name,
                    width,
                    signed,
                    span,
                }))
            }
            Header::ConstMem => {
                let span = c.span(line.trim());
                let ((name, width), bank_bits, offset_bits, offset_signed) =
                    self.statement(line, "a constant-memory definition", |i| {
                        let (i, nw) = name_width(c, word, i)?;
                        let (i, _) = must("`bank`", sym("bank"))(i)?;
                        let (i, b) = angle_int(c, i)?;
                        let (i, _) = must("`offset`", sym("offset"))(i)?;
                        let (i, o) = angle_int(c, i)?;
                        let (i, s) = offset_sign(i)?;
                        Ok((i, (nw, b, o, s)))
                    })?;
                self.expect_no_body("a constant-memory definition");
                Some(Item::ConstMem(ConstMemDef {
                    name,
                    width,
                    bank_bits,
                    offset_bits,
                    offset_signed,
                    span,
                }))
            }
            Header::OperandWord => {
                let span = c.span(line.trim());
                let (name, reg_file, lo, hi) =
                    self.statement(line, "an operand word definition", |i| {
                        let (i, _) = tag(word)(i)?;
                        let (i, name) = must("a name", preceded(ws, ident))(i)?;
                        let (i, _) = must("`:`", sym(":"))(i)?;
                        let (i, rf) = must("a register file name", preceded(ws, ident))(i)?;
                        let (i, (lo, hi)) = range(c, i)?;
                        Ok((i, (c.ident(name), c.ident(rf), lo, hi)))
                    })?;
                self.expect_no_body("an operand word definition");
                Some(Item::OperandWord(OperandWordDef {
                    name,
                    reg_file,
                    lo,
                    hi,
                    span,
                }))
            }
            Header::Registers => {
                let span = c.span(line.trim());
                let ty = self.statement(line, "a registers definition", |i| {
                    let (i, _) = tag(word)(i)?;
                    let (i, name) = must("an enumeration name", preceded(ws, ident))(i)?;
                    Ok((i, c.ident(name)))
                })?;
                self.expect_no_body("a registers definition");
                Some(Item::Registers(RegistersDef { ty, span }))
            }
            Header::Flow => {
                let span = c.span(line.trim());
                let header = self.statement(line, "a flow definition", |i| {
                    let (i, _) = tag(word)(i)?;
                    let (i, def) = must("a group, optype or opcode name", preceded(ws, ident))(i)?;
                    let (i, _) = must("`:`", sym(":"))(i)?;
                    let (i, kind) = must("a flow kind", preceded(ws, flow_kind))(i)?;
                    Ok((i, (c.ident(def), c.ident(kind))))
                });
                let mut items = Vec::new();
                for line in self.body_lines() {
                    if let Some(it) = self.statement(line, "a flow item", |i| flow_item(c, i)) {
                        items.push(it);
                    }
                }
                let (def, kind) = header?;
                Some(Item::Flow(FlowDef {
                    def,
                    kind,
                    items,
                    span,
                }))
            }
            Header::Correction => {
                let span = c.span(line.trim());
                let def = self.statement(line, "a correction header", |i| {
                    let (i, _) = tag(word)(i)?;
                    let (i, def) = must("a group, optype or opcode name", preceded(ws, ident))(i)?;
                    Ok((i, c.ident(def)))
                });
                let mut entries = Vec::new();
                for line in self.body_lines() {
                    if let Some(e) =
                        self.statement(line, "an `__OperandInfo` entry", |i| info_entry(c, i))
                    {
                        entries.push(e);
                    }
                }
                Some(Item::Correction(CorrectionDef {
                    def: def?,
                    entries,
                    span,
                }))
            }
            Header::Def(kind) => {
                let header =
                    self.statement(line, "a definition header", |i| def_header(c, word, i));
                // A broken header still names the definition if its name parsed; it is
                // then kept (as incomplete, without parents) so that references to it do
                // not fail too. Without a name, the body is parsed for its errors and the
                // definition dropped.
                let (name, parents, incomplete) = match header {
                    Some((n, p)) => (Some(n), p, false),
                    None => {
                        let name = preceded(tag(word), preceded(ws, ident))(line.trim_start())
                            .ok()
                            .map(|(_, n): (&str, &str)| c.ident(n));
                        (name, Vec::new(), true)
                    }
                };
                let span = c.span(line.trim());
                let mut def = Definition {
                    kind,
                    name: name.clone().unwrap_or(Ident {
                        name: String::new(),
                        span,
                    }),
                    parents,
                    span,
                    encoding: Vec::new(),
                    operand_info: Vec::new(),
                    exceptions: Vec::new(),
                    docs: Vec::new(),
                    incomplete,
                };
                self.def_body(&mut def);
                name.map(|_| Item::Def(def))
            }
            Header::Section(_) | Header::Unknown => None,
        }
    }

    /// Definitions that are a single line must not be followed by indented content.
    fn expect_no_body(&mut self, what: &str) {
        while self.pos < self.lines.len() {
            let line = self.lines[self.pos].text;
            if is_blank_or_comment(line) || header_of(line).is_some() {
                return;
            }
            let t = line.trim_start();
            self.error_at(
                t,
                format!("unexpected line after {what}"),
                "this definition is a single line",
            );
            self.pos += 1;
        }
    }

    /// Lines of a type body up to the next header.
    fn body_lines(&mut self) -> Vec<&'a str> {
        let mut out = Vec::new();
        while self.pos < self.lines.len() {
            let line = self.lines[self.pos].text;
            if header_of(line).is_some() {
                break;
            }
            self.pos += 1;
            if !is_blank_or_comment(line) {
                out.push(line);
            }
        }
        out
    }

    fn enum_body(&mut self) -> Vec<EnumValueDef> {
        let c = self.c;
        let mut values = Vec::new();
        for line in self.body_lines() {
            if let Some(vs) = self.statement(line, "a value list", |i| {
                nom::multi::many1(|i| enum_value(c, i))(i)
            }) {
                values.extend(vs);
            }
        }
        values
    }

    fn regfile_body(&mut self) -> Vec<RegFileItem> {
        let c = self.c;
        let mut items = Vec::new();
        for line in self.body_lines() {
            if let Some(it) = self.statement(line, "a register file item", |i| regfile_item(c, i)) {
                items.push(it);
            }
        }
        items
    }

    /// Sections of a group/optype/opcode, up to the next definition.
    fn def_body(&mut self, def: &mut Definition) {
        while self.pos < self.lines.len() {
            let line = self.lines[self.pos].text;
            if is_blank_or_comment(line) {
                self.pos += 1;
                continue;
            }
            match header_of(line) {
                Some((_, h)) if is_definition_header(h) => return,
                Some((word, Header::Section(kind))) => {
                    self.pos += 1;
                    // Anything after the section keyword on its line is an error.
                    let after = &line.trim_start()[word.len()..];
                    if !is_blank_or_comment(after) {
                        self.error_at(
                            after.trim_start(),
                            format!("unexpected text after `{word}`"),
                            "a section keyword stands alone on its line",
                        );
                    }
                    let span = self.c.span(word);
                    match kind {
                        SectionKind::Encoding => self.encoding(def),
                        SectionKind::OperandInfo => self.operand_info(def, span),
                        SectionKind::Exception => self.exception(def),
                        SectionKind::Doc(k) => {
                            let section = self.doc_section(k, span);
                            def.docs.push(section);
                        }
                    }
                }
                Some((word, _)) => {
                    self.error_at(
                        word,
                        format!("unknown section `{word}`"),
                        &format!("expected {SECTION_NAMES}"),
                    );
                    def.incomplete = true;
                    self.pos += 1;
                    // Skip its content.
                    let _ = self.doc_section(DocKind::Description, self.c.span(word));
                }
                None => {
                    let t = line.trim_start();
                    self.error_at(
                        t,
                        format!("expected a section keyword, found {}", describe_found(t)),
                        &format!("expected {SECTION_NAMES}"),
                    );
                    def.incomplete = true;
                    self.pos += 1;
                }
            }
        }
    }

    /// Structured lines of a section (skipping blank lines and comments).
    fn section_lines(&mut self) -> Vec<&'a str> {
        self.body_lines()
    }

    fn encoding(&mut self, def: &mut Definition) {
        let c = self.c;
        for line in self.section_lines() {
            match self.statement(line, "a field declaration", |i| field_decl(c, i)) {
                Some(f) => def.encoding.push(f),
                None => def.incomplete = true,
            }
        }
    }

    fn exception(&mut self, def: &mut Definition) {
        let c = self.c;
        for line in self.section_lines() {
            match self.statement(line, "an exception", |i| exception_decl(c, i)) {
                Some(e) => def.exceptions.push(e),
                None => def.incomplete = true,
            }
        }
    }

    /// `__OperandInfo`: entries, and prose (kept as documentation).
    fn operand_info(&mut self, def: &mut Definition, span: Span) {
        let c = self.c;
        let mut prose: Vec<&'a str> = Vec::new();
        let mut blocks = Vec::new();
        let mut in_fence: Option<(String, Vec<CodeLine>, &'a str)> = None;
        while self.pos < self.lines.len() {
            let line = self.lines[self.pos].text;
            match (&in_fence, header_of(line)) {
                (None, Some(_)) => break,
                // A definition or section header inside a fence: the fence was never
                // closed (else it would swallow the sections up to the next fence, and
                // the error would show at a later, innocent fence).
                (Some(_), Some((_, h))) if h != Header::Unknown => break,
                _ => {}
            }
            self.pos += 1;
            if is_fence(line) {
                prose.push(line);
                match in_fence.take() {
                    None => in_fence = Some((fence_lang(line), Vec::new(), line)),
                    Some((lang, lines, open)) => blocks.push(CodeBlock {
                        lang,
                        lines,
                        span: c.span(open.trim()),
                    }),
                }
                continue;
            }
            if let Some((_, lines, _)) = in_fence.as_mut() {
                lines.push(CodeLine {
                    text: line.to_string(),
                    span: c.span(line),
                });
                prose.push(line);
                continue;
            }
            let t = line.trim_start();
            if t.starts_with("//") {
                continue;
            }
            if is_info_entry(t) {
                match self.statement(line, "an operand info entry", |i| info_entry(c, i)) {
                    Some(e) => def.operand_info.push(e),
                    None => def.incomplete = true,
                }
            } else {
                prose.push(line);
            }
        }
        if let Some((_, lines, open)) = in_fence {
            self.unterminated_fence(open, &lines);
        }
        let text = join_text(&prose);
        if !text.trim().is_empty() {
            def.docs.push(DocSection {
                kind: DocKind::OperandInfo,
                text,
                span,
                code_blocks: blocks,
            });
        }
    }

    /// A free-text section: verbatim lines up to the next header outside a fence.
    fn doc_section(&mut self, kind: DocKind, span: Span) -> DocSection {
        let c = self.c;
        let mut lines: Vec<&'a str> = Vec::new();
        let mut blocks = Vec::new();
        let mut fence: Option<(String, Vec<CodeLine>, &'a str)> = None;
        while self.pos < self.lines.len() {
            let line = self.lines[self.pos].text;
            match (&fence, header_of(line)) {
                (None, Some(_)) => break,
                // A definition or section header inside a fence: the fence was never
                // closed (else it would swallow the sections up to the next fence, and
                // the error would show at a later, innocent fence).
                (Some(_), Some((_, h))) if h != Header::Unknown => break,
                _ => {}
            }
            self.pos += 1;
            lines.push(line);
            if is_fence(line) {
                match fence.take() {
                    None => fence = Some((fence_lang(line), Vec::new(), line)),
                    Some((lang, code, open)) => blocks.push(CodeBlock {
                        lang,
                        lines: code,
                        span: c.span(open.trim()),
                    }),
                }
            } else if let Some((_, code, _)) = fence.as_mut() {
                code.push(CodeLine {
                    text: line.to_string(),
                    span: c.span(line),
                });
            }
        }
        if let Some((_, code, open)) = fence {
            self.unterminated_fence(open, &code);
        }
        DocSection {
            kind,
            text: join_text(&lines),
            span,
            code_blocks: blocks,
        }
    }
}

fn fence_lang(line: &str) -> String {
    line.trim().trim_start_matches('`').trim().to_string()
}

/// Joins verbatim lines, dropping leading and trailing blank lines.
fn join_text(lines: &[&str]) -> String {
    let first = lines.iter().position(|l| !l.trim().is_empty());
    let last = lines.iter().rposition(|l| !l.trim().is_empty());
    match (first, last) {
        (Some(a), Some(b)) => lines[a..=b].join("\n"),
        _ => String::new(),
    }
}

fn is_info_entry(t: &str) -> bool {
    ["InList", "OutList", "Order", "Bitwidth", "AsmFormat"]
        .iter()
        .any(|k| {
            t.strip_prefix(k)
                .is_some_and(|r| r.trim_start().starts_with('<'))
        })
}

// ---------------------------------------------------------------------------
// Statement grammars (nom)
// ---------------------------------------------------------------------------

fn int_node<'a>(c: Ctx<'a>, i: &'a str) -> PResult<'a, Int> {
    let (i, _) = ws(i)?;
    let (rest, value) = int(i)?;
    Ok((
        rest,
        Int {
            value,
            span: c.consumed(i, rest),
        },
    ))
}

/// `<int>`
fn angle_int<'a>(c: Ctx<'a>, i: &'a str) -> PResult<'a, Int> {
    let (i, _) = must("`<`", sym("<"))(i)?;
    let (i, n) = must("a number", |i| int_node(c, i))(i)?;
    let (i, _) = must("`>`", sym(">"))(i)?;
    Ok((i, n))
}

/// `__Keyword Name<width>`
fn name_width<'a>(c: Ctx<'a>, word: &'a str, i: &'a str) -> PResult<'a, (Ident, Int)> {
    let (i, _) = tag(word)(i)?;
    let (i, _) = ws(i)?;
    let (i, name) = must("a type name", ident)(i)?;
    let (i, width) = angle_int(c, i)?;
    Ok((i, (c.ident(name), width)))
}

/// The optional ` per-lane` / ` per-warp` after a register file's width: whether each
/// lane has its own copy of the file. `None` when neither is written (the model then
/// takes the file as shared by the warp, the safe reading for an allocator).
fn sharing<'a>(c: Ctx<'a>, i: &'a str) -> PResult<'a, Option<(bool, Span)>> {
    let (at, _) = ws(i)?;
    if let Ok((rest, w)) = alt((tag::<_, _, ()>("per-lane"), tag("per-warp")))(at) {
        return Ok((rest, Some((w == "per-lane", c.span(w)))));
    }
    if line_end(at).is_ok() {
        return Ok((at, None));
    }
    Err(nom::Err::Failure(PErr {
        at,
        expected: "`per-lane`, `per-warp` or end of line".into(),
    }))
}

/// The optional ` signed` / ` unsigned` after a constant-memory offset width: signed
/// when neither is written (the offset of the bundled spec's `CMem`).
fn offset_sign(i: &str) -> PResult<'_, bool> {
    let (at, _) = ws(i)?;
    let (rest, word) = opt(ident)(at)?;
    match word {
        Some("signed") => Ok((rest, true)),
        Some("unsigned") => Ok((rest, false)),
        None if line_end(at).is_ok() => Ok((at, true)),
        _ => Err(nom::Err::Failure(PErr {
            at,
            expected: "`signed`, `unsigned` or end of line".into(),
        })),
    }
}

/// ` lo..hi`
fn range<'a>(c: Ctx<'a>, i: &'a str) -> PResult<'a, (Int, Int)> {
    let (i, lo) = must("a number", |i| int_node(c, i))(i)?;
    let (i, _) = must("`..`", sym(".."))(i)?;
    let (i, hi) = must("a number", |i| int_node(c, i))(i)?;
    Ok((i, (lo, hi)))
}

/// `__DefX Name` optionally followed by `: [Parent, ...]`.
fn def_header<'a>(c: Ctx<'a>, word: &'a str, i: &'a str) -> PResult<'a, (Ident, Vec<Ident>)> {
    let (i, _) = tag(word)(i)?;
    let (i, _) = ws(i)?;
    let (i, name) = must("a name", ident)(i)?;
    let (i, colon) = opt(sym(":"))(i)?;
    if colon.is_none() {
        if line_end(i).is_err() {
            return Err(nom::Err::Failure(PErr {
                at: i,
                expected: "`:` or end of line".into(),
            }));
        }
        return Ok((i, (c.ident(name), Vec::new())));
    }
    let (i, _) = must("`[`", sym("["))(i)?;
    let (i, parents) = separated_list0(sym(","), preceded(ws, ident))(i)?;
    let (i, _) = must("`,` or `]`", sym("]"))(i)?;
    Ok((
        i,
        (
            c.ident(name),
            parents.into_iter().map(|p| c.ident(p)).collect(),
        ),
    ))
}

/// `NAME;` or `NAME = 0xff;`
fn enum_value<'a>(c: Ctx<'a>, i: &'a str) -> PResult<'a, EnumValueDef> {
    let (i, _) = ws(i)?;
    let (i, name) = expect("a value name", value_name)(i)?;
    let (i, code) = opt(preceded(sym("="), |i| {
        must("a number", |i| int_node(c, i))(i)
    }))(i)?;
    let (i, _) = must("`;`", sym(";"))(i)?;
    Ok((
        i,
        EnumValueDef {
            name: c.ident(name),
            code,
        },
    ))
}

/// `R 0..254;` or `RZ = 255;`
fn regfile_item<'a>(c: Ctx<'a>, i: &'a str) -> PResult<'a, RegFileItem> {
    let (i, name) = expect("a register name or prefix", ident)(i)?;
    let (i, eq) = opt(sym("="))(i)?;
    let item = if eq.is_some() {
        let (i, code) = must("a number", |i| int_node(c, i))(i)?;
        let (i, reads) = opt(preceded(keyword("reads"), |i| {
            must("the value it reads", preceded(ws, |i| int_node(c, i)))(i)
        }))(i)?;
        (
            i,
            RegFileItem::Named {
                name: c.ident(name),
                code,
                reads,
            },
        )
    } else {
        let (i, (lo, hi)) = range(c, i)?;
        (
            i,
            RegFileItem::Range {
                prefix: c.ident(name),
                lo,
                hi,
            },
        )
    };
    let (i, _) = must("`;`", sym(";"))(item.0)?;
    Ok((i, item.1))
}

/// A flow kind: an identifier that may contain `-` (`indirect-branch`).
fn flow_kind(i: &str) -> PResult<'_, &str> {
    let (rest, _) = ident(i)?;
    let mut end = i.len() - rest.len();
    let b = i.as_bytes();
    while b.get(end) == Some(&b'-') && b.get(end + 1).is_some_and(|c| c.is_ascii_alphabetic()) {
        end += 1;
        while b
            .get(end)
            .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
        {
            end += 1;
        }
    }
    Ok((&i[end..], &i[..end]))
}

/// `target F;`, `condition F, G;`, `absolute F [when G == V];` or `immediate F;`.
fn flow_item<'a>(c: Ctx<'a>, i: &'a str) -> PResult<'a, FlowItem> {
    let (i, kw) = expect(
        "`target`, `condition`, `absolute` or `immediate`",
        alt((
            keyword("target"),
            keyword("condition"),
            keyword("absolute"),
            keyword("immediate"),
        )),
    )(i)?;
    let field = |i| must("a field name", preceded(ws, dotted_ident))(i);
    let (i, item) = match kw {
        "condition" => {
            let (i, names) = separated_list1(sym(","), field)(i)?;
            (
                i,
                FlowItem::Condition(names.into_iter().map(|n| c.ident(n)).collect()),
            )
        }
        "absolute" => {
            let (i, f) = field(i)?;
            let (i, when) = opt(keyword("when"))(i)?;
            let (i, cond) = match when {
                None => (i, None),
                Some(_) => {
                    let (i, g) = field(i)?;
                    let (i, _) = must("`==`", sym("=="))(i)?;
                    let (i, _) = ws(i)?;
                    let (i, v) = must("a value", value_name)(i)?;
                    let v = ValueRef {
                        text: v.to_string(),
                        span: c.span(v),
                    };
                    (i, Some((c.ident(g), v)))
                }
            };
            (i, FlowItem::Absolute(c.ident(f), cond))
        }
        "immediate" => {
            let (i, f) = field(i)?;
            (i, FlowItem::Immediate(c.ident(f)))
        }
        _ => {
            let (i, f) = field(i)?;
            (i, FlowItem::Target(c.ident(f)))
        }
    };
    let (i, _) = must("`;`", sym(";"))(i)?;
    Ok((i, item))
}

/// `field<start, width> Type name [= Value | == Value];`
fn field_decl<'a>(c: Ctx<'a>, line: &'a str) -> PResult<'a, FieldDecl> {
    let (i, _) = expect("`field`", tag("field"))(line)?;
    let (i, _) = must("`<`", sym("<"))(i)?;
    let (i, start) = must("a bit position", |i| int_node(c, i))(i)?;
    let (i, _) = must("`,`", sym(","))(i)?;
    let (i, width) = must("a bit width", |i| int_node(c, i))(i)?;
    let (i, _) = must("`>`", sym(">"))(i)?;
    let (i, _) = ws(i)?;
    let (i, ty) = must("a type name", ident)(i)?;
    let (i, _) = ws(i)?;
    let (i, name) = must("a field name", dotted_ident)(i)?;
    let (i, op) = opt(alt((sym("=="), sym("="))))(i)?;
    let (i, init) = match op {
        None => (i, FieldInit::None),
        Some(op) => {
            let (i, _) = ws(i)?;
            let (i, v) = must("a value", value_name)(i)?;
            let v = ValueRef {
                text: v.to_string(),
                span: c.span(v),
            };
            (
                i,
                if op == "==" {
                    FieldInit::Fixed(v)
                } else {
                    FieldInit::Default(v)
                },
            )
        }
    };
    let (i, _) = must("`;`", sym(";"))(i)?;
    let span = c.consumed(line, i);
    Ok((
        i,
        FieldDecl {
            start,
            width,
            ty: c.ident(ty),
            name: c.ident(name),
            init,
            span,
        },
    ))
}

fn list_item<'a>(c: Ctx<'a>, i: &'a str) -> PResult<'a, ListItem> {
    let (i, _) = ws(i)?;
    let start = i;
    let (i, name) = expect("an operand name", dotted_ident)(i)?;
    let (i, open) = opt(sym("["))(i)?;
    if open.is_none() {
        return Ok((i, ListItem::Name(c.ident(name))));
    }
    let (i, args) = separated_list0(sym(","), preceded(ws, dotted_ident))(i)?;
    let (i, _) = must("`,` or `]`", sym("]"))(i)?;
    Ok((
        i,
        ListItem::Composite {
            head: c.ident(name),
            args: args.into_iter().map(|a| c.ident(a)).collect(),
            span: c.consumed(start, i),
        },
    ))
}

/// `<a, b, C[x, y]>`; may be empty.
fn item_list<'a>(c: Ctx<'a>, i: &'a str) -> PResult<'a, Vec<ListItem>> {
    let (i, _) = must("`<`", sym("<"))(i)?;
    let (i, empty) = opt(sym(">"))(i)?;
    if empty.is_some() {
        return Ok((i, Vec::new()));
    }
    let (i, items) = separated_list0(sym(","), |i| list_item(c, i))(i)?;
    let (i, _) = must("`,` or `>`", sym(">"))(i)?;
    Ok((i, items))
}

fn info_entry<'a>(c: Ctx<'a>, line: &'a str) -> PResult<'a, InfoEntry> {
    let (i, kw) = ident(line)?;
    let entry = match kw {
        "InList" | "OutList" | "Order" => {
            let (i, items) = item_list(c, i)?;
            let span = c.consumed(line, i);
            let e = match kw {
                "InList" => InfoEntry::InList(items, span),
                "OutList" => InfoEntry::OutList(items, span),
                _ => InfoEntry::Order(items, span),
            };
            (i, e)
        }
        "Bitwidth" => {
            let (i, _) = must("`<`", sym("<"))(i)?;
            let (i, _) = ws(i)?;
            let (i, op) = must("an operand name", dotted_ident)(i)?;
            let (i, _) = must("`>`", sym(">"))(i)?;
            let (i, _) = must("`=`", sym("="))(i)?;
            let (i, e) = must("an expression", |i| expr(c, i))(i)?;
            (
                i,
                InfoEntry::Bitwidth {
                    operand: c.ident(op),
                    expr: e,
                    span: c.consumed(line, i),
                },
            )
        }
        _ => {
            let (i, _) = must("`<`", sym("<"))(i)?;
            let (i, _) = ws(i)?;
            let (i, op) = must("an operand name", dotted_ident)(i)?;
            let (i, _) = must("`>`", sym(">"))(i)?;
            let (i, _) = must("`=`", sym("="))(i)?;
            let (i, _) = ws(i)?;
            let (i, conv) = must("a converter name", ident)(i)?;
            let (i, _) = must("`(`", sym("("))(i)?;
            let (i, args) = separated_list0(sym(","), |i| expr(c, i))(i)?;
            let (i, _) = must("`,` or `)`", sym(")"))(i)?;
            (
                i,
                InfoEntry::AsmFormat {
                    operand: c.ident(op),
                    converter: c.ident(conv),
                    args,
                    span: c.consumed(line, i),
                },
            )
        }
    };
    let (i, _) = must("`;`", sym(";"))(entry.0)?;
    Ok((i, entry.1))
}

/// `EncodingError<Kind, "message"> = condition;`
fn exception_decl<'a>(c: Ctx<'a>, line: &'a str) -> PResult<'a, ExceptionDecl> {
    let (i, _) = expect("`EncodingError`", tag("EncodingError"))(line)?;
    let (i, _) = must("`<`", sym("<"))(i)?;
    let (i, _) = ws(i)?;
    let (i, kind) = must("an error kind", ident)(i)?;
    let (i, _) = must("`,`", sym(","))(i)?;
    let (i, _) = ws(i)?;
    let (i, msg) = must("a message string", string)(i)?;
    let (i, _) = must("`>`", sym(">"))(i)?;
    let (i, _) = must("`=`", sym("="))(i)?;
    let (i, cond) = must("a condition", |i| expr(c, i))(i)?;
    let (i, _) = must("`;`", sym(";"))(i)?;
    Ok((
        i,
        ExceptionDecl {
            kind: c.ident(kind),
            message: msg.to_string(),
            cond,
            span: c.consumed(line, i),
        },
    ))
}

// Expressions: or < and < comparison < + - < * < unary < primary.

fn keyword<'a>(kw: &'static str) -> impl FnMut(&'a str) -> PResult<'a, &'a str> {
    move |i| {
        let (i, _) = ws(i)?;
        let (rest, k) = tag(kw)(i)?;
        if rest.starts_with(|ch: char| ch.is_ascii_alphanumeric() || ch == '_') {
            return Err(nom::Err::Error(PErr {
                at: i,
                expected: String::new(),
            }));
        }
        Ok((rest, k))
    }
}

/// Parses an expression (used by `Bitwidth` and `__Exception`).
fn expr<'a>(c: Ctx<'a>, i: &'a str) -> PResult<'a, Expr> {
    expr_depth(c, i, 0)
}

const MAX_EXPR_DEPTH: usize = 64;

fn expr_depth<'a>(c: Ctx<'a>, i: &'a str, depth: usize) -> PResult<'a, Expr> {
    if depth > MAX_EXPR_DEPTH {
        return Err(nom::Err::Failure(PErr {
            at: i,
            expected: format!("an expression nested at most {MAX_EXPR_DEPTH} deep"),
        }));
    }
    let binary = |ops: &'static [(&'static str, BinOp)],
                  next: &dyn Fn(&'a str) -> PResult<'a, Expr>,
                  i: &'a str|
     -> PResult<'a, Expr> {
        let (mut i, mut lhs) = next(i)?;
        loop {
            let mut matched = None;
            for (sym_text, op) in ops {
                let r = if sym_text.chars().all(|ch| ch.is_ascii_alphabetic()) {
                    keyword(sym_text)(i)
                } else {
                    sym(sym_text)(i)
                };
                if let Ok((rest, _)) = r {
                    matched = Some((rest, *op));
                    break;
                }
            }
            let Some((rest, op)) = matched else {
                return Ok((i, lhs));
            };
            let (rest, rhs) = must("an operand", next)(rest)?;
            lhs = Expr::Binary(op, Box::new(lhs), Box::new(rhs));
            // A chain `a + b + c …` nests one level per operator in the tree that
            // checking, evaluation and code generation recurse through.
            if depth + tree_depth(&lhs) > MAX_EXPR_DEPTH {
                return Err(nom::Err::Failure(PErr {
                    at: i,
                    expected: format!(
                        "an expression nested at most {MAX_EXPR_DEPTH} deep \
                         (each operator of a chain is a level)"
                    ),
                }));
            }
            i = rest;
        }
    };
    let unary = move |i: &'a str| -> PResult<'a, Expr> { unary_expr(c, i, depth) };
    let mul = |i| binary(&[("*", BinOp::Mul)], &unary, i);
    let add = |i| binary(&[("+", BinOp::Add), ("-", BinOp::Sub)], &mul, i);
    let cmp = |i| {
        binary(
            &[
                ("==", BinOp::Eq),
                ("!=", BinOp::Ne),
                ("<=", BinOp::Le),
                (">=", BinOp::Ge),
                ("<", BinOp::Lt),
                (">", BinOp::Gt),
            ],
            &add,
            i,
        )
    };
    let and = |i| binary(&[("and", BinOp::And), ("&&", BinOp::And)], &cmp, i);
    binary(&[("or", BinOp::Or), ("||", BinOp::Or)], &and, i)
}

fn unary_expr<'a>(c: Ctx<'a>, i: &'a str, depth: usize) -> PResult<'a, Expr> {
    let (i, _) = ws(i)?;
    if depth > MAX_EXPR_DEPTH {
        return Err(nom::Err::Failure(PErr {
            at: i,
            expected: format!("an expression nested at most {MAX_EXPR_DEPTH} deep"),
        }));
    }
    let start = i;
    if let Ok((rest, _)) = alt((tag::<_, _, PErr>("!"), keyword("not")))(i) {
        if !rest.starts_with('=') {
            let (rest, e) = must("an operand", |i| unary_expr(c, i, depth + 1))(rest)?;
            return Ok((
                rest,
                Expr::Unary(UnOp::Not, Box::new(e), c.consumed(start, rest)),
            ));
        }
    }
    if let Ok((rest, _)) = tag::<_, _, PErr>("-")(i) {
        let (rest, e) = must("an operand", |i| unary_expr(c, i, depth + 1))(rest)?;
        return Ok((
            rest,
            Expr::Unary(UnOp::Neg, Box::new(e), c.consumed(start, rest)),
        ));
    }
    primary(c, i, depth)
}

/// Depth of an expression tree (a leaf is 1).
fn tree_depth(e: &Expr) -> usize {
    match e {
        Expr::Unary(_, x, _) => 1 + tree_depth(x),
        Expr::Binary(_, a, b) => 1 + tree_depth(a).max(tree_depth(b)),
        Expr::Int(_) | Expr::Str(..) | Expr::Name(_) => 1,
    }
}

fn primary<'a>(c: Ctx<'a>, i: &'a str, depth: usize) -> PResult<'a, Expr> {
    let (i, _) = ws(i)?;
    if let Ok((rest, _)) = char::<_, PErr>('(')(i) {
        let (rest, e) = expr_depth(c, rest, depth + 1)?;
        let (rest, _) = must("`)`", sym(")"))(rest)?;
        return Ok((rest, e));
    }
    if i.starts_with('"') {
        let (rest, s) = string(i)?;
        return Ok((rest, Expr::Str(s.to_string(), c.consumed(i, rest))));
    }
    if let Ok((rest, n)) = int_node(c, i) {
        return Ok((rest, Expr::Int(n)));
    }
    expect(
        "a number, a string, a name or `(`",
        map(dotted_ident, |n| Expr::Name(c.ident(n))),
    )(i)
}
