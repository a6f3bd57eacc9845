//! Helpers shared by the integration tests: the bundled spec's model, a deterministic
//! generator and random legal instructions.
#![allow(dead_code)] // each test binary uses part of it

use std::sync::OnceLock;

use isa_gen::model::interp::Decoded;
use isa_gen::model::{Model, Role, TypeKind};

/// The checked model of isa-spec/, loaded once per test binary.
pub fn model() -> &'static Model {
    static MODEL: OnceLock<Model> = OnceLock::new();
    MODEL.get_or_init(|| {
        let checked = isa_gen::Spec::load(&[isa_spec::DIR]).unwrap().check();
        assert!(!checked.has_errors(), "{}", checked.render_diagnostics());
        checked.model.unwrap()
    })
}

/// A small deterministic generator (xorshift), so failures reproduce.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    pub fn word(&mut self) -> u128 {
        (u128::from(self.next()) << 64) | u128::from(self.next())
    }
}

/// A random legal instruction of opcode `i`: every field a code its type defines,
/// defaults and constant registers often.
pub fn legal(m: &Model, i: usize, rng: &mut Rng) -> Decoded {
    let op = &m.opcodes[i];
    let values = op
        .fields
        .iter()
        .map(|f| {
            if let Role::Fixed(c) = f.role {
                return c;
            }
            if let (Some(d), 0) = (f.default, rng.below(3)) {
                return d;
            }
            let ty = m.ty(f.ty);
            match &ty.kind {
                TypeKind::Enum(vs) => vs[rng.below(vs.len())].code,
                TypeKind::RegFile(rf) if rng.below(4) == 0 && !rf.named.is_empty() => {
                    rf.named[rng.below(rf.named.len())].1
                }
                TypeKind::RegFile(rf) => rf.lo + rng.word() % (rf.hi - rf.lo + 1),
                _ => rng.word() & isa_gen::model::mask(0, f.width.min(ty.width)),
            }
        })
        .collect();
    Decoded { opcode: i, values }
}
