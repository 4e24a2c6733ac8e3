//! Sub: `in(1) - in(2)`. `x-x` is known to be 0 whatever `x` is.
//!
//! A difference of ranges is a range, as a sum is: `[a,b] - [c,d]` is
//! `[a-d, b-c]` unless an end overflows. (Simple's Sub knows no ranges;
//! without them, rewriting `x + (-y)` into `x - y` would lose what the Add
//! knew.)

use super::{int_binary_ranges, new_binary, peephole, NodeKind};
use crate::graph::{Graph, NodeId};
use crate::types::{TypeId, Types};

pub fn compute(g: &mut Graph, n: NodeId) -> TypeId {
    if g.in_(n, 1) == g.in_(n, 2) {
        return Types::INT_ZERO;
    }
    int_binary_ranges(g, n, i64::wrapping_sub, |a, b| {
        Some((a.min.checked_sub(b.max)?, a.max.checked_sub(b.min)?))
    })
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
