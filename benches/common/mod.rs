//! Instruction streams for the benchmarks, built from the spec model (`isa-gen`) with
//! random defined field values and a fixed seed, so every run measures the same
//! words. Shared by `benches/codec.rs` and the peer comparison in `benches/peer/`.

#![allow(dead_code)] // each bench uses a part

use isa::Opcode;
use isa_gen::model::{Model, Role, TypeId, TypeKind};

/// The plausible mix: (optype, weight). Every opcode of an optype is equally likely.
pub const MIX: &[(&str, u32)] = &[
    ("UIADD", 14),
    ("UIMAD", 8),
    ("ULOP3", 10),
    ("USHF", 8),
    ("UMOV", 12),
    ("ULDC", 10),
    ("UISETP", 4),
    ("BRA", 5),
    ("BSSY", 3),
    ("BSYNC", 3),
    ("EXIT", 2),
    ("S2R", 6),
    ("SHFL", 4),
    ("VOTE", 3),
];

/// xorshift64: deterministic, no dependency.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    pub fn bits(&mut self, width: u32) -> u128 {
        let v = (u128::from(self.next()) << 64) | u128::from(self.next());
        if width >= 128 {
            v
        } else {
            v & ((1u128 << width) - 1)
        }
    }
}

pub fn load_model() -> Model {
    let checked =
        isa_gen::Spec::from_texts(isa_spec::FILES.iter().map(|f| (f.name, f.text))).check();
    assert!(!checked.has_errors(), "{}", checked.render_diagnostics());
    let model = checked.model.expect("a spec without errors has a model");
    // Model opcode `i` is `Opcode::ALL[i]`: the streams index both by position.
    assert_eq!(model.opcodes.len(), Opcode::ALL.len());
    for (m, g) in model.opcodes.iter().zip(Opcode::ALL) {
        assert_eq!(m.name, g.name());
    }
    model
}

/// A random defined code of a field type.
pub fn random_code(model: &Model, ty: TypeId, rng: &mut Rng) -> u128 {
    let t = model.ty(ty);
    let code = match &t.kind {
        TypeKind::Enum(values) => values[rng.below(values.len())].code,
        TypeKind::RegFile(r) => {
            let numbered = (r.hi - r.lo + 1) as usize;
            let k = rng.below(numbered + r.named.len());
            if k < numbered {
                r.lo + k as u128
            } else {
                r.named[k - numbered].1
            }
        }
        TypeKind::Immediate { .. } | TypeKind::ConstMem { .. } => rng.bits(t.width),
    };
    assert!(t.is_valid_code(code));
    code
}

/// A random valid word of `opcode`. A field with a spec default keeps it with
/// probability `keep_default` out of 4.
pub fn random_word(model: &Model, opcode: usize, keep_default: usize, rng: &mut Rng) -> u128 {
    let mut d = model.default_instruction(opcode);
    for (i, f) in model.opcodes[opcode].fields.iter().enumerate() {
        if matches!(f.role, Role::Fixed(_)) || (f.default.is_some() && rng.below(4) < keep_default)
        {
            continue;
        }
        d.values[i] = random_code(model, f.ty, rng);
    }
    let word = model.encode(&d);
    assert_eq!(model.decode(word), Ok(d), "model round trip of {word:#x}");
    word
}

pub fn opcodes_where(model: &Model, keep: impl Fn(&isa_gen::model::Opcode) -> bool) -> Vec<usize> {
    (0..model.opcodes.len())
        .filter(|&i| keep(&model.opcodes[i]))
        .collect()
}

/// The plausible mix of [`MIX`].
pub fn mixed_stream(model: &Model, len: usize, rng: &mut Rng) -> Vec<u128> {
    let groups: Vec<(Vec<usize>, u32)> = MIX
        .iter()
        .map(|&(optype, weight)| {
            let ops = opcodes_where(model, |o| {
                o.optype.is_some_and(|d| model.def(d).name == optype)
            });
            assert!(!ops.is_empty(), "no opcode of optype {optype}");
            (ops, weight)
        })
        .collect();
    let total: u32 = groups.iter().map(|g| g.1).sum();
    (0..len)
        .map(|_| {
            let mut pick = rng.below(total as usize) as u32;
            let (ops, _) = groups
                .iter()
                .find(|(_, w)| {
                    let hit = pick < *w;
                    pick = pick.saturating_sub(*w);
                    hit
                })
                .expect("pick < total");
            random_word(model, ops[rng.below(ops.len())], 3, rng)
        })
        .collect()
}

/// Every opcode equally likely, every field random.
pub fn uniform_stream(model: &Model, len: usize, rng: &mut Rng) -> Vec<u128> {
    let n = model.opcodes.len();
    (0..len)
        .map(|_| random_word(model, rng.below(n), 0, rng))
        .collect()
}

/// The same words grouped by opcode: every branch on the opcode is predicted, so
/// this prices the decoding work alone (a diagnostic, not a realistic stream).
pub fn sorted(words: &[u128]) -> Vec<u128> {
    let mut v = words.to_vec();
    v.sort_by_key(|&w| (w & 0xfff, w));
    v
}
