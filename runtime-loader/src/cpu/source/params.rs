//! The kernel's parameter list: each parameter's type, name and binding
//! (`[[buffer(N)]]` or a builtin), and the C++ that reads a builtin from the
//! executor's thread state.

use super::super::CpuError;

/// A kernel builtin input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::cpu) enum Builtin {
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
    pub(super) fn exprs(self) -> [String; 3] {
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
pub(in crate::cpu) enum ParamKind {
    /// `[[buffer(N)]]`.
    Buffer(u32),
    /// `[[texture(N)]]`: a texture, or an `array<texture…, count>` at
    /// `index..index + count`.
    Texture {
        /// First slot.
        index: u32,
        /// Elements (1 unless an array).
        count: u32,
    },
    /// `[[sampler(N)]]`, or an array of samplers.
    Sampler {
        /// First slot.
        index: u32,
        /// Elements.
        count: u32,
    },
    /// A builtin.
    Builtin(Builtin),
}

/// One parameter of the kernel function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(in crate::cpu) struct Param {
    /// Its type, as written.
    pub(in crate::cpu) ty: String,
    /// Its name.
    pub(in crate::cpu) name: String,
    /// Its binding.
    pub(in crate::cpu) kind: ParamKind,
    /// `sizeof` of the struct a `[[buffer(N)]]` reference parameter names,
    /// read from the compiled kernel (`halc_param_bytes`); 0 for the others.
    pub(in crate::cpu) bytes: u64,
}

/// The parameter list of `kernel void NAME(...)`, split at top-level commas.
pub(super) fn kernel_params<'s>(msl: &'s str, msl_name: &str) -> Option<(usize, Vec<&'s str>)> {
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

pub(super) fn parse_param(kernel: &str, line: usize, text: &str) -> Result<Param, CpuError> {
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
        ("texture" | "sampler", Some(n)) => {
            let index = n
                .parse()
                .map_err(|_| bad(format!("parameter `{name}`: bad slot `{n}`")))?;
            let count = array_count(ty).ok_or_else(|| {
                bad(format!("parameter `{name}`: cannot read the array length of `{ty}`"))
            })?;
            if attr_name == "texture" {
                ParamKind::Texture { index, count }
            } else {
                ParamKind::Sampler { index, count }
            }
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
        bytes: 0,
    })
}

/// The element count of a parameter type: `N` of `array<T, N>`, else 1;
/// `None` when the count is not a literal.
fn array_count(ty: &str) -> Option<u32> {
    let Some(inner) = ty.trim().strip_prefix("array<") else {
        return Some(1);
    };
    let inner = inner.trim_end().strip_suffix('>')?;
    inner
        .rsplit(',')
        .next()?
        .trim()
        .trim_end_matches(['u', 'U'])
        .parse()
        .ok()
}
