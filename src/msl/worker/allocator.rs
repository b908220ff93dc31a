//! The allocator a forked worker gives C++ ([`CxxAllocator`]): glibc's
//! malloc or mimalloc, chosen per call ([`CxxAllocator::for_batch`],
//! [`ALLOCATOR_ENV`]) and switched to once in the child, through
//! `src/msl/worker_alloc.cpp`.

/// Environment variable overriding which allocator a batch's forked workers
/// give SPIRV-Cross and SPIRV-Tools: `system` (glibc's malloc) or
/// `mimalloc` ([`CxxAllocator::for_batch`]).
pub const ALLOCATOR_ENV: &str = "HALC_WORKER_ALLOCATOR";

pub use crate::model::CxxAllocator;

impl CxxAllocator {
    /// Which allocator the forked workers of a `compile` call of `inputs`
    /// modules on `jobs` jobs use: mimalloc on Linux when some worker will
    /// compile more than one module, glibc's otherwise; [`ALLOCATOR_ENV`]
    /// (`system` or `mimalloc`) overrides either way.
    pub fn for_batch(inputs: usize, jobs: usize) -> Result<CxxAllocator, String> {
        match std::env::var(ALLOCATOR_ENV).as_deref() {
            Ok("system") => return Ok(CxxAllocator::System),
            Ok("mimalloc") if cfg!(target_os = "linux") => return Ok(CxxAllocator::Mimalloc),
            Ok("mimalloc") => {
                return Err(format!(
                    "{ALLOCATOR_ENV}=mimalloc: the workers' mimalloc is built on Linux only"
                ))
            }
            Ok(other) => {
                return Err(format!(
                    "{ALLOCATOR_ENV} must be `system` or `mimalloc`, not `{other}`"
                ))
            }
            Err(_) => {}
        }
        Ok(if cfg!(target_os = "linux") && inputs > jobs {
            CxxAllocator::Mimalloc
        } else {
            CxxAllocator::System
        })
    }

    /// Its name in `--timings`.
    pub fn name(self) -> &'static str {
        match self {
            CxxAllocator::System => "glibc malloc",
            CxxAllocator::Mimalloc => "mimalloc",
        }
    }
}

/// `src/msl/worker_alloc.cpp`.
#[cfg(target_os = "linux")]
pub(crate) mod cxx_alloc {
    // Links mimalloc, which the C++ side calls.
    use libmimalloc_sys as _;

    extern "C" {
        /// Makes C++'s `new` allocate from mimalloc in this process from now
        /// on. Only sound while the process has a single thread.
        pub fn halc_worker_use_mimalloc();
    }

    #[cfg(test)]
    extern "C" {
        /// Whether `halc_worker_use_mimalloc` was called.
        pub fn halc_worker_uses_mimalloc() -> bool;
        /// `::operator new(size)`.
        pub fn halc_worker_cxx_new(size: usize) -> *mut u8;
        /// `::operator delete(p)`.
        pub fn halc_worker_cxx_delete(p: *mut u8);
        /// Whether mimalloc owns `p`.
        pub fn halc_worker_mimalloc_owns(p: *const u8) -> bool;
        /// Whether mimalloc has been initialised in this process.
        pub fn halc_worker_mimalloc_started() -> bool;
    }
}

/// Switches this process's C++ allocations to `allocator`; a no-op for
/// [`CxxAllocator::System`].
///
/// # Safety
/// Only while this process runs a single thread, before any other thread
/// could allocate: the switch is a plain flag.
pub(super) unsafe fn use_cxx_allocator(allocator: CxxAllocator) {
    match allocator {
        CxxAllocator::System => {}
        #[cfg(target_os = "linux")]
        CxxAllocator::Mimalloc => {
            // SAFETY: single-threaded, per this function's contract.
            unsafe { cxx_alloc::halc_worker_use_mimalloc() }
        }
        #[cfg(not(target_os = "linux"))]
        CxxAllocator::Mimalloc => {}
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::cxx_alloc::*;

    /// The switch is one-way and process-wide, so it is made in a child: the
    /// C++ allocation made before it stays glibc's and is freed by glibc,
    /// those made after it are mimalloc's and freed by mimalloc (glibc
    /// aborts on a pointer it does not own: "free(): invalid pointer").
    #[test]
    fn cxx_allocations_move_to_mimalloc_after_the_switch_and_each_is_freed_by_its_owner() {
        // This process never switches, so its C++ allocations stay glibc's,
        // though mimalloc's process constructor has initialised it.
        // SAFETY: plain calls into worker_alloc.cpp.
        unsafe {
            assert!(halc_worker_mimalloc_started());
            assert!(!halc_worker_uses_mimalloc());
            let p = halc_worker_cxx_new(64);
            assert!(!p.is_null() && !halc_worker_mimalloc_owns(p));
            halc_worker_cxx_delete(p);
        }
        // SAFETY: the child only calls C++ allocation functions and exits
        // with `_exit`; glibc's malloc is usable after fork.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0, "fork failed");
        if pid == 0 {
            // SAFETY: as above; the child runs one thread.
            let failed = unsafe {
                let mut failed = 0;
                let before = halc_worker_cxx_new(48);
                failed |= i32::from(halc_worker_mimalloc_owns(before));
                failed |= i32::from(!halc_worker_mimalloc_started()) << 4;
                super::use_cxx_allocator(super::CxxAllocator::Mimalloc);
                failed |= i32::from(!halc_worker_uses_mimalloc()) << 1;
                failed |= i32::from(!halc_worker_mimalloc_started()) << 5;
                let after = halc_worker_cxx_new(48);
                failed |= i32::from(!halc_worker_mimalloc_owns(after)) << 2;
                halc_worker_cxx_delete(before);
                halc_worker_cxx_delete(after);
                let mut kept = Vec::with_capacity(1000);
                for i in 0..1000 {
                    let p = halc_worker_cxx_new(8 + i * 24);
                    failed |= i32::from(!halc_worker_mimalloc_owns(p)) << 3;
                    kept.push(p);
                }
                for p in kept {
                    halc_worker_cxx_delete(p);
                }
                failed
            };
            // SAFETY: ends the child without the test harness's cleanup.
            unsafe { libc::_exit(failed) }
        }
        let mut status = 0;
        // SAFETY: waits for the child forked above.
        unsafe { libc::waitpid(pid, &mut status, 0) };
        assert!(
            libc::WIFEXITED(status),
            "the child died (wait status {status:#x})"
        );
        assert_eq!(
            libc::WEXITSTATUS(status),
            0,
            "failed checks (bits: 1 glibc's block owned by mimalloc, 2 not switched, 4 and 8 a new block not mimalloc's, 16 mimalloc not started by its constructor, 32 not after the switch)"
        );
    }
}
