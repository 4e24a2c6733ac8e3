//! Div: signed `in(1) / in(2)`. Dividing by a constant 0 folds to 0 (the
//! course has no exceptions yet); `x/1` is `x`.

use crate::graph::{Graph, NodeId};
use crate::types::TypeId;

pub fn compute(g: &mut Graph, n: NodeId) -> TypeId {
    super::int_binary(g, n, |a, b| if b == 0 { 0 } else { a.wrapping_div(b) })
}

pub fn idealize(g: &mut Graph, n: NodeId) -> Option<NodeId> {
    (g.types.int_value(g.ty(g.in_(n, 2))) == Some(1)).then(|| g.in_(n, 1))
}
