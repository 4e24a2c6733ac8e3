//! The machine verifier: the rules every machine function must satisfy,
//! checked by one function, [`verify`], which both the commit of a
//! mutation and the final verification after the last hook run.
//!
//! The rules, in the order they are checked:
//!
//! 1. **Structure** (the commit's pre-check, [`check_structure`]): the
//!    laid-out blocks exist and appear once; every instruction exists and
//!    sits in at most one block (or floats); successors and predecessors
//!    name laid-out blocks and mirror each other (`b` lists `s` as a
//!    successor as often as `s` lists `b` as a predecessor).
//! 2. **Operands match their masks and kinds**: a register operand allows
//!    some register, and a physical one is among those its instruction
//!    allows; a block operand names a laid-out block, a stack operand an
//!    object of the frame, a constant-pool operand an entry of the pool;
//!    a phi reads pairs of a value and a predecessor block.
//! 3. **Terminators**: once scheduled, every block ends in exactly one
//!    terminator (a branch, a return or a jump), and the blocks it goes
//!    to are the block's successors, in order; a return has none.
//! 4. **SSA** while the function says it is ([`Property::IsSsa`]): every
//!    register is written by one instruction.
//! 5. **No virtual registers** when the function says so
//!    ([`Property::NoVregs`]).
//! 6. **Defined on every path**: once scheduled, every register or stack
//!    object an instruction reads has been written on every path from the
//!    entry (a live-in, an incoming stack argument, or an instruction
//!    before it), a phi's value at the end of the predecessor it comes
//!    from. This is a forward "must be written" dataflow over the blocks,
//!    iterated in layout order to its fixed point. Before scheduling only
//!    some instruction of the function (or a live-in) must write it.
//!
//! What it leaves to others: whether a value is the *right* one (the
//! allocation checker, [`crate::regalloc::checker`], proves that of the
//! allocator), the registers a call destroys, and the encoding itself.

use super::function::*;
use rustc_hash::{FxHashMap, FxHashSet};
use std::fmt;

/// A broken rule: which function, which rule, and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyError {
    pub function: String,
    pub rule: &'static str,
    pub message: String,
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "machine verifier: {} ({}): {}",
            self.function, self.rule, self.message
        )
    }
}

struct Checker<'a> {
    mf: &'a MachineFunction,
}

impl Checker<'_> {
    fn fail(&self, rule: &'static str, message: String) -> VerifyError {
        VerifyError {
            function: self.mf.name.clone(),
            rule,
            message,
        }
    }
}

/// Runs every rule on `mf`; the first broken one is the error.
pub fn verify(mf: &MachineFunction) -> Result<(), VerifyError> {
    check_structure(mf)?;
    let c = Checker { mf };
    c.operands()?;
    c.terminators()?;
    if mf.props.has(Property::IsSsa) {
        check_property(mf, Property::IsSsa).map_err(|m| c.fail("ssa", m))?;
    }
    if mf.props.has(Property::NoVregs) {
        check_property(mf, Property::NoVregs).map_err(|m| c.fail("no virtual registers", m))?;
    }
    c.defined()
}

/// Rule 1, the commit's structural pre-check.
pub fn check_structure(mf: &MachineFunction) -> Result<(), VerifyError> {
    let c = Checker { mf };
    let rule = "structure";
    let nb = mf.blocks.len() as u32;
    let mut laid = FxHashSet::default();
    for &b in &mf.order {
        if b.0 >= nb {
            return Err(c.fail(rule, format!("block bb.{} does not exist", b.0)));
        }
        if !laid.insert(b) {
            return Err(c.fail(rule, format!("block bb.{} is laid out twice", b.0)));
        }
    }
    if mf.scheduled && mf.order.is_empty() {
        return Err(c.fail(rule, "the function has no blocks".into()));
    }
    let ni = mf.insts.len() as u32;
    let mut seen = FxHashSet::default();
    let placed = mf
        .order
        .iter()
        .flat_map(|&b| mf.block(b).insts.iter())
        .chain(&mf.floating);
    for &i in placed {
        if i.0 >= ni {
            return Err(c.fail(rule, format!("instruction {} does not exist", i.0)));
        }
        if !seen.insert(i) {
            return Err(c.fail(rule, format!("instruction {} is in two places", i.0)));
        }
    }
    let mut edges: FxHashMap<(BlockId, BlockId), i32> = FxHashMap::default();
    for &b in &mf.order {
        for &s in &mf.block(b).succs {
            if !laid.contains(&s) {
                return Err(c.fail(
                    rule,
                    format!(
                        "{} has a successor bb.{} that is not laid out",
                        mf.label(b),
                        s.0
                    ),
                ));
            }
            *edges.entry((b, s)).or_default() += 1;
        }
        for &p in &mf.block(b).preds {
            if !laid.contains(&p) {
                return Err(c.fail(
                    rule,
                    format!(
                        "{} has a predecessor bb.{} that is not laid out",
                        mf.label(b),
                        p.0
                    ),
                ));
            }
            *edges.entry((p, b)).or_default() -= 1;
        }
    }
    let mut broken: Vec<_> = edges.into_iter().filter(|&(_, n)| n != 0).collect();
    broken.sort();
    if let Some(&((from, to), n)) = broken.first() {
        let what = if n > 0 {
            "but not as its predecessor"
        } else {
            "as its predecessor, but is not its successor"
        };
        return Err(c.fail(
            rule,
            format!(
                "the CFG is broken: {} lists {} {what}",
                mf.label(from),
                mf.label(to)
            ),
        ));
    }
    Ok(())
}

impl Checker<'_> {
    /// Rule 2.
    fn operands(&self) -> Result<(), VerifyError> {
        let mf = self.mf;
        let rule = "operands";
        let laid: FxHashSet<BlockId> = mf.order.iter().copied().collect();
        for i in mf.all_insts() {
            let inst = mf.inst(i);
            for o in &inst.operands {
                match o {
                    Operand::Reg(r) => {
                        if r.mask.is_empty() {
                            return Err(self.fail(
                                rule,
                                format!(
                                    "{}: a register operand no register can satisfy",
                                    self.at(i)
                                ),
                            ));
                        }
                        if let Reg::Phys(p) = r.reg {
                            if !r.mask.contains(p) {
                                return Err(self.fail(
                                    rule,
                                    format!(
                                        "{}: register {} is not one the instruction allows there",
                                        self.at(i),
                                        crate::cpu::reg_name(mf.cpu, p)
                                    ),
                                ));
                            }
                        }
                    }
                    Operand::Block(b) if !laid.contains(b) => {
                        return Err(self.fail(
                            rule,
                            format!("{}: block bb.{} is not laid out", self.at(i), b.0),
                        ))
                    }
                    Operand::Stack { object, .. } if *object as usize >= mf.stack.len() => {
                        return Err(
                            self.fail(rule, format!("{}: no stack object {object}", self.at(i)))
                        )
                    }
                    Operand::ConstPool(k) if *k as usize >= mf.const_pool.len() => {
                        return Err(
                            self.fail(rule, format!("{}: no constant-pool entry {k}", self.at(i)))
                        )
                    }
                    _ => {}
                }
            }
            if inst.is_phi() {
                let reads: Vec<&Operand> = inst
                    .operands
                    .iter()
                    .filter(|o| !matches!(o, Operand::Reg(r) if r.def))
                    .filter(|o| !matches!(o, Operand::Stack { def: true, .. }))
                    .collect();
                let pairs = reads.chunks(2).all(|p| {
                    p.len() == 2
                        && matches!(p[0], Operand::Reg(_) | Operand::Stack { .. })
                        && matches!(p[1], Operand::Block(_))
                });
                if !pairs {
                    return Err(self.fail(
                        rule,
                        format!("{}: a phi reads pairs of a value and a block", self.at(i)),
                    ));
                }
            }
        }
        Ok(())
    }

    /// `main bb.2 (L17) #3 add` for messages.
    fn at(&self, i: InstId) -> String {
        let mf = self.mf;
        for &b in &mf.order {
            if let Some(k) = mf.block(b).insts.iter().position(|&x| x == i) {
                return format!("{} #{k} {}", mf.label(b), mf.inst(i).opcode);
            }
        }
        format!("floating {}", mf.inst(i).opcode)
    }

    /// Rule 3.
    fn terminators(&self) -> Result<(), VerifyError> {
        let mf = self.mf;
        let rule = "terminators";
        if !mf.scheduled {
            return Ok(());
        }
        for &b in &mf.order {
            let blk = mf.block(b);
            let Some(&last) = blk.insts.last() else {
                return Err(self.fail(rule, format!("{} is empty", mf.label(b))));
            };
            for &i in &blk.insts[..blk.insts.len() - 1] {
                if mf.inst(i).flags.terminator {
                    return Err(self.fail(
                        rule,
                        format!("{}: a terminator before the end of its block", self.at(i)),
                    ));
                }
            }
            let t = mf.inst(last);
            if !t.flags.terminator {
                return Err(self.fail(
                    rule,
                    format!("{} does not end in a terminator", mf.label(b)),
                ));
            }
            let targets = t.blocks();
            if targets != blk.succs {
                let names = |v: &[BlockId]| {
                    v.iter()
                        .map(|b| format!("bb.{}", b.0))
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                return Err(self.fail(
                    rule,
                    format!(
                        "{}: goes to [{}] but the block's successors are [{}]",
                        self.at(last),
                        names(&targets),
                        names(&blk.succs)
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Rule 6.
    fn defined(&self) -> Result<(), VerifyError> {
        let mf = self.mf;
        let rule = "defined on every path";
        // Dense numbers for registers and stack objects.
        let mut index: FxHashMap<Loc, usize> = FxHashMap::default();
        let mut number = |l: Loc| {
            let next = index.len();
            *index.entry(l).or_insert(next)
        };
        for i in mf.all_insts() {
            for o in &mf.inst(i).operands {
                if let Some(l) = loc(o) {
                    number(l);
                }
            }
        }
        for &r in &mf.live_ins {
            number(Loc::Reg(r));
        }
        let n = index.len();
        if !mf.scheduled {
            let mut written = vec![false; n];
            for &r in &mf.live_ins {
                written[index[&Loc::Reg(r)]] = true;
            }
            for i in mf.all_insts() {
                for o in &mf.inst(i).operands {
                    if let (Some(l), true) = (loc(o), is_write(o)) {
                        written[index[&l]] = true;
                    }
                }
            }
            for i in mf.all_insts() {
                for o in &mf.inst(i).operands {
                    if let (Some(l), false) = (loc(o), is_write(o)) {
                        if !written[index[&l]] {
                            return Err(self.fail(
                                rule,
                                format!(
                                    "{}: reads {} which nothing writes",
                                    self.at(i),
                                    self.name(l)
                                ),
                            ));
                        }
                    }
                }
            }
            return Ok(());
        }
        let words = n.div_ceil(64).max(1);
        let pos: FxHashMap<BlockId, usize> =
            mf.order.iter().enumerate().map(|(k, &b)| (b, k)).collect();
        let nb = mf.order.len();
        let mut entry_set = vec![0u64; words];
        for &r in &mf.live_ins {
            set(&mut entry_set, index[&Loc::Reg(r)]);
        }
        for (k, o) in mf.stack.iter().enumerate() {
            if let (StackKind::InArg(_), Some(&x)) = (o.kind, index.get(&Loc::Stack(k as u32))) {
                set(&mut entry_set, x);
            }
        }
        // Out-sets start full (the top of the lattice) and only shrink.
        let mut out = vec![vec![u64::MAX; words]; nb];
        let entry = mf.order[0];
        let block_in = |b: BlockId, out: &Vec<Vec<u64>>| -> Vec<u64> {
            if b == entry {
                return entry_set.clone();
            }
            let mut acc = vec![u64::MAX; words];
            for p in &mf.block(b).preds {
                for (a, o) in acc.iter_mut().zip(&out[pos[p]]) {
                    *a &= o;
                }
            }
            acc
        };
        let transfer = |b: BlockId, mut cur: Vec<u64>| -> Vec<u64> {
            for &i in &mf.block(b).insts {
                for o in &mf.inst(i).operands {
                    if let (Some(l), true) = (loc(o), is_write(o)) {
                        set(&mut cur, index[&l]);
                    }
                }
            }
            cur
        };
        loop {
            let mut changed = false;
            for (k, &b) in mf.order.iter().enumerate() {
                let new = transfer(b, block_in(b, &out));
                if new != out[k] {
                    out[k] = new;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        for &b in &mf.order {
            let mut cur = block_in(b, &out);
            for &i in &mf.block(b).insts {
                let inst = mf.inst(i);
                if inst.is_phi() {
                    // A phi's value must be written at the end of its
                    // predecessor.
                    let reads: Vec<&Operand> =
                        inst.operands.iter().filter(|o| !is_write(o)).collect();
                    for pair in reads.chunks(2) {
                        if let [v, Operand::Block(p)] = pair {
                            if let (Some(l), Some(&pk)) = (loc(v), pos.get(p)) {
                                if !get(&out[pk], index[&l]) {
                                    return Err(self.fail(
                                        rule,
                                        format!(
                                            "{}: {} is not written on every path to the end of {}",
                                            self.at(i),
                                            self.name(l),
                                            mf.label(*p)
                                        ),
                                    ));
                                }
                            }
                        }
                    }
                } else {
                    for o in &inst.operands {
                        if let (Some(l), false) = (loc(o), is_write(o)) {
                            if !get(&cur, index[&l]) {
                                return Err(self.fail(
                                    rule,
                                    format!(
                                        "{}: reads {}, which is not written on every path to it",
                                        self.at(i),
                                        self.name(l)
                                    ),
                                ));
                            }
                        }
                    }
                }
                for o in &inst.operands {
                    if let (Some(l), true) = (loc(o), is_write(o)) {
                        set(&mut cur, index[&l]);
                    }
                }
            }
        }
        Ok(())
    }

    fn name(&self, l: Loc) -> String {
        match l {
            Loc::Reg(Reg::Virt(v)) => format!("%v{v}"),
            Loc::Reg(Reg::Phys(p)) => format!("${}", crate::cpu::reg_name(self.mf.cpu, p)),
            Loc::Stack(k) => format!("%stack.{k}"),
        }
    }
}

/// What an operand reads or writes, for rule 6.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
enum Loc {
    Reg(Reg),
    Stack(u32),
}

fn loc(o: &Operand) -> Option<Loc> {
    match o {
        Operand::Reg(r) => Some(Loc::Reg(r.reg)),
        Operand::Stack { object, .. } => Some(Loc::Stack(*object)),
        _ => None,
    }
}

fn is_write(o: &Operand) -> bool {
    matches!(o, Operand::Reg(r) if r.def) || matches!(o, Operand::Stack { def: true, .. })
}

fn set(bits: &mut [u64], i: usize) {
    bits[i / 64] |= 1 << (i % 64);
}

fn get(bits: &[u64], i: usize) -> bool {
    bits[i / 64] >> (i % 64) & 1 == 1
}

/// The structural check of property `p`: `Ok` when `mf` has it.
pub fn check_property(mf: &MachineFunction, p: Property) -> Result<(), String> {
    match p {
        Property::IsSsa => {
            let mut written: FxHashMap<Reg, InstId> = FxHashMap::default();
            for i in mf.all_insts() {
                for r in mf.inst(i).defs() {
                    if written.insert(r.reg, i).is_some_and(|j| j != i) {
                        return Err(format!(
                            "register {:?} is written by more than one instruction",
                            r.reg
                        ));
                    }
                }
            }
            Ok(())
        }
        Property::NoPhis => match mf.all_insts().find(|&i| mf.inst(i).is_phi()) {
            Some(_) => Err("the function has phis".into()),
            None => Ok(()),
        },
        Property::NoVregs => {
            let virt = mf
                .all_insts()
                .flat_map(|i| mf.inst(i).regs())
                .any(|r| r.reg.is_virtual());
            if virt || mf.live_ins.iter().any(|r| r.is_virtual()) {
                Err("the function has virtual registers".into())
            } else {
                Ok(())
            }
        }
        Property::TracksLiveness => super::analysis::check_liveness_flags(mf),
        Property::Selected => {
            let generic = mf.all_insts().find(|&i| {
                let inst = mf.inst(i);
                inst.op.is_none() && !inst.flags.pseudo
            });
            match generic {
                Some(i) => Err(format!(
                    "instruction {} ({}) is no operation of the CPU",
                    i.0,
                    mf.inst(i).opcode
                )),
                None => Ok(()),
            }
        }
        Property::Legalized => {
            let rules = crate::cpu::rules(mf.cpu);
            for i in mf.all_insts() {
                let Some((op, ty, mem_size)) = mf.inst(i).op else {
                    continue;
                };
                if rules.set_for(op).is_none() {
                    continue;
                }
                let q = crate::mach::legalize::Query { op, ty, mem_size };
                match rules.decide(q) {
                    Ok((after, crate::mach::legalize::Action::Legal)) if after == q => {}
                    _ => {
                        return Err(format!(
                            "{} is not legal on {}",
                            crate::mach::legalize::describe(&q),
                            mf.cpu.name()
                        ))
                    }
                }
            }
            Ok(())
        }
        Property::TiedOpsRewritten => {
            for i in mf.all_insts() {
                let inst = mf.inst(i);
                let Some(t) = inst.tied else { continue };
                let def = inst.operands.iter().find_map(|o| match o {
                    Operand::Reg(r) if r.def => Some(r.reg),
                    _ => None,
                });
                let tied = match inst.operands.get(t) {
                    Some(Operand::Reg(r)) => Some(r.reg),
                    _ => None,
                };
                if def.is_some() && def != tied {
                    return Err(format!(
                        "instruction {} ({}) writes another register than its tied input",
                        i.0, inst.opcode
                    ));
                }
            }
            Ok(())
        }
    }
}
