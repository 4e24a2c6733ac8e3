//! The independent checker of an allocation: it proves, function by
//! function, that the allocated program computes with the values the
//! unallocated one meant, by running it symbolically.
//!
//! It shares no code with the allocator (it reads only the graph, the
//! local schedule, the CPU's tables of masks, kills and two-address
//! operations, and the [`Allocation`]), as regalloc2's `checker.rs`
//! checks regalloc2. The method is the same: every location (a register,
//! a spill slot, a stack argument) holds a *symbolic value*, the node
//! that computed it, where a split's value is the value it copies. Each
//! block is run in schedule order: its phis as control enters (a
//! function's entry block: its parameters), then the local order, then
//! the branch, call or return that ends it. An instruction first reads
//! its operands, and every register operand must find, in the location
//! the allocation gives the operand, the operand's value; then the CPU's
//! kill mask clobbers what a call (or an x86 division) destroys; then its
//! result writes its location. At the end of a predecessor, a phi's
//! location must hold the phi's input from that predecessor; as control
//! enters the merge, every phi's location takes the phi (all checked
//! first, then all written: phis are parallel copies).
//!
//! The lattice, per location: nothing known, one value, a value clobbered
//! by a node, or *conflict* (different values on different paths in).
//! States meet location by location at each block entry: equal facts
//! stay, different ones become conflict. The state of every block entry
//! is computed by a forward dataflow over the control-flow graph, round
//! after round in reverse post-order until nothing changes (states only
//! go down a finite lattice, so loops settle); then one more walk reports
//! the first use that finds anything but its value. This is what proves
//! that no two values live at once share a location, that nothing
//! caller-saved is live across a call, that copies and phi moves are
//! where they must be.
//!
//! A node names its value on every trip around a loop, so a copy made on
//! an earlier trip carries the same name as the value of this one. That
//! cannot fool the checker: every path from the function's entry, where
//! nothing holds the node yet, meets the paths around the loop, so a
//! location holds the node at a use only if every path from the node's
//! latest definition wrote it there.
//!
//! Besides the dataflow it checks what each node alone must satisfy:
//! every value has a location; a result's register is in the operation's
//! output mask (for a phi or a split: in its value's register bank; for a
//! parameter: where the calling convention passes it; for a call's
//! result: the return register); every register operand is in its input
//! mask; only splits and phis live on the stack (and parameters passed there; a
//! split from one stack slot to another goes through a scratch register);
//! no value has a reserved register (the return address's, the scratch
//! register); a two-address operation's result
//! shares its operand's register; a call's stack-passed argument is a
//! split at its outgoing argument slot; slots are within the frame; every
//! callee-saved register a function writes is in its frame's
//! `callee_saved`.
//!
//! Calls (and New, which calls `calloc`) also clobber every outgoing
//! stack argument: that area is the callee's once it is called.
//!
//! What it does not check: the return address itself (no value may have
//! its register, and the prologue of a function that calls keeps it),
//! the prologue and epilogue themselves (that the
//! frame's `callee_saved` is enough is all it proves of callee-saved
//! registers), and memory other than the stack-held values. It trusts
//! the CPU's tables: what `in_mask`, `out_mask`, `kill_mask` and
//! `two_address` say an instruction reads, writes and destroys is what
//! it does (so, for example, an x86 `add` between a `cmp` and its `jcc`
//! would pass, as x86's `kill_mask` does not list the flags for it; the
//! local schedule keeps a comparison next to its user). It reports the
//! first problem it finds, in the order the blocks are run.
//!
//! Two entry points: [`check`] takes the graph, the local schedule and
//! the target; [`check_code`] takes them from a [`CodeGen`] that has been
//! through `local_sched` (and the allocator, which rewrites both).

use super::{Allocation, Frame, Loc};
use crate::codegen::CodeGen;
use crate::cpu;
use crate::gcm::is_block_head;
use crate::graph::{Graph, NodeId};
use crate::mach::select::{is_value, ltype};
use crate::mach::{mach, Cpu, LType, Mach, Op, RegMask, Target};
use crate::node::{is_cfg, NodeKind};
use rustc_hash::FxHashMap;
use std::collections::BTreeMap;

/// Checks allocation `alloc` of the scheduled machine graph `g` (its
/// local schedule `local`, selected for `target`). `Ok(())` if every use
/// finds its value; otherwise the first problem found, naming the
/// function, the block, the node, the location, and what was expected
/// and found there.
pub fn check(
    g: &Graph,
    local: &FxHashMap<NodeId, Vec<NodeId>>,
    target: Target,
    alloc: &Allocation,
) -> Result<(), String> {
    let mut funs: Vec<NodeId> = g
        .outputs(g.start())
        .iter()
        .copied()
        .filter(|&f| matches!(g.role(f), NodeKind::Fun { .. }) && !g.is_dead(f))
        .collect();
    funs.sort();
    funs.dedup();
    for f in funs {
        FunChecker::new(g, local, target, alloc, f)?.run()?;
    }
    Ok(())
}

/// [`check`] on a compilation that has been through `local_sched` (and
/// the allocator): its graph, local schedule and target.
pub fn check_code(code: &CodeGen, alloc: &Allocation) -> Result<(), String> {
    let local = code
        .local
        .as_ref()
        .ok_or("the program has no local schedule (run local_sched first)")?;
    let target = code
        .target
        .ok_or("the program has no target (run inst_select first)")?;
    check(&code.graph, local, target, alloc)
}

// ---------------------------------------------------------------------------
// The CPU's tables, as the checker needs them.

fn kill_mask(t: Target, m: &Mach) -> Option<RegMask> {
    match t.cpu {
        Cpu::X86_64 => cpu::x86_64::ops::kill_mask(m, t.abi),
        Cpu::Riscv => cpu::riscv::ops::kill_mask(m),
        Cpu::Arm => cpu::arm::ops::kill_mask(m),
    }
}

fn two_address(t: Target, m: &Mach) -> Option<usize> {
    match t.cpu {
        Cpu::X86_64 => cpu::x86_64::ops::two_address(m),
        Cpu::Riscv => cpu::riscv::ops::two_address(m),
        Cpu::Arm => cpu::arm::ops::two_address(m),
    }
}

fn bank(t: Target, lt: LType) -> RegMask {
    match t.cpu {
        Cpu::X86_64 => cpu::x86_64::bank(lt),
        Cpu::Riscv => cpu::riscv::bank(lt),
        Cpu::Arm => cpu::arm::bank(lt),
    }
}

fn arg_masks(t: Target, kinds: &[LType]) -> Vec<Option<RegMask>> {
    match t.cpu {
        Cpu::X86_64 => cpu::x86_64::arg_masks(t.abi, kinds),
        Cpu::Riscv => cpu::riscv::arg_masks(kinds),
        Cpu::Arm => cpu::arm::arg_masks(kinds),
    }
}

fn ret_mask(t: Target, lt: LType) -> RegMask {
    match t.cpu {
        Cpu::X86_64 => cpu::x86_64::ret_mask(lt),
        Cpu::Riscv => cpu::riscv::ret_mask(lt),
        Cpu::Arm => cpu::arm::ret_mask(lt),
    }
}

/// The registers a function must give back as it found them. x86 has no
/// table of them: they are the registers a value may have that a call
/// keeps (System V: rbx, rbp, r12-r15; Win64 also rsi, rdi, xmm6-xmm15).
fn callee_saved(t: Target) -> RegMask {
    match t.cpu {
        Cpu::X86_64 => cpu::x86_64::WRITABLE
            .or(cpu::x86_64::XMMS)
            .without(cpu::x86_64::caller_saved(t.abi)),
        Cpu::Riscv => cpu::riscv::callee_saved(),
        Cpu::Arm => cpu::arm::CALLEE_SAVED,
    }
}

fn reg_name(t: Target, r: u8) -> &'static str {
    match t.cpu {
        Cpu::X86_64 => cpu::x86_64::ops::reg_name(r),
        Cpu::Riscv => cpu::riscv::ops::reg_name(r),
        Cpu::Arm => cpu::arm::ops::reg_name(r),
    }
}

/// How many registers the CPU has (numbered from 0).
fn reg_count(t: Target) -> usize {
    match t.cpu {
        Cpu::X86_64 => cpu::x86_64::REGS.len(),
        Cpu::Riscv => cpu::riscv::REGS.len(),
        Cpu::Arm => cpu::arm::REGS.len(),
    }
}

/// Register `r` is in `mask` (a number past any mask is in none).
fn has(mask: RegMask, r: u8) -> bool {
    r < 128 && mask.contains(r)
}

fn regs_of(mask: RegMask) -> impl Iterator<Item = u8> {
    (0u8..128).filter(move |&r| mask.contains(r))
}

// ---------------------------------------------------------------------------
// The lattice.

/// What a location holds.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Val {
    /// The value of this node (never a split: a split's value is the
    /// value it copies).
    Holds(NodeId),
    /// Whatever this node (a call, a division) left there.
    Clobbered(NodeId),
    /// Different facts on different paths in.
    Conflict,
}

/// Every location's fact; a location absent holds nothing known.
type State = BTreeMap<Loc, Val>;

/// The meet of two states, location by location.
fn meet(a: &State, b: &State) -> State {
    let mut out = State::new();
    for (&l, &va) in a {
        let v = match b.get(&l) {
            Some(&vb) if vb == va => va,
            _ => Val::Conflict,
        };
        out.insert(l, v);
    }
    for &l in b.keys() {
        out.entry(l).or_insert(Val::Conflict);
    }
    out
}

// ---------------------------------------------------------------------------
// What a node defines.

/// The kinds of node that define a value, each with its own rule for
/// where the value may go.
#[derive(Copy, Clone, Debug)]
enum Def {
    /// A copy of input 1, made by the allocator.
    Split,
    /// Parameter `idx` of its function.
    Parm(u32),
    /// A value phi of a merge.
    Phi,
    /// A value projection of a call's end or of a New.
    Proj(NodeId),
    /// A machine operation, with its output mask.
    Op(RegMask),
}

/// The registers no value may have: the return address's (RISC-V `ra`,
/// ARM `x30`: the prologue of a function that calls saves it, and the
/// epilogue puts it back for `ret`, so a value there would be lost or
/// would lose it), and the scratch register a copy from one stack slot
/// to another goes through (RISC-V `t6`, ARM `x16`; x86 pushes and pops).
fn reserved(t: Target) -> RegMask {
    match t.cpu {
        Cpu::X86_64 => RegMask::EMPTY,
        Cpu::Riscv => RegMask::of(1).or(RegMask::of(31)),
        Cpu::Arm => RegMask::of(30).or(RegMask::of(16)),
    }
}

/// A function's return address, a parameter that is no value (ARM's
/// `$rpc`).
fn is_return_address(g: &Graph, x: NodeId) -> bool {
    matches!(g.role(x), NodeKind::Phi { parm: Some(_), .. }) && !has_value_type(g, x)
}

fn has_value_type(g: &Graph, n: NodeId) -> bool {
    g.ty_opt(n).is_some_and(|t| is_value(&g.types, t))
}

fn classify(g: &Graph, t: Target, n: NodeId) -> Option<Def> {
    let m = mach(g, n);
    if m.is_some_and(|m| m.op == Op::Split) {
        return Some(Def::Split);
    }
    match g.role(n) {
        NodeKind::Phi {
            parm: Some(idx), ..
        } => {
            // The return address (ARM's `$rpc`, in `x30`) is no value:
            // the prologue keeps it (see `reserved`).
            let _ = (m, t);
            has_value_type(g, n).then_some(Def::Parm(*idx))
        }
        NodeKind::Phi { parm: None, .. } => has_value_type(g, n).then_some(Def::Phi),
        NodeKind::Proj { .. } => {
            let parent = g.input(n, 0)?;
            (has_value_type(g, n) && !matches!(g.role(parent), NodeKind::Start { .. }))
                .then_some(Def::Proj(parent))
        }
        _ => {
            let m = m?;
            match m.op {
                // Its value is its pointer projection's.
                Op::New | Op::Parm | Op::Proj | Op::CallEnd | Op::Fun => None,
                _ => cpu::out_mask(t, g, n, m).map(Def::Op),
            }
        }
    }
}

/// The symbolic value of node `n`: what it copies, if it is a split.
fn root(g: &Graph, mut n: NodeId) -> NodeId {
    for _ in 0..g.len() {
        match (mach(g, n), g.input(n, 1)) {
            (Some(m), Some(x)) if m.op == Op::Split => n = x,
            _ => break,
        }
    }
    n
}

/// The nearest block head at or above control node `c`.
fn head_of(g: &Graph, mut c: NodeId) -> Option<NodeId> {
    for _ in 0..g.len() {
        if is_block_head(g, c) {
            return Some(c);
        }
        c = g.input(c, 0)?;
    }
    None
}

/// Where control goes from control node `n` within its function: not
/// into a function it calls, not from a return, not to Stop.
fn successors(g: &Graph, n: NodeId) -> Vec<NodeId> {
    let mut succ: Vec<(usize, NodeId)> = g
        .outputs(n)
        .iter()
        .copied()
        .filter(|&u| is_cfg(g, u) && !g.is_dead(u))
        .filter(|&u| {
            !matches!(
                (g.role(n), g.role(u)),
                (NodeKind::Call { .. }, NodeKind::Fun { .. })
                    | (NodeKind::Return, _)
                    | (_, NodeKind::Stop)
            )
        })
        .map(|u| match g.role(u) {
            NodeKind::CProj { idx, .. } => (*idx, u),
            _ => (0, u),
        })
        .collect();
    succ.sort();
    succ.dedup();
    succ.into_iter().map(|(_, u)| u).collect()
}

/// One block of a function.
struct Block {
    head: NodeId,
    /// Value phis (the entry block: parameters), by node id.
    phis: Vec<NodeId>,
    /// The local order, then the control nodes that end the block.
    body: Vec<NodeId>,
    succs: Vec<NodeId>,
    preds: Vec<NodeId>,
}

struct FunChecker<'a> {
    g: &'a Graph,
    target: Target,
    alloc: &'a Allocation,
    fun: NodeId,
    frame: Frame,
    /// Blocks in reverse post-order; the entry first.
    blocks: Vec<Block>,
    index: FxHashMap<NodeId, usize>,
}

impl<'a> FunChecker<'a> {
    fn new(
        g: &'a Graph,
        local: &FxHashMap<NodeId, Vec<NodeId>>,
        target: Target,
        alloc: &'a Allocation,
        fun: NodeId,
    ) -> Result<Self, String> {
        let frame = alloc.frames.get(&fun).cloned().ok_or_else(|| {
            format!(
                "function {}: the allocation has no frame for it",
                crate::node::fun::label(g, fun)
            )
        })?;
        // Blocks in reverse post-order from the entry.
        let mut post = Vec::new();
        let mut seen = FxHashMap::default();
        let mut stack: Vec<(NodeId, Vec<NodeId>, usize)> = Vec::new();
        let mut bodies: FxHashMap<NodeId, (Vec<NodeId>, Vec<NodeId>)> = FxHashMap::default();
        let mut open = |head: NodeId, stack: &mut Vec<(NodeId, Vec<NodeId>, usize)>| {
            let mut body: Vec<NodeId> = local.get(&head).cloned().unwrap_or_default();
            let mut c = head;
            for _ in 0..g.len() {
                let next = g
                    .outputs(c)
                    .iter()
                    .copied()
                    .filter(|&u| is_cfg(g, u) && !g.is_dead(u) && !is_block_head(g, u))
                    .min();
                match next {
                    Some(u) if !matches!(g.role(c), NodeKind::Return) => {
                        body.push(u);
                        c = u;
                    }
                    _ => break,
                }
            }
            let succs = successors(g, c);
            stack.push((head, succs.clone(), 0));
            bodies.insert(head, (body, succs));
        };
        seen.insert(fun, ());
        open(fun, &mut stack);
        while let Some((head, succs, next)) = stack.last_mut() {
            if let Some(&s) = succs.get(*next) {
                *next += 1;
                if seen.insert(s, ()).is_none() {
                    open(s, &mut stack);
                }
                continue;
            }
            post.push(*head);
            stack.pop();
        }
        post.reverse();
        let index: FxHashMap<NodeId, usize> =
            post.iter().enumerate().map(|(i, &b)| (b, i)).collect();
        let mut blocks: Vec<Block> = post
            .iter()
            .map(|&head| {
                let (body, succs) = bodies.remove(&head).unwrap_or_default();
                let mut phis: Vec<NodeId> = g
                    .outputs(head)
                    .iter()
                    .copied()
                    .filter(|&p| !g.is_dead(p))
                    .filter(|&p| match classify(g, target, p) {
                        Some(Def::Phi) => head != fun,
                        Some(Def::Parm(_)) => head == fun,
                        _ => false,
                    })
                    .collect();
                phis.sort();
                phis.dedup();
                Block {
                    head,
                    phis,
                    body,
                    succs,
                    preds: Vec::new(),
                }
            })
            .collect();
        for b in 0..blocks.len() {
            for s in blocks[b].succs.clone() {
                if let Some(&si) = index.get(&s) {
                    let head = blocks[b].head;
                    blocks[si].preds.push(head);
                }
            }
        }
        Ok(FunChecker {
            g,
            target,
            alloc,
            fun,
            frame,
            blocks,
            index,
        })
    }

    // -- Names, for the messages. ------------------------------------------

    fn fun_name(&self) -> String {
        crate::node::fun::label(self.g, self.fun)
    }

    fn block_name(&self, b: NodeId) -> String {
        if b == self.fun {
            "entry".into()
        } else {
            format!("L{}", b.nid())
        }
    }

    fn node_name(&self, n: NodeId) -> String {
        let label = crate::node::label(self.g, n);
        let label = if label.is_empty() {
            match self.g.role(n) {
                NodeKind::Proj { .. } => "proj".to_string(),
                k => format!("{k:?}").chars().take(20).collect(),
            }
        } else {
            label
        };
        format!("node {} ({label})", n.nid())
    }

    fn loc_name(&self, l: Loc) -> String {
        match l {
            Loc::Reg(r) if usize::from(r) < reg_count(self.target) => {
                reg_name(self.target, r).to_string()
            }
            Loc::Reg(r) => format!("register {r} (which {} has not)", self.target.cpu.name()),
            Loc::Slot(s) => format!("stack slot {s}"),
            Loc::InArg(k) => format!("incoming stack argument {k}"),
            Loc::OutArg(k) => format!("outgoing stack argument {k}"),
        }
    }

    fn mask_name(&self, m: RegMask) -> String {
        let names: Vec<&str> = regs_of(m).map(|r| reg_name(self.target, r)).collect();
        format!("{{{}}}", names.join(", "))
    }

    fn val_name(&self, v: Option<&Val>) -> String {
        match v {
            None => "nothing".into(),
            Some(Val::Holds(x)) => format!("the value of {}", self.node_name(*x)),
            Some(Val::Clobbered(x)) => format!("what {} clobbered", self.node_name(*x)),
            Some(Val::Conflict) => "different values on different paths into the block".into(),
        }
    }

    fn err(&self, b: NodeId, n: NodeId, what: String) -> String {
        format!(
            "function {}, block {}, {}: {what}",
            self.fun_name(),
            self.block_name(b),
            self.node_name(n)
        )
    }

    // -- Locations. --------------------------------------------------------

    fn loc(&self, b: NodeId, n: NodeId, of: NodeId) -> Result<Loc, String> {
        self.alloc.loc.get(&of).copied().ok_or_else(|| {
            if of == n {
                self.err(b, n, "its value has no location".into())
            } else {
                self.err(
                    b,
                    n,
                    format!("its operand {} has no location", self.node_name(of)),
                )
            }
        })
    }

    /// The stack-passed parameters of this function.
    fn in_args(&self) -> u32 {
        let masks = self.param_masks();
        masks.iter().filter(|m| m.is_none()).count() as u32
    }

    fn param_masks(&self) -> Vec<Option<RegMask>> {
        let g = self.g;
        let NodeKind::Fun { sig, .. } = *g.role(self.fun) else {
            return Vec::new();
        };
        let Some((args, _, _)) = g.types.fun_parts(sig) else {
            return Vec::new();
        };
        let kinds: Vec<LType> = g
            .types
            .tuple_elems(args)
            .iter()
            .map(|&t| ltype(&g.types, t))
            .collect();
        arg_masks(self.target, &kinds)
    }

    /// `l` is within the frame.
    fn in_frame(&self, b: NodeId, n: NodeId, l: Loc) -> Result<(), String> {
        let ok = match l {
            Loc::Reg(_) => true,
            Loc::Slot(s) => s < self.frame.slots,
            Loc::OutArg(k) => k < self.frame.out_args,
            Loc::InArg(k) => k < self.in_args(),
        };
        if ok {
            return Ok(());
        }
        Err(self.err(
            b,
            n,
            format!(
                "{} is outside the frame ({} slots, {} outgoing and {} incoming stack arguments)",
                self.loc_name(l),
                self.frame.slots,
                self.frame.out_args,
                self.in_args()
            ),
        ))
    }

    /// The register of a value that must be in one, in `mask`.
    fn reg_in(
        &self,
        b: NodeId,
        n: NodeId,
        l: Loc,
        mask: RegMask,
        what: &str,
    ) -> Result<(), String> {
        match l {
            Loc::Reg(r) if has(mask, r) => Ok(()),
            _ => Err(self.err(
                b,
                n,
                format!(
                    "{what} is in {}, not in its mask {}",
                    self.loc_name(l),
                    self.mask_name(mask)
                ),
            )),
        }
    }

    /// Where the definition of `n` may go (report: errors; else nothing).
    fn check_def(&self, b: NodeId, n: NodeId, def: Def) -> Result<Loc, String> {
        let g = self.g;
        let t = self.target;
        let l = self.loc(b, n, n)?;
        self.in_frame(b, n, l)?;
        if let Loc::Reg(r) = l {
            if has(reserved(t), r) {
                return Err(self.err(
                    b,
                    n,
                    format!(
                        "it is in {}, which holds the return address or is the scratch register of copies between stack slots",
                        self.loc_name(l)
                    ),
                ));
            }
        }
        let value_bank = || g.ty_opt(n).map(|ty| bank(t, ltype(&g.types, ty)));
        match def {
            Def::Split => {
                if let Loc::Reg(_) = l {
                    if let Some(mask) = value_bank() {
                        self.reg_in(b, n, l, mask, "the copy")?;
                    }
                }
            }
            Def::Op(mask) => self.reg_in(b, n, l, mask, "its result")?,
            // A phi moves nothing itself: on the stack, its inputs must
            // be in its slot at the ends of the predecessors and its users
            // read the slot, which the walk checks.
            Def::Phi => {
                if let Loc::Reg(_) = l {
                    let mask = value_bank().unwrap_or(RegMask::EMPTY);
                    self.reg_in(b, n, l, mask, "the phi")?;
                }
            }
            Def::Proj(parent) => {
                let mask = match (g.role(parent), mach(g, parent)) {
                    (NodeKind::New { .. }, Some(m)) => cpu::out_mask(t, g, parent, m),
                    (NodeKind::CallEnd { .. }, _) => {
                        g.ty_opt(n).map(|ty| ret_mask(t, ltype(&g.types, ty)))
                    }
                    _ => value_bank(),
                };
                self.reg_in(b, n, l, mask.unwrap_or(RegMask::EMPTY), "the projection")?;
            }
            Def::Parm(idx) => {
                let own = mach(g, n).and_then(|m| cpu::out_mask(t, g, n, m));
                if let Some(mask) = own {
                    self.reg_in(b, n, l, mask, "the parameter")?;
                } else {
                    let masks = self.param_masks();
                    let i = (idx as usize).checked_sub(2);
                    match i.and_then(|i| masks.get(i)) {
                        Some(Some(mask)) => self.reg_in(b, n, l, *mask, "the parameter")?,
                        Some(None) => {
                            let i = i.unwrap_or(0);
                            let k = masks[..i].iter().filter(|m| m.is_none()).count() as u32;
                            if l != Loc::InArg(k) {
                                return Err(self.err(
                                    b,
                                    n,
                                    format!(
                                        "the parameter is passed as {}, but is located at {}",
                                        self.loc_name(Loc::InArg(k)),
                                        self.loc_name(l)
                                    ),
                                ));
                            }
                        }
                        None => {
                            return Err(self.err(
                                b,
                                n,
                                format!("parameter {idx} is not in the function's signature"),
                            ))
                        }
                    }
                }
            }
        }
        let on_stack_allowed = match def {
            Def::Split | Def::Parm(_) => true,
            Def::Phi => matches!(l, Loc::Slot(_)),
            _ => false,
        };
        if !on_stack_allowed && !matches!(l, Loc::Reg(_)) {
            return Err(self.err(
                b,
                n,
                format!(
                    "only splits and phis may live on the stack, but it is at {}",
                    self.loc_name(l)
                ),
            ));
        }
        if let (Def::Parm(_), Loc::Slot(_) | Loc::OutArg(_)) = (def, l) {
            return Err(self.err(
                b,
                n,
                format!("a parameter cannot arrive at {}", self.loc_name(l)),
            ));
        }
        Ok(l)
    }

    /// Operand `x` of `n` must be found at `l`.
    fn check_use(
        &self,
        state: &State,
        b: NodeId,
        n: NodeId,
        i: usize,
        x: NodeId,
        l: Loc,
    ) -> Result<(), String> {
        let want = root(self.g, x);
        let found = state.get(&l);
        if found == Some(&Val::Holds(want)) {
            return Ok(());
        }
        Err(self.err(
            b,
            n,
            format!(
                "input {i} reads {} from {}, which should hold the value of {} but holds {}",
                self.node_name(x),
                self.loc_name(l),
                self.node_name(want),
                self.val_name(found)
            ),
        ))
    }

    // -- The walk. ---------------------------------------------------------

    /// The state at the entry of block `bi`, from its predecessors' exits
    /// (`None`: no path reaches it yet).
    fn entry_state(&self, bi: usize, outs: &[Option<State>]) -> Option<State> {
        if bi == 0 {
            return Some(State::new());
        }
        let mut acc: Option<State> = None;
        for p in &self.blocks[bi].preds {
            let Some(out) = self.index.get(p).and_then(|&pi| outs[pi].as_ref()) else {
                continue;
            };
            acc = Some(match acc {
                None => out.clone(),
                Some(a) => meet(&a, out),
            });
        }
        acc
    }

    /// Runs block `bi` from `state`. With `report`, every check of the
    /// block is made and the first failure returned; without, only the
    /// state is computed (failures are ignored).
    fn run_block(&self, bi: usize, state: &mut State, report: bool) -> Result<(), String> {
        let g = self.g;
        let t = self.target;
        let blk = &self.blocks[bi];
        let b = blk.head;
        // Phis (or parameters), all at once.
        let mut phi_locs: FxHashMap<Loc, NodeId> = FxHashMap::default();
        for &p in &blk.phis {
            let def = classify(g, t, p).unwrap_or(Def::Phi);
            let l = match self.check_def(b, p, def) {
                Ok(l) => l,
                Err(e) if report => return Err(e),
                Err(_) => continue,
            };
            if let Some(other) = phi_locs.insert(l, p) {
                if report {
                    return Err(self.err(
                        b,
                        p,
                        format!(
                            "shares {} with {}, which enters the block at the same time",
                            self.loc_name(l),
                            self.node_name(other)
                        ),
                    ));
                }
            }
        }
        for (&l, &p) in &phi_locs {
            state.insert(l, Val::Holds(p));
        }
        for &n in &blk.body {
            self.instr(b, n, state, report)?;
        }
        if report {
            self.check_phi_moves(bi, state)?;
        }
        Ok(())
    }

    /// At the end of block `bi`: every phi of a successor finds, in its
    /// location, its input from this block.
    fn check_phi_moves(&self, bi: usize, state: &State) -> Result<(), String> {
        let g = self.g;
        let blk = &self.blocks[bi];
        for &s in &blk.succs {
            let Some(&si) = self.index.get(&s) else {
                continue;
            };
            if !matches!(g.role(s), NodeKind::Region | NodeKind::Loop) {
                continue;
            }
            for i in 1..g.n_ins(s) {
                if g.input(s, i).and_then(|c| head_of(g, c)) != Some(blk.head) {
                    continue;
                }
                for &p in &self.blocks[si].phis {
                    let Some(x) = g.input(p, i) else {
                        return Err(self.err(s, p, format!("the phi has no input {i}")));
                    };
                    let Some(&l) = self.alloc.loc.get(&p) else {
                        return Err(self.err(s, p, "its value has no location".into()));
                    };
                    let want = root(g, x);
                    let found = state.get(&l);
                    if found != Some(&Val::Holds(want)) {
                        return Err(format!(
                            "function {}, block {}, at the jump to {}: {} (the phi's location) should hold input {i} of the phi {}, the value of {}, but holds {}",
                            self.fun_name(),
                            self.block_name(blk.head),
                            self.block_name(s),
                            self.loc_name(l),
                            self.node_name(p),
                            self.node_name(want),
                            self.val_name(found)
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    /// One instruction: its reads, its kills, its write.
    fn instr(&self, b: NodeId, n: NodeId, state: &mut State, report: bool) -> Result<(), String> {
        let g = self.g;
        let t = self.target;
        // Reports a failure, or in the fixpoint rounds goes on.
        macro_rules! ensure {
            ($e:expr) => {
                match $e {
                    Ok(v) => Some(v),
                    Err(e) if report => return Err(e),
                    Err(_) => None,
                }
            };
        }
        let def = classify(g, t, n);
        let m = mach(g, n);
        if let Some(Def::Split) = def {
            let Some(x) = g.input(n, 1) else {
                return if report {
                    Err(self.err(b, n, "the split has no input".into()))
                } else {
                    Ok(())
                };
            };
            let from = ensure!(self.loc(b, n, x));
            let to = ensure!(self.check_def(b, n, Def::Split));
            if let Some(from) = from {
                if report {
                    ensure!(self.check_use(state, b, n, 1, x, from));
                }
            }
            // A copy from one stack slot to another goes through a scratch
            // register no value has (see `reserved`).
            if let Some(to) = to {
                state.insert(to, Val::Holds(root(g, n)));
            }
            return Ok(());
        }
        if let Some(m) = m.filter(|m| !matches!(m.op, Op::Parm | Op::Proj | Op::CallEnd | Op::Fun))
        {
            let call = matches!(m.op, Op::Call | Op::CallR);
            // Its reads.
            let mut stack_k = 0u32;
            for i in 1..g.n_ins(n) {
                let Some(x) = g.input(n, i) else { continue };
                match cpu::in_mask(t, g, n, m, i) {
                    // The return address a `ret` reads (ARM): no value.
                    Some(_) if is_return_address(g, x) => {}
                    // What a `return` behind an endless loop returns (it
                    // is reached only by the loop's exit that is never
                    // taken): `Top`, computed by nothing.
                    Some(_) if g.ty_opt(x) == Some(crate::types::Types::TOP) => {}
                    Some(mask) => {
                        if let Some(l) = ensure!(self.loc(b, n, x)) {
                            ensure!(self.reg_in(b, n, l, mask, &format!("input {i}")));
                            if report {
                                ensure!(self.check_use(state, b, n, i, x, l));
                            }
                        }
                    }
                    None if call && i >= 2 && has_value_type(g, x) => {
                        let k = stack_k;
                        stack_k += 1;
                        let want = Loc::OutArg(k);
                        let is_split = mach(g, x).is_some_and(|mx| mx.op == Op::Split);
                        let at = self.alloc.loc.get(&x).copied();
                        if !is_split || at != Some(want) {
                            ensure!(Err::<(), String>(self.err(
                                b,
                                n,
                                format!(
                                    "stack argument {k} (input {i}, {}) must be a split at {}",
                                    self.node_name(x),
                                    self.loc_name(want)
                                ),
                            )));
                        } else {
                            ensure!(self.in_frame(b, n, want));
                            if report {
                                ensure!(self.check_use(state, b, n, i, x, want));
                            }
                        }
                    }
                    None => {}
                }
            }
            // Two-address: the result takes the register of input i.
            if let (Some(i), Some(Def::Op(_))) = (two_address(t, m), def) {
                if let Some(x) = g.input(n, i) {
                    let (ln, lx) = (self.alloc.loc.get(&n), self.alloc.loc.get(&x));
                    if ln != lx || ln.is_none() {
                        let show =
                            |l: Option<&Loc>| l.map_or("nowhere".into(), |&l| self.loc_name(l));
                        ensure!(Err::<(), String>(self.err(
                            b,
                            n,
                            format!(
                                "two-address: its result must be in the register of input {i} ({}), {}, but is in {}",
                                self.node_name(x),
                                show(lx),
                                show(ln)
                            ),
                        )));
                    }
                }
            }
            // Its kills.
            if let Some(kill) = kill_mask(t, m) {
                for r in regs_of(kill) {
                    state.insert(Loc::Reg(r), Val::Clobbered(n));
                }
            }
            if matches!(m.op, Op::Call | Op::CallR | Op::New) {
                for (l, v) in state.iter_mut() {
                    if let Loc::OutArg(_) = l {
                        *v = Val::Clobbered(n);
                    }
                }
            }
            // A New's own location, if it has one, is in its mask.
            if m.op == Op::New {
                if let (Some(&l), Some(mask)) = (self.alloc.loc.get(&n), cpu::out_mask(t, g, n, m))
                {
                    ensure!(self.reg_in(b, n, l, mask, "its result"));
                }
            }
        }
        // Its write.
        if let Some(def) = def {
            if let Some(l) = ensure!(self.check_def(b, n, def)) {
                state.insert(l, Val::Holds(n));
            }
        }
        Ok(())
    }

    fn run(&self) -> Result<(), String> {
        // The fixed point.
        let nb = self.blocks.len();
        let mut outs: Vec<Option<State>> = vec![None; nb];
        let mut rounds = 0usize;
        loop {
            let mut changed = false;
            for bi in 0..nb {
                let Some(mut state) = self.entry_state(bi, &outs) else {
                    continue;
                };
                self.run_block(bi, &mut state, false)?;
                if outs[bi].as_ref() != Some(&state) {
                    outs[bi] = Some(state);
                    changed = true;
                }
            }
            if !changed {
                break;
            }
            rounds += 1;
            if rounds > 4 * nb + 1000 {
                return Err(format!(
                    "function {}: the dataflow did not settle",
                    self.fun_name()
                ));
            }
        }
        // The checks, from the settled entry states.
        for bi in 0..nb {
            let Some(mut state) = self.entry_state(bi, &outs) else {
                continue;
            };
            self.run_block(bi, &mut state, true)?;
        }
        self.check_callee_saved()
    }

    /// Every callee-saved register written is saved by the frame.
    fn check_callee_saved(&self) -> Result<(), String> {
        let g = self.g;
        let saved = callee_saved(self.target);
        for blk in &self.blocks {
            for &n in blk.phis.iter().chain(&blk.body) {
                if classify(g, self.target, n).is_none() {
                    continue;
                }
                if let Some(&Loc::Reg(r)) = self.alloc.loc.get(&n) {
                    if has(saved, r) && !has(self.frame.callee_saved, r) {
                        return Err(self.err(
                            blk.head,
                            n,
                            format!(
                                "writes the callee-saved register {}, which the frame does not save (it saves {})",
                                reg_name(self.target, r),
                                self.mask_name(self.frame.callee_saved)
                            ),
                        ));
                    }
                }
            }
        }
        Ok(())
    }
}
