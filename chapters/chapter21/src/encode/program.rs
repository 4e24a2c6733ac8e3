//! What encoding produces: one object's worth of machine code, before it
//! is written as an ELF file ([`super::elf`]) or linked in memory to run
//! under the emulator ([`super::link`]).
//!
//! The code of every function sits in one `.text` byte string, functions
//! one after another. References inside `.text` (branches, calls from one
//! function of the program to another) are already patched by the time a
//! [`Program`] exists: they never become relocations. What is left in
//! [`Program::relocs`] is what only a linker can settle: calls to functions
//! outside the object (the C allocator `calloc` behind `new`) and the
//! addresses of constants in `.rodata` (floats and integers too large for
//! an instruction's immediate).

/// One object's code, data, symbols and relocations.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    /// The instruction set the code is for.
    pub isa: isa::Isa,
    /// The machine code of every function.
    pub text: Vec<u8>,
    /// The functions, in the order of their code in `text`.
    pub functions: Vec<Symbol>,
    /// Constants the code loads by address (8-byte aligned entries).
    pub rodata: Vec<u8>,
    /// Fields in `text` that a linker fills in.
    pub relocs: Vec<Reloc>,
}

/// A function of the program: where its code is and whether other objects
/// may call it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symbol {
    pub name: String,
    /// Byte offset of its first instruction in `text`.
    pub offset: u64,
    /// Bytes of code.
    pub size: u64,
    /// A global symbol (exported, callable from C); otherwise local.
    pub global: bool,
}

/// A field of `text` whose value depends on where the linker puts things.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reloc {
    /// Where the field is, as [`isa::Fixup::offset`] says: on x86 the
    /// first byte of the 32-bit field, on AArch64 and RISC-V the first
    /// byte of the instruction word.
    pub offset: u64,
    /// The kind of field, which names the ELF relocation type
    /// ([`isa::FixupKind::elf_reloc`]).
    pub kind: isa::FixupKind,
    /// What the field refers to.
    pub target: RelocTarget,
    /// The ELF addend: on x86 minus the distance from the field to the end
    /// of its instruction (from [`isa::Fixup::addend`]); for a `.rodata`
    /// target the entry's offset is in [`RelocTarget::Rodata`], not here.
    pub addend: i64,
}

/// What a relocated field points at.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum RelocTarget {
    /// A function defined outside this object, by name (`calloc`).
    External(String),
    /// The entry at this byte offset of `rodata`.
    Rodata(u64),
    /// RISC-V only: the low half of a PC-relative address pair refers to
    /// the `auipc` that computed the high half (at this offset of `text`),
    /// as `R_RISCV_PCREL_LO12_I` requires; the ELF writer gives that
    /// instruction a local label.
    PcrelHi(u64),
}
