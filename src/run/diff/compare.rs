//! The verdict: every storage buffer compared scalar by scalar.

use super::data::{floats_close, read_scalar, slots};
use super::sides::{After, Resources};
use super::{images, DiffOptions, DiffOutcome};
use crate::spirv::BindingKind;

/// Compares what each side left in the storage buffers, images and texel
/// buffers ([`After`] of each side): the first scalar or texel component
/// that differs, else how much agreed.
pub(super) fn compare(
    opts: &DiffOptions,
    resources: &Resources<'_>,
    cpu: &After,
    vulkan: &After,
    invocations: u64,
    simd_width: Option<u32>,
) -> DiffOutcome {
    let buffers = resources.buffers;
    let (cpu_images, vulkan_images) = (&cpu.images, &vulkan.images);
    let (cpu, vulkan) = (&cpu.buffers, &vulkan.buffers);
    let mut scalars = 0usize;
    for (i, b) in buffers.iter().enumerate() {
        let (Some(want), Some(got)) = (&vulkan[i], &cpu[i]) else {
            continue;
        };
        let (set, binding) = (b.set, b.binding);
        for (at, ty) in slots(&b.layout, b.bytes.len()) {
            let at = at as usize;
            let (Some((w, wt)), Some((g, gt))) = (
                want.get(at..).and_then(|s| read_scalar(s, ty)),
                got.get(at..).and_then(|s| read_scalar(s, ty)),
            ) else {
                continue;
            };
            scalars += 1;
            if w != g && !floats_close(ty, w, g, opts.ulp, opts.atol) {
                return DiffOutcome::Differ(format!(
                    "seed {}: (set {set}, binding {binding}) byte {at} ({ty}): vulkan {wt}, metal-on-cpu {gt}",
                    opts.seed
                ));
            }
        }
    }
    let mut components = 0usize;
    let written = resources.images.iter().filter(|i| i.writable()).count();
    for (i, image) in resources.images.iter().enumerate() {
        let (Some(want), Some(got)) = (&vulkan_images[i], &cpu_images[i]) else {
            continue;
        };
        match images::compare(opts.seed, image, want, got, opts.ulp, opts.atol) {
            Ok(n) => components += n,
            Err(differ) => return differ,
        }
    }
    let images = if written > 0 {
        format!(" and {components} texel components in {written} storage images")
    } else {
        String::new()
    };
    DiffOutcome::Agree(format!(
        "seed {}: {scalars} scalars in {} storage buffers{images} agree ({} invocations{})",
        opts.seed,
        buffers
            .iter()
            .filter(|b| b.kind == BindingKind::StorageBuffer)
            .count(),
        invocations,
        match simd_width {
            Some(w) => format!(", SIMD groups of {w} lanes, as the Vulkan device's subgroups"),
            None => String::new(),
        }
    ))
}
