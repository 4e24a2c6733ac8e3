//! The node kinds and what each one does.
//!
//! A node's behaviour has three parts, kept with its kind in one file per
//! family: `compute` (the type of the values it produces, from the types of
//! its inputs), `idealize` (a local rewrite into a simpler equivalent graph,
//! or `None`) and `print` (the expression form Simple prints). This module
//! names the kinds and dispatches to those files; [`peephole`] is the driver
//! that applies them to a freshly built node.

mod add;
mod bool_op;
mod constant;
mod div;
mod if_;
mod loop_;
mod minus;
mod mul;
mod not;
mod phi;
mod proj;
mod region;
mod return_;
pub mod scope;
mod start;
mod stop;
mod sub;

pub use bool_op::BoolOp;
pub use if_::new as if_new;
pub use loop_::new as loop_new;
pub use proj::new as proj_new;
pub use return_::new as return_new;
pub use scope::ScopeNames;
pub use start::new as start_new;
pub use stop::{new as stop_new, ret};

use crate::graph::{Graph, NodeId};
use crate::types::{TypeId, Types};

/// What a node is. The inputs are kept in the graph; a kind carries only the
/// data that is not an edge.
#[derive(Clone, Debug)]
pub enum NodeKind {
    /// Function entry; produces the tuple of control and the argument.
    Start {
        args: TypeId,
    },
    /// Function exit; its inputs are the `Return`s.
    Stop,
    /// Returns `in(1)` under control `in(0)`.
    Return,
    /// A constant; its only input is Start, to make it reachable in walks.
    Constant(TypeId),
    Add,
    Sub,
    Mul,
    Div,
    /// Unary minus.
    Minus,
    /// Logical not: 1 for 0, 0 for anything else.
    Not,
    /// A comparison giving 0 or 1.
    Bool(BoolOp),
    /// Branches on `in(1)`; its true and false arms are projections.
    If,
    /// Selects element `idx` of a multi-valued node (Start, If).
    Proj {
        idx: usize,
        label: &'static str,
    },
    /// Merges control; `in(0)` is unused. Caches its immediate dominator.
    Region {
        idom: Option<NodeId>,
    },
    /// The head of a loop: a Region whose input 1 enters the loop and input
    /// 2 is the back edge (empty while the body is being parsed).
    Loop,
    /// Selects `in(i)` when control arrives through `region.in(i)`.
    Phi {
        label: Box<str>,
    },
    /// The parser's symbol tables; its inputs are the bound values.
    Scope(Box<ScopeNames>),
}

impl NodeKind {
    /// A merge point of control: a Region or a Loop.
    pub fn is_region(&self) -> bool {
        matches!(self, NodeKind::Region { .. } | NodeKind::Loop)
    }

    /// Two nodes compute the same operator (same class in Simple).
    fn same_op(&self, other: &NodeKind) -> bool {
        match (self, other) {
            (NodeKind::Bool(a), NodeKind::Bool(b)) => a == b,
            _ => std::mem::discriminant(self) == std::mem::discriminant(other),
        }
    }
}

/// A short name, e.g. `Add`, `Region` or `EQ`.
pub fn label(g: &Graph, n: NodeId) -> String {
    match g.kind(n) {
        NodeKind::Start { .. } => "Start".into(),
        NodeKind::Stop => "Stop".into(),
        NodeKind::Return => "Return".into(),
        NodeKind::Constant(t) => g.types.to_string(*t),
        NodeKind::Add => "Add".into(),
        NodeKind::Sub => "Sub".into(),
        NodeKind::Mul => "Mul".into(),
        NodeKind::Div => "Div".into(),
        NodeKind::Minus => "Minus".into(),
        NodeKind::Not => "Not".into(),
        NodeKind::Bool(op) => op.name().into(),
        NodeKind::If => "If".into(),
        NodeKind::Proj { label, .. } => (*label).into(),
        NodeKind::Region { .. } => "Region".into(),
        NodeKind::Loop => "Loop".into(),
        NodeKind::Phi { label } => format!("Phi_{label}"),
        NodeKind::Scope(_) => "Scope".into(),
    }
}

/// A name unique in the graph, e.g. `Add12` or `Con_7`.
pub fn unique_name(g: &Graph, n: NodeId) -> String {
    match g.kind(n) {
        NodeKind::Constant(_) => format!("Con_{n}"),
        _ => format!("{}{n}", label(g, n)),
    }
}

/// The label drawn in a graph picture, e.g. `+` or `&phi;_a`.
pub fn glabel(g: &Graph, n: NodeId) -> String {
    match g.kind(n) {
        NodeKind::Add => "+".into(),
        NodeKind::Sub | NodeKind::Minus => "-".into(),
        NodeKind::Mul => "*".into(),
        NodeKind::Div => "//".into(),
        NodeKind::Not => "!".into(),
        NodeKind::Bool(op) => op.symbol().into(),
        NodeKind::Phi { label } => format!("&phi;_{label}"),
        _ => label(g, n),
    }
}

/// Control-flow nodes: the ones drawn as yellow boxes.
pub fn is_cfg(g: &Graph, n: NodeId) -> bool {
    match g.kind(n) {
        NodeKind::Start { .. }
        | NodeKind::Stop
        | NodeKind::Return
        | NodeKind::If
        | NodeKind::Region { .. }
        | NodeKind::Loop => true,
        NodeKind::Proj { idx, .. } => *idx == 0 || matches!(g.kind(g.in_(n, 0)), NodeKind::If),
        _ => false,
    }
}

/// Nodes whose value is a tuple, taken apart by projections.
pub fn is_multi(g: &Graph, n: NodeId) -> bool {
    matches!(g.kind(n), NodeKind::Start { .. } | NodeKind::If)
}

/// The type of the values node `n` produces, from its inputs' types.
fn compute(g: &mut Graph, n: NodeId) -> TypeId {
    match g.kind(n) {
        NodeKind::Start { args } => *args,
        NodeKind::Stop | NodeKind::Scope(_) => Types::BOTTOM,
        NodeKind::Return => return_::compute(g, n),
        NodeKind::Constant(t) => *t,
        NodeKind::Add => add::compute(g, n),
        NodeKind::Sub => sub::compute(g, n),
        NodeKind::Mul => mul::compute(g, n),
        NodeKind::Div => div::compute(g, n),
        NodeKind::Minus => minus::compute(g, n),
        NodeKind::Not => not::compute(g, n),
        NodeKind::Bool(op) => bool_op::compute(g, n, *op),
        NodeKind::If => if_::compute(g, n),
        NodeKind::Proj { idx, .. } => proj::compute(g, n, *idx),
        NodeKind::Region { .. } => region::compute(g, n),
        NodeKind::Loop => loop_::compute(g, n),
        NodeKind::Phi { .. } => phi::compute(g, n),
    }
}

/// A simpler replacement for `n`, or `None` when there is nothing to do.
///
/// The contract, as in Simple: return `None` for no change; otherwise return
/// the replacement (possibly `n` itself, changed in place). The replacement
/// is not yet peepholed; any other new node made on the way is.
fn idealize(g: &mut Graph, n: NodeId) -> Option<NodeId> {
    match g.kind(n) {
        NodeKind::Add => add::idealize(g, n),
        NodeKind::Mul => mul::idealize(g, n),
        NodeKind::Div => div::idealize(g, n),
        NodeKind::Bool(op) => bool_op::idealize(g, n, *op),
        NodeKind::Return => return_::idealize(g, n),
        NodeKind::Stop => stop::idealize(g, n),
        NodeKind::Proj { idx, .. } => proj::idealize(g, n, *idx),
        NodeKind::Region { .. } => region::idealize(g, n),
        NodeKind::Loop => loop_::idealize(g, n),
        NodeKind::Phi { .. } => phi::idealize(g, n),
        _ => None,
    }
}

/// Optimizes a freshly made node: computes its type, replaces it by a
/// constant when the type is one, else asks the node to idealize itself, and
/// repeats on whatever replaced it. Returns the node to use instead of `n`.
pub fn peephole(g: &mut Graph, n: NodeId) -> NodeId {
    stacker::maybe_grow(64 * 1024, 1024 * 1024, || {
        let ty = compute(g, n);
        g.set_ty(n, ty);
        if g.disable_peephole {
            return n;
        }
        if !matches!(g.kind(n), NodeKind::Constant(_)) && g.types.is_constant(ty) {
            let con = constant::new(g, ty);
            let con = peephole(g, con);
            return dead_code_elim(g, n, con);
        }
        if let Some(m) = idealize(g, n) {
            let m = peephole(g, m);
            return dead_code_elim(g, n, m);
        }
        n
    })
}

/// `m` replaces `old`: kill `old` if nothing uses it, without letting the
/// kill take `m` (which may have no uses yet) down with it.
fn dead_code_elim(g: &mut Graph, old: NodeId, m: NodeId) -> NodeId {
    if m != old && g.is_unused(old) {
        g.keep(m);
        g.kill(old);
        g.unkeep(m);
    }
    m
}

/// A new constant node of type `ty`, not yet peepholed.
pub fn new_constant(g: &mut Graph, ty: TypeId) -> NodeId {
    constant::new(g, ty)
}

/// A new binary node `lhs op rhs`, not yet peepholed.
pub fn new_binary(g: &mut Graph, kind: NodeKind, lhs: NodeId, rhs: NodeId) -> NodeId {
    g.add_node(kind, vec![None, Some(lhs), Some(rhs)])
}

/// A new node of the same operator as binary node `op` (Simple's `copy`).
fn copy_binary(g: &mut Graph, op: NodeId, lhs: NodeId, rhs: NodeId) -> NodeId {
    let kind = g.kind(op).clone();
    new_binary(g, kind, lhs, rhs)
}

/// All data inputs (all but input 0) have constant types. A phi of a loop
/// still being parsed has an unknown input, so never qualifies.
fn all_constant_inputs(g: &Graph, n: NodeId) -> bool {
    if matches!(g.kind(n), NodeKind::Phi { .. }) && region::in_progress(g, g.in_(n, 0)) {
        return false;
    }
    (1..g.n_ins(n)).all(|i| g.input(n, i).is_some_and(|x| g.types.is_constant(g.ty(x))))
}

/// The type of an integer binary operation: folded when both sides are
/// constants, the meet of the sides otherwise.
fn int_binary(g: &mut Graph, n: NodeId, fold: impl Fn(i64, i64) -> i64) -> TypeId {
    let (t1, t2) = (g.ty(g.in_(n, 1)), g.ty(g.in_(n, 2)));
    if !(g.types.is_int(t1) && g.types.is_int(t2)) {
        return Types::BOTTOM;
    }
    match (g.types.int_value(t1), g.types.int_value(t2)) {
        (Some(a), Some(b)) => g.types.int(fold(a, b)),
        _ => g.types.meet(t1, t2),
    }
}

/// The immediate dominator of a control node, computing dominator-tree depth
/// on the way. Start has none; a Region has one only when it merges two
/// paths whose dominator chains meet.
pub(crate) fn idom(g: &mut Graph, n: NodeId) -> Option<NodeId> {
    match g.kind(n) {
        NodeKind::Start { .. } => None,
        NodeKind::Region { .. } => region::idom(g, n),
        NodeKind::Loop => Some(loop_::entry(g, n)),
        _ => {
            let dom = g.in_(n, 0);
            if g.node(dom).idepth == 0 {
                idom(g, dom);
            }
            if g.node(n).idepth == 0 {
                let depth = g.node(dom).idepth + 1;
                g.node_mut(n).idepth = depth;
            }
            Some(dom)
        }
    }
}

/// The text being printed, and the nodes already printed: a node met again
/// (around a loop, or shared) prints as its label only, so cycles end.
pub struct Printer {
    out: String,
    visited: Vec<bool>,
}

impl std::ops::Deref for Printer {
    type Target = String;
    fn deref(&self) -> &String {
        &self.out
    }
}

impl std::ops::DerefMut for Printer {
    fn deref_mut(&mut self) -> &mut String {
        &mut self.out
    }
}

/// Appends the expression form of `n`, as Simple's `print()` shows it.
pub fn print(g: &Graph, n: NodeId, out: &mut Printer) {
    stacker::maybe_grow(64 * 1024, 1024 * 1024, || {
        let seen = n.nid() as usize;
        if out.visited.len() <= seen {
            out.visited.resize(g.len() + 1, false);
        }
        if std::mem::replace(&mut out.visited[seen], true) {
            out.push_str(&label(g, n));
            return;
        }
        if g.is_dead(n) {
            out.push_str(&unique_name(g, n));
            out.push_str(":DEAD");
            return;
        }
        match g.kind(n) {
            NodeKind::Start { .. } => out.push_str("Start"),
            NodeKind::Stop => stop::print(g, n, out),
            NodeKind::Return => return_::print(g, n, out),
            NodeKind::Constant(t) => g.types.print(*t, out),
            NodeKind::Add => print_binary(g, n, "+", out),
            NodeKind::Sub => print_binary(g, n, "-", out),
            NodeKind::Mul => print_binary(g, n, "*", out),
            NodeKind::Div => print_binary(g, n, "/", out),
            NodeKind::Bool(op) => print_binary(g, n, op.symbol(), out),
            NodeKind::Minus => print_unary(g, n, "-", out),
            NodeKind::Not => print_unary(g, n, "!", out),
            NodeKind::If => if_::print(g, n, out),
            NodeKind::Proj { label, .. } => out.push_str(label),
            NodeKind::Region { .. } => out.push_str(&format!("Region{n}")),
            NodeKind::Loop => out.push_str(&format!("Loop{n}")),
            NodeKind::Phi { .. } => phi::print(g, n, out),
            NodeKind::Scope(_) => scope::print(g, n, out),
        }
    })
}

fn print_binary(g: &Graph, n: NodeId, op: &str, out: &mut Printer) {
    out.push('(');
    print(g, g.in_(n, 1), out);
    out.push_str(op);
    print(g, g.in_(n, 2), out);
    out.push(')');
}

fn print_unary(g: &Graph, n: NodeId, op: &str, out: &mut Printer) {
    out.push('(');
    out.push_str(op);
    print(g, g.in_(n, 1), out);
    out.push(')');
}

/// The printed form of `n` as a new string.
pub fn to_string(g: &Graph, n: NodeId) -> String {
    let mut p = Printer {
        out: String::new(),
        visited: vec![false; g.len() + 1],
    };
    print(g, n, &mut p);
    p.out
}
