//! Declarations rewritten line by line: function constants, threadgroup
//! locals, SPIRV-Cross's `spvUnsafeArray` template.

/// `constant T NAME [[function_constant(ID)]];` → (T, NAME, ID).
pub(super) fn parse_function_constant(line: &str) -> Option<(&str, &str, u32)> {
    let t = line.trim();
    let rest = t.strip_prefix("constant ")?;
    let (decl, attr) = rest.split_once("[[function_constant(")?;
    let id = attr.strip_suffix(")]];")?.trim().parse().ok()?;
    let decl = decl.trim();
    let (ty, name) = decl.rsplit_once(' ')?;
    Some((ty.trim(), name.trim(), id))
}

/// `threadgroup T NAME[dims];` → (indent, T, NAME, dims).
pub(super) fn parse_threadgroup_local(line: &str) -> Option<(&str, &str, &str, &str)> {
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

/// Blank lines of SPIRV-Cross's `spvUnsafeArray` definition.
pub(super) fn blank_unsafe_array(lines: &mut [String]) {
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
