//! The backend's facts over a small hand-written instruction set: two register
//! files, a guarded branch with a `.ABS` mode, an indirect call and return through a
//! register that may read 0, and an instruction with register operands of every
//! access (one whose count varies, an operand word of fixed registers).

extern crate std;
use std::string::ToString;
use std::vec::Vec;

use super::*;
use crate::testisa::*;

#[test]
fn fields_read_and_write_their_own_bits_only() {
    let f = field("x", 8, 4, None);
    let w = f.set(u128::MAX, 0b1010);
    assert_eq!(f.get(w), 0b1010);
    assert_eq!(w, !(0b0101u128 << 8));
    // Bits of the code past the field's width are dropped.
    assert_eq!(f.set(0, 0x1f), 0xf << 8);
    let whole = field("w", 0, 128, None);
    assert_eq!(whole.get(u128::MAX - 1), u128::MAX - 1);
    assert_eq!(whole.set(5, 7), 7);
    let top = field("t", 127, 1, None);
    assert_eq!(top.set(0, 1), 1 << 127);
    assert_eq!(top.get(1 << 127), 1);
    // Tables no generator writes: no bits, more than the word, past the word.
    let none = field("n", 8, 0, None);
    assert_eq!(none.get(u128::MAX), 0);
    assert_eq!(none.set(0x5500, 0xff), 0x5500);
    let wide = field("w", 0, 200, None);
    assert_eq!(wide.get(u128::MAX - 2), u128::MAX - 2);
    assert_eq!(wide.set(1, 6), 6);
    let past = field("p", 130, 4, None);
    assert_eq!(past.get(u128::MAX), 0);
    assert_eq!(past.set(0x77, 0xf), 0x77);
    // A field that runs past the word keeps the bits inside it.
    let over = field("o", 124, 8, None);
    assert_eq!(over.get(u128::MAX), 0xf);
    assert_eq!(over.set(0, 0xff), 0xf << 124);
}

#[test]
fn flow_names_round_trip_and_classify() {
    for f in Flow::ALL {
        assert_eq!(Flow::from_name(f.name()), Some(f));
    }
    assert_eq!(Flow::from_name("jump"), None);
    assert_eq!(Flow::default(), Flow::Next);
    let ends: Vec<Flow> = Flow::ALL
        .into_iter()
        .filter(|f| !f.falls_through())
        .collect();
    assert_eq!(
        ends.as_slice(),
        [
            Flow::Branch,
            Flow::IndirectBranch,
            Flow::Return,
            Flow::Exit,
            Flow::TrapReturn
        ]
    );
    let targets: Vec<Flow> = Flow::ALL.into_iter().filter(|f| f.has_target()).collect();
    assert_eq!(
        targets.as_slice(),
        [Flow::Branch, Flow::Call, Flow::Converge]
    );
}

#[test]
fn accesses_read_write_and_guard() {
    use Access::*;
    let all = [Read, Write, ReadWrite, CondWrite, ReadCondWrite];
    let reads = all.map(Access::reads);
    let writes = all.map(Access::writes);
    let cond = all.map(Access::is_conditional);
    assert_eq!(reads, [true, false, true, false, true]);
    assert_eq!(writes, [false, true, true, true, true]);
    assert_eq!(cond, [false, false, false, true, true]);
    assert_eq!(
        all.map(Access::guarded),
        [Read, CondWrite, ReadCondWrite, CondWrite, ReadCondWrite]
    );
    let names = all.map(Access::name);
    assert_eq!(
        names,
        [
            "read",
            "write",
            "read-write",
            "conditional write",
            "read, conditional write"
        ]
    );
}

#[test]
fn the_guard_and_the_conditions_make_a_branch_conditional() {
    let plain = word(&BRA, &[]);
    assert!(!is_guarded(&BRA, plain));
    assert!(!is_conditional(&BRA, plain));
    // A predicate other than `PT`, or `PT` negated.
    for w in [word(&BRA, &[(0, 3)]), word(&BRA, &[(1, 1)])] {
        assert!(is_guarded(&BRA, w));
        assert!(is_conditional(&BRA, w));
    }
    // A condition that is not the guard's.
    let cond = word(&BRA, &[(4, 2)]);
    assert!(!is_guarded(&BRA, cond));
    assert!(is_conditional(&BRA, cond));
    // A field that is no condition.
    let mode = word(&BRA, &[(3, 1)]);
    assert!(!is_conditional(&BRA, mode));
}

#[test]
fn indirect_flows_through_a_zero_register_are_direct() {
    let rz = word(&CALL, &[(2, 255)]);
    let r5 = word(&CALL, &[(2, 5)]);
    assert_eq!(flow(&CALL, rz), Flow::Call);
    assert_eq!(flow(&CALL, r5), Flow::IndirectCall);
    assert_eq!(direct_target(&CALL, rz), Some(0));
    assert_eq!(direct_target(&CALL, r5), None);
    assert_eq!(target_operand(&CALL, rz), Some(0));
    assert_eq!(target_operand(&CALL, r5), None);
    assert_eq!(flow(&RET, word(&RET, &[(2, 255)])), Flow::Branch);
    assert_eq!(flow(&RET, word(&RET, &[(2, 0)])), Flow::Return);
    // A direct flow keeps its kind and its own target.
    let b = word(&BRA, &[]);
    assert_eq!(flow(&BRA, b), Flow::Branch);
    assert_eq!(direct_target(&BRA, b), None);
    assert_eq!(target_operand(&BRA, b), Some(0));
    assert_eq!(flow(&ADD, word(&ADD, &[])), Flow::Next);
    assert_eq!(target_operand(&ADD, 0), None);
}

#[test]
fn addresses_are_relative_to_the_next_instruction_unless_absolute() {
    let fwd = word(&BRA, &[(2, 3)]);
    assert_eq!(address_is_absolute(&BRA, fwd, 0), Some(false));
    assert_eq!(address(&BRA, fwd, 0, 0x100), Some(0x100 + 16 + 12));
    // Signed: the top bit of the 24 extends.
    let back = word(&BRA, &[(2, 0xff_fffe)]);
    assert_eq!(address(&BRA, back, 0, 0x100), Some(0x100 + 16 - 8));
    let abs = word(&BRA, &[(2, 3), (3, 1)]);
    assert_eq!(address_is_absolute(&BRA, abs, 0), Some(true));
    assert_eq!(address(&BRA, abs, 0, 0x100), Some(12));
    // Unsigned: no sign.
    let call = word(&CALL, &[(3, 0xfff0)]);
    assert_eq!(address(&CALL, call, 0, 0x100), Some(0xfff0));
    assert_eq!(address_is_absolute(&CALL, call, 0), Some(true));
    // No such operand.
    assert_eq!(address(&BRA, fwd, 1, 0), None);
    assert_eq!(address_is_absolute(&BRA, fwd, 1), None);
}

#[test]
fn relocation_names_the_target_or_says_why_not() {
    let w = word(&BRA, &[(0, 2)]);
    for (at, target) in [(0x100, 0x200), (0x200, 0x100), (0x100, 0x110), (0, 0)] {
        let r = relocate(&BRA, w, at, 0, target).unwrap();
        assert_eq!(
            address(&BRA, r, 0, at),
            Some(target),
            "{at:#x} -> {target:#x}"
        );
        // Only the operand's field changed.
        assert_eq!(r & !(0xff_ffff << 32), w & !(0xff_ffff << 32));
    }
    assert_eq!(
        relocate(&BRA, w, 0x100, 0, 0x202),
        Err(TargetError::Misaligned(4))
    );
    // The 24-bit signed field counts 4 bytes from the next instruction: it reaches
    // -2^23 and 2^23 - 1 units.
    let next = 0x1000_0000u64 + 16;
    let lo = next - (1 << 25);
    let hi = next + ((1 << 25) - 4);
    assert!(relocate(&BRA, w, 0x1000_0000, 0, lo).is_ok());
    assert!(relocate(&BRA, w, 0x1000_0000, 0, hi).is_ok());
    assert_eq!(
        relocate(&BRA, w, 0x1000_0000, 0, lo - 4),
        Err(TargetError::OutOfRange)
    );
    assert_eq!(
        relocate(&BRA, w, 0x1000_0000, 0, hi + 4),
        Err(TargetError::OutOfRange)
    );
    // Absolute under `.ABS`.
    let abs = word(&BRA, &[(3, 1)]);
    let r = relocate(&BRA, abs, 0x5000, 0, 0x40).unwrap();
    assert_eq!(BRA.fields[2].get(r), 0x10);
    // An unsigned absolute field: 0..=0xffff.
    let c = word(&CALL, &[]);
    assert_eq!(
        CALL.fields[3].get(relocate(&CALL, c, 0x10, 0, 0xffff).unwrap()),
        0xffff
    );
    assert_eq!(
        relocate(&CALL, c, 0x10, 0, 0x1_0000),
        Err(TargetError::OutOfRange)
    );
    assert_eq!(
        relocate(&CALL, c, 0x10, 0, u64::MAX),
        Err(TargetError::OutOfRange)
    );
    assert_eq!(relocate(&BRA, w, 0, 1, 0), Err(TargetError::NoAddress));
    assert_eq!(relocate(&ADD, 0, 0, 0, 0), Err(TargetError::NoAddress));
}

/// The register operands of `w` as `(name, reg, count, access)`, with `rb` 64 bits
/// wide when `wide` (its `narrow` field, 6, set to 0), else 32.
fn operands(w: u128, wide: bool) -> [(&'static str, Reg, u16, Access); 6] {
    let w = ADD.fields[6].set(w, u128::from(!wide));
    let mut out = [("", Reg::R(0), 0, Access::Read); 6];
    let mut n = 0;
    for o in reg_operands::<Reg>(&ADD, w) {
        out[n] = (o.info.name, o.reg, o.count, o.access);
        n += 1;
    }
    assert_eq!(n, 6, "every operand of ADD");
    out
}

#[test]
fn register_operands_as_the_instance_uses_them() {
    let w = word(&ADD, &[(2, 4), (3, 6), (4, 8), (5, 1)]);
    assert_eq!(
        operands(w, true),
        [
            ("pg", Reg::P(7), 1, Access::Read),
            ("rd", Reg::R(4), 2, Access::Write),
            ("ra", Reg::R(6), 1, Access::ReadWrite),
            ("rb", Reg::R(8), 2, Access::Read),
            ("pq", Reg::P(1), 1, Access::Write),
            ("UPR", Reg::P(2), 3, Access::Read),
        ]
    );
    // A 32-bit `rb` covers one register.
    assert_eq!(operands(w, false)[3], ("rb", Reg::R(8), 1, Access::Read));
    // Under a guard that may be false, every write is conditional.
    let guarded = word(&ADD, &[(0, 2), (2, 4), (3, 6), (4, 8), (5, 1)]);
    let accesses = operands(guarded, true).map(|o| o.3);
    assert_eq!(
        accesses,
        [
            Access::Read,
            Access::CondWrite,
            Access::ReadCondWrite,
            Access::Read,
            Access::CondWrite,
            Access::Read
        ]
    );
    // A code that is no register of its file leaves the operand out.
    let bad = word(&ADD, &[(5, 9)]);
    let names: Vec<&str> = reg_operands::<Reg>(&ADD, bad)
        .map(|o| o.info.name)
        .collect();
    assert_eq!(names.as_slice(), ["pg", "rd", "ra", "rb", "UPR"]);
}

#[test]
fn operand_infos_say_fixed_and_tied() {
    let fixed: Vec<bool> = ADD.regs.iter().map(|r| r.is_fixed()).collect();
    let tied: Vec<bool> = ADD.regs.iter().map(|r| r.is_tied()).collect();
    assert_eq!(fixed, [false, false, false, false, false, true]);
    assert_eq!(tied, [false, false, true, false, false, false]);
}

#[test]
fn offsets_read_and_encode_at_every_width() {
    // Signed 8 bits in units of 4 bytes.
    assert_eq!(offset_of(0x7f, 2, 8, true), 0x1fc);
    assert_eq!(offset_of(0x80, 2, 8, true), (-0x200i64) as u64);
    assert_eq!(offset_of(0x80, 2, 8, false), 0x200);
    assert_eq!(offset_code(0x100, 0x100 + 0x1fc, 2, 8, true), Ok(0x7f));
    assert_eq!(
        offset_code(0x100, 0x100u64.wrapping_sub(0x200), 2, 8, true),
        Ok(0x80)
    );
    assert_eq!(
        offset_code(0x100, 0x100 + 0x200, 2, 8, true),
        Err(TargetError::OutOfRange)
    );
    assert_eq!(
        offset_code(0x100, 0x100u64.wrapping_sub(0x204), 2, 8, true),
        Err(TargetError::OutOfRange)
    );
    assert_eq!(
        offset_code(0x100, 0x0ff, 0, 8, false),
        Err(TargetError::OutOfRange)
    );
    assert_eq!(offset_code(0, 0x3fc, 2, 8, false), Ok(0xff));
    assert_eq!(
        offset_code(0, 0x400, 2, 8, false),
        Err(TargetError::OutOfRange)
    );
    // A field of no bits reads as its code, and names only the distance 0.
    assert_eq!(offset_of(5, 0, 0, true), 5);
    assert_eq!(offset_code(0x10, 0x10, 0, 0, true), Ok(0));
    assert_eq!(
        offset_code(0x10, 0x0f, 0, 0, true),
        Err(TargetError::OutOfRange)
    );
    assert_eq!(
        offset_code(0x10, 0x11, 0, 0, false),
        Err(TargetError::OutOfRange)
    );
    // A unit of 2^64 bytes or more: every offset is 0 modulo 2^64.
    assert_eq!(offset_of(3, 64, 8, false), 0);
    assert_eq!(offset_of(3, 63, 8, false), 1 << 63);
    // A field of 128 bits: any distance, sign-extended from bit 127.
    assert_eq!(offset_of(u128::MAX, 0, 128, true), u64::MAX);
    assert_eq!(offset_of(u128::MAX, 4, 128, true), u64::MAX << 4);
    assert_eq!(offset_code(16, 0, 0, 128, true), Ok(u128::MAX - 15));
    assert_eq!(
        offset_code(0, u64::MAX, 0, 128, false),
        Err(TargetError::OutOfRange)
    );
    assert_eq!(
        offset_code(0, i64::MAX as u64, 0, 127, false),
        Ok(i64::MAX as u128)
    );
    assert_eq!(offset_code(0, 1 << 62, 0, 64, true), Ok(1 << 62));
    // Units past 2^126 bytes: only the distance 0.
    assert_eq!(offset_code(0x40, 0x40, 127, 8, true), Ok(0));
    assert_eq!(
        offset_code(0x40, 0x80, 127, 8, true),
        Err(TargetError::Misaligned(u64::MAX))
    );
    assert_eq!(
        offset_code(0, 1 << 20, 64, 8, true),
        Err(TargetError::Misaligned(u64::MAX))
    );
    assert_eq!(offset_code(0, 0x80, 4, 8, true), Ok(8));
    assert_eq!(
        offset_code(0, 0x88, 4, 8, true),
        Err(TargetError::Misaligned(16))
    );
}

#[test]
fn an_operand_covers_its_registers_up_to_the_numbered_end() {
    let info = &ADD.regs[1];
    let op = |reg, count| RegOperand {
        info,
        reg,
        count,
        access: Access::Write,
    };
    let regs = |o: RegOperand<Reg>| {
        let list: Vec<Reg> = o.regs().collect();
        list
    };
    assert_eq!(regs(op(Reg::R(4), 2)).as_slice(), [Reg::R(4), Reg::R(5)]);
    assert_eq!(
        regs(op(Reg::R(253), 4)).as_slice(),
        [Reg::R(253), Reg::R(254)]
    );
    assert_eq!(regs(op(Reg::R(255), 4)).as_slice(), [Reg::R(255)]);
    assert_eq!(regs(op(Reg::R(9), 1)).as_slice(), [Reg::R(9)]);
}

#[test]
fn map_regs_rewrites_register_fields_and_refuses_what_cannot_be() {
    let w = word(&ADD, &[(2, 4), (3, 6), (4, 8), (5, 1)]);
    // Nothing changes: the same word, no operand named.
    assert_eq!(map_regs::<Reg>(&ADD, w, |o| o.reg), Ok((w, "")));
    // Every R operand moved by 10; the predicate and the word unchanged.
    let moved = |o: &RegOperand<Reg>| match o.reg {
        Reg::R(c) => Reg::R(c + 10),
        p => p,
    };
    let (out, last) = map_regs::<Reg>(&ADD, w, moved).unwrap();
    assert_eq!(last, "rb");
    assert_eq!(out, word(&ADD, &[(2, 14), (3, 16), (4, 18), (5, 1)]));
    // A register of the other file.
    let other = |o: &RegOperand<Reg>| {
        if o.info.name == "ra" {
            Reg::P(1)
        } else {
            o.reg
        }
    };
    assert_eq!(
        map_regs::<Reg>(&ADD, w, other),
        Err(RegError::WrongFile("ra"))
    );
    // The operand word's fixed registers.
    let fixed = |o: &RegOperand<Reg>| {
        if o.info.name == "UPR" {
            Reg::P(3)
        } else {
            o.reg
        }
    };
    assert_eq!(map_regs::<Reg>(&ADD, w, fixed), Err(RegError::Fixed("UPR")));
    // A 64-bit `rb` at `R254` would run into `RZ`; `RZ` itself is fine, and so is
    // `R254` when `rb` is 32 bits wide.
    let to = |r| {
        move |o: &RegOperand<Reg>| {
            if o.info.name == "rb" {
                Reg::R(r)
            } else {
                o.reg
            }
        }
    };
    assert_eq!(
        map_regs::<Reg>(&ADD, w, to(254)),
        Err(RegError::Range("rb"))
    );
    assert_eq!(
        map_regs::<Reg>(&ADD, w, to(253)).map(|r| ADD.fields[4].get(r.0)),
        Ok(253)
    );
    assert_eq!(
        map_regs::<Reg>(&ADD, w, to(255)).map(|r| ADD.fields[4].get(r.0)),
        Ok(255)
    );
    // A named register that is not numbered, for an operand of one register.
    let p6 = |o: &RegOperand<Reg>| {
        if o.info.name == "pq" {
            Reg::P(6)
        } else {
            o.reg
        }
    };
    assert_eq!(
        map_regs::<Reg>(&ADD, w, p6).map(|r| ADD.fields[5].get(r.0)),
        Ok(6)
    );
    let narrow = ADD.fields[6].set(w, 1);
    assert_eq!(
        map_regs::<Reg>(&ADD, narrow, to(254)).map(|r| ADD.fields[4].get(r.0)),
        Ok(254)
    );
}

#[test]
fn errors_say_which_operand() {
    assert_eq!(
        RegError::WrongFile("ra").to_string(),
        "operand `ra` takes a register of another file"
    );
    assert_eq!(
        RegError::Fixed("UPR").to_string(),
        "operand `UPR` stands for fixed registers"
    );
    assert_eq!(
        RegError::Range("rb").to_string(),
        "operand `rb` covers several registers: the first leaves too few after it"
    );
    assert_eq!(
        RegError::Undefined("rd").to_string(),
        "operand `rd`: the new register makes an undefined instruction word"
    );
    assert_eq!(
        TargetError::Misaligned(16).to_string(),
        "the target is not a multiple of 0x10 bytes away"
    );
    assert_eq!(
        TargetError::NoAddress.to_string(),
        "the instruction has no such address operand"
    );
    assert_eq!(
        TargetError::OutOfRange.to_string(),
        "the target does not fit the operand"
    );
    assert_eq!(Flow::IndirectBranch.to_string(), "indirect-branch");
}

#[test]
fn an_instruction_type_answers_through_the_same_functions() {
    for (op, codes) in [
        (1u8, &[(2usize, 255u128)][..]),
        (1, &[(2, 5)]),
        (2, &[(2, 255)]),
        (0, &[(0, 3), (2, 7)]),
        (0, &[(3, 1), (2, 7)]),
        (3, &[(0, 2), (2, 4), (3, 6), (4, 8), (5, 1)]),
    ] {
        let i = insn(op, codes);
        let (info, w) = (i.info(), i.word);
        assert_eq!(i.flow(), flow(info, w), "{i:?}");
        assert_eq!(i.is_conditional(), is_conditional(info, w), "{i:?}");
        assert_eq!(i.target_operand(), target_operand(info, w), "{i:?}");
        assert_eq!(i.addresses(), info.addresses, "{i:?}");
        assert_eq!(
            i.address_is_absolute(0),
            address_is_absolute(info, w, 0),
            "{i:?}"
        );
        assert_eq!(i.address(0, 0x100), address(info, w, 0, 0x100), "{i:?}");
        let ops: Vec<RegOperand<Reg>> = i.reg_operands().collect();
        let want: Vec<RegOperand<Reg>> = reg_operands(info, w).collect();
        assert_eq!(ops, want, "{i:?}");
    }
    // The flows differ by instance: the free functions are not all one answer.
    assert_eq!(insn(1, &[(2, 255)]).flow(), Flow::Call);
    assert_eq!(insn(1, &[(2, 5)]).flow(), Flow::IndirectCall);
    assert!(insn(0, &[(0, 3)]).is_conditional());
    assert!(!insn(0, &[]).is_conditional());
    assert_eq!(insn(3, &[]).reg_operands().count(), 6);
}

#[test]
fn an_instruction_type_changes_only_into_words_that_decode() {
    // An address set, and read back.
    let mut b = insn(0, &[]);
    assert_eq!(b.set_address(0, 0x100, 0x80), Ok(()));
    assert_eq!(b.address(0, 0x100), Some(0x80));
    assert_eq!(b.op, 0);
    // A target that does not fit changes nothing.
    let before = b;
    assert_eq!(b.set_address(0, 0, 1 << 40), Err(TargetError::OutOfRange));
    assert_eq!(b, before);
    // A word that does not decode (`cond` 3) is refused, the instruction unchanged.
    let mut c = insn(0, &[(4, 3)]);
    let before = c;
    assert_eq!(c.set_address(0, 0, 0x40), Err(TargetError::OutOfRange));
    assert_eq!(c, before);
    // Registers rewritten.
    let mut a = insn(3, &[(2, 4), (3, 6), (4, 8), (5, 1)]);
    let moved = |o: &RegOperand<Reg>| match o.reg {
        Reg::R(c) => Reg::R(c + 10),
        p => p,
    };
    assert_eq!(a.map_regs(moved), Ok(()));
    assert_eq!(ADD.fields[2].get(a.word), 14);
    assert_eq!(ADD.fields[4].get(a.word), 18);
    // Nothing to change: the same instruction.
    let same = a;
    assert_eq!(a.map_regs(|o| o.reg), Ok(()));
    assert_eq!(a, same);
    // A rewrite that does not decode names the last operand changed.
    let mut p = insn(3, &[(5, 1)]);
    let before = p;
    let to_p8 = |o: &RegOperand<Reg>| {
        if o.info.name == "pq" {
            Reg::P(8)
        } else {
            o.reg
        }
    };
    assert_eq!(p.map_regs(to_p8), Err(RegError::Undefined("pq")));
    assert_eq!(p, before);
    // An error of the rewrite itself.
    let other = |o: &RegOperand<Reg>| {
        if o.info.name == "ra" {
            Reg::P(1)
        } else {
            o.reg
        }
    };
    assert_eq!(p.map_regs(other), Err(RegError::WrongFile("ra")));
}

#[test]
fn bit_widths_are_the_spec_expressions_over_the_word() {
    let w = word(&ADD, &[(2, 4), (4, 8)]);
    // `rb`: 64 - narrow * 32; `rd`: fixed at 64; the others: none given.
    assert_eq!(bitwidth(&ADD, w, "rb"), Some(64));
    assert_eq!(bitwidth(&ADD, ADD.fields[6].set(w, 1), "rb"), Some(32));
    assert_eq!(bitwidth(&ADD, w, "rd"), Some(64));
    assert_eq!(bitwidth(&ADD, w, "ra"), None);
    assert_eq!(bitwidth(&ADD, w, "narrow"), None);
    assert_eq!(bitwidth(&ADD, w, "no_such_operand"), None);
    assert_eq!(field_bitwidth(&ADD, w, 4), Some(64));
    assert_eq!(field_bitwidth(&ADD, ADD.fields[6].set(w, 1), 4), Some(32));
    assert_eq!(field_bitwidth(&ADD, w, 2), Some(64));
    assert_eq!(field_bitwidth(&ADD, w, 3), None);
    assert_eq!(field_bitwidth(&ADD, w, 200), None);
    // The provided method is the same answer.
    let i = Insn { op: 3, word: w };
    assert_eq!(i.bitwidth("rb"), Some(64));
    assert_eq!(i.bitwidth("ra"), None);
}

#[test]
fn bit_widths_clamp_and_read_fields_out_of_the_table_as_zero() {
    use crate::expr::{BinOp, Op};
    static FIELDS: [crate::info::FieldInfo; 2] = [field("a", 0, 8, None), field("b", 8, 8, None)];
    static WIDTHS: [BitwidthInfo; 3] = [
        // a - 100: negative for small codes.
        BitwidthInfo {
            field: 0,
            expr: &[Op::Field(0), Op::Int(100), Op::Bin(BinOp::Sub)],
        },
        // b * 2^40: past `u32::MAX`.
        BitwidthInfo {
            field: 1,
            expr: &[Op::Field(1), Op::Int(1 << 40), Op::Bin(BinOp::Mul)],
        },
        // A width of a field the table does not have, reading another such field.
        BitwidthInfo {
            field: 9,
            expr: &[Op::Field(7), Op::Int(5), Op::Bin(BinOp::Add)],
        },
    ];
    static OP: OpcodeInfo<File> = OpcodeInfo {
        bitwidths: &WIDTHS,
        ..info(Flow::Next, &FIELDS, &[], &[], None, None, &[])
    };
    let w = FIELDS[1].set(FIELDS[0].set(0, 3), 2);
    assert_eq!(bitwidth(&OP, w, "a"), Some(0));
    assert_eq!(bitwidth(&OP, FIELDS[0].set(w, 130), "a"), Some(30));
    assert_eq!(bitwidth(&OP, w, "b"), Some(u32::MAX));
    assert_eq!(bitwidth(&OP, FIELDS[1].set(w, 0), "b"), Some(0));
    assert_eq!(field_bitwidth(&OP, w, 9), Some(5));
}

#[test]
fn reads_and_writes_list_each_register_of_each_operand_without_constants() {
    // rd = R4 (64 bits), ra = R6 (read and written), rb = R8 (64 bits), pq = P1, the
    // word `UPR` (P2..P4), the guard at `PT` (a constant).
    let w = word(&ADD, &[(2, 4), (3, 6), (4, 8), (5, 1)]);
    let reads: Vec<Reg> = backend_reads::<8>(w).collect();
    assert_eq!(
        reads.as_slice(),
        [
            Reg::R(6),
            Reg::R(8),
            Reg::R(9),
            Reg::P(2),
            Reg::P(3),
            Reg::P(4)
        ]
    );
    let written: Vec<Reg> = writes::<Reg, 8>(&ADD, w).collect();
    assert_eq!(
        written.as_slice(),
        [Reg::R(4), Reg::R(5), Reg::R(6), Reg::P(1)]
    );
    // A 32-bit `rb`, a guard that may be false (read; the writes stay listed), and
    // `RZ` for `rd` (a constant: no state).
    let w2 = ADD.fields[6].set(word(&ADD, &[(0, 2), (2, 255), (3, 6), (4, 8), (5, 1)]), 1);
    let reads: Vec<Reg> = backend_reads::<8>(w2).collect();
    assert_eq!(
        reads.as_slice(),
        [
            Reg::P(2),
            Reg::R(6),
            Reg::R(8),
            Reg::P(2),
            Reg::P(3),
            Reg::P(4)
        ]
    );
    let written: Vec<Reg> = writes::<Reg, 8>(&ADD, w2).collect();
    assert_eq!(written.as_slice(), [Reg::R(6), Reg::P(1)]);
    // An exact size, counting down as it is read.
    let mut r = backend_reads::<8>(w);
    assert_eq!(r.len(), 6);
    r.next();
    assert_eq!(r.size_hint(), (5, Some(5)));
    assert_eq!(r.clone().count(), 5);
    // Past its capacity, registers are dropped: never a panic.
    let few: Vec<Reg> = backend_reads::<2>(w).collect();
    assert_eq!(few.as_slice(), [Reg::R(6), Reg::R(8)]);
    assert_eq!(backend_reads::<0>(w).count(), 0);
}

/// [`reads`] of `ADD`'s word `w`, into `N` places.
fn backend_reads<const N: usize>(w: u128) -> Regs<Reg, N> {
    reads(&ADD, w)
}

#[test]
fn an_operand_word_covers_the_codes_that_name_registers() {
    // `P4`..`P7`: `P5` is the last numbered predicate, `P6` is named (not numbered)
    // and `PT` is a constant; code 8 is undefined.
    let info = RegOperandInfo {
        fixed_first: 4,
        max_count: 5,
        ..ADD.regs[5]
    };
    let info: &'static RegOperandInfo<File> = std::boxed::Box::leak(std::boxed::Box::new(info));
    let op = RegOperand {
        info,
        reg: Reg::P(4),
        count: 5,
        access: Access::Read,
    };
    let regs: Vec<Reg> = op.regs().collect();
    assert_eq!(
        regs.as_slice(),
        [Reg::P(4), Reg::P(5), Reg::P(6), Reg::P(7)]
    );
}

#[test]
fn a_width_spans_its_32_bit_registers_read_as_1_to_1024_bits() {
    use crate::info::{registers, MAX_REGISTERS};
    let cases = [
        (i128::MIN, 1),
        (-5, 1),
        (0, 1),
        (1, 1),
        (32, 1),
        (33, 2),
        (64, 2),
        (65, 3),
        (128, 4),
        (1023, 32),
        (1024, 32),
        (1025, 32),
        (i128::MAX, 32),
    ];
    for (bits, n) in cases {
        assert_eq!(registers(bits), n, "{bits} bits");
    }
    assert_eq!(MAX_REGISTERS, 32);
    // The printer's name for it is the same function.
    assert_eq!(crate::print::registers(96), 3);
}

#[test]
fn an_operand_counts_past_a_byte_of_registers() {
    // A fixed operand over R0..R299: R0..R254 and `RZ` (a constant, for liveness to
    // skip) are its registers; codes past 255 are none of `R`'s.
    let info = RegOperandInfo {
        fixed_first: 0,
        max_count: 300,
        ..ADD.regs[5]
    };
    let info = RegOperandInfo {
        file: File::R,
        ..info
    };
    let info: &'static RegOperandInfo<File> = std::boxed::Box::leak(std::boxed::Box::new(info));
    let op = RegOperand {
        info,
        reg: Reg::R(0),
        count: 300,
        access: Access::Read,
    };
    assert_eq!(op.regs().count(), 256);
    assert_eq!(op.regs().last(), Some(Reg::R(255)));
}
