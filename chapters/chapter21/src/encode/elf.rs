//! Writing a [`Program`] as an ELF64 relocatable object (`ET_REL`), the
//! file a system linker (`cc`, the cross `gcc`) takes next to C code.
//!
//! The object has a `.text` section (allocated, executable, not
//! writable) with one `FUNC` symbol per function, a `.rodata` section
//! when the program has constants, and an empty `.note.GNU-stack`, whose
//! presence tells the linker the code needs no executable stack (without
//! it GNU ld warns and makes the stack executable). Every [`Reloc`]
//! becomes one RELA entry of the type [`isa::FixupKind::elf_reloc`] names:
//!
//! * a call to an external function refers to an undefined global symbol
//!   of that name (or to the program's own function of that name);
//! * `.rodata` is 16-byte aligned (x86 `xorpd` reads a 16-byte mask);
//! * a `.rodata` entry is the section symbol of `.rodata` with the entry's
//!   offset in the addend, plus the x86 addend (`-4`: x86 fields count
//!   from the end of the instruction, ELF from the field);
//! * the low half of a RISC-V PC-relative pair (`R_RISCV_PCREL_LO12_I`)
//!   refers, as the psABI requires, to a local label on the `auipc` that
//!   holds the high half (`.Lpcrel_hi0`, `.Lpcrel_hi1`...), addend 0.
//!
//! No `R_RISCV_RELAX` is emitted: the code is laid out with fixed-size
//! sequences and branch offsets already patched, so the linker must not
//! shorten anything. RISC-V objects say in `e_flags` that they use the
//! double-float ABI (lp64d), as the Debian toolchain's C objects do: the
//! linker refuses to mix float ABIs. The output depends only on the
//! program: the same program gives the same bytes.

use super::program::{Program, Reloc, RelocTarget};
use isa::{FixupKind, Isa};
use object::write::{Object, Relocation, SectionId, Symbol, SymbolId, SymbolSection};
use object::{
    elf, Architecture, BinaryFormat, Endianness, FileFlags, RelocationFlags, SectionFlags,
    SectionKind, SymbolFlags, SymbolKind, SymbolScope,
};
use std::collections::BTreeMap;

/// The ELF object file of `p`, or why it cannot be one (a relocation
/// outside `.text`, a kind of another CPU, an entry outside `.rodata`...).
pub fn write_elf(p: &Program) -> Result<Vec<u8>, String> {
    check(p)?;
    let (arch, e_flags) = match p.isa {
        Isa::X86_64 => (Architecture::X86_64, 0),
        Isa::Aarch64 => (Architecture::Aarch64, 0),
        Isa::Riscv64 => (Architecture::Riscv64, elf::EF_RISCV_FLOAT_ABI_DOUBLE),
    };
    let mut obj = Object::new(BinaryFormat::Elf, arch, Endianness::Little);
    obj.flags = FileFlags::Elf {
        os_abi: elf::ELFOSABI_NONE,
        abi_version: 0,
        e_flags,
    };

    let text = obj.add_section(Vec::new(), b".text".to_vec(), SectionKind::Text);
    // 16 is what compilers give x86 functions; more than enough elsewhere.
    obj.append_section_data(text, &p.text, 16);
    let rodata = if p.rodata.is_empty() {
        None
    } else {
        let id = obj.add_section(Vec::new(), b".rodata".to_vec(), SectionKind::ReadOnlyData);
        obj.append_section_data(id, &p.rodata, 16);
        Some(id)
    };
    // PROGBITS with no flags: "this object does not need an executable stack".
    let stack = obj.add_section(Vec::new(), b".note.GNU-stack".to_vec(), SectionKind::Other);
    obj.section_mut(stack).flags = SectionFlags::Elf { sh_flags: 0 };

    let mut by_name: BTreeMap<&str, SymbolId> = BTreeMap::new();
    for f in &p.functions {
        let id = obj.add_symbol(Symbol {
            name: f.name.as_bytes().to_vec(),
            value: f.offset,
            size: f.size,
            kind: SymbolKind::Text,
            scope: if f.global {
                SymbolScope::Dynamic
            } else {
                SymbolScope::Compilation
            },
            weak: false,
            section: SymbolSection::Section(text),
            flags: SymbolFlags::None,
        });
        by_name.insert(&f.name, id);
    }

    // Labels of the auipc instructions that PCREL_LO12_I entries name,
    // numbered in the order of their offsets for stable output.
    let mut labels: BTreeMap<u64, SymbolId> = BTreeMap::new();
    let mut hi_offsets: Vec<u64> = p
        .relocs
        .iter()
        .filter_map(|r| match r.target {
            RelocTarget::PcrelHi(at) => Some(at),
            _ => None,
        })
        .collect();
    hi_offsets.sort_unstable();
    hi_offsets.dedup();
    for (n, at) in hi_offsets.into_iter().enumerate() {
        let id = add_label(&mut obj, text, format!(".Lpcrel_hi{n}"), at);
        labels.insert(at, id);
    }

    for r in &p.relocs {
        let r_type = r
            .kind
            .elf_reloc()
            .ok_or_else(|| format!("{:?} at {:#x} has no ELF relocation", r.kind, r.offset))?;
        let (symbol, addend) = match &r.target {
            RelocTarget::External(name) => {
                let id = match by_name.get(name.as_str()) {
                    Some(&id) => id,
                    None => {
                        let id = obj.add_symbol(Symbol {
                            name: name.as_bytes().to_vec(),
                            value: 0,
                            size: 0,
                            kind: SymbolKind::Unknown,
                            scope: SymbolScope::Dynamic,
                            weak: false,
                            section: SymbolSection::Undefined,
                            flags: SymbolFlags::None,
                        });
                        by_name.insert(name, id);
                        id
                    }
                };
                (id, r.addend)
            }
            RelocTarget::Rodata(off) => {
                let section = rodata.ok_or("a relocation refers to an empty .rodata")?;
                (obj.section_symbol(section), *off as i64 + r.addend)
            }
            RelocTarget::PcrelHi(at) => (labels[at], r.addend),
        };
        obj.add_relocation(
            text,
            Relocation {
                offset: r.offset,
                symbol,
                addend,
                flags: RelocationFlags::Elf { r_type },
            },
        )
        .map_err(|e| format!("relocation at {:#x}: {e}", r.offset))?;
    }
    obj.write()
        .map_err(|e| format!("writing the ELF object: {e}"))
}

fn add_label(obj: &mut Object<'_>, text: SectionId, name: String, at: u64) -> SymbolId {
    obj.add_symbol(Symbol {
        name: name.into_bytes(),
        value: at,
        size: 0,
        kind: SymbolKind::Label,
        scope: SymbolScope::Compilation,
        weak: false,
        section: SymbolSection::Section(text),
        flags: SymbolFlags::None,
    })
}

/// The CPU a fixup kind belongs to.
pub(crate) fn kind_isa(kind: FixupKind) -> Isa {
    use FixupKind::*;
    match kind {
        X86Rel8 | X86Rel32 | X86Call32 | X86RipRel32 => Isa::X86_64,
        Arm64Branch26 | Arm64Call26 | Arm64Branch19 | Arm64Adr21 | Arm64AdrpPage21
        | Arm64AddLo12 | Arm64Ldst64Lo12 => Isa::Aarch64,
        RiscvBranch12 | RiscvJal20 | RiscvCall | RiscvPcrelHi20 | RiscvPcrelLo12I => Isa::Riscv64,
    }
}

/// Bytes of `text` a relocation of this kind rewrites, from its offset.
pub(crate) fn field_len(kind: FixupKind) -> u64 {
    match kind {
        FixupKind::X86Rel8 => 1,
        FixupKind::RiscvCall => 8,
        _ => 4,
    }
}

/// What a linker would reject or silently get wrong, found before
/// anything is written. Shared with the in-memory linker.
pub(crate) fn check(p: &Program) -> Result<(), String> {
    let text_len = p.text.len() as u64;
    let mut names = BTreeMap::new();
    for f in &p.functions {
        if f.name.is_empty() || f.name.contains('\0') {
            return Err(format!("bad function name {:?}", f.name));
        }
        if names.insert(f.name.as_str(), ()).is_some() {
            return Err(format!("function {} is defined twice", f.name));
        }
        if f.offset
            .checked_add(f.size)
            .is_none_or(|end| end > text_len)
        {
            return Err(format!(
                "function {} ({:#x}+{:#x}) lies outside .text ({text_len:#x} bytes)",
                f.name, f.offset, f.size
            ));
        }
    }
    for r in &p.relocs {
        check_reloc(p, r)?;
    }
    Ok(())
}

fn check_reloc(p: &Program, r: &Reloc) -> Result<(), String> {
    let at = r.offset;
    if kind_isa(r.kind) != p.isa {
        return Err(format!(
            "{:?} at {at:#x} is not a relocation of {}",
            r.kind,
            p.isa.name()
        ));
    }
    let end = at.checked_add(field_len(r.kind));
    if end.is_none_or(|end| end > p.text.len() as u64) {
        return Err(format!(
            "relocation {:?} at {at:#x} lies outside .text",
            r.kind
        ));
    }
    match &r.target {
        RelocTarget::External(name) => {
            if name.is_empty() || name.contains('\0') {
                return Err(format!("bad external name {name:?} at {at:#x}"));
            }
        }
        RelocTarget::Rodata(off) => {
            if *off >= p.rodata.len() as u64 {
                return Err(format!(
                    "relocation at {at:#x} refers to .rodata+{off:#x}, past its {} bytes",
                    p.rodata.len()
                ));
            }
            // A scaled 64-bit load reaches 8-byte-aligned addresses only
            // (.rodata itself is 8-aligned).
            if r.kind == FixupKind::Arm64Ldst64Lo12 && (*off as i64 + r.addend) % 8 != 0 {
                return Err(format!(
                    "64-bit load at {at:#x} of .rodata+{off:#x} is not 8-aligned"
                ));
            }
        }
        RelocTarget::PcrelHi(hi) => {
            if r.kind != FixupKind::RiscvPcrelLo12I {
                return Err(format!(
                    "{:?} at {at:#x} cannot refer to an auipc (only RiscvPcrelLo12I can)",
                    r.kind
                ));
            }
            if r.addend != 0 {
                return Err(format!("PCREL_LO12_I at {at:#x} has addend {}", r.addend));
            }
            let paired = p.relocs.iter().any(|h| {
                h.offset == *hi
                    && h.kind == FixupKind::RiscvPcrelHi20
                    && !matches!(h.target, RelocTarget::PcrelHi(_))
            });
            if !paired {
                return Err(format!(
                    "PCREL_LO12_I at {at:#x} names {hi:#x}, where no PCREL_HI20 is"
                ));
            }
        }
    }
    if r.kind == FixupKind::RiscvPcrelLo12I && !matches!(r.target, RelocTarget::PcrelHi(_)) {
        return Err(format!(
            "PCREL_LO12_I at {at:#x} must refer to its auipc (RelocTarget::PcrelHi)"
        ));
    }
    Ok(())
}
