//! The support types every generated crate has (field errors, the validated word,
//! register references, …), independent of the opcodes.

use super::*;

impl Gen<'_> {
    pub(super) fn support(&self) -> TokenStream {
        // The model's instruction size, so the generated code never retypes it.
        let inst_bytes = lit_text(&crate::model::flow::INST_SIZE.to_string());
        let core = quote! {
            /// Bytes per instruction: a 128-bit word, stored little-endian. Addresses
            /// of consecutive instructions differ by this, and relative address
            /// operands count from the address of the next instruction.
            pub const INSTRUCTION_BYTES: u64 = #inst_bytes;

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
        let metadata = (!self.options.skip_metadata).then(|| {
            quote! {
                /// The role of a field in its opcode.
                #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
                pub enum FieldRole {
                    /// Identifies the opcode; always holds this code.
                    Fixed(u128),
                    /// An operand (an item of `Order`, or part of one).
                    Operand,
                    /// A modifier, printed as `.VALUE` after the mnemonic.
                    Modifier,
                    /// A sub-field (`pg.not`) of the named field.
                    SubField(&'static str),
                }

                /// One field of an opcode's encoding.
                #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
                pub struct FieldInfo {
                    /// Spec name (`pg.not` for sub-fields).
                    pub name: &'static str,
                    /// First bit.
                    pub start: u32,
                    /// Width in bits.
                    pub width: u32,
                    /// Spec name of the field's type.
                    pub type_name: &'static str,
                    /// Role.
                    pub role: FieldRole,
                    /// The code of the spec's default, if it gives one.
                    pub default: Option<u128>,
                }

                /// What kind of value an operand is.
                #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
                pub enum OperandKind {
                    /// A register of the named register file (or register enumeration).
                    Register(&'static str),
                    /// An immediate of the named type.
                    Immediate(&'static str),
                    /// A constant-memory reference `c[bank][offset]`.
                    ConstMem,
                    /// Constant memory addressed by a register: `c[bank][reg+offset]`.
                    ConstMemIndexed,
                    /// A register chosen by another register plus an offset: `PREFIX[reg+offset]`.
                    RegisterIndexed(&'static str),
                    /// A value of the named bit-field type.
                    Enum(&'static str),
                    /// A fixed word such as `UPR`: printed, encodes nothing; the registers
                    /// it stands for are in `OpcodeInfo::regs`.
                    Word,
                }

                /// Width of an operand's data.
                #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
                pub enum Bitwidth {
                    /// Always this many bits.
                    Fixed(u32),
                    /// Depends on modifiers (the spec's expression); see `Instruction::bitwidth`.
                    Depends(&'static str),
                    /// The spec gives none.
                    Unspecified,
                }

                /// An operand (an item of `Order`, `InList` or `OutList`).
                #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
                pub struct OperandInfo {
                    /// Spec name (`ra`, `C[vb, ura]`, `UPR`).
                    pub name: &'static str,
                    /// Kind of value.
                    pub kind: OperandKind,
                    /// The fields that encode it.
                    pub fields: &'static [&'static str],
                    /// Data width.
                    pub bitwidth: Bitwidth,
                    /// Whether the spec gives it a default (so assembly may omit it).
                    pub optional: bool,
                }

                impl FieldInfo {
                    const fn new(
                        name: &'static str,
                        start: u32,
                        width: u32,
                        type_name: &'static str,
                        role: FieldRole,
                        default: Option<u128>,
                    ) -> FieldInfo {
                        FieldInfo { name, start, width, type_name, role, default }
                    }
                }

                impl OperandInfo {
                    const fn new(
                        name: &'static str,
                        kind: OperandKind,
                        fields: &'static [&'static str],
                        bitwidth: Bitwidth,
                        optional: bool,
                    ) -> OperandInfo {
                        OperandInfo { name, kind, fields, bitwidth, optional }
                    }
                }

                /// Static metadata of an opcode.
                #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
                pub struct OpcodeInfo {
                    /// The opcode's name in the spec.
                    pub name: &'static str,
                    /// The name of its optype in the spec: the assembly mnemonic (`_` written `.`).
                    pub optype: &'static str,
                    /// Bits that identify the opcode, and their value.
                    pub fixed_mask: u128,
                    /// Value of the fixed bits.
                    pub fixed_bits: u128,
                    /// Bits covered by any field; all others must be zero.
                    pub field_mask: u128,
                    /// Every field, inherited ones first.
                    pub fields: &'static [FieldInfo],
                    /// Operands in assembly order; the first is the guard predicate.
                    pub order: &'static [OperandInfo],
                    /// Operands read.
                    pub in_list: &'static [OperandInfo],
                    /// Operands written.
                    pub out_list: &'static [OperandInfo],
                    /// What the instruction does to the program counter.
                    pub flow: backend::Flow,
                    /// Fields whose value other than their default makes the flow
                    /// conditional (indices into `fields`): the guard predicate and its
                    /// sub-fields first (`guard_fields` of them), then the spec's conditions.
                    pub conditions: &'static [u8],
                    /// How many of `conditions` belong to the guard predicate.
                    pub guard_fields: u8,
                    /// The operands that name code addresses.
                    pub addresses: &'static [backend::AddressInfo],
                    /// The address operand the flow goes to (index into `addresses`).
                    pub target: Option<u8>,
                    /// For an indirect flow that adds registers to an address operand:
                    /// `(field, code)` pairs naming, for each such register field, a
                    /// register that reads 0, and the address operand (index into
                    /// `addresses`). An instance whose every such field holds one is a
                    /// direct branch or call to that operand's address
                    /// (`CALL.REL RZ, 0x100`; see `Instruction::flow`).
                    pub direct: Option<(&'static [(u8, u128)], u8)>,
                    /// The register operands: `Order` first, then registers the In/Out lists
                    /// name outside it.
                    pub regs: &'static [backend::RegOperandInfo],
                }
            }
        });
        quote! { #core #metadata }
    }
}
