//! Rust identifiers from SPIR-V names: escaped, snake_case, UpperCamelCase,
//! unique within a scope.

use std::collections::BTreeSet;

pub(super) const KEYWORDS: &[&str] = &[
    "as", "break", "const", "continue", "else", "enum", "extern", "false", "fn", "for", "if",
    "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "static",
    "struct", "trait", "true", "type", "unsafe", "use", "where", "while", "async", "await", "dyn",
    "abstract", "become", "box", "do", "final", "macro", "override", "priv", "typeof", "unsized",
    "virtual", "yield", "try", "gen",
];

/// A Rust identifier for `s`: other characters become `_`, a leading digit
/// gets a `_`, keywords become raw identifiers.
pub(super) fn ident(s: &str) -> String {
    let mut out: String = s
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    if out == "_" {
        out.push('_');
    }
    if matches!(out.as_str(), "self" | "Self" | "super" | "crate") {
        out.push('_');
    } else if KEYWORDS.contains(&out.as_str()) {
        out.insert_str(0, "r#");
    }
    out
}

/// snake_case of `s` (`blockSum` → `block_sum`, `PC` → `pc`).
pub(super) fn snake(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii_uppercase() {
            let prev = i.checked_sub(1).map(|p| chars[p]);
            let next = chars.get(i + 1);
            let boundary = prev.is_some_and(|p| p.is_ascii_lowercase() || p.is_ascii_digit())
                || (prev.is_some_and(|p| p.is_ascii_uppercase())
                    && next.is_some_and(|n| n.is_ascii_lowercase()));
            if boundary && !out.ends_with('_') {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    ident(&out)
}

/// UpperCamelCase of `s` (`params_weights` → `ParamsWeights`).
pub(super) fn camel(s: &str) -> String {
    let mut out = String::new();
    let mut up = true;
    for c in s.chars() {
        if c == '_' || !c.is_ascii_alphanumeric() {
            up = true;
        } else if up {
            out.push(c.to_ascii_uppercase());
            up = false;
        } else {
            out.push(c);
        }
    }
    ident(&out)
}

/// `base`, or `base_2`, `base_3`, … when taken; recorded as taken.
pub(super) fn unique(taken: &mut BTreeSet<String>, base: &str) -> String {
    let mut name = base.to_string();
    let mut n = 2;
    while taken.contains(&name) {
        name = format!("{base}_{n}");
        n += 1;
    }
    taken.insert(name.clone());
    name
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(snake("blockSum"), "block_sum");
        assert_eq!(snake("PC"), "pc");
        assert_eq!(snake("HTTPServer"), "http_server");
        assert_eq!(snake("type"), "r#type");
        assert_eq!(camel("params_weights"), "ParamsWeights");
        assert_eq!(ident("2d"), "_2d");
        assert_eq!(ident("self"), "self_");
        let mut t = BTreeSet::new();
        assert_eq!(unique(&mut t, "a"), "a");
        assert_eq!(unique(&mut t, "a"), "a_2");
    }
}
