//! Return: a function's one exit (chapter 18: one per function).
//!
//! Inputs are control, the final state of all of memory, the value
//! returned, and the return program counter (the function's `$rpc` Parm),
//! in Simple's order.
//! A function with several `return`s has a Region merging their control
//! and Phis merging their values and memories, so that each function has
//! exactly one Return, and Stop one input per function.
//!
//! As the returned value's type improves, so does the function's type:
//! its return type is the value's (the signature is refined).

use super::{fun, print as print_node, NodeKind, Printer};
use crate::graph::{Graph, NodeId};
use crate::types::{TypeId, Types};

pub fn new(g: &mut Graph, ctrl: NodeId, mem: NodeId, expr: NodeId, rpc: NodeId) -> NodeId {
    g.add_node(
        NodeKind::Return,
        vec![Some(ctrl), Some(mem), Some(expr), Some(rpc)],
    )
}

/// The function it returns from.
pub fn fun(g: &Graph, n: NodeId) -> Option<NodeId> {
    g.fun_of_return.get(&n).copied()
}

/// The function's Fun is gone (it was inlined).
pub fn fun_dead(g: &Graph, n: NodeId) -> bool {
    fun(g, n).is_none_or(|f| g.is_dead(f) || !matches!(g.role(f), NodeKind::Fun { .. }))
}

pub fn compute(g: &mut Graph, n: NodeId) -> TypeId {
    if fun_dead(g, n) {
        let low = g.types.tuple(&[Types::CTRL, Types::BOTTOM]);
        return g.types.dual(low);
    }
    let ctrl = g.ty(g.in_(n, 0));
    let expr = g.ty(g.in_(n, 2));
    g.types.tuple(&[ctrl, expr])
}

/// Refines the function's return type to what it returns. A function
/// that never returns returns nothing: its value and memory are `Top`.
pub fn idealize(g: &mut Graph, n: NodeId) -> Option<NodeId> {
    let f = fun(g, n)?;
    if fun_dead(g, n)
        || super::region::in_progress(g, g.in_(n, 0))
            && !matches!(g.kind(g.in_(n, 0)), NodeKind::Fun { .. })
    {
        return None;
    }
    refine_fun_type(g, n, f);
    if g.ty(g.in_(n, 0)) == Types::XCTRL {
        let (m, e) = (g.in_(n, 1), g.in_(n, 2));
        let top = |g: &Graph, x: NodeId| matches!(g.kind(x), NodeKind::Constant(Types::TOP));
        if !(top(g, e) && top(g, m)) {
            let c = super::new_constant(g, Types::TOP);
            let c = super::peephole(g, c);
            g.set_def(n, 1, Some(c));
            g.set_def(n, 2, Some(c));
            return Some(n);
        }
    }
    None
}

/// Narrows the return type of `f`, whose Return is `n`, to the type of
/// what it returns. The parser also calls it once the body is parsed: the
/// function's type is part of the language (a `{int -> int}` variable
/// takes only functions returning an int), peepholes or not.
pub fn refine_fun_type(g: &mut Graph, n: NodeId, f: NodeId) {
    let ret = g.ty(g.in_(n, 2));
    let sig = fun::sig(g, f);
    if let Some((_, old, _)) = g.types.fun_parts(sig) {
        if old != ret && g.types.isa(ret, old) {
            let refined = g.types.fun_with_ret(sig, ret);
            // The name follows the function.
            if let Some(name) = g.types.fun_name(sig).map(str::to_owned) {
                g.types.set_fun_name(refined, &name);
            }
            fun::set_sig(g, f, refined);
        }
    }
}

pub fn print(g: &Graph, n: NodeId, out: &mut Printer) {
    out.push_str("return ");
    print_node(g, g.in_(n, 2), out);
    out.push(';');
}

/// A function whose value is still `Bottom` after optimization: its
/// `return`s had no type in common. The kinds they had as parsed
/// (reachable or not) name it: `No common type amongst int and
/// reference`, or `No defined return type` when none had a kind of value
/// at all (`val g = { -> g(); };`, whose call has no type yet). (Chapter
/// 18 checked the meet of the returns as parsed, as Simple's chapter 18
/// does; Simple's chapter 19 checks the value.)
pub fn error(g: &Graph, n: NodeId) -> Option<crate::Error> {
    if g.ty(g.in_(n, 2)) != Types::BOTTOM {
        return None;
    }
    let message = g.mixed_returns.get(&n)?;
    let at = g.operator_at.get(&n).copied().unwrap_or(u32::MAX);
    Some(crate::Error::new(message.clone(), at as usize))
}

/// The kinds of value met among values that are merged: integers, floats,
/// references (`null` among them).
#[derive(Clone, Copy, Debug, Default)]
pub struct Kinds {
    int: bool,
    flt: bool,
    ptr: bool,
}

impl Kinds {
    pub fn add(&mut self, types: &crate::types::Types, t: TypeId) {
        self.int |= types.is_int(t);
        self.flt |= types.is_flt(t);
        self.ptr |= types.is_ptr(t) || t == Types::NULL;
    }

    /// The error of values of these kinds that have nothing in common.
    pub fn message(&self) -> String {
        if !(self.int || self.flt || self.ptr) {
            return "No defined return type".into();
        }
        let mut kinds = Vec::new();
        if self.int {
            kinds.push("int");
        }
        if self.flt {
            kinds.push("f64");
        }
        if self.ptr {
            kinds.push("reference");
        }
        format!("No common type amongst {}", kinds.join(" and "))
    }
}
