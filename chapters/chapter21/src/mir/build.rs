//! Building the machine function view from what the backend holds at a
//! hook.
//!
//! Before scheduling ([`Hook::scheduled`] false) a function is its
//! regions in reverse post-order from its entry, each holding what is
//! pinned there (value phis, pinned nodes such as a call's result, the
//! control nodes that end it), and its other machine nodes as
//! `floating`, found by walking the inputs of what is pinned (a node
//! several functions reach is listed with the first, in the order of the
//! functions' entries). From `post_scheduler` on, a function is the
//! allocator's layout ([`crate::regalloc::build::layout`]): each block's
//! phis, its local schedule, the control nodes that end it, and a `JMP`
//! where control flows on to a single successor without a branch (the
//! encoder leaves it out when that block comes next). Operands are the
//! allocator's view of each node: the registers it may write and read
//! (as virtual registers, the values of nodes, until allocation, then
//! the locations the allocation gave them), its immediates, the blocks a
//! branch goes to, what a call destroys. From `post_prolog_epilog` on,
//! stack objects have their offsets and the entry block starts with a
//! `PROLOGUE`, each return comes after an `EPILOGUE` (markers: the
//! encoder writes the instructions).

use super::function::*;
use super::verify::check_property;
use super::Hook;
use crate::codegen::CodeGen;
use crate::encode::frame::FrameLayout;
use crate::gcm::{is_block_head, is_pinned};
use crate::graph::{Graph, NodeId};
use crate::mach::{mach, Op, RegMask};
use crate::node::{is_cfg, NodeKind};
use crate::regalloc::build::{self as layout, Ctx};
use crate::regalloc::{Allocation, Loc};
use crate::types::TypeId;
use rustc_hash::{FxHashMap, FxHashSet};

/// The view of the whole program at `hook`; `None` before instruction
/// selection.
pub fn module(code: &CodeGen, hook: Hook) -> Option<MachineModule> {
    let target = code.target?;
    let g = &code.graph;
    let cx = Ctx::new(g, target);
    let names = symbols(g);
    let mut functions = Vec::new();
    match (&code.schedule, &code.local) {
        (Some(s), Some(local)) if hook.scheduled() => {
            let lay = layout::layout(&cx, s, local);
            let alloc = code.alloc.as_ref().filter(|_| hook.allocated());
            for (f, ids) in &lay.funs {
                let heads: Vec<NodeId> = ids.iter().map(|&b| lay.blocks[b].head).collect();
                let frame = match alloc {
                    Some(a) if hook >= Hook::PostPrologEpilog => {
                        Some(FrameLayout::new(g, a, target, *f, &heads, local))
                    }
                    _ => None,
                };
                let mut b = Builder::new(&cx, &names, *f, alloc, frame);
                b.scheduled(&lay, ids);
                functions.push(b.finish(hook));
            }
        }
        _ => {
            let mut claimed = FxHashSet::default();
            for f in layout::functions(g) {
                let mut b = Builder::new(&cx, &names, f, None, None);
                b.unscheduled(&mut claimed);
                functions.push(b.finish(hook));
            }
        }
    }
    Some(MachineModule { hook, functions })
}

/// Each function's symbol, by its signature and index (as a call names
/// its callee), and by its Fun node.
struct Symbols {
    by_key: FxHashMap<(TypeId, u32), String>,
    by_fun: FxHashMap<NodeId, String>,
}

fn symbols(g: &Graph) -> Symbols {
    let mut taken = FxHashSet::default();
    let mut s = Symbols {
        by_key: FxHashMap::default(),
        by_fun: FxHashMap::default(),
    };
    for f in layout::functions(g) {
        let (name, _) = crate::encode::symbol_name(g, f, &mut taken);
        if let NodeKind::Fun { sig, .. } = *g.role(f) {
            if let Some(key) = g.types.single_fidx(sig) {
                s.by_key.insert(key, name.clone());
            }
        }
        s.by_fun.insert(f, name);
    }
    s
}

struct Builder<'a> {
    cx: &'a Ctx<'a>,
    g: &'a Graph,
    names: &'a Symbols,
    alloc: Option<&'a Allocation>,
    frame: Option<FrameLayout>,
    mf: MachineFunction,
    /// The stack object of each stack location.
    objects: FxHashMap<Loc, u32>,
    /// The constant-pool entry of each double's bits.
    pool: FxHashMap<u64, u32>,
}

impl<'a> Builder<'a> {
    fn new(
        cx: &'a Ctx<'a>,
        names: &'a Symbols,
        f: NodeId,
        alloc: Option<&'a Allocation>,
        frame: Option<FrameLayout>,
    ) -> Self {
        let mut b = Builder {
            cx,
            g: cx.g,
            names,
            alloc,
            frame,
            mf: MachineFunction {
                name: names.by_fun.get(&f).cloned().unwrap_or_default(),
                fun: f,
                cpu: cx.target.cpu,
                scheduled: false,
                blocks: Vec::new(),
                order: Vec::new(),
                insts: Vec::new(),
                floating: Vec::new(),
                live_ins: Vec::new(),
                stack: Vec::new(),
                const_pool: Vec::new(),
                callee_saved: None,
                props: Properties::default(),
            },
            objects: FxHashMap::default(),
            pool: FxHashMap::default(),
        };
        // Spill slots first, numbered as the allocator numbers them.
        if let Some(fr) = alloc.and_then(|a| a.frames.get(&f)) {
            for k in 0..fr.slots {
                b.object(Loc::Slot(k));
            }
            for k in 0..fr.out_args {
                b.object(Loc::OutArg(k));
            }
            b.mf.callee_saved = Some(fr.callee_saved);
        } else if alloc.is_some() {
            b.mf.callee_saved = Some(RegMask::EMPTY);
        }
        b
    }

    /// The stack object of location `l`, made on first use.
    fn object(&mut self, l: Loc) -> u32 {
        if let Some(&k) = self.objects.get(&l) {
            return k;
        }
        let kind = match l {
            Loc::Slot(_) | Loc::Reg(_) => StackKind::Spill,
            Loc::InArg(k) => StackKind::InArg(k),
            Loc::OutArg(k) => StackKind::OutArg(k),
        };
        let k = self.mf.stack.len() as u32;
        self.mf.stack.push(StackObject {
            size: 8,
            align: 8,
            kind,
            offset: self.frame.as_ref().map(|fr| fr.offset(l)),
        });
        self.objects.insert(l, k);
        k
    }

    /// Where value `n` is, as an operand: its virtual register before
    /// allocation, its location after (`None`: it has none).
    fn value(&mut self, n: NodeId, mask: RegMask, def: bool) -> Option<Operand> {
        let Some(a) = self.alloc else {
            let r = Reg::Virt(n.nid());
            return Some(Operand::Reg(if def {
                RegOperand::def(r, mask)
            } else {
                RegOperand::use_(r, mask)
            }));
        };
        match *a.loc.get(&n)? {
            Loc::Reg(r) => {
                let r = Reg::Phys(r);
                Some(Operand::Reg(if def {
                    RegOperand::def(r, mask)
                } else {
                    RegOperand::use_(r, mask)
                }))
            }
            l => Some(Operand::Stack {
                object: self.object(l),
                def,
            }),
        }
    }

    fn add_block(&mut self, head: NodeId, depth: u32) -> BlockId {
        let id = BlockId(self.mf.blocks.len() as u32);
        let mut blk = MachineBlock::new(Some(head));
        blk.loop_depth = depth;
        self.mf.blocks.push(blk);
        self.mf.order.push(id);
        id
    }

    fn push(&mut self, b: Option<BlockId>, inst: MachineInst) -> InstId {
        let id = InstId(self.mf.insts.len() as u32);
        self.mf.insts.push(inst);
        match b {
            Some(b) => self.mf.blocks[b.0 as usize].insts.push(id),
            None => self.mf.floating.push(id),
        }
        id
    }

    /// The instruction for node `n`; `succs`: the blocks a branch goes
    /// to; `preds`: for a phi, the block of each of its region's inputs.
    fn inst(
        &mut self,
        n: NodeId,
        origin: Origin,
        succs: &[BlockId],
        preds: &[Option<BlockId>],
    ) -> MachineInst {
        let g = self.g;
        let cx = self.cx;
        let phi = matches!(origin, Origin::Phi(_));
        let m = mach(g, n);
        let opcode = match (m, g.role(n)) {
            (Some(m), _) if m.op == Op::Split => "COPY".to_string(),
            (Some(m), _) if m.op == Op::Parm => "PARM".to_string(),
            (Some(m), _) => crate::cpu::name(cx.target.cpu, m),
            (None, NodeKind::Phi { .. }) => "PHI".to_string(),
            (None, NodeKind::Proj { .. }) => "RESULT".to_string(),
            (None, NodeKind::Never) => "NEVER".to_string(),
            (None, _) => "NODE".to_string(),
        };
        let mut inst = MachineInst::new(&opcode, origin);
        inst.op = m.map(|m| (m.op, m.ty, m.mem_size));
        let op = m.map(|m| m.op);
        inst.flags.branch = matches!(op, Some(Op::Jcc(_) | Op::Branch(_)));
        inst.flags.call = matches!(op, Some(Op::Call | Op::CallR | Op::New));
        inst.flags.ret = op == Some(Op::Ret);
        // A control node of no code with two ways out (an infinite loop's
        // `Never`, whose exit is never taken) ends its block; the encoder
        // emits nothing for it and lays its body out next.
        if m.is_none() && matches!(origin, Origin::Control(_)) && succs.len() > 1 {
            inst.flags.branch = true;
            inst.operands
                .extend(succs.iter().map(|&b| Operand::Block(b)));
        }
        inst.flags.terminator = inst.flags.branch || inst.flags.ret;
        inst.flags.pseudo =
            m.is_none() || matches!(op, Some(Op::Parm | Op::Proj | Op::CallEnd | Op::Fun));
        // The value it defines.
        match cx.def_of(n, phi) {
            Some((_, mask)) => {
                if let Some(o) = self.value(n, mask, true) {
                    inst.operands.push(o);
                }
            }
            None => {
                if let Some(k) = cx.stack_parm(n) {
                    let object = self.object(Loc::InArg(k));
                    inst.operands.push(Operand::Stack { object, def: true });
                }
            }
        }
        // What it reads.
        if phi {
            if op != Some(Op::Parm) {
                for i in 1..g.n_ins(n) {
                    let (Some(x), Some(Some(p))) = (g.input(n, i), preds.get(i - 1)) else {
                        continue;
                    };
                    if !cx.defines_value(x) {
                        continue;
                    }
                    if let Some(o) = self.value(x, cx.bank(x), false) {
                        inst.operands.push(o);
                        inst.operands.push(Operand::Block(*p));
                    }
                }
            }
        } else {
            let tied = m.and_then(|m| crate::cpu::two_address(cx.target.cpu, m));
            for (i, x, mask) in cx.uses(n) {
                if let Some(o) = self.value(x, mask, false) {
                    if tied == Some(i) && op != Some(Op::Split) {
                        inst.tied = Some(inst.operands.len());
                    }
                    inst.operands.push(o);
                }
            }
            for (i, _) in cx.stack_args(n) {
                if let Some(x) = g.input(n, i) {
                    let bank = cx.bank(x);
                    if let Some(o) = self.value(x, bank, false) {
                        inst.operands.push(o);
                    }
                }
            }
        }
        let Some(m) = m else { return inst };
        match m.op {
            Op::AddI
            | Op::MulI
            | Op::AndI
            | Op::OrI
            | Op::XorI
            | Op::ShlI
            | Op::SarI
            | Op::ShrI
            | Op::CmpSetI(_)
            | Op::CmpI
            | Op::Int
            | Op::Lea
            | Op::Load
            | Op::Store
            | Op::AddMem
            | Op::FAddMem
            | Op::CmpMem
            | Op::MemAdd
            | Op::Lui
            | Op::MovK => inst.operands.push(Operand::Imm(m.imm)),
            Op::StoreI => {
                inst.operands.push(Operand::Imm(m.imm));
                inst.operands.push(Operand::Imm(m.imm2));
            }
            Op::Flt => {
                let bits = m.imm as u64;
                inst.operands.push(Operand::FImm(bits));
                let next = self.mf.const_pool.len() as u32;
                let k = *self.pool.entry(bits).or_insert(next);
                if k == next {
                    self.mf.const_pool.push(ConstEntry { bits, align: 8 });
                }
                inst.operands.push(Operand::ConstPool(k));
            }
            Op::FunAddr => {
                if let Some(name) = g
                    .types
                    .single_fidx(g.ty(n))
                    .and_then(|k| self.names.by_key.get(&k))
                {
                    inst.operands.push(Operand::Global(name.clone()));
                }
            }
            Op::Call => {
                if let Some(name) = m
                    .callee
                    .and_then(|t| g.types.single_fidx(t))
                    .and_then(|k| self.names.by_key.get(&k))
                {
                    inst.operands.push(Operand::Global(name.clone()));
                }
            }
            _ => {}
        }
        if let Some(name) = m.libcall {
            inst.operands.push(Operand::External(name.to_string()));
        }
        if let Some(kill) = crate::cpu::kill_mask(cx.target, m) {
            if !kill.is_empty() {
                inst.operands.push(Operand::RegMask(kill));
            }
        }
        if inst.flags.branch {
            inst.operands
                .extend(succs.iter().map(|&b| Operand::Block(b)));
        }
        inst
    }

    /// From the allocator's layout: blocks `ids` of one function.
    fn scheduled(&mut self, lay: &layout::Layout, ids: &[usize]) {
        self.mf.scheduled = true;
        let index: FxHashMap<usize, BlockId> = ids
            .iter()
            .map(|&bi| {
                let id = self.add_block(lay.blocks[bi].head, lay.blocks[bi].depth);
                (bi, id)
            })
            .collect();
        for &bi in ids {
            let blk = &lay.blocks[bi];
            let id = index[&bi];
            let succs: Vec<BlockId> = blk
                .succs
                .iter()
                .filter_map(|s| index.get(s))
                .copied()
                .collect();
            let preds: Vec<Option<BlockId>> = blk
                .preds
                .iter()
                .map(|p| p.and_then(|p| index.get(&p).copied()))
                .collect();
            for &p in &blk.phis {
                let inst = self.inst(p, Origin::Phi(p), &[], &preds);
                self.push(Some(id), inst);
            }
            if id == BlockId(0) && self.frame.is_some() {
                self.prologue(id);
            }
            for (k, &n) in blk.insts.iter().enumerate() {
                let origin = if k < blk.n_local {
                    Origin::Local(n)
                } else {
                    Origin::Control(n)
                };
                let inst = self.inst(n, origin, &succs, &preds);
                if inst.flags.ret && self.frame.is_some() {
                    self.epilogue(id);
                }
                self.push(Some(id), inst);
            }
            self.end_block(id, &succs);
        }
        self.link_preds();
    }

    /// A block that does not end in a branch or a return flows on to its
    /// one successor: a `JMP`.
    fn end_block(&mut self, id: BlockId, succs: &[BlockId]) {
        self.mf.blocks[id.0 as usize].succs = succs.to_vec();
        let ends = self.mf.blocks[id.0 as usize]
            .insts
            .last()
            .is_some_and(|&i| self.mf.inst(i).flags.terminator);
        if !ends && succs.len() == 1 {
            let mut jmp = MachineInst::new("JMP", Origin::View);
            jmp.flags.terminator = true;
            jmp.flags.branch = true;
            jmp.flags.pseudo = true;
            jmp.operands.push(Operand::Block(succs[0]));
            self.push(Some(id), jmp);
        }
    }

    fn link_preds(&mut self) {
        let order = self.mf.order.clone();
        for &b in &order {
            for s in self.mf.block(b).succs.clone() {
                self.mf.blocks[s.0 as usize].preds.push(b);
            }
        }
    }

    fn prologue(&mut self, entry: BlockId) {
        let Some(fr) = &self.frame else { return };
        let mut saved = RegMask::EMPTY;
        for &r in fr.pushed.iter().chain(fr.stored.iter().map(|(r, _)| r)) {
            saved = saved.or(RegMask::of(r));
        }
        let mut p = MachineInst::new("PROLOGUE", Origin::View);
        p.flags.pseudo = true;
        p.flags.frame_setup = true;
        p.operands.push(Operand::Imm(i64::from(fr.size)));
        p.operands.push(Operand::RegMask(saved));
        self.push(Some(entry), p);
    }

    fn epilogue(&mut self, b: BlockId) {
        let Some(fr) = &self.frame else { return };
        let mut e = MachineInst::new("EPILOGUE", Origin::View);
        e.flags.pseudo = true;
        e.flags.frame_destroy = true;
        e.operands.push(Operand::Imm(i64::from(fr.size)));
        self.push(Some(b), e);
    }

    /// Before scheduling: regions, what is pinned in them, the rest
    /// floating (see the module's documentation).
    fn unscheduled(&mut self, claimed: &mut FxHashSet<NodeId>) {
        let g = self.g;
        let f = self.mf.fun;
        let heads = crate::asm::reverse_post_order(g, f);
        let index: FxHashMap<NodeId, BlockId> =
            heads.iter().map(|&h| (h, self.add_block(h, 0))).collect();
        let head_of = |mut c: NodeId| -> Option<BlockId> {
            for _ in 0..g.len() + 1 {
                if is_block_head(g, c) {
                    return index.get(&c).copied();
                }
                c = g.input(c, 0)?;
            }
            None
        };
        // Walk from the pinned nodes to everything they need.
        let mut placed: FxHashMap<BlockId, Vec<NodeId>> = FxHashMap::default();
        let mut floating = Vec::new();
        let mut work: Vec<NodeId> = Vec::new();
        let mut tails = Vec::new();
        for &h in &heads {
            let tail = layout::tail(g, h);
            work.extend(
                g.outputs(h)
                    .iter()
                    .copied()
                    .filter(|&p| matches!(g.role(p), NodeKind::Phi { .. }) && self.cx.is_value(p)),
            );
            work.extend(tail.iter().copied());
            tails.push((h, tail));
        }
        let roots: FxHashSet<NodeId> = work.iter().copied().collect();
        while let Some(n) = work.pop() {
            let parm = matches!(g.role(n), NodeKind::Phi { parm: Some(_), .. });
            if !parm {
                for i in 0..g.n_ins(n) {
                    if let Some(x) = g.input(n, i) {
                        if !is_cfg(g, x) && !roots.contains(&x) && claimed.insert(x) {
                            work.push(x);
                            let code = mach(g, x).is_some() || self.cx.defines_value(x);
                            let phi = matches!(g.role(x), NodeKind::Phi { .. });
                            if !code || phi {
                                continue;
                            }
                            match g.input(x, 0).filter(|_| is_pinned(g, x)).and_then(head_of) {
                                Some(b) => placed.entry(b).or_default().push(x),
                                None => floating.push(x),
                            }
                        }
                    }
                }
            }
        }
        for (h, tail) in tails {
            let id = index[&h];
            let last = tail.last().copied().unwrap_or(h);
            let mut succ_nodes = crate::asm::successors(g, last);
            if succ_nodes.is_empty() && last != h {
                succ_nodes = crate::asm::successors(g, h);
            }
            let succs: Vec<BlockId> = succ_nodes
                .iter()
                .filter_map(|s| index.get(s))
                .copied()
                .collect();
            let preds: Vec<Option<BlockId>> =
                if matches!(g.role(h), NodeKind::Region | NodeKind::Loop) {
                    (1..g.n_ins(h))
                        .map(|i| g.input(h, i).and_then(head_of))
                        .collect()
                } else {
                    Vec::new()
                };
            let mut phis: Vec<NodeId> = g
                .outputs(h)
                .iter()
                .copied()
                .filter(|&p| matches!(g.role(p), NodeKind::Phi { .. }) && self.cx.is_value(p))
                .collect();
            phis.sort();
            phis.dedup();
            for p in phis {
                let inst = self.inst(p, Origin::Phi(p), &[], &preds);
                self.push(Some(id), inst);
            }
            let mut pinned = placed.remove(&id).unwrap_or_default();
            pinned.sort();
            for n in pinned {
                let inst = self.inst(n, Origin::Floating(n), &[], &[]);
                self.push(Some(id), inst);
            }
            for n in tail {
                let inst = self.inst(n, Origin::Control(n), &succs, &preds);
                self.push(Some(id), inst);
            }
            self.end_block(id, &succs);
        }
        self.link_preds();
        floating.sort();
        for n in floating {
            let inst = self.inst(n, Origin::Floating(n), &[], &[]);
            self.push(None, inst);
        }
    }

    fn finish(mut self, hook: Hook) -> MachineFunction {
        // Before allocation, a value defined outside the function (a
        // constant left at the program's start) comes in live.
        let mut defined: FxHashSet<Reg> = FxHashSet::default();
        for i in self.mf.all_insts() {
            defined.extend(self.mf.inst(i).defs().map(|r| r.reg));
        }
        let mut live_ins: Vec<Reg> = Vec::new();
        for i in self.mf.all_insts() {
            for r in self.mf.inst(i).uses() {
                if !defined.contains(&r.reg) && r.reg.is_virtual() {
                    live_ins.push(r.reg);
                }
            }
        }
        live_ins.sort();
        live_ins.dedup();
        self.mf.live_ins = live_ins;
        for p in Property::ALL {
            let holds = match p {
                Property::TracksLiveness => false,
                Property::Legalized => hook >= Hook::PostLegalize,
                Property::TiedOpsRewritten => hook.allocated(),
                _ => true,
            };
            let holds = holds && check_property(&self.mf, p).is_ok();
            self.mf.props.set(p, holds);
        }
        self.mf
    }
}
