//! Instruction selection: the optimized graph copied into a graph of
//! machine nodes for one CPU.
//!
//! Simple walks the graph from Stop along input edges and maps each node
//! it meets to a machine node, remembering the mapping so that a node used
//! twice is mapped once and a cycle (a loop's phi) ends. Here the walk is
//! the same, done with a worklist instead of recursion (a long program
//! makes a deep walk). For each ideal node the CPU's selector
//! (`cpu::*::select`) returns a [`Pattern`]: the machine nodes that stand
//! for it, whose inputs are other ideal nodes (mapped in turn) or nodes of
//! the same pattern. An ideal node whose value a pattern folds in (a
//! constant that became an immediate, a shift that became an address's
//! scale) is mapped only if something else still uses it.
//!
//! The new graph starts its node numbers at 1, as Simple's does, and
//! shares the types of the ideal graph: each machine node has the type of
//! the ideal node it stands for. The ideal graph is left as it was, so the
//! evaluators still run it.
//!
//! The parts of the graph that are the same on every CPU (Start and
//! Stop, regions, loops, phis, control projections, memory merges) are
//! copied by [`common`]; casts and read-only views, which only the type
//! checker needed, become their input.

use super::{Cpu, Mach, Op, Target};
use crate::error::Error;
use crate::graph::{Graph, NodeId};
use crate::node::NodeKind;
use crate::types::{TypeId, Types};
use std::rc::Rc;

/// Where the input of a machine node comes from.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum In {
    /// No input in this slot.
    None,
    /// The machine node that stands for this ideal node.
    Ideal(NodeId),
    /// Node `i` of the same pattern.
    Made(usize),
}

/// One machine node of a pattern.
#[derive(Debug)]
pub struct Made {
    pub kind: NodeKind,
    pub ins: Vec<In>,
    /// The type of its value (for the pattern's result, the ideal node's).
    pub ty: TypeId,
}

/// What stands for an ideal node in the machine graph.
#[derive(Debug)]
pub enum Pattern {
    /// These nodes; the last is the one the ideal node's users see.
    Nodes(Vec<Made>),
    /// The machine node of another ideal node (a cast stands for its
    /// input).
    Same(NodeId),
}

impl Pattern {
    /// One machine node.
    pub fn one(m: Mach, ins: Vec<In>, ty: TypeId) -> Pattern {
        Pattern::Nodes(vec![Made {
            kind: NodeKind::Mach(Box::new(m)),
            ins,
            ty,
        }])
    }
}

/// The machine program: its graph, Start and Stop.
pub struct Selected {
    pub graph: Graph,
    pub start: NodeId,
    pub stop: NodeId,
}

/// Selects instructions for `target` for the program of `ideal` that ends
/// at `stop`. Fails on an operation the CPU's selector does not know.
pub fn select(ideal: &Graph, stop: NodeId, target: Target) -> Result<Selected, Error> {
    let mut graph = Graph::new();
    graph.types = ideal.types.clone();
    graph.close_gvn();
    let mut s = Selector {
        ideal,
        target,
        graph,
        map: vec![None; ideal.len() + 1],
        wiring: Vec::new(),
    };
    let mstop = s.get(stop)?;
    while let Some((x, ins, made)) = s.wiring.pop() {
        for i in ins {
            let def = match i {
                In::None => None,
                In::Ideal(d) => Some(s.get(d)?),
                In::Made(j) => Some(made[j]),
            };
            s.graph.add_def(x, def);
        }
    }
    let start = s.get(ideal.start())?;
    s.graph.set_start(start);
    // The tables of functions name ideal nodes: name the machine ones.
    let mapped = |n: NodeId| s.map[n.nid() as usize];
    let funs: Vec<NodeId> = s
        .graph
        .ids()
        .filter(|&n| matches!(s.graph.kind(n), NodeKind::Fun { .. }))
        .collect();
    for f in funs {
        if let NodeKind::Fun { ret, .. } = s.graph.kind_mut(f) {
            *ret = ret.and_then(mapped);
        }
    }
    s.graph.fun_of_return = ideal
        .fun_of_return
        .iter()
        .filter_map(|(&r, &f)| Some((mapped(r)?, mapped(f)?)))
        .collect();
    s.graph.functions = ideal
        .functions
        .iter()
        .filter_map(|(&k, &f)| Some((k, mapped(f)?)))
        .collect();
    s.graph.target = Some(target);
    // The shared 0 and dead control, made here if nothing used them.
    let zero = s.get(ideal.zero())?;
    let xctrl = s.get(ideal.xctrl())?;
    while let Some((x, ins, made)) = s.wiring.pop() {
        for i in ins {
            let def = match i {
                In::None => None,
                In::Ideal(d) => Some(s.get(d)?),
                In::Made(j) => Some(made[j]),
            };
            s.graph.add_def(x, def);
        }
    }
    s.graph.set_shared(zero, xctrl);
    s.graph.stop = Some(mstop);
    Ok(Selected {
        graph: s.graph,
        start,
        stop: mstop,
    })
}

struct Selector<'a> {
    ideal: &'a Graph,
    target: Target,
    graph: Graph,
    /// The machine node of each ideal node mapped so far.
    map: Vec<Option<NodeId>>,
    /// Machine nodes made but not yet given their inputs, with the
    /// inputs to give and the nodes of their pattern.
    wiring: Vec<(NodeId, Vec<In>, Rc<Vec<NodeId>>)>,
}

impl Selector<'_> {
    /// The machine node of ideal node `n`, made (without its inputs, which
    /// the caller's loop gives it) if this is the first time.
    fn get(&mut self, n: NodeId) -> Result<NodeId, Error> {
        if let Some(x) = self.map[n.nid() as usize] {
            return Ok(x);
        }
        match select_node(self.ideal, n, self.target)? {
            // A cast is its input (a chain of them is short).
            Pattern::Same(other) => {
                let x = self.get(other)?;
                self.map[n.nid() as usize] = Some(x);
                Ok(x)
            }
            Pattern::Nodes(nodes) => {
                let mut made = Vec::with_capacity(nodes.len());
                let mut pending = Vec::with_capacity(nodes.len());
                for m in nodes {
                    let x = self.graph.add_node(m.kind, Vec::new());
                    self.graph.set_ty(x, m.ty);
                    made.push(x);
                    pending.push((x, m.ins));
                }
                let result = *made.last().expect("a pattern makes a node");
                self.map[n.nid() as usize] = Some(result);
                let made = Rc::new(made);
                // Wired in reverse, so that the pattern's first node gets
                // its inputs first: the worklist pops from the end.
                for (x, ins) in pending.into_iter().rev() {
                    self.wiring.push((x, ins, made.clone()));
                }
                Ok(result)
            }
        }
    }
}

/// The pattern for ideal node `n`: the CPU's selector decides, after the
/// parts every CPU shares.
fn select_node(g: &Graph, n: NodeId, target: Target) -> Result<Pattern, Error> {
    if let Some(p) = common(g, n) {
        return Ok(p);
    }
    match target.cpu {
        Cpu::X86_64 => crate::cpu::x86_64::select::select(g, n, target),
        Cpu::Riscv => crate::cpu::riscv::select::select(g, n, target),
        Cpu::Arm => crate::cpu::arm::select::select(g, n, target),
    }
}

/// The part of selection every CPU shares: nodes copied as they are, and
/// nodes that stand for their input.
pub fn common(g: &Graph, n: NodeId) -> Option<Pattern> {
    let copy = |g: &Graph| {
        let ins = g
            .inputs(n)
            .iter()
            .map(|d| d.map_or(In::None, In::Ideal))
            .collect();
        Pattern::Nodes(vec![Made {
            kind: g.kind(n).clone(),
            ins,
            ty: g.ty(n),
        }])
    };
    match g.kind(n) {
        NodeKind::Start { .. }
        | NodeKind::Stop
        | NodeKind::Region
        | NodeKind::Loop
        | NodeKind::CProj { .. }
        | NodeKind::XCtrl
        | NodeKind::MemMerge
        | NodeKind::Never => Some(copy(g)),
        // Start's projections (its control and memory) are no values.
        NodeKind::Proj { .. } if matches!(g.kind(g.in_(n, 0)), NodeKind::Start { .. }) => {
            Some(copy(g))
        }
        // A phi of memory or control takes no register; a phi of values
        // does, and is copied all the same (chapter 20 gives it one).
        NodeKind::Phi { parm: None, .. } => Some(copy(g)),
        // A constant that is no value a machine computes: memory, control,
        // the top and bottom of the lattice (the inputs of Parms where the
        // callers are unknown).
        NodeKind::Constant(t) if !is_value(&g.types, *t) => Some(copy(g)),
        // What the type checker needed and code does not: a value seen
        // through a test or read-only is the value.
        NodeKind::Cast { .. } | NodeKind::ReadOnly => Some(Pattern::Same(g.in_(n, 1))),
        _ => None,
    }
}

/// A type whose values live in registers: integers, floats, pointers and
/// function pointers.
pub fn is_value(types: &Types, t: TypeId) -> bool {
    types.is_int(t) || types.is_flt(t) || types.is_ptr(t) || types.is_fun_ptr(t) || t == Types::NULL
}

/// The machine operation of a machine node made by `select` (for tests
/// and listings).
pub fn op_of(g: &Graph, n: NodeId) -> Option<Op> {
    super::op(g, n)
}

// ---------------------------------------------------------------------------
// What every CPU's selector asks of the ideal graph.

/// The value of integer constant `n`, if it is one.
pub fn int_con(g: &Graph, n: NodeId) -> Option<i64> {
    match g.kind(n) {
        NodeKind::Constant(t) => g.types.int_value(*t),
        _ => None,
    }
}

/// The low-level type of a value of ideal type `t`: every integer lives
/// in a 64-bit register, every float as a double.
pub fn ltype(types: &Types, t: TypeId) -> super::LType {
    use super::LType;
    if types.is_flt(t) {
        LType::F64
    } else if types.is_ptr(t) || types.is_fun_ptr(t) || t == Types::NULL {
        LType::Ptr
    } else {
        LType::S64
    }
}

/// The narrowest integer type that holds `v`, signed: what the rules for
/// constants look at.
pub fn int_width(v: i64) -> super::LType {
    use super::LType;
    if i8::try_from(v).is_ok() {
        LType::S8
    } else if i16::try_from(v).is_ok() {
        LType::S16
    } else if i32::try_from(v).is_ok() {
        LType::S32
    } else {
        LType::S64
    }
}

/// How a field or element of declared type `declared` sits in memory:
/// its size in bytes, whether a load sign-extends it, and its type there
/// (a 32-bit float is `F32` in memory, a double in a register).
pub fn mem_shape(types: &Types, declared: TypeId) -> (u8, bool, super::LType) {
    use super::LType;
    let size = types.layout(declared).map_or(8, |l| l.size) as u8;
    if types.is_flt(declared) {
        return (size, false, if size == 4 { LType::F32 } else { LType::F64 });
    }
    if types.is_ptr(declared) || types.is_fun_ptr(declared) || declared == Types::NULL {
        return (8, false, LType::Ptr);
    }
    let signed = types.int_bounds(declared).is_some_and(|i| i.min < 0);
    (size, signed, LType::S64)
}

/// A memory operation's byte offset, taken apart: `disp + (idx << shift)`,
/// the index absent when the offset is a constant.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Offset {
    pub idx: Option<NodeId>,
    pub shift: u8,
    pub disp: i64,
}

/// Takes apart the ideal byte offset `off` of an array element
/// (`(i << scale) + base`, as the parser builds it) or a field (a
/// constant).
pub fn split_offset(g: &Graph, off: NodeId) -> Offset {
    if let Some(c) = int_con(g, off) {
        return Offset {
            idx: None,
            shift: 0,
            disp: c,
        };
    }
    let (mut idx, mut disp) = (off, 0);
    if matches!(g.kind(off), NodeKind::Add) {
        if let Some(c) = int_con(g, g.in_(off, 2)) {
            idx = g.in_(off, 1);
            disp = c;
        }
    }
    let mut shift = 0;
    if matches!(g.kind(idx), NodeKind::Shl) {
        if let Some(k @ 0..=3) = int_con(g, g.in_(idx, 2)) {
            shift = k as u8;
            idx = g.in_(idx, 1);
        }
    }
    Offset {
        idx: Some(idx),
        shift,
        disp,
    }
}

/// The pointer a memory operation addresses, seen through casts and
/// read-only views (which generate no code), and the control a cast held
/// it under, if any: the access must not float above that test.
pub fn base_of(g: &Graph, ptr: NodeId) -> (NodeId, Option<NodeId>) {
    let mut p = ptr;
    let mut guard = None;
    loop {
        match g.kind(p) {
            NodeKind::Cast { .. } => {
                guard = guard.or(g.input(p, 0));
                p = g.in_(p, 1);
            }
            NodeKind::ReadOnly => p = g.in_(p, 1),
            _ => return (p, guard),
        }
    }
}

/// The ideal inputs of `n`, as pattern inputs.
pub fn ideal_ins(g: &Graph, n: NodeId) -> Vec<In> {
    g.inputs(n)
        .iter()
        .map(|d| d.map_or(In::None, In::Ideal))
        .collect()
}

/// The shape of an ideal load or store: memory size, sign-extension,
/// type in memory, and the type of its ideal byte offset. The field's
/// type is the struct's (or array's): a load's declared type is the value
/// it gives, widened (an `u8` element loads as an `int`, an `f32` field
/// as a double), which says nothing of the bytes it reads.
pub fn access(g: &Graph, n: NodeId) -> (u8, bool, super::LType, Option<TypeId>) {
    let (NodeKind::Load { name, declared, .. } | NodeKind::Store { name, declared, .. }) =
        g.kind(n)
    else {
        unreachable!("a load or a store")
    };
    let field = g
        .types
        .pointee(g.ty(g.in_(n, 2)))
        .and_then(|obj| Some(g.types.field_type(obj, g.types.field_index(obj, name)?)))
        .unwrap_or(*declared);
    let (size, signed, lt) = mem_shape(&g.types, field);
    let off = match g.kind(n) {
        NodeKind::Load { .. } => g.input(n, 3),
        _ => g.input(n, 4),
    };
    (size, signed, lt, off.map(|o| g.ty(o)))
}
