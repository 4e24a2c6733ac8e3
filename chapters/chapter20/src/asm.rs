//! The listing of `simple asm`: the selected, scheduled machine program,
//! function by function and block by block, each instruction in its CPU's
//! assembler syntax.
//!
//! Registers are still virtual until chapter 20 allocates them: `v12` is
//! the value of node 12. Blocks come in reverse post-order from each
//! function's entry (a block before the blocks it leads to, loops
//! excepted) and are named by their head node (`L17:`). Each block lists
//! its phis (`v9 = phi v3, v12`), then its instructions in the order the
//! local schedule gave them, then the branch, call or return that ends
//! it; a block that flows into a merge ends with a jump to it. Where code
//! is laid out, and which of those jumps fall through, is chapter 21's
//! business.

use crate::gcm::{is_block_head, Schedule};
use crate::graph::{Graph, NodeId};
use crate::mach::{cpu_of, mach, Op};
use crate::node::{fun, is_cfg, NodeKind};
use rustc_hash::FxHashMap;
use std::fmt::Write;

/// The listing of machine graph `g` (scheduled: `s` and `local`).
pub fn listing(
    g: &Graph,
    _s: &Schedule,
    local: &FxHashMap<NodeId, Vec<NodeId>>,
    _stop: NodeId,
) -> String {
    let mut out = String::new();
    let start = g.start();
    let mut funs: Vec<NodeId> = g
        .outputs(start)
        .iter()
        .copied()
        .filter(|&f| matches!(g.role(f), NodeKind::Fun { .. }) && !g.is_dead(f))
        .collect();
    funs.sort();
    funs.dedup();
    for f in funs {
        let _ = writeln!(out, "{}:", fun::label(g, f));
        for blk in reverse_post_order(g, f) {
            if blk != f {
                let _ = writeln!(out, "L{}:", blk.nid());
            }
            block(g, blk, local, &mut out);
        }
        out.push('\n');
    }
    out
}

/// The blocks of the function entered at `f`, in reverse post-order.
fn reverse_post_order(g: &Graph, f: NodeId) -> Vec<NodeId> {
    let mut post = Vec::new();
    let mut seen = vec![false; g.len() + 1];
    // (node, next output to try)
    let mut stack = vec![(f, 0usize)];
    seen[f.nid() as usize] = true;
    while let Some(&mut (n, ref mut next)) = stack.last_mut() {
        let succ = successors(g, n);
        if let Some(&s) = succ.get(*next) {
            *next += 1;
            if !seen[s.nid() as usize] {
                seen[s.nid() as usize] = true;
                stack.push((s, 0));
            }
            continue;
        }
        stack.pop();
        if is_block_head(g, n) {
            post.push(n);
        }
    }
    post.reverse();
    post
}

/// Where control goes from control node `n` within its function: not into
/// a function it calls (nor from a return into the call's end), not to
/// Stop.
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
    // A branch's arms in order: taken (0), not taken (1).
    succ.sort();
    succ.into_iter().map(|(_, u)| u).collect()
}

/// One block: phis, instructions, and what ends it.
fn block(g: &Graph, blk: NodeId, local: &FxHashMap<NodeId, Vec<NodeId>>, out: &mut String) {
    let cpu = cpu_of(g);
    let mut phis: Vec<NodeId> = g
        .outputs(blk)
        .iter()
        .copied()
        .filter(|&p| matches!(g.role(p), NodeKind::Phi { .. }) && is_value(g, p))
        .collect();
    phis.sort();
    for p in phis {
        let args: Vec<String> = (1..g.n_ins(p))
            .map(|i| {
                g.input(p, i)
                    .map_or("_".into(), |x| format!("v{}", x.nid()))
            })
            .collect();
        if matches!(crate::mach::op(g, p), Some(Op::Parm)) {
            let _ = writeln!(out, "    v{} = parm", p.nid());
        } else {
            let _ = writeln!(out, "    v{} = phi {}", p.nid(), args.join(", "));
        }
    }
    for &n in local.get(&blk).map(Vec::as_slice).unwrap_or(&[]) {
        line(g, cpu, n, out);
    }
    // The control node that ends the block, if any besides its successor.
    let mut c = blk;
    loop {
        let next: Vec<NodeId> = g
            .outputs(c)
            .iter()
            .copied()
            .filter(|&u| is_cfg(g, u) && !g.is_dead(u) && !is_block_head(g, u))
            .collect();
        match next.first() {
            Some(&u) => {
                line(g, cpu, u, out);
                c = u;
            }
            None => break,
        }
    }
    // Into a merge: a jump.
    if let Some(&merge) = g
        .outputs(c)
        .iter()
        .find(|&&u| matches!(g.role(u), NodeKind::Region | NodeKind::Loop))
    {
        let _ = writeln!(out, "    jmp L{}", merge.nid());
    }
}

/// A value a register holds: not memory, not control.
fn is_value(g: &Graph, n: NodeId) -> bool {
    g.ty_opt(n)
        .is_some_and(|t| crate::mach::select::is_value(&g.types, t))
}

/// One instruction's line.
fn line(g: &Graph, cpu: crate::mach::Cpu, n: NodeId, out: &mut String) {
    if let Some(m) = mach(g, n) {
        let text = crate::cpu::asm(cpu, g, n, m);
        if !text.is_empty() {
            let _ = writeln!(out, "    {text}");
        }
        return;
    }
    // A projection of a machine node with a value: where its value comes
    // from.
    if matches!(g.role(n), NodeKind::Proj { .. }) && is_value(g, n) {
        let _ = writeln!(out, "    v{} = proj v{}", n.nid(), g.in_(n, 0).nid());
    }
}
