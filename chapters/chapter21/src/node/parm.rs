//! Parm: a function's parameter, a Phi over its callers (chapter 18).
//!
//! A Parm sits on its function's Fun and has one input per caller: input
//! 1 for the unknown callers (a constant of the declared type, say `int`,
//! since they may pass anything of it), then what each linked Call
//! passes. Parameter 0 is the return program counter (each caller's
//! CallEnd), 1 the memory, 2.. the arguments in order. While the callers
//! may be unknown a Parm stays as declared; it prints as
//! `Parm_x(sq,int,3,arg)`, with `main`'s `arg` printed just `arg`.

use super::{fun, phi, print as print_node, NodeKind, Printer};
use crate::graph::{Graph, NodeId};
use crate::types::TypeId;

/// Parameter `idx` of function `fun`, named `label`, of type `declared`.
pub fn new(g: &mut Graph, label: &str, idx: u32, declared: TypeId, fun: NodeId) -> NodeId {
    let default = super::new_constant(g, declared);
    let default = super::peephole(g, default);
    let kind = NodeKind::Phi {
        label: label.into(),
        declared,
        parm: Some(idx),
    };
    g.add_node(kind, vec![Some(fun), Some(default)])
}

/// The parameter's index, if `n` is a Parm.
pub fn index(g: &Graph, n: NodeId) -> Option<u32> {
    match g.role(n) {
        NodeKind::Phi { parm, .. } => *parm,
        _ => None,
    }
}

/// The name a Parm prints with when met again: its own (`x`), with a
/// field-like name spelled out as Simple does.
pub fn label(g: &Graph, n: NodeId) -> String {
    let NodeKind::Phi { label, .. } = g.role(n) else {
        unreachable!("not a Parm")
    };
    match &**label {
        "[]" => "ary".into(),
        "#" => "len".into(),
        l => l.into(),
    }
}

/// `main`'s argument is `arg`; any other parameter `Parm_x(fun,...)`.
pub fn print(g: &Graph, n: NodeId, out: &mut Printer) {
    let NodeKind::Phi { label, .. } = g.role(n) else {
        unreachable!("not a Parm")
    };
    let f = g.in_(n, 0);
    if matches!(g.role(f), NodeKind::Fun { .. }) && fun::label(g, f) == "main" && &**label == "arg"
    {
        out.push_str("arg");
        return;
    }
    out.push_str("Parm_");
    out.push_str(label);
    out.push('(');
    for (i, input) in g.inputs(n).iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        match input {
            Some(x) if matches!(g.role(*x), NodeKind::Fun { .. }) => {
                out.push_str(&fun::label(g, *x))
            }
            Some(x) => print_node(g, *x, out),
            None => out.push_str("____"),
        }
    }
    out.push(')');
}

/// A Parm of a function with unknown callers does not optimize.
pub fn idealize(g: &mut Graph, n: NodeId) -> Option<NodeId> {
    let f = g.in_(n, 0);
    if matches!(g.role(f), NodeKind::Fun { .. }) && fun::unknown_callers(g, f) {
        return None;
    }
    phi::idealize(g, n)
}
