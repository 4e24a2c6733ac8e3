//! RoundF32: a float rounded to the nearest 32-bit float, printed
//! `((f32)x)` (chapter 14).
//!
//! Float arithmetic is done in 64 bits. Assigning to an `f32` variable or
//! field rounds: the parser wraps the value in a RoundF32 unless its type
//! says it already is an f32 (a constant such as `1.5`, or another `f32`
//! variable). The value stays a double, one that a 32-bit float holds.
//!
//! Simple types a rounding of a non-constant as its input (`flt`), so
//! `f32 x = arg;` fails its own type check; a rounded value is an `f32`,
//! and that is its type here.

use super::NodeKind;
use crate::graph::{Graph, NodeId};
use crate::types::{Flt, Type, TypeId, Types};

/// A new RoundF32 of `x`, not yet peepholed.
pub fn new(g: &mut Graph, x: NodeId) -> NodeId {
    g.add_node(NodeKind::RoundF32, vec![None, Some(x)])
}

/// The nearest 32-bit float, as a double.
pub fn round(v: f64) -> f64 {
    (v as f32) as f64
}

pub fn compute(g: &mut Graph, n: NodeId) -> TypeId {
    let t = g.ty(g.in_(n, 1));
    match *g.types.get(t) {
        Type::Flt(Flt::Con(bits)) => g.types.flt(round(f64::from_bits(bits))),
        Type::Flt(Flt::Top | Flt::Top32) => Types::F32_TOP,
        Type::Flt(_) => Types::F32_BOT,
        // The parser rounds only floats.
        _ => t,
    }
}

/// Rounding an f32 changes nothing.
pub fn idealize(g: &mut Graph, n: NodeId) -> Option<NodeId> {
    let x = g.in_(n, 1);
    (g.ty(x) == Types::F32_BOT).then_some(x)
}
