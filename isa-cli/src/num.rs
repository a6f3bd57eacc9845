//! Numbers users type: command-line arguments, `.word` in programs, state files. All
//! go through isa-gen's one strict digit reader (`_` separators; no sign, no doubled
//! `0x`, nothing `from_str_radix` would let through), then must fit the target type.

use isa_gen::syntax::lexer::{parse_digits, parse_int};

/// `0x…` hexadecimal or decimal.
pub fn int<T: TryFrom<u128>>(s: &str) -> Option<T> {
    parse_int(s).and_then(|v| T::try_from(v).ok())
}

/// Hexadecimal with the `0x` prefix required.
pub fn hex<T: TryFrom<u128>>(s: &str) -> Option<T> {
    s.strip_prefix("0x")
        .or_else(|| s.strip_prefix("0X"))
        .and_then(|h| parse_digits(h, 16))
        .and_then(|v| T::try_from(v).ok())
}

/// Hexadecimal, the `0x` prefix optional (a word given to `isa disasm --hex`).
pub fn hex_digits<T: TryFrom<u128>>(s: &str) -> Option<T> {
    let h = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X"));
    parse_digits(h.unwrap_or(s), 16).and_then(|v| T::try_from(v).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_reader_takes_its_forms_and_range() {
        assert_eq!(int::<u64>("0x10"), Some(16));
        assert_eq!(int::<u64>("1_024"), Some(1024));
        assert_eq!(int::<u64>("+16"), None);
        assert_eq!(int::<u32>("0x1_0000_0000"), None);
        assert_eq!(hex::<u64>("0x1f"), Some(0x1f));
        assert_eq!(hex::<u64>("1f"), None);
        assert_eq!(hex::<u64>("0x+1f"), None);
        assert_eq!(hex_digits::<u128>("1f"), Some(0x1f));
        assert_eq!(hex_digits::<u128>("0x1f"), Some(0x1f));
        assert_eq!(hex_digits::<u128>("0x0x1f"), None);
        assert_eq!(hex_digits::<u128>("0x"), None);
    }
}
