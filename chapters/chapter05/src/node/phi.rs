//! Phi: picks the value that arrives along the region's live path.
//!
//! `Phi(Region, a, b)` is `a` when control came through the region's first
//! path and `b` through its second. A phi whose inputs are all one node is
//! that node. A phi of the same operator on every path pulls the operator
//! below itself: `Phi(a+b, c+d)` becomes `Phi(a,c) + Phi(b,d)`, one operator
//! fewer (phis make no code).

use super::{copy_binary, is_cfg, peephole, print as print_node, NodeKind};
use crate::graph::{Graph, NodeId};

pub fn new(g: &mut Graph, label: &str, region: NodeId, values: &[NodeId]) -> NodeId {
    let mut inputs = vec![Some(region)];
    inputs.extend(values.iter().map(|&v| Some(v)));
    g.add_node(
        NodeKind::Phi {
            label: label.into(),
        },
        inputs,
    )
}

pub fn idealize(g: &mut Graph, n: NodeId) -> Option<NodeId> {
    // Phi(x, x) is just x.
    if same_inputs(g, n) {
        return Some(g.in_(n, 1));
    }

    // Pull a common data operator down: Phi(op(A,B), op(Q,R)) becomes
    // op(Phi(A,Q), Phi(B,R)).
    let op = g.in_(n, 1);
    if g.n_ins(op) == 3 && g.input(op, 0).is_none() && !is_cfg(g, op) && same_op(g, n) {
        let region = g.in_(n, 0);
        let mut lhss = vec![Some(region)];
        let mut rhss = vec![Some(region)];
        for i in 1..g.n_ins(n) {
            lhss.push(Some(g.in_(g.in_(n, i), 1)));
            rhss.push(Some(g.in_(g.in_(n, i), 2)));
        }
        let label = match g.kind(n) {
            NodeKind::Phi { label } => label.clone(),
            _ => unreachable!("phi::idealize on a non-phi"),
        };
        let phi_lhs = g.add_node(
            NodeKind::Phi {
                label: label.clone(),
            },
            lhss,
        );
        let phi_lhs = peephole(g, phi_lhs);
        let phi_rhs = g.add_node(NodeKind::Phi { label }, rhss);
        let phi_rhs = peephole(g, phi_rhs);
        return Some(copy_binary(g, op, phi_lhs, phi_rhs));
    }
    None
}

/// All inputs are the same operator.
fn same_op(g: &Graph, n: NodeId) -> bool {
    let first = g.kind(g.in_(n, 1));
    (2..g.n_ins(n)).all(|i| g.kind(g.in_(n, i)).same_op(first))
}

/// All inputs are the same node.
fn same_inputs(g: &Graph, n: NodeId) -> bool {
    let first = g.input(n, 1);
    (2..g.n_ins(n)).all(|i| g.input(n, i) == first)
}

pub fn print(g: &Graph, n: NodeId, out: &mut String) {
    out.push_str("Phi(");
    for (i, input) in g.inputs(n).iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        match input {
            Some(x) => print_node(g, *x, out),
            None => out.push_str("null"),
        }
    }
    out.push(')');
}
