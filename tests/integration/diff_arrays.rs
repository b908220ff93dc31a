//! `halc diff` on kernels whose resources are descriptor arrays (issue 38):
//! every element of an array binding gets a buffer or image of its own,
//! bound element by element on both sides and compared element by element,
//! in both binding models and on iOS tier 1; a layout whose array elements
//! are one slot off and a wrong element index in the MSL are caught, each
//! naming the element.

use halc::diff::{diff, DiffOptions, DiffOutcome, NamedValue};
use halc::msl::{BindingModel, Platform, Tier};

use crate::amber::{glsl_to_spv, halc, tools, vulkan};

/// The binding models and targets arrays are laid out differently in:
/// argument buffers (macOS tier 2), discrete slots, and iOS tier 1 (storage
/// images kept out of argument buffers).
fn targets() -> [(BindingModel, Platform, Tier); 3] {
    [
        (BindingModel::ArgumentBuffers, Platform::MacOS, Tier::Tier2),
        (BindingModel::Discrete, Platform::MacOS, Tier::Tier2),
        (BindingModel::ArgumentBuffers, Platform::IOS, Tier::Tier1),
    ]
}

fn with_target(
    base: &DiffOptions,
    (model, platform, tier): (BindingModel, Platform, Tier),
) -> DiffOptions {
    let mut o = base.clone();
    o.compile.layout.model = model;
    o.compile.layout.platform = platform;
    o.compile.layout.tier = tier;
    o
}

/// A member of the uniform block at (0, 2).
fn select(name: &str, value: &str) -> NamedValue {
    NamedValue {
        block: Some((0, 2)),
        name: name.into(),
        value: value.into(),
    }
}

/// `fixtures/kernels/descriptor_arrays.spv` (4 SSBOs, 3 combined
/// image-samplers, indexed by constants and by the uniform `which` / `tex`)
/// agrees with lavapipe over seeds in every target; a wrong element index
/// in the MSL is caught naming the element written.
#[test]
fn diff_runs_descriptor_arrays_element_by_element() {
    if !tools() || !vulkan() {
        return;
    }
    let device = halc::runtime_loader::cpu::Device::new().unwrap();
    let kernel = crate::input(&crate::kernel("descriptor_arrays.spv"));
    let base = DiffOptions {
        values: vec![select("which", "2"), select("tex", "1")],
        ..Default::default()
    };
    for target in targets() {
        for seed in [1, 2, 3] {
            let opts = DiffOptions {
                seed,
                ..with_target(&base, target)
            };
            match diff(&kernel, &opts, &device).unwrap() {
                DiffOutcome::Agree(m) => {
                    assert!(m.contains(" in 4 storage buffers agree"), "{target:?}: {m}")
                }
                other => panic!("{target:?} seed {seed}: {other:?}"),
            }
        }
    }
    // `bufs[1]` read as `bufs[2]`: element 3, which the kernel writes,
    // differs.
    for target in targets() {
        let opts = DiffOptions {
            tamper: Some(|c| {
                let msl = &mut c.kernels[0].msl.source;
                let n = msl.matches("bufs[1]").count();
                assert_eq!(n, 1, "{msl}");
                *msl = msl.replace("bufs[1]", "bufs[2]");
            }),
            ..with_target(&base, target)
        };
        match diff(&kernel, &opts, &device).unwrap() {
            DiffOutcome::Differ(m) => assert!(
                m.starts_with("seed 1: (set 0, binding 0, element 3) byte 0 (f32): "),
                "{target:?}: {m}"
            ),
            other => panic!("{target:?}: a wrong element not caught: {other:?}"),
        }
    }
}

/// Arrays of storage images, storage and uniform texel buffers, sampled
/// images, samplers and combined image-samplers, each element read or
/// written by a constant index. `imgs[0]` is bound and compared but never
/// accessed: the hole an element base one slot off leaves there.
const IMAGE_ARRAYS: &str = "#version 450
layout(local_size_x = 4, local_size_y = 4) in;
layout(set = 0, binding = 1, r32f) uniform imageBuffer texels[2];
layout(set = 0, binding = 2) uniform texture2D textures[2];
layout(set = 0, binding = 3) uniform sampler samplers[2];
layout(set = 0, binding = 4) uniform sampler2D combined[2];
layout(set = 0, binding = 5) uniform samplerBuffer uniform_texels[2];
layout(set = 0, binding = 6, rgba8) uniform image2D imgs[3];
void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    int i = p.y * 4 + p.x;
    vec4 a = imageLoad(imgs[1], p);
    vec4 b = imageLoad(imgs[2], p);
    vec4 t = texelFetch(sampler2D(textures[1], samplers[1]), p, 0);
    vec4 c = texelFetch(combined[1], p, 0);
    imageStore(imgs[1], p, b.wzyx * 0.5 + t * 0.25 + c * 0.125);
    imageStore(imgs[2], p, a.wzyx);
    float u = texelFetch(uniform_texels[1], i).x;
    imageStore(texels[1], i, imageLoad(texels[0], i) * 2.0 + vec4(u));
}
";

/// A kernel with arrays of every kind of image agrees with lavapipe over
/// seeds in every target, comparing every storage image and storage texel
/// buffer element; a store into the wrong element in the MSL is caught,
/// naming the storage image element that differs.
#[test]
fn diff_compares_image_arrays_element_by_element() {
    if !tools() || !vulkan() {
        return;
    }
    let device = halc::runtime_loader::cpu::Device::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let spv = glsl_to_spv(dir.path(), "image_arrays", IMAGE_ARRAYS);
    let kernel = halc::Input::new("image_arrays.spv", std::fs::read(&spv).unwrap());
    let base = DiffOptions {
        groups: [1, 1, 1],
        ..Default::default()
    };
    for target in targets() {
        for seed in [1, 2, 3] {
            let opts = DiffOptions {
                seed,
                ..with_target(&base, target)
            };
            match diff(&kernel, &opts, &device).unwrap() {
                // 3 rgba8 4x4 images and 2 r32f texel buffers of 16 texels.
                DiffOutcome::Agree(m) => assert!(
                    m.contains(" and 224 texel components in 5 storage images agree"),
                    "{target:?}: {m}"
                ),
                other => panic!("{target:?} seed {seed}: {other:?}"),
            }
        }
    }
    // A store into element 0 instead of element 2, in the MSL: element 0,
    // compared first, differs.
    for target in targets() {
        let opts = DiffOptions {
            tamper: Some(|c| {
                let msl = &mut c.kernels[0].msl.source;
                assert_eq!(msl.matches("imgs[2].write(").count(), 1, "{msl}");
                *msl = msl.replace("imgs[2].write(", "imgs[0].write(");
            }),
            ..with_target(&base, target)
        };
        match diff(&kernel, &opts, &device).unwrap() {
            DiffOutcome::Differ(m) => assert!(
                m.starts_with(
                    "seed 1: (set 0, binding 6, element 0) storage image texel (0, 0) (R8G8B8A8_UNORM), component "
                ),
                "{target:?}: {m}"
            ),
            other => panic!("{target:?}: a wrong element not caught: {other:?}"),
        }
    }
    // The argument-buffer layout of `imgs` (its last member) one slot off,
    // into a slot added at the end: element e's texture is written where
    // the MSL reads element e + 1, so the kernel reads and writes elements
    // 0 and 1 for 1 and 2.
    let off_by_one: fn(&mut halc::Compiled) = |c| {
        let layout = &mut c.kernels[0].layout;
        let size = layout.argument_buffers[0].size;
        let b = layout.bindings.iter_mut().find(|b| b.binding == 6).unwrap();
        assert_eq!((b.count, b.byte_offset), (3, Some(size - 24)));
        b.id = b.id.map(|id| id + 1);
        b.byte_offset = Some(size - 16);
        layout.argument_buffers[0].size = size + 8;
    };
    let opts = DiffOptions {
        tamper: Some(off_by_one),
        ..base.clone()
    };
    match diff(&kernel, &opts, &device).unwrap() {
        DiffOutcome::Differ(m) => assert!(
            m.starts_with(
                "seed 1: (set 0, binding 6, element 0) storage image texel (0, 0) (R8G8B8A8_UNORM)"
            ),
            "{m}"
        ),
        other => panic!("elements one slot off not caught: {other:?}"),
    }
    // Discrete slots one off leave the first `[[texture]]` of `imgs`
    // unbound, which the dispatch refuses as Metal's validation does.
    let off_by_one_discrete: fn(&mut halc::Compiled) = |c| {
        let b = &mut c.kernels[0].layout.bindings;
        let b = b.iter_mut().find(|b| b.binding == 6).unwrap();
        assert_eq!(b.texture_index, Some(8));
        b.texture_index = Some(9);
    };
    let opts = DiffOptions {
        tamper: Some(off_by_one_discrete),
        ..with_target(&base, targets()[1])
    };
    let e = diff(&kernel, &opts, &device).unwrap_err();
    assert!(e.contains("texture(8)"), "{e}");
}

/// An aliased binding is sized for its widest view (SPIRV-Cross's
/// `raw-buffer-descriptor-aliasing` has arrays of them): beside a runtime
/// `float` view, which halc diff fills and compares, a fixed `uvec2[64]`
/// view written at every fourth element needs 512 bytes, where one float
/// per invocation gave 64 (and the CPU backend refused the binding as
/// short); a wrong constant in the MSL is caught, naming the element.
#[test]
fn diff_sizes_an_aliased_binding_for_its_widest_view() {
    if !tools() || !vulkan() {
        return;
    }
    let device = halc::runtime_loader::cpu::Device::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let spv = glsl_to_spv(
        dir.path(),
        "aliased",
        "#version 450
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) buffer A { float a[]; } as_[2];
layout(set = 0, binding = 0) buffer B { uvec2 b[64]; } bs[2];
void main() {
    uint i = gl_GlobalInvocationID.x;
    float f = as_[0].a[i];
    bs[1].b[i * 4u] = uvec2(0x3f800000u + i, 0x40000000u + i) + floatBitsToUint(f);
}
",
    );
    let kernel = halc::Input::new("aliased.spv", std::fs::read(&spv).unwrap());
    let base = DiffOptions {
        groups: [1, 1, 1],
        ..Default::default()
    };
    match diff(&kernel, &base, &device).unwrap() {
        // Two elements of 512 + 16 * 4 bytes, as floats.
        DiffOutcome::Agree(m) => {
            assert!(m.contains("288 scalars in 2 storage buffers agree"), "{m}")
        }
        other => panic!("{other:?}"),
    }
    // 2.0 stored 100 ULPs off.
    let opts = DiffOptions {
        tamper: Some(|c| {
            let msl = &mut c.kernels[0].msl.source;
            assert!(msl.contains("1073741824u"), "{msl}");
            *msl = msl.replace("1073741824u", "1073741924u");
        }),
        ..base
    };
    match diff(&kernel, &opts, &device).unwrap() {
        DiffOutcome::Differ(m) => assert!(
            m.starts_with("seed 1: (set 0, binding 0, element 1) byte 4 (f32): "),
            "{m}"
        ),
        other => panic!("not caught: {other:?}"),
    }
}

/// The command line: `--uniform` gives the array indices, `--binding-map`
/// pins the arrays where `halc compile` would (`bufs` after the other
/// members), and the run agrees over two seeds; a `--buffer` file fills
/// every element of an array; a binding map the layout refuses is one line
/// naming the binding.
#[test]
fn diff_cli_takes_a_binding_map() {
    if !tools() || !vulkan() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let map = dir.path().join("map.toml");
    let run = |map_text: &str| {
        std::fs::write(&map, map_text).unwrap();
        let o = halc()
            .args(["diff", "--seeds", "2", "--uniform", "0.2:which=2"])
            .args(["--uniform", "0.2:tex=1", "--binding-map"])
            .arg(&map)
            .arg("fixtures/kernels/descriptor_arrays.spv")
            .output()
            .unwrap();
        (
            o.status.code(),
            String::from_utf8(o.stdout).unwrap(),
            String::from_utf8(o.stderr).unwrap(),
        )
    };
    let (code, out, err) = run("[[binding]]\nset = 0\nbinding = 0\nid = 20\n");
    assert_eq!(code, Some(0), "{out}{err}");
    assert_eq!(
        out.lines().filter(|l| l.starts_with("AGREE ")).count(),
        2,
        "{out}"
    );
    // A `--buffer` file goes to every element of `bufs`: 256 invocations'
    // floats, 1.5 each (`bufs[3]` then holds 4.5 plus two texels).
    let data = dir.path().join("bufs.bin");
    std::fs::write(&data, 1.5f32.to_le_bytes().repeat(256)).unwrap();
    let o = halc()
        .args(["diff", "--uniform", "0.2:which=2", "--uniform", "0.2:tex=1"])
        .arg(format!("--buffer=0.0={}", data.display()))
        .arg("fixtures/kernels/descriptor_arrays.spv")
        .output()
        .unwrap();
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(
        out.contains("1024 scalars in 4 storage buffers agree"),
        "{out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let (code, out, err) = run("[[binding]]\nset = 0\nbinding = 0\ncount = 5\n");
    assert_eq!(code, Some(1), "{out}{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("binding map gives count 5 but the kernel declares 4 elements"),
        "{err}"
    );
}
