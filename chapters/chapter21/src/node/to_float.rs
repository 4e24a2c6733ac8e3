//! ToFloat: an int converted to a float, printed `(flt)x`.
//!
//! Simple converts an int to a float where a float is wanted: an operand
//! of an arithmetic operator or a comparison whose other operand is a
//! float, and a value given to a `flt` variable or field. The conversion
//! rounds to the nearest double, as a cast from `long` to `double` does in
//! Java (integers beyond 2^53 lose their low bits). There is no way back:
//! a float never becomes an int.

use crate::graph::{Graph, NodeId};
use crate::types::{TypeId, Types};

/// A new ToFloat of `x`, not yet peepholed.
pub fn new(g: &mut Graph, x: NodeId) -> NodeId {
    g.add_node(super::NodeKind::ToFloat, vec![None, Some(x)])
}

pub fn compute(g: &mut Graph, n: NodeId) -> TypeId {
    let t = g.ty(g.in_(n, 1));
    if let Some(v) = g.types.int_value(t) {
        return g.types.flt(v as f64);
    }
    // A value never produced converts to a float never produced. (Simple
    // says FltBot here, so the type would fall when an input in dead code
    // rises from a constant to the top.)
    if g.types.is_high(t) {
        return Types::FLT_TOP;
    }
    if g.types.is_int(t) {
        return Types::FLT_BOT;
    }
    // A pointer in float arithmetic (`p + 1.0`): no number at all, which
    // the declaration it is given to then refuses. Simple says FltBot.
    // (In int arithmetic, `p + 1` is an int that the check after
    // optimization refuses: `Cannot 'Add' *S`.)
    Types::BOTTOM
}
