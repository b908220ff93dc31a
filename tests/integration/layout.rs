//! The source tree's shape, checked (issue 37): data flows one way, in
//! halc and in the runtime.
//!
//! An edge is a path starting with `crate::`, `super::` or `self::` in a
//! file (its `use` trees and paths in code; comments, string literals and a
//! trailing `#[cfg(test)] mod tests` left out), resolved to the file of the
//! longest module prefix it names, then through the `pub use` re-exports of
//! that module to the file defining the item. The checks:
//! - no module imports another that imports it back, through any chain;
//! - nothing imports an item defined in the crate root: `lib.rs` holds docs
//!   and re-exports;
//! - halc's top-level parts import only parts before them in
//!   [`HALC_LAYERS`], the order data moves in;
//! - no `halc` subcommand (`src/cli/`) imports another;
//! - in each runtime backend, `device.rs` owns the others: nothing imports
//!   it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// halc's top-level parts from the ground up; a part may import itself and
/// the parts before it. `model` is the ground floor: the values that pass
/// between the stages and out to users (what `compile` takes and returns,
/// each stage's products and errors), importing nothing of halc;
/// `position` is text positions, used by every part that reads a text file.
const HALC_LAYERS: &[&str] = &[
    "model",
    "position",
    "spirv",
    "msl",
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
                // The flatc output is generated code, which imports nothing
                // of the crate: one empty module stands for it.
                if p.file_name().is_some_and(|n| n == "generated") {
                    let rel = p.strip_prefix(src).unwrap();
                    let m = rel
                        .iter()
                        .map(|c| c.to_string_lossy().into_owned())
                        .collect();
                    out.insert(m, String::new());
                } else {
                    stack.push(p);
                }
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
            // The binary's root and the library's are one module here (only
            // the binary has `cli`).
            let text = code(&std::fs::read_to_string(&p).unwrap());
            let (text, inline) = inline_modules(&text);
            for (name, body) in inline {
                let mut sub = m.clone();
                sub.push(name);
                out.insert(sub, body);
            }
            out.entry(m).or_default().push_str(&text);
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
    let text = match text.find("#[cfg(test)]\nmod tests {") {
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

struct Crate {
    /// Every module, with its code ([`code`]).
    files: BTreeMap<Module, String>,
    /// Per module: item name → module it is re-exported from.
    reexports: BTreeMap<Module, BTreeMap<String, Module>>,
}

/// `a::{b, c::{d, e as f}}` → `[a, b]`, `[a, c, d]`, `[a, c, e]`.
fn expand(prefix: &[String], tree: &str) -> Vec<Module> {
    let tree = tree.trim();
    if let Some(inner) = tree.strip_prefix('{').and_then(|t| t.strip_suffix('}')) {
        let (mut parts, mut depth, mut cur) = (Vec::new(), 0, String::new());
        for ch in inner.chars() {
            match ch {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    parts.push(std::mem::take(&mut cur));
                    continue;
                }
                _ => {}
            }
            cur.push(ch);
        }
        parts.push(cur);
        return parts
            .iter()
            .filter(|p| !p.trim().is_empty())
            .flat_map(|p| expand(prefix, p))
            .collect();
    }
    if let Some(i) = tree.find("::{") {
        let mut p = prefix.to_vec();
        p.extend(tree[..i].split("::").map(|s| s.trim().to_string()));
        return expand(&p, &tree[i + 2..]);
    }
    let tree = tree.split(" as ").next().unwrap();
    let mut p = prefix.to_vec();
    p.extend(tree.split("::").map(|s| s.trim().to_string()));
    vec![p]
}

/// The `use` trees of `src`, with whether each is a `pub` re-export.
fn uses(src: &str) -> Vec<(bool, String)> {
    let mut out = Vec::new();
    let mut rest = src;
    while let Some(i) = rest.find("use ") {
        let before = &rest[..i];
        let starts_word = before
            .chars()
            .last()
            .is_none_or(|c| !c.is_alphanumeric() && c != '_');
        let line_start = before.rfind('\n').map_or(before, |j| &before[j + 1..]);
        let after = &rest[i + 4..];
        match after.find(';') {
            Some(end) if starts_word => {
                let public = line_start.trim_start().starts_with("pub");
                let tree: String = after[..end]
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ");
                out.push((public, tree));
                rest = &after[end..];
            }
            _ => rest = after,
        }
    }
    out
}

impl Crate {
    /// The crate whose source tree is at `root`.
    fn read(root: &Path) -> Crate {
        Crate::of(modules(root))
    }

    /// The crate of these modules' code.
    fn of(files: BTreeMap<Module, String>) -> Crate {
        let mut krate = Crate {
            files,
            reexports: BTreeMap::new(),
        };
        let mut reexports = BTreeMap::new();
        for (m, src) in &krate.files {
            for (public, tree) in uses(src) {
                if !public {
                    continue;
                }
                for mut path in expand(&[], &tree) {
                    let item = path.pop().unwrap();
                    if item == "*" || item == "self" {
                        continue;
                    }
                    if !matches!(
                        path.first().map(String::as_str),
                        Some("crate" | "super" | "self")
                    ) {
                        path.insert(0, "self".into());
                    }
                    if let Some(from) = krate.module_of(m, &path, false) {
                        reexports
                            .entry(m.clone())
                            .or_insert_with(BTreeMap::new)
                            .insert(item, from);
                    }
                }
            }
        }
        krate.reexports = reexports;
        krate
    }

    /// The file a path used in module `m` leads to (following re-exports
    /// when `follow`), or `None` for a path outside the crate.
    fn module_of(&self, m: &Module, path: &[String], follow: bool) -> Option<Module> {
        let (mut base, rest): (Module, &[String]) = match path.first()?.as_str() {
            "crate" => (Vec::new(), &path[1..]),
            "self" => (m.clone(), &path[1..]),
            "super" => {
                let mut b = m.clone();
                let mut r = path;
                while r.first().is_some_and(|s| s == "super") {
                    b.pop();
                    r = &r[1..];
                }
                (b, r)
            }
            _ => return None,
        };
        let mut rest = rest.to_vec();
        while let Some(s) = rest.first() {
            let mut next = base.clone();
            next.push(s.clone());
            if !self.files.contains_key(&next) {
                break;
            }
            base = next;
            rest.remove(0);
        }
        let mut hops = 0;
        while follow && hops < 8 {
            let Some(from) = rest
                .first()
                .and_then(|item| self.reexports.get(&base)?.get(item))
            else {
                break;
            };
            base = from.clone();
            hops += 1;
        }
        Some(base)
    }

    /// File → the files it imports.
    fn edges(&self) -> BTreeMap<Module, BTreeSet<Module>> {
        let mut edges = BTreeMap::new();
        for (m, src) in &self.files {
            let mut to = BTreeSet::new();
            for (_, tree) in uses(src) {
                for path in expand(&[], &tree) {
                    to.extend(self.module_of(m, &path, true));
                }
            }
            // Paths in code: `crate::a::b`, `super::X`.
            let bytes = src.as_bytes();
            for start in ["crate::", "super::", "self::"] {
                let mut at = 0;
                while let Some(i) = src[at..].find(start) {
                    let i = at + i;
                    at = i + start.len();
                    // Inside a longer word, or the rest of a path already read.
                    if i > 0
                        && (bytes[i - 1].is_ascii_alphanumeric()
                            || matches!(bytes[i - 1], b'_' | b':'))
                    {
                        continue;
                    }
                    let end = src[i..]
                        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                        .map_or(src.len(), |e| i + e);
                    let path: Module = src[i..end]
                        .split("::")
                        .filter(|s| !s.is_empty())
                        .map(String::from)
                        .collect();
                    // `crate::{…}`: a use tree, read above.
                    if path.len() > 1 {
                        to.extend(self.module_of(m, &path, true));
                    }
                }
            }
            to.remove(m);
            edges.insert(m.clone(), to);
        }
        edges
    }
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

/// Every way `edges` breaks the rules above, one line each: `layers` as
/// [`HALC_LAYERS`], `owned` the modules nothing may import (`cpu::device`).
fn violations(
    edges: &BTreeMap<Module, BTreeSet<Module>>,
    layers: &[&str],
    owned: &[&str],
) -> Vec<String> {
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
            if owned.contains(&name(to).as_str()) {
                out.push(format!(
                    "{} imports {}, which owns it",
                    name(from),
                    name(to)
                ));
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

fn read(src: &str) -> Crate {
    let krate = Crate::read(&Path::new(env!("CARGO_MANIFEST_DIR")).join(src));
    assert!(
        krate.files.len() > 30,
        "{src}: only {} modules found",
        krate.files.len()
    );
    krate
}

#[test]
fn halc_imports_flow_one_way() {
    let v = violations(&read("src").edges(), HALC_LAYERS, &[]);
    assert!(v.is_empty(), "src/:\n{}", v.join("\n"));
}

#[test]
fn the_runtime_imports_flow_one_way_and_each_device_owns_its_backend() {
    let krate = read("runtime-loader/src");
    let owned = ["cpu::device", "metal::device"];
    for m in owned {
        assert!(krate.files.contains_key(&module(m)), "no {m}");
    }
    let v = violations(&krate.edges(), &[], &owned);
    assert!(v.is_empty(), "runtime-loader/src/:\n{}", v.join("\n"));
}

fn module(s: &str) -> Module {
    s.split("::").map(String::from).collect()
}

/// The loops issue 37 removed from the runtime would be seen, through a
/// re-export too.
#[test]
fn the_runtimes_old_loops_would_be_seen() {
    let krate = read("runtime-loader/src");
    let mut edges = krate.edges();
    // load <-> verify, as when `VerifyLimits` was in load.rs.
    assert!(edges[&module("load")].contains(&module("verify::limits")));
    edges
        .get_mut(&module("verify::limits"))
        .unwrap()
        .insert(module("load"));
    assert_eq!(
        violations(&edges, &[], &[]),
        ["import cycle: load <-> verify::limits"]
    );
    // A command buffer holding the device again: `super::Device` is
    // handle.rs (the crate re-exports it), `super::device::…` device.rs.
    let cmd = module("cpu::command");
    let path = |p: &str| -> Vec<String> { p.split("::").map(String::from).collect() };
    assert_eq!(
        krate.module_of(&cmd, &path("super::Device"), true),
        Some(module("cpu::handle"))
    );
    let to = krate.module_of(&cmd, &path("super::device::Device"), true);
    assert_eq!(to, Some(module("cpu::device")));
    let mut edges = krate.edges();
    edges.get_mut(&cmd).unwrap().extend(to);
    assert_eq!(
        violations(&edges, &[], &["cpu::device"]),
        [
            "import cycle: cpu::command <-> cpu::device",
            "cpu::command imports cpu::device, which owns it"
        ]
    );
}

/// The checks find what they are for: each rule broken once in a small
/// tree of files.
#[test]
fn each_rule_catches_its_break() {
    let tree = |files: &[(&str, &str)]| -> BTreeMap<Module, BTreeSet<Module>> {
        let files = files
            .iter()
            .map(|(m, t)| {
                let m: Module = if m.is_empty() { Vec::new() } else { module(m) };
                (m, code(t))
            })
            .collect();
        Crate::of(files).edges()
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
    assert_eq!(violations(&clean, layers, &[]), Vec::<String>::new());

    let cycle = tree(&[
        ("spirv", "use super::msl::g;"),
        ("msl", "use crate::spirv::f;"),
    ]);
    assert_eq!(
        violations(&cycle, &[], &[]),
        ["import cycle: msl <-> spirv"]
    );
    let upward = tree(&[("spirv", "fn f() { crate::msl::g() }"), ("msl", "")]);
    assert_eq!(
        violations(&upward, layers, &[]),
        ["spirv imports msl, a later part"]
    );
    let root = tree(&[("", "pub struct Options;"), ("msl", "use crate::Options;")]);
    assert_eq!(
        violations(&root, layers, &[]),
        ["msl imports the crate root"]
    );
    let sub = tree(&[
        ("cli", ""),
        ("cli::compile", "use super::build::run;"),
        ("cli::build", ""),
    ]);
    assert_eq!(
        violations(&sub, layers, &[]),
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
        violations(&tests_left_out, layers, &[]),
        Vec::<String>::new()
    );
}

/// Every source path the docs name (`src/…`, `runtime-loader/…`, … in code
/// spans) exists: a file that moves takes its mentions with it.
#[test]
fn the_docs_name_files_that_exist() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut docs = vec![root.join("README.md")];
    let mut stack = vec![root.join("docs")];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() && p.file_name().is_some_and(|n| n != "book") {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "md") {
                docs.push(p);
            }
        }
    }
    let mut missing = Vec::new();
    let mut named = 0;
    for doc in &docs {
        let text = std::fs::read_to_string(doc).unwrap();
        for span in text.split('`').skip(1).step_by(2) {
            let roots = [
                "src/",
                "runtime-loader/",
                "vulkan-reference/",
                "scripts/",
                "tests/integration/",
                "tests/amber/",
                "tests/snapshots/",
            ];
            if !roots.iter().any(|r| span.starts_with(r))
                || span.contains(' ')
                || span.contains('*')
            {
                continue;
            }
            named += 1;
            if !root.join(span).exists() {
                missing.push(format!(
                    "{}: `{span}`",
                    doc.strip_prefix(root).unwrap().display()
                ));
            }
        }
    }
    assert!(named > 20, "only {named} paths found: the scan is broken");
    assert!(
        missing.is_empty(),
        "paths the docs name that do not exist:\n{}",
        missing.join("\n")
    );
}
