//! Sub: `in(1) - in(2)`. `x-x` is known to be 0 whatever `x` is.

use super::{int_binary, new_binary, peephole, NodeKind};
use crate::graph::{Graph, NodeId};
use crate::types::{TypeId, Types};

/// Constants fold; otherwise `x-x` is 0, and anything else any integer.
pub fn compute(g: &mut Graph, n: NodeId) -> TypeId {
    if g.in_(n, 1) == g.in_(n, 2) {
        return Types::INT_ZERO;
    }
    int_binary(g, n, i64::wrapping_sub)
}

pub fn idealize(g: &mut Graph, n: NodeId) -> Option<NodeId> {
    let (lhs, rhs) = (g.in_(n, 1), g.in_(n, 2));
    // x - (-y) is x + y.
    if matches!(g.kind(rhs), NodeKind::Minus) {
        let y = g.in_(rhs, 1);
        return Some(new_binary(g, NodeKind::Add, lhs, y));
    }
    // (-x) - y is -(x + y).
    if matches!(g.kind(lhs), NodeKind::Minus) {
        let x = g.in_(lhs, 1);
        let sum = new_binary(g, NodeKind::Add, x, rhs);
        let sum = peephole(g, sum);
        return Some(g.add_node(NodeKind::Minus, vec![None, Some(sum)]));
    }
    None
}
