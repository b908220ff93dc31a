//! docs/tour.md is made of the files CI builds and runs: every code block
//! but shell commands and program output is preceded by `<!-- from PATH -->`
//! and is a run of whole lines of PATH, a file of examples/kernels-app, or of
//! the bindings `halc::build` generates for it (`OUT_DIR/kernels.rs`). The
//! build script and the shaders are shown whole, and the host program from
//! its first line on, without gaps.

use std::collections::BTreeMap;
use std::path::Path;

const TOUR: &str = "docs/tour.md";
/// The guide's page with the recipe for a crate using halc.
const RECIPE: &str = "docs/guide/build-integration.md";
const GENERATED: &str = "OUT_DIR/kernels.rs";
const MAIN: &str = "examples/kernels-app/src/main.rs";
/// Files the tour shows whole.
const WHOLE: &[&str] = &[
    "examples/kernels-app/build.rs",
    "examples/kernels-app/shaders/transform.comp",
    "examples/kernels-app/shaders/include/common.glsl",
    "examples/kernels-app/shaders/fill.glsl",
];

/// Files a block must show to their last line: the crate's manifest ends
/// with the profile and `[patch.crates-io]` sections a user must copy too.
const TO_END: &[&str] = &["examples/kernels-app/Cargo.toml"];

/// A fenced code block of a page (the tour's, and every page's in docs.rs).
#[derive(Debug)]
pub(crate) struct Block {
    /// 1-based line of its opening fence.
    pub(crate) line: usize,
    pub(crate) lang: String,
    /// The path of its `<!-- from PATH -->` line.
    pub(crate) from: Option<String>,
    pub(crate) body: Vec<String>,
}

/// The fenced code blocks of `markdown`, in order: a block opens at a line
/// starting with ```` ``` ```` and closes at a line that is ```` ``` ```` alone.
pub(crate) fn blocks(markdown: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut lines = markdown.lines().enumerate().peekable();
    let mut from = None;
    while let Some((i, line)) = lines.next() {
        if let Some(lang) = line.strip_prefix("```") {
            let mut body = Vec::new();
            for (_, l) in lines.by_ref() {
                if l == "```" {
                    break;
                }
                body.push(l.to_string());
            }
            out.push(Block {
                line: i + 1,
                lang: lang.trim().to_string(),
                from: from.take(),
                body,
            });
        } else if let Some(path) = line
            .strip_prefix("<!-- from ")
            .and_then(|l| l.strip_suffix(" -->"))
        {
            from = Some(path.to_string());
        } else {
            // The marker must be the line right before the fence.
            from = None;
        }
    }
    out
}

/// Where `body` starts in `file` as a run of whole lines (0-based), if it does.
fn find_run(file: &[&str], body: &[String]) -> Option<usize> {
    if body.is_empty() || body.len() > file.len() {
        return None;
    }
    (0..=file.len() - body.len()).find(|&at| {
        file[at..at + body.len()]
            .iter()
            .zip(body)
            .all(|(a, b)| a == b)
    })
}

/// Where block `b`, marked as from `from`, starts in that file, with the
/// file's lines; a problem in `out` when the file is not one that may be
/// shown or the block is not a run of its lines, or is not whole (`WHOLE`)
/// or not to the end (`TO_END`) as the file must be shown.
fn placed<'f>(
    b: &Block,
    from: &str,
    at: &str,
    files: &'f BTreeMap<String, String>,
    out: &mut Vec<String>,
) -> Option<(usize, Vec<&'f str>)> {
    let Some(text) = files.get(from) else {
        out.push(format!("{at}: `{from}` is not a file the docs may show"));
        return None;
    };
    let lines: Vec<&str> = text.lines().collect();
    let Some(start) = find_run(&lines, &b.body) else {
        out.push(format!(
            "{at}: the block is not a run of lines of `{from}` (it was edited, or the file was)"
        ));
        return None;
    };
    if WHOLE.contains(&from) && b.body.len() != lines.len() {
        out.push(format!("{at}: `{from}` must be shown whole"));
    }
    if TO_END.contains(&from) && start + b.body.len() != lines.len() {
        out.push(format!("{at}: `{from}` must be shown to its last line"));
    }
    Some((start, lines))
}

/// Every problem of `markdown` against `files` (path → contents).
fn problems(markdown: &str, files: &BTreeMap<String, String>) -> Vec<String> {
    let mut out = Vec::new();
    let mut main_cursor = 0usize;
    let mut shown: BTreeMap<&str, usize> = BTreeMap::new();
    let blocks = blocks(markdown);
    for b in &blocks {
        let at = format!("{TOUR}:{}", b.line);
        if matches!(b.lang.as_str(), "sh" | "text") {
            continue;
        }
        let Some(from) = &b.from else {
            out.push(format!(
                "{at}: a `{}` block without a `<!-- from PATH -->` line before it",
                b.lang
            ));
            continue;
        };
        if !files.contains_key(from) && from == GENERATED {
            continue;
        }
        let Some((start, lines)) = placed(b, from, &at, files, &mut out) else {
            continue;
        };
        *shown.entry(from.as_str()).or_default() += 1;
        if from == MAIN {
            let gap = &lines[main_cursor.min(start)..start];
            if start < main_cursor || gap.iter().any(|l| !l.trim().is_empty()) {
                out.push(format!(
                    "{at}: `{MAIN}` must be shown in order from its first line; lines {}..{} are missing",
                    main_cursor + 1,
                    start
                ));
            }
            main_cursor = start + b.body.len();
        }
    }
    for path in WHOLE
        .iter()
        .chain([&MAIN, &"examples/kernels-app/Cargo.toml"])
    {
        if !shown.contains_key(path) {
            out.push(format!("{TOUR}: `{path}` is not shown"));
        }
    }
    if files.contains_key(GENERATED) && !shown.contains_key(GENERATED) {
        out.push(format!("{TOUR}: no block of the generated bindings"));
    }
    out
}

/// The files the tour may show; the generated bindings when glslc is here.
fn files(root: &Path) -> BTreeMap<String, String> {
    let mut files = BTreeMap::new();
    for path in WHOLE
        .iter()
        .chain([&MAIN, &"examples/kernels-app/Cargo.toml"])
    {
        let text = std::fs::read_to_string(root.join(path)).unwrap();
        files.insert(path.to_string(), text);
    }
    if crate::build::has_glslc() {
        // What examples/kernels-app/build.rs does (shown whole in the tour).
        let out = tempfile::tempdir().unwrap();
        halc::build::Kernels::new()
            .manifest_dir(root.join("examples/kernels-app"))
            .out_dir(out.path())
            .glob("shaders/*.comp")
            .unwrap()
            .glob("shaders/*.glsl")
            .unwrap()
            .include_dir("shaders/include")
            .build("kernels")
            .unwrap();
        let text = std::fs::read_to_string(out.path().join("kernels.rs")).unwrap();
        files.insert(GENERATED.to_string(), text);
    }
    files
}

#[test]
fn every_code_block_of_the_tour_is_in_the_files_ci_builds() {
    let root = crate::root();
    let tour = std::fs::read_to_string(root.join(TOUR)).unwrap();
    let files = files(&root);
    let problems = problems(&tour, &files);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(blocks(&tour).len() >= 12);
}

/// Negative controls: an edited line, a block without its marker, a gap in
/// the host program and a shader shown in part are each reported.
#[test]
fn the_tour_check_catches_an_edit_a_missing_marker_a_gap_and_a_part() {
    let root = crate::root();
    let tour = std::fs::read_to_string(root.join(TOUR)).unwrap();
    let mut files = files(&root);
    files.remove(GENERATED);
    assert!(problems(&tour, &files).is_empty());

    let edited = tour.replacen("Grid::Threads([N, 1, 1]),", "Grid::Threads([N, 2, 1]),", 1);
    assert_ne!(edited, tour);
    let p = problems(&edited, &files);
    assert!(
        p.iter()
            .any(|p| p.contains("not a run of lines of `examples/kernels-app/src/main.rs`")),
        "{p:?}"
    );

    let unmarked = tour.replacen("<!-- from examples/kernels-app/build.rs -->\n", "", 1);
    let p = problems(&unmarked, &files);
    assert!(
        p.iter()
            .any(|p| p.contains("without a `<!-- from PATH -->` line")),
        "{p:?}"
    );

    let gap = tour.replacen("    let x = input();\n", "", 1);
    let p = problems(&gap, &files);
    assert!(
        p.iter().any(|p| p.contains("must be shown in order")),
        "{p:?}"
    );

    let part = tour.replacen(
        "```glsl\n// Shared by the kernels: included with `#include \"common.glsl\"` (glslc -I shaders/include).\n",
        "```glsl\n",
        1,
    );
    assert_ne!(part, tour);
    let p = problems(&part, &files);
    assert!(
        p.iter()
            .any(|p| p.contains("common.glsl` must be shown whole")),
        "{p:?}"
    );
}

/// The guide's recipe (docs/guide/build-integration.md, *Use from
/// build.rs*) is the example's: its blocks
/// marked `<!-- from PATH -->` are runs of lines of those files, the
/// manifest to its end (dependencies, profile, `[patch.crates-io]`) and the
/// build script whole; CI builds and runs the example.
fn readme_problems(readme: &str, files: &BTreeMap<String, String>) -> Vec<String> {
    let mut out = Vec::new();
    let mut shown = Vec::new();
    for b in blocks(readme).iter().filter(|b| b.from.is_some()) {
        let from = b.from.as_deref().unwrap();
        let at = format!("{RECIPE}:{}", b.line);
        if placed(b, from, &at, files, &mut out).is_none() {
            continue;
        }
        shown.push(from.to_string());
    }
    for path in [
        "examples/kernels-app/Cargo.toml",
        "examples/kernels-app/build.rs",
    ] {
        if !shown.iter().any(|s| s == path) {
            out.push(format!("{RECIPE}: the recipe does not show `{path}`"));
        }
    }
    out
}

#[test]
fn the_readme_recipe_is_the_example_ci_builds() {
    let root = crate::root();
    let readme = std::fs::read_to_string(root.join(RECIPE)).unwrap();
    let mut files = files(&root);
    files.remove(GENERATED);
    let p = readme_problems(&readme, &files);
    assert!(p.is_empty(), "{}", p.join("\n"));

    // Negative controls: the manifest cut before its [patch] section, and
    // a dependency line edited.
    let cut = readme.replacen(
        "spirv-tools = { path = \"../../vendor/spirv-tools\" }\n```",
        "```",
        1,
    );
    assert_ne!(cut, readme);
    let p = readme_problems(&cut, &files);
    assert!(
        p.iter()
            .any(|p| p.contains("must be shown to its last line")),
        "{p:?}"
    );
    let edited = readme.replacen("default-features = false }", "default-features = true }", 1);
    assert_ne!(edited, readme);
    let p = readme_problems(&edited, &files);
    assert!(p.iter().any(|p| p.contains("not a run of lines")), "{p:?}");
}
