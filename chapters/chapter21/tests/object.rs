//! ELF objects and in-memory linking, on all three CPUs.
//!
//! One small [`Program`] per CPU is encoded by hand with the `isa` crate:
//! `twice(x)` (x*2), `constant()` (the sum of the two doubles in `.rodata`,
//! each loaded through the CPU's PC-relative relocations: RIP-relative;
//! ADRP with ADD, and ADRP with a 64-bit LDR; AUIPC with a PCREL_LO12_I
//! load, and AUIPC with ADDI), `cell(x)` (calls `calloc(1, 16)`, stores `x` in the
//! second word and returns the sum of both words), and a local function
//! nobody calls. Each is written with [`write_elf`], linked with a C
//! harness by the system's `cc` (x86-64, run natively) or the cross `gcc`
//! (`-static`, run under `qemu-user`), and must print what C expects,
//! with not one warning from the linker. With feature `emulate` the same
//! programs go through [`link`] and run under unicorn, `calloc` being the
//! emulator's host function.
//!
//! A missing tool fails the test with the Debian package to install:
//! `scripts/test.sh` installs them.

use chapter21::encode::elf::write_elf;
use chapter21::encode::link::link;
use chapter21::encode::program::{Program, Reloc, RelocTarget, Symbol};
use isa::{arm64, riscv, x86_64, Fixup, FixupKind, Isa};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The constants in `.rodata`; `constant()` returns their sum.
const RODATA: [f64; 2] = [1.5, 2.75];

/// Builds one Program: functions one after another, relocations as the
/// encoders' fixups say.
struct Builder {
    isa: Isa,
    text: Vec<u8>,
    functions: Vec<Symbol>,
    relocs: Vec<Reloc>,
}

impl Builder {
    fn new(isa: Isa) -> Builder {
        Builder {
            isa,
            text: Vec::new(),
            functions: Vec::new(),
            relocs: Vec::new(),
        }
    }
    fn start(&mut self, name: &str, global: bool) {
        self.functions.push(Symbol {
            name: name.into(),
            offset: self.text.len() as u64,
            size: 0,
            global,
        });
    }
    fn end(&mut self) {
        let f = self.functions.last_mut().unwrap();
        f.size = self.text.len() as u64 - f.offset;
    }
    fn reloc(&mut self, fixup: Option<Fixup>, target: RelocTarget) {
        let f = fixup.expect("a relocated form");
        self.relocs.push(Reloc {
            offset: f.offset as u64,
            kind: f.kind,
            target,
            addend: f.addend,
        });
    }
    fn x86(&mut self, i: x86_64::Inst) -> Option<Fixup> {
        i.encode(&mut self.text).unwrap()
    }
    fn arm(&mut self, i: arm64::Inst) -> Option<Fixup> {
        i.encode(&mut self.text).unwrap()
    }
    fn rv(&mut self, i: riscv::Inst) -> Option<Fixup> {
        i.encode(&mut self.text).unwrap()
    }
    fn finish(self) -> Program {
        Program {
            isa: self.isa,
            text: self.text,
            functions: self.functions,
            rodata: RODATA.iter().flat_map(|x| x.to_le_bytes()).collect(),
            relocs: self.relocs,
        }
    }
}

fn x86_program() -> Program {
    use x86_64::{Amode, Inst::*, Prec, Reg, Size, Width, Xmm};
    let mut b = Builder::new(Isa::X86_64);
    let (rax, rbx, rcx, rdx, rsi, rdi) =
        (Reg::RAX, Reg::RBX, Reg::RCX, Reg::RDX, Reg::RSI, Reg::RDI);
    let alu = |op, dst, src| AluRR {
        op,
        size: Size::S64,
        dst,
        src,
    };
    let load = |dst, base, disp| Load {
        width: Width::W64,
        ext: x86_64::Ext::Zero,
        dst,
        addr: Amode::base(base, disp),
    };

    b.start("twice", true);
    b.x86(MovRR {
        size: Size::S64,
        dst: rax,
        src: rdi,
    });
    b.x86(alu(x86_64::Alu::Add, rax, rdi));
    b.x86(Ret);
    b.end();

    b.start("constant", true);
    let xmm = |n| Xmm::new(n).unwrap();
    for (n, entry) in [(0, 0), (1, 8)] {
        let f = b.x86(FLoad {
            prec: Prec::F64,
            dst: xmm(n),
            addr: Amode::Rip { disp: 0 },
        });
        b.reloc(f, RelocTarget::Rodata(entry));
    }
    b.x86(FArith {
        op: x86_64::FOp::Add,
        prec: Prec::F64,
        dst: xmm(0),
        src: xmm(1),
    });
    b.x86(Ret);
    b.end();

    b.start("cell", true);
    // One push keeps the stack 16-aligned at the call.
    b.x86(Push { src: rbx });
    b.x86(MovRR {
        size: Size::S64,
        dst: rbx,
        src: rdi,
    });
    b.x86(x86_64::load_const(rdi, 1));
    b.x86(x86_64::load_const(rsi, 16));
    let f = b.x86(Call { disp: 0 });
    b.reloc(f, RelocTarget::External("calloc".into()));
    b.x86(Store {
        width: Width::W64,
        src: rbx,
        addr: Amode::base(rax, 8),
    });
    b.x86(load(rcx, rax, 8));
    b.x86(load(rdx, rax, 0));
    b.x86(alu(x86_64::Alu::Add, rcx, rdx));
    b.x86(MovRR {
        size: Size::S64,
        dst: rax,
        src: rcx,
    });
    b.x86(Pop { dst: rbx });
    b.x86(Ret);
    b.end();

    b.start("local_zero", false);
    b.x86(x86_64::load_const(rax, 0));
    b.x86(Ret);
    b.end();
    b.finish()
}

fn arm_program() -> Program {
    use arm64::{AddSub, FReg, Inst::*, LdSt, PairMode, Prec, Reg, Size};
    let x = |n| Reg::x(n).unwrap();
    let mut b = Builder::new(Isa::Aarch64);
    let add = |rd, rn, rm| AluRR {
        op: AddSub::Add,
        flags: false,
        size: Size::S64,
        rd,
        rn,
        rm,
    };
    let ret = Ret { rn: Reg::LR };

    b.start("twice", true);
    b.arm(add(x(0), x(0), x(0)));
    b.arm(ret);
    b.end();

    b.start("constant", true);
    let d = |n| FReg::new(n).unwrap();
    let ldr = |rt, rn| FMem {
        load: true,
        prec: Prec::F64,
        rt,
        rn,
        offset: 0,
    };
    let [hi, lo] = arm64::addr_pair(&mut b.text, x(16)).unwrap();
    b.reloc(Some(hi), RelocTarget::Rodata(0));
    b.reloc(Some(lo), RelocTarget::Rodata(0));
    b.arm(ldr(d(0), x(16)));
    let [hi, lo] = arm64::load64_pair(&mut b.text, x(17), ldr(d(1), x(17))).unwrap();
    b.reloc(Some(hi), RelocTarget::Rodata(8));
    b.reloc(Some(lo), RelocTarget::Rodata(8));
    b.arm(FArith {
        op: arm64::FOp::Add,
        prec: Prec::F64,
        rd: d(0),
        rn: d(0),
        rm: d(1),
    });
    b.arm(ret);
    b.end();

    b.start("cell", true);
    b.arm(Pair {
        load: false,
        mode: PairMode::PreIndex,
        rt: x(19),
        rt2: Reg::LR,
        rn: Reg::SP,
        offset: -16,
    });
    b.arm(Mov {
        size: Size::S64,
        rd: x(19),
        rn: x(0),
    });
    for i in arm64::load_const(x(0), 1) {
        b.arm(i);
    }
    for i in arm64::load_const(x(1), 16) {
        b.arm(i);
    }
    let f = b.arm(Bl { offset: 0 });
    b.reloc(f, RelocTarget::External("calloc".into()));
    b.arm(arm64::mem(LdSt::StrX, x(19), x(0), 8).unwrap());
    b.arm(arm64::mem(LdSt::LdrX, x(1), x(0), 8).unwrap());
    b.arm(arm64::mem(LdSt::LdrX, x(2), x(0), 0).unwrap());
    b.arm(add(x(0), x(1), x(2)));
    b.arm(Pair {
        load: true,
        mode: PairMode::PostIndex,
        rt: x(19),
        rt2: Reg::LR,
        rn: Reg::SP,
        offset: 16,
    });
    b.arm(ret);
    b.end();

    b.start("local_zero", false);
    for i in arm64::load_const(x(0), 0) {
        b.arm(i);
    }
    b.arm(ret);
    b.end();
    b.finish()
}

fn riscv_program() -> Program {
    use riscv::{FReg, ImmOp, Inst::*, LoadOp, Prec, Reg, RegOp, StoreOp};
    let mut b = Builder::new(Isa::Riscv64);
    let (a0, a1, a2, sp, ra, t0) = (Reg::A0, Reg::A1, Reg::A2, Reg::SP, Reg::RA, Reg::T0);
    let s1 = Reg::x(9).unwrap();
    let ret = Jalr {
        rd: Reg::ZERO,
        rs1: ra,
        offset: 0,
    };
    let addi = |rd, rs1, imm| OpImm {
        op: ImmOp::Addi,
        rd,
        rs1,
        imm,
    };
    let add = |rd, rs1, rs2| Op {
        op: RegOp::Add,
        rd,
        rs1,
        rs2,
    };

    b.start("twice", true);
    b.rv(add(a0, a0, a0));
    b.rv(ret);
    b.end();

    b.start("constant", true);
    // auipc t1, %pcrel_hi(.rodata+8); addi t1, t1, %pcrel_lo(label)
    let t1 = Reg::x(6).unwrap();
    let fa = |n| FReg::fa(n).unwrap();
    let [hi, lo] = riscv::pcrel_addr(&mut b.text, t1).unwrap();
    b.reloc(Some(hi), RelocTarget::Rodata(8));
    b.reloc(Some(lo), RelocTarget::PcrelHi(hi.offset as u64));
    b.rv(FLoad {
        prec: Prec::F64,
        rd: fa(1),
        rs1: t1,
        offset: 0,
    });
    // auipc t0, %pcrel_hi(.rodata); fld fa0, %pcrel_lo(label)(t0)
    let hi = b.text.len() as u64;
    b.rv(Auipc { rd: t0, imm20: 0 });
    b.relocs.push(Reloc {
        offset: hi,
        kind: FixupKind::RiscvPcrelHi20,
        target: RelocTarget::Rodata(0),
        addend: 0,
    });
    let lo = b.text.len() as u64;
    b.rv(FLoad {
        prec: Prec::F64,
        rd: FReg::fa(0).unwrap(),
        rs1: t0,
        offset: 0,
    });
    b.relocs.push(Reloc {
        offset: lo,
        kind: FixupKind::RiscvPcrelLo12I,
        target: RelocTarget::PcrelHi(hi),
        addend: 0,
    });
    b.rv(FArith {
        op: riscv::FOp::Add,
        prec: Prec::F64,
        rd: fa(0),
        rs1: fa(0),
        rs2: fa(1),
    });
    b.rv(ret);
    b.end();

    b.start("cell", true);
    b.rv(addi(sp, sp, -16));
    b.rv(Store {
        op: StoreOp::Sd,
        rs2: ra,
        rs1: sp,
        offset: 8,
    });
    b.rv(Store {
        op: StoreOp::Sd,
        rs2: s1,
        rs1: sp,
        offset: 0,
    });
    b.rv(addi(s1, a0, 0));
    b.rv(addi(a0, Reg::ZERO, 1));
    b.rv(addi(a1, Reg::ZERO, 16));
    let f = riscv::call(&mut b.text).unwrap();
    b.reloc(Some(f), RelocTarget::External("calloc".into()));
    b.rv(Store {
        op: StoreOp::Sd,
        rs2: s1,
        rs1: a0,
        offset: 8,
    });
    let ld = |rd, offset| Load {
        op: LoadOp::Ld,
        rd,
        rs1: a0,
        offset,
    };
    b.rv(ld(a1, 8));
    b.rv(ld(a2, 0));
    b.rv(add(a0, a1, a2));
    b.rv(Load {
        op: LoadOp::Ld,
        rd: ra,
        rs1: sp,
        offset: 8,
    });
    b.rv(Load {
        op: LoadOp::Ld,
        rd: s1,
        rs1: sp,
        offset: 0,
    });
    b.rv(addi(sp, sp, 16));
    b.rv(ret);
    b.end();

    b.start("local_zero", false);
    b.rv(addi(a0, Reg::ZERO, 0));
    b.rv(ret);
    b.end();
    b.finish()
}

fn program(isa: Isa) -> Program {
    match isa {
        Isa::X86_64 => x86_program(),
        Isa::Aarch64 => arm_program(),
        Isa::Riscv64 => riscv_program(),
    }
}

const HARNESS: &str = r#"#include <stdio.h>
long twice(long);
double constant(void);
long cell(long);
int main(void) {
    printf("%ld %.3f %ld %ld\n", twice(21), constant(), cell(7), cell(-3));
    return 0;
}
"#;
const EXPECTED: &str = "42 4.250 7 -3\n";

/// A fresh directory under the system's temporary directory.
fn scratch(tag: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "simple-ch21-{tag}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Run a tool, failing with the package to install if it is missing.
fn run(tool: &str, package: &str, args: &[&Path]) -> std::process::Output {
    Command::new(tool).args(args).output().unwrap_or_else(|e| {
        panic!("cannot run {tool} ({e}): install it with `apt-get install {package}` (scripts/test.sh does)")
    })
}

/// Write the object, link it with the C harness, run it, check its output.
fn link_and_run(isa: Isa) {
    let (gcc, gcc_pkg, runner) = match isa {
        Isa::X86_64 => ("cc", "gcc", None),
        Isa::Aarch64 => (
            "aarch64-linux-gnu-gcc",
            "gcc-aarch64-linux-gnu libc6-dev-arm64-cross",
            Some("qemu-aarch64"),
        ),
        Isa::Riscv64 => (
            "riscv64-linux-gnu-gcc",
            "gcc-riscv64-linux-gnu libc6-dev-riscv64-cross",
            Some("qemu-riscv64"),
        ),
    };
    let dir = scratch(isa.name());
    let obj = dir.join("prog.o");
    let harness = dir.join("main.c");
    let exe = dir.join("main");
    std::fs::write(&obj, write_elf(&program(isa)).unwrap()).unwrap();
    std::fs::write(&harness, HARNESS).unwrap();

    let mut args: Vec<&Path> = Vec::new();
    if runner.is_some() {
        args.push(Path::new("-static"));
    }
    args.extend([Path::new("-o"), &exe, &harness, &obj]);
    let out = run(gcc, gcc_pkg, &args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{gcc} failed:\n{stderr}");
    assert_eq!(stderr, "", "{gcc} warned");

    let out = match runner {
        Some(qemu) => run(qemu, "qemu-user", &[&exe]),
        None => {
            assert_eq!(
                std::env::consts::ARCH,
                "x86_64",
                "x86-64 objects run natively, on an x86-64 host"
            );
            run(exe.to_str().unwrap(), "gcc", &[])
        }
    };
    assert!(
        out.status.success(),
        "{} exited with {}: {}",
        isa.name(),
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        EXPECTED,
        "{}",
        isa.name()
    );

    // The local function stays local; the others are global functions.
    let out = run("readelf", "binutils", &[Path::new("-sW"), &obj]);
    let symbols = String::from_utf8_lossy(&out.stdout);
    let binding = |name: &str| {
        symbols
            .lines()
            .find(|l| l.split_whitespace().last() == Some(name))
            .map(|l| {
                l.split_whitespace()
                    .skip(3)
                    .take(2)
                    .collect::<Vec<_>>()
                    .join(" ")
            })
    };
    assert_eq!(
        binding("twice").as_deref(),
        Some("FUNC GLOBAL"),
        "{symbols}"
    );
    assert_eq!(
        binding("local_zero").as_deref(),
        Some("FUNC LOCAL"),
        "{symbols}"
    );
    assert_eq!(
        binding("calloc").as_deref(),
        Some("NOTYPE GLOBAL"),
        "{symbols}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn x86_64_object_links_with_cc_and_runs() {
    link_and_run(Isa::X86_64);
}

#[test]
fn aarch64_object_links_with_cross_gcc_and_runs_under_qemu() {
    link_and_run(Isa::Aarch64);
}

#[test]
fn riscv64_object_links_with_cross_gcc_and_runs_under_qemu() {
    link_and_run(Isa::Riscv64);
}

#[test]
fn objects_are_deterministic_and_say_their_machine() {
    for (isa, machine, flags) in [
        (Isa::X86_64, 62u16, 0u32),
        (Isa::Aarch64, 183, 0),
        (Isa::Riscv64, 243, 4), // EF_RISCV_FLOAT_ABI_DOUBLE
    ] {
        let a = write_elf(&program(isa)).unwrap();
        assert_eq!(a, write_elf(&program(isa)).unwrap(), "{isa:?}");
        assert_eq!(&a[..4], b"\x7fELF");
        assert_eq!(u16::from_le_bytes([a[16], a[17]]), 1, "ET_REL");
        assert_eq!(u16::from_le_bytes([a[18], a[19]]), machine, "{isa:?}");
        assert_eq!(u32::from_le_bytes(a[48..52].try_into().unwrap()), flags);
    }
}

#[test]
fn bad_programs_are_errors_not_panics() {
    let good = program(Isa::Riscv64);

    let mut p = good.clone();
    p.relocs[0].offset = p.text.len() as u64 - 2;
    assert!(write_elf(&p).unwrap_err().contains("outside .text"));
    assert!(link(&p, 0x10000, &|_| None).is_err());

    let mut p = good.clone();
    p.relocs[0].kind = FixupKind::X86Call32;
    assert!(write_elf(&p)
        .unwrap_err()
        .contains("not a relocation of riscv64"));

    let mut p = good.clone();
    p.relocs[0].target = RelocTarget::Rodata(64);
    assert!(write_elf(&p).unwrap_err().contains("past its 16 bytes"));

    let mut p = good.clone();
    let lo = p
        .relocs
        .iter_mut()
        .find(|r| r.kind == FixupKind::RiscvPcrelLo12I)
        .unwrap();
    lo.target = RelocTarget::PcrelHi(0);
    assert!(write_elf(&p).unwrap_err().contains("no PCREL_HI20"));

    let mut p = good.clone();
    p.functions[1].size = 1 << 40;
    assert!(write_elf(&p).unwrap_err().contains("outside .text"));

    let mut p = good.clone();
    p.functions[1].name = "twice".into();
    assert!(write_elf(&p).unwrap_err().contains("defined twice"));

    let mut p = program(Isa::Aarch64);
    let ldr = p
        .relocs
        .iter_mut()
        .find(|r| r.kind == FixupKind::Arm64Ldst64Lo12)
        .unwrap();
    ldr.target = RelocTarget::Rodata(4);
    assert!(write_elf(&p).unwrap_err().contains("not 8-aligned"));
    assert!(link(&p, 0x10000, &|_| Some(0)).is_err());

    // calloc is not defined anywhere.
    assert_eq!(
        link(&good, 0x10000, &|_| None).unwrap_err(),
        "undefined symbol calloc"
    );
    assert!(link(&good, 0x10001, &|_| Some(0))
        .unwrap_err()
        .contains("4 KiB"));
    // Out of a call's reach: an error, not a truncated field.
    let err = link(&program(Isa::X86_64), 0x10000, &|_| Some(1 << 40)).unwrap_err();
    assert!(err.contains("out of range"), "{err}");
}

#[cfg(feature = "emulate")]
mod emulate {
    use super::*;
    use isa::emu::{Abi, Arg, Machine};

    /// Link at `base`, load, and call the three functions.
    fn run_linked(isa: Isa, base: u64) {
        let mut m = Machine::new(isa, Abi::SystemV).unwrap();
        let calloc = m.add_calloc().unwrap();
        let image = link(&program(isa), base, &|name| {
            (name == "calloc").then_some(calloc)
        })
        .unwrap();
        assert_eq!(image.rodata % 8, 0);
        m.load_image(image.base, &image.bytes).unwrap();
        let f = |name| image.symbol(name).unwrap();

        let out = m.call(f("twice"), &[Arg::Int(21)], 1000).unwrap();
        assert_eq!(out.int(), 42, "{isa:?}");
        let out = m.call(f("constant"), &[], 1000).unwrap();
        assert_eq!(out.f64(), 4.25, "{isa:?}");
        for x in [7, -3] {
            let out = m.call(f("cell"), &[Arg::Int(x)], 1000).unwrap();
            assert_eq!(out.int(), x, "{isa:?}");
        }
        // The two cells calloc gave out, one after the other on the heap.
        let heap = Machine::HEAP_BASE;
        assert_eq!(m.read_u64(heap + 8).unwrap() as i64, 7, "{isa:?}");
        assert_eq!(m.read_u64(heap + 16 + 8).unwrap() as i64, -3, "{isa:?}");
        assert_eq!(m.read_u64(heap + 16).unwrap(), 0, "{isa:?}");
    }

    #[test]
    fn linked_programs_run_in_the_emulator() {
        for isa in Isa::ALL {
            run_linked(isa, Machine::CODE_BASE);
        }
    }

    /// Above the heap and the host stubs: calls to calloc go backwards,
    /// and the image gets pages of its own.
    #[test]
    fn linked_programs_run_at_another_base() {
        for isa in Isa::ALL {
            run_linked(isa, 0x0300_0000);
        }
    }
}
