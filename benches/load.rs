//! `Executable::load` (FlatBuffer verification plus every semantic check)
//! of executables with 1,000 to 10,000 kernels: the time must grow linearly
//! (issue 14 asks < 1 ms at 1,000). `cargo bench --bench load`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

#[path = "executable/mod.rs"]
mod executable;
use executable::executable;

fn load(c: &mut Criterion) {
    let mut g = c.benchmark_group("load_and_verify");
    for n in [1_000, 3_000, 10_000] {
        let bytes = executable(n);
        g.throughput(Throughput::Elements(n as u64));
        g.bench_with_input(BenchmarkId::from_parameter(n), &bytes, |b, bytes| {
            b.iter(|| {
                let exe = runtime_loader::Executable::load(std::hint::black_box(bytes))
                    .expect("verifies");
                std::hint::black_box(exe.kernels().len())
            })
        });
    }
    // The same 1,000-kernel executable in ten copies, loaded in turn: the
    // work of 1,000 kernels over the memory of 10,000. If the time per
    // kernel here matches 10,000's rather than 1,000's, what grows faster
    // than the kernel count at 10,000 is the cache and TLB misses of a
    // larger file, not the checks.
    let copies: Vec<Vec<u8>> = (0..10).map(|_| executable(1_000)).collect();
    g.throughput(Throughput::Elements(1_000));
    g.bench_function("1000x10copies", |b| {
        let mut next = 0;
        b.iter(|| {
            next = (next + 1) % copies.len();
            let exe = runtime_loader::Executable::load(std::hint::black_box(&copies[next]))
                .expect("verifies");
            std::hint::black_box(exe.kernels().len())
        })
    });
    g.finish();
}

criterion_group!(benches, load);
criterion_main!(benches);
