//! The decoder's tables, generated per spec, and the typed layer over them
//! (`Decoded`); the code that reads the tables is `isa_rt::decode`.
//!
//! `decode_opcode` finds the only opcode a word can be: a table indexed by the fixed
//! bits when they are at most 16 (gathered from however many runs they lie in), else a
//! decision tree over the fixed fields. Then one test per opcode: the word's reserved
//! bits (and fixed ones, unless the table's key held them all) against two masks, and
//! the fields whose types leave codes undefined, in spans (a field, or neighbours whose
//! combinations `span_codes` can describe), each by arithmetic on words loaded by the
//! opcode: a range and, where the defined codes have gaps, a 64-bit mask (`FAST_SPANS`
//! spans, padded, so the test does the same work for every opcode and has no branch a
//! mixed stream mispredicts). Opcodes the fast test cannot check (such a field wider
//! than `SPAN_WIDTH` bits or outside the window spans are read from, codes scattered
//! beyond 64 neighbours, more than `MAX_SPANS` spans) always take the exact path,
//! which checks everything from range lists.

use proc_macro2::TokenStream;
use quote::quote;

use super::{lit, lit_hex, Gen};
use crate::model::{Field, Model, Type, TypeKind};

/// Widest span the fast path checks.
const SPAN_WIDTH: u32 = 16;
/// Most spans of fields with undefined codes the fast test of one opcode checks.
const MAX_SPANS: usize = 4;
/// Most fixed bits the dispatch table is indexed by (2^16 entries).
const TABLE_BITS: u32 = 16;

/// The defined codes of a field of `width` bits and type `t`, as sorted, merged,
/// inclusive ranges; `None` when every code is defined.
pub(crate) fn valid_ranges(t: &Type, width: u32) -> Option<Ranges> {
    let top = crate::model::mask(0, width);
    let type_top = crate::model::mask(0, t.width.min(width));
    let mut ranges: Vec<(u128, u128)> = match &t.kind {
        TypeKind::Enum(values) => values
            .iter()
            .filter(|v| v.code <= top)
            .map(|v| (v.code, v.code))
            .collect(),
        TypeKind::RegFile(rf) => {
            let mut r: Vec<(u128, u128)> = rf
                .named
                .iter()
                .filter(|(_, c)| *c <= top)
                .map(|&(_, c)| (c, c))
                .collect();
            if rf.lo <= top {
                r.push((rf.lo, rf.hi.min(top)));
            }
            r
        }
        TypeKind::Immediate { .. } | TypeKind::ConstMem { .. } => vec![(0, type_top)],
    };
    ranges.sort_unstable();
    let mut merged: Vec<(u128, u128)> = Vec::with_capacity(ranges.len());
    for (a, b) in ranges {
        match merged.last_mut() {
            Some(last) if last.1 != u128::MAX && a <= last.1 + 1 => last.1 = last.1.max(b),
            _ => merged.push((a, b)),
        }
    }
    if merged == [(0, top)] {
        None
    } else {
        Some(merged)
    }
}

/// One entry of the fast tables: mask and bits of the low and high halves, and the
/// spans.
#[derive(Clone)]
struct Entry {
    mask: [u64; 2],
    bits: [u64; 2],
    spans: Vec<Span>,
}
/// Defined codes as sorted inclusive ranges.
type Ranges = Vec<(u128, u128)>;
/// A field with undefined codes, and its defined ones.
type Holey<'m> = (&'m Field, Ranges);

/// One span of the fast test (see `isa_rt::decode::SpanColumn`).
#[derive(Clone, Copy)]
struct Span {
    lo: u64,
    limit: u64,
    miss: u64,
    shift: u32,
    dshift: u32,
    half: u32,
}

impl Span {
    /// The span that checks nothing.
    const NONE: Span = Span {
        lo: 0,
        limit: u64::MAX,
        miss: 0,
        shift: 0,
        dshift: 0,
        half: 0,
    };
    /// The span that refuses the word 0 (whose source is 0).
    const NEVER: Span = Span {
        lo: 1,
        limit: u64::MAX - 1,
        ..Span::NONE
    };

    /// Its `miss` as the tables hold it: when `narrow` (`SPAN_MISS_NARROW`), bit `t` for
    /// every 6 top bits `t` (the span's distance and what lies below it).
    fn miss_column(self, narrow: bool) -> u64 {
        if !narrow || self.miss == 0 {
            return self.miss;
        }
        let below = 6 - (64 - self.dshift);
        // Bit `t` from bit `t >> below` of `miss`: distinct bits, so their sum is their
        // union.
        (0..64)
            .map(|t| ((self.miss >> (t >> below)) & 1) << t)
            .sum()
    }

    /// Whether the fast path accepts `source` (its test, `isa_rt::decode::span_accepts`).
    #[cfg(test)]
    fn accepts(self, source: u64, narrow: bool) -> bool {
        let shape = isa_rt::decode::Shape {
            fixed_in_key: false,
            window: 0,
            halves: false,
            miss: true,
            miss_narrow: narrow,
        };
        let (shift, dshift) = (self.shift as u8, self.dshift as u8);
        let miss = self.miss_column(narrow);
        isa_rt::decode::span_accepts(source, shift, self.lo, self.limit, miss, dshift, shape)
    }
}

/// `(lo, len, miss)` of a span of `width` bits whose defined codes are `defined`
/// (`defined[code]`), when they lie within 64 neighbouring codes or form one range,
/// counted round from the largest code to 0 (see `isa_rt::decode::SpanColumn`).
fn span_codes(defined: &[bool], width: u32) -> Option<(u32, u32, u64)> {
    let size = 1usize << width;
    let codes: Vec<usize> = (0..size).filter(|&c| defined[c]).collect();
    let (Some(&first), Some(&last)) = (codes.first(), codes.last()) else {
        // No code is defined: no word passes.
        return Some((0, 0, u64::MAX));
    };
    // The defined codes start after the largest gap between two of them (round from
    // the last to the first), and extend `extent` codes from there.
    // `(size, start)` of each gap; of equal ones any serves.
    let round = (first + size - last, first);
    let gaps = codes.windows(2).map(|w| (w[1] - w[0], w[1]));
    let gap = core::iter::once(round)
        .chain(gaps)
        .max_by_key(|g| g.0)
        .unwrap_or(round);
    let lo = gap.1;
    let extent = size - gap.0 + 1;
    if extent == codes.len() {
        return Some((lo as u32, (extent - 1) as u32, 0));
    }
    if extent > 64 {
        return None;
    }
    let mut miss = u64::MAX;
    for &c in &codes {
        miss &= !(1 << ((c + size - lo) % size));
    }
    Some((lo as u32, 63, miss))
}

/// Where the fast path reads spans from: the 64 bits of the word from a bit on, when
/// every field it checks lies in them (one shift of the word serves every opcode), or
/// else the 64-bit half a span lies in.
#[derive(Clone, Copy)]
enum SpanSource {
    Window(u32),
    Halves,
}

impl SpanSource {
    /// The window holding every field in `fields` (of every opcode) the fast path can
    /// check, when there is one.
    fn choose<'a>(fields: impl Iterator<Item = &'a Field>) -> SpanSource {
        let (mut first, mut end) = (u32::MAX, 0);
        for f in fields.filter(|f| f.width <= SPAN_WIDTH) {
            first = first.min(f.start);
            end = end.max(f.start + f.width);
        }
        if first == u32::MAX {
            SpanSource::Window(0)
        } else if end - first <= 64 {
            SpanSource::Window(first.min(64))
        } else {
            SpanSource::Halves
        }
    }

    /// `(half, shift)` of a span starting at bit `first` of the word.
    fn locate(self, first: u32) -> (u32, u32) {
        match self {
            SpanSource::Window(w) => (0, first - w),
            SpanSource::Halves => (first / 64, first % 64),
        }
    }

    /// Whether a field can join a span starting at `first` (or start one, `first` being
    /// its own start).
    fn fits(self, first: u32, f: &Field) -> bool {
        let end = f.start + f.width;
        end - first <= SPAN_WIDTH
            && match self {
                SpanSource::Window(_) => true,
                SpanSource::Halves => first / 64 == (end - 1) / 64,
            }
    }
}

/// Whether the defined codes of any of `spans` have gaps: only then does the fast test
/// read the `miss` bitmaps (`SPAN_MISS`).
fn any_miss<'s>(spans: impl IntoIterator<Item = &'s Span>) -> bool {
    spans.into_iter().any(|s| s.miss != 0)
}

/// The dispatch table: its key is the fixed bits gathered from their runs.
struct Table {
    /// `(start, len)` of each run of fixed bits, lowest first.
    runs: Vec<(u32, u32)>,
    /// Opcode index + 1 for each key, 0 for none.
    slots: Vec<u16>,
}

fn runs_of(mut m: u128) -> Vec<(u32, u32)> {
    let mut runs = Vec::new();
    while m != 0 {
        let start = m.trailing_zeros();
        let len = (m >> start).trailing_ones();
        runs.push((start, len));
        m &= !crate::model::mask(start, len);
    }
    runs
}

/// The table, when the union of the fixed bits has at most `TABLE_BITS` bits: then the
/// key holds every fixed bit, and (opcodes never overlap) each key names one opcode.
fn table(model: &Model) -> Option<Table> {
    let union = model.opcodes.iter().fold(0u128, |a, o| a | o.fixed_mask);
    let bits = union.count_ones();
    if union == 0 || bits > TABLE_BITS || model.opcodes.len() >= u16::MAX as usize {
        return None;
    }
    let runs = runs_of(union);
    let gather = |v: u128| -> usize {
        let mut key = 0usize;
        let mut at = 0;
        for &(s, l) in &runs {
            key |= (((v >> s) & crate::model::mask(0, l)) as usize) << at;
            at += l;
        }
        key
    };
    let mut slots = vec![0u16; 1 << bits];
    for (i, op) in model.opcodes.iter().enumerate() {
        // Every key that agrees with the opcode's fixed bits: its fixed bits in the key
        // plus each combination of the key bits it leaves free.
        let fixed = gather(op.fixed_mask);
        let value = gather(op.fixed_bits);
        let free = (slots.len() - 1) & !fixed;
        let mut sub = free;
        loop {
            let slot = &mut slots[value | sub];
            if *slot == 0 {
                *slot = i as u16 + 1;
            }
            if sub == 0 {
                break;
            }
            sub = (sub - 1) & free;
        }
    }
    Some(Table { runs, slots })
}

/// The fast path's checks of one opcode's fields with undefined codes: the fields in
/// spans of at most `SPAN_WIDTH` bits in the `source`, each span read as one code whose
/// defined combinations `span_codes` describes (bits of other fields inside the span
/// may hold anything); neighbours share a span when their combinations can be so
/// described. `None` when the fast path cannot check them (a field too wide, outside
/// the source, or whose codes cannot be described, or too many spans).
fn fast_spans(holey: &[Holey<'_>], source: SpanSource) -> Option<Vec<Span>> {
    let mut sorted: Vec<&Holey<'_>> = holey.iter().collect();
    sorted.sort_by_key(|(f, _)| f.start);
    let mut spans: Vec<(Vec<&Holey<'_>>, Span)> = Vec::new();
    for h in sorted {
        if let Some((fields, span)) = spans.last_mut() {
            if source.fits(fields[0].0.start, h.0) {
                fields.push(h);
                if let Some(s) = describe(fields, source) {
                    *span = s;
                    continue;
                }
                fields.pop();
            }
        }
        if !source.fits(h.0.start, h.0) {
            return None;
        }
        spans.push((vec![h], describe(&[h], source)?));
    }
    if spans.len() > MAX_SPANS {
        return None;
    }
    Some(spans.into_iter().map(|(_, s)| s).collect())
}

/// The span checking `fields` (neighbours, lowest first), when their combinations of
/// defined codes can be described.
fn describe(fields: &[&Holey<'_>], source: SpanSource) -> Option<Span> {
    let first = fields[0].0.start;
    let width = fields
        .iter()
        .map(|(f, _)| f.start + f.width - first)
        .max()
        .unwrap_or(0);
    let defined: Vec<bool> = (0..1u128 << width)
        .map(|code| {
            fields.iter().all(|(f, ranges)| {
                let v = (code >> (f.start - first)) & crate::model::mask(0, f.width);
                let i = ranges.partition_point(|r| r.1 < v);
                ranges.get(i).is_some_and(|r| r.0 <= v)
            })
        })
        .collect();
    let (lo, len, miss) = span_codes(&defined, width)?;
    let (half, at) = source.locate(first);
    // The span's code at the top of 64 bits, and what lies below it.
    let below = 64 - width;
    Some(Span {
        lo: u64::from(lo) << below,
        limit: ((u128::from(len) + 1) << below).wrapping_sub(1) as u64,
        miss,
        shift: 64 - (at + width),
        dshift: below,
        half,
    })
}

impl Gen<'_> {
    /// The fields of `op` whose type leaves codes undefined, with their defined codes.
    fn holey_fields<'m>(
        &'m self,
        op: &'m crate::model::Opcode,
    ) -> Vec<(&'m Field, Vec<(u128, u128)>)> {
        op.value_fields()
            .filter_map(|(_, f)| valid_ranges(self.model.ty(f.ty), f.width).map(|r| (f, r)))
            .collect()
    }

    /// The decoder: `decode_opcode`, the tables, and the typed layer over
    /// `isa_rt::decode`.
    pub(super) fn decoder(&self) -> TokenStream {
        let m = self.model;
        let n = m.opcodes.len();

        // `decode_opcode`: the table lookup, or the decision tree.
        let dispatch = table(m);
        let has_table = dispatch.is_some();
        let (decode_opcode, table, table_entries) = match dispatch {
            Some(t) => {
                let mut at = 0u32;
                let parts: Vec<TokenStream> = t
                    .runs
                    .iter()
                    .map(|&(s, l)| {
                        // Each run read from the 64-bit half it lies in (from the whole
                        // word when it crosses bit 64).
                        let (src, s, suffix) = if s >= 64 {
                            (quote! { hi }, s - 64, "u64")
                        } else if s + l <= 64 {
                            (quote! { lo }, s, "u64")
                        } else {
                            (quote! { word }, s, "u128")
                        };
                        let mask = lit_hex(crate::model::mask(0, l), suffix);
                        let expr = if s == 0 {
                            quote! { (#src & #mask) }
                        } else {
                            let sl = lit(s as u128, "u32");
                            quote! { ((#src >> #sl) & #mask) }
                        };
                        let e = if at == 0 {
                            quote! { #expr as usize }
                        } else {
                            let al = lit(at as u128, "u32");
                            quote! { ((#expr as usize) << #al) }
                        };
                        at += l;
                        e
                    })
                    .collect();
                let wide = n >= 255;
                let ty = if wide {
                    quote! { u16 }
                } else {
                    quote! { u8 }
                };
                let suffix = if wide { "u16" } else { "u8" };
                let entries = t.slots.iter().map(|&e| lit(e as u128, suffix));
                let size = lit(t.slots.len() as u128, "usize");
                let uses_lo = t.runs.iter().any(|&(s, l)| s + l <= 64);
                let uses_hi = t.runs.iter().any(|&(s, _)| s >= 64);
                let lo = uses_lo.then(|| quote! { let lo = word as u64; });
                let hi = uses_hi.then(|| quote! { let hi = (word >> 64) as u64; });
                (
                    quote! {
                        /// The only opcode a word can be (index + 1; 0: none), from its fixed bits.
                        #[inline(always)]
                        const fn decode_opcode(word: u128) -> usize {
                            #lo
                            #hi
                            DECODE.dispatch[ #( #parts )|* ] as usize
                        }
                    },
                    quote! { [#ty; #size] },
                    quote! { [ #( #entries ),* ] },
                )
            }
            None => {
                let all: Vec<usize> = (0..n).collect();
                let tree = self.decode_tree(&all, 0, 0);
                (
                    quote! {
                        /// The only opcode a word can be (index + 1; 0: none), by a decision
                        /// tree over the fixed fields.
                        #[inline(always)]
                        const fn decode_opcode(word: u128) -> usize {
                            #tree
                        }
                    },
                    quote! { () },
                    quote! { () },
                )
            }
        };

        let holey: Vec<Vec<Holey<'_>>> = m.opcodes.iter().map(|op| self.holey_fields(op)).collect();
        let source = SpanSource::choose(holey.iter().flatten().map(|(f, _)| *f));
        // Per opcode, the spans of the fast test, or `None` when
        // the fast path cannot check it.
        let mut fast: Vec<Option<Vec<Span>>> = Vec::with_capacity(n);
        let mut exact = Vec::with_capacity(n);
        for (op, holey) in m.opcodes.iter().zip(&holey) {
            let mut exact_fields = Vec::new();
            for (f, ranges) in holey {
                let name = &f.name;
                let start = lit(f.start as u128, "u32");
                let width = lit(f.width as u128, "u32");
                let rs = ranges.iter().map(|&(a, b)| {
                    let a = lit_hex(a, "u128");
                    let b = lit_hex(b, "u128");
                    quote! { (#a, #b) }
                });
                exact_fields.push(quote! {
                    ::isa_rt::decode::ExactField { name: #name, start: #start, width: #width, valid: &[ #( #rs ),* ] }
                });
            }
            let fields = fast_spans(holey, source);
            fast.push(fields);
            let fixed_mask = lit_hex(op.fixed_mask, "u128");
            let fixed_bits = lit_hex(op.fixed_bits, "u128");
            let covered = lit_hex(op.covered, "u128");
            exact.push(quote! {
                ::isa_rt::decode::ExactCheck {
                    fixed_mask: #fixed_mask,
                    fixed_bits: #fixed_bits,
                    covered: #covered,
                    fields: &[ #( #exact_fields ),* ],
                }
            });
        }
        let slots = fast
            .iter()
            .filter_map(|f| f.as_ref().map(Vec::len))
            .max()
            .unwrap_or(0);

        // With a dispatch table, the fast test need not read the fixed bits again (the
        // table's key holds every fixed bit); a word it must refuse then fails its first
        // span, so there has to be one.
        let fixed_in_key = has_table && slots > 0;
        // Per entry of the fast tables (entry 0 and the padding never pass): mask and
        // bits of the low and high halves, and the spans.
        let never = if fixed_in_key {
            Entry {
                mask: [u64::MAX; 2],
                bits: [0, 0],
                spans: vec![Span::NEVER],
            }
        } else {
            Entry {
                mask: [0, 0],
                bits: [1, 0],
                spans: Vec::new(),
            }
        };
        let mut entries = vec![never.clone()];
        for (op, f) in m.opcodes.iter().zip(&fast) {
            entries.push(match f {
                Some(spans) => {
                    let reserved = !op.covered & !op.fixed_mask;
                    let check = if fixed_in_key {
                        reserved
                    } else {
                        op.fixed_mask | reserved
                    };
                    let halves = |v: u128| [v as u64, (v >> 64) as u64];
                    Entry {
                        mask: halves(check),
                        bits: halves(op.fixed_bits),
                        spans: spans.clone(),
                    }
                }
                None => never.clone(),
            });
        }
        // Powers of two, so the fast path masks its indices instead of checking them.
        let fast_len = entries.len().next_power_of_two();
        entries.resize(fast_len, never);
        let column = |f: &dyn Fn(&Entry) -> u64| {
            let words = entries.iter().map(|e| lit_hex(f(e) as u128, "u64"));
            quote! { [ #( #words ),* ] }
        };
        let mask_lo = column(&|e| e.mask[0]);
        let mask_hi = column(&|e| e.mask[1]);
        let bits_lo = column(&|e| e.bits[0]);
        let bits_hi = column(&|e| e.bits[1]);
        let span_miss = any_miss(fast.iter().flatten().flatten());
        let span_miss_narrow = fast
            .iter()
            .flatten()
            .flatten()
            .all(|s| s.miss == 0 || s.dshift >= 58);
        let span_columns = (0..slots).map(|k| {
            let span = |e: &Entry| e.spans.get(k).copied().unwrap_or(Span::NONE);
            let words = |f: &dyn Fn(Span) -> u64| {
                let w = entries.iter().map(|e| lit_hex(f(span(e)).into(), "u64"));
                quote! { [ #( #w ),* ] }
            };
            let bytes = |f: &dyn Fn(Span) -> u32| {
                let b = entries.iter().map(|e| lit(f(span(e)).into(), "u8"));
                quote! { [ #( #b ),* ] }
            };
            let miss = |s: Span| s.miss_column(span_miss_narrow);
            let (lo, limit, miss) = (words(&|s| s.lo), words(&|s| s.limit), words(&miss));
            let (shift, dshift, half) = (bytes(&|s| s.shift), bytes(&|s| s.dshift), bytes(&|s| s.half));
            quote! {
                ::isa_rt::decode::SpanColumn { lo: #lo, limit: #limit, miss: #miss, shift: #shift, dshift: #dshift, half: #half }
            }
        });
        let (window, halves) = match source {
            SpanSource::Window(w) => (w, false),
            SpanSource::Halves => (0, true),
        };
        let window = lit(window as u128, "u32");
        let repr = self.opcode_repr();
        let nl = lit(n as u128, "usize");
        let slots_l = lit(slots as u128, "usize");
        let fast_len_l = lit(fast_len as u128, "usize");
        let typed = self.decoded();
        quote! {
            #typed
            #decode_opcode
            /// How the fast test reads this spec's words.
            const DECODE_SHAPE: ::isa_rt::decode::Shape = ::isa_rt::decode::Shape {
                fixed_in_key: #fixed_in_key,
                window: #window,
                halves: #halves,
                miss: #span_miss,
                miss_narrow: #span_miss_narrow,
            };
            /// Opcodes of the spec.
            const OPCODES: usize = #nl;
            /// The opcode of a `decode_opcode` result the fast or the exact test accepted
            /// (an index + 1, from 1 to `OPCODES`): a subtraction where a table would be
            /// one more load.
            #[inline(always)]
            const fn opcode_of(op: usize) -> Opcode {
                debug_assert!(op >= 1 && op <= OPCODES);
                // SAFETY: `Opcode` is `#[repr(#repr)]` with the implicit discriminants 0
                // to `OPCODES - 1`, and `op - 1` is one of them: the exact path reads
                // `DECODE_EXACT[op - 1]` first, and the fast path passes the entry its
                // test read (`FastTables::accept`), which refuses every word for the
                // other entries (asserted below, when compiling).
                unsafe { core::mem::transmute::<#repr, Opcode>((op - 1) as #repr) }
            }
            /// The fast tests: the opcodes' entries (from 1), padded to a power of two.
            static DECODE: ::isa_rt::decode::FastTables<#fast_len_l, #slots_l, #table> = ::isa_rt::decode::FastTables {
                mask_lo: #mask_lo,
                mask_hi: #mask_hi,
                bits_lo: #bits_lo,
                bits_hi: #bits_hi,
                spans: [ #( #span_columns ),* ],
                dispatch: #table_entries,
            };
            const _: () = assert!(
                DECODE.refuses_outside(DECODE_SHAPE, OPCODES),
                "an entry of the fast tables accepts a word"
            );
            /// The exact test of every opcode.
            static DECODE_EXACT: [::isa_rt::decode::ExactCheck; #nl] = [ #( #exact ),* ];
        }
    }

    /// `Decoded`, the validated word, and the decoder's entry points over the tables:
    /// the typed layer of `isa_rt::decode`.
    fn decoded(&self) -> TokenStream {
        quote! {
            /// An instruction word that decodes, and its opcode: what [`Decoded::decode`]
            /// returns without building the typed instruction. It is a validated word:
            /// every field holds a defined code and every bit outside the opcode's fields
            /// is zero, so it encodes back to the word it came from. The typed views
            /// ([`Decoded::instruction`], and `from_decoded` of each opcode struct) read
            /// their fields from it.
            #[derive(Clone, Copy, PartialEq, Eq, Hash)]
            #[repr(C, packed)]
            pub struct Decoded {
                lo: u64,
                hi: u64,
                opcode: Opcode,
            }

            impl Decoded {
                /// Decodes a word exactly, as [`Instruction::decode`] does (the same words
                /// are accepted, with the same errors), without building the typed
                /// instruction: a table lookup and a mask test for most words.
                #[inline]
                pub const fn decode(word: u128) -> Result<Decoded, DecodeError> {
                    match decode_fast(word) {
                        Some(d) => Ok(d),
                        None => decode_exact(word),
                    }
                }

                /// Decodes `words` into `out`, position by position (as far as the shorter
                /// of the two goes): `Some` for a word that decodes, `None` for one that
                /// does not (its error is what [`Decoded::decode`] returns for it). Returns
                /// the number of `None`s.
                pub fn decode_batch(words: &[u128], out: &mut [Option<Decoded>]) -> usize {
                    ::isa_rt::decode::batch(words, out, decode_fast, |w| decode_exact(w).ok())
                }

                /// Decodes `words` one at a time, as an iterator of what
                /// [`Decoded::decode`] returns for each; the words ahead are asked for from
                /// memory as it goes, so a long slice decodes at the speed of
                /// [`Decoded::decode_batch`].
                pub fn decode_iter(words: &[u128]) -> DecodeIter<'_> {
                    DecodeIter { words: words.iter() }
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
                    ::isa_rt::decode::prefetch(self.words.as_slice().as_ptr().wrapping_add(64));
                    let w = *self.words.next()?;
                    Some(Decoded::decode(w))
                }

                fn size_hint(&self) -> (usize, Option<usize>) {
                    self.words.size_hint()
                }
            }

            impl ExactSizeIterator for DecodeIter<'_> {}

            impl core::fmt::Debug for Decoded {
                fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                    // A copy: a reference into a packed struct may be unaligned.
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
                    Decoded { lo: word as u64, hi: (word >> 64) as u64, opcode: i.opcode() }
                }
            }

            /// The fast path: `None` when the word fails the test of the only opcode it
            /// can be (or that opcode cannot be checked there).
            #[inline(always)]
            const fn decode_fast(word: u128) -> Option<Decoded> {
                match DECODE.accept(DECODE_SHAPE, word, decode_opcode(word)) {
                    Some(op) => Some(Decoded { lo: word as u64, hi: (word >> 64) as u64, opcode: opcode_of(op) }),
                    None => None,
                }
            }

            /// The exact path: the first reason a word is not an instruction, in the
            /// spec's order, or the instruction.
            #[cold]
            #[inline(never)]
            const fn decode_exact(word: u128) -> Result<Decoded, DecodeError> {
                let op = decode_opcode(word);
                if op == 0 || !DECODE_EXACT[op - 1].fixed_match(word) {
                    return Err(DecodeError::UnknownOpcode { word });
                }
                let opcode = opcode_of(op);
                match check_fields(word, opcode) {
                    Ok(()) => Ok(Decoded { lo: word as u64, hi: (word >> 64) as u64, opcode }),
                    Err(e) => Err(e),
                }
            }

            /// Checks the fields of a word whose fixed bits are `opcode`'s: no bit outside
            /// its fields, and every field a defined code (the first that is not is the
            /// error).
            const fn check_fields(word: u128, opcode: Opcode) -> Result<(), DecodeError> {
                match DECODE_EXACT[opcode as usize].check_fields(word) {
                    Ok(()) => Ok(()),
                    Err(::isa_rt::decode::Refusal::ReservedBits(bits)) => {
                        Err(DecodeError::ReservedBits { opcode, bits })
                    }
                    Err(::isa_rt::decode::Refusal::InvalidField(field, value)) => {
                        Err(DecodeError::InvalidField { opcode, field, value })
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bundled() -> Model {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../isa-spec");
        crate::Spec::load(&[dir])
            .expect("spec loads")
            .check()
            .model
            .expect("checks")
    }

    /// `span_codes`' description accepts exactly the defined codes.
    fn accepts(defined: &[bool], width: u32) -> Option<Vec<bool>> {
        let (lo, len, miss) = span_codes(defined, width)?;
        let mask = (1u64 << width) - 1;
        Some(
            (0..1u64 << width)
                .map(|code| {
                    let d = code.wrapping_sub(lo.into()) & mask;
                    d <= len.into() && (miss >> (d & 63)) & 1 == 0
                })
                .collect(),
        )
    }

    #[test]
    fn span_codes_describe_windows_and_ranges() {
        let set = |width: u32, codes: &[usize]| -> Vec<bool> {
            (0..1usize << width).map(|c| codes.contains(&c)).collect()
        };
        let mut cases: Vec<(u32, Vec<bool>)> = vec![
            (3, set(3, &[0, 1, 2, 3, 4])),
            (3, set(3, &[1, 4, 6])),
            (3, set(3, &[])),
            // A register file and a zero register at the top: round from 255 to 0.
            (8, (0..256).map(|c| c <= 42 || c == 255).collect()),
            // One range wider than 64 codes, and one wrapping round.
            (10, (0..1024).map(|c| (100..900).contains(&c)).collect()),
            (10, (0..1024).map(|c| !(100..900).contains(&c)).collect()),
            (16, (0..65536).map(|c| c % 1000 < 900 && c < 1000).collect()),
        ];
        // Every subset of 4-bit codes.
        cases.extend((0..1u32 << 16).map(|s| (4, (0..16).map(|c| s >> c & 1 == 1).collect())));
        for (width, defined) in &cases {
            assert_eq!(
                accepts(defined, *width).as_ref(),
                Some(defined),
                "{width}: {defined:?}"
            );
        }
        // Neither within 64 neighbours nor one range.
        let scattered: Vec<bool> = (0..256).map(|c| c % 100 == 0).collect();
        assert_eq!(accepts(&scattered, 8), None);
        // Exactly 64 neighbouring codes with gaps fit a miss bitmap; 65 do not.
        for (codes, fits) in [
            (&[0, 63][..], true),
            (&[5, 20, 68], true),
            (&[0, 64], false),
        ] {
            let defined = set(8, codes);
            let want = fits.then(|| defined.clone());
            assert_eq!(accepts(&defined, 8), want, "{codes:?}");
        }
    }

    /// A span as the fast path tests it accepts exactly the defined combinations of its
    /// fields, whatever lies around them, read from any place of its source.
    #[test]
    fn spans_accept_the_defined_codes_whatever_surrounds_them() {
        let m = bundled();
        let any = &m.opcodes[0].fields[0];
        let field = |start: u32, width: u32| Field {
            start,
            width,
            ..any.clone()
        };
        // (fields as (offset, width, defined ranges)), lowest first.
        let cases: Vec<Vec<(u32, u32, Ranges)>> = vec![
            vec![(0, 3, vec![(0, 6)])],
            vec![(0, 3, vec![(1, 1), (4, 4), (6, 6)])],
            vec![(0, 8, vec![(0, 0x2a), (0xff, 0xff)])],
            vec![(0, 3, vec![(0, 5)]), (3, 2, vec![(0, 2)])],
            vec![(0, 10, vec![(100, 899)])],
            vec![(0, 8, vec![(3, 9), (20, 40)])],
            vec![(0, 16, vec![(0, 999)])],
        ];
        let mut rng = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        for case in &cases {
            let width: u32 = case.iter().map(|&(o, w, _)| o + w).max().unwrap();
            for at in [0, 1, 17, 64 - width] {
                let fields: Vec<Field> = case.iter().map(|&(o, w, _)| field(at + o, w)).collect();
                let holey: Vec<Holey<'_>> = fields
                    .iter()
                    .zip(case)
                    .map(|(f, c)| (f, c.2.clone()))
                    .collect();
                let refs: Vec<&Holey<'_>> = holey.iter().collect();
                let span = describe(&refs, SpanSource::Window(0)).expect("describable");
                let narrow_ok = span.miss == 0 || span.dshift >= 58;
                for code in 0..1u64 << width {
                    let defined = case.iter().all(|(o, w, ranges)| {
                        let v = u128::from((code >> o) & ((1 << w) - 1));
                        ranges.iter().any(|r| r.0 <= v && v <= r.1)
                    });
                    for _ in 0..8 {
                        let around = next() & !(((1u64 << width) - 1) << at);
                        let source = around | code << at;
                        assert_eq!(
                            span.accepts(source, false),
                            defined,
                            "{case:?} at {at}: {code}"
                        );
                        if narrow_ok {
                            assert_eq!(
                                span.accepts(source, true),
                                defined,
                                "{case:?} at {at}: {code}"
                            );
                        }
                    }
                }
            }
        }
        assert!(!Span::NEVER.accepts(0, false) && !Span::NEVER.accepts(0, true));
        assert!(Span::NONE.accepts(u64::MAX, false) && Span::NONE.accepts(u64::MAX, true));
    }

    /// Every opcode of the bundled spec takes the fast path (the exact one is many times
    /// slower), from one window of the word.
    #[test]
    fn the_bundled_spec_decodes_on_the_fast_path() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../isa-spec");
        let m = crate::Spec::load(&[dir])
            .expect("spec loads")
            .check()
            .model
            .expect("checks");
        let holey: Vec<Vec<Holey<'_>>> = m
            .opcodes
            .iter()
            .map(|op| {
                op.value_fields()
                    .filter_map(|(_, f)| valid_ranges(m.ty(f.ty), f.width).map(|r| (f, r)))
                    .collect()
            })
            .collect();
        let source = SpanSource::choose(holey.iter().flatten().map(|(f, _)| *f));
        assert!(matches!(source, SpanSource::Window(_)));
        assert!(table(&m).is_some());
        for (op, h) in m.opcodes.iter().zip(&holey) {
            assert!(fast_spans(h, source).is_some(), "{}", op.name);
        }
    }

    /// The dispatch table exists while the fixed bits fit its key: 16 bits, not 17.
    /// Two opcodes fix the same bits; each key names the opcode whose bits it holds.
    #[test]
    fn the_table_holds_at_most_table_bits_fixed_bits() {
        let with_fixed = |bits: u32| {
            let text = format!(
                "__DefBitFieldType Op<{bits}>\n    A = 1;\n    B = 2;\n__DefGroup ALL\n\
                 __DefOptype A: [ALL]\n  __Encoding\n    field<0, {bits}> Op op == A;\n\
                 \x20 __OperandInfo\n    Order<>;\n__DefOpcode A_X: [A]\n\
                 __DefOptype B: [ALL]\n  __Encoding\n    field<0, {bits}> Op op == B;\n\
                 \x20 __OperandInfo\n    Order<>;\n__DefOpcode B_X: [B]\n"
            );
            let c = crate::Spec::from_texts([("t.isa", text.as_str())]).check();
            assert!(!c.has_errors(), "{}", c.render_diagnostics());
            table(&c.model.unwrap())
        };
        assert_eq!(TABLE_BITS, 16);
        let t = with_fixed(16).expect("16 fixed bits make a table");
        assert_eq!(t.runs, [(0, 16)]);
        assert_eq!(t.slots.len(), 1 << 16);
        assert_eq!(&t.slots[..4], [0, 1, 2, 0]);
        assert_eq!(t.slots.iter().filter(|&&s| s != 0).count(), 2);
        assert!(with_fixed(17).is_none());
    }

    /// The `miss` bitmaps are read when some span has gaps, and only then.
    #[test]
    fn miss_bitmaps_are_read_when_a_span_has_gaps() {
        let gappy = Span {
            miss: 0b100,
            ..Span::NONE
        };
        assert!(!any_miss([]));
        assert!(!any_miss([&Span::NONE, &Span::NEVER]));
        assert!(any_miss([&Span::NONE, &gappy]));
        assert!(any_miss([&gappy]));
    }

    /// The fast path checks at most `MAX_SPANS` spans an opcode; one with more takes
    /// the exact path.
    #[test]
    fn the_fast_path_checks_at_most_max_spans_spans() {
        let m = bundled();
        let any = &m.opcodes[0].fields[0];
        // 3-bit fields with holes, 14 bits apart: too far apart to share a span.
        let fields: Vec<Field> = (0..=MAX_SPANS as u32)
            .map(|k| Field {
                start: 14 * k,
                width: 3,
                ..any.clone()
            })
            .collect();
        let holey: Vec<Holey<'_>> = fields.iter().map(|f| (f, vec![(0, 5)])).collect();
        let spans = |n: usize| fast_spans(&holey[..n], SpanSource::Window(0)).map(|s| s.len());
        for n in 1..=MAX_SPANS {
            assert_eq!(spans(n), Some(n));
        }
        assert_eq!(spans(MAX_SPANS + 1), None);
    }

    /// A span read from a 64-bit half lies within it, and a span is at most
    /// `SPAN_WIDTH` bits from its first bit to the end of its last field.
    #[test]
    fn a_span_in_halves_stays_within_one_half() {
        let m = bundled();
        let any = &m.opcodes[0].fields[0];
        for first in 0..128u32 {
            for start in first..128 {
                for width in 1..=SPAN_WIDTH.min(128 - start) {
                    let f = Field {
                        start,
                        width,
                        ..any.clone()
                    };
                    let end = start + width;
                    let short = end - first <= SPAN_WIDTH;
                    let one_half = (first < 64) == (end <= 64);
                    let at = format!("first {first}, field {start}+{width}");
                    assert_eq!(
                        SpanSource::Halves.fits(first, &f),
                        short && one_half,
                        "{at}"
                    );
                    assert_eq!(SpanSource::Window(0).fits(first, &f), short, "{at}");
                }
            }
        }
    }
}
