//! Add, and the canonical form of sums.
//!
//! The rewrites drive every sum towards one shape: a left-leaning spine of
//! adds with constants gathered at the right end, where they fold. `(1+x)`
//! becomes `(x+1)`, `x+(y+z)` becomes `(x+y)+z`, `(x+1)+2` becomes `x+3`,
//! and `x+x` becomes `x*2`. Along the spine, operands are sorted (constants
//! last, everything else by node id) so that like terms meet.

use super::{int_binary, new_binary, new_constant, peephole, NodeKind};
use crate::graph::{Graph, NodeId};
use crate::types::TypeId;

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

    // Rotate x + (y+z) into (x+y) + z, so no add remains on the right.
    if is_add(g, rhs) && spine_len(g, lhs) + spine_len(g, rhs) <= MAX_SPINE {
        let (y, z) = (g.in_(rhs, 1), g.in_(rhs, 2));
        let xy = new_binary(g, NodeKind::Add, lhs, y);
        let xy = peephole(g, xy);
        return Some(new_binary(g, NodeKind::Add, xy, z));
    }

    // Two non-adds: order them.
    if !is_add(g, lhs) {
        return spline_cmp(g, lhs, rhs).then(|| g.swap12(n));
    }

    // Now lhs is an add: ((x + c1) + c2) becomes (x + (c1+c2)), which folds.
    let (x, c1) = (g.in_(lhs, 1), g.in_(lhs, 2));
    if g.types.is_constant(g.ty(c1)) && g.types.is_constant(t2) {
        let sum = new_binary(g, NodeKind::Add, c1, rhs);
        let sum = peephole(g, sum);
        return Some(new_binary(g, NodeKind::Add, x, sum));
    }

    // Sort along the spine: rotate ((x + y) + z) into ((x + z) + y).
    if spine_len(g, lhs) <= MAX_SPINE && spline_cmp(g, c1, rhs) {
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

/// Should `hi` and `lo`, two operands along a spine, swap places? Constants
/// go rightmost; the others sort by id.
pub(crate) fn spline_cmp(g: &Graph, hi: NodeId, lo: NodeId) -> bool {
    if g.types.is_constant(g.ty(lo)) {
        return false;
    }
    if g.types.is_constant(g.ty(hi)) {
        return true;
    }
    lo.nid() > hi.nid()
}
