//! The node arena and its edge bookkeeping.
//!
//! A sea-of-nodes graph is a web of nodes pointing at their inputs
//! (use→def edges) and, for the optimizer's convenience, at their outputs
//! (def→use edges). Both directions must always agree, so every change of an
//! edge goes through the few functions in this file: [`Graph::set_def`],
//! [`Graph::add_def`], [`Graph::del_def`], [`Graph::pop_n`] and
//! [`Graph::kill`]. When a node loses its last use it is dead and is killed at
//! once, which recursively frees its inputs: dead-code elimination is a side
//! effect of keeping the edges right.
//!
//! Nodes live in one `Vec` and are named by a [`NodeId`], which is also the
//! node's number in printed output (`Region12`). Ids are handed out in
//! creation order starting at 1, the way Simple numbers its nodes, so our
//! printed ids match the Java course. A dead node keeps its slot; ids are
//! never reused within a compilation.
//!
//! From chapter 9 the graph also keeps the global value numbering table
//! (one node per distinct operation on the same inputs) and the worklist of
//! the iterative optimizer. A node in the table must not change its inputs
//! unnoticed, so every edge function first takes the node out of the table
//! (`unlock`); the next peephole puts it back. Edge changes also queue the
//! nodes they may have made optimizable.

use crate::iter::WorkList;
use crate::node::NodeKind;
use crate::types::{TypeId, Types};
use hashbrown::HashTable;
use rustc_hash::{FxHashMap, FxHasher};
use smallvec::SmallVec;
use std::collections::BTreeSet;
use std::fmt;
use std::hash::{Hash, Hasher};
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
    /// Depth in the dominator tree, 0 while unknown.
    pub(crate) idepth: u32,
    /// The node is in the value-numbering table.
    in_gvn: bool,
    /// Nodes whose peepholes looked at this node without being its neighbour:
    /// they are queued again when this node changes. Most nodes have none,
    /// so the list lives in the graph's table of dependents (`DepLists`)
    /// and the node keeps only its place there: four bytes rather than 24.
    deps: Option<DepSlot>,
}

/// The place of a list of dependents in `DepLists`.
#[derive(Clone, Copy)]
struct DepSlot(NonZeroU32);

impl DepSlot {
    fn index(self) -> usize {
        self.0.get() as usize - 1
    }
}

/// The lists of dependents of all nodes, in one table. A node's list is
/// allocated when its first dependent comes and given back when they are
/// queued; places given back are reused. One table instead of a small
/// allocation per node keeps the lists together in memory, and dropping
/// the graph frees it at once.
#[derive(Default)]
struct DepLists {
    lists: Vec<Edges<NodeId>>,
    free: Vec<DepSlot>,
}

impl DepLists {
    fn get(&self, slot: DepSlot) -> &Edges<NodeId> {
        &self.lists[slot.index()]
    }

    /// Appends `dep` to the list at `slot`, or to a new list if there is
    /// none yet; returns the list's place.
    fn push(&mut self, slot: Option<DepSlot>, dep: NodeId) -> DepSlot {
        let slot = slot.or_else(|| self.free.pop()).unwrap_or_else(|| {
            self.lists.push(Edges::new());
            let n = u32::try_from(self.lists.len()).expect("fewer than 2^32 lists");
            DepSlot(NonZeroU32::new(n).expect("the table is not empty"))
        });
        self.lists[slot.index()].push(dep);
        slot
    }

    /// Empties the list at `slot` and gives the place back.
    fn release(&mut self, slot: DepSlot) -> Edges<NodeId> {
        self.free.push(slot);
        std::mem::take(&mut self.lists[slot.index()])
    }
}

/// Prefetches the cache line that holds `field`.
fn prefetch_field<T>(field: &T) {
    prefetch_index::prefetch_index(std::slice::from_ref(field), 0);
}

/// What makes two nodes the same computation: the operator (with its data,
/// such as a constant's value) and the very same inputs. The table keeps no
/// copy of this key: a node in the table is locked (see `unlock`), so its
/// key can be read from the node itself whenever it is needed. The hash is
/// 32 bits, which is what the table keeps (see `GvnEntry`).
fn gvn_hash(nodes: &[Node], n: NodeId) -> u32 {
    let node = &nodes[n.index()];
    let mut h = FxHasher::default();
    std::mem::discriminant(&node.kind).hash(&mut h);
    node.kind.gvn_data().hash(&mut h);
    node.inputs.hash(&mut h);
    let h = h.finish();
    (h >> 32) as u32 ^ h as u32
}

/// An entry of the value-numbering table: a node and the hash of its key.
/// Keeping the hash means that growing the table moves entries without
/// reading their nodes, which in a large program are mostly out of cache;
/// keeping 32 bits of it makes an entry eight bytes, so a large table is
/// half the size it would be with all 64.
struct GvnEntry {
    hash: u32,
    node: NodeId,
}

impl GvnEntry {
    /// The 64-bit hash the table works with, made from the 32 kept bits:
    /// multiplying by an odd constant spreads them over all 64 (the table
    /// takes its control bits from the top).
    fn table_hash(hash: u32) -> u64 {
        u64::from(hash).wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }
}

fn gvn_same(nodes: &[Node], a: NodeId, b: NodeId) -> bool {
    let (x, y) = (&nodes[a.index()], &nodes[b.index()]);
    std::mem::discriminant(&x.kind) == std::mem::discriminant(&y.kind)
        && x.kind.gvn_data() == y.kind.gvn_data()
        && x.inputs == y.inputs
}

/// The graph of one compilation: nodes, types and the distinguished nodes.
pub struct Graph {
    nodes: Vec<Node>,
    pub types: Types,
    start: Option<NodeId>,
    /// The shared constant 0 and the shared dead control, made with Start
    /// and kept for the whole compilation.
    zero: Option<NodeId>,
    xctrl: Option<NodeId>,
    /// Turns peephole optimization off, to observe the graph as parsed.
    pub disable_peephole: bool,
    /// Global value numbering: the one node for each distinct computation.
    gvn: HashTable<GvnEntry>,
    /// Value numbering is over (see `close_gvn`).
    gvn_closed: bool,
    /// Nodes that may be optimizable, for the iterative optimizer.
    pub work: WorkList,
    /// Each node's dependents (see `Node::deps`).
    deps: DepLists,
    /// Every control node ever made, in order (some may be dead).
    control: Vec<NodeId>,
    /// Where the parser read the operator of each Add and Mul, bitwise
    /// operator and shift it made, for the errors that only the optimized
    /// graph shows (`Cannot 'Add' null`).
    pub operator_at: FxHashMap<NodeId, u32>,
    /// Chapter 18: the linker's table, each function's Fun by its
    /// signature and function index (Simple's `CodeGen._linker`).
    pub functions: FxHashMap<(TypeId, u32), NodeId>,
    /// Chapter 18: the Fun of each function's Return.
    pub fun_of_return: FxHashMap<NodeId, NodeId>,
    /// Chapter 18: the error of each Return whose `return`s, as parsed,
    /// had no type in common (dead ones count: Simple checks them all).
    pub mixed_returns: FxHashMap<NodeId, String>,
    /// Chapter 18: the calls linked to each function, as (call, Fun).
    pub linked: rustc_hash::FxHashSet<(NodeId, NodeId)>,
    /// Chapter 18: Stop, once made (a function's folding wakes it).
    pub stop: Option<NodeId>,
    /// Chapter 19: the CPU and ABI a machine graph is selected for.
    pub target: Option<crate::mach::Target>,
    /// Chapter 19: the stores of a new object's initial values (Simple's
    /// `StoreNode._init`), which may set a final field.
    pub init_stores: rustc_hash::FxHashSet<NodeId>,
}

impl Graph {
    pub fn new() -> Self {
        Graph {
            nodes: Vec::new(),
            types: Types::new(),
            start: None,
            zero: None,
            xctrl: None,
            disable_peephole: false,
            gvn: HashTable::new(),
            gvn_closed: false,
            work: WorkList::new(123),
            deps: DepLists::default(),
            control: Vec::new(),
            operator_at: FxHashMap::default(),
            functions: FxHashMap::default(),
            fun_of_return: FxHashMap::default(),
            mixed_returns: FxHashMap::default(),
            linked: rustc_hash::FxHashSet::default(),
            stop: None,
            target: None,
            init_stores: rustc_hash::FxHashSet::default(),
        }
    }

    /// Creates a node with the given inputs and adds the matching output edges.
    pub fn add_node(&mut self, kind: NodeKind, inputs: Vec<Option<NodeId>>) -> NodeId {
        let id = NodeId::from_index(self.nodes.len());
        for def in inputs.iter().flatten() {
            self.nodes[def.index()].outputs.push(id);
        }
        if kind.is_cfg() {
            self.control.push(id);
        }
        self.nodes.push(Node {
            kind,
            inputs: Edges::from_vec(inputs),
            outputs: Users::default(),
            keeps: 0,
            ty: None,
            idepth: 0,
            in_gvn: false,
            deps: None,
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

    /// Records the shared constant 0 and dead control.
    pub fn set_shared(&mut self, zero: NodeId, xctrl: NodeId) {
        self.zero = Some(zero);
        self.xctrl = Some(xctrl);
    }

    /// The shared constant 0.
    pub fn zero(&self) -> NodeId {
        self.zero.expect("made with Start")
    }

    /// The shared dead control.
    pub fn xctrl(&self) -> NodeId {
        self.xctrl.expect("made with Start")
    }

    /// How many [`Graph::keep`] pins hold `n`.
    pub fn keeps(&self, n: NodeId) -> u32 {
        self.nodes[n.index()].keeps
    }

    pub fn node(&self, n: NodeId) -> &Node {
        &self.nodes[n.index()]
    }

    pub(crate) fn node_mut(&mut self, n: NodeId) -> &mut Node {
        &mut self.nodes[n.index()]
    }

    pub fn kind(&self, n: NodeId) -> &NodeKind {
        &self.nodes[n.index()].kind
    }

    /// What node `n` is to global code motion and scheduling: its kind,
    /// or for a machine node the ideal node it stands for (chapter 19).
    pub fn role(&self, n: NodeId) -> &NodeKind {
        self.kind(n).role()
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

    /// Asks the processor to start loading node `n` into the cache: the
    /// lines of the fields a peephole reads (a node spans two or three).
    /// A prefetch is only a hint; it changes no result.
    pub fn prefetch(&self, n: NodeId) {
        let node = &self.nodes[n.index()];
        prefetch_field(&node.ty);
        prefetch_field(&node.kind);
        prefetch_field(&node.inputs);
        prefetch_field(&node.outputs);
        prefetch_field(&node.deps);
        prefetch_field(&node.in_gvn);
    }

    /// Starts loading the inputs of `n`, which its peephole will read: their
    /// kind and type.
    pub fn prefetch_inputs(&self, n: NodeId) {
        for x in self.nodes[n.index()].inputs.iter().flatten() {
            let node = &self.nodes[x.index()];
            prefetch_field(&node.ty);
            prefetch_field(&node.kind);
        }
    }

    /// Every control node ever made, in order; some may be dead.
    pub fn control_nodes(&self) -> &[NodeId] {
        &self.control
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

    /// The type, or `None` for a node never typed (or dead).
    pub fn ty_opt(&self, n: NodeId) -> Option<TypeId> {
        self.nodes[n.index()].ty
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

    /// Pinned by [`Graph::keep`].
    pub fn is_kept(&self, n: NodeId) -> bool {
        self.nodes[n.index()].keeps > 0
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
        self.unlock(n);
        let old_def = self.input(n, i);
        if old_def == new_def {
            return new_def;
        }
        // Add the new edge first: killing the old input could otherwise kill
        // the new one when it is reachable only through the old. The slot
        // changes before the old input may die, as killing it can come back
        // around to `n`.
        if let Some(d) = new_def {
            self.nodes[d.index()].outputs.push(n);
        }
        self.nodes[n.index()].inputs[i] = new_def;
        if let Some(d) = old_def {
            if self.del_use(d, n) {
                self.kill(d);
            }
        }
        self.move_deps_to_worklist(n);
        new_def
    }

    /// Sets input 0 of many nodes at once: each `(n, block)` makes `block`
    /// the control input of `n`. The same as `set_def(n, 0, Some(block))`
    /// for each in turn, except that each old input loses its moved users in
    /// one pass, keeping the order of the rest, and no dependents are woken
    /// (nothing is optimized after scheduling). One `set_def` at a time
    /// would update a long list's positions, such as Start's, once per node:
    /// about 10% slower on a 100k-statement struct-heavy program. An old
    /// input left unused dies, as with `set_def`.
    pub fn move_to_blocks(&mut self, moves: &[(NodeId, NodeId)]) {
        // For each old input, the users leaving it.
        let mut leaving: FxHashMap<NodeId, Vec<NodeId>> = FxHashMap::default();
        for (i, &(n, block)) in moves.iter().enumerate() {
            // The nodes lie scattered in memory; ask for those to come.
            if let Some(&(ahead, _)) = moves.get(i + crate::gcm::PREFETCH_AHEAD) {
                self.prefetch(ahead);
            }
            let old = self.input(n, 0);
            if old == Some(block) {
                continue;
            }
            self.unlock(n);
            self.nodes[n.index()].inputs[0] = Some(block);
            self.nodes[block.index()].outputs.push(n);
            if let Some(old) = old {
                leaving.entry(old).or_default().push(n);
            }
        }
        let mut pending = vec![false; self.nodes.len() + 1];
        let mut olds: Vec<NodeId> = leaving.keys().copied().collect();
        olds.sort();
        for old in olds {
            let users = &leaving[&old];
            for u in users {
                pending[u.index()] = true;
            }
            // Drop one edge per user that left, keeping the others in order.
            let outputs = &mut self.nodes[old.index()].outputs;
            outputs
                .list
                .retain(|u| !std::mem::take(&mut pending[u.index()]));
            outputs.reindex();
            if self.is_unused(old) {
                self.kill(old);
            }
        }
    }

    /// Appends an input to `n`.
    pub fn add_def(&mut self, n: NodeId, new_def: Option<NodeId>) -> Option<NodeId> {
        self.unlock(n);
        self.nodes[n.index()].inputs.push(new_def);
        if let Some(d) = new_def {
            self.nodes[d.index()].outputs.push(n);
        }
        new_def
    }

    /// Removes input `i`, moving the last input into its place (the order
    /// changes, deterministically, as Region and Phi allow).
    pub fn del_def(&mut self, n: NodeId, i: usize) {
        self.unlock(n);
        if let Some(d) = self.input(n, i) {
            if self.del_use(d, n) {
                self.kill(d);
            }
            self.move_deps_to_worklist(d);
        }
        // Killing the old input can come back around a dead cycle and kill
        // `n` itself, emptying its inputs; then there is nothing to remove.
        let inputs = &mut self.nodes[n.index()].inputs;
        if i < inputs.len() {
            inputs.swap_remove(i);
        }
    }

    /// Removes the last `count` inputs of `n`, killing inputs left unused.
    pub fn pop_n(&mut self, n: NodeId, count: usize) {
        self.unlock(n);
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
        self.kill_and_requeue(n, true);
    }

    /// Kills a node a peephole has just made and then found no better (see
    /// the phi's pull-down): the inputs that live on only lose the use it
    /// gave them a moment ago, so none of them is queued for another look.
    /// Queueing them would bring the phi that tried straight back to try
    /// again, forever, each time making nodes.
    pub fn discard(&mut self, n: NodeId) {
        self.kill_and_requeue(n, false);
    }

    fn kill_and_requeue(&mut self, n: NodeId, requeue: bool) {
        debug_assert!(self.is_unused(n), "killing node {n}, which has uses");
        self.unlock(n);
        let mut stack = vec![n];
        while let Some(&top) = stack.last() {
            match self.nodes[top.index()].inputs.pop() {
                Some(Some(d)) => {
                    // The input lost a use: it may optimize now.
                    if requeue {
                        self.work.push(d);
                    }
                    if self.del_use(d, top) {
                        self.unlock(d);
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
                        // A scope dies through `scope::kill`, which lets
                        // its guards' pins go first.
                        debug_assert!(names.guards.is_empty(), "scope {top} dies guarded");
                        **names = Default::default();
                    }
                    stack.pop();
                }
            }
        }
    }

    /// Makes every user of `old` use `new` instead, then kills `old`.
    pub fn subsume(&mut self, old: NodeId, new: NodeId) {
        debug_assert_ne!(old, new);
        while let Some(user) = self.nodes[old.index()].outputs.pop() {
            self.unlock(user);
            let slot = self.nodes[user.index()]
                .inputs
                .iter()
                .position(|&d| d == Some(old))
                .expect("an output edge has a matching input edge");
            self.nodes[user.index()].inputs[slot] = Some(new);
            self.nodes[new.index()].outputs.push(user);
        }
        self.kill(old);
    }

    /// Swaps inputs 1 and 2 without letting either go dead on the way.
    pub fn swap12(&mut self, n: NodeId) -> NodeId {
        self.unlock(n); // the table key depends on input order
        self.nodes[n.index()].inputs.swap(1, 2);
        n
    }

    /// Ends value numbering for good. Global code motion rewires input 0 of
    /// nearly every node and nothing is optimized afterwards, so the table
    /// is dropped once instead of losing its nodes one by one.
    pub fn close_gvn(&mut self) {
        self.gvn = HashTable::new();
        self.gvn_closed = true;
    }

    /// Takes `n` out of the value-numbering table before its inputs change.
    pub fn unlock(&mut self, n: NodeId) {
        if std::mem::take(&mut self.nodes[n.index()].in_gvn) && !self.gvn_closed {
            let hash = GvnEntry::table_hash(gvn_hash(&self.nodes, n));
            let found = self.gvn.find_entry(hash, |e| e.node == n);
            debug_assert!(found.is_ok(), "node {n} is not in the table");
            if let Ok(entry) = found {
                entry.remove();
            }
        }
    }

    /// Value numbering: the node already in the table that computes the
    /// same as `n`, if any; otherwise `n` goes into the table. A node
    /// already in the table, or one that must stay unique (a region or phi
    /// still being parsed), is left as it is.
    pub fn gvn_find_or_insert(&mut self, n: NodeId) -> Option<NodeId> {
        if self.gvn_closed || self.nodes[n.index()].in_gvn || !crate::node::gvn_eligible(self, n) {
            return None;
        }
        let nodes = &self.nodes;
        let hash = gvn_hash(nodes, n);
        let same = |e: &GvnEntry| e.hash == hash && gvn_same(nodes, e.node, n);
        match self.gvn.find(GvnEntry::table_hash(hash), same) {
            Some(e) if e.node != n => Some(e.node),
            Some(_) => None,
            None => {
                let entry = GvnEntry { hash, node: n };
                let table_hash = |e: &GvnEntry| GvnEntry::table_hash(e.hash);
                self.gvn
                    .insert_unique(GvnEntry::table_hash(hash), entry, table_hash);
                self.nodes[n.index()].in_gvn = true;
                None
            }
        }
    }

    /// A list of dependents longer than this is no longer searched.
    const SHORT_DEPS: usize = 8;

    /// Records that a peephole of `dep` looked at `n`: when `n` changes,
    /// `dep` is queued again. Neighbours are queued anyway and need no entry.
    pub fn add_dep(&mut self, n: NodeId, dep: NodeId) -> NodeId {
        let node = &self.nodes[n.index()];
        // `dep` is a user of `n` exactly when `n` is an input of `dep`; ask
        // that short list rather than `n`'s many users. These tests come
        // first: they read the two nodes, which are at hand, while the list
        // of dependents is elsewhere in memory.
        if node.inputs.contains(&Some(dep)) || self.nodes[dep.index()].inputs.contains(&Some(n)) {
            return n;
        }
        // A node that many peepholes look at (such as `arg`) gathers a long
        // list; searching it every time would be quadratic, so a long list
        // may hold a node twice. Queueing is idempotent: a repeat changes
        // nothing.
        let listed = node.deps.is_some_and(|slot| {
            let list = self.deps.get(slot);
            list.len() <= Self::SHORT_DEPS && list.contains(&dep)
        });
        if !listed {
            let slot = self.deps.push(node.deps, dep);
            self.nodes[n.index()].deps = Some(slot);
        }
        n
    }

    /// Queues every node that depended on `n`.
    pub fn move_deps_to_worklist(&mut self, n: NodeId) {
        if let Some(slot) = self.nodes[n.index()].deps.take() {
            for d in self.deps.release(slot) {
                self.work.push(d);
            }
        }
    }

    /// Queues every user of `n`.
    pub fn push_outputs(&mut self, n: NodeId) {
        for i in 0..self.nodes[n.index()].outputs.list.len() {
            let u = self.nodes[n.index()].outputs.list[i];
            self.work.push(u);
        }
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
