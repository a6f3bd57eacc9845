// Hand-written support for the generated assembler, emitted verbatim into the
// generated code after `asm_runtime.rs` (see `codegen::asm_parse`), and compiled into
// isa-gen with it: the error a line of assembly gets, and its message. Both tiers say
// the same words (`isa-gen/src/asm/` renders its own errors; `tests/asm.rs` compares
// them). `no_std`, no allocation: errors hold byte spans, numbers and static strings.

/// Why a line of assembly was rejected, and where (`start..end`, bytes of the line).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AsmError {
    /// First byte of the offending text in the line.
    pub start: usize,
    /// One past its last byte (equal to `start` at the end of the line).
    pub end: usize,
    /// What is wrong.
    pub kind: AsmErrorKind,
}

/// What is wrong with a line of assembly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AsmErrorKind {
    /// Malformed text: what was expected (the message adds what was found).
    Syntax(&'static str),
    /// Malformed text: a complete message; `{}` stands for the offending text.
    Msg(&'static str),
    /// A line with no instruction (empty, only a comment, or only `;`).
    Empty,
    /// The mnemonic names no instruction; the nearest valid ones.
    UnknownMnemonic([&'static str; 3]),
    /// A modifier the instruction does not have: the mnemonic, the nearest valid ones.
    UnknownModifier(&'static str, [&'static str; 3]),
    /// A modifier given twice (the field's spec name).
    DuplicateModifier(&'static str),
    /// A required modifier left out: its field and its values.
    MissingModifier(&'static str, &'static str),
    /// A guard predicate on an instruction that has none.
    NoGuard,
    /// A guard from the wrong register file: the expected file.
    Guard(&'static str),
    /// `@!` on a guard that cannot be negated.
    GuardNotNegatable,
    /// An operand of the wrong kind, or missing.
    Expect(Expect),
    /// An operand of the right kind with a bad value.
    Invalid {
        /// 1-based index among the operands.
        index: u8,
        /// The spec's name for it.
        label: &'static str,
        /// What is wrong.
        problem: Problem,
    },
    /// More operands than the instruction takes (at most this many).
    TooMany(u8),
    /// The spec's `__Exception` condition holds: its kind and message.
    Exception(&'static str, &'static str),
}

/// "`MNEMONIC` operand 4 (its label): expected a KIND or a KIND, found TEXT", or "… is
/// missing".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Expect {
    /// 1-based operand numbers (a second one when an optional operand was left out).
    pub index: [u8; 2],
    /// The spec's names for the operand (several when candidate opcodes differ).
    pub labels: [&'static str; 3],
    /// What would have been accepted.
    pub kinds: [&'static str; 4],
    /// The operand is missing (rather than of the wrong kind).
    pub missing: bool,
}

/// What is wrong with an operand of the right kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Problem {
    /// An immediate outside `min..=max` of the named type.
    Range(&'static str, i128, i128),
    /// A branch target not a multiple of `align` bytes from the next instruction.
    Misaligned(i128, u64),
    /// A branch target too far away.
    TargetRange(i128),
    /// An absolute address (true) or a scaled immediate (false) that is not a multiple
    /// of its scale.
    NotMultiple(bool, i128, u64),
    /// An absolute address (true) or a scaled immediate (false) outside `min..=max`.
    ScaledRange(bool, i128, i128, i128),
    /// A label never defined.
    UndefinedLabel,
    /// A label where only a number is allowed.
    LabelNotAllowed,
    /// A `!`, `-` or `~` the operand does not take.
    Prefix(char),
    /// `-` where the `.X` form wants `~` (true), or `~` where `-` is right (false).
    NegForm(bool),
    /// A `.SUFFIX` the operand does not take.
    Suffix,
    /// A register range of the wrong size: bits written, bits expected.
    RangeWidth(u32, u32),
    /// A single register where a range is needed: the bits expected.
    NeedsRange(u32),
    /// A register that does not exist.
    NoSuchRegister,
    /// A constant-memory bank that does not fit: the bank, its width in bits.
    Bank(u64, u8),
    /// A constant-memory offset outside `min..=max`: the offset, min, max.
    Offset(i128, i128, i128),
    /// An index register of the wrong file.
    Index,
    /// An index offset outside `min..=max`: the offset, min, max.
    IndexOffset(i128, i128, i128),
}

impl AsmError {
    const fn new(start: usize, end: usize, kind: AsmErrorKind) -> AsmError {
        AsmError { start, end, kind }
    }

    /// The message, quoting the offending text from `line`.
    pub fn display<'a>(&'a self, line: &'a str) -> AsmErrorDisplay<'a> {
        AsmErrorDisplay { err: self, line }
    }

    /// 1-based column (in characters) of the error in `line`.
    pub fn column(&self, line: &str) -> usize {
        line.get(..self.start).map_or(1, |s| s.chars().count() + 1)
    }
}

/// An [`AsmError`] with its line, for printing.
#[derive(Clone, Copy, Debug)]
pub struct AsmErrorDisplay<'a> {
    err: &'a AsmError,
    line: &'a str,
}

fn write_list(f: &mut core::fmt::Formatter<'_>, items: &[&str], quote: bool) -> core::fmt::Result {
    let items: &[&str] = {
        let n = items.iter().take_while(|s| !s.is_empty()).count();
        &items[..n]
    };
    for (i, s) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(if i + 1 == items.len() { " or " } else { ", " })?;
        }
        if quote {
            write!(f, "`{s}`")?;
        } else {
            f.write_str(s)?;
        }
    }
    Ok(())
}

impl core::fmt::Display for AsmErrorDisplay<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let e = self.err;
        let found = self.line.get(e.start..e.end).unwrap_or("");
        let mnemonic = mnemonic_text(self.line);
        match e.kind {
            AsmErrorKind::Syntax(what) => {
                write!(f, "expected {what}, found {}", Found(self.line, e))
            }
            AsmErrorKind::Msg(template) => match template.split_once("{}") {
                Some((a, b)) => write!(f, "{a}{found}{b}"),
                None => f.write_str(template),
            },
            AsmErrorKind::Empty => {
                let t = self.line.trim();
                f.write_str(if t.is_empty() {
                    "expected an instruction, found an empty line"
                } else if t.starts_with("//") {
                    "expected an instruction, found only a comment"
                } else {
                    "expected an instruction, found an empty statement"
                })
            }
            AsmErrorKind::UnknownMnemonic(near) => {
                write!(f, "unknown mnemonic `{found}`")?;
                if !near[0].is_empty() {
                    f.write_str(" (did you mean ")?;
                    write_list(f, &near, true)?;
                    f.write_str("?)")?;
                }
                Ok(())
            }
            AsmErrorKind::UnknownModifier(name, near) => {
                write!(f, "unknown modifier `{found}` for `{name}`")?;
                if !near[0].is_empty() {
                    f.write_str(" (did you mean ")?;
                    write_list(f, &near, true)?;
                    f.write_str("?)")?;
                }
                Ok(())
            }
            AsmErrorKind::DuplicateModifier(field) => {
                write!(
                    f,
                    "`{found}` sets the `.{field}` modifier of `{mnemonic}` a second time"
                )
            }
            AsmErrorKind::MissingModifier(field, values) => {
                write!(
                    f,
                    "`{mnemonic}` needs its `.{field}` modifier: one of {values}"
                )
            }
            AsmErrorKind::NoGuard => write!(f, "`{mnemonic}` takes no guard predicate"),
            AsmErrorKind::Guard(file) => {
                write!(
                    f,
                    "guard of `{mnemonic}`: expected a {file}, found `{}`",
                    found.trim_start_matches(['@', '!'])
                )
            }
            AsmErrorKind::GuardNotNegatable => {
                write!(f, "the guard of `{mnemonic}` cannot be negated")
            }
            AsmErrorKind::Expect(x) => {
                write!(f, "`{mnemonic}` operand {}", x.index[0])?;
                if x.index[1] != 0 {
                    write!(f, " or {}", x.index[1])?;
                }
                f.write_str(" (")?;
                for (i, l) in x.labels.iter().filter(|l| !l.is_empty()).enumerate() {
                    if i > 0 {
                        f.write_str(" or ")?;
                    }
                    f.write_str(l)?;
                }
                f.write_str(if x.missing {
                    ") is missing: expected "
                } else {
                    "): expected "
                })?;
                write_list(f, &x.kinds, false)?;
                if x.missing {
                    Ok(())
                } else {
                    write!(f, ", found {found}")
                }
            }
            AsmErrorKind::Invalid {
                index,
                label,
                problem,
            } => {
                write!(f, "`{mnemonic}` operand {index} ({label}): ")?;
                match problem {
                    Problem::Range(ty, min, max) => {
                        f.write_str("immediate ")?;
                        f.write_str(found)?;
                        write!(f, " does not fit {ty} (")?;
                        write_hex(f, min)?;
                        f.write_str("..=")?;
                        write_hex(f, max)?;
                        f.write_str(")")
                    }
                    Problem::Misaligned(target, align) => {
                        f.write_str("branch target ")?;
                        write_hex(f, target)?;
                        write!(
                            f,
                            " is not a multiple of {align:#x} bytes from the next instruction"
                        )
                    }
                    Problem::TargetRange(target) => {
                        f.write_str("branch target ")?;
                        write_hex(f, target)?;
                        f.write_str(" is out of range")
                    }
                    Problem::NotMultiple(abs, v, align) => {
                        f.write_str(if abs { "address " } else { "immediate " })?;
                        write_hex(f, v)?;
                        write!(f, " is not a multiple of {align:#x}")
                    }
                    Problem::ScaledRange(abs, v, min, max) => {
                        f.write_str(if abs { "address " } else { "immediate " })?;
                        write_hex(f, v)?;
                        f.write_str(" is out of range (")?;
                        write_hex(f, min)?;
                        f.write_str("..=")?;
                        write_hex(f, max)?;
                        f.write_str(")")
                    }
                    Problem::UndefinedLabel => {
                        // `found` is the reference as written: `` `(.L_name) ``.
                        let name = found
                            .strip_prefix("`(")
                            .and_then(|s| s.strip_suffix(')'))
                            .unwrap_or(found);
                        write!(f, "undefined label `{name}`")
                    }
                    Problem::LabelNotAllowed => {
                        f.write_str("a label is only allowed as a branch target")
                    }
                    Problem::Prefix(c) => write!(f, "this operand does not take a `{c}` prefix"),
                    Problem::NegForm(true) => {
                        f.write_str("`-` is not allowed here (with `.X`, write `~` instead of `-`)")
                    }
                    Problem::NegForm(false) => f.write_str(
                        "`~` is not allowed here (without `.X`, write `-` instead of `~`)",
                    ),
                    Problem::Suffix => write!(f, "`{found}` takes no such suffix"),
                    Problem::RangeWidth(bits, want) => {
                        write!(
                            f,
                            "{found} is {bits} bits but the operand is {want} bits here"
                        )
                    }
                    Problem::NeedsRange(bits) => {
                        // The range the written register starts: `V4` → `V[4:5]`.
                        let digits = found.len()
                            - found.trim_end_matches(|c: char| c.is_ascii_digit()).len();
                        let (prefix, n) = found.split_at(found.len() - digits);
                        let count = u64::from(bits).div_ceil(32);
                        match n.parse::<u64>() {
                            Ok(n) if !prefix.is_empty() => write!(
                                f,
                                "a {bits}-bit operand: write the register range {prefix}[{n}:{}]",
                                n + count - 1
                            ),
                            _ => write!(
                                f,
                                "a {bits}-bit operand: write a register range (`PREFIX[first:last]`, {count} registers)"
                            ),
                        }
                    }
                    Problem::NoSuchRegister => write!(f, "{found} does not exist"),
                    Problem::Bank(bank, bits) => {
                        write!(f, "bank {bank:#x} does not fit in {bits} bits")
                    }
                    Problem::Offset(off, min, max) => {
                        f.write_str("offset ")?;
                        write_hex(f, off)?;
                        f.write_str(" is outside ")?;
                        write_hex(f, min)?;
                        f.write_str("..=")?;
                        write_hex(f, max)
                    }
                    Problem::Index => write!(f, "{found}: bad index register"),
                    Problem::IndexOffset(off, min, max) => {
                        f.write_str("index offset ")?;
                        write_hex(f, off)?;
                        f.write_str(" does not fit (")?;
                        write_hex(f, min)?;
                        f.write_str("..=")?;
                        write_hex(f, max)?;
                        f.write_str(")")
                    }
                }
            }
            AsmErrorKind::TooMany(max) => {
                write!(f, "too many operands: `{mnemonic}` takes at most {max}")
            }
            AsmErrorKind::Exception(kind, message) => {
                write!(f, "`{mnemonic}`: {message} (the spec's {kind} exception)")
            }
        }
    }
}

/// What an error's span holds, for "found …": quoted text, a space, or end of line.
struct Found<'a>(&'a str, &'a AsmError);

impl core::fmt::Display for Found<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let text = self.0.get(self.1.start..self.1.end).unwrap_or("");
        match text {
            "" => f.write_str("end of line"),
            " " => f.write_str("a space"),
            "\t" => f.write_str("a tab"),
            t => write!(f, "`{t}`"),
        }
    }
}

/// The mnemonic with its modifiers as written, for messages.
fn mnemonic_text(line: &str) -> &str {
    let t = line.trim_start();
    let t = match t.strip_prefix('@') {
        Some(r) => r
            .trim_start_matches('!')
            .trim_start_matches(|c: char| c.is_ascii_alphanumeric() || c == '_')
            .trim_start(),
        None => t,
    };
    let end = t
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
        .unwrap_or(t.len());
    &t[..end]
}
