//! Images, samplers and texel buffers on lavapipe: created from bytes,
//! bound, read back, compared with values computed here; and the errors
//! a caller can meet. Skips (saying why) without a Vulkan driver unless
//! `HALC_REQUIRE_VULKAN=1`.

mod common;

use common::*;
use vulkan_reference::{
    AddressMode, BindingDesc, BindingKind, Bound, Error, Filter, Format, ImageDesc, ImageDim,
    PipelineDesc, Place, Resource, SamplerDesc, Session, SessionBound, SessionResource,
};

fn b(binding: u32, kind: BindingKind) -> BindingDesc {
    BindingDesc {
        set: 0,
        binding,
        kind,
        count: 1,
    }
}

fn image_desc(dim: ImageDim, format: &str, [w, h, d]: [u32; 3], layers: u32) -> ImageDesc {
    ImageDesc {
        dim,
        format: Format::by_name(format).unwrap(),
        width: w,
        height: h,
        depth: d,
        layers,
        mip_levels: 1,
    }
}

fn i32_bytes(v: &[i32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn i32s(b: &[u8]) -> Vec<i32> {
    b.chunks_exact(4)
        .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

#[test]
fn storage_images_load_store_and_convert() {
    let Some(vk) = reference(&[]) else { return };
    let words = kernel("tests/images_storage.spv");
    use BindingKind::*;
    let bindings = [
        b(0, StorageImage),
        b(1, StorageImage),
        b(2, StorageImage),
        b(3, StorageImage),
        b(4, Storage),
    ];
    let p = vk
        .pipeline(&PipelineDesc {
            spirv: &words,
            entry: "main",
            bindings: &bindings,
            ..Default::default()
        })
        .unwrap();
    // src: texel i holds 16 i / 255, so that every stored channel is a
    // whole number of 255ths (no rounding tie).
    let src_values: Vec<f32> = (0..16).map(|i| (16 * i) as f32 / 255.0).collect();
    let src = vk
        .image(
            &image_desc(ImageDim::D2, "R32_SFLOAT", [4, 4, 1], 1),
            &f32_bytes(&src_values),
        )
        .unwrap();
    let dst = vk
        .image(
            &image_desc(ImageDim::D2, "R8G8B8A8_UNORM", [4, 4, 1], 1),
            &[0xaa; 64],
        )
        .unwrap();
    let vol_values: Vec<i32> = (0..4 * 4 * 2 * 4).map(|i| i - 50).collect();
    let vol = vk
        .image(
            &image_desc(ImageDim::D3, "R32G32B32A32_SINT", [4, 4, 2], 1),
            &i32_bytes(&vol_values),
        )
        .unwrap();
    let layer_values: Vec<u32> = (0..4 * 4 * 3).map(|i| i * 10).collect();
    let layers = vk
        .image(
            &image_desc(ImageDim::D2Array, "R32_UINT", [4, 4, 1], 3),
            &u32_bytes(&layer_values),
        )
        .unwrap();
    let sizes = vk.buffer(&[0u8; 48]).unwrap();
    let bound = [
        Bound::of(0, 0, Resource::Image(&src)),
        Bound::of(0, 1, Resource::Image(&dst)),
        Bound::of(0, 2, Resource::Image(&vol)),
        Bound::of(0, 3, Resource::Image(&layers)),
        Bound::new(0, 4, &sizes),
    ];
    vk.dispatch(&p, &bound, &[], [1, 1, 1]).unwrap();

    let got = vk.read_image(&dst).unwrap();
    for i in 0..16usize {
        let want = [16 * i as u8, 8 * i as u8, 255 - 16 * i as u8, 0];
        assert_eq!(got[4 * i..4 * i + 4], want, "dst texel {i}");
    }
    let got = i32s(&vk.read_image(&vol).unwrap());
    for (i, (&g, &v)) in got.iter().zip(&vol_values).enumerate() {
        // Slice 1 (texels 16..32) was rewritten, slice 0 kept.
        let want = if i >= 64 {
            v * 2 + (i % 4) as i32 + 1
        } else {
            v
        };
        assert_eq!(g, want, "vol component {i}");
    }
    let got = u32s(&vk.read_image(&layers).unwrap());
    for i in 0..48usize {
        let want = if i < 16 {
            layer_values[32 + i] + 7
        } else {
            layer_values[i]
        };
        assert_eq!(got[i], want, "layers texel {i}");
    }
    assert_eq!(
        i32s(&sizes.read()),
        [4, 4, 0, 0, 4, 4, 2, 0, 4, 4, 3, 0],
        "imageSize of each"
    );
    // The source was only read.
    assert_eq!(f32s(&vk.read_image(&src).unwrap()), src_values);
}

/// Bilinear filtering of a 4x4 RGBA texture at `uv`, clamped to the edge,
/// as Vulkan defines it (texel centres at half-integers).
fn bilinear(texels: &[[f32; 4]], w: usize, h: usize, uv: [f32; 2]) -> [f32; 4] {
    let x = uv[0] * w as f32 - 0.5;
    let y = uv[1] * h as f32 - 0.5;
    let (x0, y0) = (x.floor(), y.floor());
    let (a, bb) = (x - x0, y - y0);
    let at = |i: f32, j: f32| {
        let i = (i.max(0.0) as usize).min(w - 1);
        let j = (j.max(0.0) as usize).min(h - 1);
        texels[j * w + i]
    };
    let mut out = [0.0; 4];
    for (c, o) in out.iter_mut().enumerate() {
        *o = (1.0 - a) * (1.0 - bb) * at(x0, y0)[c]
            + a * (1.0 - bb) * at(x0 + 1.0, y0)[c]
            + (1.0 - a) * bb * at(x0, y0 + 1.0)[c]
            + a * bb * at(x0 + 1.0, y0 + 1.0)[c];
    }
    out
}

#[test]
fn sampled_images_samplers_and_texel_buffers() {
    let Some(vk) = reference(&[]) else { return };
    let words = kernel("tests/images_sampled.spv");
    use BindingKind::*;
    let bindings = [
        b(0, CombinedImageSampler),
        b(1, SampledImage),
        b(2, Sampler),
        b(3, UniformTexelBuffer),
        b(4, StorageTexelBuffer),
        b(5, Storage),
        b(6, Storage),
    ];
    let p = vk
        .pipeline(&PipelineDesc {
            spirv: &words,
            entry: "main",
            bindings: &bindings,
            ..Default::default()
        })
        .unwrap();
    // A 4x4 RGBA8 texture with two levels: level 0 texel (x, y) is
    // (16x, 16y, 255 - 40x, 255), level 1 (2x2) texel i has green 50 + i.
    let mut data = Vec::new();
    let mut level0 = Vec::new();
    for y in 0..4u32 {
        for x in 0..4u32 {
            let t = [16 * x, 16 * y, 255 - 40 * x, 255].map(|c| c as u8);
            data.extend(t);
            level0.push(t.map(|c| c as f32 / 255.0));
        }
    }
    for i in 0..4u8 {
        data.extend([0, 50 + i, 0, 255]);
    }
    let desc = ImageDesc {
        mip_levels: 2,
        ..image_desc(ImageDim::D2, "R8G8B8A8_UNORM", [4, 4, 1], 1)
    };
    assert_eq!(desc.bytes(), 64 + 16);
    let tex = vk.image(&desc, &data).unwrap();
    let nearest = vk
        .sampler(&SamplerDesc {
            address_modes: [AddressMode::ClampToEdge; 3],
            ..Default::default()
        })
        .unwrap();
    let linear = vk
        .sampler(&SamplerDesc {
            mag_filter: Filter::Linear,
            min_filter: Filter::Linear,
            address_modes: [AddressMode::ClampToEdge; 3],
            ..Default::default()
        })
        .unwrap();
    let uv: [[f32; 2]; 8] = [
        [0.0, 0.0],
        [0.3, 0.6],
        [0.5, 0.5],
        [0.99, 0.01],
        [0.125, 0.875],
        [0.7, 0.2],
        [1.2, -0.3],
        [0.375, 0.625],
    ];
    let inb = vk
        .buffer(&f32_bytes(
            &uv.iter().flatten().copied().collect::<Vec<_>>(),
        ))
        .unwrap();
    let out = vk.buffer(&[0u8; 3 * 8 * 16]).unwrap();
    let tb_values: Vec<f32> = (0..8).map(|i| i as f32 * 0.25 - 1.0).collect();
    let tb = vk.buffer(&f32_bytes(&tb_values)).unwrap();
    let ib_values: Vec<f32> = (0..8).map(|i| 100.0 + i as f32).collect();
    let ib = vk.buffer(&f32_bytes(&ib_values)).unwrap();
    let r32f = Format::by_name("R32_SFLOAT").unwrap();
    let texel = |buffer| Resource::TexelBuffer {
        buffer,
        format: r32f,
        offset: 0,
        range: None,
    };
    let bound = [
        Bound::of(0, 0, Resource::CombinedImageSampler(&tex, &nearest)),
        Bound::of(0, 1, Resource::Image(&tex)),
        Bound::of(0, 2, Resource::Sampler(&linear)),
        Bound::of(0, 3, texel(&tb)),
        Bound::of(0, 4, texel(&ib)),
        Bound::new(0, 5, &inb),
        Bound::new(0, 6, &out),
    ];
    vk.dispatch(&p, &bound, &[], [1, 1, 1]).unwrap();
    let got = f32s(&out.read());
    for (i, uv) in uv.iter().enumerate() {
        // Nearest, clamped to the edge.
        let tx = ((uv[0] * 4.0).floor().clamp(0.0, 3.0)) as usize;
        let ty = ((uv[1] * 4.0).floor().clamp(0.0, 3.0)) as usize;
        let (g, want) = (&got[4 * i..4 * i + 4], level0[ty * 4 + tx]);
        // unorm8 to float: within a float rounding of c / 255.
        let close = |a: f32, b: f32| (a - b).abs() <= 1e-6;
        assert!(
            (0..4).all(|c| close(g[c], want[c])),
            "nearest {i} at {uv:?}: {g:?}, expected {want:?}"
        );
        // Linear: within the 8-bit weights a driver may use.
        let want = bilinear(&level0, 4, 4, *uv);
        let g = &got[32 + 4 * i..36 + 4 * i];
        for c in 0..4 {
            assert!(
                (g[c] - want[c]).abs() <= 2.0 / 255.0,
                "linear {i} at {uv:?}: {g:?}, expected {want:?}"
            );
        }
        let c = &got[64 + 4 * i..68 + 4 * i];
        let level1 = 50 + (i % 2) as u32 + 2 * (i / 4) as u32;
        assert!(
            close(c[0], level1 as f32 / 255.0),
            "texelFetch at level 1, {i}: {c:?}"
        );
        assert_eq!(c[1], tb_values[i], "uniform texel buffer {i}");
        assert_eq!(c[2], ib_values[i], "storage texel buffer {i}");
        assert_eq!(c[3], 2.0, "textureSize at level 1");
    }
    assert_eq!(
        f32s(&ib.read()),
        (0..8).map(|i| i as f32 * 3.0).collect::<Vec<_>>(),
        "imageStore to the texel buffer"
    );
}

#[test]
fn images_refuse_what_they_cannot_be() {
    let Some(vk) = reference(&[]) else { return };
    let desc = image_desc(ImageDim::D2, "R32_SFLOAT", [4, 4, 1], 1);
    let e = vk.image(&desc, &[0u8; 60]).unwrap_err();
    assert!(
        matches!(e, Error::Image(_)) && e.to_string().contains("60 bytes given for an image of 64"),
        "{e}"
    );
    for (bad, says) in [
        (
            ImageDesc {
                height: 2,
                ..image_desc(ImageDim::D1, "R32_SFLOAT", [4, 1, 1], 1)
            },
            "1D image has height 1",
        ),
        (
            image_desc(ImageDim::Cube, "R32_SFLOAT", [4, 4, 1], 5),
            "6 layers",
        ),
        (
            ImageDesc {
                mip_levels: 4,
                ..desc
            },
            "4 mip levels for a largest extent of 4 (1 to 3)",
        ),
    ] {
        let e = vk
            .image(&bad, &vec![0u8; bad.bytes() as usize])
            .unwrap_err();
        assert!(e.to_string().contains(says), "{e}");
    }
    let e = vk
        .sampler(&SamplerDesc {
            normalized_coordinates: false,
            ..Default::default()
        })
        .unwrap_err();
    assert!(e.to_string().contains("unnormalized"), "{e}");

    // An image bound where the kernel takes a buffer, and a buffer where
    // it takes an image: errors naming the binding, before anything runs.
    let words = kernel("tests/images_storage.spv");
    use BindingKind::*;
    let bindings = [
        b(0, StorageImage),
        b(1, StorageImage),
        b(2, StorageImage),
        b(3, StorageImage),
        b(4, Storage),
    ];
    let p = vk
        .pipeline(&PipelineDesc {
            spirv: &words,
            entry: "main",
            bindings: &bindings,
            ..Default::default()
        })
        .unwrap();
    let img = vk.image(&desc, &[0u8; 64]).unwrap();
    let buf = vk.buffer(&[0u8; 64]).unwrap();
    let e = vk
        .dispatch(
            &p,
            &[
                Bound::of(0, 0, Resource::Image(&img)),
                Bound::of(0, 1, Resource::Image(&img)),
                Bound::of(0, 2, Resource::Image(&img)),
                Bound::new(0, 3, &buf),
                Bound::of(0, 4, Resource::Image(&img)),
            ],
            &[],
            [1, 1, 1],
        )
        .unwrap_err();
    assert!(
        matches!(
            e,
            Error::Binding {
                set: 0,
                binding: 3,
                ..
            }
        ) && e
            .to_string()
            .contains("a buffer is bound to a binding that takes a storage image"),
        "{e}"
    );
}

#[test]
fn a_session_in_a_child_process_serves_images_and_samplers() {
    let Some(_) = reference(&[]) else { return };
    // The crate's own program serving sessions.
    let serve = env!("CARGO_BIN_EXE_vulkan-reference-serve");
    let s = Session::new(
        &Default::default(),
        Place::Child(std::process::Command::new(serve)),
    )
    .unwrap();
    let words = kernel("tests/images_storage.spv");
    use BindingKind::*;
    let bindings = [
        b(0, StorageImage),
        b(1, StorageImage),
        b(2, StorageImage),
        b(3, StorageImage),
        b(4, Storage),
    ];
    let p = s
        .pipeline(&PipelineDesc {
            spirv: &words,
            entry: "main",
            bindings: &bindings,
            ..Default::default()
        })
        .unwrap();
    let src_values: Vec<f32> = (0..16).map(|i| (16 * i) as f32 / 255.0).collect();
    let src = s
        .image(
            &image_desc(ImageDim::D2, "R32_SFLOAT", [4, 4, 1], 1),
            &f32_bytes(&src_values),
        )
        .unwrap();
    let dst = s
        .image(
            &image_desc(ImageDim::D2, "R8G8B8A8_UNORM", [4, 4, 1], 1),
            &[0; 64],
        )
        .unwrap();
    let vol = s
        .image(
            &image_desc(ImageDim::D3, "R32G32B32A32_SINT", [4, 4, 2], 1),
            &[0; 512],
        )
        .unwrap();
    let layers = s
        .image(
            &image_desc(ImageDim::D2Array, "R32_UINT", [4, 4, 1], 3),
            &[0; 192],
        )
        .unwrap();
    let sizes = s.buffer(&[0u8; 48]).unwrap();
    s.sampler(&SamplerDesc::default()).unwrap();
    let img = |binding, id| SessionBound::of(0, binding, SessionResource::Image(id));
    s.dispatch(
        p,
        &[
            img(0, src),
            img(1, dst),
            img(2, vol),
            img(3, layers),
            SessionBound::buffer(0, 4, sizes),
        ],
        &[],
        [1, 1, 1],
    )
    .unwrap();
    let got = s.read_image(dst).unwrap();
    assert_eq!(got[4 * 5..4 * 5 + 4], [80, 40, 175, 0]);
}
