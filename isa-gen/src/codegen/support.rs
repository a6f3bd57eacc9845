//! The support types every generated crate has (field errors, the validated word,
//! register references, …), independent of the opcodes.

use super::*;

impl Gen<'_> {
    pub(super) fn support(&self) -> TokenStream {
        let core = quote! {
            pub use ::isa_rt::info::INSTRUCTION_BYTES;

            /// A value's text did not name a value of the type.
            #[derive(Clone, Copy, Debug, PartialEq, Eq)]
            pub struct ParseError {
                /// The spec name of the type being parsed.
                pub type_name: &'static str,
            }

            impl core::error::Error for ParseError {}

            impl core::fmt::Display for ParseError {
                fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                    write!(f, "not a value of `{}`", self.type_name)
                }
            }

            /// Why a 128-bit word is not an instruction.
            #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
            pub enum DecodeError {
                /// No opcode's fixed bits match the word.
                UnknownOpcode {
                    /// The word.
                    word: u128,
                },
                /// Bits that no field of the matched opcode covers are set.
                ReservedBits {
                    /// The matched opcode.
                    opcode: Opcode,
                    /// The offending bits.
                    bits: u128,
                },
                /// A field holds a code its type does not define.
                InvalidField {
                    /// The matched opcode.
                    opcode: Opcode,
                    /// The spec name of the field.
                    field: &'static str,
                    /// The field's raw bits.
                    value: u128,
                },
            }

            impl core::error::Error for DecodeError {}

            impl core::fmt::Display for DecodeError {
                fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                    match self {
                        DecodeError::UnknownOpcode { word } => {
                            write!(f, "no opcode matches {word:#034x}")
                        }
                        DecodeError::ReservedBits { opcode, bits } => {
                            write!(f, "{opcode}: reserved bits set ({bits:#x})")
                        }
                        DecodeError::InvalidField { opcode, field, value } => {
                            write!(f, "{opcode}: field `{field}` holds undefined code {value:#x}")
                        }
                    }
                }
            }

            /// An `__Exception` condition of the spec holds for an instruction.
            #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
            pub struct ValidationError {
                /// The opcode.
                pub opcode: Opcode,
                /// The spec's error kind (e.g. `IllegalBitFieldValue`).
                pub kind: &'static str,
                /// The spec's message.
                pub message: &'static str,
            }

            impl core::error::Error for ValidationError {}

            impl core::fmt::Display for ValidationError {
                fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                    write!(f, "{}: {} ({})", self.opcode, self.message, self.kind)
                }
            }

        };
        // The metadata's schema is `isa_rt::info`'s, under this crate's names; only the
        // register files are the spec's.
        let metadata = (!self.options.skip_metadata).then(|| {
            quote! {
                pub use ::isa_rt::info::{Bitwidth, FieldInfo, FieldRole, OperandInfo, OperandKind};

                /// Static metadata of an opcode.
                pub type OpcodeInfo = ::isa_rt::info::OpcodeInfo<RegFile>;
            }
        });
        quote! { #core #metadata }
    }
}
