//! The values that pass between halc's stages and out to its users: what a
//! caller gives [`crate::compile`] ([`Input`], [`Options`]), what it gets back
//! ([`Compiled`], its [`Kernel`]s, [`Warning`]s, [`timings`]) and why it failed
//! ([`Error`]).
//!
//! This is the ground floor: it imports nothing of halc. The values each
//! stage produces and the next reads are defined here too — what
//! reflection finds in an entry point ([`entry`]), spec-constant values
//! ([`spec`]), block structure ([`blocks`]), the binding contract's values
//! ([`layout`]), MSL versions, generated MSL and metallibs ([`msl`]), every
//! stage's error ([`error`]) — and each stage re-exports its own at the
//! path it always had ([`crate::spirv::EntryPoint`],
//! [`crate::msl::KernelLayout`], …), beside the code that makes them.

pub mod timings;
use sha2::{Digest, Sha256};

pub mod blocks;
pub mod entry;
pub mod error;
pub mod layout;
pub mod msl;
pub mod spec;

pub use error::{Error, ErrorKind};

use blocks::Blocks;
use entry::{EntryPoint, SpecConstant, WorkgroupSize};
use layout::{BindingModel, KernelLayout, LayoutOptions, Platform, Tier};
use msl::{GeneratedMsl, MathMode, Metallib, MslVersion};
use spec::{Baked, SpecValue};

/// Metal's limit on threads per threadgroup.
pub const MAX_THREADS_PER_THREADGROUP: u32 =
    runtime_loader::schema::MetalLimits::MaxThreadsPerThreadgroup.0;
/// Metal's limit on static threadgroup memory.
pub const MAX_THREADGROUP_MEMORY_BYTES: u32 =
    runtime_loader::schema::MetalLimits::MaxThreadgroupMemoryBytes.0;

/// One SPIR-V input.
#[derive(Debug, Clone)]
pub struct Input {
    /// How errors name it (usually the path as given). Its file stem names
    /// the kernel of an entry point called `main`.
    pub name: String,
    /// The file's bytes.
    pub bytes: Vec<u8>,
    /// Explicit kernel names for some of its entry points.
    pub renames: Vec<Rename>,
    /// The kernel name of its one selected GLCompute entry point (an error
    /// when it has several: name them with `renames`).
    pub kernel: Option<String>,
    /// Compile only these of its entry points (by SPIR-V name; all selected
    /// by [`Options::entries`] when empty).
    pub entries: Vec<String>,
    /// Spec-constant values baked into this input only; they win over
    /// [`Options::specs`] with the same SpecId. Each must name a SpecId the
    /// input declares.
    pub specs: Vec<SpecValue>,
}

impl Input {
    /// An input with no renames.
    pub fn new(name: impl Into<String>, bytes: Vec<u8>) -> Self {
        Input {
            name: name.into(),
            bytes,
            renames: Vec::new(),
            kernel: None,
            entries: Vec::new(),
            specs: Vec::new(),
        }
    }

    /// Names the kernel of entry point `entry` `name`.
    pub fn rename(mut self, entry: impl Into<String>, name: impl Into<String>) -> Self {
        self.renames.push(Rename {
            entry: entry.into(),
            name: name.into(),
        });
        self
    }

    /// The kernel name of entry point `entry`: an explicit rename, else the
    /// file stem for `main` (glslc names every entry point `main`), else the
    /// entry-point name.
    pub fn kernel_name(&self, entry: &str) -> String {
        if let Some(r) = self.renames.iter().find(|r| r.entry == entry) {
            return r.name.clone();
        }
        if entry == "main" {
            if let Some(stem) = std::path::Path::new(&self.name)
                .file_stem()
                .and_then(|s| s.to_str())
                .filter(|s| !s.is_empty())
            {
                return stem.to_string();
            }
        }
        entry.to_string()
    }
}

/// An explicit kernel name for one entry point of an input
/// (`halc compile file.spv:ENTRY=NAME`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rename {
    /// SPIR-V entry-point name.
    pub entry: String,
    /// Kernel name in the executable.
    pub name: String,
}

/// Everything that shapes the output.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Compile only these entry points (all GLCompute ones when empty).
    pub entries: Vec<String>,
    /// Spec-constant values to bake.
    pub specs: Vec<SpecValue>,
    /// Binding model, platform, tier and pins.
    pub layout: LayoutOptions,
    /// MSL version.
    pub msl_version: MslVersion,
    /// Math mode recorded for the runtime / metallib build.
    pub math_mode: MathMode,
    /// Text of the binding map, for the build info hash.
    pub binding_map_text: Option<String>,
    /// Where SPIRV-Cross runs.
    pub isolation: Isolation,
    /// Limits checked before work starts.
    pub limits: Limits,
    /// Input modules compiled at once, each job with its own worker process
    /// under [`Isolation::Subprocess`]; 0 (the default) is one per core. The
    /// output and the error reported do not depend on it.
    ///
    /// Under a GNU make or cargo jobserver (`CARGO_MAKEFLAGS`, `MAKEFLAGS`,
    /// as a build script or a make recipe inherits it) the default keeps no
    /// more CPUs busy than the call holds tokens for: one job on the token
    /// the caller already holds, and one more per token it can take without
    /// waiting, up to one per core; it adds jobs as the build frees tokens
    /// while it runs (with [`Isolation::Forked`], on workers forked for them
    /// before the jobs' threads start). A single module's second worker for
    /// the validator needs a token too.
    /// The tokens go back as jobs finish. A number given here leaves the
    /// jobserver alone, as `-j N` does a sub-make's.
    pub jobs: usize,
}

/// Where SPIRV-Cross (C++) runs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Isolation {
    /// In this process: fastest; a crash in SPIRV-Cross takes the process
    /// down (input is validated first, which rejected every crasher we
    /// measured).
    #[default]
    InProcess,
    /// In child processes running `program __msl-worker` (the `halc`
    /// binary), one per job of a `compile` call, each reused for every
    /// module its job compiles; the child also runs
    /// SPIRV-Tools' validator: a crash becomes an error, and so does a
    /// request (validating a module, or generating one kernel's MSL) that
    /// takes longer than `time_limit`.
    Subprocess {
        /// The `halc` binary.
        program: std::path::PathBuf,
        /// Longest time one request may take.
        time_limit: std::time::Duration,
    },
    /// As [`Isolation::Subprocess`], but each worker is a `fork` of the
    /// calling process without `exec` (Unix): it skips a second start of a
    /// large program (measured: half of a small kernel's cold compile) and
    /// needs no `halc` binary, so a build script has isolation too. The
    /// workers of a `compile` call are forked before it starts any thread,
    /// and fork is only sound in a single-threaded process: `compile`
    /// refuses (on Linux, where it can tell) when the caller runs other
    /// threads. When every job can have a second core that no other task is
    /// running on, each job forks a second worker for the validator, so that
    /// validating a module and running SPIRV-Cross on it overlap
    /// ([`crate::msl::worker::separate_validators`]).
    #[cfg(unix)]
    Forked {
        /// Longest time one request may take.
        time_limit: std::time::Duration,
    },
    /// In this process, one module at a time on the calling thread, each
    /// call into SPIRV-Cross or SPIRV-Tools run with handlers for the
    /// signals a crash raises (on an alternate stack, so a stack overflow is
    /// caught too) and a timer (Unix): a crash or a request that takes
    /// longer than `time_limit` ends the process with the one-line error a
    /// worker's would give, written to standard error (`error: FILE: entry
    /// point `E`: SPIRV-Cross crashed (signal 11 SIGSEGV); the module was not
    /// compiled`), and exit status 1, instead of an abort. Nothing else
    /// runs after it: no output is written. Signal handlers belong to the
    /// whole process, so this is for a single-threaded program that owns
    /// them and its standard error; the halc CLI uses it for one module,
    /// where a worker's fork cost more than the compile. One exception: a
    /// single module of at least [`OVERLAP_MIN_BYTES`](crate::OVERLAP_MIN_BYTES), with a CPU free for
    /// its validator and no jobserver, goes to forked workers as with
    /// [`Isolation::Forked`], the validator beside SPIRV-Cross, which
    /// finishes sooner there.
    #[cfg(unix)]
    Guarded {
        /// Longest time one request may take.
        time_limit: std::time::Duration,
    },
}

/// The allocator behind C++'s `new` and `delete` in a forked worker, where
/// SPIRV-Cross and SPIRV-Tools allocate (glibc's malloc and free took a
/// fifth of a batch's cycles). `src/msl/worker_alloc.cpp` replaces those
/// operators in every program linking halc on Linux; they stay glibc's
/// until a worker switches, once, before its first request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CxxAllocator {
    /// glibc's malloc, as everywhere else.
    System,
    /// mimalloc 2 (Linux): faster for SPIRV-Cross's many short strings and
    /// vectors, but its first allocation of each size takes a fresh page,
    /// about 0.2 ms in a cold process, so it only pays in a worker that
    /// compiles several modules.
    Mimalloc,
}

/// Limits checked before any work starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Largest module in bytes.
    pub max_bytes: usize,
    /// Largest id bound (SPIR-V: ids are below 4 194 303).
    pub max_id_bound: u32,
    /// Most instructions in a module.
    pub max_instructions: usize,
    /// Most structured merges (loops and selections) in one function: bounds
    /// the control-flow nesting SPIRV-Cross recurses through.
    pub max_merges_per_function: usize,
    /// Deepest structured-control-flow nesting (constructs inside
    /// constructs): SPIRV-Tools' validator takes time growing with its cube.
    pub max_nesting_depth: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_bytes: 64 << 20,
            max_id_bound: 4_194_303,
            max_instructions: 4_000_000,
            max_merges_per_function: 20_000,
            max_nesting_depth: 256,
        }
    }
}

/// Default for [`Isolation::Subprocess`]'s time limit: far above what real
/// kernels need (milliseconds), far below the hours a hostile module's
/// nesting can cost the validator.
pub const DEFAULT_TIME_LIMIT: std::time::Duration = std::time::Duration::from_secs(60);

/// A compiled kernel, with everything the FlatBuffer records.
#[derive(Debug, Clone)]
pub struct Kernel {
    /// Name in the executable (see [`Input::kernel_name`]); the SPIR-V
    /// entry-point name is `entry.name`.
    pub name: String,
    /// Input it came from.
    pub input: String,
    /// Reflection of the entry point.
    pub entry: EntryPoint,
    /// Its workgroup size.
    pub workgroup: WorkgroupSize,
    /// The binding layout.
    pub layout: KernelLayout,
    /// Generated MSL.
    pub msl: GeneratedMsl,
    /// Open spec constants (Metal function constants).
    pub function_constants: Vec<SpecConstant>,
    /// Values baked with `--spec`.
    pub baked: Vec<Baked>,
    /// `debugPrintfEXT` calls in its module, removed with the module's
    /// non-semantic instructions ([`crate::spirv::strip`]): they print nothing on
    /// Metal.
    pub debug_printfs: u32,
    /// Declared capabilities.
    pub capabilities: Vec<String>,
    /// Precompiled library, when built with `--metallib`.
    pub metallib: Option<Metallib>,
    /// The structure of its push-constant and buffer blocks.
    pub blocks: Blocks,
}

impl Kernel {
    /// Whether its module declares subgroup (SIMD-group) operations, whose
    /// results depend on the SIMD width it runs at: the `GroupNonUniform…`
    /// capabilities and the older `SubgroupBallotKHR` and `SubgroupVoteKHR`
    /// (GL_ARB_shader_ballot, GL_ARB_shader_group_vote).
    pub fn uses_subgroups(&self) -> bool {
        self.capabilities.iter().any(|c| {
            c.starts_with("GroupNonUniform") || c == "SubgroupBallotKHR" || c == "SubgroupVoteKHR"
        })
    }

    /// Whether the kernel may dereference device addresses read from its
    /// data (`PhysicalStorageBufferAddresses`, GLSL `buffer_reference`);
    /// the runtime's `Kernel::reads_device_addresses` reads the same
    /// capability from the executable.
    pub fn reads_device_addresses(&self) -> bool {
        self.capabilities
            .iter()
            .any(|c| c == "PhysicalStorageBufferAddresses")
    }
}

/// The result of a compile.
#[derive(Debug, Clone)]
pub struct Compiled {
    /// Kernels sorted by name.
    pub kernels: Vec<Kernel>,
    /// The options used.
    pub options: Options,
    /// SHA-256 over the inputs.
    pub inputs_sha256: String,
    /// Whether libraries keep their MSL source (false with `--no-msl`).
    pub keep_msl: bool,
    /// Where the time went (not part of the executable).
    pub timings: timings::Timings,
}

impl Compiled {
    /// What the compile changed that the user should know, in input then
    /// kernel order: one [`Warning::DebugPrintf`] per module whose
    /// `debugPrintfEXT` calls were removed, one [`Warning::FrozenSpec`] per
    /// SpecId halc fixed at its defaults. The CLI prints them, `halc::build`
    /// hands them to cargo.
    pub fn warnings(&self) -> Vec<Warning> {
        let mut out = Vec::new();
        let printing: std::collections::BTreeMap<&str, u32> = self
            .kernels
            .iter()
            .filter(|k| k.debug_printfs > 0)
            .map(|k| (k.input.as_str(), k.debug_printfs))
            .collect();
        for (input, count) in printing {
            out.push(Warning::DebugPrintf {
                input: input.to_string(),
                count,
            });
        }
        for k in &self.kernels {
            for b in k.baked.iter().filter(|b| b.frozen) {
                out.push(Warning::FrozenSpec {
                    input: k.input.clone(),
                    kernel: k.name.clone(),
                    id: b.id,
                });
            }
        }
        out
    }
}

/// Something a compile changed that the user should know (not an error).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Warning {
    /// A module's `debugPrintfEXT` calls were removed.
    DebugPrintf {
        /// The input.
        input: String,
        /// How many calls.
        count: u32,
    },
    /// A SpecId sizes an array (which Metal needs constant) and is also read
    /// as a value, or has declarations with other defaults, or sizes it under
    /// a signed `%`: halc fixed it at its defaults, each declaration its own
    /// ([`crate::spirv::specialize::array_size_conflicts`]).
    FrozenSpec {
        /// The input.
        input: String,
        /// The kernel.
        kernel: String,
        /// The SpecId.
        id: u32,
    },
}

impl Warning {
    /// The one-line message; `choose(id)` says how the caller's user sets a
    /// SpecId (`--spec 0=VALUE` at the CLI, `.spec(0, VALUE)` in a build
    /// script).
    pub fn message(&self, choose: impl Fn(u32) -> String) -> String {
        match self {
            Warning::DebugPrintf { input, count } => format!(
                "{input}: {count} debugPrintfEXT call{} removed: MSL has no printf (before MSL 3.2's os_log, which halc does not emit), so on Metal they print nothing",
                if *count == 1 { "" } else { "s" }
            ),
            Warning::FrozenSpec { input, kernel, id } => format!(
                "{input}: kernel `{kernel}`: SpecId {id} sizes an array, which Metal needs constant, and is also read as a value, declared with other defaults, or under a signed `%` (SMod, which SPIRV-Cross writes as a function call): it is fixed at its defaults (each declaration its own), not settable at run time; choose it with {}",
                choose(*id)
            ),
        }
    }
}

impl Kernel {
    /// When the workgroup size came out as 1 x 1 x 1 because a SpecId that
    /// halc fixed at its defaults ([`Warning::FrozenSpec`]) kept the
    /// workgroup-size declaration's default (1, as `local_size_x_id`
    /// without `local_size_x` gives) while another declaration of the same
    /// SpecId has a different default: the SpecId and that other default.
    /// Almost never what the author meant (`constant_id = 0` of 64 sizing
    /// shared memory beside `local_size_x_id = 0`).
    pub fn one_thread_from_frozen_spec(&self) -> Option<(u32, u64)> {
        if self.workgroup.values() != [1, 1, 1] {
            return None;
        }
        self.baked.iter().filter(|b| b.frozen).find_map(|b| {
            let one = b.defaults.iter().any(|d| d.0 == 1);
            let other = b.defaults.iter().find(|d| d.0 != 1)?;
            one.then_some((b.id, other.0))
        })
    }
}

impl Options {
    /// Canonical `key=value` lines of the options that shape the output.
    pub fn canonical(&self) -> Vec<String> {
        let mut v = vec![
            format!(
                "bindings={}",
                match self.layout.model {
                    BindingModel::ArgumentBuffers => "argument-buffers",
                    BindingModel::Discrete => "discrete",
                }
            ),
            format!("msl-version={}", self.msl_version),
            format!(
                "platform={}",
                match self.layout.platform {
                    Platform::MacOS => "macos",
                    Platform::IOS => "ios",
                }
            ),
            format!(
                "argument-buffer-tier={}",
                match self.layout.tier {
                    Tier::Tier1 => 1,
                    Tier::Tier2 => 2,
                }
            ),
            format!(
                "math={}",
                match self.math_mode {
                    MathMode::Safe => "safe",
                    MathMode::Fast => "fast",
                }
            ),
        ];
        for e in &self.entries {
            v.push(format!("entry={e}"));
        }
        let mut specs = self.specs.clone();
        specs.sort();
        for s in specs {
            v.push(format!("spec={}={}", s.id, s.text));
        }
        if let Some(text) = &self.binding_map_text {
            let h = Sha256::digest(text.as_bytes());
            let hex: String = h.iter().map(|b| format!("{b:02x}")).collect();
            v.push(format!("binding-map-sha256={hex}"));
        }
        v
    }
}
