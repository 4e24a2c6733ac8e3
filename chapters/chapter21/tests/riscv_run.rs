//! Chapter 21: RISC-V machine code, run.
//!
//! Each program is compiled for RISC-V (System V) down to bytes, and:
//!
//! - LLVM must decode every word of its `.text` (`llvm-mc --disassemble
//!   -triple=riscv64 -mattr=+m,+f,+d`): no invalid encoding, one
//!   instruction per 4 bytes;
//! - the program runs under unicorn, its `main` called with each
//!   argument, and must return what the evaluator returns for the same
//!   source. Its relocations (`calloc`, constants in `.rodata`) are
//!   settled by a small linker here, with a bump allocator for `calloc`.

#![cfg(feature = "emulate")]

use chapter21::cpu::riscv::encode::branch;
use chapter21::encode::{AnyInst, Cond, Program, RelocTarget};
use chapter21::{CodeGen, Outcome, Value};
use isa::emu::{Abi, Arg, Machine};
use isa::riscv::{self, BCond, ImmOp, Inst, Reg};
use isa::{Fixup, FixupKind, Isa};
use std::fmt::Write;
use std::io::Write as _;
use std::process::{Command, Stdio};

/// Loop iterations the evaluator may run.
const LOOPS: usize = 1_000_000;
/// Instructions the emulator may run.
const STEPS: u64 = 20_000_000;

/// Every phase down to bytes.
fn compile(src: &str) -> Result<CodeGen, String> {
    let mut code = CodeGen::new(src);
    code.parse()
        .and_then(|c| c.opto())
        .and_then(|c| c.type_check())
        .and_then(|c| c.inst_select("riscv", "SystemV"))
        .and_then(|c| c.legalize())
        .and_then(|c| c.gcm())
        .and_then(|c| c.local_sched())
        .and_then(|c| c.reg_alloc())
        .and_then(|c| c.encode())
        .map_err(|e| format!("{e:?}"))?;
    Ok(code)
}

/// What the evaluator says `src` returns for `arg`.
fn expected(src: &str, arg: i64) -> Result<i64, String> {
    let mut code = CodeGen::new(src);
    code.parse()
        .and_then(|c| c.opto())
        .and_then(|c| c.type_check())
        .map_err(|e| format!("{e:?}"))?;
    match code.eval(arg, LOOPS) {
        Outcome::Value(Value::Int(v)) => Ok(v),
        other => Err(format!("the evaluator gave {other:?}")),
    }
}

/// LLVM's reading of `text`: an error unless every word is one valid
/// instruction.
fn llvm_decodes(text: &[u8]) -> Result<(), String> {
    let mut hex = String::new();
    for b in text {
        write!(hex, "{b:#04x} ").unwrap();
    }
    let mut child = Command::new("llvm-mc")
        .args(["--disassemble", "-triple=riscv64", "-mattr=+m,+f,+d"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("llvm-mc: {e}"))?;
    child
        .stdin
        .take()
        .ok_or("no stdin")?
        .write_all(hex.as_bytes())
        .map_err(|e| e.to_string())?;
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let insts = stdout
        .lines()
        .filter(|l| {
            let l = l.trim();
            !l.is_empty() && !l.starts_with('.') && !l.starts_with('#')
        })
        .count();
    if !out.status.success() || stderr.contains("invalid") || insts * 4 != text.len() {
        return Err(format!(
            "llvm-mc decoded {insts} instructions of {} words:\n{stderr}{stdout}",
            text.len() / 4
        ));
    }
    Ok(())
}

/// `calloc(n, size)` for the emulator: a bump allocator over its
/// zero-filled heap, the next free address kept in the heap's first word
/// (0 before the first call). It uses only registers a call may change.
fn calloc() -> Vec<Inst> {
    use isa::riscv::{LoadOp, RegOp, StoreOp};
    let (t0, t1, t2, t3) = (
        Reg::T0,
        Reg::x(6).unwrap(),
        Reg::x(7).unwrap(),
        Reg::x(28).unwrap(),
    );
    let imm = |op, rd, rs1, imm| Inst::OpImm { op, rd, rs1, imm };
    vec![
        Inst::Lui {
            rd: t0,
            imm20: (Machine::HEAP_BASE >> 12) as u32,
        },
        Inst::Load {
            op: LoadOp::Ld,
            rd: t1,
            rs1: t0,
            offset: 0,
        },
        Inst::Branch {
            cond: BCond::Ne,
            rs1: t1,
            rs2: Reg::ZERO,
            offset: 8,
        },
        imm(ImmOp::Addi, t1, t0, 16),
        Inst::Op {
            op: RegOp::Mul,
            rd: t2,
            rs1: Reg::A0,
            rs2: Reg::A1,
        },
        imm(ImmOp::Addi, t2, t2, 15),
        imm(ImmOp::Andi, t2, t2, -16),
        Inst::Op {
            op: RegOp::Add,
            rd: t3,
            rs1: t1,
            rs2: t2,
        },
        Inst::Store {
            op: StoreOp::Sd,
            rs2: t3,
            rs1: t0,
            offset: 0,
        },
        imm(ImmOp::Addi, Reg::A0, t1, 0),
        Inst::Jalr {
            rd: Reg::ZERO,
            rs1: Reg::RA,
            offset: 0,
        },
    ]
}

/// The program's code image for the emulator, linked in the test: its
/// `.text`, then `calloc`, then `.rodata`, each relocation patched (the
/// low half of a PC-relative pair with its high half, through which
/// `isa::riscv::patch` fills both).
fn link(p: &Program) -> Result<Vec<u8>, String> {
    let mut image = p.text.clone();
    let calloc_at = image.len();
    for i in calloc() {
        i.encode(&mut image).map_err(|e| e.to_string())?;
    }
    image.resize(image.len().next_multiple_of(16), 0);
    let rodata_at = image.len();
    image.extend_from_slice(&p.rodata);
    for r in &p.relocs {
        let fixup = Fixup {
            offset: r.offset as usize,
            kind: r.kind,
            addend: 0,
        };
        let to = match (&r.target, r.kind) {
            (RelocTarget::Rodata(off), FixupKind::RiscvPcrelHi20) => rodata_at + *off as usize,
            (RelocTarget::External(name), FixupKind::RiscvCall) if name == "calloc" => calloc_at,
            (RelocTarget::PcrelHi(_), FixupKind::RiscvPcrelLo12I) => continue,
            (t, k) => return Err(format!("no linking {k:?} to {t:?}")),
        };
        riscv::patch(&mut image, &fixup, to).map_err(|e| e.to_string())?;
    }
    Ok(image)
}

/// What one program gave.
#[derive(Default)]
struct Tally {
    programs: usize,
    decoded: usize,
    runs: usize,
    /// Programs with relocations, linked by [`link`].
    relocated: usize,
    failures: Vec<String>,
}

fn check(t: &mut Tally, src: &str, args: &[i64]) {
    t.programs += 1;
    let code = match compile(src) {
        Ok(c) => c,
        Err(e) => {
            t.failures.push(format!("{src}\n  compile: {e}"));
            return;
        }
    };
    let Some(enc) = code.encoded.as_ref() else {
        t.failures.push(format!("{src}\n  nothing encoded"));
        return;
    };
    let p = &enc.program;
    match llvm_decodes(&p.text) {
        Ok(()) => t.decoded += 1,
        Err(e) => t.failures.push(format!("{src}\n  {e}\n{}", code.asm())),
    }
    let image = match link(p) {
        Ok(image) => image,
        Err(e) => {
            t.failures.push(format!("{src}\n  link: {e}"));
            return;
        }
    };
    if !p.relocs.is_empty() {
        t.relocated += 1;
    }
    let Some(main) = p.functions.iter().find(|f| f.name == "simple_main") else {
        t.failures.push(format!("{src}\n  no main"));
        return;
    };
    for &arg in args {
        let want = match expected(src, arg) {
            Ok(v) => v,
            Err(e) => {
                t.failures.push(format!("{src} ({arg})\n  {e}"));
                continue;
            }
        };
        let got = Machine::new(Isa::Riscv64, Abi::SystemV).and_then(|mut m| {
            let base = m.load_code(&image)?;
            m.call(base + main.offset, &[Arg::Int(arg)], STEPS)
        });
        t.runs += 1;
        match got {
            Ok(o) if o.int() == want => {}
            Ok(o) => t.failures.push(format!(
                "{src} ({arg})\n  gave {}, the evaluator {want}\n{}",
                o.int(),
                code.asm()
            )),
            Err(e) => t
                .failures
                .push(format!("{src} ({arg})\n  {e}\n{}", code.asm())),
        }
    }
}

fn report(t: Tally) {
    eprintln!(
        "{} programs, {} decoded by LLVM, {} runs compared, {} linked here",
        t.programs, t.decoded, t.runs, t.relocated
    );
    assert!(
        t.failures.is_empty(),
        "{} failures:\n{}",
        t.failures.len(),
        t.failures.join("\n\n")
    );
}

const ARGS: &[i64] = &[0, 1, 2, 3, 7, -1, -5, 100, i64::MAX, i64::MIN];
const SMALL: &[i64] = &[0, 1, 2, 5, 10, 17];

#[test]
fn arithmetic_and_constants() {
    let mut t = Tally::default();
    for src in [
        "return arg;",
        "return arg + 1;",
        "return arg * 3 - 7;",
        "return -arg;",
        "return arg - 2048;",
        "return arg + 2047;",
        "return arg + 2048;",
        "return arg & 4095;",
        "return arg | 1024;",
        "return arg ^ -1;",
        "return arg * 1234567890123;",
        "return arg + 2147481600;",
        "return arg + 2147483647;",
        "return arg - 2147483648;",
        "return arg ^ 81985529216486895;",
        "return arg * -9223372036854775807;",
        "return arg * arg - (arg + 1) * (arg - 1);",
        "int a = arg * 5; int b = a + arg; int c = b ^ a; return (a & c) | (b - c);",
    ] {
        check(&mut t, src, ARGS);
    }
    report(t);
}

#[test]
fn division() {
    let mut t = Tally::default();
    for src in [
        "return 100 / arg;",
        "return arg / 7;",
        "return arg / -1;",
        "return arg / (arg - 1);",
        "int x = -9223372036854775807 - 1; return x / arg;",
        "int x = -9223372036854775807 - 1; return x / (arg - 2);",
        "return (arg * 13) / (arg & 3);",
    ] {
        check(&mut t, src, ARGS);
    }
    report(t);
}

#[test]
fn shifts() {
    let mut t = Tally::default();
    for src in [
        "return arg << 3;",
        "return arg << 65;",
        "return arg >> 70;",
        "return arg >>> 127;",
        "return 1 << arg;",
        "return -8 >> arg;",
        "return -8 >>> arg;",
        "return arg << (arg + 60);",
        "return (arg << 56) >> 56;",
        "return (arg << 48) >>> 48;",
        "return (arg << 32) >> 32;",
        "return arg & 255;",
        "return arg & 65535;",
        "return arg & 4294967295;",
    ] {
        check(
            &mut t,
            src,
            &[0, 1, 3, 63, 64, 65, 70, 127, 128, -1, -64, 255, 256],
        );
    }
    report(t);
}

#[test]
fn comparisons() {
    let mut t = Tally::default();
    for src in [
        "return arg < 3;",
        "return arg <= 3;",
        "return arg == 3;",
        "return arg != 3;",
        "return arg > 3;",
        "return arg >= 3;",
        "return arg < 5000;",
        "return arg == 5000;",
        "return arg >= -5000;",
        "return arg == 0;",
        "return arg != 0;",
        "return !arg;",
        "int b = arg * 3; return (arg < b) + (arg <= b)*2 + (arg == b)*4 + (arg != b)*8 + (arg > b)*16 + (arg >= b)*32;",
        "if (arg < 0) return 1; return 2;",
        "if (arg <= 7) return 1; return 2;",
        "if (arg > 7) return 1; return 2;",
        "if (arg >= 7) return 1; return 2;",
        "if (arg == 7) return 1; return 2;",
        "if (arg != 7) return 1; return 2;",
        "if (0 < arg) return 1; return 2;",
        "if (arg) return 1; return 2;",
        "int b = arg * arg; if (b > arg) return 1; return 2;",
        "int b = arg * arg; if (b <= arg) return 1; return 2;",
    ] {
        check(&mut t, src, &[0, 1, 2, 3, 4, 7, 8, -1, -3, 5000, -5000, i64::MIN, i64::MAX]);
    }
    report(t);
}

#[test]
fn control_flow() {
    let mut t = Tally::default();
    for src in [
        "int s = 0; int i = 0; while (i < arg) { s = s + i * i; i = i + 1; } return s;",
        "int s = 1; int i = 0; while (i < arg) { if (i & 1) s = s * 3; else s = s + 7; i = i + 1; } return s;",
        "int a = 0; int b = 1; int i = 0; while (i < arg) { int c = a + b; a = b; b = c; i = i + 1; } return a;",
        "if (arg < 3) { if (arg < 1) return 10; else return 11; } else { if (arg > 9) return 12; } return 13;",
        "int x = arg; if (x > 5) x = x - 5; else if (x > 2) x = x * 2; else x = 0 - x; return x;",
        "int s = 0; int i = 0; while (i < arg) { int j = 0; while (j < i) { s = s + (i ^ j); j = j + 1; } i = i + 1; } return s;",
        "int s = 0; int i = 0; while (1) { i = i + 1; if (i > arg) break; if (i & 1) continue; s = s + i; } return s;",
    ] {
        check(&mut t, src, SMALL);
    }
    report(t);
}

#[test]
fn calls() {
    let mut t = Tally::default();
    for src in [
        "val fib = { int n -> n < 2 ? n : fib(n-1) + fib(n-2); }; return fib(arg);",
        "val fact = { int x -> x <= 1 ? 1 : x*fact(x-1); }; return fact(arg);",
        "val sq = { int x -> x * x; }; return sq(arg) + sq(arg + 1);",
        "val f = { int a, int b, int c, int d, int e, int g, int h, int i, int j, int k -> \
           a - b*2 + c*3 - d*4 + e*5 - g*6 + h*7 - i*8 + j*9 - k*10; }; \
         return f(arg, arg+1, arg+2, arg+3, arg+4, arg+5, arg+6, arg+7, arg+8, arg+9);",
        "val f = { int a, int b, int c, int d, int e, int g, int h, int i, int j, int k -> \
           k * 100 + j; }; \
         return f(arg, 1, 2, 3, 4, 5, 6, 7, arg * 2, arg * 3) + f(0, 0, 0, 0, 0, 0, 0, 0, 1, 1);",
        "val g = { int x -> x + 1; }; int a = arg * 3; int b = arg ^ 5; int c = g(arg); return a + b * c;",
        "val odd = { int n -> n == 0 ? 0 : 1 - odd(n - 1); }; return odd(arg);",
        // Through a function pointer: its address, an indirect call.
        "var fcn = arg & 1 ? { int x -> x*x; } : { int x -> x+x; }; return fcn(arg) + fcn(3);",
        "val a = { int x -> x + 1; }; val b = { int x -> x * 7; }; \
         var f = a; if (arg > 3) f = b; int s = 0; int i = 0; \
         while (i < arg) { s = s + f(i); i = i + 1; } return s;",
    ] {
        check(&mut t, src, SMALL);
    }
    report(t);
}

/// Values live across a call: spilled, hundreds of them (a frame beyond
/// the 2 KiB a 12-bit displacement reaches).
#[test]
fn large_frames() {
    let mut t = Tally::default();
    for count in [20, 300] {
        let mut src = String::from("val g = { int x -> x + 1; };\n");
        for k in 0..count {
            writeln!(src, "int v{k} = (arg ^ {k}) * (arg + {});", k + 1).unwrap();
        }
        src.push_str("int r = g(arg);\nreturn r");
        for k in 0..count {
            write!(src, " + v{k} * {}", k % 7 + 1).unwrap();
        }
        src.push(';');
        check(&mut t, &src, &[0, 1, 5, -3]);
    }
    report(t);
}

/// A loop body beyond the 4 KiB a B-type branch reaches (the layout
/// makes its back edge a `jal`; [`branch_forms`] runs every long form).
#[test]
fn long_branches() {
    let mut t = Tally::default();
    for count in [10, 600] {
        let mut src = String::from("int s = 1; int i = 0; while (i < arg) {\n");
        for k in 0..count {
            writeln!(src, "s = s * {} + (i ^ {k});", k % 5 + 2).unwrap();
        }
        src.push_str("i = i + 1; }\nreturn s;");
        check(&mut t, &src, &[0, 1, 3]);
    }
    report(t);
}

#[test]
fn narrow_types() {
    let mut t = Tally::default();
    for src in [
        "i8 x = arg; return x;",
        "u8 x = arg; return x;",
        "i16 x = arg; return x;",
        "u16 x = arg; return x;",
        "i32 x = arg; return x;",
        "u32 x = arg; return x;",
        "u8 x = arg; x = x + 200; return x;",
        "i8 x = arg; x = x * 3; return x + 1;",
        "i32 x = arg * 65537; return x;",
    ] {
        check(
            &mut t,
            src,
            &[0, 1, -1, 127, 128, 255, 256, 32767, 65535, -129, 2147483648],
        );
    }
    report(t);
}

#[test]
fn floats_without_constants() {
    let mut t = Tally::default();
    for src in [
        "flt x = arg; flt y = x * x - x; return (y < x) + (y == x)*2 + (y != x)*4 + (y >= x)*8 + (y > x)*16 + (y <= x)*32;",
        "flt x = arg; flt z = x - x; flt n = z / z; return (n == n) + (n != n)*2 + (n < n)*4 + (n <= n)*8 + (n > n)*16 + (n >= n)*32;",
        "flt x = arg; if (x < 0.0) return 1; return 2;",
        "flt x = arg; flt y = -x; if (y > x) return 1; return 2;",
        "flt x = arg; flt y = x / (x - x); if (y != y) return 1; if (y == y) return 2; return 3;",
        "flt x = arg; if (x) return 1; return 2;",
    ] {
        check(&mut t, src, &[0, 1, -1, 3, 1000]);
    }
    report(t);
}

/// Programs that need a linker: `calloc`, constants in `.rodata`.
#[test]
fn relocated_programs() {
    let mut t = Tally::default();
    for src in [
        "struct S { int a; int b; }; S !s = new S; s.a = arg; s.b = arg * 2; return s.a + s.b;",
        "int[] !a = new int[(arg & 15) + 1]; a[0] = 5; a[arg & 15] = a[0] + 1; return a[arg & 15] + a#;",
        "flt x = arg; flt y = x * 0.5 + 1.25; return y < 3.0;",
        "val f = { flt x -> x * 2.5; }; flt z = arg; flt y = f(z); return y > 10.0;",
        "flt x = arg; flt y = x * 0.1; flt z = y * 10.0; return (z == x) + (y < 0.25) * 2;",
        "flt g = arg; if (arg < 1) return 0; while (1) { flt n = (arg / g + g) / 2; \
         if (n == g) break; g = n; } return g * 1000 < arg * 1000 + 1;",
        "flt s = 0; int i = 1; while (i <= arg) { s = s + 1.0 / i; i = i + 1; } return s > 2.5;",
        "struct P { flt x; f32 y; }; P !p = new P; p.x = arg; p.y = 1.5; return p.x + p.y > 3.0;",
        "struct P { int x; int y; }; P !p = new P; P !q = new P; p.x = arg; q.y = p.x * 3; \
         q.x = q.y - 1; return p.x + q.x * 10 + q.y * 100;",
        "int[] !a = new int[16]; int i = 0; while (i < 16) { a[i] = i * arg; i = i + 1; } \
         int s = 0; i = 0; while (i < 16) { s = s + a[i] * a[15 - i]; i = i + 1; } return s;",
        "u8[] !b = new u8[8]; b[0] = arg; b[1] = b[0] + 200; i16[] !h = new i16[2]; h[0] = arg * 1000; \
         return b[0] + b[1] * 1000 + h[0] * 1000000;",
        "struct N { int v; N? next; }; N? l = null; int i = 0; while (i < arg) { N !n = new N; \
         n.v = i; n.next = l; l = n; i = i + 1; } int s = 0; while (l) { s = s * 3 + l.v; l = l.next; } return s;",
    ] {
        check(&mut t, src, &[0, 1, 4, 7, -3, 300]);
    }
    report(t);
}

/// A 32-bit float rounded from a double. The allocator once gave the
/// rounding's result an integer register (`in_mask` took an operand's
/// bank from its ideal type, and selection types the rounding `Bottom`);
/// it now takes a machine node's own type.
#[test]
fn f32_rounding() {
    let mut t = Tally::default();
    check(
        &mut t,
        "f32 x = arg; flt y = x; return y == arg;",
        &[0, 1, -1, 16777217],
    );
    report(t);
}

/// Each branch form, run: taken to a mark `disp` bytes away (`a0 = 42`),
/// or not taken (`a0 = 7`), in a 1 MiB image whose other words are no
/// instructions; and where the short forms stop reaching.
#[test]
fn branch_forms() {
    const SIZE: usize = 1 << 20;
    const AT: i64 = 1 << 19;
    let a0 = Reg::A0;
    let a1 = Reg::A1;
    let ret = Inst::Jalr {
        rd: Reg::ZERO,
        rs1: Reg::RA,
        offset: 0,
    };
    let set = |v: i32| Inst::OpImm {
        op: ImmOp::Addi,
        rd: a0,
        rs1: Reg::ZERO,
        imm: v,
    };
    let put = |image: &mut Vec<u8>, at: i64, insts: &[Inst]| {
        let mut at = at as usize;
        for i in insts {
            let mut w = Vec::new();
            i.encode(&mut w).unwrap();
            image[at..at + 4].copy_from_slice(&w);
            at += 4;
        }
    };
    let lt = Cond::Riscv(BCond::Lt, a0, a1);
    let mut runs = 0;
    for (cond, long) in [
        (Cond::Always, false),
        (Cond::Always, true),
        (lt, false),
        (lt, true),
    ] {
        for disp in [16i64, 24, -16, 4092, -4096, 8192, -8192, 400_000, -400_000] {
            let Some(insts) = branch(cond, disp, long) else {
                assert!(
                    !long && disp.abs() > 4096 && cond != Cond::Always,
                    "{cond:?} long {long}: no form for {disp}"
                );
                continue;
            };
            let insts: Vec<Inst> = insts
                .into_iter()
                .map(|i| match i {
                    AnyInst::Riscv(i) => i,
                    other => panic!("{other:?} is no RISC-V instruction"),
                })
                .collect();
            // The mark must not fall on the branch or what follows it.
            let end = 4 * insts.len() as i64 + 8;
            if (0..end).contains(&disp) {
                continue;
            }
            let mut image = vec![0u8; SIZE];
            put(&mut image, AT, &insts);
            put(&mut image, AT + 4 * insts.len() as i64, &[set(7), ret]);
            put(&mut image, AT + disp, &[set(42), ret]);
            for (x, y) in [(1, 2), (2, 1)] {
                let want = if cond == Cond::Always || x < y { 42 } else { 7 };
                let mut m = Machine::new(Isa::Riscv64, Abi::SystemV).unwrap();
                let base = m.load_code(&image).unwrap();
                let got = m
                    .call(base + AT as u64, &[Arg::Int(x), Arg::Int(y)], 100)
                    .unwrap_or_else(|e| panic!("{cond:?} long {long} disp {disp}: {e}"));
                assert_eq!(
                    got.int(),
                    want,
                    "{cond:?} long {long} disp {disp}: {insts:?}"
                );
                runs += 1;
            }
        }
    }
    eprintln!("{runs} branches run");
    // Reach: B-type ±4 KiB, jal ±1 MiB, the long forms ±2 GiB.
    assert!(branch(lt, 4094, false).is_some() && branch(lt, 4096, false).is_none());
    assert!(branch(lt, -4096, false).is_some() && branch(lt, -4098, false).is_none());
    let j = Cond::Always;
    assert!(branch(j, (1 << 20) - 2, false).is_some() && branch(j, 1 << 20, false).is_none());
    for c in [j, lt] {
        assert!(branch(c, 1 << 30, true).is_some() && branch(c, -(1 << 30), true).is_some());
        assert!(branch(c, 1 << 32, true).is_none());
    }
}
