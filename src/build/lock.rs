//! The ABI lock (`halc compile --lock halc.lock`): the part of an
//! executable host code depends on — kernel names, threadgroup sizes, every
//! resource's Metal slot, push constants, function constants — recorded in
//! a reviewable TOML file. A build whose result differs from the lock fails
//! with one line per change (`saxpy: set 0 binding 1 moved from buffer 1 to
//! buffer 2`); `--update-lock` rewrites it. For teams whose host code and
//! shaders change separately.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::describe::reflection::{self, Reflection};

/// Version of the lock format.
pub const VERSION: u32 = 1;

const HEADER: &str = "\
# halc ABI lock: what host code relies on in the executable built beside it.
# `halc compile --lock FILE` fails when a build changes any of it;
# `halc compile --lock FILE --update-lock` rewrites this file. Review changes.
";

/// An ABI lock.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lock {
    /// Always [`VERSION`].
    pub version: u32,
    /// Kernels, sorted by name.
    #[serde(default, rename = "kernel")]
    pub kernels: Vec<LockedKernel>,
}

/// What host code relies on in one kernel.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LockedKernel {
    /// Kernel name.
    pub name: String,
    /// Threads per threadgroup.
    pub threadgroup_size: [u32; 3],
    /// Dimensions driven by a function constant: `x`/`y`/`z` → id.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub threadgroup_size_spec_ids: BTreeMap<String, u32>,
    /// `argument-buffers` or `discrete`.
    pub binding_model: String,
    /// Push constants: slot and size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub push_constants: Option<LockedBlock>,
    /// The kernel-level buffer-sizes table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer_sizes: Option<LockedSizes>,
    /// Argument buffers.
    #[serde(
        default,
        rename = "argument_buffer",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub argument_buffers: Vec<LockedArgumentBuffer>,
    /// Resources.
    #[serde(default, rename = "resource", skip_serializing_if = "Vec::is_empty")]
    pub resources: Vec<LockedResource>,
    /// Function constants.
    #[serde(
        default,
        rename = "function_constant",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub function_constants: Vec<LockedConstant>,
}

/// Push constants.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LockedBlock {
    /// `[[buffer(N)]]`.
    pub buffer: u32,
    /// Bytes.
    pub size: u32,
    /// Members in offset order.
    #[serde(default, rename = "member", skip_serializing_if = "Vec::is_empty")]
    pub members: Vec<LockedMember>,
}

/// A push-constant member.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LockedMember {
    /// Name (may be empty).
    pub name: String,
    /// Byte offset.
    pub offset: u32,
    /// Canonical layout.
    #[serde(rename = "type")]
    pub ty: String,
}

/// The kernel-level buffer-sizes table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LockedSizes {
    /// `[[buffer(N)]]`.
    pub buffer: u32,
    /// Entries.
    pub entries: u32,
}

/// An argument buffer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LockedArgumentBuffer {
    /// Descriptor set.
    pub set: u32,
    /// `[[buffer(N)]]`.
    pub buffer: u32,
    /// Bytes.
    pub size: u32,
}

/// A resource and its slot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LockedResource {
    /// Descriptor set.
    pub set: u32,
    /// Binding.
    pub binding: u32,
    /// Kind (reflection JSON names).
    pub kind: String,
    /// Access.
    pub access: String,
    /// Array elements.
    pub count: u32,
    /// Smallest valid size in bytes.
    pub min_size: u64,
    /// Trailing runtime-array stride.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime_array_stride: Option<u32>,
    /// Discrete `[[buffer(N)]]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer: Option<u32>,
    /// Discrete `[[texture(N)]]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub texture: Option<u32>,
    /// Discrete `[[sampler(N)]]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampler: Option<u32>,
    /// Argument-buffer `[[id(N)]]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<u32>,
    /// Byte offset of `id`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub byte_offset: Option<u32>,
    /// Argument-buffer sampler `[[id(N)]]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampler_id: Option<u32>,
    /// Byte offset of `sampler_id`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampler_byte_offset: Option<u32>,
    /// Emulated image atomics (MSL below 3.1): the discrete `[[buffer(N)]]`
    /// of the buffer the image's texture was created on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub atomic_buffer: Option<u32>,
    /// Its argument-buffer `[[id(N)]]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub atomic_id: Option<u32>,
    /// Byte offset of `atomic_id`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub atomic_byte_offset: Option<u32>,
    /// Bytes the texture's rows are aligned to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub atomic_row_alignment: Option<u32>,
}

/// A function constant.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LockedConstant {
    /// `[[function_constant(id)]]`.
    pub id: u32,
    /// Its Metal type.
    #[serde(rename = "type")]
    pub ty: String,
}

/// A lock file that cannot be read.
#[derive(Debug, thiserror::Error)]
#[error("{line}:{column}: {message}")]
pub struct ParseError {
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    /// What is wrong.
    pub message: String,
}

impl Lock {
    /// The lock of an executable.
    pub fn of(r: &Reflection) -> Lock {
        Lock {
            version: VERSION,
            kernels: r.kernels.iter().map(kernel).collect(),
        }
    }

    /// Reads a lock file's text.
    pub fn parse(text: &str) -> Result<Lock, ParseError> {
        let lock: Lock = toml::from_str(text).map_err(|e| {
            let (line, column, message) = crate::position::error(text, &e);
            ParseError {
                line,
                column,
                message,
            }
        })?;
        if lock.version != VERSION {
            return Err(ParseError {
                line: 1,
                column: 1,
                message: format!(
                    "lock format version {} is not the version {VERSION} this halc writes",
                    lock.version
                ),
            });
        }
        Ok(lock)
    }

    /// The lock file's text (deterministic).
    pub fn to_toml(&self) -> String {
        let body = toml::to_string(self).expect("lock serialises");
        format!("{HEADER}\n{body}")
    }

    /// Every difference from `self` (the locked ABI) to `new`, one sentence
    /// each, prefixed by the kernel; empty when they agree.
    pub fn changes(&self, new: &Lock) -> Vec<String> {
        let old: BTreeMap<&str, Facts> = self
            .kernels
            .iter()
            .map(|k| (k.name.as_str(), facts(k)))
            .collect();
        let new: BTreeMap<&str, Facts> = new
            .kernels
            .iter()
            .map(|k| (k.name.as_str(), facts(k)))
            .collect();
        let mut out = Vec::new();
        for (name, o) in &old {
            match new.get(name) {
                None => out.push(format!("{name}: kernel removed")),
                Some(n) => compare(name, o, n, &mut out),
            }
        }
        for name in new.keys().filter(|n| !old.contains_key(*n)) {
            out.push(format!("{name}: kernel added"));
        }
        out
    }
}

fn kernel(k: &reflection::Kernel) -> LockedKernel {
    let t = &k.threadgroup_size;
    let s = &k.threadgroup_size_spec_ids;
    LockedKernel {
        name: k.name.clone(),
        threadgroup_size: [t.x, t.y, t.z],
        threadgroup_size_spec_ids: [("x", s.x), ("y", s.y), ("z", s.z)]
            .into_iter()
            .filter_map(|(d, id)| Some((d.to_string(), id?)))
            .collect(),
        binding_model: k.binding_model.clone(),
        push_constants: k.push_constants.as_ref().map(|p| LockedBlock {
            buffer: p.buffer_index,
            size: p.size,
            members: p
                .members
                .iter()
                .map(|m| LockedMember {
                    name: m.name.clone(),
                    offset: m.offset,
                    ty: m.ty.clone(),
                })
                .collect(),
        }),
        buffer_sizes: k.buffer_sizes.as_ref().map(|b| LockedSizes {
            buffer: b.buffer_index,
            entries: b.entries,
        }),
        argument_buffers: k
            .argument_buffers
            .iter()
            .map(|a| LockedArgumentBuffer {
                set: a.set,
                buffer: a.buffer_index,
                size: a.size,
            })
            .collect(),
        resources: k
            .resources
            .iter()
            .map(|r| LockedResource {
                set: r.set,
                binding: r.binding,
                kind: r.kind.clone(),
                access: r.access.clone(),
                count: r.count,
                min_size: r.min_size,
                runtime_array_stride: r.runtime_array_stride,
                buffer: r.buffer_index,
                texture: r.texture_index,
                sampler: r.sampler_index,
                id: r.id,
                byte_offset: r.byte_offset,
                sampler_id: r.sampler_id,
                sampler_byte_offset: r.sampler_byte_offset,
                atomic_buffer: r.image_atomic_buffer.as_ref().and_then(|a| a.buffer_index),
                atomic_id: r.image_atomic_buffer.as_ref().and_then(|a| a.id),
                atomic_byte_offset: r.image_atomic_buffer.as_ref().and_then(|a| a.byte_offset),
                atomic_row_alignment: r.image_atomic_buffer.as_ref().map(|a| a.row_alignment),
            })
            .collect(),
        function_constants: k
            .function_constants
            .iter()
            .map(|c| LockedConstant {
                id: c.id,
                ty: c.ty.clone(),
            })
            .collect(),
    }
}

/// One thing a kernel has (`set 0 binding 1`), with where it is (its slot,
/// compared as a whole: "moved from … to …") and what it is (attributes,
/// compared one by one: "… changed from … to …").
#[derive(Debug, Default)]
struct Fact {
    place: Vec<String>,
    attributes: Vec<(&'static str, String)>,
}

type Facts = BTreeMap<String, Fact>;

fn facts(k: &LockedKernel) -> Facts {
    let mut f = Facts::new();
    let [x, y, z] = k.threadgroup_size;
    let spec: Vec<String> = k
        .threadgroup_size_spec_ids
        .iter()
        .map(|(d, id)| format!("{d} from function constant {id}"))
        .collect();
    f.insert(
        "threadgroup size".into(),
        Fact {
            attributes: vec![("", format!("{x}x{y}x{z}")), ("source", spec.join(", "))],
            ..Fact::default()
        },
    );
    f.insert(
        "binding model".into(),
        Fact {
            attributes: vec![("", k.binding_model.clone())],
            ..Fact::default()
        },
    );
    if let Some(p) = &k.push_constants {
        f.insert(
            "push constants".into(),
            Fact {
                place: vec![format!("buffer {}", p.buffer)],
                attributes: vec![("size", format!("{} bytes", p.size))],
            },
        );
    }
    for (i, m) in k.push_constants.iter().flat_map(|p| &p.members).enumerate() {
        let subject = if m.name.is_empty() {
            format!("push constant member {i}")
        } else {
            format!("push constant `{}`", m.name)
        };
        f.insert(
            subject,
            Fact {
                place: vec![format!("offset {}", m.offset)],
                attributes: vec![("type", m.ty.clone())],
            },
        );
    }
    if let Some(b) = &k.buffer_sizes {
        f.insert(
            "buffer-sizes table".into(),
            Fact {
                place: vec![format!("buffer {}", b.buffer)],
                attributes: vec![("entries", b.entries.to_string())],
            },
        );
    }
    for a in &k.argument_buffers {
        f.insert(
            format!("argument buffer of set {}", a.set),
            Fact {
                place: vec![format!("buffer {}", a.buffer)],
                attributes: vec![("size", format!("{} bytes", a.size))],
            },
        );
    }
    for r in &k.resources {
        let mut place = Vec::new();
        let slots = [
            ("buffer", r.buffer),
            ("texture", r.texture),
            ("sampler", r.sampler),
            ("id", r.id),
            ("byte offset", r.byte_offset),
            ("sampler id", r.sampler_id),
            ("sampler byte offset", r.sampler_byte_offset),
            ("image-atomic buffer", r.atomic_buffer),
            ("image-atomic id", r.atomic_id),
            ("image-atomic byte offset", r.atomic_byte_offset),
            ("image-atomic row alignment", r.atomic_row_alignment),
        ];
        for (what, v) in slots {
            if let Some(v) = v {
                place.push(format!("{what} {v}"));
            }
        }
        f.insert(
            format!("set {} binding {}", r.set, r.binding),
            Fact {
                place,
                attributes: vec![
                    ("kind", r.kind.clone()),
                    ("access", r.access.clone()),
                    ("count", r.count.to_string()),
                    ("minimum size", format!("{} bytes", r.min_size)),
                    (
                        "runtime array stride",
                        r.runtime_array_stride
                            .map_or("none".into(), |s| format!("{s} bytes")),
                    ),
                ],
            },
        );
    }
    for c in &k.function_constants {
        f.insert(
            format!("function constant {}", c.id),
            Fact {
                attributes: vec![("type", c.ty.clone())],
                ..Fact::default()
            },
        );
    }
    f
}

fn describe(fact: &Fact) -> String {
    let mut parts: Vec<String> = fact.place.clone();
    parts.extend(
        fact.attributes
            .iter()
            .filter(|(_, v)| !v.is_empty())
            .map(|(k, v)| {
                if k.is_empty() {
                    v.clone()
                } else {
                    format!("{k} {v}")
                }
            }),
    );
    parts.join(", ")
}

fn compare(name: &str, old: &Facts, new: &Facts, out: &mut Vec<String>) {
    for (subject, o) in old {
        let Some(n) = new.get(subject) else {
            out.push(format!("{name}: {subject} removed (was {})", describe(o)));
            continue;
        };
        if o.place != n.place {
            out.push(format!(
                "{name}: {subject} moved from {} to {}",
                o.place.join(", "),
                n.place.join(", ")
            ));
        }
        for ((what, a), (_, b)) in o.attributes.iter().zip(&n.attributes) {
            if a != b {
                let shown = |v: &str| {
                    if v.is_empty() {
                        "none".to_string()
                    } else {
                        v.to_string()
                    }
                };
                let what = if what.is_empty() {
                    String::new()
                } else {
                    format!(" {what}")
                };
                out.push(format!(
                    "{name}: {subject}{what} changed from {} to {}",
                    shown(a),
                    shown(b)
                ));
            }
        }
    }
    for (subject, n) in new {
        if !old.contains_key(subject) {
            out.push(format!("{name}: {subject} added ({})", describe(n)));
        }
    }
}
