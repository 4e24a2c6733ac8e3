//! One function's stack frame, as its prologue makes it.
//!
//! From the stack pointer up: the outgoing stack arguments (on Win64
//! after the 32 bytes of shadow space a callee may use), the spill
//! slots, the callee-saved registers saved by storing them (x86 pushes
//! its general registers instead, above the frame), padding to keep the
//! stack pointer 16-byte aligned at every call; above all that the
//! return address (x86) and the incoming stack arguments. A function
//! that calls saves its return address register (RISC-V `ra`, ARM `x30`)
//! with the callee-saved registers. A leaf with nothing on the stack
//! keeps the stack pointer where it is.

use crate::graph::{Graph, NodeId};
use crate::mach::{Abi, Cpu, Op, Target};
use crate::regalloc::{Allocation, Loc};
use rustc_hash::FxHashMap;

/// Where everything of one function's frame is.
#[derive(Clone, Debug, Default)]
pub struct FrameLayout {
    /// Bytes the prologue moves the stack pointer down by (after x86's
    /// pushes).
    pub size: u32,
    /// Offset of the first outgoing stack argument.
    pub out_base: u32,
    /// Offset of spill slot 0.
    pub slot_base: u32,
    /// General registers pushed (x86), in push order.
    pub pushed: Vec<u8>,
    /// Registers stored, with their offsets.
    pub stored: Vec<(u8, u32)>,
    /// Offset of the first incoming stack argument.
    pub in_base: u32,
    /// The function calls (a call or a New).
    pub calls: bool,
}

impl FrameLayout {
    pub fn new(
        g: &Graph,
        alloc: &Allocation,
        target: Target,
        f: NodeId,
        blocks: &[NodeId],
        local: &FxHashMap<NodeId, Vec<NodeId>>,
    ) -> Self {
        let fr = alloc.frames.get(&f).cloned().unwrap_or_default();
        let calls = blocks.iter().any(|b| {
            local
                .get(b)
                .into_iter()
                .flatten()
                .copied()
                .chain(crate::regalloc::build::tail(g, *b))
                .any(|n| matches!(crate::mach::op(g, n), Some(Op::Call | Op::CallR | Op::New)))
        });
        let win64 = target.abi == Abi::Win64;
        let shadow = if win64 && calls { 4 } else { 0 };
        let out_base = 8 * shadow;
        let slot_base = out_base + 8 * fr.out_args;
        let mut top = slot_base + 8 * fr.slots;
        let mut pushed = Vec::new();
        let mut stored = Vec::new();
        let regs: Vec<u8> = (0..128u8)
            .filter(|&r| fr.callee_saved.contains(r))
            .collect();
        let return_address = match target.cpu {
            Cpu::X86_64 => None,
            Cpu::Riscv => Some(crate::cpu::riscv::RA),
            Cpu::Arm => Some(crate::cpu::arm::X30),
        };
        if let (Some(ra), true) = (return_address, calls) {
            stored.push((ra, top));
            top += 8;
        }
        for r in regs {
            if target.cpu == Cpu::X86_64 && r < 16 {
                pushed.push(r);
            } else {
                stored.push((r, top));
                top += 8;
            }
        }
        // x86: the return address and the pushes sit above the frame.
        let above = if target.cpu == Cpu::X86_64 {
            8 + 8 * pushed.len() as u32
        } else {
            0
        };
        let size = if top == 0 && !calls {
            0
        } else {
            (top + above).div_ceil(16) * 16 - above
        };
        let in_base = size + above + if win64 { 32 } else { 0 };
        FrameLayout {
            size,
            out_base,
            slot_base,
            pushed,
            stored,
            in_base,
            calls,
        }
    }

    /// The stack-pointer-relative offset of a stack location.
    pub fn offset(&self, l: Loc) -> u32 {
        match l {
            Loc::Reg(_) => 0,
            Loc::Slot(k) => self.slot_base + 8 * k,
            Loc::OutArg(k) => self.out_base + 8 * k,
            Loc::InArg(k) => self.in_base + 8 * k,
        }
    }
}
