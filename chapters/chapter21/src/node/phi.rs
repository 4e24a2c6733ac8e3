//! Phi: picks the value that arrives along the region's live path.
//!
//! `Phi(Region, a, b)` is `a` when control came through the region's first
//! path and `b` through its second. A phi whose live inputs are all one node
//! is that node. A phi of the same operator on every path pulls the operator
//! below itself: `Phi(a+b, c+d)` becomes `Phi(a,c) + Phi(b,d)`, one operator
//! fewer (phis make no code), unless the one operator would know less about
//! its result than the phi knew (chapter 14: the phi of two ranges is their
//! hull, but the sum of two phis may overflow).

use super::{
    compute as compute_type, copy_binary, is_cfg, peephole, print as print_node, region, NodeKind,
    Printer,
};
use crate::graph::{Graph, NodeId};
use crate::types::{TypeId, Types};

pub fn new(
    g: &mut Graph,
    label: &str,
    declared: TypeId,
    region: NodeId,
    values: &[NodeId],
) -> NodeId {
    let mut inputs = vec![Some(region)];
    inputs.extend(values.iter().map(|&v| Some(v)));
    let kind = NodeKind::Phi {
        label: label.into(),
        declared,
        parm: None,
    };
    g.add_node(kind, inputs)
}

/// The type the phi was declared with.
pub fn declared(g: &Graph, n: NodeId) -> TypeId {
    match g.role(n) {
        NodeKind::Phi { declared, .. } => *declared,
        _ => unreachable!("not a phi"),
    }
}

/// The phi's region is a region whose paths are all known.
fn region_done(g: &Graph, n: NodeId) -> bool {
    let region = g.in_(n, 0);
    g.kind(region).is_region() && !region::in_progress(g, region)
}

/// The meet of the inputs on live paths: a constant when all agree. A phi
/// on a loop still being parsed may be anything its declared type allows; a
/// phi whose region has collapsed into plain control keeps its type (or is
/// `Top` if dead).
pub fn compute(g: &mut Graph, n: NodeId) -> TypeId {
    let region = g.in_(n, 0);
    if !g.kind(region).is_region() {
        return if g.ty(region) == Types::XCTRL {
            Types::TOP
        } else {
            g.ty(n)
        };
    }
    let declared = declared(g, n);
    if region::in_progress(g, region) {
        return declared;
    }
    // A phi of one memory class is a slice of that class, even where an
    // input is the whole memory (a class not yet split off, see the
    // parser); it holds what any live input holds (chapter 15).
    if let Some(alias) = g.types.mem_alias(declared) {
        let mut held = Types::TOP;
        for i in 1..g.n_ins(n) {
            let path = g.in_(region, i);
            g.add_dep(path, n);
            if g.ty(path) == Types::XCTRL {
                continue;
            }
            let ti = g.ty(g.in_(n, i));
            let ci = g.types.held_in(ti, alias);
            held = g.types.meet(held, ci);
        }
        return g.types.mem_of(alias, held);
    }
    // Start from the top of the declared type's own lattice (chapter 17:
    // its fields writable, to fall to final if some input is).
    let mut t = g.types.lub(declared);
    // What the live inputs hold, alone: `null` lies outside the declared
    // lattice, and its meet with that top is a nullable pointer to the
    // struct, below `null`. A phi whose live inputs are all `null` (loads
    // of memory that holds only null, split through a memory phi) is
    // `null`, and stays `null` when its last path dies: its type only
    // rises.
    let mut inputs = Types::TOP;
    let mut live = false;
    for i in 1..g.n_ins(n) {
        let path = g.in_(region, i);
        g.add_dep(path, n);
        let value = g.in_(n, i);
        if g.ty(path) != Types::XCTRL {
            let ti = g.ty(value);
            t = g.types.meet(t, ti);
            inputs = g.types.meet(inputs, ti);
            live = true;
        }
    }
    if inputs == Types::NULL || (!live && g.ty_opt(n) == Some(Types::NULL)) {
        return Types::NULL;
    }
    t
}

pub fn idealize(g: &mut Graph, n: NodeId) -> Option<NodeId> {
    let region = g.in_(n, 0);
    if !g.kind(region).is_region() {
        return Some(g.in_(n, 1)); // the region collapsed into plain control
    }
    if region::in_progress(g, region) || g.n_ins(region) <= 1 {
        return None;
    }
    if let Some(live) = single_unique_input(g, n) {
        return Some(live);
    }

    // Pull a common data operator down: Phi(op(A,B), op(Q,R)) becomes
    // op(Phi(A,Q), Phi(B,R)).
    let op = g.in_(n, 1);
    let arithmetic = matches!(
        g.kind(op),
        NodeKind::Add
            | NodeKind::Sub
            | NodeKind::Mul
            | NodeKind::Div
            | NodeKind::Bool(_)
            | NodeKind::AddF
            | NodeKind::SubF
            | NodeKind::MulF
            | NodeKind::DivF
            | NodeKind::BoolF(_)
            | NodeKind::And
            | NodeKind::Or
            | NodeKind::Xor
            | NodeKind::Shl
            | NodeKind::Sar
            | NodeKind::Shr
    );
    if arithmetic
        && g.n_ins(op) == 3
        && g.input(op, 0).is_none()
        && !is_cfg(g, op)
        && same_op(g, n)
        && !folds_soon(g, n)
    {
        let region = g.in_(n, 0);
        let mut lhss = vec![Some(region)];
        let mut rhss = vec![Some(region)];
        for i in 1..g.n_ins(n) {
            lhss.push(Some(g.in_(g.in_(n, i), 1)));
            rhss.push(Some(g.in_(g.in_(n, i), 2)));
        }
        // Each new phi is declared with the kind of value it merges: an
        // int phi for the compared pointers would say nothing true.
        let label = phi_label(g, n);
        let lhs_type = g.ty(g.in_(op, 1));
        let lhs_type = g.types.glb(lhs_type);
        let phi_lhs = g.add_node(
            NodeKind::Phi {
                label: label.clone(),
                declared: lhs_type,
                parm: None,
            },
            lhss,
        );
        let phi_lhs = peephole(g, phi_lhs);
        let rhs_type = g.ty(g.in_(op, 2));
        let rhs_type = g.types.glb(rhs_type);
        let phi_rhs = g.add_node(
            NodeKind::Phi {
                label,
                declared: rhs_type,
                parm: None,
            },
            rhss,
        );
        let phi_rhs = peephole(g, phi_rhs);
        let phi_op = copy_binary(g, op, phi_lhs, phi_rhs);
        // The one operator may know less than the phi of the many did:
        // then keep them.
        let t = compute_type(g, phi_op);
        g.set_ty(phi_op, t);
        if !g.types.isa(t, g.ty(n)) {
            g.discard(phi_op);
            return None;
        }
        return Some(phi_op);
    }

    if g.n_ins(n) == 3 {
        // Phi(x, Cast(x)): merging loses what the cast knew; just use x.
        for (cast, other) in [(1, 2), (2, 1)] {
            let (c, o) = (g.in_(n, cast), g.in_(n, other));
            if matches!(g.kind(c), NodeKind::Cast { .. }) {
                let casted = g.in_(c, 1);
                g.add_dep(casted, n);
                if casted == o {
                    return Some(o);
                }
            }
        }
        // `if (v) ...; Phi(v, null)`: null on the path where v was tested
        // null is v itself, so the phi is just v.
        if let Some(v) = null_merge(g, n) {
            return Some(v);
        }
    }
    None
}

/// For `Phi(Region, a, b)` where one input is the zero of its type (0 or
/// null) and arrives from the false arm of an If testing the other input,
/// that other input. Not for floats: on the false arm a float is `0.0` or
/// `-0.0`, and the phi's `0.0` is not `-0.0`. (Simple makes no exception.)
fn null_merge(g: &mut Graph, n: NodeId) -> Option<NodeId> {
    let is_init = |g: &Graph, x: NodeId| {
        let t = g.ty(x);
        !g.types.is_flt(t) && g.types.make_init(t) == Some(t)
    };
    let mut nullx = None;
    if is_init(g, g.in_(n, 1)) {
        nullx = Some(1);
    }
    if is_init(g, g.in_(n, 2)) {
        nullx = Some(2);
    }
    let nullx = nullx?;
    let mut value = g.in_(n, 3 - nullx);
    // Chapter 18: the value tested may arrive through its not-null cast.
    if matches!(g.kind(value), NodeKind::Cast { .. }) {
        value = g.in_(value, 1);
    }
    let region = g.in_(n, 0);
    let iff = super::idom(g, region)?;
    if !matches!(g.kind(iff), NodeKind::If) {
        return None;
    }
    let pred = g.in_(iff, 1);
    g.add_dep(pred, n);
    if pred != value {
        return None;
    }
    // Walk up the null side's dominators to the If's own projection.
    let mut dom = g.in_(region, nullx);
    while g.input(dom, 0) != Some(iff) {
        dom = super::idom(g, dom)?;
    }
    matches!(g.kind(dom), NodeKind::CProj { idx: 1, .. }).then_some(value)
}

/// All inputs are the same operator, on the same kinds of operands (ints
/// with ints, floats with floats, pointers with pointers).
fn same_op(g: &mut Graph, n: NodeId) -> bool {
    let first = g.in_(n, 1);
    let kinds: Vec<TypeId> = (1..=2)
        .map(|j| {
            let t = g.ty(g.in_(first, j));
            g.types.glb(t)
        })
        .collect();
    (2..g.n_ins(n)).all(|i| {
        let op = g.in_(n, i);
        g.kind(op).same_op(g.kind(first))
            && (1..=2).all(|j| {
                let t = g.ty(g.in_(op, j));
                g.types.glb(t) == kinds[j - 1]
            })
    })
}

/// Some input is an operator on constants, which becomes a constant when
/// it is next visited (only a graph built without peepholes has one).
/// Pulling it down first would make phis of constants, which `phi_con`
/// pushes straight back up, for ever.
fn folds_soon(g: &Graph, n: NodeId) -> bool {
    (1..g.n_ins(n)).any(|i| {
        let op = g.in_(n, i);
        (1..=2).all(|j| g.types.is_constant(g.ty(g.in_(op, j))))
    })
}

fn phi_label(g: &Graph, n: NodeId) -> Box<str> {
    match g.role(n) {
        NodeKind::Phi { label, .. } => label.clone(),
        _ => unreachable!("not a phi"),
    }
}

/// The one node every live path brings in, ignoring the phi itself.
fn single_unique_input(g: &mut Graph, n: NodeId) -> Option<NodeId> {
    let region = g.in_(n, 0);
    // A loop whose entry is dead is going away; leave its phis alone.
    if matches!(g.kind(region), NodeKind::Loop) && g.ty(g.in_(region, 1)) == Types::XCTRL {
        return None;
    }
    let mut live = None;
    for i in 1..g.n_ins(n) {
        let path = g.in_(region, i);
        g.add_dep(path, n);
        let value = g.in_(n, i);
        if g.ty(path) != Types::XCTRL && value != n {
            match live {
                None => live = Some(value),
                Some(l) if l == value => {}
                Some(_) => return None,
            }
        }
    }
    live
}

/// `Phi(Region,a,b)`; a `Z` in front marks a phi of a loop still being
/// parsed, and `____` a back-edge value not yet known.
pub fn print(g: &Graph, n: NodeId, out: &mut Printer) {
    if !region_done(g, n) {
        out.push('Z');
    }
    out.push_str("Phi(");
    for (i, input) in g.inputs(n).iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        match input {
            Some(x) => print_node(g, *x, out),
            None => out.push_str("____"),
        }
    }
    out.push(')');
}

/// Chapter 18: a phi that merges kinds of value that have nothing in
/// common (an int and a reference, say) has type Bottom; that is an error
/// where the phi merges the values of `?:` or of a function's returns.
pub fn error(g: &Graph, n: NodeId) -> Option<crate::Error> {
    if g.ty(n) != Types::BOTTOM || g.types.is_mem(declared(g, n)) {
        return None;
    }
    let inputs: Vec<TypeId> = (1..g.n_ins(n))
        .filter_map(|i| g.input(n, i))
        .map(|x| g.ty(x))
        .collect();
    if inputs.contains(&Types::BOTTOM) {
        return None;
    }
    Some(crate::Error::new(mix_error(&g.types, &inputs), usize::MAX))
}

/// `No common type amongst int and reference`, naming the kinds met.
pub fn mix_error(types: &crate::types::Types, seen: &[TypeId]) -> String {
    let mut kinds = super::return_::Kinds::default();
    for &t in seen {
        kinds.add(types, t);
    }
    kinds.message()
}
