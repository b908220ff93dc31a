//! The host side of the tour (docs/tour.md): loads the kernels that
//! `build.rs` compiled with `halc::build`, dispatches them through the
//! generated bindings and checks every result.
//!
//! The same code runs on Metal (Apple platforms) and on the runtime-loader's
//! CPU backend (elsewhere; it needs clang++ ≥ 15 at run time). Exit status:
//! 0 when every check passed, 1 on any error or wrong result.

use std::error::Error;
use std::process::ExitCode;

use runtime_loader::memory::MemoryType;
use runtime_loader::plan::Grid;
use runtime_loader::OwnedExecutable;

// One API, two backends: Metal on Apple platforms, the CPU backend elsewhere.
#[cfg(not(target_vendor = "apple"))]
use runtime_loader::cpu as gpu;
#[cfg(target_vendor = "apple")]
use runtime_loader::metal as gpu;

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

fn run() -> Result<(), Box<dyn Error>> {
    let device = gpu::Device::new()?;
    println!("device: {}", device.name());
    let exe = OwnedExecutable::from_vec(kernels::EXECUTABLE.to_vec())?;
    agrees_with_the_executable(&exe)?;
    let program = device.load(exe.executable())?;

    // `transform`: a uniform block, an input and an output buffer, push
    // constants and a function constant. The inputs are only read by the
    // kernel (`DeviceLocal`: private on Metal, no host access on either
    // backend); the host reads the output.
    let x = input();
    let params = device.buffer_with_data(uniforms().as_bytes(), MemoryType::DeviceLocal)?;
    let src = device.buffer_with_data(&bytes_of(&x), MemoryType::DeviceLocal)?;
    let dst = device.buffer(
        transform::bindings::dst::size_for(N),
        MemoryType::DeviceLocalHostVisible,
    )?;
    let mut bound = gpu::ResourceBindings::new();
    transform::Args {
        params: &params,
        src: &src,
        dst: &dst,
    }
    .bind(&mut bound);
    for use_bias in [false, true] {
        let spec = [transform::spec::use_bias(use_bias)];
        let pipeline = program.pipeline(transform::NAME, &spec)?;
        let plan = device.dispatch(
            &pipeline,
            &bound,
            transform::push_constant_bytes(&push()),
            Grid::Threads([N, 1, 1]),
        )?;
        if !use_bias {
            println!("{plan}");
        }
        check_transform(&dst.to_vec()?, &x, use_bias)?;
        println!("transform (USE_BIAS = {use_bias}): {N} elements match");
    }

    // `fill`: a function constant and push constants, one buffer.
    let out = device.buffer(
        fill::bindings::o::size_for(N),
        MemoryType::DeviceLocalHostVisible,
    )?;
    let pipeline = program.pipeline(fill::NAME, &[fill::spec::value(40)])?;
    let mut bound = gpu::ResourceBindings::new();
    fill::Args { o: &out }.bind(&mut bound);
    let pc = fill::PushConstants { n: N };
    device.dispatch(
        &pipeline,
        &bound,
        fill::push_constant_bytes(&pc),
        Grid::Threads([N, 1, 1]),
    )?;
    for (i, chunk) in out.to_vec()?.chunks_exact(4).enumerate() {
        let got = u32::from_le_bytes(chunk.try_into()?);
        if got != 40 + i as u32 {
            return Err(format!("fill: v[{i}] = {got}, expected {}", 40 + i).into());
        }
    }
    println!("fill: {N} elements match");
    Ok(())
}

/// The uniform block, built through the generated struct (std140: the
/// mat2's columns and every `float` of the array take 16 bytes).
fn uniforms() -> transform::Params {
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

fn bytes_of(x: &[[f32; 2]]) -> Vec<u8> {
    x.iter().flatten().flat_map(|f| f.to_le_bytes()).collect()
}

/// Checks `dst`'s bytes against what `transform` computes, on the host.
fn check_transform(out: &[u8], x: &[[f32; 2]], use_bias: bool) -> Result<(), Box<dyn Error>> {
    use transform::bindings::dst;
    let written = u32::from_le_bytes(out[..4].try_into()?);
    check(written == N, "`written` (the block's fixed part)")?;
    let (pc, p) = (push(), uniforms());
    for (i, v) in x.iter().enumerate() {
        let m = p.affine.m;
        let a = [
            m[0][0] * v[0] + m[1][0] * v[1] + p.affine.t[0],
            m[0][1] * v[0] + m[1][1] * v[1] + p.affine.t[1],
        ];
        let w = p.weights[i % 4].value;
        let mut want = [pc.scale * a[0] * w, pc.scale * a[1] * w];
        if use_bias {
            want[0] += p.bias3[0];
            want[1] += p.bias3[1];
        }
        let at = (dst::ARRAY_OFFSET + i as u64 * dst::ARRAY_STRIDE) as usize;
        for (c, want) in want.iter().enumerate() {
            let got = f32::from_le_bytes(out[at + 4 * c..at + 4 * c + 4].try_into()?);
            if got != *want {
                return Err(format!(
                    "transform (USE_BIAS = {use_bias}): y[{i}][{c}] = {got}, expected {want}"
                )
                .into());
            }
        }
    }
    Ok(())
}

/// The generated constants agree with what the runtime reads from the file.
fn agrees_with_the_executable(exe: &OwnedExecutable) -> Result<(), Box<dyn Error>> {
    let exe = exe.executable();
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
    Ok(())
}

fn check(ok: bool, what: &str) -> Result<(), Box<dyn Error>> {
    if ok {
        Ok(())
    } else {
        Err(format!("generated bindings disagree with the executable: {what}").into())
    }
}
