//! Failures injected on purpose ([`CRASH_TEST_ENV`]): how the tests prove
//! that a worker, or the guard in this process, contains a crash or a hang
//! of the C++.

use std::time::Duration;

/// Environment variable that makes the worker crash on purpose: `abort`,
/// `segv` or `stack-overflow` (or hang: `hang`) before generating MSL, or
/// the same prefixed with `validate:` before validating. How the tests
/// prove the containment works, since validated input no longer crashes
/// SPIRV-Cross.
pub const CRASH_TEST_ENV: &str = "HALC_WORKER_CRASH_TEST";

/// The failure [`CRASH_TEST_ENV`] asks for, injected in this process before
/// validating (`validate`) or generating MSL: how the tests prove that
/// [`crate::Isolation::Guarded`] contains it as a worker would.
pub(crate) fn crash_for_test_before(validate: bool) {
    let Some(how) = std::env::var_os(CRASH_TEST_ENV) else {
        return;
    };
    let how = how.to_string_lossy();
    match (validate, how.strip_prefix("validate:")) {
        (true, Some(how)) => crash_for_test(how),
        (false, None) => crash_for_test(&how),
        _ => {}
    }
}

pub(super) fn crash_for_test(how: &str) {
    match how {
        "abort" => std::process::abort(),
        // Never answers: the time limit, or the parent, ends it.
        "hang" => loop {
            std::thread::sleep(Duration::from_secs(1));
        },
        "segv" => {
            // SAFETY: deliberately not sound: a null write to raise SIGSEGV
            // in the worker, only when the crash-test variable is set.
            unsafe { std::ptr::null_mut::<u32>().write_volatile(1) }
        }
        "stack-overflow" => {
            fn recurse(n: u64) -> u64 {
                if n == u64::MAX {
                    return 0;
                }
                let buf = [n; 64];
                std::hint::black_box(&buf);
                recurse(n + 1) + buf[0]
            }
            std::hint::black_box(recurse(0));
        }
        _ => {}
    }
}
