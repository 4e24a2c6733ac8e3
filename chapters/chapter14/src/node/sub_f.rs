//! SubF: `in(1) - in(2)` on floats.
//!
//! Made by the parser for a `-` with a float operand (see `widen`).
//! Constants fold; `x - 0.0` is `x` for every `x`, `-0.0` and NaN
//! included. (Simple also drops `x - (-0.0)`, which is `x + 0.0` and so
//! not `x` when `x` is `-0.0`.) Unlike Sub, `x - x` is not known to be 0:
//! it is NaN when `x` is infinite or NaN.

use crate::graph::{Graph, NodeId};
use crate::types::TypeId;

pub fn compute(g: &mut Graph, n: NodeId) -> TypeId {
    super::flt_binary(g, n, |a, b| a - b)
}

pub fn idealize(g: &mut Graph, n: NodeId) -> Option<NodeId> {
    let t2 = g.ty(g.in_(n, 2));
    let plus_zero = g
        .types
        .flt_value(t2)
        .is_some_and(|v| v == 0.0 && v.is_sign_positive());
    plus_zero.then(|| g.in_(n, 1))
}
