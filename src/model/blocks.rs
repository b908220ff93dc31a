//! The structure of an entry point's push-constant, uniform and storage
//! buffer blocks, as the SPIR-V decorations lay them out (read by
//! [`crate::spirv::blocks`]), and its flattening to scalars
//! ([`Block::layout`]).

use serde::Serialize;

use super::entry::ScalarType;

/// The blocks one entry point statically uses.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Blocks {
    /// The push-constant block, if the entry point uses one.
    pub push_constants: Option<Block>,
    /// Uniform and storage buffer blocks, by ascending (set, binding). An
    /// array of buffers records its element's block; of aliased views of one
    /// (set, binding), the first declared.
    pub buffers: Vec<BoundBlock>,
}

impl Blocks {
    /// The block bound at (`set`, `binding`).
    pub fn buffer(&self, set: u32, binding: u32) -> Option<&Block> {
        self.buffers
            .iter()
            .find(|b| (b.set, b.binding) == (set, binding))
            .map(|b| &b.block)
    }
}

/// A buffer block and where it is bound.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BoundBlock {
    /// Descriptor set.
    pub set: u32,
    /// Binding.
    pub binding: u32,
    /// The block.
    pub block: Block,
}

/// A block: a struct in explicit layout.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Block {
    /// The variable's name (`OpName`), when the module has one (GLSL's
    /// instance name; empty for an anonymous block, so absent).
    pub variable: Option<String>,
    /// The block's type.
    pub ty: StructType,
}

/// A struct in explicit layout.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StructType {
    /// The struct's name (`OpName`), when the module has one.
    pub name: Option<String>,
    /// Members in declaration order.
    pub members: Vec<Member>,
    /// Bytes up to the end of the last fixed-size member (where a trailing
    /// runtime array starts, if there is one).
    pub size: u64,
}

impl StructType {
    /// The trailing runtime-sized array member, if any.
    pub fn runtime_array(&self) -> Option<&Member> {
        self.members
            .last()
            .filter(|m| matches!(m.ty, BlockType::Array { length: None, .. }))
    }
}

/// One member of a struct.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Member {
    /// `OpMemberName`, when the module has one (`glslc -O` strips them).
    pub name: Option<String>,
    /// Byte offset in the struct (`Offset`).
    pub offset: u64,
    /// Its type.
    pub ty: BlockType,
    /// Its size in bytes (0 for a runtime array).
    pub size: u64,
}

/// A type inside a block.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum BlockType {
    /// A scalar. A `bool` occupies 4 bytes.
    Scalar(ScalarType),
    /// A vector of `count` scalars, tightly packed.
    Vector {
        /// Component type.
        component: ScalarType,
        /// 2, 3 or 4.
        count: u32,
    },
    /// A matrix of `columns` column vectors of `rows` scalars.
    Matrix {
        /// Component type.
        component: ScalarType,
        /// Columns.
        columns: u32,
        /// Rows.
        rows: u32,
        /// Bytes between columns (column-major) or rows (row-major).
        stride: u32,
        /// Whether rows, not columns, are contiguous.
        row_major: bool,
    },
    /// A fixed-size or runtime-sized array.
    Array {
        /// Element type.
        element: Box<BlockType>,
        /// Element count; `None` for a runtime-sized array.
        length: Option<u64>,
        /// Bytes between elements (`ArrayStride`).
        stride: u32,
    },
    /// A nested struct.
    Struct(StructType),
    /// A `PhysicalStorageBuffer` pointer (GLSL `buffer_reference`, SPIR-V
    /// `PhysicalStorageBufferAddresses`): a 64-bit device address, 8 bytes
    /// aligned to 8. On Metal it is `MTLBuffer.gpuAddress` plus an offset;
    /// on the CPU backend a host address.
    Pointer {
        /// The type pointed to; `None` for a pointer back to a struct being
        /// reflected on the way to it (a linked list's `next`): that struct
        /// is `up` structs out from the pointer (1: the struct holding it),
        /// counting the structs of every block and pointee on the way.
        pointee: Option<Box<BlockType>>,
        /// The pointed-to type's name (`OpName`), when the module has one.
        name: Option<String>,
        /// For a `pointee` of `None`: how many enclosing structs out the
        /// pointed-to struct is; else 0.
        up: u32,
    },
}

impl BlockType {
    /// The layout as one canonical string, the same for the same layout:
    /// `float32`, `vec4<float32>`, `mat4x4<float32, column-major, stride 16>`,
    /// `array<uint32, 4, stride 4>` (`runtime` for a runtime length),
    /// `struct{a: float32 @0, b: vec2<float32> @8}`. The reflection JSON and
    /// the ABI lock record push-constant members by it.
    pub fn canonical(&self) -> String {
        self.canonical_with(&|st: &StructType| {
            let members: Vec<String> = st
                .members
                .iter()
                .map(|m| {
                    format!(
                        "{}: {} @{}",
                        m.name.as_deref().unwrap_or(""),
                        m.ty.canonical(),
                        m.offset
                    )
                })
                .collect();
            format!("struct{{{}}}", members.join(", "))
        })
    }

    /// [`canonical`](Self::canonical), with each struct written by
    /// `structs` (the generated bindings name it instead of spelling it out).
    pub fn canonical_with(&self, structs: &dyn Fn(&StructType) -> String) -> String {
        fn scalar(t: ScalarType) -> String {
            match t {
                ScalarType::Bool => "bool".into(),
                ScalarType::Int(w) => format!("int{w}"),
                ScalarType::UInt(w) => format!("uint{w}"),
                ScalarType::Float(w) => format!("float{w}"),
            }
        }
        match self {
            BlockType::Scalar(t) => scalar(*t),
            BlockType::Vector { component, count } => format!("vec{count}<{}>", scalar(*component)),
            BlockType::Matrix {
                component,
                columns,
                rows,
                stride,
                row_major,
            } => format!(
                "mat{columns}x{rows}<{}, {}, stride {stride}>",
                scalar(*component),
                if *row_major {
                    "row-major"
                } else {
                    "column-major"
                }
            ),
            BlockType::Array {
                element,
                length,
                stride,
            } => format!(
                "array<{}, {}, stride {stride}>",
                element.canonical_with(structs),
                length.map_or("runtime".to_string(), |n| n.to_string())
            ),
            BlockType::Struct(st) => structs(st),
            BlockType::Pointer { pointee, name, .. } => match (pointee, name) {
                (Some(p), _) => format!("ptr<{}>", p.canonical_with(structs)),
                (None, Some(n)) => format!("ptr<{n}>"),
                (None, None) => "ptr<recursive>".to_string(),
            },
        }
    }

    /// Bytes the type occupies (a runtime array: 0; a pointer: 8).
    pub fn size(&self) -> u64 {
        match self {
            BlockType::Scalar(s) => BlockType::scalar_size(*s),
            BlockType::Vector { component, count } => {
                BlockType::scalar_size(*component) * u64::from(*count)
            }
            BlockType::Matrix {
                columns,
                rows,
                stride,
                row_major,
                ..
            } => u64::from(*stride) * u64::from(if *row_major { *rows } else { *columns }),
            BlockType::Array { length, stride, .. } => {
                length.map_or(0, |n| n.saturating_mul(u64::from(*stride)))
            }
            BlockType::Struct(s) => s.size,
            BlockType::Pointer { .. } => 8,
        }
    }

    /// Whether a pointer is anywhere inside the type.
    pub fn has_pointer(&self) -> bool {
        match self {
            BlockType::Pointer { .. } => true,
            BlockType::Array { element, .. } => element.has_pointer(),
            BlockType::Struct(s) => s.members.iter().any(|m| m.ty.has_pointer()),
            _ => false,
        }
    }

    /// Bytes a scalar of this type takes in a block (`bool`: 4).
    pub fn scalar_size(ty: ScalarType) -> u64 {
        match ty {
            ScalarType::Bool => 4,
            t => u64::from(t.bits() / 8),
        }
    }
}

/// Where the scalars of a block live, flattened: the fixed part, and the
/// element of a trailing runtime array. What `halc diff` fills with typed
/// random data and compares by type ([`Block::layout`]).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BlockLayout {
    /// (byte offset, type) of every scalar of the fixed part.
    pub fixed: Vec<(u64, ScalarType)>,
    /// Bytes of the fixed part (where a runtime array starts).
    pub fixed_size: u64,
    /// A trailing runtime array: (element stride, (offset in the element,
    /// type) of each scalar of one element).
    pub array: Option<(u64, Vec<(u64, ScalarType)>)>,
}

/// A type has more scalars than the caller's limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooManyScalars;

impl BlockType {
    /// Every scalar of this type placed at `base`, in memory order of the
    /// members and elements, as (byte offset, type): vectors tightly
    /// packed, matrices by their stride and major order, arrays by their
    /// `ArrayStride`, struct members at their `Offset`. A runtime-sized
    /// array inside a struct is left out (a [`BlockLayout`]'s `array` holds
    /// its element); at the top level it has no scalars to give. Stops with
    /// [`TooManyScalars`] once `out` holds more than `limit`.
    pub fn scalars(
        &self,
        base: u64,
        limit: usize,
        out: &mut Vec<(u64, ScalarType)>,
    ) -> Result<(), TooManyScalars> {
        if out.len() > limit {
            return Err(TooManyScalars);
        }
        match self {
            BlockType::Scalar(t) => out.push((base, *t)),
            BlockType::Vector { component, count } => {
                let size = BlockType::scalar_size(*component);
                out.extend(
                    (0..u64::from(*count)).map(|i| (base.saturating_add(i * size), *component)),
                );
            }
            BlockType::Matrix {
                component,
                columns,
                rows,
                stride,
                row_major,
            } => {
                let size = BlockType::scalar_size(*component);
                let stride = u64::from(*stride);
                for c in 0..u64::from(*columns) {
                    for r in 0..u64::from(*rows) {
                        let at = if *row_major {
                            r * stride + c * size
                        } else {
                            c * stride + r * size
                        };
                        out.push((base.saturating_add(at), *component));
                    }
                }
            }
            BlockType::Array {
                element,
                length: Some(n),
                stride,
            } => {
                for i in 0..*n {
                    let at = base.saturating_add(i.saturating_mul(u64::from(*stride)));
                    element.scalars(at, limit, out)?;
                }
            }
            BlockType::Array { length: None, .. } => {}
            // The address, compared as the 64-bit integer it is.
            BlockType::Pointer { .. } => out.push((base, ScalarType::UInt(64))),
            BlockType::Struct(st) => {
                for m in &st.members {
                    m.ty.scalars(base.saturating_add(m.offset), limit, out)?;
                }
            }
        }
        if out.len() > limit {
            return Err(TooManyScalars);
        }
        Ok(())
    }
}

/// Most scalars a block's fixed part (or one runtime-array element) may
/// flatten to (a bound for hostile input).
const MAX_BLOCK_SCALARS: usize = 1 << 20;

impl Block {
    /// The block flattened to scalars ([`BlockLayout`]); a `bool` is given
    /// as the 32-bit word it occupies.
    pub fn layout(&self) -> Result<BlockLayout, TooManyScalars> {
        let word = |v: &mut Vec<(u64, ScalarType)>| {
            for (_, t) in v.iter_mut() {
                if *t == ScalarType::Bool {
                    *t = ScalarType::UInt(32);
                }
            }
        };
        let mut out = BlockLayout {
            fixed_size: self.ty.size,
            ..BlockLayout::default()
        };
        for m in &self.ty.members {
            m.ty.scalars(m.offset, MAX_BLOCK_SCALARS, &mut out.fixed)?;
        }
        word(&mut out.fixed);
        if let Some(m) = self.ty.runtime_array() {
            if let BlockType::Array {
                element, stride, ..
            } = &m.ty
            {
                out.fixed_size = out.fixed_size.max(m.offset);
                let mut slots = Vec::new();
                element.scalars(0, MAX_BLOCK_SCALARS, &mut slots)?;
                word(&mut slots);
                out.array = Some((u64::from(*stride), slots));
            }
        }
        Ok(out)
    }
}
