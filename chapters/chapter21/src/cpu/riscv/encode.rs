//! RISC-V's encoder: which instruction of the [`isa`] crate each machine
//! operation is, once its registers are known (RV64G words only, never
//! the compressed forms, so every instruction is 4 bytes).
//!
//! Most operations are one instruction, three-register or register and
//! 12-bit immediate; an empty operand is the register `zero`. What takes
//! more, and why:
//!
//! - Nothing on RISC-V reaches further than 12 bits from a register, so
//!   a stack slot (or a frame size) beyond ±2 KiB is addressed through
//!   `t6`: the allocator never gives it out, and a float constant's load
//!   and a copy between two stack slots use it the same way. A copy
//!   from a stack slot into a far one needs a second scratch register:
//!   `ra`, in a function that calls (which has saved it); in one that
//!   makes no call, such a copy is refused with an error.
//! - A call of a function of the program is `auipc ra` + `jalr ra` with
//!   one fixup on the pair (`R_RISCV_CALL_PLT` when it is `calloc`): it
//!   reaches ±2 GiB, where `jal` would stop at ±1 MiB. A function's
//!   address is `auipc` + `addi` the same way.
//! - A float constant is `auipc t6` + `fld` from `.rodata` (two
//!   relocations, the load's naming the `auipc`), except +0.0, which is
//!   `fmv.d.x` of `zero` and needs no memory.
//! - A branch's short form is the B-type compare-and-branch (±4 KiB) and
//!   `jal zero` for a jump (±1 MiB). The long form of a conditional branch
//!   is the inverted branch over `auipc t6` + `jalr zero`, and of a jump
//!   that pair alone: it reaches ±2 GiB, so that no function is too large
//!   to encode, at the price of one more instruction than `jal` would take
//!   for the rare branch beyond 4 KiB.
//! - The prologue moves `sp` down by the frame's size and stores `ra` (if
//!   the function calls) and the callee-saved registers it writes; the
//!   epilogue before each `ret` loads them back and moves `sp` up.

use super::{RA, T6};
use crate::encode::{AnyInst, Cond, Emit, Ref};
use crate::error::Error;
use crate::graph::NodeId;
use crate::mach::{Cond as MCond, LType, Mach, Op};
use crate::regalloc::Loc;
use isa::riscv::{
    self as rv, BCond, FCmp as FCmpOp, FOp, FReg, ImmOp, Inst, IntTy, LoadOp, Prec, Reg, RegOp,
    Sgnj, StoreOp,
};
use isa::FixupKind;

fn bad(what: String) -> Error {
    Error::new(format!("internal error in RISC-V encoding: {what}"), 0)
}

/// An integer register by its number (0 to 31).
fn gpr(r: u8) -> Result<Reg, Error> {
    Reg::x(r).ok_or_else(|| bad(format!("register {r} is no integer register")))
}

/// A float register by its number in the allocator's numbering (32 to 63).
fn fpr(r: u8) -> Result<FReg, Error> {
    r.checked_sub(32)
        .and_then(FReg::new)
        .ok_or_else(|| bad(format!("register {r} is no float register")))
}

fn is_float_reg(r: u8) -> bool {
    r >= 32
}

/// The scratch register (see the module's documentation).
const SCRATCH: Reg = Reg::T6;
const STACK: Reg = Reg::SP;

/// A 12-bit signed immediate.
fn imm12(v: i64) -> Result<i32, Error> {
    if super::select::imm12(v) {
        Ok(v as i32)
    } else {
        Err(bad(format!("immediate {v} does not fit 12 bits")))
    }
}

/// Input `i` of `n` as an integer register: an empty operand is `zero`.
fn opnd(e: &Emit, n: NodeId, i: usize) -> Result<Reg, Error> {
    match e.g.input(n, i) {
        Some(x) => gpr(e.reg(x)?),
        None => Ok(Reg::ZERO),
    }
}

/// Input `i` of `n` as a float register.
fn fopnd(e: &Emit, n: NodeId, i: usize) -> Result<FReg, Error> {
    fpr(e.in_reg(n, i)?)
}

/// `base + offset` as a load or store can take it: as it is when the
/// offset fits 12 bits, else `t6` (or `tmp`) made `base + offset` first.
fn reach(e: &mut Emit, base: Reg, offset: i64, tmp: Reg) -> Result<(Reg, i32), Error> {
    if let Ok(o) = imm12(offset) {
        return Ok((base, o));
    }
    for i in rv::load_const(tmp, offset) {
        e.inst(i);
    }
    e.inst(Inst::Op {
        op: RegOp::Add,
        rd: tmp,
        rs1: tmp,
        rs2: base,
    });
    Ok((tmp, 0))
}

/// Load 8 bytes at `base + offset` into register `r` of either bank.
fn load64(e: &mut Emit, r: u8, base: Reg, offset: i64, tmp: Reg) -> Result<(), Error> {
    let (rs1, offset) = reach(e, base, offset, tmp)?;
    e.inst(if is_float_reg(r) {
        Inst::FLoad {
            prec: Prec::F64,
            rd: fpr(r)?,
            rs1,
            offset,
        }
    } else {
        Inst::Load {
            op: LoadOp::Ld,
            rd: gpr(r)?,
            rs1,
            offset,
        }
    });
    Ok(())
}

/// Store 8 bytes of register `r` of either bank at `base + offset`.
fn store64(e: &mut Emit, r: u8, base: Reg, offset: i64, tmp: Reg) -> Result<(), Error> {
    let (rs1, offset) = reach(e, base, offset, tmp)?;
    e.inst(if is_float_reg(r) {
        Inst::FStore {
            prec: Prec::F64,
            rs2: fpr(r)?,
            rs1,
            offset,
        }
    } else {
        Inst::Store {
            op: StoreOp::Sd,
            rs2: gpr(r)?,
            rs1,
            offset,
        }
    });
    Ok(())
}

/// `sp += delta`.
fn sp_adjust(e: &mut Emit, delta: i64) -> Result<(), Error> {
    match imm12(delta) {
        Ok(imm) => e.inst(Inst::OpImm {
            op: ImmOp::Addi,
            rd: STACK,
            rs1: STACK,
            imm,
        }),
        Err(_) => {
            for i in rv::load_const(SCRATCH, delta) {
                e.inst(i);
            }
            e.inst(Inst::Op {
                op: RegOp::Add,
                rd: STACK,
                rs1: STACK,
                rs2: SCRATCH,
            });
        }
    }
    Ok(())
}

/// The prologue: make the frame, store `ra` and the callee-saved
/// registers.
pub fn prologue(e: &mut Emit) -> Result<(), Error> {
    let frame = e.frame;
    if frame.size > 0 {
        sp_adjust(e, -i64::from(frame.size))?;
    }
    for &(r, o) in &frame.stored {
        store64(e, r, STACK, i64::from(o), SCRATCH)?;
    }
    Ok(())
}

/// The epilogue, before each `ret`: the prologue undone.
fn epilogue(e: &mut Emit) -> Result<(), Error> {
    let frame = e.frame;
    for &(r, o) in &frame.stored {
        load64(e, r, STACK, i64::from(o), SCRATCH)?;
    }
    if frame.size > 0 {
        sp_adjust(e, i64::from(frame.size))?;
    }
    Ok(())
}

/// A copy of a value between registers and stack slots. A value moves
/// between banks only as its bits.
pub fn copy(e: &mut Emit, dst: Loc, src: Loc, _float: bool) -> Result<(), Error> {
    match (dst, src) {
        (Loc::Reg(d), Loc::Reg(s)) => {
            let inst = match (is_float_reg(d), is_float_reg(s)) {
                (true, true) => Inst::FSgnj {
                    op: Sgnj::J,
                    prec: Prec::F64,
                    rd: fpr(d)?,
                    rs1: fpr(s)?,
                    rs2: fpr(s)?,
                },
                (true, false) => Inst::FMvToF {
                    prec: Prec::F64,
                    rd: fpr(d)?,
                    rs1: gpr(s)?,
                },
                (false, true) => Inst::FMvFromF {
                    prec: Prec::F64,
                    rd: gpr(d)?,
                    rs1: fpr(s)?,
                },
                (false, false) => Inst::OpImm {
                    op: ImmOp::Addi,
                    rd: gpr(d)?,
                    rs1: gpr(s)?,
                    imm: 0,
                },
            };
            e.inst(inst);
        }
        (Loc::Reg(d), s) => load64(e, d, STACK, e.stack_offset(s), SCRATCH)?,
        (d, Loc::Reg(s)) => store64(e, s, STACK, e.stack_offset(d), SCRATCH)?,
        (d, s) => {
            // The value goes through `t6`; a far destination needs a
            // second scratch register for its address: `ra`, which a
            // function that calls has saved.
            let (to, from) = (e.stack_offset(d), e.stack_offset(s));
            let tmp = if imm12(to).is_ok() {
                SCRATCH
            } else if e.frame.calls {
                Reg::RA
            } else {
                return Err(Error::new(
                    format!(
                        "RISC-V: a copy between two stack slots {from} and {to} bytes \
                         above sp in a function that makes no call is not supported"
                    ),
                    0,
                ));
            };
            load64(e, T6, STACK, from, SCRATCH)?;
            store64(e, T6, STACK, to, tmp)?;
        }
    }
    Ok(())
}

/// The instructions of a branch by `disp` bytes from its first byte, or
/// `None` when they cannot reach (see the module's documentation).
pub fn branch(c: Cond, disp: i64, long: bool) -> Option<Vec<AnyInst>> {
    // A pair `auipc t6` + `jalr zero` jumping `d` bytes from the auipc.
    let far = |d: i64| -> Option<[Inst; 2]> {
        let (imm20, lo) = rv::split_hi_lo(d).ok()?;
        Some([
            Inst::Auipc { rd: SCRATCH, imm20 },
            Inst::Jalr {
                rd: Reg::ZERO,
                rs1: SCRATCH,
                offset: lo,
            },
        ])
    };
    let offset = i32::try_from(disp).ok();
    let insts: Vec<Inst> = match (c, long) {
        (Cond::Always, false) => vec![Inst::Jal {
            rd: Reg::ZERO,
            offset: offset?,
        }],
        (Cond::Always, true) => far(disp)?.to_vec(),
        (Cond::Riscv(cond, rs1, rs2), false) => vec![Inst::Branch {
            cond,
            rs1,
            rs2,
            offset: offset?,
        }],
        (Cond::Riscv(cond, rs1, rs2), true) => {
            let mut v = vec![Inst::Branch {
                cond: cond.invert(),
                rs1,
                rs2,
                offset: 12,
            }];
            v.extend(far(disp - 4)?);
            v
        }
        _ => return None,
    };
    // Out of reach is an encoding error of the short form.
    if insts.iter().any(|i| i.word().is_err()) {
        return None;
    }
    Some(insts.into_iter().map(AnyInst::Riscv).collect())
}

/// Filler between functions (never needed: every instruction is 4 bytes,
/// the functions' alignment): zero bytes, which is no instruction.
pub fn pad(code: &mut Vec<u8>, n: usize) {
    code.resize(code.len() + n, 0);
}

/// The B-type condition and operand order of branch condition `c` on
/// `(a, b)`: `>` and `<=` swap the operands.
fn bcond(c: MCond, a: Reg, b: Reg) -> (BCond, Reg, Reg) {
    match c {
        MCond::Eq => (BCond::Eq, a, b),
        MCond::Ne => (BCond::Ne, a, b),
        MCond::Lt => (BCond::Lt, a, b),
        MCond::Ge => (BCond::Ge, a, b),
        MCond::ULt => (BCond::Ltu, a, b),
        MCond::UGe => (BCond::Geu, a, b),
        MCond::Gt => (BCond::Lt, b, a),
        MCond::Le => (BCond::Ge, b, a),
        MCond::UGt => (BCond::Ltu, b, a),
        MCond::ULe => (BCond::Geu, b, a),
    }
}

/// `auipc ra` + `jalr ra`: a call of `to`, patched or relocated as a pair.
fn call(e: &mut Emit, to: Ref) {
    e.inst_ref(
        Inst::AuipcFixup {
            rd: Reg::RA,
            kind: FixupKind::RiscvCall,
        },
        to,
    );
    e.inst(Inst::Jalr {
        rd: Reg::RA,
        rs1: Reg::RA,
        offset: 0,
    });
}

/// `op d, a, b` on integer registers.
fn reg_op(e: &mut Emit, n: NodeId, op: RegOp) -> Result<(), Error> {
    e.inst(Inst::Op {
        op,
        rd: gpr(e.reg(n)?)?,
        rs1: opnd(e, n, 1)?,
        rs2: opnd(e, n, 2)?,
    });
    Ok(())
}

/// `op d, a, imm`.
fn imm_op(e: &mut Emit, n: NodeId, op: ImmOp, imm: i64) -> Result<(), Error> {
    let imm = match op {
        ImmOp::Slli | ImmOp::Srli | ImmOp::Srai => (imm & 63) as i32,
        _ => imm12(imm)?,
    };
    e.inst(Inst::OpImm {
        op,
        rd: gpr(e.reg(n)?)?,
        rs1: opnd(e, n, 1)?,
        imm,
    });
    Ok(())
}

/// `op d, a, b` on float registers.
fn float_op(e: &mut Emit, n: NodeId, op: FOp) -> Result<(), Error> {
    e.inst(Inst::FArith {
        op,
        prec: Prec::F64,
        rd: fpr(e.reg(n)?)?,
        rs1: fopnd(e, n, 1)?,
        rs2: fopnd(e, n, 2)?,
    });
    Ok(())
}

/// A shift pair: `slli d, a, k` then `srai`/`srli d, d, k`, which keeps
/// the low `64-k` bits extended.
fn shift_pair(e: &mut Emit, n: NodeId, down: ImmOp, k: i32) -> Result<(), Error> {
    let d = gpr(e.reg(n)?)?;
    e.inst(Inst::OpImm {
        op: ImmOp::Slli,
        rd: d,
        rs1: opnd(e, n, 1)?,
        imm: k,
    });
    e.inst(Inst::OpImm {
        op: down,
        rd: d,
        rs1: d,
        imm: k,
    });
    Ok(())
}

fn mv(e: &mut Emit, d: Reg, s: Reg) {
    if d != s {
        e.inst(Inst::OpImm {
            op: ImmOp::Addi,
            rd: d,
            rs1: s,
            imm: 0,
        });
    }
}

/// The instructions of machine node `n`.
pub fn emit(e: &mut Emit, n: NodeId, m: &Mach) -> Result<(), Error> {
    use Op::*;
    match m.op {
        Add => reg_op(e, n, RegOp::Add)?,
        Sub => reg_op(e, n, RegOp::Sub)?,
        Mul => reg_op(e, n, RegOp::Mul)?,
        // `div` is the language's division but for x/0, which the
        // legalizer made a mask of the quotient (MIN/-1 is MIN on both).
        Div => reg_op(e, n, RegOp::Div)?,
        And => reg_op(e, n, RegOp::And)?,
        Or => reg_op(e, n, RegOp::Or)?,
        Xor => reg_op(e, n, RegOp::Xor)?,
        // The register shifts read the count's low 6 bits: modulo 64.
        Shl => reg_op(e, n, RegOp::Sll)?,
        Sar => reg_op(e, n, RegOp::Sra)?,
        Shr => reg_op(e, n, RegOp::Srl)?,
        CmpSet(MCond::Lt) => reg_op(e, n, RegOp::Slt)?,
        CmpSet(MCond::ULt) => reg_op(e, n, RegOp::Sltu)?,
        AddI => imm_op(e, n, ImmOp::Addi, m.imm)?,
        AndI => imm_op(e, n, ImmOp::Andi, m.imm)?,
        OrI => imm_op(e, n, ImmOp::Ori, m.imm)?,
        XorI => imm_op(e, n, ImmOp::Xori, m.imm)?,
        ShlI => imm_op(e, n, ImmOp::Slli, m.imm)?,
        SarI => imm_op(e, n, ImmOp::Srai, m.imm)?,
        ShrI => imm_op(e, n, ImmOp::Srli, m.imm)?,
        CmpSetI(MCond::Lt) => imm_op(e, n, ImmOp::Slti, m.imm)?,
        CmpSetI(MCond::ULt) => imm_op(e, n, ImmOp::Sltiu, m.imm)?,
        Neg => e.inst(Inst::Op {
            op: RegOp::Sub,
            rd: gpr(e.reg(n)?)?,
            rs1: Reg::ZERO,
            rs2: opnd(e, n, 1)?,
        }),
        SExt => match m.ty[1].bits() {
            // `sext.w`
            32 => imm_op(e, n, ImmOp::Addiw, 0)?,
            // A truth value, 0 or 1, is 0 or -1 sign-extended.
            1 => e.inst(Inst::Op {
                op: RegOp::Sub,
                rd: gpr(e.reg(n)?)?,
                rs1: Reg::ZERO,
                rs2: opnd(e, n, 1)?,
            }),
            b => shift_pair(e, n, ImmOp::Srai, 64 - b as i32)?,
        },
        ZExt => match m.ty[1].bits() {
            8 => imm_op(e, n, ImmOp::Andi, 0xFF)?,
            // A truth value is already 0 or 1.
            1 => {
                let (d, a) = (gpr(e.reg(n)?)?, opnd(e, n, 1)?);
                mv(e, d, a);
            }
            b => shift_pair(e, n, ImmOp::Srli, 64 - b as i32)?,
        },
        Trunc | AnyExt => {
            let (d, a) = (e.loc(n)?, e.loc(e.g.in_(n, 1))?);
            if d != a {
                copy(e, d, a, m.ty[0].is_float())?;
            }
        }
        Int => {
            for i in rv::load_const(gpr(e.reg(n)?)?, m.imm) {
                e.inst(i);
            }
        }
        Lui => {
            // The value with its low 12 bits clear, which fits 32 bits.
            if m.imm & 0xFFF != 0 || i32::try_from(m.imm).is_err() {
                return Err(bad(format!("lui of {:#x}", m.imm)));
            }
            e.inst(Inst::Lui {
                rd: gpr(e.reg(n)?)?,
                imm20: ((m.imm >> 12) & 0xF_FFFF) as u32,
            });
        }
        Flt => {
            let d = fpr(e.reg(n)?)?;
            let prec = if m.ty[0] == LType::F32 {
                Prec::F32
            } else {
                Prec::F64
            };
            if m.imm == 0 {
                // +0.0: the bits of `zero`.
                e.inst(Inst::FMvToF {
                    prec,
                    rd: d,
                    rs1: Reg::ZERO,
                });
            } else {
                let bits = match prec {
                    Prec::F32 => u64::from((f64::from_bits(m.imm as u64) as f32).to_bits()),
                    Prec::F64 => m.imm as u64,
                };
                let at = e.constant(bits);
                e.inst_ref(
                    Inst::AuipcFixup {
                        rd: SCRATCH,
                        kind: FixupKind::RiscvPcrelHi20,
                    },
                    Ref::Rodata(at),
                );
                e.inst_ref(
                    Inst::FLoadPcrelLo {
                        prec,
                        rd: d,
                        rs1: SCRATCH,
                    },
                    Ref::PcrelLo,
                );
            }
        }
        FunAddr => {
            let f = e.fun(e.g.ty(n))?;
            let d = gpr(e.reg(n)?)?;
            // Both halves are patched through the auipc's fixup.
            e.inst_ref(
                Inst::AuipcFixup {
                    rd: d,
                    kind: FixupKind::RiscvPcrelHi20,
                },
                Ref::Fun(f),
            );
            e.inst(Inst::OpImm {
                op: ImmOp::Addi,
                rd: d,
                rs1: d,
                imm: 0,
            });
        }
        FCmpSet(c @ (MCond::Eq | MCond::Lt | MCond::Le)) => {
            let op = match c {
                MCond::Eq => FCmpOp::Eq,
                MCond::Lt => FCmpOp::Lt,
                _ => FCmpOp::Le,
            };
            e.inst(Inst::FCmp {
                op,
                prec: Prec::F64,
                rd: gpr(e.reg(n)?)?,
                rs1: fopnd(e, n, 1)?,
                rs2: fopnd(e, n, 2)?,
            });
        }
        FAdd => float_op(e, n, FOp::Add)?,
        FSub => float_op(e, n, FOp::Sub)?,
        FMul => float_op(e, n, FOp::Mul)?,
        FDiv => float_op(e, n, FOp::Div)?,
        FNeg => {
            let a = fopnd(e, n, 1)?;
            e.inst(Inst::FSgnj {
                op: Sgnj::Jn,
                prec: Prec::F64,
                rd: fpr(e.reg(n)?)?,
                rs1: a,
                rs2: a,
            });
        }
        I2F => e.inst(Inst::FCvtFromInt {
            prec: Prec::F64,
            int: IntTy::L,
            rd: fpr(e.reg(n)?)?,
            rs1: opnd(e, n, 1)?,
        }),
        FTrunc => e.inst(Inst::FCvtFF {
            to: Prec::F32,
            rd: fpr(e.reg(n)?)?,
            rs1: fopnd(e, n, 1)?,
        }),
        FExt => e.inst(Inst::FCvtFF {
            to: Prec::F64,
            rd: fpr(e.reg(n)?)?,
            rs1: fopnd(e, n, 1)?,
        }),
        Load => {
            let (rs1, offset) = reach(e, opnd(e, n, 2)?, m.imm, SCRATCH)?;
            let inst = match (m.ty[0], m.mem_size, m.signed) {
                (LType::F64 | LType::F32, ..) => Inst::FLoad {
                    prec: if m.ty[0] == LType::F32 {
                        Prec::F32
                    } else {
                        Prec::F64
                    },
                    rd: fpr(e.reg(n)?)?,
                    rs1,
                    offset,
                },
                (_, size, signed) => Inst::Load {
                    op: match (size, signed) {
                        (1, true) => LoadOp::Lb,
                        (1, false) => LoadOp::Lbu,
                        (2, true) => LoadOp::Lh,
                        (2, false) => LoadOp::Lhu,
                        (4, true) => LoadOp::Lw,
                        (4, false) => LoadOp::Lwu,
                        _ => LoadOp::Ld,
                    },
                    rd: gpr(e.reg(n)?)?,
                    rs1,
                    offset,
                },
            };
            e.inst(inst);
        }
        Store => {
            let (rs1, offset) = reach(e, opnd(e, n, 2)?, m.imm, SCRATCH)?;
            let inst = match e.g.input(n, 3).map(|v| e.reg(v)).transpose()? {
                Some(v) if is_float_reg(v) => Inst::FStore {
                    prec: if m.mem_size == 4 {
                        Prec::F32
                    } else {
                        Prec::F64
                    },
                    rs2: fpr(v)?,
                    rs1,
                    offset,
                },
                // An empty value is `zero`, an integer register whatever
                // the field's type.
                v => Inst::Store {
                    op: match m.mem_size {
                        1 => StoreOp::Sb,
                        2 => StoreOp::Sh,
                        4 => StoreOp::Sw,
                        _ => StoreOp::Sd,
                    },
                    rs2: v.map_or(Ok(Reg::ZERO), gpr)?,
                    rs1,
                    offset,
                },
            };
            e.inst(inst);
        }
        Branch(c) => {
            let (taken, not_taken) = e.arms(n)?;
            let (cond, a, b) = bcond(c, opnd(e, n, 1)?, opnd(e, n, 2)?);
            e.branch(Cond::Riscv(cond, a, b), taken, not_taken);
        }
        Call => {
            let f = e.callee(n, m)?;
            call(e, Ref::Fun(f));
        }
        CallR => {
            let target =
                e.g.inputs(n)
                    .last()
                    .copied()
                    .flatten()
                    .ok_or_else(|| bad("an indirect call without a target".into()))?;
            e.inst(Inst::Jalr {
                rd: Reg::RA,
                rs1: gpr(e.reg(target)?)?,
                offset: 0,
            });
        }
        Ret => {
            epilogue(e)?;
            e.inst(Inst::Jalr {
                rd: Reg::ZERO,
                rs1: gpr(RA)?,
                offset: 0,
            });
        }
        New => {
            // calloc(1, size): the size is already in `a1`.
            e.inst(Inst::OpImm {
                op: ImmOp::Addi,
                rd: Reg::A0,
                rs1: Reg::ZERO,
                imm: 1,
            });
            call(e, Ref::External("calloc"));
        }
        Parm | Proj | CallEnd | Fun | Split => {}
        DivTotal | CmpSet(_) | CmpSetI(_) | FCmpSet(_) | MulI | Lea | Cmp | CmpI | Set(_)
        | FCmp | Jcc(_) | StoreI | AddMem | FAddMem | CmpMem | MemAdd | MovK => {
            return Err(bad(format!(
                "{:?} is no RISC-V operation (the legalizer lowers it)",
                m.op
            )));
        }
    }
    Ok(())
}
