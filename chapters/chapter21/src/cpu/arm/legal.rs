//! The legalizer's rules for AArch64, and the rewrites they ask for.
//!
//! What ARM decides differently from x86:
//!
//! - `sdiv` already means what the language means: `x / 0` is 0 and
//!   `MIN / -1` is `MIN` (ARM defines both, and traps on neither). The
//!   total division is legal as it stands, with no test of the divisor.
//! - A constant is built 16 bits at a time. One `movz` (16 bits in place,
//!   zeros around), `movn` (the same, inverted) or `orr` of a bitmask
//!   immediate makes many; the others take a `movz` or `movn` of one
//!   16-bit chunk and a `movk` for each chunk that differs from what that
//!   left. The rules see only a constant's width: 8 and 16 bits (signed)
//!   always fit one move, and are legal; a wider constant is custom, and
//!   the rewrite looks at its value: if one instruction makes it, it is
//!   retyped to the class of those (`s16`, which on ARM means "one move"),
//!   else it becomes a chain of `Int` (the first move, class `s16`) and
//!   `MovK`s.
//! - Float constants are legal (an `fmov` of its 8-bit immediate form, or
//!   a load from a literal pool, chapter 21's business).
//! - There is no multiply by an immediate: `MulI` is lowered to a
//!   constant and a `mul`. Nor any store of an immediate: `StoreI` is
//!   lowered to a constant and a store.
//! - Comparisons live in the flags (NZCV), as on x86. A comparison giving
//!   0 or 1 is lowered to `cmp` (or `fcmp` for floats) and `cset`; a
//!   branch to `cmp` and `b.cond`. `cset` writes the whole register, so
//!   its truth value is widened to 64 bits at no cost. An immediate that
//!   `cmp` (or `cmn`, for its negation) cannot take is put in a register.
//! - Float comparisons must be false when either side is NaN. After
//!   `fcmp`, an unordered result sets C and V and clears N and Z, so the
//!   conditions that read it right are `eq` for `==`, `mi` for `<`, `ls`
//!   for `<=`, `gt` for `>` and `ge` for `>=` (and `ne` for `!=`, true
//!   when unordered, as the negation of `==` is). The generic conditions
//!   stay on the nodes; the assembler picks these codes when the flags
//!   come from an `fcmp` (`ops.rs`).
//! - Sign- and zero-extensions from 8, 16 and 32 bits are single
//!   instructions (`sxtb`, `sxth`, `sxtw`, `uxtb`, `uxth`, `mov w`); so
//!   are loads of every size, sign- or zero-extending.
//! - `new` calls the C allocator, `calloc(1, size)`.
//! - x86's address arithmetic and memory operands, and RISC-V's `lui`,
//!   do not exist here.

use super::select::{add_imm, single_move};
use crate::graph::{Graph, NodeId};
use crate::mach::legalize::{Action, RuleSet, Rules};
use crate::mach::select::int_width;
use crate::mach::{add_mach, mach, Cond, Cpu, LType, Mach, Op};
use crate::node::{BoolOp, NodeKind};
use crate::types::Types;
use LType::{Ptr, F32, F64, S16, S32, S64, S8};

use crate::cpu::x86_64::legal::all_conds;

/// ARM's rules, group by group.
pub fn rules() -> Rules {
    use Op::*;
    let group = |ops: Vec<Op>| RuleSet::of(&ops);
    let mut sets = vec![
        RuleSet::of(&[
            Add, AddI, Sub, Mul, Div, DivTotal, Neg, And, AndI, Or, OrI, Xor, XorI, Shl, ShlI, Sar,
            SarI, Shr, ShrI,
        ])
        .legal_for(&[S64, Ptr]),
        RuleSet::of(&[MulI]).lower(),
        RuleSet::of(&[SExt, ZExt]).legal_for_pairs(&[(S64, S8), (S64, S16), (S64, S32)]),
        RuleSet::of(&[Trunc, AnyExt]).always_legal(),
        RuleSet::of(&[Int])
            .legal_for(&[S8, S16, Ptr])
            .custom_for(&[S32, S64]),
        RuleSet::of(&[MovK]).legal_for(&[S64]),
        RuleSet::of(&[Flt]).legal_for(&[F64]),
        RuleSet::of(&[FunAddr]).legal_for(&[Ptr]),
        RuleSet::of(&[Cmp, CmpI, FCmp]).always_legal(),
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
        RuleSet::of(&[StoreI]).lower(),
        RuleSet::of(&[Call, CallR, Ret, Parm]).always_legal(),
        RuleSet::of(&[New]).libcall("calloc"),
        RuleSet::of(&[
            Lea, Lui, AddMem, FAddMem, CmpMem, MemAdd, Fun, Proj, CallEnd,
        ])
        .unsupported(),
    ];
    sets.push(group(all_conds(CmpSet)).lower());
    sets.push(group(all_conds(CmpSetI)).lower());
    sets.push(group(all_conds(FCmpSet)).lower());
    sets.push(group(all_conds(Branch)).lower());
    sets.push(group(all_conds(Jcc)).always_legal());
    // `cset` writes the whole register.
    sets.push(group(all_conds(Set)).widen_scalar(0, S64).legal_for(&[S64]));
    Rules {
        cpu: Cpu::Arm,
        sets,
        rewrite,
    }
}

/// The rewrites ARM's rules ask for: constants, comparisons and branches
/// through the flags, and the immediates ARM has no instruction for.
fn rewrite(g: &mut Graph, n: NodeId, _action: Action) -> Result<NodeId, String> {
    let m = mach(g, n).expect("a machine node").clone();
    match m.op {
        Op::Int => Ok(constant(g, n, &m)),
        Op::CmpSet(cond) | Op::CmpSetI(cond) => {
            let flags = compare(g, n, &m);
            let set = Mach::new(m.role.clone(), Op::Set(cond), LType::S1);
            Ok(add_mach(g, set, &[None, Some(flags)], g.ty(n)))
        }
        Op::FCmpSet(cond) => {
            let flags = float_compare(g, n, &m);
            let set = Mach::new(m.role.clone(), Op::Set(cond), LType::S1);
            Ok(add_mach(g, set, &[None, Some(flags)], g.ty(n)))
        }
        Op::Branch(cond) => {
            let flags = if m.ty[1].is_float() {
                float_compare(g, n, &m)
            } else {
                compare(g, n, &m)
            };
            let jcc = Mach::new(m.role.clone(), Op::Jcc(cond), LType::S64);
            let ctrl = g.input(n, 0);
            Ok(add_mach(g, jcc, &[ctrl, Some(flags)], g.ty(n)))
        }
        Op::MulI => {
            let k = int(g, m.imm);
            let mul = Mach::new(m.role.clone(), Op::Mul, m.ty[0]);
            Ok(add_mach(g, mul, &[None, g.input(n, 1), Some(k)], g.ty(n)))
        }
        Op::StoreI => {
            let k = int(g, m.imm2);
            let mut st = m.clone();
            st.op = Op::Store;
            st.imm2 = 0;
            let ins: Vec<Option<NodeId>> = (0..g.n_ins(n).max(5))
                .map(|i| if i == 3 { Some(k) } else { g.input(n, i) })
                .collect();
            Ok(add_mach(g, st, &ins, g.ty(n)))
        }
        op => Err(format!("arm has no rewrite for {op:?}")),
    }
}

/// A constant `v` in a register, as a node of its own (legalized in
/// turn), whose type is its value.
fn int(g: &mut Graph, v: i64) -> NodeId {
    let t = g.types.int(v);
    let k = Mach::new(NodeKind::Constant(t), Op::Int, int_width(v)).with_imm(v);
    let start = g.start();
    add_mach(g, k, &[Some(start)], t)
}

/// An integer constant wider than 16 bits: retyped `s16` (one move) when
/// one instruction makes it; else the first move and a `movk` for each
/// other chunk that differs from what that move left (`movn` first, the
/// chunks of all ones left as they are, when those outnumber the chunks
/// of zeros).
fn constant(g: &mut Graph, n: NodeId, m: &Mach) -> NodeId {
    let v = m.imm;
    if single_move(v) {
        if let NodeKind::Mach(m) = g.kind_mut(n) {
            m.ty[0] = LType::S16;
        }
        return n;
    }
    let chunk = |i: u32| ((v as u64 >> (16 * i)) & 0xFFFF) as i64;
    let zeros = (0..4).filter(|&i| chunk(i) == 0).count();
    let ones = (0..4).filter(|&i| chunk(i) == 0xFFFF).count();
    let fill = if ones > zeros { 0xFFFF } else { 0 };
    let mut differ = (0..4).filter(|&i| chunk(i) != fill);
    let first = differ
        .next()
        .expect("a constant no single move makes has two chunks");
    // The first move: that chunk in place, the others all `fill`.
    let mut head = (chunk(first) as u64) << (16 * first);
    if fill != 0 {
        head |= !(0xFFFFu64 << (16 * first));
    }
    // Each node's type is the value it leaves in the register.
    let mut value = head as i64;
    let t = g.types.int(value);
    let k = Mach::new(NodeKind::Constant(t), Op::Int, LType::S16).with_imm(value);
    let ctrl = g.input(n, 0);
    let mut last = add_mach(g, k, &[ctrl], t);
    for i in differ {
        let shift = 16 * i;
        value = ((value as u64 & !(0xFFFFu64 << shift)) | ((chunk(i) as u64) << shift)) as i64;
        let t = g.types.int(value);
        let mut mk = Mach::new(m.role.clone(), Op::MovK, LType::S64).with_imm(chunk(i));
        mk.scale = shift as u8;
        last = add_mach(g, mk, &[None, Some(last)], t);
    }
    debug_assert_eq!(value, v, "the chain makes the constant");
    last
}

/// The `cmp` of comparison (or compare-and-branch) `n`: its operands are
/// inputs 1 and 2, or input 1 and the immediate when input 2 is absent
/// (an immediate `cmp`/`cmn` cannot take is put in a register).
fn compare(g: &mut Graph, n: NodeId, m: &Mach) -> NodeId {
    let a = g.input(n, 1);
    let role = flags_role(m, false);
    let b = match g.input(n, 2) {
        Some(b) => b,
        None if add_imm(m.imm) => {
            let c = Mach::new(role, Op::CmpI, LType::S64)
                .with_src(m.ty[1])
                .with_imm(m.imm);
            return add_mach(g, c, &[None, a], Types::BOTTOM);
        }
        None => int(g, m.imm),
    };
    let c = Mach::new(role, Op::Cmp, LType::S64).with_src(m.ty[1]);
    add_mach(g, c, &[None, a, Some(b)], Types::BOTTOM)
}

/// The role of the comparison made for `m`: `m`'s own when it stands for
/// a comparison; a comparison's when `m` is a branch (the If's role would
/// make global code motion take the `cmp` for control, and leave it out
/// of every block).
fn flags_role(m: &Mach, float: bool) -> NodeKind {
    let cond = match m.op {
        Op::Branch(c) => c,
        _ => return m.role.clone(),
    };
    let op = match cond {
        Cond::Eq | Cond::Ne => BoolOp::Eq,
        Cond::Lt | Cond::Gt | Cond::ULt | Cond::UGt => BoolOp::Lt,
        _ => BoolOp::Le,
    };
    if float {
        NodeKind::BoolF(op)
    } else {
        NodeKind::Bool(op)
    }
}

/// The `fcmp` of float comparison (or branch) `n`, of inputs 1 and 2.
/// The condition stays the language's: read after an `fcmp`, it means
/// the NaN-correct code (see the module's documentation).
fn float_compare(g: &mut Graph, n: NodeId, m: &Mach) -> NodeId {
    let (a, b) = (g.input(n, 1), g.input(n, 2));
    let c = Mach::new(flags_role(m, true), Op::FCmp, LType::S64).with_src(LType::F64);
    add_mach(g, c, &[None, a, b], Types::BOTTOM)
}
