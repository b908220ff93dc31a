//! `halc::build`: the structured block reflection and the generated Rust
//! bindings per fixture (snapshots), the generated code compiled for real,
//! and the build.rs helper's behaviour (GLSL, includes, errors, outputs).

use std::path::Path;
use std::process::Command;

use halc::Options;

use crate::input;

/// Every fixture's generated bindings and block reflection, pinned.
#[test]
fn bindings_snapshots_per_fixture() {
    crate::snapshot_settings().bind(|| {
        insta::glob!("../../fixtures", "kernels/*.spv", |path| {
            let name = path.file_stem().unwrap().to_string_lossy().to_string();
            let inp = input(path);
            let compiled = match halc::compile(std::slice::from_ref(&inp), &Options::default()) {
                Ok(c) => c,
                Err(_) => return, // fixtures.rs snapshots the error
            };
            let blocks: Vec<_> = compiled
                .kernels
                .iter()
                .map(|k| (&k.name, &k.blocks))
                .collect();
            insta::assert_json_snapshot!(format!("{name}.blocks"), blocks);
            let code = halc::build::bindings::generate(&compiled, Some("kernels.halc")).unwrap();
            insta::assert_snapshot!(format!("{name}.bindings"), code);
        });
    });
}

/// glslc is needed by the GLSL tests: without it they print why and pass,
/// unless `HALC_REQUIRE_CLANG=1` (CI, which installs glslc with clang).
pub fn has_glslc() -> bool {
    let ok = Command::new("glslc")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert_ne!(
            std::env::var("HALC_REQUIRE_CLANG").as_deref(),
            Ok("1"),
            "HALC_REQUIRE_CLANG=1 but glslc is missing"
        );
        println!("skipped: needs glslc");
    }
    ok
}

const KERNEL: &str = r#"#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
layout(local_size_x = 64) in;
layout(push_constant) uniform Push { uint n; float scale; } pc;
layout(set = 0, binding = 0) buffer Data { float v[]; } data;
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < pc.n) { data.v[i] = twice(data.v[i]) * pc.scale; }
}
"#;

/// An empty project of `shaders/` and `out/` in a temporary directory.
fn shader_project() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(tmp.path().join("shaders")).unwrap();
    std::fs::create_dir_all(tmp.path().join("out")).unwrap();
    tmp
}

/// A project: `shaders/k.comp` including `inc dir/common.glsl`.
fn project(dir: &Path) {
    std::fs::create_dir_all(dir.join("shaders")).unwrap();
    std::fs::create_dir_all(dir.join("inc dir")).unwrap();
    std::fs::write(dir.join("shaders/k.comp"), KERNEL).unwrap();
    std::fs::write(
        dir.join("inc dir/common.glsl"),
        "float twice(float x) { return 2.0 * x; }\n",
    )
    .unwrap();
}

fn kernels(dir: &Path) -> halc::build::Kernels {
    halc::build::Kernels::new()
        .manifest_dir(dir)
        .out_dir(dir.join("out"))
}

fn files(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .map(|r| {
            r.map(|e| e.unwrap().file_name().to_string_lossy().to_string())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

#[test]
fn glsl_include_is_in_the_rerun_list() {
    if !has_glslc() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    project(dir);
    std::fs::create_dir_all(dir.join("out")).unwrap();
    let built = kernels(dir)
        .glob("shaders/*.comp")
        .unwrap()
        .include_dir("inc dir")
        .build("kernels")
        .unwrap();
    assert_eq!(built.kernels, ["k"]);
    let rerun = &built.rerun_if_changed;
    assert!(rerun.contains(&dir.join("shaders/k.comp")), "{rerun:?}");
    assert!(
        rerun.contains(&dir.join("inc dir/common.glsl")),
        "{rerun:?}"
    );
    assert!(rerun.contains(&dir.join("shaders")), "{rerun:?}");
    let directives = built.cargo_directives();
    assert!(
        directives.contains(&format!(
            "cargo:rerun-if-changed={}\n",
            dir.join("inc dir/common.glsl").display()
        )),
        "{directives}"
    );
    assert!(directives.contains("cargo:rerun-if-env-changed=HALC_GLSLC\n"));
    assert_eq!(files(&dir.join("out")), ["kernels.halc", "kernels.rs"]);
}

#[test]
fn glslc_error_is_verbatim_with_file_line_and_writes_nothing() {
    if !has_glslc() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    project(dir);
    std::fs::create_dir_all(dir.join("out")).unwrap();
    std::fs::write(
        dir.join("shaders/k.comp"),
        KERNEL.replace("* pc.scale;", "* pc.scale"),
    )
    .unwrap();
    let err = kernels(dir)
        .file("shaders/k.comp")
        .include_dir("inc dir")
        .build("kernels")
        .unwrap_err()
        .to_string();
    // glslc's own message: the file as glslc was given it, and the line.
    assert!(
        err.starts_with("shaders/k.comp:9: error: '' :  syntax error"),
        "{err}"
    );
    assert!(err.contains("1 error generated."), "{err}");
    assert_eq!(files(&dir.join("out")), Vec::<String>::new());
}

#[test]
fn missing_glslc_is_one_clear_line() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    project(dir);
    let err = kernels(dir)
        .file("shaders/k.comp")
        .glslc("/nonexistent/glslc")
        .build("kernels")
        .unwrap_err();
    let text = format!("{err:?}"); // what a build script's `?` shows
    assert_eq!(text, err.to_string());
    assert!(!text.contains('\n'), "{text}");
    assert!(
        text.starts_with("GLSL needs glslc, which was not found (`/nonexistent/glslc`)"),
        "{text}"
    );
    assert!(text.contains("apt-get install glslc"), "{text}");
}

#[test]
fn spirv_inputs_need_no_glslc() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::create_dir_all(dir.join("k")).unwrap();
    std::fs::create_dir_all(dir.join("out")).unwrap();
    std::fs::copy(crate::kernel("saxpy.spv"), dir.join("k/saxpy.spv")).unwrap();
    let built = kernels(dir)
        .glob("k/*.spv")
        .unwrap()
        .glslc("/nonexistent/glslc")
        .build("kernels")
        .unwrap();
    assert_eq!(built.kernels, ["saxpy"]);
}

#[test]
fn unwritable_out_dir_is_one_error_and_leaves_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::create_dir_all(dir.join("k")).unwrap();
    std::fs::copy(crate::kernel("saxpy.spv"), dir.join("k/saxpy.spv")).unwrap();
    // A path under a regular file: no directory can be there (root
    // ignores permission bits, this does not depend on them).
    std::fs::write(dir.join("file"), "").unwrap();
    let out = dir.join("file/out");
    let err = halc::build::Kernels::new()
        .manifest_dir(dir)
        .out_dir(&out)
        .file("k/saxpy.spv")
        .build("kernels")
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with(&format!(
            "cannot write kernels.halc in OUT_DIR `{}`: ",
            out.display()
        )),
        "{err}"
    );
    assert!(!err.contains('\n'), "{err}");
    assert_eq!(files(dir), ["file", "k"]);

    // A writable OUT_DIR where one output cannot be renamed into place (a
    // directory is in the way): neither output, nor a temporary, is left.
    let out = dir.join("out");
    std::fs::create_dir_all(out.join("kernels.rs")).unwrap();
    std::fs::write(out.join("kernels.rs/keep"), "").unwrap();
    let err = halc::build::Kernels::new()
        .manifest_dir(dir)
        .out_dir(&out)
        .file("k/saxpy.spv")
        .build("kernels")
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("cannot write kernels.rs in OUT_DIR"),
        "{err}"
    );
    assert_eq!(files(&out), ["kernels.rs"]);
}

#[test]
fn bad_inputs_are_one_line_naming_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::create_dir_all(dir.join("out")).unwrap();
    let e = kernels(dir).glob("shaders/*.comp").unwrap_err().to_string();
    assert_eq!(
        e,
        format!(
            "glob `shaders/*.comp` matches no file (relative to {})",
            dir.display()
        )
    );
    let e = kernels(dir)
        .file("missing.spv")
        .build("kernels")
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("missing.spv: "), "{e}");
    let e = kernels(dir)
        .file("missing.spv")
        .build("../x")
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("output name `../x`"), "{e}");
    // A SPIR-V file that is not: the compiler's error names it.
    std::fs::write(dir.join("bad.spv"), [1u8, 2, 3]).unwrap();
    let e = kernels(dir)
        .file("bad.spv")
        .build("kernels")
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("bad.spv: "), "{e}");
    assert_eq!(files(&dir.join("out")), Vec::<String>::new());
}

#[test]
fn outputs_are_byte_identical_in_another_directory() {
    if !has_glslc() {
        return;
    }
    let build = |dir: &Path| {
        project(dir);
        std::fs::copy(crate::kernel("saxpy.spv"), dir.join("shaders/saxpy.spv")).unwrap();
        std::fs::create_dir_all(dir.join("out")).unwrap();
        kernels(dir)
            .glob("shaders/*")
            .unwrap()
            .include_dir("inc dir")
            .build("kernels")
            .unwrap();
        (
            std::fs::read(dir.join("out/kernels.halc")).unwrap(),
            std::fs::read_to_string(dir.join("out/kernels.rs")).unwrap(),
        )
    };
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    let b = b.path().join("elsewhere/deeper");
    let (exe_a, rs_a) = build(a.path());
    let (exe_b, rs_b) = build(&b);
    assert!(exe_a == exe_b, "the executables differ");
    assert_eq!(rs_a, rs_b);
    let a_text = a.path().to_string_lossy().to_string();
    assert!(!rs_a.contains(&a_text), "the bindings hold a path");
    assert!(
        !exe_a.windows(a_text.len()).any(|w| w == a_text.as_bytes()),
        "the executable holds a path"
    );
}

/// Runs `cargo check` on a crate holding `lib` and the given generated
/// files, against this repository's runtime-loader. Returns (success,
/// stderr).
fn cargo_check(dir: &Path, lib: &str, generated: &[(String, String)]) -> (bool, String) {
    let root = crate::root();
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"bindings-check\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n[workspace]\n\n[dependencies]\nruntime-loader = {{ path = {:?} }}\n",
            root.join("runtime-loader").display().to_string()
        ),
    )
    .unwrap();
    std::fs::copy(root.join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    for (name, code) in generated {
        std::fs::write(dir.join("src").join(name), code).unwrap();
    }
    std::fs::write(dir.join("src/lib.rs"), lib).unwrap();
    let out = Command::new(env!("CARGO"))
        .args(["check", "--offline", "--quiet", "--lib"])
        .current_dir(dir)
        // One target directory for every run: runtime-loader is checked once.
        .env("CARGO_TARGET_DIR", root.join("target/bindings-check"))
        .env_remove("RUSTFLAGS")
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

/// The generated bindings of every fixture compile (`deny(warnings)`), and
/// their compile-time layout asserts hold; a struct whose layout differs from
/// the SPIR-V's fails to compile (negative control).
#[test]
fn generated_bindings_compile_and_their_asserts_bite() {
    let mut generated = Vec::new();
    let mut lib = String::from("#![deny(warnings)]\n");
    for path in crate::compute_fixtures() {
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        let Ok(compiled) = halc::compile(&[input(&path)], &Options::default()) else {
            continue;
        };
        let code = halc::build::bindings::generate(&compiled, None).unwrap();
        lib.push_str(&format!(
            "pub mod f_{} {{ include!(\"{name}.rs\"); }}\n",
            name.to_lowercase()
        ));
        generated.push((format!("{name}.rs"), code));
    }
    assert!(generated.len() > 20, "{} fixtures", generated.len());
    let tmp = tempfile::tempdir().unwrap();
    let (ok, stderr) = cargo_check(tmp.path(), &lib, &generated);
    assert!(ok, "the generated bindings do not compile:\n{stderr}");

    // Negative control: `PC.scale` declared as the wrong type moves `offset`.
    let (name, code) = generated
        .iter()
        .find(|(n, _)| n == "push_constants.rs")
        .cloned()
        .unwrap();
    let broken = code.replacen("pub scale: f32,", "pub scale: f64,", 1);
    assert_ne!(broken, code);
    let tmp = tempfile::tempdir().unwrap();
    let lib = "pub mod k { include!(\"push_constants.rs\"); }\n".to_string();
    let (ok, stderr) = cargo_check(tmp.path(), &lib, &[(name, broken)]);
    assert!(!ok, "a wrong layout compiled");
    assert!(
        stderr.contains("offset_of!(PC, offset) == 8"),
        "the offset assert did not fire:\n{stderr}"
    );
}

/// The generated sizes and counts feed the runtime without casts: a `u32`
/// element count gives `size_for`'s `u64` byte length (what both backends'
/// `Device::buffer` takes) and a `Grid`, and `THREADS_PER_THREADGROUP` is a
/// grid too (issue 36: `size_for` took a `u64`, `Device::buffer` a `usize`
/// and `Grid` `u64`s, so every call needed a cast).
#[test]
fn generated_sizes_and_counts_feed_the_runtime_without_casts() {
    let saxpy = crate::root().join("fixtures/kernels/saxpy.spv");
    let compiled = halc::compile(&[input(&saxpy)], &Options::default()).unwrap();
    let code = halc::build::bindings::generate(&compiled, None).unwrap();
    let lib = r#"#![deny(warnings)]
mod k { include!("saxpy.rs"); }
use k::saxpy::{bindings, THREADS_PER_THREADGROUP};
use runtime_loader::plan::Grid;
pub fn dispatch(n: u32) -> (u64, Grid, Grid) {
    let bytes: u64 = bindings::out_buf::size_for(n);
    (bytes, Grid::Threads([n, 1, 1]), Grid::Threadgroups(THREADS_PER_THREADGROUP))
}
pub const BYTES: u64 = bindings::in_buf::size_for(1000);
"#;
    let tmp = tempfile::tempdir().unwrap();
    let (ok, stderr) = cargo_check(tmp.path(), lib, &[("saxpy.rs".into(), code)]);
    assert!(ok, "host code needs casts again:\n{stderr}");
}

/// Host code written against a kernel stops compiling when a shader edit
/// changes the kernel's interface: the push-constant member's type changes
/// and a binding moves.
#[test]
fn a_shader_edit_breaks_host_code_at_compile_time() {
    if !has_glslc() {
        return;
    }
    let host = r#"#![deny(warnings)]
mod kernels { include!("kernels.rs"); }
use kernels::k;
pub fn push() -> k::PushConstants {
    k::PushConstants { n: 4, scale: 0.5 }
}
pub fn bindings(buf: runtime_loader::plan::BufferBinding) -> runtime_loader::plan::Bindings {
    k::Args { data: buf }.bindings()
}
const _: () = assert!(k::bindings::data::BINDING == 0);
"#;
    let generate = |source: &str| {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        project(dir);
        std::fs::write(dir.join("shaders/k.comp"), source).unwrap();
        std::fs::create_dir_all(dir.join("out")).unwrap();
        let built = kernels(dir)
            .file("shaders/k.comp")
            .include_dir("inc dir")
            .build("kernels")
            .unwrap();
        let code = std::fs::read_to_string(&built.bindings).unwrap();
        // Without OUT_DIR in the check crate: drop the executable's bytes.
        code.lines()
            .filter(|l| !l.contains("include_bytes!"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let check = |code: String| {
        let tmp = tempfile::tempdir().unwrap();
        cargo_check(tmp.path(), host, &[("kernels.rs".into(), code)])
    };
    let (ok, stderr) = check(generate(KERNEL));
    assert!(
        ok,
        "host code does not compile against its kernel:\n{stderr}"
    );
    let edited = KERNEL
        .replace("float scale;", "uint scale;")
        .replace("binding = 0) buffer Data", "binding = 3) buffer Data");
    let (ok, stderr) = check(generate(&edited));
    assert!(!ok, "host code compiled against the edited kernel");
    assert!(stderr.contains("mismatched types"), "{stderr}");
    assert!(
        stderr.contains("k::bindings::data::BINDING == 0"),
        "{stderr}"
    );
}

/// std140 and std430 padding, row- and column-major matrices, nested
/// structs in arrays, a push-constant block starting at offset 16 and a
/// storage block with a fixed part before its runtime array: the generated
/// structs reproduce every SPIR-V offset (their asserts compile).
#[test]
fn padded_layouts_matrices_and_nested_structs_compile() {
    if !has_glslc() {
        return;
    }
    let source = r#"#version 450
layout(local_size_x = 1) in;
struct Inner { vec3 p; float w; mat3 m; };
layout(set = 0, binding = 0, std140) uniform U {
    float a;
    vec3 b;
    float c;
    layout(row_major) mat3 r;
    mat2x3 m23;
    Inner inner[2];
    int ints[3];
} u;
layout(set = 0, binding = 1, std430) buffer S {
    vec3 v3;
    float f;
    Inner items[];
} s;
layout(push_constant) uniform P { layout(offset = 16) uint late; } pc;
void main() {
    s.items[0].w = u.a + u.b.x + u.c + u.r[0][0] + u.m23[1][2] + u.inner[1].m[2][2]
        + float(u.ints[2]) + s.v3.x + s.f + float(pc.late);
}
"#;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::create_dir_all(dir.join("out")).unwrap();
    std::fs::write(dir.join("layouts.comp"), source).unwrap();
    let built = kernels(dir).file("layouts.comp").build("kernels").unwrap();
    let code = std::fs::read_to_string(&built.bindings).unwrap();
    for expected in [
        "offset_of!(U, c) == 28",
        "offset_of!(U, r) == 32",
        "offset_of!(U, m23) == 80",
        "offset_of!(U, inner) == 112",
        "offset_of!(U, ints) == 240",
        "size_of::<U>() == 288",
        "pub r: [[f32; 4]; 3],",
        "pub m23: [[f32; 4]; 2],",
        "pub ints: [UIntsElem; 3],",
        "offset_of!(P, late) == 16",
        "pub _pad0: [u8; 16],",
        "pub const PUSH_CONSTANTS_SIZE: usize = 20;",
        "pub const ARRAY_OFFSET: u64 = 16;",
        "pub type Element = super::super::Inner;",
    ] {
        assert!(
            code.contains(expected),
            "`{expected}` missing from:\n{code}"
        );
    }
    crate::snapshot_settings().bind(|| insta::assert_snapshot!("layouts.bindings", code));
    let code: String = code
        .lines()
        .filter(|l| !l.contains("include_bytes!"))
        .collect::<Vec<_>>()
        .join("\n");
    let lib = "#![deny(warnings)]\npub mod kernels { include!(\"kernels.rs\"); }\n";
    let tmp = tempfile::tempdir().unwrap();
    let (ok, stderr) = cargo_check(tmp.path(), lib, &[("kernels.rs".into(), code)]);
    assert!(ok, "the generated bindings do not compile:\n{stderr}");
}

/// A glslc that records how many copies of itself run at once (a file per
/// running copy in `dir`, counted as each starts; each stays 0.3 s, on
/// `k1.comp` 0.8 s), then runs the real one.
#[cfg(unix)]
pub fn counting_glslc(dir: &Path) -> std::path::PathBuf {
    counting_glslc_running(
        dir,
        "",
        "sleep 0.3; case \"$*\" in *k1.comp*) sleep 0.5;; esac",
        "exec glslc \"$@\"",
    )
}

/// A glslc script in `dir` that answers `--version` with the real one's,
/// runs `first`, then, counted as running (see [`most_at_once`]), `wait`,
/// and finally `run`.
#[cfg(unix)]
pub fn counting_glslc_running(
    dir: &Path,
    first: &str,
    wait: &str,
    run: &str,
) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let running = dir.join("running");
    std::fs::create_dir_all(&running).unwrap();
    let script = dir.join("glslc");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\n\
             [ \"$1\" = --version ] && exec glslc --version\n\
             {first}\n\
             touch '{r}'/$$\n\
             ls '{r}' | wc -l >> '{r}.counts'\n\
             {wait}\n\
             rm '{r}'/$$\n\
             {run}\n",
            r = running.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    script
}

/// The most copies of the counting glslc that ran at once.
#[cfg(unix)]
pub fn most_at_once(dir: &Path) -> usize {
    let counts = std::fs::read_to_string(dir.join("running.counts")).unwrap_or_default();
    std::fs::remove_file(dir.join("running.counts")).ok();
    counts
        .lines()
        .map(|l| l.trim().parse::<usize>().unwrap())
        .max()
        .unwrap_or(0)
}

/// [`project`] with `shaders/k1.comp` to `k3.comp` beside `k.comp` (each
/// scaling by its number) and a [`counting_glslc`], which it returns.
#[cfg(unix)]
fn four_kernels(dir: &Path) -> std::path::PathBuf {
    project(dir);
    for i in 1..4 {
        std::fs::write(
            dir.join(format!("shaders/k{i}.comp")),
            KERNEL.replace("* pc.scale;", &format!("* pc.scale * {i}.0;")),
        )
        .unwrap();
    }
    counting_glslc(dir)
}

/// GLSL sources go through several glslc at once (`Options::jobs`, by
/// default the cores or what cargo's jobserver grants), with the outputs a
/// serial build writes; a broken source is reported first in source order
/// whatever finished first, and a missing one before a broken one after it.
#[cfg(unix)]
#[test]
fn glsl_sources_compile_in_parallel_with_errors_in_source_order() {
    if !has_glslc() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let glslc = four_kernels(dir);
    let build = |jobs: usize, out: &str| {
        kernels(dir)
            .glob("shaders/*.comp")
            .unwrap()
            .include_dir("inc dir")
            .options(Options {
                jobs,
                ..Options::default()
            })
            .glslc(&glslc)
            .out_dir(dir.join(out))
            .build("kernels")
    };
    std::fs::create_dir_all(dir.join("serial")).unwrap();
    std::fs::create_dir_all(dir.join("parallel")).unwrap();
    build(1, "serial").unwrap();
    assert_eq!(most_at_once(dir), 1);
    let built = build(2, "parallel").unwrap();
    assert_eq!(most_at_once(dir), 2, "two glslc at once");
    assert_eq!(built.kernels, ["k", "k1", "k2", "k3"]);
    for f in ["kernels.halc", "kernels.rs"] {
        assert!(
            std::fs::read(dir.join("serial").join(f)).unwrap()
                == std::fs::read(dir.join("parallel").join(f)).unwrap(),
            "{f}"
        );
    }
    // k1 and k3 break, k1 the later to finish: k1's error is the one.
    std::fs::write(
        dir.join("shaders/k1.comp"),
        KERNEL.replace("* pc.scale;", "* pc.scale"),
    )
    .unwrap();
    std::fs::write(
        dir.join("shaders/k3.comp"),
        "#version 450\nvoid main() { x }\n",
    )
    .unwrap();
    for jobs in [1, 2, 4] {
        let err = build(jobs, "parallel").unwrap_err().to_string();
        assert!(
            err.starts_with("shaders/k1.comp:9: error:"),
            "{jobs} jobs: {err}"
        );
    }
    // A source that vanished before a broken one: the missing file first.
    let err = kernels(dir)
        .file("shaders/k.comp")
        .file("shaders/gone.comp")
        .file("shaders/k1.comp")
        .include_dir("inc dir")
        .glslc(&glslc)
        .out_dir(dir.join("parallel"))
        .build("kernels")
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("shaders/gone.comp: "), "{err}");
}

/// Sets every file under `dirs` of `root` as last modified a minute ago:
/// settled, as the GLSL cache wants its files.
#[cfg(unix)]
pub fn settle(root: &Path, dirs: &[&str]) {
    let past = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
    for d in dirs {
        for e in std::fs::read_dir(root.join(d)).unwrap() {
            let p = e.unwrap().path();
            if p.is_file() {
                let f = std::fs::File::options().write(true).open(&p).unwrap();
                f.set_modified(past).unwrap();
            }
        }
    }
}

/// How many times the counting glslc compiled since the last call.
#[cfg(unix)]
pub fn glslc_runs(dir: &Path) -> usize {
    let counts = std::fs::read_to_string(dir.join("running.counts")).unwrap_or_default();
    std::fs::remove_file(dir.join("running.counts")).ok();
    counts.lines().count()
}

/// A build script's rebuild runs glslc only on the sources whose files
/// changed (`$OUT_DIR/halc-glslc-cache`): nothing changed, none; one
/// source edited, that one; the shared header edited, all; a header added
/// beside the sources, which shadows the include directory's, all, and
/// the kernels then use it. Every output is the one a build without the
/// cache writes. A file modified just before the build is compiled but
/// not kept, until it has settled.
#[cfg(unix)]
#[test]
fn glslc_runs_again_only_for_sources_that_changed() {
    if !has_glslc() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let glslc = four_kernels(dir);
    let build = |out: &str| {
        std::fs::create_dir_all(dir.join(out)).unwrap();
        kernels(dir)
            .glob("shaders/*.comp")
            .unwrap()
            .include_dir("inc dir")
            .glslc(&glslc)
            .out_dir(dir.join(out))
            .build("kernels")
            .unwrap();
        std::fs::read(dir.join(out).join("kernels.halc")).unwrap()
    };
    // What a build without a cache writes (in a new OUT_DIR each time).
    let mut fresh_builds = 0;
    let mut fresh = || {
        fresh_builds += 1;
        let bytes = build(&format!("fresh{fresh_builds}"));
        glslc_runs(dir);
        bytes
    };
    let dirs = ["shaders", "inc dir"];
    settle(dir, &dirs);
    let first = build("out");
    assert_eq!(glslc_runs(dir), 4, "a first build compiles every source");
    assert!(build("out") == first);
    assert_eq!(glslc_runs(dir), 0, "nothing changed");

    let edit = |file: &str, from: &str, to: &str| {
        let p = dir.join(file);
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(text.contains(from), "{file}");
        std::fs::write(&p, text.replace(from, to)).unwrap();
    };
    edit("shaders/k2.comp", "* 2.0;", "* 5.0;");
    settle(dir, &dirs);
    let one = build("out");
    assert_eq!(glslc_runs(dir), 1, "one source edited");
    assert!(one != first && one == fresh());

    edit("inc dir/common.glsl", "2.0 * x", "4.0 * x");
    settle(dir, &dirs);
    let header = build("out");
    assert_eq!(glslc_runs(dir), 4, "the shared header edited");
    assert!(header != one && header == fresh());

    // `#include "common.glsl"` now finds shaders/common.glsl first.
    std::fs::write(
        dir.join("shaders/common.glsl"),
        "float twice(float x) { return 3.0 * x; }\n",
    )
    .unwrap();
    settle(dir, &dirs);
    let shadowed = build("out");
    assert_eq!(glslc_runs(dir), 4, "a header added earlier in the search");
    assert!(shadowed != header && shadowed == fresh());

    // Edited a moment ago: compiled, not kept until it has settled.
    edit("shaders/k3.comp", "* 3.0;", "* 7.0;");
    let recent = build("out");
    assert_eq!(glslc_runs(dir), 1);
    assert!(build("out") == recent);
    assert_eq!(
        glslc_runs(dir),
        1,
        "a file modified just before is not kept"
    );
    settle(dir, &dirs);
    assert!(build("out") == recent);
    assert_eq!(glslc_runs(dir), 1);
    let settled = build("out");
    assert_eq!(glslc_runs(dir), 0, "kept once settled");
    assert!(settled == recent && recent == fresh());
}

/// The common shared-memory idiom: the workgroup size from
/// `local_size_x_id = 0` (default 1) and the array from `constant_id = 0`
/// (default 64).
const ONE_THREAD: &str = r#"#version 450
layout(local_size_x_id = 0) in;
layout(constant_id = 0) const uint WG = 64;
layout(set = 0, binding = 0) buffer Data { float v[]; } data;
shared float scratch[WG];
void main() {
    uint i = gl_LocalInvocationID.x;
    scratch[i] = data.v[gl_GlobalInvocationID.x];
    barrier();
    data.v[gl_GlobalInvocationID.x] = scratch[WG - 1u - i];
}
"#;

#[test]
fn one_thread_threadgroup_from_a_spec_default_is_an_error_naming_the_fix() {
    if !has_glslc() {
        return;
    }
    let tmp = shader_project();
    let dir = tmp.path();
    std::fs::write(dir.join("shaders/softmax.comp"), ONE_THREAD).unwrap();
    let err = kernels(dir)
        .file("shaders/softmax.comp")
        .build("kernels")
        .unwrap_err()
        .to_string();
    for part in [
        "shaders/softmax.comp: kernel `softmax`:",
        "1 x 1 x 1",
        "`local_size_x_id = 0` keeps its default 1",
        "SpecId 0 (which sizes an array) defaults to 64",
        "`.spec(0, 64)`",
    ] {
        assert!(err.contains(part), "{part:?} missing from: {err}");
    }
    assert_eq!(files(&dir.join("out")), Vec::<String>::new());
    // Chosen, the SpecId gives the workgroup size and the array alike.
    let built = kernels(dir)
        .file("shaders/softmax.comp")
        .spec(0, 64)
        .build("kernels")
        .unwrap();
    assert_eq!(built.kernels, ["softmax"]);
    let directives = built.cargo_directives();
    assert!(!directives.contains("cargo:warning"), "{directives}");
    let code = std::fs::read_to_string(&built.bindings).unwrap();
    assert!(code.contains("[64, 1, 1]"), "{code}");
}

#[test]
fn build_script_warnings_reach_cargo() {
    if !has_glslc() {
        return;
    }
    let tmp = shader_project();
    let dir = tmp.path();
    // debugPrintfEXT is removed; SpecId 0 sizes an array and is read as a
    // value (both declarations default to 64): fixed at its defaults.
    std::fs::write(
        dir.join("shaders/p.comp"),
        r#"#version 450
#extension GL_EXT_debug_printf : require
layout(local_size_x = 64, local_size_x_id = 0) in;
layout(constant_id = 0) const uint WG = 64;
layout(set = 0, binding = 0) buffer Data { float v[]; } data;
shared float tile[WG];
void main() {
    uint i = gl_LocalInvocationID.x;
    tile[i] = data.v[gl_GlobalInvocationID.x];
    barrier();
    debugPrintfEXT("%u", i);
    data.v[gl_GlobalInvocationID.x] = tile[WG - 1u - i];
}
"#,
    )
    .unwrap();
    let built = kernels(dir)
        .file("shaders/p.comp")
        .build("kernels")
        .unwrap();
    let directives = built.cargo_directives();
    for line in [
        "cargo:warning=shaders/p.comp: 1 debugPrintfEXT call removed: MSL has no printf",
        "cargo:warning=shaders/p.comp: kernel `p`: SpecId 0 sizes an array, which Metal needs constant, and is also read as a value, declared with other defaults, or under a signed `%` (SMod, which SPIRV-Cross writes as a function call): it is fixed at its defaults (each declaration its own), not settable at run time; choose it with .spec(0, VALUE)\n",
    ] {
        assert!(directives.contains(line), "{line:?} missing from:\n{directives}");
    }
    assert_eq!(
        directives.matches("cargo:warning=").count(),
        2,
        "{directives}"
    );
}
