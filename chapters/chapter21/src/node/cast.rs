//! Cast: a value seen through a fact that a branch established.
//!
//! Inside `if (p) ...` the pointer `p` is not null. The parser rebinds `p`
//! on that arm to `Cast(*void, p)`, whose type is the join of `p`'s type
//! and `*void`: the same struct, no longer nullable. Control input 0 keeps
//! the cast below the test that justifies it.

use super::NodeKind;
use crate::graph::{Graph, NodeId};
use crate::types::{TypeId, Types};

pub fn new(g: &mut Graph, ty: TypeId, ctrl: NodeId, value: NodeId) -> NodeId {
    g.add_node(NodeKind::Cast { ty }, vec![Some(ctrl), Some(value)])
}

/// Chapter 18: a cast with no control, of a value whose type is not known
/// yet (a forward reference's, or the result of a call of one) to the type
/// declared for it. It must fold away once the type is known.
pub fn new_unpinned(g: &mut Graph, ty: TypeId, value: NodeId) -> NodeId {
    g.add_node(NodeKind::Cast { ty }, vec![None, Some(value)])
}

/// The input's type, lifted by what the cast knows.
pub fn compute(g: &mut Graph, n: NodeId, ty: TypeId) -> TypeId {
    // Pinned below a test whose arm died, the cast is never reached: Top,
    // so what is computed from it folds away too (kept, it fed a loop's
    // dead phi cycle that the schedule ran ahead of the cast's input).
    if g.input(n, 0).is_some_and(|c| g.ty(c) == Types::XCTRL) {
        return Types::TOP;
    }
    let t = g.ty(g.in_(n, 1));
    g.types.join(t, ty)
}

/// Useless once the input's own type is at least as good.
pub fn idealize(g: &mut Graph, n: NodeId, ty: TypeId) -> Option<NodeId> {
    let value = g.in_(n, 1);
    let t = g.ty(value);
    g.types.isa(t, ty).then_some(value)
}

/// Chapter 18: a cast without control (see [`new_unpinned`]) that did not
/// fold away: the value turned out not to be of the declared type.
pub fn error(g: &Graph, n: NodeId) -> Option<crate::Error> {
    let NodeKind::Cast { ty } = *g.kind(n) else {
        return None;
    };
    if g.input(n, 0).is_some() {
        return None;
    }
    let t = g.ty(g.in_(n, 1));
    let at = g.operator_at.get(&n).copied().unwrap_or(u32::MAX);
    Some(crate::Error::new(
        format!(
            "Type {} is not of declared type {}",
            g.types.str(t),
            g.types.str(ty)
        ),
        at as usize,
    ))
}
