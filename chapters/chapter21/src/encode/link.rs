//! An in-memory linker: a [`Program`] placed at a chosen address, every
//! relocation applied, ready to copy into the emulator and run.
//!
//! It does what the system linker does with the object of
//! [`super::elf`], for the one object we have: `.text` goes at `base`,
//! `.rodata` follows at the next 16-byte boundary, and each relocation's
//! field is filled with the address the ELF relocation type would give.
//! Calls to functions outside the program are resolved by the caller's
//! `externals` (in tests, the emulator's host functions such as
//! `calloc`). The fields are patched by the `isa` crate's own `patch`
//! functions, which count in byte offsets of the image; a target before
//! the image (an external at a lower address) is passed as a wrapped
//! offset, which they read back as a negative distance.
//!
//! `base` must be 4 KiB-aligned, as a loader maps whole pages: AArch64's
//! ADRP computes page numbers, so the image's offsets must agree with its
//! addresses about where pages start.

use super::elf::check;
use super::program::{Program, Reloc, RelocTarget};
use isa::{Fixup, FixupKind};
use std::collections::BTreeMap;

/// A linked program: its bytes and where they go.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Image {
    /// `.text`, zero padding to a 16-byte boundary, then `.rodata`.
    pub bytes: Vec<u8>,
    /// The address of the first byte.
    pub base: u64,
    /// The address of `.rodata` (the end of the image if it is empty).
    pub rodata: u64,
    /// Every function of the program by name, at its address.
    pub symbols: BTreeMap<String, u64>,
}

impl Image {
    /// The address of a function of the program.
    pub fn symbol(&self, name: &str) -> Option<u64> {
        self.symbols.get(name).copied()
    }
}

/// Link `p` at `base`, asking `externals` for the address of each
/// function the program calls but does not define.
pub fn link(
    p: &Program,
    base: u64,
    externals: &dyn Fn(&str) -> Option<u64>,
) -> Result<Image, String> {
    check(p)?;
    if !base.is_multiple_of(4096) {
        return Err(format!("link base {base:#x} is not 4 KiB-aligned"));
    }
    let rodata_off = (p.text.len() as u64).next_multiple_of(16);
    let mut bytes = p.text.clone();
    bytes.resize(rodata_off as usize, 0);
    bytes.extend_from_slice(&p.rodata);
    if base.checked_add(bytes.len() as u64).is_none() {
        return Err(format!(
            "an image of {} bytes does not fit at {base:#x}",
            bytes.len()
        ));
    }
    let symbols: BTreeMap<String, u64> = p
        .functions
        .iter()
        .map(|f| (f.name.clone(), base + f.offset))
        .collect();

    // The address a relocation's symbol-plus-entry stands for (ELF's S,
    // with a .rodata entry's offset included, but not the x86 addend).
    let address = |target: &RelocTarget| -> Result<u64, String> {
        match target {
            RelocTarget::External(name) => symbols
                .get(name)
                .copied()
                .or_else(|| externals(name))
                .ok_or_else(|| format!("undefined symbol {name}")),
            RelocTarget::Rodata(off) => Ok(base + rodata_off + off),
            RelocTarget::PcrelHi(at) => Err(format!("{at:#x} names an auipc, not an address")),
        }
    };
    for r in &p.relocs {
        let at = r.offset;
        let fixup = Fixup {
            offset: at as usize,
            kind: r.kind,
            addend: r.addend,
        };
        let fail = |e: isa::EncodeError| format!("relocation {:?} at {at:#x}: {e}", r.kind);
        match r.kind {
            FixupKind::X86Rel8
            | FixupKind::X86Rel32
            | FixupKind::X86Call32
            | FixupKind::X86RipRel32 => {
                // The fixup's addend says where the instruction ends, which
                // is what x86 counts from: S + A - P.
                let s = address(&r.target)?;
                isa::x86_64::patch(&mut bytes, &fixup, offset_of(s, base)).map_err(fail)?;
            }
            FixupKind::Arm64Branch26
            | FixupKind::Arm64Call26
            | FixupKind::Arm64Branch19
            | FixupKind::Arm64Adr21
            | FixupKind::Arm64AdrpPage21
            | FixupKind::Arm64AddLo12
            | FixupKind::Arm64Ldst64Lo12 => {
                let s = address(&r.target)?.wrapping_add(r.addend as u64);
                isa::arm64::patch(&mut bytes, &fixup, offset_of(s, base)).map_err(fail)?;
            }
            FixupKind::RiscvBranch12 | FixupKind::RiscvJal20 | FixupKind::RiscvCall => {
                // A call patches its auipc and jalr together.
                let s = address(&r.target)?.wrapping_add(r.addend as u64);
                isa::riscv::patch(&mut bytes, &fixup, offset_of(s, base)).map_err(fail)?;
            }
            FixupKind::RiscvPcrelHi20 => {
                let (hi20, _) = pcrel_split(r, base, &address).map_err(fail)?;
                let w = read(&bytes, at) & 0xfff | hi20 << 12;
                write(&mut bytes, at, w);
            }
            FixupKind::RiscvPcrelLo12I => {
                // The low half is the one of its auipc's distance, which
                // check() made sure exists.
                let RelocTarget::PcrelHi(hi_at) = r.target else {
                    return Err(format!("PCREL_LO12_I at {at:#x} without its auipc"));
                };
                let hi = p
                    .relocs
                    .iter()
                    .find(|h| h.offset == hi_at && h.kind == FixupKind::RiscvPcrelHi20)
                    .ok_or_else(|| format!("no PCREL_HI20 at {hi_at:#x}"))?;
                let (_, lo12) = pcrel_split(hi, base, &address).map_err(fail)?;
                // I-type: the immediate is bits 31..20.
                let w = read(&bytes, at) & 0x000f_ffff | ((lo12 as u32) & 0xfff) << 20;
                write(&mut bytes, at, w);
            }
        }
    }
    Ok(Image {
        bytes,
        base,
        rodata: base + rodata_off,
        symbols,
    })
}

/// `address` as a byte offset from `base`: wrapped when it lies below
/// (see the module comment).
fn offset_of(address: u64, base: u64) -> usize {
    address.wrapping_sub(base) as usize
}

/// The (hi20, lo12) of a RISC-V `R_RISCV_PCREL_HI20` at `hi`: the
/// distance from its auipc to its target.
fn pcrel_split(
    hi: &Reloc,
    base: u64,
    address: &dyn Fn(&RelocTarget) -> Result<u64, String>,
) -> Result<(u32, i32), isa::EncodeError> {
    let s = address(&hi.target)
        .map_err(isa::EncodeError::InvalidOperand)?
        .wrapping_add(hi.addend as u64);
    let disp = s.wrapping_sub(base + hi.offset) as i64;
    isa::riscv::split_hi_lo(disp)
}

fn read(code: &[u8], at: u64) -> u32 {
    let at = at as usize;
    u32::from_le_bytes([code[at], code[at + 1], code[at + 2], code[at + 3]])
}

fn write(code: &mut [u8], at: u64, w: u32) {
    let at = at as usize;
    code[at..at + 4].copy_from_slice(&w.to_le_bytes());
}
