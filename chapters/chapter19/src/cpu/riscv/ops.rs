//! The operations RISC-V runs, as one table: for each, the name Simple
//! prints (`addi`, `slt`, `ld8`, `b<`), its assembler form (GNU syntax,
//! registers still virtual: `v12` is the value of node 12, and an empty
//! operand is the register `zero`), and the registers each input may come
//! from and the result may go to.
//!
//! Simple prints the immediate forms as expressions, `( arg | #2 )`, and
//! the rest as `(op,in1,in2)`. RISC-V has no two-address instructions:
//! every result may go to any register.

use super::select::imm12;
use super::{bank, caller_saved, ret_mask, A0, A1, FPRS, GPRS, T6, WRITABLE};

use crate::graph::{Graph, NodeId};
use crate::mach::{Cond, LType, Mach, Op, RegMask};
use crate::node::{NodeKind, Printer};

/// Simple's name for the operation of `m`.
pub fn name(m: &Mach) -> String {
    use Op::*;
    let sized = |base: &str| format!("{base}{}", m.mem_size);
    match m.op {
        Add => "add".into(),
        AddI => "addi".into(),
        Sub => "sub".into(),
        Mul => "mul".into(),
        Div | DivTotal => "div".into(),
        Neg => "neg".into(),
        And => "and".into(),
        AndI => "andi".into(),
        Or => "or".into(),
        OrI => "ori".into(),
        Xor => "xor".into(),
        XorI => "xori".into(),
        // Simple names the register shifts as x86 does.
        Shl => "shl".into(),
        ShlI => "slli".into(),
        Sar => "sar".into(),
        SarI => "srai".into(),
        Shr => "shr".into(),
        ShrI => "srli".into(),
        SExt if m.ty[1] == LType::S32 => "sext.w".into(),
        SExt => format!("sext{}", m.ty[1].bits()),
        ZExt => format!("zext{}", m.ty[1].bits()),
        Trunc => "trunc".into(),
        AnyExt => "anyext".into(),
        Int => "ldi".into(),
        Lui => "lui".into(),
        Flt => "ld8".into(),
        FunAddr => "ldx".into(),
        CmpSet(Cond::Lt) => "slt".into(),
        CmpSet(Cond::ULt) => "sltu".into(),
        CmpSetI(Cond::Lt) => "slti".into(),
        CmpSetI(Cond::ULt) => "sltiu".into(),
        CmpSet(c) | CmpSetI(c) | FCmpSet(c) => format!("set{}", c.symbol()),
        FAdd => "addf".into(),
        FSub => "subf".into(),
        FMul => "mulf".into(),
        FDiv => "divf".into(),
        FNeg => "negf".into(),
        I2F => "cvtf".into(),
        FTrunc => "f8f4".into(),
        FExt => "f4f8".into(),
        Load => sized("ld"),
        Store => sized("st"),
        Branch(c) => format!("b{}", c.symbol()),
        Call => "call".into(),
        CallR => "callr".into(),
        Ret => "ret".into(),
        New => "alloc".into(),
        Parm => "parm".into(),
        Proj => "proj".into(),
        CallEnd => "cend".into(),
        Fun => "fun".into(),
        // What RISC-V has not: the legalizer lets none of these through.
        MulI | Lea | Cmp | CmpI | Set(_) | FCmp | Jcc(_) | StoreI | AddMem | FAddMem | CmpMem
        | MemAdd | MovK => format!("{:?}", m.op).to_lowercase(),
    }
}

/// The symbol Simple prints an immediate form with, `( x + #1 )`:
/// `slti` prints `<`, `sltiu` `<u` (any other condition, before the
/// legalizer, its symbol).
fn glabel(op: Op) -> Option<&'static str> {
    match op {
        Op::AddI => Some("+"),
        Op::AndI => Some("&"),
        Op::OrI => Some("|"),
        Op::XorI => Some("^"),
        Op::ShlI => Some("<<"),
        Op::SarI => Some(">>"),
        Op::ShrI => Some(">>>"),
        Op::CmpSetI(Cond::ULt) => Some("<u"),
        Op::CmpSetI(c) => Some(c.symbol()),
        _ => None,
    }
}

/// Prints machine node `n` RISC-V's own way, as Simple does: an immediate
/// form as `( x op #imm )`, a constant made of instructions as its value.
/// False for the operations printed as `(op,in1,...)`.
pub fn print(g: &Graph, n: NodeId, m: &Mach, out: &mut Printer) -> bool {
    // `lui`, and `addi` from `zero`: a constant.
    if m.op == Op::Lui || (m.op == Op::AddI && g.input(n, 1).is_none()) {
        g.types.print(g.ty(n), out);
        return true;
    }
    let Some(sym) = glabel(m.op) else {
        // An empty operand is the register `zero` (`sltu rd, zero, x`).
        let ins = 1..g.n_ins(n);
        if ins.clone().all(|i| g.input(n, i).is_some()) {
            return false;
        }
        out.push('(');
        out.push_str(&name(m));
        for i in ins {
            out.push(',');
            match g.input(n, i) {
                Some(x) => crate::node::print(g, x, out),
                None => out.push_str("zero"),
            }
        }
        out.push(')');
        return true;
    };
    out.push_str("( ");
    match g.input(n, 1) {
        Some(x) => crate::node::print(g, x, out),
        None => out.push_str("zero"),
    }
    out.push_str(&format!(" {sym} #{} )", m.imm));
    true
}

/// The virtual register of node `n`'s value; `zero` for an empty operand.
fn v(n: Option<NodeId>) -> String {
    n.map_or_else(|| "zero".into(), |n| format!("v{}", n.nid()))
}

/// `12(v3)`: the address of memory operation `n`.
fn address(g: &Graph, n: NodeId, m: &Mach) -> String {
    format!("{}({})", m.imm, v(g.input(n, 2)))
}

/// The instruction of machine node `n` in RISC-V assembler syntax.
pub fn asm(g: &Graph, n: NodeId, m: &Mach) -> String {
    use Op::*;
    let d = v(Some(n));
    let a = v(g.input(n, 1));
    let b = v(g.input(n, 2));
    let imm = m.imm;
    match m.op {
        Add | Sub | Mul | Div | And | Or | Xor | Shl | Sar | Shr | CmpSet(Cond::Lt)
        | CmpSet(Cond::ULt) => {
            let mnemonic = match m.op {
                Shl => "sll",
                Sar => "sra",
                Shr => "srl",
                CmpSet(Cond::Lt) => "slt",
                CmpSet(_) => "sltu",
                _ => return format!("{} {d}, {a}, {b}", name(m)),
            };
            format!("{mnemonic} {d}, {a}, {b}")
        }
        AddI | AndI | OrI | XorI | ShlI | SarI | ShrI | CmpSetI(Cond::Lt) | CmpSetI(Cond::ULt) => {
            let mnemonic = match m.op {
                CmpSetI(Cond::Lt) => "slti".into(),
                CmpSetI(_) => "sltiu".into(),
                _ => name(m),
            };
            format!("{mnemonic} {d}, {a}, {imm}")
        }
        Neg => format!("neg {d}, {a}"),
        SExt if m.ty[1] == LType::S32 => format!("sext.w {d}, {a}"),
        // Before the legalizer only: no instruction of their own.
        DivTotal => format!("; {d} = {a} / {b} (x/0 is 0)"),
        SExt | ZExt | Trunc | AnyExt => format!("; {d} = {} {a}", name(m)),
        CmpSet(c) => format!("; {d} = {a} {} {b}", c.symbol()),
        CmpSetI(c) => format!("; {d} = {a} {} {imm}", c.symbol()),
        Int if imm12(imm) => format!("addi {d}, zero, {imm}"),
        Int => format!("li {d}, {imm}"),
        Lui => format!("lui {d}, {:#x}", (imm >> 12) & 0xF_FFFF),
        // From the constant pool; the assembler makes `auipc t6` and
        // `fld` from this.
        Flt => format!(
            "fld {d}, .LC{}, t6 ; {:?}",
            n.nid(),
            f64::from_bits(imm as u64)
        ),
        FunAddr => {
            let name = g
                .types
                .fun_name(g.ty(n))
                .map_or_else(|| format!("fn{imm}"), String::from);
            format!("lla {d}, {name}")
        }
        FCmpSet(c @ (Cond::Eq | Cond::Lt | Cond::Le)) => {
            let mnemonic = match c {
                Cond::Eq => "feq.d",
                Cond::Lt => "flt.d",
                _ => "fle.d",
            };
            format!("{mnemonic} {d}, {a}, {b}")
        }
        FCmpSet(c) => format!("; {d} = {a} {} {b}", c.symbol()),
        FAdd => format!("fadd.d {d}, {a}, {b}"),
        FSub => format!("fsub.d {d}, {a}, {b}"),
        FMul => format!("fmul.d {d}, {a}, {b}"),
        FDiv => format!("fdiv.d {d}, {a}, {b}"),
        FNeg => format!("fneg.d {d}, {a}"),
        I2F => format!("fcvt.d.l {d}, {a}"),
        FTrunc => format!("fcvt.s.d {d}, {a}"),
        FExt => format!("fcvt.d.s {d}, {a}"),
        Load => {
            let mnemonic = match (m.ty[0], m.mem_size, m.signed) {
                (LType::F64, ..) => "fld",
                (LType::F32, ..) => "flw",
                (_, 1, true) => "lb",
                (_, 1, false) => "lbu",
                (_, 2, true) => "lh",
                (_, 2, false) => "lhu",
                (_, 4, true) => "lw",
                (_, 4, false) => "lwu",
                _ => "ld",
            };
            format!("{mnemonic} {d}, {}", address(g, n, m))
        }
        Store => {
            let value = g.input(n, 3);
            let mnemonic = match (m.ty[0], m.mem_size) {
                // `zero` is an integer register, whatever the field.
                (LType::F64, _) if value.is_some() => "fsd",
                (LType::F32, _) if value.is_some() => "fsw",
                (_, 1) => "sb",
                (_, 2) => "sh",
                (_, 4) => "sw",
                _ => "sd",
            };
            format!("{mnemonic} {}, {}", v(value), address(g, n, m))
        }
        Branch(c) => {
            // `>` and `<=` (`bgt`, `ble` are the assembler's names for
            // these) swap the operands.
            let (mnemonic, x, y) = match c {
                Cond::Eq => ("beq", a, b),
                Cond::Ne => ("bne", a, b),
                Cond::Lt => ("blt", a, b),
                Cond::Ge => ("bge", a, b),
                Cond::ULt => ("bltu", a, b),
                Cond::UGe => ("bgeu", a, b),
                Cond::Gt => ("blt", b, a),
                Cond::Le => ("bge", b, a),
                Cond::UGt => ("bltu", b, a),
                Cond::ULe => ("bgeu", b, a),
            };
            let (taken, other) = targets(g, n);
            format!("{mnemonic} {x}, {y}, {taken} ; else {other}")
        }
        Call => format!(
            "call {}",
            m.callee.and_then(|t| g.types.fun_name(t)).unwrap_or("?")
        ),
        CallR => format!("jalr {}", v(g.inputs(n).last().copied().flatten())),
        Ret => "ret".into(),
        New => format!("li a0, 1 ; mv a1, {a} ; call calloc"),
        Parm | Proj | CallEnd | Fun => String::new(),
        MulI | Lea | Cmp | CmpI | Set(_) | FCmp | Jcc(_) | StoreI | AddMem | FAddMem | CmpMem
        | MemAdd | MovK => format!("; no {:?} on riscv", m.op),
    }
}

/// `L12`, `L13`: where a branch goes when its condition holds, and when
/// not.
fn targets(g: &Graph, n: NodeId) -> (String, String) {
    let arm = |want: usize| {
        g.outputs(n)
            .iter()
            .find(|&&p| matches!(g.kind(p), NodeKind::CProj { idx, .. } if *idx == want))
            .map_or_else(|| "?".into(), |p| format!("L{}", p.nid()))
    };
    (arm(0), arm(1))
}

/// The type of input `i` of `n`, as a register sees it.
fn input_type(g: &Graph, n: NodeId, i: usize) -> LType {
    g.input(n, i)
        .map(|x| value_type(g, x))
        .unwrap_or(LType::S64)
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

/// The registers input `i` of machine node `n` may come from; `None` for
/// an input that is no register (control, memory, an empty operand that
/// reads `zero`).
pub fn in_mask(g: &Graph, n: NodeId, m: &Mach, i: usize) -> Option<RegMask> {
    use Op::*;
    g.input(n, i)?;
    match m.op {
        _ if i == 0 => None,
        Load | Store if i == 1 => None,
        Load | Store if i == 2 => Some(GPRS),
        Store if i == 3 && m.ty[0].is_float() => Some(FPRS),
        Store if i == 3 => Some(GPRS),
        Load | Store => None,
        Ret if i == 2 => Some(ret_mask(input_type(g, n, 2))),
        Ret => None,
        Call | CallR => call_in_mask(g, n, m, i),
        // calloc(1, size): the size is the second argument.
        New if i == 1 => Some(RegMask::of(A1)),
        New => None,
        // Integer operands may be read from any register, `zero` and `sp`
        // too.
        _ if input_type(g, n, i).is_float() => Some(FPRS),
        _ => Some(GPRS),
    }
}

/// Input `i` of a call: memory (none), an argument in its register (or
/// none: on the stack), the target of an indirect call in any register.
fn call_in_mask(g: &Graph, n: NodeId, m: &Mach, i: usize) -> Option<RegMask> {
    let nins = g.n_ins(n);
    let indirect = m.op == Op::CallR;
    let nargs = if indirect { nins - 3 } else { nins - 2 };
    match i {
        1 => None,
        _ if indirect && i == nins - 1 => Some(GPRS),
        _ => {
            let kinds: Vec<LType> = (0..nargs).map(|k| input_type(g, n, 2 + k)).collect();
            super::arg_masks(&kinds).get(i - 2).copied().flatten()
        }
    }
}

/// The registers machine node `n`'s result may go to; `None` for a node
/// with no register result (a store, a branch, a return).
pub fn out_mask(_g: &Graph, _n: NodeId, m: &Mach) -> Option<RegMask> {
    use Op::*;
    match m.op {
        Store | Ret | Branch(_) | Fun | Proj | CallEnd | Call | CallR | Parm => None,
        New => Some(RegMask::of(A0)),
        // A float comparison writes an integer register.
        FCmpSet(_) => Some(WRITABLE),
        _ => Some(bank(m.ty[0])),
    }
}

/// The registers a call (or a New, which calls `calloc`) leaves changed;
/// a float constant's load uses `t6` to hold the pool's address.
pub fn kill_mask(m: &Mach) -> Option<RegMask> {
    match m.op {
        Op::Call | Op::CallR | Op::New => Some(caller_saved()),
        Op::Flt => Some(RegMask::of(T6)),
        _ => None,
    }
}

/// Two-address operations: none on RISC-V.
pub fn two_address(_m: &Mach) -> Option<usize> {
    None
}

/// Register `r`'s name.
pub fn reg_name(r: u8) -> &'static str {
    super::REGS.get(r as usize).copied().unwrap_or("stack")
}
