//! Every command of `simple`, end to end through the chapter registry, on
//! every generated program shape at 1k, 10k and 100k statements, each
//! written in the latest chapter's language.
//!
//! `compile` (the other benchmark) times the compiler's core. This one
//! times what a user waits for: `print`, `dot` and `ir` compile with the
//! latest chapter and render their view, `eval` and `eval --scheduled`
//! compile and run the program (with `arg` = 0). Dropping the compiled
//! graph is part of each. A view that grows faster than the program (a
//! quadratic printer) shows here as a time per statement that climbs with
//! the size.
//!
//! The groups `asm-<cpu>` time `simple asm` (chapter 19 on) for each CPU
//! on the loop-heavy, struct-heavy and many-functions shapes at 1k and
//! 100k statements. The groups `obj-<cpu>` time `simple obj` (chapter 21
//! on) on the same shapes and sizes: the whole compile through register
//! allocation and encoding, then the ELF object's bytes instead of the
//! listing, so that `obj` minus `asm` is what writing the object costs
//! over printing the listing.
//!
//! A second set of groups, `guards-<command>`, times each command with
//! chapters 17 and 18 on the loop-heavy shape at 1k and 100k statements:
//! chapter 17's guard stack, copied whole at every `if` and loop while the
//! exit guards of every loop stayed on it, once made that shape quadratic
//! (15 s of CPU for `print` at 100k), and these groups keep both chapters in
//! view when the latest chapter moves on. Run it as README.md,
//! "Performance", says:
//!
//! ```text
//! MALLOC_MMAP_THRESHOLD_=4294967296 MALLOC_TRIM_THRESHOLD_=4294967296 cargo bench --bench commands
//! ```

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use simple::{assemble, compile, evaluate, Options, DEFAULT_LOOPS, LATEST};

#[allow(dead_code)] // the compiler-core benchmarks use `compile_schedule`
mod programs;
use programs::{
    array_heavy, if_heavy, loop_heavy, many_functions, mixed, straight_line, struct_heavy, Shape,
};

/// A command: its name and what it computes with a chapter, returning the
/// size of its output so that nothing is optimized away.
type Command = (&'static str, fn(u32, &str) -> usize);

/// A backend command: its name and what it computes with a chapter for a
/// CPU, returning the size of its output.
type BackendCommand = (&'static str, fn(u32, &str, &str) -> usize);

fn print(chapter: u32, src: &str) -> usize {
    let code = compile(chapter, src, &Options::default()).expect("generated programs compile");
    code.print().len()
}

fn dot(chapter: u32, src: &str) -> usize {
    let code = compile(chapter, src, &Options::default()).expect("generated programs compile");
    code.dot().len()
}

fn ir(chapter: u32, src: &str) -> usize {
    let code = compile(chapter, src, &Options::default()).expect("generated programs compile");
    code.ir().expect("the chapter schedules").len()
}

fn run(chapter: u32, src: &str, scheduled: bool) -> usize {
    let outcome = evaluate(
        chapter,
        src,
        &Options::default(),
        0,
        DEFAULT_LOOPS,
        scheduled,
    )
    .expect("generated programs compile");
    format!("{outcome:?}").len()
}

fn eval(chapter: u32, src: &str) -> usize {
    run(chapter, src, false)
}

fn eval_scheduled(chapter: u32, src: &str) -> usize {
    run(chapter, src, true)
}

/// Chapter 19 on: `simple asm`, selection, legalization and scheduling
/// for `cpu`, then the listing.
fn asm(chapter: u32, src: &str, cpu: &str) -> usize {
    let code = assemble(chapter, src, &Options::default(), cpu, "SystemV")
        .expect("generated programs compile for every CPU");
    code.asm().expect("the chapter has a backend").len()
}

/// Chapter 21 on: `simple obj`, the compile through encoding for `cpu`,
/// then the ELF relocatable object.
fn obj(chapter: u32, src: &str, cpu: &str) -> usize {
    let code = assemble(chapter, src, &Options::default(), cpu, "SystemV")
        .expect("generated programs compile for every CPU");
    code.object()
        .expect("the chapter encodes")
        .expect("every encoded program writes an object")
        .len()
}

/// The shapes the backend groups (`asm-<cpu>`, `obj-<cpu>`) time: loops,
/// structs and calls.
const BACKEND_SHAPES: [&str; 3] = ["loop-heavy", "struct-heavy", "many-functions"];

/// The chapters whose guard stack the `guards-<command>` groups watch.
const GUARD_CHAPTERS: [u32; 2] = [17, 18];

fn bench(c: &mut Criterion) {
    let shapes: [Shape; 7] = [
        ("straight", straight_line),
        ("if-heavy", if_heavy),
        ("loop-heavy", loop_heavy),
        ("struct-heavy", struct_heavy),
        ("mixed", mixed),
        ("array-heavy", array_heavy),
        ("many-functions", many_functions),
    ];
    let commands: [Command; 5] = [
        ("print", print),
        ("dot", dot),
        ("ir", ir),
        ("eval", eval),
        ("eval-scheduled", eval_scheduled),
    ];
    for (command, run) in commands {
        let mut group = c.benchmark_group(format!("command-{command}"));
        group.sample_size(10);
        for &(shape, generate) in &shapes {
            for n in [1_000, 10_000, 100_000] {
                let src = generate(n, LATEST);
                group.throughput(Throughput::Elements(n as u64));
                group.bench_with_input(BenchmarkId::new(shape, n), &src, |b, src| {
                    b.iter(|| run(LATEST, src))
                });
            }
        }
        group.finish();
    }
    // `simple asm` and `simple obj` for each CPU on the shapes the backend
    // cares about: loops, structs and calls.
    let backend: [BackendCommand; 2] = [("asm", asm), ("obj", obj)];
    for (command, run) in backend {
        for cpu in ["x86_64_v2", "riscv", "arm"] {
            let mut group = c.benchmark_group(format!("{command}-{cpu}"));
            group.sample_size(10);
            for &(shape, generate) in &shapes {
                if !BACKEND_SHAPES.contains(&shape) {
                    continue;
                }
                for n in [1_000, 100_000] {
                    let src = generate(n, LATEST);
                    group.throughput(Throughput::Elements(n as u64));
                    group.bench_with_input(BenchmarkId::new(shape, n), &src, |b, src| {
                        b.iter(|| run(LATEST, src, cpu))
                    });
                }
            }
            group.finish();
        }
    }
    for (command, run) in commands {
        let mut group = c.benchmark_group(format!("guards-{command}"));
        group.sample_size(10);
        for chapter in GUARD_CHAPTERS {
            for n in [1_000, 100_000] {
                let src = loop_heavy(n, chapter);
                group.throughput(Throughput::Elements(n as u64));
                let id = BenchmarkId::new(format!("loop-heavy-chapter{chapter}"), n);
                group.bench_with_input(id, &src, |b, src| b.iter(|| run(chapter, src)));
            }
        }
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
