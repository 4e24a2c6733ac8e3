//! The legalizer's rules for RISC-V, and the rewrites they ask for.
//!
//! What RISC-V decides differently from the other CPUs:
//!
//! - It has two comparisons, `slt` and `sltu` (and `slti`, `sltiu` with an
//!   immediate), which write 0 or 1 to the whole register: their truth
//!   value is widened to 64 bits, and is legal as it stands. Every other
//!   condition is lowered onto them: `a == b` is `(a-b) <u 1` (`seqz`),
//!   `a != b` is `0 <u (a-b)` (`snez`, comparing the register `zero`),
//!   `a > b` is `b < a`, and `a <= b` is `!(b < a)`, the `!` an `xori 1`.
//!   With an immediate, `a <= C` is `a < C+1` when `C+1` fits.
//! - A branch compares two registers itself, with every condition
//!   (`beq`, `bne`, `blt`, `bge`, `bltu`, `bgeu`; `>` and `<=` swap the
//!   operands). There is no float branch: the float comparison (`feq.d`,
//!   `flt.d`, `fle.d`) is made first, and the branch tests it against
//!   `zero`.
//! - Float comparisons are `==`, `<` and `<=`, false when either side is
//!   NaN, as the language wants; `>` and `>=` swap the operands, and `!=`
//!   is `!(a == b)` (true for NaN, as it must be).
//! - A sign-extension from 32 bits is one instruction (`sext.w`, which is
//!   `addiw rd, rs, 0`); from 8 or 16 bits it is lowered to a shift pair
//!   (`slli` then `srai`). A zero-extension from 8 bits is `andi 255`;
//!   from 16 or 32, a shift pair (`slli` then `srli`).
//! - One `addi` from `zero` makes a constant of 12 bits. The rules decide
//!   by the constant's width: 8 bits is legal, 16 and 32 are lowered to
//!   `lui` (the upper 20 bits) and `addi` (the lower 12, sign-extended: the
//!   upper part rounds up when bit 11 is set), 64 take a custom sequence
//!   of `addi`, `slli` and `addi` built from the top bits down (as LLVM's
//!   `RISCVMatInt`). The 32-bit constants just below 2^31, whose rounded
//!   upper part would be 2^31 (which `lui` sign-extends), take the 64-bit
//!   sequence. Float constants are loaded (chapter 21 puts them in a
//!   constant pool: `auipc` and `fld`).
//! - `div` gives -1 for `x/0` and `MIN` for `MIN/-1`; the language wants
//!   0 and `MIN`. Only `x/0` needs fixing: `q & ((d == 0) - 1)`, the mask
//!   all ones unless the divisor was 0.
//! - `new` calls the C allocator, `calloc(1, size)`.
//! - No flags, no address arithmetic of x86's kind, no memory operands, no
//!   `movk`, no multiply by an immediate: unsupported.

use super::select::imm12;
use crate::cpu::x86_64::legal::all_conds;
use crate::graph::{Graph, NodeId};
use crate::mach::legalize::{Action, RuleSet, Rules};
use crate::mach::{add_mach, mach, Cond, Cpu, LType, Mach, Op};
use crate::node::{BoolOp, NodeKind};
use crate::types::{TypeId, Types};
use LType::{Ptr, F32, F64, S16, S32, S64, S8};

/// The integer operand pairs a comparison or branch takes as they stand.
const INT_PAIRS: &[(LType, LType)] = &[(S64, S64), (S64, Ptr)];

/// RISC-V's rules, group by group.
pub fn rules() -> Rules {
    use Op::*;
    let mut sets = vec![
        RuleSet::of(&[
            Add, AddI, Sub, Mul, Div, Neg, And, AndI, Or, OrI, Xor, XorI, Shl, ShlI, Sar, SarI,
            Shr, ShrI,
        ])
        .legal_for(&[S64, Ptr]),
        RuleSet::of(&[DivTotal]).custom(),
        RuleSet::of(&[SExt])
            .legal_for_pairs(&[(S64, S32)])
            .lower_for_pairs(&[(S64, S8), (S64, S16)]),
        RuleSet::of(&[ZExt]).lower_for_pairs(&[(S64, S8), (S64, S16), (S64, S32)]),
        RuleSet::of(&[Trunc, AnyExt]).always_legal(),
        RuleSet::of(&[Int])
            .legal_for(&[S8, Ptr])
            .lower_for(&[S16, S32])
            .custom_for(&[S64]),
        RuleSet::of(&[Lui]).legal_for(&[S64]),
        RuleSet::of(&[Flt]).legal_for(&[F64]),
        RuleSet::of(&[FunAddr]).legal_for(&[Ptr]),
        RuleSet::of(&[FAdd, FSub, FMul, FDiv, FNeg]).legal_for(&[F64]),
        RuleSet::of(&[I2F]).legal_for_pairs(&[(F64, S64)]),
        RuleSet::of(&[FTrunc]).legal_for_pairs(&[(F32, F64)]),
        RuleSet::of(&[FExt]).legal_for_pairs(&[(F64, F32)]),
        RuleSet::of(&[Load, Store]).legal_for_mem(&[
            (S64, 1),
            (S64, 2),
            (S64, 4),
            (S64, 8),
            (Ptr, 8),
            (F64, 8),
            (F32, 4),
        ]),
        RuleSet::of(&[Call, CallR, Ret, Parm]).always_legal(),
        RuleSet::of(&[New]).libcall("calloc"),
        RuleSet::of(&[
            MulI, Lea, Cmp, CmpI, FCmp, StoreI, AddMem, FAddMem, CmpMem, MemAdd, MovK, Fun, Proj,
            CallEnd,
        ])
        .unsupported(),
    ];
    // `slt`, `sltu`, `slti`, `sltiu`: the truth value fills the register.
    sets.push(
        RuleSet::of(&[
            CmpSet(Cond::Lt),
            CmpSet(Cond::ULt),
            CmpSetI(Cond::Lt),
            CmpSetI(Cond::ULt),
        ])
        .widen_scalar(0, S64)
        .legal_for_pairs(INT_PAIRS),
    );
    let others = |op: fn(Cond) -> Op| -> Vec<Op> {
        all_conds(op)
            .into_iter()
            .filter(|o| {
                !matches!(
                    o,
                    CmpSet(Cond::Lt | Cond::ULt) | CmpSetI(Cond::Lt | Cond::ULt)
                )
            })
            .collect()
    };
    let mut int_others = others(CmpSet);
    int_others.extend(others(CmpSetI));
    sets.push(RuleSet::of(&int_others).lower());
    // `feq.d`, `flt.d`, `fle.d`.
    sets.push(
        RuleSet::of(&[FCmpSet(Cond::Eq), FCmpSet(Cond::Lt), FCmpSet(Cond::Le)])
            .widen_scalar(0, S64)
            .legal_for_pairs(&[(S64, F64)]),
    );
    sets.push(RuleSet::of(&[FCmpSet(Cond::Gt), FCmpSet(Cond::Ge), FCmpSet(Cond::Ne)]).lower());
    sets.push(
        RuleSet::of(&[
            FCmpSet(Cond::ULt),
            FCmpSet(Cond::ULe),
            FCmpSet(Cond::UGt),
            FCmpSet(Cond::UGe),
        ])
        .unsupported(),
    );
    sets.push(
        RuleSet::of(&all_conds(Branch))
            .legal_for_pairs(INT_PAIRS)
            .lower_for_pairs(&[(S64, F64)]),
    );
    sets.push(RuleSet::of(&all_conds(Set)).unsupported());
    sets.push(RuleSet::of(&all_conds(Jcc)).unsupported());
    Rules {
        cpu: Cpu::Riscv,
        sets,
        rewrite,
    }
}

/// The rewrites RISC-V's rules ask for.
fn rewrite(g: &mut Graph, n: NodeId, _action: Action) -> Result<NodeId, String> {
    let m = mach(g, n).expect("a machine node").clone();
    let mut b = Build {
        g,
        role: m.role.clone(),
    };
    match m.op {
        Op::Int => {
            let start = b.g.input(n, 0);
            Ok(constant(b.g, start, m.imm))
        }
        Op::SExt | Op::ZExt => Ok(extension(&mut b, n, &m)),
        Op::CmpSet(cond) => {
            let (x, y) = (b.g.input(n, 1), b.g.input(n, 2));
            Ok(compare(&mut b, n, x, y, cond))
        }
        Op::CmpSetI(cond) => Ok(compare_imm(&mut b, n, cond, m.imm)),
        Op::FCmpSet(cond) => Ok(float_compare(&mut b, n, cond)),
        Op::Branch(cond) => Ok(float_branch(&mut b, n, cond)),
        Op::DivTotal => Ok(total_division(&mut b, n)),
        op => Err(format!("riscv has no rewrite for {op:?}")),
    }
}

/// Makes the nodes of one rewrite, all standing for the same ideal node.
struct Build<'a> {
    g: &'a mut Graph,
    role: NodeKind,
}

impl Build<'_> {
    /// A 64-bit operation `op` on `ins` (after the empty control), with
    /// immediate `imm`, of type `ty`.
    fn op(&mut self, op: Op, imm: i64, ins: &[Option<NodeId>], ty: TypeId) -> NodeId {
        let m = Mach::new(self.role.clone(), op, LType::S64).with_imm(imm);
        let mut all = vec![None];
        all.extend_from_slice(ins);
        add_mach(self.g, m, &all, ty)
    }

    /// Comparison `op` (a truth value, which the rules widen) of operands
    /// of type `src`.
    fn cmp(&mut self, op: Op, src: LType, imm: i64, ins: &[Option<NodeId>], ty: TypeId) -> NodeId {
        let m = Mach::new(self.role.clone(), op, LType::S1)
            .with_src(src)
            .with_imm(imm);
        let mut all = vec![None];
        all.extend_from_slice(ins);
        add_mach(self.g, m, &all, ty)
    }
}

/// Integer constant `v` made of `addi`, `lui` and `slli` (see the
/// module's documentation); `start` is the control constants hang from.
/// Each node of the sequence is typed as the constant it holds.
fn constant(g: &mut Graph, start: Option<NodeId>, v: i64) -> NodeId {
    let node = |g: &mut Graph, op: Op, imm: i64, ins: &[Option<NodeId>], value: i64| {
        let t = g.types.int(value);
        let m = Mach::new(NodeKind::Constant(t), op, LType::S64).with_imm(imm);
        add_mach(g, m, ins, t)
    };
    // `addi rd, zero, v`: the empty input is `zero`.
    if imm12(v) {
        return node(g, Op::AddI, v, &[start, None], v);
    }
    // `lui` sign-extends bit 31 of what it loads: the rounded upper part
    // must fit 32 bits.
    if i32::try_from(v).is_ok() {
        let hi = (v + 0x800) & !0xFFF;
        if i32::try_from(hi).is_ok() {
            let lui = node(g, Op::Lui, hi, &[start], hi);
            if v == hi {
                return lui;
            }
            return node(g, Op::AddI, v - hi, &[None, Some(lui)], v);
        }
    }
    // The low 12 bits, sign-extended, are added last to the rest shifted
    // into place (the shift takes the rest's trailing zeros too). All of
    // it wraps, as the instructions do.
    let lo = (v << 52) >> 52;
    let rest = v.wrapping_sub(lo) >> 12;
    let tz = rest.trailing_zeros();
    let top = rest >> tz;
    let upper = constant(g, start, top);
    let shifted = top.wrapping_shl(12 + tz);
    let shl = node(
        g,
        Op::ShlI,
        i64::from(12 + tz),
        &[None, Some(upper)],
        shifted,
    );
    if lo == 0 {
        return shl;
    }
    node(g, Op::AddI, lo, &[None, Some(shl)], v)
}

/// A sign-extension from 8 or 16 bits, or a zero-extension: `andi 255`,
/// or a shift left that drops the upper bits and a shift right that
/// brings the rest back, copying the sign or zeros.
fn extension(b: &mut Build, n: NodeId, m: &Mach) -> NodeId {
    let x = b.g.input(n, 1);
    let ty = b.g.ty(n);
    let bits = i64::from(m.ty[1].bits());
    if m.op == Op::ZExt && bits == 8 {
        return b.op(Op::AndI, 0xFF, &[x], ty);
    }
    let up = b.op(Op::ShlI, 64 - bits, &[x], Types::INT_BOT);
    let down = if m.op == Op::SExt { Op::SarI } else { Op::ShrI };
    b.op(down, 64 - bits, &[Some(up)], ty)
}

/// `x cond y` on registers (`x` empty: `zero`), onto `slt` and `sltu`.
fn compare(b: &mut Build, n: NodeId, x: Option<NodeId>, y: Option<NodeId>, cond: Cond) -> NodeId {
    let ty = b.g.ty(n);
    let src = mach(b.g, n).map_or(S64, |m| m.ty[1]);
    let bot = Types::INT_BOT;
    let lt = |b: &mut Build, c: Cond, p: Option<NodeId>, q: Option<NodeId>, ty: TypeId| {
        b.cmp(Op::CmpSet(c), src, 0, &[p, q], ty)
    };
    let not = |b: &mut Build, t: NodeId| b.op(Op::XorI, 1, &[Some(t)], ty);
    match cond {
        Cond::Lt | Cond::ULt => lt(b, cond, x, y, ty),
        Cond::Gt => lt(b, Cond::Lt, y, x, ty),
        Cond::UGt => lt(b, Cond::ULt, y, x, ty),
        // !(y < x), !(x < y)
        Cond::Le | Cond::ULe | Cond::Ge | Cond::UGe => {
            let strict = if matches!(cond, Cond::Le | Cond::Ge) {
                Cond::Lt
            } else {
                Cond::ULt
            };
            let (p, q) = if matches!(cond, Cond::Le | Cond::ULe) {
                (y, x)
            } else {
                (x, y)
            };
            let t = lt(b, strict, p, q, bot);
            not(b, t)
        }
        // (x-y) <u 1, 0 <u (x-y)
        Cond::Eq | Cond::Ne => {
            let d = b.op(Op::Sub, 0, &[x, y], bot);
            if cond == Cond::Eq {
                b.cmp(Op::CmpSetI(Cond::ULt), S64, 1, &[Some(d)], ty)
            } else {
                b.cmp(Op::CmpSet(Cond::ULt), S64, 0, &[None, Some(d)], ty)
            }
        }
    }
}

/// `x cond C`, `x` being input 1 of `n`: with `slti`/`sltiu` where one
/// does it (`x <= C` is `x < C+1`, `x == C` tests `x ^ C` against 0),
/// else with `C` made in a register.
fn compare_imm(b: &mut Build, n: NodeId, cond: Cond, c: i64) -> NodeId {
    let ty = b.g.ty(n);
    let x = b.g.input(n, 1);
    let src = mach(b.g, n).map_or(S64, |m| m.ty[1]);
    let bot = Types::INT_BOT;
    // C+1, when it is an immediate too.
    let up = c.checked_add(1).filter(|&u| imm12(u));
    match cond {
        Cond::Lt | Cond::ULt => b.cmp(Op::CmpSetI(cond), src, c, &[x], ty),
        Cond::Eq | Cond::Ne if imm12(c) => {
            let d = if c == 0 {
                x
            } else {
                Some(b.op(Op::XorI, c, &[x], bot))
            };
            if cond == Cond::Eq {
                b.cmp(Op::CmpSetI(Cond::ULt), S64, 1, &[d], ty)
            } else {
                b.cmp(Op::CmpSet(Cond::ULt), S64, 0, &[None, d], ty)
            }
        }
        // x <= C is x < C+1 (unsigned: unless C is the largest value).
        Cond::Le if up.is_some() => b.cmp(Op::CmpSetI(Cond::Lt), src, c + 1, &[x], ty),
        Cond::ULe if up.is_some() && c != -1 => b.cmp(Op::CmpSetI(Cond::ULt), src, c + 1, &[x], ty),
        // !(x < C)
        Cond::Ge | Cond::UGe if imm12(c) => {
            let strict = if cond == Cond::Ge {
                Cond::Lt
            } else {
                Cond::ULt
            };
            let t = b.cmp(Op::CmpSetI(strict), src, c, &[x], bot);
            b.op(Op::XorI, 1, &[Some(t)], ty)
        }
        _ => {
            let start = Some(b.g.start());
            let k = constant(b.g, start, c);
            compare(b, n, x, Some(k), cond)
        }
    }
}

/// A float comparison RISC-V lacks: `>` and `>=` swap the operands, `!=`
/// negates `==`.
fn float_compare(b: &mut Build, n: NodeId, cond: Cond) -> NodeId {
    let ty = b.g.ty(n);
    let (x, y) = (b.g.input(n, 1), b.g.input(n, 2));
    match cond {
        Cond::Gt => b.cmp(Op::FCmpSet(Cond::Lt), F64, 0, &[y, x], ty),
        Cond::Ge => b.cmp(Op::FCmpSet(Cond::Le), F64, 0, &[y, x], ty),
        _ => {
            let eq = b.cmp(Op::FCmpSet(Cond::Eq), F64, 0, &[x, y], Types::INT_BOT);
            b.op(Op::XorI, 1, &[Some(eq)], ty)
        }
    }
}

/// A branch on a float comparison `x cond y` (`y` empty: 0.0): the
/// comparison made first, then a branch on it against `zero`. `!=` branches
/// when `==` is false.
fn float_branch(b: &mut Build, n: NodeId, cond: Cond) -> NodeId {
    let (ctrl, x) = (b.g.input(n, 0), b.g.input(n, 1));
    let y = match b.g.input(n, 2) {
        Some(y) => y,
        None => {
            let m = Mach::new(NodeKind::Constant(Types::FLT_ZERO), Op::Flt, F64);
            let start = b.g.start();
            add_mach(b.g, m, &[Some(start)], Types::FLT_ZERO)
        }
    };
    let (test, taken) = match cond {
        Cond::Ne => (Cond::Eq, Cond::Eq),
        c => (c, Cond::Ne),
    };
    // The comparison is a value: its role is a float comparison's, not
    // the branch's (a control node).
    let op = match test {
        Cond::Lt | Cond::Gt => BoolOp::Lt,
        Cond::Le | Cond::Ge => BoolOp::Le,
        _ => BoolOp::Eq,
    };
    let mut cmp = Build {
        g: &mut *b.g,
        role: NodeKind::BoolF(op),
    };
    let t = cmp.cmp(Op::FCmpSet(test), F64, 0, &[x, Some(y)], Types::BOOL);
    let br = Mach::new(b.role.clone(), Op::Branch(taken), S64).with_src(S64);
    let ty = b.g.ty(n);
    add_mach(b.g, br, &[ctrl, Some(t), None], ty)
}

/// `x / d` as the language means it: `div` is right but for `x/0`, which
/// gives -1 and must give 0 (see the module's documentation).
fn total_division(b: &mut Build, n: NodeId) -> NodeId {
    let (x, d) = (b.g.input(n, 1), b.g.input(n, 2));
    let ty = b.g.ty(n);
    let bot = Types::INT_BOT;
    let q = b.op(Op::Div, 0, &[x, d], bot);
    let zero = b.cmp(Op::CmpSetI(Cond::ULt), S64, 1, &[d], Types::BOOL);
    let mask = b.op(Op::AddI, -1, &[Some(zero)], bot);
    b.op(Op::And, 0, &[Some(q), Some(mask)], ty)
}
