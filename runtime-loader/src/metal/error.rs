//! The Metal runtime's error type (defined on every platform, so callers can
//! name it unconditionally).

use crate::plan::{PlanError, ResourceKey};

/// Why a Metal operation failed.
#[derive(Debug, thiserror::Error)]
pub enum MetalError {
    /// Not an Apple platform.
    #[error("Metal is not available on this platform")]
    Unavailable,
    /// `MTLCreateSystemDefaultDevice` returned nothing.
    #[error("no Metal device found")]
    NoDevice,
    /// No device has that name.
    #[error("no Metal device named `{name}` (available: {available:?})")]
    DeviceNotFound {
        /// Requested name.
        name: String,
        /// Names of the devices found.
        available: Vec<String>,
    },
    /// A scene an acceleration structure cannot be built from
    /// ([`crate::scene::TopLevel::check`]).
    #[error("acceleration structure: {0}")]
    Scene(crate::scene::SceneError),
    /// Creating a Metal object returned nil.
    #[error("Metal could not create {what}")]
    Creation {
        /// What.
        what: String,
    },
    /// The executable has no kernel of that name.
    #[error("the executable has no kernel named `{name}`; the kernels are: {}", available.join(", "))]
    KernelNotFound {
        /// Name.
        name: String,
        /// The kernels the executable has, in its order.
        available: Vec<String>,
    },
    /// A library could not be created from its metallib or its MSL source.
    #[error("library {library}: {message}")]
    Library {
        /// Index in the executable.
        library: usize,
        /// Metal's messages, verbatim.
        message: String,
    },
    /// The library's MSL version is unknown to this runtime.
    #[error("library {library}: MSL version {major}.{minor} is not supported by this runtime")]
    LanguageVersion {
        /// Index in the executable.
        library: usize,
        /// Major.
        major: u16,
        /// Minor.
        minor: u16,
    },
    /// The kernel's function is missing from its library, or specializing it
    /// failed.
    #[error("kernel `{kernel}`: function `{msl_name}`: {message}")]
    Function {
        /// Kernel.
        kernel: String,
        /// MSL function name.
        msl_name: String,
        /// Metal's message.
        message: String,
    },
    /// A function constant of a type Metal does not have.
    #[error(
        "kernel `{kernel}`: function constant {id} has type {ty}, which Metal does not support"
    )]
    ConstantType {
        /// Kernel.
        kernel: String,
        /// Id.
        id: u32,
        /// Type.
        ty: &'static str,
    },
    /// `newComputePipelineState` failed.
    #[error("kernel `{kernel}`: cannot create the compute pipeline: {message}")]
    Pipeline {
        /// Kernel.
        kernel: String,
        /// Metal's message.
        message: String,
    },
    /// The pipeline supports fewer threads per threadgroup than the kernel
    /// uses: Metal would silently drop the dispatch.
    #[error(
        "kernel `{kernel}`: threadgroup {size:?} ({threads} threads) exceeds the pipeline's maxTotalThreadsPerThreadgroup of {pipeline_max}"
    )]
    ThreadgroupLimit {
        /// Kernel.
        kernel: String,
        /// Threadgroup size.
        size: [u32; 3],
        /// Threads in it.
        threads: u64,
        /// `MTLComputePipelineState.maxTotalThreadsPerThreadgroup`.
        pipeline_max: u64,
    },
    /// The device cannot run this pipeline's argument buffers as requested.
    #[error("kernel `{kernel}`: {message}")]
    ArgumentBuffers {
        /// Kernel.
        kernel: String,
        /// Why.
        message: String,
    },
    /// The dispatch plan rejected the dispatch.
    #[error(transparent)]
    Plan(#[from] PlanError),
    /// A bound range goes past the end of its buffer.
    #[error("{key}: range {offset}..{end} is outside the {len}-byte buffer")]
    RangeOutOfBounds {
        /// Where.
        key: ResourceKey,
        /// Offset.
        offset: u64,
        /// End of the range.
        end: u64,
        /// Buffer length.
        len: u64,
    },
    /// Host access out of bounds.
    #[error("host access {offset}..{end} is outside the {len}-byte buffer")]
    HostAccessOutOfBounds {
        /// Offset.
        offset: u64,
        /// End.
        end: u64,
        /// Buffer length.
        len: u64,
    },
    /// A texture or sampler descriptor Metal would refuse.
    #[error("invalid {what} descriptor: {message}")]
    InvalidDescriptor {
        /// `texture`, `texture view`, `texture on a buffer` or `sampler`.
        what: &'static str,
        /// Why.
        message: String,
    },
    /// A host upload or readback outside a texture (or with too few bytes).
    #[error("{texture}: {message}")]
    TextureAccess {
        /// The texture's label.
        texture: String,
        /// What is outside.
        message: String,
    },
    /// Host access to a private (GPU-only) buffer.
    #[error("the buffer is private to the GPU; copy it to a host-visible buffer first")]
    NotHostVisible,
    /// Metal allocates no zero-length buffers.
    #[error("cannot create a zero-length buffer")]
    ZeroLength,
    /// A fill or copy breaks the contract of [`crate::transfer`].
    #[error(transparent)]
    Transfer(#[from] crate::transfer::TransferError),
    /// The polyfill kernels ([`crate::transfer::POLYFILL_MSL`]) could not be
    /// built on this device.
    #[error("the fill/copy polyfill kernels: {message}")]
    Polyfill {
        /// Metal's message.
        message: String,
    },
    /// The command buffer failed on the GPU.
    #[error("command buffer failed ({status}): {message}")]
    CommandBuffer {
        /// `MTLCommandBufferStatus`.
        status: String,
        /// `NSError.localizedDescription`, verbatim.
        message: String,
    },
    /// The plan and the bound objects disagree (a bug in this crate: the plan
    /// is made from the same bindings).
    #[error("{key}: {message}")]
    Inconsistent {
        /// Where.
        key: ResourceKey,
        /// What.
        message: &'static str,
    },
    /// The plan makes resident a reached buffer the bindings do not hold (a
    /// bug in this crate, as [`MetalError::Inconsistent`]).
    #[error("the plan makes resident reached buffer {index}, which the bindings do not hold")]
    ReachedMissing {
        /// Its position among the reached buffers.
        index: u32,
    },
    /// A semaphore was signalled from the host to a value below its current
    /// one (Metal would accept it; timeline values only grow).
    #[error("semaphore signalled to {value}, below its current value {current}: timeline values only grow")]
    SemaphoreBackwards {
        /// Current value.
        current: u64,
        /// Requested value.
        value: u64,
    },
    /// A semaphore wait timed out.
    #[error("timed out after {waited_ms} ms waiting for the semaphore to reach {value} (it is at {current})")]
    SemaphoreTimeout {
        /// Awaited value.
        value: u64,
        /// Value when the wait gave up.
        current: u64,
        /// Milliseconds waited.
        waited_ms: u128,
    },
}
