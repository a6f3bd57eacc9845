//! The printer over hand-built tables: every rule, and tables that are wrong.

extern crate alloc;
extern crate std;
use alloc::string::String;
use alloc::vec::Vec;

use super::*;
use crate::expr::{BinOp, Op};
use crate::table::*;

/// A two-opcode spec, its tables built by hand.
struct Spec {
    text: String,
    names: Vec<Name>,
}

impl Spec {
    fn s(&mut self, t: &str) -> Str {
        let at = self.text.len() as u32;
        self.text.push_str(t);
        Str {
            at,
            len: t.len() as u32,
        }
    }
    /// A dense name list: `names[code]`.
    fn list(&mut self, names: &[&str]) -> Run {
        let at = self.names.len() as u32;
        for n in names {
            let s = self.s(n);
            self.names.push(Name::of(&self.text, s));
        }
        Run {
            at,
            len: names.len() as u32,
        }
    }
}

fn at(start: u8, width: u8) -> At {
    At::new(start, width)
}

fn field(start: u8, width: u8, ty: u32, default: Option<u128>) -> FieldRow {
    FieldRow {
        at: at(start, width),
        ty,
        default,
        names: Run::default(),
    }
}

fn print(word: u128, opcode: usize, addr: u64, o: &FormatOptions) -> String {
    let mut sp = Spec {
        text: String::new(),
        names: Vec::new(),
    };
    let iadd = sp.s("IADD");
    let sel = sp.s("SEL");
    let jmp = sp.s("JMP");
    let selx = sp.s("SELX");
    let ldc = sp.s("LDC");
    let r = sp.s("R");
    let ur = sp.s("UR");
    let upr = sp.s("UPR");
    let mut regs: Vec<String> = (0..255).map(|i| alloc::format!("R{i}")).collect();
    regs.push("RZ".into());
    let regs: Vec<&str> = regs.iter().map(String::as_str).collect();
    let reg_names = sp.list(&regs);
    let pred_names = sp.list(&["P0", "P1", "P2", "P3", "P4", "P5", "P6", "PT"]);
    let wide_names = sp.list(&["W32", "W64"]);
    let x_names = sp.list(&["NoX", "X"]);
    let bool_names = sp.list(&["False", "True"]);
    let cc_names = sp.list(&["A", "", "C"]);
    // Types: 0 Reg, 1 Pred, 2 SImm16, 3 Wide, 4 Ext, 5 Bool, 6 CMem (16-bit signed
    // offset), 7 UReg (wide: no dense names), 8 SImm8, 9 CC (code 1 unnamed).
    let types = [
        TypeRow {
            kind: TypeKind::Reg {
                prefix: r,
                lo: 0,
                hi: 254,
            },
            dense: reg_names,
            named: Run::default(),
        },
        TypeRow {
            kind: TypeKind::Reg {
                prefix: sp.s("P"),
                lo: 0,
                hi: 6,
            },
            dense: pred_names,
            named: Run::default(),
        },
        TypeRow {
            kind: TypeKind::Imm {
                signed: true,
                width: 16,
            },
            dense: Run::default(),
            named: Run::default(),
        },
        TypeRow {
            kind: TypeKind::Enum,
            dense: wide_names,
            named: Run::default(),
        },
        TypeRow {
            kind: TypeKind::Enum,
            dense: x_names,
            named: Run::default(),
        },
        TypeRow {
            kind: TypeKind::Enum,
            dense: bool_names,
            named: Run::default(),
        },
        TypeRow {
            kind: TypeKind::CMem {
                offset_bits: 16,
                signed: true,
            },
            dense: Run::default(),
            named: Run { at: 0, len: 0 },
        },
        TypeRow {
            kind: TypeKind::Reg {
                prefix: ur,
                lo: 0,
                hi: 62,
            },
            dense: Run::default(),
            named: Run { at: 0, len: 1 },
        },
        TypeRow {
            kind: TypeKind::Imm {
                signed: true,
                width: 8,
            },
            dense: Run::default(),
            named: Run::default(),
        },
        TypeRow {
            kind: TypeKind::Enum,
            dense: cc_names,
            named: Run::default(),
        },
    ];
    let urz = sp.s("URZ");
    let named = [(63u128, urz)];
    // Each field row carries its type's dense names, as the builders make them.
    let field = |start: u8, width: u8, ty: u32, default: Option<u128>| FieldRow {
        names: types[ty as usize].dense,
        ..field(start, width, ty, default)
    };
    let fields = [
        // IADD
        field(12, 3, 1, Some(7)), // 0 pg
        field(15, 1, 5, Some(0)), // 1 pg.not
        field(16, 8, 0, None),    // 2 rd
        field(24, 8, 0, None),    // 3 ra
        field(32, 1, 5, Some(0)), // 4 ra.neg
        field(40, 16, 2, None),   // 5 imm
        field(56, 1, 3, Some(0)), // 6 wide
        field(60, 3, 1, Some(7)), // 7 pp
        field(64, 1, 4, Some(0)), // 8 ext
        field(65, 1, 4, Some(0)), // 9 rd.x (a suffix)
        field(66, 1, 5, Some(0)), // 10 pp.not
        field(67, 1, 5, Some(0)), // 11 ra.bitnot
        field(68, 2, 9, Some(0)), // 12 cc (a code without a name)
        // LDC
        field(16, 8, 0, None),  // 0 rd (LDC's fields from 13)
        field(24, 32, 6, None), // 1 c[..][..]
        field(56, 8, 0, None),  // 2 index register
        field(64, 7, 7, None),  // 3 ur (7 bits: codes past URZ unnamed)
        field(72, 8, 8, None),  // 4 offset
    ];
    let subs = [
        SubRow {
            field: 9,
            role: SubRole::Suffix,
            set: 1,
        },
        SubRow {
            field: 4,
            role: SubRole::Neg { ext: Some((8, 1)) },
            set: 1,
        },
        SubRow {
            field: 11,
            role: SubRole::BitNot,
            set: 1,
        },
        SubRow {
            field: 10,
            role: SubRole::Not,
            set: 1,
        },
    ];
    // rd spans 32 + (wide == 1) * 32 bits.
    let exprs = [
        Op::Int(32),
        Op::Field(6),
        Op::Int(1),
        Op::Bin(BinOp::Eq),
        Op::Int(32),
        Op::Bin(BinOp::Mul),
        Op::Bin(BinOp::Add),
    ];
    let operand = |kind, subs: Run, count, addr| OperandRow {
        kind,
        subs,
        count,
        addr,
        required_after: 0,
        readers: Run::default(),
    };
    let none = Run::default();
    let operands = [
        operand(
            OperandKind::Field(2),
            Run { at: 0, len: 1 },
            Count::Bits(Run { at: 0, len: 7 }),
            Addr::None,
        ),
        operand(
            OperandKind::Field(3),
            Run { at: 1, len: 2 },
            Count::Fixed(1),
            Addr::None,
        ),
        operand(
            OperandKind::Field(5),
            none,
            Count::Fixed(1),
            Addr::Relative(4),
        ),
        operand(
            OperandKind::Field(7),
            Run { at: 3, len: 1 },
            Count::Fixed(1),
            Addr::None,
        ),
        // LDC rd, c[bank][reg+off], UR[ur+off], UPR
        operand(OperandKind::Field(0), none, Count::Fixed(1), Addr::None),
        operand(
            OperandKind::CMemIndexed { mem: 1, reg: 2 },
            none,
            Count::Fixed(1),
            Addr::None,
        ),
        operand(
            OperandKind::RegIndexed {
                prefix: ur,
                reg: 3,
                offset: 4,
            },
            none,
            Count::Fixed(1),
            Addr::None,
        ),
        operand(OperandKind::Word(upr), none, Count::Fixed(1), Addr::None),
        // SEL [pp], [pg], ra: pp could be read as pg (or as ra, which follows as
        // the one required operand: no reason to print pp).
        OperandRow {
            required_after: 1,
            readers: Run { at: 2, len: 2 },
            ..operand(
                OperandKind::Field(7),
                Run { at: 3, len: 1 },
                Count::Fixed(1),
                Addr::None,
            )
        },
        OperandRow {
            required_after: 1,
            ..operand(OperandKind::Field(0), none, Count::Fixed(1), Addr::None)
        },
        operand(OperandKind::Field(3), none, Count::Fixed(1), Addr::None),
        // JMP.cc target, absolute, number: the modes of an address.
        operand(
            OperandKind::Field(5),
            none,
            Count::Fixed(1),
            Addr::Select {
                field: 6,
                code: 1,
                shift: 4,
            },
        ),
        operand(
            OperandKind::Field(5),
            none,
            Count::Fixed(1),
            Addr::Absolute(2),
        ),
        operand(
            OperandKind::Field(5),
            none,
            Count::Fixed(1),
            Addr::Number(0),
        ),
        // SELX [pp], [pg], ra: pp could be read as ra only.
        OperandRow {
            required_after: 1,
            readers: Run { at: 3, len: 1 },
            ..operand(OperandKind::Field(7), none, Count::Fixed(1), Addr::None)
        },
        OperandRow {
            required_after: 1,
            ..operand(OperandKind::Field(0), none, Count::Fixed(1), Addr::None)
        },
        operand(OperandKind::Field(3), none, Count::Fixed(1), Addr::None),
    ];
    let indices = [6u16, 8, 1, 2, 12];
    let opcodes = [
        OpcodeRow {
            mnemonic: iadd,
            fields: Run { at: 0, len: 13 },
            guard: Some(Guard {
                field: 0,
                not: Some((1, 1)),
            }),
            mods: Run { at: 0, len: 2 },
            operands: Run { at: 0, len: 4 },
            optional: true,
        },
        OpcodeRow {
            mnemonic: ldc,
            fields: Run { at: 13, len: 5 },
            guard: None,
            mods: Run::default(),
            operands: Run { at: 4, len: 4 },
            optional: false,
        },
        OpcodeRow {
            mnemonic: sel,
            fields: Run { at: 0, len: 13 },
            guard: None,
            mods: Run::default(),
            operands: Run { at: 8, len: 3 },
            optional: true,
        },
        OpcodeRow {
            mnemonic: selx,
            fields: Run { at: 0, len: 13 },
            guard: None,
            mods: Run::default(),
            operands: Run { at: 14, len: 3 },
            optional: true,
        },
        OpcodeRow {
            mnemonic: jmp,
            fields: Run { at: 0, len: 13 },
            guard: None,
            mods: Run { at: 4, len: 1 },
            operands: Run { at: 11, len: 3 },
            optional: false,
        },
    ];
    sp.text.push_str(PADDING);
    let t = Tables {
        text: &sp.text,
        opcodes: &opcodes,
        fields: &fields,
        types: &types,
        names: &sp.names,
        named: &named,
        operands: &operands,
        subs: &subs,
        indices: &indices,
        exprs: &exprs,
        plans: &[],
        pieces: &[],
    };
    let mut out = String::new();
    planned(&t, opcode, word, addr, o, &mut out).unwrap();
    out
}

/// [`write_asm`] over `t` with the plans [`plan`] compiles from its rows.
fn planned<W: Write>(
    t: &Tables,
    opcode: usize,
    word: u128,
    addr: u64,
    o: &FormatOptions,
    w: &mut W,
) -> fmt::Result {
    let (plans, pieces) = plan(t);
    let t = Tables {
        plans: &plans,
        pieces: &pieces,
        ..*t
    };
    write_asm(&t, opcode, word, addr, o, w)
}

/// An IADD word: guard PT, the given registers and offset, everything else 0.
fn iadd(rd: u128, ra: u128, imm: u128) -> u128 {
    7 << 12 | rd << 16 | ra << 24 | (imm & 0xffff) << 40 | 7 << 60
}

const D: FormatOptions<'static> = FormatOptions::DEFAULT;

/// The padding that follows the tables' text.
const PADDING: &str = "                ";

#[test]
fn defaults_are_left_out_and_the_rest_printed() {
    assert_eq!(print(iadd(2, 3, 1), 0, 0x100, &D), "IADD R2, R3, 0x120");
    // A negative branch offset, counted from the next instruction.
    assert_eq!(print(iadd(2, 3, 0xfffe), 0, 0x100, &D), "IADD R2, R3, 0xf0");
    // The guard, negated, and an optional predicate not at its default.
    let w = iadd(2, 3, 1) & !(7 << 12 | 7 << 60) | 1 << 15 | 2 << 60;
    assert_eq!(print(w, 0, 0, &D), "@!P0 IADD R2, R3, 0x20, P2");
    // A guard at its default but negated still prints.
    assert_eq!(
        print(iadd(2, 3, 1) | 1 << 15, 0, 0, &D),
        "@!PT IADD R2, R3, 0x20"
    );
}

#[test]
fn an_operand_at_its_default_prints_when_the_next_could_be_read_as_it() {
    let sel = |pp: u128, pg: u128| print(pp << 60 | pg << 12 | 3 << 24, 2, 0, &D);
    assert_eq!(sel(7, 7), "SEL R3");
    assert_eq!(sel(1, 7), "SEL P1, R3");
    // `SEL P2, R3` would read P2 as pp: pp prints, though at its default.
    assert_eq!(sel(7, 2), "SEL PT, P2, R3");
    assert_eq!(sel(1, 2), "SEL P1, P2, R3");
    // Where pp could not be read as the operand that follows, it is left out.
    let selx = |pp: u128, pg: u128| print(pp << 60 | pg << 12 | 3 << 24, 3, 0, &D);
    assert_eq!(selx(7, 2), "SELX P2, R3");
    assert_eq!(selx(7, 7), "SELX R3");
}

/// A writer that counts the pieces it is handed.
#[derive(Default)]
struct Pieces {
    text: String,
    writes: usize,
}

impl Write for Pieces {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.text.push_str(s);
        self.writes += 1;
        Ok(())
    }
}

/// Prints `MNEMONIC 0x12` with options `o`, where the mnemonic is the first `len`
/// bytes of `text` and `0x12` an absolute address (which a symbol may name).
fn one_address(text: &str, len: u32, o: &FormatOptions) -> Pieces {
    let t = Tables {
        text,
        opcodes: &[OpcodeRow {
            mnemonic: Str { at: 0, len },
            fields: Run { at: 0, len: 1 },
            guard: None,
            mods: Run::default(),
            operands: Run { at: 0, len: 1 },
            optional: false,
        }],
        fields: &[field(0, 16, 0, None)],
        types: &[TypeRow {
            kind: TypeKind::Imm {
                signed: false,
                width: 16,
            },
            dense: Run::default(),
            named: Run::default(),
        }],
        names: &[],
        named: &[],
        operands: &[OperandRow {
            kind: OperandKind::Field(0),
            subs: Run::default(),
            count: Count::Fixed(1),
            addr: Addr::Absolute(0),
            required_after: 0,
            readers: Run::default(),
        }],
        subs: &[],
        indices: &[],
        exprs: &[],
        plans: &[],
        pieces: &[],
    };
    let mut w = Pieces::default();
    planned(&t, 0, 0x12, 0, o, &mut w).unwrap();
    w
}

#[test]
fn a_line_is_handed_on_in_one_piece_unless_it_is_longer_than_the_buffer() {
    let text = alloc::format!("X{PADDING}");
    let w = one_address(&text, 1, &D);
    assert_eq!((w.text.as_str(), w.writes), ("X 0x12", 1));
    // Names of every length up to past the buffer: the same text, in one piece
    // while it fits.
    for n in [100, 120, 121, 122, 123, 124, 125, 126, 127, 200, 300] {
        let name: String = core::iter::repeat_n('n', n).collect();
        let sym = |a: u64| (a == 0x12).then_some(name.as_str());
        let o = FormatOptions {
            symbols: Some(&sym),
            ..D
        };
        let w = one_address(&text, 1, &o);
        assert_eq!(w.text, alloc::format!("X `({name})"));
        let len = w.text.len();
        assert_eq!(
            w.writes == 1,
            len <= 128,
            "{len} bytes in {} pieces",
            w.writes
        );
    }
}

#[test]
fn texts_of_every_length_print_whole() {
    // Mnemonics of every length around the 16-byte blocks and past the buffer, in
    // a text where other text follows them (a block copy reads past a text's end).
    for n in (0..=40).chain([127, 128, 129, 200]) {
        let name: String = (0..n).map(|k| (b'A' + (k % 26) as u8) as char).collect();
        let text = alloc::format!("{name}ZZZZ{PADDING}");
        let w = one_address(&text, n, &D);
        assert_eq!(w.text, alloc::format!("{name} 0x12"), "{n} bytes");
        assert_eq!(
            w.writes == 1,
            n + 5 <= 128,
            "{n} bytes in {} pieces",
            w.writes
        );
    }
}

#[test]
fn an_operand_at_its_default_prints_when_a_sub_field_is_not() {
    // pp at PT but negated.
    let w = 7 << 60 | 1 << 66 | 7 << 12 | 3 << 24;
    assert_eq!(print(w, 2, 0, &D), "SEL !PT, R3");
}

#[test]
fn address_modes_and_unnamed_codes() {
    let jmp = |imm: u128, wide: u128, cc: u128, o: &FormatOptions| {
        print(imm << 40 | wide << 56 | cc << 68, 4, 0x100, o)
    };
    assert_eq!(jmp(1, 0, 0, &D), "JMP 0x120, 0x4, 0x1");
    // The mode field makes the target absolute.
    assert_eq!(jmp(1, 1, 2, &D), "JMP.C 0x10, 0x4, 0x1");
    // A number is never named; addresses are.
    let sym = |a: u64| match a {
        0x120 => Some("T"),
        0x4 => Some("A"),
        0x1 => Some("N"),
        _ => None,
    };
    let symbols = FormatOptions {
        symbols: Some(&sym),
        ..D
    };
    assert_eq!(jmp(1, 0, 0, &symbols), "JMP `(T), `(A), 0x1");
    // An enum code without a name.
    assert_eq!(jmp(1, 0, 1, &D), "JMP.? 0x120, 0x4, 0x1");
}

#[test]
fn format_options_debug_shows_whether_there_are_symbols() {
    let sym = |_: u64| None;
    let o = FormatOptions {
        symbols: Some(&sym),
        decimal: true,
        ..D
    };
    assert_eq!(
        alloc::format!("{o:?}"),
        "FormatOptions { symbols: true, decimal: true, show_defaults: false }"
    );
}

#[test]
fn widths_ranges_prefixes_and_suffixes() {
    // .W64 makes rd a pair; the constant register stays plain.
    assert_eq!(
        print(iadd(2, 3, 1) | 1 << 56, 0, 0, &D),
        "IADD.W64 R[2:3], R3, 0x20"
    );
    assert_eq!(
        print(iadd(255, 3, 1) | 1 << 56, 0, 0, &D),
        "IADD.W64 RZ, R3, 0x20"
    );
    // ra.neg is `-`, `~` under .X; rd's suffix sub-field prints after it.
    assert_eq!(
        print(iadd(2, 3, 1) | 1 << 32, 0, 0, &D),
        "IADD R2, -R3, 0x20"
    );
    assert_eq!(
        print(iadd(2, 3, 1) | 1 << 32 | 1 << 64 | 1 << 65, 0, 0, &D),
        "IADD.X R2.X, ~R3, 0x20"
    );
    // Prefixes in their order (`-` before `~`), a negated optional operand.
    assert_eq!(
        print(iadd(2, 3, 1) | 1 << 32 | 1 << 67, 0, 0, &D),
        "IADD R2, -~R3, 0x20"
    );
    let w = iadd(2, 3, 1) & !(7 << 60) | 2 << 60 | 1 << 66;
    assert_eq!(print(w, 0, 0, &D), "IADD R2, R3, 0x20, !P2");
}

#[test]
fn options_decimal_defaults_and_symbols() {
    let w = iadd(2, 3, 1);
    let decimal = FormatOptions { decimal: true, ..D };
    assert_eq!(print(w, 0, 0, &decimal), "IADD R2, R3, 32");
    let defaults = FormatOptions {
        show_defaults: true,
        ..D
    };
    assert_eq!(print(w, 0, 0, &defaults), "IADD.W32.NoX R2, R3, 0x20");
    // A name longer than the line buffer goes through whole.
    let long: String = core::iter::repeat_n('x', 300).collect();
    let sym = |a: u64| (a == 0x20).then_some(long.as_str());
    let symbols = FormatOptions {
        symbols: Some(&sym),
        ..D
    };
    let text = print(w, 0, 0, &symbols);
    assert_eq!(text, alloc::format!("IADD R2, R3, `({long})"));
}

#[test]
fn indexed_operands_and_words() {
    // LDC R1, c[0x3][R5-0x4], UR[UR2+0x7], UPR
    let off = (-4i16) as u16 as u128;
    let w = 1 << 16 | (3 << 16 | off) << 24 | 5 << 56 | 2 << 64 | 7 << 72;
    assert_eq!(
        print(w, 1, 0, &D),
        "LDC R1, c[0x3][R5-0x4], UR[UR2+0x7], UPR"
    );
    // RZ as the index register: the offset alone; URZ by its sparse name; a
    // negative register offset.
    let w = 1 << 16 | (3 << 16 | 0x10) << 24 | 255 << 56 | 63 << 64 | 0xf8 << 72;
    assert_eq!(print(w, 1, 0, &D), "LDC R1, c[0x3][0x10], UR[URZ-0x8], UPR");
    // No offset; a register code past the named ones, in hex.
    let w = 1 << 16 | 3 << 16 << 24 | 5 << 56 | 100 << 64;
    assert_eq!(print(w, 1, 0, &D), "LDC R1, c[0x3][R5], UR[0x64], UPR");
}

#[test]
fn past_128_optional_operands_the_rest_print() {
    let row = OperandRow {
        kind: OperandKind::Field(0),
        subs: Run::default(),
        count: Count::Fixed(1),
        addr: Addr::None,
        required_after: 0,
        readers: Run::default(),
    };
    // The first two operands are a field not at its default, the others one at it.
    let first = OperandRow {
        kind: OperandKind::Field(1),
        ..row
    };
    let operands: Vec<OperandRow> = [first, first]
        .into_iter()
        .chain(core::iter::repeat_n(row, 128))
        .collect();
    let t = Tables {
        text: "XKL                ",
        opcodes: &[OpcodeRow {
            mnemonic: Str { at: 0, len: 1 },
            fields: Run { at: 0, len: 2 },
            guard: None,
            mods: Run::default(),
            operands: Run { at: 0, len: 130 },
            optional: true,
        }],
        fields: &[
            FieldRow {
                names: Run { at: 0, len: 2 },
                ..field(0, 1, 0, Some(0))
            },
            FieldRow {
                names: Run { at: 0, len: 2 },
                ..field(1, 1, 0, Some(0))
            },
        ],
        types: &[TypeRow {
            kind: TypeKind::Enum,
            dense: Run { at: 0, len: 2 },
            named: Run::default(),
        }],
        names: &[
            Name::of("XKL", Str { at: 1, len: 1 }),
            Name::of("XKL", Str { at: 2, len: 1 }),
        ],
        named: &[],
        operands: &operands,
        subs: &[],
        indices: &[],
        exprs: &[],
        plans: &[],
        pieces: &[],
    };
    let mut out = String::new();
    planned(&t, 0, 0b10, 0, &D, &mut out).unwrap();
    // The first two print (not at their default, and past the 128 bits of the
    // decision); the others are at their default.
    assert_eq!(out, "X L, L");
}

#[test]
fn tables_out_of_bounds_print_without_panicking() {
    let empty = Tables {
        text: "",
        opcodes: &[OpcodeRow {
            mnemonic: Str { at: 5, len: 9 },
            fields: Run { at: 3, len: 2 },
            guard: Some(Guard {
                field: 9,
                not: None,
            }),
            mods: Run { at: 100, len: 3 },
            operands: Run { at: 0, len: 1 },
            optional: true,
        }],
        fields: &[field(200, 8, 77, None)],
        types: &[],
        names: &[],
        named: &[],
        operands: &[OperandRow {
            kind: OperandKind::Field(40),
            subs: Run { at: 9, len: 9 },
            count: Count::Bits(Run { at: 0, len: 99 }),
            addr: Addr::None,
            required_after: 0,
            readers: Run { at: 1, len: 1 },
        }],
        subs: &[],
        indices: &[],
        exprs: &[],
        plans: &[],
        pieces: &[],
    };
    // A signed immediate of no bits.
    let zero = Tables {
        types: &[TypeRow {
            kind: TypeKind::Imm {
                signed: true,
                width: 0,
            },
            dense: Run::default(),
            named: Run::default(),
        }],
        fields: &[field(0, 8, 0, None)],
        opcodes: &[OpcodeRow {
            mnemonic: Str { at: 0, len: 0 },
            fields: Run { at: 0, len: 1 },
            guard: None,
            ..empty.opcodes[0]
        }],
        text: PADDING,
        operands: &[OperandRow {
            kind: OperandKind::Field(0),
            count: Count::Fixed(1),
            subs: Run::default(),
            ..empty.operands[0]
        }],
        ..empty
    };
    let mut out = String::new();
    planned(&zero, 0, 0x85, 0, &D, &mut out).unwrap();
    assert_eq!(out, " 0x85");
    // Rows out of their tables' bounds: no panic, `?` for what has no name.
    let padded = Tables {
        opcodes: &[OpcodeRow {
            mnemonic: Str { at: 0, len: 0 },
            ..empty.opcodes[0]
        }],
        text: PADDING,
        ..empty
    };
    let mut out = String::new();
    planned(&padded, 0, u128::MAX, 0, &D, &mut out).unwrap();
    assert_eq!(out, "@?  ?");
    planned(&padded, 7, 0, 0, &D, &mut out).unwrap();
    assert_eq!(out, "@?  ?", "an opcode out of the table writes nothing");
    // A text out of the text, or text without its padding: an error, not a panic.
    for (text, at, len) in [("", 0, 0), ("MOV", 0, 3), (PADDING, 5, 9), (PADDING, 0, 17)] {
        let t = Tables {
            text,
            opcodes: &[OpcodeRow {
                mnemonic: Str { at, len },
                ..zero.opcodes[0]
            }],
            ..zero
        };
        let mut out = String::new();
        assert_eq!(planned(&t, 0, 0x85, 0, &D, &mut out), Err(fmt::Error));
    }
}

#[test]
fn tables_without_their_plans_print_as_an_error() {
    let text = alloc::format!("X{PADDING}");
    let mut t = TableBuf::default();
    t.text = text;
    t.opcodes.push(OpcodeRow {
        mnemonic: Str { at: 0, len: 1 },
        fields: Run::default(),
        guard: None,
        mods: Run::default(),
        operands: Run::default(),
        optional: false,
    });
    let mut out = String::new();
    assert_eq!(
        write_asm(&t.tables(), 0, 0, 0, &D, &mut out),
        Err(fmt::Error)
    );
    t.plan();
    assert_eq!(t.plans, [Run { at: 0, len: 1 }]);
    write_asm(&t.tables(), 0, 0, 0, &D, &mut out).unwrap();
    assert_eq!(out, "X");
    // A plan out of the pieces.
    t.plans[0] = Run { at: 0, len: 2 };
    assert_eq!(
        write_asm(&t.tables(), 0, 0, 0, &D, &mut out),
        Err(fmt::Error)
    );
    assert_eq!(out, "X");
}

/// Prints word `word` of a one-opcode table over `text` and the dense names `names`:
/// its mnemonic `mnemonic`, then `piece` (field 0 is bit 0).
fn print_one(
    text: &str,
    names: &[Name],
    mnemonic: Str,
    piece: Piece,
    word: u128,
) -> Result<String, fmt::Error> {
    let t = Tables {
        text,
        opcodes: &[OpcodeRow {
            mnemonic,
            fields: Run { at: 0, len: 1 },
            guard: None,
            mods: Run::default(),
            operands: Run::default(),
            optional: false,
        }],
        fields: &[field(0, 1, 0, None)],
        types: &[],
        names,
        named: &[],
        operands: &[],
        subs: &[],
        indices: &[],
        exprs: &[],
        plans: &[Run { at: 0, len: 2 }],
        pieces: &[Piece::Text(mnemonic), piece],
    };
    let mut out = String::new();
    write_asm(&t, 0, word, 0, &D, &mut out).map(|()| out)
}

#[test]
fn text_that_is_not_ascii_prints_checked() {
    // `Ω` (two bytes) names code 1; the text at 1 splits it.
    let text = alloc::format!("XΩ{PADDING}");
    let names = [
        Name::of(&text, Str { at: 0, len: 1 }),
        Name::of(&text, Str { at: 1, len: 2 }),
    ];
    let one = |mnemonic: Str, piece: Piece| print_one(&text, &names, mnemonic, piece, 1);
    let name = Piece::Name {
        at: at(0, 1),
        field: 0,
        names: Run { at: 0, len: 2 },
    };
    assert_eq!(one(Str { at: 0, len: 1 }, name).as_deref(), Ok("XΩ"));
    assert_eq!(one(Str { at: 0, len: 3 }, name).as_deref(), Ok("XΩΩ"));
    assert_eq!(
        one(Str { at: 0, len: 2 }, name),
        Err(fmt::Error),
        "splits `Ω`"
    );
    // A symbol that is not ASCII, in a hand-built piece: an error, not a `str`
    // that is not UTF-8.
    let bad = Piece::Prefix {
        at: at(0, 1),
        set: 1,
        symbol: 0xff,
    };
    assert_eq!(one(Str { at: 0, len: 1 }, bad), Err(fmt::Error));
    // And a symbol name that is not ASCII, copied exactly.
    let sym = |_: u64| Some("→Ω");
    let o = FormatOptions {
        symbols: Some(&sym),
        ..D
    };
    let w = one_address(&text, 1, &o);
    assert_eq!(w.text, "X `(→Ω)");
}

/// A dense name of up to 16 bytes prints from its row's head, a longer one from the
/// text; a head that is not ASCII is checked as any text is.
#[test]
fn names_print_from_their_head_up_to_16_bytes_and_from_the_text_past_it() {
    // The mnemonic `X`, then 15 bytes of filler, so that no block of the mnemonic's
    // reaches the names' text at 16.
    let text = alloc::format!("XYYYYYYYYYYYYYYYABCDEFGHIJKLMNOPQΩ{PADDING}");
    let print = |name: Name| {
        let piece = Piece::Name {
            at: at(0, 1),
            field: 0,
            names: Run { at: 0, len: 1 },
        };
        print_one(&text, &[name], Str { at: 0, len: 1 }, piece, 0)
    };
    let s = |at, len| Str { at, len };
    // Up to 16 bytes: the head, whatever the text says (a row's own contract).
    assert_eq!(print(Name::new(b"R7", s(16, 2))).as_deref(), Ok("XR7"));
    let sixteen = Name::of(&text, s(16, 16));
    assert_eq!(print(sixteen).as_deref(), Ok("XABCDEFGHIJKLMNOP"));
    // Past 16: the whole text.
    let seventeen = Name::of(&text, s(16, 17));
    assert_eq!(print(seventeen).as_deref(), Ok("XABCDEFGHIJKLMNOPQ"));
    assert_eq!(
        print(Name::new(b"ABCDEFGHIJKLMNOP", s(16, 17))).as_deref(),
        Ok("XABCDEFGHIJKLMNOPQ"),
        "a head that is the text's first 16 bytes"
    );
    // Not ASCII in the head alone: `Ω` prints, and half of it is an error.
    assert_eq!(print(Name::of(&text, s(33, 2))).as_deref(), Ok("XΩ"));
    assert_eq!(print(Name::of(&text, s(33, 1))), Err(fmt::Error));
}

#[test]
fn options_write_numbers_and_addresses_into_any_writer() {
    let sym = |a: u64| (a == 0x20).then_some("loop");
    let named = FormatOptions {
        symbols: Some(&sym),
        ..FormatOptions::new()
    };
    let decimal = FormatOptions {
        decimal: true,
        ..FormatOptions::new()
    };
    let plain = FormatOptions::new();
    let mut out = String::new();
    for (o, v) in [(&plain, -16), (&decimal, -16), (&plain, 0), (&named, 0x20)] {
        o.write_number(&mut out, v).unwrap();
        out.push(' ');
    }
    for (o, a) in [(&named, 0x20), (&named, 0x30), (&decimal, 0x20)] {
        o.write_address(&mut out, a).unwrap();
        out.push(' ');
    }
    assert_eq!(out, "-0x10 -16 0x0 0x20 `(loop) 0x30 32 ");
}

/// The plan of one opcode: the common operands (a register of one, an enum value, a
/// plain number) read their field inline; the others name their row; sub-fields are
/// pieces of their own around the operand's body, which its start skips together.
#[test]
fn plans_read_the_common_operands_inline() {
    let mut t = TableBuf::default();
    t.text.clear();
    t.text.push_str(PADDING);
    let (op, r, r0, r1, a, b) = (
        t.str("OP"),
        t.str("R"),
        t.str("R0"),
        t.str("R1"),
        t.str("A"),
        t.str("B"),
    );
    let text = t.text.clone();
    t.names.extend([r0, r1, a, b].map(|s| Name::of(&text, s)));
    let (regs, enums) = (Run { at: 0, len: 2 }, Run { at: 2, len: 2 });
    let ty = |kind, dense| TypeRow {
        kind,
        dense,
        named: Run::default(),
    };
    t.types.extend([
        ty(
            TypeKind::Reg {
                prefix: r,
                lo: 0,
                hi: 254,
            },
            regs,
        ),
        ty(TypeKind::Enum, enums),
        ty(
            TypeKind::Imm {
                signed: true,
                width: 8,
            },
            Run::default(),
        ),
        ty(
            TypeKind::Imm {
                signed: false,
                width: 8,
            },
            Run::default(),
        ),
    ]);
    let f = |start, width, ty: u32, default, names| FieldRow {
        at: at(start, width),
        ty,
        default,
        names,
    };
    t.fields.extend([
        f(0, 8, 0, None, regs),
        f(8, 1, 1, None, enums),
        f(16, 8, 2, None, Run::default()),
        f(24, 8, 0, Some(255), regs),
        f(32, 8, 3, None, Run::default()),
        f(40, 1, 1, Some(0), enums),
    ]);
    t.subs.extend([
        SubRow {
            field: 5,
            role: SubRole::Not,
            set: 1,
        },
        SubRow {
            field: 1,
            role: SubRole::Suffix,
            set: 0,
        },
    ]);
    let operand = |kind, count, addr, subs| OperandRow {
        kind,
        subs,
        count,
        addr,
        required_after: 0,
        readers: Run::default(),
    };
    let one = Count::Fixed(1);
    t.operands.extend([
        operand(OperandKind::Field(0), one, Addr::None, Run::default()),
        operand(
            OperandKind::Field(3),
            Count::Fixed(2),
            Addr::None,
            Run::default(),
        ),
        operand(OperandKind::Field(1), one, Addr::None, Run::default()),
        operand(OperandKind::Field(2), one, Addr::None, Run::default()),
        operand(
            OperandKind::Field(4),
            one,
            Addr::Relative(0),
            Run::default(),
        ),
        operand(
            OperandKind::Field(0),
            one,
            Addr::None,
            Run { at: 0, len: 2 },
        ),
    ]);
    t.opcodes.push(OpcodeRow {
        mnemonic: op,
        fields: Run { at: 0, len: 6 },
        guard: None,
        mods: Run::default(),
        operands: Run { at: 0, len: 6 },
        optional: true,
    });
    t.plan();
    let required = u16::MAX;
    let sep = |optional, len| Piece::Sep { optional, len };
    let name = |start, width, field, names| Piece::Name {
        at: at(start, width),
        field,
        names,
    };
    assert_eq!(t.plans, [Run { at: 0, len: 15 }]);
    assert_eq!(
        t.pieces,
        [
            Piece::Text(op),
            sep(required, 1),
            name(0, 8, 0, regs),
            // Two registers: a range, through the row; the one optional operand.
            sep(0, 1),
            Piece::Operand { operand: 1 },
            sep(required, 1),
            name(8, 1, 1, enums),
            sep(required, 1),
            Piece::Number {
                at: at(16, 8),
                signed: 8,
            },
            // An address, through the row.
            sep(required, 1),
            Piece::Operand { operand: 4 },
            sep(required, 3),
            Piece::Prefix {
                at: at(40, 1),
                set: 1,
                symbol: b'!',
            },
            name(0, 8, 0, regs),
            Piece::Suffix {
                at: at(8, 1),
                default: None,
                field: 1,
                names: enums,
            },
        ]
    );
    let mut out = String::new();
    let word = 1 | 5 << 24 | 1 << 8 | 0xfe << 16 | 1 << 40;
    write_asm(&t.tables(), 0, word, 0x100, &D, &mut out).unwrap();
    assert_eq!(out, "OP R1, R[5:6], B, -0x2, 0x110, !R1.B");
}
