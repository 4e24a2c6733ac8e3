//! Region: a merge point of control flow.
//!
//! Input 0 is unused; inputs 1.. are the incoming paths, and each Phi on the
//! region has one value per path. A dead path (`~Ctrl`) is removed from the
//! region and from its phis; a region left with one path becomes that path.

use super::NodeKind;
use crate::graph::{Graph, NodeId};
use crate::types::{TypeId, Types};

pub fn new(g: &mut Graph, paths: &[NodeId]) -> NodeId {
    let mut inputs = vec![None];
    inputs.extend(paths.iter().map(|&p| Some(p)));
    g.add_node(NodeKind::Region { idom: None }, inputs)
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
    let path = (1..g.n_ins(n)).find(|&i| g.ty(g.in_(n, i)) == Types::XCTRL)?;
    let phis: Vec<NodeId> = phis(g, n);
    for &phi in &phis {
        g.del_def(phi, path);
    }
    g.del_def(n, path);
    // Down to one path: become it. Phis on a one-path region must become
    // their single input first; until their own peepholes do that, such a
    // region just stays.
    if g.n_ins(n) == 2 && phis.is_empty() {
        return Some(g.in_(n, 1));
    }
    Some(n)
}

fn phis(g: &Graph, n: NodeId) -> Vec<NodeId> {
    g.outputs(n)
        .iter()
        .copied()
        .filter(|&u| matches!(g.kind(u), NodeKind::Phi { .. }))
        .collect()
}

/// The immediate dominator of a two-path region: where the dominator chains
/// of its two paths meet. Unknown (`None`) for other regions.
pub fn idom(g: &mut Graph, n: NodeId) -> Option<NodeId> {
    if let NodeKind::Region { idom: Some(cached) } = g.kind(n) {
        return Some(*cached);
    }
    if g.n_ins(n) != 3 {
        return None;
    }
    let mut lhs = super::idom(g, g.in_(n, 1));
    let mut rhs = super::idom(g, g.in_(n, 2));
    while lhs != rhs {
        let (l, r) = (lhs?, rhs?);
        let (dl, dr) = (g.node(l).idepth, g.node(r).idepth);
        if dl >= dr {
            lhs = super::idom(g, l);
        }
        if dl <= dr {
            rhs = super::idom(g, r);
        }
    }
    let dom = lhs?;
    g.node_mut(n).idepth = g.node(dom).idepth + 1;
    if let NodeKind::Region { idom } = g.kind_mut(n) {
        *idom = Some(dom);
    }
    Some(dom)
}
