//! Our annotations of the authors' definitions: `__DefRegisters` (an enumeration whose
//! values name registers) and `__DefFlow` (control flow and address operands). They run
//! after the opcodes are resolved, since a `__DefFlow` on a group or optype applies to
//! every opcode below it and names fields that each of those opcodes must have.

use std::collections::{HashMap, HashSet};

use super::flow::{Address, Flow, FlowKind};
use super::{DefId, Model, Opcode, OperandKind, Role, TypeId};
use crate::diag::{Diagnostic, Diagnostics, Lint};
use crate::source::Span;
use crate::syntax::ast::{self, FlowItem, Item, SpecFile};

pub(super) fn run(
    model: &mut Model,
    files: &[SpecFile],
    defs: &HashMap<String, DefId>,
    types: &HashMap<String, TypeId>,
    diags: &mut Diagnostics,
) {
    registers(model, files, types, diags);
    enum_access(model, diags);
    flows(model, files, defs, diags);
}

fn registers(
    model: &mut Model,
    files: &[SpecFile],
    types: &HashMap<String, TypeId>,
    diags: &mut Diagnostics,
) {
    let mut seen: HashMap<TypeId, Span> = HashMap::new();
    for item in files.iter().flat_map(|f| &f.items) {
        let Item::Registers(r) = item else { continue };
        let Some(&ty) = types.get(&r.ty.name) else {
            let mut d = Diagnostic::error(r.ty.span, format!("unknown type `{}`", r.ty.name));
            if let Some(s) =
                crate::suggest::nearest(&r.ty.name, model.types.iter().map(|t| t.name.as_str()))
            {
                d = d.did_you_mean(r.ty.span, s);
            }
            diags.push(d);
            continue;
        };
        let t = model.ty(ty);
        if t.enum_values().is_none() {
            diags.push(
                Diagnostic::error(
                    r.ty.span,
                    format!("`{}` is a {}, not an enumeration", t.name, t.kind_noun()),
                )
                .with_note("`__DefRegisters` declares that the values of an enumeration name registers; register files are registers already"),
            );
            continue;
        }
        if let Some(&first) = seen.get(&ty) {
            diags.push(
                Diagnostic::error(
                    r.ty.span,
                    format!("`{}` is declared registers twice", r.ty.name),
                )
                .with_secondary(first, "first declared here"),
            );
            continue;
        }
        seen.insert(ty, r.ty.span);
        model.reg_enums.push(ty);
    }
}

/// An enumeration read or written (in `InList`/`OutList`) but not declared registers:
/// its values are not tracked as registers, which is likely not what the author meant.
fn enum_access(model: &Model, diags: &mut Diagnostics) {
    let mut reported = HashSet::new();
    for op in &model.opcodes {
        for r in op.in_list.iter().chain(&op.out_list) {
            let super::ListRef::Field(f) = *r else {
                continue;
            };
            let field = &op.fields[f];
            let t = model.ty(field.ty);
            if t.enum_values().is_none()
                || model.is_register_type(field.ty)
                || !reported.insert(field.ty)
            {
                continue;
            }
            diags.push(
                Diagnostic::warning(
                    Lint::EnumAccess,
                    field.span,
                    format!(
                        "`{}` of enumeration `{}` is read or written, but `{}` does not name registers",
                        field.name, t.name, t.name
                    ),
                )
                .with_secondary(t.span, "the enumeration")
                .with_note(format!(
                    "add `__DefRegisters {}` if its values are registers, so access lists, liveness and allocation see them",
                    t.name
                )),
            );
        }
    }
}

/// A `__DefFlow` after its header resolved.
struct Annotation<'a> {
    def: DefId,
    kind: FlowKind,
    ast: &'a ast::FlowDef,
    /// Items already reported as wrong for some opcode: reported once.
    reported: HashSet<usize>,
}

fn flows(
    model: &mut Model,
    files: &[SpecFile],
    defs: &HashMap<String, DefId>,
    diags: &mut Diagnostics,
) {
    let mut by_def: HashMap<DefId, Annotation> = HashMap::new();
    for item in files.iter().flat_map(|f| &f.items) {
        let Item::Flow(fd) = item else { continue };
        let Some(&def) = defs.get(&fd.def.name) else {
            let mut d = Diagnostic::error(
                fd.def.span,
                format!("unknown group, optype or opcode `{}`", fd.def.name),
            );
            if let Some(s) =
                crate::suggest::nearest(&fd.def.name, model.defs.iter().map(|d| d.name.as_str()))
            {
                d = d.did_you_mean(fd.def.span, s);
            }
            diags.push(d);
            continue;
        };
        let Some(kind) = FlowKind::from_name(&fd.kind.name) else {
            let names: Vec<&str> = FlowKind::ALL.iter().map(|k| k.name()).collect();
            let mut d = Diagnostic::error(
                fd.kind.span,
                format!("unknown flow kind `{}`", fd.kind.name),
            )
            .with_note(format!("the kinds are {}", names.join(", ")));
            if let Some(s) = crate::suggest::nearest(&fd.kind.name, names) {
                d = d.did_you_mean(fd.kind.span, s);
            }
            diags.push(d);
            continue;
        };
        if let Some(prev) = by_def.get(&def) {
            diags.push(
                Diagnostic::error(
                    fd.def.span,
                    format!("`{}` has a second `__DefFlow`", fd.def.name),
                )
                .with_secondary(prev.ast.def.span, "the first one"),
            );
            continue;
        }
        by_def.insert(
            def,
            Annotation {
                def,
                kind,
                ast: fd,
                reported: HashSet::new(),
            },
        );
    }
    for i in 0..model.opcodes.len() {
        let op = &model.opcodes[i];
        // The nearest definition with a `__DefFlow`: the opcode, then its ancestors.
        let Some(def) = std::iter::once(op.def)
            .chain(op.ancestors.iter().copied())
            .find(|d| by_def.contains_key(d))
        else {
            continue;
        };
        let a = by_def.get_mut(&def).expect("found above");
        let flow = resolve_flow(model, op, a, diags);
        model.opcodes[i].flow = flow;
    }
}

/// The flow of one opcode under annotation `a`. Problems are reported at the item,
/// naming the opcode, once per item.
fn resolve_flow(model: &Model, op: &Opcode, a: &mut Annotation, diags: &mut Diagnostics) -> Flow {
    let mut flow = Flow {
        kind: a.kind,
        span: Some(a.ast.span),
        ..Flow::default()
    };
    let under = if a.def == op.def {
        String::new()
    } else {
        format!(" (`{}` is under `{}`)", op.name, model.def(a.def).name)
    };
    let mut report = |k: usize, span: Span, msg: String, diags: &mut Diagnostics| {
        if a.reported.insert(k) {
            diags.push(Diagnostic::error(span, format!("{msg}{under}")));
        }
    };
    let field = |id: &ast::Ident| op.fields.iter().position(|f| f.name == id.name);
    let header = usize::MAX;
    let mut target = None;
    for (k, item) in a.ast.items.iter().enumerate() {
        match item {
            FlowItem::Target(id) => match field(id) {
                Some(f) if op.address(f).is_some() => target = Some((f, id.span)),
                Some(_) => report(
                    k,
                    id.span,
                    format!(
                        "`{}` of `{}` is not an address operand (a field with `AsmFormat<{}> = CvtIShift(…)`)",
                        id.name, op.name, id.name
                    ),
                    diags,
                ),
                None => report(k, id.span, format!("`{}` has no field `{}`", op.name, id.name), diags),
            },
            FlowItem::Condition(ids) => {
                for id in ids {
                    match field(id) {
                        Some(f) if op.fields[f].default.is_some() && !op.fields[f].is_fixed() => {
                            flow.conditions.push(f)
                        }
                        Some(_) => report(
                            k,
                            id.span,
                            format!(
                                "condition `{}` of `{}` has no default (its default is the value under which the flow is unconditional)",
                                id.name, op.name
                            ),
                            diags,
                        ),
                        None => report(k, id.span, format!("`{}` has no field `{}`", op.name, id.name), diags),
                    }
                }
            }
            FlowItem::Absolute(id, _) | FlowItem::Immediate(id) => {
                let mode = match item {
                    FlowItem::Absolute(_, None) => Address::Absolute,
                    FlowItem::Absolute(_, Some((g, v))) => {
                        // `when G == V`: G an enumeration field of the opcode, V a value of it.
                        let Some(gf) = field(g) else {
                            report(k, g.span, format!("`{}` has no field `{}`", op.name, g.name), diags);
                            continue;
                        };
                        let code = model
                            .ty(op.fields[gf].ty)
                            .enum_values()
                            .and_then(|vs| vs.iter().find(|x| x.name == v.text))
                            .map(|x| x.code);
                        let Some(code) = code else {
                            report(
                                k,
                                v.span,
                                format!(
                                    "`{}` is not a value of `{}`, the type of `{}`",
                                    v.text,
                                    model.ty(op.fields[gf].ty).name,
                                    g.name
                                ),
                                diags,
                            );
                            continue;
                        };
                        Address::Select { field: gf, code }
                    }
                    _ => Address::Number,
                };
                match field(id) {
                    Some(f) if op.address(f).is_some() => {
                        if let Some((_, prev)) = flow.addresses.iter().find(|(x, _)| *x == f) {
                            if *prev != mode {
                                report(
                                    k,
                                    id.span,
                                    format!("`{}` is given two address modes", id.name),
                                    diags,
                                );
                            }
                        } else {
                            flow.addresses.push((f, mode));
                        }
                    }
                    Some(_) => report(
                        k,
                        id.span,
                        format!(
                            "`{}` of `{}` has no `CvtIShift` format, so it is no address to begin with",
                            id.name, op.name
                        ),
                        diags,
                    ),
                    None => report(k, id.span, format!("`{}` has no field `{}`", op.name, id.name), diags),
                }
            }
        }
    }
    // The target: named, or the one address operand of a kind that needs one.
    let addresses: Vec<usize> = (0..op.fields.len())
        .filter(|&f| op.fields[f].role == Role::Operand)
        .filter(|&f| flow_address(op, &flow, f).is_some_and(Address::is_address))
        .collect();
    match target {
        Some((f, span)) => {
            if flow_address(op, &flow, f) == Some(Address::Number) {
                report(
                    header,
                    span,
                    format!("target `{}` of `{}` is declared `immediate`", op.fields[f].name, op.name),
                    diags,
                );
            } else if !a.kind.has_target() {
                report(
                    header,
                    span,
                    format!(
                        "a `{}` flow has no static target: only `branch`, `call` and `converge` name one",
                        a.kind.name()
                    ),
                    diags,
                );
            } else {
                flow.target = Some(f);
            }
        }
        None if a.kind.has_target() => match addresses.as_slice() {
            [one] => flow.target = Some(*one),
            _ => report(
                header,
                a.ast.kind.span,
                format!(
                    "a `{}` flow goes to its target operand, and `{}` has {} address operands: name it with `target FIELD;`",
                    a.kind.name(),
                    op.name,
                    addresses.len()
                ),
                diags,
            ),
        },
        None => {}
    }
    flow.direct = direct(model, op, &flow, &addresses);
    flow
}

/// For an indirect kind whose only address operand is added to registers (`CALL.REL
/// Ra, offset`): those register fields and the operand. Every other operand of `Order`
/// must be the guard or a condition, and each register field's file must have a
/// register that reads 0; otherwise (a constant-memory table, say) there is none.
fn direct(
    model: &Model,
    op: &Opcode,
    flow: &Flow,
    addresses: &[usize],
) -> Option<(Vec<usize>, usize)> {
    if !matches!(
        flow.kind,
        FlowKind::IndirectBranch | FlowKind::IndirectCall | FlowKind::Return
    ) {
        return None;
    }
    let [target] = addresses else {
        return None;
    };
    let guard = op.guard(model);
    let mut regs = Vec::new();
    for o in &op.order {
        let OperandKind::Field(f) = o.kind else {
            return None;
        };
        if f == *target || Some(f) == guard || flow.conditions.contains(&f) {
            continue;
        }
        let zero = model
            .ty(op.fields[f].ty)
            .reg_file()
            .is_some_and(|r| r.reads.iter().any(|&(_, v)| v == 0));
        if !zero {
            return None;
        }
        regs.push(f);
    }
    (!regs.is_empty()).then_some((regs, *target))
}

/// The address mode of field `f` under a flow being built.
fn flow_address(op: &Opcode, flow: &Flow, f: usize) -> Option<Address> {
    op.address(f)?;
    Some(
        flow.addresses
            .iter()
            .find(|(x, _)| *x == f)
            .map_or(Address::Relative, |&(_, a)| a),
    )
}
