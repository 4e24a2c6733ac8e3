//! Start: the entry of the function.
//!
//! Start's value is a tuple: the initial control, the argument `arg`, and,
//! once a program declares a `struct`, the whole of memory as one value.
//! Projections take it apart (see `proj.rs`). Alias classes are not in the
//! tuple: they are split off that one value as stores need them (see the
//! parser). `compute` returns the tuple, and Start has no rewrites and no
//! dominator.

use super::NodeKind;
use crate::graph::{Graph, NodeId};
use crate::types::{Type, TypeId, Types};

/// Makes Start with the tuple type `args` and records it in the graph.
pub fn new(g: &mut Graph, args: TypeId) -> NodeId {
    let start = g.add_node(NodeKind::Start { args }, vec![]);
    g.set_ty(start, args);
    g.set_start(start);
    start
}

/// Adds the whole memory to Start's tuple, once, when the first `struct`
/// is declared (a program without structs has no memory). Returns its
/// index in the tuple.
pub fn add_memory(g: &mut Graph) -> usize {
    let start = g.start();
    let NodeKind::Start { args } = *g.kind(start) else {
        unreachable!("the start node is a Start")
    };
    let mut elems = match g.types.get(args) {
        Type::Tuple(elems) => elems.to_vec(),
        _ => unreachable!("Start's type is a tuple"),
    };
    elems.push(Types::MEM_BOT);
    let args = g.types.tuple(&elems);
    *g.kind_mut(start) = NodeKind::Start { args };
    g.set_ty(start, args);
    elems.len() - 1
}
