//! Return: hands `in(1)` back to the caller under control `in(0)`.

use super::{print as print_node, NodeKind};
use crate::graph::{Graph, NodeId};
use crate::types::{TypeId, Types};

pub fn new(g: &mut Graph, ctrl: Option<NodeId>, expr: NodeId) -> NodeId {
    g.add_node(NodeKind::Return, vec![ctrl, Some(expr)])
}

pub fn compute(g: &mut Graph, n: NodeId) -> TypeId {
    // Control is absent after an earlier return: no control at all.
    let ctrl = g.input(n, 0).map_or(Types::BOTTOM, |c| g.ty(c));
    let expr = g.ty(g.in_(n, 1));
    g.types.tuple(&[ctrl, expr])
}

pub fn print(g: &Graph, n: NodeId, out: &mut String) {
    out.push_str("return ");
    print_node(g, g.in_(n, 1), out);
    out.push(';');
}
