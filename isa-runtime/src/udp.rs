//! Arithmetic of the uniform datapath (udp.isa), as pure functions of operand values.
//!
//! The numbered comments `[Dn]` refer to the deviations listed in the crate docs.

use isa::{BoolOp, CompOp, CwMode, PrmtMode, ShfDir, ShfdType};

/// What an operand adds to an adder: itself; with the negate sub-field set, its
/// two's complement (`~x + 1`) in the plain form and its bitwise inverse (`~x`) in
/// the `.X` form (`CvtINegX`: the sub-field prints `-` or `~`). Computing `-x` as
/// `~x + 1` inside the wide sum gives the usual carry (= no borrow) of a subtraction.
#[inline]
pub fn term(x: u32, neg: bool, x_form: bool) -> u64 {
    match (neg, x_form) {
        (false, _) => u64::from(x),
        (true, true) => u64::from(!x),
        (true, false) => u64::from(!x) + 1,
    }
}

/// 64-bit version of [`term`].
#[inline]
pub fn term64(x: u64, neg: bool, x_form: bool) -> u128 {
    match (neg, x_form) {
        (false, _) => u128::from(x),
        (true, true) => u128::from(!x),
        (true, false) => u128::from(!x) + 1,
    }
}

/// A 32-bit sum of adder terms: the result and the carry out. \[D8\] The carry is
/// `sum >= 2^32`, not the spec's `sum > 4294967296`.
#[inline]
pub fn sum32(terms: u64) -> (u32, bool) {
    (terms as u32, terms >> 32 != 0)
}

/// High 32 bits of the 64-bit product.
#[inline]
pub fn mul_hi(a: u32, b: u32, signed: bool) -> u32 {
    (mul_wide(a, b, signed) >> 32) as u32
}

/// The 64-bit product (two's complement when signed).
#[inline]
pub fn mul_wide(a: u32, b: u32, signed: bool) -> u64 {
    if signed {
        (i64::from(a as i32) * i64::from(b as i32)) as u64
    } else {
        u64::from(a) * u64::from(b)
    }
}

/// Integer comparison of UISETP.
#[inline]
pub fn compare(a: u32, b: u32, op: CompOp, signed: bool) -> bool {
    let ord = if signed {
        (a as i32).cmp(&(b as i32))
    } else {
        a.cmp(&b)
    };
    match op {
        CompOp::Eq => ord.is_eq(),
        CompOp::Ne => ord.is_ne(),
        CompOp::Lt => ord.is_lt(),
        CompOp::Le => ord.is_le(),
        CompOp::Gt => ord.is_gt(),
        CompOp::Ge => ord.is_ge(),
    }
}

/// `a boolop b`.
#[inline]
pub fn bool_op(a: bool, b: bool, op: BoolOp) -> bool {
    match op {
        BoolOp::And => a && b,
        BoolOp::Or => a || b,
        BoolOp::Xor => a ^ b,
    }
}

/// The LOP3 truth table: bit `(a << 2) | (b << 1) | c` of `lut` for each bit position
/// (so `lut = F(0xF0, 0xCC, 0xAA)`).
#[inline]
pub fn lop3(a: u32, b: u32, c: u32, lut: u8) -> u32 {
    let mut r = 0;
    for i in 0..8u32 {
        if lut >> i & 1 == 1 {
            let ma = if i & 4 != 0 { a } else { !a };
            let mb = if i & 2 != 0 { b } else { !b };
            let mc = if i & 1 != 0 { c } else { !c };
            r |= ma & mb & mc;
        }
    }
    r
}

/// USHF: funnel shift of `{c, a}` (c high) by `b`, lower or upper 32 bits of the
/// result. \[D9\] the spec's garbled `n = (.cwmod == .CLAMP) ? min(n_ub, ) : min(b,
/// n_ub) : mod(b, n_ub)` is `CLAMP ? min(b, n_ub) : b mod n_ub`.
pub fn shf(a: u32, b: u32, c: u32, dir: ShfDir, hi: bool, ty: ShfdType, cw: CwMode) -> u32 {
    let t = u64::from(a) | u64::from(c) << 32;
    let n_ub: u32 = match ty {
        ShfdType::S64 | ShfdType::U64 => 64,
        ShfdType::S32 | ShfdType::U32 => 32,
    };
    let n = match cw {
        CwMode::C => b.min(n_ub),
        CwMode::W => b % n_ub,
    };
    let signed = matches!(ty, ShfdType::S32 | ShfdType::S64);
    let r = match dir {
        ShfDir::L => t.checked_shl(n).unwrap_or(0),
        ShfDir::R if signed => ((t as i64) >> n.min(63)) as u64,
        ShfDir::R => t.checked_shr(n).unwrap_or(0),
    };
    if hi {
        (r >> 32) as u32
    } else {
        r as u32
    }
}

/// UPRMT: byte permute of `t = {b, a}` (bytes 0..3 from `a`, 4..7 from `b`) under
/// selector `c`, as PTX `prmt` defines each mode.
pub fn prmt(a: u32, b: u32, c: u32, mode: PrmtMode) -> u32 {
    let t = u64::from(a) | u64::from(b) << 32;
    let byte = |i: u32| (t >> (8 * (i & 7)) & 0xff) as u32;
    let s = c & 3;
    let mut r = 0u32;
    for i in 0..4u32 {
        let v = match mode {
            PrmtMode::Idx => {
                let sel = c >> (4 * i) & 0xf;
                let v = byte(sel & 7);
                if sel & 8 != 0 {
                    if v & 0x80 != 0 {
                        0xff
                    } else {
                        0
                    }
                } else {
                    v
                }
            }
            PrmtMode::F4e => byte(s + i),
            PrmtMode::B4e => byte(s.wrapping_sub(i) & 7),
            PrmtMode::Rc8 => byte(s),
            PrmtMode::Ecl => byte(s.max(i)),
            PrmtMode::Ecr => byte(s.min(i)),
            PrmtMode::Rc16 => byte((s & 1) * 2 + (i & 1)),
        };
        r |= v << (8 * i);
    }
    r
}

/// UFLO: position of the most significant 1 (for `.S32`, of the most significant bit
/// that differs from the sign bit), `0xFFFFFFFF` when there is none; with `.SH`,
/// `31 - position`. \[D10\]
pub fn flo(x: u32, signed: bool, sh: bool) -> u32 {
    let v = if signed && (x as i32) < 0 { !x } else { x };
    if v == 0 {
        return u32::MAX;
    }
    let pos = 31 - v.leading_zeros();
    if sh {
        31 - pos
    } else {
        pos
    }
}

/// UBMSK: `b` ones starting at bit `a`, as the spec's pseudocode.
pub fn bmsk(a: u32, b: u32, cw: CwMode) -> u32 {
    let a1 = a & 0x1f;
    let b1 = b & 0x1f;
    let mut mask0 = u32::MAX << a1;
    let sum = a1 + b1;
    let mut overflow = sum >= 32;
    if cw == CwMode::C {
        if a >= 32 {
            mask0 = 0;
            overflow = true;
        }
        if b >= 32 {
            overflow = true;
        }
    }
    let mask1 = if overflow {
        0
    } else if b1 == 0 {
        u32::MAX
    } else {
        u32::MAX << sum
    };
    mask0 & !mask1
}

/// USGXT: the low `b` bits of `a` extended to 32 bits.
pub fn sgxt(a: u32, b: u32, signed: bool, cw: CwMode) -> u32 {
    let bw = match cw {
        CwMode::C => b.min(32),
        CwMode::W => b % 32,
    };
    if bw == 0 {
        return 0;
    }
    if bw == 32 {
        return a;
    }
    let low = a & ((1u32 << bw) - 1);
    if signed && low >> (bw - 1) & 1 == 1 {
        low | !((1u32 << bw) - 1)
    } else {
        low
    }
}

/// ULEA: the shifted base (`a` alone, or `{c, a}` / sign-extended `a` for `.HI`),
/// negated or inverted, shifted left by `sh`, its low (`.LO`) or high 32 bits.
/// \[D11\] the spec's `t & 0xFFFFFFFF + SrcB` is `(t & 0xFFFFFFFF) + SrcB`.
pub fn lea_shifted(a: u32, c: u32, neg: bool, x_form: bool, hi: bool, sx32: bool, sh: u8) -> u32 {
    let base: u64 = if !hi {
        u64::from(a)
    } else if sx32 {
        i64::from(a as i32) as u64
    } else {
        u64::from(a) | u64::from(c) << 32
    };
    let base = match (neg, x_form) {
        (false, _) => base,
        (true, true) => !base,
        (true, false) => base.wrapping_neg(),
    };
    let shifted = base << (sh & 31);
    if hi {
        (shifted >> 32) as u32
    } else {
        shifted as u32
    }
}

/// ULEA's shifted base as an adder term (its low 32 bits are [`lea_shifted`]).
/// \[D18\] A negated `.LO` base (`-a`, plain form) is the two terms `(~a << sh) & 0xFFFFFFFF`
/// and `1 << sh`, kept apart in the sum as [`term`] keeps `~x + 1`: the carry-out is
/// that of the whole sum `(~a << sh) + (1 << sh) + SrcB` (at most 33 bits), not of the
/// truncated `(-a) << sh` plus `SrcB`. Only so does the `+ (1 << sh)` of the negation
/// reach the high half of a negated 64-bit pair (`ULEA -a` then `ULEA.HI.X ~a …` with
/// the carry), as the spec's example and the GPU say.
pub fn lea_term(a: u32, c: u32, neg: bool, x_form: bool, hi: bool, sx32: bool, sh: u8) -> u64 {
    if neg && !x_form && !hi {
        let sh = sh & 31;
        u64::from(!a << sh) + (1u64 << sh)
    } else {
        u64::from(lea_shifted(a, c, neg, x_form, hi, sx32, sh))
    }
}

/// IEEE binary32 → binary16, round to nearest even. \[D15\] Every NaN (either sign,
/// quiet or signalling, any payload) becomes the canonical NaN `0x7FFF`, as the GPU's
/// F2FP.F16.F32.PACK_AB gives it.
pub fn f32_to_f16(x: u32) -> u16 {
    let sign = ((x >> 16) & 0x8000) as u16;
    let exp = ((x >> 23) & 0xff) as i32;
    let man = x & 0x7f_ffff;
    if exp == 0xff {
        return if man == 0 { sign | 0x7c00 } else { 0x7fff };
    }
    // Value = 1.man * 2^(exp-127) (normal) or 0.man * 2^-126 (subnormal).
    let e = exp - 127 + 15;
    let (m, shift): (u32, i32) = if exp == 0 {
        // f32 subnormals are far below the f16 range: they round to ±0.
        return sign;
    } else if e >= 1 {
        (man | 0x80_0000, 13)
    } else {
        // f16 subnormal: shift the full significand further right.
        (man | 0x80_0000, 13 + (1 - e))
    };
    if shift > 24 {
        return sign;
    }
    let half = 1u32 << (shift - 1);
    let mut q = m >> shift;
    let rem = m & ((1u32 << shift) - 1);
    if rem > half || (rem == half && q & 1 == 1) {
        q += 1;
    }
    if e >= 1 {
        // q holds the implicit bit (0x400..=0x800 after rounding); 0x800 is the next
        // exponent's implicit bit with a zero mantissa, which `q & 0x3ff` reads as is.
        let mut e = e as u32;
        if q >= 0x800 {
            e += 1;
        }
        if e >= 31 {
            return sign | 0x7c00;
        }
        sign | (e << 10) as u16 | (q & 0x3ff) as u16
    } else {
        // Subnormal (rounding up to 0x400 gives the smallest normal, which is right).
        sign | q as u16
    }
}
