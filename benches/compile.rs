//! Parse + peephole throughput of chapter 6 (the foundation's last chapter)
//! and of chapter 9 (parse, then the iterative optimizer with value
//! numbering).
//!
//! Two generated program shapes, at 1k, 10k and 100k statements:
//! straight-line arithmetic over a fixed set of variables, and the same with
//! every other statement an `if`/`else` that merges with a Phi. Throughput is
//! reported in statements per second; the cost per statement should not grow
//! with the program. Run with glibc keeping freed memory (see README.md,
//! "Performance"): otherwise only the large programs pay page faults on
//! every iteration, which says more about the allocator than the compiler.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::fmt::Write;

/// Variables live at once: real programs keep their scopes small, and
/// Simple's scopes are copied at every `if`.
const VARS: usize = 8;

fn declarations(src: &mut String) {
    for v in 0..VARS {
        let _ = writeln!(src, "int v{v} = arg + {v};");
    }
}

/// `n` assignments mixing every arithmetic operator and `arg`.
fn straight_line(n: usize) -> String {
    let mut src = String::new();
    declarations(&mut src);
    for i in VARS..n {
        let (dst, a, b) = (i % VARS, (i + 3) % VARS, (i + 5) % VARS);
        let _ = writeln!(
            src,
            "v{dst} = (v{a} / 3) * {} + v{b} - arg * {};",
            i % 7 + 1,
            i % 5 + 2
        );
    }
    let _ = writeln!(src, "return v0 + v1;");
    src
}

/// `n` statements, half of them `if`/`else` on a fresh comparison.
fn if_heavy(n: usize) -> String {
    let mut src = String::new();
    declarations(&mut src);
    for i in VARS..n {
        let (dst, a, b) = (i % VARS, (i + 3) % VARS, (i + 5) % VARS);
        if i % 2 == 0 {
            let _ = writeln!(
                src,
                "if (v{a} < {i}) v{dst} = v{b} + {}; else v{dst} = v{b} - arg;",
                i % 11
            );
        } else {
            let _ = writeln!(src, "v{dst} = v{a} * 2 + v{b} / {};", i % 3 + 1);
        }
    }
    let _ = writeln!(src, "return v0 + v1;");
    src
}

fn compile(src: &str) -> usize {
    let mut code = chapter06::CodeGen::new(src);
    code.parse().expect("generated programs are valid");
    code.graph.len()
}

fn compile_iterate(src: &str) -> usize {
    let mut code = chapter09::CodeGen::new(src);
    code.parse()
        .expect("generated programs are valid")
        .iterate();
    code.graph.len()
}

fn bench(c: &mut Criterion) {
    run_group(c, "chapter06-parse", compile);
    run_group(c, "chapter09-parse-iterate", compile_iterate);
}

fn run_group(c: &mut Criterion, name: &str, compile: fn(&str) -> usize) {
    let mut group = c.benchmark_group(name);
    group.sample_size(10);
    for (shape, generate) in [
        ("straight", straight_line as fn(usize) -> String),
        ("if-heavy", if_heavy),
    ] {
        for n in [1_000, 10_000, 100_000] {
            let src = generate(n);
            group.throughput(Throughput::Elements(n as u64));
            group.bench_with_input(BenchmarkId::new(shape, n), &src, |b, src| {
                b.iter(|| compile(src))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
