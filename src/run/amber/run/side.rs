//! What a side is ([`Side`]): where a script's buffers live and its
//! pipelines run, what each pipeline brings to it ([`Prepared`]), and why
//! a run stops early ([`Stop`]).

use std::collections::BTreeMap;

use runtime_loader::plan::SpecValue;
use vulkan_reference::{Format, ImageDesc, SamplerDesc};

use crate::run::amber::Pipeline;

/// Why a run stopped early.
pub(super) enum Stop {
    Fail(String),
    Skip(String),
}

impl From<String> for Stop {
    fn from(m: String) -> Self {
        Stop::Fail(m)
    }
}

impl Stop {
    /// The same outcome, its message prefixed (`FILE:LINE: RUN p: `).
    pub(super) fn within(self, prefix: &str) -> Stop {
        match self {
            Stop::Fail(m) => Stop::Fail(format!("{prefix}{m}")),
            Stop::Skip(m) => Stop::Skip(format!("{prefix}{m}")),
        }
    }
}

/// A pipeline's shader, prepared once for every side.
pub(super) struct Prepared {
    /// The SPIR-V the test gives (assembled, compiled from GLSL or read,
    /// then through its `SHADER_OPTIMIZATION` passes): the Vulkan side runs
    /// it as it is, the Metal side compiles it with halc.
    pub(super) spirv: Vec<u32>,
    /// halc's translation, when a Metal side runs.
    pub(super) metal: Option<MetalPrepared>,
    /// `--spec` values as Vulkan specialization data.
    pub(super) vulkan_specs: Vec<(u32, Vec<u8>)>,
    /// Lanes per SIMD group on the CPU side
    /// ([`Runner::simd_width`](super::runner::Runner::simd_width)).
    pub(super) simd_width: u32,
}

/// A pipeline's shader as halc compiled it.
pub(super) struct MetalPrepared {
    /// halc's executable of its one kernel.
    pub(super) executable: Vec<u8>,
    /// The kernel's name in it.
    pub(super) kernel: String,
    /// Function-constant values set at pipeline creation (the rest of the
    /// `SPECIALIZE` values were baked).
    pub(super) values: Vec<SpecValue>,
    /// Push-constant block size.
    pub(super) push_size: u32,
    /// Whether the module uses subgroup operations.
    pub(super) subgroups: bool,
    /// The fixed size of each buffer binding's block.
    pub(super) min_sizes: BTreeMap<(u32, u32), u64>,
}

/// One place a script runs.
pub(super) trait Side {
    fn label(&self) -> &'static str;
    /// A buffer holding `bytes`; `format` when it is one (a texel buffer's).
    fn create(&mut self, name: &str, bytes: &[u8], format: Option<Format>) -> Result<(), String>;
    /// An image as `desc` says, holding `bytes` (tightly packed).
    fn create_image(&mut self, name: &str, desc: &ImageDesc, bytes: &[u8]) -> Result<(), String>;
    /// A sampler.
    fn create_sampler(&mut self, name: &str, desc: &SamplerDesc) -> Result<(), String>;
    /// A top-level acceleration structure built from `scene`. A side
    /// that cannot build one (a device without the features) stops with
    /// a skip.
    fn create_acceleration_structure(
        &mut self,
        name: &str,
        scene: &runtime_loader::scene::TopLevel,
    ) -> Result<(), Stop>;
    /// A buffer's bytes, or an image's texels.
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

pub(super) fn buffer<'b, B>(buffers: &'b BTreeMap<String, B>, name: &str) -> Result<&'b B, String> {
    buffers
        .get(name)
        .ok_or_else(|| format!("unknown buffer `{name}`"))
}
