//! Start: the entry of the function.
//!
//! Start has no inputs and, in this chapter, no value of its own; every
//! constant hangs off it so that a walk from Start finds the whole graph.

use super::NodeKind;
use crate::graph::{Graph, NodeId};
use crate::types::Types;

/// Makes Start and records it in the graph.
pub fn new(g: &mut Graph) -> NodeId {
    let start = g.add_node(NodeKind::Start, vec![]);
    g.set_ty(start, Types::BOTTOM);
    g.set_start(start);
    start
}
