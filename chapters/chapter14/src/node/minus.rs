//! Minus: unary negation.

use super::NodeKind;
use crate::graph::{Graph, NodeId};
use crate::types::{TypeId, Types};

pub fn compute(g: &mut Graph, n: NodeId) -> TypeId {
    let t = g.ty(g.in_(n, 1));
    match g.types.int_value(t) {
        Some(v) => g.types.int(v.wrapping_neg()),
        None if g.types.is_int(t) => t,
        // Not an integer: nothing better than the meet with IntTop.
        None => g.types.meet(Types::INT_TOP, t),
    }
}

/// `-(-x)` is `x`.
pub fn idealize(g: &mut Graph, n: NodeId) -> Option<NodeId> {
    let x = g.in_(n, 1);
    matches!(g.kind(x), NodeKind::Minus).then(|| g.in_(x, 1))
}
