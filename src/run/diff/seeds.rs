//! Many seeds at once, each in a forked process, results in seed order.

use runtime_loader::cpu;

use super::{diff, DiffOptions, DiffOutcome};
use crate::model::Input;

/// Runs [`diff`] for every seed in `seeds` (`opts.seed` replaced by each),
/// `jobs` at once (0: one per core, or what a make or cargo jobserver
/// grants), each in a forked process unless the caller runs other threads,
/// and calls `done` with each seed and its result in seed order, as soon as
/// it and every seed before it have finished. A seed whose process died is
/// an error naming how (`signal 6 (Aborted)`). An error from `done` stops
/// the run (what is running is waited for) and is returned.
pub fn diff_seeds<E>(
    input: &Input,
    opts: &DiffOptions,
    seeds: std::ops::Range<u64>,
    device: &cpu::Device,
    jobs: usize,
    mut done: impl FnMut(u64, Result<DiffOutcome, String>) -> Result<(), E>,
) -> Result<(), E> {
    let n = usize::try_from(seeds.end.saturating_sub(seeds.start)).unwrap_or(usize::MAX);
    // The first seed alone: it fills the CPU backend's cache with the
    // kernel's shared object, which every later seed then finds instead of
    // running clang on the same source at once.
    let first = n.min(1);
    run_seeds(input, opts, seeds.start, first, device, 1, &mut done)?;
    run_seeds(
        input,
        opts,
        seeds.start + first as u64,
        n - first,
        device,
        jobs,
        &mut done,
    )
}

/// [`diff_seeds`] of the `n` seeds from `start`.
fn run_seeds<E>(
    input: &Input,
    opts: &DiffOptions,
    start: u64,
    n: usize,
    device: &cpu::Device,
    jobs: usize,
    done: &mut impl FnMut(u64, Result<DiffOutcome, String>) -> Result<(), E>,
) -> Result<(), E> {
    let seed = |i: usize| start + i as u64;
    crate::driver::forked::each_forked(
        n,
        jobs,
        |i| {
            let opts = DiffOptions {
                seed: seed(i),
                ..opts.clone()
            };
            encode_outcome(&diff(input, &opts, device))
        },
        |i, bytes, _| {
            let seed = seed(i);
            let r = match bytes {
                Ok(b) => decode_outcome(&b).unwrap_or_else(|| {
                    Err(format!(
                        "{} seed {seed}: the process running it sent a garbled result",
                        input.name
                    ))
                }),
                Err(how) => Err(format!(
                    "{} seed {seed}: the process running it ended with {how} before it finished",
                    input.name
                )),
            };
            done(seed, r)
        },
    )
}

/// The bytes a seed's process sends.
pub(super) fn encode_outcome(r: &Result<DiffOutcome, String>) -> Vec<u8> {
    use crate::driver::forked::tagged;
    match r {
        Ok(DiffOutcome::Agree(m)) => tagged(b'A', m),
        Ok(DiffOutcome::Differ(m)) => tagged(b'D', m),
        Ok(DiffOutcome::Inconclusive(m)) => tagged(b'I', m),
        Err(m) => tagged(b'E', m),
    }
}

pub(super) fn decode_outcome(bytes: &[u8]) -> Option<Result<DiffOutcome, String>> {
    Some(match crate::driver::forked::untag(bytes)? {
        (b'A', m) => Ok(DiffOutcome::Agree(m)),
        (b'D', m) => Ok(DiffOutcome::Differ(m)),
        (b'I', m) => Ok(DiffOutcome::Inconclusive(m)),
        (b'E', m) => Err(m),
        _ => return None,
    })
}
