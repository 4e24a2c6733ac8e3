//! Register allocation (chapter 20): every value of the scheduled machine
//! program gets a register or a stack slot.
//!
//! This module holds what the allocator hands to the rest of the backend
//! and to its independent checker ([`checker`]): the location of every
//! value ([`Loc`]), each function's frame ([`Frame`]), and the counts of
//! the copies (splits) left in the program. The allocator rewrites the
//! machine graph and the local schedule as it splits live ranges: a split
//! is a machine node `Op::Split` with one value input, scheduled in a
//! block like any other node.
//!
//! The allocator ([`allocate`]) is Chaitin–Briggs with splitting, in
//! rounds, one concept per module: [`build`] lays the program out (blocks,
//! their phis and instructions, the values and their register masks),
//! [`live_range`] joins values into live ranges (phis with their inputs,
//! two-address results with their input), [`ifg`] computes liveness and
//! interference (and strips the registers calls clobber), [`color`]
//! colours, [`split`] splits what failed, and [`frame`] removes the splits
//! that copy nothing, counts the rest and sizes the frames.
//!
//! Which nodes get a location: every value the schedule defines, with one
//! precision the interface leaves open: a parameter with no register
//! result gets none (memory, and the return address on x86, which stays
//! on the stack, and on RISC-V, which stays in `ra`: the prologue of a
//! function that calls saves `ra`, as ARM's saves `x30`; neither is given
//! to a value). A phi input on a path never taken may be no value at
//! all (a `top` constant), and has no location.

pub mod build;
pub mod checker;
pub mod coalesce;
pub mod color;
pub mod frame;
pub mod ifg;
pub mod live_range;
pub mod split;

use crate::error::Error;
use crate::gcm::Schedule;
use crate::graph::{Graph, NodeId};
use crate::mach::{RegMask, Target};
use rustc_hash::FxHashMap;

/// Where a value lives.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Loc {
    /// A register, numbered as the CPU's `REGS` table numbers it.
    Reg(u8),
    /// A spill slot of the function's frame: 8 bytes, numbered from 0.
    Slot(u32),
    /// The `k`-th argument its caller passed on the stack (past the
    /// argument registers), counted from 0.
    InArg(u32),
    /// The `k`-th stack-passed argument of a call this function makes,
    /// counted from 0 (the bottom of the frame, where the callee finds it).
    OutArg(u32),
}

/// One function's frame.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Frame {
    /// Spill slots used (`Loc::Slot(0..slots)`).
    pub slots: u32,
    /// The most stack-passed arguments any of its calls passes.
    pub out_args: u32,
    /// The callee-saved registers it writes, which its prologue saves and
    /// its epilogue restores.
    pub callee_saved: RegMask,
}

/// The result of allocating a whole program.
#[derive(Clone, Debug, Default)]
pub struct Allocation {
    /// The location of every node that defines a value: machine nodes
    /// with a result, value phis, parameters, projections with a value,
    /// splits.
    pub loc: FxHashMap<NodeId, Loc>,
    /// Each function's frame, by its Fun node.
    pub frames: FxHashMap<NodeId, Frame>,
    /// Splits left in the program after allocation (a split whose two
    /// sides got the same location is removed and not counted).
    pub splits: u32,
    /// The same, each split weighted by 8^d where d is its block's loop
    /// depth (0 outside every loop), as seed `003_*` counts.
    pub splits_weighted: u64,
    /// Rounds of colouring it took (1 when nothing had to be split).
    pub rounds: u32,
}

/// Rounds of colouring and splitting before giving up.
const MAX_ROUNDS: u32 = 12;

/// Allocates registers for the scheduled machine program `g` (schedule
/// `s`, local order `local`), for `target`: builds live ranges and their
/// interference, colours, and splits what failed, until everything has a
/// place. Splits go into `g` and `local`.
///
/// Each round splits every failed live range (see [`split`]); a live
/// range already cut down to splits may take a stack slot, and the pieces
/// next to definitions and uses are as short as a live range can be, so
/// the rounds end. Should they not (a constraint no split can meet), the
/// allocation fails with an error rather than looping.
pub fn allocate(
    g: &mut Graph,
    s: &Schedule,
    local: &mut FxHashMap<NodeId, Vec<NodeId>>,
    target: Target,
    coalesce: bool,
) -> Result<Allocation, Error> {
    // Constants left outside every function get a copy at each use.
    let (lay, vals) = {
        let cx = build::Ctx::new(g, target);
        let lay = build::layout(&cx, s, local);
        let vals = build::values(&cx, &lay);
        (lay, vals)
    };
    split::rematerialize(target, g, &lay, &vals).apply(g, local, &lay);
    prune(g, local);
    // Comparisons next to the users of their flags.
    let lay = {
        let cx = build::Ctx::new(g, target);
        build::layout(&cx, s, local)
    };
    split::flags_next_to_users(target, g, local, &lay);
    prune(g, local);
    // The calling convention's splits: stack arguments in and out.
    let (lay, vals) = {
        let cx = build::Ctx::new(g, target);
        let lay = build::layout(&cx, s, local);
        let vals = build::values(&cx, &lay);
        (lay, vals)
    };
    let plan = split::abi_splits(target, g, &lay, &vals);
    plan.apply(g, local, &lay);
    prune(g, local);
    // A value two phis take gets a copy for each.
    let (lay, vals) = {
        let cx = build::Ctx::new(g, target);
        let lay = build::layout(&cx, s, local);
        let vals = build::values(&cx, &lay);
        (lay, vals)
    };
    split::shared_phi_inputs(g, &lay, &vals).apply(g, local, &lay);
    let caller = crate::cpu::caller_saved(target);
    for round in 1..=MAX_ROUNDS {
        if round > 1 {
            // The last round's splits may have come between a comparison
            // and a user of its flags.
            let lay = {
                let cx = build::Ctx::new(g, target);
                build::layout(&cx, s, local)
            };
            split::flags_next_to_users(target, g, local, &lay);
            prune(g, local);
        }
        let cx = build::Ctx::new(g, target);
        let lay = build::layout(&cx, s, local);
        let vals = build::values(&cx, &lay);
        let mut lrgs = live_range::build(&cx, &lay, &vals);
        let mut graph = ifg::build(&cx, &lay, &vals, &mut lrgs);
        // Chapter 21: copies whose two sides may share a register go
        // (from round 4 on, what stands in the way is split instead).
        if coalesce && round < 4 {
            coalesce::coalesce(g, &lay, &vals, &mut lrgs, &mut graph.adj);
        }
        let coloring = color::color(&lrgs, &graph.adj, caller);
        if coloring.failed.is_empty() {
            return Ok(frame::finish(
                g,
                local,
                &lay,
                &vals,
                &lrgs,
                &coloring.loc,
                target,
                round,
                coalesce,
            ));
        }
        // From the fourth round on, what stands in the way is split too.
        let to_split = if round >= 4 {
            blockers(&lrgs, &graph.adj, &coloring)
        } else {
            coloring.failed.clone()
        };
        let plan = split::split(target, g, &lay, &vals, &lrgs, &to_split, round);
        if plan.count == 0 {
            return Err(Error::new(
                "register allocation: a live range cannot be split further",
                0,
            ));
        }
        plan.apply(g, local, &lay);
        prune(g, local);
    }
    Err(Error::new(
        format!("register allocation did not finish in {MAX_ROUNDS} rounds"),
        0,
    ))
}

/// The failed live ranges, and with each one that may take a single
/// register the neighbours that took it: splitting only the failed one
/// leaves its pieces as pinned as it was (a division's quotient in `rax`
/// while a chain of two-address operations lives in `rax` across it), so
/// the one in the way is split too.
fn blockers(lrgs: &live_range::Lrgs, adj: &[Vec<u32>], coloring: &color::Coloring) -> Vec<u32> {
    let mut out = coloring.failed.clone();
    for &r in &coloring.failed {
        let mask = lrgs.mask[r as usize];
        if mask.len() != 1 || lrgs.self_conflict[r as usize] {
            continue;
        }
        for &x in &adj[r as usize] {
            let in_the_way =
                matches!(coloring.loc[x as usize], Some(Loc::Reg(c)) if mask.contains(c));
            if in_the_way && lrgs.fixed[x as usize].is_none() {
                out.push(x);
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Drops from the local schedule the nodes that died as splitting and
/// rematerializing took away their last use.
fn prune(g: &Graph, local: &mut FxHashMap<NodeId, Vec<NodeId>>) {
    for list in local.values_mut() {
        list.retain(|&n| !g.is_dead(n));
    }
}
