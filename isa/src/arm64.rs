//! AArch64: every instruction is one 32-bit little-endian word.
//!
//! * Register fields are 5 bits. Number 31 means **`sp` in some fields and
//!   `xzr`/`wzr` in others**: the base of a load/store and both operands of
//!   ADD/SUB *immediate* (without flags) read it as `sp`; everything else
//!   (shifted-register ALU ops, MUL, the register being loaded or stored,
//!   conditional selects) reads it as the zero register. [`Reg`] keeps `sp`
//!   and `xzr` apart and each encoder checks that the register it is given
//!   means what that field means. So `mov x0, sp` must be `add x0, sp, #0`,
//!   while `mov x0, x1` is `orr x0, xzr, x1`.
//! * Bit 31 (`sf`) selects 64-bit (`x`) or 32-bit (`w`) operands.
//! * ADD/SUB immediates are 12 bits, optionally shifted left by 12.
//! * AND/ORR/EOR immediates are **bitmask immediates**: a run of ones,
//!   rotated, replicated over an element of 2, 4, 8, 16, 32 or 64 bits,
//!   encoded as `N:immr:imms`. Only about 5,000 64-bit values are encodable;
//!   [`logical_imm`] finds the encoding or says there is none.
//! * Large constants are built 16 bits at a time: MOVZ (or MOVN for mostly
//!   ones) and then MOVK for each remaining non-trivial halfword
//!   ([`load_const`]).
//! * Loads and stores take an unsigned 12-bit offset *scaled* by the access
//!   size (`ldr x0, [x1, #32760]`), or an unscaled signed 9-bit one (`ldur`,
//!   -256..255), or a register offset optionally shifted by the size.
//! * Branch offsets are in words relative to the branch itself: 26 bits for
//!   B/BL (±128 MiB), 19 for B.cond/CBZ (±1 MiB). ADR reaches ±1 MiB in bytes;
//!   ADRP computes the 4 KiB page of an address ±4 GiB away, and an ADD (or
//!   load) supplies the low 12 bits ([`addr_pair`]).
//!
//! The text is the standard ARM syntax that `llvm-mc -triple=aarch64`
//! accepts; PC-relative operands are byte offsets (`b #16`, `adrp x0, #4096`).

use crate::{check_align, check_signed, EncodeError, EncodeResult, Fixup, FixupKind};
use std::fmt;

/// An integer register: x0..x30, or `sp`, or the zero register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Reg(u8);

impl Reg {
    /// The frame pointer x29.
    pub const FP: Reg = Reg(29);
    /// The link register x30.
    pub const LR: Reg = Reg(30);
    /// The zero register (field value 31 where it means zero).
    pub const XZR: Reg = Reg(31);
    /// The stack pointer (field value 31 where it means sp).
    pub const SP: Reg = Reg(32);

    /// x0..x30.
    pub fn x(n: u8) -> Option<Reg> {
        (n <= 30).then_some(Reg(n))
    }
    pub fn all_x() -> impl Iterator<Item = Reg> {
        (0..=30).map(Reg)
    }
    /// The 5-bit field of a register that may be xzr but not sp.
    fn zr(self) -> Result<u32, EncodeError> {
        if self == Reg::SP {
            return Err(EncodeError::InvalidOperand(
                "sp in a field where 31 means xzr".into(),
            ));
        }
        Ok(self.0 as u32)
    }
    /// The 5-bit field of a register that may be sp but not xzr.
    fn sp(self) -> Result<u32, EncodeError> {
        match self {
            Reg::XZR => Err(EncodeError::InvalidOperand(
                "xzr in a field where 31 means sp".into(),
            )),
            Reg::SP => Ok(31),
            r => Ok(r.0 as u32),
        }
    }
    fn name(self, size: Size) -> String {
        match (self, size) {
            (Reg::SP, Size::S64) => "sp".into(),
            (Reg::SP, Size::S32) => "wsp".into(),
            (Reg::XZR, Size::S64) => "xzr".into(),
            (Reg::XZR, Size::S32) => "wzr".into(),
            (r, Size::S64) => format!("x{}", r.0),
            (r, Size::S32) => format!("w{}", r.0),
        }
    }
}

impl fmt::Display for Reg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name(Size::S64))
    }
}

/// A floating-point register v0..v31 (used as `s` or `d`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FReg(u8);

impl FReg {
    pub fn new(n: u8) -> Option<FReg> {
        (n < 32).then_some(FReg(n))
    }
    fn name(self, prec: Prec) -> String {
        match prec {
            Prec::F32 => format!("s{}", self.0),
            Prec::F64 => format!("d{}", self.0),
        }
    }
}

/// Operand size: `w` registers (32 bits) or `x` registers (64 bits, sf=1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Size {
    S32,
    S64,
}

impl Size {
    fn sf(self) -> u32 {
        match self {
            Size::S32 => 0,
            Size::S64 => 1 << 31,
        }
    }
    fn bits(self) -> u32 {
        match self {
            Size::S32 => 32,
            Size::S64 => 64,
        }
    }
}

/// Floating-point precision, the `type` field (bits 22-23).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Prec {
    F32,
    F64,
}

impl Prec {
    fn ty(self) -> u32 {
        match self {
            Prec::F32 => 0,
            Prec::F64 => 1 << 22,
        }
    }
}

/// Condition codes (`b.cond`, `csel`, `cset`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Cond {
    Eq = 0,
    Ne,
    Hs,
    Lo,
    Mi,
    Pl,
    Vs,
    Vc,
    Hi,
    Ls,
    Ge,
    Lt,
    Gt,
    Le,
    Al,
    Nv,
}

impl Cond {
    pub const ALL: [Cond; 16] = [
        Cond::Eq,
        Cond::Ne,
        Cond::Hs,
        Cond::Lo,
        Cond::Mi,
        Cond::Pl,
        Cond::Vs,
        Cond::Vc,
        Cond::Hi,
        Cond::Ls,
        Cond::Ge,
        Cond::Lt,
        Cond::Gt,
        Cond::Le,
        Cond::Al,
        Cond::Nv,
    ];
    /// Flipping the low bit inverts a condition (except al/nv).
    pub fn invert(self) -> Cond {
        Cond::ALL[self as usize ^ 1]
    }
    fn name(self) -> &'static str {
        [
            "eq", "ne", "hs", "lo", "mi", "pl", "vs", "vc", "hi", "ls", "ge", "lt", "gt", "le",
            "al", "nv",
        ][self as usize]
    }
}

/// ADD or SUB.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AddSub {
    Add,
    Sub,
}

/// Logical operations. `Bic`/`Orn` (and-not, or-not) exist only with a
/// register operand; `Orn rd, xzr, rm` is `mvn`, the bitwise not.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Logic {
    And,
    Orr,
    Eor,
    Ands,
    Bic,
    Orn,
}

impl Logic {
    /// (opc, N) of the shifted-register form.
    fn bits(self) -> (u32, u32) {
        match self {
            Logic::And => (0, 0),
            Logic::Orr => (1, 0),
            Logic::Eor => (2, 0),
            Logic::Ands => (3, 0),
            Logic::Bic => (0, 1),
            Logic::Orn => (1, 1),
        }
    }
    fn name(self) -> &'static str {
        match self {
            Logic::And => "and",
            Logic::Orr => "orr",
            Logic::Eor => "eor",
            Logic::Ands => "ands",
            Logic::Bic => "bic",
            Logic::Orn => "orn",
        }
    }
}

/// Shifts: LSL, LSR, ASR.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Shift {
    Lsl,
    Lsr,
    Asr,
}

impl Shift {
    fn name(self) -> &'static str {
        match self {
            Shift::Lsl => "lsl",
            Shift::Lsr => "lsr",
            Shift::Asr => "asr",
        }
    }
}

/// Floating-point arithmetic (opcode bits 12-15).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FOp {
    Mul = 0,
    Div = 1,
    Add = 2,
    Sub = 3,
}

impl FOp {
    pub const ALL: [FOp; 4] = [FOp::Add, FOp::Sub, FOp::Mul, FOp::Div];
    fn name(self) -> &'static str {
        ["fmul", "fdiv", "fadd", "fsub"][self as usize]
    }
}

/// One-operand floating-point operations (opcode bits 15-16).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FUnary {
    Mov = 0,
    Abs = 1,
    Neg = 2,
    Sqrt = 3,
}

impl FUnary {
    fn name(self) -> &'static str {
        ["fmov", "fabs", "fneg", "fsqrt"][self as usize]
    }
}

/// Integer loads and stores: which width, and how a load extends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LdSt {
    Strb,
    Strh,
    StrW,
    StrX,
    /// Zero-extending byte load (to 32, hence 64 bits).
    Ldrb,
    Ldrh,
    /// 32-bit load, zero-extended to 64.
    LdrW,
    LdrX,
    /// Sign-extending loads to 64 bits.
    Ldrsb,
    Ldrsh,
    Ldrsw,
}

impl LdSt {
    pub const ALL: [LdSt; 11] = [
        LdSt::Strb,
        LdSt::Strh,
        LdSt::StrW,
        LdSt::StrX,
        LdSt::Ldrb,
        LdSt::Ldrh,
        LdSt::LdrW,
        LdSt::LdrX,
        LdSt::Ldrsb,
        LdSt::Ldrsh,
        LdSt::Ldrsw,
    ];
    /// (log2 size, opc): opc 00 store, 01 load, 10 sign-extending load to x.
    fn bits(self) -> (u32, u32) {
        match self {
            LdSt::Strb => (0, 0),
            LdSt::Ldrb => (0, 1),
            LdSt::Ldrsb => (0, 2),
            LdSt::Strh => (1, 0),
            LdSt::Ldrh => (1, 1),
            LdSt::Ldrsh => (1, 2),
            LdSt::StrW => (2, 0),
            LdSt::LdrW => (2, 1),
            LdSt::Ldrsw => (2, 2),
            LdSt::StrX => (3, 0),
            LdSt::LdrX => (3, 1),
        }
    }
    /// The access size in bytes.
    pub fn bytes(self) -> i64 {
        1 << self.bits().0
    }
    /// Mnemonic (scaled or unscaled) and the width of the data register.
    fn name(self, unscaled: bool) -> (String, Size) {
        let (stem, suffix, size) = match self {
            LdSt::Strb => ("st", "rb", Size::S32),
            LdSt::Strh => ("st", "rh", Size::S32),
            LdSt::StrW => ("st", "r", Size::S32),
            LdSt::StrX => ("st", "r", Size::S64),
            LdSt::Ldrb => ("ld", "rb", Size::S32),
            LdSt::Ldrh => ("ld", "rh", Size::S32),
            LdSt::LdrW => ("ld", "r", Size::S32),
            LdSt::LdrX => ("ld", "r", Size::S64),
            LdSt::Ldrsb => ("ld", "rsb", Size::S64),
            LdSt::Ldrsh => ("ld", "rsh", Size::S64),
            LdSt::Ldrsw => ("ld", "rsw", Size::S64),
        };
        // The unscaled forms insert a `u`: ldrsb -> ldursb, str -> stur.
        let name = if unscaled {
            format!("{stem}u{suffix}")
        } else {
            format!("{stem}{suffix}")
        };
        (name, size)
    }
}

/// Addressing mode of a register pair (STP/LDP).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PairMode {
    /// `[base, #off]`
    Offset,
    /// `[base, #off]!`: base += off first.
    PreIndex,
    /// `[base], #off`: base += off after.
    PostIndex,
}

/// One AArch64 instruction form.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Inst {
    /// `add rd, rn, rm` (shifted-register form, all zr fields). With
    /// `flags` it is `adds`/`subs`; `subs xzr, rn, rm` prints as `cmp`.
    AluRR {
        op: AddSub,
        flags: bool,
        size: Size,
        rd: Reg,
        rn: Reg,
        rm: Reg,
    },
    /// `add rd, rn, #imm12{, lsl #12}`. rd and rn may be sp (rd is zr if
    /// `flags`).
    AluRI {
        op: AddSub,
        flags: bool,
        size: Size,
        rd: Reg,
        rn: Reg,
        imm12: u16,
        lsl12: bool,
    },
    /// `and rd, rn, rm` and the other logical ops.
    LogicRR {
        op: Logic,
        size: Size,
        rd: Reg,
        rn: Reg,
        rm: Reg,
    },
    /// `and rd, rn, #bitmask`. Only And/Orr/Eor/Ands.
    LogicRI {
        op: Logic,
        size: Size,
        rd: Reg,
        rn: Reg,
        imm: u64,
    },
    /// `lsl rd, rn, rm` (LSLV...): shift by a register.
    ShiftRR {
        op: Shift,
        size: Size,
        rd: Reg,
        rn: Reg,
        rm: Reg,
    },
    /// `lsl rd, rn, #amount`: an alias of UBFM/SBFM.
    ShiftRI {
        op: Shift,
        size: Size,
        rd: Reg,
        rn: Reg,
        amount: u8,
    },
    /// `sxtb/sxth/sxtw xd, wn` (signed) or `uxtb/uxth wd, wn`: extend the
    /// low `from_bits` (8, 16; 32 only signed).
    Extend {
        signed: bool,
        from_bits: u8,
        rd: Reg,
        rn: Reg,
    },
    /// `madd rd, rn, rm, ra` = ra + rn*rm, or `msub` = ra - rn*rm.
    /// `madd rd, rn, rm, xzr` prints as `mul`.
    MulAdd {
        sub: bool,
        size: Size,
        rd: Reg,
        rn: Reg,
        rm: Reg,
        ra: Reg,
    },
    /// `sdiv rd, rn, rm` (or `udiv`). Division by zero gives 0, no trap.
    Div {
        signed: bool,
        size: Size,
        rd: Reg,
        rn: Reg,
        rm: Reg,
    },
    /// `csel rd, rn, rm, cond`: rd = cond ? rn : rm.
    Csel {
        size: Size,
        rd: Reg,
        rn: Reg,
        rm: Reg,
        cond: Cond,
    },
    /// `cset rd, cond` = `csinc rd, zr, zr, !cond`.
    Cset {
        size: Size,
        rd: Reg,
        cond: Cond,
    },
    /// `mov rd, rn`: ORR with xzr, or ADD #0 when either is sp.
    Mov {
        size: Size,
        rd: Reg,
        rn: Reg,
    },
    /// `movz rd, #imm16, lsl #(16*hw)`
    Movz {
        size: Size,
        rd: Reg,
        imm16: u16,
        hw: u8,
    },
    /// `movn rd, #imm16, lsl #(16*hw)`: rd = !(imm16 << 16*hw).
    Movn {
        size: Size,
        rd: Reg,
        imm16: u16,
        hw: u8,
    },
    /// `movk rd, #imm16, lsl #(16*hw)`: replace one halfword.
    Movk {
        size: Size,
        rd: Reg,
        imm16: u16,
        hw: u8,
    },
    /// `b #offset` (bytes from this instruction).
    B {
        offset: i32,
    },
    /// `bl #offset`: call, R_AARCH64_CALL26.
    Bl {
        offset: i32,
    },
    /// `b.cond #offset`
    BCond {
        cond: Cond,
        offset: i32,
    },
    /// `cbz rt, #offset` / `cbnz`
    Cbz {
        nonzero: bool,
        size: Size,
        rt: Reg,
        offset: i32,
    },
    /// `br rn`
    Br {
        rn: Reg,
    },
    /// `blr rn`: indirect call.
    Blr {
        rn: Reg,
    },
    /// `ret rn` (x30 prints as plain `ret`).
    Ret {
        rn: Reg,
    },
    /// `adr rd, #offset`: rd = pc + offset (±1 MiB).
    Adr {
        rd: Reg,
        offset: i32,
    },
    /// `adrp rd, #offset`: rd = page(pc) + offset, offset a multiple of 4096.
    Adrp {
        rd: Reg,
        offset: i64,
    },
    /// `add rd, rn, #offset`: the low 12 bits of an address, whose field a
    /// relocation fills (R_AARCH64_ADD_ABS_LO12_NC), after the `adrp` of
    /// its page. rd and rn may be sp.
    AddLo12 {
        rd: Reg,
        rn: Reg,
        offset: u16,
    },
    /// `ldr/str rt, [rn, #offset]`, unsigned offset scaled by the size.
    Mem {
        op: LdSt,
        rt: Reg,
        rn: Reg,
        offset: i32,
    },
    /// `ldur/stur rt, [rn, #offset]`, signed 9-bit unscaled offset.
    MemUnscaled {
        op: LdSt,
        rt: Reg,
        rn: Reg,
        offset: i32,
    },
    /// `ldr rt, [rn, rm{, lsl #log2(size)}]`
    MemReg {
        op: LdSt,
        rt: Reg,
        rn: Reg,
        rm: Reg,
        scaled: bool,
    },
    /// `stp rt, rt2, [rn, #offset]` (and pre/post-index), 64-bit pairs;
    /// offset a multiple of 8 in -512..=504.
    Pair {
        load: bool,
        mode: PairMode,
        rt: Reg,
        rt2: Reg,
        rn: Reg,
        offset: i32,
    },
    /// `ldr dt, [rn, #offset]` / `str`: float load/store, scaled offset.
    FMem {
        load: bool,
        prec: Prec,
        rt: FReg,
        rn: Reg,
        offset: i32,
    },
    /// `ldur dt, [rn, #offset]` / `stur`: unscaled.
    FMemUnscaled {
        load: bool,
        prec: Prec,
        rt: FReg,
        rn: Reg,
        offset: i32,
    },
    /// `fadd rd, rn, rm` and friends.
    FArith {
        op: FOp,
        prec: Prec,
        rd: FReg,
        rn: FReg,
        rm: FReg,
    },
    /// `fmov/fabs/fneg/fsqrt rd, rn`
    FUnary {
        op: FUnary,
        prec: Prec,
        rd: FReg,
        rn: FReg,
    },
    /// `fcmp rn, rm`
    Fcmp {
        prec: Prec,
        rn: FReg,
        rm: FReg,
    },
    /// `scvtf rd, rn`: signed integer to float.
    Scvtf {
        prec: Prec,
        size: Size,
        rd: FReg,
        rn: Reg,
    },
    /// `fcvtzs rd, rn`: float to signed integer, rounding toward zero.
    Fcvtzs {
        prec: Prec,
        size: Size,
        rd: Reg,
        rn: FReg,
    },
    /// `fcvt rd, rn`: between single and double (`to` is rd's precision).
    Fcvt {
        to: Prec,
        rd: FReg,
        rn: FReg,
    },
    /// `fmov dd, xn` / `fmov sd, wn`: integer bits to a float register.
    FmovToF {
        prec: Prec,
        rd: FReg,
        rn: Reg,
    },
    /// `fmov xd, dn` / `fmov wd, sn`: float bits to an integer register.
    FmovFromF {
        prec: Prec,
        rd: Reg,
        rn: FReg,
    },
    Nop,
}

/// Encode `value` as an AArch64 bitmask immediate for an operation of
/// `size`: returns `(N, immr, imms)`, or None if it is not encodable
/// (0 and all-ones never are). A 32-bit value must fit in 32 bits.
pub fn logical_imm(value: u64, size: Size) -> Option<(u32, u32, u32)> {
    let value = match size {
        Size::S64 => value,
        Size::S32 => {
            if value >> 32 != 0 {
                return None;
            }
            value | value << 32 // a 32-bit pattern is a replicated 64-bit one
        }
    };
    if value == 0 || value == u64::MAX {
        return None;
    }
    // The smallest element size e whose pattern repeats over 64 bits.
    let mut e = 64u32;
    while e > 2 {
        let half = e / 2;
        let mask = (1u64 << half) - 1;
        if value & mask != (value >> half) & mask {
            break;
        }
        e = half;
    }
    let mask = if e == 64 { u64::MAX } else { (1u64 << e) - 1 };
    let elem = value & mask;
    let ones = elem.count_ones();
    // The element must be a run of `ones` ones rotated right by `immr`.
    // Where does the run start? Without wrap-around at its lowest set bit;
    // with wrap-around (bit 0 set) where the low run of ones ends its
    // partner at the top.
    let start = if elem & 1 == 0 {
        elem.trailing_zeros()
    } else {
        let low_ones = (!elem & mask).trailing_zeros();
        e - (ones - low_ones)
    };
    let immr = (e - start) % e;
    let run = (1u64 << ones) - 1;
    let rotated = if immr == 0 {
        run
    } else {
        ((run >> immr) | (run << (e - immr))) & mask
    };
    if rotated != elem {
        return None; // not one contiguous run
    }
    let n = (e == 64) as u32;
    let imms = ((!(e - 1) << 1) & 0x3f) | (ones - 1);
    Some((n, immr, imms))
}

/// Whether `value` can be the immediate of AND/ORR/EOR of this size.
pub fn is_logical_imm(value: u64, size: Size) -> bool {
    logical_imm(value, size).is_some()
}

fn pc_offset(what: &'static str, offset: i64, bits: u32) -> Result<u32, EncodeError> {
    check_align(what, offset, 4)?;
    check_signed(what, offset, bits + 2)?;
    Ok(((offset >> 2) as u32) & ((1 << bits) - 1))
}

fn hw_check(size: Size, hw: u8) -> Result<u32, EncodeError> {
    let max = if size == Size::S64 { 3 } else { 1 };
    if hw > max {
        return Err(EncodeError::OutOfRange {
            what: "movz/movk halfword index",
            value: hw as i64,
            min: 0,
            max: max as i64,
        });
    }
    Ok(hw as u32)
}

fn adr_bits(offset: i64) -> u32 {
    let imm = (offset as u32) & 0x1f_ffff;
    (imm & 3) << 29 | (imm >> 2) << 5
}

impl Inst {
    /// Append this instruction's 4 bytes to `buf`. Returns the fixup of a
    /// PC-relative form (branches, ADR, ADRP).
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
            Inst::AluRR {
                op,
                flags,
                size,
                rd,
                rn,
                rm,
            } => {
                size.sf()
                    | ((op == AddSub::Sub) as u32) << 30
                    | (flags as u32) << 29
                    | 0x0b00_0000
                    | rm.zr()? << 16
                    | rn.zr()? << 5
                    | rd.zr()?
            }
            Inst::AluRI {
                op,
                flags,
                size,
                rd,
                rn,
                imm12,
                lsl12,
            } => {
                if imm12 > 4095 {
                    return Err(EncodeError::OutOfRange {
                        what: "add/sub immediate",
                        value: imm12 as i64,
                        min: 0,
                        max: 4095,
                    });
                }
                let rd = if flags { rd.zr()? } else { rd.sp()? };
                size.sf()
                    | ((op == AddSub::Sub) as u32) << 30
                    | (flags as u32) << 29
                    | 0x1100_0000
                    | (lsl12 as u32) << 22
                    | (imm12 as u32) << 10
                    | rn.sp()? << 5
                    | rd
            }
            Inst::LogicRR {
                op,
                size,
                rd,
                rn,
                rm,
            } => {
                let (opc, n) = op.bits();
                size.sf()
                    | opc << 29
                    | 0x0a00_0000
                    | n << 21
                    | rm.zr()? << 16
                    | rn.zr()? << 5
                    | rd.zr()?
            }
            Inst::LogicRI {
                op,
                size,
                rd,
                rn,
                imm,
            } => {
                let (opc, extra) = op.bits();
                if extra != 0 {
                    return Err(EncodeError::InvalidOperand(format!(
                        "{} has no immediate form",
                        op.name()
                    )));
                }
                let Some((n, immr, imms)) = logical_imm(imm, size) else {
                    return Err(EncodeError::InvalidOperand(format!(
                        "{imm:#x} is not a {}-bit bitmask immediate",
                        size.bits()
                    )));
                };
                // The flag-setting form writes xzr at 31; the others write sp.
                let rd = if op == Logic::Ands {
                    rd.zr()?
                } else {
                    rd.sp()?
                };
                size.sf()
                    | opc << 29
                    | 0x1200_0000
                    | n << 22
                    | immr << 16
                    | imms << 10
                    | rn.zr()? << 5
                    | rd
            }
            Inst::ShiftRR {
                op,
                size,
                rd,
                rn,
                rm,
            } => {
                let op2 = op as u32;
                size.sf() | 0x1ac0_2000 | rm.zr()? << 16 | op2 << 10 | rn.zr()? << 5 | rd.zr()?
            }
            Inst::ShiftRI {
                op,
                size,
                rd,
                rn,
                amount,
            } => {
                let bits = size.bits();
                if amount as u32 >= bits {
                    return Err(EncodeError::OutOfRange {
                        what: "shift amount",
                        value: amount as i64,
                        min: 0,
                        max: bits as i64 - 1,
                    });
                }
                let s = amount as u32;
                let (base, immr, imms) = match op {
                    // UBFM rd, rn, #(-s mod bits), #(bits-1-s)
                    Shift::Lsl => (0x5300_0000, (bits - s) % bits, bits - 1 - s),
                    Shift::Lsr => (0x5300_0000, s, bits - 1),
                    Shift::Asr => (0x1300_0000, s, bits - 1),
                };
                let n = (size == Size::S64) as u32;
                size.sf() | base | n << 22 | immr << 16 | imms << 10 | rn.zr()? << 5 | rd.zr()?
            }
            Inst::Extend {
                signed,
                from_bits,
                rd,
                rn,
            } => {
                if !matches!((signed, from_bits), (_, 8) | (_, 16) | (true, 32)) {
                    return Err(EncodeError::InvalidOperand(format!(
                        "no {}xt from {from_bits} bits",
                        if signed { 's' } else { 'u' }
                    )));
                }
                let imms = from_bits as u32 - 1;
                // Signed extends to x (SBFM, sf=N=1); unsigned to w (UBFM).
                let base = if signed { 0x9340_0000 } else { 0x5300_0000 };
                base | imms << 10 | rn.zr()? << 5 | rd.zr()?
            }
            Inst::MulAdd {
                sub,
                size,
                rd,
                rn,
                rm,
                ra,
            } => {
                size.sf()
                    | 0x1b00_0000
                    | rm.zr()? << 16
                    | (sub as u32) << 15
                    | ra.zr()? << 10
                    | rn.zr()? << 5
                    | rd.zr()?
            }
            Inst::Div {
                signed,
                size,
                rd,
                rn,
                rm,
            } => {
                size.sf()
                    | 0x1ac0_0800
                    | rm.zr()? << 16
                    | (signed as u32) << 10
                    | rn.zr()? << 5
                    | rd.zr()?
            }
            Inst::Csel {
                size,
                rd,
                rn,
                rm,
                cond,
            } => {
                size.sf()
                    | 0x1a80_0000
                    | rm.zr()? << 16
                    | (cond as u32) << 12
                    | rn.zr()? << 5
                    | rd.zr()?
            }
            Inst::Cset { size, rd, cond } => {
                if matches!(cond, Cond::Al | Cond::Nv) {
                    return Err(EncodeError::InvalidOperand("cset with al/nv".into()));
                }
                // csinc rd, zr, zr, invert(cond)
                size.sf()
                    | 0x1a80_0400
                    | 31 << 16
                    | (cond.invert() as u32) << 12
                    | 31 << 5
                    | rd.zr()?
            }
            Inst::Mov { size, rd, rn } => {
                if rd == Reg::SP || rn == Reg::SP {
                    // add rd, rn, #0: the only move that can read or write sp.
                    size.sf() | 0x1100_0000 | rn.sp()? << 5 | rd.sp()?
                } else {
                    // orr rd, zr, rn
                    size.sf() | 0x2a00_0000 | rn.zr()? << 16 | 31 << 5 | rd.zr()?
                }
            }
            Inst::Movz {
                size,
                rd,
                imm16,
                hw,
            } => {
                size.sf()
                    | 0x5280_0000
                    | hw_check(size, hw)? << 21
                    | (imm16 as u32) << 5
                    | rd.zr()?
            }
            Inst::Movn {
                size,
                rd,
                imm16,
                hw,
            } => {
                size.sf()
                    | 0x1280_0000
                    | hw_check(size, hw)? << 21
                    | (imm16 as u32) << 5
                    | rd.zr()?
            }
            Inst::Movk {
                size,
                rd,
                imm16,
                hw,
            } => {
                size.sf()
                    | 0x7280_0000
                    | hw_check(size, hw)? << 21
                    | (imm16 as u32) << 5
                    | rd.zr()?
            }
            Inst::B { offset } => {
                fixup = Some(FixupKind::Arm64Branch26);
                0x1400_0000 | pc_offset("branch offset", offset as i64, 26)?
            }
            Inst::Bl { offset } => {
                fixup = Some(FixupKind::Arm64Call26);
                0x9400_0000 | pc_offset("call offset", offset as i64, 26)?
            }
            Inst::BCond { cond, offset } => {
                fixup = Some(FixupKind::Arm64Branch19);
                0x5400_0000
                    | pc_offset("conditional branch offset", offset as i64, 19)? << 5
                    | cond as u32
            }
            Inst::Cbz {
                nonzero,
                size,
                rt,
                offset,
            } => {
                fixup = Some(FixupKind::Arm64Branch19);
                size.sf()
                    | 0x3400_0000
                    | (nonzero as u32) << 24
                    | pc_offset("cbz offset", offset as i64, 19)? << 5
                    | rt.zr()?
            }
            Inst::Br { rn } => 0xd61f_0000 | rn.zr()? << 5,
            Inst::Blr { rn } => 0xd63f_0000 | rn.zr()? << 5,
            Inst::Ret { rn } => 0xd65f_0000 | rn.zr()? << 5,
            Inst::Adr { rd, offset } => {
                fixup = Some(FixupKind::Arm64Adr21);
                let off = check_signed("adr offset", offset as i64, 21)?;
                0x1000_0000 | adr_bits(off) | rd.zr()?
            }
            Inst::Adrp { rd, offset } => {
                fixup = Some(FixupKind::Arm64AdrpPage21);
                check_align("adrp offset", offset, 4096)?;
                check_signed("adrp offset", offset, 33)?;
                0x9000_0000 | adr_bits(offset >> 12) | rd.zr()?
            }
            Inst::AddLo12 { rd, rn, offset } => {
                fixup = Some(FixupKind::Arm64AddLo12);
                let imm12 = crate::check_unsigned("low 12 bits", offset as i64, 12)?;
                0x9100_0000 | (imm12 as u32) << 10 | rn.sp()? << 5 | rd.sp()?
            }
            Inst::Mem { op, rt, rn, offset } => {
                let (scale, opc) = op.bits();
                let off = offset as i64;
                check_align("scaled load/store offset", off, op.bytes())?;
                let imm12 =
                    crate::check_unsigned("scaled load/store offset / size", off >> scale, 12)?;
                scale << 30
                    | 0x3900_0000
                    | opc << 22
                    | (imm12 as u32) << 10
                    | rn.sp()? << 5
                    | rt.zr()?
            }
            Inst::MemUnscaled { op, rt, rn, offset } => {
                let (scale, opc) = op.bits();
                let imm9 =
                    check_signed("unscaled load/store offset", offset as i64, 9)? as u32 & 0x1ff;
                scale << 30 | 0x3800_0000 | opc << 22 | imm9 << 12 | rn.sp()? << 5 | rt.zr()?
            }
            Inst::MemReg {
                op,
                rt,
                rn,
                rm,
                scaled,
            } => {
                let (scale, opc) = op.bits();
                // option=011 (LSL, a 64-bit index), S selects the shift.
                scale << 30
                    | 0x3820_6800
                    | opc << 22
                    | rm.zr()? << 16
                    | (scaled as u32) << 12
                    | rn.sp()? << 5
                    | rt.zr()?
            }
            Inst::Pair {
                load,
                mode,
                rt,
                rt2,
                rn,
                offset,
            } => {
                check_align("pair offset", offset as i64, 8)?;
                let imm7 = check_signed("pair offset / 8", offset as i64 / 8, 7)? as u32 & 0x7f;
                let mode = match mode {
                    PairMode::PostIndex => 1,
                    PairMode::Offset => 2,
                    PairMode::PreIndex => 3,
                };
                0xa800_0000
                    | mode << 23
                    | (load as u32) << 22
                    | imm7 << 15
                    | rt2.zr()? << 10
                    | rn.sp()? << 5
                    | rt.zr()?
            }
            Inst::FMem {
                load,
                prec,
                rt,
                rn,
                offset,
            } => {
                let scale = if prec == Prec::F64 { 3 } else { 2 };
                let off = offset as i64;
                check_align("scaled load/store offset", off, 1 << scale)?;
                let imm12 =
                    crate::check_unsigned("scaled load/store offset / size", off >> scale, 12)?;
                scale << 30
                    | 0x3d00_0000
                    | (load as u32) << 22
                    | (imm12 as u32) << 10
                    | rn.sp()? << 5
                    | rt.0 as u32
            }
            Inst::FMemUnscaled {
                load,
                prec,
                rt,
                rn,
                offset,
            } => {
                let scale = if prec == Prec::F64 { 3 } else { 2 };
                let imm9 =
                    check_signed("unscaled load/store offset", offset as i64, 9)? as u32 & 0x1ff;
                scale << 30
                    | 0x3c00_0000
                    | (load as u32) << 22
                    | imm9 << 12
                    | rn.sp()? << 5
                    | rt.0 as u32
            }
            Inst::FArith {
                op,
                prec,
                rd,
                rn,
                rm,
            } => {
                0x1e20_0800
                    | prec.ty()
                    | (rm.0 as u32) << 16
                    | (op as u32) << 12
                    | (rn.0 as u32) << 5
                    | rd.0 as u32
            }
            Inst::FUnary { op, prec, rd, rn } => {
                0x1e20_4000 | prec.ty() | (op as u32) << 15 | (rn.0 as u32) << 5 | rd.0 as u32
            }
            Inst::Fcmp { prec, rn, rm } => {
                0x1e20_2000 | prec.ty() | (rm.0 as u32) << 16 | (rn.0 as u32) << 5
            }
            Inst::Scvtf { prec, size, rd, rn } => {
                size.sf() | 0x1e22_0000 | prec.ty() | rn.zr()? << 5 | rd.0 as u32
            }
            Inst::Fcvtzs { prec, size, rd, rn } => {
                size.sf() | 0x1e38_0000 | prec.ty() | (rn.0 as u32) << 5 | rd.zr()?
            }
            Inst::Fcvt { to, rd, rn } => {
                // type = source precision, opc = destination precision.
                let (ty, opc) = match to {
                    Prec::F64 => (0, 1),
                    Prec::F32 => (1, 0),
                };
                0x1e22_4000 | ty << 22 | opc << 15 | (rn.0 as u32) << 5 | rd.0 as u32
            }
            Inst::FmovToF { prec, rd, rn } => {
                let base = if prec == Prec::F64 {
                    0x9e67_0000
                } else {
                    0x1e27_0000
                };
                base | rn.zr()? << 5 | rd.0 as u32
            }
            Inst::FmovFromF { prec, rd, rn } => {
                let base = if prec == Prec::F64 {
                    0x9e66_0000
                } else {
                    0x1e26_0000
                };
                base | (rn.0 as u32) << 5 | rd.zr()?
            }
            Inst::Nop => 0xd503_201f,
        };
        Ok((w, fixup))
    }
}

/// An ADD immediate for any `value` that fits 12 bits, or 12 bits shifted
/// by 12; a negative value becomes a SUB. Used for stack adjustment
/// (`sub sp, sp, #48`) and address arithmetic.
pub fn add_imm(size: Size, rd: Reg, rn: Reg, value: i64) -> Result<Inst, EncodeError> {
    let (op, mag) = if value < 0 {
        (AddSub::Sub, value.unsigned_abs())
    } else {
        (AddSub::Add, value as u64)
    };
    let (imm12, lsl12) = if mag < 4096 {
        (mag as u16, false)
    } else if mag & 0xfff == 0 && mag >> 12 < 4096 {
        ((mag >> 12) as u16, true)
    } else {
        return Err(EncodeError::OutOfRange {
            what: "add/sub immediate",
            value,
            min: -0xfff000,
            max: 0xfff000,
        });
    };
    Ok(Inst::AluRI {
        op,
        flags: false,
        size,
        rd,
        rn,
        imm12,
        lsl12,
    })
}

/// A load or store with the best offset form: scaled unsigned imm12 when
/// the offset is aligned and in range, else unscaled signed imm9.
pub fn mem(op: LdSt, rt: Reg, rn: Reg, offset: i64) -> Result<Inst, EncodeError> {
    let size = op.bytes();
    if offset >= 0 && offset % size == 0 && offset / size < 4096 {
        Ok(Inst::Mem {
            op,
            rt,
            rn,
            offset: offset as i32,
        })
    } else if (-256..256).contains(&offset) {
        Ok(Inst::MemUnscaled {
            op,
            rt,
            rn,
            offset: offset as i32,
        })
    } else {
        Err(EncodeError::OutOfRange {
            what: "load/store offset",
            value: offset,
            min: -256,
            max: 4095 * size,
        })
    }
}

/// The instructions that put a 64-bit constant in `rd`: one ORR if it is a
/// bitmask immediate, else MOVZ or MOVN (whichever leaves fewer halfwords
/// to fix) followed by a MOVK per remaining halfword. At most 4.
pub fn load_const(rd: Reg, value: u64) -> Vec<Inst> {
    let half = |i: u8| (value >> (16 * i)) as u16;
    let zeros = (0..4).filter(|&i| half(i) == 0).count();
    let ones = (0..4).filter(|&i| half(i) == 0xffff).count();
    if zeros < 3 && ones < 3 && is_logical_imm(value, Size::S64) {
        return vec![Inst::LogicRI {
            op: Logic::Orr,
            size: Size::S64,
            rd,
            rn: Reg::XZR,
            imm: value,
        }];
    }
    let mut out = Vec::with_capacity(4);
    let size = Size::S64;
    if ones > zeros {
        // MOVN writes !(imm16 << shift): every other halfword becomes 0xffff.
        let first = (0..4).find(|&i| half(i) != 0xffff).unwrap_or(0);
        out.push(Inst::Movn {
            size,
            rd,
            imm16: !half(first),
            hw: first,
        });
        for i in (first + 1)..4 {
            if half(i) != 0xffff {
                out.push(Inst::Movk {
                    size,
                    rd,
                    imm16: half(i),
                    hw: i,
                });
            }
        }
    } else {
        let first = (0..4).find(|&i| half(i) != 0).unwrap_or(0);
        out.push(Inst::Movz {
            size,
            rd,
            imm16: half(first),
            hw: first,
        });
        for i in (first + 1)..4 {
            if half(i) != 0 {
                out.push(Inst::Movk {
                    size,
                    rd,
                    imm16: half(i),
                    hw: i,
                });
            }
        }
    }
    out
}

/// `adrp rd, sym; add rd, rd, :lo12:sym` with both fields zero: the
/// address of a symbol within ±4 GiB. Returns the two fixups
/// (R_AARCH64_ADR_PREL_PG_HI21 and R_AARCH64_ADD_ABS_LO12_NC).
pub fn addr_pair(buf: &mut Vec<u8>, rd: Reg) -> Result<[Fixup; 2], EncodeError> {
    let hi = Inst::Adrp { rd, offset: 0 }
        .encode(buf)?
        .expect("adrp has a fixup");
    let offset = buf.len();
    add_imm(Size::S64, rd, rd, 0)?.encode(buf)?;
    Ok([
        hi,
        Fixup {
            offset,
            kind: FixupKind::Arm64AddLo12,
            addend: 0,
        },
    ])
}

/// `adrp base, sym` and then `load`, an `ldr xt` or `ldr dt` from
/// `[base]`: 8 bytes at a symbol within ±4 GiB, one instruction shorter
/// than [`addr_pair`] and a load. Returns the two fixups
/// (R_AARCH64_ADR_PREL_PG_HI21 and R_AARCH64_LDST64_ABS_LO12_NC).
pub fn load64_pair(buf: &mut Vec<u8>, base: Reg, load: Inst) -> Result<[Fixup; 2], EncodeError> {
    let fits = match load {
        Inst::Mem {
            op: LdSt::LdrX,
            rn,
            offset: 0,
            ..
        } => rn == base,
        Inst::FMem {
            load: true,
            prec: Prec::F64,
            rn,
            offset: 0,
            ..
        } => rn == base,
        _ => false,
    };
    if !fits {
        return Err(EncodeError::InvalidOperand(format!(
            "load64_pair needs ldr xt or ldr dt from [{}] with offset 0",
            base.name(Size::S64)
        )));
    }
    let hi = Inst::Adrp {
        rd: base,
        offset: 0,
    }
    .encode(buf)?
    .expect("adrp has a fixup");
    let offset = buf.len();
    load.encode(buf)?;
    Ok([
        hi,
        Fixup {
            offset,
            kind: FixupKind::Arm64Ldst64Lo12,
            addend: 0,
        },
    ])
}

/// Fill the PC-relative field of the instruction at `fixup.offset` so that
/// it reaches `target` (a byte offset in the same buffer). ADRP and the
/// low-12 ADD assume the buffer is loaded at a 4 KiB-aligned address.
pub fn patch(code: &mut [u8], fixup: &Fixup, target: usize) -> Result<(), EncodeError> {
    let at = fixup.offset;
    let word = u32::from_le_bytes(code[at..at + 4].try_into().unwrap());
    let disp = target as i64 - at as i64;
    let word = match fixup.kind {
        FixupKind::Arm64Branch26 | FixupKind::Arm64Call26 => {
            word & !0x03ff_ffff | pc_offset("branch offset", disp, 26)?
        }
        FixupKind::Arm64Branch19 => {
            word & !(0x7ffff << 5) | pc_offset("branch offset", disp, 19)? << 5
        }
        FixupKind::Arm64Adr21 => {
            let off = check_signed("adr offset", disp, 21)?;
            word & !(3 << 29 | 0x7ffff << 5) | adr_bits(off)
        }
        FixupKind::Arm64AdrpPage21 => {
            let pages = (target as i64 >> 12) - (at as i64 >> 12);
            check_signed("adrp page offset", pages, 21)?;
            word & !(3 << 29 | 0x7ffff << 5) | adr_bits(pages)
        }
        FixupKind::Arm64AddLo12 => word & !(0xfff << 10) | ((target as u32) & 0xfff) << 10,
        FixupKind::Arm64Ldst64Lo12 => {
            let lo12 = target as i64 & 0xfff;
            check_align("64-bit load offset", lo12, 8)?;
            word & !(0xfff << 10) | (lo12 as u32 >> 3) << 10
        }
        other => {
            return Err(EncodeError::InvalidOperand(format!(
                "{other:?} is not an AArch64 fixup"
            )))
        }
    };
    code[at..at + 4].copy_from_slice(&word.to_le_bytes());
    Ok(())
}

impl fmt::Display for Inst {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Inst::AluRR {
                op,
                flags,
                size,
                rd,
                rn,
                rm,
            } => {
                let (n, m) = (rn.name(size), rm.name(size));
                if flags && op == AddSub::Sub && rd == Reg::XZR {
                    return write!(f, "cmp {n}, {m}");
                }
                let name = match op {
                    AddSub::Add => "add",
                    AddSub::Sub => "sub",
                };
                let s = if flags { "s" } else { "" };
                write!(f, "{name}{s} {}, {n}, {m}", rd.name(size))
            }
            Inst::AluRI {
                op,
                flags,
                size,
                rd,
                rn,
                imm12,
                lsl12,
            } => {
                let name = match op {
                    AddSub::Add => "add",
                    AddSub::Sub => "sub",
                };
                let s = if flags { "s" } else { "" };
                write!(
                    f,
                    "{name}{s} {}, {}, #{imm12}",
                    rd.name(size),
                    rn.name(size)
                )?;
                if lsl12 {
                    f.write_str(", lsl #12")?;
                }
                Ok(())
            }
            Inst::LogicRR {
                op,
                size,
                rd,
                rn,
                rm,
            } => write!(
                f,
                "{} {}, {}, {}",
                op.name(),
                rd.name(size),
                rn.name(size),
                rm.name(size)
            ),
            Inst::LogicRI {
                op,
                size,
                rd,
                rn,
                imm,
            } => write!(
                f,
                "{} {}, {}, #{imm:#x}",
                op.name(),
                rd.name(size),
                rn.name(size)
            ),
            Inst::ShiftRR {
                op,
                size,
                rd,
                rn,
                rm,
            } => write!(
                f,
                "{} {}, {}, {}",
                op.name(),
                rd.name(size),
                rn.name(size),
                rm.name(size)
            ),
            Inst::ShiftRI {
                op,
                size,
                rd,
                rn,
                amount,
            } => write!(
                f,
                "{} {}, {}, #{amount}",
                op.name(),
                rd.name(size),
                rn.name(size)
            ),
            Inst::Extend {
                signed,
                from_bits,
                rd,
                rn,
            } => {
                let suffix = match from_bits {
                    8 => 'b',
                    16 => 'h',
                    _ => 'w',
                };
                if signed {
                    write!(
                        f,
                        "sxt{suffix} {}, {}",
                        rd.name(Size::S64),
                        rn.name(Size::S32)
                    )
                } else {
                    write!(
                        f,
                        "uxt{suffix} {}, {}",
                        rd.name(Size::S32),
                        rn.name(Size::S32)
                    )
                }
            }
            Inst::MulAdd {
                sub,
                size,
                rd,
                rn,
                rm,
                ra,
            } => {
                let (d, n, m) = (rd.name(size), rn.name(size), rm.name(size));
                match (sub, ra == Reg::XZR) {
                    (false, true) => write!(f, "mul {d}, {n}, {m}"),
                    (false, false) => write!(f, "madd {d}, {n}, {m}, {}", ra.name(size)),
                    (true, _) => write!(f, "msub {d}, {n}, {m}, {}", ra.name(size)),
                }
            }
            Inst::Div {
                signed,
                size,
                rd,
                rn,
                rm,
            } => write!(
                f,
                "{}div {}, {}, {}",
                if signed { 's' } else { 'u' },
                rd.name(size),
                rn.name(size),
                rm.name(size)
            ),
            Inst::Csel {
                size,
                rd,
                rn,
                rm,
                cond,
            } => write!(
                f,
                "csel {}, {}, {}, {}",
                rd.name(size),
                rn.name(size),
                rm.name(size),
                cond.name()
            ),
            Inst::Cset { size, rd, cond } => write!(f, "cset {}, {}", rd.name(size), cond.name()),
            Inst::Mov { size, rd, rn } => write!(f, "mov {}, {}", rd.name(size), rn.name(size)),
            Inst::Movz {
                size,
                rd,
                imm16,
                hw,
            } => write!(f, "movz {}, #{imm16:#x}, lsl #{}", rd.name(size), hw * 16),
            Inst::Movn {
                size,
                rd,
                imm16,
                hw,
            } => write!(f, "movn {}, #{imm16:#x}, lsl #{}", rd.name(size), hw * 16),
            Inst::Movk {
                size,
                rd,
                imm16,
                hw,
            } => write!(f, "movk {}, #{imm16:#x}, lsl #{}", rd.name(size), hw * 16),
            Inst::B { offset } => write!(f, "b #{offset}"),
            Inst::Bl { offset } => write!(f, "bl #{offset}"),
            Inst::BCond { cond, offset } => write!(f, "b.{} #{offset}", cond.name()),
            Inst::Cbz {
                nonzero,
                size,
                rt,
                offset,
            } => write!(
                f,
                "{} {}, #{offset}",
                if nonzero { "cbnz" } else { "cbz" },
                rt.name(size)
            ),
            Inst::Br { rn } => write!(f, "br {rn}"),
            Inst::Blr { rn } => write!(f, "blr {rn}"),
            Inst::Ret { rn } if rn == Reg::LR => f.write_str("ret"),
            Inst::Ret { rn } => write!(f, "ret {rn}"),
            Inst::Adr { rd, offset } => write!(f, "adr {rd}, #{offset}"),
            Inst::Adrp { rd, offset } => write!(f, "adrp {rd}, #{offset}"),
            Inst::AddLo12 { rd, rn, offset } => write!(f, "add {rd}, {rn}, #{offset}"),
            Inst::Mem { op, rt, rn, offset } => {
                let (name, size) = op.name(false);
                write!(f, "{name} {}, [{rn}, #{offset}]", rt.name(size))
            }
            Inst::MemUnscaled { op, rt, rn, offset } => {
                let (name, size) = op.name(true);
                write!(f, "{name} {}, [{rn}, #{offset}]", rt.name(size))
            }
            Inst::MemReg {
                op,
                rt,
                rn,
                rm,
                scaled,
            } => {
                let (name, size) = op.name(false);
                write!(f, "{name} {}, [{rn}, {rm}", rt.name(size))?;
                if scaled {
                    write!(f, ", lsl #{}", op.bits().0)?;
                }
                f.write_str("]")
            }
            Inst::Pair {
                load,
                mode,
                rt,
                rt2,
                rn,
                offset,
            } => {
                let name = if load { "ldp" } else { "stp" };
                match mode {
                    PairMode::Offset => write!(f, "{name} {rt}, {rt2}, [{rn}, #{offset}]"),
                    PairMode::PreIndex => write!(f, "{name} {rt}, {rt2}, [{rn}, #{offset}]!"),
                    PairMode::PostIndex => write!(f, "{name} {rt}, {rt2}, [{rn}], #{offset}"),
                }
            }
            Inst::FMem {
                load,
                prec,
                rt,
                rn,
                offset,
            } => write!(
                f,
                "{} {}, [{rn}, #{offset}]",
                if load { "ldr" } else { "str" },
                rt.name(prec)
            ),
            Inst::FMemUnscaled {
                load,
                prec,
                rt,
                rn,
                offset,
            } => write!(
                f,
                "{} {}, [{rn}, #{offset}]",
                if load { "ldur" } else { "stur" },
                rt.name(prec)
            ),
            Inst::FArith {
                op,
                prec,
                rd,
                rn,
                rm,
            } => write!(
                f,
                "{} {}, {}, {}",
                op.name(),
                rd.name(prec),
                rn.name(prec),
                rm.name(prec)
            ),
            Inst::FUnary { op, prec, rd, rn } => {
                write!(f, "{} {}, {}", op.name(), rd.name(prec), rn.name(prec))
            }
            Inst::Fcmp { prec, rn, rm } => write!(f, "fcmp {}, {}", rn.name(prec), rm.name(prec)),
            Inst::Scvtf { prec, size, rd, rn } => {
                write!(f, "scvtf {}, {}", rd.name(prec), rn.name(size))
            }
            Inst::Fcvtzs { prec, size, rd, rn } => {
                write!(f, "fcvtzs {}, {}", rd.name(size), rn.name(prec))
            }
            Inst::Fcvt { to, rd, rn } => {
                let from = if to == Prec::F64 {
                    Prec::F32
                } else {
                    Prec::F64
                };
                write!(f, "fcvt {}, {}", rd.name(to), rn.name(from))
            }
            Inst::FmovToF { prec, rd, rn } => {
                let size = if prec == Prec::F64 {
                    Size::S64
                } else {
                    Size::S32
                };
                write!(f, "fmov {}, {}", rd.name(prec), rn.name(size))
            }
            Inst::FmovFromF { prec, rd, rn } => {
                let size = if prec == Prec::F64 {
                    Size::S64
                } else {
                    Size::S32
                };
                write!(f, "fmov {}, {}", rd.name(size), rn.name(prec))
            }
            Inst::Nop => f.write_str("nop"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn word(i: Inst) -> u32 {
        i.word().unwrap().0
    }

    #[test]
    fn known_words() {
        let x = |n| Reg::x(n).unwrap();
        let add = Inst::AluRR {
            op: AddSub::Add,
            flags: false,
            size: Size::S64,
            rd: x(0),
            rn: x(1),
            rm: x(2),
        };
        assert_eq!(word(add), 0x8b02_0020);
        assert_eq!(word(Inst::Ret { rn: Reg::LR }), 0xd65f_03c0);
        assert_eq!(
            word(Inst::Mov {
                size: Size::S64,
                rd: x(0),
                rn: Reg::SP
            }),
            0x9100_03e0
        );
    }

    #[test]
    fn bitmask_immediates() {
        assert_eq!(logical_imm(0xff, Size::S64), Some((1, 0, 7)));
        assert_eq!(
            logical_imm(0x5555_5555_5555_5555, Size::S64),
            Some((0, 0, 0x3c))
        );
        assert!(is_logical_imm(0x8000_0000_0000_0001, Size::S64));
        assert!(is_logical_imm(0xffff_0000, Size::S32));
        assert!(!is_logical_imm(0, Size::S64));
        assert!(!is_logical_imm(u64::MAX, Size::S64));
        assert!(!is_logical_imm(0x1234, Size::S64));
        assert!(!is_logical_imm(1 << 32, Size::S32));
        // Exhaustive check against the architecture's decoder for small
        // elements: every (N, immr, imms) decodes to a value we re-encode.
        for n in 0..2u32 {
            for immr in 0..64u32 {
                for imms in 0..64u32 {
                    if let Some(v) = decode_bitmask(n, immr, imms) {
                        let (n2, r2, s2) = logical_imm(v, Size::S64).unwrap();
                        assert_eq!(decode_bitmask(n2, r2, s2), Some(v));
                    }
                }
            }
        }
    }

    /// DecodeBitMasks from the Arm ARM, for the test.
    fn decode_bitmask(n: u32, immr: u32, imms: u32) -> Option<u64> {
        let combined = (n << 6) | (!imms & 0x3f);
        if combined == 0 {
            return None;
        }
        let len = 31 - combined.leading_zeros();
        let e = 1u32 << len;
        let levels = e - 1;
        let s = imms & levels;
        let r = immr & levels;
        if s == levels {
            return None;
        }
        let mask = if e == 64 { u64::MAX } else { (1u64 << e) - 1 };
        let welem = (1u64 << (s + 1)) - 1;
        let rot = if r == 0 {
            welem
        } else {
            ((welem >> r) | (welem << (e - r))) & mask
        };
        let mut v = 0u64;
        let mut i = 0;
        while i < 64 {
            v |= rot << i;
            i += e;
        }
        Some(v)
    }

    #[test]
    fn sp_and_xzr_are_checked() {
        let bad = Inst::AluRR {
            op: AddSub::Add,
            flags: false,
            size: Size::S64,
            rd: Reg::SP,
            rn: Reg::x(1).unwrap(),
            rm: Reg::x(2).unwrap(),
        };
        assert!(matches!(bad.word(), Err(EncodeError::InvalidOperand(_))));
        let bad = Inst::Mem {
            op: LdSt::LdrX,
            rt: Reg::x(0).unwrap(),
            rn: Reg::XZR,
            offset: 0,
        };
        assert!(bad.word().is_err());
    }

    #[test]
    fn out_of_range_is_an_error() {
        assert!(Inst::B { offset: 1 << 27 }.word().is_err());
        assert!(Inst::B { offset: 2 }.word().is_err());
        assert!(Inst::BCond {
            cond: Cond::Eq,
            offset: 1 << 20
        }
        .word()
        .is_err());
        assert!(Inst::Mem {
            op: LdSt::LdrX,
            rt: Reg::x(0).unwrap(),
            rn: Reg::SP,
            offset: 4
        }
        .word()
        .is_err());
        assert!(Inst::Mem {
            op: LdSt::LdrX,
            rt: Reg::x(0).unwrap(),
            rn: Reg::SP,
            offset: 32768
        }
        .word()
        .is_err());
        assert!(add_imm(Size::S64, Reg::SP, Reg::SP, 4097).is_err());
        assert!(mem(LdSt::LdrX, Reg::x(0).unwrap(), Reg::SP, -257).is_err());
        assert!(Inst::Adrp {
            rd: Reg::x(0).unwrap(),
            offset: 100
        }
        .word()
        .is_err());
        assert!(Inst::ShiftRI {
            op: Shift::Lsl,
            size: Size::S32,
            rd: Reg::x(0).unwrap(),
            rn: Reg::x(0).unwrap(),
            amount: 32
        }
        .word()
        .is_err());
    }

    #[test]
    fn branch_patch() {
        let mut buf = Vec::new();
        let fix = Inst::Bl { offset: 0 }.encode(&mut buf).unwrap().unwrap();
        Inst::Nop.encode(&mut buf).unwrap();
        patch(&mut buf, &fix, 4).unwrap();
        assert_eq!(&buf[..4], &0x9400_0001u32.to_le_bytes());
        assert!(patch(&mut buf, &fix, 2).is_err());
    }

    #[test]
    fn load64_pair_patch() {
        let (x16, d0) = (Reg::x(16).unwrap(), FReg::new(0).unwrap());
        let ldr = |offset| Inst::FMem {
            load: true,
            prec: Prec::F64,
            rt: d0,
            rn: x16,
            offset,
        };
        let mut buf = Vec::new();
        let [hi, lo] = load64_pair(&mut buf, x16, ldr(0)).unwrap();
        assert_eq!(
            (hi.kind, lo.kind, lo.offset),
            (FixupKind::Arm64AdrpPage21, FixupKind::Arm64Ldst64Lo12, 4)
        );
        // A target 0x1ff8 bytes on: one page up, then offset 0xff8 = 8*511.
        patch(&mut buf, &hi, 0x1ff8).unwrap();
        patch(&mut buf, &lo, 0x1ff8).unwrap();
        let adrp = Inst::Adrp {
            rd: x16,
            offset: 4096,
        }
        .word()
        .unwrap()
        .0;
        let ldr_ff8 = ldr(0xff8).word().unwrap().0;
        assert_eq!(buf[..4], adrp.to_le_bytes());
        assert_eq!(buf[4..], ldr_ff8.to_le_bytes());
        assert!(patch(&mut buf, &lo, 0x1ffc).is_err(), "not 8-aligned");
        // Only a 64-bit load from the base with no offset of its own.
        let bad = ldr(8);
        assert!(load64_pair(&mut Vec::new(), x16, bad).is_err());
        assert!(load64_pair(&mut Vec::new(), Reg::x(17).unwrap(), ldr(0)).is_err());
    }

    #[test]
    fn load_const_lengths() {
        let x0 = Reg::x(0).unwrap();
        assert_eq!(load_const(x0, 0).len(), 1);
        assert_eq!(load_const(x0, u64::MAX).len(), 1);
        assert_eq!(load_const(x0, 0x1234_5678_9abc_def0).len(), 4);
        assert_eq!(load_const(x0, 0xffff_ffff_ffff_1234).len(), 1);
        assert_eq!(load_const(x0, 0x00ff_00ff_00ff_00ff).len(), 1); // ORR
    }
}
