//! Hardware conformance: the simulator held to what an NVIDIA H200 computed.
//!
//! `tests/data/hardware/` holds input rows (`cases.bin`, `cases-ext.bin`) and what the
//! GPU computed for them through the PTX instruction each of our opcodes corresponds
//! to (`results-h200.bin`, `results-ext-h200.bin`); its README defines the formats,
//! the variant bits of every family, how a row becomes one of our programs and what
//! is compared. This test follows that mapping: it builds each row's program and
//! state through this crate's API, runs it and compares every lane's outputs and
//! predicates with the GPU's. It computes no expected value itself.
//!
//! `ISA_HW_DATA=DIR` (and `ISA_HW_GPU=NAME` when DIR holds several GPUs' results)
//! runs the same check on other data, e.g. `gen_cases.py --seed 2 --out DIR`. When
//! DIR has no result files nothing is compared: every program must assemble and run
//! to its end, and every scalar output must be written.
//!
//! Scalar rows run many cases per program (as the data's `compare.py`), so the test
//! takes a few seconds in a debug build.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use isa::{Instruction, Pred, Reg, ShflMode, UPred, UReg};
use isa_runtime::{shfl_lane, Change, Changes, Machine, Observer, Program, Step, Stop, Warp};

const LANES: usize = isa_runtime::LANES;
const CASE_MAGIC: &[u8; 8] = b"HWCASES1";
const RESULT_MAGIC: &[u8; 8] = b"HWRESLT1";
/// `o3[l]` of a lane the GPU ran.
const DONE: u32 = 0x600D_0000;
/// Initial value of the collectives' output registers (`| lane` for `R10`), so that an
/// output the simulator does not write cannot agree by chance.
const SENTINEL: u32 = 0x5EED_0000;
/// Scalar rows per program: 2048 cases of 32 bytes fill one constant bank.
const CHUNK: usize = 64;
/// Constant-memory bytes per scalar case: `a b c x f 0 a x`.
const CASE_BYTES: u32 = 32;
const MAX_STEPS: u64 = 1_000_000;

type Lanes = [u32; LANES];

// ---------------------------------------------------------------------------------------
// The data set's definitions (its README; gen_cases.py)
// ---------------------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// One warp-wide instruction over the lanes of `mask`.
    Warp,
    /// 32 independent cases per row, one per lane.
    Scalar,
}

const FAMILIES: &[(u32, &str, Kind)] = &[
    (1, "SHFL", Kind::Warp),
    (2, "VOTE", Kind::Warp),
    (3, "REDUX", Kind::Warp),
    (4, "MATCH", Kind::Warp),
    (5, "ELECT", Kind::Warp),
    (6, "MOVM", Kind::Warp),
    (16, "UPRMT", Kind::Scalar),
    (17, "ULOP3", Kind::Scalar),
    (18, "UBMSK", Kind::Scalar),
    (19, "USGXT", Kind::Scalar),
    (20, "USHF", Kind::Scalar),
    (21, "UFLO", Kind::Scalar),
    (22, "UPOPC", Kind::Scalar),
    (23, "UBREV", Kind::Scalar),
    (24, "UIADD", Kind::Scalar),
    (25, "UIMAD", Kind::Scalar),
    (26, "UIMAD.WIDE", Kind::Scalar),
    (27, "UIMUL", Kind::Scalar),
    (28, "UIABS", Kind::Scalar),
    (29, "UIMNMX", Kind::Scalar),
    (30, "UISETP", Kind::Scalar),
    (31, "UISETP.X64", Kind::Scalar),
    (40, "UF2FP", Kind::Scalar),
    (41, "ULEA", Kind::Scalar),
    (42, "USEL", Kind::Scalar),
    (43, "UMOV", Kind::Scalar),
];

const SHFL_MODES: [&str; 4] = ["IDX", "UP", "DOWN", "BFLY"];
const SHFL_FORMS: [&str; 4] = ["RRR", "RRI", "RIR", "RI"];
const VOTE_OPS: [&str; 3] = ["ANY", "ALL", "EQ"];
const REDUX_OPS: [&str; 6] = ["AND", "OR", "XOR", "SUM", "MAX", "MIN"];
const PRMT_MODES: [&str; 7] = ["IDX", "F4E", "B4E", "RC8", "ECL", "ECR", "RC16"];
const SHF_TYPES: [&str; 4] = ["S32", "U32", "S64", "U64"];
const CMP_OPS: [&str; 6] = ["EQ", "NE", "LT", "LE", "GT", "GE"];
const BOOL_OPS: [&str; 3] = ["AND", "OR", "XOR"];
const LEA_KINDS: [&str; 9] = [
    "LO",
    "LO.NEG",
    "HI.X",
    "HI.X.INV",
    "HI.X.SX32",
    "HI.X.SX32.INV",
    "PAIR",
    "PAIR.SX32",
    "PAIR.NEG.SX32",
];

/// Operand forms of a scalar family, chosen by lane (`l % len`): which source is a
/// uniform register (U), an immediate (I) or constant memory (C).
fn family_forms(name: &str) -> &'static [&'static str] {
    match name {
        "UPRMT" | "UIMAD" => &["UUU", "UUI", "UIU", "UUC", "UCU"],
        "USHF" => &["UUU", "UIU", "UUI", "UUC", "UCU"],
        "ULOP3" | "ULEA" => &["UUU", "UIU", "UCU"],
        "UIMAD.WIDE" => &["UUU", "UIU", "UUC", "UCU"],
        "UF2FP" => &["UUU", "UCU"],
        "UFLO" | "UPOPC" | "UBREV" | "UIABS" | "UMOV" => &["U", "I", "C"],
        _ => &["UU", "UI", "UC"],
    }
}

/// `bits[i]`, or why the variant is not one the data set defines.
fn pick<'a>(bits: &[&'a str], i: u32, what: &str) -> Result<&'a str, String> {
    bits.get(i as usize)
        .copied()
        .ok_or_else(|| format!("{what} {i} is not defined"))
}

fn bit(v: u32, n: u32) -> bool {
    v >> n & 1 == 1
}

fn pick_if<'a>(c: bool, yes: &'a str, no: &'a str) -> &'a str {
    if c {
        yes
    } else {
        no
    }
}

/// A readable name of a row's variant (as gen_cases.py's `variant_name`).
fn variant_name(name: &str, v: u32) -> String {
    let get = |a: &[&str], i: u32| a.get(i as usize).copied().unwrap_or("?").to_string();
    match name {
        "SHFL" => format!(
            "{} {}",
            get(&SHFL_MODES, v & 3),
            get(&SHFL_FORMS, v >> 2 & 3)
        ),
        "VOTE" => format!(
            "{}.{}{}",
            pick_if(bit(v, 3), "VOTEU", "VOTE"),
            get(&VOTE_OPS, v & 3),
            pick_if(bit(v, 2), " !pp", "")
        ),
        "REDUX" => format!(
            "{}{}.{}",
            pick_if(bit(v, 4), "REDUXU", "REDUX"),
            pick_if(bit(v, 3), ".S32", ""),
            get(&REDUX_OPS, v & 7)
        ),
        "MATCH" => format!(
            "MATCH{}{}",
            pick_if(bit(v, 1), ".U64", ""),
            pick_if(bit(v, 0), ".ALL", ".ANY")
        ),
        "ELECT" => format!(
            "{}{}",
            pick_if(bit(v, 1), "ELECTU", "ELECT"),
            pick_if(bit(v, 0), " URb", " PT")
        ),
        "UPRMT" => format!("UPRMT.{}", get(&PRMT_MODES, v & 7)),
        "ULOP3" => format!("ULOP3.{}", pick_if(bit(v, 0), "POR", "PAND")),
        "UBMSK" => format!("UBMSK.{}", pick_if(bit(v, 0), "W", "C")),
        "USGXT" => format!(
            "USGXT.{}.{}",
            pick_if(bit(v, 0), "W", "C"),
            pick_if(bit(v, 1), "U32", "S32")
        ),
        "USHF" => format!(
            "USHF.{}.{}.{}.{}",
            pick_if(bit(v, 0), "R", "L"),
            pick_if(bit(v, 1), "HI", "LO"),
            pick_if(bit(v, 2), "W", "C"),
            get(&SHF_TYPES, v >> 3 & 3)
        ),
        "UFLO" => format!(
            "UFLO{}.{}{}",
            pick_if(bit(v, 1), ".SH", ""),
            pick_if(bit(v, 0), "U32", "S32"),
            pick_if(bit(v, 2), " ~b", "")
        ),
        "UPOPC" => format!("UPOPC{}", pick_if(bit(v, 0), " ~b", "")),
        "UIADD" => {
            let n = pick_if(bit(v, 0), "~", "-");
            format!(
                "UIADD{}{}{}",
                pick_if(bit(v, 0), ".X", ""),
                if bit(v, 1) {
                    format!(" {n}a")
                } else {
                    String::new()
                },
                if bit(v, 2) {
                    format!(" {n}b")
                } else {
                    String::new()
                },
            )
        }
        "UIMAD" => format!(
            "UIMAD.{}{}.{}{}",
            pick_if(bit(v, 0), "HI", "LO"),
            pick_if(bit(v, 1), ".X", ""),
            pick_if(bit(v, 2), "U32", "S32"),
            pick_if(bit(v, 3), pick_if(bit(v, 1), " ~c", " -c"), "")
        ),
        "UIMAD.WIDE" => format!(
            "UIMAD.WIDE{}.{}{}",
            pick_if(bit(v, 0), ".X", ""),
            pick_if(bit(v, 1), "U32", "S32"),
            pick_if(bit(v, 2), pick_if(bit(v, 0), " ~c", " -c"), "")
        ),
        "UIMUL" => format!(
            "UIMUL.{}.{}{}",
            pick_if(bit(v, 0), "HI", "LO"),
            pick_if(bit(v, 1), "U32", "S32"),
            pick_if(bit(v, 2), " -b", "")
        ),
        "UIMNMX" => format!("UIMNMX.{}", pick_if(bit(v, 0), "U32", "S32")),
        "UISETP" | "UISETP.X64" => format!(
            "{}{}.{}.{}",
            pick_if(name == "UISETP", "UISETP.", "UISETP(64-bit chain)."),
            get(&CMP_OPS, v & 7),
            get(&BOOL_OPS, v >> 3 & 3),
            pick_if(bit(v, 5), "U32", "S32")
        ),
        "ULEA" => format!("ULEA.{}", get(&LEA_KINDS, v)),
        "UMOV" => format!("UMOV{}", pick_if(bit(v, 0), ".64", ".32")),
        _ => name.to_string(),
    }
}

// ---------------------------------------------------------------------------------------
// Files
// ---------------------------------------------------------------------------------------

/// A row as read: its four header words and its arrays.
type RawRow = ([u32; 4], Vec<Lanes>);

/// A file's rows: the four header words and `arrays` arrays of 32 words each.
fn read_rows(path: &Path, magic: &[u8; 8], arrays: usize) -> Result<Vec<RawRow>, String> {
    let data = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let word =
        |off: usize| u32::from_le_bytes([data[off], data[off + 1], data[off + 2], data[off + 3]]);
    if data.len() < 16 || &data[..8] != magic {
        return Err(format!(
            "{}: not a {} file",
            path.display(),
            String::from_utf8_lossy(magic)
        ));
    }
    let (n, size) = (word(8) as usize, word(12) as usize);
    if size != 16 + 4 * LANES * arrays || data.len() != 16 + n * size {
        return Err(format!("{}: bad row size or length", path.display()));
    }
    Ok((0..n)
        .map(|i| {
            let off = 16 + i * size;
            let head = [word(off), word(off + 4), word(off + 8), word(off + 12)];
            let arrs = (0..arrays)
                .map(|k| std::array::from_fn(|l| word(off + 16 + 4 * (LANES * k + l))))
                .collect();
            (head, arrs)
        })
        .collect())
}

/// One row of a case file with, when there are any, the GPU's results.
struct Case {
    name: &'static str,
    kind: Kind,
    order: usize,
    var: u32,
    mask: u32,
    index: u32,
    a: Lanes,
    b: Lanes,
    c: Lanes,
    x: Lanes,
    f: Lanes,
    /// `o0` (d), `o1` (high word), `o2` (predicates), `o3` (ran markers).
    o: Option<[Lanes; 4]>,
}

impl Case {
    fn inputs(&self, l: usize) -> String {
        format!(
            "a={:#010x} b={:#010x} c={:#010x} x={:#010x} f={:#x} mask={:#010x}",
            self.a[l], self.b[l], self.c[l], self.x[l], self.f[l], self.mask
        )
    }

    /// Result word `k` of lane `l` (0 when there are no results: nothing is compared).
    fn out(&self, k: usize, l: usize) -> u32 {
        self.o.map_or(0, |o| o[k][l])
    }
}

/// The rows of `cases` with those of `results` (None: no results, nothing compared).
fn load(cases: &Path, results: Option<&Path>) -> Result<Vec<Case>, String> {
    let crows = read_rows(cases, CASE_MAGIC, 5)?;
    let rrows = match results {
        Some(p) => {
            let r = read_rows(p, RESULT_MAGIC, 4)?;
            if r.len() != crows.len() {
                return Err(format!(
                    "{}: {} rows for {} cases",
                    p.display(),
                    r.len(),
                    crows.len()
                ));
            }
            r.into_iter().map(Some).collect()
        }
        None => vec![None; crows.len()],
    };
    crows
        .into_iter()
        .zip(rrows)
        .map(|((head, arr), res)| {
            let [fam, var, mask, index] = head;
            let Some(order) = FAMILIES.iter().position(|f| f.0 == fam) else {
                return Err(format!("row {index}: unknown family {fam}"));
            };
            let o = match res {
                Some((rhead, _)) if rhead != head => {
                    return Err(format!(
                        "row {index}: the result row does not belong to this case row"
                    ))
                }
                Some((_, o)) => Some([o[0], o[1], o[2], o[3]]),
                None => None,
            };
            Ok(Case {
                name: FAMILIES[order].1,
                kind: FAMILIES[order].2,
                order,
                var,
                mask,
                index,
                a: arr[0],
                b: arr[1],
                c: arr[2],
                x: arr[3],
                f: arr[4],
                o,
            })
        })
        .collect()
}

// ---------------------------------------------------------------------------------------
// Comparisons and their tally
// ---------------------------------------------------------------------------------------

/// Where the simulator's value of an output is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Loc {
    Gpr(u8, usize),
    Pred(u8, usize),
    Ur(u8),
    Up(u8),
}

/// One compared value: the lane, the output's name, the GPU's value, where ours is.
struct Cmp {
    lane: usize,
    out: &'static str,
    gpu: u32,
    loc: Loc,
}

#[derive(Default)]
struct FamTally {
    rows: usize,
    cmp: usize,
    ok: usize,
    bad_by_variant: BTreeMap<String, usize>,
    first: Option<String>,
}

struct Tally {
    /// Whether there are GPU results (else only "was it written" is checked).
    compare: bool,
    fams: BTreeMap<usize, FamTally>,
    errors: Vec<String>,
}

impl Tally {
    fn add(&mut self, cs: &Case, c: &Cmp, sim: Option<u32>, detail: &str) {
        let t = self.fams.entry(cs.order).or_default();
        t.cmp += 1;
        let agree = match sim {
            Some(v) => !self.compare || v == c.gpu,
            None => false,
        };
        if agree {
            t.ok += 1;
            return;
        }
        *t.bad_by_variant
            .entry(variant_name(cs.name, cs.var))
            .or_default() += 1;
        if t.first.is_none() {
            let sim = sim.map_or("not written".to_string(), |v| format!("{v:#x}"));
            t.first = Some(format!(
                "row {} {} lane {} {}: gpu {:#x}, simulator {sim}; {}; {detail}",
                cs.index,
                variant_name(cs.name, cs.var),
                c.lane,
                c.out,
                c.gpu,
                cs.inputs(c.lane)
            ));
        }
    }

    fn report(&self) -> (String, usize, usize) {
        let mut s = String::new();
        let (mut total, mut ok) = (0, 0);
        let head = if self.compare { "agree" } else { "written" };
        let _ = writeln!(
            s,
            "{:<12} {:>5} {:>9} {:>9}",
            "family", "rows", "compared", head
        );
        for (order, t) in &self.fams {
            total += t.cmp;
            ok += t.ok;
            let status = if t.ok == t.cmp { "ok" } else { "DIFFER" };
            let _ = writeln!(
                s,
                "{:<12} {:>5} {:>9} {:>9}  {status}",
                FAMILIES[*order].1, t.rows, t.cmp, t.ok
            );
            if let Some(first) = &t.first {
                let bad: Vec<String> = t
                    .bad_by_variant
                    .iter()
                    .map(|(k, n)| format!("{k}: {n}"))
                    .collect();
                let _ = writeln!(s, "    disagreements by variant: {}", bad.join(", "));
                let _ = writeln!(s, "    first: {first}");
            }
        }
        for e in &self.errors {
            let _ = writeln!(s, "ERROR {e}");
        }
        let _ = writeln!(
            s,
            "{:<12} {:>5} {:>9} {:>9}",
            "total",
            self.fams.values().map(|t| t.rows).sum::<usize>(),
            total,
            ok
        );
        (s, total, ok)
    }
}

// ---------------------------------------------------------------------------------------
// Programs
// ---------------------------------------------------------------------------------------

fn hx(v: u32) -> String {
    format!("{v:#x}")
}

/// The carry-in / predicate operand: UP1 holds true, UP0 false; `f` bit 9 negates it.
fn upp_text(f: u32) -> String {
    format!(
        "{}{}",
        pick_if(bit(f, 9), "!", ""),
        pick_if(bit(f, 8), "UP1", "UP0")
    )
}

fn assemble(lines: &[String]) -> Result<Vec<Instruction>, String> {
    lines
        .iter()
        .enumerate()
        .map(|(k, t)| {
            Instruction::parse_at(t, 16 * k as u64, &|_| None)
                .map_err(|e| format!("`{t}`: {}", e.display(t)))
        })
        .collect()
}

/// A warp collective's instruction (guarded by `@P0`, the lanes of `mask`) and what
/// of it is compared.
fn warp_case(cs: &Case) -> Result<(String, Vec<Cmp>), String> {
    let v = cs.var;
    let members: Vec<usize> = (0..LANES).filter(|&l| bit(cs.mask, l as u32)).collect();
    let mut cmp = Vec::new();
    let d = |l: usize| Cmp {
        lane: l,
        out: "d",
        gpu: cs.out(0, l),
        loc: Loc::Gpr(10, l),
    };
    let p = |l: usize| Cmp {
        lane: l,
        out: "p",
        gpu: cs.out(2, l) & 1,
        loc: Loc::Pred(2, l),
    };
    // VOTEU, REDUXU and ELECTU write one uniform register: compared once, with the
    // lowest lane of `mask`.
    let ud = |l: usize| Cmp {
        lane: l,
        out: "d",
        gpu: cs.out(0, l),
        loc: Loc::Ur(10),
    };
    let text = match cs.name {
        _ if members.is_empty() && cs.name != "MOVM" => return Ok((String::new(), cmp)),
        "SHFL" => {
            let (mode, form) = (v & 3, v >> 2 & 3);
            let b = if form < 2 {
                "R1".to_string()
            } else {
                hx(cs.b[0] & 0x1f)
            };
            let c = if form % 2 == 0 {
                "R2".to_string()
            } else {
                hx(cs.c[0] & 0x1fff)
            };
            let shfl_mode =
                [ShflMode::Idx, ShflMode::Up, ShflMode::Down, ShflMode::Bfly][mode as usize];
            for &l in &members {
                cmp.push(p(l));
                // PTX leaves `d` undefined when the source lane is outside `mask`; the
                // simulator's SHFL is PTX's (`p` above holds it to the GPU in every
                // lane), so its source lane tells which `d` PTX defines.
                let (j, pval) = shfl_lane(shfl_mode, l as u32, cs.b[l], cs.c[l]);
                if !pval || bit(cs.mask, j) {
                    cmp.push(d(l));
                }
            }
            format!("SHFL.{} P2, R10, R0, {b}, {c}", SHFL_MODES[mode as usize])
        }
        "VOTE" => {
            let op = pick(&VOTE_OPS, v & 3, "VOTE op")?;
            let neg = pick_if(bit(v, 2), "!", "");
            if bit(v, 3) {
                cmp.push(ud(members[0]));
                let l = members[0];
                cmp.push(Cmp {
                    lane: l,
                    out: "p",
                    gpu: cs.out(2, l) & 1,
                    loc: Loc::Up(2),
                });
                format!("VOTEU.{op} UR10, UP2, {neg}P1")
            } else {
                for &l in &members {
                    cmp.push(d(l));
                    cmp.push(p(l));
                }
                format!("VOTE.{op} R10, P2, {neg}P1")
            }
        }
        "REDUX" => {
            let op = pick(&REDUX_OPS, v & 7, "REDUX op")?;
            let s32 = pick_if(bit(v, 3), ".S32", "");
            if bit(v, 4) {
                cmp.push(ud(members[0]));
                format!("REDUXU{s32}.{op} UR10, R0")
            } else {
                cmp.extend(members.iter().map(|&l| d(l)));
                format!("REDUX{s32}.{op} R10, R0")
            }
        }
        "MATCH" => {
            for &l in &members {
                cmp.push(d(l));
                // match.any has no predicate in PTX.
                if bit(v, 0) {
                    cmp.push(p(l));
                }
            }
            let (u64, src) = if bit(v, 1) {
                (".U64", "R[4:5]")
            } else {
                ("", "R0")
            };
            format!(
                "MATCH{u64}{} R10, P2, {src}",
                pick_if(bit(v, 0), ".ALL", ".ANY")
            )
        }
        "ELECT" => {
            let src = pick_if(bit(v, 0), "UR4", "PT");
            let text = if bit(v, 1) {
                cmp.push(ud(members[0]));
                format!("ELECTU P2, UR10, {src}")
            } else {
                cmp.extend(members.iter().map(|&l| d(l)));
                format!("ELECT P2, R10, {src}")
            };
            cmp.extend(members.iter().map(|&l| p(l)));
            text
        }
        "MOVM" => {
            cmp.extend((0..LANES).map(d));
            "MOVM R10, R0".to_string()
        }
        other => return Err(format!("{other} is not a warp collective")),
    };
    Ok((format!("@P0 {text}"), cmp))
}

/// The state of a collective's row: `R0 = a`, `R1 = b`, `R2 = c`, `R3 = x`, `R[4:5] =
/// {a, x}`, `P0` = the lanes of `mask`, `P1` = `f` bit 0, `UR4 = mask`, sentinels in
/// the outputs.
fn warp_state(cs: &Case) -> Warp {
    let mut w = Warp::new(u32::MAX);
    let reg = |n: u8| Reg::new(n).unwrap();
    for (n, vals) in [
        (0, &cs.a),
        (1, &cs.b),
        (2, &cs.c),
        (3, &cs.x),
        (4, &cs.a),
        (5, &cs.x),
    ] {
        w.set_reg_masked(reg(n), u32::MAX, vals);
    }
    w.set_reg_masked(
        reg(10),
        u32::MAX,
        &std::array::from_fn(|l| SENTINEL | l as u32),
    );
    let f0 = (0..LANES).fold(0u32, |m, l| m | (cs.f[l] & 1) << l);
    w.set_pred_lanes(Pred::new(0).unwrap(), u32::MAX, cs.mask);
    w.set_pred_lanes(Pred::new(1).unwrap(), u32::MAX, f0);
    w.set_pred_lanes(Pred::new(2).unwrap(), u32::MAX, 0);
    w.set_ureg(UReg::new(4).unwrap(), cs.mask);
    w.set_ureg(UReg::new(10).unwrap(), SENTINEL);
    w.set_upred(UPred::new(2).unwrap(), false);
    w
}

fn read(w: &Warp, loc: Loc) -> u32 {
    match loc {
        Loc::Gpr(n, l) => w.reg(Reg::new(n).unwrap(), l),
        Loc::Pred(n, l) => u32::from(w.pred(Pred::new(n).unwrap(), l)),
        Loc::Ur(n) => w.ureg(UReg::new(n).unwrap()),
        Loc::Up(n) => u32::from(w.upred(UPred::new(n).unwrap())),
    }
}

fn run_warp_row(cs: &Case, tally: &mut Tally) {
    let (text, cmp) = match warp_case(cs) {
        Ok(x) => x,
        Err(e) => {
            return tally
                .errors
                .push(format!("{} row {}: {e}", cs.name, cs.index))
        }
    };
    if cmp.is_empty() {
        return; // nothing executes, nothing to compare
    }
    let result = assemble(&[text.clone(), "EXIT".to_string()]).and_then(|insns| {
        let mut m = Machine::new(warp_state(cs), Program::from_instructions(0, &insns));
        match m.run(MAX_STEPS) {
            Stop::Exited => Ok(m.warp),
            Stop::Fault(f) => Err(format!("fault: {f}")),
        }
    });
    let detail = format!("`{text}`");
    for c in &cmp {
        match &result {
            Ok(w) => tally.add(cs, c, Some(read(w, c.loc)), &detail),
            Err(e) => tally.add(cs, c, None, e),
        }
    }
}

/// The operand forms that can express this row's variant (no immediate where a
/// modifier needs a register).
fn forms_for(cs: &Case) -> Vec<&'static str> {
    let (n, v) = (cs.name, cs.var);
    // An immediate SrcB cannot carry `~`/`-` (UFLO, UPOPC, UIADD, UIMUL) nor 64 bits
    // (UMOV.64); UIMAD's immediate SrcC cannot carry `-`/`~`.
    let no_imm_c = n == "UIMAD" && bit(v, 3);
    let no_imm = (n == "UFLO" && bit(v, 2))
        || (n == "UPOPC" && bit(v, 0))
        || (n == "UIADD" && bit(v, 2))
        || (n == "UIMUL" && bit(v, 2))
        || (n == "UMOV" && bit(v, 0));
    family_forms(n)
        .iter()
        .copied()
        .filter(|f| !(no_imm && f.contains('I') || no_imm_c && *f == "UUI"))
        .collect()
}

/// One scalar output: its name, the GPU's value, the instruction of the case that
/// writes it (0-based) and where.
struct Out {
    name: &'static str,
    gpu: u32,
    k: usize,
    loc: Loc,
}

/// The instructions of lane `l`'s case (after its loads; its words are at
/// `c[0x0][base]`) and its outputs.
fn scalar_case(
    cs: &Case,
    l: usize,
    base: u32,
) -> Result<(Vec<String>, Vec<Out>, &'static str), String> {
    let (v, a, b, c, f) = (cs.var, cs.a[l], cs.b[l], cs.c[l], cs.f[l]);
    let fs = forms_for(cs);
    let form = fs[l % fs.len()];
    let fb = form
        .as_bytes()
        .get(1)
        .copied()
        .unwrap_or(form.as_bytes()[0]);
    let fc = if form.len() == 3 {
        form.as_bytes()[2]
    } else {
        b'U'
    };
    let cm = |off: u32| format!("c[0x0][{:#x}]", base + off);
    // SrcB / SrcC in the form's operand kind.
    let src = |kind: u8, reg: &str, value: u32, off: u32| match kind {
        b'I' => hx(value),
        b'C' => cm(off),
        _ => reg.to_string(),
    };
    let (sb, sc) = (src(fb, "UR2", b, 4), src(fc, "UR3", c, 8));
    // The high word of a 64-bit SrcB, `c`, in SrcB's kind.
    let hi_b = src(fb, "UR3", c, 8);
    let (o0, o1, o2) = (cs.out(0, l), cs.out(1, l), cs.out(2, l));
    let d = Out {
        name: "d",
        gpu: o0,
        k: 0,
        loc: Loc::Ur(10),
    };
    let carry = Out {
        name: "carry",
        gpu: o2 & 1,
        k: 0,
        loc: Loc::Up(2),
    };
    let lo = Out { name: "d.lo", ..d };
    let hi = |k| Out {
        name: "d.hi",
        gpu: o1,
        k,
        loc: Loc::Ur(11),
    };
    let x_form = |x: bool| pick_if(x, "~", "-");
    let (ins, outs): (Vec<String>, Vec<Out>) = match cs.name {
        "UPRMT" => {
            let mode = pick(&PRMT_MODES, v & 7, "PRMT mode")?;
            (vec![format!("UPRMT.{mode} UR10, UR1, {sb}, {sc}")], vec![d])
        }
        "ULOP3" => {
            let op = pick_if(bit(v, 0), "POR", "PAND");
            let t = format!(
                "ULOP3.{op} UR10, UP2, UR1, {sb}, UR3, {}, {}",
                hx(f & 255),
                upp_text(f)
            );
            (vec![t], vec![d, Out { name: "p", ..carry }])
        }
        "UBMSK" => (
            vec![format!(
                "UBMSK.{} UR10, UR1, {sb}",
                pick_if(bit(v, 0), "W", "C")
            )],
            vec![d],
        ),
        "USGXT" => {
            let (cw, ty) = (
                pick_if(bit(v, 0), "W", "C"),
                pick_if(bit(v, 1), "U32", "S32"),
            );
            (vec![format!("USGXT.{cw}.{ty} UR10, UR1, {sb}")], vec![d])
        }
        "USHF" => {
            let t = format!(
                "USHF.{}.{}.{}.{} UR10, UR1, {sb}, {sc}",
                pick_if(bit(v, 0), "R", "L"),
                pick_if(bit(v, 1), "HI", "LO"),
                pick_if(bit(v, 2), "W", "C"),
                SHF_TYPES[(v >> 3 & 3) as usize]
            );
            (vec![t], vec![d])
        }
        "UFLO" | "UPOPC" | "UBREV" | "UIABS" => {
            let inv = (cs.name == "UFLO" && bit(v, 2)) || (cs.name == "UPOPC" && bit(v, 0));
            let s = format!("{}{sb}", pick_if(inv, "~", ""));
            let t = if cs.name == "UFLO" {
                format!(
                    "UFLO{}.{} UR10, {s}",
                    pick_if(bit(v, 1), ".SH", ""),
                    pick_if(bit(v, 0), "U32", "S32")
                )
            } else {
                format!("{} UR10, {s}", cs.name)
            };
            (vec![t], vec![d])
        }
        "UIADD" => {
            let x = bit(v, 0);
            let ta = format!("{}UR1", pick_if(bit(v, 1), x_form(x), ""));
            let tb = format!("{}{sb}", pick_if(bit(v, 2), x_form(x), ""));
            let cin = if x {
                format!(", {}", upp_text(f))
            } else {
                String::new()
            };
            (
                vec![format!(
                    "UIADD{} UR10, UP2, {ta}, {tb}{cin}",
                    pick_if(x, ".X", "")
                )],
                vec![d, carry],
            )
        }
        "UIMAD" => {
            let x = bit(v, 1);
            let tc = format!("{}{sc}", pick_if(bit(v, 3), x_form(x), ""));
            let cin = if x {
                format!(", {}", upp_text(f))
            } else {
                String::new()
            };
            let t = format!(
                "UIMAD.{}{}.{} UR10, UP2, UR1, {sb}, {tc}{cin}",
                pick_if(bit(v, 0), "HI", "LO"),
                pick_if(x, ".X", ""),
                pick_if(bit(v, 2), "U32", "S32")
            );
            (vec![t], vec![d, carry])
        }
        "UIMAD.WIDE" => {
            let x = bit(v, 0);
            let neg = pick_if(bit(v, 2), x_form(x), "");
            // The constant-SrcC form takes its 64-bit SrcC from constant memory.
            let (dst, tb, tc) = if form == "UUC" {
                ("UR[10:11]", "UR2".to_string(), format!("{neg}{}", cm(8)))
            } else {
                ("UR[10:11]", sb, format!("{neg}UR[6:7]"))
            };
            let cin = if x {
                format!(", {}", upp_text(f))
            } else {
                String::new()
            };
            let t = format!(
                "UIMAD.WIDE{}.{} {dst}, UP2, UR1, {tb}, {tc}{cin}",
                pick_if(x, ".X", ""),
                pick_if(bit(v, 1), "U32", "S32")
            );
            (vec![t], vec![lo, hi(0), carry])
        }
        "UIMUL" => {
            let t = format!(
                "UIMUL.{}.{} UR10, UR1, {}{sb}",
                pick_if(bit(v, 0), "HI", "LO"),
                pick_if(bit(v, 1), "U32", "S32"),
                pick_if(bit(v, 2), "-", "")
            );
            (vec![t], vec![d])
        }
        "UIMNMX" => {
            let t = format!(
                "UIMNMX.{} UR10, UR1, {sb}, {}",
                pick_if(bit(v, 0), "U32", "S32"),
                upp_text(f)
            );
            (vec![t], vec![d])
        }
        "UISETP" | "UISETP.X64" => {
            let cmp = pick(&CMP_OPS, v & 7, "compare op")?;
            let bop = pick(&BOOL_OPS, v >> 3 & 3, "bool op")?;
            let ty = pick_if(bit(v, 5), "U32", "S32");
            let (ins, k) = if cs.name == "UISETP" {
                (
                    vec![format!(
                        "UISETP.{cmp}.{bop}.{ty} UP2, UP3, UR1, {sb}, {}",
                        upp_text(f)
                    )],
                    0,
                )
            } else {
                // 64-bit A = {x, a}, B = {c, b}: low words unsigned, then .X on the
                // high words.
                let low = format!("UISETP.{cmp}.AND.U32 UP4, UPT, UR1, UR2, UPT");
                let high = format!(
                    "UISETP.{cmp}.{bop}.{ty}.X UP2, UP3, UR4, {hi_b}, {}, UP4",
                    upp_text(f)
                );
                (vec![low, high], 1)
            };
            let p = Out {
                name: "p",
                gpu: o2 & 1,
                k,
                loc: Loc::Up(2),
            };
            let q = Out {
                name: "q",
                gpu: o2 >> 1 & 1,
                k,
                loc: Loc::Up(3),
            };
            (ins, vec![p, q])
        }
        "UF2FP" => (vec![format!("UF2FP UR10, UR1, {sb}, UR3")], vec![d]),
        "ULEA" => {
            let kind = pick(&LEA_KINDS, v, "ULEA kind")?;
            let sh = hx(f & 31);
            match kind {
                "LO" | "LO.NEG" => {
                    let ta = format!("{}UR1", pick_if(kind == "LO.NEG", "-", ""));
                    let t = format!("ULEA UR10, UP2, {ta}, {sb}, UR4, {sh}");
                    // The carry of LO.NEG alone is not compared: no PTX instruction
                    // computes it by itself; the pair (PAIR.NEG.SX32) tells it.
                    let outs = if kind == "LO" {
                        vec![d, carry]
                    } else {
                        vec![d]
                    };
                    (vec![t], outs)
                }
                "HI.X" | "HI.X.INV" | "HI.X.SX32" | "HI.X.SX32.INV" => {
                    let sx = pick_if(kind.contains("SX32"), ".SX32", "");
                    let ta = format!("{}UR1", pick_if(kind.ends_with("INV"), "~", ""));
                    let t = format!(
                        "ULEA.HI.X{sx} UR10, UP2, {ta}, {sb}, UR4, {sh}, {}",
                        upp_text(f)
                    );
                    (vec![t], vec![d, carry])
                }
                _ => {
                    // The pairs: both words of the 64-bit sum (their final carry is
                    // not compared).
                    let sx = pick_if(kind.contains("SX32"), ".SX32", "");
                    let neg = kind == "PAIR.NEG.SX32";
                    let low = format!(
                        "ULEA UR10, UP4, {}UR1, {sb}, UR4, {sh}",
                        pick_if(neg, "-", "")
                    );
                    let high = format!(
                        "ULEA.HI.X{sx} UR11, UP5, {}UR1, {hi_b}, UR4, {sh}, UP4",
                        pick_if(neg, "~", "")
                    );
                    (vec![low, high], vec![lo, hi(1)])
                }
            }
        }
        "USEL" => (
            vec![format!("USEL UR10, UR1, {sb}, {}", upp_text(f))],
            vec![d],
        ),
        "UMOV" => {
            if bit(v, 0) {
                let s = if form == "U" {
                    "UR[8:9]".to_string()
                } else {
                    cm(24)
                };
                (vec![format!("UMOV.64 UR[10:11], {s}")], vec![lo, hi(0)])
            } else {
                (
                    vec![format!(
                        "UMOV UR10, {}",
                        src(form.as_bytes()[0], "UR1", a, 0)
                    )],
                    vec![d],
                )
            }
        }
        other => return Err(format!("{other} is not a scalar family")),
    };
    Ok((ins, outs, form))
}

/// What each instruction of a straight-line program wrote to the uniform registers
/// and predicates, by instruction number.
struct Writes {
    changes: Changes,
    by_insn: Vec<Vec<(Loc, u32)>>,
}

impl Observer for Writes {
    fn step(&mut self, step: &Step<'_>, warp: &Warp) {
        let k = (step.pc / 16) as usize;
        if self.by_insn.len() <= k {
            self.by_insn.resize(k + 1, Vec::new());
        }
        for c in self.changes.update(step, warp) {
            match *c {
                Change::UReg(r) => self.by_insn[k].push((Loc::Ur(r.bits()), warp.ureg(r))),
                Change::UPred(p) => {
                    self.by_insn[k].push((Loc::Up(p.bits()), u32::from(warp.upred(p))))
                }
                _ => {}
            }
        }
    }
}

/// One program for up to [`CHUNK`] rows of one family: per case its loads from
/// constant memory, then its instructions; the outputs are read from what each case's
/// instruction wrote.
fn run_scalar_chunk(chunk: &[&Case], tally: &mut Tally) {
    let mut lines = Vec::new();
    let mut w = Warp::new(u32::MAX);
    let mut plan = Vec::new();
    for (k, (cs, l)) in chunk
        .iter()
        .flat_map(|cs| (0..LANES).map(move |l| (*cs, l)))
        .enumerate()
    {
        let base = k as u32 * CASE_BYTES;
        let words = [
            cs.a[l], cs.b[l], cs.c[l], cs.x[l], cs.f[l], 0, cs.a[l], cs.x[l],
        ];
        for (i, word) in words.iter().enumerate() {
            assert!(
                w.cmem.write_u32(0, base + 4 * i as u32, *word),
                "constant bank full"
            );
        }
        for r in 1..=4 {
            lines.push(format!("ULDC UR{r}, c[0x0][{:#x}]", base + 4 * (r - 1)));
        }
        match cs.name {
            "UIMAD.WIDE" => lines.push(format!("ULDC.64 UR[6:7], c[0x0][{:#x}]", base + 8)),
            "UMOV" => lines.push(format!("ULDC.64 UR[8:9], c[0x0][{:#x}]", base + 24)),
            _ => {}
        }
        match scalar_case(cs, l, base) {
            Ok((ins, outs, form)) => {
                plan.push((cs, l, form, lines.len(), ins.join(" ; "), outs));
                lines.extend(ins);
            }
            Err(e) => tally
                .errors
                .push(format!("{} row {}: {e}", cs.name, cs.index)),
        }
    }
    lines.push("EXIT".to_string());
    w.set_upred(UPred::new(0).unwrap(), false);
    w.set_upred(UPred::new(1).unwrap(), true);
    let mut writes = Writes {
        changes: Changes::new(&w),
        by_insn: Vec::new(),
    };
    let err = match assemble(&lines) {
        Ok(insns) => match Machine::new(w, Program::from_instructions(0, &insns))
            .run_observed(MAX_STEPS, &mut writes)
        {
            Stop::Exited => None,
            Stop::Fault(f) => Some(format!("fault: {f}")),
        },
        Err(e) => Some(e),
    };
    for (cs, l, form, first, text, outs) in plan {
        let detail = err
            .clone()
            .unwrap_or_else(|| format!("form {form}: `{text}`"));
        for o in outs {
            let written = writes.by_insn.get(first + o.k).map_or(&[][..], |v| &v[..]);
            let sim = written
                .iter()
                .rev()
                .find(|(loc, _)| *loc == o.loc)
                .map(|&(_, v)| v);
            tally.add(
                cs,
                &Cmp {
                    lane: l,
                    out: o.name,
                    gpu: o.gpu,
                    loc: o.loc,
                },
                sim,
                &detail,
            );
        }
    }
}

/// Runs every row of `cases` and tallies the comparisons.
fn conformance(cases: &[Case], compare: bool) -> Tally {
    let mut tally = Tally {
        compare,
        fams: BTreeMap::new(),
        errors: Vec::new(),
    };
    for cs in cases {
        tally.fams.entry(cs.order).or_default().rows += 1;
        // Every lane the GPU should have run reports its marker.
        if let Some(o) = &cs.o {
            let want = if cs.kind == Kind::Warp && cs.name != "MOVM" {
                cs.mask
            } else {
                u32::MAX
            };
            if let Some(l) = (0..LANES).find(|&l| bit(want, l as u32) && o[3][l] != DONE | l as u32)
            {
                tally.errors.push(format!(
                    "{} row {}: lane {l} has no GPU result",
                    cs.name, cs.index
                ));
            }
        }
    }
    for cs in cases.iter().filter(|c| c.kind == Kind::Warp) {
        run_warp_row(cs, &mut tally);
    }
    // Consecutive rows of one family, up to CHUNK per program.
    let scalar: Vec<&Case> = cases.iter().filter(|c| c.kind == Kind::Scalar).collect();
    for group in scalar.chunk_by(|a, b| a.order == b.order) {
        for chunk in group.chunks(CHUNK) {
            run_scalar_chunk(chunk, &mut tally);
        }
    }
    tally
}

// ---------------------------------------------------------------------------------------
// The test
// ---------------------------------------------------------------------------------------

/// The bundled data set's rows and comparisons per family (its README's table): what
/// is compared and what is skipped must not drift.
const BUNDLED: &[(&str, usize, usize)] = &[
    ("SHFL", 96, 4604),
    ("VOTE", 48, 1350),
    ("REDUX", 72, 935),
    ("MATCH", 24, 867),
    ("ELECT", 24, 671),
    ("MOVM", 8, 256),
    ("UPRMT", 38, 1216),
    ("ULOP3", 32, 2048),
    ("UBMSK", 14, 448),
    ("USGXT", 20, 640),
    ("USHF", 96, 3072),
    ("UFLO", 24, 768),
    ("UPOPC", 6, 192),
    ("UBREV", 3, 96),
    ("UIADD", 28, 1792),
    ("UIMAD", 48, 3072),
    ("UIMAD.WIDE", 24, 2304),
    ("UIMUL", 12, 384),
    ("UIABS", 3, 96),
    ("UIMNMX", 6, 192),
    ("UISETP", 72, 4608),
    ("UISETP.X64", 72, 4608),
    ("UF2FP", 40, 1280),
    ("ULEA", 39, 2368),
    ("USEL", 8, 256),
    ("UMOV", 6, 288),
];

/// The GPU whose results are in `dir` (`results-NAME.bin`), when there is one.
fn gpu_in(dir: &Path) -> Result<Option<String>, String> {
    if let Ok(name) = std::env::var("ISA_HW_GPU") {
        return Ok(Some(name));
    }
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter_map(|n| {
            let n = n.strip_prefix("results-")?.strip_suffix(".bin")?;
            Some(n.strip_prefix("ext-").unwrap_or(n).to_string())
        })
        .collect();
    names.sort();
    names.dedup();
    match names.len() {
        0 => Ok(None),
        1 => Ok(names.pop()),
        _ => Err(format!(
            "{}: results of {names:?}: set ISA_HW_GPU",
            dir.display()
        )),
    }
}

#[test]
fn simulator_agrees_with_the_gpu() {
    let bundled = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/hardware");
    let dir = std::env::var_os("ISA_HW_DATA").map_or(bundled.clone(), PathBuf::from);
    let is_bundled = dir == bundled;
    let gpu = gpu_in(&dir).unwrap();
    assert!(
        gpu.is_some() || !is_bundled,
        "the bundled data has no GPU results"
    );
    let t0 = Instant::now();
    let mut cases = Vec::new();
    let mut rows = Vec::new();
    for set in ["", "-ext"] {
        let results = gpu
            .as_ref()
            .map(|g| dir.join(format!("results{set}-{g}.bin")));
        let c = load(&dir.join(format!("cases{set}.bin")), results.as_deref()).unwrap();
        rows.push(c.len());
        cases.extend(c);
    }
    let tally = conformance(&cases, gpu.is_some());
    let (report, total, ok) = tally.report();
    let source = match &gpu {
        Some(g) => format!("GPU {g}"),
        None => "no GPU results: built and run only".to_string(),
    };
    println!(
        "hardware conformance ({source}; {}; {} + {} rows; {:.1} s)\n{report}",
        dir.display(),
        rows[0],
        rows[1],
        t0.elapsed().as_secs_f64()
    );
    assert!(
        tally.errors.is_empty() && ok == total,
        "{} of {total} comparisons disagree, {} errors (the table above names the first \
         disagreement of each family)",
        total - ok,
        tally.errors.len()
    );
    if is_bundled {
        assert_eq!(rows, [770, 93], "rows of cases.bin, cases-ext.bin");
        let counts: Vec<(&str, usize, usize)> = tally
            .fams
            .iter()
            .map(|(&k, t)| (FAMILIES[k].1, t.rows, t.cmp))
            .collect();
        assert_eq!(counts, BUNDLED, "rows and comparisons per family");
    }
}
