//! Proj: element `idx` of a multi-valued node's tuple.
//!
//! Start's projections are the initial control (`$ctrl`) and `arg`; an If's
//! are its True and False arms.

use super::NodeKind;
use crate::graph::{Graph, NodeId};
use crate::types::{TypeId, Types};

pub fn new(g: &mut Graph, multi: NodeId, idx: usize, label: &'static str) -> NodeId {
    g.add_node(NodeKind::Proj { idx, label }, vec![Some(multi)])
}

pub fn compute(g: &mut Graph, n: NodeId, idx: usize) -> TypeId {
    let t = g.ty(g.in_(n, 0));
    g.types.tuple_elem(t, idx).unwrap_or(Types::BOTTOM)
}

/// When the other arm of an If is dead, this arm always runs: it is just the
/// If's own control.
pub fn idealize(g: &mut Graph, n: NodeId, idx: usize) -> Option<NodeId> {
    let multi = g.in_(n, 0);
    if !matches!(g.kind(multi), NodeKind::If) || idx > 1 {
        return None;
    }
    let other = g.types.tuple_elem(g.ty(multi), 1 - idx);
    (other == Some(Types::XCTRL)).then(|| g.in_(multi, 0))
}
