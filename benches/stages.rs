//! halc's in-process stages, one by one, on a small real kernel (saxpy) and
//! a large synthetic one (8 buffers, 2048 instructions): what `--timings`
//! reports per kernel, without process start. `cargo bench --bench stages`.

#[path = "corpus/mod.rs"]
#[allow(dead_code)]
mod corpus;

use criterion::{criterion_group, criterion_main, Criterion};

use halc::msl::{self, MslOptions};
use halc::spirv::{self, validate};

fn kernels() -> Vec<(&'static str, Vec<u8>)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let saxpy = std::fs::read(root.join("fixtures/kernels/saxpy.spv")).expect("fixture");
    let large = corpus::synthetic(corpus::Synthetic {
        buffers: 8,
        ops: 2048,
        elem: corpus::Elem::F32,
        uniform: true,
        local_x: 64,
    });
    vec![
        ("saxpy", saxpy),
        (
            "synthetic_8x2048",
            large.iter().flat_map(|w| w.to_le_bytes()).collect(),
        ),
    ]
}

fn stages(c: &mut Criterion) {
    let options = halc::Options::default();
    let msl_opts = MslOptions {
        version: options.msl_version,
        platform: options.layout.platform,
        tier: options.layout.tier,
    };
    for (name, bytes) in kernels() {
        let mut g = c.benchmark_group(name);
        let words = spirv::Words::from_bytes(&bytes).expect("words");
        let info = spirv::reflect(&words).expect("reflects");
        let entry = &info.entry_points[0];
        let layout = msl::layout(entry, &options.layout).expect("layout");
        let generated = msl::generate(&words, &entry.name, &layout, &msl_opts).expect("msl");
        let workgroup = entry.workgroup_size.expect("workgroup size");
        let input = halc::Input::new(format!("{name}.spv"), bytes.clone());
        let compiled = halc::compile(std::slice::from_ref(&input), &options).expect("compiles");

        g.bench_function("parse", |b| {
            b.iter(|| spirv::Words::from_bytes(std::hint::black_box(&bytes)).expect("words"))
        });
        g.bench_function("check", |b| {
            b.iter(|| validate::check(&words, &options.limits).expect("passes"))
        });
        g.bench_function("validate (SPIRV-Tools)", |b| {
            b.iter(|| validate::spirv_tools(&words).expect("valid"))
        });
        // What the compile runs: reflection and block reflection, one parse.
        g.bench_function("reflect", |b| {
            b.iter(|| spirv::reflect_with_blocks(&words).expect("reflects"))
        });
        g.bench_function("layout", |b| {
            b.iter(|| msl::layout(entry, &options.layout).expect("layout"))
        });
        g.bench_function("spirv-cross", |b| {
            b.iter(|| msl::generate(&words, &entry.name, &layout, &msl_opts).expect("msl"))
        });
        g.bench_function("check-msl", |b| {
            b.iter(|| {
                msl::check::check(
                    &generated.source,
                    &generated.function_name,
                    &layout,
                    &workgroup,
                )
                .expect("matches")
            })
        });
        g.bench_function("pack", |b| b.iter(|| compiled.to_flatbuffer()));
        g.bench_function("compile (all stages, in-process)", |b| {
            b.iter(|| halc::compile(std::slice::from_ref(&input), &options).expect("compiles"))
        });
        g.finish();
    }
}

criterion_group!(benches, stages);
criterion_main!(benches);
