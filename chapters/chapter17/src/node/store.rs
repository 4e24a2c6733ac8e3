//! Store: writes a value into a field, giving the new state of memory.
//!
//! Memory is split by alias class: one class per field of each struct, so a
//! Store to `p.x` consumes and produces only the `x` slice (`in(1)`), and a
//! Load of `q.y` never has to look at it. `in(2)` is the pointer, `in(3)`
//! the value.
//!
//! A Store knows the type of its field. Once the program is optimized, the
//! value must fit it ([`error`]): `null` cannot go into a field declared
//! `N` (not `N?`). The stores that `new` makes to give each field its first
//! value are exempt: every reference field starts out null.
//!
//! Chapter 15: a store into an array element has a fifth input, `in(4)`,
//! the element's byte offset; only a store at the same offset overwrites
//! another.

use super::{to_string, NodeKind, Printer};
use crate::graph::{Graph, NodeId};
use crate::types::TypeId;

/// What a Store writes: the field's name, alias class and declared type,
/// and whether it is one of `new`'s initial stores.
pub struct Field<'a> {
    pub name: &'a str,
    pub alias: u32,
    pub declared: TypeId,
    pub init: bool,
}

/// A Store made under control `ctrl`. Global code motion may move it, but
/// two stores under different control are never value-numbered together.
pub fn new(
    g: &mut Graph,
    field: Field,
    at: usize,
    ctrl: NodeId,
    mem: NodeId,
    ptr: NodeId,
    value: NodeId,
) -> NodeId {
    let kind = NodeKind::Store {
        name: field.name.into(),
        alias: field.alias,
        declared: field.declared,
        init: field.init,
        at: super::source_offset(at),
    };
    g.add_node(kind, vec![Some(ctrl), Some(mem), Some(ptr), Some(value)])
}

/// Store after store to the same field of the same object: the first is
/// overwritten before anyone can see it, so skip it, provided nothing else
/// uses it.
pub fn idealize(g: &mut Graph, n: NodeId) -> Option<NodeId> {
    let mem = g.in_(n, 1);
    let ptr = g.in_(n, 2);
    if matches!(g.kind(mem), NodeKind::Store { .. })
        && g.in_(mem, 2) == ptr
        && super::element_offset(g, mem) == super::element_offset(g, n)
        && g.types.is_ptr(g.ty(ptr))
        && no_use_beyond(g, mem, n)
    {
        let older = g.in_(mem, 1);
        g.set_def(n, 1, Some(older));
        return Some(n);
    }
    None
}

/// `n` has no use but `that`. Otherwise each other user is told to wake
/// `that` when it changes: once the other uses are gone, `that` can retry.
fn no_use_beyond(g: &mut Graph, n: NodeId, that: NodeId) -> bool {
    if g.outputs(n).len() == 1 {
        return true;
    }
    for i in 0..g.outputs(n).len() {
        let user = g.outputs(n)[i];
        if user != that {
            g.add_dep(user, that);
        }
    }
    false
}

/// A store through a read-only reference (chapter 17: `Cannot modify
/// final field 'x'`), or a value that the field cannot hold, unless this
/// is an initial store: `Cannot store null into field *N next`.
pub fn error(g: &mut Graph, n: NodeId) -> Option<crate::Error> {
    let NodeKind::Store {
        declared,
        init: false,
        at,
        ..
    } = *g.kind(n)
    else {
        return None;
    };
    if let NodeKind::Store { name, .. } = g.kind(n) {
        let ptr = g.ty(g.in_(n, 2));
        let types = &g.types;
        let fin = types.pointee(ptr).is_some_and(|obj| {
            types
                .field_index(obj, name)
                .is_some_and(|i| types.field_is_final(obj, i))
        });
        if fin {
            return Some(crate::Error::new(
                format!("Cannot modify final field '{name}'"),
                at as usize,
            ));
        }
    }
    let t = g.ty(g.in_(n, 3));
    if g.types.isa(t, declared) {
        return None;
    }
    let NodeKind::Store { name, .. } = g.kind(n) else {
        unreachable!("a store")
    };
    Some(crate::Error::new(
        format!(
            "Cannot store {} into field {} {name}",
            g.types.to_string(t),
            g.types.to_string(declared)
        ),
        at as usize,
    ))
}

/// `.x=1;`: the field and the stored value, printed afresh as Simple does.
pub fn print(g: &Graph, n: NodeId, out: &mut Printer) {
    if let NodeKind::Store { name, .. } = g.kind(n) {
        out.push('.');
        out.push_str(name);
    }
    out.push('=');
    out.push_str(&to_string(g, g.in_(n, 3)));
    out.push(';');
}
