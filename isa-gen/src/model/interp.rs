//! The interpreting tier: encode and decode instructions of any spec by walking the
//! model. It is slow (a linear scan over opcodes) but needs no generated code, so the
//! proc-macros and ISA authors can use it on a spec as soon as it checks, and the tests
//! use it as the oracle for the generated decoder (which must agree on every word).

use super::{Model, Role};

/// An instruction as the model sees it: the opcode and the raw code of every field
/// (fixed fields included), indexed like [`super::Opcode::fields`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decoded {
    pub opcode: usize,
    pub values: Vec<u128>,
}

/// Why a word does not decode. The generated decoder reports the same reasons, in the
/// same precedence: opcode, then reserved bits, then the first bad field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecodeFailure {
    /// No opcode's fixed bits match.
    NoOpcode,
    /// Bits outside every field of the matched opcode are set.
    ReservedBits { opcode: usize, bits: u128 },
    /// A field holds a code its type does not define.
    InvalidField {
        opcode: usize,
        field: usize,
        value: u128,
    },
}

impl Model {
    /// Finds the opcode whose fixed bits match `word` (at most one can: the checker
    /// rejects specs where two could).
    pub fn match_opcode(&self, word: u128) -> Option<usize> {
        self.opcodes
            .iter()
            .position(|o| word & o.fixed_mask == o.fixed_bits)
    }

    /// Decodes a word by interpretation.
    pub fn decode(&self, word: u128) -> Result<Decoded, DecodeFailure> {
        let opcode = self.match_opcode(word).ok_or(DecodeFailure::NoOpcode)?;
        let op = &self.opcodes[opcode];
        let reserved = word & !op.covered;
        if reserved != 0 {
            return Err(DecodeFailure::ReservedBits {
                opcode,
                bits: reserved,
            });
        }
        let mut values = Vec::with_capacity(op.fields.len());
        for (i, f) in op.fields.iter().enumerate() {
            let v = (word & f.mask()) >> f.start;
            if !self.ty(f.ty).is_valid_code(v) {
                return Err(DecodeFailure::InvalidField {
                    opcode,
                    field: i,
                    value: v,
                });
            }
            values.push(v);
        }
        Ok(Decoded { opcode, values })
    }

    /// Encodes field codes into a word. Fixed fields take their fixed value whatever
    /// `values` holds; other values are masked to their field width.
    pub fn encode(&self, d: &Decoded) -> u128 {
        let op = &self.opcodes[d.opcode];
        let mut w = 0u128;
        for (i, f) in op.fields.iter().enumerate() {
            let v = match f.role {
                Role::Fixed(c) => c,
                _ => d.values.get(i).copied().unwrap_or(0),
            };
            w |= (v << f.start) & f.mask();
        }
        w
    }

    /// The instruction an opcode starts from: fixed values, defaults, and the first
    /// valid code of each field without a default.
    pub fn default_instruction(&self, opcode: usize) -> Decoded {
        let op = &self.opcodes[opcode];
        let values = op
            .fields
            .iter()
            .map(|f| match f.role {
                Role::Fixed(c) => c,
                _ => f.default.unwrap_or_else(|| self.first_code(f.ty)),
            })
            .collect();
        Decoded { opcode, values }
    }

    fn first_code(&self, ty: super::TypeId) -> u128 {
        let t = self.ty(ty);
        match &t.kind {
            super::TypeKind::Enum(vs) => vs.iter().map(|v| v.code).min().unwrap_or(0),
            super::TypeKind::RegFile(r) => r.lo,
            _ => 0,
        }
    }
}
