//! Block members given by name (`--push n=64`, `--uniform 0.2:rows=16`),
//! written at their reflected offsets over the bytes a block would
//! otherwise hold.

use super::addresses::{GivenAddress, Holder};
use super::DiffBuffer;
use crate::model::Kernel;
use crate::spirv::{BindingKind, BlockType, ScalarType, StructType};

/// A block member given a value by name (`halc diff --push n=64`,
/// `--uniform 0.2:rows=16`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamedValue {
    /// The block: `None` for the push constants, else the uniform block at
    /// (set, binding).
    pub block: Option<(u32, u32)>,
    /// The member: `n`, a nested one `s.x`, an array element `a[2]`.
    pub name: String,
    /// The value: a scalar (`64`, `-3`, `0x40`, `1.5`, `true`), or every
    /// scalar of a vector, matrix (column by column) or array, separated by
    /// commas (`1,2,3,4`).
    pub value: String,
}

impl NamedValue {
    /// Whether `s` reads as `NAME=VALUE` rather than a file name: the part
    /// before the first `=` is a member path (`n`, `s.x`, `a[2]`).
    pub fn is_assignment(s: &str) -> bool {
        s.split_once('=').is_some_and(|(name, _)| {
            name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '[' | ']'))
        })
    }
}

/// What a block is called in messages.
pub(super) fn block_subject(block: Option<(u32, u32)>) -> String {
    match block {
        None => "push constant".into(),
        Some((set, binding)) => format!("(set {set}, binding {binding}) uniform"),
    }
}

/// The members of `st`, as messages list them: `n: uint32, v: vec4<float32>`.
fn member_list(st: &StructType) -> String {
    let v: Vec<String> = st
        .members
        .iter()
        .map(|m| {
            format!(
                "{}: {}",
                m.name.as_deref().unwrap_or("(unnamed)"),
                m.ty.canonical()
            )
        })
        .collect();
    if v.is_empty() {
        "no members".into()
    } else {
        v.join(", ")
    }
}

/// Most bytes of a buffer given by `NAME=@BYTES`.
const MAX_ADDRESSED_BYTES: u64 = 64 << 20;

/// Writes `v` into `bytes`, a block of type `st` (`variable` is its
/// instance name, also accepted as a prefix: `p.n`). Errors are one line
/// naming the member and the members there are. A value `@BYTES` on a
/// 64-bit integer or a `uvec2` (an address the kernel casts to a
/// `buffer_reference`) writes nothing and returns (byte offset, BYTES): the
/// run gives that member the address of a buffer of BYTES bytes.
pub(super) fn write_named(
    bytes: &mut [u8],
    st: &StructType,
    variable: Option<&str>,
    v: &NamedValue,
) -> Result<Option<(u64, u64)>, String> {
    let subject = block_subject(v.block);
    let name = &v.name;
    let listed = || format!("the block has {}", member_list(st));
    let mut path = name.as_str();
    if let Some(rest) = variable.and_then(|var| path.strip_prefix(var)?.strip_prefix('.')) {
        let first = rest.split(['.', '[']).next().unwrap_or("");
        if st.members.iter().any(|m| m.name.as_deref() == Some(first)) {
            path = rest;
        }
    }
    // Walk the path: `ident`, `.ident`, `[index]`.
    let mut offset = 0u64;
    let mut ty_owned = BlockType::Struct(st.clone());
    let mut rest = path;
    let mut first = true;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('[') {
            let (idx, r) = r
                .split_once(']')
                .ok_or_else(|| format!("{subject} `{name}`: `[` without `]`"))?;
            let idx: u64 = idx
                .trim()
                .parse()
                .map_err(|_| format!("{subject} `{name}`: `[{idx}]` is not an index"))?;
            let BlockType::Array {
                element,
                length,
                stride,
            } = ty_owned
            else {
                return Err(format!(
                    "{subject} `{name}`: `{}` is not an array; {}",
                    &path[..path.len() - rest.len()],
                    listed()
                ));
            };
            if let Some(n) = length {
                if idx >= n {
                    return Err(format!(
                        "{subject} `{name}`: index {idx} is out of bounds: the array has {n} elements"
                    ));
                }
            }
            offset = offset.saturating_add(idx.saturating_mul(u64::from(stride)));
            ty_owned = *element;
            rest = r;
            continue;
        }
        let r = if first {
            rest
        } else {
            rest.strip_prefix('.').ok_or_else(|| {
                format!("{subject} `{name}`: expected `.member` or `[index]` at `{rest}`")
            })?
        };
        let at_top = first;
        first = false;
        let end = r.find(['.', '[']).unwrap_or(r.len());
        let (ident, r) = r.split_at(end);
        let BlockType::Struct(inner) = &ty_owned else {
            return Err(format!(
                "{subject} `{name}`: `{}` has no members; {}",
                &path[..path.len() - rest.len()],
                listed()
            ));
        };
        let Some(m) = inner
            .members
            .iter()
            .find(|m| m.name.as_deref() == Some(ident))
        else {
            let whose = if at_top {
                listed()
            } else {
                format!(
                    "`{}` has {}",
                    &path[..path.len() - rest.len()],
                    member_list(inner)
                )
            };
            return Err(format!("{subject} `{name}`: no member `{ident}`; {whose}"));
        };
        offset = offset.saturating_add(m.offset);
        let next = m.ty.clone();
        ty_owned = next;
        rest = r;
    }
    if let Some(size) = v.value.trim().strip_prefix('@') {
        let holds_address = matches!(
            ty_owned,
            BlockType::Scalar(ScalarType::UInt(64) | ScalarType::Int(64))
                | BlockType::Vector {
                    component: ScalarType::UInt(32) | ScalarType::Int(32),
                    count: 2,
                }
        );
        if !holds_address {
            let why = if matches!(ty_owned, BlockType::Pointer { .. }) {
                "a pointer, which halc diff already gives a buffer of the type it points to"
                    .to_string()
            } else {
                ty_owned.canonical()
            };
            return Err(format!(
                "{subject} `{name}` is {why}; `@BYTES` (the address of a buffer of BYTES bytes) is for a 64-bit integer or a uvec2 that the kernel casts to a buffer_reference"
            ));
        }
        let n = size
            .trim()
            .parse::<u64>()
            .ok()
            .filter(|n| (1..=MAX_ADDRESSED_BYTES).contains(n))
            .ok_or_else(|| {
                format!(
                    "{subject} `{name}`: `@{size}`: give the buffer's size in bytes, 1 to {MAX_ADDRESSED_BYTES}"
                )
            })?;
        if offset.saturating_add(8) > bytes.len() as u64 {
            return Err(format!(
                "{subject} `{name}`: byte {offset} is past the {} bytes of the block's data",
                bytes.len()
            ));
        }
        return Ok(Some((offset, n)));
    }
    let values: Vec<&str> = v.value.split(',').map(str::trim).collect();
    let mut scalars = Vec::new();
    flat_scalars(&ty_owned, 0, &mut scalars).map_err(|what| {
        format!(
            "{subject} `{name}` is {what}; give its members one by one ({})",
            listed()
        )
    })?;
    if values.len() != scalars.len() {
        return Err(format!(
            "{subject} `{name}` is {} ({} scalar{}); `{}` gives {} ({})",
            ty_owned.canonical(),
            scalars.len(),
            if scalars.len() == 1 { "" } else { "s" },
            v.value,
            values.len(),
            listed()
        ));
    }
    // Every scalar checked before any is written: a refused value leaves
    // the bytes as they were.
    let mut writes = Vec::with_capacity(scalars.len());
    for ((at, ty), text) in scalars.into_iter().zip(values) {
        let encoded = encode_scalar(ty, text).ok_or_else(|| {
            format!(
                "{subject} `{name}` is {}; `{text}` is not a{} {} ({})",
                ty_owned.canonical(),
                if matches!(ty, ScalarType::Int(_) | ScalarType::UInt(_)) {
                    "n"
                } else {
                    ""
                },
                scalar_kind(ty),
                listed()
            )
        })?;
        let at = usize::try_from(offset.saturating_add(at)).unwrap_or(usize::MAX);
        if at.saturating_add(encoded.len()) > bytes.len() {
            return Err(format!(
                "{subject} `{name}`: byte {at} is past the {} bytes of the block's data",
                bytes.len()
            ));
        }
        writes.push((at, encoded));
    }
    for (at, encoded) in writes {
        bytes[at..at + encoded.len()].copy_from_slice(&encoded);
    }
    Ok(None)
}

/// Most scalars one named value may give (an array given whole).
const MAX_NAMED_SCALARS: usize = 1 << 16;

/// What a scalar of `ty` is, for messages.
fn scalar_kind(ty: ScalarType) -> String {
    match ty {
        ScalarType::Bool => "bool (true, false, 1 or 0)".into(),
        ScalarType::Int(w) => format!("integer in the range of int{w}"),
        ScalarType::UInt(w) => format!("unsigned integer in the range of uint{w}"),
        ScalarType::Float(_) => "number".into(),
    }
}

/// Every scalar of `ty` (offset from its start, type), in the order values
/// are given: vector components, matrix columns, array elements; `Err`
/// names what cannot be given as one list (a struct, a runtime array).
fn flat_scalars(ty: &BlockType, base: u64, out: &mut Vec<(u64, ScalarType)>) -> Result<(), String> {
    match ty {
        BlockType::Array { length: None, .. } => {
            Err(format!("{}, a runtime-sized array", ty.canonical()))
        }
        BlockType::Struct(_) => Err(format!("a struct, {}", ty.canonical())),
        _ => ty
            .scalars(base, MAX_NAMED_SCALARS, out)
            .map_err(|_| format!("{}, too large to give whole", ty.canonical())),
    }
}

/// `text` as a little-endian scalar of `ty`, or `None` when it is not one
/// (a fraction for an integer, out of range, not a number).
fn encode_scalar(ty: ScalarType, text: &str) -> Option<Vec<u8>> {
    let int = |t: &str| -> Option<i128> {
        let (neg, digits) = match t.strip_prefix('-') {
            Some(d) => (true, d),
            None => (false, t.strip_prefix('+').unwrap_or(t)),
        };
        let v = match digits
            .strip_prefix("0x")
            .or_else(|| digits.strip_prefix("0X"))
        {
            Some(hex) => i128::from_str_radix(hex, 16).ok()?,
            None => digits.parse::<i128>().ok()?,
        };
        Some(if neg { -v } else { v })
    };
    match ty {
        ScalarType::Bool => {
            let b: u32 = match text {
                "true" | "1" => 1,
                "false" | "0" => 0,
                _ => return None,
            };
            Some(b.to_le_bytes().to_vec())
        }
        ScalarType::UInt(w) => {
            let v = int(text)?;
            let max = if w >= 64 {
                u64::MAX as i128
            } else {
                (1i128 << w) - 1
            };
            (0..=max)
                .contains(&v)
                .then(|| (v as u64).to_le_bytes()[..(w / 8) as usize].to_vec())
        }
        ScalarType::Int(w) => {
            let v = int(text)?;
            let half = 1i128 << (w.clamp(1, 64) - 1);
            (-half..half)
                .contains(&v)
                .then(|| (v as i64).to_le_bytes()[..(w / 8) as usize].to_vec())
        }
        ScalarType::Float(w) => {
            let v: f64 = text.parse().ok()?;
            Some(match w {
                16 => crate::spirv::specialize::f32_to_f16_bits(v as f32)
                    .to_le_bytes()
                    .to_vec(),
                32 => (v as f32).to_le_bytes().to_vec(),
                _ => v.to_le_bytes().to_vec(),
            })
        }
    }
}

/// Writes every value of `values`, in order, over the push constants or
/// the uniform block it names; an error names the block and what the
/// kernel has instead. Returns the members given `@BYTES`.
pub(super) fn apply(
    input: &str,
    k: &Kernel,
    values: &[NamedValue],
    push: &mut [u8],
    buffers: &mut [DiffBuffer],
) -> Result<Vec<GivenAddress>, String> {
    let mut given = Vec::new();
    for v in values {
        let subject = block_subject(v.block);
        // Where the value goes: the push constants, or the uniform block
        // (every element of an array of them).
        let (block, holders) = match v.block {
            None => match &k.blocks.push_constants {
                Some(block) => (block, vec![Holder::Push]),
                None => {
                    return Err(format!(
                    "{input}: {subject} `{}` was given, but kernel `{}` has no push-constant block",
                    v.name, k.name
                ))
                }
            },
            Some((set, binding)) => {
                let uniforms: Vec<String> = (buffers.iter())
                    .filter(|b| b.kind == BindingKind::UniformBuffer && b.element == 0)
                    .map(|b| format!("{}.{}", b.set, b.binding))
                    .collect();
                let theirs = if uniforms.is_empty() {
                    "it has no uniform block".to_string()
                } else {
                    format!("its uniform blocks are {}", uniforms.join(", "))
                };
                let Some(i) = (buffers.iter()).position(|b| (b.set, b.binding) == (set, binding))
                else {
                    return Err(format!(
                        "{input}: `{set}.{binding}:{}`: kernel `{}` binds nothing at (set {set}, binding {binding}); {theirs}",
                        v.name, k.name
                    ));
                };
                match k.blocks.buffer(set, binding) {
                    Some(block) if buffers[i].kind == BindingKind::UniformBuffer => (
                        block,
                        (i..i + buffers[i].count as usize)
                            .map(Holder::Buffer)
                            .collect(),
                    ),
                    _ => {
                        return Err(format!(
                            "{input}: `{set}.{binding}:{}`: (set {set}, binding {binding}) of kernel `{}` is a {}, not a uniform block (give its contents with --buffer {set}.{binding}=FILE); {theirs}",
                            v.name,
                            k.name,
                            buffers[i].kind.describe()
                        ))
                    }
                }
            }
        };
        for holder in holders {
            let bytes = match holder {
                Holder::Buffer(i) => buffers[i].bytes.as_mut_slice(),
                _ => &mut *push,
            };
            if let Some((at, bytes)) = write_named(bytes, &block.ty, block.variable.as_deref(), v)
                .map_err(|e| format!("{input}: {e}"))?
            {
                given.push(GivenAddress {
                    at: (holder, at),
                    bytes,
                    what: format!(
                        "the buffer of {bytes} bytes given to {subject} `{}`",
                        v.name
                    ),
                });
            }
        }
    }
    Ok(given)
}
