//! The source tree's shape, checked (issue 37): data flows one way.
//!
//! Every `crate::…` and `super::…` path in a crate's modules (comments and
//! `#[cfg(test)] mod tests` blocks left out) is an edge from the file to the
//! module file the path names. The checks:
//! - no module imports another that imports it back, through any chain
//!   (halc and runtime-loader);
//! - nothing imports the crate root: `lib.rs` holds docs and re-exports;
//! - halc's top-level parts import only parts below them in
//!   [`HALC_LAYERS`], the order data moves in;
//! - no `halc` subcommand (`src/cli/`) imports another.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// halc's top-level parts from the ground up; a part may import itself and
/// the parts before it. `model` (what `compile` takes and returns) sits on
/// the stages whose values it carries; `position` is text positions, used
/// by every part that reads a text file.
const HALC_LAYERS: &[&str] = &[
    "position",
    "spirv",
    "msl",
    "model",
    "flatbuffer",
    "driver",
    "describe",
    "build",
    "run",
    "cli",
];

/// The `halc` subcommands, one file each under `src/cli/`.
const SUBCOMMANDS: &[&str] = &["build", "compile", "diff", "inspect", "test"];

type Module = Vec<String>;

/// Module path of each `.rs` file under `src` (`a/mod.rs` and `a.rs` are
/// `a`; `lib.rs` and `main.rs` the root).
fn modules(src: &Path) -> BTreeMap<Module, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            if p.extension().is_none_or(|x| x != "rs") {
                continue;
            }
            let rel = p.strip_prefix(src).unwrap().with_extension("");
            let mut m: Module = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if m.last().is_some_and(|l| l == "mod") {
                m.pop();
            }
            if m == ["lib"] || m == ["main"] {
                m.clear();
            }
            // The binary's root and the library's are one module here; only
            // the binary has `cli`.
            let text = std::fs::read_to_string(&p).unwrap();
            let (text, inline) = inline_modules(&text);
            for (name, body) in inline {
                let mut sub = m.clone();
                sub.push(name);
                out.insert(sub, body);
            }
            out.entry(m).or_insert(text);
        }
    }
    out
}

/// `text` without its inline modules (`mod name { … }`, other than
/// `mod tests`), and each of them: (name, body).
fn inline_modules(text: &str) -> (String, Vec<(String, String)>) {
    let mut rest = text.to_string();
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(at) = rest[from..].find("mod ").map(|a| a + from) {
        from = at + 4;
        let line_start = rest[..at].rfind('\n').map_or(0, |n| n + 1);
        let head = rest[line_start..at].trim();
        if !(head.is_empty() || head == "pub" || head.starts_with("pub(")) {
            continue;
        }
        let after = &rest[at + 4..];
        let name: String = after
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        let open = at + 4 + name.len();
        if name.is_empty() || name == "tests" || !rest[open..].trim_start().starts_with('{') {
            continue;
        }
        let open = open + rest[open..].find('{').unwrap();
        let mut depth = 0;
        let mut close = open;
        for (n, c) in rest[open..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        close = open + n;
                        break;
                    }
                }
                _ => {}
            }
        }
        found.push((name, rest[open + 1..close].to_string()));
        rest.replace_range(open + 1..close, "");
    }
    (rest, found)
}

/// `text` without comments, string literals' contents and a trailing
/// `#[cfg(test)] mod tests` block.
fn code(text: &str) -> String {
    let text = match text.find("#[cfg(test)]\nmod tests") {
        Some(at) => &text[..at],
        None => text,
    };
    let s = text.as_bytes();
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        if s[i..].starts_with(b"//") {
            while i < s.len() && s[i] != b'\n' {
                i += 1;
            }
        } else if s[i..].starts_with(b"'\"'") {
            i += 3;
        } else if s[i] == b'"'
            || ((s[i..].starts_with(b"r\"")
                || s[i..].starts_with(b"r#\"")
                || s[i..].starts_with(b"r##"))
                && (i == 0 || !(s[i - 1].is_ascii_alphanumeric() || s[i - 1] == b'_')))
        {
            // A raw string ends at `"` and as many `#` as it opened with.
            let raw = s[i] == b'r';
            let mut hashes = 0;
            i += usize::from(raw);
            while raw && s.get(i) == Some(&b'#') {
                hashes += 1;
                i += 1;
            }
            i += 1;
            while i < s.len() {
                if !raw && s[i] == b'\\' {
                    i += 2;
                    continue;
                }
                if s[i] == b'"'
                    && s[i + 1..]
                        .iter()
                        .take(hashes)
                        .filter(|&&c| c == b'#')
                        .count()
                        == hashes
                {
                    i += 1 + hashes;
                    break;
                }
                i += 1;
            }
            out.extend_from_slice(b"\"\"");
        } else {
            out.push(s[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Every path a `crate::`/`super::` prefix at the start of `rest` names,
/// braces expanded: `a::{b, c::d}` gives `a::b` and `a::c::d`.
fn paths(rest: &str) -> Vec<Vec<String>> {
    fn tree(s: &[u8], i: &mut usize, prefix: &[String], out: &mut Vec<Vec<String>>) {
        let mut path = prefix.to_vec();
        loop {
            while *i < s.len() && s[*i].is_ascii_whitespace() {
                *i += 1;
            }
            if *i < s.len() && s[*i] == b'{' {
                *i += 1;
                loop {
                    tree(s, i, &path, out);
                    while *i < s.len() && s[*i].is_ascii_whitespace() {
                        *i += 1;
                    }
                    match s.get(*i) {
                        Some(b',') => *i += 1,
                        Some(b'}') => {
                            *i += 1;
                            return;
                        }
                        _ => return,
                    }
                    while *i < s.len() && s[*i].is_ascii_whitespace() {
                        *i += 1;
                    }
                    if s.get(*i) == Some(&b'}') {
                        *i += 1;
                        return;
                    }
                }
            }
            let start = *i;
            while *i < s.len() && (s[*i].is_ascii_alphanumeric() || s[*i] == b'_') {
                *i += 1;
            }
            if start == *i {
                break;
            }
            path.push(String::from_utf8_lossy(&s[start..*i]).into_owned());
            if s[*i..].starts_with(b"::") {
                *i += 2;
            } else {
                break;
            }
        }
        out.push(path);
    }
    let mut out = Vec::new();
    tree(rest.as_bytes(), &mut 0, &[], &mut out);
    out
}

/// Edges between module files: for each module, the modules its paths name
/// (the longest module prefix of each path), itself left out.
fn edges(mods: &BTreeMap<Module, String>) -> BTreeMap<Module, BTreeSet<Module>> {
    let resolve = |path: &[String]| -> Module {
        (0..=path.len())
            .rev()
            .map(|n| path[..n].to_vec())
            .find(|p| mods.contains_key(p))
            .unwrap_or_default()
    };
    let mut out: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    for (m, text) in mods {
        let code = code(text);
        let set = out.entry(m.clone()).or_default();
        let bytes = code.as_bytes();
        let mut at = 0;
        while at < code.len() {
            let rest = &code[at..];
            let (base, skip) = if rest.starts_with("crate::") {
                (Vec::new(), "crate::".len())
            } else if rest.starts_with("super::") {
                // `super` of `a::b` is `a`; each further `super::` one more up.
                let mut base = m.clone();
                base.pop();
                let mut skip = "super::".len();
                while rest[skip..].starts_with("super::") {
                    base.pop();
                    skip += "super::".len();
                }
                (base, skip)
            } else {
                at += rest.chars().next().map_or(1, char::len_utf8);
                continue;
            };
            let word_before =
                at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_');
            if !word_before {
                for p in paths(&rest[skip..]) {
                    let full: Vec<String> = base.iter().cloned().chain(p).collect();
                    let target = resolve(&full);
                    if &target != m {
                        set.insert(target);
                    }
                }
            }
            at += skip;
        }
    }
    out
}

/// The strongly connected components of more than one module (Tarjan).
fn cycles(edges: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<Vec<Module>> {
    struct State<'a> {
        edges: &'a BTreeMap<Module, BTreeSet<Module>>,
        index: BTreeMap<&'a Module, usize>,
        low: BTreeMap<&'a Module, usize>,
        stack: Vec<&'a Module>,
        on: BTreeSet<&'a Module>,
        out: Vec<Vec<Module>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a Module) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on.insert(v);
        for w in s.edges.get(v).into_iter().flatten() {
            let Some((w, _)) = s.edges.get_key_value(w) else {
                continue;
            };
            if !s.index.contains_key(w) {
                visit(s, w);
                let l = s.low[w].min(s.low[v]);
                s.low.insert(v, l);
            } else if s.on.contains(w) {
                let l = s.index[w].min(s.low[v]);
                s.low.insert(v, l);
            }
        }
        if s.low[v] == s.index[v] {
            let mut comp = Vec::new();
            loop {
                let w = s.stack.pop().unwrap();
                s.on.remove(w);
                comp.push(w.clone());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                s.out.push(comp);
            }
        }
    }
    let mut s = State {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in edges.keys() {
        if !s.index.contains_key(v) {
            visit(&mut s, v);
        }
    }
    s.out
}

fn name(m: &Module) -> String {
    if m.is_empty() {
        "(crate root)".into()
    } else {
        m.join("::")
    }
}

/// Every way `edges` breaks the rules above, one line each.
fn violations(edges: &BTreeMap<Module, BTreeSet<Module>>, layers: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    for comp in cycles(edges) {
        let names: Vec<String> = comp.iter().map(name).collect();
        out.push(format!("import cycle: {}", names.join(" <-> ")));
    }
    let rank = |m: &Module| {
        m.first()
            .and_then(|top| layers.iter().position(|l| l == top))
    };
    for (from, tos) in edges {
        for to in tos {
            if to.is_empty() {
                out.push(format!("{} imports the crate root", name(from)));
                continue;
            }
            if let (Some(a), Some(b)) = (rank(from), rank(to)) {
                if b > a {
                    out.push(format!("{} imports {}, a later part", name(from), name(to)));
                }
            }
            let sub =
                |m: &Module| m.len() == 2 && m[0] == "cli" && SUBCOMMANDS.contains(&m[1].as_str());
            if sub(from) && sub(to) {
                out.push(format!(
                    "subcommand {} imports subcommand {}",
                    name(from),
                    name(to)
                ));
            }
        }
    }
    out
}

fn check(src: &str, layers: &[&str]) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(src);
    let mods = modules(&root);
    assert!(mods.len() > 10, "{src}: only {} modules found", mods.len());
    violations(&edges(&mods), layers)
}

#[test]
fn halc_imports_flow_one_way() {
    let v = check("src", HALC_LAYERS);
    assert!(v.is_empty(), "src/:\n{}", v.join("\n"));
}

/// The checks find what they are for: each rule broken once in a small
/// tree of files.
#[test]
fn each_rule_catches_its_break() {
    let tree = |files: &[(&str, &str)]| -> BTreeMap<Module, String> {
        files
            .iter()
            .map(|(m, t)| {
                let m: Module = if m.is_empty() {
                    Vec::new()
                } else {
                    m.split("::").map(str::to_string).collect()
                };
                (m, t.to_string())
            })
            .collect()
    };
    let layers = &["spirv", "msl", "cli"];
    let clean = tree(&[
        ("", "pub mod spirv; pub mod msl;"),
        ("spirv", "pub fn f() {}"),
        (
            "msl",
            "use crate::spirv::f; // crate::cli::x in a comment\n",
        ),
        ("cli", "use crate::{msl::g, spirv::{f}};"),
        ("cli::build", "use super::x;"),
    ]);
    assert_eq!(violations(&edges(&clean), layers), Vec::<String>::new());

    let cycle = tree(&[
        ("spirv", "use super::msl::g;"),
        ("msl", "use crate::spirv::f;"),
    ]);
    assert_eq!(
        violations(&edges(&cycle), &[]),
        ["import cycle: msl <-> spirv"]
    );
    let upward = tree(&[("spirv", "fn f() { crate::msl::g() }"), ("msl", "")]);
    assert_eq!(
        violations(&edges(&upward), layers),
        ["spirv imports msl, a later part"]
    );
    let root = tree(&[("", "pub struct Options;"), ("msl", "use crate::Options;")]);
    assert_eq!(
        violations(&edges(&root), layers),
        ["msl imports the crate root"]
    );
    let sub = tree(&[
        ("cli", ""),
        ("cli::compile", "use super::build::run;"),
        ("cli::build", ""),
    ]);
    assert_eq!(
        violations(&edges(&sub), layers),
        ["subcommand cli::compile imports subcommand cli::build"]
    );
    let tests_left_out = tree(&[
        (
            "spirv",
            "#[cfg(test)]\nmod tests {\n    use crate::msl::g;\n}\n",
        ),
        ("msl", ""),
    ]);
    assert_eq!(
        violations(&edges(&tests_left_out), layers),
        Vec::<String>::new()
    );
}
