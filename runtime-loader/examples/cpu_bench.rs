//! Benchmarks of the CPU backend (not a test; prints ns/thread).
//!
//! ```sh
//! bash benches/cpu/run.sh    # builds the inputs (benches/cpu/reduce128.comp) and runs this
//! ```
//!
//! The first pipeline of each kernel is compiled in a fresh cache directory
//! (cold: clang's time is printed); the dispatches are timed warm, best of 5,
//! fork and result checks included.

use std::time::{Duration, Instant};

use runtime_loader::cpu::{Device, DeviceOptions, ResourceBindings};
use runtime_loader::memory::MemoryType;
use runtime_loader::plan::Grid;
use runtime_loader::OwnedExecutable;

fn best_of(runs: usize, mut f: impl FnMut()) -> Duration {
    f(); // warm-up
    (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [saxpy, reduce] = args.as_slice() else {
        return Err("usage: cpu_bench SAXPY.halc REDUCE128.halc".into());
    };
    let cache = std::env::temp_dir().join(format!("halc-cpu-bench-{}", std::process::id()));
    let dev = Device::with_options(DeviceOptions {
        cache_dir: Some(cache.clone()),
        ..Default::default()
    })?;
    println!(
        "clang: {} ({})",
        dev.clang().path.display(),
        dev.clang().major
    );

    // saxpy, 1M threads.
    let file = OwnedExecutable::read(saxpy)?;
    let program = dev.load(file.executable())?;
    let p = program.pipeline("saxpy", &[])?;
    println!(
        "saxpy: cold compile {:?}",
        p.compile_time().expect("a fresh cache")
    );
    let t = Instant::now();
    let p = program.pipeline("saxpy", &[])?;
    println!("saxpy: warm pipeline (cache hit, dlopen) {:?}", t.elapsed());
    let n = 1usize << 20;
    let x: Vec<u8> = (0..n).flat_map(|i| (i as f32).to_le_bytes()).collect();
    let xb = dev.buffer_with_data(&x, MemoryType::HostVisible)?;
    let yb = dev.buffer(4 * n as u64, MemoryType::HostVisible)?;
    let mut params = 2.0f32.to_le_bytes().to_vec();
    params.extend((n as u32).to_le_bytes());
    let pb = dev.buffer_with_data(&params, MemoryType::HostVisible)?;
    let mut b = ResourceBindings::new();
    b.buffer(0, 0, &xb).buffer(0, 1, &yb).buffer(0, 2, &pb);
    let d = best_of(5, || {
        yb.write(0, &vec![0; 4 * n]).unwrap();
        dev.dispatch(&p, &b, &[], Grid::Threads([n as u32, 1, 1]))
            .unwrap();
    });
    let y = yb.to_vec()?;
    assert_eq!(
        f32::from_le_bytes(y[4 * 777..4 * 778].try_into()?),
        2.0 * 777.0
    );
    println!(
        "saxpy: {n} threads in {d:?}: {:.1} ns/thread",
        d.as_nanos() as f64 / n as f64
    );

    // Tree reduction, 128 threads per group, 8 barriers.
    let file = OwnedExecutable::read(reduce)?;
    let program = dev.load(file.executable())?;
    let p = program.pipeline("reduce128", &[])?;
    println!(
        "reduce128: cold compile {:?}",
        p.compile_time().expect("a fresh cache")
    );
    let groups = 1024usize;
    let inp: Vec<u8> = (0..128 * groups)
        .flat_map(|i| ((i % 5) as f32).to_le_bytes())
        .collect();
    let ib = dev.buffer_with_data(&inp, MemoryType::HostVisible)?;
    let ob = dev.buffer(4 * groups as u64, MemoryType::HostVisible)?;
    let mut b = ResourceBindings::new();
    b.buffer(0, 0, &ib).buffer(0, 1, &ob);
    let d = best_of(5, || {
        dev.dispatch(&p, &b, &[], Grid::Threadgroups([groups as u32, 1, 1]))
            .unwrap();
    });
    let o = ob.to_vec()?;
    let expected: f32 = (0..128).map(|i| (i % 5) as f32).sum();
    assert_eq!(f32::from_le_bytes(o[0..4].try_into()?), expected);
    let threads = 128 * groups;
    println!(
        "reduce128: {groups} groups x 128 threads in {d:?}: {:.1} ns/thread",
        d.as_nanos() as f64 / threads as f64
    );

    // The fixed cost of a dispatch (plan, encode, fork, wait).
    let d = best_of(10, || {
        dev.dispatch(&p, &b, &[], Grid::Threadgroups([1, 1, 1]))
            .unwrap();
    });
    println!("one-threadgroup dispatch: {d:?}");
    let _ = std::fs::remove_dir_all(cache);
    Ok(())
}
