//! `simple asm` from chapter 21: what was encoded, laid out as
//! `llvm-objdump -d` shows the same object: each function under its
//! symbol, each instruction with its address, its bytes and its text.
//!
//! The text is the [`isa`] crate's (AT&T syntax on x86-64), with the
//! mnemonic and the operands separated by a tab as `llvm-objdump` does.
//! A branch or a call within the program shows, as `llvm-objdump` does,
//! the address it lands on instead of the distance `isa` encoded, with the
//! symbol and offset (`0x1a <fib+0x1a>`); a field a relocation fills
//! names the relocation.

use super::{Encoded, Program};
use std::fmt::Write;

/// The listing of an encoded program.
pub fn listing(e: &Encoded) -> String {
    let p = &e.program;
    let mut out = String::new();
    for (f, lines) in p.functions.iter().zip(&e.lines) {
        let _ = writeln!(out, "\n{:016x} <{}>:", f.offset, f.name);
        for l in lines {
            let bytes = &p.text[l.offset as usize..(l.offset + l.len as u64) as usize];
            let hex: Vec<String> = bytes.iter().map(|b| format!("{b:02x}")).collect();
            let text = l.inst.to_string();
            // `{disp32}` asks an assembler for the long form; a
            // disassembler shows the form by its bytes.
            let text = text.strip_prefix("{disp32} ").unwrap_or(&text).to_string();
            let mut text = match text.split_once(' ') {
                Some((mnemonic, operands)) => format!("{mnemonic}\t{operands}"),
                None => text,
            };
            if let Some(to) = l.target {
                if is_jump(&text) {
                    // The last operand is the distance; show where it lands.
                    let cut = text.rfind([' ', '\t', ',']).map_or(0, |i| i + 1);
                    text = format!("{}{to:#x} <{}>", &text[..cut], where_is(p, to));
                } else {
                    // An address taken (`lea`, `adr`, `auipc`): say whose.
                    text = format!("{text} # {to:#x} <{}>", where_is(p, to));
                }
            }
            let _ = write!(out, "{:8x}: {:<30}\t{text}", l.offset, hex.join(" "));
            if let Some(r) = p
                .relocs
                .iter()
                .find(|r| reloc_in(r.offset, l.offset, l.len))
            {
                let _ = write!(out, " ; {:?} {:?}", r.kind, r.target);
            }
            out.push('\n');
        }
    }
    out
}

/// A branch or a call, whose last operand is the distance to its target.
fn is_jump(text: &str) -> bool {
    let mnemonic = text.split('\t').next().unwrap_or("");
    mnemonic.starts_with('j')
        || mnemonic.starts_with("call")
        || mnemonic.starts_with("b.")
        || matches!(
            mnemonic,
            "b" | "bl" | "beq" | "bne" | "blt" | "bge" | "bltu" | "bgeu"
        )
}

/// Whether a relocated field at `field` lies in the instruction at `at`.
fn reloc_in(field: u64, at: u64, len: u8) -> bool {
    (at..at + len as u64).contains(&field)
}

/// `fib+0x1a`: an address as a symbol and an offset.
fn where_is(p: &Program, to: u64) -> String {
    match p
        .functions
        .iter()
        .find(|f| (f.offset..f.offset + f.size.max(1)).contains(&to))
    {
        Some(f) if to == f.offset => f.name.clone(),
        Some(f) => format!("{}+{:#x}", f.name, to - f.offset),
        None => format!("{to:#x}"),
    }
}
