//! Start: the entry of the function.
//!
//! Start's value is a tuple: the initial control, the argument `arg`, and
//! the initial state of each memory slice. Projections take it apart (see
//! `proj.rs`). The tuple grows as each `struct` declaration adds one alias
//! class per field; `compute` returns it, and Start has no rewrites and no
//! dominator.

use super::NodeKind;
use crate::graph::{Graph, NodeId};
use crate::types::{Type, TypeId};

/// Makes Start with the tuple type `args` and records it in the graph.
pub fn new(g: &mut Graph, args: TypeId) -> NodeId {
    let start = g.add_node(NodeKind::Start { args }, vec![]);
    g.set_ty(start, args);
    g.set_start(start);
    start
}

/// Adds `count` memory slices to Start's tuple and returns the alias class
/// of the first; they are numbered by their position in the tuple.
pub fn add_aliases(g: &mut Graph, count: usize) -> u32 {
    let start = g.start();
    let NodeKind::Start { args } = *g.kind(start) else {
        unreachable!("the start node is a Start")
    };
    let mut elems = match g.types.get(args) {
        Type::Tuple(elems) => elems.to_vec(),
        _ => unreachable!("Start's type is a tuple"),
    };
    let first = elems.len() as u32;
    for alias in first..first + count as u32 {
        elems.push(g.types.mem(alias));
    }
    let args = g.types.tuple(&elems);
    *g.kind_mut(start) = NodeKind::Start { args };
    g.set_ty(start, args);
    first
}
