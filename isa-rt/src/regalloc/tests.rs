//! The allocator's parts on hand-built functions.

use alloc::vec;
use alloc::vec::Vec;

use super::check::check;
use super::*;

fn file(count: u16, per_lane: bool) -> File {
    File {
        count,
        align: 1,
        per_lane,
        reserved: Vec::new(),
    }
}

fn v(value: u32, count: u8, usage: Use) -> Operand {
    Operand {
        loc: Loc::Virtual { value, unit: 0 },
        count,
        usage,
    }
}

fn part(value: u32, unit: u8, usage: Use) -> Operand {
    Operand {
        loc: Loc::Virtual { value, unit },
        count: 1,
        usage,
    }
}

fn fixed(reg: u16, usage: Use) -> Operand {
    Operand {
        loc: Loc::Fixed { file: 0, reg },
        count: 1,
        usage,
    }
}

const NEXT: Flow<'static> = Flow {
    falls_through: true,
    targets: &[],
    divergent: false,
    converges_at: None,
};

fn regs(a: &Allocation, value: u32, width: u16) -> core::ops::Range<u16> {
    a.first[value as usize]..a.first[value as usize] + width
}

fn overlap(a: core::ops::Range<u16>, b: core::ops::Range<u16>) -> bool {
    a.start < b.end && b.start < a.end
}

#[test]
fn a_pair_interferes_with_both_halves_of_what_is_live() {
    let mut f = Function::new(vec![file(8, true)]);
    let pair = f.value(0, 2);
    let s = f.value(0, 1);
    let t = f.value(0, 1);
    f.push(&[v(s, 1, Use::WRITE)], NEXT);
    f.push(&[v(pair, 2, Use::WRITE)], NEXT);
    f.push(&[v(t, 1, Use::WRITE), part(pair, 1, Use::READ)], NEXT);
    f.push(
        &[
            v(s, 1, Use::READ),
            part(pair, 0, Use::READ),
            v(t, 1, Use::READ),
        ],
        NEXT,
    );
    let a = f.allocate().unwrap();
    check(&f, &a).unwrap();
    assert!(!overlap(regs(&a, pair, 2), regs(&a, s, 1)));
    // `t` is written where the high half is read last: it may take that register,
    // never the low half's, which lives on.
    assert_ne!(a.first[t as usize], a.first[pair as usize]);
    assert_ne!(a.first[s as usize], a.first[t as usize]);
    assert!(a.first[pair as usize] + 2 <= 8);
}

#[test]
fn a_value_read_last_may_share_with_one_written_at_once() {
    let mut f = Function::new(vec![file(1, true)]);
    let a = f.value(0, 1);
    let b = f.value(0, 1);
    f.push(&[v(a, 1, Use::WRITE)], NEXT);
    f.push(&[v(b, 1, Use::WRITE), v(a, 1, Use::READ)], NEXT);
    f.push(&[v(b, 1, Use::READ)], NEXT);
    let r = f.allocate().unwrap();
    assert_eq!(r.first, vec![0, 0]);
    check(&f, &r).unwrap();
}

#[test]
fn a_guarded_write_does_not_end_a_life() {
    let mut f = Function::new(vec![file(4, true)]);
    let a = f.value(0, 1);
    let b = f.value(0, 1);
    f.push(&[v(a, 1, Use::WRITE)], NEXT);
    f.push(&[v(b, 1, Use::WRITE)], NEXT);
    f.push(&[v(b, 1, Use::READ)], NEXT);
    f.push(&[v(a, 1, Use::COND_WRITE)], NEXT);
    f.push(&[v(a, 1, Use::READ)], NEXT);
    let r = f.allocate().unwrap();
    assert_ne!(r.first[a as usize], r.first[b as usize]);
    check(&f, &r).unwrap();
    // In a file of one register the two do not fit.
    let mut one = f.clone();
    one.files[0].count = 1;
    assert!(matches!(
        one.allocate(),
        Err(AllocError::OutOfRegisters { inst: 1, .. })
    ));
    // An unconditional write there ends it: then they may share (and in a file of one
    // register must).
    let mut g = Function::new(vec![file(1, true)]);
    let a = g.value(0, 1);
    let b = g.value(0, 1);
    g.push(&[v(a, 1, Use::WRITE)], NEXT);
    g.push(&[v(b, 1, Use::WRITE)], NEXT);
    g.push(&[v(b, 1, Use::READ)], NEXT);
    g.push(&[v(a, 1, Use::WRITE)], NEXT);
    g.push(&[v(a, 1, Use::READ)], NEXT);
    let r = g.allocate().unwrap();
    assert_eq!(r.first[a as usize], r.first[b as usize]);
}

#[test]
fn the_checker_finds_a_read_of_the_wrong_value() {
    let mut f = Function::new(vec![file(4, true)]);
    let a = f.value(0, 1);
    let b = f.value(0, 1);
    f.push(&[v(a, 1, Use::WRITE)], NEXT);
    f.push(&[v(b, 1, Use::WRITE)], NEXT);
    f.push(&[v(a, 1, Use::READ), v(b, 1, Use::READ)], NEXT);
    check(&f, &Allocation { first: vec![0, 1] }).unwrap();
    let e = check(&f, &Allocation { first: vec![2, 2] }).unwrap_err();
    assert_eq!(e.inst, 2);
    assert_eq!(e.expected, Loc::Virtual { value: a, unit: 0 });
    assert_eq!(e.found, Some(Loc::Virtual { value: b, unit: 0 }));
    assert_eq!(e.reg, (0, 2));
    // A path that leaves another value there: the meet is a conflict.
    let mut g = Function::new(vec![file(4, true)]);
    let a = g.value(0, 1);
    let b = g.value(0, 1);
    g.push(
        &[v(a, 1, Use::WRITE)],
        Flow {
            falls_through: true,
            targets: &[2],
            divergent: false,
            converges_at: None,
        },
    );
    g.push(&[v(b, 1, Use::WRITE)], NEXT);
    g.push(&[v(a, 1, Use::READ)], NEXT);
    let e = check(&g, &Allocation { first: vec![0, 0] }).unwrap_err();
    assert_eq!((e.inst, e.found), (2, None));
    // A guarded write over another value would leave a mixture: the lanes whose
    // guard is false need the old value of `b` there.
    let mut h = Function::new(vec![file(4, true)]);
    let a = h.value(0, 1);
    let b = h.value(0, 1);
    h.push(&[v(a, 1, Use::WRITE)], NEXT);
    h.push(&[v(b, 1, Use::COND_WRITE)], NEXT);
    h.push(&[v(b, 1, Use::READ), v(a, 1, Use::READ)], NEXT);
    let e = check(&h, &Allocation { first: vec![1, 1] }).unwrap_err();
    assert_eq!(
        (e.inst, e.found),
        (1, Some(Loc::Virtual { value: a, unit: 0 }))
    );
    // Fixed registers must hold their own value.
    let mut k = Function::new(vec![file(4, true)]);
    let a = k.value(0, 1);
    k.push(&[fixed(3, Use::WRITE)], NEXT);
    k.push(&[v(a, 1, Use::WRITE)], NEXT);
    k.push(&[fixed(3, Use::READ), v(a, 1, Use::READ)], NEXT);
    let e = check(&k, &Allocation { first: vec![3] }).unwrap_err();
    assert_eq!(e.expected, Loc::Fixed { file: 0, reg: 3 });
    assert_eq!(k.allocate().unwrap().first, vec![0]);
}

#[test]
fn fixed_and_reserved_registers_are_avoided_and_alignment_kept() {
    let mut files = vec![File {
        count: 8,
        align: 2,
        per_lane: true,
        reserved: vec![0, 1],
    }];
    files[0].reserved.push(7);
    let mut f = Function::new(files);
    let s = f.value(0, 1);
    let pair = f.value(0, 2);
    f.push(&[fixed(2, Use::WRITE)], NEXT);
    f.push(&[v(s, 1, Use::WRITE)], NEXT);
    f.push(&[v(pair, 2, Use::WRITE)], NEXT);
    f.push(
        &[
            fixed(2, Use::READ),
            v(s, 1, Use::READ),
            v(pair, 2, Use::READ),
        ],
        NEXT,
    );
    let a = f.allocate().unwrap();
    check(&f, &a).unwrap();
    assert_eq!(a.first[s as usize], 3);
    assert_eq!(
        a.first[pair as usize], 4,
        "an even pair past the fixed and taken registers"
    );
}

/// Instruction 1 branches (divergently) to 4; 2..3 and 4..5 are the two sides; 6 is
/// where they meet (a convergence point set up at 0 when `converge`).
fn diamond(per_lane: bool, converge: bool) -> (Function, [u32; 3]) {
    let mut f = Function::new(vec![file(4, per_lane)]);
    let (a, b, c) = (f.value(0, 1), f.value(0, 1), f.value(0, 1));
    let x = f.value(0, 1);
    f.push(
        &[v(x, 1, Use::WRITE)],
        Flow {
            converges_at: converge.then_some(6),
            ..NEXT
        },
    );
    f.push(
        &[v(x, 1, Use::READ)],
        Flow {
            falls_through: true,
            targets: &[4],
            divergent: true,
            converges_at: None,
        },
    );
    f.push(&[v(a, 1, Use::WRITE)], NEXT);
    f.push(
        &[v(a, 1, Use::READ)],
        Flow {
            falls_through: false,
            targets: &[6],
            divergent: false,
            converges_at: None,
        },
    );
    f.push(&[v(b, 1, Use::WRITE)], NEXT);
    f.push(&[v(b, 1, Use::READ)], NEXT);
    f.push(&[v(c, 1, Use::WRITE)], NEXT);
    f.push(&[v(c, 1, Use::READ)], NEXT);
    (f, [a, b, c])
}

#[test]
fn values_the_warp_shares_stay_apart_across_divergent_sides() {
    // Per lane: the two sides may share a register, and what follows too.
    let (f, [a, b, c]) = diamond(true, true);
    let r = f.allocate().unwrap();
    assert_eq!(r.first[a as usize], r.first[b as usize]);
    assert_eq!(r.first[a as usize], r.first[c as usize]);
    // Per warp: one side runs while the other waits, so the sides' values stay
    // apart; after the convergence point a register is free again.
    let (f, [a, b, c]) = diamond(false, true);
    let r = f.allocate().unwrap();
    check(&f, &r).unwrap();
    assert_ne!(r.first[a as usize], r.first[b as usize]);
    assert_eq!(r.first[c as usize], 0);
    // Without a convergence point the region runs to the end: c stays apart too.
    let (f, [a, b, c]) = diamond(false, false);
    let r = f.allocate().unwrap();
    assert_ne!(r.first[a as usize], r.first[b as usize]);
    assert!(
        r.first[c as usize] != r.first[a as usize] && r.first[c as usize] != r.first[b as usize]
    );
}

#[test]
fn running_out_names_the_point_and_what_is_live() {
    let mut f = Function::new(vec![file(2, true)]);
    let (a, b, c) = (f.value(0, 1), f.value(0, 1), f.value(0, 1));
    f.push(&[v(a, 1, Use::WRITE)], NEXT);
    f.push(&[v(b, 1, Use::WRITE)], NEXT);
    f.push(&[v(c, 1, Use::WRITE)], NEXT);
    f.push(
        &[v(a, 1, Use::READ), v(b, 1, Use::READ), v(c, 1, Use::READ)],
        NEXT,
    );
    let e = f.allocate().unwrap_err();
    let AllocError::OutOfRegisters {
        inst,
        file: in_file,
        value,
        width,
        mut live,
        divergent,
    } = e.clone()
    else {
        panic!("{e}");
    };
    live.sort();
    assert_eq!((inst, in_file, value, width, divergent), (2, 0, c, 1, None));
    assert_eq!(
        live,
        vec![
            (Loc::Virtual { value: a, unit: 0 }, 0),
            (Loc::Virtual { value: b, unit: 0 }, 1)
        ]
    );
    let text = alloc::format!("{e}");
    assert!(
        text.starts_with("instruction 2: no 1 free consecutive registers of file 0 for value %2"),
        "{text}"
    );
    // A pair needs two free registers side by side.
    let mut g = Function::new(vec![file(3, true)]);
    let (s, p) = (g.value(0, 1), g.value(0, 2));
    g.push(&[fixed(1, Use::WRITE)], NEXT);
    g.push(&[v(s, 1, Use::WRITE)], NEXT);
    g.push(&[v(p, 2, Use::WRITE)], NEXT);
    g.push(
        &[fixed(1, Use::READ), v(s, 1, Use::READ), v(p, 2, Use::READ)],
        NEXT,
    );
    assert!(matches!(
        g.allocate(),
        Err(AllocError::OutOfRegisters { width: 2, .. })
    ));
}

#[test]
fn malformed_functions_are_errors() {
    let mut f = Function::new(vec![file(2, true)]);
    f.push(
        &[],
        Flow {
            targets: &[5],
            ..NEXT
        },
    );
    assert!(matches!(
        f.allocate(),
        Err(AllocError::Invalid { inst: 0, .. })
    ));
    let mut g = Function::new(vec![file(2, true)]);
    let a = g.value(0, 1);
    g.push(&[part(a, 1, Use::READ)], NEXT);
    assert!(matches!(g.allocate(), Err(AllocError::Invalid { .. })));
    let mut h = Function::new(vec![file(2, true)]);
    h.push(
        &[Operand {
            loc: Loc::Fixed { file: 0, reg: 1 },
            count: 2,
            usage: Use::READ,
        }],
        NEXT,
    );
    assert!(matches!(h.allocate(), Err(AllocError::Invalid { .. })));
    let mut k = Function::new(vec![file(2, true)]);
    k.value(0, 3);
    assert!(matches!(
        k.allocate(),
        Err(AllocError::Invalid { inst: u32::MAX, .. })
    ));
    assert!(Function::new(vec![]).allocate().unwrap().first.is_empty());
}

#[test]
fn copies_get_their_source_s_registers() {
    let mut f = Function::new(vec![file(4, true)]);
    let (a, b, x) = (f.value(0, 1), f.value(0, 1), f.value(0, 1));
    f.push(&[v(a, 1, Use::WRITE)], NEXT);
    f.push(&[v(x, 1, Use::WRITE)], NEXT);
    let c = f.push(&[v(b, 1, Use::WRITE), v(a, 1, Use::READ)], NEXT);
    f.mark_copy(c);
    f.push(&[v(b, 1, Use::READ), v(x, 1, Use::READ)], NEXT);
    let r = f.allocate().unwrap();
    assert_eq!(r.first[a as usize], r.first[b as usize]);
    assert!(r.is_identity(&f, c as usize));
    assert!(!r.is_identity(&f, 0));
}

/// A fixed pseudo-random sequence (xorshift).
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// A random function: any operands (reads of values not yet written included), any
/// flow (branches forward and back, divergent, convergence points), fixed registers.
fn random_function(rng: &mut Rng) -> Function {
    let mut f = Function::new(vec![
        File {
            count: 6,
            align: 1,
            per_lane: true,
            reserved: vec![5],
        },
        File {
            count: 5,
            align: 2,
            per_lane: false,
            reserved: Vec::new(),
        },
    ]);
    let values: Vec<(u32, u8)> = (0..2 + rng.below(8))
        .map(|_| {
            let file = rng.below(2) as u8;
            let width = 1 + rng.below(2) as u8;
            (f.value(file, width), width)
        })
        .collect();
    let n = 1 + rng.below(24) as u32;
    for _ in 0..n {
        let mut ops = Vec::new();
        for _ in 0..rng.below(4) {
            let usage = match rng.below(5) {
                0 | 1 => Use::READ,
                2 => Use::WRITE,
                3 => Use::COND_WRITE,
                _ => Use::READ_WRITE,
            };
            if rng.below(6) == 0 {
                let file = rng.below(2) as u8;
                let reg = rng.below(4) as u16;
                ops.push(Operand {
                    loc: Loc::Fixed { file, reg },
                    count: 1,
                    usage,
                });
            } else {
                let (value, width) = values[rng.below(values.len() as u64) as usize];
                let unit = rng.below(u64::from(width)) as u8;
                let count = 1 + rng.below(u64::from(width - unit)) as u8;
                ops.push(Operand {
                    loc: Loc::Virtual { value, unit },
                    count,
                    usage,
                });
            }
        }
        let targets: Vec<u32> = (0..rng.below(3))
            .map(|_| rng.below(u64::from(n)) as u32)
            .collect();
        let converges_at = (rng.below(6) == 0).then(|| rng.below(u64::from(n)) as u32);
        let i = f.push(
            &ops,
            Flow {
                falls_through: rng.below(5) != 0,
                targets: &targets,
                divergent: rng.below(3) == 0,
                converges_at,
            },
        );
        if rng.below(8) == 0 {
            f.mark_copy(i);
        }
    }
    f
}

/// Whatever the function, an allocation the allocator gives passes the checker, keeps
/// every value inside its file, off reserved registers and aligned; some functions
/// fit and some do not.
#[test]
fn random_functions_allocate_within_their_files_and_check() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut fitted, mut full) = (0, 0);
    for _ in 0..3000 {
        let f = random_function(&mut rng);
        match f.allocate() {
            Ok(a) => {
                fitted += 1;
                if let Err(e) = check(&f, &a) {
                    panic!("{e}\n{f:?}\n{a:?}");
                }
                for (k, val) in f.values().iter().enumerate() {
                    let file = &f.files()[val.file as usize];
                    let r = regs(&a, k as u32, u16::from(val.width));
                    assert!(r.end <= file.count, "{f:?} {a:?}");
                    assert!(!file.reserved.iter().any(|x| r.contains(x)), "{f:?} {a:?}");
                    if val.width > 1 {
                        assert_eq!(r.start % u16::from(file.align), 0, "{f:?} {a:?}");
                    }
                }
            }
            Err(AllocError::OutOfRegisters { live, .. }) => {
                full += 1;
                assert!(live.iter().all(|&(_, r)| r < 6));
            }
            Err(e) => panic!("{e}"),
        }
    }
    assert!(
        fitted > 1000 && full > 200,
        "{fitted} fitted, {full} did not"
    );
}

#[test]
fn blocks_successors_and_regions() {
    let mut f = Function::new(vec![file(2, false)]);
    f.push(
        &[],
        Flow {
            converges_at: Some(5),
            ..NEXT
        },
    ); // 0
    f.push(
        &[],
        Flow {
            falls_through: true,
            targets: &[3],
            divergent: true,
            converges_at: None,
        },
    ); // 1
    f.push(
        &[],
        Flow {
            falls_through: false,
            targets: &[5],
            divergent: false,
            converges_at: None,
        },
    ); // 2
    f.push(&[], NEXT); // 3
    f.push(&[], NEXT); // 4
    f.push(&[], NEXT); // 5
    f.push(
        &[],
        Flow {
            falls_through: true,
            targets: &[1],
            divergent: true,
            converges_at: None,
        },
    ); // 6
    f.push(
        &[],
        Flow {
            falls_through: false,
            ..NEXT
        },
    ); // 7
    let cfg = cfg::Cfg::new(&f);
    // Blocks start at 0, at every target (1, 3, 5), after every branch (2, 7).
    assert_eq!(cfg.start, vec![0, 1, 2, 3, 5, 7, 8]);
    assert_eq!(cfg.block_of, vec![0, 1, 2, 3, 3, 4, 4, 5]);
    assert_eq!(
        cfg.succs,
        vec![vec![1], vec![2, 3], vec![4], vec![4], vec![1, 5], vec![]]
    );
    assert_eq!(
        cfg.preds,
        vec![vec![], vec![0, 4], vec![1], vec![1], vec![2, 3], vec![4]]
    );
    // The branch at 1 parts the lanes until 5 (block 4); the one at 6 comes after that
    // point on every path, so no barrier bounds it: its region is all it reaches.
    assert_eq!(cfg.regions, vec![vec![2, 3], vec![1, 2, 3, 4, 5]]);
}

#[test]
fn the_function_reports_what_it_holds() {
    let mut f = Function::new(vec![file(4, true), file(2, false)]);
    assert!(f.is_empty());
    let a = f.value(1, 2);
    assert_eq!(f.values(), &[Value { file: 1, width: 2 }]);
    let ops = [v(a, 2, Use::WRITE)];
    f.push(
        &ops,
        Flow {
            targets: &[0],
            ..NEXT
        },
    );
    f.push(&[part(a, 1, Use::READ)], NEXT);
    assert!(!f.is_empty());
    assert_eq!(f.len(), 2);
    assert_eq!(f.operands(0), &ops);
    assert_eq!(f.operands(1), &[part(a, 1, Use::READ)]);
    assert_eq!((f.targets(0), f.targets(1)), (&[0][..], &[][..]));
    assert_eq!(f.files().len(), 2);
    // A value too wide for its file is named in the error.
    let mut g = Function::new(vec![file(2, true)]);
    g.value(0, 3);
    let e = g.allocate().unwrap_err();
    assert_eq!(
        alloc::format!("{e}"),
        "instruction 4294967295: a value of no file, of width 0, or wider than its file"
    );
}

#[test]
fn a_copy_between_different_registers_is_no_identity() {
    let mut f = Function::new(vec![file(4, true)]);
    let (a, b) = (f.value(0, 1), f.value(0, 1));
    f.push(&[v(a, 1, Use::WRITE)], NEXT);
    let c = f.push(&[v(b, 1, Use::WRITE), v(a, 1, Use::READ)], NEXT);
    f.mark_copy(c);
    f.push(&[v(a, 1, Use::READ), v(b, 1, Use::READ)], NEXT);
    let r = f.allocate().unwrap();
    assert_ne!(r.first[a as usize], r.first[b as usize]);
    assert!(!r.is_identity(&f, c as usize));
    assert!(r.is_identity(&f, c as usize) == (r.first[0] == r.first[1]));
    assert!(Allocation { first: vec![2, 2] }.is_identity(&f, c as usize));
    // A copy with nothing read is none either.
    let mut g = Function::new(vec![file(4, true)]);
    let a = g.value(0, 1);
    let c = g.push(&[v(a, 1, Use::WRITE)], NEXT);
    g.mark_copy(c);
    assert!(!Allocation { first: vec![0] }.is_identity(&g, 0));
}

#[test]
fn the_checker_names_registers_and_values_exactly() {
    // Two files; a pair in the second, read by halves; a fixed register of the second.
    let mut f = Function::new(vec![file(3, true), file(6, true)]);
    let s = f.value(0, 1);
    let pair = f.value(1, 2);
    let t = f.value(1, 1);
    let fixed1 = |reg, usage| Operand {
        loc: Loc::Fixed { file: 1, reg },
        count: 1,
        usage,
    };
    f.push(
        &[
            v(s, 1, Use::WRITE),
            v(pair, 2, Use::WRITE),
            fixed1(4, Use::WRITE),
        ],
        NEXT,
    );
    f.push(&[v(t, 1, Use::WRITE)], NEXT);
    f.push(&[part(pair, 1, Use::READ), v(s, 1, Use::READ)], NEXT);
    f.push(&[fixed1(4, Use::READ), v(t, 1, Use::READ)], NEXT);
    check(
        &f,
        &Allocation {
            first: vec![0, 0, 2],
        },
    )
    .unwrap();
    // `t` over the pair's high half: the read of that half finds `t`.
    let e = check(
        &f,
        &Allocation {
            first: vec![0, 0, 1],
        },
    )
    .unwrap_err();
    assert_eq!(
        (e.inst, e.expected, e.reg, e.found),
        (
            2,
            Loc::Virtual {
                value: pair,
                unit: 1
            },
            (1, 1),
            Some(Loc::Virtual { value: t, unit: 0 })
        )
    );
    assert_eq!(
        alloc::format!("{e}"),
        "instruction 2: reads Virtual { value: 1, unit: 1 } from register 1 of file 1, which holds Some(Virtual { value: 2, unit: 0 })"
    );
    // `t` over the fixed register: its read finds `t`.
    let e = check(
        &f,
        &Allocation {
            first: vec![0, 0, 4],
        },
    )
    .unwrap_err();
    assert_eq!(
        (e.inst, e.expected, e.reg, e.found),
        (
            3,
            Loc::Fixed { file: 1, reg: 4 },
            (1, 4),
            Some(Loc::Virtual { value: t, unit: 0 })
        )
    );
    // The pair past the file's last register: no register to read.
    let e = check(
        &f,
        &Allocation {
            first: vec![0, 5, 2],
        },
    )
    .unwrap_err();
    assert_eq!(
        (e.inst, e.expected, e.found),
        (
            2,
            Loc::Virtual {
                value: pair,
                unit: 1
            },
            None
        )
    );
    // `s` over what the second file's register 0 holds is no conflict: files differ.
    check(
        &f,
        &Allocation {
            first: vec![0, 0, 3],
        },
    )
    .unwrap();
    // An allocation of another function is refused; an empty function checks.
    assert!(check(&f, &Allocation { first: vec![0, 0] }).is_err());
    check(
        &Function::new(vec![file(2, true)]),
        &Allocation { first: vec![] },
    )
    .unwrap();
}

/// Values of a shared file on the two sides of a divergent branch fill a file of two
/// registers: the error says it is the branch's region, not what is live at the point.
#[test]
fn running_out_in_divergent_code_names_the_branch() {
    let (f, _) = diamond(false, true);
    let mut g = f.clone();
    g.files[0].count = 1;
    let e = g.allocate().unwrap_err();
    assert!(
        matches!(
            e,
            AllocError::OutOfRegisters {
                divergent: Some(1),
                inst: 4,
                ..
            }
        ),
        "{e}"
    );
    let text = alloc::format!("{e}");
    assert!(
        text.contains("held by the values that may run apart after the divergent branch at 1:"),
        "{text}"
    );
    // Per lane, the sides share the one register.
    let (h, _) = diamond(true, true);
    let mut h = h;
    h.files[0].count = 1;
    h.allocate().unwrap();
}

/// A copy takes its source's register even where first fit would choose another.
#[test]
fn a_copy_prefers_its_source_over_the_first_free_register() {
    let mut f = Function::new(vec![file(4, true)]);
    let (y, a, b) = (f.value(0, 1), f.value(0, 1), f.value(0, 1));
    f.push(&[v(y, 1, Use::WRITE)], NEXT);
    f.push(&[v(a, 1, Use::WRITE)], NEXT);
    f.push(&[v(y, 1, Use::READ)], NEXT);
    let c = f.push(&[v(b, 1, Use::WRITE), v(a, 1, Use::READ)], NEXT);
    f.push(&[v(b, 1, Use::READ)], NEXT);
    let plain = f.allocate().unwrap();
    assert_eq!(
        (
            plain.first[y as usize],
            plain.first[a as usize],
            plain.first[b as usize]
        ),
        (0, 1, 0)
    );
    f.mark_copy(c);
    let r = f.allocate().unwrap();
    assert_eq!((r.first[a as usize], r.first[b as usize]), (1, 1));
    assert!(r.is_identity(&f, c as usize));
}

/// Two divergent regions one after the other, in a shared file placed after a file of
/// 64 registers: each region keeps its two sides apart, and the second reuses the
/// first's registers.
#[test]
fn each_divergent_region_is_its_own() {
    let mut f = Function::new(vec![file(64, true), file(70, false)]);
    let vals: Vec<u32> = (0..4).map(|_| f.value(1, 1)).collect();
    let w = |k: usize, usage| Operand {
        loc: Loc::Virtual {
            value: vals[k],
            unit: 0,
        },
        count: 1,
        usage,
    };
    for d in 0..2u32 {
        let at = 6 * d;
        let (a, b) = (2 * d as usize, 2 * d as usize + 1);
        f.push(
            &[],
            Flow {
                converges_at: Some(at + 6),
                ..NEXT
            },
        );
        f.push(
            &[],
            Flow {
                falls_through: true,
                targets: &[at + 4],
                divergent: true,
                converges_at: None,
            },
        );
        f.push(&[w(a, Use::WRITE)], NEXT);
        f.push(
            &[w(a, Use::READ)],
            Flow {
                falls_through: false,
                targets: &[at + 6],
                divergent: false,
                converges_at: None,
            },
        );
        f.push(&[w(b, Use::WRITE)], NEXT);
        f.push(&[w(b, Use::READ)], NEXT);
    }
    f.push(&[], NEXT);
    let r = f.allocate().unwrap();
    check(&f, &r).unwrap();
    let g = |k: usize| r.first[vals[k] as usize];
    assert_ne!(g(0), g(1));
    assert_ne!(g(2), g(3));
    assert_eq!(
        (g(0), g(2)),
        (0, 0),
        "the second region reuses the first's registers"
    );
    // With one register, the sides of either region do not fit.
    let mut one = f.clone();
    one.files[1].count = 1;
    assert!(matches!(
        one.allocate(),
        Err(AllocError::OutOfRegisters {
            divergent: Some(1),
            ..
        })
    ));
}

/// A value fits a hole between two lives of another in the same register, touching
/// both ends (a read and a write at the same instruction do not overlap).
#[test]
fn a_value_fills_a_hole_exactly() {
    let mut f = Function::new(vec![file(1, true)]);
    let (x, y) = (f.value(0, 1), f.value(0, 1));
    f.push(&[v(x, 1, Use::WRITE)], NEXT);
    f.push(&[], NEXT);
    f.push(&[v(y, 1, Use::WRITE), v(x, 1, Use::READ)], NEXT);
    f.push(&[], NEXT);
    f.push(&[v(x, 1, Use::WRITE), v(y, 1, Use::READ)], NEXT);
    f.push(&[], NEXT);
    f.push(&[v(x, 1, Use::READ)], NEXT);
    let r = f.allocate().unwrap();
    assert_eq!(r.first, vec![0, 0]);
    check(&f, &r).unwrap();
    // With a second register free from `y`'s start, `y` takes it rather than the hole.
    f.files[0].count = 2;
    assert_eq!(f.allocate().unwrap().first, vec![0, 1]);
}

/// Out of registers where the value's own point is fuller than its divergent region:
/// the error names the point, not the region.
#[test]
fn running_out_before_the_branch_names_the_point() {
    let mut f = Function::new(vec![file(2, false)]);
    let (x1, x2, val) = (f.value(0, 1), f.value(0, 1), f.value(0, 1));
    f.push(&[v(x1, 1, Use::WRITE), v(x2, 1, Use::WRITE)], NEXT);
    f.push(&[v(val, 1, Use::WRITE)], NEXT);
    f.push(
        &[v(x1, 1, Use::READ), v(x2, 1, Use::READ)],
        Flow {
            falls_through: true,
            targets: &[4],
            divergent: true,
            converges_at: None,
        },
    );
    f.push(&[v(val, 1, Use::READ)], NEXT);
    f.push(&[v(val, 1, Use::READ)], NEXT);
    let e = f.allocate().unwrap_err();
    let AllocError::OutOfRegisters {
        inst,
        value,
        divergent,
        live,
        ..
    } = e
    else {
        panic!("{e}")
    };
    assert_eq!((inst, value, divergent, live.len()), (1, val, None, 2));
}

/// A pair finds no two registers side by side where a single one has just come free:
/// what is live there leaves out the value whose life ended at that point.
#[test]
fn what_is_live_leaves_out_a_life_ending_there() {
    let mut f = Function::new(vec![file(3, true)]);
    let (s0, s1, s2, p) = (f.value(0, 1), f.value(0, 1), f.value(0, 1), f.value(0, 2));
    f.push(&[v(s0, 1, Use::WRITE)], NEXT);
    f.push(&[v(s1, 1, Use::WRITE)], NEXT);
    f.push(&[v(s2, 1, Use::WRITE)], NEXT);
    f.push(&[v(p, 2, Use::WRITE), v(s1, 1, Use::READ)], NEXT);
    f.push(
        &[v(s0, 1, Use::READ), v(s2, 1, Use::READ), v(p, 2, Use::READ)],
        NEXT,
    );
    let e = f.allocate().unwrap_err();
    let AllocError::OutOfRegisters {
        inst,
        value,
        mut live,
        ..
    } = e
    else {
        panic!("{e}")
    };
    live.sort();
    assert_eq!((inst, value), (3, p));
    assert_eq!(
        live,
        vec![
            (Loc::Virtual { value: s0, unit: 0 }, 0),
            (Loc::Virtual { value: s2, unit: 0 }, 2)
        ]
    );
}

/// As many hold the file at the value's own point as in its region: the point is named.
#[test]
fn a_tie_between_the_point_and_the_region_names_the_point() {
    let mut f = Function::new(vec![file(2, false)]);
    let (x, y, val) = (f.value(0, 1), f.value(0, 1), f.value(0, 1));
    let all = [v(x, 1, Use::READ), v(y, 1, Use::READ), v(val, 1, Use::READ)];
    f.push(&[v(x, 1, Use::WRITE), v(y, 1, Use::WRITE)], NEXT);
    f.push(&[v(val, 1, Use::WRITE)], NEXT);
    f.push(
        &[],
        Flow {
            falls_through: true,
            targets: &[4],
            divergent: true,
            converges_at: None,
        },
    );
    f.push(&all, NEXT);
    f.push(&all, NEXT);
    let e = f.allocate().unwrap_err();
    let AllocError::OutOfRegisters {
        inst,
        value,
        divergent,
        live,
        ..
    } = e
    else {
        panic!("{e}")
    };
    assert_eq!((inst, value, divergent, live.len()), (1, val, None, 2));
}

/// A copy of a pair takes its source's registers high in the file, though lower ones
/// are free by then.
#[test]
fn a_pair_copy_takes_its_source_s_registers() {
    let mut f = Function::new(vec![file(6, true)]);
    let (a, b) = (f.value(0, 2), f.value(0, 2));
    f.push(
        &(0..4).map(|r| fixed(r, Use::WRITE)).collect::<Vec<_>>(),
        NEXT,
    );
    f.push(&[v(a, 2, Use::WRITE)], NEXT);
    f.push(&[fixed(0, Use::READ), fixed(1, Use::READ)], NEXT);
    let c = f.push(&[v(b, 2, Use::WRITE), v(a, 2, Use::READ)], NEXT);
    f.push(
        &[v(b, 2, Use::READ), fixed(2, Use::READ), fixed(3, Use::READ)],
        NEXT,
    );
    assert_eq!(f.allocate().unwrap().first, vec![4, 0]);
    f.mark_copy(c);
    let r = f.allocate().unwrap();
    assert_eq!(r.first, vec![4, 4]);
    check(&f, &r).unwrap();
}

/// A fixed pair written, then its high half read alone: the checker follows each
/// register of the pair.
#[test]
fn the_checker_follows_each_register_of_a_fixed_tuple() {
    let mut f = Function::new(vec![file(4, true)]);
    let a = f.value(0, 1);
    f.push(
        &[Operand {
            loc: Loc::Fixed { file: 0, reg: 2 },
            count: 2,
            usage: Use::WRITE,
        }],
        NEXT,
    );
    f.push(&[v(a, 1, Use::WRITE)], NEXT);
    f.push(&[fixed(3, Use::READ), v(a, 1, Use::READ)], NEXT);
    let r = f.allocate().unwrap();
    assert_eq!(r.first, vec![0]);
    check(&f, &r).unwrap();
    let e = check(&f, &Allocation { first: vec![3] }).unwrap_err();
    assert_eq!((e.inst, e.expected), (2, Loc::Fixed { file: 0, reg: 3 }));
}
