//! Semantic verification: every rule of `schemas/halc_executable.fbs` that
//! the flatbuffers verifier cannot check, run once at load.
//!
//! After these checks the dispatch planner and the Metal runtime rely on:
//! - `strings` UTF-8, and every `Str` of the file inside it on character
//!   boundaries (so reading a string never fails);
//! - every kernel's `Range`s inside their vectors, each starting where the
//!   previous kernel's ended and the last ending at the vector's end (so
//!   reading a record never fails, and each record is checked once);
//!   `binding_names` one per binding;
//! - every library's blobs inside `library_data`, each library with MSL
//!   source or a metallib;
//! - kernel names non-empty, sorted and unique (so lookup by name works);
//! - library indices in range;
//! - threadgroup dimensions each ≥ 1, at most `MaxThreadsPerThreadgroup`
//!   threads, `max_threads_per_threadgroup` between that product and the
//!   limit, spec-id dimensions backed by an integer function constant whose
//!   default is the recorded size;
//! - function constants sorted by id without duplicates, each alias of the
//!   same width as its constant and sorted with them (so lookup by id and a
//!   constant's aliases are a binary search);
//! - every enum value known;
//! - bindings sorted by (set, binding) with no duplicates, `count` ≥ 1, the
//!   slots each kind needs present (and no others; a slot holding
//!   `Unset.Value` is absent), every slot range inside Metal's argument
//!   tables and free of collisions (bindings, push constants, argument
//!   buffers and the sizes table share the buffer table);
//! - argument-buffer members 8-byte aligned, inside `ArgumentBuffer.size`,
//!   with disjoint ids and byte ranges;
//! - push constants 1..=`MaxPushConstantBytes` bytes, or none (size 0,
//!   `buffer_index` Unset, no members);
//! - every `sizes_index` backed by a table large enough for `count` entries.

use std::fmt;

use crate::kernel::{indices, run, Kernel};
use crate::records::opt;
use crate::schema::{self, BindingKind, BindingModel, MetalLimits, ScalarType};
use crate::strings::Strings;

/// Entries in Metal's sampler argument table. Not in the schema's
/// `MetalLimits` (the compiler does not enforce it); defined here only.
pub const MAX_SAMPLER_SLOTS: u32 = schema::MetalLimits::MaxSamplerSlots.0;

/// Limits for the verifier. The defaults accept anything `halc compile`
/// writes; lower them to bound the work done on untrusted input.
#[derive(Debug, Clone, Copy)]
pub struct VerifyLimits {
    /// Maximum table nesting depth.
    pub max_depth: usize,
    /// Maximum number of tables.
    pub max_tables: usize,
    /// Maximum input size in bytes.
    pub max_bytes: usize,
    /// Maximum `ArgumentBuffer.size`, and so the memory a dispatch plan
    /// allocates per argument buffer. The default (4 MiB) is above Metal's
    /// tier-2 limit of 500 000 buffers × 8 bytes per argument buffer.
    pub max_argument_buffer_bytes: u32,
}

impl Default for VerifyLimits {
    fn default() -> Self {
        VerifyLimits {
            max_depth: 16,
            max_tables: 1_000_000,
            max_bytes: 1 << 30,
            max_argument_buffer_bytes: 4 << 20,
        }
    }
}

/// A rule of the format that a field breaks: names the kernel (when the field
/// belongs to one) and the field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// Name of the kernel the field belongs to.
    pub kernel: Option<String>,
    /// Path of the field, e.g. `bindings[set 0, binding 2].byte_offset`.
    pub field: String,
    /// What is wrong with it.
    pub message: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kernel {
            Some(k) => write!(f, "kernel `{k}`: {}: {}", self.field, self.message),
            None => write!(f, "{}: {}", self.field, self.message),
        }
    }
}

impl std::error::Error for Violation {}

/// Width in bits of a scalar type, `None` for values outside the enum.
pub fn scalar_bits(ty: ScalarType) -> Option<u32> {
    Some(match ty {
        ScalarType::Bool => 1,
        ScalarType::Int8 | ScalarType::UInt8 => 8,
        ScalarType::Int16 | ScalarType::UInt16 | ScalarType::Float16 => 16,
        ScalarType::Int32 | ScalarType::UInt32 | ScalarType::Float32 => 32,
        ScalarType::Int64 | ScalarType::UInt64 | ScalarType::Float64 => 64,
        _ => return None,
    })
}

/// Whether `bits` is a valid raw value of `ty` (zero-extended; bool is 0 or 1).
pub fn bits_fit(ty: ScalarType, bits: u64) -> bool {
    match scalar_bits(ty) {
        Some(64) => true,
        Some(w) => bits >> w == 0,
        None => false,
    }
}

fn is_integer(ty: ScalarType) -> bool {
    matches!(
        ty,
        ScalarType::Int8
            | ScalarType::UInt8
            | ScalarType::Int16
            | ScalarType::UInt16
            | ScalarType::Int32
            | ScalarType::UInt32
            | ScalarType::Int64
            | ScalarType::UInt64
    )
}

/// What a binding kind needs: a buffer/texture part and/or a sampler part.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Part {
    Buffer,
    Texture,
}

/// The resource part (if any) and whether a sampler part exists.
pub(crate) fn kind_parts(kind: BindingKind) -> Option<(Option<Part>, bool)> {
    Some(match kind {
        BindingKind::StorageBuffer | BindingKind::UniformBuffer => (Some(Part::Buffer), false),
        BindingKind::StorageImage
        | BindingKind::SampledImage
        | BindingKind::UniformTexelBuffer
        | BindingKind::StorageTexelBuffer => (Some(Part::Texture), false),
        BindingKind::Sampler => (None, true),
        BindingKind::CombinedImageSampler => (Some(Part::Texture), true),
        _ => return None,
    })
}

/// The string `s`, or the violation of `field` (of `kernel`) when it does
/// not resolve.
fn text<'a>(
    strings: Strings<'a>,
    kernel: Option<&str>,
    field: impl FnOnce() -> String,
    s: &schema::Str,
) -> Result<&'a str, Violation> {
    match strings.get(s) {
        Some(t) => Ok(t),
        None => Err(Violation {
            kernel: kernel.map(str::to_owned),
            field: field(),
            message: strings.fault(s).unwrap_or_default(),
        }),
    }
}

/// Reports the first violation found; gives the file's strings, checked.
pub(crate) fn executable<'a>(
    root: schema::Executable<'a>,
    limits: &VerifyLimits,
) -> Result<Strings<'a>, Violation> {
    let strings = Strings::of(root).map_err(|e| Violation {
        kernel: None,
        field: "strings".into(),
        message: format!("is not UTF-8: {e}"),
    })?;
    if let Some(b) = root.build_info() {
        for (f, s) in [
            ("halc_version", b.halc_version()),
            ("spirv_cross_version", b.spirv_cross_version()),
            ("inputs_sha256", b.inputs_sha256()),
        ] {
            if let Some(s) = s {
                text(strings, None, || format!("build_info.{f}"), s)?;
            }
        }
        for (i, s) in b.options().unwrap_or_default().iter().enumerate() {
            text(strings, None, || format!("build_info.options[{i}]"), s)?;
        }
    }
    let libraries = root.libraries();
    let data = root.library_data().map_or(0, |d| d.len());
    for (i, lib) in libraries.iter().enumerate() {
        library(i, lib, data, strings)?;
    }
    let kernels = root.kernels();
    if kernels.is_empty() {
        return Err(Violation {
            kernel: None,
            field: "kernels".into(),
            message: "the executable has no kernels".into(),
        });
    }
    let bindings = root.bindings().map_or(0, |v| v.len());
    let names = root.binding_names().map_or(0, |v| v.len());
    if names != bindings {
        return Err(Violation {
            kernel: None,
            field: "binding_names".into(),
            message: format!("has {names} names for {bindings} bindings"),
        });
    }
    // Where each kernel's range of each record vector must start: where the
    // previous kernel's ended.
    let mut next = Runs::new(root);
    let mut previous: Option<&str> = None;
    let mut scratch = Scratch::default();
    for (i, k) in kernels.iter().enumerate() {
        let field = || format!("kernels[{i}].names.name");
        let name = text(strings, None, field, k.names().name())?;
        if name.is_empty() {
            return Err(Violation {
                kernel: None,
                field: field(),
                message: "is empty".into(),
            });
        }
        if let Some(prev) = previous {
            if prev >= name {
                return Err(Violation {
                    kernel: Some(name.into()),
                    field: "names.name".into(),
                    message: format!(
                        "kernels must be sorted by name without duplicates, but `{name}` follows `{prev}`"
                    ),
                });
            }
        }
        previous = Some(name);
        next.take(k).map_err(|(field, message)| Violation {
            kernel: Some(name.into()),
            field: field.into(),
            message,
        })?;
        KernelCheck {
            view: Kernel::new(root, strings, k),
            name,
            libraries: libraries.len(),
            limits,
        }
        .run(&mut scratch)?;
    }
    next.all_taken().map_err(|(field, message)| Violation {
        kernel: None,
        field: field.into(),
        message,
    })?;
    Ok(strings)
}

/// The record vectors a kernel's `Range`s index, with where the next
/// kernel's range in each must start.
struct Runs {
    runs: [Run; 7],
}

/// One record vector: its field, its length, the kernel's range of it, and
/// where the next kernel's range must start.
struct Run {
    field: &'static str,
    len: usize,
    range: fn(&schema::Kernel) -> &schema::Range,
    next: usize,
}

impl Runs {
    fn new(root: schema::Executable<'_>) -> Self {
        fn len<T>(v: Option<flatbuffers::Vector<'_, T>>) -> usize {
            v.map_or(0, |v| v.len())
        }
        let run = |field, len, range| Run {
            field,
            len,
            range,
            next: 0,
        };
        Runs {
            runs: [
                run("bindings", len(root.bindings()), |k| k.bindings()),
                run("argument_buffers", len(root.argument_buffers()), |k| {
                    k.argument_buffers()
                }),
                run(
                    "push_constant_members",
                    len(root.push_constant_members()),
                    |k| k.push_constant_members(),
                ),
                run("function_constants", len(root.function_constants()), |k| {
                    k.function_constants()
                }),
                run(
                    "function_constant_aliases",
                    len(root.function_constant_aliases()),
                    |k| k.function_constant_aliases(),
                ),
                run("baked_constants", len(root.baked_constants()), |k| {
                    k.baked_constants()
                }),
                run("capabilities", len(root.capabilities()), |k| {
                    k.capabilities()
                }),
            ],
        }
    }

    /// Checks `k`'s ranges: each starts where the previous kernel's ended
    /// and stays inside its vector. So every record belongs to one kernel,
    /// and checking each kernel's reads each once.
    fn take(&mut self, k: &schema::Kernel) -> Result<(), (&'static str, String)> {
        for run in &mut self.runs {
            let r = (run.range)(k);
            let (first, count) = (r.first() as usize, r.count() as usize);
            let end = first as u64 + count as u64;
            if first != run.next {
                return Err((
                    run.field,
                    format!(
                        "entries {first}..{end} do not start where the previous kernel's end ({})",
                        run.next
                    ),
                ));
            }
            if end > run.len as u64 {
                return Err((
                    run.field,
                    format!(
                        "entries {first}..{end} are outside Executable.{} ({} entries)",
                        run.field, run.len
                    ),
                ));
            }
            run.next = first + count;
        }
        Ok(())
    }

    /// After the last kernel: every record belongs to a kernel.
    fn all_taken(&self) -> Result<(), (&'static str, String)> {
        match self.runs.iter().find(|r| r.next != r.len) {
            Some(r) => Err((
                r.field,
                format!("entries {}..{} belong to no kernel", r.next, r.len),
            )),
            None => Ok(()),
        }
    }
}

fn library(
    i: usize,
    lib: &schema::Library,
    data: usize,
    strings: Strings<'_>,
) -> Result<(), Violation> {
    let fail = |field: &str, message: String| {
        Err(Violation {
            kernel: None,
            field: format!("libraries[{i}].{field}"),
            message,
        })
    };
    for (field, b) in [
        ("msl_source", lib.msl_source()),
        ("metallib", lib.metallib()),
    ] {
        let end = u64::from(b.offset()) + u64::from(b.length());
        if end > data as u64 {
            return fail(
                field,
                format!(
                    "bytes {}..{end} are outside Executable.library_data ({data} bytes)",
                    b.offset()
                ),
            );
        }
    }
    if lib.msl_source().length() == 0 && lib.metallib().length() == 0 {
        return fail(
            "msl_source",
            "the library has neither MSL source nor a metallib".into(),
        );
    }
    let t = lib.target();
    let v = t.msl_version();
    if !(1..=4).contains(&v.major()) {
        return fail(
            "msl_version",
            format!("MSL {}.{} does not exist", v.major(), v.minor()),
        );
    }
    if t.math_mode().variant_name().is_none() {
        return fail("math_mode", format!("unknown value {}", t.math_mode().0));
    }
    if t.platform().variant_name().is_none() {
        return fail("platform", format!("unknown value {}", t.platform().0));
    }
    if t.argument_buffer_tier().variant_name().is_none() {
        return fail(
            "argument_buffer_tier",
            format!("unknown value {}", t.argument_buffer_tier().0),
        );
    }
    if let Some(m) = strings.fault(lib.metallib_toolchain()) {
        return fail("metallib_toolchain", m);
    }
    Ok(())
}

/// Slot ranges already claimed in one Metal argument table (or inside one
/// argument buffer).
/// Who holds a slot range; formatted only when a check fails (loading
/// thousands of kernels must not allocate a label per binding).
#[derive(Debug, Clone, Copy)]
enum Owner {
    Named(&'static str),
    ArgumentBuffer(u32),
    Binding(u32, u32),
}

impl std::fmt::Display for Owner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Owner::Named(n) => f.write_str(n),
            Owner::ArgumentBuffer(set) => write!(f, "argument_buffers[set {set}]"),
            Owner::Binding(set, binding) => write!(f, "bindings[set {set}, binding {binding}]"),
        }
    }
}

#[derive(Default)]
struct Slots {
    table: &'static str,
    limit: u64,
    used: Vec<(u64, u64, Owner)>,
}

impl Slots {
    /// Empties the table for the next kernel, keeping its allocation.
    fn reset(&mut self, table: &'static str, limit: u64) {
        self.table = table;
        self.limit = limit;
        self.used.clear();
    }

    /// Claims `[start, start + count)` for `owner`.
    fn claim(&mut self, start: u32, count: u32, owner: Owner) -> Result<(), String> {
        let (start, end) = (u64::from(start), u64::from(start) + u64::from(count));
        if end > self.limit {
            return Err(if count == 1 {
                format!("{start} is outside the {} (0..{})", self.table, self.limit)
            } else {
                format!(
                    "{start}..{end} ({count} entries) is outside the {} (0..{})",
                    self.table, self.limit
                )
            });
        }
        if let Some((s, e, other)) = self.used.iter().find(|(s, e, _)| start < *e && *s < end) {
            return Err(format!(
                "{start}..{end} in the {} collides with {other} ({s}..{e})",
                self.table
            ));
        }
        self.used.push((start, end, owner));
        Ok(())
    }
}

/// The member slots of one argument buffer.
#[derive(Default)]
struct SetSlots {
    set: u32,
    ids: Slots,
    bytes: Slots,
    /// It holds a buffer-sizes table (`sizes_id`).
    has_sizes: bool,
}

/// The slot tables of the kernel being checked, reused from kernel to kernel
/// (cleared, not reallocated): loading thousands of kernels allocates only
/// for the largest one.
#[derive(Default)]
struct Scratch {
    buffers: Slots,
    textures: Slots,
    samplers: Slots,
    /// Its first `n_sets` (see `KernelCheck::resources`) are the current
    /// kernel's argument buffers; the rest wait for a larger kernel.
    sets: Vec<SetSlots>,
}

/// One argument-buffer member range of a binding.
struct Member {
    id: u32,
    offset: u32,
    count: u32,
}

struct KernelCheck<'a, 'l> {
    /// The kernel's typed view: its raw struct, the executable and the
    /// strings, and accessors for what this check has verified.
    view: Kernel<'a>,
    name: &'a str,
    libraries: usize,
    limits: &'l VerifyLimits,
}

impl<'a> KernelCheck<'a, '_> {
    fn fail<T>(
        &self,
        field: impl Into<String>,
        message: impl Into<String>,
    ) -> Result<T, Violation> {
        Err(Violation {
            kernel: Some(self.name.to_owned()),
            field: field.into(),
            message: message.into(),
        })
    }

    /// The string `s` of `field`, or its violation.
    fn text(&self, field: impl FnOnce() -> String, s: &schema::Str) -> Result<&'a str, Violation> {
        text(self.view.strings(), Some(self.name), field, s)
    }

    fn run(&self, scratch: &mut Scratch) -> Result<(), Violation> {
        let k = self.view.raw();
        let names = k.names();
        if self
            .text(|| "names.msl_name".into(), names.msl_name())?
            .is_empty()
        {
            return self.fail("names.msl_name", "is empty");
        }
        self.text(|| "names.entry_point".into(), names.entry_point())?;
        self.text(|| "names.source_file".into(), names.source_file())?;
        for (i, s) in run(self.view.exe().capabilities(), k.capabilities()).enumerate() {
            self.text(|| format!("capabilities[{i}]"), s)?;
        }
        if k.library() as usize >= self.libraries {
            return self.fail(
                "library",
                format!(
                    "index {} is out of range (the executable has {} libraries)",
                    k.library(),
                    self.libraries
                ),
            );
        }
        self.function_constants()?;
        self.threadgroup()?;
        let mem = k.threadgroup_memory_bytes();
        let mem_limit = MetalLimits::MaxThreadgroupMemoryBytes.0;
        if mem > mem_limit {
            return self.fail(
                "threadgroup_memory_bytes",
                format!("{mem} bytes is over Metal's {mem_limit}-byte limit"),
            );
        }
        if k.binding_model().variant_name().is_none() {
            return self.fail(
                "binding_model",
                format!("unknown value {}", k.binding_model().0),
            );
        }
        self.resources(scratch)
    }

    fn function_constants(&self) -> Result<(), Violation> {
        let all = self.view.exe().function_constants().unwrap_or_default();
        let range = indices(self.view.raw().function_constants());
        let (first, n) = (range.start, range.len());
        let consts = |i: usize| all.get(first + i);
        let mut previous: Option<u32> = None;
        for (i, c) in range.map(|i| all.get(i)).enumerate() {
            let field = |f: &str| format!("function_constants[{i}].{f}");
            if let Some(prev) = previous.filter(|p| *p >= c.id()) {
                return self.fail(
                    field("id"),
                    if prev == c.id() {
                        format!("function constant {prev} appears twice")
                    } else {
                        format!(
                            "function constants must be sorted by id, but {} follows {prev}",
                            c.id()
                        )
                    },
                );
            }
            previous = Some(c.id());
            self.text(|| field("name"), c.name())?;
            if scalar_bits(c.type_()).is_none() {
                return self.fail(
                    field("type"),
                    format!("unknown scalar type {}", c.type_().0),
                );
            }
            if !bits_fit(c.type_(), c.default_bits()) {
                return self.fail(
                    field("default_bits"),
                    format!(
                        "{:#x} does not fit a {}",
                        c.default_bits(),
                        c.type_().variant_name().unwrap_or("?")
                    ),
                );
            }
        }
        // Aliases, sorted by id: a walk beside the constants.
        let mut next = 0;
        let aliases = run(
            self.view.exe().function_constant_aliases(),
            self.view.raw().function_constant_aliases(),
        );
        for (j, a) in aliases.enumerate() {
            let field = |f: &str| format!("function_constant_aliases[{j}].{f}");
            while next < n && consts(next).id() < a.id() {
                next += 1;
            }
            if next == n || consts(next).id() != a.id() {
                return self.fail(
                    field("id"),
                    if (0..n).any(|i| consts(i).id() == a.id()) {
                        format!("{} is out of order: aliases must be sorted by id", a.id())
                    } else {
                        format!("function constant {} is not declared", a.id())
                    },
                );
            }
            let c = consts(next);
            self.text(|| field("name"), a.name())?;
            let (Some(bits), Some(main)) = (scalar_bits(a.type_()), scalar_bits(c.type_())) else {
                return self.fail(
                    field("type"),
                    format!("unknown scalar type {}", a.type_().0),
                );
            };
            let is_bool = |t: ScalarType| t == ScalarType::Bool;
            if bits != main || is_bool(a.type_()) != is_bool(c.type_()) {
                return self.fail(
                    field("type"),
                    format!(
                        "{} cannot alias function constant {} of type {}",
                        a.type_().variant_name().unwrap_or("?"),
                        c.id(),
                        c.type_().variant_name().unwrap_or("?")
                    ),
                );
            }
            if !bits_fit(a.type_(), a.default_bits()) {
                return self.fail(
                    field("default_bits"),
                    format!(
                        "{:#x} does not fit a {}",
                        a.default_bits(),
                        a.type_().variant_name().unwrap_or("?")
                    ),
                );
            }
        }
        Ok(())
    }

    fn threadgroup(&self) -> Result<(), Violation> {
        let k = self.view.raw();
        let dims = k.threadgroup_size();
        let mut product = 1u64;
        for (i, d) in dims.iter().enumerate() {
            if d.size() == 0 {
                return self.fail(format!("threadgroup_size[{i}].size"), "is 0");
            }
            product = product.saturating_mul(u64::from(d.size()));
            if d.has_spec_id() {
                let field = || format!("threadgroup_size[{i}].spec_id");
                let Some(c) = self.view.function_constant(d.spec_id()) else {
                    return self.fail(
                        field(),
                        format!("function constant {} is not declared", d.spec_id()),
                    );
                };
                if !is_integer(c.type_()) {
                    return self.fail(
                        field(),
                        format!(
                            "function constant {} is a {}, not an integer",
                            d.spec_id(),
                            c.type_().variant_name().unwrap_or("?")
                        ),
                    );
                }
                // The dimension is one of the constant's declarations: its
                // own default is the size when the constant is not set.
                let defaults =
                    std::iter::once(c.default_bits()).chain(c.aliases().map(|a| a.default_bits()));
                if !defaults.into_iter().any(|b| b == u64::from(d.size())) {
                    return self.fail(
                        format!("threadgroup_size[{i}].size"),
                        format!(
                            "{} is the default of no declaration of function constant {}",
                            d.size(),
                            d.spec_id()
                        ),
                    );
                }
            }
        }
        let limit = MetalLimits::MaxThreadsPerThreadgroup.0;
        if product > u64::from(limit) {
            return self.fail(
                "threadgroup_size",
                format!("{product} threads is over Metal's limit of {limit}"),
            );
        }
        let max = k.max_threads_per_threadgroup();
        if u64::from(max) < product || max > limit {
            return self.fail(
                "max_threads_per_threadgroup",
                format!(
                    "{max} is outside {product}..={limit} (the threadgroup has {product} threads)"
                ),
            );
        }
        Ok(())
    }

    fn resources(&self, scratch: &mut Scratch) -> Result<(), Violation> {
        let k = self.view.raw();
        let model = k.binding_model();
        let Scratch {
            buffers,
            textures,
            samplers,
            sets,
        } = scratch;
        let buffer_limit = u64::from(MetalLimits::MaxBufferSlots.0);
        buffers.reset("buffer argument table", buffer_limit);
        textures.reset(
            "texture argument table",
            u64::from(MetalLimits::MaxTextureSlots.0),
        );
        samplers.reset("sampler argument table", u64::from(MAX_SAMPLER_SLOTS));

        let members = run(
            self.view.exe().push_constant_members(),
            k.push_constant_members(),
        );
        let push = k.push_constants();
        if opt(push.buffer_index()).is_none() {
            if push.size() != 0 {
                return self.fail(
                    "push_constants.size",
                    format!("is {} but buffer_index is Unset", push.size()),
                );
            }
            if members.len() != 0 {
                return self.fail(
                    "push_constant_members",
                    format!("{} members without push_constants", members.len()),
                );
            }
        }
        if let Some(p) = self.view.push_constants() {
            let limit = MetalLimits::MaxPushConstantBytes.0;
            if p.size == 0 || p.size > limit {
                return self.fail(
                    "push_constants.size",
                    format!(
                        "{} bytes is outside 1..={limit} (the setBytes limit)",
                        p.size
                    ),
                );
            }
            buffers
                .claim(p.buffer_index, 1, Owner::Named("push_constants"))
                .or_else(|m| self.fail("push_constants.buffer_index", m))?;
            let mut end_of_previous = 0u64;
            for (i, m) in members.enumerate() {
                self.text(|| format!("push_constant_members[{i}].name"), m.name())?;
                self.text(|| format!("push_constant_members[{i}].type"), m.type_())?;
                let end = u64::from(m.offset()) + u64::from(m.size());
                if u64::from(m.offset()) < end_of_previous || end > u64::from(p.size) {
                    return self.fail(
                        format!("push_constant_members[{i}]"),
                        format!(
                            "bytes {}..{end} overlap the previous member or pass the block's {} bytes",
                            m.offset(),
                            p.size
                        ),
                    );
                }
                end_of_previous = end;
            }
        }

        let entries = k.sizes_buffer_entries();
        match k.sizes_buffer_index() {
            Some(index) => {
                let max = MetalLimits::MaxPushConstantBytes.0 / 4;
                // 0 is fine: with argument buffers the kernel declares the
                // table but reads the sizes from the argument buffer.
                if entries > max {
                    return self.fail(
                        "sizes_buffer_entries",
                        format!("{entries} is over {max} (the table is bound with setBytes)"),
                    );
                }
                buffers
                    .claim(index, 1, Owner::Named("sizes_buffer_index"))
                    .or_else(|m| self.fail("sizes_buffer_index", m))?;
            }
            None if entries != 0 => {
                return self.fail(
                    "sizes_buffer_entries",
                    format!("is {entries} but the kernel has no sizes_buffer_index"),
                );
            }
            None => {}
        }

        // Argument buffers, with the member slots each one holds.
        let abs = self.view.argument_buffers();
        if model == BindingModel::Discrete && abs.len() != 0 {
            return self.fail(
                "argument_buffers",
                format!(
                    "{} argument buffers in a kernel with discrete bindings",
                    abs.len()
                ),
            );
        }
        let mut n_sets = 0;
        for (i, ab) in abs.enumerate() {
            let set = ab.set();
            let field = |f: &str| format!("argument_buffers[set {set}].{f}");
            if self.view.argument_buffers().take(i).any(|o| o.set() == set) {
                return self.fail(field("set"), format!("set {set} has two argument buffers"));
            }
            buffers
                .claim(ab.buffer_index(), 1, Owner::ArgumentBuffer(set))
                .or_else(|m| self.fail(field("buffer_index"), m))?;
            let size = ab.size();
            let max = self.limits.max_argument_buffer_bytes;
            let slot = MetalLimits::ArgumentBufferSlotBytes.0;
            if size == 0 || size % slot != 0 || size > max {
                return self.fail(
                    field("size"),
                    format!("{size} bytes is not a nonzero multiple of {slot} up to {max}"),
                );
            }
            if n_sets == sets.len() {
                sets.push(SetSlots::default());
            }
            let SetSlots {
                set: entry_set,
                ids,
                bytes,
                has_sizes: entry_has_sizes,
            } = &mut sets[n_sets];
            *entry_set = set;
            ids.reset("argument buffer's ids", u64::from(u32::MAX) + 1);
            bytes.reset("argument buffer's bytes", u64::from(size));
            let has_sizes = match (ab.sizes_id(), ab.sizes_byte_offset()) {
                (None, None) => false,
                (Some(id), Some(off)) => {
                    if off % slot != 0 {
                        return self.fail(
                            field("sizes_byte_offset"),
                            format!("{off} is not a multiple of {slot}"),
                        );
                    }
                    ids.claim(id, 1, Owner::Named("the sizes table"))
                        .or_else(|m| self.fail(field("sizes_id"), m))?;
                    bytes
                        .claim(off, slot, Owner::Named("the sizes table"))
                        .or_else(|m| self.fail(field("sizes_byte_offset"), m))?;
                    true
                }
                (Some(_), None) => {
                    return self.fail(field("sizes_byte_offset"), "missing (sizes_id is set)")
                }
                (None, Some(_)) => {
                    return self.fail(field("sizes_id"), "missing (sizes_byte_offset is set)")
                }
            };
            *entry_has_sizes = has_sizes;
            n_sets += 1;
        }
        let members = &mut sets[..n_sets];

        for (i, s) in run(self.view.exe().binding_names(), k.bindings()).enumerate() {
            self.text(|| format!("binding_names[{i}]"), s)?;
        }
        let mut previous: Option<(u32, u32)> = None;
        for b in self.view.bindings() {
            let key = (b.set(), b.binding());
            let owner = Owner::Binding(key.0, key.1);
            let field = |f: &str| format!("{owner}.{f}");
            if let Some(prev) = previous {
                if prev >= key {
                    return self.fail(
                        field("binding"),
                        format!(
                            "bindings must be sorted by (set, binding) without duplicates, but ({}, {}) follows ({}, {})",
                            key.0, key.1, prev.0, prev.1
                        ),
                    );
                }
            }
            previous = Some(key);
            let count = b.count();
            if count == 0 {
                return self.fail(field("count"), "is 0");
            }
            let Some((part, has_sampler)) = kind_parts(b.kind()) else {
                return self.fail(
                    field("kind"),
                    format!("unknown binding kind {}", b.kind().0),
                );
            };
            if b.access().variant_name().is_none() {
                return self.fail(field("access"), format!("unknown access {}", b.access().0));
            }
            let ab_index = members.iter().position(|m| m.set == key.0);

            // The buffer/texture part.
            let (slot_field, other_slot_field, table) = match part {
                Some(Part::Buffer) => ("buffer_index", "texture_index", Some(&mut *buffers)),
                Some(Part::Texture) => ("texture_index", "buffer_index", Some(&mut *textures)),
                None => ("texture_index", "buffer_index", None),
            };
            let slot_value = if part == Some(Part::Buffer) {
                b.buffer_index()
            } else {
                b.texture_index()
            };
            let other_slot = if part == Some(Part::Buffer) {
                b.texture_index()
            } else {
                b.buffer_index()
            };
            if other_slot.is_some() {
                return self.fail(
                    field(other_slot_field),
                    format!(
                        "set on a {} binding",
                        b.kind().variant_name().unwrap_or("?")
                    ),
                );
            }
            match table {
                None => {
                    // Pure sampler: no buffer/texture part at all.
                    if slot_value.is_some() {
                        return self.fail(field(slot_field), "set on a Sampler binding");
                    }
                    if b.id().is_some() {
                        return self.fail(
                            field("id"),
                            "set on a Sampler binding (its member id is sampler_id)",
                        );
                    }
                    if b.byte_offset().is_some() {
                        return self.fail(
                            field("byte_offset"),
                            "set on a Sampler binding (its offset is sampler_byte_offset)",
                        );
                    }
                }
                Some(table) => {
                    let in_ab = self.member_or_slot(
                        model,
                        &field,
                        (b.id(), "id"),
                        (b.byte_offset(), "byte_offset"),
                        (slot_value, slot_field),
                    )?;
                    if in_ab {
                        let m = Member {
                            id: b.id().unwrap_or(0),
                            offset: b.byte_offset().unwrap_or(0),
                            count,
                        };
                        self.claim_member(members, ab_index, owner, m, ("id", "byte_offset"))?;
                    } else {
                        table
                            .claim(slot_value.unwrap_or(0), count, owner)
                            .or_else(|m| self.fail(field(slot_field), m))?;
                    }
                    // sizes_index: which table it indexes follows the part's placement.
                    if let Some(si) = b.sizes_index() {
                        if part != Some(Part::Buffer) {
                            return self.fail(
                                field("sizes_index"),
                                "set on a binding that is not a buffer",
                            );
                        }
                        let end = u64::from(si) + u64::from(count);
                        if in_ab {
                            let ab = ab_index.unwrap_or(0);
                            if !members[ab].has_sizes {
                                return self.fail(
                                    field("sizes_index"),
                                    format!("the argument buffer of set {} has no sizes table (sizes_id)", key.0),
                                );
                            }
                            let max = u64::from(self.limits.max_argument_buffer_bytes / 4);
                            if end > max {
                                return self.fail(
                                    field("sizes_index"),
                                    format!("entries {si}..{end} exceed the {max}-entry limit"),
                                );
                            }
                        } else {
                            let Some(_) = k.sizes_buffer_index() else {
                                return self.fail(
                                    field("sizes_index"),
                                    "set but the kernel has no sizes_buffer_index",
                                );
                            };
                            if end > u64::from(entries) {
                                return self.fail(
                                    field("sizes_index"),
                                    format!("entries {si}..{end} exceed sizes_buffer_entries ({entries})"),
                                );
                            }
                        }
                    }
                }
            }
            if part != Some(Part::Buffer) && b.sizes_index().is_some() {
                return self.fail(
                    field("sizes_index"),
                    "set on a binding that is not a buffer",
                );
            }

            // The sampler part.
            if has_sampler {
                let in_ab = self.member_or_slot(
                    model,
                    &field,
                    (b.sampler_id(), "sampler_id"),
                    (b.sampler_byte_offset(), "sampler_byte_offset"),
                    (b.sampler_index(), "sampler_index"),
                )?;
                if in_ab {
                    let m = Member {
                        id: b.sampler_id().unwrap_or(0),
                        offset: b.sampler_byte_offset().unwrap_or(0),
                        count,
                    };
                    self.claim_member(
                        members,
                        ab_index,
                        owner,
                        m,
                        ("sampler_id", "sampler_byte_offset"),
                    )?;
                } else {
                    samplers
                        .claim(b.sampler_index().unwrap_or(0), count, owner)
                        .or_else(|m| self.fail(field("sampler_index"), m))?;
                }
            } else {
                for (v, f) in [
                    (b.sampler_index(), "sampler_index"),
                    (b.sampler_id(), "sampler_id"),
                    (b.sampler_byte_offset(), "sampler_byte_offset"),
                ] {
                    if v.is_some() {
                        return self.fail(
                            field(f),
                            format!(
                                "set on a {} binding",
                                b.kind().variant_name().unwrap_or("?")
                            ),
                        );
                    }
                }
            }
        }
        Ok(())
    }

    /// Claims one argument-buffer member range (ids and bytes) in the
    /// argument buffer `ab` (`None`: the set has none).
    fn claim_member(
        &self,
        members: &mut [SetSlots],
        ab: Option<usize>,
        owner: Owner,
        m: Member,
        fields: (&str, &str),
    ) -> Result<(), Violation> {
        let field = |f: &str| format!("{owner}.{f}");
        let Some(ab) = ab else {
            return self.fail(field(fields.0), "the binding's set has no argument buffer");
        };
        let slot = MetalLimits::ArgumentBufferSlotBytes.0;
        if m.offset % slot != 0 {
            return self.fail(
                field(fields.1),
                format!("{} is not a multiple of {slot}", m.offset),
            );
        }
        let entry = &mut members[ab];
        entry
            .ids
            .claim(m.id, m.count, owner)
            .or_else(|e| self.fail(field(fields.0), e))?;
        let len = u32::try_from(u64::from(m.count) * u64::from(slot)).unwrap_or(u32::MAX);
        entry
            .bytes
            .claim(m.offset, len, owner)
            .or_else(|e| self.fail(field(fields.1), e))
    }

    /// Decides whether one part of a binding is an argument-buffer member
    /// (`Ok(true)`) or in a discrete slot (`Ok(false)`), rejecting half-set
    /// or doubly-set fields.
    fn member_or_slot(
        &self,
        model: BindingModel,
        field: &dyn Fn(&str) -> String,
        id: (Option<u32>, &str),
        offset: (Option<u32>, &str),
        slot: (Option<u32>, &str),
    ) -> Result<bool, Violation> {
        let member = match (id.0, offset.0) {
            (Some(_), Some(_)) => true,
            (None, None) => false,
            (Some(_), None) => {
                return self.fail(field(offset.1), format!("missing ({} is set)", id.1))
            }
            (None, Some(_)) => {
                return self.fail(field(id.1), format!("missing ({} is set)", offset.1))
            }
        };
        match (model, member, slot.0.is_some()) {
            (BindingModel::Discrete, true, _) => {
                self.fail(field(id.1), "set in a kernel with discrete bindings")
            }
            (BindingModel::Discrete, false, false) => {
                self.fail(field(slot.1), "missing (discrete bindings need a slot)")
            }
            (_, true, true) => self.fail(
                field(slot.1),
                format!("set on an argument-buffer member (it has {})", id.1),
            ),
            (_, false, false) => self.fail(
                field(id.1),
                format!(
                    "missing: neither an argument-buffer member nor a {}",
                    slot.1
                ),
            ),
            (_, member, _) => Ok(member),
        }
    }
}
