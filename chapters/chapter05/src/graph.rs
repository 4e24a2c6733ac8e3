//! The node arena and its edge bookkeeping.
//!
//! A sea-of-nodes graph is a web of nodes pointing at their inputs
//! (use→def edges) and, for the optimizer's convenience, at their outputs
//! (def→use edges). Both directions must always agree, so every change of an
//! edge goes through the few functions in this file: [`Graph::set_def`],
//! [`Graph::add_def`], [`Graph::pop_n`] and
//! [`Graph::kill`]. When a node loses its last use it is dead and is killed at
//! once, which recursively frees its inputs: dead-code elimination is a side
//! effect of keeping the edges right.
//!
//! Nodes live in one `Vec` and are named by a [`NodeId`], which is also the
//! node's number in printed output (`Region12`). Ids are handed out in
//! creation order starting at 1, the way Simple numbers its nodes, so our
//! printed ids match the Java course. A dead node keeps its slot; ids are
//! never reused within a compilation.

use crate::node::NodeKind;
use crate::types::{TypeId, Types};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;
use std::collections::BTreeSet;
use std::fmt;
use std::num::NonZeroU32;

/// The name of a node: its index in the arena plus one.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct NodeId(NonZeroU32);

impl NodeId {
    fn from_index(index: usize) -> NodeId {
        let nid = u32::try_from(index + 1).expect("more than 2^32 nodes");
        NodeId(NonZeroU32::new(nid).expect("index + 1 is never zero"))
    }

    fn index(self) -> usize {
        self.0.get() as usize - 1
    }

    /// The node number as printed: 1 for the first node created.
    pub fn nid(self) -> u32 {
        self.0.get()
    }
}

impl fmt::Display for NodeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.nid())
    }
}

/// A list of edges. Most nodes have at most four inputs and four users;
/// those are kept inside the node itself, so that walking the graph reads
/// one place in memory per node rather than three.
type Edges<T> = SmallVec<[T; 4]>;

/// The users of a node, in the order Simple's own list would have them
/// (the order is observable: users are revisited in it). Most nodes have a
/// handful. A few, such as Start (the input of every constant), `arg` and
/// the shared 0, have one per statement or more, and dropping one user must
/// not search them all: past [`Users::INDEXED`] users the list also keeps
/// where each user sits.
#[derive(Default)]
struct Users {
    list: Edges<NodeId>,
    /// For a long list: where each user is listed.
    at: Option<Box<FxHashMap<NodeId, Slots>>>,
}

/// The positions of one user in a list of users: nearly always one; more
/// when a node uses the same input twice (`Phi(r, x, x)`), and then kept
/// in order: a scope may hold one constant in thousands of variables, and
/// each of its uses that goes must find its slot at once.
enum Slots {
    One(u32),
    Many(BTreeSet<u32>),
}

impl Slots {
    fn add(&mut self, pos: u32) {
        match self {
            Slots::One(p) => *self = Slots::Many(BTreeSet::from([*p, pos])),
            Slots::Many(ps) => {
                ps.insert(pos);
            }
        }
    }

    fn first(&self) -> u32 {
        match self {
            Slots::One(p) => *p,
            Slots::Many(ps) => *ps.first().expect("never empty"),
        }
    }

    fn last(&self) -> u32 {
        match self {
            Slots::One(p) => *p,
            Slots::Many(ps) => *ps.last().expect("never empty"),
        }
    }

    /// Replaces position `from` by `to`; `to == None` drops it. False when
    /// no position is left.
    fn moved(&mut self, from: u32, to: Option<u32>) -> bool {
        match (&mut *self, to) {
            (Slots::One(p), Some(to)) => *p = to,
            (Slots::One(_), None) => return false,
            (Slots::Many(ps), to) => {
                let listed = ps.remove(&from);
                debug_assert!(listed, "a listed slot");
                match to {
                    Some(to) => {
                        ps.insert(to);
                    }
                    None if ps.len() == 1 => *self = Slots::One(*ps.first().expect("one left")),
                    None => {}
                }
            }
        }
        true
    }
}

impl Users {
    const INDEXED: usize = 32;

    fn push(&mut self, u: NodeId) {
        let pos = self.list.len() as u32;
        self.list.push(u);
        match &mut self.at {
            Some(at) => match at.get_mut(&u) {
                Some(slots) => slots.add(pos),
                None => {
                    at.insert(u, Slots::One(pos));
                }
            },
            None if self.list.len() > Self::INDEXED => self.reindex(),
            None => {}
        }
    }

    /// Rebuilds the positions after the list changed wholesale.
    fn reindex(&mut self) {
        self.at = None;
        if self.list.len() > Self::INDEXED {
            let mut at: FxHashMap<NodeId, Slots> = FxHashMap::default();
            for (i, &u) in self.list.iter().enumerate() {
                match at.get_mut(&u) {
                    Some(slots) => slots.add(i as u32),
                    None => {
                        at.insert(u, Slots::One(i as u32));
                    }
                }
            }
            self.at = Some(Box::new(at));
        }
    }

    /// `u` is listed more than once: it uses this node through several
    /// inputs (`Phi(r, x, x)`).
    fn listed_twice(&self, u: NodeId) -> bool {
        match &self.at {
            Some(at) => matches!(at.get(&u), Some(Slots::Many(_))),
            None => self.list.iter().filter(|&&x| x == u).nth(1).is_some(),
        }
    }

    /// Removes one occurrence of `u` (the first if `first`, else the last),
    /// moving the last user into its place, as Simple does.
    fn remove(&mut self, u: NodeId, first: bool) {
        let pos = match &self.at {
            Some(at) => at
                .get(&u)
                .map(|s| if first { s.first() } else { s.last() } as usize),
            None if first => self.list.iter().position(|&x| x == u),
            None => self.list.iter().rposition(|&x| x == u),
        };
        let Some(pos) = pos else { return };
        let last = self.list.len() - 1;
        self.list.swap_remove(pos);
        if let Some(at) = &mut self.at {
            let slots = at.get_mut(&u).expect("a listed user");
            if !slots.moved(pos as u32, None) {
                at.remove(&u);
            }
            if pos != last {
                let moved = self.list[pos];
                let slots = at.get_mut(&moved).expect("a listed user");
                slots.moved(last as u32, Some(pos as u32));
            }
        }
    }

    // Only the test below pops a list of users so far.
    #[cfg(test)]
    fn pop(&mut self) -> Option<NodeId> {
        let u = self.list.pop()?;
        if let Some(at) = &mut self.at {
            let slots = at.get_mut(&u).expect("a listed user");
            if !slots.moved(self.list.len() as u32, None) {
                at.remove(&u);
            }
        }
        Some(u)
    }
}

/// One node: what it is, its ordered inputs (which may be empty slots), its
/// unordered outputs and its current type.
pub struct Node {
    pub kind: NodeKind,
    inputs: Edges<Option<NodeId>>,
    outputs: Users,
    /// Temporary pins that keep a node alive while the parser or a peephole
    /// holds it without an output edge (Simple's `keep()`).
    keeps: u32,
    /// `None` once the node is dead, and before its first type is computed.
    ty: Option<TypeId>,
}

/// The graph of one compilation: nodes, types and the distinguished nodes.
pub struct Graph {
    nodes: Vec<Node>,
    pub types: Types,
    start: Option<NodeId>,
    /// Turns peephole optimization off, to observe the graph as parsed.
    pub disable_peephole: bool,
}

impl Graph {
    pub fn new() -> Self {
        Graph {
            nodes: Vec::new(),
            types: Types::new(),
            start: None,
            disable_peephole: false,
        }
    }

    /// Creates a node with the given inputs and adds the matching output edges.
    pub fn add_node(&mut self, kind: NodeKind, inputs: Vec<Option<NodeId>>) -> NodeId {
        let id = NodeId::from_index(self.nodes.len());
        for def in inputs.iter().flatten() {
            self.nodes[def.index()].outputs.push(id);
        }
        self.nodes.push(Node {
            kind,
            inputs: Edges::from_vec(inputs),
            outputs: Users::default(),
            keeps: 0,
            ty: None,
        });
        id
    }

    /// Records the Start node; constants hang off it.
    pub fn set_start(&mut self, start: NodeId) {
        self.start = Some(start);
    }

    pub fn start(&self) -> NodeId {
        self.start
            .expect("Start is created before any other node uses it")
    }

    pub fn node(&self, n: NodeId) -> &Node {
        &self.nodes[n.index()]
    }

    pub fn kind(&self, n: NodeId) -> &NodeKind {
        &self.nodes[n.index()].kind
    }

    pub fn kind_mut(&mut self, n: NodeId) -> &mut NodeKind {
        &mut self.nodes[n.index()].kind
    }

    /// Input `i`, which may be an empty slot.
    pub fn input(&self, n: NodeId, i: usize) -> Option<NodeId> {
        self.nodes[n.index()].inputs.get(i).copied().flatten()
    }

    /// Input `i`, which the caller knows is present.
    pub fn in_(&self, n: NodeId, i: usize) -> NodeId {
        self.input(n, i)
            .unwrap_or_else(|| panic!("node {n} has no input {i}"))
    }

    pub fn inputs(&self, n: NodeId) -> &[Option<NodeId>] {
        &self.nodes[n.index()].inputs
    }

    pub fn n_ins(&self, n: NodeId) -> usize {
        self.nodes[n.index()].inputs.len()
    }

    pub fn outputs(&self, n: NodeId) -> &[NodeId] {
        &self.nodes[n.index()].outputs.list
    }

    /// The current type; dead nodes and nodes never typed read as `Bottom`.
    pub fn ty(&self, n: NodeId) -> TypeId {
        self.nodes[n.index()].ty.unwrap_or(Types::BOTTOM)
    }

    pub(crate) fn set_ty(&mut self, n: NodeId, ty: TypeId) {
        self.nodes[n.index()].ty = Some(ty);
    }

    /// Number of nodes ever created (live or dead).
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    pub fn is_unused(&self, n: NodeId) -> bool {
        let node = &self.nodes[n.index()];
        node.outputs.list.is_empty() && node.keeps == 0
    }

    pub fn is_dead(&self, n: NodeId) -> bool {
        let node = &self.nodes[n.index()];
        self.is_unused(n) && node.inputs.is_empty() && node.ty.is_none()
    }

    /// Pins `n` so that losing its last use does not kill it.
    pub fn keep(&mut self, n: NodeId) -> NodeId {
        self.nodes[n.index()].keeps += 1;
        n
    }

    /// Removes a pin placed by [`Graph::keep`].
    pub fn unkeep(&mut self, n: NodeId) -> NodeId {
        let node = &mut self.nodes[n.index()];
        debug_assert!(node.keeps > 0, "unkeep without keep on node {n}");
        node.keeps -= 1;
        n
    }

    /// Replaces input `i` of `n` by `new_def`, killing the old input if that
    /// was its last use. Returns `new_def`.
    pub fn set_def(&mut self, n: NodeId, i: usize, new_def: Option<NodeId>) -> Option<NodeId> {
        let old_def = self.input(n, i);
        if old_def == new_def {
            return new_def;
        }
        // Add the new edge first: killing the old input could otherwise kill
        // the new one when it is reachable only through the old.
        if let Some(d) = new_def {
            self.nodes[d.index()].outputs.push(n);
        }
        if let Some(d) = old_def {
            if self.del_use(d, n) {
                self.kill(d);
            }
        }
        self.nodes[n.index()].inputs[i] = new_def;
        new_def
    }

    /// Appends an input to `n`.
    pub fn add_def(&mut self, n: NodeId, new_def: Option<NodeId>) -> Option<NodeId> {
        self.nodes[n.index()].inputs.push(new_def);
        if let Some(d) = new_def {
            self.nodes[d.index()].outputs.push(n);
        }
        new_def
    }

    /// Removes the last `count` inputs of `n`, killing inputs left unused.
    pub fn pop_n(&mut self, n: NodeId, count: usize) {
        for _ in 0..count {
            let old_def = self.nodes[n.index()].inputs.pop().flatten();
            if let Some(d) = old_def {
                if self.del_use(d, n) {
                    self.kill(d);
                }
            }
        }
    }

    /// Removes one `use_` from the outputs of `def`; true if `def` is now unused.
    ///
    /// Simple removes the first occurrence, and the order of outputs is
    /// observable, so we do too. When `use_` can appear only once, first and
    /// last are the same, found at once in a long list (see [`Users`]). It
    /// can appear more than once only if `def` is several inputs of `use_`,
    /// once per input. (Counting those inputs instead, as this did, scanned
    /// a scope's input per variable for each input a dying scope dropped.)
    fn del_use(&mut self, def: NodeId, use_: NodeId) -> bool {
        let repeated = self.nodes[def.index()].outputs.listed_twice(use_);
        self.nodes[def.index()].outputs.remove(use_, repeated);
        self.is_unused(def)
    }

    /// Kills an unused node: drops its inputs (last first), killing each input
    /// that loses its last use, and so on. The walk keeps its own stack, so a
    /// long dead chain cannot overflow the machine stack; it visits nodes in
    /// the same order as the plain recursive definition.
    pub fn kill(&mut self, n: NodeId) {
        debug_assert!(self.is_unused(n), "killing node {n}, which has uses");
        let mut stack = vec![n];
        while let Some(&top) = stack.last() {
            match self.nodes[top.index()].inputs.pop() {
                Some(Some(d)) => {
                    if self.del_use(d, top) {
                        stack.push(d);
                    }
                }
                Some(None) => {}
                None => {
                    let node = &mut self.nodes[top.index()];
                    node.ty = None;
                    // Give the dead node's edge lists back to the allocator,
                    // and a dead scope's symbol tables (an `if` copies them).
                    node.inputs = Edges::new();
                    node.outputs = Users::default();
                    if let NodeKind::Scope(names) = &mut node.kind {
                        **names = Default::default();
                    }
                    stack.pop();
                }
            }
        }
    }

    /// Swaps inputs 1 and 2 without letting either go dead on the way.
    pub fn swap12(&mut self, n: NodeId) -> NodeId {
        self.nodes[n.index()].inputs.swap(1, 2);
        n
    }

    /// Every node ever created, dead or alive, in id order.
    pub fn ids(&self) -> impl Iterator<Item = NodeId> {
        (0..self.nodes.len()).map(NodeId::from_index)
    }
}

impl Default for Graph {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::{NodeId, Users};

    /// A long list with positions kept behaves exactly like a plain list
    /// searched each time: same removals, same order.
    #[test]
    fn users_index_matches_a_plain_search() {
        let mut users = Users::default();
        let mut plain: Vec<NodeId> = Vec::new();
        let mut seed: u64 = 12345;
        let mut next = |m: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % m
        };
        for _ in 0..20_000 {
            // Few distinct users, so that many are listed more than once.
            let u = NodeId::from_index(next(60) as usize);
            // Pushes win slightly, so the list grows long and stays so.
            match next(6) {
                0..=2 => {
                    users.push(u);
                    plain.push(u);
                }
                3 | 4 => {
                    let first = next(2) == 0;
                    users.remove(u, first);
                    let pos = if first {
                        plain.iter().position(|&x| x == u)
                    } else {
                        plain.iter().rposition(|&x| x == u)
                    };
                    if let Some(pos) = pos {
                        plain.swap_remove(pos);
                    }
                }
                _ => assert_eq!(users.pop(), plain.pop()),
            }
            assert_eq!(users.list.as_slice(), plain.as_slice());
        }
        assert!(plain.len() > 300, "the list grew long: {}", plain.len());
        assert!(users.at.is_some());
    }
}
