//! Mutations: every change to a machine function is staged inside one,
//! bound to one function, and takes effect only when it commits.
//!
//! A [`Mutation`] holds a copy of the function and applies each staged
//! edit to the copy at once (so later edits see earlier ones, and
//! [`Mutation::function`] shows the result so far). Committing
//! ([`crate::mir::PassContext::commit`]) runs the structural pre-check and
//! the machine verifier on the copy, and only if both accept it does the
//! copy replace the function. Dropping a mutation, or a refused commit,
//! aborts it: the function was never touched, so its block order,
//! instructions, operands, edges and properties are exactly as before.
//!
//! An edit that names something that is not there (a block that is not
//! laid out, an operand past the end) fails at once with
//! [`MirError::Invalid`] and changes nothing. Properties are set with a
//! [`Proof`]: giving one up is always allowed; claiming one runs its
//! structural check on the staged copy first.

use super::analysis::mark_liveness_flags;
use super::function::*;
use super::verify::check_property;
use super::MirError;
use crate::mach::RegMask;

/// How a property is set.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Proof {
    /// The change broke the property's premise: drop it. Always allowed.
    Invalidation,
    /// Claim it; the structural check must find that it holds.
    StructuralCheck,
}

/// Staged edits to one function (see the module's documentation).
#[derive(Clone, Debug)]
pub struct Mutation {
    pub(crate) func: usize,
    pub(crate) staged: MachineFunction,
    /// What the edits touched, for dropping analyses on commit.
    pub(crate) touched_cfg: bool,
    pub(crate) touched_code: bool,
}

fn invalid<T>(why: String) -> Result<T, MirError> {
    Err(MirError::Invalid(why))
}

impl Mutation {
    pub(crate) fn new(func: usize, mf: &MachineFunction) -> Self {
        Mutation {
            func,
            staged: mf.clone(),
            touched_cfg: false,
            touched_code: false,
        }
    }

    /// The function as the staged edits leave it.
    pub fn function(&self) -> &MachineFunction {
        &self.staged
    }

    /// Which function of the module it is bound to.
    pub fn function_index(&self) -> usize {
        self.func
    }

    fn laid_out(&self, b: BlockId) -> Result<(), MirError> {
        if self.staged.has_block(b) {
            Ok(())
        } else {
            invalid(format!("block bb.{} is not laid out", b.0))
        }
    }

    fn exists(&self, i: InstId) -> Result<(), MirError> {
        if (i.0 as usize) < self.staged.insts.len() {
            Ok(())
        } else {
            invalid(format!("no instruction {}", i.0))
        }
    }

    /// Where instruction `i` is: its block (or `None` if floating) and
    /// its position.
    fn find(&self, i: InstId) -> Option<(Option<BlockId>, usize)> {
        let mf = &self.staged;
        for &b in &mf.order {
            if let Some(k) = mf.block(b).insts.iter().position(|&x| x == i) {
                return Some((Some(b), k));
            }
        }
        mf.floating.iter().position(|&x| x == i).map(|k| (None, k))
    }

    fn unlink(&mut self, i: InstId) {
        match self.find(i) {
            Some((Some(b), k)) => {
                self.staged.blocks[b.0 as usize].insts.remove(k);
            }
            Some((None, k)) => {
                self.staged.floating.remove(k);
            }
            None => {}
        }
    }

    /// Puts `i` into `b` before `before` (at the end if `None`).
    fn link(&mut self, i: InstId, b: BlockId, before: Option<InstId>) -> Result<(), MirError> {
        let insts = &mut self.staged.blocks[b.0 as usize].insts;
        let at = match before {
            None => insts.len(),
            Some(x) => match insts.iter().position(|&y| y == x) {
                Some(k) => k,
                None => return invalid(format!("instruction {} is not in bb.{}", x.0, b.0)),
            },
        };
        insts.insert(at, i);
        Ok(())
    }

    /// A new empty block, laid out last.
    pub fn create_block(&mut self) -> BlockId {
        let id = BlockId(self.staged.blocks.len() as u32);
        self.staged.blocks.push(MachineBlock::new(None));
        self.staged.order.push(id);
        self.touched_cfg = true;
        id
    }

    /// Moves block `b` to position `index` of the layout.
    pub fn move_block(&mut self, b: BlockId, index: usize) -> Result<(), MirError> {
        self.laid_out(b)?;
        if index >= self.staged.order.len() {
            return invalid(format!("no position {index} in the layout"));
        }
        self.staged.order.retain(|&x| x != b);
        self.staged.order.insert(index, b);
        self.touched_cfg = true;
        Ok(())
    }

    /// Erases block `b` and its instructions (edges to it from other
    /// blocks stay: remove them first, or the commit refuses).
    pub fn erase_block(&mut self, b: BlockId) -> Result<(), MirError> {
        self.laid_out(b)?;
        self.staged.order.retain(|&x| x != b);
        let blk = &mut self.staged.blocks[b.0 as usize];
        blk.insts.clear();
        blk.succs.clear();
        blk.preds.clear();
        self.touched_cfg = true;
        Ok(())
    }

    /// A new instruction in `b`, before `before` (at the end if `None`).
    pub fn create_inst(
        &mut self,
        b: BlockId,
        before: Option<InstId>,
        opcode: &str,
        flags: InstFlags,
    ) -> Result<InstId, MirError> {
        self.laid_out(b)?;
        let id = InstId(self.staged.insts.len() as u32);
        let mut inst = MachineInst::new(opcode, Origin::Pass);
        inst.flags = flags;
        self.staged.insts.push(inst);
        if let Err(e) = self.link(id, b, before) {
            self.staged.insts.pop();
            return Err(e);
        }
        self.touched_code = true;
        Ok(id)
    }

    /// Moves instruction `i` into `b`, before `before` (at the end if
    /// `None`).
    pub fn move_inst(
        &mut self,
        i: InstId,
        b: BlockId,
        before: Option<InstId>,
    ) -> Result<(), MirError> {
        self.exists(i)?;
        self.laid_out(b)?;
        if before == Some(i) {
            return invalid("an instruction cannot go before itself".into());
        }
        let was = self.find(i);
        self.unlink(i);
        if let Err(e) = self.link(i, b, before) {
            // Put it back where it was.
            match was {
                Some((Some(ob), k)) => self.staged.blocks[ob.0 as usize].insts.insert(k, i),
                Some((None, k)) => self.staged.floating.insert(k, i),
                None => {}
            }
            return Err(e);
        }
        self.touched_code = true;
        Ok(())
    }

    /// Erases instruction `i`.
    pub fn erase_inst(&mut self, i: InstId) -> Result<(), MirError> {
        self.exists(i)?;
        if self.find(i).is_none() {
            return invalid(format!("instruction {} is already erased", i.0));
        }
        self.unlink(i);
        self.touched_code = true;
        Ok(())
    }

    /// Appends operand `o` to instruction `i`; returns its index.
    pub fn append_operand(&mut self, i: InstId, o: Operand) -> Result<usize, MirError> {
        self.exists(i)?;
        let ops = &mut self.staged.insts[i.0 as usize].operands;
        ops.push(o);
        self.touched_code = true;
        Ok(ops.len() - 1)
    }

    /// Replaces operand `k` of instruction `i`.
    pub fn set_operand(&mut self, i: InstId, k: usize, o: Operand) -> Result<(), MirError> {
        self.exists(i)?;
        match self.staged.insts[i.0 as usize].operands.get_mut(k) {
            Some(slot) => *slot = o,
            None => return invalid(format!("instruction {} has no operand {k}", i.0)),
        }
        self.touched_code = true;
        Ok(())
    }

    pub fn set_flags(&mut self, i: InstId, flags: InstFlags) -> Result<(), MirError> {
        self.exists(i)?;
        self.staged.insts[i.0 as usize].flags = flags;
        self.touched_code = true;
        Ok(())
    }

    /// Adds the CFG edge `from -> to` (both lists).
    pub fn add_edge(&mut self, from: BlockId, to: BlockId) -> Result<(), MirError> {
        self.laid_out(from)?;
        self.laid_out(to)?;
        self.staged.blocks[from.0 as usize].succs.push(to);
        self.staged.blocks[to.0 as usize].preds.push(from);
        self.touched_cfg = true;
        Ok(())
    }

    /// Removes the CFG edge `from -> to` (both lists).
    pub fn remove_edge(&mut self, from: BlockId, to: BlockId) -> Result<(), MirError> {
        self.laid_out(from)?;
        self.laid_out(to)?;
        let succs = &mut self.staged.blocks[from.0 as usize].succs;
        let Some(k) = succs.iter().position(|&s| s == to) else {
            return invalid(format!("no edge bb.{} -> bb.{}", from.0, to.0));
        };
        succs.remove(k);
        let preds = &mut self.staged.blocks[to.0 as usize].preds;
        if let Some(k) = preds.iter().position(|&p| p == from) {
            preds.remove(k);
        }
        self.touched_cfg = true;
        Ok(())
    }

    /// A virtual register no instruction uses yet.
    pub fn create_vreg(&mut self) -> Reg {
        let used = self
            .staged
            .insts
            .iter()
            .flat_map(|i| i.regs())
            .map(|r| r.reg)
            .chain(self.staged.live_ins.iter().copied())
            .filter_map(|r| match r {
                Reg::Virt(v) => Some(v),
                Reg::Phys(_) => None,
            })
            .max();
        Reg::Virt(used.map_or(0, |v| v + 1))
    }

    /// Rewrites every occurrence of register `from` into `to`; returns how
    /// many operands changed.
    pub fn replace_reg(&mut self, from: Reg, to: Reg) -> usize {
        let mut n = 0;
        for inst in &mut self.staged.insts {
            for o in &mut inst.operands {
                if let Operand::Reg(r) = o {
                    if r.reg == from {
                        r.reg = to;
                        n += 1;
                    }
                }
            }
        }
        if n > 0 {
            self.touched_code = true;
        }
        n
    }

    pub fn add_live_in(&mut self, r: Reg) {
        if !self.staged.live_ins.contains(&r) {
            self.staged.live_ins.push(r);
            self.staged.live_ins.sort();
            self.touched_code = true;
        }
    }

    pub fn remove_live_in(&mut self, r: Reg) {
        self.staged.live_ins.retain(|&x| x != r);
        self.touched_code = true;
    }

    /// A new stack object; returns its index.
    pub fn create_stack_object(&mut self, size: u32, align: u32, spill: bool) -> u32 {
        self.staged.stack.push(StackObject {
            size,
            align,
            kind: if spill {
                StackKind::Spill
            } else {
                StackKind::Local
            },
            offset: None,
        });
        self.touched_code = true;
        self.staged.stack.len() as u32 - 1
    }

    /// Changes a stack object's size, alignment and offset.
    pub fn set_stack_object(
        &mut self,
        k: u32,
        size: u32,
        align: u32,
        offset: Option<u32>,
    ) -> Result<(), MirError> {
        let Some(o) = self.staged.stack.get_mut(k as usize) else {
            return invalid(format!("no stack object {k}"));
        };
        o.size = size;
        o.align = align;
        o.offset = offset;
        self.touched_code = true;
        Ok(())
    }

    /// A constant-pool entry holding `bits`; returns its index.
    pub fn create_const(&mut self, bits: u64, align: u32) -> u32 {
        self.staged.const_pool.push(ConstEntry { bits, align });
        self.touched_code = true;
        self.staged.const_pool.len() as u32 - 1
    }

    /// Replaces the callee-saved registers the function writes.
    pub fn set_callee_saved(&mut self, saved: RegMask) {
        self.staged.callee_saved = Some(saved);
        self.touched_code = true;
    }

    /// Sets every kill and dead flag from liveness (a function with exact
    /// flags may then claim [`Property::TracksLiveness`]).
    pub fn mark_liveness_flags(&mut self) {
        mark_liveness_flags(&mut self.staged);
        self.touched_code = true;
    }

    /// Drops (`Invalidation`) or claims (`StructuralCheck`) property `p`.
    pub fn set_property(&mut self, p: Property, proof: Proof) -> Result<(), MirError> {
        match proof {
            Proof::Invalidation => self.staged.props.set(p, false),
            Proof::StructuralCheck => {
                check_property(&self.staged, p)
                    .map_err(|why| MirError::PropertyRefused { property: p, why })?;
                self.staged.props.set(p, true);
            }
        }
        Ok(())
    }
}
