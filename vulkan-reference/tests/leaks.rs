//! Thousands of dispatches (and hundreds of buffers and pipelines) in one
//! process must not grow its memory: every per-dispatch Vulkan object is
//! freed. Its own test process, so other tests' allocations do not count.

mod common;

use std::time::Instant;

use common::*;
use vulkan_reference::{BindingDesc, BindingKind, Bound, PipelineDesc, Reference};

/// Resident set size in bytes (Linux).
fn rss() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap();
    let pages: u64 = statm.split_whitespace().nth(1).unwrap().parse().unwrap();
    pages * 4096
}

const BINDINGS: [BindingDesc; 2] = [
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
];

/// `rounds` dispatches of push_constants.spv, a new output buffer every
/// round and a new pipeline every 20th; each result checked.
fn churn(vk: &Reference, words: &[u32], rounds: u32) {
    let desc = PipelineDesc {
        spirv: words,
        entry: "main",
        specialization: &[],
        bindings: &BINDINGS,
        push_constant_size: 16,
        ..Default::default()
    };
    let src = vk.buffer(&f32_bytes(&[1.0, 2.0, 3.0, 4.0])).unwrap();
    let mut p = vk.pipeline(&desc).unwrap();
    for r in 0..rounds {
        if r % 20 == 0 {
            p = vk.pipeline(&desc).unwrap();
        }
        let dst = vk.buffer(&[0u8; 16]).unwrap();
        let mut pc = u32_bytes(&[2]);
        pc.extend(f32_bytes(&[r as f32, 0.0, 1.0]));
        vk.dispatch(
            &p,
            &[Bound::new(0, 0, &src), Bound::new(0, 1, &dst)],
            &pc,
            [1, 1, 1],
        )
        .unwrap();
        let want = [
            r as f32,
            2.0 * r as f32 + 1.0,
            3.0 * r as f32,
            4.0 * r as f32 + 1.0,
        ];
        assert_eq!(f32s(&dst.read()), want, "round {r}");
    }
}

#[test]
fn thousands_of_dispatches_do_not_grow_memory() {
    let Some(vk) = reference(&[]) else { return };
    let words = kernel("push_constants.spv");
    churn(&vk, &words, 500); // warm-up: caches, allocator pools
    let before = rss();
    let t = Instant::now();
    let rounds = 4000;
    churn(&vk, &words, rounds);
    let elapsed = t.elapsed();
    let after = rss();
    let growth = after.saturating_sub(before);
    eprintln!(
        "{rounds} dispatches (+{} pipelines, {rounds} buffers) in {elapsed:?} \
         ({:?} each); RSS {} -> {} KiB",
        rounds / 20,
        elapsed / rounds,
        before / 1024,
        after / 1024
    );
    // A leak of even one small object per dispatch (~100 bytes) would
    // show as > 400 KiB here.
    assert!(growth < 1024 * 1024, "RSS grew by {} KiB", growth / 1024);
}
