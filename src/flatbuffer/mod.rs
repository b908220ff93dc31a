//! Writes the executable from the stages' values. The format is
//! `schemas/halc_executable.fbs`; the builders come from the generated code
//! in `runtime-loader`, so compiler and runtime share one definition.

use flatbuffers::FlatBufferBuilder;
use runtime_loader::schema as fb;
use runtime_loader::StringTable;

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
    // Every string of the file, each once (`Executable.strings`).
    let mut strings = StringTable::new();
    let mut libraries = Vec::with_capacity(c.kernels.len());
    let mut kernels = Vec::with_capacity(c.kernels.len());
    let version = fb::MslVersion::new(c.options.msl_version.major, c.options.msl_version.minor);

    for (index, k) in c.kernels.iter().enumerate() {
        // Library.
        let msl_source = c.keep_msl.then(|| b.create_vector(k.msl.source.as_bytes()));
        let metallib = k.metallib.as_ref().map(|m| b.create_vector(&m.bytes));
        let toolchain = k.metallib.as_ref().map(|m| strings.add(&m.toolchain));
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
                metallib_toolchain: toolchain.as_ref(),
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
                .map(|x| strings.add(x.name.as_deref().unwrap_or("")))
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
        let push_constants = l
            .push_constants
            .map(|p| fb::PushConstants::new(p.buffer_index, p.size));
        let push_constant_members = l.push_constants.map(|_| {
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
                    fb::BlockMember::new(
                        u32::try_from(m.offset).unwrap_or(u32::MAX),
                        u32::try_from(m.size).unwrap_or(u32::MAX),
                        &strings.add(m.name.as_deref().unwrap_or("")),
                        &strings.add(&m.ty.canonical()),
                    )
                })
                .collect();
            b.create_vector(&members)
        });
        // Sorted by id, each constant's aliases after it (the loader finds
        // both by binary search).
        let mut consts: Vec<&crate::spirv::SpecConstant> = k.function_constants.iter().collect();
        consts.sort_by_key(|f| f.id);
        let fcs: Vec<_> = consts
            .iter()
            .map(|f| {
                let name = strings.add(f.name.as_deref().unwrap_or(""));
                fb::FunctionConstant::new(f.default.0, f.id, &name, scalar(f.ty))
            })
            .collect();
        let aliases: Vec<_> = consts
            .iter()
            .flat_map(|f| f.aliases.iter().map(move |a| (f.id, a)))
            .map(|(id, a)| {
                let name = strings.add(a.name.as_deref().unwrap_or(""));
                fb::FunctionConstantAlias::new(a.default.0, id, &name, scalar(a.ty))
            })
            .collect();
        let fcs = (!fcs.is_empty()).then(|| b.create_vector(&fcs));
        let aliases = (!aliases.is_empty()).then(|| b.create_vector(&aliases));
        let baked: Vec<_> = k
            .baked
            .iter()
            .map(|x| fb::BakedConstant::new(x.value.0, x.id, scalar(x.ty)))
            .collect();
        let baked = (!baked.is_empty()).then(|| b.create_vector(&baked));
        let caps: Vec<_> = k.capabilities.iter().map(|s| strings.add(s)).collect();
        let caps = (!caps.is_empty()).then(|| b.create_vector(&caps));
        let dims: Vec<fb::ThreadgroupDim> = k
            .workgroup
            .dims
            .iter()
            .map(|d| fb::ThreadgroupDim::new(d.value, d.spec_id.unwrap_or(0), d.spec_id.is_some()))
            .collect();
        let dims = b.create_vector(&dims);
        let fixed = k.workgroup.dims.iter().all(|d| d.spec_id.is_none());
        let names = fb::KernelNames::new(
            &strings.add(&k.name),
            &strings.add(&k.msl.function_name),
            &strings.add(&k.entry.name),
            &strings.add(base_name(&k.input)),
        );
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
                names: Some(&names),
                params: Some(&params),
                threadgroup_size: Some(dims),
                argument_buffers: abs,
                bindings: Some(bindings),
                binding_names,
                push_constants: push_constants.as_ref(),
                push_constant_members,
                function_constants: fcs,
                function_constant_aliases: aliases,
                baked_constants: baked,
                capabilities: caps,
            },
        ));
    }
    // Kernels are already sorted by name (required for binary search by key).
    let kernels = b.create_vector(&kernels);
    let libraries = b.create_vector(&libraries);
    let halc_version = strings.add(env!("CARGO_PKG_VERSION"));
    let sc_version = strings.add(crate::msl::SPIRV_CROSS_VERSION);
    let options: Vec<_> = c
        .options
        .canonical()
        .iter()
        .map(|s| strings.add(s))
        .collect();
    let options = b.create_vector(&options);
    let sha = strings.add(&c.inputs_sha256);
    let build_info = fb::BuildInfo::create(
        &mut b,
        &fb::BuildInfoArgs {
            halc_version: Some(&halc_version),
            spirv_cross_version: Some(&sc_version),
            options: Some(options),
            inputs_sha256: Some(&sha),
        },
    );
    let strings = b.create_vector(strings.text().as_bytes());
    let root = fb::Executable::create(
        &mut b,
        &fb::ExecutableArgs {
            format_version: fb::FormatVersion::Current,
            kernels: Some(kernels),
            libraries: Some(libraries),
            build_info: Some(build_info),
            strings: Some(strings),
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
