//! SPIR-V input: header checks and byte order ([`binary`]), build-time
//! specialization ([`specialize()`]), reflection into plain types
//! ([`reflect()`], which reads instructions as views of the words: `inst.rs`)
//! and the structure of push-constant and buffer blocks ([`blocks`]).
//!
//! Everything here reads the SPIR-V itself. SPIRV-Cross is not consulted for
//! reflection: it gets multi-entry-point modules wrong (it applies one
//! workgroup size to every entry point).

pub mod binary;
pub mod blocks;
mod index;
pub(crate) mod inst;
pub mod nesting;
pub mod reflect;
mod spec_indices;
mod spec_op;
pub mod specialize;
pub mod strip;
pub mod types;
pub mod validate;

pub use binary::Words;
pub use blocks::{reflect_with_blocks, BlockLayout};
pub use blocks::{Block, BlockType, Blocks, BoundBlock, Member, StructType};
pub use reflect::reflect;
pub use specialize::{specialize, SpecValue};
pub use types::{
    Access, Binding, BindingKind, EntryPoint, ExecutionModel, ModuleInfo, ScalarType, ScalarValue,
    SpecConstant, WorkgroupDim, WorkgroupSize,
};

/// Tests' SPIR-V: `text` assembled by SPIRV-Tools for `env`.
#[cfg(test)]
pub(crate) fn assemble(text: &str, env: spirv_tools::TargetEnv) -> Words {
    use spirv_tools::assembler::Assembler;
    let asm = spirv_tools::assembler::create(Some(env));
    let bin = asm.assemble(text, Default::default()).unwrap();
    Words::from_bytes(bin.as_bytes()).unwrap()
}

/// `OpName` for an opcode number, `Op<n>` when unknown.
pub fn op_name(opcode: u16) -> String {
    match rspirv::spirv::Op::from_u32(u32::from(opcode)) {
        Some(op) => format!("Op{op:?}"),
        None => format!("Op{opcode} (unknown opcode)"),
    }
}

/// Errors found while reading or reflecting a SPIR-V module.
#[derive(Debug, thiserror::Error)]
pub enum SpirvError {
    /// Zero-length input.
    #[error("empty file: not a SPIR-V module")]
    Empty,
    /// Input length is not a multiple of four bytes.
    #[error("{0} bytes is not a whole number of 32-bit words: not a SPIR-V module")]
    NotWordAligned(usize),
    /// Fewer words than a header.
    #[error("truncated SPIR-V: {words} words, the header alone needs 5")]
    Truncated {
        /// Words present.
        words: usize,
    },
    /// The first word is not the SPIR-V magic number in either byte order.
    #[error("bad magic number {0:#010x}: not a SPIR-V module")]
    BadMagic(u32),
    /// Unsupported version word.
    #[error("unsupported SPIR-V version word {0:#010x} (halc reads SPIR-V 1.0 to 1.6)")]
    UnsupportedVersion(u32),
    /// The id bound is zero.
    #[error("SPIR-V header declares an id bound of 0")]
    ZeroIdBound,
    /// An instruction with word count zero.
    #[error("instruction at word {offset} has a word count of 0")]
    ZeroWordCount {
        /// Word offset.
        offset: usize,
    },
    /// An instruction runs past the end of the module.
    #[error("instruction {} at word {offset} runs past the end of the module", op_name(*.opcode))]
    InstructionPastEnd {
        /// Word offset.
        offset: usize,
        /// Opcode number.
        opcode: u16,
    },
    /// The instruction stream is malformed (an unknown opcode, a missing
    /// operand, a literal string without its nul).
    #[error("malformed SPIR-V: {0}")]
    Parse(String),
    /// The module is not something halc can compile.
    #[error("{0}")]
    Unsupported(String),
    /// A structural problem in the module (dangling id, bad type).
    #[error("invalid SPIR-V: {0}")]
    Invalid(String),
    /// A `--spec` value problem.
    #[error("{0}")]
    Spec(String),
    /// A limit checked before work starts.
    #[error("{0}")]
    Limit(String),
    /// The SPIR-V validator rejected the module.
    #[error("invalid SPIR-V: {0}")]
    Validation(String),
}
