//! What a run takes ([`RunOptions`], [`Sides`]) and gives ([`Outcome`]).

use std::path::PathBuf;
use std::time::Duration;

use crate::model::Options;

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
