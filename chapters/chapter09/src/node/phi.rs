//! Phi: picks the value that arrives along the region's live path.
//!
//! `Phi(Region, a, b)` is `a` when control came through the region's first
//! path and `b` through its second. A phi whose live inputs are all one node
//! is that node. A phi of the same operator on every path pulls the operator
//! below itself: `Phi(a+b, c+d)` becomes `Phi(a,c) + Phi(b,d)`, one operator
//! fewer (phis make no code).

use super::{copy_binary, is_cfg, peephole, print as print_node, region, NodeKind, Printer};
use crate::graph::{Graph, NodeId};
use crate::types::{TypeId, Types};

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

/// The phi's region is a region whose paths are all known.
fn region_done(g: &Graph, n: NodeId) -> bool {
    let region = g.in_(n, 0);
    g.kind(region).is_region() && !region::in_progress(g, region)
}

/// The meet of the inputs on live paths: a constant when all agree. A phi
/// on a loop still being parsed may be anything; a phi whose region has
/// collapsed into plain control keeps its type (or is `Top` if dead).
pub fn compute(g: &mut Graph, n: NodeId) -> TypeId {
    let region = g.in_(n, 0);
    if !g.kind(region).is_region() {
        return if g.ty(region) == Types::XCTRL {
            Types::TOP
        } else {
            g.ty(n)
        };
    }
    if region::in_progress(g, region) {
        return Types::BOTTOM;
    }
    let mut t = Types::TOP;
    for i in 1..g.n_ins(n) {
        let path = g.in_(region, i);
        g.add_dep(path, n);
        let value = g.in_(n, i);
        if g.ty(path) != Types::XCTRL && value != n {
            let ti = g.ty(value);
            t = g.types.meet(t, ti);
        }
    }
    t
}

pub fn idealize(g: &mut Graph, n: NodeId) -> Option<NodeId> {
    let region = g.in_(n, 0);
    if !g.kind(region).is_region() {
        return Some(g.in_(n, 1)); // the region collapsed into plain control
    }
    if region::in_progress(g, region) || g.n_ins(region) <= 1 {
        return None;
    }
    if let Some(live) = single_unique_input(g, n) {
        return Some(live);
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

/// The one node every live path brings in, ignoring the phi itself.
fn single_unique_input(g: &mut Graph, n: NodeId) -> Option<NodeId> {
    let region = g.in_(n, 0);
    // A loop whose entry is dead is going away; leave its phis alone.
    if matches!(g.kind(region), NodeKind::Loop) && g.ty(g.in_(region, 1)) == Types::XCTRL {
        return None;
    }
    let mut live = None;
    for i in 1..g.n_ins(n) {
        let path = g.in_(region, i);
        g.add_dep(path, n);
        let value = g.in_(n, i);
        if g.ty(path) != Types::XCTRL && value != n {
            match live {
                None => live = Some(value),
                Some(l) if l == value => {}
                Some(_) => return None,
            }
        }
    }
    live
}

/// `Phi(Region12,a,b)`; a `Z` in front marks a phi of a loop still being
/// parsed, and `____` a back-edge value not yet known.
pub fn print(g: &Graph, n: NodeId, out: &mut Printer) {
    if !region_done(g, n) {
        out.push('Z');
    }
    out.push_str("Phi(");
    for (i, input) in g.inputs(n).iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        match input {
            Some(x) => print_node(g, *x, out),
            None => out.push_str("____"),
        }
    }
    out.push(')');
}
