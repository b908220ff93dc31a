//! The binding contract's values: the layout options (binding model,
//! platform, tier, pins) and where every resource of a kernel goes
//! ([`KernelLayout`]), computed by [`crate::msl::layout::layout`], read by
//! the MSL generator and the FlatBuffer writer. Metal's argument-table
//! limits are here too.

use serde::{Deserialize, Serialize};

use super::entry::{Access, BindingKind};

/// Bytes per argument-buffer element (Metal 3: a u64 GPU address or resource id).
pub const SLOT_BYTES: u32 = runtime_loader::schema::MetalLimits::ArgumentBufferSlotBytes.0;
/// Metal's buffer argument table size.
pub const MAX_BUFFER_SLOTS: u32 = runtime_loader::schema::MetalLimits::MaxBufferSlots.0;
/// Metal's texture argument table size.
pub const MAX_TEXTURE_SLOTS: u32 = runtime_loader::schema::MetalLimits::MaxTextureSlots.0;
/// Metal's sampler argument table size.
pub const MAX_SAMPLER_SLOTS: u32 = runtime_loader::schema::MetalLimits::MaxSamplerSlots.0;
/// Largest argument-buffer id halc accepts (Metal tier 2 allows 500 000
/// buffers per argument buffer).
pub const MAX_ARGUMENT_ID: u32 = 500_000;
/// Push-constant size limit (`setBytes`).
pub const MAX_PUSH_CONSTANT_BYTES: u32 =
    runtime_loader::schema::MetalLimits::MaxPushConstantBytes.0;

/// How resources are bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum BindingModel {
    /// One argument buffer per descriptor set.
    #[default]
    ArgumentBuffers,
    /// One argument-table slot per resource.
    Discrete,
}

/// Target platform.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum Platform {
    /// macOS.
    #[default]
    MacOS,
    /// iOS / iPadOS.
    IOS,
}

/// Argument-buffer tier.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum Tier {
    /// Tier 1.
    Tier1,
    /// Tier 2 (all Apple-silicon Macs, A13+).
    #[default]
    Tier2,
}

/// A pinned slot from a binding map file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pin {
    /// Descriptor set.
    pub set: u32,
    /// Binding.
    pub binding: u32,
    /// `[[buffer(N)]]` (discrete).
    pub buffer: Option<u32>,
    /// `[[texture(N)]]` (discrete).
    pub texture: Option<u32>,
    /// `[[sampler(N)]]` (discrete).
    pub sampler: Option<u32>,
    /// `[[id(N)]]` (argument buffers; the texture id of a combined image-sampler).
    pub id: Option<u32>,
    /// Sampler `[[id(N)]]` of a sampler or combined image-sampler.
    pub sampler_id: Option<u32>,
    /// Element count of a runtime-sized descriptor array.
    pub count: Option<u32>,
    /// `[[buffer(N)]]` of the buffer an image's atomics go through below
    /// MSL 3.1 (discrete, or an image Metal keeps out of argument buffers).
    pub atomic_buffer: Option<u32>,
    /// `[[id(N)]]` of that buffer in the argument buffer.
    pub atomic_id: Option<u32>,
}

/// A pinned argument-buffer slot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SetPin {
    /// Descriptor set.
    pub set: u32,
    /// `[[buffer(N)]]` of its argument buffer.
    pub buffer: u32,
}

/// A `--binding-map` file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BindingMap {
    /// Pinned resources.
    #[serde(default, rename = "binding")]
    pub bindings: Vec<Pin>,
    /// Pinned argument buffers.
    #[serde(default, rename = "argument_buffer")]
    pub argument_buffers: Vec<SetPin>,
    /// Pinned push-constant `[[buffer(N)]]`.
    pub push_constants: Option<u32>,
    /// Pinned kernel-level buffer-sizes `[[buffer(N)]]`.
    pub buffer_sizes: Option<u32>,
}

/// Options of the layout.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct LayoutOptions {
    /// Binding model.
    pub model: BindingModel,
    /// Platform.
    pub platform: Platform,
    /// Argument-buffer tier.
    pub tier: Tier,
    /// Pins.
    pub map: BindingMap,
}

/// Where one resource goes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BindingLayout {
    /// Descriptor set.
    pub set: u32,
    /// Binding.
    pub binding: u32,
    /// Kind.
    pub kind: BindingKind,
    /// Access.
    pub access: Access,
    /// Elements (≥ 1).
    pub count: u32,
    /// Discrete `[[buffer]]`.
    pub buffer_index: Option<u32>,
    /// Discrete `[[texture]]`.
    pub texture_index: Option<u32>,
    /// Discrete `[[sampler]]`.
    pub sampler_index: Option<u32>,
    /// Argument-buffer id of the buffer or texture.
    pub id: Option<u32>,
    /// Argument-buffer id of the sampler.
    pub sampler_id: Option<u32>,
    /// Byte offset of `id` in the argument buffer.
    pub byte_offset: Option<u32>,
    /// Byte offset of `sampler_id` in the argument buffer.
    pub sampler_byte_offset: Option<u32>,
    /// Buffers: fixed size in bytes.
    pub min_size: u64,
    /// Buffers: trailing runtime-array stride.
    pub runtime_array_stride: u32,
    /// Entry in the buffer-sizes table, when the kernel reads the length.
    pub sizes_index: Option<u32>,
    /// Name, if the SPIR-V has one.
    pub name: Option<String>,
    /// A storage image whose atomics SPIRV-Cross emulates below MSL 3.1:
    /// the buffer the (linear) texture was created on, which the kernel
    /// takes as a second parameter `<name>_atomic`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub atomic_buffer: Option<AtomicBufferLayout>,
}

/// Where the companion buffer of an emulated image atomic goes: the buffer
/// a 2D r32 texture was created on (`newTextureWithDescriptor:offset:
/// bytesPerRow:`), through which the kernel does its atomics. Exactly one
/// of `buffer_index` and `id` is set, as for the image.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct AtomicBufferLayout {
    /// Discrete `[[buffer(N)]]` (discrete bindings, or an image Metal
    /// keeps out of argument buffers).
    pub buffer_index: Option<u32>,
    /// Argument-buffer member id.
    pub id: Option<u32>,
    /// Byte offset of `id` in the argument buffer.
    pub byte_offset: Option<u32>,
    /// Bytes the texture's rows are aligned to, as the MSL assumes
    /// (`spvLinearTextureAlignment`): its rows are
    /// `align_up(width * 4, row_alignment)` bytes apart.
    pub row_alignment: u32,
}

/// The row alignment (bytes) halc compiles emulated image atomics with:
/// SPIRV-Cross's `r32ui_linear_texture_alignment`, baked into the MSL and
/// recorded per binding; the runtime's `atomic_texture` aligns rows so.
pub const LINEAR_TEXTURE_ROW_ALIGNMENT: u32 = runtime_loader::ATOMIC_TEXTURE_ROW_ALIGNMENT;

/// One set's argument buffer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArgumentBufferLayout {
    /// Descriptor set.
    pub set: u32,
    /// `[[buffer(N)]]`.
    pub buffer_index: u32,
    /// Encoded size in bytes.
    pub size: u32,
    /// Id of the buffer-sizes member.
    pub sizes_id: Option<u32>,
    /// Byte offset of the buffer-sizes member.
    pub sizes_byte_offset: Option<u32>,
}

/// Push constants.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PushConstantLayout {
    /// `[[buffer(N)]]`.
    pub buffer_index: u32,
    /// Size in bytes.
    pub size: u32,
}

/// The layout of one kernel.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KernelLayout {
    /// Binding model used.
    pub model: BindingModel,
    /// Argument buffers, ascending set.
    pub argument_buffers: Vec<ArgumentBufferLayout>,
    /// Resources, ascending (set, binding).
    pub bindings: Vec<BindingLayout>,
    /// Push constants.
    pub push_constants: Option<PushConstantLayout>,
    /// Kernel-level buffer-sizes `[[buffer(N)]]`.
    pub sizes_buffer_index: Option<u32>,
    /// Entries the kernel-level sizes table needs.
    pub sizes_buffer_entries: u32,
}
