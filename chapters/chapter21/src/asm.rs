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
use crate::mach::{cpu_of, mach, Abi, Cpu, Op, Target};
use crate::node::{fun, is_cfg, NodeKind};
use crate::regalloc::{Allocation, Loc};
use rustc_hash::{FxHashMap, FxHashSet};
use std::fmt::Write;

/// The listing of machine graph `g` (scheduled: `s` and `local`; with
/// registers once `alloc` is known).
pub fn listing(
    g: &Graph,
    _s: &Schedule,
    local: &FxHashMap<NodeId, Vec<NodeId>>,
    _stop: NodeId,
    alloc: Option<(&Allocation, Target)>,
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
    // Where each value lives and which are floats, once for the program
    // (per function, it would be a pass over every value per function).
    let values = alloc.map(|(a, _)| Values::new(g, a));
    for f in funs {
        let _ = writeln!(out, "{}:", fun::label(g, f));
        let blocks = reverse_post_order(g, f);
        let Some((a, target)) = alloc else {
            for blk in blocks {
                if blk != f {
                    let _ = writeln!(out, "L{}:", blk.nid());
                }
                block(g, blk, local, &mut out);
            }
            out.push('\n');
            continue;
        };
        let values = values.as_ref().expect("made when there is an allocation");
        let frame = Layout::new(g, a, values, target, f, &blocks, local);
        for l in frame.prologue() {
            let _ = writeln!(out, "    {l}");
        }
        for blk in blocks {
            if blk != f {
                let _ = writeln!(out, "L{}:", blk.nid());
            }
            let mut text = String::new();
            block(g, blk, local, &mut text);
            for l in text.lines() {
                for l in frame.rewrite(l) {
                    let _ = writeln!(out, "{l}");
                }
            }
        }
        out.push('\n');
    }
    out
}

/// Every value's location by node number, and which values are floats.
struct Values {
    locs: FxHashMap<u32, Loc>,
    floats: rustc_hash::FxHashSet<u32>,
}

impl Values {
    fn new(g: &Graph, alloc: &Allocation) -> Values {
        Values {
            locs: alloc.loc.iter().map(|(n, l)| (n.nid(), *l)).collect(),
            floats: alloc
                .loc
                .keys()
                .filter(|&&n| match mach(g, n) {
                    Some(m) if m.op != Op::Parm => m.ty[0].is_float(),
                    _ => g.ty_opt(n).is_some_and(|t| g.types.is_flt(t)),
                })
                .map(|n| n.nid())
                .collect(),
        }
    }
}

/// One function's frame as the listing lays it out, from the stack
/// pointer up: the outgoing stack arguments (on Win64 after the 32 bytes
/// the callee may use), the spill slots, the callee-saved registers
/// saved by storing them (x86 pushes its general registers instead),
/// padding to keep the stack 16-byte aligned; above it the return
/// address (x86) and the incoming stack arguments.
struct Layout<'a> {
    alloc: &'a Allocation,
    target: Target,
    /// The location of each value, by node number.
    locs: &'a FxHashMap<u32, Loc>,
    /// The values (by node number) that are floats.
    floats: &'a rustc_hash::FxHashSet<u32>,
    /// Bytes reserved below the saved registers.
    size: u32,
    out_base: u32,
    slot_base: u32,
    /// Callee-saved registers pushed (x86) or stored (with the offset).
    pushed: Vec<u8>,
    stored: Vec<(u8, u32)>,
    /// From the stack pointer after the prologue to the first incoming
    /// stack argument.
    in_base: u32,
}

impl<'a> Layout<'a> {
    fn new(
        g: &Graph,
        alloc: &'a Allocation,
        values: &'a Values,
        target: Target,
        f: NodeId,
        blocks: &[NodeId],
        local: &FxHashMap<NodeId, Vec<NodeId>>,
    ) -> Self {
        let fr = alloc.frames.get(&f).cloned().unwrap_or_default();
        let calls = blocks.iter().any(|b| {
            local
                .get(b)
                .into_iter()
                .flatten()
                .copied()
                .chain(crate::regalloc::build::tail(g, *b))
                .any(|n| matches!(crate::mach::op(g, n), Some(Op::Call | Op::CallR | Op::New)))
        });
        let win64 = target.abi == Abi::Win64;
        let shadow = if win64 && calls { 4 } else { 0 };
        let out_base = 8 * shadow;
        let slot_base = out_base + 8 * fr.out_args;
        let mut top = slot_base + 8 * fr.slots;
        let mut pushed = Vec::new();
        let mut stored = Vec::new();
        let regs: Vec<u8> = (0..128u8)
            .filter(|&r| fr.callee_saved.contains(r))
            .collect();
        match target.cpu {
            Cpu::X86_64 => {
                for r in regs {
                    if r < 16 {
                        pushed.push(r);
                    } else {
                        stored.push((r, top));
                        top += 8;
                    }
                }
            }
            Cpu::Riscv => {
                if calls {
                    stored.push((crate::cpu::riscv::RA, top));
                    top += 8;
                }
                for r in regs {
                    stored.push((r, top));
                    top += 8;
                }
            }
            Cpu::Arm => {
                if calls {
                    stored.push((crate::cpu::arm::X30, top));
                    top += 8;
                }
                for r in regs {
                    stored.push((r, top));
                    top += 8;
                }
            }
        }
        // x86: the return address and the pushes sit above the frame.
        let above = if target.cpu == Cpu::X86_64 {
            8 + 8 * pushed.len() as u32
        } else {
            0
        };
        // A leaf function with nothing on the stack keeps it as it is.
        let size = if top == 0 && !calls {
            0
        } else {
            (top + above).div_ceil(16) * 16 - above
        };
        let in_base = size + above + if win64 { 32 } else { 0 };
        Layout {
            alloc,
            target,
            locs: &values.locs,
            floats: &values.floats,
            size,
            out_base,
            slot_base,
            pushed,
            stored,
            in_base,
        }
    }

    fn reg(&self, r: u8) -> &'static str {
        crate::cpu::reg_name(self.target.cpu, r)
    }

    /// The stack offset of a stack location.
    fn offset(&self, l: Loc) -> u32 {
        match l {
            Loc::Reg(_) => 0,
            Loc::Slot(k) => self.slot_base + 8 * k,
            Loc::OutArg(k) => self.out_base + 8 * k,
            Loc::InArg(k) => self.in_base + 8 * k,
        }
    }

    /// A stack location as an operand.
    fn mem(&self, l: Loc) -> String {
        let o = self.offset(l);
        match self.target.cpu {
            Cpu::X86_64 => format!("qword ptr [rsp + {o}]"),
            Cpu::Riscv => format!("{o}(sp)"),
            Cpu::Arm => format!("[sp, #{o}]"),
        }
    }

    fn name(&self, l: Loc) -> String {
        match l {
            Loc::Reg(r) => self.reg(r).to_string(),
            _ => self.mem(l),
        }
    }

    fn prologue(&self) -> Vec<String> {
        let mut out = Vec::new();
        match self.target.cpu {
            Cpu::X86_64 => {
                for &r in &self.pushed {
                    out.push(format!("push {}", self.reg(r)));
                }
                if self.size > 0 {
                    out.push(format!("sub rsp, {}", self.size));
                }
                for &(r, o) in &self.stored {
                    out.push(format!("movsd qword ptr [rsp + {o}], {}", self.reg(r)));
                }
            }
            Cpu::Riscv => {
                if self.size > 0 {
                    out.push(format!("addi sp, sp, -{}", self.size));
                }
                for &(r, o) in &self.stored {
                    let op = if r >= 32 { "fsd" } else { "sd" };
                    out.push(format!("{op} {}, {o}(sp)", self.reg(r)));
                }
            }
            Cpu::Arm => {
                if self.size > 0 {
                    out.push(format!("sub sp, sp, #{}", self.size));
                }
                for &(r, o) in &self.stored {
                    out.push(format!("str {}, [sp, #{o}]", self.reg(r)));
                }
            }
        }
        out
    }

    fn epilogue(&self) -> Vec<String> {
        let mut out = Vec::new();
        match self.target.cpu {
            Cpu::X86_64 => {
                for &(r, o) in &self.stored {
                    out.push(format!("movsd {}, qword ptr [rsp + {o}]", self.reg(r)));
                }
                if self.size > 0 {
                    out.push(format!("add rsp, {}", self.size));
                }
                for &r in self.pushed.iter().rev() {
                    out.push(format!("pop {}", self.reg(r)));
                }
            }
            Cpu::Riscv => {
                for &(r, o) in &self.stored {
                    let op = if r >= 32 { "fld" } else { "ld" };
                    out.push(format!("{op} {}, {o}(sp)", self.reg(r)));
                }
                if self.size > 0 {
                    out.push(format!("addi sp, sp, {}", self.size));
                }
            }
            Cpu::Arm => {
                for &(r, o) in &self.stored {
                    out.push(format!("ldr {}, [sp, #{o}]", self.reg(r)));
                }
                if self.size > 0 {
                    out.push(format!("add sp, sp, #{}", self.size));
                }
            }
        }
        out
    }

    /// The copy of a split or a no-code view whose sides differ.
    fn copy(&self, float: bool, dst: Loc, src: Loc) -> Vec<String> {
        if dst == src {
            return Vec::new();
        }
        let (d, s) = (self.name(dst), self.name(src));
        let dreg = matches!(dst, Loc::Reg(_));
        let sreg = matches!(src, Loc::Reg(_));
        match self.target.cpu {
            Cpu::X86_64 => match (dreg, sreg) {
                (true, true) if float => vec![format!("movaps {d}, {s}")],
                (_, _) if float && (dreg || sreg) => vec![format!("movsd {d}, {s}")],
                (false, false) => vec![format!("push {s}"), format!("pop {d}")],
                _ => vec![format!("mov {d}, {s}")],
            },
            Cpu::Riscv => {
                let t6 = self.reg(crate::cpu::SCRATCH_RISCV);
                match (dreg, sreg) {
                    (true, true) if float => vec![format!("fmv.d {d}, {s}")],
                    (true, true) => vec![format!("mv {d}, {s}")],
                    (true, false) => vec![format!("{} {d}, {s}", if float { "fld" } else { "ld" })],
                    (false, true) => vec![format!("{} {s}, {d}", if float { "fsd" } else { "sd" })],
                    (false, false) => vec![format!("ld {t6}, {s}"), format!("sd {t6}, {d}")],
                }
            }
            Cpu::Arm => {
                let x16 = self.reg(crate::cpu::SCRATCH_ARM);
                match (dreg, sreg) {
                    (true, true) if float => vec![format!("fmov {d}, {s}")],
                    (true, true) => vec![format!("mov {d}, {s}")],
                    (true, false) => vec![format!("ldr {d}, {s}")],
                    (false, true) => vec![format!("str {s}, {d}")],
                    (false, false) => vec![format!("ldr {x16}, {s}"), format!("str {x16}, {d}")],
                }
            }
        }
    }

    /// One line of the virtual-register listing with the registers
    /// allocated: a split becomes its copy, a return gets the epilogue
    /// first, and each `vN` its location.
    fn rewrite(&self, line: &str) -> Vec<String> {
        let trimmed = line.trim_start();
        let indent = &line[..line.len() - trimmed.len()];
        // A phi, parameter or projection: no code, a comment.
        if trimmed.starts_with('v') && trimmed.contains(" = ") {
            // Just the location it is in (a phi's inputs are there too,
            // at the end of each predecessor; one on a path never taken
            // may be no value at all).
            let text = match trimmed.split_once(" = ") {
                Some((d, what)) => format!("{d} = {}", what.split(' ').next().unwrap_or("")),
                None => trimmed.to_string(),
            };
            return vec![format!("{indent}; {}", self.substitute(&text))];
        }
        if let Some(rest) = trimmed.strip_prefix("mov v") {
            // A split: `mov vD, vS`.
            let mut parts = rest.split(", v");
            let d = parts.next().and_then(|x| x.parse::<u32>().ok());
            let s = parts.next().and_then(|x| x.parse::<u32>().ok());
            if let (Some(d), Some(s)) = (d, s) {
                let float = self.floats.contains(&d);
                return match (self.locs.get(&d), self.locs.get(&s)) {
                    (Some(&dl), Some(&sl)) => self
                        .copy(float, dl, sl)
                        .into_iter()
                        .map(|l| format!("{indent}{l}"))
                        .collect(),
                    _ => vec![line.to_string()],
                };
            }
        }
        // A view of a register (`; vD = vS`): a copy if they differ.
        if let Some(rest) = trimmed.strip_prefix("; v") {
            let mut parts = rest.split(" = v");
            let d = parts.next().and_then(|x| x.parse::<u32>().ok());
            let s = parts.next().and_then(|x| x.parse::<u32>().ok());
            if let (Some(d), Some(s)) = (d, s) {
                if let (Some(&dl), Some(&sl)) = (self.locs.get(&d), self.locs.get(&s)) {
                    return self
                        .copy(false, dl, sl)
                        .into_iter()
                        .map(|l| format!("{indent}{l}"))
                        .collect();
                }
            }
        }
        let mut out = Vec::new();
        if trimmed == "ret" {
            for l in self.epilogue() {
                out.push(format!("{indent}{l}"));
            }
        }
        let mut text = self.substitute(trimmed);
        if self.target.cpu == Cpu::X86_64 {
            text = two_operand(&text);
        }
        out.push(format!("{indent}{text}"));
        let _ = self.alloc;
        out
    }

    /// Replaces each `vN` with node N's location.
    fn substitute(&self, s: &str) -> String {
        let b = s.as_bytes();
        let mut out = String::with_capacity(s.len());
        let mut i = 0;
        while i < b.len() {
            let boundary = i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
            if b[i] == b'v' && boundary && i + 1 < b.len() && b[i + 1].is_ascii_digit() {
                let mut j = i + 1;
                while j < b.len() && b[j].is_ascii_digit() {
                    j += 1;
                }
                let end_ok = j == b.len() || !(b[j].is_ascii_alphanumeric() || b[j] == b'_');
                if end_ok {
                    if let Some(&l) = s[i + 1..j]
                        .parse::<u32>()
                        .ok()
                        .and_then(|n| self.locs.get(&n))
                    {
                        out.push_str(&self.name(l));
                        i = j;
                        continue;
                    }
                }
            }
            out.push(b[i] as char);
            i += 1;
        }
        out
    }
}

/// x86's two-address form: `add rax, rax, rcx` is `add rax, rcx`.
fn two_operand(s: &str) -> String {
    let Some((mnemonic, ops)) = s.split_once(' ') else {
        return s.to_string();
    };
    let parts: Vec<&str> = ops.splitn(3, ", ").collect();
    if parts.len() == 3 && parts[0] == parts[1] && !mnemonic.starts_with("imul") {
        return format!("{mnemonic} {}, {}", parts[0], parts[2]);
    }
    s.to_string()
}

/// The blocks of the function entered at `f`, in reverse post-order.
pub(crate) fn reverse_post_order(g: &Graph, f: NodeId) -> Vec<NodeId> {
    let mut post = Vec::new();
    // A set, not a flag per node of the graph: this runs once per
    // function, and clearing the whole graph each time was quadratic on
    // many functions.
    let mut seen: FxHashSet<NodeId> = FxHashSet::default();
    // (node, its successors, the next one to try)
    let mut stack = vec![(f, successors(g, f), 0usize)];
    seen.insert(f);
    while let Some((n, succ, next)) = stack.last_mut() {
        if let Some(&s) = succ.get(*next) {
            *next += 1;
            if seen.insert(s) {
                stack.push((s, successors(g, s), 0));
            }
            continue;
        }
        if is_block_head(g, *n) {
            post.push(*n);
        }
        stack.pop();
    }
    post.reverse();
    post
}

/// Where control goes from control node `n` within its function: not into
/// a function it calls (nor from a return into the call's end), not to
/// Stop.
pub(crate) fn successors(g: &Graph, n: NodeId) -> Vec<NodeId> {
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
