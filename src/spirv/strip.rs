//! Non-semantic instructions (`SPV_KHR_non_semantic_info`): debug
//! information (`NonSemantic.Shader.DebugInfo.100`, which glslang's `-gV`
//! and DXC's `-fspv-debug=vulkan-with-source` emit), `debugPrintfEXT`
//! (`NonSemantic.DebugPrintf`) and any other `NonSemantic.*` set. The
//! extension defines them as removable without changing what the module
//! computes, and their results may only be used by other non-semantic
//! instructions; halc removes them before anything else reads the module, so
//! reflection, the validator, SPIRV-Cross and the MSL see the module without
//! them.
//!
//! A `debugPrintfEXT` call prints nothing on Metal: MSL has no printf before
//! MSL 3.2's `os_log`, which needs a logging-enabled device, and halc does
//! not emit it. The calls are counted so that the caller can say so.

use std::collections::HashSet;

use super::binary::literal_bytes as literal;
use super::{SpirvError, Words};

const OP_NAME: u16 = 5;
const OP_MEMBER_NAME: u16 = 6;
const OP_EXTENSION: u16 = 10;
const OP_EXT_INST_IMPORT: u16 = 11;
const OP_EXT_INST: u16 = 12;
const OP_MEMORY_MODEL: u16 = 14;
const OP_DECORATE: u16 = 71;
const OP_EXT_INST_WITH_FORWARD_REFS: u16 = 4433;

/// `NonSemantic.DebugPrintf`'s one instruction.
const DEBUG_PRINTF: u32 = 1;

/// What [`strip_non_semantic`] removed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stripped {
    /// Non-semantic instructions removed (imports and extension included).
    pub instructions: u32,
    /// `debugPrintfEXT` calls among them.
    pub debug_printfs: u32,
}

/// The module without its non-semantic instructions: every `NonSemantic.*`
/// `OpExtInstImport`, every `OpExtInst` of those sets, names and
/// decorations of their results, and `OpExtension
/// "SPV_KHR_non_semantic_info"`. `None` when it has none (no copy).
pub fn strip_non_semantic(words: &Words) -> Result<Option<(Words, Stripped)>, SpirvError> {
    let mut sets: HashSet<u32> = HashSet::new();
    let mut printf_sets: HashSet<u32> = HashSet::new();
    let mut extension = false;
    for inst in words.instructions() {
        let inst = inst?;
        let w = inst.words;
        match inst.opcode {
            OP_EXT_INST_IMPORT if w.len() >= 3 => {
                let name = literal(&w[2..]);
                if name.starts_with(b"NonSemantic.") {
                    sets.insert(w[1]);
                    if name == b"NonSemantic.DebugPrintf" {
                        printf_sets.insert(w[1]);
                    }
                }
            }
            OP_EXTENSION if literal(&w[1..]) == b"SPV_KHR_non_semantic_info" => extension = true,
            // Extensions and imports come before the memory model.
            OP_MEMORY_MODEL => break,
            _ => {}
        }
    }
    if sets.is_empty() && !extension {
        return Ok(None);
    }
    // The results of the removed instructions (forward references make a
    // second pass necessary for the names, which come first).
    let mut removed: HashSet<u32> = HashSet::new();
    for inst in words.instructions() {
        let inst = inst?;
        let w = inst.words;
        if matches!(inst.opcode, OP_EXT_INST | OP_EXT_INST_WITH_FORWARD_REFS)
            && w.len() >= 5
            && sets.contains(&w[3])
        {
            removed.insert(w[2]);
        }
    }
    let all = words.as_slice();
    let mut out: Vec<u32> = Vec::with_capacity(all.len());
    out.extend_from_slice(&all[..5]);
    let mut stripped = Stripped::default();
    for inst in words.instructions() {
        let inst = inst?;
        let w = inst.words;
        let drop = match inst.opcode {
            OP_EXT_INST_IMPORT => w.len() >= 2 && sets.contains(&w[1]),
            OP_EXT_INST | OP_EXT_INST_WITH_FORWARD_REFS if w.len() >= 5 && sets.contains(&w[3]) => {
                if printf_sets.contains(&w[3]) && w[4] == DEBUG_PRINTF {
                    stripped.debug_printfs += 1;
                }
                true
            }
            OP_EXTENSION => literal(&w[1..]) == b"SPV_KHR_non_semantic_info",
            OP_NAME | OP_MEMBER_NAME | OP_DECORATE => w.len() >= 2 && removed.contains(&w[1]),
            _ => false,
        };
        if drop {
            stripped.instructions += 1;
        } else {
            out.extend_from_slice(w);
        }
    }
    Ok(Some((Words::from_words(out)?, stripped)))
}

#[cfg(test)]
mod tests {
    use super::*;

    use spirv_tools::assembler::Assembler;

    fn assemble(text: &str) -> Words {
        crate::spirv::assemble(text, spirv_tools::TargetEnv::Universal_1_5)
    }

    fn disassemble(words: &Words) -> String {
        let asm = spirv_tools::assembler::create(Some(spirv_tools::TargetEnv::Universal_1_5));
        asm.disassemble(words.as_slice(), Default::default())
            .unwrap()
            .unwrap()
    }

    const HEAD: &str = "OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main \"main\"
OpExecutionMode %main LocalSize 1 1 1
";
    const BODY: &str = "%void = OpTypeVoid
%fn = OpTypeFunction %void
%main = OpFunction %void None %fn
%l = OpLabel
";

    #[test]
    fn debug_printf_and_debug_info_are_removed_with_their_names() {
        let module = format!(
            "OpCapability Shader
OpExtension \"SPV_KHR_non_semantic_info\"
%printf = OpExtInstImport \"NonSemantic.DebugPrintf\"
%dbg = OpExtInstImport \"NonSemantic.Shader.DebugInfo.100\"
%glsl = OpExtInstImport \"GLSL.std.450\"
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main \"main\"
OpExecutionMode %main LocalSize 1 1 1
%fmt = OpString \"x=%f\"
OpName %call \"call\"
{BODY}%call = OpExtInst %void %printf 1 %fmt
%src = OpExtInst %void %dbg 35 %fmt
%again = OpExtInst %void %printf 1 %fmt
OpReturn
OpFunctionEnd
"
        );
        let (out, stripped) = strip_non_semantic(&assemble(&module)).unwrap().unwrap();
        assert_eq!(
            stripped,
            Stripped {
                instructions: 7,
                debug_printfs: 2
            }
        );
        let text = disassemble(&out);
        for gone in [
            "NonSemantic",
            "SPV_KHR_non_semantic_info",
            "OpExtInst ",
            "\"call\"",
        ] {
            assert!(!text.contains(gone), "{gone} in:\n{text}");
        }
        assert!(text.contains("OpExtInstImport \"GLSL.std.450\""), "{text}");
        assert!(text.contains("OpString \"x=%f\""), "{text}");
        assert_eq!(out.bound(), assemble(&module).bound());
        super::super::validate::spirv_tools(&out).unwrap();
    }

    #[test]
    fn a_module_without_them_is_not_copied() {
        let module = format!("{HEAD}{BODY}OpReturn\nOpFunctionEnd\n");
        assert_eq!(strip_non_semantic(&assemble(&module)).unwrap(), None);
        // The extension alone is removed.
        let ext = module.replace(
            "OpMemoryModel",
            "OpExtension \"SPV_KHR_non_semantic_info\"\nOpMemoryModel",
        );
        let (out, stripped) = strip_non_semantic(&assemble(&ext)).unwrap().unwrap();
        assert_eq!(stripped.instructions, 1);
        assert_eq!(out.as_slice(), assemble(&module).as_slice());
    }

    #[test]
    fn other_extended_sets_stay() {
        let module = format!(
            "OpCapability Shader
%glsl = OpExtInstImport \"GLSL.std.450\"
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main \"main\"
OpExecutionMode %main LocalSize 1 1 1
%float = OpTypeFloat 32
%one = OpConstant %float 1
{BODY}%s = OpExtInst %float %glsl Sqrt %one
OpReturn
OpFunctionEnd
"
        );
        assert_eq!(strip_non_semantic(&assemble(&module)).unwrap(), None);
    }
}
