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
//! the size. Run it as README.md, "Performance", says:
//!
//! ```text
//! MALLOC_MMAP_THRESHOLD_=4294967296 MALLOC_TRIM_THRESHOLD_=4294967296 cargo bench --bench commands
//! ```

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use simple::{compile, evaluate, Options, DEFAULT_LOOPS, LATEST};

#[allow(dead_code)] // the compiler-core benchmarks use `compile_schedule`
mod programs;
use programs::{
    array_heavy, if_heavy, loop_heavy, many_functions, mixed, straight_line, struct_heavy, Shape,
};

/// A command: its name and what it computes, returning the size of its
/// output so that nothing is optimized away.
type Command = (&'static str, fn(&str) -> usize);

fn print(src: &str) -> usize {
    let code = compile(LATEST, src, &Options::default()).expect("generated programs compile");
    code.print().len()
}

fn dot(src: &str) -> usize {
    let code = compile(LATEST, src, &Options::default()).expect("generated programs compile");
    code.dot().len()
}

fn ir(src: &str) -> usize {
    let code = compile(LATEST, src, &Options::default()).expect("generated programs compile");
    code.ir().expect("the latest chapter schedules").len()
}

fn run(src: &str, scheduled: bool) -> usize {
    let outcome = evaluate(
        LATEST,
        src,
        &Options::default(),
        0,
        DEFAULT_LOOPS,
        scheduled,
    )
    .expect("generated programs compile");
    format!("{outcome:?}").len()
}

fn eval(src: &str) -> usize {
    run(src, false)
}

fn eval_scheduled(src: &str) -> usize {
    run(src, true)
}

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
                    b.iter(|| run(src))
                });
            }
        }
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
