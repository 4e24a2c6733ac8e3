//! Return: hands `in(1)` back to the caller under control `in(0)`.

use super::{print as print_node, NodeKind, Printer};
use crate::graph::{Graph, NodeId};
use crate::types::{TypeId, Types};

pub fn new(g: &mut Graph, ctrl: NodeId, expr: NodeId) -> NodeId {
    g.add_node(NodeKind::Return, vec![Some(ctrl), Some(expr)])
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
