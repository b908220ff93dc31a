//! Loads the kernels that `build.rs` compiled with `halc::build`, binds them
//! through the generated types and, on Unix with clang++ (the runtime-loader's
//! CPU backend), dispatches them and checks every result.
//!
//! Exit status: 0 when every check passed (or, without clang++, when the
//! plans were made and the dispatch was skipped, which `HALC_REQUIRE_CLANG=1`
//! turns into a failure); 1 on any error or wrong result.

use std::error::Error;
use std::process::ExitCode;

use runtime_loader::plan::{BufferBinding, DispatchPlan, Grid, Specialization};
use runtime_loader::OwnedExecutable;

/// The generated bindings: one module per kernel.
mod kernels {
    include!(concat!(env!("OUT_DIR"), "/kernels.rs"));
}

use kernels::{fill, transform};

/// Elements: several threadgroups and a partial last one.
const N: u32 = 1000;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The uniform block, built through the generated struct (std140: the
/// mat2's columns and every `float` of the array take 16 bytes).
fn params() -> transform::Params {
    let mut p = transform::Params::ZERO;
    // A = [[2, 0], [1, 3]] (columns), t = (1, -1).
    p.affine.m[0][..2].copy_from_slice(&[2.0, 0.0]);
    p.affine.m[1][..2].copy_from_slice(&[1.0, 3.0]);
    p.affine.t = [1.0, -1.0];
    p.bias3 = [0.5, 0.25, 100.0];
    for (i, w) in p.weights.iter_mut().enumerate() {
        w.value = (i + 1) as f32;
    }
    p
}

fn push() -> transform::PushConstants {
    transform::PushConstants { n: N, scale: 2.0 }
}

fn input() -> Vec<[f32; 2]> {
    (0..N).map(|i| [i as f32, (i % 7) as f32]).collect()
}

/// What `transform` computes, on the host.
fn expected(x: &[[f32; 2]], use_bias: bool) -> Vec<[f32; 2]> {
    let (pc, p) = (push(), params());
    x.iter()
        .enumerate()
        .map(|(i, v)| {
            let m = p.affine.m;
            let a = [
                m[0][0] * v[0] + m[1][0] * v[1] + p.affine.t[0],
                m[0][1] * v[0] + m[1][1] * v[1] + p.affine.t[1],
            ];
            let w = p.weights[i % 4].value;
            let mut r = [pc.scale * a[0] * w, pc.scale * a[1] * w];
            if use_bias {
                r[0] += p.bias3[0];
                r[1] += p.bias3[1];
            }
            r
        })
        .collect()
}

fn run() -> Result<(), Box<dyn Error>> {
    let owned = OwnedExecutable::from_vec(kernels::EXECUTABLE.to_vec())?;
    let exe = owned.executable();
    println!("kernels: {:?}", kernels::KERNELS);

    // The generated constants agree with what the runtime reads from the file.
    let kernel = exe
        .entry_point(transform::NAME)
        .ok_or("no kernel `transform` in the executable")?;
    check(
        kernel.default_threads_per_threadgroup() == transform::THREADS_PER_THREADGROUP,
        "threadgroup size",
    )?;
    let pc = kernel.push_constants().ok_or("no push constants")?;
    check(
        pc.size as usize == transform::PUSH_CONSTANTS_SIZE
            && pc.buffer_index == transform::PUSH_CONSTANTS_BUFFER_INDEX,
        "push constants",
    )?;
    use transform::bindings::{dst, params, src};
    for (set, binding, id) in [
        (src::SET, src::BINDING, src::ID),
        (dst::SET, dst::BINDING, dst::ID),
        (params::SET, params::BINDING, params::ID),
    ] {
        let b = kernel
            .binding(set, binding)
            .ok_or(format!("no (set {set}, binding {binding})"))?;
        check(b.id() == Some(id), "argument-buffer id")?;
    }

    // A portable plan from the generated argument struct: every buffer on
    // its own (set, binding), the push constants exactly the block's bytes.
    let range = |gpu_address: u64, length: u64| BufferBinding {
        gpu_address,
        offset: 0,
        length,
    };
    let args = transform::Args {
        params: range(0x1000, transform::Params::SIZE as u64),
        src: range(0x2000, src::size_for(N.into())),
        dst: range(0x3000, dst::size_for(N.into())),
    };
    let spec = Specialization::new(&kernel, &[transform::spec::use_bias(true)])?;
    let plan = DispatchPlan::new(
        &kernel,
        &spec,
        &args.bindings(),
        transform::push_constant_bytes(&push()),
        Grid::Threads([N.into(), 1, 1]),
    )?;
    println!("{plan}");

    dispatch(&owned)
}

fn check(ok: bool, what: &str) -> Result<(), Box<dyn Error>> {
    if ok {
        Ok(())
    } else {
        Err(format!("generated bindings disagree with the executable: {what}").into())
    }
}

#[cfg(unix)]
fn dispatch(owned: &OwnedExecutable) -> Result<(), Box<dyn Error>> {
    use runtime_loader::cpu::{CpuError, Device, ResourceBindings};

    let device = match Device::new() {
        Ok(d) => d,
        Err(e @ CpuError::ClangNotFound { .. })
            if std::env::var_os("HALC_REQUIRE_CLANG").is_none() =>
        {
            println!("skipped: the dispatch needs clang++ ({e})");
            return Ok(());
        }
        Err(e) => return Err(e.into()),
    };
    let program = device.load(owned.executable())?;
    let x = input();
    let x_bytes: Vec<u8> = x.iter().flatten().flat_map(|f| f.to_le_bytes()).collect();
    for use_bias in [false, true] {
        let src_buf = device.buffer_with_data(&x_bytes)?;
        let dst_buf = device.buffer(transform::bindings::dst::size_for(N.into()) as usize)?;
        let params_buf = device.buffer_with_data(params().as_bytes())?;
        let pipeline = program.pipeline(transform::NAME, &[transform::spec::use_bias(use_bias)])?;
        let mut bound = ResourceBindings::new();
        transform::Args {
            params: &params_buf,
            src: &src_buf,
            dst: &dst_buf,
        }
        .bind(&mut bound);
        device.dispatch(
            &pipeline,
            &bound,
            transform::push_constant_bytes(&push()),
            Grid::Threads([N.into(), 1, 1]),
        )?;
        let out = dst_buf.to_vec();
        let written = u32::from_le_bytes(out[..4].try_into()?);
        check(written == N, "`written` (the block's fixed part)")?;
        let offset = transform::bindings::dst::ARRAY_OFFSET as usize;
        let want = expected(&x, use_bias);
        for (i, w) in want.iter().enumerate() {
            let at = offset + i * transform::bindings::dst::ARRAY_STRIDE as usize;
            for c in 0..2 {
                let got = f32::from_le_bytes(out[at + 4 * c..at + 4 * c + 4].try_into()?);
                if got != w[c] {
                    return Err(format!(
                        "transform (USE_BIAS = {use_bias}): y[{i}][{c}] = {got}, expected {}",
                        w[c]
                    )
                    .into());
                }
            }
        }
        println!("transform (USE_BIAS = {use_bias}): {N} elements match");
    }

    // `fill`: a spec constant and push constants, one buffer.
    let out = device.buffer(fill::bindings::o::size_for(N.into()) as usize)?;
    let pipeline = program.pipeline(fill::NAME, &[fill::spec::value(40)])?;
    let mut bound = ResourceBindings::new();
    fill::Args { o: &out }.bind(&mut bound);
    let pc = fill::PushConstants { n: N };
    device.dispatch(
        &pipeline,
        &bound,
        fill::push_constant_bytes(&pc),
        Grid::Threads([N.into(), 1, 1]),
    )?;
    for (i, chunk) in out.to_vec().chunks_exact(4).enumerate() {
        let got = u32::from_le_bytes(chunk.try_into()?);
        if got != 40 + i as u32 {
            return Err(format!("fill: v[{i}] = {got}, expected {}", 40 + i).into());
        }
    }
    println!("fill: {N} elements match");
    Ok(())
}

#[cfg(not(unix))]
fn dispatch(_: &OwnedExecutable) -> Result<(), Box<dyn Error>> {
    println!("skipped: the CPU backend runs on Unix only");
    Ok(())
}
