//! Load: reads a field of a struct from a slice of memory.
//!
//! `in(1)` is the memory slice of the field's alias class, `in(2)` the
//! pointer. A load straight after a store to the same object reads what
//! was stored. A load from a phi of memory is split into a phi of loads
//! when that lets at least one arm read a stored value directly.
//!
//! Chapter 15: a load of an array element has a fourth input, `in(3)`, the
//! byte offset of the element (`(i<<3)+8` for `int[]`); a field of a
//! struct has none (its offset is fixed by its alias class). Two stores
//! at constant, different offsets of one array cannot overlap, so a load
//! looks past the other one; a load from an array made by a New that no
//! store on the way wrote reads the element's zero.

use super::{peephole, phi, NodeKind};
use crate::graph::{Graph, NodeId};
use crate::types::{TypeId, Types};

pub fn new(
    g: &mut Graph,
    name: &str,
    alias: u32,
    declared: TypeId,
    at: usize,
    mem: NodeId,
    ptr: NodeId,
) -> NodeId {
    let kind = NodeKind::Load {
        name: name.into(),
        alias,
        declared,
        at: super::source_offset(at),
    };
    g.add_node(kind, vec![None, Some(mem), Some(ptr)])
}

pub fn idealize(g: &mut Graph, n: NodeId) -> Option<NodeId> {
    let mem = g.in_(n, 1);
    let ptr = g.in_(n, 2);
    // Load after store, same object: the stored value. Alias classes are
    // exact (one per field), so the field is the same too.
    let off = super::element_offset(g, n);
    if matches!(g.kind(mem), NodeKind::Store { .. })
        && g.in_(mem, 2) == ptr
        && super::element_offset(g, mem) == off
    {
        return Some(g.in_(mem, 3));
    }
    if let Some(found) = look_past(g, n, mem, ptr, off) {
        return Some(found);
    }
    // Push the load up through a memory phi:
    //   if (c) p.x = e0; else p.x = e1;  v = p.x;
    // becomes v = c ? e0 : e1 with no load at all. It must pay off on at
    // least one arm; at a loop, on the back edge, or the same rewrite would
    // go round the loop forever.
    if let NodeKind::Phi { .. } = g.kind(mem) {
        let region = g.in_(mem, 0);
        // The pointer must be the same on both arms, so made above the
        // merge: a phi of this very region, or of a merge inside the loop,
        // is a different pointer on each arm (on the loop entry, not yet
        // defined at all).
        // An element at an index computed in the loop is another element
        // on each trip: only a constant offset is the same on both arms.
        let fixed = off.is_none_or(|o| g.types.int_value(g.ty(o)).is_some());
        if g.ty(region) == Types::CTRL
            && g.n_ins(mem) == 3
            && fixed
            && defined_above(g, ptr, region)
        {
            let is_loop = matches!(g.kind(region), NodeKind::Loop);
            if profit(g, n, mem, 2) || (!is_loop && profit(g, n, mem, 1)) {
                let NodeKind::Load {
                    name,
                    alias,
                    declared,
                    at,
                } = g.kind(n).clone()
                else {
                    unreachable!("load::idealize on a non-load")
                };
                let arm = |g: &mut Graph, m: NodeId| {
                    // `p.x = p.x` in a loop: the load from that store is
                    // this very load (or its value-numbering twin). Making
                    // it again would peephole into this load and round
                    // again without end.
                    if matches!(g.kind(m), NodeKind::Store { .. }) && same_load(g, g.in_(m, 3), n) {
                        return n;
                    }
                    let ld = new(g, &name, alias, declared, at as usize, m, ptr);
                    if off.is_some() {
                        g.add_def(ld, off);
                    }
                    // A store to the same object: the load reads what it
                    // stored. Take that value as it is; optimizing it here
                    // could lead back to this load (`p.x = 1 * p.x`), and
                    // it is revisited anyway. The load made (as Simple
                    // makes it, so node numbers agree) is dropped.
                    if matches!(g.kind(m), NodeKind::Store { .. })
                        && g.in_(m, 2) == ptr
                        && super::element_offset(g, m) == off
                    {
                        let value = g.in_(m, 3);
                        g.kill(ld);
                        return value;
                    }
                    peephole(g, ld)
                };
                let (m1, m2) = (g.in_(mem, 1), g.in_(mem, 2));
                let ld1 = arm(g, m1);
                let ld2 = arm(g, m2);
                let ty = g.ty(n);
                return Some(phi::new(g, &name, ty, region, &[ld1, ld2]));
            }
        }
    }
    None
}

/// `ptr` is surely computed before control reaches `region`: a value
/// anchored (a New, a Phi, a Cast) to control that `region` does not
/// dominate, or a projection of Start. Anything else may depend on values
/// made at or after `region`, so the answer is no.
fn defined_above(g: &mut Graph, ptr: NodeId, region: NodeId) -> bool {
    let anchor = match g.kind(ptr) {
        NodeKind::Proj { .. } | NodeKind::Constant(_) => return true,
        NodeKind::New { .. } | NodeKind::Phi { .. } => g.in_(ptr, 0),
        NodeKind::Cast { .. } => {
            let value = g.in_(ptr, 1);
            if !defined_above(g, value, region) {
                return false;
            }
            g.in_(ptr, 0)
        }
        _ => return false,
    };
    // Walk up the dominator tree from the anchor; meeting `region` means
    // the value is made at or below it. Depth falls at every step, so once
    // above the region's depth the walk cannot meet it: stop there rather
    // than at Start (a walk to Start for every Load would be quadratic).
    let floor = super::idepth(g, region);
    let mut c = Some(anchor);
    while let Some(x) = c {
        if x == region {
            return false;
        }
        if super::idepth(g, x) < floor {
            break;
        }
        c = super::idom(g, x);
    }
    true
}

/// `x` is the load `n`, or loads the same field of the same object from
/// the same memory.
fn same_load(g: &Graph, x: NodeId, n: NodeId) -> bool {
    x == n
        || matches!(g.kind(x), NodeKind::Load { .. })
            && g.kind(x).gvn_data() == g.kind(n).gvn_data()
            && g.inputs(x) == g.inputs(n)
}

/// A load from memory `mem` (of an array element at byte offset `off`, or
/// of a field): walk up the stores of this alias class. A store to the
/// same place gives its value; a store at another constant offset of the
/// same array, or into another object made by a New when this one is made
/// by a New too, cannot be what the load reads, so the walk goes past it
/// (chapter 15). Reaching the program's initial memory with the object
/// made by a New, nothing wrote the element: it is its type's zero.
/// Anything else (a phi, a store through an unknown pointer or index)
/// stops the walk. Stores skipped give the load a new memory input.
fn look_past(
    g: &mut Graph,
    n: NodeId,
    mem: NodeId,
    ptr: NodeId,
    off: Option<NodeId>,
) -> Option<NodeId> {
    let is_new = |g: &Graph, p: NodeId| matches!(g.kind(p), NodeKind::New { .. });
    let mut m = mem;
    loop {
        match g.kind(m) {
            NodeKind::Store { .. } => {
                let (sptr, soff) = (g.in_(m, 2), super::element_offset(g, m));
                if sptr == ptr && soff == off {
                    return Some(g.in_(m, 3));
                }
                if !never_overlaps(g, ptr, off, m) {
                    break;
                }
                m = g.in_(m, 1);
            }
            NodeKind::Proj { .. } if is_new(g, ptr) && g.in_(m, 0) == g.start() => {
                let NodeKind::Load { declared, .. } = *g.kind(n) else {
                    return None;
                };
                let zero = g.types.make_init(declared)?;
                let c = super::new_constant(g, zero);
                return Some(peephole(g, c));
            }
            _ => break,
        }
    }
    if m != mem {
        g.set_def(n, 1, Some(m));
        return Some(n);
    }
    None
}

/// Store `st` provably writes somewhere other than what a load through
/// `ptr` at element offset `off` reads: another constant offset of the
/// same array, or another object when both come from a New. The load
/// walks past such a store, and global code motion need not keep the load
/// ahead of it.
pub fn never_overlaps(g: &Graph, ptr: NodeId, off: Option<NodeId>, st: NodeId) -> bool {
    let is_new = |p: NodeId| matches!(g.kind(p), NodeKind::New { .. });
    let (sptr, soff) = (g.in_(st, 2), super::element_offset(g, st));
    if sptr == ptr {
        let a = off.and_then(|o| g.types.int_value(g.ty(o)));
        let b = soff.and_then(|o| g.types.int_value(g.ty(o)));
        matches!((a, b), (Some(a), Some(b)) if a != b)
    } else {
        is_new(sptr) && is_new(ptr)
    }
}

/// Arm `idx` of the memory phi is a store to the same object.
fn profit(g: &mut Graph, n: NodeId, mem_phi: NodeId, idx: usize) -> bool {
    let Some(arm) = g.input(mem_phi, idx) else {
        return false;
    };
    g.add_dep(arm, n);
    matches!(g.kind(arm), NodeKind::Store { .. })
        && g.in_(arm, 2) == g.in_(n, 2)
        && super::element_offset(g, arm) == super::element_offset(g, n)
}
