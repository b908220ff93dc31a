//! Runs SAXPY (`fixtures/kernels/saxpy.comp`) end to end from an executable
//! that `halc compile` produced, and checks the results:
//!
//! ```text
//! halc compile fixtures/kernels/saxpy.spv -o saxpy.halc
//! cargo run -p runtime-loader --example dispatch -- saxpy.halc [KERNEL]
//! ```
//!
//! `KERNEL` is the SPIR-V entry point (default `main`). The kernel's layout:
//! set 0, binding 0 = `x` (read-only floats), binding 1 = `y` (read-write
//! floats), binding 2 = `Params { float a; uint n; }`; it computes
//! `y[i] = a * x[i] + y[i]` for `i < n`.
//!
//! Every platform loads and verifies the file and prints the dispatch plan.
//! Exit status:
//! - 0: the dispatch ran on Metal and every result matched;
//! - 1: an error (unreadable or invalid file, planning or Metal error, wrong
//!   results);
//! - 2: Metal is not available on this platform (not an Apple target): the
//!   file was verified and planned, nothing was run.

use std::error::Error;
use std::process::ExitCode;

use runtime_loader::plan::{Bindings, DispatchPlan, Grid, Specialization};
use runtime_loader::{Kernel, OwnedExecutable};

/// Elements: enough for several threadgroups and a partial last one.
const N: u32 = 1000;
#[cfg(target_vendor = "apple")]
const A: f32 = 3.0;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (path, kernel) = match args.as_slice() {
        // halc names the kernel of saxpy.spv's `main` after its file.
        [path] => (path.as_str(), "saxpy"),
        [path, kernel] => (path.as_str(), kernel.as_str()),
        _ => {
            eprintln!("usage: dispatch SAXPY.halc [KERNEL]");
            return ExitCode::from(1);
        }
    };
    match run(path, kernel) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    }
}

#[cfg(target_vendor = "apple")]
fn inputs() -> (Vec<f32>, Vec<f32>, [u8; 8]) {
    // Small integers: a * x + y is exact in f32, fused or not.
    let x: Vec<f32> = (0..N).map(|i| i as f32).collect();
    let y: Vec<f32> = (0..N).map(|i| (2 * i) as f32).collect();
    let mut params = [0u8; 8];
    params[..4].copy_from_slice(&A.to_le_bytes());
    params[4..].copy_from_slice(&N.to_le_bytes());
    (x, y, params)
}

fn describe(kernel: &Kernel<'_>) {
    println!(
        "kernel `{}` (MSL `{}`), threadgroup {:?}, {:?} bindings:",
        kernel.name(),
        kernel.msl_name(),
        kernel.default_threads_per_threadgroup(),
        kernel.binding_model()
    );
    for b in kernel.bindings() {
        println!(
            "  (set {}, binding {}) {:?} {:?}, min size {}",
            b.set(),
            b.binding(),
            b.kind(),
            b.access(),
            b.min_size()
        );
    }
}

fn run(path: &str, name: &str) -> Result<ExitCode, Box<dyn Error>> {
    let owned = OwnedExecutable::read(path)?;
    let exe = owned.executable();
    let kernel = exe
        .entry_point(name)
        .ok_or_else(|| format!("{path} has no kernel `{name}`"))?;
    describe(&kernel);

    // The portable plan, with placeholder GPU addresses: the same commands
    // the Metal run encodes.
    let bytes = u64::from(N) * 4;
    let mut bindings = Bindings::new();
    bindings
        .buffer(0, 0, 0x1_0000_0000, 0, bytes)
        .buffer(0, 1, 0x2_0000_0000, 0, bytes)
        .buffer(0, 2, 0x3_0000_0000, 0, 8);
    let plan = DispatchPlan::new(
        &kernel,
        &Specialization::defaults(&kernel),
        &bindings,
        &[],
        Grid::Threads([N, 1, 1]),
    )?;
    print!("{plan}");

    #[cfg(target_vendor = "apple")]
    {
        metal_run(exe, name)?;
        Ok(ExitCode::SUCCESS)
    }
    #[cfg(not(target_vendor = "apple"))]
    {
        let err = runtime_loader::metal::Device::new().unwrap_err();
        eprintln!("{err}: the executable was verified and planned, nothing was run");
        Ok(ExitCode::from(2))
    }
}

#[cfg(target_vendor = "apple")]
fn metal_run(exe: runtime_loader::Executable<'_>, name: &str) -> Result<(), Box<dyn Error>> {
    use std::time::Duration;

    use runtime_loader::memory::MemoryType;
    use runtime_loader::metal::{Device, ResourceBindings};

    let device = Device::new()?;
    println!(
        "device: {} (Metal 3: {}, unified memory: {})",
        device.name(),
        device.supports_metal3(),
        device.has_unified_memory()
    );
    let program = device.load(exe)?;
    println!("library 0 from {:?}", program.library_origin(0));
    let pipeline = program.pipeline(name, &[])?;
    println!(
        "pipeline: maxTotalThreadsPerThreadgroup {}, argument buffers via {:?}",
        pipeline.max_total_threads_per_threadgroup(),
        pipeline.argument_encoding()
    );

    let (x, y, params) = inputs();
    let as_bytes = |v: &[f32]| v.iter().flat_map(|f| f.to_le_bytes()).collect::<Vec<u8>>();
    let xb = device.buffer_with_data(&as_bytes(&x), MemoryType::HostVisible)?;
    let yb = device.buffer_with_data(&as_bytes(&y), MemoryType::HostVisible)?;
    let pb = device.buffer_with_data(&params, MemoryType::HostVisible)?;
    let mut bindings = ResourceBindings::new();
    bindings
        .buffer(0, 0, &xb)
        .buffer(0, 1, &yb)
        .buffer(0, 2, &pb);

    // The GPU waits for the host to signal 1 (a wait issued before its
    // signal), runs the dispatch, then signals 2.
    let semaphore = device.semaphore(0)?;
    let mut cb = device.command_buffer()?;
    cb.wait(&semaphore, 1);
    let mut pass = cb.compute()?;
    pass.dispatch(&pipeline, &bindings, &[], Grid::Threads([N, 1, 1]))?;
    pass.end();
    cb.signal(&semaphore, 2);
    let submission = cb.commit();
    semaphore.signal(1)?;
    semaphore.wait(2, Duration::from_secs(30))?;
    submission.wait()?;

    let out = yb.to_vec()?;
    let mut wrong = 0;
    for (i, chunk) in out.chunks_exact(4).enumerate() {
        let got = f32::from_le_bytes(chunk.try_into()?);
        let want = A * x[i] + y[i];
        if got != want {
            if wrong < 10 {
                eprintln!("y[{i}] = {got}, expected {want}");
            }
            wrong += 1;
        }
    }
    if wrong > 0 {
        return Err(format!("{wrong} of {N} results are wrong").into());
    }
    println!("saxpy: all {N} results match");
    Ok(())
}
