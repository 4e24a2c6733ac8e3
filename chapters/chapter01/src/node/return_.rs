//! Return: hands `in(1)` back to the caller under control `in(0)`.

use super::{print as print_node, NodeKind};
use crate::graph::{Graph, NodeId};
use crate::types::Types;

pub fn new(g: &mut Graph, ctrl: NodeId, expr: NodeId) -> NodeId {
    let ret = g.add_node(NodeKind::Return, vec![Some(ctrl), Some(expr)]);
    g.set_ty(ret, Types::BOTTOM);
    ret
}

pub fn print(g: &Graph, n: NodeId, out: &mut String) {
    out.push_str("return ");
    print_node(g, g.in_(n, 1), out);
    out.push(';');
}
