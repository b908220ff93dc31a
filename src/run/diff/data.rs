//! The data both sides start from: every buffer sized from its reflected
//! block layout and filled with seeded random scalars of each one's own
//! type (or the bytes given), the push constants likewise; and reading
//! scalars back for the comparison.

use super::{DiffBuffer, DiffOptions};
use crate::model::Kernel;
use crate::spirv::{BindingKind, BlockLayout, ScalarType};

/// The kernel's buffers, in binding order, one per element of an array
/// binding (consecutive, in element order): the bytes given for one (every
/// element of an array gets them), else random data sized from its layout
/// (a runtime array: one element per invocation), each element its own.
pub(super) fn buffers(
    input: &str,
    k: &Kernel,
    opts: &DiffOptions,
    invocations: u64,
    rng: &mut Rng,
) -> Result<Vec<DiffBuffer>, String> {
    let mut buffers = Vec::new();
    for b in &k.entry.bindings {
        // Images and samplers: `images.rs`.
        if b.image.is_some() || b.kind == BindingKind::Sampler {
            continue;
        }
        if !b.kind.is_buffer() {
            return Err(format!(
                "{input}: (set {}, binding {}): halc diff runs kernels whose resources are buffers, images and samplers (this is a {})",
                b.set,
                b.binding,
                b.kind.describe(),
            ));
        }
        let layout = k
            .blocks
            .buffer(b.set, b.binding)
            .ok_or_else(|| {
                format!(
                    "{input}: no buffer block at (set {}, binding {})",
                    b.set, b.binding
                )
            })?
            .layout()
            .map_err(|_| too_large(input, Some((b.set, b.binding))))?;
        let count = super::count_of(k, b);
        for element in 0..count {
            let bytes = match opts
                .given
                .iter()
                .find(|(s, n, _)| (*s, *n) == (b.set, b.binding))
            {
                Some((_, _, data)) => data.clone(),
                None => {
                    let stride = layout.array.as_ref().map_or(0, |a| a.0);
                    // At least what every view of an aliased binding needs
                    // (the largest fixed part, and one element per
                    // invocation of the widest runtime array).
                    let widest = b.min_size + u64::from(b.runtime_array_stride) * invocations;
                    let len = (layout.fixed_size + stride * invocations)
                        .max(widest)
                        .max(4) as usize;
                    // Uniform integers are counts and sizes more often than data.
                    let int_max = if b.kind == BindingKind::UniformBuffer {
                        invocations
                    } else {
                        15
                    };
                    fill(&layout, len, rng, int_max)
                }
            };
            buffers.push(DiffBuffer {
                set: b.set,
                binding: b.binding,
                element,
                count,
                kind: b.kind,
                layout: layout.clone(),
                bytes,
            });
        }
    }
    Ok(buffers)
}

/// The push constants: the bytes given (exactly the block's size), else
/// random data of the block's layout; empty without a block.
pub(super) fn push_constants(
    input: &str,
    k: &Kernel,
    opts: &DiffOptions,
    invocations: u64,
    rng: &mut Rng,
) -> Result<Vec<u8>, String> {
    Ok(match (k.entry.push_constant_size, &opts.push) {
        (Some(size), Some(given)) if given.len() == size as usize => given.clone(),
        (Some(size), Some(given)) => {
            return Err(format!(
                "{input}: the push constants given are {} bytes; kernel `{}` has a push-constant block of {size} bytes",
                given.len(),
                k.name
            ))
        }
        (None, Some(_)) => {
            return Err(format!(
                "{input}: push constants were given, but kernel `{}` has no push-constant block",
                k.name
            ))
        }
        (Some(size), None) => {
            let layout = k
                .blocks
                .push_constants
                .as_ref()
                .ok_or_else(|| format!("{input}: no push-constant block"))?
                .layout()
                .map_err(|_| too_large(input, None))?;
            fill(&layout, size as usize, rng, invocations)
        }
        (None, None) => Vec::new(),
    })
}

/// A block with more scalars than halc diff lays out.
fn too_large(input: &str, at: Option<(u32, u32)>) -> String {
    match at {
        Some((set, binding)) => format!(
            "{input}: the buffer block at (set {set}, binding {binding}) is too large to lay out"
        ),
        None => format!("{input}: the push-constant block is too large to lay out"),
    }
}

/// SplitMix64: small, fast, and the same on every machine.
pub(super) struct Rng(pub(super) u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    pub(super) fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next() % n
        }
    }
}

/// One random scalar of `ty` as little-endian bytes: floats in [-1, 1),
/// integers small (`0..=int_max`, signed ones also negative), so that data
/// used as counts or indices mostly stays in range.
fn random_scalar(rng: &mut Rng, ty: ScalarType, int_max: u64) -> Vec<u8> {
    match ty {
        ScalarType::Float(w) => {
            let v = (rng.below(1 << 24) as f64 / (1u64 << 23) as f64) - 1.0;
            match w {
                16 => crate::spirv::specialize::f32_to_f16_bits(v as f32)
                    .to_le_bytes()
                    .to_vec(),
                32 => (v as f32).to_le_bytes().to_vec(),
                _ => v.to_le_bytes().to_vec(),
            }
        }
        ScalarType::Int(w) => {
            let v = rng.below(2 * int_max + 1) as i64 - int_max as i64;
            v.to_le_bytes()[..(w / 8) as usize].to_vec()
        }
        ScalarType::UInt(w) => rng.below(int_max + 1).to_le_bytes()[..(w / 8) as usize].to_vec(),
        ScalarType::Bool => (rng.below(2) as u32).to_le_bytes().to_vec(),
    }
}

/// `len` bytes of a block laid out as `layout`, filled with random scalars
/// (padding zero).
pub(super) fn fill(layout: &BlockLayout, len: usize, rng: &mut Rng, int_max: u64) -> Vec<u8> {
    let mut out = vec![0u8; len];
    let mut put = |at: u64, ty: ScalarType, rng: &mut Rng| {
        let bytes = random_scalar(rng, ty, int_max);
        let at = at as usize;
        if at + bytes.len() <= out.len() {
            out[at..at + bytes.len()].copy_from_slice(&bytes);
        }
    };
    for &(at, ty) in &layout.fixed {
        put(at, ty, rng);
    }
    if let Some((stride, slots)) = &layout.array {
        let mut base = layout.fixed_size;
        while *stride > 0 && base + stride <= len as u64 {
            for &(at, ty) in slots {
                put(base + at, ty, rng);
            }
            base += stride;
        }
    }
    out
}

/// Every (offset, type) of a block of `len` bytes.
pub(super) fn slots(layout: &BlockLayout, len: usize) -> Vec<(u64, ScalarType)> {
    let mut v = layout.fixed.clone();
    if let Some((stride, slots)) = &layout.array {
        let mut base = layout.fixed_size;
        while *stride > 0 && base + stride <= len as u64 {
            v.extend(slots.iter().map(|&(at, ty)| (base + at, ty)));
            base += stride;
        }
    }
    v
}

pub(super) fn read_scalar(bytes: &[u8], ty: ScalarType) -> Option<(u64, String)> {
    let n = (ty.bits().max(8) / 8) as usize;
    let b = bytes.get(..n)?;
    let mut raw = [0u8; 8];
    raw[..n].copy_from_slice(b);
    let bits = u64::from_le_bytes(raw);
    let text = match ty {
        ScalarType::Float(16) => crate::run::amber::data::f16_to_f32(bits as u16).to_string(),
        ScalarType::Float(32) => f32::from_bits(bits as u32).to_string(),
        ScalarType::Float(_) => f64::from_bits(bits).to_string(),
        ScalarType::Int(w) => (((bits << (64 - w)) as i64) >> (64 - w)).to_string(),
        _ => bits.to_string(),
    };
    Some((bits, text))
}

/// Whether two scalars' bit patterns agree: integers exactly, floats
/// within `ulp` or `atol` (NaN equal to NaN).
pub(super) fn floats_close(ty: ScalarType, a: u64, b: u64, ulp: u32, atol: f64) -> bool {
    match ty {
        ScalarType::Float(w) => crate::run::amber::data::floats_within(w, a, b, ulp, atol),
        _ => a == b,
    }
}
