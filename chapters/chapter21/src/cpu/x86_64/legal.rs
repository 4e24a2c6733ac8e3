//! The legalizer's rules for x86-64, and the rewrites they ask for.
//!
//! What x86 decides differently from the other CPUs:
//!
//! - Comparisons live in the flags. A comparison giving 0 or 1 is
//!   lowered to `cmp` (or `ucomisd` for floats) and `setcc`; a branch to
//!   `cmp` and `jcc`. `setcc` writes 8 bits, and its truth value is widened
//!   to the register (`movzx`, in the same instruction).
//! - Float comparisons must be false when either side is NaN, and
//!   `ucomisd` reports NaN as "unordered" by setting the carry flag, which
//!   the unsigned "below" conditions read as less-than. So `a < b`
//!   compares `b` with `a` and asks "above"
//!   (false when unordered), `a <= b` "above or equal"; `==` also checks
//!   parity (done by `setcc`/`jcc` for equality after `ucomisd`).
//! - `idiv` traps on a zero divisor and on `MIN / -1`, where the language
//!   gives 0 and `MIN`: the total division becomes a plain `idiv` by a
//!   divisor made safe (`d + (d==0) + 2*(d==-1)`, so 0 and -1 become 1),
//!   whose quotient is negated when the divisor was -1 and cleared when
//!   it was 0. A divisor whose type rules out both needs none of that
//!   (selection picked the plain `Div`).
//! - Sign- and zero-extensions from 8, 16 and 32 bits are single
//!   instructions (`movsx`, `movzx`, `movsxd`, `mov r32`); so are loads
//!   of every size, sign- or zero-extending.
//! - Every constant fits an instruction: `mov r32, imm32` (sign-extended)
//!   or `movabs r64, imm64`.
//! - `new` calls the C allocator, `calloc(1, size)`.

use super::select::cond_of;
use crate::graph::{Graph, NodeId};
use crate::mach::legalize::{Action, RuleSet, Rules};
use crate::mach::{add_mach, mach, Cond, Cpu, LType, Mach, Op};
use crate::node::{BoolOp, NodeKind};
use crate::types::Types;
use LType::{Ptr, F32, F64, S16, S32, S64, S8};

/// Every comparison condition, for rule groups over all of them.
pub fn all_conds(op: fn(Cond) -> Op) -> Vec<Op> {
    [
        Cond::Eq,
        Cond::Ne,
        Cond::Lt,
        Cond::Le,
        Cond::Gt,
        Cond::Ge,
        Cond::ULt,
        Cond::ULe,
        Cond::UGt,
        Cond::UGe,
    ]
    .into_iter()
    .map(op)
    .collect()
}

fn group(ops: Vec<Op>) -> RuleSet {
    RuleSet::of(&ops)
}

/// x86's rules, group by group.
pub fn rules() -> Rules {
    use Op::*;
    let mut sets = vec![
        RuleSet::of(&[
            Add, AddI, Sub, Mul, MulI, Div, Neg, And, AndI, Or, OrI, Xor, XorI, Shl, ShlI, Sar,
            SarI, Shr, ShrI, Lea,
        ])
        .legal_for(&[S64, Ptr]),
        RuleSet::of(&[DivTotal]).custom(),
        RuleSet::of(&[SExt, ZExt]).legal_for_pairs(&[(S64, S8), (S64, S16), (S64, S32)]),
        RuleSet::of(&[Trunc, AnyExt]).always_legal(),
        RuleSet::of(&[Int]).legal_for(&[S8, S16, S32, S64, Ptr]),
        RuleSet::of(&[Flt]).legal_for(&[F64]),
        RuleSet::of(&[FunAddr]).legal_for(&[Ptr]),
        RuleSet::of(&[Cmp, CmpI, FCmp]).always_legal(),
        RuleSet::of(&[FAdd, FSub, FMul, FDiv, FNeg]).legal_for(&[F64]),
        RuleSet::of(&[I2F]).legal_for_pairs(&[(F64, S64)]),
        RuleSet::of(&[FTrunc]).legal_for_pairs(&[(F32, F64)]),
        RuleSet::of(&[FExt]).legal_for_pairs(&[(F64, F32)]),
        RuleSet::of(&[Load, Store, StoreI]).legal_for_mem(&[
            (S64, 1),
            (S64, 2),
            (S64, 4),
            (S64, 8),
            (Ptr, 8),
            (F64, 8),
            (F32, 4),
        ]),
        RuleSet::of(&[AddMem, CmpMem]).legal_for_mem(&[(S64, 8), (Ptr, 8)]),
        RuleSet::of(&[Call, CallR, Ret, Parm]).always_legal(),
        RuleSet::of(&[New]).libcall("calloc"),
        RuleSet::of(&[Lui, MovK, FAddMem, MemAdd, Fun, Proj, CallEnd]).unsupported(),
    ];
    sets.push(group(all_conds(CmpSet)).lower());
    sets.push(group(all_conds(CmpSetI)).lower());
    sets.push(group(all_conds(FCmpSet)).lower());
    sets.push(group(all_conds(Branch)).lower());
    sets.push(group(all_conds(Jcc)).always_legal());
    // `setcc` makes a truth value; the same instruction widens it.
    sets.push(group(all_conds(Set)).widen_scalar(0, S64).legal_for(&[S64]));
    Rules {
        cpu: Cpu::X86_64,
        sets,
        rewrite,
    }
}

/// The rewrites x86's rules ask for: comparisons and branches through the
/// flags, and the total division.
fn rewrite(g: &mut Graph, n: NodeId, _action: Action) -> Result<NodeId, String> {
    let m = mach(g, n).expect("a machine node").clone();
    match m.op {
        Op::CmpSet(cond) | Op::CmpSetI(cond) => {
            let flags = compare(g, n, &m);
            let set = Mach::new(m.role.clone(), Op::Set(cond), LType::S1);
            Ok(add_mach(g, set, &[None, Some(flags)], g.ty(n)))
        }
        Op::FCmpSet(cond) => {
            let (flags, cond) = float_compare(g, n, cond, 1);
            let set = Mach::new(m.role.clone(), Op::Set(cond), LType::S1);
            Ok(add_mach(g, set, &[None, Some(flags)], g.ty(n)))
        }
        Op::Branch(cond) => {
            let (flags, cond) = if m.ty[1].is_float() {
                float_compare(g, n, cond, 1)
            } else {
                (compare(g, n, &m), cond)
            };
            let jcc = Mach::new(m.role.clone(), Op::Jcc(cond), LType::S64);
            let ctrl = g.input(n, 0);
            Ok(add_mach(g, jcc, &[ctrl, Some(flags)], g.ty(n)))
        }
        Op::DivTotal => Ok(total_division(g, n, &m)),
        op => Err(format!("x86_64_v2 has no rewrite for {op:?}")),
    }
}

/// The `cmp` of comparison (or compare-and-branch) `n`: its operands are
/// inputs 1 and 2, or input 1 and the immediate when input 2 is absent.
fn compare(g: &mut Graph, n: NodeId, m: &Mach) -> NodeId {
    let a = g.input(n, 1);
    let b = g.input(n, 2);
    // A comparison, whatever `n` was (a branch is control; its `cmp` is a
    // value that global code motion places).
    let role = NodeKind::Bool(BoolOp::Eq);
    match b {
        Some(b) => {
            let c = Mach::new(role, Op::Cmp, LType::S64).with_src(m.ty[1]);
            add_mach(g, c, &[None, a, Some(b)], Types::BOTTOM)
        }
        None => {
            let c = Mach::new(role, Op::CmpI, LType::S64)
                .with_src(m.ty[1])
                .with_imm(m.imm);
            add_mach(g, c, &[None, a], Types::BOTTOM)
        }
    }
}

/// The `ucomisd` of float comparison `a cond b` (inputs `first` and
/// `first + 1` of `n`), and the condition to test on its flags so that
/// NaN answers false: `<` and `<=` compare the other way round and ask
/// "above" (unsigned), which unordered never is.
fn float_compare(g: &mut Graph, n: NodeId, cond: Cond, first: usize) -> (NodeId, Cond) {
    let (a, b) = (g.input(n, first), g.input(n, first + 1));
    let (x, y, cond) = match cond {
        Cond::Lt => (b, a, Cond::UGt),
        Cond::Le => (b, a, Cond::UGe),
        Cond::Gt => (a, b, Cond::UGt),
        Cond::Ge => (a, b, Cond::UGe),
        c => (a, b, c),
    };
    let c = Mach::new(NodeKind::BoolF(BoolOp::Eq), Op::FCmp, LType::S64).with_src(LType::F64);
    (add_mach(g, c, &[None, x, y], Types::BOTTOM), cond)
}

/// `x / d` as the language means it, around `idiv`'s traps (see the
/// module's documentation).
fn total_division(g: &mut Graph, n: NodeId, m: &Mach) -> NodeId {
    let (x, d) = (g.input(n, 1), g.input(n, 2));
    let role = m.role.clone();
    let bot = Types::BOTTOM;
    let op = |g: &mut Graph, op: Op, imm: i64, ins: &[Option<NodeId>]| {
        let m = Mach::new(role.clone(), op, LType::S64).with_imm(imm);
        add_mach(g, m, ins, bot)
    };
    let test = |g: &mut Graph, value: i64| {
        let m = Mach::new(role.clone(), Op::CmpSetI(Cond::Eq), LType::S1)
            .with_src(LType::S64)
            .with_imm(value);
        add_mach(g, m, &[None, d], bot)
    };
    let zero = test(g, 0);
    let minus_one = test(g, -1);
    let twice = op(g, Op::ShlI, 1, &[None, Some(minus_one)]);
    let a = op(g, Op::Add, 0, &[None, d, Some(zero)]);
    let safe = op(g, Op::Add, 0, &[None, Some(a), Some(twice)]);
    let q = op(g, Op::Div, 0, &[None, x, Some(safe)]);
    // 1 - 2*(d == -1): 1, or -1 to negate.
    let neg = op(g, Op::Neg, 0, &[None, Some(twice)]);
    let sign = op(g, Op::AddI, 1, &[None, Some(neg)]);
    let signed = op(g, Op::Mul, 0, &[None, Some(q), Some(sign)]);
    // (d == 0) - 1: all ones, or 0 to clear.
    let mask = op(g, Op::AddI, -1, &[None, Some(zero)]);
    let result = Mach::new(role.clone(), Op::And, LType::S64);
    add_mach(g, result, &[None, Some(signed), Some(mask)], g.ty(n))
}

/// The ideal comparison operator as x86's condition (for tests).
pub fn condition(op: BoolOp) -> Cond {
    cond_of(op)
}
