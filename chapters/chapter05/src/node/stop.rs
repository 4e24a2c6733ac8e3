//! Stop: the end of the function, gathering every `return`.

use super::{print as print_node, NodeKind};
use crate::graph::{Graph, NodeId};

pub fn new(g: &mut Graph) -> NodeId {
    g.add_node(NodeKind::Stop, vec![])
}

/// The single Return, when there is exactly one.
pub fn ret(g: &Graph, stop: NodeId) -> Option<NodeId> {
    (g.n_ins(stop) == 1).then(|| g.in_(stop, 0))
}

/// One return prints as itself; several as `Stop[ return 1; return 2; ]`.
pub fn print(g: &Graph, n: NodeId, out: &mut String) {
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
