//! The dispatch plan: pure Rust, every platform.
//!
//! Given a verified [`Kernel`], its [`Specialization`], the resources bound
//! to it ([`Bindings`], keyed by (set, binding)), the push-constant bytes and
//! a [`Grid`], [`DispatchPlan::new`] produces the exact list of compute
//! encoder [`Command`]s, and the bytes of every argument buffer. Everything
//! that can be wrong with a dispatch is reported here as a [`PlanError`],
//! before anything reaches a GPU. The Metal runtime (`crate::metal`) maps
//! each command to exactly one Metal call and adds no logic of its own.
//!
//! Command order (the one IREE's Metal driver uses):
//! 1. push constants: `setBytes` at `PushConstants.buffer_index`;
//! 2. per argument buffer, in ascending set order: `setBuffer` of the
//!    argument buffer, `useResource` of its sizes table if it has one, then
//!    `useResource` of every buffer and texture it points to;
//! 3. discrete bindings in (set, binding) order: `setBuffer` /
//!    `setTexture` / `setSamplerState`, one per array element;
//! 4. the kernel-level buffer-sizes table: `setBytes`;
//! 5. `dispatchThreadgroups:threadsPerThreadgroup:`.
//!
//! The caller's `setComputePipelineState` comes before all of them.

use std::collections::BTreeMap;
use std::fmt;

use crate::kernel::Kernel;
use crate::schema::{Access, BindingKind, MetalLimits, Platform, ScalarType};
use crate::verify::{bits_fit, kind_parts, Part};

/// Offset alignment for storage buffers: Apple's rule for device-address
/// buffers is the alignment of the data the kernel reads, "always less than
/// or equal to 16 bytes"; the format does not record the type, so 16.
pub const STORAGE_BUFFER_OFFSET_ALIGNMENT: u64 = 16;

/// Offset alignment for uniform buffers (Metal's constant address space):
/// 256 bytes on macOS, 16 on iOS (Apple's `setBuffer:offset:atIndex:`).
pub fn uniform_buffer_offset_alignment(platform: Platform) -> u64 {
    if platform == Platform::MacOS {
        256
    } else {
        16
    }
}

/// One array element of one binding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ResourceKey {
    /// Descriptor set.
    pub set: u32,
    /// Binding in the set.
    pub binding: u32,
    /// Array element (0 for a plain resource).
    pub element: u32,
}

impl fmt::Display for ResourceKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "(set {}, binding {}", self.set, self.binding)?;
        if self.element != 0 {
            write!(f, ", element {}", self.element)?;
        }
        f.write_str(")")
    }
}

/// A bound buffer range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BufferBinding {
    /// `MTLBuffer.gpuAddress` (Metal 3); any value when argument buffers are
    /// written through an `MTLArgumentEncoder` or bindings are discrete.
    pub gpu_address: u64,
    /// Byte offset of the range in the buffer.
    pub offset: u64,
    /// Byte length of the range: what the kernel sees, and what a buffer-sizes
    /// table records.
    pub length: u64,
}

/// What is bound to one array element of a binding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resource {
    /// Storage or uniform buffer.
    Buffer(BufferBinding),
    /// Storage / sampled image or texel buffer: the texture's
    /// `gpuResourceID` (argument buffers, Metal 3).
    Texture {
        /// `MTLResourceID` as a u64.
        resource_id: u64,
    },
    /// Sampler: its `gpuResourceID`.
    Sampler {
        /// `MTLResourceID` as a u64.
        resource_id: u64,
    },
    /// Combined image-sampler.
    CombinedImageSampler {
        /// The texture's `MTLResourceID`.
        texture_id: u64,
        /// The sampler's `MTLResourceID`.
        sampler_id: u64,
    },
}

impl Resource {
    fn what(&self) -> &'static str {
        match self {
            Resource::Buffer(_) => "a buffer",
            Resource::Texture { .. } => "a texture",
            Resource::Sampler { .. } => "a sampler",
            Resource::CombinedImageSampler { .. } => "a texture and sampler",
        }
    }
}

fn expected_resource(kind: BindingKind) -> &'static str {
    match kind_parts(kind) {
        Some((Some(Part::Buffer), _)) => "a buffer",
        Some((Some(Part::Texture), false)) => "a texture",
        Some((Some(Part::Texture), true)) => "a texture and sampler",
        _ => "a sampler",
    }
}

/// Resources bound to a dispatch, keyed by (set, binding); an array binding
/// takes one [`Resource`] per element.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Bindings {
    map: BTreeMap<(u32, u32), Vec<Resource>>,
}

impl Bindings {
    /// No bindings.
    pub fn new() -> Self {
        Self::default()
    }

    /// Binds `resource` to (set, binding), replacing what was there.
    pub fn bind(&mut self, set: u32, binding: u32, resource: Resource) -> &mut Self {
        self.map.insert((set, binding), vec![resource]);
        self
    }

    /// Binds an array binding, one resource per element.
    pub fn bind_array(
        &mut self,
        set: u32,
        binding: u32,
        elements: impl IntoIterator<Item = Resource>,
    ) -> &mut Self {
        self.map
            .insert((set, binding), elements.into_iter().collect());
        self
    }

    /// Binds a buffer range to (set, binding).
    pub fn buffer(
        &mut self,
        set: u32,
        binding: u32,
        gpu_address: u64,
        offset: u64,
        length: u64,
    ) -> &mut Self {
        self.bind(
            set,
            binding,
            Resource::Buffer(BufferBinding {
                gpu_address,
                offset,
                length,
            }),
        )
    }

    /// What is bound to (set, binding).
    pub fn get(&self, set: u32, binding: u32) -> Option<&[Resource]> {
        self.map.get(&(set, binding)).map(Vec::as_slice)
    }

    /// The resource of one element.
    pub fn resource(&self, key: ResourceKey) -> Option<&Resource> {
        self.get(key.set, key.binding)?.get(key.element as usize)
    }

    /// Every (set, binding) with its elements, in (set, binding) order.
    pub fn iter(&self) -> impl Iterator<Item = ((u32, u32), &[Resource])> {
        self.map.iter().map(|(k, v)| (*k, v.as_slice()))
    }

    /// Number of bound (set, binding) pairs.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether nothing is bound.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

impl From<BufferBinding> for Resource {
    fn from(b: BufferBinding) -> Self {
        Resource::Buffer(b)
    }
}

/// Something resources can be bound into by (set, binding): the portable
/// [`Bindings`] (any `R` that converts into a [`Resource`]) and both
/// backends' `ResourceBindings` (`&Buffer` and `Bound`). The Rust bindings `halc::build`
/// generates bind a kernel's typed argument struct through this trait, each
/// field to its own (set, binding).
pub trait BindResources<R> {
    /// Binds `elements` (one per array element; one for a plain resource)
    /// to (set, binding), replacing what was there.
    fn bind_resources(&mut self, set: u32, binding: u32, elements: &[R]);
}

impl<R: Copy + Into<Resource>> BindResources<R> for Bindings {
    fn bind_resources(&mut self, set: u32, binding: u32, elements: &[R]) {
        self.bind_array(set, binding, elements.iter().map(|&r| r.into()));
    }
}

/// A value for an open specialization constant (a function constant).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpecValue {
    /// SpecId / function-constant id.
    pub id: u32,
    /// Raw bits, zero-extended (as `FunctionConstant.default_bits`).
    pub bits: u64,
}

impl SpecValue {
    /// A u32 value.
    pub fn u32(id: u32, value: u32) -> Self {
        SpecValue {
            id,
            bits: u64::from(value),
        }
    }

    /// An i32 value.
    pub fn i32(id: u32, value: i32) -> Self {
        SpecValue {
            id,
            bits: u64::from(value as u32),
        }
    }

    /// An f32 value.
    pub fn f32(id: u32, value: f32) -> Self {
        SpecValue {
            id,
            bits: u64::from(value.to_bits()),
        }
    }

    /// A bool value.
    pub fn bool(id: u32, value: bool) -> Self {
        SpecValue {
            id,
            bits: u64::from(value),
        }
    }
}

/// The value a function constant takes in a pipeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConstantValue {
    /// Function-constant id.
    pub id: u32,
    /// Its type.
    pub ty: ScalarType,
    /// Raw bits, zero-extended.
    pub bits: u64,
}

/// A kernel's function constants resolved against specialization values:
/// what a pipeline is created with, and the threadgroup size it implies.
///
/// Only the constants given a value are set at pipeline creation. The others
/// stay unset, so every declaration of their SpecId keeps its own default
/// (SPIR-V may declare one SpecId on several constants with different
/// defaults, e.g. a workgroup size and a block size; SPIRV-Cross's MSL reads
/// `is_function_constant_defined(c) ? c : default` for each).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Specialization {
    kernel: String,
    constants: Vec<ConstantValue>,
    threads: [u32; 3],
}

impl Specialization {
    /// No function constant set: every declaration at its own default.
    pub fn defaults(kernel: &Kernel<'_>) -> Self {
        Specialization {
            kernel: kernel.name().to_owned(),
            constants: Vec::new(),
            threads: kernel.default_threads_per_threadgroup(),
        }
    }

    /// Sets `values`. Each id must name a function constant of the kernel,
    /// at most once, with bits that fit its type; a threadgroup dimension
    /// driven by a constant takes its value, and the resulting threadgroup
    /// must fit `max_threads_per_threadgroup`.
    pub fn new(kernel: &Kernel<'_>, values: &[SpecValue]) -> Result<Self, PlanError> {
        let mut spec = Self::defaults(kernel);
        let name = || kernel.name().to_owned();
        for (i, v) in values.iter().enumerate() {
            if values[..i].iter().any(|o| o.id == v.id) {
                return Err(PlanError::DuplicateSpecValue {
                    kernel: name(),
                    id: v.id,
                });
            }
            let Some(c) = kernel.function_constant(v.id) else {
                if kernel.baked_constants().any(|b| b.id() == v.id) {
                    return Err(PlanError::BakedSpecConstant {
                        kernel: name(),
                        id: v.id,
                    });
                }
                return Err(PlanError::UnknownSpecConstant {
                    kernel: name(),
                    id: v.id,
                });
            };
            if !bits_fit(c.type_(), v.bits) {
                return Err(PlanError::SpecValueOutOfRange {
                    kernel: name(),
                    id: v.id,
                    ty: c.type_().variant_name().unwrap_or("?"),
                    bits: v.bits,
                });
            }
            spec.constants.push(ConstantValue {
                id: v.id,
                ty: c.type_(),
                bits: v.bits,
            });
        }
        spec.constants.sort_by_key(|c| c.id);
        let limit = kernel.max_threads_per_threadgroup();
        for (i, d) in kernel.threadgroup_size().iter().enumerate() {
            let Some(id) = d.spec_id else { continue };
            let Some(c) = spec.constants.iter().find(|c| c.id == id) else {
                continue; // not set: the dimension's own default
            };
            let size = match sign_extend(c.ty, c.bits) {
                Some(v) if (1..=i64::from(limit)).contains(&v) => v as u32,
                _ => {
                    return Err(PlanError::ThreadgroupDimension {
                        kernel: name(),
                        dim: i,
                        spec_id: id,
                        bits: c.bits,
                        limit,
                    })
                }
            };
            spec.threads[i] = size;
        }
        let total: u64 = spec.threads.iter().map(|&t| u64::from(t)).product();
        if total > u64::from(limit) {
            return Err(PlanError::ThreadgroupTooLarge {
                kernel: name(),
                size: spec.threads,
                limit,
            });
        }
        Ok(spec)
    }

    /// Name of the kernel it belongs to.
    pub fn kernel(&self) -> &str {
        &self.kernel
    }

    /// The function constants set, by ascending id: a pipeline sets these
    /// and leaves every other function constant of the kernel unset.
    pub fn constants(&self) -> &[ConstantValue] {
        &self.constants
    }

    /// Threads per threadgroup after specialization.
    pub fn threads_per_threadgroup(&self) -> [u32; 3] {
        self.threads
    }
}

/// An integer constant's value, sign-extended for signed types.
fn sign_extend(ty: ScalarType, bits: u64) -> Option<i64> {
    Some(match ty {
        ScalarType::Int8 => i64::from(bits as u8 as i8),
        ScalarType::Int16 => i64::from(bits as u16 as i16),
        ScalarType::Int32 => i64::from(bits as u32 as i32),
        ScalarType::Int64 => bits as i64,
        ScalarType::UInt8 | ScalarType::UInt16 | ScalarType::UInt32 | ScalarType::UInt64 => {
            i64::try_from(bits).ok()?
        }
        _ => return None,
    })
}

/// How large the dispatch is.
///
/// Counts are `u32`, the type of everything a kernel sees of its grid
/// (`gl_GlobalInvocationID`, `gl_NumWorkGroups`, the generated
/// `THREADS_PER_THREADGROUP`), as of a Vulkan `vkCmdDispatch`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grid {
    /// Total threads per dimension; the threadgroup count is the ceiling of
    /// this over the threadgroup size (the kernel must bounds-check).
    Threads([u32; 3]),
    /// Threadgroups per dimension.
    Threadgroups([u32; 3]),
}

/// `useResource:usage:`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Usage {
    /// `MTLResourceUsageRead`.
    Read,
    /// `MTLResourceUsageRead | MTLResourceUsageWrite`.
    ReadWrite,
}

/// What a `setBytes` carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BytesPurpose {
    /// The push-constant block.
    PushConstants,
    /// The kernel-level buffer-sizes table (u32 byte lengths).
    SizesTable,
}

/// One compute-encoder call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// `setBytes:length:atIndex:`.
    SetBytes {
        /// `[[buffer(N)]]`.
        index: u32,
        /// The bytes.
        bytes: Vec<u8>,
        /// What they are.
        purpose: BytesPurpose,
    },
    /// `setBuffer:offset:atIndex:` of the argument buffer of `set`, whose
    /// contents are `DispatchPlan::argument_buffer(set)`.
    SetArgumentBuffer {
        /// `[[buffer(N)]]`.
        index: u32,
        /// Descriptor set.
        set: u32,
    },
    /// `useResource:usage:` (read) of the buffer holding the sizes table of
    /// the argument buffer of `set`.
    UseSizesTable {
        /// Descriptor set.
        set: u32,
    },
    /// `setBuffer:offset:atIndex:` of a bound buffer.
    SetBuffer {
        /// `[[buffer(N)]]`.
        index: u32,
        /// The bound resource.
        key: ResourceKey,
        /// Byte offset.
        offset: u64,
    },
    /// `setTexture:atIndex:` of a bound texture (or the texture of a combined
    /// image-sampler).
    SetTexture {
        /// `[[texture(N)]]`.
        index: u32,
        /// The bound resource.
        key: ResourceKey,
    },
    /// `setSamplerState:atIndex:` of a bound sampler (or the sampler of a
    /// combined image-sampler).
    SetSamplerState {
        /// `[[sampler(N)]]`.
        index: u32,
        /// The bound resource.
        key: ResourceKey,
    },
    /// `useResource:usage:` of a buffer or texture reached only through an
    /// argument buffer.
    UseResource {
        /// The bound resource.
        key: ResourceKey,
        /// Usage.
        usage: Usage,
    },
    /// `dispatchThreadgroups:threadsPerThreadgroup:`.
    Dispatch {
        /// Threadgroups per dimension.
        threadgroups: [u64; 3],
        /// Threads per threadgroup.
        threads_per_threadgroup: [u32; 3],
    },
}

impl fmt::Display for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Command::SetBytes {
                index,
                bytes,
                purpose,
            } => {
                let what = match purpose {
                    BytesPurpose::PushConstants => "push constants",
                    BytesPurpose::SizesTable => "buffer-sizes table",
                };
                write!(
                    f,
                    "setBytes({} bytes of {what}) at buffer({index})",
                    bytes.len()
                )
            }
            Command::SetArgumentBuffer { index, set } => {
                write!(
                    f,
                    "setBuffer(argument buffer of set {set}) at buffer({index})"
                )
            }
            Command::UseSizesTable { set } => {
                write!(f, "useResource(sizes table of set {set}, read)")
            }
            Command::SetBuffer { index, key, offset } => {
                write!(f, "setBuffer({key}, offset {offset}) at buffer({index})")
            }
            Command::SetTexture { index, key } => {
                write!(f, "setTexture({key}) at texture({index})")
            }
            Command::SetSamplerState { index, key } => {
                write!(f, "setSamplerState({key}) at sampler({index})")
            }
            Command::UseResource { key, usage } => {
                let usage = match usage {
                    Usage::Read => "read",
                    Usage::ReadWrite => "read-write",
                };
                write!(f, "useResource({key}, {usage})")
            }
            Command::Dispatch {
                threadgroups: g,
                threads_per_threadgroup: t,
            } => write!(
                f,
                "dispatchThreadgroups({}x{}x{}, threadsPerThreadgroup {}x{}x{})",
                g[0], g[1], g[2], t[0], t[1], t[2]
            ),
        }
    }
}

/// The value of one argument-buffer member.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemberValue {
    /// A buffer: `gpu_address + offset` in Metal 3.
    Buffer {
        /// Base GPU address.
        gpu_address: u64,
        /// Byte offset.
        offset: u64,
    },
    /// A texture's resource id.
    Texture {
        /// `MTLResourceID`.
        resource_id: u64,
    },
    /// A sampler's resource id.
    Sampler {
        /// `MTLResourceID`.
        resource_id: u64,
    },
}

/// One element of a binding inside an argument buffer: what an
/// `MTLArgumentEncoder` sets at `[[id(id)]]`, and what the Metal 3 encoding
/// writes at `byte_offset`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArgumentMember {
    /// `[[id(N)]]`.
    pub id: u32,
    /// Byte offset in the argument buffer.
    pub byte_offset: u32,
    /// The bound resource.
    pub key: ResourceKey,
    /// Its value.
    pub value: MemberValue,
}

/// The buffer-sizes table member of an argument buffer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgumentSizesTable {
    /// `[[id(N)]]` of the member.
    pub id: u32,
    /// Byte offset of the member; the plan leaves those 8 bytes zero: the
    /// executor uploads `lengths` and writes that buffer's GPU address there.
    pub byte_offset: u32,
    /// Byte lengths, indexed by `Binding.sizes_index` (+ element).
    pub lengths: Vec<u32>,
}

impl ArgumentSizesTable {
    /// `lengths` as little-endian bytes.
    pub fn bytes(&self) -> Vec<u8> {
        self.lengths.iter().flat_map(|l| l.to_le_bytes()).collect()
    }
}

/// The contents of one argument buffer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgumentBufferPlan {
    /// Descriptor set.
    pub set: u32,
    /// `[[buffer(N)]]`.
    pub buffer_index: u32,
    /// Metal 3 (tier 2) encoding, `ArgumentBuffer.size` bytes: little-endian
    /// `gpu_address + offset` for buffers, resource ids for textures and
    /// samplers, each at its member's byte offset.
    pub bytes: Vec<u8>,
    /// Every member, by binding and element (the `MTLArgumentEncoder` path).
    pub members: Vec<ArgumentMember>,
    /// The sizes table, if the set has one.
    pub sizes_table: Option<ArgumentSizesTable>,
}

/// Everything one dispatch does, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DispatchPlan {
    /// Name of the kernel.
    pub kernel: String,
    /// Threads per threadgroup (after specialization).
    pub threads_per_threadgroup: [u32; 3],
    /// Threadgroups per dimension.
    pub threadgroups: [u64; 3],
    /// Argument buffers, in ascending set order.
    pub argument_buffers: Vec<ArgumentBufferPlan>,
    /// Encoder commands, in order.
    pub commands: Vec<Command>,
}

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

fn ceil_div(a: u64, b: u64) -> u64 {
    a / b + u64::from(a % b != 0)
}

fn usage(kind: BindingKind, access: Access) -> Usage {
    match kind {
        BindingKind::StorageBuffer
        | BindingKind::StorageImage
        | BindingKind::StorageTexelBuffer
            if access != Access::ReadOnly =>
        {
            Usage::ReadWrite
        }
        _ => Usage::Read,
    }
}

impl DispatchPlan {
    /// Plans one dispatch of `kernel`. See the module documentation for the
    /// order of the commands.
    pub fn new(
        kernel: &Kernel<'_>,
        spec: &Specialization,
        bindings: &Bindings,
        push_constants: &[u8],
        grid: Grid,
    ) -> Result<Self, PlanError> {
        let name = || kernel.name().to_owned();
        if spec.kernel != kernel.name() {
            return Err(PlanError::SpecializationMismatch {
                kernel: name(),
                other: spec.kernel.clone(),
            });
        }
        let threads = spec.threads;
        let threadgroups = match grid {
            Grid::Threads(t) => {
                std::array::from_fn(|i| ceil_div(u64::from(t[i]), u64::from(threads[i])))
            }
            Grid::Threadgroups(g) => g.map(u64::from),
        };
        if threadgroups.contains(&0) {
            return Err(PlanError::EmptyGrid {
                kernel: name(),
                grid,
            });
        }

        let mut commands = Vec::new();

        // 1. Push constants.
        match kernel.push_constants() {
            Some(p) if push_constants.len() == p.size as usize => {
                commands.push(Command::SetBytes {
                    index: p.buffer_index,
                    bytes: push_constants.to_vec(),
                    purpose: BytesPurpose::PushConstants,
                })
            }
            None if push_constants.is_empty() => {}
            p => {
                return Err(PlanError::PushConstantSize {
                    kernel: name(),
                    expected: p.map_or(0, |p| p.size),
                    found: push_constants.len(),
                })
            }
        }

        // Every bound (set, binding) must exist in the kernel.
        for ((set, binding), _) in bindings.iter() {
            if kernel.binding(set, binding).is_none() {
                return Err(PlanError::UnexpectedBinding {
                    kernel: name(),
                    set,
                    binding,
                });
            }
        }

        let platform = kernel.library().platform();
        let mut argument_buffers: Vec<ArgumentBufferPlan> = {
            let mut abs: Vec<_> = kernel.argument_buffers().collect();
            abs.sort_by_key(|a| a.set());
            abs.into_iter()
                .map(|a| ArgumentBufferPlan {
                    set: a.set(),
                    buffer_index: a.buffer_index(),
                    bytes: vec![0; a.size() as usize],
                    members: Vec::new(),
                    sizes_table: a.sizes_id().zip(a.sizes_byte_offset()).map(
                        |(id, byte_offset)| ArgumentSizesTable {
                            id,
                            byte_offset,
                            lengths: Vec::new(),
                        },
                    ),
                })
                .collect()
        };
        let mut uses: Vec<Vec<Command>> = vec![Vec::new(); argument_buffers.len()];
        let mut discrete = Vec::new();
        let mut sizes = kernel
            .sizes_buffer()
            .map(|s| vec![0u32; s.entries as usize]);

        for b in kernel.bindings() {
            let (set, binding) = (b.set(), b.binding());
            let Some(elements) = bindings.get(set, binding) else {
                return Err(PlanError::MissingBinding {
                    kernel: name(),
                    set,
                    binding,
                });
            };
            if elements.len() != b.count() as usize {
                return Err(PlanError::ElementCount {
                    kernel: name(),
                    set,
                    binding,
                    expected: b.count(),
                    found: elements.len(),
                });
            }
            let ab = argument_buffers.iter().position(|a| a.set == set);
            let in_ab = b.id().is_some();
            let sampler_in_ab = b.sampler_id().is_some();
            for (e, r) in (0u32..).zip(elements) {
                let key = ResourceKey {
                    set,
                    binding,
                    element: e,
                };
                let wrong = || PlanError::WrongResource {
                    kernel: name(),
                    key,
                    expected: expected_resource(b.kind()),
                    found: r.what(),
                };
                // (buffer or texture value, sampler value)
                let (main, sampler) = match (kind_parts(b.kind()), *r) {
                    (Some((Some(Part::Buffer), false)), Resource::Buffer(buf)) => {
                        check_buffer(kernel, platform, b, key, &buf)?;
                        if let Some(si) = b.sizes_index() {
                            let length = u32::try_from(buf.length).map_err(|_| {
                                PlanError::LengthTooLarge {
                                    kernel: name(),
                                    key,
                                    length: buf.length,
                                }
                            })?;
                            let entry = si as usize + e as usize;
                            let table = match (in_ab, ab) {
                                (true, Some(ab)) => argument_buffers[ab]
                                    .sizes_table
                                    .as_mut()
                                    .map(|t| &mut t.lengths),
                                _ => sizes.as_mut(),
                            };
                            if let Some(table) = table {
                                if table.len() <= entry {
                                    table.resize(entry + 1, 0);
                                }
                                table[entry] = length;
                            }
                        }
                        (
                            Some(MemberValue::Buffer {
                                gpu_address: buf.gpu_address,
                                offset: buf.offset,
                            }),
                            None,
                        )
                    }
                    (Some((Some(Part::Texture), false)), Resource::Texture { resource_id }) => {
                        (Some(MemberValue::Texture { resource_id }), None)
                    }
                    (Some((None, true)), Resource::Sampler { resource_id }) => {
                        (None, Some(MemberValue::Sampler { resource_id }))
                    }
                    (
                        Some((Some(Part::Texture), true)),
                        Resource::CombinedImageSampler {
                            texture_id,
                            sampler_id,
                        },
                    ) => (
                        Some(MemberValue::Texture {
                            resource_id: texture_id,
                        }),
                        Some(MemberValue::Sampler {
                            resource_id: sampler_id,
                        }),
                    ),
                    _ => return Err(wrong()),
                };

                if let Some(value) = main {
                    match (in_ab, ab, b.id(), b.byte_offset()) {
                        (true, Some(ab), Some(id), Some(off)) => {
                            let byte_offset = off + e * MetalLimits::ArgumentBufferSlotBytes.0;
                            let a = &mut argument_buffers[ab];
                            write_member(&mut a.bytes, byte_offset, value);
                            a.members.push(ArgumentMember {
                                id: id + e,
                                byte_offset,
                                key,
                                value,
                            });
                            uses[ab].push(Command::UseResource {
                                key,
                                usage: usage(b.kind(), b.access()),
                            });
                        }
                        _ => match value {
                            MemberValue::Buffer { offset, .. } => {
                                discrete.push(Command::SetBuffer {
                                    index: b.buffer_index().unwrap_or(0) + e,
                                    key,
                                    offset,
                                })
                            }
                            _ => discrete.push(Command::SetTexture {
                                index: b.texture_index().unwrap_or(0) + e,
                                key,
                            }),
                        },
                    }
                }
                if let Some(value) = sampler {
                    match (sampler_in_ab, ab, b.sampler_id(), b.sampler_byte_offset()) {
                        (true, Some(ab), Some(id), Some(off)) => {
                            let byte_offset = off + e * MetalLimits::ArgumentBufferSlotBytes.0;
                            let a = &mut argument_buffers[ab];
                            write_member(&mut a.bytes, byte_offset, value);
                            a.members.push(ArgumentMember {
                                id: id + e,
                                byte_offset,
                                key,
                                value,
                            });
                        }
                        _ => discrete.push(Command::SetSamplerState {
                            index: b.sampler_index().unwrap_or(0) + e,
                            key,
                        }),
                    }
                }
            }
        }

        // 2. Argument buffers and the resources they reach.
        for (a, uses) in argument_buffers.iter().zip(uses) {
            commands.push(Command::SetArgumentBuffer {
                index: a.buffer_index,
                set: a.set,
            });
            if a.sizes_table.is_some() {
                commands.push(Command::UseSizesTable { set: a.set });
            }
            commands.extend(uses);
        }
        // 3. Discrete bindings.
        commands.extend(discrete);
        // 4. The kernel-level sizes table.
        if let (Some(layout), Some(lengths)) = (kernel.sizes_buffer(), sizes) {
            commands.push(Command::SetBytes {
                index: layout.buffer_index,
                bytes: lengths.iter().flat_map(|l| l.to_le_bytes()).collect(),
                purpose: BytesPurpose::SizesTable,
            });
        }
        // 5. Dispatch.
        commands.push(Command::Dispatch {
            threadgroups,
            threads_per_threadgroup: threads,
        });

        Ok(DispatchPlan {
            kernel: name(),
            threads_per_threadgroup: threads,
            threadgroups,
            argument_buffers,
            commands,
        })
    }

    /// The argument buffer of `set`.
    pub fn argument_buffer(&self, set: u32) -> Option<&ArgumentBufferPlan> {
        self.argument_buffers.iter().find(|a| a.set == set)
    }
}

impl fmt::Display for DispatchPlan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "dispatch of kernel `{}`:", self.kernel)?;
        for a in &self.argument_buffers {
            write!(
                f,
                "  argument buffer of set {} ({} bytes, {} members",
                a.set,
                a.bytes.len(),
                a.members.len()
            )?;
            if let Some(t) = &a.sizes_table {
                write!(f, ", sizes table of {} entries", t.lengths.len())?;
            }
            writeln!(f, ")")?;
        }
        for (i, c) in self.commands.iter().enumerate() {
            writeln!(f, "  {i}. {c}")?;
        }
        Ok(())
    }
}

/// Writes one 8-byte member (verified in range at load).
fn write_member(bytes: &mut [u8], byte_offset: u32, value: MemberValue) {
    let word = match value {
        MemberValue::Buffer {
            gpu_address,
            offset,
        } => gpu_address.wrapping_add(offset),
        MemberValue::Texture { resource_id } | MemberValue::Sampler { resource_id } => resource_id,
    };
    let start = byte_offset as usize;
    if let Some(dst) = bytes.get_mut(start..start + 8) {
        dst.copy_from_slice(&word.to_le_bytes());
    }
}

fn check_buffer(
    kernel: &Kernel<'_>,
    platform: Platform,
    b: crate::Binding<'_>,
    key: ResourceKey,
    buf: &BufferBinding,
) -> Result<(), PlanError> {
    let name = || kernel.name().to_owned();
    let alignment = if b.kind() == BindingKind::UniformBuffer {
        uniform_buffer_offset_alignment(platform)
    } else {
        STORAGE_BUFFER_OFFSET_ALIGNMENT
    };
    if buf.offset % alignment != 0 {
        return Err(PlanError::MisalignedOffset {
            kernel: name(),
            key,
            offset: buf.offset,
            alignment,
        });
    }
    if buf
        .gpu_address
        .checked_add(buf.offset)
        .and_then(|a| a.checked_add(buf.length))
        .is_none()
    {
        return Err(PlanError::AddressOverflow {
            kernel: name(),
            key,
            gpu_address: buf.gpu_address,
            offset: buf.offset,
            length: buf.length,
        });
    }
    if buf.length < b.min_size() {
        return Err(PlanError::BufferTooSmall {
            kernel: name(),
            key,
            length: buf.length,
            min_size: b.min_size(),
        });
    }
    Ok(())
}
