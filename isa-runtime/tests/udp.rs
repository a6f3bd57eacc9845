//! The uniform datapath, one test per opcode family. Every expected value is worked
//! out by hand from the spec text (comments show the arithmetic).

// Lanes are numbers here: loops over `0..32` read like the spec.
#![allow(clippy::needless_range_loop)]

mod common;
use common::*;

#[test]
fn uiadd_plain_negated_and_carry_chain() {
    let w = uniform(
        "UIADD UR10, UR1, UR2\n\
         UIADD UR11, UR1, -UR2\n\
         UIADD UR12, UR2, -0x3\n\
         UIADD.X UR13, UP0, UR3, 0x1\n\
         UIADD.X UR14, UP1, URZ, URZ, UP0",
        &[(1, 5), (2, 7), (3, 0xffff_ffff)],
    );
    assert_eq!(w.ureg(ur(10)), 12);
    assert_eq!(w.ureg(ur(11)), 0xffff_fffe); // 5 - 7
    assert_eq!(w.ureg(ur(12)), 4); // 7 + (-3)
                                   // 0xffffffff + 1 = 2^32: result 0, carry out (the spec's `> 4294967296` would say no).
    assert_eq!(w.ureg(ur(13)), 0);
    assert!(w.upred(up(0)));
    // 0 + 0 + carry-in 1.
    assert_eq!(w.ureg(ur(14)), 1);
    assert!(!w.upred(up(1)));
}

#[test]
fn uiadd_64bit_add_and_subtract() {
    // {UR1,UR0} = 0x1_ffffffff; + {UR3,UR2} = 0x0_00000001 → 0x2_00000000.
    let w = uniform(
        "UIADD.X UR4, UP0, UR0, UR2\n\
         UIADD.X UR5, UPT, UR1, UR3, UP0",
        &[(0, 0xffff_ffff), (1, 1), (2, 1), (3, 0)],
    );
    assert_eq!((w.ureg(ur(4)), w.ureg(ur(5))), (0, 2));
    // 0x1_00000000 - 1 = 0x0_ffffffff: low 0 - 1 (borrow: carry false), high 1 + ~0 + 0.
    let w = uniform(
        "UIADD UR4, UP0, UR0, -UR2\n\
         UIADD.X UR5, UPT, UR1, ~UR3, UP0",
        &[(0, 0), (1, 1), (2, 1), (3, 0)],
    );
    assert_eq!((w.ureg(ur(4)), w.ureg(ur(5))), (0xffff_ffff, 0));
    assert!(!w.upred(up(0)));
    // 7 - 5: no borrow → carry true.
    let w = uniform("UIADD UR4, UP0, UR0, -UR2", &[(0, 7), (2, 5)]);
    assert_eq!(w.ureg(ur(4)), 2);
    assert!(w.upred(up(0)));
}

#[test]
fn uiadd_from_constant_memory_and_guard() {
    let w = run(
        "UIADD UR4, UR0, c[0x1][0x10]\n\
         @UP3 UIADD UR5, UR0, 0x1\n\
         @!UP3 UIADD UR6, UR0, 0x1\n\
         EXIT",
        |w| {
            w.set_ureg(ur(0), 40);
            w.cmem.write_u32(1, 0x10, 2);
        },
    )
    .warp;
    assert_eq!(w.ureg(ur(4)), 42);
    assert_eq!(w.ureg(ur(5)), 0); // UP3 is false: not executed
    assert_eq!(w.ureg(ur(6)), 41);
}

#[test]
fn uimad_lo_hi_and_wide_products() {
    let w = uniform(
        "UIMAD UR10, UR1, UR2, UR3\n\
         UIMAD.HI.X UR11, UR4, UR5, URZ\n\
         UIMAD.HI.X.U32 UR12, UR4, UR5, URZ\n\
         UIMAD UR13, UR1, 0x10, -UR3",
        &[(1, 3), (2, 4), (3, 5), (4, 0xffff_fffe), (5, 3)],
    );
    assert_eq!(w.ureg(ur(10)), 17); // 3*4 + 5
    assert_eq!(w.ureg(ur(11)), 0xffff_ffff); // hi(-2 * 3 = -6)
    assert_eq!(w.ureg(ur(12)), 2); // hi(0xfffffffe * 3 = 0x2_fffffffa)
    assert_eq!(w.ureg(ur(13)), 43); // 3*16 - 5
                                    // The spec's 64-bit example: UR[0:1] = UR2 * UR3 - UR[4:5] with
                                    // 0x10000 * 0x10000 = 0x1_00000000 and UR[4:5] = 1 → 0x0_ffffffff.
    let w = uniform(
        "UIMAD UR0, UP0, UR2, UR3, -UR4\n\
         UIMAD.HI.X UR1, UR2, UR3, ~UR5, UP0",
        &[(2, 0x10000), (3, 0x10000), (4, 1), (5, 0)],
    );
    assert_eq!((w.ureg(ur(0)), w.ureg(ur(1))), (0xffff_ffff, 0));
}

#[test]
fn uimad_wide_signed_unsigned_and_carry() {
    let w = uniform(
        "UIMAD.WIDE UR[10:11], UR1, UR2, UR[4:5]\n\
         UIMAD.WIDE.U32 UR[12:13], UR1, UR2, UR[4:5]\n\
         UIMAD.WIDE.U32 UR[14:15], UR1, 0x2, -UR[4:5]",
        &[(1, 0xffff_fffe), (2, 3), (4, 10), (5, 0)],
    );
    // (-2)*3 + 10 = 4.
    assert_eq!((w.ureg(ur(10)), w.ureg(ur(11))), (4, 0));
    // 0xfffffffe*3 + 10 = 0x2_fffffffa + 10 = 0x3_00000004.
    assert_eq!((w.ureg(ur(12)), w.ureg(ur(13))), (4, 3));
    // 0xfffffffe*2 - 10 = 0x1_fffffffc - 10 = 0x1_fffffff2.
    assert_eq!((w.ureg(ur(14)), w.ureg(ur(15))), (0xffff_fff2, 1));
    // 0xffffffff² + 0x1_ffffffff = 0xfffffffe_00000001 + 0x1_ffffffff = 2^64: 0, carry.
    let w = uniform(
        "UIMAD.WIDE.U32 UR[10:11], UP2, UR1, UR1, UR[4:5]\n\
         UIMAD.WIDE.X.U32 UR[12:13], URZ, URZ, URZ, UP2",
        &[(1, 0xffff_ffff), (4, 0xffff_ffff), (5, 1)],
    );
    assert_eq!((w.ureg(ur(10)), w.ureg(ur(11))), (0, 0));
    assert!(w.upred(up(2)));
    assert_eq!((w.ureg(ur(12)), w.ureg(ur(13))), (1, 0)); // 0 + 0 + carry
}

#[test]
fn uimul_lo_hi() {
    let w = uniform(
        "UIMUL UR10, UR1, UR2\n\
         UIMUL.HI UR11, UR1, UR2\n\
         UIMUL.HI.U32 UR12, UR1, UR2\n\
         UIMUL UR13, UR2, -UR2\n\
         UIMUL.HI.U32 UR14, UR3, 0x114514",
        &[(1, 0xffff_ffff), (2, 7), (3, 0x1000_0000)],
    );
    assert_eq!(w.ureg(ur(10)), 0xffff_fff9); // -7
    assert_eq!(w.ureg(ur(11)), 0xffff_ffff); // hi(-7)
    assert_eq!(w.ureg(ur(12)), 6); // hi(0xffffffff*7 = 0x6_fffffff9)
    assert_eq!(w.ureg(ur(13)), (-49i32) as u32);
    assert_eq!(w.ureg(ur(14)), 0x11451); // 0x114514 << 28 >> 32
}

#[test]
fn ulea_three_modes() {
    let w = uniform(
        "ULEA UR10, UP0, UR1, UR2, UR3, 0x4\n\
         ULEA.HI.X UR11, UP1, UR4, UR2, UR5, 0x4, UP0\n\
         ULEA.HI.X.SX32 UR12, UR4, UR2, URZ, 0x4\n\
         ULEA UR13, UP2, -UR1, UR6, URZ, 0x2",
        &[(1, 3), (2, 100), (3, 0), (4, 0x8000_0000), (5, 1), (6, 12)],
    );
    assert_eq!(w.ureg(ur(10)), 148); // (3 << 4) + 100
    assert!(!w.upred(up(0)));
    // {1, 0x80000000} << 4 = 0x18_00000000: high 0x18, + 100 + carry-in 0.
    assert_eq!(w.ureg(ur(11)), 0x18 + 100);
    // sext(0x80000000) << 4 = 0xfffffff8_00000000: high 0xfffffff8, + 100.
    assert_eq!(w.ureg(ur(12)), 0xffff_fff8u32.wrapping_add(100));
    // (-3 << 2) + 12 = 0 with a carry out.
    assert_eq!(w.ureg(ur(13)), 0);
    assert!(w.upred(up(2)));
}

#[test]
fn ulea_negated_pair_computes_the_spec_example() {
    // The spec's example: `ULEA -UR2` then `ULEA.HI.X.SX32 ~UR2 … UP0` compute
    // UR[0:1] = (-UR2 << n) + UR[4:5]. -a << n is (~sext(a) << n) + (1 << n): the low
    // ULEA's carry must be that of (~a << n) + (1 << n) + SrcB ([D18]).
    // a = 0, n = 0: ~0 + 1 + 0 = 2^32 → low 0, carry; high ~0 + 0 + 1 = 0.
    let w = uniform(
        "ULEA UR0, UP0, -UR2, UR4, URZ, 0x0\n\
         ULEA.HI.X.SX32 UR1, UP1, ~UR2, UR5, URZ, 0x0, UP0",
        &[(2, 0), (4, 0), (5, 0)],
    );
    assert_eq!((w.ureg(ur(0)), w.ureg(ur(1))), (0, 0));
    assert!(w.upred(up(0)));
    // a = 0x100, n = 24: -0x100 << 24 = 0xffffffff_00000000. Low: (0xfffffeff << 24)
    // = 0xff000000, + (1 << 24) = 2^32 → 0, carry; high: hi(~sext(0x100) << 24) =
    // 0xfffffffe, + 0 + 1.
    let w = uniform(
        "ULEA UR6, UP2, -UR3, UR4, URZ, 0x18\n\
         ULEA.HI.X.SX32 UR7, UP3, ~UR3, UR5, URZ, 0x18, UP2",
        &[(3, 0x100), (4, 0), (5, 0)],
    );
    assert_eq!((w.ureg(ur(6)), w.ureg(ur(7))), (0, 0xffff_ffff));
    // The first case the H200 disagreed on before the fix: a = 0x090b6fe0, n = 31,
    // {c, b} = 0x6d4c8221_ffefffff. a << 31 = 0x0485b7f0_00000000, negated
    // 0xfb7a4810_00000000; + {c, b} = 0x68c6ca31_ffefffff (0xfb7a4810 + 0x6d4c8221
    // carries out of 64 bits). The low instruction: ~a << 31 = 0x80000000 (a is even),
    // + 2^31 = 2^32: the carry that the truncated (-a) << 31 = 0 lost.
    let w = uniform(
        "ULEA UR10, UP4, -UR1, UR2, URZ, 0x1f\n\
         ULEA.HI.X.SX32 UR11, UP5, ~UR1, UR3, URZ, 0x1f, UP4",
        &[(1, 0x090b_6fe0), (2, 0xffef_ffff), (3, 0x6d4c_8221)],
    );
    assert_eq!((w.ureg(ur(10)), w.ureg(ur(11))), (0xffef_ffff, 0x68c6_ca31));
    assert!(w.upred(up(4)));
    // a = 1, n = 0: -1 + 0 = 0xffffffff_ffffffff; ~1 + 1 = 0xffffffff, no carry.
    let w = uniform(
        "ULEA UR0, UP0, -UR2, URZ, URZ, 0x0\n\
         ULEA.HI.X.SX32 UR1, UP1, ~UR2, URZ, URZ, 0x0, UP0",
        &[(2, 1)],
    );
    assert_eq!((w.ureg(ur(0)), w.ureg(ur(1))), (0xffff_ffff, 0xffff_ffff));
    assert!(!w.upred(up(0)));
}

#[test]
fn uf2fp_nan_is_the_canonical_half_nan() {
    // [D15] as the GPU: every NaN input half is 0x7fff (sign and payload dropped);
    // infinities keep their sign.
    let w = uniform(
        "UF2FP UR0, UR1, UR2, URZ\n\
         UF2FP UR3, UR4, UR5, URZ\n\
         UF2FP UR6, UR7, UR8, URZ\n\
         UF2FP UR9, UR10, UR11, URZ",
        &[
            (1, 0x3f80_0000),  // 1.0 → 0x3c00
            (2, 0xffa0_0000),  // -NaN (signalling) → 0x7fff
            (4, 0x7f80_0001),  // the smallest signalling NaN
            (5, 0x7fc0_0000),  // the default quiet NaN
            (7, 0xffff_ffff),  // -NaN, every payload bit set
            (8, 0xff80_0000),  // -inf → 0xfc00
            (10, 0x7fff_e000), // +NaN whose top payload bits are all ones
            (11, 0x7f80_0000), // +inf → 0x7c00
        ],
    );
    assert_eq!(w.ureg(ur(0)), 0x3c00_7fff);
    assert_eq!(w.ureg(ur(3)), 0x7fff_7fff);
    assert_eq!(w.ureg(ur(6)), 0x7fff_fc00);
    assert_eq!(w.ureg(ur(9)), 0x7fff_7c00);
}

#[test]
fn uiabs_uimnmx_usel() {
    let w = uniform(
        "UIABS UR10, UR1\n\
         UIABS UR11, 0xFFFFFFFF\n\
         UIABS UR12, UR2\n\
         UIMNMX UR13, UR1, UR3, UPT\n\
         UIMNMX.U32 UR14, UR1, UR3, UPT\n\
         UIMNMX UR15, UR1, UR3, !UPT\n\
         USEL UR16, UR1, UR3, UPT\n\
         USEL UR17, UR1, 0x9, !UPT",
        &[(1, (-5i32) as u32), (2, 0x8000_0000), (3, 1)],
    );
    assert_eq!(w.ureg(ur(10)), 5);
    assert_eq!(w.ureg(ur(11)), 1);
    assert_eq!(w.ureg(ur(12)), 0x8000_0000); // |INT_MIN| wraps
    assert_eq!(w.ureg(ur(13)), (-5i32) as u32); // signed min
    assert_eq!(w.ureg(ur(14)), 1); // unsigned min
    assert_eq!(w.ureg(ur(15)), 1); // signed max
    assert_eq!(w.ureg(ur(16)), (-5i32) as u32);
    assert_eq!(w.ureg(ur(17)), 9);
}

#[test]
fn uisetp_compare_boolop_and_extended() {
    let w = uniform(
        "UISETP.LT.AND UP0, UP1, UR1, UR2, UPT\n\
         UISETP.LT.U32.AND UP2, UPT, UR1, UR2, UPT\n\
         UISETP.EQ.XOR UP3, UPT, UR1, UR1, UPT\n\
         UISETP.GE.OR UP4, UPT, UR2, 0x5, !UPT",
        &[(1, (-1i32) as u32), (2, 3)],
    );
    assert!(w.upred(up(0))); // -1 < 3 signed
    assert!(!w.upred(up(1))); // !t & true
    assert!(!w.upred(up(2))); // 0xffffffff < 3 unsigned: false
    assert!(!w.upred(up(3))); // true ^ true
    assert!(!w.upred(up(4))); // 3 >= 5 false, or false
                              // 64-bit compare {UR5,UR4} < {UR7,UR6} as low (U32) then high with .X.
    for (a, b, lt) in [
        (0x1_0000_0005u64, 0x1_0000_0007u64, true),
        (0x1_0000_0009, 0x1_0000_0007, false),
        (0x0_ffff_ffff, 0x1_0000_0000, true),
        (0x2_0000_0000, 0x1_ffff_ffff, false),
    ] {
        let w = uniform(
            "UISETP.LT.U32.AND UP0, UPT, UR4, UR6, UPT\n\
             UISETP.LT.U32.AND.X UP1, UPT, UR5, UR7, UPT, UP0",
            &[
                (4, a as u32),
                (5, (a >> 32) as u32),
                (6, b as u32),
                (7, (b >> 32) as u32),
            ],
        );
        assert_eq!(w.upred(up(1)), lt, "{a:#x} < {b:#x}");
    }
}

#[test]
fn ulop3_and_uplop3_truth_tables() {
    let w = uniform(
        "ULOP3.POR UR10, UR1, UR2, UR3, 0x96, !UPT\n\
         ULOP3.POR UR11, UR1, UR2, UR3, 0x80, !UPT\n\
         ULOP3.PAND UR12, UP0, UR1, UR2, UR3, 0xF0, UPT\n\
         ULOP3.PAND UR13, UP1, UR1, 0xff00, UR3, 0x0, UPT\n\
         ULOP3.POR UR14, UP2, UR1, UR2, UR3, 0x0, UPT",
        &[(1, 0b1100), (2, 0b1010), (3, 0b0110)],
    );
    assert_eq!(w.ureg(ur(10)), 0b1100 ^ 0b1010 ^ 0b0110); // 0x96 = a^b^c
    assert_eq!(w.ureg(ur(11)), 0b1100 & 0b1010 & 0b0110); // 0x80 = a&b&c
    assert_eq!(w.ureg(ur(12)), 0b1100); // 0xF0 = a
    assert!(w.upred(up(0))); // nonzero & true
    assert!(!w.upred(up(1))); // zero & true
    assert!(w.upred(up(2))); // zero | true
    let w = run(
        "UPLOP3 UP3, UP0, UP1, UP2, 0x80\n\
         UPLOP3 UP4, UP0, !UP1, UP2, 0x80\n\
         UPLOP3 UP5, UP1, UP1, UP1, 0xFE\n\
         EXIT",
        |w| {
            w.set_upred(up(0), true);
            w.set_upred(up(2), true);
        },
    )
    .warp;
    assert!(!w.upred(up(3))); // 1 & 0 & 1
    assert!(w.upred(up(4))); // 1 & !0 & 1
    assert!(!w.upred(up(5))); // or of zeros
}

/// UPLOP3's whole truth table: the result is bit `4a + 2b + c` of the LUT, and only
/// that bit (the bits above it do not count). The LUTs are the usual LOP3 constants
/// (`0xF0` = a, `0xCC` = b, `0xAA` = c), so each expected value is the function.
#[test]
fn uplop3_reads_one_lut_bit_for_every_input() {
    type Lop = fn(bool, bool, bool) -> bool;
    let funcs: [(u8, Lop); 8] = [
        (0xF0, |a, _, _| a),
        (0xCC, |_, b, _| b),
        (0xAA, |_, _, c| c),
        (0x96, |a, b, c| a ^ b ^ c),
        (0xE8, |a, b, c| (a & b) | (b & c) | (a & c)),
        (0xFE, |a, b, c| a | b | c),
        (0x01, |a, b, c| !(a | b | c)),
        (0xFF, |_, _, _| true),
    ];
    for (lut, f) in funcs {
        for k in 0..8u8 {
            let (a, b, c) = (k & 4 != 0, k & 2 != 0, k & 1 != 0);
            let w = run(
                &format!(
                    "UPLOP3 UP3, UP0, UP1, UP2, {lut:#x}
EXIT"
                ),
                |w| {
                    w.set_upred(up(0), a);
                    w.set_upred(up(1), b);
                    w.set_upred(up(2), c);
                },
            )
            .warp;
            assert_eq!(
                w.upred(up(3)),
                f(a, b, c),
                "LUT {lut:#x}, a={a} b={b} c={c}"
            );
        }
    }
}

#[test]
fn ushf_directions_types_clamp_and_wrap() {
    let w = uniform(
        "USHF.L.HI.S32 UR10, UR7, 0x24, UR0\n\
         USHF.L UR11, UR1, UR2, URZ\n\
         USHF.R.S32.HI UR12, URZ, 0x1f, UR3\n\
         USHF.R.U32.HI UR13, URZ, 0x1f, UR3\n\
         USHF.R.U64 UR14, UR1, 0x28, UR3\n\
         USHF.L.W UR15, UR1, 0x21, URZ\n\
         USHF.R.S64 UR16, UR1, 0x50, UR3\n\
         USHF.L.U64.HI UR17, UR1, 0x40, UR3",
        &[
            (7, 0x1234_5678),
            (0, 0xdead_beef),
            (1, 0x0000_00ff),
            (2, 4),
            (3, 0x8000_0001),
        ],
    );
    // Clamp to 32: the high half of {UR0,UR7} << 32 is UR7 (the spec's own example).
    assert_eq!(w.ureg(ur(10)), 0x1234_5678);
    assert_eq!(w.ureg(ur(11)), 0xff0);
    // {0x80000001, 0} >> 31 arithmetic, high half = sign of UR3 → 0xffffffff.
    assert_eq!(w.ureg(ur(12)), 0xffff_ffff);
    assert_eq!(w.ureg(ur(13)), 1);
    // {0x80000001, 0xff} >> 40 (U64): low half = 0x80000001 >> 8 = 0x00800000.
    assert_eq!(w.ureg(ur(14)), 0x0080_0000);
    // Wrap: 33 mod 32 = 1.
    assert_eq!(w.ureg(ur(15)), 0x1fe);
    // S64 clamp at 64: all sign bits.
    assert_eq!(w.ureg(ur(16)), 0xffff_ffff);
    // Shift by 64: nothing left.
    assert_eq!(w.ureg(ur(17)), 0);
}

#[test]
fn umov_widths_and_constant_memory() {
    let w = run(
        "UMOV UR10, UR1\n\
         UMOV UR11, 0x114514\n\
         UMOV.64 UR[12:13], UR[2:3]\n\
         UMOV UR14, c[0x3][0x8]\n\
         UMOV.64 UR[16:17], c[0x3][0x8]\n\
         EXIT",
        |w| {
            urs(w, &[(1, 7), (2, 0xaaaa), (3, 0xbbbb)]);
            w.cmem.write_u32(3, 8, 0x1111);
            w.cmem.write_u32(3, 12, 0x2222);
        },
    )
    .warp;
    assert_eq!(w.ureg(ur(10)), 7);
    assert_eq!(w.ureg(ur(11)), 0x114514);
    assert_eq!((w.ureg(ur(12)), w.ureg(ur(13))), (0xaaaa, 0xbbbb));
    assert_eq!(w.ureg(ur(14)), 0x1111);
    assert_eq!((w.ureg(ur(16)), w.ureg(ur(17))), (0x1111, 0x2222));
}

#[test]
fn uprmt_every_mode() {
    // t = {b, a}: bytes 0..3 = 44 33 22 11 (a = 0x11223344), 4..7 = 88 77 66 55.
    let a = 0x1122_3344;
    let b = 0x5566_7788;
    let w = uniform(
        "UPRMT UR10, UR1, UR2, 0x7531\n\
         UPRMT UR11, UR1, UR2, 0x0b08\n\
         UPRMT.F4E UR12, UR1, UR2, 0x1\n\
         UPRMT.B4E UR13, UR1, UR2, 0x1\n\
         UPRMT.RC8 UR14, UR1, UR2, 0x2\n\
         UPRMT.ECL UR15, UR1, UR2, 0x2\n\
         UPRMT.ECR UR16, UR1, UR2, 0x2\n\
         UPRMT.RC16 UR17, UR1, UR2, 0x1",
        &[(1, a), (2, b)],
    );
    // selectors 1,3,5,7 → bytes 0x33, 0x11, 0x77, 0x55.
    assert_eq!(w.ureg(ur(10)), 0x5577_1133);
    // nibbles 8, 0, b, 0: sign of byte 0 (0x44 → 0x00), byte 0, sign of byte 3
    // (0x11 → 0x00), byte 0.
    assert_eq!(w.ureg(ur(11)), 0x4400_4400);
    // f4e 1: bytes 1,2,3,4 → 0x33 0x22 0x11 0x88.
    assert_eq!(w.ureg(ur(12)), 0x8811_2233);
    // b4e 1: bytes 1,0,7,6 → 0x33 0x44 0x55 0x66.
    assert_eq!(w.ureg(ur(13)), 0x6655_4433);
    // rc8 2: byte 2 everywhere.
    assert_eq!(w.ureg(ur(14)), 0x2222_2222);
    // ecl 2: bytes 2,2,2,3.
    assert_eq!(w.ureg(ur(15)), 0x1122_2222);
    // ecr 2: bytes 0,1,2,2.
    assert_eq!(w.ureg(ur(16)), 0x2222_3344);
    // rc16 1: bytes 2,3,2,3.
    assert_eq!(w.ureg(ur(17)), 0x1122_1122);
    // Sign replication: selector 0xf takes the sign of byte 7 (0x55 → 0x00), 0x9 of byte 1.
    let w = uniform("UPRMT UR10, UR1, UR2, 0x9f9f", &[(1, 0x0000_8000), (2, 0)]);
    assert_eq!(w.ureg(ur(10)), 0xff00_ff00);
}

#[test]
fn upopc_uflo_ubrev() {
    let w = uniform(
        "UPOPC UR10, UR1\n\
         UPOPC UR11, ~UR1\n\
         UFLO.U32 UR12, UR1\n\
         UFLO.U32.SH UR13, UR1\n\
         UFLO UR14, UR2\n\
         UFLO UR15, UR3\n\
         UFLO.U32.SH UR16, URZ\n\
         UFLO UR17, UR4\n\
         UBREV UR18, UR1\n\
         UBREV UR19, 0x1",
        &[
            (1, 0x0000_f00f),
            (2, (-4i32) as u32),
            (3, 0x40),
            (4, 0xffff_ffff),
        ],
    );
    assert_eq!(w.ureg(ur(10)), 8);
    assert_eq!(w.ureg(ur(11)), 24);
    assert_eq!(w.ureg(ur(12)), 15);
    assert_eq!(w.ureg(ur(13)), 16); // 31 - 15
    assert_eq!(w.ureg(ur(14)), 1); // ~(-4) = 3 → bit 1
    assert_eq!(w.ureg(ur(15)), 6);
    assert_eq!(w.ureg(ur(16)), 0xffff_ffff); // the spec's example: no 1 found
    assert_eq!(w.ureg(ur(17)), 0xffff_ffff); // -1 has no non-sign bit
    assert_eq!(w.ureg(ur(18)), 0xf00f_0000); // bit-reversed
    assert_eq!(w.ureg(ur(19)), 0x8000_0000);
}

#[test]
fn ubmsk_and_usgxt() {
    let w = uniform(
        "UBMSK UR10, UR1, UR2\n\
         UBMSK UR11, UR3, UR2\n\
         UBMSK UR12, UR4, UR2\n\
         UBMSK.W UR13, UR4, UR2\n\
         UBMSK UR14, UR1, 0x40\n\
         UBMSK UR15, UR1, 0x0\n\
         USGXT UR16, UR5, 0x3\n\
         USGXT.U32 UR17, UR6, 0x10\n\
         USGXT UR18, UR5, 0x0\n\
         USGXT UR19, UR5, 0x28\n\
         USGXT.W UR20, UR5, 0x23",
        &[
            (1, 4),
            (2, 8),
            (3, 28),
            (4, 36),
            (5, 0x0000_0005),
            (6, 0xffff_8001),
        ],
    );
    assert_eq!(w.ureg(ur(10)), 0x0000_0ff0); // 8 ones from bit 4
    assert_eq!(w.ureg(ur(11)), 0xf000_0000); // 28+8 > 32: up to bit 31
    assert_eq!(w.ureg(ur(12)), 0); // clamp: position 36 ≥ 32
    assert_eq!(w.ureg(ur(13)), 0x0000_0ff0); // wrap: 36 mod 32 = 4
    assert_eq!(w.ureg(ur(14)), 0xffff_fff0); // width ≥ 32: all from bit 4
    assert_eq!(w.ureg(ur(15)), 0);
    assert_eq!(w.ureg(ur(16)), 0xffff_fffd); // 0b101 as 3-bit signed = -3
    assert_eq!(w.ureg(ur(17)), 0x8001);
    assert_eq!(w.ureg(ur(18)), 0);
    assert_eq!(w.ureg(ur(19)), 5); // clamp 40 → 32 bits
    assert_eq!(w.ureg(ur(20)), 0xffff_fffd); // wrap 35 → 3 bits
}

#[test]
fn up2ur_and_ur2up() {
    let w = run(
        "UP2UR UR10, UPR, UR1, 0xff\n\
         UP2UR.B1 UR11, UPR, UR1, 0x0f\n\
         UR2UP UPR, UR2.B1, 0x0c\n\
         EXIT",
        |w| {
            // UP0, UP2 true; UP7 = UPT reads 1: upr = 0b1000_0101.
            w.set_upred(up(0), true);
            w.set_upred(up(2), true);
            urs(w, &[(1, 0xaabb_ccdd), (2, 0x0000_0800)]);
        },
    )
    .warp;
    assert_eq!(w.ureg(ur(10)), 0xaabb_cc85);
    // byte 1 = 0xcc: low nibble from upr (0x5), high nibble kept (0xc) → 0xc5.
    assert_eq!(w.ureg(ur(11)), 0xaabb_c5dd);
    // byte 1 of UR2 = 0x08, mask 0x0c: UP2 = bit 2 = 0, UP3 = bit 3 = 1; UP0 untouched.
    assert!(w.upred(up(0)) && !w.upred(up(2)) && w.upred(up(3)));
}

/// UR2UP sets each selected UPn to bit n of the selected byte alone, whatever the
/// byte's higher bits hold.
#[test]
fn ur2up_takes_one_bit_of_the_byte_per_predicate() {
    // Byte 2 of UR2 = 0x6d = 0b0110_1101; mask 0x7f selects UP0..UP6. UP0..UP6 start
    // at the opposite of what they get.
    let w = run("UR2UP UPR, UR2.B2, 0x7f\nEXIT", |w| {
        for n in [1, 4] {
            w.set_upred(up(n), true);
        }
        urs(w, &[(2, 0x116d_2233)]);
    })
    .warp;
    let got: Vec<bool> = (0..7).map(|n| w.upred(up(n))).collect();
    assert_eq!(got, [true, false, true, true, false, true, true]);
    // UP7 (UPT) always reads 1.
    assert_eq!(w.upr(), 0xed);
}

#[test]
fn getugpr_setugpr_and_index_fault() {
    let w = uniform(
        "SETUGPR UR[UR2+0x1], UR0\n\
         GETUGPR UR1, UR[UR2]\n\
         GETUGPR UR3, UR[UR2+0x1]",
        &[(0, 77), (2, 4), (4, 9)],
    );
    assert_eq!(w.ureg(ur(5)), 77);
    assert_eq!(w.ureg(ur(1)), 9);
    assert_eq!(w.ureg(ur(3)), 77);
    let mut m = start("GETUGPR UR1, UR[UR2+0x3f]\nEXIT", |w| urs(w, &[(2, 1)]));
    match m.run(10) {
        isa_runtime::Stop::Fault(f) => {
            assert_eq!(f.pc, 0);
            assert_eq!(f.kind, isa_runtime::FaultKind::UrIndexOutOfRange(64));
            assert!(f.to_string().contains("GETUGPR UR1, UR[UR2+0x3f]"), "{f}");
        }
        s => panic!("{s:?}"),
    }
}

#[test]
fn uldc_every_dtype() {
    let w = run(
        "ULDC UR10, c[0x0][0x160]\n\
         ULDC.S8 UR11, c[0x1][UR4-0x1]\n\
         ULDC.U8 UR12, c[0x1][UR4-0x1]\n\
         ULDC.S16 UR13, c[0x1][0x2]\n\
         ULDC.U16 UR14, c[0x1][0x2]\n\
         ULDC.64 UR[16:17], c[0x0][0x160]\n\
         ULDC.128 UR[20:23], c[0x0][UR5+0x10]\n\
         EXIT",
        |w| {
            w.cmem.write_u32(0, 0x160, 5);
            w.cmem.write_u32(0, 0x164, 6);
            w.cmem.write_u32(1, 0, 0x8001_ff00);
            for k in 0..4 {
                w.cmem.write_u32(0, 0x20 + 4 * k, 100 + k);
            }
            urs(w, &[(4, 2), (5, 0x10)]);
        },
    )
    .warp;
    assert_eq!(w.ureg(ur(10)), 5);
    assert_eq!(w.ureg(ur(11)), 0xffff_ffff); // byte 1 = 0xff, sign-extended
    assert_eq!(w.ureg(ur(12)), 0xff);
    assert_eq!(w.ureg(ur(13)), 0xffff_8001);
    assert_eq!(w.ureg(ur(14)), 0x8001);
    assert_eq!((w.ureg(ur(16)), w.ureg(ur(17))), (5, 6));
    assert_eq!(
        [20, 21, 22, 23].map(|n| w.ureg(ur(n))),
        [100, 101, 102, 103]
    );
}

#[test]
fn uf2fp_packs_two_halves() {
    // 1.0 = 0x3c00, -2.0 = 0xc000, 65504 = 0x7bff, 1e9 → inf 0x7c00,
    // 2^-24 (smallest f16 subnormal) = 0x0001, NaN → 0x7fff ([D15]), 1 + 2^-11 (tie) → 1.0.
    let f = |x: f32| x.to_bits();
    let w = uniform(
        "UF2FP UR10, UR1, UR2, URZ\n\
         UF2FP UR11, UR3, UR4, URZ\n\
         UF2FP UR12, UR5, UR6, URZ\n\
         UF2FP UR13, UR7, UR8, URZ",
        &[
            (1, f(1.0)),
            (2, f(-2.0)),
            (3, f(65504.0)),
            (4, f(1e9)),
            (5, f(2f32.powi(-24))),
            (6, f(f32::NAN)),
            (7, f(1.0 + 2f32.powi(-11))),
            (8, f(1.0 + 3.0 * 2f32.powi(-11))),
        ],
    );
    assert_eq!(w.ureg(ur(10)), 0x3c00_c000);
    assert_eq!(w.ureg(ur(11)), 0x7bff_7c00);
    assert_eq!(w.ureg(ur(12)), 0x0001_7fff);
    // 1 + 3·2^-11 is halfway between 0x3c01 and 0x3c02: to even → 0x3c02.
    assert_eq!(w.ureg(ur(13)), 0x3c00_3c02);
}
