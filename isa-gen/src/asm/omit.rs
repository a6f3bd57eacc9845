//! When may an operand at its default be left out? When the matcher would not read the
//! next printed operand as it. The printer decides with what [`may_read_as`] says (the
//! `readers` of the tables), a static property of two operands of one opcode, so that
//! parsing always gives the instruction back.

use crate::model::{Model, Opcode, Operand, OperandKind, TypeKind};

/// Could a token printed for operand `next` be read by the matcher as operand `k`?
/// Over-approximates what the matcher (`isa_rt::asm`) reads as `k`, so leaving `k` out
/// is always safe.
pub fn may_read_as(model: &Model, op: &Opcode, k: &Operand, next: &Operand) -> bool {
    let OperandKind::Field(kf) = k.kind else {
        // Only field operands have defaults, so only they are ever left out.
        return true;
    };
    let kt = model.ty(op.fields[kf].ty);
    let names_of = |o: &Operand| -> Option<Vec<String>> {
        // Every name an operand can print as, when it prints as a name.
        match o.kind {
            OperandKind::Field(f) => {
                let t = model.ty(op.fields[f].ty);
                match &t.kind {
                    TypeKind::RegFile(rf) => Some(
                        (rf.lo..=rf.hi)
                            .map(|n| format!("{}{}", rf.prefix, n))
                            .chain(rf.named.iter().map(|(n, _)| n.clone()))
                            .collect(),
                    ),
                    TypeKind::Enum(vs) => Some(vs.iter().map(|v| v.name.clone()).collect()),
                    _ => None,
                }
            }
            OperandKind::Word(w) => Some(vec![model.words[w.0].name.clone()]),
            _ => None,
        }
    };
    let shape = |o: &Operand| -> u8 {
        match o.kind {
            OperandKind::Field(f) => match model.ty(op.fields[f].ty).kind {
                TypeKind::Immediate { .. } => 1,
                TypeKind::ConstMem { .. } => 2,
                _ => 0,
            },
            OperandKind::CMemIndexed { .. } => 2,
            OperandKind::RegIndexed { .. } => 3,
            OperandKind::Word(_) => 0,
        }
    };
    match &kt.kind {
        TypeKind::Immediate { .. } => shape(next) == 1,
        TypeKind::ConstMem { .. } => shape(next) == 2,
        TypeKind::RegFile(rf) => match names_of(next) {
            Some(names) => names.iter().any(|n| rf.code_of(n).is_some()),
            // A register range `R[2:3]` of the same file also reads as a register.
            None => false,
        },
        TypeKind::Enum(_) => match names_of(next) {
            Some(names) => names.iter().any(|n| kt.enum_code(n).is_some()),
            None => false,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One opcode, `Order<rd, ra, rb, ia, ib, m, n, ur, ka, kb, p, W>`: registers,
    /// immediates, enums, constant memory and an operand word, each pair asked whether
    /// the second could be read as the first.
    #[test]
    fn what_a_printed_operand_could_be_read_as() {
        let text = "\
__DefBitFieldType Op<8>
    A = 1;
__DefBitFieldType M<2>
    X;
    Y;
__DefBitFieldType N<2>
    Y;
    Z;
__DefRegFile Reg<8>
    R 0..254;
    RZ = 255;
__DefRegFile UReg<6>
    UR 0..62;
    URZ = 63;
__DefImmediate U8<8> unsigned
__DefConstMem KMem<20> bank<4> offset<16>
__DefBitFieldType P<2>
    V;
    W;
__DefOperandWord W : UReg 0..3
__DefGroup ALL
__DefOptype A: [ALL]
  __Encoding
    field<0, 8> Op op == A;
    field<8, 8> Reg rd;
    field<16, 8> Reg ra = RZ;
    field<24, 8> Reg rb;
    field<32, 8> U8 ia = 0;
    field<40, 8> U8 ib;
    field<48, 2> M m = X;
    field<50, 2> N n;
    field<56, 6> UReg ur;
    field<64, 20> KMem ka;
    field<84, 20> KMem kb;
    field<104, 2> P p = V;
  __OperandInfo
    Order<rd, ra, rb, ia, ib, m, n, ur, ka, kb, p, W>;
__DefOpcode A_X: [A]
";
        let c = crate::Spec::from_texts([("t.isa", text)]).check();
        assert!(!c.has_errors(), "{}", c.render_diagnostics());
        let model = c.model.unwrap();
        let op = &model.opcodes[0];
        let at = |name: &str| {
            op.order
                .iter()
                .find(|o| match o.kind {
                    OperandKind::Field(f) => op.fields[f].name == name,
                    OperandKind::Word(w) => model.words[w.0].name == name,
                    _ => false,
                })
                .unwrap()
        };
        let reads = |k: &str, next: &str| may_read_as(&model, op, at(k), at(next));
        // A register after a register of its file, an immediate after an immediate, an
        // enum after one that shares a value name: the next could be read as it.
        assert!(reads("ra", "rb"));
        assert!(reads("ia", "ib"));
        assert!(reads("m", "n"), "`Y` names a value of both");
        assert!(reads("ka", "kb"));
        assert!(reads("p", "W"), "the word prints as `W`, a value of `P`");
        // Not across kinds, nor across register files.
        assert!(!reads("ra", "ib"));
        assert!(!reads("ia", "rb"));
        assert!(!reads("ra", "ur"));
        assert!(!reads("m", "rb"));
        assert!(!reads("ia", "m"));
        assert!(!reads("ka", "ia"));
        assert!(!reads("ia", "ka"));
        assert!(!reads("m", "W"));
        assert!(!reads("ur", "W"), "the word is not a register name");
    }
}
