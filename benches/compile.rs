//! Parse + peephole throughput of chapter 6 (the foundation's last chapter),
//! of chapter 9 (parse, then the iterative optimizer with value numbering),
//! and of chapter 11 (parse, optimize, null check and global code motion).
//!
//! Generated program shapes, at 1k, 10k and 100k statements: straight-line
//! arithmetic over a fixed set of variables, and the same with every other
//! statement an `if`/`else` that merges with a Phi; for chapter 11, short
//! `while` loops in sequence, and struct allocation with field loads and
//! stores through aliased pointers (with null tests). Throughput is
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

/// About `n` statements as short loops in a row, each summing into the
/// variables; a third of them `break` out early. The counter is reused, so
/// the scope stays small.
fn loop_heavy(n: usize) -> String {
    let mut src = String::new();
    declarations(&mut src);
    src.push_str("int i = 0;\n");
    let mut k = VARS;
    while k < n {
        let (dst, a) = (k % VARS, (k + 3) % VARS);
        let _ = writeln!(src, "i = 0;");
        let _ = writeln!(src, "while (i < arg) {{");
        let _ = writeln!(src, "  v{dst} = v{dst} + v{a} * i;");
        if k.is_multiple_of(3) {
            let _ = writeln!(src, "  if (v{dst} > {k}) break;");
        }
        let _ = writeln!(src, "  i = i + 1;");
        let _ = writeln!(src, "}}");
        k += 5;
    }
    let _ = writeln!(src, "return v0 + v1;");
    src
}

/// About `n` statements of struct traffic: two pointers that sometimes
/// name one object, fresh allocations, stores, loads, and a nullable
/// pointer used under a null test.
fn struct_heavy(n: usize) -> String {
    let mut src = String::from(
        "struct P { int x; int y; }
",
    );
    declarations(&mut src);
    src.push_str(
        "P p = new P;
P q = p;
P? r = null;
",
    );
    for i in VARS..n {
        let (dst, a) = (i % VARS, (i + 3) % VARS);
        let line = match i % 8 {
            0 => format!("p.x = v{a} + {i};"),
            1 => format!("v{dst} = p.x + q.y;"),
            2 => format!("q.y = v{a} * 2;"),
            3 => format!("if (v{a} < {i}) q = new P; else q = p;"),
            4 => format!("v{dst} = q.x - p.y;"),
            5 => format!("if (arg < {i}) r = q;"),
            6 => format!("if (r) v{dst} = r.x + v{dst};"),
            _ => "p = new P;".to_owned(),
        };
        let _ = writeln!(src, "{line}");
    }
    let _ = writeln!(src, "return v0 + p.x + q.y;");
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

fn compile_schedule(src: &str) -> usize {
    let mut code = chapter11::CodeGen::new(src);
    code.parse()
        .expect("generated programs are valid")
        .iterate()
        .expect("generated programs pass the null check");
    code.graph.len()
}

type Shape = (&'static str, fn(usize) -> String);

fn bench(c: &mut Criterion) {
    let arithmetic: [Shape; 2] = [("straight", straight_line), ("if-heavy", if_heavy)];
    run_group(c, "chapter06-parse", compile, &arithmetic);
    run_group(c, "chapter09-parse-iterate", compile_iterate, &arithmetic);
    let memory: [Shape; 2] = [("loop-heavy", loop_heavy), ("struct-heavy", struct_heavy)];
    run_group(c, "chapter11-parse-iterate-gcm", compile_schedule, &memory);
}

fn run_group(c: &mut Criterion, name: &str, compile: fn(&str) -> usize, shapes: &[Shape]) {
    let mut group = c.benchmark_group(name);
    group.sample_size(10);
    for &(shape, generate) in shapes {
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
