//! Checks generated MSL against the layout it was generated from: the kernel
//! signature must carry exactly the `[[buffer]]`, `[[texture]]` and
//! `[[sampler]]` indices the layout says, each argument-buffer struct exactly
//! its `[[id]]`s in the recorded order (so the recorded byte offsets hold),
//! and a literal `gl_WorkGroupSize` must equal the reflected size. A mismatch
//! means SPIRV-Cross did something halc did not ask for: never a silent output.

use std::collections::BTreeMap;

use super::layout::{KernelLayout, SLOT_BYTES};
use crate::spirv::WorkgroupSize;

/// Slot table of a kernel parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Table {
    Buffer,
    Texture,
    Sampler,
}

impl std::fmt::Display for Table {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Table::Buffer => "buffer",
            Table::Texture => "texture",
            Table::Sampler => "sampler",
        })
    }
}

/// Splits `s` at top-level commas (outside (), <>, []).
fn split_top(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, ch) in s.char_indices() {
        match ch {
            '(' | '<' | '[' => depth += 1,
            ')' | '>' | ']' => depth -= 1,
            ',' if depth == 0 => {
                out.push(s[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    if !s[start..].trim().is_empty() {
        out.push(s[start..].trim());
    }
    out
}

// The MSL is scanned with the few fixed patterns below, written out by hand:
// compiling them as regular expressions was half of a small kernel's whole
// compile when done per call, and still a third of the check's time once per
// process (issue 14).

/// Byte offset of the first `needle` in `hay`. The whole MSL is searched
/// this way (memchr's vectorised search): the standard library's two-way
/// search over a batch's megabytes of MSL was a quarter of halc's own work in
/// the parent (issue 14).
fn find(hay: &str, needle: &str) -> Option<usize> {
    memchr::memmem::find(hay.as_bytes(), needle.as_bytes())
}

/// `s` after leading ASCII digits, and the digits (at least one).
fn digits(s: &str) -> Option<(&str, &str)> {
    let end = s
        .bytes()
        .position(|b| !b.is_ascii_digit())
        .unwrap_or(s.len());
    (end > 0).then(|| (&s[..end], &s[end..]))
}

/// The first `[[NAME(DIGITS)]]` in `s` with NAME among `names`: (NAME, DIGITS).
fn attribute<'a>(s: &'a str, names: &[&'static str]) -> Option<(&'static str, &'a str)> {
    let mut rest = s;
    while let Some(at) = rest.find("[[") {
        let after = &rest[at + 2..];
        for name in names {
            let found = after
                .strip_prefix(name)
                .and_then(|a| a.strip_prefix('('))
                .and_then(digits)
                .and_then(|(d, a)| a.starts_with(")]]").then_some(d));
            if let Some(d) = found {
                return Some((name, d));
            }
        }
        rest = after;
    }
    None
}

/// `N` of a declaration starting `array<T, N>` (after an optional `const`):
/// the last `, N>` of the line, as the type may nest templates.
fn array_count(decl: &str) -> Option<&str> {
    let d = decl.trim_start();
    let d = match d.strip_prefix("const") {
        Some(r) if r.starts_with(char::is_whitespace) => r.trim_start(),
        _ => d,
    };
    let body = d.strip_prefix("array<")?;
    body.rmatch_indices(',').find_map(|(i, _)| {
        let (n, rest) = digits(body[i + 1..].trim_start())?;
        rest.trim_start().starts_with('>').then_some(n)
    })
}

/// `N` of a declaration ending `]] [N];` (a C array of the attribute's type).
fn trailing_count(decl: &str) -> Option<&str> {
    let d = decl.trim_end();
    let d = d.strip_suffix(';').unwrap_or(d).trim_end();
    let d = d.strip_suffix(']')?;
    let open = d.rfind('[')?;
    let n = &d[open + 1..];
    if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    d[..open].trim_end().ends_with("]]").then_some(n)
}

/// The components of `constant uint3 gl_WorkGroupSize [[maybe_unused]] =
/// uint3(...);`, when the MSL declares it with a literal.
fn workgroup_literal(msl: &str) -> Option<&str> {
    const HEAD: &str = "constant uint3 gl_WorkGroupSize [[maybe_unused]] = uint3(";
    let mut rest = msl;
    while let Some(at) = find(rest, HEAD) {
        let after = &rest[at + HEAD.len()..];
        if let Some(inner) = after
            .find(';')
            .and_then(|semi| after[..semi].strip_suffix(')'))
        {
            return Some(inner);
        }
        rest = after;
    }
    None
}

/// Element count of a declaration: `array<T, N>` or a trailing `[N]`.
fn decl_count(decl: &str) -> u32 {
    if let Some(n) = array_count(decl) {
        return n.parse().unwrap_or(1);
    }
    if let Some(n) = trailing_count(decl) {
        return n.parse().unwrap_or(1);
    }
    1
}

/// The parameter list of `kernel void NAME(...)`.
fn kernel_params<'a>(msl: &'a str, name: &str) -> Option<&'a str> {
    let head = format!("kernel void {name}(");
    let start = find(msl, &head)? + head.len();
    let mut depth = 1i32;
    for (i, ch) in msl[start..].char_indices() {
        match ch {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(&msl[start..start + i]);
                }
            }
            _ => {}
        }
    }
    None
}

/// Members of `struct spvDescriptorSetBuffer{set}` as (id, count) in order.
fn argument_struct(msl: &str, set: u32) -> Option<Vec<(u32, u32)>> {
    let head = format!("struct spvDescriptorSetBuffer{set}\n{{");
    let start = find(msl, &head)? + head.len();
    let end = start + find(&msl[start..], "\n};")?;
    let mut out = Vec::new();
    for line in msl[start..end].lines() {
        let line = line.trim();
        if line.starts_with("//") {
            continue;
        }
        if let Some((_, id)) = attribute(line, &["id"]) {
            out.push((id.parse().unwrap_or(u32::MAX), decl_count(line)));
        }
    }
    Some(out)
}

/// Verifies `msl` (function `function_name`) against `layout`.
pub fn check(
    msl: &str,
    function_name: &str,
    layout: &KernelLayout,
    workgroup: &WorkgroupSize,
) -> Result<(), String> {
    // Expected kernel-level slots: (table, index) -> what.
    let mut expected: BTreeMap<(Table, u32), String> = BTreeMap::new();
    let mut add = |t: Table, start: u32, count: u32, what: String| {
        for i in start..start + count.max(1) {
            expected.insert((t, i), what.clone());
        }
    };
    for ab in &layout.argument_buffers {
        add(
            Table::Buffer,
            ab.buffer_index,
            1,
            format!("argument buffer of set {}", ab.set),
        );
    }
    for b in &layout.bindings {
        let what = format!("(set {}, binding {})", b.set, b.binding);
        if let Some(i) = b.buffer_index {
            add(Table::Buffer, i, b.count, what.clone());
        }
        if let Some(i) = b.texture_index {
            add(Table::Texture, i, b.count, what.clone());
        }
        if let Some(i) = b.sampler_index {
            add(Table::Sampler, i, b.count, what.clone());
        }
        if let Some(i) = b.atomic_buffer.and_then(|a| a.buffer_index) {
            add(
                Table::Buffer,
                i,
                1,
                format!("image-atomic buffer of {what}"),
            );
        }
    }
    if let Some(pc) = &layout.push_constants {
        add(Table::Buffer, pc.buffer_index, 1, "push constants".into());
    }
    if let Some(i) = layout.sizes_buffer_index {
        add(Table::Buffer, i, 1, "buffer-sizes table".into());
    }

    let params = kernel_params(msl, function_name)
        .ok_or_else(|| format!("no `kernel void {function_name}(` in the generated MSL"))?;
    let mut found: BTreeMap<(Table, u32), String> = BTreeMap::new();
    let mut ab_params: BTreeMap<u32, String> = BTreeMap::new();
    for p in split_top(params) {
        let Some((table, idx)) = attribute(p, &["buffer", "texture", "sampler"]) else {
            continue;
        };
        let t = match table {
            "buffer" => Table::Buffer,
            "texture" => Table::Texture,
            _ => Table::Sampler,
        };
        let idx: u32 = idx.parse().map_err(|_| format!("bad index in `{p}`"))?;
        if t == Table::Buffer {
            ab_params.insert(idx, p.to_string());
        }
        for i in idx..idx + decl_count(p) {
            if found.insert((t, i), p.to_string()).is_some() {
                return Err(format!("MSL binds two parameters at [[{t}({i})]]"));
            }
        }
    }
    for ((t, i), what) in &expected {
        if !found.contains_key(&(*t, *i)) {
            return Err(format!(
                "layout puts {what} at [[{t}({i})]] but the MSL kernel has no such parameter"
            ));
        }
    }
    for ((t, i), p) in &found {
        if !expected.contains_key(&(*t, *i)) {
            return Err(format!(
                "MSL kernel parameter `{p}` uses [[{t}({i})]], which the layout does not assign"
            ));
        }
    }

    for ab in &layout.argument_buffers {
        let set = ab.set;
        let param = &ab_params[&ab.buffer_index];
        if !param.contains(&format!("spvDescriptorSetBuffer{set}&")) {
            return Err(format!(
                "[[buffer({})]] should be the argument buffer of set {set}, MSL has `{param}`",
                ab.buffer_index
            ));
        }
        let members = argument_struct(msl, set)
            .ok_or_else(|| format!("no struct spvDescriptorSetBuffer{set} in the generated MSL"))?;
        // Expected members in id order with their byte offsets.
        let mut want: Vec<(u32, u32, u32, String)> = Vec::new();
        for b in layout.bindings.iter().filter(|b| b.set == set) {
            let what = format!("(set {}, binding {})", b.set, b.binding);
            if let (Some(id), Some(off)) = (b.id, b.byte_offset) {
                want.push((id, b.count, off, what.clone()));
            }
            if let (Some(id), Some(off)) = (b.sampler_id, b.sampler_byte_offset) {
                want.push((id, b.count, off, format!("sampler of {what}")));
            }
            if let Some((id, off)) = b.atomic_buffer.and_then(|a| a.id.zip(a.byte_offset)) {
                want.push((id, 1, off, format!("image-atomic buffer of {what}")));
            }
        }
        if let (Some(id), Some(off)) = (ab.sizes_id, ab.sizes_byte_offset) {
            want.push((id, 1, off, "buffer-sizes table".into()));
        }
        want.sort();
        let got: Vec<(u32, u32)> = members.clone();
        let want_ids: Vec<(u32, u32)> = want.iter().map(|w| (w.0, w.1)).collect();
        if got != want_ids {
            return Err(format!(
                "argument buffer of set {set}: MSL members (id, count) {got:?}, layout {want_ids:?}"
            ));
        }
        let mut off = 0;
        for (id, count, recorded, what) in &want {
            if *recorded != off {
                return Err(format!(
                    "argument buffer of set {set}: {what} [[id({id})]] is at byte {off} in the MSL struct, layout records {recorded}"
                ));
            }
            off += count * SLOT_BYTES;
        }
        if off != ab.size {
            return Err(format!(
                "argument buffer of set {set} is {off} bytes in the MSL, layout records {}",
                ab.size
            ));
        }
    }

    // Emulated image atomics: the row alignment the MSL indexes the
    // texture's buffer with must be the recorded one.
    if let Some(a) = layout.bindings.iter().find_map(|b| b.atomic_buffer) {
        const HEAD: &str = "spvLinearTextureAlignmentOverride : ";
        let n = find(msl, HEAD)
            .and_then(|at| digits(&msl[at + HEAD.len()..]))
            .map(|(d, _)| d)
            .ok_or("the layout records emulated image atomics but the MSL has no `spvLinearTextureAlignment`")?;
        if n != a.row_alignment.to_string() {
            return Err(format!(
                "the MSL's emulated image atomics assume rows aligned to {n} bytes, the layout records {}",
                a.row_alignment
            ));
        }
    }

    // A literal gl_WorkGroupSize must be the reflected one.
    if let Some(components) = workgroup_literal(msl) {
        let parts: Vec<&str> = split_top(components);
        let parts: Vec<&str> = if parts.len() == 1 {
            vec![parts[0]; 3]
        } else {
            parts
        };
        for (axis, (p, dim)) in parts.iter().zip(workgroup.dims.iter()).enumerate() {
            let fail = |what: String| {
                Err(format!(
                    "MSL gl_WorkGroupSize[{axis}] is {what}, the SPIR-V says {}{}",
                    dim.value,
                    if dim.spec_id.is_some() {
                        " (spec constant)"
                    } else {
                        ""
                    }
                ))
            };
            match workgroup_component(msl, p) {
                Component::Literal(v) if dim.spec_id.is_some() || v != dim.value => {
                    return fail(v.to_string())
                }
                // Fixed by SPIRV-Cross (the constant sizes an array): the
                // value must be the reflected one, specialisable or not.
                Component::Macro(v) if v != dim.value => {
                    return fail(format!("`{p}`, fixed at {v}"));
                }
                Component::FunctionConstant(d) if dim.spec_id.is_none() || d != dim.value => {
                    return fail(format!("`{p}`, a function constant with default {d}"));
                }
                Component::Unknown if dim.spec_id.is_none() => {
                    return fail(format!("`{p}`"));
                }
                _ => {}
            }
        }
    }
    Ok(())
}

/// A declaration with its address space written twice (`threadgroup
/// threadgroup int* p;`), with its 1-based line: what SPIRV-Cross writes for
/// an OpPhi of Workgroup pointers (a loop-carried pointer into threadgroup
/// memory, VariablePointers). Metal's compiler rejects a type with two address
/// spaces; the CPU backend, whose shim erases address spaces, would not.
pub fn doubled_address_space(msl: &str) -> Option<(usize, String)> {
    const SPACES: [&str; 5] = ["device", "constant", "threadgroup", "thread", "object_data"];
    for (n, line) in msl.lines().enumerate() {
        let words: Vec<&str> = line
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .filter(|w| !w.is_empty())
            .collect();
        if words
            .windows(2)
            .any(|w| w[0] == w[1] && SPACES.contains(&w[0]))
        {
            return Some((n + 1, line.trim().to_string()));
        }
    }
    None
}

/// The first line that operates on an `atomic_float`, with its 1-based
/// line: SPIRV-Cross casts a float's address to `device atomic_float*` or
/// `threadgroup atomic_float*` for every atomic on a 32-bit float
/// (`OpAtomicFAddEXT`, and loads, stores and exchanges, which SPIR-V allows
/// on floats without a capability). Metal has `atomic_float` from MSL 3.0
/// on; SPIRV-Cross emits it at any version.
pub fn float_atomic(msl: &str) -> Option<(usize, String)> {
    line_of(msl, " atomic_float*)")
}

/// The first line holding `needle`: its 1-based number and its text,
/// trimmed.
fn line_of(msl: &str, needle: &str) -> Option<(usize, String)> {
    let at = find(msl, needle)?;
    let line = msl[..at].bytes().filter(|b| *b == b'\n').count() + 1;
    let text = msl.lines().nth(line - 1).unwrap_or_default();
    Some((line, text.trim().to_string()))
}

/// The first line that reinterprets a texture as another integer type,
/// with its 1-based line: for a signed min or max on an unsigned image (or
/// the reverse) with Metal's texture atomics (MSL 3.1 on), SPIRV-Cross
/// casts the texture itself (`spvTextureCast<texture2d<int, …>>(img)`, a
/// `reinterpret_cast` of the texture reference), "probably wildly outside
/// of spec" as its own comment says: a Metal texture's type must match its
/// pixel format.
pub fn texture_cast(msl: &str) -> Option<(usize, String)> {
    line_of(msl, "spvTextureCast<")
}

/// The opcode of the first instruction SPIRV-Cross wrote no MSL for, with
/// its 1-based line: for an opcode its backends do not know it writes the
/// comment `// unimplemented op N` and goes on, leaving the instruction's
/// effect out and its result, if nothing reads it, unnoticed.
pub fn unimplemented_op(msl: &str) -> Option<(usize, u16)> {
    const MARK: &str = "// unimplemented op ";
    let at = find(msl, MARK)?;
    let line = msl[..at].bytes().filter(|b| *b == b'\n').count() + 1;
    let digits: String = msl[at + MARK.len()..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    Some((line, digits.parse().unwrap_or(u16::MAX)))
}

/// Helpers of SPIRV-Cross's MSL known to compute wrong values, recognised by
/// their text: halc builds SPIRV-Cross with a patch for each
/// (`vendor/patches/spirv-cross-sys/`), but a crate depending on halc that
/// does not add halc's `[patch.crates-io]` section links the unpatched
/// sources. Such a build refuses the kernels that need the patch.
pub fn known_miscompile(msl: &str) -> Option<&'static str> {
    // 0003: an inactive lane of a clustered min or max stood in with
    // numeric_limits<T>::min() / max(), which for floats is FLT_MIN / FLT_MAX,
    // not -INF / +INF.
    let has = |needle| find(msl, needle).is_some();
    if has("struct spvClusteredMaxDetail") && has("return numeric_limits<T>::min();")
        || has("struct spvClusteredMinDetail") && has("return numeric_limits<T>::max();")
    {
        return Some(
            "a clustered subgroup min or max (OpGroupNonUniform*Min/*Max ClusteredReduce): this build of halc links SPIRV-Cross without halc's patch 0003, and the unpatched MSL returns FLT_MIN (FLT_MAX) for a float max (min) whose cluster has inactive lanes; build halc with the `[patch.crates-io] spirv-cross-sys` section of its Cargo.toml (vendor/README.md)",
        );
    }
    // 0008: SPV_EXPECT ended in a semicolon, so `a = SPV_EXPECT(b, c) + 1;`
    // compiled to `a = b;`.
    if has("#define SPV_EXPECT(x, y) __builtin_expect(x, y);") {
        return Some(
            "an expectation (OpExpectKHR): this build of halc links SPIRV-Cross without halc's patch 0008, and the unpatched MSL's `SPV_EXPECT` macro ends in a semicolon, so `a = SPV_EXPECT(b, c) + 1;` computes `a = b;` (and it computes in `long`); build halc with the `[patch.crates-io] spirv-cross-sys` section of its Cargo.toml (vendor/README.md)",
        );
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_doubled_address_space_is_found_with_its_line() {
        let msl = "kernel void k()\n{\n    threadgroup threadgroup int* _27;\n}\n";
        assert_eq!(
            doubled_address_space(msl),
            Some((3, "threadgroup threadgroup int* _27;".into()))
        );
        assert_eq!(
            doubled_address_space("const device device_t* p;\nthreadgroup int* q;\n"),
            None
        );
        assert!(doubled_address_space("device  device float* x;").is_some());
    }

    #[test]
    fn a_float_atomic_is_found_with_its_line() {
        let msl = "kernel void k()\n{\n    float _60 = atomic_fetch_add_explicit((device atomic_float*)&_56.per[g], x, memory_order_relaxed);\n}\n";
        assert_eq!(
            float_atomic(msl),
            Some((3, "float _60 = atomic_fetch_add_explicit((device atomic_float*)&_56.per[g], x, memory_order_relaxed);".into()))
        );
        assert!(float_atomic(
            "atomic_exchange_explicit((threadgroup atomic_float*)&w, 1.0, memory_order_relaxed);"
        )
        .is_some());
        // Integer atomics and a kernel's own names are not.
        assert_eq!(
            float_atomic("atomic_fetch_add_explicit((device atomic_uint*)&c, 1u, memory_order_relaxed);\nfloat atomic_float_count;"),
            None
        );
    }

    #[test]
    fn an_unimplemented_op_is_found_with_its_line() {
        let msl = "kernel void k()\n{\n    // unimplemented op 261\n}\n";
        assert_eq!(unimplemented_op(msl), Some((3, 261)));
        assert_eq!(unimplemented_op("kernel void k()\n{\n}\n"), None);
    }

    #[test]
    fn the_unpatched_expect_macro_is_recognised() {
        let unpatched = "#if !defined(SPV_EXPECT) && __has_builtin(__builtin_expect)\n#define SPV_EXPECT(x, y) __builtin_expect(x, y);\n#endif\n";
        assert!(known_miscompile(unpatched)
            .is_some_and(|why| why.contains("patch 0008") && why.contains("OpExpectKHR")));
        let patched = "#if !defined(SPV_EXPECT) && __has_builtin(__builtin_expect)\n#define SPV_EXPECT(x, y) spvExpect(x, y)\n";
        assert_eq!(known_miscompile(patched), None);
    }

    #[test]
    fn the_unpatched_clustered_min_max_helpers_are_recognised() {
        let unpatched = "template<uint offset>\nstruct spvClusteredMaxDetail<1, offset>\n{\n    template<typename T>\n    static T op(T value, uint lid)\n    {\n        if (!active)\n            return numeric_limits<T>::min();\n";
        assert!(known_miscompile(unpatched).is_some());
        let min = unpatched
            .replace("MaxDetail", "MinDetail")
            .replace("::min()", "::max()");
        assert!(known_miscompile(&min).is_some());
        assert_eq!(
            known_miscompile(&unpatched.replace("numeric_limits<T>::min()", "value")),
            None
        );
        // An add's identity is right; a kernel's own numeric_limits is no helper.
        assert_eq!(
            known_miscompile("struct spvClusteredAddDetail<1, offset>\n            return 0;\n"),
            None
        );
        assert_eq!(known_miscompile("x = numeric_limits<T>::min();"), None);
    }

    #[test]
    fn counts_of_declarations() {
        assert_eq!(
            decl_count("array<texture2d<float>, 3> textures [[texture(0)]]"),
            3
        );
        assert_eq!(decl_count("device B* bufs [[id(0)]][4];"), 4);
        assert_eq!(decl_count("device B* b [[id(0)]];"), 1);
    }

    #[test]
    fn attributes_are_found_by_name_first_in_the_line() {
        assert_eq!(
            attribute(
                "device B& b [[buffer(12)]], uint i [[texture(3)]]",
                &["texture", "buffer"]
            ),
            Some(("buffer", "12"))
        );
        assert_eq!(
            attribute("x [[id(7)]] [[id(8)]]", &["id"]),
            Some(("id", "7"))
        );
        assert_eq!(attribute("x [[id()]] [[idx(1)]] [[id(2)", &["id"]), None);
        assert_eq!(
            attribute("x [[id(a)]] [[id(4)]]", &["id"]),
            Some(("id", "4"))
        );
    }

    #[test]
    fn counts_in_odd_spellings() {
        assert_eq!(decl_count("  const array<sampler, 2> s [[sampler(0)]]"), 2);
        assert_eq!(
            decl_count("array<array<texture2d<float>, 2>, 5> t [[texture(0)]]"),
            5
        );
        assert_eq!(decl_count("constant_t x [[id(0)]] [ 3 ] ;"), 1);
        assert_eq!(decl_count("device B* b [[id(0)]] [3] ;"), 3);
        assert_eq!(decl_count("array<T, 99999999999> t [[texture(0)]]"), 1);
        assert_eq!(decl_count("device B* b [3] [[id(0)]];"), 1);
    }

    #[test]
    fn the_workgroup_literal_is_read_up_to_its_semicolon() {
        let msl = "constant uint3 gl_WorkGroupSize [[maybe_unused]] = uint3(64u, 1u, 1u);\n";
        assert_eq!(workgroup_literal(msl), Some("64u, 1u, 1u"));
        let msl = "constant uint3 gl_WorkGroupSize [[maybe_unused]] = uint3(a, b);x;\n\
                   constant uint3 gl_WorkGroupSize [[maybe_unused]] = uint3(c);";
        assert_eq!(workgroup_literal(msl), Some("a, b"));
        assert_eq!(workgroup_literal("uint3(1u);"), None);
    }

    #[test]
    fn top_level_split_keeps_templates_whole() {
        assert_eq!(
            split_top(
                "array<texture2d<float>, 3> t [[texture(0)]], uint3 g [[thread_position_in_grid]]"
            ),
            vec![
                "array<texture2d<float>, 3> t [[texture(0)]]",
                "uint3 g [[thread_position_in_grid]]"
            ]
        );
    }
}

/// A `gl_WorkGroupSize` component as SPIRV-Cross wrote it.
enum Component {
    /// `64u`.
    Literal(u32),
    /// A constant defined from a `SPIRV_CROSS_CONSTANT_ID_N` macro, with the
    /// macro's value.
    Macro(u32),
    /// `is_function_constant_defined(c) ? c : DEFAULT`.
    FunctionConstant(u32),
    /// Anything else.
    Unknown,
}

fn literal_u32(s: &str) -> Option<u32> {
    s.trim().trim_end_matches('u').parse().ok()
}

/// Resolves one component through the `constant uint NAME = …;` line that
/// defines it and, for macros, the `#define` that sets the macro.
fn workgroup_component(msl: &str, component: &str) -> Component {
    let component = component.trim();
    if let Some(v) = literal_u32(component) {
        return Component::Literal(v);
    }
    let head = format!("constant uint {component} = ");
    let Some(expr) = msl
        .lines()
        .find_map(|l| l.trim().strip_prefix(head.as_str()))
        .and_then(|e| e.strip_suffix(';'))
    else {
        return Component::Unknown;
    };
    if expr.starts_with("SPIRV_CROSS_CONSTANT_ID_") {
        let define = format!("#define {expr} ");
        return msl
            .lines()
            .find_map(|l| l.trim().strip_prefix(define.as_str()))
            .and_then(literal_u32)
            .map_or(Component::Unknown, Component::Macro);
    }
    if expr.starts_with("is_function_constant_defined(") {
        return expr
            .rsplit(':')
            .next()
            .and_then(literal_u32)
            .map_or(Component::Unknown, Component::FunctionConstant);
    }
    Component::Unknown
}

/// What the generated MSL made of the module's spec constants.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SpecConstantUse {
    /// `constant T NAME [[function_constant(ID)]];`: id → MSL type `T`.
    pub function_constants: BTreeMap<u32, String>,
    /// `#define SPIRV_CROSS_CONSTANT_ID_ID …`: ids SPIRV-Cross fixed at
    /// generation time because they size an array (MSL array sizes must be
    /// compile-time constants, function constants are not).
    pub macros: std::collections::BTreeSet<u32>,
}

/// The start of a spec-constant macro's line, and what marks a function
/// constant's declaration.
const SPEC_MACRO: &str = "#define SPIRV_CROSS_CONSTANT_ID_";
const FUNCTION_CONSTANT: &str = "[[function_constant(";

/// Reads the function-constant declarations and spec-constant macros of
/// generated MSL (one declaration per line, as SPIRV-Cross writes them).
pub fn spec_constant_use(msl: &str) -> Result<SpecConstantUse, String> {
    let mut out = SpecConstantUse::default();
    // Only lines holding one of the two patterns say anything: they are found
    // by two searches of the whole text rather than one search per line (a
    // searcher built for each of a batch's lines cost more than the rest of
    // the MSL check).
    let bytes = msl.as_bytes();
    let mut starts: Vec<usize> = memchr::memmem::find_iter(bytes, SPEC_MACRO)
        .chain(memchr::memmem::find_iter(bytes, FUNCTION_CONSTANT))
        .map(|at| memchr::memrchr(b'\n', &bytes[..at]).map_or(0, |nl| nl + 1))
        .collect();
    starts.sort_unstable();
    starts.dedup();
    for start in starts {
        let end = memchr::memchr(b'\n', &bytes[start..]).map_or(msl.len(), |n| start + n);
        read_spec_line(msl[start..end].trim(), &mut out)?;
    }
    Ok(out)
}

/// One trimmed line of [`spec_constant_use`]: a spec-constant macro or a
/// function-constant declaration is recorded; any other line is not.
fn read_spec_line(line: &str, out: &mut SpecConstantUse) -> Result<(), String> {
    if let Some(rest) = line.strip_prefix(SPEC_MACRO) {
        let id = rest.split_whitespace().next().unwrap_or("");
        let id = id
            .parse()
            .map_err(|_| format!("unreadable spec-constant macro `{line}`"))?;
        out.macros.insert(id);
        return Ok(());
    }
    let Some(at) = find(line, FUNCTION_CONSTANT) else {
        return Ok(());
    };
    let decl = line[..at].trim();
    let id = line[at + FUNCTION_CONSTANT.len()..]
        .split(')')
        .next()
        .and_then(|n| n.trim().parse::<u32>().ok())
        .ok_or_else(|| format!("unreadable function constant `{line}`"))?;
    // `constant TYPE NAME`
    let mut parts = decl.split_whitespace();
    let (Some("constant"), Some(ty), Some(_name), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(format!("unreadable function constant `{line}`"));
    };
    if let Some(prev) = out.function_constants.insert(id, ty.to_string()) {
        return Err(format!(
            "function constant {id} is declared twice (as {prev} and {ty}); Metal forbids that"
        ));
    }
    Ok(())
}

/// The MSL spelling of a scalar type.
pub fn msl_scalar(ty: crate::spirv::ScalarType) -> Option<&'static str> {
    use crate::spirv::ScalarType as S;
    Some(match ty {
        S::Bool => "bool",
        S::Int(8) => "char",
        S::UInt(8) => "uchar",
        S::Int(16) => "short",
        S::UInt(16) => "ushort",
        S::Int(32) => "int",
        S::UInt(32) => "uint",
        S::Int(64) => "long",
        S::UInt(64) => "ulong",
        S::Float(16) => "half",
        S::Float(32) => "float",
        _ => return None,
    })
}

#[cfg(test)]
mod spec_tests {
    use super::*;

    #[test]
    fn function_constants_and_macros_are_read() {
        let msl = "constant uint A_tmp [[function_constant(0)]];\n\
                   constant uint A = is_function_constant_defined(A_tmp) ? A_tmp : 32u;\n\
                   constant int B_tmp [[function_constant(3)]];\n\
                   #ifndef SPIRV_CROSS_CONSTANT_ID_7\n\
                   #define SPIRV_CROSS_CONSTANT_ID_7 64u\n\
                   #endif\n";
        let u = spec_constant_use(msl).unwrap();
        assert_eq!(
            u.function_constants.into_iter().collect::<Vec<_>>(),
            vec![(0, "uint".to_string()), (3, "int".to_string())]
        );
        assert_eq!(u.macros.into_iter().collect::<Vec<_>>(), vec![7]);
    }

    /// The reading before the whole-text search: every line, in order.
    fn line_by_line(msl: &str) -> Result<SpecConstantUse, String> {
        let mut out = SpecConstantUse::default();
        for line in msl.lines() {
            read_spec_line(line.trim(), &mut out)?;
        }
        Ok(out)
    }

    #[test]
    fn the_whole_text_search_reads_what_every_line_would() {
        let cases = [
            // First line, no newline at the end, CRLF, indentation.
            "constant uint A [[function_constant(0)]];",
            "constant uint A [[function_constant(0)]];\r\n  #define SPIRV_CROSS_CONSTANT_ID_2 8u\r\n",
            "\n\n\tconstant half H [[function_constant(9)]];\n",
            // Both patterns on one line: a macro line wins, read once.
            "#define SPIRV_CROSS_CONSTANT_ID_4 [[function_constant(5)]]\n",
            // A pattern in the middle of a line that is no declaration.
            "x = y; #define SPIRV_CROSS_CONSTANT_ID_3 1\n",
            "int q; // [[function_constant(1)]]\n",
            // Errors: the first in text order is the one reported.
            "#define SPIRV_CROSS_CONSTANT_ID_x 1\nconstant uint A [[function_constant(z)]];\n",
            "constant uint A [[function_constant(z)]];\n#define SPIRV_CROSS_CONSTANT_ID_x 1\n",
            "constant uint A [[function_constant(1)]];\nconstant int B [[function_constant(1)]];\n",
            // Two declarations on one line: only the first is read.
            "constant uint A [[function_constant(1)]]; constant int B [[function_constant(2)]];\n",
            "[[function_constant(",
            "",
        ];
        for msl in cases {
            assert_eq!(spec_constant_use(msl), line_by_line(msl), "{msl:?}");
        }
        // And a real kernel's MSL, one line at a time dropped from it.
        let msl = "#include <metal_stdlib>\n#ifndef SPIRV_CROSS_CONSTANT_ID_7\n\
                   #define SPIRV_CROSS_CONSTANT_ID_7 64u\n#endif\n\
                   constant uint A_tmp [[function_constant(0)]];\n\
                   constant uint A = is_function_constant_defined(A_tmp) ? A_tmp : 32u;\n\
                   constant bool C_tmp [[function_constant(12)]];\n";
        let lines: Vec<&str> = msl.lines().collect();
        for skip in 0..lines.len() {
            let text: String = lines
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != skip)
                .map(|(_, l)| format!("{l}\n"))
                .collect();
            assert_eq!(spec_constant_use(&text), line_by_line(&text), "{text:?}");
        }
        assert!(!spec_constant_use(msl)
            .unwrap()
            .function_constants
            .is_empty());
    }

    #[test]
    fn a_function_constant_declared_twice_is_an_error() {
        let msl = "constant uint A_tmp [[function_constant(0)]];\n\
                   constant int B_tmp [[function_constant(0)]];\n";
        let e = spec_constant_use(msl).unwrap_err();
        assert!(e.contains("function constant 0 is declared twice"), "{e}");
    }
}
