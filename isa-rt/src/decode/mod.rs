//! The decoder's engine: the tests that accept a 128-bit word as an instruction of
//! the only opcode it can be, over tables a generated crate emits for its spec. The
//! generated `decode_opcode` (a table lookup or a decision tree over the fixed bits)
//! finds that opcode; [`FastTables::accepts`] is the fast test, and
//! [`ExactCheck`] the exact one, which finds the first reason a word is refused in the
//! spec's order.
//!
//! The fast path has no branch that depends on the opcode: one lookup finds the only
//! opcode the word can be, and one test of the word against that opcode's masks and
//! the ranges of its fields' codes accepts it. Whatever it does not accept goes to
//! the exact path, which finds the first reason (no opcode, reserved bits, the first
//! field with an undefined code) or accepts what the fast path cannot check.

/// How a spec's fast test reads words: the same for every opcode, so a generated
/// crate states it as a constant and passes it to [`FastTables::accepts`] (which
/// inlines, so the tests it turns off cost nothing).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    /// The dispatch has seen every fixed bit (its key holds them all), so the fast
    /// test compares only the bits outside the opcode's fields, and a word an entry
    /// must refuse fails its first span.
    pub fixed_in_key: bool,
    /// The first bit of the 64 the spans are read from (unless `halves`).
    pub window: u32,
    /// Spans are read from the 64-bit half of the word they lie in (no window of 64
    /// bits holds every field the fast path checks).
    pub halves: bool,
    /// Some span's defined codes have gaps (see [`SpanColumn`]).
    pub miss: bool,
    /// Every span whose defined codes have gaps is at most 6 bits wide.
    pub miss_narrow: bool,
}

/// Bits of the word holding fields whose types leave codes undefined (a span: one
/// field, or neighbours read as one code), checked on the fast path by arithmetic on
/// words loaded by the opcode alone (a load that waits on a load that waits on the
/// word is what slows a stream from memory most), for every entry `k`:
///
/// - `source << shift[k]` puts the span at the top (`source` is the 64 bits of the word
///   from [`Shape::window`] on, or with [`Shape::halves`] the low or high ones, as
///   `half[k]` says); less `lo[k]` (the first defined code, at the top), the top bits
///   are the code's distance `d` from the first defined code, counted round from the
///   largest code to 0, and the bits below are other fields;
/// - it must be at most `limit[k]` (the last defined distance at the top, ones below);
/// - with [`Shape::miss`], bit `d % 64` of `miss[k]` must be clear (`d` is the top
///   bits, `>> dshift[k]`); with [`Shape::miss_narrow`] too, bit `t` of `miss[k]` for
///   the top 6 bits `t`, whatever lies below the span.
///
/// That holds any set of defined codes within 64 neighbouring ones, and any single
/// range. A span that checks nothing has limit `u64::MAX`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpanColumn<const N: usize> {
    /// The first defined code, at the top.
    pub lo: [u64; N],
    /// The last defined distance, at the top, ones below.
    pub limit: [u64; N],
    /// The undefined distances among 64 (see above).
    pub miss: [u64; N],
    /// What puts the span at the top of its source.
    pub shift: [u8; N],
    /// What brings the distance down from the top.
    pub dshift: [u8; N],
    /// With [`Shape::halves`]: 0 for the low half, 1 for the high.
    pub half: [u8; N],
}

/// Whether a span accepts `source` (see [`SpanColumn`]): the one test of a span, which
/// [`FastTables::accepts`] makes for each and the generator's own checks of its
/// tables make too.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub const fn span_accepts(
    source: u64,
    shift: u8,
    lo: u64,
    limit: u64,
    miss: u64,
    dshift: u8,
    shape: Shape,
) -> bool {
    let d = (source << (shift & 63)).wrapping_sub(lo);
    // The bit of `miss` for `d`: the top 6 bits when every span with gaps is at most
    // 6 bits wide (a shift that does not wait on a load), else `d` itself.
    let at = if shape.miss_narrow {
        d >> 58
    } else {
        d >> (dshift & 63)
    };
    d <= limit && !(shape.miss && (miss >> (at & 63)) & 1 != 0)
}

/// Everything the fast path reads, in one static (one base address to load), as arrays
/// of plain words indexed by `decode_opcode`'s result (an indexed load each, no
/// arithmetic); `N` entries, a power of two, `S` spans an entry, and the dispatch
/// table `D` that the generated `decode_opcode` reads, when it is one. The fast test of
/// entry `k`: `word & mask == bits` (its fixed bits, and zero outside its fields; with
/// [`Shape::fixed_in_key`], `bits` is not read and `mask` holds only the bits outside
/// its fields) and every one of its spans' codes defined. Entry 0 (no opcode), opcodes
/// the fast path cannot check and the padding up to `N` have a test no word passes
/// ([`FastTables::refuses_outside`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FastTables<const N: usize, const S: usize, D> {
    /// The mask of the low half.
    pub mask_lo: [u64; N],
    /// The mask of the high half.
    pub mask_hi: [u64; N],
    /// The bits of the low half under its mask.
    pub bits_lo: [u64; N],
    /// The bits of the high half under its mask.
    pub bits_hi: [u64; N],
    /// Span `k` of every entry (padded with spans that check nothing).
    pub spans: [SpanColumn<N>; S],
    /// The dispatch table the generated `decode_opcode` reads (`()` for a decision
    /// tree).
    pub dispatch: D,
}

impl<const N: usize, const S: usize, D> FastTables<N, S, D> {
    /// Whether entry `op` (of `decode_opcode`, taken modulo `N`) accepts `word` (see
    /// [`FastTables::accept`]).
    #[inline(always)]
    pub const fn accepts(&self, shape: Shape, word: u128, op: usize) -> bool {
        self.accept(shape, word, op).is_some()
    }

    /// The entry that accepts `word`, when entry `op` (of `decode_opcode`, taken
    /// modulo `N`) does: the index a generated crate turns into the opcode, the one
    /// this test read. Every operation is a load indexed by the entry or plain
    /// arithmetic, the same for every opcode, so that on a stream from memory as few
    /// operations as can wait on each word, and more words are read at once.
    #[inline(always)]
    pub const fn accept(&self, shape: Shape, word: u128, op: usize) -> Option<usize> {
        const { assert!(N.is_power_of_two(), "the tables' length is a power of two") };
        let op = op & (N - 1);
        let lo = word as u64;
        let hi = (word >> 64) as u64;
        let window = (word >> (shape.window & 127)) as u64;
        let (want_lo, want_hi) = if shape.fixed_in_key {
            (0, 0)
        } else {
            (self.bits_lo[op], self.bits_hi[op])
        };
        if (lo & self.mask_lo[op]) != want_lo || (hi & self.mask_hi[op]) != want_hi {
            return None;
        }
        let mut k = 0;
        while k < S {
            let c = &self.spans[k];
            let source = if !shape.halves {
                window
            } else if c.half[op] == 0 {
                lo
            } else {
                hi
            };
            if !span_accepts(
                source,
                c.shift[op],
                c.lo[op],
                c.limit[op],
                c.miss[op],
                c.dshift[op],
                shape,
            ) {
                return None;
            }
            k += 1;
        }
        Some(op)
    }

    /// Whether every entry but the `opcodes` opcodes' (entry 0 and those past them)
    /// refuses every word, as a generated crate relies on to turn an accepted entry
    /// into its opcode by a subtraction (it asserts this when compiling): masks and
    /// bits no word matches, or with [`Shape::fixed_in_key`] masks of all ones and a
    /// first span that refuses the word 0. (Entries of opcodes the fast path cannot
    /// check refuse every word too; that is not checked here.)
    pub const fn refuses_outside(&self, shape: Shape, opcodes: usize) -> bool {
        let mut i = 0;
        while i < N {
            if i == 0 || i > opcodes {
                let refuses = if shape.fixed_in_key {
                    self.mask_lo[i] == u64::MAX
                        && self.mask_hi[i] == u64::MAX
                        && S > 0
                        && self.spans[0].lo[i] == 1
                        && self.spans[0].limit[i] == u64::MAX - 1
                        && self.spans[0].shift[i] == 0
                        && self.spans[0].half[i] == 0
                } else {
                    self.mask_lo[i] == 0 && self.bits_lo[i] == 1
                };
                if !refuses {
                    return false;
                }
            }
            i += 1;
        }
        true
    }
}

/// The exact test of one opcode, in the order the errors are reported.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExactCheck {
    /// The bits that identify the opcode.
    pub fixed_mask: u128,
    /// Their value.
    pub fixed_bits: u128,
    /// The bits of its fields; the others must be zero.
    pub covered: u128,
    /// The fields whose type leaves codes undefined, in field order.
    pub fields: &'static [ExactField],
}

/// A field with undefined codes: its defined codes as sorted inclusive ranges.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExactField {
    /// The spec's name for it.
    pub name: &'static str,
    /// Its first bit.
    pub start: u32,
    /// Its width in bits.
    pub width: u32,
    /// Its defined codes, as sorted inclusive ranges.
    pub valid: &'static [(u128, u128)],
}

/// Why a word whose fixed bits are an opcode's is not an instruction of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// Bits outside the opcode's fields are set: these.
    ReservedBits(u128),
    /// A field holds a code its type leaves undefined: the field's name and the code.
    InvalidField(&'static str, u128),
}

impl ExactCheck {
    /// Whether the word's fixed bits are the opcode's.
    #[inline]
    pub const fn fixed_match(&self, word: u128) -> bool {
        word & self.fixed_mask == self.fixed_bits
    }

    /// Checks the fields of a word whose fixed bits are the opcode's: no bit outside
    /// its fields, and every field a defined code (the first that is not is the
    /// refusal).
    pub const fn check_fields(&self, word: u128) -> Result<(), Refusal> {
        let reserved = word & !self.covered;
        if reserved != 0 {
            return Err(Refusal::ReservedBits(reserved));
        }
        let mut i = 0;
        while i < self.fields.len() {
            let f = &self.fields[i];
            let mut value = match word.checked_shr(f.start) {
                Some(v) => v,
                None => 0,
            };
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
                return Err(Refusal::InvalidField(f.name, value));
            }
            i += 1;
        }
        Ok(())
    }
}

/// Decodes `words` into `out`, position by position (as far as the shorter of the two
/// goes), with `fast` (the fast path: `None` for a word it does not accept) and then
/// `exact` (`None` for a word that does not decode). Returns the number of `None`s.
/// The words and the results 1 KiB ahead are asked for from memory as it goes: the
/// loop is short enough that, left to the hardware, it waits on memory (a stream of
/// 2^20 words decodes several times faster with it, measured on a 2-core Xeon).
#[inline(always)]
pub fn batch<T>(
    words: &[u128],
    out: &mut [Option<T>],
    fast: impl Fn(u128) -> Option<T>,
    exact: impl Fn(u128) -> Option<T>,
) -> usize {
    let n = words.len().min(out.len());
    let (words, out) = (&words[..n], &mut out[..n]);
    let mut failed = 0usize;
    // The failures are counted on the exact path only, which the fast one rarely
    // leaves for.
    let mut one = |o: &mut Option<T>, w: u128| {
        *o = match fast(w) {
            Some(d) => Some(d),
            None => {
                let d = exact(w);
                failed += usize::from(d.is_none());
                d
            }
        };
    };
    // Every time (a prefetch costs less than a test of whether its line was asked for
    // already); the results are written, so their lines must be read first.
    let out_ahead = out.as_ptr().wrapping_add(64);
    for (i, (o, &w)) in out.iter_mut().zip(words).enumerate() {
        prefetch(words.as_ptr().wrapping_add(i + 64));
        prefetch(out_ahead.wrapping_add(i));
        one(o, w);
    }
    failed
}

/// Asks the CPU to bring the cache line at `p` closer (a hint: nothing is read, and an
/// address past the end of a slice is harmless).
#[inline(always)]
pub fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch reads no memory and cannot fault (whatever the address),
    // and SSE, which has it, is part of every x86-64 CPU.
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(p.cast::<i8>())
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

#[cfg(test)]
mod tests;
