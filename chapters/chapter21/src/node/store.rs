//! Store: writes a value into a field, giving the new state of memory.
//!
//! Memory is split by alias class: one class per field of each struct, so a
//! Store to `p.x` consumes and produces only the `x` slice (`in(1)`), and a
//! Load of `q.y` never has to look at it. `in(2)` is the pointer, `in(3)`
//! the value.
//!
//! A Store knows the type of its field. (Until chapter 18, once the
//! program was optimized, the value had to fit it: `Cannot store null
//! into field *N next`. The parser checks this as it makes the store, and
//! chapter 19's narrow stores take wider values, so that check is gone,
//! as in Simple.)
//!
//! Chapter 15: a store has a fifth input, `in(4)`, the byte offset it
//! writes (a field's constant, or an element's `(i<<scale)+base`); only a
//! store at the same offset overwrites another. Its type is its class's
//! slice holding what it held and the value stored (`MEM#2:int`).
//!
//! Chapter 19: a New leaves every field zero, and the parser stores each
//! initial value that is not (an array's length too) with an `init`
//! store, which may set a final field (chapter 16 had the values as the
//! New's inputs, and folded a constant store into the New). A narrow
//! store keeps only the low bits of its value, so a mask that keeps them
//! all is no work: `s.b = x & 255` into a `u8` stores `x`
//! ([`idealize`]); a load that reads the store's value directly cuts it
//! down again (`load.rs`).

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
/// uses it. Chapter 19: a narrow store of `x & mask`, where the mask
/// keeps every bit the field holds, stores `x`.
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
    narrow_mask(g, n)
}

/// A store into a field narrower than 64 bits writes only its low bytes:
/// an And of the value with a constant that keeps all of them is no work.
fn narrow_mask(g: &mut Graph, n: NodeId) -> Option<NodeId> {
    let NodeKind::Store { declared, .. } = *g.kind(n) else {
        return None;
    };
    let value = g.in_(n, 3);
    if !matches!(g.kind(value), NodeKind::And) || !g.types.is_int(declared) {
        return None;
    }
    let mask = g.types.int_value(g.ty(g.in_(value, 2)))?;
    let size = g.types.layout(declared)?.size;
    if size >= 8 {
        return None;
    }
    let bits = (1i64 << (8 * size)) - 1;
    if bits & mask != bits {
        return None;
    }
    let x = g.in_(value, 1);
    g.set_def(n, 3, Some(x));
    Some(n)
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
/// final field 'x'`); not a new object's initial value (chapter 19).
pub fn error(g: &mut Graph, n: NodeId) -> Option<crate::Error> {
    let NodeKind::Store { at, .. } = *g.kind(n) else {
        return None;
    };
    if g.init_stores.contains(&n) {
        return None;
    }
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
    None
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
