//! Not: logical negation, 1 for 0 (or null, or a float zero) and 0 for
//! anything else. The parser makes it for `!x`, and for `!=` as `!(a==b)`.
//! Its value is an int even for a float `x`. (Simple types `!x` of a float
//! not known to be a constant as a float.)

use crate::graph::{Graph, NodeId};
use crate::types::{TypeId, Types};

pub fn compute(g: &mut Graph, n: NodeId) -> TypeId {
    let t = g.ty(g.in_(n, 1));
    // Not known yet: the top of `bool`.
    if g.types.is_high(t) {
        return g.types.int_range(1, 0);
    }
    // !null is 1, !ptr is 0 when the pointer (chapter 18: of any kind)
    // cannot be null.
    if t == Types::NULL {
        return g.types.int(1);
    }
    if g.types.nil_of(t).is_some() {
        return if g.types.not_null(t) {
            Types::INT_ZERO
        } else {
            Types::INT_BOT
        };
    }
    // A float is false only when it is zero (0.0 or -0.0; NaN is true).
    if g.types.is_flt(t) {
        return match g.types.flt_value(t) {
            Some(v) => g.types.int(i64::from(v == 0.0)),
            None => Types::INT_BOT,
        };
    }
    // An integer range without 0 is true, and 0 is false; otherwise the
    // answer is 0 or 1. (Simple says any integer there.)
    match g.types.int_bounds(t) {
        Some(i) if i.max < 0 || i.min > 0 => Types::INT_ZERO,
        Some(_) if t == Types::INT_ZERO => g.types.int(1),
        Some(_) => Types::BOOL,
        // Neither a number nor a pointer: anything.
        None => Types::BOTTOM,
    }
}
