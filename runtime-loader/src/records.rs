//! Views of the format's records that read `Unset.Value` as `None`:
//! [`Binding`], [`ArgumentBuffer`], [`Library`] (whose MSL source is stored
//! as bytes and checked as UTF-8 when it is used), and on the raw
//! `schema::Kernel` the accessors of its `params` struct.
//!
//! Every record is a FlatBuffer struct in an executable-wide vector, so the
//! verifier checks each vector as one range; these views give back the
//! fields (and options) that tables would have had.

use crate::schema;
use crate::strings::Strings;

/// The value the format stores for an absent slot field.
pub const UNSET: u32 = schema::Unset::Value.0;

/// `None` for [`UNSET`].
#[inline]
pub(crate) fn opt(v: u32) -> Option<u32> {
    (v != UNSET).then_some(v)
}

/// `UNSET` for `None`: how a writer stores an optional slot field.
#[inline]
pub fn or_unset(v: Option<u32>) -> u32 {
    v.unwrap_or(UNSET)
}

/// One descriptor resource of a kernel, keyed by (set, binding).
#[derive(Debug, Clone, Copy)]
pub struct Binding<'a> {
    raw: &'a schema::Binding,
    name: &'a str,
}

impl<'a> Binding<'a> {
    /// A binding and its name (empty when stripped).
    pub(crate) fn new(raw: &'a schema::Binding, name: &'a str) -> Self {
        Binding { raw, name }
    }

    /// The raw FlatBuffer struct.
    pub fn raw(&self) -> &'a schema::Binding {
        self.raw
    }

    /// Descriptor set.
    pub fn set(&self) -> u32 {
        self.raw.set()
    }

    /// Binding number in the set.
    pub fn binding(&self) -> u32 {
        self.raw.binding()
    }

    /// Resource kind.
    pub fn kind(&self) -> schema::BindingKind {
        self.raw.kind()
    }

    /// How the kernel accesses it.
    pub fn access(&self) -> schema::Access {
        self.raw.access()
    }

    /// Array elements (1 for a plain resource).
    pub fn count(&self) -> u32 {
        self.raw.count()
    }

    /// `[[buffer(N)]]` of a discrete buffer.
    pub fn buffer_index(&self) -> Option<u32> {
        opt(self.raw.buffer_index())
    }

    /// `[[texture(N)]]` of a discrete texture.
    pub fn texture_index(&self) -> Option<u32> {
        opt(self.raw.texture_index())
    }

    /// `[[sampler(N)]]` of a discrete sampler.
    pub fn sampler_index(&self) -> Option<u32> {
        opt(self.raw.sampler_index())
    }

    /// Argument-buffer member id of the buffer or texture.
    pub fn id(&self) -> Option<u32> {
        opt(self.raw.id())
    }

    /// Argument-buffer member id of the sampler.
    pub fn sampler_id(&self) -> Option<u32> {
        opt(self.raw.sampler_id())
    }

    /// Byte offset of the buffer or texture member in the argument buffer.
    pub fn byte_offset(&self) -> Option<u32> {
        opt(self.raw.byte_offset())
    }

    /// Byte offset of the sampler member in the argument buffer.
    pub fn sampler_byte_offset(&self) -> Option<u32> {
        opt(self.raw.sampler_byte_offset())
    }

    /// Fixed part of a buffer's block in bytes.
    pub fn min_size(&self) -> u64 {
        self.raw.min_size()
    }

    /// Element stride of a trailing runtime array (0: none).
    pub fn runtime_array_stride(&self) -> u32 {
        self.raw.runtime_array_stride()
    }

    /// Entry of the buffer-sizes table holding this buffer's length.
    pub fn sizes_index(&self) -> Option<u32> {
        opt(self.raw.sizes_index())
    }

    /// Name from the SPIR-V, `None` when stripped.
    pub fn name(&self) -> Option<&'a str> {
        Some(self.name).filter(|n| !n.is_empty())
    }

    /// A storage image whose atomics are emulated (MSL below 3.1): where
    /// the kernel takes the buffer its texture was created on, and the row
    /// alignment that texture must have.
    pub fn atomic_buffer(&self) -> Option<AtomicBuffer> {
        let row_alignment = opt(self.raw.atomic_row_alignment())?;
        Some(AtomicBuffer {
            buffer_index: opt(self.raw.atomic_buffer_index()),
            id: opt(self.raw.atomic_id()),
            byte_offset: opt(self.raw.atomic_byte_offset()),
            row_alignment,
        })
    }
}

/// The row alignment (bytes) halc compiles emulated image atomics with and
/// records in `Binding.atomic_row_alignment`, and what
/// `Device::atomic_texture` aligns a texture's rows to. A power of two
/// meant to be a multiple of any device's
/// `minimumLinearTextureAlignmentForPixelFormat:(R32Uint)`; the Metal
/// backend checks that it is.
pub const ATOMIC_TEXTURE_ROW_ALIGNMENT: u32 = 256;

/// The companion buffer of a storage image whose atomics SPIRV-Cross
/// emulates below MSL 3.1 (`Binding.atomic_*` of the executable): the
/// buffer a 2D r32 texture was created on
/// (`newTextureWithDescriptor:offset:bytesPerRow:`), bound beside it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AtomicBuffer {
    /// Discrete `[[buffer(N)]]`, when the image is discrete.
    pub buffer_index: Option<u32>,
    /// Argument-buffer member id, when the image is in an argument buffer.
    pub id: Option<u32>,
    /// Byte offset of that member.
    pub byte_offset: Option<u32>,
    /// Bytes the texture's rows are aligned to: its rows must be
    /// `align_up(width * 4, row_alignment)` bytes apart.
    pub row_alignment: u32,
}

impl AtomicBuffer {
    /// Bytes between the rows of a `width`-texel r32 texture the kernel's
    /// atomics index (SPIRV-Cross's `spvImage2DAtomicCoord`).
    pub fn bytes_per_row(&self, width: u32) -> u64 {
        let a = u64::from(self.row_alignment.max(4));
        (u64::from(width) * 4).div_ceil(a) * a
    }
}

/// The argument buffer of one descriptor set.
#[derive(Debug, Clone, Copy)]
pub struct ArgumentBuffer<'a> {
    raw: &'a schema::ArgumentBuffer,
}

impl<'a> ArgumentBuffer<'a> {
    pub(crate) fn new(raw: &'a schema::ArgumentBuffer) -> Self {
        ArgumentBuffer { raw }
    }

    /// The raw FlatBuffer struct.
    pub fn raw(&self) -> &'a schema::ArgumentBuffer {
        self.raw
    }

    /// Descriptor set.
    pub fn set(&self) -> u32 {
        self.raw.set()
    }

    /// `[[buffer(N)]]` it is bound at.
    pub fn buffer_index(&self) -> u32 {
        self.raw.buffer_index()
    }

    /// Encoded length in bytes (Metal 3 layout).
    pub fn size(&self) -> u32 {
        self.raw.size()
    }

    /// Member id of its buffer-sizes table.
    pub fn sizes_id(&self) -> Option<u32> {
        opt(self.raw.sizes_id())
    }

    /// Byte offset of its buffer-sizes table member.
    pub fn sizes_byte_offset(&self) -> Option<u32> {
        opt(self.raw.sizes_byte_offset())
    }
}

/// The fields of `Kernel.params`, read as the kernel's own fields.
impl schema::Kernel {
    /// Index into `Executable.libraries`.
    pub fn library(&self) -> u32 {
        self.params().library()
    }

    /// `maxTotalThreadsPerThreadgroup`.
    pub fn max_threads_per_threadgroup(&self) -> u32 {
        self.params().max_threads_per_threadgroup()
    }

    /// How resources reach the kernel.
    pub fn binding_model(&self) -> schema::BindingModel {
        self.params().binding_model()
    }

    /// Kernel-level `[[buffer(N)]]` of the buffer-sizes table.
    pub fn sizes_buffer_index(&self) -> Option<u32> {
        opt(self.params().sizes_buffer_index())
    }

    /// Entries the kernel-level buffer-sizes table must hold.
    pub fn sizes_buffer_entries(&self) -> u32 {
        self.params().sizes_buffer_entries()
    }

    /// Static threadgroup memory in bytes.
    pub fn threadgroup_memory_bytes(&self) -> u32 {
        self.params().threadgroup_memory_bytes()
    }
}

/// A library of a verified executable: MSL source and/or a metallib.
#[derive(Debug, Clone, Copy)]
pub struct Library<'a> {
    raw: &'a schema::Library,
    data: &'a [u8],
    strings: Strings<'a>,
}

impl<'a> Library<'a> {
    pub(crate) fn new(
        raw: &'a schema::Library,
        exe: schema::Executable<'a>,
        strings: Strings<'a>,
    ) -> Self {
        Library {
            raw,
            data: exe.library_data().map_or(&[], |d| d.bytes()),
            strings,
        }
    }

    /// The raw FlatBuffer struct.
    pub fn raw(&self) -> &'a schema::Library {
        self.raw
    }

    fn blob(&self, b: &schema::Blob) -> Option<&'a [u8]> {
        let start = b.offset() as usize;
        self.data
            .get(start..start.checked_add(b.length() as usize)?)
            .filter(|b| !b.is_empty())
    }

    /// The MSL source: `None` when absent, an error when its bytes are not
    /// UTF-8. Loading does not check them (see the schema's
    /// `Library.msl_source`); whoever compiles the source calls this.
    pub fn msl_source(&self) -> Option<Result<&'a str, std::str::Utf8Error>> {
        self.msl_bytes().map(std::str::from_utf8)
    }

    /// The MSL source's bytes, `None` when absent.
    pub fn msl_bytes(&self) -> Option<&'a [u8]> {
        self.blob(self.raw.msl_source())
    }

    /// The compiled library (`xcrun metallib` output), `None` when absent.
    pub fn metallib(&self) -> Option<&'a [u8]> {
        self.blob(self.raw.metallib())
    }

    /// The xcrun toolchain that produced the metallib, verbatim.
    pub fn metallib_toolchain(&self) -> Option<&'a str> {
        self.strings.non_empty(self.raw.metallib_toolchain())
    }

    /// MSL language version.
    pub fn msl_version(&self) -> &'a schema::MslVersion {
        self.raw.target().msl_version()
    }

    /// Safe or fast math.
    pub fn math_mode(&self) -> schema::MathMode {
        self.raw.target().math_mode()
    }

    /// macOS or iOS.
    pub fn platform(&self) -> schema::Platform {
        self.raw.target().platform()
    }

    /// Argument-buffer tier.
    pub fn argument_buffer_tier(&self) -> schema::ArgumentBufferTier {
        self.raw.target().argument_buffer_tier()
    }
}
