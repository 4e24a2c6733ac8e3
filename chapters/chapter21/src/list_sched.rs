//! The local schedule: the order of the nodes inside each block, by
//! Simple's list scheduler (chapter 19).
//!
//! Global code motion gives every node a block but no place in it. A list
//! scheduler fills each block from the front: a node is *ready* once every
//! input it has in the same block is scheduled, and among the ready nodes
//! the one with the highest score goes next (the first such in the
//! block's list breaks ties). Phis are not listed (they take their values
//! as control enters, all at once), nor is the control node that ends the
//! block; a New's projections come right after it.
//!
//! The score is Simple's register-pressure heuristic, which chapter 20's
//! spill counts follow. From 500 (200 for a node whose value is used in
//! another block: better late), it
//!
//! - subtracts 10 for each of up to two values it defines whose single
//!   user is not ready yet (the value would live while waiting), 100 if
//!   such a value must be in one particular register (its definition's
//!   and its users' register masks leave one);
//! - adds 10 for each of up to two inputs whose only use this is (a live
//!   range ends here), 100 if that input is in one particular register.
//!
//! Ideal nodes (the scheduled evaluator's graph) all score 500: the order
//! then follows readiness and the block's list. Chapter 18 ordered blocks
//! depth first; any order that respects the inputs serves the evaluator,
//! and this one is the one code will run in.

use crate::gcm::{block, is_block_head};
use crate::graph::{Graph, NodeId};
use crate::mach::{mach, RegMask, Target};
use crate::node::{is_cfg, new_proj, NodeKind};
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::BTreeSet;

/// The local schedule of every block that has members: block head → its
/// nodes in order.
pub fn local_schedule(g: &Graph) -> FxHashMap<NodeId, Vec<NodeId>> {
    let mut blocks: Vec<NodeId> = g
        .control_nodes()
        .iter()
        .copied()
        .filter(|&c| !g.is_dead(c) && is_block_head(g, c))
        .collect();
    blocks.sort();
    blocks.dedup();
    blocks.into_iter().map(|b| (b, block_order(g, b))).collect()
}

/// What the scheduler knows of one member of the block.
#[derive(Clone, Copy, Default)]
struct Sched {
    /// Inputs in the block not yet ready.
    not_ready: u32,
    /// Inputs in the block ready but not yet scheduled.
    ready_inputs: u32,
    /// Its value is used in another block.
    remote_def: bool,
    /// It defines a value that must be in one particular register.
    single: bool,
    scheduled: bool,
}

/// The data nodes of block `blk` other than phis, in schedule order.
///
/// The ready nodes wait in an ordered set by score (then by their place in
/// the block's list), so that each pick is a logarithm, not a scan: a
/// block can hold a whole straight-line program. A score changes only
/// when a node's single user becomes ready, and then that node's score is
/// taken anew.
pub fn block_order(g: &Graph, blk: NodeId) -> Vec<NodeId> {
    let members = members(g, blk);
    let place: FxHashMap<NodeId, usize> =
        members.iter().enumerate().map(|(i, &n)| (n, i)).collect();
    let mut info: Vec<Sched> = members
        .iter()
        .map(|&n| {
            let not_ready = (0..g.n_ins(n))
                .filter_map(|i| g.input(n, i).map(|d| (i, d)))
                .filter(|&(i, d)| (i > 0 || new_proj(g, n)) && place.contains_key(&d))
                .count() as u32;
            let (remote_def, single) = defines(g, blk, n, &place);
            Sched {
                not_ready,
                remote_def,
                single,
                ..Sched::default()
            }
        })
        .collect();
    let mut s = Scheduler {
        g,
        target: g.target,
        place,
        ready: BTreeSet::new(),
        score: FxHashMap::default(),
    };
    let first: Vec<usize> = (0..members.len())
        .filter(|&i| info[i].not_ready == 0)
        .collect();
    for &i in &first {
        s.make_ready(members[i], &mut info);
    }
    let mut order = Vec::with_capacity(members.len());
    while let Some((_, i, n)) = s.ready.pop_first() {
        s.score.remove(&n);
        info[i].scheduled = true;
        order.push(n);
        for u in users_in_block(g, n) {
            let Some(&j) = s.place.get(&u) else { continue };
            let x = &mut info[j];
            if x.scheduled || x.ready_inputs == 0 {
                continue;
            }
            x.ready_inputs -= 1;
            if x.not_ready == 0 && x.ready_inputs == 0 && !s.score.contains_key(&u) {
                s.make_ready(u, &mut info);
            }
        }
    }
    debug_assert_eq!(order.len(), members.len(), "every member is scheduled");
    keep_flags_next_to_their_reader(g, blk, &mut order);
    order
}

/// Chapter 19: an operation that sets the flags goes right before the
/// instruction that reads them (see `mach::sets_flags`): a `setcc` moves
/// up to just after its compare (it reads nothing else), and a compare
/// that a branch reads moves to the end of the block (after everything
/// it could otherwise wait for, the branch being last).
fn keep_flags_next_to_their_reader(g: &Graph, blk: NodeId, order: &mut Vec<NodeId>) {
    let mut i = 0;
    while i < order.len() {
        let p = order[i];
        if !crate::mach::sets_flags(g, p) || g.outputs(p).len() != 1 {
            i += 1;
            continue;
        }
        let reader = g.outputs(p)[0];
        if is_cfg(g, reader) {
            // The branch ending this block: the compare goes last.
            if block_head_of(g, reader) == Some(blk) {
                let p = order.remove(i);
                order.push(p);
                if i + 1 >= order.len() {
                    break;
                }
                continue;
            }
        } else if let Some(j) = order.iter().position(|&x| x == reader) {
            if j > i + 1 {
                let r = order.remove(j);
                order.insert(i + 1, r);
            }
        }
        i += 1;
    }
}

/// The ready set and what it needs to score.
struct Scheduler<'a> {
    g: &'a Graph,
    target: Option<Target>,
    place: FxHashMap<NodeId, usize>,
    /// (minus the score, place in the block, node).
    ready: BTreeSet<(i32, usize, NodeId)>,
    /// The score each ready node (not yet scheduled) is filed under.
    score: FxHashMap<NodeId, i32>,
}

impl Scheduler<'_> {
    /// Node `n` is ready: file it, and tell its users, which count it as
    /// an input ready but not yet scheduled. A user that has no input left
    /// unready changes the score of the ready inputs it is the only user
    /// of.
    fn make_ready(&mut self, n: NodeId, info: &mut [Sched]) {
        let g = self.g;
        self.file(n, info);
        for u in users_in_block(g, n) {
            let Some(&j) = self.place.get(&u) else {
                continue;
            };
            if info[j].not_ready == 0 {
                continue;
            }
            info[j].not_ready -= 1;
            info[j].ready_inputs += 1;
            if info[j].not_ready == 0 {
                for d in g.inputs(u).iter().flatten() {
                    if self.score.contains_key(d) && g.outputs(*d).len() == 1 {
                        self.file(*d, info);
                    }
                }
            }
        }
    }

    /// Files (or files again) ready node `n` under its current score.
    fn file(&mut self, n: NodeId, info: &[Sched]) {
        let i = self.place[&n];
        if let Some(old) = self.score.remove(&n) {
            self.ready.remove(&(-old, i, n));
        }
        let s = score(self.g, self.target, n, &self.place, info);
        self.score.insert(n, s);
        self.ready.insert((-s, i, n));
    }
}

/// The users of `n` (those in the block wait on it). A New's projections
/// are members that wait on the New, and score so that they follow it at
/// once.
fn users_in_block(g: &Graph, n: NodeId) -> Vec<NodeId> {
    g.outputs(n).to_vec()
}

/// Whether the value of `n` is used outside `blk`, and whether it must be
/// in one particular register: the mask of its result narrowed by the
/// masks its users take it in.
fn defines(g: &Graph, blk: NodeId, n: NodeId, inside: &FxHashMap<NodeId, usize>) -> (bool, bool) {
    let remote = g
        .outputs(n)
        .iter()
        .any(|&u| !inside.contains_key(&u) && !is_cfg(g, u) && block(g, u) != Some(blk));
    let (Some(target), Some(m)) = (g.target, mach(g, n)) else {
        return (remote, false);
    };
    let Some(mut mask) = crate::cpu::out_mask(target, g, n, m) else {
        return (remote, false);
    };
    for &u in g.outputs(n) {
        if let Some(um) = mach(g, u) {
            for i in 1..g.n_ins(u) {
                if g.input(u, i) == Some(n) {
                    if let Some(in_mask) = crate::cpu::in_mask(target, g, u, um, i) {
                        mask = mask.and(in_mask);
                    }
                }
            }
        }
    }
    (remote, mask.is_single())
}

/// Simple's score (see the module's documentation).
fn score(
    g: &Graph,
    target: Option<Target>,
    n: NodeId,
    place: &FxHashMap<NodeId, usize>,
    info: &[Sched],
) -> i32 {
    // A projection goes as soon as its multi-node has.
    if matches!(g.role(n), NodeKind::Proj { .. }) {
        return 1001;
    }
    let (Some(target), Some(m)) = (target, mach(g, n)) else {
        return 500;
    };
    let at = |x: NodeId| place.get(&x).map(|&i| info[i]);
    let x = at(n).expect("a member");
    let mut score = if x.remote_def { 200 } else { 500 };
    // Values defined whose single user is not ready: they would wait.
    let mut waiting = [0; 3];
    let mut single_use_waits = |v: NodeId| {
        if g.outputs(v).len() != 1 {
            return;
        }
        if at(g.outputs(v)[0]).is_some_and(|xu| xu.not_ready == 0) {
            return;
        }
        waiting[if x.single { 2 } else { 1 }] += 1;
    };
    if matches!(g.role(n), NodeKind::New { .. }) {
        for &p in g.outputs(n) {
            single_use_waits(p);
        }
    } else {
        single_use_waits(n);
    }
    score -= 10 * waiting[1].min(2) + 100 * waiting[2].min(2);
    // Inputs whose last use this is: their live range ends here.
    let mut ending = [0; 3];
    for i in 1..g.n_ins(n) {
        let Some(d) = g.input(n, i) else { continue };
        let Some(xd) = at(d) else { continue };
        if g.outputs(d).len() == 1 {
            let fixed = crate::cpu::in_mask(target, g, n, m, i).is_some_and(RegMask::is_single);
            ending[if xd.single || fixed { 2 } else { 1 }] += 1;
        }
    }
    score += 10 * ending[1].min(2) + 100 * ending[2].min(2);
    score
}

/// The members of block `blk`: its data nodes, phis excepted, and the
/// projections of a New in it.
fn members(g: &Graph, blk: NodeId) -> Vec<NodeId> {
    let mut members: Vec<NodeId> = Vec::new();
    let mut work: Vec<NodeId> = g.outputs(blk).to_vec();
    work.reverse();
    // Pinned nodes hang off a control node that need not be the head
    // (a New after a call's end in the same block); look one level down
    // too. The sets are the block's size, not the graph's.
    let mut seen: FxHashSet<NodeId> = FxHashSet::default();
    while let Some(n) = work.pop() {
        if !seen.insert(n) {
            continue;
        }
        if is_cfg(g, n) {
            if !is_block_head(g, n) && block_head_of(g, n) == Some(blk) {
                let mut more = g.outputs(n).to_vec();
                more.reverse();
                work.extend(more);
            }
            continue;
        }
        if matches!(g.role(n), NodeKind::Phi { .. }) || block_head_of(g, n) != Some(blk) {
            continue;
        }
        // A New's projections come with it.
        if matches!(g.role(n), NodeKind::New { .. }) {
            let mut more = g.outputs(n).to_vec();
            more.reverse();
            work.extend(more);
        }
        members.push(n);
    }
    members
}

/// The block head a node belongs to: its block, or for a pinned node
/// hanging off a control node inside a block, that node's block.
pub(crate) fn block_head_of(g: &Graph, n: NodeId) -> Option<NodeId> {
    let mut b = block(g, n)?;
    while !is_block_head(g, b) {
        b = g.input(b, 0)?;
    }
    Some(b)
}
