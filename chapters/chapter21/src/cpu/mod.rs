//! The three CPUs, one folder each: `x86_64`, `riscv` and `arm`. Each
//! has its registers and calling conventions (`mod.rs`), its selection
//! rules (`select.rs`), its legalization rules (`legal.rs`) and the table
//! of the operations it runs (`ops.rs`). This module dispatches to the
//! CPU a graph is for.

pub mod arm;
pub mod riscv;
pub mod x86_64;

use crate::graph::{Graph, NodeId};
use crate::mach::legalize::Rules;
use crate::mach::{Cpu, LType, Mach, RegMask, Target};

/// The legalizer's rules for `cpu`.
pub fn rules(cpu: Cpu) -> Rules {
    match cpu {
        Cpu::X86_64 => x86_64::legal::rules(),
        Cpu::Riscv => riscv::legal::rules(),
        Cpu::Arm => arm::legal::rules(),
    }
}

/// The name Simple prints for the operation of `m` on `cpu`.
pub fn name(cpu: Cpu, m: &Mach) -> String {
    match cpu {
        Cpu::X86_64 => x86_64::ops::name(m),
        Cpu::Riscv => riscv::ops::name(m),
        Cpu::Arm => arm::ops::name(m),
    }
}

/// Machine node `n` as the CPU's assembler writes it (virtual registers).
pub fn asm(cpu: Cpu, g: &Graph, n: NodeId, m: &Mach) -> String {
    match cpu {
        Cpu::X86_64 => x86_64::ops::asm(g, n, m),
        Cpu::Riscv => riscv::ops::asm(g, n, m),
        Cpu::Arm => arm::ops::asm(g, n, m),
    }
}

/// The registers input `i` of machine node `n` may come from (`None`: no
/// register).
pub fn in_mask(target: Target, g: &Graph, n: NodeId, m: &Mach, i: usize) -> Option<RegMask> {
    // An input that only orders the node after a Load reads no register.
    if m.order_from.is_some_and(|from| i as u32 >= from) {
        return None;
    }
    match target.cpu {
        Cpu::X86_64 => x86_64::ops::in_mask(g, n, m, i, target.abi),
        Cpu::Riscv => riscv::ops::in_mask(g, n, m, i),
        Cpu::Arm => arm::ops::in_mask(g, n, m, i),
    }
}

/// The registers the result of machine node `n` may go to.
pub fn out_mask(target: Target, g: &Graph, n: NodeId, m: &Mach) -> Option<RegMask> {
    match target.cpu {
        Cpu::X86_64 => x86_64::ops::out_mask(g, n, m, target.abi),
        Cpu::Riscv => riscv::ops::out_mask(g, n, m),
        Cpu::Arm => arm::ops::out_mask(g, n, m),
    }
}

/// Prints machine node `n` the CPU's own way, if it has one for it
/// (RISC-V's immediates); false to print it as `(op,in1,...)`.
pub fn print(cpu: Cpu, g: &Graph, n: NodeId, m: &Mach, out: &mut crate::node::Printer) -> bool {
    match cpu {
        Cpu::X86_64 => false,
        Cpu::Riscv => riscv::ops::print(g, n, m, out),
        Cpu::Arm => arm::ops::print(g, n, m, out),
    }
}

// ---------------------------------------------------------------------------
// Chapter 20: what the register allocator asks of each CPU.

/// The registers a call, a New (`calloc`) or x86's division leaves
/// changed, and (x86) the flags an arithmetic instruction changes.
pub fn kill_mask(target: Target, m: &Mach) -> Option<RegMask> {
    match target.cpu {
        Cpu::X86_64 => x86_64::ops::kill_mask(m, target.abi),
        Cpu::Riscv => riscv::ops::kill_mask(m),
        Cpu::Arm => arm::ops::kill_mask(m),
    }
}

/// The input whose register the result of a two-address operation takes.
pub fn two_address(cpu: Cpu, m: &Mach) -> Option<usize> {
    match cpu {
        Cpu::X86_64 => x86_64::ops::two_address(m),
        Cpu::Riscv => riscv::ops::two_address(m),
        Cpu::Arm => arm::ops::two_address(m),
    }
}

/// Register `r`'s name.
pub fn reg_name(cpu: Cpu, r: u8) -> &'static str {
    match cpu {
        Cpu::X86_64 => x86_64::ops::reg_name(r),
        Cpu::Riscv => riscv::ops::reg_name(r),
        Cpu::Arm => arm::ops::reg_name(r),
    }
}

/// Where each argument of a signature with argument kinds `kinds` goes:
/// its register, or `None` for the stack.
pub fn arg_masks(target: Target, kinds: &[LType]) -> Vec<Option<RegMask>> {
    match target.cpu {
        Cpu::X86_64 => x86_64::arg_masks(target.abi, kinds),
        Cpu::Riscv => riscv::arg_masks(kinds),
        Cpu::Arm => arm::arg_masks(kinds),
    }
}

/// The registers a value of kind `t` lives in.
pub fn bank(cpu: Cpu, t: LType) -> RegMask {
    match cpu {
        Cpu::X86_64 => x86_64::bank(t),
        Cpu::Riscv => riscv::bank(t),
        Cpu::Arm => arm::bank(t),
    }
}

/// The registers a call may change.
pub fn caller_saved(target: Target) -> RegMask {
    match target.cpu {
        Cpu::X86_64 => x86_64::caller_saved(target.abi),
        Cpu::Riscv => riscv::caller_saved(),
        Cpu::Arm => arm::caller_saved(),
    }
}

/// The registers the allocator may give a value: the writable ones and
/// the flags, less what the ABI reserves (the return address registers,
/// RISC-V's `ra` and ARM's `x30`, which the prologue of a function that
/// calls saves) and one scratch register for a copy
/// from one stack slot to another (RISC-V `t6`, which a float constant's
/// load also uses; ARM `x16`, the linker's scratch register; x86 needs
/// none: `push`/`pop` copy memory to memory).
pub fn allocatable(cpu: Cpu) -> RegMask {
    match cpu {
        Cpu::X86_64 => x86_64::WRITABLE.or(x86_64::XMMS).or(x86_64::FLAGS_MASK),
        Cpu::Riscv => riscv::WRITABLE
            .without(RegMask::of(riscv::RA))
            .without(RegMask::of(SCRATCH_RISCV))
            .or(riscv::FPRS),
        Cpu::Arm => arm::WRITABLE
            .without(RegMask::of(SCRATCH_ARM))
            .without(RegMask::of(arm::X30))
            .or(arm::FPRS)
            .or(arm::FLAGS_MASK),
    }
}

/// The scratch register of a copy between two stack slots (see
/// [`allocatable`]).
pub const SCRATCH_RISCV: u8 = riscv::T6;
pub const SCRATCH_ARM: u8 = 16;

/// The registers a function must give back as it found them (of those
/// the allocator gives out): System V's `rbx`, `rbp`, `r12`-`r15` (Win64
/// also `rsi`, `rdi`, `xmm6`-`xmm15`), RISC-V's `s0`-`s11` and
/// `fs0`-`fs11`, ARM's `x19`-`x28` and `d8`-`d15`.
pub fn callee_saved(target: Target) -> RegMask {
    // The flags are caller-saved on both CPUs that have them.
    allocatable(target.cpu).without(caller_saved(target))
}

/// Parameter `n` of a function: its index (0 the return address, 1
/// memory, 2 on the arguments) and the kinds of the function's arguments.
pub fn parm_sig(g: &Graph, n: NodeId, m: &Mach) -> Option<(u32, Vec<LType>)> {
    let crate::node::NodeKind::Phi {
        parm: Some(idx), ..
    } = m.role
    else {
        return None;
    };
    let fun = g.input(n, 0)?;
    let crate::node::NodeKind::Fun { sig, .. } = *g.role(fun) else {
        return None;
    };
    let (args, _, _) = g.types.fun_parts(sig)?;
    let kinds = g
        .types
        .tuple_elems(args)
        .iter()
        .map(|&t| crate::mach::select::ltype(&g.types, t))
        .collect();
    Some((idx, kinds))
}

/// Where argument parameter `n` arrives, by the ABI: its register
/// (`None`: the stack, or not an argument).
pub fn parm_arg_mask(target: Target, g: &Graph, n: NodeId, m: &Mach) -> Option<RegMask> {
    let (idx, kinds) = parm_sig(g, n, m)?;
    if idx < 2 {
        return None;
    }
    arg_masks(target, &kinds)
        .get(idx as usize - 2)
        .copied()
        .flatten()
}

/// Where a value of kind `t` is returned.
pub fn ret_mask(cpu: Cpu, t: LType) -> RegMask {
    match cpu {
        Cpu::X86_64 => x86_64::ret_mask(t),
        Cpu::Riscv => riscv::ret_mask(t),
        Cpu::Arm => arm::ret_mask(t),
    }
}
