//! Numbers as the printers write them: hex and decimal without the formatting
//! machinery (printing is on the disassembler's hot path). The digits are written
//! straight into a slice of known length ([`hex_len`], [`put_hex`]), which lets the
//! one printer write them into its line buffer without a copy; [`write_hex`] and
//! [`write_dec`] serve any [`core::fmt::Write`].

/// How many bytes `v` takes in hex: `-0x1f` is 5.
#[inline]
pub fn hex_len(v: i128) -> usize {
    let bits = 128 - v.unsigned_abs().leading_zeros() as usize;
    usize::from(v < 0) + 2 + bits.div_ceil(4).max(1)
}

/// Writes `v` in hex (`0x1f`, `-0x1`) into `out`, which is [`hex_len`]`(v)` bytes long
/// (a longer `out` gets leading zeros; a shorter one panics).
#[inline]
pub fn put_hex(out: &mut [u8], v: i128) {
    let digits = sign(out, v, b"0x");
    let mut u = v.unsigned_abs();
    for d in digits.iter_mut().rev() {
        *d = b"0123456789abcdef"[(u & 15) as usize];
        u >>= 4;
    }
}

/// How many bytes `v` takes in decimal: `-16` is 3.
#[inline]
pub fn dec_len(v: i128) -> usize {
    let digits = v
        .unsigned_abs()
        .checked_ilog10()
        .map_or(1, |l| l as usize + 1);
    usize::from(v < 0) + digits
}

/// Writes `v` in decimal into `out`, which is [`dec_len`]`(v)` bytes long (as
/// [`put_hex`]).
#[inline]
pub fn put_dec(out: &mut [u8], v: i128) {
    dec_digits(sign(out, v, b""), v.unsigned_abs());
}

/// Writes the sign of `v` and `prefix` at the start of `out`; the rest is for digits.
/// Panics when `out` is shorter than the two.
#[inline]
fn sign<'o>(out: &'o mut [u8], v: i128, prefix: &[u8]) -> &'o mut [u8] {
    let neg = usize::from(v < 0);
    let (head, digits) = out.split_at_mut(neg + prefix.len());
    head[..neg].fill(b'-');
    head[neg..].copy_from_slice(prefix);
    digits
}

/// The decimal digits of `u`, filling `out` from its end: 64-bit division while the
/// value fits (it almost always does), 19 digits at a time above that.
fn dec_digits(out: &mut [u8], u: u128) {
    const E19: u128 = 10_000_000_000_000_000_000;
    match u64::try_from(u) {
        Ok(mut x) => {
            for d in out.iter_mut().rev() {
                *d = b'0' + (x % 10) as u8;
                x /= 10;
            }
        }
        Err(_) => {
            let (high, low) = out.split_at_mut(out.len().saturating_sub(19));
            dec_digits(high, u / E19);
            dec_digits(low, u % E19);
        }
    }
}

/// Writes a signed value in hex (`0x1f`, `-0x1`) to `w`.
pub fn write_hex<W: core::fmt::Write + ?Sized>(w: &mut W, v: i128) -> core::fmt::Result {
    let mut buf = [0u8; 35];
    let out = &mut buf[..hex_len(v)];
    put_hex(out, v);
    w.write_str(ascii(out))
}

/// Writes a signed value in decimal to `w`, as [`write_hex`] does in hex.
pub fn write_dec<W: core::fmt::Write + ?Sized>(w: &mut W, v: i128) -> core::fmt::Result {
    let mut buf = [0u8; 40];
    let out = &mut buf[..dec_len(v)];
    put_dec(out, v);
    w.write_str(ascii(out))
}

/// Digits and signs as text. Checking a few bytes as UTF-8 cost more than the rest of
/// writing the number.
fn ascii(digits: &[u8]) -> &str {
    debug_assert!(digits.is_ascii());
    // SAFETY: the callers write only ASCII digits, `x` and `-` into `digits`, and ASCII
    // is UTF-8.
    unsafe { core::str::from_utf8_unchecked(digits) }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::string::{String, ToString};
    use std::{format, vec};

    /// The printer's number writers against `format!`, across both 64-bit halves.
    #[test]
    fn numbers_are_written_as_format_writes_them() {
        let mut values = vec![
            0i128,
            1,
            -1,
            15,
            16,
            -16,
            255,
            256,
            i128::MAX,
            i128::MIN + 1,
            i128::MIN,
            u64::MAX as i128,
            u64::MAX as i128 + 1,
        ];
        // Around the powers of ten where decimal digits are counted and split.
        for k in 1..=38u32 {
            let p = 10i128.pow(k);
            values.extend([p - 1, p, p + 1, -p, 1 - p]);
        }
        for b in [31u32, 32, 63, 64, 65, 100, 126] {
            let p = 1i128 << b;
            values.extend([p - 1, p, p + 1, -p, p | 0xf, (p << 1).wrapping_sub(1)]);
        }
        // Every digit count, every digit in every place.
        for b in 0..127u32 {
            let p = 1i128 << b;
            values.extend([p, p - 1, -p, 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210 >> b]);
        }
        for v in values {
            let (mut hex, mut dec) = (String::new(), String::new());
            write_hex(&mut hex, v).unwrap();
            write_dec(&mut dec, v).unwrap();
            let want = if v < 0 {
                format!("-{:#x}", v.unsigned_abs())
            } else {
                format!("{v:#x}")
            };
            assert_eq!(hex, want);
            assert_eq!(dec, v.to_string());
            assert_eq!((hex_len(v), dec_len(v)), (hex.len(), dec.len()), "{v}");
        }
    }

    /// A slice longer than the number gets leading zeros, as documented.
    #[test]
    fn a_longer_slice_gets_leading_zeros() {
        let mut out = [b'?'; 7];
        put_hex(&mut out, -0x1f);
        assert_eq!(&out, b"-0x001f");
        put_dec(&mut out, -42);
        assert_eq!(&out, b"-000042");
    }
}
