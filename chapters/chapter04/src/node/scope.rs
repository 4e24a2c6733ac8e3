//! Scope: the parser's symbol tables, as a node.
//!
//! A Scope node's inputs are the current values of every variable in scope,
//! input 0 being the current control (the name `$ctrl`, which no program can
//! spell). Being inputs, these values count as used and stay alive while a
//! name refers to them. Nested blocks push and pop tables of names; a name
//! maps to an input index.

use super::{print as print_node, NodeKind};
use crate::graph::{Graph, NodeId};
use crate::types::Types;
use indexmap::IndexMap;
use std::rc::Rc;

/// The name bound to the current control.
pub const CTRL: &str = "$ctrl";
/// The name of the function's argument.
pub const ARG0: &str = "arg";

/// A stack of lexical scopes, innermost last; each maps names to inputs.
/// Names are shared (`Rc<str>`): copying the tables, as every `if` and
/// loop does from chapter 5 on, copies no string.
#[derive(Clone, Debug, Default)]
pub struct ScopeNames {
    pub levels: Vec<IndexMap<Rc<str>, usize>>,
}

pub fn new(g: &mut Graph) -> NodeId {
    let scope = g.add_node(NodeKind::Scope(Box::default()), vec![]);
    g.set_ty(scope, Types::BOTTOM);
    scope
}

fn names(g: &Graph, scope: NodeId) -> &ScopeNames {
    match g.kind(scope) {
        NodeKind::Scope(names) => names,
        _ => unreachable!("not a scope node"),
    }
}

fn names_mut(g: &mut Graph, scope: NodeId) -> &mut ScopeNames {
    match g.kind_mut(scope) {
        NodeKind::Scope(names) => names,
        _ => unreachable!("not a scope node"),
    }
}

pub fn levels(g: &Graph, scope: NodeId) -> &[IndexMap<Rc<str>, usize>] {
    &names(g, scope).levels
}

/// Enters a nested scope.
pub fn push(g: &mut Graph, scope: NodeId) {
    names_mut(g, scope).levels.push(IndexMap::new());
}

/// Leaves the innermost scope, dropping its variables.
pub fn pop(g: &mut Graph, scope: NodeId) {
    let level = names_mut(g, scope).levels.pop().unwrap_or_default();
    g.pop_n(scope, level.len());
}

/// Binds a new name in the innermost scope; `false` if it is already bound
/// there.
pub fn define(g: &mut Graph, scope: NodeId, name: &str, value: NodeId) -> bool {
    let index = g.n_ins(scope);
    let level = names_mut(g, scope)
        .levels
        .last_mut()
        .expect("define inside a scope");
    if level.contains_key(name) {
        return false;
    }
    level.insert(name.into(), index);
    g.add_def(scope, Some(value));
    true
}

/// The input index a name is bound to, searching from the innermost scope.
fn find(g: &Graph, scope: NodeId, name: &str) -> Option<usize> {
    levels(g, scope)
        .iter()
        .rev()
        .find_map(|level| level.get(name).copied())
}

/// The value of a name, or `None` if it is not bound.
pub fn lookup(g: &Graph, scope: NodeId, name: &str) -> Option<NodeId> {
    find(g, scope, name).and_then(|i| g.input(scope, i))
}

/// Rebinds a name to `value`; `false` if the name is not bound.
pub fn update(g: &mut Graph, scope: NodeId, name: &str, value: NodeId) -> bool {
    match find(g, scope, name) {
        Some(i) => {
            g.set_def(scope, i, Some(value));
            true
        }
        None => false,
    }
}

/// The current control; `None` after a `return`.
pub fn ctrl(g: &Graph, scope: NodeId) -> Option<NodeId> {
    g.input(scope, 0)
}

/// Makes `ctrl` the current control; returns it.
pub fn set_ctrl(g: &mut Graph, scope: NodeId, ctrl: Option<NodeId>) -> Option<NodeId> {
    g.set_def(scope, 0, ctrl)
}

/// `Scope[a:1, b:arg][c:2]`: each level's bindings.
pub fn print(g: &Graph, n: NodeId, out: &mut String) {
    out.push_str("Scope");
    for level in levels(g, n) {
        out.push('[');
        for (j, (name, &i)) in level.iter().enumerate() {
            if j > 0 {
                out.push_str(", ");
            }
            out.push_str(name);
            out.push(':');
            match g.input(n, i) {
                Some(v) => print_node(g, v, out),
                None => out.push_str("null"),
            }
        }
        out.push(']');
    }
}
