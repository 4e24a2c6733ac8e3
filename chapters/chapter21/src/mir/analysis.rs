//! Analyses a pass may ask for: liveness, the dominator tree, loops and
//! register pressure, computed on the machine function view.
//!
//! Each needs blocks with their instructions in order, so each exists
//! from `post_scheduler` on; before that (at `post_isel`, say) asking for
//! one is a clear [`MirError::Unavailable`](super::MirError::Unavailable),
//! as a pass must not build on an order that does not exist yet. Results
//! are cached per function for the run of one hook; a committed mutation
//! drops the results it may have changed (any change: liveness and
//! pressure; a change of the CFG: all four).
//!
//! Liveness is the usual backward dataflow over registers: live-in =
//! read-before-written ∪ (live-out − written), live-out = ∪ live-in of the
//! successors, where a phi's value is live out of the predecessor it
//! comes from (not into the phi's block) and a phi's result is written
//! as control enters. Dominators are computed by Cooper, Harvey and
//! Kennedy's iteration over the layout order; a loop is a header and the
//! blocks of its back edges' natural loops; a block's register pressure
//! is the most registers live at once in it.

use super::function::*;
use super::{Hook, MirError};
use std::collections::BTreeSet;

/// The analyses, as a pass names what it needs and what it preserves.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Analysis {
    Liveness,
    DominatorTree,
    Loops,
    RegisterPressure,
}

impl Analysis {
    pub const ALL: [Analysis; 4] = [
        Analysis::Liveness,
        Analysis::DominatorTree,
        Analysis::Loops,
        Analysis::RegisterPressure,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Analysis::Liveness => "liveness",
            Analysis::DominatorTree => "dominator_tree",
            Analysis::Loops => "loops",
            Analysis::RegisterPressure => "register_pressure",
        }
    }

    /// The hooks where it exists.
    pub fn available_at(self, hook: Hook) -> bool {
        hook.scheduled()
    }

    /// Only a change of the CFG changes it.
    pub fn depends_on_cfg_only(self) -> bool {
        matches!(self, Analysis::DominatorTree | Analysis::Loops)
    }

    /// Computes it for `mf` at `hook`.
    pub fn compute(self, mf: &MachineFunction, hook: Hook) -> Result<AnalysisResult, MirError> {
        if !self.available_at(hook) || !mf.scheduled {
            return Err(MirError::Unavailable {
                analysis: self,
                hook,
            });
        }
        Ok(match self {
            Analysis::Liveness => AnalysisResult::Liveness(liveness(mf)),
            Analysis::DominatorTree => AnalysisResult::Dominators(dominators(mf)),
            Analysis::Loops => AnalysisResult::Loops(loops(mf, &dominators(mf))),
            Analysis::RegisterPressure => AnalysisResult::Pressure(pressure(mf, &liveness(mf))),
        })
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AnalysisResult {
    Liveness(Liveness),
    Dominators(Dominators),
    Loops(Loops),
    Pressure(Vec<u32>),
}

/// Registers live into and out of each block (indexed by [`BlockId`]).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Liveness {
    pub live_in: Vec<BTreeSet<Reg>>,
    pub live_out: Vec<BTreeSet<Reg>>,
}

impl Liveness {
    pub fn is_live_in(&self, b: BlockId, r: Reg) -> bool {
        self.live_in[b.0 as usize].contains(&r)
    }
}

/// The immediate dominator of each laid-out block (the entry's is itself).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Dominators {
    pub idom: Vec<Option<BlockId>>,
}

impl Dominators {
    pub fn dominates(&self, a: BlockId, mut b: BlockId) -> bool {
        loop {
            if a == b {
                return true;
            }
            match self.idom[b.0 as usize] {
                Some(d) if d != b => b = d,
                _ => return false,
            }
        }
    }
}

/// The loops: headers in layout order, and each block's depth and
/// innermost header.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Loops {
    pub headers: Vec<BlockId>,
    pub depth: Vec<u32>,
    pub innermost: Vec<Option<BlockId>>,
}

fn liveness(mf: &MachineFunction) -> Liveness {
    let n = mf.blocks.len();
    let mut live = Liveness {
        live_in: vec![BTreeSet::new(); n],
        live_out: vec![BTreeSet::new(); n],
    };
    // What each block reads before writing, what it writes, and the phi
    // values it sends to each successor.
    let mut gen = vec![BTreeSet::new(); n];
    let mut kill = vec![BTreeSet::new(); n];
    let mut phi_out: Vec<BTreeSet<Reg>> = vec![BTreeSet::new(); n];
    for &b in &mf.order {
        let bi = b.0 as usize;
        for &i in &mf.block(b).insts {
            let inst = mf.inst(i);
            if inst.is_phi() {
                let mut last = None;
                for o in inst.operands.iter().rev() {
                    match o {
                        Operand::Block(p) => last = Some(*p),
                        Operand::Reg(r) if !r.def => {
                            if let Some(p) = last {
                                phi_out[p.0 as usize].insert(r.reg);
                            }
                        }
                        _ => {}
                    }
                }
            } else {
                for r in inst.uses() {
                    if !kill[bi].contains(&r.reg) {
                        gen[bi].insert(r.reg);
                    }
                }
            }
            for r in inst.defs() {
                kill[bi].insert(r.reg);
            }
        }
    }
    loop {
        let mut changed = false;
        for &b in mf.order.iter().rev() {
            let bi = b.0 as usize;
            let mut out: BTreeSet<Reg> = phi_out[bi].clone();
            for s in &mf.block(b).succs {
                out.extend(live.live_in[s.0 as usize].iter().copied());
            }
            let mut inn: BTreeSet<Reg> = gen[bi].clone();
            inn.extend(out.iter().filter(|r| !kill[bi].contains(r)).copied());
            if out != live.live_out[bi] || inn != live.live_in[bi] {
                live.live_out[bi] = out;
                live.live_in[bi] = inn;
                changed = true;
            }
        }
        if !changed {
            return live;
        }
    }
}

fn dominators(mf: &MachineFunction) -> Dominators {
    let n = mf.blocks.len();
    let mut rpo_pos = vec![usize::MAX; n];
    for (k, b) in mf.order.iter().enumerate() {
        rpo_pos[b.0 as usize] = k;
    }
    let mut idom: Vec<Option<BlockId>> = vec![None; n];
    let Some(&entry) = mf.order.first() else {
        return Dominators { idom };
    };
    idom[entry.0 as usize] = Some(entry);
    let intersect = |idom: &Vec<Option<BlockId>>, mut a: BlockId, mut b: BlockId| {
        while a != b {
            while rpo_pos[a.0 as usize] > rpo_pos[b.0 as usize] {
                a = idom[a.0 as usize].unwrap_or(entry);
            }
            while rpo_pos[b.0 as usize] > rpo_pos[a.0 as usize] {
                b = idom[b.0 as usize].unwrap_or(entry);
            }
        }
        a
    };
    loop {
        let mut changed = false;
        for &b in &mf.order[1..] {
            let mut new = None;
            for &p in &mf.block(b).preds {
                if idom[p.0 as usize].is_none() {
                    continue;
                }
                new = Some(match new {
                    None => p,
                    Some(d) => intersect(&idom, p, d),
                });
            }
            if new.is_some() && idom[b.0 as usize] != new {
                idom[b.0 as usize] = new;
                changed = true;
            }
        }
        if !changed {
            return Dominators { idom };
        }
    }
}

fn loops(mf: &MachineFunction, dom: &Dominators) -> Loops {
    let n = mf.blocks.len();
    let mut out = Loops {
        headers: Vec::new(),
        depth: vec![0; n],
        innermost: vec![None; n],
    };
    for &h in &mf.order {
        let latches: Vec<BlockId> = mf
            .block(h)
            .preds
            .iter()
            .copied()
            .filter(|&p| dom.dominates(h, p))
            .collect();
        if latches.is_empty() {
            continue;
        }
        out.headers.push(h);
        // The natural loop: walk back from the latches to the header.
        let mut body: BTreeSet<BlockId> = BTreeSet::from([h]);
        let mut work = latches;
        while let Some(b) = work.pop() {
            if body.insert(b) {
                work.extend(mf.block(b).preds.iter().copied());
            }
        }
        // Headers come in layout order, outer before inner, so the last
        // one to claim a block is its innermost loop.
        for b in body {
            out.depth[b.0 as usize] += 1;
            out.innermost[b.0 as usize] = Some(h);
        }
    }
    out
}

fn pressure(mf: &MachineFunction, live: &Liveness) -> Vec<u32> {
    let mut out = vec![0; mf.blocks.len()];
    for &b in &mf.order {
        let bi = b.0 as usize;
        let mut cur = live.live_out[bi].clone();
        let mut most = cur.len();
        for &i in mf.block(b).insts.iter().rev() {
            let inst = mf.inst(i);
            for r in inst.defs() {
                cur.remove(&r.reg);
            }
            if !inst.is_phi() {
                cur.extend(inst.uses().map(|r| r.reg));
            }
            most = most.max(cur.len());
        }
        out[bi] = most as u32;
    }
    out
}

/// Sets every kill and dead flag of `mf` from its liveness.
pub fn mark_liveness_flags(mf: &mut MachineFunction) {
    let live = liveness(mf);
    for b in mf.order.clone() {
        let mut cur = live.live_out[b.0 as usize].clone();
        for i in mf.block(b).insts.clone().into_iter().rev() {
            let inst = &mut mf.insts[i.0 as usize];
            let phi = inst.is_phi();
            for o in inst.operands.iter_mut() {
                if let Operand::Reg(r) = o {
                    if r.def {
                        r.dead = !cur.contains(&r.reg);
                    }
                }
            }
            for o in inst.operands.iter() {
                if let Operand::Reg(r) = o {
                    if r.def {
                        cur.remove(&r.reg);
                    }
                }
            }
            for o in inst.operands.iter_mut() {
                if let Operand::Reg(r) = o {
                    if !r.def {
                        r.kill = !phi && !cur.contains(&r.reg);
                    }
                }
            }
            if !phi {
                for o in inst.operands.iter() {
                    if let Operand::Reg(r) = o {
                        if !r.def {
                            cur.insert(r.reg);
                        }
                    }
                }
            }
        }
    }
}

/// The structural check of [`Property::TracksLiveness`]: every kill and
/// dead flag is what liveness says.
pub fn check_liveness_flags(mf: &MachineFunction) -> Result<(), String> {
    if !mf.scheduled {
        return Err("liveness needs scheduled blocks".into());
    }
    let mut exact = mf.clone();
    mark_liveness_flags(&mut exact);
    for i in mf.all_insts() {
        if mf.inst(i).operands != exact.inst(i).operands {
            return Err(format!(
                "instruction {} ({}) has kill or dead flags liveness does not agree with",
                i.0,
                mf.inst(i).opcode
            ));
        }
    }
    Ok(())
}
