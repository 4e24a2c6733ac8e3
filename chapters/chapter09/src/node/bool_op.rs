//! Comparisons: `==`, `<` and `<=`, giving 0 or 1.
//!
//! The parser makes the other three from these: `a!=b` is `!(a==b)`, `a>b`
//! is `b<a` and `a>=b` is `b<=a`.

use super::add::phi_con;
use super::new_constant;
use crate::graph::{Graph, NodeId};
use crate::types::TypeId;

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

    fn test(self, a: i64, b: i64) -> bool {
        match self {
            BoolOp::Eq => a == b,
            BoolOp::Lt => a < b,
            BoolOp::Le => a <= b,
        }
    }
}

pub fn compute(g: &mut Graph, n: NodeId, op: BoolOp) -> TypeId {
    super::int_binary(g, n, |a, b| i64::from(op.test(a, b)))
}

pub fn idealize(g: &mut Graph, n: NodeId, op: BoolOp) -> Option<NodeId> {
    // x op x is known: true for == and <=, false for <.
    if g.in_(n, 1) == g.in_(n, 2) {
        let value = g.types.int(i64::from(op.test(3, 3)));
        return Some(new_constant(g, value));
    }
    // (phi(cons) op con) folds into the phi; no rotation, comparisons are
    // not associative.
    phi_con(g, n, false)
}
