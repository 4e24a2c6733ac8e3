//! Parse + peephole throughput of chapter 6 (the foundation's last chapter),
//! of chapter 9 (parse, then the iterative optimizer with value numbering),
//! of chapter 11 (parse, optimize, null check and global code motion), of
//! chapter 14 (the same phases over floats, narrow integers and structs
//! that point to structs), and of chapter 15 (the same over arrays).
//!
//! Generated program shapes, at 1k, 10k and 100k statements: straight-line
//! arithmetic over a fixed set of variables, and the same with every other
//! statement an `if`/`else` that merges with a Phi; for chapter 11, short
//! `while` loops in sequence, and struct allocation with field loads and
//! stores through aliased pointers (with null tests); for chapter 14, a
//! mix of floats, narrow integer fields, bitwise operators and a list of
//! structs that point to structs; for chapter 15, arrays filled, scanned
//! and swapped by loops; for chapter 18, one small function per ten lines,
//! each calling up to two earlier ones. Throughput is
//! reported in statements per second; the cost per statement should not grow
//! with the program. Run with glibc keeping freed memory (see README.md,
//! "Performance"): otherwise only the large programs pay page faults on
//! every iteration, which says more about the allocator than the compiler.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

mod programs;
use programs::{
    array_heavy, compile_schedule, compile_schedule_14, compile_schedule_15, compile_schedule_18,
    if_heavy, loop_heavy, many_functions, mixed, straight_line, struct_heavy, Shape,
};

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
    let arithmetic: [Shape; 2] = [("straight", straight_line), ("if-heavy", if_heavy)];
    run_group(c, 6, "parse", compile, &arithmetic);
    run_group(c, 9, "parse-iterate", compile_iterate, &arithmetic);
    let memory: [Shape; 2] = [("loop-heavy", loop_heavy), ("struct-heavy", struct_heavy)];
    run_group(c, 11, "parse-iterate-gcm", compile_schedule, &memory);
    let narrow: [Shape; 1] = [("mixed", mixed)];
    run_group(c, 14, "parse-iterate-gcm", compile_schedule_14, &narrow);
    let arrays: [Shape; 1] = [("array-heavy", array_heavy)];
    run_group(c, 15, "parse-iterate-gcm", compile_schedule_15, &arrays);
    let functions: [Shape; 1] = [("many-functions", many_functions)];
    run_group(c, 18, "parse-iterate-gcm", compile_schedule_18, &functions);
}

/// Times `compile`, chapter `chapter`'s pipeline, on each shape written in
/// that chapter's language; the group is named `chapterNN-<phases>`.
fn run_group(
    c: &mut Criterion,
    chapter: u32,
    phases: &str,
    compile: fn(&str) -> usize,
    shapes: &[Shape],
) {
    let name = format!("chapter{chapter:02}-{phases}");
    let mut group = c.benchmark_group(name);
    group.sample_size(10);
    for &(shape, generate) in shapes {
        for n in [1_000, 10_000, 100_000] {
            let src = generate(n, chapter);
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
