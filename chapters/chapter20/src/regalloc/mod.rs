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

pub mod checker;

use crate::graph::NodeId;
use crate::mach::RegMask;
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
