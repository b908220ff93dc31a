//! Writes the executable from the stages' values. The format is
//! `schemas/halc_executable.fbs`; the builders come from the generated code
//! in `runtime-loader`, so compiler and runtime share one definition.

use flatbuffers::FlatBufferBuilder;
use runtime_loader::schema as fb;

use crate::msl::{BindingModel, Platform, Tier};
use crate::spirv::{Access, BindingKind, ScalarType};
use crate::{Compiled, MathMode, MAX_THREADS_PER_THREADGROUP};

fn kind(k: BindingKind) -> fb::BindingKind {
    match k {
        BindingKind::StorageBuffer => fb::BindingKind::StorageBuffer,
        BindingKind::UniformBuffer => fb::BindingKind::UniformBuffer,
        BindingKind::StorageImage => fb::BindingKind::StorageImage,
        BindingKind::SampledImage => fb::BindingKind::SampledImage,
        BindingKind::Sampler => fb::BindingKind::Sampler,
        BindingKind::CombinedImageSampler => fb::BindingKind::CombinedImageSampler,
        BindingKind::UniformTexelBuffer => fb::BindingKind::UniformTexelBuffer,
        BindingKind::StorageTexelBuffer => fb::BindingKind::StorageTexelBuffer,
    }
}

fn access(a: Access) -> fb::Access {
    match a {
        Access::ReadOnly => fb::Access::ReadOnly,
        Access::WriteOnly => fb::Access::WriteOnly,
        Access::ReadWrite => fb::Access::ReadWrite,
    }
}

/// Maps a reflected scalar type to the format's enum.
pub fn scalar(t: ScalarType) -> fb::ScalarType {
    match t {
        ScalarType::Bool => fb::ScalarType::Bool,
        ScalarType::Int(8) => fb::ScalarType::Int8,
        ScalarType::UInt(8) => fb::ScalarType::UInt8,
        ScalarType::Int(16) => fb::ScalarType::Int16,
        ScalarType::UInt(16) => fb::ScalarType::UInt16,
        ScalarType::Int(64) => fb::ScalarType::Int64,
        ScalarType::UInt(64) => fb::ScalarType::UInt64,
        ScalarType::Int(_) => fb::ScalarType::Int32,
        ScalarType::UInt(_) => fb::ScalarType::UInt32,
        ScalarType::Float(16) => fb::ScalarType::Float16,
        ScalarType::Float(64) => fb::ScalarType::Float64,
        ScalarType::Float(_) => fb::ScalarType::Float32,
    }
}

/// Serialises `c`. The same `Compiled` always gives the same bytes.
pub fn write(c: &Compiled) -> Vec<u8> {
    // Sized for what the file will hold, the MSL and metallibs and about
    // 1 KiB of tables per kernel: the builder's buffer is zeroed up front,
    // and a fixed 64 KiB cost a small kernel as much as packing it.
    let payload: usize = c
        .kernels
        .iter()
        .map(|k| {
            1024 + if c.keep_msl { k.msl.source.len() } else { 0 }
                + k.metallib.as_ref().map_or(0, |m| m.bytes.len())
        })
        .sum();
    let mut b = FlatBufferBuilder::with_capacity(1024 + payload);
    let mut libraries = Vec::with_capacity(c.kernels.len());
    let mut kernels = Vec::with_capacity(c.kernels.len());
    let version = fb::MslVersion::new(c.options.msl_version.major, c.options.msl_version.minor);

    for (index, k) in c.kernels.iter().enumerate() {
        // Library.
        let msl_source = c.keep_msl.then(|| b.create_vector(k.msl.source.as_bytes()));
        let metallib = k.metallib.as_ref().map(|m| b.create_vector(&m.bytes));
        let toolchain = k.metallib.as_ref().map(|m| b.create_string(&m.toolchain));
        let target = fb::LibraryTarget::new(
            &version,
            match c.options.math_mode {
                MathMode::Safe => fb::MathMode::Safe,
                MathMode::Fast => fb::MathMode::Fast,
            },
            match c.options.layout.platform {
                Platform::MacOS => fb::Platform::MacOS,
                Platform::IOS => fb::Platform::IOS,
            },
            match c.options.layout.tier {
                Tier::Tier1 => fb::ArgumentBufferTier::Tier1,
                Tier::Tier2 => fb::ArgumentBufferTier::Tier2,
            },
        );
        libraries.push(fb::Library::create(
            &mut b,
            &fb::LibraryArgs {
                msl_source,
                target: Some(&target),
                metallib,
                metallib_toolchain: toolchain,
            },
        ));

        // Kernel.
        let l = &k.layout;
        let u = runtime_loader::or_unset;
        let bindings: Vec<_> = l
            .bindings
            .iter()
            .map(|x| {
                fb::Binding::new(
                    x.min_size,
                    x.set,
                    x.binding,
                    x.count,
                    u(x.buffer_index),
                    u(x.texture_index),
                    u(x.sampler_index),
                    u(x.id),
                    u(x.sampler_id),
                    u(x.byte_offset),
                    u(x.sampler_byte_offset),
                    x.runtime_array_stride,
                    u(x.sizes_index),
                    kind(x.kind),
                    access(x.access),
                )
            })
            .collect();
        let binding_names = (!bindings.is_empty()).then(|| {
            let names: Vec<_> = l
                .bindings
                .iter()
                .map(|x| b.create_string(x.name.as_deref().unwrap_or("")))
                .collect();
            b.create_vector(&names)
        });
        let bindings = b.create_vector(&bindings);
        let abs: Vec<_> = l
            .argument_buffers
            .iter()
            .map(|a| {
                fb::ArgumentBuffer::new(
                    a.set,
                    a.buffer_index,
                    a.size,
                    u(a.sizes_id),
                    u(a.sizes_byte_offset),
                )
            })
            .collect();
        let abs = (!abs.is_empty()).then(|| b.create_vector(&abs));
        let push_constants = l.push_constants.map(|p| {
            let mut members: Vec<&crate::spirv::blocks::Member> = k
                .blocks
                .push_constants
                .iter()
                .flat_map(|blk| &blk.ty.members)
                .collect();
            members.sort_by_key(|m| m.offset);
            let members: Vec<_> = members
                .into_iter()
                .map(|m| {
                    let name = b.create_string(m.name.as_deref().unwrap_or(""));
                    let ty = b.create_string(&m.ty.canonical());
                    fb::BlockMember::create(
                        &mut b,
                        &fb::BlockMemberArgs {
                            name: Some(name),
                            offset: u32::try_from(m.offset).unwrap_or(u32::MAX),
                            size: u32::try_from(m.size).unwrap_or(u32::MAX),
                            type_: Some(ty),
                        },
                    )
                })
                .collect();
            let members = b.create_vector(&members);
            fb::PushConstants::create(
                &mut b,
                &fb::PushConstantsArgs {
                    buffer_index: p.buffer_index,
                    size: p.size,
                    members: Some(members),
                },
            )
        });
        let fcs: Vec<_> = k
            .function_constants
            .iter()
            .map(|f| {
                let aliases: Vec<_> = f
                    .aliases
                    .iter()
                    .map(|a| {
                        let name = a.name.as_deref().map(|n| b.create_string(n));
                        fb::FunctionConstantAlias::create(
                            &mut b,
                            &fb::FunctionConstantAliasArgs {
                                type_: scalar(a.ty),
                                default_bits: a.default.0,
                                name,
                            },
                        )
                    })
                    .collect();
                let aliases = (!aliases.is_empty()).then(|| b.create_vector(&aliases));
                let name = f.name.as_deref().map(|n| b.create_string(n));
                fb::FunctionConstant::create(
                    &mut b,
                    &fb::FunctionConstantArgs {
                        id: f.id,
                        type_: scalar(f.ty),
                        default_bits: f.default.0,
                        name,
                        aliases,
                    },
                )
            })
            .collect();
        let fcs = (!fcs.is_empty()).then(|| b.create_vector(&fcs));
        let baked: Vec<_> = k
            .baked
            .iter()
            .map(|x| fb::BakedConstant::new(x.value.0, x.id, scalar(x.ty)))
            .collect();
        let baked = (!baked.is_empty()).then(|| b.create_vector(&baked));
        let caps: Vec<_> = k.capabilities.iter().map(|s| b.create_string(s)).collect();
        let caps = (!caps.is_empty()).then(|| b.create_vector(&caps));
        let dims: Vec<fb::ThreadgroupDim> = k
            .workgroup
            .dims
            .iter()
            .map(|d| fb::ThreadgroupDim::new(d.value, d.spec_id.unwrap_or(0), d.spec_id.is_some()))
            .collect();
        let dims = b.create_vector(&dims);
        let fixed = k.workgroup.dims.iter().all(|d| d.spec_id.is_none());
        let name = b.create_string(&k.name);
        let entry_point = b.create_string(&k.entry.name);
        let msl_name = b.create_string(&k.msl.function_name);
        let source_file = b.create_string(base_name(&k.input));
        let params = fb::KernelParams::new(
            index as u32,
            if fixed {
                k.workgroup.total() as u32
            } else {
                MAX_THREADS_PER_THREADGROUP
            },
            u(l.sizes_buffer_index),
            l.sizes_buffer_entries,
            k.entry.threadgroup_memory_bytes as u32,
            match l.model {
                BindingModel::ArgumentBuffers => fb::BindingModel::ArgumentBuffers,
                BindingModel::Discrete => fb::BindingModel::Discrete,
            },
        );
        kernels.push(fb::Kernel::create(
            &mut b,
            &fb::KernelArgs {
                name: Some(name),
                msl_name: Some(msl_name),
                params: Some(&params),
                source_file: Some(source_file),
                threadgroup_size: Some(dims),
                argument_buffers: abs,
                bindings: Some(bindings),
                binding_names,
                push_constants,
                function_constants: fcs,
                baked_constants: baked,
                capabilities: caps,
                entry_point: Some(entry_point),
            },
        ));
    }
    // Kernels are already sorted by name (required for binary search by key).
    let kernels = b.create_vector(&kernels);
    let libraries = b.create_vector(&libraries);
    let halc_version = b.create_string(env!("CARGO_PKG_VERSION"));
    let sc_version = b.create_string(crate::msl::SPIRV_CROSS_VERSION);
    let options: Vec<_> = c
        .options
        .canonical()
        .iter()
        .map(|s| b.create_string(s))
        .collect();
    let options = b.create_vector(&options);
    let sha = b.create_string(&c.inputs_sha256);
    let build_info = fb::BuildInfo::create(
        &mut b,
        &fb::BuildInfoArgs {
            halc_version: Some(halc_version),
            spirv_cross_version: Some(sc_version),
            options: Some(options),
            inputs_sha256: Some(sha),
        },
    );
    let root = fb::Executable::create(
        &mut b,
        &fb::ExecutableArgs {
            format_version: fb::FormatVersion::Current,
            kernels: Some(kernels),
            libraries: Some(libraries),
            build_info: Some(build_info),
        },
    );
    fb::finish_executable_buffer(&mut b, root);
    b.finished_data().to_vec()
}

/// The file name of a path as given, without directories (so the output
/// does not depend on where the inputs live).
fn base_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}
