//! The compile pipeline's caching: the precompiled shim, the link
//! template, the per-kernel lock. They need clang++ ≥ 15: without it
//! they print why and pass, unless `HALC_REQUIRE_CLANG=1`.

use std::ffi::c_void;
use std::path::PathBuf;
use std::process::Command;

use super::clang::{find_clang, Clang};
use super::compile::*;
use super::confine::{confine, Limits};
use super::library::Library;
use crate::cpu::{CpuError, LocalFill};

fn clang() -> Option<Clang> {
    match find_clang() {
        Ok(c) => Some(c),
        Err(e) if std::env::var("HALC_REQUIRE_CLANG").as_deref() != Ok("1") => {
            println!("skipped: {e}");
            None
        }
        Err(e) => panic!("{e}"),
    }
}

/// A fresh cache directory.
fn cache(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("halc-cxx-{name}-{}", unique_suffix()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn compiler(name: &str) -> Option<Compiler> {
    Some(Compiler {
        clang: clang()?,
        cache_dir: cache(name),
        limits: Some(Limits::DEFAULT),
        local_fill: LocalFill::Unset,
        strict_float: false,
        race_check: false,
    })
}

/// The shim with `#define HALC_TEST_MARK mark` at the end of
/// `metal_stdlib`.
fn marked_shim(mark: u32) -> Vec<(&'static str, String)> {
    SHIM_FILES
        .iter()
        .map(|(p, t)| match *p {
            "metal_stdlib" => (*p, format!("{t}\n#define HALC_TEST_MARK {mark}\n")),
            _ => (*p, t.to_string()),
        })
        .collect()
}

fn borrowed<'a>(files: &'a [(&'static str, String)]) -> Vec<(&'static str, &'a str)> {
    files.iter().map(|(p, t)| (*p, t.as_str())).collect()
}

/// Whether `source` compiles (`-fsyntax-only`) against `shim`'s header.
fn compiles_with(c: &Compiler, flags: &[&str], shim: &Shim, source: &str) -> bool {
    let src = c.cache_dir.join(format!("probe-{}.cpp", unique_suffix()));
    std::fs::write(&src, source).unwrap();
    let out = Command::new(&c.clang.path)
        .args(flags)
        .arg("-fsyntax-only")
        .arg("-include-pch")
        .arg(shim.pch.as_ref().unwrap())
        .arg("-I")
        .arg(&shim.dir)
        .arg(&src)
        .output()
        .unwrap();
    out.status.success()
}

#[test]
fn a_changed_shim_or_flag_gets_a_new_precompiled_header_never_a_stale_one() {
    let Some(c) = compiler("pch") else { return };
    let flags = c.flags();
    let (v1, v2) = (marked_shim(1), marked_shim(2));
    let first = prepare_shim(&c.clang, &c.cache_dir, &flags, &borrowed(&v1)).unwrap();
    let p1 = first.pch.clone().expect("the shim precompiles");
    assert!(first.built);
    let built_at = std::fs::metadata(&p1).unwrap().modified().unwrap();

    // Negative control: the same clang, flags and shim reuse the header.
    let again = prepare_shim(&c.clang, &c.cache_dir, &flags, &borrowed(&v1)).unwrap();
    assert!(!again.built, "nothing changed, nothing is rebuilt");
    assert_eq!(again.pch.as_ref(), Some(&p1));
    assert_eq!(
        std::fs::metadata(&p1).unwrap().modified().unwrap(),
        built_at
    );

    // Another shim: a header of its own, which has the new content.
    let second = prepare_shim(&c.clang, &c.cache_dir, &flags, &borrowed(&v2)).unwrap();
    assert!(second.built);
    let p2 = second.pch.clone().unwrap();
    assert_ne!(p1, p2);
    let wants_2 = "static_assert(HALC_TEST_MARK == 2, \"stale\");\n";
    assert!(compiles_with(&c, &flags, &second, wants_2));
    // The check can fail: the first header holds mark 1.
    assert!(!compiles_with(&c, &flags, &first, wants_2));

    // Another flag: a header of its own too.
    let mut more = flags.clone();
    more.push("-DHALC_TEST_FLAG=1");
    let third = prepare_shim(&c.clang, &c.cache_dir, &more, &borrowed(&v2)).unwrap();
    assert!(third.built);
    let p3 = third.pch.clone().unwrap();
    assert!(p3 != p1 && p3 != p2);
    assert!(compiles_with(
        &c,
        &more,
        &third,
        "static_assert(HALC_TEST_FLAG == 1, \"\");\n"
    ));
    let _ = std::fs::remove_dir_all(&c.cache_dir);
}

const KERNEL: &str = "#include <metal_stdlib>\nusing namespace metal;\n\
    extern \"C\" __attribute__((visibility(\"default\"))) float k(float x) \
    { return metal::atan2(x, 2.0f) + float(half(x)); }\n";

#[test]
fn a_corrupt_precompiled_header_or_link_template_is_not_fatal() {
    let Some(c) = compiler("fallback") else {
        return;
    };
    assert!(!c.compile("test", KERNEL).unwrap().cached);
    let shim = prepare_shim(&c.clang, &c.cache_dir, &c.flags(), SHIM_FILES).unwrap();
    std::fs::write(shim.pch.as_ref().unwrap(), b"not a precompiled header").unwrap();
    let template = c.link_template_path();
    assert!(template.exists(), "the first link kept its command");
    std::fs::write(&template, "/nonexistent/ld\n{out}\n{in}").unwrap();

    let other = format!("{KERNEL}// another kernel\n");
    let compiled = c.compile("test", &other).unwrap();
    assert!(!compiled.cached);
    let lib = Library::open(&compiled.path).unwrap();
    // SAFETY: `k` is defined above with this signature.
    let k = unsafe {
        std::mem::transmute::<*mut c_void, extern "C" fn(f32) -> f32>(lib.symbol("k").unwrap())
    };
    assert_eq!(k(2.0), std::f32::consts::FRAC_PI_4 + 2.0);
    let text = std::fs::read_to_string(&template).unwrap();
    assert!(
        !text.starts_with("/nonexistent"),
        "the template is asked for again: {text}"
    );
    let _ = std::fs::remove_dir_all(&c.cache_dir);
}

#[test]
fn a_kernel_needing_an_undefined_symbol_fails_to_compile_naming_it() {
    let Some(c) = compiler("undefined") else {
        return;
    };
    let src = "extern \"C\" void halc_no_such_function();\n\
        extern \"C\" __attribute__((visibility(\"default\"))) void k() { halc_no_such_function(); }\n";
    match c.compile("test", src) {
        Err(CpuError::Compile { stderr, .. }) => {
            assert!(stderr.contains("halc_no_such_function"), "{stderr}")
        }
        other => panic!("{other:?}"),
    }
    let _ = std::fs::remove_dir_all(&c.cache_dir);
}

#[test]
fn concurrent_compiles_of_one_kernel_run_clang_once() {
    let Some(c) = compiler("lock") else { return };
    let src = format!("{KERNEL}// {}\n", unique_suffix());
    let results: Vec<Compiled> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..2)
            .map(|_| s.spawn(|| c.compile("test", &src).unwrap()))
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(results[0].path, results[1].path);
    assert_eq!(
        results.iter().filter(|r| !r.cached).count(),
        1,
        "{results:?}"
    );
    let _ = std::fs::remove_dir_all(&c.cache_dir);
}

#[test]
fn clang_job_lines_are_unquoted() {
    let text =
        "clang version 19\nInstalledDir: /x\n \"/usr/bin/ld\" \"-o\" \"a \\\"b\\\\c\" \"x.o\"\n";
    assert_eq!(
        parse_jobs(text).unwrap(),
        ["/usr/bin/ld", "-o", "a \"b\\c", "x.o"]
    );
    assert_eq!(parse_jobs("no jobs\n"), None);
    assert_eq!(parse_jobs(" \"a\"\n \"b\"\n"), None, "two jobs");
}

/// A limit of the compile bites: clang++ cannot compile in 64 MiB of
/// address space, and the compile fails with an error (the caller goes
/// on); the same kernel compiles under the default limits (the control).
#[test]
fn a_compile_over_its_address_space_limit_fails_with_an_error() {
    let Some(mut c) = compiler("limit") else {
        return;
    };
    let src = format!("{KERNEL}// {}\n", unique_suffix());
    c.limits = Some(Limits {
        address_space: 64 << 20,
        ..Limits::DEFAULT
    });
    let e = c.compile("test", &src).unwrap_err();
    let text = e.to_string();
    assert!(
        matches!(e, CpuError::Compile { .. })
            && text.contains("it runs under limits (address space 64 MiB"),
        "{text}"
    );
    c.limits = Some(Limits::DEFAULT);
    let ok = c.compile("test", &src).unwrap();
    assert!(!ok.cached);
    let _ = std::fs::remove_dir_all(&c.cache_dir);
}

/// Under the compile's seccomp filter a process cannot open a network
/// socket (bash's `/dev/tcp`: "Operation not permitted"); without it (the
/// control) the same command gets as far as the connection.
#[cfg(target_os = "linux")]
#[test]
fn a_confined_compile_cannot_open_a_socket() {
    let run = |limits| {
        let mut c = Command::new("bash");
        c.args(["-c", "exec 3<>/dev/tcp/127.0.0.1/9"]);
        let out = confine(&mut c, limits).output().unwrap();
        assert!(!out.status.success());
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let confined = run(Some(Limits::DEFAULT));
    assert!(confined.contains("Operation not permitted"), "{confined}");
    let control = run(None);
    assert!(
        !control.contains("Operation not permitted") && control.contains("Connection refused"),
        "{control}"
    );
}

/// What confining clang++ and the linker costs a cold compile: interleaved
/// rounds of a kernel not in the cache, confined and not; medians printed
/// (a measurement, not a check; run with `--ignored --nocapture`).
#[test]
#[ignore]
fn confinement_cost_per_compile() {
    let Some(mut c) = compiler("cost") else {
        return;
    };
    c.compile("test", KERNEL).unwrap();
    let mut times = [Vec::new(), Vec::new()];
    for round in 0..30 {
        for k in [round % 2, 1 - round % 2] {
            c.limits = [None, Some(Limits::DEFAULT)][k];
            let src = format!("{KERNEL}// {}\n", unique_suffix());
            let start = std::time::Instant::now();
            assert!(!c.compile("test", &src).unwrap().cached);
            times[k].push(start.elapsed().as_secs_f64());
        }
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let (off, on) = (median(&mut times[0]), median(&mut times[1]));
    println!(
        "cold compile + link, 30 interleaved rounds: unconfined {:.1} ms, confined {:.1} ms = {:.3}x",
        off * 1e3,
        on * 1e3,
        on / off
    );
    let _ = std::fs::remove_dir_all(&c.cache_dir);
}
