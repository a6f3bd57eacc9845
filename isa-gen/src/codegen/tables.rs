//! The engines' tables as a `static` of the generated crate: the rows the interpreting
//! tier builds at run time ([`crate::asm::Assembler::tables`], one builder), written
//! out as Rust so that the generated code's printer is `isa_rt::print`'s, reading the
//! same rows. Written as text, one row per line, after the rendered tokens: tables are
//! data, and the renderer's one-field-per-line layout would make a spec's rows
//! hundreds of thousands of lines.

use std::fmt::Write;

use isa_rt::expr::{BinOp, Op};
use isa_rt::table::{
    Addr, At, Count, FieldRow, Guard, Name, OpcodeRow, OperandKind, OperandRow, Piece, Run, Str,
    SubRole, SubRow, Tables, TypeKind, TypeRow,
};

/// The item `pub static TABLES: ::isa_rt::table::Tables<'static> = …;` holding `t`.
pub(super) fn tables_static(t: &Tables) -> String {
    let mut s = String::with_capacity(64 * (t.fields.len() + t.pieces.len() + t.names.len()));
    s.push_str(
        "/// The engines' tables of this spec (`isa_rt::table`): what the printer reads.\n\
         #[doc(hidden)]\n\
         pub static TABLES: ::isa_rt::table::Tables<'static> = {\n\
         use ::isa_rt::table as t;\n",
    );
    if !t.exprs.is_empty() {
        s.push_str("use ::isa_rt::expr as e;\n");
    }
    s.push_str("t::Tables {\n");
    let _ = writeln!(s, "text: {:?},", t.text);
    list(&mut s, "opcodes", t.opcodes, opcode);
    list(&mut s, "fields", t.fields, field);
    list(&mut s, "types", t.types, ty);
    list(&mut s, "names", t.names, name);
    list(&mut s, "named", t.named, |s, &(code, n)| {
        let _ = write!(s, "({code:#x}, ");
        str(s, n);
        s.push(')');
    });
    list(&mut s, "operands", t.operands, operand);
    list(&mut s, "subs", t.subs, sub);
    list(&mut s, "indices", t.indices, |s, i| {
        let _ = write!(s, "{i}");
    });
    list(&mut s, "exprs", t.exprs, op);
    list(&mut s, "plans", t.plans, |s, &r| run(s, r));
    list(&mut s, "pieces", t.pieces, piece);
    s.push_str("}\n};\n");
    s
}

/// `name: &[row, …],`, one row a line.
fn list<T>(s: &mut String, name: &str, rows: &[T], row: impl Fn(&mut String, &T)) {
    let _ = writeln!(s, "{name}: &[");
    for r in rows {
        row(s, r);
        s.push_str(",\n");
    }
    s.push_str("],\n");
}

fn str(s: &mut String, r: Str) {
    let _ = write!(s, "t::Str {{ at: {}, len: {} }}", r.at, r.len);
}

fn run(s: &mut String, r: Run) {
    let _ = write!(s, "t::Run {{ at: {}, len: {} }}", r.at, r.len);
}

fn at(s: &mut String, a: At) {
    let _ = write!(s, "t::At {{ start: {}, mask: {:#x} }}", a.start, a.mask);
}

/// `Some(v)` or `None`, `v` written by `f`.
fn option<T: Copy>(s: &mut String, v: Option<T>, f: impl Fn(&mut String, T)) {
    match v {
        Some(v) => {
            s.push_str("Some(");
            f(s, v);
            s.push(')');
        }
        None => s.push_str("None"),
    }
}

fn hex(s: &mut String, v: u128) {
    let _ = write!(s, "{v:#x}");
}

fn opcode(s: &mut String, r: &OpcodeRow) {
    s.push_str("t::OpcodeRow { mnemonic: ");
    str(s, r.mnemonic);
    s.push_str(", fields: ");
    run(s, r.fields);
    s.push_str(", guard: ");
    option(s, r.guard, |s, g: Guard| {
        let _ = write!(s, "t::Guard {{ field: {}, not: ", g.field);
        option(s, g.not, |s, (f, set)| {
            let _ = write!(s, "({f}, {set:#x})");
        });
        s.push_str(" }");
    });
    s.push_str(", mods: ");
    run(s, r.mods);
    s.push_str(", operands: ");
    run(s, r.operands);
    let _ = write!(s, ", optional: {} }}", r.optional);
}

fn field(s: &mut String, r: &FieldRow) {
    s.push_str("t::FieldRow { at: ");
    at(s, r.at);
    let _ = write!(s, ", ty: {}, default: ", r.ty);
    option(s, r.default, hex);
    s.push_str(", names: ");
    run(s, r.names);
    s.push_str(" }");
}

fn ty(s: &mut String, r: &TypeRow) {
    s.push_str("t::TypeRow { kind: ");
    match r.kind {
        TypeKind::Reg { prefix, lo, hi } => {
            s.push_str("t::TypeKind::Reg { prefix: ");
            str(s, prefix);
            let _ = write!(s, ", lo: {lo:#x}, hi: {hi:#x} }}");
        }
        TypeKind::Enum => s.push_str("t::TypeKind::Enum"),
        TypeKind::Imm { signed, width } => {
            let _ = write!(s, "t::TypeKind::Imm {{ signed: {signed}, width: {width} }}");
        }
        TypeKind::CMem {
            offset_bits,
            signed,
        } => {
            let _ = write!(
                s,
                "t::TypeKind::CMem {{ offset_bits: {offset_bits}, signed: {signed} }}"
            );
        }
    }
    s.push_str(", dense: ");
    run(s, r.dense);
    s.push_str(", named: ");
    run(s, r.named);
    s.push_str(" }");
}

fn name(s: &mut String, n: &Name) {
    // The whole head as a byte-string literal (`\0` for the padding): a literal costs
    // the compiler nothing to evaluate, where a `const fn` call per name made a large
    // spec's static run into rustc's limit on one constant evaluation.
    s.push_str("t::Name { head: *b\"");
    for &b in &n.head {
        if b == 0 {
            s.push_str("\\0");
        } else {
            let _ = write!(s, "{}", [b].escape_ascii());
        }
    }
    s.push_str("\", str: ");
    str(s, n.str);
    s.push_str(" }");
}

fn operand(s: &mut String, r: &OperandRow) {
    s.push_str("t::OperandRow { kind: ");
    match r.kind {
        OperandKind::Field(f) => {
            let _ = write!(s, "t::OperandKind::Field({f})");
        }
        OperandKind::CMemIndexed { mem, reg } => {
            let _ = write!(
                s,
                "t::OperandKind::CMemIndexed {{ mem: {mem}, reg: {reg} }}"
            );
        }
        OperandKind::RegIndexed {
            prefix,
            reg,
            offset,
        } => {
            s.push_str("t::OperandKind::RegIndexed { prefix: ");
            str(s, prefix);
            let _ = write!(s, ", reg: {reg}, offset: {offset} }}");
        }
        OperandKind::Word(w) => {
            s.push_str("t::OperandKind::Word(");
            str(s, w);
            s.push(')');
        }
    }
    s.push_str(", subs: ");
    run(s, r.subs);
    s.push_str(", count: ");
    match r.count {
        Count::Fixed(n) => {
            let _ = write!(s, "t::Count::Fixed({n})");
        }
        Count::Bits(r) => {
            s.push_str("t::Count::Bits(");
            run(s, r);
            s.push(')');
        }
        Count::Lookup { field, counts } => {
            let _ = write!(s, "t::Count::Lookup {{ field: {field}, counts: ");
            run(s, counts);
            s.push_str(" }");
        }
    }
    s.push_str(", addr: ");
    match r.addr {
        Addr::None => s.push_str("t::Addr::None"),
        Addr::Relative(k) => {
            let _ = write!(s, "t::Addr::Relative({k})");
        }
        Addr::Absolute(k) => {
            let _ = write!(s, "t::Addr::Absolute({k})");
        }
        Addr::Number(k) => {
            let _ = write!(s, "t::Addr::Number({k})");
        }
        Addr::Select { field, code, shift } => {
            let _ = write!(
                s,
                "t::Addr::Select {{ field: {field}, code: {code:#x}, shift: {shift} }}"
            );
        }
    }
    let _ = write!(s, ", required_after: {}, readers: ", r.required_after);
    run(s, r.readers);
    s.push_str(" }");
}

fn sub(s: &mut String, r: &SubRow) {
    let _ = write!(s, "t::SubRow {{ field: {}, role: ", r.field);
    match r.role {
        SubRole::Not => s.push_str("t::SubRole::Not"),
        SubRole::Neg { ext } => {
            s.push_str("t::SubRole::Neg { ext: ");
            option(s, ext, |s, (f, x)| {
                let _ = write!(s, "({f}, {x:#x})");
            });
            s.push_str(" }");
        }
        SubRole::BitNot => s.push_str("t::SubRole::BitNot"),
        SubRole::Suffix => s.push_str("t::SubRole::Suffix"),
    }
    let _ = write!(s, ", set: {:#x} }}", r.set);
}

fn op(s: &mut String, o: &Op) {
    op_in(s, o, "e");
}

/// Step `o` of an expression, the module `isa_rt::expr` named `e`.
pub(super) fn op_in(s: &mut String, o: &Op, e: &str) {
    match *o {
        // `i128::MIN` has no literal (its magnitude overflows `i128`): its path.
        Op::Int(i128::MIN) => {
            let _ = write!(s, "{e}::Op::Int(i128::MIN)");
        }
        Op::Int(v) => {
            let _ = write!(s, "{e}::Op::Int({v})");
        }
        Op::Field(f) => {
            let _ = write!(s, "{e}::Op::Field({f})");
        }
        Op::Not => {
            let _ = write!(s, "{e}::Op::Not");
        }
        Op::Neg => {
            let _ = write!(s, "{e}::Op::Neg");
        }
        Op::Bin(b) => {
            let b = match b {
                BinOp::Or => "Or",
                BinOp::And => "And",
                BinOp::Eq => "Eq",
                BinOp::Ne => "Ne",
                BinOp::Lt => "Lt",
                BinOp::Le => "Le",
                BinOp::Gt => "Gt",
                BinOp::Ge => "Ge",
                BinOp::Add => "Add",
                BinOp::Sub => "Sub",
                BinOp::Mul => "Mul",
            };
            let _ = write!(s, "{e}::Op::Bin({e}::BinOp::{b})");
        }
    }
}

/// `Some(at, default)`-style fields shared by the named pieces.
fn named_piece(s: &mut String, kind: &str, a: At, default: Option<u128>, f: u16, names: Run) {
    let _ = write!(s, "t::Piece::{kind} {{ at: ");
    at(s, a);
    s.push_str(", default: ");
    option(s, default, hex);
    let _ = write!(s, ", field: {f}, names: ");
    run(s, names);
    s.push_str(" }");
}

fn piece(s: &mut String, p: &Piece) {
    match *p {
        Piece::Guard {
            at: a,
            default,
            not,
            field,
            names,
        } => {
            s.push_str("t::Piece::Guard { at: ");
            at(s, a);
            s.push_str(", default: ");
            option(s, default, hex);
            s.push_str(", not: ");
            option(s, not, |s, (a, set)| {
                s.push('(');
                at(s, a);
                let _ = write!(s, ", {set:#x})");
            });
            let _ = write!(s, ", field: {field}, names: ");
            run(s, names);
            s.push_str(" }");
        }
        Piece::Text(t) => {
            s.push_str("t::Piece::Text(");
            str(s, t);
            s.push(')');
        }
        Piece::Mod {
            at,
            default,
            field,
            names,
        } => named_piece(s, "Mod", at, default, field, names),
        Piece::Suffix {
            at,
            default,
            field,
            names,
        } => named_piece(s, "Suffix", at, default, field, names),
        Piece::Sep { optional, len } => {
            let _ = write!(s, "t::Piece::Sep {{ optional: {optional}, len: {len} }}");
        }
        Piece::Prefix { at: a, set, symbol } => {
            s.push_str("t::Piece::Prefix { at: ");
            at(s, a);
            let _ = write!(s, ", set: {set:#x}, symbol: {symbol} }}");
        }
        Piece::NegExt { at: a, set, ext, x } => {
            s.push_str("t::Piece::NegExt { at: ");
            at(s, a);
            let _ = write!(s, ", set: {set:#x}, ext: ");
            at(s, ext);
            let _ = write!(s, ", x: {x:#x} }}");
        }
        Piece::Name {
            at: a,
            field,
            names,
        } => {
            s.push_str("t::Piece::Name { at: ");
            at(s, a);
            let _ = write!(s, ", field: {field}, names: ");
            run(s, names);
            s.push_str(" }");
        }
        Piece::Number { at: a, signed } => {
            s.push_str("t::Piece::Number { at: ");
            at(s, a);
            let _ = write!(s, ", signed: {signed} }}");
        }
        Piece::Operand { operand } => {
            let _ = write!(s, "t::Piece::Operand {{ operand: {operand} }}");
        }
    }
}
