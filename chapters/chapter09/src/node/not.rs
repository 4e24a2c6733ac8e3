//! Not: logical negation, 1 for 0 and 0 for anything else. The parser makes
//! it for `!=`, as `!(a==b)`.

use crate::graph::{Graph, NodeId};
use crate::types::{TypeId, Types};

pub fn compute(g: &mut Graph, n: NodeId) -> TypeId {
    let t = g.ty(g.in_(n, 1));
    match g.types.int_value(t) {
        Some(v) => g.types.int(i64::from(v == 0)),
        None if g.types.is_int(t) => t,
        // Not an integer: nothing better than the meet with IntTop.
        None => g.types.meet(Types::INT_TOP, t),
    }
}
