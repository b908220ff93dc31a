//! The verdict: every storage buffer compared scalar by scalar.

use super::addresses::Holder;
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
    compare_as(
        opts,
        resources,
        cpu,
        vulkan,
        invocations,
        simd_width,
        ["vulkan", "metal-on-cpu"],
    )
}

/// [`compare`], naming the sides `labels` (`vulkan`'s, then `cpu`'s) in a
/// difference.
pub(super) fn compare_as(
    opts: &DiffOptions,
    resources: &Resources<'_>,
    cpu: &After,
    vulkan: &After,
    invocations: u64,
    simd_width: Option<u32>,
    labels: [&str; 2],
) -> DiffOutcome {
    let [lw, lg] = labels;
    let buffers = resources.buffers;
    let (cpu_after, vulkan_after) = (cpu, vulkan);
    let (cpu_images, vulkan_images) = (&cpu.images, &vulkan.images);
    let (cpu, vulkan) = (&cpu.buffers, &vulkan.buffers);
    let addresses = resources.addresses;
    let places = addresses.places();
    let cpu_at: Vec<u64> = cpu_after.reached.iter().map(|r| r.1).collect();
    let vulkan_at: Vec<u64> = vulkan_after.reached.iter().map(|r| r.1).collect();
    let mut scalars = 0usize;
    // Every storage buffer, then every reached buffer: (holder, name,
    // layout, bytes given, Vulkan's bytes, the CPU's).
    let bound = buffers.iter().enumerate().filter_map(|(i, b)| {
        let (want, got) = (vulkan[i].as_ref()?, cpu[i].as_ref()?);
        let name = b.name();
        Some((Holder::Buffer(i), name, &b.layout, b.bytes.len(), want, got))
    });
    let reached = (addresses.reached.iter().enumerate())
        .zip(vulkan_after.reached.iter().zip(&cpu_after.reached))
        .map(|((i, r), (want, got))| {
            let name = r.what.clone();
            (
                Holder::Reached(i),
                name,
                &r.layout,
                r.bytes.len(),
                &want.0,
                &got.0,
            )
        });
    for (holder, name, layout, len, want, got) in bound.chain(reached) {
        for (at, ty) in slots(layout, len) {
            // An address: each side's own, compared by where it points.
            if places.contains(&(holder, at)) {
                let read = |bytes: &[u8]| {
                    let b = bytes.get(at as usize..at as usize + 8)?;
                    Some(u64::from_le_bytes(b.try_into().ok()?))
                };
                let (Some(w), Some(g)) = (read(want), read(got)) else {
                    continue;
                };
                let (w, g) = (
                    addresses.resolve(&vulkan_at, w),
                    addresses.resolve(&cpu_at, g),
                );
                scalars += 1;
                if w != g {
                    return DiffOutcome::Differ(format!(
                        "seed {}: {name} byte {at} (a device address): {lw} {w}, {lg} {g}",
                        opts.seed
                    ));
                }
                continue;
            }
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
                    "seed {}: {name} byte {at} ({ty}): {lw} {wt}, {lg} {gt}",
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
        match images::compare(opts.seed, image, want, got, opts.ulp, opts.atol, labels) {
            Ok(n) => components += n,
            Err(differ) => return differ,
        }
    }
    let images = if written > 0 {
        format!(" and {components} texel components in {written} storage images")
    } else {
        String::new()
    };
    let reached = match addresses.reached.len() {
        0 => String::new(),
        n => format!(" and {n} buffers reached through device addresses"),
    };
    DiffOutcome::Agree(format!(
        "seed {}: {scalars} scalars in {} storage buffers{reached}{images} agree ({} invocations{})",
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
