//! Constant: a value known at compile time.
//!
//! A constant has no real inputs; Start is wired in as input 0 only so that a
//! walk from Start reaches every constant. Its type is its value.
//!
//! Chapter 19: a function pointer type no longer prints the function's
//! name; a constant that is a named function does, `{ sq}`.

use super::{NodeKind, Printer};
use crate::graph::{Graph, NodeId};
use crate::types::TypeId;

pub fn new(g: &mut Graph, ty: TypeId) -> NodeId {
    let start = g.start();
    g.add_node(NodeKind::Constant(ty), vec![Some(start)])
}

/// The constant's value as its type prints it, except a named function:
/// `{ sq}`.
pub fn print(g: &Graph, t: TypeId, out: &mut Printer) {
    match g.types.fun_name(t).filter(|_| g.types.is_constant(t)) {
        Some(name) => {
            out.push_str("{ ");
            out.push_str(name);
            out.push('}');
        }
        None => g.types.print(t, out),
    }
}
