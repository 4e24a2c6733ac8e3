//! ReadOnly: a reference seen read-only, printed `(const)x` (chapter 17).
//!
//! A reference declared with a value (`S s = new S;`), or with `val`, is
//! deeply immutable: nothing reachable through it may be stored into. The
//! parser wraps its value in a ReadOnly, whose type is the pointer's
//! read-only view ([`Types::make_ro`]): every field final. A store through
//! it is then refused once the program is optimized (`Cannot modify final
//! field`); reading is fine, and another, mutable, reference to the same
//! object may still change it. A value that is read-only already needs no
//! wrapper. At run time a ReadOnly is its input.

use crate::graph::{Graph, NodeId};
use crate::types::{TypeId, Types};

/// A new ReadOnly of `x`, not yet peepholed.
pub fn new(g: &mut Graph, x: NodeId) -> NodeId {
    g.add_node(super::NodeKind::ReadOnly, vec![None, Some(x)])
}

/// The input's type, read-only if it is a reference.
pub fn compute(g: &mut Graph, n: NodeId) -> TypeId {
    let t = g.ty(g.in_(n, 1));
    g.types.make_ro(t)
}

/// Useless on what is read-only already (or no reference at all).
pub fn idealize(g: &mut Graph, n: NodeId) -> Option<NodeId> {
    let x = g.in_(n, 1);
    let t = g.ty(x);
    (t != Types::BOTTOM && g.types.is_final(t)).then_some(x)
}
