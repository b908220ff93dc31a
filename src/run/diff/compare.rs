//! The verdict: every storage buffer compared scalar by scalar.

use super::data::{floats_close, read_scalar, slots};
use super::{DiffBuffer, DiffOptions, DiffOutcome};
use crate::spirv::BindingKind;

/// Compares what each side left in the storage buffers (`cpu[i]` and
/// `vulkan[i]` of `buffers[i]`): the first scalar that differs, else how
/// much agreed.
pub(super) fn compare(
    opts: &DiffOptions,
    buffers: &[DiffBuffer],
    cpu: &[Option<Vec<u8>>],
    vulkan: &[Option<Vec<u8>>],
    invocations: u64,
    simd_width: Option<u32>,
) -> DiffOutcome {
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
    DiffOutcome::Agree(format!(
        "seed {}: {scalars} scalars in {} storage buffers agree ({} invocations{})",
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
