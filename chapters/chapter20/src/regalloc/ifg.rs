//! Liveness and the interference graph.
//!
//! Liveness is computed per function over the values (not the live
//! ranges, so that two values of one live range live at once show up as
//! a self-conflict): the classic backwards data flow to a fixed point,
//! with one bitset per block, visiting the blocks in post-order. A phi's
//! input is live at the end of the predecessor it comes from, not in the
//! phi's block.
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

fn set(bits: &mut [u64], i: u32) -> bool {
    let (w, b) = (i as usize / 64, i % 64);
    let old = bits[w];
    bits[w] |= 1 << b;
    old != bits[w]
}

fn clear(bits: &mut [u64], i: u32) {
    bits[i as usize / 64] &= !(1 << (i % 64));
}

/// Computes liveness and builds the interference graph, narrowing the
/// live ranges' masks by kills and marking self-conflicts.
pub fn build(cx: &Ctx, lay: &Layout, vals: &Vals, lrgs: &mut Lrgs) -> Ifg {
    let g = cx.g;
    let nv = vals.len();
    let mut edges: FxHashSet<(u32, u32)> = FxHashSet::default();
    let mut adj: Vec<Vec<u32>> = vec![Vec::new(); lrgs.len()];
    let mut live = SparseSet::new(nv);
    let mut local_ix = vec![u32::MAX; nv];
    for (_, fblocks) in &lay.funs {
        // Values of this function, numbered locally for the bitsets.
        let mut globals: Vec<u32> = Vec::new();
        for &bi in fblocks {
            let b = &lay.blocks[bi];
            for &n in b.phis.iter().chain(&b.insts) {
                if let Some(v) = vals.get(n) {
                    if local_ix[v as usize] == u32::MAX {
                        local_ix[v as usize] = globals.len() as u32;
                        globals.push(v);
                    }
                }
            }
        }
        let local_of = LocalOf(&local_ix);
        let words = globals.len().div_ceil(64).max(1);
        let pos: rustc_hash::FxHashMap<usize, usize> =
            fblocks.iter().enumerate().map(|(i, &b)| (b, i)).collect();
        let nb = fblocks.len();
        // Per block: upward-exposed uses, definitions, phi uses at its end.
        let mut gen = vec![vec![0u64; words]; nb];
        let mut defs = vec![vec![0u64; words]; nb];
        let mut phi_uses = vec![vec![0u64; words]; nb];
        for (k, &bi) in fblocks.iter().enumerate() {
            let b = &lay.blocks[bi];
            for &n in b.insts.iter().rev() {
                if let Some(&d) = vals.get(n).and_then(|v| local_of.get(&v)) {
                    set(&mut defs[k], d);
                    clear(&mut gen[k], d);
                }
                for (_, x, _) in cx.uses(n) {
                    if let Some(&u) = vals.get(x).and_then(|v| local_of.get(&v)) {
                        set(&mut gen[k], u);
                    }
                }
            }
            for &p in &b.phis {
                if let Some(&d) = vals.get(p).and_then(|v| local_of.get(&v)) {
                    set(&mut defs[k], d);
                    clear(&mut gen[k], d);
                }
                if vals
                    .get(p)
                    .is_some_and(|v| vals.def[v as usize] == Def::Phi)
                {
                    for (i, pred) in b.preds.iter().enumerate() {
                        let Some(&pk) = pred.and_then(|pb| pos.get(&pb)) else {
                            continue;
                        };
                        if let Some(&u) = g
                            .input(p, i + 1)
                            .and_then(|x| vals.get(x))
                            .and_then(|v| local_of.get(&v))
                        {
                            set(&mut phi_uses[pk], u);
                        }
                    }
                }
            }
        }
        let mut live_in = vec![vec![0u64; words]; nb];
        let mut live_out = vec![vec![0u64; words]; nb];
        let mut changed = true;
        while changed {
            changed = false;
            for k in (0..nb).rev() {
                let b = &lay.blocks[fblocks[k]];
                let mut out = phi_uses[k].clone();
                for s in &b.succs {
                    if let Some(&sk) = pos.get(s) {
                        for (o, i) in out.iter_mut().zip(&live_in[sk]) {
                            *o |= *i;
                        }
                    }
                }
                let inn: Vec<u64> = (0..words)
                    .map(|w| gen[k][w] | (out[w] & !defs[k][w]))
                    .collect();
                if inn != live_in[k] {
                    live_in[k] = inn;
                    changed = true;
                }
                live_out[k] = out;
            }
        }
        // The backwards walk of each block.
        for (k, &bi) in fblocks.iter().enumerate() {
            let b = &lay.blocks[bi];
            live.clear();
            for (w, &bits) in live_out[k].iter().enumerate() {
                let mut bits = bits;
                while bits != 0 {
                    let t = bits.trailing_zeros();
                    bits &= bits - 1;
                    live.insert(globals[w * 64 + t as usize]);
                }
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
        for &v in &globals {
            local_ix[v as usize] = u32::MAX;
        }
    }
    for (r, list) in adj.iter_mut().enumerate() {
        lrgs.mask[r] = lrgs.mask[r].without(lrgs.killed[r]);
        list.sort_unstable();
    }
    Ifg { adj }
}

/// A function's local numbering of its values.
struct LocalOf<'a>(&'a [u32]);

impl LocalOf<'_> {
    fn get(&self, v: &u32) -> Option<&u32> {
        self.0.get(*v as usize).filter(|&&x| x != u32::MAX)
    }
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
