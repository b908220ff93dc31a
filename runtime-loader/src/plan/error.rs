//! Why a dispatch cannot be planned.

use super::{Grid, ResourceKey};

/// Why a dispatch cannot be planned.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    /// The specialization was made for another kernel.
    #[error("kernel `{kernel}`: the specialization belongs to kernel `{other}`")]
    SpecializationMismatch {
        /// Kernel.
        kernel: String,
        /// The specialization's kernel.
        other: String,
    },
    /// A specialization value names no function constant of the kernel.
    #[error("kernel `{kernel}`: no function constant has id {id}")]
    UnknownSpecConstant {
        /// Kernel.
        kernel: String,
        /// Id.
        id: u32,
    },
    /// A specialization value for a SpecId fixed when the kernel was built.
    #[error("kernel `{kernel}`: SpecId {id} was fixed when the kernel was built (by --spec, or because it sizes an array, which Metal needs constant): it is no function constant; rebuild with --spec {id}=VALUE to choose it")]
    BakedSpecConstant {
        /// Kernel.
        kernel: String,
        /// Id.
        id: u32,
    },
    /// Two values for one constant.
    #[error("kernel `{kernel}`: function constant {id} is given two values")]
    DuplicateSpecValue {
        /// Kernel.
        kernel: String,
        /// Id.
        id: u32,
    },
    /// The bits do not fit the constant's type.
    #[error("kernel `{kernel}`: value {bits:#x} does not fit function constant {id} ({ty})")]
    SpecValueOutOfRange {
        /// Kernel.
        kernel: String,
        /// Id.
        id: u32,
        /// Type.
        ty: &'static str,
        /// Bits.
        bits: u64,
    },
    /// A specialized threadgroup dimension is zero, negative or too large.
    #[error(
        "kernel `{kernel}`: threadgroup dimension {dim} from function constant {spec_id} is {bits:#x}, outside 1..={limit}"
    )]
    ThreadgroupDimension {
        /// Kernel.
        kernel: String,
        /// Dimension (0 = x).
        dim: usize,
        /// Function constant.
        spec_id: u32,
        /// Its bits.
        bits: u64,
        /// `max_threads_per_threadgroup`.
        limit: u32,
    },
    /// The specialized threadgroup has too many threads.
    #[error("kernel `{kernel}`: threadgroup {size:?} has more than {limit} threads (max_threads_per_threadgroup)")]
    ThreadgroupTooLarge {
        /// Kernel.
        kernel: String,
        /// Size.
        size: [u32; 3],
        /// Limit.
        limit: u32,
    },
    /// The grid is empty in some dimension.
    #[error("kernel `{kernel}`: grid {grid:?} is empty in some dimension")]
    EmptyGrid {
        /// Kernel.
        kernel: String,
        /// The grid.
        grid: Grid,
    },
    /// Push-constant bytes of the wrong size (0 expected: the kernel has none).
    #[error("kernel `{kernel}`: push constants are {found} bytes, the kernel takes {expected}")]
    PushConstantSize {
        /// Kernel.
        kernel: String,
        /// Expected.
        expected: u32,
        /// Found.
        found: usize,
    },
    /// A binding of the kernel has nothing bound.
    #[error("kernel `{kernel}`: nothing is bound to (set {set}, binding {binding})")]
    MissingBinding {
        /// Kernel.
        kernel: String,
        /// Set.
        set: u32,
        /// Binding.
        binding: u32,
    },
    /// Something is bound to a (set, binding) the kernel does not have.
    #[error("kernel `{kernel}`: it has no binding (set {set}, binding {binding})")]
    UnexpectedBinding {
        /// Kernel.
        kernel: String,
        /// Set.
        set: u32,
        /// Binding.
        binding: u32,
    },
    /// An array binding with the wrong number of elements.
    #[error("kernel `{kernel}`: (set {set}, binding {binding}) takes {expected} elements, {found} are bound")]
    ElementCount {
        /// Kernel.
        kernel: String,
        /// Set.
        set: u32,
        /// Binding.
        binding: u32,
        /// Expected.
        expected: u32,
        /// Found.
        found: usize,
    },
    /// The wrong kind of resource.
    #[error("kernel `{kernel}`: {key} takes {expected}, {found} is bound")]
    WrongResource {
        /// Kernel.
        kernel: String,
        /// Where.
        key: ResourceKey,
        /// What the binding takes.
        expected: &'static str,
        /// What was bound.
        found: &'static str,
    },
    /// A storage image whose atomics the kernel emulates is bound to a
    /// texture that was not created on a buffer.
    #[error("kernel `{kernel}`: {key} is a storage image whose atomics the kernel does through the buffer its texture was created on (MSL below 3.1): bind a texture created on a buffer (Device::atomic_texture), not a plain texture")]
    NeedsTextureOnBuffer {
        /// Kernel.
        kernel: String,
        /// Where.
        key: ResourceKey,
    },
    /// A texture on a buffer whose rows are not where the kernel's
    /// emulated image atomics look for them.
    #[error("kernel `{kernel}`: {key}: the texture's rows are {found} bytes apart, but the kernel's image atomics index its buffer with rows of {expected} bytes ({width} texels of 4 bytes, aligned to {alignment}): create it with Device::atomic_texture")]
    AtomicRowPitch {
        /// Kernel.
        kernel: String,
        /// Where.
        key: ResourceKey,
        /// The texture's width.
        width: u32,
        /// The alignment the kernel was compiled with.
        alignment: u32,
        /// The row pitch the kernel assumes.
        expected: u64,
        /// The texture's row pitch.
        found: u64,
    },
    /// A buffer offset breaks Metal's alignment rule.
    #[error("kernel `{kernel}`: {key} is bound at offset {offset}, which is not a multiple of {alignment}")]
    MisalignedOffset {
        /// Kernel.
        kernel: String,
        /// Where.
        key: ResourceKey,
        /// Offset.
        offset: u64,
        /// Required alignment.
        alignment: u64,
    },
    /// A bound range smaller than the block's fixed part.
    #[error("kernel `{kernel}`: {key} is bound with {length} bytes, the kernel needs at least {min_size}")]
    BufferTooSmall {
        /// Kernel.
        kernel: String,
        /// Where.
        key: ResourceKey,
        /// Bound length.
        length: u64,
        /// `Binding.min_size`.
        min_size: u64,
    },
    /// A length the kernel reads does not fit the u32 sizes table.
    #[error(
        "kernel `{kernel}`: {key} is {length} bytes long; the kernel reads its length as a u32"
    )]
    LengthTooLarge {
        /// Kernel.
        kernel: String,
        /// Where.
        key: ResourceKey,
        /// Bound length.
        length: u64,
    },
    /// `gpu_address + offset + length` overflows.
    #[error("kernel `{kernel}`: {key}: address {gpu_address:#x} + offset {offset} + length {length} overflows")]
    AddressOverflow {
        /// Kernel.
        kernel: String,
        /// Where.
        key: ResourceKey,
        /// Address.
        gpu_address: u64,
        /// Offset.
        offset: u64,
        /// Length.
        length: u64,
    },
}
