//! Bounds of the literal indices in spec-constant composite operations.
//!
//! `OpSpecConstantOp` with `CompositeExtract`, `CompositeInsert` or
//! `VectorShuffle` carries literal indices that SPIR-V requires to be in
//! range, but SPIRV-Tools' validator does not check them there (it does for
//! the ordinary instructions), and SPIRV-Cross uses them unchecked: an
//! extract past the end of a vector came out as another component (`_13.x`
//! for index 5 of a `uint2`), a shuffle index past both vectors as a
//! swizzle letter read beyond `"xyzw"`, and an insert past the end of an
//! array wrote outside SPIRV-Cross's list of its elements (a fuzzing
//! find: a segfault). halc checks them, in the one pass of
//! [`super::validate::check`], from the types and constants declared before
//! each operation, as SPIR-V declares them.

use std::collections::HashMap;

use super::binary::RawInstruction;

const OP_TYPE_INT: u16 = 21;
const OP_TYPE_VECTOR: u16 = 23;
const OP_TYPE_MATRIX: u16 = 24;
const OP_TYPE_ARRAY: u16 = 28;
const OP_TYPE_STRUCT: u16 = 30;
const OP_CONSTANT: u16 = 43;
const OP_SPEC_CONSTANT_OP: u16 = 52;

/// Operations of `OpSpecConstantOp` (its `words[3]`) that take literal indices.
pub(super) const VECTOR_SHUFFLE: u32 = 79;
pub(super) const COMPOSITE_EXTRACT: u32 = 81;
pub(super) const COMPOSITE_INSERT: u32 = 82;

/// Whether `op` makes a module-level value an operation can take as its
/// composite: undef (1), constants (`OpConstantTrue` to `OpConstantNull`,
/// 41 to 46) and spec constants (`OpSpecConstantTrue` to
/// `OpSpecConstantOp`, 48 to 52); `words[1]` is their type. Asked of every
/// instruction of a module.
#[inline]
pub(super) fn is_value_op(op: u16) -> bool {
    matches!(op, 1 | 41..=46 | 48..=52)
}

/// What an index can select in a type.
enum Shape {
    /// Vector, matrix or array (`what`, and what a part of it is called):
    /// how many parts (an array's length is a constant's id), all of type
    /// `part`.
    Parts {
        count: Count,
        part: u32,
        what: (&'static str, &'static str),
    },
    /// A struct's member types.
    Members(Vec<u32>),
}

enum Count {
    Known(u64),
    /// An array whose length is the constant with this id.
    Length(u32),
}

/// The types and constants seen so far.
#[derive(Default)]
pub(super) struct SpecIndices {
    shapes: HashMap<u32, Shape>,
    int_types: Vec<u32>,
    type_of: HashMap<u32, u32>,
    /// Integer `OpConstant`s (array lengths; scopes and memory semantics).
    values: HashMap<u32, u64>,
}

impl SpecIndices {
    /// Takes one instruction of the module, in order: an error for a
    /// spec-constant composite operation with an index out of range.
    #[inline]
    pub(super) fn see(&mut self, inst: &RawInstruction<'_>) -> Result<(), String> {
        // Every opcode below is at most OpSpecConstantOp's; function bodies
        // (most of a module) are made of larger ones.
        if inst.opcode > OP_SPEC_CONSTANT_OP {
            return Ok(());
        }
        self.see_declaration(inst)
    }

    /// The value of an integer `OpConstant` seen so far.
    pub(super) fn constant(&self, id: u32) -> Option<u64> {
        self.values.get(&id).copied()
    }

    fn see_declaration(&mut self, inst: &RawInstruction<'_>) -> Result<(), String> {
        let w = inst.words;
        match inst.opcode {
            OP_TYPE_INT if w.len() >= 2 => self.int_types.push(w[1]),
            OP_TYPE_VECTOR | OP_TYPE_MATRIX if w.len() >= 4 => {
                let shape = Shape::Parts {
                    count: Count::Known(u64::from(w[3])),
                    part: w[2],
                    what: if inst.opcode == OP_TYPE_VECTOR {
                        ("a vector", "component")
                    } else {
                        ("a matrix", "column")
                    },
                };
                self.shapes.insert(w[1], shape);
            }
            OP_TYPE_ARRAY if w.len() >= 4 => {
                let shape = Shape::Parts {
                    count: Count::Length(w[3]),
                    part: w[2],
                    what: ("an array", "element"),
                };
                self.shapes.insert(w[1], shape);
            }
            OP_TYPE_STRUCT if w.len() >= 2 => {
                self.shapes.insert(w[1], Shape::Members(w[2..].to_vec()));
            }
            _ => {}
        }
        if is_value_op(inst.opcode) && w.len() >= 3 {
            self.type_of.insert(w[2], w[1]);
            if inst.opcode == OP_CONSTANT && w.len() >= 4 && self.int_types.contains(&w[1]) {
                let high = w.get(4).map_or(0, |h| u64::from(*h) << 32);
                self.values.insert(w[2], u64::from(w[3]) | high);
            }
        }
        if inst.opcode != OP_SPEC_CONSTANT_OP || w.len() < 4 {
            return Ok(());
        }
        match w[3] {
            COMPOSITE_EXTRACT if w.len() >= 5 => self.walk("CompositeExtract", w[4], &w[5..]),
            COMPOSITE_INSERT if w.len() >= 6 => self.walk("CompositeInsert", w[5], &w[6..]),
            VECTOR_SHUFFLE if w.len() >= 6 => {
                let size = |v: u32| match self.type_of.get(&v).and_then(|t| self.shapes.get(t)) {
                    Some(Shape::Parts {
                        count: Count::Known(n),
                        ..
                    }) => Some(*n),
                    _ => None,
                };
                // Vectors the validator has not seen typed are its to refuse.
                let (Some(a), Some(b)) = (size(w[4]), size(w[5])) else {
                    return Ok(());
                };
                match w[6..]
                    .iter()
                    .find(|&&c| c != u32::MAX && u64::from(c) >= a + b)
                {
                    Some(c) => Err(format!(
                        "VectorShuffle component {c} is out of range for vectors of {a} and {b} components"
                    )),
                    None => Ok(()),
                }
            }
            _ => Ok(()),
        }
    }

    /// The value of integer `OpConstant` `id`, if one was seen.
    pub(super) fn int_constant(&self, id: u32) -> Option<u64> {
        self.values.get(&id).copied()
    }

    /// Follows `indices` into the type of `composite`.
    fn walk(&self, op: &str, composite: u32, indices: &[u32]) -> Result<(), String> {
        // An operand that is not a module-level value is the validator's to refuse.
        let Some(&(mut ty)) = self.type_of.get(&composite) else {
            return Ok(());
        };
        for &index in indices {
            let Some(shape) = self.shapes.get(&ty) else {
                return Err(format!(
                    "{op} index {index} selects in a value that is not a composite"
                ));
            };
            let (count, (kind, part)) = match shape {
                Shape::Parts { count, what, .. } => match count {
                    Count::Known(n) => (*n, *what),
                    Count::Length(id) => match self.values.get(id) {
                        Some(n) => (*n, *what),
                        None => return Err(format!(
                            "{op} index {index} selects in an array whose length is a specialization constant, which halc has not tested"
                        )),
                    },
                },
                Shape::Members(members) => (members.len() as u64, ("a struct", "member")),
            };
            if u64::from(index) >= count {
                let s = if count == 1 { "" } else { "s" };
                return Err(format!(
                    "{op} index {index} is out of range for {kind} of {count} {part}{s}"
                ));
            }
            ty = match shape {
                Shape::Parts { part, .. } => *part,
                Shape::Members(members) => match members.get(index as usize) {
                    Some(t) => *t,
                    None => return Ok(()),
                },
            };
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ranges are the list, and `see` skips nothing by skipping the
    /// opcodes larger than OpSpecConstantOp's.
    #[test]
    fn the_value_op_ranges_are_the_list_and_larger_opcodes_are_nothing_to_see() {
        // OpUndef, OpConstantTrue/False, OpConstant, OpConstantComposite,
        // OpConstantSampler, OpConstantNull, OpSpecConstantTrue/False,
        // OpSpecConstant, OpSpecConstantComposite, OpSpecConstantOp.
        const VALUE_OPS: &[u16] = &[1, 41, 42, 43, 44, 45, 46, 48, 49, 50, 51, 52];
        for op in 0..=u16::MAX {
            assert_eq!(is_value_op(op), VALUE_OPS.contains(&op), "{op}");
        }
        // Whatever its operands, an instruction with a larger opcode
        // changes nothing and refuses nothing in the full reading.
        let mut words = [0u32; 8];
        for op in OP_SPEC_CONSTANT_OP + 1..=u16::MAX {
            for (i, w) in words.iter_mut().enumerate().skip(1) {
                *w = [1, 2, 0, COMPOSITE_EXTRACT, 5, 9][i % 6];
            }
            words[0] = (8 << 16) | u32::from(op);
            let inst = RawInstruction {
                offset: 5,
                opcode: op,
                words: &words,
            };
            let mut s = SpecIndices::default();
            assert_eq!(s.see_declaration(&inst), Ok(()), "{op}");
            assert!(
                s.shapes.is_empty()
                    && s.int_types.is_empty()
                    && s.type_of.is_empty()
                    && s.values.is_empty(),
                "{op}"
            );
        }
    }
}
