//! Proj: element `idx` of a multi-valued node's tuple.
//!
//! Start's projections are the initial control (`$ctrl`) and `arg`.

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
