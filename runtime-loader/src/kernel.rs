//! Typed, zero-copy views of a verified kernel.
//!
//! A [`Kernel`] can only be obtained from a verified [`crate::Executable`],
//! so its accessors return plain values where the raw FlatBuffer tables
//! return options: the verifier has already checked them.

use crate::records::{ArgumentBuffer, Binding};
use crate::schema;

/// One dimension of the threadgroup size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ThreadgroupDim {
    /// Size when no specialization value overrides it.
    pub default_size: u32,
    /// The function-constant id whose value overrides the size, if any.
    pub spec_id: Option<u32>,
}

/// The push-constant block: bound with `setBytes` at `buffer_index`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PushConstantLayout {
    /// `[[buffer(N)]]`.
    pub buffer_index: u32,
    /// Exact size in bytes.
    pub size: u32,
}

/// The kernel-level buffer-sizes table (`OpArrayLength`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SizesBufferLayout {
    /// `[[buffer(N)]]`.
    pub buffer_index: u32,
    /// Number of u32 entries.
    pub entries: u32,
}

/// A verified kernel of an executable.
#[derive(Debug, Clone, Copy)]
pub struct Kernel<'a> {
    exe: schema::Executable<'a>,
    raw: schema::Kernel<'a>,
}

impl<'a> Kernel<'a> {
    pub(crate) fn new(exe: schema::Executable<'a>, raw: schema::Kernel<'a>) -> Self {
        Kernel { exe, raw }
    }

    /// The raw FlatBuffer table.
    pub fn raw(&self) -> schema::Kernel<'a> {
        self.raw
    }

    /// Name in the executable (unique; the lookup key).
    pub fn name(&self) -> &'a str {
        self.raw.name()
    }

    /// Entry-point name in the SPIR-V it was compiled from.
    pub fn entry_point(&self) -> &'a str {
        self.raw.entry_point()
    }

    /// Function name in the MSL.
    pub fn msl_name(&self) -> &'a str {
        self.raw.msl_name()
    }

    /// Index of its library in the executable.
    pub fn library_index(&self) -> usize {
        self.raw.library() as usize
    }

    /// Its library (index checked at load).
    pub fn library(&self) -> schema::Library<'a> {
        self.exe.libraries().get(self.library_index())
    }

    /// How resources reach the kernel.
    pub fn binding_model(&self) -> schema::BindingModel {
        self.raw.binding_model()
    }

    /// The three threadgroup dimensions (x, y, z).
    pub fn threadgroup_size(&self) -> [ThreadgroupDim; 3] {
        let dims = self.raw.threadgroup_size();
        std::array::from_fn(|i| {
            let d = dims.get(i);
            ThreadgroupDim {
                default_size: d.size(),
                spec_id: d.has_spec_id().then(|| d.spec_id()),
            }
        })
    }

    /// Threads per threadgroup without specialization.
    pub fn default_threads_per_threadgroup(&self) -> [u32; 3] {
        self.threadgroup_size().map(|d| d.default_size)
    }

    /// `MTLComputePipelineDescriptor.maxTotalThreadsPerThreadgroup`.
    pub fn max_threads_per_threadgroup(&self) -> u32 {
        self.raw.max_threads_per_threadgroup()
    }

    /// Static threadgroup memory in bytes.
    pub fn threadgroup_memory_bytes(&self) -> u32 {
        self.raw.threadgroup_memory_bytes()
    }

    /// Bindings sorted by (set, binding).
    pub fn bindings(&self) -> impl ExactSizeIterator<Item = Binding<'a>> + 'a {
        Binding::all(self.raw)
    }

    /// The binding at (set, binding).
    pub fn binding(&self, set: u32, binding: u32) -> Option<Binding<'a>> {
        self.bindings()
            .find(|b| b.set() == set && b.binding() == binding)
    }

    /// Argument buffers (binding model `ArgumentBuffers`).
    pub fn argument_buffers(&self) -> impl ExactSizeIterator<Item = ArgumentBuffer<'a>> + 'a {
        ArgumentBuffer::all(self.raw)
    }

    /// The argument buffer of descriptor set `set`.
    pub fn argument_buffer(&self, set: u32) -> Option<ArgumentBuffer<'a>> {
        self.argument_buffers().find(|a| a.set() == set)
    }

    /// The push-constant block, if the kernel has one.
    pub fn push_constants(&self) -> Option<PushConstantLayout> {
        self.raw.push_constants().map(|p| PushConstantLayout {
            buffer_index: p.buffer_index(),
            size: p.size(),
        })
    }

    /// The kernel-level buffer-sizes table, if the kernel declares one.
    pub fn sizes_buffer(&self) -> Option<SizesBufferLayout> {
        self.raw
            .sizes_buffer_index()
            .map(|buffer_index| SizesBufferLayout {
                buffer_index,
                entries: self.raw.sizes_buffer_entries(),
            })
    }

    /// Open specialization constants (Metal function constants).
    pub fn function_constants(
        &self,
    ) -> impl ExactSizeIterator<Item = schema::FunctionConstant<'a>> + 'a {
        self.raw.function_constants().unwrap_or_default().iter()
    }

    /// The function constant with id `id`.
    pub fn function_constant(&self, id: u32) -> Option<schema::FunctionConstant<'a>> {
        self.function_constants().find(|c| c.id() == id)
    }

    /// Specialization constants baked at build time (informational).
    pub fn baked_constants(&self) -> impl ExactSizeIterator<Item = &'a schema::BakedConstant> + 'a {
        self.raw.baked_constants().unwrap_or_default().iter()
    }
}
