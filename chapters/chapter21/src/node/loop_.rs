//! Loop: the head of a `while` loop.
//!
//! A Loop is a Region with exactly two paths: input 1 enters the loop from
//! above, input 2 is the back edge from the end of the body. The parser
//! makes the Loop before it has seen the body, so the back edge starts out
//! empty; while it is empty the loop is "in progress": it is assumed live
//! and is left alone by the peepholes, and so are its phis.

use super::{region, NodeKind};
use crate::graph::{Graph, NodeId};
use crate::types::{TypeId, Types};

/// A loop entered from `entry`, its back edge not yet known.
pub fn new(g: &mut Graph, entry: NodeId) -> NodeId {
    g.add_node(NodeKind::Loop, vec![None, Some(entry), None])
}

pub fn entry(g: &Graph, n: NodeId) -> NodeId {
    g.in_(n, 1)
}

/// Live while parsing the body; afterwards, live exactly when the entry is
/// (a back edge alone cannot make a loop reachable).
pub fn compute(g: &mut Graph, n: NodeId) -> TypeId {
    if region::in_progress(g, n) {
        Types::CTRL
    } else {
        g.ty(entry(g, n))
    }
}

pub fn idealize(g: &mut Graph, n: NodeId) -> Option<NodeId> {
    if region::in_progress(g, n) {
        None
    } else {
        region::idealize(g, n)
    }
}
