//! Amber compute tests: the script model ([`Script`]), the parser for
//! AmberScript and the older VkScript form ([`parse()`]), the data layouts
//! their buffers use ([`data`]) and the runner ([`run`]) that compiles each
//! pipeline with halc and executes it on the runtime-loader's CPU backend.
//!
//! A script is parsed into plain values first, so every malformed file is a
//! `file:line: message` error before anything runs.

pub mod data;
pub mod parse;
pub mod probe;
#[cfg(all(unix, feature = "run"))]
pub mod run;
#[cfg(all(unix, feature = "run"))]
pub mod suite;

use data::{DataType, Layout};

pub use parse::{parse, ParseError};

/// A parsed test file.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Script {
    /// Shaders by name.
    pub shaders: Vec<Shader>,
    /// Buffers (and images) by name, with their initial contents.
    pub buffers: Vec<Buffer>,
    /// Samplers by name (`SAMPLER`).
    pub samplers: Vec<Sampler>,
    /// Compute pipelines.
    pub pipelines: Vec<Pipeline>,
    /// What runs, in order.
    pub commands: Vec<Command>,
    /// Device features and extensions the script asks for, with the line.
    pub requirements: Vec<(String, usize)>,
    /// `DEVICE_PROPERTY` values the script requires, with the line.
    pub properties: Vec<(String, usize)>,
    /// `ACCELERATION_STRUCTURE BOTTOM_LEVEL` blocks.
    pub bottom_levels: Vec<BottomLevel>,
    /// `ACCELERATION_STRUCTURE TOP_LEVEL` blocks, what `BIND
    /// ACCELERATION_STRUCTURE` binds.
    pub top_levels: Vec<TopLevel>,
}

/// An `ACCELERATION_STRUCTURE BOTTOM_LEVEL name … END`.
#[derive(Debug, Clone, PartialEq)]
pub struct BottomLevel {
    /// Name.
    pub name: String,
    /// Its geometries.
    pub level: runtime_loader::scene::BottomLevel,
    /// Line of the declaration.
    pub line: usize,
}

/// An `ACCELERATION_STRUCTURE TOP_LEVEL name … END`: the scene both sides
/// build, its bottom levels those its instances place, in the order they
/// are first placed.
#[derive(Debug, Clone, PartialEq)]
pub struct TopLevel {
    /// Name.
    pub name: String,
    /// The scene.
    pub scene: runtime_loader::scene::TopLevel,
    /// Line of the declaration.
    pub line: usize,
}

/// Where a shader's SPIR-V comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShaderSource {
    /// GLSL, compiled with glslc.
    Glsl(String),
    /// SPIR-V assembly, assembled with SPIRV-Tools.
    SpirvAsm(String),
    /// SPIR-V words as hex bytes (`SPIRV-HEX`), or a binary module read
    /// from a file (`SPIRV-BIN`).
    SpirvHex(Vec<u8>),
}

/// One compute shader.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shader {
    /// Name.
    pub name: String,
    /// Source.
    pub source: ShaderSource,
    /// `TARGET_ENV` given with the shader (`spv1.3`, `vulkan1.1`, ...).
    pub target_env: Option<String>,

    /// Line of the `SHADER` command.
    pub line: usize,
    /// Its source follows that line in the script (not from a `FILE`).
    pub inline: bool,
}

/// A buffer and its initial contents.
#[derive(Debug, Clone, PartialEq)]
pub struct Buffer {
    /// Name.
    pub name: String,
    /// Element type.
    pub ty: DataType,
    /// Element layout.
    pub layout: Layout,
    /// Initial bytes (`elements × stride`; an image's texels, tightly
    /// packed, row by row, slice by slice).
    pub bytes: Vec<u8>,
    /// Its texel format, when it has one: a format given as its data type
    /// (`DATA_TYPE R8G8B8A8_UNORM`, what a texel buffer is bound with) or
    /// an `IMAGE`'s.
    pub format: Option<vulkan_reference::Format>,
    /// The image it is, when declared with `IMAGE`.
    pub image: Option<ImageShape>,
    /// Sized by what the script writes and probes (VkScript), not
    /// declared: a pipeline whose block is larger gets it grown with zeros
    /// to the block's size (amber binds the smaller buffer; a driver reads
    /// the block's trailing padding from the allocation's slack, which
    /// halc's runtime, checking every binding's size, does not allow).
    pub implicit_size: bool,
    /// Line of the declaration.
    pub line: usize,
}

/// An `IMAGE`'s dimensionality, size and mip levels (one sample).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImageShape {
    /// `MIP_LEVELS` (1 unless given).
    pub mip_levels: u32,
    /// 1, 2 or 3 (`DIM_1D`, `DIM_2D`, `DIM_3D`).
    pub dims: u32,
    /// Width in texels.
    pub width: u32,
    /// Height (1 for `DIM_1D`).
    pub height: u32,
    /// Depth (1 unless `DIM_3D`).
    pub depth: u32,
}

impl ImageShape {
    /// Texels in the image.
    pub fn texels(&self) -> u64 {
        u64::from(self.width) * u64::from(self.height) * u64::from(self.depth)
    }

    /// The image of `format` in this shape, as both sides make it.
    pub fn desc(&self, format: vulkan_reference::Format) -> vulkan_reference::ImageDesc {
        use vulkan_reference::ImageDim;
        vulkan_reference::ImageDesc {
            dim: match self.dims {
                1 => ImageDim::D1,
                2 => ImageDim::D2,
                _ => ImageDim::D3,
            },
            format,
            width: self.width,
            height: self.height,
            depth: self.depth,
            layers: 1,
            mip_levels: self.mip_levels,
        }
    }

    /// Every level's texels as amber uploads an image of `format` from
    /// `bytes` (level 0's): each level copied from the start of the
    /// buffer (amber's `TransferImage::CopyToDevice` gives every level's
    /// copy region a buffer offset of 0), so level `k` holds the first
    /// texels of the data, packed at its size.
    pub fn upload(&self, format: vulkan_reference::Format, bytes: &[u8]) -> Vec<u8> {
        let desc = self.desc(format);
        (0..self.mip_levels)
            .flat_map(|k| &bytes[..(desc.level_bytes(k) as usize).min(bytes.len())])
            .copied()
            .collect()
    }
}

/// What amber reads back of an image `desc` whose levels are `levels`
/// (every level, level 0 first): level 0's bytes, each further level
/// copied over their start in turn (amber's `CopyToHost` copies every level
/// to offset 0 of one buffer).
pub fn readback(desc: &vulkan_reference::ImageDesc, levels: &[u8]) -> Vec<u8> {
    let first = (desc.level_bytes(0) as usize).min(levels.len());
    let mut out = levels[..first].to_vec();
    let mut at = first;
    for k in 1..desc.mip_levels {
        let n = desc.level_bytes(k) as usize;
        if let Some(level) = levels.get(at..at + n) {
            out[..n.min(first)].copy_from_slice(&level[..n.min(first)]);
        }
        at += n;
    }
    out
}

/// A `SAMPLER`.
#[derive(Debug, Clone, PartialEq)]
pub struct Sampler {
    /// Name.
    pub name: String,
    /// What it samples with (filters, address modes, border, LOD range,
    /// coordinates), as the Vulkan reference takes it.
    pub desc: vulkan_reference::SamplerDesc,
    /// Line of the declaration.
    pub line: usize,
}

/// How a buffer is bound to a pipeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BindKind {
    /// A storage buffer at (set, binding).
    Storage {
        /// Descriptor set.
        set: u32,
        /// Binding.
        binding: u32,
    },
    /// A uniform buffer at (set, binding).
    Uniform {
        /// Descriptor set.
        set: u32,
        /// Binding.
        binding: u32,
    },
    /// The push-constant block.
    PushConstant,
    /// An image as a storage image at (set, binding).
    StorageImage {
        /// Descriptor set.
        set: u32,
        /// Binding.
        binding: u32,
    },
    /// An image as a sampled image at (set, binding).
    SampledImage {
        /// Descriptor set.
        set: u32,
        /// Binding.
        binding: u32,
    },
    /// An image with a sampler ([`BindElement::sampler`]) at (set,
    /// binding).
    CombinedImageSampler {
        /// Descriptor set.
        set: u32,
        /// Binding.
        binding: u32,
    },
    /// A sampler (`BIND SAMPLER`; [`BindElement::buffer`] names it) at
    /// (set, binding).
    Sampler {
        /// Descriptor set.
        set: u32,
        /// Binding.
        binding: u32,
    },
    /// A buffer with a format as a uniform texel buffer at (set, binding).
    UniformTexelBuffer {
        /// Descriptor set.
        set: u32,
        /// Binding.
        binding: u32,
    },
    /// A buffer with a format as a storage texel buffer at (set, binding).
    StorageTexelBuffer {
        /// Descriptor set.
        set: u32,
        /// Binding.
        binding: u32,
    },
    /// A top-level acceleration structure (`BIND ACCELERATION_STRUCTURE`;
    /// [`BindElement::buffer`] names it) at (set, binding).
    AccelerationStructure {
        /// Descriptor set.
        set: u32,
        /// Binding.
        binding: u32,
    },
}

impl BindKind {
    /// The (set, binding) of a descriptor; `None` for push constants.
    pub fn slot(&self) -> Option<(u32, u32)> {
        match *self {
            BindKind::PushConstant => None,
            BindKind::Storage { set, binding }
            | BindKind::Uniform { set, binding }
            | BindKind::StorageImage { set, binding }
            | BindKind::SampledImage { set, binding }
            | BindKind::CombinedImageSampler { set, binding }
            | BindKind::Sampler { set, binding }
            | BindKind::UniformTexelBuffer { set, binding }
            | BindKind::StorageTexelBuffer { set, binding }
            | BindKind::AccelerationStructure { set, binding } => Some((set, binding)),
        }
    }

    /// Whether a kernel may write what is bound (storage buffers, images
    /// and texel buffers): what `--compare` compares after a `RUN`.
    pub fn writable(&self) -> bool {
        matches!(
            self,
            BindKind::Storage { .. }
                | BindKind::StorageImage { .. }
                | BindKind::StorageTexelBuffer { .. }
        )
    }
}

/// One `BIND BUFFER` or `BIND BUFFER_ARRAY`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bind {
    /// What is bound: one element, or one per element of a descriptor
    /// array (`BIND BUFFER_ARRAY`).
    pub elements: Vec<BindElement>,
    /// Where.
    pub kind: BindKind,
    /// Line.
    pub line: usize,
}

/// One buffer of a binding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BindElement {
    /// Buffer (or image) name; a sampler's for [`BindKind::Sampler`].
    pub buffer: String,
    /// The sampler of a [`BindKind::CombinedImageSampler`].
    pub sampler: Option<String>,
    /// Byte offset of the view: `DESCRIPTOR_OFFSET`, plus the dynamic
    /// `OFFSET` of a `uniform_dynamic` / `storage_dynamic` binding (Vulkan
    /// adds the two).
    pub offset: u64,
    /// `DESCRIPTOR_RANGE` in bytes (`None`: the rest of the buffer).
    pub range: Option<u64>,
    /// `BASE_MIP_LEVEL` of an image binding: the view's first level.
    pub base_mip_level: u32,
}

impl Bind {
    /// The buffer of a single (non-array) binding, or the first element's.
    pub fn buffer(&self) -> &str {
        &self.elements[0].buffer
    }
}

/// A `SPECIALIZE id AS type value`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Specialize {
    /// SpecId.
    pub id: u32,
    /// Type as written (`uint32`, `int32`, `float`).
    pub ty: String,
    /// Value as written.
    pub value: String,
}

/// A compute pipeline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pipeline {
    /// Name.
    pub name: String,
    /// The attached shader.
    pub shader: String,
    /// Entry point (default `main`).
    pub entry: String,
    /// Specialization constants.
    pub specialize: Vec<Specialize>,
    /// Bound buffers.
    pub binds: Vec<Bind>,
    /// `SUBGROUP … REQUIRED_SIZE`: the subgroup (SIMD-group) size the
    /// test's expectations assume.
    pub subgroup_size: Option<RequiredSize>,
    /// `SHADER_OPTIMIZATION` passes, as spirv-opt flags (`--inline-entry-
    /// points-exhaustive`), run on the shader's SPIR-V before anything else
    /// sees it.
    pub optimizations: Vec<String>,
    /// `SUBGROUP … FULLY_POPULATED on`: every subgroup of a workgroup is
    /// full, so the workgroup's width must be a multiple of the subgroup
    /// size (Vulkan's `REQUIRE_FULL_SUBGROUPS`).
    pub full_subgroups: bool,
    /// `SUBGROUP … VARYING_SIZE on`: the subgroup size may vary (Vulkan's
    /// `ALLOW_VARYING_SUBGROUP_SIZE`); the kernel reads it at run time.
    pub varying_subgroups: bool,
    /// Line of the `PIPELINE` command.
    pub line: usize,
}

/// A pipeline's `SUBGROUP … REQUIRED_SIZE`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RequiredSize {
    /// This many lanes.
    Exact(u32),
    /// The device's smallest subgroup size.
    Min,
    /// The device's largest subgroup size.
    Max,
}

/// A comparison of `EXPECT … IDX`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compare {
    /// `EQ` / `==` (within the tolerance, if one is given).
    Eq,
    /// `NE` / `!=`.
    Ne,
    /// `LT` / `<`.
    Lt,
    /// `LE` / `<=`.
    Le,
    /// `GT` / `>`.
    Gt,
    /// `GE` / `>=`.
    Ge,
}

/// A tolerance of `TOLERANCE` / `tolerance`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Tolerance {
    /// Absolute difference.
    Absolute(f64),
    /// Percentage of the expected value.
    Percent(f64),
}

/// What an `EXPECT` checks.
#[derive(Debug, Clone, PartialEq)]
pub enum Check {
    /// Components from byte offset `offset`, read as `ty` in `layout`.
    Values {
        /// Byte offset.
        offset: usize,
        /// Component type and layout to read.
        ty: DataType,
        /// Layout of the elements.
        layout: Layout,
        /// Comparison.
        compare: Compare,
        /// Expected values as written.
        values: Vec<String>,
        /// Per-component tolerances (empty: exact).
        tolerance: Vec<Tolerance>,
    },
    /// `EQ_BUFFER other`.
    EqBuffer(String),
    /// `RMSE_BUFFER other TOLERANCE t`.
    RmseBuffer(String, f64),
    /// `EQ_HISTOGRAM_EMD_BUFFER other TOLERANCE t`: the earth mover's
    /// distance between the two buffers' per-channel histograms (four 8-bit
    /// channels), as amber computes it.
    HistogramEmd(String, f64),
    /// `IDX x y SIZE w h EQ_RGB r g b` / `EQ_RGBA r g b a [TOLERANCE …]`:
    /// every texel of a rectangle compared with one colour, as amber's
    /// `Verifier::Probe` compares it.
    Probe(Probe),
}

/// A rectangle probe of an image (or a buffer with a format).
#[derive(Debug, Clone, PartialEq)]
pub struct Probe {
    /// The texel format the data is read as.
    pub format: vulkan_reference::Format,
    /// The frame's width and height (an image's level 0, its first slice;
    /// 1x1 for a buffer, as amber sizes one).
    pub frame: (u32, u32),
    /// Left, top, width, height.
    pub rect: (u32, u32, u32, u32),
    /// `EQ_RGBA` (alpha compared) rather than `EQ_RGB`.
    pub rgba: bool,
    /// Expected R, G, B, A, each the script's 0-255 value over 255 (as
    /// amber takes them, whatever the format).
    pub expected: [f64; 4],
    /// `TOLERANCE` values (empty: amber's default of 0.002).
    pub tolerance: Vec<Tolerance>,
}

/// One step of a script.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// `RUN pipeline x y z`.
    Run {
        /// Pipeline name.
        pipeline: String,
        /// Workgroups.
        groups: [u32; 3],
        /// Line.
        line: usize,
    },
    /// `EXPECT`.
    Expect {
        /// Buffer name.
        buffer: String,
        /// What to check.
        check: Check,
        /// Line.
        line: usize,
    },
    /// `COPY from TO to`.
    Copy {
        /// Source buffer.
        from: String,
        /// Destination buffer.
        to: String,
        /// Line.
        line: usize,
    },
    /// Writes bytes into a buffer (VkScript `ssbo … subdata`, `uniform`).
    Write {
        /// Buffer name.
        buffer: String,
        /// Byte offset.
        offset: usize,
        /// Bytes.
        bytes: Vec<u8>,
        /// Line.
        line: usize,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Amber copies every level from and to the start of the image's data.
    #[test]
    fn mip_levels_upload_and_read_back_as_amber_copies_them() {
        let shape = ImageShape {
            mip_levels: 3,
            dims: 2,
            width: 4,
            height: 4,
            depth: 1,
        };
        let f = vulkan_reference::Format::by_name("R8_UNORM").unwrap();
        let data: Vec<u8> = (0..16).collect();
        let all = shape.upload(f, &data);
        assert_eq!(all.len(), 16 + 4 + 1);
        assert_eq!(all[16..], [0, 1, 2, 3, 0]);
        let mut levels = all.clone();
        levels[16..].copy_from_slice(&[40, 41, 42, 43, 99]);
        let back = readback(&shape.desc(f), &levels);
        let mut want = data.clone();
        want[..4].copy_from_slice(&[99, 41, 42, 43]);
        assert_eq!(back, want);
        // One level: the data as it is.
        let one = ImageShape {
            mip_levels: 1,
            ..shape
        };
        assert_eq!(one.upload(f, &data), data);
        assert_eq!(readback(&one.desc(f), &data), data);
    }
}
