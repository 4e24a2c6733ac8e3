//! Call: a call of a function value (chapter 18).
//!
//! Inputs are control, the whole memory, the arguments, and last the
//! function pointer. The call ends its block; its CallEnd (`call_end.rs`)
//! is where control, memory and the result come back.
//!
//! Linking: when the pointer's type names a finite set of functions (a
//! constant, or a phi of a few), each of them is linked to the call: the
//! call becomes an input of the function's Fun, each Parm gets the
//! matching argument (the CallEnd for the return program counter, the
//! memory, then the arguments), and the function's Return an input of
//! the CallEnd. A call of a pointer that may be any function stays
//! unlinked; the Fun's Start input stands for it.

use super::{fun, print as print_node, NodeKind, Printer};
use crate::graph::{Graph, NodeId};
use crate::types::TypeId;

pub fn new(
    g: &mut Graph,
    ctrl: NodeId,
    mem: NodeId,
    args: &[NodeId],
    fptr: NodeId,
    at: usize,
) -> NodeId {
    let mut inputs = vec![Some(ctrl), Some(mem)];
    inputs.extend(args.iter().map(|&a| Some(a)));
    inputs.push(Some(fptr));
    let kind = NodeKind::Call {
        at: super::source_offset(at),
    };
    g.add_node(kind, inputs)
}

/// The number of arguments.
pub fn nargs(g: &Graph, n: NodeId) -> usize {
    g.n_ins(n) - 3
}

/// The function pointer called.
pub fn fptr(g: &Graph, n: NodeId) -> NodeId {
    g.in_(n, g.n_ins(n) - 1)
}

/// The call's CallEnd, once made.
pub fn cend(g: &Graph, n: NodeId) -> Option<NodeId> {
    g.outputs(n)
        .iter()
        .copied()
        .find(|&u| matches!(g.role(u), NodeKind::CallEnd { .. }))
}

/// Control goes on into the callee when it comes here.
pub fn compute(g: &mut Graph, n: NodeId) -> TypeId {
    g.ty(g.in_(n, 0))
}

/// Links the call to every function its pointer may name (see above).
/// The graph's shape changes, not the call, so there is no progress to
/// report; the CallEnd is queued, its type follows the Returns.
pub fn idealize(g: &mut Graph, n: NodeId) -> Option<NodeId> {
    let cend = cend(g, n)?;
    let fptr = fptr(g, n);
    let t = g.ty(fptr);
    let (sig, _, _) = g.types.fun_parts(t)?;
    if g.types.tuple_elems(sig).len() != nargs(g, n) {
        return None;
    }
    // An unknown callee (a complement set) links nothing yet.
    let fidxs = g.types.fidxs(t)?.members()?.to_vec();
    for fidx in fidxs {
        let Some(&f) = g.functions.get(&(sig, fidx)) else {
            continue;
        };
        if g.is_dead(f) || fun::folding(g, f) || g.linked.contains(&(n, f)) {
            continue;
        }
        link(g, n, cend, f);
    }
    None
}

/// Makes function `f` a callee of call `n` (whose CallEnd is `cend`).
fn link(g: &mut Graph, n: NodeId, cend: NodeId, f: NodeId) {
    g.linked.insert((n, f));
    g.add_def(f, Some(n));
    for parm in fun::parms(g, f) {
        let idx = super::parm::index(g, parm).expect("a Parm") as usize;
        let value = if idx == 0 { cend } else { g.in_(n, idx) };
        g.add_def(parm, Some(value));
        g.work.push(parm);
    }
    if let Some(r) = fun::ret(g, f) {
        g.add_def(cend, Some(r));
    }
    g.work.push(cend);
    g.work.push(f);
}

/// `sq( 3)`, `f( 1,2)`, `f()`: the function's name if the pointer is one
/// named function, else the pointer's expression.
pub fn print(g: &Graph, n: NodeId, out: &mut Printer) {
    let fptr = fptr(g, n);
    match g
        .types
        .fun_name(g.ty(fptr))
        .filter(|_| g.types.is_constant(g.ty(fptr)))
    {
        Some(name) => out.push_str(name),
        None => print_node(g, fptr, out),
    }
    out.push_str("( ");
    for i in 2..g.n_ins(n) - 1 {
        print_node(g, g.in_(n, i), out);
        out.push(',');
    }
    out.pop();
    out.push(')');
}

/// The checks only the optimized graph can make: a pointer that may be
/// null, a wrong number of arguments, an argument of the wrong type.
pub fn error(g: &mut Graph, n: NodeId) -> Option<crate::Error> {
    let NodeKind::Call { at } = *g.kind(n) else {
        return None;
    };
    let at = at as usize;
    let t = g.ty(fptr(g, n));
    // A call that never runs, or of a pointer never made, calls nothing.
    if g.ty(g.in_(n, 0)) == crate::types::Types::XCTRL || g.types.is_high(t) {
        return None;
    }
    let Some((sig, _, nil)) = g.types.fun_parts(t) else {
        // A forward reference left undefined reports itself.
        return (t != crate::types::Types::BOTTOM).then(|| {
            crate::Error::new(
                format!("Expected a function but got {}", g.types.str(t)),
                at,
            )
        });
    };
    if !(nil == 1 || nil == 2) {
        let shown = g.types.to_string(t);
        return Some(crate::Error::new(
            format!("Might be null calling {shown}"),
            at,
        ));
    }
    let formals = g.types.tuple_elems(sig).to_vec();
    if formals.len() != nargs(g, n) {
        return Some(crate::Error::new(
            format!(
                "Expecting {} arguments, but found {}",
                formals.len(),
                nargs(g, n)
            ),
            at,
        ));
    }
    for (i, &formal) in formals.iter().enumerate() {
        let actual = g.ty(g.in_(n, i + 2));
        if !g.types.isa(actual, formal) {
            let (a, f) = (g.types.to_string(actual), g.types.to_string(formal));
            return Some(crate::Error::new(
                format!("Argument #{i} isa {a}, but must be a {f}"),
                at,
            ));
        }
    }
    None
}
