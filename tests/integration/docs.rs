//! The docs (README.md and the book under docs/) show only commands that
//! run, and links that lead somewhere.
//!
//! Every line of a `sh` block is a command, and each one is in [`COMMANDS`]:
//! run here ([`How::Here`]: in a temporary directory beside the bundled
//! files, against the built `halc`), run elsewhere ([`How::Elsewhere`]: CI,
//! a script or another test, and that file must hold it), or not run by
//! tests, with the reason ([`How::NotHere`]). A command in no list, a fenced
//! block without a language, a relative link or `#anchor` that leads
//! nowhere, a link from the book to a file outside it, and a chapter missing
//! from docs/SUMMARY.md each fail a test (mdBook checks none of these).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path};

use crate::tour::{blocks, Block};

/// What a command run here needs besides the built `halc`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Need {
    /// glslc: a GLSL input.
    Glslc,
    /// clang++ ≥ 15 and glslc: the CPU backend runs the MSL.
    Clang,
    /// A Vulkan driver (lavapipe): the SPIR-V is run beside the MSL.
    Vulkan,
    /// `--metallib`: xcrun, which is `tests/fake-xcrun/xcrun` here.
    FakeXcrun,
}

/// How a command the docs show is run.
#[derive(Debug)]
enum How {
    /// By [`the_commands_the_docs_run_here_succeed`], with bash, in a
    /// temporary directory holding links to `fixtures/` and `tests/` and
    /// `saxpy.spv`, `kernel.spv` and `k.spv` (copies of the saxpy fixture):
    /// `halc` is the built binary, and so is `cargo run -q --`. The commands
    /// of one block run in order in one directory; each must exit 0 with
    /// every `expect` string in its stdout.
    Here {
        needs: &'static [Need],
        expect: &'static [&'static str],
    },
    /// Run by what `file` (from the repository root) holds: it must contain
    /// `evidence` (compared without `"` quotes).
    Elsewhere {
        file: &'static str,
        evidence: &'static str,
    },
    /// Run by no test and no CI, and why.
    NotHere { reason: &'static str },
}

use How::{Elsewhere, Here, NotHere};

/// Every command the docs show, as [`commands`] reads it (without its
/// comment, spaces collapsed).
const COMMANDS: &[(&str, How)] = &[
    // README.md and docs/introduction.md: the two first commands.
    (
        "cargo run -q -- compile fixtures/kernels/add_one.spv fixtures/kernels/scale.spv fixtures/kernels/block_sum.spv -o kernels.halc && cargo run -q -- inspect kernels.halc",
        Here {
            needs: &[],
            expect: &["kernel add_one ", "kernel scale ", "kernel block_sum "],
        },
    ),
    (
        "cargo test --workspace",
        Elsewhere {
            file: ".ci/run",
            evidence: "INSTA_UPDATE=no cargo test --workspace",
        },
    ),
    // README.md: the tour of commands.
    (
        "alias halc='cargo run -q --'",
        Here {
            needs: &[],
            expect: &[],
        },
    ),
    (
        "halc compile fixtures/kernels/saxpy.comp -o saxpy.halc",
        Here {
            needs: &[Need::Glslc],
            expect: &[],
        },
    ),
    (
        "halc inspect saxpy.halc",
        Here {
            needs: &[Need::Glslc],
            expect: &["kernel saxpy ", "threadgroup size [64, 1, 1]"],
        },
    ),
    (
        "halc test tests/amber/saxpy.vkscript --compare",
        Here {
            needs: &[Need::Clang, Need::Vulkan],
            expect: &["PASS tests/amber/saxpy.vkscript", "1 passed, 0 failed"],
        },
    ),
    (
        "halc diff fixtures/kernels/push_constants.comp --push count=64 --seeds 5",
        Here {
            needs: &[Need::Clang, Need::Vulkan],
            expect: &["AGREE fixtures/kernels/push_constants.comp seed 5:"],
        },
    ),
    // docs/tour.md
    (
        "cargo run --manifest-path examples/kernels-app/Cargo.toml",
        Elsewhere {
            file: ".ci/run",
            evidence: "CARGO_TARGET_DIR=$PWD/target cargo run --manifest-path examples/kernels-app/Cargo.toml",
        },
    ),
    (
        "rustup target add aarch64-apple-darwin",
        Elsewhere {
            file: ".ci/run",
            evidence: "rustup target add aarch64-apple-darwin",
        },
    ),
    (
        // CI runs clippy, which type-checks as `cargo check` does, and more.
        "cargo check --target aarch64-apple-darwin --manifest-path examples/kernels-app/Cargo.toml",
        Elsewhere {
            file: ".ci/run",
            evidence: "cargo clippy --target aarch64-apple-darwin --manifest-path examples/kernels-app/Cargo.toml",
        },
    ),
    // docs/guide/build-integration.md
    (
        "halc compile saxpy.spv -o k.halc --lock halc.lock --update-lock",
        Here {
            needs: &[],
            expect: &[],
        },
    ),
    (
        "halc compile saxpy.spv -o k.halc --lock halc.lock",
        Here {
            needs: &[],
            expect: &[],
        },
    ),
    (
        "CARGO_TARGET_DIR=$PWD/target cargo run --manifest-path examples/kernels-app/Cargo.toml",
        Elsewhere {
            file: ".ci/run",
            evidence: "CARGO_TARGET_DIR=$PWD/target cargo run --manifest-path examples/kernels-app/Cargo.toml",
        },
    ),
    // docs/guide/metallibs.md
    (
        "halc compile kernel.spv -o kernels.halc --metallib",
        Here {
            needs: &[Need::FakeXcrun],
            expect: &[],
        },
    ),
    (
        "xcrun -sdk macosx metal -std=metal3.0 -mmacosx-version-min=13.0 -O2 -fno-fast-math -c main.metal -o main.air",
        Elsewhere {
            file: "tests/snapshots/metallib.argv.snap",
            evidence: "-sdk macosx metal -std=metal3.0 -mmacosx-version-min=13.0 -O2 -fno-fast-math -c main.metal -o main.air",
        },
    ),
    (
        "xcrun -sdk macosx metallib main.air -o main.metallib",
        Elsewhere {
            file: "tests/snapshots/metallib.argv.snap",
            evidence: "-sdk macosx metallib main.air -o main.metallib",
        },
    ),
    // docs/guide/testing.md
    (
        "halc test tests/amber/*.amber",
        Elsewhere {
            file: ".ci/run",
            evidence: "cargo run -q -- test tests/amber/*.amber tests/amber/*.vkscript",
        },
    ),
    (
        "halc test --compare tests/amber/*.amber",
        Elsewhere {
            file: ".ci/run",
            evidence: "cargo run -q -- test --compare tests/amber/*.amber tests/amber/*.vkscript",
        },
    ),
    (
        "halc diff fixtures/kernels/saxpy.spv --seeds 5",
        Here {
            needs: &[Need::Clang, Need::Vulkan],
            expect: &["AGREE fixtures/kernels/saxpy.spv seed 5:"],
        },
    ),
    (
        "halc compile kernel.spv -o k.halc --check-msl",
        Here {
            needs: &[Need::Clang],
            expect: &[],
        },
    ),
    // docs/performance.md
    (
        "bash scripts/bench.sh",
        NotHere {
            reason: "the benchmark behind docs/performance.md: a release build, apt-get and cargo \
                     installs of the peers, and many minutes of interleaved rounds; run by hand",
        },
    ),
    (
        "halc compile k.spv -o k.halc --timings",
        Here {
            needs: &[],
            expect: &["halc's own work"],
        },
    ),
    (
        "cargo bench --bench load",
        Elsewhere {
            file: "scripts/bench.sh",
            evidence: "cargo bench -q --bench load",
        },
    ),
    (
        "cargo bench --bench stages",
        NotHere {
            reason: "a criterion benchmark, minutes of measuring; CI builds it \
                     (`cargo clippy --workspace --all-targets`) and runs none",
        },
    ),
    // docs/conformance.md: the corpora are checkouts of public repositories.
    (
        "git clone --depth 1 https://github.com/google/amber && git clone --depth 1 https://github.com/KhronosGroup/VK-GL-CTS",
        NotHere {
            reason: "fetches the public corpora, which are not committed: tests and CI have no \
                     network but the package registries",
        },
    ),
    (
        "cargo build --release",
        NotHere {
            reason: "a step of the conformance run, which needs the corpora cloned above",
        },
    ),
    (
        "scripts/conformance/run.sh /tmp/conformance amber/tests/cases VK-GL-CTS/external/vulkancts/data/vulkan/amber -- -j 2",
        NotHere {
            reason: "runs the corpora cloned above (441 files, minutes per mode)",
        },
    ),
];

/// Languages of blocks whose lines are commands.
const SHELL: &[&str] = &["sh", "bash", "shell", "console"];

/// README.md and every page of docs/ (not the built book), by path from
/// the repository root.
fn pages(root: &Path) -> BTreeMap<String, String> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, String>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                if p != root.join("docs/book") {
                    walk(root, &p, out);
                }
            } else if p.extension().is_some_and(|e| e == "md") {
                let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
                out.insert(rel, std::fs::read_to_string(&p).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    out.insert(
        "README.md".to_string(),
        std::fs::read_to_string(root.join("README.md")).unwrap(),
    );
    walk(root, &root.join("docs"), &mut out);
    out
}

/// A command line as the docs are checked against [`COMMANDS`]: without a
/// trailing `# comment` (a `#` outside quotes after a space), spaces
/// collapsed.
fn normalize(line: &str) -> String {
    let (mut single, mut double) = (false, false);
    let mut end = line.len();
    let mut prev = ' ';
    for (i, c) in line.char_indices() {
        match c {
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            '#' if !single && !double && prev.is_whitespace() => {
                end = i;
                break;
            }
            _ => {}
        }
        prev = c;
    }
    line[..end].split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The commands of a shell block: lines continued with `\` joined, comment
/// lines and blank lines left out.
fn commands(body: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for l in body {
        if let Some(part) = l.trim_end().strip_suffix('\\') {
            cur.push_str(part);
            cur.push(' ');
            continue;
        }
        cur.push_str(l);
        let c = normalize(&cur);
        cur.clear();
        if !c.is_empty() {
            out.push(c);
        }
    }
    out
}

fn how(command: &str) -> Option<&'static How> {
    COMMANDS.iter().find(|(c, _)| *c == command).map(|(_, h)| h)
}

/// Every problem of the commands in `pages` against `classified`; `read`
/// gives a file's text by path from the repository root.
fn command_problems(
    pages: &BTreeMap<String, String>,
    classified: &[(&str, How)],
    read: &dyn Fn(&str) -> Option<String>,
) -> Vec<String> {
    let mut out = Vec::new();
    let mut shown = BTreeSet::new();
    for (path, text) in pages {
        for b in blocks(text) {
            if b.lang.is_empty() {
                out.push(format!(
                    "{path}:{}: a code block without a language (`sh` for commands, `text` for \
                     output and synopses)",
                    b.line
                ));
            }
            if !SHELL.contains(&b.lang.as_str()) {
                continue;
            }
            for c in commands(&b.body) {
                if !classified.iter().any(|(k, _)| *k == c) {
                    out.push(format!(
                        "{path}:{}: `{c}` is not classified: run it in tests/integration/docs.rs \
                         or list it there as run elsewhere or not runnable (COMMANDS)",
                        b.line
                    ));
                }
                shown.insert(c);
            }
        }
    }
    let unquoted = |s: &str| s.replace('"', "");
    for (c, h) in classified {
        if !shown.contains(*c) {
            out.push(format!("COMMANDS: `{c}` is shown in no doc"));
        }
        match h {
            Elsewhere { file, evidence } => match read(file) {
                Some(text) if unquoted(&text).contains(&unquoted(evidence)) => {}
                Some(_) => out.push(format!(
                    "`{c}` is said to be run by {file}, which does not hold `{evidence}`"
                )),
                None => out.push(format!(
                    "`{c}` is said to be run by {file}, which is missing"
                )),
            },
            NotHere { reason } if reason.trim().is_empty() => {
                out.push(format!("`{c}` is not runnable here, without a reason"))
            }
            _ => {}
        }
    }
    out
}

#[test]
fn every_command_the_docs_show_is_run_or_accounted_for() {
    let root = crate::root();
    let pages = pages(&root);
    assert!(pages.contains_key("docs/guide/cli.md") && pages.len() >= 14);
    let read = |f: &str| std::fs::read_to_string(root.join(f)).ok();
    let p = command_problems(&pages, COMMANDS, &read);
    assert!(p.is_empty(), "{}", p.join("\n"));
}

/// Negative controls: a new command, a block without a language, and a
/// claim that CI runs a command its script no longer holds are reported;
/// a changed comment is not a new command.
#[test]
fn the_command_check_catches_a_new_command_a_bare_block_and_a_false_claim() {
    let root = crate::root();
    let pages = pages(&root);
    let read = |f: &str| std::fs::read_to_string(root.join(f)).ok();
    assert!(command_problems(&pages, COMMANDS, &read).is_empty());

    let with = |page: &str, add: &str| {
        let mut p = pages.clone();
        p.get_mut(page).unwrap().push_str(add);
        p
    };
    let p = command_problems(
        &with(
            "docs/guide/cli.md",
            "\n```sh\nhalc compile new.spv \\\n  -o new.halc   # a new example\n```\n",
        ),
        COMMANDS,
        &read,
    );
    assert!(
        p.iter().any(|p| p.starts_with("docs/guide/cli.md:")
            && p.contains("`halc compile new.spv -o new.halc` is not classified")),
        "{p:?}"
    );

    let p = command_problems(
        &with("docs/tour.md", "\n```\nhalc inspect new.halc\n```\n"),
        COMMANDS,
        &read,
    );
    assert!(
        p.iter()
            .any(|p| p.contains("a code block without a language")),
        "{p:?}"
    );

    let recommented = pages["README.md"].replacen(
        "# in a checkout; or cargo install --path .",
        "# another comment",
        1,
    );
    assert_ne!(recommented, pages["README.md"]);
    let mut p2 = pages.clone();
    p2.insert("README.md".into(), recommented);
    assert!(command_problems(&p2, COMMANDS, &read).is_empty());

    let no_tests = |f: &str| {
        read(f).map(|t| {
            if f == ".ci/run" {
                t.replace("cargo test --workspace", "cargo test -p halc")
            } else {
                t
            }
        })
    };
    let p = command_problems(&pages, COMMANDS, &no_tests);
    assert!(
        p.iter().any(|p| p.contains(
            "`cargo test --workspace` is said to be run by .ci/run, which does not hold"
        )),
        "{p:?}"
    );

    let mut p3 = pages.clone();
    p3.get_mut("docs/performance.md").unwrap().clear();
    let p = command_problems(&p3, COMMANDS, &read);
    assert!(
        p.iter()
            .any(|p| p.contains("`cargo bench --bench stages` is shown in no doc")),
        "{p:?}"
    );
}

/// Whether each tool is here; prints why not (and fails under
/// `HALC_REQUIRE_CLANG=1` / `HALC_REQUIRE_VULKAN=1`) once.
#[cfg(unix)]
fn available() -> impl Fn(Need) -> bool {
    let glslc = crate::build::has_glslc();
    let clang = crate::amber::tools();
    let vulkan = crate::amber::vulkan();
    move |n| match n {
        Need::Glslc => glslc,
        Need::Clang => clang,
        Need::Vulkan => vulkan,
        Need::FakeXcrun => true,
    }
}

/// The directory a block's commands run in: the bundled files, and the
/// saxpy fixture under the names the docs give a kernel.
#[cfg(unix)]
fn workdir(root: &Path) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    for dir in ["fixtures", "tests"] {
        std::os::unix::fs::symlink(root.join(dir), d.path().join(dir)).unwrap();
    }
    for name in ["saxpy.spv", "kernel.spv", "k.spv"] {
        std::fs::copy(root.join("fixtures/kernels/saxpy.spv"), d.path().join(name)).unwrap();
    }
    d
}

/// Runs `command` with bash in `dir`, `halc` and `cargo run -q --` being
/// the built binary.
#[cfg(unix)]
fn run(root: &Path, dir: &Path, command: &str, needs: &[Need]) -> std::process::Output {
    let script = format!(
        "set -eo pipefail\n\
         halc() {{ \"$HALC\" \"$@\"; }}\n\
         cargo() {{\n\
           if [ \"$1 $2 $3\" = 'run -q --' ]; then shift 3; \"$HALC\" \"$@\"\n\
           else echo \"docs.rs runs no cargo but \\`cargo run -q --\\`: cargo $*\" >&2; return 127; fi\n\
         }}\n\
         {command}\n"
    );
    let mut c = std::process::Command::new("bash");
    c.arg("-c")
        .arg(script)
        .current_dir(dir)
        .env("HALC", env!("CARGO_BIN_EXE_halc"))
        .env("HALC_GLSLC_CACHE", dir.join(".glslc-cache"))
        .env_remove("HALC_XCRUN");
    if std::env::var_os("HALC_CPU_CACHE").is_none() {
        c.env(
            "HALC_CPU_CACHE",
            std::env::temp_dir().join("halc-cpu-test-cache"),
        );
    }
    if needs.contains(&Need::FakeXcrun) {
        c.env("HALC_XCRUN", root.join("tests/fake-xcrun/xcrun"));
        for v in [
            "FAKE_XCRUN_LOG",
            "FAKE_XCRUN_NO_TOOLCHAIN",
            "FAKE_XCRUN_FAIL",
            "FAKE_XCRUN_STDERR",
            "FAKE_XCRUN_WARN",
            "FAKE_XCRUN_NO_OUTPUT",
        ] {
            c.env_remove(v);
        }
    }
    c.output().unwrap()
}

/// Every command classified [`How::Here`] runs, as the docs show it, in the
/// order of its block, and succeeds with the output expected.
#[cfg(unix)]
#[test]
fn the_commands_the_docs_run_here_succeed() {
    let root = crate::root();
    let has = available();
    let mut ran = BTreeSet::new();
    for (path, text) in pages(&root) {
        for b in blocks(&text) {
            if !SHELL.contains(&b.lang.as_str()) {
                continue;
            }
            let mut dir = None;
            for c in commands(&b.body) {
                let Some(Here { needs, expect }) = how(&c) else {
                    continue;
                };
                if !needs.iter().all(|n| has(*n)) {
                    println!("skipped: {path}:{}: `{c}`", b.line);
                    continue;
                }
                let d = dir.get_or_insert_with(|| workdir(&root));
                let o = run(&root, d.path(), &c, needs);
                let stdout = String::from_utf8_lossy(&o.stdout);
                let stderr = String::from_utf8_lossy(&o.stderr);
                assert!(
                    o.status.success(),
                    "{path}:{}: `{c}` failed ({}):\n{stdout}\n{stderr}",
                    b.line,
                    o.status
                );
                for e in *expect {
                    assert!(
                        stdout.contains(e),
                        "{path}:{}: `{c}` printed no `{e}`:\n{stdout}",
                        b.line
                    );
                }
                ran.insert(c);
            }
        }
    }
    for (c, h) in COMMANDS {
        if let Here { needs, .. } = h {
            if needs.iter().all(|n| has(*n)) {
                assert!(ran.contains(*c), "`{c}` was not run");
            }
        }
    }
    assert!(ran.len() >= 6, "{ran:?}");
}

/// The runner itself: a command that fails, or prints less than expected,
/// is caught; the stand-ins for `halc` and `cargo run -q --` are the built
/// binary and nothing else.
#[cfg(unix)]
#[test]
fn the_runner_fails_on_a_failing_command_and_runs_only_the_built_halc() {
    let root = crate::root();
    let d = workdir(&root);
    let o = run(&root, d.path(), "halc compile missing.spv -o m.halc", &[]);
    assert_eq!(o.status.code(), Some(1));
    let o = run(&root, d.path(), "cargo run -q -- --version", &[]);
    assert!(o.status.success());
    assert!(String::from_utf8_lossy(&o.stdout).starts_with("halc "));
    let o = run(&root, d.path(), "cargo build --release", &[]);
    assert_eq!(o.status.code(), Some(127));
    let o = run(&root, d.path(), "halc inspect nothing.halc | cat", &[]);
    assert!(!o.status.success(), "pipefail");
}

/// A heading's anchor as mdBook (and GitHub) make it: inline code and
/// emphasis marks dropped, letters lowercased, spaces to `-`, other
/// punctuation dropped; a repeated one gets `-1`, `-2`, ….
fn anchors(markdown: &str) -> BTreeSet<String> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = BTreeSet::new();
    for line in prose(markdown).lines() {
        let t = line.trim_start_matches('#');
        if t.len() == line.len() || !t.starts_with(' ') || line.len() - t.len() > 6 {
            continue;
        }
        let id: String = t
            .trim()
            .trim_end_matches('#')
            .trim()
            .chars()
            .filter(|c| !matches!(c, '`' | '*'))
            .filter_map(|c| {
                if c.is_alphanumeric() || c == '_' || c == '-' {
                    Some(c.to_lowercase().next().unwrap())
                } else if c.is_whitespace() {
                    Some('-')
                } else {
                    None
                }
            })
            .collect();
        let n = seen.entry(id.clone()).or_default();
        out.insert(if *n == 0 {
            id.clone()
        } else {
            format!("{id}-{n}")
        });
        *n += 1;
    }
    out
}

/// `markdown` with its fenced blocks' lines emptied (the line count kept).
fn prose(markdown: &str) -> String {
    let mut fenced = BTreeSet::new();
    for Block { line, body, .. } in blocks(markdown) {
        // The fences and the body: lines line..=line + body.len() + 1 (1-based).
        fenced.extend(line..=line + body.len() + 1);
    }
    markdown
        .lines()
        .enumerate()
        .map(|(i, l)| if fenced.contains(&(i + 1)) { "" } else { l })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The inline links of `markdown` outside code, as (line, target).
fn links(markdown: &str) -> Vec<(usize, String)> {
    // Code spans blanked: a run of backticks up to the next run as long.
    let text = prose(markdown);
    let bytes = text.as_bytes();
    let mut plain = bytes.to_vec();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'`' {
            i += 1;
            continue;
        }
        let run = bytes[i..].iter().take_while(|b| **b == b'`').count();
        let fence = &text[i..i + run];
        let Some(end) = text[i + run..].find(fence).map(|e| i + run + e) else {
            break;
        };
        for b in &mut plain[i..end + run] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
        i = end + run;
    }
    let plain = String::from_utf8(plain).unwrap_or_default();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = plain[from..].find("](").map(|a| from + a + 2) {
        let target: String = plain[at..]
            .chars()
            .take_while(|c| *c != ')' && !c.is_whitespace())
            .collect();
        out.push((plain[..at].matches('\n').count() + 1, target));
        from = at;
    }
    out
}

/// `base`'s directory joined with `rel`, `..` and `.` resolved; `None`
/// above the repository root.
fn resolve(base: &str, rel: &str) -> Option<String> {
    let mut parts: Vec<String> = Path::new(base)
        .parent()
        .unwrap()
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    for c in Path::new(rel).components() {
        match c {
            Component::ParentDir => {
                parts.pop()?;
            }
            Component::Normal(p) => parts.push(p.to_string_lossy().into_owned()),
            Component::CurDir => {}
            _ => return None,
        }
    }
    Some(parts.join("/"))
}

/// Every link problem of `pages`; `exists` says whether a path that is
/// no page is a file or directory of the repository.
fn link_problems(pages: &BTreeMap<String, String>, exists: &dyn Fn(&str) -> bool) -> Vec<String> {
    let mut out = Vec::new();
    for (path, text) in pages {
        for (line, target) in links(text) {
            let at = format!("{path}:{line}: `{target}`");
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (file, anchor) = match target.split_once('#') {
                Some((f, a)) => (f, Some(a)),
                None => (target.as_str(), None),
            };
            let Some(to) = (if file.is_empty() {
                Some(path.clone())
            } else {
                resolve(path, file)
            }) else {
                out.push(format!("{at} leads above the repository"));
                continue;
            };
            if path.starts_with("docs/") && !to.starts_with("docs/") {
                out.push(format!(
                    "{at} leaves the book: name a file outside docs/ by its path, in code \
                     (docs/guide/development.md, The docs)"
                ));
                continue;
            }
            match (pages.get(&to), anchor) {
                (Some(page), Some(a)) => {
                    if !anchors(page).contains(a) {
                        out.push(format!("{at}: {to} has no heading `#{a}`"));
                    }
                }
                (Some(_), None) => {}
                (None, _) if !exists(&to) => out.push(format!("{at}: no file {to}")),
                (None, Some(_)) => out.push(format!("{at}: an anchor into {to}, not a page")),
                (None, None) => {}
            }
        }
    }
    let summary = &pages["docs/SUMMARY.md"];
    let listed: BTreeSet<String> = links(summary)
        .into_iter()
        .filter_map(|(_, t)| resolve("docs/SUMMARY.md", &t))
        .collect();
    for page in pages.keys() {
        if page.starts_with("docs/") && page != "docs/SUMMARY.md" && !listed.contains(page) {
            out.push(format!("{page} is not a chapter of docs/SUMMARY.md"));
        }
    }
    out
}

#[test]
fn every_relative_link_of_the_docs_resolves() {
    let root = crate::root();
    let pages = pages(&root);
    let exists = |p: &str| root.join(p).exists();
    let p = link_problems(&pages, &exists);
    assert!(p.is_empty(), "{}", p.join("\n"));
    let n: usize = pages.values().map(|t| links(t).len()).sum();
    assert!(n >= 40, "{n} links");
}

/// Negative controls: a missing file, a missing heading, a link out of the
/// book, and a page not in SUMMARY.md are reported; a link in code is not
/// a link.
#[test]
fn the_link_check_catches_a_missing_file_a_missing_heading_and_a_link_out_of_the_book() {
    let root = crate::root();
    let pages = pages(&root);
    let exists = |p: &str| root.join(p).exists();
    assert!(link_problems(&pages, &exists).is_empty());
    let check = |page: &str, add: &str| {
        let mut p = pages.clone();
        p.get_mut(page).unwrap().push_str(add);
        link_problems(&p, &exists)
    };

    let p = check("docs/guide/cli.md", "\nSee [the flags](clii.md).\n");
    assert!(
        p.iter()
            .any(|p| p.contains("`clii.md`: no file docs/guide/clii.md")),
        "{p:?}"
    );
    let p = check(
        "docs/guide/cli.md",
        "\nSee [the lock](build-integration.md#abi-locks).\n",
    );
    assert!(
        p.iter()
            .any(|p| p.contains("docs/guide/build-integration.md has no heading `#abi-locks`")),
        "{p:?}"
    );
    assert!(check(
        "docs/guide/cli.md",
        "\nSee [the lock](build-integration.md#abi-lock).\n"
    )
    .is_empty());
    let p = check(
        "docs/tour.md",
        "\nThe [example](../examples/kernels-app).\n",
    );
    assert!(p.iter().any(|p| p.contains("leaves the book")), "{p:?}");
    assert!(check("docs/tour.md", "\nNot a link: `[a](nowhere.md)`.\n").is_empty());
    let p = check(
        "README.md",
        "\n[Use from build.rs](docs/guide/build-integration.md#use-from-buildrs)\n",
    );
    assert!(p.is_empty(), "{p:?}");

    let mut orphan = pages.clone();
    orphan.insert("docs/guide/new.md".into(), "# New\n".into());
    let p = link_problems(&orphan, &exists);
    assert!(
        p.iter()
            .any(|p| p.contains("docs/guide/new.md is not a chapter of docs/SUMMARY.md")),
        "{p:?}"
    );
}

/// The anchors are mdBook's: checked against the HTML of a built book when
/// one is there (`mdbook build docs`, as CI does before the tests), every
/// heading of every chapter.
#[test]
fn anchors_are_the_ids_of_the_built_book() {
    let root = crate::root();
    if !root.join("docs/book/index.html").exists() {
        println!("skipped: no built book (mdbook build docs)");
        return;
    }
    let mut checked = 0;
    for (path, text) in pages(&root) {
        let Some(chapter) = path.strip_prefix("docs/") else {
            continue;
        };
        if chapter == "SUMMARY.md" {
            continue;
        }
        let built = root.join("docs/book").join(chapter).with_extension("html");
        let html = std::fs::read_to_string(&built).unwrap();
        for a in anchors(&text) {
            assert!(
                html.contains(&format!("id=\"{a}\"")),
                "#{a} of {path} is not an id of {} (rebuilt since the page changed?)",
                built.display()
            );
            checked += 1;
        }
    }
    assert!(checked >= 40, "{checked} anchors");
}
