//! Chapter 21 on AArch64: programs compiled to machine code and run.
//!
//! Each program goes through every phase down to `encode`, and its text
//! is checked twice:
//!
//! - LLVM decodes every word of it (`llvm-mc --disassemble`): no word is
//!   an invalid instruction;
//! - unicorn runs its `main` with several arguments, and each result must
//!   be the evaluator's for the same source and argument.
//!
//! Code that needs a linker (a `new` calls `calloc`; a float constant may
//! come from `.rodata`) is linked here in the simplest way: the image is
//! the text, a `calloc` of our own (a bump allocator over the emulator's
//! zero-filled heap, which never gives memory back, so that it is always
//! zeros), then `.rodata`; each relocation is patched by the `isa` crate.

#![cfg(feature = "emulate")]

use chapter21::encode::{Program, RelocTarget};
use chapter21::{CodeGen, Outcome, Value};
use isa::arm64::{self, AddSub, Inst, LdSt, Logic, Reg, Size};
use isa::emu::{Abi, Arg, Machine};
use isa::{Fixup, Isa};
use std::fmt::Write as _;
use std::io::Write as _;
use std::process::{Command, Stdio};

/// The evaluator's budget of loop trips.
const LOOPS: usize = 100_000;
/// The emulator's budget of instructions.
const STEPS: u64 = 50_000_000;

/// Arguments every program is run with.
const ARGS: [i64; 12] = [0, 1, 2, 3, 7, 10, -1, -7, 63, 64, i64::MAX, i64::MIN];

/// `src` compiled for ARM down to its encoding.
fn compile(src: &str) -> Result<CodeGen, String> {
    let mut code = CodeGen::new(src);
    code.parse()
        .and_then(|c| c.opto())
        .and_then(|c| c.type_check())
        .and_then(|c| c.inst_select("arm", "SystemV"))
        .and_then(|c| c.legalize())
        .and_then(|c| c.gcm())
        .and_then(|c| c.local_sched())
        .and_then(|c| c.reg_alloc())
        .and_then(|c| c.encode())
        .map_err(|e| format!("{e:?}"))?;
    Ok(code)
}

/// What the evaluator says `src` returns for `arg`.
fn evaluate(src: &str, arg: i64) -> Result<Outcome, String> {
    let mut code = CodeGen::new(src);
    code.parse()
        .and_then(|c| c.opto())
        .and_then(|c| c.type_check())
        .map_err(|e| format!("{e:?}"))?;
    Ok(code.eval(arg, LOOPS))
}

/// Every 4-byte word of `text` decoded by LLVM; `Err` lists what was not.
fn llvm_decodes(text: &[u8]) -> Result<(), String> {
    let mut hex = String::new();
    for b in text {
        write!(hex, "{b:#04x} ").unwrap();
    }
    let mut child = Command::new("llvm-mc")
        .args(["--disassemble", "-triple=aarch64"])
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
    let decoded = stdout
        .lines()
        .filter(|l| {
            let t = l.trim();
            !t.is_empty() && !t.starts_with('.')
        })
        .count();
    if !out.status.success() || stderr.contains("invalid") || decoded != text.len() / 4 {
        return Err(format!(
            "llvm-mc decoded {decoded} of {} words:\n{stderr}",
            text.len() / 4
        ));
    }
    Ok(())
}

/// `calloc(n, size)`: the heap's first word counts the bytes given out;
/// blocks follow it, 16-byte aligned.
fn calloc() -> Result<Vec<u8>, String> {
    let r = |n| Reg::x(n).ok_or("no register");
    let (x0, x1, x16, x17) = (r(0)?, r(1)?, r(16)?, r(17)?);
    let mut insts = vec![
        Inst::MulAdd {
            sub: false,
            size: Size::S64,
            rd: x0,
            rn: x0,
            rm: x1,
            ra: Reg::XZR,
        },
        arm64::add_imm(Size::S64, x0, x0, 15).map_err(|e| e.to_string())?,
        Inst::LogicRI {
            op: Logic::And,
            size: Size::S64,
            rd: x0,
            rn: x0,
            imm: !15,
        },
    ];
    insts.extend(arm64::load_const(x16, Machine::HEAP_BASE));
    insts.extend([
        Inst::Mem {
            op: LdSt::LdrX,
            rt: x17,
            rn: x16,
            offset: 0,
        },
        arm64::add_imm(Size::S64, x1, x17, 16).map_err(|e| e.to_string())?,
        Inst::AluRR {
            op: AddSub::Add,
            flags: false,
            size: Size::S64,
            rd: x17,
            rn: x17,
            rm: x0,
        },
        Inst::Mem {
            op: LdSt::StrX,
            rt: x17,
            rn: x16,
            offset: 0,
        },
        Inst::AluRR {
            op: AddSub::Add,
            flags: false,
            size: Size::S64,
            rd: x0,
            rn: x16,
            rm: x1,
        },
        Inst::Ret { rn: Reg::LR },
    ]);
    let mut code = Vec::new();
    for i in insts {
        i.encode(&mut code).map_err(|e| e.to_string())?;
    }
    Ok(code)
}

/// The image of `p`, loaded at a 4 KiB-aligned address: text, our
/// `calloc`, `.rodata`, with every relocation applied.
fn link(p: &Program) -> Result<Vec<u8>, String> {
    let mut image = p.text.clone();
    image.resize(image.len().next_multiple_of(16), 0);
    let calloc_at = image.len();
    image.extend(calloc()?);
    image.resize(image.len().next_multiple_of(16), 0);
    let rodata_at = image.len();
    image.extend_from_slice(&p.rodata);
    for r in &p.relocs {
        let target = match &r.target {
            RelocTarget::External(name) if name == "calloc" => calloc_at,
            RelocTarget::Rodata(off) => rodata_at + *off as usize,
            t => return Err(format!("no such symbol: {t:?}")),
        };
        let fixup = Fixup {
            offset: r.offset as usize,
            kind: r.kind,
            addend: r.addend,
        };
        arm64::patch(&mut image, &fixup, target).map_err(|e| e.to_string())?;
    }
    Ok(image)
}

/// Compiles `src`, checks its words with LLVM, links it, and runs `main`
/// on every argument of `args`, comparing with the evaluator. `Err` says
/// what went wrong.
fn check(src: &str, args: &[i64]) -> Result<usize, String> {
    let code = compile(src)?;
    let encoded = code.encoded.as_ref().ok_or("no encoding")?;
    let p = &encoded.program;
    llvm_decodes(&p.text)?;
    if std::env::var_os("LISTING").is_some() {
        eprintln!("{src}\n{}", code.asm());
        for (f, lines) in p.functions.iter().zip(&encoded.lines) {
            eprintln!("{}:", f.name);
            for l in lines {
                eprintln!("  {:6x}  {}", l.offset, l.inst);
            }
        }
    }
    let image = link(p)?;
    let main = p
        .functions
        .iter()
        .find(|f| f.name == "simple_main")
        .ok_or("no main")?;
    let mut machine = Machine::new(Isa::Aarch64, Abi::SystemV).map_err(|e| e.to_string())?;
    let base = machine.load_code(&image).map_err(|e| e.to_string())?;
    let mut runs = 0;
    for &arg in args {
        let expected = evaluate(src, arg)?;
        let expected = match expected {
            Outcome::Value(v) => v,
            // Only what returns is compared.
            _ => continue,
        };
        let got = machine
            .call(base + main.offset, &[Arg::Int(arg)], STEPS)
            .map_err(|e| format!("arg {arg}: {e}\n{}", code.asm()))?;
        let ok = match &expected {
            Value::Int(v) => got.int() == *v,
            // NaN is NaN, whatever its sign and payload.
            Value::Float(f) => {
                got.f64().to_bits() == f.to_bits() || f.is_nan() && got.f64().is_nan()
            }
            Value::Null => got.int() == 0,
            _ => true,
        };
        if !ok {
            return Err(format!(
                "arg {arg}: expected {expected}, got {} ({:#x}, float {})\n{}",
                got.int(),
                got.int,
                got.f64(),
                code.asm()
            ));
        }
        runs += 1;
    }
    Ok(runs)
}

/// Runs every program of `cases` and fails with all the failures.
#[track_caller]
fn check_all(cases: &[&str]) {
    let mut failures = Vec::new();
    let mut runs = 0;
    for src in cases {
        match check(src, &ARGS) {
            Ok(n) => runs += n,
            Err(e) => failures.push(format!("{src}\n  {e}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} programs failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n\n")
    );
    eprintln!("{} programs, {runs} runs", cases.len());
}

#[test]
fn arithmetic() {
    check_all(&[
        "return arg;",
        "return 0;",
        "return 1;",
        "return -1;",
        "return 4095;",
        "return 65536;",
        "return 305419896;",
        "return 1311768467463790320;",
        "return -1311768467463790320;",
        "return 9223372036854775807;",
        "return arg + 1;",
        "return arg - 1;",
        "return arg + 4095;",
        "return arg - 4096;",
        "return arg + 16777216;",
        "return arg * 3;",
        "return arg * 8;",
        "return arg * 1000 + 7;",
        "return arg * arg - arg;",
        "return -arg;",
        "return arg & 255;",
        "return arg & 4660;",
        "return arg | 2;",
        "return arg ^ -1;",
        "return arg ^ 21845;",
        "return (arg + 3) * (arg - 5) / 7;",
        "int a = arg * 7; int b = a ^ arg; return (a & b) | (a + b);",
    ]);
}

#[test]
fn division() {
    check_all(&[
        "return arg / 3;",
        "return 100 / arg;",
        "return arg / arg;",
        "return -9223372036854775807 - 1 + arg;",
        "int d = arg - 1; return 77 / d;",
        "return (-9223372036854775807 - 1) / (arg - 2);",
        "return arg / -1;",
        "return arg - arg / 7 * 7;",
        "int d = arg + 0; return 1000 - 1000 / d * d;",
        "return arg / (arg - arg);",
    ]);
}

#[test]
fn shifts() {
    check_all(&[
        "return arg << 3;",
        "return arg >> 1;",
        "return arg >>> 1;",
        "return arg << 64;",
        "return arg << 65;",
        "return arg >> 70;",
        "return arg >>> 127;",
        "return 1 << arg;",
        "return -1 >> arg;",
        "return -1 >>> arg;",
        "return 12345 << (arg + 64);",
        "return (arg << 32) >> 32;",
        "return (arg << 48) >>> 48;",
        "return (arg << 32) >>> 32;",
        "return (arg << 56) >>> 56;",
        "return (arg << 48) >> 48;",
        "return (arg << 56) >> 56;",
    ]);
}

#[test]
fn narrow_types() {
    check_all(&[
        "i8 b = arg; return b;",
        "u8 b = arg; return b;",
        "i16 b = arg; return b;",
        "u16 b = arg; return b;",
        "i32 b = arg; return b;",
        "u32 b = arg; return b;",
        "i8 b = arg; b = b + 100; return b;",
        "u8 b = arg * 3; return b + 1;",
        "u1 b = arg; return b;",
    ]);
}

#[test]
fn comparisons() {
    check_all(&[
        "return arg == 3;",
        "return arg != 3;",
        "return arg < 3;",
        "return arg <= 3;",
        "return arg > 3;",
        "return arg >= 3;",
        "return arg < -3;",
        "return arg == 0;",
        "return arg < 74565;",
        "return arg > -4096;",
        "return arg < arg * 2;",
        "return !arg;",
        "return (arg < 5) + (arg > 1) * 2 + (arg == 7) * 4;",
        "if (arg < 0) return -1; if (arg > 0) return 1; return 0;",
    ]);
}

#[test]
fn control_flow() {
    check_all(&[
        "int x = 0; if (arg > 2) x = 5; else x = 9; return x + arg;",
        "int x = arg; if (x > 0) { if (x > 5) x = x * 2; else x = x - 1; } else { if (x < -5) x = 0; } return x;",
        "int s = 0; for (int i = 0; i < 100; i++) s = s + i; return s;",
        "int s = 0; for (int i = 0; i < (arg & 255); i++) s = s + i * arg; return s;",
        "int s = 1; int i = 0; while (i < (arg & 31)) { s = s * 3; i++; } return s;",
        "int a = 0; int b = 1; for (int i = 0; i < (arg & 63); i++) { int t = a + b; a = b; b = t; } return a;",
        "int n = arg & 1023; int c = 0; while (n > 1) { if (n & 1) n = 3 * n + 1; else n = n / 2; c++; } return c;",
        "int s = 0; for (int i = 0; i < 10; i++) { if (i == (arg & 15)) break; s = s + i; } return s;",
        "int s = 0; for (int i = 0; i < 10; i++) { if (i & 1) continue; s = s + i; } return s;",
    ]);
}

#[test]
fn calls() {
    check_all(&[
        "val sq = { int x -> x * x; }; return sq(arg) + sq(arg + 1);",
        "val fib = { int n -> n < 2 ? n : fib(n - 1) + fib(n - 2); }; return fib(arg & 15);",
        "val fact = { int x -> x <= 1 ? 1 : x * fact(x - 1); }; return fact(arg & 15);",
        "val add3 = { int a, int b, int c -> a * 100 + b * 10 + c; }; return add3(arg, 2, 3) + add3(1, arg, 7);",
        "val f8 = { int a, int b, int c, int d, int e, int f, int g, int h -> a + 2*b + 3*c + 4*d + 5*e + 6*f + 7*g + 8*h; }; return f8(arg, 1, 2, 3, 4, 5, 6, 7);",
        "val f9 = { int a, int b, int c, int d, int e, int f, int g, int h, int i -> a - b + c - d + e - f + g - h + i * 1000; }; return f9(1, 2, 3, 4, 5, 6, 7, 8, arg);",
        "val f10 = { int a, int b, int c, int d, int e, int f, int g, int h, int i, int j -> a + b + c + d + e + f + g + h + i * 100 + j * 10000; }; return f10(arg, 1, 2, 3, 4, 5, 6, 7, arg + 1, arg * 2);",
        "val g = { int a -> a + 1; }; val f = { int a, int b -> g(a) * g(b); }; return f(arg, arg + 2) + g(arg);",
        "val gcd = { int a, int b -> while (b != 0) { int t = a - a / b * b; a = b; b = t; } return a; }; return gcd(arg & 65535, 48);",
        "val sd = { int n -> n < 10 ? n : n - n / 10 * 10 + sd(n / 10); }; return sd(arg & 1048575);",
    ]);
}

#[test]
fn pressure() {
    // More live values than registers: spills and reloads.
    let mut src = String::new();
    for i in 0..40 {
        writeln!(src, "int v{i} = arg * {} + {i};", i + 2).unwrap();
    }
    src.push_str("val f = { int x -> x + 1; };\nint s = f(arg);\n");
    for i in 0..40 {
        writeln!(src, "s = s * 3 + v{i};").unwrap();
    }
    src.push_str("return s;");
    check_all(&[&src]);
}

#[test]
fn floats() {
    // Float arithmetic on values from the argument; constants only where
    // a few moves make them (no `.rodata`).
    check_all(&[
        "flt f = arg; return f * 2.0 + 1.0 < 10.0;",
        "flt f = arg; flt g = f / 4.0; return g == 0.5;",
        "flt f = arg; return f != f;",
        "flt f = arg; flt z = f - f; flt n = z / z; return (n < 1.0) + (n > 1.0) * 2 + (n == n) * 4 + (n != n) * 8 + (n <= 1.0) * 16 + (n >= 1.0) * 32;",
        "flt f = arg; flt z = f - f; flt n = z / z; if (n < 1.0) return 1; return 2;",
        "flt f = arg; flt z = f - f; flt n = z / z; if (n >= 1.0) return 1; return 2;",
        "flt f = arg; if (f < 3.0) return 1; return 2;",
        "flt f = arg; if (f >= 3.0) return 1; return 2;",
        "flt f = arg; return -f;",
        "flt f = arg; return f * f - 2.5;",
        "val h = { flt x, int n -> x * n; }; flt fa = arg; return h(fa, 3) + 1.5;",
    ]);
}

#[test]
fn float_constants() {
    // Constants that take more than two moves come from `.rodata`.
    check_all(&[
        "flt f = arg; return f * 0.1;",
        "flt f = arg; return f + 3.141592653589793 - 2.718281828459045;",
        "flt f = arg; return f < 0.3;",
        "flt f = arg; return f * 1.0e300 * 1.0e300 == f * 1.0e300 * 1.0e300;",
        "flt f = arg; return -0.0 - f;",
        "flt f = arg; flt g = 0.0; return f / g;",
        "flt f = arg; return (f + 0.5) * 4.0 - 0.00125;",
    ]);
}

#[test]
fn memory() {
    check_all(&[
        "int[] !a = new int[10]; for (int i = 0; i < 10; i++) a[i] = i * arg; int s = 0; for (int i = 0; i < 10; i++) s = s + a[i]; return s;",
        "u8[] !a = new u8[5]; for (int i = 0; i < 5; i++) a[i] = arg + i * 100; return a[0] + a[1] * 1000 + a[4] * 1000000;",
        "i8[] !a = new i8[5]; for (int i = 0; i < 5; i++) a[i] = arg + i * 100; return a[0] + a[1] * 1000 + a[4] * 1000000;",
        "i16[] !a = new i16[3]; a[0] = arg; a[1] = arg * 1000; a[2] = -arg; return a[0] + a[1] + a[2];",
        "u16[] !a = new u16[3]; a[0] = arg; a[1] = arg * 1000; a[2] = -arg; return a[0] + a[1] + a[2];",
        "i32[] !a = new i32[3]; a[0] = arg; a[1] = arg * 100000; a[2] = -arg; return a[0] + a[1] + a[2];",
        "u32[] !a = new u32[3]; a[0] = arg; a[1] = arg * 100000; a[2] = -arg; return a[0] + a[1] + a[2];",
        "flt[] !a = new flt[4]; for (int i = 0; i < 4; i++) a[i] = arg * i; flt s = 0; for (int i = 0; i < 4; i++) s = s + a[i]; return s;",
        "f32[] !a = new f32[4]; for (int i = 0; i < 4; i++) a[i] = arg * i; flt s = 0; for (int i = 0; i < 4; i++) s = s + a[i]; return s;",
        "struct S { int a; i8 b; u16 c; flt d; f32 e; }; S !s = new S; s.a = arg; s.b = arg; s.c = arg; s.d = arg; s.e = arg; return s.a + s.b + s.c + s.d + s.e;",
        "struct L { L? next; int v; }; L? l = null; for (int i = 0; i < (arg & 15); i++) { L !n = new L; n.next = l; n.v = i; l = n; } int s = 0; while (l) { s = s * 3 + l.v; l = l.next; } return s;",
        "int[] !a = new int[arg & 63]; return a#;",
        // Read back at an index only known at run time: no store is
        // forwarded to the load, so every load width runs.
        "i8[] !a = new i8[4]; for (int i = 0; i < 4; i++) a[i] = arg * 100 - i; return a[arg & 3];",
        "u8[] !a = new u8[4]; for (int i = 0; i < 4; i++) a[i] = arg * 100 - i; return a[arg & 3];",
        "i16[] !a = new i16[4]; for (int i = 0; i < 4; i++) a[i] = arg * 1000 - i; return a[arg & 3];",
        "u16[] !a = new u16[4]; for (int i = 0; i < 4; i++) a[i] = arg * 1000 - i; return a[arg & 3];",
        "i32[] !a = new i32[4]; for (int i = 0; i < 4; i++) a[i] = arg * 1000000 - i; return a[arg & 3];",
        "u32[] !a = new u32[4]; for (int i = 0; i < 4; i++) a[i] = arg * 1000000 - i; return a[arg & 3];",
        "f32[] !a = new f32[4]; for (int i = 0; i < 4; i++) a[i] = arg * 0.1 - i; return a[arg & 3];",
        "flt[] !a = new flt[4]; for (int i = 0; i < 4; i++) a[i] = arg * 0.1 - i; return a[arg & 3];",
        "struct P { i8 a; i16 b; i32 c; u8 d; u16 e; u32 f; f32 g; }; P?[] !ps = new P?[2]; for (int i = 0; i < 2; i++) { P !p = new P; p.a = arg - i; p.b = arg * 300 - i; p.c = arg * 70000 - i; p.d = arg - i; p.e = arg * 300 - i; p.f = arg * 70000 - i; p.g = arg * 0.3 - i; ps[i] = p; } P? q = ps[arg & 1]; if (!q) return -1; return q.a + q.b * 3 + q.c * 5 + q.d * 7 + q.e * 11 + q.f * 13 + (q.g < 1.0) * 17;",
        "int[] !a = new int[600]; for (int i = 0; i < 600; i++) a[i] = i; return a[599] + a[arg & 511];",
    ]);
}

#[test]
fn function_values() {
    check_all(&[
        "val inc = { int x -> x + 1; }; val dbl = { int x -> x * 2; }; val f = arg > 2 ? inc : dbl; return f(arg) + f(5);",
        "val a = { int x -> x - 1; }; val b = { int x -> x * x; }; val c = { int x -> -x; }; int s = 0; for (int i = 0; i < 3; i++) { val f = i == 0 ? a : (i == 1 ? b : c); s = s * 10 + f(arg); } return s;",
    ]);
}

#[test]
fn stack_arguments() {
    // Recursion keeps the calls (a function called once is inlined), so
    // arguments past the eighth really go on the stack.
    check_all(&[
        // A leaf: its stack arguments right above the caller's frame,
        // under a stack pointer it does not move.
        // Called through a function value, which is never inlined.
        "val g = { int a, int b, int c, int d, int e, int f, int h, int i, int j, int k -> a - b + c - d + e - f + h - i + j * 100 + k * 10000; }; val g2 = { int a, int b, int c, int d, int e, int f, int h, int i, int j, int k -> a + k; }; val p = arg > 5 ? g2 : g; int s = 0; for (int t = 0; t < 3; t++) s = s + p(arg, t, 2, 3, 4, 5, 6, 7, arg * t, 9 - t); return s;",
        "val r = { int n, int a, int b, int c, int d, int e, int f, int g, int h, int i, int j -> n <= 0 ? a + 2*b + 3*c + 4*d + 5*e + 6*f + 7*g + 8*h + 9*i + 10*j : 1 + r(n - 1, b, c, d, e, f, g, h, i, j, a); }; return r(arg & 15, arg, 1, 2, 3, 4, 5, 6, 7, 8, 9);",
        "val r = { int n, flt a, int b, flt c, int d, flt e, int f, flt g, int h, flt i, int j, flt k, int l, flt m, int o, flt p, int q, flt s, int t -> n <= 0 ? b + 2*d + 3*f + 4*h + 5*j + 6*l + 7*o + 8*q + 9*t + (a < c) * 1000 + (e < g) * 2000 + (k < m) * 4000 + (p < s) * 8000 + (a == s) * 16000 + (i > 8.0) * 32000 : 1 + r(n - 1, s, t, a, b, c, d, e, f, g, h, i, j, k, l, m, o, p, q); }; flt x = arg; return r(arg & 7, x, 1, 2.5, 3, 4.5, 5, 6.5, 7, 8.5, 9, 10.5, 11, 12.5, 13, 14.5, 15, 16.5, 17);",
    ]);
}

/// `n` results of calls, each live across the calls after it: a frame of
/// about `8 * n` bytes.
fn big_frame(n: usize) -> String {
    let mut src = String::from("val f = { int x -> x <= 0 ? 0 : 1 + f(x - 1); };\n");
    for i in 0..n {
        writeln!(src, "int v{i} = f((arg & 3) + {});", i % 5).unwrap();
    }
    src.push_str("int s = 0;\n");
    for i in 0..n {
        writeln!(src, "s = s * 3 + v{i};").unwrap();
    }
    src.push_str("return s;");
    src
}

#[test]
fn big_frames() {
    // Past 4095 bytes `sub sp` takes two steps. (Slots past 32760 bytes,
    // out of a load's reach, are tested in `cpu::arm::encode`: a program
    // with that many takes minutes to allocate.)
    check_all(&[&big_frame(600)]);
}

#[test]
fn branch_forms() {
    use chapter21::cpu::arm::encode::branch;
    use chapter21::encode::{AnyInst, Cond};
    let lt = Cond::Arm(arm64::Cond::Lt);
    let words =
        |insts: Vec<AnyInst>| -> Vec<String> { insts.iter().map(|i| i.to_string()).collect() };
    // b.cond: +-1 MiB from the branch.
    assert!(branch(lt, 1_048_572, false).is_some());
    assert!(branch(lt, -1_048_576, false).is_some());
    assert!(branch(lt, 1_048_576, false).is_none());
    assert!(branch(lt, -1_048_580, false).is_none());
    // The long form: the inverted b.cond over a b, which counts from its
    // own address, 4 bytes on.
    assert_eq!(
        words(branch(lt, 1_048_576, true).unwrap()),
        ["b.ge #8", "b #1048572"]
    );
    assert_eq!(
        words(branch(lt, -134_217_724, true).unwrap()),
        ["b.ge #8", "b #-134217728"]
    );
    assert!(branch(lt, -134_217_728, true).is_none());
    assert!(branch(lt, 134_217_732, true).is_none());
    // b: +-128 MiB.
    assert_eq!(
        words(branch(Cond::Always, -134_217_728, false).unwrap()),
        ["b #-134217728"]
    );
    assert!(branch(Cond::Always, 134_217_728, false).is_none());
    assert!(branch(Cond::Always, 134_217_728, true).is_none());
    // Every form decodes.
    let mut text = Vec::new();
    for (c, d, long) in [
        (lt, 8, false),
        (lt, 1_048_576, true),
        (Cond::Always, -4, false),
    ] {
        for i in branch(c, d, long).unwrap() {
            let AnyInst::Arm(i) = i else {
                panic!("{i} is no AArch64 instruction")
            };
            i.encode(&mut text).unwrap();
        }
    }
    llvm_decodes(&text).unwrap();
}

/// A small deterministic generator (xorshift64*), so that a seed names a
/// program.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len())]
    }
}

/// A random program: integer variables of every width, a few doubles,
/// helper functions (one recursive, so that it stays a call), arithmetic
/// of every operator, comparisons, `if`/`else` and bounded loops. Its
/// result is an integer built from every variable.
struct Gen {
    rng: Rng,
    ints: Vec<String>,
    flts: Vec<String>,
    loops: usize,
    /// The functions an expression may call (a helper sees only those
    /// before it), and whether it may read `arg` (only `main` may).
    calls: usize,
    arg: bool,
    /// Arrays of 8 elements `main` may read and write.
    arrays: Vec<&'static str>,
}

impl Gen {
    fn constant(&mut self) -> String {
        let c = match self.rng.below(6) {
            0 => self.rng.below(8) as i64,
            1 => -(self.rng.below(300) as i64),
            2 => self.rng.below(70_000) as i64,
            3 => (self.rng.next() >> self.rng.below(64)) as i64,
            4 => 4096 * self.rng.below(5000) as i64,
            _ => self.rng.below(65) as i64,
        };
        // `-9223372036854775808` is not a literal: a negation of one.
        if c < 0 {
            format!("({c})")
        } else {
            c.to_string()
        }
    }

    fn leaf(&mut self) -> String {
        match self.rng.below(4) {
            0 if self.arg => "arg".into(),
            0 | 1 => self.constant(),
            _ => {
                let i = self.rng.below(self.ints.len());
                self.ints[i].clone()
            }
        }
    }

    fn int_expr(&mut self, depth: usize) -> String {
        if depth == 0 || self.rng.below(4) == 0 {
            return self.leaf();
        }
        let ops = [
            "+", "-", "*", "/", "&", "|", "^", "<<", ">>", ">>>", "==", "!=", "<", "<=", ">", ">=",
        ];
        match self.rng.below(12) {
            0 => format!("(-{})", self.int_expr(depth - 1)),
            1 if !self.flts.is_empty() => {
                let cmp = self.rng.pick(&["==", "!=", "<", "<=", ">", ">="]);
                format!(
                    "({} {cmp} {})",
                    self.flt_expr(depth - 1),
                    self.flt_expr(depth - 1)
                )
            }
            2 if self.calls > 0 => format!(
                "f({}, {})",
                self.int_expr(depth - 1),
                self.int_expr(depth - 1)
            ),
            5 if !self.arrays.is_empty() => {
                let a = self.arrays[self.rng.below(self.arrays.len())];
                format!("{a}[{} & 7]", self.int_expr(depth - 1))
            }
            // A narrowing, which selection makes one extension.
            4 => {
                let k = self.rng.pick(&["32", "48", "56"]);
                let sh = self.rng.pick(&[">>", ">>>"]);
                format!("(({} << {k}) {sh} {k})", self.int_expr(depth - 1))
            }
            3 if self.calls > 1 => {
                format!("r({}, {})", self.rng.below(6), self.int_expr(depth - 1))
            }
            _ => {
                let op = self.rng.pick(&ops);
                format!(
                    "({} {op} {})",
                    self.int_expr(depth - 1),
                    self.int_expr(depth - 1)
                )
            }
        }
    }

    fn flt_expr(&mut self, depth: usize) -> String {
        if depth == 0 || self.rng.below(3) == 0 {
            return match self.rng.below(3) {
                0 => self
                    .rng
                    .pick(&["0.5", "1.0", "-2.25", "0.1", "3.0e10", "0.0"])
                    .into(),
                _ => {
                    let i = self.rng.below(self.flts.len());
                    self.flts[i].clone()
                }
            };
        }
        match self.rng.below(5) {
            0 => format!("(-{})", self.flt_expr(depth - 1)),
            _ => {
                let op = self.rng.pick(&["+", "-", "*", "/"]);
                format!(
                    "({} {op} {})",
                    self.flt_expr(depth - 1),
                    self.flt_expr(depth - 1)
                )
            }
        }
    }

    fn stmts(&mut self, out: &mut String, n: usize, depth: usize) {
        for _ in 0..n {
            match self.rng.below(8) {
                0 if depth > 0 => {
                    let c = self.int_expr(2);
                    writeln!(out, "if ({c}) {{").unwrap();
                    self.stmts(out, 2, depth - 1);
                    out.push_str("} else {\n");
                    self.stmts(out, 2, depth - 1);
                    out.push_str("}\n");
                }
                1 if depth > 0 => {
                    let i = format!("i{}", self.loops);
                    self.loops += 1;
                    let trips = self.rng.below(6);
                    writeln!(out, "for (int {i} = 0; {i} < {trips}; {i}++) {{").unwrap();
                    self.stmts(out, 2, depth - 1);
                    out.push_str("}\n");
                }
                3 if !self.arrays.is_empty() => {
                    let a = self.arrays[self.rng.below(self.arrays.len())];
                    let (i, e) = (self.int_expr(2), self.int_expr(2));
                    writeln!(out, "{a}[{i} & 7] = {e};").unwrap();
                }
                2 if !self.flts.is_empty() => {
                    let k = self.rng.below(self.flts.len());
                    let e = self.flt_expr(2);
                    writeln!(out, "{} = {e};", self.flts[k]).unwrap();
                }
                _ => {
                    let k = self.rng.below(self.ints.len());
                    let e = self.int_expr(3);
                    writeln!(out, "{} = {e};", self.ints[k]).unwrap();
                }
            }
        }
    }
}

fn random_program(seed: u64) -> String {
    let mut g = Gen {
        rng: Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1),
        ints: Vec::new(),
        flts: Vec::new(),
        loops: 0,
        calls: 0,
        arg: false,
        arrays: Vec::new(),
    };
    let mut src = String::new();
    // The helpers read only their parameters.
    g.ints = vec!["a".into(), "b".into()];
    let body = g.int_expr(3);
    writeln!(src, "val f = {{ int a, int b -> {body}; }};").unwrap();
    g.ints = vec!["x".into(), "n".into()];
    g.calls = 1;
    let step = g.int_expr(2);
    writeln!(
        src,
        "val r = {{ int n, int x -> n <= 0 ? x : 1 + r(n - 1, {step}); }};"
    )
    .unwrap();
    g.ints = Vec::new();
    (g.calls, g.arg) = (2, true);
    let types = ["int", "i8", "u8", "i16", "u16", "i32", "u32", "bool"];
    for k in 0..4 + g.rng.below(6) {
        let ty = g.rng.pick(&types);
        let init = if g.ints.is_empty() {
            "arg".to_string()
        } else {
            g.int_expr(2)
        };
        writeln!(src, "{ty} v{k} = {init};").unwrap();
        g.ints.push(format!("v{k}"));
    }
    for (a, ty) in [("ma", "int"), ("mb", "u8"), ("mc", "i16")] {
        if g.rng.below(2) == 0 {
            writeln!(src, "{ty}[] !{a} = new {ty}[8];").unwrap();
            g.arrays.push(a);
        }
    }
    for k in 0..g.rng.below(3) {
        let init = g.int_expr(1);
        writeln!(src, "flt d{k} = {init};").unwrap();
        g.flts.push(format!("d{k}"));
    }
    let n = 4 + g.rng.below(6);
    g.stmts(&mut src, n, 2);
    let sum: Vec<String> = g
        .ints
        .iter()
        .enumerate()
        .map(|(k, v)| format!("{v} * {}", 2 * k + 1))
        .collect();
    writeln!(src, "return {};", sum.join(" + ")).unwrap();
    src
}

#[test]
fn random_programs() {
    let mut failures = Vec::new();
    let (mut compiled, mut runs) = (0, 0);
    for seed in 1..=300u64 {
        let src = random_program(seed);
        // A program the front end refuses is no test of the encoder.
        if let Err(e) = evaluate(&src, 0) {
            if std::env::var_os("REFUSED").is_some() {
                eprintln!("seed {seed}: {e}\n{src}");
            }
            continue;
        }
        compiled += 1;
        match check(&src, &ARGS[..6]) {
            Ok(n) => runs += n,
            Err(e) => failures.push(format!("seed {seed}:\n{src}\n  {e}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {compiled} programs failed:\n{}",
        failures.len(),
        failures[..failures.len().min(3)].join("\n\n")
    );
    eprintln!("{compiled} programs, {runs} runs");
    assert!(compiled >= 200, "only {compiled} programs compiled");
}
