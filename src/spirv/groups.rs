//! The `Groups` capability at Subgroup scope, rewritten to the
//! GroupNonUniform instructions SPIRV-Cross's MSL backend translates.
//!
//! SPIRV-Cross leaves `OpGroupAll`, `OpGroupAny`, `OpGroupBroadcast` and the
//! `OpGroup{IAdd,FAdd,FMin,UMin,SMin,FMax,UMax,SMax}` arithmetic out of its
//! MSL (`// unimplemented op`), and writes the `SPV_AMD_shader_ballot`
//! `OpGroup…NonUniformAMD` forms as GLSL's `addInvocationsNonUniformAMD` …,
//! which MSL does not have. At Subgroup scope each has a GroupNonUniform
//! twin with the same result (the SPIR-V specification's Group and Subgroup
//! instructions, and its Non-Uniform instructions):
//!
//! - `OpGroupAll`, `OpGroupAny`, `OpGroupBroadcast` and the arithmetic
//!   `OpGroup…` forms require every invocation of the subgroup to execute
//!   them (behaviour is undefined in control flow that is non-uniform within
//!   the scope), so the set of active invocations their GroupNonUniform twins
//!   work over is the whole subgroup: `OpGroupNonUniformAll`, `…Any`, and
//!   `OpGroupNonUniform{IAdd,…,SMax}` with the same GroupOperation (Reduce,
//!   InclusiveScan or ExclusiveScan; the Groups forms have no other).
//! - The `…NonUniformAMD` forms are defined over the active invocations,
//!   which is what the GroupNonUniform arithmetic computes.
//! - `OpGroupBroadcast`'s LocalId must be the same for all invocations
//!   (dynamically uniform) but need not be a constant.
//!   `OpGroupNonUniformBroadcast` takes an Id from a constant instruction
//!   before SPIR-V 1.5, so a LocalId that is an unsigned `OpConstant`
//!   becomes `OpGroupNonUniformBroadcast`; any other becomes
//!   `OpGroupNonUniformShuffle`, whose Id may be any value and which, given
//!   the same Id in every invocation, returns that invocation's Value to all
//!   of them: the broadcast. Both want an unsigned Id: a signed LocalId is
//!   bitcast first (same bits).
//!
//! The capability `Groups` is replaced by `GroupNonUniform` and the
//! `GroupNonUniform*` capabilities the new instructions need, the
//! `SPV_AMD_shader_ballot` extension and instruction set import are removed,
//! and a module older than SPIR-V 1.3 (where GroupNonUniform begins) is
//! raised to 1.3 (a module that declares `Groups` and uses none of it only
//! loses the capability and the extension). The rewritten module is then
//! validated like any other.
//!
//! glslang declares `SPV_AMD_shader_ballot` only for the `…NonUniformAMD`
//! forms: `addInvocationsAMD` alone gives `OpCapability Groups` without it,
//! which SPIRV-Tools' validator rejects in a Vulkan environment (Vulkan
//! enables the capability through that extension). halc takes such a module:
//! the declaration changes nothing the instructions compute, and neither
//! remains after the rewrite.
//!
//! Refused, one line each, naming the instruction: Workgroup scope (Metal
//! has collective operations within a SIMD group only), the min and max
//! scans (MSL's `simd_prefix_*` functions are sums and products only, and
//! SPIRV-Cross throws on them), a vector LocalId, and the
//! `SPV_AMD_shader_ballot` extended instructions, which SPIRV-Cross writes
//! as GLSL's `swizzleInvocationsAMD`, `swizzleInvocationsMaskedAMD`,
//! `writeInvocationAMD` and `mbcntAMD`.

use std::collections::{BTreeSet, HashMap, HashSet};

use rspirv::spirv::{Capability, Op};

use super::binary::literal_bytes as literal;
use super::{op_name, SpirvError, Words};

const OP_NAME: u16 = Op::Name as u16;
const OP_EXTENSION: u16 = Op::Extension as u16;
const OP_EXT_INST_IMPORT: u16 = Op::ExtInstImport as u16;
const OP_EXT_INST: u16 = Op::ExtInst as u16;
const OP_CAPABILITY: u16 = Op::Capability as u16;
const OP_TYPE_INT: u16 = Op::TypeInt as u16;
const OP_CONSTANT: u16 = Op::Constant as u16;

const EXTENSION: &[u8] = b"SPV_AMD_shader_ballot";
const SCOPE_WORKGROUP: u32 = 2;
const SCOPE_SUBGROUP: u32 = 3;
const VERSION_1_3: u32 = 0x0001_0300;

/// What [`rewrite_groups`] changed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Rewritten {
    /// Groups instructions replaced by GroupNonUniform ones.
    pub instructions: u32,
    /// Whether the module's SPIR-V version was raised to 1.3.
    pub raised_version: bool,
}

/// The GroupNonUniform twin of a Groups instruction, and its kind.
fn twin(op: u16) -> Option<(Op, Kind)> {
    use Op::*;
    let (to, kind) = match Op::from_u32(u32::from(op))? {
        GroupAll => (GroupNonUniformAll, Kind::Vote),
        GroupAny => (GroupNonUniformAny, Kind::Vote),
        GroupBroadcast => (GroupNonUniformBroadcast, Kind::Broadcast),
        GroupIAdd | GroupIAddNonUniformAMD => (GroupNonUniformIAdd, Kind::Sum),
        GroupFAdd | GroupFAddNonUniformAMD => (GroupNonUniformFAdd, Kind::Sum),
        GroupFMin | GroupFMinNonUniformAMD => (GroupNonUniformFMin, Kind::MinMax),
        GroupUMin | GroupUMinNonUniformAMD => (GroupNonUniformUMin, Kind::MinMax),
        GroupSMin | GroupSMinNonUniformAMD => (GroupNonUniformSMin, Kind::MinMax),
        GroupFMax | GroupFMaxNonUniformAMD => (GroupNonUniformFMax, Kind::MinMax),
        GroupUMax | GroupUMaxNonUniformAMD => (GroupNonUniformUMax, Kind::MinMax),
        GroupSMax | GroupSMaxNonUniformAMD => (GroupNonUniformSMax, Kind::MinMax),
        _ => return None,
    };
    Some((to, kind))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Vote,
    Broadcast,
    Sum,
    MinMax,
}

/// The `SPV_AMD_shader_ballot` extended instructions, and SPIRV-Cross's
/// GLSL name for each.
fn amd_ext_inst(number: u32) -> String {
    match number {
        1 => "SwizzleInvocationsAMD (SPIRV-Cross writes GLSL's `swizzleInvocationsAMD`)".into(),
        2 => {
            "SwizzleInvocationsMaskedAMD (SPIRV-Cross writes GLSL's `swizzleInvocationsMaskedAMD`)"
                .into()
        }
        3 => "WriteInvocationAMD (SPIRV-Cross writes GLSL's `writeInvocationAMD`)".into(),
        4 => "MbcntAMD (SPIRV-Cross writes GLSL's `mbcntAMD`)".into(),
        n => format!("instruction {n} (not defined by the extension)"),
    }
}

fn header(op: Op, len: usize) -> u32 {
    ((len as u32) << 16) | op as u32
}

/// The module with its Subgroup-scope Groups instructions rewritten to
/// GroupNonUniform ones (see the module documentation); `None` when it
/// declares neither the `Groups` capability nor `SPV_AMD_shader_ballot`
/// (no copy). Errors name what cannot be rewritten.
pub fn rewrite_groups(words: &Words) -> Result<Option<(Words, Rewritten)>, SpirvError> {
    let groups = Capability::Groups as u32;
    let mut declares = false;
    let mut capabilities: HashSet<u32> = HashSet::new();
    let mut amd_sets: HashSet<u32> = HashSet::new();
    // Integer types: id -> (width, signed).
    let mut ints: HashMap<u32, (u32, bool)> = HashMap::new();
    // 32-bit-or-narrower integer constants: id -> (type, value).
    let mut constants: HashMap<u32, (u32, u32)> = HashMap::new();
    // Every value's type, for a LocalId's signedness.
    let mut types: HashMap<u32, u32> = HashMap::new();
    for inst in words.instructions() {
        let inst = inst?;
        let w = inst.words;
        match inst.opcode {
            OP_CAPABILITY if w.len() >= 2 => {
                declares |= w[1] == groups;
                capabilities.insert(w[1]);
            }
            OP_EXTENSION => declares |= literal(&w[1..]) == EXTENSION,
            OP_EXT_INST_IMPORT if w.len() >= 3 && literal(&w[2..]) == EXTENSION => {
                declares = true;
                amd_sets.insert(w[1]);
            }
            OP_TYPE_INT if w.len() >= 4 => {
                ints.insert(w[1], (w[2], w[3] != 0));
            }
            OP_CONSTANT if w.len() == 4 => {
                constants.insert(w[2], (w[1], w[3]));
            }
            _ => {}
        }
    }
    if !declares {
        return Ok(None);
    }
    for inst in super::inst::parse(words)? {
        if let (Some(ty), Some(id)) = (inst.result_type, inst.result_id) {
            types.insert(id, ty);
        }
    }

    // What each Groups instruction becomes, by word offset; the capabilities
    // the new instructions need; signed LocalIds to bitcast, by the width of
    // the unsigned type they need.
    struct Plan {
        to: Op,
        /// The unsigned type of the signed LocalId's width, to bitcast to.
        bitcast: Option<u32>,
    }
    let mut plans: HashMap<usize, Plan> = HashMap::new();
    let mut needed: BTreeSet<u32> = BTreeSet::new();
    let mut unsigned_widths: BTreeSet<u32> = BTreeSet::new();
    for inst in words.instructions() {
        let inst = inst?;
        let w = inst.words;
        let name = op_name(inst.opcode);
        if inst.opcode == OP_EXT_INST && w.len() >= 5 && amd_sets.contains(&w[3]) {
            return Err(SpirvError::Unsupported(format!(
                "OpExtInst {} of SPV_AMD_shader_ballot (word {}): MSL has no such function, so the Metal compiler would reject the kernel; use GL_KHR_shader_subgroup's functions instead",
                amd_ext_inst(w[4]),
                inst.offset
            )));
        }
        let Some((to, kind)) = twin(inst.opcode) else {
            continue;
        };
        let arity = if kind == Kind::Vote { 5 } else { 6 };
        if w.len() != arity {
            return Err(SpirvError::Unsupported(format!(
                "{name} (word {}): {} words, the instruction has {arity}",
                inst.offset,
                w.len()
            )));
        }
        let scope = match constants.get(&w[3]) {
            Some((ty, v)) if ints.contains_key(ty) => *v,
            _ => {
                return Err(SpirvError::Unsupported(format!(
                    "{name} (word {}): its Execution scope %{} is not an integer OpConstant, so halc cannot tell whether it is Subgroup scope",
                    inst.offset, w[3]
                )))
            }
        };
        match scope {
            SCOPE_SUBGROUP => {}
            SCOPE_WORKGROUP => {
                return Err(SpirvError::Unsupported(format!(
                    "{name} at Workgroup scope (word {}): Metal has no workgroup-wide collective operations (only SIMD-group ones), so halc cannot translate it; combine the SIMD groups' results through shared memory and a barrier instead",
                    inst.offset
                )))
            }
            s => {
                return Err(SpirvError::Unsupported(format!(
                    "{name} at scope {s} (word {}): only Subgroup scope can be translated (Vulkan allows Subgroup and Workgroup)",
                    inst.offset
                )))
            }
        }
        let mut plan = Plan { to, bitcast: None };
        match kind {
            Kind::Vote => {
                needed.insert(Capability::GroupNonUniformVote as u32);
            }
            Kind::Sum | Kind::MinMax => {
                let operation = w[4];
                let scan = match operation {
                    0 => false,
                    1 | 2 => true,
                    g => {
                        return Err(SpirvError::Unsupported(format!(
                            "{name} (word {}): GroupOperation {g} is not one of Reduce, InclusiveScan and ExclusiveScan",
                            inst.offset
                        )))
                    }
                };
                if scan && kind == Kind::MinMax {
                    let which = if operation == 1 {
                        "InclusiveScan"
                    } else {
                        "ExclusiveScan"
                    };
                    return Err(SpirvError::Unsupported(format!(
                        "{name} {which} (word {}): Metal has no SIMD-group prefix minimum or maximum (MSL's `simd_prefix_*` functions are sums and products only; SPIRV-Cross refuses {} {which}); only the Reduce form of a min or max can be translated",
                        inst.offset,
                        op_name(to as u16)
                    )));
                }
                needed.insert(Capability::GroupNonUniformArithmetic as u32);
            }
            Kind::Broadcast => {
                let id = w[5];
                let ty = types.get(&id).copied().unwrap_or(0);
                let Some(&(width, signed)) = ints.get(&ty) else {
                    return Err(SpirvError::Unsupported(format!(
                        "{name} (word {}): its LocalId %{id} is not an integer scalar (a vector LocalId addresses a workgroup's invocations; at Subgroup scope only a scalar can be translated)",
                        inst.offset
                    )));
                };
                if signed {
                    unsigned_widths.insert(width);
                    plan.to = Op::GroupNonUniformShuffle;
                    plan.bitcast = Some(width);
                    needed.insert(Capability::GroupNonUniformShuffle as u32);
                } else if constants.contains_key(&id) {
                    needed.insert(Capability::GroupNonUniformBallot as u32);
                } else {
                    plan.to = Op::GroupNonUniformShuffle;
                    needed.insert(Capability::GroupNonUniformShuffle as u32);
                }
            }
        }
        plans.insert(inst.offset, plan);
    }
    // A module that declares Groups and uses none of it loses the
    // capability and keeps its version.
    if !plans.is_empty() {
        needed.insert(Capability::GroupNonUniform as u32);
    }

    // Unsigned integer types for the bitcasts: existing, or new ids
    // declared right after the signed type of the same width.
    let mut bound = words.bound();
    let mut unsigned: HashMap<u32, u32> = HashMap::new();
    for (&id, &(width, signed)) in &ints {
        if !signed && unsigned_widths.contains(&width) {
            unsigned.insert(width, id);
        }
    }
    let mut new_types: HashMap<u32, u32> = HashMap::new();
    for &width in &unsigned_widths {
        if let std::collections::hash_map::Entry::Vacant(e) = unsigned.entry(width) {
            e.insert(bound);
            new_types.insert(width, bound);
            bound += 1;
        }
    }

    let all = words.as_slice();
    let mut out: Vec<u32> = Vec::with_capacity(all.len() + 8);
    out.extend_from_slice(&all[..5]);
    let mut rewritten = Rewritten::default();
    if out[1] < VERSION_1_3 && !plans.is_empty() {
        out[1] = VERSION_1_3;
        rewritten.raised_version = true;
    }
    for inst in words.instructions() {
        let inst = inst?;
        let w = inst.words;
        match inst.opcode {
            OP_CAPABILITY if w.len() >= 2 && w[1] == groups => {
                for &cap in needed.iter().filter(|c| !capabilities.contains(c)) {
                    out.extend_from_slice(&[header(Op::Capability, 2), cap]);
                }
                continue;
            }
            OP_EXTENSION if literal(&w[1..]) == EXTENSION => continue,
            OP_EXT_INST_IMPORT if w.len() >= 2 && amd_sets.contains(&w[1]) => continue,
            OP_NAME if w.len() >= 2 && amd_sets.contains(&w[1]) => continue,
            OP_TYPE_INT if w.len() >= 4 && w[3] != 0 => {
                out.extend_from_slice(w);
                if let Some(&id) = new_types.remove(&w[2]).as_ref() {
                    out.extend_from_slice(&[header(Op::TypeInt, 4), id, w[2], 0]);
                }
                continue;
            }
            _ => {}
        }
        let Some(plan) = plans.get(&inst.offset) else {
            out.extend_from_slice(w);
            continue;
        };
        rewritten.instructions += 1;
        let mut new: Vec<u32> = w.to_vec();
        new[0] = header(plan.to, w.len());
        if let Some(width) = plan.bitcast {
            let cast = bound;
            bound += 1;
            out.extend_from_slice(&[header(Op::Bitcast, 4), unsigned[&width], cast, w[5]]);
            new[5] = cast;
        }
        out.extend_from_slice(&new);
    }
    out[3] = bound;
    Ok(Some((Words::from_words(out)?, rewritten)))
}

#[cfg(test)]
mod tests {
    use super::*;

    use spirv_tools::assembler::Assembler;

    fn assemble(text: &str, env: spirv_tools::TargetEnv) -> Words {
        crate::spirv::assemble(text, env)
    }

    fn disassemble(words: &Words) -> String {
        let asm = spirv_tools::assembler::create(Some(spirv_tools::TargetEnv::Universal_1_5));
        asm.disassemble(words.as_slice(), Default::default())
            .unwrap()
            .unwrap()
    }

    /// A SPIR-V 1.0 module: `body` in `main`, with the usual types.
    fn module(caps: &str, body: &str) -> String {
        format!(
            "OpCapability Shader
{caps}OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main \"main\" %lid
OpExecutionMode %main LocalSize 64 1 1
OpName %x \"x\"
OpName %sx \"sx\"
OpDecorate %lid BuiltIn LocalInvocationId
%void = OpTypeVoid
%fn = OpTypeFunction %void
%bool = OpTypeBool
%int = OpTypeInt 32 1
%uint = OpTypeInt 32 0
%float = OpTypeFloat 32
%v3uint = OpTypeVector %uint 3
%pv3 = OpTypePointer Input %v3uint
%lid = OpVariable %pv3 Input
%uint_2 = OpConstant %uint 2
%uint_3 = OpConstant %uint 3
%int_3 = OpConstant %int 3
%float_1 = OpConstant %float 1
%true = OpConstantTrue %bool
%main = OpFunction %void None %fn
%l = OpLabel
%id3 = OpLoad %v3uint %lid
%x = OpCompositeExtract %uint %id3 0
%sx = OpBitcast %int %x
{body}OpReturn
OpFunctionEnd
"
        )
    }

    const GROUPS: &str = "OpCapability Groups\nOpExtension \"SPV_AMD_shader_ballot\"\n";

    fn rewrite(text: &str) -> Result<(String, Rewritten), String> {
        let words = assemble(text, spirv_tools::TargetEnv::Universal_1_0);
        match rewrite_groups(&words) {
            Ok(Some((out, r))) => {
                crate::spirv::validate::spirv_tools(&out)
                    .unwrap_or_else(|e| panic!("{e}\n{}", disassemble(&out)));
                Ok((disassemble(&out), r))
            }
            Ok(None) => Err("not rewritten".into()),
            Err(e) => Err(e.to_string()),
        }
    }

    /// The function body's instructions after the module's own three
    /// (load, extract, bitcast), without their result ids.
    fn body(text: &str) -> Vec<String> {
        text.lines()
            .skip_while(|l| !l.contains("OpLabel"))
            .skip(4)
            .filter(|l| !l.contains("OpReturn") && !l.contains("OpFunctionEnd"))
            .map(|l| {
                let l = l.split(';').next().unwrap().trim();
                l.split_once(" = ").map_or(l, |(_, r)| r).to_string()
            })
            .collect()
    }

    #[test]
    fn each_groups_instruction_becomes_its_group_non_uniform_twin() {
        let source = "%a = OpGroupAll %bool %uint_3 %true
%b = OpGroupAny %bool %uint_3 %true
%c = OpGroupIAdd %uint %uint_3 Reduce %x
%d = OpGroupFAdd %float %uint_3 InclusiveScan %float_1
%e = OpGroupIAdd %int %uint_3 ExclusiveScan %sx
%f = OpGroupFMin %float %uint_3 Reduce %float_1
%g = OpGroupUMin %uint %uint_3 Reduce %x
%h = OpGroupSMin %int %uint_3 Reduce %sx
%i = OpGroupFMax %float %uint_3 Reduce %float_1
%j = OpGroupUMax %uint %uint_3 Reduce %x
%k = OpGroupSMax %int %uint_3 Reduce %sx
%m = OpGroupIAddNonUniformAMD %uint %uint_3 InclusiveScan %x
%n = OpGroupFAddNonUniformAMD %float %uint_3 ExclusiveScan %float_1
%o = OpGroupFMinNonUniformAMD %float %uint_3 Reduce %float_1
%p = OpGroupUMinNonUniformAMD %uint %uint_3 Reduce %x
%q = OpGroupSMinNonUniformAMD %int %uint_3 Reduce %sx
%r = OpGroupFMaxNonUniformAMD %float %uint_3 Reduce %float_1
%s = OpGroupUMaxNonUniformAMD %uint %uint_3 Reduce %x
%t = OpGroupSMaxNonUniformAMD %int %uint_3 Reduce %sx
";
        let (text, r) = rewrite(&module(GROUPS, source)).unwrap();
        assert_eq!(
            r,
            Rewritten {
                instructions: 19,
                raised_version: true
            }
        );
        let want: Vec<String> = source
            .lines()
            .map(|l| {
                let rhs = l.split_once(" = ").unwrap().1;
                let (op, rest) = rhs.split_once(' ').unwrap();
                let op = op
                    .replace("NonUniformAMD", "")
                    .replace("OpGroup", "OpGroupNonUniform");
                format!("{op} {rest}")
            })
            .collect();
        assert_eq!(body(&text), want, "{text}");
        for cap in [
            "OpCapability GroupNonUniform\n",
            "OpCapability GroupNonUniformVote\n",
            "OpCapability GroupNonUniformArithmetic\n",
            "; Version: 1.3",
        ] {
            assert!(text.contains(cap), "{cap} not in:\n{text}");
        }
        for gone in [
            "OpCapability Groups",
            "SPV_AMD_shader_ballot",
            "GroupNonUniformBallot",
            "GroupNonUniformShuffle",
        ] {
            assert!(!text.contains(gone), "{gone} in:\n{text}");
        }
    }

    #[test]
    fn broadcast_of_an_unsigned_constant_id_is_a_broadcast_else_a_shuffle() {
        let (text, _) = rewrite(&module(
            GROUPS,
            "%a = OpGroupBroadcast %float %uint_3 %float_1 %uint_2\n",
        ))
        .unwrap();
        assert_eq!(
            body(&text),
            ["OpGroupNonUniformBroadcast %float %uint_3 %float_1 %uint_2"],
            "{text}"
        );
        assert!(
            text.contains("OpCapability GroupNonUniformBallot"),
            "{text}"
        );
        assert!(!text.contains("Shuffle"), "{text}");

        // A uniform but computed id.
        let (text, _) = rewrite(&module(
            GROUPS,
            "%y = OpBitwiseAnd %uint %x %uint_2\n%a = OpGroupBroadcast %float %uint_3 %float_1 %y\n",
        ))
        .unwrap();
        let b = body(&text);
        assert_eq!(b.len(), 2, "{text}");
        assert!(
            b[1].starts_with("OpGroupNonUniformShuffle %float %uint_3 %float_1 %"),
            "{text}"
        );
        assert!(
            text.contains("OpCapability GroupNonUniformShuffle"),
            "{text}"
        );
        assert!(!text.contains("Ballot"), "{text}");
    }

    #[test]
    fn a_signed_local_id_is_bitcast_to_unsigned_first() {
        let (text, _) = rewrite(&module(
            GROUPS,
            "%a = OpGroupBroadcast %uint %uint_3 %x %int_3\n",
        ))
        .unwrap();
        let b = body(&text);
        assert_eq!(b[0], "OpBitcast %uint %int_3", "{text}");
        assert!(
            b[1].starts_with("OpGroupNonUniformShuffle %uint %uint_3 %x %"),
            "{text}"
        );
        // Without an unsigned 32-bit type, one is declared.
        let text_in = module(GROUPS, "%a = OpGroupBroadcast %int %int_3 %sx %sx\n")
            .replace("OpName %x \"x\"\n", "")
            .replace("%uint = OpTypeInt 32 0\n", "")
            .replace("%v3uint = OpTypeVector %uint 3", "%v3uint = OpTypeVector %int 3")
            .replace("%uint_2 = OpConstant %uint 2\n%uint_3 = OpConstant %uint 3\n", "")
            .replace("%id3 = OpLoad %v3uint %lid\n%x = OpCompositeExtract %uint %id3 0\n%sx = OpBitcast %int %x\n",
                     "%id3 = OpLoad %v3uint %lid\n%sx = OpCompositeExtract %int %id3 0\n");
        let (text, _) = rewrite(&text_in).unwrap();
        assert_eq!(text.matches("OpTypeInt 32 0").count(), 1, "{text}");
        assert!(
            text.contains("= OpGroupNonUniformShuffle %int %int_3 %sx %"),
            "{text}"
        );
    }

    #[test]
    fn capabilities_already_declared_are_not_repeated_and_1_5_stays_1_5() {
        let text = module(
            "OpCapability GroupNonUniform\nOpCapability GroupNonUniformArithmetic\nOpCapability Groups\nOpExtension \"SPV_AMD_shader_ballot\"\n",
            "%c = OpGroupIAdd %uint %uint_3 Reduce %x\n%d = OpGroupNonUniformIAdd %uint %uint_3 Reduce %x\n",
        );
        let words = assemble(&text, spirv_tools::TargetEnv::Universal_1_5);
        let (out, r) = rewrite_groups(&words).unwrap().unwrap();
        assert!(!r.raised_version);
        assert_eq!(out.version(), (1, 5));
        let dis = disassemble(&out);
        assert_eq!(
            dis.matches("OpCapability GroupNonUniformArithmetic")
                .count(),
            1,
            "{dis}"
        );
        assert_eq!(
            dis.matches("OpCapability GroupNonUniform\n").count(),
            1,
            "{dis}"
        );
        crate::spirv::validate::spirv_tools(&out).unwrap();
    }

    #[test]
    fn workgroup_scope_is_refused_naming_the_instruction() {
        let e = rewrite(&module(
            GROUPS,
            "%c = OpGroupIAdd %uint %uint_2 Reduce %x\n",
        ))
        .unwrap_err();
        assert!(
            e.starts_with("OpGroupIAdd at Workgroup scope (word ")
                && e.contains("Metal has no workgroup-wide collective operations"),
            "{e}"
        );
        assert!(!e.contains('\n'));
        let e = rewrite(&module(GROUPS, "%a = OpGroupAll %bool %uint_2 %true\n")).unwrap_err();
        assert!(e.starts_with("OpGroupAll at Workgroup scope"), "{e}");
    }

    #[test]
    fn min_and_max_scans_are_refused() {
        let e = rewrite(&module(
            GROUPS,
            "%c = OpGroupUMinNonUniformAMD %uint %uint_3 InclusiveScan %x\n",
        ))
        .unwrap_err();
        assert!(
            e.starts_with("OpGroupUMinNonUniformAMD InclusiveScan (word ")
                && e.contains("no SIMD-group prefix minimum or maximum"),
            "{e}"
        );
        let e = rewrite(&module(
            GROUPS,
            "%c = OpGroupFMax %float %uint_3 ExclusiveScan %float_1\n",
        ))
        .unwrap_err();
        assert!(e.starts_with("OpGroupFMax ExclusiveScan"), "{e}");
    }

    #[test]
    fn amd_extended_instructions_are_refused() {
        for (n, name) in [
            (1, "SwizzleInvocationsAMD"),
            (2, "SwizzleInvocationsMaskedAMD"),
            (3, "WriteInvocationAMD"),
            (4, "MbcntAMD"),
        ] {
            let operands = match n {
                1 | 2 => "%float_1 %v3c",
                3 => "%float_1 %float_1 %uint_3",
                _ => "%u64",
            };
            let ty = if n == 4 { "%uint" } else { "%float" };
            let text = module(
                GROUPS,
                &format!("%r = OpExtInst {ty} %amd {name} {operands}\n"),
            )
            .replace(
                "OpMemoryModel",
                "%amd = OpExtInstImport \"SPV_AMD_shader_ballot\"\nOpMemoryModel",
            )
            .replace(
                "%true = OpConstantTrue %bool\n",
                "%true = OpConstantTrue %bool\n%v4uint = OpTypeVector %uint 4\n%v3c = OpConstantComposite %v4uint %uint_3 %uint_3 %uint_3 %uint_3\n%ulong = OpTypeInt 64 0\n%u64 = OpConstant %ulong 5\n",
            )
            .replace("OpCapability Groups\n", "OpCapability Groups\nOpCapability Int64\n");
            let e = rewrite(&text).unwrap_err();
            assert!(
                e.starts_with(&format!("OpExtInst {name} (SPIRV-Cross writes GLSL's `")),
                "{e}"
            );
        }
    }

    #[test]
    fn groups_without_the_extension_as_glslang_writes_it_is_rewritten() {
        let (text, r) = rewrite(&module(
            "OpCapability Groups\n",
            "%c = OpGroupUMin %uint %uint_3 Reduce %x\n",
        ))
        .unwrap();
        assert_eq!(r.instructions, 1);
        assert_eq!(
            body(&text),
            ["OpGroupNonUniformUMin %uint %uint_3 Reduce %x"],
            "{text}"
        );
    }

    #[test]
    fn groups_declared_and_unused_is_dropped_and_the_version_kept() {
        let words = assemble(&module(GROUPS, ""), spirv_tools::TargetEnv::Universal_1_0);
        let (out, r) = rewrite_groups(&words).unwrap().unwrap();
        assert_eq!(r, Rewritten::default());
        assert_eq!(out.version(), (1, 0));
        let text = disassemble(&out);
        assert!(!text.contains("Group") && !text.contains("AMD"), "{text}");
        crate::spirv::validate::spirv_tools(&out).unwrap();
    }

    #[test]
    fn a_module_without_groups_is_not_copied() {
        let text = module("", "");
        let words = assemble(&text, spirv_tools::TargetEnv::Universal_1_0);
        assert_eq!(rewrite_groups(&words).unwrap(), None);
    }
}
