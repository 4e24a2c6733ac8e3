//! The guard stack of a scope (chapter 17), cheap to copy however long.
//!
//! Every `if` and every loop copies the parser's scope, and the guards of
//! a loop's exit stay on the stack after the loop (after `while (i < n)
//! ...`, `i < n` is false for the rest of the function): a function of
//! many loops has a stack as long as its number of loops. Copying it entry
//! by entry, and pinning each guarded node once more per copy, made
//! parsing quadratic (a program of 20,000 short loops: 13.6 s in chapter
//! 17 against 0.85 s in chapter 16, which has no guards).
//!
//! So the stack is a persistent list: each entry points to the entry
//! below it and never changes, a copy of the stack is one more pointer to
//! the same top entry, and pushing or popping changes what one scope sees
//! and nothing else. An entry pins its nodes once however many scopes
//! share it, and lets them go when the last scope that has it pops it or
//! dies ([`GuardStack::pop`] says which pop that is).
//!
//! Every expression the parser builds asks for the innermost guard of its
//! value ([`GuardStack::upcast`]). Rather than walk the stack, each scope
//! keeps a map from guarded value to its innermost cast. The map is
//! persistent too (a hash trie on node numbers, four bits a level, whose
//! tables are shared between copies): copying it is one pointer, and a
//! push or a pop copies at most the eight tables on one path, and only
//! those that another scope still shares.

use crate::graph::NodeId;
use std::fmt;
use std::rc::Rc;

/// An entry of the guard stack.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Guard {
    /// Where the guards of one arm start: the arm's control.
    Marker(NodeId),
    /// Below the marker, `pred` is known to be `cast`. Both are kept alive
    /// while the entry is on a stack.
    Cast { pred: NodeId, cast: NodeId },
}

/// A scope's guards, innermost on top, and the innermost cast of each
/// guarded value.
#[derive(Clone, Default)]
pub struct GuardStack {
    top: Option<Rc<Entry>>,
    casts: CastMap,
}

/// One entry, shared by every copy of the stack it is on.
struct Entry {
    guard: Guard,
    /// For a cast, the cast of the same value that it hides (the map's
    /// entry before the push, put back by the pop).
    hidden: Option<NodeId>,
    below: Option<Rc<Entry>>,
}

impl GuardStack {
    pub fn is_empty(&self) -> bool {
        self.top.is_none()
    }

    /// Pushes `guard`. The caller has pinned its nodes; they stay pinned
    /// until the pop or the drop that lets the entry go (see [`Self::pop`]).
    pub fn push(&mut self, guard: Guard) {
        let hidden = match guard {
            Guard::Cast { pred, cast } => {
                let hidden = self.casts.get(pred);
                self.casts.insert(pred, cast);
                hidden
            }
            Guard::Marker(_) => None,
        };
        let below = self.top.take();
        self.top = Some(Rc::new(Entry {
            guard,
            hidden,
            below,
        }));
    }

    /// Pops the innermost guard. The flag says whether this stack was the
    /// last to have the entry: only then are its nodes to be let go.
    pub fn pop(&mut self) -> Option<(Guard, bool)> {
        let top = self.top.take()?;
        if let Guard::Cast { pred, .. } = top.guard {
            match top.hidden {
                Some(cast) => self.casts.insert(pred, cast),
                None => self.casts.remove(pred),
            }
        }
        Some(match Rc::try_unwrap(top) {
            Ok(mut entry) => {
                self.top = entry.below.take();
                (entry.guard, true)
            }
            Err(shared) => {
                self.top = shared.below.clone();
                (shared.guard, false)
            }
        })
    }

    /// Empties the stack, returning (innermost first) the guards that no
    /// other stack has: those whose nodes are to be let go now.
    pub fn release(&mut self) -> Vec<Guard> {
        self.casts = CastMap::default();
        let mut released = Vec::new();
        while let Some(top) = self.top.take() {
            // Below an entry another stack has, every entry is that
            // stack's too.
            let Ok(mut entry) = Rc::try_unwrap(top) else {
                break;
            };
            released.push(entry.guard);
            self.top = entry.below.take();
        }
        released
    }

    /// The innermost cast of `n`, if a guard knows more about it.
    pub fn upcast(&self, n: NodeId) -> Option<NodeId> {
        self.casts.get(n)
    }

    /// The guards, innermost first.
    fn iter(&self) -> impl Iterator<Item = Guard> + '_ {
        std::iter::successors(self.top.as_deref(), |e| e.below.as_deref()).map(|e| e.guard)
    }
}

impl Drop for GuardStack {
    /// Lets go of the entries one by one: dropping a long list by recursion
    /// would take a stack frame per entry.
    fn drop(&mut self) {
        self.release();
    }
}

impl fmt::Debug for GuardStack {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// Bits of the node number that each level of the trie consumes.
const BITS: u32 = 4;

/// A persistent map from guarded value to cast: a hash array mapped trie
/// on the node number, whose levels take four bits each from the lowest
/// up (node numbers are dense, so the low bits spread best). A table
/// holds one slot per child present, in the order of their bits.
#[derive(Clone, Default)]
struct CastMap {
    root: Option<Rc<Table>>,
}

#[derive(Clone, Default)]
struct Table {
    /// Bit `i` is set when child `i` is present.
    present: u16,
    slots: Vec<Slot>,
}

#[derive(Clone)]
enum Slot {
    Leaf(NodeId, NodeId),
    Table(Rc<Table>),
}

impl Table {
    /// The bit of `key` at the level of `shift`, and where its slot is or
    /// would go.
    fn place(&self, key: NodeId, shift: u32) -> (u16, usize) {
        let bit = 1u16 << ((key.nid() >> shift) & ((1 << BITS) - 1));
        (bit, (self.present & (bit - 1)).count_ones() as usize)
    }
}

impl CastMap {
    fn get(&self, key: NodeId) -> Option<NodeId> {
        let mut table = self.root.as_deref()?;
        let mut shift = 0;
        loop {
            let (bit, at) = table.place(key, shift);
            if table.present & bit == 0 {
                return None;
            }
            match &table.slots[at] {
                Slot::Leaf(k, v) => return (*k == key).then_some(*v),
                Slot::Table(t) => table = t,
            }
            shift += BITS;
        }
    }

    fn insert(&mut self, key: NodeId, value: NodeId) {
        let root = self.root.get_or_insert_with(Rc::default);
        insert(root, key, value, 0);
    }

    fn remove(&mut self, key: NodeId) {
        if self.get(key).is_none() {
            return;
        }
        if let Some(root) = &mut self.root {
            if remove(root, key, 0) {
                self.root = None;
            }
        }
    }
}

/// Binds `key` to `value` in `table`, copying the tables on the way that
/// another map shares.
fn insert(table: &mut Rc<Table>, key: NodeId, value: NodeId, shift: u32) {
    let t = Rc::make_mut(table);
    let (bit, at) = t.place(key, shift);
    if t.present & bit == 0 {
        t.present |= bit;
        t.slots.insert(at, Slot::Leaf(key, value));
        return;
    }
    match &mut t.slots[at] {
        Slot::Leaf(k, v) if *k == key => *v = value,
        Slot::Leaf(k, v) => {
            // Two keys share these bits: a table one level down holds both.
            let (old_key, old_value) = (*k, *v);
            let mut below = Rc::default();
            insert(&mut below, old_key, old_value, shift + BITS);
            insert(&mut below, key, value, shift + BITS);
            t.slots[at] = Slot::Table(below);
        }
        Slot::Table(below) => insert(below, key, value, shift + BITS),
    }
}

/// Removes `key`, which is bound, from `table`; `true` if the table is
/// left empty.
fn remove(table: &mut Rc<Table>, key: NodeId, shift: u32) -> bool {
    let t = Rc::make_mut(table);
    let (bit, at) = t.place(key, shift);
    if let Slot::Table(below) = &mut t.slots[at] {
        if !remove(below, key, shift + BITS) {
            return false;
        }
    }
    t.present &= !bit;
    t.slots.remove(at);
    t.present == 0
}

#[cfg(test)]
mod tests {
    use super::{Guard, GuardStack};
    use crate::graph::{Graph, NodeId};
    use crate::node::NodeKind;

    /// Stacks copied, pushed and popped at random behave as plain lists
    /// copied whole would: same pops, same innermost casts, and a pop or
    /// a release lets an entry go exactly when no other stack has it.
    #[test]
    fn shared_stacks_behave_as_copied_lists() {
        let mut g = Graph::new();
        // Enough nodes for node numbers of four hex digits: the trie goes
        // three and four levels down.
        let ids: Vec<NodeId> = (0..5000)
            .map(|_| g.add_node(NodeKind::ScopeMin, vec![]))
            .collect();
        let mut seed: u64 = 2024;
        let mut next = |m: usize| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize % m
        };
        // Each entry of a plain list carries a number of its own, so that
        // two lists have "the same entry" when they have that number.
        type Plain = Vec<(usize, Guard)>;
        let mut stacks: Vec<GuardStack> = vec![GuardStack::default(); 4];
        let mut plain: Vec<Plain> = vec![Vec::new(); 4];
        let held = |plain: &[Plain], k: usize, entry: usize| {
            plain
                .iter()
                .enumerate()
                .any(|(j, p)| j != k && p.iter().any(|&(e, _)| e == entry))
        };
        for entry in 0..30_000 {
            let k = next(4);
            // A few preds only, so that casts hide one another.
            let pred = ids[next(40) * 97 % ids.len()];
            match next(10) {
                0..=3 => {
                    let guard = Guard::Cast {
                        pred,
                        cast: ids[next(ids.len())],
                    };
                    stacks[k].push(guard);
                    plain[k].push((entry, guard));
                }
                4 => {
                    let guard = Guard::Marker(ids[next(ids.len())]);
                    stacks[k].push(guard);
                    plain[k].push((entry, guard));
                }
                5..=7 => {
                    let popped = stacks[k].pop();
                    let expected = plain[k].pop().map(|(e, guard)| {
                        let last = !held(&plain, k, e);
                        (guard, last)
                    });
                    assert_eq!(popped, expected);
                }
                8 => {
                    let j = next(4);
                    let (copy, plain_copy) = (stacks[k].clone(), plain[k].clone());
                    let mut dropped = std::mem::replace(&mut stacks[j], copy);
                    let gone = std::mem::replace(&mut plain[j], plain_copy);
                    let released = dropped.release();
                    let expected: Vec<Guard> = gone
                        .iter()
                        .rev()
                        .filter(|&&(e, _)| !held(&plain, usize::MAX, e))
                        .map(|&(_, guard)| guard)
                        .collect();
                    assert_eq!(released, expected);
                }
                _ => {
                    let expected = plain[k].iter().rev().find_map(|&(_, guard)| match guard {
                        Guard::Cast { pred: p, cast } if p == pred => Some(cast),
                        _ => None,
                    });
                    assert_eq!(stacks[k].upcast(pred), expected);
                }
            }
        }
        assert!(plain.iter().any(|p| p.len() > 20), "the lists grew");
    }
}
