//! Start: the entry of the function.
//!
//! Start's value is a tuple: the initial control and the argument `arg`.
//! Projections take it apart (see `proj.rs`). Its type is fixed when it is
//! made: `compute` returns that tuple, and it has no rewrites and no dominator.

use super::NodeKind;
use crate::graph::{Graph, NodeId};
use crate::types::TypeId;

/// Makes Start with the tuple type `args` and records it in the graph.
pub fn new(g: &mut Graph, args: TypeId) -> NodeId {
    let start = g.add_node(NodeKind::Start { args }, vec![]);
    g.set_ty(start, args);
    g.set_start(start);
    start
}
