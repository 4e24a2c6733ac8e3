//! MinusF: float negation.
//!
//! Made by the parser for a unary `-` of a float (see `widen`). Negation
//! flips the sign bit, so `-(0.0)` is `-0.0` and `-(-x)` is `x` for every
//! `x`.

use super::NodeKind;
use crate::graph::{Graph, NodeId};
use crate::types::{TypeId, Types};

pub fn compute(g: &mut Graph, n: NodeId) -> TypeId {
    let t = g.ty(g.in_(n, 1));
    match g.types.flt_value(t) {
        Some(v) => g.types.flt(-v),
        None if g.types.is_flt(t) => t,
        // Not a float: nothing better than the meet with FltTop.
        None => g.types.meet(Types::FLT_TOP, t),
    }
}

/// `-(-x)` is `x`.
pub fn idealize(g: &mut Graph, n: NodeId) -> Option<NodeId> {
    let x = g.in_(n, 1);
    matches!(g.kind(x), NodeKind::MinusF).then(|| g.in_(x, 1))
}
