//! Comparisons: `==`, `<` and `<=`, giving 0 or 1.
//!
//! The parser makes the other three from these: `a!=b` is `!(a==b)`, `a>b`
//! is `b<a` and `a>=b` is `b<=a`.
//!
//! Comparing floats is a kind of its own (`BoolF`: EQF, LTF, LEF), made by
//! the parser when either side is a float (see `widen`). IEEE comparisons
//! are false whenever a side is NaN, so `x==x` and `x<=x` are not known to
//! be true (Simple folds them to 1 anyway) unless `x` is an int converted
//! (`ToFloat`), which is never NaN; `x<x` is false for every `x`, NaN
//! included. Simple turns `x==0` into `!x` only for integers and
//! pointers, and so do we. `!=` stays `!(a==b)`, which is true when either
//! side is NaN, as IEEE says.

use super::add::phi_con;
use super::{is_constant_node, new_binary, new_constant, NodeKind};
use crate::graph::{Graph, NodeId};
use crate::types::{TypeId, Types};

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

    fn test(self, a: i64, b: i64) -> bool {
        match self {
            BoolOp::Eq => a == b,
            BoolOp::Lt => a < b,
            BoolOp::Le => a <= b,
        }
    }
}

pub fn compute(g: &mut Graph, n: NodeId, op: BoolOp) -> TypeId {
    let (t1, t2) = (g.ty(g.in_(n, 1)), g.ty(g.in_(n, 2)));
    if !g.types.is_int(t1) || !g.types.is_int(t2) {
        // Comparing pointers: the answer is still an integer. (Simple's
        // chapter 10 takes the meet of the operands here, which types
        // `p==q` as a pointer.)
        return if t1 == Types::TOP || t2 == Types::TOP {
            Types::INT_TOP
        } else {
            Types::INT_BOT
        };
    }
    super::int_binary(g, n, |a, b| i64::from(op.test(a, b)))
}

pub fn idealize(g: &mut Graph, n: NodeId, op: BoolOp) -> Option<NodeId> {
    // x op x is known: true for == and <=, false for <.
    if g.in_(n, 1) == g.in_(n, 2) {
        let value = g.types.int(i64::from(op.test(3, 3)));
        return Some(new_constant(g, value));
    }
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
        let t2 = g.ty(g.in_(n, 2));
        if t2 == Types::INT_ZERO || t2 == Types::NULL {
            let x = g.in_(n, 1);
            return Some(g.add_node(NodeKind::Not, vec![None, Some(x)]));
        }
    }
    // (phi(cons) op con) folds into the phi. No rotation: no comparison is
    // associative, `==` included (`(arg==-7)==1` is not `arg==(-7==1)`).
    // Simple's chapter 10 rotates `==` here, and so turns
    // `(arg==Phi(0,-7))==1` into `!arg`.
    phi_con(g, n, false)
}

/// The type of a float comparison: folded when both sides are constants.
pub fn compute_float(g: &mut Graph, n: NodeId, op: BoolOp) -> TypeId {
    let (t1, t2) = (g.ty(g.in_(n, 1)), g.ty(g.in_(n, 2)));
    match (g.types.flt_value(t1), g.types.flt_value(t2)) {
        (Some(a), Some(b)) => g.types.int(i64::from(op.test_float(a, b))),
        _ if [t1, t2]
            .iter()
            .any(|&t| t == Types::TOP || t == Types::FLT_TOP) =>
        {
            Types::INT_TOP
        }
        _ => Types::INT_BOT,
    }
}

pub fn idealize_float(g: &mut Graph, n: NodeId, op: BoolOp) -> Option<NodeId> {
    let (lhs, rhs) = (g.in_(n, 1), g.in_(n, 2));
    // x<x is false, even for NaN; x==x and x<=x are true unless x is NaN.
    if lhs == rhs && (op == BoolOp::Lt || matches!(g.kind(lhs), NodeKind::ToFloat)) {
        let value = g.types.int(i64::from(op.test(3, 3)));
        return Some(new_constant(g, value));
    }
    // Constants go right, otherwise order by node id, as for ints.
    if op == BoolOp::Eq
        && !is_constant_node(g, rhs)
        && (is_constant_node(g, lhs) || lhs.nid() > rhs.nid())
    {
        return Some(new_binary(g, NodeKind::BoolF(BoolOp::Eq), rhs, lhs));
    }
    phi_con(g, n, false)
}
