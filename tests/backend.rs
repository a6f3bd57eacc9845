//! What a compiler backend gets from the generated API: flow kinds, branch targets,
//! register operands and their access, the register rewrite, the code buffer with
//! labels and relocations, and the linker step. The model (`isa-gen`'s interpreting
//! tier) is the oracle for every opcode; hand-computed cases pin the bundled spec.

use isa::backend::{
    Access, BufferError, CodeBuffer, Flow, LinkError, RelocKind, Target, TargetError,
};
use isa::{
    BraCond, BraX, BreakX, BsyncX, FormatOptions, Instruction, LepcI, Opcode, PModi, Pred, Reg,
    RegFile, RegRef, SImm50, UReg,
};
mod common;

use common::{legal, model, Rng};
use isa_gen::model::interp::Decoded;
use isa_gen::model::Model;

fn gen(m: &Model, d: &Decoded) -> Instruction {
    Instruction::decode(m.encode(d)).expect("a legal word decodes")
}

/// The flow of every opcode, as the spec's annotations (isa-spec/backend.isa) give
/// it, read from the model and from the generated tables: they agree, and the bundled
/// spec's kinds are the ones a hand reading of bru.isa gives.
#[test]
fn flow_kind_of_every_opcode() {
    let m = model();
    let expected = |optype: &str| match optype {
        "BRA" => Flow::Branch,
        "BRX" => Flow::IndirectBranch,
        "CALL" => Flow::IndirectCall,
        "RET" => Flow::Return,
        "EXIT" => Flow::Exit,
        "BSSY" => Flow::Converge,
        "BSYNC" | "WARPSYNC" => Flow::Barrier,
        "YIELD" | "NANOSLEEP" => Flow::Yield,
        "TRAP" | "SYSCALL" | "SWITCH" => Flow::Trap,
        "RTT" => Flow::TrapReturn,
        _ => Flow::Next,
    };
    for (i, op) in m.opcodes.iter().enumerate() {
        let optype = &m.def(op.optype.unwrap()).name;
        let g = Opcode::ALL[i];
        assert_eq!(g.name(), op.name);
        let info = g.info();
        assert_eq!(info.flow, expected(optype), "{}", op.name);
        assert_eq!(info.flow.name(), op.flow.kind.name(), "{}", op.name);
        // The target is an address operand, and the model's.
        let target = info.target.map(|k| info.addresses[k as usize].operand);
        let model_target = op.flow.target.map(|f| op.fields[f].name.as_str());
        assert_eq!(target, model_target, "{}", op.name);
        assert_eq!(info.flow.has_target(), target.is_some(), "{}", op.name);
    }
    // The targets of the direct flows, by name.
    let target = |o: Opcode| {
        o.info()
            .target
            .map(|k| o.info().addresses[k as usize].operand)
    };
    assert_eq!(target(Opcode::BraX), Some("offset"));
    assert_eq!(target(Opcode::BraU), Some("offset"));
    assert_eq!(target(Opcode::BssyI), Some("syncpoint"));
    // LEPC's offset is an address operand but LEPC does not go there.
    assert_eq!(target(Opcode::LepcI), None);
    assert_eq!(Opcode::LepcI.info().addresses[0].operand, "offset");
}

/// On random legal instructions of every opcode, the generated flow, targets,
/// conditions and register operands equal the model's.
#[test]
fn backend_queries_agree_with_the_model() {
    let m = model();
    let mut rng = Rng(0x5eed_1234_abcd_0001);
    for i in 0..m.opcodes.len() {
        for _ in 0..300 {
            let d = legal(m, i, &mut rng);
            let insn = gen(m, &d);
            let addr = (rng.next() % 0x10_0000) * 16;
            let at = format!("{} at {addr:#x}: {insn}", m.opcodes[i].name);
            assert_eq!(insn.is_conditional(), m.is_conditional(&d), "{at}");
            assert_eq!(insn.is_guarded(), m.is_guarded(&d), "{at}");
            assert_eq!(insn.branch_target(addr), m.branch_target(&d, addr), "{at}");
            assert_eq!(insn.flow().name(), m.flow_kind(&d).name(), "{at}");
            let modes = m.opcodes[i].address_operands();
            assert_eq!(insn.addresses().len(), modes.len(), "{at}");
            for (k, &(_, mode)) in modes.iter().enumerate() {
                let absolute = mode.at(&d.values) == isa_gen::model::Address::Absolute;
                assert_eq!(
                    insn.address_is_absolute(k),
                    Some(absolute),
                    "{at} operand {k}"
                );
            }
            let uses = m.reg_uses(&d);
            let ops: Vec<_> = insn.reg_operands().collect();
            assert_eq!(ops.len(), uses.len(), "{at}");
            for (g, u) in ops.iter().zip(&uses) {
                assert_eq!(g.reg.file().name(), m.ty(u.file).name, "{at}");
                assert_eq!(u128::from(g.reg.code()), u.first, "{at}");
                assert_eq!(u32::from(g.count), u.count, "{at} {}", g.info.name);
                assert_eq!(g.reg.is_constant(), u.constant, "{at}");
                let access = match u.access {
                    isa_gen::model::Access::Read => Access::Read,
                    isa_gen::model::Access::Write => Access::Write,
                    isa_gen::model::Access::ReadWrite => Access::ReadWrite,
                    isa_gen::model::Access::CondWrite => Access::CondWrite,
                    isa_gen::model::Access::ReadCondWrite => Access::ReadCondWrite,
                };
                assert_eq!(g.access, access, "{at} {}", g.info.name);
            }
            // Setting the branch target to where it points changes nothing; moving it
            // by one instruction moves the printed target.
            if let Some(t) = insn.branch_target(addr) {
                let mut same = insn;
                same.set_branch_target(addr, t).unwrap();
                assert_eq!(same, insn, "{at}");
                let mut d2 = d.clone();
                let next = t.wrapping_add(16);
                match (m.set_branch_target(&mut d2, addr, next), insn) {
                    (Ok(()), mut moved) => {
                        moved.set_branch_target(addr, next).unwrap();
                        assert_eq!(moved.encode(), m.encode(&d2), "{at}");
                        assert_eq!(moved.branch_target(addr), Some(next), "{at}");
                    }
                    (Err(_), mut moved) => {
                        assert!(moved.set_branch_target(addr, next).is_err(), "{at}");
                    }
                }
            }
        }
    }
}

fn r(n: u8) -> Reg {
    Reg::new(n).unwrap()
}

/// CALL/RET's offset is absolute under `.ABS` and relative under `.REL`, per instance;
/// through RZ/URZ (which read 0) the call or return has a known target.
#[test]
fn call_and_ret_address_modes_and_zero_registers() {
    let at = |text: &str, addr: u64| Instruction::parse_at(text, addr, &|_| None).unwrap();
    // `.ABS`: the same word names 0x100 wherever it is.
    let abs = at("CALL.ABS R[8:9], 0x100", 0x40);
    assert_eq!(abs.address_is_absolute(0), Some(true));
    assert_eq!(abs.address(0, 0x40), Some(0x100));
    assert_eq!(abs.address(0, 0x2000), Some(0x100));
    assert_eq!(abs.display_at(0x2000).to_string(), "CALL.ABS R[8:9], 0x100");
    assert_eq!(
        (abs.flow(), abs.branch_target(0x40)),
        (Flow::IndirectCall, None)
    );
    // `.REL`: relative to the next instruction.
    let rel = at("CALL.REL R[8:9], 0x100", 0x40);
    assert_eq!(rel.address_is_absolute(0), Some(false));
    assert_eq!(rel.address(0, 0x1040), Some(0x1100));
    assert_ne!(rel.encode(), at("CALL.REL R[8:9], 0x100", 0x80).encode());
    // Through RZ: a direct call; RET through RZ is a branch; the constant-memory form
    // (a table entry added) stays indirect.
    let call = at("CALL.REL RZ, 0x100", 0);
    assert_eq!(
        (call.flow(), call.branch_target(0)),
        (Flow::Call, Some(0x100))
    );
    let call_abs = at("@P1 CALL.ABS URZ, 0x300", 0x40);
    assert_eq!(
        (call_abs.flow(), call_abs.branch_target(0x40)),
        (Flow::Call, Some(0x300))
    );
    let ret = at("RET.ABS RZ, 0x80", 0x40);
    assert_eq!(
        (ret.flow(), ret.branch_target(0x40)),
        (Flow::Branch, Some(0x80))
    );
    let ret = at("RET.REL R[2:3], 0x80", 0x40);
    assert_eq!((ret.flow(), ret.branch_target(0x40)), (Flow::Return, None));
    let table = at("CALL.REL c[0x2][0x100]", 0);
    assert_eq!(
        (table.flow(), table.branch_target(0)),
        (Flow::IndirectCall, None)
    );
    let brx = at("BRX RZ, 0x200", 0x100);
    assert_eq!(
        (brx.flow(), brx.branch_target(0x100)),
        (Flow::Branch, Some(0x200))
    );
    // A direct call's target moves like a branch's.
    let mut moved = call;
    moved.set_branch_target(0, 0x400).unwrap();
    assert_eq!(moved.display_at(0).to_string(), "CALL.REL RZ, 0x400");
    // Relocations: `.ABS` ignores the instruction's address.
    let w = Instruction::relocate(abs.encode(), 0x40, 0, 0x800).unwrap();
    assert_eq!(
        Instruction::decode(w).unwrap().address(0, 0x9990),
        Some(0x800)
    );
}

#[test]
fn branch_targets_by_hand() {
    // `BRA 0x200` at 0x100: offset = (0x200 - 0x110) / 16 = 0xf.
    let mut bra = Instruction::from(BraX::new(SImm50::new(0xf).unwrap()));
    assert_eq!(bra.branch_target(0x100), Some(0x200));
    assert_eq!(bra.display_at(0x100).to_string(), "BRA 0x200");
    assert!(!bra.is_conditional());
    bra.set_branch_target(0x100, 0x80).unwrap();
    assert_eq!(bra.display_at(0x100).to_string(), "BRA 0x80");
    assert_eq!(
        Ok(bra),
        Instruction::parse_at("BRA 0x80", 0x100, &|_| None),
        "what the printer wrote reads back"
    );
    assert_eq!(
        bra.set_branch_target(0x100, 0x88),
        Err(TargetError::Misaligned(16))
    );
    // SImm50 offsets in 16-byte units reach ±2^53 bytes.
    assert_eq!(
        bra.set_branch_target(0, 1 << 60),
        Err(TargetError::OutOfRange)
    );
    assert_eq!(
        bra.display_at(0x100).to_string(),
        "BRA 0x80",
        "unchanged on error"
    );

    // Conditions: the guard, `pp` and `.DIV` each make it conditional.
    let Instruction::BraX(mut b) = bra else {
        unreachable!()
    };
    b.pg = Pred::new(0).unwrap();
    assert!(Instruction::from(b).is_conditional());
    b.pg = Pred::PT;
    b.pg_not = PModi::True; // `@!PT`: never taken, and conditional
    assert!(Instruction::from(b).is_conditional());
    b.pg_not = PModi::False;
    b.cond = BraCond::Div;
    assert!(Instruction::from(b).is_conditional());
    assert!(!Instruction::from(b).is_guarded());

    // Instructions without a flow target.
    let exit: Instruction = "EXIT".parse().unwrap();
    assert_eq!(exit.flow(), Flow::Exit);
    assert_eq!(exit.branch_target(0), None);
    assert_eq!(
        exit.clone().set_branch_target(0, 0),
        Err(TargetError::NoAddress)
    );
    // LEPC: an address operand that is not a flow target.
    let lepc = Instruction::from(LepcI::new(r(4)));
    assert_eq!(lepc.branch_target(0x40), None);
    assert_eq!(
        lepc.address(0, 0x40),
        Some(0x50),
        "offset 0: the next instruction"
    );
}

#[test]
fn register_operands_and_access_by_hand() {
    // `@P1 BMOV R5, B3`: rd written under a guard, breg read and written (tied).
    let i: Instruction = "@P1 BMOV R5, B3".parse().unwrap();
    let ops: Vec<_> = i.reg_operands().collect();
    let by_name = |n: &str| ops.iter().find(|o| o.info.name == n).unwrap();
    assert_eq!(by_name("pg").access, Access::Read);
    assert!(by_name("pg").info.guard);
    assert_eq!(by_name("pg").reg.name(), "P1");
    assert_eq!(by_name("rd").access, Access::CondWrite);
    assert_eq!(by_name("breg").access, Access::ReadCondWrite);
    assert!(by_name("breg").info.is_tied());
    assert_eq!(by_name("breg").reg.file(), RegFile::BReg);
    // Without the guard the writes are unconditional.
    let i: Instruction = "BMOV R5, B3".parse().unwrap();
    let rd = i.reg_operands().find(|o| o.info.name == "rd").unwrap();
    assert_eq!(rd.access, Access::Write);

    // A 64-bit operand covers a register pair: `LEPC R[4:5]`.
    let i: Instruction = "LEPC R[4:5]".parse().unwrap();
    let rd = i.reg_operands().find(|o| o.info.name == "rd").unwrap();
    assert_eq!(rd.count, 2);
    let regs: Vec<_> = rd.regs().map(RegRef::name).collect();
    assert_eq!(regs, ["R4", "R5"]);

    // `UPR` stands for the fixed registers UP0..UP6.
    let i: Instruction = "UP2UR UR4, UPR, UR5, 0xff".parse().unwrap();
    let upr = i.reg_operands().find(|o| o.info.name == "UPR").unwrap();
    assert!(upr.info.is_fixed());
    assert_eq!(upr.count, 7);
    assert_eq!(upr.regs().map(RegRef::name).collect::<Vec<_>>()[6], "UP6");
}

#[test]
fn map_regs_rewrites_registers_in_place() {
    let mut i: Instruction = "@P1 BMOV R5, B3".parse().unwrap();
    i.map_regs(|op| match op.reg {
        RegRef::Reg(_) => RegRef::Reg(r(40)),
        RegRef::BReg(_) => RegRef::BReg(isa::BReg::B9),
        RegRef::Pred(_) => RegRef::Pred(Pred::new(6).unwrap()),
        other => other,
    })
    .unwrap();
    assert_eq!(i.to_string(), "@P6 BMOV R40, B9");
    // A register of another file, or a change to fixed registers, is refused and
    // changes nothing.
    let before = i;
    let e = i
        .map_regs(|op| match op.reg {
            RegRef::Reg(_) => RegRef::UReg(UReg::new(1).unwrap()),
            other => other,
        })
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "operand `rd` takes a register of another file"
    );
    assert_eq!(i, before);
    let mut u: Instruction = "UP2UR UR4, UPR, UR5, 0xff".parse().unwrap();
    let e = u
        .map_regs(|op| match op.reg {
            RegRef::UPred(_) => RegRef::UPred(isa::UPred::new(1).unwrap()),
            other => other,
        })
        .unwrap_err();
    assert_eq!(e.to_string(), "operand `UPR` stands for fixed registers");
    // A pair is renamed by its first register.
    let mut l: Instruction = "LEPC R[4:5]".parse().unwrap();
    l.map_regs(|op| match op.reg {
        RegRef::Reg(_) => RegRef::Reg(r(10)),
        other => other,
    })
    .unwrap();
    assert_eq!(l.to_string(), "LEPC R[10:11]");
    // A pair whose second register would be RZ (a constant) is refused; a constant
    // register alone is fine.
    let before = l;
    let e = l
        .map_regs(|op| match op.reg {
            RegRef::Reg(_) => RegRef::Reg(r(254)),
            other => other,
        })
        .unwrap_err();
    assert_eq!(e, isa::backend::RegError::Range("rd"));
    assert_eq!(l, before);
    l.map_regs(|op| match op.reg {
        RegRef::Reg(_) => RegRef::Reg(Reg::RZ),
        other => other,
    })
    .unwrap();
    assert_eq!(l.to_string(), "LEPC RZ");
    // Errors are `std::error::Error`s.
    let boxed: Box<dyn std::error::Error> = Box::new(e);
    assert!(boxed.to_string().contains("`rd`"));
}

/// `regs()` lists what an operand names: a constant register itself (liveness skips
/// it by `is_constant`), a range up to the end of the numbered registers.
#[test]
fn regs_of_constant_registers_and_ranges() {
    let i: Instruction = "BMOV RZ, B3".parse().unwrap();
    let rd = i.reg_operands().find(|o| o.info.name == "rd").unwrap();
    assert_eq!(rd.regs().map(RegRef::name).collect::<Vec<_>>(), ["RZ"]);
    assert!(rd.regs().all(RegRef::is_constant));
    let pg = i.reg_operands().find(|o| o.info.guard).unwrap();
    assert_eq!(pg.regs().map(RegRef::name).collect::<Vec<_>>(), ["PT"]);
    // `LEPC R[254:255]` decodes (R254 is a code of the field); its second register
    // is RZ, which the range does not list.
    let i: Instruction = "LEPC R[254:255]".parse().unwrap();
    let rd = i.reg_operands().find(|o| o.info.name == "rd").unwrap();
    assert_eq!(rd.regs().map(RegRef::name).collect::<Vec<_>>(), ["R254"]);
    // Ordered by file, then code.
    let mut set = std::collections::BTreeSet::new();
    set.extend([
        RegRef::Reg(r(9)),
        RegRef::Pred(Pred::new(0).unwrap()),
        RegRef::Reg(r(2)),
    ]);
    assert_eq!(
        set.iter().map(|r| r.name()).collect::<Vec<_>>(),
        ["R2", "R9", "P0"]
    );
}

/// A loop with a forward and a backward label and a call to an outside symbol: the
/// words equal what the text assembler gives for the printed program, and linking the
/// relocation gives the words of the program with the symbol's address written in.
#[test]
fn code_buffer_labels_and_relocations() {
    let mut buf = CodeBuffer::new(0x100).unwrap();
    let top = buf.new_label();
    let done = buf.new_label();
    let func = buf.symbol("reduce_step").unwrap();
    buf.bind(top).unwrap();
    buf.push("S2R R1, SR_LANEID".parse::<Instruction>().unwrap());
    let bra_done = "@P0 BRA 0x0".parse::<Instruction>().unwrap();
    buf.push_to(bra_done, done).unwrap(); // forward
    buf.push_to("CALL.REL RZ, 0x0".parse::<Instruction>().unwrap(), func)
        .unwrap();
    buf.push_to(BraX::new(SImm50::new(0).unwrap()), top)
        .unwrap(); // backward
    buf.bind(done).unwrap();
    buf.push("EXIT".parse::<Instruction>().unwrap());
    assert_eq!(
        buf.bind(done),
        Err(BufferError::BoundTwice {
            label: done,
            name: None,
            at: 0x140
        })
    );
    let mut code = buf.finish().unwrap();

    assert_eq!(code.label_addr(top), Some(0x100));
    assert_eq!(code.label_addr(done), Some(0x140));
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
            "@P0 BRA 0x140",
            "CALL.REL RZ, 0x130",
            "BRA 0x100",
            "EXIT"
        ]
    );
    assert_eq!(code.relocs().len(), 1);
    let rel = code.relocs()[0];
    assert_eq!(
        (rel.offset, rel.operand, rel.kind),
        (0x20, 0, RelocKind::Relative)
    );
    assert_eq!(code.symbols()[rel.symbol.index()], "reduce_step");
    assert_eq!(code.symbol_name(rel.symbol), Some("reduce_step"));

    // The listing: named addresses as labels, the operand the relocation patches as its
    // symbol (its placeholder code 0 means 0x130, which has a name of its own here).
    let names = |a: u64| match a {
        0x100 => Some("top"),
        0x130 => Some("again"),
        0x140 => Some("done"),
        _ => None,
    };
    let mut listing = String::new();
    let o = FormatOptions {
        symbols: Some(&names),
        ..FormatOptions::new()
    };
    code.write_asm_with(&mut listing, &o).unwrap();
    assert_eq!(
        listing,
        ".extern reduce_step\n\
         top:\n\
         /*0100*/  S2R R1, SR_LANEID ;\n\
         /*0110*/  @P0 BRA `(done) ;\n\
         /*0120*/  CALL.REL RZ, `(reduce_step) ;  // R_ISA_ADDR_REL reduce_step\n\
         again:\n\
         /*0130*/  BRA `(top) ;\n\
         done:\n\
         /*0140*/  EXIT ;\n"
    );
    assert_eq!(
        code.listing().lines().nth(3),
        Some("/*0120*/  CALL.REL RZ, `(reduce_step) ;  // R_ISA_ADDR_REL reduce_step")
    );
    assert_eq!(
        code.listing().lines().nth(2),
        Some("/*0110*/  @P0 BRA 0x140 ;")
    );

    // The words are the text assembler's for the printed lines.
    for (k, (i, t)) in code.insts().iter().zip(&text).enumerate() {
        let again = Instruction::parse_at(t, 0x100 + 16 * k as u64, &|_| None).unwrap();
        assert_eq!(again.encode(), i.encode(), "{t}");
    }
    // Linking: the call goes to the symbol's address.
    assert_eq!(
        code.clone().link(|_| None).unwrap_err().to_string(),
        "undefined symbol `reduce_step`"
    );
    code.link(|s| (s == "reduce_step").then_some(0x8000))
        .unwrap();
    assert!(code.relocs().is_empty());
    let call = code.insts()[2];
    assert_eq!(call.display_at(0x120).to_string(), "CALL.REL RZ, 0x8000");
    assert_eq!(
        call.encode(),
        Instruction::parse_at("CALL.REL RZ, 0x8000", 0x120, &|_| None)
            .unwrap()
            .encode()
    );
}

#[test]
fn code_buffer_errors() {
    let mut buf = CodeBuffer::new(0).unwrap();
    let never = buf.new_label();
    buf.push("NOP".parse::<Instruction>().unwrap());
    buf.push_to("BRA 0x0".parse::<Instruction>().unwrap(), never)
        .unwrap();
    assert_eq!(
        buf.clone().finish().unwrap_err(),
        BufferError::Unbound {
            label: never,
            name: None,
            at: 0x10
        }
    );
    // An instruction with no address operand takes no target.
    let e = buf.push_to(BsyncX::new(isa::BReg::B0), never).unwrap_err();
    assert_eq!(e, BufferError::NoAddress(Opcode::BsyncX));
    // A known address that does not fit is an error at push time.
    let e = buf
        .push_to(
            "BRA 0x0".parse::<Instruction>().unwrap(),
            Target::Address(0x18),
        )
        .unwrap_err();
    assert!(matches!(e, BufferError::Target { at: 0x20, .. }), "{e:?}");
    // BREAK has no address operand either; BRX has one (its table base).
    assert!(BreakX::new(isa::BReg::B1).encode() != 0);
}

fn insn(text: &str) -> Instruction {
    text.parse().unwrap()
}

/// A label or symbol belongs to the buffer that made it: another buffer refuses it
/// (it used to take it as its own label of the same number) and pushes nothing.
#[test]
fn a_foreign_label_or_symbol_is_refused() {
    let mut a = CodeBuffer::new(0).unwrap();
    let mut b = CodeBuffer::new(0).unwrap();
    let la = a.new_label();
    let lb = b.new_label();
    assert_eq!(la.index(), lb.index());
    assert_ne!(la, lb);
    assert_eq!(b.bind(la), Err(BufferError::ForeignLabel(la)));
    assert_eq!(
        b.push_to(insn("BRA 0x0"), la),
        Err(BufferError::ForeignLabel(la))
    );
    let sa = a.symbol("f").unwrap();
    let sb = b.symbol("f").unwrap();
    assert_ne!(sa, sb, "the same name in two buffers is two symbols");
    assert_eq!(
        b.push_to(insn("CALL.REL RZ, 0x0"), Target::Symbol(sa, 0x20)),
        Err(BufferError::ForeignSymbol(sa))
    );
    assert_eq!(b.len(), 0, "nothing pushed on error");
    assert_eq!(b.label_addr(la), None);
    assert_eq!(
        BufferError::ForeignLabel(la).to_string(),
        "label #0 belongs to another buffer"
    );
    // The buffer's own label and symbol work, and its code knows only them.
    b.bind(lb).unwrap();
    b.push_to(insn("BRA 0x0"), lb).unwrap();
    b.push_to(insn("CALL.REL RZ, 0x0"), sb).unwrap();
    let code = b.finish().unwrap();
    assert_eq!(code.label_addr(lb), Some(0));
    assert_eq!(code.label_addr(la), None);
    assert_eq!(code.symbol_name(sb), Some("f"));
    assert_eq!(code.symbol_name(sa), None);
}

/// A label the buffer does not know is foreign, not "bound twice" (which it used to be
/// reported as). A clone takes the labels and symbols made before it; the labels
/// either makes afterwards are foreign to the other, even with the same number.
#[test]
fn an_unknown_label_is_not_reported_bound_twice() {
    let mut buf = CodeBuffer::new(0).unwrap();
    let before = buf.new_label();
    let f = buf.symbol("f").unwrap();
    let mut clone = buf.clone();
    let later = clone.new_label();
    let mine = buf.new_label();
    assert_eq!(later.index(), mine.index());
    assert_eq!(buf.bind(later), Err(BufferError::ForeignLabel(later)));
    assert_eq!(clone.bind(mine), Err(BufferError::ForeignLabel(mine)));
    assert_eq!(
        buf.push_to(insn("BRA 0x0"), later),
        Err(BufferError::ForeignLabel(later))
    );
    let g = clone.symbol("g").unwrap();
    assert_eq!(
        buf.push_to(insn("CALL.REL RZ, 0x0"), g),
        Err(BufferError::ForeignSymbol(g))
    );
    // What was made before the clone is both buffers', and their codes'.
    assert_eq!(clone.symbol("f"), Ok(f));
    clone.bind(before).unwrap();
    clone.push_to(insn("CALL.REL RZ, 0x0"), f).unwrap();
    buf.bind(before).unwrap();
    assert!(matches!(
        buf.bind(before),
        Err(BufferError::BoundTwice { at: 0, .. })
    ));
    let code = clone.clone().finish().unwrap();
    assert_eq!(code.label_addr(before), Some(0));
    assert_eq!(code.label_addr(mine), None);
    assert_eq!(code.symbol_name(f), Some("f"));
    assert_eq!(code.labels().next(), Some((before, 0)));
    assert_eq!(code.relocs()[0].symbol, f);
}

/// The base must be a multiple of the instruction size, wherever it is given, and the
/// code must end within the address space; nothing changes on error.
#[test]
fn a_misaligned_base_is_refused() {
    let e = CodeBuffer::new(0x8).unwrap_err();
    assert_eq!(e, BufferError::MisalignedBase(0x8));
    assert_eq!(e.to_string(), "base address 0x8 is not a multiple of 16");
    let mut buf = CodeBuffer::new(0x100).unwrap();
    buf.push(insn("NOP"));
    assert_eq!(
        buf.clone().finish_at(0x104),
        Err(BufferError::MisalignedBase(0x104))
    );
    let mut code = buf.clone().finish().unwrap();
    assert_eq!(
        code.rebase(0x1008),
        Err(BufferError::MisalignedBase(0x1008))
    );
    assert_eq!(code.base(), 0x100, "unchanged on error");
    // The last instruction slot of the address space holds one instruction, not two.
    let last = u64::MAX - 15;
    assert_eq!(buf.clone().finish_at(last).unwrap().base(), last);
    buf.push(insn("NOP"));
    let e = buf.clone().finish_at(last).unwrap_err();
    assert_eq!(e, BufferError::Overflow { base: last, len: 2 });
    assert!(
        e.to_string().contains("past the end of the address space"),
        "{e}"
    );
    let mut code = buf.finish().unwrap();
    assert_eq!(
        code.rebase(last),
        Err(BufferError::Overflow { base: last, len: 2 })
    );
}

/// Errors name a label by its name when it has one, by its number otherwise; names are
/// checked when given, so a listing of the code reads back.
#[test]
fn errors_name_labels_and_names_are_checked() {
    let mut buf = CodeBuffer::new(0x100).unwrap();
    let top = buf.named_label("loop_top").unwrap();
    let exit = buf.named_label(".L_exit$1").unwrap();
    let anon = buf.new_label();
    assert_eq!(buf.label_name(top), Some("loop_top"));
    assert_eq!(buf.label_name(anon), None);
    buf.bind(top).unwrap();
    buf.push(insn("NOP"));
    assert_eq!(
        buf.bind(top).unwrap_err().to_string(),
        "label `loop_top` is bound twice (first to 0x100)"
    );
    buf.push_to(insn("BRA 0x0"), exit).unwrap();
    buf.push_to(insn("BRA 0x0"), anon).unwrap();
    let e = buf.clone().finish().unwrap_err();
    assert_eq!(
        e,
        BufferError::Unbound {
            label: exit,
            name: Some(".L_exit$1".into()),
            at: 0x110
        }
    );
    assert_eq!(
        e.to_string(),
        "label `.L_exit$1` is never bound (used at 0x110)"
    );
    buf.bind(exit).unwrap();
    assert_eq!(
        buf.clone().finish().unwrap_err().to_string(),
        "label #2 is never bound (used at 0x120)"
    );
    // A name `isa asm` would not read back is refused, for labels and symbols alike.
    for bad in ["", "1st", "a-b", "a b", "été", "f+1", "(x)"] {
        let e = BufferError::InvalidName(bad.into());
        assert_eq!(buf.named_label(bad), Err(e.clone()), "{bad:?}");
        assert_eq!(buf.symbol(bad), Err(e), "{bad:?}");
    }
    // One name, one thing: a listing would define it twice.
    fn taken<T>(n: &str) -> Result<T, BufferError> {
        Err(BufferError::NameTaken(n.into()))
    }
    assert_eq!(buf.named_label("loop_top"), taken("loop_top"));
    assert_eq!(buf.symbol("loop_top"), taken("loop_top"));
    let f = buf.symbol("callee").unwrap();
    assert_eq!(
        buf.symbol("callee"),
        Ok(f),
        "the same symbol for the same name"
    );
    assert_eq!(buf.named_label("callee"), taken("callee"));
    // Refused names made no label: the next one is #3.
    assert_eq!(buf.new_label().index(), 3);
}

/// `Code` comes only from a buffer and is read through accessors, so its relocations
/// and label uses always name an instruction it has. An instruction rewritten through
/// `insts_mut` so that it lost the operand is a typed error of `link` and `rebase`,
/// which then change nothing.
#[test]
fn link_and_rebase_give_errors_not_panics() {
    let mut buf = CodeBuffer::new(0).unwrap();
    let f = buf.symbol("f").unwrap();
    let top = buf.new_label();
    buf.bind(top).unwrap();
    buf.push_to(insn("CALL.REL RZ, 0x0"), f).unwrap();
    buf.push_to(insn("BRA 0x0"), top).unwrap();
    let code = buf.finish().unwrap();
    // A symbol address the operand cannot take names the relocation's symbol.
    let e = code.clone().link(|_| Some(0x104)).unwrap_err();
    assert_eq!(
        e,
        LinkError::Target {
            at: 0,
            symbol: "f".into(),
            error: TargetError::Misaligned(16)
        }
    );
    assert!(e.to_string().contains("relocation to `f`"), "{e}");

    let mut broken = code.clone();
    broken.insts_mut()[0] = insn("NOP");
    broken.insts_mut()[1] = insn("NOP");
    let before = broken.clone();
    assert_eq!(
        broken.link(|_| Some(0x100)),
        Err(LinkError::Target {
            at: 0,
            symbol: "f".into(),
            error: TargetError::NoAddress
        })
    );
    assert_eq!(broken, before);
    assert_eq!(
        broken.rebase(0x100),
        Err(BufferError::Target {
            at: 0x110,
            error: TargetError::NoAddress
        })
    );
    assert_eq!(broken, before);
}

/// The instruction size is a constant of the crate, the model's.
#[test]
fn instruction_bytes_is_the_models() {
    assert_eq!(isa::INSTRUCTION_BYTES, isa_gen::model::flow::INST_SIZE);
    assert_eq!(isa::INSTRUCTION_BYTES, isa_gen::asm::program::INST_SIZE);
    assert_eq!(isa::INSTRUCTION_BYTES as usize, std::mem::size_of::<u128>());
    let mut buf = CodeBuffer::default();
    for _ in 0..3 {
        buf.push(insn("NOP"));
    }
    assert_eq!(buf.here(), 3 * isa::INSTRUCTION_BYTES);
    let code = buf.finish().unwrap();
    assert_eq!(code.addr_of(2), 2 * isa::INSTRUCTION_BYTES);
    assert_eq!(code.to_bytes().len() as u64, 3 * isa::INSTRUCTION_BYTES);
}

/// The program of `code_moves_to_another_base`: labels forward and backward, a known
/// address, a relocation with an addend; placed at `base`.
fn movable(base: u64) -> CodeBuffer {
    let mut buf = CodeBuffer::new(base).unwrap();
    let (top, done) = (buf.new_label(), buf.named_label("done").unwrap());
    let f = buf.symbol("f").unwrap();
    buf.bind(top).unwrap();
    buf.push(insn("NOP"));
    buf.push_to(insn("@P0 BRA 0x0"), done).unwrap();
    buf.push_to(insn("BRA 0x0"), Target::Address(0x400))
        .unwrap();
    buf.push_to(insn("CALL.REL RZ, 0x0"), Target::Symbol(f, 0x20))
        .unwrap();
    buf.push_to(LepcI::new(r(4)), top).unwrap();
    buf.bind(done).unwrap();
    buf.push(insn("EXIT"));
    buf
}

/// Code built at one base and emitted at another (`finish_at`, `rebase`) is the code
/// built there: a label reference keeps its offset, a known address stays that
/// address, a relocation keeps its placeholder, and a linked symbol stays linked.
#[test]
fn code_moves_to_another_base() {
    let words = |c: &isa::backend::Code| c.words().collect::<Vec<_>>();
    let there = movable(0x1000).finish().unwrap();
    let moved = movable(0).finish_at(0x1000).unwrap();
    assert_eq!(moved.base(), 0x1000);
    assert_eq!(words(&moved), words(&there));
    let at_zero = movable(0).finish().unwrap();
    // The branch to the known address 0x400 is a different word at each base.
    assert_ne!(at_zero.insts()[2], moved.insts()[2]);
    assert_eq!(moved.insts()[2].branch_target(0x1020), Some(0x400));
    let addrs = |c: &isa::backend::Code| c.labels().map(|l| l.1).collect::<Vec<_>>();
    assert_eq!(addrs(&moved), [0x1000, 0x1050]);

    let mut rebased = at_zero.clone();
    rebased.rebase(0x1000).unwrap();
    assert_eq!(words(&rebased), words(&there));
    assert_eq!(addrs(&rebased), [0x1000, 0x1050]);
    assert_eq!(rebased.relocs(), at_zero.relocs(), "offsets from the base");
    // The listing at the new base reads back as the same words.
    let listing = rebased.listing();
    assert!(listing.contains("/*1010*/  @P0 BRA `(done) ;"), "{listing}");
    assert!(listing.contains("/*1020*/  BRA 0x400 ;"), "{listing}");

    // Linked, then moved: the call still goes to f+0x20.
    let mut linked = movable(0).finish().unwrap();
    linked.link(|_| Some(0x9000)).unwrap();
    linked.rebase(0x2000).unwrap();
    assert_eq!(linked.insts()[3].address(0, 0x2030), Some(0x9020));
    let mut direct = movable(0x2000).finish().unwrap();
    direct.link(|_| Some(0x9000)).unwrap();
    assert_eq!(words(&linked), words(&direct));
}

/// A relocation's addend survives the listing: the operand prints as `` `(f+0x20) ``
/// or `` `(f-0x10) `` (it used to print `` `(f) ``, the addend only in a comment), both
/// assembler tiers read that back, and the listing assembled with `f` at an address
/// gives the words `Code::link` gives for it.
#[test]
fn a_relocation_addend_survives_the_listing() {
    let mut buf = CodeBuffer::new(0x100).unwrap();
    let f = buf.symbol("f").unwrap();
    let top = buf.named_label("top").unwrap();
    buf.bind(top).unwrap();
    buf.push_to(insn("CALL.REL RZ, 0x0"), Target::Symbol(f, 0x20))
        .unwrap();
    buf.push_to(insn("BRA 0x0"), Target::Symbol(f, -0x10))
        .unwrap();
    buf.push_to(insn("@P0 BRA 0x0"), top).unwrap();
    let code = buf.finish().unwrap();
    let listing = code.listing();
    assert_eq!(
        listing,
        ".extern f\n\
         top:\n\
         /*0100*/  CALL.REL RZ, `(f+0x20) ;  // R_ISA_ADDR_REL f+0x20\n\
         /*0110*/  BRA `(f-0x10) ;  // R_ISA_ADDR_REL f-0x10\n\
         /*0120*/  @P0 BRA `(top) ;\n"
    );
    let mut linked = code.clone();
    linked.link(|s| (s == "f").then_some(0x9000)).unwrap();
    let expected: Vec<(u64, u128)> = (0..linked.len())
        .map(|k| (linked.addr_of(k), linked.insts()[k].encode()))
        .collect();
    use isa_gen::asm::program;
    let f_at = |name: &str, _| (name == "f").then_some(0x9000);
    let generated = program::assemble_with(&listing, 0, &f_at, |text, addr, labels| {
        Instruction::parse_at(text, addr, labels)
            .map(|i| i.encode())
            .map_err(|e| isa_gen::asm::AsmError::new(0..0, e.display(text).to_string()))
    })
    .unwrap();
    assert_eq!(generated, expected);
    let asm = isa_gen::asm::Assembler::new(model());
    let interpreted = program::assemble_with(&listing, 0, &f_at, |text, addr, labels| {
        asm.parse_line(text, addr, labels)
            .map(|d| model().encode(&d))
    })
    .unwrap();
    assert_eq!(interpreted, expected);
}

/// The spec's `per-lane`/`per-warp` and numbered ranges reach `RegFile`; an
/// enumeration of registers has no numbered registers to allocate.
#[test]
fn register_files_say_their_sharing_and_numbered_registers() {
    use isa::RegFile;
    assert!(RegFile::Reg.per_lane() && RegFile::Pred.per_lane());
    assert!(!RegFile::UReg.per_lane() && !RegFile::UPred.per_lane());
    assert_eq!(RegFile::Reg.numbered(), Some((0, 254)));
    assert_eq!(RegFile::UReg.numbered(), Some((0, 62)));
    assert_eq!(RegFile::Pred.numbered(), Some((0, 6)));
    assert_eq!(RegFile::BReg.numbered(), None);
    assert!(!RegFile::BReg.per_lane());
    // Unwritten, a file is taken as shared by the warp.
    let spec = "__DefRegFile A<4>\n    A 0..14;\n__DefRegFile B<4> per-lane\n    B 0..14;\n__DefRegFile C<4> per-warp\n    C 0..14;\n";
    let model = isa_gen::Spec::from_texts([("files.isa", spec)])
        .check()
        .model
        .expect("a model");
    let lanes: Vec<bool> = ["A", "B", "C"]
        .iter()
        .map(
            |n| match &model.types.iter().find(|t| t.name == *n).unwrap().kind {
                isa_gen::model::TypeKind::RegFile(rf) => rf.per_lane,
                _ => unreachable!(),
            },
        )
        .collect();
    assert_eq!(lanes, [false, true, false]);
}
