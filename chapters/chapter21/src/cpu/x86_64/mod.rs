//! x86-64 (Simple's `x86_64_v2`): registers, calling conventions, and
//! where each part of the backend for this CPU lives.
//!
//! - `select.rs`: what each ideal node becomes (folding immediates,
//!   addresses and memory operands);
//! - `legal.rs`: the legalizer's rules, and the rewrites they ask for;
//! - `ops.rs`: every operation x86 runs, as a table: its name as Simple
//!   prints it, its assembler form, and the registers each operand may
//!   use.
//!
//! Registers are numbered as Simple numbers them: the 16 general
//! registers 0 to 15 (`rax` to `r15`), the 16 SSE registers 16 to 31
//! (`xmm0` to `xmm15`), and the flags 32. Two calling conventions: System
//! V (Linux, macOS) passes the first six integer arguments in `rdi`,
//! `rsi`, `rdx`, `rcx`, `r8`, `r9` and the first eight float arguments in
//! `xmm0`-`xmm7`; Windows x64 passes the first four arguments, whatever
//! their kind, by position in `rcx`/`xmm0`, `rdx`/`xmm1`, `r8`/`xmm2`,
//! `r9`/`xmm3`. Both return in `rax` or `xmm0`; the rest go on the stack.

pub mod encode;
pub mod legal;
pub mod ops;
pub mod select;

use crate::mach::{Abi, LType, RegMask};

pub const RAX: u8 = 0;
pub const RCX: u8 = 1;
pub const RDX: u8 = 2;
pub const RBX: u8 = 3;
pub const RSP: u8 = 4;
pub const RBP: u8 = 5;
pub const RSI: u8 = 6;
pub const RDI: u8 = 7;
pub const R8: u8 = 8;
pub const R9: u8 = 9;
pub const XMM0: u8 = 16;
pub const FLAGS: u8 = 32;

/// Register names, by number.
pub const REGS: [&str; 33] = [
    "rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi", "r8", "r9", "r10", "r11", "r12", "r13",
    "r14", "r15", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",
    "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "flags",
];

/// Every general register: what an address may be made of.
pub const GPRS: RegMask = RegMask::range(0, 16);
/// The general registers a value may be written to: all but the stack
/// pointer.
pub const WRITABLE: RegMask = GPRS.without(RegMask::of(RSP));
pub const XMMS: RegMask = RegMask::range(16, 32);
pub const FLAGS_MASK: RegMask = RegMask::of(FLAGS);

/// The registers a value of low-level type `t` lives in.
pub fn bank(t: LType) -> RegMask {
    if t.is_float() {
        XMMS
    } else {
        WRITABLE
    }
}

/// Where each argument of a signature whose arguments have kinds `kinds`
/// is passed: its register, or `None` for the stack. System V counts the
/// integer and the float arguments apart (the third integer argument goes
/// to the third integer register whatever floats came before); Win64
/// passes by position, whatever the kind.
pub fn arg_masks(abi: Abi, kinds: &[LType]) -> Vec<Option<RegMask>> {
    const SYSV_INTS: [u8; 6] = [RDI, RSI, RDX, RCX, R8, R9];
    const WIN64_INTS: [u8; 4] = [RCX, RDX, R8, R9];
    let (mut ints, mut flts) = (0usize, 0usize);
    kinds
        .iter()
        .enumerate()
        .map(|(i, &t)| {
            let reg = match abi {
                Abi::SystemV if t.is_float() => {
                    flts += 1;
                    (flts <= 8).then(|| XMM0 + flts as u8 - 1)
                }
                Abi::SystemV => {
                    ints += 1;
                    SYSV_INTS.get(ints - 1).copied()
                }
                Abi::Win64 if i >= 4 => None,
                Abi::Win64 if t.is_float() => Some(XMM0 + i as u8),
                Abi::Win64 => Some(WIN64_INTS[i]),
            };
            reg.map(RegMask::of)
        })
        .collect()
}

/// Where a value of kind `t` is returned.
pub fn ret_mask(t: LType) -> RegMask {
    RegMask::of(if t.is_float() { XMM0 } else { RAX })
}

/// The registers a call may change: the caller-saved ones (and the
/// flags).
pub fn caller_saved(abi: Abi) -> RegMask {
    let gprs = [RAX, RCX, RDX, 8, 9, 10, 11]
        .iter()
        .fold(RegMask::EMPTY, |m, &r| m.or(RegMask::of(r)));
    match abi {
        Abi::SystemV => gprs
            .or(RegMask::of(RSI))
            .or(RegMask::of(RDI))
            .or(XMMS)
            .or(FLAGS_MASK),
        // Windows keeps xmm6 to xmm15 across calls, and rsi and rdi.
        Abi::Win64 => gprs.or(RegMask::range(16, 22)).or(FLAGS_MASK),
    }
}
