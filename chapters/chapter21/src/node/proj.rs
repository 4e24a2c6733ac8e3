//! Proj and CProj: element `idx` of a multi-valued node's tuple.
//!
//! Control projections (CProj) are the True and False arms of an If, and
//! (chapter 18) a CallEnd's control; each begins a basic block. Data
//! projections (Proj) are Start's whole memory (`$mem`), a New's pointer
//! and slices, and a CallEnd's memory and result, which prints as the call
//! (`sq( 3)`). A projection of a call being inlined becomes the callee's
//! Return's control, memory or value.

use super::NodeKind;
use crate::graph::{Graph, NodeId};
use crate::types::{TypeId, Types};

/// A data projection of Start: `arg` or the whole memory.
pub fn new(g: &mut Graph, multi: NodeId, idx: usize, label: &'static str) -> NodeId {
    g.add_node(NodeKind::Proj { idx, label }, vec![Some(multi)])
}

/// A control projection: an arm of an If, or Start's control.
pub fn new_cproj(g: &mut Graph, multi: NodeId, idx: usize, label: &'static str) -> NodeId {
    g.add_node(NodeKind::CProj { idx, label }, vec![Some(multi)])
}

pub fn compute(g: &mut Graph, n: NodeId, idx: usize) -> TypeId {
    let t = g.ty(g.in_(n, 0));
    g.types.tuple_elem(t, idx).unwrap_or(Types::BOTTOM)
}

/// When the other arm of an If is dead, this arm always runs: it is just the
/// If's own control. An If on `!x` is an If on `x` with the arms swapped.
pub fn idealize(g: &mut Graph, n: NodeId, idx: usize) -> Option<NodeId> {
    let multi = g.in_(n, 0);
    // Chapter 18: a call being inlined hands back the Return's pieces.
    if matches!(g.kind(multi), NodeKind::CallEnd { .. }) {
        return super::call_end::pcopy(g, multi, idx);
    }
    if !matches!(g.kind(multi), NodeKind::If) || idx > 1 {
        return None;
    }
    let other = g.types.tuple_elem(g.ty(multi), 1 - idx);
    if other == Some(Types::XCTRL) {
        return Some(g.in_(multi, 0));
    }
    let pred = g.in_(multi, 1);
    g.add_dep(pred, n);
    if matches!(g.kind(pred), NodeKind::Not) {
        let (ctrl, x) = (g.in_(multi, 0), g.in_(pred, 1));
        let flipped = super::if_new(g, ctrl, x);
        let flipped = super::peephole(g, flipped);
        let label = if idx == 0 { "False" } else { "True" };
        return Some(new_cproj(g, flipped, 1 - idx, label));
    }
    None
}

/// Chapter 18: a data projection of a call being inlined is the Return's
/// memory or value.
pub fn idealize_data(g: &mut Graph, n: NodeId, idx: usize) -> Option<NodeId> {
    let multi = g.in_(n, 0);
    if matches!(g.kind(multi), NodeKind::CallEnd { .. }) {
        return super::call_end::pcopy(g, multi, idx);
    }
    None
}
