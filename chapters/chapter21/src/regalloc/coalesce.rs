//! Removing copies (chapter 21): conservative coalescing before colouring,
//! and forwarding a copy into its one use after it.
//!
//! Splitting joins two live ranges by a copy (a split). If the two do not
//! interfere, one register could hold both, and the copy would copy
//! nothing. **Coalescing** merges such a pair into one live range before
//! colouring, when that is safe: the two masks must share a register (the
//! merged range may take only registers both allow), neither may have a
//! place the calling convention fixes, and the merged range must stay
//! colourable. The last is Briggs's conservative test: the merged range
//! has fewer neighbours of *significant* degree (at least as many
//! neighbours as the registers they may take) than the registers it may
//! take. Whatever its other neighbours take, they are simplified before
//! it, so it is simplified too, and finds a register. A merge that fails
//! the test is not made: the test runs on the graph as it is, so there is
//! nothing to undo. A merge makes the copy's two sides one live range,
//! which colouring gives one register, and the copy goes
//! ([`super::frame`]).
//!
//! **Forwarding** runs after colouring, on the copies left: a copy whose
//! single use is the very next instruction, in an operand that accepts
//! the copy's source register and is not the operand a two-address
//! instruction overwrites, is dropped, and the use reads the source. Being
//! next to each other proves that nothing in between changes the source.
//! Phis and control nodes are left alone: their operands are where the
//! block's successors expect them.

use super::build::{Layout, Vals};
use super::live_range::Lrgs;
use super::Loc;
use crate::graph::{Graph, NodeId};
use crate::mach::{mach, Op, RegMask, Target};
use rustc_hash::{FxHashMap, FxHashSet};

/// Merges the pairs of live ranges that the splits of the program join,
/// where Briggs's test allows. `adj` is the interference graph, which is
/// kept up to date. Returns the number of merges.
pub fn coalesce(
    g: &Graph,
    lay: &Layout,
    vals: &Vals,
    lrgs: &mut Lrgs,
    adj: &mut [Vec<u32>],
) -> u32 {
    let n = lrgs.len();
    let colored = |l: &Lrgs, r: usize| {
        !l.dead[r] && l.fixed[r].is_none() && !l.mask[r].is_empty() && !l.self_conflict[r]
    };
    // Each range's degree, counted as colouring counts it (neighbours
    // whose masks overlap its own).
    let overlaps = |l: &Lrgs, a: usize, b: usize| !l.mask[a].and(l.mask[b]).is_empty();
    let mut degree = vec![0u32; n];
    for r in 0..n {
        if colored(lrgs, r) {
            degree[r] = adj[r]
                .iter()
                .filter(|&&x| colored(lrgs, x as usize) && overlaps(lrgs, r, x as usize))
                .count() as u32;
        }
    }
    let mut merges = 0;
    for b in &lay.blocks {
        for &s in &b.insts {
            if mach(g, s).map(|m| m.op) != Some(Op::Split) {
                continue;
            }
            let (Some(d), Some(x)) = (vals.get(s), g.input(s, 1).and_then(|x| vals.get(x))) else {
                continue;
            };
            let (a, c) = (lrgs.of[d as usize] as usize, lrgs.of[x as usize] as usize);
            if a == c || !colored(lrgs, a) || !colored(lrgs, c) {
                continue;
            }
            if lrgs.can_stack[a] != lrgs.can_stack[c] || lrgs.remat[a] || lrgs.remat[c] {
                // A piece made to live on the stack, or a constant that is
                // computed again where it is used, stays as it is.
                continue;
            }
            if adj[a].binary_search(&(c as u32)).is_ok() {
                continue;
            }
            let mask = lrgs.mask[a].and(lrgs.mask[c]);
            if mask.is_empty() {
                continue;
            }
            // Briggs: the merged range's neighbours of significant degree.
            let k = mask.len();
            let significant = union(&adj[a], &adj[c])
                .into_iter()
                .filter(|&y| {
                    let yu = y as usize;
                    if !colored(lrgs, yu) || lrgs.mask[yu].and(mask).is_empty() {
                        return false;
                    }
                    // A neighbour of both loses one neighbour in the merge.
                    let both = adj[a].binary_search(&y).is_ok() && adj[c].binary_search(&y).is_ok();
                    let deg = degree[yu].saturating_sub(u32::from(both));
                    deg >= lrgs.mask[yu].len()
                })
                .count() as u32;
            if significant >= k {
                continue;
            }
            merge(lrgs, adj, &mut degree, a, c, mask);
            merges += 1;
        }
    }
    merges
}

/// The sorted union of two sorted lists.
fn union(a: &[u32], b: &[u32]) -> Vec<u32> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        let next = match (a.get(i), b.get(j)) {
            (Some(&x), Some(&y)) if x == y => {
                i += 1;
                j += 1;
                x
            }
            (Some(&x), Some(&y)) if x < y => {
                i += 1;
                x
            }
            (Some(_), Some(&y)) => {
                j += 1;
                y
            }
            (Some(&x), None) => {
                i += 1;
                x
            }
            (None, Some(&y)) => {
                j += 1;
                y
            }
            (None, None) => unreachable!("the loop stops first"),
        };
        out.push(next);
    }
    out
}

/// Merges live range `c` into `a`, whose registers become `mask`.
fn merge(
    lrgs: &mut Lrgs,
    adj: &mut [Vec<u32>],
    degree: &mut [u32],
    a: usize,
    c: usize,
    mask: RegMask,
) {
    let (a32, c32) = (a as u32, c as u32);
    // Neighbours of `c` now neighbour `a`; one of both loses a neighbour.
    let c_adj = std::mem::take(&mut adj[c]);
    for &y in &c_adj {
        let list = &mut adj[y as usize];
        if let Ok(i) = list.binary_search(&c32) {
            list.remove(i);
        }
        match list.binary_search(&a32) {
            Ok(_) => degree[y as usize] = degree[y as usize].saturating_sub(1),
            Err(i) => list.insert(i, a32),
        }
    }
    adj[a] = union(&adj[a], &c_adj);
    lrgs.mask[a] = mask;
    degree[a] = adj[a]
        .iter()
        .filter(|&&y| {
            let yu = y as usize;
            !lrgs.dead[yu] && !lrgs.mask[yu].and(mask).is_empty()
        })
        .count() as u32;
    let members = std::mem::take(&mut lrgs.members[c]);
    for &v in &members {
        lrgs.of[v as usize] = a32;
    }
    lrgs.members[a].extend(members);
    lrgs.killed[a] = lrgs.killed[a].or(lrgs.killed[c]);
    lrgs.cost[a] = lrgs.cost[a].saturating_add(lrgs.cost[c]);
    lrgs.remat_once[a] = false;
    // Partners of `c` are partners of `a`, and the two are one.
    let c_partners = std::mem::take(&mut lrgs.partners[c]);
    for p in c_partners {
        if p != a32 && !lrgs.partners[a].contains(&p) {
            lrgs.partners[a].push(p);
        }
        let list = &mut lrgs.partners[p as usize];
        list.retain(|q| *q != c32);
        if p != a32 && !list.contains(&a32) {
            list.push(a32);
        }
    }
    lrgs.partners[a].retain(|q| *q != a32 && *q != c32);
    lrgs.dead[c] = true;
}

/// After colouring: drops each copy that can be forwarded into its one
/// use (see the module's documentation), rewiring the use to the copy's
/// source. Returns the copies dropped.
pub fn forward(
    target: Target,
    g: &mut Graph,
    lay: &Layout,
    loc: &FxHashMap<NodeId, Loc>,
    removed: &FxHashSet<NodeId>,
) -> Vec<NodeId> {
    let mut dropped = Vec::new();
    for b in &lay.blocks {
        let insts: Vec<NodeId> = b
            .insts
            .iter()
            .copied()
            .filter(|n| !removed.contains(n))
            .collect();
        for w in insts.windows(2) {
            let (s, u) = (w[0], w[1]);
            if mach(g, s).map(|m| m.op) != Some(Op::Split) {
                continue;
            }
            let Some(x) = g.input(s, 1) else { continue };
            let Some(&Loc::Reg(src)) = loc.get(&x) else {
                continue;
            };
            let mut users: Vec<NodeId> = g.outputs(s).to_vec();
            users.sort();
            users.dedup();
            if users != [u] || crate::node::is_cfg(g, u) {
                continue;
            }
            let Some(m) = mach(g, u) else { continue };
            if matches!(m.op, Op::Split | Op::Parm) {
                continue;
            }
            let two = crate::cpu::two_address(target.cpu, m);
            let slots: Vec<usize> = (1..g.n_ins(u))
                .filter(|&i| g.input(u, i) == Some(s))
                .collect();
            let ok = !slots.is_empty()
                && slots.iter().all(|&i| {
                    Some(i) != two
                        && crate::cpu::in_mask(target, g, u, m, i)
                            .is_some_and(|mask| mask.contains(src))
                });
            if !ok {
                continue;
            }
            for i in slots {
                g.set_def(u, i, Some(x));
            }
            dropped.push(s);
        }
    }
    dropped
}
