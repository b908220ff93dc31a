//! The crate's source layout (issue 37): no two files import each other,
//! directly or through others, and in each backend `device.rs` owns the
//! others: nothing imports it.
//!
//! An edge is a path starting with `crate::`, `super::` or `self::` in a
//! file (its `use` trees and paths in code; comments skipped), resolved to
//! the file of the longest module prefix it names, then through the `pub
//! use` re-exports of that module to the file defining the item. A `mod.rs`
//! declaring and re-exporting its children is not an edge of its own. The
//! generated bindings are left out.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

type Module = Vec<String>;

struct Crate {
    /// Every module of a file, with its source (comments removed) and
    /// whether it is a directory module (`mod.rs`, `lib.rs`).
    files: BTreeMap<Module, (String, bool)>,
    /// Per module: item name → module it is re-exported from.
    reexports: BTreeMap<Module, BTreeMap<String, Module>>,
}

fn rs_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            if p.file_name().unwrap() != "generated" {
                rs_files(&p, out);
            }
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

fn strip_comments(src: &str) -> String {
    src.lines()
        .map(|l| l.find("//").map_or(l, |i| &l[..i]))
        .collect::<Vec<_>>()
        .join("\n")
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
    fn read(root: &Path) -> Crate {
        let mut paths = Vec::new();
        rs_files(root, &mut paths);
        let mut files = BTreeMap::new();
        for p in paths {
            let rel = p.strip_prefix(root).unwrap().with_extension("");
            let mut m: Module = rel.iter().map(|s| s.to_string_lossy().into()).collect();
            let dir = matches!(m.last().map(String::as_str), Some("mod" | "lib"));
            if dir {
                m.pop();
            }
            let src = strip_comments(&std::fs::read_to_string(&p).unwrap());
            files.insert(m, (src, dir));
        }
        let mut krate = Crate {
            files,
            reexports: BTreeMap::new(),
        };
        let mut reexports = BTreeMap::new();
        for (m, (src, _)) in &krate.files {
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
        for (m, (src, _)) in &self.files {
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
                    to.extend(self.module_of(m, &path, true));
                }
            }
            to.remove(m);
            edges.insert(m.clone(), to);
        }
        edges
    }
}

fn name(m: &Module) -> String {
    if m.is_empty() {
        "lib".into()
    } else {
        m.join("/")
    }
}

/// The strongly connected components of more than one file (Tarjan).
fn cycles(edges: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<Vec<String>> {
    struct State<'e> {
        edges: &'e BTreeMap<Module, BTreeSet<Module>>,
        index: BTreeMap<&'e Module, usize>,
        low: BTreeMap<&'e Module, usize>,
        stack: Vec<&'e Module>,
        on: BTreeSet<&'e Module>,
        out: Vec<Vec<String>>,
    }
    fn visit<'e>(s: &mut State<'e>, v: &'e Module) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on.insert(v);
        for w in &s.edges[v] {
            let Some((w, _)) = s.edges.get_key_value(w) else {
                continue;
            };
            if !s.index.contains_key(w) {
                visit(s, w);
                let l = s.low[v].min(s.low[w]);
                s.low.insert(v, l);
            } else if s.on.contains(w) {
                let l = s.low[v].min(s.index[w]);
                s.low.insert(v, l);
            }
        }
        if s.low[v] == s.index[v] {
            let mut comp = Vec::new();
            loop {
                let w = s.stack.pop().unwrap();
                s.on.remove(w);
                comp.push(name(w));
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

fn src_edges() -> BTreeMap<Module, BTreeSet<Module>> {
    Crate::read(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src")).edges()
}

#[test]
fn no_two_files_of_the_crate_import_each_other() {
    let edges = src_edges();
    assert!(edges.len() > 50, "{} files", edges.len());
    let c = cycles(&edges);
    assert!(c.is_empty(), "files importing each other: {c:?}");
}

/// The files importing `device`.
fn importers(edges: &BTreeMap<Module, BTreeSet<Module>>, device: &Module) -> Vec<String> {
    edges
        .iter()
        .filter(|(_, to)| to.contains(device))
        .map(|(m, _)| name(m))
        .collect()
}

fn module(s: &str) -> Module {
    s.split('/').map(String::from).collect()
}

#[test]
fn nothing_imports_a_backends_device() {
    let edges = src_edges();
    for device in ["cpu/device", "metal/device"].map(module) {
        assert!(edges.contains_key(&device), "no {}", name(&device));
        let importers = importers(&edges, &device);
        assert!(
            importers.is_empty(),
            "{} is imported by {importers:?}",
            name(&device)
        );
    }
}

/// Negative controls: the loops issue 37 removed would be seen, through a
/// re-export too.
#[test]
fn the_layout_check_sees_a_cycle_and_an_import_of_device() {
    let src = Crate::read(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    let mut edges = src.edges();
    // load ↔ verify, as when `VerifyLimits` was in load.rs.
    assert!(edges[&module("load")].contains(&module("verify/limits")));
    edges
        .get_mut(&module("verify/limits"))
        .unwrap()
        .insert(module("load"));
    let c = cycles(&edges);
    assert!(
        c.contains(&vec!["load".into(), "verify/limits".into()]),
        "{c:?}"
    );
    // A command buffer holding the device again: `super::Device` is
    // handle.rs (the crate re-exports it), `super::device::…` device.rs.
    let cmd = module("cpu/command");
    let path = |p: &str| -> Vec<String> { p.split("::").map(String::from).collect() };
    assert_eq!(
        src.module_of(&cmd, &path("super::Device"), true),
        Some(module("cpu/handle"))
    );
    let device = module("cpu/device");
    let to = src.module_of(&cmd, &path("super::device::Device"), true);
    assert_eq!(to.as_ref(), Some(&device));
    edges.get_mut(&cmd).unwrap().extend(to);
    assert_eq!(importers(&edges, &device), ["cpu/command"]);
}
