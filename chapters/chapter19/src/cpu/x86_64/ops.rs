//! The operations x86-64 runs, as one table: for each, the name Simple
//! prints (`addi`, `inc`, `lea`, `set==`), its assembler form (Intel
//! syntax, registers still virtual: `v12` is the value of node 12), and
//! the registers each input may come from and the result may go to.
//!
//! Two-address operations (most of x86's: `add dst, src` writes its
//! first operand) list both the destination and the first source before
//! register allocation, which will make them one register (chapter 20).

use super::{bank, caller_saved, ret_mask, FLAGS_MASK, GPRS, RAX, RCX, RDX, WRITABLE, XMMS};

use crate::graph::{Graph, NodeId};
use crate::mach::{Abi, LType, Mach, Op, RegMask};
use crate::node::NodeKind;

/// Simple's name for the operation of `m`.
pub fn name(m: &Mach) -> String {
    use Op::*;
    let sized = |base: &str| format!("{base}{}", m.mem_size);
    match m.op {
        Add => "add".into(),
        AddI => match m.imm {
            1 => "inc".into(),
            -1 => "dec".into(),
            _ => "addi".into(),
        },
        Sub => "sub".into(),
        Mul => "mul".into(),
        MulI => "muli".into(),
        Div | DivTotal => "div".into(),
        Neg => "neg".into(),
        And => "and".into(),
        AndI => "andi".into(),
        Or => "or".into(),
        OrI => "ori".into(),
        Xor => "xor".into(),
        XorI => "xori".into(),
        Shl => "shl".into(),
        ShlI => "shli".into(),
        Sar => "sar".into(),
        SarI => "sari".into(),
        Shr => "shr".into(),
        ShrI => "shri".into(),
        Lea => "lea".into(),
        SExt => format!("sext{}", m.ty[1].bits()),
        ZExt => format!("zext{}", m.ty[1].bits()),
        Trunc => "trunc".into(),
        AnyExt => "anyext".into(),
        Int if m.imm == 0 => "xor".into(),
        Int => "ldi".into(),
        Flt => "ldf".into(),
        FunAddr => "lea".into(),
        Cmp | FCmp => "cmp".into(),
        CmpI if m.imm == 0 => "test".into(),
        CmpI => "cmp".into(),
        CmpMem => sized("cmp"),
        Set(c) | CmpSet(c) | CmpSetI(c) => format!("set{}", c.symbol()),
        FCmpSet(c) => format!("setf{}", c.symbol()),
        FAdd => "addf".into(),
        FSub => "subf".into(),
        FMul => "mulf".into(),
        FDiv => "divf".into(),
        FNeg => "negf".into(),
        I2F => "i2f8".into(),
        FTrunc => "f8f4".into(),
        FExt => "f4f8".into(),
        Load => sized("ld"),
        Store | StoreI => sized("st"),
        AddMem => sized("add"),
        FAddMem => sized("addf"),
        MemAdd => sized("add"),
        Jcc(c) | Branch(c) => format!("j{}", c.symbol()),
        Call => "call".into(),
        CallR => "callr".into(),
        Ret => "ret".into(),
        New => "alloc".into(),
        Parm => "parm".into(),
        Proj => "proj".into(),
        CallEnd => "cend".into(),
        Fun => "fun".into(),
        Lui => "lui".into(),
        MovK => "movk".into(),
    }
}

/// The virtual register of node `n`'s value.
fn v(n: Option<NodeId>) -> String {
    n.map_or_else(|| "_".into(), |n| format!("v{}", n.nid()))
}

/// `[vB + vI*4 + 12]`: the memory operand of memory operation `n`.
fn address(g: &Graph, n: NodeId, m: &Mach, idx_at: usize) -> String {
    let mut s = format!("[{}", v(g.input(n, 2)));
    if let Some(i) = g.input(n, idx_at) {
        s.push_str(&format!(" + {}", v(Some(i))));
        if m.scale > 0 {
            s.push_str(&format!("*{}", 1 << m.scale));
        }
    }
    if m.imm != 0 {
        s.push_str(&format!(
            " {} {}",
            if m.imm < 0 { "-" } else { "+" },
            m.imm.unsigned_abs()
        ));
    }
    s.push(']');
    s
}

/// The size keyword of a memory operand of `size` bytes.
fn ptr_size(size: u8) -> &'static str {
    match size {
        1 => "byte ptr ",
        2 => "word ptr ",
        4 => "dword ptr ",
        _ => "qword ptr ",
    }
}

/// The instruction of machine node `n` in Intel syntax.
pub fn asm(g: &Graph, n: NodeId, m: &Mach) -> String {
    use Op::*;
    let d = v(Some(n));
    let a = v(g.input(n, 1));
    let b = v(g.input(n, 2));
    let imm = m.imm;
    match m.op {
        Add | Sub | Mul | And | Or | Xor => format!("{} {d}, {a}, {b}", name(m)),
        Shl | Sar | Shr => format!("{} {d}, {a}, cl ; cl = {b}", name(m)),
        AddI | AndI | OrI | XorI | ShlI | SarI | ShrI => {
            let mnemonic = match m.op {
                AddI => "add",
                AndI => "and",
                OrI => "or",
                XorI => "xor",
                ShlI => "shl",
                SarI => "sar",
                _ => "shr",
            };
            format!("{mnemonic} {d}, {a}, {imm}")
        }
        MulI => format!("imul {d}, {a}, {imm}"),
        Div | DivTotal => format!("cqo; idiv {b} ; {d} = {a} / {b}"),
        Neg => format!("neg {d}, {a}"),
        Lea => {
            let mut s = format!("lea {d}, [");
            let base = g.input(n, 1);
            if base.is_some() {
                s.push_str(&v(base));
                s.push_str(" + ");
            }
            s.push_str(&b);
            if m.scale > 0 {
                s.push_str(&format!("*{}", 1 << m.scale));
            }
            if imm != 0 {
                s.push_str(&format!(
                    " {} {}",
                    if imm < 0 { "-" } else { "+" },
                    imm.unsigned_abs()
                ));
            }
            s.push(']');
            s
        }
        SExt => format!("movsx {d}, {a} ; from {}", m.ty[1]),
        ZExt => format!("movzx {d}, {a} ; from {}", m.ty[1]),
        Trunc | AnyExt => format!("; {d} = {a}"),
        Int if imm == 0 => format!("xor {d}, {d}"),
        Int if i32::try_from(imm).is_ok() => format!("mov {d}, {imm}"),
        Int => format!("movabs {d}, {imm}"),
        Flt => format!("movsd {d}, [rip + {}]", f64::from_bits(imm as u64)),
        FunAddr => format!("lea {d}, [rip + fn{imm}]"),
        Cmp => format!("cmp {a}, {b}"),
        CmpI if imm == 0 => format!("test {a}, {a}"),
        CmpI => format!("cmp {a}, {imm}"),
        FCmp => format!("ucomisd {a}, {b}"),
        Set(c) => format!("set{} {d} ; movzx", cc(c)),
        CmpSet(c) | CmpSetI(c) | FCmpSet(c) => format!("; {d} = {a} {} {b}", c.symbol()),
        FAdd => format!("addsd {d}, {a}, {b}"),
        FSub => format!("subsd {d}, {a}, {b}"),
        FMul => format!("mulsd {d}, {a}, {b}"),
        FDiv => format!("divsd {d}, {a}, {b}"),
        FNeg => format!("xorpd {d}, {a}, [rip + signbit]"),
        I2F => format!("cvtsi2sd {d}, {a}"),
        FTrunc => format!("cvtsd2ss {d}, {a}"),
        FExt => format!("cvtss2sd {d}, {a}"),
        Load => {
            let mnemonic = match (m.ty[0], m.mem_size, m.signed) {
                (LType::F64, ..) => "movsd",
                (LType::F32, ..) => "movss",
                (_, 1 | 2, true) => "movsx",
                (_, 1 | 2, false) => "movzx",
                (_, 4, true) => "movsxd",
                _ => "mov",
            };
            format!(
                "{mnemonic} {d}, {}{}",
                ptr_size(m.mem_size),
                address(g, n, m, 3)
            )
        }
        Store => {
            let mnemonic = match m.ty[0] {
                LType::F64 => "movsd",
                LType::F32 => "movss",
                _ => "mov",
            };
            format!(
                "{mnemonic} {}{}, {}",
                ptr_size(m.mem_size),
                address(g, n, m, 4),
                v(g.input(n, 3))
            )
        }
        StoreI => format!(
            "mov {}{}, {}",
            ptr_size(m.mem_size),
            address(g, n, m, 4),
            m.imm2
        ),
        AddMem | CmpMem | FAddMem => {
            let mnemonic = match m.op {
                AddMem => "add",
                CmpMem => "cmp",
                _ => "addsd",
            };
            let other = match g.input(n, 4) {
                Some(x) => v(Some(x)),
                None => m.imm2.to_string(),
            };
            match m.op {
                CmpMem => format!("{mnemonic} {}{}, {other}", ptr_size(8), address(g, n, m, 3)),
                _ => format!("{mnemonic} {d}, {other}, {}", address(g, n, m, 3)),
            }
        }
        MemAdd => format!("add {}, {}", address(g, n, m, 4), v(g.input(n, 3))),
        Jcc(c) | Branch(c) => format!("j{} {}", cc(c), targets(g, n)),
        Call => format!(
            "call {}",
            m.callee.and_then(|t| g.types.fun_name(t)).unwrap_or("?")
        ),
        CallR => format!("call {}", v(g.inputs(n).last().copied().flatten())),
        Ret => "ret".into(),
        New => "call calloc".into(),
        Parm | Proj | CallEnd | Fun => String::new(),
        Lui | MovK => format!("; no {:?} on x86", m.op),
    }
}

/// The x86 condition-code suffix.
fn cc(c: crate::mach::Cond) -> &'static str {
    use crate::mach::Cond::*;
    match c {
        Eq => "e",
        Ne => "ne",
        Lt => "l",
        Le => "le",
        Gt => "g",
        Ge => "ge",
        ULt => "b",
        ULe => "be",
        UGt => "a",
        UGe => "ae",
    }
}

/// `L12, L13`: where a branch goes when taken and when not.
fn targets(g: &Graph, n: NodeId) -> String {
    let mut arms: Vec<(usize, NodeId)> = g
        .outputs(n)
        .iter()
        .filter_map(|&p| match g.kind(p) {
            NodeKind::CProj { idx, .. } => Some((*idx, p)),
            _ => None,
        })
        .collect();
    arms.sort();
    let names: Vec<String> = arms.iter().map(|(_, p)| format!("L{}", p.nid())).collect();
    names.join(", ")
}

/// The low-level type of the value of node `x`: a machine node's own (the
/// legalizer's nodes, an f32 rounding among them, have no precise ideal
/// type), an ideal node's from its type.
fn value_type(g: &Graph, x: NodeId) -> LType {
    match crate::mach::mach(g, x) {
        Some(m) => m.ty[0],
        None => crate::mach::select::ltype(&g.types, g.ty(x)),
    }
}

/// The registers input `i` of machine node `n` may come from; `None`
/// for an input that is no register (control, memory).
pub fn in_mask(g: &Graph, n: NodeId, m: &Mach, i: usize, abi: Abi) -> Option<RegMask> {
    use Op::*;
    let input_type = |i: usize| {
        g.input(n, i)
            .map(|x| value_type(g, x))
            .unwrap_or(LType::S64)
    };
    match m.op {
        _ if i == 0 => None,
        Div | DivTotal if i == 1 => Some(RegMask::of(RAX)),
        Div | DivTotal => Some(WRITABLE.without(RegMask::of(RAX)).without(RegMask::of(RDX))),
        Shl | Sar | Shr if i == 2 => Some(RegMask::of(RCX)),
        Set(_) | Jcc(_) => Some(FLAGS_MASK),
        Load | Store | StoreI | AddMem | CmpMem | FAddMem | MemAdd if i == 1 => None,
        Load | AddMem | CmpMem | FAddMem if i == 2 || i == 3 => Some(GPRS),
        Store | StoreI | MemAdd if i == 2 || i == 4 => Some(GPRS),
        Ret if i == 1 => None,
        Ret if i == 2 => Some(ret_mask(input_type(2))),
        Ret => None,
        Call | CallR => call_in_mask(g, n, i, abi),
        // `calloc(1, size)`: the size is the second integer argument,
        // `rsi` for SystemV and `rdx` for Win64.
        New if i == 1 => super::arg_masks(abi, &[LType::S64, LType::S64])[1],
        New => None,
        _ => Some(bank(input_type(i))),
    }
}

/// Input `i` of a call: memory (none), an argument in its register, the
/// target of an indirect call in any register.
fn call_in_mask(g: &Graph, n: NodeId, i: usize, abi: Abi) -> Option<RegMask> {
    let nins = g.n_ins(n);
    let indirect = matches!(crate::mach::op(g, n), Some(Op::CallR));
    let nargs = if indirect { nins - 3 } else { nins - 2 };
    match i {
        1 => None,
        _ if indirect && i == nins - 1 => Some(WRITABLE),
        _ => {
            let kinds: Vec<LType> = (0..nargs)
                .map(|k| {
                    g.input(n, 2 + k)
                        .map(|x| value_type(g, x))
                        .unwrap_or(LType::S64)
                })
                .collect();
            // Arguments past the registers go on the stack: no register.
            super::arg_masks(abi, &kinds).get(i - 2).copied().flatten()
        }
    }
}

/// The registers machine node `n`'s result may go to; `None` for a
/// node with no register result (a store, a branch, a return).
pub fn out_mask(_g: &Graph, _n: NodeId, m: &Mach, _abi: Abi) -> Option<RegMask> {
    use Op::*;
    match m.op {
        Store | StoreI | MemAdd | Ret | Jcc(_) | Branch(_) | Fun | Proj | CallEnd => None,
        Cmp | CmpI | CmpMem | FCmp => Some(FLAGS_MASK),
        Div | DivTotal => Some(RegMask::of(RAX)),
        New => Some(RegMask::of(RAX)),
        Call | CallR => None,
        Parm => None,
        FAdd | FSub | FMul | FDiv | FNeg | I2F | FTrunc | FExt | Flt | FAddMem => Some(XMMS),
        Load if m.ty[0].is_float() => Some(XMMS),
        _ => Some(WRITABLE),
    }
}

/// The registers a call (or a New, which calls `calloc`) leaves changed.
pub fn kill_mask(m: &Mach, abi: Abi) -> Option<RegMask> {
    match m.op {
        Op::Call | Op::CallR | Op::New => Some(caller_saved(abi)),
        Op::Div | Op::DivTotal => Some(RegMask::of(RDX).or(FLAGS_MASK)),
        _ => None,
    }
}

/// Two-address operations: the input whose register the result takes.
pub fn two_address(m: &Mach) -> Option<usize> {
    use Op::*;
    match m.op {
        Add | AddI | Sub | Mul | And | AndI | Or | OrI | Xor | XorI | Shl | ShlI | Sar | SarI
        | Shr | ShrI | Neg | FAdd | FSub | FMul | FDiv | FNeg | AddMem => Some(1),
        _ => None,
    }
}

/// Register `r`'s name.
pub fn reg_name(r: u8) -> &'static str {
    super::REGS.get(r as usize).copied().unwrap_or("stack")
}
