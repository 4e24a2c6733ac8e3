//! FRef: a forward reference, a name used before it is declared
//! (chapter 18).
//!
//! Functions may call each other (and themselves) before the `val` that
//! names them: `val fact = { int x -> ... fact(x-1) ... };`. An unknown
//! name becomes an FRef, a constant of type Bottom that stands for the
//! value to come; the declaration gives it input 1, and it then folds
//! into that value. A name still unknown at the end of the program is the
//! error `Undefined name 'x'`.

use super::NodeKind;
use crate::graph::{Graph, NodeId};

pub fn new(g: &mut Graph, name: &str, at: usize) -> NodeId {
    let start = g.start();
    let kind = NodeKind::FRef {
        name: name.into(),
        at: super::source_offset(at),
    };
    g.add_node(kind, vec![Some(start)])
}

/// Once defined, the reference is its definition.
pub fn idealize(g: &mut Graph, n: NodeId) -> Option<NodeId> {
    g.input(n, 1)
}

/// The name referred to.
pub fn name(g: &Graph, n: NodeId) -> &str {
    match g.kind(n) {
        NodeKind::FRef { name, .. } => name,
        _ => unreachable!("not an FRef"),
    }
}

pub fn error(g: &Graph, n: NodeId) -> Option<crate::Error> {
    let NodeKind::FRef { name, at } = g.kind(n) else {
        return None;
    };
    Some(crate::Error::new(
        format!("Undefined name '{name}'"),
        *at as usize,
    ))
}
