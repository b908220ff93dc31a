//! SPIR-V input: header checks and byte order ([`binary`]), the `Groups`
//! capability rewritten to GroupNonUniform instructions ([`groups`]),
//! arrays of ray queries split and their ray flags kept beside them
//! ([`ray_queries`]),
//! build-time specialization ([`specialize()`]), reflection into plain types
//! ([`reflect()`], which reads instructions as views of the words: `inst.rs`)
//! and the structure of push-constant and buffer blocks ([`blocks`]). The
//! plain types are the ground floor's ([`crate::model`]), re-exported here.
//!
//! Everything here reads the SPIR-V itself. SPIRV-Cross is not consulted for
//! reflection: it gets multi-entry-point modules wrong (it applies one
//! workgroup size to every entry point).

pub mod binary;
pub mod blocks;
pub mod groups;
mod index;
pub(crate) mod inst;
pub mod nesting;
pub mod ray_queries;
pub mod reflect;
mod spec_indices;
mod spec_op;
pub mod specialize;
pub mod strip;
pub mod types;
pub mod validate;

pub use crate::model::error::{op_name, SpirvError};
pub use binary::Words;
pub use blocks::{reflect_with_blocks, BlockLayout};
pub use blocks::{Block, BlockType, Blocks, BoundBlock, Member, StructType};
pub use reflect::reflect;
pub use specialize::{specialize, SpecValue};
pub use types::{
    Access, Binding, BindingKind, EntryPoint, ExecutionModel, ImageType, ModuleInfo, ScalarType,
    ScalarValue, SpecConstant, WorkgroupDim, WorkgroupSize,
};

/// Tests' SPIR-V: `text` assembled by SPIRV-Tools for `env`.
#[cfg(test)]
pub(crate) fn assemble(text: &str, env: spirv_tools::TargetEnv) -> Words {
    use spirv_tools::assembler::Assembler;
    let asm = spirv_tools::assembler::create(Some(env));
    let bin = asm.assemble(text, Default::default()).unwrap();
    Words::from_bytes(bin.as_bytes()).unwrap()
}
