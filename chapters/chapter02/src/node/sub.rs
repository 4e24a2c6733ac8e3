//! Sub: `in(1) - in(2)`.

use super::int_binary;
use crate::graph::{Graph, NodeId};
use crate::types::TypeId;

pub fn compute(g: &mut Graph, n: NodeId) -> TypeId {
    int_binary(g, n, i64::wrapping_sub)
}
