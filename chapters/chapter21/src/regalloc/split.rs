//! Splitting the live ranges colouring could not place.
//!
//! A split is a copy (`Op::Split`, input 0 its block, input 1 the value):
//! it cuts a live range in two, and the pieces are coloured apart. Three
//! cases, as Simple has them:
//!
//! - A self-conflict (two values of one live range live at once, through
//!   a phi or a two-address instruction) is split around its phis (a copy
//!   of each input at the end of its predecessor, a copy of the phi at
//!   the top of its block for its uses) and before each two-address
//!   instruction (a copy of the input it overwrites).
//! - Any other failure (no register left by the masks of its definitions
//!   and uses, single-register constraints that collide, a value live
//!   across a call that clobbers every register it may take, or simply
//!   too many neighbours) is split after each definition and before each
//!   use (a split per operand), and a phi at its inputs and after
//!   itself. The middle piece is then touched only by splits and phis, so
//!   it may take a stack slot if no register is left for it (a spill and
//!   reloads), and the pieces at the ends are as short as they can be.
//!   From the fourth round, the driver also hands over the neighbours
//!   that hold the one register a failed live range may take.
//!
//! Before every round, comparisons are brought next to the users of
//! their flags ([`flags_next_to_users`]). Before the first, the calling
//! convention gets its splits: a
//! parameter passed on the stack (`InArg`) is copied at the top of the
//! function, and a call's stack-passed argument is copied into its place
//! (`OutArg`) right before the call.
//!
//! Splits are collected per place and put into the local schedule block
//! by block at the end, so that the work is linear in the block sizes.

use super::build::{Ctx, Def, Layout, Vals};
use super::live_range::Lrgs;
use crate::graph::{Graph, NodeId};
use crate::mach::{add_mach, mach, Mach, Op, Target};
use crate::node::NodeKind;
use rustc_hash::{FxHashMap, FxHashSet};

/// Where new splits go in the local schedule.
#[derive(Default)]
pub struct Plan {
    at_start: FxHashMap<NodeId, Vec<NodeId>>,
    at_end: FxHashMap<NodeId, Vec<NodeId>>,
    before: FxHashMap<NodeId, Vec<NodeId>>,
    after: FxHashMap<NodeId, Vec<NodeId>>,
    /// Instructions moved to the end of their block.
    sunk: FxHashMap<NodeId, Vec<NodeId>>,
    pub count: usize,
}

/// A new split of `v` in block `blk`.
fn make(g: &mut Graph, blk: NodeId, v: NodeId) -> NodeId {
    let lt = match mach(g, v) {
        Some(m) if m.op != Op::Parm => m.ty[0],
        _ => crate::mach::select::ltype(&g.types, g.ty(v)),
    };
    let ty = g.ty(v);
    add_mach(
        g,
        Mach::new(NodeKind::ReadOnly, Op::Split, lt),
        &[Some(blk), Some(v)],
        ty,
    )
}

/// A value cheaper to compute again than to copy: a constant (a machine
/// node with no input but its block).
pub fn remat(g: &Graph, v: NodeId) -> bool {
    matches!(crate::mach::op(g, v), Some(Op::Int | Op::Flt | Op::FunAddr))
        && (1..g.n_ins(v)).all(|i| g.input(v, i).is_none())
}

/// A copy of constant `v` in block `blk`, or a split of any other value.
fn make_or_remat(g: &mut Graph, blk: NodeId, v: NodeId) -> NodeId {
    if !remat(g, v) {
        return make(g, blk, v);
    }
    let m = mach(g, v).cloned();
    let Some(m) = m else { return make(g, blk, v) };
    let mut ins = vec![None; g.n_ins(v).max(1)];
    ins[0] = Some(blk);
    let ty = g.ty(v);
    add_mach(g, m, &ins, ty)
}

/// Where each instruction is: its block, and whether it ends the block.
pub struct Places {
    of: FxHashMap<NodeId, (usize, bool)>,
}

impl Places {
    pub fn new(lay: &Layout) -> Self {
        let mut of = FxHashMap::default();
        for (bi, b) in lay.blocks.iter().enumerate() {
            for (i, &n) in b.insts.iter().enumerate() {
                of.insert(n, (bi, i >= b.n_local));
            }
        }
        Places { of }
    }
}

impl Plan {
    /// A split of `v` right before instruction `user` for each input where
    /// it reads `v`, which then reads its split instead: one per input,
    /// since two inputs may want two registers (a call passing one value
    /// as two arguments).
    fn before_use(
        &mut self,
        g: &mut Graph,
        lay: &Layout,
        places: &Places,
        user: NodeId,
        v: NodeId,
    ) {
        let Some(&(bi, in_tail)) = places.of.get(&user) else {
            return;
        };
        let head = lay.blocks[bi].head;
        for i in 1..g.n_ins(user) {
            if g.input(user, i) != Some(v) {
                continue;
            }
            let s = make_or_remat(g, head, v);
            g.set_def(user, i, Some(s));
            if in_tail {
                self.at_end.entry(head).or_default().push(s);
            } else {
                self.before.entry(user).or_default().push(s);
            }
            self.count += 1;
        }
    }

    /// A split of `v` right after its definition, which every user of `v`
    /// then reads instead.
    fn after_def(&mut self, g: &mut Graph, lay: &Layout, vals: &Vals, v: NodeId) -> Option<NodeId> {
        let vi = vals.get(v)?;
        if remat(g, v) {
            // Its uses get copies of it instead.
            return None;
        }
        let bi = vals.block[vi as usize] as usize;
        let head = lay.blocks[bi].head;
        let s = make(g, head, v);
        let mut users: Vec<NodeId> = g.outputs(v).iter().copied().filter(|&u| u != s).collect();
        users.sort();
        users.dedup();
        for u in users {
            // Input 0 is a block, never a value.
            for i in 1..g.n_ins(u) {
                if g.input(u, i) == Some(v) {
                    g.set_def(u, i, Some(s));
                }
            }
        }
        if matches!(vals.def[vi as usize], Def::Phi | Def::Parm) {
            self.at_start.entry(head).or_default().push(s);
        } else {
            self.after.entry(v).or_default().push(s);
        }
        self.count += 1;
        Some(s)
    }

    /// A split of phi `p`'s input `i` at the end of the predecessor it
    /// comes from.
    fn phi_input(&mut self, g: &mut Graph, lay: &Layout, bi: usize, p: NodeId, i: usize) {
        let Some(x) = g.input(p, i) else { return };
        let Some(Some(pred)) = lay.blocks[bi].preds.get(i - 1).copied() else {
            return;
        };
        let head = lay.blocks[pred].head;
        let s = make_or_remat(g, head, x);
        g.set_def(p, i, Some(s));
        self.at_end.entry(head).or_default().push(s);
        self.count += 1;
    }

    /// A split (never a copy of a constant: the piece it starts must be
    /// able to live on the stack) of phi `p`'s input `i` at the end of
    /// the predecessor it comes from.
    fn phi_input_split(&mut self, g: &mut Graph, lay: &Layout, bi: usize, p: NodeId, i: usize) {
        let Some(x) = g.input(p, i) else { return };
        let Some(Some(pred)) = lay.blocks[bi].preds.get(i - 1).copied() else {
            return;
        };
        let head = lay.blocks[pred].head;
        let s = make(g, head, x);
        g.set_def(p, i, Some(s));
        self.at_end.entry(head).or_default().push(s);
        self.count += 1;
    }

    /// Puts the planned splits into the local schedule.
    pub fn apply(self, g: &Graph, local: &mut FxHashMap<NodeId, Vec<NodeId>>, lay: &Layout) {
        let mut touched: FxHashSet<NodeId> = FxHashSet::default();
        touched.extend(self.at_start.keys().copied());
        touched.extend(self.at_end.keys().copied());
        touched.extend(self.sunk.keys().copied());
        let places = Places::new(lay);
        for n in self.before.keys().chain(self.after.keys()) {
            if let Some(&(bi, _)) = places.of.get(n) {
                touched.insert(lay.blocks[bi].head);
            }
        }
        let mut touched: Vec<NodeId> = touched.into_iter().collect();
        touched.sort();
        for head in touched {
            let old = local.remove(&head).unwrap_or_default();
            let mut new = Vec::with_capacity(old.len() + 4);
            if let Some(v) = self.at_start.get(&head) {
                new.extend(v);
            }
            let sunk = self.sunk.get(&head);
            for n in old {
                if sunk.is_some_and(|s| s.contains(&n)) {
                    continue;
                }
                if let Some(v) = self.before.get(&n) {
                    new.extend(v);
                }
                new.push(n);
                if let Some(v) = self.after.get(&n) {
                    new.extend(v);
                }
            }
            // A sunk instruction takes the splits planned before and after
            // it along.
            let mut end: Vec<NodeId> = Vec::new();
            for &n in sunk.into_iter().flatten() {
                end.extend(self.before.get(&n).into_iter().flatten());
                end.push(n);
                end.extend(self.after.get(&n).into_iter().flatten());
            }
            end.extend(self.at_end.get(&head).into_iter().flatten());
            if !end.is_empty() {
                // Before the comparison whose flags end the block (a copy
                // of a zero is an `xor`, which changes them).
                let mut at = new.len();
                while at > 0 && crate::mach::sets_flags(g, new[at - 1]) {
                    at -= 1;
                }
                new.splice(at..at, end);
            }
            local.insert(head, new);
        }
    }
}

/// A machine node outside every laid-out function whose inputs are such
/// nodes too, or none: a constant, or a tree of operations on constants
/// (RISC-V builds a large constant from `addi` and `slli`), which global
/// code motion may share between functions. (Depth-limited: such trees
/// are a few nodes.)
fn orphan_tree(g: &Graph, vals: &Vals, x: NodeId, depth: u32) -> bool {
    depth < 8
        && vals.get(x).is_none()
        && mach(g, x).is_some()
        && (1..g.n_ins(x)).all(|i| {
            g.input(x, i)
                .is_none_or(|y| orphan_tree(g, vals, y, depth + 1))
        })
}

/// A constant-like machine node (or a tree of them, see [`orphan_tree`])
/// that global code motion left outside every function (one constant two functions
/// share lands in the block of Start): a copy of it goes right before
/// each of its users in the functions, which read that instead. And each
/// constant input of a phi gets a copy of its own at the end of the
/// predecessor it comes from.
pub fn rematerialize(target: Target, g: &mut Graph, lay: &Layout, vals: &Vals) -> Plan {
    let mut plan = Plan::default();
    let orphan = |g: &Graph, x: NodeId| orphan_tree(g, vals, x, 0);
    // A copy of `x` (with copies of its inputs, if it is a tree of
    // constants) in block `head`; the copies of the inputs are pushed on
    // `inputs`, first to last.
    fn clone_tree(g: &mut Graph, head: NodeId, x: NodeId, inputs: &mut Vec<NodeId>) -> NodeId {
        let m = mach(g, x)
            .cloned()
            .unwrap_or_else(|| Mach::new(NodeKind::ReadOnly, Op::Int, crate::mach::LType::S64));
        let mut ins = vec![None; g.n_ins(x).max(1)];
        ins[0] = Some(head);
        for (i, slot) in ins.iter_mut().enumerate().skip(1) {
            if let Some(y) = g.input(x, i) {
                let c = clone_tree(g, head, y, inputs);
                inputs.push(c);
                *slot = Some(c);
            }
        }
        let ty = g.ty(x);
        add_mach(g, m, &ins, ty)
    }
    // Where each instruction is, and how many calls come before it in its
    // block.
    let mut pos: FxHashMap<NodeId, (usize, usize)> = FxHashMap::default();
    let mut calls: Vec<Vec<u32>> = Vec::with_capacity(lay.blocks.len());
    for (bi, b) in lay.blocks.iter().enumerate() {
        let mut c = 0;
        let mut before = Vec::with_capacity(b.insts.len());
        for (k, &n) in b.insts.iter().enumerate() {
            pos.insert(n, (bi, k));
            before.push(c);
            if matches!(crate::mach::op(g, n), Some(Op::Call | Op::CallR | Op::New)) {
                c += 1;
            }
        }
        calls.push(before);
    }
    // A constant used in another block, or past a call, is computed again
    // right before that use: kept in a register, it would hold one for
    // long (a callee-saved one across a call).
    let far = |g: &Graph, x: NodeId, bi: usize, k: usize| {
        remat(g, x)
            && match pos.get(&x) {
                Some(&(xb, xk)) => xb != bi || (xk < k && calls[bi][k] != calls[bi][xk]),
                None => false,
            }
    };
    for (bi, b) in lay.blocks.iter().enumerate() {
        for (k, &n) in b.insts.iter().enumerate() {
            let uses = Ctx::new(g, target).uses(n);
            for (i, x, _) in uses {
                if !(orphan(g, x) || far(g, x, bi, k)) || g.input(n, i) != Some(x) {
                    continue;
                }
                let mut made = Vec::new();
                let c = clone_tree(g, b.head, x, &mut made);
                made.push(c);
                for j in 1..g.n_ins(n) {
                    if g.input(n, j) == Some(x) {
                        g.set_def(n, j, Some(c));
                    }
                }
                if k >= b.n_local {
                    plan.at_end.entry(b.head).or_default().extend(made);
                } else {
                    plan.before.entry(n).or_default().extend(made);
                }
                plan.count += 1;
            }
        }
        for &p in &b.phis {
            if !vals
                .get(p)
                .is_some_and(|v| vals.def[v as usize] == Def::Phi)
            {
                continue;
            }
            for i in 1..g.n_ins(p) {
                let Some(x) = g.input(p, i) else { continue };
                let Some(Some(pred)) = lay.blocks[bi].preds.get(i - 1).copied() else {
                    continue;
                };
                // A constant input gets its own copy at the end of the
                // predecessor, even one in a function: shared by two phis
                // it would join them in one live range.
                if !orphan(g, x) && !remat(g, x) {
                    continue;
                }
                let head = lay.blocks[pred].head;
                let mut made = Vec::new();
                let c = clone_tree(g, head, x, &mut made);
                made.push(c);
                g.set_def(p, i, Some(c));
                plan.at_end.entry(head).or_default().extend(made);
                plan.count += 1;
            }
        }
    }
    plan
}

/// Moves instruction `a` (a phi's input, defined while the phi is still
/// live) to the end of its block, past the phi's last uses there, if
/// nothing in the block reads it, it touches no memory, and it is not
/// there already. True if it moved.
fn sink(plan: &mut Plan, g: &Graph, lay: &Layout, places: &Places, a: NodeId) -> bool {
    let Some(&(bi, false)) = places.of.get(&a) else {
        return false;
    };
    let Some(m) = mach(g, a) else { return false };
    if matches!(
        m.role,
        NodeKind::Load { .. } | NodeKind::Store { .. } | NodeKind::New { .. }
    ) || matches!(m.op, Op::Call | Op::CallR | Op::New | Op::Split | Op::Parm)
        || crate::mach::sets_flags(g, a)
    {
        return false;
    }
    let b = &lay.blocks[bi];
    let local = &b.insts[..b.n_local];
    let mut last = local.len();
    while last > 0 && crate::mach::sets_flags(g, local[last - 1]) {
        last -= 1;
    }
    if last == 0 || local[last - 1] == a {
        return false;
    }
    let read_here = g.outputs(a).iter().any(|u| {
        places
            .of
            .get(u)
            .is_some_and(|&(ub, tail)| ub == bi && !tail)
    });
    if read_here {
        return false;
    }
    let list = plan.sunk.entry(b.head).or_default();
    if !list.contains(&a) {
        list.push(a);
        plan.count += 1;
    }
    true
}

/// A value that is the input of two phis or more of one block would join
/// them in one live range, though they live at once: each of them gets a
/// copy of its own at the end of the predecessor (colouring gives one of
/// them the value's register, and that copy goes). (Phis of different
/// blocks that take one value are mostly one variable through a chain of
/// merges, and stay joined.)
pub fn shared_phi_inputs(g: &mut Graph, lay: &Layout, vals: &Vals) -> Plan {
    let mut plan = Plan::default();
    let mut uses: FxHashMap<(usize, NodeId), u32> = FxHashMap::default();
    let phis: Vec<(usize, NodeId)> = lay
        .blocks
        .iter()
        .enumerate()
        .flat_map(|(bi, b)| b.phis.iter().map(move |&p| (bi, p)))
        .filter(|&(_, p)| {
            vals.get(p)
                .is_some_and(|v| vals.def[v as usize] == Def::Phi)
        })
        .collect();
    for &(bi, p) in &phis {
        for i in 1..g.n_ins(p) {
            if let Some(x) = g.input(p, i).filter(|&x| vals.get(x).is_some()) {
                *uses.entry((bi, x)).or_default() += 1;
            }
        }
    }
    for &(bi, p) in &phis {
        for i in 1..g.n_ins(p) {
            if g.input(p, i)
                .is_some_and(|x| uses.get(&(bi, x)).is_some_and(|&c| c > 1))
            {
                plan.phi_input(g, lay, bi, p, i);
            }
        }
    }
    plan
}

/// The calling convention's splits, before the first round.
pub fn abi_splits(target: Target, g: &mut Graph, lay: &Layout, vals: &Vals) -> Plan {
    let mut plan = Plan::default();
    for v in 0..vals.len() {
        if matches!(vals.fixed[v], Some(super::Loc::InArg(_))) {
            plan.after_def(g, lay, vals, vals.nodes[v]);
        }
    }
    for b in &lay.blocks {
        for &n in &b.insts {
            let args = Ctx::new(g, target).stack_args(n);
            for (i, _) in args {
                if let Some(x) = g.input(n, i) {
                    let s = make(g, b.head, x);
                    g.set_def(n, i, Some(s));
                    plan.at_end.entry(b.head).or_default().push(s);
                    plan.count += 1;
                }
            }
        }
    }
    plan
}

/// Splits the failed live ranges `failed` (see the module's
/// documentation).
pub fn split(
    target: Target,
    g: &mut Graph,
    lay: &Layout,
    vals: &Vals,
    lrgs: &Lrgs,
    failed: &[u32],
    round: u32,
) -> Plan {
    let mut plan = Plan::default();
    let places = Places::new(lay);
    // From this round on, a self-conflict is split everywhere at once:
    // around all its phis and two-address instructions, and after every
    // definition and before every use (the rounds must end).
    let escalate = round >= 3;
    for &r in failed {
        let members: Vec<NodeId> = lrgs.members[r as usize]
            .iter()
            .map(|&v| vals.nodes[v as usize])
            .collect();
        if lrgs.self_conflict[r as usize] {
            // Each conflict where it arises: a two-address instruction
            // whose input lives on gets a copy of that input; a phi live
            // at once with another value of its live range is split.
            let mut phis: Vec<NodeId> = Vec::new();
            let mut tied: Vec<NodeId> = Vec::new();
            let everywhere: &[(u32, u32)] = &[(u32::MAX, u32::MAX)];
            let pairs = if escalate {
                everywhere
            } else {
                &lrgs.conflicts[r as usize][..]
            };
            for &(a, b) in pairs {
                if a == u32::MAX {
                    for &n in &members {
                        let vi = vals.get(n).unwrap_or(0) as usize;
                        if vals.def[vi] == Def::Phi {
                            phis.push(n);
                        } else if mach(g, n)
                            .and_then(|m| crate::cpu::two_address(target.cpu, m))
                            .is_some()
                        {
                            tied.push(n);
                        }
                    }
                    continue;
                }
                let (an, bn) = (vals.nodes[a as usize], vals.nodes[b as usize]);
                // The input of a phi defined while the phi lives on: last
                // in its block, it may no longer overlap it.
                if vals.def[b as usize] == Def::Phi
                    && g.inputs(bn).iter().skip(1).any(|&x| x == Some(an))
                    && sink(&mut plan, g, lay, &places, an)
                {
                    continue;
                }
                let two = mach(g, an).and_then(|m| crate::cpu::two_address(target.cpu, m));
                let tied_input = two.and_then(|i| g.input(an, i));
                if tied_input.is_some_and(|x| vals.get(x).is_some_and(|x| lrgs.of[x as usize] == r))
                {
                    tied.push(an);
                } else if vals.def[a as usize] == Def::Phi {
                    phis.push(an);
                } else if vals.def[b as usize] == Def::Phi {
                    phis.push(bn);
                } else {
                    // No phi or two-address instruction at hand: all of them.
                    for &n in &members {
                        let vi = vals.get(n).unwrap_or(0) as usize;
                        if vals.def[vi] == Def::Phi {
                            phis.push(n);
                        } else if mach(g, n)
                            .and_then(|m| crate::cpu::two_address(target.cpu, m))
                            .is_some()
                        {
                            tied.push(n);
                        }
                    }
                }
            }
            phis.sort();
            phis.dedup();
            tied.sort();
            tied.dedup();
            for n in tied {
                let two = mach(g, n).and_then(|m| crate::cpu::two_address(target.cpu, m));
                if let Some(x) = two.and_then(|i| g.input(n, i)) {
                    plan.before_use(g, lay, &places, n, x);
                }
            }
            for n in phis {
                let vi = vals.get(n).unwrap_or(0) as usize;
                plan.after_def(g, lay, vals, n);
                let bi = vals.block[vi] as usize;
                for i in 1..g.n_ins(n) {
                    plan.phi_input(g, lay, bi, n, i);
                }
            }
            if !escalate {
                continue;
            }
        }
        for &n in &members {
            let vi = vals.get(n).unwrap_or(0) as usize;
            if vals.fixed[vi].is_some() {
                continue;
            }
            // Uses first (the users as they are now), then the definition.
            let mut users: Vec<NodeId> = g.outputs(n).to_vec();
            users.sort();
            users.dedup();
            for u in users {
                let uv = vals.get(u);
                let is_split = matches!(crate::mach::op(g, u), Some(Op::Split));
                let same_phi = uv
                    .is_some_and(|x| vals.def[x as usize] == Def::Phi && lrgs.of[x as usize] == r);
                if is_split || same_phi || !places.of.contains_key(&u) {
                    continue;
                }
                let reads = Ctx::new(g, target).uses(u).iter().any(|&(_, x, _)| x == n);
                if reads {
                    plan.before_use(g, lay, &places, u, n);
                }
            }
            if matches!(vals.def[vi], Def::Op | Def::Parm) {
                plan.after_def(g, lay, vals, n);
            } else if vals.def[vi] == Def::Phi {
                // A phi joins its inputs into its live range: copies of
                // the inputs at the ends of the predecessors and of the
                // phi for its users leave a piece made of phis and
                // splits, which may take a stack slot.
                let bi = vals.block[vi] as usize;
                for i in 1..g.n_ins(n) {
                    let input_is_split = g
                        .input(n, i)
                        .is_some_and(|x| crate::mach::op(g, x) == Some(Op::Split));
                    if !input_is_split {
                        plan.phi_input_split(g, lay, bi, n, i);
                    }
                }
                let read_by_others = g.outputs(n).iter().any(|&u| {
                    crate::mach::op(g, u) != Some(Op::Split)
                        && vals.get(u).is_none_or(|x| lrgs.of[x as usize] != r)
                });
                if read_by_others {
                    plan.after_def(g, lay, vals, n);
                }
            }
        }
    }
    plan
}

/// Flags live in no register that a copy can reach: a comparison must be
/// followed by its users before anything that changes the flags (x86
/// arithmetic, another comparison). Scheduling does not promise that (a
/// `Set` may land in a later block, or an `add` between), so before the
/// first round each user is brought next to its comparison: a `Set`
/// (which reads nothing but the flags) moves up to right after it, and a
/// branch gets its own copy of a register-only comparison right before
/// it. A comparison left with no users is dropped.
pub fn flags_next_to_users(
    target: Target,
    g: &mut Graph,
    local: &mut FxHashMap<NodeId, Vec<NodeId>>,
    lay: &Layout,
) {
    let places = Places::new(lay);
    // Does anything between positions `from` and `to` (exclusive) of
    // block `bi` change the flags?
    let flags_changed = |g: &Graph, bi: usize, from: usize, to: usize| {
        lay.blocks[bi].insts[from + 1..to].iter().any(|&x| {
            crate::mach::sets_flags(g, x)
                || mach(g, x)
                    .and_then(|m| crate::cpu::kill_mask(target, m))
                    .is_some_and(|k| {
                        mach(g, lay.blocks[bi].insts[from])
                            .and_then(|fm| {
                                crate::cpu::out_mask(target, g, lay.blocks[bi].insts[from], fm)
                            })
                            .is_some_and(|f| !k.and(f).is_empty())
                    })
        })
    };
    let index = |bi: usize, n: NodeId| lay.blocks[bi].insts.iter().position(|&x| x == n);
    let mut moved: Vec<(NodeId, NodeId)> = Vec::new();
    let mut cloned: Vec<(NodeId, NodeId, bool)> = Vec::new();
    for (bi, b) in lay.blocks.iter().enumerate() {
        for (k, &f) in b.insts.iter().enumerate() {
            if !crate::mach::sets_flags(g, f) {
                continue;
            }
            let mut users: Vec<NodeId> = g.outputs(f).to_vec();
            users.sort();
            users.dedup();
            for u in users {
                let Some(&(ub, in_tail)) = places.of.get(&u) else {
                    continue;
                };
                // (A store after a `CmpMem` keeps it as an ordering input.)
                let reads_flags = Ctx::new(g, target).uses(u).iter().any(|&(_, x, _)| x == f);
                if !reads_flags {
                    continue;
                }
                if ub == bi && index(bi, u).is_some_and(|uk| uk > k && !flags_changed(g, bi, k, uk))
                {
                    continue;
                }
                let reads_only_flags =
                    (1..g.n_ins(u)).all(|i| g.input(u, i).is_none_or(|x| x == f));
                if !in_tail && reads_only_flags {
                    moved.push((f, u));
                } else if crate::mach::op(g, f) != Some(Op::CmpMem) {
                    cloned.push((f, u, in_tail));
                }
            }
        }
    }
    for (f, u) in moved {
        let (Some(&(fb, _)), Some(&(ub, _))) = (places.of.get(&f), places.of.get(&u)) else {
            continue;
        };
        let (fh, uh) = (lay.blocks[fb].head, lay.blocks[ub].head);
        if let Some(list) = local.get_mut(&uh) {
            list.retain(|&x| x != u);
        }
        g.set_def(u, 0, Some(fh));
        let list = local.entry(fh).or_default();
        let at = list
            .iter()
            .position(|&x| x == f)
            .map_or(list.len(), |p| p + 1);
        list.insert(at, u);
    }
    for (f, u, in_tail) in cloned {
        let Some(&(ub, _)) = places.of.get(&u) else {
            continue;
        };
        let uh = lay.blocks[ub].head;
        let m = mach(g, f).cloned().expect("a comparison is a machine node");
        let mut ins: Vec<Option<NodeId>> = (0..g.n_ins(f)).map(|i| g.input(f, i)).collect();
        ins[0] = Some(uh);
        let ty = g.ty(f);
        let c = add_mach(g, m, &ins, ty);
        for i in 1..g.n_ins(u) {
            if g.input(u, i) == Some(f) {
                g.set_def(u, i, Some(c));
            }
        }
        let list = local.entry(uh).or_default();
        let at = if in_tail {
            list.len()
        } else {
            list.iter().position(|&x| x == u).unwrap_or(list.len())
        };
        list.insert(at, c);
        if g.is_unused(f) {
            g.discard(f);
        }
    }
}
