//! `isa disasm --cfg`: a listing split into basic blocks, as a Graphviz DOT graph.
//!
//! Everything comes from the spec's flow facts (`__DefFlow`): a block starts at the
//! first instruction, at every label, at every address a direct flow names (a branch
//! or call target, a convergence point), and after every instruction that ends a block (a branch, an indirect branch, a return, an
//! exit); a conditional one also falls through. Edges: `taken` to a branch's target,
//! `fallthrough` to the next block, `indirect` to a node standing for targets known
//! only at run time, and a dotted `converge` edge from a block that declares a
//! convergence point (`BSSY`) to the block where the lanes meet again.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use isa_gen::model::FlowKind;

use crate::codec::Codec;
use crate::listing::Listing;

/// One basic block: its instructions `first..end` (indices into the listing's words).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    pub first: usize,
    pub end: usize,
}

/// An edge between blocks (by index), or to outside the listing.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum To {
    Block(usize),
    /// An address outside the listing.
    Address(u64),
    /// Targets known only at run time.
    Indirect,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum EdgeKind {
    Taken,
    Fallthrough,
    Indirect,
    Converge,
}

impl EdgeKind {
    fn name(self) -> &'static str {
        match self {
            EdgeKind::Taken => "taken",
            EdgeKind::Fallthrough => "fallthrough",
            EdgeKind::Indirect => "indirect",
            EdgeKind::Converge => "converge",
        }
    }
}

/// The control-flow graph of a listing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Graph {
    pub blocks: Vec<Block>,
    pub edges: BTreeSet<(usize, To, EdgeKind)>,
}

/// Builds the graph of a listing.
pub fn graph(codec: &Codec, l: &Listing) -> Graph {
    let n = l.words.len();
    let addr = |i: usize| l.addr(i);
    // Addresses wrap at 2^64, as the listing's do.
    let index = |a: u64| -> Option<usize> {
        let off = a.wrapping_sub(l.base);
        (off.is_multiple_of(16) && off / 16 < n as u64).then_some((off / 16) as usize)
    };
    let facts: Vec<_> = (0..n).map(|i| codec.facts(l.words[i], addr(i))).collect();
    let ends =
        |f: &Option<crate::codec::Facts>| f.as_ref().is_some_and(|f| !f.flow.falls_through());
    let mut leaders = BTreeSet::new();
    if n > 0 {
        leaders.insert(0);
    }
    for a in l.names.keys() {
        if let Some(i) = index(*a) {
            leaders.insert(i);
        }
    }
    for (i, f) in facts.iter().enumerate() {
        let Some(f) = f else { continue };
        if let Some(t) = f.target.and_then(index) {
            leaders.insert(t);
        }
        if ends(&facts[i]) && i + 1 < n {
            leaders.insert(i + 1);
        }
    }
    let starts: Vec<usize> = leaders.into_iter().collect();
    let blocks: Vec<Block> = starts
        .iter()
        .enumerate()
        .map(|(k, &first)| Block {
            first,
            end: starts.get(k + 1).copied().unwrap_or(n),
        })
        .collect();
    let block_of: BTreeMap<usize, usize> = blocks
        .iter()
        .enumerate()
        .map(|(b, bl)| (bl.first, b))
        .collect();
    let mut edges = BTreeSet::new();
    for (b, bl) in blocks.iter().enumerate() {
        let last = bl.end - 1;
        let next = (bl.end < n).then(|| block_of[&bl.end]);
        let to_target = |t: u64| match index(t) {
            Some(i) => To::Block(block_of[&i]),
            None => To::Address(t),
        };
        // A convergence point declared anywhere in the block.
        for f in facts[bl.first..bl.end].iter().flatten() {
            if let (FlowKind::Converge, Some(t)) = (f.flow, f.target) {
                edges.insert((b, to_target(t), EdgeKind::Converge));
            }
        }
        let Some(f) = &facts[last] else {
            if let Some(nx) = next {
                edges.insert((b, To::Block(nx), EdgeKind::Fallthrough));
            }
            continue;
        };
        match f.flow {
            FlowKind::Branch => {
                if let Some(t) = f.target {
                    edges.insert((b, to_target(t), EdgeKind::Taken));
                }
            }
            FlowKind::IndirectBranch => {
                edges.insert((b, To::Indirect, EdgeKind::Indirect));
            }
            _ => {}
        }
        if f.flow.falls_through() || f.conditional {
            if let Some(nx) = next {
                edges.insert((b, To::Block(nx), EdgeKind::Fallthrough));
            }
        }
    }
    Graph { blocks, edges }
}

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// The graph as Graphviz DOT: a box per block (its labels and instructions), an edge
/// per successor.
pub fn dot(codec: &Codec, l: &Listing) -> String {
    let g = graph(codec, l);
    let mut out = String::from(
        "digraph cfg {\n  node [shape=box, fontname=\"monospace\", fontsize=10];\n  edge [fontname=\"sans-serif\", fontsize=9];\n",
    );
    for (b, bl) in g.blocks.iter().enumerate() {
        let mut label = String::new();
        for i in bl.first..bl.end {
            let addr = l.addr(i);
            for n in l.labels_at(addr) {
                let _ = write!(label, "{}:\\l", escape(n));
            }
            // As the listing gives it: a word whose text does not give it back is a
            // `.word`, what it decodes to beside it.
            let e = l.entry(codec, i);
            let _ = write!(label, "/*{addr:04x}*/ {}", escape(&e.text));
            if let Some(t) = e.decoded {
                let _ = write!(label, "  // {}", escape(&t));
            }
            label.push_str("\\l");
        }
        let _ = writeln!(out, "  b{b} [label=\"{label}\"];");
    }
    let mut outside = BTreeSet::new();
    for (from, to, kind) in &g.edges {
        let target = match to {
            To::Block(b) => format!("b{b}"),
            To::Address(a) => {
                outside.insert(*a);
                format!("a{a:x}")
            }
            To::Indirect => {
                outside.insert(u64::MAX);
                "indirect".to_string()
            }
        };
        let style = match kind {
            EdgeKind::Taken => "",
            EdgeKind::Fallthrough => ", color=gray40",
            EdgeKind::Indirect => ", style=dashed",
            EdgeKind::Converge => ", style=dotted, color=blue",
        };
        let _ = writeln!(
            out,
            "  b{from} -> {target} [label=\"{}\"{style}];",
            kind.name()
        );
    }
    for a in outside {
        if a == u64::MAX {
            out.push_str("  indirect [shape=ellipse, label=\"targets known at run time\"];\n");
        } else {
            let label = l.name_of(a).map_or(format!("{a:#x}"), str::to_string);
            let _ = writeln!(
                out,
                "  a{a:x} [shape=ellipse, label=\"{}\"];",
                escape(&label)
            );
        }
    }
    out.push_str("}\n");
    out
}
