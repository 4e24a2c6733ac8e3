//! New: allocates a struct or an array, and zeroes it.
//!
//! Chapter 15 makes New a multi-node, like Start and If: its value is a
//! tuple, taken apart by projections. Its inputs are the control that
//! anchors it, the size of the object in bytes (from the one layout,
//! `Types::struct_layout`: for an array `base + (len << scale)`), and the
//! current memory slice of each field's alias class, in field order.
//! Its tuple is the control, the pointer to the new object (`Proj 1`,
//! printed by the struct's name: `return S;`) and, for each field, the
//! slice of its class with the new object's field set to its zero
//! (`Proj 2+i`, `$N`). So a New is an allocation that writes every field
//! of the object it makes: a later backend lowers it to a call of an
//! allocator that clears the memory, and a load from the object sees the
//! zero without any store.
//!
//! Memory is typed by its contents, so each slice out of a New holds the
//! field's zero met with what the slice in held (`MEM#2:0` right after
//! the first `new`). Two News are never the same value, so New takes no
//! part in value numbering, and it has no rewrites.

use super::NodeKind;
use crate::graph::{Graph, NodeId};
use crate::types::{TypeId, Types};

/// A New of pointer type `ptr` (not null, to one struct whose first field
/// is alias class `first_alias`) under `ctrl`, of `size` bytes, taking the
/// memory slices `mems`, one per field.
pub fn new(
    g: &mut Graph,
    ptr: TypeId,
    first_alias: u32,
    ctrl: NodeId,
    size: NodeId,
    mems: &[NodeId],
) -> NodeId {
    let mut inputs = vec![Some(ctrl), Some(size)];
    inputs.extend(mems.iter().map(|&m| Some(m)));
    g.add_node(NodeKind::New { ptr, first_alias }, inputs)
}

/// `[Ctrl, ptr, MEM#a:zero∧in, ...]`: each field's slice with the new
/// object's field at its zero.
pub fn compute(g: &mut Graph, n: NodeId, ptr: TypeId, first_alias: u32) -> TypeId {
    let obj = g.types.pointee(ptr).expect("new makes a pointer");
    let mut elems = vec![Types::CTRL, ptr];
    for i in 0..g.types.field_count(obj) {
        let field = g.types.field_type(obj, i);
        let zero = g.types.make_init(field).unwrap_or(Types::BOTTOM);
        let alias = first_alias + i as u32;
        let held = g
            .input(n, 2 + i)
            .and_then(|m| g.ty_opt(m))
            .map_or(Types::BOTTOM, |t| g.types.held_in(t, alias));
        let contents = g.types.meet(zero, held);
        elems.push(g.types.mem_of(alias, contents));
    }
    g.types.tuple(&elems)
}

/// The index in New `n`'s inputs of the memory slice of class `alias`.
pub fn mem_input(g: &Graph, n: NodeId, alias: u32) -> Option<usize> {
    let NodeKind::New { first_alias, .. } = *g.kind(n) else {
        return None;
    };
    let i = 2 + alias.checked_sub(first_alias)? as usize;
    (i < g.n_ins(n)).then_some(i)
}
