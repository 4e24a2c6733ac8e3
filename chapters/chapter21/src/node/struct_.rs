//! Struct: the default values of a struct's fields, as the parser holds
//! them (chapter 16).
//!
//! A struct's body is a block of statements run once, where the program
//! declares it; the values its top-level variables hold at the closing `}`
//! are the fields' initial values. The parser keeps them as the inputs of
//! one Struct node per struct, in field order, so that they stay alive
//! until the last `new` of the struct is parsed; a `new` copies them (or
//! a constructor block's values) into the New it makes. A field that has
//! no value yet (a final or not-null field declared without one) holds the
//! constant `Top`. The node is the parser's only: it is killed when the
//! program is parsed, and nothing is ever scheduled with it.

use super::NodeKind;
use crate::graph::{Graph, NodeId};
use crate::types::TypeId;

/// A Struct of struct type `obj` holding `defaults`, one per field.
pub fn new(g: &mut Graph, obj: TypeId, defaults: &[NodeId]) -> NodeId {
    let inputs = defaults.iter().map(|&d| Some(d)).collect();
    g.add_node(NodeKind::Struct { obj }, inputs)
}

/// The default value of field `idx`.
pub fn default(g: &Graph, n: NodeId, idx: usize) -> NodeId {
    g.in_(n, idx)
}
