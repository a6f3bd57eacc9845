//! `inst!`: literal operands give a compile-time constant equal to what the assembler
//! produces; interpolated operands are assigned with their Rust types.

use isa::{inst, Instruction, Reg, ShflRir, ShflRri, UImm5};

const SHFL: ShflRri = inst!(@P0 SHFL.UP P1, R1, R0, R2, 0x0);

#[test]
fn literal_inst_is_a_constant_with_the_assembler_encoding() {
    const WORD: u128 = SHFL.encode();
    let parsed = Instruction::parse("@P0 SHFL.UP P1, R1, R0, R2, 0x0").unwrap();
    assert_eq!(WORD, parsed.encode());
    assert_eq!(Instruction::from(SHFL), parsed);
}

#[test]
fn interpolated_operands_take_their_values() {
    let rd = Reg::new(7).unwrap();
    let i = inst!(SHFL.UP P1, {rd}, R0, R2, 0x0);
    assert_eq!(i.rd, rd);
    assert_eq!(i.to_string(), "SHFL.UP P1, R7, R0, R2, 0x0");
    let lane = UImm5::new(3).unwrap();
    let j: ShflRir = inst!(SHFL.DOWN P1, R1, R0, {lane: UImm5}, R4);
    assert_eq!(j.vb, lane);
    assert_eq!(j.to_string(), "SHFL.DOWN P1, R1, R0, 0x3, R4");
}

/// The guard and modifiers can be interpolated too.
#[test]
fn guard_and_modifier_interpolation() {
    use isa::{BraCond, Pred};
    let p = Pred::new(3).unwrap();
    let cond = BraCond::Div;
    let b = inst!(@!{p} BRA.{cond} 0x100);
    assert_eq!(b.pg, p);
    assert_eq!(b.cond, cond);
    assert_eq!(b.to_string(), "@!P3 BRA.DIV 0x100");
    let c = inst!(@{p} BRA.{cond: BraCond} 0x100);
    assert_eq!(Instruction::from(c).to_string(), "@P3 BRA.DIV 0x100");
}

/// Placeholders are resolved against every opcode form: `UIADD {acc}, {acc}, 0x1` is the
/// immediate form, whatever the registers are; a register pair operand takes a `Reg`.
#[test]
fn placeholders_follow_the_written_operands() {
    use isa::{UReg, UiaddUi, UiaddUu};
    let acc = UReg::new(4).unwrap();
    let i: UiaddUi = inst!(UIADD { acc }, { acc }, 0x1);
    assert_eq!(i.to_string(), "UIADD UR4, UR4, 0x1");
    let val = UReg::new(5).unwrap();
    let j: UiaddUu = inst!(UIADD {acc}, {acc}, {val: UReg});
    assert_eq!(j.to_string(), "UIADD UR4, UR4, UR5");
    let rd = Reg::new(8).unwrap();
    let l = inst!(LEPC { rd });
    assert_eq!(l.to_string(), "LEPC R[8:9]");
}

/// The block form: local labels forward and backward, an outside symbol, a literal
/// address; the words are the text assembler's for the printed program.
#[test]
fn code_block_fills_a_buffer() {
    use isa::backend::{CodeBuffer, Target};
    let mut buf = CodeBuffer::new(0x100).unwrap();
    let callee = buf.symbol("reduce_step").unwrap();
    let rd = Reg::new(1).unwrap();
    isa::code!(buf;
        top:
            S2R {rd}, SR_LANEID;
            @P0 BRA (done);
            CALL.REL RZ, {callee};
            BRA (top);
            BRA 0x400;
        done:
            EXIT;
    )
    .unwrap();
    let mut code = buf.finish().unwrap();
    let text: Vec<String> = code
        .insts()
        .iter()
        .enumerate()
        .map(|(k, i)| i.display_at(0x100 + 16 * k as u64).to_string())
        .collect();
    assert_eq!(
        text,
        [
            "S2R R1, SR_LANEID",
            "@P0 BRA 0x150",
            "CALL.REL RZ, 0x130",
            "BRA 0x100",
            "BRA 0x400",
            "EXIT"
        ]
    );
    assert_eq!(code.relocs().len(), 1);
    code.link(|_| Some(0x9000)).unwrap();
    assert_eq!(
        code.insts()[2].display_at(0x120).to_string(),
        "CALL.REL RZ, 0x9000"
    );
    // A label from outside the block, as a target.
    let mut buf = CodeBuffer::new(0).unwrap();
    let outside = buf.new_label();
    isa::code!(&mut buf; BRA {outside}; NOP;).unwrap();
    buf.bind(outside).unwrap();
    isa::code!(buf; BRA {Target::Address(0x0)};).unwrap();
    // A function handed the buffer as `&mut CodeBuffer` (not declared `mut`).
    fn emit_exit(buf: &mut CodeBuffer) -> Result<(), isa::backend::BufferError> {
        isa::code!(buf; EXIT;)
    }
    emit_exit(&mut buf).unwrap();
    let code = buf.finish().unwrap();
    assert_eq!(code.insts()[0].display_at(0).to_string(), "BRA 0x20");
    assert_eq!(code.insts()[2].display_at(0x20).to_string(), "BRA 0x0");
    assert_eq!(code.insts()[3].to_string(), "EXIT");
}
