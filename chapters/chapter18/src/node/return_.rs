//! Return: hands `in(1)` back to the caller under control `in(0)`.
//!
//! Input 2, once the program has structs, is the final state of all of
//! memory (a MemMerge of the slices that stores split off), so that stores
//! the caller could observe stay alive.

use super::{print as print_node, NodeKind, Printer};
use crate::graph::{Graph, NodeId};
use crate::types::{TypeId, Types};

pub fn new(g: &mut Graph, ctrl: NodeId, expr: NodeId, memory: Option<NodeId>) -> NodeId {
    let mut inputs = vec![Some(ctrl), Some(expr)];
    inputs.extend(memory.map(Some));
    g.add_node(NodeKind::Return, inputs)
}

pub fn compute(g: &mut Graph, n: NodeId) -> TypeId {
    let ctrl = g.ty(g.in_(n, 0));
    let expr = g.ty(g.in_(n, 1));
    g.types.tuple(&[ctrl, expr])
}

/// A return on dead control is dead: it becomes that control.
pub fn idealize(g: &mut Graph, n: NodeId) -> Option<NodeId> {
    let ctrl = g.in_(n, 0);
    (g.ty(ctrl) == Types::XCTRL).then_some(ctrl)
}

pub fn print(g: &Graph, n: NodeId, out: &mut Printer) {
    out.push_str("return ");
    print_node(g, g.in_(n, 1), out);
    out.push(';');
}
