//! Machine nodes: the program as instructions of one CPU, still a sea of
//! nodes.
//!
//! Instruction selection ([`select`]) copies the optimized graph into a
//! new one, node for node, where each operation becomes a [`Mach`] node:
//! an [`Op`] the CPU can run, with the low-level types of its values
//! ([`LType`]), and operands folded in where the CPU's instruction takes
//! them (an immediate, an address made of a base, an index and a
//! displacement, a load folded into an add on x86). Then the legalizer
//! ([`legalize`]) rewrites every operation that the CPU cannot run as it
//! stands, by the rules each CPU declares. Both steps work before global
//! code motion: machine nodes float like any other, so a rewrite never
//! has to pick a block.
//!
//! A machine node keeps the ideal node it stands for as its *role*
//! ([`Mach::role`]): a load is still a Load to global code motion (which
//! orders it against the stores of its alias class), a branch an If, a
//! call a Call. This is Simple's design, where `LoadX86` extends
//! `LoadNode`; here the phases after selection ask [`Graph::role`]
//! instead of the node kind, and work on either graph unchanged.
//!
//! The control skeleton (Start, Stop, regions, loops, phis of memory,
//! control projections, memory merges) is copied as it is: it is the
//! same on every CPU and generates no code of its own.

pub mod legalize;
pub mod select;

use crate::graph::{Graph, NodeId};
use crate::node::{BoolOp, NodeKind};
use crate::types::{TypeId, Types};
use std::fmt;

/// The CPUs the backend compiles for.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Cpu {
    /// x86-64 with the v2 feature level (SSE4.2), Simple's `x86_64_v2`.
    X86_64,
    /// 64-bit RISC-V with the G and C extensions (RV64GC).
    Riscv,
    /// 64-bit ARM, AArch64.
    Arm,
}

impl Cpu {
    pub const ALL: [Cpu; 3] = [Cpu::X86_64, Cpu::Riscv, Cpu::Arm];

    /// The name Simple gives the CPU, as the command line takes it.
    pub fn name(self) -> &'static str {
        match self {
            Cpu::X86_64 => "x86_64_v2",
            Cpu::Riscv => "riscv",
            Cpu::Arm => "arm",
        }
    }

    pub fn from_name(name: &str) -> Option<Cpu> {
        Cpu::ALL.into_iter().find(|c| c.name() == name)
    }
}

/// Calling conventions: System V on every CPU, and Windows x64 on x86.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Abi {
    SystemV,
    Win64,
}

impl Abi {
    pub fn name(self) -> &'static str {
        match self {
            Abi::SystemV => "SystemV",
            Abi::Win64 => "Win64",
        }
    }
}

/// A CPU and a calling convention: what selection compiles for.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Target {
    pub cpu: Cpu,
    pub abi: Abi,
}

impl Target {
    /// The target named as the command line names it: `x86_64_v2` with
    /// `SystemV` or `Win64`, `riscv` or `arm` with `SystemV`.
    pub fn parse(cpu: &str, abi: &str) -> Result<Target, String> {
        let cpu = Cpu::from_name(cpu)
            .ok_or_else(|| format!("unknown CPU '{cpu}': the CPUs are x86_64_v2, riscv and arm"))?;
        let abi = match abi {
            "SystemV" => Abi::SystemV,
            "Win64" if cpu == Cpu::X86_64 => Abi::Win64,
            "Win64" => return Err(format!("{} has no Win64 calling convention", cpu.name())),
            _ => {
                return Err(format!(
                    "unknown ABI '{abi}': the ABIs are SystemV and Win64"
                ))
            }
        };
        Ok(Target { cpu, abi })
    }
}

/// A low-level type: how many bits a value has and in which register
/// bank it lives, as GlobalISel's LLT has it. The legalizer's rules speak
/// of these.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum LType {
    /// A truth value, 0 or 1.
    S1,
    S8,
    S16,
    S32,
    S64,
    F32,
    F64,
    /// A 64-bit pointer.
    Ptr,
}

impl LType {
    /// The width in bits.
    pub fn bits(self) -> u32 {
        match self {
            LType::S1 => 1,
            LType::S8 => 8,
            LType::S16 => 16,
            LType::S32 | LType::F32 => 32,
            LType::S64 | LType::F64 | LType::Ptr => 64,
        }
    }

    /// An integer (or truth value) type.
    pub fn is_scalar_int(self) -> bool {
        matches!(
            self,
            LType::S1 | LType::S8 | LType::S16 | LType::S32 | LType::S64
        )
    }

    pub fn is_float(self) -> bool {
        matches!(self, LType::F32 | LType::F64)
    }

    /// The integer type of `bits` bits (1, 8, 16, 32 or 64).
    pub fn int(bits: u32) -> LType {
        match bits {
            1 => LType::S1,
            8 => LType::S8,
            16 => LType::S16,
            32 => LType::S32,
            _ => LType::S64,
        }
    }

    /// The integer types from narrowest to widest.
    pub const INTS: [LType; 5] = [LType::S1, LType::S8, LType::S16, LType::S32, LType::S64];
}

impl fmt::Display for LType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            LType::S1 => "s1",
            LType::S8 => "s8",
            LType::S16 => "s16",
            LType::S32 => "s32",
            LType::S64 => "s64",
            LType::F32 => "f32",
            LType::F64 => "f64",
            LType::Ptr => "ptr",
        })
    }
}

/// A comparison: signed and unsigned orders on integers; on floats the
/// signed names mean the ordered comparison (false when either side is
/// NaN), as Simple's evaluator has them.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Cond {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    ULt,
    ULe,
    UGt,
    UGe,
}

impl Cond {
    /// The comparison with its operands swapped: `a < b` is `b > a`.
    pub fn swap(self) -> Cond {
        match self {
            Cond::Eq | Cond::Ne => self,
            Cond::Lt => Cond::Gt,
            Cond::Le => Cond::Ge,
            Cond::Gt => Cond::Lt,
            Cond::Ge => Cond::Le,
            Cond::ULt => Cond::UGt,
            Cond::ULe => Cond::UGe,
            Cond::UGt => Cond::ULt,
            Cond::UGe => Cond::ULe,
        }
    }

    /// The opposite outcome: `!(a < b)` is `a >= b` (on integers).
    pub fn negate(self) -> Cond {
        match self {
            Cond::Eq => Cond::Ne,
            Cond::Ne => Cond::Eq,
            Cond::Lt => Cond::Ge,
            Cond::Le => Cond::Gt,
            Cond::Gt => Cond::Le,
            Cond::Ge => Cond::Lt,
            Cond::ULt => Cond::UGe,
            Cond::ULe => Cond::UGt,
            Cond::UGt => Cond::ULe,
            Cond::UGe => Cond::ULt,
        }
    }

    /// As Simple prints it: `==`, `<`, `u<`...
    pub fn symbol(self) -> &'static str {
        match self {
            Cond::Eq => "==",
            Cond::Ne => "!=",
            Cond::Lt => "<",
            Cond::Le => "<=",
            Cond::Gt => ">",
            Cond::Ge => ">=",
            Cond::ULt => "u<",
            Cond::ULe => "u<=",
            Cond::UGt => "u>",
            Cond::UGe => "u>=",
        }
    }

    /// Whether `a cond b` holds, on integers.
    pub fn holds(self, a: i64, b: i64) -> bool {
        let (ua, ub) = (a as u64, b as u64);
        match self {
            Cond::Eq => a == b,
            Cond::Ne => a != b,
            Cond::Lt => a < b,
            Cond::Le => a <= b,
            Cond::Gt => a > b,
            Cond::Ge => a >= b,
            Cond::ULt => ua < ub,
            Cond::ULe => ua <= ub,
            Cond::UGt => ua > ub,
            Cond::UGe => ua >= ub,
        }
    }
}

/// What a machine node does. One vocabulary serves every CPU: selection
/// maps each ideal operation onto it, and each CPU's legalizer rules say
/// which of these (with which types) it runs as they stand, and rewrite
/// the others into ones it does. A few operations exist on some CPUs
/// only (the flags of x86 and ARM, RISC-V's `lui`, ARM's `movk`); each
/// CPU's table (`cpu::*::ops`) names the instruction of every operation
/// it runs, and the legalizer guarantees that no other reaches it.
///
/// Inputs follow the ideal node's order. An `I` form takes its last
/// operand from [`Mach::imm`] instead of an input; memory operations
/// keep the ideal layout (control, memory, base pointer, then the index
/// or the value) and take their displacement and scale from the node.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Op {
    // Integer arithmetic on 64-bit registers.
    Add,
    AddI,
    Sub,
    Mul,
    MulI,
    /// Signed division whose divisor is known to be neither 0 nor -1.
    Div,
    /// The language's division: `x/0` is 0 and `MIN/-1` is `MIN` (the
    /// evaluator's meaning); CPUs whose divide instruction means
    /// something else for those cases lower it.
    DivTotal,
    /// `0 - x`, wrapping.
    Neg,
    And,
    AndI,
    Or,
    OrI,
    Xor,
    XorI,
    /// Shifts take the count modulo 64, as the language does.
    Shl,
    ShlI,
    Sar,
    SarI,
    Shr,
    ShrI,
    /// x86's address arithmetic: `in(1) + (in(2) << scale) + imm`, either
    /// input absent.
    Lea,
    /// Sign- and zero-extension from the width of `ty[1]` to `ty[0]`.
    SExt,
    ZExt,
    /// No code: a narrower or wider view of the same register (the
    /// legalizer's minimum rules).
    Trunc,
    AnyExt,
    /// An integer constant, `imm` (`ty[0]` is the narrowest type that
    /// holds it, which the rules for constants look at).
    Int,
    /// A float constant: `imm` holds the bits of the double.
    Flt,
    /// The address of the function whose index is `imm`.
    FunAddr,
    /// `in(1) cond in(2)` (or `cond imm`) as 0 or 1.
    CmpSet(Cond),
    CmpSetI(Cond),
    /// A comparison that sets the flags (x86, ARM).
    Cmp,
    CmpI,
    /// The flags made into 0 or 1 (x86 `setcc`, ARM `cset`).
    Set(Cond),
    /// A float comparison as 0 or 1 (RISC-V `feq.d`, `flt.d`, `fle.d`).
    FCmpSet(Cond),
    /// A float comparison that sets the flags (x86 `ucomisd`, ARM `fcmp`).
    FCmp,
    // Floats, in the float registers.
    FAdd,
    FSub,
    FMul,
    FDiv,
    FNeg,
    /// An integer converted to a double.
    I2F,
    /// A double rounded to a 32-bit float (`ty[0]` F32), and a 32-bit
    /// float widened to a double.
    FTrunc,
    FExt,
    /// Loads `mem_size` bytes, sign- or zero-extended (`signed`).
    Load,
    /// Stores the low `mem_size` bytes of its value.
    Store,
    /// Stores the immediate `imm`.
    StoreI,
    /// x86 memory operands: an operation reading its second operand from
    /// memory (role Load: address as a load's), and a read-modify-write
    /// of memory (role Store).
    AddMem,
    FAddMem,
    CmpMem,
    MemAdd,
    /// Compare and branch (role If): RISC-V branches compare two registers.
    Branch(Cond),
    /// Branch on the flags (role If).
    Jcc(Cond),
    /// A call to a function known here, whose index is `imm`, or through a
    /// register (role Call).
    Call,
    CallR,
    /// Returns from a function (role Return).
    Ret,
    /// A new object (role New), made by calling the C allocator `calloc`.
    New,
    /// A function's entry (role Fun), a parameter (role Phi with `parm`),
    /// a projection of a machine multi-node (role Proj), where a call
    /// comes back (role CallEnd): no code of their own here; chapter 20
    /// gives them registers.
    Fun,
    Parm,
    Proj,
    CallEnd,
    /// RISC-V: `lui`, the upper 20 bits of `imm` in a register (its low 12
    /// bits are zero).
    Lui,
    /// Chapter 20: a copy of `in(1)`, made by the register allocator where
    /// it splits a live range: between registers, or to or from a stack
    /// slot (a spill and a reload). Simple prints it `mov`.
    Split,
    /// ARM: `movk`, 16 bits of `imm` into its place in the register of
    /// `in(1)`; the other bits stay (`scale` holds the shift: 0, 16, 32,
    /// 48).
    MovK,
}

/// A machine node: the operation, its operands' types and forms, and the
/// ideal node it stands for.
#[derive(Clone, Debug)]
pub struct Mach {
    /// The ideal node this stands for (its kind and data), which the
    /// phases after selection see (see the module's documentation).
    pub role: NodeKind,
    pub op: Op,
    /// Type index 0, the result (or the value stored); type index 1, the
    /// source of a conversion or the operands of a comparison.
    pub ty: [LType; 2],
    /// Bytes read or written by a memory operation; 0 otherwise.
    pub mem_size: u8,
    /// A load sign-extends (otherwise it zero-extends).
    pub signed: bool,
    /// The immediate operand, a constant's value or bits, a memory
    /// operation's displacement, a function index.
    pub imm: i64,
    /// A second immediate: the value a `StoreI` stores, the immediate of
    /// an x86 memory operand.
    pub imm2: i64,
    /// The shift of a memory operation's index (0 to 3 on x86; an index
    /// register is used as it is elsewhere), or of a `MovK`.
    pub scale: u8,
    /// For a memory operation: the type of the byte offset it had in the
    /// ideal graph, which tells global code motion whether two accesses
    /// can overlap (see `load_passes`).
    pub off_ty: Option<TypeId>,
    /// The C function this operation calls, once the legalizer made it a
    /// library call (`calloc` for a New).
    pub libcall: Option<&'static str>,
    /// For a call of a function known here: its (constant) function
    /// pointer type, which names it.
    pub callee: Option<TypeId>,
    /// Chapter 20: inputs from this index on are no operands: global code
    /// motion gave a writer the Loads that must come before it in its
    /// block as extra inputs, which order it and hold no register.
    pub order_from: Option<u32>,
}

impl Mach {
    /// A node for `op` standing for an ideal node of kind `role`, with
    /// result type `ty` and everything else empty.
    pub fn new(role: NodeKind, op: Op, ty: LType) -> Mach {
        Mach {
            role,
            op,
            ty: [ty, ty],
            mem_size: 0,
            signed: false,
            imm: 0,
            imm2: 0,
            scale: 0,
            off_ty: None,
            libcall: None,
            callee: None,
            order_from: None,
        }
    }

    pub fn with_imm(mut self, imm: i64) -> Mach {
        self.imm = imm;
        self
    }

    pub fn with_src(mut self, ty: LType) -> Mach {
        self.ty[1] = ty;
        self
    }
}

/// The machine node `n`, if it is one.
pub fn mach(g: &Graph, n: NodeId) -> Option<&Mach> {
    match g.kind(n) {
        NodeKind::Mach(m) => Some(m),
        _ => None,
    }
}

/// An operation whose result is the CPU's flags (x86, ARM): it must run
/// right before the one instruction that reads them, as almost anything
/// in between may change them. Global code motion keeps it in its user's
/// block, and the local schedule next to its user.
pub fn sets_flags(g: &Graph, n: NodeId) -> bool {
    matches!(op(g, n), Some(Op::Cmp | Op::CmpI | Op::CmpMem | Op::FCmp))
}

/// The operation of node `n`, if it is a machine node.
pub fn op(g: &Graph, n: NodeId) -> Option<Op> {
    mach(g, n).map(|m| m.op)
}

/// A set of registers, one bit per register of the CPU (the numbering of
/// each CPU's `regs` module), as register constraints are stated:
/// where an operation takes each input and leaves its result.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct RegMask(pub u128);

impl RegMask {
    pub const EMPTY: RegMask = RegMask(0);

    pub const fn of(reg: u8) -> RegMask {
        RegMask(1 << reg)
    }

    /// Registers `lo..hi`.
    pub const fn range(lo: u8, hi: u8) -> RegMask {
        let top = if hi >= 128 {
            u128::MAX
        } else {
            (1u128 << hi) - 1
        };
        RegMask(top & !((1u128 << lo) - 1))
    }

    pub const fn and(self, other: RegMask) -> RegMask {
        RegMask(self.0 & other.0)
    }

    pub const fn or(self, other: RegMask) -> RegMask {
        RegMask(self.0 | other.0)
    }

    pub const fn without(self, other: RegMask) -> RegMask {
        RegMask(self.0 & !other.0)
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Exactly one register.
    pub fn is_single(self) -> bool {
        self.0.count_ones() == 1
    }

    pub fn len(self) -> u32 {
        self.0.count_ones()
    }

    pub fn contains(self, reg: u8) -> bool {
        self.0 >> reg & 1 == 1
    }

    /// The lowest register in the set.
    pub fn first(self) -> Option<u8> {
        (self.0 != 0).then(|| self.0.trailing_zeros() as u8)
    }
}

/// Makes machine node `m` with inputs `ins` and value type `ty` (a
/// legalizer's rewrite makes its nodes with this).
pub fn add_mach(g: &mut Graph, m: Mach, ins: &[Option<NodeId>], ty: TypeId) -> NodeId {
    let n = g.add_node(NodeKind::Mach(Box::new(m)), ins.to_vec());
    g.set_ty(n, ty);
    n
}

/// `n` reads one operand from memory, a load folded into it (x86's
/// `AddMem`, `CmpMem`): inputs 0 to 3 are the load's control, memory,
/// base and index, input 4 the other operand unless it is an immediate.
pub fn folds_load(g: &Graph, n: NodeId) -> bool {
    matches!(op(g, n), Some(Op::AddMem | Op::CmpMem))
}

/// Splits folded operation `n` (see [`folds_load`]) into a load of its
/// own and the operation on registers, which `n` becomes; returns the
/// load. Global code motion does this when the folded load would run
/// after a store it must precede (see `gcm::Early::unsafe_fold`).
pub fn unfold(g: &mut Graph, n: NodeId) -> NodeId {
    let m = mach(g, n).expect("a folded machine node").clone();
    let mut load = Mach::new(m.role.clone(), Op::Load, m.ty[1]);
    load.mem_size = m.mem_size;
    load.off_ty = m.off_ty;
    load.scale = m.scale;
    load.imm = m.imm;
    let ins = g.inputs(n).to_vec();
    let ld = add_mach(g, load, &ins[..4], Types::BOTTOM);
    let value = ins.get(4).copied().flatten();
    // (A comparison's role and type as the legalizer gives its `cmp`.)
    let (role, op, ty) = match (m.op, value) {
        (Op::CmpMem, Some(_)) => (NodeKind::Bool(BoolOp::Eq), Op::Cmp, LType::S64),
        (Op::CmpMem, None) => (NodeKind::Bool(BoolOp::Eq), Op::CmpI, LType::S64),
        (_, Some(_)) => (NodeKind::Add, Op::Add, m.ty[0]),
        (_, None) => (NodeKind::Add, Op::AddI, m.ty[0]),
    };
    let mut reg = Mach::new(role, op, ty).with_src(m.ty[1]);
    reg.imm = m.imm2;
    g.unlock(n);
    *g.kind_mut(n) = NodeKind::Mach(Box::new(reg));
    g.set_def(n, 1, Some(ld));
    g.set_def(n, 2, value);
    let keep = if value.is_some() { 3 } else { 2 };
    g.pop_n(n, ins.len() - keep);
    ld
}

/// The CPU of a machine graph.
pub fn cpu_of(g: &Graph) -> Cpu {
    g.target.map_or(Cpu::X86_64, |t| t.cpu)
}

/// A machine node's label (in the scheduled listing, the Graphviz
/// drawing, and where `print` meets a node again): its operation's name;
/// a parameter and a constant keep the ideal label, as Simple's machine
/// classes for them inherit it.
pub fn label(g: &Graph, n: NodeId, m: &Mach) -> String {
    match m.op {
        Op::Parm => crate::node::parm::label(g, n),
        Op::Int | Op::Flt | Op::FunAddr => format!("#{}", g.types.to_string(g.ty(n))),
        _ => crate::cpu::name(cpu_of(g), m),
    }
}

/// Appends the expression form of machine node `n`, as Simple prints its
/// machine nodes: a constant as its value, a memory operation as the
/// field it reads (`.x`, `.[]`), a return, parameter or call as the ideal
/// one prints, and anything else as `(op,in1,in2,...)` (some CPUs print
/// some operations their own way, RISC-V its immediates).
pub fn print(g: &Graph, n: NodeId, m: &Mach, out: &mut crate::node::Printer) {
    use crate::node::print as print_node;
    match m.op {
        Op::Int | Op::Flt | Op::FunAddr => g.types.print(g.ty(n), out),
        Op::Ret => crate::node::return_::print(g, n, out),
        // Chapter 20: a split prints as Simple prints it, `mov(x)`.
        Op::Split => {
            out.push_str("mov(");
            match g.input(n, 1) {
                Some(x) => print_node(g, x, out),
                None => out.push_str("---"),
            }
            out.push(')');
        }
        Op::Parm => crate::node::parm::print(g, n, out),
        Op::CallR => crate::node::call::print(g, n, out),
        // A call known here has no function-pointer input; as Simple's
        // `CallX86`, it prints its name and the inputs before the last.
        Op::Call => {
            let name = m.callee.and_then(|t| g.types.fun_name(t)).unwrap_or("call");
            out.push_str(name);
            out.push_str("( ");
            for i in 2..g.n_ins(n).saturating_sub(1) {
                print_node(g, g.in_(n, i), out);
                out.push(',');
            }
            out.pop();
            out.push(')');
        }
        Op::New => {
            let NodeKind::New { ptr, .. } = &m.role else {
                return out.push_str("new");
            };
            out.push_str("new ");
            if let Some(obj) = g.types.pointee(*ptr) {
                out.push_str(&g.types.str(obj));
            }
        }
        _ if matches!(m.role, NodeKind::Load { .. } | NodeKind::Store { .. }) => {
            if let NodeKind::Load { name, .. } | NodeKind::Store { name, .. } = &m.role {
                out.push('.');
                out.push_str(name);
            }
        }
        _ => {
            if crate::cpu::print(cpu_of(g), g, n, m, out) {
                return;
            }
            out.push('(');
            out.push_str(&crate::cpu::name(cpu_of(g), m));
            for i in 1..g.n_ins(n) {
                out.push(',');
                match g.input(n, i) {
                    Some(x) => print_node(g, x, out),
                    None => out.push_str(" ---"),
                }
            }
            out.push(')');
        }
    }
}
