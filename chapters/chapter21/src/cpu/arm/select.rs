//! Instruction selection for AArch64: what each ideal node becomes.
//!
//! ARM is a three-address load/store machine with fixed 32-bit
//! instructions, so an immediate is folded into an instruction only when
//! its few bits can hold it, and each kind of instruction has its own
//! kind of immediate:
//!
//! - `add`/`sub` (and `cmp`/`cmn`) take 12 bits, unsigned, optionally
//!   shifted left by 12: an add of a constant is `addi` when the constant
//!   or its negation fits ([`add_imm`]), and a subtraction of a constant
//!   an add of its negation;
//! - `and`, `orr`, `eor` take a *bitmask immediate*: a run of ones,
//!   rotated, repeated across the register in elements of 2 to 64 bits
//!   ([`logical_imm`]); `0` and `-1` are not ones;
//! - shifts by a constant take the count modulo 64, as the language does;
//!   a shift left and back right by 32, 48 or 56, which is how the
//!   language narrows a value to a 32-, 16- or 8-bit type, is one sign-
//!   or zero-extension (`sxtb`, `uxth`...);
//! - `mul` and `sdiv` take no immediate: the constant is a register (a
//!   multiplication by a power of two is a shift).
//!
//! A load or store addresses a base register plus an unsigned 12-bit
//! displacement scaled by the access size, or a signed 9-bit unscaled one
//! (`ldur`), or plus an index register, optionally shifted by the
//! access size (`ldr x0, [x1, x2, lsl #3]`). A field at a constant
//! offset uses the displacement when it fits (else the offset is put in
//! a register). An array element's offset is `(i << scale) + header`:
//! the index is used shifted when the shift is the access size, and the
//! header goes into a separate `add` to the base, which global code
//! motion takes out of any loop the access is in.
//!
//! The generic comparisons and branches (`CmpSet`, `Branch`) are left to
//! the legalizer, which turns them into `cmp` and `cset` or `b.cond`.

use crate::cpu::x86_64::select::{call, cond_of, copy, division, new, projection};
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
    Ok(match g.kind(n) {
        NodeKind::Constant(t) => constant(g, n, *t),
        NodeKind::Add => add(g, n),
        NodeKind::Sub => match int_con(g, g.in_(n, 2)).and_then(i64::checked_neg) {
            Some(c) if add_imm(c) => with_imm(g, n, Op::AddI, c, g.in_(n, 1)),
            _ => bin(Op::Sub),
        },
        // `mul` has no immediate form: a constant is a register, but a
        // power of two is a shift.
        NodeKind::Mul => match const_side(g, n, |c| c > 0 && c.count_ones() == 1) {
            Some((c, x)) => with_imm(g, n, Op::ShlI, i64::from(c.trailing_zeros()), x),
            None => bin(Op::Mul),
        },
        NodeKind::Div => bin(division(g, n)),
        NodeKind::Minus => bin(Op::Neg),
        NodeKind::And => logical(g, n, Op::AndI, Op::And),
        NodeKind::Or => logical(g, n, Op::OrI, Op::Or),
        NodeKind::Xor => logical(g, n, Op::XorI, Op::Xor),
        NodeKind::Shl => shift(g, n, Op::ShlI, Op::Shl),
        NodeKind::Sar => {
            extension(g, n, Op::SExt).unwrap_or_else(|| shift(g, n, Op::SarI, Op::Sar))
        }
        NodeKind::Shr => {
            extension(g, n, Op::ZExt).unwrap_or_else(|| shift(g, n, Op::ShrI, Op::Shr))
        }
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
        NodeKind::RoundF32 => crate::cpu::x86_64::select::round_f32(g, n),
        NodeKind::If => branch(g, n),
        NodeKind::Return => bin(Op::Ret),
        NodeKind::Phi { parm: Some(_), .. } => bin(Op::Parm),
        NodeKind::Proj { .. } => fix_displacements(g, projection(g, n)),
        NodeKind::CallEnd { .. } | NodeKind::Fun { .. } => copy(g, n),
        NodeKind::Call { .. } => call(g, n),
        NodeKind::New { .. } => new(g, n),
        NodeKind::Load { .. } => load(g, n),
        NodeKind::Store { .. } => store(g, n),
        other => {
            return Err(Error::new(
                format!("arm has no instruction for {other:?}"),
                0,
            ))
        }
    })
}

// ---------------------------------------------------------------------------
// Immediates: which constants an instruction's bits can hold.

/// `add`/`sub`/`cmp`'s immediate: 12 bits, unsigned, shifted left by 0
/// or 12.
pub fn arith_imm(v: i64) -> bool {
    (0..4096).contains(&v) || (v & 0xFFF == 0 && (0..1 << 24).contains(&v))
}

/// A constant that an `add` (or, negated, a `sub`) takes as its
/// immediate; likewise `cmp` (or `cmn`).
pub fn add_imm(v: i64) -> bool {
    arith_imm(v) || v.checked_neg().is_some_and(arith_imm)
}

/// The encoding of `v` as a bitmask immediate of `and`, `orr`, `eor`
/// (64-bit forms): the fields `N`, `immr` and `imms`, if `v` is one.
///
/// A bitmask immediate is an element of 2, 4, 8, 16, 32 or 64 bits,
/// repeated to fill 64 bits, whose bits are a run of 1 to size-1 ones
/// rotated right by 0 to size-1 places. `imms` holds the run's length
/// minus one, its high bits marking the element size (`N` set for 64);
/// `immr` the rotation.
pub fn logical_imm(v: u64) -> Option<(u8, u8, u8)> {
    if v == 0 || v == u64::MAX {
        return None;
    }
    // The smallest element that, repeated, makes `v`.
    let mut size = 64u32;
    while size > 2 {
        let half = size / 2;
        let mask = (1u64 << half) - 1;
        if v & mask != (v >> half) & mask {
            break;
        }
        size = half;
    }
    let mask = if size == 64 {
        u64::MAX
    } else {
        (1u64 << size) - 1
    };
    let elt = v & mask;
    let ones = elt.count_ones();
    // Rotating the element right by `r` must give `ones` ones at the
    // bottom: then `elt` is that run rotated right by `size - r`.
    let run = (1u64 << ones) - 1;
    let rotr = |x: u64, r: u32| {
        if r == 0 {
            x
        } else {
            ((x >> r) | (x << (size - r))) & mask
        }
    };
    let r = (0..size).find(|&r| rotr(elt, r) == run)?;
    let immr = (size - r) % size;
    // imms: the high bits mark the size (0b0xxxxx for 32, 0b10xxxx for
    // 16 ... 0b11110x for 2), the low bits the ones minus one.
    let size_bits = (!(size * 2 - 1)) & 0x3F;
    let imms = size_bits | (ones - 1);
    let n = u8::from(size == 64);
    Some((n, immr as u8, imms as u8))
}

/// Whether `v` is a bitmask immediate ([`logical_imm`]).
pub fn is_logical_imm(v: i64) -> bool {
    logical_imm(v as u64).is_some()
}

/// The value of the bitmask immediate with fields `n`, `immr`, `imms`,
/// if they are a valid encoding: the inverse of [`logical_imm`] (as the
/// CPU decodes it).
pub fn decode_logical_imm(n: u8, immr: u8, imms: u8) -> Option<u64> {
    if n > 1 || immr > 63 || imms > 63 {
        return None;
    }
    // The element size is 2^len, len the highest set bit of N:NOT(imms).
    let combined = (u32::from(n) << 6) | (!u32::from(imms) & 0x3F);
    if combined == 0 {
        return None;
    }
    let len = 31 - combined.leading_zeros();
    if len < 1 {
        return None;
    }
    let size = 1u32 << len;
    let levels = size - 1;
    let s = u32::from(imms) & levels;
    let r = u32::from(immr) & levels;
    if s == levels {
        return None; // all ones: reserved
    }
    let mask = if size == 64 {
        u64::MAX
    } else {
        (1u64 << size) - 1
    };
    let run = (1u64 << (s + 1)) - 1;
    let elt = if r == 0 {
        run
    } else {
        ((run >> r) | (run << (size - r))) & mask
    };
    let mut v = 0u64;
    let mut at = 0;
    while at < 64 {
        v |= elt << at;
        at += size;
    }
    Some(v)
}

/// A load or store of `size` bytes may take displacement `disp` from its
/// base: scaled unsigned 12 bits (`ldr x0, [x1, #4088]`), or signed 9
/// bits unscaled (`ldur x0, [x1, #-8]`).
pub fn disp_ok(disp: i64, size: u8) -> bool {
    let size = i64::from(size.max(1));
    (disp >= 0 && disp % size == 0 && disp / size < 4096) || (-256..256).contains(&disp)
}

/// The instructions a constant takes: 1 when one `movz`, `movn` or
/// `orr` (of a bitmask immediate) makes it, else one `movz` or `movn`
/// and a `movk` for each other 16-bit chunk.
pub fn moves(v: i64) -> usize {
    if single_move(v) {
        return 1;
    }
    let chunks = (0..4).map(|i| (v as u64 >> (16 * i)) & 0xFFFF);
    let zeros = chunks.clone().filter(|&c| c == 0).count();
    let ones = chunks.filter(|&c| c == 0xFFFF).count();
    4 - zeros.max(ones)
}

/// One instruction makes `v`: `movz` (16 bits in place, zeros around),
/// `movn` (the same, inverted), or `orr` from the zero register (a
/// bitmask immediate).
pub fn single_move(v: i64) -> bool {
    let u = v as u64;
    let one_chunk = |x: u64| (0..4).any(|i| x & !(0xFFFF << (16 * i)) == 0);
    one_chunk(u) || one_chunk(!u) || is_logical_imm(v)
}

// ---------------------------------------------------------------------------

/// Integer, pointer, float and function constants. An integer's type is
/// the narrowest that holds it, which the rules for constants look at.
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

/// `n` as `op` of input `x` and immediate `imm`.
fn with_imm(g: &Graph, n: NodeId, op: Op, imm: i64, x: NodeId) -> Pattern {
    let ty = g.ty(n);
    let m = Mach::new(g.kind(n).clone(), op, ltype(&g.types, ty)).with_imm(imm);
    Pattern::one(m, vec![In::None, In::Ideal(x)], ty)
}

/// The constant operand of commutative `n` and the other operand, when
/// one side is a constant that `fits`.
fn const_side(g: &Graph, n: NodeId, fits: fn(i64) -> bool) -> Option<(i64, NodeId)> {
    let (a, b) = (g.in_(n, 1), g.in_(n, 2));
    match (int_con(g, a), int_con(g, b)) {
        (_, Some(c)) if fits(c) => Some((c, a)),
        (Some(c), _) if fits(c) => Some((c, b)),
        _ => None,
    }
}

/// An add: of a constant that `add` or `sub` takes, `addi`.
fn add(g: &Graph, n: NodeId) -> Pattern {
    match const_side(g, n, add_imm) {
        Some((c, x)) => with_imm(g, n, Op::AddI, c, x),
        None => Pattern::one(
            Mach::new(g.kind(n).clone(), Op::Add, ltype(&g.types, g.ty(n))),
            ideal_ins(g, n),
            g.ty(n),
        ),
    }
}

/// `&`, `|`, `^`: the immediate form for a bitmask immediate.
fn logical(g: &Graph, n: NodeId, imm_op: Op, reg_op: Op) -> Pattern {
    match const_side(g, n, is_logical_imm) {
        Some((c, x)) => with_imm(g, n, imm_op, c, x),
        None => Pattern::one(
            Mach::new(g.kind(n).clone(), reg_op, ltype(&g.types, g.ty(n))),
            ideal_ins(g, n),
            g.ty(n),
        ),
    }
}

/// A shift by a constant takes the count modulo 64 (as the register
/// forms do on their own).
fn shift(g: &Graph, n: NodeId, imm_op: Op, reg_op: Op) -> Pattern {
    match int_con(g, g.in_(n, 2)) {
        Some(c) => with_imm(g, n, imm_op, c & 63, g.in_(n, 1)),
        None => Pattern::one(
            Mach::new(g.kind(n).clone(), reg_op, ltype(&g.types, g.ty(n))),
            ideal_ins(g, n),
            g.ty(n),
        ),
    }
}

/// `(x << k) >> k`, arithmetic or logical, with `k` 32, 48 or 56: how the
/// language narrows a value to 32, 16 or 8 bits, signed or not. One
/// instruction does it (`sxtw`, `sxth`, `sxtb`; `uxth`, `uxtb`, and a
/// 32-bit `mov` or `ubfx`): `op` from the narrow width.
fn extension(g: &Graph, n: NodeId, op: Op) -> Option<Pattern> {
    let (shl, k) = (g.in_(n, 1), int_con(g, g.in_(n, 2))?);
    if !matches!(g.kind(shl), NodeKind::Shl) || int_con(g, g.in_(shl, 2)) != Some(k) {
        return None;
    }
    let from = match k {
        32 => LType::S32,
        48 => LType::S16,
        56 => LType::S8,
        _ => return None,
    };
    let ty = g.ty(n);
    let m = Mach::new(g.kind(n).clone(), op, ltype(&g.types, ty)).with_src(from);
    Some(Pattern::one(
        m,
        vec![In::None, In::Ideal(g.in_(shl, 1))],
        ty,
    ))
}

/// An integer comparison as 0 or 1, the generic form the legalizer turns
/// into `cmp` and `cset`. A constant that `cmp` (or `cmn`) takes goes
/// right, as an immediate, the operator swapped if it was left.
fn compare(g: &Graph, n: NodeId, op: BoolOp) -> Pattern {
    let ty = g.ty(n);
    let cond = cond_of(op);
    let (lhs, rhs) = (g.in_(n, 1), g.in_(n, 2));
    let src = ltype(&g.types, g.ty(lhs));
    let role = g.kind(n).clone();
    let imm = |x: NodeId| int_con(g, x).filter(|&c| add_imm(c));
    if let Some(c) = imm(rhs) {
        let m = Mach::new(role, Op::CmpSetI(cond), LType::S1)
            .with_src(src)
            .with_imm(c);
        return Pattern::one(m, vec![In::None, In::Ideal(lhs)], ty);
    }
    if let Some(c) = imm(lhs) {
        let m = Mach::new(role, Op::CmpSetI(cond.swap()), LType::S1)
            .with_src(src)
            .with_imm(c);
        return Pattern::one(m, vec![In::None, In::Ideal(rhs)], ty);
    }
    let m = Mach::new(role, Op::CmpSet(cond), LType::S1).with_src(src);
    Pattern::one(m, ideal_ins(g, n), ty)
}

/// A branch: on a comparison, compare and branch (the legalizer makes it
/// `cmp` or `fcmp` and `b.cond`); on any other value, branch when it is
/// not 0.
fn branch(g: &Graph, n: NodeId) -> Pattern {
    let role = g.kind(n).clone();
    let ty = g.ty(n);
    let (ctrl, pred) = (g.in_(n, 0), g.in_(n, 1));
    let src = ltype(&g.types, g.ty(pred));
    let m = |c: Cond, src: LType, imm: i64| {
        Mach::new(role.clone(), Op::Branch(c), LType::S64)
            .with_src(src)
            .with_imm(imm)
    };
    let ideal = |x: NodeId| In::Ideal(x);
    match g.kind(pred) {
        NodeKind::Bool(op) => {
            let (a, b) = (g.in_(pred, 1), g.in_(pred, 2));
            let src = ltype(&g.types, g.ty(a));
            let cond = cond_of(*op);
            let imm = |x: NodeId| int_con(g, x).filter(|&c| add_imm(c));
            if let Some(c) = imm(b) {
                return Pattern::one(m(cond, src, c), vec![ideal(ctrl), ideal(a), In::None], ty);
            }
            if let Some(c) = imm(a) {
                return Pattern::one(
                    m(cond.swap(), src, c),
                    vec![ideal(ctrl), ideal(b), In::None],
                    ty,
                );
            }
            Pattern::one(m(cond, src, 0), vec![ideal(ctrl), ideal(a), ideal(b)], ty)
        }
        NodeKind::BoolF(op) => Pattern::one(
            m(cond_of(*op), LType::F64, 0),
            vec![ideal(ctrl), ideal(g.in_(pred, 1)), ideal(g.in_(pred, 2))],
            ty,
        ),
        _ => Pattern::one(
            m(Cond::Ne, src, 0),
            vec![ideal(ctrl), ideal(pred), In::None],
            ty,
        ),
    }
}

/// The nodes of a pattern under construction, the last its result.
struct Nodes(Vec<Made>);

impl Nodes {
    fn push(&mut self, m: Mach, ins: Vec<In>, ty: TypeId) -> In {
        self.0.push(Made {
            kind: NodeKind::Mach(Box::new(m)),
            ins,
            ty,
        });
        In::Made(self.0.len() - 1)
    }
}

/// The ARM address of memory operation `n` (of `m.mem_size` bytes):
/// control (its own, or the guard of a cast its pointer was seen
/// through), memory, base and index (`In::None` for a displacement,
/// which goes to `m.imm`; `m.scale` the index's shift). Nodes the
/// address needs (an `add` of an element's header to the base, a
/// displacement too far for the instruction in a register) are pushed on
/// `nodes`.
fn address(g: &Graph, n: NodeId, m: &mut Mach, nodes: &mut Nodes) -> [In; 4] {
    let off_at = if matches!(g.kind(n), NodeKind::Load { .. }) {
        3
    } else {
        4
    };
    let (base, guard) = base_of(g, g.in_(n, 2));
    let ctrl = g.input(n, 0).or(guard).map_or(In::None, In::Ideal);
    let mem = In::Ideal(g.in_(n, 1));
    let size = m.mem_size;
    m.imm = 0;
    m.scale = 0;
    let Some(off) = g.input(n, off_at) else {
        return [ctrl, mem, In::Ideal(base), In::None];
    };
    if let Some(c) = int_con(g, off) {
        if disp_ok(c, size) {
            m.imm = c;
            return [ctrl, mem, In::Ideal(base), In::None];
        }
        // Too far for the instruction: the offset in a register.
        return [ctrl, mem, In::Ideal(base), In::Ideal(off)];
    }
    let o = split_offset(g, off);
    let idx = o.idx.expect("an offset that is no constant has an index");
    let shift_ok = o.shift == 0 || 1u32 << o.shift == u32::from(size);
    if !shift_ok || !add_imm(o.disp) {
        // The offset as the ideal graph computes it.
        return [ctrl, mem, In::Ideal(base), In::Ideal(off)];
    }
    m.scale = o.shift;
    if o.disp == 0 {
        return [ctrl, mem, In::Ideal(base), In::Ideal(idx)];
    }
    // `base + header`, then `[that, idx, lsl #shift]`.
    let at = Mach::new(NodeKind::Add, Op::AddI, LType::Ptr).with_imm(o.disp);
    let b = nodes.push(at, vec![In::None, In::Ideal(base)], Types::BOTTOM);
    [ctrl, mem, b, In::Ideal(idx)]
}

/// A load (sign- or zero-extending a narrow integer); a 32-bit float is
/// loaded as such and widened to a double.
fn load(g: &Graph, n: NodeId) -> Pattern {
    let (size, signed, lt, off_ty) = access(g, n);
    let mut m = Mach::new(g.kind(n).clone(), Op::Load, lt);
    m.mem_size = size;
    m.signed = signed;
    m.off_ty = off_ty;
    let mut nodes = Nodes(Vec::new());
    let ins = address(g, n, &mut m, &mut nodes).to_vec();
    if lt != LType::F32 {
        nodes.push(m, ins, g.ty(n));
        return Pattern::Nodes(nodes.0);
    }
    // The widening is plain arithmetic: its role is a rounding, not a
    // load.
    let ld = nodes.push(m, ins, Types::BOTTOM);
    let up = Mach::new(NodeKind::RoundF32, Op::FExt, LType::F64).with_src(LType::F32);
    nodes.push(up, vec![In::None, ld], g.ty(n));
    Pattern::Nodes(nodes.0)
}

/// A store of a register; a double into a 32-bit float field is rounded
/// first.
fn store(g: &Graph, n: NodeId) -> Pattern {
    let (size, _, lt, off_ty) = access(g, n);
    let value = g.in_(n, 3);
    let mut m = Mach::new(g.kind(n).clone(), Op::Store, lt);
    m.mem_size = size;
    m.off_ty = off_ty;
    let mut nodes = Nodes(Vec::new());
    let [ctrl, mem, base, idx] = address(g, n, &mut m, &mut nodes);
    let value = if lt == LType::F32 {
        // A value rounded to 32 bits already is rounded once, not twice.
        let value = match g.kind(value) {
            NodeKind::RoundF32 => g.in_(value, 1),
            _ => value,
        };
        let down = Mach::new(g.kind(n).clone(), Op::FTrunc, LType::F32).with_src(LType::F64);
        nodes.push(down, vec![In::None, In::Ideal(value)], Types::BOTTOM)
    } else {
        In::Ideal(value)
    };
    nodes.push(m, vec![ctrl, mem, base, value, idx], g.ty(n));
    Pattern::Nodes(nodes.0)
}

/// A pattern whose loads and stores have no index (a New's initial
/// values, stored at their fields' offsets) with each displacement that
/// an ARM load or store cannot take put in a register instead.
fn fix_displacements(g: &Graph, p: Pattern) -> Pattern {
    let Pattern::Nodes(nodes) = p else { return p };
    let mut out: Vec<Made> = Vec::with_capacity(nodes.len() + 1);
    // Where each node of `nodes` went in `out`.
    let mut at = Vec::with_capacity(nodes.len());
    for mut made in nodes {
        for i in &mut made.ins {
            if let In::Made(j) = i {
                *j = at[*j];
            }
        }
        if let NodeKind::Mach(m) = &mut made.kind {
            let idx_at = match m.op {
                Op::Load => Some(3),
                Op::Store => Some(4),
                _ => None,
            };
            if let Some(idx_at) = idx_at {
                let no_index = matches!(made.ins.get(idx_at), None | Some(In::None));
                if no_index && !disp_ok(m.imm, m.mem_size) {
                    let role = NodeKind::Constant(Types::BOTTOM);
                    let k = Mach::new(role, Op::Int, int_width(m.imm)).with_imm(m.imm);
                    out.push(Made {
                        kind: NodeKind::Mach(Box::new(k)),
                        ins: vec![In::Ideal(g.start())],
                        ty: Types::BOTTOM,
                    });
                    m.imm = 0;
                    made.ins.resize(idx_at + 1, In::None);
                    made.ins[idx_at] = In::Made(out.len() - 1);
                }
            }
        }
        at.push(out.len());
        out.push(made);
    }
    Pattern::Nodes(out)
}
