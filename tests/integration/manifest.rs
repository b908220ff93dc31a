//! `halc build` / `halc compile --manifest`: many kernels into several
//! executables from one halc.toml, as a build system runs it.

use std::path::Path;

use halc::reflection::Reflection;

use crate::cli::{halc, listing, stderr, tmp};

/// A project directory with shaders/ holding some fixtures.
fn project(manifest: &str) -> tempfile::TempDir {
    let d = tmp();
    std::fs::create_dir(d.path().join("shaders")).unwrap();
    std::fs::create_dir(d.path().join("build")).unwrap();
    for f in [
        "saxpy.spv",
        "spec_constants.spv",
        "scale.spv",
        "two_entry_points.spv",
    ] {
        std::fs::copy(crate::kernel(f), d.path().join("shaders").join(f)).unwrap();
    }
    std::fs::write(d.path().join("halc.toml"), manifest).unwrap();
    d
}

const MANIFEST: &str = r#"
[defaults]
msl_version = "3.1"

[[executable]]
output = "build/kernels.halc"
reflection = "build/kernels.json"
depfile = "build/kernels.d"

[[executable.kernel]]
source = "shaders/saxpy.spv"

[[executable.kernel]]
source = "shaders/spec_constants.spv"
name = "spec_64"
spec = { 0 = 64, 1 = 0.5 }

[[executable.kernel]]
source = "shaders/spec_constants.spv"
name = "spec_open"

[[executable.kernel]]
source = "shaders/two_entry_points.spv"
entry = "main_b"
name = "second"

[[executable]]
output = "build/discrete.halc"
bindings = "discrete"

[[executable.kernel]]
source = "shaders/scale.spv"
"#;

fn reflection(path: &Path) -> Reflection {
    Reflection::from_bytes(&std::fs::read(path).unwrap()).unwrap()
}

#[test]
fn manifest_builds_every_executable() {
    let d = project(MANIFEST);
    let o = halc(&["build"], d.path());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let r = reflection(&d.path().join("build/kernels.halc"));
    let names: Vec<&str> = r.kernels.iter().map(|k| k.name.as_str()).collect();
    assert_eq!(names, ["saxpy", "second", "spec_64", "spec_open"]);
    let k = r.by_name();
    // Per-kernel spec constants: one source, two kernels.
    assert_eq!(k["spec_64"].threadgroup_size.x, 64);
    let open: Vec<u32> = k["spec_64"]
        .function_constants
        .iter()
        .map(|c| c.id)
        .collect();
    assert_eq!(open, [2, 3], "0 and 1 are baked");
    assert_eq!(k["spec_open"].threadgroup_size.x, 128);
    assert_eq!(k["spec_open"].threadgroup_size_spec_ids.x, Some(0));
    assert_eq!(k["second"].entry_point, "main_b");
    assert!(r.libraries.iter().all(|l| l.msl_version == "3.1"));
    assert_eq!(
        std::fs::read_to_string(d.path().join("build/kernels.json")).unwrap(),
        r.to_json()
    );
    assert_eq!(
        std::fs::read_to_string(d.path().join("build/kernels.d")).unwrap(),
        "build/kernels.halc: \\\n  halc.toml \\\n  shaders/saxpy.spv \\\n  shaders/spec_constants.spv \\\n  shaders/two_entry_points.spv\n"
    );
    let discrete = reflection(&d.path().join("build/discrete.halc"));
    assert_eq!(discrete.kernels[0].binding_model, "discrete");
    assert_eq!(discrete.kernels[0].name, "scale");

    // `compile --manifest` is the same build, byte for byte, from another directory.
    let before = std::fs::read(d.path().join("build/kernels.halc")).unwrap();
    let o = halc(
        &[
            "compile",
            "--manifest",
            d.path().join("halc.toml").to_str().unwrap(),
        ],
        &std::env::temp_dir(),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        std::fs::read(d.path().join("build/kernels.halc")).unwrap(),
        before
    );
}

/// Each mistake is one line naming the manifest, line and column, and no
/// executable is written, not even those before the failing one.
#[test]
fn manifest_errors_name_line_and_column_and_write_nothing() {
    let cases: &[(&str, &str, &str)] = &[
        ("bindings = \"discrete\"", "bindngs = \"discrete\"", "halc.toml:{line}:1: unknown field `bindngs`"),
        ("bindings = \"discrete\"", "bindings = \"discret\"", "halc.toml:{line}:12: bindings = \"discret\": expected \"argument-buffers\" or \"discrete\""),
        ("msl_version = \"3.1\"", "msl_version = 3.1", "halc.toml:{line}:15: invalid type: floating point `3.1`, expected a string"),
        ("spec = { 0 = 64, 1 = 0.5 }", "spec = { 0 = [128], 1 = 0.5 }", "halc.toml:{line}:14: spec 0: expected a number, a boolean or a string, found array"),
        ("spec = { 0 = 64, 1 = 0.5 }", "spec = { x = 128 }", "halc.toml:{line}:10: spec `x=128`: spec constant id `x` is not a non-negative integer"),
        ("source = \"shaders/scale.spv\"", "source = \"shaders/nope.spv\"", "halc.toml:{line}:10: shaders/nope.spv: cannot read: no such file"),
        ("entry = \"main_b\"", "entry = \"main_c\"", "shaders/two_entry_points.spv: entry main_c: the module has no GLCompute entry point `main_c`; its GLCompute entry points are: main_a, main_b"),
        ("entry = \"main_b\"\n", "", "shaders/two_entry_points.spv: name second: the module has 2 GLCompute entry points (main_a, main_b); say which one is `second`"),
        ("spec = { 0 = 64, 1 = 0.5 }", "spec = { 0 = 64, 9 = 1 }", "shaders/spec_constants.spv: spec 9=1: the module has no spec constant with SpecId 9"),
        ("output = \"build/discrete.halc\"", "output = \"build/kernels.halc\"", "halc.toml:{line}:10: output `build/kernels.halc` is also the output of the executable at line 6"),
    ];
    for (from, to, want) in cases {
        assert!(MANIFEST.contains(from), "{from}");
        let text = MANIFEST.replacen(from, to, 1);
        let line = match to.lines().next() {
            Some(first) if !first.is_empty() => {
                text.lines()
                    .collect::<Vec<_>>()
                    .iter()
                    .rposition(|l| l.starts_with(first))
                    .unwrap()
                    + 1
            }
            _ => 0,
        };
        let want = want.replace("{line}", &line.to_string());
        let d = project(&text);
        let o = halc(&["build"], d.path());
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{to}: {err}");
        assert!(err.contains(&want), "{to}:\n  want {want}\n  got  {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            listing(&d.path().join("build")).is_empty(),
            "{to}: wrote {:?}",
            listing(&d.path().join("build"))
        );
    }
}

/// Locks in a manifest: `build --update-lock` writes each, a later change
/// fails naming the kernel, and nothing is written.
#[test]
fn manifest_locks() {
    let m = MANIFEST.replacen(
        "depfile = \"build/kernels.d\"",
        "depfile = \"build/kernels.d\"\nlock = \"kernels.lock\"",
        1,
    );
    let d = project(&m);
    let o = halc(&["build"], d.path());
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("kernels.lock: no such lock file"),
        "{}",
        stderr(&o)
    );
    let o = halc(&["build", "--update-lock"], d.path());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = halc(&["build"], d.path());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let before = std::fs::read(d.path().join("build/kernels.halc")).unwrap();

    std::fs::write(
        d.path().join("halc.toml"),
        m.replacen("0 = 64", "0 = 256", 1),
    )
    .unwrap();
    let o = halc(&["build"], d.path());
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("\n  spec_64: threadgroup size changed from 64x1x1 to 256x1x1"),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        std::fs::read(d.path().join("build/kernels.halc")).unwrap(),
        before
    );
}

/// The guide (docs/guide/build-integration.md) shows examples/manifest/halc.toml verbatim, and it builds.
#[test]
fn readme_manifest_is_the_example_and_builds() {
    let root = crate::root();
    let toml = std::fs::read_to_string(root.join("examples/manifest/halc.toml")).unwrap();
    let readme = std::fs::read_to_string(root.join("docs/guide/build-integration.md")).unwrap();
    assert!(
        readme.contains(&format!("```toml\n{toml}```")),
        "the guide's manifest example differs from examples/manifest/halc.toml"
    );
    if std::process::Command::new("glslc")
        .arg("--version")
        .output()
        .is_err()
    {
        assert_ne!(
            std::env::var("HALC_REQUIRE_CLANG").as_deref(),
            Ok("1"),
            "HALC_REQUIRE_CLANG=1 but glslc is missing"
        );
        println!("skipped: the manifest example needs glslc");
        return;
    }
    // Built in a copy, so the test writes nothing into the repository.
    let d = tmp();
    let copy = d.path().join("manifest");
    copy_dir(&root.join("examples/manifest"), &copy);
    let _ = std::fs::remove_dir_all(copy.join("build"));
    let o = halc(&["build", "--quiet", "halc.toml"], &copy);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let r = reflection(&copy.join("build/kernels.halc"));
    let k = r.by_name();
    assert_eq!(k["saxpy"].threadgroup_size_spec_ids.x, Some(0));
    assert_eq!(k["saxpy_relu_256"].threadgroup_size.x, 256);
    assert_eq!(k["sum"].threadgroup_memory_bytes, 512);
    let d = std::fs::read_to_string(copy.join("build/kernels.d")).unwrap();
    assert!(d.contains("shaders/include/activation.glsl"), "{d}");
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &to.join(e.file_name()));
        } else {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

/// GLSL sources: a compile error is glslc's own `file:line` message; a
/// missing glslc is one line naming the manifest entry; nothing is written.
#[test]
fn manifest_glsl_errors() {
    if !crate::build::has_glslc() {
        return;
    }
    let d = tmp();
    std::fs::create_dir_all(d.path().join("shaders")).unwrap();
    std::fs::write(
        d.path().join("shaders/bad.comp"),
        "#version 450\nlayout(local_size_x = 1) in;\nvoid main() { undeclared = 1; }\n",
    )
    .unwrap();
    std::fs::write(
        d.path().join("halc.toml"),
        "[[executable]]\noutput = \"build/k.halc\"\n\n[[executable.kernel]]\nsource = \"shaders/bad.comp\"\n",
    )
    .unwrap();
    let o = halc(&["build"], d.path());
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.starts_with("error: shaders/bad.comp:3: error: 'undeclared'"),
        "{err}"
    );
    assert!(!d.path().join("build").exists());

    let o = halc(&["build", "--glslc", "/nonexistent/glslc"], d.path());
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.starts_with(
            "error: halc.toml:5:10: GLSL needs glslc, which was not found (`/nonexistent/glslc`)"
        ),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
}

/// `halc build` runs glslc on an executable's GLSL kernels several at once
/// (`-j`): the error is the first broken kernel's in manifest order even
/// when a later one fails sooner (`k1.comp` is the slow one).
#[cfg(unix)]
#[test]
fn manifest_glsl_kernels_compile_in_parallel_with_errors_in_order() {
    if !crate::build::has_glslc() {
        return;
    }
    let d = tmp();
    let glslc = crate::build::counting_glslc(d.path());
    std::fs::create_dir_all(d.path().join("shaders")).unwrap();
    let good = "#version 450\nlayout(local_size_x = 1) in;\nlayout(set = 0, binding = 0) buffer B { uint v[]; } b;\nvoid main() { b.v[0] = 1u; }\n";
    for (name, text) in [
        ("k0", good),
        (
            "k1",
            "#version 450\nlayout(local_size_x = 1) in;\nvoid main() { slow = 1; }\n",
        ),
        ("k2", good),
        (
            "k3",
            "#version 450\nlayout(local_size_x = 1) in;\nvoid main() { fast = 1; }\n",
        ),
    ] {
        std::fs::write(d.path().join(format!("shaders/{name}.comp")), text).unwrap();
    }
    let kernels: String = (0..4)
        .map(|i| format!("\n[[executable.kernel]]\nsource = \"shaders/k{i}.comp\"\n"))
        .collect();
    std::fs::write(
        d.path().join("halc.toml"),
        format!("[[executable]]\noutput = \"build/k.halc\"\n{kernels}"),
    )
    .unwrap();
    let o = halc(
        &["build", "-j", "4", "--glslc", glslc.to_str().unwrap()],
        d.path(),
    );
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.starts_with("error: shaders/k1.comp:3: error: 'slow'"),
        "{err}"
    );
    assert_eq!(
        crate::build::most_at_once(d.path()),
        4,
        "four glslc at once"
    );
    assert!(!d.path().join("build").exists());
}

/// `halc build --glslc-cache DIR` keeps glslc's outputs: a second build
/// runs no glslc, an edited source is the only one compiled again, and the
/// executable is the one a build without the cache writes.
#[cfg(unix)]
#[test]
fn manifest_glslc_cache_compiles_only_what_changed() {
    if !crate::build::has_glslc() {
        return;
    }
    let d = tmp();
    let dir = d.path();
    let glslc = crate::build::counting_glslc(dir);
    std::fs::create_dir_all(dir.join("shaders")).unwrap();
    for i in 0..3 {
        std::fs::write(
            dir.join(format!("shaders/k{i}.comp")),
            format!("#version 450\nlayout(local_size_x = 1) in;\nlayout(set = 0, binding = 0) buffer B {{ uint v[]; }} b;\nvoid main() {{ b.v[0] = {i}u; }}\n"),
        )
        .unwrap();
    }
    let kernels: String = (0..3)
        .map(|i| format!("\n[[executable.kernel]]\nsource = \"shaders/k{i}.comp\"\n"))
        .collect();
    std::fs::write(
        dir.join("halc.toml"),
        format!("[[executable]]\noutput = \"build/k.halc\"\n{kernels}"),
    )
    .unwrap();
    let build = |cache: bool| {
        let mut args = vec!["build", "--quiet", "--glslc", glslc.to_str().unwrap()];
        if cache {
            args.extend(["--glslc-cache", "build/glslc-cache"]);
        }
        let o = halc(&args, dir);
        assert!(o.status.success(), "{}", stderr(&o));
        std::fs::read(dir.join("build/k.halc")).unwrap()
    };
    crate::build::settle(dir, &["shaders"]);
    let first = build(true);
    assert_eq!(crate::build::glslc_runs(dir), 3);
    assert!(build(true) == first);
    assert_eq!(crate::build::glslc_runs(dir), 0, "nothing changed");
    let text = std::fs::read_to_string(dir.join("shaders/k1.comp")).unwrap();
    std::fs::write(dir.join("shaders/k1.comp"), text.replace("= 1u", "= 7u")).unwrap();
    crate::build::settle(dir, &["shaders"]);
    let edited = build(true);
    assert_eq!(crate::build::glslc_runs(dir), 1, "one source edited");
    assert!(edited != first);
    assert!(build(false) == edited, "the same bytes without the cache");
    assert_eq!(crate::build::glslc_runs(dir), 3);
}
