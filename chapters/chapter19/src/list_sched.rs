//! The local schedule: the order of the nodes inside each block (Simple's
//! chapter 18 `ListScheduler`).
//!
//! Global code motion gives every node a block but no place in it. The
//! local schedule lists each block's data nodes (its phis excepted: they
//! take their values as control enters, all at once) so that every node
//! comes after the inputs it finds in the same block, an anti-dependence
//! being such an input too; the block's control node, which ends it, is
//! not listed (it runs last). The scheduled evaluator runs each block in
//! this order, as compiled code will.
//!
//! The order is a depth-first walk of the in-block inputs from the
//! members in node order, which is deterministic; Simple's list scheduler
//! picks among the ready nodes by a score instead, which any order that
//! respects the inputs may stand in for.

use crate::gcm::{block, is_block_head};
use crate::graph::{Graph, NodeId};
use crate::node::{is_cfg, new_proj, NodeKind};
use rustc_hash::{FxHashMap, FxHashSet};

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

/// The data nodes of block `blk` other than phis, each after its inputs
/// in the same block.
pub fn block_order(g: &Graph, blk: NodeId) -> Vec<NodeId> {
    let mut members: Vec<NodeId> = Vec::new();
    let mut work: Vec<NodeId> = g.outputs(blk).to_vec();
    // Pinned nodes hang off a control node that need not be the head
    // (a New after an If in the same block); look one level down too.
    // The sets are the block's size, not the graph's: there is a body
    // per block.
    let mut seen: FxHashSet<NodeId> = FxHashSet::default();
    while let Some(n) = work.pop() {
        if !seen.insert(n) {
            continue;
        }
        if is_cfg(g, n) {
            if !is_block_head(g, n) && block_head_of(g, n) == Some(blk) {
                work.extend(g.outputs(n).iter().copied());
            }
            continue;
        }
        if matches!(g.role(n), NodeKind::Phi { .. }) || block_head_of(g, n) != Some(blk) {
            continue;
        }
        // A New's projections come with it.
        if matches!(g.role(n), NodeKind::New { .. }) {
            work.extend(g.outputs(n).iter().copied());
        }
        members.push(n);
    }
    members.sort();
    // Order by dependences inside the block, depth first.
    let inside: FxHashSet<NodeId> = members.iter().copied().collect();
    let mut done: FxHashSet<NodeId> = FxHashSet::default();
    let mut order = Vec::with_capacity(members.len());
    for &n in &members {
        let mut stack = vec![(n, 0usize)];
        while let Some((x, i)) = stack.pop() {
            if i == 0 && done.contains(&x) {
                continue;
            }
            if let Some(def) = (i..g.n_ins(x)).find_map(|j| {
                g.input(x, j)
                    .filter(|d| {
                        (j > 0 || new_proj(g, x)) && inside.contains(d) && !done.contains(d)
                    })
                    .map(|d| (j, d))
            }) {
                stack.push((x, def.0 + 1));
                stack.push((def.1, 0));
                continue;
            }
            if done.insert(x) {
                order.push(x);
            }
        }
    }
    order
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
