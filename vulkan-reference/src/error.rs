//! The crate's one error type.

use std::time::Duration;

use ash::vk;

/// Everything that can go wrong. Messages name the subject (the entry
/// point, the `(set, binding)`, the feature) and, for driver failures, the
/// Vulkan call and its result code.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// `libvulkan.so.1` could not be loaded.
    #[error(
        "cannot load the Vulkan loader ({reason}); install a Vulkan driver and loader, \
         e.g. `apt-get install mesa-vulkan-drivers libvulkan1` (Debian)"
    )]
    NoVulkan {
        /// What the dynamic loader said.
        reason: String,
    },
    /// The loader is present but no driver reports a physical device.
    #[error(
        "the Vulkan loader found no device: no driver (ICD) is installed or none works here; \
         install lavapipe with `apt-get install mesa-vulkan-drivers` (Debian){}",
        detail.as_deref().map(|d| format!(" ({d})")).unwrap_or_default()
    )]
    NoDevice {
        /// The failing result, when enumeration itself failed.
        detail: Option<String>,
    },
    /// No device matched the choice.
    #[error("{}; devices found: {}", wanted.as_deref().map(|w| format!("no Vulkan device name contains {w:?}")).unwrap_or_else(|| "lavapipe (llvmpipe, driver id MESA_LLVMPIPE) is not among the Vulkan devices: install `mesa-vulkan-drivers` or choose a device by name".to_string()), found.join(", "))]
    DeviceNotFound {
        /// The requested substring (`None`: the lavapipe default).
        wanted: Option<String>,
        /// Every device found, as `name (driver)`.
        found: Vec<String>,
    },
    /// The Vulkan instance or device is older than 1.1.
    #[error("{what} supports Vulkan {major}.{minor}; 1.1 or newer is needed")]
    TooOld {
        /// `the Vulkan loader` or the device name.
        what: String,
        /// Major version.
        major: u32,
        /// Minor version.
        minor: u32,
    },
    /// A feature name this crate does not know.
    #[error("unknown Vulkan feature {name:?} (expected a VkPhysicalDeviceFeatures field, an Amber `Struct.field` name or a `VK_…` extension)")]
    UnknownFeature {
        /// The name as given.
        name: String,
    },
    /// A device property name this crate does not know.
    #[error("unknown Vulkan device property {name:?} (expected `FloatControlsProperties.<VkBool32 field>`)")]
    UnknownProperty {
        /// The name as given.
        name: String,
    },
    /// Features, extensions or device properties (booleans that must be
    /// true) the device does not support.
    #[error("device {device:?} does not support: {}", names.join(", "))]
    UnsupportedFeatures {
        /// Device name.
        device: String,
        /// Every unsupported name, as given.
        names: Vec<String>,
    },
    /// The device has no queue family with compute.
    #[error("device {device:?} has no compute queue")]
    NoComputeQueue {
        /// Device name.
        device: String,
    },
    /// No memory type is host-visible and coherent.
    #[error("device {device:?} has no host-visible, host-coherent memory type")]
    NoHostMemory {
        /// Device name.
        device: String,
    },
    /// A Vulkan call failed.
    #[error("{call} failed: {result}")]
    Vulkan {
        /// The Vulkan function.
        call: &'static str,
        /// Its result code.
        result: vk::Result,
    },
    /// A buffer write or creation out of range.
    #[error("buffer: {0}")]
    Buffer(String),
    /// An image or sampler that cannot be made as asked, or image data
    /// of the wrong size.
    #[error("image: {0}")]
    Image(String),
    /// An acceleration structure could not be built: the scene (naming
    /// the instance or geometry), a feature the Reference was created
    /// without, or the failing call.
    #[error("acceleration structure: {0}")]
    AccelerationStructure(String),
    /// The SPIR-V module is malformed at the level this crate reads.
    #[error("invalid SPIR-V: {0}")]
    InvalidSpirv(String),
    /// No GLCompute entry point of that name.
    #[error("no compute entry point {entry:?} in the module (compute entry points: {})", if available.is_empty() { "none".to_string() } else { available.join(", ") })]
    EntryPoint {
        /// The requested name.
        entry: String,
        /// The module's GLCompute entry points.
        available: Vec<String>,
    },
    /// The module declares something (a capability, an extension, an
    /// execution mode, a zero-initialised Workgroup variable) whose
    /// feature or extension was not enabled, or that the device lacks.
    /// [`required_by_module`](crate::required_by_module) lists what to
    /// enable beforehand.
    #[error("entry point {entry:?}: the module declares {declares}, which needs {needs}")]
    MissingFeature {
        /// Entry point.
        entry: String,
        /// What the module declares: `capability Float16`, `extension
        /// SPV_KHR_…`, `execution mode SubgroupUniformControlFlowKHR`, ….
        declares: String,
        /// What to do about it (the feature name to ask for, or the
        /// missing device property).
        needs: String,
    },
    /// Subgroup size control the pipeline asks for that the device or
    /// the module's workgroup size does not allow.
    #[error("entry point {entry:?}: subgroup size control: {reason}")]
    Subgroup {
        /// Entry point.
        entry: String,
        /// What is wrong.
        reason: String,
    },
    /// A bad specialization constant.
    #[error("entry point {entry:?}: specialization constant {id}: {reason}")]
    Specialization {
        /// Entry point.
        entry: String,
        /// SpecId.
        id: u32,
        /// What is wrong.
        reason: String,
    },
    /// A bad binding description or bound buffer.
    #[error("entry point {entry:?}: (set {set}, binding {binding}): {reason}")]
    Binding {
        /// Entry point.
        entry: String,
        /// Descriptor set.
        set: u32,
        /// Binding.
        binding: u32,
        /// What is wrong.
        reason: String,
    },
    /// Bad push constants.
    #[error("entry point {entry:?}: push constants: {reason}")]
    PushConstants {
        /// Entry point.
        entry: String,
        /// What is wrong.
        reason: String,
    },
    /// A bad dispatch size.
    #[error(
        "entry point {entry:?}: workgroup count {groups:?} exceeds the device limit {limit:?}"
    )]
    Groups {
        /// Entry point.
        entry: String,
        /// The requested count.
        groups: [u32; 3],
        /// `maxComputeWorkGroupCount`.
        limit: [u32; 3],
    },
    /// The driver refused the shader module or the pipeline.
    #[error("entry point {entry:?}: {call} failed: {result}")]
    PipelineCreation {
        /// Entry point.
        entry: String,
        /// `vkCreateShaderModule` or `vkCreateComputePipelines`.
        call: &'static str,
        /// Result code.
        result: vk::Result,
    },
    /// The dispatch did not finish in time. The device keeps running it:
    /// see [`Reference::dispatch`](crate::Reference::dispatch).
    #[error("entry point {entry:?}: the dispatch did not finish within {timeout:?}")]
    Timeout {
        /// Entry point.
        entry: String,
        /// The time waited.
        timeout: Duration,
    },
    /// An earlier dispatch timed out and is still running on the device.
    #[error("the device is still running a dispatch of {entry:?} that timed out; wait with `Reference::wait_idle` or create a new Reference")]
    Busy {
        /// Entry point of the dispatch still running.
        entry: String,
    },
    /// The driver reported `VK_ERROR_DEVICE_LOST`; the `Reference` stays
    /// unusable.
    #[error("the Vulkan device was lost{}; create a new Reference", entry.as_deref().map(|e| format!(" (running entry point {e:?})")).unwrap_or_default())]
    DeviceLost {
        /// The entry point running when it was lost, if known.
        entry: Option<String>,
    },
    /// The child process running a [`Session`](crate::Session) ended or
    /// stopped answering: the driver crashed, or hung.
    #[error("the Vulkan driver's process {how} while {doing}; no result from it")]
    Crashed {
        /// What it was asked to do.
        doing: String,
        /// How it ended: `crashed (SIGSEGV)`, `did not answer within …`.
        how: String,
    },
    /// An error a [`Session`](crate::Session)'s child process reported, as
    /// it displayed it.
    #[error("{0}")]
    Remote(String),
    /// A buffer or pipeline from another `Reference`.
    #[error("{0} belongs to another Reference")]
    Foreign(&'static str),
}

/// Shorthand for this crate's results.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Maps a failed Vulkan call.
pub(crate) fn vk_err(call: &'static str) -> impl FnOnce(vk::Result) -> Error {
    move |result| Error::Vulkan { call, result }
}
