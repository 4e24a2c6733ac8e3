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
use crate::mach::{Cpu, Mach, RegMask, Target};

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
