//! Parallel batches (issue 14): any number of jobs gives the serial run's
//! bytes and the serial run's error.

use std::path::PathBuf;
use std::process::Command;

use crate::{compute_fixtures, input, kernel, root};

/// Every fixture as an input, with the second module that has entry points
/// `main_a`/`main_b` renamed so that all kernel names are unique.
fn all_fixture_inputs() -> Vec<halc::Input> {
    compute_fixtures()
        .iter()
        .map(|p| {
            let i = input(p);
            if p.ends_with("two_entry_points_builtin.spv") {
                i.rename("main_a", "builtin_a")
                    .rename("main_b", "builtin_b")
            } else {
                i
            }
        })
        .collect()
}

fn subprocess() -> halc::Isolation {
    halc::Isolation::Subprocess {
        program: PathBuf::from(env!("CARGO_BIN_EXE_halc")),
        time_limit: halc::DEFAULT_TIME_LIMIT,
    }
}

fn with(jobs: usize, isolation: halc::Isolation, model: halc::msl::BindingModel) -> halc::Options {
    halc::Options {
        jobs,
        isolation,
        ..crate::options_for(model)
    }
}

#[test]
fn parallel_output_is_byte_identical_to_serial_over_the_fixtures() {
    let inputs = all_fixture_inputs();
    assert!(inputs.len() > 20, "{} fixtures", inputs.len());
    for model in [
        halc::msl::BindingModel::ArgumentBuffers,
        halc::msl::BindingModel::Discrete,
    ] {
        let serial = halc::compile(&inputs, &with(1, halc::Isolation::InProcess, model)).unwrap();
        assert_eq!(serial.timings.jobs, 1);
        let serial_bytes = serial.to_flatbuffer();
        for (jobs, isolation) in [
            (1, subprocess()),
            (2, halc::Isolation::InProcess),
            (3, subprocess()),
            (8, subprocess()),
        ] {
            let c = halc::compile(&inputs, &with(jobs, isolation.clone(), model)).unwrap();
            assert_eq!(c.timings.jobs, jobs, "jobs used");
            assert_eq!(c.timings.modules.len(), inputs.len());
            assert!(
                c.to_flatbuffer() == serial_bytes,
                "{model:?}, {jobs} jobs, {isolation:?}: output differs from the serial run"
            );
        }
    }
}

/// A batch with bad modules at known positions.
fn batch_with_errors(first_bad: usize, second_bad: usize) -> Vec<halc::Input> {
    let mut inputs: Vec<halc::Input> = all_fixture_inputs();
    let bad = |name: &str| {
        let p = root().join("fixtures/invalid").join(name);
        halc::Input::new(
            format!("fixtures/invalid/{name}"),
            std::fs::read(p).unwrap(),
        )
    };
    inputs.insert(first_bad, bad("float64.spv"));
    inputs.insert(second_bad, bad("truncated_body.spv"));
    inputs
}

#[test]
fn parallel_runs_report_the_first_error_in_input_order() {
    for (first, second, expected) in [
        (3, 15, "fixtures/invalid/float64.spv: "),
        (15, 3, "fixtures/invalid/truncated_body.spv: "),
        (0, 1, "fixtures/invalid/float64.spv: "),
    ] {
        let inputs = batch_with_errors(first, second);
        let serial = halc::compile(
            &inputs,
            &with(
                1,
                halc::Isolation::InProcess,
                halc::msl::BindingModel::ArgumentBuffers,
            ),
        )
        .unwrap_err()
        .to_string();
        assert!(serial.starts_with(expected), "{serial}");
        // One job with a worker sends each module to the validator while
        // the worker still generates the one before (`run_jobs`).
        for jobs in [1, 2, 4, 8] {
            for isolation in [halc::Isolation::InProcess, subprocess()] {
                // Several runs: the jobs finish in a different order each time.
                for _ in 0..3 {
                    let e = halc::compile(
                        &inputs,
                        &with(
                            jobs,
                            isolation.clone(),
                            halc::msl::BindingModel::ArgumentBuffers,
                        ),
                    )
                    .unwrap_err()
                    .to_string();
                    assert_eq!(e, serial, "{jobs} jobs, {isolation:?}");
                }
            }
        }
    }
}

#[test]
fn a_duplicate_name_before_a_failing_module_is_the_error_in_parallel_too() {
    // Input 1 repeats input 0's kernel name; input 2 is invalid. A serial
    // run meets the duplicate first.
    let saxpy = input(&kernel("saxpy.spv"));
    let bad = halc::Input::new(
        "fixtures/invalid/float64.spv",
        std::fs::read(root().join("fixtures/invalid/float64.spv")).unwrap(),
    );
    let inputs = vec![saxpy.clone(), saxpy, bad];
    for jobs in [1, 3] {
        let e = halc::compile(
            &inputs,
            &with(
                jobs,
                halc::Isolation::InProcess,
                halc::msl::BindingModel::ArgumentBuffers,
            ),
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("kernel name `saxpy` is already taken"),
            "{jobs} jobs: {e}"
        );
    }
}

#[test]
fn progress_is_reported_once_per_input() {
    let inputs = all_fixture_inputs();
    let seen = std::sync::Mutex::new(Vec::new());
    halc::compile_observed(
        &inputs,
        &with(
            3,
            halc::Isolation::InProcess,
            halc::msl::BindingModel::ArgumentBuffers,
        ),
        &|p| {
            assert_eq!(p.total, inputs.len());
            seen.lock().unwrap().push((p.done, p.input.to_string()));
        },
    )
    .unwrap();
    let mut seen = seen.into_inner().unwrap();
    seen.sort();
    let done: Vec<usize> = seen.iter().map(|s| s.0).collect();
    assert_eq!(done, (1..=inputs.len()).collect::<Vec<_>>());
    let mut names: Vec<String> = seen.into_iter().map(|s| s.1).collect();
    names.sort();
    let mut want: Vec<String> = inputs.iter().map(|i| i.name.clone()).collect();
    want.sort();
    assert_eq!(names, want);
}

fn halc_cli(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_halc"))
        .args(args)
        .output()
        .expect("run halc")
}

/// `halc ARGS` with the environment variable `var` set to `value`, or unset.
fn halc_with(var: &str, value: Option<&str>, args: &[&str]) -> std::process::Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_halc"));
    cmd.args(args).env_remove(var);
    if let Some(v) = value {
        cmd.env(var, v);
    }
    cmd.output().expect("run halc")
}

/// The fixtures' paths, without the module whose kernel names repeat another's.
fn fixture_files() -> Vec<String> {
    compute_fixtures()
        .iter()
        .filter(|p| !p.ends_with("two_entry_points_builtin.spv"))
        // Warns (on stderr) that it fixes four SpecIds under a signed `%`.
        .filter(|p| !p.ends_with("spec_smod_array.spv"))
        .map(|p| p.display().to_string())
        .collect()
}

#[test]
fn cli_jobs_give_the_same_file_and_timings_add_up() {
    let d = tempfile::tempdir().unwrap();
    let files = fixture_files();
    let mut outputs = Vec::new();
    for jobs in ["1", "2", "5"] {
        let out = d.path().join(format!("j{jobs}.halc"));
        let mut args: Vec<&str> = vec!["compile", "-j", jobs, "--timings", "-o"];
        let out_s = out.display().to_string();
        args.push(&out_s);
        args.extend(files.iter().map(String::as_str));
        let o = halc_cli(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        // Not a terminal: no progress bar, nothing on stderr.
        assert!(
            o.stderr.is_empty(),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        let table = String::from_utf8(o.stdout).unwrap();
        let rows = table
            .lines()
            .filter(|l| l.starts_with("saxpy ") || l.starts_with("add_one "))
            .count();
        assert_eq!(rows, 2, "{table}");
        assert!(table.contains("total "), "{table}");
        assert!(
            table.contains(&format!(
                "{} kernels from {} modules on {jobs} jobs",
                files.len() + 1,
                files.len()
            )),
            "{table}"
        );
        assert!(table.contains("of SPIRV-Cross"), "{table}");
        // The kernel's counts for halc and its reaped workers: both ran, so
        // both faulted pages in.
        let faults: Vec<u64> = table
            .split_once("page faults: halc ")
            .and_then(|(_, rest)| {
                let (own, rest) = rest.split_once(", workers ")?;
                let workers = rest.split_whitespace().next()?;
                Some(vec![own.parse().ok()?, workers.parse().ok()?])
            })
            .unwrap_or_default();
        assert!(
            faults.len() == 2 && faults.iter().all(|n| *n > 0),
            "{table}"
        );
        outputs.push(std::fs::read(&out).unwrap());
    }
    assert!(outputs.windows(2).all(|w| w[0] == w[1]));
    // Without --timings nothing is printed.
    let out = d.path().join("quiet.halc");
    let o = halc_cli(&["compile", "--quiet", &files[0], "-o", out.to_str().unwrap()]);
    assert!(o.status.success());
    assert!(o.stdout.is_empty() && o.stderr.is_empty());
    // -j 0 is a usage error.
    let o = halc_cli(&["compile", "-j", "0", &files[0], "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
}

/// A batch's forked workers give SPIRV-Cross and SPIRV-Tools mimalloc on
/// Linux (more modules than jobs), a single module's worker glibc's malloc;
/// either way the file is byte for byte the in-process compile's.
#[test]
fn the_workers_allocator_changes_no_byte_of_the_output() {
    let d = tempfile::tempdir().unwrap();
    let files = fixture_files();
    let halc =
        |args: &[&str], env: Option<&str>| halc_with(halc::msl::worker::ALLOCATOR_ENV, env, args);
    let run = |name: &str, extra: &[&str], env: Option<&str>| {
        let out = d.path().join(format!("{name}.halc"));
        let mut args = vec![
            "compile",
            "-j",
            "2",
            "--timings",
            "-o",
            out.to_str().unwrap(),
        ];
        args.extend(extra);
        args.extend(files.iter().map(String::as_str));
        let o = halc(&args, env);
        assert!(
            o.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        (
            std::fs::read(&out).unwrap(),
            String::from_utf8(o.stdout).unwrap(),
        )
    };
    let (reference, table) = run("in-process", &["--in-process"], None);
    assert!(!table.contains("C++ allocator"), "{table}");
    // The default (mimalloc on Linux: more modules than jobs), then each
    // allocator by name.
    let default = if cfg!(target_os = "linux") {
        "mimalloc"
    } else {
        "glibc malloc"
    };
    let mut cases = vec![
        ("default", None, default),
        ("system", Some("system"), "glibc malloc"),
    ];
    if cfg!(target_os = "linux") {
        cases.push(("mimalloc", Some("mimalloc"), "mimalloc"));
    }
    for (name, env, allocator) in cases {
        let (bytes, table) = run(name, &[], env);
        assert!(
            table.contains(&format!("the workers' C++ allocator: {allocator}")),
            "{name}: {table}"
        );
        assert!(
            bytes == reference,
            "{name}: the workers' output differs from --in-process"
        );
    }
    // One module in a forked worker (by default it runs in this process):
    // its one worker keeps glibc's malloc.
    let out = d.path().join("one.halc");
    let out_arg = out.to_str().unwrap();
    let o = halc(
        &[
            "compile",
            "--timings",
            "--worker-start",
            "fork",
            &files[0],
            "-o",
            out_arg,
        ],
        None,
    );
    let table = String::from_utf8(o.stdout).unwrap();
    assert!(
        o.status.success() && table.contains("the workers' C++ allocator: glibc malloc"),
        "{table}"
    );
    // A value it does not know is an error, and the file stays as it was.
    let before = std::fs::read(&out).unwrap();
    let o = halc(
        &[
            "compile",
            "--worker-start",
            "fork",
            &files[0],
            "-o",
            out_arg,
        ],
        Some("jemalloc"),
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("HALC_WORKER_ALLOCATOR must be `system` or `mimalloc`, not `jemalloc`"),
        "{err}"
    );
    assert!(std::fs::read(&out).unwrap() == before);
}

/// Forked workers validate in the worker that then runs SPIRV-Cross, or in
/// one of their own beside it (`HALC_WORKER_VALIDATOR`; by default when
/// every job has a second core): the file is byte for byte the in-process
/// compile's either way, on one job (each module's successor sent ahead) or
/// two, and a batch's error is the in-process one.
#[test]
fn the_validators_place_changes_no_byte_and_no_error() {
    use halc::msl::worker::VALIDATOR_ENV;
    let d = tempfile::tempdir().unwrap();
    let files = fixture_files();
    let halc = |args: &[&str], env: Option<&str>| halc_with(VALIDATOR_ENV, env, args);
    let out = d.path().join("o.halc");
    let out_arg = out.to_str().unwrap();
    let compile = |files: &[String], extra: &[&str], env: Option<&str>| {
        let mut args = vec!["compile", "--timings", "-o", out_arg];
        args.extend(extra);
        args.extend(files.iter().map(String::as_str));
        let _ = std::fs::remove_file(&out);
        let o = halc(&args, env);
        let bytes = std::fs::read(&out).ok();
        (o, bytes)
    };
    let (o, reference) = compile(&files, &["--in-process"], None);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let reference = reference.unwrap();
    let own = "(in a worker of its own, beside SPIRV-Cross)";
    let shared = "(in a worker, beside reflection, before SPIRV-Cross)";
    for jobs in ["1", "2"] {
        for (env, place) in [("shared", shared), ("separate", own)] {
            let (o, bytes) = compile(&files, &["-j", jobs], Some(env));
            let table = String::from_utf8_lossy(&o.stdout);
            assert!(
                o.status.success(),
                "-j {jobs}, {env}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            assert!(table.contains(place), "-j {jobs}, {env}: {table}");
            assert!(
                bytes.unwrap() == reference,
                "-j {jobs}, {env}: output differs from --in-process"
            );
        }
    }
    // Modules that give no kernel (`--entry` names none of theirs) between
    // ones that do: a worker given such a module (SPIRV-Cross parses it as
    // soon as it holds it) must generate the next module's MSL from the
    // next module, not from the parse nobody asked MSL of.
    let some: Vec<String> = ["saxpy.spv", "scale.spv", "add_one.spv", "block_sum.spv"]
        .iter()
        .map(|f| kernel(f).display().to_string())
        .collect();
    let picked = ["--entry", "scale", "--entry", "block_sum"];
    let (o, reference) = compile(&some, &[&["--in-process"][..], &picked[..]].concat(), None);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let reference = reference.unwrap();
    for jobs in ["1", "2"] {
        for env in ["shared", "separate"] {
            let (o, bytes) = compile(&some, &[&["-j", jobs][..], &picked[..]].concat(), Some(env));
            assert!(
                o.status.success(),
                "-j {jobs}, {env}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            assert!(
                bytes.unwrap() == reference,
                "-j {jobs}, {env}, --entry: output differs from --in-process"
            );
        }
    }
    // A batch with two invalid modules: the first one's validation error.
    let mut bad: Vec<String> = ["saxpy.spv", "scale.spv"]
        .iter()
        .map(|f| kernel(f).display().to_string())
        .collect();
    for f in ["random_after_header.spv", "small_id_bound.spv"] {
        bad.insert(
            2,
            root()
                .join("fixtures/invalid")
                .join(f)
                .display()
                .to_string(),
        );
    }
    let (o, bytes) = compile(&bad, &["--in-process"], None);
    let expected = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(
        expected.contains("invalid SPIR-V") && bytes.is_none(),
        "{expected}"
    );
    for jobs in ["1", "2"] {
        for env in ["shared", "separate"] {
            let (o, bytes) = compile(&bad, &["-j", jobs], Some(env));
            assert_eq!(o.status.code(), Some(1));
            assert_eq!(
                String::from_utf8_lossy(&o.stderr),
                expected,
                "-j {jobs}, {env}"
            );
            assert!(bytes.is_none());
        }
    }
    // The default: a validator of its own for one module only when a second
    // core is idle (which other tests running beside this one make a matter
    // of chance: `a_busy_machine_keeps_one_worker_per_module` has the busy
    // case); none when the jobs fill the cores.
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let (o, _) = compile(&files, &["-j", &cores.to_string()], None);
    let table = String::from_utf8_lossy(&o.stdout);
    assert!(table.contains(shared), "{cores} cores: {table}");
    // A value it does not know is an error (one module in a forked worker:
    // by default it runs in this process, where the variable means nothing).
    let (o, bytes) = compile(&files[..1], &["--worker-start", "fork"], Some("both"));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("HALC_WORKER_VALIDATOR must be `separate` or `shared`, not `both`"),
        "{err}"
    );
    assert!(bytes.is_none());
}

/// One module's validator gets a worker of its own only if a second core
/// is idle: with a thread of this test spinning on every CPU, as when a
/// build runs one halc per kernel on every core, it stays in the worker
/// that runs SPIRV-Cross, and the file is the same.
#[cfg(target_os = "linux")]
#[test]
fn a_busy_machine_keeps_one_worker_per_module() {
    use std::sync::atomic::{AtomicBool, Ordering};
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("o.halc");
    let saxpy = kernel("saxpy.spv").display().to_string();
    // Forked workers (one module runs in this process by default).
    let args = [
        "compile",
        "--timings",
        "--worker-start",
        "fork",
        &saxpy,
        "-o",
        out.to_str().unwrap(),
    ];
    let o = halc_with(halc::msl::worker::VALIDATOR_ENV, Some("separate"), &args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let reference = std::fs::read(&out).unwrap();
    // Every CPU Linux has online, not only those this process may use: halc
    // counts runnable tasks machine-wide, so a thread on each makes every
    // core it may use busy, whatever that count.
    // SAFETY: sysconf only reads the system's configuration.
    let online = usize::try_from(unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) }).unwrap();
    let stop = AtomicBool::new(false);
    let o = std::thread::scope(|s| {
        for _ in 0..online {
            s.spawn(|| {
                while !stop.load(Ordering::Relaxed) {
                    std::hint::spin_loop();
                }
            });
        }
        let o = halc_with(halc::msl::worker::VALIDATOR_ENV, None, &args);
        stop.store(true, Ordering::Relaxed);
        o
    });
    let table = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        table.contains("(in a worker, beside reflection, before SPIRV-Cross)"),
        "{online} CPUs busy: {table}"
    );
    assert!(std::fs::read(&out).unwrap() == reference);
}

#[test]
fn a_worker_crash_in_a_parallel_batch_names_the_first_module() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("o.halc");
    let files = ["saxpy.spv", "scale.spv", "add_one.spv", "block_sum.spv"]
        .map(|f| kernel(f).display().to_string());
    // With one job, the second module is already queued for validation
    // behind the first one's MSL when the worker crashes on that MSL.
    for (jobs, validator) in [
        ("1", "shared"),
        ("1", "separate"),
        ("3", "shared"),
        ("3", "separate"),
    ] {
        let mut args = vec!["compile", "-j", jobs, "-o", out.to_str().unwrap()];
        args.extend(files.iter().map(String::as_str));
        let o = Command::new(env!("CARGO_BIN_EXE_halc"))
            .args(&args)
            .env(halc::msl::worker::CRASH_TEST_ENV, "segv")
            .env(halc::msl::worker::VALIDATOR_ENV, validator)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "-j {jobs}, {validator}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(
            err.starts_with(&format!(
                "error: {}: entry point `main`: SPIRV-Cross crashed (signal 11 SIGSEGV)",
                files[0]
            )),
            "-j {jobs}, {validator}: {err}"
        );
        assert!(!out.exists());
    }
}

/// The words of a fixture, and the layout and options of its entry point
/// `main`, as the driver sends them to a worker.
fn request(
    path: &std::path::Path,
) -> (
    halc::spirv::Words,
    halc::msl::KernelLayout,
    halc::msl::MslOptions,
) {
    let words = halc::spirv::Words::from_bytes(&std::fs::read(path).unwrap()).unwrap();
    let info = halc::spirv::reflect::reflect(&words).unwrap();
    let entry = info.entry_points.iter().find(|e| e.name == "main").unwrap();
    let layout = halc::msl::layout(entry, &halc::msl::LayoutOptions::default()).unwrap();
    let options = halc::msl::MslOptions {
        version: halc::msl::MslVersion { major: 3, minor: 0 },
        platform: halc::msl::Platform::default(),
        tier: halc::msl::Tier::default(),
    };
    (words, layout, options)
}

#[test]
fn a_worker_answers_a_module_sent_ahead_after_the_msl_it_owes_before_it() {
    use halc::msl::worker::Worker;
    let program = PathBuf::from(env!("CARGO_BIN_EXE_halc"));
    let mut w = Worker::spawn(&program, halc::DEFAULT_TIME_LIMIT).unwrap();
    let (saxpy, saxpy_layout, options) = request(&kernel("saxpy.spv"));
    let (scale, scale_layout, _) = request(&kernel("scale.spv"));
    let invalid = halc::spirv::Words::from_bytes(
        &std::fs::read(root().join("fixtures/invalid/small_id_bound.spv")).unwrap(),
    )
    .unwrap();
    assert!(w.has_room_for(&saxpy) && w.has_room_for(&invalid));

    // saxpy, its MSL asked for; scale sent ahead before that MSL is read;
    // then the invalid module, with an MSL request the worker refuses.
    w.start_validation(&saxpy).unwrap();
    w.send_generate("main", &saxpy_layout, &options);
    assert!(w.verdict().unwrap().is_ok());
    w.start_validation(&scale).unwrap();
    let first = w.generated().unwrap();
    assert!(first.source.contains("kernel void"), "{}", first.source);
    assert!(w.verdict().unwrap().is_ok());
    w.send_generate("main", &scale_layout, &options);
    w.start_validation(&invalid).unwrap();
    w.send_generate("main", &scale_layout, &options);
    let second = w.generated().unwrap();
    assert_ne!(first.source, second.source);
    // Each MSL is the one a worker given that module alone produces.
    for (words, layout, msl) in [
        (&saxpy, &saxpy_layout, &first),
        (&scale, &scale_layout, &second),
    ] {
        let mut alone = Worker::spawn(&program, halc::DEFAULT_TIME_LIMIT).unwrap();
        alone.start_validation(words).unwrap();
        alone.send_generate("main", layout, &options);
        assert_eq!(alone.generated().unwrap(), *msl);
    }
    let e = w.verdict().unwrap().unwrap_err().to_string();
    assert!(e.contains("must be less than the ID bound"), "{e}");
    // The refused MSL request was read and dropped with the verdict.
    assert!(w.generated().is_err());
    // The worker goes on with the next module.
    w.start_validation(&saxpy).unwrap();
    w.send_generate("main", &saxpy_layout, &options);
    assert_eq!(w.generated().unwrap(), first);
}

/// A worker beside a validator of its own holds each module unvalidated
/// and runs SPIRV-Cross on it at once: its MSL is a lone worker's, modules
/// sent ahead keep their order, the verdict is the validator's, and on an
/// invalid module the worker is killed (it may be looping on it) and takes
/// nothing more.
#[test]
fn a_worker_beside_a_validator_gives_the_same_msl_and_dies_with_an_invalid_module() {
    use halc::msl::worker::Worker;
    let program = PathBuf::from(env!("CARGO_BIN_EXE_halc"));
    let spawn = || Worker::spawn(&program, halc::DEFAULT_TIME_LIMIT).unwrap();
    let mut w = spawn().with_validator(spawn());
    assert!(w.has_validator());
    let (saxpy, saxpy_layout, options) = request(&kernel("saxpy.spv"));
    let (scale, scale_layout, _) = request(&kernel("scale.spv"));
    let invalid = halc::spirv::Words::from_bytes(
        &std::fs::read(root().join("fixtures/invalid/small_id_bound.spv")).unwrap(),
    )
    .unwrap();
    let alone = |words, layout| {
        let mut alone = spawn();
        alone.start_validation(words).unwrap();
        alone.send_generate("main", layout, &options);
        alone.generated().unwrap()
    };
    // saxpy, then scale sent ahead before saxpy's MSL is read.
    assert!(w.has_room_for(&saxpy));
    w.start_validation(&saxpy).unwrap();
    w.send_generate("main", &saxpy_layout, &options);
    assert!(w.verdict().unwrap().is_ok());
    w.start_validation(&scale).unwrap();
    assert_eq!(w.generated().unwrap(), alone(&saxpy, &saxpy_layout));
    w.send_generate("main", &scale_layout, &options);
    // `generated` reads the verdict it waits behind.
    assert_eq!(w.generated().unwrap(), alone(&scale, &scale_layout));
    assert!(w.is_alive());
    // The invalid module: the validator's verdict, then a dead worker.
    w.start_validation(&invalid).unwrap();
    w.send_generate("main", &scale_layout, &options);
    let e = w.verdict().unwrap().unwrap_err().to_string();
    assert!(e.contains("must be less than the ID bound"), "{e}");
    assert!(!w.is_alive());
    assert!(w.generated().is_err());
    assert!(w.start_validation(&saxpy).is_err());
}

#[test]
fn a_module_larger_than_the_pipe_is_not_sent_ahead() {
    let program = PathBuf::from(env!("CARGO_BIN_EXE_halc"));
    let w = halc::msl::worker::Worker::spawn(&program, halc::DEFAULT_TIME_LIMIT).unwrap();
    let (saxpy, _, _) = request(&kernel("saxpy.spv"));
    // 512 KiB of words: more than the request pipe holds (256 KiB on Linux).
    let mut big = saxpy.as_slice().to_vec();
    big.resize(128 * 1024, 0);
    let big = halc::spirv::Words::from_words(big).unwrap();
    assert!(!w.has_room_for(&big));
}

#[test]
fn both_worker_starts_contain_a_crash_and_agree_on_the_output() {
    let d = tempfile::tempdir().unwrap();
    let files: Vec<String> = ["saxpy.spv", "scale.spv", "spec_constants.spv"]
        .iter()
        .map(|f| kernel(f).display().to_string())
        .collect();
    let mut outputs = Vec::new();
    for how in ["fork", "exec"] {
        let out = d.path().join(format!("{how}.halc"));
        let mut args = vec![
            "compile",
            "--worker-start",
            how,
            "-o",
            out.to_str().unwrap(),
        ];
        args.extend(files.iter().map(String::as_str));
        let o = halc_cli(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        outputs.push(std::fs::read(&out).unwrap());
        // The same run with the worker crashing on every kernel.
        let o = Command::new(env!("CARGO_BIN_EXE_halc"))
            .args(&args)
            .env(halc::msl::worker::CRASH_TEST_ENV, "abort")
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{how}: {err}");
        assert_eq!(
            err.trim_end(),
            format!(
                "error: {}: entry point `main`: SPIRV-Cross crashed (signal 6 SIGABRT); the module was not compiled",
                files[0]
            ),
            "{how}"
        );
    }
    assert!(outputs[0] == outputs[1], "fork and exec workers differ");
}

/// Forking is only sound in a single-threaded process; the test harness
/// runs threads, so the library refuses rather than risk a child that
/// inherits a lock held by another thread.
#[cfg(target_os = "linux")]
#[test]
fn forked_workers_are_refused_in_a_multithreaded_process() {
    let keep_busy = std::thread::spawn(|| std::thread::sleep(std::time::Duration::from_secs(2)));
    let e = halc::compile(
        &[input(&kernel("saxpy.spv"))],
        &halc::Options {
            isolation: halc::Isolation::Forked {
                time_limit: halc::DEFAULT_TIME_LIMIT,
            },
            ..Default::default()
        },
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("cannot fork a worker: this process runs")
            && e.contains("use Isolation::Subprocess"),
        "{e}"
    );
    keep_busy.join().unwrap();
}
