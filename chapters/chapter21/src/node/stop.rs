//! Stop: the end of the program, gathering every function's Return.
//!
//! Chapter 18: one input per function, `main`'s first; a function that
//! was inlined leaves.

use super::{print as print_node, return_, NodeKind, Printer};
use crate::graph::{Graph, NodeId};

pub fn new(g: &mut Graph) -> NodeId {
    let stop = g.add_node(NodeKind::Stop, vec![]);
    g.stop = Some(stop);
    stop
}

/// The single Return, when there is exactly one.
pub fn ret(g: &Graph, stop: NodeId) -> Option<NodeId> {
    (g.n_ins(stop) == 1).then(|| g.in_(stop, 0))
}

/// Drops the Returns of functions that were inlined.
pub fn idealize(g: &mut Graph, n: NodeId) -> Option<NodeId> {
    let len = g.n_ins(n);
    let mut i = 0;
    while i < g.n_ins(n) {
        let r = g.in_(n, i);
        if matches!(g.role(r), NodeKind::Return) && return_::fun_dead(g, r) {
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
