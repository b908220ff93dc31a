//! The repository's kernels on lavapipe, compared with values computed
//! here; and the errors a caller can meet. Skips (saying why) without a
//! Vulkan driver unless `HALC_REQUIRE_VULKAN=1`.

mod common;

use std::time::Duration;

use common::*;
use vulkan_reference::{
    property_names, required_by_module, BindingDesc, BindingKind, Bound, Error, PipelineDesc,
    Place, Reference, ReferenceOptions, Session,
};

const S: BindingKind = BindingKind::Storage;
const U: BindingKind = BindingKind::Uniform;

fn b(set: u32, binding: u32, kind: BindingKind) -> BindingDesc {
    BindingDesc {
        set,
        binding,
        kind,
        count: 1,
    }
}

fn desc<'a>(spirv: &'a [u32], bindings: &'a [BindingDesc]) -> PipelineDesc<'a> {
    PipelineDesc {
        spirv,
        entry: "main",
        specialization: &[],
        bindings,
        ..Default::default()
    }
}

#[test]
fn saxpy_matches_and_respects_n() {
    let Some(vk) = reference(&[]) else { return };
    let words = kernel("saxpy.spv");
    let bindings = [b(0, 0, S), b(0, 1, S), b(0, 2, U)];
    let p = vk.pipeline(&desc(&words, &bindings)).unwrap();
    // 1024 elements, n = 1000: the last 24 must stay untouched. Values are
    // exact in f32, so a fused multiply-add gives the same bits.
    let x: Vec<f32> = (0..1024).map(|i| i as f32 * 0.5).collect();
    let y: Vec<f32> = (0..1024).map(|i| 1000.0 - i as f32).collect();
    let a = 2.5f32;
    let mut params = f32_bytes(&[a]);
    params.extend(u32_bytes(&[1000, 0, 0]));
    let (bx, by, bp) = (
        vk.buffer(&f32_bytes(&x)).unwrap(),
        vk.buffer(&f32_bytes(&y)).unwrap(),
        vk.buffer(&params).unwrap(),
    );
    let bound = [
        Bound::new(0, 0, &bx),
        Bound::new(0, 1, &by),
        Bound::new(0, 2, &bp),
    ];
    vk.dispatch(&p, &bound, &[], [16, 1, 1]).unwrap();
    let got = f32s(&by.read());
    for i in 0..1024 {
        let want = if i < 1000 { a * x[i] + y[i] } else { y[i] };
        assert_eq!(got[i], want, "y[{i}]");
    }
    assert_eq!(f32s(&bx.read()), x, "the readonly input is unchanged");
}

#[test]
fn push_constants_full_and_short() {
    let Some(vk) = reference(&[]) else { return };
    let words = kernel("push_constants.spv");
    let bindings = [b(0, 0, S), b(0, 1, S)];
    let p = vk
        .pipeline(&PipelineDesc {
            push_constant_size: 16, // uint count; float scale; vec2 offset (std430: 8-aligned)
            ..desc(&words, &bindings)
        })
        .unwrap();
    let src: Vec<f32> = (0..256).map(|i| i as f32 - 100.0).collect();
    let bsrc = vk.buffer(&f32_bytes(&src)).unwrap();
    let bdst = vk.buffer(&f32_bytes(&[-7.0; 256])).unwrap();
    let bound = [Bound::new(0, 0, &bsrc), Bound::new(0, 1, &bdst)];

    // count = 100 vec2s, scale 1.5, offset (0.25, -2).
    let mut pc = u32_bytes(&[100]);
    pc.extend(f32_bytes(&[1.5, 0.25, -2.0]));
    vk.dispatch(&p, &bound, &pc, [2, 1, 1]).unwrap();
    let got = f32s(&bdst.read());
    for i in 0..128 {
        for c in 0..2 {
            let k = 2 * i + c;
            let want = if i < 100 {
                src[k] * 1.5 + [0.25, -2.0][c]
            } else {
                -7.0
            };
            assert_eq!(got[k], want, "dst[{i}].{c}");
        }
    }

    // Only count and scale given: the offset is zero-filled.
    let mut pc = u32_bytes(&[128]);
    pc.extend(f32_bytes(&[2.0]));
    vk.dispatch(&p, &bound, &pc, [2, 1, 1]).unwrap();
    let got = f32s(&bdst.read());
    for k in 0..256 {
        assert_eq!(got[k], src[k] * 2.0, "dst component {k}");
    }

    // Longer than the block: an error, not a truncation.
    let e = vk.dispatch(&p, &bound, &[0u8; 20], [1, 1, 1]).unwrap_err();
    assert!(matches!(e, Error::PushConstants { .. }), "{e}");
}

#[test]
fn shared_memory_reduction() {
    let Some(vk) = reference(&[]) else { return };
    let words = kernel("shared_memory.spv");
    let bindings = [b(0, 0, S), b(0, 1, S)];
    let p = vk.pipeline(&desc(&words, &bindings)).unwrap();
    // Integers: every summation order gives the same f32.
    let input: Vec<f32> = (0..1024).map(|i| ((i * 7) % 101) as f32).collect();
    let bin = vk.buffer(&f32_bytes(&input)).unwrap();
    let bout = vk.buffer(&[0u8; 16]).unwrap();
    vk.dispatch(
        &p,
        &[Bound::new(0, 0, &bin), Bound::new(0, 1, &bout)],
        &[],
        [4, 1, 1],
    )
    .unwrap();
    let want: Vec<f32> = input.chunks(256).map(|c| c.iter().sum()).collect();
    assert_eq!(f32s(&bout.read()), want);
}

#[test]
fn spec_constants_default_and_specialised() {
    let Some(vk) = reference(&[]) else { return };
    let words = kernel("spec_constants.spv");
    let bindings = [b(0, 0, S), b(0, 1, S)];
    let n = 512usize;
    let v: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let bias: Vec<f32> = (0..128).map(|j| j as f32 * 0.25).collect();
    let bbias = vk.buffer(&f32_bytes(&bias)).unwrap();

    let run = |spec: &[(u32, Vec<u8>)], groups: u32| -> Vec<f32> {
        let p = vk
            .pipeline(&PipelineDesc {
                specialization: spec,
                ..desc(&words, &bindings)
            })
            .unwrap();
        let bv = vk.buffer(&f32_bytes(&v)).unwrap();
        vk.dispatch(
            &p,
            &[Bound::new(0, 0, &bv), Bound::new(0, 1, &bbias)],
            &[],
            [groups, 1, 1],
        )
        .unwrap();
        f32s(&bv.read())
    };

    // Defaults: workgroup 128, ALPHA 2.5, USE_BIAS true, OFFSET -4.
    let got = run(&[], (n / 128) as u32);
    for i in 0..n {
        assert_eq!(got[i], v[i] * 2.5 - 4.0 + bias[i % 128], "default v[{i}]");
    }

    // Workgroup 32 (the bias index becomes i % 32), ALPHA 0.5, OFFSET 3.
    let spec = [
        (0, 32u32.to_le_bytes().to_vec()),
        (1, 0.5f32.to_le_bytes().to_vec()),
        (3, 3i32.to_le_bytes().to_vec()),
    ];
    let got = run(&spec, (n / 32) as u32);
    for i in 0..n {
        assert_eq!(
            got[i],
            v[i] * 0.5 + 3.0 + bias[i % 32],
            "specialised v[{i}]"
        );
    }

    // USE_BIAS = false, a 4-byte VkBool32.
    let got = run(&[(2, 0u32.to_le_bytes().to_vec())], (n / 128) as u32);
    for i in 0..n {
        assert_eq!(got[i], v[i] * 2.5 - 4.0, "no-bias v[{i}]");
    }

    // A 1-byte bool or an 8-byte float is refused before the driver sees it.
    for (id, len) in [(2u32, 1usize), (1, 8)] {
        let spec = [(id, vec![0u8; len])];
        let e = vk
            .pipeline(&PipelineDesc {
                specialization: &spec,
                ..desc(&words, &bindings)
            })
            .unwrap_err();
        assert!(
            matches!(&e, Error::Specialization { id: i, .. } if *i == id),
            "{e}"
        );
        assert!(
            e.to_string().contains("module's constant is 4 bytes"),
            "{e}"
        );
    }
}

#[test]
fn atomics_histogram_and_counters() {
    let Some(vk) = reference(&[]) else { return };
    let words = kernel("atomics.spv");
    let bindings = [b(0, 0, S), b(0, 1, S), b(0, 2, S)];
    let p = vk.pipeline(&desc(&words, &bindings)).unwrap();
    let mut state = 12345u32;
    let values: Vec<u32> = (0..512)
        .map(|i| {
            state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            if i % 9 == 0 {
                0
            } else {
                state
            }
        })
        .collect();
    let bv = vk.buffer(&u32_bytes(&values)).unwrap();
    let bc = vk.buffer(&[0u8; 8]).unwrap();
    let bh = vk.buffer(&[0u8; 64]).unwrap();
    vk.dispatch(
        &p,
        &[
            Bound::new(0, 0, &bv),
            Bound::new(0, 1, &bc),
            Bound::new(0, 2, &bh),
        ],
        &[],
        [8, 1, 1],
    )
    .unwrap();
    let mut bins = [0u32; 16];
    for v in &values {
        bins[(v & 15) as usize] += 1;
    }
    let total = values.iter().fold(0u32, |a, v| a.wrapping_add(*v));
    let nonzero = values.iter().filter(|v| **v != 0).count() as u32;
    assert_eq!(u32s(&bc.read()), [total, nonzero]);
    assert_eq!(u32s(&bh.read()), bins);
}

/// The bits of a half that represents `x` exactly (normal or zero).
fn f16_bits(x: f32) -> u16 {
    if x == 0.0 {
        return 0;
    }
    let bits = x.to_bits();
    let exp = ((bits >> 23) & 0xff) as i32 - 127 + 15;
    let mant = bits & 0x7f_ffff;
    assert!(
        mant & 0x1fff == 0 && exp > 0 && exp < 31,
        "{x} is not an exact half"
    );
    (((bits >> 16) & 0x8000) | ((exp as u32) << 10) | (mant >> 13)) as u16
}

#[test]
fn small_types_need_their_features_then_match() {
    let words = kernel("small_types.spv");
    let bindings = [b(0, 0, S), b(0, 1, S), b(0, 2, S), b(0, 3, S)];

    // Without the features the module needs: refused, naming one.
    let Some(plain) = reference(&[]) else { return };
    let e = plain.pipeline(&desc(&words, &bindings)).unwrap_err();
    assert!(matches!(e, Error::MissingFeature { .. }), "{e}");
    assert!(e.to_string().contains("feature "), "{e}");
    drop(plain);

    let vk = reference(&[
        "shaderInt16",
        "Float16Int8Features.shaderFloat16",
        "Float16Int8Features.shaderInt8",
        "Storage16BitFeatures.storageBuffer16BitAccess",
        "Storage8BitFeatures.uniformAndStorageBuffer8BitAccess",
    ])
    .unwrap();
    let p = vk.pipeline(&desc(&words, &bindings)).unwrap();
    let n = 64;
    let bytes: Vec<u8> = (0..n)
        .map(|i| (i * 17 % 256) as u8 | if i == 5 { 255 } else { 0 })
        .collect();
    let halves: Vec<f32> = (0..n).map(|i| (i % 16) as f32 - 8.0).collect();
    let shorts: Vec<i16> = (0..n).map(|i| (i as i32 * 1000 - 30000) as i16).collect();
    let bb = vk.buffer(&bytes).unwrap();
    let bh = vk
        .buffer(
            &halves
                .iter()
                .flat_map(|h| f16_bits(*h).to_le_bytes())
                .collect::<Vec<_>>(),
        )
        .unwrap();
    let bs = vk
        .buffer(
            &shorts
                .iter()
                .flat_map(|s| s.to_le_bytes())
                .collect::<Vec<_>>(),
        )
        .unwrap();
    let bo = vk.buffer(&vec![0u8; n * 4]).unwrap();
    vk.dispatch(
        &p,
        &[
            Bound::new(0, 0, &bb),
            Bound::new(0, 1, &bh),
            Bound::new(0, 2, &bs),
            Bound::new(0, 3, &bo),
        ],
        &[],
        [1, 1, 1],
    )
    .unwrap();
    let got = f32s(&bo.read());
    for i in 0..n {
        let b8 = bytes[i].wrapping_add(1); // uint8 wraps: 255 + 1 = 0
        let s16 = shorts[i].wrapping_mul(2); // int16 wraps
                                             // halves * 0.5 + b is exact in f16 for these values (|h| < 512,
                                             // multiples of 0.5).
        let h = halves[i] * 0.5 + b8 as f32;
        f16_bits(h);
        assert_eq!(got[i], h + s16 as f32, "result[{i}] (b {b8}, s {s16})");
    }
    assert!(bytes.contains(&255) && shorts.iter().any(|s| s.checked_mul(2).is_none()));
}

#[test]
fn subgroup_sums_and_ballots() {
    let Some(vk) = reference(&[
        "SubgroupSupportedOperations.basic",
        "SubgroupSupportedOperations.arithmetic",
        "SubgroupSupportedOperations.ballot",
        "SubgroupSupportedStages.compute",
    ]) else {
        return;
    };
    let words = kernel("subgroup.spv");
    let bindings = [b(0, 0, S), b(0, 1, S), b(0, 2, S)];
    let p = vk.pipeline(&desc(&words, &bindings)).unwrap();
    let sg = vk.subgroup_size() as usize;
    assert!(sg > 0 && 64 % sg == 0, "subgroup size {sg}");
    let groups = 2;
    let x: Vec<f32> = (0..64 * groups)
        .map(|i| ((i * 13) % 11) as f32 - 5.0)
        .collect();
    let slots = 64 * groups / sg;
    let bx = vk.buffer(&f32_bytes(&x)).unwrap();
    let bs = vk.buffer(&vec![0u8; slots * 4]).unwrap();
    let bc = vk.buffer(&vec![0u8; slots * 4]).unwrap();
    vk.dispatch(
        &p,
        &[
            Bound::new(0, 0, &bx),
            Bound::new(0, 1, &bs),
            Bound::new(0, 2, &bc),
        ],
        &[],
        [groups as u32, 1, 1],
    )
    .unwrap();
    // Subgroups of consecutive invocations (lavapipe; a 1D workgroup).
    let sums: Vec<f32> = x.chunks(sg).map(|c| c.iter().sum()).collect();
    let counts: Vec<u32> = x
        .chunks(sg)
        .map(|c| c.iter().filter(|v| **v > 0.0).count() as u32)
        .collect();
    assert_eq!(f32s(&bs.read()), sums, "subgroup size {sg}");
    assert_eq!(u32s(&bc.read()), counts, "subgroup size {sg}");
}

#[test]
fn array_length_follows_the_bound_range_and_offset() {
    let Some(vk) = reference(&[]) else { return };
    let words = kernel("array_length.spv");
    let bindings = [b(0, 0, S), b(0, 1, S)];
    let p = vk.pipeline(&desc(&words, &bindings)).unwrap();
    // Data { uint header; float values[]; }: 10 values in the buffer, a
    // range of 4 + 6 * 4 bytes: the kernel sees 6.
    let mut data = u32_bytes(&[999]);
    let values: Vec<f32> = (1..=10).map(|v| v as f32).collect();
    data.extend(f32_bytes(&values));
    let bd = vk.buffer(&data).unwrap();
    // Indices: 16 uints; bound at byte 16 with 8 uints: n = 8.
    let sentinel = 0xdead_beefu32;
    let bi = vk.buffer(&u32_bytes(&[sentinel; 16])).unwrap();
    let bound = [
        Bound::range(0, 0, &bd, 0, Some(4 + 6 * 4)),
        Bound::range(0, 1, &bi, 16, Some(32)),
    ];
    vk.dispatch(&p, &bound, &[], [1, 1, 1]).unwrap();
    let sum: f32 = values[..6].iter().sum();
    assert_eq!(u32s(&bd.read()[..4]), [sum as u32 + 8]);
    assert_eq!(f32s(&bd.read()[4..]), values, "values untouched");
    let idx = u32s(&bi.read());
    let mut want = vec![sentinel; 16];
    for j in 0..8 {
        want[4 + j] = 7 - j as u32;
    }
    assert_eq!(idx, want);

    // Without a range: the whole buffer (10 values, 16 indices).
    let bd = vk.buffer(&data).unwrap();
    let bi = vk.buffer(&u32_bytes(&[sentinel; 16])).unwrap();
    vk.dispatch(
        &p,
        &[Bound::new(0, 0, &bd), Bound::new(0, 1, &bi)],
        &[],
        [1, 1, 1],
    )
    .unwrap();
    assert_eq!(u32s(&bd.read()[..4]), [55 + 16]);
    assert_eq!(u32s(&bi.read()), (0..16).rev().collect::<Vec<u32>>());
}

#[test]
fn sparse_sets_with_an_empty_set_between() {
    let Some(vk) = reference(&[]) else { return };
    let words = kernel("sparse_sets.spv");
    // Set 1 (declared in the module, never used) is not described: the
    // pipeline layout gets an empty set 1.
    let bindings = [b(2, 5, S), b(0, 7, S), b(2, 1, U), b(0, 3, S)];
    let p = vk.pipeline(&desc(&words, &bindings)).unwrap();
    let n = 64;
    let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let bb: Vec<f32> = (0..n).map(|i| (i * 3) as f32 - 50.0).collect();
    let (ba, bbb, bo) = (
        vk.buffer(&f32_bytes(&a)).unwrap(),
        vk.buffer(&f32_bytes(&bb)).unwrap(),
        vk.buffer(&vec![0u8; n * 4]).unwrap(),
    );
    let scale = vk.buffer(&f32_bytes(&[0.75, 10.0, 0.0, 0.0])).unwrap();
    vk.dispatch(
        &p,
        &[
            Bound::new(0, 3, &ba),
            Bound::new(0, 7, &bo),
            Bound::new(2, 1, &scale),
            Bound::new(2, 5, &bbb),
        ],
        &[],
        [2, 1, 1],
    )
    .unwrap();
    let got = f32s(&bo.read());
    for i in 0..n {
        assert_eq!(got[i], a[i] * 0.75 + bb[i] + 10.0, "o[{i}]");
    }
}

#[test]
fn unsupported_features_are_listed() {
    // Each of these is missing from lavapipe (Mesa 25.0.7): a core field,
    // a field of an extension structure, a stage and an extension.
    let asked = [
        "shaderResourceMinLod",
        "Storage16BitFeatures.storageInputOutput16",
        "SubgroupSupportedStages.geometry",
        "VK_XYZ_no_such_extension",
    ];
    if reference(&[]).is_none() {
        return;
    }
    let e = Reference::new(&ReferenceOptions {
        features: asked.iter().map(|s| s.to_string()).collect(),
        ..ReferenceOptions::default()
    })
    .unwrap_err();
    match &e {
        Error::UnsupportedFeatures { device, names } => {
            assert!(device.contains("llvmpipe"), "{device}");
            assert_eq!(names, &asked);
        }
        other => panic!("{other}"),
    }
    // A supported one next to them is not listed.
    let e = Reference::new(&ReferenceOptions {
        features: vec!["shaderInt64".into(), "shaderResourceMinLod".into()],
        ..ReferenceOptions::default()
    })
    .unwrap_err();
    assert!(
        matches!(&e, Error::UnsupportedFeatures { names, .. } if names == &["shaderResourceMinLod"]),
        "{e}"
    );
}

#[test]
fn unknown_feature_names_fail_before_vulkan_is_touched() {
    let e = Reference::new(&ReferenceOptions {
        features: vec!["shaderInt128".into()],
        ..ReferenceOptions::default()
    })
    .unwrap_err();
    assert!(
        matches!(&e, Error::UnknownFeature { name } if name == "shaderInt128"),
        "{e}"
    );
}

#[test]
fn enabled_features_are_reported() {
    let Some(vk) = reference(&["shaderInt64", "Float16Int8Features.shaderInt8"]) else {
        return;
    };
    let on: Vec<&str> = vk.enabled_features().collect();
    assert_eq!(on, ["Float16Int8Features.shaderInt8", "shaderInt64"]);
    let vk = Reference::new(&ReferenceOptions {
        robust_buffer_access: true,
        ..ReferenceOptions::default()
    })
    .unwrap();
    assert_eq!(
        vk.enabled_features().collect::<Vec<_>>(),
        ["robustBufferAccess"]
    );
    assert!(
        vk.driver_info().version.contains("Mesa"),
        "{}",
        vk.driver_info()
    );
    assert!(
        vk.device_name().contains("llvmpipe"),
        "{}",
        vk.device_name()
    );
}

#[test]
fn a_device_name_that_matches_nothing_lists_the_devices() {
    if reference(&[]).is_none() {
        return;
    }
    let e = Reference::new(&ReferenceOptions {
        device: Some("no-such-gpu".into()),
        ..ReferenceOptions::default()
    })
    .unwrap_err();
    assert!(matches!(e, Error::DeviceNotFound { .. }), "{e}");
    let msg = e.to_string();
    assert!(
        msg.contains("\"no-such-gpu\"") && msg.contains("llvmpipe"),
        "{msg}"
    );
    // Case-insensitive substring selection finds lavapipe by name.
    let vk = Reference::new(&ReferenceOptions {
        device: Some("LLVMPIPE".into()),
        ..ReferenceOptions::default()
    })
    .unwrap();
    assert!(vk.device_name().starts_with("llvmpipe"));
}

#[test]
fn a_wrong_entry_point_names_it_and_the_real_ones() {
    let Some(vk) = reference(&[]) else { return };
    let words = kernel("saxpy.spv");
    let e = vk
        .pipeline(&PipelineDesc {
            entry: "mian",
            ..desc(&words, &[b(0, 0, S), b(0, 1, S), b(0, 2, U)])
        })
        .unwrap_err();
    assert!(matches!(e, Error::EntryPoint { .. }), "{e}");
    let msg = e.to_string();
    assert!(msg.contains("\"mian\"") && msg.contains("main"), "{msg}");

    // A vertex entry point is not a compute one.
    let words = kernel("mixed_models.spv");
    let e = vk
        .pipeline(&PipelineDesc {
            entry: "main_vs",
            ..desc(&words, &[])
        })
        .unwrap_err();
    assert!(e.to_string().contains("main_cs"), "{e}");
}

#[test]
fn binding_mistakes_are_errors_naming_set_and_binding() {
    let Some(vk) = reference(&[]) else { return };
    let words = kernel("saxpy.spv");
    let bindings = [b(0, 0, S), b(0, 1, S), b(0, 2, U)];
    let p = vk.pipeline(&desc(&words, &bindings)).unwrap();
    let buf = vk.buffer(&[0u8; 64]).unwrap();
    let empty = vk.buffer(&[]).unwrap();
    assert!(empty.is_empty() && empty.read().is_empty());
    /// All three bindings to `buf`, with `x` replacing its own.
    fn with<'a>(buf: &'a vulkan_reference::Buffer, x: Bound<'a>) -> Vec<Bound<'a>> {
        let mut v = vec![
            Bound::new(0, 0, buf),
            Bound::new(0, 1, buf),
            Bound::new(0, 2, buf),
        ];
        let i = v
            .iter()
            .position(|b| (b.set, b.binding) == (x.set, x.binding))
            .unwrap_or(0);
        v[i] = x;
        v
    }
    let all = |x| with(&buf, x);
    let cases: Vec<(Vec<Bound<'_>>, (u32, u32), &str)> = vec![
        (
            vec![Bound::new(0, 0, &buf), Bound::new(0, 1, &buf)],
            (0, 2),
            "declared but nothing is bound",
        ),
        (
            [all(Bound::new(0, 0, &buf)), vec![Bound::new(0, 9, &buf)]].concat(),
            (0, 9),
            "not declared",
        ),
        (
            [all(Bound::new(0, 0, &buf)), vec![Bound::new(0, 1, &buf)]].concat(),
            (0, 1),
            "bound twice",
        ),
        (all(Bound::new(0, 1, &empty)), (0, 1), "cannot be empty"),
        (
            all(Bound::range(0, 1, &buf, 0, Some(65))),
            (0, 1),
            "overruns",
        ),
        (all(Bound::range(0, 1, &buf, 1, None)), (0, 1), "alignment"),
        (
            all(Bound {
                element: 1,
                ..Bound::new(0, 1, &buf)
            }),
            (0, 1),
            "array element 1",
        ),
    ];
    for (bound, (set, binding), text) in cases {
        let e = vk.dispatch(&p, &bound, &[], [1, 1, 1]).unwrap_err();
        let msg = e.to_string();
        assert!(
            matches!(e, Error::Binding { set: s, binding: b, .. } if (s, b) == (set, binding))
                && msg.contains(text),
            "expected ({set}, {binding}) {text:?}: {msg}"
        );
    }
    // Declared twice in the pipeline.
    let e = vk
        .pipeline(&desc(&words, &[b(0, 0, S), b(0, 0, S)]))
        .unwrap_err();
    assert!(e.to_string().contains("declared twice"), "{e}");
    // The buffer itself.
    let e = buf.write(60, &[0; 8]).unwrap_err();
    assert!(e.to_string().contains("overruns"), "{e}");
    buf.write(56, &[1; 8]).unwrap();
    assert_eq!(&buf.read()[56..], &[1; 8]);
}

#[test]
fn buffers_and_pipelines_of_another_reference_are_refused() {
    let (Some(a), Some(b2)) = (reference(&[]), reference(&[])) else {
        return;
    };
    let words = kernel("tests/spin.spv");
    let p = a.pipeline(&desc(&words, &[b(0, 0, S)])).unwrap();
    let foreign = b2.buffer(&[1u8; 8]).unwrap();
    let e = a
        .dispatch(&p, &[Bound::new(0, 0, &foreign)], &[], [1, 1, 1])
        .unwrap_err();
    assert!(matches!(e, Error::Foreign(_)), "{e}");
    let e = b2
        .dispatch(&p, &[Bound::new(0, 0, &foreign)], &[], [1, 1, 1])
        .unwrap_err();
    assert!(matches!(e, Error::Foreign(_)), "{e}");
    // Buffers outlive their Reference.
    drop(b2);
    assert_eq!(foreign.read(), [1u8; 8]);
}

/// A kernel that spins until the host says stop: the dispatch times out,
/// the device stays busy (later dispatches say so), and once the host
/// stops it the same `Reference` works again.
#[test]
fn a_timeout_is_an_error_and_the_reference_recovers() {
    let Some(vk) = reference(&[]) else { return };
    let words = kernel("tests/spin.spv");
    let p = vk.pipeline(&desc(&words, &[b(0, 0, S)])).unwrap();
    let ctl = vk.buffer(&[0u8; 8]).unwrap();
    vk.set_timeout(Duration::from_millis(300));
    let t = std::time::Instant::now();
    let e = vk
        .dispatch(&p, &[Bound::new(0, 0, &ctl)], &[], [1, 1, 1])
        .unwrap_err();
    assert!(matches!(e, Error::Timeout { .. }), "{e}");
    assert!(t.elapsed() >= Duration::from_millis(250) && t.elapsed() < Duration::from_secs(10));
    assert!(e.to_string().contains("\"main\""), "{e}");

    // Still running: the counter moves, dispatches are refused.
    // (Polled: on a loaded machine the driver thread may wait its turn.)
    let before = u32s(&ctl.read())[1];
    let t = std::time::Instant::now();
    while u32s(&ctl.read())[1] == before {
        assert!(
            t.elapsed() < Duration::from_secs(10),
            "the kernel is not running"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let other = vk.buffer(&[0u8; 8]).unwrap(); // creation still works
    let e = vk
        .dispatch(&p, &[Bound::new(0, 0, &other)], &[], [1, 1, 1])
        .unwrap_err();
    assert!(matches!(e, Error::Busy { .. }), "{e}");
    let e = vk.wait_idle(Duration::from_millis(50)).unwrap_err();
    assert!(matches!(e, Error::Busy { .. }), "{e}");

    // Stop it; the Reference is usable again.
    ctl.write(0, &1u32.to_le_bytes()).unwrap();
    vk.wait_idle(Duration::from_secs(10)).unwrap();
    other.write(0, &1u32.to_le_bytes()).unwrap(); // `stop` already set
    vk.set_timeout(Duration::from_secs(10));
    vk.dispatch(&p, &[Bound::new(0, 0, &other)], &[], [1, 1, 1])
        .unwrap();
    assert_eq!(u32s(&other.read()), [1, 0]);
}

#[test]
fn descriptor_arrays_bind_each_element() {
    let Some(vk) = reference(&[]) else { return };
    let words = kernel("tests/buffer_array.spv");
    let bindings = [
        BindingDesc {
            count: 2,
            ..b(0, 0, S)
        },
        b(0, 1, S),
    ];
    let p = vk.pipeline(&desc(&words, &bindings)).unwrap();
    let s0 = vk.buffer(&u32_bytes(&[1, 2, 3, 4])).unwrap();
    let s1 = vk.buffer(&u32_bytes(&[5, 6, 7, 8])).unwrap();
    let d = vk.buffer(&[0u8; 16]).unwrap();
    let e1 = Bound {
        element: 1,
        ..Bound::new(0, 0, &s1)
    };
    vk.dispatch(
        &p,
        &[Bound::new(0, 0, &s0), e1, Bound::new(0, 1, &d)],
        &[],
        [1, 1, 1],
    )
    .unwrap();
    assert_eq!(u32s(&d.read()), [15, 26, 37, 48]);
    // Element 1 left out: an error naming it.
    let e = vk
        .dispatch(
            &p,
            &[Bound::new(0, 0, &s0), Bound::new(0, 1, &d)],
            &[],
            [1, 1, 1],
        )
        .unwrap_err();
    assert!(
        e.to_string().contains("array element 1 has nothing bound"),
        "{e}"
    );
}

/// Two entry points with different workgroup sizes (64 and 128): each
/// pipeline runs its own function at its own size.
#[test]
fn the_chosen_entry_point_runs_at_its_own_size() {
    let Some(vk) = reference(&[]) else { return };
    let words = kernel("two_entry_points.spv");
    let n = 256;
    let out = vk.buffer(&f32_bytes(&vec![-1.0; n])).unwrap();
    let aux = vk.buffer(&f32_bytes(&vec![0.5; n])).unwrap();

    let a = vk
        .pipeline(&PipelineDesc {
            entry: "main_a",
            ..desc(&words, &[b(0, 0, S)])
        })
        .unwrap();
    vk.dispatch(&a, &[Bound::new(0, 0, &out)], &[], [1, 1, 1])
        .unwrap();
    let got = f32s(&out.read());
    for (i, v) in got.iter().enumerate() {
        assert_eq!(
            *v,
            if i < 64 { 2.0 * i as f32 } else { -1.0 },
            "main_a out[{i}]"
        );
    }

    let bpipe = vk
        .pipeline(&PipelineDesc {
            entry: "main_b",
            ..desc(&words, &[b(0, 0, S), b(0, 1, S)])
        })
        .unwrap();
    vk.dispatch(
        &bpipe,
        &[Bound::new(0, 0, &out), Bound::new(0, 1, &aux)],
        &[],
        [1, 1, 1],
    )
    .unwrap();
    let after = f32s(&out.read());
    for i in 0..n {
        let want = if i < 128 { got[i] + 0.5 } else { got[i] };
        assert_eq!(after[i], want, "main_b out[{i}]");
    }
}

const SIZE_CONTROL: &str = "SubgroupSizeControl.subgroupSizeControl";
const FULL_SUBGROUPS: &str = "SubgroupSizeControl.computeFullSubgroups";
const ZERO_INIT: &str = "ZeroInitializeWorkgroupMemoryFeatures.shaderZeroInitializeWorkgroupMemory";
const UCF_FEATURE: &str =
    "ShaderSubgroupUniformControlFlowFeaturesKHR.shaderSubgroupUniformControlFlow";
const UCF_EXTENSION: &str = "VK_KHR_shader_subgroup_uniform_control_flow";

/// `tests/kernels/subgroup_layout.spv` run over one workgroup of `x`
/// invocations: per invocation (subgroup size, subgroup id, active
/// invocations of its subgroup, number of subgroups).
fn subgroup_layout(vk: &Reference, x: u32, tune: PipelineDesc<'_>) -> Result<Vec<[u32; 4]>, Error> {
    let words = kernel("tests/subgroup_layout.spv");
    let bindings = [b(0, 0, S)];
    let spec = [(0, x.to_le_bytes().to_vec())];
    let p = vk.pipeline(&PipelineDesc {
        specialization: &spec,
        ..PipelineDesc {
            spirv: &words,
            entry: "main",
            bindings: &bindings,
            ..tune
        }
    })?;
    let out = vk.buffer(&vec![0xffu8; x as usize * 16]).unwrap();
    vk.dispatch(&p, &[Bound::new(0, 0, &out)], &[], [1, 1, 1])?;
    Ok(u32s(&out.read())
        .chunks(4)
        .map(|c| [c[0], c[1], c[2], c[3]])
        .collect())
}

#[test]
fn full_subgroups_fill_every_subgroup_and_any_x_size_reaches_the_driver() {
    let Some(vk) = reference(&[SIZE_CONTROL, FULL_SUBGROUPS]) else {
        return;
    };
    let sg = vk.subgroup_size();
    let full = PipelineDesc {
        require_full_subgroups: true,
        ..Default::default()
    };
    // 8 subgroups, every one full.
    let x = 8 * sg;
    let got = subgroup_layout(&vk, x, full).unwrap();
    for (i, [size, id, active, count]) in got.iter().copied().enumerate() {
        assert_eq!((size, active, count), (sg, sg, 8), "invocation {i}");
        assert_eq!(id, i as u32 / sg, "invocation {i}");
    }

    // Negative control: 2.5 subgroups without the flag leave the last one
    // half full ...
    let x = 2 * sg + sg / 2;
    let got = subgroup_layout(&vk, x, PipelineDesc::default()).unwrap();
    let last = got.last().unwrap();
    assert_eq!((last[1], last[2], last[3]), (2, sg / 2, 3), "{got:?}");
    // ... and with it, an x size Vulkan's valid usage does not allow goes
    // to the driver as amber passes it (the CTS has such tests): the last
    // subgroup stays partial.
    let got = subgroup_layout(&vk, x, full).unwrap();
    let last = got.last().unwrap();
    assert_eq!((last[1], last[2], last[3]), (2, sg / 2, 3), "{got:?}");

    // The flag without the feature is refused, naming the feature.
    let plain = reference(&[SIZE_CONTROL]).unwrap();
    let e = subgroup_layout(&plain, 8 * sg, full).unwrap_err();
    assert!(
        matches!(&e, Error::Subgroup { .. }) && e.to_string().contains(FULL_SUBGROUPS),
        "{e}"
    );
}

#[test]
fn a_required_subgroup_size_is_used_and_checked_against_the_range() {
    let Some(vk) = reference(&[SIZE_CONTROL, FULL_SUBGROUPS]) else {
        return;
    };
    let (min, max) = vk.subgroup_size_range();
    assert!(min.is_power_of_two() && min <= vk.subgroup_size() && vk.subgroup_size() <= max);
    let session = Session::new(
        &ReferenceOptions {
            features: vec![SIZE_CONTROL.into()],
            ..ReferenceOptions::default()
        },
        Place::InProcess,
    )
    .unwrap();
    assert_eq!(session.subgroup_size_range(), (min, max));

    let mut size = min;
    while size <= max {
        for full in [false, true] {
            let got = subgroup_layout(
                &vk,
                4 * size,
                PipelineDesc {
                    required_subgroup_size: Some(size),
                    require_full_subgroups: full,
                    ..Default::default()
                },
            )
            .unwrap();
            assert!(
                got.iter()
                    .all(|v| v[0] == size && v[2] == size && v[3] == 4),
                "size {size}, full {full}: {got:?}"
            );
        }
        size *= 2;
    }

    // Negative controls: outside the range, not a power of two, with a
    // varying size, without the feature.
    let required = |size| PipelineDesc {
        required_subgroup_size: Some(size),
        ..Default::default()
    };
    for bad in [max * 2, min / 2, 3] {
        if bad == 0 {
            continue;
        }
        let e = subgroup_layout(&vk, 4 * max, required(bad)).unwrap_err();
        assert!(matches!(e, Error::Subgroup { .. }), "{e}");
        assert!(
            e.to_string().contains(&format!(
                "required subgroup size {bad} is not a power of two in the device's range [{min}, {max}]"
            )),
            "{e}"
        );
    }
    let e = subgroup_layout(
        &vk,
        4 * max,
        PipelineDesc {
            allow_varying_subgroup_size: true,
            ..required(max)
        },
    )
    .unwrap_err();
    assert!(e.to_string().contains("exclude each other"), "{e}");
    let plain = reference(&[]).unwrap();
    let e = subgroup_layout(&plain, 4 * max, required(max)).unwrap_err();
    assert!(e.to_string().contains(SIZE_CONTROL), "{e}");
    // A varying size with full subgroups: x a multiple of the largest.
    let got = subgroup_layout(
        &vk,
        2 * max,
        PipelineDesc {
            allow_varying_subgroup_size: true,
            require_full_subgroups: true,
            ..Default::default()
        },
    )
    .unwrap();
    assert!(got.iter().all(|v| v[0] == v[2]), "{got:?}");
}

#[test]
fn zero_initialized_workgroup_memory_reads_zeros() {
    let words = kernel("tests/zero_init.spv");
    let needs = required_by_module(&words).unwrap();
    assert!(needs.iter().any(|n| n == ZERO_INIT), "{needs:?}");
    // Negative control: Workgroup memory without an initializer needs
    // nothing.
    let plain_needs = required_by_module(&kernel("shared_memory.spv")).unwrap();
    assert!(
        !plain_needs.iter().any(|n| n == ZERO_INIT),
        "{plain_needs:?}"
    );

    // Without the feature: refused, naming it (lavapipe supports it).
    let Some(plain) = reference(&[]) else { return };
    let bindings = [b(0, 0, S)];
    let e = plain.pipeline(&desc(&words, &bindings)).unwrap_err();
    assert!(
        matches!(&e, Error::MissingFeature { declares, .. }
            if declares == "a Workgroup variable with an initializer"),
        "{e}"
    );
    assert!(e.to_string().contains(ZERO_INIT), "{e}");

    // With the module's needs as optional features: enabled, and every
    // workgroup reads zeros although the previous one left its pattern
    // behind (without the initializer, lavapipe 25.0.7 reads that pattern:
    // 0xdead0000 + i in every run, measured).
    let vk = Reference::new(&ReferenceOptions {
        optional_features: needs,
        ..ReferenceOptions::default()
    })
    .unwrap();
    assert!(vk.enabled_features().any(|f| f == ZERO_INIT));
    let p = vk.pipeline(&desc(&words, &bindings)).unwrap();
    let out = vk.buffer(&[0xffu8; 128 * 4]).unwrap();
    for run in 0..3 {
        vk.dispatch(&p, &[Bound::new(0, 0, &out)], &[], [4, 1, 1])
            .unwrap();
        let got = u32s(&out.read());
        assert_eq!(got[..64], [0; 64], "run {run}");
        for i in 0..64 {
            assert_eq!(got[64 + i], 0xdead_0000 + (i as u32 + 1) % 64, "run {run}");
        }
    }
}

#[test]
fn subgroup_uniform_control_flow_modules_run_as_amber_runs_them() {
    let words = kernel("tests/uniform_control_flow.spv");
    let needs = required_by_module(&words).unwrap();
    for n in [
        UCF_EXTENSION,
        UCF_FEATURE,
        "SubgroupSupportedStages.compute",
        "SubgroupSupportedOperations.basic",
    ] {
        assert!(needs.iter().any(|m| m == n), "{n} not in {needs:?}");
    }
    let Some(vk) = reference(&[]) else { return };
    drop(vk);

    // As required features (the CTS's registration): a device without the
    // extension is a clean skip naming it and its feature.
    let strict = Reference::new(&ReferenceOptions {
        features: needs.clone(),
        ..ReferenceOptions::default()
    });
    let supported = match strict {
        Ok(_) => true,
        Err(Error::UnsupportedFeatures { names, .. }) => {
            let mut names = names;
            names.sort();
            assert_eq!(names, [UCF_FEATURE, UCF_EXTENSION]);
            false
        }
        Err(e) => panic!("{e}"),
    };

    // As optional features (the amber tool's way): enabled where
    // supported, else left off; the module runs either way.
    let vk = Reference::new(&ReferenceOptions {
        optional_features: needs,
        ..ReferenceOptions::default()
    })
    .unwrap();
    assert_eq!(vk.enabled_features().any(|f| f == UCF_FEATURE), supported);
    let bindings = [b(0, 0, S)];
    let p = vk.pipeline(&desc(&words, &bindings)).unwrap();
    let out = vk.buffer(&[0u8; 64 * 4]).unwrap();
    vk.dispatch(&p, &[Bound::new(0, 0, &out)], &[], [1, 1, 1])
        .unwrap();
    let sg = vk.subgroup_size() as usize;
    for (s, chunk) in u32s(&out.read()).chunks(sg).enumerate() {
        if s % 2 == 0 {
            assert_eq!(
                chunk.iter().filter(|v| **v == 1).count(),
                1,
                "subgroup {s}: {chunk:?}"
            );
            assert_eq!(
                chunk.iter().filter(|v| **v == 2).count(),
                sg - 1,
                "subgroup {s}: {chunk:?}"
            );
        } else {
            assert!(chunk.iter().all(|v| *v == 3), "subgroup {s}: {chunk:?}");
        }
    }
}

#[test]
fn device_properties_are_checked_when_the_device_is_created() {
    let e = Reference::new(&ReferenceOptions {
        properties: vec!["FloatControlsProperties.shaderDenormPreserveFloat128".into()],
        ..ReferenceOptions::default()
    })
    .unwrap_err();
    assert!(
        matches!(&e, Error::UnknownProperty { name } if name.ends_with("Float128")),
        "{e}"
    );
    let Some(_) = reference(&[]) else { return };
    let with = |properties: Vec<String>| {
        Reference::new(&ReferenceOptions {
            properties,
            ..ReferenceOptions::default()
        })
    };
    let all = property_names();
    let lacking = match with(all.clone()) {
        Ok(_) => Vec::new(),
        Err(Error::UnsupportedFeatures { names, .. }) => names,
        Err(e) => panic!("{e}"),
    };
    // lavapipe (Mesa 25.0.7) preserves no denormals: the property of the
    // Vulkan CTS's float-controls Amber test.
    assert!(
        lacking
            .iter()
            .any(|n| n == "FloatControlsProperties.shaderDenormPreserveFloat16"),
        "{lacking:?}"
    );
    let held: Vec<String> = all.into_iter().filter(|n| !lacking.contains(n)).collect();
    assert!(!held.is_empty());
    with(held.clone()).unwrap();
    // One lacking property among held ones: the error names it alone.
    let mut asked = held;
    asked.push(lacking[0].clone());
    let e = with(asked).unwrap_err();
    assert!(
        matches!(&e, Error::UnsupportedFeatures { names, .. } if names == &lacking[..1]),
        "{e}"
    );
    assert!(e.to_string().contains(&lacking[0]), "{e}");
}

#[test]
fn amber_feature_and_extension_names_of_the_public_tests() {
    let Some(_) = reference(&[]) else { return };
    // What the public compute Amber tests ask for; all on lavapipe, the
    // extensions promoted to core satisfied by Vulkan 1.3.
    let asked = [
        SIZE_CONTROL,
        FULL_SUBGROUPS,
        ZERO_INIT,
        "VulkanMemoryModelFeatures.vulkanMemoryModel",
        "VulkanMemoryModelFeatures.vulkanMemoryModelDeviceScope",
        "VariablePointerFeatures.variablePointers",
        "VariablePointerFeatures.variablePointersStorageBuffer",
        "Storage8BitFeatures.storagePushConstant8",
        "Storage16BitFeatures.storagePushConstant16",
        "VK_KHR_spirv_1_4",
        "VK_KHR_zero_initialize_workgroup_memory",
        "VK_EXT_descriptor_indexing",
        "VK_KHR_get_physical_device_properties2",
        "VK_KHR_vulkan_memory_model",
        "VK_KHR_storage_buffer_storage_class",
        "VK_KHR_16bit_storage",
        "VK_KHR_8bit_storage",
        "VK_KHR_shader_float16_int8",
    ];
    let vk = reference(&asked).unwrap();
    let on: Vec<&str> = vk.enabled_features().collect();
    for a in asked {
        assert!(on.contains(&a), "{a} not in {on:?}");
    }
    drop(vk);

    // Long vectors: newer than lavapipe 25.0.7. Required: a skip naming
    // it; optional: left off.
    const LONG: &str = "ShaderLongVectorFeaturesEXT.longVector";
    match Reference::new(&ReferenceOptions {
        features: vec![LONG.into(), "shaderInt64".into()],
        ..ReferenceOptions::default()
    }) {
        Ok(vk) => assert!(vk.enabled_features().any(|f| f == LONG)),
        Err(Error::UnsupportedFeatures { names, .. }) => assert_eq!(names, [LONG]),
        Err(e) => panic!("{e}"),
    }
    let vk = Reference::new(&ReferenceOptions {
        features: vec!["shaderInt64".into()],
        optional_features: vec![LONG.into(), "VK_XYZ_no_such_extension".into()],
        ..ReferenceOptions::default()
    })
    .unwrap();
    assert!(!vk
        .enabled_features()
        .any(|f| f == "VK_XYZ_no_such_extension"));
    // Unknown names are errors even among optional ones.
    let e = Reference::new(&ReferenceOptions {
        optional_features: vec!["NoSuchFeatures.x".into()],
        ..ReferenceOptions::default()
    })
    .unwrap_err();
    assert!(matches!(e, Error::UnknownFeature { .. }), "{e}");
}
