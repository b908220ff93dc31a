//! Amber compute tests: the script model ([`Script`]), the parser for
//! AmberScript and the older VkScript form ([`parse()`]), the data layouts
//! their buffers use ([`data`]) and the runner ([`run`]) that compiles each
//! pipeline with halc and executes it on the runtime-loader's CPU backend.
//!
//! A script is parsed into plain values first, so every malformed file is a
//! `file:line: message` error before anything runs.

pub mod data;
pub mod parse;
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
    /// Buffers by name, with their initial contents.
    pub buffers: Vec<Buffer>,
    /// Compute pipelines.
    pub pipelines: Vec<Pipeline>,
    /// What runs, in order.
    pub commands: Vec<Command>,
    /// Device features and extensions the script asks for, with the line.
    pub requirements: Vec<(String, usize)>,
    /// `DEVICE_PROPERTY` values the script requires, with the line.
    pub properties: Vec<(String, usize)>,
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
    /// Initial bytes (`elements × stride`).
    pub bytes: Vec<u8>,
    /// Sized by what the script writes and probes (VkScript), not
    /// declared: a pipeline whose block is larger gets it grown with zeros
    /// to the block's size (amber binds the smaller buffer; a driver reads
    /// the block's trailing padding from the allocation's slack, which
    /// halc's runtime, checking every binding's size, does not allow).
    pub implicit_size: bool,
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
    /// Buffer name.
    pub buffer: String,
    /// Byte offset of the view: `DESCRIPTOR_OFFSET`, plus the dynamic
    /// `OFFSET` of a `uniform_dynamic` / `storage_dynamic` binding (Vulkan
    /// adds the two).
    pub offset: u64,
    /// `DESCRIPTOR_RANGE` in bytes (`None`: the rest of the buffer).
    pub range: Option<u64>,
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
