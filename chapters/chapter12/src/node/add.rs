//! Add, and the canonical form of sums.
//!
//! The rewrites drive every sum towards one shape: a left-leaning spine of
//! adds with constants gathered at the right end, where they fold. `(1+x)`
//! becomes `(x+1)`, `x+(y+z)` becomes `(x+y)+z`, `(x+1)+2` becomes `x+3`,
//! and `x+x` becomes `x*2`. Along the spine, operands are sorted (constants
//! last, then phis of constants, then everything else by node id) so that
//! like terms meet. A constant can also be pushed up into a phi of
//! constants, `(phi(1,2)+3)` to `phi(4,5)`, which `phi_con` does for every
//! associative operator.

use super::{copy_binary, int_binary, new_binary, new_constant, peephole, NodeKind};
use crate::graph::{Graph, NodeId};
use crate::types::{TypeId, Types};

pub fn compute(g: &mut Graph, n: NodeId) -> TypeId {
    int_binary(g, n, i64::wrapping_add)
}

pub fn idealize(g: &mut Graph, n: NodeId) -> Option<NodeId> {
    let lhs = g.in_(n, 1);
    let rhs = g.in_(n, 2);
    let t2 = g.ty(rhs);

    // x+0 is x. (0+x) never gets here: it was swapped to (x+0) first.
    if g.types.int_value(t2) == Some(0) {
        return Some(lhs);
    }

    // x+x is x*2.
    if lhs == rhs {
        let two = g.types.int(2);
        let two = new_constant(g, two);
        let two = peephole(g, two);
        return Some(new_binary(g, NodeKind::Mul, lhs, two));
    }

    let is_add = |g: &Graph, x: NodeId| matches!(g.kind(x), NodeKind::Add);

    // Move a non-add to the right: (x + (y+z)) first becomes ((y+z) + x).
    if !is_add(g, lhs) && is_add(g, rhs) {
        return Some(g.swap12(n));
    }

    // x + (-y) is x - y.
    if matches!(g.kind(rhs), NodeKind::Minus) {
        let y = g.in_(rhs, 1);
        return Some(new_binary(g, NodeKind::Sub, lhs, y));
    }

    // Rotate x + (y+z) into (x+y) + z, so no add remains on the right.
    if is_add(g, rhs) && spine_len(g, lhs) + spine_len(g, rhs) <= MAX_SPINE {
        let (y, z) = (g.in_(rhs, 1), g.in_(rhs, 2));
        let xy = new_binary(g, NodeKind::Add, lhs, y);
        let xy = peephole(g, xy);
        return Some(new_binary(g, NodeKind::Add, xy, z));
    }

    // Two non-adds: order them, or push a constant into a phi of constants.
    if !is_add(g, lhs) {
        return if spine_cmp(g, lhs, rhs, n) {
            Some(g.swap12(n))
        } else {
            phi_con(g, n, true)
        };
    }

    // A dead data cycle (from a dead infinite loop): leave it, the loop
    // will be found dead soon.
    if g.input(lhs, 1) == Some(lhs) {
        return None;
    }

    // Now lhs is an add: ((x + c1) + c2) becomes (x + (c1+c2)), which folds.
    // If c1 becomes a constant later, this rule may apply then.
    let (x, c1) = (g.in_(lhs, 1), g.in_(lhs, 2));
    g.add_dep(c1, n);
    if g.types.is_constant(g.ty(c1)) && g.types.is_constant(t2) {
        let sum = new_binary(g, NodeKind::Add, c1, rhs);
        let sum = peephole(g, sum);
        return Some(new_binary(g, NodeKind::Add, x, sum));
    }

    // ((x + phi(cons)) + con) pushes the constant up into the phi.
    if let Some(phi) = phi_con(g, n, true) {
        return Some(phi);
    }

    // Sort along the spine: rotate ((x + y) + z) into ((x + z) + y).
    if spine_len(g, lhs) <= MAX_SPINE && spine_cmp(g, c1, rhs, n) {
        let xz = new_binary(g, NodeKind::Add, x, rhs);
        let xz = peephole(g, xz);
        return Some(new_binary(g, NodeKind::Add, xz, c1));
    }
    None
}

/// Rotations stop at sums of this many adds. Flattening a sum into one
/// spine copies the spines it is made of, and sorting a new term into a
/// spine walks it: unbounded, `a = a + b; b = b + a;` repeated would take
/// time exponential in the number of statements, and `a = a + t` repeated
/// quadratic. A longer sum keeps the shape it was written in.
const MAX_SPINE: usize = 16;

/// The number of adds along the left spine of `n`, counted up to one
/// more than [`MAX_SPINE`] (the walk stops there, so it costs O(1)).
fn spine_len(g: &Graph, mut n: NodeId) -> usize {
    let mut len = 0;
    while len <= MAX_SPINE && matches!(g.kind(n), NodeKind::Add) {
        len += 1;
        n = g.in_(n, 1);
    }
    len
}

/// For an associative operator `op`: with `(phi(cons) op con)` or
/// `((x op phi(cons)) op con)` (the right side may also be a phi of
/// constants on the same region), apply `op` to each phi input, making
/// `phi(c0 op con, c1 op con, ...)`, which folds. `rotate` allows looking
/// through one level of the same operator on the left.
pub(crate) fn phi_con(g: &mut Graph, op: NodeId, rotate: bool) -> Option<NodeId> {
    let lhs = g.in_(op, 1);
    let rhs = g.in_(op, 2);
    let mut lphi = phi_of_constants(g, lhs, op);
    if rotate && lphi.is_none() && g.n_ins(lhs) > 2 {
        // Rotating constants is only valid through the same operator.
        if !g.kind(lhs).same_op(g.kind(op)) {
            return None;
        }
        lphi = phi_of_constants(g, g.in_(lhs, 2), op);
    }
    let lphi = lphi?;

    let rphi = phi_of_constants(g, rhs, op);
    if !matches!(g.kind(rhs), NodeKind::Constant(_)) && rphi.is_none() {
        return None;
    }
    let rhs_is_phi = matches!(g.kind(rhs), NodeKind::Phi { .. });
    if rhs_is_phi && g.input(lphi, 0) != g.input(rhs, 0) {
        return None; // two phis must merge on the same region
    }

    // This is the reverse of a phi pulling a common operator down (see
    // phi.rs). The two cannot undo each other forever: the constants fold.
    let region = g.input(lphi, 0);
    let mut inputs = vec![region];
    for i in 1..g.n_ins(lphi) {
        let r = if rhs_is_phi { g.in_(rhs, i) } else { rhs };
        let folded = copy_binary(g, op, g.in_(lphi, i), r);
        inputs.push(Some(peephole(g, folded)));
    }
    let mut label = phi_label(g, lphi).to_owned();
    if rhs_is_phi {
        label.push_str(phi_label(g, rhs));
    }
    // The new phi holds what the operator gives: a float comparison over a
    // phi of floats gives ints.
    let declared = match g.kind(op) {
        NodeKind::BoolF(_) => Types::INT_BOT,
        _ => super::phi::declared(g, lphi),
    };
    let phi = g.add_node(
        NodeKind::Phi {
            label: label.into(),
            declared,
        },
        inputs,
    );
    let phi = peephole(g, phi);
    // Rotating needs one more operator, otherwise the phi is the result.
    Some(if lhs == lphi {
        phi
    } else {
        copy_binary(g, op, g.in_(lhs, 1), phi)
    })
}

fn phi_label(g: &Graph, phi: NodeId) -> &str {
    match g.kind(phi) {
        NodeKind::Phi { label, .. } => label,
        _ => "",
    }
}

/// `n` if it is a phi whose inputs are all constants; if not yet, `dep` is
/// woken when that may change.
fn phi_of_constants(g: &mut Graph, n: NodeId, dep: NodeId) -> Option<NodeId> {
    (matches!(g.kind(n), NodeKind::Phi { .. }) && super::all_constant_inputs(g, n, dep))
        .then_some(n)
}

/// Should `hi` and `lo`, two operands along a spine, swap places? Constants
/// go rightmost, then phis of constants, then other phis; ties sort by id.
/// A phi on a dead region is left alone: it is about to go away.
pub(crate) fn spine_cmp(g: &mut Graph, hi: NodeId, lo: NodeId, dep: NodeId) -> bool {
    if g.types.is_constant(g.ty(lo)) {
        return false;
    }
    if g.types.is_constant(g.ty(hi)) {
        return true;
    }
    let is_phi = |g: &Graph, x: NodeId| matches!(g.kind(x), NodeKind::Phi { .. });
    let dead_phi = |g: &Graph, x: NodeId| is_phi(g, x) && g.ty(g.in_(x, 0)) == Types::XCTRL;
    if dead_phi(g, lo) || dead_phi(g, hi) {
        return false;
    }
    if is_phi(g, lo) && super::all_constant_inputs(g, lo, dep) {
        return false;
    }
    if is_phi(g, hi) && super::all_constant_inputs(g, hi, dep) {
        return true;
    }
    let is_phi = |x: NodeId| is_phi(g, x);
    if is_phi(lo) && !is_phi(hi) {
        return true;
    }
    if is_phi(hi) && !is_phi(lo) {
        return false;
    }
    lo.nid() > hi.nid()
}
