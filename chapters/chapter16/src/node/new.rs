//! New: allocates a struct and yields a pointer to it.
//!
//! The control input anchors the allocation where the program made it. New
//! has no rewrites, and two News are never the same value, so it does not
//! take part in value numbering. The parser follows each New with one Store
//! per field, to zero it.
//!
//! Chapter 15: a New of an array type also takes the number of elements
//! (`in(1)`, added by the parser); the parser follows it with one Store,
//! of the length into `#`. Its elements are zero without any store.

use super::NodeKind;
use crate::graph::{Graph, NodeId};
use crate::types::TypeId;

/// A New of pointer type `ptr` (not null, to one struct) under `ctrl`.
pub fn new(g: &mut Graph, ptr: TypeId, ctrl: NodeId) -> NodeId {
    g.add_node(NodeKind::New { ptr }, vec![Some(ctrl)])
}
