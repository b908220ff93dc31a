//! End to end on the CPU backend: every buffer-only fixture is compiled
//! in-process (both binding models), loaded by the runtime-loader, planned,
//! and run from its MSL; results are checked against values computed here.
//! Then negative controls: the same dispatches with the plan broken in the
//! ways a runtime breaks it must fail.
//!
//! Needs clang++ ≥ 15: without it each test prints why and passes, unless
//! `HALC_REQUIRE_CLANG=1`, when it fails.

use std::time::Duration;

use halc::msl::BindingModel;
use halc::runtime_loader::cpu::{CpuError, Device, DeviceOptions, Pipeline, ResourceBindings};
use halc::runtime_loader::memory::MemoryType;
use halc::runtime_loader::plan::{Command, DispatchPlan, Grid, SpecValue};
use halc::runtime_loader::Executable;

use crate::{input, kernel};

const MODELS: [BindingModel; 2] = [BindingModel::ArgumentBuffers, BindingModel::Discrete];

/// The CPU device the integration tests share (its kernel cache under
/// `$HALC_CPU_CACHE` or the temp dir); `None`, having said so, without
/// clang++ unless `HALC_REQUIRE_CLANG=1`.
pub(crate) fn device() -> Option<Device> {
    let cache_dir = std::env::var_os("HALC_CPU_CACHE")
        .map(Into::into)
        .unwrap_or_else(|| std::env::temp_dir().join("halc-cpu-test-cache"));
    match Device::with_options(DeviceOptions {
        cache_dir: Some(cache_dir),
        time_limit: Duration::from_secs(60),
        ..Default::default()
    }) {
        Ok(d) => Some(d),
        Err(e @ CpuError::ClangNotFound { .. })
            if std::env::var("HALC_REQUIRE_CLANG").as_deref() != Ok("1") =>
        {
            println!("skipped: {e}");
            None
        }
        Err(e) => panic!("{e}"),
    }
}

/// `fixtures/kernels/NAME.spv` compiled with `model`, as executable bytes.
fn build(name: &str, model: BindingModel) -> Vec<u8> {
    let options = crate::options_for(model);
    let inp = input(&kernel(&format!("{name}.spv")));
    halc::compile(std::slice::from_ref(&inp), &options)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .to_flatbuffer()
}

/// The pipeline of the executable's one kernel (named after its fixture).
fn pipeline<'a>(dev: &Device, exe: Executable<'a>, spec: &[SpecValue]) -> Pipeline<'a> {
    let name = exe.entry_points().next().expect("one kernel").name();
    dev.load(exe)
        .unwrap()
        .pipeline(name, spec)
        .unwrap_or_else(|e| panic!("{e}"))
}

fn bytes_f32(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|f| f.to_le_bytes()).collect()
}

fn bytes_u32(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|f| f.to_le_bytes()).collect()
}

fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn u32s(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// saxpy: x, y, params {a, n} at (0, 0..=2); `n` threads.
struct Saxpy {
    x: Vec<f32>,
    y: Vec<f32>,
    a: f32,
}

impl Saxpy {
    fn new(n: usize) -> Saxpy {
        Saxpy {
            x: (0..n).map(|i| i as f32 * 0.5).collect(),
            y: (0..n).map(|i| 1000.0 - i as f32).collect(),
            a: 3.0,
        }
    }

    fn expected(&self) -> Vec<f32> {
        self.x
            .iter()
            .zip(&self.y)
            .map(|(x, y)| self.a * x + y)
            .collect()
    }
}

/// Runs saxpy with `n` threads (params.n = n), letting `tamper` change the
/// plan first. Returns y.
fn run_saxpy(
    dev: &Device,
    model: BindingModel,
    s: &Saxpy,
    n: u32,
    tamper: impl FnOnce(&mut DispatchPlan),
) -> Result<Vec<f32>, CpuError> {
    let bytes = build("saxpy", model);
    let exe = Executable::load(&bytes).unwrap();
    let p = pipeline(dev, exe, &[]);
    let x = dev
        .buffer_with_data(&bytes_f32(&s.x), MemoryType::HostVisible)
        .unwrap();
    let y = dev
        .buffer_with_data(&bytes_f32(&s.y), MemoryType::HostVisible)
        .unwrap();
    let mut params = s.a.to_le_bytes().to_vec();
    params.extend(n.to_le_bytes());
    let params = dev
        .buffer_with_data(&params, MemoryType::HostVisible)
        .unwrap();
    let mut b = ResourceBindings::new();
    b.buffer(0, 0, &x).buffer(0, 1, &y).buffer(0, 2, &params);
    let mut plan = DispatchPlan::new(
        p.kernel(),
        p.specialization(),
        &b.to_plan()?,
        &[],
        Grid::Threads([n, 1, 1]),
    )?;
    tamper(&mut plan);
    dev.execute(&p, &plan, &b)?;
    Ok(f32s(&y.to_vec().unwrap()))
}

#[test]
fn saxpy_runs_in_both_binding_models() {
    let Some(dev) = device() else { return };
    let s = Saxpy::new(1000);
    for model in MODELS {
        let y = run_saxpy(&dev, model, &s, 1000, |_| {}).unwrap();
        assert_eq!(y, s.expected(), "{model:?}");
    }
}

#[test]
fn push_constants_arrive_at_their_slot() {
    let Some(dev) = device() else { return };
    let n = 100usize;
    let src: Vec<f32> = (0..2 * n).map(|i| i as f32).collect();
    for model in MODELS {
        let bytes = build("push_constants", model);
        let exe = Executable::load(&bytes).unwrap();
        let p = pipeline(&dev, exe, &[]);
        let a = dev
            .buffer_with_data(&bytes_f32(&src), MemoryType::HostVisible)
            .unwrap();
        let d = dev
            .buffer(8 * (n as u64 + 28), MemoryType::HostVisible)
            .unwrap();
        let count = n as u32 - 3; // the last 3 pairs stay untouched
        let mut pc = count.to_le_bytes().to_vec();
        pc.extend(2.0f32.to_le_bytes());
        pc.extend(bytes_f32(&[10.0, -1.0]));
        let mut b = ResourceBindings::new();
        b.buffer(0, 0, &a).buffer(0, 1, &d);
        dev.dispatch(&p, &b, &pc, Grid::Threads([n as u32 + 28, 1, 1]))
            .unwrap();
        let got = f32s(&d.to_vec().unwrap());
        for i in 0..n + 28 {
            let expected = if i < count as usize {
                [src[2 * i] * 2.0 + 10.0, src[2 * i + 1] * 2.0 - 1.0]
            } else {
                [0.0, 0.0]
            };
            assert_eq!(got[2 * i..2 * i + 2], expected, "{model:?} element {i}");
        }
    }
}

#[test]
fn shared_memory_reduction_with_barriers() {
    let Some(dev) = device() else { return };
    let groups = 12usize;
    let data: Vec<f32> = (0..256 * groups).map(|i| ((i * 7) % 13) as f32).collect();
    for model in MODELS {
        let bytes = build("shared_memory", model);
        let exe = Executable::load(&bytes).unwrap();
        let p = pipeline(&dev, exe, &[]);
        let inp = dev
            .buffer_with_data(&bytes_f32(&data), MemoryType::HostVisible)
            .unwrap();
        let out = dev
            .buffer(4 * groups as u64, MemoryType::HostVisible)
            .unwrap();
        let mut b = ResourceBindings::new();
        b.buffer(0, 0, &inp).buffer(0, 1, &out);
        dev.dispatch(&p, &b, &[], Grid::Threadgroups([groups as u32, 1, 1]))
            .unwrap();
        let got = f32s(&out.to_vec().unwrap());
        for g in 0..groups {
            let expected: f32 = data[256 * g..256 * (g + 1)].iter().sum();
            assert_eq!(got[g], expected, "{model:?} group {g}");
        }
    }
}

#[test]
fn subgroup_sum_and_ballot_per_simd_group() {
    let Some(dev) = device() else { return };
    let groups = 5usize;
    let x: Vec<f32> = (0..64 * groups)
        .map(|i| if i % 3 == 0 { -(i as f32) } else { i as f32 })
        .collect();
    for model in MODELS {
        let bytes = build("subgroup", model);
        let exe = Executable::load(&bytes).unwrap();
        let p = pipeline(&dev, exe, &[]);
        let inp = dev
            .buffer_with_data(&bytes_f32(&x), MemoryType::HostVisible)
            .unwrap();
        let sums = dev
            .buffer(4 * 2 * groups as u64, MemoryType::HostVisible)
            .unwrap();
        let counts = dev
            .buffer(4 * 2 * groups as u64, MemoryType::HostVisible)
            .unwrap();
        let mut b = ResourceBindings::new();
        b.buffer(0, 0, &inp)
            .buffer(0, 1, &sums)
            .buffer(0, 2, &counts);
        dev.dispatch(&p, &b, &[], Grid::Threadgroups([groups as u32, 1, 1]))
            .unwrap();
        let (s, c) = (
            f32s(&sums.to_vec().unwrap()),
            u32s(&counts.to_vec().unwrap()),
        );
        // 64 threads = two 32-lane SIMD groups per threadgroup.
        for slot in 0..2 * groups {
            let lanes = &x[32 * slot..32 * (slot + 1)];
            assert_eq!(s[slot], lanes.iter().sum::<f32>(), "{model:?} sum {slot}");
            let positive = lanes.iter().filter(|&&v| v > 0.0).count() as u32;
            assert_eq!(c[slot], positive, "{model:?} count {slot}");
        }
    }
}

#[test]
fn atomics_count_across_threadgroups() {
    let Some(dev) = device() else { return };
    let n = 64 * 40;
    let values: Vec<u32> = (0..n as u32)
        .map(|i| i.wrapping_mul(2_654_435_761) >> 7)
        .collect();
    let mut bins = [0u32; 16];
    for v in &values {
        bins[(v & 15) as usize] += 1;
    }
    let total = values.iter().fold(0u32, |a, v| a.wrapping_add(*v));
    let nonzero = values.iter().filter(|&&v| v != 0).count() as u32;
    for model in MODELS {
        let bytes = build("atomics", model);
        let exe = Executable::load(&bytes).unwrap();
        let p = pipeline(&dev, exe, &[]);
        let vals = dev
            .buffer_with_data(&bytes_u32(&values), MemoryType::HostVisible)
            .unwrap();
        let counter = dev.buffer(8, MemoryType::HostVisible).unwrap();
        let hist = dev.buffer(64, MemoryType::HostVisible).unwrap();
        let mut b = ResourceBindings::new();
        b.buffer(0, 0, &vals)
            .buffer(0, 1, &counter)
            .buffer(0, 2, &hist);
        dev.dispatch(&p, &b, &[], Grid::Threads([n as u32, 1, 1]))
            .unwrap();
        assert_eq!(
            u32s(&counter.to_vec().unwrap()),
            [total, nonzero],
            "{model:?}"
        );
        assert_eq!(u32s(&hist.to_vec().unwrap()), bins, "{model:?}");
    }
}

#[test]
fn array_length_reads_the_sizes_table() {
    let Some(dev) = device() else { return };
    for model in MODELS {
        let bytes = build("array_length", model);
        let exe = Executable::load(&bytes).unwrap();
        let p = pipeline(&dev, exe, &[]);
        // header + 7 floats; 11 indices.
        let mut data = 0u32.to_le_bytes().to_vec();
        data.extend(bytes_f32(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.5]));
        let data = dev
            .buffer_with_data(&data, MemoryType::HostVisible)
            .unwrap();
        let idx = dev.buffer(4 * 11, MemoryType::HostVisible).unwrap();
        let mut b = ResourceBindings::new();
        b.buffer(0, 0, &data).buffer(0, 1, &idx);
        dev.dispatch(&p, &b, &[], Grid::Threads([1, 1, 1])).unwrap();
        let header = u32s(&data.to_vec().unwrap())[0];
        assert_eq!(header, 28 + 11, "{model:?}: uint(sum) + n");
        assert_eq!(
            u32s(&idx.to_vec().unwrap()),
            (0..11).rev().collect::<Vec<u32>>(),
            "{model:?}"
        );
    }
}

/// f32 → f16 bits for values exactly representable as normal halves.
fn half_bits(f: f32) -> u16 {
    let b = f.to_bits();
    if f == 0.0 {
        return 0;
    }
    let sign = ((b >> 16) & 0x8000) as u16;
    let exp = ((b >> 23) & 0xff) as i32 - 127 + 15;
    assert!(
        (1..31).contains(&exp) && b & 0x1fff == 0,
        "{f} is not a plain half"
    );
    sign | ((exp as u16) << 10) | ((b >> 13) & 0x3ff) as u16
}

#[test]
fn small_types_compute_in_8_and_16_bits() {
    let Some(dev) = device() else { return };
    let n = 64usize;
    let bytes_in: Vec<u8> = (0..n).map(|i| (250 + i) as u8).collect(); // wraps at 255 + 1
    let halves: Vec<f32> = (0..n).map(|i| i as f32 - 20.0).collect();
    let shorts: Vec<i16> = (0..n).map(|i| 16_000 + 100 * i as i16).collect(); // * 2 wraps
    let expected: Vec<f32> = (0..n)
        .map(|i| {
            let b = bytes_in[i].wrapping_add(1);
            let s = shorts[i].wrapping_mul(2);
            halves[i] * 0.5 + f32::from(b) + f32::from(s)
        })
        .collect();
    for model in MODELS {
        let exe_bytes = build("small_types", model);
        let exe = Executable::load(&exe_bytes).unwrap();
        let p = pipeline(&dev, exe, &[]);
        let b8 = dev
            .buffer_with_data(&bytes_in, MemoryType::HostVisible)
            .unwrap();
        let h16 = dev
            .buffer_with_data(
                &halves
                    .iter()
                    .flat_map(|&h| half_bits(h).to_le_bytes())
                    .collect::<Vec<_>>(),
                MemoryType::HostVisible,
            )
            .unwrap();
        let s16 = dev
            .buffer_with_data(
                &shorts
                    .iter()
                    .flat_map(|s| s.to_le_bytes())
                    .collect::<Vec<_>>(),
                MemoryType::HostVisible,
            )
            .unwrap();
        let out = dev.buffer(4 * n as u64, MemoryType::HostVisible).unwrap();
        let mut b = ResourceBindings::new();
        b.buffer(0, 0, &b8)
            .buffer(0, 1, &h16)
            .buffer(0, 2, &s16)
            .buffer(0, 3, &out);
        dev.dispatch(&p, &b, &[], Grid::Threads([n as u32, 1, 1]))
            .unwrap();
        assert_eq!(f32s(&out.to_vec().unwrap()), expected, "{model:?}");
    }
}

#[test]
fn spec_constants_are_specialised() {
    let Some(dev) = device() else { return };
    let n = 256usize;
    let v: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let bias: Vec<f32> = (0..128).map(|i| 1000.0 * i as f32).collect();
    // (values, alpha, use_bias, offset, threadgroup width)
    let cases: [(Vec<SpecValue>, f32, bool, i32, usize); 2] = [
        (vec![], 2.5, true, -4, 128),
        (
            vec![
                SpecValue::u32(0, 32),
                SpecValue::f32(1, 0.5),
                SpecValue::bool(2, false),
                SpecValue::i32(3, 7),
            ],
            0.5,
            false,
            7,
            32,
        ),
    ];
    for model in MODELS {
        let bytes = build("spec_constants", model);
        for (values, alpha, use_bias, offset, width) in &cases {
            let exe = Executable::load(&bytes).unwrap();
            let p = pipeline(&dev, exe, values);
            assert_eq!(
                p.specialization().threads_per_threadgroup()[0],
                *width as u32
            );
            let data = dev
                .buffer_with_data(&bytes_f32(&v), MemoryType::HostVisible)
                .unwrap();
            let bias_buf = dev
                .buffer_with_data(&bytes_f32(&bias), MemoryType::HostVisible)
                .unwrap();
            let mut b = ResourceBindings::new();
            b.buffer(0, 0, &data).buffer(0, 1, &bias_buf);
            dev.dispatch(&p, &b, &[], Grid::Threads([n as u32, 1, 1]))
                .unwrap();
            let expected: Vec<f32> = (0..n)
                .map(|i| {
                    let x = v[i] * alpha + *offset as f32;
                    if *use_bias {
                        x + bias[i % width]
                    } else {
                        x
                    }
                })
                .collect();
            assert_eq!(
                f32s(&data.to_vec().unwrap()),
                expected,
                "{model:?} {values:?}"
            );
        }
    }
}

#[test]
fn sparse_sets_bind_by_set_and_binding() {
    let Some(dev) = device() else { return };
    let n = 96usize;
    let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let bb: Vec<f32> = (0..n).map(|i| 0.25 * i as f32).collect();
    let expected: Vec<f32> = (0..n).map(|i| a[i] * 3.0 + bb[i] + 0.5).collect();
    for model in MODELS {
        let bytes = build("sparse_sets", model);
        let exe = Executable::load(&bytes).unwrap();
        let k = exe.entry_point("sparse_sets").unwrap();
        assert!(
            k.binding(1, 0).is_none(),
            "the unused set 1 is not a binding"
        );
        let p = pipeline(&dev, exe, &[]);
        let ab = dev
            .buffer_with_data(&bytes_f32(&a), MemoryType::HostVisible)
            .unwrap();
        let out = dev.buffer(4 * n as u64, MemoryType::HostVisible).unwrap();
        let scale = dev
            .buffer_with_data(&bytes_f32(&[3.0, 0.5]), MemoryType::HostVisible)
            .unwrap();
        let bbuf = dev
            .buffer_with_data(&bytes_f32(&bb), MemoryType::HostVisible)
            .unwrap();
        let mut b = ResourceBindings::new();
        b.buffer(0, 3, &ab)
            .buffer(0, 7, &out)
            .buffer(2, 1, &scale)
            .buffer(2, 5, &bbuf);
        dev.dispatch(&p, &b, &[], Grid::Threads([n as u32, 1, 1]))
            .unwrap();
        assert_eq!(f32s(&out.to_vec().unwrap()), expected, "{model:?}");
    }
}

// ---------------------------------------------------------- negative controls

#[test]
fn two_swapped_buffer_slots_give_wrong_results() {
    let Some(dev) = device() else { return };
    let s = Saxpy::new(256);
    let y = run_saxpy(&dev, BindingModel::Discrete, &s, 256, |plan| {
        let idx: Vec<usize> = plan
            .commands
            .iter()
            .enumerate()
            .filter(|(_, c)| matches!(c, Command::SetBuffer { key, .. } if key.binding < 2))
            .map(|(i, _)| i)
            .collect();
        assert_eq!(idx.len(), 2);
        let (Command::SetBuffer { index: a, .. }, Command::SetBuffer { index: b, .. }) =
            (plan.commands[idx[0]].clone(), plan.commands[idx[1]].clone())
        else {
            unreachable!()
        };
        for (i, new) in [(idx[0], b), (idx[1], a)] {
            if let Command::SetBuffer { index, .. } = &mut plan.commands[i] {
                *index = new;
            }
        }
    })
    .unwrap();
    assert_ne!(y, s.expected(), "swapped x and y must not give saxpy");
    // y was read as x and x written: y is untouched.
    assert_eq!(y, s.y);
}

#[test]
fn a_shifted_argument_buffer_offset_fails() {
    let Some(dev) = device() else { return };
    let s = Saxpy::new(256);
    // The planner writes outBuf (binding 1, byte offset 8) 8 bytes too far,
    // over the params pointer.
    let e = run_saxpy(&dev, BindingModel::ArgumentBuffers, &s, 256, |plan| {
        let ab = &mut plan.argument_buffers[0];
        let m = ab.members.iter().find(|m| m.key.binding == 1).unwrap();
        let at = m.byte_offset as usize;
        let word: [u8; 8] = ab.bytes[at..at + 8].try_into().unwrap();
        ab.bytes[at..at + 8].fill(0);
        ab.bytes[at + 8..at + 16].copy_from_slice(&word);
    })
    .unwrap_err();
    assert!(
        matches!(&e, CpuError::StrayAddress { key, byte_offset: 8, .. } if key.binding == 1),
        "{e}"
    );
}

#[test]
fn a_buffer_left_out_of_use_resource_fails() {
    let Some(dev) = device() else { return };
    let s = Saxpy::new(256);
    let e = run_saxpy(&dev, BindingModel::ArgumentBuffers, &s, 256, |plan| {
        plan.commands
            .retain(|c| !matches!(c, Command::UseResource { key, .. } if key.binding == 1));
    })
    .unwrap_err();
    assert!(
        matches!(&e, CpuError::NotResident { key, set: 0, .. } if key.binding == 1),
        "{e}"
    );
    assert!(e.to_string().contains("(set 0, binding 1)"), "{e}");
}

#[test]
fn a_slot_the_plan_never_sets_fails() {
    let Some(dev) = device() else { return };
    let bytes = build("push_constants", BindingModel::ArgumentBuffers);
    let exe = Executable::load(&bytes).unwrap();
    let p = pipeline(&dev, exe, &[]);
    let a = dev.buffer(8 * 64, MemoryType::HostVisible).unwrap();
    let d = dev.buffer(8 * 64, MemoryType::HostVisible).unwrap();
    let mut b = ResourceBindings::new();
    b.buffer(0, 0, &a).buffer(0, 1, &d);
    let mut plan = DispatchPlan::new(
        p.kernel(),
        p.specialization(),
        &b.to_plan().unwrap(),
        &[0; 16],
        Grid::Threads([64, 1, 1]),
    )
    .unwrap();
    plan.commands
        .retain(|c| !matches!(c, Command::SetBytes { .. }));
    let e = dev.execute(&p, &plan, &b).unwrap_err();
    assert!(
        matches!(&e, CpuError::UnboundSlot { param, index: 1, .. } if param == "pc"),
        "{e}"
    );
}

#[test]
fn an_out_of_bounds_read_fails_and_names_the_binding() {
    let Some(dev) = device() else { return };
    let s = Saxpy::new(1000);
    for model in MODELS {
        // params.n = 1024 with 1000-element buffers: threads 1000.. read x
        // and y past their ends.
        let e = run_saxpy(&dev, model, &s, 1024, |_| {}).unwrap_err();
        let text = e.to_string();
        assert!(
            matches!(e, CpuError::Fault { .. })
                && text.contains("out-of-bounds access")
                && text.contains("past the end of the buffer bound to (set 0, binding")
                && text.contains("(4000 bytes)"),
            "{model:?}: {text}"
        );
    }
}

// ------------------------------------------------- command buffers, queues

/// One command buffer: fill the first `k` words, add one to every word
/// (`add_one`), copy the words to `out` at an unaligned offset. Submitted
/// twice, it applies twice, to the buffers' contents at each submission.
#[test]
fn a_replayed_command_buffer_applies_twice() {
    let Some(dev) = device() else { return };
    for model in MODELS {
        let bytes = build("add_one", model);
        let exe = Executable::load(&bytes).unwrap();
        let p = pipeline(&dev, exe, &[]);
        let n = 100u32;
        let k = 10u64;
        let data = dev
            .buffer_with_data(
                &bytes_u32(&(0..n).map(|i| 1000 + i).collect::<Vec<_>>()),
                MemoryType::HostVisible,
            )
            .unwrap();
        let out = dev
            .buffer(4 * u64::from(n) + 3, MemoryType::HostVisible)
            .unwrap();
        let mut b = ResourceBindings::new();
        b.buffer(0, 0, &data);
        let mut cb = dev.command_buffer().unwrap();
        cb.fill(&data, 0, 4 * k, &[7, 0, 0, 0]).unwrap();
        let mut pass = cb.compute().unwrap();
        pass.dispatch(&p, &b, &n.to_le_bytes(), Grid::Threads([n, 1, 1]))
            .unwrap();
        pass.end();
        cb.copy(&data, 0, &out, 3, 4 * u64::from(n)).unwrap();

        let expect = |extra: u32, host: Option<(usize, u32)>| -> Vec<u32> {
            (0..n)
                .map(|i| match host {
                    Some((at, v)) if i as usize == at => v + 1,
                    _ if u64::from(i) < k => 8,
                    _ => 1000 + i + extra,
                })
                .collect()
        };
        dev.submit(&cb).wait().unwrap();
        assert_eq!(
            u32s(&out.to_vec().unwrap()[3..]),
            expect(1, None),
            "{model:?}: once"
        );
        // The host changes a word between the submissions: the replay
        // reads the current contents.
        data.write(4 * 50, &500u32.to_le_bytes()).unwrap();
        dev.submit(&cb).wait().unwrap();
        assert_eq!(
            u32s(&data.to_vec().unwrap()),
            expect(2, Some((50, 500))),
            "{model:?}: twice"
        );
        assert_eq!(
            u32s(&out.to_vec().unwrap()[3..]),
            expect(2, Some((50, 500)))
        );
    }
}

/// A kernel fault fails its submission: the commands after it do not run,
/// the semaphore it would have signalled fails, the queue runs the next
/// submission.
#[test]
fn a_failing_dispatch_fails_its_submission_and_the_queue_goes_on() {
    let Some(dev) = device() else { return };
    let bytes = build("saxpy", BindingModel::ArgumentBuffers);
    let exe = Executable::load(&bytes).unwrap();
    let p = pipeline(&dev, exe, &[]);
    let s = Saxpy::new(1000);
    let x = dev
        .buffer_with_data(&bytes_f32(&s.x), MemoryType::HostVisible)
        .unwrap();
    let y = dev
        .buffer_with_data(&bytes_f32(&s.y), MemoryType::HostVisible)
        .unwrap();
    // params.n = 1024 with 1000-element buffers: reads past the ends.
    let mut params = s.a.to_le_bytes().to_vec();
    params.extend(1024u32.to_le_bytes());
    let params = dev
        .buffer_with_data(&params, MemoryType::HostVisible)
        .unwrap();
    let marker = dev.buffer(4, MemoryType::HostVisible).unwrap();
    let sem = dev.semaphore(0).unwrap();
    let mut b = ResourceBindings::new();
    b.buffer(0, 0, &x).buffer(0, 1, &y).buffer(0, 2, &params);
    let mut failing = dev.command_buffer().unwrap();
    let mut pass = failing.compute().unwrap();
    pass.dispatch(&p, &b, &[], Grid::Threads([1024, 1, 1]))
        .unwrap();
    pass.end();
    failing.fill(&marker, 0, 4, &[1]).unwrap();
    failing.signal(&sem, 1);
    let mut next = dev.command_buffer().unwrap();
    next.fill(&marker, 0, 2, &[2, 2]).unwrap();

    let first = dev.submit(&failing);
    let second = dev.submit(&next);
    let e = first.wait().unwrap_err();
    assert!(
        matches!(e, CpuError::Fault { .. }) && e.to_string().contains("out-of-bounds access"),
        "{e}"
    );
    assert_eq!(first.result().unwrap_err(), e);
    let e = sem.wait(1, Duration::from_secs(30)).unwrap_err();
    assert!(
        matches!(&e, CpuError::SemaphoreFailed { value: 1, message, .. } if message.contains("out-of-bounds")),
        "{e}"
    );
    second.wait().unwrap();
    assert_eq!(
        marker.to_vec().unwrap(),
        [2, 2, 0, 0],
        "the fill after the fault ran"
    );
}

/// Plan errors are record-time errors, as on Metal: nothing is recorded.
#[test]
fn a_plan_error_is_returned_when_recording() {
    let Some(dev) = device() else { return };
    let bytes = build("add_one", BindingModel::ArgumentBuffers);
    let exe = Executable::load(&bytes).unwrap();
    let p = pipeline(&dev, exe, &[]);
    let mut cb = dev.command_buffer().unwrap();
    let mut pass = cb.compute().unwrap();
    let e = pass
        .dispatch(
            &p,
            &ResourceBindings::new(),
            &1u32.to_le_bytes(),
            Grid::Threads([1, 1, 1]),
        )
        .unwrap_err();
    assert!(matches!(e, CpuError::Plan(_)), "{e}");
    pass.end();
    assert!(cb.is_empty());
}

/// A misspelt kernel name lists the kernels there are: at run time
/// (`Program::pipeline`) and in `halc diff --entry`.
#[test]
fn misspelt_kernel_names_list_the_kernels() {
    let Some(dev) = device() else { return };
    let bytes = build("saxpy", BindingModel::ArgumentBuffers);
    let exe = Executable::load(&bytes).unwrap();
    let Err(e) = dev.load(exe).unwrap().pipeline("saxpi", &[]) else {
        panic!("a pipeline for kernel saxpi");
    };
    let e = e.to_string();
    assert_eq!(e, "no kernel named `saxpi`; the kernels are: saxpy");
    let o = crate::cli::halc(
        &[
            "diff",
            "--entry",
            "saxpi",
            &kernel("saxpy.spv").to_string_lossy(),
        ],
        std::path::Path::new("."),
    );
    let err = crate::cli::stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("--entry saxpi: no input has a GLCompute entry point or kernel named `saxpi`; the kernels are: saxpy"),
        "{err}"
    );
}

/// Emulating a Mac with a discrete GPU (`unified_memory: false`): after a
/// dispatch recorded in a command buffer, the host reads the managed buffer
/// the kernel writes only once a synchronize recorded after it has run,
/// while the one it only reads stays readable; `Device::dispatch`
/// synchronizes what it wrote, as Metal's does.
#[test]
fn a_managed_buffer_a_kernel_writes_needs_a_synchronize_before_the_host_reads_it() {
    let Some(d) = device() else {
        return;
    };
    let dev = Device::with_options(DeviceOptions {
        clang: Some(d.clang().clone()),
        cache_dir: Some(d.cache_dir().to_path_buf()),
        unified_memory: false,
        ..Default::default()
    })
    .unwrap();
    let s = Saxpy::new(100);
    let bytes = build("saxpy", BindingModel::ArgumentBuffers);
    let exe = Executable::load(&bytes).unwrap();
    let p = pipeline(&dev, exe, &[]);
    let managed = MemoryType::DeviceLocalHostVisible;
    let x = dev.buffer_with_data(&bytes_f32(&s.x), managed).unwrap();
    let y = dev.buffer_with_data(&bytes_f32(&s.y), managed).unwrap();
    let mut params = s.a.to_le_bytes().to_vec();
    params.extend(100u32.to_le_bytes());
    let params = dev.buffer_with_data(&params, managed).unwrap();
    let mut b = ResourceBindings::new();
    b.buffer(0, 0, &x).buffer(0, 1, &y).buffer(0, 2, &params);
    let grid = Grid::Threads([100, 1, 1]);

    let mut cb = dev.command_buffer().unwrap();
    let mut pass = cb.compute().unwrap();
    pass.dispatch(&p, &b, &[], grid).unwrap();
    pass.end();
    cb.commit().wait().unwrap();
    assert_eq!(y.to_vec(), Err(CpuError::NotSynchronized));
    assert_eq!(f32s(&x.to_vec().unwrap()), s.x, "x is only read");

    let mut cb = dev.command_buffer().unwrap();
    cb.synchronize(&y).unwrap();
    cb.commit().wait().unwrap();
    assert_eq!(f32s(&y.to_vec().unwrap()), s.expected());

    dev.dispatch(&p, &b, &[], grid).unwrap();
    let twice: Vec<f32> = s
        .expected()
        .iter()
        .zip(&s.x)
        .map(|(y, x)| s.a * x + y)
        .collect();
    assert_eq!(f32s(&y.to_vec().unwrap()), twice);
}

// ------------------------------------------------- a far out-of-bounds write

/// A kernel that writes `uvec4(0x600DF00D)` at `data.v[index.i]` (as a
/// signed index when `index.signed_ != 0`): one 16-byte element per index.
const FAR_WRITE: &str = "#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer Data { uvec4 v[]; } data;
layout(set = 0, binding = 1) readonly buffer Index { uint i; uint signed_; } index;
void main() {
    if (index.signed_ != 0u) {
        data.v[int(index.i)] = uvec4(0x600DF00Du);
    } else {
        data.v[index.i] = uvec4(0x600DF00Du);
    }
}
";

/// [`FAR_WRITE`] compiled by glslc and halc, on `dev`, writing into a
/// one-element buffer: runs it with `index` and returns the result and the
/// buffer.
#[cfg(target_os = "linux")]
struct FarWrite {
    dev: Device,
    exe: Vec<u8>,
}

#[cfg(target_os = "linux")]
impl FarWrite {
    fn new(options: DeviceOptions) -> Option<FarWrite> {
        if !crate::amber::tools() {
            return None;
        }
        let dir = crate::cli::tmp();
        let spv = crate::amber::glsl_to_spv(dir.path(), "far_write", FAR_WRITE);
        let inp = halc::Input::new("far_write.spv", std::fs::read(&spv).unwrap());
        let exe = halc::compile(
            std::slice::from_ref(&inp),
            &crate::options_for(BindingModel::ArgumentBuffers),
        )
        .unwrap()
        .to_flatbuffer();
        let dev = Device::with_options(DeviceOptions {
            cache_dir: Some(
                std::env::var_os("HALC_CPU_CACHE")
                    .map(Into::into)
                    .unwrap_or_else(|| std::env::temp_dir().join("halc-cpu-test-cache")),
            ),
            time_limit: Duration::from_secs(60),
            ..options
        })
        .unwrap();
        Some(FarWrite { dev, exe })
    }

    fn buffer(&self) -> halc::runtime_loader::cpu::Buffer {
        self.dev.buffer(16, MemoryType::HostVisible).unwrap()
    }

    fn run(
        &self,
        data: &halc::runtime_loader::cpu::Buffer,
        index: u32,
        signed: bool,
    ) -> Result<(), CpuError> {
        let p = pipeline(&self.dev, Executable::load(&self.exe).unwrap(), &[]);
        let index = self
            .dev
            .buffer_with_data(&bytes_u32(&[index, signed.into()]), MemoryType::HostVisible)
            .unwrap();
        let mut b = ResourceBindings::new();
        b.buffer(0, 0, data).buffer(0, 1, &index);
        let plan = DispatchPlan::new(
            p.kernel(),
            p.specialization(),
            &b.to_plan()?,
            &[],
            Grid::Threads([1, 1, 1]),
        )?;
        self.dev.execute(&p, &plan, &b)
    }
}

/// Where `data.v[index]` lies: 16 bytes an element, the index zero- or
/// sign-extended.
#[cfg(target_os = "linux")]
fn far_target(data: &halc::runtime_loader::cpu::Buffer, index: u32, signed: bool) -> u64 {
    let offset = if signed {
        i64::from(index as i32) * 16
    } else {
        i64::from(index) * 16
    };
    data.gpu_address().wrapping_add_signed(offset)
}

/// Maps a shared, writable page at the page holding `addr` only if nothing
/// is mapped there (`MAP_FIXED_NOREPLACE`); `None` if something is.
#[cfg(target_os = "linux")]
fn canary_page(addr: u64) -> Option<*mut u8> {
    let page = addr & !4095;
    // SAFETY: MAP_FIXED_NOREPLACE maps only where nothing is mapped, so no
    // existing memory is affected; the page is unmapped by the caller.
    let p = unsafe {
        libc::mmap(
            page as *mut libc::c_void,
            4096,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED | libc::MAP_ANONYMOUS | libc::MAP_FIXED_NOREPLACE,
            -1,
            0,
        )
    };
    if p == libc::MAP_FAILED {
        return None;
    }
    // A kernel older than 4.17 treats the flag as a hint.
    if p as u64 != page {
        // SAFETY: unmapping the page just mapped.
        unsafe { libc::munmap(p, 4096) };
        return None;
    }
    Some(p.cast())
}

/// A write at index 2^31 of a 16-byte-element buffer, 32 GiB past it (or
/// before it, as a signed index), lands in the buffer's own guard zone: the
/// dispatch fails with an out-of-bounds fault naming the binding, nothing
/// else could be mapped there (a canary page cannot be), and the test
/// process and its device go on.
#[cfg(target_os = "linux")]
#[test]
fn a_far_out_of_bounds_write_faults_in_the_buffers_own_guard_zone() {
    let Some(w) = FarWrite::new(DeviceOptions::default()) else {
        return;
    };
    let data = w.buffer();
    for (signed, expected) in [
        (false, "34359738352 bytes past the end of"),
        (true, "34359738368 bytes before the start of"),
    ] {
        let target = far_target(&data, 1 << 31, signed);
        assert!(
            canary_page(target).is_none(),
            "signed {signed}: {target:#x} is not reserved"
        );
        let e = w.run(&data, 1 << 31, signed).unwrap_err();
        let text = e.to_string();
        assert!(
            matches!(
                e,
                CpuError::Fault {
                    kind: halc::runtime_loader::cpu::FaultKind::OutOfBounds,
                    ..
                }
            ) && text.contains(&format!("address {target:#x} is {expected}"))
                && text.contains("the buffer bound to (set 0, binding 0) (16 bytes)"),
            "signed {signed}: {text}"
        );
    }
    // The largest unsigned index reaches the zone's last element.
    let e = w.run(&data, u32::MAX, false).unwrap_err();
    assert!(e.to_string().contains("out-of-bounds access"), "{e}");
    // The caller survives, and so does its device.
    w.run(&data, 0, false).unwrap();
    assert_eq!(u32s(&data.to_vec().unwrap()), [0x600D_F00D; 4]);
}

/// The negative control: with guard zones of one page (what the zones
/// prevent), a write as far out (16 to 32 GiB after the buffer, or before
/// it as a signed index) lands silently in whatever the process
/// mapped there (a canary page here, shared so the dispatch process's write
/// shows): the dispatch succeeds and the canary is overwritten. The index is
/// the first near 2^31 whose target page is free (other tests' buffers and
/// their zones lie about).
#[cfg(target_os = "linux")]
#[test]
fn without_wide_guard_zones_a_far_write_corrupts_another_mapping() {
    let Some(w) = FarWrite::new(DeviceOptions {
        guard_bytes: 4096,
        ..Default::default()
    }) else {
        return;
    };
    let data = w.buffer();
    for signed in [false, true] {
        // Indices 1 MiB apart, from 2^31 towards the buffer.
        let (index, target, canary) = (0..(1u32 << 14))
            .map(|k| {
                (1u32 << 31)
                    + if signed {
                        k << 16
                    } else {
                        0u32.wrapping_sub(k << 16)
                    }
            })
            .find_map(|index| {
                let target = far_target(&data, index, signed);
                canary_page(target).map(|c| (index, target, c))
            })
            .expect("no free page far from the buffer");
        let before = u32s(&data.to_vec().unwrap());
        w.run(&data, index, signed).unwrap();
        let offset = (target % 4096) as usize;
        // SAFETY: the canary page is ours, 4096 readable bytes.
        let got = unsafe { std::slice::from_raw_parts(canary.add(offset), 16) }.to_vec();
        // SAFETY: unmapping the canary page, once.
        unsafe { libc::munmap(canary.cast(), 4096) };
        assert_eq!(
            u32s(&got),
            [0x600D_F00D; 4],
            "signed {signed}, index {index:#x}"
        );
        assert_eq!(u32s(&data.to_vec().unwrap()), before, "signed {signed}");
    }
}

/// Buffer device addresses (`fixtures/kernels/buffer_reference.comp`): the
/// kernel reaches six buffers only through the addresses the host writes
/// into its push constants, a uniform block and a storage buffer
/// (`Buffer::gpu_address`), and each is given to the dispatch with
/// `ResourceBindings::reach`, which the plan turns into `useResource`.
/// Reads, writes, atomics, a two-node linked list and an address computed
/// as an integer all land where the host expects, in both binding models.
#[test]
fn device_addresses_reach_buffers_the_host_points_to() {
    use halc::runtime_loader::plan::Usage;
    let Some(dev) = device() else { return };
    const N: usize = 64;
    let vec4s = |f: &dyn Fn(usize) -> [f32; 4]| -> Vec<u8> {
        (0..N).flat_map(f).flat_map(f32::to_le_bytes).collect()
    };
    let src_v = |i: usize| [i as f32, 1.0, 2.0, 3.0];
    let scale_v = |i: usize| [2.0, i as f32, 0.5, 1.0];
    let extra_v = |k: usize, i: usize| [k as f32 * 100.0, 0.0, 1.0, i as f32];
    for model in MODELS {
        let bytes = build("buffer_reference", model);
        let exe = Executable::load(&bytes).unwrap();
        let kernel = exe.entry_points().next().unwrap();
        assert!(kernel.reads_device_addresses());
        let p = pipeline(&dev, exe, &[]);
        let host = MemoryType::HostVisible;
        let src = dev.buffer_with_data(&vec4s(&src_v), host).unwrap();
        let dst = dev.buffer(16 * N as u64, host).unwrap();
        let scale = dev.buffer_with_data(&vec4s(&scale_v), host).unwrap();
        let extra: Vec<_> = (0..2)
            .map(|k| {
                dev.buffer_with_data(&vec4s(&|i| extra_v(k, i)), host)
                    .unwrap()
            })
            .collect();
        // Node { Node next; float value; }: two nodes, the second the end.
        let node = |next: u64, value: f32| {
            let mut b = next.to_le_bytes().to_vec();
            b.extend(value.to_le_bytes());
            b.extend([0; 4]);
            b
        };
        let tail = dev.buffer_with_data(&node(0, 7.0), host).unwrap();
        let head = dev
            .buffer_with_data(&node(tail.gpu_address(), 5.0), host)
            .unwrap();
        let counters = dev.buffer(4 * 17, host).unwrap();
        // Table { Counters counters; Values extra[2]; float sums[]; }
        let mut table = counters.gpu_address().to_le_bytes().to_vec();
        for e in &extra {
            table.extend(e.gpu_address().to_le_bytes());
        }
        table.extend(vec![0u8; 4 * N]);
        let table = dev.buffer_with_data(&table, host).unwrap();
        let mut params = scale.gpu_address().to_le_bytes().to_vec();
        params.resize(16, 0);
        let params = dev.buffer_with_data(&params, host).unwrap();
        // Push { Values src; Values dst; Node list; uint n; }
        let n = N as u32 - 4;
        let mut push = Vec::new();
        for a in [src.gpu_address(), dst.gpu_address(), head.gpu_address()] {
            push.extend(a.to_le_bytes());
        }
        push.extend(n.to_le_bytes());

        let mut b = ResourceBindings::new();
        b.buffer(0, 0, &params).buffer(0, 1, &table);
        for r in [&src, &scale, &extra[0], &extra[1], &head, &tail] {
            b.reach(r, Usage::Read);
        }
        b.reach(&dst, Usage::ReadWrite)
            .reach(&counters, Usage::ReadWrite);
        let plan = DispatchPlan::new(
            p.kernel(),
            p.specialization(),
            &b.to_plan().unwrap(),
            &push,
            Grid::Threads([N as u32, 1, 1]),
        )
        .unwrap();
        // 28 bytes of push constants in SPIR-V; the MSL struct (three
        // pointers and a uint) is 32, and `setBytes` covers it.
        assert!(
            plan.commands.iter().any(|c| matches!(c,
                Command::SetBytes { bytes, .. } if bytes.len() == 32 && bytes[..28] == push[..28])),
            "{plan:?}"
        );
        let reached: Vec<_> = (plan.commands.iter())
            .filter(|c| matches!(c, Command::UseReached { .. }))
            .collect();
        assert_eq!(reached.len(), 8, "{model:?}: {plan}");
        assert!(
            plan.to_string()
                .contains("useResource(reached buffer 7, read-write)"),
            "{plan}"
        );
        // Without the padding, the dispatch fails as Metal's validation
        // would: 28 bytes bound to a 32-byte struct.
        let mut short = plan.clone();
        for c in &mut short.commands {
            if let Command::SetBytes { bytes, .. } = c {
                bytes.truncate(28);
            }
        }
        let e = dev.execute(&p, &short, &b).unwrap_err();
        assert!(
            matches!(&e, CpuError::ShortBinding { param, length: 28, needs: 32, .. } if param == "pc"),
            "{e}"
        );
        dev.execute(&p, &plan, &b).unwrap();

        let got = f32s(&dst.to_vec().unwrap());
        for i in 0..N {
            let (s, c, e) = (src_v(i), scale_v(i), extra_v(i & 1, i));
            let want: Vec<f32> = (0..4).map(|k| s[k] * c[k] + e[k]).collect();
            assert_eq!(got[4 * i..4 * i + 4], want[..], "{model:?} dst[{i}]");
        }
        let sums = f32s(&table.to_vec().unwrap()[24..]);
        for (i, &sum) in sums.iter().enumerate() {
            // 5 * 1 + 7 * 2 along the list, then src[i + 1].x.
            let next = if i + 1 < n as usize {
                (i + 1) as f32
            } else {
                0.0
            };
            assert_eq!(sum, 19.0 + next, "{model:?} sums[{i}]");
        }
        let c = u32s(&counters.to_vec().unwrap());
        assert_eq!(c[0], N as u32, "{model:?} count");
        for (bin, &h) in c[1..].iter().enumerate() {
            let want: u32 = (0..N as u32).filter(|i| i % 16 == bin as u32).sum();
            assert_eq!(h, want, "{model:?} histogram[{bin}]");
        }
    }
}
