//! Sub: `in(1) - in(2)`. `x-x` is known to be 0 whatever `x` is.

use super::int_binary;
use crate::graph::{Graph, NodeId};
use crate::types::{TypeId, Types};

pub fn compute(g: &mut Graph, n: NodeId) -> TypeId {
    if g.in_(n, 1) == g.in_(n, 2) {
        return Types::INT_ZERO;
    }
    int_binary(g, n, i64::wrapping_sub)
}
