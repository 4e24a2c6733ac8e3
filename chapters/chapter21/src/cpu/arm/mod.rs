//! AArch64 (Simple's `arm`): registers, the calling convention (the
//! AAPCS64, System V's counterpart on ARM), and where each part of the
//! backend for this CPU lives.
//!
//! - `select.rs`: what each ideal node becomes (immediates that fit an
//!   instruction, addresses of a base and an offset);
//! - `legal.rs`: the legalizer's rules, and the rewrites they ask for;
//! - `ops.rs`: every operation ARM runs, as a table: its name as Simple
//!   prints it, its assembler form, and the registers each operand may
//!   use.
//!
//! Registers are numbered as Simple numbers them: the general registers
//! `x0` to `x30` are 0 to 30 (`x30` is the link register, which holds the
//! return address), the stack pointer 31, the float registers `d0` to
//! `d31` 32 to 63, and the flags (NZCV) 64. Three general registers are
//! never given to a value: the stack pointer, `x18` (the platform
//! register, which some systems reserve) and `x29` (the frame pointer).
//!
//! The AAPCS64 passes the first eight integer or pointer arguments in
//! `x0`-`x7` and the first eight float arguments in `d0`-`d7`, counting
//! the two kinds apart; the rest go on the stack. Results come back in
//! `x0` or `d0`. A function must keep `x19`-`x28` (and `x29`, `sp`) and
//! the low 64 bits of `d8`-`d15` as it found them; a call may change
//! everything else, the flags and the link register included.

pub mod encode;
pub mod legal;
pub mod ops;
pub mod select;

use crate::mach::{LType, RegMask};

pub const X0: u8 = 0;
pub const X1: u8 = 1;
pub const X18: u8 = 18;
pub const X19: u8 = 19;
pub const X28: u8 = 28;
pub const X29: u8 = 29;
/// The link register: `bl` writes the return address here, `ret` jumps
/// to it (Simple's `RPC`).
pub const X30: u8 = 30;
pub const SP: u8 = 31;
pub const D0: u8 = 32;
pub const D8: u8 = 40;
pub const D15: u8 = 47;
pub const FLAGS: u8 = 64;

/// Register names, by number.
pub const REGS: [&str; 65] = [
    "x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9", "x10", "x11", "x12", "x13", "x14",
    "x15", "x16", "x17", "x18", "x19", "x20", "x21", "x22", "x23", "x24", "x25", "x26", "x27",
    "x28", "x29", "x30", "sp", "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7", "d8", "d9", "d10",
    "d11", "d12", "d13", "d14", "d15", "d16", "d17", "d18", "d19", "d20", "d21", "d22", "d23",
    "d24", "d25", "d26", "d27", "d28", "d29", "d30", "d31", "flags",
];

/// Every general register and the stack pointer: what an address's base
/// may be.
pub const GPRS: RegMask = RegMask::range(0, 32);
/// The general registers a value may be given: all but the stack
/// pointer, the platform register and the frame pointer. The link
/// register is one of them: it holds the return address on entry, and a
/// value may have it once that address is kept elsewhere (chapter 20).
pub const WRITABLE: RegMask = RegMask::range(0, 31)
    .without(RegMask::of(X18))
    .without(RegMask::of(X29));
pub const FPRS: RegMask = RegMask::range(32, 64);
pub const FLAGS_MASK: RegMask = RegMask::of(FLAGS);

/// The registers a value of low-level type `t` lives in.
pub fn bank(t: LType) -> RegMask {
    if t.is_float() {
        FPRS
    } else {
        WRITABLE
    }
}

/// Where each argument of a signature whose arguments have kinds `kinds`
/// is passed: its register, or `None` for the stack. Integers and floats
/// are counted apart: the third integer argument goes to `x2` whatever
/// floats came before it.
pub fn arg_masks(kinds: &[LType]) -> Vec<Option<RegMask>> {
    let (mut ints, mut flts) = (0u8, 0u8);
    kinds
        .iter()
        .map(|&t| {
            let (count, first) = if t.is_float() {
                (&mut flts, D0)
            } else {
                (&mut ints, X0)
            };
            *count += 1;
            (*count <= 8).then(|| RegMask::of(first + *count - 1))
        })
        .collect()
}

/// Where a value of kind `t` is returned.
pub fn ret_mask(t: LType) -> RegMask {
    RegMask::of(if t.is_float() { D0 } else { X0 })
}

/// The registers a function must give back as it found them: `x19` to
/// `x28` and `d8` to `d15` (only their low halves, which is all a double
/// uses). `x29` is also one, but it is never given to a value.
pub const CALLEE_SAVED: RegMask = RegMask::range(X19, X28 + 1).or(RegMask::range(D8, D15 + 1));

/// The registers a call may change: every general register but the
/// callee-saved ones, the stack pointer, the platform register and the
/// frame pointer (`x16` and `x17`, which a linker's veneer may use, and
/// the link register `x30`, which the call itself writes, among them),
/// the float registers but `d8`-`d15`, and the flags.
pub fn caller_saved() -> RegMask {
    WRITABLE
        .without(CALLEE_SAVED)
        .or(FPRS.without(CALLEE_SAVED))
        .or(FLAGS_MASK)
}
