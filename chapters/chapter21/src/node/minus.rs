//! Minus: unary negation. The negation of a range is the range of the
//! negations, `-[1,5]` is `[-5,-1]`, except that `-i64::MIN` wraps around
//! to itself: a range that holds it and more negates to any integer.
//! (Simple does not fold the constant `-i64::MIN`; we fold it to itself.)

use super::NodeKind;
use crate::graph::{Graph, NodeId};
use crate::types::{TypeId, Types};

pub fn compute(g: &mut Graph, n: NodeId) -> TypeId {
    let t = g.ty(g.in_(n, 1));
    match g.types.int_bounds(t) {
        Some(i) if i.is_high() => Types::INT_TOP,
        // A constant folds, wrapping around as Java's `long` does.
        Some(i) if i.is_constant() => g.types.int(i.min.wrapping_neg()),
        Some(i) if i.min == i64::MIN => Types::INT_BOT,
        Some(i) => g.types.int_range(-i.max, -i.min),
        // Not an integer: nothing better than the meet with IntTop.
        None => g.types.meet(Types::INT_TOP, t),
    }
}

/// `-(-x)` is `x`.
pub fn idealize(g: &mut Graph, n: NodeId) -> Option<NodeId> {
    let x = g.in_(n, 1);
    matches!(g.kind(x), NodeKind::Minus).then(|| g.in_(x, 1))
}
