//! Reflection: per entry point, the workgroup size (and the spec constants
//! driving it), the resources it statically uses, push constants,
//! threadgroup memory; per module, spec constants and capabilities.

use std::collections::{BTreeMap, BTreeSet};

use rustc_hash::FxHashMap;

use rspirv::spirv::{self, BuiltIn, Decoration, Dim, ExecutionMode, Op, StorageClass};

use super::inst::Inst;
use super::{SpirvError, Words};

use super::index::*;
pub use super::types::*;

/// Reflects every entry point of a module.
pub fn reflect(words: &Words) -> Result<ModuleInfo, SpirvError> {
    let insts = parse(words)?;
    let ix = Index::new(&insts);
    let functions = function_bodies(&insts);
    reflect_parsed(words, &insts, &ix, &functions)
}

pub(super) fn reflect_parsed(
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
                let mut b = binding(ix, var, class, pointee, length_read.contains(&var))?;
                if atomic_images.contains(&var) {
                    // Allowed from MSL 3.1 on, where SPIRV-Cross uses
                    // Metal's texture atomics (the driver checks the
                    // version); before, it adds a companion buffer.
                    if let Some(image) = &mut b.image {
                        image.atomic = true;
                    }
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

    // The image type a kernel declares (through a sampled image for a
    // combined image-sampler).
    let image_of = |id: u32| -> Result<ImageType, SpirvError> {
        let i = ix.get(id)?;
        let word = |n| i.word(n).unwrap_or(0);
        Ok(ImageType {
            dim: match word(1) {
                0 => "1d",
                1 => "2d",
                2 => "3d",
                3 => "cube",
                5 => "buffer",
                d => {
                    return Err(SpirvError::Unsupported(format!(
                        "{at}: an image of dimensionality {d} (Rect or SubpassData) is not supported on Metal compute"
                    )))
                }
            },
            arrayed: word(3) == 1,
            multisampled: word(4) == 1,
            sampled_type: ix.scalar_type(word(0))?,
            format: crate::model::entry::image_format_name(word(6)),
            atomic: false,
        })
    };
    let image = match (class, t.op) {
        (StorageClass::UniformConstant, Op::TypeImage) => Some(image_of(ty)?),
        (StorageClass::UniformConstant, Op::TypeSampledImage) => {
            Some(image_of(t.word(0).unwrap_or(0))?)
        }
        _ => None,
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
        (StorageClass::UniformConstant, Op::TypeAccelerationStructureKHR) => {
            (BindingKind::AccelerationStructure, Access::ReadOnly, 0, 0)
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
        image,
    })
}

#[cfg(test)]
mod tests {
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
        // SMod takes the divisor's sign: -7 mod 3 = 2; 12 + 2 = 14 (the
        // driver fixes the SpecIds under one and folds it, or refuses it,
        // before SPIRV-Cross writes a helper call as an array length).
        let smod = "%m = OpSpecConstantOp %int SMod %a %b\n%len = OpSpecConstantOp %int IAdd %c %m";
        assert_eq!(shared_length(smod).unwrap(), 14);
        // Refused: a zero divisor, and 64-bit operands.
        let zero = "%z = OpConstant %int 0\n%len = OpSpecConstantOp %int SDiv %c %z";
        assert!(shared_length(zero).is_err());
        let wide = "%t = OpSpecConstantOp %bool SLessThan %l %l\n%len = OpSpecConstantOp %int Select %t %c %b";
        assert!(shared_length(wide).is_err());
    }
}
