//! Instruction selection for x86-64: what each ideal node becomes.
//!
//! x86 is a two-address CISC: most instructions take a register and a
//! register, an immediate (up to 32 bits, sign-extended) or a memory
//! operand `[base + index*scale + disp]`. Selection folds what fits:
//!
//! - an add of a constant is `addi` (`inc`, `dec` for ±1); an add whose
//!   other side is a shift by 0 to 3, or an add of an add and a constant,
//!   is a `lea`, x86's three-operand address arithmetic (Simple's `_lea`);
//! - a subtraction of a constant is an add of its negation;
//! - `&`, `|`, `^`, `*` and the shifts of a constant take it as an
//!   immediate (a shift's count modulo 64, as the language has it);
//! - a load or store addresses `[base + idx<<scale + disp]`, folding the
//!   shift and the constant of an array element's offset;
//! - an add or a comparison whose left side is a load used nowhere else
//!   reads its operand from memory (`AddMem`, `CmpMem`): the load
//!   disappears into it.
//!
//! Everything else maps one to one onto the shared vocabulary, and the
//! legalizer (`legal.rs`) rewrites what x86 cannot run as it stands: the
//! generic comparisons into `cmp` and `setcc`, a branch into `cmp` and
//! `jcc`, the language's division around `idiv`'s traps.

use crate::error::Error;
use crate::graph::{Graph, NodeId};
use crate::mach::select::{
    access, base_of, ideal_ins, int_con, int_width, ltype, split_offset, In, Made, Pattern,
};
use crate::mach::{Cond, LType, Mach, Op, Target};
use crate::node::{BoolOp, NodeKind};
use crate::types::{TypeId, Types};

/// The machine nodes for ideal node `n`.
pub fn select(g: &Graph, n: NodeId, _target: Target) -> Result<Pattern, Error> {
    let ty = g.ty(n);
    let lt = ltype(&g.types, ty);
    let role = g.kind(n).clone();
    let one = |op: Op, ins: Vec<In>| Pattern::one(Mach::new(role.clone(), op, lt), ins, ty);
    let bin = |op: Op| one(op, ideal_ins(g, n));
    let imm32 = |i: usize| int_con(g, g.in_(n, i)).filter(|&c| i32::try_from(c).is_ok());
    Ok(match g.kind(n) {
        NodeKind::Constant(t) => constant(g, n, *t),
        NodeKind::Add => add(g, n),
        NodeKind::Sub => match imm32(2).filter(|&c| c != i32::MIN.into()) {
            Some(c) => with_imm(g, n, Op::AddI, -c),
            None => bin(Op::Sub),
        },
        NodeKind::Mul => match imm32(2) {
            Some(c) => with_imm(g, n, Op::MulI, c),
            None => bin(Op::Mul),
        },
        NodeKind::Div => bin(division(g, n)),
        NodeKind::Minus => bin(Op::Neg),
        NodeKind::And => imm_or(g, n, Op::AndI, Op::And),
        NodeKind::Or => imm_or(g, n, Op::OrI, Op::Or),
        NodeKind::Xor => imm_or(g, n, Op::XorI, Op::Xor),
        NodeKind::Shl => shift(g, n, Op::ShlI, Op::Shl),
        NodeKind::Sar => shift(g, n, Op::SarI, Op::Sar),
        NodeKind::Shr => shift(g, n, Op::ShrI, Op::Shr),
        // `!x` is `x == 0`.
        NodeKind::Not => {
            let src = ltype(&g.types, g.ty(g.in_(n, 1)));
            let m = Mach::new(role, Op::CmpSetI(Cond::Eq), LType::S1).with_src(src);
            Pattern::one(m, vec![In::None, In::Ideal(g.in_(n, 1))], ty)
        }
        NodeKind::Bool(op) => compare(g, n, *op),
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
        NodeKind::RoundF32 => round_f32(g, n),
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
                format!("x86_64_v2 has no instruction for {other:?}"),
                0,
            ))
        }
    })
}

/// The ideal node copied as it is.
pub fn copy(g: &Graph, n: NodeId) -> Pattern {
    Pattern::Nodes(vec![Made {
        kind: g.kind(n).clone(),
        ins: ideal_ins(g, n),
        ty: g.ty(n),
    }])
}

/// Integer, pointer, float and function constants.
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
        // null, and any other pointer constant (only null is a value).
        Mach::new(role, Op::Int, LType::Ptr)
    };
    Pattern::one(m, start, t)
}

/// `n` with its second input replaced by immediate `imm`.
fn with_imm(g: &Graph, n: NodeId, op: Op, imm: i64) -> Pattern {
    let ty = g.ty(n);
    let m = Mach::new(g.kind(n).clone(), op, ltype(&g.types, ty)).with_imm(imm);
    Pattern::one(m, vec![In::None, In::Ideal(g.in_(n, 1))], ty)
}

/// The immediate form when the right side is a constant that fits.
fn imm_or(g: &Graph, n: NodeId, imm_op: Op, reg_op: Op) -> Pattern {
    match int_con(g, g.in_(n, 2)).filter(|&c| i32::try_from(c).is_ok()) {
        Some(c) => with_imm(g, n, imm_op, c),
        None => Pattern::one(
            Mach::new(g.kind(n).clone(), reg_op, ltype(&g.types, g.ty(n))),
            ideal_ins(g, n),
            g.ty(n),
        ),
    }
}

/// A shift by a constant takes the count modulo 64.
fn shift(g: &Graph, n: NodeId, imm_op: Op, reg_op: Op) -> Pattern {
    match int_con(g, g.in_(n, 2)) {
        Some(c) => with_imm(g, n, imm_op, c & 63),
        None => imm_or(g, n, imm_op, reg_op),
    }
}

/// Simple's x86 add: a load used only here is read from memory; an add
/// of a constant is `addi`, or a `lea` when the other side is itself an
/// add or a shift; an add of a shifted value is a `lea`.
fn add(g: &Graph, n: NodeId) -> Pattern {
    let (lhs, rhs) = (g.in_(n, 1), g.in_(n, 2));
    if let Some(p) = mem_operand(g, n, lhs, Some(rhs), Op::AddMem) {
        return p;
    }
    if let Some(c) = int_con(g, rhs).filter(|&c| i32::try_from(c).is_ok()) {
        return match g.kind(lhs) {
            NodeKind::Add => lea(g, n, Some(g.in_(lhs, 1)), g.in_(lhs, 2), c),
            NodeKind::Shl => lea(g, n, None, lhs, c),
            _ => with_imm(g, n, Op::AddI, c),
        };
    }
    lea(g, n, Some(lhs), rhs, 0)
}

/// `base + (idx << scale) + disp`, a `lea` unless it is a plain add.
fn lea(g: &Graph, n: NodeId, base: Option<NodeId>, idx: NodeId, disp: i64) -> Pattern {
    let (mut idx, mut scale) = (idx, 0u8);
    if matches!(g.kind(idx), NodeKind::Shl) {
        if let Some(k @ 0..=3) = int_con(g, g.in_(idx, 2)) {
            scale = k as u8;
            idx = g.in_(idx, 1);
        }
    }
    let ty = g.ty(n);
    let role = g.kind(n).clone();
    let lt = ltype(&g.types, ty);
    match base {
        Some(b) if disp == 0 && scale == 0 => Pattern::one(
            Mach::new(role, Op::Add, lt),
            vec![In::None, In::Ideal(b), In::Ideal(idx)],
            ty,
        ),
        _ => {
            let mut m = Mach::new(role, Op::Lea, lt).with_imm(disp);
            m.scale = scale;
            let b = base.map_or(In::None, In::Ideal);
            Pattern::one(m, vec![In::None, b, In::Ideal(idx)], ty)
        }
    }
}

/// The language's division, or a plain `idiv` when the divisor's type
/// rules out both 0 and -1 (a constant 3, a length that is positive) and
/// holds everywhere. A type that holds only under a test (`if (x) a / x`,
/// where a cast makes `x` nonzero) does not count: the cast generates no
/// code, so the division may float above the test, where a plain `idiv`
/// by 0 would trap (fuzz seed 50656).
pub fn division(g: &Graph, n: NodeId) -> Op {
    let divisor = g.in_(n, 2);
    match g.types.int_bounds(g.ty(divisor)) {
        Some(r)
            if (r.min > 0 || r.max < -1 || (r.min == r.max && r.min != 0 && r.min != -1))
                && !under_a_cast(g, divisor) =>
        {
            Op::Div
        }
        _ => Op::DivTotal,
    }
}

/// `n` is computed from a cast (looking at a few nodes; more count as
/// yes): its type may hold only where the cast's test passed.
fn under_a_cast(g: &Graph, n: NodeId) -> bool {
    let mut work = vec![n];
    let mut looked = 0;
    while let Some(x) = work.pop() {
        looked += 1;
        match g.kind(x) {
            NodeKind::Cast { .. } => return true,
            _ if looked > 16 => return true,
            // A constant, a parameter, a phi: a type of its own.
            NodeKind::Constant(_) | NodeKind::Phi { .. } | NodeKind::Start { .. } => {}
            _ => work.extend(g.inputs(x).iter().skip(1).flatten()),
        }
    }
    false
}

pub fn cond_of(op: BoolOp) -> Cond {
    match op {
        BoolOp::Eq => Cond::Eq,
        BoolOp::Lt => Cond::Lt,
        BoolOp::Le => Cond::Le,
    }
}

/// An integer comparison as 0 or 1: a load used only here is read from
/// memory (`cmp [mem], x` and the flags made 0 or 1); otherwise the
/// generic comparison, which the legalizer turns into `cmp` and `setcc`.
/// A constant goes right, the operator swapped.
fn compare(g: &Graph, n: NodeId, op: BoolOp) -> Pattern {
    let ty = g.ty(n);
    let (flags, cond) = compare_flags(g, n, op);
    if let Some(mut nodes) = flags {
        let set = Mach::new(g.kind(n).clone(), Op::Set(cond), LType::S1);
        nodes.push(Made {
            kind: NodeKind::Mach(Box::new(set)),
            ins: vec![In::None, In::Made(nodes.len() - 1)],
            ty,
        });
        return Pattern::Nodes(nodes);
    }
    let (lhs, rhs) = (g.in_(n, 1), g.in_(n, 2));
    let src = ltype(&g.types, g.ty(lhs));
    let role = g.kind(n).clone();
    if let Some(c) = int_con(g, rhs).filter(|&c| i32::try_from(c).is_ok()) {
        let m = Mach::new(role, Op::CmpSetI(cond), LType::S1)
            .with_src(src)
            .with_imm(c);
        return Pattern::one(m, vec![In::None, In::Ideal(lhs)], ty);
    }
    if let Some(c) = int_con(g, lhs).filter(|&c| i32::try_from(c).is_ok()) {
        let m = Mach::new(role, Op::CmpSetI(cond.swap()), LType::S1)
            .with_src(src)
            .with_imm(c);
        return Pattern::one(m, vec![In::None, In::Ideal(rhs)], ty);
    }
    let m = Mach::new(role, Op::CmpSet(cond), LType::S1).with_src(src);
    Pattern::one(m, ideal_ins(g, n), ty)
}

/// A comparison `n` (`op`) that reads a load used only by it: the
/// `CmpMem` node (as the last of a list, to build on) and the condition
/// the flags answer (swapped when the load is on the right).
fn compare_flags(g: &Graph, n: NodeId, op: BoolOp) -> (Option<Vec<Made>>, Cond) {
    let cond = cond_of(op);
    let (lhs, rhs) = (g.in_(n, 1), g.in_(n, 2));
    let folded = |ld: NodeId, other: NodeId| {
        let Pattern::Nodes(nodes) = mem_operand(g, n, ld, Some(other), Op::CmpMem)? else {
            return None;
        };
        Some(nodes)
    };
    if let Some(nodes) = folded(lhs, rhs) {
        return (Some(nodes), cond);
    }
    if let Some(nodes) = folded(rhs, lhs) {
        return (Some(nodes), cond.swap());
    }
    (None, cond)
}

/// A branch on a comparison compares and branches on it (x86 will test
/// the flags); on any other value, branches when it is not 0.
fn branch(g: &Graph, n: NodeId) -> Pattern {
    let role = g.kind(n).clone();
    let ty = g.ty(n);
    let (ctrl, pred) = (g.in_(n, 0), g.in_(n, 1));
    // (No memory operand here: the compare a branch reads goes last in
    // its block, and a load must not be moved past the stores after it.)
    if let NodeKind::Bool(op) = g.kind(pred) {
        return compare_branch(g, n, g.in_(pred, 1), g.in_(pred, 2), cond_of(*op));
    }
    if let NodeKind::BoolF(op) = g.kind(pred) {
        let mut m = Mach::new(role, Op::Branch(cond_of(*op)), LType::S64);
        m.ty[1] = LType::F64;
        return Pattern::one(
            m,
            vec![
                In::Ideal(ctrl),
                In::Ideal(g.in_(pred, 1)),
                In::Ideal(g.in_(pred, 2)),
            ],
            ty,
        );
    }
    let src = ltype(&g.types, g.ty(pred));
    let m = Mach::new(role, Op::Branch(Cond::Ne), LType::S64).with_src(src);
    Pattern::one(m, vec![In::Ideal(ctrl), In::Ideal(pred), In::None], ty)
}

/// `if (a cond b)`: compare and branch, a constant on the right as an
/// immediate (the empty third input).
pub fn compare_branch(g: &Graph, n: NodeId, a: NodeId, b: NodeId, cond: Cond) -> Pattern {
    let role = g.kind(n).clone();
    let ty = g.ty(n);
    let ctrl = In::Ideal(g.in_(n, 0));
    let src = ltype(&g.types, g.ty(a));
    let m = |c: Cond, imm: i64| {
        Mach::new(role.clone(), Op::Branch(c), LType::S64)
            .with_src(src)
            .with_imm(imm)
    };
    if let Some(c) = int_con(g, b).filter(|&c| i32::try_from(c).is_ok()) {
        return Pattern::one(m(cond, c), vec![ctrl, In::Ideal(a), In::None], ty);
    }
    if let Some(c) = int_con(g, a).filter(|&c| i32::try_from(c).is_ok()) {
        return Pattern::one(m(cond.swap(), c), vec![ctrl, In::Ideal(b), In::None], ty);
    }
    Pattern::one(m(cond, 0), vec![ctrl, In::Ideal(a), In::Ideal(b)], ty)
}

/// `(f32)x`: rounded to a 32-bit float and widened back.
pub fn round_f32(g: &Graph, n: NodeId) -> Pattern {
    let role = g.kind(n).clone();
    let down = Mach::new(role.clone(), Op::FTrunc, LType::F32).with_src(LType::F64);
    let up = Mach::new(role, Op::FExt, LType::F64).with_src(LType::F32);
    Pattern::Nodes(vec![
        Made {
            kind: NodeKind::Mach(Box::new(down)),
            ins: vec![In::None, In::Ideal(g.in_(n, 1))],
            ty: Types::BOTTOM,
        },
        Made {
            kind: NodeKind::Mach(Box::new(up)),
            ins: vec![In::None, In::Made(0)],
            ty: g.ty(n),
        },
    ])
}

/// A projection (of a New, of a call's end, of a function's Start): a
/// copy. (Chapter 16's New had the fields' initial values as inputs and
/// its memory projections stored them; chapter 19's parser stores them.)
pub fn projection(g: &Graph, n: NodeId) -> Pattern {
    copy(g, n)
}

/// A call of a function known here (its index an immediate), or through
/// a register.
pub fn call(g: &Graph, n: NodeId) -> Pattern {
    let fptr = crate::node::call::fptr(g, n);
    let role = g.kind(n).clone();
    let ty = g.ty(n);
    let mut ins = ideal_ins(g, n);
    match g
        .types
        .single_fidx(g.ty(fptr))
        .filter(|_| g.types.is_constant(g.ty(fptr)))
    {
        Some((_, fidx)) => {
            ins.pop();
            let mut m = Mach::new(role, Op::Call, LType::Ptr).with_imm(i64::from(fidx));
            m.callee = Some(g.ty(fptr));
            Pattern::one(m, ins, ty)
        }
        None => Pattern::one(Mach::new(role, Op::CallR, LType::Ptr), ins, ty),
    }
}

/// A New: control, size and the memory slices it writes; its initial
/// values are stored by its projections ([`projection`]).
pub fn new(g: &Graph, n: NodeId) -> Pattern {
    let fields = crate::node::new_field_count(g, n);
    let ins: Vec<In> = ideal_ins(g, n).into_iter().take(2 + fields).collect();
    Pattern::one(
        Mach::new(g.kind(n).clone(), Op::New, LType::Ptr),
        ins,
        g.ty(n),
    )
}

/// The x86 address of memory operation `n`: control (its own, or the
/// guard of a cast its pointer was seen through), memory, base, index
/// (with the shift in `scale`) and displacement (in `imm`).
fn address(g: &Graph, n: NodeId, m: &mut Mach) -> [In; 4] {
    let off_at = if matches!(g.kind(n), NodeKind::Load { .. }) {
        3
    } else {
        4
    };
    let (base, guard) = base_of(g, g.in_(n, 2));
    let ctrl = g.input(n, 0).or(guard).map_or(In::None, In::Ideal);
    let (idx, disp) = match g.input(n, off_at) {
        Some(off) => {
            let o = split_offset(g, off);
            if i32::try_from(o.disp).is_ok() {
                m.scale = o.shift;
                (o.idx, o.disp)
            } else {
                (Some(off), 0)
            }
        }
        None => (None, 0),
    };
    m.imm = disp;
    [
        ctrl,
        In::Ideal(g.in_(n, 1)),
        In::Ideal(base),
        idx.map_or(In::None, In::Ideal),
    ]
}

/// A load: `mov` (sign- or zero-extending a narrow value); a 32-bit float
/// is loaded as such and widened to a double.
fn load(g: &Graph, n: NodeId) -> Pattern {
    let (size, signed, lt, off_ty) = access(g, n);
    let mut m = Mach::new(g.kind(n).clone(), Op::Load, lt);
    m.mem_size = size;
    m.signed = signed;
    m.off_ty = off_ty;
    let ins = address(g, n, &mut m).to_vec();
    widened(g, n, m, ins)
}

/// Load `m` of a 32-bit float, widened to the double its users see (the
/// widening is plain arithmetic: its role is a rounding, not a load).
pub fn widened(g: &Graph, n: NodeId, m: Mach, ins: Vec<In>) -> Pattern {
    if m.ty[0] != LType::F32 {
        return Pattern::one(m, ins, g.ty(n));
    }
    let up = Mach::new(NodeKind::RoundF32, Op::FExt, LType::F64).with_src(LType::F32);
    Pattern::Nodes(vec![
        Made {
            kind: NodeKind::Mach(Box::new(m)),
            ins,
            ty: Types::BOTTOM,
        },
        Made {
            kind: NodeKind::Mach(Box::new(up)),
            ins: vec![In::None, In::Made(0)],
            ty: g.ty(n),
        },
    ])
}

/// A store: of a register, or of a constant that fits 32 bits as an
/// immediate; a double into a 32-bit float field is rounded first.
fn store(g: &Graph, n: NodeId) -> Pattern {
    let (size, _, lt, off_ty) = access(g, n);
    let value = g.in_(n, 3);
    let mut m = Mach::new(g.kind(n).clone(), Op::Store, lt);
    m.mem_size = size;
    m.off_ty = off_ty;
    let [ctrl, mem, base, idx] = address(g, n, &mut m);
    if let Some(c) = int_con(g, value).filter(|&c| i32::try_from(c).is_ok()) {
        m.op = Op::StoreI;
        // Only the field's bytes are written: `movb` of 65529 into a
        // `u8` writes 0xf9, an immediate `movb` holds as -7.
        m.imm2 = match size {
            1 => c as i8 as i64,
            2 => c as i16 as i64,
            _ => c,
        };
        return Pattern::one(m, vec![ctrl, mem, base, In::None, idx], g.ty(n));
    }
    if lt == LType::F32 {
        let down = Mach::new(NodeKind::RoundF32, Op::FTrunc, LType::F32).with_src(LType::F64);
        return Pattern::Nodes(vec![
            Made {
                kind: NodeKind::Mach(Box::new(down)),
                ins: vec![In::None, In::Ideal(value)],
                ty: Types::BOTTOM,
            },
            Made {
                kind: NodeKind::Mach(Box::new(m)),
                ins: vec![ctrl, mem, base, In::Made(0), idx],
                ty: g.ty(n),
            },
        ]);
    }
    Pattern::one(m, vec![ctrl, mem, base, In::Ideal(value), idx], g.ty(n))
}

/// Operation `op` of `n` reading its first operand from load `ld` (used
/// by nothing else, a whole 8-byte integer): x86's memory operand. The
/// other operand `other` is a register, or an immediate when a constant
/// that fits. `None` when the load does not qualify.
fn mem_operand(g: &Graph, n: NodeId, ld: NodeId, other: Option<NodeId>, op: Op) -> Option<Pattern> {
    if !matches!(g.kind(ld), NodeKind::Load { .. }) || g.outputs(ld).len() != 1 {
        return None;
    }
    let (size, _, lt, off_ty) = access(g, ld);
    if size != 8 || lt.is_float() {
        return None;
    }
    let mut m = Mach::new(g.kind(ld).clone(), op, ltype(&g.types, g.ty(n)));
    m.mem_size = size;
    m.off_ty = off_ty;
    m.ty[1] = lt;
    let [ctrl, mem, base, idx] = address(g, ld, &mut m);
    let value = match other.and_then(|o| int_con(g, o).filter(|&c| i32::try_from(c).is_ok())) {
        // The immediate form: no value input.
        Some(c) => {
            m.imm2 = c;
            In::None
        }
        None => other.map_or(In::None, In::Ideal),
    };
    let ty = if op == Op::CmpMem {
        Types::BOTTOM
    } else {
        g.ty(n)
    };
    Some(Pattern::one(m, vec![ctrl, mem, base, idx, value], ty))
}
