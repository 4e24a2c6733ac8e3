//! New: allocates a struct or an array, every field zero.
//!
//! Chapter 15 makes New a multi-node, like Start and If: its value is a
//! tuple, taken apart by projections. Its inputs are the control that
//! anchors it, the size of the object in bytes (from the one layout,
//! `Types::struct_layout`: for an array `base + (len << scale)`) and the
//! current memory slice of each field's alias class, in field order.
//! Its tuple is the control, the pointer to the new object (`Proj 1`,
//! printed by the struct's name: `return S;`) and, for each field, the
//! slice of its class with the new object's field zero (`Proj 2+i`,
//! `$N`): 0, 0.0 or null, as an allocator that clears memory leaves it.
//!
//! Chapter 16 gave New the initial value of each field as inputs too;
//! chapter 19 takes them away again (as Simple's chapter 19 does): the
//! parser stores each initial value that is not zero into the new object
//! (`init` stores, which may set a final field), which is what the
//! machine code does, and a load from the object that no store wrote
//! reads the zero.
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
/// memory slice of each field (`mems`).
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

/// The number of fields of New `n`, from the struct it makes: its inputs
/// past control and size are a slice for each. (Global code motion may
/// add loads after them, which must read memory before the New writes it;
/// they are not fields.)
pub fn field_count(g: &Graph, n: NodeId) -> usize {
    let NodeKind::New { ptr, .. } = *g.role(n) else {
        return 0;
    };
    g.types
        .pointee(ptr)
        .map_or(0, |obj| g.types.field_count(obj))
}

/// `[Ctrl, ptr, MEM#a:0∧in, ...]`: each field's slice with the new
/// object's field zero.
pub fn compute(g: &mut Graph, n: NodeId, ptr: TypeId, first_alias: u32) -> TypeId {
    let mut elems = vec![Types::CTRL, ptr];
    let count = field_count(g, n);
    let obj = g.types.pointee(ptr);
    for i in 0..count {
        let zero = obj
            .and_then(|o| {
                let t = g.types.field_type(o, i);
                g.types.make_init(t)
            })
            .unwrap_or(Types::BOTTOM);
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
    let NodeKind::New { first_alias, .. } = *g.role(n) else {
        return None;
    };
    let i = alias.checked_sub(first_alias)? as usize;
    (i < field_count(g, n)).then_some(2 + i)
}

/// The zero that the field in class `alias` of the object New `n` makes
/// holds until a store writes it: 0, 0.0 or null, by the field's type.
pub fn zero(g: &Graph, n: NodeId, alias: u32) -> Option<TypeId> {
    let NodeKind::New { ptr, first_alias } = *g.role(n) else {
        return None;
    };
    let obj = g.types.pointee(ptr)?;
    let i = alias.checked_sub(first_alias)? as usize;
    if i >= g.types.field_count(obj) {
        return None;
    }
    g.types.make_init(g.types.field_type(obj, i))
}
