//! Times the steps of a reference run on the default device (lavapipe):
//! creating a `Reference`, a pipeline, and one small dispatch.
//!
//!     cargo run -p vulkan-reference --example vk_timing

use std::time::{Duration, Instant};

use vulkan_reference::{
    BindingDesc, BindingKind, Bound, PipelineDesc, Reference, ReferenceOptions,
};

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/kernels/saxpy.spv");
    let words: Vec<u32> = std::fs::read(path)?
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();

    let mut news = Vec::new();
    for _ in 0..5 {
        let t = Instant::now();
        let vk = Reference::new(&ReferenceOptions::default())?;
        news.push(t.elapsed());
        drop(vk);
    }
    println!(
        "Reference::new: first {:?}, then median {:?}",
        news[0],
        median(news[1..].to_vec())
    );

    let vk = Reference::new(&ReferenceOptions::default())?;
    println!("device: {} / {}", vk.device_name(), vk.driver_info());
    let bindings = [
        BindingDesc {
            set: 0,
            binding: 0,
            kind: BindingKind::Storage,
            count: 1,
        },
        BindingDesc {
            set: 0,
            binding: 1,
            kind: BindingKind::Storage,
            count: 1,
        },
        BindingDesc {
            set: 0,
            binding: 2,
            kind: BindingKind::Uniform,
            count: 1,
        },
    ];
    let desc = PipelineDesc {
        spirv: &words,
        entry: "main",
        specialization: &[],
        bindings: &bindings,
        push_constant_size: 0,
        ..Default::default()
    };
    let mut pipes = Vec::new();
    for _ in 0..20 {
        let t = Instant::now();
        let p = vk.pipeline(&desc)?;
        pipes.push(t.elapsed());
        drop(p);
    }
    println!(
        "pipeline (saxpy): first {:?}, then median {:?}",
        pipes[0],
        median(pipes[1..].to_vec())
    );

    let p = vk.pipeline(&desc)?;
    let n = 1024u32;
    let x = vk.buffer(&vec![0u8; n as usize * 4])?;
    let y = vk.buffer(&vec![0u8; n as usize * 4])?;
    let mut params = 2.0f32.to_le_bytes().to_vec();
    params.extend(n.to_le_bytes());
    let u = vk.buffer(&params)?;
    let bound = [
        Bound::new(0, 0, &x),
        Bound::new(0, 1, &y),
        Bound::new(0, 2, &u),
    ];
    let mut runs = Vec::new();
    for _ in 0..200 {
        let t = Instant::now();
        vk.dispatch(&p, &bound, &[], [n / 64, 1, 1])?;
        runs.push(t.elapsed());
    }
    println!(
        "dispatch (saxpy, {n} elements, {} groups): first {:?}, then median {:?}",
        n / 64,
        runs[0],
        median(runs[1..].to_vec())
    );
    let t = Instant::now();
    let b = vk.buffer(&vec![0u8; 1 << 20])?;
    let created = t.elapsed();
    let t = Instant::now();
    let _ = b.read();
    println!("buffer 1 MiB: create {created:?}, read {:?}", t.elapsed());
    Ok(())
}
