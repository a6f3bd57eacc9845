//! The code buffer over the crate's test instruction set (`crate::testisa`): labels
//! forward and backward, known addresses, symbols and their relocations, linking,
//! rebasing, clones, names, virtual registers and the listing, with every error.

extern crate std;
use std::string::{String, ToString};
use std::vec::Vec;

use super::*;
use crate::backend::{RegError, Register, SpecInstruction};
use crate::testisa::*;

type Buf = CodeBuffer<Insn>;

/// A branch (relative unless `abs`, 24 bits of 4-byte units).
fn bra(abs: bool) -> Insn {
    insn(0, &[(3, u128::from(abs))])
}

/// A call through `RZ` to an absolute 16-bit address.
fn call() -> Insn {
    insn(1, &[(2, 255)])
}

fn add() -> Insn {
    insn(3, &[(2, 4), (3, 6), (4, 8), (5, 1)])
}

fn mov(rd: u128, ra: u128) -> Insn {
    insn(4, &[(2, rd), (3, ra)])
}

#[test]
fn labels_resolve_forward_and_backward_wherever_the_code_is_placed() {
    let mut b = Buf::new(0x100).unwrap();
    assert_eq!(
        (b.base(), b.len(), b.is_empty(), b.here()),
        (0x100, 0, true, 0x100)
    );
    let top = b.named_label("top").unwrap();
    let end = b.new_label();
    b.bind(top).unwrap();
    assert_eq!(b.label_addr(top), Some(0x100));
    assert_eq!(b.label_addr(end), None);
    assert_eq!(b.push(add()), 0x100);
    assert_eq!(b.push_to(bra(false), end).unwrap(), 0x110);
    assert_eq!(b.push_to(bra(false), top).unwrap(), 0x120);
    b.bind(end).unwrap();
    assert_eq!((b.len(), b.is_empty(), b.here()), (3, false, 0x130));
    assert_eq!(b.label_name(top), Some("top"));
    assert_eq!(b.label_name(end), None);
    let again = b.clone().finish().unwrap();
    let code = b.finish_at(0x1000).unwrap();
    assert_eq!(again.insts()[1].address(0, 0x110), Some(0x130));
    assert_eq!(again.insts()[2].address(0, 0x120), Some(0x100));
    // Placed elsewhere, the same labels.
    assert_eq!(code.base(), 0x1000);
    assert_eq!(code.addr_of(2), 0x1020);
    assert_eq!(code.insts()[1].address(0, 0x1010), Some(0x1030));
    assert_eq!(code.insts()[2].address(0, 0x1020), Some(0x1000));
    assert_eq!(code.label_addr(top), Some(0x1000));
    assert_eq!(code.label_addr(end), Some(0x1030));
    assert_eq!(code.label_name(top), Some("top"));
    let labels: Vec<(Label, u64)> = code.labels().collect();
    assert_eq!(labels, [(top, 0x1000), (end, 0x1030)]);
    let refs: Vec<(usize, u8, Label)> = code.label_refs().collect();
    assert_eq!(refs, [(1, 0, end), (2, 0, top)]);
    assert_eq!(code.len(), 3);
    assert!(!code.is_empty());
    let words: Vec<u128> = code.words().collect();
    assert_eq!(
        words,
        code.insts().iter().map(|i| i.word).collect::<Vec<_>>()
    );
    assert!(!code.is_empty());
    assert!(Buf::new(0).unwrap().finish().unwrap().is_empty());
    let bytes = code.to_bytes();
    assert_eq!(bytes.len(), 48);
    assert_eq!(bytes[16..32], words[1].to_le_bytes());
}

#[test]
fn rebasing_moves_labels_and_keeps_known_addresses() {
    let mut b = Buf::new(0).unwrap();
    let l = b.new_label();
    b.push_to(bra(false), l).unwrap();
    b.push_with(bra(false), 0, Target::Address(0x4000)).unwrap();
    b.bind(l).unwrap();
    b.push(add());
    let mut code = b.finish().unwrap();
    code.rebase(0x800).unwrap();
    assert_eq!(code.base(), 0x800);
    assert_eq!(code.insts()[0].address(0, 0x800), Some(0x820));
    assert_eq!(code.insts()[1].address(0, 0x810), Some(0x4000));
    // A base that cannot hold the code changes nothing.
    let before = code.clone();
    assert_eq!(code.rebase(0x808), Err(BufferError::MisalignedBase(0x808)));
    let len = code.len();
    assert_eq!(
        code.rebase(u64::MAX - 0x1f),
        Err(BufferError::Overflow {
            base: u64::MAX - 0x1f,
            len
        })
    );
    assert_eq!(code, before);
    // Exactly up to the end of the address space is fine.
    let mut short = Buf::new(0).unwrap();
    short.push(add());
    assert!(short.finish_at(u64::MAX - 0xf).is_ok());
}

#[test]
fn placing_code_says_what_is_wrong() {
    assert_eq!(Buf::new(8).err(), Some(BufferError::MisalignedBase(8)));
    let mut b = Buf::new(0).unwrap();
    let l = b.named_label("l").unwrap();
    b.bind(l).unwrap();
    let e = b.bind(l).unwrap_err();
    assert_eq!(
        e,
        BufferError::BoundTwice {
            label: l,
            name: Some("l".into()),
            at: 0
        }
    );
    assert_eq!(e.to_string(), "label `l` is bound twice (first to 0x0)");
    // No address operand, or none the flow names among several.
    assert_eq!(b.push_to(add(), l), Err(BufferError::NoAddress(3)));
    assert_eq!(b.push_with(add(), 0, l), Err(BufferError::NoAddress(3)));
    assert_eq!(
        b.push_with(bra(false), 1, l),
        Err(BufferError::NoAddress(0))
    );
    assert_eq!(
        b.push_with(bra(false), 256, l),
        Err(BufferError::NoAddress(0))
    );
    // A known address out of reach, at push time.
    let far = b.push_with(call(), 0, Target::Address(0x1_0000));
    assert_eq!(
        far,
        Err(BufferError::Target {
            at: 0,
            error: TargetError::OutOfRange
        })
    );
    assert_eq!(b.len(), 0, "nothing pushed on error");
    // A label never bound, with the address that used it.
    let never = b.new_label();
    b.push(add());
    b.push_to(bra(false), never).unwrap();
    let e = b.clone().finish().unwrap_err();
    assert_eq!(
        e,
        BufferError::Unbound {
            label: never,
            name: None,
            at: 0x10
        }
    );
    assert_eq!(e.to_string(), "label #1 is never bound (used at 0x10)");
    // A label bound past the reach of a relative operand: placed far away, it fits
    // neither.
    let mut f = Buf::new(0).unwrap();
    let later = f.new_label();
    f.push_to(bra(false), later).unwrap();
    for _ in 0..4 {
        f.push(add());
    }
    f.bind(later).unwrap();
    assert!(f.clone().finish().is_ok());
    let mut g = Buf::new(0).unwrap();
    g.push_with(bra(false), 0, Target::Address(0x2000_0000))
        .unwrap_err();
    let mut h = Buf::new(0).unwrap();
    h.push_with(bra(false), 0, Target::Address(0x1000)).unwrap();
    // The same known address from far away does not fit.
    assert_eq!(
        h.finish_at(0x4000_0000).unwrap_err(),
        BufferError::Target {
            at: 0x4000_0000,
            error: TargetError::OutOfRange
        }
    );
}

#[test]
fn labels_and_symbols_belong_to_their_buffer_and_its_clones() {
    let mut a = Buf::new(0).unwrap();
    let mut other = Buf::new(0).unwrap();
    let old = a.new_label();
    let sym = a.symbol("ext").unwrap();
    let mut c = a.clone();
    let new_in_a = a.new_label();
    let new_in_c = c.new_label();
    assert_eq!(old.index(), 0);
    assert_eq!(new_in_a.index(), 1);
    assert_eq!(new_in_c.index(), 1);
    // The clone takes what was made before it, and nothing after.
    assert!(c.bind(old).is_ok());
    assert_eq!(c.bind(new_in_a), Err(BufferError::ForeignLabel(new_in_a)));
    assert_eq!(a.bind(new_in_c), Err(BufferError::ForeignLabel(new_in_c)));
    assert_eq!(other.bind(old), Err(BufferError::ForeignLabel(old)));
    assert_eq!(
        other.push_to(call(), sym),
        Err(BufferError::ForeignSymbol(sym))
    );
    assert!(c.push_to(call(), sym).is_ok());
    assert_eq!(
        BufferError::<Insn>::ForeignLabel(old).to_string(),
        "label #0 belongs to another buffer"
    );
    assert_eq!(
        BufferError::<Insn>::ForeignSymbol(sym).to_string(),
        "symbol #0 belongs to another buffer"
    );
    // The clone's code names the symbol as its own, and a label of the first buffer
    // made before the clone.
    c.bind(new_in_c).unwrap();
    let code = c.finish().unwrap();
    assert_eq!(code.symbol_name(sym), Some("ext"));
    assert_eq!(code.label_addr(old), Some(0));
    assert_eq!(code.label_addr(new_in_a), None);
    let sym_other = other.symbol("ext").unwrap();
    assert_eq!(code.symbol_name(sym_other), None);
    let labels: Vec<Label> = code.labels().map(|l| l.0).collect();
    assert_eq!(labels, [old, new_in_c]);
}

#[test]
fn names_read_back_and_are_given_once() {
    let mut b = Buf::new(0).unwrap();
    for bad in ["", "1a", "a-b", "a b", "é"] {
        assert_eq!(
            b.named_label(bad),
            Err(BufferError::InvalidName(bad.into()))
        );
        assert_eq!(b.symbol(bad), Err(BufferError::InvalidName(bad.into())));
    }
    for good in ["a", "_a1", ".L$x", "A.b_c$9"] {
        assert!(b.named_label(good).is_ok(), "{good}");
    }
    assert_eq!(b.named_label("a"), Err(BufferError::NameTaken("a".into())));
    assert_eq!(b.symbol("a"), Err(BufferError::NameTaken("a".into())));
    let s = b.symbol("f").unwrap();
    assert_eq!(b.symbol("f"), Ok(s), "the same symbol for the same name");
    assert_eq!(b.named_label("f"), Err(BufferError::NameTaken("f".into())));
    let t = b.symbol("g").unwrap();
    assert_eq!((s.index(), t.index()), (0, 1));
    assert_eq!(
        BufferError::<Insn>::InvalidName("1a".into()).to_string(),
        "`1a` is no label name: use ASCII letters, digits, `_`, `.`, `$`, not first a digit"
    );
    assert_eq!(
        BufferError::<Insn>::NameTaken("a".into()).to_string(),
        "the name `a` is taken by a label"
    );
}

#[test]
fn symbols_become_relocations_until_linked() {
    let mut b = Buf::new(0x40).unwrap();
    let f = b.symbol("f").unwrap();
    let g = b.symbol("g").unwrap();
    b.push(add());
    b.push_to(insn(1, &[(2, 255), (3, 0x1234)]), Target::Symbol(f, 0x20))
        .unwrap();
    b.push_to(bra(false), g).unwrap();
    let mut code = b.finish().unwrap();
    // The operand holds 0 until linked.
    assert_eq!(CALL.fields[3].get(code.insts()[1].word), 0);
    let relocs = code.relocs().to_vec();
    assert_eq!(
        relocs,
        [
            Reloc {
                offset: 0x10,
                operand: 0,
                kind: RelocKind::Absolute,
                symbol: f,
                addend: 0x20
            },
            Reloc {
                offset: 0x20,
                operand: 0,
                kind: RelocKind::Relative,
                symbol: g,
                addend: 0
            },
        ]
    );
    assert_eq!(code.symbols(), ["f", "g"]);
    // An unknown symbol changes nothing.
    let before = code.clone();
    let e = code.link(|s| (s == "f").then_some(0x100)).unwrap_err();
    assert_eq!(e, LinkError::Undefined("g".into()));
    assert_eq!(e.to_string(), "undefined symbol `g`");
    assert_eq!(code, before);
    // A symbol out of reach changes nothing either.
    let e = code
        .link(|s| Some(if s == "f" { 0x1_0000 } else { 0x200 }))
        .unwrap_err();
    assert_eq!(
        e,
        LinkError::Target {
            at: 0x50,
            symbol: "f".into(),
            error: TargetError::OutOfRange
        }
    );
    assert_eq!(
        e.to_string(),
        "instruction at 0x50, relocation to `f`: the target does not fit the operand"
    );
    assert_eq!(code, before);
    code.link(|s| Some(if s == "f" { 0x100 } else { 0x200 }))
        .unwrap();
    assert!(code.relocs().is_empty());
    assert_eq!(code.insts()[1].address(0, 0x50), Some(0x120));
    assert_eq!(code.insts()[2].address(0, 0x60), Some(0x200));
    // Instructions rewritten in place stay placed.
    code.insts_mut()[0] = mov(1, 2);
    assert_eq!(code.insts()[0], mov(1, 2));
    // Linked targets stay where they are when the code moves.
    code.rebase(0x1000).unwrap();
    assert_eq!(code.insts()[2].address(0, 0x1020), Some(0x200));
}

#[test]
fn relocation_kinds_have_their_elf_types() {
    assert_eq!(RelocKind::Relative.elf_name(), "R_ISA_ADDR_REL");
    assert_eq!(RelocKind::Absolute.elf_name(), "R_ISA_ADDR_ABS");
    for k in [0u8, 1, 7, 255] {
        for kind in [RelocKind::Relative, RelocKind::Absolute] {
            let t = kind.elf_type(k);
            assert_eq!(RelocKind::from_elf_type(t), Some((kind, k)));
        }
    }
    assert_eq!(RelocKind::Relative.elf_type(0), 1);
    assert_eq!(RelocKind::Absolute.elf_type(0), 2);
    assert_eq!(RelocKind::Absolute.elf_type(3), 8);
    assert_eq!(RelocKind::from_elf_type(0), None);
    assert_eq!(
        RelocKind::from_elf_type(512),
        Some((RelocKind::Absolute, 255))
    );
    assert_eq!(RelocKind::from_elf_type(513), None);
    assert_eq!(RelocKind::from_elf_type(3), Some((RelocKind::Relative, 1)));
    assert_eq!(RelocKind::from_elf_type(4), Some((RelocKind::Absolute, 1)));
    assert_eq!(
        Target::from(Symbol {
            buffer: 0,
            index: 3
        }),
        Target::Symbol(
            Symbol {
                buffer: 0,
                index: 3
            },
            0
        )
    );
}

#[test]
fn a_listing_names_labels_symbols_and_relocations() {
    let mut b = Buf::new(0x100).unwrap();
    let f = b.symbol("f").unwrap();
    let top = b.named_label("top").unwrap();
    let skip = b.named_label("skip").unwrap();
    let plain = b.new_label();
    b.bind(top).unwrap();
    b.push_to(bra(false), skip).unwrap();
    b.push_to(call(), Target::Symbol(f, -0x10)).unwrap();
    b.bind(skip).unwrap();
    b.bind(plain).unwrap();
    b.push_to(bra(false), top).unwrap();
    b.push_to(bra(false), plain).unwrap();
    let end = b.named_label("end").unwrap();
    b.bind(end).unwrap();
    let code = b.finish().unwrap();
    let want = "\
.extern f
top:
/*0100*/  BRA `(skip) ;
/*0110*/  CALL `(f-0x10) ;  // R_ISA_ADDR_ABS f-0x10
skip:
/*0120*/  BRA `(top) ;
/*0130*/  BRA `(skip) ;
end:
";
    assert_eq!(code.listing(), want);
    // Names given for addresses come first.
    let mut out = String::new();
    let names = |a: u64| (a == 0x120).then_some("here");
    let o = crate::print::FormatOptions {
        symbols: Some(&names),
        ..crate::print::FormatOptions::new()
    };
    code.write_asm_with(&mut out, &o).unwrap();
    assert!(out.contains("here:\nskip:\n/*0120*/"), "{out}");
    assert!(out.contains("/*0130*/  BRA `(here) ;"), "{out}");
}

#[test]
fn addends_print_signed() {
    let mut t = String::new();
    listing::write_addend(&mut t, 0).unwrap();
    listing::write_addend(&mut t, 0x20).unwrap();
    listing::write_addend(&mut t, -0x10).unwrap();
    listing::write_addend(&mut t, i64::MIN).unwrap();
    assert_eq!(t, "+0x20-0x10-0x8000000000000000");
}

#[test]
fn virtual_registers_are_checked_where_they_stand() {
    let mut b = Buf::new(0).unwrap();
    assert_eq!(b.vreg(File::R, 0), Err(AllocError::Width(File::R, 0)));
    assert_eq!(b.vreg(File::P, 7), Err(AllocError::Width(File::P, 7)));
    let v = b.vreg(File::R, 2).unwrap();
    let p = b.vreg(File::P, 6).unwrap();
    assert_eq!(
        (v.file(), v.index(), v.width(), v.first(), v.count()),
        (File::R, 0, 2, 0, 2)
    );
    assert_eq!(p.index(), 1);
    assert_eq!(v.to_string(), "%Reg0");
    let hi = v.part(1, 1).unwrap();
    assert_eq!((hi.first(), hi.count(), hi.whole().first()), (1, 1, 0));
    assert_eq!(hi.to_string(), "%Reg0[1:1]");
    // A value of another type in a hole is put in its place.
    let mut slot = 0u32;
    assert_eq!(Hole::<u32, File>::fill(7u32, &mut slot), None);
    assert_eq!(slot, 7);
    let lo = v.part(0, 1).unwrap();
    assert_eq!(lo.to_string(), "%Reg0[0:0]");
    assert_eq!(v.part(1, 2), None);
    assert_eq!(v.part(0, 0), None);
    assert_eq!(lo.whole(), v);
    let at = b.push(add());
    // `rd` takes a pair, `ra` one register.
    assert!(b.set_virtual(at, "rd", v).is_ok());
    assert!(b.has_virtual());
    assert_eq!(
        b.set_virtual(at, "ra", v),
        Err(AllocError::Mismatch {
            at: 0,
            operand: "ra",
            takes: (File::R, 1),
            given: v
        })
    );
    let e = b.set_virtual(at, "UPR", lo).unwrap_err();
    assert_eq!(
        e,
        AllocError::NoOperand {
            at: 0,
            operand: "UPR".into(),
            takes: std::vec!["pg", "rd", "ra", "rb", "pq"]
        }
    );
    assert_eq!(
        e.to_string(),
        "instruction at 0x0: no register operand `UPR` takes a register of its own; these do: `pg` `rd` `ra` `rb` `pq`"
    );
    assert_eq!(
        b.set_virtual(0x10, "rd", v),
        Err(AllocError::NoInstruction(0x10))
    );
    assert_eq!(
        b.set_virtual(0x8, "rd", v),
        Err(AllocError::NoInstruction(0x8))
    );
    // Another buffer's.
    let mut other = Buf::new(0).unwrap();
    let w = other.vreg(File::R, 2).unwrap();
    assert_eq!(b.set_virtual(at, "rd", w), Err(AllocError::Foreign(w)));
    // Finishing with a virtual register left is an error.
    assert_eq!(
        b.clone().finish().unwrap_err(),
        BufferError::Virtual { at: 0, vreg: v }
    );
}

#[test]
fn allocation_gives_registers_and_removes_copies_that_became_identities() {
    let mut b = Buf::new(0).unwrap();
    let x = b.vreg(File::R, 1).unwrap();
    let y = b.vreg(File::R, 1).unwrap();
    // x = R7 (a fixed register); y = x; R9 = y.
    let a0 = b.push(mov(0, 7));
    b.set_virtual(a0, "rd", x).unwrap();
    let a1 = b.push(mov(0, 0));
    b.set_virtual(a1, "rd", y).unwrap();
    b.set_virtual(a1, "ra", x).unwrap();
    b.mark_copy(a1).unwrap();
    let a2 = b.push(mov(9, 0));
    b.set_virtual(a2, "ra", y).unwrap();
    let abi = Abi {
        exit_reads: std::vec![Reg::R(9)],
        ..Abi::default()
    };
    let got = b.allocate_checked(&abi).unwrap();
    assert_eq!(got.removed_copies, 1);
    assert!(!b.has_virtual());
    let rx = got.reg(x).unwrap();
    assert_eq!(got.reg(y), Some(rx), "the copy's two ends share a register");
    let code = b.finish().unwrap();
    assert_eq!(code.len(), 2);
    let Reg::R(r) = rx else { panic!("{rx:?}") };
    assert_eq!(MOV.fields[2].get(code.insts()[0].word), u128::from(r));
    assert_eq!(MOV.fields[3].get(code.insts()[1].word), u128::from(r));
    // Another buffer's virtual register has no register here.
    let mut other = Buf::new(0).unwrap();
    let z = other.vreg(File::R, 1).unwrap();
    assert_eq!(got.reg(z), None);
}

#[test]
fn copies_are_marked_only_where_an_instruction_copies() {
    let mut b = Buf::new(0).unwrap();
    let m = b.push(mov(1, 2));
    let a = b.push(add());
    assert_eq!(b.mark_copy(m), Ok(()));
    assert_eq!(b.mark_copy(a), Err(AllocError::NotACopy(0x10)));
    // Under a guard (its write conditional) it still copies; and with the read
    // operand listed first.
    let g = b.push(insn(4, &[(0, 1), (2, 1), (3, 2)]));
    assert_eq!(b.mark_copy(g), Ok(()));
    let r = b.push(insn(9, &[(2, 1), (3, 2)]));
    assert_eq!(b.mark_copy(r), Ok(()));
    // One more operand, another file, another width, no write: no copy.
    for op in 5..=8 {
        let at = b.push(insn(op, &[(2, 1), (3, 2)]));
        let name = NAMES[op as usize];
        assert_eq!(b.mark_copy(at), Err(AllocError::NotACopy(at)), "{name}");
    }
    assert_eq!(b.mark_copy(0x1000), Err(AllocError::NoInstruction(0x1000)));
    assert_eq!(
        AllocError::<Insn>::NotACopy(0x10).to_string(),
        "instruction at 0x10 is no copy of one register operand into another"
    );
}

#[test]
fn assignment_takes_the_registers_given_or_says_why_not() {
    let mut b = Buf::new(0).unwrap();
    let v = b.vreg(File::R, 2).unwrap();
    let unused = b.vreg(File::R, 1).unwrap();
    let at = b.push(add());
    b.set_virtual(at, "rd", v).unwrap();
    for bad in [Reg::P(0), Reg::R(255), Reg::R(254)] {
        // (A clone: its virtual registers carry its own identity.)
        let e = b.clone().assign(|_| bad).unwrap_err();
        let AllocError::Assigned { vreg, reg } = e else {
            panic!("{e:?}")
        };
        assert_eq!((vreg.index(), vreg.width(), reg), (0, 2, bad));
    }
    assert_eq!(
        AllocError::<Insn>::Assigned {
            vreg: v,
            reg: Reg::R(254)
        }
        .to_string(),
        "%Reg0 was given R254: it needs 2 numbered `Reg` register(s) from there"
    );
    // The last numbered register holds a value of one.
    let mut one = Buf::new(0).unwrap();
    let u = one.vreg(File::R, 1).unwrap();
    let at = one.push(mov(0, 0));
    one.set_virtual(at, "rd", u).unwrap();
    assert_eq!(
        one.assign(|_| Reg::R(254)).unwrap().reg(u),
        Some(Reg::R(254))
    );
    let got = b.assign(|_| Reg::R(20)).unwrap();
    assert_eq!(got.reg(v), Some(Reg::R(20)));
    assert_eq!(got.reg(v.part(1, 1).unwrap()), Some(Reg::R(21)));
    assert_eq!(got.reg(unused), None, "a value no operand names gets none");
    let code = b.finish().unwrap();
    assert_eq!(ADD.fields[2].get(code.insts()[0].word), 20);
    // An allocation retires the buffer's virtual registers.
    let mut c = Buf::new(0).unwrap();
    let w = c.vreg(File::R, 1).unwrap();
    let at = c.push(mov(0, 0));
    c.set_virtual(at, "rd", w).unwrap();
    c.assign(|_| Reg::R(3)).unwrap();
    assert_eq!(c.set_virtual(at, "rd", w), Err(AllocError::Foreign(w)));
}

#[test]
fn registers_run_out_with_what_holds_them() {
    let mut b = Buf::new(0).unwrap();
    // Six predicate values live at once in a file of six.
    let mut vs = Vec::new();
    for _ in 0..7 {
        let v = b.vreg(File::P, 1).unwrap();
        let at = b.push(insn(3, &[(5, 0)]));
        b.set_virtual(at, "pq", v).unwrap();
        vs.push(v);
    }
    for &v in &vs {
        let at = b.push(insn(3, &[(0, 0)]));
        b.set_virtual(at, "pg", v).unwrap();
    }
    let e = b.allocate(&Abi::default()).unwrap_err();
    let AllocError::OutOfRegisters { value, live, .. } = &e else {
        panic!("{e:?}")
    };
    assert_eq!(value.file(), File::P);
    // Each of the six registers, with what holds it (values, or `ADD`'s fixed `pq`
    // and `UPR`).
    let mut regs: Vec<Reg> = live.iter().map(|l| l.1).collect();
    regs.sort_unstable_by_key(|r| r.code());
    assert_eq!(regs, (0..6).map(Reg::P).collect::<Vec<_>>(), "{live:?}");
    assert!(
        e.to_string()
            .contains("no 1 free consecutive `Pred` registers for %Pred"),
        "{e}"
    );
    let whole = AllocError::<Insn>::OutOfRegisters {
        at: 0x30,
        value: vs[0],
        live: std::vec![(Some(vs[1]), Reg::P(0)), (None, Reg::P(1))],
        divergent: None,
    };
    assert_eq!(
        whole.to_string(),
        "instruction at 0x30: no 1 free consecutive `Pred` registers for %Pred0; live there: %Pred1 in P0, P1 (fixed)"
    );
    let apart = AllocError::<Insn>::OutOfRegisters {
        at: 0x30,
        value: vs[0],
        live: std::vec![(None, Reg::P(1))],
        divergent: Some(0x10),
    };
    assert_eq!(
        apart.to_string(),
        "instruction at 0x30: no 1 free consecutive `Pred` registers for %Pred0; held by the values that may run apart after the divergent branch at 0x10: P1 (fixed)"
    );
    assert_eq!(
        AllocError::<Insn>::Rewrite {
            at: 0x20,
            error: RegError::Undefined("pq")
        }
        .to_string(),
        "instruction at 0x20: operand `pq`: the new register makes an undefined instruction word"
    );
}

#[test]
fn indirect_branch_targets_are_labels_of_the_buffer() {
    let mut b = Buf::new(0).unwrap();
    let l = b.new_label();
    let at = b.push(add());
    assert_eq!(b.set_targets(at, &[l]), Ok(()));
    assert_eq!(
        b.set_targets(0x10, &[l]),
        Err(BufferError::Alloc(AllocError::NoInstruction(0x10)))
    );
    let mut other = Buf::new(0).unwrap();
    let foreign = other.new_label();
    assert_eq!(
        b.set_targets(at, &[foreign]),
        Err(BufferError::ForeignLabel(foreign))
    );
    assert_eq!(b.__code_buffer().len(), 1);
}

#[test]
fn error_messages_name_what_is_wrong() {
    let e: BufferError<Insn> = AllocError::NotAllocatable(File::P).into();
    assert_eq!(
        e.to_string(),
        "`Pred` has no numbered registers to allocate"
    );
    let cases: [(BufferError<Insn>, &str); 4] = [
        (
            BufferError::MisalignedBase(8),
            "base address 0x8 is not a multiple of 16",
        ),
        (
            BufferError::Overflow { base: 0x10, len: 3 },
            "3 instructions from 0x10 run past the end of the address space",
        ),
        (
            BufferError::NoAddress(3),
            "`3` has no single address operand to take a target",
        ),
        (
            BufferError::Target {
                at: 0x20,
                error: TargetError::Misaligned(4),
            },
            "instruction at 0x20: the target is not a multiple of 0x4 bytes away",
        ),
    ];
    for (e, want) in cases {
        assert_eq!(e.to_string(), want);
    }
    assert_eq!(
        AllocError::<Insn>::Width(File::R, 0).to_string(),
        "no value of 0 registers fits `Reg`"
    );
    assert_eq!(
        AllocError::<Insn>::Check("x".into()).to_string(),
        "the allocation does not check: x"
    );
}

/// `MOV rd, ra` with either a fixed register (`Ok`) or a virtual one (`Err`) on each
/// side, pushed at the buffer's end.
fn push_mov(b: &mut Buf, rd: Result<u8, VRegOf<Insn>>, ra: Result<u8, VRegOf<Insn>>) -> u64 {
    let code = |r: Result<u8, _>| u128::from(r.unwrap_or(0));
    let at = b.push(mov(code(rd), code(ra)));
    if let Err(v) = rd {
        b.set_virtual(at, "rd", v).unwrap();
    }
    if let Err(v) = ra {
        b.set_virtual(at, "ra", v).unwrap();
    }
    at
}

#[test]
fn removing_copies_moves_labels_references_and_relocations() {
    let mut b = Buf::new(0).unwrap();
    let f = b.symbol("f").unwrap();
    let back = b.new_label();
    let ahead = b.new_label();
    let x = b.vreg(File::R, 1).unwrap();
    let y = b.vreg(File::R, 1).unwrap();
    b.bind(back).unwrap();
    push_mov(&mut b, Err(x), Ok(7));
    let copy = push_mov(&mut b, Err(y), Err(x));
    b.mark_copy(copy).unwrap();
    b.push_to(bra(false), ahead).unwrap();
    b.push_to(call(), Target::Symbol(f, 0)).unwrap();
    b.push_to(bra(false), back).unwrap();
    b.bind(ahead).unwrap();
    push_mov(&mut b, Ok(9), Err(y));
    let got = b.allocate_checked(&Abi::default()).unwrap();
    assert_eq!(got.removed_copies, 1);
    let code = b.finish().unwrap();
    assert_eq!(code.len(), 5);
    assert_eq!(code.label_addr(back), Some(0));
    assert_eq!(code.label_addr(ahead), Some(0x40));
    assert_eq!(code.insts()[1].address(0, 0x10), Some(0x40));
    assert_eq!(code.insts()[3].address(0, 0x30), Some(0));
    let refs: Vec<(usize, u8, Label)> = code.label_refs().collect();
    assert_eq!(refs, [(1, 0, ahead), (3, 0, back)]);
    assert_eq!(code.relocs()[0].offset, 0x20);
    assert_eq!(code.insts()[4].op, 4);
}

#[test]
fn a_raw_relative_offset_keeps_every_copy() {
    let build = |raw: bool| {
        let mut b = Buf::new(0).unwrap();
        let x = b.vreg(File::R, 1).unwrap();
        let y = b.vreg(File::R, 1).unwrap();
        push_mov(&mut b, Err(x), Ok(7));
        let copy = push_mov(&mut b, Err(y), Err(x));
        b.mark_copy(copy).unwrap();
        if raw {
            // An offset the buffer knows no target of.
            b.push(insn(0, &[(2, 2)]));
        } else {
            // Absolute, a known address, a label, a symbol: all known.
            b.push(insn(0, &[(2, 2), (3, 1)]));
            b.push_with(bra(false), 0, Target::Address(0x100)).unwrap();
            let l = b.new_label();
            b.push_to(bra(false), l).unwrap();
            b.bind(l).unwrap();
            let f = b.symbol("f").unwrap();
            b.push_to(bra(false), Target::Symbol(f, 0)).unwrap();
        }
        push_mov(&mut b, Ok(9), Err(y));
        let n = b.len();
        let got = b.allocate_checked(&Abi::default()).unwrap();
        (got.removed_copies, n - b.len())
    };
    assert_eq!(build(true), (0, 0));
    assert_eq!(build(false), (1, 1));
}

#[test]
fn reserved_and_fixed_registers_hold_no_value() {
    let mut b = Buf::new(0).unwrap();
    let x = b.vreg(File::R, 1).unwrap();
    let p = b.vreg(File::P, 1).unwrap();
    push_mov(&mut b, Err(x), Ok(1));
    // R4 written while `x` is live.
    push_mov(&mut b, Ok(4), Ok(2));
    let at = b.push(insn(3, &[(5, 0)]));
    b.set_virtual(at, "pq", p).unwrap();
    push_mov(&mut b, Ok(9), Err(x));
    let at = b.push(insn(3, &[(0, 0)]));
    b.set_virtual(at, "pg", p).unwrap();
    let abi = Abi {
        reserved: std::vec![Reg::R(0), Reg::P(0), Reg::R(255)],
        exit_reads: std::vec![Reg::R(4), Reg::R(9)],
        ..Abi::default()
    };
    let got = b.allocate_checked(&abi).unwrap();
    let rx = got.reg(x).unwrap();
    assert!(![Reg::R(0), Reg::R(4)].contains(&rx), "{rx:?}");
    assert_ne!(got.reg(p), Some(Reg::P(0)));
}

#[test]
fn a_value_live_across_a_call_lives_through_the_callee() {
    let mut b = Buf::new(0).unwrap();
    let callee = b.new_label();
    let other = b.new_label();
    let x = b.vreg(File::R, 1).unwrap();
    push_mov(&mut b, Err(x), Ok(1));
    b.push_to(bra(false), other).unwrap();
    b.bind(other).unwrap();
    b.push_to(call(), callee).unwrap();
    push_mov(&mut b, Ok(9), Err(x));
    b.bind(callee).unwrap();
    // The callee writes R0 and returns through R10.
    push_mov(&mut b, Ok(0), Ok(6));
    b.push(insn(2, &[(2, 10)]));
    let abi = Abi {
        exit_reads: std::vec![Reg::R(9)],
        ..Abi::default()
    };
    let got = b.allocate_checked(&abi).unwrap();
    assert_ne!(got.reg(x), Some(Reg::R(0)));
}

#[test]
fn a_call_last_and_a_label_at_the_end_allocate() {
    let mut b = Buf::new(0).unwrap();
    let x = b.vreg(File::R, 1).unwrap();
    let start = b.new_label();
    let end = b.new_label();
    b.bind(start).unwrap();
    push_mov(&mut b, Err(x), Ok(1));
    push_mov(&mut b, Ok(9), Err(x));
    b.push_to(bra(false), end).unwrap();
    b.push_to(call(), start).unwrap();
    b.bind(end).unwrap();
    assert!(b.allocate_checked(&Abi::default()).is_ok());
}

/// A predicate value `p` written (`ADD`'s `pq`; no other predicate written).
fn push_pdef(b: &mut Buf, p: VRegOf<Insn>) {
    let at = b.push(insn(3, &[(5, 7)]));
    b.set_virtual(at, "pq", p).unwrap();
}

/// A predicate value `p` read (as `ADD`'s guard; its `pq` is `PT`).
fn push_puse(b: &mut Buf, p: VRegOf<Insn>) {
    let at = b.push(insn(3, &[(0, 0), (5, 7)]));
    b.set_virtual(at, "pg", p).unwrap();
}

#[test]
fn a_copy_whose_ends_hold_different_values_stays() {
    let mut b = Buf::new(0).unwrap();
    let x = b.vreg(File::R, 1).unwrap();
    let y = b.vreg(File::R, 1).unwrap();
    push_mov(&mut b, Err(x), Ok(1));
    let copy = push_mov(&mut b, Err(y), Err(x));
    b.mark_copy(copy).unwrap();
    // `y` changes (ADD's `ra` is read and written) while `x` is still to be read.
    let at = b.push(insn(3, &[(2, 20), (4, 22), (5, 7)]));
    b.set_virtual(at, "ra", y).unwrap();
    push_mov(&mut b, Ok(8), Err(x));
    push_mov(&mut b, Ok(9), Err(y));
    let got = b.allocate_checked(&Abi::default()).unwrap();
    let (rx, ry) = (got.reg(x).unwrap(), got.reg(y).unwrap());
    assert_ne!(rx, ry);
    assert_eq!(got.removed_copies, 0);
    let code = b.finish().unwrap();
    assert_eq!(code.len(), 5);
    let (Reg::R(cx), Reg::R(cy)) = (rx, ry) else {
        panic!("{rx:?} {ry:?}")
    };
    assert_eq!(MOV.fields[2].get(code.insts()[1].word), u128::from(cy));
    assert_eq!(MOV.fields[3].get(code.insts()[1].word), u128::from(cx));
}

#[test]
fn removing_copies_moves_a_label_bound_at_one_to_what_follows() {
    let mut b = Buf::new(0).unwrap();
    let l = b.new_label();
    let x = b.vreg(File::R, 1).unwrap();
    let y = b.vreg(File::R, 1).unwrap();
    let z = b.vreg(File::R, 1).unwrap();
    push_mov(&mut b, Err(x), Ok(7));
    b.push_to(bra(false), l).unwrap();
    b.bind(l).unwrap();
    let c1 = push_mov(&mut b, Err(y), Err(x));
    b.mark_copy(c1).unwrap();
    let c2 = push_mov(&mut b, Err(z), Err(y));
    b.mark_copy(c2).unwrap();
    push_mov(&mut b, Ok(9), Err(z));
    let got = b.allocate_checked(&Abi::default()).unwrap();
    assert_eq!(got.removed_copies, 2);
    let code = b.finish().unwrap();
    assert_eq!(code.len(), 3);
    assert_eq!(code.label_addr(l), Some(0x20));
    assert_eq!(code.insts()[1].address(0, 0x10), Some(0x20));
    assert_eq!(MOV.fields[2].get(code.insts()[2].word), 9);
}

#[test]
fn reserved_registers_of_one_file_leave_the_others_free() {
    let mut b = Buf::new(0).unwrap();
    let x = b.vreg(File::R, 1).unwrap();
    let p = b.vreg(File::P, 1).unwrap();
    push_mov(&mut b, Err(x), Ok(9));
    push_pdef(&mut b, p);
    push_puse(&mut b, p);
    push_mov(&mut b, Ok(9), Err(x));
    let abi = Abi {
        reserved: std::vec![Reg::R(0), Reg::R(1), Reg::R(2)],
        ..Abi::default()
    };
    let got = b.allocate_checked(&abi).unwrap();
    let rx = got.reg(x).unwrap();
    assert!(![Reg::R(0), Reg::R(1), Reg::R(2)].contains(&rx), "{rx:?}");
    assert_eq!(got.reg(p), Some(Reg::P(0)), "no predicate is reserved");
}

/// `RET` through `R<r>`.
fn ret(r: u128) -> Insn {
    insn(2, &[(2, r)])
}

/// `BRX` through `R<r>`.
fn brx(r: u128) -> Insn {
    insn(10, &[(2, r)])
}

fn exit() -> Insn {
    insn(11, &[])
}

fn bssy() -> Insn {
    insn(12, &[])
}

#[test]
fn a_value_read_around_a_loop_is_live_through_all_of_it() {
    let mut b = Buf::new(0).unwrap();
    let start = b.new_label();
    let top = b.new_label();
    let x = b.vreg(File::R, 1).unwrap();
    let y = b.vreg(File::R, 1).unwrap();
    // (A branch to the next instruction first: the loop's is not the first label
    // reference.)
    b.push_to(bra(false), start).unwrap();
    b.bind(start).unwrap();
    push_mov(&mut b, Err(x), Ok(1));
    b.bind(top).unwrap();
    push_mov(&mut b, Ok(8), Err(x));
    push_mov(&mut b, Err(y), Ok(2));
    push_mov(&mut b, Ok(9), Err(y));
    // Back to the top while P1 holds.
    b.push_to(insn(0, &[(0, 1)]), top).unwrap();
    b.push(exit());
    let got = b.allocate_checked(&Abi::default()).unwrap();
    assert_ne!(got.reg(x), got.reg(y), "x is read again after y");
}

#[test]
fn registers_read_at_exits_returns_and_calls_hold_no_value_before() {
    // R0 written, then `y` lives, then the instruction reads R0 by the ABI.
    let run = |last: Insn, abi: Abi<Reg>| {
        let mut b = Buf::new(0).unwrap();
        let f = b.symbol("f").unwrap();
        let y = b.vreg(File::R, 1).unwrap();
        push_mov(&mut b, Ok(0), Ok(1));
        push_mov(&mut b, Err(y), Ok(2));
        push_mov(&mut b, Ok(8), Err(y));
        if last.op == 1 {
            b.push_to(last, Target::Symbol(f, 0)).unwrap();
        } else {
            b.push(last);
        }
        b.allocate_checked(&abi).unwrap().reg(y).unwrap()
    };
    let r0 = std::vec![Reg::R(0)];
    // Without the ABI, R0 is free once written.
    assert_eq!(run(exit(), Abi::default()), Reg::R(0));
    // Registers the lists name that the allocator does not number (`P6`) or that
    // hold nothing (`PT`, `RZ`) are left out.
    let odd = [Reg::P(6), Reg::P(7), Reg::R(255)];
    let with = |r: &[Reg]| -> Vec<Reg> { r.iter().chain(&odd).copied().collect() };
    let exit_abi = Abi {
        exit_reads: with(&r0),
        ..Abi::default()
    };
    assert_ne!(run(exit(), exit_abi), Reg::R(0));
    let ret_abi = Abi {
        return_reads: with(&r0),
        ..Abi::default()
    };
    assert_ne!(run(ret(10), ret_abi.clone()), Reg::R(0));
    // A return does not read what an exit does, nor the other way round.
    assert_eq!(
        run(
            exit(),
            Abi {
                exit_reads: std::vec![],
                ..ret_abi
            }
        ),
        Reg::R(0)
    );
    let call_abi = Abi {
        call_reads: with(&r0),
        ..Abi::default()
    };
    assert_ne!(run(call(), call_abi), Reg::R(0));
}

#[test]
fn a_value_live_across_a_call_is_not_in_a_register_the_call_changes() {
    let run = |abi: &Abi<Reg>| {
        let mut b = Buf::new(0).unwrap();
        let f = b.symbol("f").unwrap();
        let x = b.vreg(File::R, 1).unwrap();
        push_mov(&mut b, Err(x), Ok(9));
        b.push_to(call(), Target::Symbol(f, 0)).unwrap();
        push_mov(&mut b, Ok(8), Err(x));
        b.push(exit());
        b.allocate_checked(abi).unwrap().reg(x).unwrap()
    };
    let abi = Abi {
        call_clobbers: std::vec![Reg::R(0), Reg::R(1), Reg::P(6)],
        ..Abi::default()
    };
    let rx = run(&abi);
    assert!(![Reg::R(0), Reg::R(1)].contains(&rx), "{rx:?}");
    assert_eq!(run(&Abi::default()), Reg::R(0));
}

#[test]
fn a_value_the_callee_reads_is_live_up_to_the_call() {
    let mut b = Buf::new(0).unwrap();
    let main = b.new_label();
    let f = b.new_label();
    let a = b.vreg(File::R, 1).unwrap();
    let w = b.vreg(File::R, 1).unwrap();
    b.push_to(bra(false), main).unwrap();
    // The callee, first: it reads `a`.
    b.bind(f).unwrap();
    push_mov(&mut b, Ok(6), Err(a));
    b.push(ret(10));
    b.bind(main).unwrap();
    push_mov(&mut b, Err(a), Ok(3));
    push_mov(&mut b, Err(w), Ok(4));
    push_mov(&mut b, Ok(8), Err(w));
    b.push_to(call(), f).unwrap();
    b.push(exit());
    let got = b.allocate_checked(&Abi::default()).unwrap();
    assert_ne!(
        got.reg(a),
        got.reg(w),
        "a is live from its write to the call"
    );
}

#[test]
fn a_return_goes_back_after_each_call_to_a_label() {
    // `CALL f` changes R0, which the caller reads after it: what the callee leaves in
    // R0 is live through the callee up to where it returns.
    let mut b = Buf::new(0).unwrap();
    let f = b.new_label();
    let x = b.vreg(File::R, 1).unwrap();
    let y = b.vreg(File::R, 1).unwrap();
    push_mov(&mut b, Err(x), Ok(1));
    b.push_to(call(), f).unwrap();
    push_mov(&mut b, Ok(9), Ok(0));
    push_mov(&mut b, Ok(8), Err(x));
    b.push(exit());
    b.bind(f).unwrap();
    push_mov(&mut b, Err(y), Ok(2));
    push_mov(&mut b, Ok(7), Err(y));
    b.push(ret(10));
    let abi = Abi {
        call_clobbers: std::vec![Reg::R(0)],
        ..Abi::default()
    };
    let got = b.allocate_checked(&abi).unwrap();
    let ry = got.reg(y).unwrap();
    assert_ne!(ry, Reg::R(0));
    assert_ne!(Some(ry), got.reg(x), "x is live across the call");
}

#[test]
fn a_return_does_not_go_after_a_call_of_no_label_of_the_buffer() {
    // One register (R0) for values: `z`, live after a call to a symbol, and `y`, in a
    // function `f` of the buffer, fit it because `f` does not return there.
    let mut b = Buf::new(0).unwrap();
    let s = b.symbol("s").unwrap();
    let f = b.named_label("f").unwrap();
    let z = b.vreg(File::R, 1).unwrap();
    let y = b.vreg(File::R, 1).unwrap();
    push_mov(&mut b, Err(z), Ok(1));
    b.push_to(call(), Target::Symbol(s, 0)).unwrap();
    push_mov(&mut b, Ok(9), Err(z));
    b.push(exit());
    b.bind(f).unwrap();
    push_mov(&mut b, Err(y), Ok(2));
    push_mov(&mut b, Ok(7), Err(y));
    b.push(ret(10));
    let abi = Abi {
        reserved: (1..255).map(Reg::R).collect(),
        ..Abi::default()
    };
    let got = b.allocate_checked(&abi).unwrap();
    assert_eq!((got.reg(z), got.reg(y)), (Some(Reg::R(0)), Some(Reg::R(0))));
}

#[test]
fn a_call_last_returns_nowhere_in_the_buffer() {
    let mut b = Buf::new(0).unwrap();
    let f = b.new_label();
    let x = b.vreg(File::R, 1).unwrap();
    b.bind(f).unwrap();
    push_mov(&mut b, Err(x), Ok(1));
    push_mov(&mut b, Ok(9), Err(x));
    b.push(ret(10));
    b.push_to(call(), f).unwrap();
    assert!(b.allocate_checked(&Abi::default()).is_ok());
}

#[test]
fn an_indirect_branch_goes_to_the_targets_set_for_it() {
    // `x` is read at `l2`, where only the second `BRX` goes.
    let mut b = Buf::new(0).unwrap();
    let main = b.new_label();
    let l1 = b.new_label();
    let l2 = b.new_label();
    let x = b.vreg(File::R, 1).unwrap();
    let y = b.vreg(File::R, 1).unwrap();
    b.push_to(bra(false), main).unwrap();
    b.bind(l1).unwrap();
    b.push(exit());
    b.bind(l2).unwrap();
    push_mov(&mut b, Ok(9), Err(x));
    b.push(exit());
    b.bind(main).unwrap();
    push_mov(&mut b, Err(x), Ok(1));
    // Under P1, else on.
    let first = b.push(insn(10, &[(0, 1), (2, 11)]));
    push_mov(&mut b, Err(y), Ok(2));
    push_mov(&mut b, Ok(8), Err(y));
    let second = b.push(brx(10));
    b.set_targets(first, &[l1]).unwrap();
    b.set_targets(second, &[l2]).unwrap();
    let got = b.allocate_checked(&Abi::default()).unwrap();
    assert_ne!(got.reg(x), got.reg(y), "x is live up to the second BRX");
}

#[test]
fn an_indirect_branch_without_targets_may_go_to_every_label() {
    // As above, with no targets set: `l2` is one of the labels.
    let mut b = Buf::new(0).unwrap();
    let main = b.new_label();
    let l2 = b.new_label();
    let x = b.vreg(File::R, 1).unwrap();
    let y = b.vreg(File::R, 1).unwrap();
    b.push_to(bra(false), main).unwrap();
    b.bind(l2).unwrap();
    push_mov(&mut b, Ok(9), Err(x));
    b.push(exit());
    b.bind(main).unwrap();
    push_mov(&mut b, Err(x), Ok(1));
    push_mov(&mut b, Err(y), Ok(2));
    push_mov(&mut b, Ok(8), Err(y));
    b.push(brx(10));
    let got = b.allocate_checked(&Abi::default()).unwrap();
    assert_ne!(got.reg(x), got.reg(y), "x is live up to the BRX");
}

/// Seven predicate values, one after the other, after a branch under P5 to `join`
/// (bound after one instruction); with `barrier`, a `BSSY` to `join` first.
fn divergent_predicates(barrier: bool) -> (Result<Allocated<Reg>, AllocError<Insn>>, u64) {
    let mut b = Buf::new(0).unwrap();
    let join = b.new_label();
    if barrier {
        b.push_to(bssy(), join).unwrap();
    }
    let branch = b.push_to(insn(0, &[(0, 5)]), join).unwrap();
    push_mov(&mut b, Ok(8), Ok(9));
    b.bind(join).unwrap();
    for _ in 0..7 {
        let p = b.vreg(File::P, 1).unwrap();
        push_pdef(&mut b, p);
        push_puse(&mut b, p);
    }
    b.push(exit());
    (b.allocate_checked(&Abi::default()), branch)
}

#[test]
fn shared_registers_are_kept_apart_after_a_divergent_branch_until_its_barrier() {
    // Predicates are shared by the warp: the lanes that part at the branch run the
    // rest one group after the other, so every predicate value written there needs a
    // register of its own; there are six.
    let (got, branch) = divergent_predicates(false);
    let e = got.unwrap_err();
    let AllocError::OutOfRegisters { divergent, .. } = &e else {
        panic!("{e:?}")
    };
    assert_eq!(*divergent, Some(branch));
    // A barrier whose point is `join`: the lanes meet there, and the values may share.
    let (got, _) = divergent_predicates(true);
    assert!(got.is_ok(), "{got:?}");
}
