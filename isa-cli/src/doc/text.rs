//! The model as text, shared by `isa doc`, `isa json`, `isa diff` and the language
//! server's hovers: values in the spec's own spelling, bit ranges, expressions written
//! back in the DSL, bit widths per case, operand and role names, and a syntax template
//! per opcode.

use isa_gen::model::{
    CExpr, Field, ListRef, Model, Opcode, Operand, OperandKind, Role, Type, TypeKind,
};
use isa_gen::syntax::ast::BinOp;

/// A field code in the spec's own terms: an enumeration value name, a register name,
/// a number (hex; signed immediates with a sign), or `c[bank][offset]`.
pub fn value_text(t: &Type, code: u128) -> String {
    match &t.kind {
        TypeKind::Enum(_) => t
            .enum_name(code)
            .map(str::to_string)
            .unwrap_or_else(|| format!("{code:#x} (undefined)")),
        TypeKind::RegFile(r) => r.name_of(code).unwrap_or_else(|| format!("{code:#x}")),
        TypeKind::Immediate { signed } => {
            if *signed && t.width > 0 && t.width < 128 && code >> (t.width - 1) & 1 == 1 {
                let v = code as i128 - (1i128 << t.width);
                format!("-{:#x}", v.unsigned_abs())
            } else {
                format!("{code:#x}")
            }
        }
        TypeKind::ConstMem { .. } => match t.cmem_parts(code) {
            Some((bank, off)) if off < 0 => format!("c[{bank:#x}][-{:#x}]", off.unsigned_abs()),
            Some((bank, off)) => format!("c[{bank:#x}][{off:#x}]"),
            None => format!("{code:#x}"),
        },
    }
}

/// `fixed`, `operand`, `modifier` or `subfield`.
pub fn role_name(role: Role) -> &'static str {
    match role {
        Role::Fixed(_) => "fixed",
        Role::Operand => "operand",
        Role::Modifier => "modifier",
        Role::SubField(_) => "subfield",
    }
}

/// `enum`, `regfile`, `immediate` or `constmem`.
pub fn type_kind_name(t: &Type) -> &'static str {
    match t.kind {
        TypeKind::Enum(_) => "enum",
        TypeKind::RegFile(_) => "regfile",
        TypeKind::Immediate { .. } => "immediate",
        TypeKind::ConstMem { .. } => "constmem",
    }
}

/// `23:16`, or `5` for one bit (as manuals and the HTML reference write bits).
pub fn bits(start: u32, width: u32) -> String {
    if width <= 1 {
        format!("{start}")
    } else {
        format!("{}:{start}", start + width - 1)
    }
}

fn prec(e: &CExpr) -> u8 {
    match e {
        CExpr::Bin(o, ..) => match o {
            BinOp::Or => 1,
            BinOp::And => 2,
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => 3,
            BinOp::Add | BinOp::Sub => 4,
            BinOp::Mul => 5,
        },
        _ => 6,
    }
}

/// An expression written back in the DSL, with field and value names
/// (`32 + (dtype == "U64") * 32`). Parentheses only where precedence needs them.
pub fn expr_text(model: &Model, op: &Opcode, e: &CExpr) -> String {
    match e {
        CExpr::Int(v) => v.to_string(),
        CExpr::Field(f) => op.fields[*f].name.clone(),
        CExpr::Value(t, c) => match model.ty(*t).enum_name(*c) {
            Some(n) => format!("\"{n}\""),
            None => format!("{c:#x}"),
        },
        CExpr::Not(a) => format!("not ({})", expr_text(model, op, a)),
        CExpr::Neg(a) => format!("-({})", expr_text(model, op, a)),
        CExpr::Bin(o, a, b) => {
            let p = prec(e);
            let wrap = |x: &CExpr, right: bool| {
                let px = prec(x);
                if px < p || (right && px == p) {
                    format!("({})", expr_text(model, op, x))
                } else {
                    expr_text(model, op, x)
                }
            };
            format!("{} {} {}", wrap(a, false), o.symbol(), wrap(b, true))
        }
    }
}

/// One case of a bit width: the enumeration values it holds for, and the width.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WidthCase {
    /// (field index, value name); empty for a constant width.
    pub when: Vec<(usize, String)>,
    pub width: i128,
}

/// Most combinations [`width_cases`] enumerates.
const MAX_CASES: usize = 256;

/// The values of `e` for every combination of the enumeration fields it reads, or None
/// when it reads a non-enumeration field (a number is not enumerable) or the
/// combinations are too many. A constant gives one case with no condition.
pub fn width_cases(model: &Model, op: &Opcode, e: &CExpr) -> Option<Vec<WidthCase>> {
    let mut fields = Vec::new();
    e.fields(&mut fields);
    let mut domains: Vec<Vec<(u128, String)>> = Vec::new();
    for &f in &fields {
        let vs = model.ty(op.fields[f].ty).enum_values()?;
        domains.push(vs.iter().map(|v| (v.code, v.name.clone())).collect());
    }
    let total = domains
        .iter()
        .try_fold(1usize, |n, d| n.checked_mul(d.len()))?;
    if total == 0 || total > MAX_CASES {
        return None;
    }
    let mut out = Vec::with_capacity(total);
    for k in 0..total {
        let mut rest = k;
        let mut pick = Vec::with_capacity(fields.len());
        for d in &domains {
            pick.push(&d[rest % d.len()]);
            rest /= d.len();
        }
        let width = e.eval(&|f| fields.iter().position(|&x| x == f).map_or(0, |i| pick[i].0));
        out.push(WidthCase {
            when: fields
                .iter()
                .zip(&pick)
                .map(|(&f, (_, n))| (f, n.clone()))
                .collect(),
            width,
        });
    }
    Some(out)
}

/// A bit width for people: `32`, or `64 if dtype = U64; 32 if dtype = U32`, or the
/// expression itself when it cannot be enumerated.
pub fn width_summary(model: &Model, op: &Opcode, e: &CExpr) -> String {
    let Some(cases) = width_cases(model, op, e) else {
        return expr_text(model, op, e);
    };
    if cases.iter().all(|c| c.width == cases[0].width) {
        return cases[0].width.to_string();
    }
    // Group by width, in order of first appearance; the largest group is "otherwise".
    let mut groups: Vec<(i128, Vec<&WidthCase>)> = Vec::new();
    for c in &cases {
        match groups.iter_mut().find(|(w, _)| *w == c.width) {
            Some((_, cs)) => cs.push(c),
            None => groups.push((c.width, vec![c])),
        }
    }
    let largest = groups
        .iter()
        .enumerate()
        .max_by_key(|(k, (_, cs))| (cs.len(), std::cmp::Reverse(*k)))
        .map_or(0, |(k, _)| k);
    let mut parts: Vec<String> = groups
        .iter()
        .enumerate()
        .filter(|(k, _)| *k != largest)
        .map(|(_, (w, cs))| format!("{w} if {}", cases_text(op, cs)))
        .collect();
    parts.push(format!("{} otherwise", groups[largest].0));
    parts.join("; ")
}

/// `dtype = U64`, `dtype ∈ {U8, S8}`, or combinations joined with `or`.
fn cases_text(op: &Opcode, cs: &[&WidthCase]) -> String {
    if cs.iter().all(|c| c.when.len() == 1) {
        let f = cs[0].when[0].0;
        if cs.iter().all(|c| c.when[0].0 == f) {
            let name = &op.fields[f].name;
            return if cs.len() == 1 {
                format!("{name} = {}", cs[0].when[0].1)
            } else {
                let vs: Vec<&str> = cs.iter().map(|c| c.when[0].1.as_str()).collect();
                format!("{name} ∈ {{{}}}", vs.join(", "))
            };
        }
    }
    cs.iter()
        .map(|c| {
            c.when
                .iter()
                .map(|(f, v)| format!("{} = {v}", op.fields[*f].name))
                .collect::<Vec<_>>()
                .join(", ")
        })
        .collect::<Vec<_>>()
        .join(" or ")
}

/// An operand as the spec writes it in `Order` (`rd`, `C[vb, ura]`, `UR[urb, uridx]`,
/// `UPR`).
pub fn operand_text(model: &Model, op: &Opcode, o: &Operand) -> String {
    match o.kind {
        OperandKind::Field(f) => op.fields[f].name.clone(),
        OperandKind::CMemIndexed { mem, reg } => {
            format!("C[{}, {}]", op.fields[mem].name, op.fields[reg].name)
        }
        OperandKind::RegIndexed { file, reg, offset } => format!(
            "{}[{}, {}]",
            model
                .ty(file)
                .reg_file()
                .map_or(model.ty(file).name.as_str(), |r| r.prefix.as_str()),
            op.fields[reg].name,
            op.fields[offset].name
        ),
        OperandKind::Word(w) => model.words[w.0].name.clone(),
    }
}

/// The fields an operand consists of (none for a fixed word).
pub fn operand_fields(o: &Operand) -> Vec<usize> {
    match o.kind {
        OperandKind::Field(f) => vec![f],
        OperandKind::CMemIndexed { mem, reg } => vec![mem, reg],
        OperandKind::RegIndexed { reg, offset, .. } => vec![reg, offset],
        OperandKind::Word(_) => vec![],
    }
}

fn list_has(list: &[ListRef], o: &Operand) -> bool {
    list.iter().any(|l| match (*l, o.kind) {
        (ListRef::Word(a), OperandKind::Word(b)) => a == b,
        (ListRef::Field(f), _) => operand_fields(o).contains(&f),
        (
            ListRef::Indexed { reg, offset, .. },
            OperandKind::RegIndexed {
                reg: r, offset: x, ..
            },
        ) => reg == r && offset == x,
        _ => false,
    })
}

/// Whether the operand (any of its fields, or the word) is in `InList` / `OutList`.
pub fn operand_in_out(op: &Opcode, o: &Operand) -> (bool, bool) {
    (list_has(&op.in_list, o), list_has(&op.out_list, o))
}

/// A name in `InList`/`OutList`.
pub fn list_ref_text(model: &Model, op: &Opcode, l: &ListRef) -> String {
    match *l {
        ListRef::Field(f) => op.fields[f].name.clone(),
        ListRef::Word(w) => model.words[w.0].name.clone(),
        ListRef::Indexed { file, reg, offset } => format!(
            "{}[{}, {}]",
            model.ty(file).reg_file().map_or("", |r| r.prefix.as_str()),
            op.fields[reg].name,
            op.fields[offset].name
        ),
    }
}

/// Whether an operand may be left out in assembly (all its fields have defaults).
pub fn operand_optional(op: &Opcode, o: &Operand) -> bool {
    let fs = operand_fields(o);
    !fs.is_empty() && fs.iter().all(|&f| op.fields[f].default.is_some())
}

/// How a sub-field is written: a prefix (`!`, `-`, `~`) or a `.VALUE` suffix.
pub fn sub_field_marker(op: &Opcode, f: &Field) -> String {
    match f.sub_name() {
        Some("not") => "!".into(),
        Some("neg") => {
            let negx = op.asm_formats.iter().any(|a| {
                matches!(a, isa_gen::model::AsmFormat::INegX { neg, .. }
                    if op.fields[*neg].name == f.name)
            });
            if negx {
                "-/~".into()
            } else {
                "-".into()
            }
        }
        Some("bitnot") => "~".into(),
        Some(s) => format!(".{s}"),
        None => String::new(),
    }
}

/// The assembly form of an opcode, from the model: the guard prefix, the mnemonic with
/// its modifiers (in printing order), and the operands with their sub-field markers.
/// Optional parts are in `{…}`: `{@{!}pg} SHFL.mode pu, rd, ra, rb, rc`.
pub fn syntax_template(
    model: &Model,
    asm: &isa_gen::asm::Assembler,
    index: usize,
    mnemonic: &str,
) -> String {
    let op = &model.opcodes[index];
    let guard = op.guard(model);
    let mut s = String::new();
    if let Some(g) = guard {
        let neg = op
            .sub_fields(g)
            .any(|k| op.fields[k].sub_name() == Some("not"));
        s.push_str(&format!(
            "{{@{}{}}} ",
            if neg { "{!}" } else { "" },
            op.fields[g].name
        ));
    }
    s.push_str(mnemonic);
    // Modifiers in field order (the printing order is the assembler's business; the
    // __Syntax section shows the authors' order).
    for f in op.fields.iter().filter(|f| f.role == Role::Modifier) {
        if f.default.is_some() {
            s.push_str(&format!("{{.{}}}", f.name));
        } else {
            s.push_str(&format!(".{}", f.name));
        }
    }
    let ops: Vec<String> = asm
        .operands(index)
        .iter()
        .map(|o| {
            let mut t = String::new();
            let mut suffix = String::new();
            if let OperandKind::Field(f) = o.kind {
                for k in op.sub_fields(f) {
                    let m = sub_field_marker(op, &op.fields[k]);
                    if m.starts_with('.') {
                        suffix.push_str(&format!("{{{m}}}"));
                    } else {
                        t.push_str(&format!("{{{m}}}"));
                    }
                }
            }
            t.push_str(&operand_text(model, op, o));
            t.push_str(&suffix);
            if operand_optional(op, o) {
                format!("{{{t}}}")
            } else {
                t
            }
        })
        .collect();
    if !ops.is_empty() {
        s.push(' ');
        s.push_str(&ops.join(", "));
    }
    s
}
