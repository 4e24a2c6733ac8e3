//! Constant: a value known at compile time.
//!
//! A constant has no real inputs; Start is wired in as input 0 only so that a
//! walk from Start reaches every constant. Its type is its value.

use super::NodeKind;
use crate::graph::{Graph, NodeId};
use crate::types::TypeId;

pub fn new(g: &mut Graph, ty: TypeId) -> NodeId {
    let start = g.start();
    g.add_node(NodeKind::Constant(ty), vec![Some(start)])
}
