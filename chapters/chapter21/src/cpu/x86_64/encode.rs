//! x86-64's encoder: which instruction of the [`isa`] crate each machine
//! operation is, once its registers are known.
//!
//! Most operations are one instruction, and the two-address ones already
//! have their result in the register of their first operand (the
//! allocator made them one). The exceptions:
//!
//! - A comparison's 0 or 1 is `setcc` and `movzbl` of the flags. After
//!   `ucomisd`, "equal" also needs the parity flag clear (NaN sets it):
//!   `==` is `sete`, then, if parity is set, 0; `!=` is `setne`, then, if
//!   parity is set, 1. A branch on `==` first jumps away on parity.
//! - `-x` on a double flips the sign bit with `xorpd` of a 16-byte mask
//!   in `.rodata`.
//! - A float constant is a `movsd` from `.rodata`, RIP-relative.
//! - `new` calls `calloc(1, size)`: the size is already in the second
//!   argument register; the first gets 1.
//! - A copy from one stack slot to another is `pushq` then `popq`.

use crate::encode::{AnyInst, Cond, Emit, Ref};
use crate::error::Error;
use crate::graph::NodeId;
use crate::mach::{mach, Cond as MCond, LType, Mach, Op};
use crate::regalloc::Loc;
use isa::x86_64::{
    self as x86, Alu, Amode, Cond as XCond, Ext, FOp, Inst, Prec, Reg, Shift, Size, Width, Xmm,
};

fn bad(what: String) -> Error {
    Error::new(format!("internal error in x86-64 encoding: {what}"), 0)
}

/// A general register by its number (0 to 15).
fn gpr(r: u8) -> Result<Reg, Error> {
    Reg::new(r).ok_or_else(|| bad(format!("register {r} is no general register")))
}

/// An SSE register by its number in the allocator's numbering (16 to 31).
fn xmm(r: u8) -> Result<Xmm, Error> {
    r.checked_sub(16)
        .and_then(Xmm::new)
        .ok_or_else(|| bad(format!("register {r} is no xmm register")))
}

fn prec(t: LType) -> Prec {
    if t == LType::F32 {
        Prec::F32
    } else {
        Prec::F64
    }
}

/// The condition code of a machine comparison.
fn cc(c: MCond) -> XCond {
    match c {
        MCond::Eq => XCond::E,
        MCond::Ne => XCond::Ne,
        MCond::Lt => XCond::L,
        MCond::Le => XCond::Le,
        MCond::Gt => XCond::G,
        MCond::Ge => XCond::Ge,
        MCond::ULt => XCond::B,
        MCond::ULe => XCond::Be,
        MCond::UGt => XCond::A,
        MCond::UGe => XCond::Ae,
    }
}

fn width(bytes: u8) -> Width {
    match bytes {
        1 => Width::W8,
        2 => Width::W16,
        4 => Width::W32,
        _ => Width::W64,
    }
}

fn imm32(v: i64) -> Result<i32, Error> {
    i32::try_from(v).map_err(|_| bad(format!("immediate {v} does not fit 32 bits")))
}

/// The memory operand of memory operation `n`: base in input 2, index in
/// input `idx_at` (if any) scaled by `m.scale`, displacement `m.imm`.
fn address(e: &Emit, n: NodeId, m: &Mach, idx_at: usize) -> Result<Amode, Error> {
    let base = gpr(e.in_reg(n, 2)?)?;
    let disp = imm32(m.imm)?;
    Ok(match e.g.input(n, idx_at) {
        Some(i) => Amode::indexed(base, gpr(e.reg(i)?)?, 1 << m.scale, disp),
        None => Amode::base(base, disp),
    })
}

/// A stack location as a memory operand.
fn stack(e: &Emit, l: Loc) -> Result<Amode, Error> {
    Ok(Amode::base(Reg::RSP, imm32(e.stack_offset(l))?))
}

/// The prologue: push the callee-saved general registers, make the
/// frame, store the callee-saved xmm registers.
pub fn prologue(e: &mut Emit) -> Result<(), Error> {
    let frame = e.frame;
    for &r in &frame.pushed {
        e.inst(Inst::Push { src: gpr(r)? });
    }
    if frame.size > 0 {
        e.inst(sp_adjust(Alu::Sub, frame.size)?);
    }
    for &(r, o) in &frame.stored {
        e.inst(Inst::FStore {
            prec: Prec::F64,
            src: xmm(r)?,
            addr: Amode::base(Reg::RSP, imm32(o as i64)?),
        });
    }
    Ok(())
}

fn sp_adjust(op: Alu, size: u32) -> Result<Inst, Error> {
    Ok(Inst::AluRI {
        op,
        size: Size::S64,
        dst: Reg::RSP,
        imm: imm32(size as i64)?,
    })
}

/// The epilogue, before each `ret`: the prologue undone.
fn epilogue(e: &mut Emit) -> Result<(), Error> {
    let frame = e.frame;
    for &(r, o) in &frame.stored {
        e.inst(Inst::FLoad {
            prec: Prec::F64,
            dst: xmm(r)?,
            addr: Amode::base(Reg::RSP, imm32(o as i64)?),
        });
    }
    if frame.size > 0 {
        e.inst(sp_adjust(Alu::Add, frame.size)?);
    }
    for &r in frame.pushed.iter().rev() {
        e.inst(Inst::Pop { dst: gpr(r)? });
    }
    Ok(())
}

/// A copy of a value between registers and stack slots.
pub fn copy(e: &mut Emit, dst: Loc, src: Loc, float: bool) -> Result<(), Error> {
    let inst = match (dst, src) {
        (Loc::Reg(d), Loc::Reg(s)) if d >= 16 || s >= 16 => {
            // A value may move between banks only as bits (no such
            // copies are made today; be exact if one is).
            match (d >= 16, s >= 16) {
                (true, true) => Inst::MovXX {
                    dst: xmm(d)?,
                    src: xmm(s)?,
                },
                (true, false) => Inst::MovToXmm {
                    size: Size::S64,
                    dst: xmm(d)?,
                    src: gpr(s)?,
                },
                _ => Inst::MovFromXmm {
                    size: Size::S64,
                    dst: gpr(d)?,
                    src: xmm(s)?,
                },
            }
        }
        (Loc::Reg(d), Loc::Reg(s)) => Inst::MovRR {
            size: Size::S64,
            dst: gpr(d)?,
            src: gpr(s)?,
        },
        (Loc::Reg(d), s) if d >= 16 => Inst::FLoad {
            prec: Prec::F64,
            dst: xmm(d)?,
            addr: stack(e, s)?,
        },
        (Loc::Reg(d), s) => Inst::Load {
            width: Width::W64,
            ext: Ext::Zero,
            dst: gpr(d)?,
            addr: stack(e, s)?,
        },
        (d, Loc::Reg(s)) if s >= 16 => Inst::FStore {
            prec: Prec::F64,
            src: xmm(s)?,
            addr: stack(e, d)?,
        },
        (d, Loc::Reg(s)) => Inst::Store {
            width: Width::W64,
            src: gpr(s)?,
            addr: stack(e, d)?,
        },
        (d, s) => {
            e.inst(Inst::PushM { addr: stack(e, s)? });
            Inst::PopM { addr: stack(e, d)? }
        }
    };
    let _ = float;
    e.inst(inst);
    Ok(())
}

/// A branch by `disp` bytes from its first byte: `jmp`/`jcc` rel8 when
/// short, rel32 when long.
pub fn branch(c: Cond, disp: i64, long: bool) -> Option<Vec<AnyInst>> {
    let len: i64 = match (c, long) {
        (Cond::Always, false) | (Cond::X86(_), false) => 2,
        (Cond::Always, true) => 5,
        (Cond::X86(_), true) => 6,
        _ => return None,
    };
    let rel = i32::try_from(disp - len).ok()?;
    if !long && i8::try_from(rel).is_err() {
        return None;
    }
    let inst = match (c, long) {
        (Cond::Always, false) => Inst::JmpShort { disp: rel },
        (Cond::Always, true) => Inst::JmpNear { disp: rel },
        (Cond::X86(cond), false) => Inst::JccShort { cond, disp: rel },
        (Cond::X86(cond), true) => Inst::JccNear { cond, disp: rel },
        _ => return None,
    };
    Some(vec![AnyInst::X86(inst)])
}

/// Filler between functions: `int3`, which stops a run that strays there.
pub fn pad(code: &mut Vec<u8>, n: usize) {
    code.resize(code.len() + n, 0xcc);
}

/// Whether the flags node `flags` is a float comparison (`ucomisd`).
fn float_flags(e: &Emit, flags: Option<NodeId>) -> bool {
    flags.is_some_and(|f| mach(e.g, f).is_some_and(|m| m.op == Op::FCmp))
}

/// `op d, b` for a two-address operation whose first operand is `a`.
fn two_address(
    e: &mut Emit,
    d: u8,
    a: u8,
    b: u8,
    commutes: bool,
    make: impl Fn(Reg, Reg) -> Inst,
) -> Result<(), Error> {
    if d == a {
        e.inst(make(gpr(d)?, gpr(b)?));
    } else if d == b && commutes {
        e.inst(make(gpr(d)?, gpr(a)?));
    } else if d != b {
        e.inst(Inst::MovRR {
            size: Size::S64,
            dst: gpr(d)?,
            src: gpr(a)?,
        });
        e.inst(make(gpr(d)?, gpr(b)?));
    } else {
        return Err(bad(format!(
            "a two-address operation's result is in its second operand ({d})"
        )));
    }
    Ok(())
}

/// The same for one operand and an immediate or nothing.
fn one_address(e: &mut Emit, d: u8, a: u8, make: impl Fn(Reg) -> Inst) -> Result<(), Error> {
    if d != a {
        e.inst(Inst::MovRR {
            size: Size::S64,
            dst: gpr(d)?,
            src: gpr(a)?,
        });
    }
    e.inst(make(gpr(d)?));
    Ok(())
}

/// The same for floats.
fn float_two_address(e: &mut Emit, n: NodeId, m: &Mach, op: FOp) -> Result<(), Error> {
    let (d, a, b) = (e.reg(n)?, e.in_reg(n, 1)?, e.in_reg(n, 2)?);
    let p = prec(m.ty[0]);
    let commutes = matches!(op, FOp::Add | FOp::Mul);
    let arith = |dst, src| -> Result<Inst, Error> {
        Ok(Inst::FArith {
            op,
            prec: p,
            dst: xmm(dst)?,
            src: xmm(src)?,
        })
    };
    if d == a {
        e.inst(arith(d, b)?);
    } else if d == b && commutes {
        e.inst(arith(d, a)?);
    } else if d != b {
        e.inst(Inst::MovXX {
            dst: xmm(d)?,
            src: xmm(a)?,
        });
        e.inst(arith(d, b)?);
    } else {
        return Err(bad(
            "a float operation's result is in its second operand".into()
        ));
    }
    Ok(())
}

/// The instructions of machine node `n`.
pub fn emit(e: &mut Emit, n: NodeId, m: &Mach) -> Result<(), Error> {
    use Op::*;
    let alu = |op: Alu| {
        move |d: Reg, s: Reg| Inst::AluRR {
            op,
            size: Size::S64,
            dst: d,
            src: s,
        }
    };
    match m.op {
        Add | Sub | And | Or | Xor => {
            let op = match m.op {
                Add => Alu::Add,
                Sub => Alu::Sub,
                And => Alu::And,
                Or => Alu::Or,
                _ => Alu::Xor,
            };
            let (d, a, b) = (e.reg(n)?, e.in_reg(n, 1)?, e.in_reg(n, 2)?);
            two_address(e, d, a, b, m.op != Sub, alu(op))?;
        }
        Mul => {
            let (d, a, b) = (e.reg(n)?, e.in_reg(n, 1)?, e.in_reg(n, 2)?);
            two_address(e, d, a, b, true, |d, s| Inst::Imul {
                size: Size::S64,
                dst: d,
                src: s,
            })?;
        }
        AddI | AndI | OrI | XorI => {
            let op = match m.op {
                AddI => Alu::Add,
                AndI => Alu::And,
                OrI => Alu::Or,
                _ => Alu::Xor,
            };
            let imm = imm32(m.imm)?;
            let (d, a) = (e.reg(n)?, e.in_reg(n, 1)?);
            one_address(e, d, a, |dst| Inst::AluRI {
                op,
                size: Size::S64,
                dst,
                imm,
            })?;
        }
        ShlI | SarI | ShrI => {
            let op = shift(m.op);
            let amount = (m.imm & 63) as u8;
            let (d, a) = (e.reg(n)?, e.in_reg(n, 1)?);
            one_address(e, d, a, |dst| Inst::ShiftRI {
                op,
                size: Size::S64,
                dst,
                amount,
            })?;
        }
        Shl | Sar | Shr => {
            let op = shift(m.op);
            let (d, a) = (e.reg(n)?, e.in_reg(n, 1)?);
            one_address(e, d, a, |dst| Inst::ShiftRCl {
                op,
                size: Size::S64,
                dst,
            })?;
        }
        MulI => e.inst(Inst::ImulRI {
            size: Size::S64,
            dst: gpr(e.reg(n)?)?,
            src: gpr(e.in_reg(n, 1)?)?,
            imm: imm32(m.imm)?,
        }),
        Div | DivTotal => {
            e.inst(Inst::SignExtendRax { size: Size::S64 });
            e.inst(Inst::Idiv {
                size: Size::S64,
                src: gpr(e.in_reg(n, 2)?)?,
            });
        }
        Neg => {
            let (d, a) = (e.reg(n)?, e.in_reg(n, 1)?);
            one_address(e, d, a, |dst| Inst::Neg {
                size: Size::S64,
                dst,
            })?;
        }
        Lea => {
            let disp = imm32(m.imm)?;
            let index = gpr(e.in_reg(n, 2)?)?;
            let addr = match e.g.input(n, 1) {
                Some(b) => Amode::indexed(gpr(e.reg(b)?)?, index, 1 << m.scale, disp),
                None if m.scale == 0 => Amode::base(index, disp),
                None => Amode::IndexOnly {
                    index,
                    scale: 1 << m.scale,
                    disp,
                },
            };
            e.inst(Inst::Lea {
                dst: gpr(e.reg(n)?)?,
                addr,
            });
        }
        SExt => {
            let (d, a) = (gpr(e.reg(n)?)?, gpr(e.in_reg(n, 1)?)?);
            match m.ty[1].bits() {
                8 => e.inst(Inst::Movsx {
                    from: Width::W8,
                    dst: d,
                    src: a,
                }),
                16 => e.inst(Inst::Movsx {
                    from: Width::W16,
                    dst: d,
                    src: a,
                }),
                32 => e.inst(Inst::Movsx {
                    from: Width::W32,
                    dst: d,
                    src: a,
                }),
                // A truth value, 0 or 1, is 0 or -1 sign-extended.
                _ => {
                    one_address(e, d.num(), a.num(), |dst| Inst::Neg {
                        size: Size::S64,
                        dst,
                    })?;
                }
            }
        }
        ZExt => {
            let (d, a) = (gpr(e.reg(n)?)?, gpr(e.in_reg(n, 1)?)?);
            match m.ty[1].bits() {
                8 => e.inst(Inst::Movzx8 { dst: d, src: a }),
                16 => e.inst(Inst::Movzx16 { dst: d, src: a }),
                32 => e.inst(Inst::MovRR {
                    size: Size::S32,
                    dst: d,
                    src: a,
                }),
                // A truth value is already 0 or 1.
                _ if d != a => e.inst(Inst::MovRR {
                    size: Size::S64,
                    dst: d,
                    src: a,
                }),
                _ => {}
            }
        }
        Trunc | AnyExt => {
            let (d, a) = (e.loc(n)?, e.loc(e.g.in_(n, 1))?);
            if d != a {
                copy(e, d, a, false)?;
            }
        }
        Int => {
            let d = gpr(e.reg(n)?)?;
            if m.imm == 0 {
                e.inst(Inst::AluRR {
                    op: Alu::Xor,
                    size: Size::S32,
                    dst: d,
                    src: d,
                });
            } else {
                e.inst(x86::load_const(d, m.imm));
            }
        }
        Flt => {
            let p = prec(m.ty[0]);
            let bits = match p {
                Prec::F32 => (f64::from_bits(m.imm as u64) as f32).to_bits() as u64,
                Prec::F64 => m.imm as u64,
            };
            let at = e.constant(bits);
            e.inst_ref(
                Inst::FLoad {
                    prec: p,
                    dst: xmm(e.reg(n)?)?,
                    addr: Amode::Rip { disp: 0 },
                },
                Ref::Rodata(at),
            );
        }
        FunAddr => {
            let f = e.fun(e.g.ty(n))?;
            e.inst_ref(
                Inst::Lea {
                    dst: gpr(e.reg(n)?)?,
                    addr: Amode::Rip { disp: 0 },
                },
                Ref::Fun(f),
            );
        }
        Cmp => e.inst(Inst::AluRR {
            op: Alu::Cmp,
            size: Size::S64,
            dst: gpr(e.in_reg(n, 1)?)?,
            src: gpr(e.in_reg(n, 2)?)?,
        }),
        CmpI if m.imm == 0 => {
            let a = gpr(e.in_reg(n, 1)?)?;
            e.inst(Inst::Test {
                size: Size::S64,
                a,
                b: a,
            });
        }
        CmpI => e.inst(Inst::AluRI {
            op: Alu::Cmp,
            size: Size::S64,
            dst: gpr(e.in_reg(n, 1)?)?,
            imm: imm32(m.imm)?,
        }),
        FCmp => e.inst(Inst::Ucomi {
            prec: prec(m.ty[1]),
            a: xmm(e.in_reg(n, 1)?)?,
            b: xmm(e.in_reg(n, 2)?)?,
        }),
        Set(c) => set(e, n, c)?,
        FAdd => float_two_address(e, n, m, FOp::Add)?,
        FSub => float_two_address(e, n, m, FOp::Sub)?,
        FMul => float_two_address(e, n, m, FOp::Mul)?,
        FDiv => float_two_address(e, n, m, FOp::Div)?,
        FNeg => {
            let (d, a) = (e.reg(n)?, e.in_reg(n, 1)?);
            if d != a {
                e.inst(Inst::MovXX {
                    dst: xmm(d)?,
                    src: xmm(a)?,
                });
            }
            let sign = match prec(m.ty[0]) {
                Prec::F32 => 0x8000_0000,
                Prec::F64 => 0x8000_0000_0000_0000,
            };
            let at = e.constant16(sign, 0);
            e.inst_ref(
                Inst::XorpdM {
                    dst: xmm(d)?,
                    addr: Amode::Rip { disp: 0 },
                },
                Ref::Rodata(at),
            );
        }
        I2F => e.inst(Inst::CvtIntToF {
            prec: prec(m.ty[0]),
            size: Size::S64,
            dst: xmm(e.reg(n)?)?,
            src: gpr(e.in_reg(n, 1)?)?,
        }),
        FTrunc => e.inst(Inst::CvtFToF {
            from: Prec::F64,
            dst: xmm(e.reg(n)?)?,
            src: xmm(e.in_reg(n, 1)?)?,
        }),
        FExt => e.inst(Inst::CvtFToF {
            from: Prec::F32,
            dst: xmm(e.reg(n)?)?,
            src: xmm(e.in_reg(n, 1)?)?,
        }),
        Load => {
            let addr = address(e, n, m, 3)?;
            if m.ty[0].is_float() {
                e.inst(Inst::FLoad {
                    prec: prec(m.ty[0]),
                    dst: xmm(e.reg(n)?)?,
                    addr,
                });
            } else {
                e.inst(Inst::Load {
                    width: width(m.mem_size),
                    ext: if m.signed { Ext::Sign } else { Ext::Zero },
                    dst: gpr(e.reg(n)?)?,
                    addr,
                });
            }
        }
        Store => {
            let addr = address(e, n, m, 4)?;
            let v = e.in_reg(n, 3)?;
            if v >= 16 {
                e.inst(Inst::FStore {
                    prec: if m.mem_size == 4 {
                        Prec::F32
                    } else {
                        Prec::F64
                    },
                    src: xmm(v)?,
                    addr,
                });
            } else {
                e.inst(Inst::Store {
                    width: width(m.mem_size),
                    src: gpr(v)?,
                    addr,
                });
            }
        }
        StoreI => e.inst(Inst::StoreImm {
            width: width(m.mem_size),
            imm: imm32(m.imm2)?,
            addr: address(e, n, m, 4)?,
        }),
        // `[mem] + imm`: the load, then the immediate.
        AddMem if e.g.input(n, 4).is_none() => {
            let addr = address(e, n, m, 3)?;
            let d = gpr(e.reg(n)?)?;
            e.inst(Inst::Load {
                width: Width::W64,
                ext: Ext::Zero,
                dst: d,
                addr,
            });
            e.inst(Inst::AluRI {
                op: Alu::Add,
                size: Size::S64,
                dst: d,
                imm: imm32(m.imm2)?,
            });
        }
        AddMem => {
            let addr = address(e, n, m, 3)?;
            let (d, a) = (e.reg(n)?, e.in_reg(n, 4)?);
            one_address(e, d, a, |dst| Inst::AluRM {
                op: Alu::Add,
                size: Size::S64,
                dst,
                addr,
            })?;
        }
        FAddMem => {
            let addr = address(e, n, m, 3)?;
            let (d, a) = (e.reg(n)?, e.in_reg(n, 4)?);
            if d != a {
                e.inst(Inst::MovXX {
                    dst: xmm(d)?,
                    src: xmm(a)?,
                });
            }
            e.inst(Inst::FArithM {
                op: FOp::Add,
                prec: prec(m.ty[0]),
                dst: xmm(d)?,
                addr,
            });
        }
        CmpMem => {
            let addr = address(e, n, m, 3)?;
            match e.g.input(n, 4) {
                Some(x) => e.inst(Inst::AluMR {
                    op: Alu::Cmp,
                    size: Size::S64,
                    addr,
                    src: gpr(e.reg(x)?)?,
                }),
                None => e.inst(Inst::AluMI {
                    op: Alu::Cmp,
                    size: Size::S64,
                    addr,
                    imm: imm32(m.imm2)?,
                }),
            }
        }
        MemAdd => e.inst(Inst::AluMR {
            op: Alu::Add,
            size: Size::S64,
            addr: address(e, n, m, 4)?,
            src: gpr(e.in_reg(n, 3)?)?,
        }),
        Jcc(c) => {
            let (taken, not_taken) = e.arms(n)?;
            if float_flags(e, e.g.input(n, 1)) && matches!(c, MCond::Eq | MCond::Ne) {
                // Unordered (parity set) is "not equal".
                let (eq, ne) = if c == MCond::Eq {
                    (taken, not_taken)
                } else {
                    (not_taken, taken)
                };
                e.pieces
                    .push(crate::encode::Piece::Branch(Cond::X86(XCond::P), ne));
                e.branch(Cond::X86(XCond::E), eq, ne);
            } else {
                e.branch(Cond::X86(cc(c)), taken, not_taken);
            }
        }
        Call => {
            let f = e.callee(n, m)?;
            e.inst_ref(Inst::Call { disp: 0 }, Ref::Fun(f));
        }
        CallR => {
            let target =
                e.g.inputs(n)
                    .last()
                    .copied()
                    .flatten()
                    .ok_or_else(|| bad("an indirect call without a target".into()))?;
            e.inst(Inst::CallInd {
                target: gpr(e.reg(target)?)?,
            });
        }
        Ret => {
            epilogue(e)?;
            e.inst(Inst::Ret);
        }
        New => {
            // calloc(1, size): the size is in the second argument register.
            let first = crate::cpu::x86_64::arg_masks(e.target.abi, &[LType::S64; 2])[0]
                .and_then(|m| m.first())
                .ok_or_else(|| bad("no first argument register".into()))?;
            e.inst(Inst::MovRI {
                size: Size::S32,
                dst: gpr(first)?,
                imm: 1,
            });
            e.inst_ref(Inst::Call { disp: 0 }, Ref::External("calloc"));
        }
        Parm | Proj | CallEnd | Fun | Split => {}
        Branch(_) | CmpSet(_) | CmpSetI(_) | FCmpSet(_) | Lui | MovK => {
            return Err(bad(format!("{:?} is not an x86-64 operation", m.op)));
        }
    }
    Ok(())
}

fn shift(op: Op) -> Shift {
    match op {
        Op::Shl | Op::ShlI => Shift::Shl,
        Op::Sar | Op::SarI => Shift::Sar,
        _ => Shift::Shr,
    }
}

/// `setcc` of the flags into the result's low byte, widened; after
/// `ucomisd`, `==` and `!=` also look at parity (see the module's
/// documentation).
fn set(e: &mut Emit, n: NodeId, c: MCond) -> Result<(), Error> {
    let d = gpr(e.reg(n)?)?;
    e.inst(Inst::Setcc {
        cond: cc(c),
        dst: d,
    });
    if float_flags(e, e.g.input(n, 1)) && matches!(c, MCond::Eq | MCond::Ne) {
        // If parity is clear, skip the fix-up of the unordered case.
        let fix = Inst::MovRI {
            size: Size::S32,
            dst: d,
            imm: i64::from(c == MCond::Ne),
        };
        let mut len = Vec::new();
        fix.encode(&mut len).map_err(|e| bad(e.to_string()))?;
        e.inst(Inst::JccShort {
            cond: XCond::Np,
            disp: len.len() as i32,
        });
        e.inst(fix);
    }
    e.inst(Inst::Movzx8 { dst: d, src: d });
    Ok(())
}
