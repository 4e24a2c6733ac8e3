//! Load: reads a field of a struct from a slice of memory.
//!
//! `in(1)` is the memory slice of the field's alias class, `in(2)` the
//! pointer. A load straight after a store to the same object reads what
//! was stored. A load from a phi of memory is split into a phi of loads
//! when that lets at least one arm read a stored value directly.
//!
//! Chapter 15: a load has a fourth input, `in(3)`, the byte offset it
//! reads: a constant from the struct's layout for a field, `(i<<3)+8`
//! for an element of an `int[]`. Two stores at constant, different
//! offsets of one array cannot overlap, so a load looks past the other
//! one; a load of an object made by a New that no store on the way wrote
//! reads the field's initial value, an input of the New (chapter 16; in
//! chapter 15 the zero). Memory is typed by its contents, so a load is
//! typed by what its slice can hold too ([`compute`]), and a split
//! through a memory phi also pays where an arm holds a single value (the
//! values a New sets).

use super::{peephole, phi, NodeKind};
use crate::graph::{Graph, NodeId};
use crate::mach::{LType, Op};
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

/// The field's type, narrowed by what the memory slice read can hold
/// (chapter 15: memory is typed by its contents). Through a pointer that
/// may be null the load is an error anyway, and keeps its declared type.
///
/// Both tests must hold as the inputs' types rise, or the load's type
/// would fall: a pointer that goes dead (a high type, `Top`) is no longer
/// a non-null pointer, but a dead pointer cannot be null either, so it
/// still narrows; and memory that goes dead is no longer a slice of the
/// class, but holds nothing ([`Types::held_in`]), so the load is dead too.
pub fn compute(g: &mut Graph, n: NodeId) -> TypeId {
    let NodeKind::Load {
        alias, declared, ..
    } = *g.kind(n)
    else {
        unreachable!("load::compute on a non-load")
    };
    let mt = g.ty_opt(g.in_(n, 1));
    let pt = g.ty_opt(g.in_(n, 2));
    let not_null =
        pt.is_some_and(|t| g.types.is_high(t) || g.types.is_ptr(t) && g.types.not_null(t));
    match mt {
        Some(mt) if not_null => {
            let held = g.types.held_in(mt, alias);
            if held == declared {
                declared
            } else {
                g.types.join(declared, held)
            }
        }
        _ => declared,
    }
}

pub fn idealize(g: &mut Graph, n: NodeId) -> Option<NodeId> {
    let mem = g.in_(n, 1);
    // Chapter 17: a read-only view of a pointer addresses the same object.
    let ptr = writable(g, g.in_(n, 2));
    // Load after store, same object: the stored value. Alias classes are
    // exact (one per field), so the field is the same too.
    let off = super::element_offset(g, n);
    if matches!(g.kind(mem), NodeKind::Store { .. })
        && writable(g, g.in_(mem, 2)) == ptr
        && super::element_offset(g, mem) == off
    {
        let value = g.in_(mem, 3);
        let value = cast_ro(g, n, value);
        return Some(extend(g, n, value));
    }
    if let Some(earlier) = earlier_load(g, n, mem, off) {
        return Some(earlier);
    }
    if let Some(found) = look_past(g, n, mem, ptr, off) {
        // Moving past a memory Phi can free a dead cycle through it (a
        // loop storing only what this load read): the load dies with it.
        if g.is_dead(n) {
            return Some(n);
        }
        return Some(cast_ro(g, n, found));
    }
    // Push the load up through a memory phi:
    //   if (c) p.x = e0; else p.x = e1;  v = p.x;
    // becomes v = c ? e0 : e1 with no load at all. It must pay off on at
    // least one arm; at a loop, on the back edge, or the same rewrite would
    // go round the loop forever.
    if let NodeKind::Phi { .. } = g.kind(mem) {
        let region = g.in_(mem, 0);
        // The pointer must be known on each arm: made above the merge, the
        // same on both; or (chapter 16, as Simple) a phi of this very
        // region, whose input on each arm is the pointer there. A phi of a
        // merge inside the loop is a different pointer on each arm (on the
        // loop entry, not yet defined at all).
        // An element at an index computed in the loop is another element
        // on each trip: only a constant offset is the same on both arms.
        let fixed = off.is_none_or(|o| g.types.int_value(g.ty(o)).is_some());
        if g.ty(region) == Types::CTRL && g.n_ins(mem) == 3 && fixed {
            let is_loop = matches!(g.kind(region), NodeKind::Loop);
            let pays = profit(g, n, mem, 2) || (!is_loop && profit(g, n, mem, 1));
            let arm_phi = matches!(g.kind(ptr), NodeKind::Phi { .. }) && g.in_(ptr, 0) == region;
            // A load held below a test (`region::keep_on_arm`) must not
            // move above it: its arms would read through the pointer the
            // test ruled out, on paths where the test does not hold.
            let guard = super::element_offset(g, n)
                .is_none()
                .then(|| g.input(n, 0))
                .flatten();
            let above_guard = guard.is_some_and(|c| !strictly_dominates(g, c, region));
            if pays && !above_guard && (arm_phi || defined_above(g, ptr, region)) {
                let NodeKind::Load {
                    name,
                    alias,
                    declared,
                    at,
                } = g.kind(n).clone()
                else {
                    unreachable!("load::idealize on a non-load")
                };
                let field_off = g.input(n, 3);
                let arm = |g: &mut Graph, idx: usize| {
                    let m = g.in_(mem, idx);
                    let ptr = if arm_phi { g.in_(ptr, idx) } else { ptr };
                    // `p.x = p.x` in a loop: the load from that store is
                    // this very load (or its value-numbering twin). Making
                    // it again would peephole into this load and round
                    // again without end.
                    if matches!(g.kind(m), NodeKind::Store { .. }) && same_load(g, g.in_(m, 3), n) {
                        return n;
                    }
                    let ld = new(g, &name, alias, declared, at as usize, m, ptr);
                    g.add_def(ld, field_off);
                    if guard.is_some() {
                        g.set_def(ld, 0, guard);
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
                        return extend(g, n, value);
                    }
                    peephole(g, ld)
                };
                let ld1 = arm(g, 1);
                let ld2 = arm(g, 2);
                // Declared as the load is, not with the type it has now:
                // the phi's inputs may yet fall (a value read from memory
                // still being typed), and the glb of a narrow type such
                // as `null` is no pointer to the field's struct at all.
                return Some(phi::new(g, &name, declared, region, &[ld1, ld2]));
            }
        }
    }
    None
}

/// The pointer under a read-only view (chapter 17).
fn writable(g: &Graph, ptr: NodeId) -> NodeId {
    match g.kind(ptr) {
        NodeKind::ReadOnly => g.in_(ptr, 1),
        _ => ptr,
    }
}

/// A value found for a load through a read-only pointer is read-only
/// itself: finality is deep (chapter 17).
fn cast_ro(g: &mut Graph, n: NodeId, value: NodeId) -> NodeId {
    let ptr = g.ty(g.in_(n, 2));
    let t = g.ty(value);
    if g.types.is_ptr(ptr) && g.types.is_final(ptr) && !g.types.is_final(t) {
        let ro = super::read_only::new(g, value);
        peephole(g, ro)
    } else {
        value
    }
}

/// Chapter 19: a value read straight from a store into a narrow integer
/// field, cut down to the field's type as the store cut it (it may keep
/// a wider value, see `store.rs`): the low bits of an unsigned one
/// (`x & 255`), the sign copied up from the top bit of a signed one
/// (`(x<<56)>>56`). As in Simple, whether or not the value fits already.
fn extend(g: &mut Graph, n: NodeId, value: NodeId) -> NodeId {
    let NodeKind::Load { declared, .. } = *g.kind(n) else {
        return value;
    };
    let Some(t) = g.types.int_bounds(declared).filter(|t| !t.is_high()) else {
        return value;
    };
    if t.min == 0 {
        let mask = g.types.int(t.max);
        let mask = super::new_constant(g, mask);
        let mask = peephole(g, mask);
        let and = super::new_binary(g, NodeKind::And, value, mask);
        return peephole(g, and);
    }
    let shift = t.max.leading_zeros().saturating_sub(1);
    if shift == 0 {
        return value;
    }
    let by = g.types.int(i64::from(shift));
    let by = super::new_constant(g, by);
    let by = peephole(g, by);
    g.keep(by);
    let shl = super::new_binary(g, NodeKind::Shl, value, by);
    let shl = peephole(g, shl);
    g.unkeep(by);
    let sar = super::new_binary(g, NodeKind::Sar, shl, by);
    peephole(g, sar)
}

/// `ptr` is surely computed before control reaches `region`: a value
/// anchored (a New, a Phi, a Cast) to control that strictly dominates
/// `region`, or a projection of Start. Anything else may depend on values
/// made at or after `region`, so the answer is no.
fn defined_above(g: &mut Graph, ptr: NodeId, region: NodeId) -> bool {
    let anchor = match g.kind(ptr) {
        // A New's pointer: where the New is anchored.
        NodeKind::Proj { .. } if super::new_proj(g, ptr) => g.in_(g.in_(ptr, 0), 0),
        NodeKind::Proj { .. } | NodeKind::Constant(_) => return true,
        NodeKind::Phi { .. } => g.in_(ptr, 0),
        NodeKind::Cast { .. } => {
            let value = g.in_(ptr, 1);
            if !defined_above(g, value, region) {
                return false;
            }
            g.in_(ptr, 0)
        }
        _ => return false,
    };
    // The anchor must strictly dominate the region: walk up the region's
    // dominators to meet it. (Asked only where a split pays, which is rare;
    // cached depths can be stale while the graph changes, so the walk does
    // not prune by depth.)
    let mut c = super::idom(g, region);
    while let Some(x) = c {
        if x == anchor {
            return true;
        }
        c = super::idom(g, x);
    }
    false
}

/// Control node `c` is on every path to `region`: a dominator of it.
fn strictly_dominates(g: &mut Graph, c: NodeId, region: NodeId) -> bool {
    let mut x = super::idom(g, region);
    while let Some(d) = x {
        if d == c {
            return true;
        }
        x = super::idom(g, d);
    }
    false
}

/// Chapter 19: another load of the same place (same memory, pointer and
/// offset) under control that dominates this one's reads the same value,
/// and already has it: `if (a[i]) a[i].x` loads `a[i]` once. Only loads
/// with control, an array's elements, take part.
fn earlier_load(g: &mut Graph, n: NodeId, mem: NodeId, off: Option<NodeId>) -> Option<NodeId> {
    let ctrl = g.input(n, 0)?;
    let ptr = g.in_(n, 2);
    for i in 0..g.outputs(mem).len() {
        let ld = g.outputs(mem)[i];
        if ld == n
            || !matches!(g.kind(ld), NodeKind::Load { .. })
            || g.input(ld, 1) != Some(mem)
            || g.input(ld, 2) != Some(ptr)
            || super::element_offset(g, ld) != off
        {
            continue;
        }
        let Some(above) = g.input(ld, 0) else {
            continue;
        };
        if dominates(g, above, ctrl, n) {
            return Some(ld);
        }
    }
    None
}

/// Control `a` dominates control `b`: walking both up the dominator tree,
/// the deeper first, they meet at `a`. `dep` is woken when a node walked
/// changes (the answer may change with it).
fn dominates(g: &mut Graph, a: NodeId, b: NodeId, dep: NodeId) -> bool {
    let (mut lhs, mut rhs) = (b, a);
    while lhs != rhs {
        let (dl, dr) = (super::idepth(g, lhs), super::idepth(g, rhs));
        if dl >= dr {
            g.add_dep(lhs, dep);
            let Some(up) = super::idom(g, lhs) else {
                return false;
            };
            lhs = up;
        }
        if dl <= dr {
            g.add_dep(rhs, dep);
            let Some(up) = super::idom(g, rhs) else {
                return false;
            };
            rhs = up;
        }
    }
    lhs == a
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
/// of a field): walk up the memory of this alias class. A store to the
/// same place gives its value; the New that made the object gives the
/// field's initial value, its input. A store that cannot
/// touch the place is passed: one at an offset that cannot overlap (`a[0]`
/// after `a[1] = 2`), or into another object when both objects are made
/// by News. Likewise a New of another object, when this one is made by a
/// New: the walk goes on with the memory that New took in. Anything else
/// (a phi, a store through an unknown pointer or index, the whole memory)
/// stops the walk. Stores skipped give the load a new memory input.
fn look_past(
    g: &mut Graph,
    n: NodeId,
    mem: NodeId,
    ptr: NodeId,
    off: Option<NodeId>,
) -> Option<NodeId> {
    let NodeKind::Load { alias, .. } = *g.kind(n) else {
        return None;
    };
    let mut m = mem;
    loop {
        match g.kind(m) {
            NodeKind::Store { .. } => {
                let (sptr, soff) = (writable(g, g.in_(m, 2)), super::element_offset(g, m));
                if sptr == ptr && soff == off {
                    let value = g.in_(m, 3);
                    return Some(extend(g, n, value));
                }
                if !store_elsewhere(g, ptr, off, m) {
                    break;
                }
                m = g.in_(m, 1);
            }
            NodeKind::Proj { .. } if super::new_proj(g, m) => {
                let made = g.in_(m, 0);
                if new_of(g, ptr) == Some(made) {
                    // Chapter 19: the New leaves every field (and every
                    // element of an array) zero.
                    let zero = super::new_zero(g, made, alias)?;
                    let zero = super::new_constant(g, zero);
                    return Some(peephole(g, zero));
                }
                // Another object's New leaves this one as it was.
                let Some(i) = new_of(g, ptr).and(super::new_mem_input(g, made, alias)) else {
                    break;
                };
                m = g.in_(made, i);
            }
            // Chapter 18: all of memory (what a function returns) holds
            // the class's state in its slice for it.
            NodeKind::MemMerge => m = super::mem_merge_slice(g, m, alias),
            _ => break,
        }
    }
    if m != mem {
        g.set_def(n, 1, Some(m));
        return Some(n);
    }
    None
}

/// Store `st` cannot touch what a load through `ptr` at element offset
/// `off` reads: their offsets cannot overlap (`a[0]` after `a[1] = 2`),
/// or the two objects are made by two different News.
fn store_elsewhere(g: &mut Graph, ptr: NodeId, off: Option<NodeId>, st: NodeId) -> bool {
    let (sptr, soff) = (g.in_(st, 2), super::element_offset(g, st));
    let overlap = match (off, soff) {
        (Some(a), Some(b)) => {
            let j = g.types.join(g.ty(a), g.ty(b));
            !g.types.is_high(j)
        }
        _ => true,
    };
    !overlap || never_alias(g, ptr, sptr)
}

/// Load `load` walks past `writer`, a Store or a New of its alias class,
/// because the writer provably leaves what the load reads as it was (see
/// [`look_past`]). Global code motion then need not keep the load ahead
/// of the writer: the load may read a memory state from before the
/// writer while its address is computed from something after it.
pub fn passes(g: &mut Graph, load: NodeId, writer: NodeId) -> bool {
    let ptr = g.in_(load, 2);
    if matches!(g.kind(load), NodeKind::Mach(_)) {
        return machine_passes(g, load, writer);
    }
    match g.kind(writer) {
        NodeKind::Store { .. } => store_elsewhere(g, ptr, super::element_offset(g, load), writer),
        NodeKind::New { .. } => new_of(g, ptr).is_some_and(|made| made != writer),
        _ => false,
    }
}

/// Chapter 19: [`passes`] between machine nodes, whose byte offsets
/// are no longer nodes: each keeps the type its ideal offset had
/// (`Mach::off_ty`), and two accesses whose offsets' types cannot meet
/// cannot overlap. A store with no offset type (a New's initial value)
/// may overlap anything.
fn machine_passes(g: &mut Graph, load: NodeId, writer: NodeId) -> bool {
    let ptr = g.in_(load, 2);
    let off_ty = |g: &Graph, n| crate::mach::mach(g, n).and_then(|m| m.off_ty);
    match g.role(writer) {
        NodeKind::Store { .. } => {
            let overlap = match (off_ty(g, load), off_ty(g, writer)) {
                (Some(a), Some(b)) => {
                    let j = g.types.join(a, b);
                    !g.types.is_high(j)
                }
                _ => true,
            };
            !overlap
                || matches!(
                    (object_of(g, ptr), object_of(g, g.in_(writer, 2))),
                    (Some(a), Some(b)) if a != b
                )
        }
        NodeKind::New { .. } => object_of(g, ptr).is_some_and(|made| made != writer),
        _ => false,
    }
}

/// Chapter 19: the New whose object a machine address points into. An
/// address may be computed from the object's pointer (RISC-V adds a
/// scaled index to it, as it has no indexed addressing), and a pointer
/// plus an offset points into the same object; without looking through
/// that sum, a load of one array would seem to overlap a store to
/// another, and global code motion would order the load before the store
/// even when the load's index is read after it: a cycle in the block.
fn object_of(g: &Graph, ptr: NodeId) -> Option<NodeId> {
    let mut p = ptr;
    loop {
        if let Some(made) = new_of(g, p) {
            return Some(made);
        }
        let m = crate::mach::mach(g, p)?;
        if !matches!(m.op, Op::Add | Op::AddI | Op::Lea) || m.ty[0] != LType::Ptr {
            return None;
        }
        p = (1..g.n_ins(p))
            .filter_map(|i| g.input(p, i))
            .find(|&x| g.types.pointee(g.ty(x)).is_some())?;
    }
}

/// The New whose object `ptr` is, if it is a New's pointer projection.
fn new_of(g: &Graph, ptr: NodeId) -> Option<NodeId> {
    (super::new_proj(g, ptr) && matches!(g.role(ptr), NodeKind::Proj { idx: 1, .. }))
        .then(|| g.in_(ptr, 0))
}

/// Two pointers made by two different News never point to the same
/// object.
fn never_alias(g: &Graph, p1: NodeId, p2: NodeId) -> bool {
    match (new_of(g, p1), new_of(g, p2)) {
        (Some(a), Some(b)) => a != b,
        _ => false,
    }
}

/// Arm `idx` of the memory phi is a store to the same object, or memory
/// that holds only one value (or none) of the class (the slice a New
/// set): a load there folds.
fn profit(g: &mut Graph, n: NodeId, mem_phi: NodeId, idx: usize) -> bool {
    let Some(arm) = g.input(mem_phi, idx) else {
        return false;
    };
    g.add_dep(arm, n);
    let NodeKind::Load { alias, .. } = *g.kind(n) else {
        return false;
    };
    let t = g.ty(arm);
    if g.types.mem_alias(t) == Some(alias) {
        let held = g.types.mem_contents(t).unwrap_or(Types::BOTTOM);
        if g.types.is_high_or_const(held) {
            return true;
        }
    }
    matches!(g.kind(arm), NodeKind::Store { .. })
        && g.in_(arm, 2) == g.in_(n, 2)
        && super::element_offset(g, arm) == super::element_offset(g, n)
}
