//! RISC-V (RV64GC, Simple's `riscv`): registers, the calling convention,
//! and where each part of the backend for this CPU lives.
//!
//! - `select.rs`: what each ideal node becomes (immediates of 12 bits,
//!   addresses made of a register and a 12-bit displacement);
//! - `legal.rs`: the legalizer's rules, and the rewrites they ask for
//!   (comparisons onto `slt`/`sltu`, extensions onto shift pairs, wide
//!   constants onto `lui`/`addi`/`slli`, the language's division);
//! - `ops.rs`: every operation RISC-V runs, as a table: its name as Simple
//!   prints it, its assembler form, and the registers each operand may
//!   use.
//!
//! Registers are numbered as Simple numbers them: the 32 integer
//! registers `x0` to `x31` are 0 to 31 (named by their ABI names, `zero`,
//! `ra`, `sp`, `gp`, `tp`, `t0`...), the 32 float registers `f0` to `f31`
//! are 32 to 63. RISC-V has no flags: a comparison writes 0 or 1 to a
//! register, and a branch compares two registers itself.
//!
//! Four integer registers never hold a value: `zero` reads as 0 and
//! ignores writes, `sp` is the stack pointer, `gp` and `tp` belong to the
//! platform (the global and thread pointers; Simple allocates them, which
//! breaks any program linked with a C library).
//!
//! The calling convention is the psABI's (System V, hard-float LP64D):
//! integer arguments in `a0`-`a7`, float arguments in `fa0`-`fa7`, counted
//! apart (the third integer argument goes to `a2` whatever floats came
//! before); a float argument that finds no float register left goes where
//! the next integer argument would; the rest go on the stack. Results come
//! back in `a0` or `fa0`.

pub mod encode;
pub mod legal;
pub mod ops;
pub mod select;

use crate::mach::{LType, RegMask};

pub const ZERO: u8 = 0;
pub const RA: u8 = 1;
pub const SP: u8 = 2;
pub const GP: u8 = 3;
pub const TP: u8 = 4;
pub const T0: u8 = 5;
pub const S0: u8 = 8;
pub const A0: u8 = 10;
pub const A1: u8 = 11;
pub const T6: u8 = 31;
/// The first float register, `f0` (`ft0`).
pub const F0: u8 = 32;
pub const FA0: u8 = 42;

/// Register names, by number: the ABI names.
pub const REGS: [&str; 64] = [
    "zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "s0", "s1", "a0", "a1", "a2", "a3", "a4",
    "a5", "a6", "a7", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "t3", "t4",
    "t5", "t6", "ft0", "ft1", "ft2", "ft3", "ft4", "ft5", "ft6", "ft7", "fs0", "fs1", "fa0", "fa1",
    "fa2", "fa3", "fa4", "fa5", "fa6", "fa7", "fs2", "fs3", "fs4", "fs5", "fs6", "fs7", "fs8",
    "fs9", "fs10", "fs11", "ft8", "ft9", "ft10", "ft11",
];

/// Every integer register: what an operand may be read from (`zero`
/// reads as 0, `sp` is a base address).
pub const GPRS: RegMask = RegMask::range(0, 32);
/// The integer registers a value may be written to: all but `zero`, `sp`,
/// `gp` and `tp`.
pub const WRITABLE: RegMask = GPRS
    .without(RegMask::of(ZERO))
    .without(RegMask::of(SP))
    .without(RegMask::of(GP))
    .without(RegMask::of(TP));
pub const FPRS: RegMask = RegMask::range(32, 64);

/// `a0`-`a7`, and `fa0`-`fa7`.
const ARG_INTS: u8 = 8;
const ARG_FLTS: u8 = 8;

/// The registers a value of low-level type `t` lives in.
pub fn bank(t: LType) -> RegMask {
    if t.is_float() {
        FPRS
    } else {
        WRITABLE
    }
}

/// Where each argument of a signature whose arguments have kinds `kinds`
/// is passed: its register, or `None` for the stack (see the module's
/// documentation).
pub fn arg_masks(kinds: &[LType]) -> Vec<Option<RegMask>> {
    let (mut ints, mut flts) = (0u8, 0u8);
    kinds
        .iter()
        .map(|&t| {
            let reg = if t.is_float() && flts < ARG_FLTS {
                flts += 1;
                Some(FA0 + flts - 1)
            } else if ints < ARG_INTS {
                // An integer, or a float past the float registers.
                ints += 1;
                Some(A0 + ints - 1)
            } else {
                None
            };
            reg.map(RegMask::of)
        })
        .collect()
}

/// Where a value of kind `t` is returned.
pub fn ret_mask(t: LType) -> RegMask {
    RegMask::of(if t.is_float() { FA0 } else { A0 })
}

/// The registers a call may change: the caller-saved ones, `ra`, `t0`-`t6`,
/// `a0`-`a7`, `ft0`-`ft11` and `fa0`-`fa7`.
pub fn caller_saved() -> RegMask {
    let ints = [RA, 5, 6, 7, 28, 29, 30, 31]
        .iter()
        .fold(RegMask::range(A0, A0 + ARG_INTS), |m, &r| {
            m.or(RegMask::of(r))
        });
    let flts = RegMask::range(F0, F0 + 8) // ft0-ft7
        .or(RegMask::range(FA0, FA0 + ARG_FLTS))
        .or(RegMask::range(F0 + 28, F0 + 32)); // ft8-ft11
    ints.or(flts)
}

/// The registers a function must give back as it found them: `s0`-`s11`
/// and `fs0`-`fs11` (and `sp`, which no value is allocated to).
pub fn callee_saved() -> RegMask {
    RegMask::range(S0, S0 + 2) // s0-s1
        .or(RegMask::range(18, 28)) // s2-s11
        .or(RegMask::range(F0 + 8, F0 + 10)) // fs0-fs1
        .or(RegMask::range(F0 + 18, F0 + 28)) // fs2-fs11
}
