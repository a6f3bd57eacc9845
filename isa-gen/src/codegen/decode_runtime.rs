// The decoder, emitted verbatim into the generated code (see `codegen::decode`). It
// knows nothing of any particular spec: it reads the tables the generator emits
// (`DECODE`, `DECODE_EXACT`) and the generated
// `decode_opcode`, so one piece of code serves every opcode.
//
// The fast path has no branch that depends on the opcode: one lookup finds the only
// opcode the word can be, and one test of the word against that opcode's masks and
// the ranges of its fields' codes accepts it. Whatever it does not accept goes to the exact path, which
// finds the first reason in the spec's order (no opcode, reserved bits, the first
// field with an undefined code) or accepts what the fast path cannot check.

/// Bits of the word holding fields whose types leave codes undefined (a span: one
/// field, or neighbours read as one code), checked on the fast path by arithmetic on
/// words loaded by the opcode alone (a load that waits on a load that waits on the
/// word is what slows a stream from memory most), for every opcode `k`:
///
/// - `source << shift[k]` puts the span at the top (`source` is the 64 bits of the word
///   from `SPAN_WINDOW` on, or with `SPAN_HALVES` the low or high ones, as `half[k]`
///   says); less `lo[k]` (the first defined code, at the top), the top bits are the
///   code's distance `d` from the first defined code, counted round from the largest
///   code to 0, and the bits below are other fields;
/// - it must be at most `limit[k]` (the last defined distance at the top, ones below);
/// - with `SPAN_MISS`, bit `d % 64` of `miss[k]` must be clear (`d` is the top bits,
///   `>> dshift[k]`); with `SPAN_MISS_NARROW` too, bit `t` of `miss[k]` for the top 6
///   bits `t`, whatever lies below the span.
///
/// That holds any set of defined codes within 64 neighbouring ones, and any single
/// range. A span that checks nothing has limit `u64::MAX`.
struct SpanColumn {
    lo: [u64; FAST_LEN],
    limit: [u64; FAST_LEN],
    miss: [u64; FAST_LEN],
    shift: [u8; FAST_LEN],
    dshift: [u8; FAST_LEN],
    half: [u8; FAST_LEN],
}

/// Everything the fast path reads, in one static (one base address to load), as arrays
/// of plain words indexed by `decode_opcode`'s result (an indexed load each, no
/// arithmetic). The fast test of an opcode: `word & mask == bits` (its fixed bits, and
/// zero outside its fields; with `FIXED_IN_KEY`, `bits` is not read and `mask` holds
/// only the bits outside its fields, `decode_opcode` having seen the fixed ones) and
/// every one of its spans' codes defined. Entry 0 (no opcode), opcodes the fast path
/// cannot check and the padding up to a power of two (so an index needs no bounds
/// check) have a test no word passes (with `FIXED_IN_KEY`, masks of all ones and a
/// first span that refuses the word 0).
struct DecodeTables {
    mask_lo: [u64; FAST_LEN],
    mask_hi: [u64; FAST_LEN],
    bits_lo: [u64; FAST_LEN],
    bits_hi: [u64; FAST_LEN],
    /// Span `k` of every opcode (padded with spans that check nothing).
    spans: [SpanColumn; FAST_SPANS],
    /// The dispatch table `decode_opcode` reads, when it is one (empty for a decision
    /// tree): opcode index + 1 (0: none) for every value of the fixed bits.
    // A decision tree reads no table.
    #[allow(dead_code)]
    table: [DecodeSlot; TABLE_LEN],
}

/// The exact test of one opcode, in the order the errors are reported.
struct ExactCheck {
    fixed_mask: u128,
    fixed_bits: u128,
    covered: u128,
    /// The fields whose type leaves codes undefined, in field order.
    fields: &'static [ExactField],
}

/// A field with undefined codes: its defined codes as sorted inclusive ranges.
struct ExactField {
    name: &'static str,
    start: u32,
    width: u32,
    valid: &'static [(u128, u128)],
}

/// An instruction word that decodes, and its opcode: what [`Decoded::decode`] returns
/// without building the typed instruction. It is a validated word: every field holds
/// a defined code and every bit outside the opcode's fields is zero, so it encodes
/// back to the word it came from. The typed views ([`Decoded::instruction`], and
/// `from_decoded` of each opcode struct) read their fields from it.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
#[repr(C, packed)]
pub struct Decoded {
    lo: u64,
    hi: u64,
    opcode: Opcode,
}

impl Decoded {
    /// Decodes a word exactly, as [`Instruction::decode`] does (the same words are
    /// accepted, with the same errors), without building the typed instruction: a
    /// table lookup and a mask test for most words.
    #[inline]
    pub const fn decode(word: u128) -> Result<Decoded, DecodeError> {
        match decode_fast(word) {
            Some(d) => Ok(d),
            None => decode_exact(word),
        }
    }

    /// Decodes `words` into `out`, position by position (as far as the shorter of the
    /// two goes): `Some` for a word that decodes, `None` for one that does not (its
    /// error is what [`Decoded::decode`] returns for it). Returns the number of `None`s.
    pub fn decode_batch(words: &[u128], out: &mut [Option<Decoded>]) -> usize {
        let n = words.len().min(out.len());
        let (words, out) = (&words[..n], &mut out[..n]);
        let mut failed = 0usize;
        let mut one = |o: &mut Option<Decoded>, w: u128| {
            *o = match decode_fast(w) {
                Some(d) => Some(d),
                None => {
                    let d = decode_exact(w).ok();
                    failed += usize::from(d.is_none());
                    d
                }
            };
        };
        // The words 1 KiB ahead asked for from memory, and the results as far ahead
        // (they are written, so their lines must be read first), every time (a
        // prefetch costs less than a test of whether its line was asked for already):
        // the loop is short enough that, left to the hardware, it waits on memory (a
        // stream of 2^20 words decodes several times faster with it, measured on a
        // 2-core Xeon).
        let out_ahead = out.as_ptr().wrapping_add(64);
        for (i, (o, &w)) in out.iter_mut().zip(words).enumerate() {
            prefetch(words.as_ptr().wrapping_add(i + 64));
            prefetch(out_ahead.wrapping_add(i));
            one(o, w);
        }
        failed
    }

    /// Decodes `words` one at a time, as an iterator of what [`Decoded::decode`] returns
    /// for each; the words ahead are asked for from memory as it goes, so a long slice
    /// decodes at the speed of [`Decoded::decode_batch`].
    pub fn decode_iter(words: &[u128]) -> DecodeIter<'_> {
        DecodeIter {
            words: words.iter(),
        }
    }

    /// The opcode.
    #[inline]
    pub const fn opcode(&self) -> Opcode {
        self.opcode
    }

    /// The 128-bit word (its encoding).
    #[inline]
    pub const fn word(&self) -> u128 {
        ((self.hi as u128) << 64) | self.lo as u128
    }

    /// The 128-bit encoding: the word it was decoded from.
    #[inline]
    pub const fn encode(&self) -> u128 {
        self.word()
    }
}

/// The iterator of [`Decoded::decode_iter`].
#[derive(Clone, Debug)]
pub struct DecodeIter<'a> {
    words: core::slice::Iter<'a, u128>,
}

impl Iterator for DecodeIter<'_> {
    type Item = Result<Decoded, DecodeError>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        // The word 1 KiB ahead asked for every time (a prefetch costs less than a test
        // of whether its line was asked for already).
        prefetch(self.words.as_slice().as_ptr().wrapping_add(64));
        let w = *self.words.next()?;
        Some(Decoded::decode(w))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.words.size_hint()
    }
}

impl ExactSizeIterator for DecodeIter<'_> {}

/// Asks the CPU to bring the cache line at `p` closer (a hint: nothing is read, and an
/// address past the end of a slice is harmless).
#[inline(always)]
fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch reads no memory and cannot fault (whatever the address),
    // and SSE, which has it, is part of every x86-64 CPU.
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(p.cast::<i8>())
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

impl core::fmt::Debug for Decoded {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        // A copy: a reference into a packed struct may be unaligned (`Opcode` is two
        // bytes wide when a spec has more than 256 opcodes).
        let opcode = self.opcode;
        write!(f, "Decoded({:?}, {:#034x})", opcode, self.word())
    }
}

impl From<Decoded> for Instruction {
    fn from(d: Decoded) -> Instruction {
        d.instruction()
    }
}

impl From<Instruction> for Decoded {
    /// Every instruction encodes to a word that decodes (its fields are typed).
    fn from(i: Instruction) -> Decoded {
        let word = i.encode();
        Decoded {
            lo: word as u64,
            hi: (word >> 64) as u64,
            opcode: i.opcode(),
        }
    }
}

/// The fast path: `None` when the word fails the test of the only opcode it can be
/// (or that opcode cannot be checked here). Every operation is a load indexed by the
/// opcode or plain arithmetic, the same for every opcode: on a stream from memory, the
/// fewer operations wait on each word, the more words are read at once.
#[inline(always)]
const fn decode_fast(word: u128) -> Option<Decoded> {
    let lo = word as u64;
    let hi = (word >> 64) as u64;
    let op = decode_opcode(word) & (FAST_LEN - 1);
    let window = (word >> SPAN_WINDOW) as u64;
    // Bits outside the opcode's fields, and its fixed bits unless `decode_opcode` saw
    // them all.
    let (want_lo, want_hi) = if FIXED_IN_KEY {
        (0, 0)
    } else {
        (DECODE.bits_lo[op], DECODE.bits_hi[op])
    };
    if (lo & DECODE.mask_lo[op]) != want_lo || (hi & DECODE.mask_hi[op]) != want_hi {
        return None;
    }
    let mut k = 0;
    while k < DECODE.spans.len() {
        let c = &DECODE.spans[k];
        let source = if !SPAN_HALVES {
            window
        } else if c.half[op] == 0 {
            lo
        } else {
            hi
        };
        let d = (source << c.shift[op]).wrapping_sub(c.lo[op]);
        // The bit of `miss` for `d`: the top 6 bits when every span with gaps is at
        // most 6 bits wide (a shift that does not wait on a load), else `d` itself.
        let at = if SPAN_MISS_NARROW { d >> 58 } else { d >> c.dshift[op] };
        if d > c.limit[op] || (SPAN_MISS && (c.miss[op] >> (at & 63)) & 1 != 0) {
            return None;
        }
        k += 1;
    }
    Some(Decoded {
        lo,
        hi,
        opcode: opcode_of(op),
    })
}

/// Every entry of the fast tables but the opcodes' (entry 0, opcodes the fast test
/// cannot check, the padding) refuses every word, as `opcode_of` relies on: their
/// masks and bits, or with `FIXED_IN_KEY` masks of all ones and a first span that
/// refuses the word 0. Evaluated when compiling (named below).
const FAST_REFUSALS: () = {
    let mut i = 0;
    while i < FAST_LEN {
        if i == 0 || i > OPCODES {
            let refuses = if FIXED_IN_KEY {
                DECODE.mask_lo[i] == u64::MAX
                    && DECODE.mask_hi[i] == u64::MAX
                    && match DECODE.spans.first() {
                        Some(c) => {
                            c.lo[i] == 1 && c.limit[i] == u64::MAX - 1 && c.shift[i] == 0 && c.half[i] == 0
                        }
                        None => false,
                    }
            } else {
                DECODE.mask_lo[i] == 0 && DECODE.bits_lo[i] == 1
            };
            assert!(refuses, "an entry of the fast tables accepts a word");
        }
        i += 1;
    }
};
const _: () = FAST_REFUSALS;

/// The exact path: the first reason a word is not an instruction, in the spec's
/// order, or the instruction.
#[cold]
#[inline(never)]
const fn decode_exact(word: u128) -> Result<Decoded, DecodeError> {
    let op = decode_opcode(word);
    if op == 0 {
        return Err(DecodeError::UnknownOpcode { word });
    }
    let e = &DECODE_EXACT[op - 1];
    if word & e.fixed_mask != e.fixed_bits {
        return Err(DecodeError::UnknownOpcode { word });
    }
    let opcode = opcode_of(op);
    match check_fields(word, opcode) {
        Ok(()) => Ok(Decoded {
            lo: word as u64,
            hi: (word >> 64) as u64,
            opcode,
        }),
        Err(e) => Err(e),
    }
}

/// Checks the fields of a word whose fixed bits are `opcode`'s: no bit outside its
/// fields, and every field a defined code (the first that is not is the error).
const fn check_fields(word: u128, opcode: Opcode) -> Result<(), DecodeError> {
    let e = &DECODE_EXACT[opcode as usize];
    let reserved = word & !e.covered;
    if reserved != 0 {
        return Err(DecodeError::ReservedBits {
            opcode,
            bits: reserved,
        });
    }
    let mut i = 0;
    while i < e.fields.len() {
        let f = &e.fields[i];
        let mut value = word >> f.start;
        if f.width < 128 {
            value &= (1u128 << f.width) - 1;
        }
        let mut ok = false;
        let mut r = 0;
        while r < f.valid.len() {
            if value >= f.valid[r].0 && value <= f.valid[r].1 {
                ok = true;
                break;
            }
            r += 1;
        }
        if !ok {
            return Err(DecodeError::InvalidField {
                opcode,
                field: f.name,
                value,
            });
        }
        i += 1;
    }
    Ok(())
}
