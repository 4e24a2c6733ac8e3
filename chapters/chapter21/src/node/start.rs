//! Start: the entry of the program (chapter 18: of every function, whose
//! unknown callers it stands for).
//!
//! Start's value is a tuple: the initial control, the whole of memory as
//! one value (chapter 16: always, as Simple's `$mem`; nothing is stored
//! anywhere yet, so it is `MEM#TOP`), and the argument `arg`.
//! Projections take it apart (see `proj.rs`). Alias classes are not in the
//! tuple: they are split off that one value as stores need them (see the
//! parser). `compute` returns the tuple, and Start has no rewrites and no
//! dominator.

use super::NodeKind;
use crate::graph::{Graph, NodeId};
use crate::types::TypeId;

/// Makes Start with the tuple type `args` and records it in the graph.
pub fn new(g: &mut Graph, args: TypeId) -> NodeId {
    let start = g.add_node(NodeKind::Start { args }, vec![]);
    g.set_ty(start, args);
    g.set_start(start);
    start
}
