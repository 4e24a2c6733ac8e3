//! Region: a merge point of control flow.
//!
//! Input 0 is unused; inputs 1.. are the incoming paths, and each Phi on the
//! region has one value per path. A dead path (`~Ctrl`) is removed from the
//! region and from its phis; a region left with one path and no phis
//! becomes that path, and so does the region of an `if` whose arms merge
//! no values.

use super::NodeKind;
use crate::graph::{Graph, NodeId};
use crate::types::{TypeId, Types};

pub fn new(g: &mut Graph, paths: &[NodeId]) -> NodeId {
    let mut inputs = vec![None];
    inputs.extend(paths.iter().map(|&p| Some(p)));
    g.add_node(NodeKind::Region, inputs)
}

/// True while a path is still unknown (a loop whose body is being parsed).
pub fn in_progress(g: &Graph, n: NodeId) -> bool {
    g.input(n, g.n_ins(n) - 1).is_none()
}

/// Live if any path is live.
pub fn compute(g: &mut Graph, n: NodeId) -> TypeId {
    if in_progress(g, n) {
        return Types::CTRL;
    }
    let mut t = Types::XCTRL;
    for i in 1..g.n_ins(n) {
        let ti = g.ty(g.in_(n, i));
        t = g.types.meet(t, ti);
    }
    t
}

pub fn idealize(g: &mut Graph, n: NodeId) -> Option<NodeId> {
    if in_progress(g, n) {
        return None;
    }
    let dead = (1..g.n_ins(n)).find(|&i| g.ty(g.in_(n, i)) == Types::XCTRL);
    // A loop's dead entry kills the loop through its type, not here.
    let loop_entry = matches!(g.kind(n), NodeKind::Loop) && dead == Some(1);
    if let Some(path) = dead.filter(|_| !loop_entry) {
        // Drop the path from every phi with one input per path; repeat, as
        // deleting may kill outputs and reorder the list.
        let mut seen = usize::MAX;
        while seen != g.outputs(n).len() {
            seen = g.outputs(n).len();
            let mut i = 0;
            while i < g.outputs(n).len() {
                let phi = g.outputs(n)[i];
                if matches!(g.kind(phi), NodeKind::Phi { .. }) && g.n_ins(phi) == g.n_ins(n) {
                    g.del_def(phi, path);
                    // The phi's users may fold now that it has one input less.
                    g.push_outputs(phi);
                }
                i += 1;
            }
        }
        if g.is_dead(n) {
            return Some(g.xctrl());
        }
        g.del_def(n, path);
        return Some(n);
    }
    // One path and no phis: become that path. Phis with one input collapse
    // on their own first.
    if g.n_ins(n) == 2 && phis(g, n).is_empty() {
        return Some(g.in_(n, 1));
    }
    // A diamond that merges nothing, `if (p) {} else {}`: the branch is
    // useless, control continues from above the If.
    if g.n_ins(n) == 3 && phis(g, n).is_empty() {
        let (p1, p2) = (g.in_(n, 1), g.in_(n, 2));
        let both_proj = matches!(g.kind(p1), NodeKind::CProj { .. })
            && matches!(g.kind(p2), NodeKind::CProj { .. });
        if both_proj && g.input(p1, 0) == g.input(p2, 0) {
            let iff = g.in_(p1, 0);
            if matches!(g.kind(iff), NodeKind::If) {
                return Some(g.in_(iff, 0));
            }
        }
    }
    None
}

fn phis(g: &Graph, n: NodeId) -> Vec<NodeId> {
    g.outputs(n)
        .iter()
        .copied()
        .filter(|&u| matches!(g.kind(u), NodeKind::Phi { .. }))
        .collect()
}

/// The immediate dominator of a region: where the dominator chains of all
/// its paths meet.
pub fn idom(g: &mut Graph, n: NodeId) -> Option<NodeId> {
    let mut dom = g.input(n, 1)?;
    for i in 2..g.n_ins(n) {
        dom = super::lca(g, dom, g.input(n, i)?)?;
    }
    Some(dom)
}
