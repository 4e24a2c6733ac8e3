//! SubF: `in(1) - in(2)` on floats.
//!
//! Made by the parser for a `-` with a float operand (see `widen`).
//! Constants fold; `x - 0.0` is `x` for every `x`, `-0.0` and NaN
//! included. Simple also drops `x - (-0.0)`, which is `x + 0.0` and so
//! not `x` when `x` is `-0.0`; we drop it only where `x` is an int
//! converted (`ToFloat`), which never is. Unlike Sub, `x - x` is not known
//! to be 0: it is NaN when `x` is infinite or NaN.

use super::NodeKind;
use crate::graph::{Graph, NodeId};
use crate::types::TypeId;

pub fn compute(g: &mut Graph, n: NodeId) -> TypeId {
    super::flt_binary(g, n, |a, b| a - b)
}

pub fn idealize(g: &mut Graph, n: NodeId) -> Option<NodeId> {
    let (lhs, t2) = (g.in_(n, 1), g.ty(g.in_(n, 2)));
    let zero = g.types.flt_value(t2).filter(|&v| v == 0.0)?;
    (zero.is_sign_positive() || matches!(g.kind(lhs), NodeKind::ToFloat)).then_some(lhs)
}
