//! The one evaluator of integer `OpSpecConstantOp`s at build time, for
//! reflection (array sizes such as `shared float t[gl_WorkGroupSize.x * 2]`,
//! with the defaults) and for specialization (folding an operation whose
//! operands are all plain constants once `--spec` values are baked). Each
//! caller says how to read an operand's value and a constant composite's
//! parts; the arithmetic, as SPIR-V defines it, is here.

use rspirv::spirv::Op;

/// Why an operation has no value here.
#[derive(Debug)]
pub(super) enum Refused<E> {
    /// Reading an operand failed (the caller's reason).
    Operand(E),
    /// An operand the opcode needs is missing.
    Missing,
    /// The opcode is not one SPIR-V defines.
    UnknownOpcode(u32),
    /// The operation is not evaluated here (`op`), or has no value (a zero
    /// divisor, a shift past the width, `i32::MIN / -1`, a 64-bit operand of
    /// a 32-bit signed, comparison or logical operation).
    Unsupported(Op),
}

/// Evaluates `OpSpecConstantOp` `opcode` on `operands` (the words after the
/// opcode: ids, and for `CompositeExtract` the literal indices after the
/// composite). `value` gives an operand id's bits and its literal word count
/// (1, or 2 for a 64-bit type; narrower signed literals sign-extended to a
/// word, as SPIR-V stores them); `part` gives the id of part `index` of the
/// constant composite `id`. The result is the low 32 bits.
pub(super) fn evaluate<E>(
    opcode: u32,
    operands: &[u32],
    value: impl Fn(u32) -> Result<(u64, usize), E>,
    part: impl Fn(u32, u32) -> Result<u32, E>,
) -> Result<u64, Refused<E>> {
    let op = Op::from_u32(opcode).ok_or(Refused::UnknownOpcode(opcode))?;
    let id = |i: usize| operands.get(i).copied().ok_or(Refused::Missing);
    let arg = |i: usize| -> Result<u64, Refused<E>> {
        value(id(i)?).map(|v| v.0).map_err(Refused::Operand)
    };
    let unsupported = Refused::Unsupported(op);
    // The signed, comparison and logical operations read their operands as
    // 32-bit values: a 64-bit operand is refused.
    let word = |i: usize| -> Result<u32, Refused<E>> {
        match value(id(i)?).map_err(Refused::Operand)? {
            (_, 2) => Err(Refused::Unsupported(op)),
            (v, _) => Ok(v as u32),
        }
    };
    let int = |i: usize| word(i).map(|w| w as i32);
    let some = |v: Option<u64>| v.ok_or(Refused::Unsupported(op));
    Ok(match op {
        Op::CompositeExtract => {
            // Follow every index through nested constant composites.
            let mut at = id(0)?;
            for &index in operands.get(1..).unwrap_or_default() {
                at = part(at, index).map_err(Refused::Operand)?;
            }
            value(at).map_err(Refused::Operand)?.0
        }
        Op::IAdd => arg(0)?.wrapping_add(arg(1)?),
        Op::ISub => arg(0)?.wrapping_sub(arg(1)?),
        Op::IMul => arg(0)?.wrapping_mul(arg(1)?),
        Op::UDiv => some(arg(0)?.checked_div(arg(1)?))?,
        Op::UMod => some(arg(0)?.checked_rem(arg(1)?))?,
        Op::ShiftLeftLogical => some(arg(0)?.checked_shl(arg(1)? as u32))?,
        Op::ShiftRightLogical => some(arg(0)?.checked_shr(arg(1)? as u32))?,
        Op::BitwiseAnd => arg(0)? & arg(1)?,
        Op::BitwiseOr => arg(0)? | arg(1)?,
        Op::BitwiseXor => arg(0)? ^ arg(1)?,
        Op::UConvert | Op::SConvert | Op::Bitcast => arg(0)?,
        // Signed operations on the 32-bit values, as SPIR-V defines them:
        // SDiv truncates, SRem takes the sign of the dividend, SMod the sign
        // of the divisor.
        Op::SDiv | Op::SRem | Op::SMod => {
            let (a, b) = (int(0)?, int(1)?);
            let q = match op {
                Op::SDiv => a.checked_div(b),
                Op::SRem => a.checked_rem(b),
                _ => a.checked_rem(b).map(|r| {
                    if r != 0 && (r < 0) != (b < 0) {
                        r + b
                    } else {
                        r
                    }
                }),
            };
            some(q.map(|q| u64::from(q as u32)))?
        }
        Op::SNegate => u64::from(int(0)?.wrapping_neg() as u32),
        Op::Not => u64::from(!word(0)?),
        Op::ShiftRightArithmetic => {
            let n = Some(word(1)?).filter(|n| *n < 32).ok_or(unsupported)?;
            u64::from((int(0)? >> n) as u32)
        }
        // Comparisons and logic give a bool: 1 or 0.
        Op::IEqual | Op::LogicalEqual => u64::from(word(0)? == word(1)?),
        Op::INotEqual | Op::LogicalNotEqual => u64::from(word(0)? != word(1)?),
        Op::ULessThan => u64::from(word(0)? < word(1)?),
        Op::ULessThanEqual => u64::from(word(0)? <= word(1)?),
        Op::UGreaterThan => u64::from(word(0)? > word(1)?),
        Op::UGreaterThanEqual => u64::from(word(0)? >= word(1)?),
        Op::SLessThan => u64::from(int(0)? < int(1)?),
        Op::SLessThanEqual => u64::from(int(0)? <= int(1)?),
        Op::SGreaterThan => u64::from(int(0)? > int(1)?),
        Op::SGreaterThanEqual => u64::from(int(0)? >= int(1)?),
        Op::LogicalAnd => u64::from(arg(0)? != 0 && arg(1)? != 0),
        Op::LogicalOr => u64::from(arg(0)? != 0 || arg(1)? != 0),
        Op::LogicalNot => u64::from(arg(0)? == 0),
        Op::Select => {
            if arg(0)? != 0 {
                arg(1)?
            } else {
                arg(2)?
            }
        }
        _ => return Err(unsupported),
    } & 0xffff_ffff)
}
