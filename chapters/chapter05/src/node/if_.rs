//! If: a two-way branch on `in(1)` under control `in(0)`.
//!
//! Its value is a pair of controls, one per arm, taken apart by the True and
//! False projections. In this chapter both arms are always taken to be
//! reachable.

use super::{print as print_node, NodeKind};
use crate::graph::{Graph, NodeId};

pub fn new(g: &mut Graph, ctrl: Option<NodeId>, pred: NodeId) -> NodeId {
    g.add_node(NodeKind::If, vec![ctrl, Some(pred)])
}

pub fn print(g: &Graph, n: NodeId, out: &mut String) {
    out.push_str("if( ");
    print_node(g, g.in_(n, 1), out);
    out.push_str(" )");
}
