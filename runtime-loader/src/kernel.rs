//! Typed, zero-copy views of a verified kernel.
//!
//! A [`Kernel`] can only be obtained from a verified [`crate::Executable`],
//! so its accessors return plain values where the raw FlatBuffer tables
//! return options: the verifier has already checked them.

use flatbuffers::{Follow, Vector};

use crate::records::{opt, ArgumentBuffer, Binding, Library};
use crate::schema::{self, ScalarType};
use crate::strings::Strings;

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

/// One top-level member of the push-constant block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PushConstantMember<'a> {
    /// Byte offset in the block.
    pub offset: u32,
    /// Bytes it occupies.
    pub size: u32,
    /// `OpMemberName`, `None` when stripped.
    pub name: Option<&'a str>,
    /// Its layout, canonical (`vec4<float32>`, see the schema).
    pub ty: &'a str,
}

/// A specialization constant left open: a Metal function constant.
#[derive(Debug, Clone, Copy)]
pub struct FunctionConstant<'a> {
    raw: &'a schema::FunctionConstant,
    /// `Executable.function_constant_aliases` and this constant's run of it.
    aliases: Vector<'a, schema::FunctionConstantAlias>,
    first_alias: usize,
    end_alias: usize,
    strings: Strings<'a>,
}

impl<'a> FunctionConstant<'a> {
    /// The raw FlatBuffer struct.
    pub fn raw(&self) -> &'a schema::FunctionConstant {
        self.raw
    }

    /// `[[function_constant(id)]]`: the SPIR-V SpecId.
    pub fn id(&self) -> u32 {
        self.raw.id()
    }

    /// The type Metal declares it with: values are set as this type.
    pub fn type_(&self) -> ScalarType {
        self.raw.type_()
    }

    /// Default value, raw bits zero-extended.
    pub fn default_bits(&self) -> u64 {
        self.raw.default_bits()
    }

    /// `OpName` of its first declaration, `None` when stripped.
    pub fn name(&self) -> Option<&'a str> {
        self.strings.non_empty(self.raw.name())
    }

    /// The SpecId's other declarations.
    pub fn aliases(&self) -> impl ExactSizeIterator<Item = FunctionConstantAlias<'a>> + 'a {
        let (aliases, strings) = (self.aliases, self.strings);
        (self.first_alias..self.end_alias).map(move |i| FunctionConstantAlias {
            raw: aliases.get(i),
            strings,
        })
    }
}

/// Another declaration of a function constant's SpecId, of the same width.
#[derive(Debug, Clone, Copy)]
pub struct FunctionConstantAlias<'a> {
    raw: &'a schema::FunctionConstantAlias,
    strings: Strings<'a>,
}

impl<'a> FunctionConstantAlias<'a> {
    /// The raw FlatBuffer struct.
    pub fn raw(&self) -> &'a schema::FunctionConstantAlias {
        self.raw
    }

    /// Its type.
    pub fn type_(&self) -> ScalarType {
        self.raw.type_()
    }

    /// Its default value, raw bits zero-extended.
    pub fn default_bits(&self) -> u64 {
        self.raw.default_bits()
    }

    /// `OpName`, `None` when stripped.
    pub fn name(&self) -> Option<&'a str> {
        self.strings.non_empty(self.raw.name())
    }
}

/// The first index in `lo..hi` at which `before` is false, `before` being
/// true on a prefix (a binary search over part of a FlatBuffer vector).
pub(crate) fn partition_point(
    mut lo: usize,
    mut hi: usize,
    before: impl Fn(usize) -> bool,
) -> usize {
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if before(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

/// The indices of `r`. Loading checked that every kernel's ranges lie inside
/// their vectors, so indexing with them cannot fail.
pub(crate) fn indices(r: &schema::Range) -> std::ops::Range<usize> {
    let first = r.first() as usize;
    first..first + r.count() as usize
}

/// The entries of `v` in `r`.
pub(crate) fn run<'a, T: Follow<'a> + 'a>(
    v: Option<Vector<'a, T>>,
    r: &schema::Range,
) -> impl ExactSizeIterator<Item = T::Inner> + 'a {
    let v = v.unwrap_or_default();
    indices(r).map(move |i| v.get(i))
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
    strings: Strings<'a>,
    raw: &'a schema::Kernel,
}

impl<'a> Kernel<'a> {
    pub(crate) fn new(
        exe: schema::Executable<'a>,
        strings: Strings<'a>,
        raw: &'a schema::Kernel,
    ) -> Self {
        Kernel { exe, strings, raw }
    }

    /// The raw FlatBuffer struct.
    pub fn raw(&self) -> &'a schema::Kernel {
        self.raw
    }

    /// The executable it belongs to.
    pub(crate) fn exe(&self) -> schema::Executable<'a> {
        self.exe
    }

    /// The executable's strings.
    pub(crate) fn strings(&self) -> Strings<'a> {
        self.strings
    }

    /// Name in the executable (unique; the lookup key).
    pub fn name(&self) -> &'a str {
        self.strings.str(self.raw.names().name())
    }

    /// Entry-point name in the SPIR-V it was compiled from.
    pub fn entry_point(&self) -> &'a str {
        self.strings.str(self.raw.names().entry_point())
    }

    /// Function name in the MSL.
    pub fn msl_name(&self) -> &'a str {
        self.strings.str(self.raw.names().msl_name())
    }

    /// File name (no directory) of the SPIR-V it came from, `None` when the
    /// file does not say.
    pub fn source_file(&self) -> Option<&'a str> {
        self.strings.non_empty(self.raw.names().source_file())
    }

    /// Whether the kernel may dereference device addresses it reads from its
    /// data: its module declares `PhysicalStorageBufferAddresses` (GLSL
    /// `buffer_reference`). Give every buffer such an address points into to
    /// the dispatch with the backend's `ResourceBindings::reach`
    /// ([`plan::Bindings::reach`](crate::plan::Bindings::reach)); Metal reads
    /// the address from `MTLBuffer.gpuAddress` (`Buffer::gpu_address`).
    pub fn reads_device_addresses(&self) -> bool {
        self.capabilities()
            .any(|c| c == "PhysicalStorageBufferAddresses")
    }

    /// SPIR-V capabilities the module declares (informational).
    pub fn capabilities(&self) -> impl ExactSizeIterator<Item = &'a str> + 'a {
        let strings = self.strings;
        run(self.exe.capabilities(), self.raw.capabilities()).map(move |s| strings.str(s))
    }

    /// Index of its library in the executable.
    pub fn library_index(&self) -> usize {
        self.raw.library() as usize
    }

    /// Its library (index checked at load).
    pub fn library(&self) -> Library<'a> {
        Library::new(
            self.exe.libraries().get(self.library_index()),
            self.exe,
            self.strings,
        )
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
        let (bindings, names) = (self.exe.bindings(), self.exe.binding_names());
        let strings = self.strings;
        indices(self.raw.bindings()).map(move |i| {
            Binding::new(
                bindings.unwrap_or_default().get(i),
                names.map_or("", |n| strings.str(n.get(i))),
            )
        })
    }

    /// The binding at (set, binding).
    pub fn binding(&self, set: u32, binding: u32) -> Option<Binding<'a>> {
        self.bindings()
            .find(|b| b.set() == set && b.binding() == binding)
    }

    /// Argument buffers (binding model `ArgumentBuffers`).
    pub fn argument_buffers(&self) -> impl ExactSizeIterator<Item = ArgumentBuffer<'a>> + 'a {
        run(self.exe.argument_buffers(), self.raw.argument_buffers()).map(ArgumentBuffer::new)
    }

    /// The argument buffer of descriptor set `set`.
    pub fn argument_buffer(&self, set: u32) -> Option<ArgumentBuffer<'a>> {
        self.argument_buffers().find(|a| a.set() == set)
    }

    /// The push-constant block, if the kernel has one.
    pub fn push_constants(&self) -> Option<PushConstantLayout> {
        let p = self.raw.push_constants();
        opt(p.buffer_index()).map(|buffer_index| PushConstantLayout {
            buffer_index,
            size: p.size(),
        })
    }

    /// The push-constant block's members in offset order, as the SPIR-V
    /// lays them out.
    pub fn push_constant_members(
        &self,
    ) -> impl ExactSizeIterator<Item = PushConstantMember<'a>> + 'a {
        let strings = self.strings;
        run(
            self.exe.push_constant_members(),
            self.raw.push_constant_members(),
        )
        .map(move |m| PushConstantMember {
            offset: m.offset(),
            size: m.size(),
            name: strings.non_empty(m.name()),
            ty: strings.str(m.type_()),
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

    /// Open specialization constants (Metal function constants), sorted by
    /// id.
    pub fn function_constants(&self) -> impl ExactSizeIterator<Item = FunctionConstant<'a>> + 'a {
        let consts = self.exe.function_constants().unwrap_or_default();
        let this = *self;
        indices(self.raw.function_constants()).map(move |i| this.constant(consts.get(i)))
    }

    /// The function constant with id `id`.
    pub fn function_constant(&self, id: u32) -> Option<FunctionConstant<'a>> {
        let consts = self.exe.function_constants().unwrap_or_default();
        let r = indices(self.raw.function_constants());
        let i = partition_point(r.start, r.end, |i| consts.get(i).id() < id);
        (i < r.end && consts.get(i).id() == id).then(|| self.constant(consts.get(i)))
    }

    /// The view of one of the kernel's function constants. Loading checked
    /// that the kernel's aliases are sorted by id and each belongs to one of
    /// its constants, so a constant's aliases are the run of them with its
    /// id.
    fn constant(&self, raw: &'a schema::FunctionConstant) -> FunctionConstant<'a> {
        let aliases = self.exe.function_constant_aliases().unwrap_or_default();
        let r = indices(self.raw.function_constant_aliases());
        let id = raw.id();
        let first_alias = partition_point(r.start, r.end, |i| aliases.get(i).id() < id);
        let end_alias = partition_point(first_alias, r.end, |i| aliases.get(i).id() <= id);
        FunctionConstant {
            raw,
            aliases,
            first_alias,
            end_alias,
            strings: self.strings,
        }
    }

    /// Specialization constants baked at build time (informational).
    pub fn baked_constants(&self) -> impl ExactSizeIterator<Item = &'a schema::BakedConstant> + 'a {
        run(self.exe.baked_constants(), self.raw.baked_constants())
    }
}
