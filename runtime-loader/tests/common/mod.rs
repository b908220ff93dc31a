//! Test support: builds executables with the generated flatbuffers builder
//! API from plain Rust descriptions, so tests can make valid files and
//! corrupt any field.

#![allow(dead_code)]

use runtime_loader::schema::{
    self, Access, ArgumentBufferTier, BindingKind, BindingModel, MathMode, Platform, ScalarType,
};

#[derive(Debug, Clone)]
pub struct Lib {
    /// MSL source bytes (UTF-8 unless a test breaks it).
    pub msl_source: Option<Vec<u8>>,
    pub msl_version: (u16, u16),
    pub math_mode: MathMode,
    pub platform: Platform,
    pub tier: ArgumentBufferTier,
    pub metallib: Option<Vec<u8>>,
    /// `Library.msl_source` as written: (offset, length) into
    /// `Executable.library_data` instead of the source's own blob.
    pub msl_blob: Option<(u32, u32)>,
}

impl Lib {
    pub fn msl(source: &str) -> Lib {
        Lib {
            msl_source: Some(source.as_bytes().to_vec()),
            msl_version: (3, 0),
            math_mode: MathMode::Safe,
            platform: Platform::MacOS,
            tier: ArgumentBufferTier::Tier2,
            metallib: None,
            msl_blob: None,
        }
    }
}

#[derive(Debug, Clone, Default)]
pub struct Ab {
    pub set: u32,
    pub buffer_index: u32,
    pub size: u32,
    pub sizes_id: Option<u32>,
    pub sizes_byte_offset: Option<u32>,
}

#[derive(Debug, Clone)]
pub struct B {
    pub set: u32,
    pub binding: u32,
    pub kind: BindingKind,
    pub access: Access,
    pub count: u32,
    pub buffer_index: Option<u32>,
    pub texture_index: Option<u32>,
    pub sampler_index: Option<u32>,
    pub id: Option<u32>,
    pub sampler_id: Option<u32>,
    pub byte_offset: Option<u32>,
    pub sampler_byte_offset: Option<u32>,
    pub min_size: u64,
    pub stride: u32,
    pub sizes_index: Option<u32>,
    pub name: String,
    /// Companion buffer of emulated image atomics: (buffer_index, id,
    /// byte_offset, row_alignment).
    pub atomic: (Option<u32>, Option<u32>, Option<u32>, Option<u32>),
}

impl B {
    pub fn new(set: u32, binding: u32, kind: BindingKind) -> B {
        B {
            set,
            binding,
            kind,
            access: Access::ReadOnly,
            count: 1,
            buffer_index: None,
            texture_index: None,
            sampler_index: None,
            id: None,
            sampler_id: None,
            byte_offset: None,
            sampler_byte_offset: None,
            min_size: 0,
            stride: 0,
            sizes_index: None,
            atomic: (None, None, None, None),
            name: String::new(),
        }
    }

    /// An argument-buffer member (buffer or texture part).
    pub fn member(mut self, id: u32, byte_offset: u32) -> B {
        self.id = Some(id);
        self.byte_offset = Some(byte_offset);
        self
    }

    /// The sampler part as an argument-buffer member.
    pub fn sampler_member(mut self, id: u32, byte_offset: u32) -> B {
        self.sampler_id = Some(id);
        self.sampler_byte_offset = Some(byte_offset);
        self
    }

    pub fn access(mut self, access: Access) -> B {
        self.access = access;
        self
    }

    pub fn count(mut self, count: u32) -> B {
        self.count = count;
        self
    }

    pub fn buffer(mut self, index: u32) -> B {
        self.buffer_index = Some(index);
        self
    }

    pub fn texture(mut self, index: u32) -> B {
        self.texture_index = Some(index);
        self
    }

    pub fn sampler(mut self, index: u32) -> B {
        self.sampler_index = Some(index);
        self
    }

    pub fn min_size(mut self, min_size: u64) -> B {
        self.min_size = min_size;
        self
    }

    pub fn sizes(mut self, index: u32) -> B {
        self.sizes_index = Some(index);
        self
    }
}

#[derive(Debug, Clone)]
pub struct Fc {
    pub id: u32,
    pub ty: ScalarType,
    pub default_bits: u64,
    /// Other declarations of the id: (type, default bits).
    pub aliases: Vec<(ScalarType, u64)>,
}

#[derive(Debug, Clone)]
pub struct K {
    pub name: String,
    pub msl_name: String,
    pub library: u32,
    /// (size, spec_id, has_spec_id)
    pub tg: Vec<(u32, u32, bool)>,
    pub max_threads: u32,
    pub model: BindingModel,
    pub abs: Vec<Ab>,
    pub bindings: Vec<B>,
    pub push: Option<(u32, u32)>,
    /// Push-constant members: (offset, size).
    pub push_members: Vec<(u32, u32)>,
    pub sizes_buffer_index: Option<u32>,
    pub sizes_entries: u32,
    pub tg_memory: u32,
    pub fcs: Vec<Fc>,
    /// This kernel's entries of `Executable.binding_names` as written;
    /// `None`: one per binding, from `B.name` (as halc writes them).
    pub binding_names: Option<Vec<String>>,
    /// `Kernel.bindings` as written: (first, count) instead of the range of
    /// this kernel's bindings.
    pub bindings_range: Option<(u32, u32)>,
    /// `Kernel.capabilities`.
    pub capabilities: Vec<String>,
    /// Aliases written after those of `fcs`: (id, type, default bits).
    pub extra_aliases: Vec<(u32, ScalarType, u64)>,
    /// Push-constant members written without push constants.
    pub members_without_push: bool,
    /// `names.name` as written: (offset, length) into `Executable.strings`
    /// instead of the Str of `name`.
    pub name_str: Option<(u32, u32)>,
}

impl K {
    pub fn new(name: &str, model: BindingModel) -> K {
        K {
            name: name.into(),
            msl_name: format!("{name}0"),
            library: 0,
            tg: vec![(64, 0, false), (1, 0, false), (1, 0, false)],
            max_threads: 64,
            model,
            abs: Vec::new(),
            bindings: Vec::new(),
            push: None,
            push_members: Vec::new(),
            sizes_buffer_index: None,
            sizes_entries: 0,
            tg_memory: 0,
            fcs: Vec::new(),
            binding_names: None,
            bindings_range: None,
            capabilities: vec!["Shader".into()],
            extra_aliases: Vec::new(),
            members_without_push: false,
            name_str: None,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Exe {
    pub format_version: u32,
    pub kernels: Vec<K>,
    pub libraries: Vec<Lib>,
    /// Bytes appended to `Executable.strings` after every string.
    pub strings_suffix: Vec<u8>,
    /// `Library.metallib_toolchain` of every library.
    pub toolchain: Option<String>,
    /// Leave `Executable.binding_names` out.
    pub omit_binding_names: bool,
    /// A binding after the last kernel's, which no kernel's range holds.
    pub orphan_binding: bool,
}

impl Exe {
    pub fn new(kernels: Vec<K>) -> Exe {
        Exe {
            format_version: schema::FormatVersion::Current.0,
            kernels,
            libraries: vec![Lib::msl("kernel void k() {}")],
            strings_suffix: Vec::new(),
            toolchain: None,
            omit_binding_names: false,
            orphan_binding: false,
        }
    }

    pub fn kernel_mut(&mut self, name: &str) -> &mut K {
        self.kernels
            .iter_mut()
            .find(|k| k.name == name)
            .expect("kernel")
    }

    pub fn build(&self) -> Vec<u8> {
        let mut fbb = flatbuffers::FlatBufferBuilder::new();
        let mut st = runtime_loader::StringTable::new();
        let unset = runtime_loader::or_unset;
        fn range<T>(v: &mut Vec<T>, items: impl IntoIterator<Item = T>) -> schema::Range {
            let first = v.len();
            v.extend(items);
            schema::Range::new(first as u32, (v.len() - first) as u32)
        }
        let (mut bindings, mut names, mut abs, mut members) = (vec![], vec![], vec![], vec![]);
        let (mut fcs, mut aliases, mut caps) = (vec![], vec![], vec![]);
        let mut kernels = Vec::new();
        for k in &self.kernels {
            let name = match k.name_str {
                Some((offset, length)) => schema::Str::new(offset, length),
                None => st.add(&k.name),
            };
            let kernel_names = schema::KernelNames::new(
                &name,
                &st.add(&k.msl_name),
                &st.add(&k.name),
                &st.add("test.spv"),
            );
            let dims: [schema::ThreadgroupDim; 3] = std::array::from_fn(|i| {
                let (s, id, has) = k.tg.get(i).copied().unwrap_or((1, 0, false));
                schema::ThreadgroupDim::new(s, id, has)
            });
            let ab_range = range(
                &mut abs,
                k.abs.iter().map(|a| {
                    schema::ArgumentBuffer::new(
                        a.set,
                        a.buffer_index,
                        a.size,
                        unset(a.sizes_id),
                        unset(a.sizes_byte_offset),
                    )
                }),
            );
            match &k.binding_names {
                Some(n) => names.extend(n.iter().map(|n| st.add(n))),
                None => names.extend(k.bindings.iter().map(|b| st.add(&b.name))),
            }
            let mut binding_range = range(
                &mut bindings,
                k.bindings.iter().map(|b| {
                    schema::Binding::new(
                        b.min_size,
                        b.set,
                        b.binding,
                        b.count,
                        unset(b.buffer_index),
                        unset(b.texture_index),
                        unset(b.sampler_index),
                        unset(b.id),
                        unset(b.sampler_id),
                        unset(b.byte_offset),
                        unset(b.sampler_byte_offset),
                        b.stride,
                        unset(b.sizes_index),
                        unset(b.atomic.0),
                        unset(b.atomic.1),
                        unset(b.atomic.2),
                        unset(b.atomic.3),
                        b.kind,
                        b.access,
                    )
                }),
            );
            if let Some((first, count)) = k.bindings_range {
                binding_range = schema::Range::new(first, count);
            }
            let push = match k.push {
                Some((buffer_index, size)) => schema::PushConstants::new(buffer_index, size),
                None => schema::PushConstants::new(runtime_loader::UNSET, 0),
            };
            let written = k.push.is_some() || k.members_without_push;
            let member_range = range(
                &mut members,
                k.push_members
                    .iter()
                    .filter(|_| written)
                    .map(|&(offset, size)| {
                        schema::BlockMember::new(offset, size, &st.add(""), &st.add("float32"))
                    }),
            );
            // In the order given (the loader checks the order).
            let mut own_aliases = Vec::new();
            let fc_range = range(
                &mut fcs,
                k.fcs.iter().map(|c| {
                    own_aliases.extend(c.aliases.iter().map(|&(t, bits)| (c.id, t, bits)));
                    schema::FunctionConstant::new(
                        c.default_bits,
                        c.id,
                        &st.add(&format!("c{}", c.id)),
                        c.ty,
                    )
                }),
            );
            own_aliases.extend(k.extra_aliases.iter().copied());
            let alias_range = range(
                &mut aliases,
                own_aliases.into_iter().map(|(id, type_, bits)| {
                    schema::FunctionConstantAlias::new(bits, id, &st.add(""), type_)
                }),
            );
            let cap_range = range(&mut caps, k.capabilities.iter().map(|c| st.add(c)));
            let params = schema::KernelParams::new(
                k.library,
                k.max_threads,
                unset(k.sizes_buffer_index),
                k.sizes_entries,
                k.tg_memory,
                k.model,
            );
            kernels.push(schema::Kernel::new(
                &kernel_names,
                &params,
                &dims,
                &push,
                &binding_range,
                &ab_range,
                &member_range,
                &fc_range,
                &alias_range,
                &schema::Range::new(0, 0),
                &cap_range,
            ));
        }
        if self.orphan_binding {
            bindings.push(schema::Binding::new(
                0,
                9,
                0,
                1,
                0,
                unset(None),
                unset(None),
                unset(None),
                unset(None),
                unset(None),
                unset(None),
                0,
                unset(None),
                unset(None),
                unset(None),
                unset(None),
                unset(None),
                BindingKind::StorageBuffer,
                Access::ReadWrite,
            ));
            names.push(st.add(""));
        }
        let mut data = Vec::new();
        let mut blob = |bytes: Option<&Vec<u8>>| match bytes {
            Some(b) => {
                let offset = data.len() as u32;
                data.extend_from_slice(b);
                schema::Blob::new(offset, b.len() as u32)
            }
            None => schema::Blob::default(),
        };
        let toolchain = st.add(self.toolchain.as_deref().unwrap_or(""));
        let libs: Vec<_> = self
            .libraries
            .iter()
            .map(|l| {
                let mut msl = blob(l.msl_source.as_ref());
                if let Some((offset, length)) = l.msl_blob {
                    msl = schema::Blob::new(offset, length);
                }
                let metallib = blob(l.metallib.as_ref());
                let v = schema::MslVersion::new(l.msl_version.0, l.msl_version.1);
                schema::Library::new(
                    &msl,
                    &metallib,
                    &toolchain,
                    &schema::LibraryTarget::new(&v, l.math_mode, l.platform, l.tier),
                )
            })
            .collect();
        let halc_version = st.add("test");
        let build_info = schema::BuildInfo::create(
            &mut fbb,
            &schema::BuildInfoArgs {
                halc_version: Some(&halc_version),
                ..Default::default()
            },
        );
        let mut text = st.text().as_bytes().to_vec();
        text.extend_from_slice(&self.strings_suffix);
        let strings = fbb.create_vector(&text);
        let data = fbb.create_vector(&data);
        let kernels = fbb.create_vector(&kernels);
        let libs = fbb.create_vector(&libs);
        let bindings = fbb.create_vector(&bindings);
        let names = (!self.omit_binding_names).then(|| fbb.create_vector(&names));
        let abs = fbb.create_vector(&abs);
        let members = fbb.create_vector(&members);
        let fcs = fbb.create_vector(&fcs);
        let aliases = fbb.create_vector(&aliases);
        let caps = fbb.create_vector(&caps);
        let root = schema::Executable::create(
            &mut fbb,
            &schema::ExecutableArgs {
                format_version: schema::FormatVersion(self.format_version),
                kernels: Some(kernels),
                libraries: Some(libs),
                bindings: Some(bindings),
                binding_names: names,
                argument_buffers: Some(abs),
                push_constant_members: Some(members),
                function_constants: Some(fcs),
                function_constant_aliases: Some(aliases),
                baked_constants: None,
                capabilities: Some(caps),
                build_info: Some(build_info),
                strings: Some(strings),
                library_data: Some(data),
            },
        );
        schema::finish_executable_buffer(&mut fbb, root);
        fbb.finished_data().to_vec()
    }
}

// ---------------------------------------------------------------------------
// Valid layouts, shaped like what `halc compile` writes for the fixtures.

/// saxpy.comp: argument buffer of set 0 at buffer(0): x (ro), y (rw), params (UBO, 8 bytes).
pub fn saxpy() -> K {
    let mut k = K::new("main", BindingModel::ArgumentBuffers);
    k.abs = vec![Ab {
        set: 0,
        buffer_index: 0,
        size: 24,
        ..Ab::default()
    }];
    k.bindings = vec![
        B::new(0, 0, BindingKind::StorageBuffer).member(0, 0),
        B::new(0, 1, BindingKind::StorageBuffer)
            .member(1, 8)
            .access(Access::ReadWrite),
        B::new(0, 2, BindingKind::UniformBuffer)
            .member(2, 16)
            .min_size(8),
    ];
    for b in &mut k.bindings[..2] {
        b.stride = 4;
    }
    k
}

/// The MSL of [`saxpy`] in the shape SPIRV-Cross emits: `y[i] = a * x[i] +
/// y[i]` for `i < n`, with `x`, `y` and `{a, n}` in one argument buffer.
pub const SAXPY_MSL: &str = r#"
#include <metal_stdlib>
using namespace metal;

struct InBuf { float x[1]; };
struct OutBuf { float y[1]; };
struct Params { float a; uint n; };

struct spvDescriptorSetBuffer0
{
    const device InBuf* inBuf [[id(0)]];
    device OutBuf* outBuf [[id(1)]];
    constant Params* params [[id(2)]];
};

kernel void main0(constant spvDescriptorSetBuffer0& spvDescriptorSet0 [[buffer(0)]],
                  uint3 gl_GlobalInvocationID [[thread_position_in_grid]])
{
    uint i = gl_GlobalInvocationID.x;
    if (i < (*spvDescriptorSet0.params).n)
    {
        (*spvDescriptorSet0.outBuf).y[i] =
            ((*spvDescriptorSet0.params).a * (*spvDescriptorSet0.inBuf).x[i]) + (*spvDescriptorSet0.outBuf).y[i];
    }
}
"#;

/// [`saxpy`] with its MSL: runs on Metal and on the CPU backend.
pub fn saxpy_exe() -> Exe {
    let mut exe = Exe::new(vec![saxpy()]);
    exe.libraries = vec![Lib::msl(SAXPY_MSL)];
    exe
}

/// sparse_sets.comp: sets 0 and 2, sparse bindings and ids, push constants.
/// Ids keep the binding numbers (sparse); byte offsets follow C struct order.
pub fn sparse() -> K {
    let mut k = K::new("sparse", BindingModel::ArgumentBuffers);
    k.abs = vec![
        Ab {
            set: 0,
            buffer_index: 0,
            size: 16,
            ..Ab::default()
        },
        Ab {
            set: 2,
            buffer_index: 1,
            size: 16,
            ..Ab::default()
        },
    ];
    k.bindings = vec![
        B::new(0, 3, BindingKind::StorageBuffer)
            .member(3, 0)
            .min_size(16),
        B::new(0, 7, BindingKind::StorageBuffer)
            .member(7, 8)
            .access(Access::WriteOnly),
        B::new(2, 1, BindingKind::UniformBuffer)
            .member(1, 0)
            .min_size(16),
        B::new(2, 5, BindingKind::StorageBuffer)
            .member(5, 8)
            .access(Access::ReadWrite),
    ];
    k.push = Some((2, 16));
    k
}

/// Discrete model: arrays, push constants, a sizes table, images and samplers.
pub fn discrete() -> K {
    let mut k = K::new("discrete", BindingModel::Discrete);
    k.bindings = vec![
        B::new(0, 0, BindingKind::StorageBuffer)
            .buffer(0)
            .sizes(4)
            .access(Access::ReadWrite),
        B::new(0, 1, BindingKind::StorageBuffer)
            .buffer(1)
            .count(4)
            .sizes(0),
        B::new(1, 0, BindingKind::UniformBuffer)
            .buffer(5)
            .min_size(32),
        B::new(1, 1, BindingKind::StorageImage)
            .texture(0)
            .access(Access::WriteOnly),
        B::new(1, 2, BindingKind::Sampler).sampler(0),
        B::new(1, 3, BindingKind::CombinedImageSampler)
            .texture(1)
            .sampler(1)
            .count(2),
    ];
    k.push = Some((6, 8));
    k.sizes_buffer_index = Some(7);
    k.sizes_entries = 5;
    k
}

/// spec_constants.comp: local_size_x_id = 0 (default 128), float/bool/int constants.
pub fn spec() -> K {
    let mut k = K::new("spec", BindingModel::ArgumentBuffers);
    k.tg = vec![(128, 0, true), (1, 0, false), (1, 0, false)];
    k.max_threads = 1024;
    k.fcs = vec![
        Fc {
            id: 0,
            ty: ScalarType::UInt32,
            default_bits: 128,
            aliases: Vec::new(),
        },
        Fc {
            id: 1,
            ty: ScalarType::Float32,
            default_bits: u64::from(1.5f32.to_bits()),
            aliases: Vec::new(),
        },
        Fc {
            id: 2,
            ty: ScalarType::Bool,
            default_bits: 1,
            aliases: Vec::new(),
        },
        Fc {
            id: 3,
            ty: ScalarType::Int32,
            default_bits: 7,
            aliases: Vec::new(),
        },
    ];
    k.abs = vec![Ab {
        set: 0,
        buffer_index: 0,
        size: 8,
        ..Ab::default()
    }];
    k.bindings = vec![B::new(0, 0, BindingKind::StorageBuffer)
        .member(0, 0)
        .access(Access::ReadWrite)];
    k
}

/// array_length.comp: OpArrayLength in the argument buffer (sizes member id 2
/// at byte 16) plus the kernel-level table SPIRV-Cross declares.
pub fn array_length() -> K {
    let mut k = K::new("array_length", BindingModel::ArgumentBuffers);
    k.tg = vec![(1, 0, false), (1, 0, false), (1, 0, false)];
    k.max_threads = 1;
    k.abs = vec![Ab {
        set: 0,
        buffer_index: 0,
        size: 24,
        sizes_id: Some(2),
        sizes_byte_offset: Some(16),
    }];
    k.bindings = vec![
        B::new(0, 0, BindingKind::StorageBuffer)
            .member(0, 0)
            .min_size(4)
            .sizes(0)
            .access(Access::ReadWrite),
        B::new(0, 1, BindingKind::StorageBuffer)
            .member(1, 8)
            .sizes(1)
            .access(Access::ReadWrite),
    ];
    k.sizes_buffer_index = Some(1);
    k.sizes_entries = 2;
    k
}

/// Argument buffer with images, samplers and a combined array; a writable
/// image forced out to a discrete texture slot (iOS tier 1 style).
pub fn images() -> K {
    let mut k = K::new("images", BindingModel::ArgumentBuffers);
    k.abs = vec![Ab {
        set: 0,
        buffer_index: 0,
        size: 48,
        ..Ab::default()
    }];
    k.bindings = vec![
        B::new(0, 0, BindingKind::SampledImage).member(0, 0),
        B::new(0, 1, BindingKind::Sampler).sampler_member(1, 8),
        B::new(0, 2, BindingKind::CombinedImageSampler)
            .member(2, 16)
            .sampler_member(4, 32)
            .count(2),
        B::new(0, 3, BindingKind::StorageImage)
            .texture(0)
            .access(Access::ReadWrite),
    ];
    k
}

/// Every layout above in one executable (kernels sorted by name).
pub fn all() -> Exe {
    let mut kernels = vec![
        saxpy(),
        sparse(),
        discrete(),
        spec(),
        array_length(),
        images(),
    ];
    kernels.sort_by(|a, b| a.name.cmp(&b.name));
    Exe::new(kernels)
}
