//! Store: writes a value into a field, giving the new state of memory.
//!
//! Memory is split by alias class: one class per field of each struct, so a
//! Store to `p.x` consumes and produces only the `x` slice (`in(1)`), and a
//! Load of `q.y` never has to look at it. `in(2)` is the pointer, `in(3)`
//! the value.
//!
//! A Store knows the type of its field. Once the program is optimized, the
//! value must fit it ([`error`]): `null` cannot go into a field declared
//! `N` (not `N?`).
//!
//! Chapter 15: a store has a fifth input, `in(4)`, the byte offset it
//! writes (a field's constant, or an element's `(i<<scale)+base`); only a
//! store at the same offset overwrites another. Its type is its class's
//! slice holding what it held and the value stored (`MEM#2:int`).
//!
//! Chapter 16: a New takes each field's initial value (an array's length
//! too, so `new` makes no store at all), and a store of a constant right
//! after it folds into the New ([`fold_into_new`]).

use super::{to_string, NodeKind, Printer};
use crate::graph::{Graph, NodeId};
use crate::types::{TypeId, Types};

/// What a Store writes: the field's name, alias class and declared type.
pub struct Field<'a> {
    pub name: &'a str,
    pub alias: u32,
    pub declared: TypeId,
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
        at: super::source_offset(at),
    };
    g.add_node(kind, vec![Some(ctrl), Some(mem), Some(ptr), Some(value)])
}

/// The slice of its class, holding what it held and the value stored
/// (chapter 15). Written into the whole memory, where nothing was stored
/// yet, the class holds just the value.
pub fn compute(g: &mut Graph, n: NodeId) -> TypeId {
    let NodeKind::Store { alias, .. } = *g.kind(n) else {
        unreachable!("store::compute on a non-store")
    };
    let mt = g.ty_opt(g.in_(n, 1)).unwrap_or(Types::MEM_BOT);
    let held = g.types.held_in(mt, alias);
    let val = g.ty_opt(g.in_(n, 3)).unwrap_or(Types::BOTTOM);
    let contents = g.types.meet(val, held);
    g.types.mem_of(alias, contents)
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
    fold_into_new(g, n)
}

/// Chapter 16: a store of a constant into the object a New just made,
/// straight after it (`S s = new S; s.x = 99;`), becomes the field's
/// initial value, an input of the New, and the store goes away. Not into
/// an array's body: the New's one value stands for every element. Only
/// a constant can be moved up into the New: another value might depend
/// on the New itself (`C self = new C { c = self; }`). The New's slice
/// must have no other use, which would still see the old value.
fn fold_into_new(g: &mut Graph, n: NodeId) -> Option<NodeId> {
    let NodeKind::Store { alias, .. } = *g.kind(n) else {
        return None;
    };
    let (mem, ptr, value) = (g.in_(n, 1), g.in_(n, 2), g.in_(n, 3));
    if !super::new_proj(g, mem) || !super::new_proj(g, ptr) {
        return None;
    }
    let made = g.in_(mem, 0);
    let NodeKind::New {
        ptr: made_ty,
        first_alias,
    } = *g.kind(made)
    else {
        return None;
    };
    let obj = g.types.pointee(made_ty)?;
    let body = g.types.is_array(obj) && alias == first_alias + 1;
    if g.in_(ptr, 0) != made
        || !g.types.is_ptr(g.ty(ptr))
        || body
        || !g.types.is_high_or_const(g.ty(value))
        || !no_use_beyond(g, mem, n)
        || error(g, n).is_some()
    {
        return None;
    }
    let i = super::new_init_input(g, made, alias)?;
    g.set_def(made, i, Some(value));
    // The New's tuple and the slice change sideways (the field holds
    // another constant), not up: set, not checked by `set_type`.
    let ty = super::compute(g, made);
    g.set_ty(made, ty);
    let ty = super::compute(g, mem);
    g.set_ty(mem, ty);
    g.push_outputs(mem);
    Some(mem)
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
/// final field 'x'`), or a value that the field cannot hold: `Cannot
/// store null into field *N next`.
pub fn error(g: &mut Graph, n: NodeId) -> Option<crate::Error> {
    let NodeKind::Store { declared, at, .. } = *g.kind(n) else {
        return None;
    };
    if let NodeKind::Store { name, .. } = g.kind(n) {
        let ptr = g.ty(g.in_(n, 2));
        let types = &g.types;
        // Chapter 18: an array's elements may be stored through a
        // read-only reference to it (`val a = new int[2]; a[0] = 5;`), as
        // in Simple; only its length stays final.
        let fin = &**name != "[]"
            && types.pointee(ptr).is_some_and(|obj| {
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
