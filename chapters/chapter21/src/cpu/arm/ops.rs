//! The operations AArch64 runs, as one table: for each, the name Simple
//! prints (`addi`, `inc`, `lsli`, `set==`, `ld8`), its assembler form
//! (ARM syntax, registers still virtual: `v12` is the value of node 12,
//! in an `x` or a `d` register as its type says), and the registers each
//! input may come from and the result may go to.
//!
//! ARM is three-address: an instruction's result may go to any register,
//! whatever its sources. The one exception is `movk`, which changes 16
//! bits of a register and keeps the rest: its result is its input's
//! register (two-address on input 1).
//!
//! Conditions: after `cmp` the language's comparisons read as `eq`, `ne`,
//! `lt`, `le`, `gt`, `ge` (signed) and `lo`, `ls`, `hi`, `hs` (unsigned).
//! After `fcmp`, whose unordered outcome (a NaN) sets C and V, the ordered
//! comparisons read as `eq`, `mi`, `ls`, `gt`, `ge`, all false when
//! unordered, and `ne` is true then (the negation of `==`). On floats the
//! unsigned conditions mean "or unordered" (`lt`, `le`, `hi`, `pl`), so
//! that `a < b` negated is `a u>= b`, not `a >= b`: whoever inverts a
//! branch on float flags must invert the condition code (`mi` to `pl`).

use super::select::{add_imm, disp_ok, is_logical_imm, single_move};
use super::{
    arg_masks, bank, caller_saved, ret_mask, FLAGS_MASK, FPRS, GPRS, WRITABLE, X0, X1, X30,
};
use crate::graph::{Graph, NodeId};
use crate::mach::{mach, Cond, LType, Mach, Op, RegMask};
use crate::node::NodeKind;

/// Simple's name for the operation of `m` (its ARM classes' `op()`
/// where it has them).
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
        // Simple names the register forms after x86 (`sar`, `shr`; its
        // left shift says `shr` too, a slip) and the immediate forms
        // after ARM.
        Shl => "shl".into(),
        ShlI => "lsli".into(),
        Sar => "sar".into(),
        SarI => "asri".into(),
        Shr => "shr".into(),
        ShrI => "lsri".into(),
        SExt => ["sxtb", "sxth", "sxtw"][ext_index(m.ty[1])].into(),
        ZExt => ["uxtb", "uxth", "uxtw"][ext_index(m.ty[1])].into(),
        Trunc => "trunc".into(),
        AnyExt => "anyext".into(),
        Int => "ldi".into(),
        Flt => "ld8".into(),
        FunAddr => "ldx".into(),
        Cmp => "cmp".into(),
        CmpI if m.imm == 0 => "test".into(),
        CmpI => "cmp".into(),
        FCmp => "cmpf".into(),
        Set(c) | CmpSet(c) | CmpSetI(c) => format!("set{}", c.symbol()),
        FCmpSet(c) => format!("setf{}", c.symbol()),
        FAdd => "addf".into(),
        FSub => "subf".into(),
        FMul => "mulf".into(),
        FDiv => "divf".into(),
        FNeg => "negf".into(),
        I2F => "cvt".into(),
        FTrunc => "f8f4".into(),
        FExt => "f4f8".into(),
        Load => sized("ld"),
        Store | StoreI => sized("st"),
        Jcc(c) | Branch(c) => format!("j{}", c.symbol()),
        Call => "call".into(),
        CallR => "callr".into(),
        Ret => "ret".into(),
        New => "alloc".into(),
        Parm => "parm".into(),
        Split => "mov".into(),
        Proj => "proj".into(),
        CallEnd => "cend".into(),
        Fun => "fun".into(),
        MovK => "movk".into(),
        Lea | Lui | AddMem | FAddMem | CmpMem | MemAdd => format!("{:?}", m.op).to_lowercase(),
    }
}

/// 0, 1, 2 for a source of 8, 16, 32 (or more) bits.
fn ext_index(t: LType) -> usize {
    match t.bits() {
        0..=8 => 0,
        9..=16 => 1,
        _ => 2,
    }
}

/// Prints machine node `n` ARM's own way, when it has one: a `movk` that
/// finishes a constant prints as that constant, as Simple's one node for
/// a wide constant does.
pub fn print(g: &Graph, n: NodeId, m: &Mach, out: &mut crate::node::Printer) -> bool {
    if m.op == Op::MovK && g.types.int_value(g.ty(n)).is_some() {
        g.types.print(g.ty(n), out);
        return true;
    }
    false
}

/// The virtual register of node `n`'s value.
fn v(n: Option<NodeId>) -> String {
    n.map_or_else(|| "_".into(), |n| format!("v{}", n.nid()))
}

/// `#12`, `#3, lsl #12`: an `add`/`sub`/`cmp` immediate (`v` >= 0).
fn arith(v: i64) -> String {
    if v >= 4096 && v & 0xFFF == 0 {
        format!("#{}, lsl #12", v >> 12)
    } else {
        format!("#{v}")
    }
}

/// `[vB, #8]`, `[vB, vI, lsl #3]`: the address of memory operation `n`,
/// whose index (if any) is input `idx_at`.
fn address(g: &Graph, n: NodeId, m: &Mach, idx_at: usize) -> String {
    let mut s = format!("[{}", v(g.input(n, 2)));
    if let Some(i) = g.input(n, idx_at) {
        s.push_str(&format!(", {}", v(Some(i))));
        if m.scale > 0 {
            s.push_str(&format!(", lsl #{}", m.scale));
        }
    } else if m.imm != 0 {
        s.push_str(&format!(", #{}", m.imm));
    }
    s.push(']');
    s
}

/// Whether memory operation `m` (without an index) needs the unscaled
/// form (`ldur`, `stur`): its displacement is negative or not a multiple
/// of the access size.
fn unscaled(g: &Graph, n: NodeId, m: &Mach, idx_at: usize) -> bool {
    g.input(n, idx_at).is_none() && (m.imm < 0 || m.imm % i64::from(m.mem_size.max(1)) != 0)
}

/// The condition code that reads comparison `c` from flags set by an
/// integer `cmp` (`float` false) or by an `fcmp` (see the module's
/// documentation).
pub fn cc(c: Cond, float: bool) -> &'static str {
    use Cond::*;
    match (c, float) {
        (Eq, _) => "eq",
        (Ne, _) => "ne",
        (Lt, false) => "lt",
        (Le, false) => "le",
        (Gt, _) => "gt",
        (Ge, _) => "ge",
        (ULt, false) => "lo",
        (ULe, false) => "ls",
        (UGt, false) => "hi",
        (UGe, false) => "hs",
        (Lt, true) => "mi",
        (Le, true) => "ls",
        (ULt, true) => "lt",
        (ULe, true) => "le",
        (UGt, true) => "hi",
        (UGe, true) => "pl",
    }
}

/// The flags read by a `cset` or `b.cond` come from an `fcmp`.
fn float_flags(g: &Graph, n: NodeId) -> bool {
    g.input(n, 1)
        .and_then(|f| mach(g, f))
        .is_some_and(|f| f.op == Op::FCmp)
}

/// The instruction of machine node `n` in ARM syntax.
pub fn asm(g: &Graph, n: NodeId, m: &Mach) -> String {
    use Op::*;
    let d = v(Some(n));
    let a = v(g.input(n, 1));
    let b = v(g.input(n, 2));
    let imm = m.imm;
    match m.op {
        Add | Sub | Mul | And | Or | Xor | Shl | Sar | Shr => {
            let mnemonic = match m.op {
                Add => "add",
                Sub => "sub",
                Mul => "mul",
                And => "and",
                Or => "orr",
                Xor => "eor",
                Shl => "lsl",
                Sar => "asr",
                _ => "lsr",
            };
            format!("{mnemonic} {d}, {a}, {b}")
        }
        Div | DivTotal => format!("sdiv {d}, {a}, {b}"),
        AddI if imm >= 0 => format!("add {d}, {a}, {}", arith(imm)),
        AddI => format!("sub {d}, {a}, {}", arith(imm.wrapping_neg())),
        AndI | OrI | XorI => {
            let mnemonic = match m.op {
                AndI => "and",
                OrI => "orr",
                _ => "eor",
            };
            format!("{mnemonic} {d}, {a}, #{:#x}", imm)
        }
        ShlI => format!("lsl {d}, {a}, #{}", imm & 63),
        SarI => format!("asr {d}, {a}, #{}", imm & 63),
        ShrI => format!("lsr {d}, {a}, #{}", imm & 63),
        MulI => format!("mul {d}, {a}, #{imm} ; no such instruction: a register"),
        Neg => format!("neg {d}, {a}"),
        SExt | ZExt if m.op == ZExt && ext_index(m.ty[1]) == 2 => {
            format!("ubfx {d}, {a}, #0, #32")
        }
        SExt | ZExt => format!("{} {d}, {a}", name(m)),
        Trunc | AnyExt => format!("; {d} = {a}"),
        Int => int_asm(&d, imm),
        MovK => format!(
            "movk {d}, #{:#x}, lsl #{} ; {d} = {a}",
            imm & 0xFFFF,
            m.scale
        ),
        Flt => {
            let f = f64::from_bits(imm as u64);
            if fmov_imm(imm as u64) {
                format!("fmov {d}, #{f:?}")
            } else {
                format!("ldr {d}, ={f:?} ; literal pool")
            }
        }
        FunAddr => format!("adr {d}, fn{imm}"),
        Cmp => format!("cmp {a}, {b}"),
        CmpI if imm >= 0 => format!("cmp {a}, {}", arith(imm)),
        CmpI => format!("cmn {a}, {}", arith(imm.wrapping_neg())),
        FCmp => format!("fcmp {a}, {b}"),
        Set(c) => format!("cset {d}, {}", cc(c, float_flags(g, n))),
        CmpSet(c) | FCmpSet(c) => format!("; {d} = {a} {} {b}", c.symbol()),
        CmpSetI(c) => format!("; {d} = {a} {} #{imm}", c.symbol()),
        FAdd => format!("fadd {d}, {a}, {b}"),
        FSub => format!("fsub {d}, {a}, {b}"),
        FMul => format!("fmul {d}, {a}, {b}"),
        FDiv => format!("fdiv {d}, {a}, {b}"),
        FNeg => format!("fneg {d}, {a}"),
        I2F => format!("scvtf {d}, {a}"),
        FTrunc => format!("fcvt {d}, {a} ; double to single"),
        FExt => format!("fcvt {d}, {a} ; single to double"),
        Load => {
            let u = if unscaled(g, n, m, 3) { "ur" } else { "r" };
            let suffix = match (m.ty[0], m.mem_size, m.signed) {
                (LType::F64 | LType::F32, ..) => "",
                (_, 1, true) => "sb",
                (_, 1, false) => "b",
                (_, 2, true) => "sh",
                (_, 2, false) => "h",
                (_, 4, true) => "sw",
                _ => "",
            };
            let width = match (m.ty[0], m.mem_size, m.signed) {
                (LType::F32, ..) => " ; single",
                (_, 4, false) => " ; 32 bits, zero-extended",
                _ => "",
            };
            format!("ld{u}{suffix} {d}, {}{width}", address(g, n, m, 3))
        }
        Store | StoreI => {
            let u = if unscaled(g, n, m, 4) { "ur" } else { "r" };
            let suffix = match (m.ty[0], m.mem_size) {
                (LType::F64 | LType::F32, _) => "",
                (_, 1) => "b",
                (_, 2) => "h",
                _ => "",
            };
            let width = match (m.ty[0], m.mem_size) {
                (LType::F32, _) => " ; single",
                (_, 4) => " ; 32 bits",
                _ => "",
            };
            let value = match m.op {
                StoreI => format!("#{}", m.imm2),
                _ => v(g.input(n, 3)),
            };
            format!("st{u}{suffix} {value}, {}{width}", address(g, n, m, 4))
        }
        Jcc(c) => format!("b.{} {}", cc(c, float_flags(g, n)), targets(g, n)),
        Branch(c) => {
            let other = match g.input(n, 2) {
                Some(x) => v(Some(x)),
                None => format!("#{imm}"),
            };
            format!("; if {a} {} {other} {}", c.symbol(), targets(g, n))
        }
        Call => format!(
            "bl {}",
            m.callee.and_then(|t| g.types.fun_name(t)).unwrap_or("?")
        ),
        CallR => format!("blr {}", v(g.inputs(n).last().copied().flatten())),
        Ret => "ret".into(),
        New => "mov x0, #1; bl calloc".into(),
        Parm | Proj | CallEnd | Fun => String::new(),
        Split => format!(
            "mov v{}, v{}",
            n.nid(),
            g.input(n, 1).map_or(0, |x| x.nid())
        ),
        Lea | Lui | AddMem | FAddMem | CmpMem | MemAdd => format!("; no {:?} on arm", m.op),
    }
}

/// How one instruction makes constant `v` (after legalization every
/// `Int` is one): `movz`, `movn`, or `orr` of a bitmask immediate from
/// the zero register; a constant that takes more is loaded from a literal
/// pool (only before legalization).
fn int_asm(d: &str, v: i64) -> String {
    let u = v as u64;
    let chunk = |x: u64| (0..4).find(|&i| x & !(0xFFFFu64 << (16 * i)) == 0);
    if let Some(i) = chunk(u) {
        let c = (u >> (16 * i)) & 0xFFFF;
        return match i {
            0 => format!("movz {d}, #{c:#x}"),
            _ => format!("movz {d}, #{c:#x}, lsl #{}", 16 * i),
        };
    }
    if let Some(i) = chunk(!u) {
        let c = (!u >> (16 * i)) & 0xFFFF;
        return match i {
            0 => format!("movn {d}, #{c:#x}"),
            _ => format!("movn {d}, #{c:#x}, lsl #{}", 16 * i),
        };
    }
    if is_logical_imm(v) {
        return format!("orr {d}, xzr, #{u:#x}");
    }
    format!("ldr {d}, ={v}")
}

/// Whether the double with bits `bits` is an `fmov` immediate: a sign,
/// 3 bits of exponent and 4 of fraction (±n/16 × 2^r, n in 16..=31, r in
/// -3..=4).
pub fn fmov_imm(bits: u64) -> bool {
    if bits & ((1u64 << 48) - 1) != 0 {
        return false;
    }
    // Exponent bits 62..54: NOT(b) then b repeated eight times.
    let e = (bits >> 54) & 0x1FF;
    e == 0b1_0000_0000 || e == 0b0_1111_1111
}

/// `L12 ; else L13`: where a branch goes when taken, and when not.
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
    names.join(" ; else ")
}

/// The low-level type of the value of node `x`: a machine node's own, an
/// ideal node's from its type.
fn value_type(g: &Graph, x: NodeId) -> LType {
    match mach(g, x) {
        Some(m) => m.ty[0],
        None => crate::mach::select::ltype(&g.types, g.ty(x)),
    }
}

/// The registers input `i` of machine node `n` may come from; `None`
/// for an input that is no register (control, memory).
pub fn in_mask(g: &Graph, n: NodeId, m: &Mach, i: usize) -> Option<RegMask> {
    use Op::*;
    let input_type = |i: usize| g.input(n, i).map_or(LType::S64, |x| value_type(g, x));
    match m.op {
        _ if i == 0 => None,
        Set(_) | Jcc(_) => Some(FLAGS_MASK),
        Load | Store | StoreI if i == 1 => None,
        // The base may be the stack pointer; an index may not.
        Load | Store | StoreI if i == 2 => Some(GPRS),
        Load if i == 3 => Some(WRITABLE),
        Store | StoreI if i == 4 => Some(WRITABLE),
        Store if i == 3 => Some(bank(input_type(3))),
        Load | Store | StoreI => None,
        Ret if i == 2 => Some(ret_mask(input_type(2))),
        // The return address, in the link register.
        Ret if i == 3 => Some(RegMask::of(X30)),
        Ret => None,
        Call | CallR => call_in_mask(g, n, i),
        // calloc(1, size): the size is the second argument.
        New if i == 1 => Some(RegMask::of(X1)),
        New => None,
        Parm => None,
        _ => Some(bank(input_type(i))),
    }
}

/// Input `i` of a call: memory (none), an argument in its register (none
/// past the eighth of its kind: on the stack), the target of an indirect
/// call in any register.
fn call_in_mask(g: &Graph, n: NodeId, i: usize) -> Option<RegMask> {
    let nins = g.n_ins(n);
    let indirect = matches!(crate::mach::op(g, n), Some(Op::CallR));
    let nargs = if indirect { nins - 3 } else { nins - 2 };
    match i {
        1 => None,
        // The target of an indirect call: in no argument register, which
        // the arguments hold at the call.
        _ if indirect && i == nins - 1 => {
            let args = super::arg_masks(&[LType::S64; 8])
                .into_iter()
                .flatten()
                .fold(RegMask::EMPTY, RegMask::or);
            Some(WRITABLE.without(args))
        }
        _ => {
            let kinds: Vec<LType> = (0..nargs)
                .map(|k| g.input(n, 2 + k).map_or(LType::S64, |x| value_type(g, x)))
                .collect();
            arg_masks(&kinds).get(i - 2).copied().flatten()
        }
    }
}

/// The registers machine node `n`'s result may go to; `None` for a node
/// with no register result (a store, a branch, a return, a call, whose
/// result comes through its projections).
pub fn out_mask(g: &Graph, n: NodeId, m: &Mach) -> Option<RegMask> {
    use Op::*;
    match m.op {
        Store | StoreI | Ret | Jcc(_) | Branch(_) | Fun | Proj | CallEnd | Call | CallR => None,
        Cmp | CmpI | FCmp => Some(FLAGS_MASK),
        New => Some(RegMask::of(X0)),
        Parm => parm_mask(g, n, m),
        FAdd | FSub | FMul | FDiv | FNeg | I2F | FTrunc | FExt | Flt => Some(FPRS),
        Load if m.ty[0].is_float() => Some(FPRS),
        _ => Some(WRITABLE),
    }
}

/// Where parameter `n` arrives: the return address in the link register,
/// memory in none, an argument in its register (none on the stack).
fn parm_mask(g: &Graph, n: NodeId, m: &Mach) -> Option<RegMask> {
    let NodeKind::Phi {
        parm: Some(idx), ..
    } = m.role
    else {
        return None;
    };
    match idx {
        0 => Some(RegMask::of(X30)),
        1 => None,
        _ => {
            let fun = g.input(n, 0)?;
            let NodeKind::Fun { sig, .. } = *g.role(fun) else {
                return None;
            };
            let (args, _, _) = g.types.fun_parts(sig)?;
            let kinds: Vec<LType> = g
                .types
                .tuple_elems(args)
                .iter()
                .map(|&t| crate::mach::select::ltype(&g.types, t))
                .collect();
            arg_masks(&kinds).get(idx as usize - 2).copied().flatten()
        }
    }
}

/// The registers a call (or a New, which calls `calloc`) leaves changed.
pub fn kill_mask(m: &Mach) -> Option<RegMask> {
    match m.op {
        Op::Call | Op::CallR | Op::New => Some(caller_saved()),
        _ => None,
    }
}

/// Two-address operations: the input whose register the result takes.
/// Only `movk`, which keeps the bits it does not write.
pub fn two_address(m: &Mach) -> Option<usize> {
    match m.op {
        Op::MovK => Some(1),
        _ => None,
    }
}

/// Register `r`'s name.
pub fn reg_name(r: u8) -> &'static str {
    super::REGS.get(r as usize).copied().unwrap_or("stack")
}

/// Whether the immediates and displacement of legal machine node `n` fit
/// the bits of its instruction (selection and the rewrites guarantee it;
/// the rules cannot see immediates). `Err` names what does not.
pub fn check_encodable(g: &Graph, n: NodeId, m: &Mach) -> Result<(), String> {
    use Op::*;
    let ok = match m.op {
        AddI | CmpI => add_imm(m.imm),
        AndI | OrI | XorI => is_logical_imm(m.imm),
        ShlI | SarI | ShrI => (0..64).contains(&m.imm),
        Int => single_move(m.imm),
        MovK => (0..=0xFFFF).contains(&m.imm) && matches!(m.scale, 0 | 16 | 32 | 48),
        Load | Store => {
            let idx_at = if m.op == Load { 3 } else { 4 };
            match g.input(n, idx_at) {
                Some(_) => m.imm == 0 && (m.scale == 0 || 1u32 << m.scale == u32::from(m.mem_size)),
                None => disp_ok(m.imm, m.mem_size),
            }
        }
        MulI | StoreI | CmpSet(_) | CmpSetI(_) | FCmpSet(_) | Branch(_) => false,
        Lea | Lui | AddMem | FAddMem | CmpMem | MemAdd => false,
        _ => true,
    };
    if ok {
        Ok(())
    } else {
        Err(format!(
            "node {} ({}) cannot be encoded: {}",
            n.nid(),
            name(m),
            asm(g, n, m)
        ))
    }
}
