//! What reflection gives: per module ([`ModuleInfo`]) and per entry point
//! ([`EntryPoint`]) its workgroup size, resources and spec constants, as
//! plain values the later stages read.

use serde::{Deserialize, Serialize};

/// A module's reflection.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ModuleInfo {
    /// SPIR-V version (major, minor).
    pub version: (u8, u8),
    /// Every entry point in module order, of every execution model.
    pub entry_points: Vec<EntryPoint>,
    /// Specialization constants still open (not baked), sorted by id.
    pub spec_constants: Vec<SpecConstant>,
    /// Declared capabilities, by name, in module order.
    pub capabilities: Vec<String>,
}

/// Execution model of an entry point.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
pub enum ExecutionModel {
    /// A Vulkan compute shader.
    GLCompute,
    /// An OpenCL kernel (not supported by halc).
    Kernel,
    /// Any other stage (vertex, fragment, ...), by SPIR-V name.
    Other(&'static str),
}

impl std::fmt::Display for ExecutionModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExecutionModel::GLCompute => f.write_str("GLCompute"),
            ExecutionModel::Kernel => f.write_str("Kernel"),
            ExecutionModel::Other(s) => f.write_str(s),
        }
    }
}

/// One entry point.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct EntryPoint {
    /// Name as written in `OpEntryPoint`.
    pub name: String,
    /// Execution model.
    pub model: ExecutionModel,
    /// Workgroup size; `None` for non-compute models.
    pub workgroup_size: Option<WorkgroupSize>,
    /// Descriptor resources statically used, sorted by (set, binding).
    pub bindings: Vec<Binding>,
    /// Size in bytes of the push-constant block, if one is used.
    pub push_constant_size: Option<u32>,
    /// Bytes of statically sized threadgroup (`Workgroup`) memory used.
    pub threadgroup_memory_bytes: u64,
}

/// Workgroup size of a compute entry point.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
pub struct WorkgroupSize {
    /// x, y, z.
    pub dims: [WorkgroupDim; 3],
    /// Where the size came from.
    pub source: WorkgroupSource,
}

impl WorkgroupSize {
    /// Product of the three (default or baked) dimensions.
    pub fn total(&self) -> u64 {
        // Saturating: three u32 factors can overflow u64.
        self.dims
            .iter()
            .fold(1u64, |acc, d| acc.saturating_mul(u64::from(d.value)))
    }

    /// The three values.
    pub fn values(&self) -> [u32; 3] {
        [self.dims[0].value, self.dims[1].value, self.dims[2].value]
    }
}

/// Where a workgroup size was read from.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
pub enum WorkgroupSource {
    /// `OpExecutionMode LocalSize`.
    LocalSize,
    /// `OpExecutionModeId LocalSizeId`.
    LocalSizeId,
    /// A constant decorated `BuiltIn WorkgroupSize` (wins over the mode).
    Builtin,
}

/// One dimension of a workgroup size.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
pub struct WorkgroupDim {
    /// The value (the spec constant's default when `spec_id` is set).
    pub value: u32,
    /// The SpecId that can override it at pipeline creation.
    pub spec_id: Option<u32>,
}

/// What kind of descriptor a binding is.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum BindingKind {
    /// `StorageBuffer` (or `Uniform` + `BufferBlock`).
    StorageBuffer,
    /// `Uniform` + `Block`.
    UniformBuffer,
    /// Image with Sampled = 2.
    StorageImage,
    /// Image with Sampled = 1.
    SampledImage,
    /// `OpTypeSampler`.
    Sampler,
    /// `OpTypeSampledImage`.
    CombinedImageSampler,
    /// Buffer-dimension image with Sampled = 1.
    UniformTexelBuffer,
    /// Buffer-dimension image with Sampled = 2.
    StorageTexelBuffer,
    /// `OpTypeAccelerationStructureKHR`: an instance acceleration structure
    /// a ray query traverses (Metal's
    /// `acceleration_structure<instancing>`, bound at a `[[buffer(N)]]` or
    /// as an 8-byte resource id in an argument buffer).
    AccelerationStructure,
}

impl BindingKind {
    /// Words for messages.
    pub fn describe(self) -> &'static str {
        match self {
            BindingKind::StorageBuffer => "storage buffer",
            BindingKind::UniformBuffer => "uniform buffer",
            BindingKind::StorageImage => "storage image",
            BindingKind::SampledImage => "sampled image",
            BindingKind::Sampler => "sampler",
            BindingKind::CombinedImageSampler => "combined image-sampler",
            BindingKind::UniformTexelBuffer => "uniform texel buffer",
            BindingKind::StorageTexelBuffer => "storage texel buffer",
            BindingKind::AccelerationStructure => "acceleration structure",
        }
    }

    /// Whether Metal binds this as a buffer.
    pub fn is_buffer(self) -> bool {
        matches!(
            self,
            BindingKind::StorageBuffer | BindingKind::UniformBuffer
        )
    }
    /// Whether this takes a `[[buffer(N)]]` slot when discrete: buffers,
    /// and acceleration structures (`setAccelerationStructure:atBufferIndex:`).
    pub fn takes_buffer_slot(self) -> bool {
        self.is_buffer() || self == BindingKind::AccelerationStructure
    }
    /// Whether Metal binds this as a texture (combined ones included).
    pub fn is_texture(self) -> bool {
        matches!(
            self,
            BindingKind::StorageImage
                | BindingKind::SampledImage
                | BindingKind::CombinedImageSampler
                | BindingKind::UniformTexelBuffer
                | BindingKind::StorageTexelBuffer
        )
    }
    /// Whether Metal binds a sampler for this (combined ones included).
    pub fn has_sampler(self) -> bool {
        matches!(
            self,
            BindingKind::Sampler | BindingKind::CombinedImageSampler
        )
    }
}

/// How a kernel accesses a resource.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
pub enum Access {
    /// Never written.
    ReadOnly,
    /// Never read.
    WriteOnly,
    /// Read and written.
    ReadWrite,
}

/// One descriptor resource.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Binding {
    /// Descriptor set.
    pub set: u32,
    /// Binding number.
    pub binding: u32,
    /// Kind.
    pub kind: BindingKind,
    /// Access.
    pub access: Access,
    /// Array elements: 1 for a plain resource, 0 for a runtime-sized array.
    pub count: u32,
    /// For buffers, the fixed part of the block in bytes (excluding a
    /// trailing runtime array); 0 otherwise.
    pub min_size: u64,
    /// For buffers ending in a runtime array, its element stride.
    pub runtime_array_stride: u32,
    /// Whether the kernel reads this buffer's length (`OpArrayLength`).
    pub uses_array_length: bool,
    /// Variable name (or its block type's name) when the module has one.
    pub name: Option<String>,
    /// How many further variables view this descriptor (aliases; 0 when
    /// one variable is bound here).
    #[serde(skip_serializing_if = "is_zero")]
    pub aliases: u32,
    /// For images, texel buffers and combined image-samplers, the image
    /// type (`OpTypeImage`) the kernel declares.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image: Option<ImageType>,
}

/// An `OpTypeImage` as a kernel declares it.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct ImageType {
    /// `1d`, `2d`, `3d`, `cube` or `buffer`.
    pub dim: &'static str,
    /// An array of images (`image2DArray`).
    pub arrayed: bool,
    /// Multisampled.
    pub multisampled: bool,
    /// The type of a texel's components as the kernel reads them.
    pub sampled_type: ScalarType,
    /// The storage format the kernel declares, by its Vulkan name
    /// (`R8G8B8A8_UNORM`); `None` for `Unknown` (sampled images, and
    /// storage images without a format qualifier).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<&'static str>,
    /// The kernel performs atomic operations on its texels
    /// (`OpImageTexelPointer`, GLSL `imageAtomic*`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub atomic: bool,
}

/// The Vulkan format of a SPIR-V `ImageFormat` operand (`None`: `Unknown`
/// or not one with a Vulkan format).
pub fn image_format_name(image_format: u32) -> Option<&'static str> {
    Some(match image_format {
        1 => "R32G32B32A32_SFLOAT",
        2 => "R16G16B16A16_SFLOAT",
        3 => "R32_SFLOAT",
        4 => "R8G8B8A8_UNORM",
        5 => "R8G8B8A8_SNORM",
        6 => "R32G32_SFLOAT",
        7 => "R16G16_SFLOAT",
        8 => "B10G11R11_UFLOAT_PACK32",
        9 => "R16_SFLOAT",
        10 => "R16G16B16A16_UNORM",
        11 => "A2B10G10R10_UNORM_PACK32",
        12 => "R16G16_UNORM",
        13 => "R8G8_UNORM",
        14 => "R16_UNORM",
        15 => "R8_UNORM",
        16 => "R16G16B16A16_SNORM",
        17 => "R16G16_SNORM",
        18 => "R8G8_SNORM",
        19 => "R16_SNORM",
        20 => "R8_SNORM",
        21 => "R32G32B32A32_SINT",
        22 => "R16G16B16A16_SINT",
        23 => "R8G8B8A8_SINT",
        24 => "R32_SINT",
        25 => "R32G32_SINT",
        26 => "R16G16_SINT",
        27 => "R8G8_SINT",
        28 => "R16_SINT",
        29 => "R8_SINT",
        30 => "R32G32B32A32_UINT",
        31 => "R16G16B16A16_UINT",
        32 => "R8G8B8A8_UINT",
        33 => "R32_UINT",
        34 => "A2B10G10R10_UINT_PACK32",
        35 => "R32G32_UINT",
        36 => "R16G16_UINT",
        37 => "R8G8_UINT",
        38 => "R16_UINT",
        39 => "R8_UINT",
        _ => return None,
    })
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// The scalar type of a spec constant.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
pub enum ScalarType {
    /// `bool`.
    Bool,
    /// Signed integer of the given bit width.
    Int(u32),
    /// Unsigned integer of the given bit width.
    UInt(u32),
    /// Float of the given bit width.
    Float(u32),
}

impl ScalarType {
    /// Width in bits (1 for bool).
    pub fn bits(self) -> u32 {
        match self {
            ScalarType::Bool => 1,
            ScalarType::Int(w) | ScalarType::UInt(w) | ScalarType::Float(w) => w,
        }
    }
}

impl std::fmt::Display for ScalarType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ScalarType::Bool => f.write_str("bool"),
            ScalarType::Int(w) => write!(f, "i{w}"),
            ScalarType::UInt(w) => write!(f, "u{w}"),
            ScalarType::Float(w) => write!(f, "f{w}"),
        }
    }
}

/// A scalar value as its raw bits (zero-extended to 64 bits).
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
pub struct ScalarValue(pub u64);

/// A specialization constant.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SpecConstant {
    /// SpecId.
    pub id: u32,
    /// Type.
    pub ty: ScalarType,
    /// Default value bits.
    pub default: ScalarValue,
    /// Name when present.
    pub name: Option<String>,
    /// Other declarations of the same SpecId whose type or default differ
    /// (glslc's `local_size_x_id = 0` beside `constant_id = 0`): each reads
    /// the specialised value as its own type and keeps its own default.
    pub aliases: Vec<SpecAlias>,
}

/// Another declaration of a SpecId: same width as the first one.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SpecAlias {
    /// Type.
    pub ty: ScalarType,
    /// Default value bits.
    pub default: ScalarValue,
    /// Name when present.
    pub name: Option<String>,
}
