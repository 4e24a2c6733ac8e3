//! x86-64: variable-length instructions built from prefixes, REX, opcode,
//! ModRM, SIB, displacement and immediate.
//!
//! * **Legacy prefix** first: `66` (16-bit operand, or a packed-double SSE
//!   form), `F2`/`F3` (scalar double/single SSE). They must come *before*
//!   REX, or the CPU ignores the REX.
//! * **REX** `0100WRXB`: `W` selects 64-bit operands; `R`, `X`, `B` are the
//!   fourth bit of the ModRM `reg` field, the SIB index and the ModRM `rm` /
//!   SIB base / opcode register. So `r8`..`r15` cost a REX byte. A byte
//!   access to register 4..7 also needs a REX (even `40`), or the CPU reads
//!   `ah`..`bh` instead of `spl`..`dil`.
//! * **ModRM** `mod:2 reg:3 rm:3`. `mod=11` is register-direct. Otherwise
//!   `mod` says how long the displacement is (00 none, 01 disp8, 10 disp32),
//!   with two holes that every encoder must step around:
//!   `rm=100` (rsp, r12) means "a SIB byte follows", so a base of rsp/r12
//!   always needs a SIB with index=100 (none); and `mod=00 rm=101` (rbp,
//!   r13) means RIP+disp32, so a base of rbp/r13 with no displacement is
//!   written as `mod=01` with a zero disp8.
//! * **SIB** `scale:2 index:3 base:3` gives base+index*scale; index=100
//!   with REX.X=0 means "no index", so rsp can never be an index (r12 can).
//! * Displacements and immediates are little-endian. We pick the shortest
//!   displacement (disp8 when it fits) as LLVM does.
//!
//! Reg-reg ALU forms use the "load" direction opcodes (`03` add, `2B` sub,
//! ...: ModRM.reg is the destination), as the course's Java encoder does:
//! `add r9, r10` is `4d 03 ca`. LLVM prefers the "store" direction
//! (`4d 01 d1`); both mean the same instruction.
//!
//! **Assembler text is AT&T syntax** (`addq %r10, %r9`: source first), the
//! default of `llvm-mc`, GNU `as` and `gcc -S`. AT&T was chosen because it
//! also accepts branches to a numeric displacement, which lets the encoding
//! table be checked line by line. Branch and call operands are printed as
//! LLVM's disassembler prints them: the displacement from the end of the
//! instruction. A near (rel32) jump is printed with the `{disp32}` pseudo
//! prefix, which asks the assembler for the 32-bit form.

use crate::{check_signed, EncodeError, EncodeResult, Fixup, FixupKind};
use std::fmt;

/// A general-purpose register, numbered as in the hardware (rax=0 .. r15=15).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Reg(u8);

impl Reg {
    pub const RAX: Reg = Reg(0);
    pub const RCX: Reg = Reg(1);
    pub const RDX: Reg = Reg(2);
    pub const RBX: Reg = Reg(3);
    pub const RSP: Reg = Reg(4);
    pub const RBP: Reg = Reg(5);
    pub const RSI: Reg = Reg(6);
    pub const RDI: Reg = Reg(7);
    pub const R8: Reg = Reg(8);
    pub const R9: Reg = Reg(9);
    pub const R10: Reg = Reg(10);
    pub const R11: Reg = Reg(11);
    pub const R12: Reg = Reg(12);
    pub const R13: Reg = Reg(13);
    pub const R14: Reg = Reg(14);
    pub const R15: Reg = Reg(15);

    /// Register number `n` (0..=15).
    pub fn new(n: u8) -> Option<Reg> {
        (n < 16).then_some(Reg(n))
    }
    pub fn all() -> impl Iterator<Item = Reg> {
        (0..16).map(Reg)
    }
    pub fn num(self) -> u8 {
        self.0
    }
    /// Name at a width of 8, 16, 32 or 64 bits (`al`, `ax`, `eax`, `rax`).
    pub fn name(self, bits: u32) -> &'static str {
        const N64: [&str; 16] = [
            "rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi", "r8", "r9", "r10", "r11",
            "r12", "r13", "r14", "r15",
        ];
        const N32: [&str; 16] = [
            "eax", "ecx", "edx", "ebx", "esp", "ebp", "esi", "edi", "r8d", "r9d", "r10d", "r11d",
            "r12d", "r13d", "r14d", "r15d",
        ];
        const N16: [&str; 16] = [
            "ax", "cx", "dx", "bx", "sp", "bp", "si", "di", "r8w", "r9w", "r10w", "r11w", "r12w",
            "r13w", "r14w", "r15w",
        ];
        const N8: [&str; 16] = [
            "al", "cl", "dl", "bl", "spl", "bpl", "sil", "dil", "r8b", "r9b", "r10b", "r11b",
            "r12b", "r13b", "r14b", "r15b",
        ];
        let i = self.0 as usize;
        match bits {
            8 => N8[i],
            16 => N16[i],
            32 => N32[i],
            _ => N64[i],
        }
    }
    /// Registers 4..7 as bytes need a REX prefix (else they are ah..bh).
    fn byte_needs_rex(self) -> bool {
        (4..8).contains(&self.0)
    }
}

impl fmt::Display for Reg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name(64))
    }
}

/// An SSE register xmm0..xmm15.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Xmm(u8);

impl Xmm {
    pub fn new(n: u8) -> Option<Xmm> {
        (n < 16).then_some(Xmm(n))
    }
    pub fn all() -> impl Iterator<Item = Xmm> {
        (0..16).map(Xmm)
    }
    pub fn num(self) -> u8 {
        self.0
    }
}

impl fmt::Display for Xmm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "xmm{}", self.0)
    }
}

/// Operand size of an integer operation: 32 bits (which zero the upper
/// half of the destination) or 64 bits (REX.W).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Size {
    S32,
    S64,
}

impl Size {
    fn bits(self) -> u32 {
        match self {
            Size::S32 => 32,
            Size::S64 => 64,
        }
    }
    fn w(self) -> bool {
        self == Size::S64
    }
    fn suffix(self) -> &'static str {
        match self {
            Size::S32 => "l",
            Size::S64 => "q",
        }
    }
}

/// Width of a memory access.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Width {
    W8,
    W16,
    W32,
    W64,
}

impl Width {
    pub const ALL: [Width; 4] = [Width::W8, Width::W16, Width::W32, Width::W64];
    fn bits(self) -> u32 {
        match self {
            Width::W8 => 8,
            Width::W16 => 16,
            Width::W32 => 32,
            Width::W64 => 64,
        }
    }
    fn suffix(self) -> &'static str {
        match self {
            Width::W8 => "b",
            Width::W16 => "w",
            Width::W32 => "l",
            Width::W64 => "q",
        }
    }
}

/// How a narrow load fills the upper bits of the register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ext {
    Zero,
    Sign,
}

/// Condition codes, numbered as in `Jcc`/`SETcc` (`70+cc`, `0F 90+cc`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Cond {
    O = 0,
    No,
    B,
    Ae,
    E,
    Ne,
    Be,
    A,
    S,
    Ns,
    P,
    Np,
    L,
    Ge,
    Le,
    G,
}

impl Cond {
    pub const ALL: [Cond; 16] = [
        Cond::O,
        Cond::No,
        Cond::B,
        Cond::Ae,
        Cond::E,
        Cond::Ne,
        Cond::Be,
        Cond::A,
        Cond::S,
        Cond::Ns,
        Cond::P,
        Cond::Np,
        Cond::L,
        Cond::Ge,
        Cond::Le,
        Cond::G,
    ];
    /// The opposite condition: flipping the low bit inverts it.
    pub fn invert(self) -> Cond {
        Cond::ALL[(self as usize) ^ 1]
    }
    pub fn suffix(self) -> &'static str {
        [
            "o", "no", "b", "ae", "e", "ne", "be", "a", "s", "ns", "p", "np", "l", "ge", "le", "g",
        ][self as usize]
    }
}

/// A memory operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Amode {
    /// `disp(%base)`
    Base { base: Reg, disp: i32 },
    /// `disp(%base,%index,scale)`, scale 1, 2, 4 or 8; index not rsp.
    Indexed {
        base: Reg,
        index: Reg,
        scale: u8,
        disp: i32,
    },
    /// `disp(%rip)`: relative to the end of the instruction.
    Rip { disp: i32 },
    /// `disp(,%index,scale)`: no base register; always a 32-bit
    /// displacement (SIB base 101 with mod 00).
    IndexOnly { index: Reg, scale: u8, disp: i32 },
}

impl Amode {
    pub fn base(base: Reg, disp: i32) -> Amode {
        Amode::Base { base, disp }
    }
    pub fn indexed(base: Reg, index: Reg, scale: u8, disp: i32) -> Amode {
        Amode::Indexed {
            base,
            index,
            scale,
            disp,
        }
    }
    fn base_reg(self) -> u8 {
        match self {
            Amode::Base { base, .. } | Amode::Indexed { base, .. } => base.0,
            Amode::Rip { .. } | Amode::IndexOnly { .. } => 0,
        }
    }
    fn index_reg(self) -> u8 {
        match self {
            Amode::Indexed { index, .. } | Amode::IndexOnly { index, .. } => index.0,
            _ => 0,
        }
    }
}

impl fmt::Display for Amode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let disp = |f: &mut fmt::Formatter<'_>, d: i32| {
            if d != 0 {
                write!(f, "{d}")
            } else {
                Ok(())
            }
        };
        match *self {
            Amode::Base { base, disp: d } => {
                disp(f, d)?;
                write!(f, "(%{base})")
            }
            Amode::Indexed {
                base,
                index,
                scale,
                disp: d,
            } => {
                disp(f, d)?;
                write!(f, "(%{base},%{index},{scale})")
            }
            Amode::Rip { disp } => write!(f, "{disp}(%rip)"),
            Amode::IndexOnly {
                index,
                scale,
                disp: d,
            } => {
                disp(f, d)?;
                write!(f, "(,%{index},{scale})")
            }
        }
    }
}

/// The classic two-operand ALU group. The discriminant is the `/digit`
/// of the `81`/`83` immediate forms; `digit*8 + 3` is the reg-reg opcode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Alu {
    Add = 0,
    Or = 1,
    And = 4,
    Sub = 5,
    Xor = 6,
    Cmp = 7,
}

impl Alu {
    pub const ALL: [Alu; 6] = [Alu::Add, Alu::Or, Alu::And, Alu::Sub, Alu::Xor, Alu::Cmp];
    fn mnemonic(self) -> &'static str {
        match self {
            Alu::Add => "add",
            Alu::Or => "or",
            Alu::And => "and",
            Alu::Sub => "sub",
            Alu::Xor => "xor",
            Alu::Cmp => "cmp",
        }
    }
}

/// Shifts; the discriminant is the `/digit` of `C1`/`D3`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Shift {
    Shl = 4,
    Shr = 5,
    Sar = 7,
}

impl Shift {
    pub const ALL: [Shift; 3] = [Shift::Shl, Shift::Shr, Shift::Sar];
    fn mnemonic(self) -> &'static str {
        match self {
            Shift::Shl => "shl",
            Shift::Shr => "shr",
            Shift::Sar => "sar",
        }
    }
}

/// Scalar SSE arithmetic; the discriminant is the second opcode byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FOp {
    Add = 0x58,
    Mul = 0x59,
    Sub = 0x5c,
    Div = 0x5e,
}

impl FOp {
    pub const ALL: [FOp; 4] = [FOp::Add, FOp::Sub, FOp::Mul, FOp::Div];
    fn mnemonic(self) -> &'static str {
        match self {
            FOp::Add => "add",
            FOp::Mul => "mul",
            FOp::Sub => "sub",
            FOp::Div => "div",
        }
    }
}

/// Floating-point precision: selects the `F3` (single) or `F2` (double)
/// prefix and the `ss`/`sd` mnemonic suffix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Prec {
    F32,
    F64,
}

impl Prec {
    fn prefix(self) -> u8 {
        match self {
            Prec::F32 => 0xf3,
            Prec::F64 => 0xf2,
        }
    }
    fn suffix(self) -> &'static str {
        match self {
            Prec::F32 => "ss",
            Prec::F64 => "sd",
        }
    }
}

/// One x86-64 instruction form. AT&T operand order in the docs: source
/// first, destination last.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Inst {
    /// `op %src, %dst` (dst = dst op src; `cmp` only sets flags).
    AluRR {
        op: Alu,
        size: Size,
        dst: Reg,
        src: Reg,
    },
    /// `op $imm, %dst`, imm8 (`83`) when it fits, else imm32 (`81`).
    AluRI {
        op: Alu,
        size: Size,
        dst: Reg,
        imm: i32,
    },
    /// `test %b, %a`: flags of a & b.
    Test {
        size: Size,
        a: Reg,
        b: Reg,
    },
    /// `shl $amount, %dst`
    ShiftRI {
        op: Shift,
        size: Size,
        dst: Reg,
        amount: u8,
    },
    /// `shl %cl, %dst`: shift count in cl.
    ShiftRCl {
        op: Shift,
        size: Size,
        dst: Reg,
    },
    /// `imul %src, %dst`
    Imul {
        size: Size,
        dst: Reg,
        src: Reg,
    },
    /// `imul $imm, %src, %dst`
    ImulRI {
        size: Size,
        dst: Reg,
        src: Reg,
        imm: i32,
    },
    /// `neg %dst`
    Neg {
        size: Size,
        dst: Reg,
    },
    /// `not %dst`
    Not {
        size: Size,
        dst: Reg,
    },
    /// `cqto` / `cltd`: sign-extend rax into rdx before `idiv`.
    SignExtendRax {
        size: Size,
    },
    /// `idiv %src`: rdx:rax / src, quotient in rax, remainder in rdx.
    Idiv {
        size: Size,
        src: Reg,
    },
    /// `div %src`: unsigned division.
    Div {
        size: Size,
        src: Reg,
    },
    /// `setcc %dst8`
    Setcc {
        cond: Cond,
        dst: Reg,
    },
    /// `movzbl %src8, %dst32`: zero-extend a byte (after `setcc`).
    Movzx8 {
        dst: Reg,
        src: Reg,
    },
    /// `mov %src, %dst`
    MovRR {
        size: Size,
        dst: Reg,
        src: Reg,
    },
    /// `movl $imm, %dst32` (`B8+r`, zero-extends; imm in i32 or u32 range)
    /// or `movq $imm, %dst` (`C7 /0`, sign-extended imm32).
    MovRI {
        size: Size,
        dst: Reg,
        imm: i64,
    },
    /// `movabsq $imm, %dst`: the only 64-bit immediate.
    MovAbs {
        dst: Reg,
        imm: i64,
    },
    /// Load `width` bytes, extended to the full register.
    Load {
        width: Width,
        ext: Ext,
        dst: Reg,
        addr: Amode,
    },
    /// Store the low `width` bytes of `src`.
    Store {
        width: Width,
        src: Reg,
        addr: Amode,
    },
    /// Store an immediate (sign-extended to 64 bits for `W64`).
    StoreImm {
        width: Width,
        imm: i32,
        addr: Amode,
    },
    /// `leaq addr, %dst`
    Lea {
        dst: Reg,
        addr: Amode,
    },
    Push {
        src: Reg,
    },
    Pop {
        dst: Reg,
    },
    /// `jmp disp`, rel8 (`EB`).
    JmpShort {
        disp: i32,
    },
    /// `jmp disp`, rel32 (`E9`).
    JmpNear {
        disp: i32,
    },
    /// `jcc disp`, rel8 (`70+cc`).
    JccShort {
        cond: Cond,
        disp: i32,
    },
    /// `jcc disp`, rel32 (`0F 80+cc`).
    JccNear {
        cond: Cond,
        disp: i32,
    },
    /// `call disp`, rel32 (`E8`), relocated with R_X86_64_PLT32.
    Call {
        disp: i32,
    },
    /// `call *%target`
    CallInd {
        target: Reg,
    },
    /// `jmp *%target`
    JmpInd {
        target: Reg,
    },
    Ret,
    Nop,
    /// `addsd %src, %dst` and friends.
    FArith {
        op: FOp,
        prec: Prec,
        dst: Xmm,
        src: Xmm,
    },
    /// `ucomisd %b, %a`: unordered compare of a with b into ZF/PF/CF.
    Ucomi {
        prec: Prec,
        a: Xmm,
        b: Xmm,
    },
    /// `cvtsi2sdq %src, %dst`: signed integer to float.
    CvtIntToF {
        prec: Prec,
        size: Size,
        dst: Xmm,
        src: Reg,
    },
    /// `cvttsd2si %src, %dst`: float to signed integer, truncating.
    CvtFToInt {
        prec: Prec,
        size: Size,
        dst: Reg,
        src: Xmm,
    },
    /// `cvtss2sd` (from F32) or `cvtsd2ss` (from F64).
    CvtFToF {
        from: Prec,
        dst: Xmm,
        src: Xmm,
    },
    /// `movq %src, %dst` / `movd`: integer register to xmm bits.
    MovToXmm {
        size: Size,
        dst: Xmm,
        src: Reg,
    },
    /// `movq %src, %dst` / `movd`: xmm bits to integer register.
    MovFromXmm {
        size: Size,
        dst: Reg,
        src: Xmm,
    },
    /// `movaps %src, %dst`: copy a whole xmm register.
    MovXX {
        dst: Xmm,
        src: Xmm,
    },
    /// `xorps %src, %dst`: with src == dst, the idiom for +0.0.
    Xorps {
        dst: Xmm,
        src: Xmm,
    },
    /// `movsd addr, %dst` / `movss`
    FLoad {
        prec: Prec,
        dst: Xmm,
        addr: Amode,
    },
    /// `movsd %src, addr` / `movss`
    FStore {
        prec: Prec,
        src: Xmm,
        addr: Amode,
    },
    /// `addq addr, %dst`: an ALU operation reading its source from memory
    /// (`cmp` compares `dst` with the memory operand).
    AluRM {
        op: Alu,
        size: Size,
        dst: Reg,
        addr: Amode,
    },
    /// `addq %src, addr`: read-modify-write of memory (`cmp` compares the
    /// memory operand with `src`).
    AluMR {
        op: Alu,
        size: Size,
        addr: Amode,
        src: Reg,
    },
    /// `cmpq $imm, addr` and friends: memory with an immediate, imm8
    /// (`83`) when it fits, else imm32 (`81`).
    AluMI {
        op: Alu,
        size: Size,
        addr: Amode,
        imm: i32,
    },
    /// `addsd addr, %dst` and friends.
    FArithM {
        op: FOp,
        prec: Prec,
        dst: Xmm,
        addr: Amode,
    },
    /// `xorpd addr, %dst`: flips bits of a double (the sign, for `-x`);
    /// the 16 bytes at `addr` must be 16-byte aligned.
    XorpdM {
        dst: Xmm,
        addr: Amode,
    },
    /// `movsbq %src8, %dst` (`from` W8), `movswq` (W16), `movslq` (W32):
    /// sign-extend the low bits of a register.
    Movsx {
        from: Width,
        dst: Reg,
        src: Reg,
    },
    /// `movzwl %src16, %dst32`: zero-extend the low 16 bits.
    Movzx16 {
        dst: Reg,
        src: Reg,
    },
    /// `pushq addr` and `popq addr`: with `rsp` as the base, `pop`
    /// computes its address after moving `rsp` back up, so `pushq d(%rsp)`
    /// then `popq e(%rsp)` copies one stack slot to another.
    PushM {
        addr: Amode,
    },
    PopM {
        addr: Amode,
    },
}

/// Appends the pieces of one instruction and remembers where a
/// RIP-relative displacement went.
struct Enc<'a> {
    buf: &'a mut Vec<u8>,
    rip_field: Option<usize>,
}

impl Enc<'_> {
    fn byte(&mut self, b: u8) {
        self.buf.push(b);
    }
    fn bytes(&mut self, b: &[u8]) {
        self.buf.extend_from_slice(b);
    }
    fn imm8(&mut self, v: i64) {
        self.buf.push(v as u8);
    }
    fn imm16(&mut self, v: i64) {
        self.buf.extend_from_slice(&(v as u16).to_le_bytes());
    }
    fn imm32(&mut self, v: i64) {
        self.buf.extend_from_slice(&(v as u32).to_le_bytes());
    }

    /// REX `0100WRXB`, emitted only when a bit is set or `force` (byte
    /// registers spl..dil). `r`, `x`, `b` are full register numbers.
    fn rex(&mut self, w: bool, r: u8, x: u8, b: u8, force: bool) {
        let rex = 0x40 | (w as u8) << 3 | (r >> 3 & 1) << 2 | (x >> 3 & 1) << 1 | (b >> 3 & 1);
        if rex != 0x40 || force {
            self.byte(rex);
        }
    }

    /// `[prefix] [REX] opcode ModRM(11, reg, rm)`.
    fn rr(&mut self, prefix: Option<u8>, w: bool, force: bool, opcode: &[u8], reg: u8, rm: u8) {
        if let Some(p) = prefix {
            self.byte(p);
        }
        self.rex(w, reg, 0, rm, force);
        self.bytes(opcode);
        self.byte(0xc0 | (reg & 7) << 3 | (rm & 7));
    }

    /// `[prefix] [REX] opcode ModRM [SIB] [disp]` for a memory operand.
    fn rm(
        &mut self,
        prefix: Option<u8>,
        w: bool,
        force: bool,
        opcode: &[u8],
        reg: u8,
        addr: Amode,
    ) -> Result<(), EncodeError> {
        if let Amode::Indexed { index, scale, .. } | Amode::IndexOnly { index, scale, .. } = addr {
            if index == Reg::RSP {
                return Err(EncodeError::InvalidOperand(
                    "rsp cannot be an index register".into(),
                ));
            }
            if !matches!(scale, 1 | 2 | 4 | 8) {
                return Err(EncodeError::InvalidOperand(format!(
                    "scale {scale} is not 1, 2, 4 or 8"
                )));
            }
        }
        if let Some(p) = prefix {
            self.byte(p);
        }
        self.rex(w, reg, addr.index_reg(), addr.base_reg(), force);
        self.bytes(opcode);
        let reg = (reg & 7) << 3;
        // mod: no displacement, disp8 or disp32. rbp/r13 (low bits 101)
        // cannot use mod=00, which means RIP-relative (or no base in a SIB).
        let mode = |base: Reg, disp: i32| -> u8 {
            if disp == 0 && base.0 & 7 != 5 {
                0
            } else if i8::try_from(disp).is_ok() {
                1
            } else {
                2
            }
        };
        let (md, disp) = match addr {
            Amode::Rip { disp } => {
                self.byte(reg | 0b101);
                self.rip_field = Some(self.buf.len());
                self.imm32(disp as i64);
                return Ok(());
            }
            Amode::Base { base, disp } => {
                let md = mode(base, disp);
                if base.0 & 7 == 4 {
                    // rsp/r12: rm=100 means "SIB follows"; SIB with no index.
                    self.byte(md << 6 | reg | 0b100);
                    self.byte(0b00_100_100);
                } else {
                    self.byte(md << 6 | reg | (base.0 & 7));
                }
                (md, disp)
            }
            Amode::IndexOnly { index, scale, disp } => {
                self.byte(reg | 0b100);
                let ss = scale.trailing_zeros() as u8;
                self.byte(ss << 6 | (index.0 & 7) << 3 | 0b101);
                (2, disp)
            }
            Amode::Indexed {
                base,
                index,
                scale,
                disp,
            } => {
                let md = mode(base, disp);
                self.byte(md << 6 | reg | 0b100);
                let ss = scale.trailing_zeros() as u8;
                self.byte(ss << 6 | (index.0 & 7) << 3 | (base.0 & 7));
                (md, disp)
            }
        };
        match md {
            1 => self.imm8(disp as i64),
            2 => self.imm32(disp as i64),
            _ => {}
        }
        Ok(())
    }
}

fn shift_range(size: Size, amount: u8) -> Result<(), EncodeError> {
    let max = size.bits() as i64 - 1;
    if amount as i64 > max {
        return Err(EncodeError::OutOfRange {
            what: "shift amount",
            value: amount as i64,
            min: 0,
            max,
        });
    }
    Ok(())
}

impl Inst {
    /// Append this instruction's bytes to `buf`. Returns the patchable
    /// field of a PC-relative form (branches, calls, RIP-relative memory).
    pub fn encode(&self, buf: &mut Vec<u8>) -> EncodeResult {
        let start = buf.len();
        let result = self.encode_inner(buf);
        if result.is_err() {
            buf.truncate(start); // never leave half an instruction behind
        }
        result
    }

    fn encode_inner(&self, buf: &mut Vec<u8>) -> EncodeResult {
        let start = buf.len();
        let mut e = Enc {
            buf,
            rip_field: None,
        };
        // For branch forms: (kind, width of the trailing rel field).
        let mut branch: Option<(FixupKind, usize)> = None;
        match *self {
            Inst::AluRR { op, size, dst, src } => {
                e.rr(None, size.w(), false, &[(op as u8) << 3 | 3], dst.0, src.0)
            }
            Inst::AluRI { op, size, dst, imm } => {
                if let Ok(imm8) = i8::try_from(imm) {
                    e.rr(None, size.w(), false, &[0x83], op as u8, dst.0);
                    e.imm8(imm8 as i64);
                } else {
                    e.rr(None, size.w(), false, &[0x81], op as u8, dst.0);
                    e.imm32(imm as i64);
                }
            }
            Inst::Test { size, a, b } => e.rr(None, size.w(), false, &[0x85], b.0, a.0),
            Inst::ShiftRI {
                op,
                size,
                dst,
                amount,
            } => {
                shift_range(size, amount)?;
                e.rr(None, size.w(), false, &[0xc1], op as u8, dst.0);
                e.imm8(amount as i64);
            }
            Inst::ShiftRCl { op, size, dst } => {
                e.rr(None, size.w(), false, &[0xd3], op as u8, dst.0)
            }
            Inst::Imul { size, dst, src } => {
                e.rr(None, size.w(), false, &[0x0f, 0xaf], dst.0, src.0)
            }
            Inst::ImulRI {
                size,
                dst,
                src,
                imm,
            } => {
                if let Ok(imm8) = i8::try_from(imm) {
                    e.rr(None, size.w(), false, &[0x6b], dst.0, src.0);
                    e.imm8(imm8 as i64);
                } else {
                    e.rr(None, size.w(), false, &[0x69], dst.0, src.0);
                    e.imm32(imm as i64);
                }
            }
            Inst::Neg { size, dst } => e.rr(None, size.w(), false, &[0xf7], 3, dst.0),
            Inst::Not { size, dst } => e.rr(None, size.w(), false, &[0xf7], 2, dst.0),
            Inst::SignExtendRax { size } => {
                e.rex(size.w(), 0, 0, 0, false);
                e.byte(0x99);
            }
            Inst::Idiv { size, src } => e.rr(None, size.w(), false, &[0xf7], 7, src.0),
            Inst::Div { size, src } => e.rr(None, size.w(), false, &[0xf7], 6, src.0),
            Inst::Setcc { cond, dst } => e.rr(
                None,
                false,
                dst.byte_needs_rex(),
                &[0x0f, 0x90 | cond as u8],
                0,
                dst.0,
            ),
            Inst::Movzx8 { dst, src } => e.rr(
                None,
                false,
                src.byte_needs_rex(),
                &[0x0f, 0xb6],
                dst.0,
                src.0,
            ),
            Inst::MovRR { size, dst, src } => e.rr(None, size.w(), false, &[0x8b], dst.0, src.0),
            Inst::MovRI { size, dst, imm } => match size {
                Size::S32 => {
                    if imm < i32::MIN as i64 || imm > u32::MAX as i64 {
                        return Err(EncodeError::OutOfRange {
                            what: "32-bit immediate",
                            value: imm,
                            min: i32::MIN as i64,
                            max: u32::MAX as i64,
                        });
                    }
                    e.rex(false, 0, 0, dst.0, false);
                    e.byte(0xb8 | (dst.0 & 7));
                    e.imm32(imm);
                }
                Size::S64 => {
                    check_signed("sign-extended 32-bit immediate", imm, 32)?;
                    e.rr(None, true, false, &[0xc7], 0, dst.0);
                    e.imm32(imm);
                }
            },
            Inst::MovAbs { dst, imm } => {
                e.rex(true, 0, 0, dst.0, false);
                e.byte(0xb8 | (dst.0 & 7));
                e.bytes(&imm.to_le_bytes());
            }
            Inst::Load {
                width,
                ext,
                dst,
                addr,
            } => {
                let (w, opcode): (bool, &[u8]) = match (width, ext) {
                    (Width::W64, _) => (true, &[0x8b]),
                    (Width::W32, Ext::Zero) => (false, &[0x8b]),
                    (Width::W32, Ext::Sign) => (true, &[0x63]),
                    (Width::W16, Ext::Zero) => (false, &[0x0f, 0xb7]),
                    (Width::W16, Ext::Sign) => (true, &[0x0f, 0xbf]),
                    (Width::W8, Ext::Zero) => (false, &[0x0f, 0xb6]),
                    (Width::W8, Ext::Sign) => (true, &[0x0f, 0xbe]),
                };
                e.rm(None, w, false, opcode, dst.0, addr)?;
            }
            Inst::Store { width, src, addr } => match width {
                Width::W8 => e.rm(None, false, src.byte_needs_rex(), &[0x88], src.0, addr)?,
                Width::W16 => e.rm(Some(0x66), false, false, &[0x89], src.0, addr)?,
                Width::W32 => e.rm(None, false, false, &[0x89], src.0, addr)?,
                Width::W64 => e.rm(None, true, false, &[0x89], src.0, addr)?,
            },
            Inst::StoreImm { width, imm, addr } => {
                let imm = imm as i64;
                match width {
                    Width::W8 => {
                        if !(-128..=255).contains(&imm) {
                            return Err(EncodeError::OutOfRange {
                                what: "8-bit immediate",
                                value: imm,
                                min: -128,
                                max: 255,
                            });
                        }
                        e.rm(None, false, false, &[0xc6], 0, addr)?;
                        e.imm8(imm);
                    }
                    Width::W16 => {
                        if !(-32768..=65535).contains(&imm) {
                            return Err(EncodeError::OutOfRange {
                                what: "16-bit immediate",
                                value: imm,
                                min: -32768,
                                max: 65535,
                            });
                        }
                        e.rm(Some(0x66), false, false, &[0xc7], 0, addr)?;
                        e.imm16(imm);
                    }
                    Width::W32 | Width::W64 => {
                        e.rm(None, width == Width::W64, false, &[0xc7], 0, addr)?;
                        e.imm32(imm);
                    }
                }
            }
            Inst::Lea { dst, addr } => e.rm(None, true, false, &[0x8d], dst.0, addr)?,
            Inst::Push { src } => {
                e.rex(false, 0, 0, src.0, false);
                e.byte(0x50 | (src.0 & 7));
            }
            Inst::Pop { dst } => {
                e.rex(false, 0, 0, dst.0, false);
                e.byte(0x58 | (dst.0 & 7));
            }
            Inst::JmpShort { disp } => {
                check_signed("rel8 branch displacement", disp as i64, 8)?;
                e.byte(0xeb);
                e.imm8(disp as i64);
                branch = Some((FixupKind::X86Rel8, 1));
            }
            Inst::JmpNear { disp } => {
                e.byte(0xe9);
                e.imm32(disp as i64);
                branch = Some((FixupKind::X86Rel32, 4));
            }
            Inst::JccShort { cond, disp } => {
                check_signed("rel8 branch displacement", disp as i64, 8)?;
                e.byte(0x70 | cond as u8);
                e.imm8(disp as i64);
                branch = Some((FixupKind::X86Rel8, 1));
            }
            Inst::JccNear { cond, disp } => {
                e.bytes(&[0x0f, 0x80 | cond as u8]);
                e.imm32(disp as i64);
                branch = Some((FixupKind::X86Rel32, 4));
            }
            Inst::Call { disp } => {
                e.byte(0xe8);
                e.imm32(disp as i64);
                branch = Some((FixupKind::X86Call32, 4));
            }
            Inst::CallInd { target } => e.rr(None, false, false, &[0xff], 2, target.0),
            Inst::JmpInd { target } => e.rr(None, false, false, &[0xff], 4, target.0),
            Inst::Ret => e.byte(0xc3),
            Inst::Nop => e.byte(0x90),
            Inst::FArith { op, prec, dst, src } => e.rr(
                Some(prec.prefix()),
                false,
                false,
                &[0x0f, op as u8],
                dst.0,
                src.0,
            ),
            Inst::Ucomi { prec, a, b } => {
                let prefix = (prec == Prec::F64).then_some(0x66);
                e.rr(prefix, false, false, &[0x0f, 0x2e], a.0, b.0)
            }
            Inst::CvtIntToF {
                prec,
                size,
                dst,
                src,
            } => e.rr(
                Some(prec.prefix()),
                size.w(),
                false,
                &[0x0f, 0x2a],
                dst.0,
                src.0,
            ),
            Inst::CvtFToInt {
                prec,
                size,
                dst,
                src,
            } => e.rr(
                Some(prec.prefix()),
                size.w(),
                false,
                &[0x0f, 0x2c],
                dst.0,
                src.0,
            ),
            Inst::CvtFToF { from, dst, src } => e.rr(
                Some(from.prefix()),
                false,
                false,
                &[0x0f, 0x5a],
                dst.0,
                src.0,
            ),
            Inst::MovToXmm { size, dst, src } => {
                e.rr(Some(0x66), size.w(), false, &[0x0f, 0x6e], dst.0, src.0)
            }
            Inst::MovFromXmm { size, dst, src } => {
                e.rr(Some(0x66), size.w(), false, &[0x0f, 0x7e], src.0, dst.0)
            }
            Inst::MovXX { dst, src } => e.rr(None, false, false, &[0x0f, 0x28], dst.0, src.0),
            Inst::Xorps { dst, src } => e.rr(None, false, false, &[0x0f, 0x57], dst.0, src.0),
            Inst::FLoad { prec, dst, addr } => e.rm(
                Some(prec.prefix()),
                false,
                false,
                &[0x0f, 0x10],
                dst.0,
                addr,
            )?,
            Inst::FStore { prec, src, addr } => e.rm(
                Some(prec.prefix()),
                false,
                false,
                &[0x0f, 0x11],
                src.0,
                addr,
            )?,
            Inst::AluRM {
                op,
                size,
                dst,
                addr,
            } => e.rm(None, size.w(), false, &[(op as u8) << 3 | 3], dst.0, addr)?,
            Inst::AluMR {
                op,
                size,
                addr,
                src,
            } => e.rm(None, size.w(), false, &[(op as u8) << 3 | 1], src.0, addr)?,
            Inst::AluMI {
                op,
                size,
                addr,
                imm,
            } => {
                if let Ok(imm8) = i8::try_from(imm) {
                    e.rm(None, size.w(), false, &[0x83], op as u8, addr)?;
                    e.imm8(imm8 as i64);
                } else {
                    e.rm(None, size.w(), false, &[0x81], op as u8, addr)?;
                    e.imm32(imm as i64);
                }
            }
            Inst::FArithM {
                op,
                prec,
                dst,
                addr,
            } => e.rm(
                Some(prec.prefix()),
                false,
                false,
                &[0x0f, op as u8],
                dst.0,
                addr,
            )?,
            Inst::XorpdM { dst, addr } => {
                e.rm(Some(0x66), false, false, &[0x0f, 0x57], dst.0, addr)?
            }
            Inst::Movsx { from, dst, src } => {
                let opcode: &[u8] = match from {
                    Width::W8 => &[0x0f, 0xbe],
                    Width::W16 => &[0x0f, 0xbf],
                    _ => &[0x63],
                };
                e.rr(None, true, false, opcode, dst.0, src.0)
            }
            Inst::Movzx16 { dst, src } => e.rr(None, false, false, &[0x0f, 0xb7], dst.0, src.0),
            Inst::PushM { addr } => e.rm(None, false, false, &[0xff], 6, addr)?,
            Inst::PopM { addr } => e.rm(None, false, false, &[0x8f], 0, addr)?,
        }
        let end = e.buf.len();
        debug_assert!(end > start);
        // x86 PC-relative fields count from the end of the instruction.
        if let Some((kind, width)) = branch {
            let offset = end - width;
            return Ok(Some(Fixup {
                offset,
                kind,
                addend: offset as i64 - end as i64,
            }));
        }
        Ok(e.rip_field.map(|offset| Fixup {
            offset,
            kind: FixupKind::X86RipRel32,
            addend: offset as i64 - end as i64,
        }))
    }
}

/// Fill a PC-relative field once the target is known. `target` is a byte
/// offset in the same buffer; the displacement is counted from the end of
/// the instruction (recovered from the fixup's addend).
pub fn patch(code: &mut [u8], fixup: &Fixup, target: usize) -> Result<(), EncodeError> {
    let end = fixup.offset as i64 - fixup.addend;
    let disp = target as i64 - end;
    match fixup.kind {
        FixupKind::X86Rel8 => {
            check_signed("rel8 branch displacement", disp, 8)?;
            code[fixup.offset] = disp as u8;
        }
        FixupKind::X86Rel32 | FixupKind::X86Call32 | FixupKind::X86RipRel32 => {
            check_signed("rel32 displacement", disp, 32)?;
            code[fixup.offset..fixup.offset + 4].copy_from_slice(&(disp as i32).to_le_bytes());
        }
        other => {
            return Err(EncodeError::InvalidOperand(format!(
                "{other:?} is not an x86-64 fixup"
            )))
        }
    }
    Ok(())
}

/// The shortest instruction that puts `value` in `dst`: `movl` (5 or 6
/// bytes, zero-extends), `movq` with a sign-extended imm32 (7 bytes), or
/// `movabsq` (10 bytes).
pub fn load_const(dst: Reg, value: i64) -> Inst {
    if (0..=u32::MAX as i64).contains(&value) {
        Inst::MovRI {
            size: Size::S32,
            dst,
            imm: value,
        }
    } else if i32::try_from(value).is_ok() {
        Inst::MovRI {
            size: Size::S64,
            dst,
            imm: value,
        }
    } else {
        Inst::MovAbs { dst, imm: value }
    }
}

impl fmt::Display for Inst {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Inst::AluRR { op, size, dst, src } => write!(
                f,
                "{}{} %{}, %{}",
                op.mnemonic(),
                size.suffix(),
                src.name(size.bits()),
                dst.name(size.bits())
            ),
            Inst::AluRI { op, size, dst, imm } => write!(
                f,
                "{}{} ${imm}, %{}",
                op.mnemonic(),
                size.suffix(),
                dst.name(size.bits())
            ),
            Inst::Test { size, a, b } => write!(
                f,
                "test{} %{}, %{}",
                size.suffix(),
                b.name(size.bits()),
                a.name(size.bits())
            ),
            Inst::ShiftRI {
                op,
                size,
                dst,
                amount,
            } => write!(
                f,
                "{}{} ${amount}, %{}",
                op.mnemonic(),
                size.suffix(),
                dst.name(size.bits())
            ),
            Inst::ShiftRCl { op, size, dst } => write!(
                f,
                "{}{} %cl, %{}",
                op.mnemonic(),
                size.suffix(),
                dst.name(size.bits())
            ),
            Inst::Imul { size, dst, src } => write!(
                f,
                "imul{} %{}, %{}",
                size.suffix(),
                src.name(size.bits()),
                dst.name(size.bits())
            ),
            Inst::ImulRI {
                size,
                dst,
                src,
                imm,
            } => write!(
                f,
                "imul{} ${imm}, %{}, %{}",
                size.suffix(),
                src.name(size.bits()),
                dst.name(size.bits())
            ),
            Inst::Neg { size, dst } => {
                write!(f, "neg{} %{}", size.suffix(), dst.name(size.bits()))
            }
            Inst::Not { size, dst } => {
                write!(f, "not{} %{}", size.suffix(), dst.name(size.bits()))
            }
            Inst::SignExtendRax { size: Size::S64 } => f.write_str("cqto"),
            Inst::SignExtendRax { size: Size::S32 } => f.write_str("cltd"),
            Inst::Idiv { size, src } => {
                write!(f, "idiv{} %{}", size.suffix(), src.name(size.bits()))
            }
            Inst::Div { size, src } => {
                write!(f, "div{} %{}", size.suffix(), src.name(size.bits()))
            }
            Inst::Setcc { cond, dst } => write!(f, "set{} %{}", cond.suffix(), dst.name(8)),
            Inst::Movzx8 { dst, src } => {
                write!(f, "movzbl %{}, %{}", src.name(8), dst.name(32))
            }
            Inst::MovRR { size, dst, src } => write!(
                f,
                "mov{} %{}, %{}",
                size.suffix(),
                src.name(size.bits()),
                dst.name(size.bits())
            ),
            Inst::MovRI { size, dst, imm } => {
                write!(f, "mov{} ${imm}, %{}", size.suffix(), dst.name(size.bits()))
            }
            Inst::MovAbs { dst, imm } => write!(f, "movabsq ${imm}, %{dst}"),
            Inst::Load {
                width,
                ext,
                dst,
                addr,
            } => match (width, ext) {
                (Width::W64, _) => write!(f, "movq {addr}, %{dst}"),
                (Width::W32, Ext::Zero) => write!(f, "movl {addr}, %{}", dst.name(32)),
                (Width::W32, Ext::Sign) => write!(f, "movslq {addr}, %{dst}"),
                (Width::W16, Ext::Zero) => write!(f, "movzwl {addr}, %{}", dst.name(32)),
                (Width::W16, Ext::Sign) => write!(f, "movswq {addr}, %{dst}"),
                (Width::W8, Ext::Zero) => write!(f, "movzbl {addr}, %{}", dst.name(32)),
                (Width::W8, Ext::Sign) => write!(f, "movsbq {addr}, %{dst}"),
            },
            Inst::Store { width, src, addr } => write!(
                f,
                "mov{} %{}, {addr}",
                width.suffix(),
                src.name(width.bits())
            ),
            Inst::StoreImm { width, imm, addr } => {
                write!(f, "mov{} ${imm}, {addr}", width.suffix())
            }
            Inst::Lea { dst, addr } => write!(f, "leaq {addr}, %{dst}"),
            Inst::Push { src } => write!(f, "pushq %{src}"),
            Inst::Pop { dst } => write!(f, "popq %{dst}"),
            Inst::JmpShort { disp } => write!(f, "jmp {disp}"),
            Inst::JmpNear { disp } => write!(f, "{{disp32}} jmp {disp}"),
            Inst::JccShort { cond, disp } => write!(f, "j{} {disp}", cond.suffix()),
            Inst::JccNear { cond, disp } => write!(f, "{{disp32}} j{} {disp}", cond.suffix()),
            Inst::Call { disp } => write!(f, "callq {disp}"),
            Inst::CallInd { target } => write!(f, "callq *%{target}"),
            Inst::JmpInd { target } => write!(f, "jmpq *%{target}"),
            Inst::Ret => f.write_str("retq"),
            Inst::Nop => f.write_str("nop"),
            Inst::FArith { op, prec, dst, src } => {
                write!(f, "{}{} %{src}, %{dst}", op.mnemonic(), prec.suffix())
            }
            Inst::Ucomi { prec, a, b } => write!(f, "ucomi{} %{b}, %{a}", prec.suffix()),
            Inst::CvtIntToF {
                prec,
                size,
                dst,
                src,
            } => write!(
                f,
                "cvtsi2{}{} %{}, %{dst}",
                prec.suffix(),
                size.suffix(),
                src.name(size.bits())
            ),
            Inst::CvtFToInt {
                prec,
                size,
                dst,
                src,
            } => write!(
                f,
                "cvtt{}2si %{src}, %{}",
                prec.suffix(),
                dst.name(size.bits())
            ),
            Inst::CvtFToF { from, dst, src } => match from {
                Prec::F32 => write!(f, "cvtss2sd %{src}, %{dst}"),
                Prec::F64 => write!(f, "cvtsd2ss %{src}, %{dst}"),
            },
            Inst::MovToXmm { size, dst, src } => match size {
                Size::S64 => write!(f, "movq %{src}, %{dst}"),
                Size::S32 => write!(f, "movd %{}, %{dst}", src.name(32)),
            },
            Inst::MovFromXmm { size, dst, src } => match size {
                Size::S64 => write!(f, "movq %{src}, %{dst}"),
                Size::S32 => write!(f, "movd %{src}, %{}", dst.name(32)),
            },
            Inst::MovXX { dst, src } => write!(f, "movaps %{src}, %{dst}"),
            Inst::Xorps { dst, src } => write!(f, "xorps %{src}, %{dst}"),
            Inst::FLoad { prec, dst, addr } => write!(f, "mov{} {addr}, %{dst}", prec.suffix()),
            Inst::FStore { prec, src, addr } => write!(f, "mov{} %{src}, {addr}", prec.suffix()),
            Inst::AluRM {
                op,
                size,
                dst,
                addr,
            } => write!(
                f,
                "{}{} {addr}, %{}",
                op.mnemonic(),
                size.suffix(),
                dst.name(size.bits())
            ),
            Inst::AluMR {
                op,
                size,
                addr,
                src,
            } => write!(
                f,
                "{}{} %{}, {addr}",
                op.mnemonic(),
                size.suffix(),
                src.name(size.bits())
            ),
            Inst::AluMI {
                op,
                size,
                addr,
                imm,
            } => write!(f, "{}{} ${imm}, {addr}", op.mnemonic(), size.suffix()),
            Inst::FArithM {
                op,
                prec,
                dst,
                addr,
            } => write!(f, "{}{} {addr}, %{dst}", op.mnemonic(), prec.suffix()),
            Inst::XorpdM { dst, addr } => write!(f, "xorpd {addr}, %{dst}"),
            Inst::Movsx { from, dst, src } => {
                let (suffix, bits) = match from {
                    Width::W8 => ("b", 8),
                    Width::W16 => ("w", 16),
                    _ => ("l", 32),
                };
                write!(f, "movs{suffix}q %{}, %{dst}", src.name(bits))
            }
            Inst::Movzx16 { dst, src } => {
                write!(f, "movzwl %{}, %{}", src.name(16), dst.name(32))
            }
            Inst::PushM { addr } => write!(f, "pushq {addr}"),
            Inst::PopM { addr } => write!(f, "popq {addr}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn enc(i: Inst) -> Vec<u8> {
        let mut buf = Vec::new();
        i.encode(&mut buf).unwrap();
        buf
    }

    #[test]
    fn seed_example_add_r9_r10() {
        let add = Inst::AluRR {
            op: Alu::Add,
            size: Size::S64,
            dst: Reg::R9,
            src: Reg::R10,
        };
        assert_eq!(enc(add), [0x4d, 0x03, 0xca]);
        assert_eq!(add.to_string(), "addq %r10, %r9");
    }

    #[test]
    fn rsp_r12_need_sib_rbp_r13_need_disp8() {
        let load = |base, disp| Inst::Load {
            width: Width::W64,
            ext: Ext::Zero,
            dst: Reg::RAX,
            addr: Amode::base(base, disp),
        };
        assert_eq!(enc(load(Reg::RSP, 0)), [0x48, 0x8b, 0x04, 0x24]);
        assert_eq!(enc(load(Reg::R12, 0)), [0x49, 0x8b, 0x04, 0x24]);
        assert_eq!(enc(load(Reg::RBP, 0)), [0x48, 0x8b, 0x45, 0x00]);
        assert_eq!(enc(load(Reg::R13, 0)), [0x49, 0x8b, 0x45, 0x00]);
        assert_eq!(
            enc(load(Reg::RAX, -129)),
            [0x48, 0x8b, 0x80, 0x7f, 0xff, 0xff, 0xff]
        );
    }

    #[test]
    fn byte_registers_4_to_7_force_rex() {
        let set = |dst| Inst::Setcc { cond: Cond::E, dst };
        assert_eq!(enc(set(Reg::RBX)), [0x0f, 0x94, 0xc3]);
        assert_eq!(enc(set(Reg::RSI)), [0x40, 0x0f, 0x94, 0xc6]);
    }

    #[test]
    fn out_of_range_is_an_error() {
        let mut buf = Vec::new();
        let e = Inst::JmpShort { disp: 128 }.encode(&mut buf).unwrap_err();
        assert!(
            matches!(e, EncodeError::OutOfRange { value: 128, .. }),
            "{e}"
        );
        assert!(Inst::ShiftRI {
            op: Shift::Shl,
            size: Size::S32,
            dst: Reg::RAX,
            amount: 32
        }
        .encode(&mut buf)
        .is_err());
        assert!(Inst::MovRI {
            size: Size::S64,
            dst: Reg::RAX,
            imm: 1 << 31
        }
        .encode(&mut buf)
        .is_err());
        assert!(Inst::StoreImm {
            width: Width::W8,
            imm: 256,
            addr: Amode::base(Reg::RAX, 0)
        }
        .encode(&mut buf)
        .is_err());
        let rsp_index = Inst::Lea {
            dst: Reg::RAX,
            addr: Amode::indexed(Reg::RAX, Reg::RSP, 1, 0),
        };
        assert!(matches!(
            rsp_index.encode(&mut buf),
            Err(EncodeError::InvalidOperand(_))
        ));
        let bad_scale = Inst::Lea {
            dst: Reg::RAX,
            addr: Amode::indexed(Reg::RAX, Reg::RCX, 3, 0),
        };
        assert!(bad_scale.encode(&mut buf).is_err());
        assert!(
            buf.is_empty(),
            "a failed encoding must not leave bytes behind"
        );
    }

    #[test]
    fn call_fixup_and_patch() {
        let mut buf = vec![0x90];
        let fix = Inst::Call { disp: 0 }.encode(&mut buf).unwrap().unwrap();
        assert_eq!(fix.offset, 2);
        assert_eq!(fix.addend, -4);
        assert_eq!(fix.kind.elf_reloc(), Some(4));
        patch(&mut buf, &fix, 0).unwrap();
        assert_eq!(buf, [0x90, 0xe8, 0xfa, 0xff, 0xff, 0xff]);
        let mut buf = Vec::new();
        let fix = Inst::JmpShort { disp: 0 }
            .encode(&mut buf)
            .unwrap()
            .unwrap();
        assert!(patch(&mut buf, &fix, 200).is_err());
        patch(&mut buf, &fix, 129).unwrap();
        assert_eq!(buf, [0xeb, 127]);
    }

    #[test]
    fn load_const_picks_shortest() {
        assert_eq!(enc(load_const(Reg::RAX, 1)).len(), 5);
        assert_eq!(enc(load_const(Reg::RAX, -1)).len(), 7);
        assert_eq!(enc(load_const(Reg::R8, 1 << 40)).len(), 10);
    }
}
