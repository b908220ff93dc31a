//! How many CPUs a `compile` call may occupy: the cores it may run on, those
//! no other task is using at the moment, and, under a GNU make or cargo
//! jobserver, the tokens it can take from the build.
//!
//! A build that runs halc (`make -j`, a `build.rs` under cargo, ninja with
//! a jobserver) owns a number of CPUs and hands them out as jobserver
//! tokens: each process it starts holds one implicitly and must take a
//! token for every further CPU it keeps busy. Without the jobserver, a
//! batch's default of one job per core comes on top of everything the
//! build runs beside it (rustc's codegen, other build scripts, other
//! recipes), and a two-core machine building one crate while halc compiles
//! 200 kernels runs four busy processes on two cores.

use std::sync::OnceLock;

/// What decided a [`Budget`]'s CPUs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Grant {
    /// The caller's job count (`-j N`).
    Requested,
    /// The cores this process may use, as counted for the call.
    Cores,
    /// The jobserver: the caller's own token and those it took.
    Jobserver,
}

/// The CPUs granted to one `compile` call: its own, and one more for each
/// jobserver token it holds. The tokens go back to the jobserver when the
/// budget is dropped (when `compile` returns).
pub(crate) struct Budget {
    /// CPUs the call may keep busy at once.
    pub cpus: usize,
    /// Tokens taken from the jobserver, one per CPU beyond the first.
    tokens: Vec<jobserver::Acquired>,
    /// What decided `cpus`.
    pub grant: Grant,
    /// The CPUs the call could use (the cores, or the modules if fewer):
    /// what it may grow to as the jobserver frees tokens ([`Growth`]).
    pub wanted: usize,
}

impl Budget {
    /// Up to `wanted` CPUs (at least one): under a jobserver, the caller's
    /// own and one for each token it can take now without waiting;
    /// without one (or where this system cannot take a token without
    /// waiting: a pipe jobserver on macOS), `cores()`, which a caller
    /// then weighs against what else is running.
    pub fn take(wanted: usize, cores: impl FnOnce() -> usize) -> Budget {
        match jobserver() {
            Some(client) => {
                let cores = cores();
                let wanted = wanted.min(cores).max(1);
                match take_tokens(wanted - 1, || client.try_acquire()) {
                    Some(tokens) => Budget {
                        cpus: 1 + tokens.len(),
                        tokens,
                        grant: Grant::Jobserver,
                        wanted,
                    },
                    None => Budget::cores(cores),
                }
            }
            None => Budget::cores(cores()),
        }
    }

    /// `cpus` CPUs, the cores counted: no jobserver involved.
    pub fn cores(cpus: usize) -> Budget {
        Budget {
            cpus: cpus.max(1),
            tokens: Vec::new(),
            grant: Grant::Cores,
            wanted: cpus.max(1),
        }
    }

    /// `jobs` CPUs, as the caller asked for them (`-j N`): no jobserver
    /// involved. GNU make treats an explicit `-j N` given to a sub-make
    /// the same way.
    pub fn requested(jobs: usize) -> Budget {
        Budget {
            grant: Grant::Requested,
            ..Budget::cores(jobs)
        }
    }

    /// Whether a jobserver decided the CPUs.
    pub fn granted_by_jobserver(&self) -> bool {
        self.grant == Grant::Jobserver
    }

    /// Jobserver tokens held.
    pub fn tokens(&self) -> usize {
        self.tokens.len()
    }

    /// Gives back the tokens beyond the first `cpus` CPUs (the call found
    /// a use for fewer than it took).
    pub fn keep(&mut self, cpus: usize) {
        self.tokens.truncate(cpus.saturating_sub(1));
        if self.granted_by_jobserver() {
            self.cpus = 1 + self.tokens.len();
        }
    }

    /// Under a jobserver that granted fewer than `jobs` CPUs: how a call
    /// running `started` jobs, each on one thread, adds jobs up to `jobs`
    /// as the build frees tokens.
    pub fn growth(&self, started: usize, jobs: usize) -> Option<Growth> {
        let client = jobserver().filter(|_| self.granted_by_jobserver())?;
        (started < jobs).then(|| Growth {
            client,
            jobs: std::sync::atomic::AtomicUsize::new(started),
            max: jobs,
        })
    }
}

/// More jobs for a call as its jobserver frees tokens. A build's other work
/// ends at its own pace (a rustc beside a build script, another recipe):
/// the tokens free at the call's start are often fewer than it could use
/// a moment later. Each job asks, without waiting, whenever it starts on a
/// module, and a job started on a token gives it back when it runs out of
/// modules.
pub(crate) struct Growth {
    client: &'static jobserver::Client,
    /// Jobs started so far.
    jobs: std::sync::atomic::AtomicUsize,
    /// Jobs the call may have.
    max: usize,
}

impl Growth {
    /// A token for one more job, if the call may have one more and the
    /// jobserver has a token free now.
    pub fn try_add(&self) -> Option<jobserver::Acquired> {
        use std::sync::atomic::Ordering;
        // Claim the job first, so that no two jobs exceed `max` together.
        self.jobs
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                (n < self.max).then_some(n + 1)
            })
            .ok()?;
        match self.client.try_acquire() {
            Ok(Some(token)) => Some(token),
            _ => {
                self.jobs.fetch_sub(1, Ordering::SeqCst);
                None
            }
        }
    }

    /// Jobs started so far.
    pub fn jobs(&self) -> usize {
        self.jobs.load(std::sync::atomic::Ordering::SeqCst)
    }
}

/// Up to `n` tokens from `try_acquire`, stopping at the first that is not
/// free now (or at an error: the jobserver's state is then unknown, so no
/// more are asked for); `None` if this system cannot take one without
/// waiting ([`std::io::ErrorKind::Unsupported`]) and none was taken.
fn take_tokens<T>(
    n: usize,
    mut try_acquire: impl FnMut() -> std::io::Result<Option<T>>,
) -> Option<Vec<T>> {
    let mut tokens = Vec::new();
    while tokens.len() < n {
        match try_acquire() {
            Ok(Some(token)) => tokens.push(token),
            Ok(None) => break,
            Err(e) if e.kind() == std::io::ErrorKind::Unsupported && tokens.is_empty() => {
                return None
            }
            Err(_) => break,
        }
    }
    Some(tokens)
}

/// The jobserver this process's environment names (`CARGO_MAKEFLAGS`,
/// `MAKEFLAGS` or `MFLAGS`, as make and cargo pass it), opened once per
/// process; `None` without one, or when the descriptors it names are not
/// open pipes (make passes them only to recipes it knows run a make).
pub(crate) fn jobserver() -> Option<&'static jobserver::Client> {
    static CLIENT: OnceLock<Option<jobserver::Client>> = OnceLock::new();
    CLIENT
        .get_or_init(|| {
            // SAFETY: called once per process (the `OnceLock`). The crate
            // checks that the descriptors the environment names are open
            // pipes (`check_pipe`) and uses copies of them (on Linux new
            // opens of `/dev/fd/N`), so nothing this process owns
            // otherwise is read, written or closed through them.
            unsafe { jobserver::Client::from_env_ext(true) }.client.ok()
        })
        .as_ref()
}

/// The cores this process may use, as the standard library counts them.
/// Asked once per process: on Linux the answer reads the cgroup CPU quota
/// from /proc and /sys, which costs more than compiling a small kernel's
/// layout, reflection and checks together.
pub(crate) fn cores() -> usize {
    static CORES: OnceLock<usize> = OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// The cores this process may be scheduled on, in one system call (its CPU
/// affinity, on Linux), for a single module's compile, which otherwise
/// needs no core count: [`cores`] also reads the cgroup's CPU quota, so it
/// can be lower.
pub(crate) fn cores_cheaply() -> usize {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: `set` is a valid cpu_set_t for the call's duration, and
        // CPU_COUNT only reads it.
        unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) == 0 {
                return usize::try_from(libc::CPU_COUNT(&set)).unwrap_or(1).max(1);
            }
        }
    }
    cores()
}

/// Of `cores`, the cores a call may use, those no other task is running on
/// at this moment, given `running`, the runnable tasks Linux counts
/// ([`runnable_tasks_now`], this process among them); all of them where
/// that count is unknown. The count is machine-wide: on a machine with
/// more CPUs than the call may use it can only find too few free, which
/// keeps the validator in the worker that runs SPIRV-Cross.
pub(crate) fn free_cores(cores: usize, running: Option<usize>) -> usize {
    running.map_or(cores, |r| cores.saturating_sub(r.saturating_sub(1)))
}

/// The runnable tasks on this machine now (`/proc/loadavg`'s fourth field,
/// `running/total`, which counts the reader), where Linux tells.
pub(crate) fn runnable_tasks_now() -> Option<usize> {
    #[cfg(target_os = "linux")]
    {
        runnable_tasks(&std::fs::read_to_string("/proc/loadavg").ok()?)
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

/// The runnable tasks of a `/proc/loadavg` line (`0.52 0.58 0.59 3/412
/// 12345`: 3).
#[cfg(any(target_os = "linux", test))]
fn runnable_tasks(loadavg: &str) -> Option<usize> {
    let field = loadavg.split_ascii_whitespace().nth(3)?;
    field.split_once('/')?.0.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::{free_cores, runnable_tasks, take_tokens, Budget, Grant};
    use std::io::{Error, ErrorKind};

    /// Two cores and nothing else running leave both free, so a single
    /// module's validator gets a worker of its own; each other runnable
    /// task takes one; an unknown count takes none.
    #[test]
    fn other_running_tasks_take_cores() {
        assert_eq!(free_cores(2, Some(1)), 2);
        assert_eq!(free_cores(2, Some(2)), 1);
        assert_eq!(free_cores(2, Some(5)), 0);
        assert_eq!(free_cores(2, None), 2);
        assert_eq!(free_cores(16, Some(3)), 14);
        assert_eq!(free_cores(2, Some(0)), 2);
    }

    #[test]
    fn reads_the_runnable_tasks_of_proc_loadavg() {
        assert_eq!(runnable_tasks("0.52 0.58 0.59 3/412 12345\n"), Some(3));
        assert_eq!(runnable_tasks("1.15 0.83 1.25 1/76 10910"), Some(1));
        assert_eq!(runnable_tasks("0.52 0.58 0.59"), None);
        assert_eq!(runnable_tasks("0.52 0.58 0.59 x/412 1"), None);
        assert_eq!(runnable_tasks("0.52 0.58 0.59 3 1"), None);
    }

    /// The live file parses, and counts at least this test's own thread.
    #[cfg(target_os = "linux")]
    #[test]
    fn this_machine_counts_itself_running() {
        let text = std::fs::read_to_string("/proc/loadavg").unwrap();
        assert!(runnable_tasks(&text).is_some_and(|n| n >= 1), "{text}");
    }

    /// A source of `free` tokens, then `after` once they are gone.
    fn source(
        free: usize,
        after: fn() -> std::io::Result<Option<u8>>,
    ) -> impl FnMut() -> std::io::Result<Option<u8>> {
        let mut left = free;
        move || {
            if left == 0 {
                return after();
            }
            left -= 1;
            Ok(Some(b'+'))
        }
    }

    /// Tokens are taken until enough are held or none is free, never more.
    #[test]
    fn takes_free_tokens_up_to_the_need() {
        let none = || Ok(None);
        assert_eq!(take_tokens(3, source(5, none)).map(|t| t.len()), Some(3));
        assert_eq!(take_tokens(3, source(1, none)).map(|t| t.len()), Some(1));
        assert_eq!(take_tokens(0, source(5, none)).map(|t| t.len()), Some(0));
        assert_eq!(take_tokens(3, source(0, none)).map(|t| t.len()), Some(0));
    }

    /// A jobserver this system cannot take a token from without waiting is
    /// as good as none (`None`: the cores decide); a failure after some
    /// tokens keeps those; any other failure stops the taking.
    #[test]
    fn a_jobserver_that_cannot_be_polled_leaves_the_cores_to_decide() {
        let unsupported = || Err(Error::from(ErrorKind::Unsupported));
        let broken = || Err(Error::from(ErrorKind::UnexpectedEof));
        assert_eq!(
            take_tokens(3, source(0, unsupported)).map(|t| t.len()),
            None
        );
        assert_eq!(
            take_tokens(3, source(1, unsupported)).map(|t| t.len()),
            Some(1)
        );
        assert_eq!(take_tokens(3, source(0, broken)).map(|t| t.len()), Some(0));
        assert_eq!(take_tokens(3, source(2, broken)).map(|t| t.len()), Some(2));
    }

    /// Keeping fewer CPUs than taken gives the extra tokens back, and a
    /// budget of cores has no tokens to give.
    #[test]
    fn keeping_fewer_cpus_returns_tokens() {
        let client = jobserver::Client::new(3).unwrap();
        // A pipe made here is not polled without waiting (`try_acquire` is
        // for one inherited through the environment): take what is free.
        let tokens = take_tokens(3, || client.acquire().map(Some)).unwrap();
        assert_eq!(tokens.len(), 3);
        assert_eq!(client.available().unwrap(), 0);
        let mut budget = Budget {
            cpus: 4,
            tokens,
            grant: Grant::Jobserver,
            wanted: 4,
        };
        budget.keep(2);
        assert_eq!((budget.cpus, budget.tokens()), (2, 1));
        assert_eq!(client.available().unwrap(), 2);
        drop(budget);
        assert_eq!(client.available().unwrap(), 3);

        let mut cores = Budget::cores(8);
        cores.keep(2);
        assert_eq!((cores.cpus, cores.tokens()), (8, 0));
    }
}
