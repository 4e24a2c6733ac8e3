//! The node kinds and what each one does.
//!
//! A node's behaviour sits with its kind in one file per family. In this
//! chapter a node only needs to be made and printed (the expression form
//! Simple prints); later chapters add `compute` (its type) and `idealize`
//! (local rewrites), driven by a peephole pass. This module names the kinds
//! and dispatches to those files.

mod constant;
mod return_;
mod start;

pub use return_::new as return_new;
pub use start::new as start_new;

use crate::graph::{Graph, NodeId};
use crate::types::TypeId;

/// What a node is. The inputs are kept in the graph; a kind carries only the
/// data that is not an edge.
#[derive(Clone, Debug)]
pub enum NodeKind {
    /// Function entry.
    Start,
    /// Returns `in(1)` under control `in(0)`.
    Return,
    /// A constant; its only input is Start, to make it reachable in walks.
    Constant(TypeId),
}

/// A short name, e.g. `Start` or `Return`.
pub fn label(g: &Graph, n: NodeId) -> String {
    match g.kind(n) {
        NodeKind::Start => "Start".into(),
        NodeKind::Return => "Return".into(),
        NodeKind::Constant(t) => g.types.to_string(*t),
    }
}

/// A name unique in the graph, e.g. `Return3` or `Con_2`.
pub fn unique_name(g: &Graph, n: NodeId) -> String {
    match g.kind(n) {
        NodeKind::Constant(_) => format!("Con_{n}"),
        _ => format!("{}{n}", label(g, n)),
    }
}

/// The label drawn in a graph picture.
pub fn glabel(g: &Graph, n: NodeId) -> String {
    label(g, n)
}

/// Control-flow nodes: the ones drawn as yellow boxes.
pub fn is_cfg(g: &Graph, n: NodeId) -> bool {
    matches!(g.kind(n), NodeKind::Start | NodeKind::Return)
}

/// A new constant node of type `ty`.
pub fn new_constant(g: &mut Graph, ty: TypeId) -> NodeId {
    constant::new(g, ty)
}

/// Appends the expression form of `n`, as Simple's `print()` shows it.
pub fn print(g: &Graph, n: NodeId, out: &mut String) {
    if g.is_dead(n) {
        out.push_str(&unique_name(g, n));
        out.push_str(":DEAD");
        return;
    }
    match g.kind(n) {
        NodeKind::Start => out.push_str("Start"),
        NodeKind::Return => return_::print(g, n, out),
        NodeKind::Constant(t) => g.types.print(*t, out),
    }
}

/// The printed form of `n` as a new string.
pub fn to_string(g: &Graph, n: NodeId) -> String {
    let mut s = String::new();
    print(g, n, &mut s);
    s
}
