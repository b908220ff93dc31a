//! The little this crate reads from a SPIR-V module before handing it to
//! the driver: entry points, capabilities and the types of specialization
//! constants. It is not a validator: callers validate modules first (a
//! driver without validation layers may crash on invalid SPIR-V).

use std::collections::BTreeMap;

use crate::error::{Error, Result};

const MAGIC: u32 = 0x0723_0203;
const OP_ENTRY_POINT: u32 = 15;
const OP_CAPABILITY: u32 = 17;
const OP_TYPE_BOOL: u32 = 20;
const OP_TYPE_INT: u32 = 21;
const OP_TYPE_FLOAT: u32 = 22;
const OP_SPEC_CONSTANT_TRUE: u32 = 48;
const OP_SPEC_CONSTANT_FALSE: u32 = 49;
const OP_SPEC_CONSTANT: u32 = 50;
const OP_DECORATE: u32 = 71;
const DECORATION_SPEC_ID: u32 = 1;
/// `ExecutionModel GLCompute`.
const GL_COMPUTE: u32 = 5;

/// What [`scan`] found.
#[derive(Debug, Default)]
pub(crate) struct Module {
    /// GLCompute entry point names, in module order.
    pub compute_entries: Vec<String>,
    /// Declared capabilities.
    pub capabilities: Vec<u32>,
    /// For each SpecId, the byte size Vulkan reads for every constant
    /// carrying it (4 for booleans: a `VkBool32`).
    pub spec_sizes: BTreeMap<u32, Vec<u32>>,
}

/// Reads the module's header and the instructions above. Errors give the
/// word offset.
pub(crate) fn scan(words: &[u32]) -> Result<Module> {
    if words.len() < 5 {
        return Err(Error::InvalidSpirv(format!(
            "{} words, shorter than the 5-word header",
            words.len()
        )));
    }
    if words[0] != MAGIC {
        return Err(Error::InvalidSpirv(if words[0] == MAGIC.swap_bytes() {
            "the module is big-endian: swap every word first".to_string()
        } else {
            format!("bad magic number {:#010x}", words[0])
        }));
    }
    let mut m = Module::default();
    let mut type_size: BTreeMap<u32, u32> = BTreeMap::new();
    let mut spec_id: BTreeMap<u32, u32> = BTreeMap::new();
    let mut spec_type: Vec<(u32, u32)> = Vec::new(); // (result id, type id)
    let mut at = 5;
    while at < words.len() {
        let count = (words[at] >> 16) as usize;
        let op = words[at] & 0xffff;
        if count == 0 || at + count > words.len() {
            return Err(Error::InvalidSpirv(format!(
                "instruction at word {at} (opcode {op}) has word count {count}, past the end"
            )));
        }
        let ins = &words[at..at + count];
        let short = || {
            Error::InvalidSpirv(format!(
                "instruction at word {at} (opcode {op}) is too short"
            ))
        };
        match op {
            OP_CAPABILITY => m.capabilities.push(*ins.get(1).ok_or_else(short)?),
            OP_ENTRY_POINT => {
                if ins.len() < 4 {
                    return Err(short());
                }
                if ins[1] == GL_COMPUTE {
                    m.compute_entries.push(literal_string(&ins[3..]));
                }
            }
            OP_DECORATE if ins.get(2) == Some(&DECORATION_SPEC_ID) => {
                spec_id.insert(ins[1], *ins.get(3).ok_or_else(short)?);
            }
            OP_TYPE_BOOL => {
                type_size.insert(*ins.get(1).ok_or_else(short)?, 4);
            }
            OP_TYPE_INT | OP_TYPE_FLOAT => {
                let width = *ins.get(2).ok_or_else(short)?;
                type_size.insert(ins[1], width / 8);
            }
            OP_SPEC_CONSTANT_TRUE | OP_SPEC_CONSTANT_FALSE | OP_SPEC_CONSTANT => {
                if ins.len() < 3 {
                    return Err(short());
                }
                spec_type.push((ins[2], ins[1]));
            }
            _ => {}
        }
        at += count;
    }
    for (result, ty) in spec_type {
        if let (Some(id), Some(size)) = (spec_id.get(&result), type_size.get(&ty)) {
            m.spec_sizes.entry(*id).or_default().push(*size);
        }
    }
    Ok(m)
}

/// A nul-terminated UTF-8 literal packed little-endian into words.
fn literal_string(words: &[u32]) -> String {
    let bytes: Vec<u8> = words
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .take_while(|b| *b != 0)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// A capability that needs something enabled or supported.
pub(crate) enum Needs {
    /// A feature, by its Amber name.
    Feature(&'static str),
    /// A subgroup operation class (`VkSubgroupFeatureFlags` bit) in
    /// compute.
    SubgroupOp(ash::vk::SubgroupFeatureFlags),
}

/// The capabilities that need a feature (or subgroup support), by
/// number: `(capability, name, needs)`.
pub(crate) fn capability_needs(cap: u32) -> Option<(&'static str, Needs)> {
    use ash::vk::SubgroupFeatureFlags as S;
    use Needs::{Feature as F, SubgroupOp as G};
    Some(match cap {
        9 => ("Float16", F("Float16Int8Features.shaderFloat16")),
        10 => ("Float64", F("shaderFloat64")),
        11 => ("Int64", F("shaderInt64")),
        22 => ("Int16", F("shaderInt16")),
        39 => ("Int8", F("Float16Int8Features.shaderInt8")),
        61 => ("GroupNonUniform", G(S::BASIC)),
        62 => ("GroupNonUniformVote", G(S::VOTE)),
        63 => ("GroupNonUniformArithmetic", G(S::ARITHMETIC)),
        64 => ("GroupNonUniformBallot", G(S::BALLOT)),
        65 => ("GroupNonUniformShuffle", G(S::SHUFFLE)),
        66 => ("GroupNonUniformShuffleRelative", G(S::SHUFFLE_RELATIVE)),
        67 => ("GroupNonUniformClustered", G(S::CLUSTERED)),
        68 => ("GroupNonUniformQuad", G(S::QUAD)),
        4433 => (
            "StorageBuffer16BitAccess",
            F("Storage16BitFeatures.storageBuffer16BitAccess"),
        ),
        4434 => (
            "UniformAndStorageBuffer16BitAccess",
            F("Storage16BitFeatures.uniformAndStorageBuffer16BitAccess"),
        ),
        4435 => (
            "StoragePushConstant16",
            F("Storage16BitFeatures.storagePushConstant16"),
        ),
        4441 => (
            "VariablePointersStorageBuffer",
            F("VariablePointerFeatures.variablePointersStorageBuffer"),
        ),
        4442 => (
            "VariablePointers",
            F("VariablePointerFeatures.variablePointers"),
        ),
        4448 => (
            "StorageBuffer8BitAccess",
            F("Storage8BitFeatures.storageBuffer8BitAccess"),
        ),
        4449 => (
            "UniformAndStorageBuffer8BitAccess",
            F("Storage8BitFeatures.uniformAndStorageBuffer8BitAccess"),
        ),
        4450 => (
            "StoragePushConstant8",
            F("Storage8BitFeatures.storagePushConstant8"),
        ),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(bytes: &[u8]) -> Vec<u32> {
        bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    }

    fn fixture(name: &str) -> Vec<u32> {
        let path = format!("{}/../fixtures/kernels/{name}", env!("CARGO_MANIFEST_DIR"));
        words(&std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}")))
    }

    #[test]
    fn reads_entry_points_capabilities_and_spec_sizes() {
        let m = scan(&fixture("spec_constants.spv")).unwrap();
        assert_eq!(m.compute_entries, ["main"]);
        assert_eq!(m.capabilities, [1]); // Shader
                                         // SpecId 0: the workgroup size x (uint); 1: float; 2: bool; 3: int.
        let sizes: Vec<(u32, Vec<u32>)> = m.spec_sizes.into_iter().collect();
        assert_eq!(
            sizes,
            [(0, vec![4]), (1, vec![4]), (2, vec![4]), (3, vec![4])]
        );

        let m = scan(&fixture("two_entry_points.spv")).unwrap();
        assert_eq!(m.compute_entries, ["main_a", "main_b"]);
        let m = scan(&fixture("mixed_models.spv")).unwrap();
        assert_eq!(m.compute_entries, ["main_cs"]); // the vertex entry is not listed
        let m = scan(&fixture("small_types.spv")).unwrap();
        for cap in [9, 22, 39] {
            assert!(m.capabilities.contains(&cap), "{cap}");
        }
    }

    #[test]
    fn malformed_modules_are_errors() {
        assert!(scan(&[MAGIC, 0, 0, 0]).is_err());
        let be = scan(&fixture("saxpy_be.spv")).unwrap_err().to_string();
        assert!(be.contains("big-endian"), "{be}");
        let mut w = fixture("saxpy.spv");
        w[5] = (1000 << 16) | OP_CAPABILITY; // runs past the end
        let e = scan(&w).unwrap_err().to_string();
        assert!(e.contains("word 5"), "{e}");
        w[5] = OP_CAPABILITY; // word count 0
        assert!(scan(&w).is_err());
    }
}
