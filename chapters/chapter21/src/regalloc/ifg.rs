//! Liveness and the interference graph.
//!
//! Liveness is computed over the values (not the live ranges, so that
//! two values of one live range live at once show up as a self-conflict),
//! one value at a time: from each use, walk the control flow backwards to
//! the definition, marking the value live out of every block passed
//! (Appel's "path exploration"; the work is the size of the answer). A
//! phi's input is live at the end of the predecessor it comes from, not
//! in the phi's block.
//!
//! Then each block is walked backwards from what is live at its end,
//! keeping the live values in a sparse set (constant time to add and
//! remove, time proportional to its size to list). At each definition the
//! defined value interferes with every value live past it, except the one
//! it copies if it is a split (the two hold the same value); a value of
//! the same live range is a self-conflict instead. An instruction with a
//! kill mask (a call, a New, x86 division and flag-changing arithmetic)
//! removes those registers from every live range live across it. Phis
//! (and a function's parameters) are defined together at the top of
//! their block. Each use narrows its live range's mask.

use super::build::{Ctx, Def, Layout, Vals};
use super::live_range::Lrgs;
use crate::mach::{mach, Op};
use rustc_hash::FxHashSet;

/// The interference graph: adjacency lists over live ranges.
pub struct Ifg {
    pub adj: Vec<Vec<u32>>,
}

/// A set of small integers with constant-time add and remove.
struct SparseSet {
    dense: Vec<u32>,
    pos: Vec<u32>,
}

impl SparseSet {
    fn new(n: usize) -> Self {
        SparseSet {
            dense: Vec::new(),
            pos: vec![u32::MAX; n],
        }
    }
    fn contains(&self, x: u32) -> bool {
        self.pos[x as usize] != u32::MAX
    }
    fn insert(&mut self, x: u32) {
        if !self.contains(x) {
            self.pos[x as usize] = self.dense.len() as u32;
            self.dense.push(x);
        }
    }
    fn remove(&mut self, x: u32) {
        let p = self.pos[x as usize];
        if p == u32::MAX {
            return;
        }
        let last = self.dense.pop().unwrap_or(x);
        if last != x {
            self.dense[p as usize] = last;
            self.pos[last as usize] = p;
        }
        self.pos[x as usize] = u32::MAX;
    }
    fn clear(&mut self) {
        for &x in &self.dense {
            self.pos[x as usize] = u32::MAX;
        }
        self.dense.clear();
    }
}

/// What is live at the end of every block, as a list of values per block
/// (by [`Layout::blocks`] index, each list in increasing order).
///
/// Per value rather than per block: from each block that uses a value
/// before (or without) defining it, walk the control flow backwards,
/// marking the value live into each block and out of its predecessors,
/// until the block that defines it or a block already marked. A phi's
/// input starts the walk at the end of its predecessor. The work is the
/// size of the answer, where a bitset per block would cost the blocks
/// times the values of a function (quadratic on one huge function).
fn live_out(cx: &Ctx, lay: &Layout, vals: &Vals) -> Vec<Vec<u32>> {
    let g = cx.g;
    let nb = lay.blocks.len();
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); nb];
    for (bi, b) in lay.blocks.iter().enumerate() {
        for &s in &b.succs {
            preds[s].push(bi);
        }
    }
    // (value, block, live out only): a use in the block, or a phi input
    // live at the end of the block it comes from.
    let mut starts: Vec<(u32, u32, bool)> = Vec::new();
    for (bi, b) in lay.blocks.iter().enumerate() {
        for &n in &b.insts {
            for (_, x, _) in cx.uses(n) {
                if let Some(u) = vals.get(x) {
                    // In SSA a use in its definition's block follows it.
                    if vals.block[u as usize] as usize != bi {
                        starts.push((u, bi as u32, false));
                    }
                }
            }
        }
        for &p in &b.phis {
            if vals
                .get(p)
                .is_some_and(|v| vals.def[v as usize] == Def::Phi)
            {
                for (i, pred) in b.preds.iter().enumerate() {
                    let Some(pb) = *pred else { continue };
                    if let Some(u) = g.input(p, i + 1).and_then(|x| vals.get(x)) {
                        starts.push((u, pb as u32, true));
                    }
                }
            }
        }
    }
    starts.sort_unstable();
    starts.dedup();
    let mut out: Vec<Vec<u32>> = vec![Vec::new(); nb];
    // The value (plus one) last marked live into / out of each block.
    let mut in_mark = vec![0u32; nb];
    let mut out_mark = vec![0u32; nb];
    let mut work: Vec<usize> = Vec::new();
    for &(v, b, out_only) in &starts {
        let (stamp, def) = (v + 1, vals.block[v as usize] as usize);
        if !out_only && in_mark[b as usize] != stamp {
            in_mark[b as usize] = stamp;
            work.push(b as usize);
        }
        let mut mark_out = |p: usize, work: &mut Vec<usize>| {
            if out_mark[p] != stamp {
                out_mark[p] = stamp;
                out[p].push(v);
            }
            if p != def && in_mark[p] != stamp {
                in_mark[p] = stamp;
                work.push(p);
            }
        };
        if out_only {
            mark_out(b as usize, &mut work);
        }
        while let Some(k) = work.pop() {
            for &p in &preds[k] {
                mark_out(p, &mut work);
            }
        }
    }
    out
}

/// Computes liveness and builds the interference graph, narrowing the
/// live ranges' masks by kills and marking self-conflicts.
pub fn build(cx: &Ctx, lay: &Layout, vals: &Vals, lrgs: &mut Lrgs) -> Ifg {
    let g = cx.g;
    let mut edges: FxHashSet<(u32, u32)> = FxHashSet::default();
    let mut adj: Vec<Vec<u32>> = vec![Vec::new(); lrgs.len()];
    let mut live = SparseSet::new(vals.len());
    let live_out = live_out(cx, lay, vals);
    for (_, fblocks) in &lay.funs {
        // The backwards walk of each block.
        for &bi in fblocks {
            let b = &lay.blocks[bi];
            live.clear();
            for &v in &live_out[bi] {
                live.insert(v);
            }
            for &n in b.insts.iter().rev() {
                if let Some(d) = vals.get(n) {
                    live.remove(d);
                    let copy_of = match mach(g, n) {
                        Some(m) if m.op == Op::Split => g.input(n, 1).and_then(|x| vals.get(x)),
                        _ => None,
                    };
                    for &w in &live.dense {
                        if Some(w) == copy_of {
                            continue;
                        }
                        interfere(lrgs, &mut edges, &mut adj, d, w);
                    }
                }
                if let Some(kill) = mach(g, n).and_then(|m| crate::cpu::kill_mask(cx.target, m)) {
                    for &w in &live.dense {
                        let r = lrgs.of[w as usize] as usize;
                        lrgs.killed[r] = lrgs.killed[r].or(kill);
                    }
                }
                for (_, x, _) in cx.uses(n) {
                    if let Some(u) = vals.get(x) {
                        live.insert(u);
                    }
                }
            }
            let phis: Vec<u32> = b.phis.iter().filter_map(|&p| vals.get(p)).collect();
            for &p in &phis {
                live.remove(p);
            }
            for (i, &p) in phis.iter().enumerate() {
                for &w in &live.dense {
                    interfere(lrgs, &mut edges, &mut adj, p, w);
                }
                for &q in &phis[i + 1..] {
                    if lrgs.of[p as usize] != lrgs.of[q as usize] {
                        interfere(lrgs, &mut edges, &mut adj, p, q);
                    }
                }
            }
        }
    }
    for (r, list) in adj.iter_mut().enumerate() {
        lrgs.mask[r] = lrgs.mask[r].without(lrgs.killed[r]);
        list.sort_unstable();
    }
    Ifg { adj }
}

/// Values `a` and `b` are live at once.
fn interfere(
    lrgs: &mut Lrgs,
    edges: &mut FxHashSet<(u32, u32)>,
    adj: &mut [Vec<u32>],
    a: u32,
    b: u32,
) {
    let (ra, rb) = (lrgs.of[a as usize], lrgs.of[b as usize]);
    if ra == rb {
        if a != b {
            lrgs.self_conflict[ra as usize] = true;
            let c = &mut lrgs.conflicts[ra as usize];
            if c.len() < 8 && !c.contains(&(a, b)) {
                c.push((a, b));
            }
        }
        return;
    }
    let key = (ra.min(rb), ra.max(rb));
    if edges.insert(key) {
        adj[ra as usize].push(rb);
        adj[rb as usize].push(ra);
    }
}
