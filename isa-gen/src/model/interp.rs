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
        self.decode_as(opcode, word)
    }

    /// Decodes a word as `opcode` ([`DecodeFailure::NoOpcode`] when its fixed bits do
    /// not match): [`Model::decode`] after dispatch, for a caller that knows where the
    /// word goes (`isa diff`) and cannot afford a scan of thousands of opcodes a word.
    pub fn decode_as(&self, opcode: usize, word: u128) -> Result<Decoded, DecodeFailure> {
        let op = &self.opcodes[opcode];
        if word & op.fixed_mask != op.fixed_bits {
            return Err(DecodeFailure::NoOpcode);
        }
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
            // A fixed field holds its fixed code (the fixed bits matched), a member (the
            // checker's rule): no look-up, which scans an enumeration of every optype.
            let valid = match f.role {
                Role::Fixed(_) => true,
                _ => self.ty(f.ty).is_valid_code(v),
            };
            if !valid {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// `decode_as` is `decode` for the opcode dispatch picks and `NoOpcode` for every
    /// other, on words with each optype code, valid and undefined field codes, and a
    /// reserved bit set or not.
    #[test]
    fn decode_as_is_decode_after_dispatch() {
        let text = "\
__DefBitFieldType Op<4>
    A = 1;
    B = 2;
__DefBitFieldType M<2>
    X = 0;
    Z = 2;
__DefGroup ALL
__DefOpcode A_M: [ALL]
  __Encoding
    field<0, 4> Op op == A;
    field<4, 2> M m = X;
  __OperandInfo
    Order<>;
__DefOpcode B_M: [ALL]
  __Encoding
    field<0, 4> Op op == B;
    field<4, 2> M m = X;
  __OperandInfo
    Order<>;
";
        let checked = crate::Spec::from_texts([("t.isa", text)]).check();
        let m = checked.model.as_ref().expect("checks");
        let mut seen = [0usize; 3];
        for word in 0u128..1 << 7 {
            let d = m.decode(word);
            seen[match &d {
                Ok(_) => 0,
                Err(DecodeFailure::NoOpcode) => 1,
                Err(_) => 2,
            }] += 1;
            for i in 0..m.opcodes.len() {
                let want = if m.match_opcode(word) == Some(i) {
                    d.clone()
                } else {
                    Err(DecodeFailure::NoOpcode)
                };
                assert_eq!(m.decode_as(i, word), want, "{word:#x} as {i}");
            }
        }
        // Every outcome came up: decoded, no opcode, reserved bits or a bad field.
        assert!(seen.iter().all(|&n| n > 0), "{seen:?}");
    }
}
