//! The benchmark corpus (`scripts/bench.sh`, `examples/bench_corpus.rs`):
//! hundreds of varied compute kernels, generated, each a standalone SPIR-V
//! file that halc, the SPIRV-Cross CLI and naga can all be given.
//!
//! - The fixtures (`fixtures/kernels/*.spv`), each also in variants whose
//!   32-bit integer spec constants have other defaults (2x, 3x, 4x: other
//!   workgroup sizes, array sizes and values, as ggml builds one source
//!   with many defines).
//! - Synthetic kernels built with rspirv: 1 to 8 storage buffers of `float`,
//!   `int` or `uint`, with or without a uniform block, and a chain of 8 to
//!   2048 arithmetic instructions, so sizes range from a few hundred bytes to
//!   the size of a large real kernel.
//!
//! Every candidate is compiled by halc (in-process) and kept only if it
//! compiles, under both binding models, and its kernel names are new: the
//! whole corpus compiles as one batch. The result is deterministic.

use std::path::Path;

use rspirv::binary::Assemble;
use rspirv::dr::{Builder, Operand};
use rspirv::spirv::{
    AddressingModel, Capability, Decoration, ExecutionMode, ExecutionModel, FunctionControl,
    MemoryModel, StorageClass,
};

/// One corpus module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Module {
    /// File name (`NAME.spv`); its stem names the kernel of entry point `main`.
    pub file: String,
    /// Where it came from: `fixture`, `spec-variant` or `synthetic`.
    pub origin: &'static str,
    /// The SPIR-V bytes (little-endian).
    pub bytes: Vec<u8>,
}

/// Scalar element type of a synthetic kernel's buffers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Elem {
    /// `float`.
    F32,
    /// `int`.
    I32,
    /// `uint`.
    U32,
}

/// Shape of a synthetic kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Synthetic {
    /// Storage buffers: binding 0 is written, the others read.
    pub buffers: u32,
    /// Arithmetic instructions in the chain.
    pub ops: u32,
    /// Element type.
    pub elem: Elem,
    /// A uniform block (one scalar) at the binding after the buffers.
    pub uniform: bool,
    /// Workgroup width.
    pub local_x: u32,
}

/// Emits one arithmetic instruction: (builder, type, left, right) → result.
type BinaryOp = fn(&mut Builder, u32, u32, u32) -> u32;

/// A synthetic compute kernel as SPIR-V 1.3 words.
pub fn synthetic(s: Synthetic) -> Vec<u32> {
    let mut b = Builder::new();
    b.set_version(1, 3);
    b.capability(Capability::Shader);
    b.memory_model(AddressingModel::Logical, MemoryModel::GLSL450);
    let void = b.type_void();
    let fn_ty = b.type_function(void, []);
    let u32t = b.type_int(32, 0);
    let uvec3 = b.type_vector(u32t, 3);
    let elem = match s.elem {
        Elem::F32 => b.type_float(32, None),
        Elem::I32 => b.type_int(32, 1),
        Elem::U32 => u32t,
    };
    let rta = b.type_runtime_array(elem);
    b.decorate(rta, Decoration::ArrayStride, [Operand::LiteralBit32(4)]);
    let block = b.type_struct([rta]);
    b.decorate(block, Decoration::Block, []);
    b.member_decorate(block, 0, Decoration::Offset, [Operand::LiteralBit32(0)]);
    let block_ptr = b.type_pointer(None, StorageClass::StorageBuffer, block);
    let elem_ptr = b.type_pointer(None, StorageClass::StorageBuffer, elem);
    let buffers: Vec<u32> = (0..s.buffers.max(1))
        .map(|i| {
            let v = b.variable(block_ptr, None, StorageClass::StorageBuffer, None);
            b.decorate(v, Decoration::DescriptorSet, [Operand::LiteralBit32(0)]);
            b.decorate(v, Decoration::Binding, [Operand::LiteralBit32(i)]);
            v
        })
        .collect();
    let uniform = s.uniform.then(|| {
        let ublock = b.type_struct([elem, elem]);
        b.decorate(ublock, Decoration::Block, []);
        b.member_decorate(ublock, 0, Decoration::Offset, [Operand::LiteralBit32(0)]);
        b.member_decorate(ublock, 1, Decoration::Offset, [Operand::LiteralBit32(4)]);
        let uptr = b.type_pointer(None, StorageClass::Uniform, ublock);
        let v = b.variable(uptr, None, StorageClass::Uniform, None);
        b.decorate(v, Decoration::DescriptorSet, [Operand::LiteralBit32(0)]);
        b.decorate(
            v,
            Decoration::Binding,
            [Operand::LiteralBit32(buffers.len() as u32)],
        );
        (v, b.type_pointer(None, StorageClass::Uniform, elem))
    });
    let gid_ptr = b.type_pointer(None, StorageClass::Input, uvec3);
    let gid_var = b.variable(gid_ptr, None, StorageClass::Input, None);
    b.decorate(
        gid_var,
        Decoration::BuiltIn,
        [Operand::BuiltIn(rspirv::spirv::BuiltIn::GlobalInvocationId)],
    );
    let zero = b.constant_bit32(u32t, 0);
    let one = b.constant_bit32(u32t, 1);
    // Distinct constants, so that nothing folds.
    let consts: Vec<u32> = (0..7u32)
        .map(|k| match s.elem {
            Elem::F32 => b.constant_bit32(elem, (1.0f32 + k as f32 * 0.25).to_bits()),
            Elem::I32 | Elem::U32 => b.constant_bit32(elem, k + 2),
        })
        .collect();

    let main = b
        .begin_function(void, None, FunctionControl::NONE, fn_ty)
        .expect("function");
    b.begin_block(None).expect("block");
    let gid = b.load(uvec3, None, gid_var, None, []).expect("load");
    let x = b.composite_extract(u32t, None, gid, [0]).expect("extract");
    let mut loaded = Vec::new();
    for v in buffers
        .iter()
        .skip(1)
        .chain(buffers.first().filter(|_| buffers.len() == 1))
    {
        let p = b
            .access_chain(elem_ptr, None, *v, [zero, x])
            .expect("chain");
        loaded.push(b.load(elem, None, p, None, []).expect("load"));
    }
    let (add, sub, mul): (BinaryOp, BinaryOp, BinaryOp) = match s.elem {
        Elem::F32 => (
            |b, t, x, y| b.f_add(t, None, x, y).expect("op"),
            |b, t, x, y| b.f_sub(t, None, x, y).expect("op"),
            |b, t, x, y| b.f_mul(t, None, x, y).expect("op"),
        ),
        Elem::I32 | Elem::U32 => (
            |b, t, x, y| b.i_add(t, None, x, y).expect("op"),
            |b, t, x, y| b.i_sub(t, None, x, y).expect("op"),
            |b, t, x, y| b.i_mul(t, None, x, y).expect("op"),
        ),
    };
    let mut acc = loaded[0];
    for k in 0..s.ops as usize {
        let operand = if k % 2 == 0 {
            loaded[k / 2 % loaded.len()]
        } else {
            consts[k % consts.len()]
        };
        acc = match k % 3 {
            0 => add(&mut b, elem, acc, operand),
            1 => mul(&mut b, elem, acc, operand),
            _ => sub(&mut b, elem, acc, operand),
        };
    }
    if let Some((v, uptr)) = uniform {
        let p = b.access_chain(uptr, None, v, [one]).expect("chain");
        let scale = b.load(elem, None, p, None, []).expect("load");
        acc = mul(&mut b, elem, acc, scale);
    }
    let out = b
        .access_chain(elem_ptr, None, buffers[0], [zero, x])
        .expect("chain");
    b.store(out, acc, None, []).expect("store");
    b.ret().expect("ret");
    b.end_function().expect("end");
    b.entry_point(ExecutionModel::GLCompute, main, "main", [gid_var]);
    b.execution_mode(main, ExecutionMode::LocalSize, [s.local_x, 1, 1]);
    b.module().assemble()
}

/// The module with every 32-bit integer spec constant's default multiplied
/// by `factor`; `None` when it has none.
pub fn spec_variant(words: &[u32], factor: u32) -> Option<Vec<u32>> {
    const OP_TYPE_INT: u32 = 21;
    const OP_SPEC_CONSTANT: u32 = 50;
    let mut int32 = std::collections::BTreeSet::new();
    let mut out = words.to_vec();
    let mut changed = false;
    let mut i = 5;
    while i < out.len() {
        let count = (out[i] >> 16) as usize;
        let op = out[i] & 0xffff;
        if count == 0 || i + count > out.len() {
            return None;
        }
        if op == OP_TYPE_INT && count == 4 && out[i + 2] == 32 {
            int32.insert(out[i + 1]);
        }
        if op == OP_SPEC_CONSTANT && count == 4 && int32.contains(&out[i + 1]) {
            out[i + 3] = out[i + 3].max(1).saturating_mul(factor);
            changed = true;
        }
        i += count;
    }
    changed.then_some(out)
}

fn to_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn to_words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// The kernel names `bytes` compiles to under both binding models, or
/// `None` when halc refuses it.
fn kernel_names(file: &str, bytes: &[u8]) -> Option<Vec<String>> {
    let input = halc::Input::new(file, bytes.to_vec());
    let mut names = None;
    for model in [
        halc::msl::BindingModel::ArgumentBuffers,
        halc::msl::BindingModel::Discrete,
    ] {
        let options = halc::Options {
            jobs: 1,
            layout: halc::msl::LayoutOptions {
                model,
                ..Default::default()
            },
            ..Default::default()
        };
        let compiled = halc::compile(std::slice::from_ref(&input), &options).ok()?;
        names = Some(compiled.kernels.into_iter().map(|k| k.name).collect());
    }
    names
}

/// Every synthetic shape of the corpus.
pub fn synthetic_shapes() -> Vec<Synthetic> {
    let mut v = Vec::new();
    for elem in [Elem::F32, Elem::I32, Elem::U32] {
        for uniform in [false, true] {
            for buffers in [1, 2, 3, 4, 6, 8] {
                for ops in [8, 32, 128, 512, 2048] {
                    v.push(Synthetic {
                        buffers,
                        ops,
                        elem,
                        uniform,
                        local_x: 32 << (ops % 3),
                    });
                }
            }
        }
    }
    v
}

/// The corpus, from the fixtures in `fixtures_dir` and the synthetic
/// shapes: only modules halc compiles, with kernel names unique across it.
pub fn corpus(fixtures_dir: &Path) -> std::io::Result<Vec<Module>> {
    let mut fixtures: Vec<_> = std::fs::read_dir(fixtures_dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "spv"))
        .collect();
    fixtures.sort();
    let mut candidates = Vec::new();
    for p in &fixtures {
        let stem = p
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("fixture")
            .to_string();
        let bytes = std::fs::read(p)?;
        // Big-endian fixtures have no variants: patch native words only.
        let words = (bytes.len() % 4 == 0 && bytes.starts_with(&0x0723_0203u32.to_le_bytes()))
            .then(|| to_words(&bytes));
        candidates.push(Module {
            file: format!("{stem}.spv"),
            origin: "fixture",
            bytes,
        });
        for factor in [2, 3, 4] {
            if let Some(v) = words.as_deref().and_then(|w| spec_variant(w, factor)) {
                candidates.push(Module {
                    file: format!("{stem}_x{factor}.spv"),
                    origin: "spec-variant",
                    bytes: to_bytes(&v),
                });
            }
        }
    }
    for s in synthetic_shapes() {
        let elem = match s.elem {
            Elem::F32 => "f32",
            Elem::I32 => "i32",
            Elem::U32 => "u32",
        };
        candidates.push(Module {
            file: format!(
                "syn_{elem}_b{}_ops{}{}.spv",
                s.buffers,
                s.ops,
                if s.uniform { "_ubo" } else { "" }
            ),
            origin: "synthetic",
            bytes: to_bytes(&synthetic(s)),
        });
    }
    let mut taken = std::collections::BTreeSet::new();
    let mut out = Vec::new();
    for m in candidates {
        let Some(names) = kernel_names(&m.file, &m.bytes) else {
            continue;
        };
        if names.iter().any(|n| taken.contains(n)) {
            continue;
        }
        taken.extend(names);
        out.push(m);
    }
    Ok(out)
}
