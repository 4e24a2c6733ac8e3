//! The bits of three CPUs, shared by every backend chapter.
//!
//! Chapters 19 to 21 of the course select machine instructions for x86-64,
//! AArch64 and RISC-V and finally encode them. The machine nodes of a chapter
//! decide *which* instruction to use; this crate owns *how* that instruction
//! is laid out in bytes, and how it is spelled in assembler text.
//!
//! Each ISA module follows the same shape:
//!
//! * register types with their hardware numbers and assembler names;
//! * one `Inst` enum whose variants are the instruction forms the Simple
//!   backends need. [`x86_64::Inst::encode`] (and its siblings) appends the
//!   little-endian bytes to a `Vec<u8>`; `Display` prints the same value in
//!   the syntax `llvm-mc` accepts. Bits and text come from one value, so they
//!   cannot drift apart;
//! * sequence builders for what takes several instructions (large constants,
//!   PC-relative address pairs, calls on RISC-V);
//! * `patch` functions that fill in a PC-relative field once its target is
//!   known (branches settled by the layout of chapter 21).
//!
//! Operands are checked: an immediate, displacement or branch offset that
//! does not fit its field is an [`EncodeError`], never silently truncated.
//!
//! A form whose target is unknown at encoding time (a direct call, a
//! RIP-relative load, an ADRP page) is encoded with a zero field and returns a
//! [`Fixup`] saying where the field is and of which kind, so that the ELF
//! writer can turn it into a relocation, or the layout can patch it.
//!
//! [`table`] sweeps every form over edge-case operands; the test
//! `tests/llvm_roundtrip.rs` checks every line of that table against LLVM's
//! own assembler and disassembler. With feature `test-support`, [`emu`] runs
//! code images under unicorn-engine.

use std::fmt;

pub mod arm64;
pub mod riscv;
pub mod table;
pub mod x86_64;

#[cfg(feature = "test-support")]
pub mod emu;

/// Why an instruction could not be encoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EncodeError {
    /// An immediate, displacement or offset does not fit its field.
    OutOfRange {
        what: &'static str,
        value: i64,
        min: i64,
        max: i64,
    },
    /// An offset that must be a multiple of `align` is not.
    Misaligned {
        what: &'static str,
        value: i64,
        align: i64,
    },
    /// The operands do not form a valid instruction (for example `rsp` as an
    /// x86 index register, or `xzr` where AArch64 means `sp`).
    InvalidOperand(String),
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EncodeError::OutOfRange {
                what,
                value,
                min,
                max,
            } => write!(f, "{what} {value} out of range [{min}, {max}]"),
            EncodeError::Misaligned { what, value, align } => {
                write!(f, "{what} {value} is not a multiple of {align}")
            }
            EncodeError::InvalidOperand(msg) => write!(f, "invalid operand: {msg}"),
        }
    }
}

impl std::error::Error for EncodeError {}

/// Result of encoding one instruction: `Some(fixup)` for forms with a
/// PC-relative or relocated field.
pub type EncodeResult = Result<Option<Fixup>, EncodeError>;

/// A field inside the code buffer that a later pass fills in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fixup {
    /// Byte offset in the buffer. x86: the start of the 32/8-bit field.
    /// AArch64 and RISC-V: the start of the instruction word.
    pub offset: usize,
    pub kind: FixupKind,
    /// The addend an ELF relocation for this field needs. x86 fields are
    /// relative to the end of the instruction, but ELF computes `S + A - P`
    /// from the field itself, so the addend is minus the distance from the
    /// field to the end of the instruction (-4 for a call). Zero elsewhere.
    pub addend: i64,
}

/// The kinds of patchable fields, across the three ISAs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FixupKind {
    /// x86 rel8 of a short jump (local only: no ELF relocation).
    X86Rel8,
    /// x86 rel32 of a near jump/jcc (local; as a relocation R_X86_64_PC32).
    X86Rel32,
    /// x86 rel32 of `call` (R_X86_64_PLT32).
    X86Call32,
    /// x86 RIP-relative disp32 (R_X86_64_PC32).
    X86RipRel32,
    /// AArch64 B/BL imm26 (R_AARCH64_JUMP26 / R_AARCH64_CALL26).
    Arm64Branch26,
    /// AArch64 BL imm26, a call (R_AARCH64_CALL26).
    Arm64Call26,
    /// AArch64 B.cond / CBZ / CBNZ imm19 (local).
    Arm64Branch19,
    /// AArch64 ADR imm21 (R_AARCH64_ADR_PREL_LO21).
    Arm64Adr21,
    /// AArch64 ADRP page (R_AARCH64_ADR_PREL_PG_HI21).
    Arm64AdrpPage21,
    /// AArch64 ADD immediate, low 12 bits of an address
    /// (R_AARCH64_ADD_ABS_LO12_NC).
    Arm64AddLo12,
    /// AArch64 64-bit LDR (`ldr xt` or `ldr dt`) after an ADRP: the low
    /// 12 bits of an 8-byte-aligned address, scaled by 8 into the offset
    /// field (R_AARCH64_LDST64_ABS_LO12_NC).
    Arm64Ldst64Lo12,
    /// RISC-V B-type conditional branch (local).
    RiscvBranch12,
    /// RISC-V JAL (R_RISCV_JAL).
    RiscvJal20,
    /// RISC-V AUIPC+JALR call pair (R_RISCV_CALL_PLT, on the AUIPC).
    RiscvCall,
    /// RISC-V AUIPC of an address pair (R_RISCV_PCREL_HI20).
    RiscvPcrelHi20,
    /// RISC-V ADDI/load low half of an address pair (R_RISCV_PCREL_LO12_I).
    RiscvPcrelLo12I,
}

impl FixupKind {
    /// The ELF relocation type (`r_type`) an object writer emits for this
    /// field when its target is a symbol, if there is one.
    pub fn elf_reloc(self) -> Option<u32> {
        Some(match self {
            FixupKind::X86Rel8 => return None,
            FixupKind::X86Rel32 | FixupKind::X86RipRel32 => 2, // R_X86_64_PC32
            FixupKind::X86Call32 => 4,                         // R_X86_64_PLT32
            FixupKind::Arm64Branch26 => 282,                   // R_AARCH64_JUMP26
            FixupKind::Arm64Call26 => 283,                     // R_AARCH64_CALL26
            FixupKind::Arm64Branch19 => 280,                   // R_AARCH64_CONDBR19
            FixupKind::Arm64Adr21 => 274,                      // R_AARCH64_ADR_PREL_LO21
            FixupKind::Arm64AdrpPage21 => 275,                 // R_AARCH64_ADR_PREL_PG_HI21
            FixupKind::Arm64AddLo12 => 277,                    // R_AARCH64_ADD_ABS_LO12_NC
            FixupKind::Arm64Ldst64Lo12 => 286,                 // R_AARCH64_LDST64_ABS_LO12_NC
            FixupKind::RiscvBranch12 => 16,                    // R_RISCV_BRANCH
            FixupKind::RiscvJal20 => 17,                       // R_RISCV_JAL
            FixupKind::RiscvCall => 19,                        // R_RISCV_CALL_PLT
            FixupKind::RiscvPcrelHi20 => 23,                   // R_RISCV_PCREL_HI20
            FixupKind::RiscvPcrelLo12I => 24,                  // R_RISCV_PCREL_LO12_I
        })
    }
}

/// The three instruction sets, by the names the table example takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Isa {
    X86_64,
    Aarch64,
    Riscv64,
}

impl Isa {
    pub const ALL: [Isa; 3] = [Isa::X86_64, Isa::Aarch64, Isa::Riscv64];

    /// The name on the command line, also LLVM's triple architecture.
    pub fn name(self) -> &'static str {
        match self {
            Isa::X86_64 => "x86_64",
            Isa::Aarch64 => "aarch64",
            Isa::Riscv64 => "riscv64",
        }
    }

    pub fn from_name(name: &str) -> Option<Isa> {
        Isa::ALL.into_iter().find(|isa| isa.name() == name)
    }
}

/// `value` must fit a signed field of `bits` bits.
pub(crate) fn check_signed(what: &'static str, value: i64, bits: u32) -> Result<i64, EncodeError> {
    let min = -(1i64 << (bits - 1));
    let max = (1i64 << (bits - 1)) - 1;
    if value < min || value > max {
        return Err(EncodeError::OutOfRange {
            what,
            value,
            min,
            max,
        });
    }
    Ok(value)
}

/// `value` must fit an unsigned field of `bits` bits.
pub(crate) fn check_unsigned(
    what: &'static str,
    value: i64,
    bits: u32,
) -> Result<u64, EncodeError> {
    let max = (1i64 << bits) - 1;
    if value < 0 || value > max {
        return Err(EncodeError::OutOfRange {
            what,
            value,
            min: 0,
            max,
        });
    }
    Ok(value as u64)
}

/// `value` must be a multiple of `align`.
pub(crate) fn check_align(what: &'static str, value: i64, align: i64) -> Result<(), EncodeError> {
    if value % align != 0 {
        return Err(EncodeError::Misaligned { what, value, align });
    }
    Ok(())
}
