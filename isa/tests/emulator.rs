//! Small hand-encoded functions, built with our own encoders, run on all
//! three CPUs under unicorn-engine; the results are read back from the
//! emulator's registers and memory.
#![cfg(feature = "test-support")]

use isa::emu::{Abi, Arg, EmuError, Machine};
use isa::{arm64, riscv, x86_64, Fixup, Isa};

const LIMIT: u64 = 100_000;

/// A code buffer that remembers labels and fixups, as chapter 21's
/// encoder does, and patches them at the end.
struct Asm {
    code: Vec<u8>,
    fixups: Vec<(Fixup, usize)>,
}

impl Asm {
    fn new() -> Asm {
        Asm {
            code: Vec::new(),
            fixups: Vec::new(),
        }
    }
    fn here(&self) -> usize {
        self.code.len()
    }
    fn x86(&mut self, i: x86_64::Inst) -> Option<Fixup> {
        i.encode(&mut self.code).unwrap()
    }
    fn arm(&mut self, i: arm64::Inst) -> Option<Fixup> {
        i.encode(&mut self.code).unwrap()
    }
    fn rv(&mut self, i: riscv::Inst) -> Option<Fixup> {
        i.encode(&mut self.code).unwrap()
    }
    fn to(&mut self, fixup: Option<Fixup>, target: usize) {
        self.fixups
            .push((fixup.expect("a PC-relative form"), target));
    }
    fn finish(mut self, isa: Isa) -> Vec<u8> {
        for (f, target) in std::mem::take(&mut self.fixups) {
            match isa {
                Isa::X86_64 => x86_64::patch(&mut self.code, &f, target),
                Isa::Aarch64 => arm64::patch(&mut self.code, &f, target),
                Isa::Riscv64 => riscv::patch(&mut self.code, &f, target),
            }
            .unwrap();
        }
        self.code
    }
}

fn machine(isa: Isa, abi: Abi, code: &[u8]) -> Machine {
    let mut m = Machine::new(isa, abi).unwrap();
    m.load_code(code).unwrap();
    m
}

// ---- sum of 1..=n, a loop with a backward conditional branch ----------

fn sum_x86(arg: x86_64::Reg) -> Vec<u8> {
    use x86_64::{Alu, Cond, Inst::*, Reg, Size};
    let mut a = Asm::new();
    a.x86(AluRR {
        op: Alu::Xor,
        size: Size::S32,
        dst: Reg::RAX,
        src: Reg::RAX,
    });
    let top = a.here();
    a.x86(AluRR {
        op: Alu::Add,
        size: Size::S64,
        dst: Reg::RAX,
        src: arg,
    });
    a.x86(AluRI {
        op: Alu::Sub,
        size: Size::S64,
        dst: arg,
        imm: 1,
    });
    let f = a.x86(JccShort {
        cond: Cond::Ne,
        disp: 0,
    });
    a.to(f, top);
    a.x86(Ret);
    a.finish(Isa::X86_64)
}

fn sum_arm() -> Vec<u8> {
    use arm64::{AddSub, Cond, Inst::*, Reg, Size};
    let x = |n| Reg::x(n).unwrap();
    let mut a = Asm::new();
    a.arm(Mov {
        size: Size::S64,
        rd: x(1),
        rn: Reg::XZR,
    });
    let top = a.here();
    a.arm(AluRR {
        op: AddSub::Add,
        flags: false,
        size: Size::S64,
        rd: x(1),
        rn: x(1),
        rm: x(0),
    });
    a.arm(AluRI {
        op: AddSub::Sub,
        flags: true,
        size: Size::S64,
        rd: x(0),
        rn: x(0),
        imm12: 1,
        lsl12: false,
    });
    let f = a.arm(BCond {
        cond: Cond::Ne,
        offset: 0,
    });
    a.to(f, top);
    a.arm(Mov {
        size: Size::S64,
        rd: x(0),
        rn: x(1),
    });
    a.arm(Ret { rn: Reg::LR });
    a.finish(Isa::Aarch64)
}

fn sum_rv() -> Vec<u8> {
    use riscv::{BCond, ImmOp, Inst::*, Reg, RegOp};
    let mut a = Asm::new();
    a.rv(OpImm {
        op: ImmOp::Addi,
        rd: Reg::T0,
        rs1: Reg::ZERO,
        imm: 0,
    });
    let top = a.here();
    a.rv(Op {
        op: RegOp::Add,
        rd: Reg::T0,
        rs1: Reg::T0,
        rs2: Reg::A0,
    });
    a.rv(OpImm {
        op: ImmOp::Addi,
        rd: Reg::A0,
        rs1: Reg::A0,
        imm: -1,
    });
    let f = a.rv(Branch {
        cond: BCond::Ne,
        rs1: Reg::A0,
        rs2: Reg::ZERO,
        offset: 0,
    });
    a.to(f, top);
    a.rv(OpImm {
        op: ImmOp::Addi,
        rd: Reg::A0,
        rs1: Reg::T0,
        imm: 0,
    });
    a.rv(Jalr {
        rd: Reg::ZERO,
        rs1: Reg::RA,
        offset: 0,
    });
    a.finish(Isa::Riscv64)
}

fn sum_machines() -> Vec<(Isa, Abi, Vec<u8>)> {
    vec![
        (Isa::X86_64, Abi::SystemV, sum_x86(x86_64::Reg::RDI)),
        (Isa::X86_64, Abi::Win64, sum_x86(x86_64::Reg::RCX)),
        (Isa::Aarch64, Abi::SystemV, sum_arm()),
        (Isa::Riscv64, Abi::SystemV, sum_rv()),
    ]
}

#[test]
fn sum_loop_on_every_cpu() {
    for (isa, abi, code) in sum_machines() {
        let mut m = machine(isa, abi, &code);
        for n in [1i64, 10, 1000] {
            let out = m.call(Machine::CODE_BASE, &[Arg::Int(n)], LIMIT).unwrap();
            assert_eq!(out.int(), n * (n + 1) / 2, "{isa:?} {abi:?} n={n}");
            // Setup + 3 per iteration (+ a move on AArch64/RISC-V) + ret.
            let extra = if isa == Isa::X86_64 { 2 } else { 3 };
            assert_eq!(out.steps, 3 * n as u64 + extra, "{isa:?} steps for n={n}");
        }
    }
}

#[test]
fn step_limit_names_the_pc() {
    for (isa, abi, code) in sum_machines() {
        let mut m = machine(isa, abi, &code);
        let err = m
            .call(Machine::CODE_BASE, &[Arg::Int(1 << 40)], 1000)
            .unwrap_err();
        match err {
            EmuError::StepLimit { pc, .. } => {
                let end = Machine::CODE_BASE + code.len() as u64;
                assert!(
                    (Machine::CODE_BASE..end).contains(&pc),
                    "{isa:?}: pc {pc:#x}"
                );
                assert!(err.to_string().contains(&format!("{pc:#x}")));
            }
            other => panic!("{isa:?}: expected a step limit, got {other}"),
        }
    }
}

// ---- store, then load through the heap --------------------------------

/// f(p, v): *(p+8) = v; *(p+3) = (u8)v; return *(i64*)(p+8) + *(i8*)(p+3)
fn heap_code(isa: Isa) -> Vec<u8> {
    let mut a = Asm::new();
    match isa {
        Isa::X86_64 => {
            use x86_64::{Alu, Amode, Ext, Inst::*, Reg, Size, Width};
            let (p, v) = (Reg::RDI, Reg::RSI);
            a.x86(Store {
                width: Width::W64,
                src: v,
                addr: Amode::base(p, 8),
            });
            a.x86(Load {
                width: Width::W64,
                ext: Ext::Zero,
                dst: Reg::RAX,
                addr: Amode::base(p, 8),
            });
            // sil needs a REX prefix: a byte store from register 6.
            a.x86(Store {
                width: Width::W8,
                src: v,
                addr: Amode::indexed(p, Reg::R12, 1, 3),
            });
            a.x86(Load {
                width: Width::W8,
                ext: Ext::Sign,
                dst: Reg::R13,
                addr: Amode::indexed(p, Reg::R12, 1, 3),
            });
            a.x86(AluRR {
                op: Alu::Add,
                size: Size::S64,
                dst: Reg::RAX,
                src: Reg::R13,
            });
            a.x86(Ret);
        }
        Isa::Aarch64 => {
            use arm64::{AddSub, Inst::*, LdSt, Reg, Size};
            let x = |n| Reg::x(n).unwrap();
            for i in [
                arm64::mem(LdSt::StrX, x(1), x(0), 8).unwrap(),
                arm64::mem(LdSt::LdrX, x(2), x(0), 8).unwrap(),
                arm64::mem(LdSt::Strb, x(1), x(0), 3).unwrap(),
                arm64::mem(LdSt::Ldrsb, x(3), x(0), 3).unwrap(),
                AluRR {
                    op: AddSub::Add,
                    flags: false,
                    size: Size::S64,
                    rd: x(0),
                    rn: x(2),
                    rm: x(3),
                },
                Ret { rn: Reg::LR },
            ] {
                a.arm(i);
            }
        }
        Isa::Riscv64 => {
            use riscv::{Inst::*, LoadOp, Reg, RegOp, StoreOp};
            let (p, v) = (Reg::A0, Reg::A1);
            let t = |n| Reg::x(n).unwrap();
            for i in [
                Store {
                    op: StoreOp::Sd,
                    rs2: v,
                    rs1: p,
                    offset: 8,
                },
                Load {
                    op: LoadOp::Ld,
                    rd: t(6),
                    rs1: p,
                    offset: 8,
                },
                Store {
                    op: StoreOp::Sb,
                    rs2: v,
                    rs1: p,
                    offset: 3,
                },
                Load {
                    op: LoadOp::Lb,
                    rd: t(7),
                    rs1: p,
                    offset: 3,
                },
                Op {
                    op: RegOp::Add,
                    rd: p,
                    rs1: t(6),
                    rs2: t(7),
                },
                Jalr {
                    rd: Reg::ZERO,
                    rs1: Reg::RA,
                    offset: 0,
                },
            ] {
                a.rv(i);
            }
        }
    }
    a.finish(isa)
}

#[test]
fn store_then_load_through_the_heap() {
    for isa in Isa::ALL {
        let code = heap_code(isa);
        let mut m = machine(isa, Abi::SystemV, &code);
        let p = Machine::HEAP_BASE + 0x100;
        let v: i64 = 0x0123_4567_89ab_cdff; // low byte 0xff reads back as -1
        let out = m
            .call(
                Machine::CODE_BASE,
                &[Arg::Int(p as i64), Arg::Int(v)],
                LIMIT,
            )
            .unwrap();
        assert_eq!(out.int(), v - 1, "{isa:?}");
        assert_eq!(m.read_u64(p + 8).unwrap(), v as u64, "{isa:?}");
        assert_eq!(m.read_mem(p + 3, 1).unwrap(), [0xff], "{isa:?}");
    }
}

// ---- floating point: x / y + (double)n ---------------------------------

fn float_code(isa: Isa) -> Vec<u8> {
    let mut a = Asm::new();
    match isa {
        Isa::X86_64 => {
            use x86_64::{FOp, Inst::*, Prec, Reg, Size, Xmm};
            let x = |n| Xmm::new(n).unwrap();
            a.x86(FArith {
                op: FOp::Div,
                prec: Prec::F64,
                dst: x(0),
                src: x(1),
            });
            // The integer argument: rdi (SystemV); for Win64, slot 2 is r8.
            a.x86(CvtIntToF {
                prec: Prec::F64,
                size: Size::S64,
                dst: x(9),
                src: Reg::RDI,
            });
            a.x86(FArith {
                op: FOp::Add,
                prec: Prec::F64,
                dst: x(0),
                src: x(9),
            });
            a.x86(Ret);
        }
        Isa::Aarch64 => {
            use arm64::{FOp, FReg, Inst::*, Prec, Reg, Size};
            let d = |n| FReg::new(n).unwrap();
            a.arm(FArith {
                op: FOp::Div,
                prec: Prec::F64,
                rd: d(0),
                rn: d(0),
                rm: d(1),
            });
            a.arm(Scvtf {
                prec: Prec::F64,
                size: Size::S64,
                rd: d(31),
                rn: Reg::x(0).unwrap(),
            });
            a.arm(FArith {
                op: FOp::Add,
                prec: Prec::F64,
                rd: d(0),
                rn: d(0),
                rm: d(31),
            });
            a.arm(Ret { rn: Reg::LR });
        }
        Isa::Riscv64 => {
            use riscv::{FOp, FReg, Inst::*, IntTy, Prec, Reg};
            let f = |n| FReg::new(n).unwrap();
            a.rv(FArith {
                op: FOp::Div,
                prec: Prec::F64,
                rd: f(10),
                rs1: f(10),
                rs2: f(11),
            });
            a.rv(FCvtFromInt {
                prec: Prec::F64,
                int: IntTy::L,
                rd: f(31),
                rs1: Reg::A0,
            });
            a.rv(FArith {
                op: FOp::Add,
                prec: Prec::F64,
                rd: f(10),
                rs1: f(10),
                rs2: f(31),
            });
            a.rv(Jalr {
                rd: Reg::ZERO,
                rs1: Reg::RA,
                offset: 0,
            });
        }
    }
    a.finish(isa)
}

#[test]
fn float_divide_on_every_cpu() {
    let args = [Arg::F64(1.0), Arg::F64(8.0), Arg::Int(-3)];
    for isa in Isa::ALL {
        let mut m = machine(isa, Abi::SystemV, &float_code(isa));
        let out = m.call(Machine::CODE_BASE, &args, LIMIT).unwrap();
        assert_eq!(out.f64(), 1.0 / 8.0 - 3.0, "{isa:?}");
        assert_eq!(out.steps, 4, "{isa:?}");
    }
}

// ---- a call and its return ---------------------------------------------

/// main(a) = callee(a) + 1, callee(x) = 3x; main saves what it must.
fn call_code(isa: Isa) -> Vec<u8> {
    let mut a = Asm::new();
    match isa {
        Isa::X86_64 => {
            use x86_64::{Alu, Inst::*, Reg, Size};
            a.x86(Push { src: Reg::RBX }); // keeps rsp 16-aligned at the call
            let f = a.x86(Call { disp: 0 });
            a.x86(AluRI {
                op: Alu::Add,
                size: Size::S64,
                dst: Reg::RAX,
                imm: 1,
            });
            a.x86(Pop { dst: Reg::RBX });
            a.x86(Ret);
            let callee = a.here();
            a.to(f, callee);
            a.x86(ImulRI {
                size: Size::S64,
                dst: Reg::RAX,
                src: Reg::RDI,
                imm: 3,
            });
            a.x86(Ret);
        }
        Isa::Aarch64 => {
            use arm64::{Inst::*, PairMode, Reg, Size};
            let x = |n| Reg::x(n).unwrap();
            a.arm(Pair {
                load: false,
                mode: PairMode::PreIndex,
                rt: Reg::FP,
                rt2: Reg::LR,
                rn: Reg::SP,
                offset: -16,
            });
            let f = a.arm(Bl { offset: 0 });
            a.arm(arm64::add_imm(Size::S64, x(0), x(0), 1).unwrap());
            a.arm(Pair {
                load: true,
                mode: PairMode::PostIndex,
                rt: Reg::FP,
                rt2: Reg::LR,
                rn: Reg::SP,
                offset: 16,
            });
            a.arm(Ret { rn: Reg::LR });
            let callee = a.here();
            a.to(f, callee);
            for i in arm64::load_const(x(1), 3) {
                a.arm(i);
            }
            a.arm(MulAdd {
                sub: false,
                size: Size::S64,
                rd: x(0),
                rn: x(0),
                rm: x(1),
                ra: Reg::XZR,
            });
            a.arm(Ret { rn: Reg::LR });
        }
        Isa::Riscv64 => {
            use riscv::{ImmOp, Inst::*, Reg, RegOp, StoreOp};
            a.rv(OpImm {
                op: ImmOp::Addi,
                rd: Reg::SP,
                rs1: Reg::SP,
                imm: -16,
            });
            a.rv(Store {
                op: StoreOp::Sd,
                rs2: Reg::RA,
                rs1: Reg::SP,
                offset: 8,
            });
            let f = riscv::call(&mut a.code).unwrap();
            a.rv(OpImm {
                op: ImmOp::Addi,
                rd: Reg::A0,
                rs1: Reg::A0,
                imm: 1,
            });
            a.rv(Load {
                op: riscv::LoadOp::Ld,
                rd: Reg::RA,
                rs1: Reg::SP,
                offset: 8,
            });
            a.rv(OpImm {
                op: ImmOp::Addi,
                rd: Reg::SP,
                rs1: Reg::SP,
                imm: 16,
            });
            a.rv(Jalr {
                rd: Reg::ZERO,
                rs1: Reg::RA,
                offset: 0,
            });
            let callee = a.here();
            a.to(Some(f), callee);
            a.rv(OpImm {
                op: ImmOp::Slli,
                rd: Reg::T0,
                rs1: Reg::A0,
                imm: 1,
            });
            a.rv(Op {
                op: RegOp::Add,
                rd: Reg::A0,
                rs1: Reg::A0,
                rs2: Reg::T0,
            });
            a.rv(Jalr {
                rd: Reg::ZERO,
                rs1: Reg::RA,
                offset: 0,
            });
        }
    }
    a.finish(isa)
}

#[test]
fn call_and_return_on_every_cpu() {
    for isa in Isa::ALL {
        let mut m = machine(isa, Abi::SystemV, &call_code(isa));
        let out = m.call(Machine::CODE_BASE, &[Arg::Int(14)], LIMIT).unwrap();
        assert_eq!(out.int(), 43, "{isa:?}");
    }
}

// ---- large constants: the multi-instruction sequences really compute ---

#[test]
fn constant_sequences_compute_their_value() {
    let values = [
        0i64,
        1,
        -1,
        2047,
        -2048,
        0x7fff_f800,
        0x7fff_ffff,
        0x8000_0000,
        -0x8000_0000,
        0x1234_5678_9abc_def0,
        i64::MIN,
        i64::MAX,
        0x00ff_00ff_00ff_00ff,
        -0x1234_5678,
    ];
    for isa in Isa::ALL {
        for &v in &values {
            let mut a = Asm::new();
            match isa {
                Isa::X86_64 => {
                    a.x86(x86_64::load_const(x86_64::Reg::R11, v));
                    a.x86(x86_64::Inst::MovRR {
                        size: x86_64::Size::S64,
                        dst: x86_64::Reg::RAX,
                        src: x86_64::Reg::R11,
                    });
                    a.x86(x86_64::Inst::Ret);
                }
                Isa::Aarch64 => {
                    for i in arm64::load_const(arm64::Reg::x(0).unwrap(), v as u64) {
                        a.arm(i);
                    }
                    a.arm(arm64::Inst::Ret { rn: arm64::Reg::LR });
                }
                Isa::Riscv64 => {
                    for i in riscv::load_const(riscv::Reg::A0, v) {
                        a.rv(i);
                    }
                    a.rv(riscv::Inst::Jalr {
                        rd: riscv::Reg::ZERO,
                        rs1: riscv::Reg::RA,
                        offset: 0,
                    });
                }
            }
            let mut m = machine(isa, Abi::SystemV, &a.finish(isa));
            let out = m.call(Machine::CODE_BASE, &[], LIMIT).unwrap();
            assert_eq!(out.int(), v, "{isa:?} {v:#x}");
        }
    }
}

// ---- faults report the address and the pc --------------------------------

#[test]
fn fault_reports_address_and_pc() {
    let bad = 0x10u64; // nothing is mapped at the bottom of memory
    for isa in Isa::ALL {
        let mut a = Asm::new();
        // One harmless instruction first, so the faulting pc is not the entry.
        let load_at = match isa {
            Isa::X86_64 => {
                use x86_64::{Amode, Ext, Inst::*, Reg, Width};
                a.x86(Nop);
                let at = a.here();
                a.x86(Load {
                    width: Width::W64,
                    ext: Ext::Zero,
                    dst: Reg::RAX,
                    addr: Amode::base(Reg::RDI, 0),
                });
                a.x86(Ret);
                at
            }
            Isa::Aarch64 => {
                use arm64::{Inst::*, LdSt, Reg};
                a.arm(Nop);
                let at = a.here();
                a.arm(arm64::mem(LdSt::LdrX, Reg::x(0).unwrap(), Reg::x(0).unwrap(), 0).unwrap());
                a.arm(Ret { rn: Reg::LR });
                at
            }
            Isa::Riscv64 => {
                use riscv::{Inst::*, LoadOp, Reg};
                a.rv(Nop);
                let at = a.here();
                a.rv(Load {
                    op: LoadOp::Ld,
                    rd: Reg::A0,
                    rs1: Reg::A0,
                    offset: 0,
                });
                a.rv(Jalr {
                    rd: Reg::ZERO,
                    rs1: Reg::RA,
                    offset: 0,
                });
                at
            }
        };
        let mut m = machine(isa, Abi::SystemV, &a.finish(isa));
        let err = m
            .call(Machine::CODE_BASE, &[Arg::Int(bad as i64)], LIMIT)
            .unwrap_err();
        match err {
            EmuError::Fault { address, pc, .. } => {
                assert_eq!(address, bad, "{isa:?}");
                assert_eq!(pc, Machine::CODE_BASE + load_at as u64, "{isa:?}");
            }
            other => panic!("{isa:?}: expected a fault, got {other}"),
        }
    }
}

#[test]
fn win64_passes_arguments_by_position() {
    // x / y + n with n in the third slot: r8 under Win64.
    use x86_64::{FOp, Inst::*, Prec, Reg, Size, Xmm};
    let x = |n| Xmm::new(n).unwrap();
    let mut a = Asm::new();
    a.x86(FArith {
        op: FOp::Div,
        prec: Prec::F64,
        dst: x(0),
        src: x(1),
    });
    a.x86(CvtIntToF {
        prec: Prec::F64,
        size: Size::S64,
        dst: x(2),
        src: Reg::R8,
    });
    a.x86(FArith {
        op: FOp::Add,
        prec: Prec::F64,
        dst: x(0),
        src: x(2),
    });
    a.x86(Ret);
    let mut m = machine(Isa::X86_64, Abi::Win64, &a.finish(Isa::X86_64));
    let out = m
        .call(
            Machine::CODE_BASE,
            &[Arg::F64(3.0), Arg::F64(2.0), Arg::Int(10)],
            LIMIT,
        )
        .unwrap();
    assert_eq!(out.f64(), 11.5);
}

// ---- arguments on the stack ---------------------------------------------

/// Load the 8-byte stack slot at `offset` from the stack pointer at entry
/// into the integer return register.
fn stack_slot_code(isa: Isa, offset: i32) -> Vec<u8> {
    let mut a = Asm::new();
    match isa {
        Isa::X86_64 => {
            use x86_64::{Amode, Ext, Inst::*, Reg, Width};
            a.x86(Load {
                width: Width::W64,
                ext: Ext::Zero,
                dst: Reg::RAX,
                addr: Amode::base(Reg::RSP, offset),
            });
            a.x86(Ret);
        }
        Isa::Aarch64 => {
            use arm64::{Inst::*, LdSt, Reg};
            a.arm(arm64::mem(LdSt::LdrX, Reg::x(0).unwrap(), Reg::SP, offset as i64).unwrap());
            a.arm(Ret { rn: Reg::LR });
        }
        Isa::Riscv64 => {
            use riscv::{Inst::*, LoadOp, Reg};
            a.rv(Load {
                op: LoadOp::Ld,
                rd: Reg::A0,
                rs1: Reg::SP,
                offset,
            });
            a.rv(Jalr {
                rd: Reg::ZERO,
                rs1: Reg::RA,
                offset: 0,
            });
        }
    }
    a.finish(isa)
}

#[test]
fn arguments_past_the_registers_go_on_the_stack() {
    // Eleven integers, the last two past every CPU's registers, with
    // floats mixed in that do not take integer slots (SystemV).
    let mut args: Vec<Arg> = (1..=11).map(Arg::Int).collect();
    args.insert(3, Arg::F64(0.5));
    // (isa, abi, entry-sp offset of the 11th integer argument)
    for (isa, abi, offset) in [
        // ints 7..11 on the stack above the return address: the 11th at 8+4*8.
        (Isa::X86_64, Abi::SystemV, 40),
        // 12 positional slots, the 11th integer is the 12th argument:
        // return address, shadow (4 slots), then slots 4.. at 40.
        (Isa::X86_64, Abi::Win64, 8 + 8 * 11),
        // ints 9..11 on the stack: the 11th at 16.
        (Isa::Aarch64, Abi::SystemV, 16),
        // The float takes fa0; ints 9..11 on the stack.
        (Isa::Riscv64, Abi::SystemV, 16),
    ] {
        let mut m = machine(isa, abi, &stack_slot_code(isa, offset));
        let out = m.call(Machine::CODE_BASE, &args, LIMIT).unwrap();
        assert_eq!(out.int(), 11, "{isa:?} {abi:?}");
    }
}

#[test]
fn riscv_floats_past_fa7_take_integer_registers() {
    // Nine doubles: the ninth goes in a0 (no integer argument before it).
    let args: Vec<Arg> = (1..=9).map(|i| Arg::F64(i as f64)).collect();
    let code = {
        let mut a = Asm::new();
        a.rv(riscv::Inst::Jalr {
            rd: riscv::Reg::ZERO,
            rs1: riscv::Reg::RA,
            offset: 0,
        });
        a.finish(Isa::Riscv64)
    };
    let mut m = machine(Isa::Riscv64, Abi::SystemV, &code);
    let out = m.call(Machine::CODE_BASE, &args, LIMIT).unwrap();
    assert_eq!(f64::from_bits(out.int), 9.0);
}

// ---- host functions -----------------------------------------------------

/// Call the function at `target` (a host stub), passing this function's
/// two integer arguments on, and return what it returns.
fn call_out_code(isa: Isa, target: u64) -> Vec<u8> {
    let mut a = Asm::new();
    // The stub lies past the code: a patch target beyond the buffer.
    let t = (target - Machine::CODE_BASE) as usize;
    match isa {
        Isa::X86_64 => {
            use x86_64::{Inst::*, Reg};
            a.x86(Push { src: Reg::RBX }); // realign the stack
            let f = a.x86(Call { disp: 0 });
            a.to(f, t);
            a.x86(Pop { dst: Reg::RBX });
            a.x86(Ret);
        }
        Isa::Aarch64 => {
            use arm64::{Inst::*, PairMode, Reg};
            let pair = |load, mode, offset| Pair {
                load,
                mode,
                rt: Reg::FP,
                rt2: Reg::LR,
                rn: Reg::SP,
                offset,
            };
            a.arm(pair(false, PairMode::PreIndex, -16));
            let f = a.arm(Bl { offset: 0 });
            a.to(f, t);
            a.arm(pair(true, PairMode::PostIndex, 16));
            a.arm(Ret { rn: Reg::LR });
        }
        Isa::Riscv64 => {
            use riscv::{ImmOp, Inst::*, Reg, StoreOp};
            let sp = |imm| OpImm {
                op: ImmOp::Addi,
                rd: Reg::SP,
                rs1: Reg::SP,
                imm,
            };
            a.rv(sp(-16));
            a.rv(Store {
                op: StoreOp::Sd,
                rs2: Reg::RA,
                rs1: Reg::SP,
                offset: 8,
            });
            let f = riscv::call(&mut a.code).unwrap();
            a.to(Some(f), t);
            a.rv(Load {
                op: riscv::LoadOp::Ld,
                rd: Reg::RA,
                rs1: Reg::SP,
                offset: 8,
            });
            a.rv(sp(16));
            a.rv(Jalr {
                rd: Reg::ZERO,
                rs1: Reg::RA,
                offset: 0,
            });
        }
    }
    a.finish(isa)
}

#[test]
fn calloc_hands_out_zeroed_heap_memory() {
    for isa in Isa::ALL {
        let mut m = Machine::new(isa, Abi::SystemV).unwrap();
        let own = m.alloc(24).unwrap();
        assert_eq!(own, Machine::HEAP_BASE);
        m.write_mem(own, &[0xff; 24]).unwrap();
        let calloc = m.add_calloc().unwrap();
        m.load_code(&call_out_code(isa, calloc)).unwrap();
        let out = m
            .call(Machine::CODE_BASE, &[Arg::Int(3), Arg::Int(8)], LIMIT)
            .unwrap();
        // After the test's own 24 bytes, 16-aligned.
        assert_eq!(out.int, Machine::HEAP_BASE + 32, "{isa:?}");
        assert_eq!(m.read_mem(out.int, 24).unwrap(), [0; 24], "{isa:?}");
        // n * size overflows: NULL, as C says.
        let out = m
            .call(
                Machine::CODE_BASE,
                &[Arg::Int(1 << 40), Arg::Int(1 << 40)],
                LIMIT,
            )
            .unwrap();
        assert_eq!(out.int, 0, "{isa:?}");
        // Larger than the heap: NULL too.
        let big = Machine::HEAP_SIZE as i64;
        let out = m
            .call(Machine::CODE_BASE, &[Arg::Int(1), Arg::Int(big)], LIMIT)
            .unwrap();
        assert_eq!(out.int, 0, "{isa:?}");
    }
}

#[test]
fn a_failing_host_function_stops_the_run() {
    for isa in Isa::ALL {
        let mut m = Machine::new(isa, Abi::SystemV).unwrap();
        let f = m
            .host_function(|call| match call.arg(0)? {
                0 => Err("no zeros here".into()),
                n => Ok(n * 10),
            })
            .unwrap();
        m.load_code(&call_out_code(isa, f)).unwrap();
        let out = m.call(Machine::CODE_BASE, &[Arg::Int(4)], LIMIT).unwrap();
        assert_eq!(out.int, 40, "{isa:?}");
        let err = m
            .call(Machine::CODE_BASE, &[Arg::Int(0)], LIMIT)
            .unwrap_err();
        assert_eq!(
            err,
            EmuError::Host {
                message: "no zeros here".into(),
                pc: f
            },
            "{isa:?}"
        );
    }
}
