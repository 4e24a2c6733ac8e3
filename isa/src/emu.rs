//! Test support: run a code image under unicorn-engine (feature
//! `test-support`).
//!
//! A [`Machine`] is one emulated CPU with its mapped regions: the code
//! image, a stack, a heap, and a page of host-function stubs. Code goes in
//! with [`Machine::load_code`] (at [`Machine::CODE_BASE`]) or, linked for
//! an address of its choosing, with [`Machine::load_image`].
//! [`Machine::call`] places the arguments where the calling convention
//! says (SystemV on all three CPUs, Win64 on x86-64), points the return
//! address at a sentinel address that holds no code, and runs with
//! unicorn's `until` set to that sentinel: reaching it means the function
//! has returned. Then it reads the integer and float return registers.
//!
//! * x86-64 SystemV: six integer registers and eight xmm; the rest go on
//!   the stack in order, above the return address. Win64: four slots, each
//!   an integer register or an xmm by position, then the stack above the
//!   32-byte shadow space. Results in rax and xmm0.
//! * AArch64: x0..x7 and d0..d7, then the stack (8 bytes an argument);
//!   the return address is in x30; results in x0 and d0.
//! * RISC-V: a0..a7 and fa0..fa7; a float past fa7 takes the next free
//!   integer register (the psABI's rule), then the stack. The return
//!   address is in ra; results in a0 and fa0. An `f32` in a float register
//!   is NaN-boxed (upper 32 bits all ones), as the ISA requires.
//!
//! The code may call C functions that run on the host:
//! [`Machine::host_function`] gives each a stub address holding only a
//! return instruction, and a code hook on the stub runs the Rust closure
//! first, putting its result in the return register. [`Machine::add_calloc`]
//! registers C's `calloc`, a bump allocator over the heap that hands out
//! zeroed memory and never frees it ([`Machine::alloc`] takes from the same
//! heap for a test's own data).
//!
//! A code hook counts the instructions executed. A step limit stops the run
//! with [`EmuError::StepLimit`] naming the pc it stopped at; a memory
//! access to an unmapped or protected address stops it with
//! [`EmuError::Fault`], naming the address and the pc of the faulting
//! instruction; a failing host function stops it with [`EmuError::Host`].

use crate::Isa;
use std::cell::{Cell, RefCell};
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
    /// A host function (see [`Machine::host_function`]) failed.
    Host { message: String, pc: u64 },
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
            EmuError::Host { message, pc } => write!(f, "host function at {pc:#x}: {message}"),
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
    /// The next free byte of the heap, shared with the host functions.
    heap_next: Rc<Cell<u64>>,
    /// Host functions registered so far (each has one stub).
    host_count: u64,
    /// What the last failing host function said, and where.
    host_error: Rc<RefCell<Option<(String, u64)>>>,
}

/// Where an argument of [`Machine::call`] goes.
#[derive(Clone, Copy)]
enum Place {
    /// An integer register, or a float register that `reg_write` takes.
    Reg(i32, u64),
    /// The low 64 bits of an x86 xmm register.
    Xmm(i32, u64),
    /// The next 8-byte slot of the stack argument area.
    Stack(u64),
}

/// More arguments than any test means: a bound on the stack area.
const MAX_ARGS: usize = 64;

/// What a host function sees when emulated code calls it: the integer
/// argument registers and the emulated memory.
pub struct HostCall<'a, 'u> {
    uc: &'a mut Unicorn<'u, ()>,
    isa: Isa,
    abi: Abi,
    heap_next: &'a Cell<u64>,
}

impl HostCall<'_, '_> {
    /// The `n`th integer argument (from 0), as the calling convention
    /// passes it in a register.
    pub fn arg(&self, n: usize) -> Result<u64, String> {
        use RegisterX86::*;
        let reg = match (self.isa, self.abi) {
            (Isa::X86_64, Abi::SystemV) => [RDI, RSI, RDX, RCX, R8, R9].get(n).map(|&r| r as i32),
            (Isa::X86_64, Abi::Win64) => [RCX, RDX, R8, R9].get(n).map(|&r| r as i32),
            (Isa::Aarch64, _) => (n < 8).then(|| RegisterARM64::X0 as i32 + n as i32),
            (Isa::Riscv64, _) => (n < 8).then(|| RegisterRISCV::X10 as i32 + n as i32),
        };
        let reg = reg.ok_or_else(|| format!("argument {n} is not in a register"))?;
        self.uc.reg_read(reg).map_err(|e| format!("{e:?}"))
    }

    /// Allocate `size` zeroed bytes of the heap, 16-aligned; None when
    /// the heap is full (C's NULL).
    pub fn alloc(&mut self, size: u64) -> Option<u64> {
        bump(self.uc, self.heap_next, size)
    }

    pub fn write_mem(&mut self, address: u64, bytes: &[u8]) -> Result<(), String> {
        self.uc
            .mem_write(address, bytes)
            .map_err(|_| format!("write to unmapped memory at {address:#x}"))
    }

    pub fn read_mem(&self, address: u64, len: usize) -> Result<Vec<u8>, String> {
        self.uc
            .mem_read_as_vec(address, len)
            .map_err(|_| format!("read of unmapped memory at {address:#x}"))
    }
}

/// The bump allocator behind [`Machine::alloc`] and `calloc`: memory is
/// never freed, and zeroed when handed out (a test may have written the
/// heap before).
fn bump(uc: &mut Unicorn<'_, ()>, next: &Cell<u64>, size: u64) -> Option<u64> {
    let at = next.get().next_multiple_of(16);
    let end = at.checked_add(size.max(1))?;
    if end > Machine::HEAP_BASE + Machine::HEAP_SIZE {
        return None;
    }
    // Zero in pieces: no host buffer as large as the heap.
    let zeros = [0u8; 4096];
    let mut p = at;
    while p < end {
        let n = (end - p).min(zeros.len() as u64);
        uc.mem_write(p, &zeros[..n as usize]).ok()?;
        p += n;
    }
    next.set(end);
    Some(at)
}

/// What the memory hook saw: (kind, address, pc).
type FaultInfo = (&'static str, u64, u64);

impl Machine {
    /// Where the code image is mapped.
    pub const CODE_BASE: u64 = 0x0010_0000;
    /// Up to the stack: room for large programs' text and rodata.
    pub const CODE_SIZE: u64 = 0x0060_0000;
    /// The stack occupies `[STACK_TOP - STACK_SIZE, STACK_TOP)`.
    pub const STACK_TOP: u64 = 0x0080_0000;
    pub const STACK_SIZE: u64 = 0x0010_0000;
    /// The heap, zero-filled; [`Machine::alloc`] and `calloc` hand it out.
    pub const HEAP_BASE: u64 = 0x0100_0000;
    pub const HEAP_SIZE: u64 = 0x0100_0000;
    /// Host function stubs, 16 bytes apart (see [`Machine::host_function`]).
    pub const HOST_BASE: u64 = 0x00f0_0000;
    pub const HOST_SIZE: u64 = 0x1000;
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
        map(
            &mut uc,
            Self::HOST_BASE,
            Self::HOST_SIZE,
            Prot::READ | Prot::EXEC,
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
            heap_next: Rc::new(Cell::new(Self::HEAP_BASE)),
            host_count: 0,
            host_error: Rc::new(RefCell::new(None)),
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

    /// Copy a linked image to `base`: inside the code region, or else on
    /// pages of its own (readable and executable), which must not overlap
    /// the other regions.
    pub fn load_image(&mut self, base: u64, bytes: &[u8]) -> Result<(), EmuError> {
        let len = bytes.len() as u64;
        let end = base
            .checked_add(len)
            .ok_or_else(|| EmuError::BadCall(format!("image at {base:#x} wraps around")))?;
        let inside = base >= Self::CODE_BASE && end <= Self::CODE_BASE + Self::CODE_SIZE;
        if !inside && len > 0 {
            let first = base & !0xfff;
            let last = end.next_multiple_of(0x1000);
            self.uc
                .mem_map(first, last - first, Prot::READ | Prot::EXEC)
                .map_err(|e| {
                    EmuError::BadCall(format!(
                        "cannot map an image at {first:#x}..{last:#x}: {e:?}"
                    ))
                })?;
        }
        self.uc.mem_write(base, bytes).map_err(uc_err(&self.uc))?;
        self.code_len = self.code_len.max(end.saturating_sub(Self::CODE_BASE));
        Ok(())
    }

    /// Allocate `size` zeroed bytes of the heap (16-aligned), as `calloc`
    /// would for the emulated code: memory a test hands to a function.
    pub fn alloc(&mut self, size: u64) -> Result<u64, EmuError> {
        bump(&mut self.uc, &self.heap_next, size)
            .ok_or_else(|| EmuError::BadCall(format!("the heap has no room for {size} bytes")))
    }

    /// Make `f` callable by the emulated code: returns the address to
    /// call (a stub holding only a return instruction). A code hook on
    /// the stub runs `f` before the return executes and puts its result
    /// in the integer return register; an error from `f` stops the run
    /// with [`EmuError::Host`].
    pub fn host_function(
        &mut self,
        mut f: impl FnMut(&mut HostCall<'_, '_>) -> Result<u64, String> + 'static,
    ) -> Result<u64, EmuError> {
        let stub = Self::HOST_BASE + 16 * self.host_count;
        if stub + 16 > Self::HOST_BASE + Self::HOST_SIZE {
            return Err(EmuError::BadCall("too many host functions".into()));
        }
        let ret: &[u8] = match self.isa {
            Isa::X86_64 => &[0xc3],                    // ret
            Isa::Aarch64 => &[0xc0, 0x03, 0x5f, 0xd6], // ret (x30)
            Isa::Riscv64 => &[0x67, 0x80, 0x00, 0x00], // jalr zero, 0(ra)
        };
        self.uc.mem_write(stub, ret).map_err(uc_err(&self.uc))?;
        let (isa, abi) = (self.isa, self.abi);
        let heap_next = self.heap_next.clone();
        let error = self.host_error.clone();
        self.uc
            .add_code_hook(stub, stub, move |uc, _, _| {
                let result = f(&mut HostCall {
                    uc,
                    isa,
                    abi,
                    heap_next: &heap_next,
                });
                let written = result.and_then(|value| {
                    let reg = match isa {
                        Isa::X86_64 => RegisterX86::RAX as i32,
                        Isa::Aarch64 => RegisterARM64::X0 as i32,
                        Isa::Riscv64 => RegisterRISCV::X10 as i32,
                    };
                    uc.reg_write(reg, value).map_err(|e| format!("{e:?}"))
                });
                if let Err(message) = written {
                    *error.borrow_mut() = Some((message, stub));
                    let _ = uc.emu_stop();
                }
            })
            .map_err(uc_err(&self.uc))?;
        self.host_count += 1;
        Ok(stub)
    }

    /// Register C's `calloc(n, size)`: zeroed heap memory, NULL when the
    /// heap is full or `n * size` overflows. Returns its address.
    pub fn add_calloc(&mut self) -> Result<u64, EmuError> {
        self.host_function(|call| {
            let (n, size) = (call.arg(0)?, call.arg(1)?);
            Ok(n.checked_mul(size)
                .and_then(|bytes| call.alloc(bytes))
                .unwrap_or(0))
        })
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
        self.host_error.borrow_mut().take();
        let result = self
            .uc
            .emu_start(entry, Self::RETURN_SENTINEL, 0, step_limit as usize);
        let pc = self.uc.pc_read().unwrap_or(0);
        if let Some((message, pc)) = self.host_error.borrow_mut().take() {
            return Err(EmuError::Host { message, pc });
        }
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
        let places = self.place_args(args)?;
        let stack: Vec<u64> = places
            .iter()
            .filter_map(|p| match *p {
                Place::Stack(bits) => Some(bits),
                _ => None,
            })
            .collect();
        let uc_error = |e: unicorn_engine::uc_error| EmuError::Unicorn {
            error: format!("{e:?}"),
            pc: 0,
        };
        for place in places {
            match place {
                Place::Reg(reg, bits) => self.uc.reg_write(reg, bits).map_err(uc_error)?,
                Place::Xmm(reg, bits) => {
                    let mut bytes = [0u8; 16];
                    bytes[..8].copy_from_slice(&bits.to_le_bytes());
                    self.uc.reg_write_long(reg, &bytes).map_err(uc_error)?;
                }
                Place::Stack(_) => {}
            }
        }
        // Stack arguments take 8 bytes each, the first at the lowest
        // address; the area keeps the stack 16-aligned at the call.
        let top = (Self::STACK_TOP - 64) & !15; // a little red zone above the frame
        let area = (8 * stack.len() as u64).next_multiple_of(16);
        let bytes: Vec<u8> = stack.iter().flat_map(|v| v.to_le_bytes()).collect();
        let sentinel = Self::RETURN_SENTINEL;
        match self.isa {
            Isa::X86_64 => {
                // The return address is pushed below the arguments; Win64
                // leaves its 32-byte shadow space between them. At entry
                // rsp+8 is 16-aligned.
                let shadow = if self.abi == Abi::Win64 { 32 } else { 0 };
                let rsp = top - area - shadow - 8;
                self.write_mem(rsp, &sentinel.to_le_bytes())?;
                self.write_mem(rsp + 8 + shadow, &bytes)?;
                self.uc.reg_write(RegisterX86::RSP, rsp).map_err(uc_error)?;
            }
            Isa::Aarch64 => {
                self.write_mem(top - area, &bytes)?;
                self.uc
                    .reg_write(RegisterARM64::X30, sentinel)
                    .map_err(uc_error)?;
                self.uc
                    .reg_write(RegisterARM64::SP, top - area)
                    .map_err(uc_error)?;
            }
            Isa::Riscv64 => {
                self.write_mem(top - area, &bytes)?;
                self.uc
                    .reg_write(RegisterRISCV::X1, sentinel)
                    .map_err(uc_error)?;
                self.uc
                    .reg_write(RegisterRISCV::X2, top - area)
                    .map_err(uc_error)?;
            }
        }
        Ok(())
    }

    /// Where each argument goes, by the calling convention.
    fn place_args(&self, args: &[Arg]) -> Result<Vec<Place>, EmuError> {
        if args.len() > MAX_ARGS {
            return Err(EmuError::BadCall(format!(
                "{} arguments, more than {MAX_ARGS}",
                args.len()
            )));
        }
        let (mut ints, mut floats) = (0usize, 0usize);
        let mut out = Vec::with_capacity(args.len());
        for (i, a) in args.iter().enumerate() {
            let is_int = matches!(a, Arg::Int(_));
            let bits = float_bits(a);
            let place = match (self.isa, self.abi) {
                (Isa::X86_64, Abi::SystemV) => {
                    use RegisterX86::*;
                    const INT: [RegisterX86; 6] = [RDI, RSI, RDX, RCX, R8, R9];
                    if is_int && ints < INT.len() {
                        ints += 1;
                        Place::Reg(INT[ints - 1] as i32, bits)
                    } else if !is_int && floats < 8 {
                        floats += 1;
                        Place::Xmm(XMM0 as i32 + floats as i32 - 1, bits)
                    } else {
                        Place::Stack(bits)
                    }
                }
                (Isa::X86_64, Abi::Win64) => {
                    // Four slots, each either an integer or an xmm.
                    use RegisterX86::*;
                    const INT: [RegisterX86; 4] = [RCX, RDX, R8, R9];
                    match INT.get(i) {
                        Some(&r) if is_int => Place::Reg(r as i32, bits),
                        Some(_) => Place::Xmm(XMM0 as i32 + i as i32, bits),
                        None => Place::Stack(bits),
                    }
                }
                (Isa::Aarch64, _) => {
                    if is_int && ints < 8 {
                        ints += 1;
                        Place::Reg(RegisterARM64::X0 as i32 + ints as i32 - 1, bits)
                    } else if !is_int && floats < 8 {
                        floats += 1;
                        Place::Reg(RegisterARM64::D0 as i32 + floats as i32 - 1, bits)
                    } else {
                        Place::Stack(bits)
                    }
                }
                (Isa::Riscv64, _) => {
                    if !is_int && floats < 8 {
                        // An f32 in a 64-bit float register is NaN-boxed.
                        let boxed = match *a {
                            Arg::F32(x) => 0xffff_ffff_0000_0000 | x.to_bits() as u64,
                            _ => bits,
                        };
                        floats += 1;
                        Place::Reg(RegisterRISCV::F10 as i32 + floats as i32 - 1, boxed)
                    } else if ints < 8 {
                        // Floats past fa7 take the integer convention; an
                        // f32 there is sign-extended, as `fmv.x.w` does.
                        let bits = match *a {
                            Arg::F32(x) => x.to_bits() as i32 as i64 as u64,
                            _ => bits,
                        };
                        ints += 1;
                        Place::Reg(RegisterRISCV::X10 as i32 + ints as i32 - 1, bits)
                    } else {
                        Place::Stack(bits)
                    }
                }
            };
            out.push(place);
        }
        Ok(out)
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
