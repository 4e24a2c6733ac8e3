//! Encoding throughput per ISA on a mixed instruction stream: the whole
//! encoding table (every form, every edge) encoded into one reused buffer.
//! Criterion reports elements (instructions) per second.
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use isa::{arm64, riscv, table, x86_64};

fn encode_throughput(c: &mut Criterion) {
    let mut group = c.benchmark_group("encode");

    let x86 = table::x86_64_insts();
    let mut buf = Vec::with_capacity(1 << 16);
    group.throughput(Throughput::Elements(x86.len() as u64));
    group.bench_function("x86_64", |b| {
        b.iter(|| {
            buf.clear();
            for i in black_box(&x86) {
                let _ = black_box(x86_64::Inst::encode(i, &mut buf));
            }
            black_box(buf.len())
        })
    });

    let arm = table::arm64_insts();
    group.throughput(Throughput::Elements(arm.len() as u64));
    group.bench_function("aarch64", |b| {
        b.iter(|| {
            buf.clear();
            for i in black_box(&arm) {
                let _ = black_box(arm64::Inst::encode(i, &mut buf));
            }
            black_box(buf.len())
        })
    });

    let rv = table::riscv_insts();
    group.throughput(Throughput::Elements(rv.len() as u64));
    group.bench_function("riscv64", |b| {
        b.iter(|| {
            buf.clear();
            for i in black_box(&rv) {
                let _ = black_box(riscv::Inst::encode(i, &mut buf));
            }
            black_box(buf.len())
        })
    });
    group.finish();
}

criterion_group!(benches, encode_throughput);
criterion_main!(benches);
