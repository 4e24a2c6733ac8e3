//! Stop: the end of the function, gathering every `return`.

use super::{print as print_node, NodeKind, Printer};
use crate::graph::{Graph, NodeId};
use crate::types::Types;

pub fn new(g: &mut Graph) -> NodeId {
    g.add_node(NodeKind::Stop, vec![])
}

/// The single Return, when there is exactly one.
pub fn ret(g: &Graph, stop: NodeId) -> Option<NodeId> {
    (g.n_ins(stop) == 1).then(|| g.in_(stop, 0))
}

/// Drops returns that turned out to be unreachable.
pub fn idealize(g: &mut Graph, n: NodeId) -> Option<NodeId> {
    let len = g.n_ins(n);
    let mut i = 0;
    while i < g.n_ins(n) {
        if g.ty(g.in_(n, i)) == Types::XCTRL {
            g.del_def(n, i);
        } else {
            i += 1;
        }
    }
    (len != g.n_ins(n)).then_some(n)
}

/// One return prints as itself; several as `Stop[ return 1; return 2; ]`.
pub fn print(g: &Graph, n: NodeId, out: &mut Printer) {
    if let Some(ret) = ret(g, n) {
        return print_node(g, ret, out);
    }
    out.push_str("Stop[ ");
    for &ret in g.inputs(n).iter().flatten() {
        print_node(g, ret, out);
        out.push(' ');
    }
    out.push(']');
}
