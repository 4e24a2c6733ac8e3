//! Mul: `in(1) * in(2)`. `x*1` is `x`; constants move to the right.
//!
//! Chapter 19: a multiply by a constant of a simple bit pattern becomes
//! shifts, which every CPU does in one cheap instruction: `x*2^n` is
//! `x<<n`, `x*(2^n+1)` is `(x<<n)+x` and `x*(2^n-1)` is `(x<<n)-x`. Other
//! constants stay a multiply (the backend may still pick its own way).

use super::add::phi_con;
use super::{new_binary, new_constant, peephole, NodeKind};
use crate::graph::{Graph, NodeId};
use crate::types::{TypeId, Types};

pub fn compute(g: &mut Graph, n: NodeId) -> TypeId {
    // Chapter 16: anything times 0 is 0, known or not.
    let (t1, t2) = (g.ty(g.in_(n, 1)), g.ty(g.in_(n, 2)));
    if !g.types.is_high(t1)
        && !g.types.is_high(t2)
        && (t1 == Types::INT_ZERO || t2 == Types::INT_ZERO)
    {
        return Types::INT_ZERO;
    }
    super::int_binary(g, n, i64::wrapping_mul)
}

pub fn idealize(g: &mut Graph, n: NodeId) -> Option<NodeId> {
    let (t1, t2) = (g.ty(g.in_(n, 1)), g.ty(g.in_(n, 2)));
    // Constants go right: (2*x) becomes (x*2).
    if g.types.is_constant(t1) && !g.types.is_constant(t2) {
        return Some(g.swap12(n));
    }
    if let Some(c) = g.types.int_value(t2) {
        // x*1 is x. (1*x) was swapped to (x*1) first.
        if c == 1 {
            return Some(g.in_(n, 1));
        }
        // x*0 is 0 whatever x is (its type says so already, see [`compute`]).
        if c == 0 {
            return Some(g.zero());
        }
        if let Some(shifts) = by_shifts(g, n, c) {
            return Some(shifts);
        }
    }
    // ((x * phi(cons)) * con) pushes the constant into the phi.
    phi_con(g, n, true)
}

/// Chapter 19: `x*c` as shifts, when `c` is a power of two or one away
/// from one. (Simple also takes `c = -1` as `2^64 - 1` and makes
/// `(x<<64)-x`, which is 0 since shift counts wrap; `x*-1` stays a Mul
/// here.)
fn by_shifts(g: &mut Graph, n: NodeId, c: i64) -> Option<NodeId> {
    let x = g.in_(n, 1);
    let pow2 = |v: i64| v != 0 && v & v.wrapping_sub(1) == 0;
    let shl = |g: &mut Graph, v: i64| {
        let by = g.types.int(i64::from(v.trailing_zeros()));
        let by = new_constant(g, by);
        let by = peephole(g, by);
        new_binary(g, NodeKind::Shl, x, by)
    };
    if pow2(c) {
        return Some(shl(g, c));
    }
    let (below, above) = (c.wrapping_sub(1), c.wrapping_add(1));
    let (op, v) = if pow2(below) {
        (NodeKind::Add, below)
    } else if pow2(above) {
        (NodeKind::Sub, above)
    } else {
        return None;
    };
    let shifted = shl(g, v);
    let shifted = peephole(g, shifted);
    Some(new_binary(g, op, shifted, x))
}
