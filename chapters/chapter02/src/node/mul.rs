//! Mul: `in(1) * in(2)`.

use crate::graph::{Graph, NodeId};
use crate::types::TypeId;

pub fn compute(g: &mut Graph, n: NodeId) -> TypeId {
    super::int_binary(g, n, i64::wrapping_mul)
}
