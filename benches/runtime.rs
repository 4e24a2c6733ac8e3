//! How fast the machine code chapter 21 generates runs, next to gcc -O2 on
//! the same algorithms: sieve (the primes below 1,000,000), fib (the
//! iterative loop for n = 90, in batches of 100,000 calls) and sort (a
//! top-down merge sort of 100,000 pseudo-random 64-bit integers).
//!
//! Each Simple program (`chapters/chapter21/tests/progs/{sieve,fib,sort}.smp`)
//! is compiled for x86_64_v2 (System V) through the library, `assemble`
//! then `object`, into an ELF object; its C twin (`benches/runtime/*.c`,
//! the same algorithm, the same data, the same `calloc`s) is compiled by
//! `gcc -O2`. Both are linked with one timing driver
//! (`benches/runtime/driver.c`, also `-O2`) that times each call with
//! `clock_gettime(CLOCK_MONOTONIC)` over a number of repetitions and
//! prints the nanoseconds per call of each, then a checksum of the
//! results. The two binaries run in turns (five runs of three
//! repetitions each), so that other work on the machine weighs on both
//! alike, and their checksums must agree, so that both sides computed the
//! same thing; the table shows the median of the 15 repetitions of each
//! and the ratio ours / gcc. This is what the course's backend is for: the other
//! benchmarks time the compiler, this one the code it writes.
//!
//! With `--features emulate` it also compiles the Brainfuck interpreter
//! that prints "Hello World!\n" (`tests/progs/spill/brainfuck.smp`) for
//! RISC-V and runs it under unicorn, printing how many instructions the
//! emulator executed: a count, not a time, so it does not drift with the
//! machine.
//!
//! It needs an x86-64 Linux host with `gcc`; elsewhere it says so and
//! stops. Run it as:
//!
//! ```text
//! cargo bench --bench runtime
//! cargo bench --bench runtime --features emulate
//! ```

use simple::{assemble, Options, LATEST};
use std::path::{Path, PathBuf};
use std::process::Command;

/// One program measured: its name, the Simple source, the C twin's file
/// under `benches/runtime`, the driver's `-D` switch, and the calls per
/// repetition.
struct Program {
    name: &'static str,
    simple: &'static str,
    twin: &'static str,
    define: &'static str,
    calls: u32,
}

/// The repetitions of each side; the table shows their median.
const REPS: u32 = 15;
/// The runs of each side's binary, taken in turns, that make up the
/// repetitions.
const ROUNDS: u32 = 5;

const PROGRAMS: [Program; 3] = [
    Program {
        name: "sieve",
        simple: include_str!("../chapters/chapter21/tests/progs/sieve.smp"),
        twin: "sieve.c",
        define: "PROG_SIEVE",
        calls: 3,
    },
    Program {
        name: "fib",
        simple: include_str!("../chapters/chapter21/tests/progs/fib.smp"),
        twin: "fib.c",
        define: "PROG_FIB",
        calls: 5,
    },
    Program {
        name: "sort",
        simple: include_str!("../chapters/chapter21/tests/progs/sort.smp"),
        twin: "sort.c",
        define: "PROG_SORT",
        calls: 1,
    },
];

/// What one binary printed: nanoseconds per call of each repetition, and
/// the checksum.
struct Timings {
    per_call: Vec<u64>,
    checksum: String,
}

/// Runs `cmd` and fails with its output unless it succeeds.
fn run(cmd: &mut Command) -> String {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed ({}):\n{}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Links the driver for `p` with `code` (a C file or an object) by
/// `gcc -O2` into `bin`.
fn link(p: &Program, code: &Path, bin: &Path) {
    let driver = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/runtime/driver.c");
    run(Command::new("gcc")
        .args(["-O2", "-Wall", "-Wextra", "-Werror"])
        .arg(format!("-D{}", p.define))
        .arg(driver)
        .arg(code)
        .arg("-o")
        .arg(bin));
}

/// Runs the timing binary `bin` for `p` for `reps` repetitions. The
/// allocator's tuning of the benchmarks' own environment is not passed
/// on: both sides run with the C library's defaults.
fn time(p: &Program, bin: &Path, reps: u32) -> Timings {
    let text = run(Command::new(bin)
        .env_remove("MALLOC_MMAP_THRESHOLD_")
        .env_remove("MALLOC_TRIM_THRESHOLD_")
        .arg(reps.to_string())
        .arg(p.calls.to_string()));
    let mut per_call = Vec::new();
    let mut checksum = None;
    for line in text.lines() {
        match line.split_once(' ') {
            Some(("rep", ns)) => per_call.push(ns.parse().expect("ns per call")),
            Some(("checksum", sum)) => checksum = Some(sum.to_string()),
            _ => panic!("{} printed {line:?}", bin.display()),
        }
    }
    assert_eq!(per_call.len(), reps as usize, "{}", bin.display());
    Timings {
        per_call,
        checksum: checksum.expect("the driver prints a checksum"),
    }
}

/// Times both binaries of `p` in turns, [`ROUNDS`] runs of each of
/// `REPS / ROUNDS` repetitions, so that a machine busy with other work
/// slows both alike; checks at each round that they agree on the checksum.
/// The nanoseconds per call of every repetition of ours, then of gcc's.
fn compare(p: &Program, ours_bin: &Path, gcc_bin: &Path) -> (Vec<u64>, Vec<u64>) {
    let (mut ours, mut gcc) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        let o = time(p, ours_bin, REPS / ROUNDS);
        let g = time(p, gcc_bin, REPS / ROUNDS);
        assert_eq!(
            o.checksum, g.checksum,
            "{}: our code and gcc's computed different results",
            p.name
        );
        ours.extend(o.per_call);
        gcc.extend(g.per_call);
    }
    (ours, gcc)
}

fn median(mut xs: Vec<u64>) -> u64 {
    xs.sort_unstable();
    xs[xs.len() / 2]
}

/// A time in nanoseconds, in the unit that fits it.
fn show(ns: u64) -> String {
    match ns {
        0..=9_999 => format!("{ns} ns"),
        10_000..=999_999 => format!("{:.1} us", ns as f64 / 1e3),
        _ => format!("{:.2} ms", ns as f64 / 1e6),
    }
}

/// A directory of this benchmark's own under Cargo's scratch space.
fn scratch() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("runtime");
    std::fs::create_dir_all(&dir).expect("the scratch directory");
    dir
}

fn native() {
    if !cfg!(all(target_arch = "x86_64", target_os = "linux")) {
        println!("runtime: skipped, the native comparison needs an x86-64 Linux host");
        return;
    }
    if Command::new("gcc").arg("--version").output().is_err() {
        println!("runtime: skipped, gcc is not installed");
        return;
    }
    let dir = scratch();
    let twins = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/runtime");
    println!(
        "{:<6} {:>12} {:>12} {:>10}   (median of {REPS} repetitions, per call)",
        "", "ours", "gcc -O2", "ours/gcc"
    );
    for p in &PROGRAMS {
        let code = assemble(
            LATEST,
            p.simple,
            &Options::default(),
            "x86_64_v2",
            "SystemV",
        )
        .unwrap_or_else(|e| panic!("{}.smp does not compile: {e:?}", p.name));
        let object = code
            .object()
            .expect("the latest chapter writes objects")
            .unwrap_or_else(|e| panic!("{}.smp: no object: {e:?}", p.name));
        let obj = dir.join(format!("{}.o", p.name));
        std::fs::write(&obj, object).expect("the object is written");
        let ours_bin = dir.join(format!("{}-ours", p.name));
        let gcc_bin = dir.join(format!("{}-gcc", p.name));
        link(p, &obj, &ours_bin);
        link(p, &twins.join(p.twin), &gcc_bin);
        let (ours, gcc) = compare(p, &ours_bin, &gcc_bin);
        let (ours, gcc) = (median(ours), median(gcc));
        println!(
            "{:<6} {:>12} {:>12} {:>9.2}x",
            p.name,
            show(ours),
            show(gcc),
            ours as f64 / gcc.max(1) as f64
        );
    }
}

/// The Brainfuck "Hello World!" interpreter for RISC-V under the
/// emulator: the instructions executed.
#[cfg(feature = "emulate")]
fn brainfuck_riscv() {
    use simple::Run;
    let src = include_str!("../tests/progs/spill/brainfuck.smp");
    let code = assemble(LATEST, src, &Options::default(), "riscv", "SystemV")
        .unwrap_or_else(|e| panic!("brainfuck.smp does not compile for riscv: {e:?}"));
    let runs = code
        .run(&[0], true, 1_000_000_000)
        .expect("the latest chapter runs programs")
        .unwrap_or_else(|e| panic!("brainfuck.smp does not run under unicorn: {e:?}"));
    match runs.as_slice() {
        [Run::Value(value, Some(steps))] => {
            println!("brainfuck (riscv, emulated): {steps} instructions executed, returned {value}")
        }
        other => panic!("brainfuck.smp under unicorn: {other:?}"),
    }
}

#[cfg(not(feature = "emulate"))]
fn brainfuck_riscv() {
    println!("brainfuck (riscv, emulated): skipped, the emulator needs `--features emulate`");
}

fn main() {
    // `cargo bench` passes `--bench` (and any filter); there is nothing to
    // choose from, so every run measures everything.
    native();
    brainfuck_riscv();
}
