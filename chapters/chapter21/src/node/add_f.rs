//! AddF: `in(1) + in(2)` on floats, rounded as IEEE 754 doubles.
//!
//! The parser makes an AddF instead of an Add when either operand is a
//! float (see `widen`). Float addition is commutative but not associative
//! (`(1e16+1)+1` is not `1e16+(1+1)`), so none of Add's reshaping of sums
//! applies: constants fold, and the one identity is `x + (-0.0)`, which is
//! `x` for every `x`. Simple also drops `x + 0.0`, but that is wrong for
//! `x = -0.0` (`-0.0 + 0.0` is `0.0`), so we drop it only where `x` is
//! an int converted (`ToFloat`), which is never `-0.0`.

use super::NodeKind;
use crate::graph::{Graph, NodeId};
use crate::types::TypeId;

pub fn compute(g: &mut Graph, n: NodeId) -> TypeId {
    super::flt_binary(g, n, |a, b| a + b)
}

pub fn idealize(g: &mut Graph, n: NodeId) -> Option<NodeId> {
    let (lhs, t2) = (g.in_(n, 1), g.ty(g.in_(n, 2)));
    let zero = g.types.flt_value(t2).filter(|&v| v == 0.0)?;
    (zero.is_sign_negative() || matches!(g.kind(lhs), NodeKind::ToFloat)).then_some(lhs)
}
