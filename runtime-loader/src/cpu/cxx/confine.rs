//! clang++ and the linker, compiling MSL someone else wrote, run confined:
//! in the child between `fork` and `exec` (`pre_exec`), limits on what the
//! compile may use ([`Limits`]: address space, CPU time, file size, no core
//! dump) and, on Linux, a seccomp filter under which every system call that
//! makes or uses a network socket fails with `EPERM`. A limit that bites
//! ends the compile with an error naming the limit, never halc.
//!
//! The source is halc's MSL, so what a hostile input controls is what clang
//! is asked to compile (a template instantiated a million times, an array
//! initialiser of a gigabyte), not what clang does: the limits bound its
//! cost; the filter is there because refusing costs nothing.

use std::io;
use std::process::Command;

/// What one compile (or link) may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::cpu) struct Limits {
    /// Address space (`RLIMIT_AS`).
    pub(in crate::cpu) address_space: u64,
    /// CPU seconds (`RLIMIT_CPU`): SIGXCPU, then SIGKILL.
    pub(in crate::cpu) cpu_seconds: u64,
    /// Largest file it may write (`RLIMIT_FSIZE`): the object and the
    /// shared object.
    pub(in crate::cpu) file_bytes: u64,
}

impl Limits {
    /// 4 GiB of address space (clang 19 compiling the largest kernel of the
    /// repository maps under 200 MB), 5 minutes of CPU (a cold compile
    /// takes about 0.4 s), files up to 256 MiB (kernels' objects are tens
    /// of KB).
    pub(in crate::cpu) const DEFAULT: Limits = Limits {
        address_space: 4 << 30,
        cpu_seconds: 300,
        file_bytes: 256 << 20,
    };

    /// The limits in words, for an error.
    pub(in crate::cpu) fn describe(&self) -> String {
        format!(
            "address space {} MiB, CPU time {} s, files {} MiB",
            self.address_space >> 20,
            self.cpu_seconds,
            self.file_bytes >> 20
        )
    }
}

/// Makes `cmd` run confined by `limits` (nothing if `None`).
pub(in crate::cpu) fn confine(cmd: &mut Command, limits: Option<Limits>) -> &mut Command {
    let Some(limits) = limits else { return cmd };
    #[cfg(target_os = "linux")]
    let filter = crate::process::refusing_filter(false);
    // SAFETY: the closure runs in the forked child before exec: it calls
    // setrlimit and (Linux) prctl and seccomp only, with values prepared
    // before the fork, and allocates nothing.
    unsafe {
        std::os::unix::process::CommandExt::pre_exec(cmd, move || {
            for (resource, limit) in [
                (libc::RLIMIT_CORE, 0),
                (libc::RLIMIT_AS, limits.address_space),
                (libc::RLIMIT_CPU, limits.cpu_seconds),
                (libc::RLIMIT_FSIZE, limits.file_bytes),
            ] {
                let l = libc::rlimit {
                    rlim_cur: limit,
                    rlim_max: limit,
                };
                // Elsewhere than Linux a limit the system does not take
                // (macOS and RLIMIT_AS) is left unset.
                if libc::setrlimit(resource, &l) != 0 && cfg!(target_os = "linux") {
                    return Err(io::Error::last_os_error());
                }
            }
            // A filter that could not be compiled: the compile is refused,
            // not run unfiltered.
            #[cfg(target_os = "linux")]
            crate::process::refuse(
                filter.map_err(|_| io::Error::from_raw_os_error(libc::ENOSYS))?,
            )?;
            Ok(())
        })
    };
    cmd
}

/// Why a confined process that did not succeed may have ended, when a
/// limit may have ended it: killed by a signal, or an exit status other
/// than a compiler's 1 (the dynamic loader's 127 when the libraries do not
/// fit in the address space); else `None`.
pub(in crate::cpu) fn limit_note(
    status: std::process::ExitStatus,
    limits: Option<Limits>,
) -> Option<String> {
    use std::os::unix::process::ExitStatusExt;
    let limits = limits?;
    let how = match (status.signal(), status.code()) {
        (Some(signal), _) => {
            let name = match signal {
                libc::SIGXCPU => " (SIGXCPU: its CPU time limit)",
                libc::SIGXFSZ => " (SIGXFSZ: its file size limit)",
                libc::SIGKILL => " (SIGKILL)",
                libc::SIGSEGV => " (SIGSEGV)",
                libc::SIGABRT => " (SIGABRT)",
                _ => "",
            };
            format!("was killed by signal {signal}{name}")
        }
        (None, Some(code)) if code != 1 => format!("exited with status {code}"),
        _ => return None,
    };
    Some(format!(
        "the compile {how}; it runs under limits ({}), which may have ended it",
        limits.describe()
    ))
}
