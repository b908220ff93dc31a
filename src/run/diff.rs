//! `halc diff`: a differential run of one kernel without writing a test.
//! Its buffers are sized from the reflected block layouts, filled with
//! seeded random data of each scalar's own type, and the kernel runs twice:
//! halc's MSL on the CPU backend and the original SPIR-V on the Vulkan
//! reference. Every storage buffer is then compared scalar by scalar
//! (integers exactly, floats within a ULP tolerance, NaN equal to NaN).
//!
//! An out-of-bounds access on the CPU side (random data used as indices)
//! makes the run *inconclusive*, not a failure of the compiler.
//!
//! Data can be given instead: a buffer's or the push constants' bytes
//! whole ([`DiffOptions::given`], [`DiffOptions::push`]), or block members
//! by name ([`DiffOptions::values`]: `n=64`, `v=1,2,3,4`), written at the
//! reflected offsets over the bytes there would otherwise be (the given
//! bytes, else the seed's random data: a member not named keeps its random
//! value).

use std::time::Duration;

use runtime_loader::cpu::{self, CpuError, FaultKind, ResourceBindings};
use runtime_loader::memory::MemoryType;
use runtime_loader::plan::Grid;
use runtime_loader::Executable;

use crate::model::{Input, Options};
use crate::spirv::{self, BindingKind, BlockLayout, BlockType, ScalarType, StructType};

/// What a differential run does.
#[derive(Debug, Clone)]
pub struct DiffOptions {
    /// Compile options (binding model, MSL version, `specs` baked on both
    /// sides, `entries` to pick the kernel).
    pub compile: Options,
    /// Workgroups to dispatch.
    pub groups: [u32; 3],
    /// Seed of the random data.
    pub seed: u64,
    /// Buffer contents given instead of random data: (set, binding, bytes).
    pub given: Vec<(u32, u32, Vec<u8>)>,
    /// Push-constant contents given instead of random data: exactly the
    /// kernel's push-constant block (real kernels take sizes and strides
    /// there, which random values turn into out-of-bounds indexing).
    pub push: Option<Vec<u8>>,
    /// Block members given by name, written in order over the push
    /// constants or uniform block's bytes (given or random).
    pub values: Vec<NamedValue>,
    /// Vulkan device (substring of its name; default lavapipe).
    pub vulkan_device: Option<String>,
    /// Runs the Vulkan side in a child process, `PROGRAM __vulkan-reference`
    /// (the `halc` binary), so that a driver crash is an error rather than
    /// this process's end; `None`: in this process.
    pub vulkan_program: Option<std::path::PathBuf>,
    /// Float tolerance in units in the last place.
    pub ulp: u32,
    /// Absolute float tolerance, for results near zero: a Vulkan driver may
    /// fuse `a * x + y` into one rounding (SPIR-V allows it), and near zero
    /// one rounding of `a * x` is many ULPs of the result.
    pub atol: f64,
    /// Longest time one dispatch may take, on either side.
    pub time_limit: Duration,
    /// Changes the compiled kernel before it runs on the Metal side (tests
    /// inject miscompiles with it); `None` in real use.
    pub tamper: Option<fn(&mut crate::model::Compiled)>,
}

impl Default for DiffOptions {
    fn default() -> Self {
        DiffOptions {
            compile: Options::default(),
            groups: [1, 1, 1],
            seed: 1,
            given: Vec::new(),
            push: None,
            values: Vec::new(),
            vulkan_device: None,
            vulkan_program: None,
            ulp: 4,
            atol: 1e-6,
            time_limit: Duration::from_secs(60),
            tamper: None,
        }
    }
}

/// A block member given a value by name (`halc diff --push n=64`,
/// `--uniform 0.2:rows=16`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamedValue {
    /// The block: `None` for the push constants, else the uniform block at
    /// (set, binding).
    pub block: Option<(u32, u32)>,
    /// The member: `n`, a nested one `s.x`, an array element `a[2]`.
    pub name: String,
    /// The value: a scalar (`64`, `-3`, `0x40`, `1.5`, `true`), or every
    /// scalar of a vector, matrix (column by column) or array, separated by
    /// commas (`1,2,3,4`).
    pub value: String,
}

impl NamedValue {
    /// Whether `s` reads as `NAME=VALUE` rather than a file name: the part
    /// before the first `=` is a member path (`n`, `s.x`, `a[2]`).
    pub fn is_assignment(s: &str) -> bool {
        s.split_once('=').is_some_and(|(name, _)| {
            name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '[' | ']'))
        })
    }
}

/// What a block is called in messages.
fn block_subject(block: Option<(u32, u32)>) -> String {
    match block {
        None => "push constant".into(),
        Some((set, binding)) => format!("(set {set}, binding {binding}) uniform"),
    }
}

/// The members of `st`, as messages list them: `n: uint32, v: vec4<float32>`.
fn member_list(st: &StructType) -> String {
    let v: Vec<String> = st
        .members
        .iter()
        .map(|m| {
            format!(
                "{}: {}",
                m.name.as_deref().unwrap_or("(unnamed)"),
                m.ty.canonical()
            )
        })
        .collect();
    if v.is_empty() {
        "no members".into()
    } else {
        v.join(", ")
    }
}

/// Writes `v` into `bytes`, a block of type `st` (`variable` is its
/// instance name, also accepted as a prefix: `p.n`). Errors are one line
/// naming the member and the members there are.
fn write_named(
    bytes: &mut [u8],
    st: &StructType,
    variable: Option<&str>,
    v: &NamedValue,
) -> Result<(), String> {
    let subject = block_subject(v.block);
    let name = &v.name;
    let listed = || format!("the block has {}", member_list(st));
    let mut path = name.as_str();
    if let Some(rest) = variable.and_then(|var| path.strip_prefix(var)?.strip_prefix('.')) {
        let first = rest.split(['.', '[']).next().unwrap_or("");
        if st.members.iter().any(|m| m.name.as_deref() == Some(first)) {
            path = rest;
        }
    }
    // Walk the path: `ident`, `.ident`, `[index]`.
    let mut offset = 0u64;
    let mut ty_owned = BlockType::Struct(st.clone());
    let mut rest = path;
    let mut first = true;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('[') {
            let (idx, r) = r
                .split_once(']')
                .ok_or_else(|| format!("{subject} `{name}`: `[` without `]`"))?;
            let idx: u64 = idx
                .trim()
                .parse()
                .map_err(|_| format!("{subject} `{name}`: `[{idx}]` is not an index"))?;
            let BlockType::Array {
                element,
                length,
                stride,
            } = ty_owned
            else {
                return Err(format!(
                    "{subject} `{name}`: `{}` is not an array; {}",
                    &path[..path.len() - rest.len()],
                    listed()
                ));
            };
            if let Some(n) = length {
                if idx >= n {
                    return Err(format!(
                        "{subject} `{name}`: index {idx} is out of bounds: the array has {n} elements"
                    ));
                }
            }
            offset = offset.saturating_add(idx.saturating_mul(u64::from(stride)));
            ty_owned = *element;
            rest = r;
            continue;
        }
        let r = if first {
            rest
        } else {
            rest.strip_prefix('.').ok_or_else(|| {
                format!("{subject} `{name}`: expected `.member` or `[index]` at `{rest}`")
            })?
        };
        let at_top = first;
        first = false;
        let end = r.find(['.', '[']).unwrap_or(r.len());
        let (ident, r) = r.split_at(end);
        let BlockType::Struct(inner) = &ty_owned else {
            return Err(format!(
                "{subject} `{name}`: `{}` has no members; {}",
                &path[..path.len() - rest.len()],
                listed()
            ));
        };
        let Some(m) = inner
            .members
            .iter()
            .find(|m| m.name.as_deref() == Some(ident))
        else {
            let whose = if at_top {
                listed()
            } else {
                format!(
                    "`{}` has {}",
                    &path[..path.len() - rest.len()],
                    member_list(inner)
                )
            };
            return Err(format!("{subject} `{name}`: no member `{ident}`; {whose}"));
        };
        offset = offset.saturating_add(m.offset);
        let next = m.ty.clone();
        ty_owned = next;
        rest = r;
    }
    let values: Vec<&str> = v.value.split(',').map(str::trim).collect();
    let mut scalars = Vec::new();
    flat_scalars(&ty_owned, 0, &mut scalars).map_err(|what| {
        format!(
            "{subject} `{name}` is {what}; give its members one by one ({})",
            listed()
        )
    })?;
    if values.len() != scalars.len() {
        return Err(format!(
            "{subject} `{name}` is {} ({} scalar{}); `{}` gives {} ({})",
            ty_owned.canonical(),
            scalars.len(),
            if scalars.len() == 1 { "" } else { "s" },
            v.value,
            values.len(),
            listed()
        ));
    }
    // Every scalar checked before any is written: a refused value leaves
    // the bytes as they were.
    let mut writes = Vec::with_capacity(scalars.len());
    for ((at, ty), text) in scalars.into_iter().zip(values) {
        let encoded = encode_scalar(ty, text).ok_or_else(|| {
            format!(
                "{subject} `{name}` is {}; `{text}` is not a{} {} ({})",
                ty_owned.canonical(),
                if matches!(ty, ScalarType::Int(_) | ScalarType::UInt(_)) {
                    "n"
                } else {
                    ""
                },
                scalar_kind(ty),
                listed()
            )
        })?;
        let at = usize::try_from(offset.saturating_add(at)).unwrap_or(usize::MAX);
        if at.saturating_add(encoded.len()) > bytes.len() {
            return Err(format!(
                "{subject} `{name}`: byte {at} is past the {} bytes of the block's data",
                bytes.len()
            ));
        }
        writes.push((at, encoded));
    }
    for (at, encoded) in writes {
        bytes[at..at + encoded.len()].copy_from_slice(&encoded);
    }
    Ok(())
}

/// Most scalars one named value may give (an array given whole).
const MAX_NAMED_SCALARS: usize = 1 << 16;

/// What a scalar of `ty` is, for messages.
fn scalar_kind(ty: ScalarType) -> String {
    match ty {
        ScalarType::Bool => "bool (true, false, 1 or 0)".into(),
        ScalarType::Int(w) => format!("integer in the range of int{w}"),
        ScalarType::UInt(w) => format!("unsigned integer in the range of uint{w}"),
        ScalarType::Float(_) => "number".into(),
    }
}

/// Every scalar of `ty` (offset from its start, type), in the order values
/// are given: vector components, matrix columns, array elements; `Err`
/// names what cannot be given as one list (a struct, a runtime array).
fn flat_scalars(ty: &BlockType, base: u64, out: &mut Vec<(u64, ScalarType)>) -> Result<(), String> {
    match ty {
        BlockType::Array { length: None, .. } => {
            Err(format!("{}, a runtime-sized array", ty.canonical()))
        }
        BlockType::Struct(_) => Err(format!("a struct, {}", ty.canonical())),
        _ => ty
            .scalars(base, MAX_NAMED_SCALARS, out)
            .map_err(|_| format!("{}, too large to give whole", ty.canonical())),
    }
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

/// `text` as a little-endian scalar of `ty`, or `None` when it is not one
/// (a fraction for an integer, out of range, not a number).
fn encode_scalar(ty: ScalarType, text: &str) -> Option<Vec<u8>> {
    let int = |t: &str| -> Option<i128> {
        let (neg, digits) = match t.strip_prefix('-') {
            Some(d) => (true, d),
            None => (false, t.strip_prefix('+').unwrap_or(t)),
        };
        let v = match digits
            .strip_prefix("0x")
            .or_else(|| digits.strip_prefix("0X"))
        {
            Some(hex) => i128::from_str_radix(hex, 16).ok()?,
            None => digits.parse::<i128>().ok()?,
        };
        Some(if neg { -v } else { v })
    };
    match ty {
        ScalarType::Bool => {
            let b: u32 = match text {
                "true" | "1" => 1,
                "false" | "0" => 0,
                _ => return None,
            };
            Some(b.to_le_bytes().to_vec())
        }
        ScalarType::UInt(w) => {
            let v = int(text)?;
            let max = if w >= 64 {
                u64::MAX as i128
            } else {
                (1i128 << w) - 1
            };
            (0..=max)
                .contains(&v)
                .then(|| (v as u64).to_le_bytes()[..(w / 8) as usize].to_vec())
        }
        ScalarType::Int(w) => {
            let v = int(text)?;
            let half = 1i128 << (w.clamp(1, 64) - 1);
            (-half..half)
                .contains(&v)
                .then(|| (v as i64).to_le_bytes()[..(w / 8) as usize].to_vec())
        }
        ScalarType::Float(w) => {
            let v: f64 = text.parse().ok()?;
            Some(match w {
                16 => crate::spirv::specialize::f32_to_f16_bits(v as f32)
                    .to_le_bytes()
                    .to_vec(),
                32 => (v as f32).to_le_bytes().to_vec(),
                _ => v.to_le_bytes().to_vec(),
            })
        }
    }
}

/// How a differential run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DiffOutcome {
    /// Every storage buffer agrees.
    Agree(String),
    /// The first difference (the compiler, or implementation-defined
    /// behaviour, is to blame).
    Differ(String),
    /// No verdict: the kernel read or wrote out of bounds with this data,
    /// or it uses subgroup operations and the Vulkan device's subgroup size
    /// is one the CPU backend does not emulate.
    Inconclusive(String),
}

/// Runs [`diff`] for every seed in `seeds` (`opts.seed` replaced by each),
/// `jobs` at once (0: one per core, or what a make or cargo jobserver
/// grants), each in a forked process unless the caller runs other threads,
/// and calls `done` with each seed and its result in seed order, as soon as
/// it and every seed before it have finished. A seed whose process died is
/// an error naming how (`signal 6 (Aborted)`). An error from `done` stops
/// the run (what is running is waited for) and is returned.
pub fn diff_seeds<E>(
    input: &Input,
    opts: &DiffOptions,
    seeds: std::ops::Range<u64>,
    device: &cpu::Device,
    jobs: usize,
    mut done: impl FnMut(u64, Result<DiffOutcome, String>) -> Result<(), E>,
) -> Result<(), E> {
    let n = usize::try_from(seeds.end.saturating_sub(seeds.start)).unwrap_or(usize::MAX);
    // The first seed alone: it fills the CPU backend's cache with the
    // kernel's shared object, which every later seed then finds instead of
    // running clang on the same source at once.
    let first = n.min(1);
    run_seeds(input, opts, seeds.start, first, device, 1, &mut done)?;
    run_seeds(
        input,
        opts,
        seeds.start + first as u64,
        n - first,
        device,
        jobs,
        &mut done,
    )
}

/// [`diff_seeds`] of the `n` seeds from `start`.
fn run_seeds<E>(
    input: &Input,
    opts: &DiffOptions,
    start: u64,
    n: usize,
    device: &cpu::Device,
    jobs: usize,
    done: &mut impl FnMut(u64, Result<DiffOutcome, String>) -> Result<(), E>,
) -> Result<(), E> {
    let seed = |i: usize| start + i as u64;
    crate::driver::forked::each_forked(
        n,
        jobs,
        |i| {
            let opts = DiffOptions {
                seed: seed(i),
                ..opts.clone()
            };
            encode_outcome(&diff(input, &opts, device))
        },
        |i, bytes, _| {
            let seed = seed(i);
            let r = match bytes {
                Ok(b) => decode_outcome(&b).unwrap_or_else(|| {
                    Err(format!(
                        "{} seed {seed}: the process running it sent a garbled result",
                        input.name
                    ))
                }),
                Err(how) => Err(format!(
                    "{} seed {seed}: the process running it ended with {how} before it finished",
                    input.name
                )),
            };
            done(seed, r)
        },
    )
}

/// The bytes a seed's process sends.
fn encode_outcome(r: &Result<DiffOutcome, String>) -> Vec<u8> {
    use crate::driver::forked::tagged;
    match r {
        Ok(DiffOutcome::Agree(m)) => tagged(b'A', m),
        Ok(DiffOutcome::Differ(m)) => tagged(b'D', m),
        Ok(DiffOutcome::Inconclusive(m)) => tagged(b'I', m),
        Err(m) => tagged(b'E', m),
    }
}

fn decode_outcome(bytes: &[u8]) -> Option<Result<DiffOutcome, String>> {
    Some(match crate::driver::forked::untag(bytes)? {
        (b'A', m) => Ok(DiffOutcome::Agree(m)),
        (b'D', m) => Ok(DiffOutcome::Differ(m)),
        (b'I', m) => Ok(DiffOutcome::Inconclusive(m)),
        (b'E', m) => Err(m),
        _ => return None,
    })
}

/// SplitMix64: small, fast, and the same on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
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
fn fill(layout: &BlockLayout, len: usize, rng: &mut Rng, int_max: u64) -> Vec<u8> {
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
fn slots(layout: &BlockLayout, len: usize) -> Vec<(u64, ScalarType)> {
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

fn read_scalar(bytes: &[u8], ty: ScalarType) -> Option<(u64, String)> {
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
fn floats_close(ty: ScalarType, a: u64, b: u64, ulp: u32, atol: f64) -> bool {
    match ty {
        ScalarType::Float(w) => crate::run::amber::data::floats_within(w, a, b, ulp, atol),
        _ => a == b,
    }
}

/// Runs `input`'s kernel on both sides with seeded data and compares.
pub fn diff(
    input: &Input,
    opts: &DiffOptions,
    device: &cpu::Device,
) -> Result<DiffOutcome, String> {
    let compiled = crate::driver::compile(std::slice::from_ref(input), &opts.compile)
        .map_err(|e| e.to_string())?;
    let [k] = compiled.kernels.as_slice() else {
        return Err(format!(
            "{}: {} kernels; pick one with --entry",
            input.name,
            compiled.kernels.len()
        ));
    };
    // The Vulkan side runs the same specialization, baked the same way.
    let words = spirv::Words::from_bytes(&input.bytes).map_err(|e| e.to_string())?;
    let (words, _) = spirv::specialize(&words, &opts.compile.specs).map_err(|e| e.to_string())?;
    let wg = k.workgroup.values();
    let invocations: u64 = opts
        .groups
        .iter()
        .chain(wg.iter())
        .map(|&v| u64::from(v))
        .product();

    // Buffers: sized from the layout (runtime arrays: one element per
    // invocation), filled by type.
    let mut rng = Rng(opts.seed);
    let mut buffers: Vec<(u32, u32, BindingKind, BlockLayout, Vec<u8>)> = Vec::new();
    for b in &k.entry.bindings {
        if !b.kind.is_buffer() || b.count != 1 {
            return Err(format!(
                "{}: (set {}, binding {}): halc diff runs kernels whose resources are single buffers (this is a {}{})",
                input.name,
                b.set,
                b.binding,
                b.kind.describe(),
                if b.count != 1 { " array" } else { "" }
            ));
        }
        let layout = k
            .blocks
            .buffer(b.set, b.binding)
            .ok_or_else(|| {
                format!(
                    "{}: no buffer block at (set {}, binding {})",
                    input.name, b.set, b.binding
                )
            })?
            .layout()
            .map_err(|_| too_large(&input.name, Some((b.set, b.binding))))?;
        let bytes = match opts
            .given
            .iter()
            .find(|(s, n, _)| (*s, *n) == (b.set, b.binding))
        {
            Some((_, _, data)) => data.clone(),
            None => {
                let stride = layout.array.as_ref().map_or(0, |a| a.0);
                let len = (layout.fixed_size + stride * invocations).max(4) as usize;
                // Uniform integers are counts and sizes more often than data.
                let int_max = if b.kind == BindingKind::UniformBuffer {
                    invocations
                } else {
                    15
                };
                fill(&layout, len, &mut rng, int_max)
            }
        };
        buffers.push((b.set, b.binding, b.kind, layout, bytes));
    }
    let mut push = match (k.entry.push_constant_size, &opts.push) {
        (Some(size), Some(given)) if given.len() == size as usize => given.clone(),
        (Some(size), Some(given)) => {
            return Err(format!(
                "{}: the push constants given are {} bytes; kernel `{}` has a push-constant block of {size} bytes",
                input.name,
                given.len(),
                k.name
            ))
        }
        (None, Some(_)) => {
            return Err(format!(
                "{}: push constants were given, but kernel `{}` has no push-constant block",
                input.name, k.name
            ))
        }
        (Some(size), None) => {
            let layout = k
                .blocks
                .push_constants
                .as_ref()
                .ok_or_else(|| format!("{}: no push-constant block", input.name))?
                .layout()
                .map_err(|_| too_large(&input.name, None))?;
            fill(&layout, size as usize, &mut rng, invocations)
        }
        (None, None) => Vec::new(),
    };
    // Members given by name, over those bytes.
    for v in &opts.values {
        let subject = block_subject(v.block);
        let (bytes, block) = match v.block {
            None => match &k.blocks.push_constants {
                Some(block) => (&mut push, block),
                None => {
                    return Err(format!(
                        "{}: {subject} `{}` was given, but kernel `{}` has no push-constant block",
                        input.name, v.name, k.name
                    ))
                }
            },
            Some((set, binding)) => {
                let uniforms: Vec<String> = (buffers.iter())
                    .filter(|b| b.2 == BindingKind::UniformBuffer)
                    .map(|b| format!("{}.{}", b.0, b.1))
                    .collect();
                let theirs = if uniforms.is_empty() {
                    "it has no uniform block".to_string()
                } else {
                    format!("its uniform blocks are {}", uniforms.join(", "))
                };
                let Some(i) = (buffers.iter()).position(|b| (b.0, b.1) == (set, binding)) else {
                    return Err(format!(
                        "{}: `{set}.{binding}:{}`: kernel `{}` binds nothing at (set {set}, binding {binding}); {theirs}",
                        input.name, v.name, k.name
                    ));
                };
                let block = k.blocks.buffer(set, binding);
                match block {
                    Some(block) if buffers[i].2 == BindingKind::UniformBuffer => {
                        (&mut buffers[i].4, block)
                    }
                    _ => {
                        return Err(format!(
                            "{}: `{set}.{binding}:{}`: (set {set}, binding {binding}) of kernel `{}` is a {}, not a uniform block (give its contents with --buffer {set}.{binding}=FILE); {theirs}",
                            input.name,
                            v.name,
                            k.name,
                            buffers[i].2.describe()
                        ))
                    }
                }
            }
        };
        write_named(bytes, &block.ty, block.variable.as_deref(), v)
            .map_err(|e| format!("{}: {e}", input.name))?;
    }

    // The SPIR-V on Vulkan: a driver session, opened before the CPU run
    // only when that run needs the device's subgroup size, else after it,
    // when the CPU side gave something to compare.
    let open = || {
        // What the module needs (features for its capabilities, extensions
        // for its OpExtensions), enabled where the device has it, as the
        // Vulkan CTS registers a test with its requirements.
        let optional_features = vulkan_reference::required_by_module(words.as_slice())
            .map_err(|e| format!("vulkan: {e}"))?;
        vulkan_reference::Session::new(
            &vulkan_reference::ReferenceOptions {
                device: opts.vulkan_device.clone(),
                optional_features,
                timeout: opts.time_limit,
                ..Default::default()
            },
            crate::run::amber::run::vulkan_place(opts.vulkan_program.as_deref()),
        )
        .map_err(|e| format!("vulkan: {e}"))
    };
    // Subgroup results depend on the width: the CPU emulates the Vulkan
    // device's (Apple GPUs have 32 lanes; the MSL reads the width at run
    // time, as `threads_per_simdgroup`).
    let subgroups = k.uses_subgroups();
    let mut opened = None;
    let narrowed;
    let device = if subgroups {
        let reference = open()?;
        let width = reference.subgroup_size();
        opened = Some(reference);
        if width == device.simd_width() {
            device
        } else {
            narrowed = match device.with_simd_width(width) {
                Ok(d) => d,
                Err(_) => {
                    return Ok(DiffOutcome::Inconclusive(format!(
                        "the kernel uses subgroup operations and the Vulkan device's subgroups are {width} lanes, a width the CPU backend does not emulate ({}): not compared",
                        cpu::SIMD_WIDTHS_TEXT
                    )))
                }
            };
            &narrowed
        }
    } else {
        device
    };
    // Metal on the CPU.
    let mut metal = compiled.clone();
    if let Some(f) = opts.tamper {
        f(&mut metal);
    }
    let exe_bytes = metal.to_flatbuffer();
    let exe = Executable::load(&exe_bytes).map_err(|e| e.to_string())?;
    let program = device.load(exe).map_err(|e| e.to_string())?;
    let pipeline = program.pipeline(&k.name, &[]).map_err(|e| e.to_string())?;
    let cpu_bufs: Vec<cpu::Buffer> = buffers
        .iter()
        .map(|(_, _, _, _, bytes)| device.buffer_with_data(bytes, MemoryType::HostVisible))
        .collect::<Result<_, _>>()
        .map_err(|e| e.to_string())?;
    let mut bindings = ResourceBindings::new();
    for ((set, binding, ..), buf) in buffers.iter().zip(&cpu_bufs) {
        bindings.buffer(*set, *binding, buf);
    }
    let grid = Grid::Threadgroups(opts.groups);
    let divisions = device.undefined_divisions();
    match device.dispatch(&pipeline, &bindings, &push, grid) {
        // A division by zero completes on the CPU with halc's value (a GPU
        // gives one of its own): undefined, so nothing to compare either.
        Ok(_) if device.undefined_divisions() > divisions => {
            return Ok(DiffOutcome::Inconclusive(format!(
                "seed {}: the kernel divided an integer by zero (or INT_MIN by -1) on the CPU with this data, which is undefined; it depends on the data",
                opts.seed
            )));
        }
        Ok(_) => {}
        // Random data can send an index out of bounds or make a divisor
        // zero in a correct kernel: undefined behaviour on both sides, so
        // nothing to compare, but not a finding either.
        Err(e @ CpuError::Fault { kind, .. }) if kind.may_come_from_data() => {
            let why = match kind {
                FaultKind::IntegerDivision => "divided an integer by zero (or INT_MIN by -1)",
                FaultKind::OutOfBounds => "accessed memory out of bounds",
                _ => "accessed memory outside every buffer",
            };
            return Ok(DiffOutcome::Inconclusive(format!(
                "seed {}: the kernel {why} on the CPU with this data ({e}); it depends on the data",
                opts.seed
            )));
        }
        Err(e) => return Err(format!("metal-on-cpu: {e}")),
    }
    let reference = match opened {
        Some(r) => r,
        None => open()?,
    };

    let descs: Vec<vulkan_reference::BindingDesc> = buffers
        .iter()
        .map(|(set, binding, kind, ..)| vulkan_reference::BindingDesc {
            set: *set,
            binding: *binding,
            kind: if *kind == BindingKind::UniformBuffer {
                vulkan_reference::BindingKind::Uniform
            } else {
                vulkan_reference::BindingKind::Storage
            },
            count: 1,
        })
        .collect();
    let vk_pipeline = reference
        .pipeline(&vulkan_reference::PipelineDesc {
            spirv: words.as_slice(),
            entry: &k.entry.name,
            specialization: &[],
            bindings: &descs,
            push_constant_size: k.entry.push_constant_size.unwrap_or(0),
            require_full_subgroups: false,
            allow_varying_subgroup_size: false,
            required_subgroup_size: None,
        })
        .map_err(|e| format!("vulkan: {e}"))?;
    let vk_bufs: Vec<vulkan_reference::BufferId> = buffers
        .iter()
        .map(|(.., bytes)| reference.buffer(bytes))
        .collect::<Result<_, _>>()
        .map_err(|e| format!("vulkan: {e}"))?;
    let bound: Vec<vulkan_reference::SessionBound> = buffers
        .iter()
        .zip(&vk_bufs)
        .map(|((set, binding, ..), buf)| vulkan_reference::SessionBound {
            set: *set,
            binding: *binding,
            element: 0,
            buffer: *buf,
            offset: 0,
            range: None,
        })
        .collect();
    reference
        .dispatch(vk_pipeline, &bound, &push, opts.groups)
        .map_err(|e| format!("vulkan: {e}"))?;

    // Compare every storage buffer, scalar by scalar.
    let mut scalars = 0usize;
    for (i, (set, binding, kind, layout, bytes)) in buffers.iter().enumerate() {
        if *kind != BindingKind::StorageBuffer {
            continue;
        }
        let want = reference
            .read(vk_bufs[i])
            .map_err(|e| format!("vulkan: {e}"))?;
        let got = cpu_bufs[i].to_vec().map_err(|e| e.to_string())?;
        for (at, ty) in slots(layout, bytes.len()) {
            let at = at as usize;
            let (Some((w, wt)), Some((g, gt))) =
                (read_scalar(&want[at..], ty), read_scalar(&got[at..], ty))
            else {
                continue;
            };
            scalars += 1;
            if w != g && !floats_close(ty, w, g, opts.ulp, opts.atol) {
                return Ok(DiffOutcome::Differ(format!(
                    "seed {}: (set {set}, binding {binding}) byte {at} ({ty}): vulkan {wt}, metal-on-cpu {gt}",
                    opts.seed
                )));
            }
        }
    }
    Ok(DiffOutcome::Agree(format!(
        "seed {}: {scalars} scalars in {} storage buffers agree ({} invocations{})",
        opts.seed,
        buffers
            .iter()
            .filter(|b| b.2 == BindingKind::StorageBuffer)
            .count(),
        invocations,
        if subgroups {
            format!(
                ", SIMD groups of {} lanes, as the Vulkan device's subgroups",
                device.simd_width()
            )
        } else {
            String::new()
        }
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_results_cross_the_pipe_unchanged() {
        for r in [
            Ok(DiffOutcome::Agree("seed 1: 512 scalars agree".into())),
            Ok(DiffOutcome::Differ("seed 2: byte 4".into())),
            Ok(DiffOutcome::Inconclusive(String::new())),
            Err("k.spv: no entry point".into()),
        ] {
            assert_eq!(decode_outcome(&encode_outcome(&r)), Some(r));
        }
        assert_eq!(decode_outcome(b"Zx"), None);
        assert_eq!(decode_outcome(b""), None);
    }

    #[test]
    fn random_data_is_deterministic_per_seed_and_typed() {
        let layout = BlockLayout {
            fixed: vec![(0, ScalarType::UInt(32))],
            fixed_size: 4,
            array: Some((
                8,
                vec![(0, ScalarType::Float(32)), (4, ScalarType::Int(16))],
            )),
        };
        let a = fill(&layout, 4 + 8 * 10, &mut Rng(7), 15);
        let b = fill(&layout, 4 + 8 * 10, &mut Rng(7), 15);
        let c = fill(&layout, 4 + 8 * 10, &mut Rng(8), 15);
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert!(u32::from_le_bytes(a[0..4].try_into().unwrap()) <= 15);
        for e in 0..10 {
            let f = f32::from_le_bytes(a[4 + 8 * e..8 + 8 * e].try_into().unwrap());
            assert!((-1.0..1.0).contains(&f), "{f}");
            let i = i16::from_le_bytes(a[8 + 8 * e..10 + 8 * e].try_into().unwrap());
            assert!((-15..=15).contains(&i), "{i}");
            assert_eq!(&a[10 + 8 * e..12 + 8 * e], &[0, 0], "padding stays zero");
        }
        assert_eq!(slots(&layout, 4 + 8 * 10).len(), 1 + 2 * 10);
    }

    /// A push-constant block of every kind of member, as glslc lays it out.
    fn block() -> StructType {
        let member = |name: &str, offset: u64, ty: BlockType, size: u64| crate::spirv::Member {
            name: Some(name.into()),
            offset,
            ty,
            size,
        };
        let inner = StructType {
            name: Some("S".into()),
            members: vec![
                member("a", 0, BlockType::Scalar(ScalarType::Float(16)), 2),
                member("b", 4, BlockType::Scalar(ScalarType::Bool), 4),
            ],
            size: 8,
        };
        StructType {
            name: Some("P".into()),
            members: vec![
                member("n", 0, BlockType::Scalar(ScalarType::UInt(32)), 4),
                member("k", 4, BlockType::Scalar(ScalarType::Int(16)), 2),
                member(
                    "v",
                    16,
                    BlockType::Vector {
                        component: ScalarType::Float(32),
                        count: 3,
                    },
                    12,
                ),
                member(
                    "m",
                    32,
                    BlockType::Matrix {
                        component: ScalarType::Float(32),
                        columns: 2,
                        rows: 2,
                        stride: 16,
                        row_major: true,
                    },
                    32,
                ),
                member(
                    "a",
                    64,
                    BlockType::Array {
                        element: Box::new(BlockType::Scalar(ScalarType::Int(64))),
                        length: Some(2),
                        stride: 8,
                    },
                    16,
                ),
                member("s", 80, BlockType::Struct(inner), 8),
            ],
            size: 88,
        }
    }

    fn set(bytes: &mut [u8], name: &str, value: &str) -> Result<(), String> {
        let v = NamedValue {
            block: None,
            name: name.into(),
            value: value.into(),
        };
        write_named(bytes, &block(), Some("p"), &v)
    }

    /// Each member lands at its reflected offset in its own encoding, and
    /// nothing else changes.
    #[test]
    fn named_values_are_written_at_their_offsets() {
        let mut b = vec![0xAAu8; 88];
        set(&mut b, "n", "0x40").unwrap();
        set(&mut b, "k", "-2").unwrap();
        set(&mut b, "v", "1, 2.5, -3").unwrap();
        // Row-major: column 0 is (1, 2), column 1 (3, 4); rows 16 bytes apart.
        set(&mut b, "m", "1,2,3,4").unwrap();
        set(&mut b, "a[1]", "-5").unwrap();
        set(&mut b, "p.s.a", "0.5").unwrap();
        set(&mut b, "s.b", "true").unwrap();
        let f = |at: usize| f32::from_le_bytes(b[at..at + 4].try_into().unwrap());
        assert_eq!(u32::from_le_bytes(b[0..4].try_into().unwrap()), 64);
        assert_eq!(i16::from_le_bytes(b[4..6].try_into().unwrap()), -2);
        assert_eq!(b[6..16], [0xAA; 10], "padding untouched");
        assert_eq!([f(16), f(20), f(24)], [1.0, 2.5, -3.0]);
        assert_eq!([f(32), f(48), f(36), f(52)], [1.0, 2.0, 3.0, 4.0]);
        assert_eq!(b[64..72], [0xAA; 8], "a[0] untouched");
        assert_eq!(i64::from_le_bytes(b[72..80].try_into().unwrap()), -5);
        assert_eq!(u16::from_le_bytes(b[80..82].try_into().unwrap()), 0x3800);
        assert_eq!(u32::from_le_bytes(b[84..88].try_into().unwrap()), 1);
        set(&mut b, "a", "7,8").unwrap();
        assert_eq!(i64::from_le_bytes(b[64..72].try_into().unwrap()), 7);
    }

    #[test]
    fn named_values_out_of_type_or_range_are_refused() {
        let mut b = vec![0u8; 88];
        for (name, value, want) in [
            ("n", "-1", "push constant `n` is uint32; `-1` is not an unsigned integer"),
            ("n", "4294967296", "is not an unsigned integer in the range of uint32"),
            ("k", "32768", "push constant `k` is int16; `32768` is not an integer in the range of int16"),
            ("k", "1.0", "`1.0` is not an integer"),
            ("v", "1,x,3", "push constant `v` is vec3<float32>; `x` is not a number"),
            ("s.b", "2", "`2` is not a bool (true, false, 1 or 0)"),
            ("s", "1", "push constant `s` is a struct, struct{a: float16 @0, b: bool @4}; give its members one by one"),
            ("s.c", "1", "push constant `s.c`: no member `c`; `s` has a: float16, b: bool"),
            ("n[0]", "1", "push constant `n[0]`: `n` is not an array"),
            ("n.x", "1", "push constant `n.x`: `n` has no members"),
            ("a[x]", "1", "push constant `a[x]`: `[x]` is not an index"),
        ] {
            let e = set(&mut b, name, value).unwrap_err();
            assert!(e.contains(want), "{name}={value}: {e}");
            assert!(!e.contains('\n'), "{e}");
        }
        assert_eq!(b, vec![0u8; 88], "nothing written by a refused value");
        // Past the data there is (a short file).
        let e = set(&mut b[..8], "v", "1,2,3").unwrap_err();
        assert!(e.contains("byte 16 is past the 8 bytes"), "{e}");
    }

    #[test]
    fn assignments_are_told_from_file_names() {
        for yes in ["n=64", "s.x=1", "a[2]=3", "_k=-1", "v=1,2"] {
            assert!(NamedValue::is_assignment(yes), "{yes}");
        }
        for no in ["push.bin", "dir/n=64", "./n=1", "=1", "1n=2", "a b=1"] {
            assert!(!NamedValue::is_assignment(no), "{no}");
        }
    }

    #[test]
    fn ulp_closeness() {
        let f = |v: f32| u64::from(v.to_bits());
        let t = ScalarType::Float(32);
        let up = |n: u32| f(f32::from_bits(1.0f32.to_bits() + n));
        assert!(floats_close(t, f(1.0), up(4), 4, 0.0));
        assert!(!floats_close(t, f(1.0), up(5), 4, 0.0));
        assert!(floats_close(t, f(1.0), up(5), 4, 1e-6));
        assert!(!floats_close(t, f(0.5), f(0.5001), 4, 1e-6));
        assert!(floats_close(t, f(f32::NAN), f(f32::NAN), 0, 0.0));
        assert!(!floats_close(t, f(f32::NAN), f(0.0), 0, 1.0));
        assert!(!floats_close(ScalarType::UInt(32), 1, 2, 100, 10.0));
    }
}
