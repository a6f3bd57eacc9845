//! `__Syntax` sections against the encodings.

use std::collections::BTreeSet;

use super::*;

/// Index of the bracket closing the one at `open`, or `to` when unbalanced.
fn closing(bytes: &[u8], open: usize, to: usize) -> usize {
    let mut depth = 0usize;
    for (i, &b) in bytes.iter().enumerate().take(to).skip(open) {
        match b {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i;
                }
            }
            _ => {}
        }
    }
    to
}

/// Splits `from..to` at commas outside brackets.
fn split_commas(bytes: &[u8], from: usize, to: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut start = from;
    for (i, &b) in bytes.iter().enumerate().take(to).skip(from) {
        match b {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            b',' if depth == 0 => {
                out.push((start, i));
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push((start, to));
    out
}

/// `from..to` without surrounding whitespace.
fn trim_range(bytes: &[u8], mut from: usize, mut to: usize) -> (usize, usize) {
    while from < to && bytes[from].is_ascii_whitespace() {
        from += 1;
    }
    while to > from && bytes[to - 1].is_ascii_whitespace() {
        to -= 1;
    }
    (from, to)
}

/// Parses a mnemonic at `at`: `HEAD(.word|{.word…})*`, ending at whitespace or the
/// end. Returns the head, the words, and where it ends.
fn parse_mnemonic(text: &str, at: usize) -> Option<(Comp<'_>, Vec<Comp<'_>>, usize)> {
    let b = text.as_bytes();
    let ident = |mut i: usize| {
        let s = i;
        while i < b.len() && is_ident_byte(b[i]) {
            i += 1;
        }
        (s, i)
    };
    let (hs, he) = ident(at);
    if hs == he || !(b[hs].is_ascii_alphabetic() || b[hs] == b'_') {
        return None;
    }
    let head = Comp {
        text: &text[hs..he],
        start: hs,
        end: he,
        optional: false,
    };
    let mut comps = Vec::new();
    let mut i = he;
    loop {
        if i < b.len() && b[i] == b'.' {
            let (s, e) = ident(i + 1);
            if s == e {
                return None;
            }
            comps.push(Comp {
                text: &text[s..e],
                start: s,
                end: e,
                optional: false,
            });
            i = e;
        } else if i + 1 < b.len() && b[i] == b'{' && b[i + 1] == b'.' {
            i += 1;
            while i < b.len() && b[i] == b'.' {
                let (s, e) = ident(i + 1);
                if s == e {
                    return None;
                }
                comps.push(Comp {
                    text: &text[s..e],
                    start: s,
                    end: e,
                    optional: true,
                });
                i = e;
            }
            if i >= b.len() || b[i] != b'}' {
                return None;
            }
            i += 1;
        } else {
            break;
        }
    }
    if i < b.len() && !b[i].is_ascii_whitespace() {
        return None;
    }
    Some((head, comps, i))
}

/// Where scanning resumes after a brace group closing at `close` (the operand ends at
/// `to`). Resuming earlier would rescan the group's own characters, which extend the
/// operand to the same end: mutants of this arithmetic are equivalent (listed in
/// `.cargo/mutants.toml`).
fn group_end(close: usize, to: usize) -> usize {
    (close + 1).min(to)
}

/// The operands of a syntax line between `from` and `to`. A brace group holding a
/// comma is optional (`URd{, upu}`, `{upu, }URd`); other brace groups are optional
/// parts of one operand (`{-}URa`, `UR[URa{+SImm7}]`).
fn syntax_operands(text: &str, from: usize, to: usize) -> Vec<SynOperand<'_>> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let (f, t) = trim_range(b, from, to);
    if f == t {
        return out;
    }
    for (a, z) in split_commas(b, from, to) {
        let mut items: Vec<SynOperand> = Vec::new();
        let mut main: Option<(usize, usize)> = None;
        let extend = |s: usize, e: usize, main: &mut Option<(usize, usize)>| {
            *main = Some(match *main {
                None => (s, e),
                Some((ms, _)) => (ms, e),
            });
        };
        let mut i = a;
        while i < z {
            if b[i] == b'{' {
                let close = closing(b, i, z);
                let end = group_end(close, z);
                let inner = split_commas(b, i + 1, close);
                if inner.len() > 1 {
                    for (c, d) in inner {
                        let (c, d) = trim_range(b, c, d);
                        if c < d {
                            items.push(SynOperand {
                                text: &text[c..d],
                                start: c,
                                optional: true,
                            });
                        }
                    }
                } else {
                    extend(i, end, &mut main);
                }
                i = end;
                continue;
            }
            if !b[i].is_ascii_whitespace() {
                extend(i, i + 1, &mut main);
            }
            i += 1;
        }
        if let Some((s, e)) = main {
            items.push(SynOperand {
                text: &text[s..e],
                start: s,
                optional: false,
            });
        }
        items.sort_by_key(|o| o.start);
        out.extend(items);
    }
    out
}

/// The prefix of a syntax operand (`{-}URa`, `-URa`): the character and its offset
/// within the operand text.
fn operand_prefix(text: &str) -> Option<(char, usize, &str)> {
    let b = text.as_bytes();
    for (i, &c) in b.iter().enumerate().take(2) {
        if matches!(c, b'-' | b'~' | b'!') {
            let braced = i == 1 && b[0] == b'{' && b.get(2) == Some(&b'}');
            if i == 0 || braced {
                let rest = &text[if braced { 3 } else { 1 }..];
                return Some((c as char, i, rest));
            }
        }
    }
    None
}

/// Whether a sub-field named `sub` can encode the prefix `p`.
fn encodes_prefix(sub: &str, p: char) -> bool {
    match sub {
        "not" => p == '!',
        "neg" => p == '-' || p == '~',
        "bitnot" => p == '~',
        _ => false,
    }
}

impl Cx<'_> {
    pub(super) fn syntax_section(
        &self,
        owner: &str,
        scope: &[usize],
        doc: &DocSection,
        diags: &mut Diagnostics,
    ) {
        // Modifiers written as required (reported once per section).
        let mut required_reported = BTreeSet::new();
        for line in doc.code_blocks.iter().flat_map(|b| &b.lines) {
            let text = line.text.as_str();
            let mut end = text.len();
            for stop in ["//", "$", ";"] {
                if let Some(p) = text.find(stop) {
                    end = end.min(p);
                }
            }
            let (start, end) = trim_range(text.as_bytes(), 0, end);
            if start == end {
                continue;
            }
            if text.as_bytes()[start] == b'.' {
                self.value_list(owner, scope, line, start, end, diags);
                continue;
            }
            let Some((head, comps, mn_end)) = parse_mnemonic(&text[..end], start) else {
                continue;
            };
            let Some((family, used)) = self.family_of(head.text, &comps) else {
                diags.push(
                    Diagnostic::warning(
                        Lint::Syntax,
                        sub_span(line, head.start, head.end),
                        format!(
                            "`__Syntax` of `{owner}` uses the unknown mnemonic `{}`",
                            head.text
                        ),
                    )
                    .with_label("no optype of this name"),
                );
                continue;
            };
            let ops: Vec<usize> = family
                .ops
                .iter()
                .copied()
                .filter(|i| scope.contains(i))
                .collect();
            if ops.is_empty() {
                diags.push(Diagnostic::warning(
                    Lint::Syntax,
                    sub_span(
                        line,
                        head.start,
                        comps.get(used.wrapping_sub(1)).map_or(head.end, |c| c.end),
                    ),
                    format!(
                        "`__Syntax` of `{owner}` describes `{}`, which is not one of its opcodes",
                        family.name
                    ),
                ));
                continue;
            }
            for c in &comps[used..] {
                if self.is_modifier_name(&ops, c.text) {
                    if !c.optional {
                        self.required_modifier(owner, &ops, line, c, &mut required_reported, diags);
                    }
                    continue;
                }
                if self.is_modifier_value(&ops, c.text) {
                    continue;
                }
                let mods = self.modifiers(&ops);
                let names: Vec<&str> = mods
                    .iter()
                    .map(|&(o, f)| self.op(o).fields[f].name.as_str())
                    .collect();
                let mut d = Diagnostic::warning(Lint::Syntax,
                    sub_span(line, c.start - 1, c.end),
                    format!(
                        "`.{}` in the `__Syntax` of `{owner}` is neither a modifier of its opcodes nor a value of one",
                        c.text
                    ),
                );
                d = if names.is_empty() {
                    d.with_note(format!(
                        "the opcodes of `{}` have no modifiers",
                        family.name
                    ))
                } else {
                    d.with_note(format!(
                        "modifiers of `{}`: {}",
                        family.name,
                        quoted_list(names)
                    ))
                };
                diags.push(d);
            }
            self.syntax_operands(owner, &family.name, &ops, line, mn_end, end, diags);
        }
    }

    /// `.name` written as required in a mnemonic although the field has a default.
    fn required_modifier(
        &self,
        owner: &str,
        ops: &[usize],
        line: &CodeLine,
        c: &Comp,
        reported: &mut BTreeSet<String>,
        diags: &mut Diagnostics,
    ) {
        let with_default = ops.iter().find_map(|&i| {
            let op = self.op(i);
            op.fields
                .iter()
                .find(|f| f.role == Role::Modifier && f.name == c.text && f.default.is_some())
        });
        let Some(f) = with_default else { return };
        if !reported.insert(c.text.to_string()) {
            return;
        }
        let ty = self.model.ty(f.ty);
        let default = f.default.unwrap_or_default();
        let dname = ty
            .enum_name(default)
            .map_or_else(|| format!("{default:#x}"), str::to_string);
        diags.push(
            Diagnostic::warning(Lint::Syntax,
                sub_span(line, c.start - 1, c.end),
                format!(
                    "`__Syntax` of `{owner}` writes `.{}` as required, but the encoding gives it the default `{dname}`",
                    c.text
                ),
            )
            .with_label(format!("write `{{.{}}}` if it may be left out", c.text))
            .with_secondary(f.span, "default declared here")
            .with_note("a modifier equal to its default is not printed, so the assembler must accept it left out")
            .with_fix(
                format!("write `{{.{}}}`", c.text),
                vec![(sub_span(line, c.start - 1, c.end), format!("{{.{}}}", c.text))],
            ),
        );
    }

    /// Operand count and prefixes of one syntax line.
    #[allow(clippy::too_many_arguments)]
    fn syntax_operands(
        &self,
        owner: &str,
        family: &str,
        ops: &[usize],
        line: &CodeLine,
        from: usize,
        to: usize,
        diags: &mut Diagnostics,
    ) {
        let text = line.text.as_str();
        let operands = syntax_operands(text, from, to);
        let required = operands.iter().filter(|o| !o.optional).count();
        let total = operands.len();
        if !self.accepts(ops, required, total) {
            let (s, e) = match (operands.first(), operands.last()) {
                (Some(a), Some(z)) => (a.start, z.start + z.text.len()),
                _ => trim_range(text.as_bytes(), from, to),
            };
            let (s, e) = if s == e { (from, to.max(from)) } else { (s, e) };
            diags.push(
                Diagnostic::warning(Lint::Syntax,
                    sub_span(line, s, e),
                    format!(
                        "`__Syntax` of `{owner}` shows {}, but no `{family}` opcode takes that many",
                        range_text(required, total)
                    ),
                )
                .with_note(self.ranges_note(ops))
                .with_note("an opcode takes its `Order` without the guard predicate; operands with a default may be left out"),
            );
            return;
        }
        // Prefixes, where the line spells out every operand of an opcode.
        for (k, o) in operands.iter().enumerate() {
            let Some((p, off, name)) = operand_prefix(o.text) else {
                continue;
            };
            let mut aligned = false;
            let mut supported = false;
            let mut fields: Vec<&str> = Vec::new();
            for &i in ops {
                let op = self.op(i);
                let skip = usize::from(op.guard(self.model).is_some());
                if op.order.len() - skip != total {
                    continue;
                }
                aligned = true;
                let base = match op.order[skip + k].kind {
                    OperandKind::Field(f) => Some(f),
                    OperandKind::CMemIndexed { mem, .. } => Some(mem),
                    OperandKind::RegIndexed { reg, .. } => Some(reg),
                    OperandKind::Word(_) => None,
                };
                let Some(base) = base else { continue };
                if !fields.contains(&op.fields[base].name.as_str()) {
                    fields.push(&op.fields[base].name);
                }
                if op.sub_fields(base).any(|s| {
                    op.fields[s]
                        .sub_name()
                        .is_some_and(|n| encodes_prefix(n, p))
                }) {
                    supported = true;
                }
            }
            if aligned && !supported {
                let at = o.start + off;
                let fields_text = if fields.is_empty() {
                    "that operand".to_string()
                } else {
                    quoted_list(fields.iter().copied())
                };
                diags.push(
                    Diagnostic::warning(Lint::Syntax,
                        sub_span(line, at, at + 1),
                        format!(
                            "`__Syntax` of `{owner}` allows `{p}` before `{name}`, but no `{family}` opcode can encode it"
                        ),
                    )
                    .with_label(format!("no sub-field of {fields_text} encodes `{p}`"))
                    .with_note("`-` needs a `.neg` sub-field, `~` a `.bitnot` (or a `.neg` under `CvtINegX`), `!` a `.not`"),
                );
            }
        }
    }

    /// `.name = {.A*, .B}`: the values of the field `name`, `*` marking the default.
    fn value_list(
        &self,
        owner: &str,
        scope: &[usize],
        line: &CodeLine,
        start: usize,
        end: usize,
        diags: &mut Diagnostics,
    ) {
        let text = line.text.as_str();
        let b = text.as_bytes();
        // `.name`
        let ns = start + 1;
        let mut ne = ns;
        while ne < end && is_ident_byte(b[ne]) {
            ne += 1;
        }
        if ne == ns {
            return;
        }
        let name = &text[ns..ne];
        let rest = &text[ne..end];
        let Some(eq) = rest.find('=') else { return };
        if !rest[..eq].trim().is_empty() {
            return;
        }
        let after = ne + eq + 1;
        let Some(open) = text[after..end].find('{').map(|p| p + after) else {
            return;
        };
        if !text[after..open].trim().is_empty() {
            return;
        }
        let Some(close) = text[open..end].find('}').map(|p| p + open) else {
            return;
        };
        // Items: `.VALUE` with an optional `*`.
        let mut items: Vec<(&str, usize, usize, bool)> = Vec::new();
        for (a, z) in split_commas(b, open + 1, close) {
            let (a, z) = trim_range(b, a, z);
            if a == z {
                continue;
            }
            let item = &text[a..z];
            let Some(v) = item.strip_prefix('.') else {
                return;
            };
            let (v, star) = match v.strip_suffix('*') {
                Some(v) => (v.trim_end(), true),
                None => (v, false),
            };
            if v.is_empty() || !v.bytes().all(is_ident_byte) {
                return;
            }
            items.push((v, a + 1, a + 1 + v.len(), star));
        }
        // The fields this list describes: modifiers or sub-fields called `name`.
        let mut fields: Vec<(&Opcode, usize)> = Vec::new();
        for &i in scope {
            let op = self.op(i);
            for (fi, f) in op.fields.iter().enumerate() {
                let named = f.name == name || f.sub_name() == Some(name);
                if named && matches!(f.role, Role::Modifier | Role::SubField(_)) {
                    fields.push((op, fi));
                }
            }
        }
        if fields.is_empty() {
            diags.push(
                Diagnostic::warning(Lint::Syntax,
                    sub_span(line, start, ne),
                    format!(
                        "`__Syntax` of `{owner}` lists values of `.{name}`, which is not a modifier of its opcodes"
                    ),
                )
                .with_note(format!(
                    "modifiers: {}",
                    quoted_list(
                        self.modifiers(scope)
                            .iter()
                            .map(|&(o, f)| self.op(o).fields[f].name.as_str())
                    )
                )),
            );
            return;
        }
        let mut types: Vec<TypeId> = Vec::new();
        for (op, fi) in &fields {
            if !types.contains(&op.fields[*fi].ty) {
                types.push(op.fields[*fi].ty);
            }
        }
        if types
            .iter()
            .all(|&t| self.model.ty(t).enum_values().is_none())
        {
            return; // values of a register or an immediate are not named
        }
        let valid = |v: &str| {
            types
                .iter()
                .any(|&t| self.model.ty(t).enum_code(v).is_some())
        };
        let bad: Vec<_> = items.iter().filter(|it| !valid(it.0)).collect();
        let ty_names = quoted_list(types.iter().map(|&t| self.model.ty(t).name.as_str()));
        if let Some(first) = bad.first() {
            let names = quoted_list(
                bad.iter()
                    .map(|it| format!(".{}", it.0))
                    .collect::<Vec<_>>()
                    .iter()
                    .map(String::as_str),
            );
            let mut d = Diagnostic::warning(
                Lint::Syntax,
                sub_span(line, first.1 - 1, first.2),
                if bad.len() == 1 {
                    format!("{names} is not a value of {ty_names}, the type of `.{name}`")
                } else {
                    format!("{names} are not values of {ty_names}, the type of `.{name}`")
                },
            )
            .with_label("not a value of the field's type");
            for it in &bad[1..] {
                d = d.with_secondary(sub_span(line, it.1 - 1, it.2), "not a value either");
            }
            for &t in &types {
                let ty = self.model.ty(t);
                let values = ty.enum_values().unwrap_or(&[]);
                d = d.with_note(format!(
                    "values of `{}`: {}",
                    ty.name,
                    crate::model::expr::list_values(values)
                ));
                for it in &bad {
                    if let Some(s) =
                        crate::suggest::nearest(it.0, values.iter().map(|v| v.name.as_str()))
                    {
                        d = d
                            .with_note(format!("for `.{}`, did you mean `.{s}`?", it.0))
                            .with_fix(
                                format!("replace `.{}` with `.{s}`", it.0),
                                vec![(sub_span(line, it.1, it.2), s.to_string())],
                            );
                    }
                }
            }
            let (op, fi) = fields[0];
            d = d.with_secondary(op.fields[fi].span, format!("`{name}` declared here"));
            let missing = self.unlisted(&types, &items);
            if !missing.is_empty() {
                d = d.with_note(format!("values not listed: {}", missing.join(", ")));
            }
            diags.push(d);
        } else {
            let missing = self.unlisted(&types, &items);
            if !missing.is_empty() {
                let (op, fi) = fields[0];
                diags.push(
                    Diagnostic::warning(Lint::Syntax,
                        sub_span(line, start, close + 1),
                        format!(
                            "`__Syntax` of `{owner}` lists only some values of `.{name}`: {} {} missing",
                            missing.join(", "),
                            if missing.len() == 1 { "is" } else { "are" }
                        ),
                    )
                    .with_secondary(op.fields[fi].span, format!("`{name}` declared here"))
                    .with_fix(
                        format!("list {}", missing.join(", ")),
                        vec![(
                            sub_span(line, close, close),
                            missing
                                .iter()
                                .map(|m| format!(", {}", m.trim_matches('`')))
                                .collect(),
                        )],
                    ),
                );
            }
        }
        // The `*` default against the encoding's `= default`.
        let stars: Vec<_> = items.iter().filter(|it| it.3).collect();
        if stars.len() > 1 {
            diags.push(
                Diagnostic::warning(
                    Lint::Syntax,
                    sub_span(line, stars[1].1 - 1, stars[1].2 + 1),
                    format!("`__Syntax` of `{owner}` marks several defaults for `.{name}`"),
                )
                .with_secondary(
                    sub_span(line, stars[0].1 - 1, stars[0].2 + 1),
                    "first default",
                ),
            );
            return;
        }
        let Some(star) = stars.first() else { return };
        if !valid(star.0) {
            return; // already reported
        }
        let defaults: Vec<(&Opcode, usize, u128)> = fields
            .iter()
            .filter_map(|&(op, fi)| op.fields[fi].default.map(|d| (op, fi, d)))
            .collect();
        let star_span = sub_span(line, star.1 - 1, star.2 + 1);
        if defaults.is_empty() {
            let (op, fi) = fields[0];
            diags.push(
                Diagnostic::warning(Lint::Syntax,
                    star_span,
                    format!(
                        "`__Syntax` of `{owner}` marks `.{}` as the default of `.{name}`, but the encoding gives `{name}` no default",
                        star.0
                    ),
                )
                .with_secondary(op.fields[fi].span, format!("`{name}` declared here without `= value`")),
            );
            return;
        }
        let matches = defaults
            .iter()
            .any(|&(op, fi, d)| self.model.ty(op.fields[fi].ty).enum_name(d) == Some(star.0));
        if !matches {
            let (op, fi, d) = defaults[0];
            let f = &op.fields[fi];
            let dname = self
                .model
                .ty(f.ty)
                .enum_name(d)
                .map_or_else(|| format!("{d:#x}"), str::to_string);
            diags.push(
                Diagnostic::warning(Lint::Syntax,
                    star_span,
                    format!(
                        "`__Syntax` of `{owner}` marks `.{}` as the default of `.{name}`, but the encoding's default is `{dname}`",
                        star.0
                    ),
                )
                .with_secondary(f.span, format!("default `{dname}` declared here")),
            );
        }
    }

    /// Values of `types` (`.NAME`) that a value list does not mention.
    fn unlisted(&self, types: &[TypeId], items: &[(&str, usize, usize, bool)]) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for &t in types {
            for v in self.model.ty(t).enum_values().unwrap_or(&[]) {
                let listed = items.iter().any(|it| it.0 == v.name);
                let text = format!("`.{}`", v.name);
                if !listed && !out.contains(&text) {
                    out.push(text);
                }
            }
        }
        out
    }
}
