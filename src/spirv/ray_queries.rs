//! Arrays of ray queries split into one variable per element, and
//! `OpRayQueryGetRayFlagsKHR` read from a variable kept beside its query:
//! two rewrites of the module before anything else reads it, for what
//! SPIRV-Cross's MSL backend cannot translate.
//!
//! **Arrays.** SPIRV-Cross declares an array of ray queries
//! (`rayQueryEXT q2[2];`) as an array of MSL `intersection_query` objects,
//! which no Metal compiler has been seen to accept (SPIRV-Cross's own test
//! of it, `ray-query.spv14.vk.ios.msl24..invalid.comp`, is marked
//! `.invalid`); one `intersection_query` variable per query is what halc
//! runs. So a variable whose type is a fixed-size array of ray queries, in
//! any storage class (Vulkan allows Private and Function), becomes one
//! variable per element, of the same storage class, named `q2_0`, `q2_1`, …
//! after the array's `OpName`, when each of its uses is an `OpAccessChain`
//! or `OpInBoundsAccessChain` with one index that is an integer
//! `OpConstant` in range. Each such access chain is removed and its result
//! id replaced by its element's variable where it is used: as the query
//! operand of a ray-query instruction or as an argument of an
//! `OpFunctionCall`. A Private array's elements replace it in the entry
//! points' interface lists (SPIR-V 1.4 lists the Private variables an entry
//! point uses) and are declared at the end of the global declarations; a
//! Function array's stay where it was, at the top of its function's first
//! block. The array type and its pointer types go with it.
//!
//! Refused, one line naming the instruction and its word offset: an index
//! that is not a constant (a dynamic index, or a spec constant, whose value
//! is not known here), an index out of range, an access chain with more
//! than one index, an array of arrays of ray queries, a runtime array of
//! them, an array sized by a spec constant, and any other use of the array,
//! of an element's access chain or of their types (the array passed to a
//! function, loaded, stored, copied, decorated, or held in a struct).
//!
//! **Ray flags.** SPIRV-Cross's MSL has no translation of
//! `OpRayQueryGetRayFlagsKHR` (it falls back to GLSL's
//! `rayQueryGetRayFlagsEXT`, which MSL does not have). The Vulkan
//! specification defines it as the ray flags given to the
//! `OpRayQueryInitializeKHR` that initialised the query, so each ray-query
//! variable that some `OpRayQueryGetRayFlagsKHR` reads gets a companion
//! variable of the same storage class (named `<query>_ray_flags`, in the
//! interface lists beside the query, of the instruction's 32-bit integer
//! result type), stored with the Ray Flags operand right after every
//! `OpRayQueryInitializeKHR` of that query (bitcast when its signedness
//! differs), and each `OpRayQueryGetRayFlagsKHR` becomes an `OpLoad` of the
//! companion with the same result id and type. A query read before any
//! initialisation has undefined ray flags in Vulkan; its companion then
//! holds whatever an uninitialised variable of its storage class holds.
//!
//! A query that is a function parameter is refused at the
//! `OpRayQueryGetRayFlagsKHR` reading it, and so is passing a query whose
//! flags are read to a function when some `OpRayQueryInitializeKHR` in the
//! module initialises a parameter (the callee could initialise the query
//! where no store of the companion follows): following a query through
//! calls would need a companion per call chain. The arrays go first, so an
//! element of an array is a variable like any other here.

use std::collections::{BTreeMap, HashMap, HashSet};

use rspirv::spirv::{Op, StorageClass};

use super::index::Index;
use super::inst::{self, Inst};
use super::{op_name, SpirvError, Words};

/// What [`rewrite_ray_queries`] changed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Rewritten {
    /// Arrays of ray queries split into variables.
    pub arrays: u32,
    /// Variables they became.
    pub elements: u32,
    /// `OpRayQueryGetRayFlagsKHR` instructions replaced by loads.
    pub ray_flags: u32,
}

fn header(op: Op, len: usize) -> u32 {
    ((len as u32) << 16) | op as u32
}

/// A literal string as nul-terminated words.
fn string_words(s: &str) -> Vec<u32> {
    let mut bytes = s.as_bytes().to_vec();
    bytes.push(0);
    bytes.resize(bytes.len().div_ceil(4) * 4, 0);
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn op_name_inst(name: &str, id: u32) -> Vec<u32> {
    let s = string_words(name);
    let mut w = vec![header(Op::Name, 2 + s.len()), id];
    w.extend(s);
    w
}

/// Whether `op` is a ray-query instruction whose first id operand is the
/// query (`OpRayQueryInitializeKHR`, `…ProceedKHR`, the getters, …).
fn takes_a_query(op: Op) -> bool {
    format!("{op:?}").starts_with("RayQuery")
}

/// How an error names a variable: its `OpName` and id, or its id.
fn describe(index: &Index<'_>, id: u32) -> String {
    match index.names.get(&id) {
        Some(name) => format!("`{name}` (%{id})"),
        None => format!("%{id}"),
    }
}

fn unsupported(inst: &Inst<'_>, why: impl std::fmt::Display) -> SpirvError {
    SpirvError::Unsupported(format!(
        "{} (word {}): {why}",
        op_name(inst.op as u16),
        inst.offset
    ))
}

/// The ids an instruction's operands refer to (not its result type); of a
/// decoration or an execution mode, its targets (what this rewrite needs:
/// [`Inst::for_each_id`] reads function bodies and module-level
/// declarations, not annotations).
fn ids(index: &Index<'_>, inst: &Inst<'_>) -> Result<Vec<u32>, SpirvError> {
    match inst.op {
        Op::Decorate
        | Op::DecorateId
        | Op::DecorateString
        | Op::MemberDecorate
        | Op::MemberDecorateString
        | Op::ExecutionMode
        | Op::ExecutionModeId => return Ok(inst.word(0).into_iter().collect()),
        Op::GroupDecorate => return Ok(inst.operands.get(1..).unwrap_or(&[]).to_vec()),
        Op::GroupMemberDecorate => {
            return Ok(inst
                .operands
                .get(1..)
                .unwrap_or(&[])
                .iter()
                .step_by(2)
                .copied()
                .collect())
        }
        _ => {}
    }
    let mut ids = Vec::new();
    inst.for_each_id(|id| index.literal_words(id), |id| ids.push(id))?;
    Ok(ids)
}

/// `n` new ids from `bound`: the first of them.
fn fresh(bound: &mut u32, n: u32) -> Result<u32, SpirvError> {
    let first = *bound;
    *bound = bound.checked_add(n).ok_or_else(|| {
        SpirvError::Unsupported(format!(
            "id bound {first}: no room for the {n} ids that splitting arrays of ray queries or keeping their ray flags needs"
        ))
    })?;
    Ok(first)
}

/// An instruction's words with its word count; refused past SPIR-V's
/// 65535 words.
fn counted(inst: &Inst<'_>, mut words: Vec<u32>) -> Result<Vec<u32>, SpirvError> {
    let n = u32::try_from(words.len())
        .ok()
        .filter(|&n| n <= 0xffff)
        .ok_or_else(|| unsupported(inst, "its rewritten form would be over 65535 words"))?;
    words[0] = (n << 16) | (words[0] & 0xffff);
    Ok(words)
}

/// The word offset, within the instruction, of its first operand after the
/// result type and id.
fn operands_at(inst: &Inst<'_>) -> usize {
    1 + usize::from(inst.result_type.is_some()) + usize::from(inst.result_id.is_some())
}

/// The module with its arrays of ray queries split and its
/// `OpRayQueryGetRayFlagsKHR` rewritten (see the module documentation);
/// `None` when it has neither (no copy). Errors name what cannot be
/// rewritten.
pub fn rewrite_ray_queries(words: &Words) -> Result<Option<(Words, Rewritten)>, SpirvError> {
    const OP_TYPE_RAY_QUERY: u16 = Op::TypeRayQueryKHR as u16;
    let has_queries = words
        .instructions()
        .any(|i| i.is_ok_and(|i| i.opcode == OP_TYPE_RAY_QUERY));
    if !has_queries {
        return Ok(None);
    }
    let mut rewritten = Rewritten::default();
    let split = split_arrays(words, &mut rewritten)?;
    let current = split.as_ref().unwrap_or(words);
    let flagged = ray_flags(current, &mut rewritten)?;
    Ok(match (split, flagged) {
        (_, Some(w)) | (Some(w), None) => Some((w, rewritten)),
        (None, None) => None,
    })
}

/// The integer `OpConstant`s: id -> value.
fn integer_constants(insts: &[Inst<'_>]) -> HashMap<u32, i128> {
    let mut ints: HashMap<u32, (u32, bool)> = HashMap::new();
    let mut constants = HashMap::new();
    for inst in insts {
        match inst.op {
            Op::TypeInt => {
                if let (Some(id), Some(width), Some(signed)) =
                    (inst.result_id, inst.word(0), inst.word(1))
                {
                    ints.insert(id, (width, signed != 0));
                }
            }
            Op::Constant => {
                let (Some(ty), Some(id)) = (inst.result_type, inst.result_id) else {
                    continue;
                };
                let Some(&(width, signed)) = ints.get(&ty) else {
                    continue;
                };
                let raw = match (width, inst.operands) {
                    (64, [lo, hi]) => (u64::from(*hi) << 32) | u64::from(*lo),
                    (w, [v]) if (1..=32).contains(&w) => u64::from(*v) & (u64::MAX >> (64 - w)),
                    _ => continue,
                };
                let value = if signed && (raw >> (width - 1)) & 1 == 1 {
                    i128::from(raw) - (1i128 << width)
                } else {
                    i128::from(raw)
                };
                constants.insert(id, value);
            }
            _ => {}
        }
    }
    constants
}

/// A variable holding an array of ray queries.
struct ArrayVar {
    storage: u32,
    len: u32,
    /// In a function (at the top of its first block), not global.
    local: bool,
    /// The first element's variable id; the others follow.
    first: u32,
}

/// Step one: arrays of ray queries split into variables.
fn split_arrays(words: &Words, rewritten: &mut Rewritten) -> Result<Option<Words>, SpirvError> {
    let insts = inst::parse(words)?;
    let index = Index::new(&insts);
    let constants = integer_constants(&insts);
    let mut queries: HashSet<u32> = HashSet::new();
    // Array type -> its length.
    let mut arrays: HashMap<u32, u32> = HashMap::new();
    // Pointer type to an array of ray queries -> its storage class.
    let mut array_pointers: HashMap<u32, u32> = HashMap::new();
    // Storage class -> the first pointer type to a ray query in it.
    let mut query_pointers: BTreeMap<u32, u32> = BTreeMap::new();
    let mut vars: BTreeMap<u32, ArrayVar> = BTreeMap::new();
    let mut in_function = false;
    for inst in &insts {
        match inst.op {
            Op::TypeRayQueryKHR => queries.extend(inst.result_id),
            Op::TypeArray | Op::TypeRuntimeArray => {
                let (Some(id), Some(element)) = (inst.result_id, inst.word(0)) else {
                    continue;
                };
                if arrays.contains_key(&element) {
                    return Err(unsupported(
                        inst,
                        "an array of arrays of ray queries: halc splits a one-dimensional array of ray queries into one variable per element, and no more (SPIRV-Cross's array of intersection_query objects has not been shown to compile on Metal): declare one-dimensional arrays",
                    ));
                }
                if !queries.contains(&element) {
                    continue;
                }
                if inst.op == Op::TypeRuntimeArray {
                    return Err(unsupported(
                        inst,
                        "an array of ray queries of no fixed length, which halc cannot split into one variable per element: give the array a constant size",
                    ));
                }
                let len = inst.word(1).and_then(|l| constants.get(&l));
                match len {
                    Some(&n) if (1..=i128::from(u16::MAX)).contains(&n) => {
                        arrays.insert(id, n as u32);
                    }
                    _ => {
                        return Err(unsupported(
                            inst,
                            "an array of ray queries whose length is not an integer OpConstant of at most 65535 (a spec constant's value is not known when halc splits the array into one variable per element): give the array a constant size",
                        ))
                    }
                }
            }
            Op::TypePointer => {
                let (Some(id), Some(storage), Some(pointee)) =
                    (inst.result_id, inst.word(0), inst.word(1))
                else {
                    continue;
                };
                if arrays.contains_key(&pointee) {
                    array_pointers.insert(id, storage);
                } else if queries.contains(&pointee) {
                    query_pointers.entry(storage).or_insert(id);
                }
            }
            Op::Function => in_function = true,
            Op::FunctionEnd => in_function = false,
            Op::Variable => {
                let (Some(ty), Some(id)) = (inst.result_type, inst.result_id) else {
                    continue;
                };
                let Some(&storage) = array_pointers.get(&ty) else {
                    continue;
                };
                if inst.operands.len() > 1 {
                    return Err(unsupported(
                        inst,
                        format!(
                            "the array of ray queries {} has an initializer, which halc cannot split into one variable per element",
                            describe(&index, id)
                        ),
                    ));
                }
                let len = index
                    .get(ty)
                    .ok()
                    .and_then(|t| t.word(1))
                    .and_then(|p| arrays.get(&p))
                    .copied()
                    .unwrap_or(0);
                vars.insert(
                    id,
                    ArrayVar {
                        storage,
                        len,
                        local: in_function,
                        first: 0,
                    },
                );
            }
            _ => {}
        }
    }
    if arrays.is_empty() {
        return Ok(None);
    }

    // Every use of the arrays, their elements' access chains and their
    // types: access chain result -> (array variable, element).
    let mut chains: HashMap<u32, (u32, u32)> = HashMap::new();
    let spec_constants: HashSet<u32> = insts
        .iter()
        .filter(|i| matches!(i.op, Op::SpecConstant | Op::SpecConstantOp))
        .filter_map(|i| i.result_id)
        .collect();
    for inst in &insts {
        let Some(base) = (match inst.op {
            Op::AccessChain | Op::InBoundsAccessChain => inst.word(0),
            _ => None,
        }) else {
            continue;
        };
        let Some(var) = vars.get(&base) else {
            continue;
        };
        let name = describe(&index, base);
        if inst.operands.len() != 2 {
            return Err(unsupported(
                inst,
                format!(
                    "{} indices into the array of ray queries {name}; halc splits an array of ray queries into one variable per element where each access has one constant index",
                    inst.operands.len() - 1
                ),
            ));
        }
        let at = inst.operands[1];
        let is_spec = spec_constants.contains(&at);
        let element = match constants.get(&at) {
            Some(&n) if (0..i128::from(var.len)).contains(&n) => n as u32,
            Some(&n) => {
                return Err(unsupported(
                    inst,
                    format!(
                        "index {n} into the array of ray queries {name}, which has {} elements",
                        var.len
                    ),
                ))
            }
            None => {
                let what = if is_spec {
                    "a spec constant, whose value is not known when halc splits the array"
                } else {
                    "not a constant (a dynamic index)"
                };
                return Err(unsupported(
                    inst,
                    format!(
                        "the index %{at} into the array of ray queries {name} is {what}: halc splits an array of ray queries into one variable per element (SPIRV-Cross's array of intersection_query objects has not been shown to compile on Metal), which needs each index to be a constant; index the array with constants (unroll the loop) or declare one ray query per use"
                    ),
                ));
            }
        };
        if let Some(id) = inst.result_id {
            chains.insert(id, (base, element));
        }
    }
    // The variables' and elements' uses first (a call passing the array is
    // named before the function type that takes it), then the types'.
    for (types_pass, inst) in [false, true]
        .into_iter()
        .flat_map(|pass| insts.iter().map(move |i| (pass, i)))
    {
        let is_chain = inst.result_id.is_some_and(|id| chains.contains_key(&id));
        let is_var = inst.result_id.is_some_and(|id| vars.contains_key(&id));
        if let (true, Some(ty)) = (types_pass, inst.result_type) {
            if array_pointers.contains_key(&ty) && !is_var {
                return Err(unsupported(
                    inst,
                    "a value that is a pointer to an array of ray queries (a function parameter, or a copy), which halc cannot split into one variable per element; use the array's elements where it is declared",
                ));
            }
        }
        if is_chain {
            continue;
        }
        let used = ids(&index, inst)?;
        for (k, &id) in used.iter().enumerate() {
            if !types_pass && vars.contains_key(&id) {
                let allowed = matches!(inst.op, Op::Name | Op::EntryPoint);
                if !allowed {
                    let name = describe(&index, id);
                    let how = match inst.op {
                        Op::FunctionCall => "passes the array of ray queries {name} to a function",
                        Op::Load => "loads the array of ray queries {name} whole",
                        Op::Store => "stores the array of ray queries {name} whole",
                        Op::CopyMemory | Op::CopyMemorySized | Op::CopyObject => {
                            "copies the array of ray queries {name}"
                        }
                        Op::Decorate | Op::DecorateId | Op::DecorateString => {
                            "decorates the array of ray queries {name}"
                        }
                        _ => "uses the array of ray queries {name} other than through an access chain",
                    };
                    return Err(unsupported(
                        inst,
                        format!(
                            "{}: halc splits an array of ray queries into one variable per element (SPIRV-Cross's array of intersection_query objects has not been shown to compile on Metal), which needs every use of the array to be an access chain with one constant index",
                            how.replace("{name}", &name)
                        ),
                    ));
                }
            } else if let (false, Some(&(array, element))) = (types_pass, chains.get(&id)) {
                let allowed =
                    (takes_a_query(inst.op) && k == 0) || (inst.op == Op::FunctionCall && k > 0);
                if !allowed {
                    return Err(unsupported(
                        inst,
                        format!(
                            "uses element {element} of the array of ray queries {} other than as the query of a ray-query instruction or a function's argument, which halc cannot rewrite when it splits the array into one variable per element",
                            describe(&index, array)
                        ),
                    ));
                }
            } else if types_pass && (arrays.contains_key(&id) || array_pointers.contains_key(&id)) {
                let allowed = inst.op == Op::Name
                    || (inst.op == Op::TypePointer
                        && inst
                            .result_id
                            .is_some_and(|p| array_pointers.contains_key(&p)));
                if !allowed {
                    let how = match inst.op {
                        Op::TypeFunction => "a function that takes an array of ray queries",
                        Op::TypeStruct => "a struct holding an array of ray queries",
                        _ => "a use of the type of an array of ray queries",
                    };
                    return Err(unsupported(
                        inst,
                        format!(
                            "{how}, which halc cannot split into one variable per element (SPIRV-Cross's array of intersection_query objects has not been shown to compile on Metal): declare the array where it is used and index it with constants"
                        ),
                    ));
                }
            }
        }
    }

    // New ids: the elements, then a pointer type per storage class that
    // has none.
    let mut bound = words.bound();
    for var in vars.values_mut() {
        var.first = fresh(&mut bound, var.len)?;
    }
    let mut new_pointers: Vec<(u32, u32)> = Vec::new();
    let query = queries.iter().copied().min().unwrap_or(0);
    for var in vars.values() {
        if let std::collections::btree_map::Entry::Vacant(e) = query_pointers.entry(var.storage) {
            let id = fresh(&mut bound, 1)?;
            e.insert(id);
            new_pointers.push((var.storage, id));
        }
    }
    let element_var = |var: &ArrayVar, i: u32| -> Vec<u32> {
        vec![
            header(Op::Variable, 4),
            query_pointers[&var.storage],
            var.first + i,
            var.storage,
        ]
    };

    let all = words.as_slice();
    let mut out: Vec<u32> = Vec::with_capacity(all.len() + 16);
    let mut globals_pending = true;
    let emit_globals = |out: &mut Vec<u32>| {
        for &(storage, id) in &new_pointers {
            out.extend_from_slice(&[header(Op::TypePointer, 4), id, storage, query]);
        }
        for var in vars.values().filter(|v| !v.local) {
            for i in 0..var.len {
                out.extend(element_var(var, i));
            }
        }
    };
    for inst in &insts {
        let start = inst.offset;
        let end = start + (all[start] >> 16) as usize;
        let w = &all[start..end];
        if inst.op == Op::Function && globals_pending {
            emit_globals(&mut out);
            globals_pending = false;
        }
        let result = inst.result_id.unwrap_or(0);
        if chains.contains_key(&result)
            || arrays.contains_key(&result)
            || array_pointers.contains_key(&result)
        {
            continue;
        }
        match inst.op {
            Op::Name => {
                let target = inst.word(0).unwrap_or(0);
                if arrays.contains_key(&target) || array_pointers.contains_key(&target) {
                    continue;
                }
                if let Some(var) = vars.get(&target) {
                    let name = index.names.get(&target).cloned().unwrap_or_default();
                    for i in 0..var.len {
                        out.extend(op_name_inst(&format!("{name}_{i}"), var.first + i));
                    }
                    continue;
                }
            }
            Op::EntryPoint => {
                let (_, next) = inst.string(2)?;
                let head = operands_at(inst) + next;
                let mut new = w[..head].to_vec();
                for &id in &w[head..] {
                    match vars.get(&id) {
                        Some(var) => new.extend(var.first..var.first + var.len),
                        None => new.push(id),
                    }
                }
                out.extend(counted(inst, new)?);
                continue;
            }
            Op::Variable if vars.contains_key(&result) => {
                let var = &vars[&result];
                if var.local {
                    for i in 0..var.len {
                        out.extend(element_var(var, i));
                    }
                }
                continue;
            }
            _ => {}
        }
        let used = ids(&index, inst)?;
        if !used.iter().any(|id| chains.contains_key(id)) {
            out.extend_from_slice(w);
            continue;
        }
        let mut new = w.to_vec();
        let first = operands_at(inst);
        let positions = if inst.op == Op::FunctionCall {
            first + 1..w.len()
        } else {
            first..first + 1
        };
        for p in positions {
            if let Some(&(array, element)) = chains.get(&new[p]) {
                new[p] = vars[&array].first + element;
            }
        }
        out.extend(new);
    }
    if globals_pending {
        emit_globals(&mut out);
    }
    rewritten.arrays += vars.len() as u32;
    rewritten.elements += vars.values().map(|v| v.len).sum::<u32>();
    let mut raw = words.with_body(out).as_slice().to_vec();
    raw[3] = bound;
    Ok(Some(Words::from_words(raw)?))
}

/// A ray-query variable whose ray flags some instruction reads.
struct Flagged {
    storage: u32,
    /// The companion's type: the first reading instruction's result type.
    ty: u32,
    companion: u32,
}

/// Step two: `OpRayQueryGetRayFlagsKHR` read from a companion variable.
fn ray_flags(words: &Words, rewritten: &mut Rewritten) -> Result<Option<Words>, SpirvError> {
    const OP_GET_RAY_FLAGS: u16 = Op::RayQueryGetRayFlagsKHR as u16;
    if !words
        .instructions()
        .any(|i| i.is_ok_and(|i| i.opcode == OP_GET_RAY_FLAGS))
    {
        return Ok(None);
    }
    let insts = inst::parse(words)?;
    let index = Index::new(&insts);
    let mut queries: HashSet<u32> = HashSet::new();
    let mut query_pointers: HashSet<u32> = HashSet::new();
    // Variables that are ray queries -> storage class.
    let mut query_vars: HashMap<u32, u32> = HashMap::new();
    // (storage class, pointee) -> the first pointer type.
    let mut pointers: HashMap<(u32, u32), u32> = HashMap::new();
    // Every value's type, for the Ray Flags operand's.
    let mut types: HashMap<u32, u32> = HashMap::new();
    let mut flagged: BTreeMap<u32, Flagged> = BTreeMap::new();
    for inst in &insts {
        if let (Some(ty), Some(id)) = (inst.result_type, inst.result_id) {
            types.insert(id, ty);
        }
        match inst.op {
            Op::TypeRayQueryKHR => queries.extend(inst.result_id),
            Op::TypePointer => {
                let (Some(id), Some(storage), Some(pointee)) =
                    (inst.result_id, inst.word(0), inst.word(1))
                else {
                    continue;
                };
                pointers.entry((storage, pointee)).or_insert(id);
                if queries.contains(&pointee) {
                    query_pointers.insert(id);
                }
            }
            Op::Variable => {
                if let (Some(ty), Some(id), Some(storage)) =
                    (inst.result_type, inst.result_id, inst.word(0))
                {
                    if query_pointers.contains(&ty) {
                        query_vars.insert(id, storage);
                    }
                }
            }
            Op::RayQueryGetRayFlagsKHR => {
                let (Some(ty), Some(query)) = (inst.result_type, inst.word(0)) else {
                    return Err(unsupported(inst, "its query operand is missing"));
                };
                let Some(&storage) = query_vars.get(&query) else {
                    let what = if insts
                        .iter()
                        .any(|i| i.op == Op::FunctionParameter && i.result_id == Some(query))
                    {
                        "a function parameter"
                    } else {
                        "not a variable"
                    };
                    return Err(unsupported(
                        inst,
                        format!(
                            "its ray query {} is {what}: SPIRV-Cross's MSL has no rayQueryGetRayFlagsEXT, so halc keeps each query's ray flags in a variable beside it, stored at its rayQueryInitializeEXT, and cannot follow a query passed to a function; read the flags where the query is declared",
                            describe(&index, query)
                        ),
                    ));
                };
                flagged.entry(query).or_insert(Flagged {
                    storage,
                    ty,
                    companion: 0,
                });
            }
            _ => {}
        }
    }
    // A query passed to a function may be initialised there through the
    // parameter, where no store of the companion follows: refused when some
    // initialisation's query is not a variable.
    let initialised_elsewhere = insts.iter().find(|i| {
        i.op == Op::RayQueryInitializeKHR && i.word(0).is_some_and(|q| !query_vars.contains_key(&q))
    });
    if let Some(init) = initialised_elsewhere {
        for inst in insts.iter().filter(|i| i.op == Op::FunctionCall) {
            if let Some(&q) = inst
                .operands
                .iter()
                .skip(1)
                .find(|a| flagged.contains_key(a))
            {
                return Err(unsupported(
                    inst,
                    format!(
                        "passes the ray query {}, whose ray flags are read (rayQueryGetRayFlagsEXT), to a function, and the OpRayQueryInitializeKHR at word {} initialises a query that is a function's parameter: SPIRV-Cross's MSL has no rayQueryGetRayFlagsEXT, so halc keeps each query's flags in a variable beside it, stored where the query is initialised, and cannot follow a query through a call; initialise the query in the function that declares it",
                        describe(&index, q),
                        init.offset
                    ),
                ));
            }
        }
    }

    let mut bound = words.bound();
    let mut new_pointers: Vec<(u32, u32, u32)> = Vec::new();
    for f in flagged.values_mut() {
        f.companion = fresh(&mut bound, 1)?;
        if let std::collections::hash_map::Entry::Vacant(e) = pointers.entry((f.storage, f.ty)) {
            let id = fresh(&mut bound, 1)?;
            e.insert(id);
            new_pointers.push((id, f.storage, f.ty));
        }
    }
    let companion_var = |f: &Flagged| -> [u32; 4] {
        [
            header(Op::Variable, 4),
            pointers[&(f.storage, f.ty)],
            f.companion,
            f.storage,
        ]
    };
    let function = StorageClass::Function as u32;

    let all = words.as_slice();
    let mut out: Vec<u32> = Vec::with_capacity(all.len() + 16);
    let mut globals_pending = true;
    let emit_globals = |out: &mut Vec<u32>| {
        for &(id, storage, ty) in &new_pointers {
            out.extend_from_slice(&[header(Op::TypePointer, 4), id, storage, ty]);
        }
        for f in flagged.values().filter(|f| f.storage != function) {
            out.extend(companion_var(f));
        }
    };
    for inst in &insts {
        let start = inst.offset;
        let end = start + (all[start] >> 16) as usize;
        let w = &all[start..end];
        if inst.op == Op::Function && globals_pending {
            emit_globals(&mut out);
            globals_pending = false;
        }
        let result = inst.result_id.unwrap_or(0);
        out.extend_from_slice(w);
        match inst.op {
            Op::Name => {
                let target = inst.word(0).unwrap_or(0);
                if let (Some(f), Some(name)) = (flagged.get(&target), index.names.get(&target)) {
                    out.extend(op_name_inst(&format!("{name}_ray_flags"), f.companion));
                }
            }
            Op::EntryPoint => {
                let (_, next) = inst.string(2)?;
                let head = operands_at(inst) + next;
                out.truncate(out.len() - w.len());
                let mut new = w[..head].to_vec();
                for &id in &w[head..] {
                    new.push(id);
                    new.extend(flagged.get(&id).map(|f| f.companion));
                }
                out.extend(counted(inst, new)?);
            }
            Op::Variable => {
                if let Some(f) = flagged.get(&result).filter(|f| f.storage == function) {
                    out.extend(companion_var(f));
                }
            }
            Op::RayQueryInitializeKHR => {
                let (Some(query), Some(flags)) = (inst.word(0), inst.word(2)) else {
                    continue;
                };
                let Some(f) = flagged.get(&query) else {
                    continue;
                };
                let value = if types.get(&flags) == Some(&f.ty) {
                    flags
                } else {
                    let cast = fresh(&mut bound, 1)?;
                    out.extend_from_slice(&[header(Op::Bitcast, 4), f.ty, cast, flags]);
                    cast
                };
                out.extend_from_slice(&[header(Op::Store, 3), f.companion, value]);
            }
            Op::RayQueryGetRayFlagsKHR => {
                out.truncate(out.len() - w.len());
                let (Some(ty), Some(query)) = (inst.result_type, inst.word(0)) else {
                    continue;
                };
                let f = &flagged[&query];
                if ty == f.ty {
                    out.extend_from_slice(&[header(Op::Load, 4), ty, result, f.companion]);
                } else {
                    let loaded = fresh(&mut bound, 1)?;
                    out.extend_from_slice(&[header(Op::Load, 4), f.ty, loaded, f.companion]);
                    out.extend_from_slice(&[header(Op::Bitcast, 4), ty, result, loaded]);
                }
                rewritten.ray_flags += 1;
            }
            _ => {}
        }
    }
    if globals_pending {
        emit_globals(&mut out);
    }
    let mut raw = words.with_body(out).as_slice().to_vec();
    raw[3] = bound;
    Ok(Some(Words::from_words(raw)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    use spirv_tools::assembler::Assembler;

    fn disassemble(words: &Words) -> String {
        let asm = spirv_tools::assembler::create(Some(spirv_tools::TargetEnv::Universal_1_5));
        asm.disassemble(words.as_slice(), Default::default())
            .unwrap()
            .unwrap()
    }

    /// A SPIR-V 1.4 module with a Private array `g` of two ray queries, a
    /// Function array `l` of three and a Function query `q`: `globals`
    /// after the types, `body` in `main`, `after` after it.
    fn module(globals: &str, body: &str, after: &str) -> String {
        format!(
            "OpCapability Shader
OpCapability RayQueryKHR
OpExtension \"SPV_KHR_ray_query\"
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main \"main\" %g %scene
OpExecutionMode %main LocalSize 1 1 1
OpName %main \"main\"
OpName %scene \"scene\"
OpName %g \"g\"
OpName %l \"l\"
OpName %q \"q\"
OpDecorate %scene DescriptorSet 0
OpDecorate %scene Binding 0
%void = OpTypeVoid
%fn = OpTypeFunction %void
%bool = OpTypeBool
%uint = OpTypeInt 32 0
%int = OpTypeInt 32 1
%float = OpTypeFloat 32
%v3float = OpTypeVector %float 3
%rq = OpTypeRayQueryKHR
%as = OpTypeAccelerationStructureKHR
%pas = OpTypePointer UniformConstant %as
%scene = OpVariable %pas UniformConstant
%uint_0 = OpConstant %uint 0
%uint_1 = OpConstant %uint 1
%uint_2 = OpConstant %uint 2
%uint_3 = OpConstant %uint 3
%uint_4 = OpConstant %uint 4
%uint_255 = OpConstant %uint 255
%int_0 = OpConstant %int 0
%int_1 = OpConstant %int 1
%int_16 = OpConstant %int 16
%float_0 = OpConstant %float 0
%float_1 = OpConstant %float 1
%origin = OpConstantComposite %v3float %float_0 %float_0 %float_0
%dir = OpConstantComposite %v3float %float_0 %float_0 %float_1
%arr2 = OpTypeArray %rq %uint_2
%parr2 = OpTypePointer Private %arr2
%g = OpVariable %parr2 Private
%arr3 = OpTypeArray %rq %uint_3
%farr3 = OpTypePointer Function %arr3
%prq = OpTypePointer Private %rq
%frq = OpTypePointer Function %rq
{globals}%main = OpFunction %void None %fn
%entry = OpLabel
%l = OpVariable %farr3 Function
%q = OpVariable %frq Function
%s = OpLoad %as %scene
{body}OpReturn
OpFunctionEnd
{after}"
        )
    }

    /// `OpRayQueryInitializeKHR` of `query` with ray flags `flags`.
    fn init(query: &str, flags: &str) -> String {
        format!(
            "OpRayQueryInitializeKHR {query} %s {flags} %uint_255 %origin %float_0 %dir %float_1\n"
        )
    }

    fn assemble(text: &str) -> Words {
        crate::spirv::assemble(text, spirv_tools::TargetEnv::Universal_1_4)
    }

    /// The rewritten module's text, after the validator took it.
    fn rewrite(text: &str) -> Result<(String, Rewritten), String> {
        let words = assemble(text);
        match rewrite_ray_queries(&words) {
            Ok(Some((out, r))) => {
                crate::spirv::validate::spirv_tools(&out)
                    .unwrap_or_else(|e| panic!("{e}\n{}", disassemble(&out)));
                crate::spirv::validate::check(&out, &Default::default())
                    .unwrap_or_else(|e| panic!("{e}\n{}", disassemble(&out)));
                Ok((disassemble(&out), r))
            }
            Ok(None) => Err("not rewritten".into()),
            Err(e) => Err(e.to_string()),
        }
    }

    /// The instructions of `text` that mention `what`, trimmed.
    fn lines_with(text: &str, what: &str) -> Vec<String> {
        text.lines()
            .filter(|l| l.contains(what))
            .map(|l| l.trim().to_string())
            .collect()
    }

    const ELEMENTS: &str = "%g0 = OpAccessChain %prq %g %int_0
%g1 = OpAccessChain %prq %g %uint_1
%l2 = OpAccessChain %frq %l %uint_2
%l0 = OpInBoundsAccessChain %frq %l %int_0
%l2b = OpAccessChain %frq %l %int_1
";

    #[test]
    fn private_and_function_arrays_become_one_variable_per_element() {
        let body = format!(
            "{ELEMENTS}{}{}{}{}%p = OpRayQueryProceedKHR %bool %l2\n%t = OpRayQueryGetIntersectionTypeKHR %uint %g1 %uint_1\nOpRayQueryTerminateKHR %l0\n",
            init("%g0", "%uint_0"),
            init("%g1", "%uint_4"),
            init("%l2", "%uint_1"),
            init("%l0", "%uint_0"),
        );
        let (text, r) = rewrite(&module("", &body, "")).unwrap();
        assert_eq!(
            r,
            Rewritten {
                arrays: 2,
                elements: 5,
                ray_flags: 0
            }
        );
        // Private elements in the interface list, where the array was.
        assert!(
            text.contains("OpEntryPoint GLCompute %main \"main\" %g_0 %g_1 %scene\n"),
            "{text}"
        );
        for name in ["g_0", "g_1", "l_0", "l_1", "l_2"] {
            assert!(
                text.contains(&format!("OpName %{name} \"{name}\"")),
                "{text}"
            );
        }
        let private = lines_with(&text, "OpVariable %_ptr_Private_");
        assert_eq!(private.len(), 2, "{text}");
        for (line, name) in private.iter().zip(["g_0", "g_1"]) {
            assert!(
                line.starts_with(&format!("%{name} = OpVariable %_ptr_Private_"))
                    && line.ends_with(" Private"),
                "{text}"
            );
        }
        // Function elements at the top of the first block, before `q`.
        let body: Vec<&str> = text
            .lines()
            .skip_while(|l| !l.contains("OpLabel"))
            .skip(1)
            .map(str::trim)
            .collect();
        for (i, name) in ["l_0", "l_1", "l_2"].iter().enumerate() {
            assert!(
                body[i].starts_with(&format!("%{name} = OpVariable %_ptr_Function_"))
                    && body[i].ends_with(" Function"),
                "{text}"
            );
        }
        assert!(body[3].starts_with("%q = OpVariable"), "{text}");
        // Each access chain's uses name its element.
        for want in [
            "OpRayQueryInitializeKHR %g_0 ",
            "OpRayQueryInitializeKHR %g_1 ",
            "OpRayQueryInitializeKHR %l_2 ",
            "OpRayQueryInitializeKHR %l_0 ",
            "OpRayQueryProceedKHR %bool %l_2",
            "OpRayQueryGetIntersectionTypeKHR %uint %g_1 %uint_1",
            "OpRayQueryTerminateKHR %l_0",
        ] {
            assert!(text.contains(want), "{want} not in:\n{text}");
        }
        for gone in ["OpTypeArray", "AccessChain", "%g ", "%l "] {
            assert!(!text.contains(gone), "{gone} in:\n{text}");
        }
    }

    /// Negative control: the module as it was is refused by halc's checks
    /// (what reached them before the rewrite), and the rewrite of a module
    /// without arrays or ray flags is no copy.
    #[test]
    fn without_the_rewrite_the_array_is_refused() {
        let text = module("", &format!("{ELEMENTS}{}", init("%g0", "%uint_0")), "");
        let e = crate::spirv::validate::check(&assemble(&text), &Default::default())
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("OpTypeArray (word ")
                && e.contains("the rewrite left an array of ray queries"),
            "{e}"
        );
        let plain = module("", &init("%q", "%uint_0"), "")
            .replace("%arr2 = OpTypeArray %rq %uint_2\n%parr2 = OpTypePointer Private %arr2\n%g = OpVariable %parr2 Private\n%arr3 = OpTypeArray %rq %uint_3\n%farr3 = OpTypePointer Function %arr3\n", "")
            .replace("%l = OpVariable %farr3 Function\n", "")
            .replace(" %g %scene", " %scene")
            .replace("OpName %g \"g\"\nOpName %l \"l\"\n", "");
        assert_eq!(rewrite_ray_queries(&assemble(&plain)).unwrap(), None);
    }

    #[test]
    fn an_array_without_its_pointer_type_to_one_query_gets_one() {
        // No `OpTypePointer Function %rq` (and `q` at module scope): the
        // rewrite declares one for `l`'s elements.
        let text = module("%q = OpVariable %prq Private\n", &init("%q", "%uint_0"), "")
            .replace("%frq = OpTypePointer Function %rq\n", "")
            .replace("%q = OpVariable %frq Function\n", "")
            .replace(" %g %scene", " %g %scene %q");
        let (out, r) = rewrite(&text).unwrap();
        assert_eq!(r.elements, 5);
        assert_eq!(out.matches("OpTypePointer Function").count(), 1, "{out}");
        assert_eq!(
            out.matches(" = OpVariable %_ptr_Function_").count(),
            3,
            "{out}"
        );
    }

    /// Each refusal names the instruction, its word and the reason, on one
    /// line.
    #[test]
    fn what_cannot_be_split_is_refused_naming_the_instruction() {
        let spec = "%spec = OpSpecConstant %uint 1\n";
        let cases: Vec<(String, String, &str, &str)> = vec![
            (
                String::new(),
                format!(
                    "%i = OpIAdd %uint %uint_0 %uint_1\n%a = OpAccessChain %prq %g %i\n{}",
                    init("%a", "%uint_0")
                ),
                "OpAccessChain (word ",
                "the index %",
            ),
            (
                spec.into(),
                format!(
                    "%a = OpAccessChain %prq %g %spec\n{}",
                    init("%a", "%uint_0")
                ),
                "OpAccessChain (word ",
                "is a spec constant",
            ),
            (
                String::new(),
                format!(
                    "%a = OpAccessChain %frq %l %uint_3\n{}",
                    init("%a", "%uint_0")
                ),
                "OpAccessChain (word ",
                "index 3 into the array of ray queries `l` (%",
            ),
            (
                String::new(),
                "%v = OpLoad %arr2 %g\n".into(),
                "OpLoad (word ",
                "loads the array of ray queries `g` (%",
            ),
            (
                "%arr22 = OpTypeArray %arr2 %uint_2\n".into(),
                String::new(),
                "OpTypeArray (word ",
                "an array of arrays of ray queries",
            ),
            (
                "%rarr = OpTypeRuntimeArray %rq\n".into(),
                String::new(),
                "OpTypeRuntimeArray (word ",
                "of no fixed length",
            ),
        ];
        for (globals, body, starts, contains) in cases {
            let e = rewrite(&module(&globals, &body, "")).unwrap_err();
            assert!(
                e.starts_with(starts) && e.contains(contains),
                "{starts}…{contains}: {e}"
            );
            assert!(!e.contains('\n'), "{e}");
        }
        // A dynamic index's message says so.
        let e = rewrite(&module(
            "",
            &format!(
                "%i = OpIAdd %uint %uint_0 %uint_1\n%a = OpAccessChain %prq %g %i\n{}",
                init("%a", "%uint_0")
            ),
            "",
        ))
        .unwrap_err();
        assert!(e.contains("is not a constant (a dynamic index)"), "{e}");
    }

    #[test]
    fn an_array_passed_to_a_function_is_refused_at_the_call() {
        let after = "%h = OpFunction %void None %fnarr
%p = OpFunctionParameter %parr2
%hl = OpLabel
%pa = OpAccessChain %prq %p %int_0
OpRayQueryTerminateKHR %pa
OpReturn
OpFunctionEnd
";
        let text = module(
            "%fnarr = OpTypeFunction %void %parr2\n",
            "%c = OpFunctionCall %void %h %g\n",
            after,
        );
        let e = rewrite(&text).unwrap_err();
        assert!(
            e.starts_with("OpFunctionCall (word ")
                && e.contains("passes the array of ray queries `g` (%"),
            "{e}"
        );
        // A function that takes an element is rewritten: the call passes
        // the element's variable.
        let after = "%h = OpFunction %void None %fnq
%p = OpFunctionParameter %prq
%hl = OpLabel
OpRayQueryTerminateKHR %p
OpReturn
OpFunctionEnd
";
        let (text, _) = rewrite(&module(
            "%fnq = OpTypeFunction %void %prq\n",
            &format!(
                "%a = OpAccessChain %prq %g %int_1\n{}%c = OpFunctionCall %void %h %a\n",
                init("%a", "%uint_0")
            ),
            after,
        ))
        .unwrap();
        assert_eq!(lines_with(&text, "OpFunctionCall").len(), 1, "{text}");
        assert!(
            lines_with(&text, "OpFunctionCall")[0].ends_with(" %g_1"),
            "{text}"
        );
    }

    #[test]
    fn ray_flags_are_kept_beside_a_query_and_an_element() {
        // `q` (Function) with constant flags, `g[1]` (Private) with signed
        // flags, read as uint and as int.
        let body = format!(
            "%g1 = OpAccessChain %prq %g %int_1\n{}{}%fq = OpRayQueryGetRayFlagsKHR %uint %q\n%fg = OpRayQueryGetRayFlagsKHR %uint %g1\n%fgi = OpRayQueryGetRayFlagsKHR %int %g1\n",
            init("%q", "%uint_4"),
            init("%g1", "%int_16"),
        );
        let (text, r) = rewrite(&module("", &body, "")).unwrap();
        assert_eq!(
            r,
            Rewritten {
                arrays: 2,
                elements: 5,
                ray_flags: 3
            }
        );
        assert!(!text.contains("GetRayFlags"), "{text}");
        assert!(
            text.contains(
                "OpEntryPoint GLCompute %main \"main\" %g_0 %g_1 %g_1_ray_flags %scene\n"
            ),
            "{text}"
        );
        assert!(
            text.contains("%q_ray_flags = OpVariable %_ptr_Function_uint Function"),
            "{text}"
        );
        assert!(
            text.contains("%g_1_ray_flags = OpVariable %_ptr_Private_uint Private"),
            "{text}"
        );
        let body: Vec<String> = text
            .lines()
            .skip_while(|l| !l.contains(" = OpLoad "))
            .skip(1)
            .map(|l| l.trim().to_string())
            .collect();
        assert!(body[0].starts_with("OpRayQueryInitializeKHR %q "), "{text}");
        assert_eq!(body[1], "OpStore %q_ray_flags %uint_4", "{text}");
        assert!(
            body[2].starts_with("OpRayQueryInitializeKHR %g_1 "),
            "{text}"
        );
        assert!(body[3].ends_with(" = OpBitcast %uint %int_16"), "{text}");
        let cast = body[3].split(' ').next().unwrap();
        assert_eq!(body[4], format!("OpStore %g_1_ray_flags {cast}"), "{text}");
        assert!(body[5].ends_with(" = OpLoad %uint %q_ray_flags"), "{text}");
        assert!(
            body[6].ends_with(" = OpLoad %uint %g_1_ray_flags"),
            "{text}"
        );
        assert!(
            body[7].ends_with(" = OpLoad %uint %g_1_ray_flags"),
            "{text}"
        );
        let loaded = body[7].split(' ').next().unwrap();
        assert!(
            body[8].ends_with(&format!(" = OpBitcast %int {loaded}")),
            "{text}"
        );
        assert_eq!(body.len(), 11, "{text}");
        // The Function companion sits with the variables, after `q`.
        let q = text
            .lines()
            .position(|l| l.contains("%q = OpVariable"))
            .unwrap();
        assert!(
            text.lines()
                .nth(q + 1)
                .unwrap()
                .contains("%q_ray_flags = OpVariable"),
            "{text}"
        );
    }

    /// Negative control: only the queries whose flags are read get a
    /// companion, and a store follows only their initialisations.
    #[test]
    fn a_query_whose_flags_are_not_read_gets_no_companion() {
        let body = format!(
            "{}{}%fq = OpRayQueryGetRayFlagsKHR %uint %q\n",
            init("%q", "%uint_4"),
            "%g0 = OpAccessChain %prq %g %int_0\n".to_string() + &init("%g0", "%uint_1"),
        );
        let (text, r) = rewrite(&module("", &body, "")).unwrap();
        assert_eq!(r.ray_flags, 1);
        assert_eq!(text.matches("_ray_flags = OpVariable").count(), 1, "{text}");
        assert_eq!(text.matches("OpStore").count(), 1, "{text}");
    }

    #[test]
    fn ray_flags_of_a_function_parameter_are_refused() {
        let after = "%h = OpFunction %uint None %fnq
%p = OpFunctionParameter %frq
%hl = OpLabel
%f = OpRayQueryGetRayFlagsKHR %uint %p
OpReturnValue %f
OpFunctionEnd
";
        let e = rewrite(&module(
            "%fnq = OpTypeFunction %uint %frq\n",
            &format!("{}%c = OpFunctionCall %uint %h %q\n", init("%q", "%uint_0")),
            after,
        ))
        .unwrap_err();
        assert!(
            e.starts_with("OpRayQueryGetRayFlagsKHR (word ")
                && e.contains("is a function parameter"),
            "{e}"
        );
        // Passing a query whose flags are read to a function that
        // initialises its parameter is refused at the call.
        let after = "%h = OpFunction %void None %fnq
%p = OpFunctionParameter %frq
%hl = OpLabel
%hs = OpLoad %as %scene
OpRayQueryInitializeKHR %p %hs %uint_1 %uint_255 %origin %float_0 %dir %float_1
OpReturn
OpFunctionEnd
";
        let e = rewrite(&module(
            "%fnq = OpTypeFunction %void %frq\n",
            "%c = OpFunctionCall %void %h %q\n%f = OpRayQueryGetRayFlagsKHR %uint %q\n",
            after,
        ))
        .unwrap_err();
        assert!(
            e.starts_with("OpFunctionCall (word ")
                && e.contains("passes the ray query `q` (%")
                && e.contains("initialises a query that is a function's parameter"),
            "{e}"
        );
    }

    /// Hostile headers: an id bound with no room left is an error, not an
    /// overflow.
    #[test]
    fn no_room_for_new_ids_is_an_error() {
        let mut bound = u32::MAX - 2;
        assert_eq!(fresh(&mut bound, 2).unwrap(), u32::MAX - 2);
        assert_eq!(bound, u32::MAX);
        let e = fresh(&mut bound, 1).unwrap_err().to_string();
        assert!(e.contains("no room for the 1 ids"), "{e}");
    }

    /// Before SPIR-V 1.4 an entry point lists no Private variable: none is
    /// added.
    #[test]
    fn a_spirv_1_3_interface_stays_without_private_variables() {
        let text = module(
            "",
            &format!(
                "%g1 = OpAccessChain %prq %g %int_1\n{}%f = OpRayQueryGetRayFlagsKHR %uint %g1\n",
                init("%g1", "%uint_4")
            ),
            "",
        )
        .replace(" %g %scene", "");
        let words = crate::spirv::assemble(&text, spirv_tools::TargetEnv::Universal_1_3);
        let (out, r) = rewrite_ray_queries(&words).unwrap().unwrap();
        assert_eq!((r.elements, r.ray_flags), (5, 1));
        crate::spirv::validate::spirv_tools(&out).unwrap();
        let text = disassemble(&out);
        assert!(
            text.contains("OpEntryPoint GLCompute %main \"main\"\n"),
            "{text}"
        );
    }
}
