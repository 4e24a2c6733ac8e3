//! Comparisons: `==`, `<` and `<=`, giving 0 or 1.
//!
//! The parser makes the other three from these: `a!=b` is `!(a==b)`, `a>b`
//! is `b<a` and `a>=b` is `b<=a`.
//!
//! A comparison is a `bool`, the range `[0,1]`, and it compares the
//! ranges of its operands (chapter 14): `a<b` is 1 when every value of
//! `a` is below every value of `b`, 0 when none is, and either otherwise.
//! So a phi of 0 and 1 is never below 0, and `(arg<a)<3` is 1. A
//! comparison of a `bool` with 1 is the `bool` itself. (Chapter 13 pushed
//! a comparison with a constant into a phi of constants; with ranges it
//! folds or not as it stands, and Simple has dropped that rewrite.)
//!
//! Comparing floats is a kind of its own (`BoolF`: EQF, LTF, LEF), made by
//! the parser when either side is a float (see `widen`). IEEE comparisons
//! are false whenever a side is NaN, so `x==x` and `x<=x` are not known to
//! be true (Simple folds them to 1 anyway) unless `x` is an int converted
//! (`ToFloat`), which is never NaN; `x<x` is false for every `x`, NaN
//! included. Simple turns `x==0` into `!x` only for integers and
//! pointers, and so do we. `!=` stays `!(a==b)`, which is true when either
//! side is NaN, as IEEE says.

use super::{is_constant_node, new_binary, NodeKind};
use crate::graph::{Graph, NodeId};
use crate::types::{Int, TypeId, Types};

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum BoolOp {
    Eq,
    Lt,
    Le,
}

impl BoolOp {
    pub fn name(self) -> &'static str {
        match self {
            BoolOp::Eq => "EQ",
            BoolOp::Lt => "LT",
            BoolOp::Le => "LE",
        }
    }

    pub fn symbol(self) -> &'static str {
        match self {
            BoolOp::Eq => "==",
            BoolOp::Lt => "<",
            BoolOp::Le => "<=",
        }
    }

    /// The label of the float comparison: `EQF`, `LTF`, `LEF`.
    pub fn float_name(self) -> &'static str {
        match self {
            BoolOp::Eq => "EQF",
            BoolOp::Lt => "LTF",
            BoolOp::Le => "LEF",
        }
    }

    fn test_float(self, a: f64, b: f64) -> bool {
        match self {
            BoolOp::Eq => a == b,
            BoolOp::Lt => a < b,
            BoolOp::Le => a <= b,
        }
    }

    /// What is known of `a op b` for every `a` in `x` and `b` in `y`:
    /// always true, never, or either.
    fn test_ranges(self, x: Int, y: Int) -> Option<bool> {
        match self {
            BoolOp::Eq if x == y && x.is_constant() => Some(true),
            BoolOp::Eq if x.max < y.min || x.min > y.max => Some(false),
            BoolOp::Lt if x.max < y.min => Some(true),
            BoolOp::Lt if x.min >= y.max => Some(false),
            BoolOp::Le if x.max <= y.min => Some(true),
            BoolOp::Le if x.min > y.max => Some(false),
            _ => None,
        }
    }
}

/// The type of a comparison that is true, false or either.
fn known(g: &mut Graph, answer: Option<bool>) -> TypeId {
    match answer {
        Some(b) => g.types.int(i64::from(b)),
        None => Types::BOOL,
    }
}

pub fn compute(g: &mut Graph, n: NodeId, op: BoolOp) -> TypeId {
    let (t1, t2) = (g.ty(g.in_(n, 1)), g.ty(g.in_(n, 2)));
    if g.types.is_high(t1) || g.types.is_high(t2) {
        return g.types.int_range(1, 0); // the top of `bool`
    }
    // x op x is known: true for == and <=, false for <.
    if g.in_(n, 1) == g.in_(n, 2) {
        let zero = Int { min: 0, max: 0 };
        return known(g, op.test_ranges(zero, zero));
    }
    // Comparing pointers (or anything else) also gives a bool. (Simple's
    // chapter 10 takes the meet of the operands here, which types `p==q`
    // as a pointer.)
    let answer = match (g.types.int_bounds(t1), g.types.int_bounds(t2)) {
        (Some(x), Some(y)) => op.test_ranges(x, y),
        _ => None,
    };
    known(g, answer)
}

pub fn idealize(g: &mut Graph, n: NodeId, op: BoolOp) -> Option<NodeId> {
    if op == BoolOp::Eq {
        let (lhs, rhs) = (g.in_(n, 1), g.in_(n, 2));
        if !is_constant_node(g, rhs) {
            // Constants go right: 5==x becomes x==5. Otherwise order by
            // node id, so that x==y and y==x are one node.
            if is_constant_node(g, lhs) || lhs.nid() > rhs.nid() {
                return Some(new_binary(g, NodeKind::Bool(BoolOp::Eq), rhs, lhs));
            }
        }
        // x==0 (or x==null) is !x.
        let (t1, t2) = (g.ty(g.in_(n, 1)), g.ty(g.in_(n, 2)));
        if t2 == Types::INT_ZERO || t2 == Types::NULL {
            let x = g.in_(n, 1);
            return Some(g.add_node(NodeKind::Not, vec![None, Some(x)]));
        }
        // b==1 is b, for a bool b.
        if g.types.int_value(t2) == Some(1) && t1 == Types::BOOL {
            return Some(g.in_(n, 1));
        }
    }
    None
}

/// The type of a float comparison: folded when both sides are constants.
pub fn compute_float(g: &mut Graph, n: NodeId, op: BoolOp) -> TypeId {
    let (t1, t2) = (g.ty(g.in_(n, 1)), g.ty(g.in_(n, 2)));
    if g.types.is_high(t1) || g.types.is_high(t2) {
        return g.types.int_range(1, 0);
    }
    // x<x is false, even for NaN; x==x and x<=x are true unless x is NaN.
    let (lhs, rhs) = (g.in_(n, 1), g.in_(n, 2));
    if lhs == rhs && (op == BoolOp::Lt || matches!(g.kind(lhs), NodeKind::ToFloat)) {
        let zero = Int { min: 0, max: 0 };
        return known(g, op.test_ranges(zero, zero));
    }
    match (g.types.flt_value(t1), g.types.flt_value(t2)) {
        (Some(a), Some(b)) => g.types.int(i64::from(op.test_float(a, b))),
        _ => Types::BOOL,
    }
}

pub fn idealize_float(g: &mut Graph, n: NodeId, op: BoolOp) -> Option<NodeId> {
    let (lhs, rhs) = (g.in_(n, 1), g.in_(n, 2));
    // Constants go right, otherwise order by node id, as for ints.
    if op == BoolOp::Eq
        && !is_constant_node(g, rhs)
        && (is_constant_node(g, lhs) || lhs.nid() > rhs.nid())
    {
        return Some(new_binary(g, NodeKind::BoolF(BoolOp::Eq), rhs, lhs));
    }
    None
}
