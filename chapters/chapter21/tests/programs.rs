//! Whole Simple programs compiled to machine code and run, on all three
//! CPUs.
//!
//! Simple's chapter 21 programs (`tests/progs/*.smp`, plus the Brainfuck
//! interpreter of `brainfuck.rs` and the merge sort of `merge_sort.rs`) go
//! through every phase to an ELF object (System V), which is linked with a
//! C harness of ours (`tests/progs/*.c`) that calls the exported Simple
//! functions and prints what they return. x86-64 objects are linked by
//! `cc` and run natively; AArch64 and RISC-V ones by the cross `gcc`
//! (`-static`) and run under `qemu-user`. Each output is compared with
//! text computed here in Rust, independently of the compiler. With feature
//! `emulate`, each program also runs, from a driver top level that calls
//! it, under unicorn on every CPU, and must give what the evaluator gives.
//! Last come edge programs (division by zero, `MIN / -1`, shifts of 64 and
//! more, narrow types, NaN comparisons, deep recursion, many arguments)
//! whose machine code must agree with the evaluator: x86-64 natively,
//! the others emulated.

use chapter21::run;
use chapter21::{CodeGen, Outcome};
use isa::Isa;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Every CPU: its name for `inst_select` and its instruction set.
const CPUS: [(&str, Isa); 3] = [
    ("x86_64_v2", Isa::X86_64),
    ("arm", Isa::Aarch64),
    ("riscv", Isa::Riscv64),
];

/// Loop trips the evaluator may take: enough for every program here.
const LOOPS: usize = 10_000_000;

/// Instructions an emulated run may execute.
#[cfg(feature = "emulate")]
const STEPS: u64 = 200_000_000;

/// The CPU name `inst_select` takes for `isa`.
fn cpu_name(isa: Isa) -> &'static str {
    CPUS.iter().find(|c| c.1 == isa).unwrap().0
}

/// Every phase, from source to encoded machine code for `isa` (System V).
fn compile(src: &str, isa: Isa) -> Result<CodeGen, String> {
    let mut code = CodeGen::new(src);
    code.parse()
        .and_then(|c| c.opto())
        .and_then(|c| c.type_check())
        .and_then(|c| c.inst_select(cpu_name(isa), "SystemV"))
        .and_then(|c| c.legalize())
        .and_then(|c| c.gcm())
        .and_then(|c| c.local_sched())
        .and_then(|c| c.reg_alloc())
        .and_then(|c| c.encode())
        .map_err(|e| format!("{}: {e}", isa.name()))?;
    Ok(code)
}

/// What the evaluator returns for `src` run with `arg`, as it shows it.
fn evaluate(src: &str, arg: i64) -> String {
    let mut code = CodeGen::new(src);
    code.parse()
        .and_then(|c| c.opto())
        .and_then(|c| c.type_check())
        .unwrap_or_else(|e| panic!("{e}\n{src}"));
    match code.eval(arg, LOOPS) {
        Outcome::Value(v) => v.to_string(),
        other => panic!("the evaluator gave {other:?} for arg {arg}:\n{src}"),
    }
}

// ---------------------------------------------------------------------
// Linking with a C harness

/// The header every harness includes: Simple's array layouts.
const ARRAYS_H: &str = include_str!("progs/arrays.h");

/// A fresh directory under the system's temporary directory.
fn scratch(tag: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "simple-progs-{tag}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs a tool, failing with the package to install if it is missing.
fn tool(name: &str, package: &str, args: &[&Path]) -> std::process::Output {
    Command::new(name).args(args).output().unwrap_or_else(|e| {
        panic!("cannot run {name} ({e}): install it with `apt-get install {package}` (scripts/test.sh does)")
    })
}

/// Compiles `src` for `isa`, links its object with `harness` and runs the
/// result: what it printed.
fn link_and_run(src: &str, harness: &str, isa: Isa) -> String {
    let code = compile(src, isa).unwrap_or_else(|e| panic!("{e}"));
    let (gcc, package, qemu) = match isa {
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
    let (obj, main, exe) = (dir.join("prog.o"), dir.join("main.c"), dir.join("main"));
    std::fs::write(&obj, code.object().unwrap()).unwrap();
    std::fs::write(&main, harness).unwrap();
    std::fs::write(dir.join("arrays.h"), ARRAYS_H).unwrap();

    let mut args: Vec<&Path> = Vec::new();
    if qemu.is_some() {
        args.push(Path::new("-static"));
    }
    args.extend([Path::new("-o"), &exe, &main, &obj]);
    let out = tool(gcc, package, &args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{gcc} failed:\n{stderr}");
    assert_eq!(stderr, "", "{gcc} warned");

    let out = match qemu {
        Some(qemu) => tool(qemu, "qemu-user", &[&exe]),
        None => {
            assert_eq!(std::env::consts::ARCH, "x86_64", "x86-64 runs natively");
            tool(exe.to_str().unwrap(), "gcc", &[])
        }
    };
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{} exited with {}; it printed:\n{stdout}{}",
        isa.name(),
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
    stdout
}

// ---------------------------------------------------------------------
// The programs, and what their harnesses must print

/// The Brainfuck interpreter of `brainfuck.rs`, with its program stored
/// byte by byte, as the top level: it returns the output as a `u8[]`.
fn brainfuck_top() -> String {
    let program = "++++++++[>++++[>++>+++>+++>+<<<<-]>+>+>->>+[<]<-]>>.>---.+++++++..+++.>>.<-.<.+++.------.--------.>>+.>++.";
    let mut src = format!("u8[] !program = new u8[{}];", program.len());
    for (i, b) in program.bytes().enumerate() {
        src.push_str(&format!("program[{i}] = {b};"));
    }
    let interpreter = include_str!("progs/brain_fuck.smp");
    // The body of `brain_fuck` after its program: the same interpreter.
    let start = interpreter.find("int d = 0;").unwrap();
    let end = interpreter.rfind("};").unwrap();
    src.push('\n');
    src.push_str(&interpreter[start..end]);
    src
}

/// fib as the program computes it: fib(0) = fib(1) = 1.
fn fib(n: i64) -> i64 {
    let (mut a, mut b) = (1i64, 1i64);
    for _ in 1..n {
        (a, b) = (b, a.wrapping_add(b));
    }
    b
}

fn fib_expected() -> String {
    let mut s = String::new();
    let mut n = 0;
    while n <= 90 {
        s += &format!("fib({n}) = {}\n", fib(n));
        n += if n < 20 { 1 } else { 10 };
    }
    s
}

fn primes_below(n: usize) -> Vec<usize> {
    (2..n)
        .filter(|&p| (2..p).take_while(|d| d * d <= p).all(|d| p % d != 0))
        .collect()
}

fn sieve_expected() -> String {
    let small: Vec<String> = primes_below(100).iter().map(|p| p.to_string()).collect();
    let mut s = format!("below 100: {}\n", small.join(" "));
    for b in [2, 3, 10, 1000, 100000] {
        let p = primes_below(b);
        s += &format!(
            "below {b}: {} primes, largest {}\n",
            p.len(),
            p.last().unwrap_or(&0)
        );
    }
    s
}

fn sort_expected() -> String {
    let line = |what: &str, mut v: Vec<i64>| {
        v.sort();
        let v: Vec<String> = v.iter().map(|x| format!(" {x}")).collect();
        format!("{what}:{}\n", v.concat())
    };
    let scrambled: Vec<i64> = (0..20).map(|i| i * 7 % 20 - 5).collect();
    line("scrambled", scrambled.clone())
        + &line("sorted", scrambled)
        + &line(
            "duplicates",
            vec![3, -1, 3, 1 << 40, 0, -1, 7, -(1 << 40), 3],
        )
        + &line("one", vec![42])
        + &line("empty", vec![])
}

/// Three rounds of birthdays for everyone, and one more for person 1.
const PERSON_EXPECTED: &str = "person 0 is 13\nperson 1 is 24\nperson 2 is 2\n\
slot 0 taken\nslot 1 null\nslot 2 taken\nslot 3 null\nslot 4 taken\n";

/// The program's hash: 31-fold with wrapping, never 0.
fn string_hash(s: &str) -> i64 {
    let h = s
        .bytes()
        .fold(0i64, |h, b| h.wrapping_mul(31).wrapping_add(i64::from(b)));
    if h == 0 {
        123456789
    } else {
        h
    }
}

fn string_hash_expected() -> String {
    let strings = [
        "hello",
        "hello",
        "world",
        "",
        "The quick brown fox jumps over the lazy dog",
    ];
    let mut s = String::new();
    for (i, t) in strings.iter().enumerate() {
        let h = string_hash(t);
        s += &format!("hash {i} = {h} (cached {h}, again {h})\n");
    }
    s + "equals: 1 1 0 0\n"
}

/// Newton's iteration exactly as the program does it, in doubles.
fn newton(x: f64) -> f64 {
    let epsilon = 1e-15;
    let mut guess = x;
    for _ in 0..1000 {
        let next = (x / guess + guess) / 2.0;
        if guess - epsilon <= next && next <= guess + epsilon {
            return guess;
        }
        guess = next;
    }
    panic!("Newton does not settle for {x}: the harness must not ask for it");
}

fn newton_expected() -> String {
    let xs = [
        1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 0.25, 1e-4, 123456.789,
    ];
    xs.iter()
        .map(|&x| format!("{:016x}\n", newton(x).to_bits()))
        .collect()
}

fn merge_sort_top_expected() -> String {
    [0, 1, 2, 11, 100]
        .iter()
        .map(|&n| {
            let v: Vec<String> = (1..=n).map(|x| format!(" {x}")).collect();
            format!("{n}:{}\n", v.concat())
        })
        .collect()
}

/// One program with a harness: its source, its harness, and what the
/// harness must print.
struct Linked {
    src: String,
    harness: &'static str,
    expected: String,
}

fn linked(name: &str) -> Linked {
    let (src, harness, expected): (String, &str, String) = match name {
        "fib" => (
            include_str!("progs/fib.smp").into(),
            include_str!("progs/fib.c"),
            fib_expected(),
        ),
        "sieve" => (
            include_str!("progs/sieve.smp").into(),
            include_str!("progs/sieve.c"),
            sieve_expected(),
        ),
        "sort" => (
            include_str!("progs/sort.smp").into(),
            include_str!("progs/sort.c"),
            sort_expected(),
        ),
        "person" => (
            include_str!("progs/person.smp").into(),
            include_str!("progs/person.c"),
            PERSON_EXPECTED.into(),
        ),
        "string_hash" => (
            include_str!("progs/stringHash.smp").into(),
            include_str!("progs/stringHash.c"),
            string_hash_expected(),
        ),
        "newton_float" => (
            include_str!("progs/newtonFloat.smp").into(),
            include_str!("progs/newtonFloat.c"),
            newton_expected(),
        ),
        "loop2" => (
            include_str!("progs/loop2.smp").into(),
            include_str!("progs/loop2.c"),
            "2\n".into(),
        ),
        // 2^0 + ... + 2^19; then -(1 + ... + 10) + (1 - 2^-10), rounded.
        "arg_count" => (
            include_str!("progs/arg_count.smp").into(),
            include_str!("progs/arg_count.c"),
            "1048575.0\n-54.0010\n".into(),
        ),
        "brain_fuck" => (
            include_str!("progs/brain_fuck.smp").into(),
            include_str!("progs/brain_fuck.c"),
            "Hello World!\n(13 bytes)\n".into(),
        ),
        "brainfuck_top" => (
            brainfuck_top(),
            include_str!("progs/top_bytes.c"),
            "Hello World!\n".into(),
        ),
        "merge_sort_top" => (
            include_str!("progs/merge_sort.smp").into(),
            include_str!("progs/top_longs.c"),
            merge_sort_top_expected(),
        ),
        _ => unreachable!("no program {name}"),
    };
    Linked {
        src,
        harness,
        expected,
    }
}

#[track_caller]
fn check_linked(name: &str, isa: Isa) {
    let p = linked(name);
    let out = link_and_run(&p.src, p.harness, isa);
    pretty_assertions::assert_eq!(out, p.expected, "{name} on {}", isa.name());
}

/// One module per program, one test per CPU.
macro_rules! linked_tests {
    ($($name:ident)*) => {$(
        mod $name {
            use super::*;
            #[test]
            fn x86_64() {
                check_linked(stringify!($name), Isa::X86_64);
            }
            #[test]
            fn aarch64() {
                check_linked(stringify!($name), Isa::Aarch64);
            }
            #[test]
            fn riscv64() {
                check_linked(stringify!($name), Isa::Riscv64);
            }
        }
    )*};
}

linked_tests! {
    fib sieve sort person string_hash newton_float loop2 arg_count brain_fuck
    brainfuck_top merge_sort_top
}

// ---------------------------------------------------------------------
// Under the emulator: driver top levels, checked against the evaluator

/// A program with a top level that calls it and folds what it returns
/// into one integer (the emulator reads scalars only), and the arguments
/// to run it with.
#[cfg(feature = "emulate")]
fn driver(name: &str) -> (String, &'static [i64]) {
    // Folds array `r` (in scope) into `s`, its length included.
    const FOLD: &str = "int s = r#; for (int i = 0; i < r#; i++) s = s * 31 + r[i]; return s;";
    let with = |src: &str, top: &str| format!("{src}\n{top}\n");
    match name {
        "fib" => (
            with(include_str!("progs/fib.smp"), "return fib(arg);"),
            &[0, 1, 2, 10, 50, 90],
        ),
        "sieve" => (
            with(
                include_str!("progs/sieve.smp"),
                &format!("var r = sieve(arg); {FOLD}"),
            ),
            &[2, 3, 100, 10000],
        ),
        "sort" => (
            with(
                include_str!("progs/sort.smp"),
                &format!(
                    "int[] !r = new int[arg];
                     for (int i = 0; i < r#; i++) r[i] = ((i * 37 + 11) & 63) - 20;
                     merge_sort(r);
                     {FOLD}"
                ),
            ),
            &[0, 1, 5, 40],
        ),
        "person" => (
            with(
                include_str!("progs/person.smp"),
                "Person?[] !ps = new Person?[4];
                 Person !p = new Person;
                 Person !q = new Person;
                 q.age = arg;
                 ps[0] = p;
                 ps[3] = q;
                 for (int i = 0; i < 4; i++) fcn(ps, i);
                 fcn(ps, 3);
                 return p.age * 1000 + q.age;",
            ),
            &[0, 7, -5],
        ),
        "string_hash" => (
            with(
                include_str!("progs/stringHash.smp"),
                "u8[] !a = new u8[3];
                 a[0] = 104; a[1] = 105; a[2] = arg;
                 u8[] !b = new u8[3];
                 b[0] = 104; b[1] = 105; b[2] = 33;
                 String !s = new String { cs = a; };
                 String !t = new String { cs = b; };
                 int h = hashCode(s);
                 int e = equals(s, t);
                 return h * 4 + e * 2 + (s._hashCode == h);",
            ),
            &[33, 34, 0],
        ),
        "newton_float" => (
            with(
                include_str!("progs/newtonFloat.smp"),
                "return test_sqrt(arg * 0.5);",
            ),
            &[1, 2, 9, 1000],
        ),
        "loop2" => (include_str!("progs/loop2.smp").into(), &[0]),
        "arg_count" => (
            with(
                include_str!("progs/arg_count.smp"),
                "return addAll(arg, 0.5, 2, 0.25, 3, 0.125, 4, 0.0625, 5, 0.03125,
                               6, 0.015625, 7, 0.0078125, 8, 0.00390625, 9,
                               0.001953125, arg * 1000, 0.0009765625);",
            ),
            &[1, -3],
        ),
        "brain_fuck" => (
            with(
                include_str!("progs/brain_fuck.smp"),
                &format!("var r = brain_fuck(); {FOLD}"),
            ),
            &[0],
        ),
        "brainfuck_top" => (
            brainfuck_top().replace("return output;", &format!("var r = output; {FOLD}")),
            &[0],
        ),
        "merge_sort_top" => (
            include_str!("progs/merge_sort.smp")
                .replace("return a;", &format!("var r = a; {FOLD}")),
            &[0, 1, 2, 11, 100],
        ),
        _ => unreachable!("no program {name}"),
    }
}

/// Runs `src` under unicorn for `isa` with each argument; each value must
/// be the evaluator's.
#[cfg(feature = "emulate")]
#[track_caller]
fn check_emulated(what: &str, src: &str, args: &[i64], isa: Isa) {
    let code = compile(src, isa).unwrap_or_else(|e| panic!("{what}: {e}"));
    let program = &code.encoded.as_ref().unwrap().program;
    for &arg in args {
        let want = evaluate(src, arg);
        let got = run::emulate(program, code.returns(), arg, STEPS)
            .unwrap_or_else(|e| panic!("{what} on {}, arg {arg}: {e:?}", isa.name()));
        assert_eq!(got.value, want, "{what} on {}, arg {arg}", isa.name());
    }
}

#[cfg(feature = "emulate")]
mod emulated {
    use super::*;

    macro_rules! emulated_tests {
        ($($name:ident)*) => {$(
            mod $name {
                use super::*;
                fn check(isa: Isa) {
                    let (src, args) = driver(stringify!($name));
                    check_emulated(stringify!($name), &src, args, isa);
                }
                #[test]
                fn x86_64() {
                    check(Isa::X86_64);
                }
                #[test]
                fn aarch64() {
                    check(Isa::Aarch64);
                }
                #[test]
                fn riscv64() {
                    check(Isa::Riscv64);
                }
            }
        )*};
    }

    emulated_tests! {
        fib sieve sort person string_hash newton_float loop2 arg_count brain_fuck
        brainfuck_top merge_sort_top
    }

    /// The instructions Brainfuck's hello world takes on RISC-V, for the
    /// record (nothing is pinned): the top level that returns the output.
    #[test]
    fn brainfuck_hello_world_steps_on_riscv() {
        let src = brainfuck_top();
        let code = compile(&src, Isa::Riscv64).unwrap_or_else(|e| panic!("{e}"));
        let program = &code.encoded.as_ref().unwrap().program;
        let run = run::emulate(program, code.returns(), 0, STEPS).unwrap();
        assert_eq!(run.value, "object", "it returns the output array");
        eprintln!("brainfuck hello world on riscv: {} instructions", run.steps);
    }
}

// ---------------------------------------------------------------------
// Edge programs: the machine code must give the evaluator's answer

/// A top level, and the arguments to run it with.
fn edge(name: &str) -> (String, &'static [i64]) {
    // A narrow type `T` stored from `arg` into a field and an array, and
    // its arithmetic stored back: every store wraps to the type's width.
    let narrow = |t: &str| {
        format!(
            "struct N {{ {t} x; }};
             N !n = new N;
             n.x = arg;
             {t}[] !a = new {t}[2];
             a[0] = arg * 3 + 1;
             a[1] = a[0] + n.x;
             n.x += 100;
             return n.x * 1000000 + a[1];"
        )
    };
    // Sign extensions, zero extensions and wrapping around both ends.
    const NARROW_ARGS: &[i64] = &[
        0,
        1,
        -1,
        127,
        128,
        255,
        256,
        32767,
        32768,
        65535,
        65536,
        2147483647,
        2147483648,
        4294967295,
        4294967296,
        -2147483649,
    ];
    // Shift counts below 64, 64 itself, past it, and negative ones.
    const SHIFT_ARGS: &[i64] = &[0, 1, 63, 64, 65, 127, 128, -1, -63];
    match name {
        "div_by_zero" => ("return 1000 / arg;".into(), &[0, 7, -3]),
        "div_by_zero_constant" => ("int z = 0; return (arg + 5) / z;".into(), &[0, 9]),
        "min_div_minus_one" => (
            "int min = 1 << 63; return min / arg;".into(),
            &[-1, 1, 2, -2],
        ),
        "min_div_minus_one_constant" => (
            "int min = (1 << 63) + arg; return min / -1;".into(),
            &[0, 1],
        ),
        "shl_variable" => ("return 3 << arg;".into(), SHIFT_ARGS),
        "sar_variable" => ("return (-1000 << 50) >> arg;".into(), SHIFT_ARGS),
        "shr_variable" => ("return (-1000 << 50) >>> arg;".into(), SHIFT_ARGS),
        "shifts_constant" => (
            "return ((arg + 3) << 64) + ((arg + 3) << 65) * 10
                  + ((arg - 1000) >> 64) * 100 + ((arg - 1000) >>> 66) * 1000
                  + ((arg + 5) << 127) * 10000;"
                .into(),
            &[0, 1],
        ),
        "narrow_i8" => (narrow("i8"), NARROW_ARGS),
        "narrow_u8" => (narrow("u8"), NARROW_ARGS),
        "narrow_i16" => (narrow("i16"), NARROW_ARGS),
        "narrow_u16" => (narrow("u16"), NARROW_ARGS),
        "narrow_i32" => (narrow("i32"), NARROW_ARGS),
        "narrow_u32" => (narrow("u32"), NARROW_ARGS),
        // Each comparison one bit: with NaN (arg 0) only `!=` holds.
        "nan_compare" => (
            "flt a = arg;
             flt n = a / a;
             flt one = a + 1;
             return (n < one) + (n <= one) * 2 + (n > one) * 4 + (n >= one) * 8
                  + (n == n) * 16 + (n != n) * 32 + (one < n) * 64 + (one >= n) * 128
                  + (one == n) * 256 + (one != n) * 512;"
                .into(),
            &[0, 1, -1],
        ),
        "nan_branch" => (
            "flt a = arg;
             flt n = a / a;
             int r = 0;
             if (n < 1.0) r = r + 1;
             if (n <= 1.0) r = r + 2;
             if (n > 1.0) r = r + 4;
             if (n >= 1.0) r = r + 8;
             if (n == n) r = r + 16;
             if (n != n) r = r + 32;
             if (!(n < 1.0)) r = r + 64;
             return r;"
                .into(),
            &[0, 1, 3],
        ),
        "deep_recursion" => (
            "val sum = { int n -> n <= 0 ? 0 : n + sum(n - 1); };
             return sum(arg);"
                .into(),
            &[0, 1, 5000],
        ),
        "nine_ints" => (
            "val f = { int a, int b, int c, int d, int e, int g, int h, int i, int j ->
                 ((((((((a * 10 + b) * 10 + c) * 10 + d) * 10 + e) * 10 + g) * 10 + h) * 10 + i) * 10 + j);
             };
             return f(arg, 2, 3, 4, 5, 6, 7, 8, 9);"
                .into(),
            &[1, 0],
        ),
        "many_mixed" => (
            "val f = { int a, flt b, int c, flt d, int e, flt g, int h, flt i, int j,
                       flt k, int l, flt m, int n, flt o, int p, flt q, int r, flt s,
                       int t, flt u, int v ->
                 a * 1.0 + b * 2 + c * 4 + d * 8 + e * 16 + g * 32 + h * 64 + i * 128
                 + j * 256 + k * 512 + l * 1024 + m * 2048 + n * 4096 + o * 8192
                 + p * 16384 + q * 32768 + r * 65536 + s * 131072 + t * 262144
                 + u * 524288 + v * 1048576;
             };
             return f(arg, 1.0, 1, 1.0, 1, 1.0, 1, 1.0, 1, 1.0, 1, 1.0, 1, 1.0, 1,
                      1.0, 1, 1.0, 1, 1.0, arg * 3);"
                .into(),
            &[1, 0, -1],
        ),
        _ => unreachable!("no edge program {name}"),
    }
}

/// x86-64, natively: each argument's value must be the evaluator's.
#[track_caller]
fn check_edge_native(name: &str) {
    let (src, args) = edge(name);
    let code = compile(&src, Isa::X86_64).unwrap_or_else(|e| panic!("{name}: {e}"));
    let program = &code.encoded.as_ref().unwrap().program;
    // One link, a run per argument.
    let got = run::native(program, code.returns(), args).unwrap_or_else(|e| panic!("{name}: {e}"));
    for (&arg, got) in args.iter().zip(got) {
        assert_eq!(got, evaluate(&src, arg), "{name}, arg {arg}");
    }
}

macro_rules! edge_tests {
    ($($name:ident)*) => {$(
        mod $name {
            use super::*;
            #[test]
            fn x86_64_native() {
                check_edge_native(stringify!($name));
            }
            #[cfg(feature = "emulate")]
            #[test]
            fn aarch64() {
                let (src, args) = edge(stringify!($name));
                check_emulated(stringify!($name), &src, args, Isa::Aarch64);
            }
            #[cfg(feature = "emulate")]
            #[test]
            fn riscv64() {
                let (src, args) = edge(stringify!($name));
                check_emulated(stringify!($name), &src, args, Isa::Riscv64);
            }
        }
    )*};
}

mod edge {
    use super::*;
    edge_tests! {
        div_by_zero div_by_zero_constant min_div_minus_one min_div_minus_one_constant
        shl_variable sar_variable shr_variable shifts_constant
        narrow_i8 narrow_u8 narrow_i16 narrow_u16 narrow_i32 narrow_u32
        nan_compare nan_branch deep_recursion nine_ints many_mixed
    }
}
