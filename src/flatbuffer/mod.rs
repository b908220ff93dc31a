//! Writes the executable from the stages' values. The format is
//! `schemas/halc_executable.fbs`; the builders come from the generated code
//! in `runtime-loader`, so compiler and runtime share one definition.

use flatbuffers::FlatBufferBuilder;
use runtime_loader::schema as fb;
use runtime_loader::StringTable;

use crate::model::{Compiled, MAX_THREADS_PER_THREADGROUP};
use crate::msl::metallib::MathMode;
use crate::msl::{BindingModel, Platform, Tier};
use crate::spirv::{Access, BindingKind, ScalarType};

impl Compiled {
    /// Serialises the executable (deterministic).
    pub fn to_flatbuffer(&self) -> Vec<u8> {
        write(self)
    }
}

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
        BindingKind::AccelerationStructure => fb::BindingKind::AccelerationStructure,
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

/// The executable-wide record vectors, each kernel's a `Range` of them.
#[derive(Default)]
struct Records {
    bindings: Vec<fb::Binding>,
    binding_names: Vec<fb::Str>,
    argument_buffers: Vec<fb::ArgumentBuffer>,
    members: Vec<fb::BlockMember>,
    constants: Vec<fb::FunctionConstant>,
    aliases: Vec<fb::FunctionConstantAlias>,
    baked: Vec<fb::BakedConstant>,
    capabilities: Vec<fb::Str>,
}

/// Appends `items` to `v` and gives their range.
fn push<T>(v: &mut Vec<T>, items: impl IntoIterator<Item = T>) -> fb::Range {
    let first = v.len();
    v.extend(items);
    fb::Range::new(index(first), index(v.len() - first))
}

/// A record index or count: the FlatBuffer that holds the records cannot
/// pass 2 GiB, so neither can they pass `u32::MAX`.
fn index(n: usize) -> u32 {
    u32::try_from(n).expect("executable records fit a FlatBuffer")
}

/// Serialises `c`. The same `Compiled` always gives the same bytes.
pub fn write<'c>(c: &'c Compiled) -> Vec<u8> {
    // Sized for what the file will hold: the MSL and metallibs and up to
    // 2 KiB of records and strings per kernel (the corpus of
    // `scripts/bench.sh` averages 554 bytes). The builder's buffer is zeroed
    // up front, and a fixed 64 KiB cost a small kernel as much as packing it;
    // one too small doubles, copying and zeroing the whole file again.
    let blobs: usize = c
        .kernels
        .iter()
        .map(|k| {
            let msl = if c.keep_msl { k.msl.source.len() } else { 0 };
            msl + k.metallib.as_ref().map_or(0, |m| m.bytes.len())
        })
        .sum();
    let mut b = FlatBufferBuilder::with_capacity(1024 + 2048 * c.kernels.len() + blobs);
    // Every string of the file, each once (`Executable.strings`).
    let mut strings = StringTable::new();
    // The libraries' MSL and metallibs (`Executable.library_data`), in
    // order. They are copied once, into the finished buffer (below).
    let mut data: Vec<&'c [u8]> = Vec::with_capacity(2 * c.kernels.len());
    let mut data_len = 0usize;
    let mut blob = |bytes: &'c [u8]| {
        let offset = index(data_len);
        data_len += bytes.len();
        data.push(bytes);
        fb::Blob::new(offset, index(bytes.len()))
    };
    let mut r = Records::default();
    let mut libraries = Vec::with_capacity(c.kernels.len());
    let mut kernels = Vec::with_capacity(c.kernels.len());
    let version = fb::MslVersion::new(c.options.msl_version.major, c.options.msl_version.minor);
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
    let u = runtime_loader::or_unset;

    // Kernels are already sorted by name (the loader finds them by binary
    // search), and each has its own library.
    for (i, k) in c.kernels.iter().enumerate() {
        let msl = if c.keep_msl {
            blob(k.msl.source.as_bytes())
        } else {
            fb::Blob::default()
        };
        let metallib = k
            .metallib
            .as_ref()
            .map_or_else(fb::Blob::default, |m| blob(&m.bytes));
        let toolchain = strings.add(k.metallib.as_ref().map_or("", |m| &m.toolchain));
        libraries.push(fb::Library::new(&msl, &metallib, &toolchain, &target));

        let l = &k.layout;
        let bindings = push(
            &mut r.bindings,
            l.bindings.iter().map(|x| {
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
                    u(x.atomic_buffer.and_then(|a| a.buffer_index)),
                    u(x.atomic_buffer.and_then(|a| a.id)),
                    u(x.atomic_buffer.and_then(|a| a.byte_offset)),
                    u(x.atomic_buffer.map(|a| a.row_alignment)),
                    kind(x.kind),
                    access(x.access),
                )
            }),
        );
        r.binding_names.extend(
            l.bindings
                .iter()
                .map(|x| strings.add(x.name.as_deref().unwrap_or(""))),
        );
        let argument_buffers = push(
            &mut r.argument_buffers,
            l.argument_buffers.iter().map(|a| {
                fb::ArgumentBuffer::new(
                    a.set,
                    a.buffer_index,
                    a.size,
                    u(a.sizes_id),
                    u(a.sizes_byte_offset),
                )
            }),
        );
        let push_constants = l
            .push_constants
            .map_or(fb::PushConstants::new(runtime_loader::UNSET, 0), |p| {
                fb::PushConstants::new(p.buffer_index, p.size)
            });
        let mut members: Vec<&crate::spirv::blocks::Member> = match l.push_constants {
            Some(_) => k
                .blocks
                .push_constants
                .iter()
                .flat_map(|blk| &blk.ty.members)
                .collect(),
            None => Vec::new(),
        };
        members.sort_by_key(|m| m.offset);
        let members = push(
            &mut r.members,
            members.into_iter().map(|m| {
                fb::BlockMember::new(
                    u32::try_from(m.offset).unwrap_or(u32::MAX),
                    u32::try_from(m.size).unwrap_or(u32::MAX),
                    &strings.add(m.name.as_deref().unwrap_or("")),
                    &strings.add(&m.ty.canonical()),
                )
            }),
        );
        // Sorted by id, each constant's aliases in its order (the loader
        // finds both by binary search).
        let mut consts: Vec<&crate::spirv::SpecConstant> = k.function_constants.iter().collect();
        consts.sort_by_key(|f| f.id);
        let function_constants = push(
            &mut r.constants,
            consts.iter().map(|f| {
                let name = strings.add(f.name.as_deref().unwrap_or(""));
                fb::FunctionConstant::new(f.default.0, f.id, &name, scalar(f.ty))
            }),
        );
        let aliases = push(
            &mut r.aliases,
            consts
                .iter()
                .flat_map(|f| f.aliases.iter().map(move |a| (f.id, a)))
                .map(|(id, a)| {
                    let name = strings.add(a.name.as_deref().unwrap_or(""));
                    fb::FunctionConstantAlias::new(a.default.0, id, &name, scalar(a.ty))
                }),
        );
        let baked = push(
            &mut r.baked,
            k.baked
                .iter()
                .map(|x| fb::BakedConstant::new(x.value.0, x.id, scalar(x.ty))),
        );
        let capabilities = push(
            &mut r.capabilities,
            k.capabilities.iter().map(|s| strings.add(s)),
        );
        let dims = k
            .workgroup
            .dims
            .map(|d| fb::ThreadgroupDim::new(d.value, d.spec_id.unwrap_or(0), d.spec_id.is_some()));
        let fixed = k.workgroup.dims.iter().all(|d| d.spec_id.is_none());
        let names = fb::KernelNames::new(
            &strings.add(&k.name),
            &strings.add(&k.msl.function_name),
            &strings.add(&k.entry.name),
            &strings.add(base_name(&k.input)),
        );
        let params = fb::KernelParams::new(
            index(i),
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
        kernels.push(fb::Kernel::new(
            &names,
            &params,
            &dims,
            &push_constants,
            &bindings,
            &argument_buffers,
            &members,
            &function_constants,
            &aliases,
            &baked,
            &capabilities,
        ));
    }
    let halc_version = strings.add(env!("CARGO_PKG_VERSION"));
    let sc_version = strings.add(crate::msl::SPIRV_CROSS_VERSION);
    let options: Vec<_> = c
        .options
        .canonical()
        .iter()
        .map(|s| strings.add(s))
        .collect();
    let sha = strings.add(&c.inputs_sha256);

    // Vectors are written back to front, the large byte vectors first.
    // The library data's bytes are left as a gap here and copied in once
    // the buffer is finished: building it as a vector of its own first
    // copied a batch's megabytes of MSL twice, each time into fresh pages.
    let library_data = (data_len != 0).then(|| gap_vector(&mut b, data_len));
    let text = b.create_vector(strings.text().as_bytes());
    let options = b.create_vector(&options);
    let build_info = fb::BuildInfo::create(
        &mut b,
        &fb::BuildInfoArgs {
            halc_version: Some(&halc_version),
            spirv_cross_version: Some(&sc_version),
            options: Some(options),
            inputs_sha256: Some(&sha),
        },
    );
    fn vector<'b, T: flatbuffers::Push + Copy>(
        b: &mut FlatBufferBuilder<'b>,
        v: &[T],
    ) -> Option<flatbuffers::WIPOffset<flatbuffers::Vector<'b, T::Output>>> {
        (!v.is_empty()).then(|| b.create_vector(v))
    }
    let capabilities = vector(&mut b, &r.capabilities);
    let baked = vector(&mut b, &r.baked);
    let aliases = vector(&mut b, &r.aliases);
    let constants = vector(&mut b, &r.constants);
    let members = vector(&mut b, &r.members);
    let argument_buffers = vector(&mut b, &r.argument_buffers);
    let binding_names = vector(&mut b, &r.binding_names);
    let bindings = vector(&mut b, &r.bindings);
    let libraries = b.create_vector(&libraries);
    let kernels = b.create_vector(&kernels);
    let root = fb::Executable::create(
        &mut b,
        &fb::ExecutableArgs {
            format_version: fb::FormatVersion::Current,
            kernels: Some(kernels),
            libraries: Some(libraries),
            bindings,
            binding_names,
            argument_buffers,
            push_constant_members: members,
            function_constants: constants,
            function_constant_aliases: aliases,
            baked_constants: baked,
            capabilities,
            build_info: Some(build_info),
            strings: Some(text),
            library_data,
        },
    );
    fb::finish_executable_buffer(&mut b, root);
    if let Some(v) = library_data {
        fill_gap(&mut b, v, &data);
    }
    // The builder wrote back to front from the end of its buffer: move the
    // file to the front of that buffer rather than copy it into a new one,
    // whose pages would all be fresh (a batch's file is megabytes, and
    // faulting in a copy cost as much as packing it).
    let (mut buffer, head) = b.collapse();
    buffer.drain(..head);
    buffer
}

/// Nothing written: the builder only moves past these bytes.
struct Gap<const N: usize>;

impl<const N: usize> flatbuffers::Push for Gap<N> {
    type Output = [u8; N];

    unsafe fn push(&self, _dst: &mut [u8], _written_len: usize) {}
}

/// A byte vector of `len` bytes whose contents are left for the caller to
/// write into the finished buffer: laid out exactly as `create_vector` lays
/// out a `&[u8]` of that length (aligned for its length word, the length
/// word first), without copying anything into the builder. The builder's
/// buffer is zeroed, so the bytes are zero until written.
fn gap_vector<'b>(
    b: &mut FlatBufferBuilder<'b>,
    len: usize,
) -> flatbuffers::WIPOffset<flatbuffers::Vector<'b, u8>> {
    b.start_vector::<u8>(len);
    let mut left = len;
    // Gaps have alignment 1, so pushing them adds no padding; a few sizes
    // keep the calls few for megabytes.
    while left >= 1 << 16 {
        b.push(Gap::<{ 1 << 16 }>);
        left -= 1 << 16;
    }
    while left >= 1 << 10 {
        b.push(Gap::<{ 1 << 10 }>);
        left -= 1 << 10;
    }
    while left >= 32 {
        b.push(Gap::<32>);
        left -= 32;
    }
    for _ in 0..left {
        b.push(Gap::<1>);
    }
    b.end_vector::<u8>(len)
}

/// Writes `pieces`, one after another, into the bytes of the gap vector
/// `v` of the finished builder `b`; together they are its whole length.
fn fill_gap(
    b: &mut FlatBufferBuilder<'_>,
    v: flatbuffers::WIPOffset<flatbuffers::Vector<'_, u8>>,
    pieces: &[&[u8]],
) {
    let (buffer, _) = b.mut_finished_buffer();
    // A vector's offset counts back from the buffer's end to its length
    // word; its bytes follow that word.
    let start = buffer.len() - v.value() as usize + 4;
    let mut at = start;
    for bytes in pieces {
        buffer[at..at + bytes.len()].copy_from_slice(bytes);
        at += bytes.len();
    }
    let len = u32::from_le_bytes(buffer[start - 4..start].try_into().unwrap());
    assert_eq!(at - start, len as usize, "the pieces fill the gap vector");
}

/// The file name of a path as given, without directories (so the output
/// does not depend on where the inputs live).
fn base_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A gap vector filled in the finished buffer gives the same bytes as
    /// `create_vector` of the same data, whatever precedes and follows it
    /// (its alignment padding) and whatever its length (each gap size and
    /// the remainders), with the builder growing after the gap was made.
    #[test]
    fn a_filled_gap_vector_is_the_vector_create_vector_writes() {
        let lens = [
            0usize, 1, 3, 31, 32, 33, 1023, 1024, 1025, 1057, 65535, 65536, 65537, 200_007,
        ];
        for len in lens {
            let bytes: Vec<u8> = (0..len).map(|i| (i * 131 + 7) as u8 | 1).collect();
            for before in 0..4u8 {
                for after in [false, true] {
                    let build = |gap: bool| {
                        let mut b = FlatBufferBuilder::new();
                        for i in 0..before {
                            b.push(i);
                        }
                        let v = if gap {
                            gap_vector(&mut b, len)
                        } else {
                            b.create_vector(&bytes)
                        };
                        if after {
                            b.push(0xabu8);
                        }
                        b.finish_minimal(v);
                        if gap {
                            // In three pieces, one of them empty.
                            let (x, y) = bytes.split_at(len / 3);
                            fill_gap(&mut b, v, &[x, &[], y]);
                        }
                        b.finished_data().to_vec()
                    };
                    assert_eq!(
                        build(true),
                        build(false),
                        "length {len}, {before} bytes before, a byte after: {after}"
                    );
                }
            }
        }
    }
}
