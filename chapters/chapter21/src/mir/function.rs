//! The machine function: what the backend holds of one function at a
//! hook, as plain data a pass can read.
//!
//! Blocks and instructions live in arenas and are named by index
//! ([`BlockId`], [`InstId`]), so an id stays valid while a mutation moves
//! things around; `order` says which blocks exist and where they are laid
//! out, and a block's `insts` which instructions it holds, in order. An
//! instruction not in any block is erased. Before scheduling a block is a
//! region of the function's control flow holding only what is pinned
//! there (its phis, the branch, call or return that ends it); the
//! function's other machine nodes float, and are listed apart
//! ([`MachineFunction::floating`]).
//!
//! Every operand is one [`Operand`]: a register (virtual, the value of a
//! node, until allocation; physical after) with its def, kill and dead
//! flags and the registers the instruction allows there, an immediate, a
//! float immediate as its bits, a block, a stack object, a constant-pool
//! entry, a symbol outside the object, a function of the program, or a
//! mask of the registers a call destroys. A value on the stack is a
//! stack-object operand with the same def flag.

use crate::graph::NodeId;
use crate::mach::{Cpu, LType, Op, RegMask};
use std::fmt::{self, Write};

#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct BlockId(pub u32);

#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct InstId(pub u32);

/// A register: virtual (numbered by the node whose value it is, as
/// `simple asm` prints `v12`) or physical (numbered as the CPU's register
/// table numbers it).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Reg {
    Virt(u32),
    Phys(u8),
}

impl Reg {
    pub fn is_virtual(self) -> bool {
        matches!(self, Reg::Virt(_))
    }
}

/// A register operand.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct RegOperand {
    pub reg: Reg,
    /// Written (otherwise read).
    pub def: bool,
    /// The last read of the register's value.
    pub kill: bool,
    /// A write nothing reads.
    pub dead: bool,
    /// The registers the instruction allows here.
    pub mask: RegMask,
}

impl RegOperand {
    pub fn def(reg: Reg, mask: RegMask) -> Self {
        RegOperand {
            reg,
            def: true,
            kill: false,
            dead: false,
            mask,
        }
    }

    pub fn use_(reg: Reg, mask: RegMask) -> Self {
        RegOperand {
            def: false,
            ..RegOperand::def(reg, mask)
        }
    }
}

/// One operand, of any kind.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Operand {
    Reg(RegOperand),
    Imm(i64),
    /// A float immediate, as the bits of the double.
    FImm(u64),
    Block(BlockId),
    /// A stack object of the function, written (`def`) or read.
    Stack {
        object: u32,
        def: bool,
    },
    /// An entry of the function's constant pool.
    ConstPool(u32),
    /// A symbol outside the object (the C allocator `calloc`).
    External(String),
    /// A function of this program, by its symbol.
    Global(String),
    /// Registers the instruction destroys (a call's caller-saved ones).
    RegMask(RegMask),
}

/// What kind of instruction it is.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub struct InstFlags {
    pub branch: bool,
    pub call: bool,
    pub ret: bool,
    /// Ends its block: a branch, a return, a jump.
    pub terminator: bool,
    /// Emits no code of its own (a phi, a parameter, a jump the layout
    /// may make a fall-through, a frame marker).
    pub pseudo: bool,
    /// Part of the prologue or of an epilogue.
    pub frame_setup: bool,
    pub frame_destroy: bool,
}

/// Where an instruction of the view comes from, which says what the
/// backend can read back from it (see [`crate::mir::writeback`]).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Origin {
    /// A node of a block's local schedule.
    Local(NodeId),
    /// A control node that ends a block (branch, call, return).
    Control(NodeId),
    /// A phi, or a function's parameter.
    Phi(NodeId),
    /// A machine node not yet placed in a block (before scheduling).
    Floating(NodeId),
    /// Made by the view: a jump, a prologue or epilogue marker.
    View,
    /// Made by a pass.
    Pass,
}

impl Origin {
    pub fn node(self) -> Option<NodeId> {
        match self {
            Origin::Local(n) | Origin::Control(n) | Origin::Phi(n) | Origin::Floating(n) => Some(n),
            Origin::View | Origin::Pass => None,
        }
    }
}

#[derive(Clone, PartialEq, Eq, Debug)]
pub struct MachineInst {
    /// The CPU's name for it (`add`, `addi`), or a pseudo name (`PHI`,
    /// `PARM`, `COPY`, `JMP`).
    pub opcode: String,
    /// The machine operation, with its types and memory size, when the
    /// instruction is a machine node.
    pub op: Option<(Op, [LType; 2], u8)>,
    pub origin: Origin,
    pub flags: InstFlags,
    pub operands: Vec<Operand>,
    /// A two-address instruction: the operand whose register its result
    /// must take.
    pub tied: Option<usize>,
}

impl MachineInst {
    pub fn new(opcode: &str, origin: Origin) -> Self {
        MachineInst {
            opcode: opcode.to_string(),
            op: None,
            origin,
            flags: InstFlags::default(),
            operands: Vec::new(),
            tied: None,
        }
    }

    /// The register operands it writes.
    pub fn defs(&self) -> impl Iterator<Item = &RegOperand> {
        self.regs().filter(|r| r.def)
    }

    /// The register operands it reads.
    pub fn uses(&self) -> impl Iterator<Item = &RegOperand> {
        self.regs().filter(|r| !r.def)
    }

    pub fn regs(&self) -> impl Iterator<Item = &RegOperand> {
        self.operands.iter().filter_map(|o| match o {
            Operand::Reg(r) => Some(r),
            _ => None,
        })
    }

    /// The blocks it names, in order.
    pub fn blocks(&self) -> Vec<BlockId> {
        self.operands
            .iter()
            .filter_map(|o| match o {
                Operand::Block(b) => Some(*b),
                _ => None,
            })
            .collect()
    }

    pub fn is_phi(&self) -> bool {
        self.opcode == "PHI"
    }
}

#[derive(Clone, PartialEq, Eq, Debug)]
pub struct MachineBlock {
    /// The control node that starts it, for a block of the program.
    pub head: Option<NodeId>,
    pub insts: Vec<InstId>,
    pub succs: Vec<BlockId>,
    pub preds: Vec<BlockId>,
    /// Loop depth, 0 outside every loop (as the schedule found it).
    pub loop_depth: u32,
}

impl MachineBlock {
    pub fn new(head: Option<NodeId>) -> Self {
        MachineBlock {
            head,
            insts: Vec::new(),
            succs: Vec::new(),
            preds: Vec::new(),
            loop_depth: 0,
        }
    }
}

/// What a stack object holds.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum StackKind {
    /// A spill slot of the allocator.
    Spill,
    /// The `k`-th argument the caller passed on the stack.
    InArg(u32),
    /// The `k`-th stack argument of a call this function makes.
    OutArg(u32),
    /// Made by a pass.
    Local,
}

#[derive(Clone, PartialEq, Eq, Debug)]
pub struct StackObject {
    pub size: u32,
    pub align: u32,
    pub kind: StackKind,
    /// The stack-pointer-relative offset, once the frame is laid out.
    pub offset: Option<u32>,
}

impl StackObject {
    pub fn is_spill_slot(&self) -> bool {
        self.kind == StackKind::Spill
    }
}

/// A constant-pool entry: 8 bytes (a double's bits) and their alignment.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ConstEntry {
    pub bits: u64,
    pub align: u32,
}

/// The machine properties, read freely and set only with proof (see
/// [`crate::mir::Mutation::set_property`]).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Property {
    /// Every register is written by one instruction.
    IsSsa,
    NoPhis,
    /// Kill and dead flags are exact.
    TracksLiveness,
    NoVregs,
    /// Every instruction is an operation of the CPU.
    Selected,
    /// Every operation is legal by the CPU's rules.
    Legalized,
    /// Every two-address operation writes the register of its tied input.
    TiedOpsRewritten,
}

impl Property {
    pub const ALL: [Property; 7] = [
        Property::IsSsa,
        Property::NoPhis,
        Property::TracksLiveness,
        Property::NoVregs,
        Property::Selected,
        Property::Legalized,
        Property::TiedOpsRewritten,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Property::IsSsa => "is_ssa",
            Property::NoPhis => "no_phis",
            Property::TracksLiveness => "tracks_liveness",
            Property::NoVregs => "no_vregs",
            Property::Selected => "selected",
            Property::Legalized => "legalized",
            Property::TiedOpsRewritten => "tied_ops_rewritten",
        }
    }

    fn bit(self) -> u16 {
        1 << self as u16
    }
}

/// A set of properties.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub struct Properties(u16);

impl Properties {
    pub fn has(self, p: Property) -> bool {
        self.0 & p.bit() != 0
    }

    pub fn set(&mut self, p: Property, on: bool) {
        if on {
            self.0 |= p.bit();
        } else {
            self.0 &= !p.bit();
        }
    }
}

/// One function of the program, at one hook.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct MachineFunction {
    /// Its symbol (`simple_main` for the top level).
    pub name: String,
    /// Its Fun node.
    pub fun: NodeId,
    pub cpu: Cpu,
    /// Blocks have an order and hold every instruction; before
    /// scheduling, the floating instructions are in `floating`.
    pub scheduled: bool,
    pub blocks: Vec<MachineBlock>,
    /// The blocks that exist, in layout order; the first is the entry.
    pub order: Vec<BlockId>,
    pub insts: Vec<MachineInst>,
    /// Before scheduling: the machine nodes not pinned to a block.
    pub floating: Vec<InstId>,
    /// Registers that hold a value on entry, written by no instruction of
    /// the function (before allocation: values defined outside it, as a
    /// constant the allocator copies in later).
    pub live_ins: Vec<Reg>,
    pub stack: Vec<StackObject>,
    pub const_pool: Vec<ConstEntry>,
    /// The callee-saved registers it writes, once registers are allocated.
    pub callee_saved: Option<RegMask>,
    pub props: Properties,
}

impl MachineFunction {
    pub fn block(&self, b: BlockId) -> &MachineBlock {
        &self.blocks[b.0 as usize]
    }

    pub fn inst(&self, i: InstId) -> &MachineInst {
        &self.insts[i.0 as usize]
    }

    /// The block is laid out (not erased).
    pub fn has_block(&self, b: BlockId) -> bool {
        self.order.contains(&b)
    }

    /// Every instruction in a block, block by block in order.
    pub fn placed(&self) -> impl Iterator<Item = (BlockId, InstId)> + '_ {
        self.order
            .iter()
            .flat_map(move |&b| self.block(b).insts.iter().map(move |&i| (b, i)))
    }

    /// Instructions in blocks, then the floating ones.
    pub fn all_insts(&self) -> impl Iterator<Item = InstId> + '_ {
        self.placed()
            .map(|(_, i)| i)
            .chain(self.floating.iter().copied())
    }

    /// The instructions that write `reg`, with the operand index.
    pub fn defs_of(&self, reg: Reg) -> Vec<(InstId, usize)> {
        self.occurrences(reg, true)
    }

    /// The instructions that read `reg`, with the operand index.
    pub fn uses_of(&self, reg: Reg) -> Vec<(InstId, usize)> {
        self.occurrences(reg, false)
    }

    fn occurrences(&self, reg: Reg, def: bool) -> Vec<(InstId, usize)> {
        let mut out = Vec::new();
        for i in self.all_insts() {
            for (k, o) in self.inst(i).operands.iter().enumerate() {
                if matches!(o, Operand::Reg(r) if r.reg == reg && r.def == def) {
                    out.push((i, k));
                }
            }
        }
        out
    }

    /// Instructions in blocks (not the floating ones).
    pub fn placed_count(&self) -> usize {
        self.placed().count()
    }

    /// The block's label in listings: `bb.N`, with its head node.
    pub fn label(&self, b: BlockId) -> String {
        match self.block(b).head {
            Some(h) => format!("bb.{} (L{})", b.0, h.nid()),
            None => format!("bb.{}", b.0),
        }
    }
}

/// The functions of the program at one hook.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct MachineModule {
    pub hook: crate::mir::Hook,
    pub functions: Vec<MachineFunction>,
}

impl fmt::Display for MachineModule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "# Machine IR after {}", self.hook)?;
        for func in &self.functions {
            write!(f, "{func}")?;
        }
        Ok(())
    }
}

fn reg_name(cpu: Cpu, r: Reg) -> String {
    match r {
        Reg::Virt(v) => format!("%v{v}"),
        Reg::Phys(p) => format!("${}", crate::cpu::reg_name(cpu, p)),
    }
}

impl MachineFunction {
    fn operand_text(&self, o: &Operand) -> String {
        match o {
            Operand::Reg(r) => {
                let mut s = String::new();
                if r.def && r.dead {
                    s.push_str("dead ");
                }
                if r.kill {
                    s.push_str("killed ");
                }
                s.push_str(&reg_name(self.cpu, r.reg));
                s
            }
            Operand::Imm(v) => v.to_string(),
            Operand::FImm(bits) => format!("double {:?}", f64::from_bits(*bits)),
            Operand::Block(b) => format!("%bb.{}", b.0),
            Operand::Stack { object, .. } => format!("%stack.{object}"),
            Operand::ConstPool(k) => format!("%const.{k}"),
            Operand::External(s) => format!("&{s}"),
            Operand::Global(s) => format!("@{s}"),
            Operand::RegMask(m) => format!("clobbers({} registers)", m.len()),
        }
    }

    fn inst_text(&self, i: InstId) -> String {
        let inst = self.inst(i);
        let is_def = |o: &Operand| {
            matches!(o, Operand::Reg(r) if r.def) || matches!(o, Operand::Stack { def: true, .. })
        };
        let defs: Vec<String> = inst
            .operands
            .iter()
            .filter(|o| is_def(o))
            .map(|o| self.operand_text(o))
            .collect();
        let uses: Vec<String> = inst
            .operands
            .iter()
            .filter(|o| !is_def(o))
            .map(|o| self.operand_text(o))
            .collect();
        let mut s = String::new();
        if !defs.is_empty() {
            let _ = write!(s, "{} = ", defs.join(", "));
        }
        if inst.flags.frame_setup {
            s.push_str("frame-setup ");
        }
        if inst.flags.frame_destroy {
            s.push_str("frame-destroy ");
        }
        s.push_str(&inst.opcode);
        if !uses.is_empty() {
            let _ = write!(s, " {}", uses.join(", "));
        }
        s
    }
}

impl fmt::Display for MachineFunction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "name: {} ({})", self.name, self.cpu.name())?;
        let props: Vec<&str> = Property::ALL
            .into_iter()
            .filter(|&p| self.props.has(p))
            .map(Property::name)
            .collect();
        writeln!(f, "properties: [{}]", props.join(", "))?;
        if !self.live_ins.is_empty() {
            let regs: Vec<String> = self
                .live_ins
                .iter()
                .map(|&r| reg_name(self.cpu, r))
                .collect();
            writeln!(f, "live-ins: {}", regs.join(", "))?;
        }
        for (k, o) in self.stack.iter().enumerate() {
            let kind = match o.kind {
                StackKind::Spill => "spill-slot".to_string(),
                StackKind::InArg(a) => format!("incoming-arg {a}"),
                StackKind::OutArg(a) => format!("outgoing-arg {a}"),
                StackKind::Local => "local".to_string(),
            };
            write!(f, "stack.{k}: {kind}, size {}, align {}", o.size, o.align)?;
            match o.offset {
                Some(off) => writeln!(f, ", offset {off}")?,
                None => writeln!(f)?,
            }
        }
        for (k, c) in self.const_pool.iter().enumerate() {
            writeln!(
                f,
                "const.{k}: double {:?}, align {}",
                f64::from_bits(c.bits),
                c.align
            )?;
        }
        if let Some(saved) = self.callee_saved {
            let regs: Vec<String> = (0..128u8)
                .filter(|&r| saved.contains(r))
                .map(|r| reg_name(self.cpu, Reg::Phys(r)))
                .collect();
            writeln!(f, "callee-saved: [{}]", regs.join(", "))?;
        }
        for &b in &self.order {
            let blk = self.block(b);
            write!(f, "{}:", self.label(b))?;
            if !blk.preds.is_empty() {
                let p: Vec<String> = blk.preds.iter().map(|p| format!("%bb.{}", p.0)).collect();
                write!(f, " preds {}", p.join(", "))?;
            }
            if !blk.succs.is_empty() {
                let s: Vec<String> = blk.succs.iter().map(|s| format!("%bb.{}", s.0)).collect();
                write!(f, " succs {}", s.join(", "))?;
            }
            writeln!(f)?;
            for &i in &blk.insts {
                writeln!(f, "    {}", self.inst_text(i))?;
            }
        }
        if !self.floating.is_empty() {
            writeln!(f, "floating:")?;
            for &i in &self.floating {
                writeln!(f, "    {}", self.inst_text(i))?;
            }
        }
        writeln!(f)
    }
}
