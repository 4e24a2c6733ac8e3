//! Colouring: Chaitin–Briggs simplify and select over the interference
//! graph.
//!
//! Only neighbours whose masks share a register count towards a live
//! range's degree. Simplify removes live ranges of degree below the number
//! of registers they may take (they will find one whatever their neighbours
//! take), lowest live-range number first; when none is left, it removes the
//! cheapest to spill, optimistically (Briggs): the lowest cost per
//! neighbour, where cost is the definitions and uses weighted by 8^loop
//! depth, and a live range made only of constants (which are computed again
//! where they are used) costs nothing, unless it is one constant with one
//! use (a copy made for that use already: it goes last). The removed ones
//! wait in a set ordered by that key, so a pick is a logarithm. Select
//! colours them in reverse order of removal, each leaving alone a register
//! that a neighbour still to colour needs as its only one while another is
//! free: the register of a live range joined to it by a split if one is
//! free (the split then disappears), else one its partner may take, else
//! the lowest caller-saved register (its mask has none that a call it lives
//! across clobbers), else the lowest. A live range that finds no register
//! takes a stack slot if it may (the lowest slot none of its neighbours
//! has), or fails and will be split, as does one with a self-conflict. Live
//! ranges whose place the calling convention fixes are not coloured.

use super::live_range::Lrgs;
use super::Loc;
use crate::mach::RegMask;
use std::collections::BTreeSet;

/// The outcome of one colouring: a location for each live range, or
/// failure.
pub struct Coloring {
    pub loc: Vec<Option<Loc>>,
    pub failed: Vec<u32>,
}

pub fn color(lrgs: &Lrgs, adj: &[Vec<u32>], caller_saved: RegMask) -> Coloring {
    let n = lrgs.len();
    let overlaps = |a: usize, b: usize| !lrgs.mask[a].and(lrgs.mask[b]).is_empty();
    let colored = |r: usize| {
        !lrgs.dead[r]
            && lrgs.fixed[r].is_none()
            && !lrgs.mask[r].is_empty()
            && !lrgs.self_conflict[r]
    };
    let mut degree = vec![0u32; n];
    for r in 0..n {
        if colored(r) {
            degree[r] = adj[r]
                .iter()
                .filter(|&&x| colored(x as usize) && overlaps(r, x as usize))
                .count() as u32;
        }
    }
    let key = |r: usize, deg: u32| -> u64 {
        if lrgs.remat_once[r] {
            // Computed right for its one use already: spilling it again
            // frees nothing, so others go first.
            u64::MAX - 1
        } else if lrgs.remat[r] {
            0
        } else {
            lrgs.cost[r].saturating_mul(1024) / (deg as u64 + 1) + 1
        }
    };
    let mut removed = vec![false; n];
    let mut low: Vec<u32> = Vec::new();
    let mut high: BTreeSet<(u64, u32)> = BTreeSet::new();
    let mut in_high_key = vec![u64::MAX; n];
    for r in (0..n).rev() {
        if !colored(r) {
            continue;
        }
        if degree[r] < lrgs.mask[r].len() {
            low.push(r as u32);
        } else {
            let k = key(r, degree[r]);
            in_high_key[r] = k;
            high.insert((k, r as u32));
        }
    }
    let mut stack: Vec<u32> = Vec::new();
    loop {
        let r = if let Some(r) = low.pop() {
            r
        } else if let Some((_, r)) = high.pop_first() {
            in_high_key[r as usize] = u64::MAX;
            r
        } else {
            break;
        };
        let ru = r as usize;
        if removed[ru] {
            continue;
        }
        removed[ru] = true;
        stack.push(r);
        for &x in &adj[ru] {
            let xu = x as usize;
            if removed[xu] || !colored(xu) || !overlaps(ru, xu) {
                continue;
            }
            degree[xu] -= 1;
            if degree[xu] + 1 == lrgs.mask[xu].len() && in_high_key[xu] != u64::MAX {
                high.remove(&(in_high_key[xu], x));
                in_high_key[xu] = u64::MAX;
                low.push(x);
            }
        }
    }
    let mut loc: Vec<Option<Loc>> = lrgs.fixed.clone();
    let mut failed = Vec::new();
    let mut stacked = Vec::new();
    for r in 0..n {
        if lrgs.dead[r] {
            continue;
        }
        if lrgs.self_conflict[r] {
            failed.push(r as u32);
        } else if lrgs.fixed[r].is_none() && lrgs.mask[r].is_empty() {
            if lrgs.can_stack[r] {
                stacked.push(r as u32);
            } else {
                failed.push(r as u32);
            }
        }
    }
    // The registers each live range's neighbours hold so far, kept up to
    // date as they are coloured (a lookup instead of a walk over the
    // neighbours, which made a value split many times quadratic).
    let mut taken = vec![RegMask::EMPTY; n];
    for r in 0..n {
        if let Some(Loc::Reg(c)) = loc[r] {
            for &x in &adj[r] {
                taken[x as usize] = taken[x as usize].or(RegMask::of(c));
            }
        }
    }
    while let Some(r) = stack.pop() {
        let ru = r as usize;
        let mut free = lrgs.mask[ru].without(taken[ru]);
        // Leave alone a register that a neighbour still to colour needs
        // as its only one (a shift count in `rcx`), when another will do:
        // taking it would fail the neighbour, and splitting either again
        // would meet the same choice, round after round.
        let needed = adj[ru]
            .iter()
            .filter(|&&x| loc[x as usize].is_none() && colored(x as usize))
            .map(|&x| lrgs.mask[x as usize])
            .filter(|m| m.len() == 1)
            .fold(RegMask::EMPTY, RegMask::or);
        if !free.without(needed).is_empty() {
            free = free.without(needed);
        }
        if free.is_empty() {
            if lrgs.can_stack[ru] {
                stacked.push(r);
            } else {
                failed.push(r);
            }
            continue;
        }
        let mut pick = None;
        for &p in &lrgs.partners[ru] {
            if let Some(Loc::Reg(c)) = loc[p as usize] {
                if free.contains(c) {
                    pick = Some(c);
                    break;
                }
            }
        }
        if pick.is_none() {
            // A register a partner not coloured yet may still take.
            for &p in &lrgs.partners[ru] {
                if loc[p as usize].is_none() {
                    let pfree = free.and(lrgs.mask[p as usize]).without(taken[p as usize]);
                    pick = pfree.first();
                    if pick.is_some() {
                        break;
                    }
                }
            }
        }
        // A caller-saved register costs no save in the prologue (the mask
        // has none a call or division in its way would clobber).
        let pick = pick
            .or_else(|| free.and(caller_saved).first())
            .or_else(|| free.first());
        loc[ru] = pick.map(Loc::Reg);
        if let Some(c) = pick {
            for &x in &adj[ru] {
                taken[x as usize] = taken[x as usize].or(RegMask::of(c));
            }
        }
    }
    // Stack slots, coloured apart from the registers.
    stacked.sort_unstable();
    for r in stacked {
        let mut used: Vec<u32> = adj[r as usize]
            .iter()
            .filter_map(|&x| match loc[x as usize] {
                Some(Loc::Slot(s)) => Some(s),
                _ => None,
            })
            .collect();
        used.sort_unstable();
        used.dedup();
        let slot = (0u32..)
            .zip(used.iter().copied().chain(std::iter::once(u32::MAX)))
            .find(|&(i, u)| i != u)
            .map_or(0, |(i, _)| i);
        loc[r as usize] = Some(Loc::Slot(slot));
    }
    failed.sort_unstable();
    Coloring { loc, failed }
}
