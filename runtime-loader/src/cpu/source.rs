//! MSL → the C++ the CPU backend compiles.
//!
//! Every rewrite keeps the line structure, so clang's line numbers are the
//! MSL's (the file starts with `#line 1 "KERNEL.metal"`):
//! - SPIRV-Cross's `spvUnsafeArray` template is blanked (the shim has one);
//! - `constant T x [[function_constant(N)]];` becomes a constexpr holding
//!   the pipeline's value, and `is_function_constant_defined(x)` true;
//! - a `threadgroup` local becomes a reference into the threadgroup's arena
//!   (rejected if its type depends on a function constant: invalid MSL);
//! - float literals without a suffix get `f` (MSL's `0.5` is a float), `h`
//!   literals become halves;
//! - vector constructors `float4(…)` become `metal::halc_vec<float4>(…)`,
//!   and `not(v)` `metal::halc_not(v)`;
//! - comparisons `a < b` become `metal::halc_lt(a, b)` (and `halc_le`,
//!   `halc_gt`, `halc_ge`, `halc_eq`, `halc_ne`): MSL compares vectors into
//!   boolN, clang into -1/0 masks ([`rewrite_comparisons`]).
//!
//! Then an entry wrapper is appended, generated from the kernel's parameter
//! list: each `[[buffer(N)]]` reads slot N of the table the plan filled,
//! each builtin reads the executor's thread state.

use std::collections::BTreeSet;

use super::CpuError;
use crate::plan::ConstantValue;

/// A kernel builtin input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Builtin {
    ThreadPositionInGrid,
    ThreadPositionInThreadgroup,
    ThreadIndexInThreadgroup,
    ThreadgroupPositionInGrid,
    ThreadsPerThreadgroup,
    ThreadgroupsPerGrid,
    ThreadsPerGrid,
    ThreadIndexInSimdgroup,
    SimdgroupIndexInThreadgroup,
    ThreadsPerSimdgroup,
    SimdgroupsPerThreadgroup,
    ThreadIndexInQuadgroup,
    QuadgroupIndexInThreadgroup,
    QuadgroupsPerThreadgroup,
}

impl Builtin {
    fn from_attr(a: &str) -> Option<Builtin> {
        use Builtin::*;
        Some(match a {
            "thread_position_in_grid" => ThreadPositionInGrid,
            "thread_position_in_threadgroup" => ThreadPositionInThreadgroup,
            "thread_index_in_threadgroup" => ThreadIndexInThreadgroup,
            "threadgroup_position_in_grid" => ThreadgroupPositionInGrid,
            "threads_per_threadgroup" | "dispatch_threads_per_threadgroup" => ThreadsPerThreadgroup,
            "threadgroups_per_grid" => ThreadgroupsPerGrid,
            "threads_per_grid" => ThreadsPerGrid,
            "thread_index_in_simdgroup" => ThreadIndexInSimdgroup,
            "simdgroup_index_in_threadgroup" => SimdgroupIndexInThreadgroup,
            "threads_per_simdgroup" | "thread_execution_width" => ThreadsPerSimdgroup,
            "simdgroups_per_threadgroup" | "dispatch_simdgroups_per_threadgroup" => {
                SimdgroupsPerThreadgroup
            }
            "thread_index_in_quadgroup" => ThreadIndexInQuadgroup,
            "quadgroup_index_in_threadgroup" => QuadgroupIndexInThreadgroup,
            "quadgroups_per_threadgroup" | "dispatch_quadgroups_per_threadgroup" => {
                QuadgroupsPerThreadgroup
            }
            _ => return None,
        })
    }

    /// The (x, y, z) C++ expressions, over `halc_t` and `halc_g`.
    fn exprs(self) -> [String; 3] {
        use Builtin::*;
        let dim = |f: &dyn Fn(usize) -> String| [f(0), f(1), f(2)];
        let scalar = |e: &str| [e.to_string(), "0".into(), "0".into()];
        match self {
            ThreadPositionInGrid => {
                dim(&|i| format!("halc_g->tg_pos[{i}] * halc_g->tg_size[{i}] + halc_t->local[{i}]"))
            }
            ThreadPositionInThreadgroup => dim(&|i| format!("halc_t->local[{i}]")),
            ThreadIndexInThreadgroup => scalar("halc_t->index"),
            ThreadgroupPositionInGrid => dim(&|i| format!("halc_g->tg_pos[{i}]")),
            ThreadsPerThreadgroup => dim(&|i| format!("halc_g->tg_size[{i}]")),
            ThreadgroupsPerGrid => dim(&|i| format!("halc_g->groups[{i}]")),
            ThreadsPerGrid => dim(&|i| format!("halc_g->groups[{i}] * halc_g->tg_size[{i}]")),
            ThreadIndexInSimdgroup => scalar("halc_t->lane"),
            SimdgroupIndexInThreadgroup => scalar("halc_t->simd_id"),
            ThreadsPerSimdgroup => scalar("halc_g->simd_width"),
            SimdgroupsPerThreadgroup => scalar("halc_g->simd_groups"),
            ThreadIndexInQuadgroup => scalar("(halc_t->index & 3u)"),
            QuadgroupIndexInThreadgroup => scalar("(halc_t->index >> 2)"),
            QuadgroupsPerThreadgroup => {
                scalar("((halc_g->tg_size[0] * halc_g->tg_size[1] * halc_g->tg_size[2] + 3u) / 4u)")
            }
        }
    }
}

/// What one kernel parameter is bound to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum ParamKind {
    /// `[[buffer(N)]]`.
    Buffer(u32),
    /// A builtin.
    Builtin(Builtin),
}

/// One parameter of the kernel function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Param {
    /// Its type, as written.
    pub(super) ty: String,
    /// Its name.
    pub(super) name: String,
    /// Its binding.
    pub(super) kind: ParamKind,
}

/// The C++ for one pipeline.
#[derive(Debug, Clone)]
pub(super) struct Prepared {
    pub(super) source: String,
    pub(super) params: Vec<Param>,
}

fn is_ident_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// Identifiers in `s`.
fn idents(s: &str) -> impl Iterator<Item = &str> {
    s.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| w.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_'))
}

/// MSL texture and sampler types (not implemented by the shim).
const TEXTURE_TYPES: &[&str] = &[
    "texture1d",
    "texture1d_array",
    "texture2d",
    "texture2d_array",
    "texture2d_ms",
    "texture2d_ms_array",
    "texture3d",
    "texturecube",
    "texturecube_array",
    "texture_buffer",
    "depth2d",
    "depth2d_array",
    "depth2d_ms",
    "depth2d_ms_array",
    "depthcube",
    "depthcube_array",
    "sampler",
];

const VECTOR_BASES: &[&str] = &[
    "float", "half", "int", "uint", "short", "ushort", "char", "uchar", "long", "ulong", "bool",
];

fn is_vector_type(w: &str) -> bool {
    let w = w.strip_prefix("packed_").unwrap_or(w);
    match w.as_bytes().last() {
        Some(b'2' | b'4') => {}
        Some(b'3') if !w.starts_with("packed_") => {}
        _ => return false,
    }
    VECTOR_BASES.contains(&&w[..w.len() - 1])
}

/// Float literals and vector constructors (outside comments and strings).
fn rewrite_tokens(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = String::with_capacity(src.len() + src.len() / 8);
    let mut i = 0;
    let mut last_sig: u8 = b' '; // last non-space byte emitted
    while i < b.len() {
        let c = b[i];
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            let end = src[i..].find('\n').map_or(b.len(), |e| i + e);
            out.push_str(&src[i..end]);
            i = end;
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'*') {
            let end = src[i + 2..].find("*/").map_or(b.len(), |e| i + 2 + e + 2);
            out.push_str(&src[i..end]);
            i = end;
            continue;
        }
        if c == b'"' || c == b'\'' {
            let mut j = i + 1;
            while j < b.len() && b[j] != c && b[j] != b'\n' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            let end = (j + 1).min(b.len());
            out.push_str(&src[i..end]);
            last_sig = c;
            i = end;
            continue;
        }
        if c.is_ascii_alphabetic() || c == b'_' {
            let mut j = i;
            while j < b.len() && is_ident_char(b[j]) {
                j += 1;
            }
            let word = &src[i..j];
            let next = src[j..].trim_start_matches([' ', '\t']).as_bytes().first();
            let called = next == Some(&b'(') && last_sig != b'.' && last_sig != b':';
            if is_vector_type(word) && called {
                out.push_str("metal::halc_vec<");
                out.push_str(word);
                out.push('>');
            } else if word == "not" && called {
                // MSL's `not(boolN)`; C++ reads `not` as `!`, which gives a
                // -1/0 mask.
                out.push_str("metal::halc_not");
            } else {
                out.push_str(word);
            }
            last_sig = b'a';
            i = j;
            continue;
        }
        let starts_number =
            c.is_ascii_digit() || (c == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit));
        if starts_number {
            let hex = c == b'0' && matches!(b.get(i + 1), Some(b'x' | b'X'));
            let mut j = i;
            while j < b.len() {
                let d = b[j];
                let exp = if hex {
                    matches!(d, b'p' | b'P')
                } else {
                    matches!(d, b'e' | b'E')
                };
                if exp && matches!(b.get(j + 1), Some(b'+' | b'-')) {
                    j += 2;
                } else if is_ident_char(d) || d == b'.' {
                    j += 1;
                } else {
                    break;
                }
            }
            let lit = &src[i..j];
            let is_float = if hex {
                lit.contains(['p', 'P'])
            } else {
                lit.contains(['.', 'e', 'E'])
            };
            if !is_float {
                out.push_str(lit);
            } else if let Some(body) = lit.strip_suffix(['h', 'H']) {
                out.push_str("metal::half(");
                out.push_str(body);
                out.push_str("f)");
            } else if lit.ends_with(['f', 'F']) {
                out.push_str(lit);
            } else {
                out.push_str(lit);
                out.push('f');
            }
            last_sig = b'0';
            i = j;
            continue;
        }
        out.push(c as char);
        if !c.is_ascii_whitespace() {
            last_sig = c;
        }
        i += 1;
        // Non-ASCII bytes are copied through as they are.
        while i < b.len() && !b[i].is_ascii() {
            let ch_len = src[i..].chars().next().map_or(1, char::len_utf8);
            out.push_str(&src[i..i + ch_len]);
            i += ch_len;
        }
    }
    out
}

/// The comparison operators, longest first, and the shim function each
/// becomes.
const COMPARISONS: [(&str, &str); 6] = [
    ("<=", "halc_le"),
    (">=", "halc_ge"),
    ("==", "halc_eq"),
    ("!=", "halc_ne"),
    ("<", "halc_lt"),
    (">", "halc_gt"),
];

/// Whether the operator is `==` or `!=` (lower precedence than `<` etc.).
fn is_equality(op: &str) -> bool {
    op == "==" || op == "!="
}

/// Bytes that continue an operand without a space: identifiers, literals,
/// member access, `::`, `->`, and unary prefixes and casts (which bind
/// tighter than any comparison).
fn is_operand_byte(c: u8) -> bool {
    is_ident_char(c) || matches!(c, b'.' | b':' | b'!' | b'~' | b'-' | b'+' | b'*' | b'&')
}

/// Start of the operand that ends at `end` (exclusive), scanning back over
/// balanced `()`, `[]` and template arguments `name<…>`; `None` if there is
/// none.
fn operand_start(b: &[u8], end: usize) -> Option<usize> {
    let mut k = end;
    while k > 0 {
        let c = b[k - 1];
        if c == b')' || c == b']' {
            let mut depth = 0i32;
            let mut j = k;
            loop {
                if j == 0 {
                    return None;
                }
                j -= 1;
                match b[j] {
                    b')' | b']' => depth += 1,
                    b'(' | b'[' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
            }
            k = j;
        } else if c == b'>' && k >= 2 && b[k - 2] == b'-' {
            k -= 2;
        } else if c == b'>' {
            // Template arguments: a matching `<` right after an identifier.
            let mut depth = 0i32;
            let mut j = k;
            loop {
                if j == 0 {
                    return None;
                }
                j -= 1;
                match b[j] {
                    b'>' => depth += 1,
                    b'<' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    b';' | b'{' | b'}' => return None,
                    _ => {}
                }
            }
            if j == 0 || !is_ident_char(b[j - 1]) {
                return None;
            }
            k = j;
        } else if is_operand_byte(c) {
            k -= 1;
        } else {
            break;
        }
    }
    (k < end).then_some(k)
}

/// End (exclusive) of the operand that starts at `start`, as
/// [`operand_start`] reads them.
fn operand_end(b: &[u8], start: usize) -> Option<usize> {
    let mut k = start;
    while k < b.len() {
        let c = b[k];
        if c == b'(' || c == b'[' {
            let mut depth = 0i32;
            while k < b.len() {
                match b[k] {
                    b'(' | b'[' => depth += 1,
                    b')' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
                k += 1;
            }
            if k == b.len() {
                return None;
            }
            k += 1;
        } else if c == b'-' && b.get(k + 1) == Some(&b'>') {
            k += 2;
        } else if c == b'<' && k > start && is_ident_char(b[k - 1]) {
            let mut depth = 0i32;
            while k < b.len() {
                match b[k] {
                    b'<' => depth += 1,
                    b'>' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    b';' | b'{' | b'}' => return None,
                    _ => {}
                }
                k += 1;
            }
            if k == b.len() {
                return None;
            }
            k += 1;
        } else if is_operand_byte(c) {
            k += 1;
        } else {
            break;
        }
    }
    (k > start).then_some(k)
}

/// Whether what precedes a comparison's left operand (text up to `at`)
/// binds less tightly than the comparison `op`, so that the operand is all
/// of the comparison's left side.
fn left_context_ok(b: &[u8], at: usize, op: &str) -> bool {
    let mut k = at;
    while k > 0 && (b[k - 1] == b' ' || b[k - 1] == b'\t') {
        k -= 1;
    }
    if k == 0 {
        return true;
    }
    let prev = |n: usize| if k > n { Some(b[k - 1 - n]) } else { None };
    match b[k - 1] {
        b'(' | b'[' | b',' | b';' | b'{' | b'}' | b'?' | b'\n' | b'|' | b'^' => true,
        // `&&` or a binary `&` (a unary one would be part of the operand).
        b'&' => true,
        b':' => prev(1) != Some(b':'),
        b'=' => match prev(1) {
            // `a == b < c`: `<` first; `a == b == c`: the left `==` first.
            Some(b'=' | b'!') => !is_equality(op) && prev(2) == Some(b' '),
            // `<=`, `>=` (relational: bail), `<<=`, `>>=` (assignment).
            Some(b'<' | b'>') => prev(2) == prev(1),
            // `=`, `+=`, `-=`, ...: assignment.
            _ => true,
        },
        c if is_ident_char(c) => {
            let word_start = b[..k]
                .iter()
                .rposition(|&c| !is_ident_char(c))
                .map_or(0, |p| p + 1);
            &b[word_start..k] == b"return"
        }
        _ => false,
    }
}

/// Whether what follows a comparison's right operand (text from `at`) binds
/// less tightly than the comparison `op`, or is a comparison of the same
/// precedence (left-associative: this one goes first).
fn right_context_ok(b: &[u8], at: usize, op: &str) -> bool {
    let mut k = at;
    while k < b.len() && (b[k] == b' ' || b[k] == b'\t') {
        k += 1;
    }
    let Some(&c) = b.get(k) else {
        return true;
    };
    let next = b.get(k + 1).copied();
    match c {
        b')' | b']' | b',' | b';' | b'}' | b'?' | b':' | b'\n' | b'|' | b'^' | b'&' => true,
        b'=' | b'!' => next == Some(b'='),
        b'<' | b'>' => next != Some(c) && !is_equality(op),
        _ => false,
    }
}

/// Comparisons `a OP b` (SPIRV-Cross's spacing) become
/// `metal::halc_lt(a, b)` etc.: clang compares vectors into -1/0 masks of
/// the operands' width, MSL into boolN (true converts to 1). An operand is
/// what SPIRV-Cross writes as one: no space outside brackets (it encloses
/// anything else in parentheses). A comparison whose operands or
/// surroundings read otherwise is left as it is (clang's meaning). Comments,
/// strings and preprocessor lines are copied. Line structure is kept.
fn rewrite_comparisons(src: &str) -> String {
    let b = src.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(src.len() + src.len() / 4);
    // Input positions where a rewritten comparison's `)` goes, innermost last.
    let mut closes: Vec<usize> = Vec::new();
    let mut line_start = true;
    let mut i = 0;
    while i < b.len() {
        while closes.last() == Some(&i) {
            out.push(b')');
            closes.pop();
        }
        let c = b[i];
        let copy_to = if c == b'/' && b.get(i + 1) == Some(&b'/') {
            Some(src[i..].find('\n').map_or(b.len(), |e| i + e))
        } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
            Some(src[i + 2..].find("*/").map_or(b.len(), |e| i + 2 + e + 2))
        } else if line_start && c == b'#' {
            Some(src[i..].find('\n').map_or(b.len(), |e| i + e))
        } else if c == b'"' {
            let mut j = i + 1;
            while j < b.len() && b[j] != b'"' && b[j] != b'\n' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            Some((j + 1).min(b.len()))
        } else {
            None
        };
        if let Some(end) = copy_to {
            out.extend_from_slice(&b[i..end]);
            i = end;
            line_start = false;
            continue;
        }
        if c == b' ' {
            if let Some(j) = rewrite_comparison_at(b, i, &mut out, &closes) {
                closes.push(j.1);
                i = j.0;
                line_start = false;
                continue;
            }
        }
        out.push(c);
        if c == b'\n' {
            line_start = true;
        } else if !c.is_ascii_whitespace() {
            line_start = false;
        }
        i += 1;
    }
    while closes.pop().is_some() {
        out.push(b')');
    }
    // Only ASCII bytes were inserted or moved, at ASCII boundaries.
    String::from_utf8(out).expect("UTF-8 in, UTF-8 out")
}

/// At the space at `i`: if a comparison ` OP ` starts there whose operands
/// read as one, rewrites its left operand (the end of `out`) into
/// `metal::halc_xx(LEFT, ` and returns (where the right operand starts,
/// where it ends).
fn rewrite_comparison_at(
    b: &[u8],
    i: usize,
    out: &mut Vec<u8>,
    closes: &[usize],
) -> Option<(usize, usize)> {
    let (op, func) = COMPARISONS.iter().find(|(op, _)| {
        let n = op.len();
        b[i + 1..].starts_with(op.as_bytes()) && b.get(i + 1 + n) == Some(&b' ')
    })?;
    let right = i + 2 + op.len();
    let right_end = operand_end(b, right)?;
    if closes.last().is_some_and(|&c| right_end > c) || !right_context_ok(b, right_end, op) {
        return None;
    }
    let left = operand_start(out, out.len())?;
    if !left_context_ok(out, left, op) {
        return None;
    }
    let operand = out.split_off(left);
    out.extend_from_slice(b"metal::");
    out.extend_from_slice(func.as_bytes());
    out.push(b'(');
    out.extend_from_slice(&operand);
    out.extend_from_slice(b", ");
    Some((right, right_end))
}

/// `constant T NAME [[function_constant(ID)]];` → (T, NAME, ID).
fn parse_function_constant(line: &str) -> Option<(&str, &str, u32)> {
    let t = line.trim();
    let rest = t.strip_prefix("constant ")?;
    let (decl, attr) = rest.split_once("[[function_constant(")?;
    let id = attr.strip_suffix(")]];")?.trim().parse().ok()?;
    let decl = decl.trim();
    let (ty, name) = decl.rsplit_once(' ')?;
    Some((ty.trim(), name.trim(), id))
}

/// `threadgroup T NAME[dims];` → (indent, T, NAME, dims).
fn parse_threadgroup_local(line: &str) -> Option<(&str, &str, &str, &str)> {
    let indent_len = line.len() - line.trim_start().len();
    let t = line.trim();
    let body = t.strip_prefix("threadgroup ")?.strip_suffix(';')?.trim();
    if body.contains(['=', '(', '{']) {
        return None;
    }
    let dims_start = body.find('[').unwrap_or(body.len());
    let (decl, dims) = body.split_at(dims_start);
    let decl = decl.trim_end();
    let name_start = decl.rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))? + 1;
    let (ty, name) = decl.split_at(name_start);
    let ty = ty.trim();
    if ty.is_empty() || name.is_empty() {
        return None;
    }
    Some((&line[..indent_len], ty, name, dims))
}

/// The parameter list of `kernel void NAME(...)`, split at top-level commas.
fn kernel_params<'s>(msl: &'s str, msl_name: &str) -> Option<(usize, Vec<&'s str>)> {
    let needle = format!("kernel void {msl_name}(");
    let start = msl.find(&needle)? + needle.len();
    let line = msl[..start].matches('\n').count() + 1;
    let b = msl.as_bytes();
    let mut depth = 0i32;
    let mut parts = Vec::new();
    let mut from = start;
    let mut i = start;
    while i < b.len() {
        match b[i] {
            b'(' | b'[' | b'<' => depth += 1,
            b')' if depth == 0 => {
                let last = msl[from..i].trim();
                if !last.is_empty() {
                    parts.push(last);
                }
                return Some((line, parts));
            }
            b')' | b']' | b'>' => depth -= 1,
            b',' if depth == 0 => {
                parts.push(msl[from..i].trim());
                from = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    None
}

fn parse_param(kernel: &str, line: usize, text: &str) -> Result<Param, CpuError> {
    let bad = |message: String| CpuError::InvalidMsl {
        kernel: kernel.into(),
        line,
        message,
    };
    let (decl, attr) = match text.rfind("[[") {
        Some(i) => (
            text[..i].trim(),
            text[i + 2..]
                .trim_end()
                .strip_suffix("]]")
                .ok_or_else(|| bad(format!("cannot read the attribute of parameter `{text}`")))?
                .trim(),
        ),
        None => (text, ""),
    };
    let name_start = decl
        .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .map_or(0, |i| i + 1);
    let (ty, name) = (decl[..name_start].trim(), &decl[name_start..]);
    if ty.is_empty() || name.is_empty() {
        return Err(bad(format!("cannot read parameter `{text}`")));
    }
    let unsupported = |what: String| CpuError::Unsupported {
        kernel: kernel.into(),
        what,
    };
    let (attr_name, arg) = match attr.split_once('(') {
        Some((n, a)) => (n.trim(), Some(a.trim_end_matches(')').trim())),
        None => (attr, None),
    };
    let kind = match (attr_name, arg) {
        ("buffer", Some(n)) => ParamKind::Buffer(
            n.parse()
                .map_err(|_| bad(format!("parameter `{name}`: bad slot `{n}`")))?,
        ),
        ("texture" | "sampler", _) => {
            return Err(unsupported(format!(
                "parameter `{name}` is a {attr_name} (textures and samplers are not supported yet)"
            )))
        }
        ("threadgroup", _) => {
            return Err(unsupported(format!(
                "parameter `{name}` is [[{attr}]] (threadgroup memory set by the encoder: the plan has no command for it)"
            )))
        }
        (a, None) => match Builtin::from_attr(a) {
            Some(b) => ParamKind::Builtin(b),
            None => {
                return Err(unsupported(format!(
                    "parameter `{name}` has attribute [[{attr}]]"
                )))
            }
        },
        _ => {
            return Err(unsupported(format!(
                "parameter `{name}` has attribute [[{attr}]]"
            )))
        }
    };
    Ok(Param {
        ty: ty.to_string(),
        name: name.to_string(),
        kind,
    })
}

/// Blank lines of SPIRV-Cross's `spvUnsafeArray` definition.
fn blank_unsafe_array(lines: &mut [String]) {
    let mut i = 0;
    while i + 1 < lines.len() {
        if lines[i].trim() == "template<typename T, size_t Num>"
            && lines[i + 1].trim() == "struct spvUnsafeArray"
        {
            let mut depth = 0i32;
            let mut seen_open = false;
            let mut j = i;
            while j < lines.len() {
                for c in lines[j].chars() {
                    match c {
                        '{' => {
                            depth += 1;
                            seen_open = true;
                        }
                        '}' => depth -= 1,
                        _ => {}
                    }
                }
                let done = seen_open && depth == 0;
                lines[j].clear();
                j += 1;
                if done {
                    break;
                }
            }
            i = j;
        } else {
            i += 1;
        }
    }
}

/// Prepares the C++ of kernel `kernel` (SPIR-V name), MSL function
/// `msl_name`, with its function constants at `constants`.
pub(super) fn prepare(
    msl: &str,
    kernel: &str,
    msl_name: &str,
    constants: &[ConstantValue],
) -> Result<Prepared, CpuError> {
    // Textures and samplers (kernel parameters or argument-buffer members)
    // have no host implementation yet: say so before clang does.
    if let Some((n, word)) = msl.lines().enumerate().find_map(|(n, l)| {
        idents(l)
            .find(|w| TEXTURE_TYPES.contains(w))
            .map(|w| (n + 1, w.to_string()))
    }) {
        return Err(CpuError::Unsupported {
            kernel: kernel.into(),
            what: format!("textures and samplers (`{word}` at MSL line {n})"),
        });
    }
    let (sig_line, raw_params) =
        kernel_params(msl, msl_name).ok_or_else(|| CpuError::InvalidMsl {
            kernel: kernel.into(),
            line: 1,
            message: format!("no `kernel void {msl_name}(…)` in the MSL"),
        })?;
    let params = raw_params
        .iter()
        .map(|p| parse_param(kernel, sig_line, p))
        .collect::<Result<Vec<_>, _>>()?;

    let mut lines: Vec<String> = msl.lines().map(str::to_string).collect();
    blank_unsafe_array(&mut lines);

    // Function constants, and every global `constant` derived from one.
    let mut from_constants: BTreeSet<String> = BTreeSet::new();
    for line in &mut lines {
        if let Some((ty, name, id)) = parse_function_constant(line) {
            let (value, defined) = match constants.iter().find(|c| c.id == id) {
                Some(c) => (format!("metal::halc_fc<{ty}>({:#x}ull)", c.bits), true),
                None => (format!("{ty}()"), false),
            };
            from_constants.insert(name.to_string());
            *line = format!(
                "static constexpr {ty} {name} = {value}; static constexpr bool halc_fcdef_{name} = {defined};"
            );
            continue;
        }
        let t = line.trim_start();
        if line.len() == t.len() && t.starts_with("constant ") {
            if let Some((decl, init)) = t.split_once('=') {
                if idents(init).any(|w| from_constants.contains(w)) {
                    if let Some(name) = idents(decl.split("[[").next().unwrap_or(decl)).last() {
                        from_constants.insert(name.to_string());
                    }
                }
                // A program-scope `constant` is a compile-time constant in
                // MSL (SPIRV-Cross sizes arrays with them: `constant uint
                // _17 = SPIRV_CROSS_CONSTANT_ID_0;`); `static const` keeps
                // integral ones usable in constant expressions in C++.
                *line = format!("static const {}", &line["constant ".len()..]);
            }
        }
    }

    // Threadgroup locals.
    for (n, line) in lines.iter_mut().enumerate() {
        let Some((indent, ty, name, dims)) = parse_threadgroup_local(line) else {
            continue;
        };
        if let Some(fc) = idents(ty)
            .chain(idents(dims))
            .find(|w| from_constants.contains(*w))
        {
            return Err(CpuError::InvalidMsl {
                kernel: kernel.into(),
                line: n + 1,
                message: format!(
                    "threadgroup variable `{name}` has a size that depends on function constant `{fc}`; MSL needs threadgroup sizes fixed at compile time"
                ),
            });
        }
        *line = format!(
            "{indent}typedef {ty} halc_tg_{name}_t{dims}; halc_tg_{name}_t& {name} = *metal::halc_tg_alloc<halc_tg_{name}_t>();"
        );
    }

    let mut body = lines.join("\n");
    body.push('\n');
    let body = rewrite_comparisons(&rewrite_tokens(&body));

    let mut src = String::with_capacity(body.len() + 2048);
    src.push_str(&format!("#line 1 \"{kernel}.metal\"\n"));
    src.push_str(&body);
    src.push_str("#line 1 \"halc-entry.cpp\"\n");
    src.push_str(
        "extern \"C\" __attribute__((visibility(\"default\"))) unsigned long long halc_abi() { return HALC_ABI; }\n",
    );
    src.push_str(
        "extern \"C\" __attribute__((visibility(\"default\"))) void halc_entry(void* const* halc_slots, metal::halc_thread* halc_t) {\n",
    );
    src.push_str("    metal::halc_cur = halc_t;\n");
    src.push_str("    const metal::halc_group* halc_g = halc_t->group;\n");
    src.push_str("    (void)halc_g;\n");
    src.push_str(&format!("    {msl_name}("));
    for (i, p) in params.iter().enumerate() {
        if i > 0 {
            src.push_str(", ");
        }
        src.push_str("\n        ");
        match p.kind {
            ParamKind::Buffer(n) if p.ty.trim_end().ends_with('&') => src.push_str(&format!(
                "*reinterpret_cast<std::remove_reference_t<{}>*>(halc_slots[{n}])",
                p.ty
            )),
            ParamKind::Buffer(n) => {
                src.push_str(&format!("reinterpret_cast<{}>(halc_slots[{n}])", p.ty))
            }
            ParamKind::Builtin(b) => {
                let [x, y, z] = b.exprs();
                src.push_str(&format!("metal::halc_builtin<{}>({x}, {y}, {z})", p.ty));
            }
        }
    }
    src.push_str(");\n}\n");
    Ok(Prepared {
        source: src,
        params,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_literals_get_a_suffix_and_vectors_a_constructor() {
        let s = rewrite_tokens(
            "float x = 0.5 + 1e3 + 2.0f + 3 + 0x10 + .25; half h = 0.5h; // 1.5\nfloat4 v = float4(1.0, x); s.float2(",
        );
        assert_eq!(
            s,
            "float x = 0.5f + 1e3f + 2.0f + 3 + 0x10 + .25f; half h = metal::half(0.5f); // 1.5\nfloat4 v = metal::halc_vec<float4>(1.0f, x); s.float2("
        );
    }

    #[test]
    fn comparisons_become_calls_that_give_msl_bool_vectors() {
        let cases = [
            (
                "bool4 m = (a & b) != uint4(0u);",
                "bool4 m = metal::halc_ne((a & b), uint4(0u));",
            ),
            (
                "out[i] = uint4(x < y.zw, as_type<uint>(f) >= 2u);",
                "out[i] = uint4(metal::halc_lt(x, y.zw), metal::halc_ge(as_type<uint>(f), 2u));",
            ),
            // Precedence: left to right at one level; `<` binds tighter than
            // `==`, whose right operand is then not one SPIRV-Cross writes.
            (
                "return a == b < c && d != e != f;",
                "return a == metal::halc_lt(b, c) && metal::halc_ne(metal::halc_ne(d, e), f);",
            ),
            (
                "for (uint i = Rows; i > 0; --i) p->x[i] = select(1, -2, f(g(i) <= -1.0e-5f));",
                "for (uint i = Rows; metal::halc_gt(i, 0); --i) p->x[i] = select(1, -2, f(metal::halc_le(g(i), -1.0e-5f)));",
            ),
            ("x = c ? a < b : d;", "x = c ? metal::halc_lt(a, b) : d;"),
            ("x = (a > b) == (c > d);", "x = metal::halc_eq((metal::halc_gt(a, b)), (metal::halc_gt(c, d)));"),
            // Not read as one operand: left as it is.
            ("x = a + b < c;", "x = a + b < c;"),
            ("x = a < b + c;", "x = a < b + c;"),
            ("x = a << b < c;", "x = a << b < c;"),
            ("inline enable_if_t<Vdst != Vsrc> f();", "inline enable_if_t<Vdst != Vsrc> f();"),
            ("#if A > 1\n// a < b\ny = a < b;", "#if A > 1\n// a < b\ny = metal::halc_lt(a, b);"),
        ];
        for (msl, cpp) in cases {
            assert_eq!(rewrite_comparisons(msl), cpp, "{msl}");
        }
    }

    #[test]
    fn threadgroup_locals_and_function_constants_are_rewritten() {
        assert_eq!(
            parse_threadgroup_local("    threadgroup spvUnsafeArray<float, 256> tile;"),
            Some(("    ", "spvUnsafeArray<float, 256>", "tile", ""))
        );
        assert_eq!(
            parse_threadgroup_local("  threadgroup float t[4][8];"),
            Some(("  ", "float", "t", "[4][8]"))
        );
        assert_eq!(
            parse_threadgroup_local("threadgroup_barrier(mem_flags::mem_threadgroup);"),
            None
        );
        assert_eq!(
            parse_function_constant("constant float ALPHA_tmp [[function_constant(1)]];"),
            Some(("float", "ALPHA_tmp", 1))
        );
    }

    #[test]
    fn a_threadgroup_array_sized_by_a_function_constant_is_invalid_msl() {
        let msl = "constant uint n_tmp [[function_constant(0)]];\nconstant uint n = is_function_constant_defined(n_tmp) ? n_tmp : 64u;\nkernel void main0(uint3 id [[thread_position_in_grid]])\n{\n    threadgroup spvUnsafeArray<float, n> tile;\n}\n";
        let e = prepare(msl, "main", "main0", &[]).unwrap_err();
        assert!(
            matches!(&e, CpuError::InvalidMsl { line: 5, message, .. } if message.contains("function constant `n`")),
            "{e}"
        );
    }

    #[test]
    fn parameters_are_read_from_the_signature() {
        let msl = "kernel void main0(constant spvDescriptorSetBuffer0& spvDescriptorSet0 [[buffer(0)]], constant PC& pc [[buffer(1)]], uint3 gl_GlobalInvocationID [[thread_position_in_grid]])\n{\n}\n";
        let p = prepare(msl, "main", "main0", &[]).unwrap();
        assert_eq!(p.params.len(), 3);
        assert_eq!(p.params[0].kind, ParamKind::Buffer(0));
        assert_eq!(p.params[1].name, "pc");
        assert_eq!(
            p.params[2].kind,
            ParamKind::Builtin(Builtin::ThreadPositionInGrid)
        );
        let e = prepare(
            "kernel void main0(texture2d<float> t [[texture(0)]])\n{}\n",
            "main",
            "main0",
            &[],
        )
        .unwrap_err();
        assert!(matches!(e, CpuError::Unsupported { .. }), "{e}");
    }
}
