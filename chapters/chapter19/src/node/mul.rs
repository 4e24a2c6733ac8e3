//! Mul: `in(1) * in(2)`. `x*1` is `x`; constants move to the right.

use super::add::phi_con;
use crate::graph::{Graph, NodeId};
use crate::types::{TypeId, Types};

pub fn compute(g: &mut Graph, n: NodeId) -> TypeId {
    // Chapter 16: anything times 0 is 0, known or not.
    let (t1, t2) = (g.ty(g.in_(n, 1)), g.ty(g.in_(n, 2)));
    if !g.types.is_high(t1)
        && !g.types.is_high(t2)
        && (t1 == Types::INT_ZERO || t2 == Types::INT_ZERO)
    {
        return Types::INT_ZERO;
    }
    super::int_binary(g, n, i64::wrapping_mul)
}

pub fn idealize(g: &mut Graph, n: NodeId) -> Option<NodeId> {
    let (t1, t2) = (g.ty(g.in_(n, 1)), g.ty(g.in_(n, 2)));
    // x*1 is x. (1*x) was swapped to (x*1) first.
    if g.types.int_value(t2) == Some(1) {
        return Some(g.in_(n, 1));
    }
    // Constants go right: (2*x) becomes (x*2).
    if g.types.is_constant(t1) && !g.types.is_constant(t2) {
        return Some(g.swap12(n));
    }
    // ((x * phi(cons)) * con) pushes the constant into the phi.
    phi_con(g, n, true)
}
