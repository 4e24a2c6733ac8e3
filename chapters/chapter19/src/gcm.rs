//! Global code motion: from a sea of nodes to basic blocks.
//!
//! After optimization the graph says what each value is computed from, but
//! not where: most data nodes float. An `Add` has no control input and could
//! run anywhere its inputs are ready and its result still wanted. Global
//! code motion (Click, "Global Code Motion / Global Value Numbering", PLDI
//! 1995) gives every floating node a basic block, and records the block as
//! the node's input 0, so that later phases can lay out code in order.
//!
//! The control nodes already form the control-flow graph (CFG). A block
//! starts at a *block head* (Start, a Region or Loop, a control projection,
//! Stop) and runs to the next control node (an If, a Return, or the next
//! head). The algorithm has four steps.
//!
//! 1. **Reach every loop.** An infinite loop (`while(1) {}`) never gets to
//!    Stop, so a walk back from Stop misses it. A loop with no way out gets
//!    one: a `Never` branch, an If whose predicate is the constant 0, whose
//!    False arm is the new back edge and whose True arm returns 0. It is
//!    never taken, but now the loop reaches Stop. (Simple's test for "has
//!    an exit" is a heuristic; see `force_exit`.)
//! 2. **Dominators and loops.** Every control node gets its depth in the
//!    dominator tree (`idepth`) and its loop nesting depth. The immediate
//!    dominator of most control nodes is simply their control input; a
//!    Region's is the least common ancestor (LCA) of its paths, found by
//!    walking the deeper path up until the two meet; a Loop's is its entry.
//! 3. **Schedule early.** Visiting the CFG in reverse post-order, each
//!    floating node goes to the deepest block among its inputs' blocks:
//!    the first place where all its inputs exist.
//! 4. **Schedule late.** Walking forward from Start, uses before defs, each
//!    floating node is placed at the LCA of its uses (the last place that
//!    still comes before every use), then moved up the dominator tree
//!    towards its early block to the block in the shallowest loop nest;
//!    among equally nested blocks the latest one wins, so code runs only on
//!    the paths that need it. A node never stays on an If: that is the end
//!    of a block, so it moves up into the block the If ends.
//!
//! Loads add a twist. A Load reads a memory state, and a Store that
//! replaces that state must not run before the Load: the Load has an
//! *anti-dependence* on it. When scheduling a Load, the blocks it may still
//! choose from are marked; any Store of the same memory whose own range
//! of blocks meets them raises the Load's LCA to the meeting block, and if
//! the Load may end up in the Store's block, the Store gets the Load as an
//! extra input, so that ordering inside the block keeps the Load first.
//! A writer held on one arm of a branch (an array element store, a New) is
//! on none of those paths up the dominator tree; a walk back along the CFG
//! from the Load's LCA to its early block finds it (as C2 does).
//!
//! Pinned nodes never move: control nodes, Phis (they belong to their
//! Region), projections (they belong to their multi-node; a New's lie in
//! the New's block), `New` (it has a control input; its inputs float, and
//! a Load of a slice a New takes is ordered before it like a Store's),
//! `Cast` (it holds only below its test), and the shared
//! constant 0 (kept alive for the whole compilation). Everything else
//! (arithmetic, other constants, Loads, Stores) gets its block here.
//!
//! Simple keeps the per-block facts as fields of its CFG nodes (`_idepth`,
//! `_loopDepth`, `_anti`). Here they live in side tables indexed by node
//! number, in [`Schedule`] and in the late-scheduling pass; the graph itself
//! carries only the result, input 0 of every floating node. The walks over
//! the CFG (steps 1 and 2) follow a compact copy of its edges, `Cfg`,
//! rather than the nodes themselves.
//!
//! The second half of this file prints the scheduled program block by
//! block (Simple's `IRPrinter.prettyPrintScheduled`).

use crate::graph::{Graph, NodeId};
use crate::node::{
    is_cfg, label, load_passes as passes, mem_merge_slice, new_mem_input, new_proj, NodeKind,
};
use rustc_hash::{FxHashMap, FxHashSet};
use smallvec::SmallVec;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, VecDeque};
use std::fmt::Write;

/// Facts about the control-flow graph, by node number.
#[derive(Default)]
pub struct Schedule {
    /// Depth in the dominator tree; `UNKNOWN` until first asked.
    idepth: Vec<u32>,
    /// Immediate dominators known so far: a Region's once computed, and
    /// every reachable control node's once the CFG is final (a table
    /// is faster to read than the nodes, which a large graph scatters).
    idom: Vec<Option<NodeId>>,
    /// Loop nesting depth: 1 outside every loop, one more per enclosing loop.
    loop_depth: Vec<u32>,
    /// The innermost Loop around each control node.
    loop_head: Vec<Option<NodeId>>,
    /// Each control node's position in a depth-first walk of the dominator
    /// tree (0 for nodes outside it).
    preorder: Vec<u32>,
}

const UNKNOWN: u32 = u32::MAX;

/// Schedules the optimized graph that ends at `stop`. Afterwards input 0 of
/// every node is its block (for a control node: its control input).
pub fn global_code_motion(g: &mut Graph, stop: NodeId) -> Schedule {
    let mut s = Schedule::default();
    g.close_gvn(); // no peephole runs after scheduling
    let mut cfg = Cfg::build(g);
    if fix_infinite_loops(g, &cfg, &mut s, stop) {
        cfg = Cfg::build(g);
    }
    let rpo = reverse_post_order(g, &cfg);
    s.fill_dominators(g, &rpo);
    s.number_dominator_tree(g, &rpo);
    s.find_loops(g, &cfg, &rpo);
    schedule_early(g, &mut s, &rpo);
    Late::new(g).run(g, &mut s);
    s
}

/// Step 1 alone (chapter 19): gives every infinite loop an exit, so
/// that a walk back from Stop reaches all of the program. Instruction
/// selection needs this before it walks the graph.
pub fn give_loops_exits(g: &mut Graph, stop: NodeId) {
    let mut s = Schedule::default();
    let cfg = Cfg::build(g);
    fix_infinite_loops(g, &cfg, &mut s, stop);
}

// ---------------------------------------------------------------------------
// Which nodes move, and where blocks start. (These belong in node/mod.rs,
// next to `is_cfg`.)

/// A node whose place is fixed: GCM never changes its input 0.
pub fn is_pinned(g: &Graph, n: NodeId) -> bool {
    match g.role(n) {
        NodeKind::Phi { .. } | NodeKind::Proj { .. } | NodeKind::New { .. } => true,
        // A Cast holds only below the test that justifies it; a Load through
        // it must not float above that test. (Simple's chapter 11 lets casts
        // float, and an anti-dependence on a Store in the other arm can then
        // lift such a Load above its null check.)
        NodeKind::Cast { .. } => true,
        // The shared 0 stays on Start; every other constant may sink. (A
        // machine constant is code: it goes where it is used.)
        NodeKind::Constant(_) => n == g.zero() && !matches!(g.kind(n), NodeKind::Mach(_)),
        _ => is_cfg(g, n),
    }
}

/// A control node that starts a basic block.
pub fn is_block_head(g: &Graph, n: NodeId) -> bool {
    matches!(
        g.role(n),
        NodeKind::Start { .. }
            | NodeKind::Stop
            | NodeKind::Region
            | NodeKind::Loop
            | NodeKind::CProj { .. }
            | NodeKind::Fun { .. }
            | NodeKind::CallEnd { .. }
    )
}

/// The block a node belongs to: a block head is its own block; any other
/// node's block is its input 0 (set by GCM for the floating ones).
pub fn block(g: &Graph, n: NodeId) -> Option<NodeId> {
    if is_block_head(g, n) {
        Some(n)
    } else if new_proj(g, n) {
        // A New's projection lies where the New does.
        g.input(g.in_(n, 0), 0)
    } else {
        g.input(n, 0)
    }
}

/// The control nodes control comes from: the paths into a Region or Loop,
/// the Returns into Stop, input 0 for the rest.
fn cfg_preds(g: &Graph, n: NodeId) -> impl Iterator<Item = NodeId> + '_ {
    let ins = g.inputs(n);
    let preds = match g.role(n) {
        NodeKind::Start { .. } => &ins[..0],
        NodeKind::Region | NodeKind::Loop => &ins[1..],
        // Chapter 18: a function is entered from Start; its callers are
        // other functions' code, not its own control flow. (An inlined
        // function whose call died has no input left; nothing reaches it.)
        NodeKind::Fun { .. } => ins.get(1..2).unwrap_or(&[]),
        NodeKind::Stop => ins,
        _ => &ins[..ins.len().min(1)],
    };
    preds.iter().flatten().copied()
}

/// A control node that ends its block, where no code may go after it: a
/// branch, or (chapter 18) a call, after which control is in the callee.
fn ends_block(g: &Graph, n: NodeId) -> bool {
    is_if(g, n) || matches!(g.role(n), NodeKind::Call { .. })
}

fn is_if(g: &Graph, n: NodeId) -> bool {
    matches!(g.role(n), NodeKind::If | NodeKind::Never)
}

fn phis(g: &Graph, region: NodeId) -> impl Iterator<Item = NodeId> + '_ {
    g.outputs(region)
        .iter()
        .copied()
        .filter(|&u| matches!(g.role(u), NodeKind::Phi { .. }))
}

/// How far ahead a pass over a list of nodes asks for the ones to come:
/// far enough for a trip to memory, near enough that they are still in
/// the cache when their turn comes.
pub(crate) const PREFETCH_AHEAD: usize = 8;

/// Asks for `list[i + PREFETCH_AHEAD]`: on a large graph the nodes of a
/// list lie scattered in memory, but the list says which come next.
fn prefetch_ahead(g: &Graph, list: &[NodeId], i: usize) {
    if let Some(&n) = list.get(i + PREFETCH_AHEAD) {
        g.prefetch(n);
    }
}

/// Sets `flags[n]`, growing the table for nodes made after it; true if it
/// was not set before.
fn mark(flags: &mut Vec<bool>, n: NodeId) -> bool {
    let i = n.nid() as usize;
    if i >= flags.len() {
        flags.resize(i + 1, false);
    }
    !std::mem::replace(&mut flags[i], true)
}

// ---------------------------------------------------------------------------
// Dominators and loops.

impl Schedule {
    /// Depth in the dominator tree: 0 for Start, one more than the
    /// immediate dominator for most nodes. A Region (and Stop) counts one
    /// more than its deepest path instead; that is still deeper than its
    /// immediate dominator, which is all the LCA walk needs, and it is what
    /// Simple computes (so the listing orders blocks as Simple does).
    pub fn idepth(&mut self, g: &Graph, n: NodeId) -> u32 {
        let i = n.nid() as usize;
        if i >= self.idepth.len() {
            self.idepth.resize(g.len() + 1, UNKNOWN);
        }
        if self.idepth[i] != UNKNOWN {
            return self.idepth[i];
        }
        let d = stacker::maybe_grow(64 * 1024, 1024 * 1024, || match g.role(n) {
            NodeKind::Start { .. } => 0,
            NodeKind::Loop => self.idepth(g, g.in_(n, 1)) + 1,
            NodeKind::Region | NodeKind::Stop | NodeKind::Fun { .. } => cfg_preds(g, n)
                .map(|p| self.idepth(g, p) + 1)
                .max()
                .unwrap_or(1),
            _ => self.idepth(g, g.in_(n, 0)) + 1,
        });
        self.idepth[i] = d;
        d
    }

    /// The depth of a control node GCM has seen (every reachable one).
    pub fn idepth_of(&self, n: NodeId) -> u32 {
        self.idepth
            .get(n.nid() as usize)
            .copied()
            .unwrap_or(UNKNOWN)
    }

    /// The immediate dominator; none for Start (nor Stop, never asked).
    pub fn idom(&mut self, g: &Graph, n: NodeId) -> Option<NodeId> {
        let i = n.nid() as usize;
        if let Some(Some(dom)) = self.idom.get(i) {
            return Some(*dom);
        }
        match g.role(n) {
            NodeKind::Start { .. } | NodeKind::Stop => None,
            NodeKind::Loop => g.input(n, 1), // the entry, not the back edge
            NodeKind::Fun { .. } => g.input(n, 1),
            NodeKind::Region => {
                let mut lca = None;
                for p in cfg_preds(g, n) {
                    lca = Some(self.lca(g, p, lca));
                }
                self.remember_idom(g, n, lca);
                lca
            }
            _ => g.input(n, 0),
        }
    }

    fn remember_idom(&mut self, g: &Graph, n: NodeId, dom: Option<NodeId>) {
        let i = n.nid() as usize;
        if i >= self.idom.len() {
            self.idom.resize(g.len() + 1, None);
        }
        self.idom[i] = dom;
    }

    /// Fills the tables of depth and immediate dominator for every control
    /// node, which GCM no longer changes.
    fn fill_dominators(&mut self, g: &Graph, rpo: &[NodeId]) {
        for (i, &n) in rpo.iter().enumerate() {
            prefetch_ahead(g, rpo, i);
            self.idepth(g, n);
            let dom = self.idom(g, n);
            self.remember_idom(g, n, dom);
        }
    }

    /// The least common ancestor of `a` and `b` in the dominator tree
    /// (`a` itself when there is no `b` yet): step the deeper one up until
    /// they meet.
    pub fn lca(&mut self, g: &Graph, mut a: NodeId, b: Option<NodeId>) -> NodeId {
        let Some(mut b) = b else { return a };
        while a != b {
            let (da, db) = (self.idepth(g, a), self.idepth(g, b));
            if da >= db {
                a = self
                    .idom(g, a)
                    .expect("control nodes share Start as an ancestor");
            }
            if da <= db {
                b = self
                    .idom(g, b)
                    .expect("control nodes share Start as an ancestor");
            }
        }
        a
    }

    /// Numbers the dominator tree depth first. In a tree, the LCA of a
    /// set of nodes is the LCA of the two with the least and the greatest
    /// number: one walk per scheduled node, however many uses it has (a
    /// constant shared by a whole program can have thousands).
    fn number_dominator_tree(&mut self, g: &Graph, rpo: &[NodeId]) {
        // The tree as one list of (parent, child) edges sorted by parent;
        // the sort is stable, so each node's children stay in RPO.
        let mut edges: Vec<(NodeId, NodeId)> = rpo
            .iter()
            .filter_map(|&n| Some((self.idom(g, n)?, n)))
            .collect();
        edges.sort_by_key(|&(parent, _)| parent);
        let children = |n: NodeId| {
            let first = edges.partition_point(|&(parent, _)| parent < n);
            let end = edges.partition_point(|&(parent, _)| parent <= n);
            edges[first..end].iter().map(|&(_, child)| child)
        };
        self.preorder = vec![0; g.len() + 1];
        let mut next = 1;
        let mut stack = vec![g.start()];
        while let Some(n) = stack.pop() {
            self.preorder[n.nid() as usize] = next;
            next += 1;
            stack.extend(children(n).rev());
        }
    }

    /// The LCA of a set of blocks (see `number_dominator_tree`).
    pub fn lca_of(&mut self, g: &Graph, blocks: &[NodeId]) -> Option<NodeId> {
        let number = |b: &NodeId| self.preorder.get(b.nid() as usize).copied().unwrap_or(0);
        if blocks.iter().any(|b| number(b) == 0) {
            // Outside the numbered tree: pairwise.
            let mut lca = None;
            for &b in blocks {
                lca = Some(self.lca(g, b, lca));
            }
            return lca;
        }
        let lo = *blocks.iter().min_by_key(|b| number(b))?;
        let hi = *blocks.iter().max_by_key(|b| number(b))?;
        Some(self.lca(g, lo, Some(hi)))
    }

    pub fn loop_depth(&self, n: NodeId) -> u32 {
        self.loop_depth.get(n.nid() as usize).copied().unwrap_or(1)
    }

    /// The innermost loop around `n`, if any.
    pub fn loop_head(&self, n: NodeId) -> Option<NodeId> {
        self.loop_head.get(n.nid() as usize).copied().flatten()
    }

    /// Loop nesting. The body of a loop is every control node that can
    /// reach its back edge without passing through its head. Simple's
    /// `while` makes only such natural loops, and reverse post-order visits
    /// an outer loop's head before an inner one's, so the last head to
    /// claim a node is its innermost loop.
    fn find_loops(&mut self, g: &Graph, cfg: &Cfg, rpo: &[NodeId]) {
        self.loop_depth = vec![1; g.len() + 1];
        self.loop_head = vec![None; g.len() + 1];
        for (i, &head) in rpo.iter().enumerate() {
            prefetch_ahead(g, rpo, i);
            if !matches!(g.role(head), NodeKind::Loop) {
                continue;
            }
            // Claim the head, then walk back from the back edge.
            self.loop_depth[head.nid() as usize] += 1;
            self.loop_head[head.nid() as usize] = Some(head);
            let mut work: Vec<NodeId> = g.input(head, 2).into_iter().collect();
            while let Some(n) = work.pop() {
                let i = n.nid() as usize;
                if self.loop_head[i] == Some(head) {
                    continue; // claimed already
                }
                self.loop_depth[i] += 1;
                self.loop_head[i] = Some(head);
                work.extend_from_slice(cfg.preds(n));
            }
        }
    }
}

/// The control-flow graph, compact: each live control node's successors
/// (its control users, in the order of its users) and predecessors (as
/// `cfg_preds` gives them), in tables of their own. On a large program the
/// nodes lie scattered in memory, and a walk over them waits for each node
/// in turn before it knows the next; these tables are small and dense.
/// Building them reads the control nodes in the order they were made,
/// which is the order they lie in memory, so the reads can be asked for
/// ahead.
struct Cfg {
    /// Each control node's place in the tables below, by node number.
    place: Vec<u32>,
    /// Where each node's successors start in `succs`, by place; one more
    /// entry at the end. Likewise for predecessors.
    succ_start: Vec<u32>,
    succs: Vec<NodeId>,
    pred_start: Vec<u32>,
    preds: Vec<NodeId>,
}

impl Cfg {
    const ABSENT: u32 = u32::MAX;

    /// Builds the tables from the graph as it is now; a change to the
    /// control flow needs a new build.
    fn build(g: &Graph) -> Cfg {
        let made = g.control_nodes();
        let mut place = vec![Self::ABSENT; g.len() + 1];
        let mut live = Vec::new();
        for (k, &n) in made.iter().enumerate() {
            prefetch_ahead(g, made, k);
            if !g.is_dead(n) {
                place[n.nid() as usize] = live.len() as u32;
                live.push(n);
            }
        }
        let mut cfg = Cfg {
            place,
            succ_start: Vec::with_capacity(live.len() + 1),
            succs: Vec::new(),
            pred_start: Vec::with_capacity(live.len() + 1),
            preds: Vec::new(),
        };
        for (k, &n) in live.iter().enumerate() {
            prefetch_ahead(g, &live, k);
            cfg.succ_start.push(cfg.succs.len() as u32);
            for &u in g.outputs(n) {
                // Chapter 18: a call does not flow into its callee, nor a
                // Return into a CallEnd: each function is its own graph,
                // entered from Start.
                let call_edge = matches!(
                    (g.role(n), g.role(u)),
                    (NodeKind::Call { .. }, NodeKind::Fun { .. })
                        | (NodeKind::Return, NodeKind::CallEnd { .. })
                );
                // Dead control leads nowhere: no walk enters it.
                if !call_edge && cfg.place[u.nid() as usize] != Self::ABSENT && u != g.xctrl() {
                    cfg.succs.push(u);
                }
            }
            cfg.pred_start.push(cfg.preds.len() as u32);
            cfg.preds.extend(cfg_preds(g, n));
        }
        cfg.succ_start.push(cfg.succs.len() as u32);
        cfg.pred_start.push(cfg.preds.len() as u32);
        cfg
    }

    fn span(&self, start: &[u32], n: NodeId) -> std::ops::Range<usize> {
        let k = self.place[n.nid() as usize] as usize;
        start[k] as usize..start[k + 1] as usize
    }

    fn succs(&self, n: NodeId) -> &[NodeId] {
        &self.succs[self.span(&self.succ_start, n)]
    }

    fn preds(&self, n: NodeId) -> &[NodeId] {
        &self.preds[self.span(&self.pred_start, n)]
    }
}

/// The control nodes reachable from Start, in reverse post-order: every
/// node after its dominators. (The dead-control node is left out.)
fn reverse_post_order(g: &Graph, cfg: &Cfg) -> Vec<NodeId> {
    let mut seen = vec![false; g.len() + 1];
    let mut post = Vec::new();
    // A depth-first walk with its own stack of (node, next successor to
    // try): a few bytes per level where a recursive call would take a
    // frame, which on a long program is tens of megabytes of stack through
    // the caches.
    let mut stack = vec![(g.start(), 0)];
    mark(&mut seen, g.start());
    while let Some((n, i)) = stack.last_mut() {
        let (n, succs) = (*n, cfg.succs(*n));
        if let Some(&u) = succs.get(*i) {
            *i += 1;
            if mark(&mut seen, u) {
                stack.push((u, 0));
            }
        } else {
            post.push(n);
            stack.pop();
        }
    }
    post.reverse();
    post
}

// ---------------------------------------------------------------------------
// Step 1: infinite loops get an exit.

/// Returns whether it changed the graph.
fn fix_infinite_loops(g: &mut Graph, cfg: &Cfg, s: &mut Schedule, stop: NodeId) -> bool {
    let (reached, order) = reaching_stop(g, cfg, stop);
    // Where control goes that never returns: Start, if nothing returns at
    // all, and each arm of a returning If that itself never returns.
    let mut dead_ends = Vec::new();
    if !reached[g.start().nid() as usize] {
        dead_ends.push(g.start());
    }
    // Chapter 18: a function that never returns.
    for &f in g.outputs(g.start()) {
        if matches!(g.role(f), NodeKind::Fun { .. }) && !reached[f.nid() as usize] {
            dead_ends.push(f);
        }
    }
    for &n in &order {
        if is_if(g, n) {
            for &arm in g.outputs(n) {
                if !reached[arm.nid() as usize] {
                    dead_ends.push(arm);
                }
            }
        }
    }
    if dead_ends.is_empty() {
        return false;
    }
    // Simple walks these from a hash set; node order is our stable choice.
    dead_ends.sort();
    dead_ends.dedup();
    let mut seen = Vec::new();
    for n in dead_ends {
        exit_loops_from(g, s, n, stop, &mut seen);
    }
    // Simple's test for an exit is a heuristic (see `force_exit`); a loop
    // it misses stays unreachable from Stop. Nothing below needs every node
    // to reach Stop: both schedules walk forward from Start.
    true
}

/// The control nodes from which some Return is reachable, as a table by
/// node number and in the order found: a walk backwards from Stop.
fn reaching_stop(g: &Graph, cfg: &Cfg, stop: NodeId) -> (Vec<bool>, Vec<NodeId>) {
    let mut reached = vec![false; g.len() + 1];
    let mut order = Vec::new();
    let mut work: Vec<NodeId> = cfg.preds(stop).to_vec();
    while let Some(n) = work.pop() {
        // Dead control comes from nowhere.
        if n == g.xctrl() {
            continue;
        }
        if mark(&mut reached, n) {
            order.push(n);
            work.extend_from_slice(cfg.preds(n));
        }
    }
    (reached, order)
}

/// Walks forward over control from a dead end; every loop met that has no
/// exit gets one.
fn exit_loops_from(g: &mut Graph, s: &mut Schedule, n: NodeId, stop: NodeId, seen: &mut Vec<bool>) {
    if !mark(seen, n) {
        return;
    }
    if matches!(g.role(n), NodeKind::Loop) {
        force_exit(g, s, n, stop);
    }
    for u in g.outputs(n).to_vec() {
        if is_cfg(g, u) && !matches!(g.role(u), NodeKind::XCtrl) {
            stacker::maybe_grow(64 * 1024, 1024 * 1024, || {
                exit_loops_from(g, s, u, stop, seen)
            });
        }
    }
}

/// Gives loop `lp` an exit unless it has one: walking up the dominator
/// tree from the back edge to the head, an exit shows as an If arm (a
/// control projection) on the way. Otherwise a `Never` branch goes at the
/// end of the body. It also uses the loop's phis, so that a value feeding
/// only itself around the loop is still reached when scheduling.
///
/// Simple's chapter 12 sharpens the test: an arm does not count when the
/// If's other arm leads straight into a Loop. That is the shape of an
/// inner loop's exit that only goes round the outer loop again
/// (`while(7) while(x) ...;`: the inner loop's way out is the outer
/// loop's back edge), which chapter 11 took for an exit of the outer loop.
/// It is still a heuristic, and it errs the safe way: a loop whose exit
/// leads into the head of the next loop also gets a Never, which is never
/// taken.
fn force_exit(g: &mut Graph, s: &mut Schedule, lp: NodeId, stop: NodeId) {
    let back = g.in_(lp, 2);
    let mut x = back;
    while x != lp {
        if is_exit(g, x) {
            return; // an If arm on the way: the loop has an exit
        }
        x = s.idom(g, x).expect("a loop head dominates its body");
    }
    let zero = g.zero();
    let mut inputs = vec![Some(back), Some(zero)];
    inputs.extend(phis(g, lp).map(Some));
    let never = g.add_node(NodeKind::Never, inputs);
    let taken = g.add_node(
        NodeKind::CProj {
            idx: 0,
            label: "True",
        },
        vec![Some(never)],
    );
    let not_taken = g.add_node(
        NodeKind::CProj {
            idx: 1,
            label: "False",
        },
        vec![Some(never)],
    );
    g.set_def(lp, 2, Some(not_taken));
    // Chapter 18: the exit joins the Return of the loop's function, with
    // nothing (`Top`) for its value and memory.
    let _ = stop;
    let mut f = lp;
    while !matches!(g.role(f), NodeKind::Fun { .. }) {
        f = s.idom(g, f).expect("a function's Fun dominates its body");
    }
    let ret = crate::node::fun::ret(g, f).expect("a function has its Return");
    let start = g.start();
    let top = g.add_node(
        NodeKind::Constant(crate::types::Types::TOP),
        vec![Some(start)],
    );
    g.set_ty(top, crate::types::Types::TOP);
    let (ctrl, mem, expr) = (g.in_(ret, 0), g.in_(ret, 1), g.in_(ret, 2));
    if g.ty(ctrl) == crate::types::Types::XCTRL {
        g.set_def(ret, 0, Some(taken));
        g.set_def(ret, 1, Some(top));
        g.set_def(ret, 2, Some(top));
        return;
    }
    let merged = matches!(g.role(ctrl), NodeKind::Region)
        && [mem, expr]
            .iter()
            .all(|&p| matches!(g.role(p), NodeKind::Phi { .. }) && g.input(p, 0) == Some(ctrl));
    let (ctrl, mem, expr) = if merged {
        (ctrl, mem, expr)
    } else {
        let r = g.add_node(NodeKind::Region, vec![None, Some(ctrl)]);
        g.set_ty(r, crate::types::Types::CTRL);
        let phi = |g: &mut Graph, label: &str, declared, v| {
            let p = g.add_node(
                NodeKind::Phi {
                    label: label.into(),
                    declared,
                    parm: None,
                },
                vec![Some(r), Some(v)],
            );
            let t = g.ty(v);
            g.set_ty(p, t);
            p
        };
        let m = phi(g, "$mem", crate::types::Types::MEM_BOT, mem);
        let e = phi(g, "", crate::types::Types::BOTTOM, expr);
        (r, m, e)
    };
    g.add_def(ctrl, Some(taken));
    g.add_def(mem, Some(top));
    g.add_def(expr, Some(top));
    g.set_def(ret, 0, Some(ctrl));
    g.set_def(ret, 1, Some(mem));
    g.set_def(ret, 2, Some(expr));
    // Like Simple, the new control nodes stay untyped: no peephole will
    // see them, and the listing shows no type for them.
}

/// An arm of an If (or Never) whose other arm does not go straight into a
/// Loop (as its first control user) that this arm does not enter.
fn is_exit(g: &Graph, arm: NodeId) -> bool {
    let NodeKind::CProj { idx, .. } = *g.role(arm) else {
        return false;
    };
    let iff = g.in_(arm, 0);
    if !is_if(g, iff) {
        return false;
    }
    let other = crate::eval::projection(g, iff, 1 - idx);
    let Some(&next) = other.and_then(|o| g.outputs(o).first()) else {
        return true;
    };
    !matches!(g.role(next), NodeKind::Loop) || g.input(next, 1) == Some(arm)
}

// ---------------------------------------------------------------------------
// Step 3: schedule early.

fn schedule_early(g: &mut Graph, s: &mut Schedule, rpo: &[NodeId]) {
    let mut e = Early {
        done: vec![false; g.len() + 1],
        block: vec![None; g.len() + 1],
        moves: Vec::new(),
        unfold: Vec::new(),
    };
    for (k, &cfg) in rpo.iter().enumerate() {
        prefetch_ahead(g, rpo, k);
        for i in 0..g.n_ins(cfg) {
            if let Some(def) = g.input(cfg, i) {
                if !is_cfg(g, def) {
                    e.visit(g, s, def);
                }
            }
        }
        // A phi of an infinite loop may be used by nothing outside the
        // loop; reach every phi from its region.
        if g.role(cfg).is_region() {
            for phi in phis(g, cfg) {
                e.visit(g, s, phi);
            }
        }
    }
    // A folded load that would run too late gets a node of its own, in
    // the block its own inputs allow.
    for (n, blk) in std::mem::take(&mut e.unfold) {
        let ld = crate::mach::unfold(g, n);
        e.moves.push((ld, blk));
    }
    // Written at the end, all at once: see `Graph::move_to_blocks`.
    g.move_to_blocks(&e.moves);
}

/// The state of early scheduling: the block chosen for each floating node
/// (written to the graph at the end), in the order chosen.
struct Early {
    done: Vec<bool>,
    block: Vec<Option<NodeId>>,
    moves: Vec<(NodeId, NodeId)>,
    /// Folded loads to split off, with the block of the load's inputs.
    unfold: Vec<(NodeId, NodeId)>,
}

impl Early {
    /// Schedules the floating inputs of `n`, then `n` itself, in the
    /// deepest of its inputs' blocks. The walk does not enter pinned
    /// inputs, which keeps it off loop back edges (they always pass through
    /// a Phi).
    fn visit(&mut self, g: &Graph, s: &mut Schedule, n: NodeId) {
        if !mark(&mut self.done, n) {
            return;
        }
        stacker::maybe_grow(64 * 1024, 1024 * 1024, || {
            for i in 0..g.n_ins(n) {
                if let Some(def) = g.input(n, i) {
                    // Ask the table before the node: most inputs are done.
                    // A New is pinned, but its inputs float (its size),
                    // and a Phi of a New's pointer reaches them through it.
                    let newish = matches!(g.role(def), NodeKind::New { .. }) || new_proj(g, def);
                    if !self.is_done(def) && (!is_pinned(g, def) || newish) {
                        self.visit(g, s, def);
                    }
                }
            }
        });
        if is_pinned(g, n) {
            return;
        }
        // An array element is read or written no earlier than its control
        // (chapter 15: the stand-in for a range check of its index), and a
        // Load that has a control (one seen through a cast that holds on
        // one arm only, see `region::keep_on_arm`) no earlier than that.
        let guarded = crate::node::is_element(g, n) || matches!(g.role(n), NodeKind::Load { .. });
        let mut best = match guarded {
            true => g.input(n, 0).unwrap_or_else(|| g.start()),
            false => g.start(),
        };
        let mut load_best = best;
        for i in 1..g.n_ins(n) {
            let Some(blk) = g.input(n, i).and_then(|def| self.block_of(g, def)) else {
                continue;
            };
            if s.idepth(g, blk) > s.idepth(g, best) {
                best = blk;
            }
            if i < 4 {
                load_best = best;
            }
        }
        if best != load_best && self.unsafe_fold(g, n) {
            self.unfold.push((n, load_best));
        }
        self.block[n.nid() as usize] = Some(best);
        self.moves.push((n, best));
    }

    /// Chapter 19: `n` reads memory through a folded load (x86's `cmp
    /// reg, [mem]`), and its other operand is ready only in a block below
    /// the load's own inputs. The load runs where `n` runs, and a store
    /// between the two blocks may write what it reads (`v = a[0]; a[0] =
    /// 1; return v < f();`); the late schedule, which sees one node, could
    /// not put the load back before the store. So when anything may write
    /// after the memory state the load reads, the load becomes a node of
    /// its own.
    fn unsafe_fold(&self, g: &Graph, n: NodeId) -> bool {
        if !crate::mach::folds_load(g, n) {
            return false;
        }
        let NodeKind::Load { alias, .. } = *g.role(n) else {
            return false;
        };
        let mem = g.in_(n, 1);
        g.outputs(mem).iter().any(|&u| match g.role(u) {
            NodeKind::Load { .. } | NodeKind::Return => false,
            NodeKind::Store { alias: a, .. } => *a == alias,
            // A merge of memory, a call, a New: may write.
            _ => true,
        })
    }

    fn is_done(&self, n: NodeId) -> bool {
        self.done.get(n.nid() as usize).copied().unwrap_or(false)
    }

    /// The block of `n`: the one chosen here, or its control input.
    fn block_of(&self, g: &Graph, n: NodeId) -> Option<NodeId> {
        self.block
            .get(n.nid() as usize)
            .copied()
            .flatten()
            .or_else(|| block(g, n))
    }
}

// ---------------------------------------------------------------------------
// Step 4: schedule late.

/// The state of late scheduling.
struct Late {
    /// The block chosen for each node visited. For a control node: the
    /// block it heads or ends; for a pinned data node: its input 0.
    late: Vec<Option<NodeId>>,
    /// The nodes the walk has entered: with no block yet, they are being
    /// placed (their uses are being walked).
    entered: Vec<bool>,
    /// For each block, the last Load whose range of blocks included it
    /// (Simple's `_anti` field).
    anti: Vec<Option<NodeId>>,
    /// How many times Loads have marked their blocks in `anti`.
    marks: u64,
    /// The floating nodes placed, to write back at the end.
    placed: Vec<NodeId>,
    /// Scratch space for the blocks of one node's uses.
    use_blocks: Vec<NodeId>,
    /// The walk's stack, and the copies of its nodes' users, kept between
    /// walks to reuse their memory.
    walk: Vec<LateFrame>,
    users: Vec<NodeId>,
}

/// A node whose uses the late walk is visiting. Its users were copied to
/// the walk's list of users from `start` on (the graph changes under the
/// walk); `next` is the next to try. Memory writers are tried first, in a
/// pass of their own (`all_uses` false).
#[derive(Clone, Copy)]
struct LateFrame {
    n: NodeId,
    start: usize,
    next: usize,
    all_uses: bool,
}

/// A copy of a node's users, to visit while the graph changes; most nodes
/// have few, and those stay off the heap.
type UsersCopy = SmallVec<[NodeId; 8]>;

impl Late {
    fn new(g: &Graph) -> Self {
        Late {
            late: vec![None; g.len() + 1],
            entered: vec![false; g.len() + 1],
            anti: vec![None; g.len() + 1],
            marks: 0,
            placed: Vec::new(),
            use_blocks: Vec::new(),
            walk: Vec::new(),
            users: Vec::new(),
        }
    }

    fn run(mut self, g: &mut Graph, s: &mut Schedule) {
        self.visit(g, s, g.start());
        // Blocks are written only now, so that during the walk input 0 of a
        // Store still holds its early block. In node order, as Simple does,
        // which decides the order of each block's list of members.
        self.placed.sort();
        let moves: Vec<(NodeId, NodeId)> = self
            .placed
            .iter()
            .filter_map(|&n| Some((n, self.late[n.nid() as usize]?)))
            .collect();
        g.move_to_blocks(&moves);
    }

    fn is_visited(&self, n: NodeId) -> bool {
        self.late[n.nid() as usize].is_some()
    }

    /// Places `root` and every node reached from it through uses, each
    /// after its uses: a depth-first walk with a stack of its own. (A
    /// recursive walk takes a frame per node on the longest chain of uses,
    /// which on a long program is tens of megabytes of stack.)
    fn visit(&mut self, g: &mut Graph, s: &mut Schedule, root: NodeId) {
        // A walk can start another (see `anti_deps_of`); that one finds
        // these lists taken and makes its own.
        let mut walk = std::mem::take(&mut self.walk);
        let mut users = std::mem::take(&mut self.users);
        self.enter(g, root, &mut walk, &mut users);
        while let Some(&top) = walk.last() {
            let mut frame = top;
            let mut found = None;
            // Uses first. Memory writers go before the rest, so that when a
            // Load looks for the Stores it must precede, they are placed. A
            // use visited already is skipped before its node is read.
            loop {
                if frame.next == users.len() {
                    if frame.all_uses {
                        break;
                    }
                    frame.all_uses = true;
                    frame.next = frame.start;
                    continue;
                }
                let u = users[frame.next];
                frame.next += 1;
                if !self.is_visited(u)
                    && is_forwards_edge(g, u, frame.n)
                    && (frame.all_uses || g.types.is_mem(g.ty(u)))
                {
                    found = Some(u);
                    break;
                }
            }
            *walk.last_mut().expect("the frame is on the stack") = frame;
            if let Some(u) = found {
                self.enter(g, u, &mut walk, &mut users);
            } else {
                walk.pop();
                users.truncate(frame.start);
                self.place(g, s, frame.n);
            }
        }
        self.walk = walk;
        self.users = users;
    }

    /// Starts visiting `n`, unless it has been visited.
    fn enter(&mut self, g: &Graph, n: NodeId, walk: &mut Vec<LateFrame>, users: &mut Vec<NodeId>) {
        if self.is_visited(n) {
            return;
        }
        let i = n.nid() as usize;
        self.entered[i] = true;
        // Nodes whose block is known get it first, so that a walk around a
        // loop stops at them.
        if is_cfg(g, n) {
            self.late[i] = if is_block_head(g, n) {
                Some(n)
            } else {
                g.input(n, 0)
            };
        } else if is_pinned(g, n) {
            // A Phi's Region, a projection's multi-node (a New's: its block).
            self.late[i] = block(g, n);
        }
        let start = users.len();
        users.extend_from_slice(g.outputs(n));
        walk.push(LateFrame {
            n,
            start,
            next: start,
            all_uses: false,
        });
    }

    /// Chooses the block of `n`, whose uses are all placed.
    fn place(&mut self, g: &mut Graph, s: &mut Schedule, n: NodeId) {
        let i = n.nid() as usize;
        if is_pinned(g, n) {
            return;
        }
        let early = g.input(n, 0).unwrap_or_else(|| g.start());

        // The latest legal block: the LCA of the blocks of all uses.
        // Uses under dead control (possible with peepholes off) need nothing.
        let mut blocks = std::mem::take(&mut self.use_blocks);
        blocks.clear();
        for &u in g.outputs(n) {
            if let Some(b) = self.use_block(g, s, n, u) {
                if !matches!(g.role(b), NodeKind::XCtrl) {
                    blocks.push(b);
                }
            }
        }
        let lca = s.lca_of(g, &blocks);
        self.use_blocks = blocks;
        // A node nothing live uses (a Load whose value is dropped) stays early.
        let mut lca = lca.unwrap_or(early);
        if matches!(g.role(n), NodeKind::Load { .. }) {
            lca = self.find_anti_dep(g, s, lca, n, early);
        }

        // Walk up to the early block, keeping the best place seen. (The
        // flags stay where they are read: chapter 19.)
        let mut best = lca;
        if crate::mach::sets_flags(g, n) {
            self.late[i] = Some(best);
            self.placed.push(n);
            return;
        }
        let stop_at = s.idom(g, early);
        let mut up = s.idom(g, lca);
        while up != stop_at {
            let Some(b) = up else {
                // The walk passed the top without meeting the early block:
                // no legal block lies between, so stay early.
                best = early;
                break;
            };
            if better(g, s, b, best) {
                best = b;
            }
            // Outside every loop and not on a branch, nothing higher can be
            // better: stop. (Without this, a constant that may float to
            // Start walks the whole dominator tree, quadratic in a long
            // program.)
            if s.loop_depth(best) <= 1 && !ends_block(g, best) {
                break;
            }
            up = s.idom(g, b);
        }
        debug_assert!(!ends_block(g, best), "code never goes after a block's end");
        self.late[i] = Some(best);
        self.placed.push(n);
    }

    /// Where use `u` needs `n`: in the use's block; for a Phi, at the end of
    /// the path that brings `n` in (several paths: their LCA).
    fn use_block(&self, g: &Graph, s: &mut Schedule, n: NodeId, u: NodeId) -> Option<NodeId> {
        if !matches!(g.role(u), NodeKind::Phi { .. }) {
            return self.late[u.nid() as usize];
        }
        let region = g.in_(u, 0);
        let mut blk = None;
        for i in 1..g.n_ins(u) {
            if g.input(u, i) == Some(n) {
                if let Some(path) = g.input(region, i) {
                    blk = Some(s.lca(g, path, blk));
                }
            }
        }
        blk
    }

    /// Marks `range` as the blocks Load `load` may still go to.
    fn mark(&mut self, load: NodeId, range: &[NodeId]) {
        self.marks += 1;
        for &x in range {
            self.anti[x.nid() as usize] = Some(load);
        }
    }

    /// Visits writer `u` while Load `load` looks for its anti-dependences.
    /// Placing the writer may place other Loads first (those that read
    /// what it wrote), and their marks overwrite the blocks `load` marked:
    /// put them back, or a Store in those blocks would go unnoticed.
    fn visit_keeping_marks(
        &mut self,
        g: &mut Graph,
        s: &mut Schedule,
        u: NodeId,
        load: NodeId,
        range: &[NodeId],
    ) {
        // A writer still being placed is not entered again (its walk
        // would come back here, round the same loop, for ever).
        if self.entered[u.nid() as usize] {
            return;
        }
        let marks = self.marks;
        self.visit(g, s, u);
        if self.marks != marks {
            self.mark(load, range);
        }
    }

    /// Raises a Load's LCA above every Store (and every memory Phi) that
    /// replaces the memory it reads, where their ranges of blocks meet.
    fn find_anti_dep(
        &mut self,
        g: &mut Graph,
        s: &mut Schedule,
        mut lca: NodeId,
        load: NodeId,
        early: NodeId,
    ) -> NodeId {
        // Mark the Load's choices: its LCA up to its early block.
        let stop_at = s.idom(g, early);
        let mut range = Vec::new();
        let mut b = Some(lca);
        while b != stop_at {
            let Some(x) = b else { break };
            range.push(x);
            b = s.idom(g, x);
        }
        self.mark(load, &range);
        let NodeKind::Load { alias, .. } = *g.role(load) else {
            unreachable!("find_anti_dep on a non-load")
        };
        // The memory states the Load reads: its input, and any merge that
        // passes that state on unchanged for the Load's alias class (memory
        // is split lazily, so one state may feed many classes).
        let mut states = vec![g.in_(load, 1)];
        let mut seen: FxHashSet<NodeId> = FxHashSet::default();
        let mut aside = Vec::new();
        while let Some(mem) = states.pop() {
            if !seen.insert(mem) {
                continue;
            }
            lca = self.anti_deps_of(g, s, lca, load, &range, alias, mem, &mut states, &mut aside);
        }
        if !aside.is_empty() {
            lca = raise_above_writers_aside(g, s, load, lca, early, &aside);
        }
        lca
    }

    /// Raises the Load's LCA above each writer of class `alias` among the
    /// users of memory state `mem`; pushes onto `states` the merges that
    /// pass `mem` on for that class, and the states after the writers the
    /// Load walked past: a writer after those may still write what the
    /// Load reads. A writer whose range of blocks does not meet the Load's
    /// goes `aside`, with its block, for a walk of the paths.
    #[allow(clippy::too_many_arguments)]
    fn anti_deps_of(
        &mut self,
        g: &mut Graph,
        s: &mut Schedule,
        mut lca: NodeId,
        load: NodeId,
        range: &[NodeId],
        alias: u32,
        mem: NodeId,
        states: &mut Vec<NodeId>,
        aside: &mut Vec<(NodeId, Option<NodeId>)>,
    ) -> NodeId {
        let users: UsersCopy = g.outputs(mem).iter().copied().collect();
        for u in users {
            let passed = passes(g, load, u);
            if passed {
                match g.role(u) {
                    NodeKind::Store { .. } => states.push(u),
                    NodeKind::New { .. } => {
                        if let Some(j) = new_mem_input(g, u, alias) {
                            let slice = g.outputs(u).iter().copied().find(
                                |&p| matches!(g.role(p), NodeKind::Proj { idx, .. } if *idx == j),
                            );
                            states.extend(slice);
                        }
                    }
                    _ => {}
                }
            }
            match g.role(u) {
                // A Store to another class leaves this one as it was, and
                // so does one the Load's peephole walked past (the Load's
                // address may even be computed from a load after it).
                NodeKind::Store { alias: a, .. } if *a == alias && !passed => {
                    // Placed already, memory users going first; make sure.
                    self.visit_keeping_marks(g, s, u, load, range);
                    let Some(st_blk) = self.late[u.nid() as usize] else {
                        lca = load_before_unplaced(g, s, load, u);
                        continue;
                    };
                    // Input 0 still holds the Store's early block.
                    let st_early = g.input(u, 0).unwrap_or_else(|| g.start());
                    match self.anti_dep(g, s, load, st_blk, st_early, lca, Some(u)) {
                        Some(raised) => lca = raised,
                        None => aside.push((st_blk, Some(u))),
                    }
                }
                NodeKind::Phi { declared, .. }
                    if g.types.mem_alias(*declared).is_none_or(|a| a == alias) =>
                {
                    // Memory changes at the end of each path that brings
                    // `mem` into the Phi: the LCA may rise, no edge to add.
                    let region = g.in_(u, 0);
                    let mem_blk = block(g, mem).unwrap_or_else(|| g.start());
                    for i in 1..g.n_ins(u) {
                        if g.input(u, i) == Some(mem) {
                            if let Some(path) = g.input(region, i) {
                                match self.anti_dep(g, s, load, path, mem_blk, lca, None) {
                                    Some(raised) => lca = raised,
                                    None => aside.push((path, None)),
                                }
                            }
                        }
                    }
                }
                // A New writes the class too (the new object's field).
                NodeKind::New { .. }
                    if new_mem_input(g, u, alias).is_some_and(|j| g.input(u, j) == Some(mem))
                        && !passed =>
                {
                    self.visit_keeping_marks(g, s, u, load, range);
                    let Some(new_blk) = self.late[u.nid() as usize] else {
                        lca = load_before_unplaced(g, s, load, u);
                        continue;
                    };
                    let new_early = g.input(u, 0).unwrap_or_else(|| g.start());
                    match self.anti_dep(g, s, load, new_blk, new_early, lca, Some(u)) {
                        Some(raised) => lca = raised,
                        None => aside.push((new_blk, Some(u))),
                    }
                }
                // A merge hands the state on, if the class is not split.
                NodeKind::MemMerge if mem_merge_slice(g, u, alias) == mem => states.push(u),
                // A call takes the whole memory and may write any class:
                // what the callee does is not known here. The Load goes
                // first, in the call's block or above it; no edge is
                // needed, as the call ends its block.
                NodeKind::Call { .. } if g.input(u, 1) == Some(mem) => {
                    let mut call_blk = g.in_(u, 0);
                    while !is_block_head(g, call_blk) {
                        call_blk = g.in_(call_blk, 0);
                    }
                    match self.anti_dep(g, s, load, call_blk, call_blk, lca, None) {
                        Some(raised) => lca = raised,
                        None => aside.push((call_blk, None)),
                    }
                }
                // Loads and Returns only read memory; a Never only keeps a
                // loop's memory Phi alive; Stores and Phis of other classes
                // do not touch this one. (Simple stops with "not yet
                // implemented" on any other use, a Never included.)
                _ => {}
            }
        }
        lca
    }

    /// Walks a Store's range of blocks up from where it was placed; the
    /// first block the Load may also use is where the Load must come first.
    /// Returns the Load's LCA raised to that block, or `None` if the ranges
    /// never meet.
    #[allow(clippy::too_many_arguments)]
    fn anti_dep(
        &mut self,
        g: &mut Graph,
        s: &mut Schedule,
        load: NodeId,
        st_blk: NodeId,
        st_early: NodeId,
        lca: NodeId,
        store: Option<NodeId>,
    ) -> Option<NodeId> {
        let stop_at = s.idom(g, st_early);
        let mut b = Some(st_blk);
        while b != stop_at {
            let Some(x) = b else { break };
            if self.anti[x.nid() as usize] == Some(load) {
                let lca = s.lca(g, x, Some(lca));
                // Load and Store may share this block: order them.
                if let Some(st) = store.filter(|_| lca == x) {
                    load_goes_first(g, load, st);
                }
                return Some(lca);
            }
            b = s.idom(g, x);
        }
        None
    }
}

/// Simple's search above meets a writer only where the writer's range of
/// blocks crosses the Load's path up the dominator tree. A writer held
/// below a branch (an array element store, a New) on one arm of an `if`
/// is on no such path, yet a Load placed after the arms merge runs after
/// it when that arm is taken, and reads what it wrote (`v = a[i]; if (c)
/// a[j] = 1; else a = new int[2]; return v;`). So, as C2 does
/// (`raise_LCA_above_marks`), walk the CFG backwards from the LCA to the
/// early block, and raise the LCA above every writer met on the way.
fn raise_above_writers_aside(
    g: &mut Graph,
    s: &mut Schedule,
    load: NodeId,
    mut lca: NodeId,
    early: NodeId,
    aside: &[(NodeId, Option<NodeId>)],
) -> NodeId {
    let blocks: FxHashSet<NodeId> = aside.iter().map(|&(b, _)| b).collect();
    let mut seen: FxHashSet<NodeId> = FxHashSet::default();
    let mut work = vec![lca];
    while let Some(mid) = work.pop() {
        if mid == early || !seen.insert(mid) {
            continue;
        }
        if mid != lca && blocks.contains(&mid) {
            let raised = s.lca(g, mid, Some(lca));
            // A writer the LCA dominates is met only round a loop, after
            // the Load's block: it stays; nothing behind it is looked at.
            if raised == lca {
                continue;
            }
            // Above the writer; then walk again from there (each raise
            // climbs the dominator tree, so the walks are few).
            lca = raised;
            if lca == early {
                break;
            }
            seen.clear();
            work.clear();
            work.push(lca);
            continue;
        }
        work.extend(cfg_preds(g, mid));
    }
    // A writer in the Load's block now runs after it there.
    for &(b, writer) in aside {
        if let Some(w) = writer.filter(|_| b == lca) {
            load_goes_first(g, load, w);
        }
    }
    lca
}

/// `writer` shares the Load's block: it takes the Load as an extra input,
/// so that ordering inside the block keeps the Load first.
fn load_goes_first(g: &mut Graph, load: NodeId, writer: NodeId) {
    if !g.inputs(writer).contains(&Some(load)) {
        g.add_def(writer, Some(load));
    }
}

/// Writer `writer` of the memory Load `load` reads has no block yet: it
/// is being placed, and the walk came to the Load from it, round a loop
/// (the Load's address depends on what the writer wrote on the trip
/// before). The Load goes as early as it can, to its early block, and the
/// writer after it: it takes the Load as an input (so that in one block
/// the Load comes first) and goes no higher than the Load's block.
/// Returns the Load's new LCA.
fn load_before_unplaced(g: &mut Graph, s: &mut Schedule, load: NodeId, writer: NodeId) -> NodeId {
    let early = g.input(load, 0).unwrap_or_else(|| g.start());
    load_goes_first(g, load, writer);
    let writer_early = g.input(writer, 0).unwrap_or_else(|| g.start());
    if s.idepth(g, early) > s.idepth(g, writer_early)
        && s.lca(g, early, Some(writer_early)) == writer_early
    {
        g.set_def(writer, 0, Some(early));
    }
    early
}

/// Moving up from `best` to `cand` pays if `cand` is in a shallower loop
/// nest, or if `best` is an If (a block's end, no place for code).
/// Otherwise the later block, where fewer paths need the value, stays.
/// (Simple's test also accepts "`cand` is deeper in the dominator tree",
/// which on a walk up the tree never holds.)
fn better(g: &Graph, s: &Schedule, cand: NodeId, best: NodeId) -> bool {
    s.loop_depth(cand) < s.loop_depth(best) || ends_block(g, best)
}

/// False for a loop's back edge, seen from the def: late scheduling goes
/// from defs to uses and must not go round a loop.
fn is_forwards_edge(g: &Graph, u: NodeId, def: NodeId) -> bool {
    let back_edge = g.n_ins(u) > 2
        && g.input(u, 2) == Some(def)
        && match g.role(u) {
            NodeKind::Loop => true,
            NodeKind::Phi { .. } => matches!(g.role(g.in_(u, 0)), NodeKind::Loop),
            _ => false,
        };
    !back_edge
}

// ===========================================================================
// The scheduled listing (Simple's `IRPrinter.prettyPrintScheduled`).
//
// Every node within `depth` input edges of `root` is printed, grouped by
// block. Blocks come shallowest in the dominator tree first (ties: lower
// node number; Simple takes whichever its hash map yields first). A block
// starts with a header naming the blocks control comes from; then come its
// Phis, then its other members, farthest from `root` first.
//
// ```text
// LOOP19:                           [[  L12       L81        ]]
//   73 Phi_pri   19   17   82       [[    84   74   77   82  ]]  int
//   22 LE        19   21    7       [[    24       ]]  int
// ```
//
// A line is the node number, its label (7 columns), its inputs (`____` for
// an empty slot) padded to 4, then `[[`, its uses (`____` for each `keep`
// pin), `]]` and its type in short form.

/// The scheduled program reached from `root` within `depth` steps along
/// inputs, block by block (Simple's `IRPrinter.prettyPrintScheduled`).
///
/// Blocks come out shallowest in the dominator tree first, ties broken by
/// node number. Within a block the Phis come first, then the other members
/// farthest from the root first. Simple takes members out of a list by
/// scanning it and moving the last entry into each gap; that order is kept
/// exactly, but each scan visits only the places of the nodes it takes, so
/// the whole listing is `O(n log n)` however large a block is.
pub fn print_scheduled(g: &Graph, s: &Schedule, root: NodeId, depth: u32) -> String {
    // Breadth first from `root` along inputs, noting how much depth was
    // left at each node's first visit (Simple's walk keeps the largest:
    // the same).
    let mut left: Vec<Option<u32>> = vec![None; g.len() + 1];
    let mut reached = vec![root];
    left[root.nid() as usize] = Some(depth);
    let mut queue = VecDeque::from([root]);
    while let Some(n) = queue.pop_front() {
        let d = left[n.nid() as usize].expect("queued nodes have a depth");
        if d == 0 {
            continue;
        }
        for &def in g.inputs(n).iter().flatten() {
            let slot = &mut left[def.nid() as usize];
            if slot.is_none() {
                *slot = Some(d - 1);
                reached.push(def);
                queue.push_back(def);
            }
        }
    }

    // A block is due while some reached node not yet printed names it as
    // its block. Printing only ever retires blocks, so popping a heap and
    // skipping the blocks no longer due gives the shallowest due block
    // each time.
    let mut due: FxHashMap<NodeId, u32> = FxHashMap::default();
    for &n in &reached {
        if let Some(b) = block(g, n) {
            *due.entry(b).or_default() += 1;
        }
    }
    let mut blocks: BinaryHeap<Reverse<(u32, NodeId)>> =
        due.keys().map(|&b| Reverse((s.idepth_of(b), b))).collect();
    // Where each member of the block being printed sits in its list.
    let mut place: Vec<u32> = vec![0; g.len() + 1];
    let mut out = String::new();
    while let Some(Reverse((_, blk))) = blocks.pop() {
        if due[&blk] == 0 {
            continue;
        }
        retire(g, blk, &mut left, &mut due);
        block_header(g, blk, &mut out);

        // The block's members within reach, once each (a node that uses
        // the block twice is listed once).
        let mut body: Vec<NodeId> = Vec::new();
        for &u in g.outputs(blk) {
            let slot = u.nid() as usize;
            let listed = body.get(place[slot] as usize) == Some(&u);
            if left[slot].is_some() && !is_block_head(g, u) && !listed {
                place[slot] = body.len() as u32;
                body.push(u);
            }
        }
        let is_phi = |n: NodeId| matches!(g.role(n), NodeKind::Phi { .. });
        let phis: Vec<usize> = (0..body.len()).filter(|&i| is_phi(body[i])).collect();
        let mut lines = take_in_scan_order(&mut body, &phis, &mut place, is_phi);
        // Then the rest, grouped by the depth left at their first visit,
        // smallest (farthest from the root) first.
        let mut by_depth: BTreeMap<u32, Vec<NodeId>> = BTreeMap::new();
        for &u in &body {
            let d = left[u.nid() as usize].expect("members are within reach");
            by_depth.entry(d).or_default().push(u);
        }
        for (d, members) in by_depth {
            let mut at: Vec<usize> = members
                .iter()
                .map(|u| place[u.nid() as usize] as usize)
                .collect();
            at.sort_unstable();
            let at_depth = |n: NodeId| left[n.nid() as usize] == Some(d);
            lines.extend(take_in_scan_order(&mut body, &at, &mut place, at_depth));
        }
        for n in lines {
            print_line(g, n, &mut out);
            retire(g, n, &mut left, &mut due);
            // A New's projections come right after it.
            if matches!(g.role(n), NodeKind::New { .. }) {
                for &p in g.outputs(n) {
                    if left[p.nid() as usize].is_some() && new_proj(g, p) {
                        print_line(g, p, &mut out);
                        retire(g, p, &mut left, &mut due);
                    }
                }
            }
        }
        out.push('\n');
    }
    out
}

/// Marks `n` printed, and counts it off the block it names.
fn retire(g: &Graph, n: NodeId, left: &mut [Option<u32>], due: &mut FxHashMap<NodeId, u32>) {
    if left[n.nid() as usize].take().is_some() {
        if let Some(count) = block(g, n).and_then(|b| due.get_mut(&b)) {
            *count -= 1;
        }
    }
}

/// Takes out of `list` every node that `wanted` accepts, in the order of
/// Simple's scan: front to back, and on a hit the last entry moves into
/// the gap and is looked at in turn. `at` holds, in ascending order, the
/// places of the wanted nodes; since entries only ever move into the place
/// being scanned, every other place can be skipped. `place` is kept up to
/// date for the entries that move.
fn take_in_scan_order(
    list: &mut Vec<NodeId>,
    at: &[usize],
    place: &mut [u32],
    wanted: impl Fn(NodeId) -> bool,
) -> Vec<NodeId> {
    let mut taken = Vec::with_capacity(at.len());
    for &i in at {
        while i < list.len() && wanted(list[i]) {
            taken.push(list.swap_remove(i));
            if let Some(&moved) = list.get(i) {
                place[moved.nid() as usize] = i as u32;
            }
        }
    }
    taken
}

/// `START`, `LOOP12` or `L12`.
fn block_label(g: &Graph, blk: NodeId) -> String {
    match g.role(blk) {
        NodeKind::Start { .. } => "START".into(),
        NodeKind::Loop => format!("LOOP{blk}"),
        _ => format!("L{blk}"),
    }
}

/// `LOOP19:` and the blocks control comes from.
fn block_header(g: &Graph, blk: NodeId, out: &mut String) {
    let _ = write!(out, "{:<13.13}", format!("{}:", block_label(g, blk)));
    out.push_str(&" ".repeat(20));
    out.push_str(" [[  ");
    for p in cfg_preds(g, blk) {
        // A predecessor that is no head (an If, a Return) stands for its block.
        let p = if is_block_head(g, p) { p } else { g.in_(p, 0) };
        let _ = write!(out, "{:<9.9} ", block_label(g, p));
    }
    out.push_str(" ]]  \n");
}

/// One node: `  22 LE        19   21    7       [[    24       ]]  int`.
fn print_line(g: &Graph, n: NodeId, out: &mut String) {
    let _ = write!(out, "{:4} {:<7.7} ", n.nid(), label(g, n));
    let ins = g.inputs(n);
    for def in ins {
        match def {
            Some(d) => {
                let _ = write!(out, "{:4} ", d.nid());
            }
            None => out.push_str("____ "),
        }
    }
    for _ in ins.len()..4 {
        out.push_str("     ");
    }
    out.push_str(" [[  ");
    // Simple pins a node with a null use; we count pins instead.
    let keeps = g.keeps(n) as usize;
    for _ in 0..keeps {
        out.push_str("____ ");
    }
    for &u in g.outputs(n) {
        let _ = write!(out, "{:4} ", u.nid());
    }
    let lim = 6usize.saturating_sub(ins.len().max(4));
    for _ in (keeps + g.outputs(n).len())..lim {
        out.push_str("     ");
    }
    out.push_str(" ]]  ");
    if let Some(t) = g.ty_opt(n) {
        out.push_str(&g.types.str(t));
    }
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::{cfg_preds, Cfg};
    use crate::node::{is_cfg, NodeKind};
    use crate::CodeGen;

    /// For every live control node, the compact CFG lists the successors
    /// and predecessors that the graph's own edges give. Returns how many
    /// `Never` branches scheduling added.
    fn check(src: &str) -> usize {
        let mut code = CodeGen::new(src);
        code.parse().unwrap().iterate().unwrap();
        let g = &code.graph;
        let cfg = Cfg::build(g);
        let (mut loops, mut nevers) = (0, 0);
        for &n in g.control_nodes() {
            if g.is_dead(n) {
                continue;
            }
            loops += usize::from(matches!(g.role(n), NodeKind::Loop));
            nevers += usize::from(matches!(g.role(n), NodeKind::Never));
            let succs: Vec<_> = g
                .outputs(n)
                .iter()
                .copied()
                .filter(|&u| is_cfg(g, u) && !matches!(g.role(u), NodeKind::XCtrl))
                .collect();
            assert_eq!(cfg.succs(n), succs, "successors of {n}");
            let preds: Vec<_> = cfg_preds(g, n).collect();
            assert_eq!(cfg.preds(n), preds, "predecessors of {n}");
        }
        assert!(loops > 0, "the program keeps a loop");
        nevers
    }

    #[test]
    fn compact_cfg_matches_the_graph() {
        let nevers = check(
            "int i = 0; int s = 0;
while (i < arg) { i = i + 1; if (i == 3) continue; if (i > 10) break; s = s + i; }
if (s) s = s * 2; else s = 1;
return s;",
        );
        assert_eq!(nevers, 0);
        // An infinite inner loop: scheduling adds a Never branch, and so
        // builds the compact CFG again.
        let nevers = check("int i = 0; while (arg) { while (1) i = i + 1; } return i;");
        assert_eq!(nevers, 1);
    }
}
