//! Instruction selection for RISC-V: what each ideal node becomes.
//!
//! RISC-V is a load-store RISC with three-register instructions, and few
//! forms of each:
//!
//! - an immediate operand is 12 bits, sign-extended (`addi`, `andi`,
//!   `ori`, `xori`, `slti`, `sltiu`); a constant that fits is folded in, a
//!   subtraction of one is an add of its negation, and a shift takes its
//!   count modulo 64 (`slli`, `srai`, `srli`). There is no multiply by an
//!   immediate: `x*C` takes `C` in a register;
//! - a load or store addresses a register plus a 12-bit displacement, and
//!   nothing else: an array element's address is computed (`(i<<3)`, then
//!   `base + that`) and its constant part folded as the displacement;
//! - there are no flags: a comparison writes 0 or 1 to a register (the
//!   generic `CmpSet`, which the legalizer maps onto `slt` and `sltu`), and
//!   a branch compares two registers itself (`Branch`: `beq`, `blt`...), a
//!   constant 0 being the register `zero`;
//! - an operation that reads the constant 0 reads `zero` instead: a
//!   missing input stands for it (a store of 0 stores `zero`).
//!
//! The frontend's narrowing shapes are recognized as extensions:
//! `(x<<32)>>32` is a sign-extension from 32 bits (`sext.w`, one
//! instruction), `x & 0xFFFF` a zero-extension from 16; the legalizer says
//! which of those RISC-V runs as they stand.

use crate::cpu::x86_64::select::{call, division, new, widened};
use crate::error::Error;
use crate::graph::{Graph, NodeId};
use crate::mach::select::{
    access, base_of, ideal_ins, int_con, int_width, ltype, In, Made, Pattern,
};
use crate::mach::{Cond, LType, Mach, Op, Target};
use crate::node::{BoolOp, NodeKind};
use crate::types::{TypeId, Types};

/// A 12-bit signed immediate: what every RISC-V immediate operand and
/// displacement is.
pub fn imm12(v: i64) -> bool {
    (-2048..=2047).contains(&v)
}

/// The machine nodes for ideal node `n`.
pub fn select(g: &Graph, n: NodeId, _target: Target) -> Result<Pattern, Error> {
    let ty = g.ty(n);
    let lt = ltype(&g.types, ty);
    let role = g.kind(n).clone();
    let bin = |op: Op| Pattern::one(Mach::new(role.clone(), op, lt), ideal_ins(g, n), ty);
    Ok(match g.kind(n) {
        NodeKind::Constant(t) => constant(g, n, *t),
        NodeKind::Add => commutative(g, n, Op::AddI, Op::Add),
        // `x - C` is `x + (-C)`, when both fit.
        NodeKind::Sub => match int_con(g, g.in_(n, 2)).filter(|&c| imm12(c) && imm12(-c)) {
            Some(c) => with_imm(g, n, Op::AddI, -c),
            None => bin(Op::Sub),
        },
        NodeKind::Mul => bin(Op::Mul),
        NodeKind::Div => bin(division(g, n)),
        NodeKind::Minus => bin(Op::Neg),
        NodeKind::And => and(g, n),
        NodeKind::Or => commutative(g, n, Op::OrI, Op::Or),
        NodeKind::Xor => commutative(g, n, Op::XorI, Op::Xor),
        NodeKind::Shl => shift(g, n, Op::ShlI, Op::Shl),
        NodeKind::Sar => {
            extension(g, n, Op::SExt).unwrap_or_else(|| shift(g, n, Op::SarI, Op::Sar))
        }
        NodeKind::Shr => {
            extension(g, n, Op::ZExt).unwrap_or_else(|| shift(g, n, Op::ShrI, Op::Shr))
        }
        NodeKind::Not => not(g, n),
        NodeKind::Bool(op) => compare(g, n, g.in_(n, 1), g.in_(n, 2), cond_of(*op)),
        NodeKind::BoolF(op) => {
            let m = Mach::new(role, Op::FCmpSet(cond_of(*op)), LType::S1).with_src(LType::F64);
            Pattern::one(m, ideal_ins(g, n), ty)
        }
        NodeKind::AddF => bin(Op::FAdd),
        NodeKind::SubF => bin(Op::FSub),
        NodeKind::MulF => bin(Op::FMul),
        NodeKind::DivF => bin(Op::FDiv),
        NodeKind::MinusF => bin(Op::FNeg),
        NodeKind::ToFloat => Pattern::one(
            Mach::new(role, Op::I2F, LType::F64).with_src(LType::S64),
            ideal_ins(g, n),
            ty,
        ),
        NodeKind::RoundF32 => crate::cpu::x86_64::select::round_f32(g, n),
        NodeKind::If => branch(g, n),
        NodeKind::Return => bin(Op::Ret),
        NodeKind::Phi { parm: Some(_), .. } => bin(Op::Parm),
        NodeKind::Proj { .. } => projection(g, n),
        NodeKind::CallEnd { .. } | NodeKind::Fun { .. } => copy(g, n),
        NodeKind::Call { .. } => call(g, n),
        NodeKind::New { .. } => new(g, n),
        NodeKind::Load { .. } => load(g, n),
        NodeKind::Store { .. } => store(g, n),
        other => {
            return Err(Error::new(
                format!("riscv has no instruction for {other:?}"),
                0,
            ))
        }
    })
}

/// The ideal node copied as it is.
fn copy(g: &Graph, n: NodeId) -> Pattern {
    Pattern::Nodes(vec![Made {
        kind: g.kind(n).clone(),
        ins: ideal_ins(g, n),
        ty: g.ty(n),
    }])
}

/// The ideal comparison operator as a condition.
pub fn cond_of(op: BoolOp) -> Cond {
    match op {
        BoolOp::Eq => Cond::Eq,
        BoolOp::Lt => Cond::Lt,
        BoolOp::Le => Cond::Le,
    }
}

/// `n` is a constant the register `zero` holds: an integer 0 or null.
fn is_zero(g: &Graph, n: NodeId) -> bool {
    int_con(g, n) == Some(0) || matches!(g.kind(n), NodeKind::Constant(Types::NULL))
}

/// Integer, pointer, float and function constants. An integer constant
/// records the narrowest type that holds it: the legalizer's rules decide
/// by that whether one `addi` makes it.
fn constant(g: &Graph, n: NodeId, t: TypeId) -> Pattern {
    let role = g.kind(n).clone();
    let start = vec![In::Ideal(g.in_(n, 0))];
    let m = if let Some(v) = g.types.int_value(t) {
        Mach::new(role, Op::Int, int_width(v)).with_imm(v)
    } else if let Some(f) = g.types.flt_value(t) {
        Mach::new(role, Op::Flt, LType::F64).with_imm(f.to_bits() as i64)
    } else if let Some((_, fidx)) = g.types.single_fidx(t) {
        Mach::new(role, Op::FunAddr, LType::Ptr).with_imm(i64::from(fidx))
    } else {
        // null, the only pointer constant that is a value.
        Mach::new(role, Op::Int, LType::Ptr)
    };
    Pattern::one(m, start, t)
}

/// `n` with its second input replaced by immediate `imm`.
fn with_imm(g: &Graph, n: NodeId, op: Op, imm: i64) -> Pattern {
    imm_on(g, n, g.in_(n, 1), op, imm)
}

/// Operation `op` of `n` on `x` and immediate `imm`.
fn imm_on(g: &Graph, n: NodeId, x: NodeId, op: Op, imm: i64) -> Pattern {
    let ty = g.ty(n);
    let m = Mach::new(g.kind(n).clone(), op, ltype(&g.types, ty)).with_imm(imm);
    Pattern::one(m, vec![In::None, In::Ideal(x)], ty)
}

/// A commutative operation: the immediate form when either side is a
/// constant of 12 bits.
fn commutative(g: &Graph, n: NodeId, imm_op: Op, reg_op: Op) -> Pattern {
    let (lhs, rhs) = (g.in_(n, 1), g.in_(n, 2));
    if let Some(c) = int_con(g, rhs).filter(|&c| imm12(c)) {
        return imm_on(g, n, lhs, imm_op, c);
    }
    if let Some(c) = int_con(g, lhs).filter(|&c| imm12(c)) {
        return imm_on(g, n, rhs, imm_op, c);
    }
    let ty = g.ty(n);
    Pattern::one(
        Mach::new(g.kind(n).clone(), reg_op, ltype(&g.types, ty)),
        ideal_ins(g, n),
        ty,
    )
}

/// `x & C`: a mask of the low 8, 16 or 32 bits is a zero-extension (which
/// the rules make `andi` or a shift pair); else `andi` when `C` fits.
fn and(g: &Graph, n: NodeId) -> Pattern {
    let from = match int_con(g, g.in_(n, 2)) {
        Some(0xFF) => Some(LType::S8),
        Some(0xFFFF) => Some(LType::S16),
        Some(0xFFFF_FFFF) => Some(LType::S32),
        _ => None,
    };
    match from {
        Some(src) => extend(g, n, g.in_(n, 1), Op::ZExt, src),
        None => commutative(g, n, Op::AndI, Op::And),
    }
}

/// An extension of `x` from `src` to 64 bits, standing for `n`.
fn extend(g: &Graph, n: NodeId, x: NodeId, op: Op, src: LType) -> Pattern {
    let m = Mach::new(g.kind(n).clone(), op, LType::S64).with_src(src);
    Pattern::one(m, vec![In::None, In::Ideal(x)], g.ty(n))
}

/// `(x<<k)>>k` (arithmetic: `SExt`, logical: `ZExt`) for `k` of 32, 48 or
/// 56: an extension from 64-`k` bits.
fn extension(g: &Graph, n: NodeId, op: Op) -> Option<Pattern> {
    let (shl, k) = (g.in_(n, 1), int_con(g, g.in_(n, 2))?);
    if !matches!(g.kind(shl), NodeKind::Shl) || int_con(g, g.in_(shl, 2)) != Some(k) {
        return None;
    }
    let src = match k {
        32 => LType::S32,
        48 => LType::S16,
        56 => LType::S8,
        _ => return None,
    };
    Some(extend(g, n, g.in_(shl, 1), op, src))
}

/// A shift by a constant takes the count modulo 64, as the language (and
/// the register forms, which read 6 bits of the count) does.
fn shift(g: &Graph, n: NodeId, imm_op: Op, reg_op: Op) -> Pattern {
    match int_con(g, g.in_(n, 2)) {
        Some(c) => with_imm(g, n, imm_op, c & 63),
        None => {
            let ty = g.ty(n);
            Pattern::one(
                Mach::new(g.kind(n).clone(), reg_op, ltype(&g.types, ty)),
                ideal_ins(g, n),
                ty,
            )
        }
    }
}

/// `!x`: the opposite comparison when `x` is an integer comparison (`!=`
/// is `!(a==b)`); `x == 0.0` for a float (false for NaN, which is true);
/// else `x == 0`.
fn not(g: &Graph, n: NodeId) -> Pattern {
    let x = g.in_(n, 1);
    let ty = g.ty(n);
    if let NodeKind::Bool(op) = g.kind(x) {
        return compare(g, n, g.in_(x, 1), g.in_(x, 2), cond_of(*op).negate());
    }
    let src = ltype(&g.types, g.ty(x));
    if src.is_float() {
        let zero = Mach::new(NodeKind::Constant(Types::FLT_ZERO), Op::Flt, LType::F64);
        let eq = Mach::new(g.kind(n).clone(), Op::FCmpSet(Cond::Eq), LType::S1).with_src(src);
        return Pattern::Nodes(vec![
            Made {
                kind: NodeKind::Mach(Box::new(zero)),
                ins: vec![In::Ideal(g.start())],
                ty: Types::FLT_ZERO,
            },
            Made {
                kind: NodeKind::Mach(Box::new(eq)),
                ins: vec![In::None, In::Ideal(x), In::Made(0)],
                ty,
            },
        ]);
    }
    let m = Mach::new(g.kind(n).clone(), Op::CmpSetI(Cond::Eq), LType::S1).with_src(src);
    Pattern::one(m, vec![In::None, In::Ideal(x)], ty)
}

/// The integer comparison `a cond b` as 0 or 1, standing for `n`: a
/// constant of 12 bits goes right as an immediate (the condition swapped
/// when it was left). The legalizer maps every condition onto the two
/// RISC-V has, `<` and unsigned `<`.
fn compare(g: &Graph, n: NodeId, a: NodeId, b: NodeId, cond: Cond) -> Pattern {
    let ty = g.ty(n);
    let src = ltype(&g.types, g.ty(a));
    let role = g.kind(n).clone();
    let value = |x: NodeId| int_con(g, x).or_else(|| is_zero(g, x).then_some(0));
    if let Some(c) = value(b).filter(|&c| imm12(c)) {
        let m = Mach::new(role, Op::CmpSetI(cond), LType::S1)
            .with_src(src)
            .with_imm(c);
        return Pattern::one(m, vec![In::None, In::Ideal(a)], ty);
    }
    if let Some(c) = value(a).filter(|&c| imm12(c)) {
        let src = ltype(&g.types, g.ty(b));
        let m = Mach::new(role, Op::CmpSetI(cond.swap()), LType::S1)
            .with_src(src)
            .with_imm(c);
        return Pattern::one(m, vec![In::None, In::Ideal(b)], ty);
    }
    let m = Mach::new(role, Op::CmpSet(cond), LType::S1).with_src(src);
    Pattern::one(m, vec![In::None, In::Ideal(a), In::Ideal(b)], ty)
}

/// A branch compares two registers and branches on the outcome: on an
/// integer comparison, its operands (a constant 0 is the register
/// `zero`: the input is left empty); on a float comparison, its operands
/// (the legalizer computes the comparison first: RISC-V has no float
/// branch); on any other value, whether it is not 0.
fn branch(g: &Graph, n: NodeId) -> Pattern {
    let role = g.kind(n).clone();
    let ty = g.ty(n);
    let ctrl = In::Ideal(g.in_(n, 0));
    let pred = g.in_(n, 1);
    let m = |cond: Cond, src: LType| {
        Mach::new(role.clone(), Op::Branch(cond), LType::S64).with_src(src)
    };
    match g.kind(pred) {
        NodeKind::Bool(op) => {
            let (a, b) = (g.in_(pred, 1), g.in_(pred, 2));
            let cond = cond_of(*op);
            let src = ltype(&g.types, g.ty(a));
            if is_zero(g, b) {
                Pattern::one(m(cond, src), vec![ctrl, In::Ideal(a), In::None], ty)
            } else if is_zero(g, a) {
                let src = ltype(&g.types, g.ty(b));
                Pattern::one(m(cond.swap(), src), vec![ctrl, In::Ideal(b), In::None], ty)
            } else {
                Pattern::one(m(cond, src), vec![ctrl, In::Ideal(a), In::Ideal(b)], ty)
            }
        }
        NodeKind::BoolF(op) => Pattern::one(
            m(cond_of(*op), LType::F64),
            vec![ctrl, In::Ideal(g.in_(pred, 1)), In::Ideal(g.in_(pred, 2))],
            ty,
        ),
        _ => {
            let src = ltype(&g.types, g.ty(pred));
            Pattern::one(m(Cond::Ne, src), vec![ctrl, In::Ideal(pred), In::None], ty)
        }
    }
}

/// A projection (of a New, of a call's end, of a function's Start): a
/// copy. (Chapter 16's New had the fields' initial values as inputs and
/// its memory projections stored them; chapter 19's parser stores them.)
fn projection(g: &Graph, n: NodeId) -> Pattern {
    copy(g, n)
}

/// The RISC-V address of memory operation `n`: a register and a 12-bit
/// displacement (set in `m.imm`). The register is the base pointer when
/// the offset is a constant that fits; else a new `add` of the base and
/// the offset, whose constant part (an array's header) is the
/// displacement when it fits. Returns the nodes to make first (the
/// `add`, if any), the control (the access's own, or the guard of a cast
/// its pointer was seen through), and the address register.
fn address(g: &Graph, n: NodeId, m: &mut Mach) -> (Vec<Made>, In, In) {
    let off_at = if matches!(g.kind(n), NodeKind::Load { .. }) {
        3
    } else {
        4
    };
    let (base, guard) = base_of(g, g.in_(n, 2));
    let ctrl = g.input(n, 0).or(guard).map_or(In::None, In::Ideal);
    m.imm = 0;
    let Some(off) = g.input(n, off_at) else {
        return (Vec::new(), ctrl, In::Ideal(base));
    };
    if let Some(c) = int_con(g, off).filter(|&c| imm12(c)) {
        m.imm = c;
        return (Vec::new(), ctrl, In::Ideal(base));
    }
    let mut index = off;
    if matches!(g.kind(off), NodeKind::Add) {
        if let Some(c) = int_con(g, g.in_(off, 2)).filter(|&c| imm12(c)) {
            index = g.in_(off, 1);
            m.imm = c;
        }
    }
    let add = Mach::new(NodeKind::Add, Op::Add, LType::Ptr);
    let made = Made {
        kind: NodeKind::Mach(Box::new(add)),
        ins: vec![In::None, In::Ideal(base), In::Ideal(index)],
        ty: g.ty(base),
    };
    (vec![made], ctrl, In::Made(0))
}

/// A load (`lb`, `lbu`, `lh`, `lhu`, `lw`, `lwu`, `ld`, `flw`, `fld`); a
/// 32-bit float is widened to the double its users see.
fn load(g: &Graph, n: NodeId) -> Pattern {
    let (size, signed, lt, off_ty) = access(g, n);
    let mut m = Mach::new(g.kind(n).clone(), Op::Load, lt);
    m.mem_size = size;
    m.signed = signed;
    m.off_ty = off_ty;
    let (mut nodes, ctrl, addr) = address(g, n, &mut m);
    let ins = vec![ctrl, In::Ideal(g.in_(n, 1)), addr, In::None];
    if nodes.is_empty() {
        return widened(g, n, m, ins);
    }
    // The address's `add` first, then the load (and its widening).
    let f32 = m.ty[0] == LType::F32;
    nodes.push(Made {
        kind: NodeKind::Mach(Box::new(m)),
        ins,
        ty: if f32 { Types::BOTTOM } else { g.ty(n) },
    });
    if f32 {
        let up = Mach::new(NodeKind::RoundF32, Op::FExt, LType::F64).with_src(LType::F32);
        nodes.push(Made {
            kind: NodeKind::Mach(Box::new(up)),
            ins: vec![In::None, In::Made(nodes.len() - 1)],
            ty: g.ty(n),
        });
    }
    Pattern::Nodes(nodes)
}

/// A store of a register (`sb`, `sh`, `sw`, `sd`, `fsw`, `fsd`), or of
/// `zero` for a constant 0, null or 0.0; a double into a 32-bit float
/// field is rounded first.
fn store(g: &Graph, n: NodeId) -> Pattern {
    let (size, _, lt, off_ty) = access(g, n);
    let value = g.in_(n, 3);
    let mut m = Mach::new(g.kind(n).clone(), Op::Store, lt);
    m.mem_size = size;
    m.off_ty = off_ty;
    let (mut nodes, ctrl, addr) = address(g, n, &mut m);
    let zero = is_zero(g, value)
        || g.types
            .flt_value(g.ty(value))
            .is_some_and(|f| f.to_bits() == 0);
    let val = if zero {
        In::None
    } else if lt == LType::F32 {
        // A rounding (a Store's role would make it write memory).
        let down = Mach::new(NodeKind::RoundF32, Op::FTrunc, LType::F32).with_src(LType::F64);
        nodes.push(Made {
            kind: NodeKind::Mach(Box::new(down)),
            ins: vec![In::None, In::Ideal(value)],
            ty: Types::BOTTOM,
        });
        In::Made(nodes.len() - 1)
    } else {
        In::Ideal(value)
    };
    nodes.push(Made {
        kind: NodeKind::Mach(Box::new(m)),
        ins: vec![ctrl, In::Ideal(g.in_(n, 1)), addr, val, In::None],
        ty: g.ty(n),
    });
    Pattern::Nodes(nodes)
}
