//! Build-time specialization: `--spec ID=VALUE` turns every spec constant
//! carrying that SpecId into a plain constant with the given value.
//!
//! This is a word-level rewrite of the module, done before reflection and
//! before SPIRV-Cross, so every later stage (workgroup sizes, array sizes,
//! threadgroup memory, the MSL) sees the baked value and the constant is no
//! longer a Metal function constant.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::spec_op::evaluate;
use super::types::{ScalarType, ScalarValue};
use super::{SpirvError, Words};

pub use crate::model::spec::{Baked, SpecValue};

const OP_DECORATE: u16 = 71;
const OP_TYPE_BOOL: u16 = 20;
const OP_TYPE_INT: u16 = 21;
const OP_TYPE_FLOAT: u16 = 22;
const OP_CONSTANT_TRUE: u16 = 41;
const OP_CONSTANT_FALSE: u16 = 42;
const OP_CONSTANT: u16 = 43;
const OP_SPEC_CONSTANT_TRUE: u16 = 48;
const OP_SPEC_CONSTANT_FALSE: u16 = 49;
const OP_SPEC_CONSTANT: u16 = 50;
const OP_CONSTANT_COMPOSITE: u16 = 44;
const OP_CONSTANT_NULL: u16 = 46;
const OP_SPEC_CONSTANT_COMPOSITE: u16 = 51;
const OP_SPEC_CONSTANT_OP: u16 = 52;
const DECORATION_SPEC_ID: u32 = 1;

fn parse_int(text: &str) -> Option<i128> {
    let (neg, t) = match text.strip_prefix('-') {
        Some(t) => (true, t),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let v = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        i128::from_str_radix(h, 16).ok()?
    } else {
        t.parse::<i128>().ok()?
    };
    Some(if neg { -v } else { v })
}

/// Parses `text` as a value of type `ty`, returning its raw bits.
pub fn parse_value(ty: ScalarType, text: &str) -> Result<ScalarValue, String> {
    let bad = || format!("`{text}` is not a valid {ty}");
    let bits = match ty {
        ScalarType::Bool => match text {
            "true" | "1" => 1,
            "false" | "0" => 0,
            _ => return Err(bad()),
        },
        ScalarType::Int(w) => {
            let v = parse_int(text).ok_or_else(bad)?;
            let min = -(1i128 << (w - 1));
            let max = (1i128 << (w - 1)) - 1;
            if v < min || v > max {
                return Err(format!("`{text}` is out of range for {ty}"));
            }
            (v as u64) & mask(w)
        }
        ScalarType::UInt(w) => {
            let v = parse_int(text).ok_or_else(bad)?;
            if v < 0 || v > mask(w) as i128 {
                return Err(format!("`{text}` is out of range for {ty}"));
            }
            v as u64
        }
        ScalarType::Float(w) => {
            let v: f64 = text.parse().map_err(|_| bad())?;
            match w {
                64 => v.to_bits(),
                32 => u64::from((v as f32).to_bits()),
                16 => u64::from(f32_to_f16_bits(v as f32)),
                _ => return Err(bad()),
            }
        }
    };
    Ok(ScalarValue(bits))
}

fn mask(w: u32) -> u64 {
    if w >= 64 {
        u64::MAX
    } else {
        (1u64 << w) - 1
    }
}

/// IEEE single from half (exact).
pub(crate) fn f16_bits_to_f32(h: u16) -> f32 {
    let sign = (u32::from(h) & 0x8000) << 16;
    let exp = (u32::from(h) >> 10) & 0x1f;
    let man = u32::from(h) & 0x3ff;
    let bits = match (exp, man) {
        (0, 0) => sign,
        (0, m) => {
            // Subnormal: normalise.
            let shift = m.leading_zeros() - 21;
            let m = (m << shift) & 0x3ff;
            sign | ((127 - 15 + 1 - shift) << 23) | (m << 13)
        }
        (0x1f, 0) => sign | 0x7f80_0000,
        (0x1f, m) => sign | 0x7fc0_0000 | (m << 13),
        (e, m) => sign | ((e + 127 - 15) << 23) | (m << 13),
    };
    f32::from_bits(bits)
}

/// IEEE half from single, round to nearest even.
pub(crate) fn f32_to_f16_bits(f: f32) -> u16 {
    let x = f.to_bits();
    let sign = ((x >> 16) & 0x8000) as u16;
    let exp = ((x >> 23) & 0xff) as i32;
    let man = x & 0x7f_ffff;
    if exp == 0xff {
        return sign | 0x7c00 | if man != 0 { 0x200 } else { 0 };
    }
    let e = exp - 127 + 15;
    if e >= 0x1f {
        return sign | 0x7c00;
    }
    if e <= 0 {
        if e < -10 {
            return sign;
        }
        let m = man | 0x80_0000;
        let shift = (14 - e) as u32;
        let half = 1u32 << (shift - 1);
        let mut r = m >> shift;
        let rem = m & ((1 << shift) - 1);
        if rem > half || (rem == half && r & 1 == 1) {
            r += 1;
        }
        return sign | r as u16;
    }
    let mut r = ((e as u32) << 10) | (man >> 13);
    let rem = man & 0x1fff;
    if rem > 0x1000 || (rem == 0x1000 && r & 1 == 1) {
        r += 1;
    }
    sign | r as u16
}

/// Bakes `values` into `words`. Returns the rewritten module and, for each
/// SpecId found in it, the value baked. SpecIds not present in this module
/// are not an error here (several inputs share one `--spec` list); the caller
/// checks that each id was used by some input.
pub fn specialize(words: &Words, values: &[SpecValue]) -> Result<(Words, Vec<Baked>), SpirvError> {
    if values.is_empty() {
        return Ok((words.clone(), Vec::new()));
    }
    let wanted: BTreeMap<u32, &SpecValue> = values.iter().map(|v| (v.id, v)).collect();
    rewrite(words, Source::Given(&wanted))
}

/// Fixes every constant carrying one of `ids` at its own default: each
/// declaration of a SpecId keeps its value, as in a Vulkan pipeline created
/// without specialization (`local_size_x_id = 0` defaulting to 1 beside
/// `constant_id = 0` defaulting to 32 stay 1 and 32). Returns the rewritten
/// module and the ids fixed, marked [`Baked::frozen`].
pub fn freeze(words: &Words, ids: &[u32]) -> Result<(Words, Vec<Baked>), SpirvError> {
    if ids.is_empty() {
        return Ok((words.clone(), Vec::new()));
    }
    let wanted: std::collections::BTreeSet<u32> = ids.iter().copied().collect();
    rewrite(words, Source::OwnDefaults(&wanted))
}

/// SpecIds that SPIRV-Cross would make both a preprocessor macro and a
/// Metal function constant: one declaration sizes an array (directly, or
/// through constant composites and operations: MSL array lengths must be
/// compile-time constants, so SPIRV-Cross fixes those at their defaults)
/// while another is read as a value (a function constant, settable at run
/// time). Specialising such a SpecId at run time would change one and not
/// the other. The rule is SPIRV-Cross's `mark_used_as_array_length`: the
/// length of every `OpTypeArray`, through composite constituents and the
/// operands of spec-constant operations (only the composite of a
/// `CompositeExtract`, the object and composite of a `CompositeInsert`).
pub fn array_size_conflicts(words: &Words) -> Result<Vec<u32>, SpirvError> {
    const OP_TYPE_ARRAY: u16 = 28;
    const OP_S_MOD: u32 = 139;
    let mut spec_id: HashMap<u32, u32> = HashMap::new();
    let mut operands: HashMap<u32, Vec<u32>> = HashMap::new();
    let mut lengths: Vec<u32> = Vec::new();
    let mut smods: Vec<u32> = Vec::new();
    // Each scalar spec constant's default (its value words).
    let mut default: HashMap<u32, Vec<u32>> = HashMap::new();
    for inst in words.instructions() {
        let inst = inst?;
        let w = inst.words;
        match inst.opcode {
            OP_DECORATE if w.len() >= 4 && w[2] == DECORATION_SPEC_ID => {
                spec_id.insert(w[1], w[3]);
            }
            OP_SPEC_CONSTANT if w.len() >= 3 => {
                default.insert(w[2], w[3..].to_vec());
            }
            OP_SPEC_CONSTANT_TRUE | OP_SPEC_CONSTANT_FALSE if w.len() >= 3 => {
                default.insert(w[2], vec![u32::from(inst.opcode == OP_SPEC_CONSTANT_TRUE)]);
            }
            OP_TYPE_ARRAY if w.len() >= 4 => lengths.push(w[3]),
            OP_CONSTANT_COMPOSITE | OP_SPEC_CONSTANT_COMPOSITE if w.len() >= 3 => {
                operands.insert(w[2], w[3..].to_vec());
            }
            OP_SPEC_CONSTANT_OP if w.len() >= 4 => {
                operands.insert(w[2], spec_op_ids(w).to_vec());
                if w[3] == OP_S_MOD {
                    smods.push(w[2]);
                }
            }
            _ => {}
        }
    }
    // Every constant an array length depends on.
    let mut marked: std::collections::HashSet<u32> = std::collections::HashSet::new();
    let mut stack = lengths;
    while let Some(id) = stack.pop() {
        if marked.insert(id) {
            if let Some(ops) = operands.get(&id) {
                stack.extend(ops);
            }
        }
    }
    // Per SpecId: sizes an array, read as a value, its declarations'
    // distinct defaults.
    let mut in_length: BTreeMap<u32, (bool, bool, BTreeSet<Vec<u32>>)> = BTreeMap::new();
    for (target, id) in &spec_id {
        let e = in_length.entry(*id).or_default();
        if marked.contains(target) {
            e.0 = true;
        } else {
            e.1 = true;
        }
        if let Some(d) = default.get(target) {
            e.2.insert(d.clone());
        }
    }
    // Also a SpecId whose declarations all size arrays but have different
    // defaults: SPIRV-Cross fixes it whole at one default (the first
    // declaration's), where Vulkan without specialization gives each its
    // own (`local_size_x_id = 0` of 1 beside `constant_id = 0` of 2, both in
    // an array length).
    let mut ids: BTreeSet<u32> = in_length
        .into_iter()
        .filter(|(_, (sizes, value, defaults))| *sizes && (*value || defaults.len() > 1))
        .map(|(id, _)| id)
        .collect();
    // And every SpecId under a signed `%` (SMod) in an array length, which
    // SPIRV-Cross writes as a call of its helper `spvSMod`, no constant
    // expression MSL can size an array with: fixed, the operation folds into
    // a plain constant (SPIRV-Cross's specialization-constant-evaluation).
    let mut under: std::collections::HashSet<u32> = std::collections::HashSet::new();
    let mut stack: Vec<u32> = smods.into_iter().filter(|s| marked.contains(s)).collect();
    while let Some(id) = stack.pop() {
        if under.insert(id) {
            if let Some(ops) = operands.get(&id) {
                stack.extend(ops);
            }
        }
    }
    ids.extend(
        spec_id
            .iter()
            .filter(|(target, _)| under.contains(target))
            .map(|(_, id)| *id),
    );
    Ok(ids.into_iter().collect())
}

/// An `OpSpecConstantOp SMod` left in an array length (its operands plain
/// constants, or nothing [`array_size_conflicts`] fixes): SPIRV-Cross writes
/// it as a call of its helper `spvSMod`, which MSL cannot use as an array
/// length. Run after [`freeze`], which folds the others.
pub fn smod_in_array_length(words: &Words) -> Result<Option<u32>, SpirvError> {
    const OP_TYPE_ARRAY: u16 = 28;
    const OP_S_MOD: u32 = 139;
    let mut operands: HashMap<u32, Vec<u32>> = HashMap::new();
    let mut smods: std::collections::HashSet<u32> = std::collections::HashSet::new();
    let mut stack: Vec<u32> = Vec::new();
    for inst in words.instructions() {
        let inst = inst?;
        let w = inst.words;
        match inst.opcode {
            OP_TYPE_ARRAY if w.len() >= 4 => stack.push(w[3]),
            OP_CONSTANT_COMPOSITE | OP_SPEC_CONSTANT_COMPOSITE if w.len() >= 3 => {
                operands.insert(w[2], w[3..].to_vec());
            }
            OP_SPEC_CONSTANT_OP if w.len() >= 4 => {
                operands.insert(w[2], spec_op_ids(w).to_vec());
                if w[3] == OP_S_MOD {
                    smods.insert(w[2]);
                }
            }
            _ => {}
        }
    }
    let mut seen: std::collections::HashSet<u32> = std::collections::HashSet::new();
    while let Some(id) = stack.pop() {
        if smods.contains(&id) {
            return Ok(Some(id));
        }
        if seen.insert(id) {
            if let Some(ops) = operands.get(&id) {
                stack.extend(ops);
            }
        }
    }
    Ok(None)
}

/// Where the baked values come from.
enum Source<'a> {
    /// `--spec` values, one per SpecId, given to every declaration.
    Given(&'a BTreeMap<u32, &'a SpecValue>),
    /// Each declaration's own default, for these SpecIds.
    OwnDefaults(&'a std::collections::BTreeSet<u32>),
}

impl Source<'_> {
    fn wants(&self, id: u32) -> bool {
        match self {
            Source::Given(m) => m.contains_key(&id),
            Source::OwnDefaults(s) => s.contains(&id),
        }
    }
}

/// Turns the spec constants of the SpecIds `source` names into plain
/// constants, folding what becomes foldable.
fn rewrite(words: &Words, source: Source<'_>) -> Result<(Words, Vec<Baked>), SpirvError> {
    // Pass 1: types, SpecId decorations.
    let mut types: HashMap<u32, ScalarType> = HashMap::new();
    let mut spec_of: HashMap<u32, u32> = HashMap::new(); // target id -> SpecId
    let mut decl_types: BTreeMap<u32, Vec<ScalarType>> = BTreeMap::new();
    for inst in words.instructions() {
        let inst = inst?;
        let w = inst.words;
        match inst.opcode {
            OP_TYPE_BOOL if w.len() >= 2 => {
                types.insert(w[1], ScalarType::Bool);
            }
            OP_TYPE_INT if w.len() >= 4 => {
                let t = if w[3] == 1 {
                    ScalarType::Int(w[2])
                } else {
                    ScalarType::UInt(w[2])
                };
                types.insert(w[1], t);
            }
            OP_TYPE_FLOAT if w.len() >= 3 => {
                types.insert(w[1], ScalarType::Float(w[2]));
            }
            OP_DECORATE if w.len() >= 4 && w[2] == DECORATION_SPEC_ID && source.wants(w[3]) => {
                spec_of.insert(w[1], w[3]);
            }
            OP_SPEC_CONSTANT_TRUE | OP_SPEC_CONSTANT_FALSE | OP_SPEC_CONSTANT
                if w.len() >= 3 && spec_of.contains_key(&w[2]) =>
            {
                let ty = *types.get(&w[1]).ok_or_else(|| {
                    SpirvError::Invalid(format!("spec constant %{} has a non-scalar type", w[2]))
                })?;
                let decls = decl_types.entry(spec_of[&w[2]]).or_default();
                if !decls.contains(&ty) {
                    decls.push(ty);
                }
            }
            _ => {}
        }
    }

    // The value of each SpecId, as bits: one SpecId may be declared with
    // several types of one width (`int` and `uint`); the text is read as the
    // first of them (in module order) that accepts it, and every declaration
    // gets those bits, as Vulkan specialisation does.
    let mut values_of: HashMap<u32, Baked> = HashMap::new();
    let wanted = match source {
        Source::Given(m) => m,
        Source::OwnDefaults(_) => &BTreeMap::new(),
    };
    for (&id, decls) in decl_types.iter().filter(|(id, _)| wanted.contains_key(id)) {
        let first = decls[0];
        if let Some(other) = decls.iter().find(|t| {
            t.bits() != first.bits() || (**t == ScalarType::Bool) != (first == ScalarType::Bool)
        }) {
            return Err(SpirvError::Spec(format!(
                "--spec {id}: SpecId {id} is declared as both {first} and {other}, which one value cannot specialise"
            )));
        }
        let text = &wanted[&id].text;
        let parsed = decls
            .iter()
            .find_map(|&ty| parse_value(ty, text).ok().map(|v| (ty, v)));
        let (ty, value) = match parsed {
            Some(p) => p,
            None => {
                let e = parse_value(first, text).err().unwrap_or_default();
                return Err(SpirvError::Spec(format!("--spec {id}: {e}")));
            }
        };
        values_of.insert(
            id,
            Baked {
                id,
                ty,
                value,
                frozen: false,
                defaults: Vec::new(),
            },
        );
    }

    // Pass 2: rewrite.
    let mut body = Vec::with_capacity(words.as_slice().len());
    let mut baked: BTreeMap<u32, Baked> = BTreeMap::new();
    // Ids of plain (non-spec) constants, baked ones included.
    let mut plain: std::collections::HashSet<u32> = std::collections::HashSet::new();
    // 32-bit integer values of plain constants, and constant composites.
    let mut values: HashMap<u32, u64> = HashMap::new();
    let mut composites: HashMap<u32, Vec<u32>> = HashMap::new();
    for inst in words.instructions() {
        let inst = inst?;
        let w = inst.words;
        match inst.opcode {
            OP_DECORATE
                if w.len() >= 4 && w[2] == DECORATION_SPEC_ID && spec_of.contains_key(&w[1]) =>
            {
                // Drop: the target is a plain constant now.
            }
            OP_SPEC_CONSTANT_TRUE | OP_SPEC_CONSTANT_FALSE | OP_SPEC_CONSTANT
                if w.len() >= 3 && spec_of.contains_key(&w[2]) =>
            {
                let spec_id = spec_of[&w[2]];
                let ty = *types.get(&w[1]).ok_or_else(|| {
                    SpirvError::Invalid(format!("spec constant %{} has a non-scalar type", w[2]))
                })?;
                let b = match source {
                    Source::Given(_) => values_of.get(&spec_id).cloned(),
                    Source::OwnDefaults(_) => own_default(inst.opcode, w, ty).map(|value| Baked {
                        id: spec_id,
                        ty,
                        value,
                        frozen: true,
                        defaults: vec![value],
                    }),
                };
                let Some(b) = b else {
                    return Err(SpirvError::Invalid(format!(
                        "spec constant %{} has no value for SpecId {spec_id}",
                        w[2]
                    )));
                };
                let value = b.value;
                match baked.entry(spec_id) {
                    std::collections::btree_map::Entry::Vacant(e) => {
                        e.insert(b);
                    }
                    std::collections::btree_map::Entry::Occupied(mut e) => {
                        let first = e.get_mut();
                        if first.frozen && !first.defaults.contains(&value) {
                            first.defaults.push(value);
                        }
                    }
                }
                plain.insert(w[2]);
                if matches!(ty, ScalarType::Int(32) | ScalarType::UInt(32)) {
                    values.insert(w[2], value.0);
                }
                if ty == ScalarType::Bool {
                    let op = if value.0 != 0 {
                        OP_CONSTANT_TRUE
                    } else {
                        OP_CONSTANT_FALSE
                    };
                    body.extend([(3 << 16) | u32::from(op), w[1], w[2]]);
                } else {
                    let lits: Vec<u32> = if ty.bits() > 32 {
                        vec![value.0 as u32, (value.0 >> 32) as u32]
                    } else if matches!(ty, ScalarType::Int(b) if b < 32) {
                        // Narrow signed literals are sign-extended to a word.
                        let b = ty.bits();
                        vec![(((value.0 as u32) << (32 - b)) as i32 >> (32 - b)) as u32]
                    } else {
                        vec![value.0 as u32]
                    };
                    let count = 3 + lits.len() as u32;
                    body.extend([(count << 16) | u32::from(OP_CONSTANT), w[1], w[2]]);
                    body.extend(lits);
                }
            }
            // A spec-constant operation on plain constants only (once baked)
            // is folded into a plain constant: SPIRV-Cross emits an
            // extraction from the baked WorkgroupSize builtin
            // (`shared uint t[gl_WorkGroupSize.x]`) as an undeclared `_0`.
            OP_SPEC_CONSTANT_OP if w.len() >= 5 && !values.is_empty() => {
                match fold(w, &types, &values, &composites) {
                    Some(v) => {
                        values.insert(w[2], v);
                        plain.insert(w[2]);
                        body.extend([(4 << 16) | u32::from(OP_CONSTANT), w[1], w[2], v as u32]);
                    }
                    None => body.extend_from_slice(w),
                }
            }
            // A spec composite whose parts are all plain constants now (the
            // WorkgroupSize builtin once its SpecIds are baked) is a plain
            // composite: SPIRV-Cross otherwise emits an extraction from it
            // (`shared uint t[gl_WorkGroupSize.x]`) as an undeclared `_0`.
            OP_SPEC_CONSTANT_COMPOSITE
                if w.len() >= 3 && w[3..].iter().all(|id| plain.contains(id)) =>
            {
                plain.insert(w[2]);
                composites.insert(w[2], w[3..].to_vec());
                body.push((w[0] & 0xffff_0000) | u32::from(OP_CONSTANT_COMPOSITE));
                body.extend_from_slice(&w[1..]);
            }
            _ => {
                if matches!(
                    inst.opcode,
                    OP_CONSTANT_TRUE
                        | OP_CONSTANT_FALSE
                        | OP_CONSTANT
                        | OP_CONSTANT_COMPOSITE
                        | OP_CONSTANT_NULL
                ) && w.len() >= 3
                {
                    plain.insert(w[2]);
                    match inst.opcode {
                        OP_CONSTANT if w.len() == 4 => {
                            values.insert(w[2], u64::from(w[3]));
                        }
                        OP_CONSTANT_COMPOSITE => {
                            composites.insert(w[2], w[3..].to_vec());
                        }
                        _ => {}
                    }
                }
                body.extend_from_slice(w)
            }
        }
    }
    Ok((words.with_body(body), baked.into_values().collect()))
}

/// The default a spec-constant declaration carries, as the bits a `--spec`
/// value of its type would have (narrow signed integers sign-extended).
fn own_default(opcode: u16, w: &[u32], ty: ScalarType) -> Option<ScalarValue> {
    match opcode {
        OP_SPEC_CONSTANT_TRUE => Some(ScalarValue(1)),
        OP_SPEC_CONSTANT_FALSE => Some(ScalarValue(0)),
        _ => {
            let lo = u64::from(*w.get(3)?);
            let bits = if ty.bits() > 32 {
                lo | (u64::from(*w.get(4)?) << 32)
            } else if ty.bits() < 32 {
                lo & ((1u64 << ty.bits()) - 1)
            } else {
                lo
            };
            Some(ScalarValue(bits))
        }
    }
}

/// Evaluates a 32-bit integer `OpSpecConstantOp` whose operands are all
/// known plain constants ([`evaluate`]); `None` when it is anything else.
fn fold(
    w: &[u32],
    types: &HashMap<u32, ScalarType>,
    values: &HashMap<u32, u64>,
    composites: &HashMap<u32, Vec<u32>>,
) -> Option<u64> {
    if !matches!(
        types.get(&w[1]),
        Some(ScalarType::Int(32) | ScalarType::UInt(32))
    ) {
        return None;
    }
    let value = |id: u32| values.get(&id).map(|&v| (v, 1)).ok_or(());
    let part = |id: u32, index: u32| {
        composites
            .get(&id)
            .and_then(|parts| parts.get(index as usize))
            .copied()
            .ok_or(())
    };
    evaluate(w[3], &w[4..], value, part).ok()
}

/// The id operands of an `OpSpecConstantOp` (`w`: its words): composite and
/// shuffle operations end with literal indices, which are not ids.
fn spec_op_ids(w: &[u32]) -> &[u32] {
    const OP_COMPOSITE_EXTRACT: u32 = 81;
    const OP_COMPOSITE_INSERT: u32 = 82;
    const OP_VECTOR_SHUFFLE: u32 = 79;
    let args = &w[4..];
    match w[3] {
        OP_COMPOSITE_EXTRACT => &args[..args.len().min(1)],
        OP_COMPOSITE_INSERT | OP_VECTOR_SHUFFLE => &args[..args.len().min(2)],
        _ => args,
    }
}

#[cfg(test)]
mod tests {

    fn assemble(text: &str) -> Words {
        crate::spirv::assemble(text, spirv_tools::TargetEnv::Universal_1_3)
    }

    /// SpecId 0 on `%bs` (64) and on the workgroup size x (1); `LENGTH`
    /// sizes an array.
    fn two_declarations(length: &str) -> String {
        format!(
            "OpCapability Shader\nOpCapability Int16\nOpMemoryModel Logical GLSL450\n\
             OpEntryPoint GLCompute %main \"main\"\n\
             OpDecorate %bs SpecId 0\nOpDecorate %wx SpecId 0\nOpDecorate %sh SpecId 5\n\
             OpDecorate %wg BuiltIn WorkgroupSize\n\
             %void = OpTypeVoid\n%fn = OpTypeFunction %void\n%uint = OpTypeInt 32 0\n\
             %short = OpTypeInt 16 1\n%v3 = OpTypeVector %uint 3\n\
             %bs = OpSpecConstant %uint 64\n%wx = OpSpecConstant %uint 1\n\
             %sh = OpSpecConstant %short -3\n\
             %one = OpConstant %uint 1\n%two = OpConstant %uint 2\n\
             %wg = OpSpecConstantComposite %v3 %wx %one %one\n\
             %wgx = OpSpecConstantOp %uint CompositeExtract %wg 0\n\
             %twice = OpSpecConstantOp %uint IMul %bs %two\n\
             %both = OpSpecConstantOp %uint IMul %twice %wgx\n\
             %arr = OpTypeArray %uint {length}\n\
             %ptr = OpTypePointer Workgroup %arr\n%shared = OpVariable %ptr Workgroup\n\
             %main = OpFunction %void None %fn\n%l = OpLabel\nOpReturn\nOpFunctionEnd\n"
        )
    }

    /// Baking a value folds the signed operations over it into plain
    /// constants, with SPIR-V's semantics (reflection evaluates them the
    /// same way, through the one evaluator): `%r` = `%a OP %b` with `%a`
    /// baked to -7, then `%len` = `%r + 10` sizes a shared `uint` array.
    #[test]
    fn baking_folds_signed_operations_as_spirv_defines_them() {
        for (op, b, len) in [
            ("SDiv", "-3", 12),               // -7 / -3 = 2 (truncated)
            ("SRem", "3", 9),                 // -7 rem 3 = -1 (dividend's sign)
            ("SMod", "3", 12),                // -7 mod 3 = 2 (divisor's sign)
            ("SMod", "-3", 9),                // -7 mod -3 = -1
            ("SMod", "7", 10),                // -7 mod 7 = 0
            ("ShiftRightArithmetic", "1", 6), // -7 >> 1 = -4
            ("IMul", "-1", 17),               // 7
        ] {
            let text = format!(
                "OpCapability Shader\nOpMemoryModel Logical GLSL450\n\
                 OpEntryPoint GLCompute %main \"main\"\nOpExecutionMode %main LocalSize 1 1 1\n\
                 OpDecorate %a SpecId 0\n\
                 %void = OpTypeVoid\n%fn = OpTypeFunction %void\n%int = OpTypeInt 32 1\n\
                 %uint = OpTypeInt 32 0\n\
                 %a = OpSpecConstant %int 5\n%b = OpConstant %int {b}\n%ten = OpConstant %int 10\n\
                 %r = OpSpecConstantOp %int {op} %a %b\n\
                 %len = OpSpecConstantOp %int IAdd %r %ten\n\
                 %arr = OpTypeArray %uint %len\n\
                 %ptr = OpTypePointer Workgroup %arr\n%shared = OpVariable %ptr Workgroup\n\
                 %pu = OpTypePointer Workgroup %uint\n%zero = OpConstant %uint 0\n\
                 %main = OpFunction %void None %fn\n%l = OpLabel\n\
                 %e = OpAccessChain %pu %shared %zero\nOpStore %e %zero\nOpReturn\nOpFunctionEnd\n"
            );
            let words = assemble(&text);
            let value = SpecValue {
                id: 0,
                text: "-7".into(),
            };
            let (baked, _) = specialize(&words, &[value]).unwrap();
            let left: Vec<_> = baked
                .instructions()
                .map(|i| i.unwrap())
                .filter(|i| i.opcode == OP_SPEC_CONSTANT_OP)
                .map(|i| i.words.to_vec())
                .collect();
            assert_eq!(left, Vec::<Vec<u32>>::new(), "{op}: not folded");
            let info = crate::spirv::reflect(&baked).unwrap();
            assert_eq!(
                info.entry_points[0].threadgroup_memory_bytes,
                4 * len,
                "{op}"
            );
            crate::spirv::validate::spirv_tools(&baked).unwrap();
        }
    }

    /// A SpecId under a signed `%` in an array length is fixed (SPIRV-Cross
    /// would write `spvSMod(...)` as the length), and the operation folds:
    /// 5 % -3 = -1 (the divisor's sign), so the shared array has 1 + 3.
    #[test]
    fn a_spec_id_under_smod_in_an_array_length_is_fixed_and_folded() {
        let text = "OpCapability Shader\nOpMemoryModel Logical GLSL450\n\
             OpEntryPoint GLCompute %main \"main\"\nOpExecutionMode %main LocalSize 1 1 1\n\
             OpDecorate %a SpecId 0\nOpDecorate %b SpecId 1\nOpDecorate %v SpecId 2\n\
             %void = OpTypeVoid\n%fn = OpTypeFunction %void\n%int = OpTypeInt 32 1\n\
             %uint = OpTypeInt 32 0\n\
             %a = OpSpecConstant %int 5\n%b = OpSpecConstant %int -3\n%v = OpSpecConstant %int 4\n\
             %three = OpConstant %int 3\n\
             %m = OpSpecConstantOp %int SMod %a %b\n%len = OpSpecConstantOp %int IAdd %m %three\n\
             %arr = OpTypeArray %uint %len\n\
             %ptr = OpTypePointer Workgroup %arr\n%shared = OpVariable %ptr Workgroup\n\
             %pu = OpTypePointer Workgroup %uint\n%zero = OpConstant %uint 0\n\
             %main = OpFunction %void None %fn\n%l = OpLabel\n\
             %e = OpAccessChain %pu %shared %zero\nOpStore %e %zero\nOpReturn\nOpFunctionEnd\n";
        let words = assemble(text);
        // SpecId 2 sizes nothing: it stays settable.
        assert_eq!(array_size_conflicts(&words).unwrap(), [0, 1]);
        let (frozen, baked) = freeze(&words, &[0, 1]).unwrap();
        assert!(baked.iter().all(|b| b.frozen));
        assert!(frozen
            .instructions()
            .all(|i| i.unwrap().opcode != OP_SPEC_CONSTANT_OP));
        let info = crate::spirv::reflect(&frozen).unwrap();
        assert_eq!(info.entry_points[0].threadgroup_memory_bytes, 4 * 2);
        assert!(smod_in_array_length(&words).unwrap().is_some());
        assert_eq!(smod_in_array_length(&frozen).unwrap(), None);
        // Over plain constants, nothing is fixed and the SMod stays.
        let plain = assemble(
            &text
                .replace("OpDecorate %a SpecId 0\nOpDecorate %b SpecId 1\n", "")
                .replace(
                    "%a = OpSpecConstant %int 5\n%b = OpSpecConstant %int -3",
                    "%a = OpConstant %int 5\n%b = OpConstant %int -3",
                ),
        );
        assert!(array_size_conflicts(&plain).unwrap().is_empty());
        assert!(smod_in_array_length(&plain).unwrap().is_some());
    }

    #[test]
    fn a_spec_id_sizing_an_array_and_read_as_a_value_is_a_conflict() {
        // Directly, and through a spec-constant operation.
        for length in ["%bs", "%twice"] {
            let words = assemble(&two_declarations(length));
            assert_eq!(array_size_conflicts(&words).unwrap(), [0], "{length}");
        }
        // Through the workgroup size composite, every part is an array
        // length: SpecId 0's other declaration, %bs, is then the value.
        let words = assemble(&two_declarations("%wgx"));
        assert_eq!(array_size_conflicts(&words).unwrap(), [0]);
        // A plain length: nothing sizes an array by a SpecId.
        let words = assemble(&two_declarations("%two"));
        assert!(array_size_conflicts(&words).unwrap().is_empty());
    }

    /// Both declarations of SpecId 0 in one array length (SPIRV-Cross's
    /// `workgroup-size-spec-constant-array`: `float D[A * gl_WorkGroupSize.x]`
    /// with `A` and `local_size_x_id` on SpecId 0): SPIRV-Cross would fix
    /// the SpecId whole at the first default, 64, where Vulkan gives the
    /// workgroup size its own, 1; with equal defaults nothing differs.
    #[test]
    fn a_spec_id_whose_declarations_all_size_arrays_with_different_defaults_is_a_conflict() {
        let words = assemble(&two_declarations("%both"));
        assert_eq!(array_size_conflicts(&words).unwrap(), [0]);
        let same = two_declarations("%both").replace(
            "%wx = OpSpecConstant %uint 1",
            "%wx = OpSpecConstant %uint 64",
        );
        assert!(array_size_conflicts(&assemble(&same)).unwrap().is_empty());
    }

    #[test]
    fn freezing_keeps_each_declarations_own_default() {
        let words = assemble(&two_declarations("%bs"));
        let (frozen, baked) = freeze(&words, &[0, 5]).unwrap();
        // No spec constant and no SpecId is left; %bs is 64 and %wx 1; the
        // 16-bit signed -3 keeps its bits.
        let mut constants = Vec::new();
        for inst in frozen.instructions() {
            let inst = inst.unwrap();
            assert!(
                !matches!(
                    inst.opcode,
                    OP_SPEC_CONSTANT | OP_SPEC_CONSTANT_TRUE | OP_SPEC_CONSTANT_FALSE
                ),
                "{:?}",
                inst.words
            );
            assert!(!(inst.opcode == OP_DECORATE && inst.words[2] == DECORATION_SPEC_ID));
            if inst.opcode == OP_CONSTANT {
                constants.push(inst.words[3]);
            }
            // The composite of plain constants is a plain composite.
            assert_ne!(inst.opcode, OP_SPEC_CONSTANT_COMPOSITE);
        }
        // `%wgx` 1, `%twice` 128, `%both` 128 x 1.
        assert_eq!(constants, [64, 1, 0xffff_fffd, 1, 2, 1, 128, 128]);
        assert_eq!(baked.len(), 2);
        assert!(baked.iter().all(|b| b.frozen));
        assert_eq!((baked[0].id, baked[0].value.0), (0, 64));
        assert_eq!((baked[1].id, baked[1].value.0), (5, 0xfffd));
        // The rewritten module is valid SPIR-V.
        crate::spirv::validate::spirv_tools(&frozen).unwrap();
        // Nothing asked, nothing changed.
        assert_eq!(freeze(&words, &[]).unwrap().0.as_slice(), words.as_slice());
    }

    use super::*;

    #[test]
    fn spec_value_parses_id_and_text() {
        let v: SpecValue = "3=-4".parse().unwrap();
        assert_eq!(
            v,
            SpecValue {
                id: 3,
                text: "-4".into()
            }
        );
        assert!("3".parse::<SpecValue>().is_err());
        assert!("x=1".parse::<SpecValue>().is_err());
        assert!("1=".parse::<SpecValue>().is_err());
    }

    #[test]
    fn values_are_parsed_by_type() {
        assert_eq!(parse_value(ScalarType::Bool, "true").unwrap().0, 1);
        assert!(parse_value(ScalarType::Bool, "yes").is_err());
        assert_eq!(
            parse_value(ScalarType::Int(32), "-4").unwrap().0,
            0xffff_fffc
        );
        assert_eq!(parse_value(ScalarType::UInt(32), "0x10").unwrap().0, 16);
        assert!(parse_value(ScalarType::UInt(32), "-1").is_err());
        assert!(parse_value(ScalarType::UInt(8), "256").is_err());
        assert!(parse_value(ScalarType::Int(8), "-129").is_err());
        assert_eq!(
            parse_value(ScalarType::Float(32), "2.5").unwrap().0,
            u64::from(2.5f32.to_bits())
        );
        assert_eq!(parse_value(ScalarType::Float(16), "1.0").unwrap().0, 0x3c00);
        assert_eq!(parse_value(ScalarType::Float(16), "-2").unwrap().0, 0xc000);
        assert_eq!(
            parse_value(ScalarType::Float(64), "0.1").unwrap().0,
            0.1f64.to_bits()
        );
        assert!(parse_value(ScalarType::Float(32), "abc").is_err());
    }
}
