//! Fun: the entry of a function, a Region over its callers (chapter 18).
//!
//! Every function, `main` included, starts with a Fun. Its input 1 is
//! Start, standing for callers not known (a function value may be called
//! from anywhere it flows to); inputs 2.. are the Calls that linking
//! found to call it (`call.rs`). Its Parms (`parm.rs`) are the Phis that
//! merge what those callers pass. While Start is an input the callers are
//! not all known, so neither the Fun nor its Parms optimize: a parameter
//! is as wide as its declared type. Only inlining (`call_end.rs`) cuts
//! the Start edge, and then the Fun folds away like any Region.

use super::{region, NodeKind};
use crate::graph::{Graph, NodeId};
use crate::types::{TypeId, Types};

pub fn new(g: &mut Graph, sig: TypeId) -> NodeId {
    let start = g.start();
    let kind = NodeKind::Fun {
        sig,
        ret: None,
        folding: false,
    };
    g.add_node(kind, vec![None, Some(start)])
}

/// Callers may be unknown: Start is still input 1.
pub fn unknown_callers(g: &Graph, n: NodeId) -> bool {
    g.input(n, 1)
        .is_some_and(|s| matches!(g.role(s), NodeKind::Start { .. }))
}

/// The function's constant pointer type.
pub fn sig(g: &Graph, n: NodeId) -> TypeId {
    match g.role(n) {
        NodeKind::Fun { sig, .. } => *sig,
        _ => unreachable!("not a Fun"),
    }
}

/// Lowers the function's type (its return type improved); the Fun and its
/// users are revisited.
pub fn set_sig(g: &mut Graph, n: NodeId, new_sig: TypeId) {
    if let NodeKind::Fun { sig, .. } = g.kind_mut(n) {
        if *sig != new_sig {
            *sig = new_sig;
            g.work.push(n);
            g.push_outputs(n);
        }
    }
}

/// The function's Return.
pub fn ret(g: &Graph, n: NodeId) -> Option<NodeId> {
    match g.role(n) {
        NodeKind::Fun { ret, .. } => *ret,
        _ => None,
    }
}

pub fn set_ret(g: &mut Graph, n: NodeId, r: NodeId) {
    if let NodeKind::Fun { ret, .. } = g.kind_mut(n) {
        *ret = Some(r);
    }
}

/// Being inlined into its one call site.
pub fn folding(g: &Graph, n: NodeId) -> bool {
    matches!(g.role(n), NodeKind::Fun { folding: true, .. })
}

pub fn set_folding(g: &mut Graph, n: NodeId) {
    if let NodeKind::Fun { folding, .. } = g.kind_mut(n) {
        *folding = true;
    }
}

/// The name the function was declared with, or `$fun`.
pub fn label(g: &Graph, n: NodeId) -> String {
    g.types
        .fun_name(sig(g, n))
        .map_or_else(|| "$fun".to_owned(), str::to_owned)
}

/// The function's parameters: its Parms, by index.
pub fn parms(g: &Graph, n: NodeId) -> Vec<NodeId> {
    g.outputs(n)
        .iter()
        .copied()
        .filter(|&u| matches!(g.role(u), NodeKind::Phi { parm: Some(_), .. }))
        .collect()
}

/// Control always reaches a function someone may call. A function being
/// inlined is reached only through its call site, and dies with it.
pub fn compute(g: &mut Graph, n: NodeId) -> TypeId {
    if unknown_callers(g, n) {
        return Types::CTRL;
    }
    let live = (1..g.n_ins(n)).any(|i| g.input(n, i).is_some_and(|c| g.ty(c) != Types::XCTRL));
    if live {
        Types::CTRL
    } else {
        Types::XCTRL
    }
}

/// A Fun with unknown callers stays; otherwise it is a Region, whose
/// folding the function's Return and Stop must hear about.
pub fn idealize(g: &mut Graph, n: NodeId) -> Option<NodeId> {
    if unknown_callers(g, n) {
        // A linked call that turned out dead calls nothing: its path goes,
        // with what its Parms took from it, as a Region's dead path does.
        // (Simple keeps it; then the dead call's arguments are scheduled
        // nowhere sensible.)
        let dead = (2..g.n_ins(n)).find(|&i| g.ty(g.in_(n, i)) == Types::XCTRL)?;
        return Some(region::drop_path(g, n, dead));
    }
    let progress = region::idealize(g, n);
    if progress.is_some() {
        if let Some(r) = ret(g, n) {
            g.work.push(r);
        }
        if let Some(stop) = g.stop {
            g.work.push(stop);
        }
    }
    progress
}
