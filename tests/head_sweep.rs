//! The exhaustive head sweep: every value of the fixed-field heads, many payloads each.
//!
//! The *head* is the set of bits every opcode fixes (for this spec the `optype` field,
//! bits 0..8, and the `stype`/`ustype` field, bits 8..12: 4096 heads). It is derived
//! from the model, not written down here. For every head value the sweep decodes many
//! words carrying that head ([`PAYLOADS`] in a whole sweep), with the generated decoder
//! (`Instruction::decode`) and with the model's interpreting decoder (`Model::decode`),
//! and checks that they agree on acceptance, opcode and failure reason (unknown opcode;
//! reserved bits, with the same bits; invalid field, with the same field and value),
//! and that every accepted word re-encodes bit-exactly in both tiers.
//!
//! Payloads are random (a fixed seed per head and slice, so a failure reproduces), and
//! aimed: for a head that some opcodes carry, they are legal instructions of those
//! opcodes, legal instructions with one bit flipped, the opcode's fixed bits with
//! random field bits, and arbitrary payloads; for a head no opcode carries, arbitrary
//! ones.
//!
//! The payloads of a head come in [`SLICES`] slices of their own seeds. Heads some
//! opcode carries (135 of 4096) are always swept whole. A release build sweeps the
//! others whole too: 4096 × 10,000 words. In a debug build those 39.6 million words,
//! every one an unknown opcode to both decoders, took nearly all of the sweep's time
//! (19 of 20 s when measured), so a
//! debug build gives each uncarried head one slice (a tenth of its payloads), a
//! different one each run (from the clock), and successive runs cover the whole. The
//! slice is printed; `ISA_HEAD_SWEEP_SLICE=N` sweeps slice N again, `all` every slice.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Instant, SystemTime};

use isa::{DecodeError, Instruction};
use isa_gen::model::interp::DecodeFailure;
use isa_gen::model::{Model, Role, TypeKind};

/// Payloads per head value, over all slices.
const PAYLOADS: u64 = 10_000;

/// The payloads of a head are swept in this many slices of `PAYLOADS / SLICES`.
const SLICES: u64 = 10;

/// The slices this run sweeps of the heads no opcode carries: `ISA_HEAD_SWEEP_SLICE` (a
/// number below [`SLICES`], or `all`); otherwise all of them in a release build and one,
/// chosen by the clock, in a debug build.
fn slices() -> Vec<u64> {
    match std::env::var("ISA_HEAD_SWEEP_SLICE") {
        Ok(v) if v == "all" => (0..SLICES).collect(),
        Ok(v) => {
            let n: u64 = v.parse().ok().filter(|&n| n < SLICES).unwrap_or_else(|| {
                panic!("ISA_HEAD_SWEEP_SLICE={v}: expected 0..{SLICES} or `all`")
            });
            vec![n]
        }
        Err(_) if cfg!(debug_assertions) => {
            let now = SystemTime::now()
                .duration_since(SystemTime::UNIX_EPOCH)
                .expect("the clock is past 1970");
            vec![now.as_secs() % SLICES]
        }
        Err(_) => (0..SLICES).collect(),
    }
}

fn model() -> Model {
    let checked = isa_gen::Spec::load(&[isa_spec::DIR])
        .expect("spec files are readable")
        .check();
    assert!(!checked.has_errors(), "{}", checked.render_diagnostics());
    checked.model.expect("the spec checks")
}

/// A small deterministic PRNG (splitmix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn word(&mut self) -> u128 {
        (u128::from(self.next()) << 64) | u128::from(self.next())
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// The head: bits every opcode fixes, as the fields that hold them (start, width,
/// name), checked to be the same fields in every opcode.
fn head_fields(m: &Model) -> (u128, Vec<(u32, u32, String)>) {
    let mask = m
        .opcodes
        .iter()
        .fold(u128::MAX, |acc, op| acc & op.fixed_mask);
    let fields_of = |op: &isa_gen::model::Opcode| {
        let mut v: Vec<(u32, u32)> = op
            .fields
            .iter()
            .filter(|f| f.is_fixed() && f.mask() & mask != 0)
            .map(|f| (f.start, f.width))
            .collect();
        v.sort();
        v
    };
    let first = fields_of(&m.opcodes[0]);
    for op in &m.opcodes {
        assert_eq!(
            fields_of(op),
            first,
            "{}: head bits are not held by the same fields",
            op.name
        );
        for f in op
            .fields
            .iter()
            .filter(|f| f.is_fixed() && f.mask() & mask != 0)
        {
            assert_eq!(
                f.mask() & !mask,
                0,
                "{}: field `{}` is only partly a head",
                op.name,
                f.name
            );
        }
    }
    let names = first
        .iter()
        .map(|&(s, w)| {
            let mut names: Vec<&str> = m
                .opcodes
                .iter()
                .flat_map(|op| op.fields.iter())
                .filter(|f| f.start == s && f.width == w && f.is_fixed())
                .map(|f| f.name.as_str())
                .collect();
            names.sort();
            names.dedup();
            (s, w, names.join("/"))
        })
        .collect();
    (mask, names)
}

/// Spreads the low bits of `n` over the set bits of `mask` (bit-deposit).
fn deposit(mut n: u64, mask: u128) -> u128 {
    let mut out = 0u128;
    for bit in 0..128 {
        if mask >> bit & 1 == 1 {
            out |= u128::from(n & 1) << bit;
            n >>= 1;
        }
    }
    out
}

/// A random code of opcode `i`'s field `f` that its type defines.
fn legal_code(m: &Model, i: usize, f: usize, rng: &mut Rng) -> u128 {
    let field = &m.opcodes[i].fields[f];
    if let Role::Fixed(c) = field.role {
        return c;
    }
    let ty = m.ty(field.ty);
    match &ty.kind {
        TypeKind::Enum(vs) => vs[rng.below(vs.len())].code,
        TypeKind::RegFile(rf) if rng.below(4) == 0 && !rf.named.is_empty() => {
            rf.named[rng.below(rf.named.len())].1
        }
        TypeKind::RegFile(rf) => rf.lo + rng.word() % (rf.hi - rf.lo + 1),
        TypeKind::Immediate { .. } | TypeKind::ConstMem { .. } => {
            rng.word() & isa_gen::model::mask(0, field.width.min(ty.width))
        }
    }
}

#[derive(Default)]
struct Counts {
    words: AtomicU64,
    accepted: AtomicU64,
    unknown: AtomicU64,
    reserved: AtomicU64,
    invalid: AtomicU64,
}

/// Both decoders on one word; panics on any disagreement.
fn check(m: &Model, word: u128, counts: &Counts) {
    let generated = Instruction::decode(word);
    let oracle = m.decode(word);
    let counter = match (&generated, &oracle) {
        (Ok(insn), Ok(d)) => {
            assert_eq!(
                insn.opcode().name(),
                m.opcodes[d.opcode].name,
                "{word:#034x}"
            );
            assert_eq!(insn.encode(), word, "{word:#034x}: generated re-encoding");
            assert_eq!(m.encode(d), word, "{word:#034x}: model re-encoding");
            &counts.accepted
        }
        (Err(DecodeError::UnknownOpcode { word: w }), Err(DecodeFailure::NoOpcode)) => {
            assert_eq!(*w, word);
            &counts.unknown
        }
        (
            Err(DecodeError::ReservedBits { opcode, bits }),
            Err(DecodeFailure::ReservedBits { opcode: o, bits: b }),
        ) => {
            assert_eq!(opcode.name(), m.opcodes[*o].name, "{word:#034x}");
            assert_eq!(bits, b, "{word:#034x}");
            &counts.reserved
        }
        (
            Err(DecodeError::InvalidField {
                opcode,
                field,
                value,
            }),
            Err(DecodeFailure::InvalidField {
                opcode: o,
                field: f,
                value: v,
            }),
        ) => {
            assert_eq!(opcode.name(), m.opcodes[*o].name, "{word:#034x}");
            assert_eq!(*field, m.opcodes[*o].fields[*f].name, "{word:#034x}");
            assert_eq!(value, v, "{word:#034x}");
            &counts.invalid
        }
        _ => panic!("{word:#034x}: generated decoder says {generated:?}, model says {oracle:?}"),
    };
    counter.fetch_add(1, Ordering::Relaxed);
    counts.words.fetch_add(1, Ordering::Relaxed);
}

/// Slice `slice` of the [`PAYLOADS`] words with head value `head` (already deposited
/// into the head bits).
fn sweep_head(m: &Model, head_mask: u128, head: u128, slice: u64, counts: &Counts) {
    let cands: Vec<usize> = (0..m.opcodes.len())
        .filter(|&i| m.opcodes[i].fixed_bits & head_mask == head)
        .collect();
    // Heads have at most 16 bits: the slice goes above them.
    let mut rng = Rng(0x5eed_0000_0000_0000 ^ (slice << 32) ^ head as u64);
    let payload = |rng: &mut Rng| rng.word() & !head_mask;
    let per_slice = PAYLOADS / SLICES;
    for k in slice * per_slice..(slice + 1) * per_slice {
        let word = if cands.is_empty() {
            head | payload(&mut rng)
        } else {
            let i = cands[k as usize % cands.len()];
            let op = &m.opcodes[i];
            match k % 10 {
                // A legal instruction.
                0..=3 => m.encode(&isa_gen::model::interp::Decoded {
                    opcode: i,
                    values: (0..op.fields.len())
                        .map(|f| legal_code(m, i, f, &mut rng))
                        .collect(),
                }),
                // A legal instruction with one payload bit flipped.
                4 | 5 => {
                    let values = (0..op.fields.len())
                        .map(|f| legal_code(m, i, f, &mut rng))
                        .collect();
                    let w = m.encode(&isa_gen::model::interp::Decoded { opcode: i, values });
                    let mut bit = rng.below(128);
                    while head_mask >> bit & 1 == 1 {
                        bit = rng.below(128);
                    }
                    w ^ (1u128 << bit)
                }
                // The opcode's fixed bits, random bits in its fields.
                6 | 7 => op.fixed_bits | (rng.word() & op.covered & !op.fixed_mask),
                // Anything.
                _ => head | payload(&mut rng),
            }
        };
        assert_eq!(word & head_mask, head);
        check(m, word, counts);
    }
}

#[test]
fn every_head_with_many_payloads() {
    let start = Instant::now();
    let m = model();
    let (head_mask, fields) = head_fields(&m);
    let bits = head_mask.count_ones();
    assert!(
        (1..=16).contains(&bits),
        "the head has {bits} bits ({head_mask:#x}); the sweep enumerates at most 2^16 heads"
    );
    let heads = 1u64 << bits;
    let slices = slices();
    eprintln!(
        "head sweep: uncarried heads get slice {slices:?} of 0..{SLICES} \
         (ISA_HEAD_SWEEP_SLICE=N sweeps slice N again)"
    );
    let counts = Counts::default();
    let is_carried = |head: u128| m.opcodes.iter().any(|o| o.fixed_bits & head_mask == head);
    let carried = (0..heads)
        .filter(|&h| is_carried(deposit(h, head_mask)))
        .count() as u64;
    let all: Vec<u64> = (0..SLICES).collect();
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get().min(8)) as u64;
    std::thread::scope(|s| {
        for t in 0..threads {
            let (m, counts, slices, all, is_carried) = (&m, &counts, &slices, &all, &is_carried);
            s.spawn(move || {
                for h in (t..heads).step_by(threads as usize) {
                    let head = deposit(h, head_mask);
                    let slices = if is_carried(head) { all } else { slices };
                    for &slice in slices {
                        sweep_head(m, head_mask, head, slice, counts);
                    }
                }
            });
        }
    });
    let n = |c: &AtomicU64| c.load(Ordering::Relaxed);
    eprintln!(
        "head sweep: head fields {fields:?} ({heads} heads, {carried} carried by an opcode), \
         {} words in {:.1?}: {} accepted, {} unknown opcode, {} reserved bits, {} invalid field",
        n(&counts.words),
        start.elapsed(),
        n(&counts.accepted),
        n(&counts.unknown),
        n(&counts.reserved),
        n(&counts.invalid),
    );
    let per_slice = PAYLOADS / SLICES;
    assert_eq!(
        n(&counts.words),
        carried * PAYLOADS + (heads - carried) * per_slice * slices.len() as u64
    );
    for (what, c) in [
        ("accepted", &counts.accepted),
        ("unknown opcode", &counts.unknown),
        ("reserved bits", &counts.reserved),
        ("invalid field", &counts.invalid),
    ] {
        assert!(n(c) > 0, "no word ended as {what}");
    }
    // Every opcode's head was swept with its legal instructions.
    assert!(carried > 0 && carried <= m.opcodes.len() as u64);
}

#[test]
fn deposit_spreads_bits_over_the_mask() {
    assert_eq!(deposit(0b1011, 0b1111_0000), 0b1011_0000);
    assert_eq!(deposit(0b11, 0b1001), 0b1001);
    assert_eq!(deposit(0xfff, 0xfff), 0xfff);
}
