//! Test support: run a code image under unicorn-engine (feature
//! `test-support`).
//!
//! A [`Machine`] is one emulated CPU with three mapped regions: the code
//! image, a stack and a heap. [`Machine::call`] sets the arguments in the
//! registers the calling convention names (SystemV on all three CPUs, Win64
//! on x86-64; integer and float arguments, no stack arguments), points the
//! return address at a sentinel address that holds no code, and runs with
//! unicorn's `until` set to that sentinel: reaching it means the function
//! has returned. Then it reads the
//! integer and float return registers.
//!
//! * x86-64: the return address is pushed on the stack (Win64 also leaves
//!   its 32-byte shadow space above it); results in rax and xmm0.
//! * AArch64: the return address is in x30; results in x0 and d0.
//! * RISC-V: the return address is in ra; results in a0 and fa0. A single
//!   float argument is NaN-boxed (upper 32 bits all ones), as the ISA
//!   requires of an `f32` held in a 64-bit register.
//!
//! A code hook counts the instructions executed. A step limit stops the run
//! with [`EmuError::StepLimit`] naming the pc it stopped at; a memory
//! access to an unmapped or protected address stops it with
//! [`EmuError::Fault`], naming the address and the pc of the faulting
//! instruction.

use crate::Isa;
use std::cell::Cell;
use std::fmt;
use std::rc::Rc;
use unicorn_engine::{
    Arch, HookType, MemType, Mode, Prot, RegisterARM64, RegisterRISCV, RegisterX86, Unicorn,
};

/// Calling convention.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Abi {
    SystemV,
    /// Microsoft x64 (x86-64 only).
    Win64,
}

/// An argument to [`Machine::call`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Arg {
    Int(i64),
    F64(f64),
    F32(f32),
}

/// What a finished call left behind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// rax / x0 / a0.
    pub int: u64,
    /// Low 64 bits of xmm0 / d0 / fa0.
    pub float_bits: u64,
    /// Instructions executed.
    pub steps: u64,
}

impl Outcome {
    pub fn int(&self) -> i64 {
        self.int as i64
    }
    pub fn f64(&self) -> f64 {
        f64::from_bits(self.float_bits)
    }
    pub fn f32(&self) -> f32 {
        f32::from_bits(self.float_bits as u32)
    }
}

/// Why a run did not return normally.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EmuError {
    /// The step limit was reached before the function returned.
    StepLimit { pc: u64, steps: u64 },
    /// An access to unmapped or protected memory.
    Fault {
        kind: &'static str,
        address: u64,
        pc: u64,
    },
    /// Too many arguments, or an ABI the CPU does not have.
    BadCall(String),
    /// Any other unicorn error (invalid instruction...), with the pc.
    Unicorn { error: String, pc: u64 },
}

impl fmt::Display for EmuError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EmuError::StepLimit { pc, steps } => {
                write!(
                    f,
                    "step limit of {steps} instructions reached at pc {pc:#x}"
                )
            }
            EmuError::Fault { kind, address, pc } => {
                write!(f, "{kind} at address {address:#x} (pc {pc:#x})")
            }
            EmuError::BadCall(msg) => write!(f, "bad call: {msg}"),
            EmuError::Unicorn { error, pc } => write!(f, "emulator error {error} at pc {pc:#x}"),
        }
    }
}

impl std::error::Error for EmuError {}

fn uc_err<'a>(uc: &'a Unicorn<'static, ()>) -> impl Fn(unicorn_engine::uc_error) -> EmuError + 'a {
    move |e| EmuError::Unicorn {
        error: format!("{e:?}"),
        pc: uc.pc_read().unwrap_or(0),
    }
}

/// One emulated CPU with its memory.
pub struct Machine {
    uc: Unicorn<'static, ()>,
    isa: Isa,
    abi: Abi,
    code_len: u64,
    steps: Rc<Cell<u64>>,
    fault: Rc<Cell<Option<FaultInfo>>>,
}

/// What the memory hook saw: (kind, address, pc).
type FaultInfo = (&'static str, u64, u64);

impl Machine {
    /// Where the code image is mapped.
    pub const CODE_BASE: u64 = 0x0010_0000;
    pub const CODE_SIZE: u64 = 0x0010_0000;
    /// The stack occupies `[STACK_TOP - STACK_SIZE, STACK_TOP)`.
    pub const STACK_TOP: u64 = 0x0080_0000;
    pub const STACK_SIZE: u64 = 0x0010_0000;
    /// The heap, zero-filled.
    pub const HEAP_BASE: u64 = 0x0100_0000;
    pub const HEAP_SIZE: u64 = 0x0010_0000;
    /// The return address given to the called function. Its page holds no
    /// code: emulation stops when the pc reaches it, meaning "returned".
    pub const RETURN_SENTINEL: u64 = 0x00de_ad00;

    pub fn new(isa: Isa, abi: Abi) -> Result<Machine, EmuError> {
        if abi == Abi::Win64 && isa != Isa::X86_64 {
            return Err(EmuError::BadCall("Win64 is an x86-64 ABI".into()));
        }
        let (arch, mode) = match isa {
            Isa::X86_64 => (Arch::X86, Mode::MODE_64),
            Isa::Aarch64 => (Arch::ARM64, Mode::ARM),
            Isa::Riscv64 => (Arch::RISCV, Mode::RISCV64),
        };
        let mut uc = Unicorn::new(arch, mode).map_err(|e| EmuError::Unicorn {
            error: format!("{e:?}"),
            pc: 0,
        })?;
        let map = |uc: &mut Unicorn<'static, ()>, base, size, prot| {
            uc.mem_map(base, size, prot).map_err(|e| EmuError::Unicorn {
                error: format!("mapping {base:#x}: {e:?}"),
                pc: 0,
            })
        };
        map(
            &mut uc,
            Self::CODE_BASE,
            Self::CODE_SIZE,
            Prot::READ | Prot::EXEC,
        )?;
        map(
            &mut uc,
            Self::STACK_TOP - Self::STACK_SIZE,
            Self::STACK_SIZE,
            Prot::READ | Prot::WRITE,
        )?;
        map(
            &mut uc,
            Self::HEAP_BASE,
            Self::HEAP_SIZE,
            Prot::READ | Prot::WRITE,
        )?;
        // The sentinel's page must be executable for the CPU to fetch from
        // it at all; emulation stops there before anything runs.
        map(
            &mut uc,
            Self::RETURN_SENTINEL & !0xfff,
            0x1000,
            Prot::READ | Prot::EXEC,
        )?;

        let steps = Rc::new(Cell::new(0u64));
        let counter = steps.clone();
        uc.add_code_hook(1, 0, move |_, _, _| counter.set(counter.get() + 1))
            .map_err(uc_err(&uc))?;
        let fault = Rc::new(Cell::new(None));
        let record = fault.clone();
        let invalid = HookType(
            HookType::MEM_READ_UNMAPPED.0
                | HookType::MEM_WRITE_UNMAPPED.0
                | HookType::MEM_FETCH_UNMAPPED.0
                | HookType::MEM_READ_PROT.0
                | HookType::MEM_WRITE_PROT.0
                | HookType::MEM_FETCH_PROT.0,
        );
        uc.add_mem_hook(invalid, 1, 0, move |uc, kind, address, _, _| {
            let kind = match kind {
                MemType::READ_UNMAPPED => "read of unmapped memory",
                MemType::WRITE_UNMAPPED => "write to unmapped memory",
                MemType::FETCH_UNMAPPED => "fetch from unmapped memory",
                MemType::WRITE_PROT => "write to protected memory",
                MemType::READ_PROT => "read of protected memory",
                MemType::FETCH_PROT => "fetch from non-executable memory",
                _ => "memory fault",
            };
            let pc = uc.pc_read().unwrap_or(0);
            record.set(Some((kind, address, pc)));
            false // do not handle it: stop the emulation
        })
        .map_err(uc_err(&uc))?;

        let mut m = Machine {
            uc,
            isa,
            abi,
            code_len: 0,
            steps,
            fault,
        };
        m.enable_fpu()?;
        Ok(m)
    }

    /// AArch64 traps FP instructions unless CPACR_EL1.FPEN allows them;
    /// RISC-V unless mstatus.FS is non-zero.
    fn enable_fpu(&mut self) -> Result<(), EmuError> {
        let uc = &mut self.uc;
        let r = match self.isa {
            Isa::X86_64 => Ok(()),
            Isa::Aarch64 => {
                let v = uc.reg_read(RegisterARM64::CPACR_EL1).unwrap_or(0);
                uc.reg_write(RegisterARM64::CPACR_EL1, v | 3 << 20)
            }
            Isa::Riscv64 => {
                let v = uc.reg_read(RegisterRISCV::MSTATUS).unwrap_or(0);
                uc.reg_write(RegisterRISCV::MSTATUS, v | 3 << 13)
            }
        };
        r.map_err(|e| EmuError::Unicorn {
            error: format!("enabling the FPU: {e:?}"),
            pc: 0,
        })
    }

    pub fn isa(&self) -> Isa {
        self.isa
    }

    /// Copy a code image to [`Machine::CODE_BASE`]; returns its address.
    pub fn load_code(&mut self, code: &[u8]) -> Result<u64, EmuError> {
        if code.len() as u64 > Self::CODE_SIZE {
            return Err(EmuError::BadCall(format!(
                "code image of {} bytes exceeds {:#x}",
                code.len(),
                Self::CODE_SIZE
            )));
        }
        self.uc
            .mem_write(Self::CODE_BASE, code)
            .map_err(uc_err(&self.uc))?;
        self.code_len = code.len() as u64;
        Ok(Self::CODE_BASE)
    }

    /// Write bytes into emulated memory (heap, stack or code).
    pub fn write_mem(&mut self, address: u64, bytes: &[u8]) -> Result<(), EmuError> {
        self.uc
            .mem_write(address, bytes)
            .map_err(|_| EmuError::Fault {
                kind: "host write to unmapped memory",
                address,
                pc: 0,
            })
    }

    /// Read bytes of emulated memory.
    pub fn read_mem(&self, address: u64, len: usize) -> Result<Vec<u8>, EmuError> {
        self.uc
            .mem_read_as_vec(address, len)
            .map_err(|_| EmuError::Fault {
                kind: "host read of unmapped memory",
                address,
                pc: 0,
            })
    }

    /// Read a little-endian u64 of emulated memory.
    pub fn read_u64(&self, address: u64) -> Result<u64, EmuError> {
        let b = self.read_mem(address, 8)?;
        Ok(u64::from_le_bytes(b.try_into().unwrap()))
    }

    /// Call the function at `entry` with `args`, run it to its return or
    /// until `step_limit` instructions have run.
    pub fn call(&mut self, entry: u64, args: &[Arg], step_limit: u64) -> Result<Outcome, EmuError> {
        self.set_args(args)?;
        self.steps.set(0);
        self.fault.set(None);
        let result = self
            .uc
            .emu_start(entry, Self::RETURN_SENTINEL, 0, step_limit as usize);
        let pc = self.uc.pc_read().unwrap_or(0);
        if let Some((kind, address, fault_pc)) = self.fault.take() {
            return Err(EmuError::Fault {
                kind,
                address,
                pc: fault_pc,
            });
        }
        if let Err(e) = result {
            return Err(EmuError::Unicorn {
                error: format!("{e:?}"),
                pc,
            });
        }
        let steps = self.steps.get();
        if pc != Self::RETURN_SENTINEL {
            return Err(EmuError::StepLimit { pc, steps });
        }
        let (int, float_bits) = self.results()?;
        Ok(Outcome {
            int,
            float_bits,
            steps,
        })
    }

    fn set_args(&mut self, args: &[Arg]) -> Result<(), EmuError> {
        let sentinel = Self::RETURN_SENTINEL;
        let top = Self::STACK_TOP - 64; // a little red zone above the frame
        let (mut ints, mut floats) = (0usize, 0usize);
        let too_many = |what: &str| EmuError::BadCall(format!("too many {what} arguments"));
        let uc_error = |e: unicorn_engine::uc_error| EmuError::Unicorn {
            error: format!("{e:?}"),
            pc: 0,
        };
        match (self.isa, self.abi) {
            (Isa::X86_64, abi) => {
                use RegisterX86::*;
                let (int_regs, n_float): (&[RegisterX86], usize) = match abi {
                    Abi::SystemV => (&[RDI, RSI, RDX, RCX, R8, R9], 8),
                    // Win64: four slots, each either an integer or an xmm.
                    Abi::Win64 => (&[RCX, RDX, R8, R9], 4),
                };
                for (i, a) in args.iter().enumerate() {
                    let (int_slot, float_slot) = match abi {
                        Abi::SystemV => (ints, floats),
                        Abi::Win64 => (i, i),
                    };
                    match *a {
                        Arg::Int(v) => {
                            let r = *int_regs.get(int_slot).ok_or_else(|| too_many("integer"))?;
                            self.uc.reg_write(r, v as u64).map_err(uc_error)?;
                            ints += 1;
                        }
                        Arg::F64(_) | Arg::F32(_) => {
                            if float_slot >= n_float {
                                return Err(too_many("float"));
                            }
                            let mut bytes = [0u8; 16];
                            bytes[..8].copy_from_slice(&float_bits(a).to_le_bytes());
                            let reg = XMM0 as i32 + float_slot as i32;
                            self.uc.reg_write_long(reg, &bytes).map_err(uc_error)?;
                            floats += 1;
                        }
                    }
                }
                // Return address on the stack; Win64 adds 32 bytes of
                // shadow space above it. At entry rsp+8 is 16-aligned.
                let shadow = if abi == Abi::Win64 { 32 } else { 0 };
                let rsp = (top & !15) - shadow - 8;
                self.write_mem(rsp, &sentinel.to_le_bytes())?;
                self.uc.reg_write(RSP, rsp).map_err(uc_error)?;
            }
            (Isa::Aarch64, _) => {
                for a in args {
                    match *a {
                        Arg::Int(v) => {
                            if ints >= 8 {
                                return Err(too_many("integer"));
                            }
                            let reg = RegisterARM64::X0 as i32 + ints as i32;
                            self.uc.reg_write(reg, v as u64).map_err(uc_error)?;
                            ints += 1;
                        }
                        _ => {
                            if floats >= 8 {
                                return Err(too_many("float"));
                            }
                            let reg = RegisterARM64::D0 as i32 + floats as i32;
                            self.uc.reg_write(reg, float_bits(a)).map_err(uc_error)?;
                            floats += 1;
                        }
                    }
                }
                self.uc
                    .reg_write(RegisterARM64::X30, sentinel)
                    .map_err(uc_error)?;
                self.uc
                    .reg_write(RegisterARM64::SP, top & !15)
                    .map_err(uc_error)?;
            }
            (Isa::Riscv64, _) => {
                for a in args {
                    match *a {
                        Arg::Int(v) => {
                            if ints >= 8 {
                                return Err(too_many("integer"));
                            }
                            let reg = RegisterRISCV::X10 as i32 + ints as i32;
                            self.uc.reg_write(reg, v as u64).map_err(uc_error)?;
                            ints += 1;
                        }
                        _ => {
                            if floats >= 8 {
                                return Err(too_many("float"));
                            }
                            let bits = match *a {
                                Arg::F32(x) => 0xffff_ffff_0000_0000 | x.to_bits() as u64,
                                _ => float_bits(a),
                            };
                            let reg = RegisterRISCV::F10 as i32 + floats as i32;
                            self.uc.reg_write(reg, bits).map_err(uc_error)?;
                            floats += 1;
                        }
                    }
                }
                self.uc
                    .reg_write(RegisterRISCV::X1, sentinel)
                    .map_err(uc_error)?;
                self.uc
                    .reg_write(RegisterRISCV::X2, top & !15)
                    .map_err(uc_error)?;
            }
        }
        Ok(())
    }

    fn results(&self) -> Result<(u64, u64), EmuError> {
        let e = uc_err(&self.uc);
        Ok(match self.isa {
            Isa::X86_64 => {
                let int = self.uc.reg_read(RegisterX86::RAX).map_err(&e)?;
                let x = self.uc.reg_read_long(RegisterX86::XMM0).map_err(&e)?;
                (int, u64::from_le_bytes(x[..8].try_into().unwrap()))
            }
            Isa::Aarch64 => (
                self.uc.reg_read(RegisterARM64::X0).map_err(&e)?,
                self.uc.reg_read(RegisterARM64::D0).map_err(&e)?,
            ),
            Isa::Riscv64 => (
                self.uc.reg_read(RegisterRISCV::X10).map_err(&e)?,
                self.uc.reg_read(RegisterRISCV::F10).map_err(&e)?,
            ),
        })
    }
}

fn float_bits(a: &Arg) -> u64 {
    match *a {
        Arg::F64(x) => x.to_bits(),
        Arg::F32(x) => x.to_bits() as u64,
        Arg::Int(v) => v as u64,
    }
}
