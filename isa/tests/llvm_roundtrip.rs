//! Our bytes mean our text: every line of the encoding table, checked by
//! LLVM's own assembler and disassembler.
//!
//! For each line `text<TAB>bytes` of `isa::table`:
//! 1. `llvm-mc --disassemble` turns our bytes into LLVM's text;
//! 2. `llvm-mc --show-encoding` assembles that text again;
//! 3. `llvm-mc --show-encoding` assembles our text;
//!
//! and 2 must equal 3. Comparing re-assembled bytes rather than our bytes
//! directly lets x86's two encodings of one instruction agree (`add r9,r10`
//! is `4d 03 ca` for us, `4d 01 d1` for LLVM), while a wrong register,
//! width, displacement or condition still shows up as a difference.
//!
//! A PC-relative branch to a numeric target is a fixup for LLVM, printed as
//! `[0xeb,A]` plus a `fixup ... value: 14-1` line; the fixup line is part
//! of what we compare, and its value comes from the displacement the
//! disassembler read out of our bytes. LLVM picks the short form of a jump
//! on its own, so a `{disp32}` pseudo prefix on our text (the near form) is
//! carried over to the disassembled text.
//!
//! Each ISA is done in three batch runs of llvm-mc, not one per line. A
//! marker instruction that the table never uses (`int3`, `brk #0x7e7`,
//! `ebreak`) separates the lines, so that a line that fails or decodes into
//! two instructions cannot shift the others.
//!
//! A missing llvm-mc is a failure, not a skip.

use isa::table::{self, Line};
use isa::Isa;
use std::path::PathBuf;
use std::process::Command;

struct Target {
    isa: Isa,
    args: &'static [&'static str],
    /// Marker instruction: its text and bytes.
    marker_text: &'static str,
    marker_bytes: &'static [u8],
}

const TARGETS: [Target; 3] = [
    Target {
        isa: Isa::X86_64,
        args: &["-triple=x86_64"],
        marker_text: "int3",
        marker_bytes: &[0xcc],
    },
    Target {
        isa: Isa::Aarch64,
        args: &["-triple=aarch64"],
        marker_text: "brk #0x7e7",
        marker_bytes: &[0xe0, 0xfc, 0x20, 0xd4],
    },
    Target {
        isa: Isa::Riscv64,
        args: &["-triple=riscv64", "-mattr=+m,+f,+d"],
        marker_text: "ebreak",
        marker_bytes: &[0x73, 0x00, 0x10, 0x00],
    },
];

fn llvm_mc() -> PathBuf {
    if let Some(p) = std::env::var_os("LLVM_MC") {
        return PathBuf::from(p);
    }
    for p in [
        "/usr/bin/llvm-mc",
        "/usr/bin/llvm-mc-14",
        "/usr/lib/llvm-14/bin/llvm-mc",
    ] {
        if std::path::Path::new(p).exists() {
            return PathBuf::from(p);
        }
    }
    if Command::new("llvm-mc").arg("--version").output().is_ok() {
        return PathBuf::from("llvm-mc");
    }
    panic!(
        "llvm-mc not found: this test checks the encoders against LLVM. Install LLVM 14 \
         (Debian/Ubuntu: `apt-get install -y llvm-14 llvm`, which provides /usr/bin/llvm-mc) \
         or set LLVM_MC to its path"
    );
}

fn run_mc(target: &Target, extra: &[&str], input: &str, name: &str) -> (String, String) {
    let dir = std::env::temp_dir().join(format!("isa-llvm-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{}-{name}.s", target.isa.name()));
    std::fs::write(&path, input).unwrap();
    let out = Command::new(llvm_mc())
        .args(target.args)
        .args(extra)
        .arg(&path)
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "cannot run llvm-mc ({e}): install LLVM 14 (Debian/Ubuntu: \
                 `apt-get install -y llvm-14 llvm`, which provides /usr/bin/llvm-mc) \
                 or set LLVM_MC to its path"
            )
        });
    let _ = std::fs::remove_file(&path);
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The encoding of one assembled instruction: `[0x4d,0x01,0xd1]`, plus its
/// fixup lines if any.
fn parse_encodings(stdout: &str) -> Vec<String> {
    let mut recs: Vec<String> = Vec::new();
    for l in stdout.lines() {
        if let Some(i) = l.find("encoding: [") {
            let rest = &l[i + "encoding: ".len()..];
            let end = rest.find(']').map_or(rest.len(), |e| e + 1);
            recs.push(rest[..end].to_string());
        } else if let Some(i) = l.find("fixup ") {
            if let Some(last) = recs.last_mut() {
                last.push(' ');
                last.push_str(l[i..].trim());
            }
        }
    }
    recs
}

/// Split records (encodings or disassembled lines) at the markers: group k
/// belongs to input line k.
fn split_groups(recs: Vec<String>, is_marker: impl Fn(&str) -> bool, n: usize) -> Vec<Vec<String>> {
    let mut groups: Vec<Vec<String>> = Vec::new();
    for r in recs {
        if is_marker(&r) {
            groups.push(Vec::new());
        } else if let Some(g) = groups.last_mut() {
            g.push(r);
        }
    }
    // The input ends with a marker, which opens one empty group too many.
    groups.truncate(n);
    groups
}

/// Assemble one instruction per entry (None: no input), separated by
/// markers. Returns the encoding records of each entry, and stderr.
fn assemble(target: &Target, texts: &[Option<String>], name: &str) -> (Vec<Vec<String>>, String) {
    let mut input = String::new();
    for t in texts {
        input.push_str(target.marker_text);
        input.push('\n');
        if let Some(t) = t {
            input.push_str(t);
            input.push('\n');
        }
    }
    input.push_str(target.marker_text);
    input.push('\n');
    let (out, err) = run_mc(target, &["--show-encoding"], &input, name);
    let marker_enc = format!(
        "[{}]",
        target
            .marker_bytes
            .iter()
            .map(|b| format!("{b:#04x}"))
            .collect::<Vec<_>>()
            .join(",")
    );
    let groups = split_groups(parse_encodings(&out), |r| r == marker_enc, texts.len());
    (groups, err)
}

/// Disassemble each line's bytes; returns LLVM's text per line.
fn disassemble(target: &Target, lines: &[Line]) -> (Vec<Vec<String>>, String) {
    let marker_hex = target
        .marker_bytes
        .iter()
        .map(|b| format!("{b:#04x}"))
        .collect::<Vec<_>>()
        .join(" ");
    let mut input = String::new();
    for l in lines {
        input.push_str(&marker_hex);
        input.push('\n');
        input.push_str(&l.hex_llvm());
        input.push('\n');
    }
    input.push_str(&marker_hex);
    input.push('\n');
    let (out, err) = run_mc(target, &["--disassemble"], &input, "dis");
    let texts: Vec<String> = out
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|l| !l.is_empty() && !l.starts_with('.'))
        .collect();
    let marker = target.marker_text.to_string();
    (split_groups(texts, |t| t == marker, lines.len()), err)
}

fn check(target: &Target) {
    let lines = table::lines(target.isa).expect("the table encodes");
    let name = target.isa.name();
    assert!(
        lines.len() >= 300,
        "{name}: only {} table lines",
        lines.len()
    );

    let ours: Vec<Option<String>> = lines.iter().map(|l| Some(l.text.clone())).collect();
    let (our_enc, our_err) = assemble(target, &ours, "ours");
    let (dis, dis_err) = disassemble(target, &lines);
    let re_texts: Vec<Option<String>> = dis
        .iter()
        .zip(&lines)
        .map(|(g, l)| match g.as_slice() {
            [one] => Some(match l.text.strip_prefix("{disp32} ") {
                Some(_) => format!("{{disp32}} {one}"),
                None => one.clone(),
            }),
            _ => None,
        })
        .collect();
    let (re_enc, re_err) = assemble(target, &re_texts, "re");

    let mut failures = Vec::new();
    let mut exact = 0;
    for (k, line) in lines.iter().enumerate() {
        let get = |v: &Vec<Vec<String>>| v.get(k).cloned().unwrap_or_default();
        let (ours_k, dis_k, re_k) = (get(&our_enc), get(&dis), get(&re_enc));
        let ok = ours_k.len() == 1 && dis_k.len() == 1 && re_k.len() == 1 && ours_k == re_k;
        if ok {
            let mine = format!(
                "[{}]",
                line.bytes
                    .iter()
                    .map(|b| format!("{b:#04x}"))
                    .collect::<Vec<_>>()
                    .join(",")
            );
            if ours_k[0] == mine {
                exact += 1;
            }
        } else {
            failures.push(format!(
                "line {}: {line}\n    llvm disassembles our bytes as: {dis_k:?}\n    \
                 which assembles to: {re_k:?}\n    our text assembles to: {ours_k:?}",
                k + 1
            ));
        }
    }
    eprintln!(
        "{name}: {} lines, {} agree with LLVM ({exact} byte for byte with LLVM's own choice)",
        lines.len(),
        lines.len() - failures.len()
    );
    if !failures.is_empty() {
        let mut stderr = String::new();
        for (what, err) in [
            ("ours", &our_err),
            ("disassembly", &dis_err),
            ("re", &re_err),
        ] {
            if !err.trim().is_empty() {
                let head: String = err.lines().take(40).collect::<Vec<_>>().join("\n");
                stderr.push_str(&format!("\n--- llvm-mc stderr ({what}) ---\n{head}"));
            }
        }
        panic!(
            "{name}: {} of {} lines do not round-trip through llvm-mc:\n{}{stderr}",
            failures.len(),
            lines.len(),
            failures.join("\n")
        );
    }
}

#[test]
fn x86_64_table_round_trips_through_llvm() {
    check(&TARGETS[0]);
}

#[test]
fn aarch64_table_round_trips_through_llvm() {
    check(&TARGETS[1]);
}

#[test]
fn riscv64_table_round_trips_through_llvm() {
    check(&TARGETS[2]);
}
