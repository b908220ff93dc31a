//! The text `halc inspect` prints: the [reflection](super::reflection) of an
//! executable, rendered for a reader. There is one decoder of an executable
//! (the reflection, which `halc inspect --json` prints whole); this is a
//! view of it, in its vocabulary.

use std::fmt::Write;

use runtime_loader::LoadError;

use super::reflection::{Reflection, Value};

/// Loads, verifies and reflects `bytes` ([`Reflection::from_bytes`]).
pub fn decode(bytes: &[u8]) -> Result<Reflection, LoadError> {
    Reflection::from_bytes(bytes)
}

/// Human-readable text of a reflected executable.
pub fn render(r: &Reflection) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "halc executable, format version {}",
        r.executable_format_version
    );
    if let Some(b) = &r.build {
        let _ = writeln!(
            s,
            "built by halc {} with {}; options: {}",
            b.halc_version,
            b.spirv_cross_version,
            b.options.join(" ")
        );
        let _ = writeln!(s, "inputs sha256 {}", b.inputs_sha256);
    }
    for k in &r.kernels {
        let _ = writeln!(s);
        let sizes = [
            k.threadgroup_size.x,
            k.threadgroup_size.y,
            k.threadgroup_size.z,
        ];
        let specs = [
            k.threadgroup_size_spec_ids.x,
            k.threadgroup_size_spec_ids.y,
            k.threadgroup_size_spec_ids.z,
        ];
        let tg: Vec<String> = sizes
            .iter()
            .zip(specs)
            .map(|(n, spec)| match spec {
                Some(id) => format!("{n} (spec {id})"),
                None => n.to_string(),
            })
            .collect();
        let _ = writeln!(
            s,
            "kernel {} (entry point `{}` of {}) -> MSL `{}` (library {})",
            k.name, k.entry_point, k.source_file, k.msl_function, k.library
        );
        let _ = writeln!(
            s,
            "  threadgroup size [{}], max threads {}, threadgroup memory {} B, bindings: {}",
            tg.join(", "),
            k.max_total_threads_per_threadgroup,
            k.threadgroup_memory_bytes,
            k.binding_model
        );
        if k.capabilities
            .iter()
            .any(|c| c == "PhysicalStorageBufferAddresses")
        {
            let _ = writeln!(
                s,
                "  reads device addresses (PhysicalStorageBufferAddresses): give every buffer they point into to the dispatch with `reach`"
            );
        }
        for a in &k.argument_buffers {
            let _ = write!(
                s,
                "  argument buffer set {} at [[buffer({})]], {} bytes",
                a.set, a.buffer_index, a.size
            );
            if let Some(m) = &a.buffer_sizes {
                let _ = write!(
                    s,
                    ", buffer sizes at [[id({})]] byte {}",
                    m.id, m.byte_offset
                );
            }
            let _ = writeln!(s);
        }
        for b in &k.resources {
            let mut slots = Vec::new();
            if let Some(i) = b.buffer_index {
                slots.push(format!("[[buffer({i})]]"));
            }
            if let Some(i) = b.texture_index {
                slots.push(format!("[[texture({i})]]"));
            }
            if let Some(i) = b.sampler_index {
                slots.push(format!("[[sampler({i})]]"));
            }
            if let (Some(i), Some(o)) = (b.id, b.byte_offset) {
                slots.push(format!("[[id({i})]] @ byte {o}"));
            }
            if let (Some(i), Some(o)) = (b.sampler_id, b.sampler_byte_offset) {
                slots.push(format!("sampler [[id({i})]] @ byte {o}"));
            }
            if let Some(a) = &b.image_atomic_buffer {
                let at = match (a.buffer_index, a.id, a.byte_offset) {
                    (Some(i), _, _) => format!("[[buffer({i})]]"),
                    (_, Some(i), Some(o)) => format!("[[id({i})]] @ byte {o}"),
                    _ => "?".into(),
                };
                slots.push(format!(
                    "atomics through its texture's buffer at {at} (rows aligned to {} B)",
                    a.row_alignment
                ));
            }
            let mut extra = String::new();
            if b.count != 1 {
                let _ = write!(extra, " x{}", b.count);
            }
            if b.min_size > 0 || b.runtime_array_stride.is_some() {
                let _ = write!(extra, ", min {} B", b.min_size);
                if let Some(stride) = b.runtime_array_stride {
                    let _ = write!(extra, " + n x {stride} B");
                }
            }
            if let Some(i) = b.buffer_sizes_index {
                let _ = write!(extra, ", length in sizes[{i}]");
            }
            let _ = writeln!(
                s,
                "  (set {}, binding {}) {} {}{} -> {}{}",
                b.set,
                b.binding,
                b.kind,
                b.access,
                extra,
                slots.join(", "),
                named(&b.name)
            );
        }
        if let Some(p) = &k.push_constants {
            let _ = writeln!(
                s,
                "  push constants {} B at [[buffer({})]]",
                p.size, p.buffer_index
            );
            for m in &p.members {
                let n = if m.name.is_empty() {
                    "(unnamed)"
                } else {
                    &m.name
                };
                let _ = writeln!(s, "    `{n}` @ byte {}, {} B: {}", m.offset, m.size, m.ty);
            }
        }
        if let Some(t) = &k.buffer_sizes {
            let _ = writeln!(
                s,
                "  buffer-sizes table at [[buffer({})]], {} entries",
                t.buffer_index, t.entries
            );
        }
        for f in &k.function_constants {
            let _ = writeln!(
                s,
                "  function constant {}: {} = {}{}",
                f.id,
                f.ty,
                text(f.default),
                named(&f.name)
            );
            for a in &f.aliases {
                let _ = writeln!(
                    s,
                    "    also declared as {} = {}{}",
                    a.ty,
                    text(a.default),
                    named(&a.name)
                );
            }
        }
        for c in &k.baked_constants {
            let _ = writeln!(
                s,
                "  baked spec constant {}: {} = {}",
                c.id,
                c.ty,
                text(c.value)
            );
        }
    }
    for (i, l) in r.libraries.iter().enumerate() {
        let _ = writeln!(
            s,
            "\nlibrary {i}: MSL {} ({} math, {}, argument buffers tier {}), source {}, metallib {}",
            l.msl_version,
            l.math_mode,
            l.platform,
            l.argument_buffer_tier,
            l.msl_bytes.map_or("absent".into(), |n| format!("{n} B")),
            l.metallib.as_ref().map_or("absent".into(), |m| format!(
                "{} B ({})",
                m.bytes, m.toolchain
            )),
        );
    }
    s
}

/// `  \`name\`` after what it names, nothing for no name.
fn named(name: &str) -> String {
    if name.is_empty() {
        String::new()
    } else {
        format!("  `{name}`")
    }
}

/// A value as the reflection JSON writes it (`nan`, `inf` and `-inf` for
/// the floats JSON has no number for).
fn text(v: Value) -> String {
    match v {
        Value::Bool(b) => b.to_string(),
        Value::UInt(n) => n.to_string(),
        Value::Int(n) => n.to_string(),
        Value::Float(f) => serde_json::to_string(&f).unwrap_or_else(|_| f.to_string()),
        Value::Double(f) => serde_json::to_string(&f).unwrap_or_else(|_| f.to_string()),
        Value::NonFinite(n) => serde_json::to_value(n)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_else(|| format!("{n:?}")),
    }
}

#[cfg(test)]
mod tests {
    use super::super::reflection::NonFinite;
    use super::*;

    #[test]
    fn values_read_as_the_json_writes_them() {
        assert_eq!(text(Value::Bool(true)), "true");
        assert_eq!(text(Value::Int(-4)), "-4");
        assert_eq!(text(Value::UInt(128)), "128");
        assert_eq!(text(Value::Float(2.5)), "2.5");
        assert_eq!(text(Value::Double(0.1)), "0.1");
        assert_eq!(text(Value::NonFinite(NonFinite::Nan)), "nan");
        assert_eq!(text(Value::NonFinite(NonFinite::NegInf)), "-inf");
        assert_eq!(named(""), "");
        assert_eq!(named("ALPHA"), "  `ALPHA`");
    }
}
