//! `a < b` → `metal::halc_lt(a, b)` (and `halc_le`, `halc_gt`, `halc_ge`,
//! `halc_eq`, `halc_ne`): MSL compares vectors into boolN, clang into -1/0
//! masks.

use super::tokens::is_ident_char;

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
pub(super) fn rewrite_comparisons(src: &str) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
