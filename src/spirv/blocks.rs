//! Structured block reflection: the types of an entry point's push-constant
//! block and of its uniform and storage buffer blocks, with member names,
//! byte offsets (from `Offset`), array and matrix strides, row/column-major,
//! nested structs and a trailing runtime array, exactly as the SPIR-V
//! decorations lay them out.
//!
//! The structure serves the generated Rust bindings (`halc::build`), the
//! reflection JSON and the ABI lock; [`Block::layout`] flattens it to
//! scalars for `halc diff`, so there is one reading of a block's layout. It
//! is computed once per kernel in [`crate::compile`] and carried on
//! [`crate::Kernel::blocks`].

use std::collections::HashMap;

use rspirv::spirv::{Decoration, Op, StorageClass};

use super::index::{
    entry_point, function_bodies, invalid, parse, used_ids, Bodies, Index, UsedIds,
};
use super::inst::Inst;
use super::reflect::reflect_parsed;
use super::types::ModuleInfo;
use super::{SpirvError, Words};

pub use crate::model::blocks::*;

/// Deepest nesting of types reflected (a bound for hostile input).
const MAX_DEPTH: u32 = 64;

/// Most type nodes reflected for one entry point: a struct used by several
/// members is reflected once per use, so hostile nesting could otherwise
/// grow exponentially.
const MAX_NODES: usize = 1 << 20;

/// The module's index, its member names, and the node budget.
struct Ctx<'i, 'a> {
    ix: &'i Index<'a>,
    member_names: &'i HashMap<(u32, u32), String>,
    nodes: std::cell::Cell<usize>,
    /// The structs being reflected, outermost first: a pointer back to one
    /// of them is not followed again.
    structs: std::cell::RefCell<Vec<u32>>,
}

impl Ctx<'_, '_> {
    fn node(&self) -> Result<(), SpirvError> {
        let n = self.nodes.get() + 1;
        self.nodes.set(n);
        if n > MAX_NODES {
            return Err(invalid(format!(
                "block types have more than {MAX_NODES} members and elements in all"
            )));
        }
        Ok(())
    }
}

/// The blocks of every GLCompute entry point of a module, by entry-point
/// name.
pub fn blocks(words: &Words) -> Result<HashMap<String, Blocks>, SpirvError> {
    let insts = parse(words)?;
    let ix = Index::new(&insts);
    let functions = function_bodies(&insts);
    blocks_parsed(&insts, &ix, &functions)
}

/// [`blocks`] of a module already parsed and indexed.
pub(super) fn blocks_parsed(
    insts: &[Inst<'_>],
    ix: &Index<'_>,
    functions: &Bodies<'_>,
) -> Result<HashMap<String, Blocks>, SpirvError> {
    let member_names: HashMap<(u32, u32), String> = insts
        .iter()
        .filter(|i| i.op == Op::MemberName)
        .filter_map(|i| match (i.word(0), i.word(1), i.string(2)) {
            (Some(id), Some(m), Ok((s, _))) if !s.is_empty() => Some(((id, m), s)),
            _ => None,
        })
        .collect();
    let mut out = HashMap::new();
    for inst in insts.iter().filter(|i| i.op == Op::EntryPoint) {
        let (model, func, name) = entry_point(inst)?;
        if model != rspirv::spirv::ExecutionModel::GLCompute {
            continue;
        }
        let used = used_ids(ix, functions, func)?;
        let ctx = Ctx {
            ix,
            member_names: &member_names,
            nodes: std::cell::Cell::new(0),
            structs: std::cell::RefCell::new(Vec::new()),
        };
        let b = entry_blocks(&ctx, &used).map_err(|e| match e {
            SpirvError::Invalid(m) => invalid(format!("entry point `{name}`: {m}")),
            SpirvError::Unsupported(m) => {
                SpirvError::Unsupported(format!("entry point `{name}`: {m}"))
            }
            e => e,
        })?;
        out.insert(name.clone(), b);
    }
    Ok(out)
}

fn entry_blocks(ctx: &Ctx<'_, '_>, used: &UsedIds) -> Result<Blocks, SpirvError> {
    let ix = ctx.ix;
    let mut blocks = Blocks::default();
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
        if !used.contains(var) {
            continue;
        }
        let push = match class {
            StorageClass::PushConstant => true,
            StorageClass::Uniform | StorageClass::StorageBuffer => false,
            _ => continue,
        };
        let mut ty = ix
            .get(ptr_ty)?
            .word(1)
            .ok_or_else(|| invalid("not a pointer"))?;
        // An array of buffers: the element's block.
        let t = ix.get(ty)?;
        if matches!(t.op, Op::TypeArray | Op::TypeRuntimeArray) {
            ty = t.word(0).unwrap_or(0);
        }
        if ix.get(ty)?.op != Op::TypeStruct {
            continue;
        }
        let block = Block {
            variable: ix.names.get(&var).cloned(),
            ty: struct_type(ctx, ty, 0)?,
        };
        if push {
            if blocks.push_constants.is_none() {
                blocks.push_constants = Some(block);
            }
            continue;
        }
        let set = ix
            .decoration_lit(var, Decoration::DescriptorSet)
            .unwrap_or(0);
        let Some(binding) = ix.decoration_lit(var, Decoration::Binding) else {
            continue;
        };
        if blocks.buffer(set, binding).is_none() {
            blocks.buffers.push(BoundBlock {
                set,
                binding,
                block,
            });
        }
    }
    blocks.buffers.sort_by_key(|b| (b.set, b.binding));
    Ok(blocks)
}

fn struct_type(ctx: &Ctx<'_, '_>, id: u32, depth: u32) -> Result<StructType, SpirvError> {
    let ix = ctx.ix;
    ctx.node()?;
    if depth > MAX_DEPTH {
        return Err(invalid("block types nested deeper than 64"));
    }
    let t = ix.get(id)?;
    ctx.structs.borrow_mut().push(id);
    let out = struct_members(ctx, id, t, depth);
    ctx.structs.borrow_mut().pop();
    out
}

fn struct_members(
    ctx: &Ctx<'_, '_>,
    id: u32,
    t: &Inst<'_>,
    depth: u32,
) -> Result<StructType, SpirvError> {
    let ix = ctx.ix;
    let mut members = Vec::new();
    let mut size = 0u64;
    let ids = t.operands;
    let count = ids.len();
    for (m, &member_ty) in ids.iter().enumerate() {
        let mi = m as u32;
        let offset = ix
            .member_decoration_lit(id, mi, Decoration::Offset)
            .ok_or_else(|| {
                invalid(format!(
                    "member {m} of struct %{id} has no Offset decoration"
                ))
            })?;
        let matrix = ix
            .member_decoration_lit(id, mi, Decoration::MatrixStride)
            .map(|s| (s, ix.member_has(id, mi, Decoration::RowMajor)));
        let ty = block_type(ctx, member_ty, matrix, depth + 1)?;
        if matches!(ty, BlockType::Array { length: None, .. }) && m + 1 != count {
            return Err(invalid(format!(
                "member {m} of struct %{id} is a runtime array but not the last member"
            )));
        }
        let msize = ty.size();
        size = size.max(u64::from(offset) + msize);
        members.push(Member {
            name: ctx.member_names.get(&(id, mi)).cloned(),
            offset: u64::from(offset),
            ty,
            size: msize,
        });
    }
    Ok(StructType {
        name: ix.names.get(&id).cloned(),
        members,
        size,
    })
}

fn block_type(
    ctx: &Ctx<'_, '_>,
    id: u32,
    matrix: Option<(u32, bool)>,
    depth: u32,
) -> Result<BlockType, SpirvError> {
    let ix = ctx.ix;
    ctx.node()?;
    if depth > MAX_DEPTH {
        return Err(invalid("block types nested deeper than 64"));
    }
    let t: &Inst<'_> = ix.get(id)?;
    Ok(match t.op {
        Op::TypeBool | Op::TypeInt | Op::TypeFloat => BlockType::Scalar(ix.scalar_type(id)?),
        Op::TypeVector => BlockType::Vector {
            component: ix.scalar_type(t.word(0).unwrap_or(0))?,
            count: t.word(1).unwrap_or(0),
        },
        Op::TypeMatrix => {
            let col = ix.get(t.word(0).unwrap_or(0))?;
            let component = ix.scalar_type(col.word(0).unwrap_or(0))?;
            let rows = col.word(1).unwrap_or(0);
            let columns = t.word(1).unwrap_or(0);
            let (stride, row_major) = match matrix {
                Some(m) => m,
                None => {
                    return Err(invalid(format!(
                        "matrix %{id} in a block has no MatrixStride decoration"
                    )))
                }
            };
            BlockType::Matrix {
                component,
                columns,
                rows,
                stride,
                row_major,
            }
        }
        Op::TypeArray | Op::TypeRuntimeArray => {
            let elem = t.word(0).unwrap_or(0);
            let length = if t.op == Op::TypeArray {
                Some(ix.const_u64(t.word(1).unwrap_or(0))?)
            } else {
                None
            };
            let element = block_type(ctx, elem, matrix, depth + 1)?;
            let stride = match ix.decoration_lit(id, Decoration::ArrayStride) {
                Some(s) => s,
                None => {
                    return Err(invalid(format!(
                        "array %{id} in a block has no ArrayStride decoration"
                    )))
                }
            };
            BlockType::Array {
                element: Box::new(element),
                length,
                stride,
            }
        }
        Op::TypeStruct => BlockType::Struct(struct_type(ctx, id, depth + 1)?),
        Op::TypePointer => {
            if t.word(0).and_then(StorageClass::from_u32)
                != Some(StorageClass::PhysicalStorageBuffer)
            {
                return Err(invalid(format!(
                    "pointer %{id} inside a block is not a PhysicalStorageBuffer pointer"
                )));
            }
            let to = t.word(1).unwrap_or(0);
            let name = ix.names.get(&to).cloned();
            let on_the_way = {
                let structs = ctx.structs.borrow();
                (structs.iter().rev().position(|&s| s == to)).map(|i| i as u32 + 1)
            };
            match on_the_way {
                Some(up) => BlockType::Pointer {
                    pointee: None,
                    name,
                    up,
                },
                None => BlockType::Pointer {
                    // A pointer to a matrix carries its layout itself.
                    pointee: Some(Box::new(block_type(
                        ctx,
                        to,
                        ix.decoration_lit(id, Decoration::MatrixStride)
                            .map(|s| (s, ix.has(id, Decoration::RowMajor))),
                        depth + 1,
                    )?)),
                    name,
                    up: 0,
                },
            }
        }
        op => return Err(invalid(format!("type %{id} (Op{op:?}) in a block"))),
    })
}

/// [`reflect`](super::reflect::reflect) and [`blocks`] of one module, which is parsed
/// and indexed once for both.
pub fn reflect_with_blocks(
    words: &Words,
) -> Result<(ModuleInfo, HashMap<String, Blocks>), SpirvError> {
    let insts = parse(words)?;
    let ix = Index::new(&insts);
    let functions = function_bodies(&insts);
    Ok((
        reflect_parsed(words, &insts, &ix, &functions)?,
        blocks_parsed(&insts, &ix, &functions)?,
    ))
}

#[cfg(test)]
mod tests {

    use super::*;

    fn assemble(text: &str) -> Words {
        crate::spirv::assemble(text, spirv_tools::TargetEnv::Universal_1_3)
    }

    /// `S{k} = { S{k-1}, S{k-1} }`, `depth` deep, bound at (0, 0).
    fn doubling(depth: u32) -> String {
        let mut t = String::from(
            "OpCapability Shader\nOpMemoryModel Logical GLSL450\n\
             OpEntryPoint GLCompute %main \"main\"\nOpExecutionMode %main LocalSize 1 1 1\n",
        );
        t += &format!("OpDecorate %S{depth} Block\nOpDecorate %var DescriptorSet 0\nOpDecorate %var Binding 0\nOpMemberDecorate %S0 0 Offset 0\n");
        for k in 1..=depth {
            t += &format!("OpMemberDecorate %S{k} 0 Offset 0\nOpMemberDecorate %S{k} 1 Offset 0\n");
        }
        t += "%void = OpTypeVoid\n%fn = OpTypeFunction %void\n%float = OpTypeFloat 32\n%S0 = OpTypeStruct %float\n";
        for k in 1..=depth {
            t += &format!("%S{k} = OpTypeStruct %S{} %S{}\n", k - 1, k - 1);
        }
        t += &format!(
            "%ptr = OpTypePointer StorageBuffer %S{depth}\n%var = OpVariable %ptr StorageBuffer\n\
             %main = OpFunction %void None %fn\n%l = OpLabel\n%p = OpCopyObject %ptr %var\nOpReturn\nOpFunctionEnd\n"
        );
        t
    }

    #[test]
    fn nested_structs_are_reflected_with_their_members() {
        let b = blocks(&assemble(&doubling(2))).unwrap();
        let s = &b["main"].buffer(0, 0).unwrap().ty;
        assert_eq!(s.members.len(), 2);
        let BlockType::Struct(inner) = &s.members[1].ty else {
            panic!("{s:?}")
        };
        assert_eq!(inner.members.len(), 2);
        assert_eq!(s.size, 4);
    }

    /// Hostile nesting (2^30 leaves) stops at the node budget instead of
    /// running for ever.
    #[test]
    fn exponential_nesting_is_bounded() {
        let start = std::time::Instant::now();
        let e = blocks(&assemble(&doubling(30))).unwrap_err().to_string();
        assert!(e.contains("more than 1048576 members"), "{e}");
        assert!(start.elapsed() < std::time::Duration::from_secs(20));
    }
}
