//! After colouring: locations, the splits that are left, and frames.
//!
//! Every value gets its live range's location. A split whose two sides
//! got the same location copies nothing: its users read its input
//! instead, and it leaves the graph and the schedule. The splits left are
//! counted, each also weighted by 8^d for its block's loop depth d (0
//! outside every loop). Each function's frame has as many spill slots as
//! its highest slot number plus one, room for the most stack-passed
//! arguments any of its calls passes, and the callee-saved registers its
//! values are given (which its prologue saves).

use super::build::{Layout, Vals};
use super::live_range::{weight, Lrgs};
use super::{Allocation, Frame, Loc};
use crate::graph::{Graph, NodeId};
use crate::mach::{op, Op, Target};
use rustc_hash::{FxHashMap, FxHashSet};

#[allow(clippy::too_many_arguments)]
pub fn finish(
    g: &mut Graph,
    local: &mut FxHashMap<NodeId, Vec<NodeId>>,
    lay: &Layout,
    vals: &Vals,
    lrgs: &Lrgs,
    colors: &[Option<Loc>],
    target: Target,
    rounds: u32,
    forward: bool,
) -> Allocation {
    let mut loc: FxHashMap<NodeId, Loc> = FxHashMap::default();
    for v in 0..vals.len() {
        if let Some(l) = colors[lrgs.of[v] as usize] {
            loc.insert(vals.nodes[v], l);
        }
    }
    // Useless splits go.
    let mut removed: FxHashSet<NodeId> = FxHashSet::default();
    for v in 0..vals.len() {
        let s = vals.nodes[v];
        if op(g, s) != Some(Op::Split) {
            continue;
        }
        let Some(src) = g.input(s, 1) else { continue };
        if !loc.contains_key(&src) || loc.get(&src) != loc.get(&s) {
            continue;
        }
        let mut users: Vec<NodeId> = g.outputs(s).to_vec();
        if users.is_empty() {
            continue;
        }
        users.sort();
        users.dedup();
        for u in users {
            for i in 1..g.n_ins(u) {
                if g.input(u, i) == Some(s) {
                    g.set_def(u, i, Some(src));
                }
            }
        }
        removed.insert(s);
        loc.remove(&s);
    }
    // Chapter 21: a copy into the very next instruction goes too.
    if forward {
        for s in super::coalesce::forward(target, g, lay, &loc, &removed) {
            removed.insert(s);
            loc.remove(&s);
        }
    }
    if !removed.is_empty() {
        for list in local.values_mut() {
            list.retain(|n| !removed.contains(n));
        }
    }
    let mut splits = 0u32;
    let mut weighted = 0u64;
    let callee = crate::cpu::callee_saved(target);
    let mut frames: FxHashMap<NodeId, Frame> = FxHashMap::default();
    for (f, blocks) in &lay.funs {
        let mut frame = Frame::default();
        for &bi in blocks {
            let b = &lay.blocks[bi];
            for &n in b.phis.iter().chain(&b.insts) {
                if removed.contains(&n) {
                    continue;
                }
                if op(g, n) == Some(Op::Split) {
                    splits += 1;
                    weighted = weighted.saturating_add(weight(b.depth));
                }
                match loc.get(&n) {
                    Some(Loc::Slot(k)) => frame.slots = frame.slots.max(k + 1),
                    Some(Loc::OutArg(k)) => frame.out_args = frame.out_args.max(k + 1),
                    Some(&Loc::Reg(r)) if callee.contains(r) => {
                        frame.callee_saved = frame.callee_saved.or(crate::mach::RegMask::of(r));
                    }
                    _ => {}
                }
            }
        }
        frames.insert(*f, frame);
    }
    Allocation {
        loc,
        frames,
        splits,
        splits_weighted: weighted,
        rounds,
    }
}
