//! Numbers as the printers write them: hex and decimal without the formatting
//! machinery (printing is on the disassembler's hot path).

/// Writes a signed value in hex (`0x1f`, `-0x1`), without the formatting machinery
/// (printing is on the disassembler's hot path).
pub fn write_hex<W: core::fmt::Write + ?Sized>(w: &mut W, v: i128) -> core::fmt::Result {
    let mut buf = [0u8; 36];
    let u = v.unsigned_abs();
    // Digits from the lowest, 64 bits at a time (immediates rarely need more).
    let (mut lo, mut hi) = (u as u64, (u >> 64) as u64);
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b"0123456789abcdef"[(lo & 15) as usize];
        lo >>= 4;
        if lo == 0 {
            if hi == 0 {
                break;
            }
            // Under a high half, the low one is 16 digits, zeros included.
            if i == buf.len() - 16 {
                (lo, hi) = (hi, 0);
            }
        }
    }
    i -= 2;
    buf[i] = b'0';
    buf[i + 1] = b'x';
    if v < 0 {
        i -= 1;
        buf[i] = b'-';
    }
    w.write_str(ascii(&buf[i..]))
}

/// Writes a signed value in decimal, as [`write_hex`] does in hex.
pub fn write_dec<W: core::fmt::Write + ?Sized>(w: &mut W, v: i128) -> core::fmt::Result {
    let mut buf = [0u8; 40];
    let mut i = buf.len();
    let mut u = v.unsigned_abs();
    loop {
        i -= 1;
        buf[i] = b'0' + (u % 10) as u8;
        u /= 10;
        if u == 0 {
            break;
        }
    }
    if v < 0 {
        i -= 1;
        buf[i] = b'-';
    }
    w.write_str(ascii(&buf[i..]))
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
        ];
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
        }
    }
}
