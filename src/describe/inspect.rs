//! Decodes an executable into plain, serialisable values: what
//! `halc inspect` prints (as text or JSON) and what snapshot tests compare.

use runtime_loader::{Executable, LoadError};
use serde::Serialize;

/// A decoded executable.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ExecutableView {
    /// Format version.
    pub format_version: u32,
    /// Kernels.
    pub kernels: Vec<KernelView>,
    /// Libraries.
    pub libraries: Vec<LibraryView>,
    /// Build info.
    pub build: Option<BuildView>,
}

/// A decoded kernel.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct KernelView {
    /// Name in the executable (the lookup key).
    pub name: String,
    /// SPIR-V entry-point name.
    pub entry_point: String,
    /// MSL function name.
    pub msl_name: String,
    /// Library index.
    pub library: u32,
    /// Source file.
    pub source_file: String,
    /// Threadgroup size: (size, spec id) per dimension.
    pub threadgroup_size: Vec<(u32, Option<u32>)>,
    /// Max threads per threadgroup.
    pub max_threads_per_threadgroup: u32,
    /// Binding model.
    pub binding_model: String,
    /// Argument buffers.
    pub argument_buffers: Vec<ArgumentBufferView>,
    /// Bindings.
    pub bindings: Vec<BindingView>,
    /// Push constants: (buffer index, size).
    pub push_constants: Option<(u32, u32)>,
    /// The push-constant block's top-level members in offset order: (name,
    /// byte offset, bytes, canonical type), as `inspect --json` gives them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub push_constant_members: Vec<(String, u32, u32, String)>,
    /// Kernel-level sizes buffer index.
    pub sizes_buffer_index: Option<u32>,
    /// Entries of the kernel-level sizes table.
    pub sizes_buffer_entries: u32,
    /// Threadgroup memory bytes.
    pub threadgroup_memory_bytes: u32,
    /// Function constants: (id, type, default bits, name, other
    /// declarations of the id as (type, default bits, name)).
    pub function_constants: Vec<FunctionConstantView>,
    /// Baked constants: (id, type, bits).
    pub baked_constants: Vec<(u32, String, u64)>,
    /// Capabilities.
    pub capabilities: Vec<String>,
}

/// A decoded function constant: (id, type, default bits, name, other
/// declarations of the id as (type, default bits, name)).
pub type FunctionConstantView = (u32, String, u64, String, Vec<(String, u64, String)>);

/// A decoded argument buffer.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ArgumentBufferView {
    /// Set.
    pub set: u32,
    /// `[[buffer(N)]]`.
    pub buffer_index: u32,
    /// Bytes.
    pub size: u32,
    /// Sizes-table member id.
    pub sizes_id: Option<u32>,
    /// Sizes-table member byte offset.
    pub sizes_byte_offset: Option<u32>,
}

/// A decoded binding.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct BindingView {
    /// Set.
    pub set: u32,
    /// Binding.
    pub binding: u32,
    /// Kind.
    pub kind: String,
    /// Access.
    pub access: String,
    /// Count.
    pub count: u32,
    /// Discrete buffer index.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub buffer_index: Option<u32>,
    /// Discrete texture index.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub texture_index: Option<u32>,
    /// Discrete sampler index.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sampler_index: Option<u32>,
    /// Argument-buffer id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<u32>,
    /// Argument-buffer sampler id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sampler_id: Option<u32>,
    /// Byte offset of `id`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub byte_offset: Option<u32>,
    /// Byte offset of `sampler_id`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sampler_byte_offset: Option<u32>,
    /// Minimum size.
    pub min_size: u64,
    /// Runtime array stride.
    pub runtime_array_stride: u32,
    /// Sizes-table entry.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sizes_index: Option<u32>,
    /// Name.
    pub name: String,
}

/// A decoded library.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct LibraryView {
    /// MSL version.
    pub msl_version: String,
    /// Math mode.
    pub math_mode: String,
    /// Platform.
    pub platform: String,
    /// Tier.
    pub argument_buffer_tier: String,
    /// MSL bytes (the source itself is not repeated here).
    pub msl_bytes: Option<usize>,
    /// Metallib bytes.
    pub metallib_bytes: Option<usize>,
    /// Metallib toolchain.
    pub metallib_toolchain: Option<String>,
}

/// Decoded build info.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct BuildView {
    /// halc version.
    pub halc_version: String,
    /// SPIRV-Cross version.
    pub spirv_cross_version: String,
    /// Options.
    pub options: Vec<String>,
    /// Inputs hash.
    pub inputs_sha256: String,
}

fn name<T: std::fmt::Debug>(v: T) -> String {
    format!("{v:?}")
}

/// Decodes a verified executable.
pub fn view(exe: &Executable<'_>) -> ExecutableView {
    let raw = exe.raw();
    let kernels = exe
        .entry_points()
        .map(|kv| (kv, kv.raw()))
        .map(|(kv, k)| KernelView {
            name: kv.name().to_string(),
            entry_point: kv.entry_point().to_string(),
            msl_name: kv.msl_name().to_string(),
            library: k.library(),
            source_file: kv.source_file().unwrap_or_default().to_string(),
            threadgroup_size: k
                .threadgroup_size()
                .iter()
                .map(|d| (d.size(), d.has_spec_id().then(|| d.spec_id())))
                .collect(),
            max_threads_per_threadgroup: k.max_threads_per_threadgroup(),
            binding_model: name(k.binding_model()),
            argument_buffers: kv
                .argument_buffers()
                .map(|a| ArgumentBufferView {
                    set: a.set(),
                    buffer_index: a.buffer_index(),
                    size: a.size(),
                    sizes_id: a.sizes_id(),
                    sizes_byte_offset: a.sizes_byte_offset(),
                })
                .collect(),
            bindings: kv.bindings().map(binding).collect(),
            push_constants: kv.push_constants().map(|p| (p.buffer_index, p.size)),
            push_constant_members: kv
                .push_constant_members()
                .map(|m| {
                    (
                        m.name.unwrap_or_default().to_string(),
                        m.offset,
                        m.size,
                        m.ty.to_string(),
                    )
                })
                .collect(),
            sizes_buffer_index: k.sizes_buffer_index(),
            sizes_buffer_entries: k.sizes_buffer_entries(),
            threadgroup_memory_bytes: k.threadgroup_memory_bytes(),
            function_constants: kv
                .function_constants()
                .map(|f| {
                    (
                        f.id(),
                        name(f.type_()),
                        f.default_bits(),
                        f.name().unwrap_or_default().to_string(),
                        f.aliases()
                            .map(|a| {
                                (
                                    name(a.type_()),
                                    a.default_bits(),
                                    a.name().unwrap_or_default().to_string(),
                                )
                            })
                            .collect(),
                    )
                })
                .collect(),
            baked_constants: kv
                .baked_constants()
                .map(|f| (f.id(), name(f.type_()), f.value_bits()))
                .collect(),
            capabilities: kv.capabilities().map(str::to_string).collect(),
        })
        .collect();
    let libraries = exe
        .libraries()
        .map(|l| LibraryView {
            msl_version: format!("{}.{}", l.msl_version().major(), l.msl_version().minor()),
            math_mode: name(l.math_mode()),
            platform: name(l.platform()),
            argument_buffer_tier: name(l.argument_buffer_tier()),
            msl_bytes: l.msl_bytes().map(<[u8]>::len),
            metallib_bytes: l.metallib().map(<[u8]>::len),
            metallib_toolchain: l.metallib_toolchain().map(str::to_string),
        })
        .collect();
    let build = exe.build_info().map(|b| BuildView {
        halc_version: b.halc_version().to_string(),
        spirv_cross_version: b.spirv_cross_version().to_string(),
        options: b.options().map(str::to_string).collect(),
        inputs_sha256: b.inputs_sha256().to_string(),
    });
    ExecutableView {
        format_version: raw.format_version().0,
        kernels,
        libraries,
        build,
    }
}

fn binding(b: runtime_loader::Binding<'_>) -> BindingView {
    BindingView {
        set: b.set(),
        binding: b.binding(),
        kind: name(b.kind()),
        access: name(b.access()),
        count: b.count(),
        buffer_index: b.buffer_index(),
        texture_index: b.texture_index(),
        sampler_index: b.sampler_index(),
        id: b.id(),
        sampler_id: b.sampler_id(),
        byte_offset: b.byte_offset(),
        sampler_byte_offset: b.sampler_byte_offset(),
        min_size: b.min_size(),
        runtime_array_stride: b.runtime_array_stride(),
        sizes_index: b.sizes_index(),
        name: b.name().unwrap_or_default().to_string(),
    }
}

/// Loads and decodes `bytes`.
pub fn decode(bytes: &[u8]) -> Result<ExecutableView, LoadError> {
    Ok(view(&Executable::load(bytes)?))
}

/// Human-readable text of a decoded executable.
pub fn render(v: &ExecutableView) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let _ = writeln!(s, "halc executable, format version {}", v.format_version);
    if let Some(b) = &v.build {
        let _ = writeln!(
            s,
            "built by halc {} with {}; options: {}",
            b.halc_version,
            b.spirv_cross_version,
            b.options.join(" ")
        );
        let _ = writeln!(s, "inputs sha256 {}", b.inputs_sha256);
    }
    for k in &v.kernels {
        let _ = writeln!(s);
        let tg: Vec<String> = k
            .threadgroup_size
            .iter()
            .map(|(n, spec)| match spec {
                Some(id) => format!("{n} (spec {id})"),
                None => n.to_string(),
            })
            .collect();
        let _ = writeln!(
            s,
            "kernel {} (entry point `{}` of {}) -> MSL `{}` (library {})",
            k.name, k.entry_point, k.source_file, k.msl_name, k.library
        );
        let _ = writeln!(
            s,
            "  threadgroup size [{}], max threads {}, threadgroup memory {} B, bindings: {}",
            tg.join(", "),
            k.max_threads_per_threadgroup,
            k.threadgroup_memory_bytes,
            k.binding_model
        );
        for a in &k.argument_buffers {
            let _ = write!(
                s,
                "  argument buffer set {} at [[buffer({})]], {} bytes",
                a.set, a.buffer_index, a.size
            );
            if let (Some(id), Some(off)) = (a.sizes_id, a.sizes_byte_offset) {
                let _ = write!(s, ", buffer sizes at [[id({id})]] byte {off}");
            }
            let _ = writeln!(s);
        }
        for b in &k.bindings {
            let mut slots = Vec::new();
            if let Some(i) = b.buffer_index {
                slots.push(format!("[[buffer({i})]]"));
            }
            if let Some(i) = b.texture_index {
                slots.push(format!("[[texture({i})]]"));
            }
            if let Some(i) = b.sampler_index {
                slots.push(format!("[[sampler({i})]]"));
            }
            if let (Some(i), Some(o)) = (b.id, b.byte_offset) {
                slots.push(format!("[[id({i})]] @ byte {o}"));
            }
            if let (Some(i), Some(o)) = (b.sampler_id, b.sampler_byte_offset) {
                slots.push(format!("sampler [[id({i})]] @ byte {o}"));
            }
            let mut extra = String::new();
            if b.count != 1 {
                let _ = write!(extra, " x{}", b.count);
            }
            if b.min_size > 0 || b.runtime_array_stride > 0 {
                let _ = write!(extra, ", min {} B", b.min_size);
                if b.runtime_array_stride > 0 {
                    let _ = write!(extra, " + n x {} B", b.runtime_array_stride);
                }
            }
            if let Some(i) = b.sizes_index {
                let _ = write!(extra, ", length in sizes[{i}]");
            }
            let _ = writeln!(
                s,
                "  (set {}, binding {}) {} {}{} -> {}{}",
                b.set,
                b.binding,
                b.kind,
                b.access,
                extra,
                slots.join(", "),
                if b.name.is_empty() {
                    String::new()
                } else {
                    format!("  `{}`", b.name)
                }
            );
        }
        if let Some((i, size)) = k.push_constants {
            let _ = writeln!(s, "  push constants {size} B at [[buffer({i})]]");
            for (n, offset, size, ty) in &k.push_constant_members {
                let n = if n.is_empty() { "(unnamed)" } else { n };
                let _ = writeln!(s, "    `{n}` @ byte {offset}, {size} B: {ty}");
            }
        }
        if let Some(i) = k.sizes_buffer_index {
            let _ = writeln!(
                s,
                "  buffer-sizes table at [[buffer({i})]], {} entries",
                k.sizes_buffer_entries
            );
        }
        for (id, ty, bits, n, aliases) in &k.function_constants {
            let _ = writeln!(s, "  function constant {id}: {ty} = {bits:#x} {n}");
            for (ty, bits, n) in aliases {
                let _ = writeln!(s, "    also declared as {ty} = {bits:#x} {n}");
            }
        }
        for (id, ty, bits) in &k.baked_constants {
            let _ = writeln!(s, "  baked spec constant {id}: {ty} = {bits:#x}");
        }
    }
    for (i, l) in v.libraries.iter().enumerate() {
        let _ = writeln!(
            s,
            "\nlibrary {i}: MSL {} ({} math, {}, argument buffers {}), source {}, metallib {}",
            l.msl_version,
            l.math_mode,
            l.platform,
            l.argument_buffer_tier,
            l.msl_bytes.map_or("absent".into(), |n| format!("{n} B")),
            l.metallib_bytes
                .map_or("absent".into(), |n| format!("{n} B")),
        );
    }
    s
}
