//! Iterative peepholes: optimize to a fixed point with a worklist.
//!
//! Parsing peepholes each node once, when it is made, and sees only what is
//! known at that moment: a loop's phis, for instance, are typed before the
//! loop's back edge exists. After parsing, `iterate` revisits nodes until no
//! peephole makes progress. The worklist holds every node that may have
//! become optimizable: the users of a node whose type changed, the inputs
//! of a killed node, the neighbours of a replaced node, and the recorded
//! dependents of a node (`Graph::add_dep`: a peephole that looked further
//! than a node's direct neighbours asks to be woken when what it looked at
//! changes).
//!
//! The worklist hands its nodes out in a pseudo-random order, from a seeded
//! generator that is bit-for-bit Java's `java.util.Random`, as Simple's is.
//! The order must not matter for the final program; the tests run other
//! seeds to check that it does not.

use crate::graph::{Graph, NodeId};
use crate::node::{compute, is_constant_node, peephole_opt, NodeKind};

/// Java's linear congruential generator (`java.util.Random`), so that a
/// seed gives the same sequence as in Simple.
#[derive(Clone, Debug)]
struct JavaRandom {
    seed: u64,
}

impl JavaRandom {
    const MULTIPLIER: u64 = 0x5_DEEC_E66D;
    const MASK: u64 = (1 << 48) - 1;

    fn new(seed: u64) -> Self {
        JavaRandom {
            seed: (seed ^ Self::MULTIPLIER) & Self::MASK,
        }
    }

    fn next(&mut self, bits: u32) -> i32 {
        self.seed = (self.seed.wrapping_mul(Self::MULTIPLIER).wrapping_add(0xB)) & Self::MASK;
        (self.seed >> (48 - bits)) as i64 as i32
    }

    /// A uniform value in `0..bound`, exactly as Java computes it.
    fn next_int(&mut self, bound: i32) -> i32 {
        debug_assert!(bound > 0);
        let mut r = self.next(31);
        let m = bound - 1;
        if bound & m == 0 {
            return ((i64::from(bound) * i64::from(r)) >> 31) as i32;
        }
        let mut u = r;
        loop {
            r = u % bound;
            if u.wrapping_sub(r).wrapping_add(m) >= 0 {
                return r;
            }
            u = self.next(31);
        }
    }
}

/// A set of nodes handed out in seeded random order.
#[derive(Clone, Debug)]
pub struct WorkList {
    nodes: Vec<NodeId>,
    on: Vec<bool>,
    random: JavaRandom,
    seed: u64,
    /// Draws made early by `peek_two` for the next pops, in order. A push
    /// changes the length they were drawn for, so it drops them.
    ahead: [Option<Draw>; 2],
}

/// A draw of the generator: the index it gave and its state after.
#[derive(Clone, Debug)]
struct Draw {
    index: usize,
    after: JavaRandom,
}

impl Draw {
    fn make(random: &JavaRandom, len: usize) -> Draw {
        let mut after = random.clone();
        let len = i32::try_from(len).expect("fewer than 2^31 nodes");
        let index = after.next_int(len) as usize;
        Draw { index, after }
    }
}

impl WorkList {
    pub fn new(seed: u64) -> Self {
        WorkList {
            nodes: Vec::new(),
            on: Vec::new(),
            random: JavaRandom::new(seed),
            seed,
            ahead: [None, None],
        }
    }

    /// Adds `n` unless it is already on the list.
    pub fn push(&mut self, n: NodeId) {
        let i = n.nid() as usize;
        if i >= self.on.len() {
            self.on.resize(i + 1, false);
        }
        if !self.on[i] {
            self.on[i] = true;
            self.nodes.push(n);
            self.ahead = [None, None];
        }
    }

    pub fn contains(&self, n: NodeId) -> bool {
        self.on.get(n.nid() as usize).copied().unwrap_or(false)
    }

    /// Takes out a node chosen at random.
    pub fn pop(&mut self) -> Option<NodeId> {
        if self.nodes.is_empty() {
            return None;
        }
        let [first, second] = std::mem::take(&mut self.ahead);
        let draw = first.unwrap_or_else(|| Draw::make(&self.random, self.nodes.len()));
        self.random = draw.after;
        self.ahead = [second, None];
        let n = self.nodes.swap_remove(draw.index);
        self.on[n.nid() as usize] = false;
        Some(n)
    }

    /// The nodes the next two pops will take, unless something is pushed
    /// first. The draws are kept for those pops, so looking ahead does not
    /// cost a second run of the generator.
    pub fn peek_two(&mut self) -> (Option<NodeId>, Option<NodeId>) {
        let len = self.nodes.len();
        if len == 0 {
            return (None, None);
        }
        let first = self.ahead[0].get_or_insert_with(|| Draw::make(&self.random, len));
        let (i1, after_first) = (first.index, first.after.clone());
        if len == 1 {
            return (Some(self.nodes[i1]), None);
        }
        let i2 = self.ahead[1]
            .get_or_insert_with(|| Draw::make(&after_first, len - 1))
            .index;
        // The first pop moves the last node into the hole it leaves.
        let second = if i2 == i1 {
            self.nodes[len - 1]
        } else {
            self.nodes[i2]
        };
        (Some(self.nodes[i1]), Some(second))
    }

    /// Restarts the generator with `seed`, keeping the nodes on the list.
    pub fn reseed(&mut self, seed: u64) {
        self.seed = seed;
        self.random = JavaRandom::new(seed);
        self.ahead = [None, None];
    }

    pub fn seed(&self) -> u64 {
        self.seed
    }
}

/// Runs peepholes from the worklist until none makes progress.
///
/// Chapter 19: with peepholes on, whatever the parser did. A graph parsed
/// without them (`CodeGen::without_peepholes`) is optimized as fully as
/// any: the nodes a rewrite makes are peepholed too. (Left unfolded, a
/// constant sum made by one rewrite was taken apart by another, back and
/// forth: `(x+2)+(1+1)` and `((x+2)+1)+1`, once a multiply by 3 became
/// shifts and adds.)
pub fn iterate(g: &mut Graph) {
    g.disable_peephole = false;
    while let Some(n) = g.work.pop() {
        // The order is random, so on a large graph nearly every node taken
        // is out of cache, and so are its inputs. Two pops ahead, start
        // loading the node; one pop ahead, its inputs (the node itself
        // should have arrived by now). Prefetches do not wait for memory,
        // so this node's work overlaps the loads.
        let (next, after) = g.work.peek_two();
        if let Some(after) = after {
            g.prefetch(after);
        }
        if let Some(next) = next {
            g.prefetch_inputs(next);
        }
        if g.is_dead(n) {
            continue;
        }
        if let Some(x) = peephole_opt(g, n) {
            if g.is_dead(x) {
                continue;
            }
            progress(g, n, x);
        }
        // Plain dead: nothing uses it any more.
        if g.is_unused(n) && !g.is_dead(n) && !matches!(g.kind(n), NodeKind::Stop) {
            g.kill(n);
        }
    }
}

/// Kills every node nothing uses (chapter 18: a statement's value that no
/// later statement wanted, rewritten by a peephole after it was dropped),
/// so that scheduling meets only what the program computes.
pub fn sweep_dead(g: &mut Graph) {
    let unused: Vec<NodeId> = g
        .ids()
        .filter(|&n| {
            !g.is_dead(n)
                && g.is_unused(n)
                && !matches!(g.kind(n), NodeKind::Stop | NodeKind::Start { .. })
        })
        .collect();
    for n in unused {
        if !g.is_dead(n) && g.is_unused(n) {
            g.kill(n);
        }
    }
}

/// `n` improved to `x` (perhaps itself): requeue the neighbours and put `x`
/// in `n`'s place.
fn progress(g: &mut Graph, n: NodeId, x: NodeId) {
    if g.ty_opt(x).is_none() {
        let t = compute(g, x);
        crate::node::set_type(g, x, t);
    }
    // A constant that only got its type needs no neighbours revisited.
    if x != n || !is_constant_node(g, x) {
        g.push_outputs(n);
        g.work.push(x);
        if x != n {
            for i in 0..g.n_ins(n) {
                if let Some(d) = g.input(n, i) {
                    g.work.push(d);
                }
            }
            g.subsume(n, x);
        }
    }
    g.move_deps_to_worklist(n);
}

#[cfg(test)]
mod tests {
    use super::{JavaRandom, WorkList};
    use crate::graph::{Graph, NodeId};
    use crate::node::NodeKind;

    /// Pops everything, pushing one of `extra` after every third pop, and
    /// peeking before each pop if `peek`; returns the order of the pops.
    fn drain(peek: bool) -> Vec<NodeId> {
        let mut g = Graph::new();
        let mut work = WorkList::new(123);
        let ids: Vec<NodeId> = (0..60)
            .map(|_| g.add_node(NodeKind::Stop, vec![]))
            .collect();
        for &n in &ids[..50] {
            work.push(n);
        }
        let mut extra = ids[50..].iter();
        let mut order = Vec::new();
        let mut promised = None;
        loop {
            if peek {
                let (next, after) = work.peek_two();
                if promised.is_some() {
                    assert_eq!(next, promised, "the second peek named the next pop");
                }
                promised = after;
            }
            let Some(n) = work.pop() else { break };
            order.push(n);
            if order.len() % 3 == 0 {
                if let Some(&x) = extra.next() {
                    work.push(x);
                    promised = None; // a push changes what comes next
                }
            }
        }
        order
    }

    #[test]
    fn peek_two_names_the_next_pops_and_changes_nothing() {
        let peeked = drain(true);
        assert_eq!(peeked.len(), 60);
        assert_eq!(peeked, drain(false));
    }

    #[test]
    fn matches_java_util_random() {
        // What `new java.util.Random(123)` gives for nextInt(10) five times,
        // then nextInt(16) (a power of two) and nextInt(7) three times each.
        let mut r = JavaRandom::new(123);
        let tens: Vec<i32> = (0..5).map(|_| r.next_int(10)).collect();
        let sixteens: Vec<i32> = (0..3).map(|_| r.next_int(16)).collect();
        let sevens: Vec<i32> = (0..3).map(|_| r.next_int(7)).collect();
        assert_eq!(tens, vec![2, 0, 6, 9, 5]);
        assert_eq!(sixteens, vec![9, 9, 4]);
        assert_eq!(sevens, vec![2, 1, 2]);
    }
}
