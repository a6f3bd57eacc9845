//! The warp's state as a tool reads and sets it (the state file, `isa run`'s output):
//! which registers were touched, special registers that are computed, 64-bit special
//! registers, constant memory's words.

mod common;
use common::*;

use isa::SReg;
use isa_runtime::{sreg_is_computed, Warp, CMEM_BANKS, CMEM_BANK_SIZE};

#[test]
fn touched_registers_are_listed_in_order_and_only_those() {
    let mut w = Warp::new(u32::MAX);
    assert_eq!(w.gpr_touched().count(), 0);
    for n in [200, 5, 63, 64] {
        w.set_reg(r(n), 3, 7);
    }
    // A write of 0 touches a register too; RZ is not one.
    w.set_reg(r(130), 0, 0);
    w.set_reg(isa::Reg::RZ, 0, 9);
    assert_eq!(w.gpr_touched().collect::<Vec<_>>(), [5, 63, 64, 130, 200]);

    w.set_pred(p(4), 0, true);
    w.set_pred(p(1), 0, false);
    assert_eq!(w.pred_touched().collect::<Vec<_>>(), [1, 4]);

    w.set_ureg(ur(0), 1);
    w.set_ureg(ur(40), 0);
    assert_eq!(w.ureg_touched().collect::<Vec<_>>(), [0, 40]);

    assert_eq!(w.upred_touched().count(), 0);
    w.set_upred(up(6), true);
    w.set_upred(up(2), false);
    w.set_upred(isa::UPred::UPT, true); // dropped
    assert_eq!(w.upred_touched().collect::<Vec<_>>(), [2, 6]);

    assert_eq!(w.sreg_touched().count(), 0);
    assert!(w.set_sreg(SReg::SrCtaidX, 3));
    assert!(w.set_sreg(SReg::SrPm0, 0));
    let mut want = vec![SReg::SrCtaidX, SReg::SrPm0];
    want.sort_by_key(|s| s.bits());
    assert_eq!(w.sreg_touched().collect::<Vec<_>>(), want);
}

#[test]
fn a_uniform_predicate_is_set_and_cleared_whatever_it_held() {
    let mut w = Warp::new(u32::MAX);
    for (value, want) in [(true, true), (true, true), (false, false), (false, false)] {
        w.set_upred(up(3), value);
        assert_eq!(w.upred(up(3)), want);
        assert_eq!(w.upr(), 0x80 | u8::from(want) << 3, "UP3 = {value}");
    }
    w.set_upred(up(0), true);
    w.set_upred(up(5), true);
    w.set_upred(up(0), false);
    assert_eq!(w.upr(), 0x80 | 1 << 5);
}

#[test]
fn computed_special_registers_are_read_not_stored() {
    let mut w = Warp::new(u32::MAX);
    w.cycle = 0x1234;
    for s in [
        SReg::SrLaneid,
        SReg::SrEqmask,
        SReg::SrClocklo,
        SReg::SrClockhi,
        SReg::SrGlobaltimelo,
    ] {
        assert!(sreg_is_computed(s), "{s:?}");
        let before = w.sreg(s, 5);
        assert!(!w.set_sreg(s, 0xdead), "{s:?}: the write is dropped");
        assert_eq!(w.sreg(s, 5), before, "{s:?}");
    }
    assert_eq!(w.sreg(SReg::SrLaneid, 5), 5);
    assert_eq!(w.sreg_touched().count(), 0);
    assert!(!sreg_is_computed(SReg::SrCtaidX));
    assert!(w.set_sreg(SReg::SrCtaidX, 0xdead));
    assert_eq!(w.sreg(SReg::SrCtaidX, 5), 0xdead);
}

#[test]
fn cs2r_reads_the_clock_and_timers_as_64_bits() {
    let mut w = Warp::new(u32::MAX);
    w.cycle = 0x0000_0003_8000_0005;
    assert_eq!(w.sreg64(SReg::SrClocklo, 0), 0x0000_0003_8000_0005);
    let ns = w.cycle / isa_runtime::CYCLES_PER_NS;
    assert_eq!(w.sreg64(SReg::SrGlobaltimelo, 0), ns);
    // A performance counter with its high half; any other register zero-extended.
    assert!(w.set_sreg(SReg::SrPm1, 0x8000_0001));
    assert!(w.set_sreg(SReg::SrPmHi1, 0x22));
    assert_eq!(w.sreg64(SReg::SrPm1, 0), 0x22_8000_0001);
    assert!(w.set_sreg(SReg::SrCtaidX, 0x9000_0000));
    assert_eq!(w.sreg64(SReg::SrCtaidX, 0), 0x9000_0000);
}

/// Only `SR_PM0`..`SR_PM7` read a high half (`SR_PM_HIn`, 8 codes on): every other
/// stored register, `SR_PM_HIn` and the registers after them included, reads
/// zero-extended through CS2R, whatever the register 8 codes on holds.
#[test]
fn cs2r_pairs_only_the_performance_counters_with_a_high_half() {
    let mut w = Warp::new(u32::MAX);
    let stored: Vec<SReg> = SReg::ALL
        .iter()
        .copied()
        .filter(|&s| !sreg_is_computed(s))
        .collect();
    for (k, &s) in stored.iter().enumerate() {
        assert!(w.set_sreg(s, 0x100 + k as u32), "{s:?}");
    }
    let pm = [
        (SReg::SrPm0, SReg::SrPmHi0),
        (SReg::SrPm1, SReg::SrPmHi1),
        (SReg::SrPm2, SReg::SrPmHi2),
        (SReg::SrPm3, SReg::SrPmHi3),
        (SReg::SrPm4, SReg::SrPmHi4),
        (SReg::SrPm5, SReg::SrPmHi5),
        (SReg::SrPm6, SReg::SrPmHi6),
        (SReg::SrPm7, SReg::SrPmHi7),
    ];
    for &s in &stored {
        let lo = u64::from(w.sreg(s, 3));
        let want = match pm.iter().find(|(l, _)| *l == s) {
            Some(&(_, hi)) => lo | u64::from(w.sreg(hi, 3)) << 32,
            None => lo,
        };
        assert_eq!(w.sreg64(s, 3), want, "{s:?}");
    }
    // The same through a program: SR_PM_HI0 and SR_PM_HI7 read zero-extended.
    let m = run(
        "CS2R R[0:1], SR_PM_HI0\nCS2R R[2:3], SR_PM_HI7\nCS2R R[4:5], SR_PM7\nEXIT",
        |w| {
            for (k, &s) in stored.iter().enumerate() {
                w.set_sreg(s, 0x100 + k as u32);
            }
            w.set_sreg(SReg::SrPmHi0, 0xaa);
            w.set_sreg(SReg::SrPmHi7, 0xbb);
            w.set_sreg(SReg::SrPm7, 0xcc);
        },
    );
    let w = &m.warp;
    assert_eq!((w.reg(r(0), 9), w.reg(r(1), 9)), (0xaa, 0));
    assert_eq!((w.reg(r(2), 9), w.reg(r(3), 9)), (0xbb, 0));
    assert_eq!((w.reg(r(4), 9), w.reg(r(5), 9)), (0xcc, 0xbb));
}

/// `exited()` is true exactly when no lane is valid: not for a live warp (not even
/// one with no active lane), yes once EXIT has run in every lane.
#[test]
fn a_warp_has_exited_only_when_no_lane_is_valid() {
    assert!(!Warp::new(u32::MAX).exited());
    let mut w = Warp::new(0x8000_0000);
    assert!(!w.exited());
    w.active_mask = 0;
    assert!(!w.exited());
    assert!(Warp::new(0).exited());
    let mut m = start("@P0 EXIT\nEXIT", |w| w.set_pred_lanes(p(0), u32::MAX, 0xff));
    m.step().unwrap();
    assert!(!m.warp.exited(), "lanes 8..31 are left");
    m.step().unwrap();
    assert!(m.warp.exited());
}

#[test]
fn constant_memory_lists_its_non_zero_words() {
    let mut w = Warp::new(u32::MAX);
    assert!(w.cmem.words().is_empty());
    assert!(w.cmem.write_u32(0, 0x10, 0xaabb_ccdd));
    assert!(w.cmem.write_u32(3, 0, 7));
    assert!(w.cmem.write_u32(3, 4, 0), "a zero word is not listed");
    let last = CMEM_BANK_SIZE as u32 - 4;
    assert!(w.cmem.write_u32(CMEM_BANKS as u8 - 1, last, 1));
    assert!(!w.cmem.write_u32(CMEM_BANKS as u8, 0, 1), "no such bank");
    assert!(!w.cmem.write_u32(0, last + 1, 1), "past the bank");
    assert_eq!(
        w.cmem.words(),
        [
            (0, 0x10, 0xaabb_ccdd),
            (3, 0, 7),
            (CMEM_BANKS as u8 - 1, last, 1)
        ]
    );
    assert_eq!(w.cmem.read(0, 0x10, 4), Some(0xaabb_ccdd));
}

/// Constant memory at a bank's edges: a read that ends exactly at the bank's last
/// byte is inside it (in the last bank too, written or not); one byte further, a
/// negative address, or a bank past the last one is outside (`None`), even at an
/// address every bank has.
#[test]
fn constant_memory_reads_up_to_a_banks_last_byte_and_no_further() {
    let mut w = Warp::new(u32::MAX);
    let end = CMEM_BANK_SIZE as i64;
    let last = CMEM_BANKS as u8 - 1;
    let top = CMEM_BANK_SIZE as u32;
    assert!(w.cmem.write_u32(last, top - 8, 0x5566_7788));
    assert!(w.cmem.write_u32(last, top - 4, 0x1122_3344));
    assert_eq!(w.cmem.read(last, end - 4, 4), Some(0x1122_3344));
    assert_eq!(w.cmem.read(last, end - 8, 8), Some(0x1122_3344_5566_7788));
    assert_eq!(w.cmem.read(last, end - 1, 1), Some(0x11));
    assert_eq!(w.cmem.read(0, end - 16, 16), Some(0), "an unwritten bank");
    // One byte past the end.
    assert_eq!(w.cmem.read(last, end - 3, 4), None);
    assert_eq!(w.cmem.read(last, end - 7, 8), None);
    assert_eq!(w.cmem.read(0, end, 1), None);
    // No such bank: not the zeros of an unwritten one.
    assert_eq!(w.cmem.read(CMEM_BANKS as u8, 0, 4), None);
    assert_eq!(w.cmem.read(u8::MAX, 0x10, 4), None);
    // Before the start.
    assert_eq!(w.cmem.read(last, -4, 4), None);
}

/// A 64-bit register write puts the low word in R`n` and the high word in R`n+1`, in
/// that lane only.
#[test]
fn a_64_bit_register_write_puts_the_high_word_in_the_next_register() {
    let mut w = Warp::new(u32::MAX);
    w.set_reg64(r(4), 7, 0x1234_5678_9abc_def0);
    assert_eq!((w.reg(r(4), 7), w.reg(r(5), 7)), (0x9abc_def0, 0x1234_5678));
    assert_eq!((w.reg(r(4), 6), w.reg(r(5), 6)), (0, 0));
    assert_eq!(w.gpr_touched().collect::<Vec<_>>(), [4, 5]);
}

/// A 64-bit read joins `R[r]` (low word) and `R[r+1]` (high word), per lane; the pair
/// past the last register reads its missing half as 0.
#[test]
fn a_64_bit_register_read_takes_the_high_word_from_the_next_register() {
    let mut w = Warp::new(u32::MAX);
    w.set_reg(r(2), 3, 0x9abc_def0);
    w.set_reg(r(3), 3, 0x1234_5678);
    w.set_reg(r(3), 4, 1);
    w.set_reg(r(254), 3, 0xffff_0000);
    assert_eq!(w.reg64(r(2), 3), 0x1234_5678_9abc_def0);
    assert_eq!(w.reg64(r(2), 4), 0x1_0000_0000);
    assert_eq!(w.reg64(r(3), 3), 0x1234_5678);
    assert_eq!(w.reg64(r(254), 3), 0xffff_0000);
    // The same value back through a 64-bit write.
    w.set_reg64(r(10), 3, w.reg64(r(2), 3));
    assert_eq!(w.reg64(r(10), 3), 0x1234_5678_9abc_def0);
}
