//! CallEnd: where a call comes back (chapter 18).
//!
//! Input 0 is the Call, inputs 1.. the Returns of the functions linked to
//! it. Its tuple is control, all of memory (a call may write anything:
//! memory crosses a call whole, and each function splits out only the
//! classes it touches), and the result, whose type is the return type the
//! function pointer's type promises.
//!
//! Inlining: a call linked to exactly one function, through a constant
//! pointer used by this call alone, of a function with no other caller
//! (and not a call of a function from inside itself), is folded: the Fun
//! takes the call's control instead of Start, and the CallEnd's
//! projections become the Return's control, memory and value. The Fun,
//! its Parms and the Return then fold away as a Region and Phis do.

use super::{call, fun, NodeKind};
use crate::graph::{Graph, NodeId};
use crate::types::{TypeId, Types};

pub fn new(g: &mut Graph, call: NodeId) -> NodeId {
    g.add_node(NodeKind::CallEnd { folding: false }, vec![Some(call)])
}

pub fn folding(g: &Graph, n: NodeId) -> bool {
    matches!(g.kind(n), NodeKind::CallEnd { folding: true, .. })
}

/// The call's control, all of memory, and the result the pointer's type
/// promises.
pub fn compute(g: &mut Graph, n: NodeId) -> TypeId {
    let c = g.in_(n, 0);
    if !matches!(g.kind(c), NodeKind::Call { .. }) {
        let low = g.types.tuple(&[Types::CTRL, Types::MEM_BOT, Types::BOTTOM]);
        return g.types.dual(low);
    }
    let fptr = call::fptr(g, c);
    g.add_dep(fptr, n);
    let ft = g.ty(fptr);
    // A pointer not known yet (a cast of null that dies, `~nptr`) calls
    // nothing yet.
    let ret = if g.types.is_high(ft) {
        Types::TOP
    } else {
        g.types
            .fun_parts(ft)
            .map_or(Types::BOTTOM, |(_, ret, _)| ret)
    };
    let ctrl = g.ty(c);
    g.types.tuple(&[ctrl, Types::MEM_BOT, ret])
}

/// Inlines the call when it is the only way into its one function.
pub fn idealize(g: &mut Graph, n: NodeId) -> Option<NodeId> {
    if folding(g, n) || g.n_ins(n) != 2 {
        return None;
    }
    let c = g.in_(n, 0);
    if !matches!(g.kind(c), NodeKind::Call { .. }) {
        return None;
    }
    let fptr = call::fptr(g, c);
    if g.outputs(fptr).len() != 1 || !matches!(g.kind(fptr), NodeKind::Constant(_)) {
        g.add_dep(fptr, n);
        return None;
    }
    let t = g.ty(fptr);
    if !matches!(g.types.fun_parts(t), Some((_, _, 2))) || call::error(g, c).is_some() {
        return None;
    }
    let ret = g.in_(n, 1);
    let f = super::return_::fun(g, ret)?;
    if g.n_ins(f) != 3 {
        g.add_dep(f, n);
        return None;
    }
    // Not a call of a function from inside itself.
    let mut ctrl = g.in_(c, 0);
    loop {
        if matches!(g.kind(ctrl), NodeKind::Fun { .. }) {
            if ctrl == f {
                return None;
            }
            // A function being inlined is part of its caller already:
            // look on from the call it is inlined at (mutual recursion
            // would otherwise inline a function into itself, forever).
            // If that call died, this is dead code: inlining into it
            // could close a cycle of Regions with no Loop (fuzz seed
            // 10610).
            if fun::folding(g, ctrl) {
                let xctrl = g.xctrl();
                ctrl = (1..g.n_ins(ctrl))
                    .filter_map(|i| g.input(ctrl, i))
                    .find(|&c| c != xctrl)?;
                continue;
            }
            break;
        }
        // A chain that ends before a function is dead code too.
        ctrl = super::idom(g, ctrl)?;
    }
    if let NodeKind::CallEnd { folding } = g.kind_mut(n) {
        *folding = true;
    }
    fun::set_folding(g, f);
    let xctrl = g.xctrl();
    g.set_def(f, 1, Some(xctrl));
    let call_ctrl = g.in_(c, 0);
    g.set_def(f, 2, Some(call_ctrl));
    g.set_def(ret, 3, None);
    g.push_outputs(f);
    Some(n)
}

/// After folding, a projection of the CallEnd is the Return's control
/// (0), memory (1) or value (2).
pub fn pcopy(g: &Graph, n: NodeId, idx: usize) -> Option<NodeId> {
    if !folding(g, n) {
        return None;
    }
    let ret = g.input(n, 1)?;
    match idx {
        0 => g.input(ret, 0),
        1 => g.input(ret, 1),
        2 => g.input(ret, 2),
        _ => None,
    }
}
