//! What of a committed change reaches the machine code.
//!
//! From `post_scheduler` to `preemit` the allocator and the encoder walk
//! the graph block by block, and in each block the nodes of the local
//! schedule, in its order. That list is what a pass may change: it may
//! erase an instruction that came from the local schedule, or move one
//! (within its block or to another block), and [`apply`] writes each
//! block's new list back. Everything else the view shows is the graph's,
//! the allocation's or the encoder's own doing (the blocks and their
//! edges, phis, the control nodes that end a block, operands, the frame),
//! so a mutation that changes any of it there is refused at commit by
//! [`representable`], with the reason, and rolled back: a pass never
//! sees an edit accepted that the code would not carry.

use super::function::*;
use crate::codegen::CodeGen;

/// Whether the change from `base` (the function as the hook built it) to
/// `staged` can be written back (see the module's documentation).
pub fn representable(base: &MachineFunction, staged: &MachineFunction) -> Result<(), String> {
    if base.order != staged.order {
        return Err("blocks were created, erased or moved: the layout is the encoder's".into());
    }
    for &b in &base.order {
        let (x, y) = (base.block(b), staged.block(b));
        if x.succs != y.succs || x.preds != y.preds {
            return Err(format!(
                "the edges of {} changed: the CFG is the graph's",
                base.label(b)
            ));
        }
    }
    if base.stack != staged.stack
        || base.const_pool != staged.const_pool
        || base.callee_saved != staged.callee_saved
        || base.live_ins != staged.live_ins
    {
        return Err("the frame, the constant pool or the live-ins changed: they are the allocator's and the encoder's".into());
    }
    let n = base.insts.len();
    for (b, i) in staged.placed() {
        if i.0 as usize >= n {
            return Err(format!(
                "{} gained a new instruction ({}): only erasing and moving scheduled instructions reaches the code here",
                staged.label(b),
                staged.inst(i).opcode
            ));
        }
    }
    for k in 0..n {
        if !same_but_flags(&base.insts[k], &staged.insts[k]) {
            return Err(format!(
                "instruction {} ({}) changed: its operands are the graph's and the allocation's",
                k, base.insts[k].opcode
            ));
        }
    }
    let local = |mf: &MachineFunction, i: InstId| matches!(mf.inst(i).origin, Origin::Local(_));
    for &b in &base.order {
        let (x, y) = (&base.block(b).insts, &staged.block(b).insts);
        // Phis (and a prologue) first, then the local schedule, then what
        // ends the block: only the middle may change.
        let head = x
            .iter()
            .take_while(|&&i| !local(base, i) && !is_tail(base, i))
            .count();
        let tail: Vec<InstId> = x[head..]
            .iter()
            .copied()
            .filter(|&i| !local(base, i))
            .collect();
        let ok = y.len() >= head + tail.len()
            && y[..head] == x[..head]
            && y[y.len() - tail.len()..] == tail[..]
            && y[head..y.len() - tail.len()]
                .iter()
                .all(|&i| local(staged, i));
        if !ok {
            return Err(format!(
                "{}: only instructions of the local schedule may be erased or moved, between the phis and what ends the block",
                base.label(b)
            ));
        }
    }
    Ok(())
}

/// A control node, an epilogue or a jump: what ends a block.
fn is_tail(mf: &MachineFunction, i: InstId) -> bool {
    let inst = mf.inst(i);
    matches!(inst.origin, Origin::Control(_)) || inst.flags.frame_destroy || inst.opcode == "JMP"
}

/// Equal but for kill and dead flags (which only describe).
fn same_but_flags(a: &MachineInst, b: &MachineInst) -> bool {
    let strip = |i: &MachineInst| {
        let mut i = i.clone();
        for o in &mut i.operands {
            if let Operand::Reg(r) = o {
                r.kill = false;
                r.dead = false;
            }
        }
        i
    };
    strip(a) == strip(b)
}

/// Writes each block's instructions of the local schedule back into
/// `code.local` (for blocks whose list changed).
pub fn apply(code: &mut CodeGen, base: &MachineModule, module: &MachineModule) {
    let Some(local) = code.local.as_mut() else {
        return;
    };
    for (b, mf) in base.functions.iter().zip(&module.functions) {
        if b == mf {
            continue;
        }
        for &blk in &mf.order {
            let Some(head) = mf.block(blk).head else {
                continue;
            };
            let nodes: Vec<_> = mf
                .block(blk)
                .insts
                .iter()
                .filter_map(|&i| match mf.inst(i).origin {
                    Origin::Local(n) => Some(n),
                    _ => None,
                })
                .collect();
            let old = local.get(&head).map(Vec::as_slice).unwrap_or(&[]);
            if old != nodes.as_slice() {
                local.insert(head, nodes);
            }
        }
    }
}
