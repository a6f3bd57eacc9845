//! The decoder's tables, generated per spec; the code that reads them is
//! spec-independent and emitted verbatim (`decode_runtime.rs`).
//!
//! `decode_opcode` finds the only opcode a word can be: a table indexed by the fixed
//! bits when they are at most 16 (gathered from however many runs they lie in), else a
//! decision tree over the fixed fields. Then one test per opcode: the word's fixed and
//! reserved bits against two masks, and the fields whose types leave codes undefined,
//! in spans of neighbouring fields, each span against a bitmap of its defined codes
//! (`FAST_SPANS` spans, padded, so the test does the same work for every opcode and
//! has no branch a mixed stream mispredicts). Opcodes the fast test cannot check (such
//! a field wider than `BITMAP_WIDTH` bits or across bit 64, more than `MAX_SPANS`
//! spans) always take the exact path, which checks everything from range lists.

use proc_macro2::TokenStream;
use quote::quote;

use super::{lit, lit_hex, Gen};
use crate::model::{Field, Model, Type, TypeKind};

const RUNTIME: &str = include_str!("decode_runtime.rs");

/// Widest field checked through a bitmap on the fast path (2^16 bits: 8 KiB).
const BITMAP_WIDTH: u32 = 16;
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

/// Defined codes as sorted inclusive ranges.
type Ranges = Vec<(u128, u128)>;
/// A field with undefined codes, and its defined ones.
type Holey<'m> = (&'m Field, Ranges);

/// One span of the fast test (see `FastSpan` in `decode_runtime.rs`).
#[derive(Clone, Copy)]
struct Span {
    shift: u32,
    half: u32,
    mask: u32,
    base: u16,
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
/// spans of at most `BITMAP_WIDTH` bits within one 64-bit half, each span read as one
/// code that indexes a bitmap of its defined combinations (bits of other fields inside
/// the span may hold anything), as `(shift in the half, half, mask, bitmap offset)`.
/// `None` when the fast path cannot check them (a field crosses bit 64 or is too wide,
/// too many spans, no room left for a bitmap). Bitmaps are appended to `valid`, once
/// for each distinct content (`maps`).
fn fast_spans(
    holey: &[Holey<'_>],
    valid: &mut Vec<u64>,
    maps: &mut Vec<(Vec<u64>, u16)>,
) -> Option<Vec<Span>> {
    let mut sorted: Vec<&Holey<'_>> = holey.iter().collect();
    sorted.sort_by_key(|(f, _)| f.start);
    let mut spans: Vec<Vec<&Holey<'_>>> = Vec::new();
    for h in sorted {
        let f = h.0;
        if (f.start < 64 && f.start + f.width > 64) || f.width > BITMAP_WIDTH {
            return None;
        }
        match spans.last_mut() {
            Some(span)
                if (span[0].0.start >= 64) == (f.start >= 64)
                    && f.start + f.width - span[0].0.start <= BITMAP_WIDTH =>
            {
                span.push(h)
            }
            _ => spans.push(vec![h]),
        }
    }
    if spans.len() > MAX_SPANS {
        return None;
    }
    let mut out = Vec::with_capacity(spans.len());
    for span in spans {
        let first = span[0].0.start;
        let width = span
            .iter()
            .map(|(f, _)| f.start + f.width - first)
            .max()
            .unwrap_or(0);
        let mut map = vec![0u64; (1usize << width).div_ceil(64)];
        for code in 0..1u128 << width {
            let ok = span.iter().all(|(f, ranges)| {
                let v = (code >> (f.start - first)) & crate::model::mask(0, f.width);
                let i = ranges.partition_point(|r| r.1 < v);
                ranges.get(i).is_some_and(|r| r.0 <= v)
            });
            if ok {
                map[(code >> 6) as usize] |= 1 << (code & 63);
            }
        }
        let base = match maps.iter().find(|(m, _)| *m == map) {
            Some(&(_, b)) => b,
            None => {
                let b = valid.len();
                if b + map.len() > 1 << 16 {
                    return None;
                }
                valid.extend_from_slice(&map);
                maps.push((map, b as u16));
                b as u16
            }
        };
        let (half, shift) = if first >= 64 {
            (1, first - 64)
        } else {
            (0, first)
        };
        out.push(Span {
            shift,
            half,
            mask: crate::model::mask(0, width) as u32,
            base,
        });
    }
    Some(out)
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

    /// The decoder: `decode_opcode`, the tables and the verbatim runtime.
    pub(super) fn decoder(&self) -> TokenStream {
        let m = self.model;
        let n = m.opcodes.len();

        // `decode_opcode`: the table lookup, or the decision tree.
        let (decode_opcode, table, table_entries) = match table(m) {
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
                            DECODE.table[ #( #parts )|* ] as usize
                        }
                    },
                    quote! {
                        /// An entry of the dispatch table.
                        type DecodeSlot = #ty;
                        /// Entries of the dispatch table.
                        const TABLE_LEN: usize = #size;
                    },
                    quote! { #( #entries ),* },
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
                    quote! {
                        /// An entry of the dispatch table (there is none).
                        type DecodeSlot = u8;
                        /// Entries of the dispatch table (there is none).
                        const TABLE_LEN: usize = 0;
                    },
                    quote! {},
                )
            }
        };

        // Bitmaps of defined codes, shared by fields of the same type and width.
        // Word 0 is all ones: the padding entries (mask 0, code 0) read it.
        let mut valid: Vec<u64> = vec![u64::MAX];
        let mut maps: Vec<(Vec<u64>, u16)> = Vec::new();
        // Per opcode, the spans of the fast test, or `None` when
        // the fast path cannot check it.
        let mut fast: Vec<Option<Vec<Span>>> = Vec::with_capacity(n);
        let mut exact = Vec::with_capacity(n);
        for op in &m.opcodes {
            let holey = self.holey_fields(op);
            let mut exact_fields = Vec::new();
            for (f, ranges) in &holey {
                let name = &f.name;
                let start = lit(f.start as u128, "u32");
                let width = lit(f.width as u128, "u32");
                let rs = ranges.iter().map(|&(a, b)| {
                    let a = lit_hex(a, "u128");
                    let b = lit_hex(b, "u128");
                    quote! { (#a, #b) }
                });
                exact_fields.push(quote! {
                    ExactField { name: #name, start: #start, width: #width, valid: &[ #( #rs ),* ] }
                });
            }
            let fields = fast_spans(&holey, &mut valid, &mut maps);
            fast.push(fields);
            let fixed_mask = lit_hex(op.fixed_mask, "u128");
            let fixed_bits = lit_hex(op.fixed_bits, "u128");
            let covered = lit_hex(op.covered, "u128");
            exact.push(quote! {
                ExactCheck {
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
        // Powers of two, so the fast path masks its indices instead of checking them.
        let fast_len = (n + 1).next_power_of_two();
        valid.resize(valid.len().next_power_of_two(), 0);

        let pad = quote! { FastSpan { mask: 0u32, base: 0u16, shift: 0u8, half: 0u8 } };
        let checks = m.opcodes.iter().zip(&fast).map(|(op, f)| {
            let Some(f) = f else { return quote! { NEVER } };
            let check = op.fixed_mask | !op.covered;
            let m0 = lit_hex(check & u128::from(u64::MAX), "u64");
            let m1 = lit_hex(check >> 64, "u64");
            let b0 = lit_hex(op.fixed_bits & u128::from(u64::MAX), "u64");
            let b1 = lit_hex(op.fixed_bits >> 64, "u64");
            let fields = (0..slots).map(|k| match f.get(k) {
                Some(span) => {
                    let mask = lit_hex(span.mask as u128, "u32");
                    let base = lit(span.base as u128, "u16");
                    let shift = lit(span.shift as u128, "u8");
                    let half = lit(span.half as u128, "u8");
                    quote! { FastSpan { mask: #mask, base: #base, shift: #shift, half: #half } }
                }
                None => pad.clone(),
            });
            quote! { FastCheck { mask: [#m0, #m1], bits: [#b0, #b1], spans: [ #( #fields ),* ] } }
        });
        let padding = (n + 1..fast_len).map(|_| quote! { NEVER });
        let pads = (0..slots).map(|_| pad.clone());
        let variants: Vec<_> = m.opcodes.iter().map(|o| self.struct_ident(o)).collect();
        let first = &variants[0];
        let opcode_pad = (n + 1..fast_len).map(|_| quote! { Opcode::#first });
        let nl = lit(n as u128, "usize");
        let slots_l = lit(slots as u128, "usize");
        let fast_len_l = lit(fast_len as u128, "usize");
        let valid_len = lit(valid.len() as u128, "usize");
        let valid = valid.iter().map(|&w| lit_hex(w as u128, "u64"));
        let runtime = super::backend::verbatim(RUNTIME, "decode_runtime.rs");
        quote! {
            #runtime
            #decode_opcode
            #table
            /// Spans of fields with undefined codes the fast test of one opcode checks.
            const FAST_SPANS: usize = #slots_l;
            /// Entries of the fast tests: the opcodes + 1, to a power of two.
            const FAST_LEN: usize = #fast_len_l;
            /// 64-bit words of code bitmaps, to a power of two.
            const VALID_LEN: usize = #valid_len;
            /// The fast test no word passes.
            const NEVER: FastCheck = FastCheck { mask: [0u64, 0u64], bits: [1u64, 0u64], spans: [ #( #pads ),* ] };
            static DECODE: DecodeTables = DecodeTables {
                fast: [ NEVER, #( #checks, )* #( #padding ),* ],
                valid: [ #( #valid ),* ],
                opcode_of: [ Opcode::#first, #( Opcode::#variants, )* #( #opcode_pad ),* ],
                table: [ #table_entries ],
            };
            /// The exact test of every opcode.
            static DECODE_EXACT: [ExactCheck; #nl] = [ #( #exact ),* ];
        }
    }
}
