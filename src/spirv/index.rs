//! A module parsed once and indexed for the readers after it (reflection
//! and block reflection): instructions by id, names and decorations, the
//! constants' values, the types' explicit sizes, function bodies and the ids
//! each entry point uses.

use std::collections::BTreeSet;

use rustc_hash::FxHashMap;

use rspirv::spirv::{self, Decoration, Op};

use super::inst::Inst;
use super::spec_op::{evaluate, Refused};
use super::types::ScalarType;
use super::{SpirvError, Words};

/// Every instruction of `words` (see [`super::inst`]).
pub(crate) fn parse(words: &Words) -> Result<Vec<Inst<'_>>, SpirvError> {
    super::inst::parse(words)
}

pub(super) fn invalid(msg: impl Into<String>) -> SpirvError {
    SpirvError::Invalid(msg.into())
}

/// The instruction defining each id: ids are dense below the module's
/// bound, so a vector indexed by id (a hash map cost a tenth of reflecting
/// a large kernel, most of it faulting in its table in a cold process).
/// Reflection runs before the validator's verdict: an id past SPIR-V's
/// limit goes to a map, and of two definitions of one id the last counts.
struct ById<'a> {
    insts: &'a [Inst<'a>],
    /// Id -> index + 1 into `insts`; 0 for none.
    dense: Vec<u32>,
    beyond: FxHashMap<u32, u32>,
}

impl<'a> ById<'a> {
    fn new(insts: &'a [Inst<'a>]) -> Self {
        let max = insts
            .iter()
            .filter_map(|i| i.result_id)
            .filter(|&id| id < UsedIds::DENSE)
            .max()
            .unwrap_or(0);
        let mut dense = vec![0u32; max as usize + 1];
        let mut beyond = FxHashMap::default();
        for (n, inst) in insts.iter().enumerate() {
            let Some(id) = inst.result_id else { continue };
            let n = u32::try_from(n + 1).unwrap_or(u32::MAX);
            match dense.get_mut(id as usize) {
                Some(slot) => *slot = n,
                None => {
                    beyond.insert(id, n);
                }
            }
        }
        ById {
            insts,
            dense,
            beyond,
        }
    }

    fn get(&self, id: u32) -> Option<&'a Inst<'a>> {
        let n = match self.dense.get(id as usize) {
            Some(&n) => n,
            None => self.beyond.get(&id).copied().unwrap_or(0),
        };
        let insts: &'a [Inst<'a>] = self.insts;
        n.checked_sub(1).and_then(|n| insts.get(n as usize))
    }
}

/// (struct, member) → (decoration, its first literal) of each decoration.
type MemberDecorations = FxHashMap<(u32, u32), Vec<(u32, Option<u32>)>>;

/// Indexed view of a module.
pub(super) struct Index<'a> {
    pub(super) insts: &'a [Inst<'a>],
    by_id: ById<'a>,
    pub(super) names: FxHashMap<u32, String>,
    pub(super) decorations: FxHashMap<u32, Vec<&'a Inst<'a>>>,
    /// (decoration, its first literal) of each struct member.
    member_decorations: MemberDecorations,
    /// [`used_ids`] of each entry function, computed once for reflection
    /// and block reflection.
    used: std::cell::RefCell<FxHashMap<u32, std::rc::Rc<UsedIds>>>,
}

impl<'a> Index<'a> {
    pub(super) fn new(insts: &'a [Inst<'a>]) -> Self {
        let by_id = ById::new(insts);
        let mut names = FxHashMap::default();
        let mut decorations: FxHashMap<u32, Vec<&Inst>> = FxHashMap::default();
        let mut member_decorations = MemberDecorations::default();
        // Decoration groups (`OpGroupDecorate`, `OpGroupMemberDecorate`):
        // the group's decorations apply to each target, read after every
        // `OpDecorate` of the group.
        let mut group_targets: Vec<&Inst> = Vec::new();
        for inst in insts {
            match inst.op {
                Op::Name => {
                    // A name that is not a string is no name (the validator
                    // has the last word on the module).
                    if let (Some(id), Ok((s, _))) = (inst.word(0), inst.string(1)) {
                        if !s.is_empty() {
                            names.insert(id, s);
                        }
                    }
                }
                Op::Decorate => {
                    if let Some(id) = inst.word(0) {
                        decorations.entry(id).or_default().push(inst);
                    }
                }
                Op::MemberDecorate => {
                    if let (Some(id), Some(m), Some(d)) = (inst.word(0), inst.word(1), inst.word(2))
                    {
                        member_decorations
                            .entry((id, m))
                            .or_default()
                            .push((d, inst.word(3)));
                    }
                }
                Op::GroupDecorate | Op::GroupMemberDecorate => group_targets.push(inst),
                _ => {}
            }
        }
        for inst in group_targets {
            let Some(group) = inst.word(0) else { continue };
            let of_group: Vec<&Inst> = decorations.get(&group).cloned().unwrap_or_default();
            if inst.op == Op::GroupDecorate {
                for &target in inst.operands.get(1..).unwrap_or(&[]) {
                    decorations
                        .entry(target)
                        .or_default()
                        .extend(of_group.iter().copied());
                }
            } else {
                for pair in inst.operands.get(1..).unwrap_or(&[]).chunks_exact(2) {
                    let entry = member_decorations.entry((pair[0], pair[1])).or_default();
                    entry.extend(
                        of_group
                            .iter()
                            .filter_map(|d| Some((d.word(1)?, d.word(2)))),
                    );
                }
            }
        }
        Index {
            insts,
            by_id,
            names,
            decorations,
            member_decorations,
            used: Default::default(),
        }
    }

    pub(super) fn get(&self, id: u32) -> Result<&'a Inst<'a>, SpirvError> {
        self.by_id
            .get(id)
            .ok_or_else(|| invalid(format!("id %{id} is used but never defined")))
    }

    /// Words a literal of id `id`'s type takes, `id` being a type or a
    /// value: 2 for a 64-bit integer or float, 1 otherwise (what rspirv's
    /// parser reads for `OpSwitch` cases and constants).
    pub(super) fn literal_words(&self, id: u32) -> usize {
        let width = |t: &Inst<'_>| match t.op {
            Op::TypeInt | Op::TypeFloat => t.word(0),
            _ => None,
        };
        let Some(inst) = self.by_id.get(id) else {
            return 1;
        };
        let bits = width(inst).or_else(|| {
            inst.result_type
                .and_then(|t| self.by_id.get(t))
                .and_then(width)
        });
        if bits == Some(64) {
            2
        } else {
            1
        }
    }

    /// The first extra operand of decoration `d` on `id`, or `Some(0)`-less
    /// presence check via [`Index::has`].
    pub(super) fn decoration(&self, id: u32, d: Decoration) -> Option<&'a Inst<'a>> {
        self.decorations
            .get(&id)
            .and_then(|v| v.iter().copied().find(|i| i.word(1) == Some(d as u32)))
    }

    pub(super) fn decoration_lit(&self, id: u32, d: Decoration) -> Option<u32> {
        self.decoration(id, d).and_then(|i| i.word(2))
    }

    pub(super) fn has(&self, id: u32, d: Decoration) -> bool {
        self.decoration(id, d).is_some()
    }

    pub(super) fn member_decoration_lit(&self, id: u32, member: u32, d: Decoration) -> Option<u32> {
        self.member_decorations.get(&(id, member)).and_then(|v| {
            v.iter()
                .find(|(k, _)| *k == d as u32)
                .map(|(_, lit)| lit.unwrap_or(0))
        })
    }

    pub(super) fn member_has(&self, id: u32, member: u32, d: Decoration) -> bool {
        self.member_decoration_lit(id, member, d).is_some()
    }

    /// Integer value of a (spec) constant: its current default.
    pub(super) fn const_u64(&self, id: u32) -> Result<u64, SpirvError> {
        let inst = self.get(id)?;
        match inst.op {
            // The value's words: one for types of 32 bits or fewer, two
            // (low word first) for 64-bit types.
            Op::Constant | Op::SpecConstant => match *inst.operands {
                [v] => Ok(u64::from(v)),
                [lo, hi] => Ok(u64::from(hi) << 32 | u64::from(lo)),
                _ => Err(invalid(format!("constant %{id} has no literal value"))),
            },
            Op::ConstantTrue | Op::SpecConstantTrue => Ok(1),
            Op::ConstantFalse | Op::SpecConstantFalse | Op::ConstantNull => Ok(0),
            Op::SpecConstantOp => self.spec_op(id, inst),
            op => Err(invalid(format!("%{id} is Op{op:?}, expected a constant"))),
        }
    }

    /// Evaluates the integer `OpSpecConstantOp`s that size arrays (e.g.
    /// `shared float t[gl_WorkGroupSize.x * 2]`) with current defaults.
    fn spec_op(&self, id: u32, inst: &Inst<'_>) -> Result<u64, SpirvError> {
        let opcode = inst
            .word(0)
            .ok_or_else(|| invalid(format!("%{id}: malformed OpSpecConstantOp")))?;
        let operands = inst.operands.get(1..).unwrap_or_default();
        let value = |a: u32| Ok((self.const_u64(a)?, self.literal_words(a)));
        let part = |c: u32, index: u32| -> Result<u32, SpirvError> {
            let comp = self.get(c)?;
            if !matches!(comp.op, Op::ConstantComposite | Op::SpecConstantComposite) {
                return Err(SpirvError::Unsupported(format!(
                    "%{id} is an OpSpecConstantOp CompositeExtract of %{c} (Op{:?}), which halc cannot evaluate at build time",
                    comp.op
                )));
            }
            comp.word(index as usize).ok_or_else(|| {
                invalid(format!(
                    "%{id}: index {index} past the end of composite %{c}"
                ))
            })
        };
        evaluate(opcode, operands, value, part).map_err(|r| match r {
            Refused::Operand(e) => e,
            Refused::Missing => invalid(format!("%{id}: missing operand")),
            Refused::UnknownOpcode(n) => SpirvError::Unsupported(format!(
                "%{id} is an OpSpecConstantOp of unknown opcode {n}, which halc cannot evaluate at build time"
            )),
            Refused::Unsupported(op) => SpirvError::Unsupported(format!(
                "%{id} is an OpSpecConstantOp {op:?}, which halc cannot evaluate at build time"
            )),
        })
    }

    pub(super) fn scalar_type(&self, type_id: u32) -> Result<ScalarType, SpirvError> {
        let t = self.get(type_id)?;
        match t.op {
            Op::TypeBool => Ok(ScalarType::Bool),
            Op::TypeInt => {
                let w = t.word(0).unwrap_or(32);
                Ok(if t.word(1) == Some(1) {
                    ScalarType::Int(w)
                } else {
                    ScalarType::UInt(w)
                })
            }
            Op::TypeFloat => Ok(ScalarType::Float(t.word(0).unwrap_or(32))),
            op => Err(invalid(format!(
                "%{type_id} is Op{op:?}, expected a scalar type"
            ))),
        }
    }

    /// Size in bytes of a type laid out with explicit `Offset`/`ArrayStride`
    /// decorations (buffer blocks, push constants). Returns (size, trailing
    /// runtime-array stride).
    pub(super) fn explicit_size(&self, type_id: u32, depth: u32) -> Result<(u64, u32), SpirvError> {
        if depth > 64 {
            return Err(invalid("type nesting deeper than 64"));
        }
        let t = self.get(type_id)?;
        Ok(match t.op {
            Op::TypeBool => (4, 0),
            Op::TypeInt | Op::TypeFloat => (u64::from(t.word(0).unwrap_or(32) / 8), 0),
            Op::TypeVector => {
                let (c, _) = self.explicit_size(t.word(0).unwrap_or(0), depth + 1)?;
                (c * u64::from(t.word(1).unwrap_or(0)), 0)
            }
            Op::TypeMatrix => {
                // Without the member's MatrixStride we fall back to tight columns.
                let (c, _) = self.explicit_size(t.word(0).unwrap_or(0), depth + 1)?;
                (c * u64::from(t.word(1).unwrap_or(0)), 0)
            }
            Op::TypeArray => {
                let len = self.const_u64(t.word(1).unwrap_or(0))?;
                let stride = match self.decoration_lit(type_id, Decoration::ArrayStride) {
                    Some(s) => u64::from(s),
                    None => self.explicit_size(t.word(0).unwrap_or(0), depth + 1)?.0,
                };
                (stride.saturating_mul(len), 0)
            }
            Op::TypeRuntimeArray => {
                let stride = match self.decoration_lit(type_id, Decoration::ArrayStride) {
                    Some(s) => s,
                    None => self.explicit_size(t.word(0).unwrap_or(0), depth + 1)?.0 as u32,
                };
                (0, stride)
            }
            Op::TypeStruct => {
                let mut end = 0u64;
                let mut rt_stride = 0;
                for (m, &member_ty) in t.operands.iter().enumerate() {
                    let offset = u64::from(
                        self.member_decoration_lit(type_id, m as u32, Decoration::Offset)
                            .unwrap_or(0),
                    );
                    let member = self.get(member_ty)?;
                    let (size, stride) = if member.op == Op::TypeMatrix {
                        let cols = u64::from(member.word(1).unwrap_or(0));
                        match self.member_decoration_lit(
                            type_id,
                            m as u32,
                            Decoration::MatrixStride,
                        ) {
                            Some(ms)
                                if self.member_has(type_id, m as u32, Decoration::RowMajor) =>
                            {
                                let col = self.get(member.word(0).unwrap_or(0))?;
                                (u64::from(ms) * u64::from(col.word(1).unwrap_or(0)), 0)
                            }
                            Some(ms) => (u64::from(ms) * cols, 0),
                            None => self.explicit_size(member_ty, depth + 1)?,
                        }
                    } else {
                        self.explicit_size(member_ty, depth + 1)?
                    };
                    end = end.max(offset + size);
                    if stride != 0 {
                        rt_stride = stride;
                    }
                }
                (end, rt_stride)
            }
            Op::TypePointer => (8, 0),
            op => {
                return Err(invalid(format!(
                    "type %{type_id} (Op{op:?}) has no byte size"
                )))
            }
        })
    }

    /// (size, alignment) of a type in Metal's natural layout, for
    /// threadgroup memory (no explicit offsets there).
    pub(super) fn natural_size(&self, type_id: u32, depth: u32) -> Result<(u64, u64), SpirvError> {
        if depth > 64 {
            return Err(invalid("type nesting deeper than 64"));
        }
        let t = self.get(type_id)?;
        Ok(match t.op {
            Op::TypeBool => (1, 1),
            Op::TypeInt | Op::TypeFloat => {
                let b = u64::from(t.word(0).unwrap_or(32) / 8).max(1);
                (b, b)
            }
            Op::TypeVector => {
                let (c, _) = self.natural_size(t.word(0).unwrap_or(0), depth + 1)?;
                let n = u64::from(t.word(1).unwrap_or(0));
                // Metal: 3-component vectors take the size of 4.
                let n = if n == 3 { 4 } else { n };
                (c * n, c * n)
            }
            Op::TypeMatrix => {
                let (col, a) = self.natural_size(t.word(0).unwrap_or(0), depth + 1)?;
                (col * u64::from(t.word(1).unwrap_or(0)), a)
            }
            Op::TypeArray => {
                let len = self.const_u64(t.word(1).unwrap_or(0))?;
                let (s, a) = self.natural_size(t.word(0).unwrap_or(0), depth + 1)?;
                (s.div_ceil(a.max(1)) * a.max(1) * len, a)
            }
            Op::TypeStruct => {
                let mut off = 0u64;
                let mut align = 1u64;
                for &m in t.operands {
                    let (s, a) = self.natural_size(m, depth + 1)?;
                    let a = a.max(1);
                    off = off.div_ceil(a) * a + s;
                    align = align.max(a);
                }
                (off.div_ceil(align) * align, align)
            }
            op => {
                return Err(invalid(format!(
                    "type %{type_id} (Op{op:?}) has no byte size"
                )))
            }
        })
    }
}

/// An `OpEntryPoint`'s execution model, function and name.
pub(super) fn entry_point(
    inst: &Inst<'_>,
) -> Result<(spirv::ExecutionModel, u32, String), SpirvError> {
    let malformed = || invalid("malformed OpEntryPoint");
    let model = inst
        .word(0)
        .and_then(spirv::ExecutionModel::from_u32)
        .ok_or_else(malformed)?;
    let func = inst.word(1).ok_or_else(malformed)?;
    let (name, _) = inst.string(2)?;
    Ok((model, func, name))
}

/// For each function id, the instructions of its body.
pub(super) type Bodies<'a> = FxHashMap<u32, &'a [Inst<'a>]>;

/// For each function id, the instructions of its body.
pub(super) fn function_bodies<'a>(insts: &'a [Inst<'a>]) -> Bodies<'a> {
    let mut out = FxHashMap::default();
    let mut start = None;
    for (i, inst) in insts.iter().enumerate() {
        match inst.op {
            Op::Function => start = Some((inst.result_id.unwrap_or(0), i)),
            Op::FunctionEnd => {
                if let Some((id, s)) = start.take() {
                    out.insert(id, &insts[s..=i]);
                }
            }
            _ => {}
        }
    }
    out
}

/// Functions reachable from `entry` through `OpFunctionCall`, in a stable order.
pub(super) fn reachable_functions(functions: &Bodies<'_>, entry: u32) -> Vec<u32> {
    let mut seen = BTreeSet::new();
    let mut stack = vec![entry];
    let mut order = Vec::new();
    while let Some(f) = stack.pop() {
        if !seen.insert(f) {
            continue;
        }
        order.push(f);
        if let Some(body) = functions.get(&f) {
            for inst in body.iter() {
                if inst.op == Op::FunctionCall {
                    if let Some(callee) = inst.word(0) {
                        stack.push(callee);
                    }
                }
            }
        }
    }
    order
}

/// Every id referenced by the functions reachable from `entry`.
pub(super) fn used_ids(
    ix: &Index<'_>,
    functions: &Bodies<'_>,
    entry: u32,
) -> Result<std::rc::Rc<UsedIds>, SpirvError> {
    if let Some(used) = ix.used.borrow().get(&entry) {
        return Ok(used.clone());
    }
    let mut used = UsedIds::default();
    for f in reachable_functions(functions, entry) {
        if let Some(body) = functions.get(&f) {
            for inst in body.iter() {
                inst.for_each_id(|id| ix.literal_words(id), |id| used.insert(id))?;
            }
        }
    }
    let used = std::rc::Rc::new(used);
    ix.used.borrow_mut().insert(entry, used.clone());
    Ok(used)
}

/// The ids an entry point's functions refer to: a bit per id (ids are
/// dense, below the module's bound; a `BTreeSet` of them cost a fifth of
/// reflecting a large kernel). Reflection runs before the validator's
/// verdict, so an id past SPIR-V's limit, which no valid module has, goes
/// to a set instead of growing the bits.
#[derive(Default)]
pub(super) struct UsedIds {
    bits: Vec<u64>,
    beyond: BTreeSet<u32>,
}

impl UsedIds {
    /// SPIR-V's universal limit on ids (the bound is at most 4 194 303).
    pub(super) const DENSE: u32 = 1 << 22;

    pub(super) fn insert(&mut self, id: u32) {
        if id >= Self::DENSE {
            self.beyond.insert(id);
            return;
        }
        let word = (id / 64) as usize;
        if word >= self.bits.len() {
            self.bits.resize(word + 1, 0);
        }
        self.bits[word] |= 1 << (id % 64);
    }

    pub(super) fn contains(&self, id: u32) -> bool {
        match self.bits.get((id / 64) as usize) {
            Some(w) => w & (1 << (id % 64)) != 0,
            None => self.beyond.contains(&id),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::UsedIds;

    #[test]
    fn used_ids_holds_dense_and_out_of_range_ids() {
        let mut u = UsedIds::default();
        for id in [0, 1, 63, 64, 4_194_302, UsedIds::DENSE, u32::MAX] {
            u.insert(id);
        }
        for id in [0, 1, 63, 64, 4_194_302, UsedIds::DENSE, u32::MAX] {
            assert!(u.contains(id), "{id}");
        }
        for id in [2, 62, 65, 4_194_301, UsedIds::DENSE + 1, u32::MAX - 1] {
            assert!(!u.contains(id), "{id}");
        }
        // A huge id does not grow the bits.
        assert_eq!(u.bits.len(), 4_194_302 / 64 + 1);
    }
}
