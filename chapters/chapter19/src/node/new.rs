//! New: allocates a struct or an array, with the initial value of each
//! field.
//!
//! Chapter 15 makes New a multi-node, like Start and If: its value is a
//! tuple, taken apart by projections. Its inputs are the control that
//! anchors it, the size of the object in bytes (from the one layout,
//! `Types::struct_layout`: for an array `base + (len << scale)`), the
//! current memory slice of each field's alias class, in field order, and
//! (chapter 16) the initial value of each field, in the same order: the
//! default from the struct's declaration, or what a constructor block
//! left there. An array's are its length and its element's zero.
//! Its tuple is the control, the pointer to the new object (`Proj 1`,
//! printed by the struct's name: `return S;`) and, for each field, the
//! slice of its class with the new object's field set to its initial
//! value (`Proj 2+i`, `$N`). So a New is an allocation that writes every
//! field of the object it makes: a later backend lowers it to a call of
//! an allocator and the stores of the values that are not zero, and a
//! load from the object sees the value without any store.
//!
//! Memory is typed by its contents, so each slice out of a New holds the
//! field's initial value met with what the slice in held (`MEM#2:0`
//! right after the first `new`). Two News are never the same value, so
//! New takes no part in value numbering, and it has no rewrites; a
//! Store of a constant straight into a new object folds into its New
//! instead (`store::idealize`).

use super::NodeKind;
use crate::graph::{Graph, NodeId};
use crate::types::{TypeId, Types};

/// The fields of a New: the initial memory slice and value of each.
pub struct Fields<'a> {
    pub mems: &'a [NodeId],
    pub inits: &'a [NodeId],
}

/// A New of pointer type `ptr` (not null, to one struct whose first field
/// is alias class `first_alias`) under `ctrl`, of `size` bytes, taking the
/// memory slice and the initial value of each field.
pub fn new(
    g: &mut Graph,
    ptr: TypeId,
    first_alias: u32,
    ctrl: NodeId,
    size: NodeId,
    fields: Fields,
) -> NodeId {
    debug_assert_eq!(fields.mems.len(), fields.inits.len());
    let mut inputs = vec![Some(ctrl), Some(size)];
    inputs.extend(fields.mems.iter().map(|&m| Some(m)));
    inputs.extend(fields.inits.iter().map(|&v| Some(v)));
    g.add_node(NodeKind::New { ptr, first_alias }, inputs)
}

/// The number of fields of New `n`, from the struct it makes: its inputs
/// past control and size are a slice and a value for each. (Global code
/// motion may add loads after them, which must read memory before the New
/// writes it; they are not fields.)
pub fn field_count(g: &Graph, n: NodeId) -> usize {
    let NodeKind::New { ptr, .. } = *g.role(n) else {
        return 0;
    };
    g.types
        .pointee(ptr)
        .map_or(0, |obj| g.types.field_count(obj))
}

/// `[Ctrl, ptr, MEM#a:init∧in, ...]`: each field's slice with the new
/// object's field at its initial value.
pub fn compute(g: &mut Graph, n: NodeId, ptr: TypeId, first_alias: u32) -> TypeId {
    let mut elems = vec![Types::CTRL, ptr];
    let count = field_count(g, n);
    for i in 0..count {
        let init = g
            .input(n, 2 + count + i)
            .and_then(|v| g.ty_opt(v))
            .unwrap_or(Types::BOTTOM);
        let alias = first_alias + i as u32;
        let held = g
            .input(n, 2 + i)
            .and_then(|m| g.ty_opt(m))
            .map_or(Types::BOTTOM, |t| g.types.held_in(t, alias));
        let contents = g.types.meet(init, held);
        elems.push(g.types.mem_of(alias, contents));
    }
    g.types.tuple(&elems)
}

/// The index in New `n`'s inputs of the memory slice of class `alias`.
pub fn mem_input(g: &Graph, n: NodeId, alias: u32) -> Option<usize> {
    let NodeKind::New { first_alias, .. } = *g.role(n) else {
        return None;
    };
    let i = alias.checked_sub(first_alias)? as usize;
    (i < field_count(g, n)).then_some(2 + i)
}

/// The index in New `n`'s inputs of the initial value of the field in
/// class `alias`.
pub fn init_input(g: &Graph, n: NodeId, alias: u32) -> Option<usize> {
    Some(mem_input(g, n, alias)? + field_count(g, n))
}
