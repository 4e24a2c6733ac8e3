//! Live ranges (Simple's LRG): the values that must share one location.
//!
//! A phi and its inputs are one live range (no copies on the edges), and
//! so are a two-address instruction's result and the input it overwrites.
//! A union-find over the value numbers builds them (path halving, union
//! by size); then each live range is numbered densely and gets the
//! registers all its definitions and uses allow (the intersection of
//! their masks), its count of definitions and uses weighted by loop depth
//! (the cost of spilling it), and whether only splits and phis touch it
//! (then it may live in a stack slot).

use super::build::{Ctx, Def, Layout, Vals};
use crate::mach::{mach, RegMask};
use smallvec::SmallVec;

/// Union-find over value numbers.
pub struct UnionFind {
    parent: Vec<u32>,
    size: Vec<u32>,
}

impl UnionFind {
    pub fn new(n: usize) -> Self {
        UnionFind {
            parent: (0..n as u32).collect(),
            size: vec![1; n],
        }
    }

    pub fn find(&mut self, mut x: u32) -> u32 {
        while self.parent[x as usize] != x {
            let p = self.parent[self.parent[x as usize] as usize];
            self.parent[x as usize] = p;
            x = p;
        }
        x
    }

    pub fn union(&mut self, a: u32, b: u32) {
        let (mut a, mut b) = (self.find(a), self.find(b));
        if a == b {
            return;
        }
        if self.size[a as usize] < self.size[b as usize] {
            std::mem::swap(&mut a, &mut b);
        }
        self.parent[b as usize] = a;
        self.size[a as usize] += self.size[b as usize];
    }
}

/// The live ranges of one round.
pub struct Lrgs {
    /// By value number: its live range.
    pub of: Vec<u32>,
    /// By live range: its values.
    pub members: Vec<SmallVec<[u32; 2]>>,
    /// The registers its definitions and uses allow.
    pub mask: Vec<RegMask>,
    /// Registers clobbered while it is live (calls, division).
    pub killed: Vec<RegMask>,
    /// Definitions and uses, each weighted 8^depth.
    pub cost: Vec<u64>,
    /// Touched by splits and phis only: may take a stack slot.
    pub can_stack: Vec<bool>,
    /// Every value of it is a constant, cheaper to compute again at each
    /// use than to keep in a register.
    pub remat: Vec<bool>,
    /// It is one constant with one use: already a copy made for that use,
    /// so giving it up again would only make the same copy again.
    pub remat_once: Vec<bool>,
    /// A stack place the calling convention fixes.
    pub fixed: Vec<Option<super::Loc>>,
    /// Two values of it are live at once (through a phi or a two-address
    /// instruction): it must be split there.
    pub self_conflict: Vec<bool>,
    /// The first few such pairs of each: (the value defined, a value of
    /// the same live range live past that definition).
    pub conflicts: Vec<SmallVec<[(u32, u32); 2]>>,
    /// Live ranges joined to it by a split (coloring prefers their
    /// register).
    pub partners: Vec<SmallVec<[u32; 2]>>,
    /// Chapter 21: merged into another by coalescing (no values left).
    pub dead: Vec<bool>,
}

impl Lrgs {
    pub fn len(&self) -> usize {
        self.mask.len()
    }
    pub fn is_empty(&self) -> bool {
        self.mask.is_empty()
    }
}

/// Builds the live ranges: unions phis with their inputs and two-address
/// results with their input, then collects masks and costs.
pub fn build(cx: &Ctx, lay: &Layout, vals: &Vals) -> Lrgs {
    let g = cx.g;
    let nv = vals.len();
    let mut uf = UnionFind::new(nv);
    for b in &lay.blocks {
        for &p in &b.phis {
            let Some(pv) = vals.get(p) else { continue };
            if vals.def[pv as usize] != Def::Phi {
                continue;
            }
            for i in 1..g.n_ins(p) {
                if let Some(x) = g.input(p, i).and_then(|x| vals.get(x)) {
                    uf.union(pv, x);
                }
            }
        }
        for &n in &b.insts {
            let (Some(m), Some(d)) = (mach(g, n), vals.get(n)) else {
                continue;
            };
            if let Some(i) = crate::cpu::two_address(cx.cpu(), m) {
                if let Some(x) = g.input(n, i).and_then(|x| vals.get(x)) {
                    uf.union(d, x);
                }
            }
        }
    }
    // Dense numbers, in the order of the values (deterministic).
    let mut dense = vec![u32::MAX; nv];
    let mut of = vec![0u32; nv];
    let mut members: Vec<SmallVec<[u32; 2]>> = Vec::new();
    for v in 0..nv as u32 {
        let r = uf.find(v) as usize;
        if dense[r] == u32::MAX {
            dense[r] = members.len() as u32;
            members.push(SmallVec::new());
        }
        of[v as usize] = dense[r];
        members[dense[r] as usize].push(v);
    }
    let n = members.len();
    let mut l = Lrgs {
        of,
        members,
        mask: vec![cx.allowed; n],
        killed: vec![RegMask::EMPTY; n],
        cost: vec![0; n],
        can_stack: vec![true; n],
        remat: vec![true; n],
        remat_once: vec![false; n],
        fixed: vec![None; n],
        self_conflict: vec![false; n],
        conflicts: vec![SmallVec::new(); n],
        partners: vec![SmallVec::new(); n],
        dead: vec![false; n],
    };
    for v in 0..nv {
        let r = l.of[v] as usize;
        l.mask[r] = l.mask[r].and(vals.mask[v]);
        if vals.fixed[v].is_some() {
            l.fixed[r] = vals.fixed[v];
        }
        let depth = lay.blocks[vals.block[v] as usize].depth;
        l.cost[r] = l.cost[r].saturating_add(weight(depth));
        if !matches!(vals.def[v], Def::Split | Def::Phi) {
            l.can_stack[r] = false;
        }
        let node = vals.nodes[v];
        l.remat_once[r] =
            l.members[r].len() == 1 && super::split::remat(g, node) && g.outputs(node).len() == 1;
        if !super::split::remat(g, node) {
            l.remat[r] = false;
        }
    }
    for b in &lay.blocks {
        let w = weight(b.depth);
        for &n in &b.insts {
            let is_split = matches!(crate::mach::op(g, n), Some(crate::mach::Op::Split));
            for (_, x, mask) in cx.uses(n) {
                let Some(xv) = vals.get(x) else { continue };
                let r = l.of[xv as usize] as usize;
                l.mask[r] = l.mask[r].and(mask);
                l.cost[r] = l.cost[r].saturating_add(w);
                if !is_split {
                    l.can_stack[r] = false;
                } else if let Some(d) = vals.get(n) {
                    let dr = l.of[d as usize];
                    if dr as usize != r {
                        if !l.partners[r].contains(&dr) {
                            l.partners[r].push(dr);
                        }
                        if !l.partners[dr as usize].contains(&(r as u32)) {
                            l.partners[dr as usize].push(r as u32);
                        }
                    }
                }
            }
        }
    }
    l
}

/// 8^depth, capped.
pub fn weight(depth: u32) -> u64 {
    8u64.saturating_pow(depth.min(20))
}
