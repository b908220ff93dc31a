//! The CPU backend's errors.

use std::time::Duration;

use crate::plan::{PlanError, ResourceKey};

/// Why the CPU backend could not compile or run something.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CpuError {
    /// An acceleration structure's scene cannot be built
    /// ([`crate::scene::TopLevel::check`]).
    #[error("acceleration structure: {0}")]
    Scene(#[from] crate::scene::SceneError),
    /// No usable clang++ was found.
    #[error("no clang++ >= 15 found (tried {tried}): install one, e.g. `apt-get install clang-19`, or set HALC_CLANG to a clang++ binary")]
    ClangNotFound {
        /// What was tried, and why each failed.
        tried: String,
    },
    /// `HALC_CLANG` names something that is not a usable clang++.
    #[error("HALC_CLANG=`{path}`: {message}")]
    BadClang {
        /// The value.
        path: String,
        /// Why.
        message: String,
    },
    /// clang rejected a kernel's MSL (or the generated wrapper).
    #[error("kernel `{kernel}`: clang++ rejected the MSL:\n{stderr}")]
    Compile {
        /// Kernel.
        kernel: String,
        /// clang's stderr (positions are `KERNEL.metal:LINE:COL` in the MSL).
        stderr: String,
    },
    /// The MSL breaks a rule of MSL that C++ would not enforce.
    #[error("kernel `{kernel}`: invalid MSL at line {line}: {message}")]
    InvalidMsl {
        /// Kernel.
        kernel: String,
        /// 1-based line in the MSL.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// Something the CPU backend does not support (yet).
    #[error("kernel `{kernel}`: not supported by the CPU backend: {what}")]
    Unsupported {
        /// Kernel.
        kernel: String,
        /// What.
        what: String,
    },
    /// A SIMD width the CPU backend cannot emulate.
    #[error(
        "SIMD width {width}: the CPU backend emulates SIMD groups of {} lanes (Apple GPUs have 32)",
        super::simd::SIMD_WIDTHS_TEXT
    )]
    SimdWidth {
        /// The width asked for.
        width: u32,
    },
    /// The kernel's library has no MSL source.
    #[error("kernel `{kernel}`: its library has no MSL source (the CPU backend runs MSL)")]
    NoMslSource {
        /// Kernel.
        kernel: String,
    },
    /// The kernel's MSL source is not UTF-8 (loading does not check it).
    #[error("kernel `{kernel}`: its library's MSL source is not UTF-8: {error}")]
    MslNotUtf8 {
        /// Kernel.
        kernel: String,
        /// Where the bytes stop being UTF-8.
        error: std::str::Utf8Error,
    },
    /// No kernel of that name.
    #[error("no kernel named `{name}`; the kernels are: {}", available.join(", "))]
    KernelNotFound {
        /// The name.
        name: String,
        /// The kernels the executable has, in its order.
        available: Vec<String>,
    },
    /// A file-system or OS call failed.
    #[error("{what}: {message}")]
    Os {
        /// What was being done.
        what: String,
        /// The OS error.
        message: String,
    },
    /// A shared object could not be loaded.
    #[error("loading `{path}`: {message}")]
    Load {
        /// The file.
        path: String,
        /// dlopen's message.
        message: String,
    },
    /// The plan is invalid.
    #[error(transparent)]
    Plan(#[from] PlanError),
    /// The kernel declares `[[buffer(N)]]` and the plan never set slot N.
    #[error(
        "kernel `{kernel}`: parameter `{param}` is [[buffer({index})]], which the plan never sets"
    )]
    UnboundSlot {
        /// Kernel.
        kernel: String,
        /// The parameter's name in the MSL.
        param: String,
        /// The slot.
        index: u32,
    },
    /// A `[[buffer(N)]]` parameter declared as a reference to a struct
    /// (`constant Push& pc`, `device Data& d`) is bound to fewer bytes than
    /// the struct has: Metal's API validation refuses such a dispatch
    /// ("has space for L bytes, but argument has a length(S)").
    #[error(
        "kernel `{kernel}`: parameter `{param}` at [[buffer({index})]] is a struct of {needs} bytes, but only {length} are bound there (Metal's validation refuses a binding shorter than the struct)"
    )]
    ShortBinding {
        /// Kernel.
        kernel: String,
        /// The parameter's name in the MSL.
        param: String,
        /// The slot.
        index: u32,
        /// Bytes bound from the slot's offset on.
        length: u64,
        /// `sizeof` of the struct.
        needs: u64,
    },
    /// The kernel declares `[[texture(N)]]` or `[[sampler(N)]]` and the plan
    /// never set slot N.
    #[error(
        "kernel `{kernel}`: parameter `{param}` is [[{attribute}]], which the plan never sets"
    )]
    UnboundResourceSlot {
        /// Kernel.
        kernel: String,
        /// The parameter's name in the MSL.
        param: String,
        /// `texture(N)` or `sampler(N)`.
        attribute: String,
    },
    /// An argument-buffer member holds a resource id that is no bound
    /// texture's (or sampler's).
    #[error("kernel `{kernel}`: the argument buffer of set {set} holds {id:#x} at byte offset {byte_offset} (member for {key}), which is no bound {what}'s resource id")]
    StrayResourceId {
        /// Kernel.
        kernel: String,
        /// Set.
        set: u32,
        /// Byte offset.
        byte_offset: u32,
        /// The member's binding.
        key: ResourceKey,
        /// The id found.
        id: u64,
        /// `texture` or `sampler`.
        what: &'static str,
    },
    /// A texture or sampler descriptor Metal would refuse.
    #[error("invalid {what} descriptor: {message}")]
    InvalidDescriptor {
        /// `texture` or `sampler`.
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
    /// A buffer reached through an argument buffer was not made resident.
    #[error("kernel `{kernel}`: {key} is reached through the argument buffer of set {set} (byte offset {byte_offset}) but no useResource makes it resident; a GPU can hang or fault")]
    NotResident {
        /// Kernel.
        kernel: String,
        /// The binding whose buffer is not resident.
        key: ResourceKey,
        /// The argument buffer's set.
        set: u32,
        /// Byte offset of the member.
        byte_offset: u32,
    },
    /// An argument-buffer member holds an address outside every bound buffer.
    #[error("kernel `{kernel}`: the argument buffer of set {set} holds {address:#x} at byte offset {byte_offset} (member for {key}), which is inside no bound buffer")]
    StrayAddress {
        /// Kernel.
        kernel: String,
        /// Set.
        set: u32,
        /// Byte offset.
        byte_offset: u32,
        /// The member's binding.
        key: ResourceKey,
        /// The address found.
        address: u64,
    },
    /// The plan refers to a binding element that is not bound.
    #[error("{key}: {message}")]
    Inconsistent {
        /// Where.
        key: ResourceKey,
        /// What.
        message: &'static str,
    },
    /// A bound range is outside its buffer.
    #[error("{key}: range {offset}..{end} is outside the buffer ({len} bytes)")]
    RangeOutOfBounds {
        /// Where.
        key: ResourceKey,
        /// Offset.
        offset: u64,
        /// End.
        end: u64,
        /// Buffer length.
        len: u64,
    },
    /// Host access outside a buffer.
    #[error("host access {offset}..{end} is outside the buffer ({len} bytes)")]
    HostAccessOutOfBounds {
        /// Offset.
        offset: u64,
        /// End.
        end: u64,
        /// Length.
        len: u64,
    },
    /// Host access to a private buffer ([`crate::memory::MemoryType::DeviceLocal`]),
    /// which Metal refuses.
    #[error("the buffer is private to the device (MemoryType::DeviceLocal); copy it to a host-visible buffer first")]
    NotHostVisible,
    /// A host read of a managed buffer the device wrote since its last
    /// synchronize (a device emulating a Mac without unified memory).
    #[error("the buffer is managed (MemoryType::DeviceLocalHostVisible without unified memory) and the device wrote it: record CommandBuffer::synchronize(&buffer) after the write, or the host reads stale bytes on such a Mac")]
    NotSynchronized,
    /// Buffers cannot be empty (as in Metal).
    #[error("a buffer cannot be empty")]
    ZeroLength,
    /// A Metal limit is exceeded.
    #[error("kernel `{kernel}`: {message}")]
    Limit {
        /// Kernel.
        kernel: String,
        /// Which limit.
        message: String,
    },
    /// The kernel crashed (out-of-bounds access, arithmetic trap, ...).
    #[error("kernel `{kernel}`: {message}")]
    Fault {
        /// Kernel.
        kernel: String,
        /// What happened, where.
        message: String,
        /// Which kind of fault.
        kind: FaultKind,
    },
    /// The kernel did something undefined in Metal that the executor caught
    /// (a barrier not reached by every thread, too much threadgroup memory).
    #[error("kernel `{kernel}`: {message}")]
    Kernel {
        /// Kernel.
        kernel: String,
        /// What.
        message: String,
    },
    /// A fill or copy breaks the contract of [`crate::transfer`].
    #[error(transparent)]
    Transfer(#[from] crate::transfer::TransferError),
    /// A semaphore wait gave up.
    #[error("timed out after {waited_ms} ms waiting for the semaphore to reach {value} (it is at {current})")]
    SemaphoreTimeout {
        /// Awaited value.
        value: u64,
        /// Value when the wait gave up.
        current: u64,
        /// Milliseconds waited.
        waited_ms: u128,
    },
    /// A semaphore was signalled to a value below its current one.
    #[error("semaphore signalled to {value}, below its current value {current}: timeline values only grow")]
    SemaphoreBackwards {
        /// Current value.
        current: u64,
        /// Requested value.
        value: u64,
    },
    /// A semaphore waited on failed: a submission that was to signal it failed.
    #[error(
        "waiting for the semaphore to reach {value} (it is at {current}): it failed: {message}"
    )]
    SemaphoreFailed {
        /// Awaited value.
        value: u64,
        /// Its value.
        current: u64,
        /// The failed submission's error.
        message: String,
    },
    /// A submission was dropped by its queue before it ran (the queue's
    /// thread ended).
    #[error("the queue ended before the submission completed")]
    QueueLost,
    /// The dispatch ran past its time limit and was killed.
    #[error("kernel `{kernel}`: the dispatch did not finish within the time limit of {limit:?} (endless loop?); it was killed")]
    Timeout {
        /// Kernel.
        kernel: String,
        /// The limit.
        limit: Duration,
    },
}

impl CpuError {
    pub(super) fn os(what: impl Into<String>) -> CpuError {
        CpuError::Os {
            what: what.into(),
            message: std::io::Error::last_os_error().to_string(),
        }
    }
}

/// What kind of fault ended a dispatch ([`CpuError::Fault`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FaultKind {
    /// An access past the end or before the start of a buffer or of
    /// threadgroup memory, within the guard zones around it (64 GiB each
    /// side: any 32-bit index of an element of up to 16 bytes).
    OutOfBounds,
    /// An access far from every buffer: an address in no mapping, or one the
    /// CPU refused without naming it (non-canonical, or a misaligned vector
    /// access), or a fiber's stack overflowing.
    OutsideBuffers,
    /// SIGFPE that the executor could not complete: an integer division by
    /// zero or `INT_MIN / -1` is undefined in MSL and a GPU gives some
    /// value, so the executor gives halc's value and goes on
    /// ([`super::Device::undefined_divisions`] counts them); this is left
    /// for a trapping instruction it does not decode.
    IntegerDivision,
    /// A load or store through a null pointer.
    NullPointer,
    /// SIGILL or SIGTRAP: a trap the compiler placed for undefined
    /// behaviour or unreachable code.
    Trap,
    /// A system call the sandbox does not allow: the kernel tried to do
    /// something other than compute (open a file or a socket, start a
    /// program, signal another process).
    Forbidden,
    /// Anything else: an abort, an invalid access inside a buffer's own
    /// pages, the dispatch process killed or exiting unexpectedly.
    Other,
}

impl FaultKind {
    /// Whether a correctly compiled kernel can fault this way because of
    /// the data alone: an index read from a buffer that goes out of bounds
    /// or far past every buffer, or a divisor that is zero (in the rare
    /// division the executor does not complete). A test that
    /// feeds a kernel random data learns nothing from such a fault.
    pub fn may_come_from_data(self) -> bool {
        matches!(
            self,
            FaultKind::OutOfBounds | FaultKind::OutsideBuffers | FaultKind::IntegerDivision
        )
    }
}
