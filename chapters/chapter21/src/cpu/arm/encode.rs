//! AArch64's encoder: which instruction of the [`isa`] crate each machine
//! operation is, once its registers are known.
//!
//! ARM is three-address, so nearly every operation is one instruction
//! whatever registers the allocator chose; the shape of this file comes
//! from the few places where the fixed 32-bit word is too small:
//!
//! - **Stack offsets.** A load or store reaches `sp + 8 * 4095` (scaled
//!   12 bits), and `add`/`sub sp` take 12 bits, optionally shifted by 12.
//!   A larger frame is adjusted in two steps (`#hi, lsl #12`, then
//!   `#lo`), and a slot out of reach is addressed through the scratch
//!   register `x16` (`add x16, sp, #hi, lsl #12`, then `[x16, #lo]`),
//!   which the allocator never gives a value. Offsets are split, never
//!   masked: what two steps cannot reach is an error.
//! - **Copies between stack slots** go through `x16`. When a slot is out
//!   of direct reach, `x16` is needed for its address as well, so `x17`
//!   is saved below the stack pointer (`stp`, pre-indexed), lent for the
//!   address, and restored.
//! - **Float constants.** `+0.0` is `fmov d, xzr`; a double whose bits
//!   one or two `movz`/`movn`/`movk` make (1.0, 2.5, -4.0: most short
//!   fractions) is built in `x16` and moved over with `fmov`, with no
//!   memory access and no relocation; any other comes from `.rodata`
//!   (`adrp x16`; `add x16, x16, :lo12:`; `ldr d`), which the linker
//!   relocates.
//! - **Floats at an index.** The `isa` crate has no register-offset form
//!   of the float loads and stores, so `base + (index << scale)` is
//!   computed in `x16` first.
//! - **Conditions.** After `fcmp`, whose unordered result sets C and V,
//!   the language's float comparisons read as `mi`, `ls`, `gt`, `ge`
//!   (false on a NaN), `eq`, and `ne` (true on a NaN); see `ops.rs`. A
//!   branch is inverted by inverting its condition code, which negates it
//!   exactly, NaN included (`mi` becomes `pl`, "less" becomes "not
//!   less").
//! - **Branches.** `b.cond` reaches ±1 MiB; out of reach, it becomes the
//!   inverted `b.cond` over a `b` (±128 MiB).
//!
//! Division needs nothing: `sdiv` gives 0 for `x / 0` and `MIN` for
//! `MIN / -1`, as the language does, and the register shifts take their
//! count modulo 64, as the language does. `new` calls `calloc(1, size)`
//! with the size already in `x1`. Every function returns with
//! `ret x30`, after the epilogue has reloaded `x30` if a call changed it.

use crate::encode::{AnyInst, Cond, Emit, Ref};
use crate::error::Error;
use crate::graph::NodeId;
use crate::mach::{mach, Cond as MCond, LType, Mach, Op};
use crate::regalloc::Loc;
use isa::arm64::{
    self, AddSub, Cond as ACond, FOp, FReg, FUnary, Inst, LdSt, Logic, PairMode, Prec, Reg, Shift,
    Size,
};

fn bad(what: String) -> Error {
    Error::new(format!("internal error in AArch64 encoding: {what}"), 0)
}

fn isa_err(e: isa::EncodeError) -> Error {
    bad(e.to_string())
}

/// The scratch register of copies and far addresses (never allocated).
fn x16() -> Result<Reg, Error> {
    gpr(crate::cpu::SCRATCH_ARM)
}

/// The register lent for an address when `x16` holds data (saved and
/// restored around its use).
fn x17() -> Result<Reg, Error> {
    gpr(17)
}

/// A general register by its number: `x0`-`x30`, and 31 the stack pointer
/// (which only an address's base or an `add` may be; the `isa` crate
/// refuses it elsewhere).
fn gpr(r: u8) -> Result<Reg, Error> {
    match r {
        31 => Ok(Reg::SP),
        _ => Reg::x(r).ok_or_else(|| bad(format!("register {r} is no general register"))),
    }
}

/// A float register by its number in the allocator's numbering (32 to 63).
fn fpr(r: u8) -> Result<FReg, Error> {
    r.checked_sub(32)
        .and_then(FReg::new)
        .ok_or_else(|| bad(format!("register {r} is no float register")))
}

fn is_float_reg(r: u8) -> bool {
    (32..64).contains(&r)
}

fn prec(t: LType) -> Prec {
    if t == LType::F32 {
        Prec::F32
    } else {
        Prec::F64
    }
}

/// The condition code that reads comparison `c` from the flags of a `cmp`
/// (`float` false) or an `fcmp` (see the module's documentation).
fn cc(c: MCond, float: bool) -> ACond {
    use MCond::*;
    match (c, float) {
        (Eq, _) => ACond::Eq,
        (Ne, _) => ACond::Ne,
        (Gt, _) => ACond::Gt,
        (Ge, _) => ACond::Ge,
        (Lt, false) => ACond::Lt,
        (Le, false) => ACond::Le,
        (ULt, false) => ACond::Lo,
        (ULe, false) => ACond::Ls,
        (UGt, false) => ACond::Hi,
        (UGe, false) => ACond::Hs,
        (Lt, true) => ACond::Mi,
        (Le, true) => ACond::Ls,
        (ULt, true) => ACond::Lt,
        (ULe, true) => ACond::Le,
        (UGt, true) => ACond::Hi,
        (UGe, true) => ACond::Pl,
    }
}

/// Whether the flags node `flags` is a float comparison (`fcmp`).
fn float_flags(e: &Emit, flags: Option<NodeId>) -> bool {
    flags.is_some_and(|f| mach(e.g, f).is_some_and(|m| m.op == Op::FCmp))
}

/// `(imm12, lsl12)` of an `add`/`sub` immediate `v` >= 0.
fn arith_imm(v: u64) -> Option<(u16, bool)> {
    if v < 4096 {
        Some((v as u16, false))
    } else if v & 0xFFF == 0 && v >> 12 < 4096 {
        Some(((v >> 12) as u16, true))
    } else {
        None
    }
}

/// `add`/`sub` (`op`) of `value` to `rn` into `rd`, in as many
/// instructions as it takes (one or two; more is an error). Either may be
/// the stack pointer.
fn add_sub_imm(out: &mut Vec<Inst>, op: AddSub, rd: Reg, rn: Reg, value: u64) -> Result<(), Error> {
    let (hi, lo) = (value >> 12, value & 0xFFF);
    if hi >= 4096 {
        return Err(bad(format!("{value} is too large for two add immediates")));
    }
    let mut from = rn;
    if hi > 0 {
        out.push(Inst::AluRI {
            op,
            flags: false,
            size: Size::S64,
            rd,
            rn: from,
            imm12: hi as u16,
            lsl12: true,
        });
        from = rd;
    }
    if lo > 0 || from != rd {
        out.push(Inst::AluRI {
            op,
            flags: false,
            size: Size::S64,
            rd,
            rn: from,
            imm12: lo as u16,
            lsl12: false,
        });
    }
    Ok(())
}

/// Appends the instructions of `seq` (built apart so that it can be
/// tested apart).
fn put(e: &mut Emit, seq: Vec<Inst>) {
    for i in seq {
        e.inst(i);
    }
}

/// A data register of an 8-byte stack access: general or float.
#[derive(Clone, Copy)]
enum Data {
    X(Reg),
    D(FReg),
}

impl Data {
    fn of(r: u8) -> Result<Data, Error> {
        if is_float_reg(r) {
            Ok(Data::D(fpr(r)?))
        } else {
            Ok(Data::X(gpr(r)?))
        }
    }
}

/// The 8-byte load or store of `data` at `[base, #off]`, `off` a multiple
/// of 8 in reach of the scaled form.
fn access8(load: bool, data: Data, base: Reg, off: i64) -> Inst {
    let offset = off as i32;
    match data {
        Data::X(rt) => Inst::Mem {
            op: if load { LdSt::LdrX } else { LdSt::StrX },
            rt,
            rn: base,
            offset,
        },
        Data::D(rt) => Inst::FMem {
            load,
            prec: Prec::F64,
            rt,
            rn: base,
            offset,
        },
    }
}

/// Whether an 8-byte access at `sp + off` is one instruction.
fn near(off: i64) -> bool {
    (0..8 * 4096).contains(&off) && off % 8 == 0
}

/// The 8-byte load or store of `data` at `sp + off`, through `addr` (a
/// register free to hold an address) when `off` is out of direct reach.
fn stack_access(
    out: &mut Vec<Inst>,
    load: bool,
    data: Data,
    off: i64,
    addr: Reg,
) -> Result<(), Error> {
    if near(off) {
        out.push(access8(load, data, Reg::SP, off));
        return Ok(());
    }
    if off < 0 || off % 8 != 0 || off >> 12 >= 4096 {
        return Err(bad(format!("stack offset {off} is out of reach")));
    }
    // `addr = sp + hi << 12`, then the low 12 bits in the instruction.
    add_sub_imm(out, AddSub::Add, addr, Reg::SP, (off as u64) & !0xFFF)?;
    out.push(access8(load, data, addr, off & 0xFFF));
    Ok(())
}

/// The copy of the 8 bytes at `sp + soff` to `sp + doff`.
fn stack_copy(doff: i64, soff: i64) -> Result<Vec<Inst>, Error> {
    let (x16, x17) = (x16()?, x17()?);
    let mut out = Vec::new();
    if near(doff) && near(soff) {
        out.push(access8(true, Data::X(x16), Reg::SP, soff));
        out.push(access8(false, Data::X(x16), Reg::SP, doff));
        return Ok(out);
    }
    // x16 carries the value, x17 (saved below the frame, which moves the
    // slots 16 bytes up) the far addresses.
    out.push(Inst::Pair {
        load: false,
        mode: PairMode::PreIndex,
        rt: x17,
        rt2: x17,
        rn: Reg::SP,
        offset: -16,
    });
    stack_access(&mut out, true, Data::X(x16), soff + 16, x17)?;
    stack_access(&mut out, false, Data::X(x16), doff + 16, x17)?;
    out.push(Inst::Pair {
        load: true,
        mode: PairMode::PostIndex,
        rt: x17,
        rt2: Reg::XZR,
        rn: Reg::SP,
        offset: 16,
    });
    Ok(out)
}

/// Moves the stack pointer down (`grow`) or up by `size` bytes.
fn sp_adjust(grow: bool, size: u32) -> Result<Vec<Inst>, Error> {
    let mut out = Vec::new();
    let op = if grow { AddSub::Sub } else { AddSub::Add };
    if size > 0 {
        add_sub_imm(&mut out, op, Reg::SP, Reg::SP, u64::from(size))?;
    }
    Ok(out)
}

/// The prologue: make the frame, then save the link register (if the
/// function calls) and the callee-saved registers it uses.
pub fn prologue(e: &mut Emit) -> Result<(), Error> {
    let frame = e.frame;
    let mut out = sp_adjust(true, frame.size)?;
    for &(r, o) in &frame.stored {
        stack_access(&mut out, false, Data::of(r)?, i64::from(o), x16()?)?;
    }
    put(e, out);
    Ok(())
}

/// The epilogue, before each `ret`: the prologue undone.
fn epilogue(e: &mut Emit) -> Result<(), Error> {
    let frame = e.frame;
    let mut out = Vec::new();
    for &(r, o) in &frame.stored {
        stack_access(&mut out, true, Data::of(r)?, i64::from(o), x16()?)?;
    }
    out.extend(sp_adjust(false, frame.size)?);
    put(e, out);
    Ok(())
}

/// A copy of a value between registers and stack slots.
pub fn copy(e: &mut Emit, dst: Loc, src: Loc, float: bool) -> Result<(), Error> {
    let _ = float; // the registers say which bank
    let mut out = Vec::new();
    match (dst, src) {
        (Loc::Reg(d), Loc::Reg(s)) => {
            let inst = match (is_float_reg(d), is_float_reg(s)) {
                (true, true) => Inst::FUnary {
                    op: FUnary::Mov,
                    prec: Prec::F64,
                    rd: fpr(d)?,
                    rn: fpr(s)?,
                },
                // Between banks only as bits (no such copies are made
                // today; be exact if one is).
                (true, false) => Inst::FmovToF {
                    prec: Prec::F64,
                    rd: fpr(d)?,
                    rn: gpr(s)?,
                },
                (false, true) => Inst::FmovFromF {
                    prec: Prec::F64,
                    rd: gpr(d)?,
                    rn: fpr(s)?,
                },
                (false, false) => Inst::Mov {
                    size: Size::S64,
                    rd: gpr(d)?,
                    rn: gpr(s)?,
                },
            };
            out.push(inst);
        }
        (Loc::Reg(d), s) => {
            let off = e.stack_offset(s);
            stack_access(&mut out, true, Data::of(d)?, off, x16()?)?;
        }
        (d, Loc::Reg(s)) => {
            let off = e.stack_offset(d);
            stack_access(&mut out, false, Data::of(s)?, off, x16()?)?;
        }
        (d, s) => out = stack_copy(e.stack_offset(d), e.stack_offset(s))?,
    }
    put(e, out);
    Ok(())
}

/// A branch by `disp` bytes from its first byte: `b` or `b.cond` when
/// short; when long, `b.cond` inverted over a `b`.
pub fn branch(c: Cond, disp: i64, long: bool) -> Option<Vec<AnyInst>> {
    let reach = |offset: i64, bits: u32| {
        let half = 1i64 << (bits + 1);
        (offset % 4 == 0 && (-half..half).contains(&offset)).then_some(offset as i32)
    };
    let insts = match (c, long) {
        (Cond::Always, _) => vec![Inst::B {
            offset: reach(disp, 26)?,
        }],
        (Cond::Arm(cond), false) => vec![Inst::BCond {
            cond,
            offset: reach(disp, 19)?,
        }],
        (Cond::Arm(cond), true) => vec![
            // Over the `b` when the condition does not hold.
            Inst::BCond {
                cond: cond.invert(),
                offset: 8,
            },
            Inst::B {
                offset: reach(disp - 4, 26)?,
            },
        ],
        _ => return None,
    };
    Some(insts.into_iter().map(AnyInst::Arm).collect())
}

/// Filler between functions: `udf #0` (all zeros), which stops a run that
/// strays there. Functions are 4-byte aligned, so no partial words.
pub fn pad(code: &mut Vec<u8>, n: usize) {
    code.resize(code.len() + n, 0);
}

/// `op rd, rn, rm` of three general registers.
fn regs3(e: &Emit, n: NodeId) -> Result<(Reg, Reg, Reg), Error> {
    Ok((
        gpr(e.reg(n)?)?,
        gpr(e.in_reg(n, 1)?)?,
        gpr(e.in_reg(n, 2)?)?,
    ))
}

fn regs2(e: &Emit, n: NodeId) -> Result<(Reg, Reg), Error> {
    Ok((gpr(e.reg(n)?)?, gpr(e.in_reg(n, 1)?)?))
}

fn fregs3(e: &Emit, n: NodeId) -> Result<(FReg, FReg, FReg), Error> {
    Ok((
        fpr(e.reg(n)?)?,
        fpr(e.in_reg(n, 1)?)?,
        fpr(e.in_reg(n, 2)?)?,
    ))
}

fn fregs2(e: &Emit, n: NodeId) -> Result<(FReg, FReg), Error> {
    Ok((fpr(e.reg(n)?)?, fpr(e.in_reg(n, 1)?)?))
}

/// The instructions of machine node `n`.
pub fn emit(e: &mut Emit, n: NodeId, m: &Mach) -> Result<(), Error> {
    use Op::*;
    let size = Size::S64;
    match m.op {
        Add | Sub => {
            let (rd, rn, rm) = regs3(e, n)?;
            let op = if m.op == Add {
                AddSub::Add
            } else {
                AddSub::Sub
            };
            e.inst(Inst::AluRR {
                op,
                flags: false,
                size,
                rd,
                rn,
                rm,
            });
        }
        And | Or | Xor => {
            let (rd, rn, rm) = regs3(e, n)?;
            e.inst(Inst::LogicRR {
                op: logic(m.op),
                size,
                rd,
                rn,
                rm,
            });
        }
        Mul => {
            let (rd, rn, rm) = regs3(e, n)?;
            e.inst(Inst::MulAdd {
                sub: false,
                size,
                rd,
                rn,
                rm,
                ra: Reg::XZR,
            });
        }
        // `sdiv` is already total (see the module's documentation).
        Div | DivTotal => {
            let (rd, rn, rm) = regs3(e, n)?;
            e.inst(Inst::Div {
                signed: true,
                size,
                rd,
                rn,
                rm,
            });
        }
        // The register forms take the count modulo 64.
        Shl | Sar | Shr => {
            let (rd, rn, rm) = regs3(e, n)?;
            e.inst(Inst::ShiftRR {
                op: shift(m.op),
                size,
                rd,
                rn,
                rm,
            });
        }
        ShlI | SarI | ShrI => {
            let (rd, rn) = regs2(e, n)?;
            e.inst(Inst::ShiftRI {
                op: shift(m.op),
                size,
                rd,
                rn,
                amount: (m.imm & 63) as u8,
            });
        }
        AddI => {
            let (rd, rn) = regs2(e, n)?;
            let (op, mag) = if m.imm < 0 {
                (AddSub::Sub, m.imm.unsigned_abs())
            } else {
                (AddSub::Add, m.imm as u64)
            };
            let (imm12, lsl12) =
                arith_imm(mag).ok_or_else(|| bad(format!("add of {} has no form", m.imm)))?;
            e.inst(Inst::AluRI {
                op,
                flags: false,
                size,
                rd,
                rn,
                imm12,
                lsl12,
            });
        }
        AndI | OrI | XorI => {
            let (rd, rn) = regs2(e, n)?;
            e.inst(Inst::LogicRI {
                op: logic(m.op),
                size,
                rd,
                rn,
                imm: m.imm as u64,
            });
        }
        Neg => {
            let (rd, rm) = regs2(e, n)?;
            e.inst(Inst::AluRR {
                op: AddSub::Sub,
                flags: false,
                size,
                rd,
                rn: Reg::XZR,
                rm,
            });
        }
        SExt => {
            let (rd, rn) = regs2(e, n)?;
            match m.ty[1].bits() {
                from_bits @ (8 | 16 | 32) => e.inst(Inst::Extend {
                    signed: true,
                    from_bits: from_bits as u8,
                    rd,
                    rn,
                }),
                // A truth value, 0 or 1, is 0 or -1 sign-extended.
                _ => e.inst(Inst::AluRR {
                    op: AddSub::Sub,
                    flags: false,
                    size,
                    rd,
                    rn: Reg::XZR,
                    rm: rn,
                }),
            }
        }
        ZExt => {
            let (rd, rn) = regs2(e, n)?;
            match m.ty[1].bits() {
                from_bits @ (8 | 16) => e.inst(Inst::Extend {
                    signed: false,
                    from_bits: from_bits as u8,
                    rd,
                    rn,
                }),
                // A 32-bit move clears the upper half.
                32 => e.inst(Inst::Mov {
                    size: Size::S32,
                    rd,
                    rn,
                }),
                // A truth value is already 0 or 1.
                _ if rd != rn => e.inst(Inst::Mov { size, rd, rn }),
                _ => {}
            }
        }
        // The bits stay as they are: a copy if the value moved.
        Trunc | AnyExt => {
            let src =
                e.g.input(n, 1)
                    .ok_or_else(|| bad(format!("node {} has no input", n.nid())))?;
            let (d, a) = (e.loc(n)?, e.loc(src)?);
            if d != a {
                copy(e, d, a, m.ty[0].is_float())?;
            }
        }
        Int => {
            let rd = gpr(e.reg(n)?)?;
            for i in arm64::load_const(rd, m.imm as u64) {
                e.inst(i);
            }
        }
        MovK => {
            let (rd, rn) = regs2(e, n)?;
            let imm16 = u16::try_from(m.imm)
                .map_err(|_| bad(format!("movk of {:#x}: not 16 bits", m.imm)))?;
            if !matches!(m.scale, 0 | 16 | 32 | 48) {
                return Err(bad(format!("movk shifted by {}", m.scale)));
            }
            // Two-address: the allocator put the result where the input
            // is; copy if it did not.
            if rd != rn {
                e.inst(Inst::Mov { size, rd, rn });
            }
            e.inst(Inst::Movk {
                size,
                rd,
                imm16,
                hw: m.scale / 16,
            });
        }
        Flt => float_constant(e, n, m)?,
        FunAddr => {
            let f = e.fun(e.g.ty(n))?;
            e.inst_ref(
                Inst::Adr {
                    rd: gpr(e.reg(n)?)?,
                    offset: 0,
                },
                Ref::Fun(f),
            );
        }
        Cmp => {
            let (rn, rm) = (gpr(e.in_reg(n, 1)?)?, gpr(e.in_reg(n, 2)?)?);
            e.inst(Inst::AluRR {
                op: AddSub::Sub,
                flags: true,
                size,
                rd: Reg::XZR,
                rn,
                rm,
            });
        }
        CmpI => {
            let rn = gpr(e.in_reg(n, 1)?)?;
            // `cmp rn, #k`, or `cmn rn, #-k` for a negative k (the same
            // flags, carry included, for every k but 0, which is `cmp`).
            let (op, mag) = if m.imm < 0 {
                (AddSub::Add, m.imm.unsigned_abs())
            } else {
                (AddSub::Sub, m.imm as u64)
            };
            let (imm12, lsl12) =
                arith_imm(mag).ok_or_else(|| bad(format!("cmp with {} has no form", m.imm)))?;
            e.inst(Inst::AluRI {
                op,
                flags: true,
                size,
                rd: Reg::XZR,
                rn,
                imm12,
                lsl12,
            });
        }
        FCmp => e.inst(Inst::Fcmp {
            prec: prec(m.ty[1]),
            rn: fpr(e.in_reg(n, 1)?)?,
            rm: fpr(e.in_reg(n, 2)?)?,
        }),
        Set(c) => {
            let float = float_flags(e, e.g.input(n, 1));
            e.inst(Inst::Cset {
                size,
                rd: gpr(e.reg(n)?)?,
                cond: cc(c, float),
            });
        }
        FAdd | FSub | FMul | FDiv => {
            let (rd, rn, rm) = fregs3(e, n)?;
            let op = match m.op {
                FAdd => FOp::Add,
                FSub => FOp::Sub,
                FMul => FOp::Mul,
                _ => FOp::Div,
            };
            e.inst(Inst::FArith {
                op,
                prec: prec(m.ty[0]),
                rd,
                rn,
                rm,
            });
        }
        FNeg => {
            let (rd, rn) = fregs2(e, n)?;
            e.inst(Inst::FUnary {
                op: FUnary::Neg,
                prec: prec(m.ty[0]),
                rd,
                rn,
            });
        }
        I2F => e.inst(Inst::Scvtf {
            prec: prec(m.ty[0]),
            size,
            rd: fpr(e.reg(n)?)?,
            rn: gpr(e.in_reg(n, 1)?)?,
        }),
        FTrunc | FExt => {
            let (rd, rn) = fregs2(e, n)?;
            let to = if m.op == FTrunc { Prec::F32 } else { Prec::F64 };
            e.inst(Inst::Fcvt { to, rd, rn });
        }
        Load => {
            let r = e.reg(n)?;
            let data = if m.ty[0].is_float() {
                MemData::F(fpr(r)?, prec(m.ty[0]))
            } else {
                MemData::X(gpr(r)?, load_op(m)?)
            };
            memory(e, n, m, 3, true, data)?;
        }
        Store => {
            let r = e.in_reg(n, 3)?;
            let data = if is_float_reg(r) {
                let p = if m.mem_size == 4 {
                    Prec::F32
                } else {
                    Prec::F64
                };
                MemData::F(fpr(r)?, p)
            } else {
                MemData::X(gpr(r)?, store_op(m.mem_size)?)
            };
            memory(e, n, m, 4, false, data)?;
        }
        Jcc(c) => {
            let (taken, not_taken) = e.arms(n)?;
            let float = float_flags(e, e.g.input(n, 1));
            e.branch(Cond::Arm(cc(c, float)), taken, not_taken);
        }
        Call => {
            let f = e.callee(n, m)?;
            e.inst_ref(Inst::Bl { offset: 0 }, Ref::Fun(f));
        }
        CallR => {
            let target =
                e.g.inputs(n)
                    .last()
                    .copied()
                    .flatten()
                    .ok_or_else(|| bad("an indirect call without a target".into()))?;
            e.inst(Inst::Blr {
                rn: gpr(e.reg(target)?)?,
            });
        }
        Ret => {
            epilogue(e)?;
            e.inst(Inst::Ret { rn: Reg::LR });
        }
        New => {
            // calloc(1, size): the size is in x1 already.
            e.inst(Inst::Movz {
                size,
                rd: gpr(super::X0)?,
                imm16: 1,
                hw: 0,
            });
            e.inst_ref(Inst::Bl { offset: 0 }, Ref::External("calloc"));
        }
        Parm | Proj | CallEnd | Fun | Split => {}
        MulI | StoreI | Branch(_) | CmpSet(_) | CmpSetI(_) | FCmpSet(_) | Lea | Lui | AddMem
        | FAddMem | CmpMem | MemAdd => {
            return Err(bad(format!("{:?} is not an AArch64 operation", m.op)));
        }
    }
    Ok(())
}

fn logic(op: Op) -> Logic {
    match op {
        Op::And | Op::AndI => Logic::And,
        Op::Or | Op::OrI => Logic::Orr,
        _ => Logic::Eor,
    }
}

fn shift(op: Op) -> Shift {
    match op {
        Op::Shl | Op::ShlI => Shift::Lsl,
        Op::Sar | Op::SarI => Shift::Asr,
        _ => Shift::Lsr,
    }
}

/// A float constant into `d` (see the module's documentation).
fn float_constant(e: &mut Emit, n: NodeId, m: &Mach) -> Result<(), Error> {
    let rd = fpr(e.reg(n)?)?;
    let p = prec(m.ty[0]);
    let x16 = x16()?;
    let bits = match p {
        Prec::F32 => u64::from((f64::from_bits(m.imm as u64) as f32).to_bits()),
        Prec::F64 => m.imm as u64,
    };
    if bits == 0 {
        e.inst(Inst::FmovToF {
            prec: p,
            rd,
            rn: Reg::XZR,
        });
        return Ok(());
    }
    let moves = arm64::load_const(x16, bits);
    if moves.len() <= 2 {
        for i in moves {
            e.inst(i);
        }
        e.inst(Inst::FmovToF {
            prec: p,
            rd,
            rn: x16,
        });
        return Ok(());
    }
    let at = e.constant(bits);
    e.inst_ref(Inst::Adrp { rd: x16, offset: 0 }, Ref::Rodata(at));
    e.inst_ref(
        Inst::AddLo12 {
            rd: x16,
            rn: x16,
            offset: 0,
        },
        Ref::Rodata(at),
    );
    e.inst(Inst::FMem {
        load: true,
        prec: p,
        rt: rd,
        rn: x16,
        offset: 0,
    });
    Ok(())
}

/// The register a load or store moves, and how.
#[derive(Clone, Copy)]
enum MemData {
    X(Reg, LdSt),
    F(FReg, Prec),
}

fn load_op(m: &Mach) -> Result<LdSt, Error> {
    Ok(match (m.mem_size, m.signed) {
        (1, true) => LdSt::Ldrsb,
        (1, false) => LdSt::Ldrb,
        (2, true) => LdSt::Ldrsh,
        (2, false) => LdSt::Ldrh,
        (4, true) => LdSt::Ldrsw,
        (4, false) => LdSt::LdrW,
        (8, _) => LdSt::LdrX,
        (s, _) => return Err(bad(format!("a load of {s} bytes"))),
    })
}

fn store_op(size: u8) -> Result<LdSt, Error> {
    Ok(match size {
        1 => LdSt::Strb,
        2 => LdSt::Strh,
        4 => LdSt::StrW,
        8 => LdSt::StrX,
        s => return Err(bad(format!("a store of {s} bytes"))),
    })
}

/// The load or store of memory operation `n`: base in input 2, index
/// (if any) in input `idx_at` shifted by `m.scale`, else displacement
/// `m.imm`.
fn memory(
    e: &mut Emit,
    n: NodeId,
    m: &Mach,
    idx_at: usize,
    load: bool,
    data: MemData,
) -> Result<(), Error> {
    let base = gpr(e.in_reg(n, 2)?)?;
    let x16 = x16()?;
    let index = match e.g.input(n, idx_at) {
        Some(i) => Some(gpr(e.reg(i)?)?),
        None => None,
    };
    let bytes = match data {
        MemData::X(_, op) => op.bytes(),
        MemData::F(_, Prec::F32) => 4,
        MemData::F(_, Prec::F64) => 8,
    };
    if index.is_some() && m.imm != 0 {
        return Err(bad(
            "an address with both an index and a displacement".into()
        ));
    }
    if index.is_some() && m.scale != 0 && 1i64 << m.scale != bytes {
        return Err(bad(format!(
            "an index shifted by {} for {bytes} bytes",
            m.scale
        )));
    }
    let inst = match (data, index) {
        (MemData::X(rt, op), Some(rm)) => Inst::MemReg {
            op,
            rt,
            rn: base,
            rm,
            scaled: m.scale != 0,
        },
        (MemData::X(rt, op), None) => arm64::mem(op, rt, base, m.imm).map_err(isa_err)?,
        (MemData::F(rt, prec), Some(rm)) => {
            // No register-offset float form: the address in x16.
            let offset = if m.scale != 0 {
                e.inst(Inst::ShiftRI {
                    op: Shift::Lsl,
                    size: Size::S64,
                    rd: x16,
                    rn: rm,
                    amount: m.scale,
                });
                x16
            } else {
                rm
            };
            if base == Reg::SP {
                return Err(bad("a float access at sp plus an index".into()));
            }
            e.inst(Inst::AluRR {
                op: AddSub::Add,
                flags: false,
                size: Size::S64,
                rd: x16,
                rn: base,
                rm: offset,
            });
            Inst::FMem {
                load,
                prec,
                rt,
                rn: x16,
                offset: 0,
            }
        }
        (MemData::F(rt, prec), None) => {
            let off = m.imm;
            if off >= 0 && off % bytes == 0 && off / bytes < 4096 {
                Inst::FMem {
                    load,
                    prec,
                    rt,
                    rn: base,
                    offset: off as i32,
                }
            } else if (-256..256).contains(&off) {
                Inst::FMemUnscaled {
                    load,
                    prec,
                    rt,
                    rn: base,
                    offset: off as i32,
                }
            } else {
                return Err(bad(format!("float access at displacement {off}")));
            }
        }
    };
    e.inst(inst);
    Ok(())
}

#[cfg(all(test, feature = "emulate"))]
mod tests {
    //! The far forms of stack accesses, run: no program small enough for
    //! a test has a frame past 32 KiB.

    use super::*;
    use isa::emu::{Abi, Arg, Machine};

    fn r(n: u8) -> Reg {
        gpr(n).expect("a register")
    }

    /// A frame of 256 KiB + 16 bytes: both steps of `sub sp`. The value in
    /// `x0` goes to a far slot, is copied far to far and far to near (both
    /// lend `x17`), round-trips through a float register and a far slot,
    /// and is copied near to near. The result is twice the value, plus the
    /// `x17` it started with (kept), plus how far `sp` ended from where it
    /// started (nothing).
    #[test]
    fn far_stack_offsets_run() {
        const FRAME: u32 = 0x4_0010;
        let (far1, far2, far3) = (0x3_fff8, 0x8000, 0x2_0008);
        let d = |n: u8| fpr(32 + n).expect("a float register");
        let mut code = vec![
            Inst::Mov {
                size: Size::S64,
                rd: r(4),
                rn: Reg::SP,
            },
            Inst::Mov {
                size: Size::S64,
                rd: r(17),
                rn: r(2),
            },
        ];
        code.extend(sp_adjust(true, FRAME).unwrap());
        assert_eq!(code.len(), 4, "two steps");
        stack_access(&mut code, false, Data::X(r(0)), far1, r(16)).unwrap();
        code.extend(stack_copy(far2, far1).unwrap());
        code.extend(stack_copy(8, far2).unwrap());
        stack_access(&mut code, true, Data::X(r(1)), 8, r(16)).unwrap();
        code.push(Inst::FmovToF {
            prec: Prec::F64,
            rd: d(0),
            rn: r(1),
        });
        stack_access(&mut code, false, Data::D(d(0)), far3, r(16)).unwrap();
        stack_access(&mut code, true, Data::D(d(1)), far3, r(16)).unwrap();
        code.extend(stack_copy(16, 8).unwrap());
        stack_access(&mut code, true, Data::X(r(3)), 16, r(16)).unwrap();
        code.extend(sp_adjust(false, FRAME).unwrap());
        let add = |rd, rn, rm| Inst::AluRR {
            op: AddSub::Add,
            flags: false,
            size: Size::S64,
            rd,
            rn,
            rm,
        };
        code.extend([
            Inst::FmovFromF {
                prec: Prec::F64,
                rd: r(0),
                rn: d(1),
            },
            add(r(0), r(0), r(3)),
            add(r(0), r(0), r(17)),
            Inst::Mov {
                size: Size::S64,
                rd: r(5),
                rn: Reg::SP,
            },
            Inst::AluRR {
                op: AddSub::Sub,
                flags: false,
                size: Size::S64,
                rd: r(5),
                rn: r(5),
                rm: r(4),
            },
            add(r(0), r(0), r(5)),
            Inst::Ret { rn: Reg::LR },
        ]);
        let mut bytes = Vec::new();
        for i in &code {
            i.encode(&mut bytes).unwrap();
        }
        let mut m = Machine::new(isa::Isa::Aarch64, Abi::SystemV).unwrap();
        let base = m.load_code(&bytes).unwrap();
        for v in [0i64, 1, -5, 0x1234_5678_9abc_def0] {
            let out = m
                .call(base, &[Arg::Int(v), Arg::Int(0), Arg::Int(77)], 1000)
                .unwrap();
            assert_eq!(out.int(), v.wrapping_mul(2).wrapping_add(77), "{v}");
        }
    }

    #[test]
    fn out_of_reach_is_an_error() {
        assert!(sp_adjust(true, 1 << 24).is_err());
        assert!(sp_adjust(true, (1 << 24) - 1).is_ok());
        let mut out = Vec::new();
        let x0 = Data::X(r(0));
        assert!(stack_access(&mut out, true, x0, 1 << 24, r(16)).is_err());
        assert!(stack_access(&mut out, true, x0, -8, r(16)).is_err());
        assert!(stack_access(&mut out, true, x0, 12, r(16)).is_err());
        assert!(stack_access(&mut out, true, x0, (1 << 24) - 8, r(16)).is_ok());
    }
}
