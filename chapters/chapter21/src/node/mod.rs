//! The node kinds and what each one does.
//!
//! A node's behaviour has three parts, kept with its kind in one file per
//! family: `compute` (the type of the values it produces, from the types of
//! its inputs), `idealize` (a local rewrite into a simpler equivalent graph,
//! or `None`) and `print` (the expression form Simple prints). This module
//! names the kinds and dispatches to those files; [`peephole`] is the driver
//! that applies them to a freshly built node, and [`peephole_opt`] the single
//! step that the iterative optimizer (`iter.rs`) repeats. Both look every
//! node up in the value-numbering table, so a computation made twice becomes
//! one node.

mod add;
mod add_f;
mod bitwise;
mod bool_op;
pub mod call;
pub mod call_end;
pub mod cast;
mod constant;
mod div;
mod div_f;
pub mod fref;
pub mod fun;
pub mod guard_stack;
mod if_;
mod load;
mod loop_;
mod mem_merge;
mod minus;
mod minus_f;
mod mul;
mod mul_f;
mod new;
mod not;
pub mod parm;
mod phi;
mod proj;
mod read_only;
mod region;
pub mod return_;
pub mod round_f32;
pub mod scope;
pub mod scope_min;
pub mod shift;
mod start;
mod stop;
mod store;
pub mod struct_;
mod sub;
mod sub_f;
mod to_float;

pub use bool_op::BoolOp;
pub use cast::new as cast_new;
pub use if_::new as if_new;
pub use load::new as load_new;
pub use load::passes as load_passes;
pub use loop_::new as loop_new;
pub use mem_merge::{new as mem_merge_new, slice as mem_merge_slice};
pub use new::{
    field_count as new_field_count, mem_input as new_mem_input, new as new_new, zero as new_zero,
};
pub use phi::new as phi_new;
pub use proj::{new as proj_new, new_cproj as cproj_new};
pub use read_only::new as read_only_new;
pub use region::new as region_new;
pub use return_::new as return_new;
pub use round_f32::new as round_f32_new;
pub use scope::ScopeNames;
pub use start::new as start_new;
pub use stop::{new as stop_new, ret};
pub use store::{new as store_new, Field as StoreField};
pub use to_float::new as to_float_new;

use crate::graph::{Graph, NodeId};
use crate::types::{Int, TypeId, Types};

/// What a node is. The inputs are kept in the graph; a kind carries only the
/// data that is not an edge.
#[derive(Clone, Debug)]
pub enum NodeKind {
    /// The program's entry; produces the tuple of control, memory and the
    /// argument. Chapter 18: every function's Fun hangs off it (the
    /// callers not known), `main`'s first.
    Start {
        args: TypeId,
    },
    /// The program's exit; its inputs are the functions' `Return`s.
    Stop,
    /// A function's one exit: control `in(0)`, memory `in(1)`, the value
    /// `in(2)` and the return program counter `in(3)` (chapter 18).
    Return,
    /// A constant; its only input is Start, to make it reachable in walks.
    Constant(TypeId),
    Add,
    Sub,
    Mul,
    Div,
    /// Unary minus.
    Minus,
    /// Logical not: 1 for 0, 0 for anything else.
    Not,
    /// A comparison giving 0 or 1.
    Bool(BoolOp),
    /// Float arithmetic (chapter 12): `+`, `-`, `*` and `/` of two 64-bit
    /// IEEE floats, each rounded to the nearest double.
    AddF,
    SubF,
    MulF,
    DivF,
    /// Float negation: flips the sign, so `-(0.0)` is `-0.0`.
    MinusF,
    /// An int converted to a float.
    ToFloat,
    /// A reference seen read-only (chapter 17).
    ReadOnly,
    /// A comparison of two floats, giving 0 or 1.
    BoolF(BoolOp),
    /// The bitwise operators and the shifts on 64-bit integers (chapter
    /// 14): `&`, `|`, `^`, `<<`, `>>` (arithmetic) and `>>>` (logical).
    And,
    Or,
    Xor,
    Shl,
    Sar,
    Shr,
    /// A float rounded to the nearest 32-bit float (chapter 14).
    RoundF32,
    /// Branches on `in(1)`; its true and false arms are projections.
    If,
    /// Selects data element `idx` of Start (`arg` or the whole memory) or
    /// of a New (the pointer, or a field's memory slice). Start's labels
    /// are fixed names; a New's projections are named from the New (an
    /// empty `label`), see [`label`].
    Proj {
        idx: usize,
        label: &'static str,
    },
    /// A control projection: arm `idx` of an If (True 0, False 1) or of a
    /// Never, or Start's initial control (`$ctrl`). Each begins a block.
    CProj {
        idx: usize,
        label: &'static str,
    },
    /// Dead control. There is one, made with Start and kept; input 0 is
    /// Start.
    XCtrl,
    /// A branch that is never taken, which global code motion adds to give
    /// an infinite loop an exit: inputs are the loop's back-edge control,
    /// the constant 0, and the loop's phis (so that they stay in use).
    Never,
    /// Merges control; `in(0)` is unused.
    Region,
    /// The head of a loop: a Region whose input 1 enters the loop and input
    /// 2 is the back edge (empty while the body is being parsed).
    Loop,
    /// Selects `in(i)` when control arrives through `region.in(i)`. Its
    /// type stays within `declared`: an int phi stays an int, a memory phi
    /// memory.
    Phi {
        label: Box<str>,
        declared: TypeId,
        /// Chapter 18: `Some(i)` for a Parm, parameter `i` of the Fun that
        /// is its region (0 the return program counter, 1 the memory, 2..
        /// the arguments); see [`parm`].
        parm: Option<u32>,
    },
    /// Chapter 18: the entry of a function, a Region over its callers.
    /// Input 1 is Start while callers may be unknown (always, unless the
    /// function is inlined), inputs 2.. the Calls linked to it. `sig` is
    /// its constant function pointer type, whose return type improves as
    /// the function's Return does; `ret` is its Return ([`fun`]).
    Fun {
        sig: TypeId,
        ret: Option<NodeId>,
        folding: bool,
    },
    /// Chapter 18: a call: inputs control, memory, the arguments, and last
    /// the function pointer ([`call`]).
    Call {
        at: u32,
    },
    /// Chapter 18: where a call comes back: input 0 is the Call, inputs
    /// 1.. the Returns of the functions linked to it. Its tuple is control,
    /// all of memory, and the result ([`call_end`]).
    CallEnd {
        folding: bool,
    },
    /// Chapter 18: a name used before its `val` declares it (a forward
    /// reference to a function): a constant of type Bottom until the
    /// declaration gives it input 1 ([`fref`]).
    FRef {
        name: Box<str>,
        at: u32,
    },
    /// Allocates a struct or an array, every field zero (chapter 15: a
    /// multi-node). `in(0)` is the control that anchors it, `in(1)` the
    /// size in bytes, `in(2+i)` the memory slice of field `i` (alias class
    /// `first_alias + i`). (Chapter 16's initial values, `in(2+n+i)`, are
    /// stores from chapter 19.) Its tuple: control, the pointer (type
    /// `ptr`), then each field's slice with the new object's field zero.
    New {
        ptr: TypeId,
        first_alias: u32,
    },
    /// Reads field `name` (memory alias class `alias`): `in(1)` is the
    /// memory slice, `in(2)` the pointer, `in(3)` the byte offset (chapter
    /// 15; an array element's `in(0)` is its control). Its value has type `declared`, the
    /// lowest of the field's type (a pointer loaded may be null). `at` is
    /// the source offset, for error messages.
    Load {
        name: Box<str>,
        alias: u32,
        declared: TypeId,
        at: u32,
    },
    /// Writes `in(3)` into field `name` of `in(2)`, in memory slice `in(1)`,
    /// at byte offset `in(4)` (chapter 15); its value is the new state of
    /// that slice. `declared` is the field's type, which the stored value
    /// must fit.
    Store {
        name: Box<str>,
        alias: u32,
        declared: TypeId,
        at: u32,
    },
    /// All of memory: `in(1)` is the state of every alias class not
    /// listed, `in(a)` (if present) the state of alias class `a`.
    MemMerge,
    /// Narrows `in(1)` to `ty` (a type known to hold under control `in(0)`),
    /// e.g. a pointer known not to be null inside `if (ptr)`.
    Cast {
        ty: TypeId,
    },
    /// The parser's symbol tables; its inputs are the bound values.
    Scope(Box<ScopeNames>),
    /// The parser's state of memory, one slot per alias class (chapter
    /// 16, [`scope_min`]).
    ScopeMin,
    /// The parser's record of the default values of the fields of struct
    /// `obj`, its inputs (chapter 16, [`struct_`]).
    Struct {
        obj: TypeId,
    },
    /// Chapter 19: an instruction of the target CPU, standing for an ideal
    /// node (its role); see [`crate::mach`].
    Mach(Box<crate::mach::Mach>),
}

impl NodeKind {
    /// The data that, with the operator and the inputs, identifies the
    /// computation for value numbering.
    pub fn gvn_data(&self) -> u64 {
        match self {
            NodeKind::Constant(t) => u64::from(t.index()),
            NodeKind::Proj { idx, .. } | NodeKind::CProj { idx, .. } => *idx as u64,
            NodeKind::Bool(op) | NodeKind::BoolF(op) => *op as u64,
            NodeKind::Load { alias, .. } | NodeKind::Store { alias, .. } => u64::from(*alias),
            NodeKind::Cast { ty } => u64::from(ty.index()),
            NodeKind::Struct { obj } => u64::from(obj.index()),
            // Chapter 18: a call hands back all of memory, so the phis of
            // two alias classes can merge the very same inputs; each is
            // still a slice of its own class, and typed so.
            NodeKind::Phi {
                label, declared, ..
            } if label.starts_with('$') => u64::from(declared.index()),
            _ => 0,
        }
    }

    /// What the node is to the phases that work on ideal and machine
    /// graphs alike (chapter 19): a machine node's role, the ideal node
    /// it stands for; any other node is itself.
    pub fn role(&self) -> &NodeKind {
        match self {
            NodeKind::Mach(m) => &m.role,
            k => k,
        }
    }

    /// A merge point of control: a Region or a Loop.
    pub fn is_region(&self) -> bool {
        matches!(
            self.role(),
            NodeKind::Region | NodeKind::Loop | NodeKind::Fun { .. }
        )
    }

    /// A control node: the ones drawn as yellow boxes.
    pub fn is_cfg(&self) -> bool {
        matches!(
            self.role(),
            NodeKind::Start { .. }
                | NodeKind::Stop
                | NodeKind::Return
                | NodeKind::If
                | NodeKind::Never
                | NodeKind::CProj { .. }
                | NodeKind::XCtrl
                | NodeKind::Region
                | NodeKind::Loop
                | NodeKind::Fun { .. }
                | NodeKind::Call { .. }
                | NodeKind::CallEnd { .. }
        )
    }

    /// Two nodes compute the same operator (same class in Simple).
    fn same_op(&self, other: &NodeKind) -> bool {
        match (self, other) {
            (NodeKind::Bool(a), NodeKind::Bool(b)) => a == b,
            (NodeKind::BoolF(a), NodeKind::BoolF(b)) => a == b,
            _ => std::mem::discriminant(self) == std::mem::discriminant(other),
        }
    }
}

/// A source offset as a node keeps it: four bytes are plenty (a program
/// longer than 4 GiB points its errors at the 4 GiB mark).
pub fn source_offset(at: usize) -> u32 {
    u32::try_from(at).unwrap_or(u32::MAX)
}

/// A short name, e.g. `Add`, `Region` or `EQ`.
pub fn label(g: &Graph, n: NodeId) -> String {
    match g.kind(n) {
        NodeKind::Mach(m) => crate::mach::label(g, n, m),
        NodeKind::Start { .. } => "Start".into(),
        NodeKind::Stop => "Stop".into(),
        NodeKind::Return => "Return".into(),
        NodeKind::Constant(t) => format!("#{}", g.types.to_string(*t)),
        NodeKind::Add => "Add".into(),
        NodeKind::Sub => "Sub".into(),
        NodeKind::Mul => "Mul".into(),
        NodeKind::Div => "Div".into(),
        NodeKind::Minus => "Minus".into(),
        NodeKind::Not => "Not".into(),
        NodeKind::Bool(op) => op.name().into(),
        NodeKind::AddF => "AddF".into(),
        NodeKind::SubF => "SubF".into(),
        NodeKind::MulF => "MulF".into(),
        NodeKind::DivF => "DivF".into(),
        NodeKind::MinusF => "MinusF".into(),
        NodeKind::ToFloat => "ToFloat".into(),
        NodeKind::ReadOnly => "ReadOnly".into(),
        NodeKind::BoolF(op) => op.float_name().into(),
        NodeKind::And => "And".into(),
        NodeKind::Or => "Or".into(),
        NodeKind::Xor => "Xor".into(),
        NodeKind::Shl => "Shl".into(),
        NodeKind::Sar => "Sar".into(),
        NodeKind::Shr => "Shr".into(),
        NodeKind::RoundF32 => "RoundF32".into(),
        NodeKind::If => "If".into(),
        NodeKind::Proj { idx, .. } if new_proj(g, n) => new_proj_label(g, n, *idx),
        NodeKind::Proj { label, .. } | NodeKind::CProj { label, .. } => (*label).into(),
        NodeKind::XCtrl => "Xctrl".into(),
        NodeKind::Never => "Never".into(),
        NodeKind::Region => "Region".into(),
        NodeKind::Loop => "Loop".into(),
        NodeKind::Phi { parm: Some(_), .. } => parm::label(g, n),
        NodeKind::Phi { label, .. } => format!("Phi_{label}"),
        NodeKind::Fun { .. } => fun::label(g, n),
        NodeKind::Call { .. } => "Call".into(),
        NodeKind::CallEnd { .. } => "CallEnd".into(),
        NodeKind::FRef { name, .. } => format!("FRef_{name}"),
        NodeKind::Scope(_) => "Scope".into(),
        NodeKind::ScopeMin => "MEM".into(),
        NodeKind::New { .. } => "new".into(),
        NodeKind::Load { name, .. } => name.to_string(),
        NodeKind::Store { name, .. } => format!(".{name}="),
        NodeKind::Cast { ty } => format!("({})", g.types.str(*ty)),
        NodeKind::MemMerge => "ALLMEM".into(),
        NodeKind::Struct { obj } => g.types.str(*obj),
    }
}

/// A name unique in the graph, e.g. `Add12` or `Con_7`.
pub fn unique_name(g: &Graph, n: NodeId) -> String {
    match g.kind(n) {
        NodeKind::Constant(_) => format!("Con_{n}"),
        NodeKind::Cast { .. } => format!("Cast_{n}"),
        // Their labels are field names, which could clash with other
        // labels and, for a Store, are no Graphviz name.
        NodeKind::Load { .. } => format!("Load{n}"),
        NodeKind::Store { .. } => format!("Store{n}"),
        // Graphviz does not like `$` in names.
        _ => format!("{}{n}", label(g, n).replace('$', "")),
    }
}

/// The label drawn in a graph picture, e.g. `+` or `&phi;_a`.
pub fn glabel(g: &Graph, n: NodeId) -> String {
    match g.kind(n) {
        NodeKind::Add => "+".into(),
        NodeKind::Sub | NodeKind::Minus => "-".into(),
        NodeKind::Mul => "*".into(),
        NodeKind::Div => "//".into(),
        NodeKind::Not => "!".into(),
        NodeKind::And
        | NodeKind::Or
        | NodeKind::Xor
        | NodeKind::Shl
        | NodeKind::Sar
        | NodeKind::Shr => bit_symbol(g.kind(n)).unwrap_or_default().into(),
        NodeKind::Bool(op) | NodeKind::BoolF(op) => op.symbol().into(),
        NodeKind::AddF => "+".into(),
        NodeKind::SubF | NodeKind::MinusF => "-".into(),
        NodeKind::MulF => "*".into(),
        NodeKind::DivF => "/".into(),
        NodeKind::ToFloat => "(flt)".into(),
        NodeKind::ReadOnly => "(const)".into(),
        NodeKind::RoundF32 => "(f32)".into(),
        NodeKind::Phi { label, .. } => format!("&phi;_{label}"),
        NodeKind::New { ptr, .. } => {
            let obj = g.types.pointee(*ptr).expect("new makes a pointer");
            format!("new {}", g.types.str(obj))
        }
        NodeKind::Load { name, .. } => format!(".{name}"),
        NodeKind::Store { name, .. } => format!(".{name}="),
        NodeKind::MemMerge => "MEM".into(),
        _ => label(g, n),
    }
}

/// Control-flow nodes: the ones drawn as yellow boxes.
pub fn is_cfg(g: &Graph, n: NodeId) -> bool {
    g.kind(n).is_cfg()
}

/// Nodes that produce memory: stores, memory phis, merges and Start's
/// memory projection.
pub fn is_mem(g: &Graph, n: NodeId) -> bool {
    match g.kind(n) {
        NodeKind::Store { .. } | NodeKind::MemMerge => true,
        NodeKind::Phi { declared, .. } => g.types.is_mem(*declared),
        NodeKind::Proj { .. } => g.ty_opt(n).is_some_and(|t| g.types.is_mem(t)),
        _ => false,
    }
}

/// Nodes whose value is a tuple, taken apart by projections.
pub fn is_multi(g: &Graph, n: NodeId) -> bool {
    matches!(
        g.kind(n),
        NodeKind::Start { .. }
            | NodeKind::If
            | NodeKind::Never
            | NodeKind::New { .. }
            | NodeKind::CallEnd { .. }
    )
}

/// `n` is a projection of a New (chapter 15).
pub fn new_proj(g: &Graph, n: NodeId) -> bool {
    matches!(g.role(n), NodeKind::Proj { .. })
        && g.input(n, 0)
            .is_some_and(|m| matches!(g.role(m), NodeKind::New { .. }))
}

/// The name of projection `idx` of a New: the struct's name for the
/// pointer (`S`, `int[]`), `$N` for the slice of alias class `N`.
fn new_proj_label(g: &Graph, n: NodeId, idx: usize) -> String {
    let NodeKind::New { ptr, first_alias } = *g.role(g.in_(n, 0)) else {
        unreachable!("a projection of a New")
    };
    match idx {
        1 => g
            .types
            .str(g.types.pointee(ptr).expect("new makes a pointer")),
        0 => "$ctrl".into(),
        i => format!("${}", first_alias + i as u32 - 2),
    }
}

/// The type of the values node `n` produces, from its inputs' types.
pub(crate) fn compute(g: &mut Graph, n: NodeId) -> TypeId {
    match g.kind(n) {
        // Chapter 19: machine nodes keep the type of the node they stand
        // for; nothing optimizes them.
        NodeKind::Mach(_) => g.ty(n),
        NodeKind::Start { args } => *args,
        NodeKind::Stop | NodeKind::Scope(_) => Types::BOTTOM,
        NodeKind::ScopeMin => Types::MEM_BOT,
        NodeKind::Return => return_::compute(g, n),
        NodeKind::Constant(t) => *t,
        NodeKind::Add => add::compute(g, n),
        NodeKind::Sub => sub::compute(g, n),
        NodeKind::Mul => mul::compute(g, n),
        NodeKind::Div => div::compute(g, n),
        NodeKind::Minus => minus::compute(g, n),
        NodeKind::Not => not::compute(g, n),
        NodeKind::Bool(op) => bool_op::compute(g, n, *op),
        NodeKind::AddF => add_f::compute(g, n),
        NodeKind::SubF => sub_f::compute(g, n),
        NodeKind::MulF => mul_f::compute(g, n),
        NodeKind::DivF => div_f::compute(g, n),
        NodeKind::MinusF => minus_f::compute(g, n),
        NodeKind::ToFloat => to_float::compute(g, n),
        NodeKind::ReadOnly => read_only::compute(g, n),
        NodeKind::BoolF(op) => bool_op::compute_float(g, n, *op),
        NodeKind::And => bitwise::compute_and(g, n),
        NodeKind::Or => bitwise::compute(g, n, |a, b| a | b),
        NodeKind::Xor => bitwise::compute(g, n, |a, b| a ^ b),
        NodeKind::Shl => shift::compute_shl(g, n),
        NodeKind::Sar => shift::compute_right(g, n, shift::sar, shift::sar_range),
        NodeKind::Shr => shift::compute_right(g, n, shift::shr, shift::shr_range),
        NodeKind::RoundF32 => round_f32::compute(g, n),
        NodeKind::If => if_::compute(g, n),
        NodeKind::Proj { idx, .. } | NodeKind::CProj { idx, .. } => proj::compute(g, n, *idx),
        NodeKind::XCtrl => Types::XCTRL,
        NodeKind::Never => Types::IF_BOTH,
        NodeKind::Region => region::compute(g, n),
        NodeKind::Loop => loop_::compute(g, n),
        NodeKind::Phi { .. } => phi::compute(g, n),
        NodeKind::New { ptr, first_alias } => new::compute(g, n, *ptr, *first_alias),
        NodeKind::Load { .. } => load::compute(g, n),
        NodeKind::Store { .. } => store::compute(g, n),
        NodeKind::Cast { ty } => cast::compute(g, n, *ty),
        NodeKind::MemMerge => Types::MEM_BOT,
        NodeKind::Struct { obj } => *obj,
        NodeKind::Fun { .. } => fun::compute(g, n),
        NodeKind::Call { .. } => call::compute(g, n),
        NodeKind::CallEnd { .. } => call_end::compute(g, n),
        NodeKind::FRef { .. } => Types::BOTTOM,
    }
}

/// A simpler replacement for `n`, or `None` when there is nothing to do.
///
/// The contract, as in Simple: return `None` for no change; otherwise return
/// the replacement (possibly `n` itself, changed in place). The replacement
/// is not yet peepholed; any other new node made on the way is.
fn idealize(g: &mut Graph, n: NodeId) -> Option<NodeId> {
    match g.kind(n) {
        NodeKind::Add => add::idealize(g, n),
        NodeKind::Mul => mul::idealize(g, n),
        NodeKind::Div => div::idealize(g, n),
        NodeKind::Bool(op) => bool_op::idealize(g, n, *op),
        NodeKind::AddF => add_f::idealize(g, n),
        NodeKind::SubF => sub_f::idealize(g, n),
        NodeKind::MulF => mul_f::idealize(g, n),
        NodeKind::DivF => div_f::idealize(g, n),
        NodeKind::MinusF => minus_f::idealize(g, n),
        NodeKind::BoolF(op) => bool_op::idealize_float(g, n, *op),
        NodeKind::And => bitwise::idealize(g, n, -1),
        NodeKind::Or | NodeKind::Xor => bitwise::idealize(g, n, 0),
        NodeKind::Shl | NodeKind::Sar | NodeKind::Shr => shift::idealize(g, n),
        NodeKind::RoundF32 => round_f32::idealize(g, n),
        NodeKind::ReadOnly => read_only::idealize(g, n),
        NodeKind::If => if_::idealize(g, n),
        NodeKind::Return => return_::idealize(g, n),
        NodeKind::Stop => stop::idealize(g, n),
        NodeKind::CProj { idx, .. } => proj::idealize(g, n, *idx),
        NodeKind::Region => region::idealize(g, n),
        NodeKind::Loop => loop_::idealize(g, n),
        NodeKind::Phi { parm: Some(_), .. } => parm::idealize(g, n),
        NodeKind::Phi { .. } => phi::idealize(g, n),
        NodeKind::Fun { .. } => fun::idealize(g, n),
        NodeKind::Call { .. } => call::idealize(g, n),
        NodeKind::CallEnd { .. } => call_end::idealize(g, n),
        NodeKind::FRef { .. } => fref::idealize(g, n),
        NodeKind::Proj { idx, .. } => proj::idealize_data(g, n, *idx),
        NodeKind::Minus => minus::idealize(g, n),
        NodeKind::Sub => sub::idealize(g, n),
        NodeKind::Load { .. } => load::idealize(g, n),
        NodeKind::Store { .. } => store::idealize(g, n),
        NodeKind::Cast { ty } => cast::idealize(g, n, *ty),
        NodeKind::MemMerge => mem_merge::idealize(g, n),
        _ => None,
    }
}

/// Optimizes a freshly made node: applies [`peephole_opt`] and repeats on
/// whatever replaced it, until nothing changes. Returns the node to use
/// instead of `n`.
pub fn peephole(g: &mut Graph, n: NodeId) -> NodeId {
    stacker::maybe_grow(64 * 1024, 1024 * 1024, || {
        if g.disable_peephole {
            let ty = compute(g, n);
            g.set_ty(n, ty);
            return n;
        }
        match peephole_opt(g, n) {
            None => n,
            Some(m) if g.is_dead(m) => m,
            Some(m) => {
                let m = peephole(g, m);
                dead_code_elim(g, n, m)
            }
        }
    })
}

/// One step of optimization: computes the type (queueing the users if it
/// changed), replaces a node of constant type by a constant, replaces a
/// node by an equal one already in the value-numbering table, or else asks
/// the node to idealize itself. Returns the replacement, `n` itself when
/// only its type changed, or `None` for no progress.
pub fn peephole_opt(g: &mut Graph, n: NodeId) -> Option<NodeId> {
    let ty = compute(g, n);
    let old = set_type(g, n, ty);

    // Chapter 18: nor are a call's pieces (a call of a constant still
    // calls).
    let constant = matches!(
        g.kind(n),
        NodeKind::Constant(_)
            | NodeKind::XCtrl
            | NodeKind::FRef { .. }
            | NodeKind::Call { .. }
            | NodeKind::CallEnd { .. }
            | NodeKind::Fun { .. }
    );
    if !constant && g.types.is_high_or_const(ty) {
        // Dead control is the one XCtrl node (value numbering finds it).
        let con = if ty == Types::XCTRL {
            let start = g.start();
            g.add_node(NodeKind::XCtrl, vec![Some(start)])
        } else {
            constant::new(g, ty)
        };
        return peephole_opt(g, con);
    }

    // Global value numbering: an equal node already exists; use it, with
    // the best type either of them has.
    if let Some(m) = g.gvn_find_or_insert(n) {
        let joined = g.types.join(g.ty(m), ty);
        set_type(g, m, joined);
        return Some(dead_code_elim(g, n, m));
    }

    if let Some(m) = idealize(g, n) {
        return Some(m);
    }
    (old != Some(ty)).then_some(n)
}

/// Sets the type of `n`; when it changes, the users of `n` and the nodes
/// that depend on it may optimize further, so they are queued. Returns the
/// old type.
pub(crate) fn set_type(g: &mut Graph, n: NodeId, ty: TypeId) -> Option<TypeId> {
    let old = g.ty_opt(n);
    if old == Some(ty) {
        return old;
    }
    // Types only ever improve: the new one must lie above the old.
    debug_assert!(
        old.is_none_or(|o| g.types.meet(ty, o) == o),
        "type of node {n} fell from {} to {}",
        old.map_or_else(String::new, |o| g.types.to_string(o)),
        g.types.to_string(ty)
    );
    g.set_ty(n, ty);
    g.push_outputs(n);
    g.move_deps_to_worklist(n);
    old
}

/// `m` replaces `old`: kill `old` if nothing uses it, without letting the
/// kill take `m` (which may have no uses yet) down with it.
fn dead_code_elim(g: &mut Graph, old: NodeId, m: NodeId) -> NodeId {
    if m != old && g.is_unused(old) && !g.is_dead(old) {
        g.keep(m);
        g.kill(old);
        g.unkeep(m);
    }
    m
}

pub(crate) fn is_constant_node(g: &Graph, n: NodeId) -> bool {
    matches!(g.kind(n), NodeKind::Constant(_))
}

/// Whether `n` takes part in value numbering: a region or phi is only
/// equal to another once all its paths are known.
pub(crate) fn gvn_eligible(g: &Graph, n: NodeId) -> bool {
    match g.kind(n) {
        // Two merges of the same paths can only be a fresh one and the
        // remains of an `if` with empty arms (bypassed, but still anchoring
        // a store); they must stay apart, or the new merge's phis would
        // hang off the bypassed one.
        NodeKind::Region | NodeKind::Loop => false,
        NodeKind::Phi { parm: Some(_), .. } => false,
        NodeKind::Phi { .. } => g.input(n, g.n_ins(n) - 1).is_some(),
        NodeKind::Scope(_) | NodeKind::ScopeMin => false,
        // Every allocation is a different object.
        NodeKind::New { .. } => false,
        // Chapter 18: every function, call and forward reference is its own.
        NodeKind::Fun { .. }
        | NodeKind::Call { .. }
        | NodeKind::CallEnd { .. }
        | NodeKind::FRef { .. } => false,
        _ => true,
    }
}

/// The operator symbol of a bitwise node or a shift (chapter 14).
fn bit_symbol(kind: &NodeKind) -> Option<&'static str> {
    Some(match kind {
        NodeKind::And => "&",
        NodeKind::Or => "|",
        NodeKind::Xor => "^",
        NodeKind::Shl => "<<",
        NodeKind::Sar => ">>",
        NodeKind::Shr => ">>>",
        _ => return None,
    })
}

/// A problem that only the optimized graph shows (Simple's `err`): a field
/// access through a pointer that may still be null, a value stored into a
/// field that cannot hold it, or arithmetic on something not an integer
/// (`null+42`, `f & 0` for a float `f`). The parser checks none of these:
/// the types it sees while parsing are not yet the best ones. (Simple does
/// not check the operands of `>>>`; we do.)
pub fn error(g: &mut Graph, n: NodeId) -> Option<crate::Error> {
    match g.kind(n) {
        NodeKind::Add | NodeKind::Mul => not_int_operand(g, n),
        NodeKind::And
        | NodeKind::Or
        | NodeKind::Xor
        | NodeKind::Shl
        | NodeKind::Sar
        | NodeKind::Shr => not_int_operand(g, n),
        NodeKind::Load { .. } => null_access(g, n),
        NodeKind::Store { .. } => null_access(g, n).or_else(|| store::error(g, n)),
        NodeKind::Call { .. } => call::error(g, n),
        NodeKind::Cast { .. } => cast::error(g, n),
        NodeKind::Return => return_::error(g, n),
        NodeKind::FRef { .. } => fref::error(g, n),
        NodeKind::Phi { parm: None, .. } => phi::error(g, n),
        _ => None,
    }
}

/// A Load or Store through a pointer that may be null.
fn null_access(g: &Graph, n: NodeId) -> Option<crate::Error> {
    let (NodeKind::Load { name, at, .. } | NodeKind::Store { name, at, .. }) = g.kind(n) else {
        return None;
    };
    let ptr = g.ty(g.in_(n, 2));
    let safe = g.types.is_high(ptr) || g.types.is_ptr(ptr) && g.types.not_null(ptr);
    (ptr == Types::BOTTOM || !safe)
        .then(|| crate::Error::new(format!("Might be null accessing '{name}'"), *at as usize))
}

/// The first [`error`] met by a depth-first walk from Stop that looks at
/// a node before its inputs (in order), and at its inputs before its
/// users, as Simple's `walk` does; so an error in what a Return returns
/// (`head.next.i`: the `.i`) is met before one in the values that lead to
/// it (the `.next`). Chapter 16 memory is split per alias class as in
/// Simple (see `scope_min.rs`), so the walk meets what Simple's meets.
/// The walk keeps its own stack: a long chain cannot overflow the
/// machine's.
pub fn first_error(g: &mut Graph) -> Option<crate::Error> {
    let stop = g.ids().find(|&n| matches!(g.kind(n), NodeKind::Stop))?;
    let mut seen = vec![false; g.len() + 1];
    // (node, the next of its inputs and then users to visit)
    let mut stack: Vec<(NodeId, usize)> = Vec::new();
    let mut visit = |g: &mut Graph, n: NodeId, stack: &mut Vec<(NodeId, usize)>| {
        if std::mem::replace(&mut seen[n.nid() as usize], true) {
            return None;
        }
        stack.push((n, 0));
        error(g, n)
    };
    if let Some(e) = visit(g, stop, &mut stack) {
        return Some(e);
    }
    while let Some(&mut (n, ref mut next)) = stack.last_mut() {
        let (n_ins, n_outs) = (g.n_ins(n), g.outputs(n).len());
        let k = *next;
        *next += 1;
        let m = if k < n_ins {
            match g.input(n, k) {
                Some(m) => m,
                None => continue,
            }
        } else if k < n_ins + n_outs {
            g.outputs(n)[k - n_ins]
        } else {
            stack.pop();
            continue;
        };
        if let Some(e) = visit(g, m, &mut stack) {
            return Some(e);
        }
    }
    None
}

/// A new constant node of type `ty`, not yet peepholed.
pub fn new_constant(g: &mut Graph, ty: TypeId) -> NodeId {
    constant::new(g, ty)
}

/// A new binary node `lhs op rhs`, not yet peepholed.
pub fn new_binary(g: &mut Graph, kind: NodeKind, lhs: NodeId, rhs: NodeId) -> NodeId {
    g.add_node(kind, vec![None, Some(lhs), Some(rhs)])
}

/// A new node of the same operator as binary node `op` (Simple's `copy`).
fn copy_binary(g: &mut Graph, op: NodeId, lhs: NodeId, rhs: NodeId) -> NodeId {
    let kind = g.kind(op).clone();
    new_binary(g, kind, lhs, rhs)
}

/// All data inputs (all but input 0) have constant types. A phi of a loop
/// still being parsed has an unknown input, so never qualifies. When the
/// answer is no, `dep` is woken when the first non-constant input changes.
fn all_constant_inputs(g: &mut Graph, n: NodeId, dep: NodeId) -> bool {
    if matches!(g.kind(n), NodeKind::Phi { .. }) {
        let region = g.in_(n, 0);
        if !g.kind(region).is_region() {
            return false;
        }
        g.add_dep(n, dep);
        if region::in_progress(g, region) {
            return false;
        }
    }
    for i in 1..g.n_ins(n) {
        let Some(x) = g.input(n, i) else { return false };
        if !g.types.is_constant(g.ty(x)) {
            g.add_dep(x, dep);
            return false;
        }
    }
    true
}

/// The type of an integer binary operation: not known yet (`~int`) while
/// a side is not, folded when both sides are constants, any integer
/// otherwise (even when a side is not an integer: that is an error the
/// operator reports, if it can happen).
fn int_binary(g: &mut Graph, n: NodeId, fold: impl Fn(i64, i64) -> i64) -> TypeId {
    int_binary_ranges(g, n, fold, |_, _| None)
}

/// As [`int_binary`], and when the sides are ranges, the range `range`
/// gives for them, if any (`None`: any integer).
fn int_binary_ranges(
    g: &mut Graph,
    n: NodeId,
    fold: impl Fn(i64, i64) -> i64,
    range: impl Fn(Int, Int) -> Option<(i64, i64)>,
) -> TypeId {
    let (t1, t2) = (g.ty(g.in_(n, 1)), g.ty(g.in_(n, 2)));
    if g.types.is_high(t1) || g.types.is_high(t2) {
        return Types::INT_TOP;
    }
    match (g.types.int_bounds(t1), g.types.int_bounds(t2)) {
        (Some(a), Some(b)) if a.is_constant() && b.is_constant() => g.types.int(fold(a.min, b.min)),
        (Some(a), Some(b)) => match range(a, b) {
            Some((min, max)) => g.types.int_range(min, max),
            None => Types::INT_BOT,
        },
        _ => Types::INT_BOT,
    }
}

/// The type of a float binary operation: not known yet while a side is
/// not, folded when both sides are constants, any double otherwise, and no
/// number at all (`Bot`) when a side is none (a pointer converted). (Two
/// f32 operands do not make an f32: the operation is done, and rounded,
/// in 64 bits. Simple takes the meet of the sides, which says `f32`.)
fn flt_binary(g: &mut Graph, n: NodeId, fold: impl Fn(f64, f64) -> f64) -> TypeId {
    let (t1, t2) = (g.ty(g.in_(n, 1)), g.ty(g.in_(n, 2)));
    if g.types.is_high(t1) || g.types.is_high(t2) {
        return Types::FLT_TOP;
    }
    match (g.types.flt_value(t1), g.types.flt_value(t2)) {
        (Some(a), Some(b)) => g.types.flt(fold(a, b)),
        _ if !g.types.is_flt(t1) || !g.types.is_flt(t2) => Types::BOTTOM,
        _ => Types::FLT_BOT,
    }
}

/// The float flavour of an operator, if it has one (Simple's `copyF`).
fn float_kind(kind: &NodeKind) -> Option<NodeKind> {
    Some(match kind {
        NodeKind::Add => NodeKind::AddF,
        NodeKind::Sub => NodeKind::SubF,
        NodeKind::Mul => NodeKind::MulF,
        NodeKind::Div => NodeKind::DivF,
        NodeKind::Minus => NodeKind::MinusF,
        NodeKind::Bool(op) => NodeKind::BoolF(*op),
        _ => return None,
    })
}

/// Mixed arithmetic (Simple's `widen`): if an operand of `n`, an operator
/// the parser has just made and not yet peepholed, is a float, `n` gives
/// way to the float flavour of its operator, and each int operand is
/// converted by a ToFloat. This is not a peephole but part of what the
/// program means (an int `+` wraps around, a flt `+` rounds), so the
/// parser asks for it before peepholing. Returns the node to use.
pub fn widen(g: &mut Graph, n: NodeId) -> NodeId {
    let float_operand =
        (1..g.n_ins(n)).any(|i| g.input(n, i).is_some_and(|x| g.types.is_flt(g.ty(x))));
    let kind = match float_kind(g.kind(n)) {
        Some(kind) if float_operand => kind,
        _ => return n,
    };
    // Made before its operands' conversions, so node ids follow Simple's.
    let flt = g.add_node(kind, vec![None; g.n_ins(n)]);
    for i in 1..g.n_ins(n) {
        let x = g.in_(n, i);
        let x = if g.types.is_flt(g.ty(x)) {
            x
        } else {
            let conv = to_float::new(g, x);
            peephole(g, conv)
        };
        g.set_def(flt, i, Some(x));
    }
    g.kill(n);
    flt
}

/// An Add or Mul with an operand that is not an integer, once the program
/// is optimized: `Cannot 'Add' null`. (Simple checks only these two.)
fn not_int_operand(g: &mut Graph, n: NodeId) -> Option<crate::Error> {
    // Chapter 18: an operand not known yet (high) is no error.
    if (1..=2).any(|i| g.types.is_high(g.ty(g.in_(n, i)))) {
        return None;
    }
    let bad = (1..=2)
        .map(|i| g.ty(g.in_(n, i)))
        .find(|&t| !g.types.is_int(t))?;
    // `Cannot 'Add' null`, but `Cannot '&' FltBot`, as Simple names them.
    let name = bit_symbol(g.kind(n)).map_or_else(|| label(g, n), String::from);
    // Chapter 18: a bitwise operator names the operand's kind (`flt`).
    // (`null` is a constant of no kind: its glb is `Bot`, and it is named
    // itself.)
    let shown = if bit_symbol(g.kind(n)).is_some() && bad != Types::NULL {
        let low = g.types.glb(bad);
        g.types.to_string(low)
    } else {
        g.types.to_string(bad)
    };
    let message = format!("Cannot '{name}' {shown}");
    // An operator that `iterate` made has no place in the source: it is
    // reported at the end (`CodeGen::iterate`).
    let at = g.operator_at.get(&n).copied().unwrap_or(u32::MAX);
    Some(crate::Error::new(message, at as usize))
}

/// The depth of control node `n` in the dominator tree, approximately: the
/// parser and the peepholes change the graph as they go, so the depth is
/// computed once, when first asked, and kept. Start is at depth 0, a Loop
/// one below its entry, a Region one below its deepest path, anything else
/// one below its control input.
pub(crate) fn idepth(g: &mut Graph, n: NodeId) -> u32 {
    let cached = g.node(n).idepth;
    if cached != 0 {
        return cached;
    }
    let depth = match g.kind(n) {
        NodeKind::Start { .. } => return 0,
        // Chapter 18: a function hangs off Start.
        NodeKind::Fun { .. } => 1,
        NodeKind::Loop => idepth(g, g.in_(n, 1)) + 1,
        // One below the deepest path (for Stop, the deepest return).
        NodeKind::Region | NodeKind::Stop => {
            let mut d = 0;
            for i in 0..g.n_ins(n) {
                if let Some(x) = g.input(n, i) {
                    d = d.max(idepth(g, x) + 1);
                }
            }
            d
        }
        _ => idepth(g, g.in_(n, 0)) + 1,
    };
    g.node_mut(n).idepth = depth;
    depth
}

/// The immediate dominator of a control node. Start has none; a Loop's is
/// its entry; a Region's is where the dominator chains of its paths meet
/// (see [`lca`]). The answer is not cached: the graph changes
/// under the optimizer, and a stale dominator would be a wrong fact.
pub(crate) fn idom(g: &mut Graph, n: NodeId) -> Option<NodeId> {
    match g.kind(n) {
        NodeKind::Start { .. } | NodeKind::Stop => None,
        NodeKind::Region => region::idom(g, n),
        // Chapter 18: a function is entered from Start (its unknown callers).
        NodeKind::Fun { .. } => g.input(n, 1),
        NodeKind::Loop => Some(loop_::entry(g, n)),
        _ => g.input(n, 0),
    }
}

/// The least common ancestor of two control nodes in the dominator tree:
/// step the deeper one up (both, when equally deep) until they meet.
/// `None` if either chain runs out first.
pub fn lca(g: &mut Graph, a: NodeId, b: NodeId) -> Option<NodeId> {
    let (mut lhs, mut rhs) = (Some(a), Some(b));
    while lhs != rhs {
        let (l, r) = (lhs?, rhs?);
        let (dl, dr) = (idepth(g, l), idepth(g, r));
        if dl >= dr {
            lhs = idom(g, l);
        }
        if dl <= dr {
            rhs = idom(g, r);
        }
    }
    lhs
}

/// The text being printed, and the nodes already printed: a node met again
/// (around a loop, or shared) prints as its label only, so cycles end.
pub struct Printer {
    out: String,
    visited: Vec<bool>,
}

impl std::ops::Deref for Printer {
    type Target = String;
    fn deref(&self) -> &String {
        &self.out
    }
}

impl std::ops::DerefMut for Printer {
    fn deref_mut(&mut self) -> &mut String {
        &mut self.out
    }
}

/// Appends the expression form of `n`, as Simple's `print()` shows it.
pub fn print(g: &Graph, n: NodeId, out: &mut Printer) {
    stacker::maybe_grow(64 * 1024, 1024 * 1024, || {
        let seen = n.nid() as usize;
        if out.visited.len() <= seen {
            out.visited.resize(g.len() + 1, false);
        }
        // Constants are shared by value numbering; print them every time.
        if std::mem::replace(&mut out.visited[seen], true)
            && !matches!(g.role(n), NodeKind::Constant(_))
        {
            out.push_str(&label(g, n));
            return;
        }
        if g.is_dead(n) {
            out.push_str(&unique_name(g, n));
            out.push_str(":DEAD");
            return;
        }
        match g.kind(n) {
            NodeKind::Mach(m) => crate::mach::print(g, n, m, out),
            NodeKind::Start { .. } => out.push_str("Start"),
            NodeKind::Stop => stop::print(g, n, out),
            NodeKind::Return => return_::print(g, n, out),
            NodeKind::Constant(t) => constant::print(g, *t, out),
            NodeKind::Add => print_binary(g, n, "+", out),
            NodeKind::Sub => print_binary(g, n, "-", out),
            NodeKind::Mul => print_binary(g, n, "*", out),
            NodeKind::Div => print_binary(g, n, "/", out),
            NodeKind::Bool(op) | NodeKind::BoolF(op) => print_binary(g, n, op.symbol(), out),
            NodeKind::AddF => print_binary(g, n, "+", out),
            NodeKind::SubF => print_binary(g, n, "-", out),
            NodeKind::MulF => print_binary(g, n, "*", out),
            NodeKind::DivF => print_binary(g, n, "/", out),
            NodeKind::MinusF => print_unary(g, n, "-", out),
            NodeKind::ToFloat => {
                out.push_str("(flt)");
                print(g, g.in_(n, 1), out);
            }
            NodeKind::ReadOnly => {
                out.push_str("(const)");
                print(g, g.in_(n, 1), out);
            }
            NodeKind::And
            | NodeKind::Or
            | NodeKind::Xor
            | NodeKind::Shl
            | NodeKind::Sar
            | NodeKind::Shr => print_binary(g, n, bit_symbol(g.kind(n)).unwrap_or_default(), out),
            NodeKind::RoundF32 => {
                out.push_str("((f32)");
                print(g, g.in_(n, 1), out);
                out.push(')');
            }
            NodeKind::Minus => print_unary(g, n, "-", out),
            NodeKind::Not => print_unary(g, n, "!", out),
            NodeKind::If => if_::print(g, n, out),
            // Chapter 18: a call's result prints as the call.
            NodeKind::Proj { idx: 2, .. }
                if matches!(g.kind(g.in_(n, 0)), NodeKind::CallEnd { .. }) =>
            {
                print(g, g.in_(g.in_(n, 0), 0), out)
            }
            NodeKind::Proj { idx, .. } if new_proj(g, n) => {
                out.push_str(&new_proj_label(g, n, *idx))
            }
            NodeKind::Proj { label, .. } | NodeKind::CProj { label, .. } => out.push_str(label),
            NodeKind::XCtrl => out.push_str("Xctrl"),
            NodeKind::Never => out.push_str("Never"),
            // Chapter 17: a region prints without its node number, so the
            // printed program does not change when node numbering does.
            NodeKind::Region => out.push_str("Region"),
            NodeKind::Loop => out.push_str("Loop"),
            NodeKind::Phi { parm: Some(_), .. } => parm::print(g, n, out),
            NodeKind::Phi { .. } => phi::print(g, n, out),
            NodeKind::Fun { .. } => out.push_str(&fun::label(g, n)),
            NodeKind::Call { .. } => call::print(g, n, out),
            NodeKind::CallEnd { .. } => out.push_str("CallEnd"),
            NodeKind::FRef { name, .. } => {
                out.push_str("FRef_");
                out.push_str(name);
            }
            NodeKind::Scope(_) => scope::print(g, n, out),
            NodeKind::ScopeMin => scope_min::print(g, n, out),
            NodeKind::New { ptr, .. } => {
                let obj = g.types.pointee(*ptr).expect("new makes a pointer");
                out.push_str("new ");
                out.push_str(&g.types.str(obj));
            }
            NodeKind::Load { name, .. } => {
                out.push('.');
                out.push_str(name);
            }
            NodeKind::Store { .. } => store::print(g, n, out),
            NodeKind::MemMerge => mem_merge::print(g, n, out),
            NodeKind::Cast { .. } => {
                out.push_str(&label(g, n));
                print(g, g.in_(n, 1), out);
            }
            NodeKind::Struct { obj } => out.push_str(&g.types.str(*obj)),
        }
    })
}

fn print_binary(g: &Graph, n: NodeId, op: &str, out: &mut Printer) {
    out.push('(');
    print(g, g.in_(n, 1), out);
    out.push_str(op);
    print(g, g.in_(n, 2), out);
    out.push(')');
}

fn print_unary(g: &Graph, n: NodeId, op: &str, out: &mut Printer) {
    out.push('(');
    out.push_str(op);
    print(g, g.in_(n, 1), out);
    out.push(')');
}

/// The printed form of `n` as a new string.
pub fn to_string(g: &Graph, n: NodeId) -> String {
    let mut p = Printer {
        out: String::new(),
        visited: vec![false; g.len() + 1],
    };
    print(g, n, &mut p);
    p.out
}

/// The byte offset input of a Load or Store of an array element (chapter
/// 15): `in(3)` of a Load, `in(4)` of a Store; `None` for a field of a
/// struct, whose offset is fixed by its alias class. (Global code motion
/// may add inputs after these, so the name tells, not the input count.)
/// An access to an array element (chapter 19: by its role, as a machine
/// node may have folded its offset into an immediate).
pub fn is_element(g: &Graph, n: NodeId) -> bool {
    matches!(g.role(n), NodeKind::Load { name, .. } | NodeKind::Store { name, .. } if &**name == "[]")
}

pub fn element_offset(g: &Graph, n: NodeId) -> Option<NodeId> {
    match g.kind(n) {
        NodeKind::Load { name, .. } if &**name == "[]" => g.input(n, 3),
        NodeKind::Store { name, .. } if &**name == "[]" => g.input(n, 4),
        _ => None,
    }
}
