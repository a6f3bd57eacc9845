//! The decoder's tests over hand-built tables of two opcodes, each with one 3-bit
//! field whose type leaves codes undefined: `A` (fixed low nibble 1) defines the codes
//! 0 to 5 of its field at bit 8, `B` (fixed low nibble 2) the codes 1, 4 and 6.
//! Entry 0 and entry 3 (the padding) refuse every word.

extern crate std;
use std::vec::Vec;

use super::*;

/// The field's codes each opcode defines.
const A_CODES: [u64; 6] = [0, 1, 2, 3, 4, 5];
const B_CODES: [u64; 3] = [1, 4, 6];

/// Bits 8 to 10 at the top of a word read from bit 0.
const SHIFT: u8 = 53;
/// The bits below a 3-bit span at the top.
const BELOW: u64 = (1 << 61) - 1;

fn shape(fixed_in_key: bool, miss_narrow: bool) -> Shape {
    Shape {
        fixed_in_key,
        window: 0,
        halves: false,
        miss: true,
        miss_narrow,
    }
}

/// `B`'s undefined distances from its first code (1): 1, 2 and 4 (codes 2, 3, 5).
const B_MISS: u64 = 0b10110;

/// With `miss_narrow`, the bitmap by the top 6 bits: bit `t` for each distance `t >> 3`.
fn narrow(miss: u64) -> u64 {
    (0..64)
        .filter(|t| (miss >> (t >> 3)) & 1 == 1)
        .map(|t| 1 << t)
        .sum()
}

/// The tables: with `fixed_in_key`, masks of the bits outside the fields only (bits 4
/// to 7 and 11 up are reserved), else the fixed nibble too.
fn tables(fixed_in_key: bool, miss_narrow: bool) -> FastTables<4, 1, ()> {
    let reserved = !0x70fu64;
    let (mask, never_mask, never_bits) = if fixed_in_key {
        (reserved, u64::MAX, 0)
    } else {
        (reserved | 0xf, 0, 1)
    };
    let miss = if miss_narrow { narrow(B_MISS) } else { B_MISS };
    let never_lo = if fixed_in_key { 1 } else { 0 };
    let never_limit = if fixed_in_key { u64::MAX - 1 } else { u64::MAX };
    FastTables {
        mask_lo: [never_mask, mask, mask, never_mask],
        mask_hi: [never_mask, u64::MAX, u64::MAX, never_mask],
        bits_lo: [never_bits, 1, 2, never_bits],
        bits_hi: [0; 4],
        spans: [SpanColumn {
            lo: [never_lo, 0, 1 << 61, never_lo],
            limit: [
                never_limit,
                (5 << 61) | BELOW,
                (5 << 61) | BELOW,
                never_limit,
            ],
            miss: [0, 0, miss, 0],
            shift: [0, SHIFT, SHIFT, 0],
            dshift: [0, 61, 61, 0],
            half: [0; 4],
        }],
        dispatch: (),
    }
}

/// The entry a word's low nibble names (what a generated `decode_opcode` does).
fn entry(word: u128) -> usize {
    match word & 0xf {
        1 => 1,
        2 => 2,
        _ => 0,
    }
}

#[test]
fn the_fast_test_accepts_exactly_the_defined_words() {
    for (fixed_in_key, miss_narrow) in [(false, false), (false, true), (true, false), (true, true)]
    {
        let t = tables(fixed_in_key, miss_narrow);
        let s = shape(fixed_in_key, miss_narrow);
        for nibble in 0..16u128 {
            for code in 0..8u128 {
                for extra in [0u128, 1 << 4, 1 << 11, 1 << 63, 1 << 64, 1 << 127] {
                    let w = nibble | code << 8 | extra;
                    let defined = match nibble {
                        1 => A_CODES.contains(&(code as u64)),
                        2 => B_CODES.contains(&(code as u64)),
                        _ => false,
                    };
                    let want = defined && extra == 0;
                    let got = t.accepts(s, w, entry(w));
                    assert_eq!(got, want, "{fixed_in_key} {miss_narrow}: {w:#x}");
                }
            }
        }
        // The entry is taken modulo the tables' length.
        assert_eq!(t.accept(s, 0x101, 5), Some(1));
        assert_eq!(t.accept(s, 0x101, 1), Some(1));
        assert_eq!(t.accept(s, 0x402, 6), Some(2));
        assert!(!t.accepts(s, 0x101, 4));
    }
}

#[test]
fn without_fixed_bits_in_the_key_the_fixed_bits_are_compared() {
    // Entry 1 names `A`, whatever the word's nibble: only its own bits pass.
    let t = tables(false, false);
    assert!(t.accepts(shape(false, false), 0x101, 1));
    assert!(!t.accepts(shape(false, false), 0x102, 1));
    // With them in the key, the nibble is not compared again.
    let k = tables(true, false);
    assert!(k.accepts(shape(true, false), 0x102, 1));
}

#[test]
fn spans_read_from_a_window_or_a_half() {
    // The field at bit 72 (bit 8 of the high half).
    let high = |code: u128| 1 | code << 72;
    let mut t = tables(false, false);
    t.mask_lo[1] = 0xf;
    t.mask_hi[1] = !0x700;
    t.spans[0].half[1] = 1;
    let halves = Shape {
        halves: true,
        ..shape(false, false)
    };
    let window = Shape {
        window: 64,
        ..shape(false, false)
    };
    for code in 0..8 {
        let want = A_CODES.contains(&(code as u64));
        assert_eq!(t.accepts(halves, high(code), 1), want, "{code}");
        assert_eq!(t.accepts(window, high(code), 1), want, "{code}");
    }
    // From the low half, the high half's field is not seen: code 7 there passes
    // (the low half's bits 8 to 10 are 0).
    t.spans[0].half[1] = 0;
    assert!(t.accepts(halves, high(7), 1));
    // The miss bitmap is read only when the shape says some span has gaps.
    let b = tables(false, false);
    let gaps = shape(false, false);
    let no_gaps = Shape {
        miss: false,
        ..gaps
    };
    assert!(!b.accepts(gaps, 0x302, 2));
    assert!(b.accepts(no_gaps, 0x302, 2));
}

#[test]
fn span_accepts_is_the_one_test_of_a_span() {
    let s = shape(false, false);
    // Codes 1, 4, 6 of a span at the top of `source` (shift 0).
    for code in 0..8u64 {
        let source = code << 61 | 0x1234;
        let want = B_CODES.contains(&code);
        let got = span_accepts(source, 0, 1 << 61, (5 << 61) | BELOW, B_MISS, 61, s);
        assert_eq!(got, want, "{code}");
    }
    // Nothing below the limit's distance passes when the limit is 0 (only the first
    // code, with nothing below it).
    assert!(span_accepts(0, 0, 0, 0, 0, 0, s));
    assert!(!span_accepts(1, 0, 0, 0, 0, 0, s));
}

#[test]
fn entries_outside_the_opcodes_refuse_every_word() {
    for fixed_in_key in [false, true] {
        let s = shape(fixed_in_key, false);
        let t = tables(fixed_in_key, false);
        assert!(t.refuses_outside(s, 2));
        // Entry 2 is no opcode when there is one: its test lets words through.
        assert!(!t.refuses_outside(s, 1));
        for field in 0..6 {
            let mut bad = tables(fixed_in_key, false);
            match field {
                0 => bad.mask_lo[3] = 1,
                1 => bad.mask_hi[3] = 1,
                2 => bad.bits_lo[0] = 2,
                3 => bad.spans[0].lo[3] = 0,
                4 => bad.spans[0].limit[0] = u64::MAX,
                _ => bad.spans[0].shift[3] = 1,
            }
            // With the key, the masks and the first span are read; without it, the
            // mask and bits of the low half.
            let read = if fixed_in_key {
                field != 2
            } else {
                matches!(field, 0 | 2)
            };
            assert_eq!(bad.refuses_outside(s, 2), !read, "{fixed_in_key}: {field}");
        }
        let mut half = tables(fixed_in_key, false);
        half.spans[0].half[3] = 1;
        assert_eq!(half.refuses_outside(s, 2), !fixed_in_key);
    }
    // With the key, a refusing entry needs a span; without it, masks and bits do.
    let spanless = FastTables::<2, 0, ()> {
        mask_lo: [0; 2],
        mask_hi: [u64::MAX; 2],
        bits_lo: [1; 2],
        bits_hi: [0; 2],
        spans: [],
        dispatch: (),
    };
    assert!(!spanless.refuses_outside(shape(true, false), 1));
    assert!(spanless.refuses_outside(shape(false, false), 1));
    let all_ones = FastTables::<2, 0, ()> {
        mask_lo: [u64::MAX; 2],
        ..spanless
    };
    assert!(!all_ones.refuses_outside(shape(true, false), 1));
}

static FIELDS: [ExactField; 3] = [
    ExactField {
        name: "a",
        start: 8,
        width: 3,
        valid: &[(0, 2), (4, 5)],
    },
    ExactField {
        name: "b",
        start: 12,
        width: 4,
        valid: &[(3, 3)],
    },
    // A field past the word reads as 0.
    ExactField {
        name: "far",
        start: 130,
        width: 2,
        valid: &[(0, 0)],
    },
];

const EXACT: ExactCheck = ExactCheck {
    fixed_mask: 0xf,
    fixed_bits: 0x1,
    covered: 0xff0f | 1 << 127,
    fields: &FIELDS,
};

#[test]
fn the_exact_test_gives_the_first_reason_in_order() {
    assert!(EXACT.fixed_match(0x3001));
    assert!(!EXACT.fixed_match(0x3002));
    assert_eq!(EXACT.check_fields(0x3001), Ok(()));
    assert_eq!(EXACT.check_fields(0x3501 | 1 << 127), Ok(()));
    // Reserved bits come first, all of them.
    assert_eq!(
        EXACT.check_fields(0x3b31 | 1 << 100),
        Err(Refusal::ReservedBits(0x30 | 1 << 100))
    );
    // Then the first field with an undefined code, and its code.
    assert_eq!(
        EXACT.check_fields(0x4301),
        Err(Refusal::InvalidField("a", 3))
    );
    assert_eq!(
        EXACT.check_fields(0x4601),
        Err(Refusal::InvalidField("a", 6))
    );
    assert_eq!(
        EXACT.check_fields(0x4501),
        Err(Refusal::InvalidField("b", 4))
    );
    assert_eq!(
        EXACT.check_fields(0x0201),
        Err(Refusal::InvalidField("b", 0))
    );
    // A field as wide as the word.
    static WHOLE: [ExactField; 1] = [ExactField {
        name: "w",
        start: 0,
        width: 128,
        valid: &[(5, u128::MAX - 1)],
    }];
    let wide = ExactCheck {
        fixed_mask: 0,
        fixed_bits: 0,
        covered: u128::MAX,
        fields: &WHOLE,
    };
    assert_eq!(wide.check_fields(u128::MAX - 1), Ok(()));
    assert_eq!(
        wide.check_fields(u128::MAX),
        Err(Refusal::InvalidField("w", u128::MAX))
    );
    assert_eq!(wide.check_fields(4), Err(Refusal::InvalidField("w", 4)));
}

#[test]
fn a_batch_counts_what_does_not_decode_and_stops_at_the_shorter_slice() {
    let words: Vec<u128> = (0..200u128).collect();
    // Even words pass the fast test, multiples of three the exact one.
    let fast = |w: u128| w.is_multiple_of(2).then_some(w as u32);
    let exact = |w: u128| w.is_multiple_of(3).then_some(w as u32 + 1000);
    let mut out = std::vec![Some(7u32); 150];
    let failed = batch(&words, &mut out, fast, exact);
    let want: Vec<Option<u32>> = (0..150u32)
        .map(|w| {
            if w % 2 == 0 {
                Some(w)
            } else if w % 3 == 0 {
                Some(w + 1000)
            } else {
                None
            }
        })
        .collect();
    assert_eq!(out, want);
    assert_eq!(failed, want.iter().filter(|o| o.is_none()).count());
    // A longer output keeps what lies past the words.
    let mut long = std::vec![Some(7u32); 250];
    assert_eq!(batch(&words, &mut long, fast, exact), 67);
    assert_eq!(long[200..], [Some(7); 50]);
}
