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
//! Programs whose code needs a linker (a `new`, which calls `calloc`; a
//! float constant from `.rodata`) are only decoded, not run: the in-memory
//! linker is not part of this branch.

#![cfg(feature = "emulate")]

use chapter21::{CodeGen, Outcome, Value};
use isa::emu::{Abi, Arg, Machine};
use isa::Isa;
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

/// Compiles `src`, checks its words with LLVM, and (if it needs no
/// linker) runs `main` on every argument of `args`, comparing with the
/// evaluator. `Err` says what went wrong.
fn check(src: &str, args: &[i64]) -> Result<usize, String> {
    let code = compile(src)?;
    let encoded = code.encoded.as_ref().ok_or("no encoding")?;
    let p = &encoded.program;
    llvm_decodes(&p.text)?;
    if !p.relocs.is_empty() {
        return Ok(0);
    }
    let main = p
        .functions
        .iter()
        .find(|f| f.name == "main")
        .ok_or("no main")?;
    let mut machine = Machine::new(Isa::Aarch64, Abi::SystemV).map_err(|e| e.to_string())?;
    let base = machine.load_code(&p.text).map_err(|e| e.to_string())?;
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
            Value::Float(f) => got.f64().to_bits() == f.to_bits(),
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
