//! Reflection: per entry point, the workgroup size (and the spec constants
//! driving it), the resources it statically uses, push constants,
//! threadgroup memory; per module, spec constants and capabilities.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use rustc_hash::FxHashMap;

use rspirv::spirv::{self, BuiltIn, Decoration, Dim, ExecutionMode, Op, StorageClass};
use serde::{Deserialize, Serialize};

use super::inst::Inst;
use super::{SpirvError, Words};

/// A module's reflection.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ModuleInfo {
    /// SPIR-V version (major, minor).
    pub version: (u8, u8),
    /// Every entry point in module order, of every execution model.
    pub entry_points: Vec<EntryPoint>,
    /// Specialization constants still open (not baked), sorted by id.
    pub spec_constants: Vec<SpecConstant>,
    /// Declared capabilities, by name, in module order.
    pub capabilities: Vec<String>,
}

/// Execution model of an entry point.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
pub enum ExecutionModel {
    /// A Vulkan compute shader.
    GLCompute,
    /// An OpenCL kernel (not supported by halc).
    Kernel,
    /// Any other stage (vertex, fragment, ...), by SPIR-V name.
    Other(&'static str),
}

impl std::fmt::Display for ExecutionModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExecutionModel::GLCompute => f.write_str("GLCompute"),
            ExecutionModel::Kernel => f.write_str("Kernel"),
            ExecutionModel::Other(s) => f.write_str(s),
        }
    }
}

/// One entry point.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct EntryPoint {
    /// Name as written in `OpEntryPoint`.
    pub name: String,
    /// Execution model.
    pub model: ExecutionModel,
    /// Workgroup size; `None` for non-compute models.
    pub workgroup_size: Option<WorkgroupSize>,
    /// Descriptor resources statically used, sorted by (set, binding).
    pub bindings: Vec<Binding>,
    /// Size in bytes of the push-constant block, if one is used.
    pub push_constant_size: Option<u32>,
    /// Bytes of statically sized threadgroup (`Workgroup`) memory used.
    pub threadgroup_memory_bytes: u64,
}

/// Workgroup size of a compute entry point.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
pub struct WorkgroupSize {
    /// x, y, z.
    pub dims: [WorkgroupDim; 3],
    /// Where the size came from.
    pub source: WorkgroupSource,
}

impl WorkgroupSize {
    /// Product of the three (default or baked) dimensions.
    pub fn total(&self) -> u64 {
        // Saturating: three u32 factors can overflow u64.
        self.dims
            .iter()
            .fold(1u64, |acc, d| acc.saturating_mul(u64::from(d.value)))
    }

    /// The three values.
    pub fn values(&self) -> [u32; 3] {
        [self.dims[0].value, self.dims[1].value, self.dims[2].value]
    }
}

/// Where a workgroup size was read from.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
pub enum WorkgroupSource {
    /// `OpExecutionMode LocalSize`.
    LocalSize,
    /// `OpExecutionModeId LocalSizeId`.
    LocalSizeId,
    /// A constant decorated `BuiltIn WorkgroupSize` (wins over the mode).
    Builtin,
}

/// One dimension of a workgroup size.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
pub struct WorkgroupDim {
    /// The value (the spec constant's default when `spec_id` is set).
    pub value: u32,
    /// The SpecId that can override it at pipeline creation.
    pub spec_id: Option<u32>,
}

/// What kind of descriptor a binding is.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum BindingKind {
    /// `StorageBuffer` (or `Uniform` + `BufferBlock`).
    StorageBuffer,
    /// `Uniform` + `Block`.
    UniformBuffer,
    /// Image with Sampled = 2.
    StorageImage,
    /// Image with Sampled = 1.
    SampledImage,
    /// `OpTypeSampler`.
    Sampler,
    /// `OpTypeSampledImage`.
    CombinedImageSampler,
    /// Buffer-dimension image with Sampled = 1.
    UniformTexelBuffer,
    /// Buffer-dimension image with Sampled = 2.
    StorageTexelBuffer,
}

impl BindingKind {
    /// Words for messages.
    pub fn describe(self) -> &'static str {
        match self {
            BindingKind::StorageBuffer => "storage buffer",
            BindingKind::UniformBuffer => "uniform buffer",
            BindingKind::StorageImage => "storage image",
            BindingKind::SampledImage => "sampled image",
            BindingKind::Sampler => "sampler",
            BindingKind::CombinedImageSampler => "combined image-sampler",
            BindingKind::UniformTexelBuffer => "uniform texel buffer",
            BindingKind::StorageTexelBuffer => "storage texel buffer",
        }
    }

    /// Whether Metal binds this as a buffer.
    pub fn is_buffer(self) -> bool {
        matches!(
            self,
            BindingKind::StorageBuffer | BindingKind::UniformBuffer
        )
    }
    /// Whether Metal binds this as a texture (combined ones included).
    pub fn is_texture(self) -> bool {
        matches!(
            self,
            BindingKind::StorageImage
                | BindingKind::SampledImage
                | BindingKind::CombinedImageSampler
                | BindingKind::UniformTexelBuffer
                | BindingKind::StorageTexelBuffer
        )
    }
    /// Whether Metal binds a sampler for this (combined ones included).
    pub fn has_sampler(self) -> bool {
        matches!(
            self,
            BindingKind::Sampler | BindingKind::CombinedImageSampler
        )
    }
}

/// How a kernel accesses a resource.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
pub enum Access {
    /// Never written.
    ReadOnly,
    /// Never read.
    WriteOnly,
    /// Read and written.
    ReadWrite,
}

/// One descriptor resource.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Binding {
    /// Descriptor set.
    pub set: u32,
    /// Binding number.
    pub binding: u32,
    /// Kind.
    pub kind: BindingKind,
    /// Access.
    pub access: Access,
    /// Array elements: 1 for a plain resource, 0 for a runtime-sized array.
    pub count: u32,
    /// For buffers, the fixed part of the block in bytes (excluding a
    /// trailing runtime array); 0 otherwise.
    pub min_size: u64,
    /// For buffers ending in a runtime array, its element stride.
    pub runtime_array_stride: u32,
    /// Whether the kernel reads this buffer's length (`OpArrayLength`).
    pub uses_array_length: bool,
    /// Variable name (or its block type's name) when the module has one.
    pub name: Option<String>,
    /// How many further variables view this descriptor (aliases; 0 when
    /// one variable is bound here).
    #[serde(skip_serializing_if = "is_zero")]
    pub aliases: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// The scalar type of a spec constant.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
pub enum ScalarType {
    /// `bool`.
    Bool,
    /// Signed integer of the given bit width.
    Int(u32),
    /// Unsigned integer of the given bit width.
    UInt(u32),
    /// Float of the given bit width.
    Float(u32),
}

impl ScalarType {
    /// Width in bits (1 for bool).
    pub fn bits(self) -> u32 {
        match self {
            ScalarType::Bool => 1,
            ScalarType::Int(w) | ScalarType::UInt(w) | ScalarType::Float(w) => w,
        }
    }
}

impl std::fmt::Display for ScalarType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ScalarType::Bool => f.write_str("bool"),
            ScalarType::Int(w) => write!(f, "i{w}"),
            ScalarType::UInt(w) => write!(f, "u{w}"),
            ScalarType::Float(w) => write!(f, "f{w}"),
        }
    }
}

/// A scalar value as its raw bits (zero-extended to 64 bits).
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
pub struct ScalarValue(pub u64);

/// A specialization constant.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SpecConstant {
    /// SpecId.
    pub id: u32,
    /// Type.
    pub ty: ScalarType,
    /// Default value bits.
    pub default: ScalarValue,
    /// Name when present.
    pub name: Option<String>,
    /// Other declarations of the same SpecId whose type or default differ
    /// (glslc's `local_size_x_id = 0` beside `constant_id = 0`): each reads
    /// the specialised value as its own type and keeps its own default.
    pub aliases: Vec<SpecAlias>,
}

/// Another declaration of a SpecId: same width as the first one.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SpecAlias {
    /// Type.
    pub ty: ScalarType,
    /// Default value bits.
    pub default: ScalarValue,
    /// Name when present.
    pub name: Option<String>,
}

/// Every instruction of `words` (see [`super::inst`]).
pub(crate) fn parse(words: &Words) -> Result<Vec<Inst<'_>>, SpirvError> {
    super::inst::parse(words)
}

pub(super) fn invalid(msg: impl Into<String>) -> SpirvError {
    SpirvError::Invalid(msg.into())
}

/// The instruction defining each id: ids are dense below the module's
/// bound, so a vector indexed by id (a hash map cost a tenth of reflecting
/// a large kernel, most of it faulting in its table in a cold process).
/// Reflection runs before the validator's verdict: an id past SPIR-V's
/// limit goes to a map, and of two definitions of one id the last counts.
struct ById<'a> {
    insts: &'a [Inst<'a>],
    /// Id -> index + 1 into `insts`; 0 for none.
    dense: Vec<u32>,
    beyond: FxHashMap<u32, u32>,
}

impl<'a> ById<'a> {
    fn new(insts: &'a [Inst<'a>]) -> Self {
        let max = insts
            .iter()
            .filter_map(|i| i.result_id)
            .filter(|&id| id < UsedIds::DENSE)
            .max()
            .unwrap_or(0);
        let mut dense = vec![0u32; max as usize + 1];
        let mut beyond = FxHashMap::default();
        for (n, inst) in insts.iter().enumerate() {
            let Some(id) = inst.result_id else { continue };
            let n = u32::try_from(n + 1).unwrap_or(u32::MAX);
            match dense.get_mut(id as usize) {
                Some(slot) => *slot = n,
                None => {
                    beyond.insert(id, n);
                }
            }
        }
        ById {
            insts,
            dense,
            beyond,
        }
    }

    fn get(&self, id: u32) -> Option<&'a Inst<'a>> {
        let n = match self.dense.get(id as usize) {
            Some(&n) => n,
            None => self.beyond.get(&id).copied().unwrap_or(0),
        };
        let insts: &'a [Inst<'a>] = self.insts;
        n.checked_sub(1).and_then(|n| insts.get(n as usize))
    }
}

/// Indexed view of a module.
pub(super) struct Index<'a> {
    pub(super) insts: &'a [Inst<'a>],
    by_id: ById<'a>,
    pub(super) names: FxHashMap<u32, String>,
    decorations: FxHashMap<u32, Vec<&'a Inst<'a>>>,
    member_decorations: FxHashMap<(u32, u32), Vec<&'a Inst<'a>>>,
    /// [`used_ids`] of each entry function, computed once for reflection
    /// and block reflection.
    used: std::cell::RefCell<FxHashMap<u32, std::rc::Rc<UsedIds>>>,
}

impl<'a> Index<'a> {
    pub(super) fn new(insts: &'a [Inst<'a>]) -> Self {
        let by_id = ById::new(insts);
        let mut names = FxHashMap::default();
        let mut decorations: FxHashMap<u32, Vec<&Inst>> = FxHashMap::default();
        let mut member_decorations: FxHashMap<(u32, u32), Vec<&Inst>> = FxHashMap::default();
        for inst in insts {
            match inst.op {
                Op::Name => {
                    // A name that is not a string is no name (the validator
                    // has the last word on the module).
                    if let (Some(id), Ok((s, _))) = (inst.word(0), inst.string(1)) {
                        if !s.is_empty() {
                            names.insert(id, s);
                        }
                    }
                }
                Op::Decorate => {
                    if let Some(id) = inst.word(0) {
                        decorations.entry(id).or_default().push(inst);
                    }
                }
                Op::MemberDecorate => {
                    if let (Some(id), Some(m)) = (inst.word(0), inst.word(1)) {
                        member_decorations.entry((id, m)).or_default().push(inst);
                    }
                }
                _ => {}
            }
        }
        Index {
            insts,
            by_id,
            names,
            decorations,
            member_decorations,
            used: Default::default(),
        }
    }

    pub(super) fn get(&self, id: u32) -> Result<&'a Inst<'a>, SpirvError> {
        self.by_id
            .get(id)
            .ok_or_else(|| invalid(format!("id %{id} is used but never defined")))
    }

    /// Words a literal of id `id`'s type takes, `id` being a type or a
    /// value: 2 for a 64-bit integer or float, 1 otherwise (what rspirv's
    /// parser reads for `OpSwitch` cases and constants).
    pub(super) fn literal_words(&self, id: u32) -> usize {
        let width = |t: &Inst<'_>| match t.op {
            Op::TypeInt | Op::TypeFloat => t.word(0),
            _ => None,
        };
        let Some(inst) = self.by_id.get(id) else {
            return 1;
        };
        let bits = width(inst).or_else(|| {
            inst.result_type
                .and_then(|t| self.by_id.get(t))
                .and_then(width)
        });
        if bits == Some(64) {
            2
        } else {
            1
        }
    }

    /// The first extra operand of decoration `d` on `id`, or `Some(0)`-less
    /// presence check via [`Index::has`].
    fn decoration(&self, id: u32, d: Decoration) -> Option<&'a Inst<'a>> {
        self.decorations
            .get(&id)
            .and_then(|v| v.iter().copied().find(|i| i.word(1) == Some(d as u32)))
    }

    pub(super) fn decoration_lit(&self, id: u32, d: Decoration) -> Option<u32> {
        self.decoration(id, d).and_then(|i| i.word(2))
    }

    fn has(&self, id: u32, d: Decoration) -> bool {
        self.decoration(id, d).is_some()
    }

    pub(super) fn member_decoration_lit(&self, id: u32, member: u32, d: Decoration) -> Option<u32> {
        self.member_decorations.get(&(id, member)).and_then(|v| {
            v.iter()
                .find(|i| i.word(2) == Some(d as u32))
                .map(|i| i.word(3).unwrap_or(0))
        })
    }

    pub(super) fn member_has(&self, id: u32, member: u32, d: Decoration) -> bool {
        self.member_decoration_lit(id, member, d).is_some()
    }

    /// Integer value of a (spec) constant: its current default.
    pub(super) fn const_u64(&self, id: u32) -> Result<u64, SpirvError> {
        let inst = self.get(id)?;
        match inst.op {
            // The value's words: one for types of 32 bits or fewer, two
            // (low word first) for 64-bit types.
            Op::Constant | Op::SpecConstant => match *inst.operands {
                [v] => Ok(u64::from(v)),
                [lo, hi] => Ok(u64::from(hi) << 32 | u64::from(lo)),
                _ => Err(invalid(format!("constant %{id} has no literal value"))),
            },
            Op::ConstantTrue | Op::SpecConstantTrue => Ok(1),
            Op::ConstantFalse | Op::SpecConstantFalse | Op::ConstantNull => Ok(0),
            Op::SpecConstantOp => self.spec_op(id, inst),
            op => Err(invalid(format!("%{id} is Op{op:?}, expected a constant"))),
        }
    }

    /// Evaluates the integer `OpSpecConstantOp`s that size arrays (e.g.
    /// `shared float t[gl_WorkGroupSize.x * 2]`) with current defaults.
    fn spec_op(&self, id: u32, inst: &Inst<'_>) -> Result<u64, SpirvError> {
        let Some(opcode) = inst.word(0) else {
            return Err(invalid(format!("%{id}: malformed OpSpecConstantOp")));
        };
        let Some(op) = Op::from_u32(opcode) else {
            return Err(SpirvError::Unsupported(format!(
                "%{id} is an OpSpecConstantOp of unknown opcode {opcode}, which halc cannot evaluate at build time"
            )));
        };
        let arg = |i: usize| -> Result<u64, SpirvError> {
            let a = inst
                .word(i)
                .ok_or_else(|| invalid(format!("%{id}: missing operand")))?;
            self.const_u64(a)
        };
        let unsupported = || {
            SpirvError::Unsupported(format!(
                "%{id} is an OpSpecConstantOp {op:?}, which halc cannot evaluate at build time"
            ))
        };
        // The signed, comparison and logical operations read their operands
        // as 32-bit values: a 64-bit operand is refused.
        let word = |i: usize| -> Result<u32, SpirvError> {
            let a = inst
                .word(i)
                .ok_or_else(|| invalid(format!("%{id}: missing operand")))?;
            if self.literal_words(a) == 2 {
                return Err(unsupported());
            }
            Ok(self.const_u64(a)? as u32)
        };
        let int = |i: usize| word(i).map(|w| w as i32);
        Ok(match op {
            Op::CompositeExtract => {
                let c = inst.word(1).ok_or_else(unsupported)?;
                // Follow every index through nested constant composites.
                let mut part = c;
                for &index in inst.operands.get(2..).unwrap_or_default() {
                    let comp = self.get(part)?;
                    if !matches!(comp.op, Op::ConstantComposite | Op::SpecConstantComposite) {
                        return Err(unsupported());
                    }
                    part = comp.word(index as usize).ok_or_else(unsupported)?;
                }
                self.const_u64(part)?
            }
            Op::IAdd => arg(1)?.wrapping_add(arg(2)?),
            Op::ISub => arg(1)?.wrapping_sub(arg(2)?),
            Op::IMul => arg(1)?.wrapping_mul(arg(2)?),
            Op::UDiv => arg(1)?.checked_div(arg(2)?).ok_or_else(unsupported)?,
            Op::UMod => arg(1)?.checked_rem(arg(2)?).ok_or_else(unsupported)?,
            Op::ShiftLeftLogical => arg(1)?
                .checked_shl(arg(2)? as u32)
                .ok_or_else(unsupported)?,
            Op::ShiftRightLogical => arg(1)?
                .checked_shr(arg(2)? as u32)
                .ok_or_else(unsupported)?,
            Op::BitwiseAnd => arg(1)? & arg(2)?,
            Op::BitwiseOr => arg(1)? | arg(2)?,
            Op::BitwiseXor => arg(1)? ^ arg(2)?,
            Op::UConvert | Op::SConvert | Op::Bitcast => arg(1)?,
            // Signed operations on the 32-bit values (narrow signed literals
            // are sign-extended to a word), as SPIR-V defines them: SDiv
            // truncates, SRem takes the sign of the dividend; a zero divisor
            // and i32::MIN / -1 are refused.
            Op::SDiv | Op::SRem => {
                let (a, b) = (int(1)?, int(2)?);
                let q = match op {
                    Op::SDiv => a.checked_div(b),
                    _ => a.checked_rem(b),
                };
                u64::from(q.ok_or_else(unsupported)? as u32)
            }
            // SPIRV-Cross writes SMod as a call of its helper `spvSMod`,
            // which is no constant expression: MSL cannot size an array with
            // it (clang, as Metal's compiler, rejects the MSL).
            Op::SMod => {
                return Err(SpirvError::Unsupported(format!(
                    "%{id} is an OpSpecConstantOp SMod (GLSL `%` on signed integers) in an array size: SPIRV-Cross writes it as a helper function call, which MSL cannot use in an array size; write the size without a signed `%`"
                )))
            }
            Op::SNegate => u64::from(int(1)?.wrapping_neg() as u32),
            Op::Not => u64::from(!word(1)?),
            Op::ShiftRightArithmetic => {
                let n = Some(word(2)?).filter(|n| *n < 32).ok_or_else(unsupported)?;
                u64::from((int(1)? >> n) as u32)
            }
            // Comparisons and logic give a bool: 1 or 0.
            Op::IEqual | Op::LogicalEqual => u64::from(word(1)? == word(2)?),
            Op::INotEqual | Op::LogicalNotEqual => u64::from(word(1)? != word(2)?),
            Op::ULessThan => u64::from(word(1)? < word(2)?),
            Op::ULessThanEqual => u64::from(word(1)? <= word(2)?),
            Op::UGreaterThan => u64::from(word(1)? > word(2)?),
            Op::UGreaterThanEqual => u64::from(word(1)? >= word(2)?),
            Op::SLessThan => u64::from(int(1)? < int(2)?),
            Op::SLessThanEqual => u64::from(int(1)? <= int(2)?),
            Op::SGreaterThan => u64::from(int(1)? > int(2)?),
            Op::SGreaterThanEqual => u64::from(int(1)? >= int(2)?),
            Op::LogicalAnd => u64::from(arg(1)? != 0 && arg(2)? != 0),
            Op::LogicalOr => u64::from(arg(1)? != 0 || arg(2)? != 0),
            Op::LogicalNot => u64::from(arg(1)? == 0),
            Op::Select => {
                if arg(1)? != 0 {
                    arg(2)?
                } else {
                    arg(3)?
                }
            }
            _ => return Err(unsupported()),
        } & 0xffff_ffff)
    }

    pub(super) fn scalar_type(&self, type_id: u32) -> Result<ScalarType, SpirvError> {
        let t = self.get(type_id)?;
        match t.op {
            Op::TypeBool => Ok(ScalarType::Bool),
            Op::TypeInt => {
                let w = t.word(0).unwrap_or(32);
                Ok(if t.word(1) == Some(1) {
                    ScalarType::Int(w)
                } else {
                    ScalarType::UInt(w)
                })
            }
            Op::TypeFloat => Ok(ScalarType::Float(t.word(0).unwrap_or(32))),
            op => Err(invalid(format!(
                "%{type_id} is Op{op:?}, expected a scalar type"
            ))),
        }
    }

    /// Size in bytes of a type laid out with explicit `Offset`/`ArrayStride`
    /// decorations (buffer blocks, push constants). Returns (size, trailing
    /// runtime-array stride).
    pub(super) fn explicit_size(&self, type_id: u32, depth: u32) -> Result<(u64, u32), SpirvError> {
        if depth > 64 {
            return Err(invalid("type nesting deeper than 64"));
        }
        let t = self.get(type_id)?;
        Ok(match t.op {
            Op::TypeBool => (4, 0),
            Op::TypeInt | Op::TypeFloat => (u64::from(t.word(0).unwrap_or(32) / 8), 0),
            Op::TypeVector => {
                let (c, _) = self.explicit_size(t.word(0).unwrap_or(0), depth + 1)?;
                (c * u64::from(t.word(1).unwrap_or(0)), 0)
            }
            Op::TypeMatrix => {
                // Without the member's MatrixStride we fall back to tight columns.
                let (c, _) = self.explicit_size(t.word(0).unwrap_or(0), depth + 1)?;
                (c * u64::from(t.word(1).unwrap_or(0)), 0)
            }
            Op::TypeArray => {
                let len = self.const_u64(t.word(1).unwrap_or(0))?;
                let stride = match self.decoration_lit(type_id, Decoration::ArrayStride) {
                    Some(s) => u64::from(s),
                    None => self.explicit_size(t.word(0).unwrap_or(0), depth + 1)?.0,
                };
                (stride.saturating_mul(len), 0)
            }
            Op::TypeRuntimeArray => {
                let stride = match self.decoration_lit(type_id, Decoration::ArrayStride) {
                    Some(s) => s,
                    None => self.explicit_size(t.word(0).unwrap_or(0), depth + 1)?.0 as u32,
                };
                (0, stride)
            }
            Op::TypeStruct => {
                let mut end = 0u64;
                let mut rt_stride = 0;
                for (m, &member_ty) in t.operands.iter().enumerate() {
                    let offset = u64::from(
                        self.member_decoration_lit(type_id, m as u32, Decoration::Offset)
                            .unwrap_or(0),
                    );
                    let member = self.get(member_ty)?;
                    let (size, stride) = if member.op == Op::TypeMatrix {
                        let cols = u64::from(member.word(1).unwrap_or(0));
                        match self.member_decoration_lit(
                            type_id,
                            m as u32,
                            Decoration::MatrixStride,
                        ) {
                            Some(ms)
                                if self.member_has(type_id, m as u32, Decoration::RowMajor) =>
                            {
                                let col = self.get(member.word(0).unwrap_or(0))?;
                                (u64::from(ms) * u64::from(col.word(1).unwrap_or(0)), 0)
                            }
                            Some(ms) => (u64::from(ms) * cols, 0),
                            None => self.explicit_size(member_ty, depth + 1)?,
                        }
                    } else {
                        self.explicit_size(member_ty, depth + 1)?
                    };
                    end = end.max(offset + size);
                    if stride != 0 {
                        rt_stride = stride;
                    }
                }
                (end, rt_stride)
            }
            Op::TypePointer => (8, 0),
            op => {
                return Err(invalid(format!(
                    "type %{type_id} (Op{op:?}) has no byte size"
                )))
            }
        })
    }

    /// (size, alignment) of a type in Metal's natural layout, for
    /// threadgroup memory (no explicit offsets there).
    fn natural_size(&self, type_id: u32, depth: u32) -> Result<(u64, u64), SpirvError> {
        if depth > 64 {
            return Err(invalid("type nesting deeper than 64"));
        }
        let t = self.get(type_id)?;
        Ok(match t.op {
            Op::TypeBool => (1, 1),
            Op::TypeInt | Op::TypeFloat => {
                let b = u64::from(t.word(0).unwrap_or(32) / 8).max(1);
                (b, b)
            }
            Op::TypeVector => {
                let (c, _) = self.natural_size(t.word(0).unwrap_or(0), depth + 1)?;
                let n = u64::from(t.word(1).unwrap_or(0));
                // Metal: 3-component vectors take the size of 4.
                let n = if n == 3 { 4 } else { n };
                (c * n, c * n)
            }
            Op::TypeMatrix => {
                let (col, a) = self.natural_size(t.word(0).unwrap_or(0), depth + 1)?;
                (col * u64::from(t.word(1).unwrap_or(0)), a)
            }
            Op::TypeArray => {
                let len = self.const_u64(t.word(1).unwrap_or(0))?;
                let (s, a) = self.natural_size(t.word(0).unwrap_or(0), depth + 1)?;
                (s.div_ceil(a.max(1)) * a.max(1) * len, a)
            }
            Op::TypeStruct => {
                let mut off = 0u64;
                let mut align = 1u64;
                for &m in t.operands {
                    let (s, a) = self.natural_size(m, depth + 1)?;
                    let a = a.max(1);
                    off = off.div_ceil(a) * a + s;
                    align = align.max(a);
                }
                (off.div_ceil(align) * align, align)
            }
            op => {
                return Err(invalid(format!(
                    "type %{type_id} (Op{op:?}) has no byte size"
                )))
            }
        })
    }
}

/// Reflects every entry point of a module.
pub fn reflect(words: &Words) -> Result<ModuleInfo, SpirvError> {
    let insts = parse(words)?;
    let ix = Index::new(&insts);
    let functions = function_bodies(&insts);
    reflect_parsed(words, &insts, &ix, &functions)
}

/// [`reflect`] and [`super::blocks::blocks`] of one module, which is parsed
/// and indexed once for both.
pub fn reflect_with_blocks(
    words: &Words,
) -> Result<(ModuleInfo, HashMap<String, super::Blocks>), SpirvError> {
    let insts = parse(words)?;
    let ix = Index::new(&insts);
    let functions = function_bodies(&insts);
    Ok((
        reflect_parsed(words, &insts, &ix, &functions)?,
        super::blocks::blocks_parsed(&insts, &ix, &functions)?,
    ))
}

fn reflect_parsed(
    words: &Words,
    insts: &[Inst<'_>],
    ix: &Index<'_>,
    functions: &Bodies<'_>,
) -> Result<ModuleInfo, SpirvError> {
    let capabilities = insts
        .iter()
        .filter(|i| i.op == Op::Capability)
        .filter_map(|i| i.word(0))
        .map(|c| match spirv::Capability::from_u32(c) {
            Some(c) => format!("{c:?}"),
            None => format!("Capability{c}"),
        })
        .collect();

    let spec_constants = spec_constants(ix)?;
    let builtin_wg = builtin_workgroup_size(ix)?;

    let mut entry_points = Vec::new();
    for inst in insts.iter().filter(|i| i.op == Op::EntryPoint) {
        let (model, func, name) = entry_point(inst)?;
        let model = match model {
            spirv::ExecutionModel::GLCompute => ExecutionModel::GLCompute,
            spirv::ExecutionModel::Kernel => ExecutionModel::Kernel,
            other => ExecutionModel::Other(model_name(other)),
        };
        if model != ExecutionModel::GLCompute {
            entry_points.push(EntryPoint {
                name: name.clone(),
                model,
                workgroup_size: None,
                bindings: Vec::new(),
                push_constant_size: None,
                threadgroup_memory_bytes: 0,
            });
            continue;
        }
        let ctx = |e: SpirvError| match e {
            SpirvError::Invalid(m) => invalid(format!("entry point `{name}`: {m}")),
            SpirvError::Unsupported(m) => {
                SpirvError::Unsupported(format!("entry point `{name}`: {m}"))
            }
            e => e,
        };
        let workgroup_size = match builtin_wg {
            Some(wg) => wg,
            None => execution_mode_workgroup_size(ix, func).map_err(ctx)?,
        };
        let used = used_ids(ix, functions, func).map_err(ctx)?;
        let (bindings, push_constant_size, threadgroup_memory_bytes) =
            resources(ix, functions, func, &used).map_err(ctx)?;
        entry_points.push(EntryPoint {
            name: name.clone(),
            model,
            workgroup_size: Some(workgroup_size),
            bindings,
            push_constant_size,
            threadgroup_memory_bytes,
        });
    }

    Ok(ModuleInfo {
        version: words.version(),
        entry_points,
        spec_constants,
        capabilities,
    })
}

/// An `OpEntryPoint`'s execution model, function and name.
pub(super) fn entry_point(
    inst: &Inst<'_>,
) -> Result<(spirv::ExecutionModel, u32, String), SpirvError> {
    let malformed = || invalid("malformed OpEntryPoint");
    let model = inst
        .word(0)
        .and_then(spirv::ExecutionModel::from_u32)
        .ok_or_else(malformed)?;
    let func = inst.word(1).ok_or_else(malformed)?;
    let (name, _) = inst.string(2)?;
    Ok((model, func, name))
}

fn model_name(m: spirv::ExecutionModel) -> &'static str {
    use spirv::ExecutionModel as E;
    match m {
        E::Vertex => "Vertex",
        E::TessellationControl => "TessellationControl",
        E::TessellationEvaluation => "TessellationEvaluation",
        E::Geometry => "Geometry",
        E::Fragment => "Fragment",
        E::GLCompute => "GLCompute",
        E::Kernel => "Kernel",
        E::TaskNV | E::TaskEXT => "Task",
        E::MeshNV | E::MeshEXT => "Mesh",
        _ => "ray tracing",
    }
}

fn spec_constants(ix: &Index<'_>) -> Result<Vec<SpecConstant>, SpirvError> {
    let mut out: BTreeMap<u32, SpecConstant> = BTreeMap::new();
    for inst in ix.insts {
        let op = inst.op;
        if !matches!(
            op,
            Op::SpecConstant | Op::SpecConstantTrue | Op::SpecConstantFalse
        ) {
            continue;
        }
        let (Some(rid), Some(rty)) = (inst.result_id, inst.result_type) else {
            continue;
        };
        let Some(id) = ix.decoration_lit(rid, Decoration::SpecId) else {
            continue;
        };
        let ty = ix.scalar_type(rty)?;
        let default = ScalarValue(ix.const_u64(rid)?);
        let name = ix.names.get(&rid).cloned();
        // One SpecId on several constants: Vulkan gives each the specialised
        // value (as its own type) and, unspecialised, its own default. Metal
        // has one function constant per id, so the bits must mean the same
        // width everywhere.
        if let Some(prev) = out.get_mut(&id) {
            if (prev.ty == ScalarType::Bool) != (ty == ScalarType::Bool) {
                return Err(SpirvError::Unsupported(format!(
                    "SpecId {id} is declared as both {} and {ty}: one Metal function constant cannot be both a bool and a number",
                    prev.ty
                )));
            }
            if prev.ty.bits() != ty.bits() {
                return Err(SpirvError::Unsupported(format!(
                    "SpecId {id} is declared as both {} and {ty}: one Metal function constant cannot have two widths",
                    prev.ty
                )));
            }
            let same = |t: ScalarType, d: ScalarValue| t == ty && d == default;
            if !same(prev.ty, prev.default) && !prev.aliases.iter().any(|a| same(a.ty, a.default)) {
                prev.aliases.push(SpecAlias { ty, default, name });
            }
            continue;
        }
        out.insert(
            id,
            SpecConstant {
                id,
                ty,
                default,
                name,
                aliases: Vec::new(),
            },
        );
    }
    Ok(out.into_values().collect())
}

fn dim_of(ix: &Index<'_>, id: u32) -> Result<WorkgroupDim, SpirvError> {
    if ix.get(id)?.op == Op::SpecConstantOp {
        return Err(SpirvError::Unsupported(format!(
            "workgroup size component %{id} is an OpSpecConstantOp expression; halc needs a constant or a spec constant"
        )));
    }
    let value = ix.const_u64(id)?;
    let value = u32::try_from(value).map_err(|_| {
        invalid(format!(
            "workgroup size constant %{id} does not fit 32 bits"
        ))
    })?;
    let inst = ix.get(id)?;
    let spec_id = if inst.op == Op::SpecConstant {
        ix.decoration_lit(id, Decoration::SpecId)
    } else {
        None
    };
    Ok(WorkgroupDim { value, spec_id })
}

fn builtin_workgroup_size(ix: &Index<'_>) -> Result<Option<WorkgroupSize>, SpirvError> {
    let mut found = None;
    for (id, decs) in &ix.decorations {
        let is_wg = decs.iter().any(|d| {
            d.word(1) == Some(Decoration::BuiltIn as u32)
                && d.word(2) == Some(BuiltIn::WorkgroupSize as u32)
        });
        if !is_wg {
            continue;
        }
        let inst = ix.get(*id)?;
        if !matches!(inst.op, Op::ConstantComposite | Op::SpecConstantComposite) {
            // A variable decorated WorkgroupSize is an input builtin: the
            // size then comes from the execution mode.
            continue;
        }
        if found.is_some() {
            return Err(invalid(
                "more than one constant decorated BuiltIn WorkgroupSize",
            ));
        }
        let comps = inst.operands;
        if comps.len() != 3 {
            return Err(invalid("WorkgroupSize constant does not have 3 components"));
        }
        found = Some(WorkgroupSize {
            dims: [
                dim_of(ix, comps[0])?,
                dim_of(ix, comps[1])?,
                dim_of(ix, comps[2])?,
            ],
            source: WorkgroupSource::Builtin,
        });
    }
    Ok(found)
}

fn execution_mode_workgroup_size(ix: &Index<'_>, func: u32) -> Result<WorkgroupSize, SpirvError> {
    for inst in ix.insts {
        let op = inst.op;
        if !matches!(op, Op::ExecutionMode | Op::ExecutionModeId) || inst.word(0) != Some(func) {
            continue;
        }
        let mode = inst.word(1).and_then(ExecutionMode::from_u32);
        match mode {
            Some(ExecutionMode::LocalSize) => {
                let v: Vec<u32> = (2..5).filter_map(|i| inst.word(i)).collect();
                if v.len() != 3 {
                    return Err(invalid("LocalSize needs three literals"));
                }
                let d = |value| WorkgroupDim {
                    value,
                    spec_id: None,
                };
                return Ok(WorkgroupSize {
                    dims: [d(v[0]), d(v[1]), d(v[2])],
                    source: WorkgroupSource::LocalSize,
                });
            }
            Some(ExecutionMode::LocalSizeId) => {
                let v: Vec<u32> = (2..5).filter_map(|i| inst.word(i)).collect();
                if v.len() != 3 {
                    return Err(invalid("LocalSizeId needs three ids"));
                }
                return Ok(WorkgroupSize {
                    dims: [dim_of(ix, v[0])?, dim_of(ix, v[1])?, dim_of(ix, v[2])?],
                    source: WorkgroupSource::LocalSizeId,
                });
            }
            _ => {}
        }
    }
    Err(invalid(
        "no workgroup size (no LocalSize, LocalSizeId or WorkgroupSize builtin)",
    ))
}

/// For each function id, the instructions of its body.
pub(super) type Bodies<'a> = FxHashMap<u32, &'a [Inst<'a>]>;

/// For each function id, the instructions of its body.
pub(super) fn function_bodies<'a>(insts: &'a [Inst<'a>]) -> Bodies<'a> {
    let mut out = FxHashMap::default();
    let mut start = None;
    for (i, inst) in insts.iter().enumerate() {
        match inst.op {
            Op::Function => start = Some((inst.result_id.unwrap_or(0), i)),
            Op::FunctionEnd => {
                if let Some((id, s)) = start.take() {
                    out.insert(id, &insts[s..=i]);
                }
            }
            _ => {}
        }
    }
    out
}

/// Functions reachable from `entry` through `OpFunctionCall`, in a stable order.
fn reachable_functions(functions: &Bodies<'_>, entry: u32) -> Vec<u32> {
    let mut seen = BTreeSet::new();
    let mut stack = vec![entry];
    let mut order = Vec::new();
    while let Some(f) = stack.pop() {
        if !seen.insert(f) {
            continue;
        }
        order.push(f);
        if let Some(body) = functions.get(&f) {
            for inst in body.iter() {
                if inst.op == Op::FunctionCall {
                    if let Some(callee) = inst.word(0) {
                        stack.push(callee);
                    }
                }
            }
        }
    }
    order
}

/// Every id referenced by the functions reachable from `entry`.
pub(super) fn used_ids(
    ix: &Index<'_>,
    functions: &Bodies<'_>,
    entry: u32,
) -> Result<std::rc::Rc<UsedIds>, SpirvError> {
    if let Some(used) = ix.used.borrow().get(&entry) {
        return Ok(used.clone());
    }
    let mut used = UsedIds::default();
    for f in reachable_functions(functions, entry) {
        if let Some(body) = functions.get(&f) {
            for inst in body.iter() {
                inst.for_each_id(|id| ix.literal_words(id), |id| used.insert(id))?;
            }
        }
    }
    let used = std::rc::Rc::new(used);
    ix.used.borrow_mut().insert(entry, used.clone());
    Ok(used)
}

/// The ids an entry point's functions refer to: a bit per id (ids are
/// dense, below the module's bound; a `BTreeSet` of them cost a fifth of
/// reflecting a large kernel). Reflection runs before the validator's
/// verdict, so an id past SPIR-V's limit, which no valid module has, goes
/// to a set instead of growing the bits.
#[derive(Default)]
pub(super) struct UsedIds {
    bits: Vec<u64>,
    beyond: BTreeSet<u32>,
}

impl UsedIds {
    /// SPIR-V's universal limit on ids (the bound is at most 4 194 303).
    const DENSE: u32 = 1 << 22;

    fn insert(&mut self, id: u32) {
        if id >= Self::DENSE {
            self.beyond.insert(id);
            return;
        }
        let word = (id / 64) as usize;
        if word >= self.bits.len() {
            self.bits.resize(word + 1, 0);
        }
        self.bits[word] |= 1 << (id % 64);
    }

    pub(super) fn contains(&self, id: u32) -> bool {
        match self.bits.get((id / 64) as usize) {
            Some(w) => w & (1 << (id % 64)) != 0,
            None => self.beyond.contains(&id),
        }
    }
}

type Resources = (Vec<Binding>, Option<u32>, u64);

fn resources(
    ix: &Index<'_>,
    functions: &Bodies<'_>,
    entry: u32,
    used: &UsedIds,
) -> Result<Resources, SpirvError> {
    // Variables whose length is read, through access chains.
    let mut length_read = BTreeSet::new();
    // Image variables reached by OpImageTexelPointer (image atomics).
    let mut atomic_images = BTreeSet::new();
    let mut chain_base: FxHashMap<u32, u32> = FxHashMap::default();
    for f in reachable_functions(functions, entry) {
        for inst in functions.get(&f).copied().unwrap_or_default() {
            match inst.op {
                Op::AccessChain | Op::InBoundsAccessChain | Op::PtrAccessChain => {
                    if let (Some(r), Some(base)) = (inst.result_id, inst.word(0)) {
                        let root = chain_base.get(&base).copied().unwrap_or(base);
                        chain_base.insert(r, root);
                    }
                }
                Op::ArrayLength => {
                    if let Some(p) = inst.word(0) {
                        length_read.insert(chain_base.get(&p).copied().unwrap_or(p));
                    }
                }
                Op::ImageTexelPointer => {
                    if let Some(p) = inst.word(0) {
                        atomic_images.insert(chain_base.get(&p).copied().unwrap_or(p));
                    }
                }
                _ => {}
            }
        }
    }

    let mut bindings: Vec<Binding> = Vec::new();
    let mut push_constant_size = None;
    let mut tg_bytes = 0u64;
    for inst in ix.insts {
        if inst.op != Op::Variable {
            continue;
        }
        let (Some(var), Some(ptr_ty)) = (inst.result_id, inst.result_type) else {
            continue;
        };
        let Some(class) = inst.word(0) else {
            continue;
        };
        // Function-local variables live inside function bodies.
        if class == StorageClass::Function as u32 || !used.contains(var) {
            continue;
        }
        let class = StorageClass::from_u32(class).ok_or_else(|| {
            SpirvError::Unsupported(format!(
                "variable %{var} in storage class {class} is not supported on Metal"
            ))
        })?;
        let ptr = ix.get(ptr_ty)?;
        let pointee = ptr
            .word(1)
            .ok_or_else(|| invalid(format!("%{ptr_ty} is not a pointer")))?;
        match class {
            StorageClass::PushConstant => {
                let (size, _) = ix.explicit_size(pointee, 0)?;
                let size = u32::try_from(size)
                    .map_err(|_| invalid("push-constant block larger than 4 GiB"))?;
                push_constant_size = Some(push_constant_size.unwrap_or(0).max(size));
            }
            StorageClass::Workgroup => {
                tg_bytes += ix.natural_size(pointee, 0)?.0;
            }
            StorageClass::Uniform | StorageClass::StorageBuffer | StorageClass::UniformConstant => {
                let b = binding(ix, var, class, pointee, length_read.contains(&var))?;
                if atomic_images.contains(&var) {
                    // SPIRV-Cross gives an atomic image a companion buffer
                    // outside the binding contract; refuse before it runs.
                    return Err(SpirvError::Unsupported(format!(
                        "(set {}, binding {}): atomic operations on an image (OpImageTexelPointer, GLSL imageAtomic*) are not supported: halc cannot yet lay out the companion buffer SPIRV-Cross emits for them; use a storage buffer and buffer atomics",
                        b.set, b.binding
                    )));
                }
                bindings.push(b);
            }
            StorageClass::Input | StorageClass::Output | StorageClass::Private => {}
            other => {
                return Err(SpirvError::Unsupported(format!(
                    "variable %{var} in storage class {other:?} is not supported on Metal"
                )))
            }
        }
    }
    bindings.sort_by_key(|b| (b.set, b.binding));
    Ok((merge_aliases(bindings)?, push_constant_size, tg_bytes))
}

/// Variables on one (set, binding) are views of one descriptor (ggml reads
/// one buffer as `float16_t[]` and as `f16vec4[]`): one Metal slot, the
/// union of their accesses, the largest fixed size. Views of different kinds
/// or counts cannot share a slot.
fn merge_aliases(sorted: Vec<Binding>) -> Result<Vec<Binding>, SpirvError> {
    let mut out: Vec<Binding> = Vec::with_capacity(sorted.len());
    for b in sorted {
        let Some(prev) = out
            .last_mut()
            .filter(|p| (p.set, p.binding) == (b.set, b.binding))
        else {
            out.push(b);
            continue;
        };
        let at = format!("(set {}, binding {})", b.set, b.binding);
        if prev.kind != b.kind {
            return Err(SpirvError::Unsupported(format!(
                "{at} is declared as both a {} and a {}: aliased descriptors must be of one kind",
                prev.kind.describe(),
                b.kind.describe()
            )));
        }
        if prev.count != b.count {
            return Err(SpirvError::Unsupported(format!(
                "{at} is declared as arrays of {} and {} descriptors: aliased descriptors must have one count",
                prev.count, b.count
            )));
        }
        prev.access = match (prev.access, b.access) {
            (a, b) if a == b => a,
            _ => Access::ReadWrite,
        };
        prev.min_size = prev.min_size.max(b.min_size);
        prev.runtime_array_stride = prev.runtime_array_stride.max(b.runtime_array_stride);
        prev.uses_array_length |= b.uses_array_length;
        prev.aliases += 1;
    }
    Ok(out)
}

fn binding(
    ix: &Index<'_>,
    var: u32,
    class: StorageClass,
    pointee: u32,
    uses_array_length: bool,
) -> Result<Binding, SpirvError> {
    let set = ix
        .decoration_lit(var, Decoration::DescriptorSet)
        .unwrap_or(0);
    let binding_no = ix.decoration_lit(var, Decoration::Binding).ok_or_else(|| {
        invalid(format!(
            "resource variable %{var} ({}) has no Binding decoration",
            ix.names.get(&var).map(String::as_str).unwrap_or("unnamed")
        ))
    })?;
    let at = format!("(set {set}, binding {binding_no})");

    // Unwrap descriptor arrays.
    let mut ty = pointee;
    let mut count = 1u32;
    let t = ix.get(ty)?;
    match t.op {
        Op::TypeArray => {
            let len = ix.const_u64(t.word(1).unwrap_or(0))?;
            count = u32::try_from(len)
                .ok()
                .filter(|c| *c > 0)
                .ok_or_else(|| invalid(format!("{at}: descriptor array length {len}")))?;
            ty = t.word(0).unwrap_or(0);
        }
        Op::TypeRuntimeArray => {
            count = 0;
            ty = t.word(0).unwrap_or(0);
        }
        _ => {}
    }
    let t = ix.get(ty)?;
    let var_nonwritable = ix.has(var, Decoration::NonWritable);
    let var_nonreadable = ix.has(var, Decoration::NonReadable);
    let image_access = |nonwritable: bool, nonreadable: bool| match (nonwritable, nonreadable) {
        (true, _) => Access::ReadOnly,
        (false, true) => Access::WriteOnly,
        (false, false) => Access::ReadWrite,
    };

    let (kind, access, min_size, stride) = match (class, t.op) {
        (StorageClass::StorageBuffer | StorageClass::Uniform, Op::TypeStruct) => {
            let is_storage =
                class == StorageClass::StorageBuffer || ix.has(ty, Decoration::BufferBlock);
            let (size, stride) = ix.explicit_size(ty, 0)?;
            if is_storage {
                let members = t.operands.len() as u32;
                let all = |d| members > 0 && (0..members).all(|m| ix.member_has(ty, m, d));
                let ro = var_nonwritable || all(Decoration::NonWritable);
                let wo = var_nonreadable || all(Decoration::NonReadable);
                (
                    BindingKind::StorageBuffer,
                    image_access(ro, wo),
                    size,
                    stride,
                )
            } else {
                (BindingKind::UniformBuffer, Access::ReadOnly, size, stride)
            }
        }
        (StorageClass::UniformConstant, Op::TypeImage) => {
            let dim = t.word(1);
            let sampled = t.word(5).unwrap_or(0);
            let is_buffer = dim == Some(Dim::DimBuffer as u32);
            let kind = match (is_buffer, sampled) {
                (true, 2) => BindingKind::StorageTexelBuffer,
                (true, _) => BindingKind::UniformTexelBuffer,
                (false, 2) => BindingKind::StorageImage,
                (false, _) => BindingKind::SampledImage,
            };
            let access = if sampled == 2 {
                image_access(var_nonwritable, var_nonreadable)
            } else {
                Access::ReadOnly
            };
            (kind, access, 0, 0)
        }
        (StorageClass::UniformConstant, Op::TypeSampler) => {
            (BindingKind::Sampler, Access::ReadOnly, 0, 0)
        }
        (StorageClass::UniformConstant, Op::TypeSampledImage) => {
            // GLSL `samplerBuffer` is a sampled image over a Buffer-dim
            // image: a uniform texel buffer, with no sampler in Metal.
            let image = ix.get(t.word(0).unwrap_or(0))?;
            let kind = if image.word(1) == Some(Dim::DimBuffer as u32) {
                BindingKind::UniformTexelBuffer
            } else {
                BindingKind::CombinedImageSampler
            };
            (kind, Access::ReadOnly, 0, 0)
        }
        (_, op) => {
            return Err(SpirvError::Unsupported(format!(
            "{at}: resource of type Op{op:?} in storage class {class:?} is not supported on Metal"
        )))
        }
    };
    let name = ix.names.get(&var).or_else(|| ix.names.get(&ty)).cloned();
    Ok(Binding {
        set,
        binding: binding_no,
        kind,
        access,
        count,
        min_size,
        runtime_array_stride: stride,
        uses_array_length: uses_array_length && kind == BindingKind::StorageBuffer,
        name,
        aliases: 0,
    })
}

/// Where the scalars of a buffer block (or push-constant block) live: the
/// fixed part, and the element of a trailing runtime array. What `halc
/// diff` fills with typed random data and compares by type.
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

/// Most scalars a fixed block part may list (a bound for hostile input).
const MAX_BLOCK_SCALARS: usize = 1 << 20;

impl Index<'_> {
    /// Every scalar of `type_id` at `base`, with explicit-layout
    /// decorations; `matrix` is the member's (MatrixStride, RowMajor).
    fn scalars(
        &self,
        type_id: u32,
        base: u64,
        matrix: Option<(u64, bool)>,
        out: &mut Vec<(u64, ScalarType)>,
        depth: u32,
    ) -> Result<(), SpirvError> {
        if depth > 64 || out.len() > MAX_BLOCK_SCALARS {
            return Err(invalid("block too deep or too large to lay out"));
        }
        let t = self.get(type_id)?;
        match t.op {
            Op::TypeBool => out.push((base, ScalarType::UInt(32))),
            Op::TypeInt | Op::TypeFloat => out.push((base, self.scalar_type(type_id)?)),
            Op::TypeVector => {
                let comp = t.word(0).unwrap_or(0);
                let size = self.explicit_size(comp, depth + 1)?.0;
                for i in 0..u64::from(t.word(1).unwrap_or(0)) {
                    self.scalars(comp, base + i * size, None, out, depth + 1)?;
                }
            }
            Op::TypeMatrix => {
                let col = t.word(0).unwrap_or(0);
                let col_t = self.get(col)?;
                let comp = col_t.word(0).unwrap_or(0);
                let comp_size = self.explicit_size(comp, depth + 1)?.0;
                let rows = u64::from(col_t.word(1).unwrap_or(0));
                let cols = u64::from(t.word(1).unwrap_or(0));
                let (stride, row_major) =
                    matrix.unwrap_or((self.explicit_size(col, depth + 1)?.0, false));
                for c in 0..cols {
                    for r in 0..rows {
                        let at = if row_major {
                            r * stride + c * comp_size
                        } else {
                            c * stride + r * comp_size
                        };
                        self.scalars(comp, base + at, None, out, depth + 1)?;
                    }
                }
            }
            Op::TypeArray => {
                let elem = t.word(0).unwrap_or(0);
                let len = self.const_u64(t.word(1).unwrap_or(0))?;
                let stride = match self.decoration_lit(type_id, Decoration::ArrayStride) {
                    Some(s) => u64::from(s),
                    None => self.explicit_size(elem, depth + 1)?.0,
                };
                for i in 0..len {
                    self.scalars(elem, base + i * stride, matrix, out, depth + 1)?;
                }
            }
            Op::TypeStruct => {
                for (m, &member_ty) in t.operands.iter().enumerate() {
                    let m = m as u32;
                    let offset = u64::from(
                        self.member_decoration_lit(type_id, m, Decoration::Offset)
                            .unwrap_or(0),
                    );
                    let matrix = self
                        .member_decoration_lit(type_id, m, Decoration::MatrixStride)
                        .map(|s| {
                            (
                                u64::from(s),
                                self.member_has(type_id, m, Decoration::RowMajor),
                            )
                        });
                    if self.get(member_ty)?.op == Op::TypeRuntimeArray {
                        continue; // laid out by the caller
                    }
                    self.scalars(member_ty, base + offset, matrix, out, depth + 1)?;
                }
            }
            op => {
                return Err(invalid(format!(
                    "type %{type_id} (Op{op:?}) in a buffer block"
                )))
            }
        }
        Ok(())
    }
}

/// The scalar layout of the block bound at (`set`, `binding`), or of the
/// push-constant block when `set` is `None`.
pub fn block_layout(words: &Words, at: Option<(u32, u32)>) -> Result<BlockLayout, SpirvError> {
    let insts = parse(words)?;
    let ix = Index::new(&insts);
    for inst in ix.insts {
        if inst.op != Op::Variable {
            continue;
        }
        let (Some(var), Some(ptr_ty), Some(class)) = (
            inst.result_id,
            inst.result_type,
            inst.word(0).and_then(StorageClass::from_u32),
        ) else {
            continue;
        };
        let wanted = match at {
            None => class == StorageClass::PushConstant,
            Some((set, binding)) => {
                matches!(class, StorageClass::Uniform | StorageClass::StorageBuffer)
                    && ix
                        .decoration_lit(var, Decoration::DescriptorSet)
                        .unwrap_or(0)
                        == set
                    && ix.decoration_lit(var, Decoration::Binding) == Some(binding)
            }
        };
        if !wanted {
            continue;
        }
        let block = ix
            .get(ptr_ty)?
            .word(1)
            .ok_or_else(|| invalid("not a pointer"))?;
        let t = ix.get(block)?;
        if t.op != Op::TypeStruct {
            return Err(SpirvError::Unsupported(
                "descriptor arrays of buffers are not laid out by halc diff".into(),
            ));
        }
        let mut out = BlockLayout::default();
        ix.scalars(block, 0, None, &mut out.fixed, 0)?;
        let (size, stride) = ix.explicit_size(block, 0)?;
        out.fixed_size = size;
        // The trailing runtime array, if any: its element's scalars.
        if let Some((m, &last)) = t.operands.iter().enumerate().next_back() {
            let lt = ix.get(last)?;
            if lt.op == Op::TypeRuntimeArray {
                let elem = lt.word(0).unwrap_or(0);
                let offset = u64::from(
                    ix.member_decoration_lit(block, m as u32, Decoration::Offset)
                        .unwrap_or(0),
                );
                out.fixed_size = out.fixed_size.max(offset);
                let mut slots = Vec::new();
                ix.scalars(elem, 0, None, &mut slots, 0)?;
                out.array = Some((u64::from(stride), slots));
            }
        }
        return Ok(out);
    }
    Err(invalid(match at {
        None => "no push-constant block".to_string(),
        Some((s, b)) => format!("no buffer at (set {s}, binding {b})"),
    }))
}

#[cfg(test)]
mod tests {
    use super::UsedIds;
    use spirv_tools::assembler::Assembler;

    /// The threadgroup memory of a kernel whose one shared `uint` array is
    /// `%len` long, `%len` being `OP` on the given operands (after the
    /// constants `%a` = -7, `%b` = 3, `%c` = 12 as int, `%u` = 5 as uint,
    /// `%l` = 3 as long).
    fn shared_length(op: &str) -> Result<u64, crate::spirv::SpirvError> {
        let text = format!(
            "OpCapability Shader\nOpCapability Int64\nOpMemoryModel Logical GLSL450\n\
             OpEntryPoint GLCompute %main \"main\"\nOpExecutionMode %main LocalSize 1 1 1\n\
             OpDecorate %a SpecId 0\n\
             %void = OpTypeVoid\n%fn = OpTypeFunction %void\n%int = OpTypeInt 32 1\n\
             %uint = OpTypeInt 32 0\n%long = OpTypeInt 64 1\n%bool = OpTypeBool\n\
             %a = OpSpecConstant %int -7\n%b = OpConstant %int 3\n%c = OpConstant %int 12\n\
             %u = OpConstant %uint 5\n%l = OpConstant %long 3\n%one = OpConstant %uint 1\n\
             {op}\n\
             %arr = OpTypeArray %uint %len\n%ptr = OpTypePointer Workgroup %arr\n\
             %shared = OpVariable %ptr Workgroup\n\
             %main = OpFunction %void None %fn\n%e = OpLabel\n\
             %p = OpAccessChain %pu %shared %one\nOpStore %p %one\nOpReturn\nOpFunctionEnd\n"
        )
        .replace(
            "%arr = OpTypeArray",
            "%pu = OpTypePointer Workgroup %uint\n%arr = OpTypeArray",
        );
        let asm = spirv_tools::assembler::create(Some(spirv_tools::TargetEnv::Universal_1_3));
        let bin = asm.assemble(&text, Default::default()).unwrap();
        let words = crate::spirv::Words::from_bytes(bin.as_bytes()).unwrap();
        let info = super::reflect(&words)?;
        Ok(info.entry_points[0].threadgroup_memory_bytes / 4)
    }

    #[test]
    fn signed_comparison_and_logical_spec_ops_size_arrays() {
        let cases = [
            // -7 / 3 truncates to -2; negated: 2.
            ("%q = OpSpecConstantOp %int SDiv %a %b\n%len = OpSpecConstantOp %int SNegate %q", 2),
            // SRem takes the dividend's sign: -7 rem 3 = -1; 12 + -1 = 11.
            ("%r = OpSpecConstantOp %int SRem %a %b\n%len = OpSpecConstantOp %int IAdd %c %r", 11),
            // -7 >> 1 = -4 (arithmetic); 12 + -4 = 8.
            ("%s = OpSpecConstantOp %int ShiftRightArithmetic %a %one\n%len = OpSpecConstantOp %int IAdd %c %s", 8),
            // Signed -7 < 3, but unsigned 0xfffffff9 > 3.
            ("%t = OpSpecConstantOp %bool SLessThan %a %b\n%len = OpSpecConstantOp %int Select %t %c %b", 12),
            ("%t = OpSpecConstantOp %bool ULessThan %a %b\n%len = OpSpecConstantOp %int Select %t %c %b", 3),
            ("%t = OpSpecConstantOp %bool UGreaterThanEqual %u %u\n%n = OpSpecConstantOp %bool LogicalNot %t\n%len = OpSpecConstantOp %int Select %n %c %b", 3),
            ("%t = OpSpecConstantOp %bool INotEqual %c %b\n%w = OpSpecConstantOp %bool SGreaterThan %c %a\n%x = OpSpecConstantOp %bool LogicalAnd %t %w\n%len = OpSpecConstantOp %int Select %x %c %b", 12),
        ];
        for (op, want) in cases {
            assert_eq!(shared_length(op).unwrap(), want, "{op}");
        }
        // Refused: SMod (SPIRV-Cross's helper call is no constant
        // expression), a zero divisor, and 64-bit operands.
        let e = shared_length("%len = OpSpecConstantOp %int SMod %c %b").unwrap_err();
        assert!(e.to_string().contains("SMod"), "{e}");
        let zero = "%z = OpConstant %int 0\n%len = OpSpecConstantOp %int SDiv %c %z";
        assert!(shared_length(zero).is_err());
        let wide = "%t = OpSpecConstantOp %bool SLessThan %l %l\n%len = OpSpecConstantOp %int Select %t %c %b";
        assert!(shared_length(wide).is_err());
    }

    #[test]
    fn used_ids_holds_dense_and_out_of_range_ids() {
        let mut u = UsedIds::default();
        for id in [0, 1, 63, 64, 4_194_302, UsedIds::DENSE, u32::MAX] {
            u.insert(id);
        }
        for id in [0, 1, 63, 64, 4_194_302, UsedIds::DENSE, u32::MAX] {
            assert!(u.contains(id), "{id}");
        }
        for id in [2, 62, 65, 4_194_301, UsedIds::DENSE + 1, u32::MAX - 1] {
            assert!(!u.contains(id), "{id}");
        }
        // A huge id does not grow the bits.
        assert_eq!(u.bits.len(), 4_194_302 / 64 + 1);
    }
}
