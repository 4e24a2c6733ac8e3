//! If: a two-way branch on `in(1)` under control `in(0)`.
//!
//! Its value is a pair of controls, one per arm, taken apart by the True and
//! False projections. An arm known not to run has `~Ctrl`: when the
//! predicate is a constant, or when a dominating `if` already tested the
//! same predicate and we sit on one of its arms.

use super::{idom, print as print_node, NodeKind, Printer};
use crate::graph::{Graph, NodeId};
use crate::types::{TypeId, Types};

pub fn new(g: &mut Graph, ctrl: NodeId, pred: NodeId) -> NodeId {
    g.add_node(NodeKind::If, vec![Some(ctrl), Some(pred)])
}

pub fn compute(g: &mut Graph, n: NodeId) -> TypeId {
    // If the If is unreachable, so are both arms.
    let ctrl = g.ty(g.in_(n, 0));
    if ctrl != Types::CTRL && ctrl != Types::BOTTOM {
        return Types::IF_NEITHER;
    }
    let pred = g.in_(n, 1);
    match g.types.int_value(g.ty(pred)) {
        Some(0) => return Types::IF_FALSE,
        Some(_) => return Types::IF_TRUE,
        None => {}
    }
    // Only walk the dominators when another If tests the same predicate:
    // the answer is the same, and straight-line code stays linear.
    let shared = g
        .outputs(pred)
        .iter()
        .any(|&u| u != n && matches!(g.kind(u), NodeKind::If));
    if shared {
        // Walk up the dominator tree looking for an If on the same predicate.
        let mut prior = n;
        let mut dom = idom(g, n);
        while let Some(d) = dom {
            if matches!(g.kind(d), NodeKind::If) && g.input(d, 1) == Some(pred) {
                // Dominated through one arm: that arm's answer holds here.
                // Otherwise the dominating test's own answer does.
                return match g.kind(prior) {
                    NodeKind::Proj { idx: 0, .. } => Types::IF_TRUE,
                    NodeKind::Proj { .. } => Types::IF_FALSE,
                    _ => g.ty(d),
                };
            }
            prior = d;
            dom = idom(g, d);
        }
    }
    Types::IF_BOTH
}

pub fn print(g: &Graph, n: NodeId, out: &mut Printer) {
    out.push_str("if( ");
    print_node(g, g.in_(n, 1), out);
    out.push_str(" )");
}
