//! The reflection JSON: what an executable holds, as a versioned contract
//! for build systems and host code (`halc inspect --json`,
//! `halc compile --reflection FILE`).
//!
//! It is decoded from the executable itself (never from compiler state), so
//! the JSON written at compile time and the JSON `inspect` prints for that
//! file are the same bytes. `schemas/halc_reflection.schema.json` describes
//! it; [`VERSION`] changes whenever a field is added, removed or changes
//! meaning, or an enumerated field gains a value (2: the
//! `acceleration-structure` kind), and the schema pins the version it
//! describes.

use std::collections::BTreeMap;

use runtime_loader::schema as fb;
use runtime_loader::{Executable, LoadError};
use serde::{Deserialize, Serialize};

/// Version of the reflection JSON this halc writes.
pub const VERSION: u32 = 2;

/// The value of the top-level `format` field.
pub const FORMAT: &str = "halc-reflection";

/// The reflection of one executable.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reflection {
    /// Always [`FORMAT`].
    pub format: String,
    /// Always [`VERSION`] when written by this halc.
    pub version: u32,
    /// The executable's own format version.
    pub executable_format_version: u32,
    /// Kernels, sorted by name.
    pub kernels: Vec<Kernel>,
    /// Metal libraries; kernels refer to them by index.
    pub libraries: Vec<Library>,
    /// How the executable was built, when it records it.
    pub build: Option<Build>,
}

/// One kernel.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Kernel {
    /// The name the runtime looks the kernel up by.
    pub name: String,
    /// SPIR-V entry-point name.
    pub entry_point: String,
    /// File name of the SPIR-V input.
    pub source_file: String,
    /// Function name in the MSL.
    pub msl_function: String,
    /// Index into [`Reflection::libraries`].
    pub library: u32,
    /// Threads per threadgroup (the spec constants' defaults where
    /// [`Kernel::threadgroup_size_spec_ids`] names one).
    pub threadgroup_size: Dims<u32>,
    /// Per dimension driven by a function constant, its id.
    pub threadgroup_size_spec_ids: Dims<Option<u32>>,
    /// `maxTotalThreadsPerThreadgroup` for the pipeline.
    pub max_total_threads_per_threadgroup: u32,
    /// Static threadgroup memory.
    pub threadgroup_memory_bytes: u32,
    /// `argument-buffers` or `discrete`.
    pub binding_model: String,
    /// With argument buffers: one per used descriptor set.
    pub argument_buffers: Vec<ArgumentBuffer>,
    /// Every resource, sorted by (set, binding).
    pub resources: Vec<Resource>,
    /// The push-constant block, if any.
    pub push_constants: Option<PushConstants>,
    /// The kernel-level buffer-sizes table (`OpArrayLength`), if any.
    pub buffer_sizes: Option<BufferSizes>,
    /// Open specialization constants (Metal function constants).
    pub function_constants: Vec<FunctionConstant>,
    /// Specialization constants baked at build time.
    pub baked_constants: Vec<BakedConstant>,
    /// SPIR-V capabilities the module declares.
    pub capabilities: Vec<String>,
}

/// A value per dimension: `{"x": …, "y": …, "z": …}`; `None` members of an
/// `Option` are left out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, bound(serialize = "T: Serialize + Skip"))]
pub struct Dims<T> {
    /// x
    #[serde(default, skip_serializing_if = "Skip::skip")]
    pub x: T,
    /// y
    #[serde(default, skip_serializing_if = "Skip::skip")]
    pub y: T,
    /// z
    #[serde(default, skip_serializing_if = "Skip::skip")]
    pub z: T,
}

/// Which dimension values are left out of the JSON.
pub trait Skip {
    /// Whether to leave the value out.
    fn skip(&self) -> bool;
}

impl Skip for u32 {
    fn skip(&self) -> bool {
        false
    }
}

impl<T> Skip for Option<T> {
    fn skip(&self) -> bool {
        self.is_none()
    }
}

/// An argument buffer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArgumentBuffer {
    /// Descriptor set.
    pub set: u32,
    /// `[[buffer(N)]]` it is bound at.
    pub buffer_index: u32,
    /// Bytes.
    pub size: u32,
    /// The set's buffer-sizes member, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer_sizes: Option<ArgumentMember>,
}

/// A member of an argument buffer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArgumentMember {
    /// `[[id(N)]]`.
    pub id: u32,
    /// Byte offset in the argument buffer.
    pub byte_offset: u32,
}

/// One descriptor resource. Which slot fields are present depends on the
/// binding model and the kind: `id`/`byte_offset` inside an argument buffer,
/// `buffer_index`/`texture_index`/`sampler_index` for discrete slots.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Resource {
    /// Descriptor set.
    pub set: u32,
    /// Binding.
    pub binding: u32,
    /// Variable or block name in the SPIR-V (may be empty).
    pub name: String,
    /// `storage-buffer`, `uniform-buffer`, `storage-image`, `sampled-image`,
    /// `sampler`, `combined-image-sampler`, `uniform-texel-buffer`,
    /// `storage-texel-buffer`.
    pub kind: String,
    /// `read-only`, `write-only`, `read-write`.
    pub access: String,
    /// Array elements (1 for a single resource).
    pub count: u32,
    /// Smallest valid buffer size in bytes (the fixed part of the block).
    pub min_size: u64,
    /// Stride of a trailing runtime array, if the block ends in one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime_array_stride: Option<u32>,
    /// Discrete `[[buffer(N)]]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer_index: Option<u32>,
    /// Discrete `[[texture(N)]]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub texture_index: Option<u32>,
    /// Discrete `[[sampler(N)]]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampler_index: Option<u32>,
    /// Argument-buffer `[[id(N)]]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<u32>,
    /// Byte offset of `id` in the argument buffer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub byte_offset: Option<u32>,
    /// Argument-buffer `[[id(N)]]` of a combined image-sampler's sampler.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampler_id: Option<u32>,
    /// Byte offset of `sampler_id`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampler_byte_offset: Option<u32>,
    /// Entry of the buffer-sizes table that must hold this buffer's length.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer_sizes_index: Option<u32>,
    /// A storage image whose atomics are emulated (MSL below 3.1): the
    /// buffer its texture was created on, which the kernel also takes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image_atomic_buffer: Option<ImageAtomicBuffer>,
}

/// The companion buffer of emulated image atomics: placed as its image is
/// (`buffer_index` when discrete, `id`/`byte_offset` in the argument
/// buffer); the texture's rows must be `row_alignment`-aligned.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImageAtomicBuffer {
    /// Discrete `[[buffer(N)]]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer_index: Option<u32>,
    /// Argument-buffer `[[id(N)]]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<u32>,
    /// Byte offset of `id` in the argument buffer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub byte_offset: Option<u32>,
    /// Bytes the texture's rows are aligned to: rows are
    /// `align_up(width * 4, row_alignment)` bytes apart.
    pub row_alignment: u32,
}

/// The push-constant block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PushConstants {
    /// `[[buffer(N)]]`.
    pub buffer_index: u32,
    /// Bytes.
    pub size: u32,
    /// Its top-level members in offset order: what host code writes.
    pub members: Vec<BlockMember>,
}

/// A member of the push-constant block.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BlockMember {
    /// Name in the SPIR-V (may be empty).
    pub name: String,
    /// Byte offset.
    pub offset: u32,
    /// Bytes.
    pub size: u32,
    /// Canonical layout: `float32`, `vec4<float32>`,
    /// `array<uint32, 4, stride 4>`, `struct{a: float32 @0, …}`.
    #[serde(rename = "type")]
    pub ty: String,
}

/// The kernel-level buffer-sizes table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BufferSizes {
    /// `[[buffer(N)]]`.
    pub buffer_index: u32,
    /// `u32` entries it must hold (0: bind any buffer).
    pub entries: u32,
}

/// A typed scalar value: a JSON boolean or number, or for a non-finite
/// float the string `nan`, `inf` or `-inf`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Value {
    /// `bool`.
    Bool(bool),
    /// Unsigned integers.
    UInt(u64),
    /// Signed integers.
    Int(i64),
    /// `float16`, `float32` (printed in their shortest exact form).
    Float(f32),
    /// `float64`.
    Double(f64),
    /// A non-finite float.
    NonFinite(NonFinite),
}

/// A float JSON cannot write as a number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum NonFinite {
    /// Not a number.
    #[serde(rename = "nan")]
    Nan,
    /// +∞.
    #[serde(rename = "inf")]
    Inf,
    /// −∞.
    #[serde(rename = "-inf")]
    NegInf,
}

/// An open specialization constant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FunctionConstant {
    /// SpecId = `[[function_constant(id)]]`.
    pub id: u32,
    /// Name in the SPIR-V (may be empty).
    pub name: String,
    /// The type Metal declares it with: set values as this type.
    #[serde(rename = "type")]
    pub ty: String,
    /// Default value.
    pub default: Value,
    /// Other declarations of the SpecId, each with its own type and default.
    pub aliases: Vec<SpecAlias>,
}

/// Another declaration of a function constant's SpecId.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpecAlias {
    /// Name in the SPIR-V (may be empty).
    pub name: String,
    /// Its type.
    #[serde(rename = "type")]
    pub ty: String,
    /// Its default.
    pub default: Value,
}

/// A specialization constant baked at build time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BakedConstant {
    /// SpecId.
    pub id: u32,
    /// Type.
    #[serde(rename = "type")]
    pub ty: String,
    /// The value baked.
    pub value: Value,
}

/// A Metal library.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Library {
    /// MSL version, `X.Y`.
    pub msl_version: String,
    /// `safe` or `fast`.
    pub math_mode: String,
    /// `macos` or `ios`.
    pub platform: String,
    /// 1 or 2.
    pub argument_buffer_tier: u32,
    /// Bytes of MSL source it carries (absent with `--no-msl`).
    pub msl_bytes: Option<u64>,
    /// The precompiled metallib, if any.
    pub metallib: Option<Metallib>,
}

/// A precompiled metallib.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Metallib {
    /// Bytes.
    pub bytes: u64,
    /// The toolchain that built it (`metal --version`, first line).
    pub toolchain: String,
}

/// How the executable was built.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Build {
    /// halc version.
    pub halc_version: String,
    /// SPIRV-Cross version.
    pub spirv_cross_version: String,
    /// Options that shape the output, canonical `key=value` strings.
    pub options: Vec<String>,
    /// SHA-256 over the inputs, hex.
    pub inputs_sha256: String,
}

impl Reflection {
    /// Loads, verifies and reflects an executable.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, LoadError> {
        Ok(Self::of(&Executable::load(bytes)?))
    }

    /// Reflects a verified executable.
    pub fn of(exe: &Executable<'_>) -> Self {
        let raw = exe.raw();
        Reflection {
            format: FORMAT.into(),
            version: VERSION,
            executable_format_version: raw.format_version().0,
            kernels: exe.entry_points().map(kernel).collect(),
            libraries: exe.libraries().map(library).collect(),
            build: exe.build_info().map(|b| Build {
                halc_version: b.halc_version().into(),
                spirv_cross_version: b.spirv_cross_version().into(),
                options: b.options().map(str::to_string).collect(),
                inputs_sha256: b.inputs_sha256().into(),
            }),
        }
    }

    /// Pretty JSON with a final newline: what halc writes.
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).expect("reflection serialises");
        s.push('\n');
        s
    }

    /// The kernels by name.
    pub fn by_name(&self) -> BTreeMap<&str, &Kernel> {
        self.kernels.iter().map(|k| (k.name.as_str(), k)).collect()
    }
}

fn kernel(kv: runtime_loader::Kernel<'_>) -> Kernel {
    let k = kv.raw();
    let dims: Vec<_> = k.threadgroup_size().iter().collect();
    let dim = |i: usize| dims.get(i).map(|d| d.size()).unwrap_or(1);
    let spec = |i: usize| dims.get(i).filter(|d| d.has_spec_id()).map(|d| d.spec_id());
    Kernel {
        name: kv.name().into(),
        entry_point: kv.entry_point().into(),
        source_file: kv.source_file().unwrap_or_default().into(),
        msl_function: kv.msl_name().into(),
        library: k.library(),
        threadgroup_size: Dims {
            x: dim(0),
            y: dim(1),
            z: dim(2),
        },
        threadgroup_size_spec_ids: Dims {
            x: spec(0),
            y: spec(1),
            z: spec(2),
        },
        max_total_threads_per_threadgroup: k.max_threads_per_threadgroup(),
        threadgroup_memory_bytes: k.threadgroup_memory_bytes(),
        binding_model: match k.binding_model() {
            fb::BindingModel::Discrete => "discrete",
            _ => "argument-buffers",
        }
        .into(),
        argument_buffers: kv
            .argument_buffers()
            .map(|a| ArgumentBuffer {
                set: a.set(),
                buffer_index: a.buffer_index(),
                size: a.size(),
                buffer_sizes: a.sizes_id().map(|id| ArgumentMember {
                    id,
                    byte_offset: a.sizes_byte_offset().unwrap_or_default(),
                }),
            })
            .collect(),
        resources: kv.bindings().map(resource).collect(),
        push_constants: kv.push_constants().map(|p| PushConstants {
            buffer_index: p.buffer_index,
            size: p.size,
            members: kv
                .push_constant_members()
                .map(|m| BlockMember {
                    name: m.name.unwrap_or_default().into(),
                    offset: m.offset,
                    size: m.size,
                    ty: m.ty.into(),
                })
                .collect(),
        }),
        buffer_sizes: k.sizes_buffer_index().map(|i| BufferSizes {
            buffer_index: i,
            entries: k.sizes_buffer_entries(),
        }),
        function_constants: kv
            .function_constants()
            .map(|f| FunctionConstant {
                id: f.id(),
                name: f.name().unwrap_or_default().into(),
                ty: scalar_type(f.type_()).into(),
                default: value(f.type_(), f.default_bits()),
                aliases: f
                    .aliases()
                    .map(|a| SpecAlias {
                        name: a.name().unwrap_or_default().into(),
                        ty: scalar_type(a.type_()).into(),
                        default: value(a.type_(), a.default_bits()),
                    })
                    .collect(),
            })
            .collect(),
        baked_constants: kv
            .baked_constants()
            .map(|b| BakedConstant {
                id: b.id(),
                ty: scalar_type(b.type_()).into(),
                value: value(b.type_(), b.value_bits()),
            })
            .collect(),
        capabilities: kv.capabilities().map(str::to_string).collect(),
    }
}

fn resource(b: runtime_loader::Binding<'_>) -> Resource {
    Resource {
        set: b.set(),
        binding: b.binding(),
        name: b.name().unwrap_or_default().into(),
        kind: match b.kind() {
            fb::BindingKind::StorageBuffer => "storage-buffer",
            fb::BindingKind::UniformBuffer => "uniform-buffer",
            fb::BindingKind::StorageImage => "storage-image",
            fb::BindingKind::SampledImage => "sampled-image",
            fb::BindingKind::Sampler => "sampler",
            fb::BindingKind::CombinedImageSampler => "combined-image-sampler",
            fb::BindingKind::UniformTexelBuffer => "uniform-texel-buffer",
            fb::BindingKind::StorageTexelBuffer => "storage-texel-buffer",
            fb::BindingKind::AccelerationStructure => "acceleration-structure",
            _ => "unknown",
        }
        .into(),
        access: match b.access() {
            fb::Access::ReadOnly => "read-only",
            fb::Access::WriteOnly => "write-only",
            _ => "read-write",
        }
        .into(),
        count: b.count(),
        min_size: b.min_size(),
        runtime_array_stride: Some(b.runtime_array_stride()).filter(|s| *s != 0),
        buffer_index: b.buffer_index(),
        texture_index: b.texture_index(),
        sampler_index: b.sampler_index(),
        id: b.id(),
        byte_offset: b.byte_offset(),
        sampler_id: b.sampler_id(),
        sampler_byte_offset: b.sampler_byte_offset(),
        buffer_sizes_index: b.sizes_index(),
        image_atomic_buffer: b.atomic_buffer().map(|a| ImageAtomicBuffer {
            buffer_index: a.buffer_index,
            id: a.id,
            byte_offset: a.byte_offset,
            row_alignment: a.row_alignment,
        }),
    }
}

fn library(l: runtime_loader::Library<'_>) -> Library {
    Library {
        msl_version: format!("{}.{}", l.msl_version().major(), l.msl_version().minor()),
        math_mode: match l.math_mode() {
            fb::MathMode::Fast => "fast",
            _ => "safe",
        }
        .into(),
        platform: match l.platform() {
            fb::Platform::IOS => "ios",
            _ => "macos",
        }
        .into(),
        argument_buffer_tier: match l.argument_buffer_tier() {
            fb::ArgumentBufferTier::Tier1 => 1,
            _ => 2,
        },
        msl_bytes: l.msl_bytes().map(|s| s.len() as u64),
        metallib: l.metallib().map(|m| Metallib {
            bytes: m.len() as u64,
            toolchain: l.metallib_toolchain().unwrap_or_default().into(),
        }),
    }
}

/// The reflection's name of a scalar type (Amber's names).
pub fn scalar_type(t: fb::ScalarType) -> &'static str {
    match t {
        fb::ScalarType::Bool => "bool",
        fb::ScalarType::Int8 => "int8",
        fb::ScalarType::UInt8 => "uint8",
        fb::ScalarType::Int16 => "int16",
        fb::ScalarType::UInt16 => "uint16",
        fb::ScalarType::Int32 => "int32",
        fb::ScalarType::UInt32 => "uint32",
        fb::ScalarType::Int64 => "int64",
        fb::ScalarType::UInt64 => "uint64",
        fb::ScalarType::Float16 => "float16",
        fb::ScalarType::Float32 => "float32",
        fb::ScalarType::Float64 => "float64",
        _ => "unknown",
    }
}

/// The typed value of `bits` (zero-extended raw bits) of type `t`.
pub fn value(t: fb::ScalarType, bits: u64) -> Value {
    // A signed value that is not negative is a `UInt`: JSON writes both as
    // the same number, which reads back as a `UInt`.
    let signed = |w: u32| match ((bits << (64 - w)) as i64) >> (64 - w) {
        v if v >= 0 => Value::UInt(v as u64),
        v => Value::Int(v),
    };
    let float = |f: f64| {
        if f.is_nan() {
            Value::NonFinite(NonFinite::Nan)
        } else if f == f64::INFINITY {
            Value::NonFinite(NonFinite::Inf)
        } else if f == f64::NEG_INFINITY {
            Value::NonFinite(NonFinite::NegInf)
        } else {
            Value::Double(f)
        }
    };
    let single = |f: f32| match float(f64::from(f)) {
        Value::Double(_) => Value::Float(f),
        v => v,
    };
    match t {
        fb::ScalarType::Bool => Value::Bool(bits != 0),
        fb::ScalarType::Int8 => signed(8),
        fb::ScalarType::Int16 => signed(16),
        fb::ScalarType::Int32 => signed(32),
        fb::ScalarType::Int64 => signed(64),
        fb::ScalarType::Float16 => single(crate::spirv::specialize::f16_bits_to_f32(bits as u16)),
        fb::ScalarType::Float32 => single(f32::from_bits(bits as u32)),
        fb::ScalarType::Float64 => float(f64::from_bits(bits)),
        _ => Value::UInt(bits),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_typed_not_bits() {
        let j = |v: Value| serde_json::to_string(&v).unwrap();
        assert_eq!(
            j(value(fb::ScalarType::Float32, 2.5f32.to_bits().into())),
            "2.5"
        );
        assert_eq!(
            j(value(fb::ScalarType::Float32, 0.1f32.to_bits().into())),
            "0.1"
        );
        assert_eq!(j(value(fb::ScalarType::Float16, 0x3c00)), "1.0");
        assert_eq!(j(value(fb::ScalarType::Int32, 0xffff_fffc)), "-4");
        assert_eq!(j(value(fb::ScalarType::Int8, 0x80)), "-128");
        assert_eq!(j(value(fb::ScalarType::UInt32, 0xffff_ffff)), "4294967295");
        assert_eq!(j(value(fb::ScalarType::Bool, 1)), "true");
        assert_eq!(
            j(value(fb::ScalarType::Float32, f32::NAN.to_bits().into())),
            "\"nan\""
        );
        assert_eq!(
            j(value(fb::ScalarType::Float64, f64::NEG_INFINITY.to_bits())),
            "\"-inf\""
        );
        assert_eq!(j(value(fb::ScalarType::Float64, 0.1f64.to_bits())), "0.1");
    }
}
