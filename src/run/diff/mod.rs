//! `halc diff`: a differential run of one kernel without writing a test.
//! Its buffers are sized from the reflected block layouts, filled with
//! seeded random data of each scalar's own type, and the kernel runs twice:
//! halc's MSL on the CPU backend and the original SPIR-V on the Vulkan
//! reference. Every storage buffer is then compared scalar by scalar
//! (integers exactly, floats within a ULP tolerance, NaN equal to NaN).
//!
//! Images and texel buffers (`images.rs`) get one texel per invocation
//! along each dimension they have, random texels of the format the kernel
//! declares (else RGBA8 unorm for float images, 32-bit integers
//! otherwise); every sampler is nearest and clamps to the edge, so both
//! sides read whole texels. Storage images and storage texel buffers are
//! compared texel by texel, as the buffers are.
//!
//! Descriptor arrays: every element of an array binding gets a buffer or
//! image of its own, sized and filled as a single one would be, bound
//! element by element on both sides (the CPU runtime's `bind_array`, the
//! Vulkan reference's `SessionBound::element` under a binding of the
//! array's count) and compared element by element, messages naming the
//! element: `(set 0, binding 1, element 2)`. (A runtime-sized array would
//! run with the count its binding map gives it; halc does not admit
//! `RuntimeDescriptorArray` yet.) A null or stray pointer in a kernel with arrays is
//! inconclusive, as an index from the data past an array's end reads
//! whatever lies there.
//!
//! An out-of-bounds access on the CPU side (random data used as indices or
//! coordinates) makes the run *inconclusive*, not a failure of the
//! compiler.
//!
//! Data can be given instead: a buffer's or the push constants' bytes
//! whole ([`DiffOptions::given`], [`DiffOptions::push`]), or block members
//! by name ([`DiffOptions::values`]: `n=64`, `v=1,2,3,4`), written at the
//! reflected offsets over the bytes there would otherwise be (the given
//! bytes, else the seed's random data: a member not named keeps its random
//! value).

mod addresses;
mod compare;
mod data;
mod images;
mod named;
mod seeds;
mod sides;
#[cfg(test)]
mod tests;

use std::time::Duration;

use runtime_loader::cpu;

use crate::model::{Input, Options};
use crate::spirv::{self, BindingKind, BlockLayout};

pub use named::NamedValue;
pub use seeds::diff_seeds;

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

/// How a differential run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DiffOutcome {
    /// Every storage buffer agrees.
    Agree(String),
    /// The first difference (the compiler, or implementation-defined
    /// behaviour, is to blame).
    Differ(String),
    /// No verdict: the kernel read or wrote out of bounds with this data,
    /// it uses subgroup operations and the Vulkan device's subgroup size is
    /// one the CPU backend does not emulate, its invocations race (write
    /// and read or write the same memory without atomics or a barrier
    /// between: the CPU backend's race check), its results move between
    /// CPU runs (it reads memory it never wrote), or
    /// it made a NaN from numbers (or converted a float to an integer it
    /// does not fit), which Vulkan leaves undefined.
    Inconclusive(String),
}

/// One buffer of the run: where it is bound (an array binding has one per
/// element), what it is, its reflected layout, and the bytes both sides
/// start from.
struct DiffBuffer {
    set: u32,
    binding: u32,
    /// Its element of an array binding (0 for a single buffer).
    element: u32,
    /// The binding's element count (1 for a single buffer).
    count: u32,
    kind: BindingKind,
    layout: BlockLayout,
    bytes: Vec<u8>,
}

impl DiffBuffer {
    /// How messages name it: `(set 0, binding 1)`, `(set 0, binding 1,
    /// element 2)` in an array.
    fn name(&self) -> String {
        place(self.set, self.binding, self.element, self.count)
    }
}

/// How messages name a resource: `(set 0, binding 1)`, or with the element
/// of an array binding, `(set 0, binding 1, element 2)`.
fn place(set: u32, binding: u32, element: u32, count: u32) -> String {
    if count == 1 {
        format!("(set {set}, binding {binding})")
    } else {
        format!("(set {set}, binding {binding}, element {element})")
    }
}

/// The element count of `k`'s binding at (`b.set`, `b.binding`) as the
/// layout resolved it (a runtime-sized array: the count the binding map
/// gives it).
fn count_of(k: &crate::model::Kernel, b: &spirv::Binding) -> u32 {
    k.layout
        .bindings
        .iter()
        .find(|l| (l.set, l.binding) == (b.set, b.binding))
        .map_or(b.count, |l| l.count)
        .max(1)
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

    let mut rng = data::Rng(opts.seed);
    let mut buffers = data::buffers(&input.name, k, opts, invocations, &mut rng)?;
    let mut push = data::push_constants(&input.name, k, opts, invocations, &mut rng)?;
    let given = named::apply(&input.name, k, &opts.values, &mut push, &mut buffers)?;
    let addresses =
        addresses::Addresses::seed(k, &buffers, &given, push.len(), invocations, &mut rng);
    let grid: [u32; 3] = std::array::from_fn(|i| opts.groups[i].saturating_mul(wg[i]));
    let images = images::images(&input.name, k, grid, &mut rng)?;
    let resources = sides::Resources {
        buffers: &buffers,
        addresses: &addresses,
        images: &images,
        samplers: k
            .entry
            .bindings
            .iter()
            .filter(|b| b.kind == BindingKind::Sampler)
            .map(|b| (b.set, b.binding, count_of(k, b)))
            .collect(),
    };

    match sides::run(opts, &compiled, k, &words, &resources, &push, device)? {
        sides::Ran::Inconclusive(why) => Ok(DiffOutcome::Inconclusive(why)),
        sides::Ran::Both {
            cpu,
            vulkan,
            simd_width,
        } => {
            let verdict =
                compare::compare(opts, &resources, &cpu, &vulkan, invocations, simd_width);
            let DiffOutcome::Differ(_) = verdict else {
                return Ok(verdict);
            };
            // Whether the kernel's atomics or barriers could order two
            // workgroups' accesses: if none can, a conflict between
            // threadgroups is a race whatever (relaxed) atomics they do.
            let group_order = if spirv::validate::may_order_across_workgroups(&words)
                .map_err(|e| e.to_string())?
            {
                cpu::GroupOrder::Atomics
            } else {
                cpu::GroupOrder::Nothing
            };
            let run = Rerun {
                opts,
                compiled: &compiled,
                k,
                resources: &resources,
                push: &push,
                device,
                invocations,
                simd_width,
                group_order,
            };
            run.second_look(verdict)
        }
    }
}

/// What reruns a kernel's CPU side with the same data.
struct Rerun<'a> {
    opts: &'a DiffOptions,
    compiled: &'a crate::model::Compiled,
    k: &'a crate::model::Kernel,
    resources: &'a sides::Resources<'a>,
    push: &'a [u8],
    /// The device `diff` was given (narrowed to `simd_width` here, as the
    /// first run was).
    device: &'a cpu::Device,
    invocations: u64,
    simd_width: Option<u32>,
    /// What the race check takes to order two threadgroups' accesses.
    group_order: cpu::GroupOrder,
}

impl Rerun<'_> {
    /// A difference, looked at again before it blames the compiler: a
    /// kernel whose invocations race (the CPU backend's race check), whose
    /// CPU results move between runs, or that made a NaN from numbers, has
    /// no defined result to compare.
    fn second_look(&self, verdict: DiffOutcome) -> Result<DiffOutcome, String> {
        let Rerun {
            opts,
            compiled,
            k,
            resources,
            push,
            device,
            simd_width,
            ..
        } = *self;
        let device = match simd_width {
            Some(w) if w != device.simd_width() => {
                device.with_simd_width(w).map_err(|e| e.to_string())?
            }
            _ => device.clone(),
        };
        // Do its invocations race? The CPU backend runs a threadgroup's
        // invocations one after another between barriers, so a race gives
        // the same serial result on every run there and something else on
        // a GPU: the race check sees the accesses themselves. A fault in
        // the checked run names no race; a check that could not
        // run (a time-out: it is slower) leaves the difference standing,
        // saying so.
        let checked = device.with_race_check_ordered_by(self.group_order);
        match sides::on_cpu(opts, compiled, k, resources, push, &checked) {
            Ok(_) => {
                if let Some(race) = checked.first_race() {
                    return Ok(DiffOutcome::Inconclusive(format!(
                        "seed {}: {race}: a data race, undefined on Metal and in Vulkan; not compared",
                        opts.seed
                    )));
                }
            }
            Err(why) => {
                return Ok(match self.after_race_check(verdict, &device)? {
                    DiffOutcome::Differ(d) => {
                        DiffOutcome::Differ(format!("{d} (the race check could not run: {why})"))
                    }
                    other => other,
                })
            }
        }
        self.after_race_check(verdict, &device)
    }

    /// The rest of [`Rerun::second_look`]: the fills, then the float
    /// check, on `device` (narrowed to the run's SIMD width).
    fn after_race_check(
        &self,
        verdict: DiffOutcome,
        device: &cpu::Device,
    ) -> Result<DiffOutcome, String> {
        let Rerun {
            opts,
            compiled,
            k,
            resources,
            push,
            invocations,
            simd_width,
            ..
        } = *self;
        // Do its results move between runs (it reads memory it never
        // wrote, or its invocations race in a way the check does not
        // see)?
        let rerun = |locals, threadgroup| {
            sides::on_cpu(
                opts,
                compiled,
                k,
                resources,
                push,
                &device.with_fills(locals, threadgroup),
            )
        };
        let (Ok(zeroed), Ok(pattern)) = (
            rerun(cpu::LocalFill::Zero, cpu::ThreadgroupFill::Zero)?,
            rerun(cpu::LocalFill::Pattern, cpu::ThreadgroupFill::Poison)?,
        ) else {
            return Ok(verdict);
        };
        if let DiffOutcome::Differ(detail) = compare::compare_as(
            opts,
            resources,
            &pattern,
            &zeroed,
            invocations,
            simd_width,
            ["zeroed", "pattern"],
        ) {
            return Ok(DiffOutcome::Inconclusive(format!(
                "the kernel's results on the CPU move between runs with this data, one with function-scope variables and threadgroup memory zeroed, one with them filled with a pattern ({detail}): it reads memory it has not written, or its invocations race (write the same memory without atomics or barriers), both undefined on Metal and in Vulkan; not compared"
            )));
        }
        // Or does it make NaNs from numbers (or convert floats to
        // integers they do not fit)? Without SignedZeroInfNanPreserve
        // Vulkan lets an implementation assume no NaN arises, and
        // leaves FMin, FMax and FClamp of a NaN and such conversions
        // undefined.
        if k.capabilities
            .iter()
            .any(|c| c == "SignedZeroInfNanPreserve")
        {
            return Ok(verdict);
        }
        let checked = device.with_float_checks();
        let before = checked.invalid_float_operations();
        if sides::on_cpu(opts, compiled, k, resources, push, &checked)?.is_ok()
            && checked.invalid_float_operations() > before
        {
            return Ok(DiffOutcome::Inconclusive(format!(
                "seed {}: the kernel made a NaN from numbers (0/0, ∞ − ∞, the square root of a negative, …) or converted a float to an integer it does not fit, on the CPU with this data: what follows is undefined in Vulkan (the kernel does not declare SignedZeroInfNanPreserve; FMin, FMax and FClamp of a NaN are undefined even then), so the difference ({}) gives no verdict",
                opts.seed,
                match &verdict {
                    DiffOutcome::Differ(d) => d.as_str(),
                    _ => "",
                }
            )));
        }
        Ok(verdict)
    }
}
