//! MulF: `in(1) * in(2)` on floats.
//!
//! Made by the parser for a `*` with a float operand (see `widen`).
//! Constants fold; `x * 1.0` is `x`; a constant on the left moves to the
//! right (multiplication is commutative, also in IEEE arithmetic), so that
//! `2.0*x` and `x*2.0` are one node. Unlike Mul, there is no `x*0` rule:
//! `x * 0.0` is `-0.0` for negative `x` and NaN for infinite `x`.

use crate::graph::{Graph, NodeId};
use crate::types::TypeId;

pub fn compute(g: &mut Graph, n: NodeId) -> TypeId {
    super::flt_binary(g, n, |a, b| a * b)
}

pub fn idealize(g: &mut Graph, n: NodeId) -> Option<NodeId> {
    let (t1, t2) = (g.ty(g.in_(n, 1)), g.ty(g.in_(n, 2)));
    // x*1.0 is x. (1.0*x) was swapped to (x*1.0) first.
    if g.types.flt_value(t2) == Some(1.0) {
        return Some(g.in_(n, 1));
    }
    // Constants go right: (2.0*x) becomes (x*2.0).
    if g.types.is_constant(t1) && !g.types.is_constant(t2) {
        return Some(g.swap12(n));
    }
    None
}
