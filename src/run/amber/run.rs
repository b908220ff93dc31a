//! Runs a parsed [`Script`]: every pipeline's shader goes through
//! [`crate::compile`] (the same path as `halc compile`, with the caller's
//! options) and runs on one or two **sides**:
//!
//! - `metal-on-cpu`: the generated MSL, loaded and verified by the
//!   runtime-loader and executed by its CPU backend;
//! - `vulkan`: the original SPIR-V on a Vulkan driver (lavapipe by default),
//!   through the `vulkan-reference` crate.
//!
//! With both (`--compare`), every command is applied to both sides; after
//! every `RUN` every storage buffer the pipeline binds is compared element
//! by element (integers exactly, floats within a ULP tolerance, NaN equal to
//! NaN), and an `EXPECT` that holds on one side only is reported as such.
//!
//! Subgroup results depend on the subgroup width: the CPU side runs a
//! pipeline with SIMD groups of its `SUBGROUP … REQUIRED_SIZE` when it has
//! one, else, comparing a kernel that uses subgroup operations, of the
//! Vulkan device's subgroup size, else of Apple's 32 lanes
//! (`Runner::simd_width`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use runtime_loader::cpu::{self, ResourceBindings};
use runtime_loader::memory::MemoryType;
use runtime_loader::plan::{Grid, SpecValue};
use runtime_loader::Executable;
use spirv_tools::assembler::Assembler;

use super::data::{decode, encode, Layout, Scalar, Value};
use super::{
    BindKind, Check, Command, Compare, Pipeline, RequiredSize, Script, ShaderSource, Tolerance,
};
use crate::model::{Input, Options};

/// Where a script runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Sides {
    /// The generated MSL on the CPU backend (default).
    #[default]
    MetalOnCpu,
    /// The original SPIR-V on the Vulkan reference (`--reference vulkan`).
    Vulkan,
    /// Both, compared buffer by buffer (`--compare`).
    Compare,
}

/// How `halc test` runs scripts.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Compile options for every pipeline (binding model, MSL version, …).
    /// `entries` and `specs` are set per pipeline.
    pub compile: Options,
    /// SPIR-V target for GLSL and SPIR-V assembly when a shader gives none:
    /// `spv1.0` … `spv1.6` or `vulkan1.0` … `vulkan1.3` (default `spv1.3`,
    /// Vulkan 1.1, which runs most compute tests).
    pub target_env: String,
    /// The glslc to run (default: `$HALC_GLSLC`, else `glslc` on `PATH`).
    pub glslc: Option<PathBuf>,
    /// Where glslc's outputs are kept between runs, by the shader's text,
    /// glslc and its arguments ([`GlslCache`](crate::build::glsl::GlslCache));
    /// `None`: glslc runs for every shader.
    pub glslc_cache: Option<PathBuf>,
    /// Which sides run.
    pub sides: Sides,
    /// Vulkan device (substring of its name; default lavapipe).
    pub vulkan_device: Option<String>,
    /// Runs the Vulkan side in a child process, `PROGRAM __vulkan-reference`
    /// (the `halc` binary), so that a driver crash fails the test instead of
    /// ending this process; `None`: in this process.
    pub vulkan_program: Option<PathBuf>,
    /// Longest time one dispatch may take on the Vulkan side.
    pub vulkan_timeout: Duration,
    /// Float tolerance of `--compare`, in units in the last place.
    pub ulp: u32,
    /// Changes each compiled pipeline before it runs on the Metal side:
    /// `None` in real use. Tests inject miscompiles with it to show that
    /// `--compare` catches them.
    pub tamper: Option<fn(&mut crate::model::Compiled)>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            compile: Options::default(),
            target_env: "spv1.3".into(),
            glslc: None,
            glslc_cache: None,
            sides: Sides::MetalOnCpu,
            vulkan_device: None,
            vulkan_program: None,
            vulkan_timeout: Duration::from_secs(60),
            ulp: 4,
            tamper: None,
        }
    }
}

/// How one test ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Every expectation held (and, comparing, both sides agreed).
    Pass,
    /// Something failed: the first failure, with its line.
    Fail(String),
    /// The test needs something halc or Metal cannot do.
    Skip(String),
}

/// Device features a Metal device (and halc) provides. Anything else makes
/// a test a skip.
const FEATURES: &[&str] = &[
    "shaderInt16",
    "shaderInt64",
    "shaderFloat16",
    "shaderInt8",
    "Float16Int8Features.shaderFloat16",
    "Float16Int8Features.shaderInt8",
    "Storage16BitFeatures.storageBuffer16BitAccess",
    "Storage16BitFeatures.uniformAndStorageBuffer16BitAccess",
    "Storage8BitFeatures.storageBuffer8BitAccess",
    "Storage8BitFeatures.uniformAndStorageBuffer8BitAccess",
    "SubgroupSupportedOperations.basic",
    "SubgroupSupportedOperations.vote",
    "SubgroupSupportedOperations.arithmetic",
    "SubgroupSupportedOperations.ballot",
    "SubgroupSupportedOperations.shuffle",
    "SubgroupSupportedOperations.shuffleRelative",
    "SubgroupSupportedOperations.quad",
    "SubgroupSupportedOperations.clustered",
    "SubgroupSupportedStages.compute",
    "VulkanMemoryModelFeatures.vulkanMemoryModel",
    "VK_KHR_vulkan_memory_model",
    // Metal's SIMD width is fixed (32 lanes on Apple GPUs): subgroup size
    // control asks for a size (`SUBGROUP … REQUIRED_SIZE`) or for full
    // subgroups (`FULLY_POPULATED`), which a pipeline gets when its
    // threadgroup is a multiple of the width (checked at each RUN).
    "SubgroupSizeControl.subgroupSizeControl",
    "SubgroupSizeControl.computeFullSubgroups",
    "VK_EXT_subgroup_size_control",
    "VK_KHR_shader_subgroup_uniform_control_flow",
    // SPIRV-Cross zeroes a Workgroup variable with a null initializer at
    // the start of the threadgroup, then a barrier
    // (tests/amber/zero_initialize_workgroup_memory.amber).
    "VK_KHR_zero_initialize_workgroup_memory",
    "VariablePointerFeatures.variablePointersStorageBuffer",
    "VariablePointerFeatures.variablePointers",
    "VK_KHR_variable_pointers",
    "ZeroInitializeWorkgroupMemoryFeatures.shaderZeroInitializeWorkgroupMemory",
    "shaderStorageBufferArrayDynamicIndexing",
    "shaderUniformBufferArrayDynamicIndexing",
    "VK_KHR_storage_buffer_storage_class",
    "VK_KHR_16bit_storage",
    "VK_KHR_8bit_storage",
    "VK_KHR_shader_float16_int8",
    "VK_KHR_shader_subgroup_extended_types",
];

/// Requirements that name no device capability: the SPIR-V version
/// (`VK_KHR_spirv_1_4` raises the shaders' target environment, see
/// `Runner::target_env`), and extensions every device halc's Metal target
/// stands for has by construction (Vulkan 1.1's instance extension).
const NOT_CAPABILITIES: &[&str] = &["VK_KHR_spirv_1_4", "VK_KHR_get_physical_device_properties2"];

/// Parses and runs one script whose `FILE`s are named relative to the
/// working directory ([`run_in`]).
pub fn run(name: &str, text: &str, device: Option<&cpu::Device>, opts: &RunOptions) -> Outcome {
    run_in(name, text, Path::new(""), device, opts)
}

/// Parses and runs one script. `name` is how failures name the file; `dir`
/// is where its `FILE`s are (the script's directory); `device` is the CPU
/// backend (needed unless only Vulkan runs).
pub fn run_in(
    name: &str,
    text: &str,
    dir: &Path,
    device: Option<&cpu::Device>,
    opts: &RunOptions,
) -> Outcome {
    let script = match super::parse::parse_in(text, dir) {
        Ok(s) => s,
        Err(e) if e.unsupported => {
            return Outcome::Skip(format!("{name}:{}: {}", e.line, e.message))
        }
        Err(e) => return Outcome::Fail(format!("{name}:{}: {}", e.line, e.message)),
    };
    if opts.sides != Sides::Vulkan {
        if let Some((what, line)) = script.requirements.iter().find(|(r, _)| {
            !FEATURES.contains(&r.as_str()) && !NOT_CAPABILITIES.contains(&r.as_str())
        }) {
            return Outcome::Skip(format!(
                "{name}:{line}: requires {what}, which halc's Metal target does not provide"
            ));
        }
        // Float-controls properties (denormals preserved or flushed,
        // rounding modes) are not part of Metal's contract: the Metal
        // Shading Language specification leaves them to the GPU.
        if let Some((what, line)) = script.properties.first() {
            return Outcome::Skip(format!(
                "{name}:{line}: requires device property {what}, which Metal does not guarantee"
            ));
        }
    }
    // Every pipeline's SPIR-V, made once: the Vulkan device is created
    // with what the modules need.
    let modules: BTreeMap<String, Result<Vec<u8>, String>> = script
        .pipelines
        .iter()
        .map(|p| (p.name.clone(), module(name, &script, p, opts)))
        .collect();
    let mut sides: Vec<Box<dyn Side + '_>> = Vec::new();
    if opts.sides != Sides::Vulkan {
        let Some(device) = device else {
            return Outcome::Fail(format!("{name}: no CPU device"));
        };
        sides.push(Box::new(CpuSide {
            device,
            implicit: script
                .buffers
                .iter()
                .map(|b| (b.name.clone(), b.implicit_size))
                .collect(),
            widths: BTreeMap::new(),
            buffers: BTreeMap::new(),
        }));
    }
    if opts.sides != Sides::MetalOnCpu {
        // What the script requests is enabled or the test skipped, as in
        // amber; what its modules need (features of their capabilities,
        // extensions of their OpExtensions) is enabled where the device
        // has it, as the Vulkan CTS registers a test with its requirements.
        let mut optional_features = Vec::new();
        for bytes in modules.values().flatten() {
            if let Ok(words) = crate::spirv::Words::from_bytes(bytes) {
                optional_features.extend(
                    vulkan_reference::required_by_module(words.as_slice()).unwrap_or_default(),
                );
            }
        }
        optional_features.sort();
        optional_features.dedup();
        let options = vulkan_reference::ReferenceOptions {
            device: opts.vulkan_device.clone(),
            features: script.requirements.iter().map(|(r, _)| r.clone()).collect(),
            optional_features,
            properties: script.properties.iter().map(|(r, _)| r.clone()).collect(),
            timeout: opts.vulkan_timeout,
            ..Default::default()
        };
        match vulkan_reference::Session::new(&options, vulkan_place(opts.vulkan_program.as_deref()))
        {
            Ok(reference) => sides.push(Box::new(VulkanSide {
                reference,
                buffers: BTreeMap::new(),
                pipelines: BTreeMap::new(),
            })),
            Err(e @ vulkan_reference::Error::UnsupportedFeatures { .. }) => {
                return Outcome::Skip(format!("{name}: vulkan: {e}"))
            }
            Err(e) => return Outcome::Fail(format!("{name}: vulkan: {e}")),
        }
    }
    let mut runner = Runner {
        name,
        script: &script,
        opts,
        sides,
        modules,
        prepared: BTreeMap::new(),
    };
    match runner.run() {
        Ok(()) => Outcome::Pass,
        Err(Stop::Fail(m)) => Outcome::Fail(m),
        Err(Stop::Skip(m)) => Outcome::Skip(m),
    }
}

/// Why a run stopped early.
enum Stop {
    Fail(String),
    Skip(String),
}

impl From<String> for Stop {
    fn from(m: String) -> Self {
        Stop::Fail(m)
    }
}

/// A pipeline's shader, prepared once for every side.
struct Prepared {
    /// The SPIR-V the test gives (assembled, compiled from GLSL or read,
    /// then through its `SHADER_OPTIMIZATION` passes): the Vulkan side runs
    /// it as it is, the Metal side compiles it with halc.
    spirv: Vec<u32>,
    /// halc's translation, when a Metal side runs.
    metal: Option<MetalPrepared>,
    /// `--spec` values as Vulkan specialization data.
    vulkan_specs: Vec<(u32, Vec<u8>)>,
    /// Lanes per SIMD group on the CPU side ([`Runner::simd_width`]).
    simd_width: u32,
}

/// A pipeline's shader as halc compiled it.
struct MetalPrepared {
    /// halc's executable of its one kernel.
    executable: Vec<u8>,
    /// The kernel's name in it.
    kernel: String,
    /// Function-constant values set at pipeline creation (the rest of the
    /// `SPECIALIZE` values were baked).
    values: Vec<SpecValue>,
    /// Push-constant block size.
    push_size: u32,
    /// Whether the module uses subgroup operations.
    subgroups: bool,
    /// The fixed size of each buffer binding's block.
    min_sizes: BTreeMap<(u32, u32), u64>,
}

/// One place a script runs.
trait Side {
    fn label(&self) -> &'static str;
    fn create(&mut self, name: &str, bytes: &[u8]) -> Result<(), String>;
    fn read(&self, name: &str) -> Result<Vec<u8>, String>;
    fn write(&mut self, name: &str, offset: usize, bytes: &[u8]) -> Result<(), String>;
    fn dispatch(
        &mut self,
        p: &Pipeline,
        prepared: &Prepared,
        push: &[u8],
        groups: [u32; 3],
    ) -> Result<(), String>;
    /// The subgroup size, if fixed by the device (Vulkan); `None` when the
    /// side runs any width it is given (the CPU backend).
    fn subgroup_size(&self) -> Option<u32>;
    /// The subgroup sizes a pipeline may require, if the device fixes them
    /// (Vulkan).
    fn subgroup_range(&self) -> Option<(u32, u32)> {
        None
    }
    /// Integer divisions by zero completed so far (the CPU backend counts
    /// them; undefined in SPIR-V, a GPU gives some value).
    fn undefined_divisions(&self) -> u64 {
        0
    }
}

struct CpuSide<'d> {
    device: &'d cpu::Device,
    /// Buffers sized by the script's writes ([`super::Buffer::implicit_size`]).
    implicit: BTreeMap<String, bool>,
    /// The device at other SIMD widths, made on first use.
    widths: BTreeMap<u32, cpu::Device>,
    buffers: BTreeMap<String, cpu::Buffer>,
}

impl CpuSide<'_> {
    /// The device emulating SIMD groups of `width` lanes.
    fn device(&mut self, width: u32) -> Result<&cpu::Device, String> {
        if width == self.device.simd_width() {
            return Ok(self.device);
        }
        if !self.widths.contains_key(&width) {
            let d = self
                .device
                .with_simd_width(width)
                .map_err(|e| e.to_string())?;
            self.widths.insert(width, d);
        }
        Ok(&self.widths[&width])
    }
}

impl Side for CpuSide<'_> {
    fn label(&self) -> &'static str {
        "metal-on-cpu"
    }

    fn undefined_divisions(&self) -> u64 {
        self.device.undefined_divisions()
    }

    fn create(&mut self, name: &str, bytes: &[u8]) -> Result<(), String> {
        let b = self
            .device
            .buffer_with_data(bytes, MemoryType::HostVisible)
            .map_err(|e| e.to_string())?;
        self.buffers.insert(name.to_string(), b);
        Ok(())
    }

    fn read(&self, name: &str) -> Result<Vec<u8>, String> {
        buffer(&self.buffers, name)?
            .to_vec()
            .map_err(|e| e.to_string())
    }

    fn write(&mut self, name: &str, offset: usize, bytes: &[u8]) -> Result<(), String> {
        buffer(&self.buffers, name)?
            .write(offset as u64, bytes)
            .map_err(|e| e.to_string())
    }

    fn dispatch(
        &mut self,
        p: &Pipeline,
        prepared: &Prepared,
        push: &[u8],
        groups: [u32; 3],
    ) -> Result<(), String> {
        let metal = prepared.metal.as_ref().ok_or("no Metal translation")?;
        // A buffer bound as push constants must be the block's size, as the
        // runtime API requires of setBytes: shorter, the kernel would read
        // bytes never given; longer, the test's layout is not the kernel's.
        // (VkScript's push data is sized by its writes: the block's
        // trailing padding is zeros.)
        if let Some(b) = p.binds.iter().find(|b| b.kind == BindKind::PushConstant) {
            if !*self.implicit.get(b.buffer()).unwrap_or(&false)
                && push.len() != metal.push_size as usize
            {
                return Err(format!(
                    "the buffer `{}` bound as push constants holds {} bytes; the kernel's push-constant block is {} bytes",
                    b.buffer(),
                    push.len(),
                    metal.push_size
                ));
            }
        }
        let mut push = push.to_vec();
        push.resize(metal.push_size as usize, 0);
        let push = &push[..];
        let exe = Executable::load(&metal.executable).map_err(|e| e.to_string())?;
        let device = self.device(prepared.simd_width)?.clone();
        let program = device.load(exe).map_err(|e| e.to_string())?;
        let kernel = exe.entry_point(&metal.kernel).ok_or("no kernel")?;
        let pipeline = program
            .pipeline(&metal.kernel, &metal.values)
            .map_err(|e| e.to_string())?;
        let mut bindings = ResourceBindings::new();
        for b in &p.binds {
            if let BindKind::Storage { set, binding } | BindKind::Uniform { set, binding } = b.kind
            {
                // Amber binds what a test names; the layout says what the
                // kernel uses.
                if kernel.binding(set, binding).is_some() {
                    let mut elements = Vec::new();
                    for e in &b.elements {
                        let buf = buffer(&self.buffers, &e.buffer)?;
                        let range = e.range.unwrap_or(buf.len().saturating_sub(e.offset));
                        elements.push(cpu::Bound::Buffer {
                            buffer: buf,
                            offset: e.offset,
                            length: range,
                        });
                    }
                    bindings.bind_array(set, binding, elements);
                }
            }
        }
        device
            .dispatch(&pipeline, &bindings, push, Grid::Threadgroups(groups))
            .map(|_| ())
            .map_err(|e| e.to_string())
    }

    fn subgroup_size(&self) -> Option<u32> {
        None
    }
}

/// The argument that makes the `halc` binary serve a Vulkan
/// [`Session`](vulkan_reference::Session) on its stdin and stdout.
pub const VULKAN_REFERENCE_ARG: &str = "__vulkan-reference";

/// Where the Vulkan side runs: `program __vulkan-reference`, or in this
/// process.
pub(crate) fn vulkan_place(program: Option<&Path>) -> vulkan_reference::Place {
    match program {
        Some(p) => {
            let mut c = std::process::Command::new(p);
            c.arg(VULKAN_REFERENCE_ARG);
            vulkan_reference::Place::Child(c)
        }
        None => vulkan_reference::Place::InProcess,
    }
}

struct VulkanSide {
    reference: vulkan_reference::Session,
    buffers: BTreeMap<String, vulkan_reference::BufferId>,
    pipelines: BTreeMap<String, vulkan_reference::PipelineId>,
}

impl Side for VulkanSide {
    fn label(&self) -> &'static str {
        "vulkan"
    }

    fn create(&mut self, name: &str, bytes: &[u8]) -> Result<(), String> {
        let b = self.reference.buffer(bytes).map_err(|e| e.to_string())?;
        self.buffers.insert(name.to_string(), b);
        Ok(())
    }

    fn read(&self, name: &str) -> Result<Vec<u8>, String> {
        self.reference
            .read(*buffer(&self.buffers, name)?)
            .map_err(|e| e.to_string())
    }

    fn write(&mut self, name: &str, offset: usize, bytes: &[u8]) -> Result<(), String> {
        self.reference
            .write(*buffer(&self.buffers, name)?, offset, bytes)
            .map_err(|e| e.to_string())
    }

    fn dispatch(
        &mut self,
        p: &Pipeline,
        prepared: &Prepared,
        push: &[u8],
        groups: [u32; 3],
    ) -> Result<(), String> {
        // Amber pushes the whole buffer bound as push_constant; its range
        // is the buffer's size rounded up to 4 bytes.
        let mut push = push.to_vec();
        push.resize(push.len().next_multiple_of(4), 0);
        let push = &push[..];
        if !self.pipelines.contains_key(&p.name) {
            // As amber does, the descriptor set layouts are the pipeline's
            // BIND commands, not a reflection of the module.
            let bindings: Vec<vulkan_reference::BindingDesc> = p
                .binds
                .iter()
                .filter_map(|b| {
                    let (set, binding, kind) = match b.kind {
                        BindKind::Storage { set, binding } => {
                            (set, binding, vulkan_reference::BindingKind::Storage)
                        }
                        BindKind::Uniform { set, binding } => {
                            (set, binding, vulkan_reference::BindingKind::Uniform)
                        }
                        BindKind::PushConstant => return None,
                    };
                    Some(vulkan_reference::BindingDesc {
                        set,
                        binding,
                        kind,
                        count: b.elements.len() as u32,
                    })
                })
                .collect();
            let mut specialization: Vec<(u32, Vec<u8>)> = p
                .specialize
                .iter()
                .map(|s| spec_value(s).map(|v| (s.id, (v.bits as u32).to_le_bytes().to_vec())))
                .collect::<Result<_, _>>()?;
            specialization.extend(prepared.vulkan_specs.iter().cloned());
            let pipeline = self
                .reference
                .pipeline(&vulkan_reference::PipelineDesc {
                    spirv: &prepared.spirv,
                    entry: &p.entry,
                    specialization: &specialization,
                    bindings: &bindings,
                    push_constant_size: push.len() as u32,
                    require_full_subgroups: p.full_subgroups,
                    allow_varying_subgroup_size: p.varying_subgroups,
                    required_subgroup_size: p.subgroup_size.map(|r| {
                        let (min, max) = self.reference.subgroup_size_range();
                        match r {
                            RequiredSize::Exact(n) => n,
                            RequiredSize::Min => min,
                            RequiredSize::Max => max,
                        }
                    }),
                })
                .map_err(|e| e.to_string())?;
            self.pipelines.insert(p.name.clone(), pipeline);
        }
        let mut bound = Vec::new();
        for b in &p.binds {
            if let BindKind::Storage { set, binding } | BindKind::Uniform { set, binding } = b.kind
            {
                for (element, e) in b.elements.iter().enumerate() {
                    bound.push(vulkan_reference::SessionBound {
                        set,
                        binding,
                        element: element as u32,
                        buffer: *buffer(&self.buffers, &e.buffer)?,
                        offset: e.offset,
                        range: e.range,
                    });
                }
            }
        }
        self.reference
            .dispatch(self.pipelines[&p.name], &bound, push, groups)
            .map_err(|e| e.to_string())
    }

    fn subgroup_size(&self) -> Option<u32> {
        Some(self.reference.subgroup_size())
    }

    fn subgroup_range(&self) -> Option<(u32, u32)> {
        Some(self.reference.subgroup_size_range())
    }
}

fn buffer<'b, B>(buffers: &'b BTreeMap<String, B>, name: &str) -> Result<&'b B, String> {
    buffers
        .get(name)
        .ok_or_else(|| format!("unknown buffer `{name}`"))
}

struct Runner<'s> {
    name: &'s str,
    script: &'s Script,
    opts: &'s RunOptions,
    sides: Vec<Box<dyn Side + 's>>,
    /// Each pipeline's SPIR-V ([`module`]).
    modules: BTreeMap<String, Result<Vec<u8>, String>>,
    /// Compiled pipelines.
    prepared: BTreeMap<&'s str, Prepared>,
}

impl<'s> Runner<'s> {
    fn at(&self, line: usize) -> String {
        format!("{}:{line}", self.name)
    }

    fn run(&mut self) -> Result<(), Stop> {
        for b in &self.script.buffers {
            for side in &mut self.sides {
                side.create(&b.name, &b.bytes).map_err(|e| {
                    format!(
                        "{}:{}: buffer `{}`: {}: {e}",
                        self.name,
                        b.line,
                        b.name,
                        side.label()
                    )
                })?;
            }
        }
        for c in &self.script.commands {
            match c {
                Command::Run {
                    pipeline,
                    groups,
                    line,
                } => self.dispatch(pipeline, *groups, *line)?,
                Command::Write {
                    buffer,
                    offset,
                    bytes,
                    line,
                } => {
                    for side in &mut self.sides {
                        side.write(buffer, *offset, bytes)
                            .map_err(|e| format!("{}:{line}: {}: {e}", self.name, side.label()))?;
                    }
                }
                Command::Copy { from, to, line } => {
                    for side in &mut self.sides {
                        let data = side.read(from)?;
                        let len = side.read(to)?.len();
                        if len != data.len() {
                            return Err(Stop::Fail(format!(
                                "{}:{line}: COPY {from} TO {to}: {} bytes into {len} bytes",
                                self.name,
                                data.len()
                            )));
                        }
                        side.write(to, 0, &data)
                            .map_err(|e| format!("{}:{line}: {}: {e}", self.name, side.label()))?;
                    }
                }
                Command::Expect {
                    buffer,
                    check,
                    line,
                } => self.expect(buffer, check, *line)?,
            }
        }
        Ok(())
    }

    fn pipeline(&self, name: &str) -> Result<&'s Pipeline, String> {
        self.script
            .pipelines
            .iter()
            .find(|p| p.name == name)
            .ok_or_else(|| format!("{}: unknown pipeline `{name}`", self.name))
    }

    fn dispatch(&mut self, name: &'s str, groups: [u32; 3], line: usize) -> Result<(), Stop> {
        let at = self.at(line);
        let p = self.pipeline(name)?;
        if !self.prepared.contains_key(name) {
            let mut prepared = self
                .prepare(p)
                .map_err(|e| format!("{at}: RUN {name}: {e}"))?;
            let subgroups = prepared.metal.as_ref().is_some_and(|m| m.subgroups);
            prepared.simd_width = self
                .simd_width(p, subgroups)
                .map_err(|m| Stop::Skip(format!("{at}: RUN {name}: {m}")))?;
            // `FULLY_POPULATED on` needs nothing more on the CPU: the
            // backend, as a GPU, fills SIMD groups in order, so every group
            // is full when the threadgroup is a multiple of the width. A
            // threadgroup that is not (Vulkan calls that invalid; the CTS
            // has such tests and drivers run them) ends with one partial
            // group, as on a GPU.
            self.prepared.insert(name, prepared);
        }
        self.grow_implicit(p, name)?;
        let prepared = &self.prepared[name];
        let divisions = |sides: &[Box<dyn Side + 's>]| -> u64 {
            sides.iter().map(|s| s.undefined_divisions()).sum()
        };
        let before = divisions(&self.sides);
        for side in &mut self.sides {
            let push = match p.binds.iter().find(|b| b.kind == BindKind::PushConstant) {
                Some(b) => side.read(b.buffer())?,
                None => Vec::new(),
            };
            side.dispatch(p, prepared, &push, groups)
                .map_err(|e| format!("{at}: RUN {name}: {}: {e}", side.label()))?;
        }
        // A RUN that divided by zero on the CPU is not compared: the
        // quotient is undefined on both sides (its EXPECTs still apply).
        if self.sides.len() == 2 && divisions(&self.sides) == before {
            self.compare_bound(p, line)?;
        }
        Ok(())
    }

    /// Grows the buffers sized by the script's writes (VkScript) that
    /// pipeline `p` binds to a block larger than them, with zeros, on every
    /// side ([`super::Buffer::implicit_size`]).
    fn grow_implicit(&mut self, p: &Pipeline, name: &str) -> Result<(), Stop> {
        let Some(metal) = self.prepared.get(name).and_then(|x| x.metal.as_ref()) else {
            return Ok(());
        };
        let mut grow: Vec<(&str, usize)> = Vec::new();
        for b in &p.binds {
            let (BindKind::Storage { set, binding } | BindKind::Uniform { set, binding }) = b.kind
            else {
                continue;
            };
            let Some(&min) = metal.min_sizes.get(&(set, binding)) else {
                continue;
            };
            for e in &b.elements {
                let implicit = self
                    .script
                    .buffers
                    .iter()
                    .any(|d| d.name == e.buffer && d.implicit_size);
                if implicit && e.range.is_none() {
                    grow.push((&e.buffer, (e.offset + min) as usize));
                }
            }
        }
        for (buffer, size) in grow {
            for side in &mut self.sides {
                let mut data = side.read(buffer)?;
                if data.len() < size {
                    data.resize(size, 0);
                    side.create(buffer, &data)?;
                }
            }
        }
        Ok(())
    }

    /// After a `RUN` on both sides: every storage buffer the pipeline binds
    /// must hold the same values.
    fn compare_bound(&self, p: &Pipeline, line: usize) -> Result<(), Stop> {
        for b in &p.binds {
            let BindKind::Storage { set, binding } = b.kind else {
                continue;
            };
            for e in &b.elements {
                let decl = self
                    .script
                    .buffers
                    .iter()
                    .find(|d| d.name == e.buffer)
                    .ok_or_else(|| format!("{}: unknown buffer `{}`", self.name, e.buffer))?;
                let (ref_side, cpu_side) = (&self.sides[1], &self.sides[0]);
                let want = ref_side.read(&e.buffer)?;
                let got = cpu_side.read(&e.buffer)?;
                if let Some(diff) =
                    first_difference(decl.ty, decl.layout, &want, &got, self.tolerance(&e.buffer))
                {
                    return Err(Stop::Fail(format!(
                        "{}: RUN {}: buffer `{}` (set {set}, binding {binding}) differs: {diff}",
                        self.at(line),
                        p.name,
                        e.buffer
                    )));
                }
            }
        }
        Ok(())
    }

    /// How close compared floats of `buffer` must be: `--ulp`, or the
    /// widest `TOLERANCE` the script's `EXPECT`s give that buffer (a test
    /// that accepts its own results within a tolerance accepts the two
    /// sides' within it).
    fn tolerance(&self, buffer: &str) -> FloatTolerance {
        let mut tol = FloatTolerance {
            ulp: self.opts.ulp,
            ..Default::default()
        };
        for c in &self.script.commands {
            if let Command::Expect {
                buffer: b,
                check: Check::Values { tolerance, .. },
                ..
            } = c
            {
                if b != buffer {
                    continue;
                }
                for t in tolerance {
                    match *t {
                        Tolerance::Absolute(a) => tol.absolute = tol.absolute.max(a),
                        Tolerance::Percent(p) => tol.percent = tol.percent.max(p),
                    }
                }
            }
        }
        tol
    }

    /// The CPU side's SIMD width for pipeline `p`: its `SUBGROUP
    /// REQUIRED_SIZE`, else, comparing a kernel that uses subgroup
    /// operations, the Vulkan device's subgroup size (results depend on
    /// it), else Apple's 32. `Err` says why the pipeline cannot run here.
    fn simd_width(&self, p: &Pipeline, subgroups: bool) -> Result<u32, String> {
        let vulkan = self.sides.iter().find_map(|s| s.subgroup_size());
        let range = self.sides.iter().find_map(|s| s.subgroup_range());
        let cpu = self.sides.iter().any(|s| s.subgroup_size().is_none());
        let emulated = |n: u32| cpu::SIMD_WIDTHS.contains(&n);
        // MIN and MAX are the device's: the Vulkan device's when one runs,
        // else Apple's 32 lanes.
        let required = p.subgroup_size.map(|r| match (r, range) {
            (RequiredSize::Exact(n), _) => n,
            (RequiredSize::Min, Some((min, _))) => min,
            (RequiredSize::Max, Some((_, max))) => max,
            (RequiredSize::Min | RequiredSize::Max, None) => cpu::SIMD_WIDTH,
        });
        if let Some(n) = required {
            if let Some((min, max)) = range.filter(|(min, max)| !(*min..=*max).contains(&n)) {
                let sizes = if min == max {
                    format!("{min}")
                } else {
                    format!("{min} to {max}")
                };
                return Err(format!(
                    "the pipeline requires subgroups of {n} lanes (SUBGROUP REQUIRED_SIZE) and the Vulkan device's are {sizes}: not run"
                ));
            }
            if cpu && !emulated(n) {
                return Err(format!(
                    "the pipeline requires subgroups of {n} lanes (SUBGROUP REQUIRED_SIZE); the CPU backend emulates SIMD groups of {} lanes: not run",
                    cpu::SIMD_WIDTHS_TEXT
                ));
            }
            return Ok(n);
        }
        match vulkan {
            Some(v) if cpu && subgroups => {
                if emulated(v) {
                    Ok(v)
                } else {
                    Err(format!(
                        "the kernel uses subgroup operations and the Vulkan device's subgroups are {v} lanes, a width the CPU backend does not emulate ({}): its results legitimately differ, not compared",
                        cpu::SIMD_WIDTHS_TEXT
                    ))
                }
            }
            _ => Ok(cpu::SIMD_WIDTH),
        }
    }

    /// The pipeline's shader as SPIR-V and, when a Metal side runs, as
    /// halc's executable. The Vulkan side needs nothing of halc: a module
    /// halc refuses still runs there.
    fn prepare(&self, p: &Pipeline) -> Result<Prepared, String> {
        let bytes = match self.modules.get(&p.name) {
            Some(m) => m.clone()?,
            None => module(self.name, self.script, p, self.opts)?,
        };
        let input = Input::new(format!("{}.spv", p.shader), bytes);
        let words = crate::spirv::Words::from_bytes(&input.bytes).map_err(|e| e.to_string())?;
        // `--spec` values are baked into every module that declares the
        // SpecId (a pipeline's own SPECIALIZE wins); the Vulkan side gets
        // them as specialization values.
        let mut specs = self.opts.compile.specs.clone();
        let mut vulkan_specs = Vec::new();
        if !specs.is_empty() {
            let declared: Vec<crate::spirv::SpecConstant> = crate::spirv::reflect(&words)
                .map(|i| i.spec_constants)
                .unwrap_or_default();
            specs.retain(|v| {
                declared.iter().any(|c| c.id == v.id) && !p.specialize.iter().any(|s| s.id == v.id)
            });
            for v in &specs {
                let c = declared
                    .iter()
                    .find(|c| c.id == v.id)
                    .expect("retained above");
                let bits = crate::spirv::specialize::parse_value(c.ty, &v.text)
                    .map_err(|m| format!("--spec {}: {m}", v.id))?;
                // Vulkan takes a bool as a 4-byte VkBool32, the rest at their width.
                let width = match c.ty {
                    crate::spirv::ScalarType::Bool => 4,
                    t => (t.bits() / 8) as usize,
                };
                vulkan_specs.push((v.id, bits.0.to_le_bytes()[..width].to_vec()));
            }
        }
        let metal_runs = self.sides.iter().any(|s| s.subgroup_size().is_none());
        let metal = if metal_runs {
            Some(self.compile_metal(p, &input, specs)?)
        } else {
            None
        };
        Ok(Prepared {
            spirv: words.as_slice().to_vec(),
            metal,
            vulkan_specs,
            simd_width: cpu::SIMD_WIDTH,
        })
    }

    /// halc's translation of a pipeline's module, with `specs` (the
    /// `--spec` values it declares) baked.
    fn compile_metal(
        &self,
        p: &Pipeline,
        input: &Input,
        specs: Vec<crate::spirv::SpecValue>,
    ) -> Result<MetalPrepared, String> {
        let mut options = self.opts.compile.clone();
        options.entries = vec![p.entry.clone()];
        options.specs = specs.clone();
        let first = crate::driver::compile(std::slice::from_ref(input), &options)
            .map_err(|e| e.to_string())?;
        let k = &first.kernels[0];
        // SpecIds that are no function constant (SPIRV-Cross fixed them, as
        // they size arrays) are baked for the Metal side.
        let open: Vec<u32> = k.function_constants.iter().map(|c| c.id).collect();
        let (set, bake): (Vec<_>, Vec<_>) = p.specialize.iter().partition(|s| open.contains(&s.id));
        let values = set
            .iter()
            .map(|s| spec_value(s))
            .collect::<Result<Vec<_>, _>>()?;
        let tamper = self.opts.tamper;
        let prepared = |c: &crate::model::Compiled| {
            let k = &c.kernels[0];
            MetalPrepared {
                executable: match tamper {
                    Some(f) => {
                        let mut c = c.clone();
                        f(&mut c);
                        c.to_flatbuffer()
                    }
                    None => c.to_flatbuffer(),
                },
                kernel: k.name.clone(),
                values: values.clone(),
                push_size: k.entry.push_constant_size.unwrap_or(0),
                subgroups: k.uses_subgroups(),
                min_sizes: k
                    .entry
                    .bindings
                    .iter()
                    .map(|b| ((b.set, b.binding), b.min_size))
                    .collect(),
            }
        };
        if bake.is_empty() {
            return Ok(prepared(&first));
        }
        options.specs = specs;
        options
            .specs
            .extend(bake.iter().map(|s| crate::spirv::SpecValue {
                id: s.id,
                text: s.value.clone(),
            }));
        let baked = crate::driver::compile(std::slice::from_ref(input), &options)
            .map_err(|e| e.to_string())?;
        Ok(prepared(&baked))
    }

    fn expect(&self, name: &str, check: &Check, line: usize) -> Result<(), Stop> {
        let results: Vec<(&'static str, Result<(), String>)> = self
            .sides
            .iter()
            .map(|side| {
                let r = match side.read(name) {
                    Ok(data) => {
                        check_expect(self, name, check, line, &data, |other| side.read(other))
                    }
                    Err(e) => Err(e),
                };
                (side.label(), r)
            })
            .collect();
        match results.as_slice() {
            [(_, r)] => r.clone().map_err(Stop::Fail),
            [(a, ra), (b, rb)] => match (ra, rb) {
                (Ok(()), Ok(())) => Ok(()),
                (Err(e), Ok(())) => Err(Stop::Fail(format!("{e} (on {a}; it holds on {b})"))),
                (Ok(()), Err(e)) => Err(Stop::Fail(format!("{e} (on {b}; it holds on {a})"))),
                (Err(e), Err(_)) => Err(Stop::Fail(format!("{e} (on {a} and on {b})"))),
            },
            _ => Ok(()),
        }
    }
}

/// How close two floats of a compared buffer must be.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
struct FloatTolerance {
    /// Units in the last place (`--ulp`).
    ulp: u32,
    /// The widest absolute `TOLERANCE` of the buffer's `EXPECT`s.
    absolute: f64,
    /// The widest `TOLERANCE …%` of the buffer's `EXPECT`s, of the
    /// reference's value.
    percent: f64,
}

/// The first element where `want` (the reference) and `got` differ, read
/// as `ty` in `layout`: integers exactly, floats within the tolerance (NaN
/// equal to NaN, a denormal equal to a zero of its sign: MSL lets a GPU
/// flush them).
fn first_difference(
    ty: super::data::DataType,
    layout: Layout,
    want: &[u8],
    got: &[u8],
    tol: FloatTolerance,
) -> Option<String> {
    if want.len() != got.len() {
        return Some(format!("{} bytes vs {} bytes", want.len(), got.len()));
    }
    let stride = ty.stride(layout);
    let size = ty.scalar.bytes();
    for element in 0..want.len() / stride.max(1) {
        for comp in 0..ty.components() {
            let at = element * stride + ty.component_offset(comp, layout);
            let (w, g) = (&want[at..at + size], &got[at..at + size]);
            if w == g || same_within(ty.scalar, w, g, tol) {
                continue;
            }
            return Some(format!(
                "element {element}{} (byte {at}, {}): vulkan {}, metal-on-cpu {}",
                if ty.components() > 1 {
                    format!(" component {comp}")
                } else {
                    String::new()
                },
                ty.scalar_name(),
                decode(ty.scalar, w),
                decode(ty.scalar, g)
            ));
        }
    }
    None
}

/// Whether two floats (the reference's `a`, the CPU's `b`) are within the
/// tolerance, both NaN, or a denormal and a zero of the same sign (the
/// Metal Shading Language lets a GPU flush single and half denormals).
/// Integers must be equal.
fn same_within(scalar: Scalar, a: &[u8], b: &[u8], tol: FloatTolerance) -> bool {
    let bits = |x: &[u8]| {
        let mut raw = [0u8; 8];
        raw[..x.len()].copy_from_slice(x);
        u64::from_le_bytes(raw)
    };
    let Scalar::Float(width) = scalar else {
        return false;
    };
    let (x, y) = (bits(a), bits(b));
    let value = |v: Value| match v {
        Value::Float(f) => f,
        Value::Int(i) => i as f64,
    };
    let (fx, fy) = (value(decode(scalar, a)), value(decode(scalar, b)));
    let exponent_mask = match width {
        16 => 0x7c00u64,
        32 => 0x7f80_0000,
        _ => 0x7ff0_0000_0000_0000,
    };
    let sign = 1u64 << (width - 1);
    let flushed = |d: u64, z: u64| d & exponent_mask == 0 && z & !sign == 0 && d & sign == z & sign;
    if flushed(x, y) || flushed(y, x) {
        return true;
    }
    let relative = tol.percent / 100.0 * fx.abs();
    super::data::floats_within(width, x, y, tol.ulp, tol.absolute.max(relative))
        || (fx - fy).abs() <= tol.absolute.max(relative)
}

/// Evaluates one `EXPECT` on one side's data.
fn check_expect(
    r: &Runner<'_>,
    name: &str,
    check: &Check,
    line: usize,
    data: &[u8],
    read_other: impl Fn(&str) -> Result<Vec<u8>, String>,
) -> Result<(), String> {
    let at = r.at(line);
    match check {
        Check::Values {
            offset,
            ty,
            layout,
            compare,
            values,
            tolerance,
        } => {
            let n = ty.components();
            let stride = ty.stride(*layout);
            for (i, want) in values.iter().enumerate() {
                let (element, comp) = (i / n, i % n);
                let byte = offset + element * stride + ty.component_offset(comp, *layout);
                let size = ty.scalar.bytes();
                let Some(raw) = data.get(byte..byte + size) else {
                    return Err(format!(
                        "{at}: EXPECT {name}: byte {byte} is past the end of the buffer ({} bytes)",
                        data.len()
                    ));
                };
                let got = decode(ty.scalar, raw);
                let want_v = decode(
                    ty.scalar,
                    &encode(ty.scalar, want).map_err(|m| format!("{at}: {m}"))?,
                );
                let tol = tolerance.get(comp).or(tolerance.first()).copied();
                if !holds(*compare, got, want_v, tol) {
                    return Err(format!(
                        "{at}: EXPECT {name} IDX {offset}: value {i} (byte {byte}, {}): expected {} {want}, got {got}",
                        ty.scalar_name(),
                        symbol(*compare)
                    ));
                }
            }
            Ok(())
        }
        Check::EqBuffer(other) => {
            let b = read_other(other)?;
            if b.len() != data.len() {
                return Err(format!(
                    "{at}: EXPECT {name} EQ_BUFFER {other}: {} bytes vs {} bytes",
                    data.len(),
                    b.len()
                ));
            }
            match data.iter().zip(&b).position(|(x, y)| x != y) {
                None => Ok(()),
                Some(i) => Err(format!(
                    "{at}: EXPECT {name} EQ_BUFFER {other}: first difference at byte {i}: {:#04x} vs {:#04x}",
                    data[i], b[i]
                )),
            }
        }
        Check::RmseBuffer(other, tol) => {
            let b = read_other(other)?;
            let decl = r
                .script
                .buffers
                .iter()
                .find(|x| x.name == name)
                .ok_or_else(|| format!("{at}: unknown buffer `{name}`"))?;
            let s = decl.ty.scalar;
            let size = s.bytes();
            let as_f = |v: Value| match v {
                Value::Int(i) => i as f64,
                Value::Float(f) => f,
            };
            let n = data.len().min(b.len()) / size;
            let sum: f64 = (0..n)
                .map(|i| {
                    let x = as_f(decode(s, &data[i * size..(i + 1) * size]));
                    let y = as_f(decode(s, &b[i * size..(i + 1) * size]));
                    (x - y) * (x - y)
                })
                .sum();
            let rmse = (sum / n.max(1) as f64).sqrt();
            if rmse <= *tol {
                Ok(())
            } else {
                Err(format!(
                    "{at}: EXPECT {name} RMSE_BUFFER {other}: RMSE {rmse} over tolerance {tol}"
                ))
            }
        }
    }
}

impl super::data::DataType {
    fn scalar_name(&self) -> String {
        super::data::DataType::scalar(self.scalar).to_string()
    }
}

fn symbol(c: Compare) -> &'static str {
    match c {
        Compare::Eq => "==",
        Compare::Ne => "!=",
        Compare::Lt => "<",
        Compare::Le => "<=",
        Compare::Gt => ">",
        Compare::Ge => ">=",
    }
}

/// Whether `got <compare> want` holds; floats within the tolerance for
/// `EQ`/`NE`, NaN equal to NaN.
fn holds(compare: Compare, got: Value, want: Value, tol: Option<Tolerance>) -> bool {
    use std::cmp::Ordering;
    let ord = match (got, want) {
        (Value::Int(a), Value::Int(b)) => Some(a.cmp(&b)),
        (Value::Float(a), Value::Float(b)) => {
            if a.is_nan() || b.is_nan() {
                return match compare {
                    Compare::Eq => a.is_nan() && b.is_nan(),
                    Compare::Ne => a.is_nan() != b.is_nan(),
                    _ => false,
                };
            }
            let close = match tol {
                None => a == b,
                Some(Tolerance::Absolute(t)) => (a - b).abs() <= t,
                Some(Tolerance::Percent(p)) => (a - b).abs() <= b.abs() * p / 100.0,
            };
            if close {
                Some(Ordering::Equal)
            } else {
                a.partial_cmp(&b)
            }
        }
        _ => None,
    };
    let Some(ord) = ord else { return false };
    match compare {
        Compare::Eq => ord == Ordering::Equal,
        Compare::Ne => ord != Ordering::Equal,
        Compare::Lt => ord == Ordering::Less,
        Compare::Le => ord != Ordering::Greater,
        Compare::Gt => ord == Ordering::Greater,
        Compare::Ge => ord != Ordering::Less,
    }
}

/// A `SPECIALIZE id AS type value` as the bits Metal sets.
fn spec_value(s: &super::Specialize) -> Result<SpecValue, String> {
    let scalar = Scalar::from_amber(&s.ty)
        .filter(|t| t.bytes() == 4)
        .ok_or_else(|| format!("SPECIALIZE {}: type `{}` is not a 32-bit type", s.id, s.ty))?;
    let bytes = encode(scalar, &s.value).map_err(|m| format!("SPECIALIZE {}: {m}", s.id))?;
    let mut raw = [0u8; 8];
    raw[..4].copy_from_slice(&bytes);
    Ok(SpecValue {
        id: s.id,
        bits: u64::from_le_bytes(raw),
    })
}

/// The SPIR-V environment of `shader`: its `TARGET_ENV`, else
/// `--target-env`, raised to SPIR-V 1.4 when the script requires
/// `VK_KHR_spirv_1_4` (the Vulkan CTS runs such files at SPIR-V 1.4: it is a
/// version of the module, not a device capability).
fn target_env(script: &Script, shader: &super::Shader, opts: &RunOptions) -> String {
    if let Some(env) = &shader.target_env {
        return env.clone();
    }
    let env = opts.target_env.as_str();
    let wants_1_4 = script
        .requirements
        .iter()
        .any(|(r, _)| r == "VK_KHR_spirv_1_4");
    let below_1_4 = matches!(
        env,
        "spv1.0" | "spv1.1" | "spv1.2" | "spv1.3" | "vulkan1.0" | "vulkan1.1"
    );
    if wants_1_4 && below_1_4 {
        "spv1.4".into()
    } else {
        env.into()
    }
}

/// Pipeline `p`'s module as the test gives it: its shader assembled,
/// compiled from GLSL or read, then through the pipeline's
/// `SHADER_OPTIMIZATION` passes.
///
/// glslc's errors name the script's lines (`test.amber:19: error: …`), not
/// the shader body's (`<stdin>:16:`).
fn module(file: &str, script: &Script, p: &Pipeline, opts: &RunOptions) -> Result<Vec<u8>, String> {
    let shader = script
        .shaders
        .iter()
        .find(|s| s.name == p.shader)
        .ok_or_else(|| format!("unknown shader `{}`", p.shader))?;
    let env = target_env(script, shader, opts);
    let mut bytes = match &shader.source {
        ShaderSource::SpirvHex(b) => b.clone(),
        ShaderSource::SpirvAsm(text) => assemble(text, &env)?,
        ShaderSource::Glsl(text) => glslc(
            opts.glslc.as_deref(),
            opts.glslc_cache.as_deref(),
            text,
            &env,
        )
        .map_err(|e| script_lines(&e, file, shader.inline.then_some(shader.line)))?,
    };
    if !p.optimizations.is_empty() {
        bytes = spirv_opt(&bytes, &p.optimizations, &env)?;
    }
    Ok(bytes)
}

/// glslc's `<stdin>:N:` locations in `message` as lines of the script
/// `file`, for a shader whose inline source starts after line `start` (a
/// shader read from a FILE keeps glslc's lines, named `<FILE>`).
fn script_lines(message: &str, file: &str, start: Option<usize>) -> String {
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(at) = rest.find("<stdin>:") {
        out.push_str(&rest[..at]);
        let after = &rest[at + "<stdin>:".len()..];
        let digits = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        match (after[..digits].parse::<usize>(), start) {
            (Ok(n), Some(start)) if after[digits..].starts_with(':') => {
                out.push_str(&format!("{file}:{}", start + n));
            }
            (Ok(n), None) if after[digits..].starts_with(':') => {
                out.push_str(&format!("<FILE>:{n}"));
            }
            _ => out.push_str("<stdin>:"),
        }
        rest = if digits > 0 && after[digits..].starts_with(':') {
            &after[digits..]
        } else {
            after
        };
    }
    out.push_str(rest);
    out
}

/// SPIR-V target environments as Amber names them.
fn tools_env(env: &str) -> Result<spirv_tools::TargetEnv, String> {
    use spirv_tools::TargetEnv as T;
    Ok(match env {
        "spv1.0" => T::Universal_1_0,
        "spv1.1" => T::Universal_1_1,
        "spv1.2" => T::Universal_1_2,
        "spv1.3" => T::Universal_1_3,
        "spv1.4" => T::Universal_1_4,
        "spv1.5" => T::Universal_1_5,
        "spv1.6" => T::Universal_1_6,
        "vulkan1.0" => T::Vulkan_1_0,
        "vulkan1.1" => T::Vulkan_1_1,
        "vulkan1.2" => T::Vulkan_1_2,
        "vulkan1.3" => T::Vulkan_1_3,
        other => return Err(format!("unknown target environment `{other}`")),
    })
}

fn assemble(text: &str, env: &str) -> Result<Vec<u8>, String> {
    let asm = spirv_tools::assembler::create(Some(tools_env(env)?));
    asm.assemble(text, Default::default())
        .map(|b| b.as_bytes().to_vec())
        .map_err(|e| format!("SPIR-V assembly: {}", e.to_string().trim()))
}

/// Runs spirv-opt with a pipeline's `SHADER_OPTIMIZATION` passes, as amber
/// does (its passes are spirv-opt's flags). spirv-opt is found as
/// `$HALC_SPIRV_OPT`, else on `PATH` (Debian: `spirv-tools`).
fn spirv_opt(module: &[u8], passes: &[String], env: &str) -> Result<Vec<u8>, String> {
    use std::io::Write;
    use std::process::{Command, Stdio};
    tools_env(env)?;
    let program = std::env::var_os("HALC_SPIRV_OPT").unwrap_or_else(|| "spirv-opt".into());
    let dir = tempfile::tempdir().map_err(|e| format!("SHADER_OPTIMIZATION: {e}"))?;
    let (input, output) = (dir.path().join("in.spv"), dir.path().join("out.spv"));
    std::fs::File::create(&input)
        .and_then(|mut f| f.write_all(module))
        .map_err(|e| format!("SHADER_OPTIMIZATION: {e}"))?;
    let run = Command::new(&program)
        .arg(format!("--target-env={env}"))
        .args(passes)
        .arg(&input)
        .arg("-o")
        .arg(&output)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| {
            format!(
                "SHADER_OPTIMIZATION needs spirv-opt (`{}`: {e}; Debian: apt-get install spirv-tools, or set HALC_SPIRV_OPT)",
                program.to_string_lossy()
            )
        })?;
    if !run.status.success() {
        return Err(format!(
            "spirv-opt {} failed: {}",
            passes.join(" "),
            String::from_utf8_lossy(&run.stderr).trim()
        ));
    }
    std::fs::read(&output).map_err(|e| format!("SHADER_OPTIMIZATION: {e}"))
}

/// The glslc at `path` (or `$HALC_GLSLC`, or on `PATH`), located once per
/// process: locating runs `glslc --version`. [`run_files`](super::run_files)
/// locates it before forking, so the processes running the test files
/// inherit it.
pub(crate) fn located_glslc(path: Option<&Path>) -> Result<crate::build::glsl::Glslc, String> {
    use std::sync::{Mutex, OnceLock};
    type Located = Vec<(Option<PathBuf>, crate::build::glsl::Glslc)>;
    static LOCATED: OnceLock<Mutex<Located>> = OnceLock::new();
    let located = LOCATED.get_or_init(Mutex::default);
    let key = path.map(Path::to_path_buf);
    if let Some((_, g)) = located
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .find(|(k, _)| *k == key)
    {
        return Ok(g.clone());
    }
    let glslc = crate::build::glsl::Glslc::locate(path).map_err(|e| e.to_string())?;
    located
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push((key, glslc.clone()));
    Ok(glslc)
}

/// Compiles GLSL compute source with glslc ([`crate::build::glsl`]), through the
/// cache in `cache` when there is one.
fn glslc(
    path: Option<&Path>,
    cache: Option<&Path>,
    text: &str,
    env: &str,
) -> Result<Vec<u8>, String> {
    let opts = crate::build::glsl::GlslOptions {
        target_env: env
            .parse()
            .map_err(|e: crate::build::glsl::GlslError| e.to_string())?,
        ..Default::default()
    };
    let glslc = located_glslc(path)?;
    let cache = cache.map(|d| crate::build::glsl::GlslCache::new(d.to_path_buf()));
    if let Some(spirv) = cache.as_ref().and_then(|c| c.get_text(&glslc, text, &opts)) {
        return Ok(spirv);
    }
    let spirv = glslc.compile_source(text, &opts).map_err(|e| match e {
        crate::build::glsl::GlslError::Compile { stderr, .. } => {
            format!("glslc rejected the shader:\n{stderr}")
        }
        e => e.to_string(),
    })?;
    if let Some(c) = &cache {
        c.put_text(&glslc, text, &opts, &spirv);
    }
    Ok(spirv)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comparisons_follow_amber() {
        let f = Value::Float;
        assert!(holds(Compare::Eq, f(1.0), f(1.0), None));
        assert!(!holds(Compare::Eq, f(1.0), f(1.0001), None));
        assert!(holds(
            Compare::Eq,
            f(1.0),
            f(1.0001),
            Some(Tolerance::Absolute(0.001))
        ));
        assert!(holds(
            Compare::Eq,
            f(99.0),
            f(100.0),
            Some(Tolerance::Percent(1.0))
        ));
        assert!(holds(Compare::Eq, f(f64::NAN), f(f64::NAN), None));
        assert!(!holds(Compare::Lt, f(f64::NAN), f(1.0), None));
        assert!(holds(Compare::Le, Value::Int(-1), Value::Int(0), None));
        assert!(!holds(Compare::Gt, Value::Int(0), Value::Int(0), None));
    }

    #[test]
    fn floats_compare_within_ulps_and_nan_equals_nan() {
        let f = |v: f32| v.to_le_bytes();
        let s = Scalar::Float(32);
        let ulp = |ulp| FloatTolerance {
            ulp,
            ..Default::default()
        };
        assert!(same_within(s, &f(1.0), &f(1.0), ulp(0)));
        let next = f32::from_bits(1.0f32.to_bits() + 3);
        assert!(same_within(s, &f(1.0), &f(next), ulp(4)));
        assert!(!same_within(s, &f(1.0), &f(next), ulp(2)));
        // Across zero: -0.0 and +0.0 are 0 ulps apart.
        assert!(same_within(s, &f(-0.0), &f(0.0), ulp(0)));
        assert!(same_within(s, &f(f32::NAN), &f(-f32::NAN), ulp(0)));
        assert!(!same_within(s, &f(f32::NAN), &f(1.0), ulp(1000)));
        assert!(!same_within(
            Scalar::UInt(32),
            &1u32.to_le_bytes(),
            &2u32.to_le_bytes(),
            ulp(9)
        ));
        // A denormal and a zero of its sign: MSL may flush.
        let tiny = f32::from_bits(129);
        assert!(same_within(s, &f(tiny), &f(0.0), ulp(0)));
        assert!(same_within(s, &f(0.0), &f(tiny), ulp(0)));
        assert!(!same_within(s, &f(tiny), &f(-0.0), ulp(0)));
        assert!(!same_within(s, &f(f32::MIN_POSITIVE), &f(0.0), ulp(0)));
        let h = Scalar::Float(16);
        assert!(same_within(
            h,
            &0x0003u16.to_le_bytes(),
            &0u16.to_le_bytes(),
            ulp(0)
        ));
        // The test's own TOLERANCE: absolute, or a percentage of the
        // reference's value.
        let within = |absolute, percent| FloatTolerance {
            ulp: 4,
            absolute,
            percent,
        };
        assert!(same_within(
            s,
            &f(-10978.121),
            &f(-10978.172),
            within(0.1, 0.0)
        ));
        assert!(!same_within(
            s,
            &f(-10978.121),
            &f(-10978.172),
            within(0.01, 0.0)
        ));
        assert!(same_within(s, &f(200.0), &f(201.0), within(0.0, 0.5)));
        assert!(!same_within(s, &f(200.0), &f(202.0), within(0.0, 0.5)));
        let ty = super::super::data::DataType::from_amber("vec2<float>").unwrap();
        let a: Vec<u8> = [1.0f32, 2.0, 3.0, 4.0]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let mut b = a.clone();
        b[12..16].copy_from_slice(&5.0f32.to_le_bytes());
        assert_eq!(
            first_difference(ty, Layout::Std430, &a, &b, ulp(4)).unwrap(),
            "element 1 component 1 (byte 12, float): vulkan 4, metal-on-cpu 5"
        );
        assert_eq!(first_difference(ty, Layout::Std430, &a, &a, ulp(0)), None);
    }

    #[test]
    fn glslc_lines_become_the_scripts() {
        let e = "glslc rejected the shader:\n<stdin>:16: error: x\n<stdin>:3: warning: y\n";
        assert_eq!(
            script_lines(e, "t.amber", Some(40)),
            "glslc rejected the shader:\nt.amber:56: error: x\nt.amber:43: warning: y\n"
        );
        assert_eq!(
            script_lines(e, "t.amber", None).lines().nth(1),
            Some("<FILE>:16: error: x")
        );
        assert_eq!(
            script_lines("<stdin>: no line", "t", Some(1)),
            "<stdin>: no line"
        );
    }

    #[test]
    fn specialize_values_are_32_bit_bits() {
        let s = |ty: &str, v: &str| super::super::Specialize {
            id: 1,
            ty: ty.into(),
            value: v.into(),
        };
        assert_eq!(spec_value(&s("int32", "-1")).unwrap().bits, 0xffff_ffff);
        assert_eq!(
            spec_value(&s("float", "2.5")).unwrap().bits,
            u64::from(2.5f32.to_bits())
        );
        assert!(spec_value(&s("uint16", "1")).is_err());
    }
}
