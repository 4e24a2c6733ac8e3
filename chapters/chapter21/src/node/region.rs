//! Region: a merge point of control flow.
//!
//! Input 0 is unused; inputs 1.. are the incoming paths, and each Phi on the
//! region has one value per path. A dead path (`~Ctrl`) is removed from the
//! region and from its phis; a region left with one path and no phis
//! becomes that path, and so does the region of an `if` whose arms merge
//! no values.
//!
//! Chapter 15 adds a cast of a tested value inside the arms of its `if`
//! (see [`guarded_casts`]).

use super::NodeKind;
use crate::graph::{Graph, NodeId};
use crate::types::{TypeId, Types};
use rustc_hash::FxHashSet;

pub fn new(g: &mut Graph, paths: &[NodeId]) -> NodeId {
    let mut inputs = vec![None];
    inputs.extend(paths.iter().map(|&p| Some(p)));
    g.add_node(NodeKind::Region, inputs)
}

/// True while a path is still unknown (a loop whose body is being parsed).
pub fn in_progress(g: &Graph, n: NodeId) -> bool {
    // Chapter 18: a function is, while its callers may be unknown.
    if matches!(g.kind(n), NodeKind::Fun { .. }) {
        return super::fun::unknown_callers(g, n);
    }
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

/// Removes dead `path` from region `n` and from its phis; returns the
/// region, or dead control if the region died with them.
pub fn drop_path(g: &mut Graph, n: NodeId, path: usize) -> NodeId {
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
        return g.xctrl();
    }
    g.del_def(n, path);
    n
}

pub fn idealize(g: &mut Graph, n: NodeId) -> Option<NodeId> {
    if in_progress(g, n) {
        return None;
    }
    let dead = (1..g.n_ins(n)).find(|&i| g.ty(g.in_(n, i)) == Types::XCTRL);
    // A loop's dead entry kills the loop through its type, not here.
    let loop_entry = matches!(g.kind(n), NodeKind::Loop) && dead == Some(1);
    if let Some(path) = dead.filter(|_| !loop_entry) {
        return Some(drop_path(g, n, path));
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
    if guarded_casts(g, n) {
        return Some(n);
    }
    None
}

/// Chapter 15: a value that reaches path `i` of this region only through
/// one arm of `if (p)` knows what `p` is there: not zero (not null) on the
/// true arm, zero (null) on the false one. Inside the expressions that the
/// phis take on that path, each use of `p` becomes `p` cast to that type,
/// so `if (!is) r = 1.2; else r = is[2]...` needs no null check of `is`
/// in the else, and `if (x) ...; else r = x + 1` is `r = 1`. The walk
/// stays below the If (what lies above it is shared with the other arm)
/// and never enters the predicate itself, nor a path's direct use of it.
///
/// A node is rewritten in place, so only one that nothing but this path
/// uses ([`used_on_path_only`]): in `x = arg*3; if (arg) r = 1; else r = x;
/// return r + x;` the `arg*3` the else arm takes is also the `x` the
/// return adds, which must not become `0*3`. (Simple's chapter 15 rewrote
/// it, and returned 1 for `arg` 2.)
fn guarded_casts(g: &mut Graph, n: NodeId) -> bool {
    if !matches!(g.kind(n), NodeKind::Region) {
        return false;
    }
    let Some(dom) = idom(g, n) else {
        return false;
    };
    if matches!(g.kind(dom), NodeKind::Start { .. }) {
        return false;
    }
    let floor = super::idepth(g, dom);
    let phis = phis(g, n);
    let mut progress = false;
    'paths: for i in 1..g.n_ins(n) {
        // The nearest arm of an If above this path, below the region's
        // dominator.
        let mut c = g.in_(n, i);
        while !matches!(g.kind(c), NodeKind::CProj { .. }) {
            match super::idom(g, c) {
                Some(up) if super::idepth(g, up) >= floor => c = up,
                _ => continue 'paths,
            }
        }
        let iff = g.in_(c, 0);
        if !matches!(g.kind(iff), NodeKind::If) || g.ty(c) != Types::CTRL {
            continue;
        }
        let pred = g.in_(iff, 1);
        let mut visited = FxHashSet::default();
        visited.insert(pred);
        let mut below = Vec::new();
        for &phi in &phis {
            if let Some(v) = g.input(phi, i) {
                expression_below(g, iff, v, &mut visited, &mut below);
            }
        }
        let private = used_on_path_only(g, &phis, i, &below);
        for m in below.into_iter().filter(|m| private.contains(m)) {
            progress |= cast_uses(g, iff, c, m);
        }
    }
    progress
}

/// Collects into `below`, in the order first met, the nodes of the
/// expression `n` that lie below the If: not a control node, not one
/// pinned above the If, nor anything only they lead to.
fn expression_below(
    g: &mut Graph,
    iff: NodeId,
    n: NodeId,
    visited: &mut FxHashSet<NodeId>,
    below: &mut Vec<NodeId>,
) {
    if !visited.insert(n) || super::is_cfg(g, n) {
        return;
    }
    if let Some(c) = g.input(n, 0) {
        let ctrl = if super::is_cfg(g, c) {
            c
        } else {
            // A New's projection: where the New is.
            match g.input(c, 0) {
                Some(cc) => cc,
                None => return,
            }
        };
        if super::idepth(g, ctrl) < super::idepth(g, iff) {
            return;
        }
    }
    below.push(n);
    stacker::maybe_grow(64 * 1024, 1024 * 1024, || {
        for j in 1..g.n_ins(n) {
            if let Some(d) = g.input(n, j) {
                expression_below(g, iff, d, visited, below);
            }
        }
    });
}

/// The nodes of `below` (the expressions the `phis` take on path `i`)
/// whose every use is on that path: by a phi on path `i` alone, or by a
/// node of `below` that is itself used on the path only. A value used
/// anywhere else (by the other arm, after the merge, by an If) is shared,
/// and so is everything it is computed from. So is a value the parser
/// holds with [`Graph::keep`], which no graph edge shows (chapter 18: a
/// `return`'s value, merged only when the function ends).
fn used_on_path_only(g: &Graph, phis: &[NodeId], i: usize, below: &[NodeId]) -> FxHashSet<NodeId> {
    let in_below: FxHashSet<NodeId> = below.iter().copied().collect();
    let used_elsewhere = |m: NodeId, u: NodeId| {
        if phis.contains(&u) {
            (1..g.n_ins(u)).any(|j| j != i && g.input(u, j) == Some(m))
        } else {
            !in_below.contains(&u)
        }
    };
    let mut shared: Vec<NodeId> = below
        .iter()
        .copied()
        .filter(|&m| g.is_kept(m) || g.outputs(m).iter().any(|&u| used_elsewhere(m, u)))
        .collect();
    let mut is_shared: FxHashSet<NodeId> = shared.iter().copied().collect();
    // What a shared node is computed from is shared too.
    while let Some(m) = shared.pop() {
        for d in g.inputs(m).iter().flatten() {
            if in_below.contains(d) && is_shared.insert(*d) {
                shared.push(*d);
            }
        }
    }
    in_below.difference(&is_shared).copied().collect()
}

/// Replaces each use of the If's predicate by node `n` by the predicate
/// cast to what arm `arm` knows of it.
fn cast_uses(g: &mut Graph, iff: NodeId, arm: NodeId, n: NodeId) -> bool {
    let pred = g.in_(iff, 1);
    let NodeKind::CProj { idx, .. } = *g.kind(arm) else {
        return false;
    };
    if matches!(g.kind(n), NodeKind::Cast { .. }) {
        return false;
    }
    let mut progress = false;
    for j in 1..g.n_ins(n) {
        if g.input(n, j) != Some(pred) {
            continue;
        }
        let t = g.ty(pred);
        let tcast = if idx == 0 {
            g.types.non_zero(t)
        } else {
            g.types.make_init(t).unwrap_or(t)
        };
        if t != tcast {
            let cast = super::cast_new(g, tcast, arm, pred);
            let cast = super::peephole(g, cast);
            // A cast that changes nothing folds back to the predicate: no
            // progress (Simple recursed for ever).
            if cast != pred {
                g.set_def(n, j, Some(cast));
                keep_on_arm(g, n, arm);
                g.work.push(n);
                progress = true;
            }
        }
    }
    progress
}

/// A Load whose pointer is now seen through a cast that holds on `arm`
/// only must run on that arm. The cast pins it there while it lasts, but
/// it may fold: into the constant `*$TOP` on an arm the types rule out,
/// and a load of that constant hoisted above the branch would read
/// through null when the branch is taken. So the load takes `arm` as its
/// control, unless its own is already below it. (It is used on this path
/// only, so it loses nothing.)
fn keep_on_arm(g: &mut Graph, n: NodeId, arm: NodeId) {
    if !matches!(g.kind(n), NodeKind::Load { .. }) {
        return;
    }
    if let Some(ctrl) = g.input(n, 0) {
        // Is the load's control above the arm (a dominator of it)?
        let mut c = Some(arm);
        while c.is_some_and(|x| x != ctrl) {
            c = super::idom(g, c.expect("just tested"));
        }
        if c.is_none() {
            return;
        }
    }
    g.set_def(n, 0, Some(arm));
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
