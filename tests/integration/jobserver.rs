//! `halc compile` under a make or cargo jobserver: it keeps no more CPUs
//! busy than it holds tokens for (plus the one every job it is started as
//! holds), gives every token back, and writes the same file.
//!
//! Linux: there `jobserver` can take a token from an inherited pipe without
//! waiting. On macOS a pipe jobserver leaves halc to count cores.
#![cfg(target_os = "linux")]

use std::process::Command;

use crate::{compute_fixtures, kernel};

/// `halc compile --timings FILES -o OUT`, with the jobserver variables of
/// the test's environment (cargo's own, if any) and the validator override
/// removed.
fn command(files: &[String], out: &std::path::Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_halc"));
    cmd.args(["compile", "--timings", "-o"])
        .arg(out)
        .args(files)
        .env_remove(halc::msl::worker::VALIDATOR_ENV);
    for var in ["CARGO_MAKEFLAGS", "MAKEFLAGS", "MFLAGS"] {
        cmd.env_remove(var);
    }
    cmd
}

/// [`command`] with `setup`'s changes, run to success: its `--timings`.
fn compile(files: &[String], out: &std::path::Path, setup: impl FnOnce(&mut Command)) -> String {
    let mut cmd = command(files, out);
    setup(&mut cmd);
    let o = cmd.output().expect("run halc");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).unwrap()
}

/// The jobs and the jobserver tokens `--timings` reports.
fn jobs_and_tokens(table: &str) -> (usize, Option<usize>) {
    let (_, rest) = table.split_once(" modules on ").expect(table);
    let (jobs, rest) = rest.split_once(" jobs").expect(table);
    let tokens = rest
        .strip_prefix(" (jobserver: ")
        .map(|r| r.split(' ').next().unwrap().parse().expect(table));
    (jobs.parse().expect(table), tokens)
}

fn cores() -> usize {
    std::thread::available_parallelism().unwrap().get()
}

fn batch() -> Vec<String> {
    compute_fixtures()
        .iter()
        .filter(|p| !p.ends_with("two_entry_points_builtin.spv"))
        .take(6)
        .map(|p| p.display().to_string())
        .collect()
}

/// Without a jobserver a batch runs a job per core; under one it runs one
/// job on its own token and one more per token it could take, never more
/// than the cores, and the tokens are all back once it has exited. The
/// bytes do not change.
#[test]
fn a_batch_keeps_no_more_jobs_busy_than_the_jobserver_grants() {
    assert!(
        cores() >= 2,
        "this test needs two cores to tell a jobserver's limit from the core count"
    );
    let d = tempfile::tempdir().unwrap();
    let files = batch();
    let free = compile(&files, &d.path().join("free.halc"), |_| {});
    assert_eq!(
        jobs_and_tokens(&free),
        (cores().min(files.len()), None),
        "{free}"
    );
    let reference = std::fs::read(d.path().join("free.halc")).unwrap();
    for tokens in [0, 1, 3] {
        let client = jobserver::Client::new(tokens).unwrap();
        let out = d.path().join(format!("t{tokens}.halc"));
        let table = compile(&files, &out, |cmd| client.configure_make(cmd));
        let jobs = (1 + tokens).min(cores()).min(files.len());
        assert_eq!(
            jobs_and_tokens(&table),
            (jobs, Some(jobs - 1)),
            "{tokens} tokens: {table}"
        );
        assert_eq!(client.available().unwrap(), tokens, "tokens given back");
        assert!(std::fs::read(&out).unwrap() == reference, "{tokens} tokens");
    }
}

/// One module's validator gets a forked worker of its own only with a
/// token for it, whatever the machine's load (the jobserver knows the
/// build's CPUs); `-j` given leaves the jobserver alone.
#[test]
fn a_single_module_validator_needs_a_token_of_its_own() {
    assert!(cores() >= 2, "this test needs two cores");
    let d = tempfile::tempdir().unwrap();
    let saxpy = vec![kernel("saxpy.spv").display().to_string()];
    let out = d.path().join("o.halc");
    for (tokens, place) in [
        (0, "(in a worker, beside reflection, before SPIRV-Cross)"),
        (1, "(in a worker of its own, beside SPIRV-Cross)"),
    ] {
        let client = jobserver::Client::new(tokens).unwrap();
        // Forked workers (one module runs in this process by default).
        let table = compile(&saxpy, &out, |cmd| {
            cmd.args(["--worker-start", "fork"]);
            client.configure_make(cmd)
        });
        assert!(table.contains(place), "{tokens} tokens: {table}");
        assert_eq!(jobs_and_tokens(&table), (1, Some(tokens)), "{table}");
        assert_eq!(client.available().unwrap(), tokens, "tokens given back");
    }
    let client = jobserver::Client::new(0).unwrap();
    let files = batch();
    let table = compile(&files, &out, |cmd| {
        client.configure_make(cmd);
        cmd.args(["-j", "2"]);
    });
    assert_eq!(jobs_and_tokens(&table), (2, None), "{table}");
}

/// GNU make 4.4's jobserver is a named pipe (`--jobserver-auth=fifo:PATH`
/// in `MAKEFLAGS`): halc takes its tokens from there as well and puts them
/// back.
#[test]
fn a_named_pipe_jobserver_is_honoured_too() {
    use std::io::{Read, Write};
    use std::os::unix::fs::OpenOptionsExt;
    assert!(cores() >= 2, "this test needs two cores");
    let d = tempfile::tempdir().unwrap();
    let fifo = d.path().join("jobserver");
    let path = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(path.as_ptr(), 0o600) }, 0);
    // Read and write, so that writing the tokens needs no other reader.
    let mut pipe = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(&fifo)
        .unwrap();
    pipe.write_all(b"+").unwrap();
    let files = batch();
    let makeflags = format!("-j2 --jobserver-auth=fifo:{}", fifo.display());
    let table = compile(&files, &d.path().join("o.halc"), |cmd| {
        cmd.env("MAKEFLAGS", &makeflags);
    });
    assert_eq!(jobs_and_tokens(&table), (2, Some(1)), "{table}");
    let mut back = [0; 4];
    assert_eq!(pipe.read(&mut back).unwrap(), 1, "one token back");
}

/// CPU time a process has used, in clock ticks (`/proc/PID/stat`'s utime
/// and stime).
fn cpu_ticks(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name, which is in parentheses.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    Some(fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?)
}

/// A batch started with no token free takes one job, and more when the
/// build frees tokens while it runs (a rustc beside a build script
/// ending): here the tokens are written only once halc has been compiling
/// for a while. With forked workers (the default) the jobs added use
/// workers forked for them at the start; with threads only the workers
/// start with the job. It never runs more jobs than cores, gives every
/// token back, and writes the file a serial run writes.
#[test]
fn a_batch_grows_when_the_jobserver_frees_tokens() {
    use std::io::Read;
    assert!(cores() >= 2, "this test needs two cores");
    let d = tempfile::tempdir().unwrap();
    let saxpy = std::fs::read(kernel("saxpy.spv")).unwrap();
    // Enough modules that a release build still runs for ~0.1 s.
    let files: Vec<String> = (0..400)
        .map(|i| {
            let p = d.path().join(format!("k{i:03}.spv"));
            std::fs::write(&p, &saxpy).unwrap();
            p.display().to_string()
        })
        .collect();
    let serial = d.path().join("serial.halc");
    let table = compile(&files, &serial, |cmd| {
        cmd.args(["--in-process", "-j", "1"]);
    });
    assert_eq!(jobs_and_tokens(&table), (1, None), "{table}");
    for isolation in [&[][..], &["--in-process"], &["--worker-start", "exec"]] {
        let client = jobserver::Client::new(0).unwrap();
        let out = d.path().join("grown.halc");
        let mut cmd = command(&files, &out);
        cmd.args(isolation).stdout(std::process::Stdio::piped());
        client.configure_make(&mut cmd);
        let mut child = cmd.spawn().unwrap();
        // Two ticks of CPU time (20 ms): long past the tokens a call takes
        // as it starts, long before 400 modules are done.
        let started = std::time::Instant::now();
        while cpu_ticks(child.id()).is_some_and(|t| t < 2) && started.elapsed().as_secs() < 10 {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        for _ in 0..3 {
            client.release_raw().unwrap();
        }
        let mut table = String::new();
        child
            .stdout
            .take()
            .unwrap()
            .read_to_string(&mut table)
            .unwrap();
        assert!(child.wait().unwrap().success(), "{isolation:?}: {table}");
        let jobs = cores().min(4);
        assert_eq!(
            jobs_and_tokens(&table),
            (jobs, Some(jobs - 1)),
            "{isolation:?}: {table}"
        );
        assert_eq!(
            client.available().unwrap(),
            3,
            "{isolation:?}: tokens given back"
        );
        assert!(
            std::fs::read(&out).unwrap() == std::fs::read(&serial).unwrap(),
            "{isolation:?}"
        );
    }
}
