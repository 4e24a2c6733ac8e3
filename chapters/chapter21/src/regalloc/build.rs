//! The program as the allocator sees it: functions, their blocks in
//! reverse post-order, each block's phis and instructions in order, and
//! the values (every node that defines one) with the registers their
//! definitions may write.
//!
//! The layout is rebuilt from the graph and the local schedule at the
//! start of every round, as splitting adds nodes to both. A block lists
//! its value phis (a function's entry block: its parameters), then the
//! nodes of the local schedule, then the control nodes that end it (a
//! branch, a call, a return). A phi's input `i` is read at the end of the
//! block its region's control input `i` lies in.

use super::Loc;
use crate::cpu;
use crate::gcm::{is_block_head, Schedule};
use crate::graph::{Graph, NodeId};
use crate::mach::{mach, Cpu, LType, Op, RegMask, Target};
use crate::node::{is_cfg, NodeKind};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

/// One basic block.
pub struct Block {
    pub head: NodeId,
    /// Index of its function in [`Layout::funs`].
    pub fun: usize,
    /// Value phis (or a function's parameters), sorted.
    pub phis: Vec<NodeId>,
    /// The local schedule, then the control nodes that end the block.
    pub insts: Vec<NodeId>,
    /// How many of `insts` come from the local schedule.
    pub n_local: usize,
    /// Blocks control may go to next.
    pub succs: Vec<usize>,
    /// For a merge: the block of each of its control inputs (input `i`
    /// at `preds[i - 1]`).
    pub preds: Vec<Option<usize>>,
    /// Loop depth, 0 outside every loop.
    pub depth: u32,
}

/// The whole program.
pub struct Layout {
    pub blocks: Vec<Block>,
    pub index: FxHashMap<NodeId, usize>,
    /// Each function's entry and its blocks in reverse post-order.
    pub funs: Vec<(NodeId, Vec<usize>)>,
}

/// How a value is defined.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Def {
    /// An instruction (or a projection of one).
    Op,
    Split,
    Phi,
    Parm,
}

/// The values of the program, numbered densely.
pub struct Vals {
    pub nodes: Vec<NodeId>,
    /// By node number: the value's number, or `u32::MAX`.
    pub of: Vec<u32>,
    /// The registers the definition may write (already limited to the
    /// allocatable ones).
    pub mask: Vec<RegMask>,
    pub block: Vec<u32>,
    pub def: Vec<Def>,
    /// A location fixed by the calling convention: a parameter passed on
    /// the stack, an argument a call takes on the stack.
    pub fixed: Vec<Option<Loc>>,
}

impl Vals {
    pub fn get(&self, n: NodeId) -> Option<u32> {
        self.of
            .get(n.nid() as usize)
            .copied()
            .filter(|&v| v != u32::MAX)
    }
    pub fn len(&self) -> usize {
        self.nodes.len()
    }
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }
}

/// What the phases of the allocator share: the graph and the CPU.
#[derive(Copy, Clone)]
pub struct Ctx<'a> {
    pub g: &'a Graph,
    pub target: Target,
    pub allowed: RegMask,
}

impl<'a> Ctx<'a> {
    pub fn new(g: &'a Graph, target: Target) -> Self {
        Ctx {
            g,
            target,
            allowed: cpu::allocatable(target.cpu),
        }
    }

    pub fn cpu(&self) -> Cpu {
        self.target.cpu
    }

    /// The register bank of value `n`, by its type.
    pub fn bank(&self, n: NodeId) -> RegMask {
        let float = self.is_float(n);
        cpu::bank(self.cpu(), if float { LType::F64 } else { LType::S64 }).and(self.allowed)
    }

    /// A float value (a machine node by its low-level type: the
    /// legalizer's nodes have no precise type).
    pub fn is_float(&self, n: NodeId) -> bool {
        match mach(self.g, n) {
            Some(m) if !matches!(m.op, Op::Parm | Op::Split) => m.ty[0].is_float(),
            Some(m) if m.op == Op::Split => self
                .g
                .input(n, 1)
                .is_some_and(|x| x != n && self.is_float_shallow(x)),
            _ => self.g.ty_opt(n).is_some_and(|t| self.g.types.is_flt(t)),
        }
    }

    fn is_float_shallow(&self, n: NodeId) -> bool {
        match mach(self.g, n) {
            Some(m) if !matches!(m.op, Op::Parm | Op::Split) => m.ty[0].is_float(),
            _ => self.g.ty_opt(n).is_some_and(|t| self.g.types.is_flt(t)),
        }
    }

    /// Node `n` (an input) is a value in a register: a machine node with
    /// a register result (the legalizer's nodes have no precise type), a
    /// split, or a node of integer, float or pointer type.
    pub fn defines_value(&self, n: NodeId) -> bool {
        match mach(self.g, n) {
            Some(m) => match m.op {
                Op::Split => true,
                Op::New => false,
                Op::Parm => self.is_value(n),
                _ => cpu::out_mask(self.target, self.g, n, m).is_some(),
            },
            None => self.is_value(n),
        }
    }

    /// A register value: an integer, float or pointer.
    pub fn is_value(&self, n: NodeId) -> bool {
        self.g
            .ty_opt(n)
            .is_some_and(|t| crate::mach::select::is_value(&self.g.types, t))
    }

    /// How node `n` of a block defines a value, and the registers it may
    /// write (`None`: no value, or one on the stack: see `stack_parm`).
    pub fn def_of(&self, n: NodeId, phi: bool) -> Option<(Def, RegMask)> {
        let g = self.g;
        if let Some(m) = mach(g, n) {
            return match m.op {
                Op::Split => Some((Def::Split, self.bank(n))),
                Op::Parm => {
                    let mask = cpu::out_mask(self.target, g, n, m)?;
                    self.is_value(n)
                        .then_some((Def::Parm, mask.and(self.allowed)))
                }
                _ if phi => None,
                Op::New => None,
                _ => {
                    let mask = cpu::out_mask(self.target, g, n, m)?;
                    Some((Def::Op, mask.and(self.allowed)))
                }
            };
        }
        if !self.is_value(n) {
            return None;
        }
        match g.role(n) {
            NodeKind::Phi { parm: None, .. } if phi => Some((Def::Phi, self.bank(n))),
            NodeKind::Phi { .. } => None,
            NodeKind::Proj { .. } => {
                let src = g.input(n, 0)?;
                let mask = match mach(g, src) {
                    // A New's pointer, where `calloc` returns it.
                    Some(m) if m.op == Op::New => cpu::out_mask(self.target, g, src, m)?,
                    _ if matches!(g.role(src), NodeKind::CallEnd { .. }) => {
                        let float = g.types.is_flt(g.ty(n));
                        cpu::ret_mask(self.cpu(), if float { LType::F64 } else { LType::S64 })
                    }
                    _ => self.bank(n),
                };
                Some((Def::Op, mask.and(self.allowed)))
            }
            _ => Some((Def::Op, self.bank(n))),
        }
    }

    /// A parameter its caller passes on the stack: its `InArg` number.
    pub fn stack_parm(&self, n: NodeId) -> Option<u32> {
        let m = mach(self.g, n)?;
        if m.op != Op::Parm || !self.is_value(n) {
            return None;
        }
        let (idx, kinds) = cpu::parm_sig(self.g, n, m)?;
        if idx < 2 {
            return None;
        }
        let masks = cpu::arg_masks(self.target, &kinds);
        let k = idx as usize - 2;
        match masks.get(k) {
            Some(None) => Some(masks[..k].iter().filter(|m| m.is_none()).count() as u32),
            _ => None,
        }
    }

    /// The register inputs of instruction `n`: (input index, value node,
    /// the registers it may be read from).
    pub fn uses(&self, n: NodeId) -> SmallVec<[(usize, NodeId, RegMask); 4]> {
        let g = self.g;
        let mut out = SmallVec::new();
        let Some(m) = mach(g, n) else {
            return out;
        };
        for i in 1..g.n_ins(n) {
            let Some(x) = g.input(n, i) else { continue };
            if m.op == Op::Split {
                if i == 1 {
                    out.push((i, x, self.bank(x)));
                }
                continue;
            }
            if let Some(mask) = cpu::in_mask(self.target, g, n, m, i) {
                if self.defines_value(x) {
                    out.push((i, x, mask.and(self.allowed)));
                }
            }
        }
        out
    }

    /// The stack-passed arguments of call `n`: (input index, `OutArg`
    /// number).
    pub fn stack_args(&self, n: NodeId) -> Vec<(usize, u32)> {
        let g = self.g;
        let Some(m) = mach(g, n) else {
            return Vec::new();
        };
        if !matches!(m.op, Op::Call | Op::CallR) {
            return Vec::new();
        }
        let nins = g.n_ins(n);
        let last = if m.op == Op::CallR { nins - 1 } else { nins };
        let mut k = 0;
        let mut out = Vec::new();
        for i in 2..last {
            if cpu::in_mask(self.target, g, n, m, i).is_none()
                && g.input(n, i).is_some_and(|x| self.defines_value(x))
            {
                out.push((i, k));
                k += 1;
            }
        }
        out
    }
}

/// The control nodes that end block `blk`, in order.
pub fn tail(g: &Graph, blk: NodeId) -> Vec<NodeId> {
    let mut out = Vec::new();
    let mut c = blk;
    loop {
        let next = g
            .outputs(c)
            .iter()
            .copied()
            .filter(|&u| is_cfg(g, u) && !g.is_dead(u) && !is_block_head(g, u))
            .min();
        match next {
            Some(u) if !out.contains(&u) => {
                out.push(u);
                c = u;
            }
            _ => break,
        }
    }
    out
}

/// The block head control node `c` lies in.
fn head_of(g: &Graph, mut c: NodeId) -> Option<NodeId> {
    for _ in 0..g.len() + 1 {
        if is_block_head(g, c) {
            return Some(c);
        }
        c = g.input(c, 0)?;
    }
    None
}

/// The functions of machine graph `g`.
pub fn functions(g: &Graph) -> Vec<NodeId> {
    let mut funs: Vec<NodeId> = g
        .outputs(g.start())
        .iter()
        .copied()
        .filter(|&f| matches!(g.role(f), NodeKind::Fun { .. }) && !g.is_dead(f))
        .collect();
    funs.sort();
    funs.dedup();
    funs
}

/// Lays the program out (see the module's documentation).
pub fn layout(cx: &Ctx, s: &Schedule, local: &FxHashMap<NodeId, Vec<NodeId>>) -> Layout {
    let g = cx.g;
    let mut blocks = Vec::new();
    let mut index = FxHashMap::default();
    let mut funs = Vec::new();
    for (fi, f) in functions(g).into_iter().enumerate() {
        let rpo = crate::asm::reverse_post_order(g, f);
        let mut ids = Vec::new();
        for b in rpo {
            if index.contains_key(&b) {
                continue;
            }
            index.insert(b, blocks.len());
            ids.push(blocks.len());
            let mut phis: Vec<NodeId> = g
                .outputs(b)
                .iter()
                .copied()
                .filter(|&p| matches!(g.role(p), NodeKind::Phi { .. }) && cx.is_value(p))
                .collect();
            phis.sort();
            phis.dedup();
            let mut insts: Vec<NodeId> = local.get(&b).cloned().unwrap_or_default();
            let n_local = insts.len();
            insts.extend(tail(g, b));
            blocks.push(Block {
                head: b,
                fun: fi,
                phis,
                insts,
                n_local,
                succs: Vec::new(),
                preds: Vec::new(),
                depth: s.loop_depth(b).saturating_sub(1),
            });
        }
        funs.push((f, ids));
    }
    for blk in blocks.iter_mut() {
        let b = blk.head;
        let last = blk.insts.last().copied().unwrap_or(b);
        let mut succs: Vec<usize> = crate::asm::successors(g, last)
            .into_iter()
            .filter_map(|u| index.get(&u).copied())
            .collect();
        if succs.is_empty() && last != b {
            succs = crate::asm::successors(g, b)
                .into_iter()
                .filter_map(|u| index.get(&u).copied())
                .collect();
        }
        blk.succs = succs;
        if matches!(g.role(b), NodeKind::Region | NodeKind::Loop) {
            blk.preds = (1..g.n_ins(b))
                .map(|i| {
                    g.input(b, i)
                        .and_then(|c| head_of(g, c))
                        .and_then(|h| index.get(&h).copied())
                })
                .collect();
        }
    }
    Layout {
        blocks,
        index,
        funs,
    }
}

/// Numbers the values defined in the laid-out program.
pub fn values(cx: &Ctx, lay: &Layout) -> Vals {
    let g = cx.g;
    let mut v = Vals {
        nodes: Vec::new(),
        of: vec![u32::MAX; g.len() + 1],
        mask: Vec::new(),
        block: Vec::new(),
        def: Vec::new(),
        fixed: Vec::new(),
    };
    for (bi, b) in lay.blocks.iter().enumerate() {
        let defs = b
            .phis
            .iter()
            .map(|&p| (p, true))
            .chain(b.insts.iter().map(|&n| (n, false)));
        for (n, phi) in defs {
            let (def, mask, fixed) = match cx.def_of(n, phi) {
                Some((d, m)) => (d, m, None),
                None => match cx.stack_parm(n) {
                    Some(k) => (Def::Parm, RegMask::EMPTY, Some(Loc::InArg(k))),
                    None => continue,
                },
            };
            let i = n.nid() as usize;
            if v.of[i] != u32::MAX {
                continue;
            }
            v.of[i] = v.nodes.len() as u32;
            v.nodes.push(n);
            v.mask.push(mask);
            v.block.push(bi as u32);
            v.def.push(def);
            v.fixed.push(fixed);
        }
    }
    // A call's stack-passed argument is a split (made before the first
    // round) that writes the argument's place at the bottom of the frame.
    for b in &lay.blocks {
        for &n in &b.insts {
            for (i, k) in cx.stack_args(n) {
                if let Some(x) = g.input(n, i).and_then(|x| v.get(x)) {
                    if v.def[x as usize] == Def::Split {
                        v.fixed[x as usize] = Some(Loc::OutArg(k));
                    }
                }
            }
        }
    }
    v
}
