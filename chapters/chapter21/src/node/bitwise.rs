//! And, Or and Xor: the bitwise operators `&`, `|` and `^` on 64-bit
//! integers (chapter 14).
//!
//! All three are associative and commutative, so they are normalized as Mul
//! is: a constant goes to the right, the identity disappears (`x&-1`,
//! `x|0` and `x^0` are `x`), and a constant is pushed into a phi of
//! constants (`phi_con`). And also knows something about ranges: a bit
//! that no value of an operand's range can set is clear in the result, so
//! when either operand is a range of non-negative values, so is the result
//! (`arg&15` is `[0-15]`, and `(arg&15) < 0` folds to 0). This is how the
//! parser narrows a value to an unsigned type: `u8 b = x` stores `x&255`,
//! which is typed `u8`. Or and Xor fold constants only.

use super::add::phi_con;
use crate::graph::{Graph, NodeId};
use crate::types::TypeId;

/// The type of `in(1) & in(2)`.
pub fn compute_and(g: &mut Graph, n: NodeId) -> TypeId {
    super::int_binary_ranges(
        g,
        n,
        |a, b| a & b,
        |a, b| {
            // The bits that may be set in both; if that excludes the sign
            // bit, the result lies between 0 and the mask.
            let mask = a.mask() & b.mask();
            (mask >= 0).then_some((0, mask))
        },
    )
}

/// The type of `in(1) | in(2)` or `in(1) ^ in(2)`, by `fold`: constants
/// fold, anything else may be any integer.
pub fn compute(g: &mut Graph, n: NodeId, fold: fn(i64, i64) -> i64) -> TypeId {
    super::int_binary(g, n, fold)
}

/// `x op identity` is `x`; a constant on the left moves right; a constant
/// moves into a phi of constants. (`x` must be an integer: `f & -1` of a
/// float `f` is an error, which the node stays to report. Simple drops
/// it.)
pub fn idealize(g: &mut Graph, n: NodeId, identity: i64) -> Option<NodeId> {
    let (t1, t2) = (g.ty(g.in_(n, 1)), g.ty(g.in_(n, 2)));
    if g.types.int_value(t2) == Some(identity) && g.types.is_int(t1) {
        return Some(g.in_(n, 1));
    }
    if g.types.is_constant(t1) && !g.types.is_constant(t2) {
        return Some(g.swap12(n));
    }
    // ((x op phi(cons)) op con) pushes the constant into the phi.
    phi_con(g, n, true)
}
