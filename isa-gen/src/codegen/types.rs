//! Generated items for the spec's types: an enum per bit-field type, and newtypes
//! that cannot hold an out-of-range value for register files, immediates and
//! constant-memory references.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, ToTokens};

use super::names;
use super::{doc_attrs, lit, lit_hex, sint_ty, uint_ty};
use crate::model::{EnumValue, Model, RegFile, Type, TypeKind};
use crate::source::SourceMap;

/// Register files up to this many bits get a table of register names.
pub const NAME_TABLE_MAX_BITS: u32 = 10;

pub fn type_item(model: &Model, sources: &SourceMap, t: &Type) -> TokenStream {
    let loc = sources.location(t.span).to_string();
    match &t.kind {
        TypeKind::Enum(values) => enum_item(model, t, values, &loc),
        TypeKind::RegFile(rf) => regfile_item(t, rf, &loc),
        TypeKind::Immediate { signed } => immediate_item(t, *signed, &loc),
        TypeKind::ConstMem { .. } => cmem_item(t, &loc),
    }
}

fn enum_item(model: &Model, t: &Type, values: &[EnumValue], loc: &str) -> TokenStream {
    let name = format_ident!("{}", names::type_name(&t.name));
    let bits = uint_ty(t.width);
    let spec_name = &t.name;
    let width = lit(t.width as u128, "u32");
    let mut doc = vec![format!(
        "Bit-field type `{}` ({} bits), defined at `{loc}`.",
        t.name, t.width
    )];
    doc.push(String::new());
    doc.push("Codes not listed here are undefined: decoding rejects them.".into());
    let _ = model;
    let doc = doc_attrs(&doc);
    let variants: Vec<_> = values
        .iter()
        .map(|v| format_ident!("{}", names::variant_name(&v.name)))
        .collect();
    let codes: Vec<_> = values
        .iter()
        .map(|v| lit(v.code, &bits.to_string()))
        .collect();
    let vdocs: Vec<_> = values
        .iter()
        .map(|v| format!(" `{}` (code {:#x}).", v.name, v.code))
        .collect();
    let vnames: Vec<_> = values.iter().map(|v| v.name.as_str()).collect();
    // How its names read (`FromStr`, and the assembler's matcher through `Named`).
    let table = super::name_table(
        values
            .iter()
            .map(|v| (v.name.clone(), lit(v.code, "u64").into_token_stream())),
    );
    // (A closure that only passes its `u64` on is clippy's `redundant_closure`.)
    let from_code = if bits == "u64" {
        quote! { #name::from_bits }
    } else {
        quote! { |c| #name::from_bits(c as #bits) }
    };
    let from_str = quote! {
        match <#name as ::isa_rt::table::Named>::NAMES.code(s).and_then(#from_code) {
            Some(v) => Ok(v),
            None => Err(ParseError { type_name: #spec_name }),
        }
    };
    quote! {
        #doc
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(#bits)]
        pub enum #name {
            #( #[doc = #vdocs] #variants = #codes, )*
        }

        impl #name {
            /// Width of the type in bits.
            pub const BITS: u32 = #width;
            /// Every defined value, in spec order.
            pub const ALL: &'static [#name] = &[ #( #name::#variants ),* ];

            /// The value with this code, or `None` for an undefined code.
            pub const fn from_bits(bits: #bits) -> Option<#name> {
                match bits {
                    #( #codes => Some(#name::#variants), )*
                    _ => None,
                }
            }

            /// The code of this value.
            pub const fn bits(self) -> #bits {
                self as #bits
            }

            /// The spec's spelling of this value.
            pub const fn name(self) -> &'static str {
                match self {
                    #( #name::#variants => #vnames, )*
                }
            }
        }

        impl core::fmt::Display for #name {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl ::isa_rt::table::Named for #name {
            const NAMES: ::isa_rt::table::Names<'static> = ::isa_rt::table::Names {
                named: #table,
                numbered: None,
            };
        }

        impl core::str::FromStr for #name {
            type Err = ParseError;
            fn from_str(s: &str) -> Result<#name, ParseError> {
                #from_str
            }
        }
    }
}

fn regfile_item(t: &Type, rf: &RegFile, loc: &str) -> TokenStream {
    let name = format_ident!("{}", names::type_name(&t.name));
    let bits = uint_ty(t.width);
    let bits_s = bits.to_string();
    let width = lit(t.width as u128, "u32");
    let prefix = &rf.prefix;
    let spec_name = &t.name;
    let lo = lit(rf.lo, &bits_s);
    let hi = lit(rf.hi, &bits_s);
    let named_list: String = rf
        .named
        .iter()
        .map(|(n, c)| format!(", `{n}` (code {c})"))
        .collect();
    let doc = doc_attrs(&[
        format!(
            "Register file `{}` ({} bits): `{p}{}`..`{p}{}`{named_list}. Defined at `{loc}`.",
            t.name,
            t.width,
            rf.lo,
            rf.hi,
            p = rf.prefix
        ),
        String::new(),
        "Holds only defined codes. Named registers are constants: reads give a fixed \
         value and writes are dropped."
            .into(),
    ]);
    let consts: Vec<_> = rf
        .named
        .iter()
        .map(|(n, c)| {
            let id = format_ident!("{}", n.to_uppercase());
            let c = lit(*c, &bits_s);
            let d = format!(" `{n}`: a constant register.");
            quote! { #[doc = #d] pub const #id: #name = #name(#c); }
        })
        .collect();
    let named_codes: Vec<_> = rf.named.iter().map(|(_, c)| lit(*c, &bits_s)).collect();
    let named_names: Vec<_> = rf.named.iter().map(|(n, _)| n.as_str()).collect();
    // How its names read (`FromStr`, and the assembler's matcher through `NAMES`).
    let names_const = {
        let table = super::name_table(
            rf.named
                .iter()
                .map(|(n, c)| (n.to_string(), lit(*c, "u64").into_token_stream())),
        );
        let (lo64, hi64) = (lit(rf.lo, "u64"), lit(rf.hi, "u64"));
        quote! {
            impl ::isa_rt::table::Named for #name {
                const NAMES: ::isa_rt::table::Names<'static> = ::isa_rt::table::Names {
                    named: #table,
                    numbered: Some((#prefix, #lo64, #hi64)),
                };
            }
        }
    };
    let from_code = if bits_s == "u64" {
        quote! { #name(c) }
    } else {
        quote! { #name(c as #bits) }
    };
    let numbered_fmt = format!("{}{{}}", rf.prefix);
    // Small register files get a name table, so printing is one string write.
    let (names_table, display_body) = if t.width <= NAME_TABLE_MAX_BITS {
        let names: Vec<String> = (0..1u128 << t.width)
            .map(|c| rf.name_of(c).unwrap_or_else(|| "?".to_string()))
            .collect();
        let n = lit(names.len() as u128, "usize");
        let name_doc = format!(
            " The register's name (`{}{}`{}).",
            rf.prefix,
            rf.lo,
            rf.named
                .first()
                .map(|(n, _)| format!(", `{n}`"))
                .unwrap_or_default()
        );
        (
            quote! {
                impl #name {
                    #[doc = #name_doc]
                    pub const fn name(self) -> &'static str {
                        const NAMES: [&str; #n] = [ #( #names ),* ];
                        NAMES[self.0 as usize]
                    }
                }
            },
            quote! { f.write_str(self.name()) },
        )
    } else if named_codes.is_empty() {
        // (A `match` with the one arm `n => …` is clippy's `match_single_binding`.)
        (quote! {}, quote! { write!(f, #numbered_fmt, self.0) })
    } else {
        (
            quote! {},
            quote! {
                match self.0 {
                    #( #named_codes => f.write_str(#named_names), )*
                    n => write!(f, #numbered_fmt, n),
                }
            },
        )
    };
    // Comparisons that cannot fail are left out (clippy denies `x <= u8::MAX` and
    // `… || false` in generated code as anywhere else).
    let storage_max: u128 = match bits_s.as_str() {
        "u8" => u8::MAX.into(),
        "u16" => u16::MAX.into(),
        "u32" => u32::MAX.into(),
        _ => u64::MAX.into(),
    };
    let at_top = rf.hi >= storage_max;
    let in_range = match (rf.lo == 0, at_top) {
        (true, true) => None,
        (true, false) => Some(quote! { bits <= #hi }),
        (false, true) => Some(quote! { bits >= #lo }),
        (false, false) => Some(quote! { bits >= #lo && bits <= #hi }),
    };
    let from_bits_body = match (&in_range, named_codes.is_empty()) {
        (None, _) => quote! { Some(#name(bits)) },
        (Some(r), true) => quote! { if #r { Some(#name(bits)) } else { None } },
        (Some(r), false) => quote! {
            if (#r) || matches!(bits, #( #named_codes )|*) { Some(#name(bits)) } else { None }
        },
    };
    let new_body = match &in_range {
        None => quote! { Some(#name(n)) },
        Some(r) => quote! {
            let bits = n;
            if #r { Some(#name(bits)) } else { None }
        },
    };
    let outside = match (rf.lo == 0, at_top) {
        (true, true) => quote! { false },
        (true, false) => quote! { self.0 > #hi },
        (false, true) => quote! { self.0 < #lo },
        (false, false) => quote! { self.0 < #lo || self.0 > #hi },
    };
    let offset_ok = if at_top {
        quote! { Some(bits) => Some(#name(bits)), }
    } else {
        quote! { Some(bits) if bits <= #hi => Some(#name(bits)), }
    };
    quote! {
        #doc
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct #name(#bits);

        impl #name {
            /// Width of the register number in bits.
            pub const BITS: u32 = #width;
            #( #consts )*

            /// The register with this code, or `None` for an undefined code.
            pub const fn from_bits(bits: #bits) -> Option<#name> {
                #from_bits_body
            }

            /// The numbered register `n`, or `None` outside the numbered range.
            pub const fn new(n: #bits) -> Option<#name> {
                #new_body
            }

            /// The register's code.
            pub const fn bits(self) -> #bits {
                self.0
            }

            /// Whether this is a named constant register (reads a constant, writes dropped).
            pub const fn is_constant(self) -> bool {
                #outside
            }

            /// The numbered register `n` places after this one (for multi-register
            /// operands), or `None` past the numbered range or for a constant register.
            pub const fn offset(self, n: #bits) -> Option<#name> {
                if self.is_constant() {
                    return None;
                }
                match self.0.checked_add(n) {
                    #offset_ok
                    _ => None,
                }
            }
        }

        #names_table
        #names_const

        impl core::fmt::Display for #name {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                #display_body
            }
        }

        impl core::fmt::Debug for #name {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                core::fmt::Display::fmt(self, f)
            }
        }

        impl core::str::FromStr for #name {
            type Err = ParseError;
            fn from_str(s: &str) -> Result<#name, ParseError> {
                // A code of `NAMES` is one of this file's: it fits.
                match <#name as ::isa_rt::table::Named>::NAMES.code(s) {
                    Some(c) => Ok(#from_code),
                    None => Err(ParseError { type_name: #spec_name }),
                }
            }
        }
    }
}

fn immediate_item(t: &Type, signed: bool, loc: &str) -> TokenStream {
    let name = format_ident!("{}", names::type_name(&t.name));
    let bits = uint_ty(t.width);
    let width = lit(t.width as u128, "u32");
    let mask = lit_hex(crate::model::mask(0, t.width), &bits.to_string());
    if signed {
        let val = sint_ty(t.width);
        let storage_bits = match val.to_string().as_str() {
            "i8" => 8u32,
            "i16" => 16,
            "i32" => 32,
            _ => 64,
        };
        let (min, max) = (-(1i128 << (t.width - 1)), (1i128 << (t.width - 1)) - 1);
        let min_l = super::lit_text(&format!("{min}{val}"));
        let max_l = super::lit_text(&format!("{max}{val}"));
        let shift = lit((storage_bits - t.width) as u128, "u32");
        let doc = doc_attrs(&[
            format!(
                "Signed immediate `{}` ({} bits, two's complement): {min}..={max}. Defined at `{loc}`.",
                t.name, t.width
            ),
            String::new(),
            "Cannot hold a value outside that range.".into(),
        ]);
        let full = storage_bits == t.width;
        let sign_extend = if full {
            quote! { #name(bits as #val) }
        } else {
            quote! { #name(((bits & #mask) as #val) << #shift >> #shift) }
        };
        let new_body = if full {
            quote! { Some(#name(value)) }
        } else {
            quote! { if value >= Self::MIN && value <= Self::MAX { Some(#name(value)) } else { None } }
        };
        let from_bits_body = if full {
            quote! { Some(Self::from_bits_masked(bits)) }
        } else {
            quote! { if bits & !#mask != 0 { None } else { Some(Self::from_bits_masked(bits)) } }
        };
        let bits_body = if full {
            quote! { self.0 as #bits }
        } else {
            quote! { (self.0 as #bits) & #mask }
        };
        quote! {
            #doc
            #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
            pub struct #name(#val);

            impl #name {
                /// Width in bits.
                pub const BITS: u32 = #width;
                /// Smallest value.
                pub const MIN: #val = #min_l;
                /// Largest value.
                pub const MAX: #val = #max_l;

                /// The immediate `value`, or `None` if it does not fit.
                pub const fn new(value: #val) -> Option<#name> {
                    #new_body
                }

                /// The immediate encoded as `bits`, or `None` if bits above the width are set.
                pub const fn from_bits(bits: #bits) -> Option<#name> {
                    #from_bits_body
                }

                /// The immediate encoded in the low bits of `bits` (higher bits ignored).
                pub const fn from_bits_masked(bits: #bits) -> #name {
                    #sign_extend
                }

                /// The value.
                pub const fn get(self) -> #val {
                    self.0
                }

                /// The two's-complement encoding.
                pub const fn bits(self) -> #bits {
                    #bits_body
                }
            }

            impl core::fmt::Display for #name {
                fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                    if self.0 < 0 {
                        write!(f, "-{:#x}", self.0.unsigned_abs())
                    } else {
                        write!(f, "{:#x}", self.0)
                    }
                }
            }
        }
    } else {
        let max = lit(crate::model::mask(0, t.width), &bits.to_string());
        let doc = doc_attrs(&[
            format!(
                "Unsigned immediate `{}` ({} bits): 0..={:#x}. Defined at `{loc}`.",
                t.name,
                t.width,
                crate::model::mask(0, t.width)
            ),
            String::new(),
            "Cannot hold a value outside that range.".into(),
        ]);
        let masked = if t.width == bits_width(&bits.to_string()) {
            quote! { #name(bits) }
        } else {
            quote! { #name(bits & #mask) }
        };
        let check = if t.width == bits_width(&bits.to_string()) {
            quote! { Some(#name(value)) }
        } else {
            quote! { if value <= #max { Some(#name(value)) } else { None } }
        };
        quote! {
            #doc
            #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
            pub struct #name(#bits);

            impl #name {
                /// Width in bits.
                pub const BITS: u32 = #width;
                /// Largest value.
                pub const MAX: #bits = #max;

                /// The immediate `value`, or `None` if it does not fit.
                pub const fn new(value: #bits) -> Option<#name> {
                    #check
                }

                /// Same as [`Self::new`]: an unsigned immediate is its own encoding.
                pub const fn from_bits(bits: #bits) -> Option<#name> {
                    Self::new(bits)
                }

                /// The immediate in the low bits of `bits` (higher bits ignored).
                pub const fn from_bits_masked(bits: #bits) -> #name {
                    #masked
                }

                /// The value.
                pub const fn get(self) -> #bits {
                    self.0
                }

                /// The encoding (the value itself).
                pub const fn bits(self) -> #bits {
                    self.0
                }
            }

            impl core::fmt::Display for #name {
                fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                    write!(f, "{:#x}", self.0)
                }
            }
        }
    }
}

fn bits_width(ty: &str) -> u32 {
    match ty {
        "u8" => 8,
        "u16" => 16,
        "u32" => 32,
        _ => 64,
    }
}

fn cmem_item(t: &Type, loc: &str) -> TokenStream {
    let TypeKind::ConstMem {
        bank_bits,
        offset_bits,
        offset_signed,
    } = t.kind
    else {
        return TokenStream::new();
    };
    let Some((off_min, off_max)) = t.cmem_offset_range() else {
        return TokenStream::new();
    };
    let name = format_ident!("{}", names::type_name(&t.name));
    let bits = uint_ty(t.width);
    let bits_s = bits.to_string();
    let bank_ty = uint_ty(bank_bits);
    // A signed offset is stored one bit wider, so its bounds are never the type's own
    // (a comparison with a type's extreme is a clippy error).
    let off_ty = if offset_signed {
        sint_ty(offset_bits + 1)
    } else {
        uint_ty(offset_bits)
    };
    let width = lit(t.width as u128, "u32");
    let bank_w = lit(bank_bits as u128, "u32");
    let off_w = lit(offset_bits as u128, "u32");
    let mask = lit_hex(crate::model::mask(0, t.width), &bits_s);
    let off_mask = lit_hex(crate::model::mask(0, offset_bits), &bits_s);
    let bank_max = lit(crate::model::mask(0, bank_bits), &bank_ty.to_string());
    let off_min_l = super::lit_text(&format!("{off_min}{off_ty}"));
    let off_max_l = super::lit_text(&format!("{off_max}{off_ty}"));
    let storage = bits_width(&off_ty.to_string().replace('i', "u"));
    // What `new` must check: only bounds inside the parameter types.
    let mut checks = Vec::new();
    if bank_bits < bits_width(&bank_ty.to_string()) {
        checks.push(quote! { bank > #bank_max });
    }
    if offset_signed {
        checks.push(quote! { offset < Self::OFFSET_MIN || offset > Self::OFFSET_MAX });
    } else if offset_bits < storage {
        checks.push(quote! { offset > Self::OFFSET_MAX });
    }
    let check = if checks.is_empty() {
        quote! {}
    } else {
        quote! {
            if #(#checks)||* {
                return None;
            }
        }
    };
    // Casts only between different types (clippy denies a cast to the same type), and
    // parentheses only where needed (`unused_parens`).
    let cast = |e: TokenStream, from: &proc_macro2::Ident, to: &proc_macro2::Ident| {
        if from == to {
            e
        } else {
            let e = super::paren(e);
            quote! { #e as #to }
        }
    };
    let operand = |e: TokenStream, from: &proc_macro2::Ident, to: &proc_macro2::Ident| {
        if from == to {
            e
        } else {
            let e = cast(e, from, to);
            quote! { (#e) }
        }
    };
    let full = t.width == bits_width(&bits_s);
    let (from_bits_body, masked_body) = if full {
        (quote! { Some(#name(bits)) }, quote! { #name(bits) })
    } else {
        (
            quote! { if bits & !#mask != 0 { None } else { Some(#name(bits)) } },
            quote! { #name(bits & #mask) },
        )
    };
    let bank_in = operand(quote! { bank }, &bank_ty, &bits);
    let offset_in = operand(quote! { offset }, &off_ty, &bits);
    let bank_out = cast(quote! { self.0 >> #off_w }, &bits, &bank_ty);
    let offset_fn = if offset_signed {
        let shift = lit((storage - offset_bits) as u128, "u32");
        quote! {
            /// The signed byte offset.
            pub const fn offset(self) -> #off_ty {
                (((self.0 & #off_mask) as #off_ty) << #shift) >> #shift
            }
        }
    } else {
        let offset_out = cast(quote! { self.0 & #off_mask }, &bits, &off_ty);
        quote! {
            /// The unsigned byte offset.
            pub const fn offset(self) -> #off_ty {
                #offset_out
            }
        }
    };
    let display = if offset_signed {
        quote! {
            let o = self.offset();
            if o < 0 {
                write!(f, "c[{:#x}][-{:#x}]", self.bank(), o.unsigned_abs())
            } else {
                write!(f, "c[{:#x}][{:#x}]", self.bank(), o)
            }
        }
    } else {
        quote! { write!(f, "c[{:#x}][{:#x}]", self.bank(), self.offset()) }
    };
    let sign = if offset_signed { "signed" } else { "unsigned" };
    let doc = doc_attrs(&[
        format!(
            "Constant-memory reference `{}` ({} bits): `c[bank][offset]` with a {bank_bits}-bit \
             bank and a {offset_bits}-bit {sign} byte offset ({off_min}..={off_max}). Defined at `{loc}`.",
            t.name, t.width
        ),
        String::new(),
        if offset_signed {
            "Encoded as `bank << OFFSET_BITS | offset` (two's complement offset).".into()
        } else {
            "Encoded as `bank << OFFSET_BITS | offset`.".into()
        },
    ]);
    quote! {
        #doc
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct #name(#bits);

        impl #name {
            /// Width in bits.
            pub const BITS: u32 = #width;
            /// Width of the bank number.
            pub const BANK_BITS: u32 = #bank_w;
            /// Width of the byte offset.
            pub const OFFSET_BITS: u32 = #off_w;
            /// Smallest offset.
            pub const OFFSET_MIN: #off_ty = #off_min_l;
            /// Largest offset.
            pub const OFFSET_MAX: #off_ty = #off_max_l;

            /// `c[bank][offset]`, or `None` if either does not fit.
            pub const fn new(bank: #bank_ty, offset: #off_ty) -> Option<#name> {
                #check
                Some(#name((#bank_in << #off_w) | (#offset_in & #off_mask)))
            }

            /// The reference encoded as `bits`, or `None` if bits above the width are set.
            pub const fn from_bits(bits: #bits) -> Option<#name> {
                #from_bits_body
            }

            /// The reference in the low bits of `bits` (higher bits ignored).
            pub const fn from_bits_masked(bits: #bits) -> #name {
                #masked_body
            }

            /// The encoding.
            pub const fn bits(self) -> #bits {
                self.0
            }

            /// The bank number.
            pub const fn bank(self) -> #bank_ty {
                #bank_out
            }

            #offset_fn
        }

        impl core::fmt::Display for #name {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                #display
            }
        }

        impl core::fmt::Debug for #name {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                core::fmt::Display::fmt(self, f)
            }
        }
    }
}
