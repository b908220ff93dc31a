//! `halc diff` before it reports a difference: a kernel whose invocations
//! race (write, and read or write, the same memory without atomics or a
//! barrier between) is undefined on Metal and in Vulkan. On the CPU backend
//! a threadgroup's invocations are fibers that switch only at barriers and
//! SIMD-group operations, so a racing `+=` is a clean serial sum there and
//! loses updates on lavapipe; the CPU rerun with the race check (every
//! access seen, `cpu::Device::with_race_check`) names the race instead of
//! blaming the compiler.

use halc::diff::{diff, DiffOptions, DiffOutcome};
use halc::runtime_loader::cpu::Device;

use crate::amber::{glsl_input, tools, vulkan};

/// Every invocation adds its element to `total`: `ADD` is the statement.
fn sum_kernel(dir: &std::path::Path, name: &str, add: &str) -> halc::Input {
    glsl_input(
        dir,
        name,
        &format!(
            "#version 450\nlayout(local_size_x = 64) in;\n\
             layout(set = 0, binding = 0) buffer B {{ uint total; uint v[]; }} b;\n\
             void main() {{ uint i = gl_GlobalInvocationID.x; {add} }}\n"
        ),
    )
}

#[test]
fn a_difference_from_racing_invocations_is_inconclusive_and_names_the_race() {
    if !tools() || !vulkan() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let device = Device::new().unwrap();
    let racing = sum_kernel(dir.path(), "racing_sum", "b.total += b.v[i];");
    match diff(&racing, &DiffOptions::default(), &device).unwrap() {
        DiffOutcome::Inconclusive(m) => assert_eq!(
            m,
            "seed 1: invocations (0,0,0) and (1,0,0) of threadgroup (0,0,0) both write byte 0 of the buffer bound to (set 0, binding 0) without atomics or a barrier between: a data race, undefined on Metal and in Vulkan; not compared"
        ),
        other => panic!("not inconclusive: {other:?}"),
    }
    // Control: the same sum with atomics agrees.
    let atomic = sum_kernel(dir.path(), "atomic_sum", "atomicAdd(b.total, b.v[i]);");
    match diff(&atomic, &DiffOptions::default(), &device).unwrap() {
        DiffOutcome::Agree(_) => {}
        other => panic!("the atomic sum does not agree: {other:?}"),
    }
}

/// Threadgroup memory read by one invocation before another wrote it, with
/// no barrier between (the neighbour's slot): a race on threadgroup memory,
/// named with its offset.
#[test]
fn a_race_on_threadgroup_memory_is_named() {
    if !tools() || !vulkan() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let kernel = |name: &str, barrier: &str| {
        glsl_input(
            dir.path(),
            name,
            &format!(
                "#version 450\nlayout(local_size_x = 64) in;\n\
                 layout(set = 0, binding = 0) buffer B {{ uint v[]; }} b;\n\
                 shared uint s[64];\n\
                 void main() {{ uint l = gl_LocalInvocationID.x; uint g = gl_GlobalInvocationID.x;\n\
                   s[l] = b.v[g];\n\
                   {barrier}\n\
                   b.v[g] = s[(l + 1u) % 64u] + 1u; }}\n"
            ),
        )
    };
    let device = Device::new().unwrap();
    match diff(&kernel("no_barrier", ""), &DiffOptions::default(), &device).unwrap() {
        DiffOutcome::Inconclusive(m) => assert!(
            m.starts_with("seed 1: invocation (0,0,0) of threadgroup (0,0,0) reads and invocation (1,0,0) writes byte 4 of threadgroup memory without atomics or a barrier between: a data race"),
            "{m}"
        ),
        other => panic!("not inconclusive: {other:?}"),
    }
    // Control: with the barrier the kernel is correct and agrees.
    match diff(
        &kernel("barrier", "barrier();"),
        &DiffOptions::default(),
        &device,
    )
    .unwrap()
    {
        DiffOutcome::Agree(_) => {}
        other => panic!("{other:?}"),
    }
}

/// A miscompile in a kernel without a race stays a difference: the race
/// check finds nothing, so it hides no real difference.
#[test]
fn a_miscompile_without_a_race_stays_a_difference() {
    if !tools() || !vulkan() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let input = glsl_input(
        dir.path(),
        "triple",
        "#version 450\nlayout(local_size_x = 64) in;\n\
         layout(set = 0, binding = 0) buffer B { uint v[]; } b;\n\
         void main() { uint i = gl_GlobalInvocationID.x; b.v[i] = b.v[i] * 3u; }\n",
    );
    let device = Device::new().unwrap();
    match diff(&input, &DiffOptions::default(), &device).unwrap() {
        DiffOutcome::Agree(_) => {}
        other => panic!("{other:?}"),
    }
    // The miscompile: every result plus one, after the kernel's store.
    let opts = DiffOptions {
        tamper: Some(|c| {
            let msl = &mut c.kernels[0].msl.source;
            let at = msl.rfind(';').unwrap() + 1;
            msl.insert_str(at, " (*spvDescriptorSet0.b).v[i] += 1u;");
        }),
        ..Default::default()
    };
    match diff(&input, &opts, &device).unwrap() {
        DiffOutcome::Differ(m) => assert!(
            m.starts_with("seed 1: (set 0, binding 0) byte 0 (u32): vulkan "),
            "{m}"
        ),
        other => panic!("not a difference: {other:?}"),
    }
}

/// Threadgroups ordered by nothing: 4 single-invocation groups each write
/// their partial result, count themselves in with a relaxed `atomicAdd`,
/// and the last one in sums the partial results (a reduction's last-block
/// pattern). Without a barrier wider than a workgroup the relaxed atomic
/// orders nothing between threadgroups (Vulkan's memory model; the kernel's
/// SPIR-V says so), so the last group's reads race with the others' writes,
/// and the difference a miscompile adds is inconclusive, naming the race.
/// Control: with `memoryBarrierBuffer()` before the count (a device-scope
/// barrier that orders the partial results before it, as the pattern
/// needs) the race check does not blame the groups, and the difference
/// stands.
#[test]
fn relaxed_atomics_do_not_order_threadgroups() {
    if !tools() || !vulkan() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let device = Device::new().unwrap();
    let kernel = |name: &str, fence: &str| {
        glsl_input(
            dir.path(),
            name,
            &format!(
                "#version 450\nlayout(local_size_x = 1) in;\n\
                 layout(set = 0, binding = 0) buffer B {{ uint count; uint sum; uint part[4]; }} b;\n\
                 void main() {{ uint g = gl_WorkGroupID.x; b.part[g] = g + 1u; {fence}\n\
                   if (atomicAdd(b.count, 1u) == 3u) {{ b.sum = b.part[0] + b.part[1] + b.part[2] + b.part[3]; }} }}\n"
            ),
        )
    };
    // Four workgroups, the buffer zeroed (the count starts at 0), and a
    // difference on every run: the sum off by 1000 after the kernel's last
    // store, in the last group.
    let opts = DiffOptions {
        groups: [4, 1, 1],
        given: vec![(0, 0, vec![0u8; 24])],
        tamper: Some(|c| {
            let msl = &mut c.kernels[0].msl.source;
            let at = msl.rfind(';').unwrap() + 1;
            msl.insert_str(at, " (*spvDescriptorSet0.b).sum += 1000u;");
        }),
        ..Default::default()
    };
    match diff(&kernel("relaxed", ""), &opts, &device).unwrap() {
        DiffOutcome::Inconclusive(m) => assert!(
            m.contains("of threadgroup (0,0,0)")
                && m.contains("of threadgroup (3,0,0)")
                && m.contains("byte 8 of the buffer bound to (set 0, binding 0)")
                && m.contains("a data race"),
            "{m}"
        ),
        other => panic!("not inconclusive: {other:?}"),
    }
    match diff(&kernel("fenced", "memoryBarrierBuffer();"), &opts, &device).unwrap() {
        DiffOutcome::Differ(m) => assert!(
            m.contains("(set 0, binding 0) byte 4 (u32): vulkan 10, metal-on-cpu 1010"),
            "{m}"
        ),
        other => panic!("not a difference: {other:?}"),
    }
}
