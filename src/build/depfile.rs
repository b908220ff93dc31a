//! Make/Ninja dependency files (`--depfile FILE`): `OUT: IN…` naming every
//! file a build read, so Make, Ninja, CMake and Bazel rebuild exactly when
//! one of them changes.

/// One depfile rule: `target` depends on `deps` (in the order given,
/// duplicates removed). Paths are written as given, with spaces, `#`, `\`
/// before a space and `$` escaped as GNU Make and Ninja read them.
pub fn render(target: &str, deps: &[String]) -> String {
    let mut seen = std::collections::BTreeSet::new();
    let mut out = escape(target);
    out.push(':');
    for d in deps {
        if seen.insert(d.as_str()) {
            out.push_str(" \\\n  ");
            out.push_str(&escape(d));
        }
    }
    out.push('\n');
    out
}

/// Escapes one path for a depfile.
fn escape(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let chars: Vec<char> = path.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        match c {
            ' ' => {
                // Backslashes before a space are doubled, then the space escaped.
                let mut j = i;
                while j > 0 && chars[j - 1] == '\\' {
                    out.push('\\');
                    j -= 1;
                }
                out.push_str("\\ ");
            }
            '#' => out.push_str("\\#"),
            '$' => out.push_str("$$"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_what_make_and_ninja_read_specially() {
        assert_eq!(
            render(
                "out dir/k.halc",
                &[
                    "a b.spv".into(),
                    "x#1.spv".into(),
                    "$y.spv".into(),
                    "a b.spv".into()
                ]
            ),
            "out\\ dir/k.halc: \\\n  a\\ b.spv \\\n  x\\#1.spv \\\n  $$y.spv\n"
        );
        assert_eq!(escape("a\\ b"), "a\\\\\\ b");
    }
}
