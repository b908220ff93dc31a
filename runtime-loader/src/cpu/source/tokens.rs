//! Token rewrites: identifiers, float literals and their suffixes, vector
//! constructors, `not(v)`.

pub(super) fn is_ident_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// Identifiers in `s`.
pub(super) fn idents(s: &str) -> impl Iterator<Item = &str> {
    s.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| w.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_'))
}

/// MSL texture constructs the shim does not implement: multisampled and
/// depth textures and comparison sampling (SPIRV-Cross emits them for
/// multisampled images and shadow samplers, which no compute kernel halc
/// compiles uses yet).
pub(super) const UNSUPPORTED_TEXTURE_WORDS: &[&str] = &[
    "texture2d_ms",
    "texture2d_ms_array",
    "depth2d",
    "depth2d_array",
    "depth2d_ms",
    "depth2d_ms_array",
    "depthcube",
    "depthcube_array",
    "sample_compare",
    "gather_compare",
    "get_num_samples",
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
pub(super) fn rewrite_tokens(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = String::with_capacity(src.len() + src.len() / 8);
    let mut i = 0;
    let mut last_sig: u8 = b' '; // last non-space byte emitted
    let mut scope = false; // whether that byte ends a `::`
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
            scope = false;
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
            // A member (`s.float2(`) or a qualified name (`metal::float4(`)
            // is not a constructor; after a ternary's `:` it is.
            let called = next == Some(&b'(') && last_sig != b'.' && !scope;
            if is_vector_type(word) && called {
                out.push_str("metal::halc_vec<");
                out.push_str(word);
                out.push('>');
            } else if word == "vec"
                && last_sig != b'.'
                && !scope
                && src[j..].starts_with("<bool")
                && !src.as_bytes().get(j + 5).is_some_and(|&c| is_ident_char(c))
            {
                // MSL's `vec<bool, N>` is the shim's `boolN`, a vector of
                // `signed char` (see `vec` in metal_stdlib).
                out.push_str("vec<signed char");
                last_sig = b'a';
                scope = false;
                i = j + "<bool".len();
                continue;
            } else if word == "not" && called {
                // MSL's `not(boolN)`; C++ reads `not` as `!`, which gives a
                // -1/0 mask.
                out.push_str("metal::halc_not");
            } else {
                out.push_str(word);
            }
            last_sig = b'a';
            scope = false;
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
            scope = false;
            i = j;
            continue;
        }
        out.push(c as char);
        if !c.is_ascii_whitespace() {
            scope = c == b':' && last_sig == b':';
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

    /// A constructor in a ternary's second branch is one (SPIRV-Cross's
    /// `gl_SubgroupEqMask`); a qualified name is not.
    /// MSL's `vec<bool, N>` is the shim's `boolN` (`signed char` lanes);
    /// other `vec`s, and names that only end in `vec`, are left alone.
    #[test]
    fn bool_vecs_become_the_shims_bool_vectors() {
        assert_eq!(
            rewrite_tokens("inline vec<bool, N> f(vec<bool, N> v, vec<float, 4> w, myvec<bool, 2> x, vec<boolean, 2> y);"),
            "inline vec<signed char, N> f(vec<signed char, N> v, vec<float, 4> w, myvec<bool, 2> x, vec<boolean, 2> y);"
        );
    }

    #[test]
    fn a_vector_constructor_after_a_ternary_colon_is_rewritten() {
        assert_eq!(
            rewrite_tokens("m = i >= 32 ? uint4(0, 1 << (i - 32), uint2(0)) : uint4(1 << i, uint3(0));"),
            "m = i >= 32 ? metal::halc_vec<uint4>(0, 1 << (i - 32), metal::halc_vec<uint2>(0)) : metal::halc_vec<uint4>(1 << i, metal::halc_vec<uint3>(0));"
        );
        assert_eq!(rewrite_tokens("metal::float4(x)"), "metal::float4(x)");
        assert_eq!(rewrite_tokens("metal :: float4(x)"), "metal :: float4(x)");
    }
}
