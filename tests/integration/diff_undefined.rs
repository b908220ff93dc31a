//! `halc diff` before it reports a difference: a kernel that reads memory
//! it has not written (a function-scope variable, threadgroup memory) has
//! an undefined result on Metal and in Vulkan, so a difference is
//! inconclusive, not a miscompile. The CPU backend reruns the kernel with
//! that memory zeroed and filled with a pattern; results that move with the
//! fill name the read.

use halc::diff::{diff, DiffOptions, DiffOutcome};
use halc::runtime_loader::cpu::{Device, LocalFill, ThreadgroupFill};

use crate::amber::{glsl_input, tools, vulkan};

const DOUBLE: &str = "#version 450\nlayout(local_size_x = 64) in;\n\
    layout(set = 0, binding = 0) buffer B { uint v[]; } b;\n\
    void main() { uint i = gl_GlobalInvocationID.x; b.v[i] = b.v[i] * 2u; }\n";

/// The MSL line the tampering rewrites.
const STORE: &str = "(*spvDescriptorSet0.b).v[i] *= 2u;";

#[test]
fn a_difference_from_an_unwritten_variable_is_inconclusive() {
    if !tools() || !vulkan() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let input = glsl_input(dir.path(), "double", DOUBLE);
    // Locals start as clang's pattern, so the read below is never the
    // zero that would agree.
    let device = Device::new()
        .unwrap()
        .with_fills(LocalFill::Pattern, ThreadgroupFill::Poison);

    // Untouched, the kernel agrees.
    match diff(&input, &DiffOptions::default(), &device).unwrap() {
        DiffOutcome::Agree(_) => {}
        other => panic!("{other:?}"),
    }

    // The store adds a variable the kernel never wrote.
    let opts = DiffOptions {
        tamper: Some(|c| {
            let msl = &mut c.kernels[0].msl.source;
            assert!(msl.contains(STORE), "{msl}");
            *msl = msl.replace(
                STORE,
                "uint unwritten; (*spvDescriptorSet0.b).v[i] = (*spvDescriptorSet0.b).v[i] * 2u + unwritten;",
            );
        }),
        ..Default::default()
    };
    match diff(&input, &opts, &device).unwrap() {
        DiffOutcome::Inconclusive(m) => {
            assert!(
                m.starts_with("the kernel's results on the CPU move between runs with this data, one with function-scope variables and threadgroup memory zeroed")
                    && m.contains("it reads memory it has not written, or its invocations race"),
                "{m}"
            );
            // The first place the two fills part, as zeroed and pattern.
            assert!(
                m.contains("(set 0, binding 0) byte 0 (u32): zeroed "),
                "{m}"
            );
            assert!(m.contains(", pattern "), "{m}");
        }
        other => panic!("not inconclusive: {other:?}"),
    }

    // Negative control: a wrong constant reads nothing unwritten, and stays
    // a difference.
    let opts = DiffOptions {
        tamper: Some(|c| {
            let msl = &mut c.kernels[0].msl.source;
            *msl = msl.replace(
                STORE,
                "(*spvDescriptorSet0.b).v[i] = (*spvDescriptorSet0.b).v[i] * 2u + 1u;",
            );
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

/// Threadgroup memory read before any invocation wrote it: the CPU
/// backend poisons it, so the kernel differs, and the rerun with it zeroed
/// shows why. Control: the same kernel writing every slot agrees.
#[test]
fn a_difference_from_unwritten_threadgroup_memory_is_inconclusive() {
    if !tools() || !vulkan() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // Each invocation writes its neighbour's slot, then reads its own:
    // slot 0 is written only when `wrap` is set.
    let kernel = |name: &str, wrap: bool| {
        glsl_input(
            dir.path(),
            name,
            &format!(
                "#version 450\nlayout(local_size_x = 64) in;\n\
                 layout(set = 0, binding = 0) buffer B {{ uint v[]; }} b;\n\
                 shared uint s[64];\n\
                 void main() {{ uint l = gl_LocalInvocationID.x;\n\
                   uint x = b.v[gl_GlobalInvocationID.x];\n\
                   if (l + 1u < 64u) s[l + 1u] = x; else if ({wrap}) s[0] = x;\n\
                   barrier();\n\
                   b.v[gl_GlobalInvocationID.x] = s[l]; }}\n"
            ),
        )
    };
    let device = Device::new().unwrap();
    match diff(&kernel("gap", false), &DiffOptions::default(), &device).unwrap() {
        DiffOutcome::Inconclusive(m) => assert!(
            m.contains("it reads memory it has not written, or its invocations race")
                && m.contains("zeroed 0"),
            "{m}"
        ),
        other => panic!("{other:?}"),
    }
    match diff(&kernel("no_gap", true), &DiffOptions::default(), &device).unwrap() {
        DiffOutcome::Agree(_) => {}
        other => panic!("{other:?}"),
    }
}

/// A difference in a kernel that makes NaNs from numbers (0/0 here, on
/// data that holds zeros) is inconclusive: without SignedZeroInfNanPreserve
/// Vulkan lets an implementation assume no NaN arises. The CPU rerun, with
/// floating-point exceptions exactly as the kernel's operations raise them,
/// sees the invalid operation. Control: the same miscompile on a kernel that
/// makes no NaN stays a difference.
#[test]
fn a_difference_after_a_nan_made_from_numbers_is_inconclusive() {
    if !tools() || !vulkan() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // x / x: NaN where the data holds 0 (`--buffer` below), 1 elsewhere.
    let kernel = |name: &str, body: &str| {
        glsl_input(
            dir.path(),
            name,
            &format!(
                "#version 450\nlayout(local_size_x = 4) in;\n\
                 layout(set = 0, binding = 0) buffer B {{ float v[]; }} b;\n\
                 void main() {{ uint i = gl_GlobalInvocationID.x; {body} }}\n"
            ),
        )
    };
    let floats: Vec<u8> = [0.0f32, 2.0, 3.0, 4.0]
        .iter()
        .flat_map(|f| f.to_le_bytes())
        .collect();
    let opts = |tamper: fn(&mut halc::Compiled)| DiffOptions {
        groups: [1, 1, 1],
        given: vec![(0, 0, floats.clone())],
        tamper: Some(tamper),
        ..Default::default()
    };
    // The miscompile: every result plus one.
    fn plus_one(c: &mut halc::Compiled) {
        let msl = &mut c.kernels[0].msl.source;
        // After the kernel's last statement, its store.
        let at = msl.rfind(';').unwrap() + 1;
        msl.insert_str(at, " (*spvDescriptorSet0.b).v[i] += 1.0;");
    }
    let device = Device::new().unwrap();
    match diff(
        &kernel("nan", "b.v[i] = b.v[i] / b.v[i];"),
        &opts(plus_one),
        &device,
    )
    .unwrap()
    {
        DiffOutcome::Inconclusive(m) => assert!(
            m.contains("the kernel made a NaN from numbers") && m.contains("vulkan "),
            "{m}"
        ),
        other => panic!("{other:?}"),
    }
    match diff(
        &kernel("no_nan", "b.v[i] = b.v[i] * 2.0;"),
        &opts(plus_one),
        &device,
    )
    .unwrap()
    {
        DiffOutcome::Differ(m) => assert!(
            m.starts_with("seed 1: (set 0, binding 0) byte 0 (f32): vulkan 0, metal-on-cpu 1"),
            "{m}"
        ),
        other => panic!("not a difference: {other:?}"),
    }
}
