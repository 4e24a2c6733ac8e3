//! Machine-IR passes: nine hooks, transactional mutations and a sealed
//! final verifier (seed `002_*`).
//!
//! The backend keeps a sea of nodes until it encodes, so the machine IR
//! here is a *view*: at each hook the driver builds, from the graph, the
//! schedule and the allocation, one [`MachineFunction`] per function of
//! the program ([`build`]): its blocks in order with their successors and
//! predecessors, each block's instructions with their flags, every
//! operand as one tagged [`Operand`], the stack objects, the
//! constant-pool entries, the callee-saved registers and the machine
//! properties. Passes ([`pass`]) are registered at one of nine [`Hook`]s
//! and run there in registration order; they read the view freely, ask
//! for analyses ([`analysis`]) where the hook has them, and change it only
//! through a [`Mutation`] ([`mutation`]): edits staged on a copy of one
//! function, which the commit checks structurally and with the machine
//! verifier ([`verify`]) before it replaces the function. A refused
//! commit leaves the function exactly as it was, because nothing touched
//! it.
//!
//! Which edits reach the machine code: from `post_scheduler` to
//! `preemit` the order of each block's scheduled instructions is read
//! back into the local schedule the allocator and the encoder walk
//! ([`writeback`]), so erasing or moving one of them changes the code.
//! Other edits at those hooks (new blocks, new instructions, changed
//! operands) are refused at commit, with the reason. Before scheduling
//! (`post_isel`, `post_legalize`, `pre_scheduler`) and at `final` the
//! view is for looking: a commit changes what later passes at the same
//! hook see, and nothing else.
//!
//! After the `final` hook the driver calls [`pass::final_verify`]: it
//! builds the view of what was encoded and runs the same verifier on
//! every function. It is a function of the driver, not a pass: nothing a
//! pass does can switch it off, replace it or skip it.

pub mod analysis;
pub mod build;
pub mod examples;
pub mod function;
pub mod mutation;
pub mod pass;
pub mod verify;
pub mod writeback;

pub use analysis::{Analysis, AnalysisResult};
pub use function::{
    BlockId, InstFlags, InstId, MachineBlock, MachineFunction, MachineInst, MachineModule, Operand,
    Origin, Property, Reg, RegOperand, StackKind, StackObject,
};
pub use mutation::{Mutation, Proof};
pub use pass::{
    final_verify, run_hook, Level, MachinePass, PassContext, PassDesc, Pipeline, Preserved,
};
pub use verify::{verify, VerifyError};

use std::fmt;

/// The nine places in the pipeline where a pass may run, in the order the
/// driver reaches them.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Hook {
    /// After instruction selection (`inst_select`).
    PostIsel,
    /// After legalization (`legalize`).
    PostLegalize,
    /// Before global code motion (`gcm`).
    PreScheduler,
    /// After global code motion and the local schedule (`local_sched`).
    PostScheduler,
    /// Before register allocation (`reg_alloc`).
    PreRegalloc,
    /// After register allocation.
    PostRegalloc,
    /// Once each function's frame is laid out (its prologue and epilogues
    /// are known), as encoding starts.
    PostPrologEpilog,
    /// Right before the machine code is emitted.
    Preemit,
    /// The last slot, after encoding.
    Final,
}

impl Hook {
    pub const ALL: [Hook; 9] = [
        Hook::PostIsel,
        Hook::PostLegalize,
        Hook::PreScheduler,
        Hook::PostScheduler,
        Hook::PreRegalloc,
        Hook::PostRegalloc,
        Hook::PostPrologEpilog,
        Hook::Preemit,
        Hook::Final,
    ];

    /// The hook's name, as `--print-after` takes it.
    pub fn name(self) -> &'static str {
        match self {
            Hook::PostIsel => "post_isel",
            Hook::PostLegalize => "post_legalize",
            Hook::PreScheduler => "pre_scheduler",
            Hook::PostScheduler => "post_scheduler",
            Hook::PreRegalloc => "pre_regalloc",
            Hook::PostRegalloc => "post_regalloc",
            Hook::PostPrologEpilog => "post_prolog_epilog",
            Hook::Preemit => "preemit",
            Hook::Final => "final",
        }
    }

    /// The hook of this name. `final_verify` is none: it is no hook.
    pub fn from_name(name: &str) -> Option<Hook> {
        Hook::ALL.into_iter().find(|h| h.name() == name)
    }

    /// The program has blocks and an order in them (global code motion
    /// and the local schedule ran).
    pub fn scheduled(self) -> bool {
        self >= Hook::PostScheduler
    }

    /// Registers are physical.
    pub fn allocated(self) -> bool {
        self >= Hook::PostRegalloc
    }

    /// A committed edit is read back into the program (see the module's
    /// documentation); elsewhere the view is for looking.
    pub fn writes_back(self) -> bool {
        self.scheduled() && self != Hook::Final
    }
}

impl fmt::Display for Hook {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a request of a pass was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MirError {
    /// The analysis does not exist at this hook (live ranges before the
    /// instructions have an order, say).
    Unavailable { analysis: Analysis, hook: Hook },
    /// A staged edit named a block, instruction, operand or object that
    /// is not there.
    Invalid(String),
    /// The commit's structural pre-check or the machine verifier refused
    /// the mutation; it was rolled back.
    Refused(VerifyError),
    /// The edit is valid machine IR but cannot reach the code from this
    /// hook (see the module's documentation); it was rolled back.
    NotWritable(String),
    /// A property was claimed and its structural check failed.
    PropertyRefused { property: Property, why: String },
    /// A pass broke a rule of the pipeline (claimed to preserve all after
    /// a committed change, is not deterministic...).
    Pass(String),
}

impl fmt::Display for MirError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MirError::Unavailable { analysis, hook } => {
                write!(f, "analysis {} is unavailable at {hook}", analysis.name())
            }
            MirError::Invalid(why) => write!(f, "invalid edit: {why}"),
            MirError::Refused(e) => write!(f, "mutation rolled back: {e}"),
            MirError::NotWritable(why) => write!(f, "mutation rolled back: {why}"),
            MirError::PropertyRefused { property, why } => {
                write!(f, "property {} refused: {why}", property.name())
            }
            MirError::Pass(why) => f.write_str(why),
        }
    }
}
