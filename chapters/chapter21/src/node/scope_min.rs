//! ScopeMin: the parser's state of memory, one slot per alias class
//! (chapter 16).
//!
//! Input 1 is the default memory: the state of every alias class that has
//! no slot of its own, which is the whole memory Start hands in. Input `a`
//! (from 2 on), when present, is the current state of alias class `a`:
//! the last Store into one of its fields, a New's slice, or a memory Phi.
//! A class gets a slot the first time the program touches it, so a class
//! nobody stores to costs nothing, and no `struct` needs to declare its
//! slices anywhere: a struct or an array type may be declared in any block.
//!
//! Every scope owns one ScopeMin (its input 1, the name `$mem`); an `if`
//! copies it for the other arm and merges the two with a memory Phi per
//! class whose states differ, before the variables' Phis; a loop body's
//! copy holds, in every slot, the loop head's scope itself: the lazy
//! sentinel of the variables (see `scope.rs`), which becomes a memory Phi
//! at the loop head only when the body reads or writes that class.
//!
//! The node is the parser's only; it dies with its scope.

use super::{peephole, phi, scope, NodeKind};
use crate::graph::{Graph, NodeId};

/// A ScopeMin over the default memory `all`; without it, the parser
/// gives the default memory right after (Simple makes the node first).
pub fn new(g: &mut Graph, all: Option<NodeId>) -> NodeId {
    let mut inputs = vec![None];
    inputs.extend(all.map(Some));
    g.add_node(NodeKind::ScopeMin, inputs)
}

/// The state in slot `a`, or the default memory if it has no slot.
pub fn alias(g: &Graph, min: NodeId, a: usize) -> NodeId {
    match g.inputs(min).get(a) {
        Some(Some(s)) if a >= 2 => *s,
        _ => g.in_(min, 1),
    }
}

/// Sets slot `a` to `st`, growing the slots as needed.
fn set_alias(g: &mut Graph, min: NodeId, a: usize, st: NodeId) {
    while g.n_ins(min) <= a {
        g.add_def(min, None);
    }
    g.set_def(min, a, Some(st));
}

/// The current state of alias class `a`, made real if it is a loop's lazy
/// sentinel (a memory Phi at that loop's head, made now if there is none
/// yet); with `st`, the class's new state is `st` instead. Returns the
/// state.
pub fn mem(g: &mut Graph, min: NodeId, a: usize, st: Option<NodeId>) -> NodeId {
    let mut old = alias(g, min, a);
    if matches!(g.kind(old), NodeKind::Scope(_)) {
        let head = old;
        let head_min = scope::mem(g, head);
        let head_ctrl = scope::ctrl(g, head);
        let def = alias(g, head_min, a);
        // The head's phi of this very slot (chapter 18: not the default
        // memory's phi, which a class without a slot reads).
        let own = a < 2 || g.inputs(head_min).get(a).copied().flatten() == Some(def);
        old = if own
            && matches!(g.kind(def), NodeKind::Phi { .. })
            && g.input(def, 0) == Some(head_ctrl)
        {
            def
        } else {
            // One level per enclosing loop: deep nests need a deep stack.
            let mut entry =
                stacker::maybe_grow(64 * 1024, 1024 * 1024, || mem(g, head_min, a, None));
            // Chapter 18: a class without a slot at the head reads the
            // default memory, which may already be this head's own Phi
            // (a call in the body made it). What enters the loop is that
            // Phi's entry, not the Phi.
            if a >= 2
                && matches!(g.kind(entry), NodeKind::Phi { .. })
                && g.input(entry, 0) == Some(head_ctrl)
            {
                entry = g.in_(entry, 1);
            }
            let kind = NodeKind::Phi {
                label: slot_label(a).into(),
                declared: slot_type(g, a),
                parm: None,
            };
            let p = g.add_node(kind, vec![Some(head_ctrl), Some(entry), None]);
            let p = peephole(g, p);
            set_alias(g, head_min, a, p);
            p
        };
        set_alias(g, min, a, old);
    }
    match st {
        None => old,
        Some(st) => {
            set_alias(g, min, a, st);
            st
        }
    }
}

/// The memory half of merging two scopes at `region`: a Phi for every
/// alias class whose state differs between `this` and `that`, in alias
/// order, into `this`.
pub fn merge(g: &mut Graph, this: NodeId, that: NodeId, region: NodeId) {
    // Chapter 18: a side whose default memory is still a loop's lazy
    // sentinel reads a class the loop head has a slot for from that slot,
    // not from the default; the other side (after a call, the default
    // alone) may not list the class. Such classes merge too.
    let lazy_head_slots = |g: &Graph, min: NodeId| {
        let default = alias(g, min, 1);
        if matches!(g.kind(default), NodeKind::Scope(_)) {
            g.n_ins(scope::mem(g, default))
        } else {
            0
        }
    };
    let n = g
        .n_ins(this)
        .max(g.n_ins(that))
        .max(lazy_head_slots(g, this))
        .max(lazy_head_slots(g, that));
    // Chapter 18: the default memory (slot 1) changes at a call, so it
    // merges like a class; last, since a class without a slot reads it.
    for a in (2..n).chain(1..2) {
        if alias(g, this, a) != alias(g, that, a) {
            let lhs = mem(g, this, a, None);
            let rhs = mem(g, that, a, None);
            let declared = slot_type(g, a);
            let p = phi::new(g, &slot_label(a), declared, region, &[lhs, rhs]);
            let p = peephole(g, p);
            set_alias(g, this, a, p);
        }
    }
}

/// The memory half of closing a loop: `this` is the head's ScopeMin,
/// `head` the head scope (the sentinel), `back` and `exit` the ScopeMins
/// of the back edge and of the loop exit. Each head Phi gets its back-edge
/// state; exit slots still lazy take the head's state.
pub fn end_loop(g: &mut Graph, this: NodeId, head: NodeId, back: NodeId, exit: NodeId) {
    let head_ctrl = scope::ctrl(g, head);
    // The classes first, the default memory (slot 1) last: a class the
    // exit has no slot for reads slot 1, which must still be lazy then.
    let n = g.n_ins(this).max(g.n_ins(back));
    // The classes the body changed. The head's default memory stands for
    // every class without a Phi of its own, and code in the body may have
    // read a class through it before the class got its Phi (a call's
    // memory, made before a later load gave the class a slot); a class
    // the body stores to after a call has no head Phi at all. So the
    // default's back edge carries them all: a merge of their states over
    // the back edge's default memory.
    let extras: Vec<(u32, NodeId)> = (2..g.n_ins(back))
        .filter_map(|a| {
            let st = g.input(back, a).filter(|&st| st != head)?;
            Some((a as u32, st))
        })
        .collect();
    let slots = (2..n).chain(1..2.min(n));
    for a in slots {
        // Only the head's own Phis wait for a back edge. What the body
        // hands back is its slot, or (chapter 18: after a call, which
        // leaves only the default memory) its default memory; the
        // sentinel means the body never changed the class.
        if let Some(p) = g.input(this, a).filter(|&p| {
            matches!(g.kind(p), NodeKind::Phi { .. })
                && g.input(p, 0) == Some(head_ctrl)
                && g.input(p, 2).is_none()
        }) {
            let st = alias(g, back, a);
            let st = if st == head { p } else { st };
            let st = if a == 1 && !extras.is_empty() {
                let merge = super::mem_merge::new(g, st, &extras);
                peephole(g, merge)
            } else {
                st
            };
            g.set_def(p, 2, Some(st));
        }
        if alias(g, exit, a) == head {
            while g.n_ins(exit) <= a {
                g.add_def(exit, None);
            }
            let at_head = g.input(this, a);
            g.set_def(exit, a, at_head);
        }
    }
}

/// After a loop: memory Phis that turned out useless (the same state on
/// both paths) are replaced by that state.
pub fn remove_useless(g: &mut Graph, this: NodeId) {
    for a in 1..g.n_ins(this) {
        let Some(p) = g.input(this, a) else { continue };
        if matches!(g.kind(p), NodeKind::Phi { .. }) {
            scope::settle_phi(g, this, a, p);
        }
    }
}

/// `MEM[ 2:.x= 3:Lazy ]`: each slot.
pub fn print(g: &Graph, n: NodeId, out: &mut super::Printer) {
    out.push_str("MEM[");
    for a in 2..g.n_ins(n) {
        let Some(s) = g.input(n, a) else { continue };
        out.push_str(&format!(" {a}:"));
        if matches!(g.kind(s), NodeKind::Scope(_)) {
            out.push_str("Lazy");
        } else {
            super::print(g, s, out);
        }
    }
    out.push(']');
}

/// The name of a memory Phi of slot `a`: `$mem` for the default memory
/// (chapter 18), `$N` for class `N`.
fn slot_label(a: usize) -> String {
    if a == 1 {
        "$mem".into()
    } else {
        format!("${a}")
    }
}

/// The declared type of a memory Phi of slot `a`: all of memory for the
/// default memory, the class's slice for the others.
fn slot_type(g: &mut Graph, a: usize) -> crate::types::TypeId {
    if a == 1 {
        crate::types::Types::MEM_BOT
    } else {
        g.types.mem(a as u32)
    }
}
