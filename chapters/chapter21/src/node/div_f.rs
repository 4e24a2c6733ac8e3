//! DivF: `in(1) / in(2)` on floats.
//!
//! Made by the parser for a `/` with a float operand (see `widen`). It
//! follows IEEE 754: dividing by zero gives an infinity (or NaN for
//! `0.0/0.0`), where the integer Div gives 0. Constants fold; `x / 1.0` is
//! `x`.

use crate::graph::{Graph, NodeId};
use crate::types::TypeId;

pub fn compute(g: &mut Graph, n: NodeId) -> TypeId {
    super::flt_binary(g, n, |a, b| a / b)
}

pub fn idealize(g: &mut Graph, n: NodeId) -> Option<NodeId> {
    (g.types.flt_value(g.ty(g.in_(n, 2))) == Some(1.0)).then(|| g.in_(n, 1))
}
