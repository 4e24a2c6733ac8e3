//! RISC-V RV64GC (integer, M, F, D; we never emit the compressed C forms):
//! every instruction is one 32-bit little-endian word in one of six formats.
//!
//! ```text
//!  R  funct7 | rs2 | rs1 | funct3 | rd        | opcode
//!  I  imm[11:0]    | rs1 | funct3 | rd        | opcode
//!  S  imm[11:5] | rs2 | rs1 | funct3 | imm[4:0] | opcode
//!  B  imm[12|10:5] | rs2 | rs1 | funct3 | imm[4:1|11] | opcode
//!  U  imm[31:12]                | rd        | opcode
//!  J  imm[20|10:1|11|19:12]     | rd        | opcode
//! ```
//!
//! * Register fields are always in the same place, so the hardware can read
//!   registers before it knows the format; the immediates are scrambled
//!   instead (B and J keep bit 0 implicit: offsets are even).
//! * I-type immediates are **signed 12 bits** (-2048..=2047) and sign-extended.
//!   So a 32-bit value is split as `hi20 = (v + 0x800) >> 12`,
//!   `lo12 = v - (hi20 << 12)`: the `+0x800` rounds hi20 up whenever lo12
//!   will be negative, which the sign-extending ADDI then subtracts again.
//!   [`split_hi_lo`] does it; LUI+ADDIW build 32-bit constants and
//!   AUIPC+ADDI (or AUIPC+JALR for calls) reach ±2 GiB PC-relative.
//! * Wider constants are built by [`load_const`]: the upper part
//!   recursively, then SLLI and ADDI for each further 12 bits, as LLVM does.
//! * Register x0 (`zero`) reads as zero; writes to it are dropped. Many
//!   familiar instructions are aliases: `nop` is `addi zero, zero, 0`, `mv`
//!   is `addi rd, rs, 0`, `neg` is `sub rd, zero, rs`, `not` is `xori rd,
//!   rs, -1`, `seqz` is `sltiu rd, rs, 1`, `ret` is `jalr zero, 0(ra)`.
//! * Floating-point arithmetic carries a rounding mode; we encode `dyn`
//!   (use the `frm` CSR) except for float-to-int, which truncates (`rtz`)
//!   as C and Simple do, and conversions that are exact, which LLVM encodes
//!   with `rne`.
//!
//! The text uses ABI register names (`a0`, `fa0`) as LLVM prints them;
//! branch and jump offsets are bytes from the instruction (`beq a0, a1, 16`).

use crate::{check_align, check_signed, EncodeError, EncodeResult, Fixup, FixupKind};
use std::fmt;

/// An integer register x0..x31.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Reg(u8);

impl Reg {
    pub const ZERO: Reg = Reg(0);
    pub const RA: Reg = Reg(1);
    pub const SP: Reg = Reg(2);
    pub const T0: Reg = Reg(5);
    pub const S0: Reg = Reg(8);
    pub const A0: Reg = Reg(10);
    pub const A1: Reg = Reg(11);
    pub const A2: Reg = Reg(12);
    pub const T6: Reg = Reg(31);

    pub fn x(n: u8) -> Option<Reg> {
        (n < 32).then_some(Reg(n))
    }
    /// a0..a7, the argument registers.
    pub fn a(n: u8) -> Option<Reg> {
        (n < 8).then_some(Reg(10 + n))
    }
    pub fn num(self) -> u8 {
        self.0
    }
    fn f(self) -> u32 {
        self.0 as u32
    }
}

impl fmt::Display for Reg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const NAMES: [&str; 32] = [
            "zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "s0", "s1", "a0", "a1", "a2", "a3",
            "a4", "a5", "a6", "a7", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11",
            "t3", "t4", "t5", "t6",
        ];
        f.write_str(NAMES[self.0 as usize])
    }
}

/// A floating-point register f0..f31.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FReg(u8);

impl FReg {
    pub fn new(n: u8) -> Option<FReg> {
        (n < 32).then_some(FReg(n))
    }
    /// fa0..fa7, the float argument registers.
    pub fn fa(n: u8) -> Option<FReg> {
        (n < 8).then_some(FReg(10 + n))
    }
    fn f(self) -> u32 {
        self.0 as u32
    }
}

impl fmt::Display for FReg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.0;
        match n {
            0..=7 => write!(f, "ft{n}"),
            8..=9 => write!(f, "fs{}", n - 8),
            10..=17 => write!(f, "fa{}", n - 10),
            18..=27 => write!(f, "fs{}", n - 16),
            _ => write!(f, "ft{}", n - 20),
        }
    }
}

/// Register-register operations (opcode OP / OP-32).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RegOp {
    Add,
    Sub,
    Sll,
    Slt,
    Sltu,
    Xor,
    Srl,
    Sra,
    Or,
    And,
    Mul,
    Mulh,
    Mulhu,
    Div,
    Divu,
    Rem,
    Remu,
    Addw,
    Subw,
    Sllw,
    Srlw,
    Sraw,
    Mulw,
    Divw,
    Remw,
}

impl RegOp {
    pub const ALL: [RegOp; 25] = [
        RegOp::Add,
        RegOp::Sub,
        RegOp::Sll,
        RegOp::Slt,
        RegOp::Sltu,
        RegOp::Xor,
        RegOp::Srl,
        RegOp::Sra,
        RegOp::Or,
        RegOp::And,
        RegOp::Mul,
        RegOp::Mulh,
        RegOp::Mulhu,
        RegOp::Div,
        RegOp::Divu,
        RegOp::Rem,
        RegOp::Remu,
        RegOp::Addw,
        RegOp::Subw,
        RegOp::Sllw,
        RegOp::Srlw,
        RegOp::Sraw,
        RegOp::Mulw,
        RegOp::Divw,
        RegOp::Remw,
    ];
    /// (funct7, funct3, opcode)
    fn bits(self) -> (u32, u32, u32) {
        use RegOp::*;
        match self {
            Add => (0x00, 0, 0x33),
            Sub => (0x20, 0, 0x33),
            Sll => (0x00, 1, 0x33),
            Slt => (0x00, 2, 0x33),
            Sltu => (0x00, 3, 0x33),
            Xor => (0x00, 4, 0x33),
            Srl => (0x00, 5, 0x33),
            Sra => (0x20, 5, 0x33),
            Or => (0x00, 6, 0x33),
            And => (0x00, 7, 0x33),
            Mul => (0x01, 0, 0x33),
            Mulh => (0x01, 1, 0x33),
            Mulhu => (0x01, 3, 0x33),
            Div => (0x01, 4, 0x33),
            Divu => (0x01, 5, 0x33),
            Rem => (0x01, 6, 0x33),
            Remu => (0x01, 7, 0x33),
            Addw => (0x00, 0, 0x3b),
            Subw => (0x20, 0, 0x3b),
            Sllw => (0x00, 1, 0x3b),
            Srlw => (0x00, 5, 0x3b),
            Sraw => (0x20, 5, 0x3b),
            Mulw => (0x01, 0, 0x3b),
            Divw => (0x01, 4, 0x3b),
            Remw => (0x01, 6, 0x3b),
        }
    }
    fn name(self) -> String {
        format!("{self:?}").to_lowercase()
    }
}

/// Register-immediate operations (opcode OP-IMM / OP-IMM-32).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ImmOp {
    Addi,
    Slti,
    Sltiu,
    Xori,
    Ori,
    Andi,
    Slli,
    Srli,
    Srai,
    Addiw,
    Slliw,
    Srliw,
    Sraiw,
}

impl ImmOp {
    pub const ALL: [ImmOp; 13] = [
        ImmOp::Addi,
        ImmOp::Slti,
        ImmOp::Sltiu,
        ImmOp::Xori,
        ImmOp::Ori,
        ImmOp::Andi,
        ImmOp::Slli,
        ImmOp::Srli,
        ImmOp::Srai,
        ImmOp::Addiw,
        ImmOp::Slliw,
        ImmOp::Srliw,
        ImmOp::Sraiw,
    ];
    /// (funct3, opcode, shift amount bits or 0 for a 12-bit immediate,
    /// the bits above the shift amount)
    fn bits(self) -> (u32, u32, u32, u32) {
        use ImmOp::*;
        match self {
            Addi => (0, 0x13, 0, 0),
            Slti => (2, 0x13, 0, 0),
            Sltiu => (3, 0x13, 0, 0),
            Xori => (4, 0x13, 0, 0),
            Ori => (6, 0x13, 0, 0),
            Andi => (7, 0x13, 0, 0),
            Slli => (1, 0x13, 6, 0),
            Srli => (5, 0x13, 6, 0),
            Srai => (5, 0x13, 6, 0x400),
            Addiw => (0, 0x1b, 0, 0),
            Slliw => (1, 0x1b, 5, 0),
            Srliw => (5, 0x1b, 5, 0),
            Sraiw => (5, 0x1b, 5, 0x400),
        }
    }
    fn name(self) -> String {
        format!("{self:?}").to_lowercase()
    }
}

/// Conditional branches: (funct3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BCond {
    Eq = 0,
    Ne = 1,
    Lt = 4,
    Ge = 5,
    Ltu = 6,
    Geu = 7,
}

impl BCond {
    pub const ALL: [BCond; 6] = [
        BCond::Eq,
        BCond::Ne,
        BCond::Lt,
        BCond::Ge,
        BCond::Ltu,
        BCond::Geu,
    ];
    /// The opposite condition (flip funct3 bit 0).
    pub fn invert(self) -> BCond {
        match self {
            BCond::Eq => BCond::Ne,
            BCond::Ne => BCond::Eq,
            BCond::Lt => BCond::Ge,
            BCond::Ge => BCond::Lt,
            BCond::Ltu => BCond::Geu,
            BCond::Geu => BCond::Ltu,
        }
    }
    fn name(self) -> &'static str {
        match self {
            BCond::Eq => "beq",
            BCond::Ne => "bne",
            BCond::Lt => "blt",
            BCond::Ge => "bge",
            BCond::Ltu => "bltu",
            BCond::Geu => "bgeu",
        }
    }
}

/// Integer loads: width and extension, as funct3.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LoadOp {
    Lb = 0,
    Lh = 1,
    Lw = 2,
    Ld = 3,
    Lbu = 4,
    Lhu = 5,
    Lwu = 6,
}

impl LoadOp {
    pub const ALL: [LoadOp; 7] = [
        LoadOp::Lb,
        LoadOp::Lh,
        LoadOp::Lw,
        LoadOp::Ld,
        LoadOp::Lbu,
        LoadOp::Lhu,
        LoadOp::Lwu,
    ];
    fn name(self) -> String {
        format!("{self:?}").to_lowercase()
    }
}

/// Integer stores, as funct3.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StoreOp {
    Sb = 0,
    Sh = 1,
    Sw = 2,
    Sd = 3,
}

impl StoreOp {
    pub const ALL: [StoreOp; 4] = [StoreOp::Sb, StoreOp::Sh, StoreOp::Sw, StoreOp::Sd];
    fn name(self) -> String {
        format!("{self:?}").to_lowercase()
    }
}

/// Floating-point precision: the `fmt` field, `.s` or `.d`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Prec {
    F32,
    F64,
}

impl Prec {
    fn fmt_bits(self) -> u32 {
        match self {
            Prec::F32 => 0,
            Prec::F64 => 1,
        }
    }
    fn suffix(self) -> &'static str {
        match self {
            Prec::F32 => "s",
            Prec::F64 => "d",
        }
    }
}

/// Floating-point arithmetic (funct5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FOp {
    Add = 0,
    Sub = 1,
    Mul = 2,
    Div = 3,
}

impl FOp {
    pub const ALL: [FOp; 4] = [FOp::Add, FOp::Sub, FOp::Mul, FOp::Div];
}

/// Sign injection: `fsgnj` (with rs1 == rs2: `fmv`), `fsgnjn` (`fneg`),
/// `fsgnjx` (`fabs`). The discriminant is funct3.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Sgnj {
    J = 0,
    Jn = 1,
    Jx = 2,
}

/// Float compares into an integer register (funct3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FCmp {
    Le = 0,
    Lt = 1,
    Eq = 2,
}

/// Integer type of a conversion: the `rs2` field of FCVT.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IntTy {
    W = 0,
    Wu = 1,
    L = 2,
    Lu = 3,
}

impl IntTy {
    fn name(self) -> &'static str {
        ["w", "wu", "l", "lu"][self as usize]
    }
}

/// Rounding modes used here: rne (000), rtz (001), dyn (111).
const RNE: u32 = 0;
const RTZ: u32 = 1;
const DYN: u32 = 7;

/// One RISC-V instruction form.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Inst {
    /// `add rd, rs1, rs2` and the other register-register ops.
    Op {
        op: RegOp,
        rd: Reg,
        rs1: Reg,
        rs2: Reg,
    },
    /// `addi rd, rs1, imm` (12-bit signed) and shifts by an amount.
    OpImm {
        op: ImmOp,
        rd: Reg,
        rs1: Reg,
        imm: i32,
    },
    /// `lui rd, imm20`: rd = sext(imm20 << 12).
    Lui { rd: Reg, imm20: u32 },
    /// `auipc rd, imm20`: rd = pc + sext(imm20 << 12).
    Auipc { rd: Reg, imm20: u32 },
    /// `beq rs1, rs2, offset` (bytes, even, ±4 KiB).
    Branch {
        cond: BCond,
        rs1: Reg,
        rs2: Reg,
        offset: i32,
    },
    /// `jal rd, offset` (bytes, even, ±1 MiB).
    Jal { rd: Reg, offset: i32 },
    /// `jalr rd, offset(rs1)`: indirect jump or call; `ret` is
    /// `jalr zero, 0(ra)`.
    Jalr { rd: Reg, rs1: Reg, offset: i32 },
    /// `ld rd, offset(rs1)` and narrower loads.
    Load {
        op: LoadOp,
        rd: Reg,
        rs1: Reg,
        offset: i32,
    },
    /// `sd rs2, offset(rs1)` and narrower stores.
    Store {
        op: StoreOp,
        rs2: Reg,
        rs1: Reg,
        offset: i32,
    },
    /// `fld rd, offset(rs1)` / `flw`
    FLoad {
        prec: Prec,
        rd: FReg,
        rs1: Reg,
        offset: i32,
    },
    /// `fsd rs2, offset(rs1)` / `fsw`
    FStore {
        prec: Prec,
        rs2: FReg,
        rs1: Reg,
        offset: i32,
    },
    /// `fadd.d rd, rs1, rs2` (rounding mode dyn).
    FArith {
        op: FOp,
        prec: Prec,
        rd: FReg,
        rs1: FReg,
        rs2: FReg,
    },
    /// `fsgnj.d rd, rs1, rs2` and friends (moves, negation, abs).
    FSgnj {
        op: Sgnj,
        prec: Prec,
        rd: FReg,
        rs1: FReg,
        rs2: FReg,
    },
    /// `feq.d rd, rs1, rs2`: 1 or 0 in an integer register.
    FCmp {
        op: FCmp,
        prec: Prec,
        rd: Reg,
        rs1: FReg,
        rs2: FReg,
    },
    /// `fcvt.d.l rd, rs1`: integer to float.
    FCvtFromInt {
        prec: Prec,
        int: IntTy,
        rd: FReg,
        rs1: Reg,
    },
    /// `fcvt.l.d rd, rs1, rtz`: float to integer, truncating.
    FCvtToInt {
        prec: Prec,
        int: IntTy,
        rd: Reg,
        rs1: FReg,
    },
    /// `fcvt.d.s` / `fcvt.s.d`: `to` is rd's precision.
    FCvtFF { to: Prec, rd: FReg, rs1: FReg },
    /// `fmv.d.x rd, rs1` / `fmv.w.x`: integer bits to a float register.
    FMvToF { prec: Prec, rd: FReg, rs1: Reg },
    /// `fmv.x.d rd, rs1` / `fmv.x.w`: float bits to an integer register.
    FMvFromF { prec: Prec, rd: Reg, rs1: FReg },
    /// `auipc rd, 0`: the first half of a pair whose target is not known
    /// yet. Its fixup, of `kind` [`FixupKind::RiscvCall`] (before a
    /// `jalr`) or [`FixupKind::RiscvPcrelHi20`] (before an `addi` or a
    /// load), fills both halves when [`patch`]ed; as a relocation it names
    /// the target.
    AuipcFixup { rd: Reg, kind: FixupKind },
    /// `fld rd, 0(rs1)` / `flw`: the load that ends a PC-relative pair,
    /// its displacement a [`FixupKind::RiscvPcrelLo12I`] fixup (which an
    /// ELF relocation ties to the `auipc` before it).
    FLoadPcrelLo { prec: Prec, rd: FReg, rs1: Reg },
    /// `nop` = `addi zero, zero, 0`.
    Nop,
}

fn r_type(funct7: u32, rs2: u32, rs1: u32, funct3: u32, rd: u32, opcode: u32) -> u32 {
    funct7 << 25 | rs2 << 20 | rs1 << 15 | funct3 << 12 | rd << 7 | opcode
}

fn i_type(imm: i32, rs1: u32, funct3: u32, rd: u32, opcode: u32) -> Result<u32, EncodeError> {
    check_signed("12-bit immediate", imm as i64, 12)?;
    Ok(((imm as u32) & 0xfff) << 20 | rs1 << 15 | funct3 << 12 | rd << 7 | opcode)
}

fn s_type(imm: i32, rs2: u32, rs1: u32, funct3: u32, opcode: u32) -> Result<u32, EncodeError> {
    check_signed("12-bit store offset", imm as i64, 12)?;
    let imm = imm as u32;
    Ok((imm >> 5 & 0x7f) << 25 | rs2 << 20 | rs1 << 15 | funct3 << 12 | (imm & 0x1f) << 7 | opcode)
}

/// The scrambled immediate bits of a B-type branch.
fn b_imm(offset: i64) -> Result<u32, EncodeError> {
    check_align("branch offset", offset, 2)?;
    check_signed("branch offset", offset, 13)?;
    let i = offset as u32;
    Ok((i >> 12 & 1) << 31 | (i >> 5 & 0x3f) << 25 | (i >> 1 & 0xf) << 8 | (i >> 11 & 1) << 7)
}

/// The scrambled immediate bits of a J-type jump.
fn j_imm(offset: i64) -> Result<u32, EncodeError> {
    check_align("jump offset", offset, 2)?;
    check_signed("jump offset", offset, 21)?;
    let i = offset as u32;
    Ok((i >> 20 & 1) << 31 | (i >> 1 & 0x3ff) << 21 | (i >> 11 & 1) << 20 | (i >> 12 & 0xff) << 12)
}

fn u_imm(imm20: u32) -> Result<u32, EncodeError> {
    crate::check_unsigned("20-bit upper immediate", imm20 as i64, 20)?;
    Ok(imm20 << 12)
}

/// Split a 32-bit signed offset or constant into `(hi20, lo12)` with
/// `(sext(hi20 << 12)) + lo12 == value`: hi20 for LUI/AUIPC, lo12 for
/// ADDI/loads. The `+0x800` rounds hi20 up when lo12 will be negative.
pub fn split_hi_lo(value: i64) -> Result<(u32, i32), EncodeError> {
    // hi20 is a signed 20-bit page count: value + 0x800 must fit 32 bits.
    let hi = (value + 0x800) >> 12;
    check_signed("pc-relative/32-bit value (hi20)", hi, 20).map_err(|_| {
        EncodeError::OutOfRange {
            what: "value for a hi20/lo12 pair",
            value,
            min: -(1 << 31) - 0x800,
            max: (1 << 31) - 0x801,
        }
    })?;
    let lo = value - (hi << 12);
    Ok(((hi as u32) & 0xfffff, lo as i32))
}

impl Inst {
    /// Append this instruction's 4 bytes to `buf`. Returns the fixup of a
    /// PC-relative form (branches, JAL).
    pub fn encode(&self, buf: &mut Vec<u8>) -> EncodeResult {
        let (word, fixup) = self.word()?;
        let offset = buf.len();
        buf.extend_from_slice(&word.to_le_bytes());
        Ok(fixup.map(|kind| Fixup {
            offset,
            kind,
            addend: 0,
        }))
    }

    /// The instruction word, and the kind of its PC-relative field if any.
    pub fn word(&self) -> Result<(u32, Option<FixupKind>), EncodeError> {
        let mut fixup = None;
        let w = match *self {
            Inst::Op { op, rd, rs1, rs2 } => {
                let (f7, f3, opc) = op.bits();
                r_type(f7, rs2.f(), rs1.f(), f3, rd.f(), opc)
            }
            Inst::OpImm { op, rd, rs1, imm } => {
                let (f3, opc, shamt_bits, hi) = op.bits();
                if shamt_bits == 0 {
                    i_type(imm, rs1.f(), f3, rd.f(), opc)?
                } else {
                    let max = (1i64 << shamt_bits) - 1;
                    if !(0..=max).contains(&(imm as i64)) {
                        return Err(EncodeError::OutOfRange {
                            what: "shift amount",
                            value: imm as i64,
                            min: 0,
                            max,
                        });
                    }
                    (hi | imm as u32) << 20 | rs1.f() << 15 | f3 << 12 | rd.f() << 7 | opc
                }
            }
            Inst::Lui { rd, imm20 } => u_imm(imm20)? | rd.f() << 7 | 0x37,
            Inst::Auipc { rd, imm20 } => u_imm(imm20)? | rd.f() << 7 | 0x17,
            Inst::AuipcFixup { rd, kind } => {
                if !matches!(kind, FixupKind::RiscvCall | FixupKind::RiscvPcrelHi20) {
                    return Err(EncodeError::InvalidOperand(format!(
                        "{kind:?} is no fixup of an auipc"
                    )));
                }
                fixup = Some(kind);
                rd.f() << 7 | 0x17
            }
            Inst::Branch {
                cond,
                rs1,
                rs2,
                offset,
            } => {
                fixup = Some(FixupKind::RiscvBranch12);
                b_imm(offset as i64)? | rs2.f() << 20 | rs1.f() << 15 | (cond as u32) << 12 | 0x63
            }
            Inst::Jal { rd, offset } => {
                fixup = Some(FixupKind::RiscvJal20);
                j_imm(offset as i64)? | rd.f() << 7 | 0x6f
            }
            Inst::Jalr { rd, rs1, offset } => i_type(offset, rs1.f(), 0, rd.f(), 0x67)?,
            Inst::Load {
                op,
                rd,
                rs1,
                offset,
            } => i_type(offset, rs1.f(), op as u32, rd.f(), 0x03)?,
            Inst::Store {
                op,
                rs2,
                rs1,
                offset,
            } => s_type(offset, rs2.f(), rs1.f(), op as u32, 0x23)?,
            Inst::FLoad {
                prec,
                rd,
                rs1,
                offset,
            } => i_type(offset, rs1.f(), 2 + prec.fmt_bits(), rd.f(), 0x07)?,
            Inst::FLoadPcrelLo { prec, rd, rs1 } => {
                fixup = Some(FixupKind::RiscvPcrelLo12I);
                i_type(0, rs1.f(), 2 + prec.fmt_bits(), rd.f(), 0x07)?
            }
            Inst::FStore {
                prec,
                rs2,
                rs1,
                offset,
            } => s_type(offset, rs2.f(), rs1.f(), 2 + prec.fmt_bits(), 0x27)?,
            Inst::FArith {
                op,
                prec,
                rd,
                rs1,
                rs2,
            } => r_type(
                (op as u32) << 2 | prec.fmt_bits(),
                rs2.f(),
                rs1.f(),
                DYN,
                rd.f(),
                0x53,
            ),
            Inst::FSgnj {
                op,
                prec,
                rd,
                rs1,
                rs2,
            } => r_type(
                0x10 | prec.fmt_bits(),
                rs2.f(),
                rs1.f(),
                op as u32,
                rd.f(),
                0x53,
            ),
            Inst::FCmp {
                op,
                prec,
                rd,
                rs1,
                rs2,
            } => r_type(
                0x50 | prec.fmt_bits(),
                rs2.f(),
                rs1.f(),
                op as u32,
                rd.f(),
                0x53,
            ),
            Inst::FCvtFromInt { prec, int, rd, rs1 } => {
                // Every 32-bit integer is exact in a double: LLVM uses rne.
                let rm = if prec == Prec::F64 && matches!(int, IntTy::W | IntTy::Wu) {
                    RNE
                } else {
                    DYN
                };
                r_type(
                    0x68 | prec.fmt_bits(),
                    int as u32,
                    rs1.f(),
                    rm,
                    rd.f(),
                    0x53,
                )
            }
            Inst::FCvtToInt { prec, int, rd, rs1 } => r_type(
                0x60 | prec.fmt_bits(),
                int as u32,
                rs1.f(),
                RTZ,
                rd.f(),
                0x53,
            ),
            Inst::FCvtFF { to, rd, rs1 } => match to {
                // fcvt.d.s is exact (rne); fcvt.s.d rounds (dyn).
                Prec::F64 => r_type(0x21, 0, rs1.f(), RNE, rd.f(), 0x53),
                Prec::F32 => r_type(0x20, 1, rs1.f(), DYN, rd.f(), 0x53),
            },
            Inst::FMvToF { prec, rd, rs1 } => {
                r_type(0x78 | prec.fmt_bits(), 0, rs1.f(), 0, rd.f(), 0x53)
            }
            Inst::FMvFromF { prec, rd, rs1 } => {
                r_type(0x70 | prec.fmt_bits(), 0, rs1.f(), 0, rd.f(), 0x53)
            }
            Inst::Nop => 0x0000_0013,
        };
        Ok((w, fixup))
    }
}

/// The instructions that put `value` in `rd`, as LLVM's `li` expands:
/// ADDI for 12 bits, LUI+ADDIW for 32 bits, else the upper bits
/// recursively, shifted left by SLLI, plus a final ADDI of the low 12.
pub fn load_const(rd: Reg, value: i64) -> Vec<Inst> {
    let mut out = Vec::with_capacity(8);
    build_const(rd, value, &mut out);
    out
}

fn build_const(rd: Reg, value: i64, out: &mut Vec<Inst>) {
    if i32::try_from(value).is_ok() {
        // As split_hi_lo, but hi20 may wrap: for 0x7ffff800..=0x7fffffff
        // LUI makes a negative number and ADDIW wraps it back, in 32 bits.
        let hi20 = (((value + 0x800) >> 12) & 0xfffff) as u32;
        let lo12 = ((value << 52) >> 52) as i32;
        if hi20 != 0 {
            out.push(Inst::Lui { rd, imm20: hi20 });
            if lo12 != 0 {
                // ADDIW: the 32-bit add wraps exactly like the value does.
                out.push(Inst::OpImm {
                    op: ImmOp::Addiw,
                    rd,
                    rs1: rd,
                    imm: lo12,
                });
            }
        } else {
            out.push(Inst::OpImm {
                op: ImmOp::Addi,
                rd,
                rs1: Reg::ZERO,
                imm: lo12,
            });
        }
        return;
    }
    // The low 12 bits, sign-extended; the rest with trailing zeros removed.
    let lo12 = (value << 52) >> 52;
    let rest = ((value as i128 - lo12 as i128) >> 12) as i64;
    let shift = 12 + rest.trailing_zeros();
    let upper = rest >> rest.trailing_zeros();
    build_const(rd, upper, out);
    out.push(Inst::OpImm {
        op: ImmOp::Slli,
        rd,
        rs1: rd,
        imm: shift as i32,
    });
    if lo12 != 0 {
        out.push(Inst::OpImm {
            op: ImmOp::Addi,
            rd,
            rs1: rd,
            imm: lo12 as i32,
        });
    }
}

/// `auipc ra, 0; jalr ra, 0(ra)`: a call anywhere within ±2 GiB, with one
/// R_RISCV_CALL_PLT fixup on the pair.
pub fn call(buf: &mut Vec<u8>) -> Result<Fixup, EncodeError> {
    let offset = buf.len();
    Inst::Auipc {
        rd: Reg::RA,
        imm20: 0,
    }
    .encode(buf)?;
    Inst::Jalr {
        rd: Reg::RA,
        rs1: Reg::RA,
        offset: 0,
    }
    .encode(buf)?;
    Ok(Fixup {
        offset,
        kind: FixupKind::RiscvCall,
        addend: 0,
    })
}

/// `auipc rd, 0; addi rd, rd, 0`: a PC-relative address within ±2 GiB.
/// Returns the fixups of both halves (PCREL_HI20 on the AUIPC,
/// PCREL_LO12_I on the ADDI, which in ELF names the AUIPC's label).
pub fn pcrel_addr(buf: &mut Vec<u8>, rd: Reg) -> Result<[Fixup; 2], EncodeError> {
    let offset = buf.len();
    Inst::Auipc { rd, imm20: 0 }.encode(buf)?;
    Inst::OpImm {
        op: ImmOp::Addi,
        rd,
        rs1: rd,
        imm: 0,
    }
    .encode(buf)?;
    Ok([
        Fixup {
            offset,
            kind: FixupKind::RiscvPcrelHi20,
            addend: 0,
        },
        Fixup {
            offset: offset + 4,
            kind: FixupKind::RiscvPcrelLo12I,
            addend: 0,
        },
    ])
}

fn read(code: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(code[at..at + 4].try_into().unwrap())
}

fn write(code: &mut [u8], at: usize, w: u32) {
    code[at..at + 4].copy_from_slice(&w.to_le_bytes());
}

/// Fill the PC-relative field at `fixup.offset` so that it reaches `target`
/// (a byte offset in the same buffer). For a call or an address pair this
/// patches both instructions of the pair, given the fixup of the first.
pub fn patch(code: &mut [u8], fixup: &Fixup, target: usize) -> Result<(), EncodeError> {
    let at = fixup.offset;
    let disp = target as i64 - at as i64;
    match fixup.kind {
        FixupKind::RiscvBranch12 => {
            let w = read(code, at) & 0x01ff_f07f | b_imm(disp)?;
            write(code, at, w);
        }
        FixupKind::RiscvJal20 => {
            let w = read(code, at) & 0xfff | j_imm(disp)?;
            write(code, at, w);
        }
        FixupKind::RiscvCall | FixupKind::RiscvPcrelHi20 => {
            let (hi20, lo12) = split_hi_lo(disp)?;
            let hi = read(code, at) & 0xfff | hi20 << 12;
            // The second instruction is I-type (ADDI or JALR): imm in 31..20.
            let lo = read(code, at + 4) & 0x000f_ffff | ((lo12 as u32) & 0xfff) << 20;
            write(code, at, hi);
            write(code, at + 4, lo);
        }
        other => {
            return Err(EncodeError::InvalidOperand(format!(
                "{other:?} is not patched on its own (patch the pair through its first fixup)"
            )))
        }
    }
    Ok(())
}

impl fmt::Display for Inst {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Inst::Op { op, rd, rs1, rs2 } => write!(f, "{} {rd}, {rs1}, {rs2}", op.name()),
            Inst::OpImm { op, rd, rs1, imm } => write!(f, "{} {rd}, {rs1}, {imm}", op.name()),
            Inst::Lui { rd, imm20 } => write!(f, "lui {rd}, {imm20}"),
            Inst::Auipc { rd, imm20 } => write!(f, "auipc {rd}, {imm20}"),
            Inst::AuipcFixup { rd, .. } => write!(f, "auipc {rd}, 0"),
            Inst::FLoadPcrelLo { prec, rd, rs1 } => write!(
                f,
                "{} {rd}, 0({rs1})",
                if prec == Prec::F64 { "fld" } else { "flw" }
            ),
            Inst::Branch {
                cond,
                rs1,
                rs2,
                offset,
            } => write!(f, "{} {rs1}, {rs2}, {offset}", cond.name()),
            Inst::Jal { rd, offset } => write!(f, "jal {rd}, {offset}"),
            Inst::Jalr { rd, rs1, offset } => write!(f, "jalr {rd}, {offset}({rs1})"),
            Inst::Load {
                op,
                rd,
                rs1,
                offset,
            } => write!(f, "{} {rd}, {offset}({rs1})", op.name()),
            Inst::Store {
                op,
                rs2,
                rs1,
                offset,
            } => write!(f, "{} {rs2}, {offset}({rs1})", op.name()),
            Inst::FLoad {
                prec,
                rd,
                rs1,
                offset,
            } => write!(
                f,
                "{} {rd}, {offset}({rs1})",
                if prec == Prec::F64 { "fld" } else { "flw" }
            ),
            Inst::FStore {
                prec,
                rs2,
                rs1,
                offset,
            } => write!(
                f,
                "{} {rs2}, {offset}({rs1})",
                if prec == Prec::F64 { "fsd" } else { "fsw" }
            ),
            Inst::FArith {
                op,
                prec,
                rd,
                rs1,
                rs2,
            } => {
                let name = ["fadd", "fsub", "fmul", "fdiv"][op as usize];
                write!(f, "{name}.{} {rd}, {rs1}, {rs2}", prec.suffix())
            }
            Inst::FSgnj {
                op,
                prec,
                rd,
                rs1,
                rs2,
            } => {
                let name = ["fsgnj", "fsgnjn", "fsgnjx"][op as usize];
                write!(f, "{name}.{} {rd}, {rs1}, {rs2}", prec.suffix())
            }
            Inst::FCmp {
                op,
                prec,
                rd,
                rs1,
                rs2,
            } => {
                let name = ["fle", "flt", "feq"][op as usize];
                write!(f, "{name}.{} {rd}, {rs1}, {rs2}", prec.suffix())
            }
            Inst::FCvtFromInt { prec, int, rd, rs1 } => {
                write!(f, "fcvt.{}.{} {rd}, {rs1}", prec.suffix(), int.name())
            }
            Inst::FCvtToInt { prec, int, rd, rs1 } => {
                write!(f, "fcvt.{}.{} {rd}, {rs1}, rtz", int.name(), prec.suffix())
            }
            Inst::FCvtFF { to, rd, rs1 } => match to {
                Prec::F64 => write!(f, "fcvt.d.s {rd}, {rs1}"),
                Prec::F32 => write!(f, "fcvt.s.d {rd}, {rs1}"),
            },
            Inst::FMvToF { prec, rd, rs1 } => match prec {
                Prec::F64 => write!(f, "fmv.d.x {rd}, {rs1}"),
                Prec::F32 => write!(f, "fmv.w.x {rd}, {rs1}"),
            },
            Inst::FMvFromF { prec, rd, rs1 } => match prec {
                Prec::F64 => write!(f, "fmv.x.d {rd}, {rs1}"),
                Prec::F32 => write!(f, "fmv.x.w {rd}, {rs1}"),
            },
            Inst::Nop => f.write_str("nop"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Evaluate a constant sequence the way the CPU would.
    fn run_const(insts: &[Inst]) -> i64 {
        let mut r: i64 = 0;
        for i in insts {
            r = match *i {
                Inst::Lui { imm20, .. } => ((imm20 << 12) as i32) as i64,
                Inst::OpImm {
                    op: ImmOp::Addiw,
                    imm,
                    ..
                } => (r as i32).wrapping_add(imm) as i64,
                Inst::OpImm {
                    op: ImmOp::Addi,
                    rs1,
                    imm,
                    ..
                } => (if rs1 == Reg::ZERO { 0 } else { r }).wrapping_add(imm as i64),
                Inst::OpImm {
                    op: ImmOp::Slli,
                    imm,
                    ..
                } => r << imm,
                other => panic!("unexpected {other}"),
            };
        }
        r
    }

    #[test]
    fn constants_build_exactly() {
        for v in [
            0,
            1,
            -1,
            2047,
            -2048,
            2048,
            0x7fff_f800,
            0x7fff_ffff,
            -0x8000_0000,
            0x8000_0000,
            0x1234_5678_9abc_def0,
            i64::MAX,
            i64::MIN,
            -0x8000_0801,
            0x0000_0fff_ffff_f800,
        ] {
            let seq = load_const(Reg::A0, v);
            assert!(seq.len() <= 8, "{v:#x}: {} instructions", seq.len());
            assert_eq!(run_const(&seq), v, "{v:#x}");
            for i in &seq {
                i.word().unwrap();
            }
        }
    }

    #[test]
    fn hi_lo_rounding() {
        assert_eq!(split_hi_lo(0x800).unwrap(), (1, -2048));
        assert_eq!(split_hi_lo(0x7ff).unwrap(), (0, 0x7ff));
        assert_eq!(split_hi_lo(-1).unwrap(), (0, -1));
        assert!(split_hi_lo(0x7fff_f800).is_err());
        assert!(split_hi_lo(-(1 << 31) - 0x800).is_ok());
        assert!(split_hi_lo(-(1 << 31) - 0x801).is_err());
    }

    #[test]
    fn known_words() {
        let add = Inst::Op {
            op: RegOp::Add,
            rd: Reg::A0,
            rs1: Reg::A1,
            rs2: Reg::A2,
        };
        assert_eq!(add.word().unwrap().0, 0x00c5_8533);
        let ret = Inst::Jalr {
            rd: Reg::ZERO,
            rs1: Reg::RA,
            offset: 0,
        };
        assert_eq!(ret.word().unwrap().0, 0x0000_8067);
    }

    #[test]
    fn out_of_range_is_an_error() {
        let addi = |imm| Inst::OpImm {
            op: ImmOp::Addi,
            rd: Reg::A0,
            rs1: Reg::A0,
            imm,
        };
        assert!(addi(2047).word().is_ok());
        assert!(addi(2048).word().is_err());
        assert!(addi(-2049).word().is_err());
        let br = |offset| Inst::Branch {
            cond: BCond::Eq,
            rs1: Reg::A0,
            rs2: Reg::A1,
            offset,
        };
        assert!(br(4094).word().is_ok());
        assert!(br(4096).word().is_err());
        assert!(br(3).word().is_err());
        assert!(Inst::Jal {
            rd: Reg::RA,
            offset: 1 << 20
        }
        .word()
        .is_err());
        assert!(Inst::Lui {
            rd: Reg::A0,
            imm20: 1 << 20
        }
        .word()
        .is_err());
        assert!(Inst::OpImm {
            op: ImmOp::Slliw,
            rd: Reg::A0,
            rs1: Reg::A0,
            imm: 32
        }
        .word()
        .is_err());
    }

    #[test]
    fn pair_fixups() {
        let mut buf = vec![0; 8];
        let hi = Inst::AuipcFixup {
            rd: Reg::x(31).unwrap(),
            kind: FixupKind::RiscvPcrelHi20,
        };
        let fx = hi.encode(&mut buf).unwrap().unwrap();
        assert_eq!((fx.offset, fx.kind), (8, FixupKind::RiscvPcrelHi20));
        let lo = Inst::FLoadPcrelLo {
            prec: Prec::F64,
            rd: FReg::new(10).unwrap(),
            rs1: Reg::x(31).unwrap(),
        };
        let fx2 = lo.encode(&mut buf).unwrap().unwrap();
        assert_eq!((fx2.offset, fx2.kind), (12, FixupKind::RiscvPcrelLo12I));
        patch(&mut buf, &fx, 0).unwrap(); // 8 bytes back
        assert_eq!(read(&buf, 8), 0x0000_0f97); // auipc t6, 0
        assert_eq!(read(&buf, 12) >> 20, 0xff8); // fld fa0, -8(t6)
        let bad = Inst::AuipcFixup {
            rd: Reg::RA,
            kind: FixupKind::RiscvJal20,
        };
        assert!(bad.word().is_err());
    }

    #[test]
    fn call_patch() {
        let mut buf = vec![0; 8];
        let fix = call(&mut buf).unwrap();
        patch(&mut buf, &fix, 0).unwrap(); // 8 bytes back
        assert_eq!(read(&buf, 8), 0x0000_0097); // auipc ra, 0
        assert_eq!(read(&buf, 12) >> 20, 0xff8); // jalr ra, -8(ra)
    }
}
