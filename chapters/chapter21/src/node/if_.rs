//! If: a two-way branch on `in(1)` under control `in(0)`.
//!
//! Its value is a pair of controls, one per arm, taken apart by the True and
//! False projections. An arm known not to run has `~Ctrl`: when the
//! predicate is a constant. When a dominating `if` already tested the same
//! predicate and we sit on one of its arms, `idealize` makes the predicate
//! that constant.

use super::{idom, print as print_node, NodeKind, Printer};
use crate::graph::{Graph, NodeId};
use crate::types::{IdxSet, TypeId, Types};

pub fn new(g: &mut Graph, ctrl: NodeId, pred: NodeId) -> NodeId {
    let n = g.add_node(NodeKind::If, vec![Some(ctrl), Some(pred)]);
    // What dominates an If changes in ways no edge tracks: always revisit.
    g.work.push(n);
    n
}

pub fn compute(g: &mut Graph, n: NodeId) -> TypeId {
    // If the If is unreachable, so are both arms.
    let ctrl = g.ty(g.in_(n, 0));
    if ctrl != Types::CTRL && ctrl != Types::BOTTOM {
        return Types::IF_NEITHER;
    }
    // Chapter 18: without peepholes both arms are taken, whatever the
    // predicate, as in Simple's chapter 18: no code is found dead there.
    if g.disable_peephole {
        return Types::IF_BOTH;
    }
    // A predicate not known yet (high) decides nothing: wait for it to
    // fall. (Simple waits only on `Top` and `~int`, so a comparison not yet
    // known, `[1-0]`, takes both arms and then one.)
    let t = g.ty(g.in_(n, 1));
    if g.types.is_high(t) {
        return Types::IF_NEITHER;
    }
    // Chapter 16: null is false, as any zero.
    if t == Types::NULL {
        return Types::IF_FALSE;
    }
    // A float is true when it is not zero (NaN is not zero).
    if let Some(v) = g.types.flt_value(t) {
        return if v == 0.0 {
            Types::IF_FALSE
        } else {
            Types::IF_TRUE
        };
    }
    // Chapter 18: a pointer of any kind that cannot be null is true.
    if g.types.not_null(t) {
        return Types::IF_TRUE;
    }
    // A function pointer to no function at all is null: false.
    if g.types.fidxs(t).is_some_and(IdxSet::is_empty) {
        return Types::IF_FALSE;
    }
    if g.types.nil_of(t).is_some() {
        return Types::IF_BOTH;
    }
    match g.types.int_value(t) {
        Some(0) => Types::IF_FALSE,
        Some(_) => Types::IF_TRUE,
        // Chapter 18: a range without 0 (an array's length `[4-7]`) is
        // true, as Simple tests whether the type's zero fits it.
        None if g.types.is_int(t) && !g.types.isa(Types::INT_ZERO, t) => Types::IF_TRUE,
        None => Types::IF_BOTH,
    }
}

/// On one arm of a dominating If with the same predicate, the predicate's
/// value is known: replace it by that constant (then `compute` folds).
pub fn idealize(g: &mut Graph, n: NodeId) -> Option<NodeId> {
    let pred = g.in_(n, 1);
    if g.types.is_high_or_const(g.ty(pred)) {
        return None;
    }
    // Only an If on this very predicate node can decide it, and such an If
    // uses the predicate. Without one, skip the walk: it would cost the
    // depth of the dominator tree for every If, quadratic in a long program.
    let shared = g
        .outputs(pred)
        .iter()
        .any(|&u| u != n && matches!(g.kind(u), NodeKind::If));
    if !shared {
        return None;
    }
    let mut prior = n;
    let mut dom = idom(g, n);
    while let Some(d) = dom {
        g.add_dep(d, n);
        if matches!(g.kind(d), NodeKind::If) {
            let dpred = g.in_(d, 1);
            g.add_dep(dpred, n);
            if dpred == pred {
                if let NodeKind::CProj { idx, .. } = *g.kind(prior) {
                    let value = g.types.int(i64::from(idx == 0));
                    let con = super::new_constant(g, value);
                    let con = super::peephole(g, con);
                    g.set_def(n, 1, Some(con));
                    return Some(n);
                }
            }
        }
        prior = d;
        dom = idom(g, d);
    }
    None
}

pub fn print(g: &Graph, n: NodeId, out: &mut Printer) {
    out.push_str("if( ");
    print_node(g, g.in_(n, 1), out);
    out.push_str(" )");
}
