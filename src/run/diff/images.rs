//! The images, texel buffers and samplers of a differential run: each
//! image sized by its dimensionality, filled with seeded random texels of
//! its format, sampled with one nearest, clamp-to-edge sampler; and the
//! comparison of what the kernel wrote, texel by texel.

use vulkan_reference::{AddressMode, Component, Format, ImageDesc, ImageDim, SamplerDesc};

use super::data::Rng;
use super::DiffOutcome;
use crate::model::Kernel;
use crate::spirv::{BindingKind, ImageType, ScalarType};

/// One image or texel buffer of the run.
pub(super) struct DiffImage {
    pub(super) set: u32,
    pub(super) binding: u32,
    /// Its element of an array binding (0 for a single image).
    pub(super) element: u32,
    /// The binding's element count (1 for a single image).
    pub(super) count: u32,
    pub(super) kind: BindingKind,
    pub(super) format: Format,
    /// The image's shape; `None` for a texel buffer.
    pub(super) desc: Option<ImageDesc>,
    /// Texels (a texel buffer's: one per invocation).
    pub(super) texels: u64,
    /// The bytes both sides start from: every layer (or slice), tightly
    /// packed.
    pub(super) bytes: Vec<u8>,
}

impl DiffImage {
    /// How messages name it (see [`super::place`]).
    pub(super) fn name(&self) -> String {
        super::place(self.set, self.binding, self.element, self.count)
    }

    /// Whether the kernel may write it (what is compared).
    pub(super) fn writable(&self) -> bool {
        matches!(
            self.kind,
            BindingKind::StorageImage | BindingKind::StorageTexelBuffer
        )
    }
}

/// The sampler every sampler binding gets: nearest texels, clamped to the
/// edge, so that both sides read whole texels (filtering weights are the
/// driver's precision, not the compiler's).
pub(super) fn sampler() -> SamplerDesc {
    SamplerDesc {
        address_modes: [AddressMode::ClampToEdge; 3],
        max_lod: 0.0,
        ..SamplerDesc::default()
    }
}

/// The format a binding's image is made in: the one the kernel declares,
/// else (sampled images, and storage images written without a format) the
/// 4-component format of its sampled type: RGBA8 unorm for floats (exact
/// conversions, filterable), 32-bit integers otherwise.
fn format_of(input: &str, at: (u32, u32), image: &ImageType) -> Result<Format, String> {
    let name = match (image.format, image.sampled_type) {
        (Some(f), _) => f,
        (None, ScalarType::Float(_)) => "R8G8B8A8_UNORM",
        (None, ScalarType::Int(_)) => "R32G32B32A32_SINT",
        (None, ScalarType::UInt(_)) => "R32G32B32A32_UINT",
        (None, ScalarType::Bool) => "R32G32B32A32_UINT",
    };
    let f = Format::by_name(name).ok_or_else(|| {
        format!(
            "{input}: (set {}, binding {}): halc diff makes no {name} images",
            at.0, at.1
        )
    })?;
    if f.components().is_none() {
        return Err(format!(
            "{input}: (set {}, binding {}): halc diff does not fill packed {f} images yet",
            at.0, at.1
        ));
    }
    Ok(f)
}

/// Most texels along one side of an image `halc diff` makes.
const MAX_SIDE: u32 = 1024;

/// The kernel's images and texel buffers: one texel per invocation, as a
/// runtime array gets one element: a texel buffer has `grid`'s product of
/// texels, a 1D image `grid[0]`, a 2D one `grid[0]` x `grid[1]`, a 3D one
/// the grid, a cube square faces of the larger of the two (sides at most
/// [`MAX_SIDE`]); an arrayed image has two layers. Each element of an array
/// binding gets an image of its own (consecutive, in element order).
pub(super) fn images(
    input: &str,
    k: &Kernel,
    grid: [u32; 3],
    rng: &mut Rng,
) -> Result<Vec<DiffImage>, String> {
    let side = |n: u32| n.clamp(1, MAX_SIDE);
    let [gx, gy, gz] = grid.map(side);
    let invocations = u64::from(gx) * u64::from(gy) * u64::from(gz);
    let mut out = Vec::new();
    for b in &k.entry.bindings {
        let Some(image) = &b.image else {
            continue;
        };
        let at = (b.set, b.binding);
        if image.multisampled {
            return Err(format!(
                "{input}: (set {}, binding {}): multisampled images are not run",
                b.set, b.binding
            ));
        }
        let format = format_of(input, at, image)?;
        let layers = |n: u32| if image.arrayed { 2 * n } else { n };
        let shape = match (image.dim, image.arrayed) {
            // A texel buffer.
            ("buffer", _) => None,
            ("1d", false) => Some((ImageDim::D1, [gx, 1, 1], 1)),
            ("1d", true) => Some((ImageDim::D1Array, [gx, 1, 1], layers(1))),
            ("2d", false) => Some((ImageDim::D2, [gx, gy, 1], 1)),
            ("2d", true) => Some((ImageDim::D2Array, [gx, gy, 1], layers(1))),
            ("3d", _) => Some((ImageDim::D3, [gx, gy, gz], 1)),
            ("cube", false) => Some((ImageDim::Cube, [gx.max(gy), gx.max(gy), 1], 6)),
            (_, _) => Some((ImageDim::CubeArray, [gx.max(gy), gx.max(gy), 1], layers(6))),
        };
        let (desc, texels) = match shape {
            None => (None, invocations.max(1)),
            Some((dim, [w, h, d], l)) => {
                let desc = ImageDesc {
                    dim,
                    format,
                    width: w,
                    height: h,
                    depth: d,
                    layers: l,
                    mip_levels: 1,
                };
                let texels = u64::from(w) * u64::from(h) * u64::from(d) * u64::from(l);
                (Some(desc), texels)
            }
        };
        // Each element of an array its own image, of the same shape.
        let count = super::count_of(k, b);
        for element in 0..count {
            out.push(DiffImage {
                set: b.set,
                binding: b.binding,
                element,
                count,
                kind: b.kind,
                format,
                desc,
                texels,
                bytes: random_texels(format, texels, rng),
            });
        }
    }
    Ok(out)
}

/// `texels` random texels of `f`: floats in [-1, 1), normalized
/// components over their whole range, integers small (0 to 15, signed
/// ones also negative), so that data used as indices mostly stays in
/// range.
fn random_texels(f: Format, texels: u64, rng: &mut Rng) -> Vec<u8> {
    let (n, c) = f.components().expect("checked by format_of");
    let mut out = Vec::with_capacity((texels * u64::from(f.texel_bytes())) as usize);
    for _ in 0..texels * n as u64 {
        let bytes = (c.bits() / 8) as usize;
        let v: u64 = match c {
            Component::Unorm(b) | Component::Snorm(b) => rng.below(1u64 << b),
            Component::Uint(_) => rng.below(16),
            Component::Sint(_) => (rng.below(31) as i64 - 15) as u64,
            Component::Float(b) => {
                let x = (rng.below(1 << 24) as f64 / (1u64 << 23) as f64) - 1.0;
                if b == 16 {
                    u64::from(crate::spirv::specialize::f32_to_f16_bits(x as f32))
                } else {
                    u64::from((x as f32).to_bits())
                }
            }
        };
        out.extend_from_slice(&v.to_le_bytes()[..bytes]);
    }
    out
}

/// The first texel component of `image` where the two sides differ, as a
/// [`DiffOutcome::Differ`] naming them `labels` (`vulkan`'s, `cpu`'s); the
/// number of components compared otherwise.
pub(super) fn compare(
    seed: u64,
    image: &DiffImage,
    vulkan: &[u8],
    cpu: &[u8],
    ulp: u32,
    atol: f64,
    labels: [&str; 2],
) -> Result<usize, DiffOutcome> {
    let (n, c) = image.format.components().expect("checked by format_of");
    let size = (c.bits() / 8) as usize;
    let texel_bytes = image.format.texel_bytes() as usize;
    let mut compared = 0;
    for t in 0..image.texels as usize {
        for i in 0..n {
            let at = t * texel_bytes + i * size;
            let (Some(w), Some(g)) = (vulkan.get(at..at + size), cpu.get(at..at + size)) else {
                continue;
            };
            let read = |b: &[u8]| {
                let mut raw = [0u8; 8];
                raw[..size].copy_from_slice(b);
                u64::from_le_bytes(raw)
            };
            let (w, g) = (read(w), read(g));
            compared += 1;
            let same = match c {
                Component::Float(b) => {
                    w == g || crate::run::amber::data::floats_within(b, w, g, ulp, atol)
                }
                // Normalized components: within one step, the rounding of a
                // float exactly between two steps being the
                // implementation's (Vulkan leaves ties to it).
                Component::Unorm(_) => w.abs_diff(g) <= 1,
                Component::Snorm(b) => {
                    let s = |v: u64| ((v << (64 - b)) as i64) >> (64 - b);
                    s(w).abs_diff(s(g)) <= 1
                }
                _ => w == g,
            };
            if !same {
                let text = |v: u64| match c {
                    Component::Float(16) => {
                        crate::run::amber::data::f16_to_f32(v as u16).to_string()
                    }
                    Component::Float(_) => f32::from_bits(v as u32).to_string(),
                    Component::Sint(b) | Component::Snorm(b) => {
                        (((v << (64 - b)) as i64) >> (64 - b)).to_string()
                    }
                    _ => v.to_string(),
                };
                return Err(DiffOutcome::Differ(format!(
                    "seed {seed}: {} {} texel {} ({}), component {i}: {} {}, {} {}",
                    image.name(),
                    image.kind.describe(),
                    texel_position(image, t),
                    image.format,
                    labels[0],
                    text(w),
                    labels[1],
                    text(g)
                )));
            }
        }
    }
    Ok(compared)
}

/// Where texel `t` (in the packed order) is: `(x, y)`, with the layer or
/// slice when there are several.
fn texel_position(image: &DiffImage, t: usize) -> String {
    let Some(d) = &image.desc else {
        return t.to_string();
    };
    let (w, h) = (d.width as usize, d.height as usize);
    let (x, y, z) = (t % w, (t / w) % h, t / (w * h));
    if d.depth > 1 || d.layers > 1 {
        format!("({x}, {y}, {z})")
    } else {
        format!("({x}, {y})")
    }
}
