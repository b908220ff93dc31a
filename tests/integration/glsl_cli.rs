//! GLSL at the command line (`halc compile k.comp`, `halc diff k.comp`) and
//! `halc diff`'s push constants and uniform members given by name (issue
//! 36, items 4 and 7).

use std::path::Path;
use std::process::{Command, Output};

use crate::build::has_glslc;
use crate::cli::{halc, stderr, tmp};

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).to_string()
}

/// A GLSL kernel whose threadgroup size is a macro and whose helper is in
/// an `#include`d header.
fn softmax_project(dir: &Path) {
    std::fs::create_dir_all(dir.join("inc")).unwrap();
    std::fs::write(
        dir.join("inc/common.glsl"),
        "float twice(float x) { return 2.0 * x; }\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("softmax.comp"),
        "#version 450\n#include \"common.glsl\"\nlayout(local_size_x = WG) in;\n\
         layout(push_constant) uniform P { uint n; float scale; } p;\n\
         layout(set = 0, binding = 0) buffer D { float data[]; };\n\
         void main() { uint i = gl_GlobalInvocationID.x; if (i < p.n) data[i] = twice(data[i]) * p.scale; }\n",
    )
    .unwrap();
}

/// `halc compile softmax.comp` compiles the GLSL through glslc, with `-I`
/// and `-D` reaching it: the kernel is named after the file, its
/// threadgroup size is the macro's, and the depfile names the header.
/// Before, this was `bad magic number 0x72657623: not a SPIR-V module`.
#[test]
fn compile_takes_glsl_with_includes_and_defines() {
    if !has_glslc() {
        return;
    }
    let t = tmp();
    let dir = t.path();
    softmax_project(dir);
    let o = halc(
        &[
            "compile",
            "softmax.comp",
            "-I",
            "inc",
            "-D",
            "WG=32",
            "-o",
            "s.halc",
            "--depfile",
            "s.d",
        ],
        dir,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let o = halc(&["inspect", "s.halc"], dir);
    let text = stdout(&o);
    assert!(
        text.contains("kernel softmax (entry point `main` of softmax.comp)"),
        "{text}"
    );
    assert!(text.contains("threadgroup size [32, 1, 1]"), "{text}");
    let dep = std::fs::read_to_string(dir.join("s.d")).unwrap();
    assert!(
        dep.contains("softmax.comp") && dep.contains("inc/common.glsl"),
        "{dep}"
    );
    // Another define, another threadgroup size.
    let o = halc(
        &[
            "compile",
            "softmax.comp",
            "-I",
            "inc",
            "-DWG=8",
            "-o",
            "s8.halc",
        ],
        dir,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&halc(&["inspect", "s8.halc"], dir));
    assert!(text.contains("threadgroup size [8, 1, 1]"), "{text}");
    // Without the include directory: glslc's own message, naming file:line,
    // and nothing written.
    let o = halc(
        &["compile", "softmax.comp", "-D", "WG=32", "-o", "none.halc"],
        dir,
    );
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.starts_with("error: softmax.comp:2: error: "), "{err}");
    assert!(err.contains("common.glsl"), "{err}");
    assert!(!dir.join("none.halc").exists());
}

/// `--target-env` reaches glslc: a subgroup kernel needs SPIR-V 1.3, which
/// glslc's default `vulkan1.0` refuses and `vulkan1.1` gives.
#[test]
fn compile_passes_the_target_env_to_glslc() {
    if !has_glslc() {
        return;
    }
    let t = tmp();
    let dir = t.path();
    std::fs::write(
        dir.join("sg.glsl"),
        "#version 450\n#extension GL_KHR_shader_subgroup_arithmetic : require\n\
         layout(local_size_x = 32) in;\n\
         layout(set = 0, binding = 0) buffer D { float d[]; };\n\
         void main() { d[gl_GlobalInvocationID.x] = subgroupAdd(d[gl_GlobalInvocationID.x]); }\n",
    )
    .unwrap();
    let o = halc(&["compile", "sg.glsl", "-o", "sg.halc"], dir);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("sg.glsl:"), "{}", stderr(&o));
    let o = halc(
        &[
            "compile",
            "sg.glsl",
            "--target-env",
            "vulkan1.1",
            "-o",
            "sg.halc",
        ],
        dir,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let o = halc(
        &[
            "compile",
            "sg.glsl",
            "--target-env",
            "vulkan9",
            "-o",
            "sg.halc",
        ],
        dir,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("expected vulkan1.0 … vulkan1.3 or spv1.0 … spv1.6"),
        "{}",
        stderr(&o)
    );
}

/// What is SPIR-V is decided by the contents first: a SPIR-V module named
/// `.comp` compiles as SPIR-V; a file that is neither SPIR-V nor GLSL is
/// one line naming the file and both possibilities; a missing glslc is one
/// line naming the file and how to install it; another stage's extension
/// is refused by name. Never a panic.
#[test]
fn a_file_neither_spirv_nor_glsl_names_both() {
    let t = tmp();
    let dir = t.path();
    std::fs::write(dir.join("notes.txt"), "softmax, but in prose\n").unwrap();
    let o = halc(&["compile", "notes.txt", "-o", "x.halc"], dir);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "error: notes.txt: neither a SPIR-V module (it does not start with the magic number \
         0x07230203) nor GLSL (name it .comp or .glsl, for glslc)\n"
    );
    let o = halc(&["diff", "notes.txt"], dir);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).starts_with("error: notes.txt: neither a SPIR-V module"));

    // SPIR-V by its magic number, whatever the name.
    std::fs::copy(crate::kernel("saxpy.spv"), dir.join("saxpy.comp")).unwrap();
    let o = halc(&["compile", "saxpy.comp", "-o", "s.halc"], dir);
    assert!(o.status.success(), "{}", stderr(&o));

    // GLSL without glslc.
    std::fs::write(dir.join("k.comp"), "#version 450\nvoid main() {}\n").unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_halc"))
        .args(["compile", "k.comp", "-o", "k.halc"])
        .current_dir(dir)
        .env("HALC_GLSLC", "/nonexistent/glslc")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with(
            "error: k.comp: GLSL needs glslc, which was not found (`/nonexistent/glslc` from HALC_GLSLC)"
        ),
        "{err}"
    );
    // A fragment shader.
    std::fs::write(dir.join("k.frag"), "#version 450\nvoid main() {}\n").unwrap();
    let o = halc(&["compile", "k.frag", "-o", "k.halc"], dir);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "error: k.frag: `.frag` is a fragment shader; halc compiles compute shaders (`.comp`, or `.glsl` compiled as compute)\n"
    );
}

/// `halc compile --manifest FILE` runs the glslc given with `--glslc` (it
/// was not passed on before), and refuses the GLSL options a manifest sets
/// itself.
#[test]
fn compile_manifest_takes_glslc() {
    let t = tmp();
    let dir = t.path();
    std::fs::write(dir.join("k.comp"), "#version 450\nvoid main() {}\n").unwrap();
    std::fs::write(
        dir.join("halc.toml"),
        "[[executable]]\noutput = \"k.halc\"\n[[executable.kernel]]\nsource = \"k.comp\"\n",
    )
    .unwrap();
    let o = halc(
        &[
            "compile",
            "--manifest",
            "halc.toml",
            "--glslc",
            "/nonexistent/glslc",
        ],
        dir,
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("GLSL needs glslc, which was not found (`/nonexistent/glslc`)"),
        "{}",
        stderr(&o)
    );
    assert!(!dir.join("k.halc").exists());
    let o = halc(&["compile", "--manifest", "halc.toml", "-D", "N=1"], dir);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("cannot be used with"), "{}", stderr(&o));
}

/// `halc compile --glslc-cache DIR` keeps glslc's output: a second run of
/// the same source runs glslc no more, an edited source runs it again.
#[cfg(unix)]
#[test]
fn compile_reuses_the_glslc_cache() {
    if !has_glslc() {
        return;
    }
    let t = tmp();
    let dir = t.path();
    softmax_project(dir);
    let wrapper = counting_glslc(dir);
    // The cache keeps only files settled before glslc started.
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
    for f in ["softmax.comp", "inc/common.glsl"] {
        std::fs::File::options()
            .write(true)
            .open(dir.join(f))
            .unwrap()
            .set_modified(old)
            .unwrap();
    }
    let runs = || glslc_runs(dir);
    let compile = || {
        let o = halc(
            &[
                "compile",
                "softmax.comp",
                "-I",
                "inc",
                "-D",
                "WG=16",
                "--glslc",
                wrapper.to_str().unwrap(),
                "--glslc-cache",
                "cache",
                "-o",
                "s.halc",
            ],
            dir,
        );
        assert!(o.status.success(), "{}", stderr(&o));
    };
    compile();
    assert_eq!(runs(), 1);
    compile();
    assert_eq!(
        runs(),
        1,
        "the second run found glslc's output in the cache"
    );
    std::fs::write(
        dir.join("inc/common.glsl"),
        "float twice(float x) { return x + x; }\n",
    )
    .unwrap();
    compile();
    assert_eq!(runs(), 2, "an edited header runs glslc again");
}

/// Whether `halc diff` can run here: clang++ for the CPU backend, glslc,
/// and a Vulkan driver (lavapipe).
#[cfg(unix)]
fn diff_tools() -> bool {
    let has = |p: &str| {
        Command::new(p)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    };
    let clang = (15..=22).any(|v| has(&format!("clang++-{v}")))
        || std::env::var_os("HALC_CLANG").is_some()
        || has("clang++");
    if !(clang && has_glslc()) {
        assert_ne!(
            std::env::var("HALC_REQUIRE_CLANG").as_deref(),
            Ok("1"),
            "HALC_REQUIRE_CLANG=1 but clang++ or glslc is missing"
        );
        println!("skipped: halc diff needs clang++ >= 15 and glslc");
        return false;
    }
    if vulkan_reference::Reference::new(&Default::default()).is_err() {
        assert_ne!(
            std::env::var("HALC_REQUIRE_VULKAN").as_deref(),
            Ok("1"),
            "HALC_REQUIRE_VULKAN=1 but no Vulkan driver (lavapipe) is available"
        );
        println!("skipped: no Vulkan driver (apt-get install mesa-vulkan-drivers libvulkan1)");
        return false;
    }
    true
}

/// A kernel that stays in bounds only with the values given by name: every
/// index is offset by `(n - 64) * 4096` and `(rows - 16) * 4096`, and sent
/// past every buffer unless `k`, `scale`, `v` and `cols[1]` are exactly
/// what the tests give. Random values (or a wrong one) make a run
/// INCONCLUSIVE; the right ones, at the right offsets, AGREE.
#[cfg(unix)]
const NAMED: &str = "#version 450\nlayout(local_size_x = 64) in;\n\
    layout(push_constant) uniform P { uint n; int k; float scale; vec4 v; mat2 m; } p;\n\
    layout(set = 0, binding = 0) readonly buffer D { float data[]; };\n\
    layout(set = 0, binding = 1) writeonly buffer O { float o[]; };\n\
    layout(set = 0, binding = 2) uniform U { uint rows; uint cols[2]; } u;\n\
    void main() {\n\
      uint i = gl_GlobalInvocationID.x;\n\
      bool others = p.k == -3 && p.scale == 2.5 && p.v == vec4(1, 2, 3, 4)\n\
        && p.m[1] == vec2(7, 8) && u.cols[1] == 7u;\n\
      uint j = i + (p.n - 64u) * 4096u + (u.rows - 16u) * 4096u + (others ? 0u : 1u << 24);\n\
      o[i] = data[j] * p.scale + p.m[0][1];\n\
    }\n";

/// The values [`NAMED`] needs, by name.
#[cfg(unix)]
const RIGHT: &[&str] = &[
    "--push",
    "n=64",
    "--push",
    "k=-3",
    "--push",
    "scale=2.5",
    "--push",
    "v=1,2,3,4",
    "--push",
    "m=5,6,7,8",
    "--uniform",
    "0.2:rows=16",
    "--uniform",
    "0.2:cols[1]=7",
];

#[cfg(unix)]
fn diff(dir: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let mut all = vec!["diff", "named.comp", "--seeds", "2"];
    all.extend_from_slice(args);
    let o = Command::new(env!("CARGO_BIN_EXE_halc"))
        .args(&all)
        .current_dir(dir)
        .env(
            "HALC_CPU_CACHE",
            std::env::temp_dir().join("halc-cpu-test-cache"),
        )
        .output()
        .unwrap();
    (o.status.code(), stdout(&o), stderr(&o))
}

/// `halc diff named.comp --push n=64 …`: GLSL straight to the differential
/// run, and the push constants and uniform members written by name at
/// their reflected offsets (a uint, an int, a float, a vec4 at byte 16, a
/// mat2 by columns, a uniform array element). With the right values both
/// seeds agree; one wrong value (n=63, rows=17, k=3) sends the kernel out
/// of bounds (INCONCLUSIVE), as random values do. Before, `--push` took
/// only a file and `--uniform` did not exist.
#[cfg(unix)]
#[test]
fn diff_takes_glsl_and_block_members_by_name() {
    if !diff_tools() {
        return;
    }
    let t = tmp();
    let dir = t.path();
    std::fs::write(dir.join("named.comp"), NAMED).unwrap();
    let (code, out, err) = diff(dir, RIGHT);
    assert_eq!(code, Some(0), "{out}{err}");
    assert_eq!(
        out.matches("AGREE named.comp seed ").count(),
        2,
        "{out}{err}"
    );
    // Negative controls: one value off, or not given (random).
    for (from, to) in [
        ("n=64", "n=63"),
        ("0.2:rows=16", "0.2:rows=17"),
        ("k=-3", "k=3"),
        ("m=5,6,7,8", "m=5,6,7,9"),
        ("0.2:cols[1]=7", "0.2:cols[0]=7"),
    ] {
        let args: Vec<&str> = RIGHT
            .iter()
            .map(|a| if *a == from { to } else { a })
            .collect();
        let (code, out, err) = diff(dir, &args);
        assert_eq!(code, Some(0), "{to}: {out}{err}");
        assert_eq!(
            out.matches("INCONCLUSIVE named.comp seed ").count(),
            2,
            "{to}: {out}{err}"
        );
    }
    let (code, out, err) = diff(dir, &RIGHT[2..]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert_eq!(
        out.matches("INCONCLUSIVE ").count(),
        2,
        "n random: {out}{err}"
    );
}

/// The binary files are kept: `--push FILE` is the whole block, named
/// members are written over it, and `--buffer 0.2=FILE` is the uniform
/// block's bytes under its named members.
#[cfg(unix)]
#[test]
fn diff_named_members_go_over_the_given_files() {
    if !diff_tools() {
        return;
    }
    let t = tmp();
    let dir = t.path();
    std::fs::write(dir.join("named.comp"), NAMED).unwrap();
    // The block as the application pushes it: n, k, scale, pad, v, m.
    let mut push = Vec::new();
    push.extend(64u32.to_le_bytes());
    push.extend((-3i32).to_le_bytes());
    push.extend(2.5f32.to_le_bytes());
    push.extend(0u32.to_le_bytes());
    for f in [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0] {
        push.extend(f.to_le_bytes());
    }
    std::fs::write(dir.join("push.bin"), &push).unwrap();
    // rows, pad (std140: the array starts at 16), cols[0], pad, cols[1], pad.
    let mut uniform = vec![0u8; 48];
    uniform[..4].copy_from_slice(&16u32.to_le_bytes());
    uniform[32..36].copy_from_slice(&7u32.to_le_bytes());
    std::fs::write(dir.join("u.bin"), &uniform).unwrap();
    let files = ["--push", "push.bin", "--buffer", "0.2=u.bin"];
    let (code, out, err) = diff(dir, &files);
    assert_eq!(code, Some(0), "{out}{err}");
    assert_eq!(out.matches("AGREE ").count(), 2, "{out}{err}");
    // A named value over each file changes the outcome.
    for over in [["--push", "n=65"], ["--uniform", "0.2:rows=15"]] {
        let (code, out, err) = diff(dir, &[&files[..], &over[..]].concat());
        assert_eq!(code, Some(0), "{over:?}: {out}{err}");
        assert_eq!(
            out.matches("INCONCLUSIVE ").count(),
            2,
            "{over:?}: {out}{err}"
        );
    }
    // Two push files are one too many.
    let (code, _, err) = diff(dir, &["--push", "push.bin", "--push", "push.bin"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.starts_with("error: --push: two files"), "{err}");
}

/// A value that does not fit its member, or a member that is not there, is
/// one line naming the member and listing the block's members; a wrong
/// binding names the uniform blocks there are.
#[cfg(unix)]
#[test]
fn diff_named_value_errors_name_the_member_and_list_the_members() {
    if !diff_tools() {
        return;
    }
    let t = tmp();
    let dir = t.path();
    std::fs::write(dir.join("named.comp"), NAMED).unwrap();
    let members = "the block has n: uint32, k: int32, scale: float32, v: vec4<float32>, \
                   m: mat2x2<float32, column-major, stride 8>";
    for (args, want) in [
        (
            ["--push", "n=1.5"],
            format!("push constant `n` is uint32; `1.5` is not an unsigned integer in the range of uint32 ({members})"),
        ),
        (
            ["--push", "count=4"],
            format!("push constant `count`: no member `count`; {members}"),
        ),
        (
            ["--push", "v=1,2"],
            format!("push constant `v` is vec4<float32> (4 scalars); `1,2` gives 2 ({members})"),
        ),
        (
            ["--push", "k=2147483648"],
            format!("push constant `k` is int32; `2147483648` is not an integer in the range of int32 ({members})"),
        ),
        (
            ["--uniform", "0.2:rows=-1"],
            "(set 0, binding 2) uniform `rows` is uint32; `-1` is not an unsigned integer in the range of uint32 (the block has rows: uint32, cols: array<uint32, 2, stride 16>)".into(),
        ),
        (
            ["--uniform", "0.2:cols[2]=1"],
            "(set 0, binding 2) uniform `cols[2]`: index 2 is out of bounds: the array has 2 elements".into(),
        ),
        (
            ["--uniform", "0.1:rows=1"],
            "`0.1:rows`: (set 0, binding 1) of kernel `named` is a storage buffer, not a uniform block (give its contents with --buffer 0.1=FILE); its uniform blocks are 0.2".into(),
        ),
        (
            ["--uniform", "1.0:rows=1"],
            "`1.0:rows`: kernel `named` binds nothing at (set 1, binding 0); its uniform blocks are 0.2".into(),
        ),
    ] {
        let (code, out, err) = diff(dir, &args);
        assert_eq!(code, Some(1), "{args:?}: {out}{err}");
        assert_eq!(err, format!("error: named.comp: {want}\n"), "{args:?}");
    }
    // A kernel without push constants.
    std::fs::copy(crate::kernel("saxpy.spv"), dir.join("saxpy.spv")).unwrap();
    let o = halc(&["diff", "saxpy.spv", "--push", "n=1"], dir);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).ends_with(
            "push constant `n` was given, but kernel `saxpy` has no push-constant block\n"
        ),
        "{}",
        stderr(&o)
    );
    // Usage errors: exit 2.
    let (code, _, err) = diff(dir, &["--uniform", "0.2rows=1"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("expected SET.BINDING:NAME=VALUE"), "{err}");
}

/// A glslc that counts its compiles (not its `--version` runs) in
/// `dir/runs`, read by [`glslc_runs`].
#[cfg(unix)]
pub(crate) fn counting_glslc(dir: &Path) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let wrapper = dir.join("glslc-counting");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\n[ \"$1\" = --version ] || echo run >> {}\nexec glslc \"$@\"\n",
            dir.join("runs").display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    wrapper
}

/// How many times [`counting_glslc`] in `dir` compiled.
pub(crate) fn glslc_runs(dir: &Path) -> usize {
    std::fs::read_to_string(dir.join("runs"))
        .unwrap_or_default()
        .lines()
        .count()
}
