//! Build-time specialization: `--spec ID=VALUE` turns every spec constant
//! carrying that SpecId into a plain constant with the given value.
//!
//! This is a word-level rewrite of the module, done before reflection and
//! before SPIRV-Cross, so every later stage (workgroup sizes, array sizes,
//! threadgroup memory, the MSL) sees the baked value and the constant is no
//! longer a Metal function constant.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use super::reflect::{ScalarType, ScalarValue};
use super::{SpirvError, Words};

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

/// A value given on the command line for a SpecId, still as text: it is
/// parsed by the constant's type once that is known.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct SpecValue {
    /// SpecId.
    pub id: u32,
    /// Text as given (`true`, `-4`, `0x10`, `2.5`).
    pub text: String,
}

impl std::str::FromStr for SpecValue {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let (id, text) = s
            .split_once('=')
            .ok_or_else(|| format!("`{s}`: expected ID=VALUE"))?;
        let id = id
            .trim()
            .parse::<u32>()
            .map_err(|_| format!("`{s}`: spec constant id `{id}` is not a non-negative integer"))?;
        let text = text.trim();
        if text.is_empty() {
            return Err(format!("`{s}`: missing value"));
        }
        Ok(SpecValue {
            id,
            text: text.to_string(),
        })
    }
}

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

/// A value baked into a module.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Baked {
    /// SpecId.
    pub id: u32,
    /// Type of the constant.
    pub ty: ScalarType,
    /// Bits.
    pub value: ScalarValue,
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
            OP_DECORATE
                if w.len() >= 4 && w[2] == DECORATION_SPEC_ID && wanted.contains_key(&w[3]) =>
            {
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
    for (&id, decls) in &decl_types {
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
        values_of.insert(id, Baked { id, ty, value });
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
                let Some(b) = values_of.get(&spec_id) else {
                    return Err(SpirvError::Invalid(format!(
                        "spec constant %{} has no value for SpecId {spec_id}",
                        w[2]
                    )));
                };
                let value = b.value;
                baked.entry(spec_id).or_insert_with(|| b.clone());
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

/// Evaluates a 32-bit integer `OpSpecConstantOp` whose operands are all
/// known plain constants; `None` when it is anything else.
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
    let arg = |i: usize| w.get(i).and_then(|id| values.get(id)).copied();
    let (a, b) = (|| arg(4), || arg(5));
    let v = match w[3] {
        81 => {
            // CompositeExtract: follow the literal indices.
            let mut id = *w.get(4)?;
            for &index in &w[5..] {
                id = *composites.get(&id)?.get(index as usize)?;
            }
            values.get(&id).copied()?
        }
        128 => a()?.wrapping_add(b()?),
        130 => a()?.wrapping_sub(b()?),
        132 => a()?.wrapping_mul(b()?),
        134 => a()?.checked_div(b()?)?,
        137 => a()?.checked_rem(b()?)?,
        194 => a()?.checked_shr(u32::try_from(b()?).ok()?)?,
        196 => a()?.checked_shl(u32::try_from(b()?).ok()?)?,
        197 => a()? | b()?,
        198 => a()? ^ b()?,
        199 => a()? & b()?,
        _ => return None,
    };
    Some(v & 0xffff_ffff)
}

#[cfg(test)]
mod tests {
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
