//! MemMerge: all of memory as one value, put together from its slices.
//!
//! Memory is split lazily (see the parser's module doc). Start hands the
//! function one value for the whole of memory, `$mem`, and every alias
//! class reads that value until a Store to the class makes the class a
//! slice of its own. Where something needs every class at once (in this
//! chapter a Return, whose caller may read any field), a MemMerge gathers
//! them again: input 1 is the default, the state of every class not
//! listed, and input `a` (for alias class `a`, numbered from 2) is the
//! state of class `a`, or empty when that class still has the default.

use super::{print as print_node, NodeKind, Printer};
use crate::graph::{Graph, NodeId};

/// A merge of `default` with the classes in `slices`, each given as
/// `(alias, state)` and differing from `default`.
pub fn new(g: &mut Graph, default: NodeId, slices: &[(u32, NodeId)]) -> NodeId {
    let width = slices
        .iter()
        .map(|&(a, _)| a as usize + 1)
        .max()
        .unwrap_or(2);
    let mut inputs = vec![None; width];
    inputs[1] = Some(default);
    for &(alias, state) in slices {
        inputs[alias as usize] = Some(state);
    }
    g.add_node(NodeKind::MemMerge, inputs)
}

/// The state of alias class `alias` in the merge `n`.
pub fn slice(g: &Graph, n: NodeId, alias: u32) -> NodeId {
    let a = alias as usize;
    match g.inputs(n).get(a) {
        Some(Some(state)) if a >= 2 => *state,
        _ => g.in_(n, 1),
    }
}

/// A merge that lists no class of its own is just its default.
pub fn idealize(g: &mut Graph, n: NodeId) -> Option<NodeId> {
    let split = (2..g.n_ins(n)).any(|i| g.input(n, i).is_some());
    (!split).then(|| g.in_(n, 1))
}

/// `MEM[ 2:.x=1; ]`: the classes that differ from the default.
pub fn print(g: &Graph, n: NodeId, out: &mut Printer) {
    out.push_str("MEM[");
    for i in 2..g.n_ins(n) {
        if let Some(state) = g.input(n, i) {
            out.push_str(&format!(" {i}:"));
            print_node(g, state, out);
        }
    }
    out.push_str(" ]");
}
